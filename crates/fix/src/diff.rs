//! Unified diffs that `patch -p1` and `git apply` accept.

use similar::TextDiff;

/// Lines of context around each hunk (as `diff -u` and `git diff`).
const CONTEXT: usize = 3;

/// The unified diff from `old` to `new`, with headers `--- a/<path>` and `+++ b/<path>` and 3
/// lines of context; `""` when the texts are equal.
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
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT)
        .missing_newline_hint(true)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
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
    fn equal_texts_give_no_diff() {
        assert_eq!(unified_diff("a\nb\n", "a\nb\n", "k.cu"), "");
        assert_eq!(unified_diff("", "", "k.cu"), "");
    }

    #[test]
    fn one_hunk_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let new = "1\n2\n3\n4\nX\n5\n6\n7\n8\n";
        assert_eq!(
            unified_diff(old, new, "./k.cu"),
            "--- a/k.cu\n+++ b/k.cu\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+X\n 5\n 6\n 7\n"
        );
    }

    #[test]
    fn missing_newline_marker() {
        assert_eq!(
            unified_diff("a\nb", "a\nc", "k.cl"),
            "--- a/k.cl\n+++ b/k.cl\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
        );
        assert_eq!(
            unified_diff("a", "a\n", "k.cl"),
            "--- a/k.cl\n+++ b/k.cl\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"
        );
    }
}
