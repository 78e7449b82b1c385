//! Helpers shared by the pipeline tests (semantics, constructs, library): verify a small
//! kernel written to a temporary file and reduce the result to one line.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use syncfix::{Language, Launch, Options, RepairReport, Status};

/// Options for a launch of `block` x `grid` in `lang`.
pub fn options(lang: Language, block: [u32; 3], grid: [u32; 3]) -> Options {
    let mut o = Options::new(Launch::new(block, grid));
    o.language = Some(lang);
    o
}

/// Writes `src` as `kernel.cu` or `kernel.cl` in `dir`.
pub fn write(dir: &Path, lang: Language, src: &str) -> PathBuf {
    let path = dir.join(if lang == Language::OpenCl { "kernel.cl" } else { "kernel.cu" });
    std::fs::write(&path, src).unwrap();
    path
}

/// Verifies `src`: "verified", "no error up to N", "unknown: ...", "timeout", the first
/// finding's headline, or "error: ..." when the front end rejects the kernel.
pub fn verdict_with(src: &str, opts: &Options) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), opts.language.unwrap_or(Language::Cuda), src);
    match syncfix::verify(&path, src, opts) {
        Err(e) => format!("error: {e}"),
        Ok((reports, _)) => {
            let r = &reports[0];
            match r.status {
                Status::Verified => "verified".into(),
                Status::Bounded => format!("no error up to {}", r.bound.unwrap_or(0)),
                Status::Unknown | Status::Error => format!("unknown: {}", r.reason.as_deref().unwrap_or("")),
                Status::Timeout => "timeout".into(),
                _ => r.findings[0].headline(),
            }
        }
    }
}

/// `syncfix::repair` on `src`, written to a temporary file in `opts`' language.
pub fn repair_with(src: &str, opts: &Options) -> RepairReport {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), opts.language.unwrap_or(Language::Cuda), src);
    syncfix::repair(&path, src, opts).expect("the repair runs")
}

/// The reason [`repair_with`] gives for not repairing `src`, asserting it contains `want`:
/// `Unrepairable` (exit 202) only, or `Unknown` too when `maybe_unknown`.
#[track_caller]
pub fn unrepaired_because(src: &str, opts: &Options, maybe_unknown: bool, want: &str) {
    match repair_with(src, opts).status {
        syncfix::RepairStatus::Unrepairable(why) => assert!(why.contains(want), "{why}"),
        syncfix::RepairStatus::Unknown(why) if maybe_unknown => assert!(why.contains(want), "{why}"),
        s => panic!("{s:?}"),
    }
}

/// [`verdict_with`] for a 1-D CUDA launch.
pub fn cuda(src: &str, block: u32, grid: u32) -> String {
    verdict_with(src, &options(Language::Cuda, [block, 1, 1], [grid, 1, 1]))
}

/// [`verdict_with`] for a 1-D OpenCL launch.
pub fn opencl(src: &str, local: u32, groups: u32) -> String {
    verdict_with(src, &options(Language::OpenCl, [local, 1, 1], [groups, 1, 1]))
}

/// Asserts that `got` starts with `want`.
#[track_caller]
pub fn starts(got: String, want: &str) {
    assert!(got.starts_with(want), "expected `{want}...`, got `{got}`");
}
