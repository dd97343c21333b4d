#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N (8192)
#define M (2048)
static float *out, *A, *b;
#define BODY(PF) \
_Pragma("omp parallel for schedule(static)") \
 for(int i=0;i<N;i++){ float*o=out+(size_t)i*M; const float*x=A+(size_t)i*M; for(int j=0;j<M;j+=16){ PF; _mm256_storeu_ps(o+j,_mm256_mul_ps(_mm256_loadu_ps(x+j),_mm256_loadu_ps(b+j)));_mm256_storeu_ps(o+j+8,_mm256_mul_ps(_mm256_loadu_ps(x+j+8),_mm256_loadu_ps(b+j+8)));}}
static void u16(){ BODY((void)0) }
static void pfx(){ BODY(_mm_prefetch((const char*)(x+j+256),_MM_HINT_T0)) }
static void pfo(){ BODY(_m_prefetchw((o+j+256))) }
static void pfo4k(){ BODY(_m_prefetchw((o+j+1024))) }
static void pfboth(){ BODY(_m_prefetchw((o+j+256)); _mm_prefetch((const char*)(x+j+256),_MM_HINT_T0)) }
static void copy(){ 
#pragma omp parallel for schedule(static)
 for(int i=0;i<N;i++) memcpy(out+(size_t)i*M, A+(size_t)i*M, M*4); }
int main(){ out=aligned_alloc(4096,(size_t)N*M*4); A=aligned_alloc(4096,(size_t)N*M*4); b=aligned_alloc(64,M*4+4096); for(size_t i=0;i<(size_t)N*M;i++)A[i]=i&255; for(int j=0;j<M;j++)b[j]=j; memset(out,1,(size_t)N*M*4);
 void(*f[])()={u16,pfx,pfo,pfo4k,pfboth,copy}; const char*nm[]={"plain","pf-in-1k","pfw-out-1k","pfw-out-4k","pf-both-1k","memcpy"}; int K=6;
 double res[6][9];
 for(int r=0;r<9;r++) for(int k=0;k<K;k++){ double t=now(); for(int q=0;q<10;q++) f[k](); t=(now()-t)/10; res[k][r]=(double)N*M*4/t/1e9; }
 for(int k=0;k<K;k++){ double s[9]; memcpy(s,res[k],sizeof s); for(int i=0;i<9;i++)for(int j=i+1;j<9;j++) if(s[j]<s[i]){double x=s[i];s[i]=s[j];s[j]=x;} printf("%-12s median %.1f GB/s (min %.1f max %.1f)\n",nm[k],s[4],s[0],s[8]); }
}
