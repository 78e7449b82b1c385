//! Properties of a query in chunks, in schedule order (a query past its budget, and the
//! earliest violation of a satisfiable one).

use super::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// The first chunk's size when a query is solved in chunks (`Verifier::solve_chunked`).
const FIRST_CHUNK: usize = 8;

/// The most properties of a query that ran out which are solved side by side, each alone on
/// a thread of its own, before the chunks (`Verifier::refute_side_by_side`): as many as a
/// query solved by Z3's tactics holds ([`SMALL_QUERY`]). Up to 4 before: SHOC's `gr_base`
/// (27 race properties whose disjunction ran out, refuted alone in 2.1 s where its chunks
/// took 5.3 s) and PolyBench's nussinov `kernel4` (11) solved their chunks one after the other
/// on one thread while the others waited.
const SIDE_BY_SIDE: usize = SMALL_QUERY;

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
        if ran_out && (2..=SIDE_BY_SIDE).contains(&(n - a)) && self.opts.threads() > 1 {
            a = self.refute_side_by_side(base, q, a, n);
            if a == n {
                return (Ok(SatResult::Unsat), None);
            }
        }
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

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Properties `a..n` of query `q` (whose disjunction ran out) each alone, side by side on
    /// up to [`VerifyOptions::threads`] threads, each call in a Z3 context of its own
    /// (`apart::Detached`): the first property in schedule order that is not refuted so (all
    /// of them refuted: `n`), from which [`Verifier::solve_chunked`] goes on as before. Only
    /// refutations are taken from here (a satisfiable or undecided property is solved again,
    /// so the trace and its narrowing are those of one thread), and once one is not refuted
    /// the calls after it are stopped and no more are prepared. The calls are prepared here,
    /// one at a time while the threads solve (a bounded queue of as many as there are
    /// threads), so that at most twice as many contexts as threads are alive, whatever `n − a`
    /// (a context takes 17 MB). The CUDA SDK's `shfl_vertical_shfl`: three properties of
    /// 2.4–4 s, one after the other before; SHOC's `gr_base`: 27 race properties refuted alone
    /// in 2.1 s, against 5.3 s in chunks (their disjunctions are what is hard).
    fn refute_side_by_side(&mut self, base: &[Bool<'ctx>], q: usize, a: usize, n: usize) -> usize {
        let t0 = Instant::now();
        let m = n - a;
        let threads = self.opts.threads().min(m);
        // What each property's answer is of, `None` when the memo knows it refuted or it was
        // not prepared (a property before it was not refuted).
        let mut answers: Vec<Option<(memo::Answered, memo::Key)>> = Vec::with_capacity(m);
        let stops: Vec<AtomicBool> = (0..m).map(|_| AtomicBool::new(false)).collect();
        let results: Vec<std::sync::Mutex<Option<(bool, u32, std::time::Duration)>>> =
            (0..m).map(|_| std::sync::Mutex::new(None)).collect();
        let opts = self.opts.clone();
        let (jobs, queue) = std::sync::mpsc::sync_channel::<(usize, apart::Detached)>(threads);
        let queue = std::sync::Mutex::new(queue);
        std::thread::scope(|s| {
            for _ in 0..threads {
                let (queue, stops, results, opts) = (&queue, &stops, &results, &opts);
                s.spawn(move || loop {
                    let job = queue.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok((j, mut call)) = job else { break };
                    if stops[j].load(Ordering::Relaxed) {
                        continue;
                    }
                    let mut stats = Stats::default();
                    let started = Instant::now();
                    let refuted =
                        matches!(call.solve(opts, &mut stats, None, crate::call::WallCap::Loose, &stops[j]), Ok(Some(SatResult::Unsat)));
                    if !refuted {
                        for stop in &stops[j + 1..] {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    *results[j].lock().unwrap_or_else(|e| e.into_inner()) = Some((refuted, stats.solver_calls, started.elapsed()));
                });
            }
            for j in 0..m {
                if stops[j].load(Ordering::Relaxed) {
                    break;
                }
                match self.detached_call(base, q, Sel::One(a + j)) {
                    Some((answered, key, call)) => {
                        answers.push(Some((answered, key)));
                        if jobs.send((j, call)).is_err() {
                            break;
                        }
                    }
                    None => answers.push(None),
                }
            }
            drop(jobs);
        });
        self.stats.solve_time += t0.elapsed();
        let kept = self.memo.kept.clone();
        let debug = std::env::var_os("SYNCFIX_DEBUG_QUERIES").is_some();
        // Not prepared: after one that was not refuted.
        let mut first = if answers.len() < m { a + answers.len() } else { n };
        for (j, answer) in answers.into_iter().enumerate() {
            let result = results[j].lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some((refuted, calls, took)) = result {
                self.stats.solver_calls += calls;
                if debug {
                    let p = self.queries[q].props[a + j];
                    let kind: String = format!("{:?}", self.enc.obligations.props()[p].kind).chars().take(100).collect();
                    let answer = if refuted { "refuted" } else { "not refuted" };
                    eprintln!("query:     property {} alone took {:.3}s: {answer} ({kind})", a + j, took.as_secs_f64());
                }
            }
            let Some((answered, key)) = answer else { continue };
            match result {
                Some((true, _, _)) => self.memo.record_unsat(answered, key, &kept),
                _ => first = first.min(a + j),
            }
        }
        if debug {
            eprintln!("query:   properties {a}..{n} side by side took {:.3}s: refuted up to {first}", t0.elapsed().as_secs_f64());
        }
        first
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
