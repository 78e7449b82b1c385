// gpucheck positive controls: kernels with a known shared-memory race and a
// known barrier divergence, to show what racecheck and synccheck report (or
// fail to report) on this GPU and CUDA version.
//   ./control race      : control_race, a write/read race across warps on shared memory
//   ./control exit      : control_exit_before_barrier, threads 48..63 return before __syncthreads
//                         (the pattern of aidw, crs, matern and sad)
//   ./control halfwarp  : control_halfwarp_barrier, only lanes 0..15 of a 32-thread block call
//                         __syncthreads, the others exit
//   ./control clean     : control_clean, a correctly synchronised kernel (no report expected)
// With no argument it runs all four, in that order.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void control_race(int *out)
{
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  // no __syncthreads(): thread t reads what thread t^32 (another warp) wrote
  out[threadIdx.x] = s[threadIdx.x ^ 32];
}

__global__ void control_exit_before_barrier(int *out, int n)
{
  __shared__ int s[64];
  if ((int)threadIdx.x >= n) return;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % n];
}

__global__ void control_halfwarp_barrier(int *out)
{
  __shared__ int s[32];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 16) {
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + 16];
  }
}

__global__ void control_clean(int *out)
{
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 32];
}

static int check(const char *what)
{
  cudaError_t e = cudaDeviceSynchronize();
  printf("%-10s %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

int main(int argc, char **argv)
{
  const char *which = argc > 1 ? argv[1] : "all";
  bool all = !strcmp(which, "all");
  int *d = nullptr, bad = 0;
  if (cudaMalloc(&d, 64 * sizeof(int)) != cudaSuccess) { printf("cudaMalloc failed\n"); return 2; }
  if (all || !strcmp(which, "race"))     { control_race<<<1, 64>>>(d);                   bad |= check("race"); }
  if (all || !strcmp(which, "exit"))     { control_exit_before_barrier<<<1, 64>>>(d, 48); bad |= check("exit"); }
  if (all || !strcmp(which, "halfwarp")) { control_halfwarp_barrier<<<1, 32>>>(d);       bad |= check("halfwarp"); }
  if (all || !strcmp(which, "clean"))    { control_clean<<<1, 64>>>(d);                  bad |= check("clean"); }
  cudaFree(d);
  return bad;
}
