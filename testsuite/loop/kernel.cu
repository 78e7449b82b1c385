//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=2
//kernel.cu: error: possible (read-write|write-read|write-write) race on b\[
__global__ void k(float *out) { __shared__ float b[128]; unsigned t = threadIdx.x; b[t] = t;
  __syncthreads(); for (unsigned s = 64; s > 0; s >>= 1) { if (t < s) b[t] += b[t + s]; }
  if (t == 0) out[blockIdx.x] = b[0]; }
