//! The concrete replay of races and divergences (issue 29): every race or divergence the
//! verifier reports is replayed on concrete threads and inputs and marked confirmed (with the
//! threads, the element, the loop iterations and the arguments that make it happen) or
//! possible (with the reason). clang-19 and Z3 are required.

mod common;

use common::*;
use syncfix::{Finding, Language, Replay};

/// The first finding of `src` (CUDA, `block` threads, `grid` blocks) and its replay.
fn replayed(src: &str, block: u32, grid: u32) -> (Finding, Replay) {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(Language::Cuda, [block, 1, 1], [grid, 1, 1]);
    let path = write(dir.path(), Language::Cuda, src);
    let (reports, _) = syncfix::verify(&path, src, &opts).expect("verifies");
    assert!(reports[0].status.is_defect(), "{:?}", reports[0].status);
    let f = reports[0].findings[0].clone();
    let r = f.replay().cloned().expect("a race or divergence is replayed");
    (f, r)
}

#[test]
fn a_race_that_needs_a_large_argument_is_confirmed_with_the_smallest_value_that_makes_it() {
    let (f, r) = replayed("__global__ void k(int *A, int n) {\n  if (n > 100) {\n    A[0] = threadIdx.x;\n  }\n}\n", 64, 1);
    assert!(f.headline().starts_with("possible write-write race on A[0]"));
    assert!(r.confirmed, "{r:?}");
    let w = r.witness.unwrap();
    let n = w.arguments.iter().find(|(name, _)| name == "n").map(|(_, v)| *v as i32).unwrap();
    // The smallest `n` that makes the race: the model's, or made so by the replay.
    assert_eq!(n, 101, "{w:?}");
    assert_eq!(w.element.as_deref(), Some("A[0]"));
    assert_ne!(w.threads[0].local, w.threads[1].local);
}

#[test]
fn a_race_carried_across_loop_iterations_is_confirmed_with_the_iterations() {
    // The read of the next thread's element in one iteration and that thread's write in the
    // next: no barrier between them.
    let src = "__global__ void k(int *A) {\n  __shared__ int s[64];\n  int acc = 0;\n  for (int i = 0; i < 4; i++) {\n    s[threadIdx.x] = i;\n    __syncthreads();\n    acc += s[(threadIdx.x + 1) % 64];\n  }\n  A[threadIdx.x] = acc;\n}\n";
    let (_, r) = replayed(src, 64, 1);
    assert!(r.confirmed, "{r:?}");
    let w = r.witness.unwrap();
    let [a, b] = &w.iterations;
    assert_eq!((a.len(), b.len()), (1, 1), "{w:?}");
    assert_eq!((a[0].line, b[0].line), (4, 4));
    assert_eq!(a[0].iteration.abs_diff(b[0].iteration), 1, "{w:?}");
}

#[test]
fn a_false_alarm_from_a_cut_loop_is_possible_with_the_reason() {
    // `x` stays a permutation of the thread ids, which no loop invariant of the verifier says:
    // the cut loop lets two threads share an `x`; the replay shows they do not.
    let src = "__global__ void k(int *A, int n) {\n  __shared__ int s[64];\n  int x = threadIdx.x;\n  for (int i = 0; i < n; i++) {\n    x = 63 - x;\n  }\n  s[x] = threadIdx.x;\n}\n";
    let (f, r) = replayed(src, 64, 1);
    assert!(f.headline().starts_with("possible write-write race on s["));
    assert!(!r.confirmed);
    let why = r.reason.unwrap();
    assert!(why.contains("never touch a common byte"), "{why}");
    assert!(why.contains("loop cut at its head"), "{why}");
}

#[test]
fn barrier_divergence_is_confirmed() {
    let (f, r) =
        replayed("__global__ void k(int *A) {\n  if (threadIdx.x < 16) {\n    __syncthreads();\n  }\n  A[threadIdx.x] = 1;\n}\n", 64, 1);
    assert!(matches!(f, Finding::Divergence { .. }));
    assert!(r.confirmed, "{r:?}");
    let w = r.witness.unwrap();
    assert!(w.threads[0].local[0] < 16 && w.threads[1].local[0] >= 16, "{w:?}");
}

#[test]
fn a_race_between_blocks_is_replayed_on_both_blocks() {
    let (_, r) = replayed("__global__ void k(int *A) {\n  A[threadIdx.x] = blockIdx.x;\n}\n", 32, 4);
    assert!(r.confirmed, "{r:?}");
    let w = r.witness.unwrap();
    assert_ne!(w.threads[0].group, w.threads[1].group);
}

#[test]
fn a_divergence_that_depends_on_input_memory_is_confirmed_with_the_memory_the_model_chose() {
    // Only where the input holds different values do the threads diverge: the model's `A`
    // has them (the search's fills are not needed).
    let src =
        "__global__ void k(int *A) {\n  int v = A[threadIdx.x];\n  if (v == 0) {\n    __syncthreads();\n  }\n  A[threadIdx.x] = 1;\n}\n";
    let (_, r) = replayed(src, 64, 1);
    assert!(r.confirmed, "{r:?}");
    assert_eq!(r.witness.unwrap().search, None);
}

#[test]
fn a_race_behind_a_value_in_memory_is_confirmed_with_the_memory_the_model_chose() {
    // Neither zeros nor the search's fills hold 12345; the model's `flag` does.
    let src = "__global__ void k(int *A, int *flag) {\n  if (flag[1] == 12345) {\n    A[threadIdx.x % 2] = threadIdx.x;\n  }\n}\n";
    let (f, r) = replayed(src, 64, 1);
    assert!(f.headline().starts_with("possible write-write race on A["), "{}", f.headline());
    assert!(r.confirmed, "{r:?}");
    let w = r.witness.unwrap();
    assert_eq!(w.search, None);
    assert_eq!(w.memory, vec![("flag[1]".to_string(), 12345)]);
}

#[test]
fn a_race_through_indices_read_from_memory_is_confirmed_with_the_models_indices() {
    // The threads' indices, read from `idx`, make them meet only where the model chose them
    // to (`idx[t] + 1000 t` is one element for two threads).
    let src = "__global__ void k(int *A, int *idx) {\n  A[idx[threadIdx.x] + 1000 * threadIdx.x] = threadIdx.x;\n}\n";
    let (_, r) = replayed(src, 64, 1);
    assert!(r.confirmed, "{r:?}");
    let w = r.witness.unwrap();
    assert_eq!(w.search, None);
    assert_ne!(w.threads[0].local, w.threads[1].local);
}

#[test]
fn a_race_through_a_value_the_replay_cannot_compute_is_possible() {
    // A function without a body returns an arbitrary value, which decides the address: the
    // replay gives it a value but never confirms what depends on it.
    let src = "__device__ int g(int);\n__global__ void k(int *A) {\n  int c = g(threadIdx.x) & 1;\n  A[c] = threadIdx.x;\n}\n";
    let (_, r) = replayed(src, 64, 1);
    assert!(!r.confirmed, "{r:?}");
    let why = r.reason.unwrap();
    assert!(why.contains("cannot compute") && why.contains("line 3"), "{why}");
}

#[test]
fn a_repair_says_which_inserted_barriers_order_only_races_the_replay_did_not_confirm() {
    let repaired = |src: &str| {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
        let path = write(dir.path(), Language::Cuda, src);
        let r = syncfix::repair(&path, src, &opts).expect("repairs");
        assert!(matches!(r.kernels[0].status, syncfix::RepairStatus::Repaired), "{:?}", r.status);
        r.kernels[0].possible_only.clone()
    };
    // `x` is the thread's own index, read back from `p`, which the verifier abstracts: the
    // race it reports on `s` cannot happen, and the barrier before line 8 orders only it.
    let spurious = "__global__ void k(int *A) {\n  __shared__ int p[64];\n  __shared__ int s[64];\n  p[threadIdx.x] = threadIdx.x;\n  __syncthreads();\n  int x = p[threadIdx.x];\n  s[threadIdx.x] = 2;\n  A[threadIdx.x] = s[x];\n}\n";
    assert_eq!(repaired(spurious), vec![8]);
    // A neighbour's element: the race is real, and its barrier is not listed.
    let real = "__global__ void k(int *A) {\n  __shared__ int s[64];\n  s[threadIdx.x] = A[threadIdx.x];\n  A[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n}\n";
    assert_eq!(repaired(real), Vec::<u32>::new());
}

#[test]
fn a_symbolic_launch_is_made_small_in_the_witness() {
    // Any launch (`*`): thread pairs 2t, 2t + 1 share an element. The model may choose huge
    // sizes; the witness is the smallest launch that still has the race: one block of two.
    let src = "__global__ void k(int *A) {\n  A[blockIdx.x * blockDim.x + threadIdx.x / 2] = threadIdx.x;\n}\n";
    let (_, r) = replayed(src, 0, 0);
    assert!(r.confirmed, "{r:?}");
    let w = r.witness.unwrap();
    assert_eq!((w.threads[0].block_dim[0], w.threads[0].grid_dim[0]), (2, 1), "{w:?}");
    assert_eq!(w.element.as_deref(), Some("A[0]"));
}
