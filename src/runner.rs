//! Runs every kernel of a GPUVerify-layout tree (`NAME/kernel.cu` or `kernel.cl`, line 1
//! `//pass` or `//xfail:CODE`, line 2 the flags, then `//<regex>` lines), each as its own
//! `syncfix verify --format json` process from the kernel's folder (`${KERNEL_DIR}` in the
//! flags is that folder), N at a time: shared by `syncfix suite` (whose processes are forked
//! from a server that has loaded syncfix once: `fork`) and `syncfix bench` (exec'd).
//!
//! Each process gets `--timeout=T` and is ended at T + 3 s if it has not ended itself (its
//! verdict is then `timeout`). On a terminal a progress bar shows the run and the lines the
//! caller marks as notable appear above it; otherwise every kernel gets one plain line.

use indicatif::{ProgressBar, ProgressStyle};
use regex::Regex;
use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use syncfix::process::RunError;
use syncfix::testsuite::{parse_header, Header};
use syncfix::verdict::Verdict;
use syncfix::Stats;
use syncfix::Status;

/// A kernel to run.
#[derive(Clone, Debug)]
pub struct Job {
    pub path: PathBuf,
    /// The path relative to the tree's root, with `/` (as in `MANIFEST.tsv`).
    pub rel: String,
    pub header: Header,
}

/// How a kernel's run ended.
#[derive(Clone, Debug)]
pub struct KernelRun {
    pub job: Job,
    /// The process's verdict; made up here when it printed none (killed at the time limit:
    /// `timeout`; crashed: `error`).
    pub verdict: Verdict,
    /// Wall-clock seconds of the process.
    pub seconds: f64,
    /// The exit code is the expected one and every regular expression matches the text.
    pub regex_ok: bool,
    /// The process's stderr (GPUVerify's text).
    pub output: String,
}

impl KernelRun {
    pub fn exit_code(&self) -> u8 {
        self.verdict.exit_code
    }

    pub fn code_ok(&self) -> bool {
        self.verdict.exit_code == self.job.header.expected
    }
}

/// The kernels under `dir` (sorted by path) whose path contains `filter`, and the number of
/// kernel files skipped for lack of a header. `Err`: nothing to run.
pub fn collect(dir: &Path, filter: Option<&str>) -> Result<(Vec<Job>, usize), String> {
    let mut paths = vec![];
    find_kernels(dir, &mut paths);
    if let Some(f) = filter {
        paths.retain(|k| k.display().to_string().contains(f));
    }
    if paths.is_empty() {
        return Err(format!("no kernel.cu or kernel.cl under {}", dir.display()));
    }
    let mut jobs = vec![];
    let mut skipped = 0;
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        match parse_header(&text) {
            Some(header) => {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap_or(&path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                jobs.push(Job { path, rel, header });
            }
            None => {
                skipped += 1;
                eprintln!("skip {} (no //pass or //xfail header)", path.display());
            }
        }
    }
    Ok((jobs, skipped))
}

fn find_kernels(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            find_kernels(&p, out);
        } else if matches!(p.file_name().and_then(|n| n.to_str()), Some("kernel.cu") | Some("kernel.cl")) {
            out.push(p);
        }
    }
}

/// How to run the kernels.
pub struct Plan {
    pub jobs: usize,
    /// Seconds per kernel (0: no limit).
    pub timeout: u64,
    /// More `verify` flags (before the kernel's own).
    pub extra: Vec<String>,
    /// Each kernel forked from a fork server (`fork`) rather than exec'd: its process does not
    /// pay for loading syncfix again.
    pub fork: bool,
}

/// The default number of parallel jobs: the number of cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)
}

/// `--solver-threads=N` for each of `jobs` parallel runs: the cores shared among them (at
/// least one each), so that the runs do not compete for the cores that each one's solver
/// threads would take.
pub fn solver_threads_flag(jobs: usize) -> String {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    format!("--solver-threads={}", (cores / jobs.max(1)).max(1))
}

/// Runs `jobs` and returns their runs in the order given. `line` describes a finished run:
/// its line, and whether it is notable (shown above the progress bar on a terminal; every
/// line is shown otherwise).
pub fn run_all(jobs: Vec<Job>, plan: &Plan, line: impl Fn(&KernelRun) -> (String, bool)) -> Result<Vec<KernelRun>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find my own executable: {e}"))?;
    let total = jobs.len();
    let queue = Arc::new(Mutex::new(jobs.into_iter().enumerate().collect::<VecDeque<_>>()));
    let (tx, rx) = mpsc::channel::<(usize, KernelRun)>();
    let mut workers = vec![];
    for _ in 0..plan.jobs.max(1).min(total.max(1)) {
        let (queue, tx, exe) = (queue.clone(), tx.clone(), exe.clone());
        let (timeout, extra, fork) = (plan.timeout, plan.extra.clone(), plan.fork);
        workers.push(std::thread::spawn(move || {
            let mut server = None;
            let mut server_failed = !fork;
            loop {
                let next = queue.lock().ok().and_then(|mut q| q.pop_front());
                let Some((i, job)) = next else { break };
                if server.is_none() && !server_failed {
                    server = crate::fork::Server::start(&exe).ok();
                    server_failed = server.is_none();
                }
                if tx.send((i, run_one(&exe, job, timeout, &extra, &mut server))).is_err() {
                    break;
                }
            }
        }));
    }
    drop(tx);
    let bar = std::io::stderr().is_terminal().then(|| {
        let pb = ProgressBar::new(total as u64);
        let style = ProgressStyle::with_template("{bar:40} {pos}/{len} [{elapsed_precise}, eta {eta}] {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        pb.set_style(style);
        pb
    });
    let mut runs: Vec<Option<KernelRun>> = vec![None; total];
    for (done, (i, run)) in rx.into_iter().enumerate() {
        let (text, notable) = line(&run);
        match &bar {
            Some(pb) => {
                if notable {
                    pb.println(&text);
                }
                pb.set_message(run.job.rel.clone());
                pb.inc(1);
            }
            None => eprintln!("[{:>w$}/{total}] {text}", done + 1, w = total.to_string().len()),
        }
        runs[i] = Some(run);
    }
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }
    for w in workers {
        let _ = w.join();
    }
    Ok(runs.into_iter().flatten().collect())
}

/// Runs `job` (on `server` when there is one; a server that fails is dropped, and the kernel
/// exec'd instead).
fn run_one(exe: &Path, job: Job, timeout: u64, extra: &[String], server: &mut Option<crate::fork::Server>) -> KernelRun {
    let dir = job.path.parent().unwrap_or(Path::new("."));
    let dir_abs = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let file = job.path.file_name().map(PathBuf::from).unwrap_or_default();
    let flags: Vec<String> = job.header.flags.iter().map(|f| f.replace("${KERNEL_DIR}", &dir_abs.display().to_string())).collect();
    let mut args: Vec<String> = vec!["verify".into(), "--format=json".into()];
    args.extend(extra.iter().cloned());
    args.extend(flags.iter().cloned());
    if !flags.iter().any(|f| f.starts_with("--timeout")) {
        args.push(format!("--timeout={timeout}"));
    }
    args.push(file.display().to_string());
    let start = Instant::now();
    let deadline = (timeout > 0).then(|| start + Duration::from_secs(timeout.min(syncfix::MAX_TIMEOUT_SECONDS) + 3));
    let name = job.path.display().to_string();
    let forked = match server.as_mut().map(|s| s.run(&args, &dir_abs, deadline)) {
        Some(Err(RunError::Spawn(e))) => {
            *server = None;
            crate::fork::required().then_some(Err(RunError::Spawn(e)))
        }
        None if crate::fork::required() => Some(Err(RunError::Spawn(std::io::Error::other("fork server: not running")))),
        other => other,
    };
    let ran =
        forked.unwrap_or_else(|| syncfix::process::run(Command::new(exe).args(&args).current_dir(&dir_abs), deadline).map(|(out, _)| out));
    let (verdict, output) = match ran {
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            let verdict = match serde_json::from_slice::<Verdict>(&out.stdout) {
                Ok(v) => v,
                Err(e) => {
                    // No verdict: a crash (a signal has no exit code) or a broken output.
                    let code = out.status.code().map(|c| c as u8).unwrap_or(crate::exit::INTERNAL_ERROR);
                    let tail: Vec<&str> = stderr.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect();
                    let msg = format!("no JSON verdict ({e}; {}): {}", out.status, tail.join("\n"));
                    Verdict::error(&name, "internal", code, &msg, Stats::default())
                }
            };
            (verdict, stderr)
        }
        Err(RunError::Timeout) => {
            let why = format!("ended by the runner at the time limit of {timeout} s plus 3 s");
            (Verdict::timeout(&name, crate::exit::TIMEOUT, &why, Stats::default()), String::new())
        }
        Err(RunError::Spawn(e)) => {
            (Verdict::error(&name, "internal", crate::exit::INTERNAL_ERROR, &e.to_string(), Stats::default()), String::new())
        }
        Err(RunError::Aborted) => {
            (Verdict::error(&name, "internal", crate::exit::INTERNAL_ERROR, "interrupted", Stats::default()), String::new())
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let regex_ok = verdict.exit_code == job.header.expected
        && job.header.regexes.iter().all(|r| Regex::new(&format!("(?m){r}")).is_ok_and(|re| re.is_match(&output)));
    KernelRun { job, verdict, seconds, regex_ok, output }
}

/// Prints `syncfix: error: MESSAGE` and returns the command-line error's exit code.
pub fn fail(message: &str) -> u8 {
    eprintln!("syncfix: error: {message}");
    crate::exit::COMMAND_LINE_ERROR
}

/// Writes `doc` to `path` as pretty JSON; `Err` says why it could not.
pub fn write_json(path: &Path, doc: &impl serde::Serialize) -> Result<(), String> {
    let text = serde_json::to_string_pretty(doc).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The median of `v` (0 when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// `status`, or `error(CODE)` for an error.
pub fn status_text(v: &Verdict) -> String {
    match v.status {
        Status::Error => format!("error({})", v.exit_code),
        s => s.name().to_string(),
    }
}
