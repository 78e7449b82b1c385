//! The frames of the loops being executed ([`LoopCtx`]) and of the loops being cut
//! ([`CutFrame`]: the exits and returns of their arbitrary iteration, `loops/cut`).

use super::state::Incoming;
use crate::term::Term;
use syncfix_kir::{BlockId, LoopId};
use z3::ast::Bool;

/// The loop being executed, innermost last.
#[derive(Clone, Debug)]
pub(super) struct LoopCtx {
    /// The unrolled iteration, or `None` in a loop cut (an arbitrary iteration).
    pub(super) iter: Option<u32>,
}

/// An edge leaving the loop being cut, taken in its arbitrary iteration.
#[derive(Clone, Debug)]
pub(super) struct Exit<'ctx> {
    pub(super) from: BlockId,
    pub(super) to: BlockId,
    pub(super) edge: Incoming<'ctx>,
    /// The values of the loop's escaping values ([`crate::analysis::LoopInfo::escapes`]) when
    /// the edge was taken.
    pub(super) escapes: Vec<[Term<'ctx>; 2]>,
}

/// The loop being cut: the exits and returns of its arbitrary iteration.
#[derive(Clone, Debug)]
pub(super) struct CutFrame<'ctx> {
    pub(super) l: LoopId,
    pub(super) exits: Vec<Exit<'ctx>>,
    pub(super) returns: Vec<[Bool<'ctx>; 2]>,
}
