//! Houdini's candidate loop invariants ([`Invariants`]): one literal per loop and formula, and
//! the checks of the candidates made where loops are cut.

use super::encoding::{Candidate, CandidateCheck, LogUse};
use std::collections::BTreeMap;
use syncfix_kir::LoopId;
use z3::ast::Bool;
use z3::Context;

/// The candidate invariants (Houdini's), by loop and formula, and their checks, in the order
/// made. An unrolling attempt that is undone forgets what it added ([`Invariants::mark`]).
#[derive(Default)]
pub(crate) struct Invariants<'ctx> {
    /// The candidates; a candidate's index is its number (`cand!i`).
    candidates: Vec<Candidate<'ctx>>,
    /// Each candidate's index by its loop and formula ([`Candidate::what`]).
    index: BTreeMap<(LoopId, String), usize>,
    /// The checks of the candidates.
    checks: Vec<CandidateCheck<'ctx>>,
}

/// How many candidates and checks there were at a point of the encoding.
pub(super) struct InvariantsMark {
    candidates: usize,
    checks: usize,
}

impl<'ctx> Invariants<'ctx> {
    /// The candidate with this key for loop `l` (one literal per loop and formula, shared by
    /// every encoding of the loop), made if new. `logs`: the race logs it reads
    /// ([`Candidate::logs`]); over values when none ([`Candidate::over_values`]).
    pub(super) fn candidate(&mut self, ctx: &'ctx Context, l: LoopId, what: String, logs: LogUse) -> usize {
        if let Some(&i) = self.index.get(&(l, what.clone())) {
            return i;
        }
        let lit = Bool::new_const(ctx, format!("cand!{}", self.candidates.len()));
        self.candidates.push(Candidate { lit, loop_id: l, what: what.clone(), over_values: logs == LogUse::None, logs });
        let i = self.candidates.len() - 1;
        self.index.insert((l, what), i);
        i
    }

    /// The candidates, by number.
    pub(crate) fn candidates(&self) -> &[Candidate<'ctx>] {
        &self.candidates
    }

    /// The checks of the candidates, in the order made.
    pub(crate) fn checks(&self) -> &[CandidateCheck<'ctx>] {
        &self.checks
    }

    /// Candidate `c`'s literal.
    pub(super) fn lit(&self, c: usize) -> &Bool<'ctx> {
        &self.candidates[c].lit
    }

    /// Records a check of candidate `c`: violated when `cond` holds, built when the fresh
    /// constants' count was `stamp` and the state's assumptions were `ok`.
    pub(super) fn add_check(&mut self, c: usize, cond: Bool<'ctx>, stamp: u32, ok: &Bool<'ctx>) {
        self.checks.push(CandidateCheck { cand: c, cond, cands_before: self.candidates.len(), stamp, ok: ok.clone() });
    }

    /// Whether no check was recorded yet.
    pub(super) fn no_checks(&self) -> bool {
        self.checks.is_empty()
    }

    /// The counts to come back to with [`Invariants::truncate`].
    pub(super) fn mark(&self) -> InvariantsMark {
        InvariantsMark { candidates: self.candidates.len(), checks: self.checks.len() }
    }

    /// Forgets the candidates and checks made since `mark`.
    pub(super) fn truncate(&mut self, mark: InvariantsMark) {
        self.checks.truncate(mark.checks);
        self.candidates.truncate(mark.candidates);
        self.index.retain(|_, i| *i < mark.candidates);
    }
}
