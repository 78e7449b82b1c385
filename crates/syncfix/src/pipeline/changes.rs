//! From a barrier assignment to the source changes that realise it (ARCHITECTURE.md,
//! "crates/fix"): enabled new sites become insertions (an OpenCL site's fence variables one
//! `barrier(...)` with the flags enabled; a wait-then-barrier site `wait_group_events` and a
//! barrier), disabled existing barriers removals, and a removal next to an insertion at the
//! same program point an upgrade of the user's barrier in place.

use syncfix_fix::{BarrierText, Change};
use syncfix_instrument::{Instrumented, SiteKind};
use syncfix_kir::{Language, Scope, StmtId};

/// The source changes that realise an assignment: enabled new sites are insertions, disabled
/// existing barriers removals. Also returns the existing barriers the assignment keeps.
///
/// An OpenCL site's two variables (one per fence) give one barrier with the flags of those
/// enabled.
pub(super) fn changes_of(inst: &Instrumented, assignment: &[bool]) -> (Vec<(Change, (u64, u32, bool))>, Vec<StmtId>) {
    let lang = inst.kernel.language;
    let mut out = vec![];
    let mut kept = vec![];
    // OpenCL insertions: (statement, split) -> (local, global, weight, depth).
    let mut opencl: std::collections::BTreeMap<(StmtId, SiteKind), (bool, bool, u64, u32)> = Default::default();
    // Wait-then-barrier sites: statement -> (local, global, weight, depth).
    let mut waiting: std::collections::BTreeMap<StmtId, (bool, bool, u64, u32)> = Default::default();
    for (i, v) in inst.vars.iter().enumerate() {
        let on = assignment.get(i).copied().unwrap_or(false);
        if v.waits {
            if on {
                let (local, global) = match v.fences {
                    syncfix_kir::Fences::Const { local, global } => (local, global),
                    syncfix_kir::Fences::Dynamic(_) => (true, true),
                };
                let e = waiting.entry(v.stmt).or_default();
                *e = (e.0 || local, e.1 || global, e.2.max(v.weight), e.3.max(v.depth));
            }
            continue;
        }
        let barrier = match (v.scope, lang) {
            (Scope::Grid, _) => BarrierText::CudaGrid,
            (Scope::Block, Language::Cuda) => BarrierText::CudaBlock,
            (Scope::Block, Language::OpenCl) => {
                if on && v.kind != SiteKind::Existing {
                    let (local, global) = match v.fences {
                        syncfix_kir::Fences::Const { local, global } => (local, global),
                        syncfix_kir::Fences::Dynamic(_) => (true, true),
                    };
                    let e = opencl.entry((v.stmt, v.kind)).or_default();
                    *e = (e.0 || local, e.1 || global, e.2.max(v.weight), e.3.max(v.depth));
                    continue;
                }
                BarrierText::OpenClBlock
            }
            // The user's tile barriers are never instrumented; a tile variable is a new warp
            // site (CUDA only).
            (Scope::Tile { .. }, Language::Cuda) if v.kind != SiteKind::Existing => BarrierText::CudaWarp,
            (Scope::Tile { .. }, _) => continue,
        };
        let m = (v.weight, v.depth, v.scope == Scope::Grid);
        match (v.kind, on) {
            (SiteKind::Before, true) => out.push((Change::Insert { stmt: v.stmt, barrier }, m)),
            (SiteKind::End, true) => out.push((Change::InsertEnd { stmt: v.stmt, barrier }, m)),
            (SiteKind::Split, true) => out.push((Change::InsertSplit { stmt: v.stmt, barrier }, m)),
            (SiteKind::Step(offset), true) => out.push((Change::InsertStep { stmt: v.stmt, offset, barrier }, m)),
            (SiteKind::Existing, false) => out.push((Change::Remove { stmt: v.stmt }, m)),
            (SiteKind::Existing, true) => kept.push(v.stmt),
            _ => {}
        }
    }
    for ((stmt, kind), (local, global, weight, depth)) in opencl {
        let barrier = match (local, global) {
            (true, false) => BarrierText::OpenClLocal,
            (false, true) => BarrierText::OpenClGlobal,
            _ => BarrierText::OpenClBlock,
        };
        let c = match kind {
            SiteKind::Split => Change::InsertSplit { stmt, barrier },
            SiteKind::Step(offset) => Change::InsertStep { stmt, offset, barrier },
            SiteKind::End => Change::InsertEnd { stmt, barrier },
            _ => Change::Insert { stmt, barrier },
        };
        out.push((c, (weight, depth, false)));
    }
    for (stmt, (local, global, weight, depth)) in waiting {
        // Before one of the user's barriers (the twin has its fences): the wait alone, and
        // the user's barrier stays.
        let existing = inst.vars.iter().any(|v| v.stmt == stmt && v.kind == SiteKind::Existing);
        let barrier = if existing {
            out.retain(|(c, _)| *c != Change::Remove { stmt });
            if !kept.contains(&stmt) {
                kept.push(stmt);
            }
            None
        } else {
            Some(match (local, global) {
                (true, false) => BarrierText::OpenClLocal,
                (false, true) => BarrierText::OpenClGlobal,
                _ => BarrierText::OpenClBlock,
            })
        };
        out.push((Change::InsertWait { stmt, barrier }, (weight, depth, false)));
    }
    upgrades(inst, &mut out);
    (out, kept)
}

/// Turns the removal of an OpenCL barrier and the insertion of a barrier with more fences
/// right after it (nothing but blanks, `;` and comments between) into one [`Change::Upgrade`]
/// of the user's barrier: its flags are rewritten in place; and the removal with a
/// wait-then-barrier it covers right after it into the wait alone before the user's barrier.
fn upgrades(inst: &Instrumented, out: &mut Vec<(Change, (u64, u32, bool))>) {
    if inst.kernel.language != Language::OpenCl {
        return;
    }
    let Some(text) = inst.kernel.main_file().text.as_deref() else { return };
    let fences_of = |b: BarrierText| match b {
        BarrierText::OpenClLocal => (true, false),
        BarrierText::OpenClGlobal => (false, true),
        _ => (true, true),
    };
    // A wait-then-barrier right after one of the user's barriers that has the fences it
    // needs: the user's barrier stays, and the wait goes before it.
    merge_after_removals(
        inst,
        text,
        out,
        |c, (l0, g0)| match c {
            Change::InsertWait { barrier: Some(b), .. } => {
                let (l, g) = fences_of(*b);
                (l0 || !l) && (g0 || !g)
            }
            _ => false,
        },
        |e, _| Change::InsertWait { stmt: e, barrier: None },
    );
    // A barrier with more fences right after the user's: the user's barrier's flags.
    merge_after_removals(
        inst,
        text,
        out,
        |c, (l0, g0)| match c {
            Change::Insert { barrier, .. } if !barrier.is_grid() => {
                let (l, g) = fences_of(*barrier);
                (l || !l0) && (g || !g0)
            }
            _ => false,
        },
        |e, c| match c {
            Change::Insert { barrier, .. } => Change::Upgrade { stmt: e, barrier },
            other => other,
        },
    );
}

/// Replaces each removal of a user's OpenCL barrier (whose constant fences are `(local,
/// global)`) and a change that `fits` them right after it (nothing but blanks, `;` and
/// comments between) by `merge(barrier statement, that change)`, with that change's weight.
fn merge_after_removals(
    inst: &Instrumented,
    text: &str,
    out: &mut Vec<(Change, (u64, u32, bool))>,
    fits: impl Fn(&Change, (bool, bool)) -> bool,
    merge: impl Fn(StmtId, Change) -> Change,
) {
    let stmts = &inst.kernel.stmts.stmts;
    let mut i = 0;
    while i < out.len() {
        let Change::Remove { stmt: e } = out[i].0 else {
            i += 1;
            continue;
        };
        let old = inst.vars.iter().find(|v| v.stmt == e && v.kind == SiteKind::Existing).map(|v| v.fences);
        let Some(syncfix_kir::Fences::Const { local, global }) = old else {
            i += 1;
            continue;
        };
        let end = stmts[e].range.end;
        let next = out.iter().position(|(c, _)| {
            let start = stmts[c.stmt()].range.start;
            fits(c, (local, global)) && start >= end && text.get(end..start).is_some_and(only_blanks_and_comments)
        });
        match next {
            Some(j) => {
                out[i] = (merge(e, out[j].0), out[j].1);
                out.remove(j);
                i = 0;
            }
            None => i += 1,
        }
    }
}

/// Whether `s` holds only whitespace, `;` and C comments.
fn only_blanks_and_comments(s: &str) -> bool {
    let mut rest = s;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ';');
        if rest.is_empty() {
            return true;
        }
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            match r.split_once("*/") {
                Some((_, after)) => rest = after,
                None => return false,
            }
        } else {
            return false;
        }
    }
}
