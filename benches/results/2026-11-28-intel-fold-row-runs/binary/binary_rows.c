// Two-operand multiplies with rows of 512 f32 (the pdpd_mul_f32 case's rows: [32768, 512]
// times a [512] row, and times a [32768, 1] column), and the row_mul_f32 case ([8192, 2048]
// times [2048]) as bcast (through its C library) and as C loops, each in batches alternating
// with glibc's memcpy into the same output. Ratio: copy time / loop time (both move two
// output-sized streams; the small operand stays in cache).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
#include <omp.h>
#include "bcast.h"
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static size_t ROWS, R; static float *X,*W,*O,*S,*Cc;
static void c_row(void){
  #pragma omp parallel for schedule(static)
  for(size_t i=0;i<ROWS;i++){const float*x=X+i*R;float*o=O+i*R;
    for(size_t j=0;j<R;j+=16){_mm_prefetch((const char*)(x+j)+1024,_MM_HINT_T0);
      for(size_t k=j;k<j+16;k+=4)_mm_storeu_ps(o+k,_mm_mul_ps(_mm_loadu_ps(x+k),_mm_loadu_ps(W+k)));}}
}
static void c_col(void){
  #pragma omp parallel for schedule(static)
  for(size_t i=0;i<ROWS;i++){const float*x=X+i*R;float*o=O+i*R;__m128 c=_mm_set1_ps(Cc[i]);
    for(size_t j=0;j<R;j+=16){_mm_prefetch((const char*)(x+j)+1024,_MM_HINT_T0);
      for(size_t k=j;k<j+16;k+=4)_mm_storeu_ps(o+k,_mm_mul_ps(_mm_loadu_ps(x+k),c));}}
}
static void b_call(const float*second,const size_t*sshape,size_t srank){
  size_t xs[2]={ROWS,R}; const size_t*shapes[2]={xs,sshape}; size_t ranks[2]={2,srank};
  bcast_dtype dt[2]={BCAST_DTYPE_F32,BCAST_DTYPE_F32}; const void*in[2]={X,second};
  int st=bcast_eltwise(BCAST_OP_MULTIPLY,2,dt,in,shapes,ranks,BCAST_AB_NUMPY,0,0,O,ROWS*R,omp_get_max_threads());
  if(st){fprintf(stderr,"bcast status %d\n",st);exit(1);}
}
static void b_row(void){size_t s[1]={R}; b_call(W,s,1);}
static void b_col(void){size_t s[2]={ROWS,1}; b_call(Cc,s,2);}
static void copy(void){
  size_t n=ROWS*R;
  #pragma omp parallel
  { int T=omp_get_num_threads(),id=omp_get_thread_num(); size_t c=n/T; memcpy(O+id*c,S+id*c,c*4);}
}
int main(int argc,char**argv){
  R=argc>1?atoi(argv[1]):512; int rounds=argc>2?atoi(argv[2]):15, batch=5;
  ROWS=(16u<<20)/4/R*4; size_t n=ROWS*R; // 64 MiB output
  X=malloc(n*4);O=malloc(n*4);S=malloc(n*4);W=malloc(R*4);Cc=malloc(ROWS*4);
  for(size_t i=0;i<n;i++){X[i]=i%7;S[i]=1;O[i]=0;} for(size_t j=0;j<R;j++)W[j]=j%5; for(size_t i=0;i<ROWS;i++)Cc[i]=i%3;
  void(*fs[4])(void)={b_row,c_row,b_col,c_col}; const char*names[4]={"bcast_row","c_row","bcast_col","c_col"};
  double t[5][256];
  for(int r=0;r<rounds;r++){ for(int k=0;k<4;k++){
      double s=now(); for(int b=0;b<batch;b++) fs[k](); t[k][r]=(now()-s)/batch;
      s=now(); for(int b=0;b<batch;b++) copy(); double c=(now()-s)/batch;
      if(k==0||c<t[4][r]) t[4][r]=c; } }
  for(int k=0;k<5;k++) qsort(t[k],rounds,8,cmp);
  int h=rounds/2; double cm=t[4][h];
  printf("threads %d, rows of %zu (%zu rows), memcpy %.3f ms\n",omp_get_max_threads(),R,ROWS,cm*1e3);
  for(int k=0;k<4;k++) printf("%-10s %.3f ms traffic ratio %.2f\n",names[k],t[k][h]*1e3,cm/t[k][h]);
}
