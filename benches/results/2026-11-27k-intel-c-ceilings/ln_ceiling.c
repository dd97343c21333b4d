#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
#include <omp.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static size_t N=8192,D=1024;
static float *x,*o,*m,*r,*g,*b;
static inline void row(const float*xs,float*os,float mm,float rr){
  __m512 M=_mm512_set1_ps(mm),R=_mm512_set1_ps(rr);
  for(size_t j=0;j<D;j+=64){
    for(int k=0;k<4;k++){__m512 v=_mm512_loadu_ps(xs+j+16*k);
      v=_mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(v,M),R),_mm512_loadu_ps(g+j+16*k)),_mm512_loadu_ps(b+j+16*k));
      _mm512_storeu_ps(os+j+16*k,v);}
  }
}
static inline void row_pf(const float*xs,float*os,float mm,float rr){
  __m512 M=_mm512_set1_ps(mm),R=_mm512_set1_ps(rr);
  for(size_t j=0;j<D;j+=64){
    for(int l=0;l<4;l++){_mm_prefetch((const char*)(xs+j+16*l)+PF,_MM_HINT_T0);
#if PFALL
_mm_prefetch((const char*)(g+j+16*l)+PF,_MM_HINT_T0);_mm_prefetch((const char*)(b+j+16*l)+PF,_MM_HINT_T0);
#endif
}
    for(int k=0;k<4;k++){__m512 v=_mm512_loadu_ps(xs+j+16*k);
      v=_mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(v,M),R),_mm512_loadu_ps(g+j+16*k)),_mm512_loadu_ps(b+j+16*k));
      _mm512_storeu_ps(os+j+16*k,v);}
  }
}
static inline void row_nt(const float*xs,float*os,float mm,float rr){
  __m512 M=_mm512_set1_ps(mm),R=_mm512_set1_ps(rr);
  for(size_t j=0;j<D;j+=64){
    for(int k=0;k<4;k++){__m512 v=_mm512_loadu_ps(xs+j+16*k);
      v=_mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(v,M),R),_mm512_loadu_ps(g+j+16*k)),_mm512_loadu_ps(b+j+16*k));
      _mm512_stream_ps(os+j+16*k,v);}
  }
}
static inline void repmovsb(void*d,const void*s,size_t n){__asm__ volatile("rep movsb":"+D"(d),"+S"(s),"+c"(n)::"memory");}
int main(int argc,char**argv){
  int off=argc>1?atoi(argv[1]):0; int reps=argc>2?atoi(argv[2]):15;
  size_t n=N*D; char*xr=aligned_alloc(64,n*4+64),*orr=aligned_alloc(64,n*4+64);
  x=(float*)(xr+off); o=(float*)(orr+off);
  m=malloc(N*4);r=malloc(N*4);g=aligned_alloc(64,D*4);b=aligned_alloc(64,D*4);
  for(size_t i=0;i<n;i++){x[i]=(i%251)*0.5f;o[i]=0;} for(size_t i=0;i<N;i++){m[i]=i%7;r[i]=0.5f+i%3;} for(size_t i=0;i<D;i++){g[i]=1+i%5;b[i]=i%11;}
  double t0[64],t1[64],t2[64],t3[64],t4[64];
  for(int k=0;k<reps;k++){
    double t=now();
    #pragma omp parallel for schedule(static)
    for(size_t i=0;i<N;i++) row(x+i*D,o+i*D,m[i],r[i]);
    t0[k]=now()-t;
    t=now();
    #pragma omp parallel
    { float win[1024] __attribute__((aligned(64)));
      #pragma omp for schedule(static)
      for(size_t i=0;i<N;i++){ row(x+i*D,win,m[i],r[i]); repmovsb(o+i*D,win,D*4);} }
    t1[k]=now()-t;
    t=now();
    #pragma omp parallel for schedule(static)
    for(size_t i=0;i<N;i++) row_pf(x+i*D,o+i*D,m[i],r[i]);
    t2[k]=now()-t;
    t=now();
    #pragma omp parallel
    { int T=omp_get_num_threads(),id=omp_get_thread_num(); size_t c=n/T; memcpy(o+id*c,x+id*c,c*4);}
    t3[k]=now()-t;
    t=now();
    #pragma omp parallel
    { int T=omp_get_num_threads(),id=omp_get_thread_num(); size_t c=n/T; repmovsb(o+id*c,x+id*c,c*4);}
    t4[k]=now()-t;
  }
  qsort(t0,reps,8,cmp);qsort(t1,reps,8,cmp);qsort(t2,reps,8,cmp);qsort(t3,reps,8,cmp);qsort(t4,reps,8,cmp);
  int h=reps/2;
  printf("threads %d off %d: direct %.2f ms, window+repmovsb %.2f, pf %.2f, memcpy %.2f, repmovsb-copy %.2f -> /memcpy: direct %.2f window %.2f pf %.2f\n",
    omp_get_max_threads(),off,t0[h]*1e3,t1[h]*1e3,t2[h]*1e3,t3[h]*1e3,t4[h]*1e3,t3[h]/t0[h],t3[h]/t1[h],t3[h]/t2[h]);
}
