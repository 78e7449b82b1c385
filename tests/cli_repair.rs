//! The command line's repair and audit: the diff and `--apply`, the audit's removals, the repair
//! options (`--disable-grid`, `--disable-inspect`, `--maxsat`/`--mhs`, the weights and
//! `--emit=instrumented`), asynchronous copies' waits, and the patch's paths.

mod common;

use common::*;
use std::path::Path;

#[test]
fn repair_prints_a_diff_and_leaves_the_file_alone_unless_apply() {
    let d = tempfile::tempdir().unwrap();
    let p = kernel(d.path(), "race.cu", RACE);
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "race.cu"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("--- a/race.cu\n+++ b/race.cu\n"), "{out}");
    assert!(out.contains("+__global__ void k(int *A) { int t = A[threadIdx.x + 1]; __syncthreads(); A[threadIdx.x] = t; }"), "{out}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), RACE);
    let (code, _, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "--apply", "race.cu"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&p).unwrap().contains("__syncthreads();"));
    let (code, _, err) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "race.cu"]);
    assert_eq!(code, 0, "{err}");
    // A second repair has nothing to do.
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "race.cu"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("no change needed"), "{err}");
}

#[test]
fn apply_writes_only_safe_fixes_unless_unsafe_fixes() {
    let d = tempfile::tempdir().unwrap();
    // A grid barrier: the launch must become cooperative.
    let grid = "__global__ void k(int *A) { int i = blockIdx.x * blockDim.x + threadIdx.x; int v = A[(i + 32) % 128]; A[i] = v; }\n";
    let p = kernel(d.path(), "g.cu", grid);
    // Not applied: exit 6, the file keeps its defect (a script must not take it for a repair).
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=32", "--gridDim=4", "--apply", "g.cu"]);
    assert_eq!(code, 6, "{err}");
    assert!(out.contains("this_grid().sync()"), "{out}");
    assert!(err.contains("g.cu not rewritten: the fix is not safe: it inserts a grid barrier") && err.contains("--unsafe-fixes"), "{err}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), grid);
    let (code, _, err) = run(d.path(), &["repair", "--blockDim=32", "--gridDim=4", "--apply", "--unsafe-fixes", "g.cu"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&p).unwrap().contains("this_grid().sync()"));
    // A repair checked only up to a loop bound: said so, never called verified, not applied.
    let bounded = "__global__ void k(int *A, int n) {\n  __shared__ int s[64];\n  for (int i = 0; i < n; i++) {\n    s[threadIdx.x] = A[i * 64 + threadIdx.x];\n    A[i * 64 + threadIdx.x] = s[(threadIdx.x + 1) % 64];\n  }\n}\n";
    let p = kernel(d.path(), "b.cu", bounded);
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "--loop-unwind=2", "--apply", "b.cu"]);
    assert_eq!(code, 6, "{err}");
    assert!(out.contains("__syncthreads();"), "{out}");
    assert!(err.contains("up to 2 loop iterations (not a proof)") && !err.contains("the patched kernel verifies"), "{err}");
    assert!(err.contains("b.cu not rewritten: the fix is not proved") && err.contains("add --bounded-fixes"), "{err}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), bounded);
    // A bound is not a proof whatever the fix's kind: --unsafe-fixes does not apply it, its own
    // flag does.
    let (_, _, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "--loop-unwind=2", "--apply", "--unsafe-fixes", "b.cu"]);
    assert!(err.contains("add --bounded-fixes"), "{err}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), bounded);
    let (code, _, err) =
        run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "--loop-unwind=2", "--apply", "--bounded-fixes", "b.cu"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("b.cu rewritten"), "{err}");
    assert!(std::fs::read_to_string(&p).unwrap().contains("__syncthreads();"));
    // --unsafe-fixes or --bounded-fixes alone is a command-line error.
    assert_eq!(run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "--unsafe-fixes", "b.cu"]).0, 1);
    assert_eq!(run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "--bounded-fixes", "b.cu"]).0, 1);
}

#[test]
fn audit_removes_the_barriers_a_verified_kernel_does_not_need() {
    let d = tempfile::tempdir().unwrap();
    let src = "__global__ void k(int *A) {\n  __shared__ int s[64];\n  s[threadIdx.x] = A[threadIdx.x];\n  __syncthreads();\n  A[threadIdx.x] = s[threadIdx.x];\n  __syncthreads();\n  int t = s[(threadIdx.x + 1) % 64];\n  A[threadIdx.x] += t;\n}\n";
    let p = kernel(d.path(), "a.cu", src);
    let (code, out, err) = run(d.path(), &["audit", "--blockDim=64", "--gridDim=1", "a.cu"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("\n-  __syncthreads();").count(), 1, "{out}");
    assert!(err.contains("a.cu:6: `__syncthreads();` is not needed") && err.contains("1 barrier can be removed"), "{err}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), src, "audit never writes the file");
    // The patch applies, and the patched kernel verifies and needs its last barrier.
    std::fs::write(d.path().join("a.patch"), &out).unwrap();
    let st = std::process::Command::new("patch").args(["-p1", "-s", "-i", "a.patch"]).current_dir(d.path()).status().unwrap();
    assert!(st.success());
    assert_eq!(run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "a.cu"]).0, 0);
    let (code, out, err) = run(d.path(), &["audit", "--blockDim=64", "--gridDim=1", "a.cu"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("no barrier can be removed"), "{err}");
    // `repair` leaves a verified kernel alone and points to `audit`.
    kernel(d.path(), "a.cu", src);
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "a.cu"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("syncfix audit"), "{err}");
    // A kernel that races is not audited.
    kernel(d.path(), "race.cu", RACE);
    let (code, out, err) = run(d.path(), &["audit", "--blockDim=64", "--gridDim=1", "race.cu"]);
    assert_eq!((code, out.as_str()), (6, ""), "{err}");
    assert!(err.contains("race") && err.contains("`syncfix repair` fixes it"), "{err}");
}

#[test]
fn disable_grid_leaves_inter_block_races_unrepairable() {
    let d = tempfile::tempdir().unwrap();
    kernel(
        d.path(),
        "b.cu",
        "__global__ void k(int *A) { int i = blockIdx.x * blockDim.x + threadIdx.x; int v = A[(i + 32) % 128]; A[i] = v; }\n",
    );
    let (code, out, _) = run(d.path(), &["repair", "--blockDim=32", "--gridDim=4", "b.cu"]);
    assert_eq!(code, 0);
    assert!(out.contains("this_grid().sync()"), "{out}");
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=32", "--gridDim=4", "--disable-grid", "b.cu"]);
    assert_eq!((code, out.as_str()), (202, ""), "{err}");
    assert!(err.contains("different blocks"), "{err}");
}

#[test]
fn disable_inspect_keeps_existing_barriers() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "loop.cu", LOOP);
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "loop.cu"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("-  __syncthreads(); for"), "the barrier before the loop goes: {out}");
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "--disable-inspect", "loop.cu"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("+  __syncthreads(); for (unsigned s = 64; s > 0; s >>= 1) { __syncthreads(); if"), "{out}");
}

#[test]
fn maxsat_and_mhs_agree_on_the_examples() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "loop.cu", LOOP);
    let (_, mhs, _) = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "--mhs", "loop.cu"]);
    let (code, maxsat, err) = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "--maxsat", "loop.cu"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(mhs, maxsat);
    let (code, _, _) = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "--mhs", "--maxsat", "loop.cu"]);
    assert_eq!(code, 1);
}

#[test]
fn audit_emits_the_kernel_and_its_own_barriers() {
    // `audit --emit` prints instead of auditing (it ran the audit and ignored the flag): the
    // KIR, or the barrier variables an audit checks, the user's barriers only.
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "loop.cu", LOOP);
    let (code, out, err) = run(d.path(), &["audit", "--blockDim=128", "--gridDim=2", "--emit=instrumented", "loop.cu"]);
    assert_eq!(code, 0, "{err}");
    let vars: Vec<&str> = out.lines().skip_while(|l| *l != "barrier variables:").skip(1).collect();
    assert!(!vars.is_empty() && vars.iter().all(|l| l.contains(" = Existing ")), "{out}");
    assert!(!out.contains("can be removed") && !err.contains("can be removed"), "{out}{err}");
    let (code, repair_out, _) = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "--emit=instrumented", "loop.cu"]);
    assert_eq!(code, 0);
    assert!(repair_out.contains(" = Before "), "repair's own sites: {repair_out}");
    let (code, kir, _) = run(d.path(), &["audit", "--blockDim=128", "--gridDim=2", "--emit=kir", "loop.cu"]);
    assert_eq!(code, 0);
    assert!(kir.contains("barrier") && !kir.contains("barrier variables:"), "{kir}");
}

#[test]
fn weights_follow_the_flags() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "loop.cu", LOOP);
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "--emit=instrumented", "loop.cu"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("depth 1, weight 10\n") && out.contains("Grid") && out.contains("weight 22"), "{out}");
    let (_, out, _) = run(
        d.path(),
        &[
            "repair",
            "--blockDim=128",
            "--gridDim=2",
            "--emit=instrumented",
            "--loop-depth-weight=3",
            "--grid-barrier-weight=100",
            "loop.cu",
        ],
    );
    assert!(out.contains("depth 1, weight 3\n") && out.contains("weight 103"), "{out}");
    let (_, out, _) = run(
        d.path(),
        &["repair", "--blockDim=128", "--gridDim=2", "--emit=instrumented", "--loop-depth-weight=3", "--block-barrier-weight=5", "loop.cu"],
    );
    assert!(out.contains("depth 1, weight 15\n"), "{out}");
    // `audit` minimises the same weights and takes the same five flags (it took two).
    let (code, _, err) = run(
        d.path(),
        &[
            "audit",
            "--blockDim=128",
            "--gridDim=2",
            "--loop-depth-weight=3",
            "--grid-barrier-weight=100",
            "--block-barrier-weight=5",
            "--warp-barrier-weight=2",
            "--async-wait-weight=4",
            "loop.cu",
        ],
    );
    assert!(code != 1 && !err.contains("unexpected argument"), "{code} {err}");
    let (_, out, _) = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "--emit=instrumented", "--disable-grid", "loop.cu"]);
    assert!(!out.contains("Grid"), "{out}");
}

/// One kernel of a file that cannot be repaired does not drop the other's fix: the patch of
/// the kernel repaired is printed (and applies), the exit code is the failing kernel's.
#[test]
fn repair_prints_the_fix_of_the_kernels_it_repairs_beside_one_it_cannot() {
    let d = tempfile::tempdir().unwrap();
    let two = "__global__ void good(int *A) {\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t;\n}\n\n__global__ void bad(int *A) {\n  A[0] = threadIdx.x;\n}\n";
    kernel(d.path(), "two.cu", two);
    let (code, patch, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "two.cu"]);
    assert_eq!(code, 202, "{err}");
    assert!(patch.contains("+  __syncthreads();"), "{patch}");
    assert!(err.contains("the patch repairs kernel `good` only; kernel `bad` is not repaired"), "{err}");
    assert!(err.contains("syncfix: error: kernel `bad` cannot be repaired"), "{err}");
    let applied =
        std::process::Command::new("patch").args(["-p1", "-s"]).current_dir(d.path()).stdin(std::process::Stdio::piped()).spawn().and_then(
            |mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(patch.as_bytes())?;
                c.wait()
            },
        );
    assert!(applied.unwrap().success());
    let (_, out, _) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "--kernel=good", "two.cu"]);
    assert!(out.contains("1 verified, 0 errors"), "{out}");
}

/// Applies `patch` with `patch -p1` in `dir`.
fn apply_patch(dir: &Path, patch: &str) {
    let applied =
        std::process::Command::new("patch").args(["-p1", "-s"]).current_dir(dir).stdin(std::process::Stdio::piped()).spawn().and_then(
            |mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(patch.as_bytes())?;
                c.wait()
            },
        );
    assert!(applied.unwrap().success(), "{patch}");
}

#[test]
fn a_copy_still_in_flight_is_repaired_by_waiting_for_its_event_before_the_barrier() {
    // The read of `tile` races with the asynchronous copy that fills it: a barrier alone does
    // not order the copy's writes; waiting for `ev` and then a barrier does.
    let d = tempfile::tempdir().unwrap();
    let src = "kernel void scale(global float *p) {\n  local float tile[64];\n  event_t ev = async_work_group_copy(tile, p + 64 * get_group_id(0), 64, 0);\n  float x = tile[(get_local_id(0) + 1) % 64];\n  p[get_global_id(0)] = 2 * x;\n}\n";
    kernel(d.path(), "scale.cl", src);
    let args = ["repair", "--local_size=64", "--num_groups=8", "scale.cl"];
    let (code, patch, err) = run(d.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(patch.contains("+  wait_group_events(1, &ev);\n+  barrier("), "{patch}");
    assert!(err.contains("waited for asynchronous copies at 1 place; the patched kernel verifies"), "{err}");
    // Each of the two is needed: the kernel with only the barrier, or only the wait, races.
    for (drop, keep) in [("wait_group_events", "barrier("), ("barrier(", "wait_group_events")] {
        let partial: String = patch
            .lines()
            .filter(|l| !(l.starts_with('+') && !l.starts_with("+++") && l.contains(drop)))
            .map(|l| format!("{l}\n"))
            .collect();
        let partial = partial.replace("@@ -1,6 +1,8 @@", "@@ -1,6 +1,7 @@");
        assert!(partial.contains(keep));
        kernel(d.path(), "scale.cl", src);
        apply_patch(d.path(), &partial);
        let (code, out, _) = run(d.path(), &["verify", "--local_size=64", "--num_groups=8", "scale.cl"]);
        assert_eq!(code, 6, "without `{drop}`: {out}");
    }
    kernel(d.path(), "scale.cl", src);
    apply_patch(d.path(), &patch);
    let (code, out, _) = run(d.path(), &["verify", "--local_size=64", "--num_groups=8", "scale.cl"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_wait_goes_before_the_users_barrier_and_a_later_wait_is_noted() {
    let d = tempfile::tempdir().unwrap();
    let src = "kernel void scale(global float *p, global float *q) {\n  local float tile[64];\n  event_t ev = async_work_group_copy(tile, p + 64 * get_group_id(0), 64, 0);\n  barrier(CLK_LOCAL_MEM_FENCE);\n  q[get_global_id(0)] = tile[(get_local_id(0) + 1) % 64];\n  wait_group_events(1, &ev);\n}\n";
    kernel(d.path(), "scale.cl", src);
    let (code, patch, err) = run(d.path(), &["repair", "--local_size=64", "--num_groups=8", "scale.cl"]);
    assert_eq!(code, 0, "{err}");
    assert!(patch.contains("+  wait_group_events(1, &ev);\n   barrier(CLK_LOCAL_MEM_FENCE);"), "{patch}");
    assert!(!patch.contains("-  barrier"), "{patch}");
    assert!(err.contains("inserted 0 barriers, removed 0, waited for asynchronous copies at 1 place"), "{err}");
    assert!(err.contains("`wait_group_events(1, &ev);` (line 6) waits again for `ev`, which the fix now waits for at line 4"), "{err}");
    apply_patch(d.path(), &patch);
    let (code, out, _) = run(d.path(), &["verify", "--local_size=64", "--num_groups=8", "scale.cl"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_copy_whose_event_is_not_kept_gets_a_variable_to_wait_for() {
    let d = tempfile::tempdir().unwrap();
    let src = "kernel void scale(global float *p) {\n  local float tile[64];\n  float ev = 0;\n  async_work_group_copy(tile, p + 64 * get_group_id(0), 64, 0);\n  float x = tile[(get_local_id(0) + 1) % 64];\n  p[get_global_id(0)] = 2 * x + ev;\n}\n";
    kernel(d.path(), "scale.cl", src);
    let (code, patch, err) = run(d.path(), &["repair", "--local_size=64", "--num_groups=8", "scale.cl"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        patch.contains(
            "+  event_t ev1 = async_work_group_copy(tile, p + 64 * get_group_id(0), 64, 0);\n+  wait_group_events(1, &ev1);\n+  barrier("
        ),
        "{patch}"
    );
    apply_patch(d.path(), &patch);
    let (code, out, _) = run(d.path(), &["verify", "--local_size=64", "--num_groups=8", "scale.cl"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_copy_whose_event_is_out_of_scope_cannot_be_waited_for() {
    // The event is declared in the `if`'s block; the read after it cannot name it.
    let d = tempfile::tempdir().unwrap();
    let src = "kernel void scale(global float *p, int c) {\n  local float tile[64];\n  if (c) {\n    event_t e = async_work_group_copy(tile, p + 64 * get_group_id(0), 64, 0);\n  }\n  float x = tile[(get_local_id(0) + 1) % 64];\n  p[get_global_id(0)] = 2 * x;\n}\n";
    kernel(d.path(), "scale.cl", src);
    let (code, _, err) = run(d.path(), &["repair", "--local_size=64", "--num_groups=8", "scale.cl"]);
    assert_eq!(code, 202, "{err}");
    assert!(err.contains("a wait could not name every copy pending there"), "{err}");
}

#[test]
fn a_patch_never_names_a_path_with_dots_or_an_absolute_path() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("src/sub")).unwrap();
    std::fs::create_dir_all(d.path().join("build")).unwrap();
    let k = kernel(&d.path().join("src"), "race.cu", RACE);
    let build = d.path().join("build");
    let abs = k.display().to_string();
    // Below the current directory: the path from there, applied there.
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", &abs]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("--- a/src/race.cu\n+++ b/src/race.cu\n"), "{out}");
    assert!(!err.contains("apply it there"), "{err}");
    // Elsewhere, given as `../src/race.cu` or as an absolute path: the file's name, applied in
    // its own directory, as stderr says.
    for arg in ["../src/race.cu", abs.as_str()] {
        let (code, out, err) = run(&build, &["repair", "--blockDim=64", "--gridDim=1", arg]);
        assert_eq!(code, 0, "{err}");
        assert!(out.starts_with("--- a/race.cu\n+++ b/race.cu\n"), "{arg}: {out}");
        let dir = std::fs::canonicalize(d.path().join("src")).unwrap();
        assert!(err.contains(&format!("apply it there (`patch -p1 -d {}`)", dir.display())), "{err}");
    }
    let (_, out, _) = run(&build, &["repair", "--blockDim=64", "--gridDim=1", "../src/race.cu"]);
    apply_patch(&d.path().join("src"), &out);
    let (code, _, err) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "src/race.cu"]);
    assert_eq!(code, 0, "{err}");
}

/// A repair says whether the race it orders was confirmed by a replay; a race it cannot
/// order is printed with the replay's verdict too.
#[test]
fn a_repair_says_whether_its_race_was_confirmed() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "race.cu", "__global__ void k(int *A) {\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t;\n}\n");
    let (code, out, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "race.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("syncfix: note: the repair orders \"possible read-write race on A["), "{err}");
    assert!(err.contains("which a replay on concrete threads confirmed"), "{err}");
    kernel(
        d.path(),
        "cut.cu",
        "__global__ void k(int n) {\n  __shared__ int s[64];\n  int x = threadIdx.x;\n  for (int i = 0; i < n; i++) x = 63 - x;\n  s[x] = threadIdx.x;\n}\n",
    );
    let (code, _, err) = run(d.path(), &["repair", "--blockDim=64", "--gridDim=1", "cut.cu"]);
    assert_eq!(code, 202, "{err}");
    assert!(err.contains("note: possible (not confirmed by a replay on concrete threads)"), "{err}");
}
