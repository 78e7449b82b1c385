//! A tiny C lexer over source bytes: enough to step over whitespace, comments, literals and
//! preprocessor lines between the tokens whose positions clang gives us.
//!
//! All positions are byte offsets into the main file's text. No function panics: positions
//! past the end are clamped, and "not found" is `None`.

/// Whether `b` is whitespace to the lexer (a line splice `\` + newline is handled separately).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// If a comment or a line splice starts at `i`, the offset just after it.
fn trivia_at(src: &[u8], i: usize) -> Option<usize> {
    match (src.get(i), src.get(i + 1)) {
        (Some(b'/'), Some(b'/')) => {
            let mut j = i + 2;
            while j < src.len() && src[j] != b'\n' {
                // A line splice continues a `//` comment onto the next line.
                if src[j] == b'\\' && src.get(j + 1) == Some(&b'\n') {
                    j += 1;
                }
                j += 1;
            }
            Some(j)
        }
        (Some(b'/'), Some(b'*')) => {
            let mut j = i + 2;
            while j + 1 < src.len() && !(src[j] == b'*' && src[j + 1] == b'/') {
                j += 1;
            }
            Some((j + 2).min(src.len()))
        }
        (Some(b'\\'), Some(b'\n')) => Some(i + 2),
        (Some(b'\\'), Some(b'\r')) if src.get(i + 2) == Some(&b'\n') => Some(i + 3),
        _ => None,
    }
}

/// The offset of the first byte at or after `i` that is neither whitespace nor in a comment
/// (`src.len()` if there is none).
pub(crate) fn skip_trivia(src: &[u8], mut i: usize) -> usize {
    while i < src.len() {
        if is_space(src[i]) {
            i += 1;
        } else if let Some(j) = trivia_at(src, i) {
            i = j;
        } else {
            break;
        }
    }
    i.min(src.len())
}

/// The end of a string or character literal whose opening quote is at `i`.
fn literal_end(src: &[u8], i: usize) -> usize {
    let quote = src[i];
    let mut j = i + 1;
    while j < src.len() {
        match src[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            b if b == quote => return j + 1,
            _ => j += 1,
        }
    }
    src.len()
}

/// The offset just after the `;` that follows the token ending at `i` (only whitespace and
/// comments in between), or `None` if the next significant byte is not `;`.
pub(crate) fn semicolon_after(src: &[u8], i: usize) -> Option<usize> {
    let j = skip_trivia(src, i);
    (src.get(j) == Some(&b';')).then_some(j + 1)
}

/// The end of a macro invocation whose name ends at `i`: after the matching `)` if the next
/// significant byte is `(` (a function-like invocation), otherwise `i` itself. `None` if the
/// parentheses are not balanced before the end of the text.
pub(crate) fn after_macro_invocation(src: &[u8], i: usize) -> Option<usize> {
    let j = skip_trivia(src, i);
    if src.get(j) != Some(&b'(') {
        return Some(i.min(src.len()));
    }
    let mut depth = 0usize;
    for (at, b) in code_bytes(src, j) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The bytes of `src` from `i` on that lie outside comments and string and character
/// literals, with their offsets (a literal's opening quote is not yielded).
fn code_bytes(src: &[u8], mut i: usize) -> impl Iterator<Item = (usize, u8)> + '_ {
    std::iter::from_fn(move || loop {
        let b = *src.get(i)?;
        if b == b'"' || b == b'\'' {
            i = literal_end(src, i);
        } else if let Some(k) = trivia_at(src, i) {
            i = k;
        } else {
            i += 1;
            return Some((i - 1, b));
        }
    })
}

/// Whether `src[from..to]` holds exactly the token `tok`, with only whitespace and comments
/// around it.
pub(crate) fn only_token_between(src: &[u8], from: usize, to: usize, tok: &str) -> bool {
    if from > to || to > src.len() {
        return false;
    }
    let text = &src[..to];
    let j = skip_trivia(text, from);
    text[j..].starts_with(tok.as_bytes()) && skip_trivia(text, j + tok.len()) == to
}

/// The end of the last token before `to`, lexing forward from `from` (which must lie at a
/// token boundary outside comments, literals and directives). Comments, whitespace and
/// preprocessor directive lines are not tokens. Returns `from` if there is no token.
pub(crate) fn prev_token_end(src: &[u8], from: usize, to: usize) -> usize {
    let to = to.min(src.len());
    let mut i = from.min(to);
    let mut last = i;
    // Whether only whitespace has been seen since the last newline (or since `from`, which is
    // a statement start and therefore not inside a directive).
    let mut line_start = false;
    while i < to {
        let b = src[i];
        if b == b'\n' {
            line_start = true;
            i += 1;
        } else if is_space(b) {
            i += 1;
        } else if let Some(j) = trivia_at(src, i) {
            i = j;
        } else if b == b'#' && line_start {
            // A directive runs to the end of the line, line splices included.
            while i < to && src[i] != b'\n' {
                i = trivia_at(src, i).filter(|_| src[i] == b'\\').unwrap_or(i + 1);
            }
        } else if b == b'"' || (b == b'\'' && !(i > 0 && src[i - 1].is_ascii_alphanumeric())) {
            // (A `'` right after an alphanumeric is a C++14 digit separator, not a literal.)
            i = literal_end(src, i).min(to);
            last = i;
            line_start = false;
        } else {
            // One character of a token (all bytes of a UTF-8 sequence).
            i += 1;
            while i < to && (src[i] & 0xc0) == 0x80 {
                i += 1;
            }
            last = i;
            line_start = false;
        }
    }
    last
}

/// A call statement `NAME ( ARG, ... ) ;` spelled in `src[from..to]` (whitespace and comments
/// between tokens): the name's range and each argument's range (trimmed of whitespace and
/// comments at either end), split at the commas outside parentheses, brackets and braces.
/// `None` when the text is not such a call (another token before the name, unbalanced
/// brackets, anything after the `;`, an empty argument).
pub(crate) fn call_statement(src: &[u8], from: usize, to: usize) -> Option<(std::ops::Range<usize>, Vec<std::ops::Range<usize>>)> {
    let to = to.min(src.len());
    let text = &src[..to];
    let start = skip_trivia(text, from);
    let mut i = start;
    while i < to && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
        i += 1;
    }
    if i == start || text[start].is_ascii_digit() {
        return None;
    }
    let name = start..i;
    let j = skip_trivia(text, i);
    if text.get(j) != Some(&b'(') {
        return None;
    }
    let j = j + 1;
    let mut args = Vec::new();
    let mut arg_start = j;
    let mut depth = 0usize;
    let mut close = None;
    for (at, b) in code_bytes(text, j) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth > 0 => depth -= 1,
            b')' => {
                args.push(arg_start..at);
                close = Some(at);
                break;
            }
            b']' | b'}' => return None,
            b',' if depth == 0 => {
                args.push(arg_start..at);
                arg_start = at + 1;
            }
            _ => {}
        }
    }
    let close = close?;
    if semicolon_after(text, close + 1).map(|e| skip_trivia(text, e)) != Some(to) {
        return None;
    }
    // Trim each argument: leading trivia, and trailing trivia (the end of its last token).
    let args: Vec<_> = args
        .into_iter()
        .map(|r| {
            let s = skip_trivia(&text[..r.end], r.start);
            s..prev_token_end(text, s, r.end)
        })
        .collect();
    if args.iter().any(|r| r.start >= r.end) {
        return None;
    }
    Some((name, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semicolons_after_comments() {
        let s = b"x = 1 /* c */ // d\n  ;";
        assert_eq!(semicolon_after(s, 5), Some(s.len()));
        assert_eq!(semicolon_after(b"x = 1 y;", 5), None);
    }

    #[test]
    fn macro_invocations() {
        let s = b"MAX (a, f(\")\", b)) + 1";
        assert_eq!(after_macro_invocation(s, 3), Some(18));
        assert_eq!(after_macro_invocation(b"N + 1", 1), Some(1));
        assert_eq!(after_macro_invocation(b"F(a", 1), None);
    }

    #[test]
    fn call_statements() {
        let s = b"  memcpy (&out[f(a, b)], /* c */ in + 1 ,12) ; ";
        let (name, args) = call_statement(s, 0, s.len() - 1).unwrap();
        assert_eq!(&s[name], b"memcpy");
        let args: Vec<&[u8]> = args.into_iter().map(|r| &s[r]).collect();
        assert_eq!(args, [&b"&out[f(a, b)]"[..], b"in + 1", b"12"]);
        assert!(call_statement(b"x = f(a);", 0, 9).is_none());
        assert!(call_statement(b"f(a, );", 0, 7).is_none());
        assert!(call_statement(b"f(a)) ;", 0, 7).is_none());
        assert!(call_statement(b"f(a); g();", 0, 10).is_none());
        let s = b"f(\",\", ')');";
        let (_, args) = call_statement(s, 0, s.len()).unwrap();
        assert_eq!(args.len(), 2);
    }

    #[test]
    fn tokens_between() {
        assert!(only_token_between(b"a /*x*/ += b", 1, 11, "+="));
        assert!(!only_token_between(b"a = = b", 1, 6, "="));
        assert!(!only_token_between(b"a = b", 3, 1, "="));
    }

    #[test]
    fn previous_token_skips_directives() {
        let s = b"x = 1; // c\n  #pragma unroll \\\n 4\n  for";
        let to = s.len() - 3;
        assert_eq!(prev_token_end(s, 0, to), 6);
        assert_eq!(prev_token_end(b"a = '}'; b", 0, 9), 8);
        assert_eq!(prev_token_end(b"  x", 0, 2), 0);
        assert_eq!(prev_token_end("é\n#p\nx".as_bytes(), 0, 6), 2);
    }
}
