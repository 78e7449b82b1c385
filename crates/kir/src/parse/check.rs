//! Consistency of a parsed kernel: every reference names something defined, and operand
//! widths fit their instruction (a hand-written kernel that breaks these would otherwise
//! fail later, in the verifier's solver, far from its cause).

use super::{ParseError, ParsedInst, Ref};
use crate::entity::{BlockId, InstId};
use crate::ir::*;
use cranelift_entity::EntityRef;
use std::collections::BTreeMap;

/// Every value, block and object named is defined (a value by a `vN:iW = ...` line).
pub(super) fn references(k: &Kernel, refs: &[(Ref, usize, usize)], values: &BTreeMap<InstId, usize>) -> Result<(), ParseError> {
    for &(r, line, col) in refs {
        let message = match r {
            Ref::Value(v) if !values.contains_key(&v) => format!("{v} is not defined (no line `{v}:iW = ...`)"),
            Ref::Block(b) if b.index() >= k.blocks.len() => format!("{b} is not defined"),
            Ref::Object(o) if o.index() >= k.objects.len() => format!("{o} is not declared"),
            _ => continue,
        };
        return Err(ParseError { line, col, message });
    }
    Ok(())
}

/// The widths an instruction's operands must have, given its own width `w`: (operand,
/// required width, what it is).
fn operand_widths(kind: &InstKind, w: u16) -> Vec<(Operand, u16, &'static str)> {
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
        InstKind::Load { ptr: p, .. } | InstKind::SpecLoad { ptr: p, .. } | InstKind::Permission { ptr: p, .. } | InstKind::Store { ptr: p, .. } | InstKind::Atomic { ptr: p, .. } | InstKind::AtomicTaken { ptr: p, .. } => ptr(&mut v, p),
        _ => {}
    }
    v
}

/// Whether the kind produces a value (and so needs `vN:iW =`). The match names every kind, so
/// that a kind added to KIR stops the build here until the parser reads it (`inst::inst_kind`).
fn has_value(kind: &InstKind) -> bool {
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
        | InstKind::AsyncWait => false,
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

/// Operand widths, value-producing kinds with a result, parameter indices.
pub(super) fn instructions(k: &Kernel, insts: &[ParsedInst]) -> Result<(), ParseError> {
    for p in insts {
        let (kind, w) = (&p.inst.kind, p.inst.width);
        let err = |message: String| Err(ParseError { line: p.line, col: p.col, message });
        if has_value(kind) && w == 0 {
            return err(format!("`{}` produces a value: write `vN:iW = {}`", p.text, p.text));
        }
        for (o, want, what) in operand_widths(kind, w) {
            if k.width(o) != want {
                return err(format!("{o} is i{}, but {what} of `{}` must be i{want}", k.width(o), p.text));
            }
        }
        match kind {
            InstKind::Cmp { lhs, rhs, .. } if k.width(*lhs) != k.width(*rhs) || w != 1 => {
                return err(format!("`{}` compares operands of one width and gives an i1", p.text));
            }
            InstKind::Cast { op, arg } => {
                let a = k.width(*arg);
                let ok = match op {
                    CastOp::ZExt | CastOp::SExt => a <= w,
                    CastOp::Trunc => a >= w,
                };
                if !ok {
                    return err(format!("`{}` casts an i{a} to an i{w}", p.text));
                }
            }
            InstKind::Param { index } => match k.params.get(*index).map(|p| &p.kind) {
                Some(ParamKind::Scalar { width }) if *width == w => {}
                Some(ParamKind::Scalar { width }) => return err(format!("parameter {index} is an i{width}, not an i{w}")),
                Some(ParamKind::Pointer(_)) => return err(format!("parameter {index} is a pointer, not a value")),
                None => return err(format!("there is no parameter {index}")),
            },
            _ => {}
        }
    }
    Ok(())
}

/// A conditional branch tests an i1.
pub(super) fn terminators(k: &Kernel, terms: &[(BlockId, (usize, usize))]) -> Result<(), ParseError> {
    for &(b, (line, col)) in terms {
        if let Terminator::CondBr { cond, .. } = &k.blocks[b].term {
            if k.width(*cond) != 1 {
                return Err(ParseError { line, col, message: format!("the condition {cond} of `br` is i{}, not i1", k.width(*cond)) });
            }
        }
    }
    Ok(())
}
