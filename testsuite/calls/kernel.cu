//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
//kernel.cu: error: possible (read-write|write-read) race on A\[
__device__ int get(int *A, int i) { return A[i + 1]; }
__device__ void put(int *A, int i, int v) { A[i] = v; }
__global__ void k(int *A) { int v = get(A, threadIdx.x); put(A, threadIdx.x, v); }
