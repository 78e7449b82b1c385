//! A loop's head state and the user's specifications on it (ARCHITECTURE.md, "crates/verify";
//! Betts et al., OOPSLA 2012 §4): the specs evaluated with the header phis set to a state
//! ([`View`]), and the user's invariants checked on it, on entry and at the end of an
//! iteration.

use crate::encode::{Encoder, PropKind};
use crate::term::{and, Term};
use crate::VerifyError;
use syncfix_kir::{AssertKind, InstId, InstKind, LoopId};
use z3::ast::Bool;

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
        let mut out = vec![];
        for inst in insts {
            match self.kernel.insts[inst].kind.clone() {
                InstKind::Assert { cond, global, kind: AssertKind::LoopInvariant } => {
                    let n = if self.opts.asymmetric_asserts { 1 } else { self.threads_for(cond) };
                    let c = (0..n).map(|t| self.value(t, cond).to_bool(ctx)).collect();
                    out.push(SpecValue { inst, candidate: false, global, cond: c });
                }
                InstKind::Candidate { cond } => {
                    let n = self.threads_for(cond);
                    let c = (0..n).map(|t| self.value(t, cond).to_bool(ctx)).collect();
                    out.push(SpecValue { inst, candidate: true, global: false, cond: c });
                }
                _ => self.exec_inst(inst, pred)?,
            }
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
