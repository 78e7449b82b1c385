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
/// The value, memory and log maps are plain data the encoder's steps read and write where
/// they execute an instruction (`pub(super)` inside `encode`); the assumptions are private,
/// since `ok` must stay the conjunction of `assumed` ([`State::assume`]).
#[derive(Clone, Debug)]
pub(super) struct State<'ctx> {
    /// The current value of each instruction for thread 1 and thread 2.
    pub(super) env: [BTreeMap<InstId, Term<'ctx>>; 2],
    /// Equality-abstracted objects: thread 1's copy and thread 2's (the same for global
    /// memory; shared memory has one copy per group).
    pub(super) eq: BTreeMap<ObjectId, [Mem<'ctx>; 2]>,
    /// Private objects, per thread (a uniform one shares its array).
    pub(super) private: [BTreeMap<ObjectId, Mem<'ctx>>; 2],
    /// Thread 1's race logs, per checked object.
    pub(super) logs: BTreeMap<ObjectId, Logs<'ctx>>,
    /// History of repetition-free atomics, per object.
    pub(super) used: BTreeMap<ObjectId, Used<'ctx>>,
    /// Barrier-invariant access witnesses, per object a barrier invariant reads.
    pub(super) perm: BTreeMap<ObjectId, Witness<'ctx>>,
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
