//! Arrays of the encoding and GPUVerify's race logs.
//!
//! An array maps a 64-bit index to an element of `granule` bytes (element-level, index =
//! byte offset / granule; an access of a multiple of the granule spans that many elements,
//! little-endian) or to single bytes (byte-level, little-endian for wider accesses).
//!
//! Race logs follow GPUVerify's scheme (Betts et al. OOPSLA 2012; tutorial §4): thread 1 may
//! *log* one of its accesses per object and kind (read, write, atomic) — a nondeterministic
//! choice — and every access of thread 2 is *checked* against the logs. The log keeps the
//! value read or written (and, for writes, whether the write changed memory) for GPUVerify's
//! benign-race tolerance.

use crate::term::{bv_const, resize};
use std::rc::Rc;
use z3::ast::{Array, Ast, Bool, Dynamic, BV};
use z3::{Context, Sort};

/// An array term and its granularity in bytes.
#[derive(Clone, Debug)]
pub struct Mem<'ctx> {
    pub arr: Array<'ctx>,
    pub granule: u32,
    /// For a read-only object with a known initializer: its cells (index = byte offset /
    /// granule, `granule * 8` bits each; zero beyond). A read is then a balanced `ite` tree
    /// on the index bits instead of a select over a chain of stores, which Z3 solves far
    /// faster for a symbolic index (a 512-entry table: seconds instead of minutes).
    pub table: Option<Rc<Vec<BV<'ctx>>>>,
}

/// The largest read-only table read through an `ite` tree (cells).
const MAX_TABLE: usize = 4096;

impl<'ctx> Mem<'ctx> {
    fn index(&self, ctx: &'ctx Context, off: &BV<'ctx>) -> BV<'ctx> {
        match self.granule {
            1 => off.clone(),
            g => off.bvlshr(&BV::from_u64(ctx, g.trailing_zeros() as u64, 64)),
        }
    }

    /// An array holding zero everywhere except the given cells (byte offset, width in bytes,
    /// value): a constant object's initializer. `read_only`: the object is never written, so
    /// reads may go through a table (see [`Mem::table`]).
    pub fn initialised(ctx: &'ctx Context, granule: u32, cells: &[(u64, u32, u128)], read_only: bool) -> Mem<'ctx> {
        let dom = Sort::bitvector(ctx, 64);
        let zero = BV::from_u64(ctx, 0, granule * 8);
        let mut m = Mem { arr: Array::const_array(ctx, &dom, &zero), granule, table: None };
        for (off, width, bits) in cells {
            let v = bv_const(ctx, *bits, width * 8);
            m.arr = m.write(ctx, &BV::from_u64(ctx, *off, 64), &v, *width);
        }
        let end = cells.iter().map(|(off, width, _)| off + *width as u64).max().unwrap_or(0);
        let n = end.div_ceil(granule as u64) as usize;
        if read_only && n <= MAX_TABLE {
            let index = |off: u64| -> BV<'ctx> { BV::from_u64(ctx, off / granule as u64, 64) };
            let table =
                (0..n as u64).map(|i| m.arr.select(&index(i * granule as u64)).as_bv().expect("bit-vector array").simplify()).collect();
            m.table = Some(Rc::new(table));
        }
        m
    }

    /// Cell `idx` of the table: an `ite` tree over the low index bits, zero out of range.
    fn table_read(&self, ctx: &'ctx Context, table: &[BV<'ctx>], idx: &BV<'ctx>) -> BV<'ctx> {
        let zero = BV::from_u64(ctx, 0, self.granule * 8);
        if table.is_empty() {
            return zero;
        }
        let bits = (usize::BITS - (table.len() - 1).leading_zeros()).max(1);
        fn tree<'ctx>(table: &[BV<'ctx>], zero: &BV<'ctx>, idx: &BV<'ctx>, k: u32, base: usize) -> BV<'ctx> {
            if base >= table.len() {
                return zero.clone();
            }
            if k == 0 {
                return table[base].clone();
            }
            let half = 1usize << (k - 1);
            let hi = tree(table, zero, idx, k - 1, base + half);
            let lo = tree(table, zero, idx, k - 1, base);
            let bit = idx.extract(k - 1, k - 1)._eq(&BV::from_u64(idx.get_ctx(), 1, 1));
            bit.ite(&hi, &lo)
        }
        let in_range = idx.bvult(&BV::from_u64(ctx, table.len() as u64, 64));
        in_range.ite(&tree(table, &zero, idx, bits, 0), &zero)
    }

    /// Cell `idx` (an index, not a byte offset).
    fn cell(&self, ctx: &'ctx Context, idx: &BV<'ctx>) -> BV<'ctx> {
        match &self.table {
            Some(table) => self.table_read(ctx, table, idx),
            None => self.arr.select(idx).as_bv().expect("bit-vector array"),
        }
    }

    /// Reads `width` bytes at byte offset `off` (little-endian). Accesses of the array's own
    /// width are aligned (the granule is chosen so); a read of another width (a
    /// specification's) gathers the cells it spans.
    pub fn read(&self, ctx: &'ctx Context, off: &BV<'ctx>, width: u32) -> BV<'ctx> {
        let g = self.granule;
        if g > 1 && width == g {
            return self.cell(ctx, &self.index(ctx, off));
        }
        if g > 1 && width.is_multiple_of(g) && self.table.is_none() {
            // A wider access of an element-level array (aligned to the granule, which is
            // chosen so): the elements it spans, the first lowest.
            return Self::gather(self.spanned(ctx, off, width).iter().map(|i| self.cell(ctx, i)));
        }
        if g == 1 {
            let mut acc: Option<BV<'ctx>> = None;
            for i in 0..width {
                let byte = self.cell(ctx, &off.bvadd(&BV::from_u64(ctx, i as u64, 64)));
                acc = Some(match acc {
                    None => byte,
                    Some(lo) => byte.concat(&lo),
                });
            }
            return acc.unwrap_or_else(|| BV::from_u64(ctx, 0, 8));
        }
        // The cells from the first byte's on, enough to cover `width` bytes at any position
        // in the first cell; shifted down by the position.
        let first = self.index(ctx, off);
        let n = width.div_ceil(g) + 1;
        let mut acc: Option<BV<'ctx>> = None;
        for i in 0..n {
            let c = self.cell(ctx, &first.bvadd(&BV::from_u64(ctx, i as u64, 64)));
            acc = Some(match acc {
                None => c,
                Some(lo) => c.concat(&lo),
            });
        }
        let all = acc.expect("at least one cell");
        let bits = all.get_size();
        let within = crate::term::mul(&off.bvurem(&BV::from_u64(ctx, g as u64, 64)), &BV::from_u64(ctx, 8, 64));
        let shift = resize(&within, bits);
        all.bvlshr(&shift).extract(width * 8 - 1, 0)
    }

    /// The indices of the `width / granule` elements an aligned access of `width` bytes at
    /// byte offset `off` spans, the first lowest.
    fn spanned(&self, ctx: &'ctx Context, off: &BV<'ctx>, width: u32) -> Vec<BV<'ctx>> {
        let first = self.index(ctx, off);
        (0..width / self.granule).map(|i| if i == 0 { first.clone() } else { first.bvadd(&BV::from_u64(ctx, i as u64, 64)) }).collect()
    }

    /// The little-endian concatenation of `cells`, the first lowest.
    fn gather(cells: impl Iterator<Item = BV<'ctx>>) -> BV<'ctx> {
        cells.reduce(|lo, c| c.concat(&lo)).expect("at least one cell")
    }

    /// The array after writing `value` (`width` bytes) at byte offset `off`.
    pub fn write(&self, ctx: &'ctx Context, off: &BV<'ctx>, value: &BV<'ctx>, width: u32) -> Array<'ctx> {
        debug_assert!(self.table.is_none(), "a write to a read-only table");
        let g = self.granule;
        if g > 1 && width > g && width.is_multiple_of(g) {
            // A wider access of an element-level array: one element at a time.
            let value = resize(value, width * 8);
            let mut arr = self.arr.clone();
            for (k, i) in self.spanned(ctx, off, width).iter().enumerate() {
                let k = k as u32;
                arr = arr.store(i, &value.extract((k + 1) * g * 8 - 1, k * g * 8));
            }
            return arr;
        }
        if g > 1 {
            return self.arr.store(&self.index(ctx, off), &resize(value, g * 8));
        }
        let value = resize(value, width * 8);
        let mut arr = self.arr.clone();
        for i in 0..width {
            let a = off.bvadd(&BV::from_u64(ctx, i as u64, 64));
            arr = arr.store(&a, &value.extract(i * 8 + 7, i * 8));
        }
        arr
    }
}

/// The kind of a logged or checked access.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum AccessKind {
    Read,
    Write,
    Atomic,
}

impl AccessKind {
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
        }
    }
}

/// Thread 1's log of one kind of access to one object.
#[derive(Clone, Debug)]
pub struct Log<'ctx> {
    /// An access has been logged since the last barrier that ordered this memory.
    pub has: Bool<'ctx>,
    /// Its byte offset and width in bytes.
    pub off: BV<'ctx>,
    pub width: BV<'ctx>,
    /// The value read or written (zero-extended to `value_bits`).
    pub value: BV<'ctx>,
    /// Writes only: the logged write changed memory (GPUVerify's `_WRITE_READ_BENIGN_FLAG_`).
    pub changed: Bool<'ctx>,
    /// Which access instance was logged (an index into the encoder's access instances).
    pub who: BV<'ctx>,
    /// It is an asynchronous copy's access not yet waited for: barriers do not clear it.
    pub pending: Bool<'ctx>,
}

impl<'ctx> Log<'ctx> {
    /// Its fields as terms: `has`, `who`, `off`, `width`, `value`, `changed`, then `pending`.
    pub fn fields(&self) -> [Dynamic<'ctx>; 7] {
        [
            Dynamic::from_ast(&self.has),
            Dynamic::from_ast(&self.who),
            Dynamic::from_ast(&self.off),
            Dynamic::from_ast(&self.width),
            Dynamic::from_ast(&self.value),
            Dynamic::from_ast(&self.changed),
            Dynamic::from_ast(&self.pending),
        ]
    }

    pub fn empty(ctx: &'ctx Context, value_bits: u32) -> Log<'ctx> {
        Log {
            has: Bool::from_bool(ctx, false),
            off: BV::from_u64(ctx, 0, 64),
            width: BV::from_u64(ctx, 0, 32),
            value: BV::from_u64(ctx, 0, value_bits),
            changed: Bool::from_bool(ctx, false),
            who: BV::from_u64(ctx, 0, 32),
            pending: Bool::from_bool(ctx, false),
        }
    }

    /// Logs an access when `cond` holds: `width` bytes at byte offset `off`, `value`, whether
    /// it `changed` the cell, and the access instance `who`.
    ///
    /// The fields other than `has` matter only where `has` holds, so they stay linear in the
    /// accesses (DESIGN.md §6): while nothing can be logged (`has` is the constant false, as
    /// at the start and after a barrier that certainly clears), the access's fields replace
    /// them without an `ite`; and a field that already holds the same term (the same offset
    /// for every access of a straight-line run, the same width) keeps it. Before, every access
    /// added an `ite` level to every field, and the solver's work on the offsets grew
    /// quadratically (the scaling benchmark's `straight` family at n = 320, 640 accesses to
    /// each array, 959 properties per query: 2.3 s per query before, 0.9 s after).
    pub fn log(&mut self, cond: &Bool<'ctx>, off: &BV<'ctx>, width: u32, value: &BV<'ctx>, changed: &Bool<'ctx>, who: u32) {
        let ctx = cond.get_ctx();
        let value = resize(value, self.value.get_size());
        let width = BV::from_u64(ctx, width as u64, 32);
        let who = BV::from_u64(ctx, who as u64, 32);
        if self.has.as_bool() == Some(false) {
            *self = Log {
                has: cond.clone(),
                off: off.clone(),
                width,
                value,
                changed: changed.clone(),
                who,
                pending: Bool::from_bool(ctx, false),
            };
            return;
        }
        fn pick<'ctx, T: Ast<'ctx> + PartialEq + Clone>(cond: &Bool<'ctx>, new: &T, old: &T) -> T {
            if new == old {
                new.clone()
            } else {
                cond.ite(new, old)
            }
        }
        self.has = Bool::or(ctx, &[cond, &self.has]);
        self.off = pick(cond, off, &self.off);
        self.width = pick(cond, &width, &self.width);
        self.value = pick(cond, &value, &self.value);
        self.changed = pick(cond, changed, &self.changed);
        self.who = cond.ite(&who, &self.who);
        self.pending = pick(cond, &Bool::from_bool(ctx, false), &self.pending);
    }

    /// Whether the logged access overlaps `[off, off + width)` (modular interval test, so
    /// negative offsets are handled).
    pub fn overlaps(&self, ctx: &'ctx Context, off: &BV<'ctx>, width: u32) -> Bool<'ctx> {
        let w2 = BV::from_u64(ctx, width as u64, 64);
        let w1 = self.width.zero_ext(32);
        let a = off.bvsub(&self.off).bvult(&w1);
        let b = self.off.bvsub(off).bvult(&w2);
        Bool::or(ctx, &[&a, &b])
    }

    /// Same offset and width: the precondition of every benign case.
    pub fn same_cell(&self, ctx: &'ctx Context, off: &BV<'ctx>, width: u32) -> Bool<'ctx> {
        let w = BV::from_u64(ctx, width as u64, 32);
        Bool::and(ctx, &[&self.off._eq(off), &self.width._eq(&w)])
    }

    /// Whether the logged value equals `value`.
    pub fn value_is(&self, value: &BV<'ctx>) -> Bool<'ctx> {
        self.value._eq(&resize(value, self.value.get_size()))
    }
}

/// The three logs of one object.
#[derive(Clone, Debug)]
pub struct Logs<'ctx> {
    pub read: Log<'ctx>,
    pub write: Log<'ctx>,
    pub atomic: Log<'ctx>,
}

impl<'ctx> Logs<'ctx> {
    pub fn new(ctx: &'ctx Context, value_bits: u32) -> Logs<'ctx> {
        Logs { read: Log::empty(ctx, value_bits), write: Log::empty(ctx, value_bits), atomic: Log::empty(ctx, value_bits) }
    }

    pub fn get(&self, k: AccessKind) -> &Log<'ctx> {
        match k {
            AccessKind::Read => &self.read,
            AccessKind::Write => &self.write,
            AccessKind::Atomic => &self.atomic,
        }
    }

    pub fn get_mut(&mut self, k: AccessKind) -> &mut Log<'ctx> {
        match k {
            AccessKind::Read => &mut self.read,
            AccessKind::Write => &mut self.write,
            AccessKind::Atomic => &mut self.atomic,
        }
    }

    /// Forgets every logged access when `cond` holds (a barrier that orders this memory).
    pub fn clear(&mut self, cond: &Bool<'ctx>) {
        // Barriers' conditions are conjunctions of small terms (`true` in straight-line code
        // outside loops): simplified, a certain clear is seen as one.
        let cond = &cond.simplify();
        for k in [AccessKind::Read, AccessKind::Write, AccessKind::Atomic] {
            let l = self.get_mut(k);
            let ctx = l.has.get_ctx();
            // A pending asynchronous copy stays logged until its wait.
            if cond.as_bool() == Some(true) && l.pending.as_bool() == Some(false) {
                // Certainly cleared: the next access starts the fields afresh (see `log`).
                l.has = Bool::from_bool(ctx, false);
                continue;
            }
            let cleared = Bool::and(ctx, &[cond, &l.pending.not()]);
            l.has = Bool::and(ctx, &[&l.has, &cleared.not()]);
        }
    }
}

/// A zero of `bits` bits (used for values of accesses that have none, e.g. atomics).
pub fn zero<'ctx>(ctx: &'ctx Context, bits: u32) -> BV<'ctx> {
    bv_const(ctx, 0, bits)
}
