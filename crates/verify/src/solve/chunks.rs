//! Properties of a query in chunks, in schedule order (a query past its budget, and the
//! earliest violation of a satisfiable one).

use super::*;

/// The first chunk's size when a query is solved in chunks (`Verifier::solve_chunked`).
const FIRST_CHUNK: usize = 8;

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Properties `a..n` of query `q` (its disjunction ran past [`QUERY_BUDGET`]) in chunks
    /// in schedule order, each within the budget: a chunk refuted doubles the next (up to
    /// half the smallest size that ran out, and to what half the budget holds at the rate of
    /// the last chunk, in wall-clock time: only the path depends on it, not the answer),
    /// the first chunk at most half the range; one that runs out is halved and solved again, a
    /// single property is solved without a budget; a satisfiable chunk is halved until its
    /// first satisfiable property, whose model is returned (the earliest in schedule order).
    pub(super) fn solve_chunked(
        &mut self,
        base: &[Bool<'ctx>],
        q: usize,
        mut a: usize,
        n: usize,
    ) -> (Result<SatResult, Verdict>, Option<z3::Model<'ctx>>) {
        // Never the whole range again (it just ran out).
        let mut size = FIRST_CHUNK.min((n - a) / 2).max(1);
        let mut cap = n;
        // The next chunk's size after `k` properties were refuted in `took`: doubled, but no
        // larger than what the budget's half holds at that rate (PolyBench's nussinov: single
        // properties of 3-6 s, where chunks only ran out one after the other).
        let grow = |size: usize, cap: usize, k: usize, took: Duration| {
            let per = took.as_secs_f64() / k as f64;
            let fits = if per > 0.0 { (QUERY_BUDGET.as_secs_f64() / 2.0 / per) as usize } else { usize::MAX };
            (size * 2).min(cap).min(fits).max(1)
        };
        while a < n {
            let b = (a + size).min(n);
            let t0 = Instant::now();
            if b - a == 1 {
                let (r, m) = self.solve_query(base, q, Sel::One(a), None);
                if !matches!(r, Ok(SatResult::Unsat)) {
                    return (r, m);
                }
                a = b;
                size = grow(size, cap, 1, t0.elapsed());
                continue;
            }
            let budget = rlimit_within(&self.opts, QUERY_BUDGET);
            let (r, m) = self.solve_query(base, q, Sel::Range(a, b), budget);
            match r {
                Ok(SatResult::Unsat) => {
                    size = grow(size, cap, b - a, t0.elapsed());
                    a = b;
                }
                Ok(SatResult::Unknown) if budget.is_some() => {
                    cap = cap.min((b - a) / 2).max(1);
                    size = ((b - a) / 2).max(1);
                }
                Ok(SatResult::Sat) => size = ((b - a) / 2).max(1),
                _ => return (r, m),
            }
        }
        (Ok(SatResult::Unsat), None)
    }
}
