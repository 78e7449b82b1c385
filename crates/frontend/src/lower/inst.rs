//! Lowering of individual LLVM instructions and terminators.

use super::layout;
use super::{unsupported, At, Frame, LVal, LowerError, Lowerer, PendingPhi, PhiShape};
use crate::llvm::{callee_name, name_str};
use llvm_ir::constant::Constant;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::types::Type;
use llvm_ir::{HasDebugLoc, IntPredicate, Name, TypeRef};
use syncfix_kir::{AtomicOp, BinOp, BlockId, CastOp, CmpPred, InstId, InstKind, Loc, Operand, Pointer, Span, Terminator};

impl<'a> Lowerer<'a> {
    pub(crate) fn operand(&mut self, frame: &Frame, op: &llvm_ir::Operand, loc: Option<Loc>) -> Result<LVal, LowerError> {
        match op {
            llvm_ir::Operand::LocalOperand { name, .. } => frame
                .values
                .get(name)
                .cloned()
                .ok_or_else(|| unsupported(format!("use of `%{}` before its definition", name_str(name)), loc)),
            llvm_ir::Operand::ConstantOperand(c) => self.constant(c, loc),
            llvm_ir::Operand::MetadataOperand => Err(unsupported("a metadata operand", loc)),
        }
    }

    pub(crate) fn scalar(&mut self, frame: &Frame, op: &llvm_ir::Operand, loc: Option<Loc>) -> Result<Operand, LowerError> {
        match self.operand(frame, op, loc)? {
            LVal::Scalar(o) => Ok(o),
            _ => Err(unsupported("a pointer or aggregate where a number was expected", loc)),
        }
    }

    /// `getelementptr`: offset arithmetic on the base pointer's byte offset.
    pub(crate) fn gep(
        &mut self,
        cur: BlockId,
        base: LVal,
        src: &TypeRef,
        indices: &[LVal],
        span: &Span,
        loc: Option<Loc>,
    ) -> Result<LVal, LowerError> {
        // The offset changes; the object (or the choice among objects) stays.
        let (mut off, rebuild_ptr): (Operand, Box<dyn Fn(Operand) -> LVal>) = match base {
            LVal::Ptr(obj, off) => (off, Box::new(move |o| LVal::Ptr(obj, o))),
            LVal::Null => (Operand::konst(64, 0), Box::new(|o| LVal::DynPtr { sel: Operand::konst(32, 0), cands: vec![], off: o })),
            LVal::DynPtr { sel, cands, off } => (off, Box::new(move |o| LVal::DynPtr { sel, cands: cands.clone(), off: o })),
            _ => return Err(unsupported("address arithmetic on a value that is not a pointer", loc)),
        };
        let mut ty = src.clone();
        for (n, idx) in indices.iter().enumerate() {
            let LVal::Scalar(i) = idx else { return Err(unsupported("a non-integer index", loc)) };
            let stride_ty = if n == 0 {
                ty.clone()
            } else {
                match ty.as_ref() {
                    Type::ArrayType { element_type, .. } | Type::VectorType { element_type, .. } => {
                        let e = element_type.clone();
                        ty = e.clone();
                        e
                    }
                    Type::StructType { .. } | Type::NamedStructType { .. } => {
                        let fields = match ty.as_ref() {
                            Type::StructType { element_types, is_packed } => (element_types.clone(), *is_packed),
                            Type::NamedStructType { name } => match layout::resolve_named(&self.m.types, name).as_deref() {
                                Some(Type::StructType { element_types, is_packed }) => (element_types.clone(), *is_packed),
                                _ => return Err(unsupported(format!("opaque struct {name}"), loc)),
                            },
                            _ => unreachable!(),
                        };
                        let Some(fi) = i.as_const() else { return Err(unsupported("a non-constant struct field index", loc)) };
                        let offs = layout::field_offsets(&self.m.types, &fields.0, fields.1)
                            .ok_or_else(|| unsupported("a struct of unknown layout", loc))?;
                        let fo = *offs.get(fi as usize).ok_or_else(|| unsupported("a struct field out of range", loc))?;
                        off = self.kir.add_offset(cur, off, Operand::konst(64, fo as u128), span);
                        ty = fields.0[fi as usize].clone();
                        continue;
                    }
                    _ => return Err(unsupported(format!("address arithmetic into type {ty}"), loc)),
                }
            };
            let stride = layout::alloc_size(&self.m.types, &stride_ty)
                .ok_or_else(|| unsupported(format!("address arithmetic over type {stride_ty}"), loc))?;
            let i64v = self.kir.sext64(cur, *i, span);
            let scaled = match i64v {
                Operand::Const { bits, .. } => Operand::konst(64, bits.wrapping_mul(stride as u128)),
                v if stride == 1 => v,
                v => self.kir.emit(cur, InstKind::Bin { op: BinOp::Mul, lhs: v, rhs: Operand::konst(64, stride as u128) }, 64, span),
            };
            off = self.kir.add_offset(cur, off, scaled, span);
        }
        Ok(rebuild_ptr(off))
    }

    /// Lowers one instruction into block `cur`; returns the block where lowering continues
    /// (a call splits the block).
    pub(crate) fn lower_inst(&mut self, frame: &mut Frame, ins: &'a I, cur: BlockId) -> Result<BlockId, LowerError> {
        let span = self.span_of(ins.get_debug_loc(), frame);
        let loc = span.in_main().or(span.top());
        macro_rules! bin {
            ($x:expr, $op:expr) => {{
                let a = self.operand(frame, &$x.operand0, loc)?;
                let b = self.operand(frame, &$x.operand1, loc)?;
                let v = self.map2(
                    a,
                    b,
                    &mut |me, a, b| {
                        let w = me.kir.width(a);
                        Ok(Operand::Value(me.kir.push(cur, InstKind::Bin { op: $op, lhs: a, rhs: b }, w, &span)))
                    },
                    loc,
                )?;
                frame.values.insert($x.dest.clone(), v);
            }};
        }
        // Floating-point operations are uninterpreted functions named after the operation and
        // the result's element width.
        macro_rules! fbin {
            ($x:expr, $name:expr) => {{
                let a = self.operand(frame, &$x.operand0, loc)?;
                let b = self.operand(frame, &$x.operand1, loc)?;
                let w = elem_bits(&self.type_of(&$x.operand0), loc)?;
                let func = format!("{}.{}", $name, w);
                let v = self.map2(
                    a,
                    b,
                    &mut |me, a, b| {
                        Ok(Operand::Value(me.kir.push(cur, InstKind::Float { func: func.clone(), args: vec![a, b] }, w, &span)))
                    },
                    loc,
                )?;
                frame.values.insert($x.dest.clone(), v);
            }};
        }
        macro_rules! fun {
            ($x:expr, $name:expr, $arg:expr, $ty:expr) => {{
                let a = self.operand(frame, &$arg, loc)?;
                let w = elem_bits(&$ty, loc)?;
                let func = format!("{}.{}", $name, w);
                let v = self.map1(
                    a,
                    &mut |me, a| Ok(Operand::Value(me.kir.push(cur, InstKind::Float { func: func.clone(), args: vec![a] }, w, &span))),
                    loc,
                )?;
                frame.values.insert($x.dest.clone(), v);
            }};
        }
        match ins {
            I::Add(x) => bin!(x, BinOp::Add),
            I::Sub(x) => bin!(x, BinOp::Sub),
            I::Mul(x) => bin!(x, BinOp::Mul),
            I::UDiv(x) => bin!(x, BinOp::UDiv),
            I::SDiv(x) => bin!(x, BinOp::SDiv),
            I::URem(x) => bin!(x, BinOp::URem),
            I::SRem(x) => bin!(x, BinOp::SRem),
            I::And(x) => bin!(x, BinOp::And),
            I::Or(x) => bin!(x, BinOp::Or),
            I::Xor(x) => bin!(x, BinOp::Xor),
            I::Shl(x) => bin!(x, BinOp::Shl),
            I::LShr(x) => bin!(x, BinOp::LShr),
            I::AShr(x) => bin!(x, BinOp::AShr),
            I::FAdd(x) => fbin!(x, "fadd"),
            I::FSub(x) => fbin!(x, "fsub"),
            I::FMul(x) => fbin!(x, "fmul"),
            I::FDiv(x) => fbin!(x, "fdiv"),
            I::FRem(x) => fbin!(x, "frem"),
            I::FNeg(x) => fun!(x, "fneg", x.operand, self.type_of(&x.operand)),
            I::FPTrunc(x) => fun!(x, "fptrunc", x.operand, x.to_type),
            I::FPExt(x) => fun!(x, "fpext", x.operand, x.to_type),
            I::FPToUI(x) => fun!(x, "fptoui", x.operand, x.to_type),
            I::FPToSI(x) => fun!(x, "fptosi", x.operand, x.to_type),
            I::UIToFP(x) => fun!(x, "uitofp", x.operand, x.to_type),
            I::SIToFP(x) => fun!(x, "sitofp", x.operand, x.to_type),
            I::FCmp(x) => {
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
                            _ => Operand::Value(me.kir.push(
                                cur,
                                InstKind::Float { func: format!("fcmp.{p}.{w}"), args: vec![a, b] },
                                1,
                                &span,
                            )),
                        })
                    },
                    loc,
                )?;
                frame.values.insert(x.dest.clone(), v);
            }
            I::ICmp(x) => {
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
                        LVal::Scalar(Operand::Value(self.kir.push(cur, InstKind::Cmp { pred, lhs: a, rhs: b }, 1, &span)))
                    }
                    // Pointers that may be into different objects (or null): compare their
                    // representations (equal exactly when object and offset are).
                    (a @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. }), b)
                    | (a, b @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. })) => {
                        let ea = self.encode_ptr(&a, At::new(cur, &span, loc))?;
                        let eb = self.encode_ptr(&b, At::new(cur, &span, loc))?;
                        LVal::Scalar(Operand::Value(self.kir.push(cur, InstKind::Cmp { pred, lhs: ea, rhs: eb }, 1, &span)))
                    }
                    (a, b) => self.map2(
                        a,
                        b,
                        &mut |me, a, b| Ok(Operand::Value(me.kir.push(cur, InstKind::Cmp { pred, lhs: a, rhs: b }, 1, &span))),
                        loc,
                    )?,
                };
                frame.values.insert(x.dest.clone(), v);
            }
            I::Trunc(x) => self.cast(frame, CastOp::Trunc, &x.operand, &x.to_type, &x.dest, At::new(cur, &span, loc))?,
            I::ZExt(x) => self.cast(frame, CastOp::ZExt, &x.operand, &x.to_type, &x.dest, At::new(cur, &span, loc))?,
            I::SExt(x) => self.cast(frame, CastOp::SExt, &x.operand, &x.to_type, &x.dest, At::new(cur, &span, loc))?,
            I::BitCast(x) => {
                let v = self.operand(frame, &x.operand, loc)?;
                let from = self.type_of(&x.operand);
                let v = match v {
                    p @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. }) => p,
                    v => self.bitcast_value(v, &from, &x.to_type, At::new(cur, &span, loc))?,
                };
                frame.values.insert(x.dest.clone(), v);
            }
            I::AddrSpaceCast(x) => {
                let v = self.operand(frame, &x.operand, loc)?;
                frame.values.insert(x.dest.clone(), v);
            }
            I::Freeze(x) => {
                let v = self.operand(frame, &x.operand, loc)?;
                frame.values.insert(x.dest.clone(), v);
            }
            I::PtrToInt(x) => {
                // The pointer's 64-bit representation, so that converting back recovers it.
                let v = self.operand(frame, &x.operand, loc)?;
                let enc = self.encode_ptr(&v, At::new(cur, &span, loc))?;
                self.escape(&v);
                let w = layout::scalar_bits(&x.to_type).ok_or_else(|| unsupported(format!("a pointer converted to {}", x.to_type), loc))?;
                let r = match (w, enc) {
                    (64, e) => e,
                    (w, Operand::Const { bits, .. }) => Operand::konst(w, bits),
                    (w, e) if w < 64 => Operand::Value(self.kir.push(cur, InstKind::Cast { op: CastOp::Trunc, arg: e }, w, &span)),
                    (w, e) => Operand::Value(self.kir.push(cur, InstKind::Cast { op: CastOp::ZExt, arg: e }, w, &span)),
                };
                frame.values.insert(x.dest.clone(), LVal::Scalar(r));
            }
            I::IntToPtr(x) => {
                let v = self.scalar(frame, &x.operand, loc)?;
                let v = self.kir.resize(cur, v, 64, false, &span);
                let p = self.decode_ptr(cur, v, &span);
                frame.values.insert(x.dest.clone(), p);
            }
            I::Select(x) => {
                let c = self.operand(frame, &x.condition, loc)?;
                let a = self.operand(frame, &x.true_value, loc)?;
                let b = self.operand(frame, &x.false_value, loc)?;
                let v = match (c, a, b) {
                    (LVal::Scalar(c), a @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. }), b) => {
                        self.merge_ptrs(cur, c, a, b, &span).ok_or_else(|| unsupported("a select of a pointer and a non-pointer", loc))?
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
                                    Ok(Operand::Value(me.kir.push(cur, InstKind::Select { cond: c, then: a, els: b }, w, &span)))
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
                            Ok(Operand::Value(me.kir.push(cur, InstKind::Select { cond: c, then: a, els: b }, w, &span)))
                        },
                        loc,
                    )?,
                    _ => return Err(unsupported("a select of values of different shapes", loc)),
                };
                frame.values.insert(x.dest.clone(), v);
            }
            I::Phi(x) => {
                if matches!(x.to_type.as_ref(), Type::PointerType { .. }) {
                    return self.pointer_phi(frame, x, cur, &span, loc);
                }
                let width = match layout::scalar_bits(&x.to_type) {
                    Some(w) => w,
                    None => {
                        // An aggregate (vector, struct): one phi per scalar leaf.
                        let mut widths = vec![];
                        if !leaf_widths(&self.m.types, &x.to_type, &mut widths) {
                            return Err(unsupported(format!("a phi of type {}", x.to_type), loc));
                        }
                        let insts: Vec<InstId> =
                            widths.iter().map(|w| self.kir.push(cur, InstKind::Phi { incoming: vec![] }, *w, &span)).collect();
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
                let inst = self.kir.push(cur, InstKind::Phi { incoming: vec![] }, width, &span);
                frame.values.insert(x.dest.clone(), LVal::Scalar(Operand::Value(inst)));
                frame.phis.push(PendingPhi {
                    dest: x.dest.clone(),
                    insts: vec![inst],
                    incoming: x.incoming_values.clone(),
                    shape: PhiShape::Leaves,
                    loc,
                });
            }
            I::Alloca(x) => {
                if x.num_elements.as_constant().map(|c| !matches!(c, Constant::Int { value: 1, .. })).unwrap_or(true) {
                    return Err(unsupported("a variable-length array", loc));
                }
                let o = self.new_private(&x.allocated_type);
                frame.values.insert(x.dest.clone(), LVal::Ptr(o, Operand::konst(64, 0)));
            }
            I::Load(x) if frame.partial.dead_loads.contains(&x.dest) => {
                // Only feeds a store of some of its lanes (`v.y = e`): not an access; the
                // lanes it would give are never stored.
                let ty = x.loaded_ty.clone();
                let (fields, _) = self.members(&ty, loc)?;
                let mut leaves = vec![];
                for f in &fields {
                    let w = layout::scalar_bits(f).ok_or_else(|| unsupported(format!("a vector of {f}"), loc))?;
                    leaves.push(LVal::Scalar(Operand::Value(self.kir.push(cur, InstKind::Havoc, w, &span))));
                }
                frame.values.insert(x.dest.clone(), LVal::Agg(leaves));
            }
            I::Load(x) => {
                let p = self.operand(frame, &x.address, loc)?;
                let ty = x.loaded_ty.clone();
                let (next, v) = self.through(cur, p, Some(&ty), &span, loc, &mut |me, b, o, off| {
                    Ok((b, Some(me.load(o, off, &ty, At::new(b, &span, loc))?)))
                })?;
                frame.values.insert(x.dest.clone(), v.expect("a loaded value"));
                return Ok(next);
            }
            I::Store(x) => {
                let p = self.operand(frame, &x.address, loc)?;
                let ty = self.type_of(&x.value);
                let v = self.operand(frame, &x.value, loc)?;
                let lanes = match &x.value {
                    llvm_ir::Operand::LocalOperand { name, .. } => frame.partial.lanes.get(name).cloned(),
                    _ => None,
                };
                let (next, _) = self.through(cur, p, None, &span, loc, &mut |me, b, o, off| {
                    match (&lanes, &v) {
                        // `v.y = e`: only the replaced lanes.
                        (Some(lanes), LVal::Agg(vals)) => {
                            let (fields, offs) = me.members(&ty, loc)?;
                            for &lane in lanes {
                                let k = lane as usize;
                                let (Some(f), Some(lo), Some(val)) = (fields.get(k), offs.get(k), vals.get(k)) else { continue };
                                let fo = me.kir.add_offset(b, off, Operand::konst(64, *lo as u128), &span);
                                me.store(o, fo, f, val.clone(), At::new(b, &span, loc))?;
                            }
                        }
                        _ => me.store(o, off, &ty, v.clone(), At::new(b, &span, loc))?,
                    }
                    Ok((b, None))
                })?;
                return Ok(next);
            }
            I::GetElementPtr(x) => {
                let base = self.operand(frame, &x.address, loc)?;
                let mut idx = vec![];
                for i in &x.indices {
                    idx.push(self.operand(frame, i, loc)?);
                }
                let v = self.gep(cur, base, &x.source_element_type, &idx, &span, loc)?;
                frame.values.insert(x.dest.clone(), v);
            }
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
            I::AtomicRMW(x) => {
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
                    .ok_or_else(|| unsupported(format!("an atomic on type {ty}, whose size is not known"), loc))?
                    as u32;
                let (next, v) = self.through(cur, p, Some(&ty), &span, loc, &mut |me, b, o, off| {
                    let v = me.kir.push(
                        b,
                        InstKind::Atomic { op, ptr: Pointer { object: o, offset: off }, args: vec![val], width: bytes },
                        w,
                        &span,
                    );
                    Ok((b, Some(LVal::Scalar(Operand::Value(v)))))
                })?;
                frame.values.insert(x.dest.clone(), v.expect("an atomic's old value"));
                return Ok(next);
            }
            I::CmpXchg(x) => {
                let p = self.operand(frame, &x.address, loc)?;
                let e = self.scalar(frame, &x.expected, loc)?;
                let r = self.scalar(frame, &x.replacement, loc)?;
                let w = self.kir.width(e);
                let bytes = w.div_ceil(8) as u32;
                let ty = self.type_of(&x.expected);
                let (next, old) = self.through(cur, p, Some(&ty), &span, loc, &mut |me, b, o, off| {
                    let old = me.kir.push(
                        b,
                        InstKind::Atomic { op: AtomicOp::CmpXchg, ptr: Pointer { object: o, offset: off }, args: vec![e, r], width: bytes },
                        w,
                        &span,
                    );
                    Ok((b, Some(LVal::Scalar(Operand::Value(old)))))
                })?;
                let Some(LVal::Scalar(old)) = old else { return Err(unsupported("a compare-and-swap of a non-scalar", loc)) };
                let ok = self.kir.push(next, InstKind::Cmp { pred: CmpPred::Eq, lhs: old, rhs: e }, 1, &span);
                frame.values.insert(x.dest.clone(), LVal::Agg(vec![LVal::Scalar(old), LVal::Scalar(Operand::Value(ok))]));
                return Ok(next);
            }
            I::Fence(_) => {} // memory fences do not order accesses for race checking (GPUVerify)
            I::Call(c) => return self.lower_call(frame, c, At::new(cur, &span, loc)),
            I::ExtractElement(x) => {
                let v = self.operand(frame, &x.vector, loc)?;
                let i = self.scalar(frame, &x.index, loc)?;
                let r = self.extract_element(v, i, At::new(cur, &span, loc))?;
                frame.values.insert(x.dest.clone(), r);
            }
            I::InsertElement(x) => {
                let v = self.operand(frame, &x.vector, loc)?;
                let e = self.operand(frame, &x.element, loc)?;
                let i = self.scalar(frame, &x.index, loc)?;
                let r = self.insert_element(v, e, i, At::new(cur, &span, loc))?;
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

    fn cast(
        &mut self,
        frame: &mut Frame,
        op: CastOp,
        arg: &llvm_ir::Operand,
        to: &TypeRef,
        dest: &Name,
        at: At<'_>,
    ) -> Result<(), LowerError> {
        let At { cur, span, loc } = at;
        let a = self.operand(frame, arg, loc)?;
        let w = elem_bits(to, loc)?;
        let v = self.map1(
            a,
            &mut |me, a| {
                Ok(match a {
                    Operand::Const { bits, width } => match op {
                        CastOp::SExt if (bits >> (width - 1)) & 1 == 1 => Operand::konst(w, bits | (u128::MAX << width)),
                        _ => Operand::konst(w, bits),
                    },
                    _ => Operand::Value(me.kir.push(cur, InstKind::Cast { op, arg: a }, w, span)),
                })
            },
            loc,
        )?;
        frame.values.insert(dest.clone(), v);
        Ok(())
    }

    pub(crate) fn lower_term(&mut self, frame: &mut Frame, term: &'a llvm_ir::Terminator, cur: BlockId) -> Result<(), LowerError> {
        use llvm_ir::Terminator as T;
        let span = self.span_of(term.get_debug_loc(), frame);
        let loc = span.in_main().or(span.top());
        let block = |f: &Frame, n: &Name| f.blocks[n];
        let t = match term {
            T::Ret(r) => {
                let v = match &r.return_operand {
                    Some(op) => Some(self.operand(frame, op, loc)?),
                    None => None,
                };
                self.ensures_at_return(frame, v.as_ref(), cur, &span);
                if frame.is_kernel {
                    Terminator::Return
                } else {
                    frame.returns.push((cur, v));
                    Terminator::Unreachable // replaced by a branch to the caller's continuation
                }
            }
            T::Br(b) => Terminator::Br(block(frame, &b.dest)),
            T::CondBr(c) => {
                let cond = self.scalar(frame, &c.condition, loc)?;
                Terminator::CondBr { cond, then: block(frame, &c.true_dest), els: block(frame, &c.false_dest) }
            }
            T::Switch(s) => {
                let value = self.scalar(frame, &s.operand, loc)?;
                let mut cases = vec![];
                for (c, n) in &s.dests {
                    match c.as_ref() {
                        Constant::Int { value, .. } => cases.push((*value as u128, block(frame, n))),
                        _ => return Err(unsupported("a switch case that is not an integer", loc)),
                    }
                }
                Terminator::Switch { value, default: block(frame, &s.default_dest), cases }
            }
            T::Unreachable(_) => {
                // As GPUVerify (Bugle) translates it: `assert(false)`. clang emits it after a
                // call to a `noreturn` function and where a value-returning C++ function
                // falls off its end.
                self.kir.push(
                    cur,
                    InstKind::Assert { cond: Operand::bool(false), kind: syncfix_kir::AssertKind::Assertion, global: false },
                    0,
                    &span,
                );
                Terminator::Unreachable
            }
            other => return Err(unsupported(format!("the LLVM terminator `{other}`"), loc)),
        };
        self.kir.k.blocks[cur].term = t;
        self.kir.k.blocks[cur].term_span = span;
        Ok(())
    }

    pub(crate) fn callee_name(&self, c: &llvm_ir::instruction::Call) -> Option<String> {
        callee_name(c)
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

/// Whether two types hold numbers of the same widths in the same places (a float and an
/// integer of one width, or vectors of such with as many elements): a bitcast between them
/// keeps every value.
pub(super) fn same_bits_shape(a: &TypeRef, b: &TypeRef) -> bool {
    match (a.as_ref(), b.as_ref()) {
        (Type::VectorType { element_type: x, num_elements: n, .. }, Type::VectorType { element_type: y, num_elements: m, .. }) => {
            n == m && layout::scalar_bits(x).is_some() && layout::scalar_bits(x) == layout::scalar_bits(y)
        }
        (Type::VectorType { .. }, _) | (_, Type::VectorType { .. }) => false,
        _ => layout::scalar_bits(a).is_some() && layout::scalar_bits(a) == layout::scalar_bits(b),
    }
}

/// The element width in bits of a scalar or vector type.
pub(crate) fn elem_bits(t: &TypeRef, loc: Option<Loc>) -> Result<u16, LowerError> {
    let e = match t.as_ref() {
        Type::VectorType { element_type, .. } => element_type.clone(),
        _ => t.clone(),
    };
    layout::scalar_bits(&e).ok_or_else(|| unsupported(format!("an operation on values of type {t}"), loc))
}

/// The widths of the scalar leaves of a first-class aggregate type (vectors, structs, arrays);
/// false when it contains pointers or unknown types.
pub(crate) fn leaf_widths(types: &llvm_ir::types::Types, t: &TypeRef, out: &mut Vec<u16>) -> bool {
    match t.as_ref() {
        Type::VectorType { element_type, num_elements, .. } | Type::ArrayType { element_type, num_elements } => {
            (0..*num_elements).all(|_| leaf_widths(types, element_type, out))
        }
        Type::StructType { element_types, .. } => element_types.iter().all(|e| leaf_widths(types, e, out)),
        Type::NamedStructType { name } => match layout::resolve_named(types, name) {
            Some(d) => leaf_widths(types, &d, out),
            None => false,
        },
        _ => match layout::scalar_bits(t) {
            Some(w) => {
                out.push(w);
                true
            }
            None => false,
        },
    }
}

/// An aggregate value of type `t` whose scalar leaves are taken from `leaves` in order.
pub(crate) fn rebuild(types: &llvm_ir::types::Types, t: &TypeRef, leaves: &mut dyn Iterator<Item = Operand>) -> LVal {
    match t.as_ref() {
        Type::VectorType { element_type, num_elements, .. } | Type::ArrayType { element_type, num_elements } => {
            LVal::Agg((0..*num_elements).map(|_| rebuild(types, element_type, leaves)).collect())
        }
        Type::StructType { element_types, .. } => LVal::Agg(element_types.iter().map(|e| rebuild(types, e, leaves)).collect()),
        Type::NamedStructType { name } => match layout::resolve_named(types, name) {
            Some(d) => rebuild(types, &d, leaves),
            None => LVal::Agg(vec![]),
        },
        _ => LVal::Scalar(leaves.next().unwrap_or(Operand::konst(1, 0))),
    }
}
