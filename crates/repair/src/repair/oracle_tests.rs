//! The repair loop driven by a scripted oracle (issue 26): no clang, no Z3. The script is the
//! truth about a kernel: races, each ordered by any one of its sites, and sites whose barrier
//! diverges when on. The loop must find the minimal-weight assignment that brute force finds,
//! learn one clause per trace, and end with the right outcome when no assignment works, the
//! oracle gives up, or time runs out.

use super::{audit_from, repair, Oracle, Outcome, RepairOptions, RepairRun};
use proptest::prelude::*;
use std::time::{Duration, Instant};
use syncfix_instrument::{BarrierVar, Instrumented, SiteKind};
use syncfix_kir::{EntityRef, Fences, InstId, ObjectId, Scope, Span, Stmt, StmtId, StmtKind, TextRange, VarId};
use syncfix_verify::{Access, AccessKind, Defect, Race, ThreadIds, Trace, Verdict};

/// A kernel's truth as the script tells it.
#[derive(Clone, Debug, Default)]
struct Script {
    /// Each race: the sites (variable indices) any one of which orders it.
    races: Vec<Vec<usize>>,
    /// Sites whose barrier diverges when on.
    diverging: Vec<usize>,
    /// Traces replay under every assignment.
    exact: bool,
    /// Answer every call with this instead (`Timeout`, `Unknown`).
    fail_with: Option<Verdict>,
    /// Assignments answered with `Timeout` (a check that gives no answer in time).
    slow: Vec<Vec<bool>>,
}

/// The scripted oracle: the first race (in script order) that no site on orders, else the
/// first diverging site on, else verified. Records every assignment asked.
struct Scripted {
    script: Script,
    calls: Vec<Vec<bool>>,
    defects: usize,
}

impl Scripted {
    fn new(script: Script) -> Scripted {
        Scripted { script, calls: vec![], defects: 0 }
    }

    /// Whether `a` orders every race and turns on no diverging site.
    fn correct(script: &Script, a: &[bool]) -> bool {
        let on = |v: usize| a.get(v).copied().unwrap_or(false);
        script.races.iter().all(|r| r.iter().any(|&v| on(v))) && !script.diverging.iter().any(|&v| on(v))
    }
}

fn threads() -> [ThreadIds; 2] {
    let t = |x| ThreadIds { local: [x, 0, 0], group: [0; 3], block_dim: [64, 1, 1], grid_dim: [1, 1, 1] };
    [t(0), t(1)]
}

fn access(thread: usize, kind: AccessKind) -> Access {
    Access { inst: InstId::new(thread), span: Span::default(), kind, thread, external: false }
}

impl Oracle for Scripted {
    fn check(&mut self, assignment: &[bool]) -> Verdict {
        self.calls.push(assignment.to_vec());
        if let Some(v) = &self.script.fail_with {
            return v.clone();
        }
        if self.script.slow.iter().any(|a| a == assignment) {
            return Verdict::Timeout;
        }
        let on = |v: usize| assignment.get(v).copied().unwrap_or(false);
        let trace = |defect| {
            Verdict::Defect(Box::new(Trace {
                defect,
                threads: threads(),
                same_group: true,
                assignment: assignment.to_vec(),
                exact: self.script.exact,
                params: vec![],
                memory: vec![],
                reached: vec![],
            }))
        };
        if let Some(r) = self.script.races.iter().find(|r| !r.iter().any(|&v| on(v))) {
            self.defects += 1;
            let sites: Vec<VarId> = r.iter().map(|&v| VarId::new(v)).collect();
            return trace(Defect::Race(Race {
                object: ObjectId::new(0),
                offset: 4,
                width: 4,
                first: access(0, AccessKind::Write),
                second: access(1, AccessKind::Read),
                separating: sites.clone(),
                near: vec![sites.clone()],
                in_order: sites,
            }));
        }
        if let Some(&v) = self.script.diverging.iter().find(|&&v| on(v)) {
            self.defects += 1;
            return trace(Defect::Divergence { barrier: InstId::new(0), span: Span::default(), var: Some(VarId::new(v)) });
        }
        Verdict::Verified
    }

    fn inexact_reason(&self) -> Option<String> {
        (!self.script.exact).then(|| "scripted: traces are not exact".into())
    }

    fn set_timeout(&mut self, _t: Duration) {}
}

/// An instrumented kernel of `weights.len()` new block-barrier sites (site `i` before
/// statement `i`, with weight `weights[i]`): the loop reads only the sites and their
/// statements' places, never the kernel's code.
fn instrumented(weights: &[u64]) -> Instrumented {
    let text = "kernel k (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]\n  param 0 A: ptr obj0\n  obj0 A: global elem 4\nblock0:\n  v0:i32 = local_id.x\n  v1:i32 = local_id.y\n  ret\n";
    let mut kernel = syncfix_kir::parse(text).expect("a valid kernel");
    let vars = weights
        .iter()
        .enumerate()
        .map(|(i, &weight)| {
            let stmt = kernel.stmts.stmts.push(Stmt::plain("k", StmtKind::Expr, TextRange { start: 10 * i, end: 10 * i + 5 }));
            assert_eq!(stmt, StmtId::new(i));
            BarrierVar {
                id: VarId::new(i),
                stmt,
                kind: SiteKind::Before,
                scope: Scope::Block,
                fences: Fences::ALL,
                depth: 0,
                weight,
                in_callee: false,
                waits: false,
            }
        })
        .collect();
    Instrumented { kernel, vars }
}

/// The least weight of a correct assignment, by trying them all.
fn brute_force_minimum(script: &Script, weights: &[u64]) -> Option<u64> {
    (0u32..1 << weights.len())
        .map(|bits| (0..weights.len()).map(|i| bits & (1 << i) != 0).collect::<Vec<bool>>())
        .filter(|a| Scripted::correct(script, a))
        .map(|a| a.iter().zip(weights).filter(|(on, _)| **on).map(|(_, w)| w).sum())
        .min()
}

#[test]
fn the_answer_is_the_minimal_weight_assignment_and_each_trace_is_one_clause() {
    // Two races: sites 0 or 1 order the first, 1 or 2 the second; site 1 is heavy.
    let weights = [1, 5, 1];
    let script = Script { races: vec![vec![0, 1], vec![1, 2]], exact: true, ..Script::default() };
    let inst = instrumented(&weights);
    let mut oracle = Scripted::new(script);
    let (outcome, stats) = repair(&inst, &mut oracle, &RepairRun::default());
    match outcome {
        Outcome::Repaired { assignment, weight, .. } => {
            assert_eq!(assignment, vec![true, false, true]);
            assert_eq!(weight, 2);
        }
        o => panic!("not repaired: {o:?}"),
    }
    assert_eq!(stats.clauses, oracle.defects, "one clause per trace");
    assert_eq!(stats.verifier_calls as usize, oracle.calls.len());
    assert_eq!(stats.calls.iter().filter(|c| c.outcome == "race").count(), oracle.defects);
    assert!(stats.inexact_reason.is_none());
}

#[test]
fn a_race_no_site_orders_is_unrepairable_when_exact_and_unknown_when_not() {
    let weights = [1, 1];
    // The second race has no site that orders it.
    let exact = Script { races: vec![vec![0], vec![]], exact: true, ..Script::default() };
    let (outcome, _) = repair(&instrumented(&weights), &mut Scripted::new(exact), &RepairRun::default());
    assert!(matches!(outcome, Outcome::Unrepairable { trace: Some(_), .. }), "{outcome:?}");
    // A divergence that forbids the only site of a race: the clauses conflict.
    let conflict = Script { races: vec![vec![0]], diverging: vec![0], exact: true, ..Script::default() };
    let (outcome, _) = repair(&instrumented(&weights), &mut Scripted::new(conflict.clone()), &RepairRun::default());
    assert!(matches!(outcome, Outcome::Unrepairable { .. }), "{outcome:?}");
    // The same conflict from traces that over-approximate: the loop cannot tell.
    let inexact = Script { exact: false, ..conflict };
    let (outcome, stats) = repair(&instrumented(&weights), &mut Scripted::new(inexact), &RepairRun::default());
    assert!(!matches!(outcome, Outcome::Repaired { .. } | Outcome::Unrepairable { .. }), "{outcome:?}");
    assert_eq!(stats.inexact_reason.as_deref(), Some("scripted: traces are not exact"));
}

#[test]
fn the_oracles_timeout_and_unknown_and_the_deadline_end_the_loop() {
    let weights = [1, 1];
    let races = vec![vec![0], vec![1]];
    let timeout = Script { races: races.clone(), exact: true, fail_with: Some(Verdict::Timeout), ..Script::default() };
    assert!(matches!(repair(&instrumented(&weights), &mut Scripted::new(timeout), &RepairRun::default()).0, Outcome::Timeout));
    let unknown = Script { races: races.clone(), exact: true, fail_with: Some(Verdict::Unknown("gave up".into())), ..Script::default() };
    assert!(
        matches!(repair(&instrumented(&weights), &mut Scripted::new(unknown), &RepairRun::default()).0, Outcome::Unknown(r) if r == "gave up")
    );
    // A deadline already past: no verifier call.
    let script = Script { races, exact: true, ..Script::default() };
    let mut oracle = Scripted::new(script);
    let opts = RepairRun { deadline: Some(Instant::now()), ..RepairRun::default() };
    assert!(matches!(repair(&instrumented(&weights), &mut oracle, &opts).0, Outcome::Timeout));
    assert!(oracle.calls.is_empty());
}

#[test]
fn the_loop_gives_up_after_its_verifier_calls() {
    // Five races, one site each: five clauses, so the fifth call is still a race.
    let weights = [1; 5];
    let script = Script { races: (0..5).map(|i| vec![i]).collect(), exact: true, ..Script::default() };
    let opts = RepairRun { options: RepairOptions { max_verifier_calls: 3, ..RepairOptions::default() }, ..RepairRun::default() };
    let mut oracle = Scripted::new(script);
    let (outcome, stats) = repair(&instrumented(&weights), &mut oracle, &opts);
    assert!(matches!(&outcome, Outcome::Unknown(r) if r.contains("3 verifier calls")), "{outcome:?}");
    assert_eq!(stats.verifier_calls, 3);
}

/// [`instrumented`] with every site the user's own barrier (an audit's sites).
fn existing(weights: &[u64]) -> Instrumented {
    let mut inst = instrumented(weights);
    for v in &mut inst.vars {
        v.kind = SiteKind::Existing;
    }
    inst
}

fn audit_opts() -> RepairRun {
    RepairRun { deadline: Some(Instant::now() + Duration::from_secs(600)), ..RepairRun::default() }
}

#[test]
fn an_audit_starts_from_the_kernel_as_written_and_finds_the_minimum_its_removal_pass_misses() {
    // Site 0 (weight 3) orders both races; sites 1 and 2 (weight 2 each) one each. The
    // removal pass, heaviest first, drops site 0 and keeps {1, 2} (weight 4); the clauses its
    // traces teach ({0 or 1}, {0 or 2}) have the lighter {0} (weight 3), which verifies.
    let weights = [3, 2, 2];
    let script = Script { races: vec![vec![0, 1], vec![0, 2]], exact: true, ..Script::default() };
    let mut oracle = Scripted::new(script);
    let (outcome, stats) = audit_from(&existing(&weights), &mut oracle, &audit_opts(), vec![true; 3], None, Duration::ZERO);
    match outcome {
        Outcome::Repaired { assignment, weight, .. } => {
            assert_eq!(assignment, vec![true, false, false]);
            assert_eq!(weight, 3);
        }
        o => panic!("not audited: {o:?}"),
    }
    assert_eq!(oracle.calls[0], vec![false, true, true], "the heaviest barrier is tried first, the others on");
    assert!(!oracle.calls.contains(&vec![false; 3]), "no check with every barrier off: {:?}", oracle.calls);
    assert!(stats.undecided.is_empty());
    assert!(stats.log.is_empty(), "{:?}", stats.log);
}

#[test]
fn an_audit_keeps_a_barrier_whose_check_gives_no_answer_and_says_it_is_undecided() {
    // Site 1 orders the only race; the check without site 2 gives no answer, the first time
    // (with site 0 on) and again after site 0 is removed.
    let weights = [1, 1, 1];
    let slow = vec![vec![true, true, false], vec![false, true, false]];
    let script = Script { races: vec![vec![1]], exact: true, slow: slow.clone(), ..Script::default() };
    let mut oracle = Scripted::new(script);
    let (outcome, stats) = audit_from(&existing(&weights), &mut oracle, &audit_opts(), vec![true; 3], None, Duration::ZERO);
    match outcome {
        Outcome::Repaired { assignment, .. } => assert_eq!(assignment, vec![false, true, true]),
        o => panic!("not audited: {o:?}"),
    }
    assert_eq!(oracle.calls.last(), Some(&vec![false, true, false]), "the slow barrier is tried again last: {:?}", oracle.calls);
    assert_eq!(stats.undecided, vec![VarId::new(2)]);
    assert!(stats.log.iter().any(|l| l.contains("not proven of minimum weight")), "{:?}", stats.log);
    // Its second try answers: removed, and nothing is undecided.
    let script = Script { races: vec![vec![1]], exact: true, slow: slow[..1].to_vec(), ..Script::default() };
    let (outcome, stats) = audit_from(&existing(&weights), &mut Scripted::new(script), &audit_opts(), vec![true; 3], None, Duration::ZERO);
    assert!(matches!(&outcome, Outcome::Repaired { assignment, .. } if *assignment == vec![false, true, false]), "{outcome:?}");
    assert!(stats.undecided.is_empty() && stats.log.is_empty(), "{:?} {:?}", stats.undecided, stats.log);
    // Without a deadline to share, a check that gives no answer is the audit's timeout.
    let script = Script { races: vec![vec![1]], exact: true, slow, ..Script::default() };
    let (outcome, _) =
        audit_from(&existing(&weights), &mut Scripted::new(script), &RepairRun::default(), vec![true; 3], None, Duration::ZERO);
    assert!(matches!(outcome, Outcome::Timeout), "{outcome:?}");
}

#[test]
fn a_repair_keeps_the_kernels_own_barriers_and_removes_only_those_it_inserted() {
    // Site 0 is the user's barrier and orders nothing; site 1 or site 2 orders the race.
    // Traces are not exact, so the search keeps the user's barrier on, adds a site and then
    // tries removing what it added: never the user's barrier (issue 28), which `audit` would
    // remove.
    let weights = [1, 1, 1];
    let mut inst = instrumented(&weights);
    inst.vars[0].kind = SiteKind::Existing;
    let script = Script { races: vec![vec![1, 2]], exact: false, ..Script::default() };
    let mut oracle = Scripted::new(script);
    let (outcome, stats) = repair(&inst, &mut oracle, &RepairRun::default());
    match outcome {
        Outcome::Repaired { assignment, .. } => {
            assert!(assignment[0], "the user's barrier stays: {assignment:?}");
            assert_eq!(assignment.iter().filter(|on| **on).count(), 2, "{assignment:?}");
        }
        o => panic!("not repaired: {o:?}"),
    }
    assert!(stats.kept_existing);
    // Only the first check (no clause yet, every barrier off) runs without the user's barrier.
    assert_eq!(oracle.calls.iter().filter(|a| !a[0]).count(), 1, "{:?}", oracle.calls);
    assert!(stats.log.iter().any(|l| l.contains("inserted barrier")), "{:?}", stats.log);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Any exact script with a solution: the loop's answer is correct and has brute force's
    /// minimal weight.
    #[test]
    fn the_loops_answer_has_the_brute_force_minimum(
        weights in proptest::collection::vec(1u64..20, 2..7),
        races in proptest::collection::vec(proptest::collection::btree_set(0usize..7, 1..4), 1..6),
        diverging in proptest::collection::btree_set(0usize..7, 0..2),
    ) {
        let n = weights.len();
        let races: Vec<Vec<usize>> = races.into_iter().map(|r| r.into_iter().filter(|&v| v < n).collect::<Vec<_>>()).filter(|r: &Vec<usize>| !r.is_empty()).collect();
        let diverging: Vec<usize> = diverging.into_iter().filter(|&v| v < n).collect();
        let script = Script { races, diverging, exact: true, ..Script::default() };
        let best = brute_force_minimum(&script, &weights);
        let mut oracle = Scripted::new(script.clone());
        let (outcome, stats) = repair(&instrumented(&weights), &mut oracle, &RepairRun::default());
        prop_assert_eq!(stats.clauses, oracle.defects);
        match (outcome, best) {
            (Outcome::Repaired { assignment, weight, .. }, Some(best)) => {
                prop_assert!(Scripted::correct(&script, &assignment));
                prop_assert_eq!(weight, best);
            }
            (Outcome::Unrepairable { .. }, None) => {}
            (o, b) => prop_assert!(false, "outcome {:?}, brute force {:?}", o, b),
        }
    }

    /// Any exact script the kernel as written (every barrier on) satisfies: the audit's
    /// answer is correct and of brute force's minimal weight, and its first check is the
    /// kernel without one barrier.
    #[test]
    fn the_audits_answer_has_the_brute_force_minimum(
        weights in proptest::collection::vec(1u64..20, 2..7),
        races in proptest::collection::vec(proptest::collection::btree_set(0usize..7, 1..4), 0..6),
    ) {
        let n = weights.len();
        let races: Vec<Vec<usize>> = races.into_iter().map(|r| r.into_iter().filter(|&v| v < n).collect::<Vec<_>>()).filter(|r: &Vec<usize>| !r.is_empty()).collect();
        let script = Script { races, exact: true, ..Script::default() };
        let best = brute_force_minimum(&script, &weights).expect("every barrier on is correct");
        let mut oracle = Scripted::new(script.clone());
        let (outcome, stats) = audit_from(&existing(&weights), &mut oracle, &audit_opts(), vec![true; n], None, Duration::ZERO);
        prop_assert!(stats.undecided.is_empty());
        match outcome {
            Outcome::Repaired { assignment, weight, .. } => {
                prop_assert!(Scripted::correct(&script, &assignment));
                prop_assert_eq!(weight, best);
                prop_assert_eq!(oracle.calls[0].iter().filter(|on| !**on).count(), 1, "the first check removes one barrier");
            }
            o => prop_assert!(false, "outcome {:?}", o),
        }
    }
}
