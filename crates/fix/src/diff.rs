//! Unified diffs that `patch -p1` and `git apply` accept.

use similar::TextDiff;

/// Lines of context around each hunk (as `diff -u` and `git diff`).
const CONTEXT: usize = 3;

/// The unified diff from `old` to `new`, with headers `--- a/<path>` and `+++ b/<path>` (each
/// ended by a tab when the path has a space, for GNU patch) and 3 lines of context; `""` when
/// the texts are equal.
///
/// `path` is the file's path as the user gave it; a leading `/` and leading `./` components
/// are dropped (as `git diff` does), so that the diff applies with `patch -p1` or `git apply`
/// from the directory the path is relative to. A last line without a newline is followed by
/// `\ No newline at end of file`. Lines keep their own line endings (CRLF stays CRLF).
pub fn unified_diff(old: &str, new: &str, path: &str) -> String {
    if old == new {
        return String::new();
    }
    let path = normalize(path);
    // GNU patch takes a header's file name up to the first space unless a tab ends it (the
    // tab that would precede a timestamp): a name with a space gets one. git apply takes both.
    let end = if path.contains(' ') { "\t" } else { "" };
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT)
        .missing_newline_hint(true)
        .header(&format!("a/{path}{end}"), &format!("b/{path}{end}"))
        .to_string()
}

/// The edits that turn `old` into `new`, one per changed run of lines (byte ranges of `old`),
/// sorted and not overlapping: how a patched text is offered as text edits (an editor's quick
/// fix) when it was not built from edits of `old`.
pub fn edits_between(old: &str, new: &str) -> Vec<crate::Edit> {
    use similar::DiffOp;
    let diff = TextDiff::from_lines(old, new);
    let (old_lines, new_lines) = (diff.old_slices(), diff.new_slices());
    let offsets = |lines: &[&str]| -> Vec<usize> {
        let mut v = vec![0];
        for l in lines {
            v.push(v.last().copied().unwrap_or(0) + l.len());
        }
        v
    };
    let (old_at, new_at) = (offsets(old_lines), offsets(new_lines));
    let mut out = vec![];
    for op in diff.ops() {
        let (o, n) = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete { old_index, old_len, new_index } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert { old_index, new_index, new_len } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace { old_index, old_len, new_index, new_len } => (old_index..old_index + old_len, new_index..new_index + new_len),
        };
        out.push(crate::Edit::replacement(
            syncfix_kir::TextRange { start: old_at[o.start], end: old_at[o.end] },
            &new[new_at[n.start]..new_at[n.end]],
        ));
    }
    out
}

/// `path` without leading `/` and `./` components.
fn normalize(path: &str) -> &str {
    let mut p = path;
    loop {
        let next = p.trim_start_matches('/');
        let next = next.strip_prefix("./").unwrap_or(next);
        if next == p {
            return p;
        }
        p = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_paths() {
        assert_eq!(normalize("k.cu"), "k.cu");
        assert_eq!(normalize("./src/k.cu"), "src/k.cu");
        assert_eq!(normalize("/tmp//k.cu"), "tmp//k.cu");
        assert_eq!(normalize("././/k.cu"), "k.cu");
    }

    #[test]
    fn edits_between_texts_rebuild_the_new_one() {
        for (old, new) in [
            ("a\nb\nc\n", "a\nX\nc\n"),
            ("a\nb\nc\n", "a\nb\nc\nd\n"),
            ("a\nb\nc\n", "X\nY\na\nc"),
            ("", "x\n"),
            ("x", ""),
            ("a\nb\n", "a\nb\n"),
        ] {
            let edits = edits_between(old, new);
            assert_eq!(crate::apply_edits(old, &edits).unwrap(), new, "{old:?} -> {new:?}: {edits:?}");
            assert_eq!(edits.is_empty(), old == new);
        }
    }

    #[test]
    fn equal_texts_give_no_diff() {
        assert_eq!(unified_diff("a\nb\n", "a\nb\n", "k.cu"), "");
        assert_eq!(unified_diff("", "", "k.cu"), "");
    }

    #[test]
    fn one_hunk_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let new = "1\n2\n3\n4\nX\n5\n6\n7\n8\n";
        assert_eq!(unified_diff(old, new, "./k.cu"), "--- a/k.cu\n+++ b/k.cu\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+X\n 5\n 6\n 7\n");
    }

    #[test]
    fn missing_newline_marker() {
        assert_eq!(
            unified_diff("a\nb", "a\nc", "k.cl"),
            "--- a/k.cl\n+++ b/k.cl\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
        );
        assert_eq!(unified_diff("a", "a\n", "k.cl"), "--- a/k.cl\n+++ b/k.cl\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
    }
}
