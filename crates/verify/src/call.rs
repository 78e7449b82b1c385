//! The one way a solver is called (`run_check`): its parameters (a fixed seed, the time left),
//! budgets in Z3's resource units, and the reading of an unknown answer.

use crate::{Stats, Verdict, VerifyError, VerifyOptions};
use std::time::{Duration, Instant};
use z3::{Context, Params, SatResult, Solver};

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

/// How a call's budget in resource units is backed in wall-clock time ([`run_check`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum WallCap {
    /// The resource units alone: for the budgets whose end changes the answer (a Houdini
    /// candidate dropped undecided), as deterministic as Z3 is.
    Off,
    /// [`BUDGET_WALL_FACTOR`] times the budget (at least a second): for the budgets whose end
    /// changes only how a formula is solved (a disjunction past its budget is solved in
    /// parts), not the answer.
    Loose,
    /// The budget itself: for a first try past which the same question is asked another way
    /// anyway (a Houdini check on a narrow slice is solved on every assumption; a round's
    /// disjunction is raced against its checks one at a time).
    Tight,
}

/// The one way a solver is called: [`solver_params`] (and the resource limit `rlimit`, if
/// any, backed in wall-clock time as `cap` says), counted and timed into the stats.
/// `Ok(None)` when the resource limit (or the cap) ran out.
pub(crate) fn run_check<'ctx>(
    solver: &Solver<'ctx>,
    opts: &VerifyOptions,
    stats: &mut Stats,
    rlimit: Option<u32>,
    cap: WallCap,
    check: impl FnOnce(&Solver<'ctx>) -> SatResult,
) -> Result<Option<SatResult>, Verdict> {
    let mut params = solver_params(solver.get_context(), opts).map_err(|_| Verdict::Timeout)?;
    if let Some(units) = rlimit {
        params.set_u32("rlimit", units);
    }
    let (factor, floor) = match cap {
        WallCap::Off => (None, Duration::ZERO),
        WallCap::Loose => (Some(BUDGET_WALL_FACTOR), Duration::from_secs(1)),
        WallCap::Tight => (Some(1.0), Duration::from_millis(10)),
    };
    if let (Some(units), Some(factor)) = (rlimit, factor) {
        // A backstop in wall-clock time: Z3's resource units run far slower than
        // RLIMIT_PER_SECOND on some formulas (HeCBench match's Match5: a Houdini disjunction
        // with a 1 s budget ran 12 to 27 s).
        let cap = Duration::from_secs_f64(units as f64 / RLIMIT_PER_SECOND * factor).max(floor);
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
pub(crate) const RLIMIT_PER_SECOND: f64 = 10_000_000.0;
