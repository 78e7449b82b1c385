//! Text of a restructuring: the first half of a split (declarations hoisted, the rest guarded),\n//! a statement on one line, a range with edits applied, lines indented.

use super::*;

/// What splitting after the statements `first` (whose text is `first_text`) takes: the
/// declarations among them that `later` (the words of the text after the split) uses, hoisted
/// as `TYPE NAME;`, and the edits of `first_text` that leave their initialization in place.
pub(super) struct FirstHalf<F: Fn(&[String]) -> bool> {
    pub(super) hoisted: Vec<(String, String)>,
    pub(super) edits: Vec<Edit>,
    /// Whether a condition naming these variables gives the same value after the first half:
    /// none of them is an lvalue in it (or a word of text in it that is no recorded
    /// statement), nor hoisted.
    pub(super) stable: F,
}

impl<F: Fn(&[String]) -> bool> FirstHalf<F> {
    /// The hoisted declarations, then the statements (`text`, with the edits that leave their
    /// initializations in place) in `if (neg) { ... }`; `(ind, unit, nl)`: the statements'
    /// indentation, one more level, the newline.
    pub(super) fn guarded(&self, src: &str, text: TextRange, neg: &str, (ind, unit, nl): (&str, &str, &str)) -> String {
        let mut out: String = self.hoisted.iter().map(|(ty, name)| format!("{ind}{ty} {name};{nl}")).collect();
        out.push_str(&format!("{ind}if ({neg}) {{{nl}"));
        out.push_str(&indent_lines(&slice_with_edits(src, text, &self.edits), unit));
        out.push_str(&format!("{ind}}}{nl}"));
        out
    }
}

pub(super) fn first_half<'a>(
    src: &'a str,
    stmts: &'a StmtTable,
    first: &[StmtId],
    first_text: TextRange,
    later: &HashSet<&str>,
) -> Result<FirstHalf<impl Fn(&[String]) -> bool + 'a>, String> {
    let mut hoisted: Vec<(String, String)> = vec![];
    let mut edits: Vec<Edit> = vec![];
    // Names the first half may change (clang's view of each statement), or every word of its
    // text where it holds text that is no recorded statement.
    let mut changed: HashSet<String> = HashSet::new();
    let mut covered = first_text.start;
    let mut gaps = String::new();
    for &d in first {
        let Some(st) = stmts.stmts.get(d) else { return Err(format!("unknown statement {d}")) };
        gaps.push_str(&src[covered.min(st.range.start)..st.range.start]);
        covered = covered.max(st.range.end);
        changed.extend(st.lvalues.iter().cloned());
        if st.kind != StmtKind::Decl {
            continue;
        }
        let Some(local) = &st.local else {
            let text = &src[st.range.start..st.range.end];
            if words(text).iter().any(|w| later.contains(w)) {
                return Err(format!("the declaration `{}` cannot be moved before the `if`", text.trim()));
            }
            continue;
        };
        if !later.contains(local.name.as_str()) {
            continue;
        }
        let Some(ty) = &local.hoistable_type else {
            return Err(format!("the declaration of `{}` cannot be moved before the `if`", local.name));
        };
        hoisted.push((ty.clone(), local.name.clone()));
        edits.push(match local.init {
            Some(_) => Edit::deletion(TextRange { start: st.range.start, end: local.name_range.start }),
            None => Edit::deletion(whole_lines(src, st.range).unwrap_or(st.range)),
        });
    }
    gaps.push_str(&src[covered.min(first_text.end)..first_text.end]);
    changed.extend(words(&gaps).into_iter().map(str::to_string));
    changed.extend(hoisted.iter().map(|(_, n)| n.clone()));
    Ok(FirstHalf { hoisted, edits, stable: move |names: &[String]| !names.iter().any(|n| changed.contains(n)) })
}

/// `text` on one line (runs of whitespace as one space), at most 60 characters.
pub(super) fn one_line(text: &str) -> String {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.chars().count() > 60 {
        format!("{}...", t.chars().take(57).collect::<String>())
    } else {
        t
    }
}

/// `range` of `src` with `edits` (sorted, inside `range`, not overlapping) applied.
pub(super) fn slice_with_edits(src: &str, range: TextRange, edits: &[Edit]) -> String {
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

/// `text` with `unit` before each line that is not blank.
pub(super) fn indent_lines(text: &str, unit: &str) -> String {
    text.split_inclusive('\n').map(|l| if l.trim().is_empty() { l.to_string() } else { format!("{unit}{l}") }).collect()
}
