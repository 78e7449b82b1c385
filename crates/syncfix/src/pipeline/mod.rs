//! The pipeline, in one place: front end -> instrumentation -> verifier -> repair loop -> fix,
//! and the re-verification of the patched text (ARCHITECTURE.md, "crates/syncfix — the library facade"). The public
//! functions of the crate root wrap these with the caller's [`crate::Options`] and turn a
//! [`StageError`] into an [`crate::ErrorReport`].

use crate::error::StageError;
use crate::options::Stages;
use crate::report::{describe, Finding};
use crate::results::{Applicability, ChangeInfo, KernelRepair, KernelReport, Removal, RepairReport, RepairStatus, Site, Status, Timings};
use crate::verdict::{TextEdit, TextPoint};
use std::path::Path;
use std::time::{Duration, Instant};
use syncfix_fix::Change;
use syncfix_frontend::driver::{compile, compile_each, Compiled, FrontendError};
use syncfix_instrument::{instrument, InstrumentConfig, Instrumented, SiteKind};
use syncfix_kir::{EntityRef, Kernel, Scope, StmtId};
use syncfix_repair::repair::{audit_from, repair_from as repair_loop, Outcome, RepairStats, VerifierCall};
use syncfix_verify::{Verdict, Verifier, VerifyError};

mod changes;
mod restructure;
use changes::changes_of;

/// GPUVerify's verdict for every kernel of a file. Past the deadline the front end fails with
/// [`FrontendError::Timeout`] and a kernel's status is [`Status::Timeout`].
pub(crate) fn verify(path: &Path, text: &str, opts: &Stages) -> Result<(Vec<KernelReport>, Timings), StageError> {
    let t0 = Instant::now();
    // One kernel that the front end cannot lower does not stop the others of the file: its
    // verdict is unknown, with the construct and its line.
    let compiled = compile_each(path, text, &opts.frontend)?;
    opts.publish_notes(compiled.kernel_notes.iter().flatten());
    let mut timings = Timings { frontend: t0.elapsed(), clang: compiled.tool_time, ..Timings::default() };
    let failed = failed_reports(&compiled.failed);
    let names = compiled.kernels.iter().map(|k| k.name.clone()).chain(failed.iter().map(|r| r.kernel.clone()));
    opts.publish_kernels(names, &timings);
    for (i, r) in failed.iter().enumerate() {
        opts.publish_report(compiled.kernels.len() + i, r, &Timings::default());
    }
    let mut out = vec![];
    let results = each_kernel(&compiled.kernels, opts, |i, k| {
        let mut t = Timings::default();
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
            KernelReport::bare(kernel, Status::Unknown(reason))
        })
        .collect()
}

/// The benchmark's baseline: one plain clang-19 compile (see
/// `syncfix_frontend::driver::clang_baseline`).
pub(crate) fn clang_baseline(path: &Path, text: &str, opts: &Stages) -> Result<Duration, StageError> {
    Ok(syncfix_frontend::driver::clang_baseline(path, text, &opts.frontend)?)
}

fn verify_kernel(k: &Kernel, opts: &Stages, timings: &mut Timings) -> Result<Reported, StageError> {
    let ctx = z3::Context::new(&z3::Config::new());
    syncfix_verify::interruptible(&ctx, opts.cancel.as_ref(), || verify_kernel_in(&ctx, k, opts, timings))
}

fn verify_kernel_in(ctx: &z3::Context, k: &Kernel, opts: &Stages, timings: &mut Timings) -> Result<Reported, StageError> {
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

fn add_verifier_stats(t: &mut Timings, s: &syncfix_verify::Stats) {
    t.encode += s.encode_time;
    t.solve += s.solve_time;
    t.houdini += s.houdini_time;
    t.verifier_calls += s.checks;
    t.solver_calls += s.solver_calls;
    t.houdini_rounds += s.houdini_rounds;
    t.queries += s.queries;
    t.cone_fallbacks += s.cone_fallbacks;
    t.houdini_unproved += s.houdini_unproved;
    t.houdini_reused += s.houdini_reused;
    t.queries_reused += s.queries_reused;
    t.queries_by_stride += s.queries_by_stride;
    t.queries_without_values += s.queries_without_values;
    t.houdini_seeded += s.seeded as u32;
    t.seed_fallbacks += s.seed_fallback as u32;
    t.note_slowest(&s.slowest_query);
}

/// A kernel's report, and for a race or divergence the kernel and trace to replay once every
/// kernel of the file has its verdict ([`replay_findings`]).
type Reported = (KernelReport, Option<(Kernel, syncfix_verify::Trace)>);

fn report_of(k: &Kernel, verdict: Verdict, opts: &Stages) -> Reported {
    let inter_group = !opts.verify.only_intra_group && k.multi_block();
    let mut param_values = vec![];
    let mut pending = None;
    let (status, findings) = match verdict {
        Verdict::Verified => (Status::Verified, vec![]),
        Verdict::NoErrorUpTo { bound } => (Status::NoErrorUpTo(bound), vec![]),
        Verdict::Defect(t) => {
            param_values = t.params.iter().filter_map(|&(i, v)| k.params.get(i).map(|p| (p.name.clone(), v))).collect();
            let f = describe(k, &t);
            if matches!(f, Finding::Race { .. } | Finding::Divergence { .. }) {
                pending = Some((k.clone(), *t));
            }
            (Status::Defect, vec![f])
        }
        Verdict::Unknown(r) => (Status::Unknown(r), vec![]),
        Verdict::Timeout => (Status::Timeout, vec![]),
    };
    let report = KernelReport {
        kernel: k.name.clone(),
        status,
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
        let Ok(f) = f else { continue };
        let r = &mut reports[*i];
        match f.replay() {
            // `--confirmed-only`: a finding the replay did not confirm is not reported; the
            // kernel is not verified either.
            Some(replay) if opts.confirmed_only && !replay.confirmed => {
                let why = replay.reason.clone().unwrap_or_default();
                r.status = Status::Unknown(format!(
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

/// GPURepair's repair (`Mode::Repair`) or the audit of the kernel's own barriers
/// (`Mode::Audit`: the user's barriers are the only sites) of every kernel of a file.
pub(crate) fn repair_file(path: &Path, text: &str, opts: &Stages, mode: Mode) -> Result<RepairReport, StageError> {
    repair_text(path, text, opts, mode, 0)
}

/// The longest the replay of a repair's first defect runs (and at most a twentieth of the
/// time left): the repair's own calls need the time (issue 28).
const REPLAY_IN_REPAIR: std::time::Duration = std::time::Duration::from_secs(1);

/// How many restructurings one repair may make, one after the other (nested conditionals, one
/// level each; early returns past one barrier each).
const MAX_RESTRUCTURINGS: u32 = 3;

/// [`repair_file`] on `text`, which is the user's file after `depth` restructurings.
fn repair_text(path: &Path, text: &str, opts: &Stages, mode: Mode, depth: u32) -> Result<RepairReport, StageError> {
    let t0 = Instant::now();
    let compiled = compile(path, text, &opts.frontend)?;
    opts.publish_notes(compiled.kernel_notes.iter().flatten());
    let mut o = opts.clone();
    if mode == Mode::Audit {
        o.instrument.new_sites = false;
        o.instrument.disable_inspect = false;
    }
    let (mut report, splits) = repair_compiled(path, text, &o, &compiled, t0, mode)?;
    report.assumptions = compiled.kernels.iter().flat_map(|k| k.assumptions.iter().cloned()).collect();
    report.frontend_notes = unique(compiled.kernel_notes.iter().flatten());
    if mode == Mode::Repair
        && depth < MAX_RESTRUCTURINGS
        && !splits.is_empty()
        && matches!(report.status, RepairStatus::Unrepairable(_) | RepairStatus::Unknown(_))
    {
        match restructure::repair_split(path, text, opts, &compiled, &report, &splits, depth)? {
            Ok(r) => return Ok(r),
            Err(why) if !why.is_empty() => {
                let statuses = std::iter::once(&mut report.status).chain(report.kernels.iter_mut().map(|k| &mut k.status));
                for status in statuses {
                    if let RepairStatus::Unrepairable(r) | RepairStatus::Unknown(r) = status {
                        *r = format!("{r}; {why}");
                    }
                }
            }
            Err(_) => {}
        }
    }
    Ok(report)
}

/// Whether [`repair_compiled`] repairs or audits.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Mode {
    Repair,
    Audit,
}

/// Per change: weight, loop depth, and whether the barrier is a grid barrier.
type Meta = std::collections::HashMap<Change, (u64, u32, bool)>;

/// What one kernel's repair gives the file's.
struct KernelOutcome {
    status: RepairStatus,
    findings: Vec<Finding>,
    changes: Vec<Change>,
    /// The user's barriers this kernel keeps.
    kept: Vec<StmtId>,
    bounded: Option<u32>,
    /// What the repair over-approximated (`RepairStats::log`).
    log: Vec<String>,
    /// Its verifier calls (`RepairStats::calls`).
    calls: Vec<crate::results::VerifierCallInfo>,
    /// The user's barriers (lines) kept undecided (`RepairStats::undecided`).
    undecided: Vec<u32>,
    /// What Houdini kept under the repaired assignment: where the re-verification of the
    /// patched source starts Houdini (`syncfix_verify::HoudiniSeed`).
    seed: Option<syncfix_verify::HoudiniSeed>,
    /// For a kernel that cannot be repaired because every site that would order a race
    /// diverges: those sites as places to restructure (statement, and whether it is the user's
    /// barrier, which then moves).
    splits: Vec<(StmtId, bool)>,
    /// The race or divergence of the kernel as written that the repair started from, with
    /// its replay (issue 29).
    defect: Option<Finding>,
}

impl KernelOutcome {
    /// An outcome without changes: a kernel left as it is, or one that failed.
    fn without_changes(status: RepairStatus, findings: Vec<Finding>) -> KernelOutcome {
        KernelOutcome {
            status,
            findings,
            changes: vec![],
            kept: vec![],
            bounded: None,
            log: vec![],
            calls: vec![],
            undecided: vec![],
            seed: None,
            splits: vec![],
            defect: None,
        }
    }
}

/// The sites the repair's verifier encodes from the start: all but those in a loop without a
/// barrier of the kernel's (its own, on or off). A site there makes the loop one with
/// barriers to the loop cut and Houdini (relational candidates, every log havocked), which
/// costs even while the site is off: HeCBench nbnxm's main loops, Houdini 21 s over a repair
/// with every site encoded, 0.4 s without them. Elsewhere a site costs an interval, less than
/// encoding the kernel again when a candidate turns it on (Houdini from scratch): the tiled
/// matrix multiplication's repair 5.8 s with every site encoded, 11.5 s in three encodings;
/// HeCBench bitpacking's 8 instantiations 61 s and 78 s.
fn sites_encoded_first(inst: &Instrumented) -> Vec<bool> {
    use syncfix_kir::{Guard, InstKind};
    let k = &inst.kernel;
    let Ok(cfg) = syncfix_kir::Cfg::compute(k) else { return vec![true; inst.vars.len()] };
    let own = |g: Guard| match g {
        Guard::Always => true,
        Guard::Var(v) => inst.vars[v.index()].kind == SiteKind::Existing,
    };
    // Per block, the barriers (guard) in it.
    let mut barriers: Vec<(syncfix_kir::BlockId, Guard)> = vec![];
    for (b, blk) in k.blocks.iter() {
        for &i in &blk.insts {
            match &k.insts[i].kind {
                InstKind::Barrier(bar) => barriers.push((b, bar.guard)),
                InstKind::AsyncWait { guard } => barriers.push((b, *guard)),
                _ => {}
            }
        }
    }
    let loops_with_own: Vec<bool> = (0..cfg.loops.len()).map(|l| barriers.iter().any(|&(b, g)| own(g) && cfg.in_loop(b, l))).collect();
    let mut active = vec![true; inst.vars.len()];
    for &(b, g) in &barriers {
        if let Guard::Var(v) = g {
            if (0..cfg.loops.len()).any(|l| cfg.in_loop(b, l) && !loops_with_own[l]) {
                active[v.index()] = false;
            }
        }
    }
    active
}

/// Repairs (or audits) one kernel: its changes, or why it has none.
fn repair_kernel(k: &Kernel, opts: &Stages, mode: Mode, timings: &mut Timings, meta: &mut Meta) -> Result<KernelOutcome, StageError> {
    let ctx = z3::Context::new(&z3::Config::new());
    syncfix_verify::interruptible(&ctx, opts.cancel.as_ref(), || repair_kernel_in(&ctx, k, opts, mode, timings, meta))
}

fn repair_kernel_in(
    ctx: &z3::Context,
    k: &Kernel,
    opts: &Stages,
    mode: Mode,
    timings: &mut Timings,
    meta: &mut Meta,
) -> Result<KernelOutcome, StageError> {
    let inst = instrument(k, &opts.instrument);
    timings.barrier_vars += inst.vars.len();
    let encoding = Instant::now();
    // The sites in loops without a barrier of the kernel's are left out of the encoding at
    // first (`sites_encoded_first`); one joins it when a candidate of the repair turns it on
    // (`Verifier::with_sites`), while every trace still names the sites that would order its
    // race (issue 28: instrument where the race is).
    let mut v = match Verifier::with_sites(ctx, &inst.kernel, sites_encoded_first(&inst), &opts.verify) {
        Ok(v) => v,
        Err(e @ (VerifyError::TooLarge(_) | VerifyError::Unsupported(_))) => {
            return Ok(KernelOutcome::without_changes(RepairStatus::Unknown(e.to_string()), vec![]))
        }
        Err(VerifyError::Timeout) => {
            timings.encode += encoding.elapsed();
            return Ok(KernelOutcome::without_changes(RepairStatus::Timeout, vec![]));
        }
        Err(source) => return Err(StageError::Verify { kernel: k.name.clone(), source }),
    };
    // The kernel as written: `repair` leaves a verified kernel alone, `audit` judges only a
    // verified kernel's barriers.
    let checked = Instant::now();
    let first = v.check(&inst.original_assignment());
    // What an audit keeps for the re-verification of its patch: the front end and a check
    // like this one (from Houdini's invariants, so usually shorter).
    let reserve = checked.elapsed() * 3 / 2;
    match (&first, mode) {
        (Verdict::Verified, Mode::Repair) => {
            add_verifier_stats(timings, &v.stats);
            return Ok(KernelOutcome::without_changes(RepairStatus::NoChange, vec![]));
        }
        (Verdict::NoErrorUpTo { bound }, Mode::Repair) => {
            add_verifier_stats(timings, &v.stats);
            return Ok(KernelOutcome { bounded: Some(*bound), ..KernelOutcome::without_changes(RepairStatus::NoChange, vec![]) });
        }
        (Verdict::Defect(t), Mode::Audit) => {
            add_verifier_stats(timings, &v.stats);
            return Ok(KernelOutcome::without_changes(RepairStatus::NotVerified, vec![describe(&inst.kernel, t)]));
        }
        (Verdict::Unknown(r), _) => {
            add_verifier_stats(timings, &v.stats);
            return Ok(KernelOutcome::without_changes(RepairStatus::Unknown(r.clone()), vec![]));
        }
        (Verdict::Timeout, _) => {
            // What was done before the limit (Houdini's rounds, the queries) stays in `--stats`.
            add_verifier_stats(timings, &v.stats);
            return Ok(KernelOutcome::without_changes(RepairStatus::Timeout, vec![]));
        }
        _ => {}
    }
    let mut first_defect = None;
    let (outcome, stats) = match first {
        // The audit starts from the kernel as written, which verifies (issue 28).
        Verdict::Verified => audit_from(&inst, &mut v, &opts.repair, inst.original_assignment(), None, reserve),
        Verdict::NoErrorUpTo { bound } => audit_from(&inst, &mut v, &opts.repair, inst.original_assignment(), Some(bound), reserve),
        Verdict::Defect(t) => {
            // The defect the repair starts from, replayed within a twentieth of the time left
            // (at most 1 s): the report says whether it was confirmed (issue 29).
            let mut f = describe(&inst.kernel, &t);
            let left = opts.repair.deadline.map_or(REPLAY_IN_REPAIR, |d| d.saturating_duration_since(Instant::now()) / 20);
            let deadline = Instant::now() + left.min(REPLAY_IN_REPAIR);
            crate::confirm::confirm(&inst.kernel, &t, &mut f, Some(deadline), opts.verify.warp_size, false);
            first_defect = Some(f);
            repair_loop(&inst, &mut v, &opts.repair, Some(t))
        }
        Verdict::Unknown(_) | Verdict::Timeout => unreachable!("ended above"),
    };
    add_stats(timings, &v, &stats);
    let log = stats.log.clone();
    let calls = stats.calls.iter().map(|c| call_info(&inst, c)).collect();
    let outcome = match outcome {
        Outcome::Repaired { assignment, bounded, .. } => {
            let (c, kept) = changes_of(&inst, &assignment);
            let mut changes = vec![];
            for (change, m) in c {
                let e = meta.entry(change).or_insert(m);
                *e = (e.0.max(m.0), e.1.max(m.1), e.2 || m.2);
                changes.push(change);
            }
            let status = if changes.is_empty() { RepairStatus::NoChange } else { RepairStatus::Repaired };
            let seed = v.houdini_seed(&assignment);
            KernelOutcome {
                status,
                findings: vec![],
                changes,
                kept,
                bounded,
                log: vec![],
                calls: vec![],
                undecided: vec![],
                seed,
                splits: vec![],
                defect: None,
            }
        }
        Outcome::AssertionFailure(t) => KernelOutcome::without_changes(RepairStatus::AssertionFailure, vec![describe(&inst.kernel, &t)]),
        Outcome::OtherError(t) => KernelOutcome::without_changes(RepairStatus::OtherError, vec![describe(&inst.kernel, &t)]),
        Outcome::Unrepairable { reason, trace } => {
            // Replayed (at most 2 s each): a race that cannot be ordered may not happen at all.
            let findings = trace
                .iter()
                .map(|t| {
                    let mut f = describe(&inst.kernel, t);
                    crate::confirm::confirm(&inst.kernel, t, &mut f, Some(Instant::now() + REPLAY_IN_REPAIR), opts.verify.warp_size, false);
                    f
                })
                .collect();
            KernelOutcome::without_changes(RepairStatus::Unrepairable(reason), findings)
        }
        Outcome::Unknown(r) => KernelOutcome::without_changes(RepairStatus::Unknown(r), vec![]),
        Outcome::Timeout => KernelOutcome::without_changes(RepairStatus::Timeout, vec![]),
    };
    // Where every site that would order a race diverges: those sites as places to restructure,
    // the user's barriers first (moving one out of its conditional keeps the
    // code's own synchronisation).
    let mut splits: Vec<(StmtId, bool)> = stats
        .divergent
        .iter()
        .map(|v| &inst.vars[v.index()])
        .filter_map(|b| match b.kind {
            SiteKind::Existing => Some((b.stmt, true)),
            SiteKind::Before => Some((b.stmt, false)),
            SiteKind::Split | SiteKind::End | SiteKind::Step(_) => None,
        })
        .collect();
    splits.sort_by_key(|&(s, existing)| (!existing, s));
    splits.dedup();
    let undecided =
        stats.undecided.iter().map(|v| inst.kernel.main_file().line_col(inst.site_offset(&inst.vars[v.index()])).0 as u32).collect();
    Ok(KernelOutcome { log, calls, splits, undecided, defect: first_defect, ..outcome })
}

/// A verifier call of the repair loop as the report gives it: its sites by line.
fn call_info(inst: &Instrumented, c: &VerifierCall) -> crate::results::VerifierCallInfo {
    let on = c
        .enabled
        .iter()
        .map(|v| {
            let b = &inst.vars[v.index()];
            let (line, _) = inst.kernel.main_file().line_col(inst.site_offset(b));
            let what = match (b.kind, b.scope) {
                (SiteKind::Existing, _) => " existing",
                (_, Scope::Grid) => " grid",
                (_, Scope::Tile { .. }) => " warp",
                _ => "",
            };
            format!("{line}{what}")
        })
        .collect();
    crate::results::VerifierCallInfo {
        on,
        ms: c.time.as_secs_f64() * 1000.0,
        houdini_rounds: c.houdini_rounds,
        solver_calls: c.solver_calls,
        reused: c.reused,
        outcome: c.outcome.to_string(),
        exact: c.exact,
    }
}

/// `f` of each kernel (its index and itself), in the kernels' order, on as many threads as there are cores (at most
/// one per kernel): the kernels of a file are independent (each its own Z3 context), and a
/// template's instantiations are several kernels of one source (HeCBench bitpacking: 8).
/// A kernel not started before a cancellation gives [`StageError::Cancelled`].
fn each_kernel<T: Send>(
    kernels: &[Kernel],
    opts: &Stages,
    f: impl Fn(usize, &Kernel) -> Result<T, StageError> + Sync,
) -> Vec<Result<T, StageError>> {
    let run = |i: usize, k: &Kernel| if opts.cancelled() { Err(StageError::Cancelled) } else { f(i, k) };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(kernels.len());
    if threads <= 1 {
        return kernels.iter().enumerate().map(|(i, k)| run(i, k)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Result<T, StageError>>>> = kernels.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(k) = kernels.get(i) else { break };
                let r = run(i, k);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    slots.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()).unwrap_or(Err(StageError::Cancelled))).collect()
}

/// Repairs each kernel of `compiled`, builds one fix from the changes of those repaired, and
/// re-verifies the patched text through the whole pipeline (a kernel repaired must verify in
/// it; a kernel that failed is reported as it failed).
fn repair_compiled(
    path: &Path,
    text: &str,
    opts: &Stages,
    compiled: &Compiled,
    t0: Instant,
    mode: Mode,
) -> Result<(RepairReport, Vec<(StmtId, bool)>), StageError> {
    let mut timings = Timings { frontend: t0.elapsed(), clang: compiled.tool_time, ..Timings::default() };
    let mut meta: Meta = Default::default();
    let mut outcomes = vec![];
    let results = each_kernel(&compiled.kernels, opts, |_, k| {
        let (mut t, mut m) = (Timings::default(), Meta::default());
        repair_kernel(k, opts, mode, &mut t, &mut m).map(|o| (o, t, m))
    });
    for (k, r) in compiled.kernels.iter().zip(results) {
        let (o, t, m) = r?;
        timings.add(&t);
        timings.add_repair(&t);
        for (change, x) in m {
            let e = meta.entry(change).or_insert(x);
            *e = (e.0.max(x.0), e.1.max(x.1), e.2 || x.2);
        }
        outcomes.push((k.name.clone(), o));
    }
    let mut splits = vec![];
    for (_, o) in &outcomes {
        for s in &o.splits {
            if !splits.contains(s) {
                splits.push(*s);
            }
        }
    }
    let report = fix_and_reverify(path, text, opts, compiled, (outcomes, meta), timings)?;
    Ok((report, splits))
}

/// The fix of the kernels' outcomes (with each change's weight, depth and scope in `meta`),
/// re-verified through the whole pipeline.
fn fix_and_reverify(
    path: &Path,
    text: &str,
    opts: &Stages,
    compiled: &Compiled,
    (outcomes, meta): (Vec<(String, KernelOutcome)>, Meta),
    mut timings: Timings,
) -> Result<RepairReport, StageError> {
    let mut bounded = outcomes.iter().filter(|(_, o)| o.status.succeeded()).filter_map(|(_, o)| o.bounded).max();
    let failure = outcomes.iter().map(|(_, o)| &o.status).find(|s| !s.succeeded()).cloned();
    let findings: Vec<Finding> = outcomes.iter().flat_map(|(_, o)| o.findings.iter().cloned()).collect();
    // A barrier in a shared `__device__` function is removed only if no kernel keeps it.
    let removals_kept: Vec<StmtId> = outcomes.iter().flat_map(|(_, o)| o.kept.iter().copied()).collect();
    let keep = |c: &Change| !matches!(c, Change::Remove { stmt } if removals_kept.contains(stmt));
    let mut changes: Vec<Change> = outcomes.iter().flat_map(|(_, o)| o.changes.iter().copied()).filter(|c| keep(c)).collect();
    changes.sort_by_key(|c| format!("{c:?}"));
    changes.dedup_by_key(|c| format!("{c:?}"));
    let kernels_of = |outcomes: &[(String, KernelOutcome)]| kernel_repairs(outcomes, &keep, &meta, compiled, text);
    let status_or = |s: RepairStatus| failure.clone().unwrap_or(s);
    if changes.is_empty() {
        return Ok(RepairReport {
            status: status_or(RepairStatus::NoChange),
            kernels: kernels_of(&outcomes),
            findings,
            bounded,
            ..RepairReport::failed(RepairStatus::NoChange, vec![], timings)
        });
    }
    let (inserted, waited, removed, upgraded) = count_changes(&changes);
    let fix = match syncfix_fix::build_fix(text, &compiled.ast.stmts, &changes) {
        Ok(f) => f,
        Err(e) => {
            return Ok(RepairReport::failed(RepairStatus::NotReverified(format!("the fix could not be written: {e}")), findings, timings))
        }
    };
    let patched = match syncfix_fix::apply_edits(text, &fix.edits) {
        Ok(p) => p,
        Err(e) => {
            return Ok(RepairReport::failed(RepairStatus::NotReverified(format!("the fix could not be applied: {e}")), findings, timings))
        }
    };
    if opts.cancelled() {
        return Err(StageError::Cancelled);
    }
    // Re-verify the patched source through the whole pipeline, in the time left: every kernel
    // that was repaired, or needed no change, must verify.
    let must_verify: Vec<&str> = outcomes.iter().filter(|(_, o)| o.status.succeeded()).map(|(n, _)| n.as_str()).collect();
    // Houdini starts from what it kept for each repaired kernel (a verdict other than
    // verified under the seed is made again without it: `syncfix_verify::HoudiniSeed`).
    let seeds: std::collections::HashMap<String, syncfix_verify::HoudiniSeed> =
        outcomes.iter().filter_map(|(n, o)| o.seed.clone().map(|s| (n.clone(), s))).collect();
    let mut reverify = opts.clone();
    reverify.verify.seeds = (!seeds.is_empty()).then(|| std::sync::Arc::new(seeds));
    match verify(path, &patched, &reverify) {
        Ok((reports, t)) => {
            timings.add(&t);
            let reports: Vec<&KernelReport> = reports.iter().filter(|r| must_verify.contains(&r.kernel.as_str())).collect();
            if reports.iter().any(|r| matches!(r.status, Status::Timeout)) {
                return Ok(RepairReport::failed(RepairStatus::Timeout, vec![], timings));
            }
            for r in &reports {
                if let Status::NoErrorUpTo(n) = r.status {
                    bounded = bounded.max(Some(n));
                }
            }
            if let Some(r) = reports.iter().find(|r| !matches!(r.status, Status::Verified | Status::NoErrorUpTo(_))) {
                let why = match &r.status {
                    Status::Defect => r.findings.first().map(|f| f.headline()).unwrap_or_default(),
                    Status::Unknown(u) => u.clone(),
                    _ => String::new(),
                };
                return Ok(RepairReport::failed(
                    RepairStatus::NotReverified(format!("kernel `{}` of the patched source does not verify: {why}", r.kernel)),
                    r.findings.clone(),
                    timings,
                ));
            }
        }
        Err(StageError::Frontend(FrontendError::Timeout)) => return Ok(RepairReport::failed(RepairStatus::Timeout, vec![], timings)),
        Err(e @ StageError::Cancelled) => return Err(e),
        Err(e) => {
            return Ok(RepairReport::failed(
                RepairStatus::NotReverified(format!("the patched source does not compile: {e}")),
                findings,
                timings,
            ))
        }
    }
    let changes = infos_of(&changes, &meta, compiled, text);
    let removals = changes.iter().filter(|c| c.kind == "remove").map(|c| Removal { line: c.line, text: c.barrier.clone() }).collect();
    Ok(RepairReport {
        status: status_or(RepairStatus::Repaired),
        kernels: kernels_of(&outcomes),
        edits: fix
            .edits
            .iter()
            .map(|e| TextEdit {
                start: TextPoint::of(text, e.range.start),
                end: TextPoint::of(text, e.range.end),
                replacement: e.replacement.clone(),
            })
            .collect(),
        applicability: Some(match fix.applicability {
            syncfix_fix::Applicability::Safe => Applicability::Safe,
            syncfix_fix::Applicability::Unsafe => Applicability::Unsafe,
            syncfix_fix::Applicability::DisplayOnly => Applicability::CooperativeLaunch,
        }),
        notes: fix.notes,
        patched: Some(patched),
        findings,
        inserted,
        removed,
        upgraded,
        waited,
        restructured: 0,
        timings,
        assumptions: vec![],
        frontend_notes: vec![],
        bounded,
        removals,
        changes,
    })
}

/// Each kernel's part of a repair report: its status (no change when its own changes were
/// all dropped by `keep`), findings, changes described against `text`, log and calls.
fn kernel_repairs(
    outcomes: &[(String, KernelOutcome)],
    keep: &dyn Fn(&Change) -> bool,
    meta: &Meta,
    compiled: &Compiled,
    text: &str,
) -> Vec<KernelRepair> {
    outcomes
        .iter()
        .map(|(name, o)| {
            let mine: Vec<Change> = o.changes.iter().copied().filter(|c| keep(c)).collect();
            let status = match &o.status {
                RepairStatus::Repaired if mine.is_empty() => RepairStatus::NoChange,
                s => s.clone(),
            };
            KernelRepair {
                kernel: name.clone(),
                status,
                findings: o.findings.clone(),
                changes: infos_of(&mine, meta, compiled, text),
                log: o.log.clone(),
                calls: o.calls.clone(),
                undecided: o.undecided.clone(),
                defect: o.defect.clone(),
            }
        })
        .collect()
}

/// How many of `changes` insert a barrier (a wait with its barrier included), insert a wait,
/// remove a barrier, or upgrade one: the report's counts.
fn count_changes(changes: &[Change]) -> (usize, usize, usize, usize) {
    let inserted = changes
        .iter()
        .filter(|c| {
            matches!(
                c,
                Change::Insert { .. }
                    | Change::InsertSplit { .. }
                    | Change::InsertStep { .. }
                    | Change::InsertEnd { .. }
                    | Change::InsertWait { barrier: Some(_), .. }
            )
        })
        .count();
    let waited = changes.iter().filter(|c| matches!(c, Change::InsertWait { .. })).count();
    let removed = changes.iter().filter(|c| matches!(c, Change::Remove { .. })).count();
    let upgraded = changes.iter().filter(|c| matches!(c, Change::Upgrade { .. })).count();
    (inserted, waited, removed, upgraded)
}

/// Each change as plain data, in the order of the file.
fn infos_of(changes: &[Change], meta: &Meta, compiled: &Compiled, text: &str) -> Vec<ChangeInfo> {
    let mut infos: Vec<(usize, ChangeInfo)> = changes
        .iter()
        .map(|c| {
            let (weight, loop_depth, grid) = meta.get(c).copied().unwrap_or((0, 0, false));
            let range = compiled.ast.stmts.stmts.get(c.stmt()).map(|s| s.range);
            // An insertion at the end of a loop body stands on the line of its `}`.
            let start = match c {
                Change::InsertEnd { .. } => range.map_or(0, |r| r.end.saturating_sub(1)),
                _ => range.map_or(0, |r| r.start),
            };
            let line = text.get(..start).map_or(0, |t| t.matches('\n').count() as u32 + 1);
            let (kind, barrier, scope) = match c {
                Change::Insert { barrier, .. }
                | Change::InsertSplit { barrier, .. }
                | Change::InsertStep { barrier, .. }
                | Change::InsertEnd { barrier, .. } => (
                    match c {
                        Change::InsertSplit { .. } => "insert-split",
                        Change::InsertStep { .. } => "insert-step",
                        Change::InsertEnd { .. } => "insert-end",
                        _ => "insert",
                    },
                    barrier.text().to_string(),
                    barrier.scope_name(),
                ),
                Change::Remove { .. } => (
                    "remove",
                    range.and_then(|r| text.get(r.start..r.end)).unwrap_or("").trim().to_string(),
                    if grid { "grid" } else { "block" },
                ),
                Change::Upgrade { barrier, .. } => ("upgrade", barrier.text().to_string(), "block"),
                Change::InsertWait { stmt, barrier } => {
                    let events = compiled.ast.stmts.pending_events(text, *stmt).unwrap_or_default();
                    let waits = events.iter().map(|e| e.wait());
                    let all: Vec<String> = waits.chain(barrier.map(|b| b.text().to_string())).collect();
                    ("insert-wait", all.join(" "), "block")
                }
            };
            (start, ChangeInfo { kind, line, barrier, scope, weight, loop_depth })
        })
        .collect();
    infos.sort_by_key(|(start, _)| *start);
    infos.into_iter().map(|(_, i)| i).collect()
}

impl RepairReport {
    fn failed(status: RepairStatus, findings: Vec<Finding>, timings: Timings) -> Self {
        RepairReport {
            status,
            kernels: vec![],
            edits: vec![],
            applicability: None,
            notes: vec![],
            patched: None,
            findings,
            inserted: 0,
            removed: 0,
            upgraded: 0,
            waited: 0,
            restructured: 0,
            timings,
            assumptions: vec![],
            frontend_notes: vec![],
            bounded: None,
            removals: vec![],
            changes: vec![],
        }
    }
}

fn add_stats(t: &mut Timings, v: &Verifier<'_, '_>, s: &RepairStats) {
    add_verifier_stats(t, &v.stats);
    t.solve += s.solver_time;
    t.repair_iterations += s.iterations;
    t.clauses += s.clauses;
    t.sites_considered += s.considered.len();
    t.sites_encoded += v.stats.sites_encoded.unwrap_or(0);
    t.encodings += v.stats.encodings;
    t.sites_widened |= s.widened;
}

/// The candidate barrier sites of every kernel of a file (GPURepair's instrumentation).
pub(crate) fn sites(path: &Path, text: &str, opts: &Stages) -> Result<Vec<Site>, StageError> {
    let compiled = compile(path, text, &opts.frontend)?;
    let mut out = vec![];
    for k in &compiled.kernels {
        let inst = instrument(k, &opts.instrument);
        for v in &inst.vars {
            let (line, col) = k.main_file().line_col(inst.site_offset(v));
            out.push(Site {
                line,
                col,
                kind: match v.kind {
                    SiteKind::Before => "before",
                    SiteKind::Split => "split",
                    SiteKind::Step(_) => "step",
                    SiteKind::End => "end",
                    SiteKind::Existing => "existing",
                },
                scope: match v.scope {
                    Scope::Block => "block",
                    Scope::Grid => "grid",
                    Scope::Tile { .. } => "warp",
                },
                fences: match v.fences {
                    syncfix_kir::Fences::Const { local: true, global: false } => "local",
                    syncfix_kir::Fences::Const { local: false, global: true } => "global",
                    syncfix_kir::Fences::Const { .. } => "local+global",
                    syncfix_kir::Fences::Dynamic(_) => "dynamic",
                },
                depth: v.depth,
                weight: v.weight,
                in_callee: v.in_callee,
            });
        }
    }
    Ok(out)
}

/// Compiles and instruments a file, for `--emit=kir` / `--emit=instrumented` dumps.
pub(crate) fn dump(path: &Path, text: &str, opts: &Stages, instrumented: bool) -> Result<String, StageError> {
    let compiled = compile(path, text, &opts.frontend)?;
    let mut s = String::new();
    for k in &compiled.kernels {
        if instrumented {
            let inst = instrument(k, &opts.instrument);
            s.push_str(&format!("{}", inst.kernel));
            s.push_str("barrier variables:\n");
            s.push_str(&inst.describe_vars());
        } else {
            s.push_str(&format!("{k}"));
        }
    }
    Ok(s)
}

/// `notes` in their order, each once.
pub(crate) fn unique<'a>(notes: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for n in notes {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}
