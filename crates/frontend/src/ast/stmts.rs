//! The statement table: every statement of a main-file function body that can anchor a site.
//!
//! Recorded: the members of compound statements, `if` arms, loop bodies, and the statement
//! under a `case`/`default`/label (the label itself is not recorded). Not recorded: anything
//! inside an expression, and any statement whose text is not main-file text (one that begins
//! or ends inside a macro expansion); a statement that merely *uses* a macro is kept, and so is
//! one that begins or ends with a whole macro invocation (`__shared__ int s[8];`, `x = N;`).

use super::expr::{self, SplitCx};
use super::json::{begin_of, end_of, flag, inner, kind};
use super::scan;
use serde_json::Value;
use syncfix_kir::{Stmt, StmtId, StmtKind, StmtTable, TextRange};

/// The kind of a statement node, `None` for nodes that are not recorded.
fn stmt_kind(k: &str) -> Option<StmtKind> {
    Some(match k {
        "CompoundStmt" => StmtKind::Compound,
        "DeclStmt" => StmtKind::Decl,
        "IfStmt" => StmtKind::If,
        "ForStmt" | "CXXForRangeStmt" => StmtKind::For,
        "WhileStmt" => StmtKind::While,
        "DoStmt" => StmtKind::Do,
        "SwitchStmt" => StmtKind::Switch,
        "ReturnStmt" => StmtKind::Return,
        "BreakStmt" => StmtKind::Break,
        "ContinueStmt" => StmtKind::Continue,
        "NullStmt" => StmtKind::Null,
        "GotoStmt" | "IndirectGotoStmt" | "GCCAsmStmt" | "CoreturnStmt" | "CXXTryStmt" => StmtKind::Other,
        _ if is_expr(k) => StmtKind::Expr,
        _ => return None,
    })
}

/// Whether a node kind is an expression (an expression statement when it stands as one).
fn is_expr(k: &str) -> bool {
    k.ends_with("Expr") || k.ends_with("Operator") || k.ends_with("Literal") || k == "ExprWithCleanups"
}

/// Whether a node is a label (`case`, `default`, `name:`) whose last child is its statement.
fn is_label(k: &str) -> bool {
    matches!(k, "LabelStmt" | "CaseStmt" | "DefaultStmt")
}

/// The statement under a chain of labels.
fn strip_labels(mut node: &Value) -> &Value {
    while is_label(kind(node)) {
        match inner(node).last() {
            Some(sub) => node = sub,
            None => break,
        }
    }
    node
}

/// Records the statements of function bodies into a table.
pub(crate) struct Recorder<'a> {
    /// The main file's text (`cx.src` is its bytes).
    pub text: &'a str,
    pub cx: SplitCx<'a>,
    pub table: StmtTable,
}

impl Recorder<'_> {
    /// Where a statement fully ends: after its `;` or `}`, or where its last sub-statement
    /// fully ends. `None` if that is not main-file text.
    fn full_end(&self, node: &Value) -> Option<usize> {
        let src = self.cx.src;
        match kind(node) {
            "AttributedStmt" | "LabelStmt" | "CaseStmt" | "DefaultStmt" | "IfStmt" | "ForStmt" | "CXXForRangeStmt" | "WhileStmt"
            | "SwitchStmt" => self.full_end(inner(node).last()?),
            "CompoundStmt" | "DeclStmt" | "NullStmt" | "CXXTryStmt" => end_of(node, src),
            "DoStmt" | "ReturnStmt" | "BreakStmt" | "ContinueStmt" | "GotoStmt" | "IndirectGotoStmt" | "GCCAsmStmt" | "CoreturnStmt" => {
                scan::semicolon_after(src, end_of(node, src)?)
            }
            k if is_expr(k) => scan::semicolon_after(src, end_of(node, src)?),
            _ => None,
        }
    }

    /// Where the text of an AST child ends as far as its next sibling is concerned: its full
    /// end, or its last token's end when it is not recorded, or `None` outside the main file.
    fn extent_end(&self, node: &Value) -> Option<usize> {
        self.full_end(node).or_else(|| end_of(node, self.cx.src))
    }

    /// Records a function body's members (with no parent: the body itself is not recorded).
    pub(crate) fn record_body(&mut self, function: &str, body: &Value) {
        let (Some(start), Some(end)) = (begin_of(body, self.cx.src), end_of(body, self.cx.src)) else {
            return;
        };
        if kind(body) == "CompoundStmt" && start < end {
            self.record_members(function, body, None, start + 1, end);
        }
    }

    /// Records the members of a compound statement, each starting at or after `lower` and
    /// ending by `upper`. Returns the recorded ones.
    fn record_members(&mut self, function: &str, compound: &Value, parent: Option<StmtId>, mut lower: usize, upper: usize) -> Vec<StmtId> {
        let mut ids = Vec::new();
        for member in inner(compound) {
            let stmt = strip_labels(member);
            ids.extend(self.record(function, stmt, parent, false, lower, upper));
            if let Some(e) = self.extent_end(member) {
                lower = lower.max(e);
            }
        }
        ids
    }

    /// Records a statement standing in a single-statement slot (an `if` arm, a loop body).
    fn record_slot(&mut self, function: &str, node: &Value, parent: StmtId, lower: usize, upper: usize) -> Option<StmtId> {
        self.record(function, strip_labels(node), Some(parent), true, lower, upper)
    }

    /// Records `node` (and the statements under it) if its text is main-file text lying in
    /// `[lower, upper)`. `slot`: it is an arm or loop body (not a compound member).
    fn record(&mut self, function: &str, node: &Value, parent: Option<StmtId>, slot: bool, lower: usize, upper: usize) -> Option<StmtId> {
        // `[[likely]] s` and `#pragma unroll` loops are attributed statements: the recorded
        // statement starts at the attribute (or pragma) and is of its sub-statement's kind.
        let mut stmt = node;
        while kind(stmt) == "AttributedStmt" {
            stmt = inner(stmt).last()?;
        }
        let stmt_kind = stmt_kind(kind(stmt))?;
        let start = begin_of(node, self.cx.src)?;
        let end = self.full_end(stmt)?;
        let text = self.text;
        if start < lower || end > upper || start >= end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return None;
        }
        let id = self.table.stmts.push(Stmt {
            function: function.to_owned(),
            kind: stmt_kind,
            range: TextRange { start, end },
            parent,
            children: Vec::new(),
            sole_body: slot && stmt_kind != StmtKind::Compound,
            loop_body_start: false,
            split: None,
            barrier_call: None,
            branch: None,
            local: None,
            lvalues: Vec::new(),
            copy: None,
        });
        let src = self.cx.src;
        let kids = inner(stmt);
        let mut children = Vec::new();
        match stmt_kind {
            StmtKind::Compound => children = self.record_members(function, stmt, Some(id), start + 1, end),
            StmtKind::If => {
                let has_else = flag(stmt, "hasElse");
                if let Some(then_at) = kids.len().checked_sub(1 + has_else as usize) {
                    // The condition is the child just before the `then` arm.
                    let mut lower = then_at.checked_sub(1).and_then(|c| end_of(&kids[c], src));
                    let lower_then = lower.unwrap_or(start);
                    let then_arm = self.record_slot(function, &kids[then_at], id, lower_then, end);
                    children.extend(then_arm);
                    lower = self.extent_end(&kids[then_at]).map(|e| e.max(lower_then));
                    let mut else_arm = None;
                    if let (true, Some(lower), Some(arm)) = (has_else, lower, kids.last()) {
                        else_arm = self.record_slot(function, arm, id, lower, end);
                        children.extend(else_arm);
                    }
                    // `if (init; cond)` and `if (T v = e)` have more children: no branch.
                    if then_at == 1 && !flag(stmt, "hasInit") && !flag(stmt, "hasVar") {
                        self.table.stmts[id].branch = self.cx.branch(&kids[0], then_arm, else_arm);
                    }
                }
            }
            StmtKind::Decl => self.table.stmts[id].local = self.cx.local_decl(stmt, TextRange { start, end }),
            StmtKind::For | StmtKind::While | StmtKind::Do | StmtKind::Switch => {
                let body_and_lower = if stmt_kind == StmtKind::Do {
                    kids.first().map(|b| (b, start + 1))
                } else {
                    // The body follows the last of the other children (the condition, the
                    // increment, ...) that has a main-file end.
                    let before = kids[..kids.len().saturating_sub(1)].iter().rev();
                    let lower = before.filter_map(|c| end_of(c, src)).next().unwrap_or(start);
                    kids.last().map(|b| (b, lower))
                };
                if let Some((body, lower)) = body_and_lower {
                    children = self.record_loop_or_switch_body(function, id, stmt_kind, body, lower, end);
                }
            }
            StmtKind::Expr => {
                // `full_end` succeeded, so the expression's own end is known.
                if let Some(expr_end) = end_of(stmt, src) {
                    self.table.stmts[id].split = self.cx.split(stmt, expr_end);
                }
                self.table.stmts[id].barrier_call = expr::barrier_call(stmt);
                self.table.stmts[id].copy = expr::copy_call(stmt, src, TextRange { start, end });
            }
            _ => {}
        }
        self.table.stmts[id].children = children;
        let mut lvalues = vec![];
        expr::lvalue_names(stmt, false, &mut lvalues);
        lvalues.sort();
        lvalues.dedup();
        self.table.stmts[id].lvalues = lvalues;
        Some(id)
    }

    /// Records the body of a loop or a switch; returns the recorded children of the loop or
    /// switch `id`. Marks the first statement of a loop body: the body itself when it is a
    /// sole statement, else the compound's first recorded member.
    fn record_loop_or_switch_body(
        &mut self,
        function: &str,
        id: StmtId,
        stmt_kind: StmtKind,
        body: &Value,
        lower: usize,
        end: usize,
    ) -> Vec<StmtId> {
        if stmt_kind == StmtKind::Switch && kind(body) == "CompoundStmt" {
            // The switch's braces are not a statement of their own (a marker before them
            // would become the switch's body): their members are the switch's children.
            return match begin_of(body, self.cx.src) {
                Some(b) if b >= lower => self.record_members(function, body, Some(id), b + 1, end),
                _ => Vec::new(),
            };
        }
        let Some(b) = self.record_slot(function, body, id, lower, end) else {
            return Vec::new();
        };
        if stmt_kind.is_loop() {
            let first = match self.table.stmts[b].kind {
                StmtKind::Compound => self.table.stmts[b].children.first().copied(),
                _ => Some(b),
            };
            if let Some(f) = first {
                self.table.stmts[f].loop_body_start = true;
            }
        }
        vec![b]
    }
}
