//! Repairs of kernels whose loops are proved with invariants (issue 12): the traces are not
//! exact there, so the repair keeps the kernel's own barriers, adds what is missing, and then
//! removes every barrier it added that the kernel does without. The answer verifies, keeps the
//! kernel's own barriers, and is minimal over those it inserted: taking out any one of them
//! makes the kernel fail. Functions called from the kernel keep
//! their call sites as barrier sites, `always_inline` or not, and OpenCL's `inline` functions
//! are analysed, not dropped.

mod common;

use common::*;
use syncfix::{ChangeKind, Language, Options, RepairStatus};

/// The lines of `patched` that are barrier statements.
fn barrier_lines(patched: &str) -> Vec<usize> {
    patched
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("__syncthreads();") || l.trim_start().starts_with("barrier("))
        .map(|(i, _)| i)
        .collect()
}

/// The lines of `patched` that are barriers the repair inserted into `src` (these repairs
/// only add lines).
fn inserted_barrier_lines(src: &str, patched: &str) -> Vec<usize> {
    let original: Vec<&str> = src.lines().collect();
    let mut next = 0;
    let mut inserted = vec![];
    for (i, l) in patched.lines().enumerate() {
        if original.get(next) == Some(&l) {
            next += 1;
        } else if barrier_lines(l).len() == 1 {
            inserted.push(i);
        }
    }
    assert_eq!(next, original.len(), "every line of the source is kept:\n{patched}");
    inserted
}

/// Asserts that `patched` (the repair of `src`) verifies, keeps every line of `src` (the
/// kernel's own barriers included), and fails without any one of the barriers it inserted.
#[track_caller]
fn verifies_and_is_minimal(src: &str, patched: &str, opts: &Options) {
    assert_eq!(verdict_with(patched, opts), "verified", "{patched}");
    let inserted = inserted_barrier_lines(src, patched);
    assert!(!inserted.is_empty(), "{patched}");
    for line in inserted {
        let without: String = patched.lines().enumerate().filter(|(i, _)| *i != line).map(|(_, l)| format!("{l}\n")).collect();
        assert_ne!(verdict_with(&without, opts), "verified", "the barrier on line {} is not needed:\n{patched}", line + 1);
    }
}

#[test]
fn a_loop_over_a_parameter_gets_the_missing_barrier_and_keeps_its_own() {
    let src = "__global__ void tiled(const int *in, int *out, int n) {\n  __shared__ int tile[64];\n  for (int i = 0; i < n; i++) {\n    tile[threadIdx.x] = in[i * 64 + threadIdx.x];\n    __syncthreads();\n    out[i * 64 + threadIdx.x] = tile[(threadIdx.x + 1) % 64];\n  }\n}\n";
    let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    let r = repair_with(src, &opts);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    let patched = r.patched.expect("a patched kernel");
    assert_eq!(barrier_lines(&patched).len(), 2, "{patched}");
    verifies_and_is_minimal(src, &patched, &opts);
}

#[test]
fn a_barrier_deleted_from_a_loop_nest_is_found_in_few_verifier_calls() {
    // The shape of GPUVerify's simplebinomialoptions: a barrier in the innermost loop deleted.
    // Searching all barriers at once enumerates cheap outer placements (over 80 verifier calls
    // there); keeping the kernel's barriers finds the inner one at once.
    let src = "__kernel void k(__global float *buf, int n) {\n  __local float a[17];\n  __local float b[17];\n  int t = get_local_id(0);\n  for (int i = n; i > 0; i -= 4) {\n    for (int c = 0; c < i; c += 12) {\n      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n      a[t] = buf[c + t];\n      for (int j = 0; j < 4; j += 2) {\n        barrier(CLK_LOCAL_MEM_FENCE);\n        b[t] = a[t + 1] + a[t];\n        a[t] = b[t + 1] + b[t];\n      }\n      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n      buf[c + t] = a[t];\n    }\n  }\n}\n";
    let opts = options(Language::OpenCl, [16, 1, 1], [1, 1, 1]);
    let r = repair_with(src, &opts);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    let patched = r.patched.expect("a patched kernel");
    assert!(r.timings.verifier_calls <= 15, "{} verifier calls", r.timings.verifier_calls);
    verifies_and_is_minimal(src, &patched, &opts);
}

#[test]
fn a_call_to_an_always_inline_function_is_a_barrier_site() {
    // clang's always-inliner would erase the call; the barrier belongs before it, not inside
    // the function (where every other caller would pay for it).
    let src = "__attribute__((always_inline)) inline void use(local int *A, global int *out) {\n  out[get_global_id(0)] = A[(get_local_id(0) + 1) % 64];\n}\nkernel void k(local int *A, global int *out) {\n  A[get_local_id(0)] = 1;\n  use(A, out);\n}\n";
    let opts = options(Language::OpenCl, [64, 1, 1], [4, 1, 1]);
    let r = repair_with(src, &opts);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    let patched = r.patched.expect("a patched kernel");
    let lines: Vec<&str> = patched.lines().map(str::trim).collect();
    let call = lines.iter().position(|l| *l == "use(A, out);").expect("the call");
    assert_eq!(lines[call - 1], "barrier(CLK_LOCAL_MEM_FENCE);", "{patched}");
    assert_eq!(barrier_lines(&patched).len(), 1, "{patched}");
}

#[test]
fn a_race_inside_an_opencl_inline_function_is_found() {
    // C99 `inline` leaves only a declaration for clang to call: its body must still be seen.
    starts(
        opencl("inline void f(local int *A) { A[0] = get_local_id(0); }\nkernel void k(local int *A) { f(A); }\n", 64, 1),
        "possible write-write race",
    );
    assert_eq!(
        opencl("inline void f(local int *A) { A[get_local_id(0)] = 1; }\nkernel void k(local int *A) { f(A); }\n", 64, 1),
        "verified"
    );
}

#[test]
fn the_end_of_a_loop_body_is_a_barrier_site() {
    // GPUVerify's inference_tests/access_means_enabled with its inner barrier deleted: the
    // outer loop's invariant says no write to A is logged at its head, so the writes of the
    // inner loop must be ordered after its last iteration, on the way back to the outer head:
    // at the end of a loop body, where no statement starts.
    let src = "kernel void foo() {\n    local int A[32];\n    A[get_local_id(0)] = 42;\n    barrier(CLK_LOCAL_MEM_FENCE);\n    for(int j = 0; __global_invariant(__no_read(A)), __global_invariant(__no_write(A)), j < get_group_id(0); j++) {\n      for(int k = 0; k < get_group_id(0); k++) {\n        if(j > get_local_id(0)) {\n            for(int i = 0; i < get_group_id(0); i++) {\n                A[get_local_id(0)] += 42;\n            }\n        }\n      }\n    }\n    A[(get_local_id(0) + 1) % 32] = 1;\n}\n";
    let opts = options(Language::OpenCl, [32, 1, 1], [32, 1, 1]);
    let r = repair_with(src, &opts);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    assert!(r.changes.iter().any(|c| c.kind == ChangeKind::InsertEnd), "{:?}", r.changes);
    let patched = r.patched.expect("a patched kernel");
    let lines: Vec<&str> = patched.lines().map(str::trim).collect();
    let b = lines.iter().enumerate().skip(4).find(|(_, l)| **l == "barrier(CLK_LOCAL_MEM_FENCE);").map(|(i, _)| i).expect("a new barrier");
    assert_eq!(lines[b + 1], "}", "{patched}");
    verifies_and_is_minimal(src, &patched, &opts);
}
