//xfail:NOT_ALL_VERIFIED
//--blockDim=32 --gridDim=4
//kernel.cu: error: possible (read-write|write-read) race on A\[
__global__ void k(int *A) { int i = blockIdx.x * blockDim.x + threadIdx.x; int v = A[(i + 32) % 128]; A[i] = v; }
