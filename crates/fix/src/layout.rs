//! The little text scanning the fix stage needs: whitespace around statements, line ends,
//! identifiers, `#include` lines and the temporary's type. Statement boundaries themselves
//! come from clang, never from here.

use std::collections::HashSet;
use syncfix_kir::TextRange;

/// Horizontal whitespace.
fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// A byte that can be part of an identifier (non-ASCII bytes count, to stay conservative).
fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The offset of the start of the line containing `offset`.
pub(crate) fn line_start(src: &str, offset: usize) -> usize {
    src.as_bytes()[..offset].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1)
}

/// The indentation before `offset` when only spaces and tabs stand between the start of its
/// line and `offset` (the statement starts its line), with the line's start offset.
pub(crate) fn indentation(src: &str, offset: usize) -> Option<(usize, &str)> {
    let start = line_start(src, offset);
    let prefix = &src[start..offset];
    prefix.bytes().all(is_blank).then_some((start, prefix))
}

/// The line ending the file uses: `"\r\n"` when its first line ends so, else `"\n"`.
pub(crate) fn newline(src: &str) -> &'static str {
    match src.find('\n') {
        Some(i) if i > 0 && src.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Whether the byte before `offset` exists and is not whitespace.
pub(crate) fn glued_to_previous(src: &str, offset: usize) -> bool {
    offset > 0 && !src.as_bytes()[offset - 1].is_ascii_whitespace()
}

/// When `range` stands alone on its line(s) (only spaces and tabs before it on its first line,
/// only spaces, tabs and a `\r` after it on its last), the whole lines including the final
/// newline (or up to the end of the text).
pub(crate) fn whole_lines(src: &str, range: TextRange) -> Option<TextRange> {
    let (start, _) = indentation(src, range.start)?;
    let bytes = src.as_bytes();
    let mut end = range.end;
    while end < bytes.len() && (is_blank(bytes[end]) || bytes[end] == b'\r') {
        end += 1;
    }
    match bytes.get(end) {
        None => Some(TextRange { start, end }),
        Some(b'\n') => Some(TextRange { start, end: end + 1 }),
        Some(_) => None,
    }
}

/// The text to delete to remove `range` from within a line: the range and the spaces and tabs
/// after it; when only whitespace follows it on its line, the spaces and tabs before it
/// instead (so that no trailing blanks are left).
pub(crate) fn inline_deletion(src: &str, range: TextRange) -> TextRange {
    let bytes = src.as_bytes();
    let mut end = range.end;
    while end < bytes.len() && is_blank(bytes[end]) {
        end += 1;
    }
    TextRange { start: trim_trailing_blanks(src, TextRange { start: range.start, end }), end }
}

/// The start of deletion `range` extended back over the spaces and tabs before it when it
/// ends a line (so that deleting it leaves no trailing blanks); else its start.
pub(crate) fn trim_trailing_blanks(src: &str, range: TextRange) -> usize {
    let bytes = src.as_bytes();
    let mut start = range.start;
    if matches!(bytes.get(range.end), None | Some(b'\n') | Some(b'\r')) {
        while start > 0 && is_blank(bytes[start - 1]) {
            start -= 1;
        }
    }
    start
}

/// Deletion `range` widened so that it leaves neither trailing blanks nor an empty line: over
/// the blanks before it when it ends a line, and over the line ending when it then spans a
/// whole line (and does not end with a newline already).
pub(crate) fn widen_deletion(src: &str, range: TextRange) -> TextRange {
    let bytes = src.as_bytes();
    let start = trim_trailing_blanks(src, range);
    let mut end = range.end;
    let begins_line = start == 0 || bytes[start - 1] == b'\n';
    let ends_with_newline = end > start && bytes[end - 1] == b'\n';
    if begins_line && !ends_with_newline && end > start {
        if bytes.get(end) == Some(&b'\r') && bytes.get(end + 1) == Some(&b'\n') {
            end += 2;
        } else if bytes.get(end) == Some(&b'\n') {
            end += 1;
        }
    }
    TextRange { start, end }
}

/// Every maximal run of identifier characters in `text` (a superset of its identifiers).
pub(crate) fn words(text: &str) -> HashSet<&str> {
    let bytes = text.as_bytes();
    let mut out = HashSet::new();
    let mut i = 0;
    while i < bytes.len() {
        if is_ident(bytes[i]) {
            let start = i;
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            // Runs end at ASCII bytes or the end of the text, so these are char boundaries.
            if let Some(w) = text.get(start..i) {
                out.insert(w);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// `text` without the leading word `word` (followed by a non-identifier byte or the end).
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(word)?;
    match rest.bytes().next() {
        Some(c) if is_ident(c) => None,
        _ => Some(rest),
    }
}

/// `text` without the trailing word `word` (preceded by a non-identifier byte or the start).
fn strip_word_end<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let rest = text.strip_suffix(word)?;
    match rest.bytes().last() {
        Some(c) if is_ident(c) => None,
        _ => Some(rest),
    }
}

/// The text after the balanced parenthesised group `text` starts with.
fn after_parens(text: &str) -> Option<&str> {
    if !text.starts_with('(') {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[i + 1..]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Qualifiers of the value itself that a fresh temporary must not (volatile; OpenCL address
/// spaces, which clang prints in the type of an lvalue read from `__local` memory) or need not
/// (const) carry.
const VALUE_QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "__global",
    "global",
    "__local",
    "local",
    "__constant",
    "constant",
    "__private",
    "private",
    "__generic",
    "generic",
];

/// The type to declare the temporary with, from the RHS type as clang spells it: without
/// top-level `const`/`volatile` (leading, or trailing after the last `*`) and, for non-pointer
/// types, without OpenCL address-space qualifiers and a leading `__attribute__((...))`.
/// `None` when no `T tmp` declaration can be written with it (empty, or a type with a
/// declarator such as an array or function pointer).
pub(crate) fn temp_type(rhs_type: &str) -> Option<String> {
    let mut t = rhs_type.trim();
    let pointer = t.contains('*');
    loop {
        let before = t;
        if !pointer {
            for q in VALUE_QUALIFIERS {
                if let Some(rest) = strip_word(t, q) {
                    t = rest.trim_start();
                }
            }
            if let Some(rest) = strip_word(t, "__attribute__") {
                t = after_parens(rest.trim_start()).map_or(t, str::trim_start);
            }
        }
        for q in ["const", "volatile"] {
            if let Some(rest) = strip_word_end(t, q) {
                if pointer && !rest.trim_end().ends_with('*') {
                    continue; // `int const *`: the qualifier of the pointee
                }
                t = rest.trim_end();
            }
        }
        if t == before {
            break;
        }
    }
    let bad = t.is_empty() || t.contains(['(', ')', '[', ']', '{', '}', ';', '=', '\n']);
    (!bad).then(|| t.to_string())
}

/// The name of the header a `#include` directive's rest (after `include`) names.
fn included_header(rest: &str) -> &str {
    let rest = rest.trim_start();
    let (open, close) = match rest.as_bytes().first() {
        Some(b'<') => ('<', '>'),
        Some(b'"') => ('"', '"'),
        _ => return "",
    };
    let inner = &rest[open.len_utf8()..];
    inner.find(close).map_or("", |i| &inner[..i])
}

/// Whether a line starting in a block comment (`in_comment`) ends in one. String and
/// character literals are skipped; `//` ends the scan.
fn ends_in_comment(line: &str, mut in_comment: bool) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if in_comment {
            if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                in_comment = false;
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            in_comment = true;
            i += 1;
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            return false;
        } else if b[i] == b'"' || b[i] == b'\'' {
            let quote = b[i];
            i += 1;
            while i < b.len() && b[i] != quote && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
        }
        i += 1;
    }
    in_comment
}

/// The header a grid barrier needs.
pub(crate) const COOPERATIVE_GROUPS: &str = "cooperative_groups.h";

/// Where and what to insert so that the file includes `<cooperative_groups.h>`: `None` when a
/// `#include` of it is already there (at any depth of `#if`); else a line after the last
/// top-level `#include` line (one outside `#if`/`#ifdef`/`#ifndef` blocks and comments), or,
/// when there is none, after the comment lines that open the file (a licence or a test header
/// stays on top).
pub(crate) fn cooperative_groups_include(src: &str, nl: &str) -> Option<(usize, String)> {
    let directive = format!("#include <{COOPERATIVE_GROUPS}>");
    let mut depth = 0usize;
    let mut in_comment = false;
    let mut after_last: Option<usize> = None;
    let mut offset = 0;
    // End of the comment lines that open the file.
    let mut leading: usize = 0;
    let mut in_leading = true;
    for line in src.split_inclusive('\n') {
        let started_in_comment = in_comment;
        in_comment = ends_in_comment(line, in_comment);
        offset += line.len();
        let t = line.trim();
        if in_leading {
            if started_in_comment || t.starts_with("//") || t.starts_with("/*") {
                if !in_comment || started_in_comment || t.starts_with("/*") {
                    leading = offset;
                }
            } else if !t.is_empty() {
                in_leading = false;
            }
        }
        if started_in_comment {
            continue;
        }
        let Some(rest) = line.trim_start_matches([' ', '\t']).strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        let name_len = rest.bytes().take_while(|&c| is_ident(c)).count();
        match &rest[..name_len] {
            "if" | "ifdef" | "ifndef" => depth += 1,
            "endif" => depth = depth.saturating_sub(1),
            "include" => {
                if included_header(&rest[name_len..]) == COOPERATIVE_GROUPS {
                    return None;
                }
                if depth == 0 {
                    after_last = Some(offset);
                }
            }
            _ => {}
        }
    }
    Some(match after_last {
        Some(at) if at == src.len() && !src.ends_with('\n') => (at, format!("{nl}{directive}")),
        Some(at) => (at, format!("{directive}{nl}")),
        None if leading == src.len() && !src.ends_with('\n') && leading > 0 => (leading, format!("{nl}{directive}")),
        None => (leading, format!("{directive}{nl}")),
    })
}

/// `base`, or `base1`, `base2`, ...: the first that is not a word of `src`.
pub(crate) fn fresh_name(src: &str, base: &str) -> String {
    FreshNames::new(src).fresh(base)
}

/// The names a fix gives its temporaries: none a word of the source (or of other text added
/// with [`FreshNames::avoid`]), none given twice.
pub(crate) struct FreshNames {
    taken: HashSet<String>,
}

impl FreshNames {
    pub(crate) fn new(src: &str) -> FreshNames {
        FreshNames { taken: words(src).into_iter().map(str::to_string).collect() }
    }

    /// Avoids the words of `text` too.
    pub(crate) fn avoid(&mut self, text: &str) {
        self.taken.extend(words(text).into_iter().map(str::to_string));
    }

    /// `base`, or `base1`, `base2`, ...: the first not taken; taken from now on.
    pub(crate) fn fresh(&mut self, base: &str) -> String {
        let name = (0..)
            .map(|i| if i == 0 { base.to_string() } else { format!("{base}{i}") })
            .find(|n| !self.taken.contains(n))
            .unwrap_or_default();
        self.taken.insert(name.clone());
        name
    }
}

/// An expression's text as an operand of a binary operator: as it is when it is one token (a
/// name, a number, a member `a.b`), else in parentheses.
pub(crate) fn operand(text: &str) -> String {
    let t = text.trim();
    if t.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
        t.to_string()
    } else {
        format!("({t})")
    }
}

/// One level of indentation: what `inner` (a member's indentation) adds to `outer` (its
/// block's), or four spaces when that cannot be told.
pub(crate) fn indent_unit(outer: &str, inner: &str) -> String {
    inner.strip_prefix(outer).filter(|u| !u.is_empty()).unwrap_or("    ").to_string()
}

/// The spaces and tabs that begin the line holding `offset`.
pub(crate) fn line_indentation(src: &str, offset: usize) -> &str {
    let line = &src[line_start(src, offset)..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The value of a C integer literal (decimal, hexadecimal or octal, with `u`/`l` suffixes),
/// `None` for any other text.
pub(crate) fn integer_literal(text: &str) -> Option<u64> {
    let t = text.trim().trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()
    } else if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: usize, end: usize) -> TextRange {
        TextRange { start, end }
    }

    #[test]
    fn indentation_and_lines() {
        let src = "a\n  \tb; c;\n";
        assert_eq!(indentation(src, 5), Some((2, "  \t")));
        assert_eq!(indentation(src, 8), None);
        assert_eq!(indentation(src, 0), Some((0, "")));
        assert_eq!(newline(src), "\n");
        assert_eq!(newline("a\r\nb"), "\r\n");
    }

    #[test]
    fn deletions() {
        let src = "{\n  x;  \r\n  a; y; b;\n  a; y;  \n}";
        let x = src.find("x;").unwrap_or(0);
        assert_eq!(whole_lines(src, r(x, x + 2)), Some(r(2, 10)));
        let y = src.find("y;").unwrap_or(0);
        assert_eq!(whole_lines(src, r(y, y + 2)), None);
        assert_eq!(inline_deletion(src, r(y, y + 2)), r(y, y + 3));
        let y2 = src.rfind("y;").unwrap_or(0);
        assert_eq!(inline_deletion(src, r(y2, y2 + 2)), r(y2 - 1, y2 + 4));
        let last = "a;\nb;";
        assert_eq!(whole_lines(last, r(3, 5)), Some(r(3, 5)));
    }

    #[test]
    fn words_are_whole() {
        let w = words("int tmp1 = tmp_x + ptmp; é");
        assert!(w.contains("tmp1") && w.contains("tmp_x") && w.contains("ptmp"));
        assert!(!w.contains("tmp"));
    }

    #[test]
    fn integer_literals() {
        assert_eq!(integer_literal(" 12 "), Some(12));
        assert_eq!(integer_literal("0x10u"), Some(16));
        assert_eq!(integer_literal("010"), Some(8));
        assert_eq!(integer_literal("12UL"), Some(12));
        assert_eq!(integer_literal("len"), None);
        assert_eq!(integer_literal("4 * 3"), None);
        assert_eq!(integer_literal("u"), None);
    }

    #[test]
    fn temp_types() {
        let t = |s: &str| temp_type(s);
        assert_eq!(t("int").as_deref(), Some("int"));
        assert_eq!(t("const volatile float").as_deref(), Some("float"));
        assert_eq!(t("__local int").as_deref(), Some("int"));
        assert_eq!(t("unsigned int const").as_deref(), Some("unsigned int"));
        assert_eq!(t("const int *").as_deref(), Some("const int *"));
        assert_eq!(t("__global float *const").as_deref(), Some("__global float *"));
        assert_eq!(t("__attribute__((address_space(3))) int").as_deref(), Some("int"));
        assert_eq!(t("constexpr_t").as_deref(), Some("constexpr_t"));
        assert_eq!(t("int (*)(int)"), None);
        assert_eq!(t("int [4]"), None);
        assert_eq!(t(" const "), None);
    }

    #[test]
    fn include_position() {
        let nl = "\n";
        let line = "#include <cooperative_groups.h>\n".to_string();
        assert_eq!(cooperative_groups_include("__global__ void k() {}\n", nl), Some((0, line.clone())));
        let src = "#include <cuda.h>\n#ifdef X\n#include <x.h>\n#endif\n/*\n#include <y.h>\n*/\nint a;\n";
        let after_cuda = "#include <cuda.h>\n".len();
        assert_eq!(cooperative_groups_include(src, nl), Some((after_cuda, line.clone())));
        assert_eq!(cooperative_groups_include("#include \"a.h\"", nl), Some((14, "\n#include <cooperative_groups.h>".into())));
        // After a leading comment block (line comments, then a block comment).
        let head = "// licence\n// more\n/* a\n   b */\n\n__global__ void k() {}\n";
        assert_eq!(cooperative_groups_include(head, nl), Some(("// licence\n// more\n/* a\n   b */\n".len(), line.clone())));
        assert_eq!(cooperative_groups_include("#ifdef G\n# include <cooperative_groups.h>\n#endif\n", nl), None);
        assert_eq!(cooperative_groups_include("#include \"cooperative_groups.h\"\n", nl), None);
    }
}
