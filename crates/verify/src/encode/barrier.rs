//! Barriers and barrier divergence (GPUVerify: Betts et al. OOPSLA 2012 §3; GPURepair §2.2
//! for barrier variables and grid barriers).
//!
//! A barrier whose guard is on and that both threads reach clears thread 1's logs for the
//! memory its fences order (block barriers: only for threads of one group) and havocs the
//! equality-abstracted arrays other threads may have written; one that a single thread of a
//! pair in its scope reaches is barrier divergence. What follows a barrier assumes it did not
//! diverge (an assertion holds after it, as in Boogie): a divergent barrier fails its own
//! property, so the kernel is not verified either way.
//!
//! Tile barriers (CUDA `__syncwarp(mask)`, cooperative groups' tile `sync()`; [`Scope::Tile`])
//! are [`Encoder::tile_barrier`]: the block barrier's rules restricted to the pairs of one tile
//! that the mask names.

use super::symbols::linear_id;
use super::{BarrierInstance, Encoder, PropKind};
use crate::term::{and, bv_const, is_false, or, resize};
use syncfix_kir::{Fences, Guard, InstId, ObjectId, Scope, Space, TileMask};
use z3::ast::{Ast, Bool, BV};

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    pub(super) fn barrier(&mut self, inst: InstId, bar: &syncfix_kir::Barrier, pred: &[Bool<'ctx>; 2]) {
        if !self.opts.site_active(bar.guard) {
            // A site left out: where it lies, for traces, and nothing else.
            let (lf, gf) = self.barrier_fences(bar);
            self.record_barrier(inst, bar, pred, &lf, &gf, None);
            return;
        }
        if let Scope::Tile { size, mask } = bar.scope {
            return self.tile_barrier(inst, bar, size, mask, pred);
        }
        let ctx = self.ctx;
        let guard = self.barrier_guard(bar);
        let (lf, gf) = self.barrier_fences(bar);
        let scope_pair = match bar.scope {
            Scope::Block => self.symbols.same_group().clone(),
            Scope::Grid => Bool::from_bool(ctx, true),
            Scope::Tile { .. } => unreachable!("tile barriers are encoded by tile_barrier"),
        };
        // Barrier divergence: one thread of the pair reaches it, the other does not.
        let div = and(ctx, &[self.state.ok(), &guard, &scope_pair, &pred[0].xor(&pred[1])]);
        self.record_barrier(inst, bar, pred, &lf, &gf, Some(div));
        // What follows may assume the barrier was not divergent (GPUVerify's barrier is a
        // call whose `requires` is asserted, and then holds, as every Boogie assertion does):
        // if it may be, this property fails and the kernel is not verified. Without it, a
        // later race query had to prove that thread 1 reached the barrier that cleared its
        // logs (mri-gridding's `gridding`: a timeout, then 0.2 s).
        let diverged = and(ctx, &[&guard, &scope_pair, &pred[0].xor(&pred[1])]);
        self.state.assume(&diverged.not());
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
            Scope::Block => (Bool::and(ctx, &[&first, &local_both]), Bool::and(ctx, &[&both, &global_both, self.symbols.same_group()])),
            Scope::Tile { .. } => unreachable!("tile barriers are encoded by tile_barrier"),
        };
        self.clear_logs(&clear_local, &clear_global);
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
                let g = Bool::and(ctx, &[&both, self.symbols.same_group(), &Bool::or(ctx, &[&gf[0], &gf[1]])]);
                (sh, g)
            }
            Scope::Tile { .. } => unreachable!("tile barriers are encoded by tile_barrier"),
        };
        self.havoc_at_barrier(&havoc_shared, &havoc_global);
    }

    /// Whether the barrier is on: always, or its barrier variable.
    fn barrier_guard(&self, bar: &syncfix_kir::Barrier) -> Bool<'ctx> {
        match bar.guard {
            Guard::Always => Bool::from_bool(self.ctx, true),
            Guard::Var(v) => self.symbols.var(v).clone(),
        }
    }

    /// Per thread, whether the barrier's fences order local (shared) and global memory
    /// (dynamic OpenCL flags: bit 0 local, bit 1 global, evaluated per thread).
    fn barrier_fences(&self, bar: &syncfix_kir::Barrier) -> ([Bool<'ctx>; 2], [Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let fence = |t: usize, bit: u64| -> Bool<'ctx> {
            match bar.fences {
                Fences::Const { local, global } => Bool::from_bool(ctx, if bit == 1 { local } else { global }),
                Fences::Dynamic(o) => {
                    let v = self.bv(t, o);
                    v.bvand(&bv_const(ctx, bit as u128, v.get_size()))._eq(&bv_const(ctx, 0, v.get_size())).not()
                }
            }
        };
        (std::array::from_fn(|t| fence(t, 1)), std::array::from_fn(|t| fence(t, 2)))
    }

    /// Records the barrier instance (for traces and repair clauses) and its divergence
    /// property `div`; without one, a ghost instance (a site left out of the encoding,
    /// [`crate::VerifyOptions::active_sites`]).
    fn record_barrier(
        &mut self,
        inst: InstId,
        bar: &syncfix_kir::Barrier,
        pred: &[Bool<'ctx>; 2],
        lf: &[Bool<'ctx>; 2],
        gf: &[Bool<'ctx>; 2],
        div: Option<Bool<'ctx>>,
    ) {
        let idx = self.obligations.add_barrier(BarrierInstance {
            inst,
            pos: self.schedule.position(),
            var: match bar.guard {
                Guard::Var(v) => Some(v),
                Guard::Always => None,
            },
            scope: bar.scope,
            pred: pred.clone(),
            local1: lf[0].clone(),
            global1: gf[0].clone(),
            loops: self.enclosing_loops(self.kernel.insts[inst].block),
            ghost: div.is_none(),
        });
        if let Some(div) = div {
            self.property(div, PropKind::Divergence { barrier: idx });
        }
    }

    /// Clears thread 1's logs of shared memory where `clear_local` holds and of global memory
    /// where `clear_global` holds.
    fn clear_logs(&mut self, clear_local: &Bool<'ctx>, clear_global: &Bool<'ctx>) {
        let ids: Vec<ObjectId> = self.state.all_logs().keys().copied().collect();
        for o in ids {
            let c = if self.kernel.objects[o].space == Space::Shared { clear_local } else { clear_global };
            self.state.logs_mut(o).expect("logs").clear(c);
        }
    }

    /// Havocs the written equality-abstracted arrays of shared memory where `havoc_shared`
    /// holds and of global memory where `havoc_global` holds (a barrier may let other threads'
    /// writes become visible).
    fn havoc_at_barrier(&mut self, havoc_shared: &Bool<'ctx>, havoc_global: &Bool<'ctx>) {
        let eq_ids: Vec<ObjectId> = self.state.eq_objects();
        for o in eq_ids {
            let shared = self.kernel.objects[o].space == Space::Shared;
            if self.kernel.objects[o].space == Space::Constant || !self.abs.written[o] {
                continue;
            }
            let h = if shared { havoc_shared } else { havoc_global };
            if is_false(h) {
                continue;
            }
            self.havoc_eq(o, h);
        }
    }

    /// A tile barrier ([`Scope::Tile`]): `size` threads of consecutive linear thread ids form a
    /// tile; `mask` names lanes (linear id mod 32). For a pair of one tile it is the block
    /// barrier's rule restricted to the threads it names (CUDA Programming Guide, `__syncwarp`:
    /// "each calling thread must have its own bit set in the mask and all non-exited threads
    /// named in mask must execute a corresponding `__syncwarp()` with the same mask"):
    /// - ordering: when both threads reach it, each names itself and the other, and their masks
    ///   are equal, thread 1's logs are cleared (for the memory its fences order);
    /// - divergence: a thread reaches it and the other thread of its tile, named by its mask,
    ///   does not (a thread that returned early counts as not reaching it, as for block
    ///   barriers: syncfix does not track exited threads); both reach it with different masks
    ///   one of which names the other thread; or a thread reaches it with a mask that does not
    ///   name itself.
    ///
    /// A mask computed at run time is evaluated per thread; where its value is abstract
    /// (a warp vote, `__activemask()`), the threads' masks may differ, which is reported as
    /// divergence (sound: a real mismatch is undefined behaviour). Pairs of different tiles
    /// or blocks are not ordered, and never diverge on it.
    pub(super) fn tile_barrier(&mut self, inst: InstId, bar: &syncfix_kir::Barrier, size: u32, mask: TileMask, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let tru = Bool::from_bool(ctx, true);
        let guard = self.barrier_guard(bar);
        let (lf, gf) = self.barrier_fences(bar);
        let lin = [self.linear_local_id(0), self.linear_local_id(1)];
        let size_bv = BV::from_u64(ctx, size.max(1) as u64, 32);
        let same_tile = Bool::and(ctx, &[self.symbols.same_group(), &lin[0].bvudiv(&size_bv)._eq(&lin[1].bvudiv(&size_bv))]).simplify();
        let lane: [BV<'ctx>; 2] = std::array::from_fn(|t| lin[t].bvurem(&BV::from_u64(ctx, 32, 32)));
        // Whether mask `t` names the lane of thread `u`.
        let masks: Option<[BV<'ctx>; 2]> = match mask {
            TileMask::Const(_) => None,
            TileMask::Dynamic(o) => Some([resize(&self.bv(0, o), 32), resize(&self.bv(1, o), 32)]),
        };
        let names = |t: usize, u: usize| -> Bool<'ctx> {
            let m = match (&masks, mask) {
                (_, TileMask::Const(u32::MAX)) => return tru.clone(),
                (_, TileMask::Const(0)) => return Bool::from_bool(ctx, false),
                (_, TileMask::Const(c)) => BV::from_u64(ctx, c as u64, 32),
                (Some(ms), TileMask::Dynamic(_)) => ms[t].clone(),
                (None, TileMask::Dynamic(_)) => unreachable!("a dynamic mask is evaluated"),
            };
            m.bvlshr(&lane[u]).extract(0, 0)._eq(&BV::from_u64(ctx, 1, 1))
        };
        let own = [names(0, 0), names(1, 1)];
        let waits = [names(0, 1), names(1, 0)];
        let same_mask = match &masks {
            None => tru.clone(),
            Some(ms) => ms[0]._eq(&ms[1]),
        };
        let only = |t: usize| Bool::and(ctx, &[&pred[t], &pred[1 - t].not(), &waits[t]]);
        let mismatch = and(ctx, &[&pred[0], &pred[1], &Bool::or(ctx, &[&waits[0], &waits[1]]), &same_mask.not()]);
        let in_tile = Bool::and(ctx, &[&same_tile, &or(ctx, &[&only(0), &only(1), &mismatch])]);
        let unnamed = |t: usize| Bool::and(ctx, &[&pred[t], &own[t].not()]);
        let diverged = and(ctx, &[&guard, &or(ctx, &[&in_tile, &unnamed(0), &unnamed(1)])]);
        let div = and(ctx, &[self.state.ok(), &diverged]);
        self.record_barrier(inst, bar, pred, &lf, &gf, Some(div));
        // What follows may assume it was not divergent (as for block barriers).
        self.state.assume(&diverged.not());
        // The pair is ordered: both reach it, in one tile, each naming both, with one mask.
        let sync = and(ctx, &[&guard, &pred[0], &pred[1], &same_tile, &own[0], &own[1], &waits[0], &waits[1], &same_mask]);
        let clear_local = Bool::and(ctx, &[&sync, &lf[0]]);
        let clear_global = Bool::and(ctx, &[&sync, &gf[0]]);
        self.clear_logs(&clear_local, &clear_global);
        // Other threads of the tile may have written what either thread reads next.
        let reach = |f: &[Bool<'ctx>; 2]| {
            let p1 = Bool::and(ctx, &[&pred[0], &f[0]]);
            let p2 = Bool::and(ctx, &[&pred[1], &f[1]]);
            Bool::and(ctx, &[&guard, &Bool::or(ctx, &[&p1, &p2])])
        };
        let (havoc_shared, havoc_global) = (reach(&lf), reach(&gf));
        self.havoc_at_barrier(&havoc_shared, &havoc_global);
    }

    /// Thread `t`'s linear thread id in its block, `x + y*bx + z*bx*by` (32 bits): what warps
    /// and tiles are made of.
    fn linear_local_id(&self, t: usize) -> BV<'ctx> {
        linear_id(&self.symbols.tid(t).local, &self.symbols.sizes()[0]).simplify()
    }
}
