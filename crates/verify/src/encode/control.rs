//! Control: per-thread block predicates, edges and phis over the lock-step order
//! (Collingbourne et al., ESOP 2013 §4: predicated execution of a reducible CFG).

use super::state::Incoming;
use super::Encoder;
use crate::term::{const_term, is_false, or, Term};
use crate::VerifyError;
use syncfix_kir::{BlockId, InstId, InstKind, Item, Operand, Terminator};
use z3::ast::Bool;

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    pub(super) fn exec_items(&mut self, items: &[Item]) -> Result<(), VerifyError> {
        for it in items {
            match *it {
                Item::Block(b) => self.exec_block(b)?,
                Item::Loop(l) => self.exec_loop(l)?,
            }
        }
        Ok(())
    }

    /// The per-thread disjunction of some edges' predicates.
    pub(super) fn join(&self, edges: &[Incoming<'ctx>]) -> [Bool<'ctx>; 2] {
        std::array::from_fn(|t| crate::term::simplify_small(or(self.ctx, &edges.iter().map(|e| &e.pred[t]).collect::<Vec<_>>())))
    }

    /// The value of phi number `pi` of a block entered by `edges`, per thread: an `ite` over
    /// the edges' predicates.
    pub(super) fn phi_value(&self, edges: &[Incoming<'ctx>], pi: usize) -> [Term<'ctx>; 2] {
        std::array::from_fn(|t| {
            let mut val: Option<Term<'ctx>> = None;
            for e in edges.iter().rev() {
                let v = &e.phis[pi].1[t];
                val = Some(match val {
                    None => v.clone(),
                    Some(rest) => Term::ite(&e.pred[t], v, &rest, self.ctx),
                });
            }
            val.expect("an incoming edge")
        })
    }

    /// The number of phis at the start of block `b`.
    pub(super) fn phi_count(&self, b: BlockId) -> usize {
        self.kernel.blocks[b].insts.iter().take_while(|i| matches!(self.kernel.insts[**i].kind, InstKind::Phi { .. })).count()
    }

    pub(super) fn exec_block(&mut self, b: BlockId) -> Result<(), VerifyError> {
        self.check_deadline()?;
        let inc = self.schedule.take_incoming(b);
        self.schedule.forget_predicate(b);
        if inc.is_empty() {
            return Ok(());
        }
        // A block control-equivalent to an executed dominator has its predicate
        // (`reconverge`): the same threads, without the formulas of what lies between.
        let pred = match self.schedule.equivalent_predicate(b) {
            Some(p) => p,
            None => self.join(&inc),
        };
        self.schedule.set_predicate(b, pred.clone());
        if is_false(&pred[0]) && is_false(&pred[1]) {
            return Ok(());
        }
        let blk = &self.kernel.blocks[b];
        self.budget.execute(blk.insts.len() as u64 + 1)?;
        let n_phis = self.phi_count(b);
        for pi in 0..n_phis {
            let inst = self.kernel.blocks[b].insts[pi];
            let v = self.phi_value(&inc, pi);
            for (t, x) in v.into_iter().enumerate() {
                self.define(t, inst, x, &pred[t]);
            }
        }
        let insts = self.kernel.blocks[b].insts[n_phis..].to_vec();
        for inst in insts {
            self.schedule.advance();
            self.exec_inst(inst, &pred)?;
        }
        self.schedule.advance();
        self.exec_term(b, &pred)
    }

    fn exec_term(&mut self, b: BlockId, pred: &[Bool<'ctx>; 2]) -> Result<(), VerifyError> {
        let ctx = self.ctx;
        match self.kernel.blocks[b].term.clone() {
            Terminator::Br(s) => self.contribute(b, s, pred.clone()),
            Terminator::CondBr { cond, then, els } => {
                let c: [Bool<'ctx>; 2] = std::array::from_fn(|t| self.value(t, cond).to_bool(ctx));
                // Simplified only while small: Z3's simplifier walks the whole term, and a
                // predicate over memory that barrier variables may havoc grows with the
                // loop's unrolled iterations (HeCBench's match, instrumented for a repair:
                // 24 GB in `Z3_simplify` before the encoding ended).
                let pt = std::array::from_fn(|t| crate::term::simplify_small(Bool::and(ctx, &[&pred[t], &c[t]])));
                let pe = std::array::from_fn(|t| crate::term::simplify_small(Bool::and(ctx, &[&pred[t], &c[t].not()])));
                if then == els {
                    self.contribute(b, then, pred.clone());
                } else {
                    self.contribute(b, then, pt);
                    self.contribute(b, els, pe);
                }
            }
            Terminator::Switch { value, default, cases } => {
                let v: [Term<'ctx>; 2] = std::array::from_fn(|t| self.value(t, value));
                let mut targets: Vec<BlockId> = vec![];
                for (_, s) in &cases {
                    if !targets.contains(s) {
                        targets.push(*s);
                    }
                }
                let w = self.kernel.width(value);
                let hit = |t: usize, c: u128| v[t].eq(&const_term(ctx, c, w), ctx);
                let mut any: [Vec<Bool<'ctx>>; 2] = [vec![], vec![]];
                for s in targets {
                    let conds: [Bool<'ctx>; 2] = std::array::from_fn(|t| {
                        let hs: Vec<Bool<'ctx>> = cases.iter().filter(|(_, x)| *x == s).map(|(c, _)| hit(t, *c)).collect();
                        or(ctx, &hs.iter().collect::<Vec<_>>())
                    });
                    for t in 0..2 {
                        any[t].push(conds[t].clone());
                    }
                    let p = std::array::from_fn(|t| crate::term::simplify_small(Bool::and(ctx, &[&pred[t], &conds[t]])));
                    self.contribute(b, s, p);
                }
                let pd = std::array::from_fn(|t| {
                    let none = or(ctx, &any[t].iter().collect::<Vec<_>>()).not();
                    crate::term::simplify_small(Bool::and(ctx, &[&pred[t], &none]))
                });
                self.contribute(b, default, pd);
            }
            Terminator::Return => self.returned(pred),
            Terminator::Unreachable => {
                // Executions that reach this point are not considered.
                let c = Bool::and(ctx, &[&pred[0].not(), &pred[1].not()]);
                self.state.assume(&c);
            }
        }
        Ok(())
    }

    /// Records the edge `from -> to` with per-thread predicates `pred`; the target's phis take
    /// their operands along the edge.
    pub(super) fn contribute(&mut self, from: BlockId, to: BlockId, pred: [Bool<'ctx>; 2]) {
        if is_false(&pred[0]) && is_false(&pred[1]) {
            return;
        }
        let mut phis = Vec::new();
        let insts = self.kernel.blocks[to].insts.clone();
        for inst in insts {
            let InstKind::Phi { incoming } = &self.kernel.insts[inst].kind else { break };
            let op = incoming.iter().find(|(b, _)| *b == from).map(|(_, o)| *o);
            let vals: [Term<'ctx>; 2] = match op {
                Some(o) => std::array::from_fn(|t| self.value(t, o)),
                // No operand for this predecessor: an arbitrary value (LLVM `undef`).
                None => {
                    let w = self.kernel.insts[inst].width;
                    [self.symbols.fresh_term("phi_undef", w), self.symbols.fresh_term("phi_undef", w)]
                }
            };
            phis.push((inst, vals));
        }
        self.add_edge(from, to, Incoming { pred, phis });
    }

    /// Adds an edge whose phi values are known.
    pub(super) fn add_edge(&mut self, from: BlockId, to: BlockId, e: Incoming<'ctx>) {
        // An edge leaving the loop being cut is an exit of its arbitrary iteration.
        if let Some(l) = self.frames.innermost_cut() {
            if self.cfg.in_loop(from, l) && !self.cfg.in_loop(to, l) {
                self.capture_exit(from, to, e);
                return;
            }
        }
        // A back edge of a loop being executed feeds that loop's next iteration.
        if let Some(l) = self.cfg.loop_of[to] {
            if self.cfg.loops[l].header == to && self.cfg.in_loop(from, l) {
                self.schedule.add_back(l, e);
                return;
            }
        }
        self.schedule.add_incoming(to, e);
    }

    /// Defines the value of `inst` for thread `t`. A value used after the loop it is defined
    /// in keeps the value of the thread's last execution (`v := p ? e : v`).
    pub(super) fn define(&mut self, t: usize, inst: InstId, v: Term<'ctx>, pred: &Bool<'ctx>) {
        let v = if self.analysis.escaping.contains(&inst) {
            match self.state.value(t, inst) {
                Some(old) => Term::ite(pred, &v, old, self.ctx),
                None => v,
            }
        } else {
            v
        };
        self.state.set_value(t, inst, v);
    }

    /// The current value of an operand for thread `t`.
    pub(super) fn value(&self, t: usize, o: Operand) -> Term<'ctx> {
        match o {
            Operand::Const { width, bits } => const_term(self.ctx, bits, width),
            Operand::Value(v) => match self.state.value(t, v) {
                Some(x) => x.clone(),
                // A use with no executed definition: the thread does not execute here (both
                // threads skipped the defining block), so any value will do; an arbitrary
                // one, never a guess.
                None => {
                    let w = self.kernel.insts[v].width;
                    let name = format!("undefined!{}${}", v.as_u32(), t + 1);
                    if w == 1 {
                        Term::B(Bool::new_const(self.ctx, name))
                    } else {
                        Term::V(z3::ast::BV::new_const(self.ctx, name, w as u32))
                    }
                }
            },
        }
    }

    pub(super) fn bv(&self, t: usize, o: Operand) -> z3::ast::BV<'ctx> {
        self.value(t, o).to_bv(self.ctx)
    }
}
