//! The two-thread, predicated lock-step encoding (GPUVerify method; ESOP 2013 §4).
//!
//! Two threads with symbolic ids execute the kernel in lock-step: every block of the
//! lock-step order ([`syncfix_kir::Cfg`]) is executed by both threads under a per-thread
//! predicate; a `phi` is an `ite` over the incoming edges' predicates. Loops are unrolled
//! iteration by iteration while either thread may still be in the loop; after each iteration
//! an *unwinding check* asks the solver whether another iteration is possible (for every
//! assignment of the barrier variables). When none is, the unrolling is complete and the
//! encoding is exact; when a bound is reached, the remaining executions are cut and the
//! result can only be a bug or "no error up to the bound".
//!
//! Values defined in a loop and used after it are updated by predicated assignment
//! (`v := p ? e : v`) so that each thread keeps the value of its last iteration.

use crate::abstraction::{Abstraction, Model};
use crate::memory::{zero, AccessKind, Logs, Mem};
use crate::term::{and, bv_const, const_term, is_false, or, resize, Term};
use crate::{Limits, VerifyError, VerifyOptions};
use syncfix_kir::EntityRef;
use std::collections::{BTreeMap, HashSet};
use syncfix_kir::{
    AssertKind, BinOp, BlockId, Builtin, CastOp, Cfg, CmpPred, Fences, Guard, InstId, InstKind, Item, Kernel, LogKind,
    LogQuery, LoopId, ObjectId, Operand, Scope, Space, Span, Terminator, VarId,
};
use z3::ast::{Array, Ast, Bool, Dynamic, BV};
use z3::{Context, FuncDecl, SatResult, Solver, Sort};

/// Symbolic ids of one thread (32-bit), per dimension.
#[derive(Clone, Debug)]
pub struct ThreadSyms<'ctx> {
    pub local: [BV<'ctx>; 3],
    pub group: [BV<'ctx>; 3],
}

/// An edge taken into a block: the per-thread edge predicates and the values of the target's
/// phis along the edge.
#[derive(Clone, Debug)]
struct Incoming<'ctx> {
    pred: [Bool<'ctx>; 2],
    phis: Vec<(InstId, [Term<'ctx>; 2])>,
}

/// One execution of a memory access in the unrolled schedule.
#[derive(Clone, Debug)]
pub struct AccessInstance {
    pub inst: InstId,
    pub pos: u32,
    pub kind: AccessKind,
    pub object: ObjectId,
    /// Made by an external (specified) function, not by the kernel's code.
    pub external: bool,
}

/// One execution of a barrier in the unrolled schedule.
#[derive(Clone, Debug)]
pub struct BarrierInstance<'ctx> {
    pub inst: InstId,
    pub pos: u32,
    pub var: Option<VarId>,
    pub scope: Scope,
    pub pred: [Bool<'ctx>; 2],
    /// Thread 1's fences: orders local (shared) memory, orders global memory.
    pub local1: Bool<'ctx>,
    pub global1: Bool<'ctx>,
    /// The loops (innermost first) this instance runs in.
    pub loops: Vec<LoopId>,
}

/// What a property checks.
#[derive(Clone, Debug)]
pub enum PropKind<'ctx> {
    /// Thread 2's access `check` conflicts with thread 1's logged access of kind `logged`.
    Race { check: usize, logged: AccessKind, who: BV<'ctx>, off2: BV<'ctx> },
    /// Barrier instance `barrier` is reached by one thread and not the other.
    Divergence { barrier: usize },
    /// An assertion of thread `thread` (0 or 1) fails; `first_iteration`: in the first
    /// iteration of its innermost loop (or outside loops), for loop invariants' messages.
    Assert { inst: InstId, thread: usize, kind: AssertKind, first_iteration: bool },
    /// Thread `thread` writes constant memory.
    ConstantWrite { inst: InstId, thread: usize },
    /// Thread `thread` accesses outside its array (`off`: its byte offset).
    OutOfBounds { inst: InstId, thread: usize, off: BV<'ctx> },
}

/// A property violation condition at a schedule position.
#[derive(Clone, Debug)]
pub struct Property<'ctx> {
    pub cond: Bool<'ctx>,
    pub pos: u32,
    pub kind: PropKind<'ctx>,
}

/// A loop whose unrolling stopped at a bound before it was complete.
#[derive(Clone, Debug)]
pub struct BoundedLoop {
    pub header_span: Span,
    pub bound: u32,
    pub reason: String,
}

/// The encoder's output: a solver holding the background constraints, and the properties.
pub struct Encoding<'ctx> {
    pub solver: Solver<'ctx>,
    pub vars: Vec<Bool<'ctx>>,
    pub tid: [ThreadSyms<'ctx>; 2],
    pub same_group: Bool<'ctx>,
    pub props: Vec<Property<'ctx>>,
    pub accesses: Vec<AccessInstance>,
    pub barriers: Vec<BarrierInstance<'ctx>>,
    pub bounded: Vec<BoundedLoop>,
    pub params: Vec<(usize, Term<'ctx>)>,
    /// Loops containing each access instance's instruction, innermost first.
    pub access_loops: Vec<Vec<LoopId>>,
    /// The unwinding checks: how many, and their solver time.
    pub solver_calls: u32,
    pub solve_time: std::time::Duration,
}

pub(crate) struct Encoder<'ctx, 'k> {
    ctx: &'ctx Context,
    solver_calls: u32,
    solve_time: std::time::Duration,
    k: &'k Kernel,
    cfg: &'k Cfg,
    abs: &'k Abstraction,
    opts: &'k VerifyOptions,
    limits: Limits,
    solver: Solver<'ctx>,
    vars: Vec<Bool<'ctx>>,
    tid: [ThreadSyms<'ctx>; 2],
    same_group: Bool<'ctx>,
    params: BTreeMap<usize, Term<'ctx>>,
    // Maps holding Z3 terms are ordered: Z3 recycles the ids of released terms, so the order
    // in which Rust drops them must not vary between runs either.
    env: [BTreeMap<InstId, Term<'ctx>>; 2],
    escaping: HashSet<InstId>,
    incoming: BTreeMap<BlockId, Vec<Incoming<'ctx>>>,
    back: BTreeMap<LoopId, Vec<Incoming<'ctx>>>,
    loop_stack: Vec<LoopId>,
    /// The iteration being unrolled of each loop on the stack.
    loop_iters: Vec<u32>,
    // Ordered maps: barrier effects iterate them, and the order terms are built in must not
    // vary between runs (the same input gives the same output).
    eq: BTreeMap<ObjectId, [Mem<'ctx>; 2]>,
    private: [BTreeMap<ObjectId, Mem<'ctx>>; 2],
    logs: BTreeMap<ObjectId, Logs<'ctx>>,
    ok: Bool<'ctx>,
    props: Vec<Property<'ctx>>,
    pos: u32,
    accesses: Vec<AccessInstance>,
    access_loops: Vec<Vec<LoopId>>,
    barriers: Vec<BarrierInstance<'ctx>>,
    bounded: Vec<BoundedLoop>,
    executed: u64,
    ufs: BTreeMap<String, FuncDecl<'ctx>>,
    fresh: u32,
    /// `--warp-sync`: both threads are in one warp.
    same_warp: Option<Bool<'ctx>>,
    /// Values that depend on a query of the race log: specifications over them are about
    /// thread 1, whose log it is (GPUVerify keeps one log).
    log_dependent: HashSet<InstId>,
    /// Values returned so far by repetition-free atomics, per object: (executed, offset, value).
    used: BTreeMap<ObjectId, Vec<(Bool<'ctx>, BV<'ctx>, BV<'ctx>)>>,
}

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    pub(crate) fn new(
        ctx: &'ctx Context,
        k: &'k Kernel,
        cfg: &'k Cfg,
        abs: &'k Abstraction,
        num_vars: usize,
        opts: &'k VerifyOptions,
    ) -> Self {
        let solver = Solver::new(ctx);
        let vars = (0..num_vars).map(|i| Bool::new_const(ctx, format!("b{i}"))).collect();
        let dims = |n: &str, t: usize, size: [u32; 3]| -> [BV<'ctx>; 3] {
            std::array::from_fn(|d| {
                if size[d] == 1 {
                    BV::from_u64(ctx, 0, 32)
                } else {
                    BV::new_const(ctx, format!("{n}{}${}", ["x", "y", "z"][d], t + 1), 32)
                }
            })
        };
        let l = k.launch;
        let local = [dims("local_id_", 0, l.block_dim), dims("local_id_", 1, l.block_dim)];
        let group = if opts.only_intra_group {
            let g = dims("group_id_", 0, l.grid_dim);
            [g.clone(), g]
        } else {
            [dims("group_id_", 0, l.grid_dim), dims("group_id_", 1, l.grid_dim)]
        };
        let [l1, l2] = local;
        let [g1, g2] = group;
        let tid = [ThreadSyms { local: l1, group: g1 }, ThreadSyms { local: l2, group: g2 }];
        // Ranges and distinctness.
        let mut bg: Vec<Bool<'ctx>> = Vec::new();
        for t in &tid {
            for d in 0..3 {
                if l.block_dim[d] > 1 {
                    bg.push(t.local[d].bvult(&BV::from_u64(ctx, l.block_dim[d] as u64, 32)));
                }
                if l.grid_dim[d] > 1 {
                    bg.push(t.group[d].bvult(&BV::from_u64(ctx, l.grid_dim[d] as u64, 32)));
                }
            }
        }
        let same: Vec<Bool<'ctx>> = (0..3).map(|d| tid[0].group[d]._eq(&tid[1].group[d])).collect();
        let same_group = and(ctx, &same.iter().collect::<Vec<_>>()).simplify();
        let mut differ: Vec<Bool<'ctx>> = (0..3).map(|d| tid[0].local[d]._eq(&tid[1].local[d]).not()).collect();
        differ.push(same_group.not());
        bg.push(or(ctx, &differ.iter().collect::<Vec<_>>()));
        for c in &bg {
            solver.assert(c);
        }
        let escaping = escaping_values(k, cfg);
        let log_dependent = log_dependent_values(k);
        let same_warp = opts.warp_size.filter(|w| *w > 0).map(|w| {
            // Warps are runs of `w` consecutive linear local ids (x fastest).
            let lin = |t: &ThreadSyms<'ctx>| -> BV<'ctx> {
                let bx = BV::from_u64(ctx, l.block_dim[0] as u64, 32);
                let by = BV::from_u64(ctx, l.block_dim[1] as u64, 32);
                t.local[0].bvadd(&t.local[1].bvmul(&bx)).bvadd(&t.local[2].bvmul(&bx).bvmul(&by))
            };
            let wv = BV::from_u64(ctx, w as u64, 32);
            let same = lin(&tid[0]).bvudiv(&wv)._eq(&lin(&tid[1]).bvudiv(&wv));
            Bool::and(ctx, &[&same_group, &same]).simplify()
        });
        Encoder {
            ctx,
            solver_calls: 0,
            solve_time: std::time::Duration::ZERO,
            k,
            cfg,
            abs,
            opts,
            limits: opts.limits,
            solver,
            vars,
            tid,
            same_group,
            params: BTreeMap::new(),
            env: [BTreeMap::new(), BTreeMap::new()],
            escaping,
            same_warp,
            log_dependent,
            incoming: BTreeMap::new(),
            back: BTreeMap::new(),
            loop_stack: Vec::new(),
            loop_iters: Vec::new(),
            eq: BTreeMap::new(),
            private: [BTreeMap::new(), BTreeMap::new()],
            logs: BTreeMap::new(),
            ok: Bool::from_bool(ctx, true),
            props: Vec::new(),
            pos: 0,
            accesses: Vec::new(),
            access_loops: Vec::new(),
            barriers: Vec::new(),
            bounded: Vec::new(),
            executed: 0,
            ufs: BTreeMap::new(),
            fresh: 0,
            used: BTreeMap::new(),
        }
    }

    /// Encodes the whole kernel.
    pub(crate) fn run(mut self) -> Result<Encoding<'ctx>, VerifyError> {
        self.init_memory();
        self.incoming.insert(
            self.k.entry,
            vec![Incoming { pred: [Bool::from_bool(self.ctx, true), Bool::from_bool(self.ctx, true)], phis: vec![] }],
        );
        let order = self.cfg.top_order.clone();
        self.exec_items(&order)?;
        let params: Vec<(usize, Term<'ctx>)> = self.params.into_iter().collect();
        Ok(Encoding {
            solver: self.solver,
            vars: self.vars,
            tid: self.tid,
            same_group: self.same_group,
            props: self.props,
            accesses: self.accesses,
            barriers: self.barriers,
            bounded: self.bounded,
            params,
            access_loops: self.access_loops,
            solver_calls: self.solver_calls,
            solve_time: self.solve_time,
        })
    }

    fn fresh_name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}!{}", self.fresh)
    }

    fn init_memory(&mut self) {
        let ctx = self.ctx;
        for (o, obj) in self.k.objects.iter() {
            let g = self.abs.granule[o];
            match self.abs.model(o) {
                Model::Private => {
                    let shared = obj.uniform.then(|| Mem::fresh(ctx, &obj.name, g));
                    for t in 0..2 {
                        let m = shared.clone().unwrap_or_else(|| Mem::fresh(ctx, &format!("{}${}", obj.name, t + 1), g));
                        self.private[t].insert(o, m);
                    }
                }
                Model::Equality if obj.init.is_some() => {
                    let cells = obj.init.as_ref().map(|i| i.cells.as_slice()).unwrap_or(&[]);
                    let a = Mem::initialised(ctx, g, cells, !self.abs.written[o]);
                    self.eq.insert(o, [a.clone(), a]);
                }
                Model::Equality => {
                    let a = Mem::fresh(ctx, &obj.name, g);
                    let b = if obj.space == Space::Shared { Mem::fresh(ctx, &obj.name, g) } else { a.clone() };
                    self.eq.insert(o, [a, b]);
                }
                Model::Adversarial => {}
            }
            let checked = self.opts.check_arrays.as_ref().map_or(true, |names| names.iter().any(|n| *n == obj.name));
            if obj.space != Space::Private && obj.space != Space::Constant && self.abs.written[o] && checked {
                let bits = self.value_bits(o);
                self.logs.insert(o, Logs::new(ctx, bits));
            }
        }
    }

    /// Width in bits of logged values of an object: its widest access.
    fn value_bits(&self, o: ObjectId) -> u32 {
        let mut w = 1;
        for (_, i) in self.k.insts.iter() {
            if let Some((p, width, _, _)) = i.kind.access() {
                if p.object == o {
                    w = w.max(width);
                }
            }
        }
        (w * 8).min(1024)
    }

    fn exec_items(&mut self, items: &[Item]) -> Result<(), VerifyError> {
        for it in items {
            match *it {
                Item::Block(b) => self.exec_block(b)?,
                Item::Loop(l) => self.exec_loop(l)?,
            }
        }
        Ok(())
    }

    fn exec_loop(&mut self, l: LoopId) -> Result<(), VerifyError> {
        let ctx = self.ctx;
        let header = self.cfg.loops[l].header;
        let bounded_by_launch = loop_bounded_by_launch(self.k, self.cfg, l);
        let cap = if let Some(n) = self.opts.loop_unwind {
            n
        } else if bounded_by_launch {
            self.limits.max_unwind
        } else {
            self.limits.max_unwind_unbounded
        };
        self.loop_stack.push(l);
        self.loop_iters.push(0);
        let order = self.cfg.loop_order[l].clone();
        let mut iter = 0u32;
        loop {
            if let Some(i) = self.loop_iters.last_mut() {
                *i = iter;
            }
            let entry: [Bool<'ctx>; 2] = std::array::from_fn(|t| {
                let inc = self.incoming.get(&header).map(|v| v.as_slice()).unwrap_or(&[]);
                or(ctx, &inc.iter().map(|b| &b.pred[t]).collect::<Vec<_>>()).simplify()
            });
            self.exec_items(&order)?;
            iter += 1;
            let back = self.back.remove(&l).unwrap_or_default();
            let p: [Bool<'ctx>; 2] = std::array::from_fn(|t| {
                or(ctx, &back.iter().map(|b| &b.pred[t]).collect::<Vec<_>>()).simplify()
            });
            if is_false(&p[0]) && is_false(&p[1]) {
                break;
            }
            let again = Bool::or(ctx, &[&p[0], &p[1]]);
            let possible = if iter >= cap || (p[0] == entry[0] && p[1] == entry[1]) {
                // The same threads go round again: no need to ask the solver.
                true
            } else {
                self.solver.set_params(&crate::solver_params(ctx, self.opts)?);
                self.solver.push();
                self.solver.assert(&Bool::and(ctx, &[&self.ok, &again]));
                let start = std::time::Instant::now();
                let r = self.solver.check();
                self.solve_time += start.elapsed();
                self.solver_calls += 1;
                self.solver.pop(1);
                crate::check_deadline(self.opts)?;
                r != SatResult::Unsat
            };
            if iter >= cap && possible {
                let span = self.header_span(header);
                let reason = if self.opts.loop_unwind.is_some() {
                    format!("loop unwinding bound {cap} reached")
                } else if bounded_by_launch {
                    format!("the loop runs more than {cap} iterations")
                } else {
                    "its trip count does not depend only on constants and launch dimensions".to_string()
                };
                self.bounded.push(BoundedLoop { header_span: span, bound: cap, reason });
                // Executions that would run another iteration are cut off.
                self.ok = Bool::and(ctx, &[&self.ok, &again.not()]);
                break;
            }
            if !possible {
                break;
            }
            // Next iteration: the back edges enter the header.
            for b in self.cfg.loops[l].blocks.iter() {
                self.incoming.remove(b);
            }
            self.incoming.insert(header, back);
        }
        self.loop_stack.pop();
        self.loop_iters.pop();
        Ok(())
    }

    fn header_span(&self, header: BlockId) -> Span {
        let blk = &self.k.blocks[header];
        blk.insts.first().map(|i| self.k.insts[*i].span.clone()).unwrap_or_else(|| blk.term_span.clone())
    }

    fn exec_block(&mut self, b: BlockId) -> Result<(), VerifyError> {
        crate::check_deadline(self.opts)?;
        let ctx = self.ctx;
        let inc = self.incoming.remove(&b).unwrap_or_default();
        if inc.is_empty() {
            return Ok(());
        }
        let pred: [Bool<'ctx>; 2] =
            std::array::from_fn(|t| or(ctx, &inc.iter().map(|i| &i.pred[t]).collect::<Vec<_>>()).simplify());
        if is_false(&pred[0]) && is_false(&pred[1]) {
            return Ok(());
        }
        let blk = &self.k.blocks[b];
        self.executed += blk.insts.len() as u64 + 1;
        if self.executed > self.limits.max_instructions {
            return Err(VerifyError::TooLarge(self.limits.max_instructions));
        }
        // Phis: an ite over the incoming edges.
        let n_phis = blk.insts.iter().take_while(|i| matches!(self.k.insts[**i].kind, InstKind::Phi { .. })).count();
        for (pi, &inst) in blk.insts[..n_phis].iter().enumerate() {
            for t in 0..2 {
                let mut val: Option<Term<'ctx>> = None;
                for e in inc.iter().rev() {
                    let v = &e.phis[pi].1[t];
                    val = Some(match val {
                        None => v.clone(),
                        Some(rest) => Term::ite(&e.pred[t], v, &rest, ctx),
                    });
                }
                let v = val.expect("incoming edge");
                self.define(t, inst, v, &pred[t]);
            }
        }
        for &inst in &blk.insts[n_phis..] {
            self.pos += 1;
            self.exec_inst(inst, &pred)?;
        }
        self.pos += 1;
        self.exec_term(b, &pred)
    }

    fn exec_term(&mut self, b: BlockId, pred: &[Bool<'ctx>; 2]) -> Result<(), VerifyError> {
        let ctx = self.ctx;
        match self.k.blocks[b].term.clone() {
            Terminator::Br(s) => self.contribute(b, s, pred.clone()),
            Terminator::CondBr { cond, then, els } => {
                let c: [Bool<'ctx>; 2] = std::array::from_fn(|t| self.value(t, cond).to_bool(ctx));
                let pt = std::array::from_fn(|t| Bool::and(ctx, &[&pred[t], &c[t]]).simplify());
                let pe = std::array::from_fn(|t| Bool::and(ctx, &[&pred[t], &c[t].not()]).simplify());
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
                let w = self.k.width(value);
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
                    let p = std::array::from_fn(|t| Bool::and(ctx, &[&pred[t], &conds[t]]).simplify());
                    self.contribute(b, s, p);
                }
                let pd = std::array::from_fn(|t| {
                    let none = or(ctx, &any[t].iter().collect::<Vec<_>>()).not();
                    Bool::and(ctx, &[&pred[t], &none]).simplify()
                });
                self.contribute(b, default, pd);
            }
            Terminator::Return => {}
            Terminator::Unreachable => {
                // Executions that reach this point are not considered.
                self.ok = Bool::and(ctx, &[&self.ok, &pred[0].not(), &pred[1].not()]);
            }
        }
        Ok(())
    }

    /// Records the edge `from -> to` with per-thread predicates `pred`.
    fn contribute(&mut self, from: BlockId, to: BlockId, pred: [Bool<'ctx>; 2]) {
        if is_false(&pred[0]) && is_false(&pred[1]) {
            return;
        }
        let mut phis = Vec::new();
        for &inst in &self.k.blocks[to].insts {
            if let InstKind::Phi { incoming } = &self.k.insts[inst].kind {
                let op = incoming.iter().find(|(b, _)| *b == from).map(|(_, o)| *o);
                let vals: [Term<'ctx>; 2] = std::array::from_fn(|t| match op {
                    Some(o) => self.value(t, o),
                    None => self.undef(inst),
                });
                phis.push((inst, vals));
            } else {
                break;
            }
        }
        let e = Incoming { pred, phis };
        // A back edge of a loop being unrolled feeds that loop's next iteration.
        if let Some(l) = self.cfg.loop_of[to] {
            if self.cfg.loops[l].header == to && self.cfg.in_loop(from, l) {
                self.back.entry(l).or_default().push(e);
                return;
            }
        }
        self.incoming.entry(to).or_default().push(e);
    }

    fn undef(&self, inst: InstId) -> Term<'ctx> {
        let w = self.k.insts[inst].width;
        const_term(self.ctx, 0, w)
    }

    fn define(&mut self, t: usize, inst: InstId, v: Term<'ctx>, pred: &Bool<'ctx>) {
        let v = if self.escaping.contains(&inst) {
            match self.env[t].get(&inst) {
                Some(old) => Term::ite(pred, &v, old, self.ctx),
                None => v,
            }
        } else {
            v
        };
        self.env[t].insert(inst, v);
    }

    /// The current value of an operand for thread `t`.
    pub(crate) fn value(&self, t: usize, o: Operand) -> Term<'ctx> {
        match o {
            Operand::Const { width, bits } => const_term(self.ctx, bits, width),
            Operand::Value(v) => match self.env[t].get(&v) {
                Some(x) => x.clone(),
                // A use not dominated by an executed definition (dead for this thread).
                None => self.undef(v),
            },
        }
    }

    fn bv(&self, t: usize, o: Operand) -> BV<'ctx> {
        self.value(t, o).to_bv(self.ctx)
    }

    fn fresh_term(&mut self, prefix: &str, width: u16) -> Term<'ctx> {
        let name = self.fresh_name(prefix);
        if width == 1 {
            Term::B(Bool::new_const(self.ctx, name))
        } else {
            Term::V(BV::new_const(self.ctx, name, width as u32))
        }
    }

    fn exec_inst(&mut self, inst: InstId, pred: &[Bool<'ctx>; 2]) -> Result<(), VerifyError> {
        let ctx = self.ctx;
        let i = &self.k.insts[inst];
        let width = i.width;
        match i.kind.clone() {
            InstKind::Param { index } => {
                let v = match self.params.get(&index) {
                    Some(v) => v.clone(),
                    None => {
                        let name = format!("{}", self.k.params.get(index).map(|p| p.name.as_str()).unwrap_or("param"));
                        let v = if width == 1 {
                            Term::B(Bool::new_const(ctx, name))
                        } else {
                            Term::V(BV::new_const(ctx, name, width as u32))
                        };
                        self.params.insert(index, v.clone());
                        v
                    }
                };
                for t in 0..2 {
                    self.define(t, inst, v.clone(), &pred[t]);
                }
            }
            InstKind::Builtin(b) => {
                for t in 0..2 {
                    let v = match b {
                        Builtin::LocalId(d) => self.tid[t].local[d as usize].clone(),
                        Builtin::GroupId(d) => self.tid[t].group[d as usize].clone(),
                    };
                    self.define(t, inst, Term::V(resize(&v, width as u32)), &pred[t]);
                }
            }
            InstKind::Havoc => {
                for t in 0..2 {
                    let v = self.fresh_term("havoc", width);
                    self.define(t, inst, v, &pred[t]);
                }
            }
            InstKind::Bin { op, lhs, rhs } => {
                for t in 0..2 {
                    let v = self.bin(op, self.value(t, lhs), self.value(t, rhs));
                    self.define(t, inst, v, &pred[t]);
                }
            }
            InstKind::Cmp { pred: p, lhs, rhs } => {
                for t in 0..2 {
                    let v = Term::B(self.cmp(p, &self.value(t, lhs), &self.value(t, rhs)));
                    self.define(t, inst, v, &pred[t]);
                }
            }
            InstKind::Cast { op, arg } => {
                for t in 0..2 {
                    let a = self.value(t, arg);
                    let v = match (op, width) {
                        (CastOp::Trunc, 1) => Term::B(a.to_bv(ctx).extract(0, 0)._eq(&BV::from_u64(ctx, 1, 1))),
                        (CastOp::Trunc, w) => Term::V(a.to_bv(ctx).extract(w as u32 - 1, 0)),
                        (CastOp::ZExt, w) => Term::V(a.to_bv(ctx).zero_ext(w as u32 - a.width())),
                        (CastOp::SExt, w) => Term::V(a.to_bv(ctx).sign_ext(w as u32 - a.width())),
                    };
                    self.define(t, inst, v, &pred[t]);
                }
            }
            InstKind::Select { cond, then, els } => {
                for t in 0..2 {
                    let c = self.value(t, cond).to_bool(ctx);
                    let v = Term::ite(&c, &self.value(t, then), &self.value(t, els), ctx);
                    self.define(t, inst, v, &pred[t]);
                }
            }
            InstKind::Phi { .. } => unreachable!("phis are evaluated at block entry"),
            InstKind::Float { func, args } => {
                let f = self.uf(&func, &args, width);
                for t in 0..2 {
                    let vals: Vec<Dynamic<'ctx>> = args
                        .iter()
                        .map(|a| match self.value(t, *a) {
                            Term::B(b) => Dynamic::from_ast(&b),
                            Term::V(v) => Dynamic::from_ast(&v),
                        })
                        .collect();
                    let refs: Vec<&dyn Ast<'ctx>> = vals.iter().map(|v| v as &dyn Ast<'ctx>).collect();
                    let r = self.ufs[&f].apply(&refs);
                    let v = if width == 1 {
                        Term::B(r.as_bool().expect("bool range"))
                    } else {
                        Term::V(r.as_bv().expect("bv range"))
                    };
                    self.define(t, inst, v, &pred[t]);
                }
            }
            InstKind::Load { ptr, width: bytes } => {
                let off: [BV<'ctx>; 2] = std::array::from_fn(|t| self.bv(t, ptr.offset));
                self.bounds(inst, ptr.object, &off, bytes, pred);
                let vals: [BV<'ctx>; 2] = std::array::from_fn(|t| self.read(t, ptr.object, &off[t], bytes));
                for t in 0..2 {
                    let v = if width == 1 {
                        Term::B(vals[t].extract(0, 0)._eq(&BV::from_u64(ctx, 1, 1)))
                    } else {
                        Term::V(resize(&vals[t], width as u32))
                    };
                    self.define(t, inst, v, &pred[t]);
                }
                self.race(inst, AccessKind::Read, ptr.object, &off, bytes, &vals, &vals, pred);
            }
            InstKind::Store { ptr, value, width: bytes } => {
                self.constant_write(inst, ptr.object, pred);
                let off: [BV<'ctx>; 2] = std::array::from_fn(|t| self.bv(t, ptr.offset));
                self.bounds(inst, ptr.object, &off, bytes, pred);
                let vals: [BV<'ctx>; 2] = std::array::from_fn(|t| resize(&self.bv(t, value), bytes * 8));
                let old: [BV<'ctx>; 2] = std::array::from_fn(|t| self.read(t, ptr.object, &off[t], bytes));
                self.race(inst, AccessKind::Write, ptr.object, &off, bytes, &vals, &old, pred);
                for t in 0..2 {
                    self.write(t, ptr.object, &off[t], &vals[t], bytes, &pred[t]);
                }
            }
            InstKind::Atomic { ptr, width: bytes, .. } => {
                self.constant_write(inst, ptr.object, pred);
                let off: [BV<'ctx>; 2] = std::array::from_fn(|t| self.bv(t, ptr.offset));
                self.bounds(inst, ptr.object, &off, bytes, pred);
                let z = [zero(ctx, bytes * 8), zero(ctx, bytes * 8)];
                self.race(inst, AccessKind::Atomic, ptr.object, &off, bytes, &z, &z, pred);
                // The old value: arbitrary (atomically accessed arrays are adversarial) ...
                let vals: [Term<'ctx>; 2] = std::array::from_fn(|_| self.fresh_term("atomic", width));
                if self.abs.repetition_free[ptr.object] && width > 1 {
                    // ... except that a repetition-free atomic never returns the same value
                    // twice at one offset (NFM 2014 §4.2).
                    let z: [BV<'ctx>; 2] = std::array::from_fn(|t| vals[t].to_bv(ctx));
                    let mut facts: Vec<Bool<'ctx>> = vec![];
                    let both = Bool::and(ctx, &[&pred[0], &pred[1], &off[0]._eq(&off[1])]);
                    facts.push(both.implies(&z[0]._eq(&z[1]).not()));
                    let used = self.used.entry(ptr.object).or_default();
                    for (ran, o, v) in used.iter() {
                        for t in 0..2 {
                            let same = Bool::and(ctx, &[ran, &pred[t], &o._eq(&off[t])]);
                            facts.push(same.implies(&z[t]._eq(v).not()));
                        }
                    }
                    for t in 0..2 {
                        used.push((pred[t].clone(), off[t].clone(), z[t].clone()));
                    }
                    let mut all = vec![&self.ok];
                    all.extend(facts.iter());
                    self.ok = Bool::and(ctx, &all);
                }
                for (t, v) in vals.into_iter().enumerate() {
                    self.define(t, inst, v, &pred[t]);
                }
            }
            InstKind::Barrier(bar) => self.barrier(inst, &bar, pred),
            InstKind::Anchor(_) => {}
            InstKind::Assert { cond, kind, global } => {
                let first_iteration = self.loop_iters.last().map_or(true, |i| *i == 0);
                let either = Bool::or(ctx, &[&pred[0], &pred[1]]);
                let threads = if self.opts.asymmetric_asserts { 1 } else { self.threads_for(cond) };
                for t in 0..threads {
                    let c = self.value(t, cond).to_bool(ctx);
                    let on = if global { &either } else { &pred[t] };
                    let viol = Bool::and(ctx, &[&self.ok, on, &c.not()]).simplify();
                    if !is_false(&viol) {
                        self.props.push(Property {
                            cond: viol,
                            pos: self.pos,
                            kind: PropKind::Assert { inst, thread: t, kind, first_iteration },
                        });
                    }
                }
            }
            InstKind::Candidate { .. } => {}
            InstKind::Enabled => {
                for t in 0..2 {
                    self.define(t, inst, Term::B(pred[t].clone()), &pred[t]);
                }
            }
            InstKind::Other { arg } => {
                let v: [Term<'ctx>; 2] = [self.value(1, arg), self.value(0, arg)];
                for (t, x) in v.into_iter().enumerate() {
                    self.define(t, inst, x, &pred[t]);
                }
            }
            InstKind::Old { arg } => {
                for t in 0..2 {
                    let v = self.value(t, arg);
                    self.define(t, inst, v, &pred[t]);
                }
            }
            InstKind::LogQuery { object, kind, query } => {
                // Thread 1's log, for both threads (GPUVerify keeps one log, filled by thread 1).
                let v = match self.logs.get(&object) {
                    Some(logs) => {
                        let l = logs.get(match kind {
                            LogKind::Read => AccessKind::Read,
                            LogKind::Write => AccessKind::Write,
                            LogKind::Atomic => AccessKind::Atomic,
                        });
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
                for t in 0..2 {
                    self.define(t, inst, v.clone(), &pred[t]);
                }
            }
            InstKind::SpecLoad { ptr, width: bytes } => {
                for t in 0..2 {
                    let off = self.bv(t, ptr.offset);
                    let raw = self.read(t, ptr.object, &off, bytes);
                    let v = if width == 1 {
                        Term::B(raw.extract(0, 0)._eq(&BV::from_u64(ctx, 1, 1)))
                    } else {
                        Term::V(resize(&raw, width as u32))
                    };
                    self.define(t, inst, v, &pred[t]);
                }
            }
            InstKind::Assume { cond } => {
                let cs: Vec<Bool<'ctx>> =
                    (0..self.threads_for(cond)).map(|t| pred[t].implies(&self.value(t, cond).to_bool(ctx))).collect();
                let mut all = vec![&self.ok];
                all.extend(cs.iter());
                self.ok = Bool::and(ctx, &all).simplify();
            }
            InstKind::External { object, kind } => self.external(inst, object, kind, pred),
            InstKind::AtomicTaken { ptr, value } => {
                for t in 0..2 {
                    let off = self.bv(t, ptr.offset);
                    let v = self.bv(t, value);
                    let taken = if self.abs.repetition_free[ptr.object] {
                        let used = self.used.get(&ptr.object).map(|u| u.as_slice()).unwrap_or(&[]);
                        let hits: Vec<Bool<'ctx>> = used
                            .iter()
                            .map(|(ran, o, z)| Bool::and(ctx, &[ran, &o._eq(&off), &z._eq(&resize(&v, z.get_size()))]))
                            .collect();
                        or(ctx, &hits.iter().collect::<Vec<_>>())
                    } else {
                        // No `used` map: nothing is known.
                        Bool::new_const(ctx, self.fresh_name("atomic_taken"))
                    };
                    self.define(t, inst, Term::B(taken), &pred[t]);
                }
            }
            InstKind::Snapshot { dst, src } => self.snapshot(dst, src, pred),
        }
        Ok(())
    }

    /// The uninterpreted function for `func` (declared once); returns its cache key.
    /// How many threads a specification over `cond` is about: only thread 1 when it reads
    /// the race log (which is thread 1's).
    fn threads_for(&self, cond: Operand) -> usize {
        match cond {
            Operand::Value(v) if self.log_dependent.contains(&v) => 1,
            _ => 2,
        }
    }

    /// An external function's access (`__writes_to(p)`, `__reads_from(p)`): thread 1's log may
    /// now hold it at any offset; a write leaves the contents arbitrary.
    fn external(&mut self, inst: InstId, o: ObjectId, kind: LogKind, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let access = match kind {
            LogKind::Read => AccessKind::Read,
            LogKind::Write => AccessKind::Write,
            LogKind::Atomic => AccessKind::Atomic,
        };
        if self.logs.contains_key(&o) {
            let who = self.accesses.len() as u32;
            self.accesses.push(AccessInstance { inst, pos: self.pos, kind: access, object: o, external: true });
            let loops = self.enclosing_loops(self.k.insts[inst].block);
            self.access_loops.push(loops);
            let choose = Bool::new_const(ctx, self.fresh_name("log"));
            let cond = Bool::and(ctx, &[&pred[0], &choose]);
            let width = self.k.objects[o].elem_size.max(1);
            // An element of the array (GPUVerify's offsets are element indices).
            let index = BV::new_const(ctx, self.fresh_name("external_index"), 64);
            let off = index.bvmul(&BV::from_u64(ctx, width as u64, 64));
            let bits = self.logs[&o].read.value.get_size();
            let value = BV::new_const(ctx, self.fresh_name("external_value"), bits);
            let changed = Bool::new_const(ctx, self.fresh_name("external_changed"));
            let logs = self.logs.get_mut(&o).expect("logs");
            logs.get_mut(access).log(ctx, &cond, &off, width, &value, &changed, who);
        }
        if kind == LogKind::Write {
            if let Some(copies) = self.eq.get_mut(&o) {
                let name = self.k.objects[o].name.clone();
                let g = copies[0].granule;
                let fresh = Mem::fresh(ctx, &name, g);
                let either = Bool::or(ctx, &[&pred[0], &pred[1]]);
                for c in copies.iter_mut() {
                    c.arr = either.ite(&fresh.arr, &c.arr);
                    c.table = None;
                }
            }
        }
    }

    /// `--check-array-bounds`: an access of `bytes` bytes at `off` must lie within its array,
    /// when the array's size is known.
    fn bounds(&mut self, inst: InstId, o: ObjectId, off: &[BV<'ctx>; 2], bytes: u32, pred: &[Bool<'ctx>; 2]) {
        if !self.opts.array_bounds {
            return;
        }
        let obj = &self.k.objects[o];
        if obj.dims.is_empty() || obj.dims.iter().any(|d| *d == 0) {
            return;
        }
        let size: u64 = obj.dims.iter().product::<u64>() * obj.elem_size as u64;
        let ctx = self.ctx;
        for t in 0..2 {
            let end = off[t].bvadd(&BV::from_u64(ctx, bytes as u64, 64));
            // Negative offsets wrap to large unsigned values, so one unsigned test suffices.
            let inside = Bool::and(ctx, &[&end.bvule(&BV::from_u64(ctx, size, 64)), &off[t].bvult(&BV::from_u64(ctx, size, 64))]);
            let cond = Bool::and(ctx, &[&self.ok, &pred[t], &inside.not()]).simplify();
            if !is_false(&cond) {
                self.props.push(Property { cond, pos: self.pos, kind: PropKind::OutOfBounds { inst, thread: t, off: off[t].clone() } });
            }
        }
    }

    /// Writing constant memory is an error (GPUVerify: "possible attempt to modify constant
    /// memory").
    fn constant_write(&mut self, inst: InstId, o: ObjectId, pred: &[Bool<'ctx>; 2]) {
        if self.k.objects[o].space != Space::Constant {
            return;
        }
        for t in 0..2 {
            let cond = Bool::and(self.ctx, &[&self.ok, &pred[t]]).simplify();
            if !is_false(&cond) {
                self.props.push(Property { cond, pos: self.pos, kind: PropKind::ConstantWrite { inst, thread: t } });
            }
        }
    }

    fn uf(&mut self, func: &str, args: &[Operand], width: u16) -> String {
        let ctx = self.ctx;
        let widths: Vec<u16> = args.iter().map(|a| self.k.width(*a)).collect();
        let key = format!("{func}:{widths:?}:{width}");
        if self.ufs.contains_key(&key) {
            return key;
        }
        let sort = |w: u16| if w == 1 { Sort::bool(ctx) } else { Sort::bitvector(ctx, w as u32) };
        let dom: Vec<Sort<'ctx>> = widths.iter().map(|w| sort(*w)).collect();
        let dom_refs: Vec<&Sort<'ctx>> = dom.iter().collect();
        let f = FuncDecl::new(ctx, key.clone(), &dom_refs, &sort(width));
        self.ufs.insert(key.clone(), f);
        key
    }

    fn bin(&self, op: BinOp, a: Term<'ctx>, b: Term<'ctx>) -> Term<'ctx> {
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
            BinOp::Mul => x.bvmul(&y),
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

    fn cmp(&self, p: CmpPred, a: &Term<'ctx>, b: &Term<'ctx>) -> Bool<'ctx> {
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

    /// The equality-abstraction copy thread `t` uses for object `o`: thread 2 shares thread
    /// 1's copy of shared memory only when both are in the same group.
    fn eq_copy(&self, t: usize, o: ObjectId) -> Option<Mem<'ctx>> {
        let [a, b] = self.eq.get(&o)?;
        if t == 0 || self.k.objects[o].space != Space::Shared {
            return Some(a.clone());
        }
        Some(Mem { arr: self.same_group.ite(&a.arr, &b.arr), granule: a.granule, table: None })
    }

    fn read(&mut self, t: usize, o: ObjectId, off: &BV<'ctx>, bytes: u32) -> BV<'ctx> {
        let ctx = self.ctx;
        match self.abs.model(o) {
            Model::Private => self.private[t][&o].read(ctx, off, bytes),
            Model::Equality => self.eq_copy(t, o).expect("equality array").read(ctx, off, bytes),
            Model::Adversarial => {
                let name = self.fresh_name(&format!("{}$read", self.k.objects[o].name));
                BV::new_const(ctx, name, bytes * 8)
            }
        }
    }

    /// `__array_snapshot(dst, src)`: `dst`'s contents become `src`'s for each thread that
    /// executes it. When the two are modelled differently (or with different granules), `dst`
    /// gets arbitrary contents instead: an over-approximation.
    fn snapshot(&mut self, dst: ObjectId, src: ObjectId, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let same = self.abs.model(dst) == self.abs.model(src) && self.abs.granule[dst] == self.abs.granule[src];
        match self.abs.model(dst) {
            Model::Adversarial => {}
            Model::Private => {
                for t in 0..2 {
                    let new = if same {
                        self.private[t][&src].arr.clone()
                    } else {
                        let g = self.private[t][&dst].granule;
                        Mem::fresh(ctx, &self.k.objects[dst].name, g).arr
                    };
                    let m = self.private[t].get_mut(&dst).expect("private array");
                    m.arr = pred[t].ite(&new, &m.arr);
                    m.table = None;
                }
            }
            Model::Equality => {
                let either = Bool::or(ctx, &[&pred[0], &pred[1]]);
                let sources: [Array<'ctx>; 2] = if same {
                    let s = self.eq.get(&src).expect("equality array");
                    [s[0].arr.clone(), s[1].arr.clone()]
                } else {
                    let g = self.eq[&dst][0].granule;
                    let f = Mem::fresh(ctx, &self.k.objects[dst].name, g).arr;
                    [f.clone(), f]
                };
                let copies = self.eq.get_mut(&dst).expect("equality array");
                for (c, s) in copies.iter_mut().zip(sources) {
                    c.arr = either.ite(&s, &c.arr);
                    c.table = None;
                }
            }
        }
    }

    fn write(&mut self, t: usize, o: ObjectId, off: &BV<'ctx>, v: &BV<'ctx>, bytes: u32, pred: &Bool<'ctx>) {
        let ctx = self.ctx;
        match self.abs.model(o) {
            Model::Private => {
                let m = self.private[t].get_mut(&o).expect("private array");
                let new = m.write(ctx, off, v, bytes);
                m.arr = pred.ite(&new, &m.arr);
            }
            Model::Equality => {
                let shared = self.k.objects[o].space == Space::Shared;
                let sg = self.same_group.clone();
                let copies = self.eq.get_mut(&o).expect("equality array");
                if t == 0 || !shared {
                    let new = copies[0].write(ctx, off, v, bytes);
                    copies[0].arr = pred.ite(&new, &copies[0].arr);
                    if !shared {
                        copies[1] = copies[0].clone();
                    }
                } else {
                    let in_a = Bool::and(ctx, &[pred, &sg]);
                    let in_b = Bool::and(ctx, &[pred, &sg.not()]);
                    let new_a = copies[0].write(ctx, off, v, bytes);
                    let new_b = copies[1].write(ctx, off, v, bytes);
                    copies[0].arr = in_a.ite(&new_a, &copies[0].arr);
                    copies[1].arr = in_b.ite(&new_b, &copies[1].arr);
                }
            }
            Model::Adversarial => {}
        }
    }

    /// Thread 1 logs the access; thread 2's access is checked against the logs (GPUVerify's
    /// `_LOG_*`, `_UPDATE_WRITE_READ_BENIGN_FLAG_*`, `_CHECK_*`).
    #[allow(clippy::too_many_arguments)]
    fn race(
        &mut self,
        inst: InstId,
        kind: AccessKind,
        o: ObjectId,
        off: &[BV<'ctx>; 2],
        bytes: u32,
        vals: &[BV<'ctx>; 2],
        old: &[BV<'ctx>; 2],
        pred: &[Bool<'ctx>; 2],
    ) {
        let ctx = self.ctx;
        if !self.logs.contains_key(&o) {
            return;
        }
        let who = self.accesses.len() as u32;
        self.accesses.push(AccessInstance { inst, pos: self.pos, kind, object: o, external: false });
        let loops = self.enclosing_loops(self.k.insts[inst].block);
        self.access_loops.push(loops);
        let choose = Bool::new_const(ctx, self.fresh_name("log"));
        let cond = Bool::and(ctx, &[&pred[0], &choose]);
        let changed = vals[0]._eq(&old[0]).not();
        let benign = self.opts.benign_tolerance;
        let shared = self.k.objects[o].space == Space::Shared;
        let logs = self.logs.get_mut(&o).expect("logs");
        logs.get_mut(kind).log(ctx, &cond, &off[0], bytes, &vals[0], &changed, who);
        if kind == AccessKind::Write && benign {
            // Thread 2 overwrote the cell of thread 1's logged write itself.
            let w = &mut logs.write;
            let hit = Bool::and(ctx, &[&pred[1], &w.has, &w.off._eq(&off[1])]);
            w.changed = Bool::and(ctx, &[&w.changed, &hit.not()]);
        }
        let logs = logs.clone();
        let conflicts: &[AccessKind] = match kind {
            AccessKind::Read => &[AccessKind::Write, AccessKind::Atomic],
            AccessKind::Write => &[AccessKind::Read, AccessKind::Write, AccessKind::Atomic],
            AccessKind::Atomic => &[AccessKind::Read, AccessKind::Write],
        };
        for &lk in conflicts {
            if !self.opts.race_checks {
                break;
            }
            let l = logs.get(lk);
            if is_false(&l.has) {
                continue;
            }
            let mut parts: Vec<Bool<'ctx>> = vec![self.ok.clone(), pred[1].clone(), l.has.clone(), l.overlaps(ctx, &off[1], bytes)];
            if shared {
                parts.push(self.same_group.clone());
            }
            if benign {
                let same = l.same_cell(ctx, &off[1], bytes);
                let tolerated = match (lk, kind) {
                    (AccessKind::Write, AccessKind::Write) | (AccessKind::Read, AccessKind::Write) => {
                        Some(Bool::and(ctx, &[&same, &l.value_is(&vals[1])]))
                    }
                    (AccessKind::Write, AccessKind::Read) => Some(Bool::and(ctx, &[&same, &l.changed.not()])),
                    _ => None,
                };
                if let Some(tol) = tolerated {
                    parts.push(tol.not());
                }
            }
            let cond = and(ctx, &parts.iter().collect::<Vec<_>>()).simplify();
            if is_false(&cond) {
                continue;
            }
            self.props.push(Property {
                cond,
                pos: self.pos,
                kind: PropKind::Race { check: who as usize, logged: lk, who: l.who.clone(), off2: off[1].clone() },
            });
        }
        // Warp-synchronous execution: two threads of one warp are in step after every
        // instruction, so what thread 1 logged no longer conflicts with thread 2.
        if let Some(same_warp) = self.same_warp.clone() {
            if let Some(logs) = self.logs.get_mut(&o) {
                logs.clear(&same_warp);
            }
        }
    }

    fn enclosing_loops(&self, b: BlockId) -> Vec<LoopId> {
        let mut v = vec![];
        let mut l = self.cfg.loop_of[b];
        while let Some(x) = l {
            v.push(x);
            l = self.cfg.loops[x].parent;
        }
        v
    }

    fn barrier(&mut self, inst: InstId, bar: &syncfix_kir::Barrier, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let guard = match bar.guard {
            Guard::Always => Bool::from_bool(ctx, true),
            Guard::Var(v) => self.vars[v.index()].clone(),
        };
        let fence = |t: usize, bit: u64| -> Bool<'ctx> {
            match bar.fences {
                Fences::Const { local, global } => Bool::from_bool(ctx, if bit == 1 { local } else { global }),
                Fences::Dynamic(o) => {
                    let v = self.bv(t, o);
                    v.bvand(&bv_const(ctx, bit as u128, v.get_size()))._eq(&bv_const(ctx, 0, v.get_size())).not()
                }
            }
        };
        let (lf, gf): ([Bool<'ctx>; 2], [Bool<'ctx>; 2]) =
            (std::array::from_fn(|t| fence(t, 1)), std::array::from_fn(|t| fence(t, 2)));
        let scope_pair = match bar.scope {
            Scope::Block => self.same_group.clone(),
            Scope::Grid => Bool::from_bool(ctx, true),
        };
        // Barrier divergence: one thread of the pair reaches it, the other does not.
        let div = and(ctx, &[&self.ok, &guard, &scope_pair, &pred[0].xor(&pred[1])]).simplify();
        let idx = self.barriers.len();
        self.barriers.push(BarrierInstance {
            inst,
            pos: self.pos,
            var: match bar.guard {
                Guard::Var(v) => Some(v),
                Guard::Always => None,
            },
            scope: bar.scope,
            pred: pred.clone(),
            local1: lf[0].clone(),
            global1: gf[0].clone(),
            loops: self.enclosing_loops(self.k.insts[inst].block),
        });
        if !is_false(&div) {
            self.props.push(Property { cond: div, pos: self.pos, kind: PropKind::Divergence { barrier: idx } });
        }
        let both = and(ctx, &[&guard, &pred[0], &pred[1]]);
        let (clear_local, clear_global) = match bar.scope {
            Scope::Grid => (both.clone(), both.clone()),
            Scope::Block => (
                Bool::and(ctx, &[&both, &lf[0]]),
                Bool::and(ctx, &[&both, &gf[0], &self.same_group]),
            ),
        };
        let ids: Vec<ObjectId> = self.logs.keys().copied().collect();
        for o in ids {
            let c = if self.k.objects[o].space == Space::Shared { &clear_local } else { &clear_global };
            self.logs.get_mut(&o).expect("logs").clear(c);
        }
        // Equality-abstracted arrays are havocked when the barrier may let other threads'
        // writes become visible.
        let (havoc_shared, havoc_global) = match bar.scope {
            Scope::Grid => (both.clone(), both.clone()),
            Scope::Block => {
                let p1l = Bool::and(ctx, &[&pred[0], &lf[0]]);
                let p2l = Bool::and(ctx, &[&pred[1], &lf[1]]);
                let sh = Bool::and(ctx, &[&guard, &Bool::or(ctx, &[&p1l, &p2l])]);
                let g = Bool::and(ctx, &[&both, &self.same_group, &Bool::or(ctx, &[&gf[0], &gf[1]])]);
                (sh, g)
            }
        };
        let eq_ids: Vec<ObjectId> = self.eq.keys().copied().collect();
        for o in eq_ids {
            let shared = self.k.objects[o].space == Space::Shared;
            if self.k.objects[o].space == Space::Constant || !self.abs.written[o] {
                continue;
            }
            let h = if shared { &havoc_shared } else { &havoc_global };
            if is_false(&h.simplify()) {
                continue;
            }
            let name = self.k.objects[o].name.clone();
            let g = self.abs.granule[o];
            let fa = Mem::fresh(ctx, &name, g);
            let fb = if shared { Mem::fresh(ctx, &name, g) } else { fa.clone() };
            let copies = self.eq.get_mut(&o).expect("equality array");
            copies[0].arr = h.ite(&fa.arr, &copies[0].arr);
            copies[1].arr = h.ite(&fb.arr, &copies[1].arr);
            copies[0].table = None;
            copies[1].table = None;
        }
    }
}

/// Values defined in a loop and used outside it (they need predicated updates).
fn escaping_values(k: &Kernel, cfg: &Cfg) -> HashSet<InstId> {
    let mut out = HashSet::new();
    for (_, inst) in k.insts.iter() {
        let user_block = inst.block;
        for o in inst.kind.operands() {
            if let Operand::Value(v) = o {
                let def = k.insts[v].block;
                if let Some(l) = cfg.loop_of[def] {
                    if !cfg.in_loop(user_block, l) {
                        out.insert(v);
                    }
                }
            }
        }
    }
    for (b, blk) in k.blocks.iter() {
        let ops: Vec<Operand> = match &blk.term {
            Terminator::CondBr { cond, .. } => vec![*cond],
            Terminator::Switch { value, .. } => vec![*value],
            _ => vec![],
        };
        for o in ops {
            if let Operand::Value(v) = o {
                let def = k.insts[v].block;
                if let Some(l) = cfg.loop_of[def] {
                    if !cfg.in_loop(b, l) {
                        out.insert(v);
                    }
                }
            }
        }
    }
    out
}

/// Whether the exit conditions of a loop depend only on constants, launch dimensions and
/// thread ids (then full unrolling terminates; the criterion for a proof by
/// unrolling). Conditions that depend on parameters, memory or havocked values may not.
fn loop_bounded_by_launch(k: &Kernel, cfg: &Cfg, l: LoopId) -> bool {
    let mut conds: Vec<Operand> = vec![];
    for &b in &cfg.loops[l].blocks {
        let succs = k.blocks[b].term.successors();
        if succs.iter().any(|s| !cfg.in_loop(*s, l)) {
            match &k.blocks[b].term {
                Terminator::CondBr { cond, .. } => conds.push(*cond),
                Terminator::Switch { value, .. } => conds.push(*value),
                _ => {}
            }
        }
    }
    let mut seen: HashSet<InstId> = HashSet::new();
    let mut work: Vec<Operand> = conds;
    while let Some(o) = work.pop() {
        let Operand::Value(v) = o else { continue };
        if !seen.insert(v) {
            continue;
        }
        match &k.insts[v].kind {
            InstKind::Param { .. } | InstKind::Havoc | InstKind::Load { .. } | InstKind::Atomic { .. } | InstKind::Float { .. } => {
                return false
            }
            other => work.extend(other.operands()),
        }
    }
    true
}

/// Values computed from a query of the race log (`__write(p)`, `__read_offset_bytes(p)`...).
fn log_dependent_values(k: &Kernel) -> HashSet<InstId> {
    let mut out: HashSet<InstId> = HashSet::new();
    loop {
        let before = out.len();
        for (id, inst) in k.insts.iter() {
            if out.contains(&id) {
                continue;
            }
            let dep = matches!(inst.kind, InstKind::LogQuery { .. })
                || inst.kind.operands().iter().any(|o| matches!(o, Operand::Value(v) if out.contains(v)));
            if dep && inst.width > 0 {
                out.insert(id);
            }
        }
        if out.len() == before {
            return out;
        }
    }
}
