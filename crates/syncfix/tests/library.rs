//! The CUDA and OpenCL device library (our preludes and `lower/library.rs`), on small kernels
//! through the whole pipeline (clang-19 and Z3 are required). Each test checks a property in
//! both directions where it makes sense: the library call gives the verdict, and a variant
//! without it (or with a wrong claim about it) gives the other one.

mod common;

use common::*;
use syncfix::Language;

const ASSERTION: &str = "this assertion might not hold";

#[test]
fn opencl_atomic_inc_gives_each_work_item_its_own_counter_value() {
    // atomic_inc only ever increases the counter by one: two work-items never get the same
    // value (repetition-free), so the writes do not race...
    let src = "kernel void k(global uint *count, global int *out) { out[atomic_inc(count)] = get_global_id(0); }";
    starts(opencl(src, 64, 2), "verified");
    // ...but values halved may collide.
    let src = "kernel void k(global uint *count, global int *out) { out[atomic_inc(count) / 2] = get_global_id(0); }";
    starts(opencl(src, 64, 2), "possible write-write race on out[");
    // The same for the atomics of the cl_khr extensions (atom_*) and on local memory.
    let src = "kernel void k(local uint *c, global long *out) { out[atom_inc(c)] = get_local_id(0); }";
    starts(opencl(src, 64, 1), "verified");
    let src = "kernel void k(local uint *c, global long *out) { out[atom_add(c, 2u) / 4] = get_local_id(0); }";
    starts(opencl(src, 64, 1), "possible write-write race on out[");
}

#[test]
fn atomics_do_not_race_with_each_other_but_with_plain_accesses() {
    starts(opencl("kernel void k(global int *A) { atomic_add(A, 1); atomic_max(A, 3); atom_xor(A, 5); }", 64, 2), "verified");
    starts(opencl("kernel void k(global int *A) { atomic_add(A, 1); A[0] = 2; }", 64, 2), "possible");
    starts(cuda("__global__ void k(unsigned *A) { atomicInc(A, 10u); atomicCAS(A, 1u, 2u); atomicAdd_block(A, 1u); }", 64, 2), "verified");
    starts(cuda("__global__ void k(unsigned *A) { atomicInc(A, 10u); if (threadIdx.x == 0) A[0] = 0; }", 64, 1), "possible");
}

#[test]
fn add_sat_saturates() {
    let ok = "kernel void k(global int *A) {
        int x = get_local_id(0);
        __assert(add_sat(x, 0x7fffffff) == 0x7fffffff);
        __assert(sub_sat(-x - 2, 0x7fffffff) == (int)0x80000000);
        __assert(add_sat((uchar)250, (uchar)x) == 255 || x < 5);
        __assert(add_sat((uint)x, 0xfffffff0u) == (x < 16 ? 0xfffffff0u + x : 0xffffffffu));
    }";
    starts(opencl(ok, 64, 1), "verified");
    // Without saturation the sum would wrap.
    let wrong = "kernel void k(global int *A) { int x = get_local_id(0); __assert(add_sat(x, 0x7fffffff) == x + 0x7fffffff); }";
    starts(opencl(wrong, 64, 1), ASSERTION);
}

#[test]
fn integer_functions_are_exact() {
    let ok = "kernel void k(global int *A) {
        int x = get_local_id(0);
        __assert(mul24(x, 4) == 4 * x && mad24(x, 2, 1) == 2 * x + 1);
        __assert(clamp(x, 3, 9) >= 3 && clamp(x, 3, 9) <= 9 && max(x, 7) >= x && min(x, 7) <= 7);
        __assert(abs(-x) == x && abs_diff(x, 10) == (x < 10 ? 10 - x : x - 10));
        __assert(mul_hi(x, 0x40000000) == x >> 2 && hadd(x, x + 2) == x + 1 && rotate(x, 32) == x);
        __assert(upsample((ushort)x, (ushort)1) == ((uint)x << 16 | 1u));
    }";
    starts(opencl(ok, 64, 1), "verified");
    starts(
        opencl("kernel void k(global int *A) { int x = get_local_id(0); __assert(mul24(x + 0x1000000, 2) == 2 * x + 0x2000000); }", 64, 1),
        ASSERTION,
    );
    let cuda_ok = "__global__ void k(int *A) {
        __assert(__mul24(blockIdx.x, blockDim.x) + threadIdx.x == blockIdx.x * blockDim.x + threadIdx.x);
        __assert(__umul24(0x1000000u + threadIdx.x, 2u) == 2 * threadIdx.x);
        __assert(min(threadIdx.x, 5u) <= 5u && max((int)threadIdx.x, -1) >= 0);
    }";
    starts(cuda(cuda_ok, 64, 4), "verified");
    starts(
        cuda("__global__ void k(int *A) { __assert(__umul24(0x1000000u + threadIdx.x, 2u) == 0x2000000u + 2 * threadIdx.x); }", 64, 1),
        ASSERTION,
    );
}

#[test]
fn cuda_vector_types_are_structs_with_cuda_layout() {
    // float2 is 8 bytes: consecutive threads write different elements' x...
    let src = "__global__ void k(float2 *B) {
        static_assert(sizeof(float4) == 16 && alignof(float4) == 16 && sizeof(float3) == 12 && sizeof(int2) == 8, \"layout\");
        B[threadIdx.x].x = make_float2(threadIdx.x, 0).x;
        B[threadIdx.x].y = make_float4(1, 2, 3, threadIdx.x).w;
    }";
    starts(cuda(src, 64, 1), "verified");
    // ...and pairs of threads write the same element's x with different values.
    let racy = "__global__ void k(float2 *B) { B[threadIdx.x / 2].x = make_float2(threadIdx.x, 0).x; }";
    starts(cuda(racy, 64, 1), "possible write-write race on B[");
}

#[test]
fn syncthreads_count_is_a_barrier() {
    let with = "__global__ void k(int *A) {
        A[threadIdx.x] = threadIdx.x;
        int c = __syncthreads_count(A[threadIdx.x] > 3);
        __assert(c >= 0 && c <= 64);
        A[(threadIdx.x + 1) % 64] = c;
    }";
    starts(cuda(with, 64, 1), "verified");
    let without = "__global__ void k(int *A) { A[threadIdx.x] = threadIdx.x; int c = A[threadIdx.x] > 3; A[(threadIdx.x + 1) % 64] = c; }";
    starts(cuda(without, 64, 1), "possible ");
    // Its result is arbitrary (FIXME: it is not yet the same in every thread of the block).
    let same = "__global__ void k(int *A) { int c = __syncthreads_count(1); __assert(c == 64); }";
    starts(cuda(same, 64, 1), ASSERTION);
    // `_and` is 0 where the thread's own predicate is 0; `_or` is non-zero where it is not.
    let and_or = "__global__ void k(int *A) {
        __assert(__syncthreads_and(threadIdx.x > 0) == 0 || threadIdx.x > 0);
        __assert(__syncthreads_or(threadIdx.x > 0) != 0 || threadIdx.x == 0);
    }";
    starts(cuda(and_or, 64, 1), "verified");
}

#[test]
fn syncthreads_count_is_never_removed_by_audit() {
    // Neither barrier is needed: audit removes the plain one and keeps the library call.
    let src = "__global__ void k(int *A) {\n  A[threadIdx.x] = 1;\n  __syncthreads();\n  int c = __syncthreads_count(1);\n  A[threadIdx.x] = c;\n}\n";
    let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, src);
    // `repair` leaves a verified kernel alone.
    let r = syncfix::repair(&path, src, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(r.status, syncfix::RepairStatus::NoChange), "{:?}", r.status);
    let r = syncfix::audit(&path, src, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.removed, 1, "{:?}", r.status);
    let patched = r.patched.expect("a patched kernel");
    assert!(patched.contains("__syncthreads_count(1)") && !patched.contains("__syncthreads();"), "{patched}");
}

#[test]
fn fences_order_nothing() {
    // Fences are no barriers (`__syncwarp` is a warp barrier: tests/warp.rs).
    let src = "__global__ void k(int *A) { A[threadIdx.x] = 1; __threadfence(); __threadfence_block(); A[threadIdx.x ^ 1] = 2; }";
    starts(cuda(src, 32, 1), "possible write-write race on A[");
    starts(cuda(&src.replace("__threadfence();", "__syncwarp();"), 32, 1), "verified");
    let src = "kernel void k(local int *A) { A[get_local_id(0)] = 1; mem_fence(CLK_LOCAL_MEM_FENCE); A[get_local_id(0) ^ 1] = 2; }";
    starts(opencl(src, 32, 1), "possible write-write race on A[");
    starts(cuda("__global__ void k(int *A) { A[threadIdx.x] = warpSize; __threadfence_block(); }", 64, 1), "verified");
}

#[test]
fn math_functions_are_deterministic_but_unknown() {
    let same = "__global__ void k(float *A) { float v = A[threadIdx.x]; __assert(__float_as_int(sinf(v)) == __float_as_int(sinf(v))); __assert(__float_as_int(__expf(v) + __exp10f(v)) == __float_as_int(__expf(v) + __exp10f(v))); }";
    starts(cuda(same, 64, 1), "verified");
    let other = "__global__ void k(float *A) { float v = A[threadIdx.x]; __assert(__float_as_int(sinf(v)) == __float_as_int(cosf(v))); }";
    starts(cuda(other, 64, 1), ASSERTION);
    // OpenCL's sincos stores the cosine that cos() computes.
    let sincos = "kernel void k(global float *A) { float x = A[get_local_id(0)], c; float s = sincos(x, &c); __assert(as_int(c) == as_int(cos(x))); __assert(as_int(s) == as_int(sin(x))); }";
    starts(opencl(sincos, 64, 1), "verified");
    let wrong = "kernel void k(global float *A) { float x = A[get_local_id(0)], c; sincos(x, &c); __assert(as_int(c) == as_int(sin(x))); }";
    starts(opencl(wrong, 64, 1), ASSERTION);
}

#[test]
fn curand_values_are_arbitrary_and_states_are_written() {
    let zero =
        "#include <cuda.h>\n__global__ void k(curandState *s, unsigned *A) { unsigned r = curand(&s[threadIdx.x]); __assert(r == 0); }";
    starts(cuda(zero, 64, 1), ASSERTION);
    let own = "__global__ void k(curandState *s, float *A) { curand_init(1, threadIdx.x, 0, &s[threadIdx.x]); A[threadIdx.x] = curand_uniform(&s[threadIdx.x]); }";
    starts(cuda(own, 64, 1), "verified");
    let shared = "__global__ void k(curandState *s, float *A) { A[threadIdx.x] = curand_uniform(s); }";
    starts(cuda(shared, 64, 1), "possible");
    // One MTGP32 state serves a block of at most 256 threads.
    let mtgp = "__global__ void k(curandStateMtgp32_t *s, float *A) { A[threadIdx.x] = curand(s); }";
    starts(cuda(mtgp, 256, 1), "verified");
    starts(cuda(mtgp, 512, 1), "possible");
}

#[test]
fn async_work_group_copy_needs_a_wait_and_a_barrier() {
    let copy = |between: &str| {
        format!(
            "kernel void foo(global float *p) {{
                local float mine[64];
                event_t handle = async_work_group_copy(mine, p + 64 * get_group_id(0), 64, 0);
                {between}
                p[get_global_id(0)] = 2 * mine[get_local_id(0)];
            }}"
        )
    };
    starts(opencl(&copy("wait_group_events(1, &handle); barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"), 64, 4), "verified");
    // Waiting is not enough: another work-item may have copied the element (GPUVerify).
    starts(opencl(&copy("wait_group_events(1, &handle);"), 64, 4), "possible ");
    starts(opencl(&copy(""), 64, 4), "possible ");
    // Strided copies, and copies back to global memory, race between groups that share a region.
    let back = "kernel void foo(global int *p) {
        local int mine[64];
        mine[get_local_id(0)] = get_global_id(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        event_t e = async_work_group_strided_copy(p + get_group_id(0), mine, 64, GROUPS, 0);
        wait_group_events(1, &e);
    }";
    starts(opencl(&back.replace("GROUPS", "4"), 64, 4), "verified");
    starts(opencl(&back.replace("GROUPS", "2"), 64, 4), "possible write-write race on p[");
}

#[test]
fn wait_group_events_needs_the_same_count_in_every_work_item() {
    let src = "__kernel void k(__global float *p) {
  __local float l[64];
  event_t e = async_work_group_copy(l, p + 64 * get_group_id(0), 64, 0);
  wait_group_events(COUNT, &e);
}";
    starts(opencl(&src.replace("COUNT", "1"), 64, 2), "verified");
    starts(opencl(&src.replace("COUNT", "get_local_id(0)"), 64, 2), "a precondition for this call might not hold");
}

#[test]
fn async_copies_and_waits_are_reached_by_the_whole_group() {
    let src = "kernel void foo(global float *p) {
        local float mine[64];
        if (get_local_id(0) < 13) async_work_group_copy(mine, p, 64, 0);
    }";
    starts(opencl(src, 64, 1), "a precondition for this call might not hold");
    let src = "kernel void foo(global float *p) {
        local float mine[64];
        event_t e = async_work_group_copy(mine, p, 64, 0);
        if (get_local_id(0) < 13) wait_group_events(1, &e);
    }";
    starts(opencl(src, 64, 1), "a precondition for this call might not hold");
}

#[test]
fn texture_objects_are_read_like_texture_references_and_a_texture_alone_is_harmless() {
    // A fetch through a texture object is an arbitrary value (an index made from it may
    // collide); the form that returns through a pointer writes it.
    let obj = "__global__ void k(cudaTextureObject_t t, float *A) { A[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x); }";
    starts(cuda(obj, 64, 1), "verified");
    let index = "__global__ void k(cudaTextureObject_t t, float *A) { A[tex2D<int>(t, threadIdx.x, 0.5f)] = threadIdx.x; }";
    starts(cuda(index, 64, 1), "possible write-write race on A[");
    let out = "__global__ void k(cudaTextureObject_t t, float *A) { tex1Dfetch(&A[0], t, threadIdx.x); }";
    starts(cuda(out, 64, 1), "possible write-write race on A[0]");
    let plain = "texture<unsigned, 1, cudaReadModeElementType> t;\n__global__ void k(unsigned *A) { A[threadIdx.x] = 1; }";
    starts(cuda(plain, 64, 1), "verified");
}

#[test]
fn opencl_integer_functions_and_select_work_element_wise_on_vectors() {
    // max with a scalar applies it to every element; unsigned min compares as unsigned;
    // select on vectors tests the most significant bit of each element of its condition.
    let src = "kernel void k(global int *A) {
  int4 a = (int4)(1, -2, 3, 0);
  uint4 b = (uint4)(2, 3, 4, 1);
  int4 c = max(a, 1);
  uint4 d = min(b, (uint4)(1, 5, 2, 0xffffffffu));
  int4 s = select(a, (int4)(9, 9, 9, 9), (int4)(1, -1, 0, -7));
  __assert(c.x == 1 & c.y == 1 & c.z == 3 & c.w == 1);
  __assert(d.x == 1 & d.y == 3 & d.z == 2 & d.w == 1);
  __assert(s.x == 1 & s.y == 9 & s.z == 3 & s.w == 9);
  A[get_global_id(0)] = c.x; }";
    starts(opencl(src, 4, 1), "verified");
    starts(opencl(&src.replace("s.x == 1 &", "s.x == 9 &"), 4, 1), ASSERTION);
}
