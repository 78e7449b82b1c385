//! The instrumenter's file tests (issue 26), as the verifier's: every `filetests/*.kir` is one
//! kernel in KIR's text form with its statement table (`stmtN {...}` lines: what
//! `syncfix verify --emit=kir` prints), instrumented as `syncfix repair` instruments it; the
//! result, its barrier variables (site kind, scope, statement, loop depth, weight) and the
//! instrumented kernel, must equal the file `NAME.expected` beside it.
//!
//! The header is the `;` comments before the `kernel` line: `; source:` lines are the source
//! the kernel came from, byte for byte (the statement table's ranges and the spans point into
//! it), `; config: audit` instruments as `syncfix audit` does (the user's barriers only);
//! other comments say what the test is about.
//!
//! `SYNCFIX_BLESS=1 cargo test -p syncfix-instrument --test filetests` writes the `.expected`
//! files from what the instrumenter gives (read them before committing).

use std::path::Path;
use syncfix_instrument::{instrument, InstrumentConfig, Instrumented};

/// The barrier variables, one a line (the statement by its id: a parsed kernel has no source
/// text for lines), then the instrumented kernel.
fn render(inst: &Instrumented) -> String {
    let mut s = String::from("barrier variables:\n");
    s.push_str(&inst.describe_vars_by_statement());
    s.push('\n');
    s.push_str(&inst.kernel.to_string());
    s
}

fn run(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut cfg = InstrumentConfig::default();
    for line in text.lines().take_while(|l| !l.starts_with("kernel ")) {
        if let Some(c) = line.strip_prefix("; config:") {
            match c.trim() {
                "audit" => {
                    cfg.new_sites = false;
                    cfg.options.disable_inspect = false;
                }
                other => return Err(format!("unknown config `{other}` (known: `audit`)")),
            }
        }
    }
    let mut kernel = syncfix_kir::parse(&text).map_err(|e| format!("{}:{e}", path.display()))?;
    if kernel.stmts.stmts.is_empty() {
        return Err("the kernel has no statement table (`stmtN {...}` lines): nothing to instrument".into());
    }
    // The main file's text, from the `; source:` lines: the instrumenter places an access in
    // the statement whose byte range holds its line and column.
    let source: String = text
        .lines()
        .take_while(|l| !l.starts_with("kernel "))
        .filter_map(|l| l.strip_prefix("; source:").map(|r| r.strip_prefix(' ').unwrap_or(r)))
        .map(|l| format!("{l}\n"))
        .collect();
    if let Some((id, _)) = kernel.stmts.stmts.iter().find(|(_, st)| st.range.end > source.len()) {
        return Err(format!("{id}'s range is past the end of the `; source:` lines ({} bytes)", source.len()));
    }
    let main = syncfix_kir::FileId::MAIN;
    kernel.files[main] = syncfix_kir::SourceFile::new(kernel.files[main].path.clone(), Some(source));
    let got = render(&instrument(&kernel, &cfg));
    let expected_path = path.with_extension("expected");
    if std::env::var_os("SYNCFIX_BLESS").is_some() {
        return std::fs::write(&expected_path, &got).map_err(|e| e.to_string());
    }
    let expected = std::fs::read_to_string(&expected_path).map_err(|e| format!("{}: {e}", expected_path.display()))?;
    if got != expected {
        let diff: Vec<String> = got
            .lines()
            .zip(expected.lines().chain(std::iter::repeat("")))
            .enumerate()
            .filter(|(_, (g, e))| g != e)
            .take(5)
            .map(|(i, (g, e))| format!("line {}: got `{g}`, expected `{e}`", i + 1))
            .collect();
        return Err(format!(
            "the instrumented kernel differs from {} ({} lines against {}):\n{}",
            expected_path.display(),
            got.lines().count(),
            expected.lines().count(),
            diff.join("\n")
        ));
    }
    Ok(())
}

#[test]
fn filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/filetests")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "kir"))
        .filter(|p| filter.as_deref().is_none_or(|f| p.to_string_lossy().contains(f)))
        .collect();
    files.sort();
    assert!(filter.is_some() || files.len() >= 3, "the file tests are missing");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|p| run(p).err().map(|e| format!("{}: {e}", p.file_name().unwrap_or_default().to_string_lossy())))
        .collect();
    assert!(failures.is_empty(), "{} of {} file tests failed:\n{}", failures.len(), files.len(), failures.join("\n\n"));
}
