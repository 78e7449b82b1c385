//! Lexicographic weighted partial MaxSAT (GPURepair §2.4) with `rustsat` and BatSat.
//!
//! Hard clauses are the repair clauses; the objective is the total weight, then the total tie,
//! of the enabled variables, then a canonical choice among the optima. The weight and tie stages
//! are solution-improving searches over a dynamic polynomial watchdog encoding of the objective
//! (Paxian et al., SAT 2018), built lazily bound by bound; bounds are enforced through
//! assumptions, so one incremental solver serves every query of every stage.

use rustsat::encodings::pb::{BoundUpper, BoundUpperIncremental, DynamicPolyWatchdog};
use rustsat::instances::BasicVarManager;
use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{self as sat, TernaryVal};
use rustsat_batsat::BasicSolver;
use syncfix_kir::EntityRef;

use super::{satisfies_all, Clause, Costs, Solution, SolveError};

/// How many solution-improving queries a stage asks before it bisects.
const LINEAR_STEPS: usize = 16;

/// The MaxSAT optimum of validated input; see [`super::minimum`].
pub(super) fn minimum(costs: &Costs, clauses: &[Clause]) -> Result<Option<Solution>, SolveError> {
    let n = costs.len();
    if clauses.iter().any(|clause| clause.0.is_empty()) {
        return Ok(None);
    }

    // Only the variables named by a clause go to the solver, numbered densely in index order
    // (solver variable `d` is problem variable `vars[d]`); the others stay disabled.
    let mut named = vec![false; n];
    for lit in clauses.iter().flat_map(|clause| &clause.0) {
        *named.get_mut(lit.var.index()).ok_or(internal("numbering variables"))? = true;
    }
    let vars: Vec<usize> = (0..n).filter(|&v| named[v]).collect();
    let mut dense: Vec<Option<sat::Var>> = vec![None; n];
    let mut sat_vars = Vec::with_capacity(vars.len());
    for (d, &v) in vars.iter().enumerate() {
        let idx = u32::try_from(d).map_err(|_| internal("numbering variables"))?;
        let var = sat::Var::new_with_error(idx).map_err(|e| failed("numbering variables", e))?;
        dense[v] = Some(var);
        sat_vars.push(var);
    }
    let Some(&last) = sat_vars.last() else {
        return Ok(Some(Solution::new(costs, vec![false; n], true)));
    };
    let next_free = u32::try_from(sat_vars.len()).map_err(|_| internal("numbering variables"))?;
    let next_free = sat::Var::new_with_error(next_free).map_err(|e| failed("numbering variables", e))?;

    let mut solver = BasicSolver::default();
    solver.reserve(last).map_err(|e| failed("reserving variables", e))?;
    for clause in clauses {
        let mut lits = Vec::with_capacity(clause.0.len());
        for lit in &clause.0 {
            let var = dense.get(lit.var.index()).copied().flatten();
            let var = var.ok_or(internal("numbering variables"))?;
            lits.push(if lit.positive { var.pos_lit() } else { var.neg_lit() });
        }
        let clause: sat::Clause = lits.into_iter().collect();
        solver.add_clause(clause).map_err(|e| failed("adding clauses", e))?;
    }
    let mut search = Search { solver, sat_vars, vm: BasicVarManager::from_next_free(next_free) };

    // Stage 1: minimum weight; stage 2: minimum tie at that weight; stage 3: the canonical
    // optimum. `pinned` holds the assumptions keeping the earlier stages at their optima.
    let Some(found) = search.first(&[])? else {
        return Ok(None);
    };
    let weight = objective(&search.sat_vars, &vars, &costs.weight)?;
    let (model, mut pinned) = search.minimise(&weight, &[], found)?;
    let tie = objective(&search.sat_vars, &vars, &costs.tie)?;
    let (model, tie_pinned) = search.minimise(&tie, &pinned, model)?;
    pinned.extend(tie_pinned);
    let model = search.canonical(pinned, model)?;

    let mut enabled = vec![false; n];
    for (&v, &on) in vars.iter().zip(&model) {
        enabled[v] = on;
    }
    if !satisfies_all(&enabled, clauses) {
        return Err(internal("reading the model: it violates a clause"));
    }
    Ok(Some(Solution::new(costs, enabled, true)))
}

/// The objective `sum cost[v] * v` over the solver's variables, without zero terms.
fn objective(sat_vars: &[sat::Var], vars: &[usize], cost: &[u64]) -> Result<Vec<(sat::Lit, usize)>, SolveError> {
    let mut terms = Vec::new();
    for (&var, &v) in sat_vars.iter().zip(vars) {
        let c = cost.get(v).copied().ok_or(internal("reading costs"))?;
        let c = usize::try_from(c).map_err(|_| SolveError::CostOverflow)?;
        if c > 0 {
            terms.push((var.pos_lit(), c));
        }
    }
    Ok(terms)
}

/// The incremental solver with the hard clauses, and the variable manager of its encodings.
struct Search {
    solver: BasicSolver,
    /// The solver variable of each problem variable, in dense order.
    sat_vars: Vec<sat::Var>,
    vm: BasicVarManager,
}

impl Search {
    /// A model under `assumps`, as one value per dense variable, or `None` if there is none.
    fn first(&mut self, assumps: &[sat::Lit]) -> Result<Option<Vec<bool>>, SolveError> {
        match self.solver.solve_assumps(assumps).map_err(|e| failed("solving", e))? {
            SolverResult::Sat => self.model().map(Some),
            SolverResult::Unsat => Ok(None),
            SolverResult::Interrupted => Err(internal("solving: the SAT solver was interrupted")),
        }
    }

    /// The current model of the problem variables.
    fn model(&self) -> Result<Vec<bool>, SolveError> {
        let mut model = Vec::with_capacity(self.sat_vars.len());
        for &var in &self.sat_vars {
            let val = self.solver.lit_val(var.pos_lit()).map_err(|e| failed("reading the model", e))?;
            model.push(val == TernaryVal::True);
        }
        Ok(model)
    }

    /// Minimises `obj` under `base` assumptions, starting from `model` (which satisfies the
    /// hard clauses and `base`). Each query `obj <= mid` either improves the best model (the
    /// upper bound) or raises the lower bound. The first [`LINEAR_STEPS`] queries ask for any
    /// improvement (`mid = best - 1`: mostly satisfiable, cheap queries); later ones bisect, so
    /// the number of queries stays logarithmic in the objective.
    ///
    /// Returns the optimal model and the assumptions that keep `obj` at its optimum.
    fn minimise(
        &mut self,
        obj: &[(sat::Lit, usize)],
        base: &[sat::Lit],
        mut model: Vec<bool>,
    ) -> Result<(Vec<bool>, Vec<sat::Lit>), SolveError> {
        let mut ub = value(obj, &model);
        if ub == 0 {
            return Ok((model, obj.iter().map(|&(lit, _)| !lit).collect()));
        }
        let mut enc: DynamicPolyWatchdog = obj.iter().copied().collect();
        let mut lb = 0;
        let mut steps = 0;
        while lb < ub {
            let mid = if steps < LINEAR_STEPS { ub - 1 } else { lb + (ub - 1 - lb) / 2 };
            steps += 1;
            self.encode(&mut enc, mid)?;
            let mut assumps = base.to_vec();
            assumps.extend(enc.enforce_ub(mid).map_err(|e| failed("bounding the objective", e))?);
            match self.first(&assumps)? {
                Some(better) => {
                    let v = value(obj, &better);
                    if v > mid {
                        return Err(internal("bounding the objective: the bound did not hold"));
                    }
                    model = better;
                    ub = v;
                }
                None => lb = mid + 1,
            }
        }
        if ub == 0 {
            return Ok((model, obj.iter().map(|&(lit, _)| !lit).collect()));
        }
        self.encode(&mut enc, ub)?;
        let pin = enc.enforce_ub(ub).map_err(|e| failed("bounding the objective", e))?;
        Ok((model, pin))
    }

    /// Adds the clauses `enc` needs to enforce `obj <= bound` (only those not yet added).
    fn encode(&mut self, enc: &mut DynamicPolyWatchdog, bound: usize) -> Result<(), SolveError> {
        enc.encode_ub_change(bound..=bound, &mut self.solver, &mut self.vm).map_err(|e| failed("encoding the objective", e))
    }

    /// Among the models satisfying `pinned` (the optima of the earlier stages), the one whose
    /// enabled set avoids the highest variables: going down from the highest variable, each is
    /// disabled whenever some such model allows it. Starts from `model`, which satisfies
    /// `pinned`; one SAT call per enabled variable.
    fn canonical(&mut self, mut pinned: Vec<sat::Lit>, mut model: Vec<bool>) -> Result<Vec<bool>, SolveError> {
        for d in (0..self.sat_vars.len()).rev() {
            let off = self.sat_vars[d].neg_lit();
            if model.get(d).copied().unwrap_or(false) {
                pinned.push(off);
                match self.first(&pinned)? {
                    Some(better) => model = better,
                    None => {
                        pinned.pop();
                        pinned.push(!off);
                    }
                }
            } else {
                pinned.push(off);
            }
        }
        Ok(model)
    }
}

/// The objective value of a model over the dense variables (solver variable `d` is
/// `model[d]`); sums fit, since totals were validated against `MAX_TOTAL_COST`.
fn value(obj: &[(sat::Lit, usize)], model: &[bool]) -> usize {
    let on = |lit: sat::Lit| model.get(lit.vidx()).copied().unwrap_or(false) == lit.is_pos();
    obj.iter().filter(|&&(lit, _)| on(lit)).fold(0usize, |sum, &(_, c)| sum.saturating_add(c))
}

/// A failure of the solver or the encoding, with its error.
fn failed(during: &'static str, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> SolveError {
    SolveError::Solver { during, source: Some(source.into()) }
}

/// A failure without an underlying error (a broken expectation about the solver).
fn internal(during: &'static str) -> SolveError {
    SolveError::Solver { during, source: None }
}
