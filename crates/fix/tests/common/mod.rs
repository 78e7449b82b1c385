//! Hand-built statement tables for the fix tests: ranges are found with `str::find` so that
//! they are exactly the bytes of the statement text.
#![allow(dead_code)]

use syncfix_fix::{apply_edits, build_fix, Change, Fix, FixError};
use syncfix_kir::{BarrierCall, CopyCall, Split, Stmt, StmtId, StmtKind, StmtTable, TextRange};

/// A source text and its statement table.
pub struct Kernel {
    pub src: String,
    pub table: StmtTable,
}

impl Kernel {
    pub fn new(src: &str) -> Kernel {
        Kernel { src: src.to_string(), table: StmtTable::default() }
    }

    /// The range of the `nth` (0-based) occurrence of `needle`.
    pub fn range_nth(&self, needle: &str, nth: usize) -> TextRange {
        let start =
            self.src.match_indices(needle).nth(nth).map(|(i, _)| i).unwrap_or_else(|| panic!("`{needle}` (#{nth}) not in the source"));
        TextRange { start, end: start + needle.len() }
    }

    pub fn range(&self, needle: &str) -> TextRange {
        self.range_nth(needle, 0)
    }

    /// Adds a statement of `kind` whose text is the `nth` occurrence of `needle`.
    pub fn add_nth(&mut self, kind: StmtKind, needle: &str, nth: usize) -> StmtId {
        let range = self.range_nth(needle, nth);
        self.add_range(kind, range)
    }

    pub fn add_range(&mut self, kind: StmtKind, range: TextRange) -> StmtId {
        self.table.stmts.push(Stmt::plain("k", kind, range))
    }

    /// An expression statement.
    pub fn stmt(&mut self, needle: &str) -> StmtId {
        self.add_nth(StmtKind::Expr, needle, 0)
    }

    /// An expression statement that is the body of an `if`/`for`/... without braces.
    pub fn sole(&mut self, needle: &str) -> StmtId {
        let id = self.stmt(needle);
        self.table.stmts[id].sole_body = true;
        id
    }

    /// A removable barrier call: the `nth` occurrence of `needle`.
    pub fn barrier_nth(&mut self, needle: &str, nth: usize) -> StmtId {
        let id = self.add_nth(StmtKind::Expr, needle, nth);
        self.table.stmts[id].barrier_call = Some(BarrierCall::Removable);
        id
    }

    pub fn barrier(&mut self, needle: &str) -> StmtId {
        self.barrier_nth(needle, 0)
    }

    /// An assignment statement `needle` whose right-hand side is the first occurrence of `rhs`
    /// after the `=` of the statement, of type `ty`.
    pub fn split(&mut self, needle: &str, rhs: &str, ty: &str) -> StmtId {
        let id = self.stmt(needle);
        let range = self.table.stmts[id].range;
        let eq = self.src[range.start..range.end].find('=').expect("an assignment") + range.start;
        let start = self.src[eq..range.end].find(rhs).expect("rhs in the statement") + eq;
        self.table.stmts[id].split = Some(Split { rhs: TextRange { start, end: start + rhs.len() }, rhs_type: ty.to_string(), rmw: None });
        id
    }

    /// A read-modify-write statement `needle` (`x++;`, `x op= e;`) on `lhs`, of type `ty`:
    /// `op` the binary operator, `operand` `e`'s text (`None` for `++`/`--`).
    pub fn read_modify_write(&mut self, needle: &str, lhs: &str, op: &str, operand: Option<&str>, ty: &str) -> StmtId {
        let id = self.stmt(needle);
        let range = self.table.stmts[id].range;
        let text = &self.src[range.start..range.end];
        let at = |t: &str| range.start + text.find(t).expect("in the statement");
        let a = at(lhs);
        let expr_end = range.start + text.trim_end_matches(';').len();
        let expr_start = range.start;
        let operand = operand.map(|o| {
            let s = at(o);
            TextRange { start: s, end: s + o.len() }
        });
        self.table.stmts[id].split = Some(Split {
            rhs: TextRange { start: a, end: a + lhs.len() },
            rhs_type: ty.to_string(),
            rmw: Some(syncfix_kir::ReadModifyWrite { expr: TextRange { start: expr_start, end: expr_end }, op: op.to_string(), operand }),
        });
        id
    }

    /// A copy call statement `needle` (`F(DST, SRC, LEN);`, arguments split at `, `).
    pub fn copy(&mut self, needle: &str) -> StmtId {
        let id = self.stmt(needle);
        let start = self.table.stmts[id].range.start;
        let open = needle.find('(').expect("a call");
        let close = needle.rfind(')').expect("a call");
        let mut at = start + open + 1;
        let mut args = vec![];
        for a in needle[open + 1..close].split(", ") {
            args.push(TextRange { start: at, end: at + a.len() });
            at += a.len() + 2;
        }
        let [dst, src, len] = args[..] else { panic!("three arguments") };
        self.table.stmts[id].copy = Some(CopyCall { callee: TextRange { start, end: start + open }, dst, src, len });
        id
    }

    pub fn set_parent(&mut self, child: StmtId, parent: StmtId) {
        self.table.stmts[child].parent = Some(parent);
        self.table.stmts[parent].children.push(child);
    }

    pub fn set_function(&mut self, id: StmtId, function: &str) {
        self.table.stmts[id].function = function.to_string();
    }

    pub fn build(&self, changes: &[Change]) -> Result<Fix, FixError> {
        build_fix(&self.src, &self.table, changes)
    }

    /// The patched text.
    pub fn fix(&self, changes: &[Change]) -> String {
        let fix = self.build(changes).expect("a fix");
        apply_edits(&self.src, &fix.edits).expect("edits apply")
    }
}
