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

mod exits;
mod havoc;

use exits::{ExitForm, Slot};

use super::head::View;
use crate::encode::{CutLoop, Encoder, Incoming};
use crate::memory::AccessKind;
use crate::term::{and, is_false, or, Term};
use crate::VerifyError;
use havoc::Body;
use syncfix_kir::{InstId, LoopId, ObjectId, Operand};
use z3::ast::Dynamic;
use z3::ast::{Ast, Bool};

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// Cuts loop `l` (see the module documentation).
    pub(in crate::encode::loops) fn cut_loop(&mut self, l: LoopId) -> Result<(), VerifyError> {
        let ctx = self.ctx;
        let header = self.cfg.loops[l].header;
        let info = self.analysis.loops[l].clone();
        let entry_edges = self.schedule.take_incoming(header);
        let entry = self.join(&entry_edges);
        if entry_edges.is_empty() || (is_false(&entry[0]) && is_false(&entry[1])) {
            return Ok(());
        }
        self.schedule.advance();
        self.frames.add_cut(CutLoop { loop_id: l, header_span: self.header_span(header) });
        let n_phis = info.phis.len();
        let entry_phis: Vec<[Term<'ctx>; 2]> = (0..n_phis).map(|pi| self.phi_value(&entry_edges, pi)).collect();

        // The logs and objects the loop may change.
        let logged: Vec<ObjectId> =
            self.state.all_logs().keys().copied().filter(|o| info.has_barrier || info.accessed.contains(o)).collect();
        let log_kinds: Vec<(ObjectId, AccessKind)> =
            logged.iter().flat_map(|o| [AccessKind::Read, AccessKind::Write, AccessKind::Atomic].map(|k| (*o, k))).collect();
        let cands = self.loop_candidates(l, &entry_phis, &log_kinds);

        // On entry.
        let (specs, guard) = self.eval_head(l, &entry, &entry_phis)?;
        let entry_view = View { pred: entry.clone(), phis: entry_phis.clone(), specs, guard };
        self.check_invariants(&entry_view, true);
        let t = Bool::from_bool(ctx, true);
        self.check_candidates(&cands, &entry_view, &entry, &t);

        // Havoc the loop's modset.
        self.symbols.push_fresh_frame();
        self.permissions_at_cut();
        let pre_logs = self.state.all_logs().clone();
        let (pred, phis) = self.havocked_head(l, &entry);
        self.havoc_memory(l);
        for &o in &logged {
            let bits = self.analysis.value_bits[o];
            let fresh = [AccessKind::Read, AccessKind::Write, AccessKind::Atomic].map(|k| self.fresh_log(o, k, bits));
            let [read, write, atomic] = fresh;
            self.state.set_logs(o, crate::memory::Logs { read, write, atomic });
        }
        let head_logs = self.state.all_logs().clone();
        for &o in &info.atomic_objects {
            let bits = self.analysis.value_bits[o];
            let name = format!("{}.taken!{l}.{}", self.kernel.objects[o].name, self.frames.cut_count());
            let dom = [z3::Sort::bitvector(ctx, 32), z3::Sort::bitvector(ctx, 64), z3::Sort::bitvector(ctx, bits)];
            let f = z3::FuncDecl::new(ctx, name, &[&dom[0], &dom[1], &dom[2]], &z3::Sort::bool(ctx));
            self.state.set_used(
                o,
                crate::encode::state::Used { entries: vec![], window: 0, history: Some(std::rc::Rc::new(f)), history_stale: false },
            );
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
            head_facts.push(self.invariants.lit(*c).implies(&holds));
        }
        for f in &head_facts {
            self.state.assume(f);
        }
        // The logs' facts need the body's accesses: stated after the body, through `logs_ok`.
        let logs_ok = self.symbols.fresh_bool(&format!("loop{l}.logs"));
        let logs_ok_stamp = self.symbols.stamp();
        self.state.assume(&logs_ok);
        let assumed_lo = self.state.assumed().len();

        // The arbitrary iteration.
        let acc_lo = self.obligations.access_count();
        self.frames.push_cut(l);
        self.frames.enter(None);
        let header_phis: Vec<(InstId, [Term<'ctx>; 2])> = info.phis.iter().copied().zip(phis.iter().cloned()).collect();
        self.schedule.set_incoming(header, vec![Incoming { pred: pred.clone(), phis: header_phis }]);
        let order = self.cfg.loop_order[l].clone();
        let r = self.exec_items(&order);
        self.frames.leave();
        let frame = self.frames.pop_cut();
        r?;
        let acc_hi = self.obligations.access_count();

        // The end of the iteration.
        let back = self.schedule.take_back(l);
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
        self.assume_exits(l, &slots, &pred, &entry, &phis);
        // Candidates on the exits: both threads leave by the same exit, with the same values.
        let exit_cands = if self.opts.infer && !self.uniformity.uniform_loop[l] { self.exit_candidates(l, &slots) } else { vec![] };
        for (c, f) in &exit_cands {
            let holds = self.eval_exit_form(f, &slots, &entry);
            let lit = self.invariants.lit(*c).clone();
            self.state.assume(&lit.implies(&holds));
        }
        // The end state of the slots.
        for s in &mut slots {
            s.advance(ctx);
        }
        // At the end of the iteration, for the threads that go round.
        let goes_round = Bool::or(ctx, &[&again[0], &again[1]]);
        if !is_false(&goes_round) {
            let (specs, guard) = self.eval_head(l, &again, &back_phis)?;
            let end = View { pred: again.clone(), phis: back_phis.clone(), specs, guard };
            self.check_invariants(&end, false);
            self.check_candidates(&cands, &end, &entry, &goes_round);
            self.check_exit_candidates(&exit_cands, &slots, &entry, &goes_round);
        }
        // The logs at the head.
        let body_fresh = self.symbols.pop_fresh_frame();
        for &o in &logged {
            let mut facts = vec![];
            let mut own: Vec<Dynamic<'ctx>> = vec![];
            for kind in [AccessKind::Read, AccessKind::Write, AccessKind::Atomic] {
                let h = head_logs[&o].get(kind).clone();
                let p = pre_logs[&o].get(kind).clone();
                own.extend([Dynamic::from_ast(&h.has), Dynamic::from_ast(&h.off), Dynamic::from_ast(&h.who), Dynamic::from_ast(&h.value)]);
                let body = Body { head_facts: &head_facts, fresh: &body_fresh, accesses: acc_lo..acc_hi, assumed_lo };
                facts.push(self.log_fact(o, kind, &h, &p, &body));
            }
            self.assert_log_fact(logs_ok_stamp, &logs_ok, o, &and(ctx, &facts.iter().collect::<Vec<_>>()), &own);
        }

        self.leave_cut_loop(l, slots, &again, &back_phis);
        Ok(())
    }

    /// Loop `l`'s havocked head for the threads that entered it (`entry`): each thread's loop
    /// predicate and header phis, fresh. A uniform loop keeps both threads that entered it
    /// together; a uniform phi is one value for both threads in the loop (the uniformity
    /// analysis); within a group, the same for threads of one group.
    fn havocked_head(&mut self, l: LoopId, entry: &[Bool<'ctx>; 2]) -> ([Bool<'ctx>; 2], Vec<[Term<'ctx>; 2]>) {
        let ctx = self.ctx;
        let info_phis = self.analysis.loops[l].phis.clone();
        let uniform = self.uniformity.uniform_loop[l];
        let uniform_in_group = self.uniformity_in_group.uniform_loop[l];
        let pred: [Bool<'ctx>; 2] = if uniform {
            let h = self.symbols.fresh_bool(&format!("loop{l}.active"));
            std::array::from_fn(|t| Bool::and(ctx, &[&h, &entry[t]]).simplify())
        } else if uniform_in_group {
            let h = [self.symbols.fresh_bool(&format!("loop{l}.active$1")), self.symbols.fresh_bool(&format!("loop{l}.active$2"))];
            let h2 = self.symbols.same_group().ite(&h[0], &h[1]);
            [Bool::and(ctx, &[&h[0], &entry[0]]).simplify(), Bool::and(ctx, &[&h2, &entry[1]]).simplify()]
        } else {
            std::array::from_fn(|t| self.symbols.fresh_bool(&format!("loop{l}.active${}", t + 1)))
        };
        let phis: Vec<[Term<'ctx>; 2]> = info_phis
            .iter()
            .map(|&p| {
                let w = self.kernel.insts[p].width;
                if self.uniformity.is_uniform(p) {
                    let v = self.symbols.fresh_term(&format!("{p}"), w);
                    [v.clone(), v]
                } else if self.uniformity_in_group.is_uniform(p) {
                    let v = [self.symbols.fresh_term(&format!("{p}$1"), w), self.symbols.fresh_term(&format!("{p}$2"), w)];
                    let v2 = Term::ite(self.symbols.same_group(), &v[0], &v[1], ctx);
                    [v[0].clone(), v2]
                } else {
                    [self.symbols.fresh_term(&format!("{p}$1"), w), self.symbols.fresh_term(&format!("{p}$2"), w)]
                }
            })
            .collect();
        (pred, phis)
    }

    /// What holds of loop `l`'s exits (`slots`) at the end of the arbitrary iteration: a
    /// thread that left earlier carried its (kept) header phi values (`phis`); each thread
    /// that entered (`entry`) is in the loop (`pred`) or left it by exactly one exit (or
    /// returned); in a uniform loop both threads that entered leave by the same exit,
    /// carrying the same uniform values.
    fn assume_exits(&mut self, l: LoopId, slots: &[Slot<'ctx>], pred: &[Bool<'ctx>; 2], entry: &[Bool<'ctx>; 2], phis: &[[Term<'ctx>; 2]]) {
        let ctx = self.ctx;
        let info_phis = self.analysis.loops[l].phis.clone();
        let (uniform, uniform_in_group) = (self.uniformity.uniform_loop[l], self.uniformity_in_group.uniform_loop[l]);
        // A thread that left earlier carried its (kept) header phi values.
        for s in slots {
            let Some(x) = &s.exit else { continue };
            for (i, o) in self.slot_operands(l, x).iter().enumerate() {
                let Operand::Value(v) = o else { continue };
                if let Some(pi) = info_phis.iter().position(|p| p == v) {
                    for t in 0..2 {
                        let f = s.left[t].implies(&s.values[i][t].eq(&phis[pi][t], ctx));
                        self.state.assume(&f);
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
                self.state.assume(&f);
            }
        }
        // A uniform loop: both threads that entered leave by the same exit, carrying the same
        // uniform values.
        if uniform || uniform_in_group {
            let mut both = Bool::and(ctx, &[&entry[0], &entry[1]]);
            if !uniform {
                both = Bool::and(ctx, &[&both, self.symbols.same_group()]);
            }
            let un = if uniform { &self.uniformity } else { &self.uniformity_in_group };
            let mut facts = vec![];
            for s in slots {
                facts.push(both.implies(&s.left[0].iff(&s.left[1])));
                if let Some(x) = &s.exit {
                    let ops = self.slot_operands(l, x);
                    let mut left = Bool::and(ctx, &[&s.left[0], &s.left[1]]);
                    if !uniform {
                        left = Bool::and(ctx, &[&left, self.symbols.same_group()]);
                    }
                    for (i, o) in ops.iter().enumerate() {
                        if matches!(o, Operand::Const { .. }) || matches!(o, Operand::Value(v) if un.is_uniform(*v)) {
                            facts.push(left.implies(&s.values[i][0].eq(&s.values[i][1], ctx)));
                        }
                    }
                }
            }
            for f in facts {
                self.state.assume(&f);
            }
        }
    }

    /// After loop `l`'s cut: the arbitrary iteration was the last one (`again` false for both
    /// threads); the loop's escaping values are those each thread left with (a header phi's,
    /// the value it kept, `back_phis`), and each exit's edge is added with the threads that
    /// left by it.
    fn leave_cut_loop(&mut self, l: LoopId, slots: Vec<Slot<'ctx>>, again: &[Bool<'ctx>; 2], back_phis: &[[Term<'ctx>; 2]]) {
        let ctx = self.ctx;
        let (info_phis, escapes) = (self.analysis.loops[l].phis.clone(), self.analysis.loops[l].escapes.clone());
        // After the loop: this iteration was the last one.
        self.state.assume(&Bool::and(ctx, &[&again[0].not(), &again[1].not()]));
        for (i, &v) in escapes.iter().enumerate() {
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
                if let Some(pi) = info_phis.iter().position(|p| *p == v) {
                    val = Some(back_phis[pi][t].clone());
                }
                if let Some(x) = val {
                    self.state.set_value(t, v, x);
                }
            }
        }
        for s in slots {
            let Some(x) = s.exit else { continue };
            let phis = x.edge.phis.iter().enumerate().map(|(i, (inst, _))| (*inst, s.values[i].clone())).collect();
            self.add_edge(x.from, x.to, Incoming { pred: s.left, phis });
        }
    }

    /// Checks loop `l`'s exit candidates `exit_cands` at the end of the iteration, for the
    /// threads that go round (`goes_round`): one candidate check each (Houdini's).
    fn check_exit_candidates(
        &mut self,
        exit_cands: &[(usize, ExitForm)],
        slots: &[Slot<'ctx>],
        entry: &[Bool<'ctx>; 2],
        goes_round: &Bool<'ctx>,
    ) {
        for (c, f) in exit_cands {
            let holds = self.eval_exit_form(f, slots, entry);
            self.check_candidate(*c, &holds, goes_round);
        }
    }
}
