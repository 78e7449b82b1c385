//! Barriers inside one statement (GPURepair §2.2's access points, spelled in the source): an
//! assignment's right-hand side hoisted into a temporary, and a read-modify-write (`x++`,
//! `x op= e`) read into a temporary and written after the barrier; and what a race no site can
//! order says.

mod common;

use common::*;
use syncfix::{Abstraction, ChangeKind, Language, RepairStatus};

#[test]
fn a_read_modify_write_racing_with_itself_is_split() {
    // Every work-item increments p[0]: one's read races with another's write. Split, each reads
    // the same value before the barrier and writes the same value after it, a benign
    // write-write race under the equality abstraction (GPUVerify's test_for_benign_read_write_bug).
    let src = "__kernel void foo(__local short *p) {\n  p[0]++;\n}\n";
    let mut opts = options(Language::OpenCl, [64, 1, 1], [4, 1, 1]);
    opts.verifier.abstraction = Abstraction::Equality;
    let r = repair_with(src, &opts);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    let patched = r.patched.expect("a patched kernel");
    assert_eq!(
        patched,
        "__kernel void foo(__local short *p) {\n  short tmp = p[0];\n  barrier(CLK_LOCAL_MEM_FENCE);\n  p[0] = tmp + 1;\n}\n"
    );
    assert_eq!(r.changes.iter().map(|c| c.kind).collect::<Vec<_>>(), [ChangeKind::InsertSplit]);
    starts(verdict_with(&patched, &opts), "verified");
    // Adversarially, the threads may write different values: no barrier can help.
    opts.verifier.abstraction = Abstraction::Adversarial;
    let r = repair_with(src, &opts);
    assert!(matches!(r.status, RepairStatus::Unrepairable(_)), "{:?}", r.status);
}

#[test]
fn a_compound_assignment_with_a_constant_operand_is_split_like_an_increment() {
    // Thread t reads s[t / 2 * 2] (its pair's cell when t is odd) and writes it: one thread's
    // read races with its pair's write within the statement.
    let src = "__global__ void k(int *A) {\n  __shared__ int s[64];\n  unsigned t = threadIdx.x;\n  s[t] = 0;\n  __syncthreads();\n  s[t / 2 * 2] += 2;\n  __syncthreads();\n  A[t] = s[t];\n}\n";
    let mut opts = options(Language::Cuda, [32, 1, 1], [1, 1, 1]);
    opts.verifier.abstraction = Abstraction::Equality;
    let r = repair_with(src, &opts);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    let patched = r.patched.expect("a patched kernel");
    assert!(patched.contains("  int tmp = s[t / 2 * 2];\n  __syncthreads();\n  s[t / 2 * 2] = tmp + 2;\n"), "{patched}");
    starts(verdict_with(&patched, &opts), "verified");
}
