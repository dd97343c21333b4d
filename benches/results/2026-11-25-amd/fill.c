#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static size_t N; static char *buf; static int strat; static int T;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
__attribute__((target("avx2"))) static void st_avx2(char*p,size_t n){__m256i v=_mm256_set1_epi32(0x3f800000);for(size_t i=0;i<n;i+=64){_mm256_store_si256((__m256i*)(p+i),v);_mm256_store_si256((__m256i*)(p+i+32),v);}}
__attribute__((target("avx512f"))) static void st_avx512(char*p,size_t n){__m512i v=_mm512_set1_epi32(0x3f800000);for(size_t i=0;i<n;i+=64){_mm512_store_si512((void*)(p+i),v);}}
__attribute__((target("avx2"))) static void nt_avx2(char*p,size_t n){__m256i v=_mm256_set1_epi32(0x3f800000);for(size_t i=0;i<n;i+=64){_mm256_stream_si256((__m256i*)(p+i),v);_mm256_stream_si256((__m256i*)(p+i+32),v);}_mm_sfence();}
__attribute__((target("avx512f"))) static void nt_avx512(char*p,size_t n){__m512i v=_mm512_set1_epi32(0x3f800000);for(size_t i=0;i<n;i+=64){_mm512_stream_si512((void*)(p+i),v);}_mm_sfence();}
static void repstos(char*p,size_t n){size_t c=n/4; unsigned v=0x3f800000; __asm__ volatile("rep stosl":"+c"(c),"+D"(p):"a"(v):"memory");}
static void repstosb(char*p,size_t n){__asm__ volatile("rep stosb":"+c"(n),"+D"(p):"a"(0x3f):"memory");}
static void mset(char*p,size_t n){memset(p,0x3f,n);}
typedef void(*fn)(char*,size_t);
static fn F[]={st_avx2,st_avx512,nt_avx2,nt_avx512,repstos,repstosb,mset};
static const char*NM[]={"store_avx2","store_avx512","nt_avx2","nt_avx512","rep_stosd","rep_stosb","memset"};
static size_t CH=1<<20;
static volatile size_t next_chunk;
static void* work(void*a){size_t i;while((i=__atomic_fetch_add(&next_chunk,CH,__ATOMIC_RELAXED))<N){size_t n=N-i<CH?N-i:CH;F[strat](buf+i,n);}return 0;}
static double run(){next_chunk=0;pthread_t th[16];double t=now();for(int i=1;i<T;i++)pthread_create(&th[i],0,work,0);work(0);for(int i=1;i<T;i++)pthread_join(th[i],0);return now()-t;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int c,char**v){size_t mib=atoi(v[1]);T=atoi(v[2]);if(c>3)CH=(size_t)atoi(v[3])<<10;N=mib<<20;buf=aligned_alloc(1<<21,N);madvise(buf,N,MADV_HUGEPAGE);memset(buf,1,N);
 int reps=mib>=64?15:101; double r[7][201];
 for(int k=0;k<reps;k++)for(strat=0;strat<7;strat++){int b=mib>=64?1:(int)(64/mib);double t=0;for(int j=0;j<b;j++)t+=run();r[strat][k]=t/b;}
 printf("%zu MiB %d thr chunk %zu KiB:",mib,T,CH>>10);for(strat=0;strat<7;strat++){qsort(r[strat],reps,sizeof(double),cmp);printf(" %s %.1f",NM[strat],N/r[strat][reps/2]/1e9);}printf("\n");}
