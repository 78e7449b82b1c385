//! A conditional split in two around a barrier (ARCHITECTURE.md, "crates/fix"): the repair of
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
//! evaluated once (saved in a `bool` unless it reads no memory, has no side effect and names no
//! variable that the first half mentions), and the declarations of the first half that the
//! second half uses are hoisted before the `if` (`TYPE NAME;`, the initialization left in place
//! as an assignment). What changes is only where the barrier stands; whether the result is free
//! of races and divergence is for the verifier to say, on the patched text.

use crate::layout::{indentation, line_start, newline, whole_lines, words};
use crate::build::check_range as check_stmt_range;
use crate::{Edit, FixError};
use std::collections::HashSet;
use syncfix_kir::{StmtId, StmtKind, StmtTable, TextRange};

/// A conditional split in two by [`split_conditional`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restructure {
    /// The one edit: the `if` statement replaced by its two halves (with the barrier between
    /// them, the saved condition and the hoisted declarations before them).
    pub edit: Edit,
    /// The `if` statement split.
    pub if_stmt: StmtId,
    /// The user's barrier statement moved between the halves, as written (`None` without
    /// `hoist`).
    pub moved_barrier: Option<String>,
    /// What was done, for the user (one sentence).
    pub note: String,
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
/// or outside the text; [`FixError::DoesNotFit`] (with the reason) when `at` is not a member of
/// an `if` arm in braces, the `if` has an init-statement or condition variable, `hoist` names a
/// statement that is not a barrier call, nothing of the arm stands before `at` (without
/// `hoist`: a site before the `if` is already there), or a declaration of the first half that
/// the second uses cannot be hoisted.
pub fn split_conditional(source: &str, stmts: &StmtTable, at: StmtId, hoist: bool) -> Result<Restructure, FixError> {
    let get = |id: StmtId| stmts.stmts.get(id).ok_or(FixError::UnknownStmt { stmt: id });
    let no = |reason: &str| FixError::CannotRestructure { stmt: at, reason: reason.to_string() };
    let s = get(at)?;
    check_stmt_range(source, at, s.range)?;
    let arm_id = s.parent.ok_or_else(|| no("the statement is not inside a conditional"))?;
    let arm = get(arm_id)?;
    let if_id = arm.parent.ok_or_else(|| no("the statement is not inside a conditional"))?;
    let cond_stmt = get(if_id)?;
    let branch = match (&cond_stmt.kind, &cond_stmt.branch, arm.kind) {
        (StmtKind::If, Some(b), StmtKind::Compound) => b,
        _ => return Err(no("the statement is not a member of a braced arm of an `if` statement")),
    };
    check_stmt_range(source, arm_id, arm.range)?;
    check_stmt_range(source, if_id, cond_stmt.range)?;
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

    // Declarations of the first half that the second half uses are hoisted.
    let later: HashSet<&str> = words(&src[second_text.start..second_text.end]);
    let mut hoisted: Vec<(String, String)> = vec![];
    let mut first_edits: Vec<Edit> = vec![];
    for &d in first {
        let st = get(d)?;
        if st.kind != StmtKind::Decl {
            continue;
        }
        let Some(local) = &st.local else {
            let text = &src[st.range.start..st.range.end];
            if words(text).iter().any(|w| later.contains(w)) {
                return Err(no(&format!("the declaration `{}` cannot be moved before the `if`", text.trim())));
            }
            continue;
        };
        if !later.contains(local.name.as_str()) {
            continue;
        }
        let Some(ty) = &local.hoistable_type else {
            return Err(no(&format!("the declaration of `{}` cannot be moved before the `if`", local.name)));
        };
        hoisted.push((ty.clone(), local.name.clone()));
        first_edits.push(match local.init {
            Some(_) => Edit::deletion(TextRange { start: st.range.start, end: local.name_range.start }),
            None => Edit::deletion(whole_lines(src, st.range).unwrap_or(st.range)),
        });
    }

    // The condition: evaluated again by the second `if`, or saved.
    let cond_text = src[branch.cond.start..branch.cond.end].to_string();
    // Names the first half may change (clang's view of each statement), or every word of its
    // text where it holds text that is no recorded statement.
    let mut changed: HashSet<&str> = HashSet::new();
    let mut covered = first_text.start;
    let mut gaps = String::new();
    for &d in first {
        let st = get(d)?;
        gaps.push_str(&src[covered.min(st.range.start)..st.range.start]);
        covered = covered.max(st.range.end);
        changed.extend(st.lvalues.iter().map(String::as_str));
    }
    gaps.push_str(&src[covered.min(first_text.end)..first_text.end]);
    let gap_words = words(&gaps);
    let has_first = !first.is_empty();
    let has_second = !rest.is_empty() || (!in_else && branch.else_arm.is_some());
    let moved = has_second && (has_first || hoist);
    let names_stable = !branch
        .names
        .iter()
        .any(|n| changed.contains(n.as_str()) || gap_words.contains(n.as_str()) || hoisted.iter().any(|(_, h)| h == n));
    let saved = (moved && !(branch.repeatable && names_stable)).then(|| fresh_name(src, "cond"));
    let cond_ref = saved.clone().unwrap_or_else(|| cond_text.clone());
    // The `if` head with the condition as it is referred to.
    let head = |from: usize, to: usize| -> String {
        format!("{}{}{}", &src[from..branch.cond.start], cond_ref, &src[branch.cond.end..to])
    };
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
            let then_end = branch.then_arm.and_then(|t| stmts.stmts.get(t)).map(|t| t.range.end).ok_or_else(|| no("the `then` arm is not recorded"))?;
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
            let unit = indent_unit(src, arm, stmts, &ind);
            let inner: Vec<String> = replacement.split(nl).map(|l| if l.is_empty() { l.to_string() } else { format!("{unit}{l}") }).collect();
            format!("{ind}{{{nl}{}{nl}{ind}}}", inner.join(nl))
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
    let line = src[..cond_stmt.range.start].matches('\n').count() + 1;
    let note = if hoist {
        format!(
            "the conditional at line {line} is split in two around `{}`, so that every thread reaches the barrier (it was \
             inside a conditional that threads take differently)",
            src[s.range.start..s.range.end].trim()
        )
    } else {
        format!("the conditional at line {line} is split in two, so that a barrier between the halves is reached by every thread")
    };
    Ok(Restructure { edit: Edit::replacement(TextRange { start: range_start, end: cond_stmt.range.end }, replacement),
        if_stmt: if_id,
        moved_barrier: hoist.then(|| src[s.range.start..s.range.end].trim().to_string()),
        note,
    })
}

/// `range` of `src` with `edits` (sorted, inside `range`, not overlapping) applied.
fn slice_with_edits(src: &str, range: TextRange, edits: &[Edit]) -> String {
    let mut out = String::new();
    let mut at = range.start;
    for e in edits {
        if e.range.start < at || e.range.end > range.end {
            continue;
        }
        out.push_str(&src[at..e.range.start]);
        out.push_str(&e.replacement);
        at = e.range.end;
    }
    out.push_str(&src[at..range.end]);
    out
}

/// `base`, or `base1`, `base2`, ...: the first that is not a word of `src`.
fn fresh_name(src: &str, base: &str) -> String {
    let taken = words(src);
    (0..).map(|i| if i == 0 { base.to_string() } else { format!("{base}{i}") }).find(|n| !taken.contains(n.as_str())).unwrap_or_default()
}

/// One level of indentation as the arm's statements are indented relative to the `if`
/// (four spaces when that cannot be told).
fn indent_unit(src: &str, arm: &syncfix_kir::Stmt, stmts: &StmtTable, ind: &str) -> String {
    arm.children
        .first()
        .and_then(|&c| stmts.stmts.get(c))
        .and_then(|c| indentation(src, c.range.start))
        .and_then(|(_, i)| i.strip_prefix(ind).filter(|u| !u.is_empty()).map(str::to_string))
        .unwrap_or_else(|| "    ".to_string())
}
