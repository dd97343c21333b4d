#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static size_t N; static char *buf; static int strat; static int T; static char src[16384] __attribute__((aligned(64)));
static size_t ROW=16384;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
__attribute__((target("avx2"))) static void cp_avx2(char*p,const char*s,size_t n){for(size_t i=0;i<n;i+=64){__m256i a=_mm256_load_si256((__m256i*)(s+i)),b=_mm256_load_si256((__m256i*)(s+i+32));_mm256_store_si256((__m256i*)(p+i),a);_mm256_store_si256((__m256i*)(p+i+32),b);}}
__attribute__((target("avx512f"))) static void cp_avx512(char*p,const char*s,size_t n){for(size_t i=0;i<n;i+=64){_mm512_store_si512((void*)(p+i),_mm512_load_si512((void*)(s+i)));}}
__attribute__((target("avx2"))) static void cp_nt(char*p,const char*s,size_t n){for(size_t i=0;i<n;i+=64){__m256i a=_mm256_load_si256((__m256i*)(s+i)),b=_mm256_load_si256((__m256i*)(s+i+32));_mm256_stream_si256((__m256i*)(p+i),a);_mm256_stream_si256((__m256i*)(p+i+32),b);}}
static void cp_movsb(char*p,const char*s,size_t n){__asm__ volatile("rep movsb":"+c"(n),"+D"(p),"+S"(s)::"memory");}
static void cp_memcpy(char*p,const char*s,size_t n){memcpy(p,s,n);}
typedef void(*fn)(char*,const char*,size_t);
static fn F[]={cp_avx2,cp_avx512,cp_nt,cp_movsb,cp_memcpy};
static const char*NM[]={"avx2","avx512","nt","rep_movsb","memcpy"};
#define NS 5
static size_t CH=1<<20;
static volatile size_t next_chunk;
static void* work(void*a){size_t i;while((i=__atomic_fetch_add(&next_chunk,CH,__ATOMIC_RELAXED))<N){for(size_t r=0;r<CH;r+=ROW)F[strat](buf+i+r,src,ROW);}if(strat==2)_mm_sfence();return 0;}
static double run(){next_chunk=0;pthread_t th[16];double t=now();for(int i=1;i<T;i++)pthread_create(&th[i],0,work,0);work(0);for(int i=1;i<T;i++)pthread_join(th[i],0);return now()-t;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int c,char**v){size_t mib=atoi(v[1]);T=atoi(v[2]);if(c>3)ROW=atoi(v[3]);N=mib<<20;buf=aligned_alloc(1<<21,N);madvise(buf,N,MADV_HUGEPAGE);memset(buf,1,N);memset(src,3,sizeof src);
 int reps=31; double r[NS][201];
 for(int k=0;k<reps;k++)for(strat=0;strat<NS;strat++){int b=mib>=64?1:(int)(64/mib);double t=0;for(int j=0;j<b;j++)t+=run();r[strat][k]=t/b;}
 printf("%zu MiB %d thr row %zu:",mib,T,ROW);for(strat=0;strat<NS;strat++){qsort(r[strat],reps,sizeof(double),cmp);printf(" %s %.1f",NM[strat],N/r[strat][reps/2]/1e9);}printf("\n");}
