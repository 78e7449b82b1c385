/* syncfix's CUDA prelude: force-included (precompiled) before every CUDA kernel.
 *
 * It gives the device-side names a kernel uses without NVIDIA's toolkit: execution-space
 * attributes, vector types, the built-in index variables, barriers (block, grid), cooperative
 * groups, the device library and GPUVerify's annotation language. Where clang's own CUDA
 * wrapper headers serve (the built-in variables, the math library, integer and warp
 * intrinsics, fences, __ldg, clock), they are included as clang includes them for real CUDA;
 * the rest (what CUDA's own headers add: vector types, min/max overloads, atomics, textures,
 * curand) is written here with CUDA's signatures. Calls to the `__syncfix_*` and annotation
 * functions are recognised by syncfix's lowering; they have no definition on purpose, and so
 * have libdevice's functions (`__nv_*`, clang runs with -nocudalib) and the library functions
 * declared without a body here: syncfix's lowering gives them their meaning
 * (crates/frontend/src/lower/library.rs and library/libdevice.rs).
 *
 * The prelude is precompiled (a PCH): clang's AST dump of a kernel then leaves out its
 * declarations, so its size costs a kernel nothing but the one parse of the precompilation.
 */
#ifndef SYNCFIX_CUDA_PRELUDE_H
#define SYNCFIX_CUDA_PRELUDE_H

/* The C and C++ standard headers that host code includes, first, as clang's CUDA runtime
 * wrapper includes them (__clang_cuda_runtime_wrapper.h): the forward declarations that let
 * device code call <cmath>'s functions, then <cmath> and <cstdlib> with __CUDACC__ defined
 * (libstdc++ then leaves out __float128), so that clang's cuda_wrappers/new finds malloc. */
#include <__clang_cuda_math_forward_declares.h>
#define __CUDACC__ 1
#include <cmath>
#include <cstdlib>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* ---- Vector types (CUDA's vector_types.h): structs with CUDA's sizes and alignments ----------
 * As in GPUVerify's CUDA headers (clang's ext_vector_type), arithmetic on them is element-wise:
 * `a + b`, `v * 2.0f`, `s * v`, `-v`, `v += w` (a vector and a vector of its type or a scalar
 * of its element type). The operators are templates, so that a kernel's own (helper_math.h's)
 * are preferred, as C++ prefers a function that is not a template. make_T(x, ...) are functions
 * with CUDA's signatures, so that a kernel may add its own overloads (helper_math.h's
 * make_float3(float)). */
template <class V> struct __syncfix_vector {};
struct __align__(1) char1 { signed char x; };
template <> struct __syncfix_vector<char1> { typedef char1 type; typedef signed char elem; static const int n = 1; };
struct __align__(2) char2 { signed char x, y; };
template <> struct __syncfix_vector<char2> { typedef char2 type; typedef signed char elem; static const int n = 2; };
struct __align__(1) char3 { signed char x, y, z; };
template <> struct __syncfix_vector<char3> { typedef char3 type; typedef signed char elem; static const int n = 3; };
struct __align__(4) char4 { signed char x, y, z, w; };
template <> struct __syncfix_vector<char4> { typedef char4 type; typedef signed char elem; static const int n = 4; };
struct __align__(1) uchar1 { unsigned char x; };
template <> struct __syncfix_vector<uchar1> { typedef uchar1 type; typedef unsigned char elem; static const int n = 1; };
struct __align__(2) uchar2 { unsigned char x, y; };
template <> struct __syncfix_vector<uchar2> { typedef uchar2 type; typedef unsigned char elem; static const int n = 2; };
struct __align__(1) uchar3 { unsigned char x, y, z; };
template <> struct __syncfix_vector<uchar3> { typedef uchar3 type; typedef unsigned char elem; static const int n = 3; };
struct __align__(4) uchar4 { unsigned char x, y, z, w; };
template <> struct __syncfix_vector<uchar4> { typedef uchar4 type; typedef unsigned char elem; static const int n = 4; };
struct __align__(2) short1 { short x; };
template <> struct __syncfix_vector<short1> { typedef short1 type; typedef short elem; static const int n = 1; };
struct __align__(4) short2 { short x, y; };
template <> struct __syncfix_vector<short2> { typedef short2 type; typedef short elem; static const int n = 2; };
struct __align__(2) short3 { short x, y, z; };
template <> struct __syncfix_vector<short3> { typedef short3 type; typedef short elem; static const int n = 3; };
struct __align__(8) short4 { short x, y, z, w; };
template <> struct __syncfix_vector<short4> { typedef short4 type; typedef short elem; static const int n = 4; };
struct __align__(2) ushort1 { unsigned short x; };
template <> struct __syncfix_vector<ushort1> { typedef ushort1 type; typedef unsigned short elem; static const int n = 1; };
struct __align__(4) ushort2 { unsigned short x, y; };
template <> struct __syncfix_vector<ushort2> { typedef ushort2 type; typedef unsigned short elem; static const int n = 2; };
struct __align__(2) ushort3 { unsigned short x, y, z; };
template <> struct __syncfix_vector<ushort3> { typedef ushort3 type; typedef unsigned short elem; static const int n = 3; };
struct __align__(8) ushort4 { unsigned short x, y, z, w; };
template <> struct __syncfix_vector<ushort4> { typedef ushort4 type; typedef unsigned short elem; static const int n = 4; };
struct __align__(4) int1 { int x; };
template <> struct __syncfix_vector<int1> { typedef int1 type; typedef int elem; static const int n = 1; };
struct __align__(8) int2 { int x, y; };
template <> struct __syncfix_vector<int2> { typedef int2 type; typedef int elem; static const int n = 2; };
struct __align__(4) int3 { int x, y, z; };
template <> struct __syncfix_vector<int3> { typedef int3 type; typedef int elem; static const int n = 3; };
struct __align__(16) int4 { int x, y, z, w; };
template <> struct __syncfix_vector<int4> { typedef int4 type; typedef int elem; static const int n = 4; };
struct __align__(4) uint1 { unsigned int x; };
template <> struct __syncfix_vector<uint1> { typedef uint1 type; typedef unsigned int elem; static const int n = 1; };
struct __align__(8) uint2 { unsigned int x, y; };
template <> struct __syncfix_vector<uint2> { typedef uint2 type; typedef unsigned int elem; static const int n = 2; };
struct __align__(4) uint3 { unsigned int x, y, z; };
template <> struct __syncfix_vector<uint3> { typedef uint3 type; typedef unsigned int elem; static const int n = 3; };
struct __align__(16) uint4 { unsigned int x, y, z, w; };
template <> struct __syncfix_vector<uint4> { typedef uint4 type; typedef unsigned int elem; static const int n = 4; };
struct __align__(8) long1 { long x; };
template <> struct __syncfix_vector<long1> { typedef long1 type; typedef long elem; static const int n = 1; };
struct __align__(16) long2 { long x, y; };
template <> struct __syncfix_vector<long2> { typedef long2 type; typedef long elem; static const int n = 2; };
struct __align__(8) long3 { long x, y, z; };
template <> struct __syncfix_vector<long3> { typedef long3 type; typedef long elem; static const int n = 3; };
struct __align__(16) long4 { long x, y, z, w; };
template <> struct __syncfix_vector<long4> { typedef long4 type; typedef long elem; static const int n = 4; };
struct __align__(8) ulong1 { unsigned long x; };
template <> struct __syncfix_vector<ulong1> { typedef ulong1 type; typedef unsigned long elem; static const int n = 1; };
struct __align__(16) ulong2 { unsigned long x, y; };
template <> struct __syncfix_vector<ulong2> { typedef ulong2 type; typedef unsigned long elem; static const int n = 2; };
struct __align__(8) ulong3 { unsigned long x, y, z; };
template <> struct __syncfix_vector<ulong3> { typedef ulong3 type; typedef unsigned long elem; static const int n = 3; };
struct __align__(16) ulong4 { unsigned long x, y, z, w; };
template <> struct __syncfix_vector<ulong4> { typedef ulong4 type; typedef unsigned long elem; static const int n = 4; };
struct __align__(8) longlong1 { long long x; };
template <> struct __syncfix_vector<longlong1> { typedef longlong1 type; typedef long long elem; static const int n = 1; };
struct __align__(16) longlong2 { long long x, y; };
template <> struct __syncfix_vector<longlong2> { typedef longlong2 type; typedef long long elem; static const int n = 2; };
struct __align__(8) longlong3 { long long x, y, z; };
template <> struct __syncfix_vector<longlong3> { typedef longlong3 type; typedef long long elem; static const int n = 3; };
struct __align__(16) longlong4 { long long x, y, z, w; };
template <> struct __syncfix_vector<longlong4> { typedef longlong4 type; typedef long long elem; static const int n = 4; };
struct __align__(8) ulonglong1 { unsigned long long x; };
template <> struct __syncfix_vector<ulonglong1> { typedef ulonglong1 type; typedef unsigned long long elem; static const int n = 1; };
struct __align__(16) ulonglong2 { unsigned long long x, y; };
template <> struct __syncfix_vector<ulonglong2> { typedef ulonglong2 type; typedef unsigned long long elem; static const int n = 2; };
struct __align__(8) ulonglong3 { unsigned long long x, y, z; };
template <> struct __syncfix_vector<ulonglong3> { typedef ulonglong3 type; typedef unsigned long long elem; static const int n = 3; };
struct __align__(16) ulonglong4 { unsigned long long x, y, z, w; };
template <> struct __syncfix_vector<ulonglong4> { typedef ulonglong4 type; typedef unsigned long long elem; static const int n = 4; };
struct __align__(4) float1 { float x; };
template <> struct __syncfix_vector<float1> { typedef float1 type; typedef float elem; static const int n = 1; };
struct __align__(8) float2 { float x, y; };
template <> struct __syncfix_vector<float2> { typedef float2 type; typedef float elem; static const int n = 2; };
struct __align__(4) float3 { float x, y, z; };
template <> struct __syncfix_vector<float3> { typedef float3 type; typedef float elem; static const int n = 3; };
struct __align__(16) float4 { float x, y, z, w; };
template <> struct __syncfix_vector<float4> { typedef float4 type; typedef float elem; static const int n = 4; };
struct __align__(8) double1 { double x; };
template <> struct __syncfix_vector<double1> { typedef double1 type; typedef double elem; static const int n = 1; };
struct __align__(16) double2 { double x, y; };
template <> struct __syncfix_vector<double2> { typedef double2 type; typedef double elem; static const int n = 2; };
struct __align__(8) double3 { double x, y, z; };
template <> struct __syncfix_vector<double3> { typedef double3 type; typedef double elem; static const int n = 3; };
struct __align__(16) double4 { double x, y, z, w; };
template <> struct __syncfix_vector<double4> { typedef double4 type; typedef double elem; static const int n = 4; };
template <class V> using __syncfix_vec_t = typename __syncfix_vector<V>::type;
template <class V> using __syncfix_elem_t = typename __syncfix_vector<V>::elem;
#define __SYNCFIX_FIELDS(F) \
  F(x) if constexpr (__syncfix_vector<V>::n >= 2) { F(y) } if constexpr (__syncfix_vector<V>::n >= 3) { F(z) } if constexpr (__syncfix_vector<V>::n >= 4) { F(w) }
#define __SYNCFIX_VV(f) r.f = a.f __SYNCFIX_OP b.f;
#define __SYNCFIX_VS(f) r.f = a.f __SYNCFIX_OP s;
#define __SYNCFIX_SV(f) r.f = s __SYNCFIX_OP a.f;
#define __SYNCFIX_VECTOR_OPS(OPEQ)                                                                            \
  template <class V> __host__ __device__ inline __syncfix_vec_t<V> operator __SYNCFIX_OP(V a, V b) { V r; __SYNCFIX_FIELDS(__SYNCFIX_VV) return r; } \
  template <class V> __host__ __device__ inline __syncfix_vec_t<V> operator __SYNCFIX_OP(V a, __syncfix_elem_t<V> s) { V r; __SYNCFIX_FIELDS(__SYNCFIX_VS) return r; } \
  template <class V> __host__ __device__ inline __syncfix_vec_t<V> operator __SYNCFIX_OP(__syncfix_elem_t<V> s, V a) { V r; __SYNCFIX_FIELDS(__SYNCFIX_SV) return r; } \
  template <class V> __host__ __device__ inline __syncfix_vec_t<V> &operator OPEQ(V &a, V b) { a = a __SYNCFIX_OP b; return a; } \
  template <class V> __host__ __device__ inline __syncfix_vec_t<V> &operator OPEQ(V &a, __syncfix_elem_t<V> s) { a = a __SYNCFIX_OP s; return a; }
#define __SYNCFIX_OP +
__SYNCFIX_VECTOR_OPS(+=)
#undef __SYNCFIX_OP
#define __SYNCFIX_OP -
__SYNCFIX_VECTOR_OPS(-=)
#undef __SYNCFIX_OP
#define __SYNCFIX_OP *
__SYNCFIX_VECTOR_OPS(*=)
#undef __SYNCFIX_OP
#define __SYNCFIX_OP /
__SYNCFIX_VECTOR_OPS(/=)
#undef __SYNCFIX_OP
#define __SYNCFIX_OP %
__SYNCFIX_VECTOR_OPS(%=)
#undef __SYNCFIX_OP
#define __SYNCFIX_OP &
__SYNCFIX_VECTOR_OPS(&=)
#undef __SYNCFIX_OP
#define __SYNCFIX_OP |
__SYNCFIX_VECTOR_OPS(|=)
#undef __SYNCFIX_OP
#define __SYNCFIX_OP ^
__SYNCFIX_VECTOR_OPS(^=)
#undef __SYNCFIX_OP
#define __SYNCFIX_OP <<
__SYNCFIX_VECTOR_OPS(<<=)
#undef __SYNCFIX_OP
#define __SYNCFIX_OP >>
__SYNCFIX_VECTOR_OPS(>>=)
#undef __SYNCFIX_OP
#define __SYNCFIX_NEG(f) r.f = -a.f;
template <class V> __host__ __device__ inline __syncfix_vec_t<V> operator-(V a) { V r; __SYNCFIX_FIELDS(__SYNCFIX_NEG) return r; }
#undef __SYNCFIX_NEG
#undef __SYNCFIX_VV
#undef __SYNCFIX_VS
#undef __SYNCFIX_SV
#undef __SYNCFIX_VECTOR_OPS
#undef __SYNCFIX_FIELDS
static __host__ __device__ inline char1 make_char1(signed char x) { char1 r = {x}; return r; }
static __host__ __device__ inline char2 make_char2(signed char x, signed char y) { char2 r = {x, y}; return r; }
static __host__ __device__ inline char3 make_char3(signed char x, signed char y, signed char z) { char3 r = {x, y, z}; return r; }
static __host__ __device__ inline char4 make_char4(signed char x, signed char y, signed char z, signed char w) { char4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline uchar1 make_uchar1(unsigned char x) { uchar1 r = {x}; return r; }
static __host__ __device__ inline uchar2 make_uchar2(unsigned char x, unsigned char y) { uchar2 r = {x, y}; return r; }
static __host__ __device__ inline uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z) { uchar3 r = {x, y, z}; return r; }
static __host__ __device__ inline uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) { uchar4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline short1 make_short1(short x) { short1 r = {x}; return r; }
static __host__ __device__ inline short2 make_short2(short x, short y) { short2 r = {x, y}; return r; }
static __host__ __device__ inline short3 make_short3(short x, short y, short z) { short3 r = {x, y, z}; return r; }
static __host__ __device__ inline short4 make_short4(short x, short y, short z, short w) { short4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline ushort1 make_ushort1(unsigned short x) { ushort1 r = {x}; return r; }
static __host__ __device__ inline ushort2 make_ushort2(unsigned short x, unsigned short y) { ushort2 r = {x, y}; return r; }
static __host__ __device__ inline ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z) { ushort3 r = {x, y, z}; return r; }
static __host__ __device__ inline ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w) { ushort4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline int1 make_int1(int x) { int1 r = {x}; return r; }
static __host__ __device__ inline int2 make_int2(int x, int y) { int2 r = {x, y}; return r; }
static __host__ __device__ inline int3 make_int3(int x, int y, int z) { int3 r = {x, y, z}; return r; }
static __host__ __device__ inline int4 make_int4(int x, int y, int z, int w) { int4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline uint1 make_uint1(unsigned int x) { uint1 r = {x}; return r; }
static __host__ __device__ inline uint2 make_uint2(unsigned int x, unsigned int y) { uint2 r = {x, y}; return r; }
static __host__ __device__ inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { uint3 r = {x, y, z}; return r; }
static __host__ __device__ inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { uint4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline long1 make_long1(long x) { long1 r = {x}; return r; }
static __host__ __device__ inline long2 make_long2(long x, long y) { long2 r = {x, y}; return r; }
static __host__ __device__ inline long3 make_long3(long x, long y, long z) { long3 r = {x, y, z}; return r; }
static __host__ __device__ inline long4 make_long4(long x, long y, long z, long w) { long4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline ulong1 make_ulong1(unsigned long x) { ulong1 r = {x}; return r; }
static __host__ __device__ inline ulong2 make_ulong2(unsigned long x, unsigned long y) { ulong2 r = {x, y}; return r; }
static __host__ __device__ inline ulong3 make_ulong3(unsigned long x, unsigned long y, unsigned long z) { ulong3 r = {x, y, z}; return r; }
static __host__ __device__ inline ulong4 make_ulong4(unsigned long x, unsigned long y, unsigned long z, unsigned long w) { ulong4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline longlong1 make_longlong1(long long x) { longlong1 r = {x}; return r; }
static __host__ __device__ inline longlong2 make_longlong2(long long x, long long y) { longlong2 r = {x, y}; return r; }
static __host__ __device__ inline longlong3 make_longlong3(long long x, long long y, long long z) { longlong3 r = {x, y, z}; return r; }
static __host__ __device__ inline longlong4 make_longlong4(long long x, long long y, long long z, long long w) { longlong4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline ulonglong1 make_ulonglong1(unsigned long long x) { ulonglong1 r = {x}; return r; }
static __host__ __device__ inline ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y) { ulonglong2 r = {x, y}; return r; }
static __host__ __device__ inline ulonglong3 make_ulonglong3(unsigned long long x, unsigned long long y, unsigned long long z) { ulonglong3 r = {x, y, z}; return r; }
static __host__ __device__ inline ulonglong4 make_ulonglong4(unsigned long long x, unsigned long long y, unsigned long long z, unsigned long long w) { ulonglong4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline float1 make_float1(float x) { float1 r = {x}; return r; }
static __host__ __device__ inline float2 make_float2(float x, float y) { float2 r = {x, y}; return r; }
static __host__ __device__ inline float3 make_float3(float x, float y, float z) { float3 r = {x, y, z}; return r; }
static __host__ __device__ inline float4 make_float4(float x, float y, float z, float w) { float4 r = {x, y, z, w}; return r; }
static __host__ __device__ inline double1 make_double1(double x) { double1 r = {x}; return r; }
static __host__ __device__ inline double2 make_double2(double x, double y) { double2 r = {x, y}; return r; }
static __host__ __device__ inline double3 make_double3(double x, double y, double z) { double3 r = {x, y, z}; return r; }
static __host__ __device__ inline double4 make_double4(double x, double y, double z, double w) { double4 r = {x, y, z, w}; return r; }

/* dim3 and the built-in index variables as clang's CUDA wrapper gives them (clang's
 * __clang_cuda_builtin_vars.h: threadIdx.x reads llvm.nvvm.read.ptx.sreg.tid.x). */
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
#include <__clang_cuda_builtin_vars.h>
#define __SYNCFIX_BUILTIN_CONVERSIONS(V)                                                           \
  __device__ inline __cuda_builtin_##V##_t::operator dim3() const { return dim3(x, y, z); }          \
  __device__ inline __cuda_builtin_##V##_t::operator uint3() const { return {x, y, z}; }
__SYNCFIX_BUILTIN_CONVERSIONS(threadIdx)
__SYNCFIX_BUILTIN_CONVERSIONS(blockIdx)
__SYNCFIX_BUILTIN_CONVERSIONS(blockDim)
__SYNCFIX_BUILTIN_CONVERSIONS(gridDim)
#undef __SYNCFIX_BUILTIN_CONVERSIONS

/* ---- The device library: clang's own CUDA headers ---------------------------------------------
 * clang's CUDA wrapper headers define the device library over libdevice (__nv_*) and NVVM
 * built-ins, as clang compiles real CUDA: math functions (all of CUDA's math API: frexp, sincos,
 * rsqrtf, __fdividef, ...), integer intrinsics (__mul24, __popc, ...), fences, barriers with a
 * result (__syncthreads_count), clock(), warp functions (__shfl_*_sync, __ballot_sync,
 * __activemask, __syncwarp, __match_*_sync) and __ldg. syncfix's lowering gives libdevice its
 * meaning (crates/frontend/src/lower/library.rs): math functions are uninterpreted, integer
 * functions exact, results written through pointers (sincos, frexp) are writes; warp values
 * are arbitrary, __syncwarp(mask) is a barrier among the warp's lanes in mask, __ldg is a
 * load. CUDA's own headers, which clang's include next, are not part
 * of syncfix; what they add and a kernel needs is declared below. */
#ifndef CUDA_VERSION
#define CUDA_VERSION 12040
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION 12040
#endif
typedef unsigned int cuuint32_t;
typedef unsigned long long cuuint64_t;
#include <limits.h>
#ifndef HUGE_VAL
#define HUGE_VAL __builtin_huge_val()
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __builtin_huge_valf()
#endif
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>
#include <__clang_cuda_cmath.h>
#include <__clang_cuda_intrinsics.h>

/* Device-side printf: output only (lowered by syncfix to nothing). */
extern "C" __device__ int printf(const char *format, ...);
extern "C" __device__ int vprintf(const char *format, const char *args);

extern "C" {
/* Statement boundaries left by syncfix's front end (never in user code). */
__device__ void __syncfix_anchor(int);
__device__ void __syncfix_anchor_end(int);
__device__ void __syncfix_split(int);
/* A grid-wide barrier (cooperative groups). */
__device__ void __syncfix_grid_sync(void);
/* A barrier among the `size` threads of one tile (consecutive linear thread ids: tile =
 * linear id / size), or of the whole block for 0 (cooperative groups' sync()). */
__device__ void __syncfix_tile_sync(unsigned int size);
}

/* GPUVerify's annotation language. */
#include "syncfix_annotations.h"

/* `__syncthreads()` is a clang builtin (llvm.nvvm.barrier0). */

/* Cooperative groups (CUDA Programming Guide, "Cooperative Groups"): the block and the grid
 * with their barriers, and tiles of a block. A tile of N threads is N consecutive linear
 * thread ids (x fastest), as CUDA partitions a block; its sync() is a tile barrier
 * (__syncfix_tile_sync) that orders the threads of one tile only. The dynamic
 * tiled_partition(parent, n) gives a thread_group whose size is read at run time: syncfix
 * takes 0 (a block) and the powers of two up to 32, as CUDA does. Shuffles and votes of a tile return arbitrary values, as the warp intrinsics
 * do. Not declared: coalesced groups, cluster groups, labelled partitions. */
namespace cooperative_groups {
__device__ __forceinline__ unsigned int __syncfix_linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ unsigned int __syncfix_block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
/* A group of threads: the block (`__syncfix_tile == 0`) or a tile of that many threads. */
class thread_group {
public:
  unsigned int __syncfix_tile;
  __device__ explicit thread_group(unsigned int tile) : __syncfix_tile(tile) {}
  __device__ void sync() const { __syncfix_tile_sync(__syncfix_tile); }
  __device__ unsigned int num_threads() const { return __syncfix_tile == 0 ? __syncfix_block_threads() : __syncfix_tile; }
  __device__ unsigned int size() const { return num_threads(); }
  __device__ unsigned int thread_rank() const {
    return __syncfix_tile == 0 ? __syncfix_linear_tid() : __syncfix_linear_tid() % __syncfix_tile;
  }
};
class thread_block : public thread_group {
public:
  __device__ thread_block() : thread_group(0) {}
  __device__ void sync() const { __syncthreads(); }
  __device__ unsigned int thread_rank() const { return __syncfix_linear_tid(); }
  __device__ unsigned int num_threads() const { return __syncfix_block_threads(); }
  __device__ unsigned int size() const { return __syncfix_block_threads(); }
  __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ dim3 dim_threads() const { return group_dim(); }
};
class grid_group {
public:
  __device__ void sync() const { __syncfix_grid_sync(); }
  __device__ bool is_valid() const { return true; }
  __device__ unsigned long long num_threads() const {
    return (unsigned long long)__syncfix_block_threads() * gridDim.x * gridDim.y * gridDim.z;
  }
  __device__ unsigned long long size() const { return num_threads(); }
  __device__ unsigned long long block_rank() const { return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z); }
  __device__ unsigned long long thread_rank() const { return block_rank() * __syncfix_block_threads() + __syncfix_linear_tid(); }
  __device__ unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  __device__ dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ dim3 dim_blocks() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
};
/* A tile of Size threads (tiled_partition<Size>(parent)); Size <= 32 in CUDA, any size here.
 * As in CUDA, a tile of a known parent converts to thread_block_tile<Size> (parent void). */
template <unsigned int Size, class ParentT = void> class thread_block_tile;
template <unsigned int Size>
class thread_block_tile<Size, void> {
  __device__ static unsigned int __mask() {
    return Size >= 32 ? 0xffffffffu : ((1u << Size) - 1u) << (__syncfix_linear_tid() % 32u / Size * Size);
  }
public:
  __device__ void sync() const { __syncfix_tile_sync(Size); }
  __device__ unsigned int thread_rank() const { return __syncfix_linear_tid() % Size; }
  __device__ unsigned int num_threads() const { return Size; }
  __device__ unsigned int size() const { return Size; }
  __device__ unsigned int meta_group_rank() const { return __syncfix_linear_tid() / Size; }
  __device__ unsigned int meta_group_size() const { return (__syncfix_block_threads() + Size - 1) / Size; }
  __device__ operator thread_group() const { return thread_group(Size); }
  template <class T> __device__ T shfl(T v, int src) const { return __shfl_sync(__mask(), v, src, Size); }
  template <class T> __device__ T shfl_up(T v, unsigned int d) const { return __shfl_up_sync(__mask(), v, d, Size); }
  template <class T> __device__ T shfl_down(T v, unsigned int d) const { return __shfl_down_sync(__mask(), v, d, Size); }
  template <class T> __device__ T shfl_xor(T v, unsigned int m) const { return __shfl_xor_sync(__mask(), v, m, Size); }
  __device__ int any(int p) const { return __any_sync(__mask(), p); }
  __device__ int all(int p) const { return __all_sync(__mask(), p); }
  __device__ unsigned int ballot(int p) const { return __ballot_sync(__mask(), p); }
};
template <unsigned int Size, class ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {};
__device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }
__device__ __forceinline__ grid_group this_grid() { return grid_group(); }
template <unsigned int Size, class ParentT>
__device__ __forceinline__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &) {
  return thread_block_tile<Size, ParentT>();
}
__device__ __forceinline__ thread_group tiled_partition(const thread_group &, unsigned int tile) { return thread_group(tile); }
template <class G> __device__ __forceinline__ void sync(const G &g) { g.sync(); }
__device__ __forceinline__ void synchronize(const thread_block &g) { g.sync(); }
__device__ __forceinline__ void synchronize(const grid_group &g) { g.sync(); }
template <unsigned int Size, class ParentT>
__device__ __forceinline__ void synchronize(const thread_block_tile<Size, ParentT> &g) { g.sync(); }
} // namespace cooperative_groups

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

/* ---- min and max (CUDA's crt/math_functions.hpp): the overloads clang's headers leave out
 * (they define min(int, int) and max(int, int)); lowered exactly by syncfix. */
__device__ unsigned int min(unsigned int x, unsigned int y);
__device__ unsigned int min(int x, unsigned int y);
__device__ unsigned int min(unsigned int x, int y);
__device__ long min(long x, long y);
__device__ unsigned long min(unsigned long x, unsigned long y);
__device__ long long min(long long x, long long y);
__device__ unsigned long long min(unsigned long long x, unsigned long long y);
__device__ float min(float x, float y) __attribute__((const));
__device__ double min(double x, double y) __attribute__((const));
__device__ unsigned int max(unsigned int x, unsigned int y);
__device__ unsigned int max(int x, unsigned int y);
__device__ unsigned int max(unsigned int x, int y);
__device__ long max(long x, long y);
__device__ unsigned long max(unsigned long x, unsigned long y);
__device__ long long max(long long x, long long y);
__device__ unsigned long long max(unsigned long long x, unsigned long long y);
__device__ float max(float x, float y) __attribute__((const));
__device__ double max(double x, double y) __attribute__((const));
/* Host code calls them too (CUDA's crt/math_functions.hpp defines them __host__ __device__). */
#include "syncfix_host_minmax.h"

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
 * (cudaTextureObject_t, `tex2D<float>(obj, x, y)`) are read the same way: a fresh value of the
 * requested type per fetch. Surfaces are not modelled: their functions are not declared, so a
 * kernel using them gets clang's error naming the function. */
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
/* CUDA's texture_types.h. */
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2, cudaAddressModeBorder = 3 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
typedef unsigned long long cudaTextureObject_t;

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
template <class T, class... Coords> __device__ T __syncfix_texture_object_fetch(cudaTextureObject_t t, Coords... coords);
/* Each fetch function for a texture reference (taken by reference: its value, a texture
 * handle, is never read) and for a texture object (`tex2D<float>(obj, x, y)`, and the form
 * that returns through a pointer, which writes it). */
#define __SYNCFIX_TEX(NAME, PARAMS, ARGS)                                                                  \
  template <class T, int K, enum cudaTextureReadMode M>                                                    \
  static __device__ inline typename texture<T, K, M>::__syncfix_value NAME(const texture<T, K, M> &t, PARAMS) { \
    return __syncfix_texture_fetch<texture<T, K, M> >(ARGS);                                               \
  }                                                                                                        \
  template <class T> static __device__ inline T NAME(cudaTextureObject_t t, PARAMS) {                      \
    return __syncfix_texture_object_fetch<T>(t, ARGS);                                                     \
  }                                                                                                        \
  template <class T> static __device__ inline void NAME(T *ret, cudaTextureObject_t t, PARAMS) {           \
    *ret = __syncfix_texture_object_fetch<T>(t, ARGS);                                                     \
  }
#define __SYNCFIX_COMMA ,
__SYNCFIX_TEX(tex1Dfetch, int x, x)
__SYNCFIX_TEX(tex1D, float x, x)
__SYNCFIX_TEX(tex2D, float x __SYNCFIX_COMMA float y, x __SYNCFIX_COMMA y)
__SYNCFIX_TEX(tex3D, float x __SYNCFIX_COMMA float y __SYNCFIX_COMMA float z, x __SYNCFIX_COMMA y __SYNCFIX_COMMA z)
__SYNCFIX_TEX(tex1DLayered, float x __SYNCFIX_COMMA int layer, x __SYNCFIX_COMMA layer)
__SYNCFIX_TEX(tex2DLayered, float x __SYNCFIX_COMMA float y __SYNCFIX_COMMA int layer, x __SYNCFIX_COMMA y __SYNCFIX_COMMA layer)
__SYNCFIX_TEX(texCubemap, float x __SYNCFIX_COMMA float y __SYNCFIX_COMMA float z, x __SYNCFIX_COMMA y __SYNCFIX_COMMA z)
__SYNCFIX_TEX(texCubemapLayered, float x __SYNCFIX_COMMA float y __SYNCFIX_COMMA float z __SYNCFIX_COMMA int layer, x __SYNCFIX_COMMA y __SYNCFIX_COMMA z __SYNCFIX_COMMA layer)
__SYNCFIX_TEX(tex1DLod, float x __SYNCFIX_COMMA float level, x __SYNCFIX_COMMA level)
__SYNCFIX_TEX(tex2DLod, float x __SYNCFIX_COMMA float y __SYNCFIX_COMMA float level, x __SYNCFIX_COMMA y __SYNCFIX_COMMA level)
__SYNCFIX_TEX(tex3DLod, float x __SYNCFIX_COMMA float y __SYNCFIX_COMMA float z __SYNCFIX_COMMA float level, x __SYNCFIX_COMMA y __SYNCFIX_COMMA z __SYNCFIX_COMMA level)
#undef __SYNCFIX_TEX
#undef __SYNCFIX_COMMA

/* The host side of the CUDA runtime API, for the host code of a whole program. */
#include "syncfix_cuda_runtime.h"

#endif /* SYNCFIX_CUDA_PRELUDE_H */
