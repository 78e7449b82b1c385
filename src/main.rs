//! `syncfix`: repair, verify and test the synchronisation of CUDA and OpenCL kernels.
//!
//! Flags and exit codes follow GPUVerify (launch, abstraction, loop flags; 0 success, 1
//! command line, 2 clang, 4 front end, 6 not all verified / unknown, 7 timeout) and GPURepair
//! (repair flags; 201 assertion failure, 202 cannot be repaired, 203 other error).

mod args;
mod bench;
mod commands;
mod fork;
mod launch;
mod lsp;
mod output;
mod render;
mod runner;
mod setup;
mod stop;
mod suite;

use args::{AuditArgs, Format, RepairArgs, ReplayArgs, VerifyArgs};
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Instant;
pub use syncfix::exit;
use syncfix::ErrorReport;

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
    /// Verify FILE and replay each race or divergence on concrete threads (as `verify` does);
    /// `--emit-harness FILE` writes a CUDA program that launches the kernel with the replay's
    /// inputs, to watch the race on a GPU under compute-sanitizer.
    Replay(ReplayArgs),
    /// On a kernel that verifies, print a unified diff removing the barriers it does not need
    /// (the minimum-weight subset of its barriers that keeps it verified, re-verified).
    Audit(AuditArgs),
    /// Run a GPUVerify-style test tree (NAME/kernel.cu with //pass or //xfail:CODE headers)
    /// in parallel and score the verdicts against the expected defect kinds.
    Suite(suite::SuiteArgs),
    /// Time every kernel of a GPUVerify-style tree per stage, beside a plain clang-19 compile.
    Bench(bench::BenchArgs),
    /// A language server over stdio: diagnostics on open and save of .cu/.cl files, quick
    /// fixes that insert (repair) or remove (audit) barriers.
    Lsp,
}

/// The message of the last panic, for the JSON verdict of an internal error.
static PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// glibc's allocator, told to keep the memory it frees: the verifier solves each query in a
/// Z3 context of its own (syncfix-verify's `apart`), whose tables of a few MB glibc would
/// otherwise get from `mmap` and give back on every call, each time faulting in fresh zeroed
/// pages (the `intervals` scaling family at n = 640: 8.8 s, 7 s of it in the kernel's page
/// faults, against 3.2 s).
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets the allocator's parameters; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

/// The command line this process runs: its own, or in a child of the fork server
/// (`fork`) the one the server was given.
static COMMAND_LINE: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

/// This process's command line, the program's name first (see [`COMMAND_LINE`]).
pub fn command_line() -> &'static [String] {
    COMMAND_LINE.get_or_init(|| std::env::args().collect())
}

fn main() -> ExitCode {
    tune_allocator();
    // `syncfix __fork-server` serves `syncfix suite` until its input ends; its children
    // return here with their own command lines.
    let argv: Vec<std::ffi::OsString> = fork::serve_if_asked().unwrap_or_else(|| std::env::args_os().collect());
    let _ = COMMAND_LINE.set(argv.iter().map(|a| a.to_string_lossy().into_owned()).collect());
    let started = Instant::now();
    stop::install_signal_handlers();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(c) => c,
        Err(e) => {
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => exit::SUCCESS,
                _ => exit::COMMAND_LINE_ERROR,
            };
            if let (true, Some((command, format))) = (code != exit::SUCCESS, format_requested()) {
                // The file, as far as it can be told: the last argument that is not a flag.
                let file = command_line()
                    .iter()
                    .skip(2)
                    .rfind(|a| !a.starts_with('-') && *a != "json" && *a != "sarif")
                    .cloned()
                    .unwrap_or_default();
                let f = ErrorReport {
                    exit_code: code,
                    stage: syncfix::ErrorStage::CommandLine,
                    message: format!("syncfix: {e}"),
                    line: None,
                    column: None,
                };
                if command == "verify" {
                    return ExitCode::from(output::fail(format, &file, f, started));
                }
                return ExitCode::from(output::fail_repair_like(format, command, &file, f, started));
            }
            // clap's message (`error: ...`, the usage) under the prefix of every message.
            if code == exit::SUCCESS {
                let _ = e.print();
            } else {
                eprint!("syncfix: {e}");
            }
            return ExitCode::from(code);
        }
    };
    // A panic is a bug in syncfix: say so plainly instead of printing a Rust backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = syncfix::panic_message(info).unwrap_or_default();
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let text = format!("syncfix: error: internal error: {msg}{at}; please report it with the kernel and its flags");
        eprintln!("{text}");
        *PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
    }));
    let mut cli = cli;
    let common = match &mut cli.command {
        Command::Verify(a) => Some(&mut a.common),
        Command::Replay(a) => Some(&mut a.verify.common),
        Command::Repair(a) => Some(&mut a.common),
        Command::Audit(a) => Some(&mut a.common),
        _ => None,
    };
    if let Some(c) = common {
        if let Err(e) = read_stdin(c) {
            eprintln!("syncfix: error: {e}");
            return ExitCode::from(exit::COMMAND_LINE_ERROR);
        }
    }
    match &cli.command {
        Command::Verify(a) => render::set_color(a.common.color),
        Command::Replay(a) => render::set_color(a.verify.common.color),
        Command::Repair(a) => render::set_color(a.common.color),
        Command::Audit(a) => render::set_color(a.common.color),
        _ => {}
    }
    let (on_panic, format, file, command) = match &cli.command {
        Command::Repair(a) => (exit::REPAIR_ERROR, a.format, a.common.file.display().to_string(), "repair"),
        Command::Audit(a) => (exit::REPAIR_ERROR, a.format, a.common.file.display().to_string(), "audit"),
        Command::Verify(a) => (exit::INTERNAL_ERROR, a.format, a.common.file.display().to_string(), "verify"),
        Command::Replay(a) => (exit::INTERNAL_ERROR, a.verify.format, a.verify.common.file.display().to_string(), "verify"),
        Command::Suite(_) | Command::Bench(_) | Command::Lsp => (exit::INTERNAL_ERROR, Format::Text, String::new(), "suite"),
    };
    let result = std::panic::catch_unwind(|| match cli.command {
        Command::Verify(a) => commands::verify::run(&a, started),
        Command::Replay(a) => commands::verify::run_with(&a.verify, started, a.emit_harness.as_deref()),
        Command::Repair(a) => commands::repair::repair(&a, started),
        Command::Audit(a) => commands::repair::audit(&a, started),
        Command::Suite(a) => suite::run(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Lsp => lsp::run(),
    });
    let code = match result {
        Ok(code) => code,
        Err(_) if format != Format::Text => {
            let message = PANIC.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
            let elapsed = started.elapsed();
            if command == "verify" {
                let stats = syncfix::Stats::default().with_total(elapsed);
                output::print_verdict(format, &syncfix::verdict::Verdict::error(&file, "internal", on_panic, &message, stats));
            } else {
                output::print_repair(
                    format,
                    &syncfix::verdict::RepairSummary::failure(command, &file, syncfix::Status::Error, &message, on_panic, elapsed),
                );
            }
            on_panic
        }
        Err(_) => on_panic,
    };
    // A Z3 context may still be being deleted on the verifier's reaper thread
    // (`syncfix_verify`'s calls apart): end without running static destructors, Z3's among
    // them, under it.
    stop::exit_now(code)
}

/// The command (`verify`, `repair` or `audit`) whose command line asks for a machine format
/// (`--format json`, `--format=sarif`...), and that format.
fn format_requested() -> Option<(&'static str, Format)> {
    let args = command_line();
    let command = ["verify", "repair", "audit"].into_iter().find(|c| args.get(1).is_some_and(|a| a == c))?;
    let value = args.iter().enumerate().find_map(|(i, a)| match a.strip_prefix("--format=") {
        Some(v) => Some(v.to_string()),
        None => (a == "--format").then(|| args.get(i + 1).cloned()).flatten(),
    })?;
    match value.as_str() {
        "json" => Some((command, Format::Json)),
        "sarif" => Some((command, Format::Sarif)),
        _ => None,
    }
}

/// With `-` as the file, reads the kernel from standard input and names it by
/// `--stdin-filename` (default `stdin.cu`, `stdin.cl` with `--opencl`).
///
/// Errors: standard input cannot be read.
fn read_stdin(c: &mut args::CommonArgs) -> Result<(), String> {
    if c.file.as_os_str() != "-" {
        return Ok(());
    }
    let mut bytes = vec![];
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
        .map_err(|e| format!("cannot read the kernel from standard input: {e}"))?;
    c.stdin_text = Some(bytes);
    c.file = c.stdin_filename.clone().unwrap_or_else(|| if c.opencl { "stdin.cl".into() } else { "stdin.cu".into() });
    Ok(())
}
