//! The source range of an access, from the location clang gives it (its debug location: a
//! line and a column). clang puts a load at the start of the lvalue it reads (`A` of
//! `A[i + 1]`) and a store at its assignment's operator (`=` of `A[i] = t`, `+=`, `++`); the
//! range a user wants underlined is the lvalue itself, `A[i + 1]` or `A[i]`. Found on the text:
//! a postfix expression (identifiers, `[...]`, `(...)`, `.` and `->` members) after the column,
//! or, at an assignment operator, before it.

/// The byte range `[start, end)` of the access whose clang location is byte `at` of `text`
/// (the start of a line's column, see [`offset_of`]). Falls back to the one character at `at`
/// when the text there is not an expression syncfix recognises.
pub fn access_extent(text: &str, at: usize) -> (usize, usize) {
    let b = text.as_bytes();
    if at >= b.len() {
        return (b.len(), b.len());
    }
    let one = (at, next_char(text, at));
    let is_assign_op = |i: usize| -> bool {
        match b[i] {
            b'=' => b.get(i + 1) != Some(&b'='),
            b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' => {
                b.get(i + 1) == Some(&b'=') || (matches!(b[i], b'+' | b'-') && b.get(i + 1) == Some(&b[i]))
            }
            b'<' | b'>' => b.get(i + 1) == Some(&b[i]) && b.get(i + 2) == Some(&b'='),
            _ => false,
        }
    };
    if is_ident(b[at]) {
        let end = postfix_end(b, at);
        return if end > at { (at, end) } else { one };
    }
    // The `=` of a compound assignment: from the operator's start.
    let mut at = at;
    while b[at] == b'=' && at > 0 && matches!(b[at - 1], b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'<' | b'>') {
        at -= 1;
    }
    if is_assign_op(at) {
        // `x++` / `x += e` / `x = e`: the lvalue before the operator; `++x`: the one after.
        let mut e = at;
        while e > 0 && b[e - 1].is_ascii_whitespace() {
            e -= 1;
        }
        match postfix_start(b, e) {
            Some(s) if s < e => return (s, e),
            _ => {}
        }
        if matches!(b[at], b'+' | b'-') && b.get(at + 1) == Some(&b[at]) {
            let mut s = at + 2;
            while s < b.len() && b[s].is_ascii_whitespace() {
                s += 1;
            }
            if s < b.len() && is_ident(b[s]) {
                return (s, postfix_end(b, s));
            }
        }
    }
    one
}

/// The byte offset of 1-based `line` and `col` (clang's columns count bytes), clamped to the
/// line.
pub fn offset_of(text: &str, line: u32, col: u32) -> Option<usize> {
    let start = if line <= 1 { 0 } else { text.match_indices('\n').nth(line as usize - 2).map(|(i, _)| i + 1)? };
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    Some((start + col.saturating_sub(1) as usize).min(line_end))
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn next_char(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(at, |c| at + c.len_utf8())
}

/// The end of the postfix expression that starts with the identifier at `i`.
fn postfix_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ident(b[i]) {
        i += 1;
    }
    loop {
        let mut j = i;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        match b.get(j) {
            Some(b'[') | Some(b'(') => match matching(b, j) {
                Some(close) => i = close + 1,
                None => return i,
            },
            Some(b'.') if b.get(j + 1).is_some_and(|c| is_ident(*c) && !c.is_ascii_digit()) => {
                i = j + 1;
                while i < b.len() && is_ident(b[i]) {
                    i += 1;
                }
            }
            Some(b'-') if b.get(j + 1) == Some(&b'>') => {
                i = j + 2;
                while i < b.len() && b[i] == b' ' {
                    i += 1;
                }
                while i < b.len() && is_ident(b[i]) {
                    i += 1;
                }
            }
            _ => return i,
        }
    }
}

/// The start of the postfix expression that ends just before `end`, if one does.
fn postfix_start(b: &[u8], end: usize) -> Option<usize> {
    let mut i = end;
    loop {
        if i == 0 {
            return None;
        }
        match b[i - 1] {
            b']' | b')' => i = matching_back(b, i - 1)?,
            c if is_ident(c) => {
                while i > 0 && is_ident(b[i - 1]) {
                    i -= 1;
                }
                // A member access continues to the left.
                if i >= 1 && b[i - 1] == b'.' {
                    i -= 1;
                    continue;
                }
                if i >= 2 && &b[i - 2..i] == b"->" {
                    i -= 2;
                    continue;
                }
                return Some(i);
            }
            _ => return None,
        }
        // After a bracket group: the array or function it applies to.
        if i == 0 || !(is_ident(b[i - 1]) || matches!(b[i - 1], b']' | b')')) {
            return Some(i);
        }
    }
}

/// The bracket that closes the one at `open` (scanning forward) or opens the one at `close`
/// (`back`), within one statement.
fn matching_dir(b: &[u8], at: usize, back: bool) -> Option<usize> {
    let (opens, closes): (&[u8], &[u8]) = if back { (b"])", b"[(") } else { (b"[(", b"])") };
    let mut depth = 0i32;
    let mut k = at;
    loop {
        let c = *b.get(k)?;
        if opens.contains(&c) {
            depth += 1;
        } else if closes.contains(&c) {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        } else if matches!(c, b';' | b'{' | b'}') {
            return None;
        }
        k = if back { k.checked_sub(1)? } else { k + 1 };
    }
}

fn matching(b: &[u8], open: usize) -> Option<usize> {
    matching_dir(b, open, false)
}

fn matching_back(b: &[u8], close: usize) -> Option<usize> {
    matching_dir(b, close, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extent(line: &str, col: usize) -> &str {
        let (s, e) = access_extent(line, col - 1);
        &line[s..e]
    }

    #[test]
    fn a_load_is_the_lvalue_from_its_column() {
        assert_eq!(extent("  int t = A[threadIdx.x + 1];", 11), "A[threadIdx.x + 1]");
        assert_eq!(extent("  x = s.a[i][j].f + 1;", 7), "s.a[i][j].f");
        assert_eq!(extent("  x = p->q[i];", 7), "p->q[i]");
        assert_eq!(extent("  x = y;", 7), "y");
    }

    #[test]
    fn a_store_is_the_lvalue_before_its_operator() {
        assert_eq!(extent("  A[threadIdx.x] = t;", 18), "A[threadIdx.x]");
        assert_eq!(extent("  A[f(i)] += t;", 11), "A[f(i)]");
        assert_eq!(extent("  A[f(i)] += t;", 12), "A[f(i)]");
        assert_eq!(extent("  p[0]++;", 7), "p[0]");
        assert_eq!(extent("  ++p[0];", 3), "p[0]");
        assert_eq!(extent("  s.x <<= 2;", 7), "s.x");
    }

    #[test]
    fn other_text_is_one_character() {
        assert_eq!(extent("  *p = 1;", 3), "*");
        assert_eq!(extent("  a == b;", 5), "=");
    }

    #[test]
    fn offsets_of_lines_and_columns() {
        let t = "ab\ncd\n";
        assert_eq!(offset_of(t, 2, 2), Some(4));
        assert_eq!(offset_of(t, 1, 9), Some(2));
        assert_eq!(offset_of(t, 9, 1), None);
    }
}
