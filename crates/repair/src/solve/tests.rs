use proptest::prelude::{any, prop, prop_assert, prop_assert_eq, prop_oneof, proptest};
use proptest::strategy::Strategy as Gen;
use proptest::test_runner::TestCaseError;
use syncfix_kir::{EntityRef, VarId};

use super::*;

fn v(i: usize) -> VarId {
    VarId::new(i)
}

fn p(i: usize) -> Lit {
    Lit::pos(v(i))
}

fn n(i: usize) -> Lit {
    Lit::neg(v(i))
}

fn cl(lits: &[Lit]) -> Clause {
    Clause(lits.to_vec())
}

fn costs(weight: &[u64], tie: &[u64]) -> Costs {
    Costs { weight: weight.to_vec(), tie: tie.to_vec() }
}

fn on(sol: &Solution) -> Vec<usize> {
    sol.enabled_vars().map(|var| var.index()).collect()
}

fn solved(costs: &Costs, clauses: &[Clause], strategy: Solver) -> Solution {
    match solve(costs, clauses, strategy) {
        Ok(Some(sol)) => sol,
        other => panic!("expected a solution, got {other:?}"),
    }
}

/// Whether no enabled variable can be disabled with every clause still satisfied.
fn is_minimal(enabled: &[bool], clauses: &[Clause]) -> bool {
    (0..enabled.len()).filter(|&i| enabled[i]).all(|i| {
        let mut fewer = enabled.to_vec();
        fewer[i] = false;
        !satisfies_all(&fewer, clauses)
    })
}

/// The optimum over all 2^n assignments, or `None` if none satisfies the clauses: minimum
/// (weight, tie), then the canonical one (the enabled set as a bit mask, bit i for var i, is the
/// smallest, i.e. the highest differing variable is disabled).
fn brute_force(costs: &Costs, clauses: &[Clause]) -> Option<(u64, u64, Vec<bool>)> {
    let n = costs.len();
    (0u32..1 << n)
        .map(|bits| (bits, (0..n).map(|i| bits & (1 << i) != 0).collect::<Vec<bool>>()))
        .filter(|(_, enabled)| satisfies_all(enabled, clauses))
        .map(|(bits, enabled)| {
            let (weight, tie) = costs.total(&enabled);
            (weight, tie, bits, enabled)
        })
        .min()
        .map(|(weight, tie, _, enabled)| (weight, tie, enabled))
}

/// GPURepair's example (§2.4) over b1..b6 (`VarId` 1..=6; var0 is unused).
fn paper_example() -> Vec<Clause> {
    vec![cl(&[p(1), p(3)]), cl(&[p(1), p(4)]), cl(&[p(2), p(5)]), cl(&[p(2), p(6)]), cl(&[n(1), n(2)])]
}

#[test]
fn paper_example_falls_back_to_maxsat() {
    let costs = costs(&[1; 7], &[0, 1, 2, 3, 4, 5, 6]);
    let clauses = paper_example();
    let greedy = greedy::hitting_set(&costs, &clauses).map(|set| (0..set.len()).filter(|&i| set[i]).collect::<Vec<_>>());
    assert_eq!(greedy, Some(vec![1, 2]), "mhs(phi+) is {{b1, b2}}");

    let sol = solved(&costs, &clauses, Solver::Mhs);
    assert!(sol.maxsat, "the greedy set violates !b1 | !b2, so MaxSAT answers");
    assert!(sol.satisfies(&clauses));
    // {b1, b5, b6} and {b2, b3, b4} both weigh 3; the tie (sum of indices) prefers the latter.
    assert_eq!((on(&sol), sol.weight, sol.tie), (vec![2, 3, 4], 3, 9));
    assert_eq!(solved(&costs, &clauses, Solver::MaxSat), sol);
}

#[test]
fn weight_decides_between_one_heavy_and_two_light() {
    let clauses = [cl(&[p(0), p(1)]), cl(&[p(0), p(2)])];
    for strategy in [Solver::Mhs, Solver::MaxSat] {
        // var0 hits two clauses for 10, var1 and var2 one each for 3: 2/10 < 1/3.
        let sol = solved(&costs(&[10, 3, 3], &[0; 3]), &clauses, strategy);
        assert_eq!((on(&sol), sol.weight, sol.maxsat), (vec![1, 2], 6, strategy == Solver::MaxSat));
        // For 5, var0 is cheaper per hit (2/5 > 1/3) and in total.
        let sol = solved(&costs(&[5, 3, 3], &[0; 3]), &clauses, strategy);
        assert_eq!((on(&sol), sol.weight), (vec![0], 5));
    }
}

#[test]
fn ties_break_equal_weights() {
    let clauses = [cl(&[p(0), p(1), p(2)])];
    for strategy in [Solver::Mhs, Solver::MaxSat] {
        let sol = solved(&costs(&[4, 4, 4], &[7, 2, 5]), &clauses, strategy);
        assert_eq!((on(&sol), sol.tie), (vec![1], 2), "{strategy:?}: lowest tie");
        let sol = solved(&costs(&[4, 4, 9], &[3, 3, 0]), &clauses, strategy);
        assert_eq!(on(&sol), vec![0], "{strategy:?}: weight first, then the lower index");
    }
    // The tie never outweighs the weight: var1 is lighter but has the higher tie.
    let sol = solved(&costs(&[5, 4], &[0, 1000]), &[cl(&[p(0), p(1)])], Solver::MaxSat);
    assert_eq!((on(&sol), sol.weight, sol.tie), (vec![1], 4, 1000));
}

#[test]
fn greedy_drops_redundant_picks() {
    // All equal: the greedy first takes var0 (lowest index among 2 hits each), then var1 and
    // var2 for the units; var0 is then redundant and dropped.
    let clauses = [cl(&[p(0), p(1)]), cl(&[p(0), p(2)]), cl(&[p(1)]), cl(&[p(2)])];
    let sol = solved(&costs(&[1; 3], &[0; 3]), &clauses, Solver::Mhs);
    assert_eq!((on(&sol), sol.maxsat), (vec![1, 2], false));
}

#[test]
fn empty_clause_is_unsatisfiable() {
    let costs = costs(&[1, 1], &[0, 0]);
    for clauses in [vec![Clause::default()], vec![cl(&[p(0)]), Clause::default()]] {
        for strategy in [Solver::Mhs, Solver::MaxSat] {
            assert!(matches!(solve(&costs, &clauses, strategy), Ok(None)), "{strategy:?}");
        }
        assert!(matches!(minimum(&costs, &clauses), Ok(None)));
    }
}

#[test]
fn no_clauses_enable_nothing() {
    let costs = costs(&[3, 1, 2], &[1, 1, 1]);
    for strategy in [Solver::Mhs, Solver::MaxSat] {
        let sol = solved(&costs, &[], strategy);
        assert_eq!((sol.enabled, sol.weight, sol.tie), (vec![false; 3], 0, 0));
    }
}

#[test]
fn negative_units_exclude_variables() {
    let costs = costs(&[1, 5, 9], &[0; 3]);
    // var0 is the cheapest but forced off; the greedy needs no fallback.
    let clauses = [cl(&[p(0), p(1), p(2)]), cl(&[n(0)])];
    let sol = solved(&costs, &clauses, Solver::Mhs);
    assert_eq!((on(&sol), sol.maxsat), (vec![1], false));
    // Every variable of a positive clause forced off: unrepairable, under both strategies.
    let clauses = [cl(&[p(0), p(1)]), cl(&[n(0)]), cl(&[n(1)])];
    for strategy in [Solver::Mhs, Solver::MaxSat] {
        assert!(matches!(solve(&costs, &clauses, strategy), Ok(None)), "{strategy:?}");
    }
}

#[test]
fn mixed_clause_violated_by_greedy_falls_back() {
    let clauses = [cl(&[p(1)]), cl(&[p(0), n(1)])];
    let sol = solved(&costs(&[1, 1], &[0, 0]), &clauses, Solver::Mhs);
    assert_eq!((on(&sol), sol.maxsat), (vec![0, 1], true));
}

#[test]
fn large_weights_are_exact() {
    let big = 1u64 << 40;
    let costs = costs(&[big + 1, big, 3, big - 7, 1], &[1 << 30, 0, 5, 1, 0]);
    let clauses = [cl(&[p(0), p(1)]), cl(&[p(1), p(2), p(3)]), cl(&[p(0), p(3), p(4)]), cl(&[n(1), n(3)])];
    let sol = solved(&costs, &clauses, Solver::MaxSat);
    assert_eq!(Some((sol.weight, sol.tie, sol.enabled)), brute_force(&costs, &clauses));
}

#[test]
fn invalid_input_is_an_error() {
    let clauses = [cl(&[p(0), p(3)])];
    let err = solve(&costs(&[1, 1], &[0, 0]), &clauses, Solver::Mhs);
    assert!(matches!(err, Err(SolveError::UnknownVar { len: 2, .. })), "{err:?}");
    let err = minimum(&costs(&[1, 1], &[0]), &[]);
    assert!(matches!(err, Err(SolveError::CostLengths { weights: 2, ties: 1 })), "{err:?}");
    let err = solve(&costs(&[u64::MAX / 2, u64::MAX / 2], &[0, 0]), &clauses[..0], Solver::Mhs);
    assert!(matches!(err, Ok(Some(_))), "variables outside the clauses do not count: {err:?}");
    let err = solve(&costs(&[u64::MAX, 1], &[0, 0]), &[cl(&[p(0), p(1)])], Solver::Mhs);
    assert!(matches!(err, Err(SolveError::CostOverflow)), "{err:?}");
}

#[test]
fn clauses_print_like_kir() {
    assert_eq!(cl(&[p(1), n(3)]).to_string(), "var1 | !var3");
    assert_eq!(Clause::default().to_string(), "false");
}

/// A random clause over `n` variables: mostly positive (races) and negative units
/// (divergences), sometimes any shape.
fn clause(vars: usize) -> impl Gen<Value = Clause> {
    let lit = (0..vars, any::<bool>()).prop_map(|(i, positive)| Lit { var: v(i), positive });
    prop_oneof![
        5 => prop::collection::vec(0..vars, 1..=4).prop_map(|vs| vs.into_iter().map(p).collect()),
        3 => (0..vars).prop_map(|i| cl(&[n(i)])),
        2 => prop::collection::vec(lit, 1..=3).prop_map(Clause),
    ]
}

/// A random problem: up to 8 variables and 8 clauses, weights in `weights`, ties in `ties`.
fn problem(weights: std::ops::RangeInclusive<u64>, ties: std::ops::RangeInclusive<u64>) -> impl Gen<Value = (Costs, Vec<Clause>)> {
    (1usize..=8).prop_flat_map(move |n| {
        let weight = prop::collection::vec(weights.clone(), n);
        let tie = prop::collection::vec(ties.clone(), n);
        let clauses = prop::collection::vec(clause(n), 0..=8);
        (weight, tie, clauses).prop_map(|(weight, tie, clauses)| (Costs { weight, tie }, clauses))
    })
}

/// `minimum` against brute force, and `solve` under both strategies.
fn check(costs: &Costs, clauses: &[Clause]) -> Result<(), TestCaseError> {
    let optimum = brute_force(costs, clauses);
    let min = minimum(costs, clauses).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(min.is_some(), optimum.is_some());
    if let Some(min) = &min {
        prop_assert_eq!(Some((min.weight, min.tie, min.enabled.clone())), optimum.clone());
        prop_assert_eq!(costs.total(&min.enabled), (min.weight, min.tie));
        prop_assert_eq!(min.enabled.len(), costs.len());
        prop_assert!(min.satisfies(clauses) && min.maxsat);
        prop_assert!(is_minimal(&min.enabled, clauses));
    }
    let maxsat = solve(costs, clauses, Solver::MaxSat).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&maxsat, &min);

    let mhs = solve(costs, clauses, Solver::Mhs).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(mhs.is_some(), optimum.is_some());
    if let Some(mhs) = &mhs {
        prop_assert!(mhs.satisfies(clauses));
        prop_assert_eq!(costs.total(&mhs.enabled), (mhs.weight, mhs.tie));
        prop_assert!(is_minimal(&mhs.enabled, clauses), "not minimal: {:?}", mhs);
        if mhs.maxsat {
            prop_assert_eq!(Some(mhs), min.as_ref());
        }
        // GPURepair's shapes (positive clauses, negative units) never need the fallback.
        let gpurepair_shapes = clauses.iter().all(|c| c.is_positive() || c.negative_unit().is_some());
        prop_assert!(!(gpurepair_shapes && mhs.maxsat), "needless fallback");
    }
    let again = solve(costs, clauses, Solver::Mhs).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(again, mhs, "deterministic");
    Ok(())
}

proptest! {
    #[test]
    fn agrees_with_brute_force((costs, clauses) in problem(1..=1000, 0..=50)) {
        check(&costs, &clauses)?;
    }

    #[test]
    fn agrees_with_brute_force_on_zero_costs((costs, clauses) in problem(0..=3, 0..=2)) {
        check(&costs, &clauses)?;
    }

    #[test]
    fn agrees_with_brute_force_on_large_costs(
        (costs, clauses) in problem(1..=1 << 45, 0..=1 << 40)
    ) {
        check(&costs, &clauses)?;
    }
}

#[test]
fn free_variables_are_picked_first() {
    let clauses = [cl(&[p(0), p(1)]), cl(&[p(0), p(2)])];
    // var0 hits both clauses, but var1 and var2 cost nothing.
    let sol = solved(&costs(&[1, 0, 0], &[0, 0, 0]), &clauses, Solver::Mhs);
    assert_eq!((on(&sol), sol.weight, sol.maxsat), (vec![1, 2], 0, false));
}

/// A problem of the size the repair loop meets: 300 variables with weights `lw^depth +
/// gw*grid`, distinct ties, 60 race clauses of 5 to 40 variables and a few divergence units.
fn realistic() -> (Costs, Vec<Clause>) {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |bound: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % bound
    };
    let vars = 300;
    let weight = (0..vars).map(|_| 10u64.pow(next(4) as u32) + 5000 * (next(4) / 3)).collect();
    let tie = (0..vars as u64).map(|i| 1000 * next(2) + 10 * next(3) + i).collect();
    let mut clauses = Vec::new();
    for _ in 0..60 {
        let len = 5 + next(36);
        clauses.push((0..len).map(|_| p(next(vars as u64) as usize)).collect());
    }
    for _ in 0..8 {
        clauses.push(cl(&[n(next(vars as u64) as usize)]));
    }
    (Costs { weight, tie }, clauses)
}

#[test]
fn realistic_problem_maxsat_is_at_most_greedy() {
    let (costs, clauses) = realistic();
    let greedy = solved(&costs, &clauses, Solver::Mhs);
    let optimum = solved(&costs, &clauses, Solver::MaxSat);
    assert!(greedy.satisfies(&clauses) && !greedy.maxsat);
    assert!(optimum.satisfies(&clauses) && is_minimal(&optimum.enabled, &clauses));
    assert!((optimum.weight, optimum.tie) <= (greedy.weight, greedy.tie), "{optimum:?} vs {greedy:?}");
}
