//! `syncfix`: repair, verify and test the synchronisation of CUDA and OpenCL kernels.
//!
//! Flags and exit codes follow GPUVerify (launch, abstraction, loop flags; 0 success, 1
//! command line, 2 clang, 4 front end, 6 not all verified / unknown, 7 timeout) and GPURepair
//! (repair flags; 201 assertion failure, 202 cannot be repaired, 203 other error).

mod launch;
mod render;
mod suite;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use syncfix::{
    Annotations, Config, ForceAbstraction, FrontendError, FrontendOptions, InstrumentConfig, Language, Limits, Options,
    RepairOptions, RepairStatus, Status, Strategy, VerifyOptions,
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
    /// Run a GPUVerify-style test tree (NAME/kernel.cu with //pass or //xfail:CODE headers).
    Suite(suite::SuiteArgs),
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
    /// Accepted for GPUVerify compatibility: syncfix always inlines device functions.
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
    #[arg(long = "no-barrier-access-checks", hide = true)]
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
}

#[derive(Args, Debug)]
struct RepairArgs {
    #[command(flatten)]
    common: CommonArgs,
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
    /// Rewrite FILE with the repair (atomically) instead of only printing the diff.
    #[arg(long)]
    apply: bool,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => exit::SUCCESS,
                _ => exit::COMMAND_LINE_ERROR,
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // A panic is a bug in syncfix: say so plainly instead of printing a Rust backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = syncfix::panic_message(info).unwrap_or_default();
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("syncfix: internal error: {msg}{at}; please report it with the kernel and its flags");
    }));
    let on_panic = match &cli.command {
        Command::Repair(_) => exit::REPAIR_ERROR,
        Command::Verify(_) | Command::Suite(_) => exit::INTERNAL_ERROR,
    };
    let result = std::panic::catch_unwind(|| match cli.command {
        Command::Verify(a) => cmd_verify(&a),
        Command::Repair(a) => cmd_repair(&a),
        Command::Suite(a) => suite::run(&a),
    });
    ExitCode::from(result.unwrap_or(on_panic))
}

fn cli_error(msg: &str) -> u8 {
    eprintln!("syncfix: COMMAND_LINE_ERROR error (1): {msg}");
    exit::COMMAND_LINE_ERROR
}

/// Reads the file and builds the options; `Err` is an exit code after a message.
fn setup(c: &CommonArgs, repair: Option<&RepairArgs>) -> Result<(String, Options), u8> {
    let text = match std::fs::read(&c.file) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => t,
            Err(_) => return Err(cli_error(&format!("{}: not a text file", c.file.display()))),
        },
        Err(e) => return Err(cli_error(&format!("{}: {e}", c.file.display()))),
    };
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
        syncfix_language(&c.file)
    };
    let mut launch = launch::launch(c.block_dim.as_deref(), c.grid_dim.as_deref(), c.global_size.as_deref(), language == Language::OpenCl)
        .map_err(|m| cli_error(&m))?;
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
            max_unwind_unbounded: config.verifier.max_unwind_unbounded,
            max_instructions: config.verifier.max_instructions,
        },
        timeout: (timeout_s > 0).then(|| Duration::from_secs(timeout_s)),
        deadline,
        race_checks: !(c.only_divergence || c.only_log),
        asymmetric_asserts: c.asymmetric_asserts,
        warp_size: c.warp_sync,
        array_bounds: c.check_array_bounds,
        check_arrays,
    };
    let mut instrument = InstrumentConfig {
        loop_depth_weight: config.repair.loop_depth_weight,
        grid_barrier_weight: config.repair.grid_barrier_weight,
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
        if r.maxsat {
            strategy = Strategy::MaxSat;
        } else if r.mhs {
            strategy = Strategy::Mhs;
        }
    }
    let opts = Options {
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
            kernel_args,
            kernel_arrays,
            deadline,
        },
        verify,
        instrument,
        repair: RepairOptions { strategy, max_verifier_calls: config.repair.max_verifier_calls, deadline },
    };
    Ok((text, opts))
}

/// The GPUVerify options given that concern its internal stages (accepted and ignored).
fn ignored_flags(c: &CommonArgs) -> Vec<String> {
    let mut v: Vec<String> = vec![];
    for (on, name) in [
        (c.debug, "--debug"),
        (c.infer_info, "--infer-info"),
        (c.no_infer, "--no-infer"),
        (c.staged_inference, "--staged-inference"),
        (c.no_barrier_access_checks, "--no-barrier-access-checks"),
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

fn syncfix_language(p: &Path) -> Language {
    match p.extension().and_then(|e| e.to_str()) {
        Some("cl") => Language::OpenCl,
        _ => Language::Cuda,
    }
}

/// Prints `file:line:col: error: what` and the source line (or `file: error: what` without
/// a location in the user's file).
fn located_error(file: &Path, loc: Option<syncfix::Loc>, what: &str) {
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match loc {
        Some(l) if l.file == syncfix::FileId::MAIN && l.line > 0 => {
            eprintln!("{name}:{}:{}: error: {what}", l.line, l.col);
            let text = std::fs::read_to_string(file).unwrap_or_default();
            if let Some(line) = text.lines().nth(l.line as usize - 1) {
                eprintln!("  {}", line.trim_start());
            }
        }
        _ => eprintln!("{name}: error: {what}"),
    }
}

/// Prints a front-end or encoding error and returns its exit code.
fn report_error(e: &syncfix::Error, file: &Path) -> u8 {
    match e {
        syncfix::Error::Frontend(FrontendError::Clang(msg)) => {
            eprint!("{msg}");
            if !msg.ends_with('\n') {
                eprintln!();
            }
            exit::CLANG_ERROR
        }
        syncfix::Error::Frontend(FrontendError::Tool(msg)) => {
            eprintln!("syncfix: error: {msg}");
            exit::CLANG_ERROR
        }
        syncfix::Error::Frontend(FrontendError::Io { path, source }) => cli_error(&format!("{path}: {source}")),
        syncfix::Error::Frontend(FrontendError::Unsupported { what, loc }) => {
            located_error(file, *loc, &format!("unsupported construct: {what}"));
            exit::FRONTEND_ERROR
        }
        syncfix::Error::Frontend(FrontendError::Annotation { what, loc, stage }) => {
            located_error(file, *loc, what);
            match stage {
                syncfix::Stage::FrontEnd => exit::FRONTEND_ERROR,
                syncfix::Stage::VcGen => exit::VCGEN_ERROR,
            }
        }
        syncfix::Error::Frontend(FrontendError::Timeout) => {
            eprintln!("syncfix: the time limit was reached in the front end; use --timeout=N with a larger N, or --timeout=0 to disable the limit");
            exit::TIMEOUT
        }
        syncfix::Error::Frontend(FrontendError::NoKernel(msg)) => {
            eprintln!("syncfix: error: {msg}");
            exit::FRONTEND_ERROR
        }
        syncfix::Error::Verify { source: e @ (syncfix::VerifyError::UnknownArray(_) | syncfix::VerifyError::EqualityWithAtomics), .. } => {
            eprintln!("syncfix: GPUVERIFYVCGEN_ERROR error (5): {e}");
            exit::VCGEN_ERROR
        }
        syncfix::Error::Verify { kernel, source } => {
            // The verifier cannot represent the kernel (an irreducible CFG): a front-end limit.
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            eprintln!("{name}: error: unsupported construct in kernel `{kernel}`: {source}");
            exit::FRONTEND_ERROR
        }
    }
}

fn print_stats(t: &syncfix::Timings) {
    eprintln!(
        "syncfix: stats: frontend {:.3}s, encode {:.3}s, solve {:.3}s, verifier calls {}, barrier variables {}, repair iterations {}, clauses {}",
        t.frontend.as_secs_f64(),
        t.encode.as_secs_f64(),
        t.solve.as_secs_f64(),
        t.verifier_calls,
        t.barrier_vars,
        t.repair_iterations,
        t.clauses
    );
}

fn cmd_verify(a: &VerifyArgs) -> u8 {
    let c = &a.common;
    let (text, opts) = match setup(c, None) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Some(e) = c.emit {
        return emit(c, &text, &opts, e);
    }
    let (reports, timings) = match syncfix::verify(&c.file, &text, &opts) {
        Ok(r) => r,
        Err(e) => return report_error(&e, &c.file),
    };
    let lang = opts.frontend.language.unwrap_or(Language::Cuda);
    let file = c.file.display().to_string();
    for a in reports.iter().flat_map(|r| &r.assumptions) {
        eprintln!("syncfix: warning: {a}");
    }
    let (mut verified, mut errors, mut inconclusive, mut timeouts, mut bounded) = (0, 0, 0, 0, None);
    for r in &reports {
        match &r.status {
            Status::Verified => verified += 1,
            Status::NoErrorUpTo(n) => {
                verified += 1;
                bounded = Some(*n)
            }
            Status::Defect => {
                errors += 1;
                for f in &r.findings {
                    eprint!("{}", render::finding(f, lang, &file));
                }
            }
            Status::Unknown(why) => {
                inconclusive += 1;
                eprintln!("{}: warning: kernel `{}` could not be verified: {why}", file_name(&file), r.kernel);
            }
            Status::Timeout => timeouts += 1,
        }
    }
    if !(c.silent && errors == 0 && inconclusive == 0 && timeouts == 0) {
        print!("{}", render::trailer(verified, errors, inconclusive, timeouts));
    }
    if c.stats || c.time {
        print_stats(&timings);
    }
    if errors > 0 || inconclusive > 0 {
        return exit::NOT_ALL_VERIFIED;
    }
    if timeouts > 0 {
        eprintln!("syncfix: verification timed out; use --timeout=N with a larger N, or --timeout=0 to disable the limit");
        return exit::TIMEOUT;
    }
    match bounded {
        _ if c.silent => {}
        Some(n) => println!(
            "No defects were found while analysing: {}\nNotes:\n- Use --loop-unwind=N with N > {n} to search for deeper bugs.\n- Re-run in verification mode to try to prove absence of defects.",
            file_name(&file)
        ),
        None => print!("{}", render::verified_summary(&file, lang, reports.iter().any(|r| r.inter_group))),
    }
    exit::SUCCESS
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
        Err(err) => report_error(&err, &c.file),
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

fn cmd_repair(a: &RepairArgs) -> u8 {
    let c = &a.common;
    let (text, opts) = match setup(c, Some(a)) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Some(e) = c.emit {
        return emit(c, &text, &opts, e);
    }
    let report = match syncfix::repair(&c.file, &text, &opts) {
        Ok(r) => r,
        Err(e) => return report_error(&e, &c.file),
    };
    let lang = opts.frontend.language.unwrap_or(Language::Cuda);
    let file = c.file.display().to_string();
    for a in &report.assumptions {
        eprintln!("syncfix: warning: {a}");
    }
    if c.stats {
        print_stats(&report.timings);
    }
    match &report.status {
        RepairStatus::NoChange => {
            eprintln!("syncfix: {}: no change needed: the kernel verifies and every barrier is needed", file_name(&file));
            exit::SUCCESS
        }
        RepairStatus::Repaired => {
            let (Some(fix), Some(patched)) = (&report.fix, &report.patched) else {
                return exit::REPAIR_ERROR;
            };
            print!("{}", syncfix::unified_diff(&text, patched, &diff_path(&c.file)));
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            eprintln!(
                "syncfix: {}: inserted {} barrier{}, removed {}; the patched kernel verifies",
                file_name(&file),
                report.inserted,
                plural(report.inserted),
                report.removed
            );
            for n in &fix.notes {
                eprintln!("syncfix: note: {n}");
            }
            if a.apply {
                if let Err(e) = syncfix::write_atomically(&c.file, patched) {
                    eprintln!("syncfix: error: cannot write {}: {e}", c.file.display());
                    return exit::REPAIR_ERROR;
                }
                eprintln!("syncfix: {} rewritten", c.file.display());
            }
            exit::SUCCESS
        }
        RepairStatus::AssertionFailure => {
            for f in &report.findings {
                eprint!("{}", render::finding(f, lang, &file));
            }
            eprintln!("syncfix: error: an assertion fails; barriers cannot repair it");
            exit::ASSERTION_FAILURE
        }
        RepairStatus::OtherError => {
            for f in &report.findings {
                eprint!("{}", render::finding(f, lang, &file));
            }
            eprintln!("syncfix: error: the kernel has a defect that barriers cannot repair");
            exit::REPAIR_ERROR
        }
        RepairStatus::Unrepairable(reason) => {
            for f in &report.findings {
                eprint!("{}", render::finding(f, lang, &file));
            }
            eprintln!("syncfix: error: the kernel cannot be repaired: {reason}");
            exit::UNREPAIRABLE
        }
        RepairStatus::Unknown(reason) => {
            eprintln!("syncfix: {}: no repair found: {reason}", file_name(&file));
            exit::NOT_ALL_VERIFIED
        }
        RepairStatus::Timeout => {
            eprintln!("syncfix: repair timed out; use --timeout=N with a larger N, or --timeout=0 to disable the limit");
            exit::TIMEOUT
        }
        RepairStatus::NotReverified(why) => {
            for f in &report.findings {
                eprint!("{}", render::finding(f, lang, &file));
            }
            eprintln!("syncfix: internal error: the repair did not re-verify, so it is not printed: {why}");
            exit::REPAIR_ERROR
        }
    }
}
