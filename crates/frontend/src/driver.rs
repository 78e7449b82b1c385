//! The front-end pipeline (ARCHITECTURE.md, "crates/frontend": `driver`): clang's JSON AST of the user's file gives the statement
//! table; a *marked* copy of the source (a marker call before every statement) is compiled by
//! clang-19 with our force-included prelude, LLVM's `mem2reg,infer-address-spaces` (in-process)
//! cleans it, `llvm-ir` reads it, and [`crate::lower`] turns each kernel into KIR.

use crate::ast::{parse_ast, AstInfo, FunctionInfo};
pub use crate::lower::Annotations;
use crate::lower::{lower, LocMapper, LowerError, LowerInput, Names};
use crate::marks::Marked;
use crate::process::{self, RunError, Scratch};
use llvm_ir::{DebugLoc, Module};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use syncfix_kir::{Kernel, Language, Launch, Loc, SourceFile};

/// Options of the front end.
#[derive(Clone, Debug)]
pub struct FrontendOptions {
    /// The source language; `None` decides by the file extension (`.cl` is OpenCL).
    pub language: Option<Language>,
    pub launch: Launch,
    /// `-D` definitions (`NAME` or `NAME=VALUE`) and `-I` include directories.
    pub defines: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    /// Extra arguments for clang (`--clang-opt`).
    pub clang_args: Vec<String>,
    /// Only this kernel (by source name), if given.
    pub kernel: Option<String>,
    /// Which source-level annotations count (`--no-annotations`, `--only-requires`).
    pub annotations: Annotations,
    /// `--invariants-as-candidates`: user invariants are only candidates (unchecked).
    pub invariants_as_candidates: bool,
    /// `--kernel-args=K,v1,...`: values of kernel K's scalar parameters (`None`: `*`).
    pub kernel_args: Vec<(String, Vec<Option<u128>>)>,
    /// `--kernel-arrays=K,s1,...`: sizes in bytes of kernel K's pointer parameters.
    pub kernel_arrays: Vec<(String, Vec<Option<u64>>)>,
    /// `--timeout`: clang and opt are killed at this instant, and the front end then fails
    /// with [`FrontendError::Timeout`].
    pub deadline: Option<Instant>,
    /// `--no-inline`: besides the kernels, each device function of the main file that has a
    /// contract (`__requires`, `__ensures`) is checked on its own against it, as GPUVerify
    /// checks procedures modularly (see [`crate::lower::LowerInput::modular`]). Its callers
    /// still inline it.
    pub modular: bool,
}


impl FrontendOptions {
    /// Defaults for a launch: language by extension, every annotation honoured.
    pub fn new(launch: Launch) -> FrontendOptions {
        FrontendOptions {
            language: None,
            launch,
            defines: vec![],
            include_dirs: vec![],
            clang_args: vec![],
            kernel: None,
            annotations: Annotations::All,
            invariants_as_candidates: false,
            kernel_args: vec![],
            kernel_arrays: vec![],
            deadline: None,
            modular: false,
        }
    }
}

/// A front-end failure, mapped to GPUVerify's exit codes by the caller.
#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    /// clang rejected the kernel (exit 2); its diagnostics are passed through.
    #[error("{0}")]
    Clang(String),
    /// A construct the lowering does not understand (exit 4).
    #[error("{what}")]
    Unsupported { what: String, loc: Option<Loc> },
    /// A misplaced annotation (exit 4 or 5 by `stage`, as GPUVerify).
    #[error("{what}")]
    Annotation { what: String, loc: Option<Loc>, stage: crate::lower::Stage },
    /// The file defines no kernel (exit 4).
    #[error("{0}")]
    NoKernel(String),
    /// clang-19 is missing or failed to run (exit 2).
    #[error("{0}")]
    Tool(String),
    /// A step of syncfix's own failed on input clang accepted: a bug in syncfix, to be
    /// reported (exit 11, GPUVerify's code for an internal error), never the user's error.
    #[error("internal error: {0}")]
    Internal(String),
    /// [`FrontendOptions::deadline`] passed (exit 7).
    #[error("the time limit was reached in the front end")]
    Timeout,
}

impl From<LowerError> for FrontendError {
    fn from(e: LowerError) -> Self {
        match e {
            LowerError::Unsupported { what, loc } => FrontendError::Unsupported { what, loc },
            LowerError::Annotation { what, loc, stage } => FrontendError::Annotation { what, loc, stage },
        }
    }
}

/// The result of the front end: the statement table, the kernels, and the main file.
pub struct Compiled {
    pub kernels: Vec<Kernel>,
    pub ast: AstInfo,
    pub language: Language,
    /// Time spent in the clang-19 processes; the rest of the front end's time is
    /// syncfix's own (reading the AST and the IR, lowering).
    pub tool_time: Duration,
}

/// Path of a tool: `$SYNCFIX_<NAME>`, then `<name>-19` on the PATH, then LLVM 19's directory.
fn tool(env: &str, name: &str) -> PathBuf {
    if let Ok(p) = std::env::var(env) {
        return PathBuf::from(p);
    }
    let versioned = format!("{name}-19");
    if let Ok(path) = std::env::var("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(&versioned);
            if p.is_file() {
                return p;
            }
        }
    }
    PathBuf::from(format!("/usr/lib/llvm-19/bin/{name}"))
}

/// The language of a file by extension: `.cl` is OpenCL, anything else CUDA.
pub fn language_of(path: &Path) -> Language {
    match path.extension().and_then(|e| e.to_str()) {
        Some("cl") => Language::OpenCl,
        _ => Language::Cuda,
    }
}

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

/// Runs a tool until `deadline`, adding its time to `time`.
fn run(cmd: &mut Command, what: &str, deadline: Option<Instant>, time: &mut Duration) -> Result<std::process::Output, FrontendError> {
    match process::run(cmd, deadline) {
        Ok((out, t)) => {
            *time += t;
            // A failure without a word (a wrong `SYNCFIX_CLANG`, say) still gets a message.
            if !out.status.success() && out.stderr.iter().all(u8::is_ascii_whitespace) {
                return Err(FrontendError::Tool(format!(
                    "{what} (`{}`) failed ({}) and printed no message{}",
                    cmd.get_program().to_string_lossy(),
                    out.status,
                    if what == "clang" { "; is it clang-19? (SYNCFIX_CLANG names the clang syncfix runs)" } else { "" }
                )));
            }
            Ok(out)
        }
        Err(RunError::Spawn(e)) => {
            Err(FrontendError::Tool(format!("cannot run {what} ({}): {e}", cmd.get_program().to_string_lossy())))
        }
        Err(RunError::Timeout) => Err(FrontendError::Timeout),
        Err(RunError::Aborted) => Err(FrontendError::Tool("syncfix is stopping".into())),
    }
}

/// The message of a panic (its `String` or `&str` payload), if it has one.
pub fn panic_message(info: &std::panic::PanicHookInfo<'_>) -> Option<String> {
    let p = info.payload();
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
}

/// Reads LLVM IR text with `llvm-ir`, which panics on constructs it does not know (e.g. LLVM
/// 19's target extension types, which clang uses for OpenCL's `event_t`): such a panic is
/// caught and reported as an unsupported construct.
fn read_ir(ir: &str) -> Result<Module, FrontendError> {
    static HOOK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let message = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let m2 = message.clone();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = panic_message(info).unwrap_or_default();
        if let Ok(mut m) = m2.lock() {
            *m = text;
        }
    }));
    let result = std::panic::catch_unwind(|| Module::from_ir_str(ir));
    std::panic::set_hook(previous);
    match result {
        Ok(Ok(m)) => Ok(m),
        Ok(Err(e)) => Err(FrontendError::Internal(format!("reading LLVM IR: {e}"))),
        Err(_) => {
            let why = message.lock().map(|m| m.clone()).unwrap_or_default();
            let why = why.lines().next().unwrap_or("").chars().take(200).collect::<String>();
            Err(FrontendError::Unsupported {
                what: format!("an LLVM IR construct the IR reader (llvm-ir 0.11) does not handle ({why}); OpenCL's event_t and async copies are not supported yet"),
                loc: None,
            })
        }
    }
}

/// The lines of `file` that clang's diagnostics `diags` give errors on (`file:L:C: error:`).
fn error_lines(diags: &str, file: &str) -> Vec<u32> {
    diags
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(file)?.strip_prefix(':')?;
            let (line, rest) = rest.split_once(':')?;
            let (_, rest) = rest.split_once(':')?;
            rest.trim_start().starts_with("error").then(|| line.parse().ok()).flatten()
        })
        .collect()
}

/// clang's diagnostics with the temporary copy's name replaced by the user's path.
fn user_paths(msg: &str, file_name: &str, path: &Path) -> String {
    let user = path.display().to_string();
    msg.lines()
        .map(|l| match l.strip_prefix(file_name) {
            Some(rest) if rest.starts_with(':') => format!("{user}{rest}"),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// A scratch directory for the user's source, the prelude headers (cached, see
/// [`crate::prelude`]), and the clang arguments that use them.
struct Setup {
    scratch: Scratch,
    language: Language,
    /// The arguments common to every clang run (language, `-O0`, includes, `-D`, `-I`,
    /// `--clang-opt`); the prelude is added by each run (precompiled or included).
    common: Vec<String>,
    /// The prelude header, which includes the others.
    prelude: PathBuf,
    /// The cache folder of this prelude, if the cache is used.
    cached: Option<PathBuf>,
    /// The folder a PCH was built in, when it could not be moved into the cache.
    pch_dir: Option<Scratch>,
    /// The user's file name, which the copies in the scratch directory keep.
    file_name: String,
    clang: PathBuf,
}

impl Setup {
    fn new(path: &Path, opts: &FrontendOptions) -> Result<Setup, FrontendError> {
        let language = opts.language.unwrap_or_else(|| language_of(path));
        let scratch = Scratch::new().map_err(|e| FrontendError::Tool(format!("cannot create a temporary directory: {e}")))?;
        let clang = tool("SYNCFIX_CLANG", "clang");
        // The options that decide how the prelude compiles; `-I` paths do not.
        let mut args: Vec<String> = match language {
            // PTX 8.4 (CUDA 12.4, the CUDA_VERSION the prelude gives): clang's headers use the
            // warp built-ins (`__nvvm_shfl_sync_*`) that need PTX 6.0 and later.
            Language::Cuda => ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_70", "-nocudainc", "-nocudalib", "-Xclang", "-target-feature", "-Xclang", "+ptx84"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            // gnu89 inline semantics: a plain `inline` function is emitted (C99's would leave
            // only a declaration, and its accesses unseen).
            Language::OpenCl => {
                ["-x", "cl", "-cl-std=CL1.2", "-target", "spir64", "-fgnu89-inline"].iter().map(|s| s.to_string()).collect()
            }
        };
        args.push("-w".into());
        // One optimisation level for the precompiled prelude and both compilations (it decides
        // `__OPTIMIZE__`, which a precompiled header must agree on; OpenCL's default is -O2).
        args.push("-O0".into());
        for d in &opts.defines {
            args.push(format!("-D{d}"));
        }
        args.extend(opts.clang_args.iter().cloned());
        let headers = crate::prelude::headers(language);
        let cached = crate::prelude::cache_root()
            .map(|root| root.join(crate::prelude::key(language, &clang, &args)))
            .filter(|dir| crate::prelude::write_headers(dir, headers).is_ok());
        let base = match &cached {
            Some(dir) => dir.clone(),
            None => {
                let dir = scratch.path().to_path_buf();
                crate::prelude::write_headers(&dir, headers).map_err(|e| FrontendError::Tool(format!("cannot write the prelude in {}: {e}", dir.display())))?;
                dir
            }
        };
        let inc = base.join("include");
        let prelude = inc.join(headers.last().map_or("", |h| h.0));
        let src_dir = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p }).unwrap_or(Path::new("."));
        let src_dir = src_dir.canonicalize().unwrap_or_else(|_| src_dir.to_path_buf());
        let n = args.len() - opts.clang_args.len();
        let mut common: Vec<String> = args[..n].to_vec();
        common.push(format!("-I{}", inc.display()));
        for i in &opts.include_dirs {
            common.push(format!("-I{}", i.display()));
        }
        common.push(format!("-I{}", src_dir.display()));
        common.extend(opts.clang_args.iter().cloned());
        Ok(Setup {
            scratch,
            language,
            common,
            prelude,
            cached,
            pch_dir: None,
            file_name: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "kernel.cu".into()),
            clang,
        })
    }

    fn dir(&self) -> &Path {
        self.scratch.path()
    }

    /// Writes `body` to `name` under the scratch directory.
    fn write(&self, name: &str, body: &str) -> Result<PathBuf, FrontendError> {
        let p = self.dir().join(name);
        std::fs::write(&p, body).map_err(|e| FrontendError::Tool(format!("cannot write {}: {e}", p.display())))?;
        Ok(p)
    }

    /// The precompiled prelude: the cached one if there is one (and `fresh` is false), else
    /// one built now and moved into the cache (replacing a spoiled one) when it is used.
    ///
    /// Errors: the prelude does not compile with the user's options ([`FrontendError::Clang`]),
    /// [`FrontendError::Timeout`].
    fn pch(&mut self, fresh: bool, deadline: Option<Instant>, time: &mut Duration) -> Result<PathBuf, FrontendError> {
        let cached = self.cached.as_ref().map(|d| d.join("prelude.pch"));
        if let Some(p) = cached.as_ref().filter(|p| !fresh && p.is_file()) {
            return Ok(p.clone());
        }
        let build = match self.cached.as_deref().map(crate::prelude::build_dir) {
            Some(Ok(b)) => Some(b),
            _ => None,
        };
        let pch = build.as_ref().map_or(self.dir(), |b| b.path()).join("prelude.pch");
        let out = run(
            Command::new(&self.clang).current_dir(self.dir()).args(&self.common).args(["-S", "-Xclang", "-emit-pch", "-o"]).arg(&pch).arg(&self.prelude),
            "clang",
            deadline,
            time,
        )?;
        if !out.status.success() {
            return Err(FrontendError::Clang(format!(
                "syncfix's {} prelude does not compile with these options:\n{}",
                if self.language == Language::Cuda { "CUDA" } else { "OpenCL" },
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        match (build, cached) {
            (Some(b), Some(c)) => {
                if std::fs::rename(&pch, &c).is_ok() {
                    return Ok(c);
                }
                self.pch_dir = Some(b);
                Ok(pch)
            }
            _ => Ok(pch),
        }
    }

    /// Whether clang's messages `diags` are about the cached precompiled prelude `pch` (one
    /// that no longer fits, say after an upgrade that kept clang's size and time).
    fn cached_pch_failed(&self, pch: &Path, diags: &str) -> bool {
        self.cached.as_ref().is_some_and(|d| pch.starts_with(d)) && diags.contains(&pch.display().to_string())
    }
}

/// The time of one plain clang-19 compile of `text` to LLVM IR, with the flags and prelude of
/// the front end's own compile (the prelude included, not precompiled) but without its
/// statement markers: the benchmark's baseline.
///
/// Errors: clang's diagnostics ([`FrontendError::Clang`]), [`FrontendError::Timeout`].
pub fn clang_baseline(path: &Path, text: &str, opts: &FrontendOptions) -> Result<Duration, FrontendError> {
    let setup = Setup::new(path, opts)?;
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
    let mut setup = Setup::new(path, opts)?;
    let language = setup.language;
    let deadline = opts.deadline;
    let mut tool_time = Duration::ZERO;

    // 0. The prelude, precompiled with the same options: clang's AST dump then leaves out its
    //    declarations (the prelude's and those of clang's CUDA headers, megabytes of JSON that
    //    syncfix does not read), and the prelude is parsed once for both compilations below.
    let mut pch = setup.pch(false, deadline, &mut tool_time)?;
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
    setup.write(&format!("orig/{file_name}"), text)?;
    let out = loop {
        let out = run(
            Command::new(&setup.clang)
                .current_dir(&orig)
                .args(&setup.common)
                .arg("-include-pch")
                .arg(&pch)
                .args(["-fsyntax-only", "-Xclang", "-ast-dump=json"])
                .arg(&file_name),
            "clang",
            deadline,
            &mut tool_time,
        )?;
        let diags = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() && setup.cached_pch_failed(&pch, &diags) {
            pch = setup.pch(true, deadline, &mut tool_time)?;
            continue;
        }
        if !out.status.success() {
            return Err(FrontendError::Clang(user_paths(&diags, &file_name, path)));
        }
        break out;
    };
    let mut common = setup.common.clone();
    common.push("-include-pch".into());
    common.push(pch.display().to_string());
    let (dir, clang) = (setup.dir(), &setup.clang);
    let json = String::from_utf8_lossy(&out.stdout);
    let ast = parse_ast(&json, &file_name, text).map_err(|e| FrontendError::Internal(format!("reading clang's AST: {e}")))?;

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
        setup.write(&file_name, &marked.text)?;
        let out = run(
            Command::new(clang)
                .current_dir(dir)
                .args(&common)
                .args(["-Xclang", "-disable-O0-optnone", "-g", "-emit-llvm", "-c", "-o"])
                .arg(&bc)
                .arg(&file_name),
            "clang",
            deadline,
            &mut tool_time,
        )?;
        if out.status.success() {
            break marked;
        }
        let diags = String::from_utf8_lossy(&out.stderr).into_owned();
        if unmarked {
            return Err(FrontendError::Internal(format!(
                "the kernel does not compile to LLVM IR although clang accepted it:\n{}",
                user_paths(&diags, &file_name, path)
            )));
        }
        let lines = error_lines(&diags, &file_name);
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
    let module = read_ir(&ir)?;
    let gep_offsets = crate::constgep::offsets(&ir).map_err(|e| FrontendError::Internal(format!("reading LLVM IR: {e}")))?;

    // 3. Each kernel to KIR.
    let mapper = Mapper { dir: dir.display().to_string(), file_name: file_name.clone(), marked: &marked };
    let mut kernels = vec![];
    let chosen = choose_kernels(path, language, &ast, opts.kernel.as_deref())?;
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
    if opts.modular {
        chosen.extend(with_contracts(language, &ast, &module, opts.kernel.as_deref()).into_iter().map(|c| (c, true)));
    }
    for (Chosen { info: f, name: kernel_name }, modular) in chosen {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(FrontendError::Timeout);
        }
        let ir_name = ir_name(language, f);
        let names = Names { params: f.params.clone(), globals: names_globals.clone(), records: ast.records.clone(), kernels: kernel_ir_names.clone() };
        let named = |k: &String| crate::names::names_kernel(k, &f.name, &ir_name);
        let param_values = opts.kernel_args.iter().rev().find(|(k, _)| named(k)).map(|(_, v)| v.clone()).unwrap_or_default();
        let array_sizes = opts.kernel_arrays.iter().rev().find(|(k, _)| named(k)).map(|(_, v)| v.clone()).unwrap_or_default();
        let input = LowerInput {
            module: &module,
            kernel_ir_name: &ir_name,
            kernel_name: &kernel_name,
            language,
            launch: opts.launch,
            names: &names,
            mapper: &mapper,
            main_file: SourceFile::new(path.display().to_string(), Some(text.to_string())),
            known_files: vec![
                SourceFile::new(setup.prelude.display().to_string(), crate::prelude::headers(language).last().map(|h| h.1.to_string())),
            ],
            stmts: ast.stmts.clone(),
            annotations: opts.annotations,
            invariants_as_candidates: opts.invariants_as_candidates,
            param_values,
            array_sizes,
            gep_offsets: &gep_offsets,
            modular,
        };
        kernels.push(lower(&input)?);
    }
    Ok(Compiled { kernels, ast, language, tool_time })
}

/// The symbol of a function in the LLVM IR: its mangled name in CUDA (C++), its name in
/// OpenCL C.
fn ir_name(language: Language, f: &FunctionInfo) -> String {
    match language {
        Language::Cuda => f.mangled_name.clone().unwrap_or_else(|| f.name.clone()),
        Language::OpenCl => f.name.clone(),
    }
}

/// The device functions of the main file with a contract (a call of `__requires`,
/// `__global_requires`, `__ensures` or `__global_ensures` in their body), for `--no-inline`'s
/// modular check; only the one `want` names, if given.
fn with_contracts<'a>(language: Language, ast: &'a AstInfo, module: &llvm_ir::Module, want: Option<&str>) -> Vec<Chosen<'a>> {
    let has_contract = |symbol: &str| {
        let Some(func) = module.functions.iter().find(|g| g.name == symbol) else { return false };
        func.basic_blocks.iter().flat_map(|b| &b.instrs).any(|i| match i {
            llvm_ir::Instruction::Call(c) => crate::llvm::callee_name(c).is_some_and(|n| {
                matches!(crate::names::function_name(&n).as_str(), "__requires" | "__global_requires" | "__ensures" | "__global_ensures")
            }),
            _ => false,
        })
    };
    ast.functions
        .iter()
        .filter(|f| !f.is_kernel && f.in_main && f.body.is_some() && !f.is_template_pattern())
        .filter(|f| !f.name.starts_with("__spec_") && !f.name.starts_with("__syncfix"))
        .filter(|f| want.is_none_or(|w| crate::names::names_kernel(w, &f.name, &ir_name(language, f))))
        .filter(|f| has_contract(&ir_name(language, f)))
        .map(|f| Chosen { info: f, name: f.name.clone() })
        .collect()
}

/// A kernel to lower and the name it is reported under (`k`, `reduce0<int>`).
struct Chosen<'a> {
    info: &'a FunctionInfo,
    name: String,
}

/// The kernels of the main file to lower: every kernel with a body (each instantiation of a
/// kernel template is one), or the one `want` names (see [`crate::names::names_kernel`]).
///
/// Errors ([`FrontendError::NoKernel`]): no kernel; `want` names none, or names several (the
/// message lists them); a kernel template with no instantiation (the message says how to
/// instantiate it).
fn choose_kernels<'a>(path: &Path, language: Language, ast: &'a AstInfo, want: Option<&str>) -> Result<Vec<Chosen<'a>>, FrontendError> {
    let defined = |f: &&FunctionInfo| f.is_kernel && f.in_main && f.body.is_some();
    let templates: Vec<&FunctionInfo> = ast.functions.iter().filter(defined).filter(|f| f.is_template_pattern()).collect();
    let kernels: Vec<Chosen> = ast
        .functions
        .iter()
        .filter(defined)
        .filter(|f| !f.is_template_pattern())
        .map(|f| {
            let symbol = ir_name(language, f);
            let name = crate::names::short_name(&symbol).unwrap_or_else(|| f.name.clone());
            Chosen { info: f, name }
        })
        .collect();
    let instantiated: Vec<&str> = kernels.iter().map(|k| k.info.name.as_str()).collect();
    let uninstantiated = |t: &FunctionInfo| !instantiated.contains(&t.name.as_str());
    let file = path.display();
    let Some(want) = want else {
        if kernels.is_empty() {
            return Err(match templates.iter().find(|t| uninstantiated(t)) {
                Some(t) => FrontendError::NoKernel(format!("{file}: {}", not_instantiated(t))),
                None => FrontendError::NoKernel(format!(
                    "{file}: no kernel found (a `{}` function with a body)",
                    if language == Language::Cuda { "__global__" } else { "__kernel" }
                )),
            });
        }
        return Ok(kernels);
    };
    let mut named: Vec<Chosen> = vec![];
    for k in kernels {
        if crate::names::names_kernel(want, &k.info.name, &ir_name(language, k.info)) {
            named.push(k);
        }
    }
    // A source name shared by several kernels (instantiations of one template, overloads)
    // does not choose one unless it is exactly one's own name.
    if named.len() > 1 {
        let exact: Vec<usize> = (0..named.len()).filter(|&i| named[i].name == want).collect();
        if let [i] = exact[..] {
            return Ok(vec![named.swap_remove(i)]);
        }
        let list = named
            .iter()
            .map(|k| {
                let symbol = ir_name(language, k.info);
                match crate::names::signature(&symbol) {
                    Some(sig) => format!("  {} (`{sig}`, symbol {symbol})", k.name),
                    None => format!("  {}", k.name),
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        return Err(FrontendError::NoKernel(format!(
            "{file}: `--kernel={want}` names {} kernels; choose one by its template arguments or its symbol:\n{list}",
            named.len()
        )));
    }
    if named.is_empty() {
        return Err(match templates.iter().find(|t| t.name == want && uninstantiated(t)) {
            Some(t) => FrontendError::NoKernel(format!("{file}: {}", not_instantiated(t))),
            None => FrontendError::NoKernel(format!("{file}: no kernel named `{want}`")),
        });
    }
    Ok(named)
}

/// The message for a kernel template that has no instantiation, with an explicit
/// instantiation to copy (every type parameter `int`, every non-type parameter an example
/// value of its type).
fn not_instantiated(t: &FunctionInfo) -> String {
    let args: Vec<(String, String)> = t
        .template_params
        .iter()
        .map(|(name, ty)| {
            let value = match ty.as_deref() {
                None => "int".to_owned(),
                Some("bool") => "true".to_owned(),
                Some(_) => "256".to_owned(),
            };
            (name.clone(), value)
        })
        .collect();
    let substitute = |ty: &str| -> String {
        let mut out = String::new();
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let w = std::mem::take(word);
            out.push_str(args.iter().find(|(n, _)| *n == w).map_or(w.as_str(), |(_, v)| v.as_str()));
        };
        for c in ty.chars() {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    };
    let params = t.params.iter().map(|(_, ty)| substitute(ty)).collect::<Vec<_>>().join(", ");
    let targs = args.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(", ");
    format!(
        "kernel template `{name}` is never instantiated, so there is no kernel to verify: instantiate it after its definition with the template arguments it is launched with, for example `template __global__ void {name}<{targs}>({params});`",
        name = t.name
    )
}
