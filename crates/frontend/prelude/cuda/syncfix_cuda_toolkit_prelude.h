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

/* min and max for host code, as in syncfix's own prelude. */
#include "syncfix_host_minmax.h"

/* GPUVerify's annotation language. */
#include "syncfix_annotations.h"

#endif
