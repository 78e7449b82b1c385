//! Barriers and barrier divergence (GPUVerify: Betts et al. OOPSLA 2012 §3; GPURepair §2.2
//! for barrier variables and grid barriers).
//!
//! A barrier whose guard is on and that both threads reach clears thread 1's logs for the
//! memory its fences order (block barriers: only for threads of one group) and havocs the
//! equality-abstracted arrays other threads may have written; one that a single thread of a
//! pair in its scope reaches is barrier divergence.

use super::{BarrierInstance, Encoder, PropKind};
use crate::term::{and, bv_const, is_false};
use syncfix_kir::{Fences, Guard, InstId, ObjectId, Scope, Space};
use z3::ast::{Ast, Bool};

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    pub(crate) fn barrier(&mut self, inst: InstId, bar: &syncfix_kir::Barrier, pred: &[Bool<'ctx>; 2]) {
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
        let div = and(ctx, &[&self.st.ok, &guard, &scope_pair, &pred[0].xor(&pred[1])]);
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
        self.property(div, PropKind::Divergence { barrier: idx });
        // A log is cleared when both threads reach the barrier and the fences of the thread
        // whose log it is (thread 1) order its memory: GPUVerify's rule for dynamic flags (the
        // suite's inter_group_and_barrier_flag_tests rely on it). OpenCL requires the same
        // flags in every work-item of a group.
        let both = and(ctx, &[&guard, &pred[0], &pred[1]]);
        let local_both = lf[0].clone();
        let global_both = gf[0].clone();
        // Shared memory is compared only within a group, where a barrier reached by thread 1
        // alone is divergence (reported): thread 1 reaching it clears its shared logs (the
        // other thread may be in another group, past its own barriers).
        let first = Bool::and(ctx, &[&guard, &pred[0]]);
        let (clear_local, clear_global) = match bar.scope {
            Scope::Grid => (both.clone(), both.clone()),
            Scope::Block => (Bool::and(ctx, &[&first, &local_both]), Bool::and(ctx, &[&both, &global_both, &self.same_group])),
        };
        let ids: Vec<ObjectId> = self.st.logs.keys().copied().collect();
        for o in ids {
            let c = if self.k.objects[o].space == Space::Shared { &clear_local } else { &clear_global };
            self.st.logs.get_mut(&o).expect("logs").clear(c);
        }
        // A new barrier interval for each thread that passes it.
        self.permissions_at_barrier(&Bool::and(ctx, &[&guard, &Bool::or(ctx, &[&pred[0], &pred[1]])]));
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
        let eq_ids: Vec<ObjectId> = self.st.eq.keys().copied().collect();
        for o in eq_ids {
            let shared = self.k.objects[o].space == Space::Shared;
            if self.k.objects[o].space == Space::Constant || !self.abs.written[o] {
                continue;
            }
            let h = if shared { &havoc_shared } else { &havoc_global };
            if is_false(h) {
                continue;
            }
            let name = self.k.objects[o].name.clone();
            let g = self.abs.granule[o];
            let fa = self.fresh_mem(&name, g);
            let fb = if shared { self.fresh_mem(&name, g) } else { fa.clone() };
            let copies = self.st.eq.get_mut(&o).expect("equality array");
            copies[0].arr = h.ite(&fa.arr, &copies[0].arr);
            copies[1].arr = h.ite(&fb.arr, &copies[1].arr);
            copies[0].table = None;
            copies[1].table = None;
        }
    }
}

use syncfix_kir::EntityRef;
