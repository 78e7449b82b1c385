//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
//kernel.cu: error: possible (read-write|write-read) race on A\[
__global__ void k(int *A) { A[threadIdx.x] = A[threadIdx.x + 1]; }
