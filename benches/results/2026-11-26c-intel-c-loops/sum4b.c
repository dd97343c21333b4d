#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static float* al(size_t n,int huge){ float*p=aligned_alloc(1<<21,n*4); madvise(p,n*4,huge?MADV_HUGEPAGE:MADV_NOHUGEPAGE); memset(p,0,n*4); return p;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  int huge=atoi(argv[1]);
  size_t n=16*512*512; float *a=al(n,huge),*b=al(n,huge),*c=al(n,huge),*o=al(n,huge),*d=al(512,huge);
  for(size_t i=0;i<n;i++){a[i]=i;b[i]=2*i;c[i]=3;o[i]=0;} for(int i=0;i<512;i++)d[i]=i;
  double ts[31];
  for(int r=0;r<31;r++){
    double t=now();
    for(size_t i=0;i<n;i+=512){ for(int j=0;j<512;j++) o[i+j]=((a[i+j]+b[i+j])+c[i+j])+d[j]; }
    ts[r]=now()-t;
  }
  qsort(ts,31,sizeof(double),cmp);
  printf("huge=%d sum4 median %.2f ms min %.2f (sink %f)\n",huge,ts[15]*1e3,ts[0]*1e3,o[123]);
}
