//! The KIR builder of the lowering ([`KirBuilder`]): it owns the kernel being built and appends
//! to it — new blocks, instructions appended to a block, one helper per operation (`bin`,
//! `cmp`, `select`, `truth`), and the helpers that fold what they can (`emit`: operations on
//! constants, with `fold`), offset arithmetic (`add_offset`) and width changes (`resize`,
//! `sext64`). It knows nothing of LLVM: emission code needs only the builder, not the whole
//! [`Lowerer`](super::Lowerer). Emission helpers of one model (a library function's, the
//! specifications') are `impl KirBuilder` blocks in that model's module.

use syncfix_kir::{BinOp, Block, BlockId, CastOp, CmpPred, InstId, InstKind, Kernel, Operand, Span, Terminator};

/// The cast from `from` to `w` bits (`None`: the widths are equal).
pub(super) fn resize_op(from: u16, w: u16, signed: bool) -> Option<CastOp> {
    match from.cmp(&w) {
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Greater => Some(CastOp::Trunc),
        std::cmp::Ordering::Less if signed => Some(CastOp::SExt),
        std::cmp::Ordering::Less => Some(CastOp::ZExt),
    }
}

/// The kernel being built, and the helpers that append to it.
pub(crate) struct KirBuilder {
    pub(crate) k: Kernel,
}

impl KirBuilder {
    pub(crate) fn new(k: Kernel) -> Self {
        KirBuilder { k }
    }

    /// The width of `v` in bits.
    pub(crate) fn width(&self, v: Operand) -> u16 {
        self.k.width(v)
    }

    pub(crate) fn new_block(&mut self) -> BlockId {
        self.k.blocks.push(Block { insts: vec![], term: Terminator::Unreachable, term_span: Span::default() })
    }

    pub(crate) fn push(&mut self, b: BlockId, kind: InstKind, width: u16, span: &Span) -> InstId {
        self.k.push_inst(b, kind, width, span.clone())
    }

    /// Emits an instruction into `cur`; an operation on constants is folded exactly instead
    /// (`fold`), unless LLVM gives it no value, when it is emitted.
    pub(super) fn emit(&mut self, cur: BlockId, kind: InstKind, width: u16, span: &Span) -> Operand {
        match kind {
            InstKind::Bin { op, lhs: Operand::Const { bits: a, .. }, rhs: Operand::Const { bits: b, .. } } => {
                match super::fold::bin(op, width, a, b) {
                    Ok(r) => Operand::konst(width, r),
                    Err(_) => Operand::Value(self.push(cur, kind, width, span)),
                }
            }
            InstKind::Cast { op, arg: Operand::Const { bits, width: from } } => {
                Operand::konst(width, super::fold::cast(op, from, width, bits))
            }
            _ => Operand::Value(self.push(cur, kind, width, span)),
        }
    }

    /// `a + b` on 64-bit byte offsets, folded when an operand is 0 or both are constants.
    pub(crate) fn add_offset(&mut self, cur: BlockId, a: Operand, b: Operand, span: &Span) -> Operand {
        match (a, b) {
            (x, Operand::Const { bits: 0, .. }) => x,
            (Operand::Const { bits: 0, .. }, y) => y,
            (Operand::Const { bits: x, .. }, Operand::Const { bits: y, .. }) => Operand::konst(64, x.wrapping_add(y)),
            (x, y) => self.emit(cur, InstKind::Bin { op: BinOp::Add, lhs: x, rhs: y }, 64, span),
        }
    }

    /// `v` converted to `w` bits: sign-extended (`signed`) or zero-extended, or truncated; a
    /// constant is converted here rather than by an instruction.
    pub(crate) fn resize(&mut self, cur: BlockId, v: Operand, w: u16, signed: bool, span: &Span) -> Operand {
        match resize_op(self.width(v), w, signed) {
            None => v,
            Some(op) => self.emit(cur, InstKind::Cast { op, arg: v }, w, span),
        }
    }

    /// As [`Self::resize`], but a constant is converted by an instruction too. The library
    /// models (`library.rs`) have always converted their operands so; folding them would
    /// change their KIR, which the refactoring of issue 14 must not.
    pub(crate) fn resize_unfolded(&mut self, cur: BlockId, v: Operand, w: u16, signed: bool, span: &Span) -> Operand {
        match resize_op(self.width(v), w, signed) {
            None => v,
            Some(op) => Operand::Value(self.push(cur, InstKind::Cast { op, arg: v }, w, span)),
        }
    }

    pub(crate) fn sext64(&mut self, cur: BlockId, v: Operand, span: &Span) -> Operand {
        let w = self.width(v);
        match v {
            _ if w == 64 => v,
            Operand::Const { bits, width } => {
                let sign = (bits >> (width - 1)) & 1 == 1;
                let ext = if sign { bits | (u128::MAX << width) } else { bits };
                Operand::konst(64, ext)
            }
            _ if w > 64 => self.emit(cur, InstKind::Cast { op: CastOp::Trunc, arg: v }, 64, span),
            _ => self.emit(cur, InstKind::Cast { op: CastOp::SExt, arg: v }, 64, span),
        }
    }

    /// `lhs op rhs` at `lhs`'s width, always an instruction (never folded; the library models
    /// have always emitted theirs so).
    pub(crate) fn bin(&mut self, cur: BlockId, op: BinOp, lhs: Operand, rhs: Operand, span: &Span) -> Operand {
        let w = self.width(lhs);
        Operand::Value(self.push(cur, InstKind::Bin { op, lhs, rhs }, w, span))
    }

    /// `lhs pred rhs` (width 1), always an instruction.
    pub(crate) fn cmp(&mut self, cur: BlockId, pred: CmpPred, lhs: Operand, rhs: Operand, span: &Span) -> Operand {
        Operand::Value(self.push(cur, InstKind::Cmp { pred, lhs, rhs }, 1, span))
    }

    /// `cond ? then : els` at `then`'s width, always an instruction.
    pub(crate) fn select(&mut self, cur: BlockId, cond: Operand, then: Operand, els: Operand, span: &Span) -> Operand {
        let w = self.width(then);
        Operand::Value(self.push(cur, InstKind::Select { cond, then, els }, w, span))
    }

    /// `v` as a Boolean (width 1).
    pub(crate) fn truth(&mut self, cur: BlockId, v: Operand, span: &Span) -> Operand {
        let w = self.width(v);
        if w == 1 {
            v
        } else {
            Operand::Value(self.push(cur, InstKind::Cmp { pred: CmpPred::Ne, lhs: v, rhs: Operand::konst(w, 0) }, 1, span))
        }
    }
}
