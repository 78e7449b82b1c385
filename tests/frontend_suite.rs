//! The front end over the whole of GPUVerify's test suite (issue 3): every kernel whose
//! expected outcome is not a front-end error must lower to KIR (`syncfix verify --emit=kir`
//! with its manifest flags), except those listed in `tests/frontend_suite.expected`, each
//! with the text its error must contain. A kernel that starts failing, fails differently,
//! or starts passing (remove it from the list) fails the test, so coverage cannot regress
//! silently. Front end only: no verification, about a minute on two cores.
//!
//! The same pass checks KIR's text form: every dump parses back (`syncfix_kir::parse_all`)
//! and prints as it was (`print(parse(text)) == text`), and so does the
//! `--emit=instrumented` dump of every 10th kernel (barrier variables, candidates).
//!
//! The 25 kernels GPUVerify's own front end rejects must be rejected with an error message
//! too (by syncfix's front end, command line or verifier), except those syncfix rightly
//! accepts (`RIGHTLY_ACCEPTED`, with the reason).
//!
//! The suite is `$SYNCFIX_GPUVERIFY_SUITE`, else `../shared/suites/gpuverify` beside the
//! checkout, else `/work/shared/suites/gpuverify`; the test fails when none exists.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const BIN: &str = env!("CARGO_BIN_EXE_syncfix");

mod common;
use common::suite_dir;

/// The outcomes GPUVerify's own front end gives (not a verdict of the verifier).
const FRONTEND_ERRORS: [&str; 4] = ["CLANG_ERROR", "BUGLE_ERROR", "GPUVERIFYVCGEN_ERROR", "COMMAND_LINE_ERROR"];

/// The manifest's rows: (kernel path, expected outcome, flags with `${KERNEL_DIR}` replaced).
fn manifest_rows(suite: &Path) -> Vec<(String, String, Vec<String>)> {
    let manifest = std::fs::read_to_string(suite.join("MANIFEST.tsv")).expect("the GPUVerify suite's MANIFEST.tsv");
    manifest
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let (path, expected, flags) = (f.first()?, f.get(2)?, f.get(4)?);
            let kernel_dir = suite.join(Path::new(path).parent()?).display().to_string();
            let flags = flags.split_whitespace().map(|s| s.replace("${KERNEL_DIR}", &kernel_dir)).collect();
            Some((path.to_string(), expected.to_string(), flags))
        })
        .collect()
}

/// Runs `syncfix verify <extra> <flags> <kernel>` in the kernel's directory: whether it
/// succeeded, and its standard error without the note on ignored options.
fn verify(suite: &Path, path: &str, extra: &[&str], flags: &[String]) -> (bool, String) {
    let (ok, _, err) = verify_output(suite, path, extra, flags);
    (ok, err)
}

/// [`verify`] with the standard output too.
fn verify_output(suite: &Path, path: &str, extra: &[&str], flags: &[String]) -> (bool, String, String) {
    let file = suite.join(path);
    let out = Command::new(BIN)
        .arg("verify")
        .args(extra)
        .args(flags)
        .arg(file.file_name().unwrap())
        .current_dir(file.parent().unwrap())
        .output()
        .expect("run syncfix");
    let err = String::from_utf8_lossy(&out.stderr).lines().filter(|l| !l.contains("note: ignoring")).collect::<Vec<_>>().join(" ");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), err)
}

/// An `--emit=instrumented` dump without its `barrier variables:` tables (the instrumenter's
/// report, not part of the kernels' text form).
fn without_variable_tables(dump: &str) -> String {
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

/// Parses a dump and prints it again: the number of kernels, or where the round trip breaks.
fn round_trip(text: &str) -> Result<usize, String> {
    let kernels = syncfix_kir::parse_all(text).map_err(|e| format!("{e}: {}", text.lines().nth(e.line - 1).unwrap_or("").trim()))?;
    let reprint: String = kernels.iter().map(|k| k.to_string()).collect();
    if reprint == text {
        return Ok(kernels.len());
    }
    Err(match text.lines().zip(reprint.lines()).enumerate().find(|(_, (a, b))| a != b) {
        Some((i, (a, b))) => format!("line {} prints back as `{b}`, was `{a}`", i + 1),
        None => format!("{} lines print back as {}", text.lines().count(), reprint.lines().count()),
    })
}

#[test]
fn every_suite_kernel_reaches_the_verifier_but_the_listed_ones() {
    let suite = suite_dir();
    let rows: Vec<(String, Vec<String>)> = manifest_rows(&suite)
        .into_iter()
        .filter(|(_, expected, _)| !FRONTEND_ERRORS.contains(&expected.as_str()))
        .map(|(path, _, flags)| (path, flags))
        .collect();
    assert!(rows.len() > 600, "only {} kernels in the manifest", rows.len());
    let expected_text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frontend_suite.expected")).unwrap();
    let expected: BTreeMap<String, String> = expected_text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (p, why) = l.split_once('\t').unwrap_or((l, ""));
            (p.to_string(), why.to_string())
        })
        .collect();

    let next = AtomicUsize::new(0);
    let failures: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
    // KIR's text form: kernels that round-trip, and the dumps that do not.
    let round_tripped = AtomicUsize::new(0);
    let text_form: Mutex<Vec<String>> = Mutex::new(vec![]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((path, flags)) = rows.get(i) else { break };
                let (ok, kir, err) = verify_output(&suite, path, &["--emit=kir"], flags);
                if !ok {
                    failures.lock().unwrap().insert(path.clone(), err);
                    continue;
                }
                let mut dumps = vec![("kir", Ok(kir))];
                if i.is_multiple_of(10) {
                    let (ok, instrumented, err) = verify_output(&suite, path, &["--emit=instrumented"], flags);
                    dumps.push(("instrumented", if ok { Ok(without_variable_tables(&instrumented)) } else { Err(err) }));
                }
                for (mode, text) in dumps {
                    match text.and_then(|t| round_trip(&t)) {
                        Ok(n) => {
                            round_tripped.fetch_add(n, Ordering::Relaxed);
                        }
                        Err(e) => text_form.lock().unwrap().push(format!("{path} (--emit={mode}): {e}")),
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let mut problems = text_form.into_inner().unwrap();
    problems.sort();
    eprintln!("{} kernel dumps parse and print back unchanged", round_tripped.load(Ordering::Relaxed));
    for (path, err) in &failures {
        match expected.get(path) {
            None => problems.push(format!("{path}: fails in the front end: {err}")),
            Some(why) if !err.contains(why.as_str()) => problems.push(format!("{path}: fails differently (expected `{why}`): {err}")),
            Some(_) => {}
        }
    }
    for path in expected.keys() {
        if !failures.contains_key(path) {
            problems.push(format!("{path}: now reaches the verifier: remove it from tests/frontend_suite.expected"));
        }
    }
    assert!(problems.is_empty(), "{} of {} kernels:\n{}", problems.len(), rows.len(), problems.join("\n"));
}

/// Kernels GPUVerify's front end rejects that syncfix rightly accepts, with the reason.
const RIGHTLY_ACCEPTED: [(&str, &str); 2] = [
    ("CUDA/memset/unhandled_varval/kernel.cu", "a memset with a run-time byte value is lowered exactly (each byte is the value)"),
    (
        "CUDA/function_pointers/unknown_function/kernel.cu",
        "`cos` has a body in clang's CUDA headers (over libdevice), as in real CUDA: a pointer to it designates a function syncfix can run",
    ),
];

#[test]
fn the_kernels_gpuverifys_front_end_rejects_are_rejected_with_a_message() {
    let suite = suite_dir();
    let mut problems = vec![];
    let mut n = 0;
    for (path, expected, flags) in manifest_rows(&suite) {
        if !FRONTEND_ERRORS.contains(&expected.as_str()) {
            continue;
        }
        n += 1;
        let (ok, err) = verify(&suite, &path, &[], &flags);
        let accepted = RIGHTLY_ACCEPTED.iter().any(|(p, _)| *p == path);
        match (ok, accepted) {
            (true, false) => problems.push(format!("{path} ({expected}): accepted")),
            (false, true) => problems.push(format!("{path}: now rejected ({err}): remove it from RIGHTLY_ACCEPTED")),
            (false, false) if !err.contains("error") => problems.push(format!("{path} ({expected}): no error message: {err}")),
            _ => {}
        }
    }
    assert_eq!(n, 25, "front-end-error kernels in the manifest");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
