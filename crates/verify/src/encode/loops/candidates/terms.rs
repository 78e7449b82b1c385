//! The terms candidates are made of: a thread's offsets in a loop, terms invariant in it, and\n//! its counters (their steps, offsets, bounds in the loop's exit conditions).

use super::*;

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// The byte offsets (thread 1's terms, at most 4, distinct) at which loop `l`'s accesses
    /// of `kind` to `object` access it, where they are functions of the thread's ids, the
    /// launch sizes, the kernel's parameters and constants only ([`Self::invariant_term`]).
    pub(super) fn thread_offsets(&self, l: LoopId, object: ObjectId, kind: AccessKind) -> Vec<BV<'ctx>> {
        let mut out: Vec<BV<'ctx>> = vec![];
        for &b in &self.cfg.loops[l].blocks {
            for &i in &self.kernel.blocks[b].insts {
                let ptr = match (&self.kernel.insts[i].kind, kind) {
                    (InstKind::Load { ptr, .. }, AccessKind::Read) | (InstKind::Store { ptr, .. }, AccessKind::Write) => ptr,
                    (InstKind::Atomic { ptr, .. }, AccessKind::Atomic) => ptr,
                    _ => continue,
                };
                if ptr.object != object {
                    continue;
                }
                if let Some(Term::V(t)) = self.invariant_term(0, ptr.offset, 0) {
                    let t = t.simplify();
                    if out.len() < 4 && !out.iter().any(|o| o.to_string() == t.to_string()) {
                        out.push(t);
                    }
                }
            }
        }
        out
    }

    /// Thread `t`'s term of `op` when it is a function of the thread's ids, the launch sizes,
    /// the kernel's parameters and constants only (so the same wherever it is computed);
    /// `None` otherwise (a loaded value, a phi, an arbitrary value).
    pub(super) fn invariant_term(&self, t: usize, op: Operand, depth: u32) -> Option<Term<'ctx>> {
        if depth > 64 {
            return None;
        }
        let i = match op {
            Operand::Const { width, bits } => return Some(const_term(self.ctx, bits, width)),
            Operand::Value(i) => i,
        };
        let inst = &self.kernel.insts[i];
        let width = inst.width;
        Some(match &inst.kind {
            InstKind::Param { index } => self.symbols.known_param(*index)?.clone(),
            InstKind::Builtin(b) => {
                let v = match b {
                    syncfix_kir::Builtin::LocalId(d) => self.symbols.tid(t).local[*d as usize].clone(),
                    syncfix_kir::Builtin::GroupId(d) => self.symbols.tid(t).group[*d as usize].clone(),
                    syncfix_kir::Builtin::LocalSize(d) => self.symbols.sizes()[0][*d as usize].clone(),
                    syncfix_kir::Builtin::NumGroups(d) => self.symbols.sizes()[1][*d as usize].clone(),
                };
                Term::V(crate::term::resize(&v, width as u32))
            }
            InstKind::Bin { op, lhs, rhs } => {
                self.bin(*op, self.invariant_term(t, *lhs, depth + 1)?, self.invariant_term(t, *rhs, depth + 1)?)
            }
            InstKind::Cast { op, arg } => self.cast(*op, self.invariant_term(t, *arg, depth + 1)?, width),
            _ => return None,
        })
    }

    /// `-c` in `width` bits.
    pub(super) fn neg(&self, c: u128, width: u16) -> u128 {
        let mask = if width >= 128 { u128::MAX } else { (1u128 << width) - 1 };
        (c.wrapping_neg()) & mask
    }

    /// How header phi `phi` of loop `l` changes along the back edges (a guess: the
    /// candidates it suggests are checked).
    pub(super) fn step_of(&self, l: LoopId, phi: InstId) -> Step {
        let InstKind::Phi { incoming } = &self.kernel.insts[phi].kind else { return Step::Other };
        let w = self.kernel.insts[phi].width;
        let mut steps = vec![];
        for (b, o) in incoming {
            if !self.cfg.in_loop(*b, l) {
                continue;
            }
            steps.push(match self.offset_from(*o, phi, w, 8) {
                Some(0) => Step::Other,
                Some(c) => Step::Add(c),
                None if self.added_value(l, *o, phi).is_some() => Step::AddVar(self.added_value(l, *o, phi).expect("checked")),
                None => match self.halves_or_doubles(*o, phi, 8) {
                    Some(true) => Step::Double,
                    Some(false) => Step::Half,
                    None => Step::Other,
                },
            });
        }
        match steps.as_slice() {
            [s] => s.clone(),
            _ => Step::Other,
        }
    }

    /// `c` when `o` is `phi + c` modulo `2^w`, through additions of constants and casts (the
    /// low bits of a sum depend only on the low bits of its terms).
    pub(super) fn offset_from(&self, o: Operand, phi: InstId, w: u16, depth: u32) -> Option<u128> {
        let mask = if w >= 128 { u128::MAX } else { (1u128 << w) - 1 };
        let Operand::Value(v) = o else { return None };
        if v == phi {
            return Some(0);
        }
        if depth == 0 {
            return None;
        }
        match &self.kernel.insts[v].kind {
            InstKind::Cast { arg, .. } => self.offset_from(*arg, phi, w, depth - 1),
            InstKind::Bin { op: BinOp::Add, lhs, rhs } => match (self.const_of(*lhs, 8), self.const_of(*rhs, 8)) {
                (_, Some(c)) => self.offset_from(*lhs, phi, w, depth - 1).map(|k| k.wrapping_add(c) & mask),
                (Some(c), _) => self.offset_from(*rhs, phi, w, depth - 1).map(|k| k.wrapping_add(c) & mask),
                _ => None,
            },
            InstKind::Bin { op: BinOp::Sub, lhs, rhs } => {
                self.const_of(*rhs, 8).and_then(|c| self.offset_from(*lhs, phi, w, depth - 1).map(|k| k.wrapping_sub(c) & mask))
            }
            _ => None,
        }
    }

    /// `s` when `o` is `phi + s` (through casts) for a value `s` defined outside loop `l`.
    pub(super) fn added_value(&self, l: LoopId, o: Operand, phi: InstId) -> Option<Operand> {
        let Operand::Value(v) = o else { return None };
        match &self.kernel.insts[v].kind {
            InstKind::Cast { arg, .. } => self.added_value(l, *arg, phi),
            InstKind::Bin { op: BinOp::Add, lhs, rhs } => {
                let w = self.kernel.insts[phi].width;
                // The step is the same in every iteration: computed before the loop, or from
                // the thread's ids, the launch sizes, parameters and constants only (clang
                // reads `gridDim.x` again in the loop of a grid-stride loop).
                let same = |o: Operand| self.outside(l, o) || self.invariant_term(0, o, 0).is_some();
                if self.offset_from(*lhs, phi, w, 4) == Some(0) && same(*rhs) && self.kernel.width(*rhs) == w {
                    Some(*rhs)
                } else if self.offset_from(*rhs, phi, w, 4) == Some(0) && same(*lhs) && self.kernel.width(*lhs) == w {
                    Some(*lhs)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// The value of `o` when it is computed from constants only (the lowering leaves
    /// `512 / 32` as an instruction).
    pub(super) fn const_of(&self, o: Operand, depth: u32) -> Option<u128> {
        let v = match o {
            Operand::Const { bits, .. } => return Some(bits),
            Operand::Value(v) => v,
        };
        if depth == 0 {
            return None;
        }
        let w = self.kernel.insts[v].width as u32;
        let mask = if w >= 128 { u128::MAX } else { (1u128 << w) - 1 };
        let r = match &self.kernel.insts[v].kind {
            InstKind::Cast { op, arg } => {
                let a = self.const_of(*arg, depth - 1)?;
                let aw = self.kernel.width(*arg) as u32;
                match op {
                    CastOp::SExt if aw < 128 && (a >> (aw - 1)) & 1 == 1 => a | !((1u128 << aw) - 1),
                    _ => a,
                }
            }
            InstKind::Bin { op, lhs, rhs } => {
                let (a, b) = (self.const_of(*lhs, depth - 1)?, self.const_of(*rhs, depth - 1)?);
                match op {
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::UDiv if b != 0 => a / b,
                    BinOp::URem if b != 0 => a % b,
                    BinOp::Shl if b < 128 => a << b,
                    BinOp::LShr if b < 128 => a >> b,
                    BinOp::And => a & b,
                    BinOp::Or => a | b,
                    BinOp::Xor => a ^ b,
                    _ => return None,
                }
            }
            _ => return None,
        };
        Some(r & mask)
    }

    /// `o` is `phi` multiplied (`Some(true)`) or divided (`Some(false)`) by two, through
    /// casts.
    pub(super) fn halves_or_doubles(&self, o: Operand, phi: InstId, depth: u32) -> Option<bool> {
        let Operand::Value(v) = o else { return None };
        if depth == 0 {
            return None;
        }
        let is_phi = |x: &Operand| self.offset_from(*x, phi, self.kernel.insts[phi].width, 4) == Some(0);
        match &self.kernel.insts[v].kind {
            InstKind::Cast { arg, .. } => self.halves_or_doubles(*arg, phi, depth - 1),
            InstKind::Bin { op: BinOp::Mul, lhs, rhs }
                if (is_phi(lhs) && self.const_of(*rhs, 8) == Some(2)) || (is_phi(rhs) && self.const_of(*lhs, 8) == Some(2)) =>
            {
                Some(true)
            }
            InstKind::Bin { op: BinOp::Add, lhs, rhs } if is_phi(lhs) && is_phi(rhs) => Some(true),
            InstKind::Bin { op: BinOp::Shl, lhs, rhs } if is_phi(lhs) && self.const_of(*rhs, 8) == Some(1) => Some(true),
            InstKind::Bin { op: BinOp::LShr | BinOp::AShr, lhs, rhs } if is_phi(lhs) && self.const_of(*rhs, 8) == Some(1) => Some(false),
            InstKind::Bin { op: BinOp::UDiv | BinOp::SDiv, lhs, rhs } if is_phi(lhs) && self.const_of(*rhs, 8) == Some(2) => Some(false),
            _ => None,
        }
    }

    /// Comparisons in the exit conditions of loop `l` between a header phi (possibly cast, or
    /// its next value) and a value defined outside the loop: (phi, cast, other, signed).
    pub(super) fn guard_comparisons(&self, l: LoopId) -> Vec<(InstId, Option<(CastOp, u16)>, Operand, bool)> {
        let info = &self.analysis.loops[l];
        let mut out = vec![];
        let mut seen = BTreeSet::new();
        for &b in &self.cfg.loops[l].blocks {
            let blk = &self.kernel.blocks[b];
            if !blk.term.successors().iter().any(|s| !self.cfg.in_loop(*s, l)) {
                continue;
            }
            let cond = match &blk.term {
                syncfix_kir::Terminator::CondBr { cond, .. } => *cond,
                _ => continue,
            };
            // The condition, through negations and conjunctions of comparisons.
            let mut work = vec![cond];
            while let Some(o) = work.pop() {
                let Operand::Value(v) = o else { continue };
                if !seen.insert(v) {
                    continue;
                }
                match &self.kernel.insts[v].kind {
                    InstKind::Bin { op: BinOp::And | BinOp::Or | BinOp::Xor, lhs, rhs } => {
                        work.push(*lhs);
                        work.push(*rhs);
                    }
                    InstKind::Cmp { pred, lhs, rhs } => {
                        let signed = matches!(pred, CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge);
                        for (a, b) in [(*lhs, *rhs), (*rhs, *lhs)] {
                            if let Some((phi, cast)) = self.counter_of(l, a, &info.phis) {
                                if self.outside(l, b) {
                                    out.push((phi, cast, b, signed));
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// `o` is a header phi of `l`, a cast of one, or a phi's next value: (phi, cast).
    pub(super) fn counter_of(&self, l: LoopId, o: Operand, phis: &[InstId]) -> Option<(InstId, Option<(CastOp, u16)>)> {
        let Operand::Value(v) = o else { return None };
        if phis.contains(&v) {
            return Some((v, None));
        }
        match &self.kernel.insts[v].kind {
            InstKind::Cast { op, arg: Operand::Value(a) } if phis.contains(a) => Some((*a, Some((*op, self.kernel.insts[v].width)))),
            InstKind::Bin { op: BinOp::Add | BinOp::Sub, lhs: Operand::Value(a), rhs } if phis.contains(a) && rhs.as_const().is_some() => {
                let _ = l;
                Some((*a, None))
            }
            _ => None,
        }
    }

    /// A constant, or a value defined outside loop `l` (the same in every iteration).
    pub(super) fn outside(&self, l: LoopId, o: Operand) -> bool {
        match o {
            Operand::Const { .. } => true,
            Operand::Value(v) => !self.cfg.in_loop(self.kernel.insts[v].block, l),
        }
    }
}
