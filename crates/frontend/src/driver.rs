//! The front-end pipeline (DESIGN §3): clang's JSON AST of the user's file gives the statement
//! table; a *marked* copy of the source (a marker call before every statement) is compiled by
//! clang-19 with our force-included prelude, `opt-19 -passes=mem2reg,infer-address-spaces`
//! cleans it, `llvm-ir` reads it, and [`crate::lower`] turns each kernel into KIR.

use crate::ast::{parse_ast, AstInfo};
use crate::lower::{lower, LocMapper, LowerError, LowerInput, Names};
use crate::marks::{mark_source, Marked};
use llvm_ir::{DebugLoc, Module};
use crate::process::{self, RunError, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use syncfix_kir::{Kernel, Language, Launch, Loc, SourceFile};

const CUDA_PRELUDE: &str = include_str!("../prelude/cuda/syncfix_cuda_prelude.h");
const CUDA_H: &str = include_str!("../prelude/cuda/cuda.h");
const COOPERATIVE_GROUPS_H: &str = include_str!("../prelude/cuda/cooperative_groups.h");
const OPENCL_PRELUDE: &str = include_str!("../prelude/opencl/syncfix_opencl_prelude.h");
const ANNOTATIONS_H: &str = include_str!("../prelude/common/syncfix_annotations.h");

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
}

/// Which source-level annotations the front end honours (GPUVerify's `--no-annotations`,
/// `--only-requires`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Annotations {
    #[default]
    All,
    OnlyRequires,
    Ignore,
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
    /// clang-19 or opt-19 is missing or failed to run (exit 2).
    #[error("{0}")]
    Tool(String),
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
    /// Time spent in the clang-19 and opt-19 processes; the rest of the front end's time is
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
        Ok(Err(e)) => Err(FrontendError::Tool(format!("reading LLVM IR: {e}"))),
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

/// A scratch directory with our prelude headers, and the clang arguments that use them.
struct Setup {
    scratch: Scratch,
    language: Language,
    /// The arguments common to every clang run (language, prelude, `-D`, `-I`, `--clang-opt`).
    common: Vec<String>,
    prelude: PathBuf,
    /// The user's file name, which the copies in the scratch directory keep.
    file_name: String,
    clang: PathBuf,
}

impl Setup {
    fn new(path: &Path, opts: &FrontendOptions) -> Result<Setup, FrontendError> {
        let language = opts.language.unwrap_or_else(|| language_of(path));
        let scratch =
            Scratch::new().map_err(|e| FrontendError::Tool(format!("cannot create a temporary directory: {e}")))?;
        let dir = scratch.path().to_path_buf();
        let inc = dir.join("include");
        std::fs::create_dir_all(&inc).map_err(|e| FrontendError::Tool(format!("cannot create {}: {e}", inc.display())))?;
        let mut setup = Setup {
            scratch,
            language,
            common: vec![],
            prelude: PathBuf::new(),
            file_name: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "kernel.cu".into()),
            clang: tool("SYNCFIX_CLANG", "clang"),
        };
        setup.write("include/syncfix_annotations.h", ANNOTATIONS_H)?;
        setup.prelude = match language {
            Language::Cuda => {
                setup.write("include/cuda.h", CUDA_H)?;
                setup.write("include/cuda_runtime.h", CUDA_H)?;
                setup.write("include/cooperative_groups.h", COOPERATIVE_GROUPS_H)?;
                setup.write("include/syncfix_cuda_prelude.h", CUDA_PRELUDE)?
            }
            Language::OpenCl => setup.write("include/syncfix_opencl_prelude.h", OPENCL_PRELUDE)?,
        };
        let src_dir = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p }).unwrap_or(Path::new("."));
        let src_dir = src_dir.canonicalize().unwrap_or_else(|_| src_dir.to_path_buf());
        let mut common: Vec<String> = match language {
            Language::Cuda => ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_70", "-nocudainc", "-nocudalib"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            Language::OpenCl => ["-x", "cl", "-cl-std=CL1.2", "-target", "spir64"].iter().map(|s| s.to_string()).collect(),
        };
        common.push("-w".into());
        common.push(format!("-I{}", inc.display()));
        common.push("-include".into());
        common.push(setup.prelude.display().to_string());
        for d in &opts.defines {
            common.push(format!("-D{d}"));
        }
        for i in &opts.include_dirs {
            common.push(format!("-I{}", i.display()));
        }
        common.push(format!("-I{}", src_dir.display()));
        common.extend(opts.clang_args.iter().cloned());
        setup.common = common;
        Ok(setup)
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

    /// clang's LLVM compile of the copy named like the user's file in the scratch directory,
    /// to `out` (the flags of the front end's IR: `-O0 -g -emit-llvm`).
    fn emit_llvm(&self, out: &Path, deadline: Option<Instant>, time: &mut Duration) -> Result<std::process::Output, FrontendError> {
        run(
            Command::new(&self.clang)
                .current_dir(self.dir())
                .args(&self.common)
                .args(["-O0", "-Xclang", "-disable-O0-optnone", "-g", "-emit-llvm", "-c", "-o"])
                .arg(out)
                .arg(&self.file_name),
            "clang",
            deadline,
            time,
        )
    }
}

/// The time of one plain clang-19 compile of `text` to LLVM IR, with the flags and prelude of
/// the front end's own compile but without its statement markers: the benchmark's baseline.
///
/// Errors: clang's diagnostics ([`FrontendError::Clang`]), [`FrontendError::Timeout`].
pub fn clang_baseline(path: &Path, text: &str, opts: &FrontendOptions) -> Result<Duration, FrontendError> {
    let setup = Setup::new(path, opts)?;
    setup.write(&setup.file_name, text)?;
    let mut time = Duration::ZERO;
    let out = setup.emit_llvm(&setup.dir().join("kernel.bc"), opts.deadline, &mut time)?;
    if !out.status.success() {
        return Err(FrontendError::Clang(user_paths(&String::from_utf8_lossy(&out.stderr), &setup.file_name, path)));
    }
    Ok(time)
}

/// Compiles `text` (the contents of the file at `path`) and lowers its kernels.
///
/// Errors: clang's diagnostics ([`FrontendError::Clang`]), unsupported constructs
/// ([`FrontendError::Unsupported`]), no kernel ([`FrontendError::NoKernel`]), the deadline
/// ([`FrontendError::Timeout`]).
pub fn compile(path: &Path, text: &str, opts: &FrontendOptions) -> Result<Compiled, FrontendError> {
    let setup = Setup::new(path, opts)?;
    let (language, dir, file_name, prelude) = (setup.language, setup.dir(), &setup.file_name, &setup.prelude);
    let deadline = opts.deadline;
    let mut tool_time = Duration::ZERO;

    // 1. The AST of the text (which may differ from the file on disk: a patched version),
    //    from a copy with the same file name; clang's messages name the user's path.
    let orig = dir.join("orig");
    std::fs::create_dir_all(&orig).map_err(|e| FrontendError::Tool(format!("cannot create {}: {e}", orig.display())))?;
    setup.write(&format!("orig/{file_name}"), text)?;
    let out = run(
        Command::new(&setup.clang)
            .current_dir(&orig)
            .args(&setup.common)
            .args(["-fsyntax-only", "-Xclang", "-ast-dump=json"])
            .arg(file_name),
        "clang",
        deadline,
        &mut tool_time,
    )?;
    if !out.status.success() {
        return Err(FrontendError::Clang(user_paths(&String::from_utf8_lossy(&out.stderr), file_name, path)));
    }
    let json = String::from_utf8_lossy(&out.stdout);
    let ast = parse_ast(&json, file_name, text).map_err(|e| FrontendError::Tool(format!("reading clang's AST: {e}")))?;

    // 2. The marked source, compiled to LLVM IR.
    let marked = mark_source(text, &ast.stmts);
    setup.write(file_name, &marked.text)?;
    let bc = dir.join("kernel.bc");
    let out = setup.emit_llvm(&bc, deadline, &mut tool_time)?;
    if !out.status.success() {
        return Err(FrontendError::Clang(format!(
            "internal error: syncfix's marked copy of the kernel does not compile:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let ll = dir.join("kernel.ll");
    let opt = tool("SYNCFIX_OPT", "opt");
    let out = run(
        Command::new(&opt).arg("-passes=mem2reg,infer-address-spaces").arg("-S").arg(&bc).arg("-o").arg(&ll),
        "opt",
        deadline,
        &mut tool_time,
    )?;
    if !out.status.success() {
        return Err(FrontendError::Tool(format!("opt failed: {}", String::from_utf8_lossy(&out.stderr))));
    }
    let ir = std::fs::read_to_string(&ll).map_err(|e| FrontendError::Tool(format!("cannot read {}: {e}", ll.display())))?;
    // llvm-ir cannot parse SPIR's `-G1` (default globals address space) in the datalayout.
    let ir = ir.replacen("-G1\"", "\"", 1);
    let module = read_ir(&ir)?;
    let gep_offsets = crate::constgep::offsets(&ir).map_err(|e| FrontendError::Tool(format!("reading LLVM IR: {e}")))?;

    // 3. Each kernel to KIR.
    let mapper = Mapper { dir: dir.display().to_string(), file_name: file_name.clone(), marked: &marked };
    let mut kernels = vec![];
    let candidates: Vec<_> = ast.functions.iter().filter(|f| f.is_kernel && f.in_main && f.body.is_some()).collect();
    if candidates.is_empty() {
        return Err(FrontendError::NoKernel(format!(
            "{}: no kernel found (a `{}` function with a body)",
            path.display(),
            if language == Language::Cuda { "__global__" } else { "__kernel" }
        )));
    }
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
    let kernel_ir_names: Vec<String> = ast
        .functions
        .iter()
        .filter(|f| f.is_kernel)
        .map(|f| match language {
            Language::Cuda => f.mangled_name.clone().unwrap_or_else(|| f.name.clone()),
            Language::OpenCl => f.name.clone(),
        })
        .collect();
    for f in candidates {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(FrontendError::Timeout);
        }
        if let Some(want) = &opts.kernel {
            if &f.name != want {
                continue;
            }
        }
        let ir_name = match language {
            Language::Cuda => f.mangled_name.clone().unwrap_or_else(|| f.name.clone()),
            Language::OpenCl => f.name.clone(),
        };
        let names = Names { params: f.params.clone(), globals: names_globals.clone(), records: ast.records.clone(), kernels: kernel_ir_names.clone() };
        let param_values = opts.kernel_args.iter().rev().find(|(k, _)| *k == f.name).map(|(_, v)| v.clone()).unwrap_or_default();
        let array_sizes = opts.kernel_arrays.iter().rev().find(|(k, _)| *k == f.name).map(|(_, v)| v.clone()).unwrap_or_default();
        let input = LowerInput {
            module: &module,
            kernel_ir_name: &ir_name,
            kernel_name: &f.name,
            language,
            launch: opts.launch,
            names: &names,
            mapper: &mapper,
            main_file: SourceFile::new(path.display().to_string(), Some(text.to_string())),
            known_files: vec![
                SourceFile::new(prelude.display().to_string(), Some(match language {
                    Language::Cuda => CUDA_PRELUDE.to_string(),
                    Language::OpenCl => OPENCL_PRELUDE.to_string(),
                })),
            ],
            stmts: ast.stmts.clone(),
            annotations: opts.annotations,
            invariants_as_candidates: opts.invariants_as_candidates,
            param_values,
            array_sizes,
            gep_offsets: &gep_offsets,
        };
        kernels.push(lower(&input)?);
    }
    if kernels.is_empty() {
        return Err(FrontendError::NoKernel(format!(
            "{}: no kernel named `{}`",
            path.display(),
            opts.kernel.clone().unwrap_or_default()
        )));
    }
    Ok(Compiled { kernels, ast, language, tool_time })
}
