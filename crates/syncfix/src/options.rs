//! What a caller tells syncfix besides the file: plain data (it derives `serde`'s traits, so an
//! editor can keep it in its settings), turned into each stage's own options inside the
//! library ([`Options::stages`]).
//!
//! Every default comes from `configs/default.toml` ([`Config`]); the flags of the CLI and the
//! keys of a `--config` file override them.

use crate::Config;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use syncfix_options::{Annotations, RepairOptions, Solver, SourceOptions};

/// The kernel language.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// CUDA (`.cu`, `.cuh`): `__syncthreads()`, cooperative groups.
    Cuda,
    /// OpenCL C (`.cl`): `barrier(...)` with its fence flags.
    #[serde(rename = "opencl")]
    OpenCl,
}

impl Language {
    /// The language a file's extension names: `.cl` OpenCL, `.cu`/`.cuh` CUDA, else `None`.
    pub fn of_path(p: &std::path::Path) -> Option<Language> {
        match p.extension().and_then(|e| e.to_str()) {
            Some("cl") => Some(Language::OpenCl),
            Some("cu" | "cuh") => Some(Language::Cuda),
            _ => None,
        }
    }
}

/// A launch configuration (GPUVerify's `--blockDim`/`--local_size`, `--gridDim`/`--num_groups`,
/// `--global_size`, `--global_offset`). Sizes are per dimension x, y, z; an absent dimension is
/// 1, and 0 is a symbolic size (GPUVerify's `*`: any positive size, so a verdict holds for
/// every launch).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    /// Threads per block (work-group).
    pub block_dim: [u32; 3],
    /// Blocks (work-groups) per grid.
    pub grid_dim: [u32; 3],
    /// OpenCL's global offset, added to global ids (threads).
    #[serde(default)]
    pub global_offset: [u32; 3],
    /// Threads per dimension of the whole grid when fixed while its factors are symbolic
    /// (`--global_size` with a symbolic `--local_size`); 0 where not fixed.
    #[serde(default)]
    pub global_dim: [u32; 3],
}

impl Launch {
    /// `block_dim` threads per block, `grid_dim` blocks, no offset.
    pub fn new(block_dim: [u32; 3], grid_dim: [u32; 3]) -> Launch {
        Launch { block_dim, grid_dim, global_offset: [0; 3], global_dim: [0; 3] }
    }

    pub(crate) fn stage(&self) -> syncfix_kir::Launch {
        syncfix_kir::Launch {
            block_dim: self.block_dim,
            grid_dim: self.grid_dim,
            global_offset: self.global_offset,
            global_dim: self.global_dim,
        }
    }
}

/// How shared arrays' values are abstracted (GPUVerify's abstractions, Betts et al., TOPLAS
/// 2015 §4.3; ARCHITECTURE.md, "crates/verify").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Abstraction {
    /// Decided per array (the default).
    #[default]
    PerArray,
    /// `--equality-abstraction`: both threads see equal values.
    Equality,
    /// `--adversarial-abstraction`: every read returns any value.
    Adversarial,
}

/// The verifier's knobs (GPUVerify's flags and syncfix's limits).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VerifierOptions {
    pub abstraction: Abstraction,
    /// `--only-intra-group`: inter-group races are not checked.
    pub only_intra_group: bool,
    /// GPUVerify's benign-race tolerance (`--no-benign-tolerance` turns it off).
    pub benign_tolerance: bool,
    /// `--loop-unwind=N` / `--findbugs` (2): at most N iterations per loop; the result is then
    /// a bug or "no error up to N", never a proof.
    pub loop_unwind: Option<u32>,
    /// Check data races (`--only-divergence`, `--only-log` turn this off).
    pub race_checks: bool,
    /// GPUVerify's barrier-invariant access check (`--no-barrier-access-checks`).
    pub barrier_access_checks: bool,
    /// `--asymmetric-asserts`: assertions are checked for the first thread only.
    pub asymmetric_asserts: bool,
    /// `--warp-sync=N`: threads of one warp of N threads run in lock-step.
    pub warp_sync: Option<u32>,
    /// `--check-array-bounds`.
    pub array_bounds: bool,
    /// `--vcgen-opt=/checkArrays:A,B`: races on these arrays only (source names).
    pub check_arrays: Option<Vec<String>>,
    /// Infer loop invariants (Houdini); `--no-infer` turns it off.
    pub infer: bool,
    /// Most iterations of a loop unrolled before it is cut and proved with invariants.
    pub max_unwind: u32,
    /// Most instructions one loop's unrolling may execute.
    pub max_unroll_instructions: u64,
    /// Most unwinding checks (solver calls) one loop's unrolling may make.
    pub max_unwind_checks: u32,
    /// Most instructions of the whole encoding before the verdict is `unknown`.
    pub max_instructions: u64,
    /// Most groups of Houdini's checks that keep their solver (a Z3 context, 17–40 MB each)
    /// between rounds (`houdini_solvers` of the configuration).
    pub houdini_solvers: usize,
    /// Milliseconds a Houdini round's disjunction is solved alone before it is solved again
    /// beside its checks one at a time (`houdini_race_after_ms` of the configuration).
    pub houdini_race_after_ms: u64,
    /// `--solver-threads=N`: how many threads solve one check's independent queries at once
    /// (0: one per core). The verdict and trace do not depend on it.
    pub solver_threads: usize,
    /// `--confirmed-only`: report only the races and divergences a concrete replay confirmed;
    /// a kernel whose only finding is possible (not confirmed) is `unknown`, with the reason.
    pub confirmed_only: bool,
    /// `syncfix replay --emit-harness`: each replayed finding carries a CUDA host program that
    /// launches its kernel with the replay's inputs ([`crate::Replay::harness`]).
    pub emit_harness: bool,
}

impl Default for VerifierOptions {
    fn default() -> Self {
        VerifierOptions::from_config(&Config::builtin())
    }
}

impl VerifierOptions {
    /// GPUVerify's defaults, with the limits of `config`.
    pub fn from_config(config: &Config) -> VerifierOptions {
        let v = &config.verifier;
        VerifierOptions {
            abstraction: Abstraction::PerArray,
            only_intra_group: false,
            benign_tolerance: true,
            loop_unwind: None,
            race_checks: true,
            barrier_access_checks: true,
            asymmetric_asserts: false,
            warp_sync: None,
            array_bounds: false,
            check_arrays: None,
            infer: true,
            max_unwind: v.max_unwind,
            max_unroll_instructions: v.max_unroll_instructions,
            max_unwind_checks: v.max_unwind_checks,
            max_instructions: v.max_instructions,
            houdini_solvers: v.houdini_solvers,
            houdini_race_after_ms: v.houdini_race_after_ms,
            solver_threads: 0,
            confirmed_only: false,
            emit_harness: false,
        }
    }
}

/// Everything syncfix needs besides the file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Options {
    /// `None`: by the file's extension (`.cl` OpenCL, otherwise CUDA).
    pub language: Option<Language>,
    pub launch: Launch,
    #[serde(default)]
    pub source: SourceOptions,
    #[serde(default)]
    pub verifier: VerifierOptions,
    #[serde(default)]
    pub repair: RepairOptions,
    /// `--timeout`: one call (front end, verification, repair and the re-verification of its
    /// patch) ends within this time, counted from the call's start; past it the result is a
    /// timeout. `None`: no limit.
    #[serde(default)]
    pub timeout: Option<Duration>,
    /// Set by the caller (an editor whose file changed) to end a call early: it is checked
    /// between stages, between the repair's iterations and before each solver call, and the
    /// call then fails with [`crate::ErrorStage::Cancelled`].
    #[serde(skip)]
    pub cancel: Option<Arc<AtomicBool>>,
    /// Set by the caller to read what the call has established while it still runs (the
    /// front end's notes): a caller whose own watchdog ends a call at its time limit prints
    /// them instead of losing them.
    #[serde(skip)]
    pub progress: Option<Arc<Progress>>,
}

/// What a running call has established so far, shared with its caller
/// ([`Options::progress`]): the front end's notes (a launch read from the host code, host
/// bodies left out, a header stubbed), published as soon as the front end ends, each once, in
/// their order; for `verify`, the file's kernels and each kernel's report and times as soon
/// as its verdict is in (before the replay of its finding, which is marked possible: no time
/// was left to replay it), so that a caller whose watchdog
/// ends the call at its limit prints the verdicts already reached instead of losing them.
#[derive(Debug, Default)]
pub struct Progress {
    notes: std::sync::Mutex<Vec<String>>,
    /// The kernels the front end compiled, in the file's order, each with its report once
    /// its verdict is in.
    kernels: std::sync::Mutex<Vec<(String, Option<crate::KernelReport>)>>,
    timings: std::sync::Mutex<crate::Stats>,
}

impl Progress {
    /// The report of each kernel the front end compiled, in the file's order; a kernel whose
    /// verdict is not in yet is reported as [`crate::Status::Timeout`]. Empty before the front
    /// end has ended.
    pub fn reports(&self) -> Vec<crate::KernelReport> {
        let kernels = self.kernels.lock().unwrap_or_else(|e| e.into_inner());
        kernels.iter().map(|(name, r)| r.clone().unwrap_or_else(|| crate::KernelReport::bare(name, crate::Status::Timeout))).collect()
    }

    /// The times and counters of the kernels whose verdict is in, and the front end's.
    pub fn timings(&self) -> crate::Stats {
        self.timings.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn set_kernels(&self, names: impl IntoIterator<Item = String>, front_end: &crate::Stats) {
        *self.kernels.lock().unwrap_or_else(|e| e.into_inner()) = names.into_iter().map(|n| (n, None)).collect();
        self.timings.lock().unwrap_or_else(|e| e.into_inner()).add(front_end);
    }

    /// Publishes the report of the `i`th kernel and adds its times.
    pub(crate) fn add_report(&self, i: usize, report: &crate::KernelReport, timings: &crate::Stats) {
        if let Some(slot) = self.kernels.lock().unwrap_or_else(|e| e.into_inner()).get_mut(i) {
            // A caller reads this report only when its watchdog ended the call before the
            // replays: its race or divergence is then marked possible, for that reason.
            let mut report = report.clone();
            for f in &mut report.findings {
                crate::confirm::not_replayed(f, "no time was left before the time limit to replay it");
            }
            slot.1 = Some(report);
        }
        self.timings.lock().unwrap_or_else(|e| e.into_inner()).add(timings);
    }

    /// The notes published so far.
    pub fn notes(&self) -> Vec<String> {
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Publishes `notes`, each that is not yet there.
    pub(crate) fn add_notes<'a>(&self, notes: impl IntoIterator<Item = &'a String>) {
        let mut all = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        for n in notes {
            if !all.contains(n) {
                all.push(n.clone());
            }
        }
    }
}

impl Options {
    /// The defaults of `configs/default.toml` (GPUVerify's and GPURepair's) for a launch; the
    /// language follows the file's extension.
    pub fn new(launch: Launch) -> Options {
        Options::from_config(launch, &Config::builtin())
    }

    /// The defaults of `config` for a launch.
    pub fn from_config(launch: Launch, config: &Config) -> Options {
        let t = config.verifier.timeout_seconds;
        Options {
            language: None,
            launch,
            source: SourceOptions::default(),
            verifier: VerifierOptions::from_config(config),
            repair: config.repair.clone(),
            timeout: timeout_of_seconds(t),
            cancel: None,
            progress: None,
        }
    }

    /// Whether [`Options::cancel`] is set.
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// The stages' options for a call that started at `start`.
    pub(crate) fn stages(&self, start: Instant) -> Stages {
        let deadline = self.timeout.map(|t| start + t);
        let s = &self.source;
        let v = &self.verifier;
        let r = &self.repair;
        Stages {
            frontend: syncfix_frontend::driver::FrontendOptions {
                language: self.language.map(Language::stage),
                launch: self.launch.stage(),
                source: s.clone(),
                deadline,
            },
            verify: syncfix_verify::VerifyOptions {
                abstraction: match v.abstraction {
                    Abstraction::PerArray => syncfix_verify::ForceAbstraction::PerArray,
                    Abstraction::Equality => syncfix_verify::ForceAbstraction::Equality,
                    Abstraction::Adversarial => syncfix_verify::ForceAbstraction::Adversarial,
                },
                only_intra_group: v.only_intra_group,
                benign_tolerance: v.benign_tolerance,
                loop_unwind: v.loop_unwind,
                limits: syncfix_verify::Limits {
                    max_unwind: v.max_unwind,
                    max_unroll_instructions: v.max_unroll_instructions,
                    max_unwind_checks: v.max_unwind_checks,
                    max_instructions: v.max_instructions,
                    houdini_solvers: v.houdini_solvers.max(1),
                    houdini_race_after: std::time::Duration::from_millis(v.houdini_race_after_ms),
                },
                timeout: None,
                deadline,
                cancel: self.cancel.clone(),
                race_checks: v.race_checks,
                asymmetric_asserts: v.asymmetric_asserts,
                warp_size: v.warp_sync,
                array_bounds: v.array_bounds,
                check_arrays: v.check_arrays.clone(),
                infer: v.infer,
                barrier_access_checks: v.barrier_access_checks,
                seeds: None,
                active_sites: None,
                solver_threads: v.solver_threads,
            },
            instrument: syncfix_instrument::InstrumentConfig {
                new_sites: true,
                options: RepairOptions {
                    // Without inter-group races to order, a grid barrier has nothing to do
                    // (GPURepair: no grid barriers under --only-intra-group).
                    disable_grid: r.disable_grid || v.only_intra_group,
                    ..r.clone()
                },
            },
            repair: syncfix_repair::repair::RepairRun { options: r.clone(), deadline, cancel: self.cancel.clone() },
            cancel: self.cancel.clone(),
            progress: self.progress.clone(),
            confirmed_only: v.confirmed_only,
            emit_harness: v.emit_harness,
        }
    }
}

impl Language {
    pub(crate) fn stage(self) -> syncfix_kir::Language {
        match self {
            Language::Cuda => syncfix_kir::Language::Cuda,
            Language::OpenCl => syncfix_kir::Language::OpenCl,
        }
    }
}

/// The options of each stage for one call (with its deadline).
#[derive(Clone, Debug)]
pub(crate) struct Stages {
    pub frontend: syncfix_frontend::driver::FrontendOptions,
    pub verify: syncfix_verify::VerifyOptions,
    pub instrument: syncfix_instrument::InstrumentConfig,
    pub repair: syncfix_repair::repair::RepairRun,
    pub cancel: Option<Arc<AtomicBool>>,
    pub progress: Option<Arc<Progress>>,
    /// `--confirmed-only` ([`VerifierOptions::confirmed_only`]).
    pub confirmed_only: bool,
    /// [`VerifierOptions::emit_harness`].
    pub emit_harness: bool,
}

impl Stages {
    /// Publishes the front end's notes to the caller's [`Progress`], if any.
    pub fn publish_notes<'a>(&self, notes: impl IntoIterator<Item = &'a String>) {
        if let Some(p) = &self.progress {
            p.add_notes(notes);
        }
    }

    pub(crate) fn publish_kernels(&self, names: impl IntoIterator<Item = String>, front_end: &crate::Stats) {
        if let Some(p) = &self.progress {
            p.set_kernels(names, front_end);
        }
    }

    pub(crate) fn publish_report(&self, i: usize, report: &crate::KernelReport, timings: &crate::Stats) {
        if let Some(p) = &self.progress {
            p.add_report(i, report, timings);
        }
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Whether the call's time limit has passed.
    pub(crate) fn deadline_passed(&self) -> bool {
        self.verify.deadline.is_some_and(|d| std::time::Instant::now() >= d)
    }
}

/// The longest time limit kept as given (about 100 years); a longer `--timeout` is this one
/// (an instant that far ahead would not be representable).
pub const MAX_TIMEOUT_SECONDS: u64 = 100 * 365 * 24 * 3600;

/// The time limit of `--timeout=seconds`: `None` for 0 (no limit), else at most
/// [`MAX_TIMEOUT_SECONDS`].
pub fn timeout_of_seconds(seconds: u64) -> Option<Duration> {
    (seconds > 0).then(|| Duration::from_secs(seconds.min(MAX_TIMEOUT_SECONDS)))
}
