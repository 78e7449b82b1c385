/* syncfix's OpenCL C prelude: force-included before every OpenCL kernel (DESIGN §3).
 *
 * clang already declares OpenCL C's built-in functions (`-fdeclare-opencl-builtins`) and
 * types (`opencl-c-base.h`). The built-ins need no text here:
 *   - those declared `const` (math, conversions, popcount...) are lowered as uninterpreted
 *     functions of their arguments;
 *   - syncfix's lowering gives the others their meaning by name (crates/frontend/src/lower/
 *     library.rs): atomics, the integer functions it computes exactly (add_sat, mul24,
 *     clamp...), memory fences, prefetch, the math functions with pointer results (sincos...).
 * This prelude adds the work-item functions and barriers the lowering recognises, GPUVerify's
 * annotation language, and asynchronous copies with an integer `event_t` (clang's opaque event
 * type cannot be read by syncfix's IR reader). It stays small on purpose: clang's AST of every
 * kernel, which syncfix reads, includes it. Nothing here is `always_inline`: syncfix inlines
 * calls itself, keeping source locations.
 */
#ifndef SYNCFIX_OPENCL_PRELUDE_H
#define SYNCFIX_OPENCL_PRELUDE_H

/* GPUVerify's front end enables these extensions for every kernel; so does syncfix. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

typedef uint cl_mem_fence_flags;
#undef CLK_LOCAL_MEM_FENCE
#undef CLK_GLOBAL_MEM_FENCE
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

/* ---- Work-item functions and barriers (recognised by name by the lowering) ---------------- */

uint get_work_dim(void);
size_t get_global_size(uint dimindx);
size_t get_global_id(uint dimindx);
size_t get_local_size(uint dimindx);
size_t get_local_id(uint dimindx);
size_t get_num_groups(uint dimindx);
size_t get_group_id(uint dimindx);
size_t get_global_offset(uint dimindx);

void barrier(cl_mem_fence_flags flags);
void work_group_barrier(cl_mem_fence_flags flags);

/* Statement boundaries left by syncfix's front end (never in user code). */
void __syncfix_anchor(int);
void __syncfix_split(int);

/* GPUVerify's annotation language. */
#include "syncfix_annotations.h"

/* OpenCL 2.0's flattened ids (for kernels written for OpenCL 2.0). */
#define get_local_linear_id() (get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)))
#define get_enqueued_local_size(d) get_local_size(d)

/* ---- Asynchronous copies (OpenCL 1.2 §6.12.10) -----------------------------------------------
 * GPUVerify's model, as its test suite pins it down:
 *   - a copy is a work-group operation: every work-item of the group must reach it (a barrier
 *     without fences checks that; it orders nothing);
 *   - the copy's accesses are made by the work-items of the group, but an element is not
 *     necessarily copied by the work-item that later uses it: element e is copied by work-item
 *     ((e - r) mod n) mod size for a rotation r that is arbitrary, the same within a group and
 *     different per call site;
 *   - `wait_group_events` waits for the copies but is not a barrier: other work-items see the
 *     copied data only after a barrier too (suite: async_work_group_copy/fail/test14).
 * The data copied does not matter to the verdict (other work-items' writes become visible
 * only at a barrier, where shared arrays are havocked anyway), so each work-item copies one
 * arbitrary element of its share: this makes every access of the copy possible without a loop.
 * Events are plain integers, not tracked: since waiting orders nothing, which events a wait
 * names does not matter. FIXME: so the copy's accesses happen at the call, and a barrier between
 * the copy and its wait orders them, where GPUVerify keeps them pending until the wait
 * (async_work_group_copy/fail/test13 is verified). Modelling that needs a KIR construct for
 * accesses that barriers do not order until a later point. */
typedef uint __syncfix_event_t;
#define event_t __syncfix_event_t

/* The element this work-item copies in a copy of `n` elements at call site `site`, or `n` if
 * none; and the copy of one element of `bytes` bytes from `src + src_offset` to
 * `dst + dst_offset`. Both are lowered by syncfix (library.rs). */
size_t __syncfix_async_element(size_t n, uint site);
void __attribute__((overloadable)) __syncfix_copy_element(__local void *dst, size_t dst_offset, const __global void *src,
                                                          size_t src_offset, size_t bytes);
void __attribute__((overloadable)) __syncfix_copy_element(__global void *dst, size_t dst_offset, const __local void *src,
                                                          size_t src_offset, size_t bytes);

/* Global to local memory; the source is read every `stride` elements (strided copy). */
static inline event_t __attribute__((overloadable))
__syncfix_async_copy(__local void *dst, const __global void *src, size_t n, size_t stride, event_t event, uint site, size_t bytes) {
  barrier(0);
  size_t e = __syncfix_async_element(n, site);
  if (e < n)
    __syncfix_copy_element(dst, e * bytes, src, e * stride * bytes, bytes);
  return event != 0 ? event : site + 1;
}
/* Local to global memory; the destination is written every `stride` elements. */
static inline event_t __attribute__((overloadable))
__syncfix_async_copy(__global void *dst, const __local void *src, size_t n, size_t stride, event_t event, uint site, size_t bytes) {
  barrier(0);
  size_t e = __syncfix_async_element(n, site);
  if (e < n)
    __syncfix_copy_element(dst, e * stride * bytes, src, e * bytes, bytes);
  return event != 0 ? event : site + 1;
}
#define async_work_group_copy(dst, src, n, event)                                                  \
  __syncfix_async_copy((dst), (src), (n), 1, (event), __COUNTER__, sizeof(*(dst)))
#define async_work_group_strided_copy(dst, src, n, stride, event)                                  \
  __syncfix_async_copy((dst), (src), (n), (stride), (event), __COUNTER__, sizeof(*(dst)))

/* Waiting is a work-group operation too (every work-item must reach it: a barrier without
 * fences), but it orders nothing between work-items. */
static inline void __syncfix_wait_group_events(int num_events, event_t *event_list) { barrier(0); }
#define wait_group_events(num_events, event_list) __syncfix_wait_group_events((num_events), (event_list))

#endif /* SYNCFIX_OPENCL_PRELUDE_H */
