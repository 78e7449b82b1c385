//! Lowering of individual LLVM instructions and terminators.

use super::layout;
use super::{unsupported, At, Frame, LVal, LowerError, Lowerer};
use crate::llvm::{callee_name, name_str};
use llvm_ir::constant::Constant;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::types::Type;
use llvm_ir::{HasDebugLoc, Name, TypeRef};
use syncfix_kir::{BinOp, BlockId, CastOp, InstKind, Loc, Operand, Span, Terminator};

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
            I::FCmp(x) => return self.lower_fcmp(frame, x, At::new(cur, &span, loc)),
            I::ICmp(x) => return self.lower_icmp(frame, x, At::new(cur, &span, loc)),
            I::Trunc(x) => self.cast(frame, CastOp::Trunc, &x.operand, &x.to_type, &x.dest, At::new(cur, &span, loc))?,
            I::ZExt(x) => self.cast(frame, CastOp::ZExt, &x.operand, &x.to_type, &x.dest, At::new(cur, &span, loc))?,
            I::SExt(x) => self.cast(frame, CastOp::SExt, &x.operand, &x.to_type, &x.dest, At::new(cur, &span, loc))?,
            I::BitCast(x) => return self.lower_bitcast(frame, x, At::new(cur, &span, loc)),
            I::AddrSpaceCast(x) => {
                let v = self.operand(frame, &x.operand, loc)?;
                frame.values.insert(x.dest.clone(), v);
            }
            I::Freeze(x) => {
                let v = self.operand(frame, &x.operand, loc)?;
                frame.values.insert(x.dest.clone(), v);
            }
            I::PtrToInt(x) => return self.lower_ptr_to_int(frame, x, At::new(cur, &span, loc)),
            I::IntToPtr(x) => {
                let v = self.scalar(frame, &x.operand, loc)?;
                let v = self.kir.resize(cur, v, 64, false, &span);
                let p = self.decode_ptr(cur, v, &span);
                frame.values.insert(x.dest.clone(), p);
            }
            I::Select(x) => return self.lower_select(frame, x, At::new(cur, &span, loc)),
            I::Phi(x) => return self.lower_phi(frame, x, At::new(cur, &span, loc)),
            I::Alloca(x) => {
                if x.num_elements.as_constant().map(|c| !matches!(c, Constant::Int { value: 1, .. })).unwrap_or(true) {
                    return Err(unsupported("a variable-length array", loc));
                }
                let o = self.new_private(&x.allocated_type);
                frame.values.insert(x.dest.clone(), LVal::Ptr(o, Operand::konst(64, 0)));
            }
            I::Load(x) if frame.partial.dead_loads.contains(&x.dest) => return self.lower_dead_load(frame, x, At::new(cur, &span, loc)),
            I::Load(x) => return self.lower_load(frame, x, At::new(cur, &span, loc)),
            I::Store(x) => return self.lower_store(frame, x, At::new(cur, &span, loc)),
            I::GetElementPtr(x) => return self.lower_gep(frame, x, At::new(cur, &span, loc)),
            I::AtomicRMW(x) => return self.lower_atomic_rmw(frame, x, At::new(cur, &span, loc)),
            I::CmpXchg(x) => return self.lower_cmpxchg(frame, x, At::new(cur, &span, loc)),
            I::ExtractValue(_) | I::InsertValue(_) | I::ExtractElement(_) | I::InsertElement(_) | I::ShuffleVector(_) => {
                return self.lower_aggregate_op(frame, ins, At::new(cur, &span, loc))
            }
            I::Fence(_) => {} // memory fences do not order accesses for race checking (GPUVerify)
            I::Call(c) => return self.lower_call(frame, c, At::new(cur, &span, loc)),
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
