//! `syncfix bench DIR`: the benchmark over a GPUVerify-style tree (not a timed test).
//!
//! Runs every kernel as `syncfix verify --format json --bench-clang` (see [`crate::runner`]),
//! and reports per kernel and in total the stage times of the JSON verdict's stats (clang,
//! lowering, encoding, Houdini, solving), verifier and solver calls, and beside them the time
//! of one plain clang-19 compile of the same kernel with the front end's flags and the prelude
//! included (the headers the kernel needs; the prelude stands in for the CUDA toolkit's), a
//! whole clang process. Two ratios per kernel, and their medians: whole-process (the `syncfix
//! verify` process's wall time, less the baseline compile it ran last, over the baseline) and
//! in-process (syncfix's own `total_ms` over the baseline).

use crate::runner::{self, Plan};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use syncfix::Stats;
use syncfix::Status;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The test tree.
    dir: PathBuf,
    /// Parallel jobs (default 1: the kernels do not compete for the cores).
    #[arg(long, short = 'j', default_value_t = 1)]
    jobs: usize,
    /// Seconds per kernel.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Only kernels whose path contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Write the per-kernel and total figures here, as JSON (schema `syncfix.bench/1`).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(Serialize)]
struct KernelBench {
    path: String,
    status: Status,
    exit_code: u8,
    /// Wall-clock seconds of the `syncfix verify` process.
    seconds: f64,
    stats: Stats,
    /// Whole-process: `(seconds - clang_baseline) / clang_baseline`, when the baseline is known.
    ratio: Option<f64>,
    /// In-process: `stats.total_ms / stats.clang_baseline_ms`, when both are known (the JSON's
    /// names of `Stats::total` and `Stats::clang_baseline`).
    in_process_ratio: Option<f64>,
}

#[derive(Serialize, Default)]
struct Totals {
    kernels: usize,
    /// The sums over the kernels (`clang_baseline_ms`: of the plain clang compiles).
    #[serde(flatten)]
    sum: Stats,
    /// The median over the kernels of `ratio` (whole-process).
    median_ratio: f64,
    /// The median over the kernels of `in_process_ratio`.
    median_in_process_ratio: f64,
}

#[derive(Serialize)]
struct BenchJson {
    schema: &'static str,
    dir: String,
    jobs: usize,
    timeout_s: u64,
    totals: Totals,
    kernels: Vec<KernelBench>,
}

/// Milliseconds (unrounded: the figures printed).
fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn totals(kernels: &[KernelBench]) -> Totals {
    let mut t = Totals { kernels: kernels.len(), ..Totals::default() };
    for k in kernels {
        t.sum.add(&k.stats);
    }
    t.median_ratio = runner::median(kernels.iter().filter_map(|k| k.ratio).collect());
    t.median_in_process_ratio = runner::median(kernels.iter().filter_map(|k| k.in_process_ratio).collect());
    t
}

pub fn run(a: &BenchArgs) -> u8 {
    let (jobs, _) = match runner::collect(&a.dir, a.filter.as_deref()) {
        Ok(x) => x,
        Err(m) => return runner::fail(&m),
    };
    let plan =
        Plan { jobs: a.jobs, timeout: a.timeout, extra: vec!["--bench-clang".into(), runner::solver_threads_flag(a.jobs)], fork: false };
    let runs = runner::run_all(jobs, &plan, |r| {
        let s = &r.verdict.stats;
        let line = format!(
            "{:<12} {:8.1} ms (clang {:.1}, lowering {:.1}, encoding {:.1}, solving {:.1}); plain clang {} {}",
            runner::status_text(&r.verdict),
            ms(s.total),
            ms(s.clang),
            ms(s.frontend.saturating_sub(s.clang)),
            ms(s.encode),
            ms(s.solve),
            s.clang_baseline.map(|b| format!("{:.1} ms", ms(b))).unwrap_or_else(|| "-".into()),
            r.job.rel
        );
        (line, false)
    });
    let runs = match runs {
        Ok(r) => r,
        Err(m) => return runner::fail(&m),
    };
    let kernels: Vec<KernelBench> = runs
        .iter()
        .map(|r| {
            let s = r.verdict.stats.clone();
            let round = |x: f64| (x * 100.0).round() / 100.0;
            let baseline = s.clang_baseline.map(ms).filter(|b| *b > 0.0);
            let in_process_ratio = baseline.filter(|_| !s.total.is_zero()).map(|b| round(ms(s.total) / b));
            let ratio = baseline.map(|b| round((r.seconds * 1e3 - b).max(0.0) / b));
            KernelBench {
                path: r.job.rel.clone(),
                status: r.verdict.status,
                exit_code: r.verdict.exit_code,
                seconds: (r.seconds * 1e3).round() / 1e3,
                stats: s,
                ratio,
                in_process_ratio,
            }
        })
        .collect();
    let t = totals(&kernels);
    let s = &t.sum;
    println!(
        "{} kernels: clang {:.1}s, lowering {:.1}s, encoding {:.1}s, houdini {:.1}s, solving {:.1}s; {:.1}s in all in syncfix",
        t.kernels,
        s.clang.as_secs_f64(),
        s.frontend.saturating_sub(s.clang).as_secs_f64(),
        s.encode.as_secs_f64(),
        s.houdini.as_secs_f64(),
        s.solve.as_secs_f64(),
        s.total.as_secs_f64()
    );
    println!(
        "{} verifier calls, {} solver calls, {} Houdini rounds; plain clang-19 compiles {:.1}s; median syncfix/clang ratio {:.2} whole-process, {:.2} in-process",
        s.verifier_calls,
        s.solver_calls,
        s.houdini_rounds,
        s.clang_baseline.unwrap_or_default().as_secs_f64(),
        t.median_ratio,
        t.median_in_process_ratio
    );
    if let Some(path) = &a.json {
        let doc = BenchJson {
            schema: "syncfix.bench/1",
            dir: a.dir.display().to_string(),
            jobs: a.jobs,
            timeout_s: a.timeout,
            totals: t,
            kernels,
        };
        if let Err(e) = runner::write_json(path, &doc) {
            return runner::fail(&e);
        }
    }
    crate::exit::SUCCESS
}
