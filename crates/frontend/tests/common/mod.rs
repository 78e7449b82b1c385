//! Helpers of the front-end tests: run clang-19 on a source, read its AST, dump the table.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use syncfix_frontend::ast::{parse_ast, AstInfo};
use syncfix_frontend::marks::{mark_source, Marked};
use syncfix_kir::{EntityRef, StmtTable};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Lang {
    Cuda,
    OpenCl,
}

pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// clang's arguments for `lang`, with the test prelude force-included.
pub fn clang_args(lang: Lang) -> Vec<String> {
    let data = data_dir();
    let mut args: Vec<String> = match lang {
        Lang::Cuda => ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_70", "-nocudainc", "-nocudalib"].map(String::from).to_vec(),
        Lang::OpenCl => {
            ["-x", "cl", "-cl-std=CL1.2", "-target", "spir64", "-Xclang", "-finclude-default-header"].map(String::from).to_vec()
        }
    };
    let prelude = if lang == Lang::Cuda { "cuda_test.h" } else { "opencl_test.h" };
    args.push("-include".into());
    args.push(data.join(prelude).display().to_string());
    args.push("-I".into());
    args.push(data.join("include").display().to_string());
    args
}

/// Runs clang-19 in `dir` on `file` with `extra` arguments; returns stdout or clang's errors.
pub fn clang(lang: Lang, dir: &Path, file: &str, extra: &[&str]) -> Result<String, String> {
    let out = Command::new("clang-19")
        .current_dir(dir)
        .args(clang_args(lang))
        .args(extra)
        .arg("-fsyntax-only")
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run clang-19: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Writes `source` to a temporary `kernel.cu`/`kernel.cl` and returns clang's JSON AST.
pub fn ast_json(lang: Lang, source: &str, extra: &[&str]) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = if lang == Lang::Cuda { "kernel.cu" } else { "kernel.cl" };
    std::fs::write(dir.path().join(file), source).map_err(|e| e.to_string())?;
    let mut args = extra.to_vec();
    args.extend(["-Xclang", "-ast-dump=json"]);
    clang(lang, dir.path(), file, &args)
}

/// The AST of `source`, which must compile.
pub fn ast(lang: Lang, source: &str) -> AstInfo {
    let json = ast_json(lang, source, &[]).unwrap_or_else(|e| panic!("clang failed:\n{e}"));
    let file = if lang == Lang::Cuda { "kernel.cu" } else { "kernel.cl" };
    parse_ast(&json, file, source).expect("the AST reads")
}

/// Whether `text` compiles (`-fsyntax-only`); the error text if not.
pub fn compiles(lang: Lang, text: &str, extra: &[&str]) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = if lang == Lang::Cuda { "kernel.cu" } else { "kernel.cl" };
    std::fs::write(dir.path().join(file), text).map_err(|e| e.to_string())?;
    clang(lang, dir.path(), file, extra).map(|_| ())
}

/// One line per statement, indented by depth: id, kind, flags, text; then split and barrier.
pub fn dump(table: &StmtTable, source: &str) -> String {
    let mut out = String::new();
    for (id, s) in table.stmts.iter() {
        let depth = table.ancestors(id).count() - 1;
        let mut flags = String::new();
        if s.sole_body {
            flags.push_str(" sole");
        }
        if s.loop_body_start {
            flags.push_str(" loop-start");
        }
        if let Some(b) = s.barrier_call {
            flags.push_str(&format!(" {b:?}"));
        }
        let text = &source[s.range.start..s.range.end];
        out.push_str(&format!("{}{} {:?}{} `{}`", "  ".repeat(depth), id.index(), s.kind, flags, text));
        if let Some(sp) = &s.split {
            out.push_str(&format!(" split `{}`: {}", &source[sp.rhs.start..sp.rhs.end], sp.rhs_type));
        }
        out.push('\n');
        // Children must list exactly the statements whose parent is this one.
        let kids: Vec<_> = table.stmts.iter().filter(|(_, c)| c.parent == Some(id)).map(|(k, _)| k).collect();
        assert_eq!(kids, s.children, "children of {id}");
    }
    out
}

/// Checks the statement table of `source` against `expect` (lines compared trimmed at the end).
pub fn check(lang: Lang, source: &str, expect: &str) -> AstInfo {
    let info = ast(lang, source);
    let got = dump(&info.stmts, source);
    let norm = |s: &str| s.lines().map(str::trim_end).filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join("\n");
    let expect_lines = expect.lines().map(|l| l.strip_prefix("        ").unwrap_or(l)).collect::<Vec<_>>().join("\n");
    assert_eq!(norm(&got), norm(&expect_lines), "\n--- got ---\n{got}");
    info
}

/// Marks `source`, checks that the marked text compiles and holds one anchor per statement.
pub fn check_marked(lang: Lang, source: &str, info: &AstInfo) -> Marked {
    let marked = mark_source(source, &info.stmts);
    if let Err(e) = compiles(lang, &marked.text, &[]) {
        panic!("marked text does not compile:\n{}\n{e}", marked.text);
    }
    for (id, _) in info.stmts.stmts.iter() {
        let anchor = format!("__syncfix_anchor({});", id.index());
        assert_eq!(marked.text.matches(&anchor).count(), 1, "{anchor} in\n{}", marked.text);
    }
    assert_eq!(marked.text.matches("__syncfix_anchor(").count(), info.stmts.stmts.len());
    marked
}
