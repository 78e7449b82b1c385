//! Loops that the verifier proves with invariants, as real kernels write them (the kernels are
//! in `tests/data/`): each must be verified, and a variant with a real defect must not be.

use assert_cmd::Command;
use std::path::Path;

fn verify(dir: &Path, file: &str, launch: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("syncfix").unwrap().current_dir(dir).arg("verify").args(launch).arg(file).output().unwrap();
    (out.status.code().unwrap_or(-1), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
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
