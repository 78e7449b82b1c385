/* min and max for host code, included by both CUDA preludes: nvcc's crt/math_functions.hpp
 * defines them __host__ __device__, clang's CUDA headers device-only, so a program's host code
 * that calls them (HeCBench's do) compiles with nvcc but not with clang. These are the host
 * halves (clang overloads on the execution space). */
#ifndef SYNCFIX_HOST_MINMAX_H
#define SYNCFIX_HOST_MINMAX_H
#define __SYNCFIX_HOST_MINMAX(T) \
  static __host__ inline T min(T x, T y) { return y < x ? y : x; } \
  static __host__ inline T max(T x, T y) { return x < y ? y : x; }
__SYNCFIX_HOST_MINMAX(int)
__SYNCFIX_HOST_MINMAX(unsigned int)
__SYNCFIX_HOST_MINMAX(long)
__SYNCFIX_HOST_MINMAX(unsigned long)
__SYNCFIX_HOST_MINMAX(long long)
__SYNCFIX_HOST_MINMAX(unsigned long long)
__SYNCFIX_HOST_MINMAX(float)
__SYNCFIX_HOST_MINMAX(double)
#undef __SYNCFIX_HOST_MINMAX
#endif
