//! From changes to edits (ARCHITECTURE.md, "crates/fix").
//!
//! Each statement with changes gets a *plan* (its barriers to insert before it, its barriers
//! to put between the read and the write of a split, whether it is removed). A plan becomes
//! *pieces*: insertions at an offset and replacements of a range. Insertions at one offset
//! from several (nested) statements are merged into one edit in a fixed order, so that changes
//! on statements nested in each other compose.

use crate::apply::sorted_checked;
use crate::layout;
use crate::{Applicability, BarrierText, Change, Edit, Fix, FixError};
use std::collections::{BTreeMap, HashSet};
use syncfix_kir::{BarrierCall, CopyCall, EntityRef, PendingEvent, ReadModifyWrite, Stmt, StmtId, StmtKind, StmtTable, TextRange};

/// Builds the edits that print `changes` on `source`.
///
/// `source` is the main file's text and `stmts` its statement table from clang's AST (byte
/// ranges into `source`). Formatting (ARCHITECTURE.md, "crates/fix"):
/// - `Insert`: on a line of its own with the statement's indentation when the statement starts
///   its line, else inline just before it followed by a space.
/// - `InsertSplit` on `LHS op= RHS;`: `T tmp = RHS; <barrier> LHS op= tmp;`, one line each
///   when the statement starts its line, else inline; on a read-modify-write (`x++;`,
///   `x op= e;`, [`ReadModifyWrite`]): `T tmp = x; <barrier> x = tmp + 1;` (`x = tmp op e;`).
///   `T` is the split's `rhs_type` without
///   top-level qualifiers; the name is `tmp`, `tmp1`, ... — not a word of the file, distinct
///   within the fix. In a `switch` body (where a declaration could be jumped over) the three
///   statements are wrapped in braces.
/// - Barriers at one statement: `Insert`s first, then the split; block before grid barriers.
///   Duplicate changes count once.
/// - A sole body (`sole_body`, e.g. `if (c) s;`) that gets an insertion is wrapped in braces
///   where it stands, split or not: `if (c) { __syncthreads(); s; }`.
/// - `InsertWait`: `wait_group_events(1, &e);` for each pending event, then its barrier, as an
///   `Insert` is placed; a copy whose event no variable keeps gets `event_t e = ` before its
///   call (`e` fresh).
/// - `Remove`: the statement's whole line(s) when it stands alone, else the statement and the
///   blanks after it (or before it, at the end of a line); a sole body becomes `{}`. `Remove`
///   and `Insert` on one statement replace the barrier by the inserted ones.
/// - A grid barrier adds `#include <cooperative_groups.h>` when the file has none, and a note
///   that the kernel must be launched cooperatively.
///
/// Returns the sorted, non-overlapping edits with their [`Applicability`] and notes. Errors:
/// [`FixError::UnknownStmt`], [`FixError::BadRange`] (a statement's or RHS range outside
/// `source`), [`FixError::DoesNotFit`] (`InsertSplit` without a usable split, `Remove` of a
/// statement that is not a removable barrier, or both on one statement) and
/// [`FixError::Overlap`] (changes whose edits collide, e.g. inside the RHS of a split).
pub fn build_fix(source: &str, stmts: &StmtTable, changes: &[Change]) -> Result<Fix, FixError> {
    let plans = plan(source, stmts, changes)?;
    let (names, step_names) = temp_names(source, &plans);
    let nl = layout::newline(source);
    let mut pieces = Pieces::default();
    // `event_t NAME = ` before each copy call whose event a wait names, once.
    let mut binds: Vec<(usize, &str)> =
        plans.values().flat_map(|p| &p.events).filter_map(|e| Some((e.bind_at?, e.name.as_str()))).collect();
    binds.sort();
    binds.dedup();
    for (at, name) in binds {
        pieces.insert(at, Key::BIND, format!("event_t {name} = "));
    }
    for (&id, p) in &plans {
        let braced_split = !p.splits.is_empty() && !p.stmt.sole_body && in_switch_body(stmts, id);
        let name = names.iter().find(|(s, _)| *s == id).map(|(_, n)| n.as_str());
        if let (Some(copy), Some((_, d, s))) = (p.copy, step_names.iter().find(|(s, _, _)| *s == id)) {
            emit_steps(Text { source, nl, stmts }, p, copy, (d, s), &mut pieces);
        }
        emit(Text { source, nl, stmts }, id, p, name, braced_split, &mut pieces);
    }
    let grid = plans.values().any(|p| p.inserts.iter().chain(&p.splits).chain(p.steps.values().flatten()).any(|b| b.is_grid()));
    if grid {
        if let Some((at, text)) = layout::cooperative_groups_include(source, nl) {
            pieces.insert(at, Key::INCLUDE, text);
        }
    }
    let edits = pieces.into_edits(source)?;
    let applicability = if grid {
        Applicability::DisplayOnly
    } else if plans.values().any(|p| p.remove && !p.upgrade) {
        Applicability::Unsafe
    } else {
        Applicability::Safe
    };
    Ok(Fix {
        edits,
        applicability,
        notes: grid_notes(&plans).into_iter().chain(wait_notes(source, stmts, &plans)).chain(step_notes(source, &plans)).collect(),
    })
}

/// What happens at one statement.
struct Plan<'a> {
    stmt: &'a Stmt,
    /// The events waited for before the statement (`wait_group_events(1, &e);` each, before
    /// `inserts`); one kept in no variable is declared at its copy (`event_t e = `).
    events: Vec<PendingEvent>,
    /// Barriers before the statement, block barriers first.
    inserts: Vec<BarrierText>,
    /// Barriers between the read of the RHS and the write, block barriers first.
    splits: Vec<BarrierText>,
    /// Barriers at the end of the loop's braced body.
    ends: Vec<BarrierText>,
    remove: bool,
    /// The removal is an [`Change::Upgrade`]: the statement becomes `inserts` (no barrier is
    /// lost, so the fix stays safe).
    upgrade: bool,
    /// The RHS range, the temporary's type and the read-modify-write (if it is one), when
    /// `splits` is not empty.
    split: Option<(TextRange, String, Option<ReadModifyWrite>)>,
    /// Barriers inside a copy call, by the byte offset they stand before.
    steps: BTreeMap<u32, Vec<BarrierText>>,
    /// The copy call, when `steps` is not empty.
    copy: Option<&'a CopyCall>,
}

/// Groups `changes` by statement (in id order) and checks that each fits its statement.
fn plan<'a>(source: &str, stmts: &'a StmtTable, changes: &[Change]) -> Result<BTreeMap<StmtId, Plan<'a>>, FixError> {
    let mut plans: BTreeMap<StmtId, Plan<'a>> = BTreeMap::new();
    for &change in changes {
        let id = change.stmt();
        let stmt = stmts.stmts.get(id).ok_or(FixError::UnknownStmt { stmt: id })?;
        check_range(source, id, stmt.range)?;
        let p = plans.entry(id).or_insert_with(|| Plan {
            stmt,
            events: Vec::new(),
            inserts: Vec::new(),
            splits: Vec::new(),
            ends: Vec::new(),
            remove: false,
            upgrade: false,
            split: None,
            steps: BTreeMap::new(),
            copy: None,
        });
        let misfit = |reason: &str| FixError::DoesNotFit { stmt: id, change, reason: reason.to_string() };
        match change {
            Change::Insert { barrier, .. } => push_unique(&mut p.inserts, barrier),
            Change::InsertWait { barrier, .. } => {
                let events = stmts
                    .pending_events(source, id)
                    .filter(|e| !e.is_empty())
                    .ok_or_else(|| misfit("no asynchronous copy pending there keeps its event in a variable"))?;
                for e in events {
                    if !p.events.contains(&e) {
                        p.events.push(e);
                    }
                }
                if let Some(b) = barrier {
                    push_unique(&mut p.inserts, b);
                }
            }
            Change::InsertSplit { barrier, .. } => {
                let split = stmt.split.as_ref().ok_or_else(|| misfit("the statement has no split"))?;
                check_range(source, id, split.rhs)?;
                if split.rhs.start == split.rhs.end || !stmt.range.contains_range(&split.rhs) {
                    return Err(misfit("the split's right-hand side is not inside the statement"));
                }
                let ty = layout::temp_type(&split.rhs_type)
                    .ok_or_else(|| misfit(&format!("cannot declare a temporary of type `{}`", split.rhs_type)))?;
                if let Some(rmw) = &split.rmw {
                    check_range(source, id, rmw.expr)?;
                    let operand_ok = rmw.operand.is_none_or(|o| rmw.expr.contains_range(&o) && o.start >= split.rhs.end);
                    if !stmt.range.contains_range(&rmw.expr) || !rmw.expr.contains_range(&split.rhs) || !operand_ok {
                        return Err(misfit("the read-modify-write's ranges do not nest"));
                    }
                }
                p.split = Some((split.rhs, ty, split.rmw.clone()));
                push_unique(&mut p.splits, barrier);
            }
            Change::InsertStep { offset, barrier, .. } => {
                let copy = stmt.copy.as_ref().ok_or_else(|| misfit("the statement is not a copy call"))?;
                for r in [copy.callee, copy.dst, copy.src, copy.len] {
                    check_range(source, id, r)?;
                    if !stmt.range.contains_range(&r) {
                        return Err(misfit("the copy call's arguments are not inside the statement"));
                    }
                }
                if offset == 0 {
                    return Err(misfit("a step boundary at the copy's first byte"));
                }
                p.copy = Some(copy);
                push_unique(p.steps.entry(offset).or_default(), barrier);
            }
            Change::Remove { .. } => {
                if stmt.barrier_call != Some(BarrierCall::Removable) {
                    return Err(misfit("the statement is not a removable barrier call"));
                }
                p.remove = true;
            }
            Change::InsertEnd { barrier, .. } => {
                if stmts.loop_body_close(source.as_bytes(), id).is_none() {
                    return Err(misfit("the statement is not a loop with a braced body"));
                }
                push_unique(&mut p.ends, barrier);
            }
            Change::Upgrade { barrier, .. } => {
                if stmt.barrier_call != Some(BarrierCall::Removable) {
                    return Err(misfit("the statement is not a removable barrier call"));
                }
                // The statement's text is replaced by the new barrier (a removal with an
                // insertion at the same statement prints as that).
                p.remove = true;
                p.upgrade = true;
                push_unique(&mut p.inserts, barrier);
            }
        }
        if p.remove && (!p.splits.is_empty() || !p.steps.is_empty()) {
            return Err(misfit("a statement cannot be both split and removed"));
        }
    }
    for p in plans.values_mut() {
        // Stable: block barriers (in the order given) before grid barriers.
        p.inserts.sort_by_key(|b| b.is_grid());
        p.splits.sort_by_key(|b| b.is_grid());
        p.ends.sort_by_key(|b| b.is_grid());
        for b in p.steps.values_mut() {
            b.sort_by_key(|b| b.is_grid());
        }
    }
    Ok(plans)
}

fn push_unique(v: &mut Vec<BarrierText>, b: BarrierText) {
    if !v.contains(&b) {
        v.push(b);
    }
}

pub(crate) fn check_range(source: &str, stmt: StmtId, range: TextRange) -> Result<(), FixError> {
    let ok =
        range.start <= range.end && range.end <= source.len() && source.is_char_boundary(range.start) && source.is_char_boundary(range.end);
    if ok {
        Ok(())
    } else {
        Err(FixError::BadRange { stmt, range, len: source.len() })
    }
}

/// The temporaries' names, given to split statements in source order: `tmp`, `tmp1`, ...,
/// skipping every word of the source and of the temporaries' types; then the pointers' names
/// of the copies printed in steps, in source order: `dst`/`src` or the first of `dst1`, ...
/// not taken.
fn temp_names(source: &str, plans: &BTreeMap<StmtId, Plan<'_>>) -> (Vec<(StmtId, String)>, Vec<(StmtId, String, String)>) {
    let mut names = layout::FreshNames::new(source);
    let in_order = |has: &dyn Fn(&Plan<'_>) -> bool| {
        let mut v: Vec<(usize, StmtId)> = plans.iter().filter(|(_, p)| has(p)).map(|(&id, p)| (p.stmt.range.start, id)).collect();
        v.sort();
        v.into_iter().map(|(_, id)| id).collect::<Vec<_>>()
    };
    for p in plans.values() {
        if let Some((_, ty, _)) = &p.split {
            names.avoid(ty);
        }
    }
    let temps = in_order(&|p| p.split.is_some()).into_iter().map(|id| (id, names.fresh("tmp"))).collect();
    let pointers = in_order(&|p| !p.steps.is_empty()).into_iter().map(|id| (id, names.fresh("dst"), names.fresh("src"))).collect();
    (temps, pointers)
}

/// The copy call of `p` as a block that copies in steps, the plan's barriers between them
/// (see [`Change::InsertStep`]): the statement's text is replaced. `names`: the destination and
/// source pointers' names.
fn emit_steps(text: Text<'_>, p: &Plan<'_>, copy: &CopyCall, names: (&str, &str), out: &mut Pieces) {
    let Text { source, nl, stmts } = text;
    let r = p.stmt.range;
    let t = |r: TextRange| source.get(r.start..r.end).unwrap_or_default().trim();
    let (f, len) = (t(copy.callee), t(copy.len));
    let (d, s) = names;
    let call = |from: u32, count: String| {
        let at = |base: &str| if from == 0 { base.to_string() } else { format!("{base} + {from}") };
        format!("{f}({}, {}, {count});", at(d), at(s))
    };
    let mut lines = vec![format!("char *{d} = (char *)({});", t(copy.dst)), format!("const char *{s} = (const char *)({});", t(copy.src))];
    let mut from = 0u32;
    for (&to, barriers) in &p.steps {
        lines.push(call(from, (to - from).to_string()));
        lines.extend(barriers.iter().map(|b| b.text().to_string()));
        from = to;
    }
    // The rest: the user's length less the bytes copied, folded when it is a literal.
    let rest = match layout::integer_literal(len) {
        Some(n) if n >= from as u64 => (n - from as u64).to_string(),
        _ => format!("{} - {from}", layout::operand(len)),
    };
    lines.push(call(from, rest));
    let replacement = match layout::indentation(source, r.start) {
        Some((_, ind)) => {
            let outer = p.stmt.parent.and_then(|q| stmts.stmts.get(q)).map_or("", |q| layout::line_indentation(source, q.range.start));
            let unit = layout::indent_unit(outer, ind);
            let body: String = lines.iter().map(|l| format!("{ind}{unit}{l}{nl}")).collect();
            format!("{{{nl}{body}{ind}}}")
        }
        None => format!("{{ {} }}", lines.join(" ")),
    };
    out.replace(r, replacement);
}

/// Whether a declaration at statement `id` could be jumped over by a `case` label: its parent
/// is a `switch`, a label (`Other`), or a compound statement that is a `switch` body.
fn in_switch_body(stmts: &StmtTable, id: StmtId) -> bool {
    let parent = |s: StmtId| stmts.stmts.get(s).and_then(|st| st.parent);
    let kind = |s: StmtId| stmts.stmts.get(s).map(|st| st.kind);
    match parent(id).and_then(|p| Some((p, kind(p)?))) {
        Some((_, StmtKind::Switch | StmtKind::Other)) => true,
        Some((p, StmtKind::Compound)) => parent(p).and_then(kind) == Some(StmtKind::Switch),
        _ => false,
    }
}

/// The order of insertions at one offset: the include line, then closing braces (inner
/// statements first), then text before statements (outer statements first), then an event's
/// declaration before a copy call.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Key {
    class: u8,
    /// For closings `usize::MAX - start` (later start = inner = first); for openings
    /// `usize::MAX - end` (later end = outer = first).
    extent: usize,
    /// Nesting depth: descending for closings, ascending for openings.
    depth: usize,
    id: usize,
}

impl Key {
    const INCLUDE: Key = Key { class: 0, extent: 0, depth: 0, id: 0 };

    /// A copy call's event declaration: last, just before the call.
    const BIND: Key = Key { class: 3, extent: 0, depth: 0, id: 0 };

    fn close(stmts: &StmtTable, id: StmtId) -> Key {
        let s = &stmts.stmts[id];
        Key { class: 1, extent: usize::MAX - s.range.start, depth: usize::MAX - depth(stmts, id), id: id.index() }
    }

    fn open(stmts: &StmtTable, id: StmtId) -> Key {
        let s = &stmts.stmts[id];
        Key { class: 2, extent: usize::MAX - s.range.end, depth: depth(stmts, id), id: id.index() }
    }
}

/// The number of known ancestors of `id` (bounded, so a cyclic table cannot hang).
fn depth(stmts: &StmtTable, id: StmtId) -> usize {
    let mut d = 0;
    let mut cur = stmts.stmts.get(id).and_then(|s| s.parent);
    while let Some(p) = cur {
        if d > stmts.stmts.len() {
            break;
        }
        d += 1;
        cur = stmts.stmts.get(p).and_then(|s| s.parent);
    }
    d
}

/// Insertions (merged per offset in [`Key`] order) and replacements.
#[derive(Default)]
struct Pieces {
    inserts: Vec<(usize, Key, String)>,
    replaces: Vec<Edit>,
}

impl Pieces {
    fn insert(&mut self, at: usize, key: Key, text: String) {
        self.inserts.push((at, key, text));
    }

    fn replace(&mut self, range: TextRange, text: impl Into<String>) {
        self.replaces.push(Edit::replacement(range, text));
    }

    /// The edits, sorted by position, insertions at one offset merged in [`Key`] order and
    /// deletions merged by [`merge_deletions`].
    fn into_edits(mut self, source: &str) -> Result<Vec<Edit>, FixError> {
        self.inserts.sort_by_key(|&(at, key, _)| (at, key));
        let mut edits: Vec<Edit> = Vec::new();
        for (at, _, text) in self.inserts {
            match edits.last_mut() {
                Some(last) if last.range.start == at => last.replacement.push_str(&text),
                _ => edits.push(Edit::insertion(at, text)),
            }
        }
        let replaces = merge_deletions(source, self.replaces);
        edits.extend(replaces);
        // A barrier replaced by the same barrier is no change.
        edits.retain(|e| source.get(e.range.start..e.range.end) != Some(e.replacement.as_str()));
        let order = sorted_checked(source, &edits)?;
        let mut slots: Vec<Option<Edit>> = edits.into_iter().map(Some).collect();
        Ok(order.into_iter().filter_map(|i| slots.get_mut(i).and_then(Option::take)).collect())
    }
}

/// `edits` with overlapping deletions merged (removing two adjacent barriers may claim the
/// blanks between them twice) and deletions widened by [`layout::widen_deletion`] (two
/// barriers that together fill a line take the line), until neither changes anything.
fn merge_deletions(source: &str, mut edits: Vec<Edit>) -> Vec<Edit> {
    loop {
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        let mut merged: Vec<Edit> = Vec::with_capacity(edits.len());
        for e in edits {
            match merged.last_mut() {
                Some(last) if last.replacement.is_empty() && e.replacement.is_empty() && e.range.start < last.range.end => {
                    last.range.end = last.range.end.max(e.range.end);
                }
                _ => merged.push(e),
            }
        }
        let mut changed = false;
        for e in merged.iter_mut().filter(|e| e.replacement.is_empty()) {
            let wide = layout::widen_deletion(source, e.range);
            changed |= wide != e.range;
            e.range = wide;
        }
        if !changed {
            return merged;
        }
        edits = merged;
    }
}

/// The file a fix is printed on: its text, its newline, its statement table.
#[derive(Copy, Clone)]
struct Text<'a> {
    source: &'a str,
    nl: &'a str,
    stmts: &'a StmtTable,
}

/// The pieces of one statement's plan. `name` is the temporary's name when the plan splits.
fn emit(text: Text<'_>, id: StmtId, p: &Plan<'_>, name: Option<&str>, braced_split: bool, out: &mut Pieces) {
    let Text { source, nl, stmts } = text;
    let s = p.stmt;
    let r = s.range;
    if let (false, Some(close)) = (p.ends.is_empty(), stmts.loop_body_close(source.as_bytes(), id)) {
        let ends: Vec<&str> = p.ends.iter().map(|b| b.text()).collect();
        match layout::indentation(source, close) {
            // `}` on its own line: the barriers on lines of their own before it, indented as
            // the body's last statement (or one step in from the brace).
            Some((line, brace_indent)) => {
                let last = stmts
                    .loop_body(id)
                    .and_then(|b| stmts.stmts[b].children.last())
                    .and_then(|c| layout::indentation(source, stmts.stmts[*c].range.start))
                    .map(|(_, i)| i.to_string());
                let indent = last.unwrap_or_else(|| format!("{brace_indent}  "));
                let text: String = ends.iter().map(|t| format!("{indent}{t}{nl}")).collect();
                out.insert(line, Key::close(stmts, id), text);
            }
            None => out.insert(close, Key::close(stmts, id), format!("{} ", ends.join(" "))),
        }
    }
    let own_line = layout::indentation(source, r.start);
    let waits: Vec<String> = p.events.iter().map(PendingEvent::wait).collect();
    let texts: Vec<&str> = waits.iter().map(String::as_str).chain(p.inserts.iter().map(|b| b.text())).collect();
    if p.remove {
        let (range, text) = if texts.is_empty() {
            if s.sole_body {
                (r, "{}".to_string())
            } else if let Some(lines) = layout::whole_lines(source, r) {
                (lines, String::new())
            } else {
                (layout::inline_deletion(source, r), String::new())
            }
        } else if s.sole_body && texts.len() > 1 {
            (r, format!("{{ {} }}", texts.join(" ")))
        } else if let (Some((_, indent)), false) = (own_line, s.sole_body) {
            (r, texts.join(&format!("{nl}{indent}")))
        } else {
            (r, texts.join(" "))
        };
        out.replace(range, text);
        return;
    }
    let mut items: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
    let mut braced = s.sole_body;
    if let (Some((rhs, ty, rmw)), Some(name)) = (&p.split, name) {
        let rhs_text = source.get(rhs.start..rhs.end).unwrap_or_default();
        items.push(format!("{ty} {name} = {rhs_text};"));
        items.extend(p.splits.iter().map(|b| b.text().to_string()));
        match rmw {
            // `x++` → `x = tmp + 1`, `x op= e` → `x = tmp op e` (`e` in parentheses unless it
            // is one token).
            Some(rmw) => {
                let operand = match rmw.operand {
                    None => "1".to_string(),
                    Some(o) => layout::operand(source.get(o.start..o.end).unwrap_or_default()),
                };
                out.replace(rmw.expr, format!("{rhs_text} = {name} {} {operand}", rmw.op));
            }
            None => out.replace(*rhs, name),
        }
        braced |= braced_split;
    }
    if items.is_empty() {
        return;
    }
    if braced {
        out.insert(r.start, Key::open(stmts, id), format!("{{ {} ", items.join(" ")));
        out.insert(r.end, Key::close(stmts, id), " }".to_string());
    } else if let Some((line_start, indent)) = own_line {
        let block: String = items.iter().map(|i| format!("{indent}{i}{nl}")).collect();
        out.insert(line_start, Key::open(stmts, id), block);
    } else {
        let lead = if layout::glued_to_previous(source, r.start) { " " } else { "" };
        out.insert(r.start, Key::open(stmts, id), format!("{lead}{} ", items.join(" ")));
    }
}

/// A note for each of the user's `wait_group_events` calls that, after the fix, waits again
/// for an event the fix now waits for earlier (no copy between the two): OpenCL releases an
/// event after its wait (OpenCL 1.2 §6.12.10), so the user's later wait can go. Not removed by
/// the fix: syncfix changes barriers, and the call is harmless to the verdict.
fn wait_notes(source: &str, stmts: &StmtTable, plans: &BTreeMap<StmtId, Plan<'_>>) -> Vec<String> {
    let line = |o: usize| source.get(..o).map_or(0, |t| t.matches('\n').count() + 1);
    let mut out = vec![];
    for p in plans.values().filter(|p| !p.events.is_empty()) {
        let site = p.stmt.range.start;
        for w in stmts.stmts.values() {
            let text = source.get(w.range.start..w.range.end).unwrap_or_default();
            let leaf = w.children.is_empty() && w.function == p.stmt.function && w.range.start > site;
            if !leaf || !text.trim_start().starts_with("wait_group_events") {
                continue;
            }
            let copies_between = source.get(site..w.range.start).is_some_and(|t| t.contains("async_work_group"));
            let again: Vec<&str> = p.events.iter().filter(|e| e.named_in(text)).map(|e| e.name.as_str()).collect();
            if copies_between || again.is_empty() {
                continue;
            }
            out.push(format!(
                "`{}` (line {}) waits again for `{}`, which the fix now waits for at line {}; OpenCL releases an event \
                 after its wait, so that call can be removed",
                text.trim(),
                line(w.range.start),
                again.join("`, `"),
                line(site)
            ));
        }
    }
    out
}

/// One note per copy call printed in steps: why, and the other fix when the overlap is a
/// mistake.
fn step_notes(source: &str, plans: &BTreeMap<StmtId, Plan<'_>>) -> Vec<String> {
    let line = |o: usize| source.get(..o).map_or(0, |t| t.matches('\n').count() + 1);
    plans
        .values()
        .filter_map(|p| Some((p, p.copy?)))
        .map(|(p, c)| {
            let callee = source.get(c.callee.start..c.callee.end).unwrap_or("memcpy");
            format!(
                "the `{callee}` at line {} now copies in steps with a barrier between them, because the bytes that \
                 different threads copy overlap; if they are not meant to, copy fewer bytes instead",
                line(p.stmt.range.start)
            )
        })
        .collect()
}

/// One note per kernel that gets a grid barrier, in source order.
fn grid_notes(plans: &BTreeMap<StmtId, Plan<'_>>) -> Vec<String> {
    let mut grid: Vec<(usize, &str)> = plans
        .values()
        .filter(|p| p.inserts.iter().chain(&p.splits).any(|b| b.is_grid()))
        .map(|p| (p.stmt.range.start, p.stmt.function.as_str()))
        .collect();
    grid.sort();
    let mut seen = HashSet::new();
    grid.into_iter()
        .filter(|(_, f)| seen.insert(*f))
        .map(|(_, f)| {
            format!(
                "`{f}` now contains a grid barrier: it must be launched cooperatively \
                 (`cudaLaunchCooperativeKernel`), with all of its blocks resident at once"
            )
        })
        .collect()
}
