//! Restructurings that let every thread reach a barrier (ARCHITECTURE.md, "crates/fix"): a
//! conditional split in two around it ([`split_conditional`]), an early return moved past it
//! ([`delay_return`]). The first is the repair of
//! barrier divergence that removing the barrier cannot give, because the barrier orders a race
//! inside the conditional. `if (c) { A; B; }` with a barrier needed between `A` and `B` becomes
//! `if (c) { A; } <barrier> if (c) { B; }`, so that every thread reaches the barrier:
//!
//! ```text
//!   if (idx % 2 == 0) {              int temp;
//!     int temp = A[idx + 2];         if (idx % 2 == 0) {
//!     __syncthreads();        ->       temp = A[idx + 2];
//!     A[idx] = temp;                 }
//!   }                                __syncthreads();
//!                                    if (idx % 2 == 0) {
//!                                      A[idx] = temp;
//!                                    }
//! ```
//!
//! Each thread runs the statements it ran before, in the same order: the condition is
//! evaluated once (saved in a `bool` unless it reads no memory, has no side effect and the
//! first half uses none of its variables as an lvalue), and the declarations of the first half that the
//! second half uses are hoisted before the `if` (`TYPE NAME;`, the initialization left in place
//! as an assignment). What changes is only where the barrier stands; whether the result is free
//! of races and divergence is for the verifier to say, on the patched text.

use crate::build::check_range;
use crate::layout::{fresh_name, indent_unit, indentation, line_indentation, line_start, newline, whole_lines, words};
use crate::{Edit, FixError};
use std::collections::HashSet;
use syncfix_kir::{StmtId, StmtKind, StmtTable, TextRange};

mod text;
use text::{first_half, indent_lines, one_line, slice_with_edits, FirstHalf};

/// A restructuring by [`split_conditional`] or [`delay_return`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restructure {
    /// The one edit: the `if` statement replaced by its two halves, or the early return and
    /// the statements up to the barrier replaced by their guarded form (with the barrier, the
    /// saved condition and the hoisted declarations).
    pub edit: Edit,
    /// What was done.
    pub kind: RestructureKind,
    /// The `if` statement split, or the early return moved.
    pub if_stmt: StmtId,
    /// The user's barrier statement moved between the halves, as written (`None` without
    /// `hoist`).
    pub moved_barrier: Option<String>,
    /// What was done, for the user (one sentence).
    pub note: String,
}

/// The kinds of [`Restructure`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RestructureKind {
    /// [`split_conditional`].
    SplitConditional,
    /// [`delay_return`].
    DelayReturn,
}

impl RestructureKind {
    /// `split-conditional` or `delay-return` (the repair summary's change kinds).
    pub fn name(self) -> &'static str {
        match self {
            RestructureKind::SplitConditional => "split-conditional",
            RestructureKind::DelayReturn => "delay-return",
        }
    }
}

/// Lets every thread reach a barrier at statement `at` (`hoist`: the user's barrier there;
/// else a new one before it): [`split_conditional`] when `at` stands in an `if` statement,
/// else [`delay_return`]. The error is the one of the restructuring that fits where `at`
/// stands.
pub fn restructure(source: &str, stmts: &StmtTable, at: StmtId, hoist: bool) -> Result<Restructure, FixError> {
    let inside_if = stmts.ancestors(at).skip(1).any(|a| stmts.stmts.get(a).is_some_and(|s| s.kind == StmtKind::If));
    split_conditional(source, stmts, at, hoist)
        .or_else(|split| delay_return(source, stmts, at, hoist).map_err(|delay| if inside_if { split } else { delay }))
}

/// Splits the `if` statement whose braced arm holds statement `at` in two, just before `at`
/// (see the module doc). With `hoist`, `at` is a barrier statement of that arm and moves
/// between the two halves; without it the halves are split before `at`, and the place between
/// them is a site like any other statement boundary.
///
/// `source` is the main file's text and `stmts` its statement table (clang's, with
/// [`syncfix_kir::Branch`] and [`syncfix_kir::LocalDecl`]). Returns one edit of `source`.
///
/// Errors: [`FixError::UnknownStmt`] / [`FixError::BadRange`] for a statement not in the table
/// or outside the text; [`FixError::CannotRestructure`] (with the reason) when `at` is not a member of
/// an `if` arm in braces, the `if` has an init-statement or condition variable, `hoist` names a
/// statement that is not a barrier call, nothing of the arm stands before `at` (without
/// `hoist`: a site before the `if` is already there), or a declaration of the first half that
/// the second uses cannot be hoisted.
pub fn split_conditional(source: &str, stmts: &StmtTable, at: StmtId, hoist: bool) -> Result<Restructure, FixError> {
    let get = |id: StmtId| stmts.stmts.get(id).ok_or(FixError::UnknownStmt { stmt: id });
    let no = |reason: &str| FixError::CannotRestructure { stmt: at, reason: reason.to_string() };
    let s = get(at)?;
    check_range(source, at, s.range)?;
    let arm_id = s.parent.ok_or_else(|| no("the statement is not inside a conditional"))?;
    let arm = get(arm_id)?;
    let if_id = arm.parent.ok_or_else(|| no("the statement is not inside a conditional"))?;
    let cond_stmt = get(if_id)?;
    let branch = match (&cond_stmt.kind, &cond_stmt.branch, arm.kind) {
        (StmtKind::If, Some(b), StmtKind::Compound) => b,
        _ => return Err(no("the statement is not a member of a braced arm of an `if` statement")),
    };
    check_range(source, arm_id, arm.range)?;
    check_range(source, if_id, cond_stmt.range)?;
    let in_else = branch.else_arm == Some(arm_id);
    if !in_else && branch.then_arm != Some(arm_id) {
        return Err(no("the statement is not a member of a braced arm of an `if` statement"));
    }
    if hoist && s.barrier_call.is_none() {
        return Err(no("the statement is not a barrier call"));
    }
    let pos = arm.children.iter().position(|&c| c == at).ok_or_else(|| no("the statement is not a member of the arm"))?;
    let (first, rest) = (&arm.children[..pos], &arm.children[pos + hoist as usize..]);
    if !hoist && first.is_empty() {
        return Err(no("no statement of the arm stands before it: the place before the `if` is a site already"));
    }
    let src = source;
    let nl = newline(src);
    let (open, close) = (arm.range.start, arm.range.end - 1);
    if src.as_bytes().get(open) != Some(&b'{') || src.as_bytes().get(close) != Some(&b'}') {
        return Err(no("the arm is not in braces"));
    }
    // The barrier moved: its statement, with a comment after it on its line.
    let line_mode = indentation(src, cond_stmt.range.start).is_some()
        && indentation(src, s.range.start).is_some()
        && indentation(src, close).is_some()
        && (!hoist || whole_lines(src, s.range).is_some());
    // Where the second half's text starts, and the first half's ends.
    let first_end = if line_mode { line_start(src, s.range.start) } else { s.range.start };
    let second_start = match (hoist, line_mode) {
        (false, _) => first_end,
        (true, true) => whole_lines(src, s.range).map_or(s.range.end, |r| r.end),
        (true, false) => s.range.end + src[s.range.end..].bytes().take_while(|&b| b == b' ' || b == b'\t').count(),
    };
    let first_text = TextRange { start: open + 1, end: first_end };
    let second_text = TextRange { start: second_start, end: arm.range.end };

    let later = words(&src[second_text.start..second_text.end]);
    let FirstHalf { hoisted, edits: first_edits, stable } = first_half(src, stmts, first, first_text, &later).map_err(|r| no(&r))?;
    let cond_text = src[branch.cond.start..branch.cond.end].to_string();
    let has_first = !first.is_empty();
    let has_second = !rest.is_empty() || (!in_else && branch.else_arm.is_some());
    let moved = has_second && (has_first || hoist);
    let saved = (moved && !(branch.repeatable && stable(&branch.names))).then(|| fresh_name(src, "cond"));
    let cond_ref = saved.clone().unwrap_or_else(|| cond_text.clone());
    // The `if` head with the condition as it is referred to.
    let head = |from: usize, to: usize| -> String { format!("{}{}{}", &src[from..branch.cond.start], cond_ref, &src[branch.cond.end..to]) };
    let negated = match &saved {
        Some(n) => format!("!{n}"),
        None => format!("!({cond_text})"),
    };

    let (ind, range_start, brk) = if line_mode {
        let (ls, ind) = indentation(src, cond_stmt.range.start).unwrap_or((cond_stmt.range.start, ""));
        (ind.to_string(), ls, nl.to_string())
    } else {
        (String::new(), cond_stmt.range.start, " ".to_string())
    };
    let mut parts: Vec<String> = vec![];
    let lead = if line_mode { ind.clone() } else { String::new() };
    if let Some(n) = &saved {
        parts.push(format!("{lead}bool {n} = {cond_text};"));
    }
    for (ty, name) in &hoisted {
        parts.push(format!("{lead}{ty} {name};"));
    }
    let first_half = slice_with_edits(src, first_text, &first_edits);
    let first_half = if line_mode { first_half } else { first_half.trim_end().to_string() };
    let closing = if line_mode { src[line_start(src, close)..arm.range.end].to_string() } else { " }".to_string() };
    // The first half: the `if` up to the split, closed.
    match (in_else, has_first) {
        (_, true) => parts.push(format!("{}{}{}", head(range_start, open + 1), first_half, closing)),
        (false, false) => {}
        (true, false) => {
            // Only the `then` arm is left of the first half.
            let then_end = branch
                .then_arm
                .and_then(|t| stmts.stmts.get(t))
                .map(|t| t.range.end)
                .ok_or_else(|| no("the `then` arm is not recorded"))?;
            parts.push(head(range_start, then_end));
        }
    }
    if hoist {
        let end = if line_mode { second_start } else { s.range.end };
        parts.push(format!("{lead}{}", src[s.range.start..end].trim_end()));
    }
    if has_second {
        let body = &src[second_text.start..second_text.end];
        let body = if line_mode { format!("{nl}{body}") } else { format!(" {body}") };
        if in_else {
            parts.push(format!("{lead}if ({negated}) {{{body}"));
        } else {
            // The `then` head again, the rest of the arm and the `else` arm as they were.
            let again = if line_mode { head(range_start, open + 1) } else { head(cond_stmt.range.start, open + 1) };
            parts.push(format!("{again}{body}{}", &src[arm.range.end..cond_stmt.range.end]));
        }
    }
    let mut replacement = parts.join(&brk);
    let outside: HashSet<&str> = words(&src[..range_start]).union(&words(&src[cond_stmt.range.end..])).copied().collect();
    if hoisted.iter().any(|(_, n)| outside.contains(n.as_str())) {
        // A hoisted name is used elsewhere in the file: keep its scope to the two halves.
        replacement = if line_mode {
            let member = arm.children.first().and_then(|&c| stmts.stmts.get(c)).and_then(|c| indentation(src, c.range.start));
            let unit = indent_unit(&ind, member.map_or("", |(_, i)| i));
            format!("{ind}{{{nl}{}{nl}{ind}}}", indent_lines(&replacement, &unit))
        } else {
            format!("{{ {replacement} }}")
        };
    }
    if cond_stmt.sole_body {
        // The `if` was the body of another statement: the halves need braces of their own.
        replacement = format!("{{ {} }}", replacement.trim_start());
        if line_mode {
            replacement = format!("{ind}{replacement}");
        }
    }
    // Notes name statements by their text: a note of a later round stands in a text whose
    // lines are no longer the user's.
    let head_end = src[branch.cond.end..].find(')').map_or(branch.cond.end, |i| branch.cond.end + i + 1);
    let if_text = one_line(&src[cond_stmt.range.start..head_end]);
    let note = if hoist {
        format!(
            "the conditional `{if_text}` is split in two around `{}`, so that every thread reaches the barrier (it was inside a \
             conditional that threads take differently)",
            one_line(&src[s.range.start..s.range.end])
        )
    } else {
        format!("the conditional `{if_text}` is split in two, so that a barrier between the halves is reached by every thread")
    };
    Ok(Restructure {
        edit: Edit::replacement(TextRange { start: range_start, end: cond_stmt.range.end }, replacement),
        kind: RestructureKind::SplitConditional,
        if_stmt: if_id,
        moved_barrier: hoist.then(|| src[s.range.start..s.range.end].trim().to_string()),
        note,
    })
}

/// Moves an early return past a barrier (the divergence of a barrier that some threads skip by
/// returning early, `if (c) return;` before it): the statements between the return and the
/// barrier are guarded by the negated condition, and the `if (c) return;` follows the barrier,
/// so that every thread reaches it:
///
/// ```text
///   if (t >= n) return;              if (!(t >= n)) {
///   tile[t] = in[t];          ->       tile[t] = in[t];
///   __syncthreads();                 }
///   out[t] = tile[t + 1];            __syncthreads();
///                                    if (t >= n) return;
///                                    out[t] = tile[t + 1];
/// ```
///
/// `at` is the barrier (with `hoist`) or, without it, the statement before which the return
/// moves (the place before it then takes a new barrier); the return is the nearest `if (c)
/// return;` (no `else`, the arm `return;` or `{ return; }`) before `at` in the same block. Each
/// thread runs the statements it ran before, as in [`split_conditional`] (the condition
/// evaluated again or saved, declarations the rest of the block uses hoisted before the
/// guard). Every statement involved must stand on lines of its own.
///
/// When `at` lies in a loop (through loops and their braced bodies) that the early return
/// precedes in its block, the return moves past that loop instead: inside it every run of
/// statements that holds no barrier is guarded, while the barriers and the loops on the way to
/// `at` stay for every thread (declarations the rest of a body uses hoisted before their guard):
///
/// ```text
///   if (row >= n) return;            float acc;
///   float acc = 0;                   if (!(row >= n)) {
///   for (t = 0; t < T; ++t) {          acc = 0;
///     tile[ty][tx] = A[..];          }
///     __syncthreads();               for (t = 0; t < T; ++t) {
///     acc += tile[..][tx];             if (!(row >= n)) {
///     __syncthreads();        ->         tile[ty][tx] = A[..];
///   }                                  }
///   C[row] = acc;                      __syncthreads();
///                                      if (!(row >= n)) {
///                                        acc += tile[..][tx];
///                                      }
///                                      __syncthreads();
///                                    }
///                                    if (row >= n) return;
///                                    C[row] = acc;
/// ```
///
/// The threads that returned now run the loops' headers, so each header must read no memory
/// and call nothing (no `[`, `->` or call parentheses); a statement that sets a variable of
/// such a header (`int j = 0;`, `j++;` for a `while` inside) runs for every thread too, and
/// must compute it from header variables and constants only; the condition is saved first when
/// the loop changes one of its variables. Whether every thread then runs the loop alike is for
/// the verifier to say on the restructured text.
///
/// Errors: as [`split_conditional`]'s, and [`FixError::CannotRestructure`] when no early return
/// stands before `at` in its block (or before a loop holding it), the lines are shared, a loop
/// on the way is no braced `for`/`while` loop, its header may read memory, or a statement of
/// it holds a barrier off the way to `at`.
pub fn delay_return(source: &str, stmts: &StmtTable, at: StmtId, hoist: bool) -> Result<Restructure, FixError> {
    let get = |id: StmtId| stmts.stmts.get(id).ok_or(FixError::UnknownStmt { stmt: id });
    let no = |reason: &str| FixError::CannotRestructure { stmt: at, reason: reason.to_string() };
    let src = source;
    let s = get(at)?;
    check_range(src, at, s.range)?;
    if hoist && s.barrier_call.is_none() {
        return Err(no("the statement is not a barrier call"));
    }
    // The statements of `at`'s block, in order; it ends where its last statement ends.
    if s.parent.is_some_and(|p| stmts.stmts.get(p).is_some_and(|b| b.kind != StmtKind::Compound)) {
        return Err(no("the statement is not a member of a block"));
    }
    // The statement the return moves past: `at`, or the loop that holds it (through loops and
    // their braced bodies only) when the early return stands before that loop in its block.
    let early_before = |x: StmtId| {
        let sib = stmts.siblings(x);
        let pos = sib.iter().position(|&c| c == x)?;
        sib[..pos].iter().rposition(|&y| stmts.early_return(y).is_some()).map(|r| (sib, pos, r))
    };
    let mut target = at;
    let mut found = early_before(at);
    if found.is_none() {
        let mut cur = at;
        while let Some(body) = stmts.stmts.get(cur).and_then(|c| c.parent) {
            let Some(l) = stmts.stmts.get(body).and_then(|b| b.parent) else { break };
            if stmts.stmts[body].kind != StmtKind::Compound || stmts.loop_body(l) != Some(body) {
                break;
            }
            if let Some(f) = early_before(l) {
                target = l;
                found = Some(f);
                break;
            }
            cur = l;
        }
    }
    let (siblings, pos, r_pos) =
        found.ok_or_else(|| no("no early `return` stands before it in its block or before a loop that holds it"))?;
    let block_end = siblings.last().and_then(|&l| stmts.stmts.get(l)).map_or(s.range.end, |l| l.range.end);
    let r_id = siblings[r_pos];
    let r = get(r_id)?;
    let t = get(target)?;
    let branch = stmts.early_return(r_id).ok_or_else(|| no("no early `return` stands before it in its block"))?;
    let first = &siblings[r_pos + 1..pos];
    let past_loop = target != at;
    if !hoist && !past_loop && first.is_empty() {
        return Err(no("no statement stands between the early return and it"));
    }
    let (Some(r_lines), Some((_, ind)), Some(_)) =
        (whole_lines(src, r.range), indentation(src, r.range.start), indentation(src, t.range.start))
    else {
        return Err(no("the statements do not stand on lines of their own"));
    };
    let t_lines = whole_lines(src, t.range);
    if (hoist || past_loop) && t_lines.is_none() {
        return Err(no("the barrier or its loop does not stand on lines of its own"));
    }
    let nl = newline(src);
    let first_text = TextRange { start: r_lines.end, end: line_start(src, t.range.start) };
    // The end of the replaced text: after the barrier (with `hoist`) or the loop.
    let second_start = if hoist || past_loop { t_lines.map_or(t.range.end, |l| l.end) } else { first_text.end };
    let later = words(&src[first_text.end..block_end.max(first_text.end)]);
    let half = first_half(src, stmts, first, first_text, &later).map_err(|r| no(&r))?;
    // A hoisted name must not stand for another variable in the condition or before its own
    // declaration.
    for (_, n) in &half.hoisted {
        let decl = first.iter().filter_map(|&d| stmts.stmts.get(d)).find(|d| d.local.as_ref().is_some_and(|l| &l.name == n));
        if decl.is_some_and(|d| words(&src[r.range.start..d.range.start]).contains(n.as_str())) {
            return Err(no(&format!("`{n}` names another variable before its declaration")));
        }
    }
    let cond_text = src[branch.cond.start..branch.cond.end].to_string();
    // The condition is evaluated after the guarded statements and the barrier (or, past a
    // loop, in each of its guards): again when that gives the same value, else once before
    // them (saved).
    let loop_changes = |names: &[String]| past_loop && names.iter().any(|n| t.lvalues.contains(n));
    let repeat = branch.repeatable && (half.stable)(&branch.names) && !loop_changes(&branch.names);
    let saved = (!repeat).then(|| fresh_name(src, "cond"));
    let neg = match &saved {
        Some(n) => format!("!{n}"),
        None => format!("!({cond_text})"),
    };
    // One level of indentation: the block's statements relative to its `{` line (a function
    // body's relative to column 1).
    let outer = match t.parent.and_then(|p| stmts.stmts.get(p)) {
        Some(b) => line_indentation(src, b.range.start),
        None => "",
    };
    let unit = indent_unit(outer, ind);
    let mut out = String::new();
    if let Some(n) = &saved {
        out.push_str(&format!("{ind}bool {n} = {cond_text};{nl}"));
    }
    if !first.is_empty() {
        out.push_str(&half.guarded(src, first_text, &neg, (ind, &unit, nl)));
    }
    if past_loop {
        let path: HashSet<StmtId> = stmts.ancestors(at).collect();
        // The words of the headers of the loops on the way to `at` (their control variables).
        let mut control: HashSet<&str> = HashSet::new();
        for &a in &path {
            if let (Some(l), Some(b)) = (stmts.stmts.get(a), stmts.loop_body(a).and_then(|b| stmts.stmts.get(b))) {
                if t.range.contains_range(&l.range) {
                    control.extend(words(&src[l.range.start..b.range.start.max(l.range.start)]));
                }
            }
        }
        let cx = GuardCx { src, stmts, at, hoist, path: &path, control: &control, neg: &neg, nl };
        out.push_str(&cx.guard_loop(target).map_err(|r| no(&r))?);
    } else if hoist {
        out.push_str(&src[line_start(src, s.range.start)..second_start]);
    }
    // The early return itself, as written (its condition by name when saved).
    let r_text = match &saved {
        Some(n) => format!("{}{}{}", &src[r_lines.start..branch.cond.start], n, &src[branch.cond.end..r_lines.end]),
        None => src[r_lines.start..r_lines.end].to_string(),
    };
    out.push_str(&r_text);
    let r_stmt = one_line(&src[r.range.start..r.range.end]);
    let note = if past_loop {
        format!(
            "the early return `{r_stmt}` now follows the loop at line {}, whose statements are guarded by `{neg}`, so that \
             every thread reaches the loop's barriers (the threads that returned early skipped them)",
            src[..t.range.start].matches('\n').count() + 1
        )
    } else if hoist {
        format!(
            "the early return `{r_stmt}` now follows `{}`, so that every thread reaches the barrier (the threads that returned \
             early skipped it)",
            one_line(&src[s.range.start..s.range.end])
        )
    } else {
        format!("the early return `{r_stmt}` is moved down, so that a barrier before it is reached by every thread")
    };
    Ok(Restructure {
        edit: Edit::replacement(TextRange { start: r_lines.start, end: second_start }, out),
        kind: RestructureKind::DelayReturn,
        if_stmt: r_id,
        moved_barrier: (hoist && !past_loop).then(|| src[s.range.start..s.range.end].trim().to_string()),
        note,
    })
}

/// The words of scalar types a loop's control variable may be declared with.
const SCALAR_TYPE_WORDS: &[&str] = &["int", "unsigned", "signed", "long", "short", "char", "size_t", "uint", "bool"];

/// What guarding a loop's statements for [`delay_return`] needs (the barrier past a loop).
struct GuardCx<'a> {
    src: &'a str,
    stmts: &'a StmtTable,
    /// The barrier place, and whether it is the user's barrier (else a statement a new barrier
    /// goes before).
    at: StmtId,
    hoist: bool,
    /// `at` and its ancestors.
    path: &'a HashSet<StmtId>,
    /// The words of the headers of the loops on the way to `at`.
    control: &'a HashSet<&'a str>,
    /// The guard's condition (`!(c)` or `!cond`).
    neg: &'a str,
    nl: &'a str,
}

impl GuardCx<'_> {
    /// The whole lines of loop `l` with the runs of its body's statements that hold no barrier
    /// guarded, the loops on the way to `at` guarded the same way.
    fn guard_loop(&self, l: StmtId) -> Result<String, String> {
        let (src, stmts) = (self.src, self.stmts);
        let lp = &stmts.stmts[l];
        if !matches!(lp.kind, StmtKind::For | StmtKind::While) {
            return Err("only `for` and `while` loops can be run by threads that returned early".to_string());
        }
        let body = stmts.loop_body(l).map(|b| &stmts.stmts[b]).ok_or("the loop's body is not in braces")?;
        let header = &src[lp.range.start..body.range.start];
        if header.matches('(').count() != 1 || header.contains('[') || header.contains("->") {
            return Err(format!(
                "the loop header `{}` may read memory or call a function, and the threads that returned early would run it",
                one_line(header)
            ));
        }
        let lines = whole_lines(src, lp.range).ok_or("the loop does not stand on lines of its own")?;
        let open_end = body.range.start + 1;
        let open_line_end = src[open_end..].find('\n').map(|i| open_end + i + 1).ok_or("the loop's body does not span lines")?;
        let close = body.range.end - 1;
        let close_line = line_start(src, close);
        if !src[open_end..open_line_end].trim().is_empty() || !src[close_line..close].trim().is_empty() || close_line < open_line_end {
            return Err("the loop's braces do not stand at the ends of their lines".to_string());
        }
        let kids: Vec<StmtId> = body.children.clone();
        let (kid_ind, unit) = match kids.first().and_then(|&k| indentation(src, stmts.stmts[k].range.start)) {
            Some((_, i)) => (i.to_string(), indent_unit(line_indentation(src, lp.range.start), i)),
            None => return Err("the loop's statements do not stand on lines of their own".to_string()),
        };
        let mut out = src[lines.start..open_line_end].to_string();
        let mut at = open_line_end;
        let mut run: Vec<StmtId> = vec![];
        for &k in &kids {
            let st = &stmts.stmts[k];
            let k_lines = whole_lines(src, st.range).ok_or("the loop's statements do not stand on lines of their own")?;
            let on_path = self.path.contains(&k);
            let holds_barrier = stmts.stmts.values().any(|d| d.barrier_call.is_some() && st.range.contains_range(&d.range));
            if k == self.at && !self.hoist && !holds_barrier {
                // The new barrier's place: a run starts at `at`.
                self.flush(&mut run, &mut out, &mut at, body.range.end, &kid_ind, &unit)?;
                run.push(k);
                continue;
            }
            // Every thread runs a barrier, and a statement of the loops' own control; a loop on
            // the way to `at` (or `at` itself, a loop with barriers, before which the new barrier
            // goes) is guarded inside the same way.
            let barrier = (k == self.at && self.hoist) || (!on_path && st.barrier_call.is_some());
            let keep = barrier || (!on_path && self.is_control(st)?);
            if keep || on_path {
                self.flush(&mut run, &mut out, &mut at, body.range.end, &kid_ind, &unit)?;
                if keep {
                    out.push_str(&src[at..k_lines.end]);
                } else {
                    out.push_str(&src[at..k_lines.start]);
                    out.push_str(&self.guard_loop(k)?);
                }
                at = k_lines.end;
                continue;
            }
            if holds_barrier {
                return Err(format!(
                    "`{}` holds a barrier that the threads that returned early would skip",
                    one_line(&src[st.range.start..st.range.end])
                ));
            }
            run.push(k);
        }
        self.flush(&mut run, &mut out, &mut at, body.range.end, &kid_ind, &unit)?;
        out.push_str(&src[at..lines.end]);
        Ok(out)
    }

    /// Whether statement `st` sets a variable of a loop header on the way (`int j = 0;`, `j++;`
    /// in a `while` body): it is the loops' own control, which every thread runs, when it
    /// computes such variables from each other and constants only; any other change of them
    /// is an error.
    fn is_control(&self, st: &syncfix_kir::Stmt) -> Result<bool, String> {
        if !st.lvalues.iter().any(|n| self.control.contains(n.as_str())) {
            return Ok(false);
        }
        let text = &self.src[st.range.start..st.range.end];
        let known = |w: &str| self.control.contains(w) || w.starts_with(|c: char| c.is_ascii_digit()) || SCALAR_TYPE_WORDS.contains(&w);
        if text.contains(['[', '(', '*', '&']) || text.contains("->") || !words(text).iter().all(|w| known(w)) {
            return Err(format!(
                "`{}` changes a variable of the loop's header, and the threads that returned early would skip it",
                one_line(text)
            ));
        }
        Ok(true)
    }

    /// Appends the text since `at` and the statements of `run` guarded (their declarations that
    /// the rest of the body, up to `body_end`, uses hoisted before the guard); empties `run`.
    fn flush(&self, run: &mut Vec<StmtId>, out: &mut String, at: &mut usize, body_end: usize, ind: &str, unit: &str) -> Result<(), String> {
        let (Some(&a), Some(&b)) = (run.first(), run.last()) else { return Ok(()) };
        let (src, nl) = (self.src, self.nl);
        let start = line_start(src, self.stmts.stmts[a].range.start);
        let end = whole_lines(src, self.stmts.stmts[b].range).map_or(self.stmts.stmts[b].range.end, |l| l.end);
        out.push_str(&src[*at..start]);
        let text = TextRange { start, end };
        let later = words(&src[end..body_end.max(end)]);
        let half = first_half(src, self.stmts, run, text, &later)?;
        out.push_str(&half.guarded(src, text, self.neg, (ind, unit, nl)));
        *at = end;
        run.clear();
        Ok(())
    }
}
