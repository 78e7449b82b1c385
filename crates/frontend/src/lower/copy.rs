//! LLVM's memory intrinsics of a constant length (`llvm.memcpy`, `llvm.memmove`,
//! `llvm.memset`): copies in chunks, offered as steps with a barrier site between each two.

use super::*;
use syncfix_kir::{BinOp, CastOp};

/// The longest copy call, in bytes, that is offered in steps (a barrier site between each two
/// of its chunks): a longer copy gets no sites inside it.
const MAX_COPY_STEPS: u64 = 32;

/// LLVM's memory intrinsics (`llvm.memcpy`, `llvm.memmove`, `llvm.memset`) of a constant length.
impl<'a> Lowerer<'a> {
    /// The chunk size in bytes for copying `len` bytes of an object with elements of `elem`
    /// bytes: the element size when it divides the length, else the largest power of two
    /// (at most 8) that does.
    pub(super) fn chunk(len: u64, elem: u32) -> u32 {
        if elem > 0 && elem <= 16 && len.is_multiple_of(elem as u64) {
            return elem;
        }
        [8u32, 4, 2, 1].into_iter().find(|w| len.is_multiple_of(*w as u64)).unwrap_or(1)
    }

    /// `llvm.memcpy` / `llvm.memmove` of a constant length: element-sized loads and stores
    /// (real accesses, checked for races), through pointers that may be dynamic or null.
    /// Returns the block where lowering continues.
    pub(super) fn memcpy(&mut self, args: &[LVal], at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let (Some(dst), Some(src), Some(LVal::Scalar(len))) = (args.first(), args.get(1), args.get(2)) else {
            return Err(unsupported("a memcpy of unexpected arguments", loc));
        };
        let Some(len) = self.constant_value(*len, 8) else { return Err(unsupported("a memcpy of a run-time length", loc)) };
        if len > 65536 {
            return Err(unsupported(format!("a memcpy of {len} bytes"), loc));
        }
        let dst = dst.clone();
        let steps_of = self.copy_statement(span);
        let (next, _) = self.through(cur, src.clone(), None, span, loc, &mut |me, b, src, soff| {
            me.through(b, dst.clone(), None, span, loc, &mut |me, b, dst, doff| {
                // A copy that may be done in steps has a step boundary between each two
                // chunks, so that a barrier can stand where the copies of two threads stop
                // overlapping: chunks of the objects' element size (the threads' copies lie
                // whole elements apart), byte by byte when the size is not known.
                let stepped = steps_of.filter(|_| len as u64 <= MAX_COPY_STEPS);
                let (de, se) = (me.kir.k.objects[dst].elem_size, me.kir.k.objects[src].elem_size);
                let w = match (stepped, [de, se].into_iter().filter(|e| *e > 0).min()) {
                    (Some(_), Some(elem)) => Self::chunk(len as u64, elem),
                    (Some(_), None) => 1,
                    (None, _) => Self::chunk(len as u64, de.min(se.max(1))),
                };
                for i in 0..(len as u64 / w as u64) {
                    if let (Some(stmt), true) = (stepped, i > 0) {
                        let step = (i * w as u64) as u32;
                        me.kir.push(b, InstKind::Anchor(syncfix_kir::Anchor { stmt, split: false, end: false, step }), 0, span);
                    }
                    let at = Operand::konst(64, i as u128 * w as u128);
                    let s_off = me.kir.add_offset(b, soff, at, span);
                    let d_off = me.kir.add_offset(b, doff, at, span);
                    let v = me.kir.push(
                        b,
                        InstKind::Load { ptr: syncfix_kir::Pointer { object: src, offset: s_off }, width: w },
                        (w * 8) as u16,
                        span,
                    );
                    me.kir.push(
                        b,
                        InstKind::Store { ptr: syncfix_kir::Pointer { object: dst, offset: d_off }, value: Operand::Value(v), width: w },
                        0,
                        span,
                    );
                }
                Ok((b, None))
            })
        })?;
        Ok(next)
    }

    /// The value of `op` when it is a constant, or integer arithmetic and casts over constants
    /// at most `depth` operations deep (at `-O0`, `n - 4` with `n` a constant local is an
    /// instruction). `None` otherwise, and where LLVM gives no value (a division by zero).
    pub(super) fn constant_value(&self, op: Operand, depth: u32) -> Option<u128> {
        if let Some(c) = op.as_const() {
            return Some(c);
        }
        let Operand::Value(v) = op else { return None };
        if depth == 0 {
            return None;
        }
        let k = &self.kir.k;
        match &k.insts[v].kind {
            InstKind::Bin { op: bop, lhs, rhs } => {
                let (a, b) = (self.constant_value(*lhs, depth - 1)?, self.constant_value(*rhs, depth - 1)?);
                super::fold::bin(*bop, k.width(*lhs), a, b).ok()
            }
            InstKind::Cast { op: cop, arg } => {
                let a = self.constant_value(*arg, depth - 1)?;
                Some(super::fold::cast(*cop, k.width(*arg), k.insts[v].width, a))
            }
            _ => None,
        }
    }

    /// The statement of a copy at `span` when the copy can be done in steps: a CUDA kernel's
    /// bare copy call statement ([`syncfix_kir::CopyCall`]; OpenCL C has no such call, and its
    /// pointers would need their address spaces spelled).
    pub(super) fn copy_statement(&self, span: &Span) -> Option<syncfix_kir::StmtId> {
        let k = &self.kir.k;
        if k.language != syncfix_kir::Language::Cuda {
            return None;
        }
        let s = k.statement_at(span.in_main()?)?;
        k.stmts.stmts[s].copy.is_some().then_some(s)
    }

    /// `llvm.memset` of a constant length. Returns the block where lowering continues.
    pub(super) fn memset(&mut self, args: &[LVal], at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let (Some(dst), Some(LVal::Scalar(byte)), Some(LVal::Scalar(len))) = (args.first(), args.get(1), args.get(2)) else {
            return Err(unsupported("a memset of unexpected arguments", loc));
        };
        let Some(len) = self.constant_value(*len, 8) else { return Err(unsupported("a memset of a run-time length", loc)) };
        if len > 65536 {
            return Err(unsupported(format!("a memset of {len} bytes"), loc));
        }
        // C's memset takes the byte as an int.
        let byte = match byte.as_const() {
            Some(c) => Operand::konst(8, c & 0xff),
            None if self.kir.width(*byte) != 8 => self.kir.resize(cur, *byte, 8, false, span),
            None => *byte,
        };
        let (next, _) = self.through(cur, dst.clone(), None, span, loc, &mut |me, b, dst, doff| {
            let w = Self::chunk(len as u64, me.kir.k.objects[dst].elem_size);
            // The byte replicated over the chunk.
            let bits = (w * 8) as u16;
            let value = match byte.as_const() {
                Some(c) => {
                    let mut v = 0u128;
                    for _ in 0..w {
                        v = (v << 8) | (c & 0xff);
                    }
                    Operand::konst(bits, v)
                }
                None => {
                    let mut acc = if bits == 8 {
                        byte
                    } else {
                        Operand::Value(me.kir.push(b, InstKind::Cast { op: CastOp::ZExt, arg: byte }, bits, span))
                    };
                    let one = acc;
                    for k in 1..w {
                        let sh = me.kir.push(
                            b,
                            InstKind::Bin { op: BinOp::Shl, lhs: one, rhs: Operand::konst(bits, 8 * k as u128) },
                            bits,
                            span,
                        );
                        acc =
                            Operand::Value(me.kir.push(b, InstKind::Bin { op: BinOp::Or, lhs: acc, rhs: Operand::Value(sh) }, bits, span));
                    }
                    acc
                }
            };
            for i in 0..(len as u64 / w as u64) {
                let d_off = me.kir.add_offset(b, doff, Operand::konst(64, i as u128 * w as u128), span);
                me.kir.push(b, InstKind::Store { ptr: syncfix_kir::Pointer { object: dst, offset: d_off }, value, width: w }, 0, span);
            }
            Ok((b, None))
        })?;
        Ok(next)
    }
}
