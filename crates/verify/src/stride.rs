//! A race query refuted by its offsets' common stride, without the pairs of accesses
//! (issue 25: cost linear in the kernel).
//!
//! A race property compares the offset of thread 2's access with the offset in thread 1's
//! log, which is one of thread 1's earlier accesses (`memory::Log`: an if-then-else chain over
//! them). Refuting a query of `n` checks against a log of `m` accesses makes the solver refute
//! every pair, `n · m` arithmetic facts: a straight-line kernel over a structure of arrays
//! (SHOC's S3D: `RF[(q − 1) · N + gid]` for 286 constants `q`, 572 checks) ran past minutes.
//! Yet such offsets differ only by constants: thread 1's indices are `r1 + a_k` and thread
//! 2's `r2 + b_j` for two terms `r1`, `r2` and integer constants `a_k`, `b_j`, so a race needs
//! `r1 − r2 = b_j − a_k` up to the accesses' overlap, and every `b_j − a_k` is `g · m` for `g`
//! the greatest common divisor of the constants and `m` between `(min b − max a) / g` and
//! `(max b − min a) / g`. When that one relation is unsatisfiable under the query's facts
//! (two distinct threads' `gid`s are less than `N` apart), so is every property of the query:
//! [`abstraction`] builds it, `Verifier::refuted_by_stride` solves it before the query. This is
//! the modular reasoning of GPUVerify's access-breaking invariants
//! (`__write_offset_bytes(A) % N == gid`, Betts et al. OOPSLA 2012 §5) done once per query,
//! not per access; where it does not refute, the query is solved as before.

use crate::encode::{Encoding, PropKind};
use crate::query::Query;
use z3::ast::{Ast, Bool, BV};
use z3::{Context, DeclKind};

/// The over-approximation of query `query`'s race properties described above, over fresh
/// constants named after `name`; every property's condition implies it. `None` when the
/// query is not only of race properties, an offset in it does not have the shape of the
/// others (its reference term plus a constant, [`Shape`]), or a log's access is not known (a
/// loop cut's havocked log). `shared`: the query's object is in shared memory, where only
/// threads of one group race (the properties' `same_group`, kept in the relation).
///
/// Offsets are byte offsets, `base + scale · ext(index)` where `ext` extends a narrower
/// index (CUDA's `int` indices: `4 · zext(32 · q + gid)`) or `index` alone; the indices'
/// constants are compared at the index's width `W`. With `d = ext(i1) − ext(i2)` (exact: the
/// extensions are injective), a race is `base1 − base2 + scale · d = e` (modulo 2^64) with
/// `−(w1 − 1) ≤ e ≤ w2 − 1`, and `i1 − i2 ≡ d` (modulo 2^W), so `r1 − r2 = d + g · m`
/// (modulo 2^W) for `m` in its range; without an extension `d` is the whole difference.
pub(crate) fn abstraction<'ctx>(
    ctx: &'ctx Context,
    enc: &Encoding<'ctx>,
    query: &Query<'ctx>,
    shared: bool,
    name: &str,
) -> Option<Bool<'ctx>> {
    let mut logged: Vec<usize> = vec![];
    let mut seen: crate::cone::TermSet<BV<'ctx>> = Default::default();
    let mut checks: Vec<(&BV<'ctx>, u32)> = vec![];
    for &i in &query.props {
        let PropKind::Race { check, who, off2, .. } = &enc.props[i].kind else { return None };
        checks.push((off2, enc.accesses[*check].width));
        leaves(who, &mut seen, &mut logged)?;
    }
    logged.sort_unstable();
    logged.dedup();
    let ones: Vec<(&BV<'ctx>, u32)> = logged.iter().map(|&k| enc.accesses.get(k).map(|a| (&a.off1, a.width))).collect::<Option<_>>()?;
    let (w1, w2) = (ones.iter().map(|x| x.1).max()?, checks.iter().map(|x| x.1).max()?);
    let relation = [Peel::Second, Peel::First, Peel::Whole].into_iter().find_map(|peel| {
        let s1: Vec<Shape<'ctx>> = ones.iter().map(|(o, _)| Shape::of(o, peel)).collect();
        let s2: Vec<Shape<'ctx>> = checks.iter().map(|(o, _)| Shape::of(o, peel)).collect();
        relation(ctx, &s1, &s2, w1, w2, name)
    })?;
    let oks: Vec<&Bool<'ctx>> = query.props.iter().map(|&i| &enc.props[i].ok).collect();
    let mut parts = vec![crate::term::or(ctx, &oks), relation];
    if shared {
        parts.push(enc.same_group.clone());
    }
    Some(Bool::and(ctx, &parts.iter().collect::<Vec<_>>()))
}

/// Which part of an offset [`Shape::of`] takes for its index.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Peel {
    /// The offset itself.
    Whole,
    /// Of a sum of two terms, the first that is a scaled extension (the other the base).
    First,
    /// Of a sum of two terms, the second that is a scaled extension.
    Second,
}

/// How an index is extended to a 64-bit offset.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Ext {
    None,
    Zero,
    Sign,
}

/// A byte offset as `base + scale · ext(index)` (64 bits; `ext` from the index's width).
#[derive(Clone, Debug)]
struct Shape<'ctx> {
    base: Option<BV<'ctx>>,
    scale: u64,
    ext: Ext,
    index: BV<'ctx>,
}

impl<'ctx> Shape<'ctx> {
    /// `off`'s shape: unless `peel` is [`Peel::Whole`], an outer `base + scale · ext(index)`
    /// taken apart where `off` has one (a `base` of the sum's other term, a `scale` of a
    /// numeral factor or shift, `ext` a zero or sign extension, or the concatenation of zeros
    /// that Z3 makes of one; of two such terms, `peel` says which is the index's: CUDA's
    /// `tile[32 * q + lane]` with `tile = s + warp * 512` is `4 · zext(warp · 512) + 4 ·
    /// zext(32 · q + lane)`); else the offset itself as the index.
    fn of(off: &BV<'ctx>, peel: Peel) -> Shape<'ctx> {
        let whole = Shape { base: None, scale: 1, ext: Ext::None, index: off.clone() };
        if peel == Peel::Whole {
            return whole;
        }
        if let Some(s) = Self::scaled(off) {
            return s;
        }
        if off.is_app() && off.decl().kind() == DeclKind::BADD && off.num_children() == 2 {
            let (x, y) = (off.nth_child(0).and_then(|t| t.as_bv()), off.nth_child(1).and_then(|t| t.as_bv()));
            if let (Some(x), Some(y)) = (x, y) {
                match (Self::scaled(&x), Self::scaled(&y)) {
                    (Some(s), Some(_)) if peel == Peel::First => return Shape { base: Some(y), ..s },
                    (Some(_), Some(s)) => return Shape { base: Some(x), ..s },
                    (Some(s), None) => return Shape { base: Some(y), ..s },
                    (None, Some(s)) => return Shape { base: Some(x), ..s },
                    _ => {}
                }
            }
        }
        whole
    }

    /// `scale · ext(index)` or `ext(index)`, with an extension.
    fn scaled(t: &BV<'ctx>) -> Option<Shape<'ctx>> {
        let kind = |t: &BV<'ctx>| if t.is_app() { Some(t.decl().kind()) } else { None };
        let child = |t: &BV<'ctx>, i: usize| t.nth_child(i).and_then(|c| c.as_bv());
        let (scale, inner) = match kind(t)? {
            DeclKind::BMUL if t.num_children() == 2 => {
                let (x, y) = (child(t, 0)?, child(t, 1)?);
                match (x.as_u64(), y.as_u64()) {
                    (Some(s), None) => (s, y),
                    (None, Some(s)) => (s, x),
                    _ => return None,
                }
            }
            DeclKind::BSHL => {
                let k = child(t, 1)?.as_u64().filter(|&k| k < 63)?;
                (1u64 << k, child(t, 0)?)
            }
            _ => (1, t.clone()),
        };
        let (ext, index) = match kind(&inner)? {
            DeclKind::ZERO_EXT => (Ext::Zero, child(&inner, 0)?),
            DeclKind::SIGN_EXT => (Ext::Sign, child(&inner, 0)?),
            DeclKind::CONCAT if inner.num_children() == 2 && child(&inner, 0)?.as_u64() == Some(0) => (Ext::Zero, child(&inner, 1)?),
            _ => return None,
        };
        Some(Shape { base: None, scale, ext, index })
    }

    /// Whether `other` extends and scales an index of the same width the same way.
    fn same_outside(&self, other: &Shape<'ctx>) -> bool {
        self.scale == other.scale && self.ext == other.ext && self.index.get_size() == other.index.get_size()
    }
}

/// The relation that a race between a thread-1 offset of `ones` and a thread-2 offset of
/// `twos` implies (see [`abstraction`]); `None` when the shapes differ outside their indices,
/// the bases within one thread, or an index is not the first's plus a constant.
fn relation<'ctx>(ctx: &'ctx Context, ones: &[Shape<'ctx>], twos: &[Shape<'ctx>], w1: u32, w2: u32, name: &str) -> Option<Bool<'ctx>> {
    let (s1, s2) = (ones.first()?, twos.first()?);
    if !ones.iter().chain(twos).all(|s| s.same_outside(s1)) {
        return None;
    }
    if !ones.iter().all(|s| s.base == s1.base) || !twos.iter().all(|s| s.base == s2.base) || s1.base.is_some() != s2.base.is_some() {
        return None;
    }
    let width = s1.index.get_size();
    if width > 64 || (s1.ext == Ext::None && width != 64) {
        return None;
    }
    let a: Vec<i128> = ones.iter().map(|s| constant_difference(&s.index, &s1.index)).collect::<Option<_>>()?;
    let b: Vec<i128> = twos.iter().map(|s| constant_difference(&s.index, &s2.index)).collect::<Option<_>>()?;
    let num64 = |x: i128| BV::from_i64(ctx, x as i64, 64);
    // d = ext(i1) − ext(i2) (64 bits), e the bytes by which the accesses overlap.
    let d = BV::new_const(ctx, format!("{name}.d"), 64);
    let e = BV::new_const(ctx, format!("{name}.e"), 64);
    let bases = match (&s1.base, &s2.base) {
        (Some(x), Some(y)) => Some(x.bvsub(y)),
        _ => None,
    };
    let scaled = d.bvmul(&BV::from_u64(ctx, s1.scale, 64));
    let lhs = bases.map_or(scaled.clone(), |b| b.bvadd(&scaled));
    let mut parts = vec![lhs._eq(&e), e.bvsge(&num64(-(w1 as i128 - 1))), e.bvsle(&num64(w2 as i128 - 1))];
    if s1.ext != Ext::None {
        let bound = (1i128 << width) - 1;
        parts.extend([d.bvsge(&num64(-bound)), d.bvsle(&num64(bound))]);
    }
    let d_w = if width == 64 { d.clone() } else { d.extract(width - 1, 0) };
    let diff = s1.index.bvsub(&s2.index);
    let g = a.iter().chain(&b).fold(0i128, |g, &x| gcd(g, x));
    if g == 0 {
        parts.push(diff._eq(&d_w));
    } else {
        let (m_lo, m_hi) = ((b.iter().min()? - a.iter().max()?) / g, (b.iter().max()? - a.iter().min()?) / g);
        let half = 1i128 << (width - 1);
        if [m_lo, m_hi, g].iter().any(|&x| x < -half || x >= half) {
            return None;
        }
        let num = |x: i128| BV::from_i64(ctx, x as i64, width);
        let m = BV::new_const(ctx, format!("{name}.m"), width);
        parts.extend([diff._eq(&d_w.bvadd(&num(g).bvmul(&m))), m.bvsge(&num(m_lo)), m.bvsle(&num(m_hi))]);
    }
    Some(Bool::and(ctx, &parts.iter().collect::<Vec<_>>()))
}

/// The access instances at the leaves of a log's `who` (an if-then-else chain over access
/// indices, `memory::Log::log`) into `out`, each shared subterm walked once; `None` when a
/// leaf is not a numeral (a loop cut's havocked log).
fn leaves<'ctx>(who: &BV<'ctx>, seen: &mut crate::cone::TermSet<BV<'ctx>>, out: &mut Vec<usize>) -> Option<()> {
    let mut stack = vec![who.clone()];
    while let Some(t) = stack.pop() {
        if !seen.insert(t.clone()) {
            continue;
        }
        if let Some(k) = t.as_u64() {
            out.push(usize::try_from(k).ok()?);
            continue;
        }
        if !t.is_app() || t.decl().kind() != DeclKind::ITE {
            return None;
        }
        for i in [1, 2] {
            stack.push(t.nth_child(i)?.as_bv()?);
        }
    }
    Some(())
}

/// `x − reference` when Z3's simplifier makes it a numeral, as a signed integer of their
/// width (at most 64 bits).
fn constant_difference<'ctx>(x: &BV<'ctx>, reference: &BV<'ctx>) -> Option<i128> {
    let width = x.get_size();
    if width != reference.get_size() || width > 64 {
        return None;
    }
    if x == reference {
        return Some(0);
    }
    let d = match (split_constant(x), split_constant(reference)) {
        ((Some(rx), cx), (Some(rr), cr)) if rx == rr => (cx.wrapping_sub(cr)) as i128 & ((1i128 << width) - 1),
        _ => x.bvsub(reference).simplify().as_u64()? as i128,
    };
    Some(if d >= 1i128 << (width - 1) { d - (1i128 << width) } else { d })
}

/// `t` as a term plus a constant (modulo `2^width`): `c + x` for a numeral `c` and one
/// other term `x`, and `concat(c, x)` as `c · 2^|x| + zext(x)` (Z3's form of `32 · q +
/// (t & 31)`); else `t` plus 0. The term is `None` when `t` is a numeral.
fn split_constant<'ctx>(t: &BV<'ctx>) -> (Option<BV<'ctx>>, u64) {
    if let Some(c) = t.as_u64() {
        return (None, c);
    }
    if t.is_app() && t.num_children() == 2 {
        let (x, y) = (t.nth_child(0).and_then(|c| c.as_bv()), t.nth_child(1).and_then(|c| c.as_bv()));
        if let (Some(x), Some(y)) = (x, y) {
            match t.decl().kind() {
                DeclKind::BADD => match (x.as_u64(), y.as_u64()) {
                    (Some(c), None) => return (Some(y), c),
                    (None, Some(c)) => return (Some(x), c),
                    _ => {}
                },
                DeclKind::CONCAT if y.get_size() < 64 => {
                    if let (Some(c), None) = (x.as_u64(), y.as_u64()) {
                        let low = y.get_size();
                        return (Some(y.zero_ext(x.get_size())), c.checked_shl(low).unwrap_or(0));
                    }
                }
                _ => {}
            }
        }
    }
    (Some(t.clone()), 0)
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
