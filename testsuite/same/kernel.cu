//xfail:NOT_ALL_VERIFIED
//--blockDim=32 --gridDim=1
//kernel.cu: error: possible write-write race on A\[0\]
__global__ void k(int *A) { A[0] = threadIdx.x; }
