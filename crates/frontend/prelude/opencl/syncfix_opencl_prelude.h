/* syncfix's OpenCL C prelude: force-included before every OpenCL kernel (DESIGN §3).
 * Work-item functions, barriers and GPUVerify's annotation language. The declared functions
 * have no definition on purpose: syncfix's lowering recognises calls to them. */
#ifndef SYNCFIX_OPENCL_PRELUDE_H
#define SYNCFIX_OPENCL_PRELUDE_H

typedef uint cl_mem_fence_flags;
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

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

#endif /* SYNCFIX_OPENCL_PRELUDE_H */
