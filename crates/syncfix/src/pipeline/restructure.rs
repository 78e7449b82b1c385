//! A repair through a restructured source (ARCHITECTURE.md, "crates/fix": restructure): when a
//! kernel cannot be repaired because every site that would order a race is reached by some
//! threads and not others, the code is restructured there (`syncfix_fix::restructure`: the
//! conditional split in two, or the early return moved past the place) and the whole repair
//! runs again on that text.
//! The result is the user's file -> the restructured and repaired text, verified through the
//! whole pipeline like any repair; it is never applied without `--unsafe-fixes`, since it moves
//! code.

use super::repair::{repair_text, Mode};
use crate::error::StageError;
use crate::options::Stages;
use crate::results::{Applicability, BarrierScope, ChangeInfo, ChangeKind, RepairReport, RepairStatus};
use std::path::Path;
use syncfix_frontend::driver::{Compiled, FrontendError};
use syncfix_kir::StmtId;

/// Tries each place of `splits` (statement, and whether it is the user's barrier that moves) on
/// `text` in turn, and returns the first whose restructured text is repaired (or verifies as it
/// is): the report of the user's file. `Err` with why, when none is (the first split's
/// reason). `failed` is the report of the repair of `text` that did not succeed (its time is
/// added to the result's).
pub(super) fn repair_split(
    path: &Path,
    text: &str,
    opts: &Stages,
    compiled: &Compiled,
    failed: &RepairReport,
    splits: &[(StmtId, bool)],
    depth: u32,
) -> Result<Result<RepairReport, String>, StageError> {
    let mut why = None;
    let line = |s: StmtId| compiled.ast.stmts.stmts.get(s).map_or(0, |s| text[..s.range.start.min(text.len())].matches('\n').count() + 1);
    for &(stmt, hoist) in splits {
        let split = match syncfix_fix::restructure(text, &compiled.ast.stmts, stmt, hoist) {
            Ok(s) => s,
            Err(e) => {
                let reason = match e {
                    syncfix_fix::FixError::CannotRestructure { reason, .. } => reason,
                    e => e.to_string(),
                };
                why.get_or_insert_with(|| {
                    format!(
                        "syncfix cannot restructure the code around line {} so that every thread reaches a barrier there: {reason}",
                        line(stmt)
                    )
                });
                continue;
            }
        };
        let at = line(split.if_stmt);
        let Ok(restructured) = syncfix_fix::apply_edits(text, std::slice::from_ref(&split.edit)) else { continue };
        if opts.cancelled() {
            return Err(StageError::Cancelled);
        }
        let inner = match repair_text(path, &restructured, opts, Mode::Repair, depth + 1) {
            Ok(r) => r,
            Err(e @ (StageError::Cancelled | StageError::Frontend(FrontendError::Timeout))) => return Err(e),
            // The restructured text does not compile (a hoisted declaration clashes, a type
            // without a default constructor): this split is not a repair.
            Err(e) => {
                why.get_or_insert_with(|| format!("the code restructured at line {at} does not compile: {e}"));
                continue;
            }
        };
        match &inner.status {
            RepairStatus::Timeout => return Ok(Ok(inner)),
            RepairStatus::Repaired | RepairStatus::NoChange => {
                return Ok(Ok(report_on_original(text, &restructured, &split, inner, failed)))
            }
            RepairStatus::Unrepairable(r) | RepairStatus::Unknown(r) => {
                why.get_or_insert_with(|| format!("with the code restructured at line {at}, the kernel is still not repaired: {r}"));
            }
            _ => {
                why.get_or_insert_with(|| format!("with the code restructured at line {at}, the kernel is still not repaired"));
            }
        }
    }
    Ok(Err(why.unwrap_or_default()))
}

/// The report of a repair of `restructured` (the user's `text` with `split` applied), made a
/// report on `text`: the edits from `text` to the patched text, the split as a change of its
/// own, lines of the other changes in `text`'s numbering.
fn report_on_original(
    text: &str,
    restructured: &str,
    split: &syncfix_fix::Restructure,
    mut inner: RepairReport,
    failed: &RepairReport,
) -> RepairReport {
    let patched = inner.patched.take().unwrap_or_else(|| restructured.to_string());
    let edit = &split.edit;
    let line_of = |t: &str, offset: usize| t[..offset.min(t.len())].matches('\n').count() as u32 + 1;
    // Lines of the restructured text -> lines of the user's: before the split unchanged,
    // inside it the `if`'s line, after it shifted by the lines the split added.
    let first = line_of(text, edit.range.start);
    let added_end = line_of(restructured, edit.range.start + edit.replacement.len());
    let old_end = line_of(text, edit.range.end);
    let map = |line: u32| -> u32 {
        if line < first {
            line
        } else if line <= added_end {
            first
        } else {
            line + old_end - added_end
        }
    };
    let change = ChangeInfo {
        kind: match split.kind {
            syncfix_fix::RestructureKind::SplitConditional => ChangeKind::SplitConditional,
            syncfix_fix::RestructureKind::DelayReturn => ChangeKind::DelayReturn,
        },
        line: first,
        barrier: split.moved_barrier.clone().unwrap_or_default(),
        scope: BarrierScope::Block,
        weight: 0,
        loop_depth: 0,
    };
    let mut changes = vec![change.clone()];
    changes.extend(inner.changes.iter().cloned().map(|c| ChangeInfo { line: map(c.line), ..c }));
    changes.sort_by_key(|c| c.line);
    for r in &mut inner.removals {
        r.line = map(r.line);
    }
    let mut notes = vec![split.note.clone()];
    notes.append(&mut inner.notes);
    let mut timings = inner.timings.clone();
    timings.add(&failed.timings);
    // The kernels that failed before the split owe their repair to it.
    let failed_before: Vec<&str> = failed.kernels.iter().filter(|k| !k.status.succeeded()).map(|k| k.kernel.as_str()).collect();
    for k in &mut inner.kernels {
        for c in &mut k.changes {
            c.line = map(c.line);
        }
        if failed_before.contains(&k.kernel.as_str()) {
            k.status = RepairStatus::Repaired;
            k.changes.insert(0, change.clone());
            k.changes.sort_by_key(|c| c.line);
        }
    }
    RepairReport {
        status: RepairStatus::Repaired,
        edits: syncfix_fix::edits_between(text, &patched).iter().map(|e| super::text_edit(text, e)).collect(),
        applicability: Some(inner.applicability.unwrap_or(Applicability::Safe).max(Applicability::Unsafe)),
        notes,
        patched: Some(patched),
        timings,
        changes,
        restructured: inner.restructured + 1,
        ..inner
    }
}
