/* syncfix's stand-in for CUDA's cuda_fp16.h (CUDA Math API, "Half Precision Intrinsics"): the
 * types __half and __half2 with CUDA's sizes (2 and 4 bytes) and alignments, conversions and
 * arithmetic. As every floating-point operation in syncfix, half-precision values are bits
 * and their operations uninterpreted: a conversion is libdevice's __nv_float2half_rn /
 * __nv_half2float (deterministic, unknown functions), and arithmetic is done in float, as
 * the hardware's results are not needed to find races. */
#ifndef SYNCFIX_CUDA_FP16_H
#define SYNCFIX_CUDA_FP16_H
struct __align__(2) __half {
  unsigned short __x;
  __half() = default;
  __host__ __device__ __half(float f) : __x(__nv_float2half_rn(f)) {}
  __host__ __device__ __half(double f) : __x(__nv_float2half_rn((float)f)) {}
  __host__ __device__ __half(int i) : __x(__nv_float2half_rn((float)i)) {}
  __host__ __device__ __half(unsigned int i) : __x(__nv_float2half_rn((float)i)) {}
  __host__ __device__ operator float() const { return __nv_half2float(__x); }
  __host__ __device__ __half &operator=(float f) { __x = __nv_float2half_rn(f); return *this; }
};
struct __align__(4) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half half;
typedef __half2 half2;
typedef struct { unsigned short x; } __half_raw;
typedef struct { unsigned short x, y; } __half2_raw;
static __host__ __device__ inline float __half2float(__half h) { return (float)h; }
static __host__ __device__ inline __half __float2half(float f) { return __half(f); }
static __host__ __device__ inline __half __float2half_rn(float f) { return __half(f); }
static __host__ __device__ inline __half __float2half_rz(float f) { return __half(f); }
static __host__ __device__ inline __half __double2half(double f) { return __half((float)f); }
static __host__ __device__ inline __half __int2half_rn(int i) { return __half((float)i); }
static __host__ __device__ inline __half __uint2half_rn(unsigned int i) { return __half((float)i); }
static __host__ __device__ inline int __half2int_rn(__half h) { return (int)(float)h; }
static __host__ __device__ inline int __half2int_rz(__half h) { return (int)(float)h; }
static __host__ __device__ inline unsigned short __half_as_ushort(__half h) { return h.__x; }
static __host__ __device__ inline short __half_as_short(__half h) { return (short)h.__x; }
static __host__ __device__ inline __half __ushort_as_half(unsigned short u) { __half h; h.__x = u; return h; }
static __host__ __device__ inline __half __short_as_half(short s) { __half h; h.__x = (unsigned short)s; return h; }
static __host__ __device__ inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
static __host__ __device__ inline __half2 __half2half2(__half a) { return __half2(a, a); }
static __host__ __device__ inline __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
static __host__ __device__ inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
static __host__ __device__ inline float2 __half22float2(__half2 h) { return make_float2((float)h.x, (float)h.y); }
static __host__ __device__ inline __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
static __host__ __device__ inline float __low2float(__half2 h) { return (float)h.x; }
static __host__ __device__ inline float __high2float(__half2 h) { return (float)h.y; }
static __host__ __device__ inline __half __low2half(__half2 h) { return h.x; }
static __host__ __device__ inline __half __high2half(__half2 h) { return h.y; }
static __host__ __device__ inline __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }
#define __SYNCFIX_H_BIN(NAME, OP) \
  static __host__ __device__ inline __half NAME(__half a, __half b) { return __half((float)a OP (float)b); } \
  static __host__ __device__ inline __half2 NAME##2(__half2 a, __half2 b) { return __half2(NAME(a.x, b.x), NAME(a.y, b.y)); }
__SYNCFIX_H_BIN(__hadd, +)
__SYNCFIX_H_BIN(__hsub, -)
__SYNCFIX_H_BIN(__hmul, *)
__SYNCFIX_H_BIN(__hdiv, /)
#undef __SYNCFIX_H_BIN
static __host__ __device__ inline __half2 __h2div(__half2 a, __half2 b) { return __hdiv2(a, b); }
static __host__ __device__ inline __half __hfma(__half a, __half b, __half c) { return __half((float)a * (float)b + (float)c); }
static __host__ __device__ inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
static __host__ __device__ inline __half __hneg(__half a) { return __half(-(float)a); }
static __host__ __device__ inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
static __host__ __device__ inline __half __habs(__half a) { return __half(fabsf((float)a)); }
static __host__ __device__ inline __half __hmax(__half a, __half b) { return __half(fmaxf((float)a, (float)b)); }
static __host__ __device__ inline __half __hmin(__half a, __half b) { return __half(fminf((float)a, (float)b)); }
static __host__ __device__ inline bool __heq(__half a, __half b) { return (float)a == (float)b; }
static __host__ __device__ inline bool __hne(__half a, __half b) { return (float)a != (float)b; }
static __host__ __device__ inline bool __hlt(__half a, __half b) { return (float)a < (float)b; }
static __host__ __device__ inline bool __hle(__half a, __half b) { return (float)a <= (float)b; }
static __host__ __device__ inline bool __hgt(__half a, __half b) { return (float)a > (float)b; }
static __host__ __device__ inline bool __hge(__half a, __half b) { return (float)a >= (float)b; }
static __host__ __device__ inline bool __hisnan(__half a) { return isnan((float)a); }
static __device__ inline __half hsqrt(__half a) { return __half(sqrtf((float)a)); }
static __device__ inline __half hrsqrt(__half a) { return __half(rsqrtf((float)a)); }
static __device__ inline __half hexp(__half a) { return __half(expf((float)a)); }
static __device__ inline __half hlog(__half a) { return __half(logf((float)a)); }
static __device__ inline __half hrcp(__half a) { return __half(1.0f / (float)a); }
static __device__ inline __half htanh(__half a) { return __half(tanhf((float)a)); }
#define __SYNCFIX_H_OP(OP) \
  static __host__ __device__ inline __half operator OP(__half a, __half b) { return __half((float)a OP (float)b); } \
  static __host__ __device__ inline __half &operator OP##=(__half &a, __half b) { a = a OP b; return a; } \
  static __host__ __device__ inline __half2 operator OP(__half2 a, __half2 b) { return __half2(a.x OP b.x, a.y OP b.y); } \
  static __host__ __device__ inline __half2 &operator OP##=(__half2 &a, __half2 b) { a = a OP b; return a; }
__SYNCFIX_H_OP(+)
__SYNCFIX_H_OP(-)
__SYNCFIX_H_OP(*)
__SYNCFIX_H_OP(/)
#undef __SYNCFIX_H_OP
static __host__ __device__ inline __half operator-(__half a) { return __hneg(a); }
#define __SYNCFIX_H_CMP(OP) \
  static __host__ __device__ inline bool operator OP(__half a, __half b) { return (float)a OP (float)b; }
__SYNCFIX_H_CMP(==)
__SYNCFIX_H_CMP(!=)
__SYNCFIX_H_CMP(<)
__SYNCFIX_H_CMP(<=)
__SYNCFIX_H_CMP(>)
__SYNCFIX_H_CMP(>=)
#undef __SYNCFIX_H_CMP
#endif
