//! Exact folding of integer operations on constants, with LLVM's meaning at the operands'
//! width: two's complement, wrapping `add`/`sub`/`mul`, and no value where LLVM gives none
//! (a division by zero or a shift by the width or more is undefined behaviour or poison, and
//! is an error rather than a guess).

use syncfix_kir::{BinOp, CastOp};

/// The bits of `w` ones (`w` at most 128).
pub(crate) fn mask(w: u16) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// `x` (a `w`-bit value) sign-extended to 128 bits.
fn signed(x: u128, w: u16) -> i128 {
    if w == 0 || w >= 128 {
        return x as i128;
    }
    let x = x & mask(w);
    if (x >> (w - 1)) & 1 == 1 {
        (x | !mask(w)) as i128
    } else {
        x as i128
    }
}

/// `a op b` on `w`-bit operands, as LLVM computes it. Errors (naming the operation):
/// division or remainder by zero, signed division overflow (`INT_MIN / -1`), a shift by `w` or
/// more.
pub(crate) fn bin(op: BinOp, w: u16, a: u128, b: u128) -> Result<u128, String> {
    let (a, b) = (a & mask(w), b & mask(w));
    let (sa, sb) = (signed(a, w), signed(b, w));
    let name = format!("{op:?}").to_lowercase();
    let zero_divisor = || Err(format!("`{name}` by zero"));
    let r = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::UDiv | BinOp::URem if b == 0 => return zero_divisor(),
        BinOp::UDiv => a / b,
        BinOp::URem => a % b,
        BinOp::SDiv | BinOp::SRem if b == 0 => return zero_divisor(),
        BinOp::SDiv | BinOp::SRem if sb == -1 && sa == signed(1u128 << (w - 1), w) => {
            return Err(format!("`{name}` of the least {w}-bit integer by -1 (overflow)"))
        }
        BinOp::SDiv => (sa / sb) as u128,
        BinOp::SRem => (sa % sb) as u128,
        BinOp::Shl | BinOp::LShr | BinOp::AShr if b >= w as u128 => {
            return Err(format!("`{name}` of a {w}-bit value by {b} bits (poison in LLVM)"))
        }
        BinOp::Shl => a << b,
        BinOp::LShr => a >> b,
        BinOp::AShr => (sa >> b) as u128,
    };
    Ok(r & mask(w))
}

/// `op` of the `from`-bit value `a` to `to` bits.
pub(crate) fn cast(op: CastOp, from: u16, to: u16, a: u128) -> u128 {
    match op {
        CastOp::ZExt | CastOp::Trunc => a & mask(from) & mask(to),
        CastOp::SExt => signed(a, from) as u128 & mask(to),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_operator_at_its_width() {
        assert_eq!(bin(BinOp::Add, 8, 200, 100), Ok(44));
        assert_eq!(bin(BinOp::Sub, 32, 1, 2), Ok(0xffff_ffff));
        assert_eq!(bin(BinOp::Mul, 16, 0x100, 0x100), Ok(0));
        assert_eq!(bin(BinOp::Mul, 64, 3, 5), Ok(15));
        assert_eq!(bin(BinOp::UDiv, 32, 0xffff_fffe, 2), Ok(0x7fff_ffff));
        assert_eq!(bin(BinOp::SDiv, 32, 0xffff_fffe, 2), Ok(0xffff_ffff));
        assert_eq!(bin(BinOp::URem, 8, 0xff, 10), Ok(5));
        assert_eq!(bin(BinOp::SRem, 8, 0xf9, 3), Ok(0xff)); // -7 % 3 == -1
        assert_eq!(bin(BinOp::And, 8, 0xf0, 0x3c), Ok(0x30));
        assert_eq!(bin(BinOp::Or, 8, 0xf0, 0x0f), Ok(0xff));
        assert_eq!(bin(BinOp::Xor, 64, u64::MAX as u128, 1), Ok(u64::MAX as u128 - 1));
        assert_eq!(bin(BinOp::Shl, 8, 0x81, 1), Ok(0x02));
        assert_eq!(bin(BinOp::LShr, 8, 0x80, 7), Ok(1));
        assert_eq!(bin(BinOp::AShr, 8, 0x80, 7), Ok(0xff));
        assert_eq!(bin(BinOp::Add, 1, 1, 1), Ok(0));
        assert_eq!(bin(BinOp::Add, 128, u128::MAX, 2), Ok(1));
    }

    #[test]
    fn undefined_results_are_errors() {
        assert!(bin(BinOp::UDiv, 32, 1, 0).unwrap_err().contains("udiv"));
        assert!(bin(BinOp::SRem, 32, 1, 0).is_err());
        assert!(bin(BinOp::SDiv, 8, 0x80, 0xff).unwrap_err().contains("overflow"));
        assert!(bin(BinOp::Shl, 32, 1, 32).unwrap_err().contains("poison"));
        assert!(bin(BinOp::AShr, 8, 1, 9).is_err());
    }

    #[test]
    fn casts() {
        assert_eq!(cast(CastOp::Trunc, 64, 32, 0x1_0000_0004), 4);
        assert_eq!(cast(CastOp::ZExt, 8, 32, 0xff), 0xff);
        assert_eq!(cast(CastOp::SExt, 8, 32, 0xff), 0xffff_ffff);
        assert_eq!(cast(CastOp::SExt, 1, 8, 1), 0xff);
        assert_eq!(cast(CastOp::SExt, 32, 64, 0x7fff_ffff), 0x7fff_ffff);
    }
}
