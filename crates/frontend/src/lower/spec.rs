//! GPUVerify's annotation language (declared in `prelude/common/syncfix_annotations.h`),
//! lowered to KIR with its meaning:
//!
//! | annotation | KIR |
//! |---|---|
//! | `__assert(e)`, `__global_assert(e)` | `Assert` (global: checked when either thread runs) |
//! | `__assume(e)`, `__requires(e)` in the kernel | `Assume` |
//! | `__requires(e)` in a callee | `Assert(Precondition)` at the call |
//! | `__ensures(e)` | `Assert(Postcondition)` re-evaluated at each return (`Assume` in a `__spec_` function) |
//! | `__invariant(e)` | `Assert(LoopInvariant)` at its loop head (elsewhere: rejected, as GPUVerify) |
//! | `__function_wide_invariant(e)` | `Assert(LoopInvariant)` re-evaluated at each loop head of its function |
//! | `__candidate_*` | `Candidate` (a hint for inference, unchecked) |
//! | `__barrier_invariant_N(e, i...)` | `Assert(BarrierInvariant)` before the next barrier, `Assume` of `e` with the local id replaced by each `i` after it |
//! | `__enabled()`, `__other_int(e)`, `__old_int(e)` | `Enabled`, `Other`, `Old` |
//! | `__read(p)`, `__write_offset_bytes(p)`... | `LogQuery` on `p`'s object |
//! | `__reads_from(p)`, `__writes_to(p)` | `External`: thread 1's log may hold such an access anywhere in `p`'s array |
//! | `__return_val_int()`, `__return_val_ptr()` | the returned value (a placeholder replaced at each return) |
//! | `__read_permission(x)`, `__write_permission(x)` | `Permission`: the thread may read `x` in this interval's barrier invariants (GPUVerify's barrier-invariant access check) |
//! | `__axiom(e)` | `Assume` at kernel entry |
//! | `__ite(b, x, y)` | `Select` (not a branch) |
//! | `__atomic_has_taken_value(p, i, v)` | `AtomicTaken` on the cell `p + i` |
//! | `__array_snapshot(dst, src)` | `Snapshot` |
//!
//! Loads between `__syncfix_spec_begin()` and `__syncfix_spec_end()` (the arguments of
//! invariants) are specification reads (`SpecLoad`), never logged as accesses.

use super::build::KirBuilder;
use super::{unsupported, At, Frame, LVal, LowerError, Lowerer};
use crate::names::function_name;
use llvm_ir::instruction::Call;
use llvm_ir::HasDebugLoc;
use std::collections::HashMap;
use syncfix_kir::{AssertKind, BinOp, BlockId, Builtin, CmpPred, InstId, InstKind, Operand, Pointer, Span};

/// How [`Lowerer::reeval`] evaluates a specification again: `subst` replaces instructions by
/// operands, `local` replaces the thread's local id (dimension 0) and, under `__other_int`,
/// `other_local` the other thread's; with `full` every computation is emitted again; the new
/// instructions go at the end of block `at` with span `span`.
#[derive(Clone, Copy)]
pub(crate) struct Reeval<'r> {
    pub(crate) subst: &'r HashMap<InstId, Operand>,
    pub(crate) local: Option<Operand>,
    pub(crate) other_local: Option<Operand>,
    pub(crate) full: bool,
    pub(crate) at: BlockId,
    pub(crate) span: &'r Span,
}

mod annotations;
mod placement;

pub(crate) use placement::check_invariant_placement;

impl<'a> Lowerer<'a> {
    /// Lowers a call to an annotation; `Ok(false)` when `name` is not one.
    pub(crate) fn lower_annotation(
        &mut self,
        frame: &mut Frame,
        c: &Call,
        name: &str,
        args: &[LVal],
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<bool, LowerError> {
        let At { cur, span, loc } = at;
        let base = function_name(name);
        let base = base.as_str();
        let arg = |i: usize| annotations::number_arg(args, i, base, loc);
        let ptr = |i: usize| annotations::pointer_arg(args, i, base, loc);
        let mut result: Option<Operand> = None;
        // `--no-annotations` / `--only-requires`: the checks and assumptions go; queries that
        // return values still give them.
        use super::Annotations as A;
        let ignored = match self.input.annotations {
            A::All => false,
            A::OnlyRequires => !matches!(base, "__requires" | "__global_requires"),
            A::Ignore => true,
        };
        let is_check = is_check_annotation(base);
        if ignored && is_check {
            return Ok(true);
        }
        let base = match base {
            // `--invariants-as-candidates`.
            "__syncfix_invariant" | "__syncfix_global_invariant" if self.input.invariants_as_candidates => "__candidate_invariant",
            b => b,
        };
        if self.lower_check_annotation(frame, base, args, At::new(cur, span, loc))?
            || self.lower_effect_annotation(frame, c, base, args, At::new(cur, span, loc))?
        {
            return Ok(true);
        }
        match base {
            "__syncfix_spec_begin" => self.spec_depth += 1,
            "__syncfix_spec_end" => self.spec_depth = self.spec_depth.saturating_sub(1),
            "__return_val_int" | "__return_val_bool" => {
                let w = ret_bits.unwrap_or(32);
                let v = self.kir.push(cur, InstKind::Havoc, w, span);
                frame.ret_placeholders.push(vec![v]);
                result = Some(Operand::Value(v));
            }
            "__old_int" | "__old_bool" => {
                let a = arg(0)?;
                let w = self.kir.width(a);
                result = Some(Operand::Value(self.kir.push(cur, InstKind::Old { arg: a }, w, span)));
            }
            "__enabled" | "__dominator_enabled" => {
                result = Some(Operand::Value(self.kir.push(cur, InstKind::Enabled, 1, span)));
            }
            "__implies" => {
                let (a, b) = (self.kir.truth(cur, arg(0)?, span), self.kir.truth(cur, arg(1)?, span));
                let na = self.kir.push(cur, InstKind::Bin { op: BinOp::Xor, lhs: a, rhs: Operand::bool(true) }, 1, span);
                let v = self.kir.push(cur, InstKind::Bin { op: BinOp::Or, lhs: Operand::Value(na), rhs: b }, 1, span);
                result = Some(Operand::Value(v));
            }
            "__other_int" | "__other_bool" => {
                let a = arg(0)?;
                let w = self.kir.width(a);
                result = Some(Operand::Value(self.kir.push(cur, InstKind::Other { arg: a }, w, span)));
            }
            "__read" | "__write" | "__atomic" | "__read_offset_bytes" | "__write_offset_bytes" => {
                result = Some(self.log_query_annotation(base, args, ret_bits, At::new(cur, span, loc))?);
            }
            // The base of a pointer is its selector (see `pointer.rs`): an object's index + 1,
            // 0 for null.
            "__ptr_base" => {
                let (sel, _, _) = args
                    .first()
                    .and_then(|p| self.dyn_parts(p))
                    .ok_or_else(|| unsupported(format!("`{base}` of something that is not a pointer"), loc))?;
                result = Some(self.kir.resize(cur, sel, ret_bits.unwrap_or(32), false, span));
            }
            "__ptr_offset_bytes" => {
                let (_, _, off) = args
                    .first()
                    .and_then(|p| self.dyn_parts(p))
                    .ok_or_else(|| unsupported(format!("`{base}` of something that is not a pointer"), loc))?;
                result = Some(self.kir.resize(cur, off, ret_bits.unwrap_or(64), false, span));
            }
            "__add_noovfl_char" | "__add_noovfl_short" | "__add_noovfl_int" | "__add_noovfl_long" => {
                result = Some(self.kir.add_noovfl(cur, arg(0)?, arg(1)?, true, span));
            }
            "__add_noovfl_unsigned_char" | "__add_noovfl_unsigned_short" | "__add_noovfl_unsigned_int" | "__add_noovfl_unsigned_long" => {
                result = Some(self.kir.add_noovfl(cur, arg(0)?, arg(1)?, false, span));
            }
            "__syncfix_add_noovfl_2" | "__syncfix_add_noovfl_3" | "__syncfix_add_noovfl_4" => {
                result = Some(self.add_noovfl_annotation(base, args, At::new(cur, span, loc))?);
            }
            b if b.starts_with("__uninterpreted_function_") => {
                let mut ops = vec![];
                for i in 0..args.len() {
                    ops.push(arg(i)?);
                }
                let w = ret_bits.ok_or_else(|| unsupported(format!("`{b}` returning a non-number"), loc))?;
                result = Some(Operand::Value(self.kir.push(cur, InstKind::Float { func: b.to_string(), args: ops }, w, span)));
            }
            "__ite"
            | "__ite_char"
            | "__ite_short"
            | "__ite_int"
            | "__ite_long"
            | "__ite_unsigned_char"
            | "__ite_unsigned_short"
            | "__ite_unsigned_int"
            | "__ite_unsigned_long"
            | "__ite_size_t" => {
                let c = self.kir.truth(cur, arg(0)?, span);
                let (x, y) = (arg(1)?, arg(2)?);
                let w = self.kir.width(x);
                let y = self.kir.resize(cur, y, w, false, span);
                result = Some(Operand::Value(self.kir.push(cur, InstKind::Select { cond: c, then: x, els: y }, w, span)));
            }
            "__atomic_has_taken_value" => {
                // The counter's cell: the pointer plus `offset` elements of the atomic's type
                // (GPUVerify indexes its `used` map by element).
                let (object, off) = ptr(0)?;
                let index = self.kir.sext64(cur, arg(1)?, span);
                let scaled = self.kir.push(cur, InstKind::Bin { op: BinOp::Mul, lhs: index, rhs: Operand::konst(64, 4) }, 64, span);
                let offset =
                    Operand::Value(self.kir.push(cur, InstKind::Bin { op: BinOp::Add, lhs: off, rhs: Operand::Value(scaled) }, 64, span));
                let value = self.kir.resize(cur, arg(2)?, 32, false, span);
                result =
                    Some(Operand::Value(self.kir.push(cur, InstKind::AtomicTaken { ptr: Pointer { object, offset }, value }, 1, span)));
            }
            "__not_accessed" => {
                return Err(unsupported(format!("the annotation `{base}` (not supported yet)"), loc));
            }
            _ => return Ok(false),
        }
        if let (Some(dest), Some(v)) = (&c.dest, result) {
            frame.values.insert(dest.clone(), LVal::Scalar(v));
        }
        Ok(true)
    }
}

/// The specifications' emission: overflow-free additions, and expressions evaluated again.
impl KirBuilder {
    /// `x + y`, assuming the addition does not overflow (signed or unsigned).
    fn add_noovfl(&mut self, cur: BlockId, x: Operand, y: Operand, signed: bool, span: &Span) -> Operand {
        let w = self.width(x);
        let r = self.push(cur, InstKind::Bin { op: BinOp::Add, lhs: x, rhs: y }, w, span);
        let ok = if signed {
            // No overflow iff the sign of the result matches when both operands share a sign:
            // ((r ^ x) & (r ^ y)) >= 0.
            let a = self.push(cur, InstKind::Bin { op: BinOp::Xor, lhs: Operand::Value(r), rhs: x }, w, span);
            let b = self.push(cur, InstKind::Bin { op: BinOp::Xor, lhs: Operand::Value(r), rhs: y }, w, span);
            let both = self.push(cur, InstKind::Bin { op: BinOp::And, lhs: Operand::Value(a), rhs: Operand::Value(b) }, w, span);
            self.push(cur, InstKind::Cmp { pred: CmpPred::Sge, lhs: Operand::Value(both), rhs: Operand::konst(w, 0) }, 1, span)
        } else {
            self.push(cur, InstKind::Cmp { pred: CmpPred::Uge, lhs: Operand::Value(r), rhs: x }, 1, span)
        };
        self.push(cur, InstKind::Assume { cond: Operand::Value(ok) }, 0, span);
        Operand::Value(r)
    }

    /// Evaluates the specification `op` again at the end of block `at`: every instruction of
    /// its expression that reads state (memory, logs, `__enabled`, the other thread) — or that
    /// depends on a substituted value — is emitted again there (loads as specification reads);
    /// the rest is reused. `subst` replaces instructions by operands; `local` replaces the
    /// thread's local id (dimension 0). With `full`, every computation is emitted again (for a
    /// place the original does not dominate); phis, parameters and `Old` stay as they are.
    pub(crate) fn reeval(
        &mut self,
        op: Operand,
        subst: &HashMap<InstId, Operand>,
        local: Option<Operand>,
        full: bool,
        at: BlockId,
        span: &Span,
    ) -> Operand {
        self.reeval_pair(op, Reeval { subst, local, other_local: None, full, at, span })
    }

    /// [`Self::reeval`] for a relation between the two threads: under `__other_int(...)`
    /// the local id is replaced by `other_local` (an expression evaluated by the other
    /// thread), elsewhere by `local`.
    pub(crate) fn reeval_pair(&mut self, op: Operand, r: Reeval<'_>) -> Operand {
        let mut memo: HashMap<InstId, Operand> = HashMap::new();
        self.reeval_rec(op, r, &mut memo, 0)
    }

    fn reeval_rec(&mut self, op: Operand, r: Reeval<'_>, memo: &mut HashMap<InstId, Operand>, depth: u32) -> Operand {
        let Reeval { subst, local, other_local, full, at, span } = r;
        let Operand::Value(v) = op else { return op };
        if let Some(s) = subst.get(&v) {
            return *s;
        }
        if let Some(m) = memo.get(&v) {
            return *m;
        }
        let kind = self.k.insts[v].kind.clone();
        let width = self.k.insts[v].width;
        let out = match kind {
            InstKind::Builtin(Builtin::LocalId(0)) if local.is_some() => local.unwrap_or(op),
            InstKind::Phi { .. } | InstKind::Param { .. } | InstKind::Havoc | InstKind::Old { .. } | InstKind::Atomic { .. } => op,
            InstKind::Builtin(_) if !full => op,
            _ if depth > 512 => op,
            k => {
                let changed = std::cell::Cell::new(full);
                let mut map = |me: &mut Self, o: Operand| -> Operand {
                    let n = me.reeval_rec(o, r, memo, depth + 1);
                    if n != o {
                        changed.set(true);
                    }
                    n
                };
                let new = match k {
                    InstKind::Bin { op: b, lhs, rhs } => InstKind::Bin { op: b, lhs: map(self, lhs), rhs: map(self, rhs) },
                    InstKind::Cmp { pred, lhs, rhs } => InstKind::Cmp { pred, lhs: map(self, lhs), rhs: map(self, rhs) },
                    InstKind::Cast { op: c, arg } => InstKind::Cast { op: c, arg: map(self, arg) },
                    InstKind::Select { cond, then, els } => {
                        InstKind::Select { cond: map(self, cond), then: map(self, then), els: map(self, els) }
                    }
                    InstKind::Float { func, args } => InstKind::Float { func, args: args.into_iter().map(|a| map(self, a)).collect() },
                    InstKind::Other { arg } if other_local.is_some() => {
                        // The other thread's expression, with its own local id.
                        let mut inner = HashMap::new();
                        let a = self.reeval_rec(arg, Reeval { local: other_local, other_local: None, ..r }, &mut inner, depth + 1);
                        changed.set(true);
                        InstKind::Other { arg: a }
                    }
                    InstKind::Other { arg } => InstKind::Other { arg: map(self, arg) },
                    // State is read again where the specification is evaluated.
                    InstKind::Load { ptr, width: w } | InstKind::SpecLoad { ptr, width: w } => {
                        changed.set(true);
                        InstKind::SpecLoad { ptr: Pointer { object: ptr.object, offset: map(self, ptr.offset) }, width: w }
                    }
                    k @ (InstKind::LogQuery { .. } | InstKind::Enabled) => {
                        changed.set(true);
                        k
                    }
                    k @ InstKind::Builtin(_) => k,
                    // Anything else (a store, a barrier...) is not part of an expression.
                    _ => return op,
                };
                if changed.get() {
                    Operand::Value(self.push(at, new, width, span))
                } else {
                    op
                }
            }
        };
        memo.insert(v, out);
        out
    }
}

impl<'a> Lowerer<'a> {
    /// Postconditions at a return of `frame` returning `value`: checked, or assumed in a
    /// `__spec_` function.
    pub(crate) fn ensures_at_return(&mut self, frame: &Frame, value: Option<&LVal>, cur: BlockId, span: &Span) {
        let mut subst = HashMap::new();
        let mut leaves = vec![];
        let pointer = value.and_then(|v| self.dyn_parts(v)).map(|(sel, _, off)| vec![sel, off]);
        if let Some(p) = pointer {
            leaves = p;
        }
        if !leaves.is_empty() || value.is_some_and(|v| Self::leaves_of(v, &mut leaves)) {
            for group in &frame.ret_placeholders {
                if group.len() != leaves.len() {
                    continue;
                }
                for (p, r) in group.iter().zip(&leaves) {
                    let w = self.kir.k.insts[*p].width;
                    let r = self.kir.resize(cur, *r, w, false, span);
                    subst.insert(*p, r);
                }
            }
        }
        for (c, global, at) in frame.ensures.clone() {
            let c = self.kir.reeval(c, &subst, None, false, cur, span);
            let kind = if frame.is_spec {
                InstKind::Assume { cond: c }
            } else {
                InstKind::Assert { cond: c, kind: AssertKind::Postcondition, global }
            };
            // Reported at the `__ensures` (as GPUVerify does), evaluated at this return.
            self.kir.push(cur, kind, 0, &at);
        }
    }

    /// Barrier invariants before (checked) and after (assumed, instantiated) the barrier that
    /// is about to be pushed into `cur`; `emit_barrier` pushes it.
    pub(crate) fn with_barrier_invariants(&mut self, frame: &mut Frame, cur: BlockId, emit_barrier: impl FnOnce(&mut Self)) {
        let invs = std::mem::take(&mut frame.barrier_invariants);
        for (c, _, span) in &invs {
            self.kir.push(cur, InstKind::Assert { cond: *c, kind: AssertKind::BarrierInvariant, global: false }, 0, span);
        }
        emit_barrier(self);
        for (c, insts, span) in &invs {
            for (i, j) in insts {
                let v = self
                    .kir
                    .reeval_pair(*c, Reeval { subst: &HashMap::new(), local: Some(*i), other_local: *j, full: false, at: cur, span });
                self.kir.push(cur, InstKind::Assume { cond: v }, 0, span);
            }
        }
    }
}

/// Whether annotation `base` is a check or an assumption (what `--no-annotations` and
/// `--only-requires` leave out), not a query that returns a value.
fn is_check_annotation(base: &str) -> bool {
    matches!(
        base,
        "__assert"
            | "__global_assert"
            | "__assume"
            | "__requires"
            | "__global_requires"
            | "__ensures"
            | "__global_ensures"
            | "__syncfix_invariant"
            | "__syncfix_global_invariant"
            | "__syncfix_function_wide_invariant"
            | "__candidate_assert"
            | "__candidate_global_assert"
            | "__candidate_invariant"
            | "__candidate_global_invariant"
            | "__function_wide_candidate_invariant"
    ) || base.starts_with("__syncfix_barrier_invariant")
}
