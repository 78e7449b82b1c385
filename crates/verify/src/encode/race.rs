//! Race logs and checks (GPUVerify's `_LOG_*`, `_CHECK_*`; Betts et al. OOPSLA 2012 §3):
//! thread 1 may log each of its accesses (a nondeterministic choice), every access of thread 2
//! is checked against the logs, and GPUVerify's benign races are tolerated.

use super::{AccessInstance, Encoder, PropKind, WaitInstance};
use crate::memory::AccessKind;
use crate::term::{and, is_false};
use syncfix_kir::{Guard, InstId, ObjectId, Space};
use z3::ast::{Ast, Bool, BV};

/// Which access an instance is: its instruction, kind and object, and whether an external
/// (specified) function makes it.
#[derive(Copy, Clone)]
pub(super) struct AccessAt {
    pub(super) inst: InstId,
    pub(super) kind: AccessKind,
    pub(super) object: ObjectId,
    pub(super) external: bool,
}

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// Records an access instance and lets thread 1 log it (when `pred1` holds and the
    /// nondeterministic choice says so): `width` bytes at byte offset `off1`, value `val1`.
    /// Returns the instance's index.
    pub(super) fn log_access(
        &mut self,
        at: AccessAt,
        off1: &BV<'ctx>,
        width: u32,
        val1: &BV<'ctx>,
        changed1: &Bool<'ctx>,
        pred1: &Bool<'ctx>,
    ) -> u32 {
        let AccessAt { inst, kind, object: o, external } = at;
        let ctx = self.ctx;
        let value_bits = self.state.logs(o).expect("logs").read.value.get_size();
        let access = AccessInstance {
            inst,
            pos: self.schedule.position(),
            kind,
            object: o,
            external,
            off1: off1.clone(),
            width,
            val1: crate::term::resize(val1, value_bits),
            pred1: pred1.clone(),
            assumed: self.state.assumed().len(),
            async_copy: false,
        };
        let loops = self.enclosing_loops(self.kernel.insts[inst].block);
        let who = self.obligations.add_access(access, loops);
        let choose = self.symbols.fresh_bool("log");
        let cond = Bool::and(ctx, &[pred1, &choose]);
        let logs = self.state.logs_mut(o).expect("logs");
        logs.get_mut(kind).log(&cond, off1, width, val1, changed1, who);
        who
    }

    /// Thread 1 logs the access; thread 2's access is checked against the logs. Per thread:
    /// the byte offset, the value written (or read) and the cell's old value, the predicate.
    pub(super) fn race(
        &mut self,
        at: AccessAt,
        off: &[BV<'ctx>; 2],
        bytes: u32,
        vals: &[BV<'ctx>; 2],
        old: &[BV<'ctx>; 2],
        pred: &[Bool<'ctx>; 2],
    ) {
        let AccessAt { inst, kind, object: o, .. } = at;
        let ctx = self.ctx;
        if self.state.logs(o).is_none() {
            return;
        }
        let changed = vals[0]._eq(&old[0]).not();
        let who = self.log_access(AccessAt { inst, kind, object: o, external: false }, &off[0], bytes, &vals[0], &changed, &pred[0]);
        let benign = self.opts.benign_tolerance;
        let shared = self.kernel.objects[o].space == Space::Shared;
        let logs = self.state.logs_mut(o).expect("logs");
        if kind == AccessKind::Write && benign {
            // Thread 2 overwrote the cell of thread 1's logged write itself.
            let w = &mut logs.write;
            let hit = Bool::and(ctx, &[&pred[1], &w.has, &w.off._eq(&off[1])]);
            w.changed = Bool::and(ctx, &[&w.changed, &hit.not()]);
        }
        let logs = logs.clone();
        // GPUVerify's order of checks (`_CHECK_WRITE`: write-write before read-write), which
        // decides the report when one counterexample shows both.
        let conflicts: &[AccessKind] = match kind {
            AccessKind::Read => &[AccessKind::Write, AccessKind::Atomic],
            AccessKind::Write => &[AccessKind::Write, AccessKind::Read, AccessKind::Atomic],
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
            // Every access of an element-granular object has its width and an aligned offset:
            // two overlap exactly when their offsets are equal (far cheaper for the solver
            // than the interval test).
            let overlap = if self.analysis.uniform_width[o] == Some(bytes) { l.off._eq(&off[1]) } else { l.overlaps(ctx, &off[1], bytes) };
            let mut parts: Vec<Bool<'ctx>> = vec![self.state.ok().clone(), pred[1].clone(), l.has.clone(), overlap];
            if shared {
                parts.push(self.symbols.same_group().clone());
            }
            let mut strict = None;
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
                    strict = Some(and(ctx, &parts.iter().collect::<Vec<_>>()));
                    parts.push(tol.not());
                }
            }
            let cond = and(ctx, &parts.iter().collect::<Vec<_>>());
            let prop = PropKind::Race { check: who as usize, logged: lk, who: l.who.clone(), off2: off[1].clone() };
            self.property_tolerant(cond, strict, prop);
        }
        // Warp-synchronous execution: two threads of one warp are in step after every
        // instruction, so what thread 1 logged no longer conflicts with thread 2.
        if let Some(same_warp) = self.symbols.same_warp().cloned() {
            if let Some(logs) = self.state.logs_mut(o) {
                logs.clear(&same_warp);
            }
        }
    }

    /// Thread 1's access just made to `o` (its last access instance) is an asynchronous
    /// copy's: if it is the logged one, barriers leave it until thread 1's next wait.
    pub(super) fn async_pending(&mut self, o: ObjectId, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let Some(who) = self.obligations.mark_async_copy(o) else { return };
        let Some(logs) = self.state.logs_mut(o) else { return };
        for kind in [AccessKind::Read, AccessKind::Write, AccessKind::Atomic] {
            let l = logs.get_mut(kind);
            let it = Bool::and(ctx, &[&pred[0], &l.has, &l.who._eq(&BV::from_u64(ctx, who as u64, 32))]);
            l.pending = Bool::or(ctx, &[&l.pending, &it]).simplify();
        }
    }

    /// `wait_group_events` by thread 1, when `guard` is on: its pending copies are complete.
    pub(super) fn async_wait(&mut self, guard: Guard, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let (var, on) = match guard {
            Guard::Always => (None, pred[0].clone()),
            Guard::Var(v) => (Some(v), Bool::and(ctx, &[&pred[0], self.symbols.var(v)])),
        };
        self.obligations.add_wait(WaitInstance { pos: self.schedule.position(), var, pred1: pred[0].clone() });
        if !self.opts.site_active(guard) {
            return;
        }
        for logs in self.state.all_logs_mut() {
            for kind in [AccessKind::Read, AccessKind::Write, AccessKind::Atomic] {
                let l = logs.get_mut(kind);
                l.pending = Bool::and(ctx, &[&l.pending, &on.not()]).simplify();
            }
        }
    }
}
