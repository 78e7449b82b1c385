//! Lowering of LLVM's comparisons, selects, phis and pointer-to-integer conversions
//! (`Lowerer::lower_inst`'s larger cases).

use super::inst::{elem_bits, leaf_widths, rebuild};
use super::layout;
use super::{unsupported, At, Frame, LVal, LowerError, Lowerer, PendingPhi, PhiShape};
use llvm_ir::types::Type;
use llvm_ir::IntPredicate;
use syncfix_kir::{BlockId, CastOp, CmpPred, InstId, InstKind, Operand};

impl<'a> Lowerer<'a> {
    /// `fcmp`: an uninterpreted function per predicate and element width (`true` and `false` folded).
    pub(super) fn lower_fcmp(&mut self, frame: &mut Frame, x: &llvm_ir::instruction::FCmp, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let a = self.operand(frame, &x.operand0, loc)?;
        let b = self.operand(frame, &x.operand1, loc)?;
        let w = elem_bits(&self.type_of(&x.operand0), loc)?;
        let p = format!("{}", x.predicate).to_lowercase();
        let v = self.map2(
            a,
            b,
            &mut |me, a, b| {
                Ok(match p.as_str() {
                    "false" => Operand::bool(false),
                    "true" => Operand::bool(true),
                    _ => Operand::Value(me.kir.push(cur, InstKind::Float { func: format!("fcmp.{p}.{w}"), args: vec![a, b] }, 1, span)),
                })
            },
            loc,
        )?;
        frame.values.insert(x.dest.clone(), v);
        Ok(cur)
    }

    /// `icmp`: a comparison of numbers, of offsets into one object, or of pointers'
    /// representations (equal exactly when object and offset are).
    pub(super) fn lower_icmp(&mut self, frame: &mut Frame, x: &llvm_ir::instruction::ICmp, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let pred = match x.predicate {
            IntPredicate::EQ => CmpPred::Eq,
            IntPredicate::NE => CmpPred::Ne,
            IntPredicate::UGT => CmpPred::Ugt,
            IntPredicate::UGE => CmpPred::Uge,
            IntPredicate::ULT => CmpPred::Ult,
            IntPredicate::ULE => CmpPred::Ule,
            IntPredicate::SGT => CmpPred::Sgt,
            IntPredicate::SGE => CmpPred::Sge,
            IntPredicate::SLT => CmpPred::Slt,
            IntPredicate::SLE => CmpPred::Sle,
        };
        let a = self.operand(frame, &x.operand0, loc)?;
        let b = self.operand(frame, &x.operand1, loc)?;
        let v = match (a, b) {
            (LVal::Ptr(o1, a), LVal::Ptr(o2, b)) if o1 == o2 => {
                LVal::Scalar(Operand::Value(self.kir.push(cur, InstKind::Cmp { pred, lhs: a, rhs: b }, 1, span)))
            }
            // Pointers that may be into different objects (or null): compare their
            // representations (equal exactly when object and offset are).
            (a @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. }), b) | (a, b @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. })) => {
                let ea = self.encode_ptr(&a, At::new(cur, span, loc))?;
                let eb = self.encode_ptr(&b, At::new(cur, span, loc))?;
                LVal::Scalar(Operand::Value(self.kir.push(cur, InstKind::Cmp { pred, lhs: ea, rhs: eb }, 1, span)))
            }
            (a, b) => {
                self.map2(a, b, &mut |me, a, b| Ok(Operand::Value(me.kir.push(cur, InstKind::Cmp { pred, lhs: a, rhs: b }, 1, span))), loc)?
            }
        };
        frame.values.insert(x.dest.clone(), v);
        Ok(cur)
    }

    /// `ptrtoint`: the pointer's 64-bit representation, so that converting back recovers it.
    pub(super) fn lower_ptr_to_int(
        &mut self,
        frame: &mut Frame,
        x: &llvm_ir::instruction::PtrToInt,
        at: At<'_>,
    ) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        // The pointer's 64-bit representation, so that converting back recovers it.
        let v = self.operand(frame, &x.operand, loc)?;
        let enc = self.encode_ptr(&v, At::new(cur, span, loc))?;
        self.escape(&v);
        let w = layout::scalar_bits(&x.to_type).ok_or_else(|| unsupported(format!("a pointer converted to {}", x.to_type), loc))?;
        let r = match (w, enc) {
            (64, e) => e,
            (w, Operand::Const { bits, .. }) => Operand::konst(w, bits),
            (w, e) if w < 64 => Operand::Value(self.kir.push(cur, InstKind::Cast { op: CastOp::Trunc, arg: e }, w, span)),
            (w, e) => Operand::Value(self.kir.push(cur, InstKind::Cast { op: CastOp::ZExt, arg: e }, w, span)),
        };
        frame.values.insert(x.dest.clone(), LVal::Scalar(r));
        Ok(cur)
    }

    /// `select`: of pointers, of vectors element by element (a vector condition), or of numbers.
    pub(super) fn lower_select(&mut self, frame: &mut Frame, x: &llvm_ir::instruction::Select, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let c = self.operand(frame, &x.condition, loc)?;
        let a = self.operand(frame, &x.true_value, loc)?;
        let b = self.operand(frame, &x.false_value, loc)?;
        let v = match (c, a, b) {
            (LVal::Scalar(c), a @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. }), b) => {
                self.merge_ptrs(cur, c, a, b, span).ok_or_else(|| unsupported("a select of a pointer and a non-pointer", loc))?
            }
            // A vector condition picks element by element.
            (LVal::Agg(cs), LVal::Agg(xs), LVal::Agg(ys)) if cs.len() == xs.len() && xs.len() == ys.len() => {
                let mut out = vec![];
                for ((c, x), y) in cs.into_iter().zip(xs).zip(ys) {
                    let LVal::Scalar(c) = c else { return Err(unsupported("a select on an aggregate condition", loc)) };
                    out.push(self.map2(
                        x,
                        y,
                        &mut |me, a, b| {
                            let w = me.kir.width(a);
                            Ok(Operand::Value(me.kir.push(cur, InstKind::Select { cond: c, then: a, els: b }, w, span)))
                        },
                        loc,
                    )?);
                }
                LVal::Agg(out)
            }
            (LVal::Scalar(c), a, b) => self.map2(
                a,
                b,
                &mut |me, a, b| {
                    let w = me.kir.width(a);
                    Ok(Operand::Value(me.kir.push(cur, InstKind::Select { cond: c, then: a, els: b }, w, span)))
                },
                loc,
            )?,
            _ => return Err(unsupported("a select of values of different shapes", loc)),
        };
        frame.values.insert(x.dest.clone(), v);
        Ok(cur)
    }

    /// `phi`: one KIR phi per scalar leaf, its incoming values filled in once every block is
    /// lowered (`PendingPhi`); a pointer phi by `pointer_phi`.
    pub(super) fn lower_phi(&mut self, frame: &mut Frame, x: &llvm_ir::instruction::Phi, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        if matches!(x.to_type.as_ref(), Type::PointerType { .. }) {
            return self.pointer_phi(frame, x, cur, span, loc);
        }
        let width = match layout::scalar_bits(&x.to_type) {
            Some(w) => w,
            None => {
                // An aggregate (vector, struct): one phi per scalar leaf.
                let mut widths = vec![];
                if !leaf_widths(&self.m.types, &x.to_type, &mut widths) {
                    return Err(unsupported(format!("a phi of type {}", x.to_type), loc));
                }
                let insts: Vec<InstId> = widths.iter().map(|w| self.kir.push(cur, InstKind::Phi { incoming: vec![] }, *w, span)).collect();
                let v = rebuild(&self.m.types, &x.to_type, &mut insts.iter().map(|i| Operand::Value(*i)));
                frame.values.insert(x.dest.clone(), v);
                frame.phis.push(PendingPhi {
                    dest: x.dest.clone(),
                    insts,
                    incoming: x.incoming_values.clone(),
                    shape: PhiShape::Leaves,
                    loc,
                });
                return Ok(cur);
            }
        };
        let inst = self.kir.push(cur, InstKind::Phi { incoming: vec![] }, width, span);
        frame.values.insert(x.dest.clone(), LVal::Scalar(Operand::Value(inst)));
        frame.phis.push(PendingPhi {
            dest: x.dest.clone(),
            insts: vec![inst],
            incoming: x.incoming_values.clone(),
            shape: PhiShape::Leaves,
            loc,
        });
        Ok(cur)
    }

    /// `extractvalue`, `insertvalue` (a field of an aggregate, by its indices),
    /// `extractelement`, `insertelement` (a vector's lane, by a possibly variable index) and
    /// `shufflevector` (lanes of two vectors picked by a constant mask).
    pub(super) fn lower_aggregate_op(
        &mut self,
        frame: &mut Frame,
        ins: &llvm_ir::instruction::Instruction,
        at: At<'_>,
    ) -> Result<BlockId, LowerError> {
        use llvm_ir::instruction::Instruction as I;
        let At { cur, span, loc } = at;
        match ins {
            I::ExtractValue(x) => {
                let mut v = self.operand(frame, &x.aggregate, loc)?;
                for i in &x.indices {
                    v = match v {
                        LVal::Agg(mut fields) if (*i as usize) < fields.len() => fields.swap_remove(*i as usize),
                        _ => return Err(unsupported("extractvalue from a non-aggregate", loc)),
                    };
                }
                frame.values.insert(x.dest.clone(), v);
            }
            I::InsertValue(x) => {
                let agg = self.operand(frame, &x.aggregate, loc)?;
                let el = self.operand(frame, &x.element, loc)?;
                let v = insert_at(agg, &x.indices, el).ok_or_else(|| unsupported("insertvalue into a non-aggregate", loc))?;
                frame.values.insert(x.dest.clone(), v);
            }
            I::ExtractElement(x) => {
                let v = self.operand(frame, &x.vector, loc)?;
                let i = self.scalar(frame, &x.index, loc)?;
                let r = self.extract_element(v, i, At::new(cur, span, loc))?;
                frame.values.insert(x.dest.clone(), r);
            }
            I::InsertElement(x) => {
                let v = self.operand(frame, &x.vector, loc)?;
                let e = self.operand(frame, &x.element, loc)?;
                let i = self.scalar(frame, &x.index, loc)?;
                let r = self.insert_element(v, e, i, At::new(cur, span, loc))?;
                frame.values.insert(x.dest.clone(), r);
            }
            I::ShuffleVector(x) => {
                let a = self.operand(frame, &x.operand0, loc)?;
                let b = self.operand(frame, &x.operand1, loc)?;
                let ty = llvm_ir::types::Typed::get_type(x, &self.m.types);
                let r = self.shuffle(a, b, &x.mask, &ty, loc)?;
                frame.values.insert(x.dest.clone(), r);
            }
            other => return Err(unsupported(format!("the LLVM instruction `{other}`"), loc)),
        }
        Ok(cur)
    }

    /// `bitcast`: a pointer unchanged, a value reinterpreted (`bitcast_value`).
    pub(super) fn lower_bitcast(
        &mut self,
        frame: &mut Frame,
        x: &llvm_ir::instruction::BitCast,
        at: At<'_>,
    ) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let v = self.operand(frame, &x.operand, loc)?;
        let from = self.type_of(&x.operand);
        let v = match v {
            p @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. }) => p,
            v => self.bitcast_value(v, &from, &x.to_type, At::new(cur, span, loc))?,
        };
        frame.values.insert(x.dest.clone(), v);
        Ok(cur)
    }

    /// `getelementptr`: offset arithmetic on the base pointer (`gep`).
    pub(super) fn lower_gep(
        &mut self,
        frame: &mut Frame,
        x: &llvm_ir::instruction::GetElementPtr,
        at: At<'_>,
    ) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let base = self.operand(frame, &x.address, loc)?;
        let mut idx = vec![];
        for i in &x.indices {
            idx.push(self.operand(frame, i, loc)?);
        }
        let v = self.gep(cur, base, &x.source_element_type, &idx, span, loc)?;
        frame.values.insert(x.dest.clone(), v);
        Ok(cur)
    }
}

fn insert_at(agg: LVal, idx: &[u32], el: LVal) -> Option<LVal> {
    match idx.split_first() {
        None => Some(el),
        Some((i, rest)) => match agg {
            LVal::Agg(mut fields) => {
                let i = *i as usize;
                let f = fields.get(i)?.clone();
                fields[i] = insert_at(f, rest, el)?;
                Some(LVal::Agg(fields))
            }
            _ => None,
        },
    }
}
