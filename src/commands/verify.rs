//! `syncfix verify`: GPUVerify's verdict.

use crate::args::{CommonArgs, Emit, Format, VerifyArgs};
use crate::output::{fail, file_name, print_stats, print_verdict, say, TIMEOUT_HINT};
use crate::render;
use crate::setup::setup;
use crate::stop;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use syncfix::exit;
use syncfix::verdict::Verdict;
use syncfix::{KernelReport, Language, Options, Progress, Stats, Status};

/// What is printed when the watchdog ends a run at its time limit: the front end's notes,
/// then, when the front end had ended, the verdict of each kernel reached so far (the others
/// timed out) as [`print_result`] prints a whole run; else a bare timeout verdict. Returns the
/// exit code.
fn timeout_result(s: &Summary, started: Instant, progress: &Progress) -> u8 {
    let reports = progress.reports();
    if !reports.is_empty() {
        let timings = progress.timings();
        eprintln!("syncfix: the time limit was reached; the verdicts below are those reached by then (no race was replayed)");
        return print_result(s, &reports, &timings, (started.elapsed(), None), None);
    }
    // The front end's notes (the launch it read, what it left out) are the user's even when
    // the verdict is a timeout.
    for n in progress.notes() {
        eprintln!("syncfix: note: {n}");
    }
    say(s.format, &render::trailer(render::Counts { timeouts: 1, ..Default::default() }));
    eprintln!("syncfix: verification timed out; {TIMEOUT_HINT}");
    let stats = Stats::default().with_total(started.elapsed());
    print_verdict(s.format, &Verdict::timeout(&s.file, exit::TIMEOUT, "the time limit was reached", stats));
    exit::TIMEOUT
}

/// What [`print_result`] needs of the command line, owned (the watchdog's thread prints with
/// it too).
#[derive(Clone)]
struct Summary {
    format: Format,
    file: String,
    lang: Language,
    launch_from_host: bool,
    silent: bool,
    stats: bool,
}

pub fn run(a: &VerifyArgs, started: Instant) -> u8 {
    run_with(a, started, None)
}

/// `verify`, and for `replay --emit-harness FILE` the harness of the first replayed race or
/// divergence written to `harness` (atomically; never the kernel's own file).
pub fn run_with(a: &VerifyArgs, started: Instant, harness: Option<&Path>) -> u8 {
    let c = &a.common;
    let format = a.format;
    let file = c.file.display().to_string();
    let (text, _, mut opts) = match setup(c, None, false) {
        Ok(x) => x,
        Err(e) => return fail(format, &file, e, started),
    };
    if let Some(h) = harness {
        if std::fs::canonicalize(h).ok().is_some_and(|h| std::fs::canonicalize(&c.file).is_ok_and(|f| f == h)) {
            eprintln!("syncfix: error: --emit-harness would overwrite the kernel's file {}", h.display());
            return exit::COMMAND_LINE_ERROR;
        }
        opts.verifier.emit_harness = true;
    }
    if let Some(e) = c.emit {
        return emit(c, &text, &opts, e, false);
    }
    let progress = Arc::new(Progress::default());
    opts.progress = Some(progress.clone());
    let summary = Summary {
        format,
        file: file.clone(),
        lang: opts.language.unwrap_or(Language::Cuda),
        launch_from_host: opts.source.launch_from_host,
        silent: c.silent,
        stats: c.stats || c.time,
    };
    if let Some(d) = opts.timeout.map(|t| Instant::now() + t) {
        let (summary, progress) = (summary.clone(), progress.clone());
        stop::watchdog(d, move || timeout_result(&summary, started, &progress));
    }
    let result = syncfix::verify(&c.file, &text, &opts);
    stop::begin_output();
    let (reports, timings) = match result {
        Ok(r) => r,
        Err(e) if e.is_timeout() => return timeout_result(&summary, started, &progress),
        Err(e) => return fail(format, &file, e, started),
    };
    let total = started.elapsed();
    let baseline = if a.bench_clang && format != Format::Text { syncfix::clang_baseline(&c.file, &text, &opts).ok() } else { None };
    print_result(&summary, &reports, &timings, (total, baseline), harness)
}

/// Prints the verdict of every kernel of a file (GPUVerify's text, or the machine format),
/// the stats when asked, and for `replay --emit-harness` writes the harness; returns the exit
/// code.
/// `times`: the run's wall-clock time and, for `--bench-clang`, a plain clang compile's.
fn print_result(s: &Summary, reports: &[KernelReport], timings: &Stats, times: (Duration, Option<Duration>), harness: Option<&Path>) -> u8 {
    let (format, file, lang) = (s.format, &s.file, s.lang);
    if s.launch_from_host {
        crate::output::symbolic_sizes_warning(file, reports.iter().map(|r| (r.kernel.as_str(), r.notes.as_slice())));
    }
    let mut noted: Vec<&String> = vec![];
    for n in reports.iter().flat_map(|r| &r.notes) {
        if !noted.contains(&n) {
            eprintln!("syncfix: note: {n}");
            noted.push(n);
        }
    }
    for a in reports.iter().flat_map(|r| &r.assumptions) {
        eprintln!("syncfix: warning: {a}");
    }
    let mut n = render::Counts::default();
    let mut bound = None;
    for r in reports {
        match r.status {
            Status::Verified => n.verified += 1,
            Status::Bounded => {
                n.bounded += 1;
                bound = r.bound
            }
            Status::Timeout => n.timeouts += 1,
            Status::Unknown | Status::Error => {
                n.inconclusive += 1;
                let why = r.reason.as_deref().unwrap_or("no reason given");
                eprintln!("syncfix: warning: {}: kernel `{}` could not be verified: {why}", file_name(file), r.kernel);
            }
            _ => {
                n.errors += 1;
                for f in &r.findings {
                    eprint!("{}", render::finding(f, lang, file));
                }
                // The kernel's arguments in the counterexample, as GPUVerify prints them.
                for (name, v) in &r.param_values {
                    eprintln!("{name} = {v}");
                }
                if !r.param_values.is_empty() {
                    eprintln!();
                }
            }
        }
    }
    let failed = n.errors > 0 || n.inconclusive > 0 || n.timeouts > 0;
    if !s.silent || failed {
        say(format, &render::trailer(n));
    }
    if s.stats {
        print_stats(timings);
    }
    if let Some(h) = harness {
        let made = reports.iter().flat_map(|r| &r.findings).find_map(|f| f.replay().and_then(|r| r.harness.clone()));
        match made {
            Some(Ok(program)) => match syncfix::write_atomically(h, &program) {
                Ok(()) => eprintln!("syncfix: note: wrote the harness to {}", h.display()),
                Err(e) => {
                    eprintln!("syncfix: error: cannot write the harness to {}: {e}", h.display());
                    return exit::COMMAND_LINE_ERROR;
                }
            },
            Some(Err(why)) => eprintln!("syncfix: warning: no harness: {why}"),
            None => eprintln!("syncfix: note: no race or divergence to replay, so no harness"),
        }
    }
    let code = Status::exit_code(reports.iter().map(|r| r.status));
    if code == exit::TIMEOUT {
        eprintln!("syncfix: verification timed out; {TIMEOUT_HINT}");
    }
    if code == exit::SUCCESS {
        match bound {
            _ if s.silent => {}
            Some(b) => say(
                format,
                &format!(
                    "No defects were found while analysing: {}\nNotes:\n- This is not a proof: loops were explored up to {b} iterations.\n- Use --loop-unwind=N with N > {b} to search for deeper bugs.\n- Re-run in verification mode to try to prove absence of defects.\n",
                    file_name(file)
                ),
            ),
            None => say(format, &render::verified_summary(file, lang, reports.iter().any(|r| r.inter_group))),
        }
    }
    if format != Format::Text {
        let mut stats = timings.clone().with_total(times.0);
        stats.clang_baseline = times.1;
        print_verdict(format, &Verdict::of_reports(file, reports, stats, code));
    }
    code
}

/// `--emit`: the kernels in KIR, or instrumented with the barrier variables of `repair`, or
/// with `audit` those of an audit (the user's barriers only).
pub fn emit(c: &CommonArgs, text: &str, opts: &Options, e: Emit, audit: bool) -> u8 {
    let dumped = match e {
        Emit::Instrumented if audit => syncfix::dump_audit(&c.file, text, opts),
        _ => syncfix::dump(&c.file, text, opts, e == Emit::Instrumented),
    };
    match dumped {
        Ok(s) => {
            print!("{s}");
            exit::SUCCESS
        }
        Err(err) => fail(Format::Text, "", err, Instant::now()),
    }
}
