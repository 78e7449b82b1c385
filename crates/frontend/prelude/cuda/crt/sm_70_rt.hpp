/* syncfix: what CUDA's crt/sm_70_rt.hpp adds to clang's __clang_cuda_intrinsics.h, which
 * includes it: the overloads of the warp match functions. Their values are arbitrary to
 * syncfix (the other lanes are not modelled). */
#pragma once
static __device__ inline unsigned int __match_any_sync(unsigned int mask, unsigned int value) { return __match32_any_sync(mask, value); }
static __device__ inline unsigned int __match_any_sync(unsigned int mask, int value) { return __match32_any_sync(mask, value); }
static __device__ inline unsigned int __match_any_sync(unsigned int mask, unsigned long long value) { return __match64_any_sync(mask, value); }
static __device__ inline unsigned int __match_any_sync(unsigned int mask, long long value) { return __match64_any_sync(mask, value); }
static __device__ inline unsigned int __match_all_sync(unsigned int mask, unsigned int value, int *pred) { return __match32_all_sync(mask, value, pred); }
static __device__ inline unsigned int __match_all_sync(unsigned int mask, int value, int *pred) { return __match32_all_sync(mask, value, pred); }
static __device__ inline unsigned int __match_all_sync(unsigned int mask, unsigned long long value, int *pred) { return __match64_all_sync(mask, value, pred); }
static __device__ inline unsigned int __match_all_sync(unsigned int mask, long long value, int *pred) { return __match64_all_sync(mask, value, pred); }
