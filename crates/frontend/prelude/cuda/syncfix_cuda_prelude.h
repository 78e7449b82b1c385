/* syncfix's CUDA prelude: force-included before every CUDA kernel (DESIGN §3).
 *
 * It gives the device-side names a kernel uses without NVIDIA's toolkit: execution-space
 * attributes, the built-in index variables, barriers (block, grid), cooperative groups, the
 * device library (atomics, math, integer intrinsics, vector types, curand, warp functions)
 * and GPUVerify's annotation language. Calls to the `__syncfix_*` and annotation functions
 * are recognised by syncfix's lowering; they have no definition on purpose.
 *
 * The library is declared, not defined, wherever it can be (clang's AST of every kernel
 * includes the prelude, and function bodies make it large): a bodiless `const` function is an
 * uninterpreted function (math), a bodiless function of numbers returns an arbitrary value
 * (warp shuffles), and the rest is given its meaning by syncfix's lowering
 * (crates/frontend/src/lower/library.rs: atomics, integer intrinsics, __syncthreads_count,
 * fences, curand, textures).
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

/* ---- Basic types (NVIDIA's headers get them from the C library) ----------------------------- */
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
#ifndef NULL
#define NULL __null
#endif

/* ---- Vector types (CUDA's vector_types.h): structs with NVIDIA's alignments ------------------
 * Class templates behind typedefs, so that clang's AST (which syncfix reads for every kernel)
 * holds a type only when a kernel uses it. make_T4(x, y, z, w) and friends are macros for the
 * same reason; FIXME: a kernel that declares its own make_* overloads (helper_math.h) does not
 * compile with them. They can become functions declared here and lowered by syncfix once the
 * library hook may return a struct. */
template <class T, int A> struct alignas(A) __syncfix_vec1 { T x; };
template <class T, int A> struct alignas(A) __syncfix_vec2 { T x, y; };
template <class T, int A> struct alignas(A) __syncfix_vec3 { T x, y, z; };
template <class T, int A> struct alignas(A) __syncfix_vec4 { T x, y, z, w; };
typedef __syncfix_vec1<signed char, 1> char1;
typedef __syncfix_vec2<signed char, 2> char2;
typedef __syncfix_vec3<signed char, 1> char3;
typedef __syncfix_vec4<signed char, 4> char4;
typedef __syncfix_vec1<unsigned char, 1> uchar1;
typedef __syncfix_vec2<unsigned char, 2> uchar2;
typedef __syncfix_vec3<unsigned char, 1> uchar3;
typedef __syncfix_vec4<unsigned char, 4> uchar4;
typedef __syncfix_vec1<short, 2> short1;
typedef __syncfix_vec2<short, 4> short2;
typedef __syncfix_vec3<short, 2> short3;
typedef __syncfix_vec4<short, 8> short4;
typedef __syncfix_vec1<unsigned short, 2> ushort1;
typedef __syncfix_vec2<unsigned short, 4> ushort2;
typedef __syncfix_vec3<unsigned short, 2> ushort3;
typedef __syncfix_vec4<unsigned short, 8> ushort4;
typedef __syncfix_vec1<int, 4> int1;
typedef __syncfix_vec2<int, 8> int2;
typedef __syncfix_vec3<int, 4> int3;
typedef __syncfix_vec4<int, 16> int4;
typedef __syncfix_vec1<unsigned int, 4> uint1;
typedef __syncfix_vec2<unsigned int, 8> uint2;
typedef __syncfix_vec3<unsigned int, 4> uint3;
typedef __syncfix_vec4<unsigned int, 16> uint4;
typedef __syncfix_vec1<long, 8> long1;
typedef __syncfix_vec2<long, 16> long2;
typedef __syncfix_vec3<long, 8> long3;
typedef __syncfix_vec4<long, 16> long4;
typedef __syncfix_vec1<unsigned long, 8> ulong1;
typedef __syncfix_vec2<unsigned long, 16> ulong2;
typedef __syncfix_vec3<unsigned long, 8> ulong3;
typedef __syncfix_vec4<unsigned long, 16> ulong4;
typedef __syncfix_vec1<long long, 8> longlong1;
typedef __syncfix_vec2<long long, 16> longlong2;
typedef __syncfix_vec3<long long, 8> longlong3;
typedef __syncfix_vec4<long long, 16> longlong4;
typedef __syncfix_vec1<unsigned long long, 8> ulonglong1;
typedef __syncfix_vec2<unsigned long long, 16> ulonglong2;
typedef __syncfix_vec3<unsigned long long, 8> ulonglong3;
typedef __syncfix_vec4<unsigned long long, 16> ulonglong4;
typedef __syncfix_vec1<float, 4> float1;
typedef __syncfix_vec2<float, 8> float2;
typedef __syncfix_vec3<float, 4> float3;
typedef __syncfix_vec4<float, 16> float4;
typedef __syncfix_vec1<double, 8> double1;
typedef __syncfix_vec2<double, 16> double2;
typedef __syncfix_vec3<double, 8> double3;
typedef __syncfix_vec4<double, 16> double4;
#define make_char1(x) (char1{(signed char)(x)})
#define make_char2(x, y) (char2{(signed char)(x), (signed char)(y)})
#define make_char3(x, y, z) (char3{(signed char)(x), (signed char)(y), (signed char)(z)})
#define make_char4(x, y, z, w) (char4{(signed char)(x), (signed char)(y), (signed char)(z), (signed char)(w)})
#define make_uchar1(x) (uchar1{(unsigned char)(x)})
#define make_uchar2(x, y) (uchar2{(unsigned char)(x), (unsigned char)(y)})
#define make_uchar3(x, y, z) (uchar3{(unsigned char)(x), (unsigned char)(y), (unsigned char)(z)})
#define make_uchar4(x, y, z, w) (uchar4{(unsigned char)(x), (unsigned char)(y), (unsigned char)(z), (unsigned char)(w)})
#define make_short1(x) (short1{(short)(x)})
#define make_short2(x, y) (short2{(short)(x), (short)(y)})
#define make_short3(x, y, z) (short3{(short)(x), (short)(y), (short)(z)})
#define make_short4(x, y, z, w) (short4{(short)(x), (short)(y), (short)(z), (short)(w)})
#define make_ushort1(x) (ushort1{(unsigned short)(x)})
#define make_ushort2(x, y) (ushort2{(unsigned short)(x), (unsigned short)(y)})
#define make_ushort3(x, y, z) (ushort3{(unsigned short)(x), (unsigned short)(y), (unsigned short)(z)})
#define make_ushort4(x, y, z, w) (ushort4{(unsigned short)(x), (unsigned short)(y), (unsigned short)(z), (unsigned short)(w)})
#define make_int1(x) (int1{(int)(x)})
#define make_int2(x, y) (int2{(int)(x), (int)(y)})
#define make_int3(x, y, z) (int3{(int)(x), (int)(y), (int)(z)})
#define make_int4(x, y, z, w) (int4{(int)(x), (int)(y), (int)(z), (int)(w)})
#define make_uint1(x) (uint1{(unsigned int)(x)})
#define make_uint2(x, y) (uint2{(unsigned int)(x), (unsigned int)(y)})
#define make_uint3(x, y, z) (uint3{(unsigned int)(x), (unsigned int)(y), (unsigned int)(z)})
#define make_uint4(x, y, z, w) (uint4{(unsigned int)(x), (unsigned int)(y), (unsigned int)(z), (unsigned int)(w)})
#define make_long1(x) (long1{(long)(x)})
#define make_long2(x, y) (long2{(long)(x), (long)(y)})
#define make_long3(x, y, z) (long3{(long)(x), (long)(y), (long)(z)})
#define make_long4(x, y, z, w) (long4{(long)(x), (long)(y), (long)(z), (long)(w)})
#define make_ulong1(x) (ulong1{(unsigned long)(x)})
#define make_ulong2(x, y) (ulong2{(unsigned long)(x), (unsigned long)(y)})
#define make_ulong3(x, y, z) (ulong3{(unsigned long)(x), (unsigned long)(y), (unsigned long)(z)})
#define make_ulong4(x, y, z, w) (ulong4{(unsigned long)(x), (unsigned long)(y), (unsigned long)(z), (unsigned long)(w)})
#define make_longlong1(x) (longlong1{(long long)(x)})
#define make_longlong2(x, y) (longlong2{(long long)(x), (long long)(y)})
#define make_longlong3(x, y, z) (longlong3{(long long)(x), (long long)(y), (long long)(z)})
#define make_longlong4(x, y, z, w) (longlong4{(long long)(x), (long long)(y), (long long)(z), (long long)(w)})
#define make_ulonglong1(x) (ulonglong1{(unsigned long long)(x)})
#define make_ulonglong2(x, y) (ulonglong2{(unsigned long long)(x), (unsigned long long)(y)})
#define make_ulonglong3(x, y, z) (ulonglong3{(unsigned long long)(x), (unsigned long long)(y), (unsigned long long)(z)})
#define make_ulonglong4(x, y, z, w) (ulonglong4{(unsigned long long)(x), (unsigned long long)(y), (unsigned long long)(z), (unsigned long long)(w)})
#define make_float1(x) (float1{(float)(x)})
#define make_float2(x, y) (float2{(float)(x), (float)(y)})
#define make_float3(x, y, z) (float3{(float)(x), (float)(y), (float)(z)})
#define make_float4(x, y, z, w) (float4{(float)(x), (float)(y), (float)(z), (float)(w)})
#define make_double1(x) (double1{(double)(x)})
#define make_double2(x, y) (double2{(double)(x), (double)(y)})
#define make_double3(x, y, z) (double3{(double)(x), (double)(y), (double)(z)})
#define make_double4(x, y, z, w) (double4{(double)(x), (double)(y), (double)(z), (double)(w)})

/* ---- Synchronisation and fences (lowered by syncfix) ------------------------------------------
 * `__syncthreads()` is a clang builtin (llvm.nvvm.barrier0). __syncthreads_count/and/or are
 * block barriers with an arbitrary result. Warp synchronisation is not modelled: __syncwarp
 * has no effect, so races it would prevent are still reported (sound). Fences do not order
 * different threads' accesses, so race checking ignores them. */
extern "C" {
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);

/* Warp votes and shuffles: the values of other lanes are not modelled (arbitrary results). */
__device__ unsigned int __activemask(void);
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
}
template <class T> __device__ T __shfl_sync(unsigned int mask, T var, int src_lane, int width = warpSize);
template <class T> __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize);
template <class T> __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize);
template <class T> __device__ T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = warpSize);
template <class T> __device__ T __shfl(T var, int src_lane, int width = warpSize);
template <class T> __device__ T __shfl_up(T var, unsigned int delta, int width = warpSize);
template <class T> __device__ T __shfl_down(T var, unsigned int delta, int width = warpSize);
template <class T> __device__ T __shfl_xor(T var, int lane_mask, int width = warpSize);

/* ---- Atomics (CUDA programming guide, atomic functions): lowered by syncfix to one atomic
 * read-modify-write returning the old value. The _block and _system forms differ only in the
 * threads they are atomic for, which does not matter to race checking. */
__device__ int atomicAdd(int *address, int val);
__device__ unsigned int atomicAdd(unsigned int *address, unsigned int val);
__device__ unsigned long long int atomicAdd(unsigned long long int *address, unsigned long long int val);
__device__ float atomicAdd(float *address, float val);
__device__ double atomicAdd(double *address, double val);
__device__ int atomicSub(int *address, int val);
__device__ unsigned int atomicSub(unsigned int *address, unsigned int val);
__device__ int atomicExch(int *address, int val);
__device__ unsigned int atomicExch(unsigned int *address, unsigned int val);
__device__ unsigned long long int atomicExch(unsigned long long int *address, unsigned long long int val);
__device__ float atomicExch(float *address, float val);
__device__ int atomicMin(int *address, int val);
__device__ unsigned int atomicMin(unsigned int *address, unsigned int val);
__device__ long long int atomicMin(long long int *address, long long int val);
__device__ unsigned long long int atomicMin(unsigned long long int *address, unsigned long long int val);
__device__ int atomicMax(int *address, int val);
__device__ unsigned int atomicMax(unsigned int *address, unsigned int val);
__device__ long long int atomicMax(long long int *address, long long int val);
__device__ unsigned long long int atomicMax(unsigned long long int *address, unsigned long long int val);
/* ((old >= val) ? 0 : old + 1) and (((old == 0) || (old > val)) ? val : old - 1). */
__device__ unsigned int atomicInc(unsigned int *address, unsigned int val);
__device__ unsigned int atomicDec(unsigned int *address, unsigned int val);
__device__ int atomicAnd(int *address, int val);
__device__ unsigned int atomicAnd(unsigned int *address, unsigned int val);
__device__ unsigned long long int atomicAnd(unsigned long long int *address, unsigned long long int val);
__device__ int atomicOr(int *address, int val);
__device__ unsigned int atomicOr(unsigned int *address, unsigned int val);
__device__ unsigned long long int atomicOr(unsigned long long int *address, unsigned long long int val);
__device__ int atomicXor(int *address, int val);
__device__ unsigned int atomicXor(unsigned int *address, unsigned int val);
__device__ unsigned long long int atomicXor(unsigned long long int *address, unsigned long long int val);
__device__ int atomicCAS(int *address, int compare, int val);
__device__ unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int val);
__device__ unsigned long long int atomicCAS(unsigned long long int *address, unsigned long long int compare, unsigned long long int val);
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS

/* ---- Integer intrinsics: lowered exactly by syncfix; bit counts are uninterpreted ------------ */
__device__ int __mul24(int x, int y);
__device__ unsigned int __umul24(unsigned int x, unsigned int y);
__device__ int __mulhi(int x, int y);
__device__ unsigned int __umulhi(unsigned int x, unsigned int y);
__device__ long long int __mul64hi(long long int x, long long int y);
__device__ unsigned long long int __umul64hi(unsigned long long int x, unsigned long long int y);
__device__ int __hadd(int x, int y);
__device__ int __rhadd(int x, int y);
__device__ unsigned int __uhadd(unsigned int x, unsigned int y);
__device__ unsigned int __urhadd(unsigned int x, unsigned int y);
__device__ unsigned int __sad(int x, int y, unsigned int z);
__device__ unsigned int __usad(unsigned int x, unsigned int y, unsigned int z);
__device__ int min(int x, int y);
__device__ unsigned int min(unsigned int x, unsigned int y);
__device__ unsigned int min(int x, unsigned int y);
__device__ unsigned int min(unsigned int x, int y);
__device__ long min(long x, long y);
__device__ unsigned long min(unsigned long x, unsigned long y);
__device__ long long min(long long x, long long y);
__device__ unsigned long long min(unsigned long long x, unsigned long long y);
__device__ float min(float x, float y) __attribute__((const));
__device__ double min(double x, double y) __attribute__((const));
__device__ int max(int x, int y);
__device__ unsigned int max(unsigned int x, unsigned int y);
__device__ unsigned int max(int x, unsigned int y);
__device__ unsigned int max(unsigned int x, int y);
__device__ long max(long x, long y);
__device__ unsigned long max(unsigned long x, unsigned long y);
__device__ long long max(long long x, long long y);
__device__ unsigned long long max(unsigned long long x, unsigned long long y);
__device__ float max(float x, float y) __attribute__((const));
__device__ double max(double x, double y) __attribute__((const));
__device__ unsigned int umin(unsigned int x, unsigned int y);
__device__ unsigned int umax(unsigned int x, unsigned int y);
__device__ long long llmin(long long x, long long y);
__device__ long long llmax(long long x, long long y);
__device__ unsigned long long ullmin(unsigned long long x, unsigned long long y);
__device__ unsigned long long ullmax(unsigned long long x, unsigned long long y);
__device__ int abs(int x);
__device__ long labs(long x);
__device__ long long llabs(long long x);

extern "C" {
__device__ int __popc(unsigned int x) __attribute__((const));
__device__ int __popcll(unsigned long long x) __attribute__((const));
__device__ int __clz(int x) __attribute__((const));
__device__ int __clzll(long long x) __attribute__((const));
__device__ int __ffs(int x) __attribute__((const));
__device__ int __ffsll(long long x) __attribute__((const));
__device__ unsigned int __brev(unsigned int x) __attribute__((const));
__device__ unsigned long long __brevll(unsigned long long x) __attribute__((const));
__device__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) __attribute__((const));
/* Reinterpretations of the bits: exact (floats are bit-vectors to syncfix). */
__device__ int __float_as_int(float x);
__device__ unsigned int __float_as_uint(float x);
__device__ float __int_as_float(int x);
__device__ float __uint_as_float(unsigned int x);
__device__ long long __double_as_longlong(double x);
__device__ double __longlong_as_double(long long x);

/* ---- Math functions: uninterpreted functions (a `float` argument of the double form is
 * promoted, as in C). ---------------------------------------------------------------------------- */
__device__ double sqrt(double x) __attribute__((const));
__device__ float sqrtf(float x) __attribute__((const));
__device__ double rsqrt(double x) __attribute__((const));
__device__ float rsqrtf(float x) __attribute__((const));
__device__ double cbrt(double x) __attribute__((const));
__device__ float cbrtf(float x) __attribute__((const));
__device__ double rcbrt(double x) __attribute__((const));
__device__ float rcbrtf(float x) __attribute__((const));
__device__ double exp(double x) __attribute__((const));
__device__ float expf(float x) __attribute__((const));
__device__ double exp2(double x) __attribute__((const));
__device__ float exp2f(float x) __attribute__((const));
__device__ double exp10(double x) __attribute__((const));
__device__ float exp10f(float x) __attribute__((const));
__device__ double expm1(double x) __attribute__((const));
__device__ float expm1f(float x) __attribute__((const));
__device__ double log(double x) __attribute__((const));
__device__ float logf(float x) __attribute__((const));
__device__ double log2(double x) __attribute__((const));
__device__ float log2f(float x) __attribute__((const));
__device__ double log10(double x) __attribute__((const));
__device__ float log10f(float x) __attribute__((const));
__device__ double log1p(double x) __attribute__((const));
__device__ float log1pf(float x) __attribute__((const));
__device__ double logb(double x) __attribute__((const));
__device__ float logbf(float x) __attribute__((const));
__device__ double sin(double x) __attribute__((const));
__device__ float sinf(float x) __attribute__((const));
__device__ double cos(double x) __attribute__((const));
__device__ float cosf(float x) __attribute__((const));
__device__ double tan(double x) __attribute__((const));
__device__ float tanf(float x) __attribute__((const));
__device__ double asin(double x) __attribute__((const));
__device__ float asinf(float x) __attribute__((const));
__device__ double acos(double x) __attribute__((const));
__device__ float acosf(float x) __attribute__((const));
__device__ double atan(double x) __attribute__((const));
__device__ float atanf(float x) __attribute__((const));
__device__ double sinh(double x) __attribute__((const));
__device__ float sinhf(float x) __attribute__((const));
__device__ double cosh(double x) __attribute__((const));
__device__ float coshf(float x) __attribute__((const));
__device__ double tanh(double x) __attribute__((const));
__device__ float tanhf(float x) __attribute__((const));
__device__ double asinh(double x) __attribute__((const));
__device__ float asinhf(float x) __attribute__((const));
__device__ double acosh(double x) __attribute__((const));
__device__ float acoshf(float x) __attribute__((const));
__device__ double atanh(double x) __attribute__((const));
__device__ float atanhf(float x) __attribute__((const));
__device__ double sinpi(double x) __attribute__((const));
__device__ float sinpif(float x) __attribute__((const));
__device__ double cospi(double x) __attribute__((const));
__device__ float cospif(float x) __attribute__((const));
__device__ double erf(double x) __attribute__((const));
__device__ float erff(float x) __attribute__((const));
__device__ double erfc(double x) __attribute__((const));
__device__ float erfcf(float x) __attribute__((const));
__device__ double erfinv(double x) __attribute__((const));
__device__ float erfinvf(float x) __attribute__((const));
__device__ double lgamma(double x) __attribute__((const));
__device__ float lgammaf(float x) __attribute__((const));
__device__ double tgamma(double x) __attribute__((const));
__device__ float tgammaf(float x) __attribute__((const));
__device__ double fabs(double x) __attribute__((const));
__device__ float fabsf(float x) __attribute__((const));
__device__ double floor(double x) __attribute__((const));
__device__ float floorf(float x) __attribute__((const));
__device__ double ceil(double x) __attribute__((const));
__device__ float ceilf(float x) __attribute__((const));
__device__ double trunc(double x) __attribute__((const));
__device__ float truncf(float x) __attribute__((const));
__device__ double round(double x) __attribute__((const));
__device__ float roundf(float x) __attribute__((const));
__device__ double rint(double x) __attribute__((const));
__device__ float rintf(float x) __attribute__((const));
__device__ double nearbyint(double x) __attribute__((const));
__device__ float nearbyintf(float x) __attribute__((const));
__device__ double normcdf(double x) __attribute__((const));
__device__ float normcdff(float x) __attribute__((const));
__device__ double pow(double x, double y) __attribute__((const));
__device__ float powf(float x, float y) __attribute__((const));
__device__ double atan2(double x, double y) __attribute__((const));
__device__ float atan2f(float x, float y) __attribute__((const));
__device__ double fmin(double x, double y) __attribute__((const));
__device__ float fminf(float x, float y) __attribute__((const));
__device__ double fmax(double x, double y) __attribute__((const));
__device__ float fmaxf(float x, float y) __attribute__((const));
__device__ double fmod(double x, double y) __attribute__((const));
__device__ float fmodf(float x, float y) __attribute__((const));
__device__ double hypot(double x, double y) __attribute__((const));
__device__ float hypotf(float x, float y) __attribute__((const));
__device__ double copysign(double x, double y) __attribute__((const));
__device__ float copysignf(float x, float y) __attribute__((const));
__device__ double fdim(double x, double y) __attribute__((const));
__device__ float fdimf(float x, float y) __attribute__((const));
__device__ double remainder(double x, double y) __attribute__((const));
__device__ float remainderf(float x, float y) __attribute__((const));
__device__ double nextafter(double x, double y) __attribute__((const));
__device__ float nextafterf(float x, float y) __attribute__((const));
__device__ double fma(double x, double y, double z) __attribute__((const));
__device__ float fmaf(float x, float y, float z) __attribute__((const));
/* Fast intrinsics. */
__device__ float __sinf(float x) __attribute__((const));
__device__ float __cosf(float x) __attribute__((const));
__device__ float __tanf(float x) __attribute__((const));
__device__ float __expf(float x) __attribute__((const));
__device__ float __exp10f(float x) __attribute__((const));
__device__ float __logf(float x) __attribute__((const));
__device__ float __log2f(float x) __attribute__((const));
__device__ float __log10f(float x) __attribute__((const));
__device__ float __powf(float x, float y) __attribute__((const));
__device__ float __fdividef(float x, float y) __attribute__((const));
__device__ float __saturatef(float x) __attribute__((const));
__device__ float __frcp_rn(float x) __attribute__((const));
__device__ float __fsqrt_rn(float x) __attribute__((const));
__device__ float __frsqrt_rn(float x) __attribute__((const));
__device__ int __float2int_rn(float x) __attribute__((const));
__device__ int __float2int_rz(float x) __attribute__((const));
__device__ unsigned int __float2uint_rn(float x) __attribute__((const));
__device__ unsigned int __float2uint_rz(float x) __attribute__((const));
__device__ float __int2float_rn(int x) __attribute__((const));
__device__ float __uint2float_rn(unsigned int x) __attribute__((const));
}

/* Device-side printf: output only (lowered by syncfix to nothing). */
extern "C" __device__ int printf(const char *format, ...);

/* Device-side memcpy and memset (as the CUDA headers declare them; lowered by syncfix to
   loads and stores when the length is a constant). */
extern "C" __device__ void *memcpy(void *dst, const void *src, size_t n);
extern "C" __device__ void *memset(void *dst, int value, size_t n);

/* Loads through the read-only data cache: an ordinary load. */
template <class T> __device__ inline T __ldg(const T *p) { return *p; }

/* ---- curand (device API) ----------------------------------------------------------------------
 * Generator states are opaque to kernels. syncfix lowers the calls: a draw (and curand_init)
 * reads and overwrites the state, so threads sharing a state race (as in GPUVerify); the
 * numbers drawn are arbitrary. An MTGP32 state serves one block of at most 256 threads:
 * thread t updates its word t mod 256. The functions are templates over the state type so
 * that they cost one declaration each. */
struct curandStateXORWOW { unsigned int d, v[5]; int boxmuller_flag, boxmuller_flag_double; float boxmuller_extra; double boxmuller_extra_double; };
struct curandStateMRG32k3a { unsigned int s1[3], s2[3]; int boxmuller_flag, boxmuller_flag_double; float boxmuller_extra; double boxmuller_extra_double; };
struct curandStatePhilox4_32_10 { unsigned int ctr[4], output[4], key[2], STATE; int boxmuller_flag, boxmuller_flag_double; float boxmuller_extra; double boxmuller_extra_double; };
struct curandStateMtgp32 { unsigned int s[1024]; int offset, pIdx; };
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
typedef struct curandStateMtgp32 curandStateMtgp32_t;
template <class S> __device__ void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset, S *state);
template <class S> __device__ unsigned int curand(S *state);
template <class S> __device__ float curand_uniform(S *state);
template <class S> __device__ double curand_uniform_double(S *state);
template <class S> __device__ float curand_normal(S *state);
template <class S> __device__ double curand_normal_double(S *state);
template <class S> __device__ float curand_log_normal(S *state, float mean, float stddev);
template <class S> __device__ double curand_log_normal_double(S *state, double mean, double stddev);
template <class S> __device__ unsigned int curand_poisson(S *state, double lambda);

/* ---- Textures (texture references, CUDA C Programming Guide, "Texture Fetching") ------------
 * A kernel only reads a texture, so a fetch cannot race: it returns an arbitrary value of the
 * texture's element type (`float` and `floatN` for cudaReadModeNormalizedFloat on 8- and 16-bit
 * integer types), a fresh one per fetch since filtering and addressing modes are not modelled.
 * The texture variable is named only in unevaluated operands (`decltype`): clang would otherwise
 * turn it into a texture handle, which is not needed for the model. Texture objects
 * (cudaTextureObject_t) and surfaces are not modelled: their functions are not declared, so a
 * kernel using them gets clang's error naming the function. */
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
template <class T, enum cudaTextureReadMode M> struct __syncfix_texel { typedef T type; };
#define __SYNCFIX_NORMALIZED(T, F) \
  template <> struct __syncfix_texel<T, cudaReadModeNormalizedFloat> { typedef F type; };
__SYNCFIX_NORMALIZED(char, float)
__SYNCFIX_NORMALIZED(signed char, float)
__SYNCFIX_NORMALIZED(unsigned char, float)
__SYNCFIX_NORMALIZED(short, float)
__SYNCFIX_NORMALIZED(unsigned short, float)
__SYNCFIX_NORMALIZED(char2, float2)
__SYNCFIX_NORMALIZED(uchar2, float2)
__SYNCFIX_NORMALIZED(short2, float2)
__SYNCFIX_NORMALIZED(ushort2, float2)
__SYNCFIX_NORMALIZED(char4, float4)
__SYNCFIX_NORMALIZED(uchar4, float4)
__SYNCFIX_NORMALIZED(short4, float4)
__SYNCFIX_NORMALIZED(ushort4, float4)
#undef __SYNCFIX_NORMALIZED
template <class T, int texType = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture {
  typedef typename __syncfix_texel<T, mode>::type __syncfix_value;
  int __syncfix_handle;
};
/* Bodiless, without pointer arguments: syncfix gives each call a fresh value. */
template <class Tex, class... Coords> __device__ typename Tex::__syncfix_value __syncfix_texture_fetch(Coords... coords);
#define tex1Dfetch(t, ...) __syncfix_texture_fetch<decltype(t)>(__VA_ARGS__)
#define tex1D(t, ...) __syncfix_texture_fetch<decltype(t)>(__VA_ARGS__)
#define tex2D(t, ...) __syncfix_texture_fetch<decltype(t)>(__VA_ARGS__)
#define tex3D(t, ...) __syncfix_texture_fetch<decltype(t)>(__VA_ARGS__)
#define tex1DLayered(t, ...) __syncfix_texture_fetch<decltype(t)>(__VA_ARGS__)
#define tex2DLayered(t, ...) __syncfix_texture_fetch<decltype(t)>(__VA_ARGS__)
#define texCubemap(t, ...) __syncfix_texture_fetch<decltype(t)>(__VA_ARGS__)

#endif /* SYNCFIX_CUDA_PRELUDE_H */
