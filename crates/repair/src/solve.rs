//! The constraint solver of the repair loop (GPURepair §2.3-2.4; ARCHITECTURE.md, "crates/repair").
//!
//! The repair loop collects one [`Clause`] per error trace over the barrier variables
//! ([`VarId`]): a race gives a positive clause (`var1 | var5 | var11`: enable one of the barriers
//! that could have separated the accesses), a barrier divergence a negative unit clause (`!var3`).
//! [`solve`] proposes the barriers to enable next: with [`Solver::Mhs`] a weighted greedy
//! minimal hitting set of the positive clauses (Johnson 1974), falling back to weighted partial
//! MaxSAT when that set violates a clause; with [`Solver::MaxSat`] the MaxSAT optimum
//! ([`minimum`]) every time.
//!
//! **Invariants**
//! - Every answer is deterministic: the same costs and clauses give the same solution.
//! - A returned [`Solution`] satisfies every clause, and no enabled variable can be disabled
//!   without violating one (the solution is minimal); a [`minimum`] is also optimal.
//! - `Ok(None)` means the clauses are unsatisfiable; errors are reserved for inputs the solver
//!   cannot represent and for failures of the SAT solver.

mod greedy;
mod maxsat;
#[cfg(test)]
mod tests;

use std::fmt;

use syncfix_kir::{EntityRef, VarId};

/// The largest total weight (or total tie cost) over the variables of a problem: the
/// pseudo-Boolean encoding of the MaxSAT objective needs head-room above the sum.
pub const MAX_TOTAL_COST: u64 = 1 << 62;

/// A literal: a barrier variable or its negation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit {
    /// The barrier variable.
    pub var: VarId,
    /// `true` for `var` (the barrier is enabled), `false` for `!var`.
    pub positive: bool,
}

impl Lit {
    /// The positive literal `var`.
    pub fn pos(var: VarId) -> Lit {
        Lit { var, positive: true }
    }

    /// The negative literal `!var`.
    pub fn neg(var: VarId) -> Lit {
        Lit { var, positive: false }
    }

    /// Whether the literal holds when exactly the variables with `enabled[i]` are true
    /// (variables beyond `enabled` are false).
    pub fn holds(self, enabled: &[bool]) -> bool {
        enabled.get(self.var.index()).copied().unwrap_or(false) == self.positive
    }
}

impl std::ops::Not for Lit {
    type Output = Lit;

    fn not(self) -> Lit {
        Lit { var: self.var, positive: !self.positive }
    }
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.positive {
            write!(f, "{}", self.var)
        } else {
            write!(f, "!{}", self.var)
        }
    }
}

/// A clause: the disjunction of its literals. The empty clause is false.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Clause(pub Vec<Lit>);

impl Clause {
    /// Whether every literal is positive (a positive monotone clause, GPURepair §2.3). The empty
    /// clause is not positive.
    pub fn is_positive(&self) -> bool {
        !self.0.is_empty() && self.0.iter().all(|lit| lit.positive)
    }

    /// The variable of a negative unit clause `!var`, if the clause is one.
    pub fn negative_unit(&self) -> Option<VarId> {
        match self.0.as_slice() {
            [lit] if !lit.positive => Some(lit.var),
            _ => None,
        }
    }

    /// Whether some literal holds when exactly the variables with `enabled[i]` are true.
    pub fn is_satisfied_by(&self, enabled: &[bool]) -> bool {
        self.0.iter().any(|lit| lit.holds(enabled))
    }
}

impl FromIterator<Lit> for Clause {
    fn from_iter<I: IntoIterator<Item = Lit>>(iter: I) -> Clause {
        Clause(iter.into_iter().collect())
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("false");
        }
        for (i, lit) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{lit}")?;
        }
        Ok(())
    }
}

/// The costs of enabling each barrier variable, indexed by [`VarId::index`]; both vectors have
/// one entry per variable of the instrumented kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Costs {
    /// The primary weight of each variable: GPURepair's `lw^depth + gw*grid` (§2.4).
    pub weight: Vec<u64>,
    /// A secondary cost, used only to choose among solutions of equal total weight (the lower
    /// total tie wins). The caller encodes its preferences in it: keep existing barriers, then
    /// kernel anchors over callee anchors, then the earliest anchor.
    pub tie: Vec<u64>,
}

impl Costs {
    /// The number of barrier variables.
    pub fn len(&self) -> usize {
        self.weight.len()
    }

    /// Whether there are no barrier variables.
    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// Total weight and total tie of the enabled variables (saturating; within a validated
    /// problem they cannot overflow).
    fn total(&self, enabled: &[bool]) -> (u64, u64) {
        let on = enabled.iter().enumerate().filter(|&(_, &on)| on).map(|(i, _)| i);
        on.fold((0u64, 0u64), |(w, t), i| {
            let wi = self.weight.get(i).copied().unwrap_or(0);
            let ti = self.tie.get(i).copied().unwrap_or(0);
            (w.saturating_add(wi), t.saturating_add(ti))
        })
    }
}

/// How [`solve`] chooses a solution: GPURepair's `mhs` strategy (the default, §2.4: a
/// weighted greedy minimal hitting set of the positive clauses, with MaxSAT as the fallback
/// when it violates a clause) or its `MaxSAT` strategy (the weighted partial MaxSAT optimum
/// every time). The repair options' own type (`--mhs` / `--maxsat`), declared once.
pub use syncfix_options::Solver;

/// An assignment to the barrier variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// `enabled[i]`: whether the barrier of `VarId::new(i)` is enabled; one entry per variable
    /// of [`Costs`].
    pub enabled: Vec<bool>,
    /// The total weight of the enabled variables.
    pub weight: u64,
    /// The total tie cost of the enabled variables.
    pub tie: u64,
    /// Whether the MaxSAT solver produced the solution (always for [`Solver::MaxSat`] and
    /// [`minimum`]; for [`Solver::Mhs`] only when the greedy set violated a clause). A MaxSAT
    /// solution is optimal; a greedy one only minimal.
    pub maxsat: bool,
}

impl Solution {
    fn new(costs: &Costs, enabled: Vec<bool>, maxsat: bool) -> Solution {
        let (weight, tie) = costs.total(&enabled);
        Solution { enabled, weight, tie, maxsat }
    }

    /// The enabled variables, in increasing order.
    pub fn enabled_vars(&self) -> impl Iterator<Item = VarId> + '_ {
        let on = self.enabled.iter().enumerate().filter(|&(_, &on)| on);
        on.map(|(i, _)| VarId::new(i))
    }

    /// Whether the solution satisfies every clause.
    pub fn satisfies(&self, clauses: &[Clause]) -> bool {
        satisfies_all(&self.enabled, clauses)
    }
}

/// Why the solver could not answer.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The weight and tie vectors of [`Costs`] differ in length.
    #[error("costs give {weights} weights but {ties} tie costs")]
    CostLengths {
        /// `costs.weight.len()`.
        weights: usize,
        /// `costs.tie.len()`.
        ties: usize,
    },
    /// A clause names a variable that has no cost.
    #[error("a clause names {var}, but costs cover only {len} barrier variables")]
    UnknownVar {
        /// The variable.
        var: VarId,
        /// The number of variables with costs.
        len: usize,
    },
    /// The total weight or total tie of the variables named by the clauses exceeds
    /// [`MAX_TOTAL_COST`], beyond what the MaxSAT encoding can represent.
    #[error("the total cost of the barrier variables exceeds 2^62")]
    CostOverflow,
    /// The SAT solver or the pseudo-Boolean encoding of the objective failed.
    #[error("MaxSAT solving failed while {during}")]
    Solver {
        /// What the solver was doing.
        during: &'static str,
        /// The solver's error, if it gave one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
}

/// Proposes the barrier variables to enable: a minimal assignment satisfying every clause.
///
/// Takes the costs of the variables and the clauses learnt so far (any shape; race traces give
/// positive clauses, divergence traces negative unit clauses). With [`Solver::Mhs`] this is
/// GPURepair's `mhs` strategy (§2.4): a weighted greedy hitting set of the positive clauses
/// (Johnson 1974) over the variables that no negative unit clause forces false, made minimal by
/// dropping redundant picks, heaviest first; when that set violates a clause, the answer is
/// [`minimum`] instead, as in GPURepair. With [`Solver::MaxSat`] it is always [`minimum`].
///
/// Returns `Ok(None)` when the clauses are unsatisfiable (the kernel cannot be repaired).
///
/// # Errors
/// [`SolveError::CostLengths`], [`SolveError::UnknownVar`] or [`SolveError::CostOverflow`] when
/// the input cannot be represented; [`SolveError::Solver`] when the MaxSAT solver fails.
pub fn solve(costs: &Costs, clauses: &[Clause], strategy: Solver) -> Result<Option<Solution>, SolveError> {
    validate(costs, clauses)?;
    match strategy {
        Solver::MaxSat => maxsat::minimum(costs, clauses),
        Solver::Mhs => match greedy::hitting_set(costs, clauses) {
            Some(enabled) if satisfies_all(&enabled, clauses) => Ok(Some(Solution::new(costs, enabled, false))),
            _ => maxsat::minimum(costs, clauses),
        },
    }
}

/// The optimum: an assignment satisfying every clause with minimum total weight and, among
/// those, minimum total tie; among those, the canonical one that avoids the highest-indexed
/// variables (enabled sets compare by their highest differing variable, so between two single
/// choices the lower index wins). The optimum is minimal: no enabled variable can be disabled.
///
/// This is weighted partial MaxSAT (GPURepair §2.3-2.4): hard clauses are `clauses`, soft
/// clauses are `!b_i` with weight `w_i`. It is solved lexicographically with the BatSat SAT
/// solver (`rustsat`): weight, then tie under the optimum weight, each a solution-improving
/// search (bisecting after a few steps) over a dynamic polynomial watchdog encoding of the
/// objective (Paxian et al., SAT 2018); then one SAT call per enabled variable, from the
/// highest, to make it canonical.
///
/// Returns `Ok(None)` when the clauses are unsatisfiable (an empty clause makes them so); with
/// no clauses, every variable is disabled.
///
/// # Errors
/// As [`solve`].
pub fn minimum(costs: &Costs, clauses: &[Clause]) -> Result<Option<Solution>, SolveError> {
    validate(costs, clauses)?;
    maxsat::minimum(costs, clauses)
}

/// Whether the assignment satisfies every clause.
fn satisfies_all(enabled: &[bool], clauses: &[Clause]) -> bool {
    clauses.iter().all(|clause| clause.is_satisfied_by(enabled))
}

/// Checks that every variable of the clauses has costs and that the totals fit the encoding.
fn validate(costs: &Costs, clauses: &[Clause]) -> Result<(), SolveError> {
    let len = costs.weight.len();
    if costs.tie.len() != len {
        return Err(SolveError::CostLengths { weights: len, ties: costs.tie.len() });
    }
    let mut named = vec![false; len];
    for lit in clauses.iter().flat_map(|clause| &clause.0) {
        match named.get_mut(lit.var.index()) {
            Some(seen) => *seen = true,
            None => return Err(SolveError::UnknownVar { var: lit.var, len }),
        }
    }
    let vars = || named.iter().enumerate().filter(|&(_, &seen)| seen).map(|(i, _)| i);
    let sum = |of: &[u64]| vars().try_fold(0u64, |sum, i| sum.checked_add(of[i]));
    match (sum(&costs.weight), sum(&costs.tie)) {
        (Some(w), Some(t)) if w <= MAX_TOTAL_COST && t <= MAX_TOTAL_COST => Ok(()),
        _ => Err(SolveError::CostOverflow),
    }
}
