//! A cursor over one line of KIR text: the tokens of the text form, and errors that name the
//! line, the column and what was expected.

use crate::ir::Operand;
use std::fmt;

/// A syntax or consistency error in KIR text: where (1-based line and column, columns counted
/// in characters) and what was expected or is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

/// One line (up to its `;` comment, if the caller cut it there) and a position in it.
pub(crate) struct Cursor<'a> {
    /// 1-based line number.
    pub line: usize,
    /// The whole line, so that columns count from its start.
    full: &'a str,
    /// Where the tokens end (the start of a trailing comment, or the line's end).
    end: usize,
    pub pos: usize,
}

/// Characters that end a word (besides white space).
const PUNCT: &[char] = &[',', '[', ']', '(', ')', '{', '}', ':', '='];

impl<'a> Cursor<'a> {
    pub fn new(line: usize, full: &'a str, start: usize, end: usize) -> Cursor<'a> {
        Cursor { line, full, end, pos: start }
    }

    /// The tokens not read yet.
    pub fn rest(&self) -> &'a str {
        &self.full[self.pos..self.end]
    }

    /// The 1-based column (in characters) of byte position `at`.
    pub fn col_of(&self, at: usize) -> usize {
        self.full[..at.min(self.full.len())].chars().count() + 1
    }

    /// An error at byte position `at` of the line.
    pub fn error_at(&self, at: usize, message: impl Into<String>) -> ParseError {
        ParseError { line: self.line, col: self.col_of(at), message: message.into() }
    }

    /// An error at the next token.
    pub fn error(&mut self, message: impl Into<String>) -> ParseError {
        self.ws();
        self.error_at(self.pos, message)
    }

    /// "expected WHAT, found `TOKEN`" at the next token.
    pub fn expected(&mut self, what: &str) -> ParseError {
        self.ws();
        let found = self.next_token();
        self.error_at(self.pos, format!("expected {what}, found {found}"))
    }

    /// The next token, quoted, for messages (`end of line` at the end).
    fn next_token(&self) -> String {
        let rest = self.rest();
        let Some(first) = rest.chars().next() else { return "end of line".into() };
        if PUNCT.contains(&first) {
            return format!("`{first}`");
        }
        let word: String = rest.chars().take_while(|c| !c.is_whitespace() && !PUNCT.contains(c)).take(24).collect();
        format!("`{word}`")
    }

    pub fn ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    pub fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.end
    }

    /// Requires the end of the line (of its tokens).
    pub fn end(&mut self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.expected("end of line"))
        }
    }

    /// Skips white space and `s` if it comes next.
    pub fn eat(&mut self, s: &str) -> bool {
        self.ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, s: &str) -> Result<(), ParseError> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{s}`")))
        }
    }

    /// A word of letters, digits, `_` and `.` (an opcode such as `atomic.add.4`).
    pub fn word(&mut self) -> &'a str {
        self.ws();
        let rest = self.rest();
        let n = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).unwrap_or(rest.len());
        self.pos += n;
        &rest[..n]
    }

    /// A decimal number (`what` names it in the error).
    pub fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        self.ws();
        let rest = self.rest();
        let n = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        match rest[..n].parse() {
            Ok(v) if n > 0 => {
                self.pos += n;
                Ok(v)
            }
            _ if n > 0 => Err(self.error(format!("{what} `{}` is out of range", &rest[..n]))),
            _ => Err(self.expected(what)),
        }
    }

    /// An entity reference such as `block3`, `v12`, `obj0`: the prefix and a number.
    pub fn entity(&mut self, prefix: &str, what: &str) -> Result<u32, ParseError> {
        self.ws();
        let rest = self.rest();
        let digits = rest.strip_prefix(prefix).map(|r| r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len())).unwrap_or(0);
        let after = rest.get(prefix.len() + digits..).and_then(|r| r.chars().next());
        if digits == 0 || after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(self.expected(what));
        }
        let n = rest[prefix.len()..prefix.len() + digits].parse().map_err(|_| self.error(format!("{what} is out of range")))?;
        self.pos += prefix.len() + digits;
        Ok(n)
    }

    /// A width in bits: `i32`.
    pub fn width(&mut self) -> Result<u16, ParseError> {
        self.ws();
        let at = self.pos;
        if !self.rest().starts_with('i') {
            return Err(self.expected("a width such as `i32`"));
        }
        self.pos += 1;
        match self.number::<u16>("a width such as `i32`") {
            Ok(w) if (1..=128).contains(&w) => Ok(w),
            Ok(w) => Err(self.error_at(at, format!("width i{w} is not in i1..i128"))),
            Err(_) => {
                self.pos = at;
                Err(self.expected("a width such as `i32`"))
            }
        }
    }

    /// An operand: `v3`, `true`, `false`, `42:i32`, `-1:i64`. Returns the position it starts
    /// at (for errors about it).
    pub fn operand(&mut self) -> Result<(Operand, usize), ParseError> {
        self.ws();
        let at = self.pos;
        let rest = self.rest();
        if rest.starts_with('v') {
            return Ok((Operand::Value(crate::InstId::from_u32(self.entity("v", "an operand")?)), at));
        }
        for (word, b) in [("true", true), ("false", false)] {
            if rest.starts_with(word) && !rest[word.len()..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
                self.pos += word.len();
                return Ok((Operand::bool(b), at));
            }
        }
        let negative = self.eat("-");
        if !self.rest().starts_with(|c: char| c.is_ascii_digit()) {
            self.pos = at;
            return Err(self.expected("an operand (`v3`, `true`, `7:i32`)"));
        }
        let magnitude: u128 = self.number("a constant")?;
        self.expect(":")?;
        let width = self.width()?;
        let max = if width == 128 { u128::MAX } else { (1u128 << width) - 1 };
        let bits = if negative {
            if magnitude == 0 || magnitude > max / 2 + 1 {
                return Err(self.error_at(at, format!("-{magnitude} does not fit in i{width}")));
            }
            max - magnitude + 1
        } else {
            if magnitude > max {
                return Err(self.error_at(at, format!("{magnitude} does not fit in i{width}")));
            }
            magnitude
        };
        Ok((Operand::Const { width, bits }, at))
    }

    /// A string in Rust's `{:?}` form: `"text with \"quotes\""`.
    pub fn string(&mut self) -> Result<String, ParseError> {
        self.ws();
        let start = self.pos;
        if !self.eat("\"") {
            return Err(self.expected("a quoted string"));
        }
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => {
                    let esc = chars.next().map(|(_, e)| e);
                    match esc {
                        Some('n') => out.push('\n'),
                        Some('r') => out.push('\r'),
                        Some('t') => out.push('\t'),
                        Some('0') => out.push('\0'),
                        Some(e @ ('\\' | '"' | '\'')) => out.push(e),
                        Some('u') => {
                            let tail = &self.rest()[i + 2..];
                            let code = tail
                                .strip_prefix('{')
                                .and_then(|t| t.split_once('}'))
                                .and_then(|(hex, _)| u32::from_str_radix(hex, 16).ok().and_then(char::from_u32).map(|c| (c, hex.len())));
                            let Some((c, n)) = code else { return Err(self.error_at(self.pos + i, "bad `\\u{...}` escape")) };
                            out.push(c);
                            for _ in 0..n + 2 {
                                chars.next();
                            }
                        }
                        _ => return Err(self.error_at(self.pos + i, "unknown escape in a string")),
                    }
                }
                c => out.push(c),
            }
        }
        Err(self.error_at(start, "unterminated string"))
    }
}
