//! Helpers shared by the CLI's integration tests.
#![allow(dead_code)]

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
