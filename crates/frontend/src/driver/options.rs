//! The front end's options and results (ARCHITECTURE.md, "crates/frontend": `driver`):
//! [`FrontendOptions`], [`FrontendError`] (mapped to GPUVerify's exit codes by the caller),
//! [`Compiled`], and the language of a file.

use crate::ast::AstInfo;
use crate::lower::{LowerError, Stage};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use syncfix_kir::{Kernel, Language, Launch, Loc};
pub use syncfix_options::SourceOptions;

/// Options of the front end.
#[derive(Clone, Debug)]
pub struct FrontendOptions {
    /// The source language; `None` decides by the file extension (`.cl` is OpenCL).
    pub language: Option<Language>,
    pub launch: Launch,
    /// How the source is read: definitions, include directories, clang's arguments, the
    /// kernel, annotations, `--kernel-args`, `--no-inline`, launches from the host code, the
    /// CUDA toolkit (the facade's options as they are).
    pub source: SourceOptions,
    /// `--timeout`: clang and opt are killed at this instant, and the front end then fails
    /// with [`FrontendError::Timeout`].
    pub deadline: Option<Instant>,
}

/// The CUDA toolkit as clang finds one: `explicit` (`--cuda-path=DIR`), else `$CUDA_PATH`,
/// else `/usr/local/cuda`; a folder is a toolkit when it holds `include/cuda_runtime.h`.
/// Returns `Ok(None)` when nothing was asked for and none is installed.
///
/// Errors: `explicit` (or `$CUDA_PATH`) is not a toolkit, with the path and what it lacks.
pub fn find_cuda_toolkit(explicit: Option<&Path>) -> Result<Option<PathBuf>, String> {
    let is_toolkit = |d: &Path| d.join("include").join("cuda_runtime.h").is_file();
    if let Some(d) = explicit {
        return if is_toolkit(d) {
            Ok(Some(d.canonicalize().unwrap_or_else(|_| d.to_path_buf())))
        } else {
            Err(format!("--cuda-path={}: not a CUDA toolkit (no include/cuda_runtime.h there)", d.display()))
        };
    }
    if let Some(d) = std::env::var_os("CUDA_PATH").filter(|d| !d.is_empty()) {
        let d = PathBuf::from(d);
        return if is_toolkit(&d) {
            Ok(Some(d.canonicalize().unwrap_or(d)))
        } else {
            Err(format!("CUDA_PATH={}: not a CUDA toolkit (no include/cuda_runtime.h there)", d.display()))
        };
    }
    let d = Path::new("/usr/local/cuda");
    Ok(is_toolkit(d).then(|| d.canonicalize().unwrap_or_else(|_| d.to_path_buf())))
}

impl FrontendOptions {
    /// Defaults for a launch: language by extension, every annotation honoured.
    pub fn new(launch: Launch) -> FrontendOptions {
        FrontendOptions { language: None, launch, source: SourceOptions::default(), deadline: None }
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
    Annotation { what: String, loc: Option<Loc>, stage: Stage },
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
    /// An option that does not fit the kernel (`--kernel-args` with more values than the
    /// kernel has scalar parameters): a command-line error (exit 1).
    #[error("{0}")]
    Usage(String),
    /// [`FrontendOptions::deadline`] passed (exit 7).
    #[error("the time limit was reached in the front end")]
    Timeout,
}

impl From<LowerError> for FrontendError {
    fn from(e: LowerError) -> Self {
        match e {
            LowerError::Unsupported { what, loc } => FrontendError::Unsupported { what, loc },
            LowerError::Annotation { what, loc, stage } => FrontendError::Annotation { what, loc, stage },
            e @ LowerError::IllFormed { .. } => FrontendError::Internal(e.to_string()),
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
    /// For each kernel of `kernels`, the front end's notes, one sentence each, for
    /// `syncfix: note:` lines: what it left out of a whole program to reach its device code
    /// (host bodies that do not compile, headers not found) and where the kernel's launch
    /// came from when the host code gave it.
    pub kernel_notes: Vec<Vec<String>>,
    /// Kernels that could not be lowered ([`compile_each`](super::compile_each) only): the
    /// kernel's name and why.
    pub failed: Vec<(String, FrontendError)>,
}

/// The language of a file by extension: `.cl` is OpenCL, anything else CUDA.
pub fn language_of(path: &Path) -> Language {
    match path.extension().and_then(|e| e.to_str()) {
        Some("cl") => Language::OpenCl,
        _ => Language::Cuda,
    }
}
