//! Places and edits in a kernel's source text as read: the one vocabulary of positions that
//! findings, verdicts, fixes and the editor share.

use serde::{Deserialize, Serialize};

/// A place in the source text as read (after [`crate::decode_source`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextPoint {
    /// Byte offset into the UTF-8 text (for a Latin-1 file, into its decoded text).
    pub byte: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters (Unicode scalar values) from the line's start.
    pub column: u32,
}

impl TextPoint {
    /// The point of byte offset `byte` of `text` (clamped to the text's length and moved
    /// back to a character boundary).
    pub fn of(text: &str, byte: usize) -> TextPoint {
        let mut byte = byte.min(text.len());
        while !text.is_char_boundary(byte) {
            byte -= 1;
        }
        let before = &text[..byte];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        TextPoint { byte, line: before.matches('\n').count() as u32 + 1, column: before[line_start..].chars().count() as u32 + 1 }
    }
}

/// One edit of a fix: replace the text from `start` up to (not including) `end` by
/// `replacement` (an insertion when `start == end`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextEdit {
    pub start: TextPoint,
    pub end: TextPoint,
    pub replacement: String,
}

/// A range of the source text as read: from `start` up to (not including) `end`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextRange {
    pub start: TextPoint,
    pub end: TextPoint,
}
