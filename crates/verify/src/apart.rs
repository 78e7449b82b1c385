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

use crate::{run_check, Stats, Verdict, VerifyOptions};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use z3::ast::{Ast, Bool};
use z3::{Config, Context, Model, SatResult, Solver};

/// What a call apart answered: the result and, when satisfiable, the model in the caller's
/// context.
pub(crate) type Answer<'ctx> = (SatResult, Option<Model<'ctx>>);

self_cell::self_cell!(
    /// A Z3 context and a solver of it.
    struct Cell {
        owner: Context,
        #[covariant]
        dependent: Solver,
    }
);

/// A solver in a Z3 context of its own, kept between calls (Houdini keeps one per group of
/// checks, so that a round solved again after another group dropped a candidate costs
/// milliseconds). Formulas and assumptions are given in the caller's context and translated;
/// the model comes back translated. No term of its context leaves it.
pub(crate) struct ApartSolver {
    cell: Cell,
}

impl ApartSolver {
    /// An empty solver for the kernel's logic (`encode::new_solver`) in a new context (about
    /// 1 ms).
    pub fn new() -> ApartSolver {
        ApartSolver { cell: Cell::new(Context::new(&Config::new()), crate::encode::new_solver) }
    }

    /// Asserts `formulas` (of any one context), translated together so that the terms they
    /// share are translated once.
    pub fn assert<'ctx>(&self, formulas: &[&Bool<'ctx>]) {
        let Some(first) = formulas.first() else { return };
        let all = if formulas.len() == 1 { (*first).clone() } else { Bool::and(first.get_ctx(), formulas) };
        self.cell.with_dependent(|fresh, solver| solver.assert(&all.translate(fresh)));
    }

    /// Checks the assertions under `assumptions` (none: `check` without assumptions, so
    /// that Z3's tactics apply), within `rlimit` resource units when given (`Ok(None)` when
    /// they ran out first, as `run_check`); the model is translated into `ctx`. `dump`: a path
    /// to write the problem to, as SMT-LIB with its assumptions asserted (for debugging).
    ///
    /// Errors: [`Verdict::Timeout`] when the time limit or the deadline passed (or the
    /// caller cancelled), [`Verdict::Unknown`] when Z3 gave up.
    pub fn check<'ctx>(
        &self,
        ctx: &'ctx Context,
        opts: &VerifyOptions,
        stats: &mut Stats,
        assumptions: &[Bool<'ctx>],
        rlimit: Option<u32>,
        capped: bool,
        dump: Option<std::path::PathBuf>,
    ) -> Result<Option<Answer<'ctx>>, Verdict> {
        self.cell.with_dependent(|fresh, solver| {
            let a: Vec<Bool<'_>> = assumptions.iter().map(|x| x.translate(fresh)).collect();
            if let Some(path) = dump {
                let mut text = solver.to_string();
                for x in &a {
                    text.push_str(&format!("(assert {x})\n"));
                }
                let _ = std::fs::write(path, text);
            }
            let check = |s: &Solver<'_>| if a.is_empty() { s.check() } else { s.check_assumptions(&a) };
            let r = interruptible(fresh, opts.cancel.as_ref(), || run_check(solver, opts, stats, rlimit, capped, check))?;
            Ok(r.map(|r| {
                let model = (r == SatResult::Sat).then(|| solver.get_model()).flatten();
                (r, model.map(|m| m.translate(ctx)))
            }))
        })
    }
}

/// A solver and its assumptions in a Z3 context of its own.
struct Prepared<'a> {
    solver: Solver<'a>,
    assumptions: Vec<Bool<'a>>,
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
        let mut cell =
            JobCell::new(Context::new(&Config::new()), |fresh| Prepared { solver: crate::encode::new_solver(fresh), assumptions: vec![] });
        cell.with_dependent_mut(|fresh, p| {
            if let Some(first) = asserted.first() {
                let all = if asserted.len() == 1 { (*first).clone() } else { Bool::and(first.get_ctx(), asserted) };
                p.solver.assert(&all.translate(fresh));
            }
            // Each assumption as a literal of this context equivalent to it (a term
            // translated here cannot be kept: its type would tie it to the caller's context).
            for (i, x) in assumptions.iter().enumerate() {
                let lit = Bool::new_const(fresh, format!("assumption!{i}"));
                p.solver.assert(&lit._eq(&x.translate(fresh)));
                p.assumptions.push(lit);
            }
        });
        Detached { cell }
    }

    /// The model of the last solve, when it was satisfiable, translated into `ctx` (on the
    /// thread that owns `ctx`).
    pub fn model<'ctx>(&self, ctx: &'ctx Context) -> Option<Model<'ctx>> {
        self.cell.with_dependent(|_, p| p.solver.get_model().map(|m| m.translate(ctx)))
    }

    /// Solves the call as [`ApartSolver::check`] does (`Ok(None)`: `rlimit` ran out), on the
    /// calling thread; `stop` (or `opts.cancel`), once set, interrupts it, and it ends as a
    /// timeout.
    pub fn solve(
        &self,
        opts: &VerifyOptions,
        stats: &mut Stats,
        rlimit: Option<u32>,
        stop: &AtomicBool,
    ) -> Result<Option<SatResult>, Verdict> {
        self.cell.with_dependent(|fresh, p| {
            let mut flags = vec![stop];
            flags.extend(opts.cancel.as_deref());
            let check = |s: &Solver<'_>| if p.assumptions.is_empty() { s.check() } else { s.check_assumptions(&p.assumptions) };
            let r = interruptible_by(fresh, &flags, || run_check(&p.solver, opts, stats, rlimit, true, check))?;
            if stop.load(Ordering::Relaxed) {
                return Err(Verdict::Timeout);
            }
            Ok(r)
        })
    }
}

/// Solves `asserted` under `assumptions` on a new [`ApartSolver`] (see
/// [`ApartSolver::check`]).
pub(crate) fn solve<'ctx>(
    ctx: &'ctx Context,
    opts: &VerifyOptions,
    stats: &mut Stats,
    asserted: &[&Bool<'ctx>],
    assumptions: &[Bool<'ctx>],
    rlimit: Option<u32>,
    capped: bool,
    dump: Option<std::path::PathBuf>,
) -> Result<Option<Answer<'ctx>>, Verdict> {
    let solver = ApartSolver::new();
    solver.assert(asserted);
    solver.check(ctx, opts, stats, assumptions, rlimit, capped, dump)
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
    match solve(ctx, opts, stats, &asserted, &[], rlimit, true, None) {
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
