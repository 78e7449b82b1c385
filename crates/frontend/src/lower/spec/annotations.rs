//! GPUVerify's checks and assumptions (`__assert`, `__requires`, invariants, barrier
//! invariants...) and the annotations that query race logs or add without overflow: the larger
//! parts of [`Lowerer::lower_annotation`].

use super::super::{unsupported, At, Frame, LVal, LowerError, Lowerer};
use llvm_ir::instruction::Call;
use syncfix_kir::{AssertKind, BinOp, Builtin, CastOp, CmpPred, InstId, InstKind, Loc, LogKind, LogQuery, Operand, Pointer};

/// Argument `i` of annotation `base` as a number.
///
/// Errors: unsupported, naming the annotation, when it is a pointer or an aggregate.
pub(super) fn number_arg(args: &[LVal], i: usize, base: &str, loc: Option<Loc>) -> Result<Operand, LowerError> {
    match args.get(i) {
        Some(LVal::Scalar(o)) => Ok(*o),
        _ => Err(unsupported(format!("`{base}` with an argument that is not a number"), loc)),
    }
}

/// Argument `i` of annotation `base` as a pointer into an array: its object and byte offset.
///
/// Errors: unsupported, naming the annotation, when it is not such a pointer.
pub(super) fn pointer_arg(args: &[LVal], i: usize, base: &str, loc: Option<Loc>) -> Result<(syncfix_kir::ObjectId, Operand), LowerError> {
    match args.get(i) {
        Some(LVal::Ptr(o, off)) => Ok((*o, *off)),
        _ => Err(unsupported(format!("`{base}` of something that is not a pointer into an array"), loc)),
    }
}

impl<'a> Lowerer<'a> {
    /// Lowers annotation `base` when it is a check or an assumption (see the module table of
    /// `spec`); `Ok(false)` when it is another annotation.
    pub(super) fn lower_check_annotation(&mut self, frame: &mut Frame, base: &str, args: &[LVal], at: At<'_>) -> Result<bool, LowerError> {
        let At { cur, span, loc } = at;
        let arg = |i: usize| number_arg(args, i, base, loc);
        match base {
            "__assert" | "__global_assert" => {
                let c = self.kir.truth(cur, arg(0)?, span);
                self.kir.push(cur, InstKind::Assert { cond: c, kind: AssertKind::Assertion, global: base == "__global_assert" }, 0, span);
            }
            "__candidate_assert" | "__candidate_global_assert" | "__candidate_invariant" | "__candidate_global_invariant" => {
                let c = self.kir.truth(cur, arg(0)?, span);
                self.kir.push(cur, InstKind::Candidate { cond: c }, 0, span);
            }
            // A candidate at each loop head of the function.
            "__function_wide_candidate_invariant" => {
                let c = self.kir.truth(cur, arg(0)?, span);
                frame.function_wide.push((c, true));
            }
            "__assume" => {
                let c = self.kir.truth(cur, arg(0)?, span);
                self.kir.push(cur, InstKind::Assume { cond: c }, 0, span);
            }
            "__requires" | "__global_requires" => {
                let c = self.kir.truth(cur, arg(0)?, span);
                if frame.is_kernel {
                    self.kir.push(cur, InstKind::Assume { cond: c }, 0, span);
                } else {
                    let global = base == "__global_requires";
                    self.kir.push(cur, InstKind::Assert { cond: c, kind: AssertKind::Precondition, global }, 0, span);
                }
            }
            "__ensures" | "__global_ensures" => {
                let c = self.kir.truth(cur, arg(0)?, span);
                frame.ensures.push((c, base == "__global_ensures", span.clone()));
            }
            "__syncfix_invariant" | "__syncfix_global_invariant" => {
                let c = self.kir.truth(cur, arg(0)?, span);
                let global = base == "__syncfix_global_invariant";
                self.kir.push(cur, InstKind::Assert { cond: c, kind: AssertKind::LoopInvariant, global }, 0, span);
            }
            "__syncfix_function_wide_invariant" => {
                let c = self.kir.truth(cur, arg(0)?, span);
                frame.function_wide.push((c, self.input.invariants_as_candidates));
            }
            b if b.starts_with("__syncfix_barrier_invariant_binary_") => {
                // Pairs (i, j): this thread's local id is i, the other's j, which must be
                // `__other_int(x)` (x evaluated by the other thread). The invariant relates
                // threads of one group (a barrier orders only those).
                let c = self.kir.truth(cur, arg(0)?, span);
                let mut same = Operand::bool(true);
                for d in 0..3 {
                    let g = self.kir.push(cur, InstKind::Builtin(Builtin::GroupId(d)), 32, span);
                    let o = self.kir.push(cur, InstKind::Other { arg: Operand::Value(g) }, 32, span);
                    let eq =
                        self.kir.push(cur, InstKind::Cmp { pred: CmpPred::Eq, lhs: Operand::Value(g), rhs: Operand::Value(o) }, 1, span);
                    same =
                        Operand::Value(self.kir.push(cur, InstKind::Bin { op: BinOp::And, lhs: same, rhs: Operand::Value(eq) }, 1, span));
                }
                let differ = self.kir.push(cur, InstKind::Bin { op: BinOp::Xor, lhs: same, rhs: Operand::bool(true) }, 1, span);
                let c = Operand::Value(self.kir.push(cur, InstKind::Bin { op: BinOp::Or, lhs: Operand::Value(differ), rhs: c }, 1, span));
                let mut pairs = vec![];
                let mut i = 1;
                while i + 1 < args.len() {
                    let this = self.kir.resize(cur, arg(i)?, 32, false, span);
                    let other = match arg(i + 1)? {
                        Operand::Value(v) => match self.kir.k.insts[v].kind.clone() {
                            InstKind::Other { arg } => self.kir.resize(cur, arg, 32, false, span),
                            _ => {
                                return Err(unsupported(
                                    "a binary barrier invariant instantiated at a second thread that is not `__other_int(...)`",
                                    loc,
                                ))
                            }
                        },
                        _ => {
                            return Err(unsupported(
                                "a binary barrier invariant instantiated at a second thread that is not `__other_int(...)`",
                                loc,
                            ))
                        }
                    };
                    pairs.push((this, Some(other)));
                    i += 2;
                }
                frame.barrier_invariants.push((c, pairs, span.clone()));
            }
            b if b.starts_with("__syncfix_barrier_invariant_") => {
                let c = self.kir.truth(cur, arg(0)?, span);
                let mut insts = vec![];
                for i in 1..args.len() {
                    insts.push((self.kir.resize(cur, arg(i)?, 32, false, span), None));
                }
                frame.barrier_invariants.push((c, insts, span.clone()));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Lowers annotation `base` when it has an effect and no value of its own: a permission,
    /// an external function's effect, an array snapshot, a fresh array (nothing to do), or the
    /// placeholders of a returned aggregate or pointer (bound to the call's result);
    /// `Ok(false)` when it is another annotation.
    pub(super) fn lower_effect_annotation(
        &mut self,
        frame: &mut Frame,
        c: &Call,
        base: &str,
        args: &[LVal],
        at: At<'_>,
    ) -> Result<bool, LowerError> {
        let At { cur, span, loc } = at;
        let arg = |i: usize| number_arg(args, i, base, loc);
        let ptr = |i: usize| pointer_arg(args, i, base, loc);
        match base {
            "__return_val_int4" => {
                let leaves: Vec<InstId> = (0..4).map(|_| self.kir.push(cur, InstKind::Havoc, 32, span)).collect();
                frame.ret_placeholders.push(leaves.clone());
                if let Some(dest) = &c.dest {
                    frame.values.insert(dest.clone(), LVal::Agg(leaves.into_iter().map(|i| LVal::Scalar(Operand::Value(i))).collect()));
                }
                return Ok(true);
            }
            "__syncfix_permission" => {
                let (object, offset) = ptr(0)?;
                let width = arg(1)?
                    .as_const()
                    .filter(|b| (1..=128).contains(b))
                    .ok_or_else(|| unsupported("`__read_permission` of something whose size is not known".to_string(), loc))?
                    as u32;
                self.kir.push(cur, InstKind::Permission { ptr: Pointer { object, offset }, width }, 0, span);
            }
            "__syncfix_reads_from" | "__syncfix_writes_to" => {
                // An external function's effect on the array `p` points into.
                let (object, _) = ptr(0)?;
                let kind = if base == "__syncfix_reads_from" { LogKind::Read } else { LogKind::Write };
                self.kir.push(cur, InstKind::External { object, kind }, 0, span);
            }
            // Our objects are distinct and their contents arbitrary by construction: a fresh
            // array is what every pointer parameter already is.
            "__requires_fresh_array" => {
                if args.first().and_then(|p| self.dyn_parts(p)).is_none() {
                    return Err(unsupported(format!("`{base}` of something that is not a pointer"), loc));
                }
            }
            "__return_val_ptr" => {
                // The returned pointer: placeholders of its selector and offset.
                let sel = self.kir.push(cur, InstKind::Havoc, 32, span);
                let off = self.kir.push(cur, InstKind::Havoc, 64, span);
                frame.ret_placeholders.push(vec![sel, off]);
                if let Some(dest) = &c.dest {
                    frame.values.insert(dest.clone(), LVal::DynPtr { sel: Operand::Value(sel), cands: vec![], off: Operand::Value(off) });
                }
                return Ok(true);
            }
            "__array_snapshot" => {
                let (dst, _) = ptr(0)?;
                let (src, _) = ptr(1)?;
                self.kir.push(cur, InstKind::Snapshot { dst, src }, 0, span);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `__read(p)`, `__write_offset_bytes(p)`...: the query on the log of the object `p`
    /// points into (false or 0 for null), a choice on the pointer's selector when that is
    /// only known at run time.
    ///
    /// Errors: unsupported when `p` is not a pointer.
    pub(super) fn log_query_annotation(
        &mut self,
        base: &str,
        args: &[LVal],
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Operand, LowerError> {
        let At { cur, span, loc } = at;
        let kind = match base {
            "__read" | "__read_offset_bytes" => LogKind::Read,
            "__write" | "__write_offset_bytes" => LogKind::Write,
            _ => LogKind::Atomic,
        };
        let query = if base.ends_with("_offset_bytes") { LogQuery::OffsetBytes } else { LogQuery::Has };
        let w = if query == LogQuery::Has { 1 } else { ret_bits.unwrap_or(64) };
        let (sel, cands, _) = args
            .first()
            .and_then(|p| self.dyn_parts(p))
            .ok_or_else(|| unsupported(format!("`{base}` of something that is not a pointer"), loc))?;
        // The query on the log of the object the pointer points into (false / 0 for
        // null): a choice on the selector when that is only known at run time.
        let mut v = Operand::konst(w, 0);
        for object in cands {
            let q = Operand::Value(self.kir.push(cur, InstKind::LogQuery { object, kind, query }, w, span));
            v = match sel {
                Operand::Const { bits, .. } if bits == super::super::pointer::sel_of(object) => q,
                Operand::Const { .. } => v,
                _ => {
                    let is = self.kir.push(
                        cur,
                        InstKind::Cmp { pred: CmpPred::Eq, lhs: sel, rhs: Operand::konst(32, super::super::pointer::sel_of(object)) },
                        1,
                        span,
                    );
                    Operand::Value(self.kir.push(cur, InstKind::Select { cond: Operand::Value(is), then: q, els: v }, w, span))
                }
            };
        }
        Ok(v)
    }

    /// `__syncfix_add_noovfl_N(signed, x...)`: whether the sum of the 32-bit arguments fits in
    /// 32 bits, signed or unsigned as the first argument (a constant) says.
    ///
    /// Errors: unsupported when the signedness is not a constant.
    pub(super) fn add_noovfl_annotation(&mut self, base: &str, args: &[LVal], at: At<'_>) -> Result<Operand, LowerError> {
        let At { cur, span, loc } = at;
        let arg = |i: usize| number_arg(args, i, base, loc);
        // The sum of the 32-bit arguments fits in 32 bits, signed or unsigned as the
        // first argument (a constant) says.
        let signed = match arg(0)?.as_const() {
            Some(b) => b != 0,
            None => return Err(unsupported(format!("`{base}` whose signedness is not a constant"), loc)),
        };
        let ext = if signed { CastOp::SExt } else { CastOp::ZExt };
        let mut sum = Operand::konst(64, 0);
        for i in 1..args.len() {
            let a = arg(i)?;
            let a =
                if self.kir.width(a) < 64 { Operand::Value(self.kir.push(cur, InstKind::Cast { op: ext, arg: a }, 64, span)) } else { a };
            sum = Operand::Value(self.kir.push(cur, InstKind::Bin { op: BinOp::Add, lhs: sum, rhs: a }, 64, span));
        }
        let lo = self.kir.push(cur, InstKind::Cast { op: CastOp::Trunc, arg: sum }, 32, span);
        let back = self.kir.push(cur, InstKind::Cast { op: ext, arg: Operand::Value(lo) }, 64, span);
        let ok = self.kir.push(cur, InstKind::Cmp { pred: CmpPred::Eq, lhs: Operand::Value(back), rhs: sum }, 1, span);
        Ok(Operand::Value(ok))
    }
}
