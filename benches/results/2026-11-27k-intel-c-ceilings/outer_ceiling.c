#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
#include <omp.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
#define N 4096
#define D 4096
static float *o,*a,*b;
static inline void repmovsb(void*d,const void*s,size_t n){__asm__ volatile("rep movsb":"+D"(d),"+S"(s),"+c"(n)::"memory");}
static inline void repstosb(void*d,int c,size_t n){__asm__ volatile("rep stosb":"+D"(d),"+c"(n):"a"(c):"memory");}
__attribute__((noinline)) static void row_sse(float*os,float av){ for(size_t j=0;j<D;j+=4){ _mm_storeu_ps(os+j,_mm_add_ps(_mm_set1_ps(av),_mm_loadu_ps(b+j))); } }
__attribute__((noinline,target("avx512f"))) static void row_z(float*os,float av){ __m512 A=_mm512_set1_ps(av); for(size_t j=0;j<D;j+=16){ _mm512_storeu_ps(os+j,_mm512_add_ps(A,_mm512_loadu_ps(b+j))); } }
__attribute__((noinline,target("avx512f"))) static void row_nt(float*os,float av){ __m512 A=_mm512_set1_ps(av); for(size_t j=0;j<D;j+=16){ _mm512_stream_ps(os+j,_mm512_add_ps(A,_mm512_loadu_ps(b+j))); } }
int main(int argc,char**argv){
  int off=argc>1?atoi(argv[1]):0; int reps=argc>2?atoi(argv[2]):21;
  size_t n=(size_t)N*D; char*orr=aligned_alloc(4096,n*4+4096); o=(float*)(orr+off);
  a=malloc(N*4); b=aligned_alloc(64,D*4);
  for(size_t i=0;i<n;i++)o[i]=0; for(int i=0;i<N;i++)a[i]=i%7; for(int i=0;i<D;i++)b[i]=i%11;
  double t[6][64];
  for(int k=0;k<reps;k++){
    double s=now();
    #pragma omp parallel for schedule(static)
    for(size_t i=0;i<N;i++) row_sse(o+i*D,a[i]);
    t[0][k]=now()-s; s=now();
    #pragma omp parallel for schedule(static)
    for(size_t i=0;i<N;i++) row_z(o+i*D,a[i]);
    t[1][k]=now()-s; s=now();
    t[2][k]=0; s=now();
    #pragma omp parallel
    { float win[D] __attribute__((aligned(64)));
      #pragma omp for schedule(static)
      for(size_t i=0;i<N;i++){ row_z(win,a[i]); repmovsb(o+i*D,win,D*4);} }
    t[2][k]=now()-s; s=now();
    if(off%64==0){
    #pragma omp parallel for schedule(static)
    for(size_t i=0;i<N;i++) row_nt(o+i*D,a[i]);
    _mm_sfence();}
    t[3][k]=now()-s; s=now();
    #pragma omp parallel
    { int T=omp_get_num_threads(),id=omp_get_thread_num(); size_t c=n/T; repstosb(o+id*c,0,c*4);}
    t[4][k]=now()-s; s=now();
    #pragma omp parallel
    { int T=omp_get_num_threads(),id=omp_get_thread_num(); size_t c=n/T; memset(o+id*c,0,c*4);}
    t[5][k]=now()-s;
  }
  for(int q=0;q<6;q++) qsort(t[q],reps,8,cmp);
  int h=reps/2; double f=t[4][h];
  printf("threads %d off %d: sse %.2f ms (%.2f) zmm %.2f (%.2f) win+movsb %.2f (%.2f) nt %.2f (%.2f) stosb %.2f memset %.2f  [(x)= stosb/time]\n",
    omp_get_max_threads(),off,t[0][h]*1e3,f/t[0][h],t[1][h]*1e3,f/t[1][h],t[2][h]*1e3,f/t[2][h],t[3][h]*1e3,f/t[3][h],t[4][h]*1e3,t[5][h]*1e3);
}
