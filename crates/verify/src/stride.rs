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
//! Where the constants' gcd is 1 but they cluster (words read byte by byte in rows of 128
//! bytes: `128 · q + k`, `k` in 0..3), they are taken as `g · u + r` with `g` a power of two
//! and `r` in a small range ([`Lattice`]), which keeps the lanes apart as the gcd cannot.

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
/// c1` over the classes' accesses, and each index `r + g · u + s` with `g`, `u`'s and `s`'s
/// ranges the [`Lattice`] of the class's constants (`s = 0` for their gcd). The relation is
/// the disjunction over the pairs of classes.
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
        let PropKind::Race { check, logged, who, off2 } = &enc.obligations.props()[i].kind else { return None };
        let g = match groups.iter().position(|g| g.0 == *logged) {
            Some(g) => g,
            None => {
                groups.push((*logged, vec![], vec![], Default::default()));
                groups.len() - 1
            }
        };
        let (_, ones, twos, seen) = &mut groups[g];
        twos.push((off2.clone(), enc.obligations.accesses()[*check].width));
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
    let oks: Vec<&Bool<'ctx>> = query.props.iter().map(|&i| &enc.obligations.props()[i].ok).collect();
    let mut parts = vec![crate::term::or(ctx, &oks), relation];
    if shared {
        parts.push(enc.symbols.same_group().clone());
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
        let scaled = crate::term::mul(&d, &BV::from_u64(ctx, one.shape.scale, 64));
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
        let all: Vec<i128> = a.iter().chain(b).copied().collect();
        let l = Lattice::of(&all);
        if l.g == 0 {
            parts.push(diff._eq(&d_w));
        } else {
            // `b_j − a_k = g · (u_b − u_a) + (r_b − r_a)`.
            let (sa, sb) = (l.side(a), l.side(b));
            let (m_lo, m_hi) = (sb.u.0 - sa.u.1, sb.u.1 - sa.u.0);
            let (s_lo, s_hi) = (sb.r.0 - sa.r.1, sb.r.1 - sa.r.0);
            let half = 1i128 << (bits - 1);
            if [m_lo, m_hi, s_lo, s_hi, l.g].iter().any(|&x| x < -half || x >= half) {
                return None;
            }
            let num = |x: i128| BV::from_i64(ctx, x as i64, bits);
            let m = BV::new_const(ctx, format!("{name}.m"), bits);
            let mut rhs = d_w.bvadd(&crate::term::mul(&num(l.g), &m));
            parts.extend([m.bvsge(&num(m_lo)), m.bvsle(&num(m_hi))]);
            if (s_lo, s_hi) != (0, 0) {
                let r = BV::new_const(ctx, format!("{name}.s"), bits);
                rhs = rhs.bvadd(&r);
                parts.extend([r.bvsge(&num(s_lo)), r.bvsle(&num(s_hi))]);
            }
            parts.push(diff._eq(&rhs));
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
        let l = Lattice::of(&c.constants);
        if l.g == 0 {
            parts.push(low._eq(&c.shape.index));
        } else {
            let (u, r) = (l.u, l.r);
            let half = 1i128 << (bits - 1);
            if [u.0, u.1, r.0, r.1, l.g].iter().any(|&v| v < -half || v >= half) {
                return None;
            }
            let num = |v: i128| BV::from_i64(ctx, v as i64, bits);
            let uc = BV::new_const(ctx, format!("{name}.u{}", t + 1), bits);
            let mut rhs = c.shape.index.bvadd(&crate::term::mul(&num(l.g), &uc));
            parts.extend([uc.bvsge(&num(u.0)), uc.bvsle(&num(u.1))]);
            if r != (0, 0) {
                let rc = BV::new_const(ctx, format!("{name}.r{}", t + 1), bits);
                rhs = rhs.bvadd(&rc);
                parts.extend([rc.bvsge(&num(r.0)), rc.bvsle(&num(r.1))]);
            }
            parts.push(low._eq(&rhs));
        }
        let scaled = crate::term::mul(&x, &BV::from_u64(ctx, c.shape.scale, 64));
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
            let a = enc.obligations.accesses().get(usize::try_from(k).ok()?)?;
            out.push((a.off1.clone(), a.width));
            continue;
        }
        if let Some(h) = enc.obligations.havocked_logs().get(&t) {
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
        _ => match x.bvsub(reference).simplify().as_u64() {
            Some(d) => d as i128,
            None => linear_difference(x, reference)?,
        },
    };
    Some(if d >= 1i128 << (width - 1) { d - (1i128 << width) } else { d })
}

/// `x − reference` as their linear forms' difference (modulo `2^width`, unsigned) when it is
/// a constant: each a sum of numeral multiples of other terms plus a numeral.
fn linear_difference<'ctx>(x: &BV<'ctx>, reference: &BV<'ctx>) -> Option<i128> {
    let width = x.get_size();
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let mut atoms: crate::cone::TermMap<BV<'ctx>, u64> = Default::default();
    let mut konst: u64 = 0;
    let mut stack: Vec<(BV<'ctx>, u64)> = vec![(x.clone(), 1), (reference.clone(), mask)];
    let mut steps = 0;
    while let Some((t, k)) = stack.pop() {
        steps += 1;
        if steps > 256 {
            return None;
        }
        if let Some(c) = t.as_u64() {
            konst = konst.wrapping_add(c.wrapping_mul(k)) & mask;
            continue;
        }
        let kind = if t.is_app() { Some(t.decl().kind()) } else { None };
        let child = |i: usize| t.nth_child(i).and_then(|c| c.as_bv());
        match kind {
            Some(DeclKind::BADD) => {
                for i in 0..t.num_children() {
                    stack.push((child(i)?, k));
                }
            }
            Some(DeclKind::BSUB) if t.num_children() == 2 => {
                stack.push((child(0)?, k));
                stack.push((child(1)?, k.wrapping_neg() & mask));
            }
            Some(DeclKind::BNEG) => stack.push((child(0)?, k.wrapping_neg() & mask)),
            // `x << s` for a numeral `s` (`term::mul`'s product by `2^s`).
            Some(DeclKind::BSHL) if child(1)?.as_u64().is_some_and(|s| s < u64::from(width)) => {
                let s = child(1)?.as_u64()?;
                stack.push((child(0)?, k.wrapping_shl(s as u32) & mask));
            }
            Some(DeclKind::BMUL) if t.num_children() == 2 => match (child(0)?.as_u64(), child(1)?.as_u64()) {
                (Some(c), None) => stack.push((child(1)?, k.wrapping_mul(c) & mask)),
                (None, Some(c)) => stack.push((child(0)?, k.wrapping_mul(c) & mask)),
                _ => {
                    let e = atoms.entry(t.clone()).or_insert(0);
                    *e = e.wrapping_add(k) & mask;
                }
            },
            _ => {
                let e = atoms.entry(t.clone()).or_insert(0);
                *e = e.wrapping_add(k) & mask;
            }
        }
    }
    atoms.values().all(|&c| c == 0).then_some(konst as i128)
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

/// Integer constants as `g · u + r` with `u` in `u.0..=u.1` and `r` in `r.0..=r.1`
/// ([`Lattice::of`]); `g == 0` when every constant is 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Lattice {
    g: i128,
    u: (i128, i128),
    r: (i128, i128),
}

impl Lattice {
    /// The lattice that covers `ks` (not empty) most tightly: their gcd `g` with `r = 0`, or a
    /// power of two `g` whose residues span a small range (bytewise reads of words in rows
    /// of 128 bytes: `128 · c + k` for `k` in 0..3, where the gcd is 1 and would cover every
    /// byte), taken when it covers at most half the fraction of the integers the gcd's does.
    fn of(ks: &[i128]) -> Lattice {
        let g0 = ks.iter().fold(0i128, |g, &k| gcd(g, k));
        if g0 == 0 {
            return Lattice { g: 0, u: (0, 0), r: (0, 0) };
        }
        let mut best = Lattice { g: g0, u: (0, 0), r: (0, 0) }.side(ks);
        let span = ks.iter().map(|k| k.abs()).max().unwrap_or(0);
        let mut g = 2i128;
        while g <= 2 * span && g < 1 << 62 {
            if g0 % g != 0 {
                // Residues in 0..g or, where that spans less, in −g/2..g/2.
                let range = |centered: bool| {
                    let rs = ks.iter().map(|k| {
                        let r = k.rem_euclid(g);
                        if centered && 2 * r >= g {
                            r - g
                        } else {
                            r
                        }
                    });
                    let (lo, hi) = rs.fold((i128::MAX, i128::MIN), |(lo, hi), r| (lo.min(r), hi.max(r)));
                    (lo, hi)
                };
                let (a, b) = (range(false), range(true));
                let r = if a.1 - a.0 <= b.1 - b.0 { a } else { b };
                let width = r.1 - r.0 + 1;
                // Covered fraction `width / g` at most half of `1 / g0`, and less than the best's.
                let best_width = best.r.1 - best.r.0 + 1;
                if 2 * width * g0 <= g && width * best.g < best_width * g {
                    best = Lattice { g, u: (0, 0), r }.side(ks);
                }
            }
            g *= 2;
        }
        best
    }

    /// This lattice's `g` with the ranges of `u` and `r` that cover `ks` (not empty), the
    /// residues taken in this lattice's range of `r` (`r = 0` for a gcd).
    fn side(&self, ks: &[i128]) -> Lattice {
        let (mut u, mut r) = ((i128::MAX, i128::MIN), (i128::MAX, i128::MIN));
        for &k in ks {
            let mut rk = k.rem_euclid(self.g);
            if rk > self.r.1 {
                rk -= self.g;
            }
            let uk = (k - rk) / self.g;
            (u, r) = ((u.0.min(uk), u.1.max(uk)), (r.0.min(rk), r.1.max(rk)));
        }
        Lattice { g: self.g, u, r }
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::{linear_difference, Lattice};
    use z3::ast::{Ast, BV};
    use z3::{Config, Context};

    /// Offsets built with `term::mul`'s shifts are read as multiples: `4·i + 8` against
    /// `4·i` differ by 8, `8·i` against `4·i + 4·i` by 0, and `4·i` against `4·j` by no
    /// constant.
    #[test]
    fn linear_forms_read_shifts_by_numerals_as_multiples() {
        let ctx = Context::new(&Config::new());
        let (i, j) = (BV::new_const(&ctx, "i", 64), BV::new_const(&ctx, "j", 64));
        let n = |c: u64| BV::from_u64(&ctx, c, 64);
        fn four<'c>(v: &BV<'c>) -> BV<'c> {
            crate::term::mul(v, &BV::from_u64(v.get_ctx(), 4, 64))
        }
        assert_eq!(linear_difference(&four(&i).bvadd(&n(8)), &four(&i)), Some(8));
        assert_eq!(linear_difference(&crate::term::mul(&i, &n(8)), &four(&i).bvadd(&four(&i))), Some(0));
        assert_eq!(linear_difference(&crate::term::mul(&i, &n(8)), &i.bvmul(&n(8))), Some(0));
        assert_eq!(linear_difference(&four(&i), &four(&j)), None);
    }

    #[test]
    fn a_lattice_is_the_gcd_unless_a_power_of_two_covers_far_less() {
        // Multiples of 32: the gcd, residue 0.
        let ks: Vec<i128> = (0..16).map(|q| 32 * q).collect();
        assert_eq!(Lattice::of(&ks), Lattice { g: 32, u: (0, 15), r: (0, 0) });
        // Bytes of words in rows of 128 bytes: gcd 1, but `128 · u + r` with `r` in 0..3.
        let ks: Vec<i128> = (0..16).flat_map(|q| (0..4).map(move |k| 128 * q + k)).collect();
        assert_eq!(Lattice::of(&ks), Lattice { g: 128, u: (0, 15), r: (0, 3) });
        // Residues around 0 (`k` in −1..2): taken in −g/2..g/2.
        let ks: Vec<i128> = (0..4).flat_map(|q| (-1..=2).map(move |k| 64 * q + k)).collect();
        assert_eq!(Lattice::of(&ks), Lattice { g: 64, u: (0, 3), r: (-1, 2) });
        // Consecutive constants: no power of two covers half as little as the gcd does.
        let ks: Vec<i128> = (0..=100).collect();
        assert_eq!(Lattice::of(&ks), Lattice { g: 1, u: (0, 100), r: (0, 0) });
        // Every constant 0: no lattice.
        assert_eq!(Lattice::of(&[0, 0]).g, 0);
    }
}
