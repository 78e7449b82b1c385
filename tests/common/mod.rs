//! Helpers shared by the CLI's integration tests.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// GPUVerify's test suite: `$SYNCFIX_GPUVERIFY_SUITE`, else `../shared/suites/gpuverify`
/// beside the checkout, else `/work/shared/suites/gpuverify`.
pub fn suite_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SYNCFIX_GPUVERIFY_SUITE") {
        return PathBuf::from(d);
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/suites/gpuverify");
    if beside.join("MANIFEST.tsv").is_file() {
        return beside;
    }
    PathBuf::from("/work/shared/suites/gpuverify")
}

/// A racy kernel (thread t reads the cell thread t + 1 writes).
pub const RACE: &str = "__global__ void k(int *A) { int t = A[threadIdx.x + 1]; A[threadIdx.x] = t; }\n";

/// Writes `text` to `dir/name` and returns the path.
pub fn kernel(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The syncfix binary under test, run in `dir`.
pub fn syncfix(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("syncfix").unwrap();
    c.current_dir(dir);
    c
}

/// Runs syncfix with `args` in `dir`: its exit code, stdout and stderr.
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = syncfix(dir).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A tree reduction in shared memory with no barrier in its loop (races between the loop's
/// iterations), after one barrier.
pub const LOOP: &str = "__global__ void k(float *out) { __shared__ float b[128]; unsigned t = threadIdx.x; b[t] = t;\n  __syncthreads(); for (unsigned s = 64; s > 0; s >>= 1) { if (t < s) b[t] += b[t + s]; }\n  if (t == 0) out[blockIdx.x] = b[0]; }\n";
