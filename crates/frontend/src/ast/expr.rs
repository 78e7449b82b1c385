//! What an expression statement is, as far as sites care: an assignment whose right-hand side
//! reads memory, or a read-modify-write of memory (a site can stand between the read and the
//! write, ARCHITECTURE.md "crates/instrument"), or a bare barrier call (removable,
//! ARCHITECTURE.md "crates/fix").

use super::json::{begin_of, end_of, flag, inner, kind, qual_type, str_field};
use super::json::{pos, Pos};
use super::scan;
use serde_json::Value;
use std::collections::HashSet;
use syncfix_kir::{BarrierCall, Branch, CopyCall, LocalDecl, ReadModifyWrite, Split, StmtId, TextRange};

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
        "CallExpr" if callee_name(e).is_some_and(|n| WORK_ITEM_FUNCTIONS.contains(&n)) => inner(e).iter().skip(1).any(has_side_effects),
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
    while matches!(kind(e), "ExprWithCleanups" | "ImplicitCastExpr" | "ParenExpr" | "ConstantExpr" | "CStyleCastExpr") {
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

/// Functions whose bare call statement is a copy that can be done in steps ([`CopyCall`]).
/// Not `memmove`: its source and destination may overlap, and a copy in steps would then
/// read bytes an earlier step wrote.
const COPY_FUNCTIONS: &[&str] = &["memcpy", "__builtin_memcpy"];

/// The [`CopyCall`] of an expression statement `expr` whose text is `src[range]`: a call of a
/// copy function spelled `F(DST, SRC, LEN);` with `F` one of their names (it may be a macro of
/// that name for another), whose length has no side effects (the steps evaluate it again).
pub(crate) fn copy_call(expr: &Value, src: &[u8], range: TextRange) -> Option<CopyCall> {
    let call = strip(expr);
    if kind(call) != "CallExpr" || !callee_name(call).is_some_and(|n| COPY_FUNCTIONS.contains(&n)) {
        return None;
    }
    let [_, _, _, len] = inner(call) else { return None };
    if has_side_effects(len) {
        return None;
    }
    let (callee, args) = scan::call_statement(src, range.start, range.end)?;
    // Spelled as a copy function (a macro `memcpy` for `__builtin_memcpy` included): another
    // macro could do anything with its arguments, and the steps repeat its name.
    if !std::str::from_utf8(&src[callee.clone()]).is_ok_and(|n| COPY_FUNCTIONS.contains(&n)) {
        return None;
    }
    let [dst, from, len] = args.as_slice() else { return None };
    let r = |r: &std::ops::Range<usize>| TextRange { start: r.start, end: r.end };
    Some(CopyCall { callee: r(&callee), dst: r(dst), src: r(from), len: r(len) })
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
        if !scan::only_token_between(self.src, lhs_end, start, op) || end <= start || end > expr_end || self.src.get(start) == Some(&b'{') {
            return None;
        }
        Some(Split { rhs: TextRange { start, end }, rhs_type: qual_type(rhs)?.to_owned(), rmw: None })
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

    /// An `if` statement's [`Branch`]: its condition `cond` (an expression node) and its
    /// recorded arms. `None` when the condition's text is not main-file text.
    pub(crate) fn branch(&self, cond: &Value, then_arm: Option<StmtId>, else_arm: Option<StmtId>) -> Option<Branch> {
        let (start, end) = (begin_of(cond, self.src)?, end_of(cond, self.src)?);
        if start >= end {
            return None;
        }
        let mut names = vec![];
        referenced_names(cond, &mut names);
        names.sort();
        names.dedup();
        Some(Branch {
            cond: TextRange { start, end },
            repeatable: !has_side_effects(cond) && !self.reads_memory_in(cond, true),
            names,
            then_arm,
            else_arm,
        })
    }

    /// The [`LocalDecl`] of a `DeclStmt` whose text is `range`: one local automatic variable.
    pub(crate) fn local_decl(&self, decl_stmt: &Value, range: TextRange) -> Option<LocalDecl> {
        let [var] = inner(decl_stmt) else { return None };
        if kind(var) != "VarDecl" || !str_field(var, "id").is_some_and(|id| self.locals.contains(id)) {
            return None;
        }
        let name = str_field(var, "name")?.to_owned();
        let Pos::Main { offset, len } = pos(var.get("loc")?) else { return None };
        let name_range = TextRange { start: offset, end: offset + len };
        let text = std::str::from_utf8(self.src).ok()?;
        if text.get(name_range.start..name_range.end)? != name || name_range.start < range.start || name_range.end > range.end {
            return None;
        }
        // The initializer: the VarDecl's last child when clang says it has one.
        let init = match (str_field(var, "init"), inner(var).last()) {
            (Some(_), Some(e)) => Some(TextRange { start: begin_of(e, self.src)?, end: end_of(e, self.src)? }),
            _ => None,
        };
        let prefix = text.get(range.start..name_range.start)?.trim();
        let ty = qual_type(var).unwrap_or("");
        let words: Vec<&str> = prefix.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        let plain = !prefix.is_empty()
            && !words.iter().any(|w| {
                matches!(
                    *w,
                    "constexpr"
                        | "auto"
                        | "static"
                        | "extern"
                        | "register"
                        | "thread_local"
                        | "__shared__"
                        | "__constant__"
                        | "__device__"
                        | "__local"
                        | "__constant"
                        | "__global"
                        | "local"
                        | "constant"
                        | "global"
                        | "decltype"
                        | "typeof"
                        | "__typeof__"
                        | "__auto_type"
                        | "volatile"
                )
            })
            && !prefix.contains(['&', '(', '[', ',', '='])
            && !ty.contains(['[', '&']);
        // A `const` variable is declared without it (it is assigned once, where it was
        // initialized); a pointer to const keeps its `const`, a const pointer cannot be hoisted.
        let prefix = if words.contains(&"const") {
            let top_level = ty.starts_with("const ") && !ty.contains('*');
            if top_level {
                without_word(prefix, "const")
            } else if ty.contains('*') && !ty.trim_end().ends_with("const") {
                prefix.to_owned()
            } else {
                return Some(LocalDecl { name, name_range, init, hoistable_type: None });
            }
        } else {
            prefix.to_owned()
        };
        // After the name: `;`, or `=` then the initializer (not braced) then `;`.
        let after = match init {
            Some(i) => {
                let between = text.get(name_range.end..i.start)?.trim();
                between == "=" && text.as_bytes().get(i.start) != Some(&b'{') && text.get(i.end..range.end)?.trim() == ";"
            }
            None => text.get(name_range.end..range.end)?.trim() == ";",
        };
        Some(LocalDecl { name, name_range, init, hoistable_type: (plain && after).then_some(prefix) })
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
        self.reads_memory_in(e, false)
    }

    /// [`SplitCx::reads_memory`]; with `ids_read_nothing`, OpenCL's work-item functions
    /// (`get_local_id(0)`) count as reading nothing, as CUDA's `threadIdx.x` does.
    fn reads_memory_in(&self, e: &Value, ids_read_nothing: bool) -> bool {
        match kind(e) {
            "CallExpr" if ids_read_nothing && callee_name(e).is_some_and(|n| WORK_ITEM_FUNCTIONS.contains(&n)) => {
                inner(e).iter().skip(1).any(|a| self.reads_memory_in(a, true))
            }
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
                    Some(d) if kind(d) == "DeclRefExpr" => d.get("referencedDecl").is_some_and(|d| self.is_memory_variable(d)),
                    Some(v) => self.reads_memory_in(v, ids_read_nothing),
                    None => false,
                }
            }
            _ => inner(e).iter().any(|c| self.reads_memory_in(c, ids_read_nothing)),
        }
    }
}

/// The name of the variable or parameter a `DeclRefExpr` refers to (`None` for a function, an
/// enumerator...).
fn variable_name(decl_ref: &Value) -> Option<&str> {
    decl_ref.get("referencedDecl").filter(|d| matches!(kind(d), "VarDecl" | "ParmVarDecl")).and_then(|d| str_field(d, "name"))
}

/// The names of the variables and parameters an expression refers to, in order of appearance
/// (with repeats).
fn referenced_names(e: &Value, out: &mut Vec<String>) {
    if kind(e) == "DeclRefExpr" {
        out.extend(variable_name(e).map(str::to_owned));
    }
    for c in inner(e) {
        referenced_names(c, out);
    }
}

/// The names of the variables and parameters that `e` (a statement or expression, with
/// everything in it) declares or uses other than to read their value: a `DeclRefExpr` that is
/// not the operand of an lvalue-to-rvalue conversion (through parentheses) is assigned,
/// incremented, has its address taken, is bound to a reference or has a member or element
/// accessed. `read`: `e` is the operand of such a conversion.
pub(crate) fn lvalue_names(e: &Value, read: bool, out: &mut Vec<String>) {
    match kind(e) {
        "DeclRefExpr" if !read => out.extend(variable_name(e).map(str::to_owned)),
        "VarDecl" => out.extend(str_field(e, "name").map(str::to_owned)),
        _ => {}
    }
    let to_rvalue = kind(e) == "ImplicitCastExpr" && str_field(e, "castKind") == Some("LValueToRValue");
    let keep = read && kind(e) == "ParenExpr";
    for c in inner(e) {
        lvalue_names(c, to_rvalue || keep, out);
    }
}

/// `text` without the whole word `word` (each occurrence), blanks around it collapsed.
fn without_word(text: &str, word: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let before_ok = !rest[..i].chars().next_back().is_some_and(ident);
        let after_ok = !rest[i + word.len()..].chars().next().is_some_and(ident);
        out.push_str(&rest[..i]);
        if !(before_ok && after_ok) {
            out.push_str(word);
        }
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
