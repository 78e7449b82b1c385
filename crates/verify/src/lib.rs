//! The verifier of syncfix: GPUVerify's method on KIR (ARCHITECTURE.md, "crates/verify").
//!
//! [`Verifier::new`] builds one SMT encoding of a (possibly instrumented) kernel: two threads
//! with symbolic ids, predicated lock-step execution, per-array abstraction, race logging and
//! checking with GPUVerify's benign-race tolerance, barrier divergence, block and grid
//! barriers with their fences. Barrier variables are free Boolean constants of that one
//! encoding; [`Verifier::check`] solves it under a candidate assignment passed as solver
//! assumptions (no re-encoding per repair iteration).
//!
//! Sources: Betts et al., "GPUVerify: a verifier for GPU kernels", OOPSLA 2012; Donaldson,
//! "The GPUVerify method", AVoCS 2014 (Tables 1-2); Collingbourne et al., ESOP 2013 §4
//! (lock-step predication of reducible CFGs); Joshi & Muduganti, GPURepair, VMCAI 2021 §2.2
//! (barrier variables, grid barriers).

mod abstraction;
mod analysis;
mod apart;
mod cone;
mod divide;
mod encode;
mod houdini;
mod loops;
mod memo;
mod memory;
mod query;
mod reconverge;
mod seed;
mod solve;
mod stride;
mod term;
mod trace;
mod uniformity;

pub use abstraction::{Abstraction, ForceAbstraction, Model};
pub use apart::interruptible;
pub use memory::AccessKind;
pub use seed::HoudiniSeed;
pub use trace::{Access, Defect, Race, ThreadIds, Trace};

use encode::{Encoder, Encoding};
use houdini::HoudiniGroup;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};
use syncfix_kir::{Cfg, Kernel, Span};
use z3::ast::Bool;
use z3::{Context, Params, SatResult, Solver};

/// Bounds on the unrolling (defaults in `configs/default.toml`).
#[derive(Copy, Clone, Debug)]
pub struct Limits {
    /// Most iterations of a loop unrolled (when its exits depend only on constants, launch
    /// sizes and ids, and it has no user invariant) before it is cut and proved with
    /// invariants instead.
    pub max_unwind: u32,
    /// Most instructions one loop's unrolling may execute before it is cut instead.
    pub max_unroll_instructions: u64,
    /// Most unwinding checks (solver calls) one loop's unrolling may make before it is cut
    /// instead.
    pub max_unwind_checks: u32,
    /// Most instructions executed by the whole encoding (both threads count once).
    pub max_instructions: u64,
}

impl Default for Limits {
    fn default() -> Self {
        // `configs/default.toml`'s values (syncfix_kir::defaults).
        use syncfix_kir::defaults as d;
        Limits {
            max_unwind: d::VERIFIER_MAX_UNWIND as u32,
            max_unroll_instructions: d::VERIFIER_MAX_UNROLL_INSTRUCTIONS as u64,
            max_unwind_checks: d::VERIFIER_MAX_UNWIND_CHECKS as u32,
            max_instructions: d::VERIFIER_MAX_INSTRUCTIONS as u64,
        }
    }
}

/// Options of the verifier (GPUVerify's flags).
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// `--equality-abstraction` / `--adversarial-abstraction`, or the per-array analysis.
    pub abstraction: ForceAbstraction,
    /// `--only-intra-group`: both threads are in the same group; inter-group races are not
    /// checked.
    pub only_intra_group: bool,
    /// GPUVerify's default benign-race tolerance (`--no-benign-tolerance` turns it off).
    pub benign_tolerance: bool,
    /// `--loop-unwind=N` (and `--findbugs`, N = 2): explore at most N iterations per loop;
    /// the result is then a bug or "no defect found up to N", never a proof.
    pub loop_unwind: Option<u32>,
    pub limits: Limits,
    /// Time limit of one solver call.
    pub timeout: Option<Duration>,
    /// `--timeout`: the whole verification ends by then. Checked before each block is
    /// encoded and before each solver call, whose own limit is the time left; past it the
    /// encoding fails with [`VerifyError::Timeout`] and a check gives [`Verdict::Timeout`].
    pub deadline: Option<Instant>,
    /// Set by the caller to end the verification early: checked where the deadline is, and
    /// then treated as a deadline that has passed ([`VerifyError::Timeout`],
    /// [`Verdict::Timeout`]); the caller tells the two apart by its flag.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Check data races (`--only-divergence` and `--only-log` turn this off; accesses are
    /// still logged for annotations that query the logs).
    pub race_checks: bool,
    /// `--asymmetric-asserts`: assertions are checked for the first thread only.
    pub asymmetric_asserts: bool,
    /// `--warp-sync=N`: threads of one warp of N threads run in lock-step, so only accesses
    /// of one instruction can race between them (Bardsley & Donaldson, NFM 2014 §3).
    pub warp_size: Option<u32>,
    /// `--check-array-bounds`: accesses to arrays of known size must stay in bounds.
    pub array_bounds: bool,
    /// `--vcgen-opt=/checkArrays:A,B`: check races on these arrays only (by source name).
    pub check_arrays: Option<Vec<String>>,
    /// Infer loop invariants (Houdini's candidates); `--no-infer` turns it off, leaving the
    /// user's invariants and the uniformity analysis.
    pub infer: bool,
    /// GPUVerify's barrier-invariant access check (`--no-barrier-access-checks` turns it off).
    pub barrier_access_checks: bool,
    /// Houdini's answers of an earlier verification, by kernel name, to start Houdini from
    /// (`seed`: the re-verification of a repair's patched source); a seed whose candidates
    /// are not the kernel's is not used.
    pub seeds: Option<std::sync::Arc<std::collections::HashMap<String, HoudiniSeed>>>,
    /// The barrier variables whose sites are encoded (indexed by variable; `None`: all). A
    /// site left out behaves as its variable off and costs nothing: no barrier interval, no
    /// divergence property, and its loop is a loop without barriers; it is still recorded
    /// where it lies in the schedule, so that a trace names it (issue 28: instrument where
    /// the race is). [`Verifier::check`] of an assignment that turns one on encodes again with
    /// it. Set by [`Verifier::with_sites`].
    pub active_sites: Option<std::sync::Arc<Vec<bool>>>,
    /// How many threads solve a check's queries at once (`--solver-threads`; 0: one per core).
    /// The queries are independent (`query::split`), so while the verifier's thread waits for
    /// one, the next are solved on other threads; the answer, the trace and the order in
    /// which queries count are those of solving them one after another.
    pub solver_threads: usize,
}

impl VerifyOptions {
    /// Whether the site of a barrier guarded by `g` is encoded ([`VerifyOptions::active_sites`]).
    pub fn site_active(&self, g: syncfix_kir::Guard) -> bool {
        match (g, &self.active_sites) {
            (syncfix_kir::Guard::Var(v), Some(a)) => a.get(syncfix_kir::EntityRef::index(v)).copied().unwrap_or(true),
            _ => true,
        }
    }
}

impl VerifyOptions {
    /// [`VerifyOptions::solver_threads`], 0 read as the number of cores.
    pub fn threads(&self) -> usize {
        match self.solver_threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// Whether [`VerifyOptions::cancel`] is set.
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            abstraction: ForceAbstraction::PerArray,
            only_intra_group: false,
            benign_tolerance: true,
            loop_unwind: None,
            limits: Limits::default(),
            timeout: None,
            deadline: None,
            cancel: None,
            race_checks: true,
            barrier_access_checks: true,
            asymmetric_asserts: false,
            warp_size: None,
            array_bounds: false,
            check_arrays: None,
            infer: true,
            seeds: None,
            active_sites: None,
            solver_threads: 0,
        }
    }
}

/// The outcome of one verification.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Free of data races, barrier divergence and assertion failures (a proof, modulo the
    /// two-thread abstraction's assumptions).
    Verified,
    /// Bug-finding mode: no defect within `bound` iterations per loop. Not a proof.
    NoErrorUpTo { bound: u32 },
    /// A defect, with a trace from the solver's model.
    Defect(Box<Trace>),
    /// The verifier cannot establish a verdict; the reason says why.
    Unknown(String),
    /// The solver ran out of time.
    Timeout,
}

/// Errors that stop the encoding itself.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("the kernel's control flow is not reducible (e.g. a goto into a loop); lock-step predication needs a reducible CFG")]
    Irreducible,
    #[error("the unrolled kernel exceeds {0} instructions; loop invariants are not supported yet")]
    TooLarge(u64),
    /// `/checkArrays` names an array the kernel does not have (GPUVerify: GPUVERIFYVCGEN_ERROR).
    #[error("Array name '{0}' specified for restricted checking is not found")]
    UnknownArray(String),
    /// `--equality-abstraction` on a kernel with atomics, whose arrays must be adversarial
    /// (NFM 2014 §4.1; GPUVerify: GPUVERIFYVCGEN_ERROR).
    #[error("--equality-abstraction cannot be used with atomics")]
    EqualityWithAtomics,
    /// The deadline passed while encoding.
    #[error("the time limit was reached")]
    Timeout,
    /// Something the verifier cannot encode (the verdict is `unknown`, with this reason).
    #[error("{0}")]
    Unsupported(String),
}

/// Counters for the benchmark.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Building the encoding, less the unwinding checks' solver time.
    pub encode_time: Duration,
    /// Every solver call: unwinding checks, Houdini's rounds and [`Verifier::check`].
    pub solve_time: Duration,
    /// Solver calls on the kernel's full encoding ([`Verifier::check`]): verifier calls.
    pub checks: u32,
    /// Every solver call (check-sat), the unwinding checks and Houdini's included.
    pub solver_calls: u32,
    /// Houdini's rounds and time (part of `solve_time`).
    pub houdini_rounds: u32,
    pub houdini_time: Duration,
    pub properties: usize,
    pub candidates: usize,
    pub access_instances: usize,
    pub barrier_instances: usize,
    /// Loops proved with invariants (cut) rather than unrolled.
    pub cut_loops: usize,
    /// Queries solved by [`Verifier::check`] (the properties split by barrier interval and
    /// object, one solver call each), and the slowest one: its label and time.
    pub queries: u32,
    pub slowest_query: Option<(String, Duration)>,
    /// Solver calls repeated with every assumption because the model of a call with those of
    /// its cone of influence only violated one left out (`cone`).
    pub cone_fallbacks: u32,
    /// Candidate invariants that Houdini dropped because checking one on its own ran past
    /// its budget ([`houdini`]'s `CHECK_BUDGET`): the invariant is weaker (still sound) and a
    /// race found through it may be spurious.
    pub houdini_unproved: u32,
    /// Houdini's checks answered from an earlier barrier assignment's ([`memo`]) instead of
    /// solved.
    pub houdini_reused: u32,
    /// Queries answered from an earlier barrier assignment's ([`memo`]) instead of solved.
    pub queries_reused: u32,
    /// Race queries refuted by the stride of their offsets ([`stride`]) instead of solved.
    pub queries_by_stride: u32,
    /// Race queries refuted with GPUVerify's benign-race tolerance left out (no two of
    /// their accesses can overlap, whatever the values) instead of solved with it
    /// ([`Property::strict`]).
    pub queries_without_values: u32,
    /// Whether Houdini started from a seed ([`VerifyOptions::seeds`]), and whether the check
    /// was then made again without it (the verdict under the seed was not verified).
    pub seeded: bool,
    pub seed_fallback: bool,
    /// How many times the kernel was encoded: once, and again each time a check turned on a
    /// site left out ([`VerifyOptions::active_sites`]); the sites of the latest encoding
    /// (`None`: every site).
    pub encodings: u32,
    pub sites_encoded: Option<usize>,
}

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Why the traces of this encoding do not replay under every barrier assignment (so the
    /// repair's clauses from them over-approximate, GPURepair §2.3), or `None` when they do:
    /// arrays under the equality abstraction (their values depend on the barriers), loops cut
    /// and proved with invariants (an iteration's state is havocked).
    pub fn inexact_reason(&self) -> Option<String> {
        let mut why = vec![];
        let eq: Vec<&str> = self
            .kernel
            .objects
            .iter()
            .filter(|(o, _)| self.abs.model(*o) == abstraction::Model::Equality)
            .map(|(_, obj)| obj.name.as_str())
            .collect();
        if !eq.is_empty() {
            why.push(format!("the equality abstraction of {}", eq.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")));
        }
        let lines: Vec<String> = self.enc.cut.iter().filter_map(|c| c.header_span.in_main().map(|l| l.line.to_string())).collect();
        if !self.enc.cut.is_empty() {
            why.push(if lines.is_empty() {
                "loops cut and proved with invariants".to_string()
            } else {
                format!(
                    "the loop{} at line{} {} cut and proved with invariants",
                    if lines.len() == 1 { "" } else { "s" },
                    if lines.len() == 1 { "" } else { "s" },
                    lines.join(", ")
                )
            });
        }
        (!why.is_empty()).then(|| why.join(" and "))
    }
}

/// Parameters for the next solver call: a fixed seed, no SIGINT handler of Z3's own (syncfix
/// handles Ctrl-C), and a time limit of the smaller of [`VerifyOptions::timeout`] and the time
/// left before the deadline. `Err(Timeout)` when no time is left.
pub(crate) fn solver_params<'ctx>(ctx: &'ctx Context, opts: &VerifyOptions) -> Result<Params<'ctx>, VerifyError> {
    if opts.cancelled() {
        return Err(VerifyError::Timeout);
    }
    let left = match opts.deadline {
        Some(d) => Some(d.checked_duration_since(Instant::now()).filter(|l| !l.is_zero()).ok_or(VerifyError::Timeout)?),
        None => None,
    };
    let mut params = Params::new(ctx);
    params.set_u32("random_seed", 0);
    params.set_bool("ctrl_c", false);
    // No resource limit (a kept solver may have had one: `timed_check_within`).
    params.set_u32("rlimit", 0);
    // Always set, so that a kept solver does not keep a budget's wall-clock cap (`run_check`);
    // Z3's default is no limit (u32::MAX).
    let t = [opts.timeout, left].into_iter().flatten().min();
    params.set_u32("timeout", t.map_or(u32::MAX, |t| t.as_millis().clamp(1, u32::MAX as u128) as u32));
    Ok(params)
}

/// `budget` in Z3's resource units (`rlimit`, about 10 million a second on the development
/// machine, so that what is solved how does not depend on the machine's load), or `None`
/// when the time limit or the deadline comes first (the call then has no resource limit).
pub(crate) fn rlimit_within(opts: &VerifyOptions, budget: Duration) -> Option<u32> {
    let left = opts.deadline.map(|d| d.saturating_duration_since(Instant::now()));
    let limit = [opts.timeout, left].into_iter().flatten().min();
    if limit.is_some_and(|l| l <= budget) {
        return None;
    }
    Some(((budget.as_secs_f64() * RLIMIT_PER_SECOND) as u32).max(1))
}

/// The one way a solver is called: [`solver_params`] (and the resource limit `rlimit`, if
/// any, `capped` in wall-clock time too), counted and timed into the stats. `Ok(None)` when
/// the resource limit ran out.
pub(crate) fn run_check<'ctx>(
    solver: &Solver<'ctx>,
    opts: &VerifyOptions,
    stats: &mut Stats,
    rlimit: Option<u32>,
    capped: bool,
    check: impl FnOnce(&Solver<'ctx>) -> SatResult,
) -> Result<Option<SatResult>, Verdict> {
    let mut params = solver_params(solver.get_context(), opts).map_err(|_| Verdict::Timeout)?;
    if let Some(units) = rlimit {
        params.set_u32("rlimit", units);
    }
    if let (Some(units), true) = (rlimit, capped) {
        // `capped`: a backstop in wall-clock time, for the budgets whose end changes only how
        // a formula is solved (a disjunction past its budget is solved in parts), not the
        // answer: Z3's resource units run far slower than RLIMIT_PER_SECOND on some formulas
        // (HeCBench match's Match5: a Houdini disjunction with a 1 s budget ran 12 to 27 s).
        let cap = Duration::from_secs_f64(units as f64 / RLIMIT_PER_SECOND * BUDGET_WALL_FACTOR).max(Duration::from_secs(1));
        let left = opts.deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let t = [opts.timeout, left, Some(cap)].into_iter().flatten().min().unwrap_or(cap);
        params.set_u32("timeout", t.as_millis().clamp(1, u32::MAX as u128) as u32);
    }
    solver.set_params(&params);
    stats.solver_calls += 1;
    let start = Instant::now();
    let r = check(solver);
    stats.solve_time += start.elapsed();
    match r {
        SatResult::Unknown => {
            let why = solver.get_reason_unknown().unwrap_or_default();
            let past_deadline = opts.cancelled() || opts.deadline.is_some_and(|d| Instant::now() >= d);
            // Z3 4.8 reports a spent resource limit as "canceled"; the caller made sure the
            // per-call timeout is longer than the budget.
            let stopped = why.contains("timeout") || why.contains("canceled") || why.contains("resource");
            if rlimit.is_some() && stopped && !past_deadline {
                Ok(None)
            } else if stopped || past_deadline {
                Err(Verdict::Timeout)
            } else {
                // Z3's reason can hold a whole formula (its SAT core's "interpreted functions
                // sent to SAT solver" lists every declaration): its first line, shortened.
                let first = why.lines().next().unwrap_or_default();
                let short: String = first.chars().take(REASON_CHARS).collect();
                let more = if short.len() < why.trim_end().len() { " …" } else { "" };
                Err(Verdict::Unknown(format!("the SMT solver gave up ({short}{more})")))
            }
        }
        r => Ok(Some(r)),
    }
}

/// The most characters of Z3's reason for an unknown answer that a verdict quotes.
const REASON_CHARS: usize = 160;

/// How many times its nominal time a budget in resource units may run in wall-clock time
/// before it is taken as spent (`run_check`).
const BUDGET_WALL_FACTOR: f64 = 3.0;

/// Z3's resource units per second of solving, roughly (measured on Houdini's rounds: 4 million
/// units in 0.42 s).
const RLIMIT_PER_SECOND: f64 = 10_000_000.0;

/// A kernel encoded once; candidate assignments are checked under assumptions (Houdini on a
/// solver per group of checks, kept between rounds; each query of the properties on a solver
/// of its own over the same terms).
pub struct Verifier<'ctx, 'k> {
    ctx: &'ctx Context,
    kernel: &'k Kernel,
    cfg: Cfg,
    abs: Abstraction,
    enc: Encoding<'ctx>,
    /// The kernel's properties split into independent queries (`query::split`), each solved
    /// on its own by [`Verifier::check`].
    queries: Vec<query::Query<'ctx>>,
    /// The candidates' checks split by loop, each group with a solver of its own (Houdini).
    houdini_groups: Vec<HoudiniGroup<'ctx>>,
    opts: VerifyOptions,
    /// Houdini's answer per barrier assignment.
    invariants: HashMap<Vec<bool>, Vec<bool>>,
    /// When no barrier havocs or constrains values (no equality-abstracted array, no barrier
    /// invariant), the candidates over values that Houdini kept the first time: the same for
    /// every assignment, so later runs start from them.
    value_invariants: Option<Vec<bool>>,
    values_free_of_barriers: bool,
    /// Answers that hold for other barrier assignments too ([`memo`]).
    memo: memo::AnswerMemo<'ctx>,
    /// Per query: what a slice of it was widened by before (`cone::Widened`), where its
    /// next slices start (only facts that hold are added, so every answer stands).
    widened: HashMap<usize, cone::Widened>,
    /// The queries (by label) whose whole disjunction ran past its budget in an earlier
    /// check, of this encoding or an earlier one of the kernel: solved in chunks at once
    /// (HeCBench nbnxm's 281 race properties on its shared buffer: 4.5 s spent on the
    /// disjunction at every check of a repair). Only how a query is solved depends on it.
    chunked: HashSet<String>,
    /// The race queries that [`stride`]'s abstraction refuted (true) or did not (false): it
    /// holds under every barrier assignment, so it is decided once per encoding.
    stride_refuted: HashMap<usize, bool>,
    /// The query whose model [`Verifier::solve_in_order`] returned last: the trace is
    /// chosen among its properties only (the queries before it were refuted, and its model
    /// need not satisfy the assumptions of their cones: a property of theirs may look
    /// violated in it, as an assertion over a quotient whose definition the slice left out).
    sat_query: Option<usize>,
    /// Houdini's candidates (loop, shape of the description: `seed::shape`) whose check was
    /// not decided within its budget in this encoding (`undecided`) and in the earlier ones of
    /// the kernel (`undecided_before`, dropped at once by this one: dropping is sound;
    /// HeCBench bitpacking's grid-stride congruence ran 9-12 s to its budget again after
    /// each re-encoding). Within one encoding the memo decides (`memo`).
    undecided: HashSet<(usize, String)>,
    undecided_before: HashSet<(usize, String)>,
    /// The candidates Houdini starts from, from [`VerifyOptions::seeds`] (`seed`), until a
    /// check under it is not verified.
    seed: Option<Vec<bool>>,
    /// [`Verifier::set_timeout`]'s limit on one check.
    check_limit: Option<Duration>,
    pub stats: Stats,
}

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Encodes `kernel`, whose barrier guards use variables `0..num_vars`.
    ///
    /// Errors: an irreducible CFG, an encoding larger than [`Limits::max_instructions`], the
    /// deadline, or something the verifier cannot encode.
    pub fn new(ctx: &'ctx Context, kernel: &'k Kernel, num_vars: usize, opts: &VerifyOptions) -> Result<Self, VerifyError> {
        let start = Instant::now();
        if let Some(names) = &opts.check_arrays {
            for n in names {
                if !kernel.objects.values().any(|o| &o.name == n) {
                    return Err(VerifyError::UnknownArray(n.clone()));
                }
            }
        }
        if opts.abstraction == ForceAbstraction::Equality
            && kernel.insts.values().any(|i| matches!(i.kind, syncfix_kir::InstKind::Atomic { .. }))
        {
            return Err(VerifyError::EqualityWithAtomics);
        }
        let cfg = Cfg::compute(kernel).map_err(|_| VerifyError::Irreducible)?;
        let abs = Abstraction::compute(kernel, opts.abstraction);
        let enc = Encoder::new(ctx, kernel, &cfg, &abs, num_vars, opts).run()?;
        let queries = query::split(ctx, kernel, &enc);
        // Every solver call has a solver of its own: each unwinding check (while encoding),
        // each group of Houdini's checks (`HoudiniGroup`, kept between rounds), each query.
        let houdini_groups = HoudiniGroup::split(&enc);
        solver_params(ctx, opts)?;
        // For debugging the encoding: SYNCFIX_DUMP_SMT=FILE writes the background facts and
        // the loop cuts' log facts.
        if let Some(path) = std::env::var_os("SYNCFIX_DUMP_SMT") {
            let solver = encode::new_solver(ctx);
            for b in enc.background.iter().chain(enc.log_facts.iter().map(|f| &f.fact)) {
                solver.assert(b);
            }
            let _ = std::fs::write(path, solver.to_string());
        }
        let stats = Stats {
            encode_time: start.elapsed().saturating_sub(enc.solve_time),
            solve_time: enc.solve_time,
            solver_calls: enc.solver_calls,
            properties: enc.props.len(),
            candidates: enc.candidates.len(),
            access_instances: enc.accesses.len(),
            barrier_instances: enc.barriers.len(),
            cut_loops: enc.cut.len(),
            encodings: 1,
            sites_encoded: opts.active_sites.as_ref().map(|a| a.iter().filter(|&&x| x).count()),
            ..Stats::default()
        };
        // A barrier havocs the written equality-abstracted arrays outside constant memory
        // (encode::barrier) and assumes barrier invariants; nothing else it does reaches values.
        let havocked = kernel
            .objects
            .iter()
            .any(|(o, obj)| abs.model(o) == abstraction::Model::Equality && abs.written[o] && obj.space != syncfix_kir::Space::Constant);
        let values_free_of_barriers = !havocked
            && !kernel
                .insts
                .values()
                .any(|i| matches!(i.kind, syncfix_kir::InstKind::Assert { kind: syncfix_kir::AssertKind::BarrierInvariant, .. }));
        let seed = opts.seeds.as_ref().and_then(|m| m.get(&kernel.name)).and_then(|s| s.kept_for(&enc.candidates));
        Ok(Verifier {
            seed,
            check_limit: None,
            ctx,
            kernel,
            cfg,
            abs,
            enc,
            queries,
            houdini_groups,
            opts: opts.clone(),
            invariants: HashMap::new(),
            value_invariants: None,
            values_free_of_barriers,
            memo: memo::AnswerMemo::default(),
            widened: HashMap::new(),
            chunked: HashSet::new(),
            stride_refuted: HashMap::new(),
            sat_query: None,
            undecided: HashSet::new(),
            undecided_before: HashSet::new(),
            stats,
        })
    }

    /// [`Verifier::new`] with only the sites of the barrier variables that `active` marks
    /// encoded (the others behave as off, [`VerifyOptions::active_sites`]); a check whose
    /// assignment turns on another encodes the kernel again with it.
    ///
    /// Errors: as [`Verifier::new`].
    pub fn with_sites(ctx: &'ctx Context, kernel: &'k Kernel, active: Vec<bool>, opts: &VerifyOptions) -> Result<Self, VerifyError> {
        let mut opts = opts.clone();
        let n = active.len();
        opts.active_sites = Some(std::sync::Arc::new(active));
        Verifier::new(ctx, kernel, n, &opts)
    }

    /// Encodes the kernel again with the sites that `assignment` turns on added to those
    /// encoded (issue 28: widened where a candidate needs a site). Houdini's answers, the
    /// remembered answers and the queries are the new encoding's; the counters go on.
    fn encode_sites_of(&mut self, assignment: &[bool]) -> Result<(), VerifyError> {
        let Some(active) = &self.opts.active_sites else { return Ok(()) };
        if !assignment.iter().enumerate().any(|(i, &on)| on && !active.get(i).copied().unwrap_or(true)) {
            return Ok(());
        }
        let wider: Vec<bool> = active.iter().enumerate().map(|(i, &a)| a || assignment.get(i).copied().unwrap_or(false)).collect();
        let mut opts = self.opts.clone();
        opts.active_sites = Some(std::sync::Arc::new(wider));
        let fresh = Verifier::new(self.ctx, self.kernel, self.enc.vars.len(), &opts)?;
        let mut stats = std::mem::take(&mut self.stats);
        stats.encode_time += fresh.stats.encode_time;
        stats.solve_time += fresh.stats.solve_time;
        stats.solver_calls += fresh.stats.solver_calls;
        stats.encodings += 1;
        stats.sites_encoded = fresh.stats.sites_encoded;
        (stats.properties, stats.candidates, stats.access_instances, stats.barrier_instances, stats.cut_loops) = (
            fresh.stats.properties,
            fresh.stats.candidates,
            fresh.stats.access_instances,
            fresh.stats.barrier_instances,
            fresh.stats.cut_loops,
        );
        let seed = if self.seed.is_some() { fresh.seed.clone() } else { None };
        let chunked = std::mem::take(&mut self.chunked);
        let check_limit = self.check_limit;
        let mut undecided_before = std::mem::take(&mut self.undecided_before);
        undecided_before.extend(std::mem::take(&mut self.undecided));
        *self = fresh;
        self.chunked = chunked;
        self.check_limit = check_limit;
        self.undecided_before = undecided_before;
        self.stats = stats;
        self.seed = seed;
        Ok(())
    }

    /// What Houdini kept under `assignment`, as a seed for another verification of the same
    /// kernel ([`VerifyOptions::seeds`]); `None` before a check of that assignment.
    pub fn houdini_seed(&self, assignment: &[bool]) -> Option<HoudiniSeed> {
        self.invariants.get(assignment).map(|k| HoudiniSeed::of(&self.enc.candidates, k))
    }

    /// Limits each later [`Verifier::check`] to `t` in all (Houdini's rounds and every query
    /// together; a check past it gives [`Verdict::Timeout`]), and each solver call within it:
    /// the repair loop passes the time left, or a share of it for a check it can do without.
    pub fn set_timeout(&mut self, t: Duration) {
        self.opts.timeout = Some(t);
        self.check_limit = Some(t);
    }

    /// The abstraction chosen for each object.
    pub fn abstraction(&self) -> &Abstraction {
        &self.abs
    }

    /// Loops whose unrolling was cut at a bound: (loop head location, bound, reason).
    pub fn bounded_loops(&self) -> Vec<(Span, u32, String)> {
        self.enc.bounded.iter().map(|b| (b.header_span.clone(), b.bound, b.reason.clone())).collect()
    }

    /// The candidate invariants and whether Houdini kept each under the last assignment
    /// checked: (loop head, description, kept).
    pub fn invariants(&self, assignment: &[bool]) -> Vec<(Span, String, bool)> {
        let kept = self.invariants.get(assignment);
        self.enc
            .candidates
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let span = self.enc.cut.iter().find(|x| x.loop_id == c.loop_id).map(|x| x.header_span.clone()).unwrap_or_default();
                (span, c.what.clone(), kept.is_some_and(|k| k[i]))
            })
            .collect()
    }

    /// Checks the kernel with barrier variable `i` set to `assignment[i]` (missing entries are
    /// false): Houdini first (when loops were cut), then one verifier call on the full
    /// encoding under the invariants it kept, solved as its queries (`query::split`), one
    /// solver call each in schedule order until one is satisfiable (its model gives the
    /// trace). `Verified` when every query is unsatisfiable.
    pub fn check(&mut self, assignment: &[bool]) -> Verdict {
        // [`Verifier::set_timeout`]'s limit, as the deadline of this check.
        let deadline = self.opts.deadline;
        if let Some(t) = self.check_limit {
            let end = Instant::now() + t;
            self.opts.deadline = Some(deadline.map_or(end, |d| d.min(end)));
        }
        let v = self.check_within(assignment);
        self.opts.deadline = deadline;
        v
    }

    fn check_within(&mut self, assignment: &[bool]) -> Verdict {
        match self.encode_sites_of(assignment) {
            Ok(()) => {}
            Err(VerifyError::Timeout) => return Verdict::Timeout,
            Err(e) => return Verdict::Unknown(e.to_string()),
        }
        let seeded = self.seed.is_some() && !self.invariants.contains_key(assignment);
        let v = self.check_once(assignment);
        if seeded {
            self.stats.seeded = true;
            // Houdini from a seed keeps an inductive set that may be weaker than its greatest
            // fixpoint: any verdict but a proof is made again from every candidate.
            if !matches!(v, Verdict::Verified | Verdict::NoErrorUpTo { .. } | Verdict::Timeout) {
                self.seed = None;
                self.invariants.remove(assignment);
                self.value_invariants = None;
                self.stats.seed_fallback = true;
                return self.check_once(assignment);
            }
        }
        v
    }

    fn check_once(&mut self, assignment: &[bool]) -> Verdict {
        let ctx = self.ctx;
        let lits: Vec<Bool<'ctx>> = self
            .enc
            .vars
            .iter()
            .enumerate()
            .map(|(i, v)| if assignment.get(i).copied().unwrap_or(false) { v.clone() } else { v.not() })
            .collect();
        let kept = match self.houdini(&lits, assignment) {
            Ok(k) => k,
            Err(v) => return v,
        };
        self.memo.assignment = assignment.to_vec();
        self.memo.kept = kept.clone();
        let mut base = lits;
        base.extend(self.enc.candidates.iter().zip(&kept).map(|(c, k)| if *k { c.lit.clone() } else { c.lit.not() }));
        self.stats.checks += 1;
        // One solver call per query, in schedule order; the first satisfiable one gives the
        // trace (see `query::split`).
        self.sat_query = None;
        let (r, model) = self.solve_in_order(&base);
        match r {
            Err(v) => v,
            Ok(SatResult::Unsat) => {
                if self.enc.bounded.is_empty() {
                    Verdict::Verified
                } else {
                    Verdict::NoErrorUpTo { bound: self.opts.loop_unwind.unwrap_or(0) }
                }
            }
            Ok(_) => match model {
                Some(model) => {
                    let exact = !self.abs.has_equality(self.kernel) && self.enc.cut.is_empty();
                    let props = self.sat_query.map(|q| self.queries[q].props.as_slice());
                    match trace::extract(ctx, self.kernel, &self.cfg, &self.enc, &model, props, assignment, exact) {
                        Some(t) => Verdict::Defect(Box::new(t)),
                        None => Verdict::Unknown("internal error: no violated property in the model".into()),
                    }
                }
                None => Verdict::Unknown("the SMT solver returned no model".into()),
            },
        }
    }
}
