//! Weighted greedy minimal hitting set of the positive clauses (GPURepair's `mhs`, §2.4;
//! Johnson 1974, "Approximation algorithms for combinatorial problems").

use std::cmp::Ordering;

use syncfix_kir::EntityRef;

use super::{Clause, Costs};

/// A minimal hitting set of the positive clauses over the variables that no negative unit
/// clause forces false, as `enabled[i]` per variable of `costs`.
///
/// Greedy phase: repeatedly enable the variable that hits the most still-unhit clauses per unit
/// weight (a weight-0 variable beats any weighted one; between two, more hits win); ties go to
/// the lower tie cost, then the lower index. Pruning phase: drop every pick whose removal leaves
/// all positive clauses hit, trying the heaviest first (then the higher tie, then the higher
/// index), so no proper subset is a hitting set.
///
/// Returns `None` when some clause cannot be hit (it is empty, or all its variables are forced
/// false). Other clauses (negative non-unit, mixed) are ignored here: the caller checks them.
/// Expects validated input (every variable of the clauses indexes `costs`).
pub(super) fn hitting_set(costs: &Costs, clauses: &[Clause]) -> Option<Vec<bool>> {
    let n = costs.len();
    let mut forced_false = vec![false; n];
    for var in clauses.iter().filter_map(Clause::negative_unit) {
        *forced_false.get_mut(var.index())? = true;
    }

    // The candidates of each positive clause, sorted and deduplicated.
    let mut sets: Vec<Vec<usize>> = Vec::new();
    for clause in clauses {
        if clause.0.is_empty() {
            return None;
        }
        if !clause.is_positive() {
            continue;
        }
        let mut set: Vec<usize> = clause.0.iter().map(|lit| lit.var.index()).collect();
        set.retain(|&v| !forced_false.get(v).copied().unwrap_or(true));
        set.sort_unstable();
        set.dedup();
        if set.is_empty() {
            return None;
        }
        sets.push(set);
    }

    // occurs[v]: the sets containing v; hits[v]: how many of them are still unhit.
    let mut occurs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (s, set) in sets.iter().enumerate() {
        for &v in set {
            occurs.get_mut(v)?.push(s);
        }
    }
    let mut hits: Vec<usize> = occurs.iter().map(Vec::len).collect();
    let mut hit = vec![false; sets.len()];
    let mut picked = vec![false; n];
    let mut unhit = sets.len();

    while unhit > 0 {
        let best = (0..n).filter(|&v| hits[v] > 0).max_by(|&a, &b| better(costs, a, hits[a], b, hits[b]))?;
        picked[best] = true;
        for &s in &occurs[best] {
            if !hit[s] {
                hit[s] = true;
                unhit -= 1;
                for &v in &sets[s] {
                    hits[v] -= 1;
                }
            }
        }
    }

    // Drop redundant picks, heaviest first.
    let mut cover: Vec<usize> = sets.iter().map(|set| set.iter().filter(|&&v| picked[v]).count()).collect();
    let mut order: Vec<usize> = (0..n).filter(|&v| picked[v]).collect();
    order.sort_by(|&a, &b| {
        let key = |v: usize| (costs.weight[v], costs.tie[v], v);
        key(b).cmp(&key(a))
    });
    for v in order {
        if occurs[v].iter().all(|&s| cover[s] >= 2) {
            picked[v] = false;
            for &s in &occurs[v] {
                cover[s] -= 1;
            }
        }
    }
    Some(picked)
}

/// Orders two candidates so that the better one is greater: more hits per unit weight, then a
/// lower tie cost, then a lower index.
fn better(costs: &Costs, a: usize, hits_a: usize, b: usize, hits_b: usize) -> Ordering {
    let (wa, wb) = (costs.weight[a], costs.weight[b]);
    let ratio = match (wa, wb) {
        (0, 0) => hits_a.cmp(&hits_b),
        (0, _) => Ordering::Greater,
        (_, 0) => Ordering::Less,
        // hits_a / wa  vs  hits_b / wb, cross-multiplied without overflow.
        _ => (hits_a as u128 * u128::from(wb)).cmp(&(hits_b as u128 * u128::from(wa))),
    };
    ratio.then_with(|| costs.tie[b].cmp(&costs.tie[a])).then_with(|| b.cmp(&a))
}
