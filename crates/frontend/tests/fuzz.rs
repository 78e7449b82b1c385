//! Fuzzing the front end (issue 3): random well-formed CUDA and OpenCL kernels (see
//! `fuzz/gen.rs`) through clang-19 and the lowering to KIR.
//!
//! Properties: `compile` never panics; it never returns `FrontendError::Clang` (a generated
//! kernel is well-formed, so a rejection is a bug of the generator, or of the marker pass when
//! the marked copy is rejected), nor a tool error or "no kernel"; a compiled file has one KIR
//! kernel per source kernel, each printable, well formed (`syncfix_kir::check` and
//! `check_spans`) and with a reducible CFG. Unsupported constructs
//! are allowed: they are counted and reported.
//!
//! The default run is short (16 kernels); a long run: `PROPTEST_CASES=2000 cargo test
//! --release -p syncfix-frontend --test fuzz -- --nocapture` (see `fuzz/harness.rs` for the
//! other variables).

#[path = "fuzz/gen.rs"]
mod gen;
#[path = "fuzz/harness.rs"]
mod harness;

use gen::{GenKernel, Lang};
use harness::{clang_signature, guarded, normalize, Check};
use std::path::Path;
use syncfix_frontend::driver::{compile, FrontendError, FrontendOptions};
use syncfix_kir::{Cfg, Launch};

fn options(k: &GenKernel) -> FrontendOptions {
    FrontendOptions::new(Launch::new(k.launch.0, k.launch.1))
}

/// Compiles `k` and classifies the outcome.
fn check(k: &GenKernel) -> Check {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(k.file_name());
    std::fs::write(&path, &k.source).expect("writing the kernel");
    let expected_kernels = if k.features.contains("two kernels in a file") { 2 } else { 1 };
    let result = guarded(|| {
        let compiled = compile(Path::new(&path), &k.source, &options(k))?;
        let mut issues = vec![];
        if compiled.kernels.len() != expected_kernels {
            issues.push(format!("{} KIR kernels for {expected_kernels} source kernels", compiled.kernels.len()));
        }
        for kernel in &compiled.kernels {
            let _ = kernel.to_string();
            if let Err(e) = Cfg::compute(kernel) {
                issues.push(format!("kernel `{}`: irreducible CFG: {e:?}", kernel.name));
            }
            // KIR's well-formedness check (debug builds run it inside the lowering; a release
            // run of this test would not).
            for e in syncfix_kir::check(kernel).iter().chain(syncfix_kir::check_spans(kernel).iter()) {
                issues.push(format!("malformed KIR: {e}"));
            }
        }
        Ok::<_, FrontendError>(issues)
    });
    match result {
        Err(panic) => Check::problem(normalize(&panic), panic),
        Ok(Ok(issues)) if issues.is_empty() => Check::pass("compiled"),
        Ok(Ok(issues)) => Check::problem(normalize(&issues[0]), issues.join("\n")),
        Ok(Err(e)) => classify(e),
    }
}

/// The class of a front-end error: unsupported constructs are allowed, the rest is a problem.
pub fn classify(e: FrontendError) -> Check {
    match e {
        FrontendError::Unsupported { what, loc } => {
            Check::allowed(format!("unsupported: {}", normalize(&what)), format!("{what} (at {loc:?})"))
        }
        FrontendError::Clang(diags) if diags.contains("marked copy") => Check::problem(
            format!("clang rejected the marked copy: {}", clang_signature(diags.lines().skip(1).collect::<Vec<_>>().join("\n").as_str())),
            diags,
        ),
        FrontendError::Clang(diags) => Check::problem(format!("clang rejected the kernel: {}", clang_signature(&diags)), diags),
        other => Check::problem(format!("front-end error: {}", normalize(&other.to_string())), other.to_string()),
    }
}

#[test]
fn random_kernels_compile_and_lower_without_panics_or_clang_errors() {
    let summary = harness::run("front-end fuzz", gen::FRONTEND, 16, check);
    eprintln!("{}", summary.render());
    assert!(summary.problems.is_empty(), "problems found:\n{}", summary.render());
}

/// The kernels of an exhausted choice stream (the ends of every shrink) compile: the fuzz
/// test above is not vacuously passing on kernels that all fail early.
#[test]
fn the_simplest_generated_kernels_compile() {
    for lang in [Lang::Cuda, Lang::OpenCl] {
        let k = gen::generate(lang, &[], gen::FRONTEND);
        let c = check(&k);
        assert_eq!(c.signature, "compiled", "{k:?}\n{}", c.detail);
    }
}
