/* Test prelude for CUDA (force-included with -include): the keywords, the marker functions,
   and enough of CUDA and GPUVerify's annotation language for the GPUVerify suite. */
#include <__clang_cuda_builtin_vars.h>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
extern "C" __device__ void __syncfix_anchor(int);
extern "C" __device__ void __syncfix_anchor_end(int);
extern "C" __device__ void __syncfix_split(int);

typedef __SIZE_TYPE__ size_t;
typedef unsigned int uint;
#define NULL 0
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) float2 { float x, y; };

/* GPUVerify's annotation language, as plain declarations. */
__device__ void __requires(bool);
__device__ void __ensures(bool);
__device__ void __invariant(bool);
__device__ void __global_invariant(bool);
__device__ bool __candidate_invariant(bool);
__device__ void __assert(bool);
__device__ void __assume(bool);
__device__ bool __enabled(void);
__device__ bool __implies(bool, bool);
__device__ bool __read(const volatile void *);
__device__ bool __write(const volatile void *);
__device__ bool __no_read(const volatile void *);
__device__ bool __no_write(const volatile void *);
__device__ size_t __read_offset_bytes(const volatile void *);
__device__ size_t __write_offset_bytes(const volatile void *);
__device__ size_t __ptr_offset_bytes(const volatile void *);
__device__ const void *__ptr_base(const volatile void *);
__device__ void __requires_fresh_array(const volatile void *);
__device__ int __other_int(int);
__device__ bool __other_bool(bool);
__device__ int __uniform_int(int);
__device__ bool __uniform_bool(bool);
__device__ int __distinct_int(int);
__device__ bool __same_group(void);
__device__ int __return_val_int(void);
__device__ bool __return_val_bool(void);
__device__ void *__return_val_ptr(void);

/* A few CUDA device functions. */
__device__ int atomicAdd(int *, int);
__device__ unsigned atomicAdd(unsigned *, unsigned);
__device__ float atomicAdd(float *, float);
__device__ int atomicSub(int *, int);
__device__ unsigned atomicSub(unsigned *, unsigned);
__device__ int atomicExch(int *, int);
__device__ unsigned atomicExch(unsigned *, unsigned);
__device__ int atomicMin(int *, int);
__device__ unsigned atomicMin(unsigned *, unsigned);
__device__ int atomicMax(int *, int);
__device__ unsigned atomicMax(unsigned *, unsigned);
__device__ unsigned atomicInc(unsigned *, unsigned);
__device__ unsigned atomicDec(unsigned *, unsigned);
__device__ int atomicCAS(int *, int, int);
__device__ unsigned atomicCAS(unsigned *, unsigned, unsigned);
__device__ int atomicAnd(int *, int);
__device__ unsigned atomicAnd(unsigned *, unsigned);
__device__ int atomicOr(int *, int);
__device__ unsigned atomicOr(unsigned *, unsigned);
__device__ int atomicXor(int *, int);
__device__ unsigned atomicXor(unsigned *, unsigned);
__device__ void __threadfence(void);
__device__ int __all(int);
__device__ int __mul24(int, int);
__device__ float sin(float);
__device__ float cos(float);
__device__ float __exp10f(float);

/* Cooperative groups. */
namespace cooperative_groups {
struct grid_group { __device__ void sync() const; };
struct thread_block { __device__ void sync() const; };
__device__ grid_group this_grid(void);
__device__ thread_block this_thread_block(void);
__device__ void synchronize(const grid_group &);
__device__ void synchronize(const thread_block &);
}
