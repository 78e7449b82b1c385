/* syncfix's CUDA prelude over a real CUDA toolkit (`--cuda-path`, `CUDA_PATH`, /usr/local/cuda):
 * force-included (precompiled) after clang's CUDA runtime wrapper, which includes the toolkit's
 * own headers (cuda_runtime.h, the device functions, vector types, textures, atomics). Only
 * what the toolkit does not have is declared here: the statement markers of syncfix's front
 * end, its barrier functions and GPUVerify's annotation language.
 *
 * Calls into the toolkit keep their real bodies; syncfix's lowering gives meaning to what
 * they bottom out in: NVVM intrinsics (crates/frontend/src/lower/library/libdevice.rs),
 * libdevice's functions (`__nv_*`, bodiless: clang runs with -nocudalib), inline PTX
 * (crates/frontend/src/lower/ptx.rs) and cooperative groups' grid_group::sync() (a grid
 * barrier).
 */
#ifndef SYNCFIX_CUDA_TOOLKIT_PRELUDE_H
#define SYNCFIX_CUDA_TOOLKIT_PRELUDE_H

/* Statement boundaries left by syncfix's front end (never in user code). */
__device__ void __syncfix_anchor(int);
__device__ void __syncfix_anchor_end(int);
__device__ void __syncfix_split(int);
/* A grid-wide barrier and a barrier among the `size` threads of one tile (as in syncfix's
 * own prelude; GPUVerify-style kernels may call them through the annotation headers). */
__device__ void __syncfix_grid_sync(void);
__device__ void __syncfix_tile_sync(unsigned int size);

/* min and max for host code: nvcc's crt/math_functions.hpp defines them __host__ __device__,
 * clang's CUDA wrapper device-only, so a program's host code that calls them (HeCBench's do)
 * compiles with nvcc but not with clang. These are the host halves (clang overloads on the
 * execution space). */
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

/* GPUVerify's annotation language. */
#include "syncfix_annotations.h"

#endif
