//! Candidate loop invariants, GPUVerify's families (Betts et al., OOPSLA 2012 §5;
//! `LoopInvariantGenerator`, `RaceInstrumenter` in GPUVerify's VC generator):
//!
//! - the loop predicate is the same in both threads (`loopPredicateEquality`), also only
//!   within a group;
//! - each header phi is the same in both threads while both are in the loop
//!   (`predicatedEquality`), and its distance from its initial value is (`guardMinusInitialIsUniform`);
//! - loop counter bounds: the initial value (`loopBound`, signed and unsigned both ways), the
//!   bounds in the loop's exit conditions, non-negativity (`guardNonNeg`);
//! - strides: `(i - init) % step == 0` for additive counters (`loopCounterIsStrided`);
//! - powers of two for counters multiplied or divided by two (`PowerOfTwoInvariantGenerator`):
//!   `i & (i - 1) == 0`, `i != 0`;
//! - no access of a kind logged for an array, in loops with a barrier (`no read`, `no write`);
//! - a logged access at an offset of the thread's own (`accessedOffsetIsThreadLocalId`,
//!   generalised): one of the offsets the loop's accesses compute from the thread's ids,
//!   the sizes, the parameters and constants alone;
//! - exits: both threads leave by the same exit, with the same values.
//!
//! A candidate is a formula over a loop's head state ([`View`]), evaluated on the entry state,
//! the havocked state and the end-of-iteration state.

use super::head::View;
use crate::encode::{Encoder, LogUse};
use crate::memory::AccessKind;
use crate::term::{const_term, is_false, Term};
use std::collections::BTreeSet;
use syncfix_kir::{BinOp, CastOp, CmpPred, InstId, InstKind, LoopId, ObjectId, Operand};
use z3::ast::{Ast, Bool, BV};

mod terms;

/// A candidate's formula.
#[derive(Clone, Debug)]
pub(super) enum Form<'ctx> {
    /// Both threads that entered the loop are in it, or neither (`same_group`: when both are
    /// in one group).
    PredEq { same_group: bool },
    /// Phi `phi` is the same in both threads while both are in the loop.
    PhiEq { phi: usize, same_group: bool },
    /// `cast(phi) op rhs` for each thread in the loop.
    PhiCmp { phi: usize, cast: Option<(CastOp, u16)>, op: CmpPred, rhs: [Term<'ctx>; 2] },
    /// `(phi - init) % step == 0` for each thread in the loop (`step` loop-invariant).
    Stride { phi: usize, init: [Term<'ctx>; 2], step: [Term<'ctx>; 2] },
    /// `phi - init` is the same in both threads while both are in the loop.
    DistanceEq { phi: usize, init: [Term<'ctx>; 2] },
    /// `phi & (phi - 1) == 0` for each thread in the loop.
    Pow2 { phi: usize },
    /// `phi != 0` for each thread in the loop.
    NonZero { phi: usize },
    /// `a * b == value` for each thread in the loop (`or_done`: or `b == 0` and
    /// `a == 2 * value`, the state after the last halving).
    Product { a: usize, b: usize, value: [Term<'ctx>; 2], or_done: bool },
    /// A thread that entered the loop and whose loop condition holds is in the loop
    /// (GPUVerify's `conditionsImplyingEnabledness`).
    Enabled,
    /// No access of `kind` to `object` is logged at the loop head.
    NoLog { object: ObjectId, kind: AccessKind },
    /// An access of `kind` to `object` logged at the loop head is at one of `offsets`: byte
    /// offsets of the logging thread that do not change in the kernel (functions of its ids,
    /// the launch sizes, the parameters and constants).
    LogAt { object: ObjectId, kind: AccessKind, offsets: Vec<BV<'ctx>> },
    /// The user's `__candidate_invariant` (index into the head's specs).
    User { spec: usize },
}

/// How a header phi changes per iteration.
#[derive(Clone, Debug)]
enum Step {
    /// `i + c` or `i - c` (as an addition of the two's complement).
    Add(u128),
    /// `i + s` for a value `s` defined outside the loop.
    AddVar(Operand),
    /// Multiplied by two.
    Double,
    /// Divided by two.
    Half,
    Other,
}

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// The candidate with this key for loop `l` (one literal per loop and formula, shared by
    /// every encoding of the loop).
    /// `logs`: the race logs it reads ([`Candidate::logs`]); over values when none
    /// ([`Candidate::over_values`]).
    pub(super) fn candidate(&mut self, l: LoopId, what: String, logs: LogUse) -> usize {
        self.invariants.candidate(self.ctx, l, what, logs)
    }

    /// The candidates of loop `l` over its header state, given the phis' entry values.
    pub(super) fn loop_candidates(
        &mut self,
        l: LoopId,
        entry_phis: &[[Term<'ctx>; 2]],
        logs: &[(ObjectId, AccessKind)],
    ) -> Vec<(usize, Form<'ctx>)> {
        let mut out: Vec<(String, Form<'ctx>)> = vec![];
        let info = self.analysis.loops[l].clone();
        if !self.opts.infer {
            return vec![];
        }
        let multi_group = !self.opts.only_intra_group && self.kernel.multi_block();
        // Uniformity between the threads matters for barriers in the loop (GPUVerify
        // generates these candidates only for loops with barriers).
        let relational = info.has_barrier;
        if relational && !self.uniformity.uniform_loop[l] {
            out.push(("loop predicate uniform".into(), Form::PredEq { same_group: false }));
            if multi_group {
                out.push(("loop predicate uniform in a group".into(), Form::PredEq { same_group: true }));
            }
        }
        let guards = self.guard_comparisons(l);
        for (pi, &phi) in info.phis.iter().enumerate() {
            let name = format!("{phi}");
            if relational && !self.uniformity.is_uniform(phi) {
                out.push((format!("{name} uniform"), Form::PhiEq { phi: pi, same_group: false }));
                if multi_group {
                    out.push((format!("{name} uniform in a group"), Form::PhiEq { phi: pi, same_group: true }));
                }
            }
            // Data that only flows into stored values: nothing to prove about it
            // (`analysis::relevant_values`).
            if self.kernel.insts[phi].width <= 1 || !self.analysis.relevant.contains(&phi) {
                continue;
            }
            let init = entry_phis[pi].clone();
            for op in [CmpPred::Sge, CmpPred::Sle, CmpPred::Uge, CmpPred::Ule] {
                out.push((format!("{name} {op:?} its initial value"), Form::PhiCmp { phi: pi, cast: None, op, rhs: init.clone() }));
            }
            self.step_candidates(l, pi, phi, &init, relational, &mut out);
            for (cast, other, signed) in guards.iter().filter(|g| g.0 == phi).map(|g| (g.1, g.2, g.3)) {
                let w = cast.map_or(self.kernel.insts[phi].width, |c| c.1);
                let rhs: [Term<'ctx>; 2] = std::array::from_fn(|t| self.value(t, other));
                let ops: &[CmpPred] = if signed {
                    &[CmpPred::Sle, CmpPred::Sge, CmpPred::Slt, CmpPred::Sgt]
                } else {
                    &[CmpPred::Ule, CmpPred::Uge, CmpPred::Ult, CmpPred::Ugt]
                };
                for &op in ops {
                    out.push((format!("{name} {op:?} guard bound {other:?}"), Form::PhiCmp { phi: pi, cast, op, rhs: rhs.clone() }));
                }
                if signed {
                    let zero = const_term(self.ctx, 0, w);
                    out.push((format!("{name} non-negative"), Form::PhiCmp { phi: pi, cast, op: CmpPred::Sge, rhs: [zero.clone(), zero] }));
                }
            }
        }
        if info.guard.is_some() {
            out.push(("loop condition implies enabled".into(), Form::Enabled));
        }
        // GPUVerify's relational powers of two: a counter that doubles and one that halves
        // keep their product (`offset * d == n`, as in a scan's sweeps).
        let steps: Vec<(usize, Step)> = info.phis.iter().enumerate().map(|(pi, &p)| (pi, self.step_of(l, p))).collect();
        for (a, sa) in &steps {
            for (b, sb) in &steps {
                if matches!(sa, Step::Double)
                    && matches!(sb, Step::Half)
                    && self.kernel.insts[info.phis[*a]].width == self.kernel.insts[info.phis[*b]].width
                {
                    let prod: [Term<'ctx>; 2] =
                        std::array::from_fn(|t| Term::V(entry_phis[*a][t].to_bv(self.ctx).bvmul(&entry_phis[*b][t].to_bv(self.ctx))));
                    out.push((
                        format!("{} * {} constant", info.phis[*a], info.phis[*b]),
                        Form::Product { a: *a, b: *b, value: prod.clone(), or_done: false },
                    ));
                    out.push((
                        format!("{} * {} constant until {} is 0", info.phis[*a], info.phis[*b], info.phis[*b]),
                        Form::Product { a: *a, b: *b, value: prod, or_done: true },
                    ));
                }
            }
        }
        if info.has_barrier {
            self.log_candidates(l, logs, &mut out);
        }
        for (si, &(inst, candidate)) in info.specs.iter().enumerate() {
            if candidate {
                out.push((format!("user candidate {inst}"), Form::User { spec: si }));
            }
        }
        out.into_iter()
            .map(|(what, f)| {
                let logs = match f {
                    Form::NoLog { object, .. } | Form::LogAt { object, .. } => LogUse::Object(object),
                    Form::User { .. } => LogUse::All,
                    _ => LogUse::None,
                };
                (self.candidate(l, what, logs), f)
            })
            .collect()
    }

    /// The candidates of loop `l`'s header phi `phi` (its `pi`th, initial value `init`) by
    /// how it steps: strides (and, in a loop with barriers, `relational`, the distance from
    /// the initial value uniform), powers of two; pushed to `out` as (name, form).
    fn step_candidates(
        &mut self,
        l: LoopId,
        pi: usize,
        phi: InstId,
        init: &[Term<'ctx>; 2],
        relational: bool,
        out: &mut Vec<(String, Form<'ctx>)>,
    ) {
        let name = format!("{phi}");
        match self.step_of(l, phi) {
            Step::Add(c) => {
                // The step's magnitude as a signed number (`c += -32` is `+ 2^w - 32`): the
                // distance from the initial value is a multiple of it. Stepping by ±1 says
                // nothing, and the other reading of the step (`2^w - 32` for `-32`, `2^w - 1`
                // for `+1`) holds only of a loop that never iterates: neither is a candidate,
                // and neither puts a divider by a non-power-of-two constant into every check of
                // Houdini's first round (the CUDA SDK's shfl_vertical_shfl had 8 by 2^32 - 1).
                let w = self.kernel.insts[phi].width;
                let neg = self.neg(c, w);
                let (m, sign) = if (c >> (w.min(128) - 1)) & 1 == 0 { (c, "") } else { (neg, "-") };
                if m > 1 {
                    let k = const_term(self.ctx, m, w);
                    out.push((format!("{name} strided by {sign}{m}"), Form::Stride { phi: pi, init: init.clone(), step: [k.clone(), k] }));
                }
                if relational {
                    out.push((format!("{name} minus initial value uniform"), Form::DistanceEq { phi: pi, init: init.clone() }));
                }
            }
            Step::AddVar(o) => {
                let step: [Term<'ctx>; 2] = std::array::from_fn(|t| {
                    if self.outside(l, o) {
                        self.value(t, o)
                    } else {
                        self.invariant_term(t, o, 0).expect("checked by added_value")
                    }
                });
                out.push((format!("{name} strided by {o:?}"), Form::Stride { phi: pi, init: init.clone(), step }));
                if relational {
                    out.push((format!("{name} minus initial value uniform"), Form::DistanceEq { phi: pi, init: init.clone() }));
                }
            }
            Step::Double | Step::Half => {
                out.push((format!("{name} power of two"), Form::Pow2 { phi: pi }));
                out.push((format!("{name} non-zero"), Form::NonZero { phi: pi }));
            }
            Step::Other => {}
        }
    }

    /// The candidates on loop `l`'s race logs `logs` (a loop with barriers): nothing of a kind
    /// logged, or logged at an offset the loop's own accesses compute from the thread's ids
    /// alone; pushed to `out` as (name, form).
    fn log_candidates(&mut self, l: LoopId, logs: &[(ObjectId, AccessKind)], out: &mut Vec<(String, Form<'ctx>)>) {
        for &(o, kind) in logs {
            out.push((format!("no {} of {} logged", kind.name(), self.kernel.objects[o].name), Form::NoLog { object: o, kind }));
        }
        // GPUVerify's `accessedOffsetIsThreadLocalId` family (RaceInstrumenter),
        // generalised: what the logging thread logged in an earlier iteration is at an
        // offset the loop's own accesses of that kind compute from the thread's ids alone,
        // so the havocked log at the head cannot stand for another thread's element (a
        // loop whose body ends with `barrier; x = s[tid];`, scan's `go[a] = temp[a + oa]`).
        for &(o, kind) in logs {
            let offsets = self.thread_offsets(l, o, kind);
            if offsets.is_empty() {
                continue;
            }
            let name = &self.kernel.objects[o].name;
            if offsets.len() > 1 {
                for off in &offsets {
                    out.push((
                        format!("{} of {name} logged at {off}", kind.name()),
                        Form::LogAt { object: o, kind, offsets: vec![off.clone()] },
                    ));
                }
            }
            out.push((format!("{} of {name} logged at an offset of its own", kind.name()), Form::LogAt { object: o, kind, offsets }));
        }
    }

    /// Evaluates a candidate on a head view (the current state's logs).
    pub(super) fn eval_form(&self, f: &Form<'ctx>, v: &View<'ctx>, entry: &[Bool<'ctx>; 2]) -> Bool<'ctx> {
        let ctx = self.ctx;
        let both = Bool::and(ctx, &[&v.pred[0], &v.pred[1]]);
        // A per-thread formula, for each thread in the loop (only thread 1 under
        // `--asymmetric-asserts`: GPUVerify dualises assertions, candidates included, for the
        // first thread only).
        let threads = if self.opts.asymmetric_asserts { 1 } else { 2 };
        let each = |g: &dyn Fn(usize) -> Bool<'ctx>| -> Bool<'ctx> {
            let parts: Vec<Bool<'ctx>> = (0..threads).map(|t| v.pred[t].implies(&g(t))).collect();
            crate::term::and(ctx, &parts.iter().collect::<Vec<_>>())
        };
        let bv = |pi: usize, t: usize| -> BV<'ctx> { v.phis[pi][t].to_bv(ctx) };
        match f {
            Form::PredEq { same_group } => {
                let mut ante = vec![entry[0].clone(), entry[1].clone()];
                if *same_group {
                    ante.push(self.symbols.same_group().clone());
                }
                let refs: Vec<&Bool<'ctx>> = ante.iter().collect();
                Bool::and(ctx, &refs).implies(&v.pred[0].iff(&v.pred[1]))
            }
            Form::PhiEq { phi, same_group } => {
                let mut ante = both.clone();
                if *same_group {
                    ante = Bool::and(ctx, &[&ante, self.symbols.same_group()]);
                }
                ante.implies(&v.phis[*phi][0].eq(&v.phis[*phi][1], ctx))
            }
            Form::PhiCmp { phi, cast, op, rhs } => each(&|t| {
                let p = match cast {
                    Some((c, w)) => self.cast(*c, v.phis[*phi][t].clone(), *w),
                    None => v.phis[*phi][t].clone(),
                };
                self.cmp(*op, &p, &rhs[t])
            }),
            Form::Stride { phi, init, step } => each(&|t| {
                let p = bv(*phi, t);
                let d = p.bvsub(&init[t].to_bv(ctx));
                let s = crate::term::resize(&step[t].to_bv(ctx), p.get_size());
                d.bvurem(&s)._eq(&crate::term::bv_const(ctx, 0, p.get_size()))
            }),
            Form::DistanceEq { phi, init } => {
                let d: [BV<'ctx>; 2] = std::array::from_fn(|t| bv(*phi, t).bvsub(&init[t].to_bv(ctx)));
                both.implies(&d[0]._eq(&d[1]))
            }
            Form::Pow2 { phi } => each(&|t| {
                let p = bv(*phi, t);
                let one = crate::term::bv_const(ctx, 1, p.get_size());
                p.bvand(&p.bvsub(&one))._eq(&crate::term::bv_const(ctx, 0, p.get_size()))
            }),
            Form::NonZero { phi } => each(&|t| {
                let p = bv(*phi, t);
                p._eq(&crate::term::bv_const(ctx, 0, p.get_size())).not()
            }),
            Form::Product { a, b, value, or_done } => each(&|t| {
                let v = value[t].to_bv(ctx);
                let prod = bv(*a, t).bvmul(&bv(*b, t))._eq(&v);
                if *or_done {
                    let w = v.get_size();
                    let done = Bool::and(
                        ctx,
                        &[
                            &bv(*b, t)._eq(&crate::term::bv_const(ctx, 0, w)),
                            &bv(*a, t)._eq(&crate::term::mul(&v, &crate::term::bv_const(ctx, 2, w))),
                        ],
                    );
                    Bool::or(ctx, &[&prod, &done])
                } else {
                    prod
                }
            }),
            Form::Enabled => match &v.guard {
                Some(g) => {
                    let parts: Vec<Bool<'ctx>> = (0..threads).map(|t| Bool::and(ctx, &[&entry[t], &g[t]]).implies(&v.pred[t])).collect();
                    crate::term::and(ctx, &parts.iter().collect::<Vec<_>>())
                }
                None => Bool::from_bool(ctx, true),
            },
            Form::NoLog { object, kind } => match self.state.logs(*object) {
                Some(l) => l.get(*kind).has.not(),
                None => Bool::from_bool(ctx, true),
            },
            Form::LogAt { object, kind, offsets } => match self.state.logs(*object) {
                Some(l) => {
                    let l = l.get(*kind);
                    let bits = l.off.get_size();
                    let eqs: Vec<Bool<'ctx>> = offsets.iter().map(|o| l.off._eq(&crate::term::resize(o, bits))).collect();
                    l.has.implies(&Bool::or(ctx, &eqs.iter().collect::<Vec<_>>()))
                }
                None => Bool::from_bool(ctx, true),
            },
            Form::User { spec } => match v.specs.get(*spec) {
                Some(s) => s.holds(ctx, &v.pred),
                None => Bool::from_bool(ctx, true),
            },
        }
    }

    /// Checks candidates on a view (violated when the candidate is on and false).
    pub(super) fn check_candidates(&mut self, cands: &[(usize, Form<'ctx>)], v: &View<'ctx>, entry: &[Bool<'ctx>; 2], guard: &Bool<'ctx>) {
        for (c, f) in cands {
            let holds = self.eval_form(f, v, entry);
            self.check_candidate(*c, &holds, guard);
        }
    }

    /// Houdini's check of candidate `c` where `guard` holds: violated when the candidate is
    /// on and `holds` is false (none when that cannot be).
    pub(super) fn check_candidate(&mut self, c: usize, holds: &Bool<'ctx>, guard: &Bool<'ctx>) {
        let lit = self.invariants.lit(c).clone();
        let cond = Bool::and(self.ctx, &[self.state.ok(), guard, &lit, &holds.not()]).simplify();
        if !is_false(&cond) {
            self.invariants.add_check(c, cond, self.symbols.stamp(), self.state.ok());
        }
    }
}
