//! A loop's head state and the user's specifications on it (ARCHITECTURE.md, "crates/verify";
//! Betts et al., OOPSLA 2012 §4): the specs evaluated with the header phis set to a state
//! ([`View`]), and the user's invariants checked on it, on entry and at the end of an
//! iteration.

use crate::encode::{Encoder, PropKind};
use crate::memory::AccessKind;
use crate::term::{and, Term};
use crate::VerifyError;
use syncfix_kir::{AssertKind, InstId, InstKind, LogQuery, LoopId, ObjectId, Operand};
use z3::ast::{Ast, Bool, BV};
use z3::DeclKind;

/// The most cases a loop head's specs are evaluated in ([`Encoder::log_cases`]).
const MAX_LOG_CASES: usize = 16;

/// A race log whose offset is a choice between accesses (`Encoder::log_cases`).
struct LogSplit<'ctx> {
    object: ObjectId,
    kind: AccessKind,
    /// The conditions and offsets, outermost first.
    cases: Vec<(Bool<'ctx>, BV<'ctx>)>,
    /// The offset when no case holds.
    base: BV<'ctx>,
}

/// A user's invariant or candidate at a loop head, evaluated on one state.
#[derive(Clone, Debug)]
pub(super) struct SpecValue<'ctx> {
    pub(super) inst: InstId,
    pub(super) candidate: bool,
    pub(super) global: bool,
    /// The condition for each thread it is about (only thread 1 for one over the race log).
    pub(super) cond: Vec<Bool<'ctx>>,
}

impl<'ctx> SpecValue<'ctx> {
    /// The spec holds for every thread it is about that is in the loop.
    pub(super) fn holds(&self, ctx: &'ctx z3::Context, pred: &[Bool<'ctx>; 2]) -> Bool<'ctx> {
        let either = Bool::or(ctx, &[&pred[0], &pred[1]]);
        let parts: Vec<Bool<'ctx>> =
            self.cond.iter().enumerate().map(|(t, c)| (if self.global { &either } else { &pred[t] }).implies(c)).collect();
        and(ctx, &parts.iter().collect::<Vec<_>>())
    }
}

/// A loop's head state: which threads are in the loop, the header phis, and the user's
/// specs evaluated on it (logs and memory are the encoder's current state).
#[derive(Clone, Debug)]
pub(super) struct View<'ctx> {
    pub(super) pred: [Bool<'ctx>; 2],
    pub(super) phis: Vec<[Term<'ctx>; 2]>,
    pub(super) specs: Vec<SpecValue<'ctx>>,
    /// The condition to stay in the loop, when the header can be evaluated again.
    pub(super) guard: Option<[Bool<'ctx>; 2]>,
}

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// The user's specs at loop `l`'s head, and the condition to stay in the loop (when the
    /// header's instructions can be evaluated again), evaluated with the header phis set to
    /// `phis`, on the current state.
    pub(super) fn eval_head(
        &mut self,
        l: LoopId,
        pred: &[Bool<'ctx>; 2],
        phis: &[[Term<'ctx>; 2]],
    ) -> Result<(Vec<SpecValue<'ctx>>, Option<[Bool<'ctx>; 2]>), VerifyError> {
        let ctx = self.ctx;
        let info = self.analysis.loops[l].clone();
        let guard = info.guard.clone().filter(|_| self.opts.infer);
        if info.specs.is_empty() && guard.is_none() {
            return Ok((vec![], None));
        }
        if let (Some(i), false) = (info.impure_prefix, info.specs.is_empty()) {
            let file = std::path::Path::new(&self.kernel.files[syncfix_kir::FileId::MAIN].path);
            let file = file.file_name().map_or_else(|| file.display().to_string(), |f| f.to_string_lossy().into_owned());
            let at = self.kernel.insts[i].span.in_main().map(|l| format!("{file}:{}:{}", l.line, l.col)).unwrap_or(file);
            return Err(VerifyError::Unsupported(format!(
                "the invariants of the loop at {at} stay unproved: they depend on a memory access or call at the loop's head, which cannot be evaluated on entry to the loop"
            )));
        }
        let saved = self.state.values().clone();
        for (pi, &phi) in info.phis.iter().enumerate() {
            for t in 0..2 {
                self.state.set_value(t, phi, phis[pi][t].clone());
            }
        }
        let insts = match &guard {
            Some((all, _, _)) => all.clone(),
            None => info.spec_prefix.clone(),
        };
        // The logs' offsets split into the accesses an iteration may have logged
        // (`log_cases`), unless the loop's condition reads them.
        let guard_reads_log =
            guard.as_ref().is_some_and(|(_, c, _)| matches!(c, Operand::Value(v) if self.analysis.log_dependent.contains(v)));
        // Nor when the header does more than compute values and specs (an assertion or an
        // assumption, which each case would repeat).
        let only_values = insts.iter().all(|&i| {
            let inst = &self.kernel.insts[i];
            inst.width > 0 || matches!(inst.kind, InstKind::Anchor(_)) || self.spec_cond(&inst.kind).is_some()
        });
        let splits = if guard_reads_log || !only_values { vec![] } else { self.log_cases(&insts) };
        let mut out = vec![];
        for &inst in &insts {
            let kind = &self.kernel.insts[inst].kind;
            if self.spec_cond(kind).is_some() {
                let (candidate, global) = match *kind {
                    InstKind::Assert { global, .. } => (false, global),
                    _ => (true, false),
                };
                out.push(SpecValue { inst, candidate, global, cond: vec![] });
            } else if !splits.is_empty() && !self.analysis.log_dependent.contains(&inst) {
                // Split, what does not read a log is the same in every case: evaluated once.
                self.exec_inst(inst, pred)?;
            }
        }
        let conds = self.eval_specs_split(&splits, !splits.is_empty(), &insts, pred)?;
        for (s, c) in out.iter_mut().zip(conds) {
            s.cond = c;
        }
        let stay = guard.map(|(_, cond, stays)| {
            std::array::from_fn(|t| {
                let c = self.value(t, cond).to_bool(ctx);
                if stays {
                    c
                } else {
                    c.not()
                }
            })
        });
        self.state.restore_values(saved);
        Ok((out, stay))
    }

    /// A user's loop invariant or candidate: its condition and how many threads it is about
    /// (thread 1 alone with `--asymmetric-asserts`, or for a condition over the race log).
    fn spec_cond(&self, kind: &InstKind) -> Option<(Operand, usize)> {
        match *kind {
            InstKind::Assert { cond, kind: AssertKind::LoopInvariant, .. } => {
                Some((cond, if self.opts.asymmetric_asserts { 1 } else { self.threads_for(cond) }))
            }
            InstKind::Candidate { cond } => Some((cond, self.threads_for(cond))),
            _ => None,
        }
    }

    /// The race logs whose offsets the specs in `insts` read and that are a choice between
    /// accesses (`ite(c1, e1, ite(c2, e2, base))`: the accesses an iteration may have logged,
    /// then the log at the head): (object, kind, the cases, the base). A spec over such an
    /// offset is evaluated once per case and the results chosen by the same conditions
    /// (`eval_specs_split`), the same formula with the `ite` lifted above it. PPCG's
    /// function-wide invariants (`__read_implies(table, ... / n ... % n ...)`) then hold at
    /// the end of an iteration that logged nothing by the very term assumed at the head, where
    /// over the `ite` the solver had to prove two divider circuits equal (PolyBench's
    /// nussinov `kernel2`: 38–45 s a property). At most [`MAX_LOG_CASES`] cases in all.
    fn log_cases(&self, insts: &[InstId]) -> Vec<LogSplit<'ctx>> {
        let mut out: Vec<LogSplit<'ctx>> = vec![];
        let mut combos = 1usize;
        for &i in insts {
            let InstKind::LogQuery { object, kind, query: LogQuery::OffsetBytes } = self.kernel.insts[i].kind else { continue };
            let kind = AccessKind::of_log(kind);
            if out.iter().any(|s| s.object == object && s.kind == kind) {
                continue;
            }
            let Some(logs) = self.state.logs(object) else { continue };
            let mut cases = vec![];
            let mut cur = logs.get(kind).off.clone();
            while cur.is_app() && cur.decl().kind() == DeclKind::ITE && combos * (cases.len() + 2) <= MAX_LOG_CASES {
                let (Some(c), Some(a), Some(b)) = (
                    cur.nth_child(0).and_then(|c| c.as_bool()),
                    cur.nth_child(1).and_then(|c| c.as_bv()),
                    cur.nth_child(2).and_then(|c| c.as_bv()),
                ) else {
                    break;
                };
                cases.push((c, a));
                cur = b;
            }
            if !cases.is_empty() {
                combos *= cases.len() + 1;
                out.push(LogSplit { object, kind, cases, base: cur });
            }
        }
        out
    }

    /// The conditions of the specs in `insts` (per spec, per thread it is about), with each
    /// log of `splits` set to each of its cases in turn and the results chosen by the cases'
    /// conditions; the instructions that read a log are evaluated again for each case (when
    /// `split`: the others were evaluated once by the caller; else every instruction, in
    /// order).
    fn eval_specs_split(
        &mut self,
        splits: &[LogSplit<'ctx>],
        split: bool,
        insts: &[InstId],
        pred: &[Bool<'ctx>; 2],
    ) -> Result<Vec<Vec<Bool<'ctx>>>, VerifyError> {
        let ctx = self.ctx;
        let Some((first, rest)) = splits.split_first() else {
            // Unsplit, every instruction in order; split, those that read a log (the others
            // were evaluated once by the caller).
            let mut conds = vec![];
            for &inst in insts {
                if let Some((cond, n)) = self.spec_cond(&self.kernel.insts[inst].kind) {
                    conds.push((0..n).map(|t| self.value(t, cond).to_bool(ctx)).collect());
                } else if !split || self.analysis.log_dependent.contains(&inst) {
                    self.exec_inst(inst, pred)?;
                }
            }
            return Ok(conds);
        };
        let log = |s: &mut Self, off: &BV<'ctx>| {
            if let Some(logs) = s.state.logs_mut(first.object) {
                logs.get_mut(first.kind).off = off.clone();
            }
        };
        let whole = self.state.logs(first.object).map(|l| l.get(first.kind).off.clone());
        log(self, &first.base);
        let mut result = self.eval_specs_split(rest, split, insts, pred)?;
        for (c, e) in first.cases.iter().rev() {
            log(self, e);
            let then = self.eval_specs_split(rest, split, insts, pred)?;
            for (r, t) in result.iter_mut().zip(then) {
                for (x, y) in r.iter_mut().zip(t) {
                    if *x != y {
                        *x = c.ite(&y, x);
                    }
                }
            }
        }
        if let Some(w) = whole {
            log(self, &w);
        }
        Ok(result)
    }

    /// Checks the user's invariants on a view: on entry (`first_iteration`) or at the end of an
    /// iteration.
    pub(super) fn check_invariants(&mut self, v: &View<'ctx>, first_iteration: bool) {
        let ctx = self.ctx;
        for s in v.specs.iter().filter(|s| !s.candidate) {
            let either = Bool::or(ctx, &[&v.pred[0], &v.pred[1]]);
            for (t, c) in s.cond.iter().enumerate() {
                let on = if s.global { &either } else { &v.pred[t] };
                let viol = Bool::and(ctx, &[self.state.ok(), on, &c.not()]);
                self.property(viol, PropKind::Assert { inst: s.inst, thread: t, kind: AssertKind::LoopInvariant, first_iteration });
            }
        }
    }
}
