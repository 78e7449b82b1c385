//! What the encoding may spend ([`Budget`]): its limits, its deadline, and what it spent.

use crate::{Limits, VerifyError, VerifyOptions};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The encoding's limits (instructions executed, unwinding), its deadline and the caller's
/// cancellation flag, and what it spent: the instructions executed, and the solver calls
/// (unwinding checks) with their time.
pub(super) struct Budget {
    /// [`VerifyOptions::limits`].
    limits: Limits,
    /// [`VerifyOptions::deadline`].
    deadline: Option<Instant>,
    /// [`VerifyOptions::cancel`].
    cancel: Option<Arc<AtomicBool>>,
    /// Instructions executed so far (each block's, plus one for its terminator).
    executed: u64,
    /// Solver calls made while encoding, and their time.
    solver_calls: u32,
    solve_time: Duration,
}

impl Budget {
    /// The budget `opts` gives, nothing spent.
    pub(super) fn new(opts: &VerifyOptions) -> Self {
        Budget {
            limits: opts.limits,
            deadline: opts.deadline,
            cancel: opts.cancel.clone(),
            executed: 0,
            solver_calls: 0,
            solve_time: Duration::ZERO,
        }
    }

    /// The limits.
    pub(super) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Errors with [`VerifyError::Timeout`] once the deadline has passed or the caller has
    /// cancelled ([`crate::VerifyOptions::cancel`]).
    pub(super) fn check_deadline(&self) -> Result<(), VerifyError> {
        if self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(VerifyError::Timeout);
        }
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(VerifyError::Timeout),
            _ => Ok(()),
        }
    }

    /// Counts `n` instructions executed; errors with [`VerifyError::TooLarge`] beyond the
    /// limit.
    pub(super) fn execute(&mut self, n: u64) -> Result<(), VerifyError> {
        self.executed += n;
        if self.executed > self.limits.max_instructions {
            return Err(VerifyError::TooLarge(self.limits.max_instructions));
        }
        Ok(())
    }

    /// The instructions executed so far.
    pub(super) fn executed(&self) -> u64 {
        self.executed
    }

    /// Comes back to `executed` instructions executed (an unrolling attempt undone).
    pub(super) fn rewind(&mut self, executed: u64) {
        self.executed = executed;
    }

    /// The solver calls made so far.
    pub(super) fn solver_calls(&self) -> u32 {
        self.solver_calls
    }

    /// Counts `n` solver calls.
    pub(super) fn add_solver_calls(&mut self, n: u32) {
        self.solver_calls += n;
    }

    /// Counts `t` of solver time.
    pub(super) fn add_solve_time(&mut self, t: Duration) {
        self.solve_time += t;
    }

    /// The solver calls made and their time.
    pub(super) fn spent(&self) -> (u32, Duration) {
        (self.solver_calls, self.solve_time)
    }
}
