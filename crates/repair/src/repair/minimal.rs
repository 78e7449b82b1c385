//! Minimality (GPURepair §2.4): the removal pass over a verified assignment (`descend`), and
//! the audit of a kernel that verifies as written (`audit_from`), which starts from it.

use super::*;

/// An assignment under which the kernel verifies, and the loop bound it holds up to (`None`:
/// proved).
pub(super) struct Verified {
    pub(super) on: Vec<bool>,
    pub(super) bound: Option<u32>,
}

/// The final removal pass over a verified assignment `on`: each enabled barrier that the
/// repair inserted, heaviest first, is switched off and the kernel checked again; it stays off
/// when the kernel still verifies. Counterexamples met on the way are learnt as usual. The
/// result is minimal over the inserted barriers: no one of them can be removed (every check
/// failed with the others on, and with fewer barriers races only grow). The kernel's own
/// barriers that are on stay as written (issue 28: a repair orders the defect with the
/// kernel's barriers fixed; `syncfix audit` is the command that removes those it does not
/// need): checking each cost HeCBench nbnxm's repair three calls of 3-4 s, and a removal would
/// make the fix unsafe (`--apply` needs `--unsafe-fixes`) for a race the user asked to order.
pub(super) fn descend(
    inst: &Instrumented,
    verifier: &mut dyn Oracle,
    costs: &Costs,
    phi: &mut Phi,
    verified: Verified,
    opts: &RepairRun,
    stats: &mut RepairStats,
) -> Outcome {
    match remove_unneeded(inst, verifier, costs, phi, verified, opts, Shares::Repair, stats) {
        Ok((v, _)) => {
            let (weight, _) = cost_of(costs, &v.on);
            repaired(v.on, weight, v.bound)
        }
        Err(o) => o,
    }
}

/// How [`remove_unneeded`] shares the time left between its checks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shares {
    /// A repair's pass: the inserted barriers only, each within all of the time left.
    Repair,
    /// An audit's pass: each barrier an equal share of the time left less `reserve` (kept for
    /// the re-verification of the patched source); a barrier whose check runs out of its
    /// share is tried again after the others, within an equal share of what they left.
    Audit { reserve: Duration },
}

/// [`descend`]'s pass: the verified assignment it ends with, and whether every barrier kept
/// was shown needed (a counterexample without it, learnt into `phi`) rather than kept because
/// its check gave no answer in time or gave `unknown` (those are `stats.undecided`). `Err`
/// ends the repair (the deadline).
fn remove_unneeded(
    inst: &Instrumented,
    verifier: &mut dyn Oracle,
    costs: &Costs,
    phi: &mut Phi,
    verified: Verified,
    opts: &RepairRun,
    shares: Shares,
    stats: &mut RepairStats,
) -> Result<(Verified, bool), Outcome> {
    let Verified { mut on, mut bound } = verified;
    let mut decided = true;
    let mut order: Vec<usize> =
        (0..on.len()).filter(|&i| on[i] && (shares != Shares::Repair || inst.vars[i].kind != SiteKind::Existing)).collect();
    order.sort_by_key(|&i| std::cmp::Reverse((costs.weight[i], costs.tie[i])));
    // An audit gives a barrier whose check ran out of its share a second try, within an
    // equal share of what the others left.
    let first_pass = order.len();
    let mut k = 0;
    while k < order.len() {
        let i = order[k];
        let retry = k >= first_pass;
        let remaining = if retry { order.len() - k } else { first_pass - k } as u32;
        k += 1;
        if opts.past() {
            return Err(Outcome::Timeout);
        }
        let mut trial = on.clone();
        trial[i] = false;
        // An audit inspects the user's own barriers, each within its share: one whose check
        // is slow (Z3 can take long to find a counterexample) stays rather than costing the
        // whole audit. A repair checks each inserted barrier in full.
        let existing = inst.vars[i].kind == SiteKind::Existing;
        let budget = opts.deadline.map(|d| {
            let left = d.saturating_duration_since(Instant::now());
            match shares {
                Shares::Audit { reserve } => left.saturating_sub(reserve) / remaining,
                Shares::Repair => left,
            }
        });
        if let Some(b) = budget {
            verifier.set_timeout(b);
        }
        let verdict = check(verifier, &trial, stats);
        if existing && matches!(verdict, Verdict::Timeout) && budget.is_some() && !opts.past() {
            if debug() {
                eprintln!("repair: without {i} -> no answer within {budget:?}: the barrier stays");
            }
            if matches!(shares, Shares::Audit { .. }) && !retry {
                order.push(i);
                continue;
            }
            decided = false;
            stats.undecided.push(VarId::new(i));
            continue;
        }
        if debug() {
            eprintln!("repair: without {i} -> {}", verdict_name(&verdict));
        }
        match verdict {
            v @ (Verdict::Verified | Verdict::NoErrorUpTo { .. }) => {
                on = trial;
                bound = match (bound, bound_of(&v)) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            Verdict::Defect(t) => {
                // The barrier is needed; what the trace teaches stays true.
                let _ = phi.learn(inst, t, stats);
            }
            Verdict::Unknown(_) => {
                // Kept, not shown needed (an inserted barrier stays as part of the repair).
                decided = false;
                if existing {
                    stats.undecided.push(VarId::new(i));
                }
            }
            Verdict::Timeout => return Err(Outcome::Timeout),
        }
    }
    Ok((Verified { on, bound }, decided))
}

/// GPURepair's inspection of a kernel that verifies as written (`syncfix audit`), starting
/// from what is known to verify rather than from no barrier at all: `original` (the kernel's
/// own assignment, verified, up to `bound` in bug-finding mode) goes through `descend`'s
/// removal pass, heaviest barrier first, each check within an equal share of the time left
/// less `reserve` (what the caller needs after the audit: the re-verification of the patched
/// source); then,
/// when every barrier kept was shown needed by an exact trace, the minimum-weight assignment
/// of the clauses learnt is checked (VMCAI 2021 §2.4's minimality step) until it is the
/// assignment at hand or verifies. The loop from `phi = true` would first check the kernel
/// with every barrier off, where Houdini can take longer than the whole time limit (HeCBench
/// match's `Match5`: 100 s), and return nothing for it.
///
/// The answer is of minimum weight when the log says nothing else; when a barrier's check gave
/// no answer in time, a trace was not exact, or the time ran out during the minimality step,
/// it is the minimal assignment the removal pass found (no one barrier of it can be removed)
/// and `stats.log` says why it is not proven of minimum weight. Ends as [`Outcome::Timeout`]
/// only when the deadline passes during the removal pass.
pub fn audit_from(
    inst: &Instrumented,
    verifier: &mut dyn Oracle,
    opts: &RepairRun,
    original: Vec<bool>,
    bound: Option<u32>,
    reserve: Duration,
) -> (Outcome, RepairStats) {
    let mut stats = RepairStats { inexact_reason: verifier.inexact_reason(), ..RepairStats::default() };
    let outcome = audit_run(inst, verifier, opts, Verified { on: original, bound }, reserve, &mut stats);
    (outcome, stats)
}

fn audit_run(
    inst: &Instrumented,
    verifier: &mut dyn Oracle,
    opts: &RepairRun,
    original: Verified,
    reserve: Duration,
    stats: &mut RepairStats,
) -> Outcome {
    let costs = costs(inst);
    let mut phi = Phi::default();
    stats.iterations = 1;
    let (best, decided) = match remove_unneeded(inst, verifier, &costs, &mut phi, original, opts, Shares::Audit { reserve }, stats) {
        Ok(r) => r,
        Err(o) => return o,
    };
    let (weight, tie) = cost_of(&costs, &best.on);
    let minimal = |why: &str, stats: &mut RepairStats| {
        stats.log.push(format!("{why}: the answer is minimal (no one of its barriers can be removed), not proven of minimum weight"));
        repaired(best.on.clone(), weight, best.bound)
    };
    if !decided {
        return minimal("a barrier's check without it gave no answer in time", stats);
    }
    if phi.inexact {
        return minimal("a clause is not exact", stats);
    }
    loop {
        stats.iterations += 1;
        if opts.past() {
            return minimal("the time ran out before the minimality step ended", stats);
        }
        if stats.verifier_calls >= opts.options.max_verifier_calls {
            return minimal(&format!("the minimality step reached {} verifier calls", opts.options.max_verifier_calls), stats);
        }
        let t0 = Instant::now();
        let lightest = solve::minimum(&costs, &phi.clauses);
        stats.solver_time += t0.elapsed();
        stats.used_maxsat = true;
        let opt = match lightest {
            Ok(Some(opt)) if (opt.weight, opt.tie) < (weight, tie) => opt,
            // Every verified assignment meets the clauses, and none lighter does: minimum.
            Ok(_) => return repaired(best.on, weight, best.bound),
            Err(e) => return minimal(&format!("the constraint solver failed ({e})"), stats),
        };
        if let Some(d) = opts.deadline {
            verifier.set_timeout(d.saturating_duration_since(Instant::now()));
        }
        match check(verifier, &opt.enabled, stats) {
            v @ (Verdict::Verified | Verdict::NoErrorUpTo { .. }) => return repaired(opt.enabled, opt.weight, bound_of(&v)),
            Verdict::Defect(t) => {
                if phi.learn(inst, t, stats).is_some() {
                    // A defect no barrier orders, though `best` verifies: not an exact trace.
                    return minimal("a check of the minimality step ended with a defect no barrier orders", stats);
                }
                if phi.inexact {
                    return minimal("a clause is not exact", stats);
                }
            }
            Verdict::Unknown(r) => return minimal(&format!("the minimality step's check gave unknown ({r})"), stats),
            Verdict::Timeout => return minimal("the time ran out before the minimality step ended", stats),
        }
    }
}
