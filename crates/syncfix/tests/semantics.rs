//! The verifier's semantics, one rule per test, on small kernels through the whole pipeline
//! (clang-19 and Z3 are required). Each `check` names the expected verdict and, for a
//! defect, the start of GPUVerify's message.

mod common;

use common::*;
use syncfix::{Abstraction, Language};

#[test]
fn read_write_race_within_a_block() {
    starts(cuda("__global__ void k(int *A) { int t = A[threadIdx.x + 1]; A[threadIdx.x] = t; }", 64, 1), "possible read-write race on A[");
}

#[test]
fn a_barrier_between_the_accesses_removes_the_race() {
    starts(cuda("__global__ void k(int *A) { int t = A[threadIdx.x + 1]; __syncthreads(); A[threadIdx.x] = t; }", 64, 1), "verified");
}

#[test]
fn writing_the_same_value_is_a_benign_race() {
    let src = "__global__ void k(int *A) { A[0] = 1; }";
    starts(cuda(src, 64, 1), "verified");
    let mut o = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    o.verifier.benign_tolerance = false;
    starts(verdict_with(src, &o), "possible write-write race on A[0]");
    starts(cuda("__global__ void k(int *A) { A[0] = threadIdx.x; }", 64, 1), "possible write-write race on A[0]");
}

#[test]
fn blocks_race_on_global_memory_unless_only_intra_group() {
    let src = "__global__ void k(int *A) { A[threadIdx.x] = blockIdx.x; }";
    starts(cuda(src, 32, 2), "possible write-write race on A[");
    let mut o = options(Language::Cuda, [32, 1, 1], [2, 1, 1]);
    o.verifier.only_intra_group = true;
    starts(verdict_with(src, &o), "verified");
}

#[test]
fn shared_memory_is_per_block() {
    starts(cuda("__global__ void k(int *A) { __shared__ int s[32]; s[threadIdx.x] = blockIdx.x; A[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x]; }", 32, 4), "verified");
}

#[test]
fn a_block_barrier_does_not_order_blocks_but_a_grid_barrier_does() {
    let racy = "__global__ void k(int *A) { int i = blockIdx.x * 32 + threadIdx.x; int v = A[(i + 32) % 64]; __syncthreads(); A[i] = v; }";
    starts(cuda(racy, 32, 2), "possible read-write race on A[");
    let fixed = "__global__ void k(int *A) { int i = blockIdx.x * 32 + threadIdx.x; int v = A[(i + 32) % 64]; cooperative_groups::this_grid().sync(); A[i] = v; }";
    starts(cuda(fixed, 32, 2), "verified");
}

#[test]
fn opencl_fences_decide_which_memory_a_barrier_orders() {
    let local = "__kernel void k(__local int *p) { p[get_local_id(0)] = 1; barrier(CLK_GLOBAL_MEM_FENCE); p[get_local_id(0) + 1] = 2; }";
    starts(opencl(local, 64, 1), "possible write-write race on p[");
    let ok = "__kernel void k(__local int *p) { p[get_local_id(0)] = 1; barrier(CLK_LOCAL_MEM_FENCE); p[get_local_id(0) + 1] = 2; }";
    starts(opencl(ok, 64, 1), "verified");
}

#[test]
fn a_barrier_under_a_thread_dependent_condition_diverges() {
    starts(
        cuda("__global__ void k(int *A) { if (threadIdx.x < 5) __syncthreads(); }", 64, 1),
        "barrier may be reached by non-uniform control flow",
    );
    starts(cuda("__global__ void k(int *A, int n) { if (n > 0) __syncthreads(); }", 64, 1), "verified");
    starts(
        cuda("__global__ void k(int *A) { if (threadIdx.x == 3) return; __syncthreads(); }", 64, 1),
        "barrier may be reached by non-uniform control flow",
    );
}

#[test]
fn loops_with_launch_bounded_trip_counts_are_proved_by_unrolling() {
    let src = "__global__ void k(int *A) { __shared__ int s[64]; for (int i = 0; i < 10; i++) { s[threadIdx.x] = i; __syncthreads(); A[threadIdx.x] = s[(threadIdx.x + 1) % 64]; __syncthreads(); } }";
    starts(cuda(src, 64, 1), "verified");
    let strided = "__global__ void k(int *A) { for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) A[i] = i; }";
    starts(cuda(strided, 64, 1), "verified");
}

#[test]
fn loops_bounded_by_a_parameter_are_proved_with_invariants() {
    let src = "__global__ void k(int *A, int n) { for (int i = 0; i < n; i++) { A[threadIdx.x] = i; __syncthreads(); } }";
    starts(cuda(src, 64, 1), "verified");
    let assumed =
        "__global__ void k(int *A, int n) { __requires(n == 4); for (int i = 0; i < n; i++) { A[threadIdx.x] = i; __syncthreads(); } }";
    starts(cuda(assumed, 64, 1), "verified");
    let strided = "__global__ void k(int *A, int n) { for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) A[i] = i; }";
    starts(cuda(strided, 64, 4), "verified");
    let infinite = "__global__ void k(int *A) { while (1) { A[threadIdx.x] = 1; } }";
    starts(cuda(infinite, 64, 1), "verified");
}

#[test]
fn races_within_and_between_iterations_of_a_cut_loop_are_found() {
    // Every thread writes A[i] in iteration i.
    starts(
        cuda("__global__ void k(int *A, int n) { for (int i = 0; i < n; i++) A[i] = threadIdx.x; }", 64, 1),
        "possible write-write race on A[",
    );
    // Thread t writes A[t + i]: iteration 1 of thread 0 and iteration 0 of thread 1 meet.
    starts(
        cuda("__global__ void k(int *A, int n) { for (int i = 0; i < n; i++) A[threadIdx.x + i] = threadIdx.x; }", 64, 1),
        "possible write-write race on A[",
    );
}

#[test]
fn barriers_order_the_iterations_of_a_cut_loop() {
    let both = "__global__ void k(int *A, int n) { __shared__ int s[64]; for (int i = 0; i < n; i++) { s[threadIdx.x] = i; __syncthreads(); A[threadIdx.x] = s[63 - threadIdx.x]; __syncthreads(); } }";
    starts(cuda(both, 64, 1), "verified");
    // Without the second barrier, the read races with the next iteration's write.
    let one = "__global__ void k(int *A, int n) { __shared__ int s[64]; for (int i = 0; i < n; i++) { s[threadIdx.x] = i; __syncthreads(); A[threadIdx.x] = s[63 - threadIdx.x]; } }";
    starts(cuda(one, 64, 1), "possible read-write race on s[");
    let reduction = "__global__ void k(int *A, int n) { __shared__ int s[64]; s[threadIdx.x] = A[threadIdx.x]; __syncthreads(); \
        for (int d = n; d > 0; d >>= 1) { if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d]; __syncthreads(); } \
        if (threadIdx.x == 0) A[0] = s[0]; }";
    starts(cuda(reduction, 64, 1), "verified");
}

#[test]
fn accesses_after_a_cut_loop_race_with_its_accesses() {
    let racy = "__global__ void k(int *A, int *B, int n) { for (int i = 0; i < n; i++) { A[threadIdx.x] = i; } B[threadIdx.x] = A[threadIdx.x + 1]; }";
    starts(cuda(racy, 64, 1), "possible write-read race on A[");
    let fixed = "__global__ void k(int *A, int *B, int n) { for (int i = 0; i < n; i++) { A[threadIdx.x] = i; } __syncthreads(); B[threadIdx.x] = A[threadIdx.x + 1]; }";
    starts(cuda(fixed, 64, 1), "verified");
}

#[test]
fn barriers_in_and_after_loops_with_thread_dependent_exits_diverge() {
    starts(
        cuda("__global__ void k(int *A) { for (int i = 0; i < threadIdx.x; i++) __syncthreads(); }", 64, 1),
        "barrier may be reached by non-uniform control flow",
    );
    let ret = "__global__ void k(int *A, int n) { for (int i = 0; i < n; i++) { if (A[i] == threadIdx.x) return; } __syncthreads(); }";
    starts(cuda(ret, 64, 1), "barrier may be reached by non-uniform control flow");
    // Every thread reads the same A[i], so all leave together.
    let uniform = "__global__ void k(int *A, int n) { for (int i = 0; i < n; i++) { if (A[i] == 0) break; } __syncthreads(); }";
    starts(cuda(uniform, 64, 1), "verified");
}

#[test]
fn user_loop_invariants_must_hold_on_entry_and_be_inductive() {
    let entry = "__global__ void k(int *A, int n) { for (int i = 0; __invariant(i <= n), i < n; i++) { A[threadIdx.x] = i; } }";
    starts(cuda(entry, 64, 1), "loop invariant might not hold on entry");
    let assumed =
        "__global__ void k(int *A, int n) { __requires(n >= 0); for (int i = 0; __invariant(i <= n), i < n; i++) { A[threadIdx.x] = i; } }";
    starts(cuda(assumed, 64, 1), "verified");
    // True in every execution but not inductive: GPUVerify reports it, and so does syncfix
    // (a loop with a user invariant is never unrolled).
    let weak = "__global__ void k(int *A) { for (int i = 0; __invariant(i != 5), i < 10; i++) { A[threadIdx.x] = i; } }";
    starts(cuda(weak, 64, 1), "loop invariant might not be maintained by the loop");
}

#[test]
fn no_infer_leaves_only_the_users_invariants() {
    let src = "__global__ void k(int *A, int n) { for (int j = 0; j < n; j += 16) { __assert(j % 16 == 0); } }";
    starts(cuda(src, 64, 1), "verified");
    let mut o = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    o.verifier.infer = false;
    starts(verdict_with(src, &o), "this assertion might not hold");
    let invariant =
        "__global__ void k(int *A, int n) { for (int j = 0; __invariant(j % 16 == 0), j < n; j += 16) { __assert(j % 16 == 0); } }";
    starts(verdict_with(invariant, &o), "verified");
}

#[test]
fn bug_finding_mode_reports_no_error_up_to_the_bound() {
    let src = "__global__ void k(int *A, int n) { for (int i = 0; i < n; i++) { A[threadIdx.x] = i; __syncthreads(); } }";
    let mut o = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    o.verifier.loop_unwind = Some(2);
    starts(verdict_with(src, &o), "no error up to 2");
}

#[test]
fn assertions_are_checked_for_both_threads() {
    starts(cuda("__global__ void k(int *A) { __assert(threadIdx.x < 64); }", 64, 1), "verified");
    starts(cuda("__global__ void k(int *A) { __assert(threadIdx.x < 32); }", 64, 1), "this assertion might not hold");
}

#[test]
fn shared_values_in_control_flow_use_the_equality_abstraction() {
    // Both threads read the same flag after the barrier, so the second barrier is uniform.
    let src =
        "__global__ void k(int *A) { __shared__ int flag; if (threadIdx.x == 0) flag = A[0]; __syncthreads(); if (flag) __syncthreads(); }";
    starts(cuda(src, 64, 1), "verified");
    let mut o = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    o.verifier.abstraction = Abstraction::Adversarial;
    starts(verdict_with(src, &o), "barrier may be reached by non-uniform control flow");
}

#[test]
fn atomics_do_not_race_with_atomics_but_do_with_plain_accesses() {
    starts(cuda("__global__ void k(int *A) { atomicAdd(&A[0], 1); }", 64, 1), "verified");
    starts(
        cuda("__global__ void k(int *A) { atomicAdd(&A[0], 1); int x = A[0]; A[threadIdx.x + 1] = x; }", 64, 1),
        "possible atomic-read race on A[0]",
    );
}

#[test]
fn private_arrays_never_race() {
    starts(
        cuda("__global__ void k(int *A) { int a[4]; a[threadIdx.x % 4] = 1; A[threadIdx.x] = a[(threadIdx.x + 1) % 4]; }", 64, 1),
        "verified",
    );
}

#[test]
fn races_through_inlined_device_functions_are_found() {
    let src = "__device__ int get(int *A, int i) { return A[i + 1]; }\n__device__ void put(int *A, int i, int v) { A[i] = v; }\n__global__ void k(int *A) { int v = get(A, threadIdx.x); put(A, threadIdx.x, v); }";
    starts(cuda(src, 64, 1), "possible read-write race on A[");
}

#[test]
fn two_dimensional_shared_arrays_print_both_indices() {
    let src = "__global__ void k(int *A) { __shared__ int t[8][8]; t[threadIdx.y][threadIdx.x] = 1; t[threadIdx.x][threadIdx.y] = 2; }";
    starts(verdict_with(src, &options(Language::Cuda, [8, 8, 1], [1, 1, 1])), "possible write-write race on t[");
}

#[test]
fn uninitialised_values_are_arbitrary_not_zero() {
    starts(opencl("__kernel void k() { int x; __assert(x == 0); }", 64, 1), "this assertion might not hold");
}

#[test]
fn writing_constant_memory_is_an_error() {
    starts(
        cuda("__constant__ int C[64];\n__global__ void k(int *B) { C[threadIdx.x] = B[threadIdx.x]; }", 64, 1),
        "possible attempt to modify constant memory",
    );
}

#[test]
fn constant_arrays_are_known_from_their_initializer() {
    let src = "__constant int A[8] = {0,1,2,3,4,5,6,7};\n__kernel void k(__global int *p) { if (A[get_local_id(0)] != get_local_id(0)) p[0] = get_local_id(0); }";
    starts(opencl(src, 8, 1), "verified");
    let unknown =
        "__kernel void k(__global int *p, __constant int *A) { if (A[get_local_id(0)] != get_local_id(0)) p[0] = get_local_id(0); }";
    starts(opencl(unknown, 8, 1), "possible write-write race on p[0]");
    // CUDA's host may overwrite __constant__ memory: its initializer is not a fact.
    let cuda_src = "__constant__ int A[8] = {0,1,2,3,4,5,6,7};\n__global__ void k(float *p) { if (A[threadIdx.x] != threadIdx.x) p[0] = threadIdx.x; }";
    starts(cuda(cuda_src, 8, 1), "possible write-write race on p[0]");
}

#[test]
fn atomic_increments_give_threads_distinct_values() {
    // NFM 2014 §4.2: a counter only ever incremented never returns the same value twice.
    starts(cuda("__global__ void k(unsigned *c, int *A) { int j = atomicAdd(c, 1); A[j] = threadIdx.x; }", 64, 1), "verified");
    // Adding zero, or a thread-dependent amount, is not repetition-free.
    starts(
        cuda("__global__ void k(unsigned *c, int *A) { int j = atomicAdd(c, 0); A[j] = threadIdx.x; }", 64, 1),
        "possible write-write race on A[",
    );
    starts(
        cuda("__global__ void k(unsigned *c, int *A) { int j = atomicAdd(c, threadIdx.x); A[j] = threadIdx.x; }", 64, 1),
        "possible write-write race on A[",
    );
}

#[test]
fn array_bounds_are_checked_on_request() {
    let src = "__kernel void k() { __local int L[25]; L[get_global_id(0)] = 1; }";
    starts(opencl(src, 8, 1), "verified");
    let mut o = options(Language::OpenCl, [8, 1, 1], [8, 1, 1]);
    o.verifier.array_bounds = true;
    starts(verdict_with(src, &o), "possible array out-of-bounds access on array L[");
    let ok = "__kernel void k() { __local int L[64]; L[get_global_id(0)] = 1; }";
    starts(verdict_with(ok, &o), "verified");
}

#[test]
fn warp_synchronous_threads_only_race_within_one_instruction() {
    let src = "__global__ void k(int *A) { __shared__ int s[64]; s[threadIdx.x] = threadIdx.x; if (threadIdx.x < 32) A[threadIdx.x] = s[(threadIdx.x + 1) % 32]; }";
    let racy = |got: String| assert!(got.starts_with("possible") && got.contains("race on s["), "{got}");
    racy(cuda(src, 32, 1));
    let mut o = options(Language::Cuda, [32, 1, 1], [1, 1, 1]);
    o.verifier.warp_sync = Some(32);
    starts(verdict_with(src, &o), "verified");
    o.verifier.warp_sync = Some(16);
    racy(verdict_with(src, &o));
}

#[test]
fn race_checks_can_be_restricted_or_turned_off() {
    let src = "__global__ void k(int *A, int *B) { A[0] = threadIdx.x; B[0] = threadIdx.x; }";
    let mut o = options(Language::Cuda, [8, 1, 1], [1, 1, 1]);
    o.verifier.check_arrays = Some(vec!["B".into()]);
    starts(verdict_with(src, &o), "possible write-write race on B[0]");
    o.verifier.check_arrays = None;
    o.verifier.race_checks = false;
    starts(verdict_with(src, &o), "verified");
}

#[test]
fn specified_external_writes_enter_thread_ones_log() {
    // GPUVerify's specification tests: an external write somewhere in p, constrained by the
    // postcondition to the thread's own element, does not race with the thread's write.
    let spec = "void __spec_bar(__global int* p) { __requires(__no_read(p)); __requires(__no_write(p));\n  __ensures(__write_implies(p, __write_offset_bytes(p)/sizeof(int) == get_global_id(0)));\n  __writes_to(p); }\n";
    let ok = format!("{spec}__kernel void k(__global int* A) {{ __spec_bar(A); A[get_global_id(0)] = get_global_id(0); }}");
    starts(opencl(&ok, 64, 2), "verified");
    let unconstrained = "void __spec_bar(__global int* p) { __writes_to(p); }\n__kernel void k(__global int* A) { __spec_bar(A); A[get_global_id(0)] = get_global_id(0); }";
    starts(opencl(unconstrained, 64, 2), "possible write-write race on A[");
}

#[test]
fn loop_invariants_fail_on_entry_or_in_the_loop() {
    let entry = "__kernel void k(__global int *A) { for (int i = 0; __invariant(i > 0), i < 4; i++) A[get_global_id(0)] = i; }";
    starts(opencl(entry, 8, 1), "loop invariant might not hold on entry");
    let body = "__kernel void k(__global int *A) { for (int i = 0; __invariant(i < 3), i < 4; i++) A[get_global_id(0)] = i; }";
    starts(opencl(body, 8, 1), "loop invariant might not be maintained by the loop");
    let good = "__kernel void k(__global int *A) { for (int i = 0; __invariant(i <= 4), i < 4; i++) A[get_global_id(0)] = i; }";
    starts(opencl(good, 8, 1), "verified");
}

#[test]
fn postconditions_are_checked_at_returns() {
    let bad = "__device__ int f(int x) { __ensures(__return_val_int() > x); return x; }\n__global__ void k(int *A) { A[threadIdx.x] = f(threadIdx.x); }";
    starts(cuda(bad, 8, 1), "postcondition might not hold on all return paths");
    let good = "__device__ int f(int x) { __ensures(__return_val_int() > x); return x + 1; }\n__global__ void k(int *A) { A[threadIdx.x] = f(threadIdx.x); }";
    starts(cuda(good, 8, 1), "verified");
}

#[test]
fn barrier_invariants_are_checked_then_assumed_for_each_instantiation() {
    // After the barrier, A's contents are arbitrary (equality abstraction) except for what the
    // barrier invariant states about thread 0's element.
    let src = "__kernel void k(__local int *A, __global int *B) { A[get_local_id(0)] = get_local_id(0) + 1;\n  __barrier_invariant_1(A[get_local_id(0)] == get_local_id(0) + 1, 0);\n  barrier(CLK_LOCAL_MEM_FENCE);\n  __assert(A[0] == 1); }";
    starts(opencl(src, 8, 1), "verified");
    let wrong = "__kernel void k(__local int *A) { A[get_local_id(0)] = get_local_id(0);\n  __barrier_invariant_1(A[get_local_id(0)] == get_local_id(0) + 1, 0);\n  barrier(CLK_LOCAL_MEM_FENCE); }";
    starts(opencl(wrong, 8, 1), "this barrier invariant might not hold");
}

/// The verdict of every unit (kernels, then functions checked on their own), by name.
fn units(src: &str, opts: &syncfix::Options) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), opts.language.unwrap_or(Language::Cuda), src);
    let (reports, _) = syncfix::verify(&path, src, opts).unwrap();
    reports
        .iter()
        .map(|r| {
            let v = match &r.status {
                syncfix::Status::Verified => "verified".to_string(),
                s if s.is_defect() => r.findings[0].headline(),
                s => format!("{s:?}"),
            };
            (r.kernel.clone(), v)
        })
        .collect()
}

#[test]
fn no_inline_checks_a_function_against_its_contract_on_its_own() {
    // Both calls meet the postcondition, but a = 1 meets the precondition and not it.
    let src = "int halve(int a) { __requires(a > 0); __ensures(__return_val_int() > 0); return a / 2; }
__kernel void k() { int x = halve(5); int y = halve(6); }";
    let mut o = options(Language::OpenCl, [64, 1, 1], [1, 1, 1]);
    assert_eq!(units(src, &o), vec![("k".to_string(), "verified".to_string())]);
    o.source.modular = true;
    let got = units(src, &o);
    assert_eq!(got[0], ("k".to_string(), "verified".to_string()));
    assert_eq!(got[1].0, "halve");
    assert!(got[1].1.starts_with("postcondition might not hold on all return paths"), "{got:?}");
    // A contract that holds for every input is proved.
    let ok = src.replace("a / 2", "a / 2 + 1");
    assert!(units(&ok, &o).iter().all(|(_, v)| v == "verified"), "{:?}", units(&ok, &o));
    // The function's parameters differ between the two threads: a write through them races.
    let racy = "void put(__local int *p, int i) { __requires(i >= 0); p[i] = get_local_id(0); }
__kernel void k(__local int *p) { put(p, get_local_id(0)); }";
    let got = units(racy, &o);
    assert_eq!(got[0].1, "verified", "{got:?}");
    assert!(got[1].1.starts_with("possible write-write race on p["), "{got:?}");
}

#[test]
fn work_group_functions_must_be_reached_by_the_whole_group() {
    let src = "__kernel void k(__global float *p) { __local float l[64]; if (get_local_id(0) < 13) { event_t e = async_work_group_copy(l, p, 64, 0); wait_group_events(1, &e); } }";
    starts(opencl(src, 64, 2), "a precondition for this call might not hold");
    let ok = "__kernel void k(__global float *p) { __local float l[64]; event_t e = async_work_group_copy(l, p, 64, 0); wait_group_events(1, &e); }";
    starts(opencl(ok, 64, 2), "verified");
}

#[test]
fn symbolic_launch_sizes_hold_for_every_launch() {
    // `*` (0 in a `Launch`): any positive size, the same for every thread.
    let sym = |lang, block: [u32; 3], grid: [u32; 3]| options(lang, block, grid);
    let ids = "__kernel void k(__global int *A) { A[get_global_id(0)] = get_local_id(0); }";
    starts(verdict_with(ids, &sym(Language::OpenCl, [0, 1, 1], [0, 1, 1])), "verified");
    // Threads beyond 64 of a group exist for some launch.
    let wrap = "__kernel void k(__local int *A) { A[get_local_id(0) % 64] = get_local_id(0); }";
    starts(verdict_with(wrap, &sym(Language::OpenCl, [0, 1, 1], [4, 1, 1])), "possible write-write race on A[");
    starts(verdict_with(wrap, &sym(Language::OpenCl, [64, 1, 1], [0, 1, 1])), "verified");
    // `__requires` on the sizes narrows the launches.
    let narrowed = "__global__ void k(int *A) { __requires(blockDim.x <= 64); __shared__ int s[64]; s[threadIdx.x % 64] = threadIdx.x; }";
    starts(verdict_with(narrowed, &sym(Language::Cuda, [0, 1, 1], [0, 1, 1])), "verified");
    starts(verdict_with(&narrowed.replace("64);", "65);"), &sym(Language::Cuda, [0, 1, 1], [0, 1, 1])), "possible write-write race on s[");
    // A fixed global size with a symbolic group size: their product.
    let mut o = sym(Language::OpenCl, [0, 1, 1], [0, 1, 1]);
    o.launch.global_dim = [1024, 0, 0];
    let sizes = "__kernel void k(__global int *A) { __assert(get_local_size(0) * get_num_groups(0) == 1024); }";
    starts(verdict_with(sizes, &o), "verified");
    starts(verdict_with(&sizes.replace("== 1024", "== 512"), &o), "this assertion might not hold");
    // Every dimension symbolic: a 1-D index races across y.
    let one_d = "__global__ void k(int *A) { A[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.y; }";
    starts(verdict_with(one_d, &sym(Language::Cuda, [0, 0, 0], [0, 0, 0])), "possible write-write race on A[");
    starts(verdict_with(&one_d.replace("{ A", "{ __requires(blockDim.y == 1); A"), &sym(Language::Cuda, [0, 0, 0], [0, 0, 0])), "verified");
}

#[test]
fn barrier_invariants_read_only_what_the_threads_may_read() {
    // Threads other than 0 state a fact about A[0], which neither of them accessed.
    let src = "__kernel void k() { __local int A[64]; A[get_local_id(0)] = get_local_id(0) + 1;
  __barrier_invariant_binary_1(__implies(get_local_id(0) != 0 & __other_int(get_local_id(0)) != 0, A[0] == 1), get_local_id(0), __other_int(get_local_id(0)));
  barrier(CLK_LOCAL_MEM_FENCE); }";
    starts(opencl(src, 64, 1), "barrier invariant access check might fail");
    let mut o = options(Language::OpenCl, [64, 1, 1], [1, 1, 1]);
    o.verifier.barrier_access_checks = false;
    // Unchecked, the read is made: A[0] is another thread's, arbitrary here.
    starts(verdict_with(src, &o), "this barrier invariant might not hold");
    // Each thread's own element, and the other thread's in a binary invariant: accessed.
    let own = "__kernel void k() { __local int A[64]; A[get_local_id(0)] = get_local_id(0);
  __barrier_invariant_binary_1(A[get_local_id(0)] != A[__other_int(get_local_id(0))], get_local_id(0), __other_int(get_local_id(0)));
  barrier(CLK_LOCAL_MEM_FENCE); }";
    starts(opencl(own, 64, 1), "verified");
    // A permission grants the read; a read the condition short-circuits is not made. (The
    // invariant always holds: only the access check can fail.)
    let odd = "__kernel void k() { __local int A[64]; if (get_local_id(0) % 2 == 0) A[get_local_id(0)] = 0;
  PERMIT
  __barrier_invariant_1(A[get_local_id(0)] == A[get_local_id(0)], get_local_id(0));
  barrier(CLK_LOCAL_MEM_FENCE); }";
    starts(opencl(&odd.replace("PERMIT", ""), 64, 1), "barrier invariant access check might fail");
    starts(opencl(&odd.replace("PERMIT", "__read_permission(int, A[get_local_id(0)]);"), 64, 1), "verified");
    let guarded = odd.replace("PERMIT", "").replace(
        "A[get_local_id(0)] == A[get_local_id(0)], get_local_id(0)",
        "__implies(get_local_id(0) % 2 == 0, A[get_local_id(0)] == A[get_local_id(0)]), get_local_id(0)",
    );
    starts(opencl(&guarded, 64, 1), "verified");
}

#[test]
fn an_asynchronous_copy_is_ordered_only_after_its_wait() {
    let src = "__kernel void k(__global int *p, __global int *q) { __local int l[64];
  event_t e = async_work_group_copy(l, p, 64, 0);
  BEFORE barrier(CLK_LOCAL_MEM_FENCE); AFTER
  q[get_local_id(0)] = l[63 - get_local_id(0)]; }";
    // A barrier alone does not order the copy's writes.
    starts(opencl(&src.replace("BEFORE", "").replace("AFTER", "wait_group_events(1, &e);"), 64, 1), "possible write-read race on l[");
    // The wait, then a barrier.
    starts(opencl(&src.replace("BEFORE", "wait_group_events(1, &e);").replace("AFTER", ""), 64, 1), "verified");
}

// Edge cases of the encoding that could hide a defect (issue 9, point 2).

#[test]
fn specification_reads_gather_the_cells_they_span() {
    // A byte read and an 8-byte read of an int array in loop invariants: each reads the bytes
    // it names (little-endian), not one whole cell.
    let src = |byte: u32| {
        format!(
            "__global__ void k(int *A, int n) {{\n  __shared__ int s[128];\n  s[2 * threadIdx.x] = 0x01020304;\n  s[2 * threadIdx.x + 1] = 0x05060708;\n  for (int i = 0;\n       __invariant(((unsigned char *)s)[8 * threadIdx.x + 1] == {byte}),\n       __invariant(*(unsigned long long *)&s[2 * threadIdx.x] == 0x0506070801020304ULL),\n       i < n; i++) {{\n    A[threadIdx.x] = i;\n  }}\n}}\n"
        )
    };
    starts(cuda(&src(3), 64, 1), "verified");
    // Byte 1 of 0x01020304 is 3; reading the cell and truncating would give 4.
    starts(cuda(&src(4), 64, 1), "loop invariant might not hold on entry");
}

#[test]
fn an_atomic_on_private_memory_changes_it() {
    starts(cuda("__global__ void k(int *A) { int x = 0; atomicAdd(&x, 1); __assert(x == 0); }", 64, 1), "this assertion might not hold");
}

#[test]
fn writes_that_are_not_increments_spoil_the_repetition_free_refinement() {
    // Without them, the four values two threads get from the counter all differ ...
    let body = |between: &str| {
        format!(
            "__global__ void k(unsigned *c, unsigned *d, int *A) {{\n  unsigned j = atomicAdd(c, 1);\n  __syncthreads();\n  {between}\n  __syncthreads();\n  unsigned m = atomicAdd(c, 1);\n  if (threadIdx.x % 2 == 0) A[j] = 1; else A[m] = 2;\n}}\n"
        )
    };
    let spec = "__device__ void __spec_reset(unsigned *p) { __writes_to(p); }\n";
    starts(cuda(&body(""), 64, 1), "verified");
    // ... but a snapshot copied into the counter, or an external (specified) write to it, may
    // give it any value: a value taken before may come again.
    starts(cuda(&body("__array_snapshot(c, d);"), 64, 1), "possible write-write race on A[");
    starts(cuda(&format!("{spec}{}", body("if (threadIdx.x == 0) __spec_reset(c);")), 64, 1), "possible write-write race on A[");
}

#[test]
fn dynamic_fence_flags_follow_gpuverifys_rule() {
    // GPUVerify clears a work-item's log by the flags of that work-item (its suite's
    // inter_group_and_barrier_flag_tests): work-item 0's read is ordered by its own
    // CLK_LOCAL_MEM_FENCE ...
    let pass = "__kernel void foo(__local int* p) {\n  volatile int x, y;\n  x = get_local_id(0) == 0 ? CLK_LOCAL_MEM_FENCE : 0;\n  if (get_local_id(0) == 0) { y = p[0]; }\n  barrier(x);\n  if (get_local_id(0) == 1) { p[0] = 0; }\n}\n";
    starts(opencl(pass, 64, 4), "verified");
    // ... but the reads of the other work-items, whose flags are 0, are not.
    let fail = "__kernel void foo(__local int* p) {\n  volatile int x, y;\n  x = get_local_id(0) == 0 ? CLK_LOCAL_MEM_FENCE : 0;\n  y = p[0];\n  barrier(x);\n  if (get_local_id(0) == 1) { p[0] = 0; }\n}\n";
    starts(opencl(fail, 64, 4), "possible read-write race on p[0]");
}
