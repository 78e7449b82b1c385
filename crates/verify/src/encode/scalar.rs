//! Scalar operations, and the dispatch of every instruction to its part of the encoder.
//!
//! Values are bit-vectors of their width (width 1: Booleans); floating point is
//! uninterpreted, as in GPUVerify (one uninterpreted function per operation and widths).

use super::{Encoder, PropKind};
use crate::divide::DivOp;
use crate::term::{const_term, resize, Term};
use crate::VerifyError;
use syncfix_kir::{AssertKind, BinOp, Builtin, CastOp, CmpPred, InstId, InstKind, LogKind, LogQuery, Operand};
use z3::ast::{Ast, Bool, Dynamic, BV};

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    pub(super) fn exec_inst(&mut self, inst: InstId, pred: &[Bool<'ctx>; 2]) -> Result<(), VerifyError> {
        let ctx = self.ctx;
        let i = &self.kernel.insts[inst];
        let width = i.width;
        match i.kind.clone() {
            InstKind::Param { index } => self.param(inst, index, width, pred),
            InstKind::Builtin(b) => {
                let v: [Term<'ctx>; 2] = std::array::from_fn(|t| {
                    let v = match b {
                        Builtin::LocalId(d) => self.symbols.tid(t).local[d as usize].clone(),
                        Builtin::GroupId(d) => self.symbols.tid(t).group[d as usize].clone(),
                        Builtin::LocalSize(d) => self.symbols.sizes()[0][d as usize].clone(),
                        Builtin::NumGroups(d) => self.symbols.sizes()[1][d as usize].clone(),
                    };
                    Term::V(resize(&v, width as u32))
                });
                self.define_both(inst, v, pred);
            }
            InstKind::Havoc => {
                let v = [self.symbols.fresh_term("havoc", width), self.symbols.fresh_term("havoc", width)];
                self.define_both(inst, v, pred);
            }
            InstKind::Bin { op, lhs, rhs } => {
                let v = std::array::from_fn(|t| match self.divide_by_constant(op, lhs, rhs, t) {
                    Some(v) => v,
                    None => {
                        let (a, b) = (self.value(t, lhs), self.value(t, rhs));
                        let constant = is_numeral(&a) && is_numeral(&b);
                        fold(self.bin(op, a, b), constant)
                    }
                });
                self.define_both(inst, v, pred);
            }
            InstKind::Cmp { pred: p, lhs, rhs } => {
                let v = std::array::from_fn(|t| {
                    let (a, b) = (self.value(t, lhs), self.value(t, rhs));
                    fold(Term::B(self.cmp(p, &a, &b)), is_numeral(&a) && is_numeral(&b))
                });
                self.define_both(inst, v, pred);
            }
            InstKind::Cast { op, arg } => {
                let v = std::array::from_fn(|t| {
                    let a = self.value(t, arg);
                    let constant = is_numeral(&a);
                    fold(self.cast(op, a, width), constant)
                });
                self.define_both(inst, v, pred);
            }
            InstKind::Select { cond, then, els } => {
                let v = std::array::from_fn(|t| {
                    let c = self.value(t, cond).to_bool(ctx);
                    Term::ite(&c, &self.value(t, then), &self.value(t, els), ctx)
                });
                self.define_both(inst, v, pred);
            }
            InstKind::Phi { .. } => unreachable!("phis are evaluated at block entry"),
            InstKind::Float { func, args } => self.float_op(inst, &func, &args, width, pred),
            InstKind::Load { ptr, width: bytes } => self.load(inst, ptr, bytes, width, pred),
            InstKind::Store { ptr, value, width: bytes } => self.store(inst, ptr, value, bytes, pred),
            InstKind::Atomic { ptr, width: bytes, .. } => self.atomic(inst, ptr, bytes, width, pred),
            InstKind::Barrier(bar) => self.barrier(inst, &bar, pred),
            InstKind::Anchor(_) => {}
            InstKind::Assert { cond, kind, global } => self.assert_inst(inst, cond, kind, global, pred),
            // Hints for invariant inference: a loop cut turns those at its head into Houdini
            // candidates; elsewhere they claim nothing.
            InstKind::Candidate { .. } => {}
            InstKind::Enabled => {
                let v = [Term::B(pred[0].clone()), Term::B(pred[1].clone())];
                self.define_both(inst, v, pred);
            }
            InstKind::Other { arg } => {
                let v = [self.value(1, arg), self.value(0, arg)];
                self.define_both(inst, v, pred);
            }
            InstKind::Old { arg } => {
                let v = std::array::from_fn(|t| self.value(t, arg));
                self.define_both(inst, v, pred);
            }
            InstKind::LogQuery { object, kind, query } => self.log_query(inst, object, kind, query, width, pred),
            InstKind::SpecLoad { ptr, width: bytes } => self.spec_load(inst, ptr, bytes, width, pred),
            InstKind::Permission { ptr, width: bytes } => {
                let off: [BV<'ctx>; 2] = std::array::from_fn(|t| self.bv(t, ptr.offset));
                self.note_access(ptr.object, &off, bytes, pred);
            }
            InstKind::Assume { cond } => self.assume_inst(cond, pred),
            InstKind::External { object, kind } => self.external(inst, object, kind, pred),
            InstKind::AtomicTaken { ptr, value } => self.atomic_taken(inst, ptr, value, pred),
            InstKind::Snapshot { dst, src } => self.array_snapshot(dst, src, pred),
            InstKind::AsyncPending { object } => self.async_pending(object, pred),
            InstKind::AsyncWait { guard } => self.async_wait(guard, pred),
        }
        Ok(())
    }

    /// The kernel's scalar parameter `index` (`width` bits): one constant for both threads.
    fn param(&mut self, inst: InstId, index: usize, width: u16, pred: &[Bool<'ctx>; 2]) {
        let k = self.kernel;
        let v = self.symbols.param(index, width, || k.params.get(index).map(|p| p.name.clone()).unwrap_or_else(|| format!("param{index}")));
        self.define_both(inst, [v.clone(), v], pred);
    }

    /// A floating-point operation `func` of `args` (`width` bits): an uninterpreted function,
    /// as in GPUVerify.
    fn float_op(&mut self, inst: InstId, func: &str, args: &[Operand], width: u16, pred: &[Bool<'ctx>; 2]) {
        let f = self.uf(func, args, width);
        let v = std::array::from_fn(|t| {
            let vals: Vec<Dynamic<'ctx>> = args
                .iter()
                .map(|a| match self.value(t, *a) {
                    Term::B(b) => Dynamic::from_ast(&b),
                    Term::V(v) => Dynamic::from_ast(&v),
                })
                .collect();
            let refs: Vec<&dyn Ast<'ctx>> = vals.iter().map(|v| v as &dyn Ast<'ctx>).collect();
            let r = self.symbols.apply(&f, &refs);
            if width == 1 {
                Term::B(r.as_bool().expect("bool range"))
            } else {
                Term::V(r.as_bv().expect("bv range"))
            }
        });
        self.define_both(inst, v, pred);
    }

    /// An `assert` of kind `kind` (a loop invariant at a cut loop's head is the cut's: checked
    /// on entry and at the end of each iteration, assumed at the head).
    fn assert_inst(&mut self, inst: InstId, cond: Operand, kind: AssertKind, global: bool, pred: &[Bool<'ctx>; 2]) {
        if kind == AssertKind::LoopInvariant && self.in_cut_header(inst) {
            // Checked on entry and at the end of each iteration by the cut, and
            // assumed at the head (crate::encode::loops).
            return;
        }
        let first_iteration = self.first_iteration();
        // A barrier invariant's reads are checked before its value.
        if kind == AssertKind::BarrierInvariant {
            self.check_barrier_invariant_reads(inst, cond, pred);
        }
        self.assertion(inst, cond, kind, global, first_iteration, pred);
    }

    /// `__read(p)`, `__write_offset_bytes(p)`...: a query on thread 1's log of `object`, for
    /// both threads (GPUVerify keeps one log, filled by thread 1).
    fn log_query(
        &mut self,
        inst: InstId,
        object: syncfix_kir::ObjectId,
        kind: LogKind,
        query: LogQuery,
        width: u16,
        pred: &[Bool<'ctx>; 2],
    ) {
        let ctx = self.ctx;
        // Thread 1's log, for both threads (GPUVerify keeps one log, filled by thread 1).
        let v = match self.state.logs(object) {
            Some(logs) => {
                let l = logs.get(crate::memory::AccessKind::of_log(kind));
                match query {
                    LogQuery::Has => Term::B(l.has.clone()),
                    LogQuery::OffsetBytes => Term::V(resize(&l.off, width as u32)),
                }
            }
            None => match query {
                LogQuery::Has => Term::B(Bool::from_bool(ctx, false)),
                LogQuery::OffsetBytes => const_term(ctx, 0, width),
            },
        };
        self.define_both(inst, [v.clone(), v], pred);
    }

    /// An `assume` of `cond` for the enabled threads.
    fn assume_inst(&mut self, cond: Operand, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let cs: Vec<Bool<'ctx>> = (0..self.threads_for(cond)).map(|t| pred[t].implies(&self.value(t, cond).to_bool(ctx))).collect();
        // A precondition at the kernel's entry (every thread enabled, before any
        // property, candidate check or loop): every formula is conditioned on it, so
        // it is also a background fact, where the solver's preprocessing can use it
        // (`__requires(width == 1920)` substituted; under an implication `width`
        // stayed symbolic, and the SDK's shfl_vertical_shfl's invariants over
        // `% width` took Z3 59 s).
        let at_entry = self.obligations.no_properties()
            && self.invariants.no_checks()
            && self.frames.none_inexact()
            && pred.iter().all(|p| p.as_bool() == Some(true));
        for c in cs {
            if at_entry {
                self.symbols.add_background(c.clone());
            }
            self.state.assume(&c);
        }
    }

    fn define_both(&mut self, inst: InstId, v: [Term<'ctx>; 2], pred: &[Bool<'ctx>; 2]) {
        for (t, x) in v.into_iter().enumerate() {
            self.define(t, inst, x, &pred[t]);
        }
    }

    /// An assertion (or a pre-/postcondition, invariant, null-pointer check): violated by an
    /// enabled thread for which `cond` is false; a `global` one whenever either thread is
    /// enabled.
    pub(super) fn assertion(
        &mut self,
        inst: InstId,
        cond: Operand,
        kind: AssertKind,
        global: bool,
        first_iteration: bool,
        pred: &[Bool<'ctx>; 2],
    ) {
        let ctx = self.ctx;
        let either = Bool::or(ctx, &[&pred[0], &pred[1]]);
        let threads = if self.opts.asymmetric_asserts { 1 } else { self.threads_for(cond) };
        for t in 0..threads {
            let c = self.value(t, cond).to_bool(ctx);
            let on = if global { &either } else { &pred[t] };
            let viol = Bool::and(ctx, &[self.state.ok(), on, &c.not()]);
            self.property(viol, PropKind::Assert { inst, thread: t, kind, first_iteration });
        }
    }

    /// How many threads a specification over `cond` is about: only thread 1 when it reads
    /// the race log (which is thread 1's).
    pub(super) fn threads_for(&self, cond: Operand) -> usize {
        match cond {
            Operand::Value(v) if self.analysis.log_dependent.contains(&v) => 1,
            _ => 2,
        }
    }

    /// The uninterpreted function for `func` (declared once); returns its cache key.
    fn uf(&mut self, func: &str, args: &[Operand], width: u16) -> String {
        let widths: Vec<u16> = args.iter().map(|a| self.kernel.width(*a)).collect();
        self.symbols.uninterpreted(func, &widths, width)
    }

    /// `lhs op rhs` for thread `t` when `op` divides by a constant, without a divider circuit
    /// ([`crate::divide`]): the quotient's definition is assumed here. `None` for any other
    /// operation and for the divisors the divider keeps.
    fn divide_by_constant(&mut self, op: BinOp, lhs: Operand, rhs: Operand, t: usize) -> Option<Term<'ctx>> {
        let div = match op {
            BinOp::UDiv => DivOp::UDiv,
            BinOp::SDiv => DivOp::SDiv,
            BinOp::URem => DivOp::URem,
            BinOp::SRem => DivOp::SRem,
            _ => return None,
        };
        let divisor = match rhs {
            Operand::Const { bits, .. } => bits as u64,
            // A divisor computed from constants (`n - 1` with `n` pinned by a precondition).
            Operand::Value(_) => match self.value(t, rhs) {
                Term::V(y) if crate::term::at_most_nodes(&y, 16) => y.simplify().as_u64()?,
                _ => return None,
            },
        };
        let Term::V(x) = self.value(t, lhs) else { return None };
        let (r, def) = self.symbols.divide_by_constant(div, &x, divisor)?;
        if let Some(def) = def {
            self.state.assume(&def);
        }
        Some(Term::V(r))
    }

    pub(super) fn cast(&self, op: CastOp, a: Term<'ctx>, width: u16) -> Term<'ctx> {
        let ctx = self.ctx;
        match (op, width) {
            (CastOp::Trunc, 1) => Term::B(a.to_bv(ctx).extract(0, 0)._eq(&BV::from_u64(ctx, 1, 1))),
            (CastOp::Trunc, w) => Term::V(a.to_bv(ctx).extract(w as u32 - 1, 0)),
            (CastOp::ZExt, w) => Term::V(a.to_bv(ctx).zero_ext(w as u32 - a.width())),
            (CastOp::SExt, w) => Term::V(a.to_bv(ctx).sign_ext(w as u32 - a.width())),
        }
    }

    pub(super) fn bin(&self, op: BinOp, a: Term<'ctx>, b: Term<'ctx>) -> Term<'ctx> {
        let ctx = self.ctx;
        if let (Term::B(x), Term::B(y)) = (&a, &b) {
            match op {
                BinOp::And | BinOp::Mul => return Term::B(Bool::and(ctx, &[x, y])),
                BinOp::Or => return Term::B(Bool::or(ctx, &[x, y])),
                BinOp::Xor | BinOp::Add | BinOp::Sub => return Term::B(x.xor(y)),
                _ => {}
            }
        }
        let (x, y) = (a.to_bv(ctx), b.to_bv(ctx));
        let r = match op {
            BinOp::Add => x.bvadd(&y),
            BinOp::Sub => x.bvsub(&y),
            BinOp::Mul => crate::term::mul(&x, &y),
            BinOp::UDiv => x.bvudiv(&y),
            BinOp::SDiv => x.bvsdiv(&y),
            BinOp::URem => x.bvurem(&y),
            BinOp::SRem => x.bvsrem(&y),
            BinOp::Shl => x.bvshl(&y),
            BinOp::LShr => x.bvlshr(&y),
            BinOp::AShr => x.bvashr(&y),
            BinOp::And => x.bvand(&y),
            BinOp::Or => x.bvor(&y),
            BinOp::Xor => x.bvxor(&y),
        };
        if r.get_size() == 1 {
            Term::B(r._eq(&BV::from_u64(ctx, 1, 1)))
        } else {
            Term::V(r)
        }
    }

    pub(super) fn cmp(&self, p: CmpPred, a: &Term<'ctx>, b: &Term<'ctx>) -> Bool<'ctx> {
        let ctx = self.ctx;
        match p {
            CmpPred::Eq => return a.eq(b, ctx),
            CmpPred::Ne => return a.eq(b, ctx).not(),
            _ => {}
        }
        let (x, y) = (a.to_bv(ctx), b.to_bv(ctx));
        match p {
            CmpPred::Ult => x.bvult(&y),
            CmpPred::Ule => x.bvule(&y),
            CmpPred::Ugt => x.bvugt(&y),
            CmpPred::Uge => x.bvuge(&y),
            CmpPred::Slt => x.bvslt(&y),
            CmpPred::Sle => x.bvsle(&y),
            CmpPred::Sgt => x.bvsgt(&y),
            CmpPred::Sge => x.bvsge(&y),
            CmpPred::Eq | CmpPred::Ne => unreachable!(),
        }
    }
}

impl crate::memory::AccessKind {
    /// The access kind a log query is about.
    pub fn of_log(k: LogKind) -> Self {
        match k {
            LogKind::Read => crate::memory::AccessKind::Read,
            LogKind::Write => crate::memory::AccessKind::Write,
            LogKind::Atomic => crate::memory::AccessKind::Atomic,
        }
    }
}

/// Whether `t` is a numeral (a Boolean or bit-vector constant).
fn is_numeral(t: &Term<'_>) -> bool {
    match t {
        Term::B(b) => b.as_bool().is_some(),
        Term::V(v) => v.is_const() && v.decl().kind() == z3::DeclKind::BNUM,
    }
}

/// `r` as a numeral when it was computed from operands that are all numerals (`constant`: a
/// loop counter's first values, `0 · 2064`), so that later products, divisions and the
/// checks of the unroller see the constant ([`crate::term::mul`], [`crate::divide`]); else
/// `r` as it is.
fn fold(r: Term<'_>, constant: bool) -> Term<'_> {
    match r {
        Term::B(b) if constant => Term::B(b.simplify()),
        Term::V(v) if constant => Term::V(v.simplify()),
        r => r,
    }
}
