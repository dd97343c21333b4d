// Hand-written loops for the per-row broadcast shapes: out[r][i] = a[r][i] - b[r]; and a
// long-row add for comparison. Times calls back to back on reused buffers (warm), median of batches.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
__attribute__((noinline)) void rowsub(const float*restrict a,const float*restrict b,float*restrict o,size_t rows,size_t n){
  for(size_t r=0;r<rows;r++){float s=b[r];const float*x=a+r*n;float*y=o+r*n;for(size_t i=0;i<n;i++)y[i]=x[i]-s;}}
__attribute__((noinline)) void rowdiv(const float*restrict a,const float*restrict b,float*restrict o,size_t rows,size_t n){
  for(size_t r=0;r<rows;r++){float s=b[r];const float*x=a+r*n;float*y=o+r*n;for(size_t i=0;i<n;i++)y[i]=x[i]/s;}}
static int cmp(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
int main(int argc,char**argv){
  size_t rows=atoi(argv[2]),n=atoi(argv[3]); int div=!strcmp(argv[1],"div");
  float*a=aligned_alloc(64,rows*n*4),*b=aligned_alloc(64,rows*4+64),*o=aligned_alloc(64,rows*n*4);
  for(size_t i=0;i<rows*n;i++)a[i]=(i%251+1)*0.5f; for(size_t i=0;i<rows;i++)b[i]=(i%7+1)*0.5f;
  double s[200]; int batch=1;
  double t0=now(); (div?rowdiv:rowsub)(a,b,o,rows,n); double one=now()-t0; batch=(int)(2e-3/one)+1;
  for(int k=0;k<101;k++){t0=now();for(int j=0;j<batch;j++)(div?rowdiv:rowsub)(a,b,o,rows,n);s[k]=(now()-t0)/batch;}
  qsort(s,101,sizeof(double),cmp); printf("%s rows %zu n %zu: %.2f us\n",argv[1],rows,n,s[50]*1e6);
}
