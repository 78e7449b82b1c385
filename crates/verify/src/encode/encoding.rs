//! What the encoder gives the verifier ([`super::Encoding`] is made of parts that hold
//! these): the threads' ids, the properties and their instances, Houdini's candidates and
//! checks, the loops unrolled or cut.

use syncfix_kir::{AssertKind, InstId, LoopId, ObjectId, Scope, Span, VarId};
use z3::ast::{Bool, BV};
use z3::{Context, Probe, Solver, Tactic};

/// Symbolic ids of one thread (32-bit), per dimension.
#[derive(Clone, Debug)]
pub struct ThreadSyms<'ctx> {
    pub local: [BV<'ctx>; 3],
    pub group: [BV<'ctx>; 3],
}

/// One execution of a memory access in the schedule.
#[derive(Clone, Debug)]
pub struct AccessInstance<'ctx> {
    pub inst: InstId,
    pub pos: u32,
    pub kind: crate::memory::AccessKind,
    pub object: ObjectId,
    /// Made by an external (specified) function, not by the kernel's code.
    pub external: bool,
    /// Thread 1's byte offset, width in bytes, value, predicate and `changed` flag: what a
    /// log entry of this instance holds (a loop cut copies them for earlier iterations).
    pub off1: BV<'ctx>,
    pub width: u32,
    pub val1: BV<'ctx>,
    pub pred1: Bool<'ctx>,
    /// How many assumptions were made before it (`State::assumed`).
    pub assumed: usize,
    /// It is an asynchronous copy's access (OpenCL `async_work_group_copy`): a barrier orders
    /// it only after thread 1's next wait ([`WaitInstance`]).
    pub async_copy: bool,
}

/// One execution of a load from shared or global memory by one thread, kept so that a trace
/// can give the replay the memory contents its model chose (issue 29: the thread read `val`,
/// `bytes` bytes at byte offset `off` of `object`, where `pred` holds).
#[derive(Clone, Debug)]
pub struct ReadInstance<'ctx> {
    pub object: ObjectId,
    pub pos: u32,
    pub off: BV<'ctx>,
    pub bytes: u32,
    pub val: BV<'ctx>,
    pub pred: Bool<'ctx>,
}

/// One execution of `wait_group_events` (the user's, or a wait-then-barrier candidate's) in
/// the schedule: thread 1's asynchronous copies so far are complete where `pred1` holds and
/// the wait is on (`var` enabled, or no variable).
#[derive(Clone, Debug)]
pub struct WaitInstance<'ctx> {
    pub pos: u32,
    pub var: Option<VarId>,
    pub pred1: Bool<'ctx>,
}

/// One execution of a barrier in the schedule.
#[derive(Clone, Debug)]
pub struct BarrierInstance<'ctx> {
    pub inst: InstId,
    pub pos: u32,
    pub var: Option<VarId>,
    pub scope: Scope,
    pub pred: [Bool<'ctx>; 2],
    /// Thread 1's fences: orders local (shared) memory, orders global memory.
    pub local1: Bool<'ctx>,
    pub global1: Bool<'ctx>,
    /// The loops (innermost first) this instance runs in.
    pub loops: Vec<LoopId>,
    /// A site left out of the encoding ([`crate::VerifyOptions::active_sites`]): recorded
    /// for traces only, as its variable off.
    pub ghost: bool,
}

/// What a property checks.
#[derive(Clone, Debug)]
pub enum PropKind<'ctx> {
    /// Thread 2's access `check` conflicts with thread 1's logged access of kind `logged`.
    Race { check: usize, logged: crate::memory::AccessKind, who: BV<'ctx>, off2: BV<'ctx> },
    /// Barrier instance `barrier` is reached by one thread and not the other.
    Divergence { barrier: usize },
    /// An assertion of thread `thread` (0 or 1) fails; `first_iteration`: a loop invariant
    /// checked on entry to its loop (else: at the end of an iteration).
    Assert { inst: InstId, thread: usize, kind: AssertKind, first_iteration: bool },
    /// Thread `thread` writes constant memory.
    ConstantWrite { inst: InstId, thread: usize },
    /// Thread `thread` accesses outside its array (`off`: its byte offset).
    OutOfBounds { inst: InstId, thread: usize, off: BV<'ctx> },
}

/// A property violation condition at a schedule position.
#[derive(Clone, Debug)]
pub struct Property<'ctx> {
    pub cond: Bool<'ctx>,
    pub pos: u32,
    pub kind: PropKind<'ctx>,
    /// [`super::Encoder::stamp`] when `cond` was built: it mentions no fresh constant made later.
    pub stamp: u32,
    /// The state's `ok` when `cond` was built (the assumptions it holds under).
    pub ok: Bool<'ctx>,
    /// A race's condition without GPUVerify's benign-race tolerance (the two accesses
    /// overlap, whatever their values), when `cond` tolerates some: implied by `cond`, so a
    /// query refuted with these in place of its conditions is refuted
    /// (`Verifier::refuted_without_values`).
    pub strict: Option<Bool<'ctx>>,
}

/// A loop cut's facts about its race logs, `guard → facts` ([`super::Encoder::assert_log_fact`]).
/// `guard` is a fresh constant and is assumed only in the state after the cut's head: a
/// formula that does not mention `guard` can set it false, and needs no such fact. (The
/// slices of `cone` take them by object and stamp; these are for `SYNCFIX_DUMP_SMT`.)
#[derive(Clone, Debug)]
pub struct LogFact<'ctx> {
    pub fact: Bool<'ctx>,
}

/// What a loop cut's havocked race log may hold when it holds an access (its log fact,
/// `loops/cut/havoc.rs`): the entry's log unchanged (`entry`, that log's `who`; `None` when
/// that log is certainly empty), or one of
/// the loop body's accesses of its object and kind in a ghost copy of an earlier iteration
/// (`earlier`: each access's byte offset with the ghost's constants, and its width in bytes).
#[derive(Clone, Debug)]
pub(crate) struct HavockedLog<'ctx> {
    pub entry: Option<BV<'ctx>>,
    pub earlier: Vec<(BV<'ctx>, u32)>,
}

/// Which loop cuts' log facts a formula needs: none (it reads no race log), one object's,
/// or all.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LogUse {
    None,
    Object(ObjectId),
    All,
}

/// A loop whose unrolling stopped at a bound before it was complete (`--loop-unwind`).
#[derive(Clone, Debug)]
pub struct BoundedLoop {
    pub header_span: Span,
    pub bound: u32,
    pub reason: String,
}

/// A candidate loop invariant (Houdini): assumed at its loop's head when its literal is on,
/// checked on entry and at the end of each iteration.
#[derive(Clone, Debug)]
pub struct Candidate<'ctx> {
    pub lit: Bool<'ctx>,
    pub loop_id: LoopId,
    /// Its family and formula, for `--verbose` and tests (`loop counter bound: i >=s 0`).
    pub what: String,
    /// A formula over the program's values alone (not the race logs, not the user's): its
    /// inductiveness does not depend on the barrier assignment when no barrier havocs or
    /// constrains values (see `Verifier::houdini`).
    pub over_values: bool,
    /// The race logs its formula reads (`LogUse::None` for those over values).
    pub logs: LogUse,
}

/// A check of a candidate: violated when `cond` holds.
#[derive(Clone, Debug)]
pub struct CandidateCheck<'ctx> {
    pub cand: usize,
    pub cond: Bool<'ctx>,
    /// [`super::Encoder::stamp`] when `cond` was built.
    pub stamp: u32,
    /// How many candidates existed when `cond` was built: `cond` can mention only their
    /// literals (a term cannot contain a constant made after it), so whether it can hold
    /// depends on no later candidate (see `Verifier::houdini`).
    pub cands_before: usize,
    /// The state's `ok` when `cond` was built.
    pub ok: Bool<'ctx>,
}

/// A loop proved with invariants instead of unrolled.
#[derive(Clone, Debug)]
pub struct CutLoop {
    pub loop_id: LoopId,
    pub header_span: Span,
}

/// A solver for the kernel's theories: bit-vectors, arrays, uninterpreted functions. Naming
/// the logic lets Z3 choose its tactic for it (Z3 4.8's general solver is much slower on some
/// of our queries: seconds become minutes).
pub(crate) fn new_solver(ctx: &Context) -> Solver<'_> {
    Solver::new_for_logic(ctx, "QF_AUFBV").unwrap_or_else(|| Solver::new(ctx))
}

/// A solver for a check without assumptions whose formula the bit-vector tactics of
/// [`new_one_shot_solver`] decline: Z3's preprocessing (simplification, propagation of values,
/// elimination of solved and unconstrained terms) and then its `qfbv` strategy.
pub(crate) fn new_preprocessed_solver(ctx: &Context) -> Solver<'_> {
    preprocessed_then(ctx, "qfbv")
}

/// Z3's preprocessing of [`new_preprocessed_solver`] and then its SMT core: for a Houdini
/// check whose formula keeps arrays.
pub(crate) fn new_preprocessed_smt_solver(ctx: &Context) -> Solver<'_> {
    preprocessed_then(ctx, "smt")
}

/// Z3's preprocessing (simplification, propagation of values, elimination of solved and
/// unconstrained terms) and then the tactic `last`, as a solver.
fn preprocessed_then<'c>(ctx: &'c Context, last: &str) -> Solver<'c> {
    let t = |name: &str| Tactic::new(ctx, name);
    t("simplify")
        .and_then(&t("propagate-values"))
        .and_then(&t("solve-eqs"))
        .and_then(&t("elim-uncnstr"))
        .and_then(&t("simplify"))
        .and_then(&t(last))
        .solver()
}

/// The most congruence lemmas (Z3's `ackr-bound-probe`) a formula's uninterpreted functions
/// may need for [`new_one_shot_solver`] to take it: past it the solver for the logic, whose
/// congruence closure handles them lazily (the CUDA SDK's binomialOptions, its floating-point
/// operations uninterpreted: 270 lemmas, its queries 1.4 s against 1.1 s; SimpleBinomialOptions
/// 30 lemmas, 1.4 s against 0.5–1.0 s; PolyBench symm 12, adi 3).
const ACKERMANN_BOUND: f64 = 24.0;

/// A solver for a check without assumptions (or a few, each after more formulas, each solved
/// from scratch): Z3's preprocessing for bit-vectors (simplification, propagation of values,
/// elimination of solved and unconstrained terms, narrowing of bit-vectors, sharing), the
/// uninterpreted functions reduced to bit-vectors by Ackermann's reduction, then bit-blasting
/// into Z3's SAT solver. It fails (Z3's unknown, "fail tactic") on a formula that keeps arrays
/// or that needs more than [`ACKERMANN_BOUND`] congruence lemmas; the caller then solves it
/// with the solver for the logic (`apart`). Measured against the solver for the logic, whose
/// tactic for QF_AUFBV hands such formulas to its SMT core: the properties of PolyBench's and
/// the CUDA SDK's invariants over `/` and `%` 1.6–2.2× faster (adi's race properties 5.0, 7.0,
/// 7.4 s → 2.5–2.9 s; `vertical_shfl`'s 2.0, 2.2, 4.2 s → 1.0–2.3 s), some of symm's 1.5 s
/// against 1.9 s.
pub(crate) fn new_one_shot_solver(ctx: &Context) -> Solver<'_> {
    let t = |name: &str| Tactic::new(ctx, name);
    let preamble = t("simplify")
        .and_then(&t("propagate-values"))
        .and_then(&t("solve-eqs"))
        .and_then(&t("elim-uncnstr"))
        .and_then(&t("reduce-bv-size"))
        .and_then(&t("simplify"))
        .and_then(&t("max-bv-sharing"));
    let blast = t("bit-blast").and_then(&t("sat"));
    let fail = Tactic::create_fail(ctx);
    let bv = t("ackermannize_bv").and_then(&Tactic::cond(ctx, &Probe::new(ctx, "is-qfbv"), &blast, &fail));
    let few = Probe::new(ctx, "ackr-bound-probe").le(&Probe::constant(ctx, ACKERMANN_BOUND));
    let tactic = preamble.and_then(&Tactic::cond(ctx, &few, &bv, &fail));
    tactic.solver()
}
