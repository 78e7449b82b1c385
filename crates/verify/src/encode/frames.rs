//! The loops being executed ([`LoopFrames`]): the frame of each ([`LoopCtx`]), and of each
//! loop being cut ([`CutFrame`]: the exits and returns of its arbitrary iteration,
//! `loops/cut`).

use super::encoding::{BoundedLoop, CutLoop};
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

/// The loops being executed and cut, innermost last, and the loops whose encoding is not
/// exact: those unrolled to a bound (`--loop-unwind`) and those cut.
#[derive(Default)]
pub(crate) struct LoopFrames<'ctx> {
    /// The loops being executed (unrolled or cut), innermost last.
    loops: Vec<LoopCtx>,
    /// The loops being cut, innermost last.
    cuts: Vec<CutFrame<'ctx>>,
    /// The loops unrolled to a bound ([`super::Encoding::bounded`]).
    bounded: Vec<BoundedLoop>,
    /// The loops cut ([`super::Encoding::cut`]).
    cut: Vec<CutLoop>,
}

/// The loops being cut and how many loops were bounded and cut at a point of the encoding (to
/// undo an unrolling attempt).
pub(super) struct FramesMark<'ctx> {
    cuts: Vec<CutFrame<'ctx>>,
    bounded: usize,
    cut: usize,
}

impl<'ctx> LoopFrames<'ctx> {
    /// Enters a loop: unrolled (`iter` its first iteration) or cut (`None`).
    pub(super) fn enter(&mut self, iter: Option<u32>) {
        self.loops.push(LoopCtx { iter });
    }

    /// The innermost loop is at unrolled iteration `iter`.
    pub(super) fn set_iteration(&mut self, iter: u32) {
        if let Some(c) = self.loops.last_mut() {
            c.iter = Some(iter);
        }
    }

    /// Leaves the innermost loop.
    pub(super) fn leave(&mut self) {
        self.loops.pop();
    }

    /// Whether assertions here are checked on the first iteration of their innermost loop
    /// (or outside loops).
    pub(super) fn first_iteration(&self) -> bool {
        self.loops.last().is_none_or(|c| c.iter == Some(0))
    }

    /// Starts cutting loop `l` (its arbitrary iteration's exits and returns are recorded).
    pub(super) fn push_cut(&mut self, l: LoopId) {
        self.cuts.push(CutFrame { l, exits: vec![], returns: vec![] });
    }

    /// Stops cutting the innermost loop being cut; returns its frame.
    pub(super) fn pop_cut(&mut self) -> CutFrame<'ctx> {
        self.cuts.pop().expect("the cut's frame")
    }

    /// The innermost loop being cut, if any.
    pub(super) fn innermost_cut(&self) -> Option<LoopId> {
        self.cuts.last().map(|f| f.l)
    }

    /// The loops being cut.
    pub(super) fn cutting(&self) -> impl Iterator<Item = LoopId> + '_ {
        self.cuts.iter().map(|f| f.l)
    }

    /// Records an exit taken in the innermost cut loop's arbitrary iteration.
    pub(super) fn add_exit(&mut self, exit: Exit<'ctx>) {
        self.cuts.last_mut().expect("a cut").exits.push(exit);
    }

    /// Records a `return` executed under `pred` inside the innermost loop being cut, if any.
    pub(super) fn add_return(&mut self, pred: &[Bool<'ctx>; 2]) {
        if let Some(f) = self.cuts.last_mut() {
            f.returns.push(pred.clone());
        }
    }

    /// Records a loop unrolled to a bound.
    pub(super) fn add_bounded(&mut self, bounded: BoundedLoop) {
        self.bounded.push(bounded);
    }

    /// Records a loop cut.
    pub(super) fn add_cut(&mut self, cut: CutLoop) {
        self.cut.push(cut);
    }

    /// The loops unrolled to a bound.
    pub(crate) fn bounded(&self) -> &[BoundedLoop] {
        &self.bounded
    }

    /// The loops cut.
    pub(crate) fn cut(&self) -> &[CutLoop] {
        &self.cut
    }

    /// How many loops were cut so far.
    pub(super) fn cut_count(&self) -> usize {
        self.cut.len()
    }

    /// Whether no loop was bounded or cut yet.
    pub(super) fn none_inexact(&self) -> bool {
        self.cut.is_empty() && self.bounded.is_empty()
    }

    /// What to come back to with [`LoopFrames::restore`].
    pub(super) fn mark(&self) -> FramesMark<'ctx> {
        FramesMark { cuts: self.cuts.clone(), bounded: self.bounded.len(), cut: self.cut.len() }
    }

    /// Comes back to `mark`: the loops being cut then, and the loops bounded and cut then.
    pub(super) fn restore(&mut self, mark: FramesMark<'ctx>) {
        self.cuts = mark.cuts;
        self.bounded.truncate(mark.bounded);
        self.cut.truncate(mark.cut);
    }
}
