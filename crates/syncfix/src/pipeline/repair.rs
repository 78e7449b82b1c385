//! `repair` and `audit`: the repair loop on each kernel, the fix of the source, and the
//! re-verification of the patched text.

use super::changes::changes_of;
use super::patch::fix_and_reverify;
use super::restructure;
use super::verify::add_verifier_stats;
use super::{each_kernel, unique};
use crate::error::StageError;
use crate::options::Stages;
use crate::report::{describe, Finding};
use crate::results::{RepairReport, RepairStatus};
use crate::Stats;
use std::path::Path;
use std::time::{Duration, Instant};
use syncfix_fix::Change;
use syncfix_frontend::driver::{compile, Compiled};
use syncfix_instrument::{instrument, Instrumented, SiteKind};
use syncfix_kir::{EntityRef, Kernel, Scope, StmtId, VarId};
use syncfix_repair::repair::{audit_from, repair_from as repair_loop, Outcome, RepairStats, VerifierCall};
use syncfix_verify::{Verdict, Verifier, VerifyError};

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
pub(super) fn repair_text(path: &Path, text: &str, opts: &Stages, mode: Mode, depth: u32) -> Result<RepairReport, StageError> {
    let t0 = Instant::now();
    let compiled = compile(path, text, &opts.frontend)?;
    opts.publish_notes(compiled.kernel_notes.iter().flatten());
    let mut o = opts.clone();
    if mode == Mode::Audit {
        o.instrument.new_sites = false;
        o.instrument.options.disable_inspect = false;
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
pub(super) type Meta = std::collections::HashMap<Change, (u64, u32, bool)>;

/// What one kernel's repair gives the file's.
pub(super) struct KernelOutcome {
    pub(super) status: RepairStatus,
    pub(super) findings: Vec<Finding>,
    pub(super) changes: Vec<Change>,
    /// The user's barriers this kernel keeps.
    pub(super) kept: Vec<StmtId>,
    pub(super) bounded: Option<u32>,
    /// What the repair over-approximated (`RepairStats::log`).
    pub(super) log: Vec<String>,
    /// Its verifier calls (`RepairStats::calls`).
    pub(super) calls: Vec<crate::results::VerifierCallInfo>,
    /// The user's barriers (lines) kept undecided (`RepairStats::undecided`).
    pub(super) undecided: Vec<u32>,
    /// What Houdini kept under the repaired assignment: where the re-verification of the
    /// patched source starts Houdini (`syncfix_verify::HoudiniSeed`).
    pub(super) seed: Option<syncfix_verify::HoudiniSeed>,
    /// For a kernel that cannot be repaired because every site that would order a race
    /// diverges: those sites as places to restructure (statement, and whether it is the user's
    /// barrier, which then moves).
    pub(super) splits: Vec<(StmtId, bool)>,
    /// The race or divergence of the kernel as written that the repair started from, with
    /// its replay (issue 29).
    pub(super) defect: Option<Finding>,
    /// The lines of the barriers inserted that order only races or divergences a replay did
    /// not confirm (every trace whose clause names the site was replayed, none confirmed).
    pub(super) possible_only: Vec<u32>,
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
            possible_only: vec![],
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
fn repair_kernel(k: &Kernel, opts: &Stages, mode: Mode, timings: &mut Stats, meta: &mut Meta) -> Result<KernelOutcome, StageError> {
    let ctx = z3::Context::new(&z3::Config::new());
    syncfix_verify::interruptible(&ctx, opts.cancel.as_ref(), || repair_kernel_in(&ctx, k, opts, mode, timings, meta))
}

fn repair_kernel_in(
    ctx: &z3::Context,
    k: &Kernel,
    opts: &Stages,
    mode: Mode,
    timings: &mut Stats,
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
    if let Some(ended) = ended_as_written(&inst, &first, mode) {
        add_verifier_stats(timings, &v.stats);
        return Ok(ended);
    }
    let mut first_defect = None;
    let (outcome, stats) = match first {
        // The audit starts from the kernel as written, which verifies (issue 28), and each
        // check's Houdini from its invariants.
        Verdict::Verified => {
            v.seed_from(&inst.original_assignment());
            audit_from(&inst, &mut v, &opts.repair, inst.original_assignment(), None, reserve)
        }
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
    if mode == Mode::Audit {
        // The audit's own seed (`seed_from`) is not the re-verification's, which
        // `houdini_seeded` counts (`stats.reverify_seeded`).
        (v.stats.seeded, v.stats.seed_fallback) = (false, false);
    }
    add_stats(timings, &v, &stats);
    let log = stats.log.clone();
    let calls = stats.calls.iter().map(|c| call_info(&inst, c)).collect();
    let repaired_assignment = match &outcome {
        Outcome::Repaired { assignment, .. } => Some(assignment.clone()),
        _ => None,
    };
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
                possible_only: vec![],
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
    let splits = restructure_sites(&inst, &stats);
    let undecided = stats.undecided.iter().map(|&v| site_line(&inst, v)).collect();
    let possible_only = match &outcome.status {
        RepairStatus::Repaired => possible_only(&inst, &stats, repaired_assignment.as_deref().unwrap_or(&[]), opts),
        _ => vec![],
    };
    Ok(KernelOutcome { log, calls, splits, undecided, defect: first_defect, possible_only, ..outcome })
}

/// How a kernel's repair (or audit) ends on the check of the kernel as written, if it ends
/// there: `repair` leaves a verified kernel alone, `audit` judges only a verified kernel's
/// barriers, and an unknown answer or a timeout ends both. `None`: the repair or audit goes
/// on.
fn ended_as_written(inst: &Instrumented, first: &Verdict, mode: Mode) -> Option<KernelOutcome> {
    Some(match (first, mode) {
        (Verdict::Verified, Mode::Repair) => KernelOutcome::without_changes(RepairStatus::NoChange, vec![]),
        (Verdict::NoErrorUpTo { bound }, Mode::Repair) => {
            KernelOutcome { bounded: Some(*bound), ..KernelOutcome::without_changes(RepairStatus::NoChange, vec![]) }
        }
        (Verdict::Defect(t), Mode::Audit) => KernelOutcome::without_changes(RepairStatus::NotVerified, vec![describe(&inst.kernel, t)]),
        (Verdict::Unknown(r), _) => KernelOutcome::without_changes(RepairStatus::Unknown(r.clone()), vec![]),
        // What was done before the limit (Houdini's rounds, the queries) stays in `--stats`.
        (Verdict::Timeout, _) => KernelOutcome::without_changes(RepairStatus::Timeout, vec![]),
        _ => return None,
    })
}

/// Where every site that would order a race diverges: those sites as places to restructure
/// (`(statement, whether it is the user's barrier)`), the user's barriers first (moving one
/// out of its conditional keeps the code's own synchronisation).
fn restructure_sites(inst: &Instrumented, stats: &RepairStats) -> Vec<(StmtId, bool)> {
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
    splits
}

/// The line (1-based) of barrier variable `v`'s site in the kernel's file.
fn site_line(inst: &Instrumented, v: VarId) -> u32 {
    inst.kernel.main_file().line_col(inst.site_offset(&inst.vars[v.index()])).0
}

/// The longest the replays of a repair's traces run in all (and at most a twentieth of the
/// time left), to say which inserted barriers order only defects a replay did not confirm.
const REPLAY_TRACES_IN_REPAIR: Duration = Duration::from_secs(2);

/// The lines of the barriers that `assignment` inserts (on, and not the kernel's own) which
/// order only races or divergences that a replay did not confirm: every trace the repair
/// learnt a clause from that names the site is replayed (within [`REPLAY_TRACES_IN_REPAIR`]
/// in all) and none was confirmed. A site named by a trace left unreplayed is not listed.
fn possible_only(inst: &Instrumented, stats: &RepairStats, assignment: &[bool], opts: &Stages) -> Vec<u32> {
    let original = inst.original_assignment();
    let inserted: Vec<VarId> =
        (0..assignment.len()).filter(|&v| assignment[v] && !original.get(v).copied().unwrap_or(false)).map(VarId::new).collect();
    if inserted.is_empty() || stats.learnt.is_empty() {
        return vec![];
    }
    let left = opts.repair.deadline.map_or(REPLAY_TRACES_IN_REPAIR, |d| d.saturating_duration_since(Instant::now()) / 20);
    let deadline = Instant::now() + left.min(REPLAY_TRACES_IN_REPAIR);
    // By trace: confirmed (Some(true)), not (Some(false)), or not replayed (None).
    let confirmed: Vec<Option<bool>> = stats
        .learnt
        .iter()
        .map(|(t, _)| {
            if Instant::now() >= deadline {
                return None;
            }
            let mut f = describe(&inst.kernel, t);
            crate::confirm::confirm(&inst.kernel, t, &mut f, Some(deadline), opts.verify.warp_size, false);
            let r = f.replay()?;
            let ran_out = r.reason.as_deref().is_some_and(|w| w.starts_with("no time was left"));
            (!ran_out).then_some(r.confirmed)
        })
        .collect();
    let mut lines: Vec<u32> = inserted
        .into_iter()
        .filter(|v| {
            let mut naming = stats.learnt.iter().zip(&confirmed).filter(|((_, sites), _)| sites.contains(v)).map(|(_, c)| *c).peekable();
            naming.peek().is_some() && naming.all(|c| c == Some(false))
        })
        .map(|v| site_line(inst, v))
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
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
    let mut timings = Stats { frontend: t0.elapsed(), clang: compiled.tool_time, ..Stats::default() };
    let mut meta: Meta = Default::default();
    let mut outcomes = vec![];
    let results = each_kernel(&compiled.kernels, opts, |_, k| {
        let (mut t, mut m) = (Stats::default(), Meta::default());
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

fn add_stats(t: &mut Stats, v: &Verifier<'_, '_>, s: &RepairStats) {
    add_verifier_stats(t, &v.stats);
    t.solve += s.solver_time;
    t.repair_iterations += s.iterations;
    t.clauses += s.clauses;
    t.sites_considered += s.considered.len();
    t.sites_encoded += v.stats.sites_encoded.unwrap_or(0);
    t.encodings += v.stats.encodings;
    t.sites_widened |= s.widened;
}
