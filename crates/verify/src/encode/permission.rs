//! GPUVerify's barrier-invariant access check (Chong et al., "Barrier Invariants", OOPSLA
//! 2013): a barrier invariant may read only memory that the two threads accessed in the
//! current barrier interval, or were given permission to read (`__read_permission`).
//! `--no-barrier-access-checks` turns it off.
//!
//! Per object that a barrier invariant reads, a witness byte offset `na` is chosen
//! (symbolically) at the start of each barrier interval with a flag "`na` not accessed yet";
//! each access (and each permission) of either thread that covers `na` clears the flag. A
//! read in a barrier invariant that covers `na` while the flag holds, and whose value matters
//! to the invariant (it is not short-circuited by `&&`, `||`, `==>` or `?:`), is a violation:
//! the solver picks `na` among the bytes neither thread accessed.
//!
//! Limitation: a loop cut forgets which bytes the loop's earlier iterations accessed, and
//! counts them all as accessed (a missed violation is possible after a cut loop, a false
//! alarm is not).

use super::state::Witness;
use super::Encoder;
use crate::term::Term;
use syncfix_kir::{AssertKind, BinOp, InstId, InstKind, ObjectId, Operand};
use z3::ast::{Ast, Bool, BV};

/// The objects that barrier invariants read (spec loads feeding a barrier invariant).
pub(super) fn checked_objects(k: &syncfix_kir::Kernel) -> std::collections::BTreeSet<ObjectId> {
    let mut out = std::collections::BTreeSet::new();
    let mut stack: Vec<InstId> = k
        .insts
        .iter()
        .filter_map(|(_, i)| match i.kind {
            InstKind::Assert { cond: Operand::Value(v), kind: AssertKind::BarrierInvariant, .. } => Some(v),
            _ => None,
        })
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        let inst = &k.insts[v];
        if let InstKind::SpecLoad { ptr, .. } = inst.kind {
            out.insert(ptr.object);
        }
        if matches!(inst.kind, InstKind::Phi { .. } | InstKind::Load { .. } | InstKind::Atomic { .. }) {
            continue;
        }
        stack.extend(inst.kind.operands().into_iter().filter_map(|o| match o {
            Operand::Value(w) => Some(w),
            _ => None,
        }));
    }
    out
}

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// A fresh witness for `o` where `start` holds (a new interval), else the old one.
    fn fresh_witness(&mut self, o: ObjectId, start: &Bool<'ctx>) {
        let ctx = self.ctx;
        let name = self.kernel.objects[o].name.clone();
        let na = self.symbols.fresh_bv(&format!("{name}.not_accessed"), 64);
        let t = Bool::from_bool(ctx, true);
        let w = match self.state.witness(o) {
            Some(old) => Witness { na: start.ite(&na, &old.na), unaccessed: start.ite(&t, &old.unaccessed).simplify() },
            None => Witness { na, unaccessed: t },
        };
        self.state.set_witness(o, w);
    }

    /// At the kernel's entry.
    pub(super) fn init_permissions(&mut self) {
        if !self.opts.barrier_access_checks {
            return;
        }
        let t = Bool::from_bool(self.ctx, true);
        for o in checked_objects(self.kernel) {
            self.fresh_witness(o, &t);
        }
    }

    /// A barrier passed where `passed` holds starts a new interval.
    pub(super) fn permissions_at_barrier(&mut self, passed: &Bool<'ctx>) {
        let ids: Vec<ObjectId> = self.state.witness_objects();
        for o in ids {
            self.fresh_witness(o, passed);
        }
    }

    /// A loop cut: what earlier iterations accessed is unknown; counted as accessed.
    pub(super) fn permissions_at_cut(&mut self) {
        let f = Bool::from_bool(self.ctx, false);
        for w in self.state.witnesses_mut() {
            w.unaccessed = f.clone();
        }
    }

    /// An access (or a permission) of `bytes` bytes at `off` by the enabled threads.
    pub(super) fn note_access(&mut self, o: ObjectId, off: &[BV<'ctx>; 2], bytes: u32, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let Some(w) = self.state.witness(o).cloned() else { return };
        let hit: Vec<Bool<'ctx>> = (0..2).map(|t| Bool::and(ctx, &[&pred[t], &covers(&w.na, &off[t], bytes)])).collect();
        let any = Bool::or(ctx, &[&hit[0], &hit[1]]);
        let unaccessed = Bool::and(ctx, &[&w.unaccessed, &any.not()]).simplify();
        self.state.set_witness(o, Witness { na: w.na, unaccessed });
    }

    /// The access check of barrier invariant `inst` (condition `cond`) of the enabled threads.
    pub(super) fn check_barrier_invariant_reads(&mut self, inst: InstId, cond: Operand, pred: &[Bool<'ctx>; 2]) {
        let Operand::Value(v) = cond else { return };
        if !self.state.has_witnesses() {
            return;
        }
        let ctx = self.ctx;
        for t in 0..2 {
            let mut reads: Vec<(InstId, Bool<'ctx>)> = vec![];
            let mut budget = 4096usize;
            self.relevant_reads(t, v, Bool::from_bool(ctx, true), &mut reads, &mut budget);
            for (r, guard) in reads {
                let InstKind::SpecLoad { ptr, width } = self.kernel.insts[r].kind else { continue };
                let Some(w) = self.state.witness(ptr.object).cloned() else { continue };
                let off = self.bv(t, ptr.offset);
                let viol = Bool::and(ctx, &[self.state.ok(), &pred[t], &guard, &w.unaccessed, &covers(&w.na, &off, width)]);
                self.property(
                    viol,
                    super::PropKind::Assert { inst, thread: t, kind: AssertKind::BarrierInvariantAccess, first_iteration: false },
                );
            }
        }
    }

    /// The spec loads under `v` with the condition (thread `t`'s values) under which their
    /// value matters to `v`.
    fn relevant_reads(&self, t: usize, v: InstId, guard: Bool<'ctx>, out: &mut Vec<(InstId, Bool<'ctx>)>, budget: &mut usize) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let ctx = self.ctx;
        let kind = &self.kernel.insts[v].kind;
        let truthy = |me: &Self, o: Operand| -> Bool<'ctx> {
            match me.value(t, o) {
                Term::B(b) => b,
                Term::V(bv) => bv._eq(&BV::from_u64(ctx, 0, bv.get_size())).not(),
            }
        };
        let sub = |me: &Self, o: Operand, g: Bool<'ctx>, out: &mut Vec<(InstId, Bool<'ctx>)>, budget: &mut usize| {
            if let Operand::Value(w) = o {
                me.relevant_reads(t, w, g, out, budget);
            }
        };
        match kind {
            InstKind::SpecLoad { ptr, .. } => {
                out.push((v, guard.clone()));
                sub(self, ptr.offset, guard, out, budget);
            }
            InstKind::Phi { .. } | InstKind::Load { .. } | InstKind::Atomic { .. } => {}
            // `x || y`, `x && y` (on truth values): one side matters only when the other
            // does not decide the result.
            InstKind::Bin { op: BinOp::Or, lhs, rhs } => {
                let (l, r) = (truthy(self, *lhs), truthy(self, *rhs));
                sub(self, *lhs, Bool::and(ctx, &[&guard, &r.not()]), out, budget);
                sub(self, *rhs, Bool::and(ctx, &[&guard, &l.not()]), out, budget);
            }
            InstKind::Bin { op: BinOp::And, lhs, rhs } => {
                let (l, r) = (truthy(self, *lhs), truthy(self, *rhs));
                sub(self, *lhs, Bool::and(ctx, &[&guard, &r]), out, budget);
                sub(self, *rhs, Bool::and(ctx, &[&guard, &l]), out, budget);
            }
            InstKind::Select { cond, then, els } => {
                let c = truthy(self, *cond);
                sub(self, *cond, guard.clone(), out, budget);
                sub(self, *then, Bool::and(ctx, &[&guard, &c]), out, budget);
                sub(self, *els, Bool::and(ctx, &[&guard, &c.not()]), out, budget);
            }
            other => {
                for o in other.operands() {
                    sub(self, o, guard.clone(), out, budget);
                }
            }
        }
    }
}

/// Whether byte `na` lies in `[off, off + bytes)` (64-bit offsets).
fn covers<'ctx>(na: &BV<'ctx>, off: &BV<'ctx>, bytes: u32) -> Bool<'ctx> {
    let ctx = na.get_ctx();
    let off = crate::term::resize(off, 64);
    let end = off.bvadd(&BV::from_u64(ctx, bytes as u64, 64));
    Bool::and(ctx, &[&na.bvuge(&off), &na.bvult(&end)])
}
