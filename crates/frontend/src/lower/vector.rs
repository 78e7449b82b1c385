//! Vector values (OpenCL `float4`, clang's ext_vector_type): a vector is lowered as the
//! aggregate of its elements, and every vector operation element by element, so the rest of
//! syncfix only ever sees scalars. A vector load or store is one access per element.

use super::{layout, unsupported, At, LVal, LowerError, Lowerer};
use llvm_ir::types::Type;
use llvm_ir::TypeRef;
use syncfix_kir::{BinOp, CastOp, CmpPred, InstKind, Loc, Operand};

impl<'a> Lowerer<'a> {
    /// Applies `f` to each scalar of `a` (recursively through aggregates).
    pub(crate) fn map1(
        &mut self,
        a: LVal,
        f: &mut dyn FnMut(&mut Self, Operand) -> Result<Operand, LowerError>,
        loc: Option<Loc>,
    ) -> Result<LVal, LowerError> {
        match a {
            LVal::Scalar(o) => Ok(LVal::Scalar(f(self, o)?)),
            LVal::Agg(v) => Ok(LVal::Agg(v.into_iter().map(|x| self.map1(x, f, loc)).collect::<Result<_, _>>()?)),
            _ => Err(unsupported("an operation on a pointer where a number was expected", loc)),
        }
    }

    /// Applies `f` to corresponding scalars of `a` and `b`.
    pub(crate) fn map2(
        &mut self,
        a: LVal,
        b: LVal,
        f: &mut dyn FnMut(&mut Self, Operand, Operand) -> Result<Operand, LowerError>,
        loc: Option<Loc>,
    ) -> Result<LVal, LowerError> {
        match (a, b) {
            (LVal::Scalar(x), LVal::Scalar(y)) => Ok(LVal::Scalar(f(self, x, y)?)),
            (LVal::Agg(xs), LVal::Agg(ys)) if xs.len() == ys.len() => {
                Ok(LVal::Agg(xs.into_iter().zip(ys).map(|(x, y)| self.map2(x, y, f, loc)).collect::<Result<_, _>>()?))
            }
            _ => Err(unsupported("an operation on values of different shapes", loc)),
        }
    }

    /// The scalar leaves of a value, in order.
    pub(crate) fn leaves_of(v: &LVal, out: &mut Vec<Operand>) -> bool {
        match v {
            LVal::Scalar(o) => {
                out.push(*o);
                true
            }
            LVal::Agg(xs) => xs.iter().all(|x| Self::leaves_of(x, out)),
            _ => false,
        }
    }

    /// `extractelement`: a constant index picks the element; a variable one selects.
    pub(crate) fn extract_element(&mut self, v: LVal, idx: Operand, at: At<'_>) -> Result<LVal, LowerError> {
        let At { cur, span, loc } = at;
        let LVal::Agg(elems) = v else { return Err(unsupported("extractelement from a non-vector", loc)) };
        if let Some(i) = idx.as_const() {
            return elems.get(i as usize).cloned().ok_or_else(|| unsupported("extractelement out of range", loc));
        }
        let iw = self.kir.width(idx);
        let mut acc = elems.first().cloned().ok_or_else(|| unsupported("an empty vector", loc))?;
        for (i, e) in elems.into_iter().enumerate().skip(1) {
            let hit = self.kir.push(cur, InstKind::Cmp { pred: CmpPred::Eq, lhs: idx, rhs: Operand::konst(iw, i as u128) }, 1, span);
            acc = self.map2(
                e,
                acc,
                &mut |me, a, b| {
                    let w = me.kir.width(a);
                    Ok(Operand::Value(me.kir.push(cur, InstKind::Select { cond: Operand::Value(hit), then: a, els: b }, w, span)))
                },
                loc,
            )?;
        }
        Ok(acc)
    }

    /// `insertelement`.
    pub(crate) fn insert_element(&mut self, v: LVal, el: LVal, idx: Operand, at: At<'_>) -> Result<LVal, LowerError> {
        let At { cur, span, loc } = at;
        let LVal::Agg(mut elems) = v else { return Err(unsupported("insertelement into a non-vector", loc)) };
        if let Some(i) = idx.as_const() {
            let slot = elems.get_mut(i as usize).ok_or_else(|| unsupported("insertelement out of range", loc))?;
            *slot = el;
            return Ok(LVal::Agg(elems));
        }
        let iw = self.kir.width(idx);
        let mut out = vec![];
        for (i, e) in elems.into_iter().enumerate() {
            let hit = self.kir.push(cur, InstKind::Cmp { pred: CmpPred::Eq, lhs: idx, rhs: Operand::konst(iw, i as u128) }, 1, span);
            out.push(self.map2(
                el.clone(),
                e,
                &mut |me, a, b| {
                    let w = me.kir.width(a);
                    Ok(Operand::Value(me.kir.push(cur, InstKind::Select { cond: Operand::Value(hit), then: a, els: b }, w, span)))
                },
                loc,
            )?);
        }
        Ok(LVal::Agg(out))
    }

    /// `shufflevector`: elements of the two inputs chosen by a constant mask (`undef`
    /// positions are zero).
    pub(crate) fn shuffle(
        &mut self,
        a: LVal,
        b: LVal,
        mask: &llvm_ir::ConstantRef,
        ty: &TypeRef,
        loc: Option<Loc>,
    ) -> Result<LVal, LowerError> {
        use llvm_ir::constant::Constant as C;
        let (LVal::Agg(xs), LVal::Agg(ys)) = (a, b) else { return Err(unsupported("shufflevector of non-vectors", loc)) };
        let all: Vec<LVal> = xs.into_iter().chain(ys).collect();
        let picks: Vec<Option<u64>> = match mask.as_ref() {
            C::Vector(ms) => ms
                .iter()
                .map(|m| match m.as_ref() {
                    C::Int { value, .. } => Some(*value),
                    _ => None,
                })
                .collect(),
            C::AggregateZero(_) => {
                let n = match ty.as_ref() {
                    Type::VectorType { num_elements, .. } => *num_elements,
                    _ => 0,
                };
                vec![Some(0); n]
            }
            other => return Err(unsupported(format!("a shufflevector mask `{other}`"), loc)),
        };
        let elem_bits = match ty.as_ref() {
            Type::VectorType { element_type, .. } => layout::scalar_bits(element_type),
            _ => None,
        }
        .ok_or_else(|| unsupported("a shufflevector of non-scalar elements", loc))?;
        let mut out = vec![];
        for p in picks {
            out.push(match p {
                Some(i) => all.get(i as usize).cloned().ok_or_else(|| unsupported("a shufflevector index out of range", loc))?,
                None => LVal::Scalar(Operand::konst(elem_bits, 0)),
            });
        }
        Ok(LVal::Agg(out))
    }

    /// `bitcast` between types of one size: same-shaped values element by element; other
    /// shapes through their bits (up to 128 bits).
    pub(crate) fn bitcast_value(&mut self, v: LVal, from: &TypeRef, to: &TypeRef, at: At<'_>) -> Result<LVal, LowerError> {
        let At { cur, span, loc } = at;
        let shape = |t: &TypeRef| -> Option<(usize, u16)> {
            match t.as_ref() {
                Type::VectorType { element_type, num_elements, .. } => Some((*num_elements, layout::scalar_bits(element_type)?)),
                _ => Some((0, layout::scalar_bits(t)?)),
            }
        };
        let (Some((n1, w1)), Some((n2, w2))) = (shape(from), shape(to)) else {
            return Err(unsupported(format!("a bitcast from {from} to {to}"), loc));
        };
        if n1 == n2 && w1 == w2 {
            return Ok(v); // bits are bits: float and integer elements of one width
        }
        // Through one wide integer: element 0 is the least significant.
        let mut parts = vec![];
        if !Self::leaves_of(&v, &mut parts) {
            return Err(unsupported("a bitcast of a pointer", loc));
        }
        let total: u32 = parts.iter().map(|p| self.kir.width(*p) as u32).sum();
        if total > 128 {
            return Err(unsupported(format!("a bitcast of a {total}-bit value"), loc));
        }
        let tw = total as u16;
        let mut acc = Operand::konst(tw, 0);
        let mut shift = 0u32;
        for p in parts {
            let pw = self.kir.width(p) as u32;
            let wide =
                if pw as u16 == tw { p } else { Operand::Value(self.kir.push(cur, InstKind::Cast { op: CastOp::ZExt, arg: p }, tw, span)) };
            let sh = if shift == 0 {
                wide
            } else {
                Operand::Value(self.kir.push(
                    cur,
                    InstKind::Bin { op: BinOp::Shl, lhs: wide, rhs: Operand::konst(tw, shift as u128) },
                    tw,
                    span,
                ))
            };
            acc = Operand::Value(self.kir.push(cur, InstKind::Bin { op: BinOp::Or, lhs: acc, rhs: sh }, tw, span));
            shift += pw;
        }
        let count = if n2 == 0 { 1 } else { n2 };
        let mut out = vec![];
        for i in 0..count {
            let s = i as u32 * w2 as u32;
            let sh = if s == 0 {
                acc
            } else {
                Operand::Value(self.kir.push(
                    cur,
                    InstKind::Bin { op: BinOp::LShr, lhs: acc, rhs: Operand::konst(tw, s as u128) },
                    tw,
                    span,
                ))
            };
            let e = if w2 == tw { sh } else { Operand::Value(self.kir.push(cur, InstKind::Cast { op: CastOp::Trunc, arg: sh }, w2, span)) };
            out.push(LVal::Scalar(e));
        }
        Ok(if n2 == 0 { out.remove(0) } else { LVal::Agg(out) })
    }
}
