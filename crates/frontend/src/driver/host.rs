//! Whole programs (ARCHITECTURE.md, "crates/frontend": `driver`; DESIGN.md §3, "Whole
//! programs"): clang's device-side compile of a `.cu` file still parses and checks its host
//! functions and includes its host headers. syncfix verifies device code only, so host code
//! must never stop it: when clang rejects the file, a header it cannot find is stubbed (an
//! empty header in a folder searched last) and the bodies of the host functions that hold
//! the errors are left out (each byte but line breaks replaced by a space, so that every
//! line, column and byte offset of the rest stays where it was), and clang runs again. Device
//! code that needed what was left out then fails to compile, and the user gets clang's first
//! diagnostics, as without this fallback. Each step is said in a note.

use crate::ast::HostDecl;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use syncfix_kir::TextRange;

/// At most this many rounds of stubbing and leaving out (each round may expose new errors:
/// a caller of a function whose body was left out, a header included by a stubbed one).
pub(super) const MAX_ROUNDS: usize = 64;

/// A user's header with host code left out: where it is, and its text now.
struct EditedHeader {
    /// The header's path (absolute), which the overlay maps to `copy`.
    path: PathBuf,
    /// Its text with the left-out declarations blanked.
    text: String,
}

/// What the fallback did so far, and the folder of its stub headers.
pub(super) struct HostFallback {
    /// The folder of the stub headers (`-idirafter`, searched after every other).
    pub(super) stubs: PathBuf,
    /// The folder of the edited copies of user headers and of the overlay that maps the
    /// headers to them (clang's `-ivfsoverlay`): the user's files are never written.
    overlay: PathBuf,
    /// Headers stubbed, as spelled in the `#include`.
    pub(super) stubbed: BTreeSet<String>,
    /// Host functions whose body was left out, by name.
    pub(super) left_out: BTreeSet<String>,
    /// Host function declarations left out whole (their signature does not compile), by name.
    declarations: BTreeSet<String>,
    /// Fields left out (their type does not compile), as `record::field`.
    pub(super) fields: BTreeSet<(String, String)>,
    /// Ranges already blanked, by file (`None`: the main file).
    blanked: BTreeSet<(Option<String>, usize, usize)>,
    /// User headers edited, by name as clang gives it.
    headers: BTreeMap<String, EditedHeader>,
}

impl HostFallback {
    /// A fallback whose stub headers go to `stubs` and edited headers to `overlay`.
    pub(super) fn new(stubs: PathBuf, overlay: PathBuf) -> HostFallback {
        HostFallback {
            stubs,
            overlay,
            stubbed: BTreeSet::new(),
            left_out: BTreeSet::new(),
            declarations: BTreeSet::new(),
            fields: BTreeSet::new(),
            blanked: BTreeSet::new(),
            headers: BTreeMap::new(),
        }
    }

    /// The clang arguments that put the stub folder on the include path (last) and, once a
    /// header was edited, the overlay that maps it to its edited copy.
    pub(super) fn args(&self) -> Vec<String> {
        let mut args = vec!["-idirafter".into(), self.stubs.display().to_string()];
        if !self.headers.is_empty() {
            args.push("-ivfsoverlay".into());
            args.push(self.overlay.join("overlay.json").display().to_string());
        }
        args
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

    /// Leaves out the host code that holds each of clang's `errors` (a file, `None` for the
    /// main file, and a line): the body of the innermost host function holding the line; if
    /// that body is already left out (or the line lies in no body), the innermost host
    /// function declaration holding it (its signature names what does not compile); else
    /// the field declaration holding it. `decls` are read from the AST of `text` and the
    /// edited headers, in which their ranges are byte offsets; every line, column and byte
    /// offset stays where it was (each byte but line breaks becomes a space). Headers are
    /// read relative to `dir` (where clang ran) and their edited copies mapped by the overlay.
    /// Whether every error was placed (and so something was left out); nothing is changed
    /// otherwise.
    ///
    /// Errors: a header that cannot be read, or the overlay that cannot be written.
    pub(super) fn leave_out(
        &mut self,
        text: &mut String,
        decls: &[HostDecl],
        errors: &[(Option<String>, u32)],
        dir: &Path,
    ) -> Result<bool, String> {
        if errors.is_empty() {
            return Ok(false);
        }
        // The texts of the files with errors.
        let mut texts: BTreeMap<Option<String>, String> = BTreeMap::new();
        texts.insert(None, text.clone());
        for (file, _) in errors {
            if let Some(name) = file {
                if !texts.contains_key(file) {
                    let current = match self.headers.get(name) {
                        Some(h) => h.text.clone(),
                        None => {
                            let path = dir.join(name);
                            std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?
                        }
                    };
                    texts.insert(file.clone(), current);
                }
            }
        }
        let mut chosen: Vec<(Option<String>, TextRange, &HostDecl, bool)> = vec![];
        for (file, line) in errors {
            let src = &texts[file];
            let starts = line_starts(src);
            let line_of = |offset: usize| starts.partition_point(|&s| s <= offset) as u32;
            let holds = |r: &TextRange| line_of(r.start) <= *line && *line <= line_of(r.end.saturating_sub(1));
            let fresh = |r: &TextRange| !self.blanked.contains(&(file.clone(), r.start, r.end));
            let in_file = || decls.iter().filter(|d| &d.file == file);
            // The innermost body (a member function of a class inside another host
            // function is left out with it), then the innermost declaration.
            let body = in_file()
                .filter_map(|d| d.body.map(|b| (d, b)))
                .filter(|(_, b)| holds(b))
                .max_by_key(|(_, b)| b.start)
                .filter(|(_, b)| fresh(&TextRange { start: b.start + 1, end: b.end.saturating_sub(1).max(b.start + 1) }));
            let pick = match body {
                Some((d, b)) => Some((TextRange { start: b.start + 1, end: b.end.saturating_sub(1).max(b.start + 1) }, d, true)),
                None => in_file()
                    .filter(|d| holds(&d.range) && fresh(&d.range))
                    .min_by_key(|d| d.range.end - d.range.start)
                    .map(|d| (d.range, d, false)),
            };
            match pick {
                Some((range, d, is_body)) => chosen.push((file.clone(), range, d, is_body)),
                None => return Ok(false),
            }
        }
        for (file, range, d, is_body) in chosen {
            let src = texts.get_mut(&file).expect("read above");
            blank(src, range);
            self.blanked.insert((file.clone(), range.start, range.end));
            let place = file.as_deref().map(|f| format!(" ({})", file_name(f))).unwrap_or_default();
            match (&d.record, is_body) {
                (Some(record), _) => {
                    self.fields.insert((record.clone(), d.name.clone()));
                }
                (None, true) => {
                    self.left_out.insert(format!("{}{place}", d.name));
                }
                (None, false) => {
                    self.declarations.insert(format!("{}{place}", d.name));
                }
            }
        }
        *text = texts.remove(&None).expect("the main file");
        let mut edited = false;
        for (file, new) in texts {
            let Some(name) = file else { continue };
            let path = absolute(&dir.join(&name));
            self.headers.insert(name, EditedHeader { path, text: new });
            edited = true;
        }
        if edited {
            self.write_overlay()?;
        }
        Ok(true)
    }

    /// Writes the edited headers' copies and the overlay (clang's YAML/JSON virtual file
    /// system: each header's folder, with the header mapped to its copy).
    fn write_overlay(&self) -> Result<(), String> {
        std::fs::create_dir_all(&self.overlay).map_err(|e| format!("cannot create {}: {e}", self.overlay.display()))?;
        let mut roots: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
        for (i, h) in self.headers.values().enumerate() {
            let copy = self.overlay.join(format!("{i}.h"));
            std::fs::write(&copy, &h.text).map_err(|e| format!("cannot write {}: {e}", copy.display()))?;
            let (Some(parent), Some(name)) = (h.path.parent(), h.path.file_name()) else {
                return Err(format!("{} is not a file", h.path.display()));
            };
            roots.entry(parent.display().to_string()).or_default().push(serde_json::json!({
                "name": name.to_string_lossy(),
                "type": "file",
                "external-contents": copy.display().to_string(),
            }));
        }
        let roots: Vec<serde_json::Value> =
            roots.into_iter().map(|(dir, contents)| serde_json::json!({"name": dir, "type": "directory", "contents": contents})).collect();
        let overlay = serde_json::json!({"version": 0, "case-sensitive": "true", "use-external-names": false, "roots": roots});
        let path = self.overlay.join("overlay.json");
        std::fs::write(&path, overlay.to_string()).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// The records whose fields were left out, for the check that device code does not use
    /// them.
    pub(super) fn records_with_fields_left_out(&self) -> BTreeSet<&str> {
        self.fields.iter().map(|(r, _)| r.as_str()).collect()
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
        let mut parts = vec![];
        if !self.left_out.is_empty() {
            parts.push(format!("the bodies of {}", self.left_out.iter().map(String::as_str).collect::<Vec<_>>().join(", ")));
        }
        if !self.declarations.is_empty() {
            parts.push(format!("the declarations of {}", self.declarations.iter().map(String::as_str).collect::<Vec<_>>().join(", ")));
        }
        if !self.fields.is_empty() {
            let names: Vec<String> = self.fields.iter().map(|(r, f)| format!("{r}::{f}")).collect();
            parts.push(format!("the field{} {}", if names.len() == 1 { "" } else { "s" }, names.join(", ")));
        }
        if !parts.is_empty() {
            notes.push(format!(
                "{file}: host code that does not compile was left out ({}); syncfix verifies device code only",
                parts.join("; ")
            ));
        }
        notes
    }
}

/// Replaces each byte of `range` in `text` but line breaks by a space (only whole UTF-8
/// sequences: a range starts and ends at ASCII characters).
fn blank(text: &mut String, range: TextRange) {
    let mut bytes = std::mem::take(text).into_bytes();
    let end = range.end.min(bytes.len());
    for byte in &mut bytes[range.start.min(end)..end] {
        if *byte != b'\n' && *byte != b'\r' {
            *byte = b' ';
        }
    }
    *text = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
}

/// A path made absolute (against the current folder) with `.` and `..` resolved lexically,
/// as clang's overlay compares paths.
fn absolute(path: &Path) -> PathBuf {
    let path = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(path) };
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The last component of a path as clang gives it.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Where clang's diagnostics put each error: the file (`None` for `main_file`) and the line;
/// `None` when an error has no place (a command-line error, say). clang's "too many errors
/// emitted" is not an error of the code and is skipped.
pub(super) fn error_places(diags: &str, main_file: &str) -> Option<Vec<(Option<String>, u32)>> {
    let mut places = vec![];
    for l in diags.lines() {
        let Some(at) = l
            .find(": error:")
            .or_else(|| l.find(": fatal error:"))
            .or_else(|| l.starts_with("fatal error:").then_some(0))
            .or_else(|| l.starts_with("error:").then_some(0))
        else {
            continue;
        };
        if l.contains("too many errors emitted") {
            continue;
        }
        let head = &l[..at];
        // `file:line:col`
        let mut parts = head.rsplitn(3, ':');
        let (Some(_col), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next()) else { return None };
        let line: u32 = line.parse().ok()?;
        places.push(((file != main_file).then(|| file.to_string()), line));
    }
    Some(places)
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

    fn host(name: &str, text: &str, body_start: &str) -> HostDecl {
        let start = text.find(body_start).unwrap();
        let end = start + text[start..].find("\n}").unwrap() + 2;
        let decl = text[..start].rfind('\n').map_or(0, |i| i + 1);
        HostDecl {
            file: None,
            name: name.into(),
            record: None,
            range: TextRange { start: decl, end },
            body: Some(TextRange { start, end }),
        }
    }

    fn fallback() -> HostFallback {
        HostFallback::new(PathBuf::from("/nonexistent"), PathBuf::from("/nonexistent"))
    }

    #[test]
    fn missing_headers_are_read_from_clangs_messages() {
        let diags = "main.cu:4:10: fatal error: 'support/common.h' file not found\n    4 | #include \"support/common.h\"\n";
        assert_eq!(missing_headers(diags), vec!["support/common.h".to_string()]);
        assert!(missing_headers("main.cu:1:1: error: use of undeclared identifier 'x'").is_empty());
    }

    #[test]
    fn errors_are_placed_in_files_and_lines() {
        let diags = "In file included from main.cu:1:\n/p/util.h:9:3: error: use of undeclared identifier 'boost'\nmain.cu:5:3: error: x\nfatal error: too many errors emitted, stopping now [-ferror-limit=]\n2 errors generated.\n";
        assert_eq!(error_places(diags, "main.cu"), Some(vec![(Some("/p/util.h".to_string()), 9), (None, 5)]));
        assert_eq!(error_places("error: unknown argument: '-foo'\n", "main.cu"), None);
    }

    #[test]
    fn a_host_body_with_an_error_is_blanked_keeping_lines_and_offsets() {
        let text = "__global__ void k() {}\nint main() {\n  cublasCreate(&h); // ü\n  return 0;\n}\n";
        let f = host("main", text, "{\n  cublas");
        let mut fb = fallback();
        let mut t = text.to_string();
        assert_eq!(fb.leave_out(&mut t, std::slice::from_ref(&f), &[(None, 3)], Path::new("/")), Ok(true));
        assert_eq!(t.len(), text.len());
        assert_eq!(t.lines().count(), text.lines().count());
        assert!(t.starts_with("__global__ void k() {}\nint main() {\n"));
        assert!(!t.contains("cublas") && t.contains('}'));
        assert_eq!(
            fb.notes("main.cu"),
            vec![
                "main.cu: host code that does not compile was left out (the bodies of main); syncfix verifies device code only".to_string()
            ]
        );
        // An error on the signature's line once the body is blank: the whole declaration.
        assert_eq!(fb.leave_out(&mut t, &[f], &[(None, 2)], Path::new("/")), Ok(true));
        assert!(t.starts_with("__global__ void k() {}\n            \n"));
        assert!(fb.notes("main.cu")[0].contains("the declarations of main"));
    }

    #[test]
    fn an_error_outside_host_code_leaves_the_text_alone() {
        let text = "__global__ void k() { x; }\nint main() {\n  return 0;\n}\n";
        let f = host("main", text, "{\n  return");
        let mut fb = fallback();
        let mut t = text.to_string();
        assert_eq!(fb.leave_out(&mut t, &[f], &[(None, 1), (None, 3)], Path::new("/")), Ok(false));
        assert_eq!(t, text);
        assert!(fb.left_out.is_empty());
    }
}
