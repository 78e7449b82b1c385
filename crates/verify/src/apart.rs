//! A solver call in a Z3 context of its own (issue 25: cost linear in the kernel).
//!
//! The encoding of a kernel lives in one context, and every term of it stays alive while the
//! verifier runs. Z3's tactics for QF_AUFBV (simplification, elimination of unconstrained
//! terms, bit-blasting) keep tables indexed by term id, so part of a call's work grows with
//! the whole context, not with the formula solved: one race query of the `loops` scaling
//! family at n = 320 took 0.32 s in the encoding's context and 0.045 s, the same formula, in a
//! fresh one. With every query and Houdini round that cost made the verifier quadratic in the
//! kernel. Here the formulas of one call are translated (`Z3_translate`, linear in their size)
//! into a new context (about 1 ms to make), solved there, and the model translated back.

use crate::call::WallCap;
use crate::{run_check, Stats, Verdict, VerifyOptions};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use z3::ast::{Ast, Bool};
use z3::{Config, Context, Model, SatResult, Solver};

/// What a call apart answered: the result and, when satisfiable, the model in the caller's
/// context.
pub(crate) type Answer<'ctx> = (SatResult, Option<Model<'ctx>>);

/// A solver of one context and, for one check without assumptions, a fallback holding the
/// same formulas: the first is then Z3's bit-vector tactics (`encode::new_one_shot_solver`),
/// which decline a formula with arrays or many uninterpreted functions' applications, and the
/// second ([`Fallback`]: the solver for the logic unless asked otherwise) answers what they
/// decline.
struct Solvers<'a> {
    solver: Solver<'a>,
    /// One-shot: a solver that only holds the formulas asserted (Z3's `skip` tactic), for the
    /// fallback, which is made when first needed (the solver for the logic costs milliseconds
    /// to set up; the tactics' solver may hold its formulas simplified once it has checked).
    formulas: Option<Solver<'a>>,
    fallback: Option<Solver<'a>>,
    fallback_kind: Fallback,
}

/// The solver behind the bit-vector tactics of a check without assumptions, for the formulas
/// they decline. Measured on the slow kernels' Houdini checks (README, "Slow real kernels"),
/// neither is faster on every formula: the preprocessing refutes or satisfies in 0.2–1 s some
/// of mri-gridding's checks that take the solver for the logic 2–6 s, and makes some of
/// stereoDisparity's slower (its kernel 9.1 -> 10.9 s when every check used it).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Fallback {
    /// The solver for the logic (`encode::new_solver`).
    Logic,
    /// Z3's preprocessing for bit-vectors and its `qfbv` strategy
    /// (`encode::new_preprocessed_solver`).
    Preprocessed,
    /// Z3's preprocessing for bit-vectors and its SMT core
    /// (`encode::new_preprocessed_smt_solver`).
    PreprocessedSmt,
}

impl<'a> Solvers<'a> {
    /// For checks under assumptions (or kept between checks with different ones): the solver
    /// for the logic alone; `one_shot`: the tactics, and `fallback_kind` behind them.
    fn new(ctx: &'a Context, one_shot: bool, fallback_kind: Fallback) -> Solvers<'a> {
        if one_shot {
            let holder = z3::Tactic::create_skip(ctx).solver();
            Solvers { solver: crate::encode::encoding::new_one_shot_solver(ctx), formulas: Some(holder), fallback: None, fallback_kind }
        } else {
            Solvers { solver: crate::encode::encoding::new_solver(ctx), formulas: None, fallback: None, fallback_kind }
        }
    }

    fn assert(&self, f: &Bool<'a>) {
        self.solver.assert(f);
        if let Some(h) = &self.formulas {
            h.assert(f);
        }
        if let Some(fb) = &self.fallback {
            fb.assert(f);
        }
    }

    /// `run` on the solver; with a fallback, on it too when the tactics declined the formula
    /// (Z3's unknown for another reason than a limit: `Verdict::Unknown`) or gave a model
    /// that does not satisfy it (the fallback holds the formulas as asserted; the tactics'
    /// solver may hold them simplified). The answer, and whether the fallback gave it.
    fn check(
        &mut self,
        ctx: &'a Context,
        mut run: impl FnMut(&Solver<'a>) -> Result<Option<SatResult>, Verdict>,
    ) -> (Result<Option<SatResult>, Verdict>, bool) {
        let r = run(&self.solver);
        let Some(holder) = &self.formulas else { return (r, false) };
        let declined = match &r {
            Err(Verdict::Unknown(_)) => true,
            Ok(Some(SatResult::Sat)) => !model_satisfies(&self.solver, &holder.get_assertions()),
            _ => false,
        };
        if !declined {
            return (r, false);
        }
        let fb = self.fallback.get_or_insert_with(|| {
            let fb = match self.fallback_kind {
                Fallback::Preprocessed => crate::encode::encoding::new_preprocessed_solver(ctx),
                Fallback::Logic => crate::encode::encoding::new_solver(ctx),
                Fallback::PreprocessedSmt => crate::encode::encoding::new_preprocessed_smt_solver(ctx),
            };
            for f in holder.get_assertions() {
                fb.assert(&f);
            }
            fb
        });
        (run(fb), true)
    }

    /// The solver that gave the last answer (`by_fallback`: [`Solvers::check`]'s flag).
    fn answered(&self, by_fallback: bool) -> &Solver<'a> {
        match (&self.fallback, by_fallback) {
            (Some(fb), true) => fb,
            _ => &self.solver,
        }
    }
}

/// Whether `solver`'s model (after a satisfiable check) makes every formula of `formulas`
/// true.
fn model_satisfies(solver: &Solver<'_>, formulas: &[Bool<'_>]) -> bool {
    let Some(m) = solver.get_model() else { return false };
    formulas.iter().all(|f| m.eval(f, true).and_then(|b| b.as_bool()) == Some(true))
}

self_cell::self_cell!(
    /// A Z3 context and its solvers.
    struct Cell {
        owner: Context,
        #[covariant]
        dependent: Solvers,
    }
);

/// A solver in a Z3 context of its own, kept between calls (Houdini keeps one per group of
/// checks, so that a round solved again after another group dropped a candidate costs
/// milliseconds). Formulas and assumptions are given in the caller's context and translated;
/// the model comes back translated. No term of its context leaves it.
pub(crate) struct ApartSolver {
    /// Always `Some` but in `drop`.
    cell: Option<Cell>,
    /// The verifier's deadline and cancel flag: once either has ended the run, the context is
    /// deleted on the reaper's thread ([`reap`]) rather than on the caller's.
    deadline: Option<std::time::Instant>,
    cancel: Option<std::sync::Arc<AtomicBool>>,
}

impl Drop for ApartSolver {
    fn drop(&mut self) {
        let Some(cell) = self.cell.take() else { return };
        let ended = self.deadline.is_some_and(|d| std::time::Instant::now() >= d)
            || self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        if ended {
            reap(cell);
        }
    }
}

/// A [`Cell`] on its way to the reaper.
struct Owned {
    _cell: Cell,
}

// SAFETY: a `Cell` owns its Z3 context, and no term of that context is held outside it
// (formulas are translated in, models translated out); Z3 allows distinct contexts on
// distinct threads, and once handed to the reaper no other thread uses this one.
unsafe impl Send for Owned {}

/// Deletes `cell` on a thread of its own, once the run has ended at its deadline. Deleting a
/// context that Houdini used for a large kernel takes long (0.67 s for HeCBench ssm's
/// `selective_scan_vllm_kernel` with CUDA's own CUB, stopped at its 30 s limit; 25–35 ms a
/// kernel otherwise), and the timeout verdict need not wait for it: at a 60 s limit it made
/// the run overrun by more than the watchdog's second, and the verdicts of the file's other
/// kernels were lost with it. Where no thread can be started, the cell is deleted here.
fn reap(cell: Cell) {
    use std::sync::{mpsc, Mutex, OnceLock};
    static REAPER: OnceLock<Option<Mutex<mpsc::Sender<Owned>>>> = OnceLock::new();
    let reaper = REAPER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Owned>();
        let spawned = std::thread::Builder::new().name("syncfix-z3-reaper".into()).spawn(move || {
            for owned in rx {
                drop(owned);
            }
        });
        spawned.ok().map(|_| Mutex::new(tx))
    });
    let owned = Owned { _cell: cell };
    let unsent = match reaper {
        Some(tx) => tx.lock().unwrap_or_else(|e| e.into_inner()).send(owned).err().map(|e| e.0),
        None => Some(owned),
    };
    drop(unsent);
}

impl ApartSolver {
    /// An empty solver for the kernel's logic (`encode::new_solver`) in a new context (about
    /// 1 ms), for a verifier with `opts`.
    pub fn new(opts: &VerifyOptions) -> ApartSolver {
        ApartSolver::with(opts, false, Fallback::Logic)
    }

    /// An empty solver in a new context for checks without assumptions: Z3's bit-vector
    /// tactics, the solver for the logic where they decline (see [`Solvers`]). Several checks,
    /// each after more formulas, are solved from scratch.
    pub fn one_shot(opts: &VerifyOptions) -> ApartSolver {
        ApartSolver::with(opts, true, Fallback::Logic)
    }

    fn with(opts: &VerifyOptions, one_shot: bool, fallback: Fallback) -> ApartSolver {
        ApartSolver {
            cell: Some(Cell::new(Context::new(&Config::new()), |ctx| Solvers::new(ctx, one_shot, fallback))),
            deadline: opts.deadline,
            cancel: opts.cancel.clone(),
        }
    }

    fn cell(&self) -> &Cell {
        self.cell.as_ref().expect("an ApartSolver's cell is taken only when it is dropped")
    }

    fn cell_mut(&mut self) -> &mut Cell {
        self.cell.as_mut().expect("an ApartSolver's cell is taken only when it is dropped")
    }

    /// Asserts `formulas` (of any one context), translated together so that the terms they
    /// share are translated once.
    pub fn assert<'ctx>(&self, formulas: &[&Bool<'ctx>]) {
        let Some(first) = formulas.first() else { return };
        let all = if formulas.len() == 1 { (*first).clone() } else { Bool::and(first.get_ctx(), formulas) };
        self.cell().with_dependent(|fresh, solvers| solvers.assert(&all.translate(fresh)));
    }

    /// Checks the assertions under `assumptions` (none: `check` without assumptions, so
    /// that Z3's tactics apply), within `rlimit` resource units when given (`Ok(None)` when
    /// they ran out first, as `run_check`); the model is translated into `ctx`. `dump`: a path
    /// to write the problem to, as SMT-LIB with its assumptions asserted (for debugging).
    ///
    /// Errors: [`Verdict::Timeout`] when the time limit or the deadline passed (or the
    /// caller cancelled), [`Verdict::Unknown`] when Z3 gave up.
    pub fn check<'ctx>(
        &mut self,
        ctx: &'ctx Context,
        opts: &VerifyOptions,
        stats: &mut Stats,
        assumptions: &[Bool<'ctx>],
        rlimit: Option<u32>,
        cap: WallCap,
        dump: Option<std::path::PathBuf>,
    ) -> Result<Option<Answer<'ctx>>, Verdict> {
        self.cell_mut().with_dependent_mut(|fresh, solvers| {
            let a: Vec<Bool<'_>> = assumptions.iter().map(|x| x.translate(fresh)).collect();
            if let Some(path) = dump {
                write_problem(&path, &solvers.solver, &a);
            }
            let check = |s: &Solver<'_>| if a.is_empty() { s.check() } else { s.check_assumptions(&a) };
            let (r, by_fallback) =
                solvers.check(fresh, |s| interruptible(fresh, opts.cancel.as_ref(), || run_check(s, opts, stats, rlimit, cap, check)));
            let solver = solvers.answered(by_fallback);
            Ok(r?.map(|r| {
                let model = (r == SatResult::Sat).then(|| solver.get_model()).flatten();
                (r, model.map(|m| m.translate(ctx)))
            }))
        })
    }
}

/// Solvers and assumptions in a Z3 context of its own.
struct Prepared<'a> {
    solvers: Solvers<'a>,
    assumptions: Vec<Bool<'a>>,
    /// Whether the last answer was the fallback's ([`Solvers::check`]).
    by_fallback: bool,
}

self_cell::self_cell!(
    /// A Z3 context and a prepared call of it.
    struct JobCell {
        owner: Context,
        #[covariant]
        dependent: Prepared,
    }
);

/// A solver call prepared on the caller's thread, its formulas and assumptions translated
/// into a context of its own, to be solved on another thread
/// ([`crate::Verifier::check`] solves the next queries while it waits for one). Only the
/// answer comes back: no term or model of its context leaves it.
pub(crate) struct Detached {
    cell: JobCell,
}

// SAFETY: a `Detached` owns its Z3 context, and no term of that context is held outside it
// (the formulas were translated in, nothing is translated out); Z3 allows distinct contexts
// to be used on distinct threads, and this one is used by one thread at a time (prepared on
// the caller's, then moved to a worker, which solves and drops it).
unsafe impl Send for Detached {}

impl Detached {
    /// `asserted` (of the caller's context) asserted and `assumptions` translated, in a new
    /// context.
    pub fn new<'ctx>(asserted: &[&Bool<'ctx>], assumptions: &[Bool<'ctx>]) -> Detached {
        let one_shot = assumptions.is_empty();
        let mut cell = JobCell::new(Context::new(&Config::new()), |fresh| Prepared {
            solvers: Solvers::new(fresh, one_shot, Fallback::Logic),
            assumptions: vec![],
            by_fallback: false,
        });
        cell.with_dependent_mut(|fresh, p| {
            if let Some(first) = asserted.first() {
                let all = if asserted.len() == 1 { (*first).clone() } else { Bool::and(first.get_ctx(), asserted) };
                p.solvers.assert(&all.translate(fresh));
            }
            // Each assumption as a literal of this context equivalent to it (a term
            // translated here cannot be kept: its type would tie it to the caller's context).
            for (i, x) in assumptions.iter().enumerate() {
                let lit = Bool::new_const(fresh, format!("assumption!{i}"));
                p.solvers.assert(&lit._eq(&x.translate(fresh)));
                p.assumptions.push(lit);
            }
        });
        Detached { cell }
    }

    /// Writes the call to `path` as an SMT-LIB problem, its assumptions asserted (for
    /// debugging, as [`ApartSolver::check`]'s `dump`).
    pub fn dump(&self, path: &std::path::Path) {
        self.cell.with_dependent(|_, p| write_problem(path, &p.solvers.solver, &p.assumptions));
    }

    /// The model of the last solve, when it was satisfiable, translated into `ctx` (on the
    /// thread that owns `ctx`).
    pub fn model<'ctx>(&self, ctx: &'ctx Context) -> Option<Model<'ctx>> {
        self.cell.with_dependent(|_, p| p.solvers.answered(p.by_fallback).get_model().map(|m| m.translate(ctx)))
    }

    /// Solves the call as [`ApartSolver::check`] does (`Ok(None)`: `rlimit` ran out, within
    /// a wall-clock cap too as `cap` says: `run_check`), on the calling thread; `stop` (or
    /// `opts.cancel`), once set, interrupts it, and it ends as a timeout.
    pub fn solve(
        &mut self,
        opts: &VerifyOptions,
        stats: &mut Stats,
        rlimit: Option<u32>,
        cap: WallCap,
        stop: &AtomicBool,
    ) -> Result<Option<SatResult>, Verdict> {
        self.cell.with_dependent_mut(|fresh, p| {
            let mut flags = vec![stop];
            flags.extend(opts.cancel.as_deref());
            let assumptions = &p.assumptions;
            let check = |s: &Solver<'_>| if assumptions.is_empty() { s.check() } else { s.check_assumptions(assumptions) };
            let (r, by_fallback) =
                p.solvers.check(fresh, |s| interruptible_by(fresh, &flags, || run_check(s, opts, stats, rlimit, cap, check)));
            p.by_fallback = by_fallback;
            let r = r?;
            if stop.load(Ordering::Relaxed) {
                return Err(Verdict::Timeout);
            }
            Ok(r)
        })
    }
}

/// Writes what `solver` holds to `path` as an SMT-LIB problem, `assumptions` asserted after it
/// (add `(check-sat)` to replay it with Z3's CLI); a write that fails is ignored (debugging).
fn write_problem(path: &std::path::Path, solver: &Solver<'_>, assumptions: &[Bool<'_>]) {
    let mut text = solver.to_string();
    for x in assumptions {
        text.push_str(&format!("(assert {x})\n"));
    }
    let _ = std::fs::write(path, text);
}

/// Solves `asserted` under `assumptions` on a new [`ApartSolver`] (see
/// [`ApartSolver::check`]): one made by [`ApartSolver::one_shot`] when there are none.
pub(crate) fn solve<'ctx>(
    ctx: &'ctx Context,
    opts: &VerifyOptions,
    stats: &mut Stats,
    asserted: &[&Bool<'ctx>],
    assumptions: &[Bool<'ctx>],
    rlimit: Option<u32>,
    cap: WallCap,
    dump: Option<std::path::PathBuf>,
) -> Result<Option<Answer<'ctx>>, Verdict> {
    if assumptions.is_empty() {
        return solve_one_shot(ctx, opts, stats, asserted, rlimit, cap, dump, Fallback::Logic);
    }
    let mut solver = ApartSolver::new(opts);
    solver.assert(asserted);
    solver.check(ctx, opts, stats, assumptions, rlimit, cap, dump)
}

/// Solves `asserted` without assumptions on a new [`ApartSolver::one_shot`] whose formulas
/// the bit-vector tactics decline are solved by `fallback` (see [`ApartSolver::check`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_one_shot<'ctx>(
    ctx: &'ctx Context,
    opts: &VerifyOptions,
    stats: &mut Stats,
    asserted: &[&Bool<'ctx>],
    rlimit: Option<u32>,
    cap: WallCap,
    dump: Option<std::path::PathBuf>,
    fallback: Fallback,
) -> Result<Option<Answer<'ctx>>, Verdict> {
    let mut solver = ApartSolver::with(opts, true, fallback);
    solver.assert(asserted);
    solver.check(ctx, opts, stats, &[], rlimit, cap, dump)
}

/// Whether `facts` (one class of assumptions left out of a slice, its shared constants
/// pinned: `cone::Assumptions::recheck`) are satisfiable: `Some(Some(model))` or
/// `Some(None)`, or `None` when undecided within [`CLASS_BUDGET`] or on an error.
pub(crate) fn class_satisfiable<'ctx>(
    ctx: &'ctx Context,
    opts: &VerifyOptions,
    stats: &mut Stats,
    facts: &[Bool<'ctx>],
) -> Option<Option<Model<'ctx>>> {
    let asserted: Vec<&Bool<'ctx>> = facts.iter().collect();
    let rlimit = crate::rlimit_within(opts, CLASS_BUDGET);
    match solve(ctx, opts, stats, &asserted, &[], rlimit, WallCap::Loose, None) {
        Ok(Some((SatResult::Sat, Some(m)))) => Some(Some(m)),
        Ok(Some((SatResult::Unsat, _))) => Some(None),
        _ => None,
    }
}

/// The budget of one [`class_satisfiable`] call: past it the class is taken into the slice.
const CLASS_BUDGET: Duration = Duration::from_millis(500);

/// Runs `f`, whose solver calls are made in `ctx`, so that `cancel`, once set, interrupts the
/// running call (`Z3_interrupt`, polled every 20 ms by a watcher thread, which ends as soon as
/// `f` returns); the call then ends as a timeout. Without a flag, just `f()`. Used for every
/// call apart and, by syncfix's pipeline, for the encoding's context.
pub fn interruptible<T>(ctx: &Context, cancel: Option<&std::sync::Arc<AtomicBool>>, f: impl FnOnce() -> T) -> T {
    match cancel {
        Some(c) => interruptible_by(ctx, &[c], f),
        None => f(),
    }
}

/// [`interruptible`] by any of `flags`.
pub(crate) fn interruptible_by<T>(ctx: &Context, flags: &[&AtomicBool], f: impl FnOnce() -> T) -> T {
    if flags.is_empty() {
        return f();
    }
    let handle = ctx.handle();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if flags.iter().any(|c| c.load(Ordering::Relaxed)) {
                    handle.interrupt();
                }
                std::thread::park_timeout(Duration::from_millis(20));
            }
        });
        /// Ends the watcher (at once) when `f` returns or panics.
        struct Done<'a>(&'a AtomicBool, std::thread::Thread);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
                self.1.unpark();
            }
        }
        let _done = Done(&done, watcher.thread().clone());
        f()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Array, BV};

    /// The tests' terms: `x` and `y` (32 bits), an array `a` of 32-bit elements at 32-bit
    /// indices, and 7.
    fn terms(ctx: &Context) -> (BV<'_>, BV<'_>, Array<'_>, BV<'_>) {
        let bv32 = z3::Sort::bitvector(ctx, 32);
        let a = Array::new_const(ctx, "a", &bv32, &bv32);
        (BV::new_const(ctx, "x", 32), BV::new_const(ctx, "y", 32), a, BV::from_u64(ctx, 7, 32))
    }

    /// A one-shot check of a formula with an array (which the bit-vector tactics decline) is
    /// answered by the solver for the logic, and its model satisfies the formula; one without
    /// is answered by the tactics, and a satisfiable one's model too (the equation that
    /// `solve-eqs` eliminates holds in it).
    #[test]
    fn one_shot_answers_with_a_model_of_the_formula() {
        let ctx = Context::new(&Config::new());
        let opts = VerifyOptions::default();
        let (x, y, a, seven) = terms(&ctx);
        let with_array = Bool::and(&ctx, &[&a.select(&x).as_bv().unwrap()._eq(&seven), &x.bvugt(&seven)]);
        let plain = Bool::and(&ctx, &[&y._eq(&x.bvadd(&seven)), &x.bvugt(&seven), &y.bvult(&BV::from_u64(&ctx, 20, 32))]);
        for f in [&with_array, &plain] {
            let mut stats = Stats::default();
            let answer = solve(&ctx, &opts, &mut stats, &[f], &[], None, WallCap::Off, None).expect("an answer");
            let (r, model) = answer.expect("no budget");
            assert_eq!(r, SatResult::Sat);
            let m = model.expect("a model");
            assert_eq!(m.eval(f, true).and_then(|b| b.as_bool()), Some(true), "{f}");
        }
        let unsat = Bool::and(&ctx, &[&plain, &y._eq(&BV::from_u64(&ctx, 10, 32))]);
        let mut stats = Stats::default();
        let answer = solve(&ctx, &opts, &mut stats, &[&unsat], &[], None, WallCap::Off, None).expect("an answer");
        assert_eq!(answer.map(|a| a.0), Some(SatResult::Unsat));
    }

    /// With either preprocessed fallback (`qfbv` or the SMT core), a formula whose array terms
    /// stay after the bit-vector tactics' preprocessing (so that they decline it) is answered
    /// by the fallback, with a model of the formula as asserted; one refuted is refuted.
    #[test]
    fn the_preprocessed_fallbacks_answer_with_a_model_of_the_formula() {
        for fallback in [Fallback::Preprocessed, Fallback::PreprocessedSmt] {
            let ctx = Context::new(&Config::new());
            let opts = VerifyOptions::default();
            let (x, y, a, seven) = terms(&ctx);
            // An equation between arrays: no bit-vector formula says it.
            let same = a.store(&x, &seven)._eq(&a.store(&y, &seven));
            let sat = Bool::and(&ctx, &[&same, &x.bvugt(&seven), &y.bvult(&x)]);
            let mut stats = Stats::default();
            let answer = solve_one_shot(&ctx, &opts, &mut stats, &[&sat], None, WallCap::Off, None, fallback);
            let (r, model) = answer.expect("an answer").expect("no budget");
            assert_eq!(r, SatResult::Sat, "{fallback:?}");
            assert_eq!(stats.solver_calls, 2, "{fallback:?}: the tactics declined the formula, the fallback answered");
            let m = model.expect("a model");
            assert_eq!(m.eval(&sat, true).and_then(|b| b.as_bool()), Some(true), "{fallback:?}: {sat}");
            let unsat = Bool::and(&ctx, &[&sat, &a.select(&x).as_bv().unwrap()._eq(&BV::from_u64(&ctx, 8, 32))]);
            let mut stats = Stats::default();
            let answer = solve_one_shot(&ctx, &opts, &mut stats, &[&unsat], None, WallCap::Off, None, fallback);
            assert_eq!(answer.expect("an answer").map(|a| a.0), Some(SatResult::Unsat), "{fallback:?}");
        }
    }
}
