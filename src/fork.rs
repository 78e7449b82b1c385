//! `syncfix suite`'s kernels run as children forked from a server process that has loaded
//! syncfix once, rather than each as a fresh `syncfix verify` process.
//!
//! A fresh process pays, before its kernel's first line is read, for loading and relocating
//! libLLVM and libz3, their static constructors and Z3's first context: about 20–30 ms of
//! the 130 ms that a small kernel of GPUVerify's suite takes (measured on the 2-core
//! development machine: 115 ms a kernel forked, 137 ms exec'd), and most of the suite's
//! kernels are small. The server (`syncfix __fork-server`, started by the runner, one per
//! job slot) has done all of that once; each child it forks runs `main` with the kernel's
//! command line, in the kernel's folder, its output in files the runner reads: the same
//! verdict and output as the process it stands for.
//!
//! The server is single-threaded (it branches off at the top of `main`, before any thread
//! starts), so a fork is a copy of one thread that holds no lock. Protocol, one line each:
//! the runner writes a [`Request`] as JSON; the server answers the child's pid, then, once
//! the child has ended, its raw `waitpid` status. The server ends when its input ends.
//! `SYNCFIX_SUITE_FORK=0` turns it off (each kernel exec'd, as `syncfix bench` always does);
//! a server that cannot start or fails is replaced by exec'ing the kernels, unless
//! `SYNCFIX_SUITE_FORK=require` (the tests': a kernel then ends in an internal error).

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use syncfix::process::RunError;

/// The first argument that makes the process a fork server.
const SERVER_ARG: &str = "__fork-server";

/// A kernel to run: its command line (without the program's name), folder and output files.
#[derive(Serialize, Deserialize)]
struct Request {
    args: Vec<String>,
    cwd: PathBuf,
    stdout: PathBuf,
    stderr: PathBuf,
}

/// When this process was started as a fork server: serves requests until its input ends, then
/// exits; returns only in a forked child, with the child's command line (its program name
/// first), its standard streams redirected and its folder set. `None` in any other process.
pub fn serve_if_asked() -> Option<Vec<OsString>> {
    let mut argv = std::env::args_os();
    let program = argv.next().unwrap_or_default();
    if argv.next().as_deref() != Some(std::ffi::OsStr::new(SERVER_ARG)) {
        return None;
    }
    // The server talks on copies of its standard input and output, so that a child's
    // redirection of fds 0–2 leaves them alone.
    // SAFETY: `dup` returns a new fd that only these `File`s own (or -1, checked).
    let (input, output) = unsafe { (libc::dup(0), libc::dup(1)) };
    if input < 0 || output < 0 {
        eprintln!("syncfix: error: fork server: cannot duplicate its standard streams");
        std::process::exit(1);
    }
    // SAFETY: as above.
    let (input, mut output) = unsafe { (File::from_raw_fd(input), File::from_raw_fd(output)) };
    // The server ends with the runner (a signal that ends the runner ends its kernels, as it
    // ends the processes it runs), and each child with the server: SIGTERM, on which a child
    // kills its clang and removes its scratch folder (`stop`).
    // SAFETY: getppid(2) and getpid(2) have no memory effects.
    end_with_parent(unsafe { libc::getppid() });
    let server = unsafe { libc::getpid() };
    syncfix::warm_up();
    let mut reader = BufReader::new(input);
    let mut line = String::new();
    loop {
        line.clear();
        if !matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
            // SAFETY: ends this single-threaded process; nothing is left to flush.
            unsafe { libc::_exit(0) }
        }
        let Ok(req) = serde_json::from_str::<Request>(&line) else {
            let _ = writeln!(output, "error: not a request");
            continue;
        };
        // SAFETY: this process has one thread (the server never starts one), so the child is
        // a whole copy of it.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            drop(reader);
            drop(output);
            end_with_parent(server);
            if let Err(e) = enter(&req) {
                eprintln!("syncfix: error: fork server: {e}");
                // SAFETY: ends the child at once.
                unsafe { libc::_exit(i32::from(crate::exit::INTERNAL_ERROR)) }
            }
            return Some(std::iter::once(program).chain(req.args.into_iter().map(OsString::from)).collect());
        }
        if pid < 0 {
            let _ = writeln!(output, "error: fork: {}", std::io::Error::last_os_error());
            continue;
        }
        let _ = writeln!(output, "{pid}");
        let mut status: libc::c_int = 0;
        // SAFETY: waits for our own child, writing into `status`.
        while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                status = i32::from(crate::exit::INTERNAL_ERROR) << 8;
                break;
            }
        }
        let _ = writeln!(output, "{status}");
    }
}

/// Asks for SIGTERM when this process's parent (`parent`) ends, and ends now if it has
/// already.
fn end_with_parent(parent: libc::pid_t) {
    // SAFETY: prctl(2) and getppid(2) have no memory effects.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
        if libc::getppid() != parent {
            libc::_exit(i32::from(crate::exit::INTERNAL_ERROR));
        }
    }
}

/// In the child: the request's folder, standard input from /dev/null, output to its files.
fn enter(req: &Request) -> Result<(), String> {
    std::env::set_current_dir(&req.cwd).map_err(|e| format!("cannot enter {}: {e}", req.cwd.display()))?;
    let open = |p: &Path, write: bool| {
        std::fs::OpenOptions::new()
            .read(!write)
            .write(write)
            .truncate(write)
            .open(p)
            .map_err(|e| format!("cannot open {}: {e}", p.display()))
    };
    let files = [open(Path::new("/dev/null"), false)?, open(&req.stdout, true)?, open(&req.stderr, true)?];
    for (fd, f) in files.iter().enumerate() {
        // SAFETY: `dup2` onto the standard fds of this single-threaded child.
        if unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(f), fd as libc::c_int) } < 0 {
            return Err(format!("cannot redirect fd {fd}: {}", std::io::Error::last_os_error()));
        }
    }
    Ok(())
}

/// `SYNCFIX_SUITE_FORK=require`: a kernel that cannot be forked is an error, not exec'd.
pub fn required() -> bool {
    std::env::var_os("SYNCFIX_SUITE_FORK").is_some_and(|v| v == "require")
}

/// The runner's end of a fork server.
pub struct Server {
    child: std::process::Child,
    input: ChildStdin,
    lines: mpsc::Receiver<String>,
    /// Where the children's output files are written (removed by `syncfix::process::abort`
    /// too, when a signal ends the runner).
    scratch: syncfix::process::Scratch,
    /// A child past its deadline did not report its end: the protocol is out of step, the
    /// server is not used again.
    lost: bool,
}

impl Server {
    /// Starts a server (`exe __fork-server`), unless `SYNCFIX_SUITE_FORK=0`.
    ///
    /// Errors: it is turned off, or cannot be started.
    pub fn start(exe: &Path) -> Result<Server, String> {
        if std::env::var_os("SYNCFIX_SUITE_FORK").is_some_and(|v| v == "0") {
            return Err("turned off by SYNCFIX_SUITE_FORK=0".into());
        }
        let mut child = Command::new(exe)
            .arg(SERVER_ARG)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let (Some(input), Some(out)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err("no pipes to the fork server".into());
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let scratch = match syncfix::process::Scratch::new() {
            Ok(s) => s,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("cannot create a temporary directory: {e}"));
            }
        };
        Ok(Server { child, input, lines, scratch, lost: false })
    }

    /// Runs `syncfix ARGS` in `cwd` as a forked child, as `syncfix::process::run` runs a
    /// command: its output, or `Timeout` when `deadline` passed first (the child is then
    /// killed).
    ///
    /// Errors: `RunError::Spawn` when the server failed (the caller runs the command itself).
    pub fn run(&mut self, args: &[String], cwd: &Path, deadline: Option<Instant>) -> Result<Output, RunError> {
        let broken = |what: &str| RunError::Spawn(std::io::Error::other(format!("fork server: {what}")));
        if self.lost {
            return Err(broken("a child's end was not reported"));
        }
        let (stdout, stderr) = (self.scratch.path().join("stdout"), self.scratch.path().join("stderr"));
        for p in [&stdout, &stderr] {
            File::create(p).map_err(RunError::Spawn)?;
        }
        let req = Request { args: args.to_vec(), cwd: cwd.to_path_buf(), stdout: stdout.clone(), stderr: stderr.clone() };
        let text = serde_json::to_string(&req).map_err(|e| broken(&e.to_string()))?;
        writeln!(self.input, "{text}").and_then(|_| self.input.flush()).map_err(|_| broken("its input is closed"))?;
        let pid: libc::pid_t = self.lines.recv().map_err(|_| broken("it ended"))?.parse().map_err(|_| broken("no pid"))?;
        let line = match deadline {
            None => self.lines.recv().map_err(|_| broken("it ended"))?,
            Some(d) => match self.lines.recv_timeout(d.saturating_duration_since(Instant::now())) {
                Ok(l) => l,
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(broken("it ended")),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // As `process::run` ends a command: SIGTERM (the child kills its clang and
                    // removes its scratch folder), SIGKILL after a grace period.
                    // SAFETY: `pid` is the server's child, not yet reaped (the server
                    // reports it when it is); kill(2) has no memory effects.
                    unsafe { libc::kill(pid, libc::SIGTERM) };
                    if self.lines.recv_timeout(Duration::from_secs(1)).is_err() {
                        // SAFETY: as above.
                        unsafe { libc::kill(pid, libc::SIGKILL) };
                        self.lost = self.lines.recv_timeout(Duration::from_secs(5)).is_err();
                    }
                    return Err(RunError::Timeout);
                }
            },
        };
        let raw: i32 = line.parse().map_err(|_| broken("no status"))?;
        Ok(Output {
            status: std::process::ExitStatus::from_raw(raw),
            stdout: std::fs::read(&stdout).unwrap_or_default(),
            stderr: std::fs::read(&stderr).unwrap_or_default(),
        })
    }
}

impl Drop for Server {
    /// The server is ended (its scratch folder is removed as it is dropped).
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
