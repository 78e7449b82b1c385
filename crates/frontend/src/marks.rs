//! The *marked* copy of the user's source: a marker call before every recorded statement, so
//! that the LLVM IR compiled from it shows exactly where each statement begins (ARCHITECTURE.md,
//! "crates/frontend": `marks`; the statements are the places of barrier sites, "crates/instrument").
//!
//! - Before statement `N`: `__syncfix_anchor(N);` (N = the `StmtId` index). A statement that
//!   stands alone as an `if`/`else`/loop body gets braces around the marker and itself:
//!   `if (c) {__syncfix_anchor(4); x = 1;}`. A statement that begins with a `#pragma` line
//!   (`#pragma unroll` + loop) gets its marker after the previous token instead, since the
//!   pragma must start its line and apply to the loop.
//! - Before the `}` closing a loop's braced body: `__syncfix_anchor_end(N);` (N = the loop
//!   statement), the end of each iteration.
//! - Around the right-hand side of an assignment with a [`Split`](syncfix_kir::Split):
//!   `({ __auto_type __syncfix_v = (RHS); __syncfix_split(N); __syncfix_v; })`, which clang-19
//!   accepts in CUDA (C++) and OpenCL C alike.
//!
//! - A read-modify-write ([`ReadModifyWrite`](syncfix_kir::ReadModifyWrite)) becomes what the
//!   fix prints, `x = tmp op e`, with the operator's own tokens in comments:
//!   `x++` → `({ __auto_type __syncfix_v = (x); __syncfix_split(N); (x) = __syncfix_v + 1; }) /*++*/`,
//!   `++x` → `({ /*++*/ __auto_type __syncfix_v = (x); ...; })`,
//!   `x op= e` → `({ __auto_type __syncfix_v = (x); __syncfix_split(N); (x) = __syncfix_v op (/* op= */e); })`.
//!   The write's locations map to the end of `x`.
//!
//! The marker functions are declared by our preludes (`void __syncfix_anchor(int);` and
//! `void __syncfix_split(int);`). Insertions never contain newlines: a line of the marked text
//! is the same line of the original, and [`Marked::to_original`] only shifts columns.

use crate::ast::scan;
use syncfix_kir::{EntityRef, StmtId, StmtKind, StmtTable};

/// The marked text and the insertions that made it.
#[derive(Clone, Debug)]
pub struct Marked {
    /// The marked source text.
    pub text: String,
    /// Insertions in text order: original byte offset and inserted length in bytes.
    insertions: Vec<(usize, usize)>,
    /// Byte offsets at which the original's lines start.
    line_starts: Vec<usize>,
}

/// Whether an insertion before statement `id` must add braces around it: it is a sole
/// `if`/`else`/loop body, or the compound body of an `if`/`else`/loop (a statement put
/// before it would become the body). `false` for an id not in the table.
pub fn needs_braces(stmts: &StmtTable, id: StmtId) -> bool {
    let Some(s) = stmts.stmts.get(id) else { return false };
    let parent_kind = s.parent.and_then(|p| stmts.stmts.get(p)).map(|p| p.kind);
    s.sole_body
        || (s.kind == StmtKind::Compound && matches!(parent_kind, Some(StmtKind::If | StmtKind::For | StmtKind::While | StmtKind::Do)))
}

/// One piece of inserted text.
struct Insertion {
    at: usize,
    /// 0: closing text (before anything that opens at the same offset), 1: opening text.
    phase: u8,
    /// Closings inner-to-outer (deepest first), openings outer-to-inner.
    order: i64,
    text: String,
}

/// Writes the marked copy of `source` for the statements of `stmts` (see the module doc).
///
/// `stmts` must come from [`crate::ast::parse_ast`] on this `source`; a statement or split
/// whose range does not fit the text is left unmarked rather than misplaced.
pub fn mark_source(source: &str, stmts: &StmtTable) -> Marked {
    mark_source_except(source, stmts, &|_| Skip::Nothing)
}

/// Which marks of a statement [`mark_source_except`] leaves out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    Nothing,
    /// The split of its assignment (`__syncfix_split`).
    Split,
    /// All of them: anchor, braces and split.
    All,
}

/// [`mark_source`] without the marks `skip` gives for each statement: the driver leaves out
/// marks that clang rejects (a split of an expression that a macro ends with a `;`, say), so
/// that a statement clang cannot take marked costs sites, never the verification.
pub fn mark_source_except(source: &str, stmts: &StmtTable, skip: &dyn Fn(StmtId) -> Skip) -> Marked {
    let src = source.as_bytes();
    let fits = |start: usize, end: usize| start < end && end <= src.len() && source.is_char_boundary(start) && source.is_char_boundary(end);
    let mut ins = Vec::new();
    let mut prev_start = 0;
    for (id, s) in stmts.stmts.iter() {
        let (start, end) = (s.range.start, s.range.end);
        let skip = skip(id);
        if !fits(start, end) || skip == Skip::All {
            continue;
        }
        // Depth in the statement tree (bounded, in case of a malformed parent chain).
        let depth = stmts.ancestors(id).take(stmts.stmts.len() + 1).count() as i64;
        let anchor_at =
            if src[start] == b'#' { scan::prev_token_end(src, if prev_start <= start { prev_start } else { 0 }, start) } else { start };
        prev_start = start;
        if needs_braces(stmts, id) {
            ins.push(Insertion { at: anchor_at, phase: 1, order: 2 * depth, text: "{".into() });
            ins.push(Insertion { at: end, phase: 0, order: -2 * depth, text: "}".into() });
        }
        let anchor = format!("__syncfix_anchor({});", id.index());
        ins.push(Insertion { at: anchor_at, phase: 1, order: 2 * depth + 1, text: anchor });
        // The end of a loop's braced body: after the closings of the statements inside it.
        if let Some(close) = stmts.loop_body_close(src, id) {
            ins.push(Insertion { at: close, phase: 0, order: -2 * depth - 1, text: format!("__syncfix_anchor_end({});", id.index()) });
        }
        if let Some(split) = s.split.as_ref().filter(|_| skip == Skip::Nothing) {
            let (a, b) = (split.rhs.start, split.rhs.end);
            let id = id.index();
            // Openings go outside-in after the statement's anchor, closings inside-out.
            let mut put = |at: usize, open: bool, text: String| {
                let (phase, order) = if open { (1, 2 * depth + 2) } else { (0, -2 * depth - 2) };
                ins.push(Insertion { at, phase, order, text });
            };
            let head = "({ __auto_type __syncfix_v = (";
            match &split.rmw {
                None => {
                    if fits(a, b) && start <= a && b < end {
                        put(a, true, head.into());
                        put(b, false, format!("); __syncfix_split({id}); __syncfix_v; }})"));
                    }
                }
                // A read-modify-write: the text of the fix, `x = tmp op e`, with the original
                // operator tokens in comments (see the module doc).
                Some(rmw) => {
                    let (s0, e0) = (rmw.expr.start, rmw.expr.end);
                    let ok = fits(a, b) && fits(s0, e0) && start <= s0 && e0 < end && s0 <= a && b <= e0;
                    let commented = |from: usize, to: usize| !source.get(from..to).is_some_and(|t| t.contains("*/"));
                    let lhs = source.get(a..b).unwrap_or("\n");
                    if ok && !lhs.contains('\n') && commented(s0, a) && commented(b, e0) {
                        let write = format!("); __syncfix_split({id}); ({lhs}) = __syncfix_v {} ", rmw.op);
                        if s0 < a {
                            put(s0, true, "({ /*".into());
                            put(a, true, format!("*/ {}", &head[3..]));
                        } else {
                            put(a, true, head.into());
                        }
                        match rmw.operand {
                            None => {
                                put(b, false, format!("{write}1; }})"));
                                if b < e0 {
                                    put(b, false, " /*".into());
                                    put(e0, false, "*/".into());
                                }
                            }
                            Some(r) => {
                                put(b, false, format!("{write}(/*"));
                                put(r.start, true, "*/".into());
                                put(r.end, false, "); })".into());
                            }
                        }
                    }
                }
            }
        }
    }
    // Stable: equal keys keep table order.
    ins.sort_by_key(|i| (i.at, i.phase, i.order));

    let mut text = String::with_capacity(source.len() + ins.iter().map(|i| i.text.len()).sum::<usize>());
    let mut copied = 0;
    let mut insertions = Vec::with_capacity(ins.len());
    for i in &ins {
        text.push_str(&source[copied..i.at]);
        copied = i.at;
        text.push_str(&i.text);
        insertions.push((i.at, i.text.len()));
    }
    text.push_str(&source[copied..]);
    let line_starts = std::iter::once(0).chain(source.match_indices('\n').map(|(i, _)| i + 1)).collect();
    Marked { text, insertions, line_starts }
}

/// The statements whose marks (anchor, braces, split) stand on one of `lines` (1-based lines
/// of the original text, which are those of the marked text).
pub fn stmts_marked_on_lines(source: &str, stmts: &StmtTable, lines: &[u32]) -> Vec<StmtId> {
    let line_of = |offset: usize| 1 + source.as_bytes()[..offset.min(source.len())].iter().filter(|&&b| b == b'\n').count() as u32;
    stmts
        .stmts
        .iter()
        .filter(|(id, s)| {
            let mut at = vec![s.range.start, s.range.end];
            if let Some(split) = &s.split {
                at.extend([split.rhs.start, split.rhs.end]);
            }
            at.extend(stmts.loop_body_close(source.as_bytes(), *id));
            at.into_iter().any(|o| lines.contains(&line_of(o)))
        })
        .map(|(id, _)| id)
        .collect()
}

impl Marked {
    /// Maps a 1-based line and column (in bytes, as clang counts them) of the marked text to
    /// the original text. A position inside inserted text maps to the point of insertion.
    /// Lines are the same in both texts; a line past the end is returned unchanged.
    pub fn to_original(&self, line: u32, col: u32) -> (u32, u32) {
        let Some(&line_start) = self.line_starts.get((line as usize).wrapping_sub(1)) else {
            return (line, col);
        };
        let next_line = self.line_starts.get(line as usize).copied().unwrap_or(usize::MAX);
        let pos = col.max(1) as usize - 1;
        let mut shift = 0;
        let first = self.insertions.partition_point(|&(at, _)| at < line_start);
        for &(at, len) in self.insertions[first..].iter().take_while(|&&(at, _)| at < next_line) {
            let a = at - line_start;
            if pos < a + shift {
                break;
            }
            if pos < a + shift + len {
                return (line, (a + 1) as u32);
            }
            shift += len;
        }
        (line, (pos - shift + 1) as u32)
    }

    /// Maps a byte offset of the marked text to the original text (a position inside
    /// inserted text maps to the point of insertion).
    pub fn original_offset(&self, marked: usize) -> usize {
        let mut shift = 0;
        for &(at, len) in &self.insertions {
            if marked < at + shift {
                break;
            }
            if marked < at + shift + len {
                return at;
            }
            shift += len;
        }
        marked - shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncfix_kir::{Split, Stmt, TextRange};

    fn stmt(kind: StmtKind, start: usize, end: usize, parent: Option<u32>, sole: bool) -> Stmt {
        Stmt {
            function: "k".into(),
            kind,
            range: TextRange { start, end },
            parent: parent.map(|p| StmtId::new(p as usize)),
            children: Vec::new(),
            sole_body: sole,
            loop_body_start: false,
            split: None,
            barrier_call: None,
            branch: None,
            local: None,
            lvalues: Vec::new(),
            copy: None,
        }
    }

    #[test]
    fn nested_sole_bodies_and_positions() {
        //        0         1         2
        //        0123456789012345678901234567
        let src = "{ if (a) if (b) x;y=A[0]; }\n";
        let mut t = StmtTable::default();
        t.stmts.push(stmt(StmtKind::If, 2, 18, None, false));
        t.stmts.push(stmt(StmtKind::If, 9, 18, Some(0), true));
        t.stmts.push(stmt(StmtKind::Expr, 16, 18, Some(1), true));
        let mut y = stmt(StmtKind::Expr, 18, 25, None, false);
        y.split = Some(Split { rhs: TextRange { start: 20, end: 24 }, rhs_type: "int".into(), rmw: None });
        t.stmts.push(y);
        let m = mark_source(src, &t);
        assert_eq!(
            m.text,
            "{ __syncfix_anchor(0);if (a) {__syncfix_anchor(1);if (b) {__syncfix_anchor(2);x;}}\
             __syncfix_anchor(3);y=({ __auto_type __syncfix_v = (A[0]); __syncfix_split(3); \
             __syncfix_v; }); }\n"
        );
        // `x` maps back to column 17; a column inside a marker to its insertion point.
        let x = m.text.find("x;").unwrap() as u32 + 1;
        assert_eq!(m.to_original(1, x), (1, 17));
        assert_eq!(m.to_original(1, 5), (1, 3));
        assert_eq!(m.to_original(1, 1), (1, 1));
        assert_eq!(m.to_original(2, 1), (2, 1));
        assert_eq!(m.to_original(9, 4), (9, 4));
        let a0 = m.text.find("A[0]").unwrap();
        assert_eq!(m.original_offset(a0), 20);
    }
}
