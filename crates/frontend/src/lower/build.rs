//! The KIR builder of the lowering: new blocks, instructions appended to a block, and the helpers
//! that fold what they can (`emit`: operations on constants, with `fold`), offset arithmetic
//! (`add_offset`) and width changes (`resize`, `sext64`).

use super::Lowerer;
use syncfix_kir::{BinOp, Block, BlockId, CastOp, InstId, InstKind, Operand, Span, Terminator};

/// The cast from `from` to `w` bits (`None`: the widths are equal).
pub(super) fn resize_op(from: u16, w: u16, signed: bool) -> Option<CastOp> {
    match from.cmp(&w) {
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Greater => Some(CastOp::Trunc),
        std::cmp::Ordering::Less if signed => Some(CastOp::SExt),
        std::cmp::Ordering::Less => Some(CastOp::ZExt),
    }
}

impl<'a> Lowerer<'a> {
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
            InstKind::Bin { op, lhs: Operand::Const { bits: a, .. }, rhs: Operand::Const { bits: b, .. } } => match super::fold::bin(op, width, a, b) {
                Ok(r) => Operand::konst(width, r),
                Err(_) => Operand::Value(self.push(cur, kind, width, span)),
            },
            InstKind::Cast { op, arg: Operand::Const { bits, width: from } } => Operand::konst(width, super::fold::cast(op, from, width, bits)),
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
        match resize_op(self.k.width(v), w, signed) {
            None => v,
            Some(op) => self.emit(cur, InstKind::Cast { op, arg: v }, w, span),
        }
    }

    /// As [`Self::resize`], but a constant is converted by an instruction too. The library
    /// models (`library.rs`) have always converted their operands so; folding them would
    /// change their KIR, which the refactoring of issue 14 must not.
    pub(crate) fn resize_unfolded(&mut self, cur: BlockId, v: Operand, w: u16, signed: bool, span: &Span) -> Operand {
        match resize_op(self.k.width(v), w, signed) {
            None => v,
            Some(op) => Operand::Value(self.push(cur, InstKind::Cast { op, arg: v }, w, span)),
        }
    }

    pub(crate) fn sext64(&mut self, cur: BlockId, v: Operand, span: &Span) -> Operand {
        let w = self.k.width(v);
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
}
