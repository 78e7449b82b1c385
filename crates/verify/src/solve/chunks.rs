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
    /// What is left of a range that ran out (`ran_out`: `a..n` did) once a part of it was
    /// refuted is not solved whole but at most its half: the properties that made the range
    /// run out are in it (PolyBench's nussinov `kernel3`: 4 properties ran out, the first
    /// two were refuted in 3 ms, and the last two ran out again, 3.4 s, before they were
    /// refuted one at a time in 1.3 and 2.3 s).
    pub(super) fn solve_chunked(
        &mut self,
        base: &[Bool<'ctx>],
        q: usize,
        mut a: usize,
        n: usize,
        ran_out: bool,
    ) -> (Result<SatResult, Verdict>, Option<z3::Model<'ctx>>) {
        // Never the whole range again (it just ran out).
        let mut size = FIRST_CHUNK.min((n - a) / 2).max(1);
        let mut cap = n;
        // The ranges that ran out.
        let mut out: Vec<(usize, usize)> = if ran_out { vec![(a, n)] } else { vec![] };
        // The next chunk's size after `k` properties were refuted in `took`: doubled, but no
        // larger than what the budget's half holds at that rate (PolyBench's nussinov: single
        // properties of 3-6 s, where chunks only ran out one after the other).
        let grow = |size: usize, cap: usize, k: usize, took: Duration| {
            let per = took.as_secs_f64() / k as f64;
            let fits = if per > 0.0 { (QUERY_BUDGET.as_secs_f64() / 2.0 / per) as usize } else { usize::MAX };
            (size * 2).min(cap).min(fits).max(1)
        };
        while a < n {
            let b = chunk_end(a, size, n, &out);
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
                    out.push((a, b));
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

/// The end of the chunk that starts at `a` with `size` properties (of `n`), `out` the ranges
/// that ran out: a chunk that would hold all that is left of a range that ran out, part of
/// which was refuted (`x < a`), holds only that rest's first half (see
/// [`Verifier::solve_chunked`]).
fn chunk_end(a: usize, size: usize, n: usize, out: &[(usize, usize)]) -> usize {
    let mut b = (a + size).min(n);
    for &(x, y) in out {
        if x < a && a < y && y <= b && y - a > 1 {
            b = a + (y - a) / 2;
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::chunk_end;

    #[test]
    fn the_rest_of_a_range_that_ran_out_is_halved() {
        // Four properties ran out, the first two were refuted: the last two one at a time.
        assert_eq!(chunk_end(2, 4, 4, &[(0, 4)]), 3);
        assert_eq!(chunk_end(3, 4, 4, &[(0, 4)]), 4);
        // At the start of the range that ran out the size stands (it was halved already).
        assert_eq!(chunk_end(0, 2, 4, &[(0, 4)]), 2);
        // Nothing ran out, or the chunk stops short of the range's end: unchanged.
        assert_eq!(chunk_end(2, 4, 4, &[]), 4);
        assert_eq!(chunk_end(8, 4, 32, &[(0, 32)]), 12);
        // Nested ranges: the rest of the outer one, 4..8, is halved.
        assert_eq!(chunk_end(4, 4, 8, &[(0, 8), (0, 4)]), 6);
        // A chunk past a range that ran out is not cut by it.
        assert_eq!(chunk_end(4, 4, 16, &[(0, 4)]), 8);
    }
}
