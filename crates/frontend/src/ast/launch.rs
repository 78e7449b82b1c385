//! Kernel launches in host code (`k<<<grid, block, bytes>>>(...)`, clang's
//! `CUDAKernelCallExpr`): which kernel (instantiation) each launches, and the sizes of its
//! configuration where they are compile-time constants (DESIGN.md §3, "Whole programs": the
//! launch configuration from the host code, beyond GPUVerify, which needs flags).
//!
//! The configuration's expressions are evaluated over clang's AST, never guessed: integer
//! literals, `#define`d sizes (clang has expanded them), arithmetic with C++'s integer widths
//! and signedness, `?:`, enumerators, `dim3(...)` with its default 1s, and variables whose
//! value cannot change: `const`/`constexpr` ones with an initialiser, and local variables
//! (`int threads = 256;`, `dim3 grid(n / 256);`) that are only ever read after their
//! initialisation, or assigned only by plain assignment statements (`blocks = dim3(n / 64);`),
//! the last of which before the launch runs on every path to it (a statement of a block that
//! encloses the launch, no other assignment in a loop around it, and naming no variable that
//! is itself written). Anything else (a value read at run time, a call, `sizeof`) leaves that
//! dimension unknown (`None`).

use super::json::{begin_of, inner, kind, str_field};
use serde_json::Value;
use std::collections::HashMap;

/// One launch of a kernel from host code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchSite {
    /// The launched kernel's symbol (its mangled name; an instantiation's for a template).
    pub kernel_symbol: String,
    /// Threads per block in x, y, z; `None` where the size is not a compile-time constant.
    pub block: [Option<u32>; 3],
    /// Blocks in the grid in x, y, z; `None` where not constant.
    pub grid: [Option<u32>; 3],
    /// Dynamic shared memory in bytes (the third argument; 0 when not given).
    pub shared_bytes: Option<u64>,
    /// The 1-based line of the launch in the main file, if it is written there.
    pub line: Option<u32>,
    /// The user's header the launch is written in and its 1-based line, if it is in one.
    pub header: Option<(String, u32)>,
}

/// The launches in the translation unit `tu` whose main file's text is `src`, in document
/// order. Launches in function template patterns (dependent) are left out; their
/// instantiations are launches of their own.
pub(crate) fn launches(tu: &Value, src: &[u8]) -> Vec<LaunchSite> {
    let mut ix = Index { src, ..Index::default() };
    ix.walk(tu, &mut vec![]);
    let mut out = vec![];
    for (call, ancestors, loops) in &ix.calls {
        *ix.current.borrow_mut() = begin_of(call, src).map(|o| (o, ancestors.clone(), loops.clone()));
        if let Some(l) = ix.launch(call, src) {
            out.push(l);
        }
    }
    out
}

/// What the evaluation needs from the whole AST.
#[derive(Default)]
struct Index<'v> {
    /// Function declarations' ids and their symbols.
    symbols: HashMap<&'v str, &'v str>,
    /// Variables by id: their declaration.
    vars: HashMap<&'v str, &'v Value>,
    /// Variables by id that are used otherwise than read (written, address taken, passed by
    /// reference): their value may change after their initialisation.
    changed: HashMap<&'v str, bool>,
    /// Enumerators by id: their declaration.
    enumerators: HashMap<&'v str, &'v Value>,
    /// The `CUDAKernelCallExpr` nodes, each with the ids of its ancestors (innermost last)
    /// and of its enclosing loops.
    calls: Vec<(&'v Value, Vec<&'v str>, Vec<&'v str>)>,
    /// Local variables by id: the plain assignments to them (`v = e;`, `v = dim3(...)`) that
    /// are statements: the assignment node, its right-hand side, the compound statement it is
    /// a statement of and the ids of the loops that enclose it.
    assignments: HashMap<&'v str, Vec<Assignment<'v>>>,
    /// Local variables by id written otherwise than by such an assignment (or read in a way
    /// that may write them: address taken, passed by reference, a member written).
    written_otherwise: HashMap<&'v str, bool>,
    /// Local `dim3` variables by id: the assignments to one of their fields (`b.x = e;`) that
    /// are statements, with the field (0 for `x`, 1 for `y`, 2 for `z`).
    field_assignments: HashMap<&'v str, Vec<(usize, Assignment<'v>)>>,
    /// The launch being evaluated: its offset in the main file, its ancestors' and its
    /// enclosing loops' ids (for [`Index::reaching`]).
    current: std::cell::RefCell<Option<(usize, Vec<&'v str>, Vec<&'v str>)>>,
    /// The main file's text.
    src: &'v [u8],
}

/// A plain assignment to a local variable that is a statement of its own.
struct Assignment<'v> {
    node: &'v Value,
    rhs: &'v Value,
    /// The compound statement it is a statement of (`None`: a branch's statement, say).
    compound: Option<&'v str>,
    loops: Vec<&'v str>,
}

/// Whether `n` is a node that passes its operand's value (or object) through unchanged.
fn transparent(n: &Value) -> bool {
    match kind(n) {
        "ParenExpr" | "ExprWithCleanups" | "MaterializeTemporaryExpr" | "CXXBindTemporaryExpr" | "ConstantExpr" => true,
        "ImplicitCastExpr" => str_field(n, "castKind") == Some("NoOp"),
        _ => false,
    }
}

impl<'v> Index<'v> {
    fn walk(&mut self, n: &'v Value, parents: &mut Vec<&'v Value>) {
        let id = str_field(n, "id").unwrap_or("");
        match kind(n) {
            "FunctionDecl" | "CXXMethodDecl" => {
                if let Some(m) = str_field(n, "mangledName") {
                    self.symbols.insert(id, m);
                }
            }
            "VarDecl" => {
                self.vars.insert(id, n);
            }
            "EnumConstantDecl" => {
                self.enumerators.insert(id, n);
            }
            "CUDAKernelCallExpr" => {
                let ancestors: Vec<&str> = parents.iter().filter_map(|p| str_field(p, "id")).collect();
                let loops = parents.iter().filter(|p| is_loop(p)).filter_map(|p| str_field(p, "id")).collect();
                self.calls.push((n, ancestors, loops));
            }
            "DeclRefExpr" => {
                if let Some(r) = n.get("referencedDecl") {
                    if str_field(r, "kind") == Some("VarDecl") {
                        let var = str_field(r, "id").unwrap_or("");
                        let read = Self::only_read(parents);
                        *self.changed.entry(var).or_insert(false) |= !read;
                        if !read {
                            match (Self::assignment(n, parents), Self::field_assignment(n, parents)) {
                                (Some(a), _) => self.assignments.entry(var).or_default().push(a),
                                (None, Some(fa)) => self.field_assignments.entry(var).or_default().push(fa),
                                (None, None) => {
                                    self.written_otherwise.insert(var, true);
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        parents.push(n);
        for c in inner(n) {
            self.walk(c, parents);
        }
        parents.pop();
    }

    /// The plain assignment whose left-hand side is the `DeclRefExpr` `d` below `parents`
    /// (`v = e` of a scalar, or `dim3`'s `operator=`) as a statement (of a compound statement
    /// or not); `None` for any other write.
    fn assignment(d: &'v Value, parents: &[&'v Value]) -> Option<Assignment<'v>> {
        let mut up = parents.iter().rev().copied();
        let mut child = d;
        let mut p = up.next()?;
        while transparent(p) || (kind(p) == "ImplicitCastExpr" && str_field(p, "castKind") == Some("NoOp")) {
            child = p;
            p = up.next()?;
        }
        let rhs = match kind(p) {
            "BinaryOperator" if str_field(p, "opcode") == Some("=") => {
                let [l, r] = inner(p) else { return None };
                if !std::ptr::eq(l, child) {
                    return None;
                }
                r
            }
            "CXXOperatorCallExpr" => {
                // [the callee `operator=`, the left-hand side, the right-hand side].
                let args = inner(p);
                let callee = args.first()?;
                let named = |e: &Value| -> bool {
                    let mut e = e;
                    loop {
                        if kind(e) == "DeclRefExpr" {
                            return e.get("referencedDecl").and_then(|r| str_field(r, "name")) == Some("operator=");
                        }
                        match inner(e).first() {
                            Some(c) => e = c,
                            None => return false,
                        }
                    }
                };
                if args.len() != 3 || !named(callee) || !std::ptr::eq(&args[1], child) {
                    return None;
                }
                &args[2]
            }
            _ => return None,
        };
        // Whether the assignment is a statement of a compound statement (its parent, through
        // cleanups).
        let node = p;
        let mut q = up.next()?;
        while kind(q) == "ExprWithCleanups" {
            q = up.next()?;
        }
        let compound = if kind(q) == "CompoundStmt" { str_field(q, "id") } else { None };
        let loops = parents.iter().filter(|p| is_loop(p)).filter_map(|p| str_field(p, "id")).collect();
        Some(Assignment { node, rhs, compound, loops })
    }

    /// The assignment to a field of a `dim3` (`b.x = e;`, HeCBench's morphology) whose object
    /// is the `DeclRefExpr` `d` below `parents`, as a statement: the field and the assignment.
    fn field_assignment(d: &'v Value, parents: &[&'v Value]) -> Option<(usize, Assignment<'v>)> {
        let mut up = parents.iter().rev().copied().skip_while(|p| transparent(p));
        let member = up.next()?;
        if kind(member) != "MemberExpr" || crate::ast::json::flag(member, "isArrow") {
            return None;
        }
        let field = ["x", "y", "z"].iter().position(|f| str_field(member, "name") == Some(f))?;
        let ty = |n: &Value| {
            n.get("type").and_then(|t| t.get("desugaredQualType").or_else(|| t.get("qualType"))).and_then(Value::as_str).map(str::to_owned)
        };
        if ty(d).is_none_or(|t| t.trim_start_matches("struct ") != "dim3") {
            return None;
        }
        // The member is the left-hand side of a plain `=`.
        let at = parents.iter().rposition(|p| std::ptr::eq(*p, member))?;
        let a = Self::assignment(member, &parents[..at])?;
        Some((field, a))
    }

    /// The value a local variable `var` holds at the launch being evaluated, when plain
    /// assignments are its only writes: the right-hand side of the last one before the launch,
    /// provided that it is a statement of a compound statement enclosing the launch (so every
    /// path to the launch runs it) and that no other assignment to `var` lies in a loop that
    /// encloses the launch (which could run between it and a later iteration's launch).
    fn reaching(&self, var: &'v str, decl: &'v Value) -> Option<&'v Value> {
        if self.written_otherwise.get(var) == Some(&true) || !is_local(decl) || decl.get("storageClass").is_some() {
            return None;
        }
        let current = self.current.borrow();
        let (at, ancestors, loops) = current.as_ref()?;
        let all = self.assignments.get(var)?;
        let before: Vec<(usize, &Assignment<'v>)> =
            all.iter().filter_map(|a| begin_of(a.node, self.src).map(|o| (o, a))).filter(|(o, _)| o < at).collect();
        let (_, last) = before.iter().max_by_key(|(o, _)| *o)?;
        if !last.compound.is_some_and(|c| ancestors.contains(&c)) {
            return None;
        }
        let other_in_loop = all.iter().any(|a| !std::ptr::eq(a, *last) && a.loops.iter().any(|l| loops.contains(l)));
        if other_in_loop || all.iter().any(|a| begin_of(a.node, self.src).is_none()) {
            return None;
        }
        // The right-hand side is evaluated as at the launch: it may not name a variable that
        // is written anywhere (`n = 64; b = dim3(n); n = 128;`).
        if self.names_a_changed_variable(last.rhs) {
            return None;
        }
        Some(last.rhs)
    }

    /// Whether `e` names a variable that is written somewhere.
    fn names_a_changed_variable(&self, e: &Value) -> bool {
        if kind(e) == "DeclRefExpr" {
            let id = e.get("referencedDecl").filter(|r| str_field(r, "kind") == Some("VarDecl")).and_then(|r| str_field(r, "id"));
            if id.is_some_and(|id| self.changed.get(id) == Some(&true)) {
                return true;
            }
        }
        inner(e).iter().any(|c| self.names_a_changed_variable(c))
    }

    /// Whether a variable named by the `DeclRefExpr` below `parents` is only read there: its
    /// value converted to an rvalue, a field of it read, or an object copied from it.
    fn only_read(parents: &[&Value]) -> bool {
        let mut up = parents.iter().rev().copied().skip_while(|p| transparent(p));
        let mut first = match up.next() {
            Some(p) => p,
            None => return false,
        };
        if kind(first) == "MemberExpr" && !crate::ast::json::flag(first, "isArrow") {
            first = match up.find(|p| !transparent(p)) {
                Some(p) => p,
                None => return false,
            };
        }
        match kind(first) {
            "ImplicitCastExpr" => str_field(first, "castKind") == Some("LValueToRValue"),
            // A copy (dim3's copy constructor takes `const dim3 &`).
            "CXXConstructExpr" => first
                .get("ctorType")
                .and_then(|t| t.get("qualType"))
                .and_then(Value::as_str)
                .is_some_and(|t| t.contains("const") && t.contains('&') && !t.contains("&&")),
            _ => false,
        }
    }

    fn launch(&self, call: &'v Value, src: &[u8]) -> Option<LaunchSite> {
        let parts = inner(call);
        let callee = parts.first()?;
        let kernel_symbol = self.callee_symbol(callee)?.to_string();
        let config = parts.get(1)?;
        let args = inner(config);
        // args[0] is cudaConfigureCall itself: grid, block, shared bytes, stream follow.
        let grid = args.get(1).map_or([None; 3], |e| self.dim3(e, 0));
        let block = args.get(2).map_or([None; 3], |e| self.dim3(e, 0));
        let shared_bytes = match args.get(3) {
            Some(e) => self.int(e, 0).and_then(|v| u64::try_from(v).ok()),
            None => Some(0),
        };
        let line = begin_of(call, src).map(|o| 1 + src[..o].iter().filter(|b| **b == b'\n').count() as u32);
        let header = if line.is_none() { crate::ast::json::header_place(call) } else { None };
        Some(LaunchSite { kernel_symbol, block, grid, shared_bytes, line, header })
    }

    /// The symbol of the function a launch's callee expression names.
    fn callee_symbol(&self, e: &'v Value) -> Option<&'v str> {
        match kind(e) {
            "DeclRefExpr" => {
                let r = e.get("referencedDecl")?;
                self.symbols.get(str_field(r, "id")?).copied()
            }
            _ => inner(e).first().and_then(|c| self.callee_symbol(c)),
        }
    }

    /// A `dim3` expression's three sizes (each `None` when not constant); an integer converts
    /// to `dim3(n, 1, 1)`.
    fn dim3(&self, e: &'v Value, depth: u32) -> [Option<u32>; 3] {
        const UNKNOWN: [Option<u32>; 3] = [None; 3];
        if depth > 64 {
            return UNKNOWN;
        }
        let fit = |v: Option<i128>| v.and_then(|v| u32::try_from(v).ok());
        match kind(e) {
            "CXXConstructExpr" | "CXXTemporaryObjectExpr" => {
                let args = inner(e);
                let ty = e.get("ctorType").and_then(|t| t.get("qualType")).and_then(Value::as_str).unwrap_or("");
                if args.len() == 3 && !ty.contains('&') {
                    return [fit(self.int(&args[0], depth + 1)), fit(self.int(&args[1], depth + 1)), fit(self.int(&args[2], depth + 1))];
                }
                if args.len() == 1 {
                    return self.dim3(&args[0], depth + 1);
                }
                UNKNOWN
            }
            "ImplicitCastExpr" | "CXXFunctionalCastExpr" | "CStyleCastExpr" | "CXXStaticCastExpr"
                if str_field(e, "castKind") == Some("ConstructorConversion") =>
            {
                inner(e).first().map_or(UNKNOWN, |c| self.dim3(c, depth + 1))
            }
            _ if transparent(e) || matches!(kind(e), "CXXFunctionalCastExpr" | "CXXDefaultArgExpr") => {
                inner(e).first().map_or(UNKNOWN, |c| self.dim3(c, depth + 1))
            }
            "DeclRefExpr" => self.dim3_variable(e, depth),
            _ => match self.int(e, depth + 1) {
                Some(v) => [fit(Some(v)), Some(1), Some(1)],
                None => UNKNOWN,
            },
        }
    }

    /// The sizes a `dim3` variable holds at the launch: its value (initialiser or reaching
    /// assignment), with each field then assigned on its own (`b.x = e;`) taken from the last
    /// such assignment before the launch when it runs on every path to it (as [`Index::reaching`]
    /// decides for whole assignments); a field assigned otherwise is unknown.
    fn dim3_variable(&self, e: &'v Value, depth: u32) -> [Option<u32>; 3] {
        let id = e.get("referencedDecl").and_then(|r| str_field(r, "id")).unwrap_or("");
        let Some(fields) = self.field_assignments.get(id) else {
            return self.init_of(e).map_or([None; 3], |init| self.dim3(init, depth + 1));
        };
        let Some(var) = self.vars.get(id) else { return [None; 3] };
        if self.assignments.contains_key(id)
            || self.written_otherwise.get(id) == Some(&true)
            || !is_local(var)
            || var.get("storageClass").is_some()
        {
            return [None; 3];
        }
        let mut sizes = match inner(var).iter().rev().find(|c| !kind(c).ends_with("Attr")) {
            Some(init) => self.dim3(init, depth + 1),
            None => [None; 3],
        };
        let current = self.current.borrow();
        let Some((at, ancestors, loops)) = current.as_ref() else { return [None; 3] };
        for (f, size) in sizes.iter_mut().enumerate() {
            let all: Vec<&Assignment<'v>> = fields.iter().filter(|(g, _)| *g == f).map(|(_, a)| a).collect();
            if all.iter().any(|a| begin_of(a.node, self.src).is_none()) {
                *size = None;
                continue;
            }
            let before = all.iter().filter_map(|a| begin_of(a.node, self.src).filter(|o| o < at).map(|o| (o, *a)));
            let Some((_, last)) = before.max_by_key(|(o, _)| *o) else { continue };
            let other_in_loop = all.iter().any(|a| !std::ptr::eq(*a, last) && a.loops.iter().any(|l| loops.contains(l)));
            *size = if last.compound.is_some_and(|c| ancestors.contains(&c)) && !other_in_loop && !self.names_a_changed_variable(last.rhs) {
                self.int(last.rhs, depth + 1).and_then(|v| u32::try_from(v).ok())
            } else {
                None
            };
        }
        sizes
    }

    /// The initialiser of the variable a `DeclRefExpr` names, when its value cannot change.
    fn init_of(&self, e: &'v Value) -> Option<&'v Value> {
        let r = e.get("referencedDecl")?;
        let id = str_field(r, "id")?;
        let var = self.vars.get(id)?;
        let ty = var.get("type").and_then(|t| t.get("qualType")).and_then(Value::as_str).unwrap_or("");
        let constant = crate::ast::json::flag(var, "constexpr") || ty.starts_with("const ");
        // A variable that is not `const` counts only when it is local to a function (its uses
        // are all in this AST) and is only ever read: a global one may be changed by code in
        // another unit.
        let unchanged = is_local(var) && var.get("storageClass").is_none() && self.changed.get(id) == Some(&false);
        if !constant && !unchanged {
            return self.reaching(id, var);
        }
        // The initialiser is the declaration's expression child (attributes come first).
        inner(var).iter().rev().find(|c| !kind(c).ends_with("Attr"))
    }

    /// An integer expression's value, with C++'s width and signedness at each step.
    fn int(&self, e: &'v Value, depth: u32) -> Option<i128> {
        if depth > 256 {
            return None;
        }
        let v = match kind(e) {
            "IntegerLiteral" | "CharacterLiteral" => {
                str_field(e, "value")?.parse::<i128>().ok().or_else(|| e.get("value")?.as_i64().map(i128::from))?
            }
            "CXXBoolLiteralExpr" => i128::from(e.get("value")?.as_bool()?),
            "ConstantExpr" => match str_field(e, "value").and_then(|v| v.parse::<i128>().ok()) {
                Some(v) => v,
                None => self.int(inner(e).first()?, depth + 1)?,
            },
            "ParenExpr"
            | "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXFunctionalCastExpr"
            | "CXXDefaultArgExpr"
            | "ExprWithCleanups"
            | "MaterializeTemporaryExpr" => {
                if matches!(str_field(e, "castKind"), Some(k) if !matches!(k, "LValueToRValue" | "IntegralCast" | "NoOp" | "IntegralToBoolean"))
                {
                    return None;
                }
                self.int(inner(e).first()?, depth + 1)?
            }
            "UnaryOperator" => {
                let a = self.int(inner(e).first()?, depth + 1)?;
                match str_field(e, "opcode")? {
                    "-" => -a,
                    "+" => a,
                    "~" => !a,
                    "!" => i128::from(a == 0),
                    _ => return None,
                }
            }
            "BinaryOperator" => {
                let [l, r] = inner(e) else { return None };
                let op = str_field(e, "opcode")?;
                let a = self.int(l, depth + 1)?;
                if op == "&&" && a == 0 {
                    return Some(0);
                }
                if op == "||" && a != 0 {
                    return Some(1);
                }
                let b = self.int(r, depth + 1)?;
                match op {
                    "+" => a + b,
                    "-" => a - b,
                    "*" => a.checked_mul(b)?,
                    "/" => a.checked_div(b)?,
                    "%" => a.checked_rem(b)?,
                    "<<" => a.checked_shl(u32::try_from(b).ok().filter(|s| *s < 64)?)?,
                    ">>" => a >> u32::try_from(b).ok().filter(|s| *s < 64)?,
                    "&" => a & b,
                    "|" => a | b,
                    "^" => a ^ b,
                    "<" => i128::from(a < b),
                    ">" => i128::from(a > b),
                    "<=" => i128::from(a <= b),
                    ">=" => i128::from(a >= b),
                    "==" => i128::from(a == b),
                    "!=" => i128::from(a != b),
                    "&&" | "||" => i128::from(b != 0),
                    _ => return None,
                }
            }
            // A template parameter's value in an instantiation (`dim3 blocks(N / 2)` in
            // `template <int N> void run()`): the replacement, after the parameter's decl.
            "SubstNonTypeTemplateParmExpr" => self.int(inner(e).iter().rev().find(|c| !kind(c).ends_with("Decl"))?, depth + 1)?,
            "ConditionalOperator" => {
                let [c, t, f] = inner(e) else { return None };
                if self.int(c, depth + 1)? != 0 {
                    self.int(t, depth + 1)?
                } else {
                    self.int(f, depth + 1)?
                }
            }
            "DeclRefExpr" => {
                let r = e.get("referencedDecl")?;
                if str_field(r, "kind") == Some("EnumConstantDecl") {
                    let d = self.enumerators.get(str_field(r, "id")?)?;
                    return self.int(inner(d).first()?, depth + 1);
                }
                self.int(self.init_of(e)?, depth + 1)?
            }
            _ => return None,
        };
        wrap(v, e)
    }
}

/// Whether `n` is a loop statement.
fn is_loop(n: &Value) -> bool {
    matches!(kind(n), "ForStmt" | "WhileStmt" | "DoStmt" | "CXXForRangeStmt")
}

/// Whether a variable declaration is local to a function (clang marks none; a local one has
/// no mangled name).
fn is_local(var: &Value) -> bool {
    str_field(var, "mangledName").is_none()
}

/// `v` at the width and signedness of `e`'s type (`None` for a type that is not a known
/// integer type, which the value then does not fit).
fn wrap(v: i128, e: &Value) -> Option<i128> {
    let ty = e.get("type")?;
    let name = ty.get("desugaredQualType").or_else(|| ty.get("qualType")).and_then(Value::as_str)?;
    let name = name.trim_start_matches("const ").trim();
    let (bits, signed) = match name {
        "bool" => return Some(i128::from(v != 0)),
        "char" | "signed char" => (8, true),
        "unsigned char" => (8, false),
        "short" => (16, true),
        "unsigned short" => (16, false),
        "int" => (32, true),
        "unsigned int" => (32, false),
        "long" | "long long" => (64, true),
        "unsigned long" | "unsigned long long" => (64, false),
        _ => return None,
    };
    let m = v & ((1i128 << bits) - 1);
    Some(if signed && m >> (bits - 1) == 1 { m - (1i128 << bits) } else { m })
}
