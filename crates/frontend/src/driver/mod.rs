//! The front-end pipeline (ARCHITECTURE.md, "crates/frontend": `driver`): clang's JSON AST of the user's file gives the statement
//! table; a *marked* copy of the source (a marker call before every statement) is compiled by
//! clang-19 with our force-included prelude, LLVM's `mem2reg,infer-address-spaces` (in-process)
//! cleans it, `llvm-ir` reads it, and [`crate::lower`] turns each kernel into KIR.
//!
//! Parts: `options` (the front end's options, errors and result), `clang` (the scratch folder,
//! the prelude and clang's runs and diagnostics), `ir` (reading the LLVM IR), `kernels` (which
//! functions are lowered); this module holds the pipeline ([`compile`], [`clang_baseline`]).

mod clang;
mod host;
mod ir;
mod kernels;
mod launches;
mod options;

pub use crate::lower::Annotations;
pub use ir::panic_message;
pub use options::{find_cuda_toolkit, language_of, Compiled, FrontendError, FrontendOptions};

use crate::ast::parse_ast;
use crate::lower::{lower, LocMapper, LowerInput, Names};
use crate::marks::Marked;
use clang::{error_lines, run, user_paths, Setup};
use host::HostFallback;
use ir::read_ir;
use kernels::{choose_kernels, ir_name, with_contracts, Chosen};
use llvm_ir::DebugLoc;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use syncfix_kir::{Language, SourceFile};

/// Maps debug locations in the marked copy of the main file to the user's file.
struct Mapper<'a> {
    dir: String,
    file_name: String,
    marked: &'a Marked,
}

impl LocMapper for Mapper<'_> {
    fn main_loc(&self, dl: &DebugLoc) -> Option<(u32, u32)> {
        let same_dir = dl.directory.as_deref().map(|d| d == self.dir).unwrap_or(true);
        let name = dl.filename.rsplit('/').next().unwrap_or(&dl.filename);
        let full_match = dl.filename == self.file_name || (dl.filename.starts_with(&self.dir) && name == self.file_name);
        if (same_dir && dl.filename == self.file_name) || full_match {
            Some(self.marked.to_original(dl.line, dl.col.unwrap_or(1)))
        } else {
            None
        }
    }
}

/// The time of one plain clang-19 compile of `text` to LLVM IR, with the flags and prelude of
/// the front end's own compile (the prelude included, not precompiled) but without its
/// statement markers: the benchmark's baseline.
///
/// Errors: clang's diagnostics ([`FrontendError::Clang`]), [`FrontendError::Timeout`].
pub fn clang_baseline(path: &Path, text: &str, opts: &FrontendOptions) -> Result<Duration, FrontendError> {
    let setup = Setup::new(path, text, opts)?;
    setup.write(&setup.file_name, text)?;
    let mut time = Duration::ZERO;
    let out = run(
        Command::new(&setup.clang)
            .current_dir(setup.dir())
            .args(&setup.common)
            .arg("-include")
            .arg(&setup.prelude)
            .args(["-Xclang", "-disable-O0-optnone", "-g", "-emit-llvm", "-c", "-o"])
            .arg(setup.dir().join("kernel.bc"))
            .arg(&setup.file_name),
        "clang",
        opts.deadline,
        &mut time,
    )?;
    if !out.status.success() {
        return Err(FrontendError::Clang(user_paths(&String::from_utf8_lossy(&out.stderr), &setup.file_name, path)));
    }
    Ok(time)
}

/// Compiles `text` (the contents of the file at `path`) and lowers its kernels.
///
/// Errors: clang's diagnostics ([`FrontendError::Clang`]), unsupported constructs
/// ([`FrontendError::Unsupported`]), no kernel ([`FrontendError::NoKernel`]), the deadline
/// ([`FrontendError::Timeout`]), syncfix's own failures ([`FrontendError::Internal`]).
pub fn compile(path: &Path, text: &str, opts: &FrontendOptions) -> Result<Compiled, FrontendError> {
    compile_kernels(path, text, opts, false)
}

/// As [`compile`], but when the file has several kernels (none chosen with `--kernel`), a
/// kernel that cannot be lowered (an unsupported construct) does not stop the others: it is
/// in [`Compiled::failed`] with its error (so [`Compiled::kernels`] may be empty). A file of
/// one kernel fails with its error, as GPUVerify's front end does.
///
/// Errors: as [`compile`].
pub fn compile_each(path: &Path, text: &str, opts: &FrontendOptions) -> Result<Compiled, FrontendError> {
    compile_kernels(path, text, opts, true)
}

fn compile_kernels(path: &Path, text: &str, opts: &FrontendOptions, each: bool) -> Result<Compiled, FrontendError> {
    let mut setup = Setup::new(path, text, opts)?;
    let language = setup.language;
    let deadline = opts.deadline;
    let mut tool_time = Duration::ZERO;

    // 0–1. The prelude precompiled, the text's AST (`parse_with_host_fallback`).
    let Parsed { ast, effective, fallback, first_failure, pch } =
        parse_with_host_fallback(&mut setup, path, text, deadline, &mut tool_time)?;
    let file_name = setup.file_name.clone();
    // The user's text, for messages; `text` is what clang compiles.
    let original = text;
    let text = effective.as_str();
    let mut common = setup.common.clone();
    common.extend(fallback.args());
    common.push("-include-pch".into());
    common.push(pch.display().to_string());
    let dir = setup.dir();

    // 2. The marked source to LLVM IR (`compile_marked`).
    let (marked, ir) = compile_marked(&setup, &common, text, &ast, path, deadline, &mut tool_time)?;
    // A record whose field was left out has another layout than the user's: device code
    // must not use it.
    for record in fallback.records_with_fields_left_out() {
        if ["struct", "class"].iter().any(|k| ir.contains(&format!("%{k}.{record} = ")) || ir.contains(&format!("::{record}\" = "))) {
            return Err(FrontendError::Clang(format!(
                "{}{}",
                first_failure.as_deref().unwrap_or(""),
                format_args!("syncfix: device code uses `{record}`, whose fields above do not compile\n")
            )));
        }
    }
    let module = read_ir(&ir)?;
    let gep_offsets = crate::constgep::offsets(&ir).map_err(|e| FrontendError::Internal(format!("reading LLVM IR: {e}")))?;

    // 3. Each kernel to KIR.
    let mapper = Mapper { dir: dir.display().to_string(), file_name: file_name.clone(), marked: &marked };
    let mut kernels = vec![];
    let chosen = choose_kernels(path, language, &ast, opts.source.kernel.as_deref())?;
    let names_globals = ast
        .vars
        .iter()
        .map(|v| {
            let key = match (&v.mangled_name, &v.function) {
                (Some(m), _) => m.clone(),
                (None, Some(f)) => format!("{f}.{}", v.name),
                (None, None) => v.name.clone(),
            };
            (key, v.name.clone())
        })
        .collect::<std::collections::HashMap<String, String>>();
    let kernel_ir_names: Vec<String> =
        ast.functions.iter().filter(|f| f.is_kernel && !f.is_template_pattern()).map(|f| ir_name(language, f)).collect();
    let mut chosen: Vec<(Chosen, bool)> = chosen.into_iter().map(|c| (c, false)).collect();
    if opts.source.modular {
        chosen.extend(with_contracts(language, &ast, &module, opts.source.kernel.as_deref()).into_iter().map(|c| (c, true)));
    }
    let file_notes = fallback.notes(&path.display().to_string());
    let several = chosen.len() > 1;
    let mut failed: Vec<(String, FrontendError)> = vec![];
    let mut kernel_notes = vec![];
    for (Chosen { info: f, name: kernel_name }, modular) in chosen {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(FrontendError::Timeout);
        }
        let ir_name = ir_name(language, f);
        let names = Names {
            params: f.params.clone(),
            globals: names_globals.clone(),
            records: ast.records.clone(),
            kernels: kernel_ir_names.clone(),
        };
        let named = |k: &String| crate::names::names_kernel(k, &f.name, &ir_name);
        let param_values = opts.source.kernel_args.iter().rev().find(|(k, _)| named(k)).map(|(_, v)| v.clone()).unwrap_or_default();
        // Values for the scalar (not pointer or array) parameters, in order: no more than
        // there are.
        let scalars: Vec<&str> = f.params.iter().filter(|(_, t)| !t.contains('*') && !t.contains('[')).map(|(n, _)| n.as_str()).collect();
        if param_values.len() > scalars.len() {
            return Err(FrontendError::Usage(format!(
                "--kernel-args: {} values for kernel `{}`, which has {} scalar parameter{}{} (values are given for those, in order)",
                param_values.len(),
                f.name,
                scalars.len(),
                if scalars.len() == 1 { "" } else { "s" },
                if scalars.is_empty() { String::new() } else { format!(" ({})", scalars.join(", ")) }
            )));
        }
        let array_sizes = opts.source.kernel_arrays.iter().rev().find(|(k, _)| named(k)).map(|(_, v)| v.clone()).unwrap_or_default();
        let launches = if modular { vec![(opts.launch, None)] } else { launches::of_kernel(&ast.launches, &ir_name, opts, path) };
        for (launch, note) in launches {
            let input = LowerInput {
                module: &module,
                kernel_ir_name: &ir_name,
                kernel_name: &kernel_name,
                language,
                launch,
                names: &names,
                mapper: &mapper,
                main_file: SourceFile::new(path.display().to_string(), Some(original.to_string())),
                known_files: vec![SourceFile::new(setup.prelude.display().to_string(), setup.headers.last().map(|h| h.1.to_string()))],
                stmts: ast.stmts.clone(),
                annotations: opts.source.annotations,
                invariants_as_candidates: opts.source.invariants_as_candidates,
                param_values: param_values.clone(),
                array_sizes: array_sizes.clone(),
                gep_offsets: &gep_offsets,
                modular,
            };
            match lower(&input) {
                Ok(k) => kernels.push(k),
                Err(e @ crate::lower::LowerError::Unsupported { .. }) if each && several => {
                    // Once per kernel: its other launches would fail the same way.
                    failed.push((kernel_name.clone(), FrontendError::from(e)));
                    break;
                }
                Err(e) => return Err(e.into()),
            }
            let mut notes = file_notes.clone();
            notes.extend(note);
            kernel_notes.push(notes);
        }
    }
    Ok(Compiled { kernels, ast, language, tool_time, kernel_notes, failed })
}

/// What step 1 of [`compile_kernels`] gives: clang's AST of the text, the text as clang
/// compiled it, and how the host code's failures were met.
struct Parsed {
    ast: crate::ast::AstInfo,
    /// The text with the host code that did not compile blanked (same length and lines).
    effective: String,
    fallback: HostFallback,
    /// What clang said of the first attempt that failed, if one did.
    first_failure: Option<String>,
    /// The precompiled prelude (made again when the cached one failed).
    pch: std::path::PathBuf,
}

/// Step 1 of [`compile_kernels`]: the prelude precompiled and clang's AST of `text`, host
/// code that does not compile left out and missing headers stubbed, round by round.
///
/// Errors: clang's own (`FrontendError::Clang`) when the device code does not compile, a
/// tool's when clang cannot be run or prints no AST.
fn parse_with_host_fallback(
    setup: &mut Setup,
    path: &Path,
    text: &str,
    deadline: Option<Instant>,
    tool_time: &mut Duration,
) -> Result<Parsed, FrontendError> {
    let language = setup.language;
    // 0. The prelude, precompiled with the same options: clang's AST dump then leaves out its
    //    declarations (the prelude's and those of clang's CUDA headers, megabytes of JSON that
    //    syncfix does not read), and the prelude is parsed once for both compilations below.
    let mut pch = setup.pch(false, deadline, tool_time)?;
    // 1. The AST of the text (which may differ from the file on disk: a patched version),
    //    from a copy with the same file name; clang's messages name the user's path.
    let file_name = setup.file_name.clone();
    let orig = setup.dir().join("orig");
    // `create_dir`, not `create_dir_all`: when a signal has removed the scratch folder
    // (`process::abort`), this fails instead of making the folder again and leaving it behind.
    match std::fs::create_dir(&orig) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(FrontendError::Tool(format!("cannot create {}: {e}", orig.display()))),
    }
    // A whole program's host code that does not compile is left out, and headers that
    // cannot be found are stubbed (`host`), round by round; `text` is then `effective`, of
    // the same length and lines, with host bodies blanked.
    let mut effective = text.to_string();
    let mut fallback = HostFallback::new(setup.dir().join("stubs"), setup.dir().join("overlay"));
    let mut first_failure: Option<String> = None;
    let mut rounds = 0;
    let ast = loop {
        setup.write(&format!("orig/{file_name}"), &effective)?;
        let out = run(
            Command::new(&setup.clang)
                .current_dir(&orig)
                .args(&setup.common)
                .args(fallback.args())
                .arg("-include-pch")
                .arg(&pch)
                .args(["-fsyntax-only", "-Xclang", "-ast-dump=json"])
                .arg(&file_name),
            "clang",
            deadline,
            tool_time,
        )?;
        let diags = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() && setup.cached_pch_failed(&pch, &diags) {
            pch = setup.pch(true, deadline, tool_time)?;
            continue;
        }
        if out.status.success() {
            let json = String::from_utf8_lossy(&out.stdout);
            // A compiler that is not clang 19 (`SYNCFIX_CLANG=/bin/true`) prints no AST dump:
            // the user's setup, not a bug of syncfix's.
            if !json.trim_start().starts_with('{') {
                return Err(FrontendError::Tool(format!(
                    "`{}` printed no clang AST (`-Xclang -ast-dump=json`); is it clang 19? (SYNCFIX_CLANG names the clang syncfix runs)",
                    setup.clang.display()
                )));
            }
            let ast = parse_ast(&json, &file_name, &effective).map_err(|e| FrontendError::Internal(format!("reading clang's AST: {e}")))?;
            break ast;
        }
        if std::env::var_os("SYNCFIX_DEBUG_HOST").is_some() {
            eprintln!("syncfix: debug: host fallback round {rounds}:\n{}", user_paths(&diags, &file_name, path));
        }
        let first = first_failure.get_or_insert_with(|| user_paths(&diags, &file_name, path)).clone();
        if language != Language::Cuda || rounds >= host::MAX_ROUNDS {
            return Err(FrontendError::Clang(first));
        }
        rounds += 1;
        match fallback.stub_missing(&diags) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(_) => return Err(FrontendError::Clang(first)),
        }
        // Errors only in host code of the user's files: leave it out.
        if let Some(places) = host::error_places(&diags, &file_name) {
            let json = String::from_utf8_lossy(&out.stdout);
            if let Ok(ast) = parse_ast(&json, &file_name, &effective) {
                match fallback.leave_out(&mut effective, &ast.host_decls, &places, &orig) {
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(e) => return Err(FrontendError::Tool(e)),
                }
            }
        }
        return Err(FrontendError::Clang(first));
    };
    Ok(Parsed { ast, effective, fallback, first_failure, pch })
}

/// Step 2 of [`compile_kernels`]: the marked source (`marks`) compiled to LLVM IR with the
/// options `common`; returns the marked source and the IR's text, cleaned (`passes`) and
/// readable by `llvm-ir`.
///
/// Errors: an internal error when even the unmarked text does not compile (its AST did).
fn compile_marked(
    setup: &Setup,
    common: &[String],
    text: &str,
    ast: &crate::ast::AstInfo,
    path: &Path,
    deadline: Option<Instant>,
    tool_time: &mut Duration,
) -> Result<(Marked, String), FrontendError> {
    let (dir, file_name) = (setup.dir(), &setup.file_name);
    // 2. The marked source, compiled to LLVM IR. Marks that clang rejects (a case the marker
    //    did not foresee, through a macro say) are left out, statement by statement on the
    //    lines clang names, then all of them; the text without marks compiles, since its AST
    //    did. Failing that, syncfix is at fault (an internal error), not the user's code.
    let bc = dir.join("kernel.bc");
    use crate::marks::Skip;
    // Statements on the lines clang rejected: first without their split, then unmarked.
    let mut skipped: Vec<(syncfix_kir::StmtId, Skip)> = vec![];
    let mut unmarked = false;
    let marked = loop {
        let skip = |id| if unmarked { Skip::All } else { skipped.iter().rev().find(|(s, _)| *s == id).map_or(Skip::Nothing, |(_, k)| *k) };
        let marked = crate::marks::mark_source_except(text, &ast.stmts, &skip);
        setup.write(file_name, &marked.text)?;
        let out = run(
            Command::new(&setup.clang)
                .current_dir(dir)
                .args(common)
                .args(["-Xclang", "-disable-O0-optnone", "-g", "-emit-llvm", "-c", "-o"])
                .arg(&bc)
                .arg(file_name),
            "clang",
            deadline,
            tool_time,
        )?;
        if out.status.success() {
            break marked;
        }
        let diags = String::from_utf8_lossy(&out.stderr).into_owned();
        if unmarked {
            return Err(FrontendError::Internal(format!(
                "the kernel does not compile to LLVM IR although clang accepted it:\n{}",
                user_paths(&diags, file_name, path)
            )));
        }
        let lines = error_lines(&diags, file_name);
        let mut more = vec![];
        for id in crate::marks::stmts_marked_on_lines(text, &ast.stmts, &lines) {
            let next = match skip(id) {
                Skip::Nothing if ast.stmts.stmts[id].split.is_some() => Skip::Split,
                Skip::Nothing | Skip::Split => Skip::All,
                Skip::All => continue,
            };
            more.push((id, next));
        }
        unmarked = more.is_empty();
        skipped.extend(more);
    };
    let ir = crate::passes::clean(&bc).map_err(FrontendError::Internal)?;
    // llvm-ir cannot parse SPIR's `-G1` (default globals address space) in the datalayout.
    let ir = ir.replacen("-G1\"", "\"", 1);
    Ok((marked, ir))
}
