//! The well-formedness check of a kernel, in the manner of Cranelift's IR verifier: the
//! invariants every stage may rely on (ARCHITECTURE.md, "crates/kir — the shared IR"), checked
//! on a whole kernel and reported all at once. The front end runs it after lowering in debug
//! builds; the tests run it on every kernel they lower.
//!
//! The rules, each reported as a [`CheckError`] naming the kernel, block and instruction:
//! - **Structure**: the entry and every branch target is a block of the kernel; every
//!   instruction listed in a block records that block and is listed once. (A block ends in
//!   exactly one terminator by construction: [`Block::term`] is a field, not an instruction.)
//! - **Definitions**: an operand names an instruction that stands in a block and produces a
//!   value. In a block reachable from the entry, the definition *dominates* the use: it comes
//!   earlier in the same block or in a dominating block; a phi's incoming value dominates the
//!   end of its predecessor. A phi's incoming blocks are predecessors of its block, and phis
//!   stand at the start of their block.
//! - **Widths**: an instruction produces a value (width `1..=128`) exactly when its kind does;
//!   operands have the widths their instruction needs (the operands of arithmetic, a select's
//!   arms, a phi's incoming values and `__other`/`__old` arguments the result's width, compared
//!   operands one width, conditions `i1`, byte offsets `i64`, thread ids `i32`); casts widen or
//!   narrow as they say; a constant fits its width; a `Param` reads a scalar parameter of its
//!   width; memory objects named exist.
//! - **Spans** ([`check_spans`], a promise of the front end rather than of KIR: kernels built
//!   by hand or by the instrumenter may leave them out): every memory access, barrier,
//!   assertion and terminator of a reachable block carries a source location.

use crate::cfg::flow;
use crate::entity::{BlockId, InstId, ObjectId};
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::fmt;

/// A broken rule: where (kernel, block, instruction) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// The kernel's name.
    pub kernel: String,
    /// The block the error is in, if it is in one.
    pub block: Option<BlockId>,
    /// The instruction, if the error is about one (`None`: about the block's terminator or the
    /// kernel as a whole).
    pub inst: Option<InstId>,
    pub message: String,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`", self.kernel)?;
        if let Some(b) = self.block {
            write!(f, ", {b}")?;
        }
        match self.inst {
            Some(i) => write!(f, ", {i}")?,
            None if self.block.is_some() => write!(f, ", terminator")?,
            None => {}
        }
        write!(f, ": {}", self.message)
    }
}

/// Checks the structure, definitions and widths of `k` (see the module documentation); an
/// empty list when the kernel is well formed.
pub fn check(k: &Kernel) -> Vec<CheckError> {
    let mut c = Checker { k, errors: vec![] };
    c.run();
    c.errors
}

/// Checks that the instructions a source-level tool points at carry a source location: every
/// memory access, barrier, assertion (`Assert`) and terminator of a block reachable from the
/// entry. The front end promises this of the kernels it lowers; an empty list when it holds.
pub fn check_spans(k: &Kernel) -> Vec<CheckError> {
    let mut errors = vec![];
    // The CFG of a kernel with a dangling branch cannot be walked; `check` reports it.
    let dangling = k.blocks.values().any(|blk| blk.term.successors().iter().any(|s| !k.blocks.is_valid(*s)));
    if !k.blocks.is_valid(k.entry) || dangling {
        return errors;
    }
    let f = flow(k);
    for (b, blk) in k.blocks.iter() {
        if !f.reachable[b] {
            continue;
        }
        for &i in &blk.insts {
            let Some(inst) = k.insts.get(i) else { continue };
            let needs = match inst.kind.access() {
                Some((ptr, ..)) => k.objects.get(ptr.object).is_some_and(|o| o.space != Space::Private),
                None => matches!(inst.kind, InstKind::Barrier(_) | InstKind::Assert { .. }),
            };
            if needs && inst.span.frames.is_empty() {
                errors.push(CheckError { kernel: k.name.clone(), block: Some(b), inst: Some(i), message: "has no source location".into() });
            }
        }
        if blk.term_span.frames.is_empty() && !matches!(blk.term, Terminator::Br(_)) {
            errors.push(CheckError { kernel: k.name.clone(), block: Some(b), inst: None, message: "has no source location".into() });
        }
    }
    errors
}

/// Whether an instruction of this kind produces a value. The match names every kind, so that
/// a kind added to KIR stops the build here until its rules are written.
pub(crate) fn has_value(kind: &InstKind) -> bool {
    match kind {
        InstKind::Store { .. }
        | InstKind::Barrier(_)
        | InstKind::Anchor(_)
        | InstKind::Assert { .. }
        | InstKind::Assume { .. }
        | InstKind::Candidate { .. }
        | InstKind::External { .. }
        | InstKind::Permission { .. }
        | InstKind::Snapshot { .. }
        | InstKind::AsyncPending { .. }
        | InstKind::AsyncWait { .. } => false,
        InstKind::Param { .. }
        | InstKind::Builtin(_)
        | InstKind::Havoc
        | InstKind::Bin { .. }
        | InstKind::Cmp { .. }
        | InstKind::Cast { .. }
        | InstKind::Select { .. }
        | InstKind::Phi { .. }
        | InstKind::Float { .. }
        | InstKind::Load { .. }
        | InstKind::Atomic { .. }
        | InstKind::Enabled
        | InstKind::Other { .. }
        | InstKind::Old { .. }
        | InstKind::LogQuery { .. }
        | InstKind::SpecLoad { .. }
        | InstKind::AtomicTaken { .. } => true,
    }
}

/// The widths an instruction's operands must have, given its own width `w`: (operand,
/// required width, what it is).
pub(crate) fn operand_widths(kind: &InstKind, w: u16) -> Vec<(Operand, u16, &'static str)> {
    let mut v = vec![];
    let ptr = |v: &mut Vec<_>, p: &Pointer| v.push((p.offset, 64, "a byte offset"));
    match kind {
        InstKind::Bin { lhs, rhs, .. } => {
            v.push((*lhs, w, "an operand of the result's width"));
            v.push((*rhs, w, "an operand of the result's width"));
        }
        InstKind::Select { cond, then, els } => {
            v.push((*cond, 1, "a condition"));
            v.push((*then, w, "an operand of the result's width"));
            v.push((*els, w, "an operand of the result's width"));
        }
        InstKind::Phi { incoming } => v.extend(incoming.iter().map(|(_, o)| (*o, w, "an operand of the result's width"))),
        InstKind::Other { arg } | InstKind::Old { arg } => v.push((*arg, w, "an operand of the result's width")),
        InstKind::Assert { cond, .. } | InstKind::Assume { cond } | InstKind::Candidate { cond } => v.push((*cond, 1, "a condition")),
        InstKind::Load { ptr: p, .. }
        | InstKind::SpecLoad { ptr: p, .. }
        | InstKind::Permission { ptr: p, .. }
        | InstKind::Store { ptr: p, .. }
        | InstKind::Atomic { ptr: p, .. }
        | InstKind::AtomicTaken { ptr: p, .. } => ptr(&mut v, p),
        _ => {}
    }
    v
}

/// The width an instruction of this kind must have, when the kind alone decides it.
fn fixed_width(kind: &InstKind) -> Option<u16> {
    match kind {
        InstKind::Builtin(_) => Some(32),
        InstKind::Cmp { .. } | InstKind::Enabled | InstKind::AtomicTaken { .. } => Some(1),
        InstKind::LogQuery { query: LogQuery::Has, .. } => Some(1),
        InstKind::LogQuery { query: LogQuery::OffsetBytes, .. } => Some(64),
        _ => None,
    }
}

struct Checker<'k> {
    k: &'k Kernel,
    errors: Vec<CheckError>,
}

impl Checker<'_> {
    fn error(&mut self, block: Option<BlockId>, inst: Option<InstId>, message: String) {
        self.errors.push(CheckError { kernel: self.k.name.clone(), block, inst, message });
    }

    fn run(&mut self) {
        let k = self.k;
        if !k.blocks.is_valid(k.entry) {
            self.error(None, None, format!("the entry {} is not a block", k.entry));
            return;
        }
        for (b, blk) in k.blocks.iter() {
            for s in blk.term.successors() {
                if !k.blocks.is_valid(s) {
                    self.error(Some(b), None, format!("branches to {s}, which is not a block"));
                }
            }
        }
        if !self.errors.is_empty() {
            return;
        }
        for (i, p) in k.params.iter().enumerate() {
            if let ParamKind::Pointer(o) = p.kind {
                if !k.objects.is_valid(o) {
                    self.error(None, None, format!("parameter {i} points to {o}, which is not declared"));
                }
            }
        }
        // Where each instruction stands: its block and position.
        let mut place: SecondaryMap<InstId, Option<(BlockId, usize)>> = SecondaryMap::new();
        for (b, blk) in k.blocks.iter() {
            for (pos, &i) in blk.insts.iter().enumerate() {
                if !k.insts.is_valid(i) {
                    self.error(Some(b), None, format!("lists {i}, which is not an instruction"));
                    continue;
                }
                if let Some((other, _)) = place[i] {
                    self.error(Some(b), Some(i), format!("is listed in {other} as well"));
                    continue;
                }
                if k.insts[i].block != b {
                    self.error(Some(b), Some(i), format!("records {} as its block", k.insts[i].block));
                }
                place[i] = Some((b, pos));
            }
        }
        let f = flow(k);
        let dominates = |a: BlockId, mut b: BlockId| -> bool {
            loop {
                if a == b {
                    return true;
                }
                match f.idom[b] {
                    Some(p) if p != b => b = p,
                    _ => return false,
                }
            }
        };
        // Whether the definition of `v` is available at position `pos` of block `b`
        // (`usize::MAX`: the end of the block). Only asked in reachable blocks.
        let available = |v: InstId, b: BlockId, pos: usize| -> bool {
            match place[v] {
                Some((db, dpos)) if db == b => dpos < pos,
                Some((db, _)) => f.reachable[db] && dominates(db, b),
                None => false,
            }
        };
        for (b, blk) in k.blocks.iter() {
            let reachable = f.reachable[b];
            let mut phis_done = false;
            for (pos, &i) in blk.insts.iter().enumerate() {
                if !k.insts.is_valid(i) || place[i] != Some((b, pos)) {
                    continue;
                }
                let inst = &k.insts[i];
                self.instruction(b, i, inst);
                let is_phi = matches!(inst.kind, InstKind::Phi { .. });
                if is_phi && phis_done {
                    self.error(Some(b), Some(i), "is a phi after other instructions of its block".into());
                }
                phis_done |= !is_phi;
                if let InstKind::Phi { incoming } = &inst.kind {
                    for (p, o) in incoming {
                        if !k.blocks.is_valid(*p) {
                            self.error(Some(b), Some(i), format!("has an incoming value from {p}, which is not a block"));
                            continue;
                        }
                        if reachable && f.reachable[*p] && !f.preds[b].contains(p) {
                            self.error(Some(b), Some(i), format!("has an incoming value from {p}, which is not a predecessor of {b}"));
                        }
                        if let Operand::Value(v) = o {
                            if self.defined(b, Some(i), *v) && reachable && f.reachable[*p] && !available(*v, *p, usize::MAX) {
                                self.error(Some(b), Some(i), format!("uses {v} from {p}, where {v} is not defined on every path"));
                            }
                        }
                    }
                } else {
                    for o in inst.kind.operands() {
                        if let Operand::Value(v) = o {
                            if self.defined(b, Some(i), v) && reachable && !available(v, b, pos) {
                                self.error(Some(b), Some(i), format!("uses {v}, which is not defined before it on every path"));
                            }
                        }
                    }
                }
            }
            let term_ops: Vec<Operand> = match &blk.term {
                Terminator::CondBr { cond, .. } => vec![*cond],
                Terminator::Switch { value, .. } => vec![*value],
                _ => vec![],
            };
            for o in term_ops {
                self.konst(b, None, o);
                if let Operand::Value(v) = o {
                    if self.defined(b, None, v) && reachable && !available(v, b, usize::MAX) {
                        self.error(Some(b), None, format!("uses {v}, which is not defined before it on every path"));
                    }
                }
            }
            match &blk.term {
                Terminator::CondBr { cond, .. } if self.width_of(*cond) != Some(1) => {
                    let w = self.width_of(*cond).unwrap_or(0);
                    self.error(Some(b), None, format!("branches on {cond}, an i{w}, not an i1"));
                }
                Terminator::Switch { value, cases, .. } => {
                    if let Some(w) = self.width_of(*value) {
                        let max = if w >= 128 { u128::MAX } else { (1u128 << w) - 1 };
                        if let Some((c, _)) = cases.iter().find(|(c, _)| *c > max) {
                            self.error(Some(b), None, format!("has case {c}, which does not fit the i{w} it switches on"));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether operand value `v` (used in block `b`, by instruction `i` or the terminator)
    /// names an instruction that stands in a block and produces a value; reports it if not.
    fn defined(&mut self, b: BlockId, i: Option<InstId>, v: InstId) -> bool {
        let k = self.k;
        if !k.insts.is_valid(v) {
            self.error(Some(b), i, format!("uses {v}, which is not an instruction"));
            return false;
        }
        let def = &k.insts[v];
        let listed = k.blocks.get(def.block).is_some_and(|blk| blk.insts.contains(&v));
        if !listed {
            self.error(Some(b), i, format!("uses {v}, which stands in no block"));
            return false;
        }
        if def.width == 0 {
            self.error(Some(b), i, format!("uses {v}, which produces no value"));
            return false;
        }
        true
    }

    /// The width of an operand, `None` for a value that is not an instruction.
    fn width_of(&self, o: Operand) -> Option<u16> {
        match o {
            Operand::Value(v) => self.k.insts.get(v).map(|i| i.width),
            Operand::Const { width, .. } => Some(width),
        }
    }

    /// A constant operand has a width of `1..=128` bits and fits it.
    fn konst(&mut self, b: BlockId, i: Option<InstId>, o: Operand) {
        if let Operand::Const { width, bits } = o {
            if width == 0 || width > 128 {
                self.error(Some(b), i, format!("has a constant of width {width}"));
            } else if width < 128 && bits >> width != 0 {
                self.error(Some(b), i, format!("has a constant {bits} that does not fit i{width}"));
            }
        }
    }

    fn object(&mut self, b: BlockId, i: InstId, o: ObjectId) {
        if !self.k.objects.is_valid(o) {
            self.error(Some(b), Some(i), format!("names {o}, which is not declared"));
        }
    }

    /// The width rules of one instruction.
    fn instruction(&mut self, b: BlockId, i: InstId, inst: &Inst) {
        let (kind, w) = (&inst.kind, inst.width);
        let at = (Some(b), Some(i));
        if has_value(kind) && (w == 0 || w > 128) {
            self.error(at.0, at.1, format!("produces a value of width {w}, not 1..=128"));
        } else if !has_value(kind) && w != 0 {
            self.error(at.0, at.1, format!("produces no value but has width {w}"));
        }
        for o in kind.operands() {
            self.konst(b, Some(i), o);
        }
        if let Some(want) = fixed_width(kind) {
            if w != want {
                self.error(at.0, at.1, format!("is an i{w}, but its kind gives an i{want}"));
            }
        }
        for (o, want, what) in operand_widths(kind, w) {
            match self.width_of(o) {
                Some(ow) if ow != want => self.error(at.0, at.1, format!("has {o}, an i{ow}, as {what} (an i{want})")),
                _ => {}
            }
        }
        match kind {
            InstKind::Cmp { lhs, rhs, .. } => {
                if let (Some(a), Some(c)) = (self.width_of(*lhs), self.width_of(*rhs)) {
                    if a != c {
                        self.error(at.0, at.1, format!("compares an i{a} with an i{c}"));
                    }
                }
            }
            InstKind::Cast { op, arg } => {
                if let Some(a) = self.width_of(*arg) {
                    let ok = match op {
                        CastOp::ZExt | CastOp::SExt => a <= w,
                        CastOp::Trunc => a >= w,
                    };
                    if !ok {
                        self.error(at.0, at.1, format!("casts an i{a} to an i{w} with {op:?}"));
                    }
                }
            }
            InstKind::Param { index } => match self.k.params.get(*index).map(|p| &p.kind) {
                Some(ParamKind::Scalar { width }) if *width == w => {}
                Some(ParamKind::Scalar { width }) => self.error(at.0, at.1, format!("reads parameter {index}, an i{width}, as an i{w}")),
                Some(ParamKind::Pointer(_)) => self.error(at.0, at.1, format!("reads parameter {index}, a pointer, as a value")),
                None => self.error(at.0, at.1, format!("reads parameter {index}, which does not exist")),
            },
            InstKind::Barrier(bar) => {
                if let Fences::Dynamic(o) = bar.fences {
                    if self.width_of(o) == Some(0) {
                        self.error(at.0, at.1, format!("has fences {o} of width 0"));
                    }
                }
                if let Scope::Tile { mask: TileMask::Dynamic(m), .. } = bar.scope {
                    if let Some(mw) = self.width_of(m).filter(|mw| *mw != 32) {
                        self.error(at.0, at.1, format!("has a tile mask {m}, an i{mw}, not an i32"));
                    }
                }
            }
            _ => {}
        }
        match kind {
            InstKind::Load { ptr, .. }
            | InstKind::Store { ptr, .. }
            | InstKind::Atomic { ptr, .. }
            | InstKind::SpecLoad { ptr, .. }
            | InstKind::Permission { ptr, .. }
            | InstKind::AtomicTaken { ptr, .. } => self.object(b, i, ptr.object),
            InstKind::LogQuery { object, .. } | InstKind::External { object, .. } | InstKind::AsyncPending { object } => {
                self.object(b, i, *object)
            }
            InstKind::Snapshot { dst, src } => {
                self.object(b, i, *dst);
                self.object(b, i, *src);
            }
            _ => {}
        }
    }
}
