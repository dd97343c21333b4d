#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static size_t N=262144,D=1024;
static float *x,*o,*m,*r,*g,*b;
#define BODY(k) __m512 v=_mm512_loadu_ps(xs+j+16*k); v=_mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(v,M),R),_mm512_loadu_ps(g+j+16*k)),_mm512_loadu_ps(b+j+16*k));
static void row_st(const float*xs,float*os,float mm,float rr){__m512 M=_mm512_set1_ps(mm),R=_mm512_set1_ps(rr);
  for(size_t j=0;j<D;j+=64){ for(int k=0;k<4;k++){BODY(k) _mm512_storeu_ps(os+j+16*k,v);} }}
static void row_nt16(const float*xs,float*os,float mm,float rr){__m512 M=_mm512_set1_ps(mm),R=_mm512_set1_ps(rr);
  for(size_t j=0;j<D;j+=64){ for(int k=0;k<4;k++){BODY(k) float*d=os+j+16*k;
    _mm_stream_ps(d,_mm512_extractf32x4_ps(v,0));_mm_stream_ps(d+4,_mm512_extractf32x4_ps(v,1));_mm_stream_ps(d+8,_mm512_extractf32x4_ps(v,2));_mm_stream_ps(d+12,_mm512_extractf32x4_ps(v,3));} }}
static void row_nt64(const float*xs,float*os,float mm,float rr){__m512 M=_mm512_set1_ps(mm),R=_mm512_set1_ps(rr);
  for(size_t j=0;j<D;j+=64){ for(int k=0;k<4;k++){BODY(k) _mm512_stream_ps(os+j+16*k,v);} }}
int main(int argc,char**argv){
  int off=atoi(argv[1]); int reps=argc>2?atoi(argv[2]):5;
  size_t n=N*D; char*xr=aligned_alloc(4096,n*4+4096),*orr=aligned_alloc(4096,n*4+4096);
  x=(float*)(xr+off); o=(float*)(orr+off);
  m=malloc(N*4);r=malloc(N*4);g=aligned_alloc(64,D*4);b=aligned_alloc(64,D*4);
  for(size_t i=0;i<n;i++){x[i]=(i%251)*0.5f;o[i]=0;} for(size_t i=0;i<N;i++){m[i]=i%7;r[i]=0.5f+i%3;} for(size_t i=0;i<D;i++){g[i]=1+i%5;b[i]=i%11;}
  double t[4][32];
  for(int k=0;k<reps;k++){
    double s=now(); for(size_t i=0;i<N;i++) row_st(x+i*D,o+i*D,m[i],r[i]); t[0][k]=now()-s;
    s=now(); for(size_t i=0;i<N;i++) row_nt16(x+i*D,o+i*D,m[i],r[i]); _mm_sfence(); t[1][k]=now()-s;
    s=now(); if(off%64==0){for(size_t i=0;i<N;i++) row_nt64(x+i*D,o+i*D,m[i],r[i]); _mm_sfence();} t[2][k]=now()-s;
    s=now(); memcpy(o,x,n*4); t[3][k]=now()-s;
  }
  for(int q=0;q<4;q++) qsort(t[q],reps,8,cmp);
  int h=reps/2; double c=t[3][h];
  printf("1 GiB ln, 1 thread, off %d: stores %.0f ms (%.2f) nt16 %.0f (%.2f) nt64 %.0f (%.2f) memcpy %.0f ms  [(x)=memcpy/time]\n",off,t[0][h]*1e3,c/t[0][h],t[1][h]*1e3,c/t[1][h],t[2][h]*1e3,c/t[2][h],c*1e3);
}
