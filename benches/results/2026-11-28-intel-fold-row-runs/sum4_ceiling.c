// The Sum of four (`sum4_f32`: three [16,512,512] f32 and a [512] row) as C loops, each
// timed in batches alternating with glibc's memcpy of an output-sized source into the same
// output, as bcast's bench does; buffers from malloc (16 bytes into a line, as the bench's).
// Prints each loop's traffic ratio: (copy time / loop time) * (4 streams / 2 streams).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
#include <omp.h>
#ifdef WITH_BCAST
#include "bcast.h"
#endif
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
#define R 512
static size_t ROWS=16*512;
static float *A,*B,*C,*D,*O,*S;
typedef void (*rowfn)(float*o,const float*a,const float*b,const float*c);
static void row_plain(float*restrict o,const float*restrict a,const float*restrict b,const float*restrict c){
  for(int j=0;j<R;j++) o[j]=((a[j]+b[j])+c[j])+D[j];
}
static void row_sse(float*o,const float*a,const float*b,const float*c){
  for(int j=0;j<R;j+=4){__m128 v=_mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_loadu_ps(a+j),_mm_loadu_ps(b+j)),_mm_loadu_ps(c+j)),_mm_loadu_ps(D+j));_mm_storeu_ps(o+j,v);}
}
static void row_sse_pf(float*o,const float*a,const float*b,const float*c){
  for(int j=0;j<R;j+=16){
    _mm_prefetch((const char*)(a+j)+1024,_MM_HINT_T0);_mm_prefetch((const char*)(b+j)+1024,_MM_HINT_T0);_mm_prefetch((const char*)(c+j)+1024,_MM_HINT_T0);
    for(int k=j;k<j+16;k+=4){__m128 v=_mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_loadu_ps(a+k),_mm_loadu_ps(b+k)),_mm_loadu_ps(c+k)),_mm_loadu_ps(D+k));_mm_storeu_ps(o+k,v);}}
}
// bcast's fold shape: blocks of 256 elements, each block's lines of all four rows hinted
// 1 KiB ahead in a burst, then the block's loop.
static void row_burst(float*o,const float*a,const float*b,const float*c){
  for(int f=0;f<R;f+=256){
    const float*rows[4]={a,b,c,D};
    for(int q=0;q<4;q++) for(int j=f;j<f+256;j+=16) _mm_prefetch((const char*)(rows[q]+j)+1024,_MM_HINT_T0);
    for(int k=f;k<f+256;k+=4){__m128 v=_mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_loadu_ps(a+k),_mm_loadu_ps(b+k)),_mm_loadu_ps(c+k)),_mm_loadu_ps(D+k));_mm_storeu_ps(o+k,v);}
  }
}
// The same bursts, the broadcast row left out.
static void row_burst3(float*o,const float*a,const float*b,const float*c){
  for(int f=0;f<R;f+=256){
    const float*rows[3]={a,b,c};
    for(int q=0;q<3;q++) for(int j=f;j<f+256;j+=16) _mm_prefetch((const char*)(rows[q]+j)+1024,_MM_HINT_T0);
    for(int k=f;k<f+256;k+=4){__m128 v=_mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_loadu_ps(a+k),_mm_loadu_ps(b+k)),_mm_loadu_ps(c+k)),_mm_loadu_ps(D+k));_mm_storeu_ps(o+k,v);}
  }
}
static void row_zmm(float*o,const float*a,const float*b,const float*c){
  for(int j=0;j<R;j+=16){__m512 v=_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_loadu_ps(a+j),_mm512_loadu_ps(b+j)),_mm512_loadu_ps(c+j)),_mm512_loadu_ps(D+j));_mm512_storeu_ps(o+j,v);}
}
static void row_zmm_pf(float*o,const float*a,const float*b,const float*c){
  for(int j=0;j<R;j+=16){
    _mm_prefetch((const char*)(a+j)+1024,_MM_HINT_T0);_mm_prefetch((const char*)(b+j)+1024,_MM_HINT_T0);_mm_prefetch((const char*)(c+j)+1024,_MM_HINT_T0);
    __m512 v=_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_loadu_ps(a+j),_mm512_loadu_ps(b+j)),_mm512_loadu_ps(c+j)),_mm512_loadu_ps(D+j));_mm512_storeu_ps(o+j,v);}
}
static void run(rowfn f){
  #pragma omp parallel for schedule(static)
  for(size_t i=0;i<ROWS;i++) f(O+i*R,A+i*R,B+i*R,C+i*R);
}
#ifdef WITH_BCAST
static void run_bcast(void){
  static const size_t big[3]={16,512,512}, row[1]={512};
  const size_t*shapes[4]={big,big,big,row}; size_t ranks[4]={3,3,3,1};
  bcast_dtype dt[4]={BCAST_DTYPE_F32,BCAST_DTYPE_F32,BCAST_DTYPE_F32,BCAST_DTYPE_F32};
  const void*in[4]={A,B,C,D};
  int st=bcast_eltwise(BCAST_OP_SUM,4,dt,in,shapes,ranks,BCAST_AB_NUMPY,0,0,O,ROWS*R,omp_get_max_threads());
  if(st){fprintf(stderr,"bcast status %d\n",st);exit(1);}
}
static void row_none(float*o,const float*a,const float*b,const float*c){(void)o;(void)a;(void)b;(void)c;}
#endif
static void copy(void){
  size_t n=ROWS*R;
  #pragma omp parallel
  { int T=omp_get_num_threads(),id=omp_get_thread_num(); size_t c=n/T; memcpy(O+id*c,S+id*c,c*4);}
}
int main(int argc,char**argv){
  int rounds=argc>1?atoi(argv[1]):21, batch=argc>2?atoi(argv[2]):5;
  size_t n=ROWS*R;
  A=malloc(n*4);B=malloc(n*4);C=malloc(n*4);O=malloc(n*4);S=malloc(n*4);D=malloc(R*4);
  for(size_t i=0;i<n;i++){A[i]=i%7;B[i]=i%11;C[i]=i%13;S[i]=1;O[i]=0;} for(int j=0;j<R;j++)D[j]=j%5;
  const char*names[]={"plain_O3","sse","sse_pf1k","burst4","burst3"};
  rowfn fs[]={row_plain,row_sse,row_sse_pf,row_burst,row_burst3};
#ifdef WITH_BCAST
  names[0]="bcast"; fs[0]=row_none;
#endif
  int K=5; double t[6][256];
  printf("threads %d, A %% 64 = %zu, O %% 64 = %zu\n",omp_get_max_threads(),(size_t)A%64,(size_t)O%64);
  for(int r=0;r<rounds;r++){
    for(int k=0;k<K;k++){
      double s=now();
#ifdef WITH_BCAST
      if(k==0){for(int b=0;b<batch;b++) run_bcast();} else
#endif
      for(int b=0;b<batch;b++) run(fs[k]); t[k][r]=(now()-s)/batch;
      s=now(); for(int b=0;b<batch;b++) copy(); double c=(now()-s)/batch;
      if(k==0) t[5][r]=c; else if(c<t[5][r]) t[5][r]=c; // copy: the best of the round's copy batches
    }
  }
  for(int k=0;k<6;k++) qsort(t[k],rounds,8,cmp);
  int h=rounds/2; double cm=t[5][h];
  printf("memcpy %.3f ms (%.1f GB/s of output)\n",cm*1e3,n*4/cm/1e9);
  for(int k=0;k<K;k++) printf("%-9s %.3f ms  traffic ratio %.2f  (q1 %.2f, q3 %.2f)\n",names[k],t[k][h]*1e3,cm/t[k][h]*2,cm/t[k][3*rounds/4]*2,cm/t[k][rounds/4]*2);
  double sink=0; for(size_t i=0;i<n;i+=4097) sink+=O[i]; printf("sink %f\n",sink);
}
