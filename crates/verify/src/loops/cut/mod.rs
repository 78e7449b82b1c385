//! A loop cut at its head: one *arbitrary* iteration of the two threads in lock-step.
//!
//! On entry the invariants (the user's `__invariant`s and the Houdini candidates) are checked.
//! Then everything the loop modifies is havocked — each thread's loop predicate and header
//! phis, the memory it writes, the race logs it may change — and the invariants are assumed;
//! the body is executed once; at the end of the iteration the invariants are checked again for
//! the threads that go round (Betts et al., OOPSLA 2012 §4; the lock-step form of the loop
//! follows ESOP 2013 §4: the loop runs while either thread is in it).
//!
//! The arbitrary iteration is also the *last* one when neither thread goes round: the code
//! after the loop continues from its end state under that assumption. A thread that left the
//! loop in an earlier iteration left by one of the loop's exits with the values it had then;
//! those (which exit, and the values it carried) are part of the havocked state, constrained by
//! the candidates, and updated when a thread leaves in this iteration.
//!
//! Race logs at the head hold either the entry's logged access, unchanged, or an access of an
//! earlier iteration of this loop: the latter is tied to a *ghost* copy of that iteration (the
//! head state and the fresh values of the body renamed), in which thread 1 executed the access
//! at the offset, with the value, it logged, and in which the invariants held. This is
//! GPUVerify's access-pattern candidates made exact: the logged offset is the access's offset
//! expression in some earlier iteration.

use super::candidates::Form;
use crate::encode::{CandidateCheck, CutLoop, Encoder, Incoming, LoopCtx, PropKind};
use crate::memory::{AccessKind, Log};
use crate::term::{and, is_false, or, Term};
use crate::VerifyError;
use syncfix_kir::{AssertKind, BlockId, InstId, InstKind, LoopId, ObjectId, Operand, Space};
use z3::ast::{Ast, Bool, Dynamic, BV};

/// An edge leaving the loop being cut, taken in its arbitrary iteration.
#[derive(Clone, Debug)]
pub(crate) struct Exit<'ctx> {
    from: BlockId,
    to: BlockId,
    edge: Incoming<'ctx>,
    /// The values of the loop's escaping values ([`crate::analysis::LoopInfo::escapes`]) when
    /// the edge was taken.
    escapes: Vec<[Term<'ctx>; 2]>,
}

/// The loop being cut: the exits and returns of its arbitrary iteration.
#[derive(Clone, Debug)]
pub(crate) struct CutFrame<'ctx> {
    pub l: LoopId,
    exits: Vec<Exit<'ctx>>,
    returns: Vec<[Bool<'ctx>; 2]>,
}

/// A user's invariant or candidate at a loop head, evaluated on one state.
#[derive(Clone, Debug)]
pub(crate) struct SpecValue<'ctx> {
    pub inst: InstId,
    pub candidate: bool,
    pub global: bool,
    /// The condition for each thread it is about (only thread 1 for one over the race log).
    pub cond: Vec<Bool<'ctx>>,
}

impl<'ctx> SpecValue<'ctx> {
    /// The spec holds for every thread it is about that is in the loop.
    pub fn holds(&self, ctx: &'ctx z3::Context, pred: &[Bool<'ctx>; 2]) -> Bool<'ctx> {
        let either = Bool::or(ctx, &[&pred[0], &pred[1]]);
        let parts: Vec<Bool<'ctx>> =
            self.cond.iter().enumerate().map(|(t, c)| (if self.global { &either } else { &pred[t] }).implies(c)).collect();
        and(ctx, &parts.iter().collect::<Vec<_>>())
    }
}

/// A loop's head state: which threads are in the loop, the header phis, and the user's
/// specs evaluated on it (logs and memory are the encoder's current state).
#[derive(Clone, Debug)]
pub(crate) struct View<'ctx> {
    pub pred: [Bool<'ctx>; 2],
    pub phis: Vec<[Term<'ctx>; 2]>,
    pub specs: Vec<SpecValue<'ctx>>,
    /// The condition to stay in the loop, when the header can be evaluated again.
    pub guard: Option<[Bool<'ctx>; 2]>,
}

/// Which exit a thread left the loop by (or that it returned), and the values it carried.
struct Slot<'ctx> {
    /// The havocked state: the thread left in an earlier iteration.
    left: [Bool<'ctx>; 2],
    /// The exit's phi values and the loop's escaping values, havocked.
    values: Vec<[Term<'ctx>; 2]>,
    /// The exit taken in this iteration (None: the returns).
    exit: Option<Exit<'ctx>>,
    /// Taken in this iteration.
    now: [Bool<'ctx>; 2],
}

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// An edge out of the loop being cut (called from [`Encoder::add_edge`]).
    pub(crate) fn capture_exit(&mut self, from: BlockId, to: BlockId, edge: Incoming<'ctx>) {
        let l = self.cuts.last().expect("a cut").l;
        let escapes = self.an.loops[l].escapes.clone();
        let vals: Vec<[Term<'ctx>; 2]> =
            escapes.iter().map(|v| std::array::from_fn(|t| self.value(t, Operand::Value(*v)))).collect();
        self.cuts.last_mut().expect("a cut").exits.push(Exit { from, to, edge, escapes: vals });
    }

    /// A `return` executed under `pred`: inside a loop being cut, the thread leaves the loop.
    pub(crate) fn returned(&mut self, pred: &[Bool<'ctx>; 2]) {
        if let Some(f) = self.cuts.last_mut() {
            f.returns.push(pred.clone());
        }
    }

    /// The user's specs at loop `l`'s head, and the condition to stay in the loop (when the
    /// header's instructions can be evaluated again), evaluated with the header phis set to
    /// `phis`, on the current state.
    fn eval_head(
        &mut self,
        l: LoopId,
        pred: &[Bool<'ctx>; 2],
        phis: &[[Term<'ctx>; 2]],
    ) -> Result<(Vec<SpecValue<'ctx>>, Option<[Bool<'ctx>; 2]>), VerifyError> {
        let ctx = self.ctx;
        let info = self.an.loops[l].clone();
        let guard = info.guard.clone().filter(|_| self.opts.infer);
        if info.specs.is_empty() && guard.is_none() {
            return Ok((vec![], None));
        }
        if let (Some(i), false) = (info.impure_prefix, info.specs.is_empty()) {
            let file = std::path::Path::new(&self.k.files[syncfix_kir::FileId::MAIN].path);
            let file = file.file_name().map_or_else(|| file.display().to_string(), |f| f.to_string_lossy().into_owned());
            let at = self.k.insts[i].span.in_main().map(|l| format!("{file}:{}:{}", l.line, l.col)).unwrap_or(file);
            return Err(VerifyError::Unsupported(format!(
                "the invariants of the loop at {at} stay unproved: they depend on a memory access or call at the loop's head, which cannot be evaluated on entry to the loop"
            )));
        }
        let saved = self.st.env.clone();
        for (pi, &phi) in info.phis.iter().enumerate() {
            for t in 0..2 {
                self.st.env[t].insert(phi, phis[pi][t].clone());
            }
        }
        let insts = match &guard {
            Some((all, _, _)) => all.clone(),
            None => info.spec_prefix.clone(),
        };
        let mut out = vec![];
        for inst in insts {
            match self.k.insts[inst].kind.clone() {
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
        self.st.env = saved;
        Ok((out, stay))
    }

    /// Checks the user's invariants on a view: on entry (`first_iteration`) or at the end of an
    /// iteration.
    fn check_invariants(&mut self, v: &View<'ctx>, first_iteration: bool) {
        let ctx = self.ctx;
        for s in v.specs.iter().filter(|s| !s.candidate) {
            let either = Bool::or(ctx, &[&v.pred[0], &v.pred[1]]);
            for (t, c) in s.cond.iter().enumerate() {
                let on = if s.global { &either } else { &v.pred[t] };
                let viol = Bool::and(ctx, &[&self.st.ok, on, &c.not()]);
                self.property(viol, PropKind::Assert { inst: s.inst, thread: t, kind: AssertKind::LoopInvariant, first_iteration });
            }
        }
    }

    /// Checks candidates on a view (violated when the candidate is on and false).
    fn check_candidates(&mut self, cands: &[(usize, Form<'ctx>)], v: &View<'ctx>, entry: &[Bool<'ctx>; 2], guard: &Bool<'ctx>) {
        let ctx = self.ctx;
        for (c, f) in cands {
            let holds = self.eval_form(f, v, entry);
            let lit = self.candidates[*c].lit.clone();
            let cond = Bool::and(ctx, &[&self.st.ok, guard, &lit, &holds.not()]).simplify();
            if !is_false(&cond) {
                self.cand_checks.push(CandidateCheck { cand: *c, cond });
            }
        }
    }

    /// Cuts loop `l` (see the module documentation).
    pub(crate) fn cut_loop(&mut self, l: LoopId) -> Result<(), VerifyError> {
        let ctx = self.ctx;
        let header = self.cfg.loops[l].header;
        let info = self.an.loops[l].clone();
        let entry_edges = self.incoming.remove(&header).unwrap_or_default();
        let entry = self.join(&entry_edges);
        if entry_edges.is_empty() || (is_false(&entry[0]) && is_false(&entry[1])) {
            return Ok(());
        }
        self.pos += 1;
        self.cut.push(CutLoop { loop_id: l, header_span: self.header_span(header) });
        let n_phis = info.phis.len();
        let entry_phis: Vec<[Term<'ctx>; 2]> = (0..n_phis).map(|pi| self.phi_value(&entry_edges, pi)).collect();

        // The logs and objects the loop may change.
        let logged: Vec<ObjectId> =
            self.st.logs.keys().copied().filter(|o| info.has_barrier || info.accessed.contains(o)).collect();
        let log_kinds: Vec<(ObjectId, AccessKind)> = logged
            .iter()
            .flat_map(|o| [AccessKind::Read, AccessKind::Write, AccessKind::Atomic].map(|k| (*o, k)))
            .collect();
        let cands = self.loop_candidates(l, &entry_phis, &log_kinds);

        // On entry.
        let (specs, guard) = self.eval_head(l, &entry, &entry_phis)?;
        let entry_view = View { pred: entry.clone(), phis: entry_phis.clone(), specs, guard };
        self.check_invariants(&entry_view, true);
        let t = Bool::from_bool(ctx, true);
        self.check_candidates(&cands, &entry_view, &entry, &t);

        // Havoc the loop's modset.
        self.push_fresh_frame();
        self.permissions_at_cut();
        let pre_logs = self.st.logs.clone();
        // A uniform loop keeps both threads that entered it together; a uniform phi is one
        // value for both threads in the loop (the uniformity analysis).
        // (Within a group: the same for threads of one group, as a value computed from the
        // group id.)
        let uniform = self.un.uniform_loop[l];
        let uniform_in_group = self.un_group.uniform_loop[l];
        let pred: [Bool<'ctx>; 2] = if uniform {
            let h = self.fresh_bool(&format!("loop{l}.active"));
            std::array::from_fn(|t| Bool::and(ctx, &[&h, &entry[t]]).simplify())
        } else if uniform_in_group {
            let h = [self.fresh_bool(&format!("loop{l}.active$1")), self.fresh_bool(&format!("loop{l}.active$2"))];
            let h2 = self.same_group.ite(&h[0], &h[1]);
            [Bool::and(ctx, &[&h[0], &entry[0]]).simplify(), Bool::and(ctx, &[&h2, &entry[1]]).simplify()]
        } else {
            std::array::from_fn(|t| self.fresh_bool(&format!("loop{l}.active${}", t + 1)))
        };
        let phis: Vec<[Term<'ctx>; 2]> = info
            .phis
            .iter()
            .map(|&p| {
                let w = self.k.insts[p].width;
                if self.un.is_uniform(p) {
                    let v = self.fresh_term(&format!("{p}"), w);
                    [v.clone(), v]
                } else if self.un_group.is_uniform(p) {
                    let v = [self.fresh_term(&format!("{p}$1"), w), self.fresh_term(&format!("{p}$2"), w)];
                    let v2 = Term::ite(&self.same_group, &v[0], &v[1], ctx);
                    [v[0].clone(), v2]
                } else {
                    [self.fresh_term(&format!("{p}$1"), w), self.fresh_term(&format!("{p}$2"), w)]
                }
            })
            .collect();
        self.havoc_memory(l);
        for &o in &logged {
            let bits = self.an.value_bits[o];
            let fresh = [AccessKind::Read, AccessKind::Write, AccessKind::Atomic].map(|k| self.fresh_log(o, k, bits));
            let [read, write, atomic] = fresh;
            self.st.logs.insert(o, crate::memory::Logs { read, write, atomic });
        }
        let head_logs = self.st.logs.clone();
        for &o in &info.atomic_objects {
            let bits = self.an.value_bits[o];
            let name = format!("{}.taken!{l}.{}", self.k.objects[o].name, self.cut.len());
            let dom = [z3::Sort::bitvector(ctx, 32), z3::Sort::bitvector(ctx, 64), z3::Sort::bitvector(ctx, bits)];
            let f = z3::FuncDecl::new(ctx, name, &[&dom[0], &dom[1], &dom[2]], &z3::Sort::bool(ctx));
            self.st.used.insert(o, crate::encode::state::Used { entries: vec![], window: 0, history: Some(std::rc::Rc::new(f)), history_stale: false });
        }
        let mut head_facts: Vec<Bool<'ctx>> = vec![];
        for t in 0..2 {
            head_facts.push(pred[t].implies(&entry[t]));
        }
        let nobody_entered = Bool::and(ctx, &[&entry[0].not(), &entry[1].not()]);
        head_facts.push(Bool::or(ctx, &[&pred[0], &pred[1], &nobody_entered]));
        let (specs, guard) = self.eval_head(l, &pred, &phis)?;
        let head = View { pred: pred.clone(), phis: phis.clone(), specs, guard };
        for s in head.specs.iter().filter(|s| !s.candidate) {
            head_facts.push(s.holds(ctx, &pred));
        }
        for (c, f) in &cands {
            let holds = self.eval_form(f, &head, &entry);
            head_facts.push(self.candidates[*c].lit.implies(&holds));
        }
        for f in &head_facts {
            self.st.assume(f);
        }
        // The logs' facts need the body's accesses: stated after the body, through `logs_ok`.
        let logs_ok = self.fresh_bool(&format!("loop{l}.logs"));
        self.st.assume(&logs_ok);

        // The arbitrary iteration.
        let acc_lo = self.accesses.len();
        self.cuts.push(CutFrame { l, exits: vec![], returns: vec![] });
        self.loops.push(LoopCtx { iter: None });
        let header_phis: Vec<(InstId, [Term<'ctx>; 2])> = info.phis.iter().copied().zip(phis.iter().cloned()).collect();
        self.incoming.insert(header, vec![Incoming { pred: pred.clone(), phis: header_phis }]);
        let order = self.cfg.loop_order[l].clone();
        let r = self.exec_items(&order);
        self.loops.pop();
        let frame = self.cuts.pop().expect("the cut's frame");
        r?;
        let acc_hi = self.accesses.len();

        // The end of the iteration.
        let back = self.back.remove(&l).unwrap_or_default();
        let again = self.join(&back);
        // A thread's header phis keep their values once it left the loop (as GPUVerify's
        // variables do): a user's invariant may speak of the threads that left.
        let back_phis: Vec<[Term<'ctx>; 2]> = if back.is_empty() {
            phis.clone()
        } else {
            (0..n_phis)
                .map(|pi| {
                    let v = self.phi_value(&back, pi);
                    std::array::from_fn(|t| Term::ite(&again[t], &v[t], &phis[pi][t], ctx))
                })
                .collect()
        };
        let mut slots = self.slots(l, &frame);
        // A thread that left earlier carried its (kept) header phi values.
        for s in &slots {
            let Some(x) = &s.exit else { continue };
            for (i, o) in self.slot_operands(l, x).iter().enumerate() {
                let Operand::Value(v) = o else { continue };
                if let Some(pi) = info.phis.iter().position(|p| p == v) {
                    for t in 0..2 {
                        let f = s.left[t].implies(&s.values[i][t].eq(&phis[pi][t], ctx));
                        self.st.assume(&f);
                    }
                }
            }
        }
        // Each thread that entered is in the loop, or left it by exactly one exit (or returned).
        for t in 0..2 {
            let mut states: Vec<&Bool<'ctx>> = vec![&pred[t]];
            states.extend(slots.iter().map(|s| &s.left[t]));
            let mut facts = vec![or(ctx, &states).implies(&entry[t]), entry[t].implies(&or(ctx, &states))];
            for i in 0..states.len() {
                for j in i + 1..states.len() {
                    facts.push(Bool::and(ctx, &[states[i], states[j]]).not());
                }
            }
            for f in facts {
                self.st.assume(&f);
            }
        }
        // A uniform loop: both threads that entered leave by the same exit, carrying the same
        // uniform values.
        if uniform || uniform_in_group {
            let mut both = Bool::and(ctx, &[&entry[0], &entry[1]]);
            if !uniform {
                both = Bool::and(ctx, &[&both, &self.same_group]);
            }
            let un = if uniform { &self.un } else { &self.un_group };
            let mut facts = vec![];
            for s in &slots {
                facts.push(both.implies(&s.left[0].iff(&s.left[1])));
                if let Some(x) = &s.exit {
                    let ops = self.slot_operands(l, x);
                    let mut left = Bool::and(ctx, &[&s.left[0], &s.left[1]]);
                    if !uniform {
                        left = Bool::and(ctx, &[&left, &self.same_group]);
                    }
                    for (i, o) in ops.iter().enumerate() {
                        if matches!(o, Operand::Const { .. }) || matches!(o, Operand::Value(v) if un.is_uniform(*v)) {
                            facts.push(left.implies(&s.values[i][0].eq(&s.values[i][1], ctx)));
                        }
                    }
                }
            }
            for f in facts {
                self.st.assume(&f);
            }
        }
        // Candidates on the exits: both threads leave by the same exit, with the same values.
        let exit_cands = if self.opts.infer && !uniform { self.exit_candidates(l, &slots) } else { vec![] };
        for (c, f) in &exit_cands {
            let holds = self.eval_exit_form(f, &slots, &entry);
            let lit = self.candidates[*c].lit.clone();
            self.st.assume(&lit.implies(&holds));
        }
        // The end state of the slots.
        for s in &mut slots {
            if let Some(x) = &s.exit {
                for (i, v) in x.edge.phis.iter().map(|p| &p.1).chain(x.escapes.iter()).enumerate() {
                    for t in 0..2 {
                        s.values[i][t] = Term::ite(&s.now[t], &v[t], &s.values[i][t], ctx);
                    }
                }
            }
            for t in 0..2 {
                s.left[t] = Bool::or(ctx, &[&s.left[t], &s.now[t]]).simplify();
            }
        }
        // At the end of the iteration, for the threads that go round.
        let goes_round = Bool::or(ctx, &[&again[0], &again[1]]);
        if !is_false(&goes_round) {
            let (specs, guard) = self.eval_head(l, &again, &back_phis)?;
            let end = View { pred: again.clone(), phis: back_phis.clone(), specs, guard };
            self.check_invariants(&end, false);
            self.check_candidates(&cands, &end, &entry, &goes_round);
            for (c, f) in &exit_cands {
                let holds = self.eval_exit_form(f, &slots, &entry);
                let lit = self.candidates[*c].lit.clone();
                let cond = Bool::and(ctx, &[&self.st.ok, &goes_round, &lit, &holds.not()]).simplify();
                if !is_false(&cond) {
                    self.cand_checks.push(CandidateCheck { cand: *c, cond });
                }
            }
        }
        // The logs at the head.
        let body_fresh = self.pop_fresh_frame();
        let head_fact = and(ctx, &head_facts.iter().collect::<Vec<_>>());
        let mut log_facts = vec![];
        for &o in &logged {
            for kind in [AccessKind::Read, AccessKind::Write, AccessKind::Atomic] {
                let h = head_logs[&o].get(kind).clone();
                let p = pre_logs[&o].get(kind).clone();
                let body = Body { head_fact: &head_fact, fresh: &body_fresh, accesses: acc_lo..acc_hi };
                let f = self.log_fact(o, kind, &h, &p, &body);
                log_facts.push(f);
            }
        }
        self.solver.assert(&logs_ok.implies(&and(ctx, &log_facts.iter().collect::<Vec<_>>())));

        // After the loop: this iteration was the last one.
        self.st.assume(&Bool::and(ctx, &[&again[0].not(), &again[1].not()]));
        for (i, &v) in info.escapes.iter().enumerate() {
            for t in 0..2 {
                let mut val: Option<Term<'ctx>> = None;
                for s in slots.iter().rev().filter(|s| s.exit.is_some()) {
                    let n_phis = s.exit.as_ref().map_or(0, |x| x.edge.phis.len());
                    let x = &s.values[n_phis + i][t];
                    val = Some(match val {
                        None => x.clone(),
                        Some(rest) => Term::ite(&s.left[t], x, &rest, ctx),
                    });
                }
                // A header phi's value after the loop is the one it kept.
                if let Some(pi) = info.phis.iter().position(|p| *p == v) {
                    val = Some(back_phis[pi][t].clone());
                }
                if let Some(x) = val {
                    self.st.env[t].insert(v, x);
                }
            }
        }
        for s in slots {
            let Some(x) = s.exit else { continue };
            let n = x.edge.phis.len();
            let phis = x.edge.phis.iter().enumerate().map(|(i, (inst, _))| (*inst, s.values[i].clone())).collect();
            let _ = n;
            self.add_edge(x.from, x.to, Incoming { pred: s.left, phis });
        }
        Ok(())
    }

    /// Havocs the memory loop `l` may write: its written objects, and every written
    /// equality-abstracted object when it contains a barrier.
    fn havoc_memory(&mut self, l: LoopId) {
        let info = &self.an.loops[l];
        let mut objs: Vec<ObjectId> = info.written.iter().copied().collect();
        if info.has_barrier {
            objs.extend(self.st.eq.keys().copied().filter(|o| self.abs.written[*o] && self.k.objects[*o].space != Space::Constant));
        }
        objs.sort();
        objs.dedup();
        for o in objs {
            let name = self.k.objects[o].name.clone();
            let g = self.abs.granule[o];
            if self.st.eq.contains_key(&o) {
                let a = self.fresh_mem(&name, g);
                let b = if self.k.objects[o].space == Space::Shared { self.fresh_mem(&name, g) } else { a.clone() };
                self.st.eq.insert(o, [a, b]);
            }
            if self.st.private[0].contains_key(&o) {
                if self.k.objects[o].uniform {
                    let m = self.fresh_mem(&name, g);
                    self.st.private[0].insert(o, m.clone());
                    self.st.private[1].insert(o, m);
                } else {
                    for t in 0..2 {
                        let m = self.fresh_mem(&format!("{name}${}", t + 1), g);
                        self.st.private[t].insert(o, m);
                    }
                }
            }
        }
    }

    fn fresh_log(&mut self, o: ObjectId, kind: AccessKind, bits: u32) -> Log<'ctx> {
        let n = format!("{}.{}", self.k.objects[o].name, kind.name());
        Log {
            has: self.fresh_bool(&format!("{n}.has")),
            off: self.fresh_bv(&format!("{n}.off"), 64),
            width: self.fresh_bv(&format!("{n}.width"), 32),
            value: self.fresh_bv(&format!("{n}.value"), bits),
            changed: self.fresh_bool(&format!("{n}.changed")),
            who: self.fresh_bv(&format!("{n}.who"), 32),
            // Only kernels with asynchronous copies have pending accesses.
            pending: if self.has_async {
                self.fresh_bool(&format!("{n}.pending"))
            } else {
                z3::ast::Bool::from_bool(self.ctx, false)
            },
        }
    }

    /// What the havocked log `h` (at the head; `p` before the loop) of `o`'s `kind` accesses
    /// holds: nothing, the entry's logged access unchanged, or an access of an earlier
    /// iteration of this loop (tied to a ghost copy of that iteration, `body`).
    fn log_fact(&mut self, o: ObjectId, kind: AccessKind, h: &Log<'ctx>, p: &Log<'ctx>, body: &Body<'_, 'ctx>) -> Bool<'ctx> {
        let &Body { head_fact, fresh: body_fresh, ref accesses } = body;
        let (lo, hi) = (accesses.start, accesses.end);
        let ctx = self.ctx;
        let unchanged = and(
            ctx,
            &[
                &p.has,
                &h.who._eq(&p.who),
                &h.off._eq(&p.off),
                &h.width._eq(&p.width),
                &h.value._eq(&p.value),
                &h.changed.implies(&p.changed),
            ],
        );
        let mut earlier: Vec<Bool<'ctx>> = vec![];
        for i in lo..hi {
            let a = &self.accesses[i];
            if a.object != o || a.kind != kind {
                continue;
            }
            let who = BV::from_u64(ctx, i as u64, 32);
            let w = BV::from_u64(ctx, a.width as u64, 32);
            earlier.push(and(
                ctx,
                &[&h.who._eq(&who), &h.width._eq(&w), &h.off._eq(&a.off1), &h.value._eq(&a.val1), &a.pred1],
            ));
        }
        let earlier = if earlier.is_empty() {
            Bool::from_bool(ctx, false)
        } else {
            let body = Bool::and(ctx, &[head_fact, &or(ctx, &earlier.iter().collect::<Vec<_>>())]);
            // The ghost iteration: the body's fresh values (the head state included) renamed;
            // the log's own fields are the ones being described, so they stay.
            let own: Vec<Dynamic<'ctx>> =
                [Dynamic::from_ast(&h.has), Dynamic::from_ast(&h.who), Dynamic::from_ast(&h.off), Dynamic::from_ast(&h.width), Dynamic::from_ast(&h.value), Dynamic::from_ast(&h.changed)]
                    .into();
            let mut pairs: Vec<(Dynamic<'ctx>, Dynamic<'ctx>)> = vec![];
            for d in body_fresh {
                if own.iter().any(|x| x == d) {
                    continue;
                }
                let g = self.fresh_like(d, "ghost");
                pairs.push((d.clone(), g));
            }
            let refs: Vec<(&Dynamic<'ctx>, &Dynamic<'ctx>)> = pairs.iter().map(|(a, b)| (a, b)).collect();
            body.substitute(&refs)
        };
        h.has.implies(&Bool::or(ctx, &[&unchanged, &earlier]))
    }

    /// The operands an exit carries: the target's phi operands along the edge, then the
    /// loop's escaping values.
    fn slot_operands(&self, l: LoopId, x: &Exit<'ctx>) -> Vec<Operand> {
        let mut ops: Vec<Operand> = x
            .edge
            .phis
            .iter()
            .map(|(inst, _)| match &self.k.insts[*inst].kind {
                InstKind::Phi { incoming } => incoming.iter().find(|(b, _)| *b == x.from).map(|(_, o)| *o).unwrap_or(Operand::Value(*inst)),
                _ => Operand::Value(*inst),
            })
            .collect();
        ops.extend(self.an.loops[l].escapes.iter().map(|v| Operand::Value(*v)));
        ops
    }

    /// The slots of loop `l`'s cut: one per exit taken in the arbitrary iteration, and one for
    /// the threads that return in it.
    fn slots(&mut self, l: LoopId, frame: &CutFrame<'ctx>) -> Vec<Slot<'ctx>> {
        let ctx = self.ctx;
        let mut out = vec![];
        for (i, x) in frame.exits.iter().enumerate() {
            let left = [self.fresh_bool(&format!("loop{l}.exit{i}$1")), self.fresh_bool(&format!("loop{l}.exit{i}$2"))];
            let widths: Vec<u16> = x
                .edge
                .phis
                .iter()
                .map(|(inst, _)| self.k.insts[*inst].width)
                .chain(self.an.loops[l].escapes.iter().map(|v| self.k.insts[*v].width))
                .collect();
            let values = widths
                .iter()
                .map(|w| [self.fresh_term(&format!("loop{l}.exit{i}.value$1"), *w), self.fresh_term(&format!("loop{l}.exit{i}.value$2"), *w)])
                .collect();
            out.push(Slot { left, values, now: x.edge.pred.clone(), exit: Some(x.clone()) });
        }
        if !frame.returns.is_empty() {
            let left = [self.fresh_bool(&format!("loop{l}.returned$1")), self.fresh_bool(&format!("loop{l}.returned$2"))];
            let now = std::array::from_fn(|t| or(ctx, &frame.returns.iter().map(|r| &r[t]).collect::<Vec<_>>()).simplify());
            out.push(Slot { left, values: vec![], now, exit: None });
        }
        out
    }

    /// Candidates about the exits: both threads that entered leave by the same one, carrying
    /// the same values.
    fn exit_candidates(&mut self, l: LoopId, slots: &[Slot<'ctx>]) -> Vec<(usize, ExitForm)> {
        let mut out = vec![];
        for (si, s) in slots.iter().enumerate() {
            let what = match &s.exit {
                Some(x) => format!("exit {} -> {} taken uniformly", x.from, x.to),
                None => "return taken uniformly".to_string(),
            };
            out.push((self.candidate(l, what, true), ExitForm::SameExit { slot: si }));
            if let Some(x) = &s.exit {
                for vi in 0..s.values.len() {
                    let what = format!("exit {} -> {} value {vi} uniform", x.from, x.to);
                    out.push((self.candidate(l, what, true), ExitForm::SameValue { slot: si, value: vi }));
                }
            }
        }
        out
    }

    fn eval_exit_form(&self, f: &ExitForm, slots: &[Slot<'ctx>], entry: &[Bool<'ctx>; 2]) -> Bool<'ctx> {
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
enum ExitForm {
    /// Both threads that entered the loop left it by this slot, or neither.
    SameExit { slot: usize },
    /// Both threads that left by this slot carried the same value.
    SameValue { slot: usize, value: usize },
}

/// One iteration of a cut loop's body, as [`Encoder::log_fact`] ties a log to it: the facts at
/// the head, the body's fresh values (renamed for a ghost copy), and the access instances the
/// body logged (indices into the encoder's accesses).
struct Body<'a, 'ctx> {
    head_fact: &'a Bool<'ctx>,
    fresh: &'a [Dynamic<'ctx>],
    accesses: std::ops::Range<usize>,
}
