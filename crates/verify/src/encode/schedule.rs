//! Where the lock-step schedule is ([`Schedule`]): the edges taken into blocks not yet
//! executed, the back edges of loops being executed, the predicates of the blocks executed,
//! and the schedule position.

use super::state::Incoming;
use std::collections::BTreeMap;
use syncfix_kir::{BlockId, LoopId, SecondaryMap};
use z3::ast::Bool;

/// The control state of the lock-step execution between blocks (the values and memory are
/// the [`super::State`]).
pub(super) struct Schedule<'ctx> {
    /// Per block, the dominator whose predicate it has (`reconverge`).
    equiv: SecondaryMap<BlockId, Option<BlockId>>,
    /// The predicates of the blocks executed (the latest execution of each).
    block_pred: BTreeMap<BlockId, [Bool<'ctx>; 2]>,
    /// The edges taken into each block not yet executed.
    incoming: BTreeMap<BlockId, Vec<Incoming<'ctx>>>,
    /// The back edges taken in the current iteration of each loop being executed.
    back: BTreeMap<LoopId, Vec<Incoming<'ctx>>>,
    /// The schedule position: one per instruction and terminator executed, and per loop cut
    /// (properties and instances are ordered by it).
    position: u32,
}

/// The edges pending and the position at a point of the encoding (to undo an unrolling
/// attempt; the blocks' predicates are kept).
pub(super) struct ScheduleMark<'ctx> {
    incoming: BTreeMap<BlockId, Vec<Incoming<'ctx>>>,
    back: BTreeMap<LoopId, Vec<Incoming<'ctx>>>,
    position: u32,
}

impl<'ctx> Schedule<'ctx> {
    /// The start of the schedule, with `equiv` each block's control-equivalent dominator.
    pub(super) fn new(equiv: SecondaryMap<BlockId, Option<BlockId>>) -> Self {
        Schedule { equiv, block_pred: BTreeMap::new(), incoming: BTreeMap::new(), back: BTreeMap::new(), position: 0 }
    }

    /// The schedule position.
    pub(super) fn position(&self) -> u32 {
        self.position
    }

    /// Moves to the next schedule position.
    pub(super) fn advance(&mut self) {
        self.position += 1;
    }

    /// The edges taken into block `b` (or, for a loop's header, into its first iteration),
    /// removed.
    pub(super) fn take_incoming(&mut self, b: BlockId) -> Vec<Incoming<'ctx>> {
        self.incoming.remove(&b).unwrap_or_default()
    }

    /// The edges taken into block `b` so far.
    pub(super) fn incoming(&self, b: BlockId) -> Vec<Incoming<'ctx>> {
        self.incoming.get(&b).cloned().unwrap_or_default()
    }

    /// Sets the edges taken into block `b`.
    pub(super) fn set_incoming(&mut self, b: BlockId, edges: Vec<Incoming<'ctx>>) {
        self.incoming.insert(b, edges);
    }

    /// Adds an edge taken into block `to`.
    pub(super) fn add_incoming(&mut self, to: BlockId, e: Incoming<'ctx>) {
        self.incoming.entry(to).or_default().push(e);
    }

    /// Adds a back edge of loop `l` taken in its current iteration.
    pub(super) fn add_back(&mut self, l: LoopId, e: Incoming<'ctx>) {
        self.back.entry(l).or_default().push(e);
    }

    /// The back edges of loop `l` taken in its current iteration, removed.
    pub(super) fn take_back(&mut self, l: LoopId) -> Vec<Incoming<'ctx>> {
        self.back.remove(&l).unwrap_or_default()
    }

    /// Forgets block `b`'s predicate (it is being executed again).
    pub(super) fn forget_predicate(&mut self, b: BlockId) {
        self.block_pred.remove(&b);
    }

    /// The predicate of the executed dominator control-equivalent to block `b`, if any.
    pub(super) fn equivalent_predicate(&self, b: BlockId) -> Option<[Bool<'ctx>; 2]> {
        self.equiv[b].and_then(|a| self.block_pred.get(&a)).cloned()
    }

    /// Records block `b`'s predicate.
    pub(super) fn set_predicate(&mut self, b: BlockId, pred: [Bool<'ctx>; 2]) {
        self.block_pred.insert(b, pred);
    }

    /// What to come back to with [`Schedule::restore`].
    pub(super) fn mark(&self) -> ScheduleMark<'ctx> {
        ScheduleMark { incoming: self.incoming.clone(), back: self.back.clone(), position: self.position }
    }

    /// Comes back to `mark`.
    pub(super) fn restore(&mut self, mark: ScheduleMark<'ctx>) {
        self.incoming = mark.incoming;
        self.back = mark.back;
        self.position = mark.position;
    }
}
