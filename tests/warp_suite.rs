//! The GPUVerify suite's kernels about warps and cooperative groups (`warpsync`, `warpsize`,
//! `cooperative_groups` in their paths, and any kernel that calls `__syncwarp` or makes a
//! tile), each verified by `syncfix suite` as `syncfix verify --format json` with the
//! manifest's flags: every verdict must agree with the manifest's defect class.
//!
//! The suite is `$SYNCFIX_GPUVERIFY_SUITE`, else `../shared/suites/gpuverify` beside the
//! checkout, else `/work/shared/suites/gpuverify`; the test fails when none exists.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_syncfix");

mod common;
use common::suite_dir;

const PATH_WORDS: [&str; 3] = ["/warpsync/", "/warpsize/", "/cooperative_groups/"];
const TEXT_WORDS: [&str; 3] = ["__syncwarp", "tiled_partition", "thread_block_tile"];

/// The manifest's kernels about warps: by path, or by a warp or tile barrier in their text;
/// each with the `suite --filter` that selects it (its path word, or its own path).
fn warp_kernels(suite: &Path) -> Vec<(String, String)> {
    let manifest = std::fs::read_to_string(suite.join("MANIFEST.tsv")).expect("the GPUVerify suite's MANIFEST.tsv");
    manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter_map(|path| {
            if let Some(w) = PATH_WORDS.iter().find(|w| format!("/{path}").contains(*w)) {
                return Some((path.to_owned(), w.to_string()));
            }
            let text = std::fs::read_to_string(suite.join(path)).unwrap_or_default();
            TEXT_WORDS.iter().any(|w| text.contains(w)).then(|| (path.to_owned(), path.to_owned()))
        })
        .collect()
}

#[test]
fn the_suites_warp_kernels_agree_with_the_manifest() {
    let suite = suite_dir();
    let kernels = warp_kernels(&suite);
    assert!(kernels.len() >= 20, "{kernels:?}");
    let d = tempfile::tempdir().unwrap();
    let mut filters: Vec<&str> = kernels.iter().map(|(_, f)| f.as_str()).collect();
    filters.sort();
    filters.dedup();
    let mut seen = 0;
    for filter in &filters {
        let json_path = d.path().join("suite.json");
        let out = Command::new(BIN)
            .args(["suite", "--jobs=2", "--timeout=120"])
            .arg(format!("--filter={filter}"))
            .arg(format!("--json={}", json_path.display()))
            .arg(&suite)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{filter}:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        for k in json["kernels"].as_array().unwrap() {
            let path = k["path"].as_str().unwrap();
            if !kernels.iter().any(|(w, _)| w == path) {
                continue;
            }
            seen += 1;
            assert_eq!(k["agree"], true, "{path}: {} expected, got {}", k["class"], k["status"]);
        }
    }
    assert_eq!(seen, kernels.len(), "{filters:?}");
}
