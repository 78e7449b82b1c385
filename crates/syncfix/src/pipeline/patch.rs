//! The fix of the source from a repair's barrier assignment (`syncfix_fix`), the
//! re-verification of the patched text, and the report of its changes.

use super::repair::{KernelOutcome, Meta};
use super::verify::verify;
use crate::error::StageError;
use crate::options::Stages;
use crate::report::{Finding, KernelReport};
use crate::results::{Applicability, BarrierScope, ChangeInfo, ChangeKind, KernelRepair, Removal, RepairReport, RepairStatus, Status};
use crate::Stats;
use std::path::Path;
use syncfix_fix::{BarrierText, Change};
use syncfix_frontend::driver::{Compiled, FrontendError};
use syncfix_kir::StmtId;

/// The fix of the kernels' outcomes (with each change's weight, depth and scope in `meta`),
/// re-verified through the whole pipeline.
pub(super) fn fix_and_reverify(
    path: &Path,
    text: &str,
    opts: &Stages,
    compiled: &Compiled,
    (outcomes, meta): (Vec<(String, KernelOutcome)>, Meta),
    mut timings: Stats,
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
            if reports.iter().any(|r| r.status == Status::Timeout) {
                return Ok(RepairReport::failed(RepairStatus::Timeout, vec![], timings));
            }
            for r in &reports {
                if r.status == Status::Bounded {
                    bounded = bounded.max(r.bound);
                }
            }
            if let Some(r) = reports.iter().find(|r| !matches!(r.status, Status::Verified | Status::Bounded)) {
                let why = match r.findings.first() {
                    Some(f) => f.headline(),
                    None => r.reason.clone().unwrap_or_default(),
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
    let removals =
        changes.iter().filter(|c| c.kind == ChangeKind::Remove).map(|c| Removal { line: c.line, text: c.barrier.clone() }).collect();
    Ok(RepairReport {
        status: status_or(RepairStatus::Repaired),
        kernels: kernels_of(&outcomes),
        edits: fix.edits.iter().map(|e| super::text_edit(text, e)).collect(),
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
                possible_only: o.possible_only.clone(),
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
                        Change::InsertSplit { .. } => ChangeKind::InsertSplit,
                        Change::InsertStep { .. } => ChangeKind::InsertStep,
                        Change::InsertEnd { .. } => ChangeKind::InsertEnd,
                        _ => ChangeKind::Insert,
                    },
                    barrier.text().to_string(),
                    scope_of(*barrier),
                ),
                Change::Remove { .. } => (
                    ChangeKind::Remove,
                    range.and_then(|r| text.get(r.start..r.end)).unwrap_or("").trim().to_string(),
                    if grid { BarrierScope::Grid } else { BarrierScope::Block },
                ),
                Change::Upgrade { barrier, .. } => (ChangeKind::Upgrade, barrier.text().to_string(), BarrierScope::Block),
                Change::InsertWait { stmt, barrier } => {
                    let events = compiled.ast.stmts.pending_events(text, *stmt).unwrap_or_default();
                    let waits = events.iter().map(|e| e.wait());
                    let all: Vec<String> = waits.chain(barrier.map(|b| b.text().to_string())).collect();
                    (ChangeKind::InsertWait, all.join(" "), BarrierScope::Block)
                }
            };
            (start, ChangeInfo { kind, line, barrier, scope, weight, loop_depth })
        })
        .collect();
    infos.sort_by_key(|(start, _)| *start);
    infos.into_iter().map(|(_, i)| i).collect()
}

/// The threads `b` orders.
fn scope_of(b: BarrierText) -> BarrierScope {
    match b {
        BarrierText::CudaWarp => BarrierScope::Warp,
        BarrierText::CudaGrid => BarrierScope::Grid,
        BarrierText::CudaBlock | BarrierText::OpenClBlock | BarrierText::OpenClLocal | BarrierText::OpenClGlobal => BarrierScope::Block,
    }
}

impl RepairReport {
    fn failed(status: RepairStatus, findings: Vec<Finding>, timings: Stats) -> Self {
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
