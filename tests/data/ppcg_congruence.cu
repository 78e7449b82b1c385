// --blockDim=[32,32] --gridDim=[256,256] (tests/loops.rs): verified.
/* PPCG's strip-mined loops (as it generates them for PolyBench): each block starts at its own
   offset, 32 * b, and steps by the grid's span, 8192, so each counter keeps its congruence
   modulo 8192 and the blocks' writes to B stay apart. The inner loop's invariants (c1 >= 32 *
   b1, (c1 - 32 * b1) % 8192 == 0) must also hold in the outer loop's ghost copy of an earlier
   iteration, where the write logged by the first thread came from: without them a false
   write-write race between blocks was reported. */
__global__ void kernel0(float *A, float *B, int ni, int nj) {
  long b0 = blockIdx.y, b1 = blockIdx.x;
  long t0 = threadIdx.y, t1 = threadIdx.x;
  for (long c0 = 32 * b0; c0 < ni; c0 += 8192)
    for (long c1 = 32 * b1; c1 < nj; c1 += 8192) {
      if (ni >= t0 + c0 + 1 && nj >= t1 + c1 + 1 && nj <= 4096)
        B[(t0 + c0) * 4096 + (t1 + c1)] = A[(t0 + c0) * 4096 + (t1 + c1)] * 2.0f;
      __syncthreads();
    }
}
