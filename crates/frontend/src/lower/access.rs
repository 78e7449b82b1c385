//! Lowering of LLVM's memory accesses: loads, stores and atomics (`Lowerer::lower_inst`'s
//! larger cases).

use super::layout;
use super::{unsupported, At, Frame, LVal, LowerError, Lowerer};
use syncfix_kir::{AtomicOp, BlockId, CmpPred, InstKind, Operand, Pointer};

impl<'a> Lowerer<'a> {
    /// A `load` that only feeds a store of some of its lanes (`v.y = e`): not an access; the
    /// lanes it would give are havocked, and never stored.
    pub(super) fn lower_dead_load(&mut self, frame: &mut Frame, x: &llvm_ir::instruction::Load, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        // Only feeds a store of some of its lanes (`v.y = e`): not an access; the
        // lanes it would give are never stored.
        let ty = x.loaded_ty.clone();
        let (fields, _) = self.members(&ty, loc)?;
        let mut leaves = vec![];
        for f in &fields {
            let w = layout::scalar_bits(f).ok_or_else(|| unsupported(format!("a vector of {f}"), loc))?;
            leaves.push(LVal::Scalar(Operand::Value(self.kir.push(cur, InstKind::Havoc, w, span))));
        }
        frame.values.insert(x.dest.clone(), LVal::Agg(leaves));
        Ok(cur)
    }

    /// `load`: through the pointer's object (or each object it may point to); returns the block
    /// where lowering continues.
    pub(super) fn lower_load(&mut self, frame: &mut Frame, x: &llvm_ir::instruction::Load, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let p = self.operand(frame, &x.address, loc)?;
        let ty = x.loaded_ty.clone();
        let (next, v) =
            self.through(cur, p, Some(&ty), span, loc, &mut |me, b, o, off| Ok((b, Some(me.load(o, off, &ty, At::new(b, span, loc))?))))?;
        frame.values.insert(x.dest.clone(), v.expect("a loaded value"));
        Ok(next)
    }

    /// `store`: through the pointer's object (or each object it may point to); of a vector whose
    /// lanes were replaced (`v.y = e`), only those lanes.
    pub(super) fn lower_store(&mut self, frame: &mut Frame, x: &llvm_ir::instruction::Store, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let p = self.operand(frame, &x.address, loc)?;
        let ty = self.type_of(&x.value);
        let v = self.operand(frame, &x.value, loc)?;
        let lanes = match &x.value {
            llvm_ir::Operand::LocalOperand { name, .. } => frame.partial.lanes.get(name).cloned(),
            _ => None,
        };
        let (next, _) = self.through(cur, p, None, span, loc, &mut |me, b, o, off| {
            match (&lanes, &v) {
                // `v.y = e`: only the replaced lanes.
                (Some(lanes), LVal::Agg(vals)) => {
                    let (fields, offs) = me.members(&ty, loc)?;
                    for &lane in lanes {
                        let k = lane as usize;
                        let (Some(f), Some(lo), Some(val)) = (fields.get(k), offs.get(k), vals.get(k)) else { continue };
                        let fo = me.kir.add_offset(b, off, Operand::konst(64, *lo as u128), span);
                        me.store(o, fo, f, val.clone(), At::new(b, span, loc))?;
                    }
                }
                _ => me.store(o, off, &ty, v.clone(), At::new(b, span, loc))?,
            }
            Ok((b, None))
        })?;
        Ok(next)
    }

    /// `atomicrmw`: an atomic access of the operation's kind, its old value the result.
    pub(super) fn lower_atomic_rmw(
        &mut self,
        frame: &mut Frame,
        x: &llvm_ir::instruction::AtomicRMW,
        at: At<'_>,
    ) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        use llvm_ir::instruction::RMWBinOp as R;
        let p = self.operand(frame, &x.address, loc)?;
        let val = self.scalar(frame, &x.value, loc)?;
        let ty = self.type_of(&x.value);
        let w = layout::scalar_bits(&ty).ok_or_else(|| unsupported("an atomic on a non-scalar", loc))?;
        let op = match x.operation {
            R::Xchg => AtomicOp::Xchg,
            R::Add => AtomicOp::Add,
            R::Sub => AtomicOp::Sub,
            R::And => AtomicOp::And,
            R::Or => AtomicOp::Or,
            R::Xor => AtomicOp::Xor,
            R::Max => AtomicOp::Max,
            R::Min => AtomicOp::Min,
            R::UMax => AtomicOp::UMax,
            R::UMin => AtomicOp::UMin,
            R::FAdd => AtomicOp::FAdd,
            R::FSub => AtomicOp::FSub,
            R::UIncWrap => AtomicOp::Inc,
            R::UDecWrap => AtomicOp::Dec,
            _ => AtomicOp::Other,
        };
        let bytes = layout::size(&self.m.types, &ty)
            .ok_or_else(|| unsupported(format!("an atomic on type {ty}, whose size is not known"), loc))? as u32;
        let (next, v) = self.through(cur, p, Some(&ty), span, loc, &mut |me, b, o, off| {
            let v =
                me.kir.push(b, InstKind::Atomic { op, ptr: Pointer { object: o, offset: off }, args: vec![val], width: bytes }, w, span);
            Ok((b, Some(LVal::Scalar(Operand::Value(v)))))
        })?;
        frame.values.insert(x.dest.clone(), v.expect("an atomic's old value"));
        Ok(next)
    }

    /// `cmpxchg`: an atomic compare-and-swap; the result is the old value and whether it
    /// equalled the expected one.
    pub(super) fn lower_cmpxchg(
        &mut self,
        frame: &mut Frame,
        x: &llvm_ir::instruction::CmpXchg,
        at: At<'_>,
    ) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let p = self.operand(frame, &x.address, loc)?;
        let e = self.scalar(frame, &x.expected, loc)?;
        let r = self.scalar(frame, &x.replacement, loc)?;
        let w = self.kir.width(e);
        let bytes = w.div_ceil(8) as u32;
        let ty = self.type_of(&x.expected);
        let (next, old) = self.through(cur, p, Some(&ty), span, loc, &mut |me, b, o, off| {
            let old = me.kir.push(
                b,
                InstKind::Atomic { op: AtomicOp::CmpXchg, ptr: Pointer { object: o, offset: off }, args: vec![e, r], width: bytes },
                w,
                span,
            );
            Ok((b, Some(LVal::Scalar(Operand::Value(old)))))
        })?;
        let Some(LVal::Scalar(old)) = old else { return Err(unsupported("a compare-and-swap of a non-scalar", loc)) };
        let ok = self.kir.push(next, InstKind::Cmp { pred: CmpPred::Eq, lhs: old, rhs: e }, 1, span);
        frame.values.insert(x.dest.clone(), LVal::Agg(vec![LVal::Scalar(old), LVal::Scalar(Operand::Value(ok))]));
        Ok(next)
    }
}
