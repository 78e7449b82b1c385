//! Unified diffs round-trip through `patch -p1` and `git apply` (ARCHITECTURE.md, "crates/fix").

mod common;

use common::Kernel;
use std::path::Path;
use std::process::{Command, Stdio};
use syncfix_fix::{apply_edits, build_fix, unified_diff, BarrierText::*, Change};

/// Writes `old` to `rel` in a fresh directory, applies `unified_diff(old, new, rel)` there with
/// `tool` (run with the diff on standard input) and returns the file's new contents.
fn apply_with(tool: &[&str], old: &str, new: &str, rel: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(rel);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, old).unwrap();
    let diff = unified_diff(old, new, rel);
    assert!(!diff.is_empty());
    let mut child = Command::new(tool[0])
        .args(&tool[1..])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", tool[0]));
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), diff.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{tool:?} failed on\n{diff}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&file).unwrap()
}

/// Both tools turn `old` into `new` with our diff.
fn round_trip(old: &str, new: &str, rel: &str) {
    let patched = apply_with(&["patch", "-p1", "--batch", "--silent"], old, new, rel);
    assert_eq!(patched, new, "patch -p1");
    let applied = apply_with(&["git", "apply", "-p1", "-"], old, new, rel);
    assert_eq!(applied, new, "git apply");
}

fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn header_and_hunk() {
    let old = "a\nb\nc\n";
    let new = "a\nX\nb\nc\n";
    assert_eq!(unified_diff(old, new, "src/k.cu"), "--- a/src/k.cu\n+++ b/src/k.cu\n@@ -1,3 +1,4 @@\n a\n+X\n b\n c\n");
}

#[test]
fn insertion_in_the_middle_at_the_start_and_at_the_end() {
    let old = lines(20);
    round_trip(&old, &old.replace("line 10\n", "line 10\nnew\n"), "k.cu");
    round_trip(&old, &format!("first\n{old}"), "k.cu");
    round_trip(&old, &format!("{old}last\n"), "k.cu");
}

#[test]
fn hunks_far_apart() {
    let old = lines(40);
    let new = old.replace("line 3\n", "").replace("line 30\n", "line 30\n  __syncthreads();\n");
    let diff = unified_diff(&old, &new, "k.cu");
    assert_eq!(diff.matches("\n@@ ").count(), 2, "{diff}");
    round_trip(&old, &new, "k.cu");
}

#[test]
fn missing_newline_at_end_of_file() {
    round_trip("a\nb\nlast", "a\nX\nb\nlast", "k.cl");
    round_trip("a\nb\nlast", "a\nb\nchanged", "k.cl");
    round_trip("a\nb\nlast", "a\nb\nlast\n", "k.cl");
    round_trip("a\nb\nlast\n", "a\nb\nlast", "k.cl");
    round_trip("a\n__syncthreads();", "a\n", "k.cu");
}

#[test]
fn crlf_and_subdirectories() {
    round_trip("{\r\n  a;\r\n}\r\n", "{\r\n  __syncthreads();\r\n  a;\r\n}\r\n", "kernels/scan/kernel.cu");
}

#[test]
fn a_whole_fix_round_trips() {
    let src = "#include <cuda.h>\n\n__global__ void k(int *A) {\n  __syncthreads();\n  A[threadIdx.x] = A[threadIdx.x + 1];\n  if (threadIdx.x == 0) A[0] = 0;\n}\n";
    let mut k = Kernel::new(src);
    let bar = k.barrier("__syncthreads();");
    let s = k.split("A[threadIdx.x] = A[threadIdx.x + 1];", "A[threadIdx.x + 1]", "int");
    let sole = k.sole("A[0] = 0;");
    let changes = [
        Change::Remove { stmt: bar },
        Change::InsertSplit { stmt: s, barrier: CudaBlock },
        Change::Insert { stmt: sole, barrier: CudaGrid },
    ];
    let fix = build_fix(&k.src, &k.table, &changes).unwrap();
    let new = apply_edits(&k.src, &fix.edits).unwrap();
    assert_eq!(
        new,
        "#include <cuda.h>\n#include <cooperative_groups.h>\n\n__global__ void k(int *A) {\n  int tmp = A[threadIdx.x + 1];\n  __syncthreads();\n  A[threadIdx.x] = tmp;\n  if (threadIdx.x == 0) { cooperative_groups::this_grid().sync(); A[0] = 0; }\n}\n"
    );
    round_trip(&k.src, &new, "./kernel.cu");
}

#[test]
fn diff_of_an_empty_file() {
    round_trip("", "__syncthreads();\n", "k.cu");
    round_trip("x\n", "", "k.cu");
}

#[test]
fn git_applies_at_a_repository_root() {
    // `git apply` inside a repository resolves paths from its root; check that too.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let ok = Command::new("git").args(["init", "-q"]).current_dir(root).status().unwrap().success();
    assert!(ok);
    let old = lines(5);
    let new = old.replace("line 2\n", "line 2\n__syncthreads();\n");
    std::fs::create_dir_all(root.join("dir")).unwrap();
    std::fs::write(root.join("dir/k.cu"), &old).unwrap();
    let patch = root.join("fix.diff");
    std::fs::write(&patch, unified_diff(&old, &new, "dir/k.cu")).unwrap();
    let out = Command::new("git").args(["apply", "--check", "fix.diff"]).current_dir(root).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new("git").args(["apply", "fix.diff"]).current_dir(root).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(Path::new(root).join("dir/k.cu")).unwrap(), new);
}

/// A path with spaces and non-ASCII letters (issue 27): GNU patch reads the header's name up
/// to a tab, so such a name ends with one; both tools apply it.
#[test]
fn a_path_with_spaces_applies_with_both_tools() {
    let old = lines(5);
    let new = old.replace("line 3\n", "line 3\nX\n");
    round_trip(&old, &new, "sub dir/my kérnel ü.cu");
    assert!(unified_diff(&old, &new, "sub dir/k.cu").starts_with("--- a/sub dir/k.cu\t\n+++ b/sub dir/k.cu\t\n"));
    assert!(unified_diff(&old, &new, "k.cu").starts_with("--- a/k.cu\n+++ b/k.cu\n"));
}
