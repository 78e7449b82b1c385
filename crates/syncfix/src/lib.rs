//! The syncfix library: verify and repair the synchronisation of CUDA and OpenCL kernels.
//!
//! This facade is the one entry point of the CLI, the language server and any editor. It
//! speaks plain data — paths, source text, [`Options`], byte offsets, line/column locations,
//! text edits — all of it defined here (no type of the stages' crates appears in a public
//! signature), and it never prints: rendering (GPUVerify-style text, diffs, JSON, SARIF)
//! belongs to the caller.
//!
//! Pipeline (ARCHITECTURE.md, "crates/syncfix — the library facade"; the code is in the module
//! `pipeline`): front end
//! (clang-19 -> LLVM IR -> KIR) -> instrumentation (barrier variables, GPURepair §2.2) ->
//! verifier (two-thread lock-step encoding, Z3; GPUVerify, Betts et al. TOPLAS 2015) -> repair
//! loop (GPURepair, VMCAI 2021, Algorithm 1) -> fix (source edits, re-verified).
//!
//! - [`analyse`]: the verdict and the quick fix in one call (what an editor wants;
//!   [`analyse_with`] hands over the verdict before the fix);
//! - [`verify`], [`repair`], [`audit`]: the commands of the CLI;
//! - [`sites`], [`dump`], [`clang_baseline`]: for tests, `--emit` and the benchmark.
//!
//! Every call takes the file's path (for clang and messages) and its text (the file on disk is
//! not read), and fails with an [`ErrorReport`]: the stage, the exit code and GPUVerify's
//! message.

mod config;
mod confirm;
mod editor;
mod error;
pub mod exit;
mod extent;
mod files;
mod harness;
mod options;
mod pipeline;
pub mod process;
mod report;
mod results;
pub mod sarif;
mod source;
mod stats;
pub mod testsuite;
mod text;
pub mod verdict;

pub use config::{Config, ConfigError};
pub use editor::{analyse, analyse_with, apply_edits, Analysis, QuickFix};
pub use error::{ErrorReport, ErrorStage};
pub use files::{apply_to_file, panic_message, unified_diff, write_atomically, ApplyError};
pub use options::{
    timeout_of_seconds, Abstraction, Annotations, Language, Launch, Options, Progress, RepairOptions, Solver, SourceOptions,
    VerifierOptions, MAX_TIMEOUT_SECONDS,
};
pub use report::{AccessDesc, Check, Finding, KernelReport, Location, LoopIteration, Replay, ThreadDesc, Witness};
pub use results::{
    Applicability, BarrierScope, ChangeInfo, ChangeKind, KernelRepair, Removal, RepairReport, RepairStatus, Site, Status, VerifierCallInfo,
};
pub use source::{decode_source, encode_source, Encoding, SourceError};
pub use stats::{LoopTime, QueryTime, Stats};

use error::StageError;
use options::Stages;
use pipeline::Mode;
use std::path::Path;
use std::time::{Duration, Instant};

/// The caller's result of a pipeline call: a cancelled call fails with
/// [`ErrorStage::Cancelled`] whatever the stage made of it (a verifier stopped by the flag
/// reports a timeout), and a stage's error becomes an [`ErrorReport`] on `path` and `text`.
fn finish<T>(r: Result<T, StageError>, opts: &Stages, path: &Path, text: &str) -> Result<T, ErrorReport> {
    if opts.cancelled() {
        return Err(ErrorReport::cancelled());
    }
    r.map_err(|e| e.report(path, text))
}

/// Initialises what every verification needs once per process (Z3's global state, which its
/// first context builds: about 15 ms and 27 MB), for a process that forks the processes that
/// verify (`syncfix suite`'s fork server). Starts no thread.
pub fn warm_up() {
    let ctx = z3::Context::new(&z3::Config::new());
    let solver = z3::Solver::new_for_logic(&ctx, "QF_AUFBV").unwrap_or_else(|| z3::Solver::new(&ctx));
    let _ = solver.check();
}

/// `syncfix verify`: GPUVerify's verdict for every kernel of a file, in the file's order.
///
/// Past [`Options::timeout`] a kernel's status is [`Status::Timeout`] (or, when the front end
/// has not finished, the call fails with [`ErrorStage::Timeout`]).
///
/// Errors: clang's ([`ErrorStage::Clang`]), the front end's ([`ErrorStage::FrontEnd`]: an
/// unsupported construct, named with its line), a bad annotation ([`ErrorStage::VcGen`]),
/// the time limit, a cancellation, a bug ([`ErrorStage::Internal`]).
pub fn verify(path: &Path, text: &str, opts: &Options) -> Result<(Vec<KernelReport>, Stats), ErrorReport> {
    let st = opts.stages(Instant::now());
    finish(pipeline::verify(path, text, &st), &st, path, text)
}

/// `syncfix repair`: for each kernel of the file, a minimal-weight set of barriers to insert
/// and remove (GPURepair, VMCAI 2021, §2.3-2.4), as source edits re-verified on the patched
/// text before they are returned. A kernel that verifies as written is left as it is
/// ([`RepairStatus::NoChange`]): which of its barriers it does not need is [`audit`]'s
/// question. One kernel that cannot be repaired does not drop the others' changes
/// ([`RepairReport::kernels`]).
///
/// Errors: as [`verify`]; every other outcome is a [`RepairStatus`].
pub fn repair(path: &Path, text: &str, opts: &Options) -> Result<RepairReport, ErrorReport> {
    let st = opts.stages(Instant::now());
    finish(pipeline::repair_file(path, text, &st, Mode::Repair), &st, path, text)
}

/// `syncfix audit`: on each kernel that verifies as written, the minimum-weight subset of its
/// existing block and grid barriers that keeps it verified, as source edits removing the
/// others (re-verified on the patched text); [`RepairStatus::NoChange`] when every barrier is
/// needed, [`RepairStatus::NotVerified`] (with the findings) for a kernel that does not
/// verify. The repair loop of [`repair`] with the user's barriers as the only sites
/// (GPURepair's inspection, §2.2). Tile barriers (`__syncwarp`, cooperative groups' tiles)
/// are never removed.
///
/// Errors: as [`verify`].
pub fn audit(path: &Path, text: &str, opts: &Options) -> Result<RepairReport, ErrorReport> {
    let st = opts.stages(Instant::now());
    finish(pipeline::repair_file(path, text, &st, Mode::Audit), &st, path, text)
}

/// The candidate barrier sites of every kernel of a file (GPURepair's instrumentation, §2.2).
///
/// Errors: as [`verify`].
pub fn sites(path: &Path, text: &str, opts: &Options) -> Result<Vec<Site>, ErrorReport> {
    let st = opts.stages(Instant::now());
    finish(pipeline::sites(path, text, &st), &st, path, text)
}

/// The kernels of a file in syncfix's intermediate form (KIR), as text: `--emit=kir`, or with
/// `instrumented` the kernels with their barrier variables (`--emit=instrumented`).
///
/// Errors: as [`verify`].
pub fn dump(path: &Path, text: &str, opts: &Options, instrumented: bool) -> Result<String, ErrorReport> {
    let st = opts.stages(Instant::now());
    finish(pipeline::dump(path, text, &st, instrumented, false), &st, path, text)
}

/// [`dump`] of the kernels with the barrier variables that [`audit`] checks: the user's own
/// barriers only, each one inspected (`syncfix audit --emit=instrumented`).
///
/// Errors: as [`verify`].
pub fn dump_audit(path: &Path, text: &str, opts: &Options) -> Result<String, ErrorReport> {
    let st = opts.stages(Instant::now());
    finish(pipeline::dump(path, text, &st, true, true), &st, path, text)
}

/// The CUDA toolkit as clang finds one: `explicit` (`--cuda-path=DIR`), else `$CUDA_PATH`,
/// else `/usr/local/cuda` when it holds `include/cuda_runtime.h`; `Ok(None)` when none is
/// asked for or installed (syncfix's own headers then stand in). For
/// [`SourceOptions::cuda_toolkit`].
///
/// Errors: `explicit` or `$CUDA_PATH` is not a toolkit (the message names it).
pub fn find_cuda_toolkit(explicit: Option<&Path>) -> Result<Option<std::path::PathBuf>, String> {
    syncfix_frontend::driver::find_cuda_toolkit(explicit)
}

/// The benchmark's baseline: the time of one plain clang-19 compile of `text` to LLVM IR with
/// the front end's flags and prelude.
///
/// Errors: clang's.
pub fn clang_baseline(path: &Path, text: &str, opts: &Options) -> Result<Duration, ErrorReport> {
    let st = opts.stages(Instant::now());
    finish(pipeline::clang_baseline(path, text, &st), &st, path, text)
}
