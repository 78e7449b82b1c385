//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
//kernel.cu:10:[0-9]+: error: barrier may be reached by non-uniform control flow
/* The barrier orders a race inside the conditional: removing it is no repair, so the
   conditional is split in two around it. */
__global__ void k(int *A) {
  unsigned t = threadIdx.x;
  if (t % 2 == 0) {
    int v = A[t + 2];
    __syncthreads();
    A[t] = v;
  }
}
