//! `syncfix`: repair, verify and test the synchronisation of CUDA and OpenCL kernels.
//!
//! Flags and exit codes follow GPUVerify (launch, abstraction, loop flags; 0 success, 1
//! command line, 2 clang, 4 front end, 6 not all verified / unknown, 7 timeout) and GPURepair
//! (repair flags; 201 assertion failure, 202 cannot be repaired, 203 other error).

mod bench;
mod launch;
mod render;
mod runner;
mod stop;
mod suite;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use syncfix::verdict::{Stats, Verdict};
use syncfix::{
    Annotations, Config, Encoding, ForceAbstraction, FrontendError, FrontendOptions, InstrumentConfig, Language, Limits,
    Options, RepairOptions, RepairStatus, Status, Strategy, VerifyOptions,
};

/// Exit codes (GPUVerify's `error_codes.py`, GPURepair's repair codes).
pub mod exit {
    pub const SUCCESS: u8 = 0;
    pub const COMMAND_LINE_ERROR: u8 = 1;
    pub const CLANG_ERROR: u8 = 2;
    pub const FRONTEND_ERROR: u8 = 4;
    /// GPUVerify's VC-generation stage rejected the input (e.g. an unknown `/checkArrays` name).
    pub const VCGEN_ERROR: u8 = 5;
    pub const NOT_ALL_VERIFIED: u8 = 6;
    pub const TIMEOUT: u8 = 7;
    pub const ASSERTION_FAILURE: u8 = 201;
    pub const UNREPAIRABLE: u8 = 202;
    pub const REPAIR_ERROR: u8 = 203;
    /// An internal error of the verifier (GPUVerify's BOOGIE_INTERNAL_ERROR).
    pub const INTERNAL_ERROR: u8 = 11;
}

#[derive(Parser, Debug)]
#[command(name = "syncfix", version, about = "Repairs the synchronisation (barriers) of CUDA and OpenCL kernels")]
// GPUVerify's argparse accepts unambiguous prefixes of long options (`--vcgen-op`).
#[command(infer_long_args = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a unified diff of FILE that inserts and removes barriers so that the kernel is
    /// free of data races and barrier divergence (a minimal-weight, re-verified change).
    Repair(RepairArgs),
    /// Verify FILE like GPUVerify: data races, barrier divergence, assertions.
    Verify(VerifyArgs),
    /// On a kernel that verifies, print a unified diff removing the barriers it does not need
    /// (the minimum-weight subset of its barriers that keeps it verified, re-verified).
    Audit(AuditArgs),
    /// Run a GPUVerify-style test tree (NAME/kernel.cu with //pass or //xfail:CODE headers)
    /// in parallel and score the verdicts against the expected defect kinds.
    Suite(suite::SuiteArgs),
    /// Time every kernel of a GPUVerify-style tree per stage, beside a plain clang-19 compile.
    Bench(bench::BenchArgs),
}

/// How `verify` prints its verdict.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Format {
    /// GPUVerify's messages (stderr) and summary lines (stdout).
    #[default]
    Text,
    /// One JSON object on stdout (schema `syncfix.verdict/1`, see the README); the text goes
    /// to stderr.
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Emit {
    /// The kernel in KIR, after the front end.
    Kir,
    /// The kernel with candidate barrier sites and their barrier variables.
    Instrumented,
}

/// GPUVerify's flags.
#[derive(Args, Debug, Clone)]
struct CommonArgs {
    /// The kernel file (.cu for CUDA, .cl for OpenCL).
    file: PathBuf,
    /// Threads per block, `x`, `[x,y]` or `[x,y,z]` (CUDA; alias of --local_size).
    #[arg(long = "blockDim", alias = "local_size", value_name = "DIMS")]
    block_dim: Option<String>,
    /// Blocks per grid (CUDA; alias of --num_groups).
    #[arg(long = "gridDim", alias = "num_groups", value_name = "DIMS")]
    grid_dim: Option<String>,
    /// Total work-items (OpenCL): a multiple of --local_size.
    #[arg(long = "global_size", value_name = "DIMS")]
    global_size: Option<String>,
    /// Define a preprocessor macro.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// Add an include directory.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Pass an option to clang.
    #[arg(long = "clang-opt", value_name = "OPT")]
    clang_opt: Vec<String>,
    /// Only this kernel of the file.
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Model every shared array with the equality abstraction.
    #[arg(long = "equality-abstraction", conflicts_with = "adversarial_abstraction")]
    equality_abstraction: bool,
    /// Model every shared array adversarially (reads return arbitrary values).
    #[arg(long = "adversarial-abstraction")]
    adversarial_abstraction: bool,
    /// Check races only between threads of the same block / work-group.
    #[arg(long = "only-intra-group")]
    only_intra_group: bool,
    /// Report races even when both threads write the same value (GPUVerify tolerates them).
    #[arg(long = "no-benign-tolerance")]
    no_benign_tolerance: bool,
    /// Explore at most N iterations per loop (bug finding; implies --findbugs).
    #[arg(long = "loop-unwind", value_name = "N")]
    loop_unwind: Option<u32>,
    /// Bug-finding mode: unwind loops twice, no proof.
    #[arg(long)]
    findbugs: bool,
    /// Time limit in seconds (0: none; default from configs/default.toml).
    #[arg(long, value_name = "S")]
    timeout: Option<u64>,
    /// Also check each device function with a contract (`__requires`, `__ensures`) on its
    /// own against it, as GPUVerify's modular checking (calls are still inlined)
    #[arg(long = "no-inline")]
    no_inline: bool,
    /// The kernel is OpenCL (default: by extension, `.cl`).
    #[arg(long, conflicts_with = "cuda")]
    opencl: bool,
    /// The kernel is CUDA (default: by extension).
    #[arg(long)]
    cuda: bool,
    /// Verification mode (the default).
    #[arg(long, conflicts_with = "findbugs")]
    verify: bool,
    /// Only check for barrier divergence, not data races.
    #[arg(long = "only-divergence")]
    only_divergence: bool,
    /// Log accesses (for annotations that query the logs) but do not check for races.
    #[arg(long = "only-log")]
    only_log: bool,
    /// Check assertions for the first thread of the pair only.
    #[arg(long = "asymmetric-asserts")]
    asymmetric_asserts: bool,
    /// Ignore all source-level annotations.
    #[arg(long = "no-annotations", conflicts_with = "only_requires")]
    no_annotations: bool,
    /// Ignore all source-level annotations except __requires.
    #[arg(long = "only-requires")]
    only_requires: bool,
    /// Treat every source-level loop invariant as a candidate (unchecked).
    #[arg(long = "invariants-as-candidates")]
    invariants_as_candidates: bool,
    /// For kernel K with scalar parameters x1..xn, assume x1 == v1, ... (hex values or *).
    #[arg(long = "kernel-args", value_name = "K,v1,...")]
    kernel_args: Vec<String>,
    /// For kernel K with pointer parameters p1..pn, their sizes in bytes (or *).
    #[arg(long = "kernel-arrays", value_name = "K,s1,...")]
    kernel_arrays: Vec<String>,
    /// Threads in warps of this size execute in lock-step (warp-synchronous code).
    #[arg(long = "warp-sync", value_name = "N")]
    warp_sync: Option<u32>,
    /// Check that accesses to arrays of known size stay in bounds.
    #[arg(long = "check-array-bounds")]
    check_array_bounds: bool,
    /// OpenCL global offset (added to global ids), `x`, `[x,y]` or `[x,y,z]`.
    #[arg(long = "global_offset", value_name = "DIMS")]
    global_offset: Option<String>,
    /// Boogie axiom files: GPUVerify's Boogie back end only (rejected).
    #[arg(long = "boogie-file", value_name = "X.bpl")]
    boogie_file: Vec<String>,
    /// Options of GPUVerify's VC generator: `/checkArrays:A,B` restricts race checking to
    /// those arrays; the others are ignored.
    #[arg(long = "vcgen-opt", value_name = "OPT")]
    vcgen_opt: Vec<String>,
    /// Silent on success.
    #[arg(long, conflicts_with = "verbose")]
    silent: bool,
    /// Accepted for GPUVerify compatibility.
    #[arg(long)]
    verbose: bool,
    /// Print timing information (as --stats).
    #[arg(long)]
    time: bool,
    /// GPUVerify options about its internal stages (accepted, ignored, reported once).
    #[arg(long)]
    debug: bool,
    #[arg(long = "infer-info", hide = true)]
    infer_info: bool,
    #[arg(long = "no-infer", hide = true)]
    no_infer: bool,
    #[arg(long = "staged-inference", hide = true)]
    staged_inference: bool,
    /// Do not check that barrier invariants read only what the threads accessed or were
    /// given permission to read (`__read_permission`)
    #[arg(long = "no-barrier-access-checks")]
    no_barrier_access_checks: bool,
    #[arg(long = "keep-temps", hide = true)]
    keep_temps: bool,
    #[arg(long = "gen-smt2", hide = true)]
    gen_smt2: bool,
    #[arg(long = "math-int", hide = true)]
    math_int: bool,
    #[arg(long = "stop-at-opt", hide = true)]
    stop_at_opt: bool,
    #[arg(long = "stop-at-gbpl", hide = true)]
    stop_at_gbpl: bool,
    #[arg(long = "stop-at-bpl", hide = true)]
    stop_at_bpl: bool,
    #[arg(long = "stop-at-cbpl", hide = true)]
    stop_at_cbpl: bool,
    #[arg(long = "cruncher-opt", hide = true)]
    cruncher_opt: Vec<String>,
    #[arg(long = "boogie-opt", hide = true)]
    boogie_opt: Vec<String>,
    #[arg(long = "bugle-opt", hide = true)]
    bugle_opt: Vec<String>,
    #[arg(long = "opt-opt", hide = true)]
    opt_opt: Vec<String>,
    #[arg(long = "omit-infer", hide = true)]
    omit_infer: Vec<String>,
    #[arg(long = "k-induction-depth", hide = true)]
    k_induction_depth: Option<u32>,
    #[arg(long = "race-instrumenter", hide = true)]
    race_instrumenter: Option<String>,
    #[arg(long = "solver", hide = true)]
    solver: Option<String>,
    #[arg(long = "pointer-bitwidth", hide = true)]
    pointer_bitwidth: Option<u32>,
    #[arg(long = "time-as-csv", hide = true)]
    time_as_csv: Option<String>,
    /// Print an intermediate form instead of verifying.
    #[arg(long, value_enum)]
    emit: Option<Emit>,
    /// A TOML file overriding configs/default.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print per-stage times and counters to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Output format: `text` (GPUVerify's) or `json` (one verdict object on stdout).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// For `syncfix bench`: also time one plain clang-19 compile of the kernel (the stats'
    /// `clang_baseline_ms`).
    #[arg(long = "bench-clang", hide = true)]
    bench_clang: bool,
}

#[derive(Args, Debug)]
struct RepairArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Output format: `text` (the diff on stdout, messages on stderr) or `json` (one summary
    /// object on stdout, schema `syncfix.repair/1`, the diff in its `patch` field).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Greedy minimal hitting set with a MaxSAT fallback (default; GPURepair's mhs).
    #[arg(long, conflicts_with = "maxsat")]
    mhs: bool,
    /// Weighted MaxSAT at every iteration.
    #[arg(long)]
    maxsat: bool,
    /// Do not consider grid barriers (cooperative groups) for CUDA kernels.
    #[arg(long = "disable-grid")]
    disable_grid: bool,
    /// Keep every existing barrier (do not consider removing any).
    #[arg(long = "disable-inspect")]
    disable_inspect: bool,
    /// Weight base of barriers in loops (a barrier at loop depth d weighs N^d).
    #[arg(long = "loop-depth-weight", value_name = "N")]
    loop_depth_weight: Option<u64>,
    /// Extra weight of a grid barrier.
    #[arg(long = "grid-barrier-weight", value_name = "N")]
    grid_barrier_weight: Option<u64>,
    /// Scope weight of a block (and grid) barrier: it weighs N*lw^depth (default 1, GPURepair's).
    #[arg(long = "block-barrier-weight", value_name = "N")]
    block_barrier_weight: Option<u64>,
    /// Scope weight of a warp barrier, `__syncwarp()`: it weighs N*lw^depth (default 1; at equal
    /// weight a warp barrier is preferred to a block barrier).
    #[arg(long = "warp-barrier-weight", value_name = "N")]
    warp_barrier_weight: Option<u64>,
    /// Do not consider warp barriers (`__syncwarp()`) for CUDA kernels.
    #[arg(long = "no-warp-barriers")]
    no_warp_barriers: bool,
    /// Threads per warp, for warp barriers (default 32).
    #[arg(long = "warp-size", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    warp_size: Option<u32>,
    /// Rewrite FILE with the repair (atomically) as well as printing the diff; only a safe fix
    /// (block barriers inserted, proved) unless --unsafe-fixes is given.
    #[arg(long)]
    apply: bool,
    /// With --apply, also write fixes that are not safe: barrier removals, grid barriers (the
    /// launch must become cooperative) and repairs checked only up to a loop bound (as Ruff's
    /// --unsafe-fixes).
    #[arg(long = "unsafe-fixes", requires = "apply")]
    unsafe_fixes: bool,
}

#[derive(Args, Debug)]
struct AuditArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Output format: `text` (the diff on stdout, messages on stderr) or `json` (one summary
    /// object on stdout, schema `syncfix.repair/1`, the diff in its `patch` field).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Weight base of barriers in loops (a barrier at loop depth d weighs N^d).
    #[arg(long = "loop-depth-weight", value_name = "N")]
    loop_depth_weight: Option<u64>,
    /// Extra weight of a grid barrier.
    #[arg(long = "grid-barrier-weight", value_name = "N")]
    grid_barrier_weight: Option<u64>,
}

/// The message of the last panic, for the JSON verdict of an internal error.
static PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

fn main() -> ExitCode {
    let started = Instant::now();
    stop::install_signal_handlers();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => exit::SUCCESS,
                _ => exit::COMMAND_LINE_ERROR,
            };
            if let (true, Some(command)) = (code != exit::SUCCESS, json_requested()) {
                // The file, as far as it can be told: the last argument that is not a flag.
                let file = std::env::args().skip(2).filter(|a| !a.starts_with('-') && a != "json").last().unwrap_or_default();
                let f = Failure { code, stage: "command_line", text: e.to_string() };
                if command == "verify" {
                    return ExitCode::from(fail(true, &file, f, started));
                }
                return ExitCode::from(fail_repair_like(true, command, &file, f, started));
            }
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // A panic is a bug in syncfix: say so plainly instead of printing a Rust backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = syncfix::panic_message(info).unwrap_or_default();
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let text = format!("syncfix: internal error: {msg}{at}; please report it with the kernel and its flags");
        eprintln!("{text}");
        *PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
    }));
    let (on_panic, json, file, command) = match &cli.command {
        Command::Repair(a) => (exit::REPAIR_ERROR, a.format == Format::Json, a.common.file.display().to_string(), "repair"),
        Command::Audit(a) => (exit::REPAIR_ERROR, a.format == Format::Json, a.common.file.display().to_string(), "audit"),
        Command::Verify(a) => (exit::INTERNAL_ERROR, a.format == Format::Json, a.common.file.display().to_string(), "verify"),
        Command::Suite(_) | Command::Bench(_) => (exit::INTERNAL_ERROR, false, String::new(), "suite"),
    };
    let result = std::panic::catch_unwind(|| match cli.command {
        Command::Verify(a) => cmd_verify(&a, started),
        Command::Repair(a) => cmd_repair(&a, started),
        Command::Audit(a) => cmd_audit(&a, started),
        Command::Suite(a) => suite::run(&a),
        Command::Bench(a) => bench::run(&a),
    });
    match result {
        Ok(code) => ExitCode::from(code),
        Err(_) if json => {
            let text = PANIC.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
            let f = Failure { code: on_panic, stage: "internal", text };
            if command == "verify" {
                print_json(&Verdict::error(&file, f.stage, f.code, &f.text, Stats::of(&Default::default(), started.elapsed())));
            } else {
                print_json(&syncfix::verdict::RepairSummary::failure(command, &file, "error", &f.text, f.code, started.elapsed()));
            }
            ExitCode::from(on_panic)
        }
        Err(_) => ExitCode::from(on_panic),
    }
}

/// The command (`verify`, `repair` or `audit`) whose command line asks for `--format json`
/// (or `--format=json`).
fn json_requested() -> Option<&'static str> {
    let args: Vec<String> = std::env::args().collect();
    let command = ["verify", "repair", "audit"].into_iter().find(|c| args.get(1).is_some_and(|a| a == c))?;
    args.iter()
        .zip(args.iter().skip(1))
        .any(|(a, b)| a == "--format=json" || (a == "--format" && b == "json"))
        .then_some(command)
}

/// A run that gives no verdict: its exit code, GPUVerify's stage, and the text for stderr.
struct Failure {
    code: u8,
    /// [`syncfix::verdict::ErrorInfo::stage`].
    stage: &'static str,
    text: String,
}

fn cli_error(msg: &str) -> Failure {
    Failure {
        code: exit::COMMAND_LINE_ERROR,
        stage: "command_line",
        text: format!("syncfix: COMMAND_LINE_ERROR error (1): {msg}"),
    }
}

/// Prints a failure (and, in JSON, its verdict) and returns its exit code.
fn fail(json: bool, file: &str, f: Failure, started: Instant) -> u8 {
    eprint!("{}", f.text);
    if !f.text.ends_with('\n') {
        eprintln!();
    }
    if json {
        print_json(&Verdict::error(file, f.stage, f.code, &f.text, Stats::of(&Default::default(), started.elapsed())));
    }
    f.code
}

/// Prints a unified diff on stdout in the encoding of the file it patches (so that `patch`
/// finds its context lines byte for byte).
fn print_patch(diff: &str, encoding: Encoding) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(&syncfix::encode_source(diff, encoding)).and_then(|()| out.flush()) {
        eprintln!("syncfix: error: cannot write the patch: {e}");
    }
}

fn print_json(v: &impl serde::Serialize) {
    match serde_json::to_string_pretty(v) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("syncfix: internal error: cannot write the JSON verdict: {e}"),
    }
}

/// Reads the file and builds the options; `Err` is the failure to report.
/// The text is the file's bytes as [`syncfix::decode_source`] reads them, in `Encoding`.
fn setup(c: &CommonArgs, repair: Option<&RepairArgs>) -> Result<(String, Encoding, Options), Failure> {
    if c.file.is_dir() {
        return Err(cli_error(&format!("{}: is a directory, not a kernel file", c.file.display())));
    }
    let (text, encoding) = match std::fs::read(&c.file) {
        Ok(b) => syncfix::decode_source(b).map_err(|e| cli_error(&format!("{}: {e}", c.file.display())))?,
        Err(e) => return Err(cli_error(&format!("{}: {e}", c.file.display()))),
    };
    if encoding == Encoding::Latin1 {
        eprintln!(
            "syncfix: warning: {}: not UTF-8; read as Latin-1 (ISO 8859-1), as clang reads its bytes; a diff or --apply writes it back in Latin-1",
            c.file.display()
        );
    }
    let config = match &c.config {
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => Config::with_overrides(&t).map_err(|e| cli_error(&format!("{}: {e}", p.display())))?,
            Err(e) => return Err(cli_error(&format!("{}: {e}", p.display()))),
        },
        None => Config::builtin(),
    };
    let language = if c.opencl {
        Language::OpenCl
    } else if c.cuda {
        Language::Cuda
    } else {
        syncfix_language(&c.file).map_err(|m| cli_error(&m))?
    };
    let mut launch = launch::launch(c.block_dim.as_deref(), c.grid_dim.as_deref(), c.global_size.as_deref(), language == Language::OpenCl)
        .map_err(|m| cli_error(&m))?;
    if c.block_dim.is_none() || (c.grid_dim.is_none() && c.global_size.is_none()) {
        let (b, g) = if language == Language::OpenCl { ("--local_size", "--num_groups") } else { ("--blockDim", "--gridDim") };
        eprintln!(
            "{}: warning: no {} given: that size is symbolic in every dimension, and the verdict holds for every launch \
             (give the sizes, or __requires on them, to narrow it)",
            c.file.display(),
            if c.block_dim.is_none() { b } else { g }
        );
    }
    if let Some(o) = &c.global_offset {
        launch.global_offset = launch::parse_offset(o).map_err(|m| cli_error(&m))?;
    }
    if !c.boogie_file.is_empty() {
        return Err(cli_error(
            "--boogie-file supplies Boogie axioms to GPUVerify's Boogie back end, which syncfix does not have; \
             state the facts in the kernel instead (__axiom, __requires)",
        ));
    }
    let mut check_arrays: Option<Vec<String>> = None;
    let mut ignored = ignored_flags(c);
    for v in &c.vcgen_opt {
        match v.strip_prefix("/checkArrays:") {
            Some(list) => check_arrays.get_or_insert_with(Vec::new).extend(list.split(',').map(|a| a.trim().to_string())),
            None => ignored.push(format!("--vcgen-opt={v}")),
        }
    }
    if !ignored.is_empty() {
        eprintln!("syncfix: note: ignoring options of GPUVerify's internal stages: {}", ignored.join(", "));
    }
    let kernel_args = c.kernel_args.iter().map(|a| launch::parse_kernel_values(a, 16)).collect::<Result<Vec<_>, _>>().map_err(|m| cli_error(&m))?;
    let kernel_arrays = c
        .kernel_arrays
        .iter()
        .map(|a| launch::parse_kernel_values(a, 10).map(|(k, v)| (k, v.into_iter().map(|x| x.map(|n| n as u64)).collect())))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|m| cli_error(&m))?;
    let timeout_s = c.timeout.unwrap_or(config.verifier.timeout_seconds);
    let deadline = (timeout_s > 0).then(|| Instant::now() + Duration::from_secs(timeout_s));
    let verify = VerifyOptions {
        abstraction: if c.equality_abstraction {
            ForceAbstraction::Equality
        } else if c.adversarial_abstraction {
            ForceAbstraction::Adversarial
        } else {
            ForceAbstraction::PerArray
        },
        only_intra_group: c.only_intra_group,
        benign_tolerance: !c.no_benign_tolerance,
        loop_unwind: c.loop_unwind.or(if c.findbugs { Some(2) } else { None }),
        limits: Limits {
            max_unwind: config.verifier.max_unwind,
            max_unroll_instructions: config.verifier.max_unroll_instructions,
            max_unwind_checks: config.verifier.max_unwind_checks,
            max_instructions: config.verifier.max_instructions,
        },
        // The deadline (set below for every stage) limits each solver call to the time left.
        timeout: None,
        deadline: None,
        race_checks: !(c.only_divergence || c.only_log),
        barrier_access_checks: !c.no_barrier_access_checks,
        asymmetric_asserts: c.asymmetric_asserts,
        warp_size: c.warp_sync,
        array_bounds: c.check_array_bounds,
        check_arrays,
        infer: !c.no_infer,
    };
    let mut instrument = InstrumentConfig {
        loop_depth_weight: config.repair.loop_depth_weight,
        grid_barrier_weight: config.repair.grid_barrier_weight,
        block_barrier_weight: config.repair.block_barrier_weight,
        warp_barrier_weight: config.repair.warp_barrier_weight,
        warp_barriers: config.repair.warp_barriers,
        warp_size: config.repair.warp_size,
        ..InstrumentConfig::default()
    };
    let mut strategy = if config.repair.solver == "maxsat" { Strategy::MaxSat } else { Strategy::Mhs };
    if let Some(r) = repair {
        instrument.disable_grid = r.disable_grid;
        instrument.disable_inspect = r.disable_inspect;
        if let Some(w) = r.loop_depth_weight {
            instrument.loop_depth_weight = w;
        }
        if let Some(w) = r.grid_barrier_weight {
            instrument.grid_barrier_weight = w;
        }
        if let Some(w) = r.block_barrier_weight {
            instrument.block_barrier_weight = w;
        }
        if let Some(w) = r.warp_barrier_weight {
            instrument.warp_barrier_weight = w;
        }
        if let Some(n) = r.warp_size {
            instrument.warp_size = n;
        }
        instrument.warp_barriers &= !r.no_warp_barriers;
        if r.maxsat {
            strategy = Strategy::MaxSat;
        } else if r.mhs {
            strategy = Strategy::Mhs;
        }
    }
    let mut opts = Options {
        frontend: FrontendOptions {
            language: Some(language),
            launch,
            defines: c.defines.clone(),
            include_dirs: c.include.clone(),
            clang_args: c.clang_opt.clone(),
            kernel: c.kernel.clone(),
            annotations: if c.no_annotations {
                Annotations::Ignore
            } else if c.only_requires {
                Annotations::OnlyRequires
            } else {
                Annotations::All
            },
            invariants_as_candidates: c.invariants_as_candidates,
            modular: c.no_inline,
            kernel_args,
            kernel_arrays,
            deadline: None,
        },
        verify,
        instrument,
        repair: RepairOptions {
            strategy,
            max_verifier_calls: config.repair.max_verifier_calls,
            global_search_calls: config.repair.global_search_calls,
            deadline: None,
        },
    };
    opts.set_deadline(deadline);
    Ok((text, encoding, opts))
}

/// The GPUVerify options given that concern its internal stages (accepted and ignored).
fn ignored_flags(c: &CommonArgs) -> Vec<String> {
    let mut v: Vec<String> = vec![];
    for (on, name) in [
        (c.debug, "--debug"),
        (c.infer_info, "--infer-info"),
        (c.staged_inference, "--staged-inference"),
        (c.keep_temps, "--keep-temps"),
        (c.gen_smt2, "--gen-smt2"),
        (c.math_int, "--math-int"),
        (c.stop_at_opt, "--stop-at-opt"),
        (c.stop_at_gbpl, "--stop-at-gbpl"),
        (c.stop_at_bpl, "--stop-at-bpl"),
        (c.stop_at_cbpl, "--stop-at-cbpl"),
        (c.verbose, "--verbose"),
    ] {
        if on {
            v.push(name.to_string());
        }
    }
    for (vals, name) in [
        (&c.cruncher_opt, "--cruncher-opt"),
        (&c.boogie_opt, "--boogie-opt"),
        (&c.bugle_opt, "--bugle-opt"),
        (&c.opt_opt, "--opt-opt"),
        (&c.omit_infer, "--omit-infer"),
    ] {
        v.extend(vals.iter().map(|x| format!("{name}={x}")));
    }
    if let Some(k) = c.k_induction_depth {
        v.push(format!("--k-induction-depth={k}"));
    }
    for (val, name) in [
        (&c.race_instrumenter, "--race-instrumenter"),
        (&c.solver, "--solver"),
        (&c.time_as_csv, "--time-as-csv"),
    ] {
        if let Some(x) = val {
            v.push(format!("{name}={x}"));
        }
    }
    if let Some(p) = c.pointer_bitwidth {
        v.push(format!("--pointer-bitwidth={p}"));
    }
    v
}

/// The language a file's extension names: `.cl` OpenCL, `.cu`/`.cuh` CUDA; another extension
/// is an error that asks for `--cuda` or `--opencl`.
fn syncfix_language(p: &Path) -> Result<Language, String> {
    match p.extension().and_then(|e| e.to_str()) {
        Some("cl") => Ok(Language::OpenCl),
        Some("cu" | "cuh") => Ok(Language::Cuda),
        ext => Err(format!(
            "{}: cannot tell the kernel's language from {}: give --cuda or --opencl (or name the file .cu or .cl)",
            p.display(),
            ext.map_or("a name without an extension".to_string(), |e| format!("the extension `.{e}`"))
        )),
    }
}

/// `file:line:col: error: what` and the source line (or `file: error: what` without a
/// location in the user's file).
fn located_error(file: &Path, loc: Option<syncfix::Loc>, what: &str) -> String {
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match loc {
        Some(l) if l.file == syncfix::FileId::MAIN && l.line > 0 => {
            let mut s = format!("{name}:{}:{}: error: {what}\n", l.line, l.col);
            let text = std::fs::read_to_string(file).unwrap_or_default();
            if let Some(line) = text.lines().nth(l.line as usize - 1) {
                s.push_str(&format!("  {}\n", line.trim_start()));
            }
            s
        }
        _ => format!("{name}: error: {what}\n"),
    }
}

/// A front-end or encoding error as the failure to report (not for [`FrontendError::Timeout`],
/// which is a verdict).
fn error_failure(e: &syncfix::Error, file: &Path) -> Failure {
    let f = |code: u8, stage: &'static str, text: String| Failure { code, stage, text };
    match e {
        syncfix::Error::Frontend(FrontendError::Clang(msg)) => f(exit::CLANG_ERROR, "clang", msg.clone()),
        syncfix::Error::Frontend(FrontendError::Tool(msg)) => f(exit::CLANG_ERROR, "clang", format!("syncfix: error: {msg}")),
        syncfix::Error::Frontend(FrontendError::Internal(msg)) => f(
            exit::INTERNAL_ERROR,
            "internal",
            format!("syncfix: internal error: {msg}\nsyncfix: this is a bug in syncfix; please report it with the kernel and its flags"),
        ),
        syncfix::Error::Frontend(FrontendError::Io { path, source }) => cli_error(&format!("{path}: {source}")),
        syncfix::Error::Frontend(FrontendError::Unsupported { what, loc }) => {
            f(exit::FRONTEND_ERROR, "frontend", located_error(file, *loc, &format!("unsupported construct: {what}")))
        }
        syncfix::Error::Frontend(FrontendError::Annotation { what, loc, stage }) => match stage {
            syncfix::Stage::FrontEnd => f(exit::FRONTEND_ERROR, "frontend", located_error(file, *loc, what)),
            // GPUVerifyVCGen prints its location and message without `error:`; the stage's
            // error line follows, as for its other errors.
            syncfix::Stage::VcGen => f(
                exit::VCGEN_ERROR,
                "vcgen",
                format!("{}syncfix: GPUVERIFYVCGEN_ERROR error (5)\n", located_error(file, *loc, what).replacen(": error: ", ": ", 1)),
            ),
        },
        syncfix::Error::Frontend(FrontendError::NoKernel(msg)) => f(exit::FRONTEND_ERROR, "frontend", format!("syncfix: error: {msg}")),
        syncfix::Error::Frontend(e @ FrontendError::Timeout) => f(exit::TIMEOUT, "timeout", format!("syncfix: {e}")),
        syncfix::Error::Verify { source: e @ (syncfix::VerifyError::UnknownArray(_) | syncfix::VerifyError::EqualityWithAtomics), .. } => {
            f(exit::VCGEN_ERROR, "vcgen", format!("syncfix: GPUVERIFYVCGEN_ERROR error (5): {e}"))
        }
        syncfix::Error::Verify { kernel, source } => {
            // The verifier cannot represent the kernel (an irreducible CFG): a front-end limit.
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            f(exit::FRONTEND_ERROR, "frontend", format!("{name}: error: unsupported construct in kernel `{kernel}`: {source}"))
        }
    }
}

fn print_stats(t: &syncfix::Timings) {
    eprintln!(
        "syncfix: stats: frontend {:.3}s (clang {:.3}s), encode {:.3}s, solve {:.3}s (houdini {:.3}s), verifier calls {}, solver calls {}, houdini rounds {}, barrier variables {}, repair iterations {}, clauses {}",
        t.frontend.as_secs_f64(),
        t.clang.as_secs_f64(),
        t.encode.as_secs_f64(),
        t.solve.as_secs_f64(),
        t.houdini.as_secs_f64(),
        t.verifier_calls,
        t.solver_calls,
        t.houdini_rounds,
        t.barrier_vars,
        t.repair_iterations,
        t.clauses
    );
}

const TIMEOUT_HINT: &str = "use --timeout=N with a larger N, or --timeout=0 to disable the limit";

/// Prints where `verify` prints GPUVerify's summary lines: stdout, or stderr under `--format
/// json` (whose stdout holds only the verdict).
fn say(json: bool, s: &str) {
    if json {
        eprint!("{s}");
    } else {
        print!("{s}");
    }
}

/// The verdict printed when the time limit ends a run before any kernel's verdict (the front
/// end timed out, or the watchdog fired).
fn timeout_verdict(json: bool, file: &str, started: Instant) {
    say(json, &render::trailer(render::Counts { timeouts: 1, ..Default::default() }));
    eprintln!("syncfix: verification timed out; {TIMEOUT_HINT}");
    if json {
        let stats = Stats::of(&Default::default(), started.elapsed());
        print_json(&Verdict::timeout(file, exit::TIMEOUT, "the time limit was reached", stats));
    }
}

fn cmd_verify(a: &VerifyArgs, started: Instant) -> u8 {
    let c = &a.common;
    let json = a.format == Format::Json;
    let file = c.file.display().to_string();
    let (text, _, opts) = match setup(c, None) {
        Ok(x) => x,
        Err(f) => return fail(json, &file, f, started),
    };
    if let Some(e) = c.emit {
        return emit(c, &text, &opts, e);
    }
    if let Some(d) = opts.verify.deadline {
        let file = file.clone();
        stop::watchdog(d, move || timeout_verdict(json, &file, started));
    }
    let result = syncfix::verify(&c.file, &text, &opts);
    stop::begin_output();
    let (reports, timings) = match result {
        Ok(r) => r,
        Err(syncfix::Error::Frontend(FrontendError::Timeout)) => {
            timeout_verdict(json, &file, started);
            return exit::TIMEOUT;
        }
        Err(e) => return fail(json, &file, error_failure(&e, &c.file), started),
    };
    let total = started.elapsed();
    let lang = opts.frontend.language.unwrap_or(Language::Cuda);
    for a in reports.iter().flat_map(|r| &r.assumptions) {
        eprintln!("syncfix: warning: {a}");
    }
    let mut n = render::Counts::default();
    let mut bound = None;
    for r in &reports {
        match &r.status {
            Status::Verified => n.verified += 1,
            Status::NoErrorUpTo(b) => {
                n.bounded += 1;
                bound = Some(*b)
            }
            Status::Defect => {
                n.errors += 1;
                for f in &r.findings {
                    eprint!("{}", render::finding(f, lang, &file));
                }
                // The kernel's arguments in the counterexample, as GPUVerify prints them.
                for (name, v) in &r.param_values {
                    eprintln!("{name} = {v}");
                }
                if !r.param_values.is_empty() {
                    eprintln!();
                }
            }
            Status::Unknown(why) => {
                n.inconclusive += 1;
                eprintln!("{}: warning: kernel `{}` could not be verified: {why}", file_name(&file), r.kernel);
            }
            Status::Timeout => n.timeouts += 1,
        }
    }
    let failed = n.errors > 0 || n.inconclusive > 0 || n.timeouts > 0;
    if !(c.silent && !failed) {
        say(json, &render::trailer(n));
    }
    if c.stats || c.time {
        print_stats(&timings);
    }
    let code = if n.errors > 0 || n.inconclusive > 0 {
        exit::NOT_ALL_VERIFIED
    } else if n.timeouts > 0 {
        eprintln!("syncfix: verification timed out; {TIMEOUT_HINT}");
        exit::TIMEOUT
    } else {
        match bound {
            _ if c.silent => {}
            Some(b) => say(
                json,
                &format!(
                    "No defects were found while analysing: {}\nNotes:\n- This is not a proof: loops were explored up to {b} iterations.\n- Use --loop-unwind=N with N > {b} to search for deeper bugs.\n- Re-run in verification mode to try to prove absence of defects.\n",
                    file_name(&file)
                ),
            ),
            None => say(json, &render::verified_summary(&file, lang, reports.iter().any(|r| r.inter_group))),
        }
        exit::SUCCESS
    };
    if json {
        let mut stats = Stats::of(&timings, total);
        if a.bench_clang {
            stats.clang_baseline_ms = syncfix::clang_baseline(&c.file, &text, &opts).ok().map(|d| (d.as_secs_f64() * 1e6).round() / 1e3);
        }
        print_json(&Verdict::of_reports(&file, &reports, stats, code));
    }
    code
}

fn file_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

fn emit(c: &CommonArgs, text: &str, opts: &Options, e: Emit) -> u8 {
    match syncfix::dump(&c.file, text, opts, e == Emit::Instrumented) {
        Ok(s) => {
            print!("{s}");
            exit::SUCCESS
        }
        Err(err) => fail(false, "", error_failure(&err, &c.file), Instant::now()),
    }
}

/// The path to print in the diff headers: as given when relative, else relative to the
/// current directory when possible.
fn diff_path(p: &Path) -> String {
    if p.is_relative() {
        return p.display().to_string();
    }
    if let Ok(cwd) = std::env::current_dir() {
        if let Ok(rel) = p.strip_prefix(&cwd) {
            return rel.display().to_string();
        }
    }
    p.display().to_string()
}

/// Prints findings as GPUVerify words them, on stderr.
fn print_findings(findings: &[syncfix::Finding], lang: Language, file: &str) {
    for f in findings {
        eprint!("{}", render::finding(f, lang, file));
    }
}

/// Runs `repair` or `audit` (`what`, the function `f`) under the deadline's watchdog and prints
/// what every outcome shares (the front end's assumptions, `--stats`). Err: the exit code of a
/// run that gave no report (timeout, an error of the front end or the verifier).
/// A `repair` or `audit` run that failed before a result: the message on stderr and, under
/// `--format json`, a `syncfix.repair/1` object of status `error` (or `timeout`) on stdout.
fn fail_repair_like(json: bool, what: &str, file: &str, f: Failure, started: Instant) -> u8 {
    if json {
        let status = if f.code == exit::TIMEOUT { "timeout" } else { "error" };
        print_json(&syncfix::verdict::RepairSummary::failure(what, file, status, &f.text, f.code, started.elapsed()));
    }
    fail(false, "", f, started)
}

fn run_repair_like(
    c: &CommonArgs,
    opts: &Options,
    text: &str,
    what: &'static str,
    json: bool,
    started: Instant,
    f: fn(&Path, &str, &Options) -> Result<syncfix::RepairReport, syncfix::Error>,
) -> Result<syncfix::RepairReport, u8> {
    if let Some(d) = opts.repair.deadline {
        stop::watchdog(d, move || eprintln!("syncfix: {what} timed out; {TIMEOUT_HINT}"));
    }
    let result = f(&c.file, text, opts);
    stop::begin_output();
    let report = match result {
        Ok(r) => r,
        Err(syncfix::Error::Frontend(FrontendError::Timeout)) => {
            let text = format!("syncfix: {what} timed out; {TIMEOUT_HINT}");
            return Err(fail_repair_like(json, what, &c.file.display().to_string(), Failure { code: exit::TIMEOUT, stage: "timeout", text }, started));
        }
        Err(e) => return Err(fail_repair_like(json, what, &c.file.display().to_string(), error_failure(&e, &c.file), started)),
    };
    for a in &report.assumptions {
        eprintln!("syncfix: warning: {a}");
    }
    if c.stats {
        print_stats(&report.timings);
    }
    Ok(report)
}

fn cmd_audit(a: &AuditArgs, started: Instant) -> u8 {
    let c = &a.common;
    let (text, encoding, mut opts) = match setup(c, None) {
        Ok(x) => x,
        Err(f) => return fail_repair_like(a.format == Format::Json, "audit", &c.file.display().to_string(), f, started),
    };
    if let Some(w) = a.loop_depth_weight {
        opts.instrument.loop_depth_weight = w;
    }
    if let Some(w) = a.grid_barrier_weight {
        opts.instrument.grid_barrier_weight = w;
    }
    let report = match run_repair_like(c, &opts, &text, "audit", a.format == Format::Json, started, syncfix::audit) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let lang = opts.frontend.language.unwrap_or(Language::Cuda);
    let file = c.file.display().to_string();
    let bound = |n: Option<u32>| n.map(|n| format!(" up to {n} loop iterations (not a proof)")).unwrap_or_default();
    let json = a.format == Format::Json;
    let mut patch: Option<String> = None;
    let code = 'out: {
        match &report.status {
            RepairStatus::NoChange => {
                eprintln!(
                "syncfix: {}: no barrier can be removed: the kernel needs each one the audit may remove{} (barriers that carry \
                 barrier invariants, and warp and tile barriers, are kept as written)",
                file_name(&file),
                bound(report.bounded)
            );
                exit::SUCCESS
            }
            RepairStatus::Repaired => {
                let Some(patched) = &report.patched else {
                    break 'out exit::REPAIR_ERROR;
                };
                let diff = syncfix::unified_diff(&text, patched, &diff_path(&c.file));
                if json {
                    patch = Some(diff);
                } else {
                    print_patch(&diff, encoding);
                }
                for r in &report.removals {
                    eprintln!(
                        "syncfix: {}:{}: `{}` is not needed: the kernel verifies without it{}",
                        file_name(&file),
                        r.line,
                        r.text,
                        if report.bounded.is_some() { " (within the loop bound)" } else { "" }
                    );
                }
                eprintln!(
                    "syncfix: {}: {} barrier{} can be removed; the patched kernel {}",
                    file_name(&file),
                    report.removed,
                    if report.removed == 1 { "" } else { "s" },
                    match report.bounded {
                        Some(n) => format!("has no error up to {n} loop iterations (not a proof)"),
                        None => "verifies".into(),
                    }
                );
                exit::SUCCESS
            }
            RepairStatus::NotVerified => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: {}: the kernel does not verify, so its barriers are not audited; `syncfix repair` fixes it", file_name(&file));
                exit::NOT_ALL_VERIFIED
            }
            RepairStatus::Unknown(reason) => {
                eprintln!("syncfix: {}: no audit: {reason}", file_name(&file));
                exit::NOT_ALL_VERIFIED
            }
            RepairStatus::Timeout => {
                eprintln!("syncfix: audit timed out; {TIMEOUT_HINT}");
                exit::TIMEOUT
            }
            RepairStatus::NotReverified(why) => {
                eprintln!("syncfix: internal error: the audit's patch did not re-verify, so it is not printed: {why}");
                exit::REPAIR_ERROR
            }
            RepairStatus::AssertionFailure | RepairStatus::OtherError | RepairStatus::Unrepairable(_) => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: {}: the kernel does not verify; `syncfix repair` fixes it", file_name(&file));
                exit::NOT_ALL_VERIFIED
            }
        }
    };
    if json {
        print_json(&syncfix::verdict::RepairSummary::of("audit", &file, &report, patch, code, started.elapsed()));
    }
    code
}
fn cmd_repair(a: &RepairArgs, started: Instant) -> u8 {
    let c = &a.common;
    let json = a.format == Format::Json;
    let (text, encoding, opts) = match setup(c, Some(a)) {
        Ok(x) => x,
        Err(f) => return fail_repair_like(json, "repair", &c.file.display().to_string(), f, started),
    };
    if let Some(e) = c.emit {
        return emit(c, &text, &opts, e);
    }
    let report = match run_repair_like(c, &opts, &text, "repair", json, started, syncfix::repair) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let lang = opts.frontend.language.unwrap_or(Language::Cuda);
    let file = c.file.display().to_string();
    let mut patch: Option<String> = None;
    let code = 'out: {
        match &report.status {
            RepairStatus::NoChange => {
                match report.bounded {
                    Some(n) => eprintln!(
                        "syncfix: {}: no change: no error found up to {n} loop iterations (not a proof)",
                        file_name(&file)
                    ),
                    None => eprintln!(
                        "syncfix: {}: no change needed: the kernel verifies (`syncfix audit` finds the barriers it does not need)",
                        file_name(&file)
                    ),
                }
                exit::SUCCESS
            }
            RepairStatus::NotVerified => exit::NOT_ALL_VERIFIED,
            RepairStatus::Repaired => {
                let (Some(fix), Some(patched)) = (&report.fix, &report.patched) else {
                    break 'out exit::REPAIR_ERROR;
                };
                let diff = syncfix::unified_diff(&text, patched, &diff_path(&c.file));
                if json {
                    patch = Some(diff);
                } else {
                    print_patch(&diff, encoding);
                }
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                let proof = match report.bounded {
                    Some(n) => format!("no error found in the patched kernel up to {n} loop iterations (not a proof)"),
                    None => "the patched kernel verifies".into(),
                };
                let upgraded = if report.upgraded > 0 {
                    format!(", strengthened the fences of {}", report.upgraded)
                } else {
                    String::new()
                };
                eprintln!(
                    "syncfix: {}: inserted {} barrier{}, removed {}{upgraded}; {proof}",
                    file_name(&file),
                    report.inserted,
                    plural(report.inserted),
                    report.removed
                );
                for n in &fix.notes {
                    eprintln!("syncfix: note: {n}");
                }
                if a.apply && !a.unsafe_fixes {
                    if let Some(why) = report.unsafe_reason() {
                        eprintln!("syncfix: {} not rewritten: the fix is not safe: {why}; add --unsafe-fixes to apply it", c.file.display());
                        break 'out exit::SUCCESS;
                    }
                }
                if a.apply {
                    let (old, new) = (syncfix::encode_source(&text, encoding), syncfix::encode_source(patched, encoding));
                    if let Err(e) = syncfix::apply_to_file(&c.file, &old, &new) {
                        eprintln!("syncfix: error: cannot write {}: {e}", c.file.display());
                        break 'out exit::REPAIR_ERROR;
                    }
                    eprintln!("syncfix: {} rewritten", c.file.display());
                }
                exit::SUCCESS
            }
            RepairStatus::AssertionFailure => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: error: an assertion fails even with a barrier at every candidate site (statement boundaries, loop heads, branches, calls); no barrier placement syncfix considers repairs it");
                exit::ASSERTION_FAILURE
            }
            RepairStatus::OtherError => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: error: the kernel has a defect that barriers cannot repair");
                exit::REPAIR_ERROR
            }
            RepairStatus::Unrepairable(reason) => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: error: the kernel cannot be repaired: {reason}");
                exit::UNREPAIRABLE
            }
            RepairStatus::Unknown(reason) => {
                eprintln!("syncfix: {}: no repair found: {reason}", file_name(&file));
                exit::NOT_ALL_VERIFIED
            }
            RepairStatus::Timeout => {
                eprintln!("syncfix: repair timed out; {TIMEOUT_HINT}");
                exit::TIMEOUT
            }
            RepairStatus::NotReverified(why) => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: internal error: the repair did not re-verify, so it is not printed: {why}");
                exit::REPAIR_ERROR
            }
        }
    };
    if json {
        print_json(&syncfix::verdict::RepairSummary::of("repair", &file, &report, patch, code, started.elapsed()));
    }
    code
}
