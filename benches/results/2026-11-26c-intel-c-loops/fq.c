#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(){
  size_t C=64, P=512*512, n=C*P; float *x=aligned_alloc(64,n*4),*o=aligned_alloc(64,n*4);
  float il[64],ih[64],ol[64],oh[64]; for(int c=0;c<64;c++){il[c]=-1-c*0.01f;ih[c]=1+c*0.02f;ol[c]=-2;oh[c]=2;}
  for(size_t i=0;i<n;i++){x[i]=sinf(i*0.001f)*1.5f;o[i]=0;}
  double best[2]={1e9,1e9}; float L=255.0f;
  for(int r=0;r<10;r++){
    double t=now();
    for(size_t c=0;c<C;c++){ float a=il[c],b=ih[c],p=ol[c],q=oh[c]; float lo=b<a?b:a, hi=b<a?a:b; float *xs=x+c*P,*os=o+c*P;
      for(size_t i=0;i<P;i++){ float v=xs[i]; float m=rintf((v-a)/(b-a)*L)/L*(q-p)+p; float r = v<=lo? p : (v>hi ? q : m); os[i]=r; } }
    t=now()-t; if(t<best[0])best[0]=t;
    t=now(); memcpy(o,x,n*4); t=now()-t; if(t<best[1])best[1]=t;
  }
  printf("fq %.2f ms  memcpy %.2f ms ratio %.2f (sink %f)\n",best[0]*1e3,best[1]*1e3,best[1]/best[0],o[12345]);
}
