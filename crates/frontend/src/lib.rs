//! The front end of syncfix (ARCHITECTURE.md, "crates/frontend"): from a CUDA or OpenCL source file to KIR.
//!
//! - [`ast`] reads clang's JSON AST of the user's file: the statement table (the source
//!   anchors of barrier sites, with exact byte ranges), functions and variables.
//! - [`marks`] writes the *marked* copy of the source, with a marker call before every
//!   statement, so that the LLVM IR shows where each statement begins.
//! - [`driver`] runs clang-19 and LLVM's passes ([`passes`]) on the marked source with our force-included prelude
//!   (`prelude/`) and reads the IR with the `llvm-ir` crate.
//! - [`lower`] turns each kernel's IR into KIR, inlining every `__device__` call.
//! - [`llvm`] reads names of `llvm-ir`'s values and calls, for the modules above.
//! - [`names`] names kernels as users write them (`reduce0<int>`), demangling symbols.
//! - [`prelude`] holds the prelude headers and keeps their precompiled header between runs
//!   (a cache folder, `SYNCFIX_CACHE_DIR`).
//! - [`process`] tracks clang's and opt's processes and the temporary directories, so that
//!   an interrupted run kills and removes them.

pub mod ast;
pub mod constgep;
pub mod driver;
pub mod llvm;
pub mod lower;
pub mod marks;
pub mod names;
pub mod passes;
pub mod prelude;
pub mod process;
