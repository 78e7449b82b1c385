//! Whole programs (ARCHITECTURE.md, "crates/frontend": `driver`; DESIGN.md §3, "Whole
//! programs"): clang's device-side compile of a `.cu` file still parses and checks its host
//! functions and includes its host headers. syncfix verifies device code only, so host code
//! must never stop it: when clang rejects the file, a header it cannot find is stubbed (an
//! empty header in a folder searched last) and the bodies of the host functions that hold
//! the errors are left out (each byte but line breaks replaced by a space, so that every
//! line, column and byte offset of the rest stays where it was), and clang runs again. Device
//! code that needed what was left out then fails to compile, and the user gets clang's first
//! diagnostics, as without this fallback. Each step is said in a note.

use crate::ast::FunctionInfo;
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// At most this many rounds of stubbing and leaving out (each round may expose new errors:
/// a caller of a function whose body was left out, a header included by a stubbed one).
pub(super) const MAX_ROUNDS: usize = 64;

/// What the fallback did so far, and the folder of its stub headers.
pub(super) struct HostFallback {
    /// The folder of the stub headers (`-idirafter`, searched after every other).
    pub(super) stubs: PathBuf,
    /// Headers stubbed, as spelled in the `#include`.
    pub(super) stubbed: BTreeSet<String>,
    /// Host functions whose body was left out, by name.
    pub(super) left_out: BTreeSet<String>,
}

impl HostFallback {
    pub(super) fn new(stubs: PathBuf) -> HostFallback {
        HostFallback { stubs, stubbed: BTreeSet::new(), left_out: BTreeSet::new() }
    }

    /// The clang arguments that put the stub folder on the include path (last).
    pub(super) fn args(&self) -> Vec<String> {
        vec!["-idirafter".into(), self.stubs.display().to_string()]
    }

    /// Stubs each header that `diags` says clang could not find and that is not stubbed yet;
    /// whether any was.
    ///
    /// Errors: a name that cannot be a file below the stub folder (absolute, or with `..`),
    /// or the file system's, as a message.
    pub(super) fn stub_missing(&mut self, diags: &str) -> Result<bool, String> {
        let mut any = false;
        for name in missing_headers(diags) {
            if self.stubbed.contains(&name) {
                continue;
            }
            let rel = Path::new(&name);
            if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
                return Err(format!("`{name}` cannot be stubbed"));
            }
            let path = self.stubs.join(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            std::fs::write(&path, format!("/* syncfix: `{name}` was not found; an empty stand-in (host code only) */\n"))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            self.stubbed.insert(name);
            any = true;
        }
        Ok(any)
    }

    /// Leaves out the bodies of the host-only functions of `functions` (read from the AST of
    /// `text`, in which their ranges are byte offsets) that hold one of the main file's
    /// `error_lines`; whether every error line lay in such a body (and so some body was left
    /// out). `text` is changed only then.
    pub(super) fn leave_out_bodies(&mut self, text: &mut String, functions: &[FunctionInfo], error_lines: &[u32]) -> bool {
        if error_lines.is_empty() {
            return false;
        }
        let starts = line_starts(text);
        let line_of = |offset: usize| starts.partition_point(|&s| s <= offset) as u32;
        let mut bodies = vec![];
        for &line in error_lines {
            // The innermost host body holding the line: a member function defined in a class
            // inside another host function is left out with it.
            let holder = functions
                .iter()
                .filter(|f| f.host_only)
                .filter_map(|f| f.body.map(|b| (f, b)))
                .filter(|(_, b)| line_of(b.start) <= line && line <= line_of(b.end.saturating_sub(1)))
                .max_by_key(|(_, b)| b.start);
            match holder {
                Some((f, b)) => bodies.push((f.name.clone(), b)),
                None => return false,
            }
        }
        let mut bytes = std::mem::take(text).into_bytes();
        for (name, b) in bodies {
            // Keep the braces; blank what lies between them.
            for byte in &mut bytes[b.start + 1..b.end.saturating_sub(1).max(b.start + 1)] {
                if *byte != b'\n' && *byte != b'\r' {
                    *byte = b' ';
                }
            }
            self.left_out.insert(name);
        }
        // Only whole UTF-8 sequences were replaced (a body starts and ends at ASCII braces).
        *text = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        true
    }

    /// The notes that say what was left out, for the file `file`.
    pub(super) fn notes(&self, file: &str) -> Vec<String> {
        let mut notes = vec![];
        if !self.stubbed.is_empty() {
            let names: Vec<String> = self.stubbed.iter().map(|n| format!("`{n}`")).collect();
            notes.push(format!(
                "{file}: {} not found; device code compiles without {}, so {} left empty (syncfix verifies device code only)",
                names.join(", "),
                if names.len() == 1 { "it" } else { "them" },
                if names.len() == 1 { "it was" } else { "they were" }
            ));
        }
        if !self.left_out.is_empty() {
            let names: Vec<&str> = self.left_out.iter().map(String::as_str).collect();
            notes.push(format!(
                "{file}: host code that does not compile was left out (the bodies of {}); syncfix verifies device code only",
                names.join(", ")
            ));
        }
        notes
    }
}

/// The headers clang's diagnostics say it could not find (`fatal error: 'X' file not found`).
pub(super) fn missing_headers(diags: &str) -> Vec<String> {
    diags
        .lines()
        .filter_map(|l| {
            let rest = l.split_once("fatal error: '")?.1;
            let (name, tail) = rest.split_once('\'')?;
            tail.trim_start().starts_with("file not found").then(|| name.to_string())
        })
        .collect()
}

/// Byte offsets of the starts of `text`'s lines (line n starts at `starts[n - 1]`).
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncfix_kir::TextRange;

    fn host(name: &str, text: &str, body_start: &str) -> FunctionInfo {
        let start = text.find(body_start).unwrap();
        let end = start + text[start..].find("\n}").unwrap() + 2;
        FunctionInfo {
            name: name.into(),
            mangled_name: Some(name.into()),
            is_kernel: false,
            in_main: true,
            body: Some(TextRange { start, end }),
            params: vec![],
            template_params: vec![],
            host_only: true,
            in_user_header: false,
        }
    }

    #[test]
    fn missing_headers_are_read_from_clangs_messages() {
        let diags = "main.cu:4:10: fatal error: 'support/common.h' file not found\n    4 | #include \"support/common.h\"\n";
        assert_eq!(missing_headers(diags), vec!["support/common.h".to_string()]);
        assert!(missing_headers("main.cu:1:1: error: use of undeclared identifier 'x'").is_empty());
    }

    #[test]
    fn a_host_body_with_an_error_is_blanked_keeping_lines_and_offsets() {
        let text = "__global__ void k() {}\nint main() {\n  cublasCreate(&h); // ü\n  return 0;\n}\n";
        let f = host("main", text, "{\n  cublas");
        let mut fb = HostFallback::new(PathBuf::from("/nonexistent"));
        let mut t = text.to_string();
        assert!(fb.leave_out_bodies(&mut t, &[f], &[3]));
        assert_eq!(t.len(), text.len());
        assert_eq!(t.lines().count(), text.lines().count());
        assert!(t.starts_with("__global__ void k() {}\nint main() {\n"));
        assert!(!t.contains("cublas") && t.contains('}'));
        assert_eq!(fb.notes("main.cu"), vec!["main.cu: host code that does not compile was left out (the bodies of main); syncfix verifies device code only".to_string()]);
    }

    #[test]
    fn an_error_outside_host_bodies_leaves_the_text_alone() {
        let text = "__global__ void k() { x; }\nint main() {\n  return 0;\n}\n";
        let f = host("main", text, "{\n  return");
        let mut fb = HostFallback::new(PathBuf::from("/nonexistent"));
        let mut t = text.to_string();
        assert!(!fb.leave_out_bodies(&mut t, &[f], &[1, 3]));
        assert_eq!(t, text);
        assert!(fb.left_out.is_empty());
    }
}
