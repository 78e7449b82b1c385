//! Diagnostics of a verdict: ranges and positions in LSP's terms (UTF-16 or bytes), and a\n//! finding as a diagnostic with its related locations.

use super::*;

/// The whole of the 0-based `line` of `text`.
pub(super) fn line_range(text: &str, line: u32) -> lsp::Range {
    let len = text.split('\n').nth(line as usize).unwrap_or("").trim_end_matches('\r').encode_utf16().count() as u32;
    lsp::Range { start: lsp::Position { line, character: 0 }, end: lsp::Position { line, character: len } }
}

pub(super) fn diagnostic(range: lsp::Range, severity: lsp::DiagnosticSeverity, message: String) -> lsp::Diagnostic {
    lsp::Diagnostic { range, severity: Some(severity), source: Some("syncfix".into()), message, ..Default::default() }
}

/// An LSP position (0-based line, UTF-16 column) from a 1-based line and a 1-based column
/// counted in `unit`s of the line: bytes (clang's columns) or characters (edits').
pub(super) fn lsp_position(text: &str, line: u32, column: u32, bytes: bool) -> lsp::Position {
    let l = line.saturating_sub(1);
    let src = text.split('\n').nth(l as usize).unwrap_or("");
    let c = column.saturating_sub(1) as usize;
    let prefix: &str = if bytes {
        let mut end = c.min(src.len());
        while !src.is_char_boundary(end) {
            end -= 1;
        }
        &src[..end]
    } else {
        let end = src.char_indices().nth(c).map_or(src.len(), |(i, _)| i);
        &src[..end]
    };
    lsp::Position { line: l, character: prefix.encode_utf16().count() as u32 }
}

/// The range of an access or statement: the library's range of its expression
/// ([`syncfix::verdict::TextRange`]), else from clang's column over one character.
fn access_range(text: &str, line: u32, column: u32, range: Option<&TextRange>) -> lsp::Range {
    match range {
        Some(r) => lsp::Range {
            start: lsp_position(text, r.start.line, r.start.column, false),
            end: lsp_position(text, r.end.line, r.end.column, false),
        },
        None => {
            let start = lsp_position(text, line, column, true);
            lsp::Range { start, end: lsp::Position { line: start.line, character: start.character + 1 } }
        }
    }
}

fn in_file(p: &Location, path: &Path) -> bool {
    Path::new(&p.file).file_name() == path.file_name()
}

fn uri_of(path: &Path) -> Option<lsp::Uri> {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut s = String::from("file://");
    for b in abs.display().to_string().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => s.push(b as char),
            b => s.push_str(&format!("%{b:02X}")),
        }
    }
    lsp::Uri::from_str(&s).ok()
}

pub(super) fn defect_diagnostic(path: &Path, text: &str, kernel: &str, f: &Finding) -> lsp::Diagnostic {
    let headline = f.headline();
    let at = f.stack().iter().find(|p| in_file(p, path));
    let range = at.map_or(line_range(text, 0), |p| access_range(text, p.line, p.col, p.range.as_ref()));
    let mut message = format!("{headline} (kernel `{kernel}`)");
    let mut related = vec![];
    if let Finding::Race { first, second, .. } = f {
        message = format!("{headline}: {} by {}", second.kind_name(), second.thread.describe());
        let first_text = format!("{} by {}", first.kind_name(), first.thread.describe());
        match first.location() {
            Some(l) if Path::new(&l.file).file_name() == path.file_name() => {
                if let Some(uri) = uri_of(path) {
                    related.push(lsp::DiagnosticRelatedInformation {
                        location: lsp::Location { uri, range: access_range(text, l.line, l.col, l.range.as_ref()) },
                        message: first_text,
                    });
                }
            }
            _ => message = format!("{message}; {first_text} (outside this file)"),
        }
    } else if let Some(t) = f.thread() {
        message = format!("{headline} for {}", t.describe());
    }
    // A race or divergence the replay confirmed is an error; one it did not, a warning with
    // the reason (issue 29).
    let severity = match f.replay().map(|r| (r.confirmed, &r.reason)) {
        Some((false, Some(why))) => {
            message = format!("{message} — possible, not confirmed by a replay: {why}");
            lsp::DiagnosticSeverity::WARNING
        }
        Some((false, None)) => lsp::DiagnosticSeverity::WARNING,
        Some((true, _)) => {
            message = format!("{message} — confirmed by a replay on concrete threads");
            lsp::DiagnosticSeverity::ERROR
        }
        None => lsp::DiagnosticSeverity::ERROR,
    };
    let mut diag = diagnostic(range, severity, message);
    diag.code = Some(lsp::NumberOrString::String(f.kind().into()));
    if !related.is_empty() {
        diag.related_information = Some(related);
    }
    diag
}
