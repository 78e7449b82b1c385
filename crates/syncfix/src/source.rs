//! Reading a kernel file as clang does: bytes, not only UTF-8.
//!
//! clang reads source files as bytes (a comment or string literal may hold Latin-1 text). syncfix
//! works on text, so a file that is not UTF-8 is read as ISO 8859-1 (Latin-1: each byte one
//! character, so nothing is lost) and written back, by `--apply` and in printed diffs, in the
//! same encoding: the inserted text is ASCII, and every other byte stays as it was.

/// How a file's bytes were turned into text.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// ISO 8859-1: byte `b` is the character `U+00bb`.
    Latin1,
}

/// Why a file cannot be taken as source text.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// The file holds NUL bytes: a binary file (an object file, an image), not source.
    #[error("a binary file (it contains NUL bytes), not CUDA or OpenCL source")]
    Binary,
}

/// The text of a kernel file's bytes: UTF-8 as it is, else Latin-1 ([`Encoding`]).
///
/// Errors: [`SourceError::Binary`] for bytes that contain NUL.
pub fn decode_source(bytes: Vec<u8>) -> Result<(String, Encoding), SourceError> {
    if bytes.contains(&0) {
        return Err(SourceError::Binary);
    }
    match String::from_utf8(bytes) {
        Ok(t) => Ok((t, Encoding::Utf8)),
        Err(e) => Ok((e.into_bytes().iter().map(|&b| char::from(b)).collect(), Encoding::Latin1)),
    }
}

/// The bytes of `text` in `encoding`: the inverse of [`decode_source`]. A character beyond
/// Latin-1 in a Latin-1 text (never inserted by syncfix, whose edits are ASCII) is written as
/// its UTF-8 bytes.
pub fn encode_source(text: &str, encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Latin1 => {
            let mut out = Vec::with_capacity(text.len());
            for c in text.chars() {
                match u8::try_from(u32::from(c)) {
                    Ok(b) => out.push(b),
                    Err(_) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                }
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_round_trips_and_utf8_stays() {
        let bytes = b"// caf\xe9\n__global__ void k() {}\n".to_vec();
        let (text, enc) = decode_source(bytes.clone()).unwrap();
        assert_eq!(enc, Encoding::Latin1);
        assert!(text.starts_with("// caf\u{e9}\n"));
        assert_eq!(encode_source(&text, enc), bytes);
        let (text, enc) = decode_source("// café\n".as_bytes().to_vec()).unwrap();
        assert_eq!((text.as_str(), enc), ("// café\n", Encoding::Utf8));
        assert_eq!(decode_source(b"a\0b".to_vec()), Err(SourceError::Binary));
    }
}
