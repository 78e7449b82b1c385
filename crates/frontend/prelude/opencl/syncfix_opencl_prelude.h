/* syncfix's OpenCL C prelude: force-included before every OpenCL kernel (ARCHITECTURE.md, "crates/frontend").
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

/* syncfix inlines every call itself, keeping the call chain for source locations (a barrier
 * site at the call of a function that accesses memory); clang's always-inliner would drop it.
 * A user's `__attribute__((always_inline))` becomes `noinline` for clang (syncfix still
 * inlines). The driver passes -fgnu89-inline, so that a plain `inline` function is emitted
 * rather than left to an external definition that does not exist. */
#define always_inline noinline
#define __always_inline__ noinline

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
void __syncfix_anchor_end(int);
void __syncfix_split(int);

/* GPUVerify's annotation language. */
#include "syncfix_annotations.h"

/* OpenCL 2.0's flattened ids (for kernels written for OpenCL 2.0). */
#define get_local_linear_id() (get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)))
#define get_enqueued_local_size(d) get_local_size(d)

/* ---- Asynchronous copies (OpenCL 1.2 §6.12.10) -----------------------------------------------
 * GPUVerify's model, as its test suite pins it down:
 *   - a copy is a work-group operation: every work-item of the group must reach it (a
 *     precondition of the call; it orders nothing);
 *   - the copy's accesses are made by the work-items of the group, but an element is not
 *     necessarily copied by the work-item that later uses it: element e is copied by work-item
 *     ((e - r) mod n) mod size for a rotation r that is arbitrary, the same within a group and
 *     different per call site;
 *   - `wait_group_events` waits for the copies but is not a barrier: other work-items see the
 *     copied data only after a barrier too (suite: async_work_group_copy/fail/test14).
 * The data copied does not matter to the verdict (other work-items' writes become visible
 * only at a barrier, where shared arrays are havocked anyway), so each work-item copies one
 * arbitrary element of its share: this makes every access of the copy possible without a loop.
 *   - a copy's accesses stay unordered by barriers until the work-item waits (suite:
 *     async_work_group_copy/fail/test13).
 * Events are plain integers, not tracked: a wait completes every copy of the work-item so far,
 * even one whose event it does not name (a race through a copy that only a later wait for
 * another event completes is missed). */
typedef uint __syncfix_event_t;
/* A work-group function must be reached by every work-item of the group (OpenCL 1.2 §6.12.10),
 * a precondition of the call as GPUVerify checks it (not barrier divergence: it orders
 * nothing). */
#define __syncfix_reached_by_the_group() __requires(!__same_group | __other_bool(__enabled()))
#define event_t __syncfix_event_t

/* The work-item's asynchronous copies are complete (lowered by syncfix: until then, barriers
 * do not order the copies' writes). */
void __syncfix_async_wait(void);
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
  /* Its arguments must be the same for every work-item of the group (OpenCL 1.2 §6.12.10). */
  __syncfix_reached_by_the_group();
  __requires(!__same_group | (event == __other_int(event)));
  size_t e = __syncfix_async_element(n, site);
  if (e < n)
    __syncfix_copy_element(dst, e * bytes, src, e * stride * bytes, bytes);
  return event != 0 ? event : site + 1;
}
/* Local to global memory; the destination is written every `stride` elements. */
static inline event_t __attribute__((overloadable))
__syncfix_async_copy(__global void *dst, const __local void *src, size_t n, size_t stride, event_t event, uint site, size_t bytes) {
  __syncfix_reached_by_the_group();
  __requires(!__same_group | (event == __other_int(event)));
  size_t e = __syncfix_async_element(n, site);
  if (e < n)
    __syncfix_copy_element(dst, e * stride * bytes, src, e * bytes, bytes);
  return event != 0 ? event : site + 1;
}
#define async_work_group_copy(dst, src, n, event)                                                  \
  __syncfix_async_copy((dst), (src), (n), 1, (event), __COUNTER__, sizeof(*(dst)))
#define async_work_group_strided_copy(dst, src, n, stride, event)                                  \
  __syncfix_async_copy((dst), (src), (n), (stride), (event), __COUNTER__, sizeof(*(dst)))

/* Waiting is a work-group operation too (every work-item must reach it), but it orders nothing
 * between work-items. */
static inline void __syncfix_wait_group_events(int num_events, event_t *event_list) {
  /* Its arguments must be the same for every work-item of the group (OpenCL 1.2 §6.12.10). */
  __syncfix_reached_by_the_group();
  __requires(!__same_group | (num_events == __other_int(num_events)));
  __requires(!__same_group | (num_events < 1) | (event_list[0] == __other_int(event_list[0])));
  __syncfix_async_wait();
}
#define wait_group_events(num_events, event_list) __syncfix_wait_group_events((num_events), (event_list))

/* ---- Images and samplers (OpenCL 1.2 §6.12.14) -----------------------------------------------
 * An image is a global array of texels (16 bytes: four 32-bit channels), addressed by its
 * integer coordinates: a 1-D image as `texel[x]`, a 2-D image as rows of 2^20 texels
 * (`texel[y][x]`), a 3-D image as slices of 2^16 x 2^16 texels (`texel[z][y][x]`); an image
 * array's layer is one more coordinate (image1d_array_t is 2-D, image2d_array_t 3-D). Devices
 * report image sizes below these strides (CL_DEVICE_IMAGE2D_MAX_WIDTH and _3D_ are at most
 * 65536 on known devices), so two writes in range conflict exactly when their coordinates are
 * equal; a write out of range is undefined behaviour in OpenCL and is not checked.
 *   - `write_image{f,i,ui}` writes the texel at its coordinates;
 *   - `read_image{f,i,ui}` returns an arbitrary value (a sampler may filter, clamp or
 *     normalise, and an OpenCL 1.2 kernel never writes an image it reads, so a read cannot
 *     race); it is not an access;
 *   - `get_image_*` return arbitrary values.
 * Access qualifiers are erased: clang's image types cannot be read by syncfix's IR reader, and
 * the model needs none. A sampler is an integer (its CLK_* flags). */
#define read_only
#define __read_only
#define write_only
#define __write_only
#define read_write
#define __read_write
struct __syncfix_image1d { float4 texel; };
struct __syncfix_image2d { float4 texel[1 << 20]; };
struct __syncfix_image3d { float4 texel[1 << 16][1 << 16]; };
typedef __global struct __syncfix_image1d *__syncfix_image1d_t;
typedef __global struct __syncfix_image2d *__syncfix_image2d_t;
typedef __global struct __syncfix_image3d *__syncfix_image3d_t;
#define image1d_t __syncfix_image1d_t
#define image2d_t __syncfix_image2d_t
#define image3d_t __syncfix_image3d_t
/* Arrays of images index their layer as one more coordinate; a buffer image is 1-D. */
#define image1d_buffer_t __syncfix_image1d_t
#define image1d_array_t __syncfix_image2d_t
#define image2d_array_t __syncfix_image3d_t

/* Arbitrary values (bodiless functions without pointer arguments: a fresh value per call). */
float4 __syncfix_image_value_f(void);
int4 __syncfix_image_value_i(void);
uint4 __syncfix_image_value_ui(void);
int __syncfix_image_size(void);

#define __SYNCFIX_IMAGE_READ(R, T, suffix)                                                         \
  static inline R __attribute__((overloadable)) read_image##suffix(image1d_t i, sampler_t s, int c) { return __syncfix_image_value_##suffix(); } \
  static inline R __attribute__((overloadable)) read_image##suffix(image1d_t i, sampler_t s, float c) { return __syncfix_image_value_##suffix(); } \
  static inline R __attribute__((overloadable)) read_image##suffix(image1d_t i, int c) { return __syncfix_image_value_##suffix(); } \
  static inline R __attribute__((overloadable)) read_image##suffix(image2d_t i, sampler_t s, int2 c) { return __syncfix_image_value_##suffix(); } \
  static inline R __attribute__((overloadable)) read_image##suffix(image2d_t i, sampler_t s, float2 c) { return __syncfix_image_value_##suffix(); } \
  static inline R __attribute__((overloadable)) read_image##suffix(image2d_t i, int2 c) { return __syncfix_image_value_##suffix(); } \
  static inline R __attribute__((overloadable)) read_image##suffix(image3d_t i, sampler_t s, int4 c) { return __syncfix_image_value_##suffix(); } \
  static inline R __attribute__((overloadable)) read_image##suffix(image3d_t i, sampler_t s, float4 c) { return __syncfix_image_value_##suffix(); } \
  static inline R __attribute__((overloadable)) read_image##suffix(image3d_t i, int4 c) { return __syncfix_image_value_##suffix(); } \
  static inline void __attribute__((overloadable)) write_image##suffix(image1d_t i, int c, R v) { *(__global R *)&i[c].texel = v; } \
  static inline void __attribute__((overloadable)) write_image##suffix(image2d_t i, int2 c, R v) { *(__global R *)&i[c.y].texel[c.x] = v; } \
  static inline void __attribute__((overloadable)) write_image##suffix(image3d_t i, int4 c, R v) { *(__global R *)&i[c.z].texel[c.y][c.x] = v; }
__SYNCFIX_IMAGE_READ(float4, float, f)
__SYNCFIX_IMAGE_READ(int4, int, i)
__SYNCFIX_IMAGE_READ(uint4, uint, ui)
#undef __SYNCFIX_IMAGE_READ

#define __SYNCFIX_IMAGE_QUERY(name, R)                                                              \
  static inline R __attribute__((overloadable)) name(image1d_t i) { return (R)__syncfix_image_size(); } \
  static inline R __attribute__((overloadable)) name(image2d_t i) { return (R)__syncfix_image_size(); } \
  static inline R __attribute__((overloadable)) name(image3d_t i) { return (R)__syncfix_image_size(); }
__SYNCFIX_IMAGE_QUERY(get_image_width, int)
__SYNCFIX_IMAGE_QUERY(get_image_height, int)
__SYNCFIX_IMAGE_QUERY(get_image_depth, int)
__SYNCFIX_IMAGE_QUERY(get_image_channel_data_type, int)
__SYNCFIX_IMAGE_QUERY(get_image_channel_order, int)
__SYNCFIX_IMAGE_QUERY(get_image_array_size, size_t)
#undef __SYNCFIX_IMAGE_QUERY
static inline int2 __attribute__((overloadable)) get_image_dim(image2d_t i) { return (int2)(__syncfix_image_size(), __syncfix_image_size()); }
static inline int4 __attribute__((overloadable)) get_image_dim(image3d_t i) { return (int4)(__syncfix_image_size(), __syncfix_image_size(), __syncfix_image_size(), 0); }

#endif /* SYNCFIX_OPENCL_PRELUDE_H */
