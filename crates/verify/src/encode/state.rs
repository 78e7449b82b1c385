//! The symbolic state of the two threads at one point of the lock-step schedule.
//!
//! Everything a loop can modify lives here, so that a loop's unrolling can be undone (the
//! state is cloned before an attempt) and a loop cut can replace it by a havocked copy
//! (ARCHITECTURE.md, "crates/verify"; Betts et al. OOPSLA 2012 §4: "havoc the loop's modset").

use crate::cone::Assumptions;
use crate::memory::{Logs, Mem};
use crate::term::Term;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use syncfix_kir::{InstId, ObjectId};
use z3::ast::{Bool, BV};
use z3::FuncDecl;

/// An edge taken into a block: the per-thread edge predicates and the values of the target's
/// phis along the edge.
#[derive(Clone, Debug)]
pub(super) struct Incoming<'ctx> {
    pub(super) pred: [Bool<'ctx>; 2],
    pub(super) phis: Vec<(InstId, [Term<'ctx>; 2])>,
}

/// The witness of one object: a byte offset and whether neither thread accessed it yet.
#[derive(Clone, Debug)]
pub(super) struct Witness<'ctx> {
    pub(super) na: BV<'ctx>,
    pub(super) unaccessed: Bool<'ctx>,
}

/// Values returned so far by repetition-free atomics on one object (NFM 2014 §4.2).
#[derive(Clone, Debug, Default)]
pub(super) struct Used<'ctx> {
    /// (thread, executed, byte offset, value) of each atomic execution so far.
    pub(super) entries: Vec<(usize, Bool<'ctx>, BV<'ctx>, BV<'ctx>)>,
    /// Entries before this index were returned before a plain write to the object (which may
    /// give its cells any value): new values need not differ from them.
    pub(super) window: usize,
    /// What was returned before a loop cut forgot the entries: `history(group, offset,
    /// value)` (group 0 for global memory; shared memory has one counter per group).
    pub(super) history: Option<Rc<FuncDecl<'ctx>>>,
    /// Values in `history` need not differ from new ones (a plain write came after them).
    pub(super) history_stale: bool,
}

/// The per-thread values, memory, race logs and assumptions at one schedule point.
///
/// Private, read and written through its methods by the encoder's steps: values by thread
/// and instruction, memory by object (an equality-abstracted object's two copies, a private
/// object's copy per thread), the race logs, the atomics' histories and the barrier
/// invariants' access witnesses by object; the assumptions only by [`State::assume`], since
/// `ok` must stay the conjunction of `assumed`.
#[derive(Clone, Debug)]
pub(super) struct State<'ctx> {
    /// The current value of each instruction for thread 1 and thread 2.
    env: [BTreeMap<InstId, Term<'ctx>>; 2],
    /// Equality-abstracted objects: thread 1's copy and thread 2's (the same for global
    /// memory; shared memory has one copy per group).
    eq: BTreeMap<ObjectId, [Mem<'ctx>; 2]>,
    /// Private objects, per thread (a uniform one shares its array).
    private: [BTreeMap<ObjectId, Mem<'ctx>>; 2],
    /// Thread 1's race logs, per checked object.
    logs: BTreeMap<ObjectId, Logs<'ctx>>,
    /// History of repetition-free atomics, per object.
    used: BTreeMap<ObjectId, Used<'ctx>>,
    /// Barrier-invariant access witnesses, per object a barrier invariant reads.
    perm: BTreeMap<ObjectId, Witness<'ctx>>,
    /// The conjunction of the assumptions made so far (Boogie's `assume`): a property is
    /// violated only by executions that satisfy the assumptions before it. Private with
    /// `assumed` and `asm`: [`State::assume`] keeps the three in step.
    ok: Bool<'ctx>,
    /// The assumptions made so far, one by one (`ok` is their conjunction): a loop cut's ghost
    /// copy of an earlier iteration holds those its body made before the logged access.
    assumed: Vec<Bool<'ctx>>,
    /// Every assumption of the encoding, shared by all states (`ok` is one of its constants).
    asm: Rc<RefCell<Assumptions<'ctx>>>,
}

impl<'ctx> State<'ctx> {
    pub(super) fn new(ok: Bool<'ctx>, asm: Rc<RefCell<Assumptions<'ctx>>>) -> Self {
        State {
            env: [BTreeMap::new(), BTreeMap::new()],
            eq: BTreeMap::new(),
            private: [BTreeMap::new(), BTreeMap::new()],
            logs: BTreeMap::new(),
            used: BTreeMap::new(),
            perm: BTreeMap::new(),
            ok,
            assumed: Vec::new(),
            asm,
        }
    }

    /// Thread `t`'s value of instruction `i`, if it has one.
    pub(super) fn value(&self, t: usize, i: InstId) -> Option<&Term<'ctx>> {
        self.env[t].get(&i)
    }

    /// Sets thread `t`'s value of instruction `i`.
    pub(super) fn set_value(&mut self, t: usize, i: InstId, v: Term<'ctx>) {
        self.env[t].insert(i, v);
    }

    /// Both threads' values (to be restored by [`State::restore_values`]).
    pub(super) fn values(&self) -> &[BTreeMap<InstId, Term<'ctx>>; 2] {
        &self.env
    }

    /// Both threads' values as [`State::values`] gave them.
    pub(super) fn restore_values(&mut self, saved: [BTreeMap<InstId, Term<'ctx>>; 2]) {
        self.env = saved;
    }

    /// An equality-abstracted object's two copies (thread 1's, thread 2's).
    pub(super) fn eq_copies(&self, o: ObjectId) -> Option<&[Mem<'ctx>; 2]> {
        self.eq.get(&o)
    }

    /// [`State::eq_copies`], to write.
    pub(super) fn eq_copies_mut(&mut self, o: ObjectId) -> Option<&mut [Mem<'ctx>; 2]> {
        self.eq.get_mut(&o)
    }

    /// Sets an equality-abstracted object's two copies.
    pub(super) fn set_eq_copies(&mut self, o: ObjectId, copies: [Mem<'ctx>; 2]) {
        self.eq.insert(o, copies);
    }

    /// The equality-abstracted objects, in order.
    pub(super) fn eq_objects(&self) -> Vec<ObjectId> {
        self.eq.keys().copied().collect()
    }

    /// Thread `t`'s copy of private object `o`.
    pub(super) fn private(&self, t: usize, o: ObjectId) -> Option<&Mem<'ctx>> {
        self.private[t].get(&o)
    }

    /// [`State::private`], to write.
    pub(super) fn private_mut(&mut self, t: usize, o: ObjectId) -> Option<&mut Mem<'ctx>> {
        self.private[t].get_mut(&o)
    }

    /// Sets thread `t`'s copy of private object `o`.
    pub(super) fn set_private(&mut self, t: usize, o: ObjectId, m: Mem<'ctx>) {
        self.private[t].insert(o, m);
    }

    /// Thread 1's race logs of object `o`, if it is checked.
    pub(super) fn logs(&self, o: ObjectId) -> Option<&Logs<'ctx>> {
        self.logs.get(&o)
    }

    /// [`State::logs`], to write.
    pub(super) fn logs_mut(&mut self, o: ObjectId) -> Option<&mut Logs<'ctx>> {
        self.logs.get_mut(&o)
    }

    /// Sets the race logs of object `o`.
    pub(super) fn set_logs(&mut self, o: ObjectId, logs: Logs<'ctx>) {
        self.logs.insert(o, logs);
    }

    /// Every checked object's race logs.
    pub(super) fn all_logs(&self) -> &BTreeMap<ObjectId, Logs<'ctx>> {
        &self.logs
    }

    /// [`State::all_logs`], to write.
    pub(super) fn all_logs_mut(&mut self) -> impl Iterator<Item = &mut Logs<'ctx>> {
        self.logs.values_mut()
    }

    /// The values repetition-free atomics returned so far on object `o`.
    pub(super) fn used(&self, o: ObjectId) -> Option<&Used<'ctx>> {
        self.used.get(&o)
    }

    /// [`State::used`], to write.
    pub(super) fn used_mut(&mut self, o: ObjectId) -> Option<&mut Used<'ctx>> {
        self.used.get_mut(&o)
    }

    /// [`State::used`], to write, made empty when there is none.
    pub(super) fn used_or_default(&mut self, o: ObjectId) -> &mut Used<'ctx> {
        self.used.entry(o).or_default()
    }

    /// Sets what repetition-free atomics returned so far on object `o`.
    pub(super) fn set_used(&mut self, o: ObjectId, used: Used<'ctx>) {
        self.used.insert(o, used);
    }

    /// The barrier-invariant access witness of object `o`.
    pub(super) fn witness(&self, o: ObjectId) -> Option<&Witness<'ctx>> {
        self.perm.get(&o)
    }

    /// Sets the barrier-invariant access witness of object `o`.
    pub(super) fn set_witness(&mut self, o: ObjectId, w: Witness<'ctx>) {
        self.perm.insert(o, w);
    }

    /// The objects with a barrier-invariant access witness, in order.
    pub(super) fn witness_objects(&self) -> Vec<ObjectId> {
        self.perm.keys().copied().collect()
    }

    /// Whether any object has a barrier-invariant access witness.
    pub(super) fn has_witnesses(&self) -> bool {
        !self.perm.is_empty()
    }

    /// Every barrier-invariant access witness, to write.
    pub(super) fn witnesses_mut(&mut self) -> impl Iterator<Item = &mut Witness<'ctx>> {
        self.perm.values_mut()
    }

    /// The conjunction of the assumptions made so far: a property's violation is conjoined
    /// with it.
    pub(super) fn ok(&self) -> &Bool<'ctx> {
        &self.ok
    }

    /// The assumptions made so far, one by one, in order.
    pub(super) fn assumed(&self) -> &[Bool<'ctx>] {
        &self.assumed
    }

    /// Every assumption of the encoding, shared by all states (slices and rechecks of the
    /// cone, log facts).
    pub(super) fn assumptions(&self) -> &Rc<RefCell<Assumptions<'ctx>>> {
        &self.asm
    }

    /// Adds an assumption: `ok` becomes the constant of its definition
    /// ([`Assumptions::assume`]), or false.
    pub(super) fn assume(&mut self, c: &Bool<'ctx>) {
        self.assumed.push(c.clone());
        let c = c.simplify();
        match c.as_bool() {
            Some(true) => {}
            Some(false) => self.ok = Bool::from_bool(c.get_ctx(), false),
            None if self.ok.as_bool() == Some(false) => {}
            None => self.ok = self.asm.borrow_mut().assume(&self.ok, &c),
        }
    }
}

use z3::ast::Ast;
