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
    use super::mul;
    use z3::ast::{Ast, BV};
    use z3::{Config, Context, SatResult, Solver};

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
