// outer add: out[i*M+j] = a[i] + b[j], N=M=4096 f32 (64 MiB), reused output.
// gcc -O2 -fopenmp outer.c; variants: -DOFF=16 (output 16 bytes past a page),
// -DCH=512 (schedule(dynamic, 512 rows)), -DPOLLUTE=1 (a memset and a 64 MiB memcpy into the
// output before each batch, as `bcast bench` interleaves its bounds).
#ifndef OFF
#define OFF 0
#endif
#ifndef POLLUTE
#define POLLUTE 0
#endif
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#define N 4096
#define M 4096
static float *a, *b, *out, *src;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
__attribute__((target("avx2"))) static void row_avx2(float*o,float s,const float*b){__m256 v=_mm256_set1_ps(s);for(int j=0;j<M;j+=8)_mm256_storeu_ps(o+j,_mm256_add_ps(v,_mm256_loadu_ps(b+j)));}
__attribute__((target("avx512f"))) static void row_avx512(float*o,float s,const float*b){__m512 v=_mm512_set1_ps(s);for(int j=0;j<M;j+=16)_mm512_storeu_ps(o+j,_mm512_add_ps(v,_mm512_loadu_ps(b+j)));}
static void row_sse(float*o,float s,const float*b){__m128 v=_mm_set1_ps(s);for(int j=0;j<M;j+=4)_mm_storeu_ps(o+j,_mm_add_ps(v,_mm_loadu_ps(b+j)));}
static void run(int kind,int th){
  if(kind==3){
   #pragma omp parallel num_threads(th)
   {int t=omp_get_thread_num(),n=omp_get_num_threads();size_t per=(size_t)N*M/n;memset(out+per*t,1,per*4);} return;}
  if(kind==4){
   #pragma omp parallel num_threads(th)
   {int t=omp_get_thread_num(),n=omp_get_num_threads();size_t per=(size_t)N*M/n;memcpy(out+per*t,src+per*t,per*4);} return;}
#ifdef CH
  #pragma omp parallel for num_threads(th) schedule(dynamic, CH)
#else
  #pragma omp parallel for num_threads(th) schedule(static)
#endif
  for(int i=0;i<N;i++){ if(kind==0)row_sse(out+(size_t)i*M,a[i],b); else if(kind==1)row_avx2(out+(size_t)i*M,a[i],b); else row_avx512(out+(size_t)i*M,a[i],b);}
}
static int cmp(const void*x,const void*y){double d=*(double*)x-*(double*)y;return d<0?-1:d>0;}
int main(int argc,char**argv){
  int rounds=argc>1?atoi(argv[1]):7;
  a=aligned_alloc(64,N*4);b=aligned_alloc(64,M*4);out=(float*)((char*)aligned_alloc(4096,(size_t)N*M*4+64)+OFF);src=aligned_alloc(4096,(size_t)N*M*4);
  for(int i=0;i<N;i++)a[i]=i;for(int j=0;j<M;j++)b[j]=j*0.5f;memset(out,0,(size_t)N*M*4);memset(src,2,(size_t)N*M*4);
  const char*names[]={"sse16","avx2_32","avx512_64","memset","memcpy"};
  double r[5][2][64];
  for(int k=0;k<rounds;k++)for(int th=1;th<=2;th++)for(int kind=0;kind<5;kind++){
    run(kind,th); double best=1e9; for(int rep=0;rep<5;rep++){if(POLLUTE){run(3,th);run(4,th);}double s=now();for(int q=0;q<4;q++)run(kind,th);double e=(now()-s)/4;if(e<best)best=e;}
    r[kind][th-1][k]=(double)N*M*4/best/1e9;}
  for(int kind=0;kind<5;kind++){printf("%-10s",names[kind]);for(int th=0;th<2;th++){qsort(r[kind][th],rounds,sizeof(double),cmp);printf("  %dT %.1f GB/s",th+1,r[kind][th][rounds/2]);}printf("\n");}
}
