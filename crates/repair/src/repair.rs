//! The repair loop: GPURepair's Algorithm 1 (Joshi & Muduganti, VMCAI 2021, §2.4;
//! ARCHITECTURE.md, "crates/repair").
//!
//! ```text
//! phi := true
//! loop:
//!   sol := solve(phi)                  # None => cannot be repaired (202) or unknown (6)
//!   verify P under sol
//!   Verified     => minimise (is a lighter solution of phi correct?) and return
//!   Race(t)      => phi += (g_1 | ... | g_k)   # sites that could have separated this pair
//!   Divergence   => phi += !g_s (and its grid twin)
//!   Assertion    => 201;   another defect => 203;   Unknown / Timeout => 6 / 7
//! ```
//! A race clause holds only the sites both threads reached between the two accesses whose
//! scope and fences fit the pair; that set is exact when the trace replays under every
//! assignment. Otherwise (equality-abstracted arrays) it falls back to GPURepair's
//! over-approximation, and "cannot be repaired" becomes "unknown".

use crate::solve::{self, Clause, Costs, Lit, Solver};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use syncfix_instrument::{Instrumented, SiteKind};
use syncfix_kir::{EntityRef, Scope, VarId};
use syncfix_options::RepairOptions;
use syncfix_verify::{Defect, Trace, Verdict, Verifier};

#[cfg(test)]
mod oracle_tests;

mod learn;
use learn::{learn, unsat, Learned};

mod minimal;
mod weights;
pub use minimal::audit_from;
use minimal::{descend, Verified};
pub use weights::costs;

/// One run of the repair loop: the repair's knobs, and when it must end.
#[derive(Clone, Debug, Default)]
pub struct RepairRun {
    /// The repair's options (declared once, in `syncfix-options`): the loop reads `solver`
    /// (`--mhs` or `--maxsat`), `max_verifier_calls` and `global_search_calls`; the weights
    /// and kinds of sites are the instrumenter's.
    pub options: RepairOptions,
    /// `--timeout`: the whole repair must end by then.
    pub deadline: Option<Instant>,
    /// Set by the caller to end the repair early: checked with the deadline, and the repair
    /// then ends as [`Outcome::Timeout`] (the caller tells the two apart by its flag).
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl RepairRun {
    /// Whether the deadline has passed or the caller has cancelled.
    pub fn past(&self) -> bool {
        past(self.deadline) || self.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// How the repair ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A minimum-weight assignment under which the kernel verifies (`bounded`: only up to a
    /// loop-unwinding bound, in bug-finding mode).
    Repaired { assignment: Vec<bool>, weight: u64, bounded: Option<u32> },
    /// An assertion fails (GPURepair exit 201).
    AssertionFailure(Box<Trace>),
    /// A defect that is neither a race, nor divergence, nor an assertion (exit 203).
    OtherError(Box<Trace>),
    /// No barrier placement removes this defect (exit 202): every clause came from an exact
    /// trace and together they are unsatisfiable.
    Unrepairable { reason: String, trace: Option<Box<Trace>> },
    /// The repair cannot decide (exit 6).
    Unknown(String),
    /// `--timeout` expired (exit 7).
    Timeout,
}

/// Counters for the benchmark and the closing report.
#[derive(Clone, Debug, Default)]
pub struct RepairStats {
    pub iterations: u32,
    pub verifier_calls: u32,
    pub clauses: usize,
    pub solver_time: Duration,
    pub used_maxsat: bool,
    /// The search kept the kernel's barriers on (see [`RepairOptions::global_search_calls`]).
    pub kept_existing: bool,
    /// Why this kernel's traces are not exact ([`Verifier::inexact_reason`]), if they are not.
    pub inexact_reason: Option<String>,
    /// What the repair over-approximated and when, in order (`--verbose` prints it): clauses
    /// from traces that are not exact, tight clauses widened, the kernel's barriers kept.
    pub log: Vec<String>,
    /// When the repair ended because the clauses conflict and the conflict is a race whose
    /// every separating site diverges: those sites. A restructuring of the source (the
    /// conditional split in two around one of them) may still repair the kernel.
    pub divergent: Vec<VarId>,
    /// The kernel's own barriers kept because the check without each gave no answer within
    /// its share of the time ([`audit_from`], `descend`): not shown needed.
    pub undecided: Vec<VarId>,
    /// Each verifier call, in order (`--stats`).
    pub calls: Vec<VerifierCall>,
    /// The barrier variables the clauses name: the only sites the hitting set can enable
    /// (issue 28: the sites where the races are, of all those instrumented).
    pub considered: BTreeSet<VarId>,
    /// A clause after the first named a site the first did not: the set considered grew
    /// beyond the first race's sites.
    pub widened: bool,
    /// Each counterexample a clause was learnt from, in order, with the barrier variables its
    /// clauses ask to enable (the sites that would order its race or divergence): so that a
    /// caller can replay the traces and say which inserted barriers order only defects a
    /// replay did not confirm (issue 29).
    pub learnt: Vec<(Trace, Vec<VarId>)>,
}

/// One verifier call of the repair loop (issue 28: where the time goes).
#[derive(Clone, Debug)]
pub struct VerifierCall {
    /// The barrier variables on.
    pub enabled: Vec<VarId>,
    /// Wall-clock time of the call.
    pub time: Duration,
    /// Houdini's rounds and the solver calls (Houdini's, the queries') it made.
    pub houdini_rounds: u32,
    pub solver_calls: u32,
    /// Houdini's checks and queries answered from an earlier call's answers instead of solved.
    pub reused: u32,
    /// `verified`, `no error up to N`, `race`, `divergence`, `assertion`, `unknown`, `timeout`.
    pub outcome: &'static str,
    /// For a defect: whether its trace replays under every barrier assignment (an exact
    /// clause) or over-approximates ([`Verifier::inexact_reason`]).
    pub exact: Option<bool>,
}

/// What the repair loop asks of a verifier (GPURepair's oracle, VMCAI 2021 §2.4): the
/// verdict of the kernel under an assignment of its barrier variables (a trace's clause is
/// drawn from its race's `separating`, `near` or `in_order` sites, or from the variables its
/// divergence names), how exact its traces are, and a time limit per call. The Z3 verifier
/// ([`Verifier`], one encoding solved under assumptions) is the implementation the tool
/// uses; tests drive the loop with a scripted one (`oracle_tests.rs`), without clang or Z3.
pub trait Oracle {
    /// The kernel's verdict with barrier variable `i` on exactly when `assignment[i]` (a
    /// missing entry is off). A defect's trace carries `assignment`.
    fn check(&mut self, assignment: &[bool]) -> Verdict;
    /// Why this kernel's traces are not exact (clauses then over-approximate, and "cannot be
    /// repaired" becomes "unknown"); `None` when every trace replays under every assignment.
    fn inexact_reason(&self) -> Option<String>;
    /// Limits each later call to `t` (the loop passes the time left before its deadline).
    fn set_timeout(&mut self, t: Duration);
    /// The oracle's work so far, for the per-call stats: (Houdini rounds, solver calls,
    /// answers reused instead of solved). Zero when it does not count.
    fn work(&self) -> (u32, u32, u32) {
        (0, 0, 0)
    }
}

impl Oracle for Verifier<'_, '_> {
    fn check(&mut self, assignment: &[bool]) -> Verdict {
        Verifier::check(self, assignment)
    }

    fn inexact_reason(&self) -> Option<String> {
        Verifier::inexact_reason(self)
    }

    fn set_timeout(&mut self, t: Duration) {
        Verifier::set_timeout(self, t)
    }

    fn work(&self) -> (u32, u32, u32) {
        (self.stats.houdini_rounds, self.stats.solver_calls, self.stats.houdini_reused + self.stats.queries_reused)
    }
}

/// `verifier.check(assignment)`, counted and recorded in `stats.calls`.
fn check(verifier: &mut dyn Oracle, assignment: &[bool], stats: &mut RepairStats) -> Verdict {
    stats.verifier_calls += 1;
    let before = verifier.work();
    let t0 = Instant::now();
    let verdict = verifier.check(assignment);
    let (outcome, exact) = match &verdict {
        Verdict::Verified => ("verified", None),
        Verdict::NoErrorUpTo { .. } => ("no error up to the bound", None),
        Verdict::Defect(t) => (
            match t.defect {
                Defect::Race(_) => "race",
                Defect::Divergence { .. } => "divergence",
                Defect::Assertion { .. } => "assertion",
                _ => "defect",
            },
            Some(t.exact),
        ),
        Verdict::Unknown(_) => ("unknown", None),
        Verdict::Timeout => ("timeout", None),
    };
    stats.calls.push(VerifierCall {
        enabled: assignment.iter().enumerate().filter(|(_, on)| **on).map(|(i, _)| VarId::new(i)).collect(),
        time: t0.elapsed(),
        houdini_rounds: verifier.work().0 - before.0,
        solver_calls: verifier.work().1 - before.1,
        reused: verifier.work().2 - before.2,
        outcome,
        exact,
    });
    verdict
}

/// Runs the repair loop on an instrumented kernel whose encoding is `verifier`.
pub fn repair(inst: &Instrumented, verifier: &mut dyn Oracle, opts: &RepairRun) -> (Outcome, RepairStats) {
    repair_from(inst, verifier, opts, None)
}

/// [`repair`], starting from a counterexample the caller already has (the kernel as written,
/// checked under `inst.original_assignment()`): its clause is learnt first, at no verifier call.
pub fn repair_from(inst: &Instrumented, verifier: &mut dyn Oracle, opts: &RepairRun, seed: Option<Box<Trace>>) -> (Outcome, RepairStats) {
    let mut stats = RepairStats { inexact_reason: verifier.inexact_reason(), ..RepairStats::default() };
    let outcome = run(inst, verifier, opts, seed, &mut stats);
    (outcome, stats)
}

fn run(inst: &Instrumented, verifier: &mut dyn Oracle, opts: &RepairRun, seed: Option<Box<Trace>>, stats: &mut RepairStats) -> Outcome {
    let costs = costs(inst);
    let mut phi = Phi::default();
    let mut strategy = opts.options.solver;
    if let Some(t) = seed {
        if let Some(o) = on_defect(inst, verifier, &mut phi, t, stats) {
            return o;
        }
    }
    loop {
        stats.iterations += 1;
        if opts.past() {
            return Outcome::Timeout;
        }
        if stats.verifier_calls >= opts.options.max_verifier_calls {
            return Outcome::Unknown(format!("no repair found within {} verifier calls", opts.options.max_verifier_calls));
        }
        // Coarse clauses (loops cut, arrays abstracted) cannot bound the weight from below,
        // and a search over every barrier at once then revisits one cheap placement after
        // another: keep the kernel's own barriers, add what is missing, remove what is not
        // needed.
        let hints = phi.hints(inst);
        if !stats.kept_existing && (phi.inexact || stats.verifier_calls >= opts.options.global_search_calls) && !hints.is_empty() {
            stats.kept_existing = true;
            let since = if phi.inexact {
                "a clause is not exact".to_string()
            } else {
                format!("{} verifier calls gave no repair", stats.verifier_calls)
            };
            stats.log.push(format!(
                "since {since}, the search keeps the kernel's own barriers on, adds what is missing and then removes each \
                 inserted barrier the kernel does without: the answer is minimal, not proven of minimum weight"
            ));
        }
        let t0 = Instant::now();
        let sol = if stats.kept_existing {
            let mut clauses = phi.clauses.clone();
            clauses.extend(hints.into_iter().map(|v| Clause(vec![Lit { var: v, positive: true }])));
            solve::solve(&costs, &clauses, strategy)
        } else {
            solve::solve(&costs, &phi.clauses, strategy)
        };
        stats.solver_time += t0.elapsed();
        if opts.past() {
            return Outcome::Timeout;
        }
        let sol = match sol {
            Ok(Some(s)) => s,
            Ok(None) if phi.widen() => {
                stats.log.push(
                    "the clauses cannot all be met: each clause drawn near a pair of accesses from a trace that is not \
                     exact is replaced by its coarse clause (every disabled site between the accesses, GPURepair's)"
                        .to_string(),
                );
                continue;
            }
            Ok(None) => {
                stats.divergent = learn::blocked(&phi.clauses).map(|(_, c)| c.0.iter().map(|l| l.var).collect()).unwrap_or_default();
                return phi.unsat(inst);
            }
            Err(e) => return Outcome::Unknown(format!("the constraint solver failed: {e}")),
        };
        if let Some(d) = opts.deadline {
            verifier.set_timeout(d.saturating_duration_since(Instant::now()));
        }
        let t1 = Instant::now();
        let verdict = check(verifier, &sol.enabled, stats);
        if debug() {
            eprintln!(
                "repair: iteration {} enabled {:?} -> {} in {:.2?}",
                stats.iterations,
                enabled(&sol.enabled).iter().map(|v| v.index()).collect::<Vec<_>>(),
                verdict_name(&verdict),
                t1.elapsed()
            );
        }
        match verdict {
            v @ (Verdict::Verified | Verdict::NoErrorUpTo { .. }) if stats.kept_existing || phi.inexact => {
                // The clauses do not bound the weight from below (coarse, or the kernel's
                // barriers were kept): take out every barrier the kernel does without.
                return descend(inst, verifier, &costs, &mut phi, Verified { on: sol.enabled, bound: bound_of(&v) }, opts, stats);
            }
            v @ (Verdict::Verified | Verdict::NoErrorUpTo { .. }) => {
                let bound = bound_of(&v);
                // Final minimality check: is a lighter assignment of the clauses correct?
                let t0 = Instant::now();
                let best = solve::minimum(&costs, &phi.clauses);
                stats.solver_time += t0.elapsed();
                if opts.past() {
                    return Outcome::Timeout;
                }
                stats.used_maxsat = true;
                let opt = match best {
                    Ok(Some(opt)) if (opt.weight, opt.tie) < (sol.weight, sol.tie) => opt,
                    Ok(_) => return repaired(sol.enabled, sol.weight, bound),
                    Err(e) => return Outcome::Unknown(format!("the constraint solver failed: {e}")),
                };
                match check(verifier, &opt.enabled, stats) {
                    v @ (Verdict::Verified | Verdict::NoErrorUpTo { .. }) if phi.inexact => {
                        return descend(inst, verifier, &costs, &mut phi, Verified { on: opt.enabled, bound: bound_of(&v) }, opts, stats);
                    }
                    v @ (Verdict::Verified | Verdict::NoErrorUpTo { .. }) => return repaired(opt.enabled, opt.weight, bound_of(&v)),
                    Verdict::Defect(t) => {
                        // The lighter candidate fails: learn from it and continue with MaxSAT,
                        // whose answers are optimal for the clauses so far.
                        strategy = Solver::MaxSat;
                        if let Some(o) = phi.learn(inst, t, stats) {
                            return o;
                        }
                    }
                    Verdict::Unknown(r) => return Outcome::Unknown(r),
                    Verdict::Timeout => return Outcome::Timeout,
                }
            }
            Verdict::Defect(t) => {
                if let Some(o) = on_defect(inst, verifier, &mut phi, t, stats) {
                    return o;
                }
            }
            Verdict::Unknown(r) => return Outcome::Unknown(r),
            Verdict::Timeout => return Outcome::Timeout,
        }
    }
}

/// Learns from a counterexample of the loop (or the kernel as written).
fn on_defect(inst: &Instrumented, verifier: &mut dyn Oracle, phi: &mut Phi, t: Box<Trace>, stats: &mut RepairStats) -> Option<Outcome> {
    // An assertion failing with some sites off: first ask whether it fails with every site on
    // (but those divergence forbids), where no barrier can help (201).
    if matches!(t.defect, Defect::Assertion { .. }) && !phi.asked_all_on && t.assignment.iter().any(|on| !on) {
        phi.asked_all_on = true;
        let all_on = phi.all_on(inst);
        match check(verifier, &all_on, stats) {
            Verdict::Defect(u) if matches!(u.defect, Defect::Assertion { .. }) => {
                return Some(Outcome::AssertionFailure(u));
            }
            Verdict::Defect(u) => {
                if let Some(o) = phi.learn(inst, u, stats) {
                    return Some(o);
                }
            }
            Verdict::Unknown(r) => return Some(Outcome::Unknown(r)),
            Verdict::Timeout => return Some(Outcome::Timeout),
            Verdict::Verified | Verdict::NoErrorUpTo { .. } => {}
        }
    }
    phi.learn(inst, t, stats)
}

/// `SYNCFIX_DEBUG_REPAIR=1`: one line per iteration on stderr.
fn debug() -> bool {
    std::env::var_os("SYNCFIX_DEBUG_REPAIR").is_some()
}

fn verdict_name(v: &Verdict) -> String {
    match v {
        Verdict::Verified => "verified".into(),
        Verdict::NoErrorUpTo { bound } => format!("no error up to {bound}"),
        Verdict::Defect(t) => match &t.defect {
            Defect::Race(r) => format!(
                "race (exact {}) separating {:?} near {:?} in order {:?}",
                t.exact,
                r.separating.iter().map(|v| v.index()).collect::<Vec<_>>(),
                r.near.first().map(|l| l.iter().map(|v| v.index()).collect::<Vec<_>>()),
                r.in_order.iter().map(|v| v.index()).collect::<Vec<_>>()
            ),
            d => format!("{d:?}").chars().take(120).collect(),
        },
        Verdict::Unknown(r) => format!("unknown: {r}"),
        Verdict::Timeout => "timeout".into(),
    }
}

/// The weight and tie cost of the barriers `on` enables.
fn cost_of(costs: &Costs, on: &[bool]) -> (u64, u64) {
    on.iter().enumerate().filter(|(_, b)| **b).fold((0, 0), |(w, t), (i, _)| (w + costs.weight[i], t + costs.tie[i]))
}

fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

fn bound_of(v: &Verdict) -> Option<u32> {
    match v {
        Verdict::NoErrorUpTo { bound } => Some(*bound),
        _ => None,
    }
}

fn repaired(assignment: Vec<bool>, weight: u64, bounded: Option<u32>) -> Outcome {
    Outcome::Repaired { assignment, weight, bounded }
}

/// The clauses learnt so far (GPURepair's phi), with where they came from.
#[derive(Default)]
struct Phi {
    clauses: Vec<Clause>,
    seen: BTreeSet<Vec<(usize, bool)>>,
    /// The trace each clause was learnt from (by clause index); boxed as verdicts give them
    /// and outcomes take them.
    #[allow(clippy::vec_box)]
    traces: Vec<Box<Trace>>,
    /// Some clause came from a trace that is not exact.
    inexact: bool,
    /// An assertion failed and the assignment with every allowed site on was checked.
    asked_all_on: bool,
    /// By clause index: the coarse clause of an inexact trace whose clause is a tighter level.
    wider: Vec<Option<Clause>>,
}

impl Phi {
    /// Learns from a counterexample: adds its clause(s), or returns the final outcome.
    fn learn(&mut self, inst: &Instrumented, t: Box<Trace>, stats: &mut RepairStats) -> Option<Outcome> {
        let mut exact = !self.inexact;
        let before = self.clauses.len();
        match learn(inst, &t, &mut self.clauses, &mut self.seen, &mut exact, &mut self.wider) {
            Learned::Clause => {
                self.inexact = !exact;
                stats.clauses = self.clauses.len();
                for c in &self.clauses[before..] {
                    let first = stats.considered.is_empty();
                    for l in &c.0 {
                        if stats.considered.insert(l.var) && !first {
                            stats.widened = true;
                        }
                    }
                }
                if self.clauses.len() > before && (!t.exact || matches!(t.defect, Defect::Assertion { .. })) {
                    let what = match &t.defect {
                        Defect::Race(r) => {
                            let line = |s: &syncfix_kir::Span| s.in_main().map_or("?".to_string(), |l| l.line.to_string());
                            format!(
                                "the race on `{}` (lines {} and {})",
                                inst.kernel.objects[r.object].name,
                                line(&r.first.span),
                                line(&r.second.span)
                            )
                        }
                        Defect::Assertion { span, .. } => {
                            format!("the failing assertion at line {}", span.in_main().map_or("?".to_string(), |l| l.line.to_string()))
                        }
                        Defect::Divergence { span, .. } => {
                            format!("the divergent barrier at line {}", span.in_main().map_or("?".to_string(), |l| l.line.to_string()))
                        }
                        _ => "the defect".to_string(),
                    };
                    let why = match (&t.defect, &stats.inexact_reason) {
                        (Defect::Assertion { .. }, _) => "an assertion's clause is the sites its trace reached (GPURepair's clause of the disabled sites if that is too tight)".to_string(),
                        (_, Some(r)) => format!("its trace is not exact ({r})"),
                        (_, None) => "its trace is not exact".to_string(),
                    };
                    let n = self.clauses.last().map_or(0, |c| c.0.len());
                    stats.log.push(format!(
                        "clause {} from {what} over-approximates: {why}; it names {n} site{}, and never grounds an exit 202",
                        self.clauses.len(),
                        if n == 1 { "" } else { "s" }
                    ));
                }
                let sites: BTreeSet<VarId> =
                    self.clauses[before..].iter().flat_map(|c| c.0.iter().filter(|l| l.positive).map(|l| l.var)).collect();
                if !sites.is_empty() {
                    stats.learnt.push(((*t).clone(), sites.into_iter().collect()));
                }
                self.traces.resize(self.clauses.len(), t);
                None
            }
            Learned::Stop(o) => Some(o),
        }
    }

    /// Replaces every clause drawn from a tight level of a trace that is not exact by the
    /// trace's coarse clause; whether there was one (the constraints were unsatisfiable, and
    /// the tight clauses may be why).
    fn widen(&mut self) -> bool {
        let mut changed = false;
        for (i, w) in self.wider.iter_mut().enumerate() {
            if let Some(c) = w.take() {
                if let Some(slot) = self.clauses.get_mut(i) {
                    *slot = c;
                    changed = true;
                }
            }
        }
        if changed {
            self.seen = self.clauses.iter().map(|c| c.0.iter().map(|l| (l.var.index(), l.positive)).collect()).collect();
        }
        changed
    }

    /// The kernel's own barriers that no negative unit clause (divergence) forbids: kept on
    /// once the search keeps existing barriers.
    fn hints(&self, inst: &Instrumented) -> Vec<VarId> {
        let forbidden: BTreeSet<VarId> = self.clauses.iter().filter_map(|c| c.negative_unit()).collect();
        inst.vars.iter().filter(|v| v.kind == SiteKind::Existing && !forbidden.contains(&v.id)).map(|v| v.id).collect()
    }

    /// Every variable on but those a negative unit clause (divergence) forbids.
    fn all_on(&self, inst: &Instrumented) -> Vec<bool> {
        let mut on = vec![true; inst.vars.len()];
        for c in &self.clauses {
            if let Some(v) = c.negative_unit() {
                on[v.index()] = false;
            }
        }
        on
    }

    fn unsat(&self, inst: &Instrumented) -> Outcome {
        unsat(inst, &self.clauses, &self.traces, !self.inexact, self.traces.last().cloned())
    }
}

/// The variables a solution enables, for reporting.
pub fn enabled(assignment: &[bool]) -> Vec<VarId> {
    assignment.iter().enumerate().filter(|(_, b)| **b).map(|(i, _)| VarId::new(i)).collect()
}
