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
//! not per access; where it does not refute, the query is solved as before. Offsets of
//! several shapes (arrays of different elements in one buffer) fall into classes, one relation
//! per pair of classes; a loop cut's havocked log holds the entry's access or a ghost
//! iteration's ([`crate::encode::HavockedLog`]), whose offsets take part as the others.

use crate::encode::{Encoding, PropKind};
use crate::memory::AccessKind;
use crate::query::Query;
use z3::ast::{Ast, Bool, BV};
use z3::{Context, DeclKind};

/// The over-approximation of query `query`'s race properties described above, over fresh
/// constants named after `name`; every property's condition implies it. `None` when the
/// query is not only of race properties, its offsets fall into more than [`MAX_CLASSES`]
/// classes on one thread's side ([`Class`]), or a log's access is not known. `shared`: the
/// query's object is in shared memory, where only threads of one group race (the
/// properties' `same_group`, kept in the relation).
///
/// Offsets are byte offsets, `base + c + scale · ext(index)` where `c` is a numeral (a
/// field's or a sub-array's place), `ext` extends a narrower index (CUDA's `int` indices:
/// `4 · zext(32 · q + gid)`) or `index` is the whole offset; the indices' constants are
/// compared at the index's width `W`. A class of offsets of one thread shares `base`, `scale`,
/// `ext` and `W`, and its indices are one reference `r` plus constants `k` (the numerals `c`
/// and the accesses' widths may differ). For a pair of classes (thread 1's, thread 2's) a race
/// needs, with `x1`, `x2` the extended indices (exact: an index is the low `W` bits of its
/// extension, which is within the extension's range), `base1 + scale1 · x1 − (base2 +
/// scale2 · x2) = e` (modulo 2^64) where `e` is in the hull of `c2 − c1 − w1 < e < c2 + w2 −
/// c1` over the classes' accesses, and each index `r + g · u` with `g` the gcd of the class's
/// constants and `u` between their extremes over `g`. The relation is the disjunction over
/// the pairs of classes.
pub(crate) fn abstraction<'ctx>(
    ctx: &'ctx Context,
    enc: &Encoding<'ctx>,
    query: &Query<'ctx>,
    shared: bool,
    name: &str,
) -> Option<Bool<'ctx>> {
    // Per kind of logged access (a read check meets only the write and atomic logs), thread
    // 1's offsets and thread 2's.
    type Offsets<'ctx> = Vec<(BV<'ctx>, u32)>;
    let mut groups: Vec<(AccessKind, Offsets<'ctx>, Offsets<'ctx>, crate::cone::TermSet<BV<'ctx>>)> = vec![];
    for &i in &query.props {
        let PropKind::Race { check, logged, who, off2 } = &enc.props[i].kind else { return None };
        let g = match groups.iter().position(|g| g.0 == *logged) {
            Some(g) => g,
            None => {
                groups.push((*logged, vec![], vec![], Default::default()));
                groups.len() - 1
            }
        };
        let (_, ones, twos, seen) = &mut groups[g];
        twos.push((off2.clone(), enc.accesses[*check].width));
        logged_offsets(enc, who, seen, ones)?;
    }
    let mut relations = vec![];
    for (kind, mut ones, mut twos, _) in groups {
        for offsets in [&mut ones, &mut twos] {
            let mut unique: crate::cone::TermSet<(BV<'ctx>, u32)> = Default::default();
            offsets.retain(|x| unique.insert(x.clone()));
        }
        let name = format!("{name}.{}", kind.name());
        relations.push([Peel::Second, Peel::First, Peel::Whole].into_iter().find_map(|peel| {
            let (c1, c2) = (Class::partition(&ones, peel)?, Class::partition(&twos, peel)?);
            let mut pairs = vec![];
            for (i, a) in c1.iter().enumerate() {
                for (j, b) in c2.iter().enumerate() {
                    pairs.push(pair_relation(ctx, a, b, &format!("{name}.{i}.{j}"))?);
                }
            }
            Some(crate::term::or(ctx, &pairs.iter().collect::<Vec<_>>()))
        })?);
    }
    let relation = crate::term::or(ctx, &relations.iter().collect::<Vec<_>>());
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

/// A byte offset as `base + konst + scale · ext(index)` (64 bits; `ext` from the index's
/// width; `konst` a numeral, as a signed integer).
#[derive(Clone, Debug)]
struct Shape<'ctx> {
    base: Option<BV<'ctx>>,
    konst: i128,
    scale: u64,
    ext: Ext,
    index: BV<'ctx>,
}

impl<'ctx> Shape<'ctx> {
    /// `off`'s shape: unless `peel` is [`Peel::Whole`], an outer `base + konst + scale ·
    /// ext(index)` taken apart where `off` has one (the numerals of a sum its `konst`, a
    /// `base` of the sum's other term, a `scale` of a numeral factor or shift, `ext` a zero or
    /// sign extension, or the concatenation of zeros that Z3 makes of one; of two such terms,
    /// `peel` says which is the index's: CUDA's `tile[32 * q + lane]` with `tile = s + warp *
    /// 512` is `4 · zext(warp · 512) + 4 · zext(32 · q + lane)`); else the offset itself as
    /// the index.
    fn of(off: &BV<'ctx>, peel: Peel) -> Shape<'ctx> {
        let whole = Shape { base: None, konst: 0, scale: 1, ext: Ext::None, index: off.clone() };
        if peel == Peel::Whole {
            return whole;
        }
        let mut konst: u64 = 0;
        let mut terms: Vec<BV<'ctx>> = vec![];
        if off.is_app() && off.decl().kind() == DeclKind::BADD {
            for i in 0..off.num_children() {
                let Some(t) = off.nth_child(i).and_then(|t| t.as_bv()) else { return whole };
                match t.as_u64() {
                    Some(c) => konst = konst.wrapping_add(c),
                    None => terms.push(t),
                }
            }
        } else {
            terms.push(off.clone());
        }
        let shape = match terms.as_slice() {
            [t] => Self::scaled(t),
            [x, y] => match (Self::scaled(x), Self::scaled(y)) {
                (Some(s), Some(_)) if peel == Peel::First => Some(Shape { base: Some(y.clone()), ..s }),
                (Some(_), Some(s)) => Some(Shape { base: Some(x.clone()), ..s }),
                (Some(s), None) => Some(Shape { base: Some(y.clone()), ..s }),
                (None, Some(s)) => Some(Shape { base: Some(x.clone()), ..s }),
                _ => None,
            },
            _ => None,
        };
        shape.map_or(whole, |s| Shape { konst: konst as i64 as i128, ..s })
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
        Some(Shape { base: None, konst: 0, scale, ext, index })
    }

    /// Whether `other` extends and scales an index of the same width the same way.
    fn same_outside(&self, other: &Shape<'ctx>) -> bool {
        self.scale == other.scale && self.ext == other.ext && self.index.get_size() == other.index.get_size()
    }
}

/// The most classes of one thread's offsets ([`Class::partition`]): a query's relation is a
/// disjunction over the pairs of classes.
const MAX_CLASSES: usize = 8;

/// Offsets of one thread with the same `base`, `scale`, extension and index width, whose
/// indices are one reference plus constants (signed, at the index's width): the reference's
/// shape, the constants, and the hull of the accesses' bytes around `base + scale ·
/// ext(index)` (`lo` the least `konst`, `hi` the greatest `konst + width`).
struct Class<'ctx> {
    shape: Shape<'ctx>,
    constants: Vec<i128>,
    lo: i128,
    hi: i128,
}

impl<'ctx> Class<'ctx> {
    /// `offsets` (with their accesses' widths in bytes) taken apart by `peel` and grouped;
    /// `None` past [`MAX_CLASSES`] classes or when an index is wider than 64 bits (or, not
    /// extended, narrower).
    fn partition(offsets: &[(BV<'ctx>, u32)], peel: Peel) -> Option<Vec<Class<'ctx>>> {
        let mut classes: Vec<Class<'ctx>> = vec![];
        for (off, width) in offsets {
            let s = Shape::of(off, peel);
            let bits = s.index.get_size();
            if bits > 64 || (s.ext == Ext::None && bits != 64) {
                return None;
            }
            let (lo, hi) = (s.konst, s.konst + *width as i128);
            let found = classes.iter_mut().find_map(|c| {
                if !c.shape.same_outside(&s) || c.shape.base != s.base {
                    return None;
                }
                constant_difference(&s.index, &c.shape.index).map(|d| (c, d))
            });
            match found {
                Some((c, d)) => {
                    c.constants.push(d);
                    (c.lo, c.hi) = (c.lo.min(lo), c.hi.max(hi));
                }
                None => classes.push(Class { shape: s, constants: vec![0], lo, hi }),
            }
            if classes.len() > MAX_CLASSES {
                return None;
            }
        }
        Some(classes)
    }
}

/// What a race between an offset of class `one` (thread 1) and one of class `two` (thread 2)
/// implies (see [`abstraction`]), over fresh constants named after `name`; `None` when a
/// number does not fit its width.
fn pair_relation<'ctx>(ctx: &'ctx Context, one: &Class<'ctx>, two: &Class<'ctx>, name: &str) -> Option<Bool<'ctx>> {
    let (e_lo, e_hi) = (two.lo - one.hi + 1, two.hi - one.lo - 1);
    if [e_lo, e_hi].iter().any(|&v| v < i64::MIN as i128 || v > i64::MAX as i128) {
        return None;
    }
    let num64 = |x: i128| BV::from_i64(ctx, x as i64, 64);
    let e = BV::new_const(ctx, format!("{name}.e"), 64);
    let mut parts = vec![e.bvsge(&num64(e_lo)), e.bvsle(&num64(e_hi))];
    if one.shape.same_outside(&two.shape) {
        // One difference of the extended indices, `d`, and one multiple of the gcd of both
        // sides' constants: two distinct threads' references are then compared directly
        // (Z3 refutes `r1 − r2 = d + g · m` far sooner than two products of its own).
        let bits = one.shape.index.get_size();
        let d = BV::new_const(ctx, format!("{name}.d"), 64);
        let scaled = d.bvmul(&BV::from_u64(ctx, one.shape.scale, 64));
        let lhs = match (&one.shape.base, &two.shape.base) {
            (Some(x), Some(y)) => x.bvsub(y).bvadd(&scaled),
            (Some(x), None) => x.bvadd(&scaled),
            (None, Some(y)) => scaled.bvsub(y),
            (None, None) => scaled,
        };
        parts.push(lhs._eq(&e));
        if one.shape.ext != Ext::None {
            let bound = (1i128 << bits) - 1;
            parts.extend([d.bvsge(&num64(-bound)), d.bvsle(&num64(bound))]);
        }
        let d_w = if bits == 64 { d.clone() } else { d.extract(bits - 1, 0) };
        let diff = one.shape.index.bvsub(&two.shape.index);
        let (a, b) = (&one.constants, &two.constants);
        let g = a.iter().chain(b).fold(0i128, |g, &k| gcd(g, k));
        if g == 0 {
            parts.push(diff._eq(&d_w));
        } else {
            let (m_lo, m_hi) = ((b.iter().min()? - a.iter().max()?) / g, (b.iter().max()? - a.iter().min()?) / g);
            let half = 1i128 << (bits - 1);
            if [m_lo, m_hi, g].iter().any(|&x| x < -half || x >= half) {
                return None;
            }
            let num = |x: i128| BV::from_i64(ctx, x as i64, bits);
            let m = BV::new_const(ctx, format!("{name}.m"), bits);
            parts.extend([diff._eq(&d_w.bvadd(&num(g).bvmul(&m))), m.bvsge(&num(m_lo)), m.bvsle(&num(m_hi))]);
        }
        return Some(Bool::and(ctx, &parts.iter().collect::<Vec<_>>()));
    }
    let mut sides = vec![];
    for (t, c) in [one, two].into_iter().enumerate() {
        let bits = c.shape.index.get_size();
        let x = BV::new_const(ctx, format!("{name}.x{}", t + 1), 64);
        match c.shape.ext {
            Ext::None => {}
            Ext::Zero => parts.push(x.bvule(&num64((1i128 << bits) - 1))),
            Ext::Sign => parts.extend([x.bvsge(&num64(-(1i128 << (bits - 1)))), x.bvsle(&num64((1i128 << (bits - 1)) - 1))]),
        }
        let low = if bits == 64 { x.clone() } else { x.extract(bits - 1, 0) };
        let g = c.constants.iter().fold(0i128, |g, &k| gcd(g, k));
        if g == 0 {
            parts.push(low._eq(&c.shape.index));
        } else {
            let (lo, hi) = (c.constants.iter().min()? / g, c.constants.iter().max()? / g);
            let half = 1i128 << (bits - 1);
            if [lo, hi, g].iter().any(|&v| v < -half || v >= half) {
                return None;
            }
            let num = |v: i128| BV::from_i64(ctx, v as i64, bits);
            let u = BV::new_const(ctx, format!("{name}.u{}", t + 1), bits);
            parts.extend([low._eq(&c.shape.index.bvadd(&num(g).bvmul(&u))), u.bvsge(&num(lo)), u.bvsle(&num(hi))]);
        }
        let scaled = x.bvmul(&BV::from_u64(ctx, c.shape.scale, 64));
        sides.push(c.shape.base.as_ref().map_or(scaled.clone(), |b| b.bvadd(&scaled)));
    }
    parts.push(sides[0].bvsub(&sides[1])._eq(&e));
    Some(Bool::and(ctx, &parts.iter().collect::<Vec<_>>()))
}

/// The byte offsets and widths (bytes) of the accesses a log's `who` may name, into `out`:
/// at a numeral leaf of its if-then-else chain (`memory::Log::log`) the access instance's
/// thread-1 offset; at a loop cut's havocked log ([`crate::encode::HavockedLog`]) the entry
/// log's, walked in turn, and the body's offsets in the ghost iteration. Each shared subterm
/// is walked once; `None` when a leaf is neither (or names no access instance).
fn logged_offsets<'ctx>(
    enc: &Encoding<'ctx>,
    who: &BV<'ctx>,
    seen: &mut crate::cone::TermSet<BV<'ctx>>,
    out: &mut Vec<(BV<'ctx>, u32)>,
) -> Option<()> {
    let mut stack = vec![who.clone()];
    while let Some(t) = stack.pop() {
        if !seen.insert(t.clone()) {
            continue;
        }
        if let Some(k) = t.as_u64() {
            let a = enc.accesses.get(usize::try_from(k).ok()?)?;
            out.push((a.off1.clone(), a.width));
            continue;
        }
        if let Some(h) = enc.havocked_logs.get(&t) {
            out.extend(h.earlier.iter().cloned());
            stack.extend(h.entry.clone());
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
