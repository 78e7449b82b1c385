//! The options that a stage and the library facade both take, declared once (issue 26): how
//! the source is read ([`SourceOptions`], [`Annotations`]).
//!
//! The facade (`syncfix`) shows no stage crate's type in its API (`scripts/check-facade`), so
//! options the front end needs as they are would otherwise be declared twice, once per side.
//! This crate holds plain data only (serde for `--config` files and JSON); the facade
//! re-exports it, the front end reads it. Defaults are those of GPUVerify's command line.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Which source-level annotations count (GPUVerify's `--no-annotations`, `--only-requires`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Annotations {
    /// Every `__requires`, `__ensures`, `__invariant`, `__assert`...
    #[default]
    All,
    /// Only `__requires` (`--only-requires`).
    OnlyRequires,
    /// None (`--no-annotations`).
    Ignore,
}

/// How the source is read: the preprocessor, clang, which kernels and annotations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SourceOptions {
    /// `-D` definitions (`NAME` or `NAME=VALUE`).
    pub defines: Vec<String>,
    /// `-I` include directories.
    pub include_dirs: Vec<PathBuf>,
    /// Extra arguments for clang (`--clang-opt`).
    pub clang_args: Vec<String>,
    /// `--kernel=NAME`: only this kernel (a name, a template instantiation, or its symbol).
    pub kernel: Option<String>,
    pub annotations: Annotations,
    /// `--invariants-as-candidates`: the user's invariants are only candidates (unchecked).
    pub invariants_as_candidates: bool,
    /// `--no-inline`: besides the kernels, each device function of the main file that has a
    /// contract (`__requires`, `__ensures`) is checked on its own against it, as GPUVerify
    /// checks procedures modularly. Its callers still inline it.
    pub modular: bool,
    /// `--kernel-args=K,v1,...`: kernel K's scalar parameters (`None`: `*`, unconstrained).
    pub kernel_args: Vec<(String, Vec<Option<u128>>)>,
    /// `--kernel-arrays=K,s1,...`: sizes in bytes of kernel K's pointer parameters.
    pub kernel_arrays: Vec<(String, Vec<Option<u64>>)>,
    /// No launch size was given: each kernel is verified with the configurations the host
    /// code launches it with (`k<<<grid, block>>>`), where their sizes are compile-time
    /// constants (each distinct configuration one kernel); a size that is not constant, or a
    /// kernel nothing launches, keeps the launch of the options. Each launch taken is said in
    /// the kernel's notes.
    pub launch_from_host: bool,
    /// The CUDA toolkit whose headers CUDA code is compiled with (`--cuda-path`, or found as
    /// clang finds one: `$CUDA_PATH`, `/usr/local/cuda`); `None`: syncfix's own stand-ins
    /// for its headers.
    pub cuda_toolkit: Option<PathBuf>,
}
