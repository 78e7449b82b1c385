//! Ending a run early. SIGINT and SIGTERM end it within a second with exit 130 / 143; the
//! `--timeout` watchdog, a backstop for the cooperative deadline of the library (a solver
//! call that overruns its limit, a long front-end step), prints the timeout verdict at the
//! deadline plus one second and exits 7. Either way, the front end's clang/opt processes (and
//! the suite's `syncfix verify` processes) are ended and every temporary directory is
//! removed first ([`syncfix::process::abort`]), and the process ends with `_exit`, without
//! running destructors while another thread may be inside Z3.
//!
//! The main thread calls [`begin_output`] before printing its result: from then on the
//! watchdog stands down, and if the watchdog or a signal came first, the main thread waits
//! for it to end the process instead of printing a second result.

use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Copy, Clone, PartialEq, Eq)]
enum State {
    Running,
    /// The main thread prints its result.
    Output,
    /// A signal or the watchdog is ending the process.
    Stopping,
}

static STATE: Mutex<State> = Mutex::new(State::Running);

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Flushes stdout and stderr and ends the process with `code`, at once.
pub fn exit_now(code: u8) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` ends the process without running atexit handlers or destructors, which
    // another thread (Z3, the front end) may still be using.
    unsafe { libc::_exit(code as i32) }
}

/// Ends SIGINT (130) and SIGTERM (143) runs: cleans up, then exits. Call once, first thing.
pub fn install_signal_handlers() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("syncfix: warning: cannot handle signals: {e}");
            return;
        }
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            *state() = State::Stopping;
            syncfix::process::abort();
            exit_now((128 + sig) as u8);
        }
    });
}

/// Starts the watchdog: at `deadline` plus one second, unless the main thread has begun its
/// output, cleans up, calls `report` (which prints the timeout verdict: with `verify`, the
/// kernels' verdicts reached so far) and exits with the code it returns (7, or 6 when a
/// kernel's verdict reached already is a defect).
pub fn watchdog(deadline: Instant, report: impl FnOnce() -> u8 + Send + 'static) {
    std::thread::spawn(move || {
        let at = deadline + Duration::from_secs(1);
        while let Some(left) = at.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) {
            std::thread::sleep(left);
        }
        {
            let mut s = state();
            if *s != State::Running {
                return;
            }
            *s = State::Stopping;
        }
        syncfix::process::abort();
        let code = report();
        exit_now(code);
    });
}

/// The main thread has its result and is about to print it. If a signal or the watchdog is
/// already ending the process, this waits for the end instead of returning.
pub fn begin_output() {
    {
        let mut s = state();
        if *s == State::Running {
            *s = State::Output;
            return;
        }
    }
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}
