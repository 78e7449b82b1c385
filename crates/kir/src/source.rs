//! Source text, locations and the statement table (the *source anchors*).
//!
//! Offsets are byte offsets into the main file's text; lines and columns are 1-based, columns
//! counted in bytes (as clang counts them).

use crate::entity::{FileId, StmtId};
use cranelift_entity::PrimaryMap;
use std::fmt;

/// A source file with a line index.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as the user gave it (used in messages and diff headers).
    pub path: String,
    /// The whole text, if known (the main file and our preludes always are).
    pub text: Option<String>,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// A file with known text.
    pub fn new(path: impl Into<String>, text: Option<String>) -> Self {
        let mut line_starts = vec![0];
        if let Some(t) = &text {
            line_starts.extend(t.match_indices('\n').map(|(i, _)| i + 1));
        }
        SourceFile { path: path.into(), text, line_starts }
    }

    /// The file name without directories, as GPUVerify prints it in race headers.
    pub fn file_name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    /// The 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        ((line + 1) as u32, (offset - self.line_starts[line] + 1) as u32)
    }

    /// The byte offset of a 1-based line and column, if the line exists.
    pub fn offset(&self, line: u32, col: u32) -> Option<usize> {
        let start = *self.line_starts.get((line as usize).checked_sub(1)?)?;
        Some(start + (col.max(1) as usize - 1))
    }

    /// The text of a 1-based line without its newline.
    pub fn line_text(&self, line: u32) -> Option<&str> {
        let text = self.text.as_deref()?;
        let start = *self.line_starts.get((line as usize).checked_sub(1)?)?;
        let end = self.line_starts.get(line as usize).map(|e| e - 1).unwrap_or(text.len());
        text.get(start..end)
    }
}

/// A point in a source file.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Loc {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}

/// Where an instruction comes from: the innermost location first, then the call sites of the
/// `__device__` functions it was inlined through (the inline chain), outermost last.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Span {
    pub frames: Vec<Loc>,
}

impl Span {
    /// The innermost location, if any.
    pub fn top(&self) -> Option<Loc> {
        self.frames.first().copied()
    }

    /// The innermost frame that lies in the main file (the user's code), if any.
    pub fn in_main(&self) -> Option<Loc> {
        self.frames.iter().copied().find(|l| l.file == FileId::MAIN)
    }

    /// A span with `call_site` (and its own chain) appended as outer frames.
    pub fn inlined_at(&self, call_site: &Span) -> Span {
        let mut frames = self.frames.clone();
        frames.extend(call_site.frames.iter().copied());
        Span { frames }
    }
}

/// A half-open byte range `[start, end)` of the main file.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct TextRange {
    pub start: usize,
    pub end: usize,
}

impl TextRange {
    pub fn contains(&self, offset: usize) -> bool {
        self.start <= offset && offset < self.end
    }
    pub fn contains_range(&self, other: &TextRange) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// The syntactic kind of a statement, as far as instrumentation and the fix stage care.
#[derive(Copy, Clone, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub enum StmtKind {
    Compound,
    Decl,
    Expr,
    If,
    For,
    While,
    Do,
    Switch,
    Return,
    Break,
    Continue,
    Null,
    Other,
}

impl StmtKind {
    pub fn is_loop(self) -> bool {
        matches!(self, StmtKind::For | StmtKind::While | StmtKind::Do)
    }
    pub fn is_conditional(self) -> bool {
        matches!(self, StmtKind::If | StmtKind::Switch)
    }
}

/// An assignment whose right-hand side may read memory: a site can stand between the read
/// and the write, printed by hoisting the right-hand side into a temporary (ARCHITECTURE.md, "crates/instrument"
/// and "crates/fix").
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub struct Split {
    /// The expression whose value is read before the barrier: the right-hand side of an
    /// assignment, or the memory operand of a read-modify-write.
    pub rhs: TextRange,
    /// Its type as clang spells it (the temporary's declared type).
    pub rhs_type: String,
    /// A read-modify-write statement (`x++`, `--x`, `x op= e` with `e` reading no memory):
    /// how the write after the barrier is spelled. `None` for an assignment `x op= RHS` whose
    /// right-hand side reads memory, split as `T tmp = RHS; <barrier> x op= tmp;`.
    pub rmw: Option<ReadModifyWrite>,
}

/// A statement that reads and writes one location of memory, split as
/// `T tmp = x; <barrier> x = tmp op e;` (GPURepair §2.2's barrier between the read and the
/// write of one statement, spelled in the source).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadModifyWrite {
    /// The whole expression (`x++`, `x += e`): the fix replaces it by `x = tmp op e`.
    pub expr: TextRange,
    /// The binary operator: `+` for `++`, `-` for `--`, `op` for `op=`.
    pub op: String,
    /// `e`'s text; `None` for `++`/`--` (the operand is 1).
    pub operand: Option<TextRange>,
}

/// A statement that is a bare call of a copy function, `F(DST, SRC, LEN);` with `F` `memcpy`
/// or `__builtin_memcpy` (or a macro that stands for one, as the text spells it): a copy whose destinations overlap between threads can be done in steps
/// with barriers between them (GPURepair §2.2's sites between the accesses of one statement,
/// spelled in the source as one copy call per step).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CopyCall {
    /// The callee as written (`memcpy`).
    pub callee: TextRange,
    /// The destination, source and length arguments' texts.
    pub dst: TextRange,
    pub src: TextRange,
    pub len: TextRange,
}

/// How a statement that is a bare barrier call can be removed.
#[derive(Copy, Clone, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub enum BarrierCall {
    /// `__syncthreads();`, `barrier(...);`, `synchronize(g);`, `g.sync();`...: the statement
    /// can be deleted.
    Removable,
}

/// A statement of the main file: where sites are anchored and edits are made.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Stmt {
    /// The source name of the function that contains the statement.
    pub function: String,
    pub kind: StmtKind,
    /// The statement's text, including its terminating `;` where it has one.
    pub range: TextRange,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<StmtId>,
    /// Child statements (compound members, branch arms, loop bodies), in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<StmtId>,
    /// The statement is the body of an `if`/`else`/`for`/`while`/`do` without braces: an
    /// insertion before it must add braces.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sole_body: bool,
    /// The statement is the first statement of a loop body (runs once per iteration).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub loop_body_start: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barrier_call: Option<BarrierCall>,
    /// An `if` statement's condition and arms (`None` for other statements, and for an `if`
    /// with an init-statement or a condition variable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<Branch>,
    /// A declaration statement that declares one local automatic variable (`None` otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<LocalDecl>,
    /// The variables and parameters that the statement (with everything in it) declares or
    /// uses other than by reading their value: assigned, incremented, address taken, bound to
    /// a reference, a member or element accessed. A superset of those it may change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lvalues: Vec<String>,
    /// A bare copy call statement (`None` for other statements).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy: Option<CopyCall>,
}

/// The condition and arms of an `if` statement, for splitting the statement in two around a
/// barrier (ARCHITECTURE.md, "crates/fix": a barrier moved out of a conditional).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Branch {
    /// The condition's text, without the parentheses around it.
    pub cond: TextRange,
    /// Evaluating the condition has no side effect and reads no memory (only local variables,
    /// by-value parameters, constants and the thread and group ids), so evaluating it again
    /// gives the same value as long as none of [`Branch::names`] is assigned in between.
    pub repeatable: bool,
    /// The variables and parameters the condition names.
    pub names: Vec<String>,
    /// The `then` arm's statement, if it is recorded.
    pub then_arm: Option<StmtId>,
    /// The `else` arm's statement, if there is one and it is recorded.
    pub else_arm: Option<StmtId>,
}

/// The one local automatic variable a declaration statement declares, as
/// `TYPE NAME = INIT;` or `TYPE NAME;`, for hoisting the declaration out of a block.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LocalDecl {
    /// The variable's name.
    pub name: String,
    /// Where the name stands.
    pub name_range: TextRange,
    /// The initializer after `=` (`None` without one).
    pub init: Option<TextRange>,
    /// `TYPE` as written before the name, when the declaration can be hoisted as `TYPE NAME;`
    /// and the initialization left in place as the assignment `NAME = INIT;`: a single
    /// declarator of a scalar, pointer or struct type, no storage class, `const`, `auto`,
    /// reference, array or braced initializer. `None` when it cannot.
    pub hoistable_type: Option<String>,
}

/// The statements of the main file, as clang's AST gives them.
#[derive(Clone, Debug, Default)]
pub struct StmtTable {
    pub stmts: PrimaryMap<StmtId, Stmt>,
}

impl Stmt {
    /// A statement of `kind` at `range` in `function` with nothing else recorded: no parent or
    /// children, no split, branch, declaration or copy, assigning nothing (for tests that
    /// build a statement table by hand).
    pub fn plain(function: &str, kind: StmtKind, range: TextRange) -> Stmt {
        Stmt {
            function: function.to_string(),
            kind,
            range,
            parent: None,
            children: Vec::new(),
            sole_body: false,
            loop_body_start: false,
            split: None,
            barrier_call: None,
            branch: None,
            local: None,
            lvalues: Vec::new(),
            copy: None,
        }
    }
}

impl StmtTable {
    /// The innermost statement containing `offset`, among statements of `function` if given.
    pub fn innermost_at(&self, offset: usize) -> Option<StmtId> {
        let mut best: Option<StmtId> = None;
        for (id, s) in self.stmts.iter() {
            if s.range.contains(offset) {
                match best {
                    Some(b) if !self.stmts[b].range.contains_range(&s.range) => {}
                    _ => best = Some(id),
                }
            }
        }
        best
    }

    /// `id` and its ancestors, innermost first.
    pub fn ancestors(&self, id: StmtId) -> impl Iterator<Item = StmtId> + '_ {
        std::iter::successors(Some(id), move |s| self.stmts[*s].parent)
    }

    /// The statements of the block that holds `id` (its parent compound, or its function's
    /// body: the top-level statements of `id`'s function), in source order; `id` among them.
    pub fn siblings(&self, id: StmtId) -> Vec<StmtId> {
        let Some(st) = self.stmts.get(id) else { return vec![] };
        if let Some(p) = st.parent {
            return self.stmts[p].children.clone();
        }
        let mut v: Vec<(usize, StmtId)> =
            self.stmts.iter().filter(|(_, x)| x.parent.is_none() && x.function == st.function).map(|(i, x)| (x.range.start, i)).collect();
        v.sort();
        v.into_iter().map(|(_, i)| i).collect()
    }

    /// When `id` is an early return, `if (c) return;` (no `else`, not the sole body of another
    /// statement, its arm `return ...;` or `{ return ...; }`): its condition.
    pub fn early_return(&self, id: StmtId) -> Option<&Branch> {
        let st = self.stmts.get(id)?;
        let b = st.branch.as_ref()?;
        if st.kind != StmtKind::If || b.else_arm.is_some() || st.sole_body {
            return None;
        }
        let arm = self.stmts.get(b.then_arm?)?;
        let returns = match arm.kind {
            StmtKind::Return => true,
            StmtKind::Compound => arm.children.len() == 1 && self.stmts[arm.children[0]].kind == StmtKind::Return,
            _ => false,
        };
        returns.then_some(b)
    }

    /// The compound statement that is loop statement `id`'s body (`None` for another
    /// statement, or a body that is a single statement).
    pub fn loop_body(&self, id: StmtId) -> Option<StmtId> {
        let s = self.stmts.get(id)?;
        if !s.kind.is_loop() {
            return None;
        }
        s.children.iter().copied().find(|c| self.stmts[*c].kind == StmtKind::Compound && self.stmts[*c].parent == Some(id))
    }

    /// The events a `wait_group_events` inserted just before statement `at` must wait for
    /// (OpenCL 1.2 §6.12.10): one per `async_work_group_copy` / `async_work_group_strided_copy`
    /// of `at`'s function that stands before `at` in `src` (the statements' text) and is not
    /// waited for by a `wait_group_events` naming its event's variable between the copy and
    /// `at`. In source order, without repeats: `handle` for `event_t handle =
    /// async_work_group_copy(...)`, `handles[0]` for `handles[0] = async_work_group_copy(...)`;
    /// a copy whose event is kept in no variable (the statement `async_work_group_copy(...);`)
    /// gets a fresh name (`ev`, `ev1`, ...: not a word of `src`, the same for every site) and
    /// [`PendingEvent::bind_at`], where the fix declares it.
    ///
    /// `None` when a wait at `at` could not name every such copy: a copy in another function,
    /// a copy whose event is declared in (or would be bound in) a block that does not enclose
    /// `at`, or a copy whose result is used otherwise. A textual approximation of which copies
    /// are pending: a copy later in an enclosing loop body is not named (syncfix's model lets a
    /// wait complete every copy of the work-item, so re-verification does not check the events
    /// named).
    pub fn pending_events(&self, src: &str, at: StmtId) -> Option<Vec<PendingEvent>> {
        let site = self.stmts.get(at)?;
        let function = &site.function;
        // The innermost statement (not a compound: a mention in a comment) at each call.
        let calls = |name: &str| -> Vec<(usize, StmtId)> {
            let mut out = vec![];
            let mut from = 0;
            while let Some(i) = src.get(from..).and_then(|t| t.find(name)) {
                let o = from + i;
                from = o + name.len();
                let word_start = o == 0 || !src.as_bytes()[o - 1].is_ascii_alphanumeric() && src.as_bytes()[o - 1] != b'_';
                let call = src[from..].trim_start().starts_with('(');
                if let (true, true, Some(s)) = (word_start, call, self.innermost_at(o)) {
                    if self.stmts[s].kind != StmtKind::Compound {
                        out.push((o, s));
                    }
                }
            }
            out
        };
        let mut copies: Vec<(usize, StmtId)> = calls("async_work_group_copy");
        copies.extend(calls("async_work_group_strided_copy"));
        copies.sort();
        let waits = calls("wait_group_events");
        // Fresh names for the copies that keep no event, in file order.
        let words: std::collections::HashSet<&str> =
            src.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        let mut fresh = (0..).map(|i| if i == 0 { "ev".to_string() } else { format!("ev{i}") }).filter(|n| !words.contains(n.as_str()));
        let mut out: Vec<PendingEvent> = vec![];
        for (o, s) in copies {
            let st = &self.stmts[s];
            let before = src.get(st.range.start..o)?;
            let bare = before.trim().is_empty() && st.kind == StmtKind::Expr;
            let name = if bare { fresh.next()? } else { String::new() };
            if st.function != *function {
                return None;
            }
            if o >= site.range.start {
                continue;
            }
            let (lhs, bind_at) = if bare { (name, Some(o)) } else { (event_lvalue(before)?, None) };
            // A declared (or bound) event is in scope only inside the block that holds it.
            // (No parent: the function's body, which holds every statement of the function.)
            if let (true, Some(block)) = (bare || st.kind == StmtKind::Decl, st.parent) {
                if self.stmts[block].kind != StmtKind::Compound || !self.ancestors(at).any(|a| a == block) {
                    return None;
                }
            }
            let event = PendingEvent { name: lhs, bind_at };
            let waited = waits.iter().any(|&(w, ws)| {
                let r = self.stmts[ws].range;
                w > o && r.end <= site.range.start && self.stmts[ws].function == *function && event.named_in(&src[r.start..r.end])
            });
            if !waited && !out.iter().any(|e| e.name == event.name) {
                out.push(event);
            }
        }
        Some(out)
    }

    /// The byte offset in `src` (the statements' text) of the `}` closing loop statement
    /// `id`'s braced body, where a barrier at the end of each iteration goes.
    pub fn loop_body_close(&self, src: &[u8], id: StmtId) -> Option<usize> {
        let body = &self.stmts[self.loop_body(id)?];
        let close = body.range.end.checked_sub(1)?;
        (body.range.start < close && src.get(close) == Some(&b'}') && src.get(body.range.start) == Some(&b'{')).then_some(close)
    }
}

impl fmt::Display for TextRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// An asynchronous copy's event that a wait names ([`StmtTable::pending_events`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingEvent {
    /// The lvalue that holds the event (`handle`, `handles[0]`), or the fresh name to bind it to.
    pub name: String,
    /// The byte offset of a copy call whose event is kept in no variable: the fix inserts
    /// `event_t NAME = ` there (the call is a statement of its own, in a block that encloses
    /// the wait).
    pub bind_at: Option<usize>,
}

impl PendingEvent {
    /// The statement that waits for it: `wait_group_events(1, &NAME);`.
    pub fn wait(&self) -> String {
        format!("wait_group_events(1, &{});", self.name)
    }

    /// The variable that holds it (`handles` for `handles[0]`).
    pub fn variable(&self) -> &str {
        let end = self.name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(self.name.len());
        &self.name[..end]
    }

    /// Whether `text` mentions its variable as a whole word.
    pub fn named_in(&self, text: &str) -> bool {
        mentions(text, self.variable())
    }
}

/// The lvalue that `text` (a statement's text up to an asynchronous copy's call) assigns the
/// call's event to: `event_t e =` gives `e`, `evs[1] =` gives `evs[1]`; `None` when the
/// statement does not assign the call's result (a plain call, or the call inside a larger
/// expression).
fn event_lvalue(text: &str) -> Option<String> {
    let t = text.trim_end().strip_suffix('=')?;
    if t.ends_with(['=', '!', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^']) {
        return None;
    }
    let t = t.trim();
    let lvalue_char = |c: char| c.is_ascii_alphanumeric() || "_[]. ".contains(c);
    if t.is_empty() || !t.chars().all(lvalue_char) {
        return None;
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    let lhs = match words.as_slice() {
        // `event_t e` (a declaration): the declared name.
        [.., ty, name] if !ty.ends_with(']') && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => name.to_string(),
        _ => words.concat(),
    };
    lhs.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_').then_some(lhs)
}

/// Whether `text` mentions the identifier `name` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name)
        .any(|(i, _)| !text[..i].chars().next_back().is_some_and(ident) && !text[i + name.len()..].chars().next().is_some_and(ident))
}

#[cfg(test)]
mod tests {
    use super::event_lvalue;

    #[test]
    fn an_event_lvalue_is_the_name_a_copy_assigns() {
        assert_eq!(event_lvalue("event_t handle = ").as_deref(), Some("handle"));
        assert_eq!(event_lvalue("  handles[0] = ").as_deref(), Some("handles[0]"));
        assert_eq!(event_lvalue("ev =").as_deref(), Some("ev"));
        assert_eq!(event_lvalue(""), None);
        assert_eq!(event_lvalue("x == "), None);
        assert_eq!(event_lvalue("f(x) + "), None);
        assert_eq!(event_lvalue("a = b + "), None);
    }
}
