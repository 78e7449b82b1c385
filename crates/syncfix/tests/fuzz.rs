//! Fuzzing the whole pipeline (issue 3): small random well-formed CUDA and OpenCL kernels
//! (the front end's generator, `crates/frontend/tests/fuzz/gen.rs`) through `syncfix::verify`
//! with a small launch (mostly blocks of 4x2 threads and 2 blocks; see `gen::LAUNCHES`) and
//! the default options or one of GPUVerify's flags.
//!
//! Properties: `verify` never panics; it returns a verdict (any) or a front-end error, and the
//! only front-end errors allowed are unsupported constructs (counted and reported): a clang
//! rejection, a tool error or a verifier error is a problem. A found defect's primary location
//! must be a line of the kernel's file. A second run gives the same reports (determinism). At
//! least half the kernels reach a verdict (verified, a bound, a defect): not `unknown`, a
//! timeout or an unsupported construct.
//!
//! The default run is short (16 kernels); a long run: `PROPTEST_CASES=500 cargo test
//! --release -p syncfix --test fuzz -- --nocapture`.

#[path = "../../frontend/tests/fuzz/gen.rs"]
mod gen;
#[path = "../../frontend/tests/fuzz/harness.rs"]
mod harness;

use gen::{GenKernel, Lang};
use harness::{clang_signature, guarded, normalize, Check};
use std::path::Path;
use std::time::Duration;
use syncfix::{Abstraction, ErrorReport, ErrorStage, Launch, Options, Status};

fn options(k: &GenKernel) -> Options {
    let mut o = Options::new(Launch::new(k.launch.0, k.launch.1));
    // Bounded work per kernel: a cap that is hit is an `unknown` verdict, not a failure.
    o.timeout = Some(Duration::from_secs(30));
    o.verifier.max_instructions = 100_000;
    // The variant: the defaults, `--findbugs`, `--only-intra-group`, `--equality-abstraction`,
    // `--adversarial-abstraction` or `--no-benign-tolerance`.
    match k.variant {
        0 => {}
        1 => o.verifier.loop_unwind = Some(2),
        2 => o.verifier.only_intra_group = true,
        3 => o.verifier.abstraction = Abstraction::Equality,
        4 => o.verifier.abstraction = Abstraction::Adversarial,
        _ => o.verifier.benign_tolerance = false,
    }
    o
}

/// Verifies `k` and classifies the outcome.
fn check(k: &GenKernel) -> Check {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(k.file_name());
    std::fs::write(&path, &k.source).expect("writing the kernel");
    let run = || guarded(|| syncfix::verify(Path::new(&path), &k.source, &options(k)));
    match run() {
        Err(panic) => Check::problem(normalize(&panic), panic),
        Ok(Ok((reports, _))) => {
            // The same input gives the same output (ARCHITECTURE.md), timeouts aside.
            if !reports.iter().any(|r| matches!(r.status, Status::Timeout)) {
                let again = match run() {
                    Ok(Ok((again, _))) => format!("{again:#?}"),
                    other => format!("{:?}", other.map(|r| r.map(|_| ()))),
                };
                let first = format!("{reports:#?}");
                if again != first && !again.contains("Timeout") {
                    return Check::problem("a second run gives another result", format!("first:\n{first}\nsecond:\n{again}"));
                }
            }
            let mut labels = vec![];
            for r in &reports {
                let label = match &r.status {
                    Status::Verified => "verified".to_string(),
                    Status::Bounded => "no error up to a bound".to_string(),
                    Status::Unknown | Status::Error => format!("unknown: {}", normalize(r.reason.as_deref().unwrap_or(""))),
                    Status::Timeout => "timeout".to_string(),
                    _ => match r.findings.first() {
                        None => return Check::problem("a defect without a finding", format!("{r:?}")),
                        Some(f) => {
                            let lines = k.source.lines().count() as u32;
                            match f.primary() {
                                Some(l) if l.in_main && (1..=lines).contains(&l.line) => {}
                                _ => return Check::problem("a finding whose location is not a line of the kernel", format!("{f:?}")),
                            }
                            format!("defect: {}", defect_kind(&f.headline()))
                        }
                    },
                };
                labels.push(label);
            }
            Check::pass(labels.join(" + "))
        }
        Ok(Err(e)) => classify(e),
    }
}

/// GPUVerify's headline without the array and offsets (`possible write-write race on A[..]`
/// becomes `possible write-write race`).
fn defect_kind(headline: &str) -> String {
    let h = headline.split(" on ").next().unwrap_or(headline);
    normalize(h.split(':').next().unwrap_or(h))
}

/// A call that gave no verdict: an unsupported construct (named, with its line) is allowed,
/// a time limit is a verdict of its own; anything else is a problem.
fn classify(e: ErrorReport) -> Check {
    let unsupported = e.message.split_once("unsupported construct: ").map(|(_, what)| what.lines().next().unwrap_or("").to_string());
    match (e.stage, unsupported) {
        (ErrorStage::FrontEnd, Some(what)) => Check::allowed(format!("unsupported: {}", normalize(&what)), e.message.clone()),
        (ErrorStage::Timeout, _) => Check::pass("timeout".to_string()),
        (ErrorStage::Clang, _) => Check::problem(format!("clang rejected: {}", clang_signature(&e.message)), e.message.clone()),
        (stage, _) => Check::problem(format!("{} error: {}", stage.name(), normalize(&e.message)), e.message.clone()),
    }
}

#[test]
fn random_kernels_verify_without_panics() {
    let summary = harness::run("verify fuzz", gen::VERIFY, 16, check);
    eprintln!("{}", summary.render());
    assert!(summary.problems.is_empty(), "problems found:\n{}", summary.render());
    // A floor (issue 26): `unknown`, a timeout and an unsupported construct are allowed, but
    // a run where most kernels end that way tests nothing; at least half reach a verdict.
    let verdicts: usize =
        summary.passes.iter().filter(|(label, _)| !label.contains("unknown") && !label.contains("timeout")).map(|(_, n)| n).sum();
    assert!(
        2 * verdicts >= summary.cases as usize,
        "only {verdicts} of {} kernels reached a verdict (the floor is half):\n{}",
        summary.cases,
        summary.render()
    );
}

/// The simplest generated kernels (an exhausted choice stream) verify: the run above is not
/// vacuous.
#[test]
fn the_simplest_generated_kernels_verify() {
    for lang in [Lang::Cuda, Lang::OpenCl] {
        let k = gen::generate(lang, &[], gen::VERIFY);
        let c = check(&k);
        assert_eq!(c.signature, "verified", "{k:?}\n{}", c.detail);
    }
}
