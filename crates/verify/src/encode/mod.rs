//! The two-thread, predicated lock-step encoding (GPUVerify method; ESOP 2013 §4).
//!
//! Two threads with symbolic ids execute the kernel in lock-step: every block of the
//! lock-step order ([`syncfix_kir::Cfg`]) is executed by both threads under a per-thread
//! predicate; a `phi` is an `ite` over the incoming edges' predicates. Loops are either
//! unrolled completely (when an unwinding check proves that no further iteration exists) or
//! cut at their head and proved with invariants ([`loops`]).
//!
//! The encoder's methods are split by idea: [`control`] (predicates, edges, phis),
//! [`scalar`] (operations on values), [`access`] (loads, stores, atomics and the memory
//! models), [`race`] (race logs and checks), [`barrier`] (barriers and divergence),
//! [`permission`] (barrier invariants' access checks); loops live in [`loops`].
//!
//! The [`Encoder`] holds parts with one job each and private fields: [`symbols`] (the
//! constants the encoding is made of), [`state`] (what a loop can modify), [`schedule`]
//! (edges, predicates, position), [`obligations`] (properties and their instances),
//! [`frames`] (the loops being executed and cut), [`invariants`] (Houdini's candidates),
//! [`budget`] (limits and what was spent). What the encoder gives the verifier is the
//! [`Encoding`], made of the final parts, and the types of [`encoding`] (the instances,
//! properties and candidates they hold).
//!
//! The modules that define the parts and the output types import none of the modules that
//! add methods to the [`Encoder`], nor this one, so no module imports one that imports it.

mod access;
mod barrier;
mod budget;
mod control;
pub(crate) mod encoding;
mod frames;
mod invariants;
mod loops;
mod obligations;
mod permission;
mod race;
mod scalar;
mod schedule;
mod state;
mod symbols;

pub(crate) use encoding::{new_solver, HavockedLog, LogUse};
pub use encoding::{
    AccessInstance, BarrierInstance, BoundedLoop, Candidate, CutLoop, LogFact, PropKind, Property, ReadInstance, WaitInstance,
};

use state::{Incoming, State};

use budget::Budget;
use frames::LoopFrames;
use invariants::Invariants;
use obligations::Obligations;
use schedule::Schedule;
use symbols::Symbols;

use crate::abstraction::{Abstraction, Model};
use crate::analysis::Analysis;
use crate::memory::{Logs, Mem};
use crate::uniformity::Uniformity;
use crate::{VerifyError, VerifyOptions};
use syncfix_kir::{BlockId, Cfg, Kernel, LoopId, ObjectId, Space, Span};
use z3::ast::{Bool, Dynamic};
use z3::Context;

/// The encoder's output, made of the encoder's parts as they are at the end: the launch's
/// symbols and the background facts ([`Symbols`]), the properties and the instances they speak
/// of ([`Obligations`]), Houdini's candidates and their checks ([`Invariants`]), the loops
/// bounded and cut ([`LoopFrames`]). Outside the encoder they are read only.
pub struct Encoding<'ctx> {
    /// The assumptions that the properties' and checks' `ok` constants stand for.
    pub(crate) assumptions: std::rc::Rc<std::cell::RefCell<crate::cone::Assumptions<'ctx>>>,
    /// The barrier variables, the launch's symbols, the facts every query needs (thread ids'
    /// ranges and distinctness, launch sizes: a query's own solver starts from them), the
    /// kernel's parameters.
    pub(crate) symbols: Symbols<'ctx>,
    /// The properties, the access, barrier and wait instances, the loop cuts' log facts.
    pub(crate) obligations: Obligations<'ctx>,
    /// The candidate invariants and their checks.
    pub(crate) invariants: Invariants<'ctx>,
    /// The loops unrolled to a bound and the loops cut.
    pub(crate) frames: LoopFrames<'ctx>,
    /// Solver calls made while encoding (unwinding checks), and their time.
    pub solver_calls: u32,
    pub solve_time: std::time::Duration,
}

/// Encodes one kernel ([`Encoder::run`]): the kernel and what the analyses found about it,
/// and the parts the encoding is built in, each with one job and its own invariants
/// ([`Symbols`], [`State`], [`Schedule`], [`Obligations`], [`LoopFrames`], [`Invariants`],
/// [`Budget`]). Its methods, spread over this module's children by idea, execute the
/// kernel's blocks, instructions and loops on them.
pub(crate) struct Encoder<'ctx, 'k> {
    ctx: &'ctx Context,
    /// The kernel encoded, its lock-step order, its memory models and the options.
    kernel: &'k Kernel,
    cfg: &'k Cfg,
    abs: &'k Abstraction,
    opts: &'k VerifyOptions,
    /// What the static analyses found: the loops' modsets, phis and exits, the values the
    /// race logs depend on ([`Analysis`]).
    analysis: Analysis,
    /// Uniformity across any two threads, and within a group (group ids count as uniform:
    /// what barrier divergence needs).
    uniformity: Uniformity,
    uniformity_in_group: Uniformity,
    /// The kernel makes asynchronous copies (race logs may hold pending accesses).
    has_async: bool,
    /// The constants the encoding is made of (barrier variables, launch, parameters, fresh ones).
    symbols: Symbols<'ctx>,
    /// The two threads' values, memory, race logs and assumptions at the current point.
    state: State<'ctx>,
    /// The edges pending, the blocks' predicates, the schedule position.
    schedule: Schedule<'ctx>,
    /// The properties to check and the instances they speak of.
    obligations: Obligations<'ctx>,
    /// The loops being executed and cut, and those bounded or cut.
    frames: LoopFrames<'ctx>,
    /// Houdini's candidate invariants and their checks.
    invariants: Invariants<'ctx>,
    /// The limits, the deadline, and what the encoding spent.
    budget: Budget,
    /// The fields of the race logs made fresh at loop cuts: instrumentation, read by no
    /// program value (a ghost iteration leaves out the facts about them: `log_fact`).
    log_fields: crate::cone::TermSet<z3::ast::Dynamic<'ctx>>,
}

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    pub(crate) fn new(
        ctx: &'ctx Context,
        k: &'k Kernel,
        cfg: &'k Cfg,
        abs: &'k Abstraction,
        num_vars: usize,
        opts: &'k VerifyOptions,
    ) -> Self {
        let symbols = Symbols::new(ctx, k, num_vars, opts);
        let analysis = Analysis::compute(k, cfg, abs, &|g| opts.site_active(g));
        let multi_group = !opts.only_intra_group && k.multi_block();
        let uniformity = Uniformity::compute(k, cfg, abs, &analysis, multi_group);
        let uniformity_in_group = Uniformity::compute(k, cfg, abs, &analysis, false);
        Encoder {
            ctx,
            kernel: k,
            cfg,
            abs,
            opts,
            analysis,
            uniformity,
            uniformity_in_group,
            has_async: k.insts.values().any(|i| matches!(i.kind, syncfix_kir::InstKind::AsyncPending { .. })),
            symbols,
            state: State::new(Bool::from_bool(ctx, true), Default::default()),
            schedule: Schedule::new(crate::reconverge::control_equivalent(k, cfg)),
            obligations: Obligations::default(),
            frames: LoopFrames::default(),
            invariants: Invariants::default(),
            budget: Budget::new(opts),
            log_fields: Default::default(),
        }
    }

    /// Encodes the whole kernel.
    pub(crate) fn run(mut self) -> Result<Encoding<'ctx>, VerifyError> {
        self.symbols.init_params(self.kernel);
        self.init_memory();
        self.init_permissions();
        let t = Bool::from_bool(self.ctx, true);
        self.schedule.set_incoming(self.kernel.entry, vec![Incoming { pred: [t.clone(), t], phis: vec![] }]);
        let order = self.cfg.top_order.clone();
        self.exec_items(&order)?;
        let (solver_calls, solve_time) = self.budget.spent();
        Ok(Encoding {
            assumptions: self.state.assumptions().clone(),
            symbols: self.symbols,
            obligations: self.obligations,
            invariants: self.invariants,
            frames: self.frames,
            solver_calls,
            solve_time,
        })
    }

    /// Errors with [`VerifyError::Timeout`] once the deadline has passed or the caller has
    /// cancelled ([`crate::VerifyOptions::cancel`]).
    pub(super) fn check_deadline(&self) -> Result<(), VerifyError> {
        self.budget.check_deadline()
    }

    fn init_memory(&mut self) {
        let ctx = self.ctx;
        for (o, obj) in self.kernel.objects.iter() {
            let g = self.abs.granule[o];
            match self.abs.model(o) {
                Model::Private => {
                    let shared = obj.uniform.then(|| self.symbols.fresh_mem(&obj.name, g));
                    for t in 0..2 {
                        let m = match &shared {
                            Some(m) => m.clone(),
                            None => self.symbols.fresh_mem(&format!("{}${}", obj.name, t + 1), g),
                        };
                        self.state.set_private(t, o, m);
                    }
                }
                Model::Equality if obj.init.is_some() => {
                    let cells = obj.init.as_ref().map(|i| i.cells.as_slice()).unwrap_or(&[]);
                    let a = Mem::initialised(ctx, g, cells, !self.abs.written[o]);
                    self.state.set_eq_copies(o, [a.clone(), a]);
                }
                Model::Equality => {
                    let a = self.symbols.fresh_mem(&obj.name, g);
                    let b = if obj.space == Space::Shared { self.symbols.fresh_mem(&obj.name, g) } else { a.clone() };
                    self.state.set_eq_copies(o, [a, b]);
                }
                Model::Adversarial => {}
            }
            let checked = self.opts.check_arrays.as_ref().is_none_or(|names| names.contains(&obj.name));
            if obj.space != Space::Private && obj.space != Space::Constant && self.abs.written[o] && checked {
                let bits = self.analysis.value_bits[o];
                self.state.set_logs(o, Logs::new(ctx, bits));
            }
        }
    }

    /// Records a loop cut's facts about the logs of `object` for the solvers that can mention
    /// `guard`, a fresh constant made with stamp `stamp` ([`Encoding::log_facts`]).
    /// `own`: the havocked log fields the facts describe (they join the guard's class of the
    /// cone of influence, `cone`; the log before the loop and the ghost iteration do not).
    pub(super) fn assert_log_fact(&mut self, stamp: u32, guard: &Bool<'ctx>, object: ObjectId, facts: &Bool<'ctx>, own: &[Dynamic<'ctx>]) {
        let fact = guard.implies(facts);
        self.state.assumptions().borrow_mut().add_log_fact(&fact, object, stamp, guard, own);
        self.obligations.add_log_fact(LogFact { fact });
    }

    // ---- properties ------------------------------------------------------------------

    /// Records a property unless its condition is trivially false.
    pub(super) fn property(&mut self, cond: Bool<'ctx>, kind: PropKind<'ctx>) {
        self.property_tolerant(cond, None, kind);
    }

    /// [`Encoder::property`] of a race whose condition `cond` tolerates benign races; `strict`
    /// is the same condition without the tolerance ([`Property::strict`]).
    pub(super) fn property_tolerant(&mut self, cond: Bool<'ctx>, strict: Option<Bool<'ctx>>, kind: PropKind<'ctx>) {
        self.obligations.property(cond, strict, kind, self.schedule.position(), self.symbols.stamp(), self.state.ok());
    }

    /// Whether assertions here are checked on the first iteration of their innermost loop
    /// (or outside loops).
    pub(super) fn first_iteration(&self) -> bool {
        self.frames.first_iteration()
    }

    /// The loops (innermost first) that contain block `b`.
    pub(super) fn enclosing_loops(&self, b: BlockId) -> Vec<LoopId> {
        let mut v = vec![];
        let mut l = self.cfg.loop_of[b];
        while let Some(x) = l {
            v.push(x);
            l = self.cfg.loops[x].parent;
        }
        v
    }

    /// Where loop `header`'s loop is in the source: the first of its header block's
    /// instructions (and terminator) with a line, in the main file if one is there (clang
    /// gives phis and compiler-made instructions line 0).
    pub(super) fn header_span(&self, header: BlockId) -> Span {
        let blk = &self.kernel.blocks[header];
        let spans: Vec<&Span> = blk.insts.iter().map(|i| &self.kernel.insts[*i].span).chain(std::iter::once(&blk.term_span)).collect();
        let has_line = |s: &&&Span| s.frames.iter().any(|l| l.line > 0);
        spans
            .iter()
            .filter(has_line)
            .find(|s| s.in_main().is_some_and(|l| l.line > 0))
            .or_else(|| spans.iter().find(has_line))
            .map(|s| (*s).clone())
            .unwrap_or_default()
    }
}
