//! Bit-vector arithmetic of KIR values (`u128` holding a value of `width` bits), with the
//! SMT-LIB semantics the verifier's encoding gives them: division by zero is all ones
//! (unsigned quotient), the dividend (remainder), `±1` (signed quotient); a shift by the
//! width or more is 0 (or the sign, arithmetic).

use syncfix_kir::{BinOp, CastOp, CmpPred};

/// The mask of `width` bits.
pub(crate) fn mask(width: u16) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// `v` (of `width` bits) as a signed number.
pub(crate) fn signed(v: u128, width: u16) -> i128 {
    if width == 0 || width >= 128 {
        v as i128
    } else {
        let s = 128 - width as u32;
        ((v << s) as i128) >> s
    }
}

/// `lhs op rhs` at `width` bits.
pub(crate) fn bin(op: BinOp, a: u128, b: u128, width: u16) -> u128 {
    let m = mask(width);
    let (a, b) = (a & m, b & m);
    let r = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::UDiv => a.checked_div(b).unwrap_or(m),
        BinOp::URem => a.checked_rem(b).unwrap_or(a),
        BinOp::SDiv => {
            let (sa, sb) = (signed(a, width), signed(b, width));
            if sb == 0 {
                if sa < 0 {
                    1
                } else {
                    m
                }
            } else {
                sa.wrapping_div(sb) as u128
            }
        }
        BinOp::SRem => {
            let (sa, sb) = (signed(a, width), signed(b, width));
            if sb == 0 {
                a
            } else {
                sa.wrapping_rem(sb) as u128
            }
        }
        BinOp::Shl => {
            if b >= width as u128 {
                0
            } else {
                a << b
            }
        }
        BinOp::LShr => {
            if b >= width as u128 {
                0
            } else {
                a >> b
            }
        }
        BinOp::AShr => {
            let sa = signed(a, width);
            if b >= width as u128 {
                if sa < 0 {
                    m
                } else {
                    0
                }
            } else {
                (sa >> b) as u128
            }
        }
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
    };
    r & m
}

/// `lhs pred rhs` of two `width`-bit values.
pub(crate) fn cmp(pred: CmpPred, a: u128, b: u128, width: u16) -> bool {
    let m = mask(width);
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (signed(a, width), signed(b, width));
    match pred {
        CmpPred::Eq => a == b,
        CmpPred::Ne => a != b,
        CmpPred::Ult => a < b,
        CmpPred::Ule => a <= b,
        CmpPred::Ugt => a > b,
        CmpPred::Uge => a >= b,
        CmpPred::Slt => sa < sb,
        CmpPred::Sle => sa <= sb,
        CmpPred::Sgt => sa > sb,
        CmpPred::Sge => sa >= sb,
    }
}

/// A cast of `v` from `from` bits to `to` bits.
pub(crate) fn cast(op: CastOp, v: u128, from: u16, to: u16) -> u128 {
    match op {
        CastOp::ZExt | CastOp::Trunc => v & mask(from) & mask(to),
        CastOp::SExt => signed(v & mask(from), from) as u128 & mask(to),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smt_lib_division_and_shifts() {
        assert_eq!(bin(BinOp::UDiv, 7, 0, 8), 0xff);
        assert_eq!(bin(BinOp::URem, 7, 0, 8), 7);
        assert_eq!(bin(BinOp::SDiv, 0xf9, 0, 8), 1); // -7 / 0
        assert_eq!(bin(BinOp::SDiv, 7, 0, 8), 0xff);
        assert_eq!(bin(BinOp::SDiv, 0x80, 0xff, 8), 0x80); // MIN / -1 wraps
        assert_eq!(bin(BinOp::SRem, 0xf9, 2, 8), 0xff); // -7 % 2 = -1
        assert_eq!(bin(BinOp::Shl, 1, 8, 8), 0);
        assert_eq!(bin(BinOp::AShr, 0x80, 9, 8), 0xff);
        assert_eq!(bin(BinOp::AShr, 0x80, 1, 8), 0xc0);
        assert_eq!(bin(BinOp::Sub, 0, 1, 32), 0xffff_ffff);
        assert!(cmp(CmpPred::Slt, 0xff, 0, 8));
        assert!(!cmp(CmpPred::Ult, 0xff, 0, 8));
        assert_eq!(cast(CastOp::SExt, 0x80, 8, 16), 0xff80);
        assert_eq!(cast(CastOp::Trunc, 0x1234, 16, 8), 0x34);
    }
}
