/* syncfix's CUDA prelude: force-included before every CUDA kernel (DESIGN §3).
 *
 * It gives the device-side names a kernel uses without NVIDIA's toolkit: execution-space
 * attributes, the built-in index variables, barriers (block, grid), cooperative groups,
 * atomics and GPUVerify's annotation language. Calls to the `__syncfix_*` and annotation
 * functions are recognised by syncfix's lowering; they have no definition on purpose.
 */
#ifndef SYNCFIX_CUDA_PRELUDE_H
#define SYNCFIX_CUDA_PRELUDE_H

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
/* syncfix inlines every __device__ call itself, keeping the call chain for source locations;
 * clang's always-inliner would drop it, so __forceinline__ is a plain inline here. */
#define __forceinline__ __inline__
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};

#define SYNCFIX_INDEX_FIELD(FIELD, INTRINSIC)                                            \
  __declspec(property(get = __syncfix_get_##FIELD)) unsigned int FIELD;                  \
  static __device__ __inline__ __attribute__((always_inline)) unsigned int __syncfix_get_##FIELD(void) { return INTRINSIC; }

struct __syncfix_threadIdx_t {
  SYNCFIX_INDEX_FIELD(x, __nvvm_read_ptx_sreg_tid_x())
  SYNCFIX_INDEX_FIELD(y, __nvvm_read_ptx_sreg_tid_y())
  SYNCFIX_INDEX_FIELD(z, __nvvm_read_ptx_sreg_tid_z())
};
struct __syncfix_blockIdx_t {
  SYNCFIX_INDEX_FIELD(x, __nvvm_read_ptx_sreg_ctaid_x())
  SYNCFIX_INDEX_FIELD(y, __nvvm_read_ptx_sreg_ctaid_y())
  SYNCFIX_INDEX_FIELD(z, __nvvm_read_ptx_sreg_ctaid_z())
};
struct __syncfix_blockDim_t {
  SYNCFIX_INDEX_FIELD(x, __nvvm_read_ptx_sreg_ntid_x())
  SYNCFIX_INDEX_FIELD(y, __nvvm_read_ptx_sreg_ntid_y())
  SYNCFIX_INDEX_FIELD(z, __nvvm_read_ptx_sreg_ntid_z())
};
struct __syncfix_gridDim_t {
  SYNCFIX_INDEX_FIELD(x, __nvvm_read_ptx_sreg_nctaid_x())
  SYNCFIX_INDEX_FIELD(y, __nvvm_read_ptx_sreg_nctaid_y())
  SYNCFIX_INDEX_FIELD(z, __nvvm_read_ptx_sreg_nctaid_z())
};
#undef SYNCFIX_INDEX_FIELD

extern const __device__ __syncfix_threadIdx_t threadIdx;
extern const __device__ __syncfix_blockIdx_t blockIdx;
extern const __device__ __syncfix_blockDim_t blockDim;
extern const __device__ __syncfix_gridDim_t gridDim;
#define warpSize 32

extern "C" {
/* Statement boundaries left by syncfix's front end (never in user code). */
__device__ void __syncfix_anchor(int);
__device__ void __syncfix_split(int);
/* A grid-wide barrier (cooperative groups). */
__device__ void __syncfix_grid_sync(void);
}

/* GPUVerify's annotation language. */
#include "syncfix_annotations.h"

/* `__syncthreads()` is a clang builtin (llvm.nvvm.barrier0). */

namespace cooperative_groups {
class thread_block {
public:
  __device__ void sync() const { __syncthreads(); }
};
class grid_group {
public:
  __device__ void sync() const { __syncfix_grid_sync(); }
};
__device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }
__device__ __forceinline__ grid_group this_grid() { return grid_group(); }
__device__ __forceinline__ void synchronize(const thread_block &g) { g.sync(); }
__device__ __forceinline__ void synchronize(const grid_group &g) { g.sync(); }
} // namespace cooperative_groups

/* Atomics (CUDA programming guide, B.14): read-modify-write on global or shared memory,
 * returning the old value. */
#define SYNCFIX_ATOMIC(NAME, BUILTIN, T)                                                   \
  __device__ __forceinline__ T NAME(T *address, T val) { return BUILTIN(address, val, __ATOMIC_RELAXED); }
SYNCFIX_ATOMIC(atomicAdd, __atomic_fetch_add, int)
SYNCFIX_ATOMIC(atomicAdd, __atomic_fetch_add, unsigned int)
SYNCFIX_ATOMIC(atomicAdd, __atomic_fetch_add, unsigned long long int)
SYNCFIX_ATOMIC(atomicSub, __atomic_fetch_sub, int)
SYNCFIX_ATOMIC(atomicSub, __atomic_fetch_sub, unsigned int)
SYNCFIX_ATOMIC(atomicAnd, __atomic_fetch_and, int)
SYNCFIX_ATOMIC(atomicAnd, __atomic_fetch_and, unsigned int)
SYNCFIX_ATOMIC(atomicOr, __atomic_fetch_or, int)
SYNCFIX_ATOMIC(atomicOr, __atomic_fetch_or, unsigned int)
SYNCFIX_ATOMIC(atomicXor, __atomic_fetch_xor, int)
SYNCFIX_ATOMIC(atomicXor, __atomic_fetch_xor, unsigned int)
SYNCFIX_ATOMIC(atomicMax, __atomic_fetch_max, int)
SYNCFIX_ATOMIC(atomicMax, __atomic_fetch_max, unsigned int)
SYNCFIX_ATOMIC(atomicMin, __atomic_fetch_min, int)
SYNCFIX_ATOMIC(atomicMin, __atomic_fetch_min, unsigned int)
#undef SYNCFIX_ATOMIC
__device__ __forceinline__ int atomicExch(int *address, int val) { return __atomic_exchange_n(address, val, __ATOMIC_RELAXED); }
__device__ __forceinline__ unsigned int atomicExch(unsigned int *address, unsigned int val) { return __atomic_exchange_n(address, val, __ATOMIC_RELAXED); }
__device__ __forceinline__ float atomicAdd(float *address, float val) { return __atomic_fetch_add(address, val, __ATOMIC_RELAXED); }
__device__ __forceinline__ int atomicCAS(int *address, int compare, int val) {
  __atomic_compare_exchange_n(address, &compare, val, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;
}
__device__ __forceinline__ unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int val) {
  __atomic_compare_exchange_n(address, &compare, val, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;
}

#endif /* SYNCFIX_CUDA_PRELUDE_H */
