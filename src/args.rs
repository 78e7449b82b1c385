//! The command line: GPUVerify's flags (shared by `verify`, `repair`, `audit`) and each
//! command's own.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// How `verify`, `repair` and `audit` print their result.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// GPUVerify's messages (stderr) and summary lines (stdout).
    #[default]
    Text,
    /// One JSON object on stdout (schema `syncfix.verdict/1`, see the README); the text goes
    /// to stderr.
    Json,
    /// A SARIF 2.1.0 log on stdout (code scanning, editors); the text goes to stderr.
    Sarif,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The kernel in KIR, after the front end.
    Kir,
    /// The kernel with candidate barrier sites and their barrier variables.
    Instrumented,
}

/// GPUVerify's flags.
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// The kernel file (.cu for CUDA, .cl for OpenCL); `-` reads the kernel from standard
    /// input (named by --stdin-filename).
    pub file: PathBuf,
    /// With `-` as the file: the name of the text read from standard input, for messages,
    /// diffs, relative includes and the language (by extension, unless --cuda or --opencl);
    /// default `stdin.cu` (`stdin.cl` with --opencl) in the current directory.
    #[arg(long = "stdin-filename", value_name = "NAME", help_heading = "Options of syncfix's own")]
    pub stdin_filename: Option<PathBuf>,
    /// The kernel text read from standard input (`-`), set by `main`.
    #[arg(skip)]
    pub stdin_text: Option<Vec<u8>>,
    /// Threads per block, `x`, `[x,y]` or `[x,y,z]` (CUDA; alias of --local_size).
    #[arg(
        long = "blockDim",
        alias = "local_size",
        value_name = "DIMS",
        help_heading = "Launch sizes (GPUVerify's CUDA- and OpenCL-specific options)"
    )]
    pub block_dim: Option<String>,
    /// Blocks per grid (CUDA; alias of --num_groups).
    #[arg(
        long = "gridDim",
        alias = "num_groups",
        value_name = "DIMS",
        help_heading = "Launch sizes (GPUVerify's CUDA- and OpenCL-specific options)"
    )]
    pub grid_dim: Option<String>,
    /// Total work-items (OpenCL): a multiple of --local_size.
    #[arg(long = "global_size", value_name = "DIMS", help_heading = "Launch sizes (GPUVerify's CUDA- and OpenCL-specific options)")]
    pub global_size: Option<String>,
    /// Define a preprocessor macro.
    #[arg(short = 'D', value_name = "NAME[=VALUE]", help_heading = "General options (GPUVerify's)")]
    pub defines: Vec<String>,
    /// Add an include directory.
    #[arg(short = 'I', value_name = "DIR", help_heading = "General options (GPUVerify's)")]
    pub include: Vec<PathBuf>,
    /// Pass an option to clang.
    #[arg(long = "clang-opt", value_name = "OPT", help_heading = "Options of syncfix's own")]
    pub clang_opt: Vec<String>,
    /// The CUDA toolkit whose headers CUDA code uses (as clang's --cuda-path); default:
    /// $CUDA_PATH, else /usr/local/cuda when it exists, else syncfix's own stand-in headers.
    #[arg(long = "cuda-path", value_name = "DIR", conflicts_with = "no_cuda_toolkit", help_heading = "Options of syncfix's own")]
    pub cuda_path: Option<PathBuf>,
    /// Use syncfix's own stand-ins for the CUDA toolkit's headers even where one is installed.
    #[arg(long = "no-cuda-toolkit", help_heading = "Options of syncfix's own")]
    pub no_cuda_toolkit: bool,
    /// Only this kernel of the file.
    #[arg(long, value_name = "NAME", help_heading = "Options of syncfix's own")]
    pub kernel: Option<String>,
    /// Model every shared array with the equality abstraction.
    #[arg(long = "equality-abstraction", conflicts_with = "adversarial_abstraction", help_heading = "Advanced options (GPUVerify's)")]
    pub equality_abstraction: bool,
    /// Model every shared array adversarially (reads return arbitrary values).
    #[arg(long = "adversarial-abstraction", help_heading = "Advanced options (GPUVerify's)")]
    pub adversarial_abstraction: bool,
    /// Check races only between threads of the same block / work-group.
    #[arg(long = "only-intra-group", help_heading = "General options (GPUVerify's)")]
    pub only_intra_group: bool,
    /// Report only the races and divergences that a replay on concrete threads confirmed; a
    /// kernel whose finding is only possible is reported as unknown, with the reason.
    #[arg(long = "confirmed-only", help_heading = "Options of syncfix's own")]
    pub confirmed_only: bool,
    /// Report races even when both threads write the same value (GPUVerify tolerates them).
    #[arg(long = "no-benign-tolerance", help_heading = "General options (GPUVerify's)")]
    pub no_benign_tolerance: bool,
    /// Explore at most N iterations per loop (bug finding; implies --findbugs).
    #[arg(long = "loop-unwind", value_name = "N", help_heading = "General options (GPUVerify's)")]
    pub loop_unwind: Option<u32>,
    /// Bug-finding mode: unwind loops twice, no proof.
    #[arg(long, help_heading = "General options (GPUVerify's)")]
    pub findbugs: bool,
    /// Time limit in seconds (0: none; default from configs/default.toml).
    #[arg(long, value_name = "S", help_heading = "General options (GPUVerify's)")]
    pub timeout: Option<u64>,
    /// Also check each device function with a contract (`__requires`, `__ensures`) on its
    /// own against it, as GPUVerify's modular checking (calls are still inlined)
    #[arg(long = "no-inline", help_heading = "Advanced options (GPUVerify's)")]
    pub no_inline: bool,
    /// The kernel is OpenCL (default: by extension, `.cl`).
    #[arg(long, conflicts_with = "cuda", help_heading = "General options (GPUVerify's)")]
    pub opencl: bool,
    /// The kernel is CUDA (default: by extension).
    #[arg(long, help_heading = "General options (GPUVerify's)")]
    pub cuda: bool,
    /// Verification mode (the default).
    #[arg(long, conflicts_with = "findbugs", help_heading = "General options (GPUVerify's)")]
    pub verify: bool,
    /// Only check for barrier divergence, not data races.
    #[arg(long = "only-divergence", help_heading = "General options (GPUVerify's)")]
    pub only_divergence: bool,
    /// Log accesses (for annotations that query the logs) but do not check for races.
    #[arg(long = "only-log", help_heading = "Advanced options (GPUVerify's)")]
    pub only_log: bool,
    /// Check assertions for the first thread of the pair only.
    #[arg(long = "asymmetric-asserts", help_heading = "Advanced options (GPUVerify's)")]
    pub asymmetric_asserts: bool,
    /// Ignore all source-level annotations.
    #[arg(long = "no-annotations", conflicts_with = "only_requires", help_heading = "Advanced options (GPUVerify's)")]
    pub no_annotations: bool,
    /// Ignore all source-level annotations except __requires.
    #[arg(long = "only-requires", help_heading = "Advanced options (GPUVerify's)")]
    pub only_requires: bool,
    /// Treat every source-level loop invariant as a candidate (unchecked).
    #[arg(long = "invariants-as-candidates", help_heading = "Advanced options (GPUVerify's)")]
    pub invariants_as_candidates: bool,
    /// For kernel K with scalar parameters x1..xn, assume x1 == v1, ... (hex values or *).
    #[arg(long = "kernel-args", value_name = "K,v1,...", help_heading = "Advanced options (GPUVerify's)")]
    pub kernel_args: Vec<String>,
    /// For kernel K with pointer parameters p1..pn, their sizes in bytes (or *).
    #[arg(long = "kernel-arrays", value_name = "K,s1,...", help_heading = "Advanced options (GPUVerify's)")]
    pub kernel_arrays: Vec<String>,
    /// Threads that solve one check's independent queries at once (default: one per core;
    /// `syncfix suite` gives 1 to each of its parallel jobs).
    #[arg(long = "solver-threads", value_name = "N", help_heading = "Options of syncfix's own")]
    pub solver_threads: Option<usize>,
    /// Threads in warps of this size execute in lock-step (warp-synchronous code).
    #[arg(long = "warp-sync", value_name = "N", help_heading = "Advanced options (GPUVerify's)")]
    pub warp_sync: Option<u32>,
    /// Check that accesses to arrays of known size stay in bounds.
    #[arg(long = "check-array-bounds", help_heading = "Advanced options (GPUVerify's)")]
    pub check_array_bounds: bool,
    /// OpenCL global offset (added to global ids), `x`, `[x,y]` or `[x,y,z]`.
    #[arg(long = "global_offset", value_name = "DIMS", help_heading = "Launch sizes (GPUVerify's CUDA- and OpenCL-specific options)")]
    pub global_offset: Option<String>,
    /// Boogie axiom files: GPUVerify's Boogie back end only (rejected).
    #[arg(long = "boogie-file", value_name = "X.bpl", help_heading = "Advanced options (GPUVerify's)")]
    pub boogie_file: Vec<String>,
    /// Options of GPUVerify's VC generator: `/checkArrays:A,B` restricts race checking to
    /// those arrays; the others are ignored.
    #[arg(long = "vcgen-opt", value_name = "OPT", help_heading = "Development options (GPUVerify's)")]
    pub vcgen_opt: Vec<String>,
    /// Silent on success.
    #[arg(long, conflicts_with = "verbose", help_heading = "General options (GPUVerify's)")]
    pub silent: bool,
    /// `repair`, `audit`: say what the repair over-approximated and when (clauses from traces
    /// that are not exact, widened clauses, the kernel's barriers kept). `verify`: accepted for
    /// GPUVerify compatibility.
    #[arg(long, help_heading = "General options (GPUVerify's)")]
    pub verbose: bool,
    /// Print timing information (as --stats).
    #[arg(long, help_heading = "General options (GPUVerify's)")]
    pub time: bool,
    /// GPUVerify options about its internal stages (accepted, ignored, reported once).
    #[arg(long, help_heading = "Development options (GPUVerify's)")]
    pub debug: bool,
    #[arg(long = "infer-info", hide = true)]
    pub infer_info: bool,
    /// Turn off invariant inference (Houdini's candidates): a loop cut at its head keeps only
    /// the user's invariants (GPUVerify's --no-infer).
    #[arg(long = "no-infer", help_heading = "Invariant inference options (GPUVerify's)")]
    pub no_infer: bool,
    #[arg(long = "staged-inference", hide = true)]
    pub staged_inference: bool,
    /// Do not check that barrier invariants read only what the threads accessed or were
    /// given permission to read (`__read_permission`)
    #[arg(long = "no-barrier-access-checks", help_heading = "Advanced options (GPUVerify's)")]
    pub no_barrier_access_checks: bool,
    #[arg(long = "keep-temps", hide = true)]
    pub keep_temps: bool,
    #[arg(long = "gen-smt2", hide = true)]
    pub gen_smt2: bool,
    #[arg(long = "math-int", hide = true)]
    pub math_int: bool,
    #[arg(long = "stop-at-opt", hide = true)]
    pub stop_at_opt: bool,
    #[arg(long = "stop-at-gbpl", hide = true)]
    pub stop_at_gbpl: bool,
    #[arg(long = "stop-at-bpl", hide = true)]
    pub stop_at_bpl: bool,
    #[arg(long = "stop-at-cbpl", hide = true)]
    pub stop_at_cbpl: bool,
    #[arg(long = "cruncher-opt", hide = true)]
    pub cruncher_opt: Vec<String>,
    #[arg(long = "boogie-opt", hide = true)]
    pub boogie_opt: Vec<String>,
    #[arg(long = "bugle-opt", hide = true)]
    pub bugle_opt: Vec<String>,
    #[arg(long = "opt-opt", hide = true)]
    pub opt_opt: Vec<String>,
    #[arg(long = "omit-infer", hide = true)]
    pub omit_infer: Vec<String>,
    #[arg(long = "k-induction-depth", hide = true)]
    pub k_induction_depth: Option<u32>,
    #[arg(long = "race-instrumenter", hide = true)]
    pub race_instrumenter: Option<String>,
    #[arg(long = "solver", hide = true)]
    pub solver: Option<String>,
    #[arg(long = "pointer-bitwidth", hide = true)]
    pub pointer_bitwidth: Option<u32>,
    #[arg(long = "time-as-csv", hide = true)]
    pub time_as_csv: Option<String>,
    /// Print an intermediate form instead of verifying.
    #[arg(long, value_enum, help_heading = "Options of syncfix's own")]
    pub emit: Option<Emit>,
    /// A TOML file overriding configs/default.toml.
    #[arg(long, value_name = "FILE", help_heading = "Options of syncfix's own")]
    pub config: Option<PathBuf>,
    /// Print per-stage times and counters to stderr.
    #[arg(long, help_heading = "Options of syncfix's own")]
    pub stats: bool,
    /// Colour the diagnostics: `auto` (on a terminal, unless NO_COLOR is set), `always` (also
    /// draws the source lines with carets when piped), `never`. Piped output is GPUVerify's text.
    #[arg(long, value_enum, default_value_t = crate::render::ColorChoice::Auto, value_name = "WHEN", help_heading = "Options of syncfix's own")]
    pub color: crate::render::ColorChoice,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Output format: `text` (GPUVerify's), `json` (one verdict object on stdout) or `sarif`
    /// (a SARIF 2.1.0 log on stdout).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// For `syncfix bench`: also time one plain clang-19 compile of the kernel (the stats'
    /// `clang_baseline_ms`).
    #[arg(long = "bench-clang", hide = true)]
    pub bench_clang: bool,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub verify: VerifyArgs,
    /// Write a CUDA host program to FILE that launches the kernel with the inputs of the
    /// replay of its first race or divergence (for `compute-sanitizer` on a GPU).
    #[arg(long = "emit-harness", value_name = "FILE")]
    pub emit_harness: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct RepairArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Output format: `text` (the diff on stdout, messages on stderr), `json` (one summary
    /// object on stdout, schema `syncfix.repair/1`, the diff in its `patch` field) or `sarif`
    /// (a SARIF 2.1.0 log whose result carries the fix).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Greedy minimal hitting set with a MaxSAT fallback (default; GPURepair's mhs).
    #[arg(long, conflicts_with = "maxsat")]
    pub mhs: bool,
    /// Weighted MaxSAT at every iteration.
    #[arg(long)]
    pub maxsat: bool,
    /// Do not consider grid barriers (cooperative groups) for CUDA kernels.
    #[arg(long = "disable-grid")]
    pub disable_grid: bool,
    /// Keep every existing barrier (do not consider removing any).
    #[arg(long = "disable-inspect")]
    pub disable_inspect: bool,
    /// Do not consider warp barriers (`__syncwarp()`) for CUDA kernels.
    #[arg(long = "no-warp-barriers")]
    pub no_warp_barriers: bool,
    /// Threads per warp, for warp barriers (default 32).
    #[arg(long = "warp-size", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub warp_size: Option<u32>,
    /// Rewrite FILE with the repair (atomically) as well as printing the diff; only a safe fix
    /// (block barriers inserted, proved) unless --unsafe-fixes / --bounded-fixes is given.
    #[arg(long)]
    pub apply: bool,
    /// With --apply, also write fixes that are not safe: barrier removals, grid barriers (the
    /// launch must become cooperative) and restructured code (as Ruff's --unsafe-fixes).
    #[arg(long = "unsafe-fixes", requires = "apply")]
    pub unsafe_fixes: bool,
    /// With --apply, also write a repair checked only up to the loop-unwinding bound
    /// (--loop-unwind, --findbugs): not a proof.
    #[arg(long = "bounded-fixes", requires = "apply")]
    pub bounded_fixes: bool,
    // Last: the group's heading would hold for every argument after it.
    #[command(flatten)]
    pub weights: WeightArgs,
}

#[derive(Args, Debug)]
pub struct AuditArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Output format: `text` (the diff on stdout, messages on stderr), `json` (one summary
    /// object on stdout, schema `syncfix.repair/1`, the diff in its `patch` field) or `sarif`
    /// (a SARIF 2.1.0 log whose result carries the fix).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub weights: WeightArgs,
}

/// GPURepair's weights of a barrier (VMCAI 2021, §2.3): `sw * lw^depth + gw * [grid]`, `sw`
/// the block or warp barrier's scope weight, plus the wait's weight of a wait-then-barrier
/// site. `repair` and `audit` both minimise the total; the defaults are `configs/default.toml`'s.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Barrier weights (GPURepair)")]
pub struct WeightArgs {
    /// Weight base of barriers in loops (a barrier at loop depth d weighs N^d).
    #[arg(long = "loop-depth-weight", value_name = "N")]
    pub loop_depth_weight: Option<u64>,
    /// Extra weight of a grid barrier.
    #[arg(long = "grid-barrier-weight", value_name = "N")]
    pub grid_barrier_weight: Option<u64>,
    /// Scope weight of a block (and grid) barrier: it weighs N*lw^depth (default 1, GPURepair's).
    #[arg(long = "block-barrier-weight", value_name = "N")]
    pub block_barrier_weight: Option<u64>,
    /// Scope weight of a warp barrier, `__syncwarp()`: it weighs N*lw^depth (default 1; at equal
    /// weight a warp barrier is preferred to a block barrier).
    #[arg(long = "warp-barrier-weight", value_name = "N")]
    pub warp_barrier_weight: Option<u64>,
    /// Added to the weight of a barrier that first waits for OpenCL asynchronous copies
    /// (`wait_group_events(...); barrier(...);`, default 1: a plain barrier is preferred where it
    /// is enough).
    #[arg(long = "async-wait-weight", value_name = "N")]
    pub async_wait_weight: Option<u64>,
}

impl WeightArgs {
    /// The weights given on the command line into `o`; the others stay `o`'s.
    pub fn apply(&self, o: &mut syncfix::RepairOptions) {
        let set = |w: Option<u64>, field: &mut u64| {
            if let Some(w) = w {
                *field = w;
            }
        };
        set(self.loop_depth_weight, &mut o.loop_depth_weight);
        set(self.grid_barrier_weight, &mut o.grid_barrier_weight);
        set(self.block_barrier_weight, &mut o.block_barrier_weight);
        set(self.warp_barrier_weight, &mut o.warp_barrier_weight);
        set(self.async_wait_weight, &mut o.async_wait_weight);
    }
}
