//! Memory accesses and the memory models (ARCHITECTURE.md, "crates/verify"): private memory is exact per thread,
//! equality-abstracted arrays are shared between the threads (one copy per group for shared
//! memory) and havocked at barriers, adversarial arrays return a fresh value per read.

use super::race::AccessAt;
use super::{Encoder, PropKind};
use crate::abstraction::Model;
use crate::memory::{zero, AccessKind, Mem};
use crate::term::{is_false, or, resize, Term};
use syncfix_kir::{InstId, LogKind, ObjectId, Operand, Pointer, Space};
use z3::ast::{Array, Ast, Bool, BV};

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    pub(super) fn load(&mut self, inst: InstId, ptr: Pointer, bytes: u32, width: u16, pred: &[Bool<'ctx>; 2]) {
        let off: [BV<'ctx>; 2] = std::array::from_fn(|t| self.bv(t, ptr.offset));
        self.bounds(inst, ptr.object, &off, bytes, pred);
        self.note_access(ptr.object, &off, bytes, pred);
        let vals: [BV<'ctx>; 2] = [self.read(0, ptr.object, &off[0], bytes), self.read(1, ptr.object, &off[1], bytes)];
        let obj = &self.kernel.objects[ptr.object];
        if obj.space != Space::Private && obj.init.is_none() {
            let pos = self.schedule.position();
            for t in 0..2 {
                let (off, val, pred) = (off[t].clone(), vals[t].clone(), pred[t].clone());
                self.obligations.add_read(super::ReadInstance { object: ptr.object, pos, off, bytes, val, pred });
            }
        }
        for t in 0..2 {
            let v = self.bits_to_term(&vals[t], width);
            self.define(t, inst, v, &pred[t]);
        }
        self.race(AccessAt { inst, kind: AccessKind::Read, object: ptr.object, external: false }, &off, bytes, &vals, &vals, pred);
    }

    pub(super) fn store(&mut self, inst: InstId, ptr: Pointer, value: Operand, bytes: u32, pred: &[Bool<'ctx>; 2]) {
        self.constant_write(inst, ptr.object, pred);
        let off: [BV<'ctx>; 2] = std::array::from_fn(|t| self.bv(t, ptr.offset));
        self.bounds(inst, ptr.object, &off, bytes, pred);
        self.note_access(ptr.object, &off, bytes, pred);
        let vals: [BV<'ctx>; 2] = std::array::from_fn(|t| resize(&self.bv(t, value), bytes * 8));
        let old: [BV<'ctx>; 2] = [self.read(0, ptr.object, &off[0], bytes), self.read(1, ptr.object, &off[1], bytes)];
        self.race(AccessAt { inst, kind: AccessKind::Write, object: ptr.object, external: false }, &off, bytes, &vals, &old, pred);
        self.warp_mates_write(ptr.object, pred);
        self.plain_write(ptr.object);
        for t in 0..2 {
            self.write(t, ptr.object, &off[t], &vals[t], bytes, &pred[t]);
        }
    }

    /// A plain write to a repetition-free counter may give it any value: the values returned
    /// before need not differ from later ones.
    pub(super) fn plain_write(&mut self, o: ObjectId) {
        if let Some(u) = self.state.used_mut(o) {
            u.window = u.entries.len();
            u.history_stale = true;
        }
    }

    /// `--warp-sync`: the other threads of the warp execute the same store at the same time,
    /// and warp-synchronous threads see each other's writes at once (no barrier needed), so an
    /// equality-abstracted array's other cells change arbitrarily (GPUVerify's
    /// warpsync/equality_abstraction_issue).
    fn warp_mates_write(&mut self, o: ObjectId, pred: &[Bool<'ctx>; 2]) {
        if self.opts.warp_size.is_none() || self.state.eq_copies(o).is_none() {
            return;
        }
        let either = Bool::or(self.ctx, &[&pred[0], &pred[1]]);
        self.havoc_eq(o, &either);
    }

    /// Gives equality-abstracted object `o` arbitrary contents where `cond` holds (one copy
    /// for global memory, one per thread's group for shared memory).
    pub(super) fn havoc_eq(&mut self, o: ObjectId, cond: &Bool<'ctx>) {
        let name = self.kernel.objects[o].name.clone();
        let g = self.state.eq_copies(o).expect("equality array")[0].granule;
        let shared = self.kernel.objects[o].space == Space::Shared;
        let fa = self.symbols.fresh_mem(&name, g);
        let fb = if shared { self.symbols.fresh_mem(&name, g) } else { fa.clone() };
        let copies = self.state.eq_copies_mut(o).expect("equality array");
        copies[0].arr = cond.ite(&fa.arr, &copies[0].arr);
        copies[1].arr = cond.ite(&fb.arr, &copies[1].arr);
        copies[0].table = None;
        copies[1].table = None;
    }

    pub(super) fn atomic(&mut self, inst: InstId, ptr: Pointer, bytes: u32, width: u16, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        self.constant_write(inst, ptr.object, pred);
        let off: [BV<'ctx>; 2] = std::array::from_fn(|t| self.bv(t, ptr.offset));
        self.bounds(inst, ptr.object, &off, bytes, pred);
        self.note_access(ptr.object, &off, bytes, pred);
        let z = [zero(ctx, bytes * 8), zero(ctx, bytes * 8)];
        self.race(AccessAt { inst, kind: AccessKind::Atomic, object: ptr.object, external: false }, &off, bytes, &z, &z, pred);
        // An atomic on private memory updates it (exactly, per thread): its value is
        // arbitrary, as for every atomic.
        if self.abs.model(ptr.object) == Model::Private {
            for t in 0..2 {
                let v = self.symbols.fresh_bv("atomic_private", bytes * 8);
                self.write(t, ptr.object, &off[t], &v, bytes, &pred[t]);
            }
        }
        // The old value: arbitrary (atomically accessed arrays are adversarial) ...
        let vals: [Term<'ctx>; 2] = [self.symbols.fresh_term("atomic", width), self.symbols.fresh_term("atomic", width)];
        if self.abs.repetition_free[ptr.object] && width > 1 {
            // ... except that a repetition-free atomic never returns the same value twice at
            // one offset (Bardsley & Donaldson, NFM 2014 §4.2).
            // The two threads update one counter only when it is in global memory or they are
            // in one group (shared memory is per group).
            let z: [BV<'ctx>; 2] = std::array::from_fn(|t| vals[t].to_bv(ctx));
            let one_copy = if self.kernel.objects[ptr.object].space == Space::Shared {
                self.symbols.same_group().clone()
            } else {
                Bool::from_bool(ctx, true)
            };
            let mut facts: Vec<Bool<'ctx>> = vec![];
            let both = Bool::and(ctx, &[&pred[0], &pred[1], &off[0]._eq(&off[1]), &one_copy]);
            facts.push(both.implies(&z[0]._eq(&z[1]).not()));
            let bits = self.analysis.value_bits[ptr.object];
            let stale = self.state.used(ptr.object).is_some_and(|u| u.history_stale);
            for t in 0..2 {
                // Never returned before a loop cut either.
                if let (Some(h), false) = (self.history_taken(t, ptr.object, &off[t], &z[t], bits), stale) {
                    facts.push(pred[t].implies(&h.not()));
                }
            }
            let used = self.state.used_or_default(ptr.object);
            for (u, ran, o, v) in used.entries[used.window..].iter() {
                for t in 0..2 {
                    let mut same = vec![ran, &pred[t]];
                    let at = o._eq(&off[t]);
                    same.push(&at);
                    if *u != t {
                        same.push(&one_copy);
                    }
                    facts.push(Bool::and(ctx, &same).implies(&z[t]._eq(v).not()));
                }
            }
            for t in 0..2 {
                used.entries.push((t, pred[t].clone(), off[t].clone(), z[t].clone()));
            }
            for f in facts {
                self.state.assume(&f);
            }
        }
        for (t, v) in vals.into_iter().enumerate() {
            self.define(t, inst, v, &pred[t]);
        }
    }

    /// A read made by a specification: not an access (never logged or checked).
    pub(super) fn spec_load(&mut self, inst: InstId, ptr: Pointer, bytes: u32, width: u16, pred: &[Bool<'ctx>; 2]) {
        for t in 0..2 {
            let off = self.bv(t, ptr.offset);
            let raw = self.read(t, ptr.object, &off, bytes);
            let v = self.bits_to_term(&raw, width);
            self.define(t, inst, v, &pred[t]);
        }
    }

    /// `__atomic_has_taken_value(p, i, v)`: whether a repetition-free atomic returned `value`
    /// at `ptr` so far.
    pub(super) fn atomic_taken(&mut self, inst: InstId, ptr: Pointer, value: Operand, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        for t in 0..2 {
            let off = self.bv(t, ptr.offset);
            let v = self.bv(t, value);
            let bits = self.analysis.value_bits[ptr.object];
            let before = self.history_taken(t, ptr.object, &off, &v, bits);
            let (hits, unknown): (Vec<Bool<'ctx>>, bool) = match self.state.used(ptr.object) {
                Some(used) if self.abs.repetition_free[ptr.object] => (
                    used.entries
                        .iter()
                        .map(|(u, ran, o, z)| {
                            let mut c = vec![ran.clone(), o._eq(&off), z._eq(&resize(&v, z.get_size()))];
                            if *u != t && self.kernel.objects[ptr.object].space == Space::Shared {
                                c.push(self.symbols.same_group().clone());
                            }
                            crate::term::and(ctx, &c.iter().collect::<Vec<_>>())
                        })
                        .collect(),
                    false,
                ),
                _ => (vec![], !self.abs.repetition_free[ptr.object]),
            };
            let mut taken = or(ctx, &hits.iter().collect::<Vec<_>>());
            if let Some(h) = before {
                taken = Bool::or(ctx, &[&taken, &h]);
            }
            if unknown {
                // No `used` map: nothing is known of what was taken.
                let f = self.symbols.fresh_bool("atomic_taken");
                taken = Bool::or(ctx, &[&taken, &f]);
            }
            self.define(t, inst, Term::B(taken), &pred[t]);
        }
    }

    /// Whether thread `t`'s counter `o` returned `value` at `off` before a loop cut forgot its
    /// history (None: nothing was forgotten).
    fn history_taken(&self, t: usize, o: ObjectId, off: &BV<'ctx>, value: &BV<'ctx>, bits: u32) -> Option<Bool<'ctx>> {
        let ctx = self.ctx;
        let h = self.state.used(o)?.history.clone()?;
        let group = if self.kernel.objects[o].space == Space::Shared {
            let g = &self.symbols.tid(t).group;
            let [gx, gy, _] = &self.symbols.sizes()[1];
            g[0].bvadd(&g[1].bvmul(gx)).bvadd(&g[2].bvmul(&gx.bvmul(gy)))
        } else {
            BV::from_u64(ctx, 0, 32)
        };
        let v = resize(value, bits);
        Some(h.apply(&[&group, off, &v]).as_bool().expect("a Boolean"))
    }

    fn bits_to_term(&self, raw: &BV<'ctx>, width: u16) -> Term<'ctx> {
        if width == 1 {
            Term::B(raw.extract(0, 0)._eq(&BV::from_u64(self.ctx, 1, 1)))
        } else {
            Term::V(resize(raw, width as u32))
        }
    }

    /// Thread `t` reads `bytes` bytes of object `o` at byte offset `off`.
    pub(super) fn read(&mut self, t: usize, o: ObjectId, off: &BV<'ctx>, bytes: u32) -> BV<'ctx> {
        let ctx = self.ctx;
        match self.abs.model(o) {
            Model::Private => self.state.private(t, o).expect("private array").read(ctx, off, bytes),
            Model::Equality => self.eq_copy(t, o).expect("equality array").read(ctx, off, bytes),
            Model::Adversarial => {
                let name = format!("{}$read", self.kernel.objects[o].name);
                self.symbols.fresh_bv(&name, bytes * 8)
            }
        }
    }

    /// The equality-abstraction copy thread `t` uses for object `o`: thread 2 shares thread
    /// 1's copy of shared memory only when both are in the same group.
    pub(super) fn eq_copy(&self, t: usize, o: ObjectId) -> Option<Mem<'ctx>> {
        let [a, b] = self.state.eq_copies(o)?;
        if t == 0 || self.kernel.objects[o].space != Space::Shared {
            return Some(a.clone());
        }
        Some(Mem { arr: self.symbols.same_group().ite(&a.arr, &b.arr), granule: a.granule, table: None })
    }

    pub(super) fn write(&mut self, t: usize, o: ObjectId, off: &BV<'ctx>, v: &BV<'ctx>, bytes: u32, pred: &Bool<'ctx>) {
        let ctx = self.ctx;
        match self.abs.model(o) {
            Model::Private => {
                let m = self.state.private_mut(t, o).expect("private array");
                let new = m.write(ctx, off, v, bytes);
                m.arr = pred.ite(&new, &m.arr);
                m.table = None;
            }
            Model::Equality => {
                let shared = self.kernel.objects[o].space == Space::Shared;
                let sg = self.symbols.same_group().clone();
                let copies = self.state.eq_copies_mut(o).expect("equality array");
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

    /// `__array_snapshot(dst, src)`: `dst`'s contents become `src`'s for each thread that
    /// executes it. When the two are modelled differently (or with different granules), `dst`
    /// gets arbitrary contents instead: an over-approximation.
    pub(super) fn array_snapshot(&mut self, dst: ObjectId, src: ObjectId, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        self.plain_write(dst);
        let same = self.abs.model(dst) == self.abs.model(src) && self.abs.granule[dst] == self.abs.granule[src];
        let name = self.kernel.objects[dst].name.clone();
        match self.abs.model(dst) {
            Model::Adversarial => {}
            Model::Private => {
                for t in 0..2 {
                    let new = if same {
                        self.state.private(t, src).expect("private array").arr.clone()
                    } else {
                        let g = self.state.private(t, dst).expect("private array").granule;
                        self.symbols.fresh_mem(&name, g).arr
                    };
                    let m = self.state.private_mut(t, dst).expect("private array");
                    m.arr = pred[t].ite(&new, &m.arr);
                    m.table = None;
                }
            }
            Model::Equality => {
                let either = Bool::or(ctx, &[&pred[0], &pred[1]]);
                let sources: [Array<'ctx>; 2] = if same {
                    let s = self.state.eq_copies(src).expect("equality array");
                    [s[0].arr.clone(), s[1].arr.clone()]
                } else {
                    let g = self.state.eq_copies(dst).expect("equality array")[0].granule;
                    let f = self.symbols.fresh_mem(&name, g).arr;
                    [f.clone(), f]
                };
                let copies = self.state.eq_copies_mut(dst).expect("equality array");
                for (c, s) in copies.iter_mut().zip(sources) {
                    c.arr = either.ite(&s, &c.arr);
                    c.table = None;
                }
            }
        }
    }

    /// An external function's access (`__writes_to(p)`, `__reads_from(p)`): thread 1's log may
    /// now hold it at any offset; a write leaves the contents arbitrary.
    pub(super) fn external(&mut self, inst: InstId, o: ObjectId, kind: LogKind, pred: &[Bool<'ctx>; 2]) {
        let ctx = self.ctx;
        let access = AccessKind::of_log(kind);
        if self.state.logs(o).is_some() {
            let width = self.kernel.objects[o].elem_size.max(1);
            // An element of the array (GPUVerify's offsets are element indices).
            let index = self.symbols.fresh_bv("external_index", 64);
            let off = crate::term::mul(&index, &BV::from_u64(ctx, width as u64, 64));
            let bits = self.state.logs(o).expect("logs").read.value.get_size();
            let value = self.symbols.fresh_bv("external_value", bits);
            let changed = self.symbols.fresh_bool("external_changed");
            self.log_access(AccessAt { inst, kind: access, object: o, external: true }, &off, width, &value, &changed, &pred[0]);
        }
        if kind == LogKind::Write {
            self.plain_write(o);
            if self.state.eq_copies(o).is_some() {
                let name = self.kernel.objects[o].name.clone();
                let g = self.state.eq_copies(o).expect("equality array")[0].granule;
                let fresh = self.symbols.fresh_mem(&name, g);
                let either = Bool::or(ctx, &[&pred[0], &pred[1]]);
                for c in self.state.eq_copies_mut(o).expect("equality array").iter_mut() {
                    c.arr = either.ite(&fresh.arr, &c.arr);
                    c.table = None;
                }
            }
            if self.abs.model(o) == Model::Private {
                let name = self.kernel.objects[o].name.clone();
                for t in 0..2 {
                    let g = self.state.private(t, o).expect("private array").granule;
                    let fresh = self.symbols.fresh_mem(&name, g);
                    let m = self.state.private_mut(t, o).expect("private array");
                    m.arr = pred[t].ite(&fresh.arr, &m.arr);
                    m.table = None;
                }
            }
        }
    }

    /// `--check-array-bounds`: an access of `bytes` bytes at `off` must lie within its array,
    /// when the array's size is known.
    pub(super) fn bounds(&mut self, inst: InstId, o: ObjectId, off: &[BV<'ctx>; 2], bytes: u32, pred: &[Bool<'ctx>; 2]) {
        if !self.opts.array_bounds {
            return;
        }
        let obj = &self.kernel.objects[o];
        if obj.dims.is_empty() || obj.dims.contains(&0) {
            return;
        }
        let size: u64 = obj.dims.iter().product::<u64>() * obj.elem_size as u64;
        let ctx = self.ctx;
        for t in 0..2 {
            let end = off[t].bvadd(&BV::from_u64(ctx, bytes as u64, 64));
            // Negative offsets wrap to large unsigned values, so one unsigned test suffices.
            let inside = Bool::and(ctx, &[&end.bvule(&BV::from_u64(ctx, size, 64)), &off[t].bvult(&BV::from_u64(ctx, size, 64))]);
            let cond = Bool::and(ctx, &[self.state.ok(), &pred[t], &inside.not()]);
            self.property(cond, PropKind::OutOfBounds { inst, thread: t, off: off[t].clone() });
        }
    }

    /// Writing constant memory is an error (GPUVerify: "possible attempt to modify constant
    /// memory").
    pub(super) fn constant_write(&mut self, inst: InstId, o: ObjectId, pred: &[Bool<'ctx>; 2]) {
        if self.kernel.objects[o].space != Space::Constant {
            return;
        }
        for t in 0..2 {
            let cond = Bool::and(self.ctx, &[self.state.ok(), &pred[t]]);
            if !is_false(&cond) {
                self.property(cond, PropKind::ConstantWrite { inst, thread: t });
            }
        }
    }
}
