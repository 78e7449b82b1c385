//! What an expression statement is, as far as sites care: an assignment whose right-hand side
//! reads memory, or a read-modify-write of memory (a site can stand between the read and the
//! write, ARCHITECTURE.md "crates/instrument"), or a bare barrier call (removable,
//! ARCHITECTURE.md "crates/fix").

use super::json::{begin_of, end_of, flag, inner, kind, qual_type, str_field};
use super::scan;
use serde_json::Value;
use std::collections::HashSet;
use syncfix_kir::{BarrierCall, ReadModifyWrite, Split, TextRange};

/// Free functions whose bare call statement is a barrier.
const BARRIER_FUNCTIONS: &[&str] = &["__syncthreads", "barrier", "work_group_barrier", "synchronize"];
/// Member functions whose bare call statement is a barrier (`grid_group`, `thread_block`).
const BARRIER_MEMBERS: &[&str] = &["sync"];

/// OpenCL's work-item functions: calls without side effects.
const WORK_ITEM_FUNCTIONS: &[&str] = &[
    "get_global_id",
    "get_local_id",
    "get_group_id",
    "get_global_size",
    "get_local_size",
    "get_num_groups",
    "get_work_dim",
    "get_global_offset",
];

/// Whether evaluating `e` may change state: a call (other than OpenCL's work-item functions;
/// CUDA's `threadIdx.x` is a pseudo-object), an assignment, `++`/`--`.
fn has_side_effects(e: &Value) -> bool {
    match kind(e) {
        "PseudoObjectExpr" => false,
        "CallExpr" if callee_name(e).is_some_and(|n| WORK_ITEM_FUNCTIONS.contains(&n)) => {
            inner(e).iter().skip(1).any(has_side_effects)
        }
        "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" | "CompoundAssignOperator" | "StmtExpr" => true,
        "BinaryOperator" if str_field(e, "opcode") == Some("=") => true,
        "UnaryOperator" if matches!(str_field(e, "opcode"), Some("++" | "--")) => true,
        _ => inner(e).iter().any(has_side_effects),
    }
}

/// The callee of a call expression, through implicit casts and parentheses.
fn callee(call: &Value) -> Option<&Value> {
    let mut callee = inner(call).first()?;
    while matches!(kind(callee), "ImplicitCastExpr" | "ParenExpr") {
        callee = inner(callee).first()?;
    }
    Some(callee)
}

/// The name of the function a call expression calls directly.
fn callee_name(call: &Value) -> Option<&str> {
    let callee = callee(call)?;
    (kind(callee) == "DeclRefExpr").then(|| callee.get("referencedDecl").and_then(|d| str_field(d, "name")))?
}

/// Looks through the nodes clang wraps around an expression statement's expression.
fn strip(mut e: &Value) -> &Value {
    while matches!(
        kind(e),
        "ExprWithCleanups" | "ImplicitCastExpr" | "ParenExpr" | "ConstantExpr" | "CStyleCastExpr"
    ) {
        match inner(e).first() {
            Some(next) => e = next,
            None => break,
        }
    }
    e
}

/// Whether a reference type is spelled (`int &`, `int (&)[3]`, `T &&`).
pub(crate) fn is_reference(ty: &str) -> bool {
    ty.trim_end().ends_with('&') || ty.contains("(&")
}

/// Whether an expression statement's expression is a call of a barrier function.
pub(crate) fn barrier_call(expr: &Value) -> Option<BarrierCall> {
    let call = strip(expr);
    let is_member_call = kind(call) == "CXXMemberCallExpr";
    if kind(call) != "CallExpr" && !is_member_call {
        return None;
    }
    let callee = callee(call)?;
    let (name, member) = match kind(callee) {
        "DeclRefExpr" => (callee.get("referencedDecl").and_then(|d| str_field(d, "name"))?, false),
        "UnresolvedLookupExpr" => (str_field(callee, "name")?, false),
        "MemberExpr" | "UnresolvedMemberExpr" => (str_field(callee, "name")?, true),
        "CXXDependentScopeMemberExpr" => (str_field(callee, "member")?, true),
        _ => return None,
    };
    let names = if member { BARRIER_MEMBERS } else { BARRIER_FUNCTIONS };
    names.contains(&name).then_some(BarrierCall::Removable)
}

/// Context of the split analysis.
pub(crate) struct SplitCx<'a> {
    /// The main file's text.
    pub src: &'a [u8],
    /// Ids of the function-local automatic variables (not static, not shared, not references).
    pub locals: &'a HashSet<String>,
}

impl SplitCx<'_> {
    /// The split of an expression statement `expr` whose text ends at `expr_end` (before the
    /// `;`), if it is an assignment to memory whose right-hand side reads memory.
    ///
    /// A read-modify-write of memory (`x++`, `--x`, `x op= e` where `e` reads no memory) gets a
    /// split with [`ReadModifyWrite`]: `x` is read before the barrier and written after it.
    pub(crate) fn split(&self, expr: &Value, expr_end: usize) -> Option<Split> {
        let assign = strip(expr);
        let op = match kind(assign) {
            "BinaryOperator" if str_field(assign, "opcode") == Some("=") => "=",
            "CompoundAssignOperator" => str_field(assign, "opcode")?,
            "UnaryOperator" => return self.read_modify_write(assign, expr_end),
            _ => return None,
        };
        let [lhs, rhs] = inner(assign) else { return None };
        if op != "=" && !self.is_private_lvalue(lhs) && !self.reads_memory(rhs) {
            return self.read_modify_write(assign, expr_end);
        }
        if self.is_private_lvalue(lhs) || !self.reads_memory(rhs) {
            return None;
        }
        let lhs_end = end_of(lhs, self.src)?;
        let start = begin_of(rhs, self.src)?;
        let end = end_of(rhs, self.src)?;
        // The operator must be spelled between the sides (so no macro hides part of either),
        // and a braced initializer cannot be hoisted into a temporary.
        if !scan::only_token_between(self.src, lhs_end, start, op)
            || end <= start
            || end > expr_end
            || self.src.get(start) == Some(&b'{')
        {
            return None;
        }
        Some(Split {
            rhs: TextRange { start, end },
            rhs_type: qual_type(rhs)?.to_owned(),
            rmw: None,
        })
    }

    /// The split of `x++`, `x--`, `++x`, `--x` or `x op= e` (`e` reading no memory) on memory
    /// `x` whose evaluation has no side effect (the fix spells `x` twice), every token of the
    /// expression in the main file's text; `None` otherwise.
    fn read_modify_write(&self, e: &Value, expr_end: usize) -> Option<Split> {
        let opcode = str_field(e, "opcode")?;
        let (lhs, operand, op) = match kind(e) {
            "UnaryOperator" if matches!(opcode, "++" | "--") => (inner(e).first()?, None, &opcode[..1]),
            "CompoundAssignOperator" => {
                let [lhs, rhs] = inner(e) else { return None };
                (lhs, Some(rhs), opcode.strip_suffix('=')?)
            }
            _ => return None,
        };
        let ty = qual_type(lhs)?;
        if self.is_private_lvalue(lhs) || has_side_effects(lhs) || ty == "bool" || ty == "_Bool" {
            return None;
        }
        let (a, b) = (begin_of(lhs, self.src)?, end_of(lhs, self.src)?);
        let (s, e_end) = (begin_of(e, self.src)?, end_of(e, self.src)?);
        if !(s <= a && a < b && b <= e_end && e_end <= expr_end) {
            return None;
        }
        let operand = match operand {
            None if flag(e, "isPostfix") => scan::only_token_between(self.src, b, e_end, opcode).then_some(None)?,
            None => (scan::only_token_between(self.src, s, a, opcode) && b == e_end).then_some(None)?,
            Some(rhs) => {
                let (rs, re) = (begin_of(rhs, self.src)?, end_of(rhs, self.src)?);
                (s == a && re == e_end && rs < re && scan::only_token_between(self.src, b, rs, opcode))
                    .then_some(Some(TextRange { start: rs, end: re }))?
            }
        };
        Some(Split {
            rhs: TextRange { start: a, end: b },
            rhs_type: ty.to_owned(),
            rmw: Some(ReadModifyWrite { expr: TextRange { start: s, end: e_end }, op: op.to_owned(), operand }),
        })
    }

    /// Whether an lvalue denotes private memory of the thread: a local automatic variable or
    /// parameter, a field of one, an element of a local array.
    fn is_private_lvalue(&self, lv: &Value) -> bool {
        match kind(lv) {
            "ParenExpr" => inner(lv).first().is_some_and(|e| self.is_private_lvalue(e)),
            "DeclRefExpr" => lv.get("referencedDecl").is_some_and(|d| self.is_private_decl(d)),
            "MemberExpr" if !flag(lv, "isArrow") => inner(lv).first().is_some_and(|e| self.is_private_lvalue(e)),
            "ArraySubscriptExpr" => inner(lv).iter().any(|e| {
                kind(e) == "ImplicitCastExpr"
                    && str_field(e, "castKind") == Some("ArrayToPointerDecay")
                    && inner(e).first().is_some_and(|a| self.is_private_lvalue(a))
            }),
            _ => false,
        }
    }

    /// Whether a `referencedDecl` is a local automatic variable or a parameter (by value).
    fn is_private_decl(&self, decl: &Value) -> bool {
        match kind(decl) {
            "ParmVarDecl" => !qual_type(decl).is_some_and(is_reference),
            "VarDecl" => str_field(decl, "id").is_some_and(|id| self.locals.contains(id)),
            _ => false,
        }
    }

    /// Whether a `referencedDecl` is a variable in memory that may change: not local
    /// automatic, not `const`.
    fn is_memory_variable(&self, decl: &Value) -> bool {
        kind(decl) == "VarDecl"
            && !self.is_private_decl(decl)
            && !qual_type(decl).is_some_and(|t| t.starts_with("const ") || t.contains("__constant"))
    }

    /// Whether evaluating `e` may read memory: an array subscript, a dereference, an `->`
    /// member, a call, or the value of a variable that is not a local automatic one (a global, a shared or
    /// static variable), unless it is `const`. `sizeof`, lambda bodies and clang's built-in
    /// index variables (`threadIdx.x`, a pseudo-object) read nothing.
    fn reads_memory(&self, e: &Value) -> bool {
        match kind(e) {
            "PseudoObjectExpr" | "LambdaExpr" | "UnaryExprOrTypeTraitExpr" => false,
            "ArraySubscriptExpr" | "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" => true,
            "UnaryOperator" if str_field(e, "opcode") == Some("*") => true,
            "MemberExpr" | "CXXDependentScopeMemberExpr" if flag(e, "isArrow") => true,
            "ImplicitCastExpr" if str_field(e, "castKind") == Some("LValueToRValue") => {
                let mut v = inner(e).first();
                while let Some(p) = v.filter(|p| kind(p) == "ParenExpr") {
                    v = inner(p).first();
                }
                match v {
                    Some(d) if kind(d) == "DeclRefExpr" => {
                        d.get("referencedDecl").is_some_and(|d| self.is_memory_variable(d))
                    }
                    Some(v) => self.reads_memory(v),
                    None => false,
                }
            }
            _ => inner(e).iter().any(|c| self.reads_memory(c)),
        }
    }
}
