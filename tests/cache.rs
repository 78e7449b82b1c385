//! The precompiled prelude kept between runs (`SYNCFIX_CACHE_DIR`): built once, reused, rebuilt
//! when spoiled, shared by concurrent runs, never holding the user's source, and never needed
//! (an empty `SYNCFIX_CACHE_DIR` or a folder that cannot be written still verifies).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const RACY: &str = "__global__ void k(int *A) {\n  __shared__ int s[64];\n  s[threadIdx.x] = A[threadIdx.x];\n  A[threadIdx.x] = s[63 - threadIdx.x]; // KERNEL-TEXT-MARK\n}\n";

fn verify(kernel_dir: &Path, cache: &std::ffi::OsStr) -> Output {
    Command::new(assert_cmd::cargo::cargo_bin("syncfix"))
        .args(["verify", "--blockDim=64", "--gridDim=1", "k.cu"])
        .current_dir(kernel_dir)
        .env("SYNCFIX_CACHE_DIR", cache)
        .output()
        .unwrap()
}

fn kernel() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("k.cu"), RACY).unwrap();
    d
}

/// The race is found (exit 6, GPUVerify's wording).
fn assert_race(out: &Output) {
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(6), "{text}");
    assert!(text.contains("error: possible write-read race on s["), "{text}");
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn pch(cache: &Path) -> PathBuf {
    let pchs: Vec<_> = files(cache).into_iter().filter(|p| p.file_name().is_some_and(|n| n == "prelude.pch")).collect();
    assert_eq!(pchs.len(), 1, "{pchs:?}");
    pchs[0].clone()
}

#[test]
fn the_prelude_is_precompiled_once_and_reused() {
    let (k, cache) = (kernel(), tempfile::tempdir().unwrap());
    assert_race(&verify(k.path(), cache.path().as_os_str()));
    let p = pch(cache.path());
    let built = std::fs::metadata(&p).unwrap().modified().unwrap();
    assert_race(&verify(k.path(), cache.path().as_os_str()));
    assert_eq!(std::fs::metadata(pch(cache.path())).unwrap().modified().unwrap(), built, "the PCH was built again");
    // Only the prelude: no copy of the user's source, no build folder left.
    for f in files(cache.path()) {
        let text = std::fs::read(&f).unwrap();
        assert!(!String::from_utf8_lossy(&text).contains("KERNEL-TEXT-MARK"), "{} holds the user's source", f.display());
        assert!(!f.to_string_lossy().contains("syncfix-"), "left behind: {}", f.display());
    }
}

#[test]
fn a_spoiled_cached_pch_is_built_again() {
    let (k, cache) = (kernel(), tempfile::tempdir().unwrap());
    assert_race(&verify(k.path(), cache.path().as_os_str()));
    std::fs::write(pch(cache.path()), b"not a precompiled header").unwrap();
    assert_race(&verify(k.path(), cache.path().as_os_str()));
    // ... and the cache holds the new one.
    assert_ne!(std::fs::read(pch(cache.path())).unwrap(), b"not a precompiled header");
}

#[test]
fn concurrent_runs_share_an_empty_cache() {
    let cache = tempfile::tempdir().unwrap();
    let kernels: Vec<_> = (0..4).map(|_| kernel()).collect();
    let children: Vec<_> = kernels
        .iter()
        .map(|k| {
            Command::new(assert_cmd::cargo::cargo_bin("syncfix"))
                .args(["verify", "--blockDim=64", "--gridDim=1", "k.cu"])
                .current_dir(k.path())
                .env("SYNCFIX_CACHE_DIR", cache.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        assert_race(&c.wait_with_output().unwrap());
    }
    pch(cache.path());
}

#[test]
fn no_cache_and_an_unwritable_cache_still_verify() {
    let k = kernel();
    assert_race(&verify(k.path(), std::ffi::OsStr::new("")));
    // A cache "folder" below a plain file cannot be created.
    let f = tempfile::NamedTempFile::new().unwrap();
    assert_race(&verify(k.path(), f.path().join("cache").as_os_str()));
}
