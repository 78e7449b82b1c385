//! Where GPUVerify's loop invariants may stand, checked as GPUVerify checks them: a
//! function-wide invariant at the end of its function over values its body does not compute
//! (on the LLVM IR, exit 4), and a loop invariant at its loop's head (on the lowered KIR, exit 5);
//! and the function-wide invariants asserted at each loop head of their function.

use super::*;

/// The operands an instruction computes its value from (for the dependence walks of
/// [`Lowerer::check_function_wide`]); calls and phis are handled by the caller.
pub(super) fn operands_of(i: &llvm_ir::Instruction) -> Vec<&llvm_ir::Operand> {
    use llvm_ir::Instruction as I;
    match i {
        I::Add(x) => vec![&x.operand0, &x.operand1],
        I::Sub(x) => vec![&x.operand0, &x.operand1],
        I::Mul(x) => vec![&x.operand0, &x.operand1],
        I::UDiv(x) => vec![&x.operand0, &x.operand1],
        I::SDiv(x) => vec![&x.operand0, &x.operand1],
        I::URem(x) => vec![&x.operand0, &x.operand1],
        I::SRem(x) => vec![&x.operand0, &x.operand1],
        I::And(x) => vec![&x.operand0, &x.operand1],
        I::Or(x) => vec![&x.operand0, &x.operand1],
        I::Xor(x) => vec![&x.operand0, &x.operand1],
        I::Shl(x) => vec![&x.operand0, &x.operand1],
        I::LShr(x) => vec![&x.operand0, &x.operand1],
        I::AShr(x) => vec![&x.operand0, &x.operand1],
        I::FAdd(x) => vec![&x.operand0, &x.operand1],
        I::FSub(x) => vec![&x.operand0, &x.operand1],
        I::FMul(x) => vec![&x.operand0, &x.operand1],
        I::FDiv(x) => vec![&x.operand0, &x.operand1],
        I::FRem(x) => vec![&x.operand0, &x.operand1],
        I::ICmp(x) => vec![&x.operand0, &x.operand1],
        I::FCmp(x) => vec![&x.operand0, &x.operand1],
        I::Trunc(x) => vec![&x.operand],
        I::ZExt(x) => vec![&x.operand],
        I::SExt(x) => vec![&x.operand],
        I::BitCast(x) => vec![&x.operand],
        I::PtrToInt(x) => vec![&x.operand],
        I::IntToPtr(x) => vec![&x.operand],
        I::AddrSpaceCast(x) => vec![&x.operand],
        I::Select(x) => vec![&x.condition, &x.true_value, &x.false_value],
        I::Load(x) => vec![&x.address],
        I::GetElementPtr(x) => {
            let mut v = vec![&x.address];
            v.extend(x.indices.iter());
            v
        }
        I::ExtractElement(x) => vec![&x.vector, &x.index],
        I::ExtractValue(x) => vec![&x.aggregate],
        _ => vec![],
    }
}

/// GPUVerify's rule for loop invariants (`__invariant`, `__global_invariant`): one must stand
/// at the head of its loop (in the loop's condition, before any branch of it; GPUVerifyVCGen:
/// "user-specified invariant does not appear at loop head"). An invariant elsewhere — in the
/// body, or after a short-circuit `&&`, `||` or `?:` of the condition, which branches — is
/// rejected rather than checked where it stands. Function-wide invariants, placed at the
/// loop heads by the lowering, satisfy it by construction.
pub(crate) fn check_invariant_placement(k: &syncfix_kir::Kernel) -> Result<(), LowerError> {
    let Ok(cfg) = syncfix_kir::Cfg::compute(k) else {
        return Ok(()); // an irreducible CFG is reported by the verifier
    };
    for (_, inst) in k.insts.iter() {
        if !matches!(inst.kind, InstKind::Assert { kind: AssertKind::LoopInvariant, .. }) || !cfg.reachable[inst.block] {
            continue;
        }
        if !cfg.loops.iter().any(|l| l.header == inst.block) {
            return Err(LowerError::Annotation {
                what: "user-specified invariant does not appear at loop head".into(),
                loc: inst.span.in_main().or(inst.span.top()),
                stage: crate::lower::Stage::VcGen,
            });
        }
    }
    Ok(())
}

impl<'a> Lowerer<'a> {
    /// Checks where `func`'s `__function_wide_invariant`s stand and what they use, as
    /// GPUVerify's front end does: a function-wide invariant holds at every loop head of its
    /// function, so it must stand at the end of the function (only annotations after it) and
    /// may only use what every loop head sees: constants, the function's arguments, memory,
    /// built-in and uninterpreted functions. A value computed in the body (a variable updated
    /// by a loop, a call of a function with a body) is an error.
    pub(super) fn check_function_wide(&mut self, frame: &Frame, func: &llvm_ir::Function) -> Result<(), LowerError> {
        match self.misplaced_function_wide(func) {
            None => Ok(()),
            Some((ins, what)) => {
                let span = self.span_of(ins.get_debug_loc(), frame);
                let loc = span.in_main().or(span.top());
                Err(LowerError::Annotation { what, loc, stage: crate::lower::Stage::FrontEnd })
            }
        }
    }

    /// The first misplaced function-wide invariant of `func` and why (see
    /// [`Self::check_function_wide`]).
    pub(super) fn misplaced_function_wide<'f>(&self, func: &'f llvm_ir::Function) -> Option<(&'f llvm_ir::Instruction, String)> {
        use llvm_ir::Instruction as I;
        let defs: HashMap<&llvm_ir::Name, &I> =
            func.basic_blocks.iter().flat_map(|b| b.instrs.iter()).filter_map(|i| i.try_get_result().map(|n| (n, i))).collect();
        let is_annotation = |c: &Call| {
            self.callee_name(c).is_some_and(|n| {
                let d = function_name(&n);
                d.starts_with("__syncfix_") || d.starts_with("llvm.dbg.") || d.starts_with("llvm.lifetime.")
            })
        };
        for bb in &func.basic_blocks {
            for (at, ins) in bb.instrs.iter().enumerate() {
                let I::Call(c) = ins else { continue };
                if self.callee_name(c).map(|n| function_name(&n)) != Some("__syncfix_function_wide_invariant".to_string()) {
                    continue;
                }
                let reject = |what: String| Some((ins, what));
                // After it: only other annotations (calls of bodiless functions and the
                // computations of their arguments).
                let rest_ok = bb.instrs[at + 1..].iter().all(|i| match i {
                    I::Call(c) => {
                        self.callee_name(c).is_some_and(|n| self.functions.get(n.as_str()).is_none_or(|f| f.basic_blocks.is_empty()))
                    }
                    I::Store(_) | I::AtomicRMW(_) | I::CmpXchg(_) | I::Fence(_) | I::Alloca(_) => false,
                    _ => true,
                });
                if !rest_ok || !matches!(bb.term, llvm_ir::Terminator::Ret(_)) {
                    return reject("function-wide invariant must appear at the end of its function, after all its statements".into());
                }
                // The values the invariant's argument is computed from.
                let mut todo: Vec<&llvm_ir::Operand> = c.arguments.iter().map(|(a, _)| a).collect();
                let mut seen: Vec<&llvm_ir::Name> = vec![];
                while let Some(op) = todo.pop() {
                    let llvm_ir::Operand::LocalOperand { name, .. } = op else { continue };
                    if seen.contains(&name) {
                        continue;
                    }
                    seen.push(name);
                    let Some(def) = defs.get(name) else { continue }; // an argument
                    match def {
                        I::Phi(_) => {
                            return reject(
                                "function-wide invariant uses a value computed in the function body (a variable the function updates), which its loop heads do not see".into(),
                            )
                        }
                        I::Call(inner) if !is_annotation(inner) => {
                            let name = self.callee_name(inner).unwrap_or_default();
                            let has_body = self.functions.get(name.as_str()).is_some_and(|f| !f.basic_blocks.is_empty());
                            if has_body {
                                return reject(format!(
                                    "function-wide invariant calls `{}`, a function with a body (only built-in and uninterpreted functions may be used)",
                                    function_name(&name)
                                ));
                            }
                            todo.extend(inner.arguments.iter().map(|(a, _)| a));
                        }
                        other => todo.extend(operands_of(other)),
                    }
                }
            }
        }
        None
    }

    /// `__function_wide_invariant`s of a lowered function, checked at each of its loop heads.
    pub(crate) fn function_wide_invariants(&mut self, frame: &Frame, func: &llvm_ir::Function) -> Result<(), LowerError> {
        if frame.function_wide.is_empty() {
            return Ok(());
        }
        self.check_function_wide(frame, func)?;
        let pos: HashMap<&llvm_ir::Name, usize> = frame.order.iter().enumerate().map(|(i, n)| (n, i)).collect();
        let mut heads: Vec<&llvm_ir::Name> = vec![];
        for bb in &func.basic_blocks {
            let Some(&from) = pos.get(&bb.name) else { continue };
            for s in crate::lower::walk::successors(&bb.term) {
                if let Some(&to) = pos.get(s) {
                    if to <= from && !heads.contains(&s) {
                        heads.push(s);
                    }
                }
            }
        }
        for h in heads {
            let block = frame.blocks[h];
            // Emit into a scratch block, then move the instructions to the head's start.
            let scratch = self.kir.new_block();
            let span = self.kir.k.blocks[block]
                .insts
                .first()
                .map(|i| self.kir.k.insts[*i].span.clone())
                .unwrap_or_else(|| frame.call_site.clone());
            for (c, candidate) in frame.function_wide.clone() {
                let v = self.kir.reeval(c, &HashMap::new(), None, true, scratch, &span);
                let kind = if candidate {
                    InstKind::Candidate { cond: v }
                } else {
                    InstKind::Assert { cond: v, kind: AssertKind::LoopInvariant, global: false }
                };
                self.kir.push(scratch, kind, 0, &span);
            }
            let moved = std::mem::take(&mut self.kir.k.blocks[scratch].insts);
            self.kir.k.blocks[scratch].term = syncfix_kir::Terminator::Unreachable;
            for i in &moved {
                self.kir.k.insts[*i].block = block;
            }
            let insts = &mut self.kir.k.blocks[block].insts;
            let phis = insts.iter().take_while(|i| matches!(self.kir.k.insts[**i].kind, InstKind::Phi { .. })).count();
            let tail = insts.split_off(phis);
            insts.extend(moved);
            insts.extend(tail);
        }
        Ok(())
    }
}
