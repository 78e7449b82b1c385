//! OpenCL's and CUDA's exact integer functions (`add_sat`, `mul24`, `mad_hi`, `min`, `clamp`...):
//! their arithmetic at the operands' width, saturation and 24-bit products emitted as KIR.

use super::*;

/// Integer library functions computed exactly on scalars (OpenCL C 1.2 §6.12.3, CUDA's integer
/// intrinsics). The operands are signed when the first parameter's type is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum IntFn {
    AddSat,
    SubSat,
    MadSat,
    HAdd,
    RHAdd,
    MulHi,
    MadHi,
    Mul24,
    Mad24,
    Min,
    Max,
    Clamp,
    Abs,
    AbsDiff,
    Sad,
    Rotate,
    Upsample,
}

/// The integer function `name` of OpenCL C (`opencl`) or CUDA.
pub(super) fn int_fn(name: &str, opencl: bool) -> Option<IntFn> {
    use IntFn::*;
    Some(match (name, opencl) {
        ("min", _) => Min,
        ("max", _) => Max,
        ("abs", _) => Abs,
        ("add_sat", true) => AddSat,
        ("sub_sat", true) => SubSat,
        ("mad_sat", true) => MadSat,
        ("hadd", true) | ("__hadd" | "__uhadd", false) => HAdd,
        ("rhadd", true) | ("__rhadd" | "__urhadd", false) => RHAdd,
        ("mul_hi", true) | ("__mulhi" | "__umulhi" | "__mul64hi" | "__umul64hi", false) => MulHi,
        ("mad_hi", true) => MadHi,
        ("mul24", true) | ("__mul24" | "__umul24", false) => Mul24,
        ("mad24", true) => Mad24,
        ("umin" | "llmin" | "ullmin", false) => Min,
        ("umax" | "llmax" | "ullmax", false) => Max,
        ("clamp", true) => Clamp,
        ("labs" | "llabs", false) => Abs,
        ("abs_diff", true) => AbsDiff,
        ("__sad" | "__usad", false) => Sad,
        ("rotate", true) => Rotate,
        ("upsample", true) => Upsample,
        _ => return None,
    })
}

/// The integer functions' emission: saturation, 24-bit operands, minimum and maximum.
impl KirBuilder {
    /// `x` clamped to the range of a `w`-bit integer (computed in `x`'s wider width), then
    /// truncated to `w` bits.
    pub(super) fn lib_saturate(&mut self, cur: BlockId, x: Operand, w: u16, signed: bool, span: &Span) -> Operand {
        let ww = self.width(x);
        let (lo, hi) = if signed {
            let hi = (1u128 << (w - 1)) - 1;
            (Operand::konst(ww, (!hi) & mask(ww)), Operand::konst(ww, hi))
        } else {
            (Operand::konst(ww, 0), Operand::konst(ww, mask(w)))
        };
        let (lt, gt) = if signed { (CmpPred::Slt, CmpPred::Sgt) } else { (CmpPred::Ult, CmpPred::Ugt) };
        let below = self.cmp(cur, lt, x, lo, span);
        let x = self.select(cur, below, lo, x, span);
        let above = self.cmp(cur, gt, x, hi, span);
        let x = self.select(cur, above, hi, x, span);
        self.resize_unfolded(cur, x, w, signed, span)
    }

    /// The low 24 bits of `x`, sign- or zero-extended back to its width (for `mul24`).
    pub(super) fn lib_low24(&mut self, cur: BlockId, x: Operand, signed: bool, span: &Span) -> Operand {
        let w = self.width(x);
        if signed {
            let s = self.bin(cur, BinOp::Shl, x, Operand::konst(w, (w - 24) as u128), span);
            self.bin(cur, BinOp::AShr, s, Operand::konst(w, (w - 24) as u128), span)
        } else {
            self.bin(cur, BinOp::And, x, Operand::konst(w, 0xff_ffff), span)
        }
    }

    pub(super) fn lib_min_max(&mut self, cur: BlockId, a: Operand, b: Operand, max: bool, signed: bool, span: &Span) -> Operand {
        let pred = match (max, signed) {
            (false, true) => CmpPred::Slt,
            (false, false) => CmpPred::Ult,
            (true, true) => CmpPred::Sgt,
            (true, false) => CmpPred::Ugt,
        };
        let c = self.cmp(cur, pred, b, a, span);
        self.select(cur, c, b, a, span)
    }
}

impl<'a> Lowerer<'a> {
    /// An integer library function on scalars, computed exactly.
    pub(super) fn lib_int_function(
        &mut self,
        what: &str,
        f: IntFn,
        signed: bool,
        args: &[LVal],
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Option<Operand>, LowerError> {
        let At { cur, span, loc } = at;
        use IntFn::*;
        let arity = match f {
            Abs => 1,
            MadSat | MadHi | Mad24 | Clamp | Sad => 3,
            _ => 2,
        };
        if args.len() != arity {
            return Err(unsupported(format!("a call to `{what}` with unexpected arguments"), loc));
        }
        let ops: Vec<Operand> = match arity {
            1 => self.lib_scalars::<1>(what, args, loc)?.to_vec(),
            2 => self.lib_scalars::<2>(what, args, loc)?.to_vec(),
            _ => self.lib_scalars::<3>(what, args, loc)?.to_vec(),
        };
        // Operands of one width (clang converts arguments to the parameter types; CUDA's
        // mixed min/max take the wider).
        let w = ops.iter().map(|o| self.kir.width(*o)).max().unwrap_or(32);
        let ops: Vec<Operand> = ops.into_iter().map(|o| self.kir.resize_unfolded(cur, o, w, signed, span)).collect();
        let (a, b) = (ops[0], ops.get(1).copied().unwrap_or(ops[0]));
        let ww = (2 * w).min(128);
        let (shr, lt) = if signed { (BinOp::AShr, CmpPred::Slt) } else { (BinOp::LShr, CmpPred::Ult) };
        let v = match f {
            AddSat | SubSat | MadSat => {
                let (wa, wb) = (self.kir.resize_unfolded(cur, a, ww, signed, span), self.kir.resize_unfolded(cur, b, ww, signed, span));
                let r = match f {
                    AddSat => self.kir.bin(cur, BinOp::Add, wa, wb, span),
                    SubSat => self.kir.bin(cur, BinOp::Sub, wa, wb, span),
                    _ => {
                        let p = self.kir.bin(cur, BinOp::Mul, wa, wb, span);
                        let wc = self.kir.resize_unfolded(cur, ops[2], ww, signed, span);
                        self.kir.bin(cur, BinOp::Add, p, wc, span)
                    }
                };
                self.kir.lib_saturate(cur, r, w, signed, span)
            }
            HAdd | RHAdd => {
                let (wa, wb) = (self.kir.resize_unfolded(cur, a, ww, signed, span), self.kir.resize_unfolded(cur, b, ww, signed, span));
                let mut s = self.kir.bin(cur, BinOp::Add, wa, wb, span);
                if f == RHAdd {
                    s = self.kir.bin(cur, BinOp::Add, s, Operand::konst(ww, 1), span);
                }
                let h = self.kir.bin(cur, shr, s, Operand::konst(ww, 1), span);
                self.kir.resize_unfolded(cur, h, w, signed, span)
            }
            MulHi | MadHi => {
                let (wa, wb) = (self.kir.resize_unfolded(cur, a, ww, signed, span), self.kir.resize_unfolded(cur, b, ww, signed, span));
                let p = self.kir.bin(cur, BinOp::Mul, wa, wb, span);
                let h = self.kir.bin(cur, shr, p, Operand::konst(ww, w as u128), span);
                let h = self.kir.resize_unfolded(cur, h, w, signed, span);
                if f == MadHi {
                    self.kir.bin(cur, BinOp::Add, h, ops[2], span)
                } else {
                    h
                }
            }
            Mul24 | Mad24 => {
                let (la, lb) = (self.kir.lib_low24(cur, a, signed, span), self.kir.lib_low24(cur, b, signed, span));
                let p = self.kir.bin(cur, BinOp::Mul, la, lb, span);
                if f == Mad24 {
                    self.kir.bin(cur, BinOp::Add, p, ops[2], span)
                } else {
                    p
                }
            }
            Min => self.kir.lib_min_max(cur, a, b, false, signed, span),
            Max => self.kir.lib_min_max(cur, a, b, true, signed, span),
            Clamp => {
                let m = self.kir.lib_min_max(cur, a, b, true, signed, span);
                self.kir.lib_min_max(cur, m, ops[2], false, signed, span)
            }
            Abs => {
                if signed {
                    let neg = self.kir.bin(cur, BinOp::Sub, Operand::konst(w, 0), a, span);
                    let c = self.kir.cmp(cur, CmpPred::Slt, a, Operand::konst(w, 0), span);
                    self.kir.select(cur, c, neg, a, span)
                } else {
                    a
                }
            }
            AbsDiff | Sad => {
                let c = self.kir.cmp(cur, lt, a, b, span);
                let ba = self.kir.bin(cur, BinOp::Sub, b, a, span);
                let ab = self.kir.bin(cur, BinOp::Sub, a, b, span);
                let d = self.kir.select(cur, c, ba, ab, span);
                if f == Sad {
                    self.kir.bin(cur, BinOp::Add, d, ops[2], span)
                } else {
                    d
                }
            }
            Rotate => {
                let n = self.kir.bin(cur, BinOp::And, b, Operand::konst(w, (w - 1) as u128), span);
                let l = self.kir.bin(cur, BinOp::Shl, a, n, span);
                let back = self.kir.bin(cur, BinOp::Sub, Operand::konst(w, w as u128), n, span);
                let r = self.kir.bin(cur, BinOp::LShr, a, back, span);
                let rot = self.kir.bin(cur, BinOp::Or, l, r, span);
                let zero = self.kir.cmp(cur, CmpPred::Eq, n, Operand::konst(w, 0), span);
                self.kir.select(cur, zero, a, rot, span)
            }
            Upsample => {
                let hi = self.kir.resize_unfolded(cur, a, ww, false, span);
                let lo = self.kir.resize_unfolded(cur, b, ww, false, span);
                let hi = self.kir.bin(cur, BinOp::Shl, hi, Operand::konst(ww, w as u128), span);
                self.kir.bin(cur, BinOp::Or, hi, lo, span)
            }
        };
        // The declared result may be narrower or wider than the computation (CUDA's
        // `__mul24` of unsigned values returning int...).
        Ok(Some(match ret_bits {
            Some(r) => self.kir.resize_unfolded(cur, v, r, signed, span),
            None => v,
        }))
    }
}
