//! Clauses from counterexamples (GPURepair, Joshi & Muduganti, VMCAI 2021, §2.4;
//! ARCHITECTURE.md, "crates/repair"): a race gives the disabled sites that could have
//! separated its two accesses, a divergence the negative unit of its site, a failing assertion
//! the sites the trace passed; and, when the clauses conflict, the reason the kernel cannot be
//! repaired (exit 202) or why that is not known (`unknown`).

use super::Outcome;
use crate::solve::{Clause, Lit};
use std::collections::BTreeSet;
use syncfix_instrument::{Instrumented, SiteKind};
use syncfix_kir::{EntityRef, Scope, VarId};
use syncfix_verify::{Defect, Trace};

/// The outcome when the learnt clauses are unsatisfiable. Clauses are positive (a defect some
/// enabled site must remove) or negative units (a site that diverges), so exact clauses
/// conflict only when every site of a positive clause diverges: the reason names that
/// defect's accesses and those sites.
pub(super) fn unsat(inst: &Instrumented, clauses: &[Clause], traces: &[Box<Trace>], all_exact: bool, trace: Option<Box<Trace>>) -> Outcome {
    if all_exact {
        // Name the cause when it is the usual one: every site that could separate a racing
        // pair is itself reached by non-uniform control flow.
        if let Some((i, c)) = blocked(clauses) {
            let k = &inst.kernel;
            let line_of = |span: &syncfix_kir::Span| span.in_main().map(|l| l.line);
            let mut lines: Vec<u32> = c.0.iter().map(|l| k.main_file().line_col(inst.site_offset(&inst.vars[l.var.index()])).0).collect();
            lines.sort_unstable();
            lines.dedup();
            let sites = match lines.as_slice() {
                [one] => format!("the barrier site at line {one} is"),
                many => format!("the barrier sites at lines {} are", many.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")),
            };
            let pair = match traces.get(i).map(|t| &t.defect) {
                Some(Defect::Race(r)) => match (line_of(&r.first.span), line_of(&r.second.span)) {
                    (Some(a), Some(b)) => format!(" (lines {a} and {b})"),
                    _ => String::new(),
                },
                _ => String::new(),
            };
            return Outcome::Unrepairable {
                reason: format!(
                    "every barrier site that would separate the racing accesses{pair} is reached by non-uniform \
                     control flow ({sites} reached by some threads and not by others, inside a conditional they take \
                     differently or after a return some of them take, so a barrier there would diverge)"
                ),
                trace: traces.get(i).cloned().or(trace),
            };
        }
        Outcome::Unrepairable {
            reason: "no placement of barriers satisfies every constraint learnt from the counterexamples".into(),
            trace,
        }
    } else {
        Outcome::Unknown(
            "no placement of barriers satisfies the constraints learnt, but some of them are over-approximations \
             (arrays under the equality abstraction), so the kernel may still be repairable"
                .into(),
        )
    }
}

/// The first positive clause every site of which is forced off by a negative unit (a site
/// that diverges), with its index: a defect that only diverging sites could remove.
pub(super) fn blocked(clauses: &[Clause]) -> Option<(usize, &Clause)> {
    let forced_off: BTreeSet<VarId> = clauses.iter().filter(|c| c.0.len() == 1 && !c.0[0].positive).map(|c| c.0[0].var).collect();
    clauses.iter().enumerate().find(|(_, c)| !c.0.is_empty() && c.0.iter().all(|l| l.positive && forced_off.contains(&l.var)))
}

pub(super) enum Learned {
    Clause,
    Stop(Outcome),
}

/// Turns a counterexample into a clause (or a final outcome).
pub(super) fn learn(
    inst: &Instrumented,
    t: &Trace,
    clauses: &mut Vec<Clause>,
    seen: &mut BTreeSet<Vec<(usize, bool)>>,
    all_exact: &mut bool,
    wider: &mut Vec<Option<Clause>>,
) -> Learned {
    // A clause from a tight level of an inexact trace carries the coarse clause that replaces
    // it if the constraints become unsatisfiable.
    let mut widened = None;
    let lits: Vec<Lit> = match &t.defect {
        Defect::Assertion { .. } => {
            // Kernels written for GPUVerify carry invariants that hold only while their
            // barriers are in place: an assertion that fails with some sites off may hold with
            // one of them on. The clause is every site that was off (GPURepair's coarse
            // clause; not exact, so never grounds for 202); with every site on, the assertion
            // fails whatever the barriers (201).
            let off: Vec<Lit> = (0..inst.vars.len())
                .filter(|&i| !t.assignment.get(i).copied().unwrap_or(false))
                .map(|i| Lit { var: VarId::new(i), positive: true })
                .collect();
            if off.is_empty() {
                return Learned::Stop(Outcome::AssertionFailure(Box::new(t.clone())));
            }
            *all_exact = false;
            // Tighter first: the sites the trace reached before the assertion (a barrier
            // elsewhere does not change this trace); every site off if that turns out too
            // tight (the constraints unsatisfiable).
            let reached: Vec<Lit> = t.reached.iter().map(|v| Lit { var: *v, positive: true }).collect();
            if !reached.is_empty() && reached.len() < off.len() {
                widened = Some(Clause(off));
                reached
            } else {
                off
            }
        }
        Defect::ConstantWrite { .. } | Defect::OutOfBounds { .. } => return Learned::Stop(Outcome::OtherError(Box::new(t.clone()))),
        Defect::Race(r) => {
            let coarse;
            let vars = if t.exact {
                &r.separating
            } else {
                // The tightest level that still names a site (the trace was found with the
                // tighter ones' sites off or unable to order it), else the coarse clause;
                // the coarse clause replaces it if the constraints turn out unsatisfiable.
                match r.near.iter().map(|level| without_siblings(inst, t, r, level)).find(|l| !l.is_empty()) {
                    Some(near) => {
                        if near.len() < r.in_order.len() {
                            widened = Some(Clause(r.in_order.iter().map(|v| Lit { var: *v, positive: true }).collect()));
                        }
                        coarse = near;
                        &coarse
                    }
                    None => &r.in_order,
                }
            };
            if vars.is_empty() {
                // Facts about the program, not about this trace: no barrier can stand between
                // an instruction and itself, and OpenCL has no barrier across work-groups. They
                // hold however the trace was found (exact or not).
                let structural = r.first.inst == r.second.inst || (!t.same_group && inst.kernel.language == syncfix_kir::Language::OpenCl);
                let k = &inst.kernel;
                let statement_of = |span: &syncfix_kir::Span| span.in_main().and_then(|l| k.statement_at(l));
                let one_statement = statement_of(&r.first.span).filter(|s| Some(*s) == statement_of(&r.second.span));
                let reason = if r.first.inst == r.second.inst {
                    "the two racing accesses are the same statement executed by two threads at once; a barrier orders \
                     statements, not the threads of one statement"
                        .to_string()
                } else if let Some(s) = one_statement {
                    let range = k.stmts.stmts[s].range;
                    let text = k.main_file().text.as_deref().and_then(|t| t.get(range.start..range.end)).unwrap_or("");
                    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    let text = if text.chars().count() > 60 { format!("{}...", text.chars().take(57).collect::<String>()) } else { text };
                    format!(
                        "the two racing accesses are made by one statement, `{text}` (line {}), executed by two threads at \
                         once; a barrier orders statements, not the accesses within one",
                        k.main_file().line_col(range.start).0
                    )
                } else if !t.same_group && inst.kernel.language == syncfix_kir::Language::OpenCl {
                    "the race is between work-items of different work-groups, and OpenCL has no barrier across \
                     work-groups"
                        .to_string()
                } else if !t.same_group && !inst.vars.iter().any(|v| v.scope == Scope::Grid) {
                    "the race is between threads of different blocks, and grid barriers are disabled or not possible \
                     for this kernel"
                        .to_string()
                } else if is_async_copy(&inst.kernel, r.first.inst) || is_async_copy(&inst.kernel, r.second.inst) {
                    if inst.vars.iter().any(|v| v.waits) {
                        "one racing access is an asynchronous work-group copy still in flight: only wait_group_events \
                         completes it, and no wait-then-barrier site lies between the two accesses"
                            .to_string()
                    } else {
                        "one racing access is an asynchronous work-group copy still in flight: only wait_group_events \
                         completes it, a barrier does not, and a wait could not name every copy pending there (a copy in \
                         another function, or its event out of scope)"
                            .to_string()
                    }
                } else {
                    "no barrier site lies between the two racing accesses".to_string()
                };
                if t.exact || structural {
                    return Learned::Stop(Outcome::Unrepairable { reason, trace: Some(Box::new(t.clone())) });
                }
                return Learned::Stop(Outcome::Unknown(reason));
            }
            vars.iter().map(|v| Lit { var: *v, positive: true }).collect()
        }
        Defect::Divergence { var, .. } => match var {
            None => {
                let reason = "a barrier that cannot be removed (not instrumented, or its result is used) is reached \
                              by non-uniform control flow"
                    .to_string();
                if t.exact {
                    return Learned::Stop(Outcome::Unrepairable { reason, trace: Some(Box::new(t.clone())) });
                }
                return Learned::Stop(Outcome::Unknown(reason));
            }
            Some(v) => {
                let mut out = vec![*v];
                let bv = &inst.vars[v.index()];
                if bv.scope == Scope::Block {
                    // Its grid twin diverges as well.
                    for w in &inst.vars {
                        if w.stmt == bv.stmt && w.scope == Scope::Grid && (w.kind == bv.kind || bv.kind == SiteKind::Existing) {
                            out.push(w.id);
                        }
                    }
                }
                // Negative units, one clause each.
                for x in out {
                    push(clauses, seen, vec![Lit { var: x, positive: false }]);
                }
                *all_exact &= t.exact;
                return Learned::Clause;
            }
        },
    };
    *all_exact &= t.exact;
    if push(clauses, seen, lits) {
        wider.resize(clauses.len() - 1, None);
        wider.push(widened);
    }
    Learned::Clause
}

/// The near clause of an inexact race trace without the variables whose site already holds an
/// enabled barrier that fences the raced memory: that barrier did not order the pair, so a
/// sibling at the same place (the same scope, no more reach) would not either.
fn without_siblings(inst: &Instrumented, t: &Trace, r: &syncfix_verify::Race, near: &[VarId]) -> Vec<VarId> {
    let shared = inst.kernel.objects[r.object].space == syncfix_kir::Space::Shared;
    let fences_raced = |f: &syncfix_kir::Fences| match f {
        syncfix_kir::Fences::Const { local, global } => {
            if shared {
                *local
            } else {
                *global
            }
        }
        syncfix_kir::Fences::Dynamic(_) => false,
    };
    near.iter()
        .copied()
        .filter(|v| {
            let bv = &inst.vars[v.index()];
            !inst.vars.iter().any(|w| {
                w.id != bv.id
                    && w.stmt == bv.stmt
                    && w.kind == bv.kind
                    && w.scope == bv.scope
                    && t.assignment.get(w.id.index()).copied().unwrap_or(false)
                    && fences_raced(&w.fences)
            })
        })
        .collect()
}

/// Whether `i` is the store of an asynchronous work-group copy (the front end puts
/// `AsyncPending` right after it).
fn is_async_copy(k: &syncfix_kir::Kernel, i: syncfix_kir::InstId) -> bool {
    let insts = &k.blocks[k.insts[i].block].insts;
    insts
        .iter()
        .position(|&x| x == i)
        .and_then(|p| insts.get(p + 1))
        .is_some_and(|&n| matches!(k.insts[n].kind, syncfix_kir::InstKind::AsyncPending { .. }))
}

/// Adds a clause unless it is already there; whether it was added.
fn push(clauses: &mut Vec<Clause>, seen: &mut BTreeSet<Vec<(usize, bool)>>, lits: Vec<Lit>) -> bool {
    let key: Vec<(usize, bool)> = lits.iter().map(|l| (l.var.index(), l.positive)).collect();
    if seen.insert(key) {
        clauses.push(Clause(lits));
        true
    } else {
        false
    }
}
