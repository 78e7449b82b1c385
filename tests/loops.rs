//! Loops that the verifier proves with invariants, as real kernels write them (the kernels are
//! in `tests/data/`): each must be verified, and a variant with a real defect must not be.

use assert_cmd::Command;
use std::path::Path;

fn verify(dir: &Path, file: &str, launch: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("syncfix").unwrap().current_dir(dir).arg("verify").args(launch).arg(file).output().unwrap();
    (out.status.code().unwrap_or(-1), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// `syncfix repair` of `file` in `dir`, which must succeed (exit 0): its diff.
#[track_caller]
fn repaired(dir: &Path, file: &str, launch: &[&str]) -> String {
    let out = Command::cargo_bin("syncfix").unwrap().current_dir(dir).arg("repair").args(launch).arg(file).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// PPCG's strip-mined loops: each block's counters start at `32 * b` and step by 8192, and
/// keep that congruence after the loops are cut, also in the outer loop's ghost copy of an
/// earlier iteration (a false write-write race between blocks before a2b168a).
#[test]
fn ppcg_counters_keep_their_congruence() {
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ppcg_congruence.cu")).unwrap();
    let launch = ["--blockDim=[32,32]", "--gridDim=[256,256]"];
    std::fs::write(d.path().join("kernel.cu"), &text).unwrap();
    let (code, out) = verify(d.path(), "kernel.cu", &launch);
    assert_eq!(code, 0, "{out}");
    // Steps of 16: the blocks' columns overlap, a real race.
    std::fs::write(d.path().join("overlap.cu"), text.replace("c1 += 8192", "c1 += 16")).unwrap();
    let (code, out) = verify(d.path(), "overlap.cu", &launch);
    assert_eq!(code, 6, "{out}");
    assert!(out.contains("possible write-write race on B["), "{out}");
}

/// A function-wide invariant on a race log that a loop's iteration may set at either of two
/// reads (the loop head's specs are evaluated once per access the log may hold: `log_cases`):
/// proved as written, and not maintained when either read is of another column (one that no
/// thread writes, so that the kernel has no race).
#[test]
fn function_wide_invariant_over_each_logged_read() {
    let d = tempfile::tempdir().unwrap();
    let text = data("function_wide_read_log.cl");
    let launch = ["--local_size=[32]", "--num_groups=[1]"];
    std::fs::write(d.path().join("k.cl"), &text).unwrap();
    let (code, out) = verify(d.path(), "k.cl", &launch);
    assert_eq!(code, 0, "{out}");
    for (from, to) in [("A[(c + 1) * n + t]", "A[(c + 1) * n + t + 32]"), ("A[(c + 2) * n + t]", "A[(c + 2) * n + t + 32]")] {
        let wrong = text.replace(from, to);
        assert_ne!(wrong, text);
        std::fs::write(d.path().join("wrong.cl"), &wrong).unwrap();
        let (code, out) = verify(d.path(), "wrong.cl", &launch);
        assert_ne!(code, 0, "{from} -> {to}: {out}");
        assert!(out.contains("loop invariant might not be maintained by the loop"), "{from} -> {to}: {out}");
    }
}

fn data(file: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(file)).unwrap()
}

/// The SDK's tiled matrix multiplication: the tile loop is cut and proved by Houdini (whose
/// last round, the disjunction of 41 checks, took Z3 minutes before the checks were solved
/// one at a time past a budget); without its precondition on `wB` the blocks' tiles of C
/// overlap, a real race; without the barrier after the loads, the repair puts it back.
#[test]
fn tiled_matrix_multiplication() {
    let d = tempfile::tempdir().unwrap();
    matmul_verdicts_and_repair(d.path(), &["--blockDim=[16,16]", "--gridDim=[8,8]"]);
}

/// The tiled matrix multiplication (in `dir`) verified with `launch` and its other flags,
/// without its precondition on `wB` a race on C, and without the barrier after the loads
/// repaired by putting it back.
fn matmul_verdicts_and_repair(dir: &Path, launch: &[&str]) {
    let text = data("tiled_matmul.cu");
    std::fs::write(dir.join("matmul.cu"), &text).unwrap();
    let (code, out) = verify(dir, "matmul.cu", launch);
    assert_eq!(code, 0, "{out}");
    std::fs::write(dir.join("any_width.cu"), text.replace("  __requires(wB == BLOCK_SIZE * gridDim.x);\n", "")).unwrap();
    let (code, out) = verify(dir, "any_width.cu", launch);
    assert_eq!(code, 6, "{out}");
    assert!(out.contains("possible write-write race on C["), "{out}");
    let missing = text.replacen("    __syncthreads();\n    for (int k", "    for (int k", 1);
    assert_ne!(missing, text);
    std::fs::write(dir.join("missing.cu"), &missing).unwrap();
    let stdout = repaired(dir, "missing.cu", launch);
    assert!(stdout.contains("+    __syncthreads();\n     for (int k"), "{stdout}");
}

/// A Houdini round whose disjunction is not answered within `verifier.houdini_race_after_ms`
/// is solved again beside its checks one at a time, the first to end taken (issue 25): with
/// zero every round races (some are answered by the disjunction first, some by the checks),
/// and the verdicts and the repair are those of the rounds solved one after the other.
#[test]
fn houdini_rounds_raced_against_their_checks() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("race.toml"), "[verifier]\nhoudini_race_after_ms = 0\n").unwrap();
    matmul_verdicts_and_repair(d.path(), &["--blockDim=[16,16]", "--gridDim=[8,8]", "--config=race.toml", "--solver-threads=2"]);
}

/// Houdini's solvers are kept between rounds only for the `verifier.houdini_solvers` groups
/// used last (issue 25: one Z3 context each, 17–40 MB; the `loops` scaling family held 5 GB):
/// with one kept, every group solved again is made again from its slice, and the verdicts
/// and the repair are the same (the tiled multiplication's repair solves Houdini under
/// several barrier assignments, its groups in turn).
#[test]
fn houdini_with_one_solver_kept() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("one.toml"), "[verifier]\nhoudini_solvers = 1\n").unwrap();
    let text = data("tiled_matmul.cu");
    let launch = ["--blockDim=[16,16]", "--gridDim=[8,8]", "--config=one.toml", "--stats"];
    std::fs::write(d.path().join("matmul.cu"), &text).unwrap();
    let (code, out) = verify(d.path(), "matmul.cu", &launch);
    assert_eq!(code, 0, "{out}");
    let missing = text.replacen("    __syncthreads();\n    for (int k", "    for (int k", 1);
    std::fs::write(d.path().join("missing.cu"), &missing).unwrap();
    let stdout = repaired(d.path(), "missing.cu", &launch);
    assert!(stdout.contains("+    __syncthreads();\n     for (int k"), "{stdout}");
    // Zero is refused.
    std::fs::write(d.path().join("zero.toml"), "[verifier]\nhoudini_solvers = 0\n").unwrap();
    let (code, out) = verify(d.path(), "matmul.cu", &["--blockDim=[16,16]", "--gridDim=[8,8]", "--config=zero.toml"]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("verifier.houdini_solvers must be at least 1"), "{out}");
}

/// The CUDA SDK's `bitonicMergeShared` (issue 28): the loop over strides is unrolled; with
/// the barrier after the loop deleted, the repair puts one back between the loop and the
/// stores that read the other threads' cells, and with the barrier at the head of the loop
/// deleted, one at the head of the loop's body.
#[test]
fn bitonic_merge_shared_gets_its_barriers_back() {
    let d = tempfile::tempdir().unwrap();
    let text = data("bitonic_merge_shared.cu");
    let launch = ["--gridDim=1024", "--blockDim=512"];
    std::fs::write(d.path().join("bitonic.cu"), &text).unwrap();
    let (code, out) = verify(d.path(), "bitonic.cu", &launch);
    assert_eq!(code, 0, "{out}");
    // (the barrier's line, the line after it, the diff's insertion)
    for (line, next, expected) in [
        ("  cg::sync(cta);\n", "  d_DstKey[0]", "+  __syncthreads();\n   d_DstKey[0]"),
        ("    cg::sync(cta);\n", "    uint pos", "+    __syncthreads();\n     uint pos"),
    ] {
        let deleted = format!("{line}{next}");
        assert!(text.contains(&deleted), "{deleted}");
        let missing = text.replacen(&deleted, next, 1);
        std::fs::write(d.path().join("missing.cu"), &missing).unwrap();
        let stdout = repaired(d.path(), "missing.cu", &launch);
        assert!(stdout.contains(expected), "{stdout}");
    }
}

/// After a cut loop every thread that entered it is past it (`reconverge`): a race after the
/// loop is still found, and a thread that returned early inside the loop is not taken to be
/// past it.
#[test]
fn predicates_after_a_cut_loop() {
    let d = tempfile::tempdir().unwrap();
    let launch = ["--blockDim=64", "--gridDim=1"];
    let race_after =
        "__global__ void k(int *A, int n) {\n  for (int i = threadIdx.x; i < n; i += blockDim.x) A[i] += 1;\n  A[n] = threadIdx.x;\n}\n";
    std::fs::write(d.path().join("after.cu"), race_after).unwrap();
    let (code, out) = verify(d.path(), "after.cu", &launch);
    assert_eq!(code, 6, "{out}");
    assert!(out.contains("possible write-write race on A["), "{out}");
    // Thread 0 leaves inside the loop; the others all reach the barrier after it, which is
    // therefore divergence only if thread 0 may leave: it may (n > 0).
    let early_return = "__global__ void k(int *A, int n) {\n  for (int i = 0; i < n; i++) { if (threadIdx.x == 0) return; A[threadIdx.x] += i; }\n  __syncthreads();\n}\n";
    std::fs::write(d.path().join("early.cu"), early_return).unwrap();
    let (code, out) = verify(d.path(), "early.cu", &launch);
    assert_eq!(code, 6, "{out}");
    assert!(out.contains("barrier may be reached by non-uniform control flow"), "{out}");
    // Without the early return the same loop is fine.
    std::fs::write(d.path().join("fine.cu"), early_return.replace("if (threadIdx.x == 0) return; ", "")).unwrap();
    let (code, out) = verify(d.path(), "fine.cu", &launch);
    assert_eq!(code, 0, "{out}");
}

/// A run stopped by `--timeout` still says in `--stats` what it did before the limit (issue
/// 28: the stats were lost when the limit hit): the repair of the tiled matrix multiplication
/// without its second barrier runs Houdini for several seconds.
#[test]
fn stats_survive_a_timeout() {
    let d = tempfile::tempdir().unwrap();
    let text = data("tiled_matmul.cu");
    let missing =
        text.replacen("      Csub += As[ty][k] * Bs[k][tx];\n    __syncthreads();\n", "      Csub += As[ty][k] * Bs[k][tx];\n", 1);
    assert_ne!(missing, text);
    std::fs::write(d.path().join("missing.cu"), &missing).unwrap();
    let out = Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(d.path())
        .args(["repair", "--blockDim=[16,16]", "--gridDim=[8,8]", "--timeout=2", "--stats", "missing.cu"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    let stats = stderr.lines().find(|l| l.starts_with("syncfix: stats: frontend")).expect("the stats line");
    assert!(!stats.contains("houdini rounds 0,"), "the work before the limit is counted: {stats}");
}

/// A repair's `--stats` and JSON give each verifier call (the sites on, the answer, Houdini's
/// rounds), and later calls reuse what earlier ones proved where the barriers that changed
/// do not reach (issue 28): here the queries of the intervals that no site splits.
#[test]
fn a_repair_lists_its_verifier_calls_and_reuses_their_answers() {
    let d = tempfile::tempdir().unwrap();
    let src = "__global__ void k(float *A, int n) {
  __shared__ float s[64];
  for (int i = 0; i < n; i++) {
    s[threadIdx.x] = A[i * 64 + threadIdx.x];
    A[i * 64 + threadIdx.x] = s[(threadIdx.x + 1) % 64];
    __syncthreads();
  }
}
";
    let json = repair_json(d.path(), src);
    let calls = json["kernels"][0]["calls"].as_array().expect("the calls");
    assert!(calls.len() >= 2, "{json}");
    // The answer: a new barrier at line 5 with the user's at line 6, verified by a call.
    assert!(calls.iter().any(|c| c["outcome"] == "verified" && c["on"] == serde_json::json!(["5", "6 existing"])), "{json}");
    assert!(calls.iter().filter(|c| c["outcome"] == "race").all(|c| c["exact"].is_boolean()), "{json}");
    assert!(calls.iter().all(|c| c["ms"].as_f64().is_some() && c["solver_calls"].is_u64()), "{json}");
    let reused: u64 = calls.iter().map(|c| c["reused"].as_u64().unwrap()).sum();
    assert!(reused > 0, "{json}");
    // The sites the clauses named: some, not more than were instrumented.
    let considered = json["stats"]["sites_considered"].as_u64().unwrap();
    assert!(considered > 0 && considered <= json["stats"]["barrier_variables"].as_u64().unwrap(), "{json}");
    // Every site encoded at once: the loop has a barrier of the user's.
    assert_eq!(json["stats"]["sites_encoded"], json["stats"]["barrier_variables"], "{json}");
    assert_eq!(json["stats"]["encodings"], 1, "{json}");
    // Text: one line per call under --stats.
    let out = Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(d.path())
        .args(["repair", "--blockDim=64", "--gridDim=1", "--stats", "k.cu"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().filter(|l| l.starts_with("syncfix: stats: verifier call ")).count(), calls.len(), "{stderr}");
}

/// The sites of a loop without a barrier of the user's are left out of the repair's first
/// encoding (they would make the loop one with barriers to the loop cut and Houdini) and join
/// it when a candidate turns one on (issue 28): the repair is the same, with fewer sites
/// encoded than instrumented and more than one encoding.
#[test]
fn sites_in_a_loop_without_barriers_are_encoded_when_a_candidate_needs_them() {
    let d = tempfile::tempdir().unwrap();
    let src = "__global__ void k(float *A, int n) {
  __shared__ float s[64];
  for (int i = 0; i < n; i++) {
    s[threadIdx.x] = A[i * 64 + threadIdx.x];
    A[i * 64 + threadIdx.x] = s[(threadIdx.x + 1) % 64];
  }
}
";
    let json = repair_json(d.path(), src);
    let encoded = json["stats"]["sites_encoded"].as_u64().unwrap();
    assert!(encoded >= 1 && encoded < json["stats"]["barrier_variables"].as_u64().unwrap(), "{json}");
    assert!(json["stats"]["encodings"].as_u64().unwrap() >= 2, "{json}");
    // The patch: a barrier between the write and the read, and one before the next
    // iteration's write.
    let out = Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(d.path())
        .args(["repair", "--blockDim=64", "--gridDim=1", "k.cu"])
        .output()
        .unwrap();
    let diff = String::from_utf8_lossy(&out.stdout);
    assert_eq!(diff.matches("+    __syncthreads();").count(), 2, "{diff}");
}

/// `syncfix repair --blockDim=64 --gridDim=1 --format=json k.cu` of `src` written to `dir/k.cu`:
/// its report, the repair having succeeded (exit 0).
fn repair_json(dir: &std::path::Path, src: &str) -> serde_json::Value {
    std::fs::write(dir.join("k.cu"), src).unwrap();
    let out = Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(dir)
        .args(["repair", "--blockDim=64", "--gridDim=1", "--format=json", "k.cu"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{json}");
    json
}
