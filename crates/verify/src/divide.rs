//! Division and remainder by a constant without a divider circuit (issue 25).
//!
//! Z3 bit-blasts `bvudiv`/`bvsdiv`/`bvurem`/`bvsrem` as a full divider even when the divisor
//! is a constant: one subtract-and-select row per bit, each depending on the one before.
//! PPCG's PolyBench kernels divide 64-bit loop bounds by `3 * 2^20` (`floord`), and those
//! dividers were most of their solving time (nussinov's `kernel0`: 24 s; 2.7 s with the
//! divisors made powers of two). A multiplication by the reciprocal, as compilers emit it
//! (Granlund and Montgomery, PLDI 1994), was tried and is slower still: its multiplier has
//! half its 65 bits set. Here the quotient is a fresh constant `q` defined by the facts that
//! hold of it alone, `q·k ≤ x < q·k + k`, in a width where `q·k` cannot overflow: a
//! multiplication by the constant `k` as shifts and adders (`term::times_numeral`: one
//! adder for `3`, where `bvmul` by a numeral is a whole multiplier in Z3 4.8) and two
//! comparisons. The divisor's power-of-two factor `2^s` is shifted out first (`⌊x / (k·2^s)⌋
//! = ⌊⌊x / 2^s⌋ / k⌋`), and a power of two alone needs no constant (signed: a bias and an
//! arithmetic shift). Signed division truncates toward zero (LLVM's `sdiv`): the magnitude
//! is divided and the sign put back; a remainder is `x − q·d`.
//!
//! The definition holds for exactly one `q` for every `x`, so assuming it excludes no
//! execution: the caller assumes it where the division is executed (`State::assume`), which
//! puts it in the cone of every formula that reads the quotient (`cone`). The tests prove
//! the result equal to the divider's under the definition for every 8-bit divisor, and check
//! it at 32 and 64 bits on edge dividends and divisors.

use z3::ast::{Bool, BV};
use z3::Context;

/// Which operation: LLVM's `udiv`, `sdiv`, `urem` or `srem`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum DivOp {
    UDiv,
    SDiv,
    URem,
    SRem,
}

/// `x op d` for the constant divisor `d` (its bits; `x`'s width at most 64) without a divider
/// circuit: the result and the definition of the fresh quotient it reads (`None` for a power
/// of two). `fresh(width)` gives a fresh bit-vector constant. `None` where the divider is left
/// as it is: a divisor of 0 (whose result SMT-LIB fixes), 1 or −1, the signed minimum, or a
/// width over 64.
pub(crate) fn by_constant<'ctx>(
    ctx: &'ctx Context,
    op: DivOp,
    x: &BV<'ctx>,
    d: u64,
    fresh: impl FnOnce(u32) -> BV<'ctx>,
) -> Option<(BV<'ctx>, Option<Bool<'ctx>>)> {
    let width = x.get_size();
    if !(2..=64).contains(&width) {
        return None;
    }
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let d = d & mask;
    let signed = matches!(op, DivOp::SDiv | DivOp::SRem);
    let negative = signed && (d >> (width - 1)) & 1 == 1;
    // |d| as an unsigned value of `width` bits.
    let magnitude = if negative { d.wrapping_neg() & mask } else { d };
    if magnitude <= 1 || (negative && magnitude == 1u64 << (width - 1)) {
        return None;
    }
    if !signed && magnitude.is_power_of_two() {
        // x / 2^s and x mod 2^s are bit ranges of x.
        let s = magnitude.trailing_zeros();
        return Some(match op {
            DivOp::UDiv => (x.extract(width - 1, s).zero_ext(s), None),
            _ => (x.extract(s - 1, 0).zero_ext(width - s), None),
        });
    }
    if signed && magnitude.is_power_of_two() {
        // Truncation toward zero by a shift: a negative dividend is biased by 2^s − 1 first
        // (Warren, Hacker's Delight, §10-1), so no fresh quotient is needed.
        let s = magnitude.trailing_zeros() as u64;
        let zero = BV::from_u64(ctx, 0, width);
        let bias = x.bvslt(&zero).ite(&BV::from_u64(ctx, magnitude - 1, width), &zero);
        let q = x.bvadd(&bias).bvashr(&BV::from_u64(ctx, s, width));
        return Some(match op {
            DivOp::SDiv if negative => (q.bvneg(), None),
            DivOp::SDiv => (q, None),
            // The remainder has the dividend's sign whatever the divisor's.
            _ => (x.bvsub(&q.bvshl(&BV::from_u64(ctx, s, width))), None),
        });
    }
    let (quotient, def) = if signed {
        let zero = BV::from_u64(ctx, 0, width);
        let x_negative = x.bvslt(&zero);
        let abs = x_negative.ite(&x.bvneg(), x);
        let (q, def) = unsigned_quotient(ctx, &abs, magnitude, fresh);
        let flip = if negative { x_negative.not() } else { x_negative };
        (flip.ite(&q.bvneg(), &q), def)
    } else {
        unsigned_quotient(ctx, x, magnitude, fresh)
    };
    let result = match op {
        DivOp::UDiv | DivOp::SDiv => quotient,
        DivOp::URem | DivOp::SRem => x.bvsub(&crate::term::times_numeral(&quotient, d)),
    };
    Some((result, def))
}

/// `⌊x / d⌋` for an unsigned `x` and a constant `2 ≤ d < 2^width`, and the definition of the
/// fresh quotient it reads.
fn unsigned_quotient<'ctx>(
    ctx: &'ctx Context,
    x: &BV<'ctx>,
    d: u64,
    fresh: impl FnOnce(u32) -> BV<'ctx>,
) -> (BV<'ctx>, Option<Bool<'ctx>>) {
    let width = x.get_size();
    let s = d.trailing_zeros();
    let k = d >> s;
    // The dividend without the bits the power of two drops: n bits.
    let n = width - s;
    let shifted = if s == 0 { x.clone() } else { x.extract(width - 1, s) };
    if k == 1 {
        return (shifted.zero_ext(s), None);
    }
    // q < 2^n and k < 2^bits(k): q·k + k fits n + bits(k) + 1 bits.
    let wide = n + (64 - k.leading_zeros()) + 1;
    let q = fresh(n);
    let product = crate::term::times_numeral(&q.zero_ext(wide - n), k);
    let dividend = shifted.zero_ext(wide - n);
    let def = Bool::and(ctx, &[&product.bvule(&dividend), &dividend.bvult(&product.bvadd(&BV::from_u64(ctx, k, wide)))]);
    let q = if s == 0 { q } else { q.zero_ext(s) };
    (q, Some(def))
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::Ast;
    use z3::{Config, SatResult, Solver};

    fn reference<'ctx>(op: DivOp, x: &BV<'ctx>, y: &BV<'ctx>) -> BV<'ctx> {
        match op {
            DivOp::UDiv => x.bvudiv(y),
            DivOp::SDiv => x.bvsdiv(y),
            DivOp::URem => x.bvurem(y),
            DivOp::SRem => x.bvsrem(y),
        }
    }

    const OPS: [DivOp; 4] = [DivOp::UDiv, DivOp::SDiv, DivOp::URem, DivOp::SRem];

    fn rewrite<'ctx>(ctx: &'ctx Context, op: DivOp, x: &BV<'ctx>, d: u64) -> Option<(BV<'ctx>, Bool<'ctx>)> {
        let (r, def) = by_constant(ctx, op, x, d, |w| BV::new_const(ctx, "q", w))?;
        Some((r, def.unwrap_or_else(|| Bool::from_bool(ctx, true))))
    }

    /// For a dividend fixed to `v`: the definition has a model, and every model gives the
    /// divider's result.
    fn agrees_at(ctx: &Context, op: DivOp, width: u32, d: u64, v: u64) -> Result<(), String> {
        let x = BV::new_const(ctx, "x", width);
        let Some((ours, def)) = rewrite(ctx, op, &x, d) else { return Ok(()) };
        let value = BV::from_u64(ctx, v, width);
        let expected = reference(op, &value, &BV::from_u64(ctx, d, width)).simplify();
        let solver = Solver::new(ctx);
        solver.assert(&x._eq(&value));
        solver.assert(&def);
        if solver.check() != SatResult::Sat {
            return Err(format!("{op:?} {v} by {d} at {width} bits: no quotient"));
        }
        solver.assert(&ours._eq(&expected).not());
        match solver.check() {
            SatResult::Unsat => Ok(()),
            _ => Err(format!("{op:?} {v} by {d} at {width} bits: a result other than {expected}")),
        }
    }

    /// Every 8-bit divisor: Z3 proves that under the definition the result is the divider's,
    /// for every dividend; and every dividend has a quotient.
    #[test]
    fn every_8_bit_divisor_is_the_divider() {
        let ctx = Context::new(&Config::new());
        let x = BV::new_const(&ctx, "x", 8);
        let mut rewritten = 0;
        for op in OPS {
            for d in 0..=255u64 {
                let Some((ours, def)) = rewrite(&ctx, op, &x, d) else { continue };
                rewritten += 1;
                let solver = Solver::new(&ctx);
                solver.assert(&def);
                solver.assert(&ours._eq(&reference(op, &x, &BV::from_u64(&ctx, d, 8))).not());
                assert_eq!(solver.check(), SatResult::Unsat, "{op:?} by {d}");
            }
        }
        // Declined: 0 and 1 for each, and −1 and −128 for the signed ones.
        assert_eq!(rewritten, 4 * 254 - 4);
        for (op, d, v) in [(DivOp::UDiv, 3, 255), (DivOp::SDiv, 3, 128), (DivOp::SRem, 253, 129), (DivOp::URem, 96, 200)] {
            agrees_at(&ctx, op, 8, d, v).unwrap();
        }
    }

    /// At the widths kernels use, for divisors PPCG and hand-written kernels divide by and
    /// dividends at the edges: with the quotient the definition describes (`⌊|x| / 2^s⌋ / k`)
    /// the definition holds and the result is the divider's, and with that quotient ± 1 it
    /// does not hold (by evaluation: Z3 is slow to bit-blast 64-bit dividers).
    #[test]
    fn agrees_with_the_divider_at_32_and_64_bits() {
        let ctx = Context::new(&Config::new());
        for width in [32u32, 64] {
            let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
            let min = 1u64 << (width - 1);
            let signed = |v: u64| if v & min != 0 { v.wrapping_neg() & mask } else { v };
            let divisors = [3u64, 7, 10, 24, 1000, 3145728, (-3i64) as u64 & mask, (-3145728i64) as u64 & mask, mask - 1, mask];
            let dividends = [
                0u64,
                1,
                2,
                3,
                5,
                1 << 20,
                3145727,
                3145728,
                3145729,
                123456789,
                min - 1,
                min,
                min + 1,
                mask - 1,
                mask,
                (-94i64) as u64 & mask,
                (-3145728i64 * 7 - 1) as u64 & mask,
            ];
            for d in divisors {
                for op in OPS {
                    let x = BV::new_const(&ctx, "x", width);
                    let q = std::cell::RefCell::new(None);
                    let made = by_constant(&ctx, op, &x, d, |w| {
                        let c = BV::new_const(&ctx, "q", w);
                        *q.borrow_mut() = Some(c.clone());
                        c
                    });
                    let Some((ours, def)) = made else { continue };
                    let Some(def) = def else {
                        // A power of two: no quotient to define.
                        for v in dividends {
                            let value = BV::from_u64(&ctx, v, width);
                            let got = ours.substitute(&[(&x, &value)]).simplify().as_u64();
                            let expected = reference(op, &value, &BV::from_u64(&ctx, d, width)).simplify().as_u64();
                            assert_eq!(got, expected, "{op:?} {v} by {d} at {width} bits");
                        }
                        continue;
                    };
                    let q = q.into_inner().unwrap();
                    let is_signed = matches!(op, DivOp::SDiv | DivOp::SRem);
                    let magnitude = if is_signed { signed(d) } else { d };
                    let k = magnitude >> magnitude.trailing_zeros();
                    for v in dividends {
                        let value = BV::from_u64(&ctx, v, width);
                        let abs = if is_signed { signed(v) } else { v };
                        let qv = (abs >> magnitude.trailing_zeros()) / k;
                        let at = |qv: u64| {
                            let qc = BV::from_u64(&ctx, qv, q.get_size());
                            (def.substitute(&[(&x, &value)]).substitute(&[(&q, &qc)]).simplify().as_bool(), qc)
                        };
                        let (holds, qc) = at(qv);
                        assert_eq!(holds, Some(true), "{op:?} {v} by {d} at {width} bits");
                        let got = ours.substitute(&[(&x, &value)]).substitute(&[(&q, &qc)]).simplify().as_u64();
                        let expected = reference(op, &value, &BV::from_u64(&ctx, d, width)).simplify().as_u64();
                        assert_eq!(got, expected, "{op:?} {v} by {d} at {width} bits");
                        for other in [qv.wrapping_add(1), qv.wrapping_sub(1)] {
                            if other < 1 << q.get_size().min(63) {
                                assert_eq!(at(other).0, Some(false), "{op:?} {v} by {d}: quotient {other}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn declines_what_the_divider_defines_specially() {
        let ctx = Context::new(&Config::new());
        let x = BV::new_const(&ctx, "x", 32);
        for op in OPS {
            assert!(rewrite(&ctx, op, &x, 0).is_none());
            assert!(rewrite(&ctx, op, &x, 1).is_none());
        }
        assert!(rewrite(&ctx, DivOp::SDiv, &x, u32::MAX as u64).is_none());
        assert!(rewrite(&ctx, DivOp::SDiv, &x, 1 << 31).is_none());
        assert!(rewrite(&ctx, DivOp::UDiv, &x, u32::MAX as u64).is_some());
        // A power of two needs no fresh quotient.
        let (_, def) = by_constant(&ctx, DivOp::SDiv, &x, 64, |_| unreachable!()).unwrap();
        assert!(def.is_none());
    }
}
