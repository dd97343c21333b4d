#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(){
  size_t N=8192,D=1024,n=N*D; float *x=aligned_alloc(64,n*4),*o=aligned_alloc(64,n*4),*m=malloc(N*4),*r=malloc(N*4),*g=malloc(D*4),*b=malloc(D*4);
  for(size_t i=0;i<n;i++){x[i]=(i%251)*0.5f;o[i]=0;} for(size_t i=0;i<N;i++){m[i]=i%7;r[i]=0.5f+i%3;} for(size_t i=0;i<D;i++){g[i]=1+i%5;b[i]=i%11;}
  double tl[21],tc[21],tb[21];
  float *blk=aligned_alloc(64,2048*4);
  for(int k=0;k<21;k++){
    double t=now();
    for(size_t i=0;i<N;i++){ float mm=m[i],rr=r[i]; const float*xs=x+i*D; float*os=o+i*D; for(size_t j=0;j<D;j++) os[j]=(((xs[j]-mm)*rr)*g[j])+b[j]; }
    tl[k]=now()-t;
    /* per-op passes over an L1 block, as bcast's fused steps do */
    t=now();
    for(size_t i=0;i<N;i++){ float mm=m[i],rr=r[i]; const float*xs=x+i*D; float*os=o+i*D;
      for(size_t j=0;j<D;j++) blk[j]=xs[j]-mm;
      for(size_t j=0;j<D;j++) blk[1024+j]=blk[j]*rr;
      for(size_t j=0;j<D;j++) blk[j]=blk[1024+j]*g[j];
      for(size_t j=0;j<D;j++) os[j]=blk[j]+b[j]; }
    tb[k]=now()-t;
    t=now(); memcpy(o,x,n*4); tc[k]=now()-t;
  }
  qsort(tl,21,8,cmp);qsort(tc,21,8,cmp);qsort(tb,21,8,cmp);
  printf("ln one loop %.2f ms, per-op block passes %.2f ms, memcpy %.2f ms -> one loop/bound %.2f, passes/bound %.2f (sink %f)\n",tl[10]*1e3,tb[10]*1e3,tc[10]*1e3,tc[10]/tl[10],tc[10]/tb[10],o[777]);
}
