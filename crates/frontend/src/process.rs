//! The front end's child processes (clang-19) and temporary directories, tracked so
//! that a process ending early (a signal, a watchdog) can kill the children and remove the
//! directories first: no `syncfix-*` folder, which holds a copy of the user's source, is
//! left behind, and no clang outlives syncfix.
//!
//! [`run`] is also what `syncfix suite` runs its `syncfix verify` processes with.
//! [`abort`] kills and removes what is registered and refuses later registrations; the
//! registry's lock is held while a child is spawned or a directory created, so nothing slips
//! between the two.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Default)]
struct Registry {
    aborted: bool,
    next: u64,
    children: Vec<(u64, Arc<Mutex<Child>>)>,
    dirs: Vec<(u64, PathBuf)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { aborted: false, next: 0, children: Vec::new(), dirs: Vec::new() });

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why a child process did not give its output.
#[derive(Debug)]
pub enum RunError {
    /// It could not be started.
    Spawn(std::io::Error),
    /// The deadline passed; it was killed.
    Timeout,
    /// [`abort`] was called.
    Aborted,
}

/// A temporary directory that is removed when dropped, or by [`abort`].
pub struct Scratch {
    id: u64,
    dir: Option<tempfile::TempDir>,
}

impl Scratch {
    /// Creates a `syncfix-*` directory in the system's temporary directory (`$TMPDIR`).
    pub fn new() -> std::io::Result<Scratch> {
        Scratch::create(None)
    }

    /// Creates a `syncfix-*` directory in `parent`.
    pub fn new_in(parent: &Path) -> std::io::Result<Scratch> {
        Scratch::create(Some(parent))
    }

    fn create(parent: Option<&Path>) -> std::io::Result<Scratch> {
        let mut r = registry();
        if r.aborted {
            return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "syncfix is stopping"));
        }
        let mut b = tempfile::Builder::new();
        b.prefix("syncfix-");
        let dir = match parent {
            Some(p) => b.tempdir_in(p)?,
            None => b.tempdir()?,
        };
        r.next += 1;
        let id = r.next;
        r.dirs.push((id, dir.path().to_path_buf()));
        Ok(Scratch { id, dir: Some(dir) })
    }

    pub fn path(&self) -> &Path {
        self.dir.as_ref().map(|d| d.path()).unwrap_or(Path::new(""))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let mut r = registry();
        r.dirs.retain(|(i, _)| *i != self.id);
        // Removed under the lock, so that `abort` never sees it half gone.
        drop(self.dir.take());
    }
}

/// Runs `cmd` to completion and returns its output, killing it at `deadline`.
pub fn run(cmd: &mut Command, deadline: Option<Instant>) -> Result<(Output, Duration), RunError> {
    let start = Instant::now();
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let (id, child) = {
        let mut r = registry();
        if r.aborted {
            return Err(RunError::Aborted);
        }
        let child = cmd.spawn().map_err(RunError::Spawn)?;
        r.next += 1;
        let id = r.next;
        let child = Arc::new(Mutex::new(child));
        r.children.push((id, child.clone()));
        (id, child)
    };
    let (out, err) = {
        let mut c = child.lock().unwrap_or_else(|e| e.into_inner());
        (c.stdout.take(), c.stderr.take())
    };
    // Drain both pipes on threads so that a chatty child cannot block.
    let drain = |p: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = vec![];
            if let Some(mut p) = p {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let t_out = drain(out.map(|p| Box::new(p) as Box<dyn Read + Send>));
    let t_err = drain(err.map(|p| Box::new(p) as Box<dyn Read + Send>));
    // A thread waits for the child's exit without reaping it (`WNOWAIT`), so that its pid stays
    // valid for `terminate`; this thread then reaps it. No polling: the exit is seen at once.
    let pid = child.lock().unwrap_or_else(|e| e.into_inner()).id();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        // SAFETY: waitid(2) writes only into the zeroed `siginfo_t` we own.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        loop {
            let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) };
            if r == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break;
            }
        }
        let _ = tx.send(());
    });
    // Until the waiter reports (or is gone), block on it; then reap, polling only if the exit
    // is not visible yet.
    let mut waiter = Some(rx);
    let status = loop {
        match &waiter {
            Some(r) => {
                let got = match deadline {
                    Some(d) => r.recv_timeout(d.saturating_duration_since(Instant::now())),
                    None => r.recv().map_err(|_| std::sync::mpsc::RecvTimeoutError::Disconnected),
                };
                if !matches!(got, Err(std::sync::mpsc::RecvTimeoutError::Timeout)) {
                    waiter = None;
                }
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
        let mut c = child.lock().unwrap_or_else(|e| e.into_inner());
        match c.try_wait() {
            Ok(Some(st)) => break Ok(st),
            Ok(None) if deadline.is_some_and(|d| Instant::now() >= d) => {
                drop(c);
                terminate(std::slice::from_ref(&child));
                break Err(RunError::Timeout);
            }
            Ok(None) => {}
            Err(e) => break Err(RunError::Spawn(e)),
        }
    };
    registry().children.retain(|(i, _)| *i != id);
    // On a timeout the readers are left behind: a grandchild may still hold the pipes open.
    let status = status?;
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    Ok((Output { status, stdout, stderr }, start.elapsed()))
}

/// How long a child may take to exit after SIGTERM before it is killed.
const GRACE: Duration = Duration::from_millis(500);

/// Ends children: SIGTERM first, so that they remove their own temporary files (clang its
/// outputs, a `syncfix verify` run by the suite its scratch directory), then SIGKILL to those
/// still running after [`GRACE`]. Waits for each.
fn terminate(children: &[Arc<Mutex<Child>>]) {
    fn lock(c: &Mutex<Child>) -> MutexGuard<'_, Child> {
        c.lock().unwrap_or_else(|e| e.into_inner())
    }
    for c in children {
        let mut c = lock(c);
        // Only a child not yet reaped: its pid cannot have been reused.
        if let Ok(None) = c.try_wait() {
            if let Ok(pid) = libc::pid_t::try_from(c.id()) {
                // SAFETY: kill(2) with a valid signal number has no memory effects.
                unsafe { libc::kill(pid, libc::SIGTERM) };
            }
        }
    }
    let until = Instant::now() + GRACE;
    for c in children {
        let mut c = lock(c);
        while matches!(c.try_wait(), Ok(None)) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = c.kill();
        let _ = c.wait();
    }
}

/// Ends every running child (see `terminate`), removes every temporary directory, and makes
/// later [`run`] and [`Scratch::new`] calls fail. For a process about to exit early; returns
/// within about half a second.
pub fn abort() {
    let mut r = registry();
    r.aborted = true;
    let children: Vec<_> = r.children.drain(..).map(|(_, c)| c).collect();
    // A child whose lock is held is being polled: the poller holds it only briefly.
    terminate(&children);
    for (_, d) in r.dirs.drain(..) {
        remove_while_written(&d);
    }
}

/// Removes the directory `d` while another thread may still be writing into it (the front
/// end copying the source when a signal comes): `remove_dir_all` fails when a file appears
/// between its listing and its last `rmdir`, so it is tried again, for at most 0.2 s. Once
/// the directory is gone nothing can be created in it.
fn remove_while_written(d: &Path) {
    for _ in 0..20 {
        let _ = std::fs::remove_dir_all(d);
        if !d.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
