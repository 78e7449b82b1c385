//! Values of the encoding: width-1 values are Z3 Booleans, wider ones bit-vectors.

use z3::ast::{Ast, Bool, BV};
use z3::Context;

/// A symbolic value of one thread.
#[derive(Clone, Debug)]
pub enum Term<'ctx> {
    B(Bool<'ctx>),
    V(BV<'ctx>),
}

impl<'ctx> Term<'ctx> {
    /// The value as a Boolean (a bit-vector is true when non-zero).
    pub fn to_bool(&self, ctx: &'ctx Context) -> Bool<'ctx> {
        match self {
            Term::B(b) => b.clone(),
            Term::V(v) => v._eq(&BV::from_u64(ctx, 0, v.get_size())).not(),
        }
    }

    /// The value as a bit-vector of its own width (a Boolean becomes a 1-bit vector).
    pub fn to_bv(&self, ctx: &'ctx Context) -> BV<'ctx> {
        match self {
            Term::B(b) => b.ite(&BV::from_u64(ctx, 1, 1), &BV::from_u64(ctx, 0, 1)),
            Term::V(v) => v.clone(),
        }
    }

    pub fn width(&self) -> u32 {
        match self {
            Term::B(_) => 1,
            Term::V(v) => v.get_size(),
        }
    }

    /// `if c then a else b`, for terms of one width.
    pub fn ite(c: &Bool<'ctx>, a: &Term<'ctx>, b: &Term<'ctx>, ctx: &'ctx Context) -> Term<'ctx> {
        match (a, b) {
            (Term::B(x), Term::B(y)) => Term::B(c.ite(x, y)),
            _ => Term::V(c.ite(&a.to_bv(ctx), &b.to_bv(ctx))),
        }
    }

    pub fn eq(&self, other: &Term<'ctx>, ctx: &'ctx Context) -> Bool<'ctx> {
        match (self, other) {
            (Term::B(x), Term::B(y)) => x.iff(y),
            _ => self.to_bv(ctx)._eq(&other.to_bv(ctx)),
        }
    }
}

/// A bit-vector constant of any width up to 128 bits.
pub fn bv_const<'ctx>(ctx: &'ctx Context, bits: u128, width: u32) -> BV<'ctx> {
    if width <= 64 {
        BV::from_u64(ctx, bits as u64, width)
    } else {
        let hi = BV::from_u64(ctx, (bits >> 64) as u64, width - 64);
        hi.concat(&BV::from_u64(ctx, bits as u64, 64))
    }
}

/// `x · y` (bit-vectors of one width, modulo `2^width`), a multiplication by a numeral power
/// of two `2^k` (k ≥ 1) made the shift `x << k`: the same value, but Z3 4.8's bit-blaster
/// builds a whole multiplier circuit for `bvmul` by a numeral (its constant multiplier is
/// off), while it rewrites a shift by a numeral into wiring (`concat`). An array access's
/// byte offset is its index times the element's size, so nearly every race query has such
/// products: a trivial race query (`4·l₂ − 4·l₁`, 64 bits) took 17 ms to check with `bvmul`
/// against 4 ms with shifts.
pub fn mul<'ctx>(x: &BV<'ctx>, y: &BV<'ctx>) -> BV<'ctx> {
    let shifted = |v: &BV<'ctx>, c: Option<u64>| {
        c.filter(|c| *c > 1 && c.is_power_of_two()).map(|c| v.bvshl(&BV::from_u64(v.get_ctx(), c.trailing_zeros() as u64, v.get_size())))
    };
    match (x.as_u64(), y.as_u64()) {
        (None, c @ Some(_)) => shifted(x, c),
        (c @ Some(_), None) => shifted(y, c),
        _ => None,
    }
    .unwrap_or_else(|| x.bvmul(y))
}

/// `x · k` (modulo `2^width`) for the numeral `k`, as the sum and difference of shifts of
/// `x` that `k`'s non-adjacent form gives (Reitwiesner 1960: digits in {−1, 0, 1}, no two
/// adjacent ones non-zero, so at most ⌈(bits + 1) / 2⌉ terms; `1023 = 2^10 − 1` is two).
/// The same value as `bvmul`, but Z3 4.8's bit-blaster makes a shift by a numeral wiring and
/// each term one adder, where `bvmul` by a numeral is a whole multiplier circuit (see
/// [`mul`]). For the products that stay inside a definition (the quotients of
/// [`crate::divide`]); an offset's product goes through [`mul`], whose single `bvmul` the
/// stride refutation reads.
pub fn times_numeral<'ctx>(x: &BV<'ctx>, k: u64) -> BV<'ctx> {
    let width = x.get_size();
    let mut terms: Vec<(bool, u32)> = vec![];
    let mut c = k as u128;
    let mut i = 0u32;
    while c != 0 {
        if c & 1 == 1 {
            // The digit: +1 when c ≡ 1 (mod 4), −1 when c ≡ 3, so that the next is 0.
            let negative = c & 3 == 3;
            if negative {
                c += 1;
            } else {
                c -= 1;
            }
            // 2^i ≡ 0 (mod 2^width) past the width.
            if i < width {
                terms.push((negative, i));
            }
        }
        c >>= 1;
        i += 1;
    }
    let shifted = |i: u32| if i == 0 { x.clone() } else { x.bvshl(&BV::from_u64(x.get_ctx(), i as u64, width)) };
    let mut sum: Option<BV<'ctx>> = None;
    // The positive terms first, so that a sum starts without a negation.
    terms.sort_by_key(|&(negative, _)| negative);
    for (negative, i) in terms {
        let t = shifted(i);
        sum = Some(match (sum, negative) {
            (None, false) => t,
            (None, true) => t.bvneg(),
            (Some(s), false) => s.bvadd(&t),
            (Some(s), true) => s.bvsub(&t),
        });
    }
    sum.unwrap_or_else(|| BV::from_u64(x.get_ctx(), 0, width))
}

/// A constant operand as a term.
pub fn const_term<'ctx>(ctx: &'ctx Context, bits: u128, width: u16) -> Term<'ctx> {
    if width == 1 {
        Term::B(Bool::from_bool(ctx, bits & 1 == 1))
    } else {
        Term::V(bv_const(ctx, bits, width as u32))
    }
}

/// `a` resized to `width` bits by zero extension or truncation.
pub fn resize<'ctx>(a: &BV<'ctx>, width: u32) -> BV<'ctx> {
    let w = a.get_size();
    if w == width {
        a.clone()
    } else if w < width {
        a.zero_ext(width - w)
    } else {
        a.extract(width - 1, 0)
    }
}

pub fn and<'ctx>(ctx: &'ctx Context, xs: &[&Bool<'ctx>]) -> Bool<'ctx> {
    match xs.len() {
        0 => Bool::from_bool(ctx, true),
        1 => xs[0].clone(),
        _ => Bool::and(ctx, xs),
    }
}

pub fn or<'ctx>(ctx: &'ctx Context, xs: &[&Bool<'ctx>]) -> Bool<'ctx> {
    match xs.len() {
        0 => Bool::from_bool(ctx, false),
        1 => xs[0].clone(),
        _ => Bool::or(ctx, xs),
    }
}

/// Whether a Boolean is the constant false, or simplifies to it. Only a term of at most
/// [`SIMPLIFY_LIMIT`] nodes is simplified: Z3's simplifier walks the whole term each time, and
/// terms that grow with the kernel (race logs' `ite` chains) would make the encoding quadratic.
/// A large term is taken as possibly true, which only keeps a check that could be dropped.
pub fn is_false(b: &Bool<'_>) -> bool {
    match b.as_bool() {
        Some(v) => !v,
        None => at_most_nodes(b, SIMPLIFY_LIMIT) && b.simplify().as_bool() == Some(false),
    }
}

/// The largest term (in nodes, shared ones counted each time) that is simplified on the way.
pub const SIMPLIFY_LIMIT: usize = 256;

/// `b` simplified if it has at most [`SIMPLIFY_LIMIT`] nodes, else `b` as it is.
pub fn simplify_small<'ctx>(b: Bool<'ctx>) -> Bool<'ctx> {
    if at_most_nodes(&b, SIMPLIFY_LIMIT) {
        b.simplify()
    } else {
        b
    }
}

/// Whether the term `x` has at most `limit` nodes (a node reached along two paths counts
/// twice); stops counting at `limit`.
pub fn at_most_nodes<'ctx>(x: &impl Ast<'ctx>, limit: usize) -> bool {
    let mut stack: Vec<z3::ast::Dynamic<'ctx>> = vec![z3::ast::Dynamic::from_ast(x)];
    let mut n = 0;
    while let Some(t) = stack.pop() {
        n += 1;
        if n > limit {
            return false;
        }
        stack.extend((0..t.num_children()).filter_map(|i| t.nth_child(i)));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{mul, times_numeral};
    use z3::ast::{Ast, BV};
    use z3::{Config, Context, SatResult, Solver};

    /// `times_numeral` is `bvmul` by the numeral: Z3 proves it for every 8-bit numeral; at 32
    /// and 64 bits (where proving two multipliers equal is beyond a bit-blaster) it evaluates
    /// to the product for numerals with runs of ones, a top bit and none, on edge values.
    #[test]
    fn times_numeral_is_the_product() {
        let ctx = Context::new(&Config::new());
        let x8 = BV::new_const(&ctx, "x8", 8);
        for k in 0..=255 {
            let s = Solver::new(&ctx);
            s.assert(&times_numeral(&x8, k)._eq(&x8.bvmul(&BV::from_u64(&ctx, k, 8))).not());
            assert_eq!(s.check(), SatResult::Unsat, "{k} at 8 bits");
        }
        for width in [32u32, 64] {
            let mask = u64::MAX >> (64 - width);
            let x = BV::new_const(&ctx, format!("x{width}"), width);
            for k in [3u64, 1023, 3 << 20, 0x5555_5555, 0xffff_fff0, 1 << 31, u32::MAX as u64, u64::MAX, 1 << 63, 0xdead_beef_f00d_1234] {
                let product = times_numeral(&x, k);
                for v in [0u64, 1, 2, 3, 1000, 0x8000_0000, 0xffff_ffff, 1 << 63, u64::MAX, 0x0123_4567_89ab_cdef] {
                    let got = product.substitute(&[(&x, &BV::from_u64(&ctx, v, width))]).simplify().as_u64();
                    assert_eq!(got, Some(v.wrapping_mul(k) & mask), "{v} * {k} at {width} bits");
                }
            }
        }
        let x = BV::new_const(&ctx, "x", 64);
        let product = times_numeral(&x, 1023);
        assert_eq!(product.decl().kind(), z3::DeclKind::BSUB);
        assert!(!format!("{product}").contains("bvmul"));
    }

    /// `mul` is `bvmul` for every value: a product by a power of two (as a shift), by other
    /// numerals and by a variable (as `bvmul`); Z3 proves the two equal at each width.
    #[test]
    fn mul_is_the_product_whatever_it_builds() {
        let ctx = Context::new(&Config::new());
        for width in [8u32, 32, 64] {
            let x = BV::new_const(&ctx, format!("x{width}"), width);
            let y = BV::new_const(&ctx, format!("y{width}"), width);
            let mut factors: Vec<BV<'_>> = [0u64, 1, 2, 4, 12, 128, 1 << (width - 1), u64::MAX >> (64 - width)]
                .iter()
                .map(|&c| BV::from_u64(&ctx, c, width))
                .collect();
            factors.push(y.clone());
            for c in &factors {
                for (a, b) in [(&x, c), (c, &x)] {
                    let ours = mul(a, b);
                    let s = Solver::new(&ctx);
                    s.assert(&ours._eq(&a.bvmul(b)).not());
                    assert_eq!(s.check(), SatResult::Unsat, "{ours} against ({a} * {b})");
                }
            }
            // A power of two is a shift (what Z3 bit-blasts as wiring), another numeral a product.
            assert_eq!(mul(&x, &BV::from_u64(&ctx, 4, width)).decl().kind(), z3::DeclKind::BSHL);
            assert_eq!(mul(&BV::from_u64(&ctx, 4, width), &x).decl().kind(), z3::DeclKind::BSHL);
            assert_eq!(mul(&x, &BV::from_u64(&ctx, 12, width)).decl().kind(), z3::DeclKind::BMUL);
            assert_eq!(mul(&x, &y).decl().kind(), z3::DeclKind::BMUL);
        }
    }
}
