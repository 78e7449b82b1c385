//! Cheaper refutations of a race query, tried before it is solved: by the stride of its
//! offsets ([`crate::stride`]) and without its values' benign-race tolerance.

use super::*;

/// The fewest properties of a race query that [`Verifier::refuted_by_stride`] tries.
const STRIDE_MIN_PROPERTIES: usize = 32;

/// How long [`Verifier::refuted_by_stride`]'s solver call may take.
const STRIDE_BUDGET: Duration = Duration::from_millis(500);

/// How long [`Verifier::refuted_without_values`]'s solver call may take.
const STRICT_BUDGET: Duration = Duration::from_millis(500);

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Whether race query `q` is refuted by the stride of its offsets ([`stride`]): its
    /// abstraction, with the background facts and the assumptions of its cone, is
    /// unsatisfiable within [`STRIDE_BUDGET`]. Only a query of at least
    /// [`STRIDE_MIN_PROPERTIES`] properties is tried (on a smaller one the pairs are few).
    pub(super) fn refuted_by_stride(&mut self, q: usize) -> bool {
        if let Some(&r) = self.stride_refuted.get(&q) {
            return r;
        }
        let t0 = Instant::now();
        let query = &self.queries[q];
        let shared = match query.logs {
            encode::LogUse::Object(o) => self.kernel.objects[o].space == syncfix_kir::Space::Shared,
            _ => false,
        };
        let abstraction = if query.props.len() >= STRIDE_MIN_PROPERTIES {
            stride::abstraction(self.ctx, &self.enc, query, shared, &format!("stride!{q}"))
        } else {
            None
        };
        let t_abs = t0.elapsed();
        let refuted = abstraction.is_some_and(|f| {
            let oks: Vec<&Bool<'ctx>> = query.props.iter().map(|&i| &self.enc.obligations.props()[i].ok).collect();
            let stamp = query.props.iter().map(|&i| self.enc.obligations.props()[i].stamp).max().unwrap_or(0);
            let slice = self.enc.assumptions.borrow_mut().slice(&[&f], &oks, encode::LogUse::None, stamp, None);
            let asserted: Vec<&Bool<'ctx>> = self.enc.symbols.background().iter().chain(&slice.facts).chain([&f]).collect();
            let rlimit = rlimit_within(&self.opts, STRIDE_BUDGET);
            let answer = apart::solve(self.ctx, &self.opts, &mut self.stats, &asserted, &[], rlimit, crate::call::WallCap::Loose, None);
            matches!(answer, Ok(Some((SatResult::Unsat, _))))
        });
        if refuted {
            self.stats.queries_by_stride += 1;
        }
        if std::env::var_os("SYNCFIX_DEBUG_QUERIES").is_some() {
            eprintln!(
                "query: {}: refuted by its stride: {refuted} ({:.3}s, {:.3}s to build it)",
                self.queries[q].label,
                t0.elapsed().as_secs_f64(),
                t_abs.as_secs_f64()
            );
        }
        self.stride_refuted.insert(q, refuted);
        refuted
    }

    /// Whether race query `q` is refuted under `base` with its conditions' benign-race
    /// tolerance left out ([`Property::strict`]: two of its accesses overlap, whatever the
    /// values they write and read), within [`STRICT_BUDGET`]. Each strict condition is
    /// implied by its property's, so this refutes the query; its cone leaves out the values'
    /// terms, which can cost Z3 seconds on a query that no two threads' accesses can violate
    /// (HeCBench match's `Match5`: the write of `d_score[bp1 + tx]` by `ty == 0`, whose
    /// value is the loop's running maximum: 4.6 s with the values, 0.015 s without). GPUVerify
    /// checks its benign-race tolerance in the race check itself (Betts et al., OOPSLA 2012
    /// §4); this is only a cheaper refutation of the same query, solved before it: here, or on
    /// the worker thread of the query's first attempt ([`Verifier::solve_in_order`]; solved
    /// here, before the threads' attempts, it cost HeCBench nbnxm's repair 51 s → 66 s). A
    /// query whose strict call is not refuted costs that call more (within the budget). Not
    /// tried on a query with no tolerated property, nor when the time left is within the
    /// budget.
    pub(super) fn refuted_without_values(&mut self, base: &[Bool<'ctx>], q: usize) -> bool {
        let Some((slice, violated, rlimit)) = self.strict_formula(q) else { return false };
        let t0 = Instant::now();
        let asserted: Vec<&Bool<'ctx>> = self.enc.symbols.background().iter().chain(&slice.facts).chain(base).chain([&violated]).collect();
        let answer = apart::solve(self.ctx, &self.opts, &mut self.stats, &asserted, &[], Some(rlimit), crate::call::WallCap::Loose, None);
        let refuted = matches!(answer, Ok(Some((SatResult::Unsat, _))));
        if refuted {
            self.stats.queries_without_values += 1;
        }
        if std::env::var_os("SYNCFIX_DEBUG_QUERIES").is_some() {
            eprintln!("query: {}: refuted without its values: {refuted} ({:.3}s)", self.queries[q].label, t0.elapsed().as_secs_f64());
        }
        refuted
    }

    /// Query `q`'s strict call ([`Verifier::refuted_without_values`]): the slice of the
    /// assumptions for its strict conditions, their disjunction, and the call's budget in
    /// resource units; `None` when no property of the query tolerates a benign race or the
    /// time left is within [`STRICT_BUDGET`]. The caller asserts the background facts, the
    /// slice, its `base` and the disjunction.
    pub(super) fn strict_formula(&mut self, q: usize) -> Option<(cone::Slice<'ctx>, Bool<'ctx>, u32)> {
        let query = &self.queries[q];
        let props: Vec<&Property<'ctx>> = query.props.iter().map(|&i| &self.enc.obligations.props()[i]).collect();
        if props.iter().all(|p| p.strict.is_none()) {
            return None;
        }
        let rlimit = rlimit_within(&self.opts, STRICT_BUDGET)?;
        let conds: Vec<&Bool<'ctx>> = props.iter().map(|p| p.strict.as_ref().unwrap_or(&p.cond)).collect();
        let oks: Vec<&Bool<'ctx>> = props.iter().map(|p| &p.ok).collect();
        let stamp = props.iter().map(|p| p.stamp).max().unwrap_or(0);
        let violated = crate::term::or(self.ctx, &conds);
        let slice = self.enc.assumptions.borrow_mut().slice(&conds, &oks, query.logs, stamp, self.widened.get(&q));
        Some((slice, violated, rlimit))
    }
}
