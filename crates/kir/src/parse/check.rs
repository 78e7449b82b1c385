//! Consistency of a parsed kernel: every reference names something defined, and operand
//! widths fit their instruction (a hand-written kernel that breaks these would otherwise
//! fail later, in the verifier's solver, far from its cause).

use super::{ParseError, ParsedInst, Ref};
use crate::check::{has_value, operand_widths};
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

/// Every statement a statement names (its parent, children, branch arms) is in the table.
pub(super) fn statements(k: &Kernel, lines: &[usize]) -> Result<(), ParseError> {
    let n = k.stmts.stmts.len();
    for ((id, st), &line) in k.stmts.stmts.iter().zip(lines) {
        let named = st
            .parent
            .iter()
            .chain(&st.children)
            .chain(st.branch.as_ref().and_then(|b| b.then_arm.as_ref()))
            .chain(st.branch.as_ref().and_then(|b| b.else_arm.as_ref()));
        if let Some(bad) = named.into_iter().find(|s| s.index() >= n) {
            return Err(ParseError { line, col: 3, message: format!("{id} names statement {} of {n}", bad.index()) });
        }
    }
    Ok(())
}
