//! The options that a stage and the library facade both take, declared once (issue 26): how
//! the source is read ([`SourceOptions`], [`Annotations`]) and the repair's knobs
//! ([`RepairOptions`], [`Solver`]: the weights and kinds of barrier sites the instrumenter
//! offers, and how the repair loop searches).
//!
//! The facade (`syncfix`) shows no stage crate's type in its API (`scripts/check-facade`), so
//! options the front end needs as they are would otherwise be declared twice, once per side.
//! This crate holds plain data only (serde for `--config` files and JSON); the facade
//! re-exports it, the front end and the instrumenter read it. Defaults are those of GPUVerify's command line.

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

/// The repair's solver strategy (GPURepair, VMCAI 2021, §2.4).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Solver {
    /// `--mhs`: a weighted greedy minimal hitting set, MaxSAT when it violates a clause.
    #[default]
    Mhs,
    /// `--maxsat`: the weighted partial MaxSAT optimum every iteration.
    MaxSat,
}

/// The repair's knobs (GPURepair's options, and syncfix's warp barriers). A barrier's weight
/// is `sw * loop_depth_weight^depth + grid_barrier_weight * [grid]`, `sw` the block or warp
/// barrier weight (GPURepair, VMCAI 2021, §2.3).
///
/// Declared once: `configs/default.toml`'s `[repair]` section is read into this struct (the
/// facade's `Config::repair`; every key there but `disable_grid` and `disable_inspect`, which
/// are flags of a run), the CLI's flags set its fields, and the instrumenter reads its sites'
/// weights and kinds from it (`InstrumentConfig::options`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RepairOptions {
    /// `--mhs` or `--maxsat`: how the next barrier assignment is chosen.
    pub solver: Solver,
    /// `--loop-depth-weight` (`lw`).
    pub loop_depth_weight: u64,
    /// `--grid-barrier-weight` (`gw`).
    pub grid_barrier_weight: u64,
    /// `--block-barrier-weight`.
    pub block_barrier_weight: u64,
    /// `--warp-barrier-weight`.
    pub warp_barrier_weight: u64,
    /// `--async-wait-weight`: added to a barrier that first waits for OpenCL asynchronous
    /// copies (`wait_group_events(...); barrier(...);`).
    pub async_wait_weight: u64,
    /// Offer `__syncwarp()` in CUDA blocks of more than one warp (`--no-warp-barriers`).
    pub warp_barriers: bool,
    /// `--warp-size`: threads per warp.
    pub warp_size: u32,
    /// `--disable-grid`: no grid barriers.
    pub disable_grid: bool,
    /// `--disable-inspect`: the kernel's own barriers stay, unjudged.
    pub disable_inspect: bool,
    /// Give up (`unknown`) after this many verifier calls.
    pub max_verifier_calls: u32,
    /// After this many verifier calls without a repair, or at the first clause that is not
    /// exact, the search keeps the kernel's own barriers on and looks only for the barriers to
    /// add, then tries removing each barrier it added: on kernels whose loops make every
    /// clause coarse, the search over all barriers at once revisits one cheap placement after
    /// another. The answer is then minimal (no barrier can be removed) but not proven of
    /// minimum weight.
    pub global_search_calls: u32,
}

/// `configs/default.toml`'s values, by way of the constants built from it
/// (the `defaults` of the KIR crate; not by reading the file, whose keys this `Default` fills when
/// they are missing).
impl Default for RepairOptions {
    fn default() -> Self {
        use syncfix_kir::defaults as d;
        RepairOptions {
            solver: if d::REPAIR_SOLVER == "maxsat" { Solver::MaxSat } else { Solver::Mhs },
            loop_depth_weight: d::REPAIR_LOOP_DEPTH_WEIGHT as u64,
            grid_barrier_weight: d::REPAIR_GRID_BARRIER_WEIGHT as u64,
            block_barrier_weight: d::REPAIR_BLOCK_BARRIER_WEIGHT as u64,
            warp_barrier_weight: d::REPAIR_WARP_BARRIER_WEIGHT as u64,
            async_wait_weight: d::REPAIR_ASYNC_WAIT_WEIGHT as u64,
            warp_barriers: d::REPAIR_WARP_BARRIERS,
            warp_size: d::REPAIR_WARP_SIZE as u32,
            disable_grid: false,
            disable_inspect: false,
            max_verifier_calls: d::REPAIR_MAX_VERIFIER_CALLS as u32,
            global_search_calls: d::REPAIR_GLOBAL_SEARCH_CALLS as u32,
        }
    }
}
