//! LLVM constants as lowered values: integers, floats (as their bits), null and undefined
//! values, aggregates, constant expressions (`getelementptr` with `constgep`'s offsets, casts,
//! arithmetic folded exactly by `fold`), and the fillers of zero and undefined aggregates.

use super::inst::{elem_bits, same_bits_shape};
use super::layout;
use super::{unsupported, At, LVal, LowerError, Lowerer};
use crate::llvm::name_str;
use llvm_ir::constant::Constant;
use llvm_ir::types::Type;
use llvm_ir::{ConstantRef, TypeRef};
use syncfix_kir::{BinOp, CastOp, InstKind, Loc, Operand, Span};

impl<'a> Lowerer<'a> {
    pub(super) fn constant(&mut self, c: &ConstantRef, loc: Option<Loc>) -> Result<LVal, LowerError> {
        Ok(match c.as_ref() {
            Constant::Int { bits, value } => {
                if *bits > 64 {
                    return Err(unsupported(format!("a {bits}-bit integer constant"), loc));
                }
                LVal::Scalar(Operand::konst(*bits as u16, *value as u128))
            }
            Constant::Float(f) => {
                use llvm_ir::constant::Float as F;
                match f {
                    F::Single(x) => LVal::Scalar(Operand::konst(32, x.to_bits() as u128)),
                    F::Double(x) => LVal::Scalar(Operand::konst(64, x.to_bits() as u128)),
                    _ => return Err(unsupported("a half or extended-precision float constant", loc)),
                }
            }
            Constant::Null(_) => LVal::Null,
            Constant::AggregateZero(t) | Constant::Undef(t) | Constant::Poison(t) => {
                let zero = matches!(c.as_ref(), Constant::AggregateZero(_));
                self.filler(t, zero, loc)?
            }
            Constant::Struct { values, .. } | Constant::Array { elements: values, .. } | Constant::Vector(values) => {
                let mut v = vec![];
                for e in values {
                    v.push(self.constant(e, loc)?);
                }
                LVal::Agg(v)
            }
            Constant::GlobalReference { name, ty } => {
                let n = name_str(name);
                if let Some(f) = self.function_pointer(&n, loc)? {
                    return Ok(f);
                }
                LVal::Ptr(self.global_object(&n, ty, loc)?, Operand::konst(64, 0))
            }
            Constant::GetElementPtr(g) => {
                // The offset from LLVM itself: llvm-ir does not keep the source element type
                // that gives the indices their meaning (see `constgep`).
                let base = self.constant(&g.address, loc)?;
                let off = crate::constgep::key(c.as_ref()).and_then(|k| self.input.gep_offsets.get(&k).copied());
                let Some(off) = off else {
                    return Err(unsupported(format!("the constant expression `{}` (its offset is not known)", c.as_ref()), loc));
                };
                match base {
                    LVal::Ptr(o, Operand::Const { bits, .. }) => {
                        LVal::Ptr(o, Operand::konst(64, (bits as i128 + off as i128) as u128 & u64::MAX as u128))
                    }
                    LVal::Null if off == 0 => LVal::Null,
                    _ => return Err(unsupported(format!("the constant expression `{}`", c.as_ref()), loc)),
                }
            }
            Constant::IntToPtr(x) => match self.constant(&x.operand, loc)? {
                LVal::Scalar(Operand::Const { bits: 0, .. }) => LVal::Null,
                LVal::Scalar(Operand::Const { bits, .. }) => {
                    // A number used as a pointer (`(funcType)5`): it points into an object
                    // only if it is the representation of a pointer into one that escapes.
                    let (sel, off) = super::pointer::split_constant(bits);
                    LVal::DynPtr { sel: Operand::konst(32, sel), cands: self.escaped_objects(), off: Operand::konst(64, off) }
                }
                _ => return Err(unsupported(format!("the constant expression `{}`", c.as_ref()), loc)),
            },
            Constant::Add(x) => self.const_bin(BinOp::Add, &x.operand0, &x.operand1, c, loc)?,
            Constant::Sub(x) => self.const_bin(BinOp::Sub, &x.operand0, &x.operand1, c, loc)?,
            Constant::Mul(x) => self.const_bin(BinOp::Mul, &x.operand0, &x.operand1, c, loc)?,
            Constant::Xor(x) => self.const_bin(BinOp::Xor, &x.operand0, &x.operand1, c, loc)?,
            Constant::Trunc(x) => {
                let to = elem_bits(&x.to_type, loc)?;
                let v = self.constant(&x.operand, loc)?;
                self.const_map(v, c, loc, &mut |bits, width| Ok(Operand::konst(to, super::fold::cast(CastOp::Trunc, width, to, bits))))?
            }
            Constant::PtrToInt(x) => {
                // The pointer's 64-bit representation (as the instruction: see `pointer.rs`).
                let to = layout::scalar_bits(&x.to_type).ok_or_else(|| unsupported(format!("the constant expression `{c}`"), loc))?;
                let p = self.constant(&x.operand, loc)?;
                let entry = self.kir.k.entry;
                let enc = self.encode_ptr(&p, At::new(entry, &Span::default(), loc))?;
                let Operand::Const { bits, .. } = enc else {
                    return Err(unsupported(format!("the constant expression `{c}` (a pointer not known when lowering)"), loc));
                };
                self.escape(&p);
                LVal::Scalar(Operand::konst(to, super::fold::cast(CastOp::ZExt, 64, to, bits)))
            }
            Constant::BitCast(b) => {
                let v = self.constant(&b.operand, loc)?;
                let from = self.type_of(&llvm_ir::Operand::ConstantOperand(b.operand.clone()));
                match &v {
                    LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. } => v,
                    // Bits are bits: a float and an integer of one width, vectors of such.
                    _ if same_bits_shape(&from, &b.to_type) => v,
                    _ => return Err(unsupported(format!("the constant expression `{c}` (a bitcast that regroups bits)"), loc)),
                }
            }
            Constant::AddrSpaceCast(b) => self.constant(&b.operand, loc)?,
            Constant::ExtractElement(x) => {
                let v = self.constant(&x.vector, loc)?;
                let i = self.constant(&x.index, loc)?;
                match (v, i) {
                    (LVal::Agg(mut xs), LVal::Scalar(Operand::Const { bits, .. })) if (bits as usize) < xs.len() => {
                        xs.swap_remove(bits as usize)
                    }
                    _ => return Err(unsupported(format!("the constant expression `{c}`"), loc)),
                }
            }
            Constant::InsertElement(x) => {
                let v = self.constant(&x.vector, loc)?;
                let e = self.constant(&x.element, loc)?;
                let i = self.constant(&x.index, loc)?;
                match (v, i) {
                    (LVal::Agg(mut xs), LVal::Scalar(Operand::Const { bits, .. })) if (bits as usize) < xs.len() => {
                        xs[bits as usize] = e;
                        LVal::Agg(xs)
                    }
                    _ => return Err(unsupported(format!("the constant expression `{c}`"), loc)),
                }
            }
            Constant::ShuffleVector(x) => {
                let a = self.constant(&x.operand0, loc)?;
                let b = self.constant(&x.operand1, loc)?;
                let ty = self.type_of(&llvm_ir::Operand::ConstantOperand(c.clone()));
                self.shuffle(a, b, &x.mask, &ty, loc)?
            }
            // `blockaddress`, `none` tokens, pointer authentication: nothing a kernel needs.
            other => return Err(unsupported(format!("the constant `{other}`"), loc)),
        })
    }

    /// A constant `op` of two constant operands (element by element on vectors), folded
    /// exactly (`fold::bin`). An operand that is not a number (a pointer) or an undefined
    /// result is an error naming the expression `c`.
    pub(super) fn const_bin(
        &mut self,
        op: BinOp,
        a: &ConstantRef,
        b: &ConstantRef,
        c: &ConstantRef,
        loc: Option<Loc>,
    ) -> Result<LVal, LowerError> {
        let a = self.constant(a, loc)?;
        let b = self.constant(b, loc)?;
        let what = |why: &str| unsupported(format!("the constant expression `{c}` ({why})"), loc);
        let fold = |x: &LVal, y: &LVal| -> Result<Operand, LowerError> {
            match (x, y) {
                (LVal::Scalar(Operand::Const { bits: p, width }), LVal::Scalar(Operand::Const { bits: q, .. })) => {
                    super::fold::bin(op, *width, *p, *q).map(|r| Operand::konst(*width, r)).map_err(|e| what(&e))
                }
                _ => Err(what("an operand that is not a number")),
            }
        };
        match (&a, &b) {
            (LVal::Agg(xs), LVal::Agg(ys)) if xs.len() == ys.len() => {
                Ok(LVal::Agg(xs.iter().zip(ys).map(|(x, y)| fold(x, y).map(LVal::Scalar)).collect::<Result<_, _>>()?))
            }
            _ => Ok(LVal::Scalar(fold(&a, &b)?)),
        }
    }

    /// `f` applied to each number of a constant (a scalar or a vector of scalars).
    pub(super) fn const_map(
        &mut self,
        v: LVal,
        c: &ConstantRef,
        loc: Option<Loc>,
        f: &mut dyn FnMut(u128, u16) -> Result<Operand, LowerError>,
    ) -> Result<LVal, LowerError> {
        match v {
            LVal::Scalar(Operand::Const { bits, width }) => Ok(LVal::Scalar(f(bits, width)?)),
            LVal::Agg(xs) => Ok(LVal::Agg(xs.into_iter().map(|x| self.const_map(x, c, loc, f)).collect::<Result<_, _>>()?)),
            _ => Err(unsupported(format!("the constant expression `{c}` (an operand that is not a number)"), loc)),
        }
    }

    /// A value of type `t` filled with zeros (`zeroinitializer`) or arbitrary values (`undef`).
    pub(super) fn filler(&mut self, t: &TypeRef, zero: bool, loc: Option<Loc>) -> Result<LVal, LowerError> {
        let types = &self.m.types;
        Ok(match t.as_ref() {
            Type::StructType { element_types, .. } => {
                let ts = element_types.clone();
                LVal::Agg(ts.iter().map(|e| self.filler(e, zero, loc)).collect::<Result<_, _>>()?)
            }
            Type::NamedStructType { name } => {
                let def = layout::resolve_named(types, name).ok_or_else(|| unsupported(format!("opaque struct {name}"), loc))?;
                self.filler(&def, zero, loc)?
            }
            Type::ArrayType { element_type, num_elements } => {
                let (e, n) = (element_type.clone(), *num_elements);
                LVal::Agg((0..n).map(|_| self.filler(&e, zero, loc)).collect::<Result<_, _>>()?)
            }
            Type::VectorType { element_type, num_elements, .. } => {
                let (e, n) = (element_type.clone(), *num_elements);
                LVal::Agg((0..n).map(|_| self.filler(&e, zero, loc)).collect::<Result<_, _>>()?)
            }
            Type::PointerType { .. } if zero => LVal::Null,
            Type::PointerType { .. } => {
                // An uninitialised pointer: arbitrary, pointing into no object we know (an
                // access through it is a possible null-pointer access).
                let entry = self.kir.k.entry;
                let sel = self.kir.k.make_inst(entry, InstKind::Havoc, 32, Span::default());
                let off = self.kir.k.make_inst(entry, InstKind::Havoc, 64, Span::default());
                self.kir.k.blocks[entry].insts.extend([sel, off]);
                LVal::DynPtr { sel: Operand::Value(sel), cands: vec![], off: Operand::Value(off) }
            }
            _ => {
                let w = layout::scalar_bits(t).ok_or_else(|| unsupported(format!("a value of type {t}"), loc))?;
                if zero {
                    LVal::Scalar(Operand::konst(w, 0))
                } else {
                    // `undef` / `poison` (e.g. an uninitialised variable): an arbitrary value
                    // per thread, as in GPUVerify, chosen once at kernel entry.
                    let entry = self.kir.k.entry;
                    let v = self.kir.k.make_inst(entry, InstKind::Havoc, w, Span::default());
                    self.kir.k.blocks[entry].insts.push(v);
                    LVal::Scalar(Operand::Value(v))
                }
            }
        })
    }
}
