//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
//kernel.cu:4:[0-9]+: error: barrier may be reached by non-uniform control flow
__global__ void k(int *A) { if (threadIdx.x % 2 == 0) { int t = A[threadIdx.x + 1]; __syncthreads(); A[threadIdx.x] = t; } }
