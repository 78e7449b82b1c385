//! One step of a thread: an instruction's value, a memory access, a barrier's wait, a
//! branch (with the loop iterations and the taint of the path).

use crate::graph::{dims, path_taint, place};
use crate::machine::*;
use crate::{float, pattern_byte, value, MAX_RECORDS};
use crate::{Fill, Target};
use std::time::Instant;
use syncfix_kir::{
    AtomicOp, Barrier, BlockId, EntityRef, Fences, Guard, InstId, InstKind, ObjectId, Operand, Scope, Space, Terminator, TileMask,
};

impl<'a> Machine<'a> {
    pub(crate) fn val(&self, t: usize, op: Operand) -> (u128, Taint) {
        match op {
            Operand::Const { bits, .. } => (bits, 0),
            Operand::Value(v) => (self.threads[t].vals[v.index()], self.threads[t].taint[v.index()]),
        }
    }

    pub(crate) fn set(&mut self, t: usize, v: InstId, x: u128, taint: Taint) {
        let w = self.k.insts[v].width;
        let th = &mut self.threads[t];
        th.vals[v.index()] = x & value::mask(w);
        th.taint[v.index()] = taint;
    }

    pub(crate) fn mem(&mut self, t: usize, o: ObjectId) -> &mut Mem {
        match self.k.objects[o].space {
            Space::Global | Space::Constant => self.global.entry(o).or_default(),
            Space::Shared => {
                let b = self.threads[t].block;
                self.shared[b].entry(o).or_default()
            }
            Space::Private => self.threads[t].private.entry(o).or_default(),
        }
    }

    /// The initial byte at `off` of `o`: the model's or the kernel's, else the run's fill.
    pub(crate) fn initial_byte(&mut self, o: ObjectId, off: u64) -> u8 {
        if let Some(&b) = self.initial.get(&(o, off)) {
            return b;
        }
        let obj = &self.k.objects[o];
        if obj.space == Space::Private && !obj.uniform {
            return 0;
        }
        self.read_input = true;
        match self.run.fill {
            Fill::Zero => 0,
            Fill::Small if off.is_multiple_of(4) => (off / 4 % 3) as u8,
            Fill::Small => 0,
            Fill::Pattern => pattern_byte(o.index() as u32, off),
        }
    }

    pub(crate) fn touch(&mut self, o: ObjectId, off: u64, width: u32) {
        if self.k.objects[o].space == Space::Global {
            let end = off.saturating_add(width as u64);
            let e = self.extents.entry(o).or_insert(0);
            *e = (*e).max(end);
        }
    }

    pub(crate) fn load(&mut self, t: usize, o: ObjectId, off: u64, width: u32) -> (u128, Taint) {
        self.touch(o, off, width);
        let mut v = 0u128;
        let mut taint = 0;
        for i in 0..width.min(16) as u64 {
            let at = off.wrapping_add(i);
            let (b, bt) = match self.mem(t, o).bytes.get(&at) {
                Some(&x) => x,
                None => (self.initial_byte(o, at), 0),
            };
            v |= (b as u128) << (8 * i);
            taint = join(taint, bt);
        }
        (v, taint)
    }

    pub(crate) fn store(&mut self, t: usize, o: ObjectId, off: u64, width: u32, v: u128, taint: Taint) {
        self.touch(o, off, width);
        let mem = self.mem(t, o);
        for i in 0..width.min(16) as u64 {
            mem.bytes.insert(off.wrapping_add(i), ((v >> (8 * i)) as u8, taint));
        }
    }

    /// The loop iterations of thread `t` at block `b`, outermost first.
    pub(crate) fn iterations(&self, t: usize, b: BlockId) -> Vec<(u32, u64)> {
        let mut out = vec![];
        let mut l = self.cfg.loop_of[b];
        while let Some(x) = l {
            out.push((self.loop_line[x], self.threads[t].iters[x]));
            l = self.cfg.loops[x].parent;
        }
        out.reverse();
        out
    }

    pub(crate) fn record(&mut self, t: usize, inst: InstId, o: ObjectId, off: u64, width: u32, write: bool, atomic: bool, taint: Taint) {
        self.threads[t].last_records.clear();
        let Target::Race { object, insts, .. } = self.target else { return };
        if *object != o {
            return;
        }
        for which in 0..2 {
            if insts[which] != inst {
                continue;
            }
            self.reached[which] = true;
            if self.records.len() >= MAX_RECORDS {
                return;
            }
            let th = &self.threads[t];
            let bar = th.fenced.len() as u64;
            let rec = Record {
                thread: t,
                which,
                lo: off,
                hi: off.saturating_add(width as u64),
                write,
                atomic,
                bar,
                until: bar,
                tiles: th.tiles,
                grids: th.grids,
                iters: self.iterations(t, self.k.insts[inst].block),
                taint: join(taint, path_taint(th)),
            };
            self.records.push(rec);
            self.threads[t].last_records.push(self.records.len() - 1);
        }
    }

    /// Executes thread `t`'s next instruction or terminator.
    pub(crate) fn step(&mut self, t: usize) -> Result<(), String> {
        self.steps += 1;
        if self.steps > self.input.max_steps {
            return Err(format!("the replay ran past its budget of {} instructions", self.input.max_steps));
        }
        if self.steps.is_multiple_of(65536) && Instant::now() >= self.run.deadline {
            return Err(format!("the replay ran out of its {:.1} s", self.run.budget.as_secs_f64()));
        }
        let k = self.k;
        let (b, idx) = (self.threads[t].at, self.threads[t].idx);
        let block = &k.blocks[b];
        if idx >= block.insts.len() {
            return self.terminate(t, b);
        }
        self.threads[t].idx += 1;
        let v = block.insts[idx];
        let inst = &k.insts[v];
        match &inst.kind {
            InstKind::Phi { .. } | InstKind::Anchor(_) | InstKind::Candidate { .. } | InstKind::Assert { .. } => {}
            InstKind::Permission { .. } | InstKind::External { .. } => {}
            InstKind::AsyncPending { object } => self.async_pending(t, *object),
            InstKind::AsyncWait { guard } => self.async_wait(t, *guard),
            InstKind::Param { index } => {
                let x = self.run.params.iter().find(|(i, _)| i == index).map_or(0, |(_, x)| *x);
                self.set(t, v, x, 0);
            }
            InstKind::Builtin(bi) => {
                let th = &self.threads[t];
                let x = match bi {
                    syncfix_kir::Builtin::LocalId(d) => th.id.local[*d as usize],
                    syncfix_kir::Builtin::GroupId(d) => th.id.group[*d as usize],
                    syncfix_kir::Builtin::LocalSize(d) => self.input.block_dim[*d as usize],
                    syncfix_kir::Builtin::NumGroups(d) => self.input.grid_dim[*d as usize],
                };
                self.set(t, v, x as u128, 0);
            }
            InstKind::Havoc => self.set(t, v, 0, taint_of(v)),
            InstKind::Bin { op, lhs, rhs } => {
                let ((a, ta), (c, tc)) = (self.val(t, *lhs), self.val(t, *rhs));
                self.set(t, v, value::bin(*op, a, c, inst.width), join(ta, tc));
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let ((a, ta), (c, tc)) = (self.val(t, *lhs), self.val(t, *rhs));
                let r = value::cmp(*pred, a, c, k.width(*lhs));
                self.set(t, v, r as u128, join(ta, tc));
            }
            InstKind::Cast { op, arg } => {
                let (a, ta) = self.val(t, *arg);
                self.set(t, v, value::cast(*op, a, k.width(*arg), inst.width), ta);
            }
            InstKind::Select { cond, then, els } => {
                let (c, tc) = self.val(t, *cond);
                let (x, tx) = self.val(t, if c & 1 == 1 { *then } else { *els });
                self.set(t, v, x, join(tc, tx));
            }
            InstKind::Float { func, args } => self.float(t, v, func, args),
            InstKind::Load { ptr, width } | InstKind::SpecLoad { ptr, width } => {
                let (off, to) = self.val(t, ptr.offset);
                let (x, tx) = self.load(t, ptr.object, off as u64, *width);
                if matches!(inst.kind, InstKind::Load { .. }) {
                    self.record(t, v, ptr.object, off as u64, *width, false, false, to);
                }
                self.set(t, v, x, join(tx, to));
            }
            InstKind::Store { ptr, value: val, width } => {
                let (off, to) = self.val(t, ptr.offset);
                let (x, tx) = self.val(t, *val);
                self.record(t, v, ptr.object, off as u64, *width, true, false, to);
                self.store(t, ptr.object, off as u64, *width, x, tx);
            }
            InstKind::Atomic { op, ptr, args, width } => self.atomic(t, v, *op, ptr.object, ptr.offset, args, *width),
            InstKind::Barrier(bar) => self.barrier(t, v, bar),
            InstKind::Assume { cond } => {
                if self.val(t, *cond).0 & 1 == 0 {
                    self.stops.push(format!("an assumption at {} does not hold for {}", place(k, v), self.describe(t)));
                    self.threads[t].state = State::Stopped;
                }
            }
            InstKind::Enabled => self.set(t, v, 1, 0),
            InstKind::Other { arg } | InstKind::Old { arg } => {
                let (x, tx) = self.val(t, *arg);
                self.set(t, v, x, tx);
            }
            InstKind::LogQuery { .. } | InstKind::AtomicTaken { .. } => self.set(t, v, 0, taint_of(v)),
            InstKind::Snapshot { dst, src } => {
                let copy = self.mem(t, *src).clone();
                *self.mem(t, *dst) = copy;
            }
        }
        Ok(())
    }

    /// `asyncpending`: thread `t`'s last access, to `object`, is an asynchronous copy's.
    fn async_pending(&mut self, t: usize, object: ObjectId) {
        for i in self.threads[t].last_records.clone() {
            if matches!(self.target, Target::Race { object: o, .. } if o == &object) && self.records[i].until != u64::MAX {
                // Which thread copies which element is the implementation's choice
                // (the verifier's arbitrary share and rotation): any is a real run.
                self.records[i].taint = 0;
                self.records[i].until = u64::MAX;
                self.threads[t].pending.push(i);
            }
        }
    }

    /// `asyncwait`: thread `t`'s pending asynchronous copies are complete from now on.
    fn async_wait(&mut self, t: usize, guard: Guard) {
        let on = match guard {
            Guard::Always => true,
            Guard::Var(var) => self.input.assignment.get(var.index()).copied().unwrap_or(true),
        };
        if on {
            let now = self.threads[t].fenced.len() as u64;
            for i in std::mem::take(&mut self.threads[t].pending) {
                self.records[i].until = now;
            }
        }
    }

    /// `float.NAME(args)` for instruction `v` of thread `t`.
    fn float(&mut self, t: usize, v: InstId, func: &str, args: &[Operand]) {
        let (k, inst) = (self.k, &self.k.insts[v]);
        let vals: Vec<(u128, u16)> = args.iter().map(|a| (self.val(t, *a).0, k.width(*a))).collect();
        let taint = args.iter().fold(0, |acc, a| join(acc, self.val(t, *a).1));
        match float::eval(func, &vals, inst.width) {
            Some(x) => self.set(t, v, x, taint),
            // An asynchronous copy's rotation (the prelude's model: thread `t` copies
            // element `t + r`): 1, each element copied by another thread than the one
            // that reads it in place, a distribution an implementation may choose.
            None if func.starts_with("__syncfix_async_rotation") => self.set(t, v, 1, 0),
            None => {
                // Deterministic: the same function of the same arguments gives the same value.
                let mut h: u64 = 0xcbf2_9ce4_8422_2325;
                for byte in func.bytes().chain(vals.iter().flat_map(|(x, _)| x.to_le_bytes())) {
                    h = (h ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
                }
                self.set(t, v, h as u128, taint_of(v));
            }
        }
    }

    /// A barrier reached by thread `t` (instruction `v`): the thread waits at it when its
    /// barrier variable is on.
    fn barrier(&mut self, t: usize, v: InstId, bar: &Barrier) {
        let on = match bar.guard {
            Guard::Always => true,
            Guard::Var(var) => self.input.assignment.get(var.index()).copied().unwrap_or(true),
        };
        if on {
            let (local, global) = match bar.fences {
                Fences::Const { local, global } => (local, global),
                Fences::Dynamic(o) => {
                    let f = self.val(t, o).0;
                    (f & 1 == 1, f & 2 == 2)
                }
            };
            let scope = match bar.scope {
                Scope::Block => WaitScope::Block,
                Scope::Grid => WaitScope::Grid,
                Scope::Tile { size, mask } => WaitScope::Tile {
                    size,
                    mask: match mask {
                        TileMask::Const(m) => m,
                        TileMask::Dynamic(o) => self.val(t, o).0 as u32,
                    },
                },
            };
            self.threads[t].state = State::Wait(Wait { inst: v, scope, local, global });
        }
    }

    /// An atomic read-modify-write of `width` bytes of `o` at `offset`; its value the old one.
    pub(crate) fn atomic(&mut self, t: usize, v: InstId, op: AtomicOp, o: ObjectId, offset: Operand, args: &[Operand], width: u32) {
        let (off, to) = self.val(t, offset);
        let (old, told) = self.load(t, o, off as u64, width);
        let bits = (width * 8) as u16;
        let arg = |i: usize| args.get(i).map_or((0, 0), |a| self.val(t, *a));
        let ((a, ta), (c, tc)) = (arg(0), arg(1));
        let f = |name: &str| float::eval(&format!("{name}.{bits}"), &[(old, bits), (a, bits)], bits);
        let new = match op {
            AtomicOp::Xchg => Some(a),
            AtomicOp::Add => Some(value::bin(syncfix_kir::BinOp::Add, old, a, bits)),
            AtomicOp::Sub => Some(value::bin(syncfix_kir::BinOp::Sub, old, a, bits)),
            AtomicOp::And => Some(old & a),
            AtomicOp::Or => Some(old | a),
            AtomicOp::Xor => Some(old ^ a),
            AtomicOp::Max => Some(if value::signed(old, bits) >= value::signed(a, bits) { old } else { a }),
            AtomicOp::Min => Some(if value::signed(old, bits) <= value::signed(a, bits) { old } else { a }),
            AtomicOp::UMax => Some(old.max(a)),
            AtomicOp::UMin => Some(old.min(a)),
            AtomicOp::FAdd => f("fadd"),
            AtomicOp::FSub => f("fsub"),
            AtomicOp::Inc => Some(if old >= a { 0 } else { old + 1 }),
            AtomicOp::Dec => Some(if old == 0 || old > a { a } else { old - 1 }),
            AtomicOp::CmpXchg => Some(if old == a { c } else { old }),
            AtomicOp::Other => None,
        };
        self.record(t, v, o, off as u64, width, true, true, to);
        match new {
            Some(n) => self.store(t, o, off as u64, width, n, join(told, join(ta, tc))),
            None => self.store(t, o, off as u64, width, old, taint_of(v)),
        }
        self.set(t, v, old, join(told, to));
    }

    pub(crate) fn terminate(&mut self, t: usize, b: BlockId) -> Result<(), String> {
        let k = self.k;
        let next = match &k.blocks[b].term {
            Terminator::Br(n) => *n,
            Terminator::CondBr { cond, then, els } => {
                let (c, tc) = self.val(t, *cond);
                self.tainted_branch(t, b, tc);
                if c & 1 == 1 {
                    *then
                } else {
                    *els
                }
            }
            Terminator::Switch { value, default, cases } => {
                let (x, tx) = self.val(t, *value);
                self.tainted_branch(t, b, tx);
                cases.iter().find(|(c, _)| *c == x).map_or(*default, |(_, n)| *n)
            }
            Terminator::Return => {
                self.threads[t].state = State::Done;
                return Ok(());
            }
            Terminator::Unreachable => {
                self.stops.push(format!("{} reached code the compiler marked unreachable", self.describe(t)));
                self.threads[t].state = State::Stopped;
                return Ok(());
            }
        };
        // Loop iterations: entering a header from inside its loop is the next iteration.
        if let Some(&l) = self.header_of.get(&next) {
            let th = &mut self.threads[t];
            th.iters[l] = if self.cfg.in_loop(b, l) { th.iters[l] + 1 } else { 0 };
        }
        // Where the branches on tainted values meet again, the values the branch chose (the
        // phis) carry the taint.
        let th = &mut self.threads[t];
        let met = th.branches.iter().filter(|(at, _)| *at == next.index()).fold(0, |acc, (_, x)| join(acc, *x));
        th.branches.retain(|(at, _)| *at != next.index());
        // The phis of the next block, all at once from the values at the edge.
        let phis: Vec<(InstId, (u128, Taint))> = k.blocks[next]
            .insts
            .iter()
            .map_while(|&p| match &k.insts[p].kind {
                InstKind::Phi { incoming } => Some((p, incoming)),
                _ => None,
            })
            .filter_map(|(p, incoming)| incoming.iter().find(|(from, _)| *from == b).map(|(_, o)| (p, self.val(t, *o))))
            .collect();
        for (p, (x, tx)) in phis {
            self.set(t, p, x, join(tx, met));
        }
        let th = &mut self.threads[t];
        th.at = next;
        th.idx = 0;
        Ok(())
    }

    /// Thread `t` branches at the end of `b` on a value tainted by `taint` (0: untainted):
    /// what it does until the branch's post-dominator depends on that value.
    pub(crate) fn tainted_branch(&mut self, t: usize, b: BlockId, taint: Taint) {
        if taint == 0 {
            return;
        }
        let meet = self.ipdom[b.index()];
        let th = &mut self.threads[t];
        if !th.branches.iter().any(|(at, _)| *at == meet) {
            th.branches.push((meet, taint));
        }
    }

    pub(crate) fn describe(&self, t: usize) -> String {
        let id = self.threads[t].id;
        format!("thread {} of block {}", dims(id.local), dims(id.group))
    }
}
