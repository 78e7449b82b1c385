//! `verify`: GPUVerify's verdict for every kernel of a file, each finding replayed on concrete
//! threads.

use super::each_kernel;
use crate::error::StageError;
use crate::options::Stages;
use crate::report::KernelReport;
use crate::report::{describe, Finding};
use crate::results::Status;
use crate::Stats;
use std::path::Path;
use std::time::{Duration, Instant};
use syncfix_frontend::driver::{compile_each, FrontendError};
use syncfix_instrument::{instrument, InstrumentConfig};
use syncfix_kir::Kernel;
use syncfix_verify::{Verdict, Verifier, VerifyError};

/// GPUVerify's verdict for every kernel of a file. Past the deadline the front end fails with
/// [`FrontendError::Timeout`] and a kernel's status is [`Status::Timeout`].
pub(crate) fn verify(path: &Path, text: &str, opts: &Stages) -> Result<(Vec<KernelReport>, Stats), StageError> {
    let t0 = Instant::now();
    // One kernel that the front end cannot lower does not stop the others of the file: its
    // verdict is unknown, with the construct and its line.
    let compiled = compile_each(path, text, &opts.frontend)?;
    opts.publish_notes(compiled.kernel_notes.iter().flatten());
    let mut timings = Stats { frontend: t0.elapsed(), clang: compiled.tool_time, ..Stats::default() };
    let failed = failed_reports(&compiled.failed);
    let names = compiled.kernels.iter().map(|k| k.name.clone()).chain(failed.iter().map(|r| r.kernel.clone()));
    opts.publish_kernels(names, &timings);
    for (i, r) in failed.iter().enumerate() {
        opts.publish_report(compiled.kernels.len() + i, r, &Stats::default());
    }
    let mut out = vec![];
    let results = each_kernel(&compiled.kernels, opts, |i, k| {
        let mut t = Stats::default();
        let (mut report, replay) = verify_kernel(k, opts, &mut t)?;
        report.notes = compiled.kernel_notes.get(i).cloned().unwrap_or_default();
        // The verdict without its replay, for a caller whose watchdog ends the call first.
        opts.publish_report(i, &report, &t);
        Ok(((report, replay), t))
    });
    let mut pending = vec![];
    for r in results {
        let ((report, replay), t) = r?;
        timings.add(&t);
        out.push(report);
        pending.push(replay);
    }
    replay_findings(&mut out, pending, opts);
    out.extend(failed);
    Ok((out, timings))
}

/// The reports of the kernels the front end could not lower: unknown, with the construct and
/// its line.
fn failed_reports(failed: &[(String, FrontendError)]) -> Vec<KernelReport> {
    failed
        .iter()
        .map(|(kernel, e)| {
            let reason = match e {
                FrontendError::Unsupported { what, loc: Some(l) } if l.file == syncfix_kir::FileId::MAIN && l.line > 0 => {
                    format!("unsupported construct at line {}: {what}", l.line)
                }
                FrontendError::Unsupported { what, .. } => format!("unsupported construct: {what}"),
                other => other.to_string(),
            };
            KernelReport { reason: Some(reason), ..KernelReport::bare(kernel, Status::Unknown) }
        })
        .collect()
}

/// The benchmark's baseline: one plain clang-19 compile (see
/// `syncfix_frontend::driver::clang_baseline`).
pub(crate) fn clang_baseline(path: &Path, text: &str, opts: &Stages) -> Result<Duration, StageError> {
    Ok(syncfix_frontend::driver::clang_baseline(path, text, &opts.frontend)?)
}

fn verify_kernel(k: &Kernel, opts: &Stages, timings: &mut Stats) -> Result<Reported, StageError> {
    let ctx = z3::Context::new(&z3::Config::new());
    syncfix_verify::interruptible(&ctx, opts.cancel.as_ref(), || verify_kernel_in(&ctx, k, opts, timings))
}

fn verify_kernel_in(ctx: &z3::Context, k: &Kernel, opts: &Stages, timings: &mut Stats) -> Result<Reported, StageError> {
    let inst = instrument(k, &InstrumentConfig::verify_only());
    let encoding = Instant::now();
    let mut v = match Verifier::new(ctx, &inst.kernel, inst.vars.len(), &opts.verify) {
        Ok(v) => v,
        // Too large, or something the verifier cannot encode: no verdict, and the reason says
        // why.
        Err(e @ (VerifyError::TooLarge(_) | VerifyError::Unsupported(_))) => {
            return Ok(report_of(k, Verdict::Unknown(e.to_string()), opts))
        }
        Err(VerifyError::Timeout) => {
            // `--stats` says where the time went: the encoding (its unwinding checks).
            timings.encode += encoding.elapsed();
            return Ok(report_of(k, Verdict::Timeout, opts));
        }
        Err(source) => return Err(StageError::Verify { kernel: k.name.clone(), source }),
    };
    let verdict = v.check(&inst.original_assignment());
    add_verifier_stats(timings, &v.stats);
    Ok(report_of(&inst.kernel, verdict, opts))
}

pub(super) fn add_verifier_stats(t: &mut Stats, s: &syncfix_verify::Stats) {
    t.encode += s.encode_time;
    t.solve += s.solve_time;
    t.houdini += s.houdini_time;
    t.verifier_calls += s.checks;
    t.solver_calls += s.solver_calls;
    t.houdini_rounds += s.houdini_rounds;
    t.queries += s.queries;
    t.cone_fallbacks += s.cone_fallbacks;
    t.houdini_unproved += s.houdini_unproved;
    t.reads_abstracted += s.reads_abstracted;
    t.refuted_reads_abstracted += s.refuted_reads_abstracted;
    t.houdini_reused += s.houdini_reused;
    t.queries_reused += s.queries_reused;
    t.queries_by_stride += s.queries_by_stride;
    t.queries_without_values += s.queries_without_values;
    t.houdini_seeded += s.seeded as u32;
    t.seed_fallbacks += s.seed_fallback as u32;
    t.note_slowest(&s.slowest_query);
    for (label, properties, took) in &s.query_times {
        t.note_query(label, *properties, 1, *took);
    }
    for (l, line, rounds, took) in &s.houdini_loops {
        let label = match line {
            Some(line) => format!("loop {l} (line {line})"),
            None => format!("loop {l}"),
        };
        t.note_houdini_loop(&label, *rounds, crate::stats::ms(*took));
    }
}

/// A kernel's report, and for a race or divergence the kernel and trace to replay once every
/// kernel of the file has its verdict ([`replay_findings`]).
type Reported = (KernelReport, Option<(Kernel, syncfix_verify::Trace)>);

fn report_of(k: &Kernel, verdict: Verdict, opts: &Stages) -> Reported {
    let inter_group = !opts.verify.only_intra_group && k.multi_block();
    let mut param_values = vec![];
    let mut pending = None;
    let (mut reason, mut bound) = (None, None);
    let (status, findings) = match verdict {
        Verdict::Verified => (Status::Verified, vec![]),
        Verdict::NoErrorUpTo { bound: b } => {
            bound = Some(b);
            (Status::Bounded, vec![])
        }
        Verdict::Defect(t) => {
            param_values = t.params.iter().filter_map(|&(i, v)| k.params.get(i).map(|p| (p.name.clone(), v))).collect();
            let f = describe(k, &t);
            if matches!(f, Finding::Race { .. } | Finding::Divergence { .. }) {
                pending = Some((k.clone(), *t));
            }
            (crate::verdict::status_of(&f), vec![f])
        }
        Verdict::Unknown(r) => {
            reason = Some(r);
            (Status::Unknown, vec![])
        }
        Verdict::Timeout => (Status::Timeout, vec![]),
    };
    let report = KernelReport {
        kernel: k.name.clone(),
        status,
        reason,
        bound,
        findings,
        inter_group,
        assumptions: k.assumptions.clone(),
        notes: vec![],
        param_values,
    };
    (report, pending)
}

/// Replays the race or divergence of each report that has one (issue 29), once every kernel
/// of the file has its verdict, so that the replays never take the cores from the
/// verification of another kernel; several at once on the cores there are. `--confirmed-only`
/// then turns a kernel whose finding is only possible into `unknown`, with the reason.
fn replay_findings(reports: &mut [KernelReport], pending: Vec<Option<(Kernel, syncfix_verify::Trace)>>, opts: &Stages) {
    let todo: Vec<(usize, Kernel, syncfix_verify::Trace)> =
        pending.into_iter().enumerate().filter_map(|(i, p)| p.map(|(k, t)| (i, k, t))).collect();
    let kernels: Vec<Kernel> = todo.iter().map(|(_, k, _)| k.clone()).collect();
    let replayed = each_kernel(&kernels, opts, |_, k| {
        let j = kernels.iter().position(|x| std::ptr::eq(x, k)).expect("a kernel of the list");
        let (i, _, t) = &todo[j];
        let mut f = reports[*i].findings[0].clone();
        crate::confirm::confirm(k, t, &mut f, opts.verify.deadline, opts.verify.warp_size, opts.emit_harness);
        Ok(f)
    });
    for ((i, _, _), f) in todo.iter().zip(replayed) {
        let r = &mut reports[*i];
        // A replay that could not run (the time limit or a cancellation came first) still
        // marks its finding possible, with the reason.
        let f = f.unwrap_or_else(|e| {
            let why = match e {
                StageError::Cancelled if !opts.deadline_passed() => "the call was cancelled before it could be replayed",
                _ => "no time was left before the time limit to replay it",
            };
            let mut f = r.findings[0].clone();
            crate::confirm::not_replayed(&mut f, why);
            f
        });
        match f.replay() {
            // `--confirmed-only`: a finding the replay did not confirm is not reported; the
            // kernel is not verified either.
            Some(replay) if opts.confirmed_only && !replay.confirmed => {
                let why = replay.reason.clone().unwrap_or_default();
                r.status = Status::Unknown;
                r.reason = Some(format!(
                    "{} that a replay on concrete threads did not confirm ({why}); --confirmed-only leaves it out",
                    f.headline()
                ));
                r.findings.clear();
                r.param_values.clear();
            }
            _ => r.findings[0] = f,
        }
    }
}
