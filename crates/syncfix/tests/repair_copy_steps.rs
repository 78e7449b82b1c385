//! Barriers inside a copy call (GPURepair §2.2's sites between the accesses of one statement,
//! spelled in the source): `memcpy(d, s, n);` whose bytes overlap between threads is printed as
//! a copy in steps with a barrier between them, where the threads' copies stop overlapping.

mod common;

use common::*;
use syncfix::{Applicability, ChangeKind, Language, RepairStatus};

/// A struct of 6 bytes (GPUVerify's CUDA/memcpy/fail_overstep): each thread copies 12 bytes
/// from its own element on, so its second element is its neighbour's first.
const OVERSTEP: &str = "typedef struct {\n  short x;\n  short y;\n  char z;\n} s_t;\n\n__global__ void k(s_t *in, s_t *out) {\n  memcpy(&out[threadIdx.x], &in[threadIdx.x], 12);\n}\n";

fn cuda(block: u32) -> syncfix::Options {
    options(Language::Cuda, [block, 1, 1], [1, 1, 1])
}

#[test]
fn an_overlapping_copy_is_done_in_steps_with_a_barrier_where_the_overlap_begins() {
    let r = repair_with(OVERSTEP, &cuda(2));
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}\n{:?}", r.status, r.findings);
    let patched = r.patched.clone().expect("a patched kernel");
    let want = "typedef struct {\n  short x;\n  short y;\n  char z;\n} s_t;\n\n__global__ void k(s_t *in, s_t *out) {\n  {\n    char *dst = (char *)(&out[threadIdx.x]);\n    const char *src = (const char *)(&in[threadIdx.x]);\n    memcpy(dst, src, 6);\n    __syncthreads();\n    memcpy(dst + 6, src + 6, 6);\n  }\n}\n";
    assert_eq!(patched, want, "patched:\n{patched}");
    assert_eq!(r.changes.iter().map(|c| (c.kind, c.line)).collect::<Vec<_>>(), [(ChangeKind::InsertStep, 8)]);
    // The same bytes are copied, in two calls: a safe fix, and a note on the other way out.
    assert_eq!(r.applicability, Some(Applicability::Safe));
    assert!(
        r.notes.iter().any(|n| n.contains("the `memcpy` at line 8 now copies in steps") && n.contains("copy fewer bytes")),
        "{:?}",
        r.notes
    );
    starts(verdict_with(&patched, &cuda(2)), "verified");
    starts(verdict_with(&patched, &cuda(64)), "verified");
    assert_eq!(syncfix::apply_edits(OVERSTEP, &r.edits), patched);
}

#[test]
fn the_first_step_copies_as_much_as_does_not_overlap() {
    // Thread t copies 5 bytes to 4t (and the destination starts one byte later in the second
    // kernel): a barrier after 1, 2, 3 or 4 bytes would do; the repair copies 4 first, and the
    // rest is counted from the user's length.
    let src = "typedef struct { short x; short y; } s_t;\n__global__ void k(s_t *in, s_t *out) {\n  size_t len = 5;\n  memcpy(&out[threadIdx.x], &in[threadIdx.x], len);\n}\n";
    let r = repair_with(src, &cuda(8));
    let patched = r.patched.clone().unwrap_or_else(|| panic!("{:?}", r.status));
    assert!(patched.contains("    memcpy(dst, src, 4);\n    __syncthreads();\n    memcpy(dst + 4, src + 4, len - 4);\n"), "{patched}");
    starts(verdict_with(&patched, &cuda(8)), "verified");
    let src = "typedef struct { short x; short y; } s_t;\n__global__ void k(s_t *in, s_t *out) {\n  memcpy((char *)&out[threadIdx.x] + 1, &in[threadIdx.x], 2 + 4);\n}\n";
    let r = repair_with(src, &cuda(8));
    let patched = r.patched.clone().unwrap_or_else(|| panic!("{:?}", r.status));
    assert!(patched.contains("char *dst = (char *)((char *)&out[threadIdx.x] + 1);"), "{patched}");
    assert!(patched.contains("    memcpy(dst, src, 4);\n    __syncthreads();\n    memcpy(dst + 4, src + 4, (2 + 4) - 4);\n"), "{patched}");
    starts(verdict_with(&patched, &cuda(8)), "verified");
}

#[test]
fn names_taken_in_the_file_are_not_reused_and_a_sole_body_stays_one_statement() {
    // `dst` and `src` are words of the file (the macro's parameters); the copy is the body of
    // an `if` every thread takes alike.
    let src = "#define memcpy(dst, src, len) __builtin_memcpy(dst, src, len)\n__global__ void k(int *in, int *out, int n) {\n  if (n > 0)\n    memcpy(&out[threadIdx.x], &in[threadIdx.x], 8);\n}\n";
    let r = repair_with(src, &cuda(4));
    let patched = r.patched.clone().unwrap_or_else(|| panic!("{:?}", r.status));
    let want = "#define memcpy(dst, src, len) __builtin_memcpy(dst, src, len)\n__global__ void k(int *in, int *out, int n) {\n  if (n > 0)\n    {\n      char *dst1 = (char *)(&out[threadIdx.x]);\n      const char *src1 = (const char *)(&in[threadIdx.x]);\n      memcpy(dst1, src1, 4);\n      __syncthreads();\n      memcpy(dst1 + 4, src1 + 4, 4);\n    }\n}\n";
    assert_eq!(patched, want, "patched:\n{patched}");
    starts(verdict_with(&patched, &cuda(4)), "verified");
}

#[test]
fn copies_that_do_not_overlap_are_left_alone() {
    let src = "__global__ void k(int *in, int *out) {\n  memcpy(&out[2 * threadIdx.x], &in[2 * threadIdx.x], 8);\n}\n";
    starts(verdict_with(src, &cuda(32)), "verified");
    let r = repair_with(src, &cuda(32));
    assert!(matches!(r.status, RepairStatus::NoChange), "{:?}", r.status);
}

#[test]
fn steps_cannot_order_threads_copying_to_the_same_bytes() {
    // Every thread copies to out[0..2): the same step of two threads races, and no barrier
    // between steps changes that.
    let src = "__global__ void k(int *in, int *out) {\n  memcpy(&out[0], &in[threadIdx.x], 8);\n}\n";
    unrepaired_because(src, &cuda(32), false, "same statement executed by two threads");
}

#[test]
fn memmove_and_long_copies_are_not_done_in_steps() {
    // memmove's source and destination may overlap, so copying it in steps could change what
    // it copies; a copy longer than 32 bytes gets no sites inside it.
    for call in ["__builtin_memmove(&out[threadIdx.x], &in[threadIdx.x], 8)", "memcpy(&out[threadIdx.x], &in[threadIdx.x], 40)"] {
        let src = format!("__global__ void k(int *in, int *out) {{\n  {call};\n}}\n");
        unrepaired_because(&src, &cuda(32), false, "made by one statement");
    }
}

#[test]
fn a_copy_into_a_shared_tile_in_a_loop_steps_by_whole_elements() {
    // Each thread stages two 12-byte particles into a shared tile (one too many): the steps are
    // whole elements of the tile, and the barrier goes after the thread's own element. The
    // user's barrier at the end of the loop body stays (the repair keeps the kernel's own
    // barriers, issue 28; it is no longer needed, the next iteration's write into a
    // neighbour's element now waiting at the new barrier, and `audit` would say so).
    let src = "struct particle { float x, y, z; };\n\n__global__ void gather(const particle *in, float *out, int n) {\n  __shared__ particle tile[64];\n  int t = threadIdx.x;\n  for (int base = 0; base < n; base += 64) {\n    memcpy(&tile[t], &in[base + t], 2 * sizeof(particle));\n    __syncthreads();\n    out[base + t] = tile[t].x + tile[t].y + tile[t].z;\n    __syncthreads();\n  }\n}\n";
    let opts = cuda(63);
    let r = repair_with(src, &opts);
    let patched = r.patched.clone().unwrap_or_else(|| panic!("{:?}", r.status));
    assert!(
        patched.contains("      memcpy(dst, src, 12);\n      __syncthreads();\n      memcpy(dst + 12, src + 12, (2 * sizeof(particle)) - 12);\n    }\n    __syncthreads();\n    out[base + t]"),
        "{patched}"
    );
    assert!(patched.contains("tile[t].z;\n    __syncthreads();\n  }"), "{patched}");
    assert_eq!(r.changes.iter().map(|c| c.kind).collect::<Vec<_>>(), [ChangeKind::InsertStep]);
    starts(verdict_with(&patched, &opts), "verified");
}

#[test]
fn a_copy_through_a_macro_of_another_name_is_not_done_in_steps() {
    // `COPY` scales its length: printing `COPY(dst + 4, src + 4, ...)` in steps would copy other
    // bytes than the user's call. Only calls spelled with a copy function's name get steps.
    let src = "#define COPY(d, s, n) memcpy(d, s, (n) * 4)\n__global__ void k(int *in, int *out) {\n  COPY(&out[threadIdx.x], &in[threadIdx.x], 2);\n}\n";
    unrepaired_because(src, &cuda(32), false, "made by one statement");
}
