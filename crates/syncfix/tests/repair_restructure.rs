//! Barrier divergence repaired by restructuring: when every site that would order a race lies
//! in a conditional that threads take differently, the conditional is split in two around the
//! place the barrier needs (the user's barrier moved there, or a new one inserted), and the
//! restructured, repaired text is verified like any repair.

mod common;

use common::*;
use syncfix::{Applicability, ChangeKind, Language, RepairStatus};

/// Repairs `src`, checks that the repair splits a conditional and that its patched text is
/// `want` and verifies; returns the report's change kinds.
#[track_caller]
fn repaired_as(src: &str, opts: &syncfix::Options, want: &str) -> Vec<ChangeKind> {
    let r = repair_with(src, opts);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}\n{:?}", r.status, r.findings);
    let patched = r.patched.clone().expect("a patched kernel");
    assert_eq!(patched, want, "patched:\n{patched}");
    assert_eq!(r.restructured, 1);
    // It moves code: never applied without --unsafe-fixes.
    assert_eq!(r.applicability, Some(Applicability::Unsafe));
    assert!(r.unsafe_reason().unwrap().contains("restructures the code"), "{:?}", r.unsafe_reason());
    starts(verdict_with(&patched, opts), "verified");
    // The edits rebuild the patched text from the user's.
    assert_eq!(syncfix::apply_edits(src, &r.edits), patched);
    r.changes.iter().map(|c| c.kind).collect()
}

fn cuda32() -> syncfix::Options {
    options(Language::Cuda, [32, 1, 1], [1, 1, 1])
}

#[test]
fn a_barrier_in_a_divergent_conditional_moves_out_of_it() {
    // GPUVerify's cooperative_groups/fail/divergence_thread_block: the barrier between the read
    // and the write sits in a conditional half the threads skip. Removing it lets the pair race;
    // every site between them is inside the conditional. Split around the barrier, the
    // declaration the second half uses hoisted, the condition evaluated again (it reads no
    // memory and the first half changes none of its variables).
    let src = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  if (idx % 2 == 0) {\n    int temp = A[idx + 2];\n    __syncthreads();\n    A[idx] = temp;\n  }\n}\n";
    let want = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  int temp;\n  if (idx % 2 == 0) {\n    temp = A[idx + 2];\n  }\n  __syncthreads();\n  if (idx % 2 == 0) {\n    A[idx] = temp;\n  }\n}\n";
    let kinds = repaired_as(src, &cuda32(), want);
    assert_eq!(kinds, [ChangeKind::SplitConditional]);
    let r = repair_with(src, &cuda32());
    assert_eq!(r.changes[0].line, 3);
    assert_eq!(r.changes[0].barrier, "__syncthreads();");
    assert!(r.notes[0].contains("the conditional `if (idx % 2 == 0)` is split in two around `__syncthreads();`"), "{:?}", r.notes);
    assert!(matches!(r.kernels[0].status, RepairStatus::Repaired), "{:?}", r.kernels[0].status);
}

#[test]
fn without_a_barrier_the_split_makes_the_place_for_a_new_one() {
    // No barrier at all: the race between the read and the write lies in the conditional, so
    // the conditional is split between them and a barrier inserted between the halves.
    let src = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  if (idx % 2 == 0) {\n    int temp = A[idx + 2];\n    A[idx] = temp;\n  }\n}\n";
    let want = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  int temp;\n  if (idx % 2 == 0) {\n    temp = A[idx + 2];\n  }\n  __syncthreads();\n  if (idx % 2 == 0) {\n    A[idx] = temp;\n  }\n}\n";
    let kinds = repaired_as(src, &cuda32(), want);
    assert_eq!(kinds, [ChangeKind::SplitConditional, ChangeKind::Insert]);
}

#[test]
fn a_condition_that_reads_memory_is_saved_before_the_split() {
    // The condition reads A, which the first half writes: evaluated again it could differ, so
    // it is evaluated once, into a bool.
    let src = "__global__ void k(int *A, int *B) {\n  unsigned t = threadIdx.x;\n  if (B[t] > 0) {\n    A[t] = 1;\n    __syncthreads();\n    B[t] = A[(t + 1) % 32];\n  }\n}\n";
    let want = "__global__ void k(int *A, int *B) {\n  unsigned t = threadIdx.x;\n  bool cond = B[t] > 0;\n  if (cond) {\n    A[t] = 1;\n  }\n  __syncthreads();\n  if (cond) {\n    B[t] = A[(t + 1) % 32];\n  }\n}\n";
    repaired_as(src, &cuda32(), want);
}

#[test]
fn a_condition_whose_variable_the_first_half_assigns_is_saved() {
    let src = "__global__ void k(int *A, int *B) {\n  unsigned t = threadIdx.x;\n  unsigned u = t;\n  if (u % 2 == 0) {\n    A[t] = 1;\n    u = u + 1;\n    __syncthreads();\n    B[t] = A[(t + 2) % 32] + u;\n  }\n}\n";
    let want = "__global__ void k(int *A, int *B) {\n  unsigned t = threadIdx.x;\n  unsigned u = t;\n  bool cond = u % 2 == 0;\n  if (cond) {\n    A[t] = 1;\n    u = u + 1;\n  }\n  __syncthreads();\n  if (cond) {\n    B[t] = A[(t + 2) % 32] + u;\n  }\n}\n";
    repaired_as(src, &cuda32(), want);
}

#[test]
fn a_barrier_in_the_else_arm_moves_out_with_the_negated_condition() {
    let src = "__kernel void k(__local int *A, __global int *B) {\n  int t = get_local_id(0);\n  if (t < 16) {\n    B[t] = 0;\n  } else {\n    int x = A[t - 15];\n    barrier(CLK_LOCAL_MEM_FENCE);\n    A[t - 16] = x + 1;\n  }\n}\n";
    let want = "__kernel void k(__local int *A, __global int *B) {\n  int t = get_local_id(0);\n  int x;\n  if (t < 16) {\n    B[t] = 0;\n  } else {\n    x = A[t - 15];\n  }\n  barrier(CLK_LOCAL_MEM_FENCE);\n  if (!(t < 16)) {\n    A[t - 16] = x + 1;\n  }\n}\n";
    repaired_as(src, &options(Language::OpenCl, [32, 1, 1], [1, 1, 1]), want);
}

#[test]
fn a_hoisted_name_used_elsewhere_keeps_its_scope_in_braces() {
    // `temp` also names another variable after the `if`: the hoisted declaration must not
    // reach it, so the halves are wrapped in a block.
    let src = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  if (idx % 2 == 0) {\n    int temp = A[idx + 2];\n    __syncthreads();\n    A[idx] = temp;\n  }\n  int temp = 3;\n  A[idx + 64] = temp;\n}\n";
    let want = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  {\n    int temp;\n    if (idx % 2 == 0) {\n      temp = A[idx + 2];\n    }\n    __syncthreads();\n    if (idx % 2 == 0) {\n      A[idx] = temp;\n    }\n  }\n  int temp = 3;\n  A[idx + 64] = temp;\n}\n";
    repaired_as(src, &cuda32(), want);
}

#[test]
fn nested_divergent_conditionals_are_split_one_after_the_other() {
    let src = "__global__ void k(int *A) {\n  unsigned t = threadIdx.x;\n  if (t < 16) {\n    if (t % 2 == 0) {\n      int v = A[t + 2];\n      __syncthreads();\n      A[t] = v;\n    }\n  }\n}\n";
    let r = repair_with(src, &cuda32());
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    let patched = r.patched.clone().unwrap();
    assert_eq!(r.restructured, 2, "{patched}");
    starts(verdict_with(&patched, &cuda32()), "verified");
    // The barrier stands outside both conditionals.
    let barrier_line = patched.lines().find(|l| l.contains("__syncthreads")).unwrap();
    assert_eq!(barrier_line, "  __syncthreads();", "{patched}");
}

#[test]
fn a_const_local_is_hoisted_without_its_const() {
    let src = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  if (idx % 2 == 0) {\n    const int temp = A[idx + 2];\n    __syncthreads();\n    A[idx] = temp;\n  }\n}\n";
    let want = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  int temp;\n  if (idx % 2 == 0) {\n    temp = A[idx + 2];\n  }\n  __syncthreads();\n  if (idx % 2 == 0) {\n    A[idx] = temp;\n  }\n}\n";
    repaired_as(src, &cuda32(), want);
}

#[test]
fn a_declaration_that_cannot_be_hoisted_leaves_the_kernel_unrepairable_with_the_reason() {
    // A local array with an initializer cannot be assigned later: no split, and the reason
    // says so.
    let src = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  if (idx % 2 == 0) {\n    int temp[1] = {A[idx + 2]};\n    __syncthreads();\n    A[idx] = temp[0];\n  }\n}\n";
    let r = repair_with(src, &cuda32());
    let RepairStatus::Unrepairable(reason) = &r.status else { panic!("{:?}", r.status) };
    assert!(
        reason.contains("every barrier site that would separate the racing accesses (lines 4 and 6) is reached by non-uniform control flow")
            && reason.contains("the barrier sites at lines 5, 6 are reached by some threads and not by others")
            && reason.contains("syncfix cannot restructure the code around line 5 so that every thread reaches a barrier there: the declaration of `temp` cannot be moved before the `if`"),
        "{reason}"
    );
    assert!(r.patched.is_none());
}

#[test]
fn a_race_across_the_whole_conditional_is_not_restructured() {
    // Two threads of the same arm write one cell in one statement: no barrier can order them,
    // split or not (202 as before, and nothing printed).
    let src = "__global__ void k(int *A) {\n  if (threadIdx.x % 2 == 0) {\n    A[0] = threadIdx.x;\n    __syncthreads();\n  }\n}\n";
    let r = repair_with(src, &cuda32());
    assert!(matches!(r.status, RepairStatus::Unrepairable(_)), "{:?}", r.status);
    assert!(r.patched.is_none());
}

#[test]
fn an_early_return_moves_past_the_barrier_it_made_some_threads_skip() {
    // The most common divergence of real kernels: threads past the end return before the
    // barrier. The loads before it are guarded instead, and the return follows the barrier.
    let src = "__global__ void shift(float *out, const float *in, int n) {\n  __shared__ float tile[256];\n  int t = threadIdx.x;\n  if (t >= n) return;\n  tile[t] = in[t];\n  __syncthreads();\n  out[t] = tile[(t + 1) % n];\n}\n";
    let want = "__global__ void shift(float *out, const float *in, int n) {\n  __shared__ float tile[256];\n  int t = threadIdx.x;\n  if (!(t >= n)) {\n    tile[t] = in[t];\n  }\n  __syncthreads();\n  if (t >= n) return;\n  out[t] = tile[(t + 1) % n];\n}\n";
    let opts = options(Language::Cuda, [256, 1, 1], [1, 1, 1]);
    assert_eq!(repaired_as(src, &opts, want), [ChangeKind::DelayReturn]);
    let r = repair_with(src, &opts);
    assert!(r.notes[0].contains("the early return `if (t >= n) return;` now follows `__syncthreads();`"), "{:?}", r.notes);
}

#[test]
fn an_early_return_in_braces_with_declarations_the_rest_uses() {
    // The value loaded before the barrier is used after it: its declaration is hoisted above
    // the guard.
    let src = "__kernel void k(__global float *out, __global const float *in, __local float *s, int n) {\n  int t = get_local_id(0);\n  if (t >= n) {\n    return;\n  }\n  float v = in[t];\n  s[t] = v;\n  barrier(CLK_LOCAL_MEM_FENCE);\n  out[t] = s[(t + 1) % n] + v;\n}\n";
    let want = "__kernel void k(__global float *out, __global const float *in, __local float *s, int n) {\n  int t = get_local_id(0);\n  float v;\n  if (!(t >= n)) {\n    v = in[t];\n    s[t] = v;\n  }\n  barrier(CLK_LOCAL_MEM_FENCE);\n  if (t >= n) {\n    return;\n  }\n  out[t] = s[(t + 1) % n] + v;\n}\n";
    let mut opts = options(Language::OpenCl, [64, 1, 1], [1, 1, 1]);
    opts.verifier.abstraction = syncfix::Abstraction::Equality;
    assert_eq!(repaired_as(src, &opts, want), [ChangeKind::DelayReturn]);
}

#[test]
fn an_early_return_before_a_loop_with_barriers_moves_past_the_loop() {
    // The tiled loop of real kernels: the barriers stand in a loop after the return. The
    // loop's statements between the barriers are guarded (a declaration the rest of the body
    // uses hoisted before its guard), the loop and its barriers run for every thread, and the
    // return follows the loop.
    let src = "__global__ void k(const int *in, int *out, int n) {\n  __shared__ int tile[64];\n  int t = threadIdx.x;\n  if (t >= n) return;\n  int sum = 0;\n  for (int b = 0; b < 4; ++b) {\n    tile[t] = in[b * 64 + t];\n    __syncthreads();\n    int v = tile[63 - t];\n    __syncthreads();\n    sum += v;\n  }\n  out[t] = sum;\n}\n";
    let want = "__global__ void k(const int *in, int *out, int n) {\n  __shared__ int tile[64];\n  int t = threadIdx.x;\n  int sum;\n  if (!(t >= n)) {\n    sum = 0;\n  }\n  for (int b = 0; b < 4; ++b) {\n    if (!(t >= n)) {\n      tile[t] = in[b * 64 + t];\n    }\n    __syncthreads();\n    int v;\n    if (!(t >= n)) {\n      v = tile[63 - t];\n    }\n    __syncthreads();\n    if (!(t >= n)) {\n      sum += v;\n    }\n  }\n  if (t >= n) return;\n  out[t] = sum;\n}\n";
    let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    assert_eq!(repaired_as(src, &opts, want), [ChangeKind::DelayReturn]);
    let r = repair_with(src, &opts);
    assert!(r.notes[0].contains("now follows the loop at line 6, whose statements are guarded by `!(t >= n)`"), "{:?}", r.notes);
    // A header that reads memory would be run by the threads that returned: not restructured,
    // and the 202 reason says why.
    let src = src.replace("b < 4", "b < lens[0]").replace("int n)", "int n, const int *lens)");
    unrepaired_because(&src, &opts, true, "the loop header `for (int b = 0; b < lens[0]; ++b)` may read memory");
}

#[test]
fn past_nested_loops_the_loops_own_counters_run_for_every_thread() {
    // The barriers stand in a `while` inside a `for`: both loops run for every thread, and so
    // do the statements that only set their counters (`int j = 0;`, `j++;`); a counter set from
    // memory cannot be, and the reason says so.
    let src = "__global__ void k(const int *in, int *out, int n) {\n  __shared__ int tile[64];\n  int t = threadIdx.x;\n  if (t >= n) return;\n  int acc = 0;\n  for (int i = 0; i < 2; ++i) {\n    int j = 0;\n    while (j < 3) {\n      tile[t] = in[(i * 3 + j) * 64 + t];\n      __syncthreads();\n      acc += tile[63 - t];\n      __syncthreads();\n      j++;\n    }\n  }\n  out[t] = acc;\n}\n";
    let want = "__global__ void k(const int *in, int *out, int n) {\n  __shared__ int tile[64];\n  int t = threadIdx.x;\n  int acc;\n  if (!(t >= n)) {\n    acc = 0;\n  }\n  for (int i = 0; i < 2; ++i) {\n    int j = 0;\n    while (j < 3) {\n      if (!(t >= n)) {\n        tile[t] = in[(i * 3 + j) * 64 + t];\n      }\n      __syncthreads();\n      if (!(t >= n)) {\n        acc += tile[63 - t];\n      }\n      __syncthreads();\n      j++;\n    }\n  }\n  if (t >= n) return;\n  out[t] = acc;\n}\n";
    let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    assert_eq!(repaired_as(src, &opts, want), [ChangeKind::DelayReturn]);
    let src = src.replace("      j++;", "      j = in[j] + 1;");
    unrepaired_because(&src, &opts, true, "`j = in[j] + 1;` changes a variable of the loop's header");
}

#[test]
fn without_a_barrier_an_early_return_moves_down_to_make_a_place_for_one() {
    let src = "__global__ void shift(float *out, const float *in, int n) {\n  __shared__ float tile[256];\n  int t = threadIdx.x;\n  if (t >= n) return;\n  tile[t] = in[t];\n  out[t] = tile[(t + 1) % n];\n}\n";
    let want = "__global__ void shift(float *out, const float *in, int n) {\n  __shared__ float tile[256];\n  int t = threadIdx.x;\n  if (!(t >= n)) {\n    tile[t] = in[t];\n  }\n  __syncthreads();\n  if (t >= n) return;\n  out[t] = tile[(t + 1) % n];\n}\n";
    let opts = options(Language::Cuda, [256, 1, 1], [1, 1, 1]);
    assert_eq!(repaired_as(src, &opts, want), [ChangeKind::DelayReturn, ChangeKind::Insert]);
}

#[test]
fn an_early_return_on_a_value_read_from_memory_is_decided_before_the_barrier() {
    // The condition reads memory: evaluated after the barrier it could see other threads'
    // writes, so it is evaluated where it was, into a bool.
    let src = "__global__ void k(float *out, const int *skip) {\n  __shared__ float tile[64];\n  int t = threadIdx.x;\n  if (skip[t] != 0) return;\n  tile[t] = 1.0f;\n  __syncthreads();\n  out[t] = tile[(t + 1) % 64];\n}\n";
    let want = "__global__ void k(float *out, const int *skip) {\n  __shared__ float tile[64];\n  int t = threadIdx.x;\n  bool cond = skip[t] != 0;\n  if (!cond) {\n    tile[t] = 1.0f;\n  }\n  __syncthreads();\n  if (cond) return;\n  out[t] = tile[(t + 1) % 64];\n}\n";
    assert_eq!(repaired_as(src, &options(Language::Cuda, [64, 1, 1], [1, 1, 1]), want), [ChangeKind::DelayReturn]);
}
