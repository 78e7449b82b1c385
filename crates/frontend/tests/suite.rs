//! Every kernel of GPUVerify's test suite that compiles with the test preludes must compile
//! after marking, with one anchor per recorded statement, well-formed statement ranges, and
//! `to_original` mapping each anchor back to its statement.
//!
//! The suite is `../shared/suites/gpuverify` next to the workspace, or `$SYNCFIX_GPUVERIFY_SUITE`.

mod common;

use common::{clang, Lang};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use syncfix_frontend::ast::parse_ast;
use syncfix_frontend::marks::mark_source;
use syncfix_kir::{EntityRef, SourceFile, StmtKind, StmtTable};

/// The GPUVerify suite: `$SYNCFIX_GPUVERIFY_SUITE`, else `../shared/suites/gpuverify` beside the
/// checkout, else the workplace's copy at `/work/shared/suites/gpuverify` (a clean clone for CI
/// may live elsewhere). The test fails when none exists: a skipped test would hide lost coverage.
fn suite_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SYNCFIX_GPUVERIFY_SUITE") {
        return PathBuf::from(d);
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/suites/gpuverify");
    if beside.join("MANIFEST.tsv").is_file() {
        return beside;
    }
    PathBuf::from("/work/shared/suites/gpuverify")
}

/// Checks the shape of a statement table: ranges nest in their parents, siblings are in order
/// and disjoint, and each kind's text ends as it should.
fn check_table(table: &StmtTable, src: &str) -> Result<(), String> {
    let mut prev_end_of_parent = std::collections::HashMap::new();
    for (id, s) in table.stmts.iter() {
        let text = src.get(s.range.start..s.range.end).ok_or(format!("{id}: range off the text"))?;
        let last = text.trim_end().chars().last();
        let ok = match s.kind {
            StmtKind::Compound => last == Some('}'),
            StmtKind::Decl | StmtKind::Expr | StmtKind::Return | StmtKind::Break | StmtKind::Continue | StmtKind::Null | StmtKind::Do => {
                last == Some(';')
            }
            _ => true,
        };
        if !ok {
            return Err(format!("{id} {:?} ends badly: `{text}`", s.kind));
        }
        if let Some(p) = s.parent {
            if !table.stmts[p].range.contains_range(&s.range) || p >= id {
                return Err(format!("{id} is not inside its parent {p}"));
            }
        }
        let prev = prev_end_of_parent.insert((s.function.clone(), s.parent), s.range.end);
        if prev.is_some_and(|e| e > s.range.start) {
            return Err(format!("{id} overlaps its previous sibling"));
        }
        if let Some(sp) = &s.split {
            if !s.range.contains_range(&sp.rhs) {
                return Err(format!("{id}: split outside the statement"));
            }
        }
    }
    Ok(())
}

/// Reads, marks and compiles one kernel. `Ok(None)`: the original does not compile.
fn run(path: &Path, lang: Lang, defines: &[String]) -> Result<Option<usize>, String> {
    let dir = path.parent().ok_or("no directory")?;
    let file = path.file_name().and_then(|f| f.to_str()).ok_or("bad file name")?;
    let source = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut args: Vec<&str> = defines.iter().map(String::as_str).collect();
    args.extend(["-Xclang", "-ast-dump=json"]);
    let Ok(json) = clang(lang, dir, file, &args) else {
        return Ok(None);
    };
    let info = parse_ast(&json, file, &source).map_err(|e| e.to_string())?;
    check_table(&info.stmts, &source)?;
    let marked = mark_source(&source, &info.stmts);
    let n = info.stmts.stmts.len();
    if marked.text.matches("__syncfix_anchor(").count() != n {
        return Err("not one anchor per statement".into());
    }
    // Each anchor maps back to its statement's start (or, before a `#pragma`, the end of the
    // previous token, which is on an earlier line).
    let orig = SourceFile::new(file, Some(source.clone()));
    let mark = SourceFile::new(file, Some(marked.text.clone()));
    for (id, s) in info.stmts.stmts.iter() {
        let at = marked.text.find(&format!("__syncfix_anchor({});", id.index())).ok_or("anchor missing")?;
        let (line, col) = mark.line_col(at);
        let back = marked.to_original(line, col);
        let want = orig.line_col(s.range.start);
        if back != want && !(source[s.range.start..].starts_with('#') && back.0 < want.0) {
            return Err(format!("{id}: anchor maps to {back:?}, statement at {want:?}"));
        }
    }
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::write(tmp.path().join(file), &marked.text).map_err(|e| e.to_string())?;
    // Relative includes of the kernel's directory must still resolve.
    let mut args: Vec<String> = defines.to_vec();
    args.push(format!("-I{}", dir.display()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    clang(lang, tmp.path(), file, &args).map_err(|e| format!("marked text does not compile:\n{e}"))?;
    Ok(Some(n))
}

#[test]
fn marked_suite_kernels_compile() {
    let suite = suite_dir();
    let manifest = std::fs::read_to_string(suite.join("MANIFEST.tsv"))
        .unwrap_or_else(|e| panic!("the GPUVerify suite is needed at {}: {e}", suite.display()));
    let jobs: Vec<(PathBuf, Lang, Vec<String>)> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let lang = match *cols.get(1)? {
                "CUDA" => Lang::Cuda,
                "OpenCL" => Lang::OpenCl,
                _ => return None,
            };
            let defines = cols.get(4)?.split_whitespace().filter(|f| f.starts_with("-D")).map(String::from);
            Some((suite.join(cols[0]), lang, defines.collect()))
        })
        .collect();
    assert!(jobs.len() > 600, "MANIFEST.tsv lists {} kernels", jobs.len());

    let next = Mutex::new(0usize);
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some((path, lang, defines)) = jobs.get(i) else {
                    break;
                };
                let r = run(path, *lang, defines);
                results.lock().unwrap().push((path.clone(), *lang, r));
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut failures = Vec::new();
    let (mut compiled, mut stmts) = ([0usize; 2], 0usize);
    for (path, lang, r) in &results {
        match r {
            Ok(Some(n)) => {
                compiled[(*lang == Lang::OpenCl) as usize] += 1;
                stmts += n;
            }
            Ok(None) => {}
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "suite: {} kernels, {} CUDA + {} OpenCL compile with the test preludes and after marking; {stmts} statements",
        results.len(),
        compiled[0],
        compiled[1]
    );
    assert!(failures.is_empty(), "{} kernels fail:\n{}", failures.len(), failures.join("\n\n"));
    // The test preludes let this many compile (164 CUDA, 449 OpenCL when written).
    assert!(compiled[0] >= 160 && compiled[1] >= 440, "too few kernels compile: {compiled:?}");
}
