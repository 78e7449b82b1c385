//! Applying edits to a text.

use crate::{Edit, FixError};

/// Applies `edits` (byte ranges of `source`, in any order) and returns the new text.
///
/// Edits are applied in order of position; an insertion at the start of a replaced range goes
/// before the replacement, one at its end after it.
///
/// Errors: [`FixError::EditOutOfBounds`] when a range is reversed, ends past the text or splits
/// a UTF-8 character; [`FixError::Overlap`] when two edits share text, when an insertion lies
/// strictly inside a replaced range, or when two insertions are at the same offset (their order
/// would be ambiguous — merge them into one edit).
pub fn apply_edits(source: &str, edits: &[Edit]) -> Result<String, FixError> {
    let order = sorted_checked(source, edits)?;
    let added: usize = edits.iter().map(|e| e.replacement.len()).sum();
    let mut out = String::with_capacity(source.len() + added);
    let mut pos = 0;
    for i in order {
        let e = &edits[i];
        // In bounds, on char boundaries and sorted without overlap: checked above.
        out.push_str(&source[pos..e.range.start]);
        out.push_str(&e.replacement);
        pos = e.range.end;
    }
    out.push_str(&source[pos..]);
    Ok(out)
}

/// The indices of `edits` sorted by `(start, end)` (stably), after checking that every range
/// is a range of `source` and that no two edits overlap (see [`apply_edits`]).
pub(crate) fn sorted_checked(source: &str, edits: &[Edit]) -> Result<Vec<usize>, FixError> {
    for e in edits {
        let r = e.range;
        if r.start > r.end || r.end > source.len() || !source.is_char_boundary(r.start) || !source.is_char_boundary(r.end) {
            return Err(FixError::EditOutOfBounds { range: r, len: source.len() });
        }
    }
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].range.start, edits[i].range.end));
    // The edit reaching furthest so far, and the previous edit.
    let mut furthest: Option<usize> = None;
    let mut prev: Option<usize> = None;
    for &i in &order {
        let r = edits[i].range;
        if let Some(f) = furthest {
            if r.start < edits[f].range.end {
                return Err(FixError::Overlap { first: edits[f].range, second: r });
            }
        }
        if let Some(p) = prev {
            let pr = edits[p].range;
            if pr == r && r.start == r.end {
                return Err(FixError::Overlap { first: pr, second: r });
            }
        }
        let reaches_further = match furthest {
            Some(f) => r.end > edits[f].range.end,
            None => true,
        };
        if reaches_further {
            furthest = Some(i);
        }
        prev = Some(i);
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncfix_kir::TextRange;

    fn r(start: usize, end: usize) -> TextRange {
        TextRange { start, end }
    }

    #[test]
    fn applies_in_position_order() {
        let edits = vec![
            Edit::replacement(r(4, 5), "X"),
            Edit::insertion(0, ">"),
            Edit::deletion(r(1, 2)),
            Edit::insertion(4, "["),
            Edit::insertion(5, "]"),
        ];
        assert_eq!(apply_edits("abcdef", &edits), Ok(">acd[X]f".to_string()));
    }

    #[test]
    fn rejects_overlaps() {
        let overlap = |edits: &[Edit]| matches!(apply_edits("abcdef", edits), Err(FixError::Overlap { .. }));
        assert!(overlap(&[Edit::deletion(r(1, 3)), Edit::deletion(r(2, 4))]));
        assert!(overlap(&[Edit::deletion(r(0, 6)), Edit::deletion(r(2, 3)), Edit::deletion(r(4, 5))]));
        assert!(overlap(&[Edit::deletion(r(1, 3)), Edit::insertion(2, "x")]));
        assert!(overlap(&[Edit::insertion(2, "x"), Edit::insertion(2, "y")]));
        assert!(overlap(&[Edit::deletion(r(1, 3)), Edit::replacement(r(1, 3), "y")]));
        assert!(!overlap(&[Edit::deletion(r(1, 3)), Edit::deletion(r(3, 4)), Edit::insertion(1, "x")]));
    }

    #[test]
    fn rejects_bad_ranges() {
        let bad = |e: Edit| matches!(apply_edits("aé", &[e]), Err(FixError::EditOutOfBounds { .. }));
        assert!(bad(Edit::deletion(r(2, 1))));
        assert!(bad(Edit::deletion(r(0, 4))));
        assert!(bad(Edit::insertion(2, "x"))); // inside `é`
        assert!(!bad(Edit::insertion(3, "x")));
    }

    #[test]
    fn no_edits_is_identity() {
        assert_eq!(apply_edits("abc", &[]), Ok("abc".to_string()));
    }
}
