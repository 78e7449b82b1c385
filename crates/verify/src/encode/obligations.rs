//! What the encoding must check, collected while the kernel is encoded ([`Obligations`]): the
//! properties (races, barrier divergence, assertions) and the instances they speak of, and
//! the loop cuts' facts about the race logs.

use super::encoding::{AccessInstance, BarrierInstance, HavockedLog, LogFact, PropKind, Property, ReadInstance, WaitInstance};
use crate::cone::TermMap;
use syncfix_kir::{LoopId, ObjectId};
use z3::ast::{Bool, BV};

/// The properties and the instances they speak of, in schedule order: each access, barrier
/// and wait executed (an access's index is its `who` in the race logs), and the loop cuts'
/// log facts. An unrolling attempt that is undone forgets what it added
/// ([`Obligations::mark`], [`Obligations::truncate`]).
#[derive(Default)]
pub(crate) struct Obligations<'ctx> {
    /// The properties: a violation where a condition holds.
    props: Vec<Property<'ctx>>,
    /// Each access executed, and the loops (innermost first) it ran in (the same length).
    accesses: Vec<AccessInstance<'ctx>>,
    access_loops: Vec<Vec<LoopId>>,
    /// Each load of shared or global memory without a known initializer, by either thread
    /// (for a trace's initial memory: [`ReadInstance`]).
    reads: Vec<ReadInstance<'ctx>>,
    /// Each barrier executed.
    barriers: Vec<BarrierInstance<'ctx>>,
    /// Each `wait_group_events` executed.
    waits: Vec<WaitInstance<'ctx>>,
    /// The loop cuts' facts about their race logs ([`super::Encoding::log_facts`]).
    log_facts: Vec<LogFact<'ctx>>,
    /// What each loop cut's havocked log may hold, by its `who` constant.
    havocked_logs: TermMap<BV<'ctx>, HavockedLog<'ctx>>,
}

/// How many properties, accesses and barriers there were at a point of the encoding (to undo
/// an unrolling attempt).
pub(super) struct ObligationsMark {
    props: usize,
    accesses: usize,
    access_loops: usize,
    reads: usize,
    barriers: usize,
}

impl<'ctx> Obligations<'ctx> {
    /// Records a property unless its condition is trivially false: `kind` at schedule
    /// position `pos`, its condition `cond` built when the fresh constants' count was `stamp`
    /// and the state's assumptions were `ok`; `strict`: a race's condition without the
    /// benign-race tolerance ([`Property::strict`]).
    pub(super) fn property(
        &mut self,
        cond: Bool<'ctx>,
        strict: Option<Bool<'ctx>>,
        kind: PropKind<'ctx>,
        pos: u32,
        stamp: u32,
        ok: &Bool<'ctx>,
    ) {
        // Race conditions hold the logs, which grow with the kernel: only small ones are
        // simplified (see `term::is_false`).
        let cond = crate::term::simplify_small(cond);
        if !crate::term::is_false(&cond) {
            let strict = strict.map(crate::term::simplify_small);
            self.props.push(Property { cond, pos, kind, stamp, ok: ok.clone(), strict });
        }
    }

    /// Whether no property was recorded yet.
    pub(super) fn no_properties(&self) -> bool {
        self.props.is_empty()
    }

    /// Records an access executed in `loops` (innermost first); returns its index (`who`).
    pub(super) fn add_access(&mut self, access: AccessInstance<'ctx>, loops: Vec<LoopId>) -> u32 {
        let who = self.accesses.len() as u32;
        self.accesses.push(access);
        self.access_loops.push(loops);
        who
    }

    /// How many accesses were recorded.
    pub(super) fn access_count(&self) -> usize {
        self.accesses.len()
    }

    /// Access instance `i`.
    pub(super) fn access(&self, i: usize) -> &AccessInstance<'ctx> {
        &self.accesses[i]
    }

    /// Marks the last access to `object` an asynchronous copy's; returns its index, if any.
    pub(super) fn mark_async_copy(&mut self, object: ObjectId) -> Option<usize> {
        let who = self.accesses.iter().rposition(|a| a.object == object)?;
        self.accesses[who].async_copy = true;
        Some(who)
    }

    /// Records a load of shared or global memory.
    pub(super) fn add_read(&mut self, read: ReadInstance<'ctx>) {
        self.reads.push(read);
    }

    /// Records a barrier executed; returns its index.
    pub(super) fn add_barrier(&mut self, barrier: BarrierInstance<'ctx>) -> usize {
        self.barriers.push(barrier);
        self.barriers.len() - 1
    }

    /// Records a `wait_group_events` executed.
    pub(super) fn add_wait(&mut self, wait: WaitInstance<'ctx>) {
        self.waits.push(wait);
    }

    /// Records a loop cut's fact about its race logs.
    pub(super) fn add_log_fact(&mut self, fact: LogFact<'ctx>) {
        self.log_facts.push(fact);
    }

    /// Records what the havocked log whose `who` constant is `who` may hold.
    pub(super) fn add_havocked_log(&mut self, who: BV<'ctx>, log: HavockedLog<'ctx>) {
        self.havocked_logs.insert(who, log);
    }

    /// The counts to come back to with [`Obligations::truncate`].
    pub(super) fn mark(&self) -> ObligationsMark {
        ObligationsMark {
            props: self.props.len(),
            accesses: self.accesses.len(),
            access_loops: self.access_loops.len(),
            reads: self.reads.len(),
            barriers: self.barriers.len(),
        }
    }

    /// Forgets the properties, accesses, loads and barriers recorded since `mark`.
    pub(super) fn truncate(&mut self, mark: ObligationsMark) {
        self.props.truncate(mark.props);
        self.accesses.truncate(mark.accesses);
        self.access_loops.truncate(mark.access_loops);
        self.reads.truncate(mark.reads);
        self.barriers.truncate(mark.barriers);
    }
}

/// What the properties and instances are, for the verifier.
impl<'ctx> Obligations<'ctx> {
    /// The properties, in the order recorded.
    pub(crate) fn props(&self) -> &[Property<'ctx>] {
        &self.props
    }

    /// The access instances, in schedule order (an index is the access's `who`).
    pub(crate) fn accesses(&self) -> &[AccessInstance<'ctx>] {
        &self.accesses
    }

    /// The loops containing each access instance's instruction, innermost first.
    pub(crate) fn access_loops(&self) -> &[Vec<LoopId>] {
        &self.access_loops
    }

    /// The loads of shared and global memory without a known initializer, in schedule order.
    pub(crate) fn reads(&self) -> &[ReadInstance<'ctx>] {
        &self.reads
    }

    /// The barrier instances, in schedule order.
    pub(crate) fn barriers(&self) -> &[BarrierInstance<'ctx>] {
        &self.barriers
    }

    /// The `wait_group_events` instances, in schedule order.
    pub(crate) fn waits(&self) -> &[WaitInstance<'ctx>] {
        &self.waits
    }

    /// The loop cuts' facts about the race logs at their heads, each `logs_ok → facts` with
    /// the stamp of its guard `logs_ok` (see [`LogFact`]).
    pub(crate) fn log_facts(&self) -> &[LogFact<'ctx>] {
        &self.log_facts
    }

    /// What each loop cut's havocked log may hold, by its `who` constant (its log fact's
    /// summary for [`crate::stride`]).
    pub(crate) fn havocked_logs(&self) -> &TermMap<BV<'ctx>, HavockedLog<'ctx>> {
        &self.havocked_logs
    }
}
