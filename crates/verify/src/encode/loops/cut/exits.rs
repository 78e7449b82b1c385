//! The ways out of a loop being cut (ARCHITECTURE.md, "crates/verify"): the exits and returns
//! taken in its arbitrary iteration ([`CutFrame`]), and the slots that record which exit a
//! thread left by, in an earlier iteration or this one, with the values it carried, and the
//! candidates about them.

use crate::encode::frames::{CutFrame, Exit};
use crate::encode::{Encoder, Incoming};
use crate::term::{or, Term};
use syncfix_kir::{BlockId, InstKind, LoopId, Operand};
use z3::ast::{Ast, Bool};

/// Which exit a thread left the loop by (or that it returned), and the values it carried.
pub(super) struct Slot<'ctx> {
    /// The havocked state: the thread left in an earlier iteration.
    pub(super) left: [Bool<'ctx>; 2],
    /// The exit's phi values and the loop's escaping values, havocked.
    pub(super) values: Vec<[Term<'ctx>; 2]>,
    /// The exit taken in this iteration (None: the returns).
    pub(super) exit: Option<Exit<'ctx>>,
    /// Taken in this iteration.
    pub(super) now: [Bool<'ctx>; 2],
}

impl<'ctx> Slot<'ctx> {
    /// The slot at the end of the iteration: the values of the threads that take its exit
    /// now (`now`) are those on the exit's edge, and they have left.
    pub(super) fn advance(&mut self, ctx: &'ctx z3::Context) {
        if let Some(x) = &self.exit {
            for (i, v) in x.edge.phis.iter().map(|p| &p.1).chain(x.escapes.iter()).enumerate() {
                for t in 0..2 {
                    self.values[i][t] = Term::ite(&self.now[t], &v[t], &self.values[i][t], ctx);
                }
            }
        }
        for t in 0..2 {
            self.left[t] = Bool::or(ctx, &[&self.left[t], &self.now[t]]).simplify();
        }
    }
}

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// An edge out of the loop being cut (called from [`Encoder::add_edge`]).
    pub(in crate::encode) fn capture_exit(&mut self, from: BlockId, to: BlockId, edge: Incoming<'ctx>) {
        let l = self.frames.innermost_cut().expect("a cut");
        let escapes = self.analysis.loops[l].escapes.clone();
        let vals: Vec<[Term<'ctx>; 2]> = escapes.iter().map(|v| std::array::from_fn(|t| self.value(t, Operand::Value(*v)))).collect();
        self.frames.add_exit(Exit { from, to, edge, escapes: vals });
    }

    /// A `return` executed under `pred`: inside a loop being cut, the thread leaves the loop.
    pub(in crate::encode) fn returned(&mut self, pred: &[Bool<'ctx>; 2]) {
        self.frames.add_return(pred);
    }

    /// The operands an exit carries: the target's phi operands along the edge, then the
    /// loop's escaping values.
    pub(super) fn slot_operands(&self, l: LoopId, x: &Exit<'ctx>) -> Vec<Operand> {
        let mut ops: Vec<Operand> = x
            .edge
            .phis
            .iter()
            .map(|(inst, _)| match &self.kernel.insts[*inst].kind {
                InstKind::Phi { incoming } => incoming.iter().find(|(b, _)| *b == x.from).map(|(_, o)| *o).unwrap_or(Operand::Value(*inst)),
                _ => Operand::Value(*inst),
            })
            .collect();
        ops.extend(self.analysis.loops[l].escapes.iter().map(|v| Operand::Value(*v)));
        ops
    }

    /// The slots of loop `l`'s cut: one per exit taken in the arbitrary iteration, and one for
    /// the threads that return in it.
    pub(super) fn slots(&mut self, l: LoopId, frame: &CutFrame<'ctx>) -> Vec<Slot<'ctx>> {
        let ctx = self.ctx;
        let mut out = vec![];
        for (i, x) in frame.exits.iter().enumerate() {
            let left = [self.symbols.fresh_bool(&format!("loop{l}.exit{i}$1")), self.symbols.fresh_bool(&format!("loop{l}.exit{i}$2"))];
            let widths: Vec<u16> = x
                .edge
                .phis
                .iter()
                .map(|(inst, _)| self.kernel.insts[*inst].width)
                .chain(self.analysis.loops[l].escapes.iter().map(|v| self.kernel.insts[*v].width))
                .collect();
            let values = widths
                .iter()
                .map(|w| {
                    [
                        self.symbols.fresh_term(&format!("loop{l}.exit{i}.value$1"), *w),
                        self.symbols.fresh_term(&format!("loop{l}.exit{i}.value$2"), *w),
                    ]
                })
                .collect();
            out.push(Slot { left, values, now: x.edge.pred.clone(), exit: Some(x.clone()) });
        }
        if !frame.returns.is_empty() {
            let left = [self.symbols.fresh_bool(&format!("loop{l}.returned$1")), self.symbols.fresh_bool(&format!("loop{l}.returned$2"))];
            let now = std::array::from_fn(|t| or(ctx, &frame.returns.iter().map(|r| &r[t]).collect::<Vec<_>>()).simplify());
            out.push(Slot { left, values: vec![], now, exit: None });
        }
        out
    }

    /// Candidates about the exits: both threads that entered leave by the same one, carrying
    /// the same values.
    pub(super) fn exit_candidates(&mut self, l: LoopId, slots: &[Slot<'ctx>]) -> Vec<(usize, ExitForm)> {
        let mut out = vec![];
        for (si, s) in slots.iter().enumerate() {
            let what = match &s.exit {
                Some(x) => format!("exit {} -> {} taken uniformly", x.from, x.to),
                None => "return taken uniformly".to_string(),
            };
            out.push((self.candidate(l, what, crate::encode::LogUse::None), ExitForm::SameExit { slot: si }));
            if let Some(x) = &s.exit {
                for vi in 0..s.values.len() {
                    let what = format!("exit {} -> {} value {vi} uniform", x.from, x.to);
                    out.push((self.candidate(l, what, crate::encode::LogUse::None), ExitForm::SameValue { slot: si, value: vi }));
                }
            }
        }
        out
    }

    pub(super) fn eval_exit_form(&self, f: &ExitForm, slots: &[Slot<'ctx>], entry: &[Bool<'ctx>; 2]) -> Bool<'ctx> {
        let ctx = self.ctx;
        match *f {
            ExitForm::SameExit { slot } => {
                let s = &slots[slot];
                Bool::and(ctx, &[&entry[0], &entry[1]]).implies(&s.left[0].iff(&s.left[1]))
            }
            ExitForm::SameValue { slot, value } => {
                let s = &slots[slot];
                Bool::and(ctx, &[&s.left[0], &s.left[1]]).implies(&s.values[value][0].eq(&s.values[value][1], ctx))
            }
        }
    }
}

/// A candidate about a loop's exits.
pub(super) enum ExitForm {
    /// Both threads that entered the loop left it by this slot, or neither.
    SameExit { slot: usize },
    /// Both threads that left by this slot carried the same value.
    SameValue { slot: usize, value: usize },
}
