//! Loops: complete unrolling where an unwinding check proves that no further iteration
//! exists, otherwise a cut at the loop head with invariants (ARCHITECTURE.md, "crates/verify"; Betts et al.,
//! OOPSLA 2012 §4–5: havoc the modset, assume the invariants, check the body, assert them at
//! the back edge; candidates are kept by Houdini, see [`crate::Verifier::check`]).
//!
//! - [`unroll`]: iteration by iteration, with an unwinding check; bounded under
//!   `--loop-unwind` / `--findbugs` (never a proof), an attempt otherwise (undone when the
//!   loop is longer than the limits allow, and the loop is cut instead).
//! - [`cut`]: one arbitrary iteration of the two threads in lock-step, from a havocked state
//!   (`cut/exits`: the ways out of the loop; `cut/havoc`: its memory and race logs).
//! - [`head`]: a loop's head state, the user's specs evaluated on it and its invariants checked.
//! - [`candidates`]: GPUVerify's families of candidate invariants.

mod candidates;
mod cut;
mod head;
mod unroll;

use crate::encode::Encoder;
use crate::VerifyError;
use syncfix_kir::{InstId, LoopId};

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// Executes loop `l`: unrolled, or cut.
    pub(super) fn exec_loop(&mut self, l: LoopId) -> Result<(), VerifyError> {
        self.check_deadline()?;
        if let Some(n) = self.opts.loop_unwind {
            // Bug-finding mode: at most `n` iterations, never a proof.
            self.unroll(l, n, unroll::Mode::Bounded)?;
            return Ok(());
        }
        let info = &self.analysis.loops[l];
        let has_user_invariant = info.specs.iter().any(|(_, candidate)| !candidate);
        // A loop whose exits depend on more than constants, launch sizes and ids may run for
        // any number of iterations: cut it at once. So is a loop with a user invariant (the
        // invariant must be inductive, as in GPUVerify).
        if info.bounded_by_launch && !has_user_invariant {
            let snap = self.snapshot();
            match self.unroll(l, self.budget.limits().max_unwind, unroll::Mode::Attempt) {
                Ok(true) => return Ok(()),
                Ok(false) | Err(VerifyError::TooLarge(_)) => self.restore(snap),
                Err(e) => return Err(e),
            }
        }
        self.cut_loop(l)
    }

    /// Whether `inst` stands in the header of a loop being cut (its invariants are handled
    /// by the cut, not checked where they stand).
    pub(super) fn in_cut_header(&self, inst: InstId) -> bool {
        let b = self.kernel.insts[inst].block;
        self.frames.cutting().any(|l| self.cfg.loops[l].header == b)
    }
}
