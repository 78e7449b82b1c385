//! KIR's parser reads back what its printer writes, on real kernels: for a sample of
//! GPUVerify's suite (every 6th kernel of `MANIFEST.tsv` that its front end does not reject),
//! `syncfix verify --emit=kir` and `--emit=instrumented` with the manifest's flags, then
//! `print(parse(text)) == text` for every kernel of the dump. Kernels our front end rejects
//! (`tests/frontend_suite.expected`) are skipped; at least 100 must round-trip.
//!
//! The suite is `$SYNCFIX_GPUVERIFY_SUITE`, else `../shared/suites/gpuverify` beside the
//! checkout, else `/work/shared/suites/gpuverify`; the test fails when none exists.
//! `SYNCFIX_ROUNDTRIP_STEP=1` takes every kernel instead of every 6th (about two minutes).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const BIN: &str = env!("CARGO_BIN_EXE_syncfix");

fn suite_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SYNCFIX_GPUVERIFY_SUITE") {
        return PathBuf::from(d);
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/suites/gpuverify");
    if beside.join("MANIFEST.tsv").is_file() {
        return beside;
    }
    PathBuf::from("/work/shared/suites/gpuverify")
}

/// Every 6th manifest row whose defect is not `frontend` (every `$SYNCFIX_ROUNDTRIP_STEP`th):
/// (kernel path, flags).
fn sample(suite: &Path) -> Vec<(String, Vec<String>)> {
    let step = std::env::var("SYNCFIX_ROUNDTRIP_STEP").ok().and_then(|s| s.parse().ok()).unwrap_or(6);
    let manifest = std::fs::read_to_string(suite.join("MANIFEST.tsv")).expect("the GPUVerify suite's MANIFEST.tsv");
    manifest
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let (path, defect, flags) = (f.first()?, f.get(3)?, f.get(4)?);
            if *defect == "frontend" {
                return None;
            }
            let kernel_dir = suite.join(Path::new(path).parent()?).display().to_string();
            Some((path.to_string(), flags.split_whitespace().map(|s| s.replace("${KERNEL_DIR}", &kernel_dir)).collect()))
        })
        .step_by(step)
        .collect()
}

/// `syncfix verify --emit=MODE FLAGS KERNEL` in the kernel's directory: its output, or `None`
/// when the front end rejects the kernel.
fn dump(suite: &Path, path: &str, flags: &[String], mode: &str) -> Option<String> {
    let file = suite.join(path);
    let out = Command::new(BIN)
        .arg("verify")
        .arg(format!("--emit={mode}"))
        .args(flags)
        .arg(file.file_name().unwrap())
        .current_dir(file.parent().unwrap())
        .output()
        .expect("run syncfix");
    out.status.success().then(|| String::from_utf8(out.stdout).expect("UTF-8 dump"))
}

/// The kernels of an `--emit=instrumented` dump without their `barrier variables:` tables
/// (the instrumenter's, not part of the kernel's text form).
fn strip_variable_tables(dump: &str) -> String {
    let mut out = String::new();
    let mut in_table = false;
    for line in dump.lines() {
        if line == "barrier variables:" {
            in_table = true;
        } else if line.starts_with("kernel ") {
            in_table = false;
        }
        if !in_table {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The first line where two texts differ, for the message.
fn first_difference(a: &str, b: &str) -> String {
    match a.lines().zip(b.lines()).enumerate().find(|(_, (x, y))| x != y) {
        Some((i, (x, y))) => format!("line {}:\n  printed: {x}\n  reprint: {y}", i + 1),
        None => format!("lengths differ: {} vs {} lines", a.lines().count(), b.lines().count()),
    }
}

/// Parses a dump and prints it again; `Err` says where it breaks.
fn round_trip(text: &str) -> Result<usize, String> {
    let kernels = syncfix_kir::parse_all(text).map_err(|e| format!("parse error: {e}\n  {}", text.lines().nth(e.line - 1).unwrap_or("")))?;
    let reprint: String = kernels.iter().map(|k| k.to_string()).collect();
    if reprint != text {
        return Err(first_difference(text, &reprint));
    }
    Ok(kernels.len())
}

#[test]
fn suite_kernels_round_trip_through_the_text_form() {
    let suite = suite_dir();
    let rows = sample(&suite);
    assert!(rows.len() > 100, "only {} kernels sampled", rows.len());
    let next = AtomicUsize::new(0);
    let results = Mutex::new(vec![]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((path, flags)) = rows.get(i) else { break };
                let mut outcome = Ok(0);
                for mode in ["kir", "instrumented"] {
                    let Some(text) = dump(&suite, path, flags, mode) else {
                        outcome = Err(None);
                        break;
                    };
                    let text = if mode == "kir" { text } else { strip_variable_tables(&text) };
                    match round_trip(&text) {
                        Ok(n) => outcome = outcome.map(|m| m + n),
                        Err(e) => {
                            outcome = Err(Some(format!("{path} (--emit={mode}): {e}")));
                            break;
                        }
                    }
                }
                results.lock().unwrap().push(outcome);
            });
        }
    });
    let results = results.into_inner().unwrap();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err().and_then(|e| e.as_ref())).collect();
    let rejected = results.iter().filter(|r| matches!(r, Err(None))).count();
    let passed = results.iter().filter(|r| r.is_ok()).count();
    let kernels: usize = results.iter().filter_map(|r| r.as_ref().ok()).sum();
    eprintln!("{passed} suite files round-trip ({kernels} kernel dumps, plain and instrumented); {rejected} rejected by the front end; {} fail", failures.len());
    assert!(failures.is_empty(), "{} kernels do not round-trip:\n{}", failures.len(), failures.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"));
    assert!(passed >= 100, "only {passed} suite kernels round-trip");
}
