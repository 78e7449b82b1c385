//! The child processes syncfix runs (clang, opt, and `syncfix suite`'s own runs): each is
//! registered so that a process about to exit early (a signal, the `--timeout` watchdog) can
//! end them and remove their temporary directories with [`abort`].

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A `syncfix-*` temporary directory in `$TMPDIR`, removed when dropped or by [`abort`].
pub struct Scratch(syncfix_frontend::process::Scratch);

impl Scratch {
    /// Creates one.
    ///
    /// Errors: it cannot be created, or [`abort`] was called.
    pub fn new() -> std::io::Result<Scratch> {
        syncfix_frontend::process::Scratch::new().map(Scratch)
    }

    /// Its path.
    pub fn path(&self) -> &std::path::Path {
        self.0.path()
    }
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

/// Runs `cmd` to completion (stdin empty, stdout and stderr captured) and returns its output
/// and wall time, killing it at `deadline`.
///
/// Errors: [`RunError::Spawn`], [`RunError::Timeout`], [`RunError::Aborted`].
pub fn run(cmd: &mut Command, deadline: Option<Instant>) -> Result<(Output, Duration), RunError> {
    use syncfix_frontend::process::RunError as E;
    syncfix_frontend::process::run(cmd, deadline).map_err(|e| match e {
        E::Spawn(e) => RunError::Spawn(e),
        E::Timeout => RunError::Timeout,
        E::Aborted => RunError::Aborted,
    })
}

/// Ends every running child, removes every temporary directory, and makes later runs (and
/// so every later front-end call) fail. For a process about to exit; returns within about
/// half a second.
pub fn abort() {
    syncfix_frontend::process::abort()
}
