//! Solving a check's queries (`query::split`) under a base of assumptions: each query on a
//! solver of its own (`apart`) with the slice of the assumptions it needs (`cone`), the
//! cheaper refutations first (the stride of its offsets, `stride`; the overlap without the
//! benign-race tolerance), a query past its budget in chunks of properties, and the next
//! queries' first attempts on worker threads while this one waits for the earliest.

use crate::encode::{self, Encoding, Property};
use crate::{apart, cone, memo, query, rlimit_within, stride, Stats, Verdict, Verifier};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use z3::ast::Bool;
use z3::{Context, SatResult};

mod chunks;
mod refute;

/// The most properties of a query solved by Z3's tactics rather than its incremental core
/// (see `Verifier::solve_query`).
const SMALL_QUERY: usize = 64;

/// How long a query of several properties may take before its properties are solved one at a
/// time ([`Verifier::check`]).
const QUERY_BUDGET: Duration = Duration::from_secs(2);

/// How many queries' first attempts per solver thread are prepared ahead of the query whose
/// answer is taken next ([`Verifier::solve_in_order`]). With one per thread, a slow query
/// held back the next one until its answer was taken (PolyBench adi `kernel19`: its three
/// slow queries, 3–4.5 s each, ran one after the other with a thread idle).
const LOOKAHEAD: usize = 4;

/// The budget of a query of `n` properties solved at once: [`QUERY_BUDGET`] for 6 to
/// [`SMALL_QUERY`] properties, a sixth of it a property below 6 (past the budget each
/// property is solved alone, side by side on the verifier's threads, which costs little more
/// than the disjunction when there are few: the CUDA SDK's `vertical_shfl`, whose invariant
/// check of 3 properties ran its disjunction to the 2 s budget's wall-clock cap, 6–7 s, and
/// then took 3.4 s alone, went from 12.6 to 11.4 s, nussinov `kernel4` 11.5 to 9.0 s,
/// binomialOptions 10.2 to 8.6 s; a 1 s budget for every query took GPUVerify's
/// `unconstrained_sizes/local_size`, one disjunction of 6 properties over `%`, from 2.6 to
/// 9.2 s), and a quarter of it past [`SMALL_QUERY`] properties: a large disjunction that Z3 does not decide in that
/// time was not decided in the whole budget either, where its chunks take milliseconds (the
/// CUDA SDK's `bitonicMergeShared` with the barrier at its loop's head deleted: two race
/// queries of 80 properties ran to the budget's wall-clock cap, 6 s, and their chunks of 8
/// took 0.03 s each; its repair 9.0 s -> 4.5 s). GPUVerify's suite and the scaling families
/// make the same solver calls with either budget.
fn query_budget(n: usize) -> Duration {
    if n > SMALL_QUERY {
        QUERY_BUDGET / 4
    } else {
        (QUERY_BUDGET / 6 * n as u32).min(QUERY_BUDGET)
    }
}

/// The properties of a query that one solver call asks about.
#[derive(Clone, Copy, Debug)]
enum Sel {
    /// The first `n`, in schedule order.
    Prefix(usize),
    /// The `i`th alone.
    One(usize),
    /// Those from `a` to `b` (exclusive).
    Range(usize, usize),
}

impl Sel {
    /// The properties selected, as a range of the query's.
    fn range(self) -> std::ops::Range<usize> {
        match self {
            Sel::Prefix(upto) => 0..upto,
            Sel::One(i) => i..i + 1,
            Sel::Range(a, b) => a..b,
        }
    }
}

/// A query's first attempt solved on another thread ([`Verifier::solve_in_order`]).
struct Attempt {
    q: usize,
    /// As [`apart::Detached::solve`]: `Ok(None)` when its budget ran out.
    answer: Result<Option<SatResult>, Verdict>,
    /// The call, when satisfiable (its model).
    call: Option<apart::Detached>,
    solver_calls: u32,
    took: Duration,
    /// Whether the query's strict call ([`Verifier::refuted_without_values`]) was solved
    /// before the call itself, and refuted the query.
    strict_tried: bool,
    without_values: bool,
}

/// A query's first attempt sent to a worker thread ([`Verifier::solve_ahead`]): the query,
/// the call and its budget, and the strict call with its budget when the query has one
/// ([`Verifier::strict_formula`]), solved first.
type Job = (usize, apart::Detached, Option<u32>, Option<(apart::Detached, u32)>);

/// How a query's first attempt was prepared ([`Verifier::prepare_first_attempt`]).
enum Ahead {
    /// Sent to another thread: what it answers and the memo key of its slice.
    Sent(memo::Answered, memo::Key),
    /// Refuted under an earlier assignment (the memo).
    Reused,
    /// To be solved on this thread.
    Here,
}

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Query `q` of [`Verifier::queries`] on a solver of its own: the encoding's background
    /// assertions, the query's violation, and `base` (the barrier assignment and the
    /// candidates' literals). Returns the answer and, when satisfiable, the model.
    ///
    /// A fresh solver, in a Z3 context of its own (`apart`), works on this query's formulas
    /// only; on the shared solver every query paid for the whole encoding (the arrays family
    /// at n = 320: 7.9 s against 0.5 s), and in the encoding's context for every term of it. It
    /// holds the assumptions and the loop cuts' log facts of the query's cone of influence
    /// (`cone`), widened while a model breaks one left out. How it is solved was measured on the
    /// scaling families (`scripts/scaling`): a query of at most [`SMALL_QUERY`] properties, or
    /// one that holds loop cuts' log facts, is solved by Z3's tactics (`check`
    /// without assumptions, the assignment asserted: simplification, elimination of
    /// unconstrained terms, bit-blasting), which disposes of a barrier interval's value terms
    /// at once (a query of the 160-interval family: 0.01 s, against 0.1–2 s in Z3's
    /// incremental core) and of a cut loop's havocked state and ghost iterations (the `loops`
    /// family at n = 80: 0.5–0.8 s a race query of 250 properties, against 0.35–4.5 s); any
    /// other by the incremental core under assumptions, whose work grows about linearly with
    /// the query where the tactics' grows quadratically (1,919 properties of a straight-line
    /// run on one array: 1.0 s against 4.0 s).
    ///
    /// Only the query's first `upto` properties count (see [`Verifier::earliest`]).
    ///
    /// With a resource limit `rlimit`, `Ok(SatResult::Unknown)` when it ran out.
    fn solve_query(
        &mut self,
        base: &[Bool<'ctx>],
        q: usize,
        sel: Sel,
        rlimit: Option<u32>,
    ) -> (Result<SatResult, Verdict>, Option<z3::Model<'ctx>>) {
        self.solve_query_from(base, q, sel, rlimit, None)
    }

    /// [`Verifier::solve_query`], its first call's answer `first` when given (solved on
    /// another thread: [`Verifier::solve_in_order`]) rather than solved here.
    fn solve_query_from(
        &mut self,
        base: &[Bool<'ctx>],
        q: usize,
        sel: Sel,
        rlimit: Option<u32>,
        mut first: Option<(Result<SatResult, Verdict>, Option<z3::Model<'ctx>>)>,
    ) -> (Result<SatResult, Verdict>, Option<z3::Model<'ctx>>) {
        // With the assumptions and log facts of the query's cone of influence only (`cone`);
        // a model that one left out does not allow is solved again on a wider slice.
        let (answered, mut slice, key) = match self.slice_unless_known(q, sel) {
            Some(x) => x,
            None => return (Ok(SatResult::Unsat), None),
        };
        let mut refinements = 0;
        loop {
            let (r, model) = match first.take() {
                Some(answer) => answer,
                None => self.solve_query_with(base, q, sel, &slice, rlimit),
            };
            if matches!(r, Ok(SatResult::Unsat)) {
                if refinements > 0 {
                    if let Some(w) = slice.widened() {
                        self.widened.entry(q).or_default().merge(w);
                    }
                }
                let key = if refinements == 0 {
                    key
                } else {
                    let query = &self.queries[q];
                    let props: &[usize] = &query.props[sel.range()];
                    let conds: Vec<&Bool<'ctx>> = props.iter().map(|&i| &self.enc.obligations.props()[i].cond).collect();
                    self.memo.key(&self.enc, &slice.facts, &conds)
                };
                let kept = self.memo.kept.clone();
                self.memo.record_unsat(answered, key, &kept);
                return (r, model);
            }
            let Some(m) = &model else { return (r, model) };
            let (ctx, opts, stats) = (self.ctx, &self.opts, &mut self.stats);
            let mut solve_class = |facts: &[Bool<'ctx>]| apart::class_satisfiable(ctx, opts, stats, facts);
            let wider = self.enc.assumptions.borrow_mut().recheck(&slice, m, refinements, base, &mut solve_class);
            match wider {
                None => return (r, model),
                Some(w) => {
                    self.stats.cone_fallbacks += 1;
                    refinements += 1;
                    slice = w;
                }
            }
        }
    }

    /// [`Verifier::solve_query`] on this slice of the assumptions and log facts.
    fn solve_query_with(
        &mut self,
        base: &[Bool<'ctx>],
        q: usize,
        sel: Sel,
        slice: &cone::Slice<'ctx>,
        rlimit: Option<u32>,
    ) -> (Result<SatResult, Verdict>, Option<z3::Model<'ctx>>) {
        let (asserted, assumptions, violated) = Self::first_attempt(self.ctx, &self.enc, &self.queries[q], base, sel, slice);
        let mut asserted = asserted;
        asserted.push(&violated);
        // For debugging: SYNCFIX_DUMP_QUERIES=DIR writes every query solved as DIR/<n>.smt2
        // (its assumptions asserted).
        let dump =
            std::env::var_os("SYNCFIX_DUMP_QUERIES").map(|d| std::path::PathBuf::from(d).join(format!("{}.smt2", self.stats.solver_calls)));
        let t0 = Instant::now();
        let answer =
            apart::solve(self.ctx, &self.opts, &mut self.stats, &asserted, &assumptions, rlimit, crate::call::WallCap::Loose, dump);
        if std::env::var_os("SYNCFIX_DEBUG_QUERIES").is_some() {
            let r = sel.range();
            // Each property's kind, cut short: a race's carries its offsets' terms.
            let kinds: Vec<String> = self.queries[q].props[r.clone()]
                .iter()
                .map(|&p| format!("{:?}", self.enc.obligations.props()[p].kind).chars().take(100).collect())
                .collect();
            eprintln!(
                "query:   properties {}..{} took {:.3}s: {:?} ({})",
                r.start,
                r.end,
                t0.elapsed().as_secs_f64(),
                answer.as_ref().map(|a| a.as_ref().map(|x| x.0)),
                kinds.join("; ")
            );
        }
        match answer {
            Ok(Some((r, model))) => (Ok(r), model),
            Ok(None) if rlimit.is_some() => (Ok(SatResult::Unknown), None),
            Ok(None) => (Err(Verdict::Timeout), None),
            Err(v) => (Err(v), None),
        }
    }

    /// What a call for the properties `sel` of query `q` on `slice` asserts (besides the
    /// violation, returned third: the caller asserts it last) and assumes: a query of at most
    /// [`SMALL_QUERY`] properties, or one with loop cuts' log facts, has `base` asserted and
    /// is solved by Z3's tactics; a larger one assumes `base` and its literal (see
    /// [`Verifier::solve_query`]).
    fn first_attempt<'s>(
        ctx: &'ctx Context,
        enc: &'s Encoding<'ctx>,
        query: &'s query::Query<'ctx>,
        base: &'s [Bool<'ctx>],
        sel: Sel,
        slice: &'s cone::Slice<'ctx>,
    ) -> (Vec<&'s Bool<'ctx>>, Vec<Bool<'ctx>>, Bool<'ctx>) {
        // The solver for the logic costs about 5 ms to set up (on its first assertion: 3.2 s
        // of the 629 queries of the 320-interval family); the `qfaufbv` tactic as a solver
        // (Tactic::solver) costs nothing to set up but solved some queries several times
        // slower (GPUVerify's barrier_invariants/all_different: 1.1 s -> 3.3 s).
        let small = sel.range().len() <= SMALL_QUERY || slice.log_facts > 0;
        let violated = query.violated(ctx, enc, sel.range());
        let mut asserted: Vec<&Bool<'ctx>> = enc.symbols.background().iter().chain(&slice.facts).collect();
        let mut assumptions = vec![];
        if small {
            asserted.extend(base);
        } else {
            assumptions = base.to_vec();
            assumptions.push(query.lit.clone());
        }
        (asserted, assumptions, violated)
    }

    /// Solves query `q` under `base` (see [`Verifier::check_once`]): the answer, and when
    /// satisfiable the model of its earliest violated property.
    fn solve_one(&mut self, base: &[Bool<'ctx>], q: usize) -> (Result<SatResult, Verdict>, Option<z3::Model<'ctx>>) {
        self.solve_one_from(base, q, None, false)
    }

    /// [`Verifier::solve_one`], the first attempt's answer `first` when given (satisfiable,
    /// solved on another thread) rather than solved here; `strict_tried`: the query's strict
    /// call was solved with its first attempt (not refuted).
    fn solve_one_from(
        &mut self,
        base: &[Bool<'ctx>],
        q: usize,
        first: Option<(Result<SatResult, Verdict>, Option<z3::Model<'ctx>>)>,
        strict_tried: bool,
    ) -> (Result<SatResult, Verdict>, Option<z3::Model<'ctx>>) {
        let t0 = Instant::now();
        if first.is_none() && (self.refuted_by_stride(q) || (!strict_tried && self.refuted_without_values(base, q))) {
            self.count_query(q, t0.elapsed(), &Ok(SatResult::Unsat));
            return (Ok(SatResult::Unsat), None);
        }
        // A query of several properties within a budget, past which it is solved in
        // chunks of properties in schedule order, each within the budget (Z3 can take a
        // minute on the disjunction of properties it refutes in seconds one by one: the
        // invariants over `/` and `%` of PPCG's PolyBench kernels; and 361 properties one
        // by one cost 40 s on gpgpu-sim's md5, where chunks of 20 take a second each);
        // the first satisfiable property found is then the earliest.
        let n = self.queries[q].props.len();
        let budget = if n > 1 { rlimit_within(&self.opts, query_budget(n)) } else { None };
        let (mut res, mut m) = if budget.is_some() && self.chunked.contains(&self.queries[q].label) {
            (Ok(SatResult::Unknown), None)
        } else {
            self.solve_query_from(base, q, Sel::Prefix(n), budget, first)
        };
        let mut one_by_one = false;
        if budget.is_some() && matches!(res, Ok(SatResult::Unknown)) {
            one_by_one = true;
            self.chunked.insert(self.queries[q].label.clone());
            (res, m) = self.solve_chunked(base, q, 0, n, true);
        }
        self.count_query(q, t0.elapsed(), &res);
        if matches!(res, Ok(SatResult::Sat)) && !one_by_one {
            if n > SMALL_QUERY {
                // A large query's earliest violation by chunks in schedule order (each a small
                // formula) rather than by bisecting its prefixes, each nearly the whole query
                // (HeCBench nbnxm with a barrier deleted: 302 race properties, four prefixes
                // of 3.5-9 s, against chunks of 0.1-0.5 s).
                let (r2, m2) = self.solve_chunked(base, q, 0, n, false);
                match r2 {
                    Ok(SatResult::Sat) => m = m2.or(m),
                    // Not found again (a budget, or a model the slice allowed): the model at
                    // hand, narrowed as before.
                    _ => m = self.earliest(base, q).or(m),
                }
            } else if self.enc.symbols.vars().is_empty() {
                // With barrier variables (a repair's checks) the model at hand stands: any
                // counterexample teaches the repair a clause, and bisecting a merged query
                // (`query::merged`) cost nbnxm's race-finding calls 3-8 s each.
                m = self.earliest(base, q).or(m);
            }
        }
        (res, m)
    }

    /// Every query under `base`, in schedule order, until one is not refuted: its answer and
    /// model (see [`Verifier::solve_one`]), or unsatisfiable when none is.
    ///
    /// With [`VerifyOptions::threads`] > 1 the next queries' first attempts (the whole
    /// query, within its budget when it has several properties) are prepared here and solved
    /// on other threads while this one waits for the earliest; a query that a first attempt
    /// refuted counts as solved here, one whose budget ran out is solved in chunks here, and
    /// a satisfiable one goes on here from its model as [`Verifier::solve_one`] goes on from
    /// its first attempt (so a trace and its narrowing are as without threads). Attempts past
    /// the first query not refuted are interrupted.
    pub(crate) fn solve_in_order(&mut self, base: &[Bool<'ctx>]) -> (Result<SatResult, Verdict>, Option<z3::Model<'ctx>>) {
        let n = self.queries.len();
        let threads = self.opts.threads().min(n);
        if threads <= 1 || std::env::var_os("SYNCFIX_DUMP_QUERIES").is_some() {
            for q in 0..n {
                let (r, model) = self.solve_one(base, q);
                if !matches!(r, Ok(SatResult::Unsat)) {
                    self.sat_query = Some(q);
                    return (r, model);
                }
            }
            return (Ok(SatResult::Unsat), None);
        }
        let stop = std::sync::atomic::AtomicBool::new(false);
        let opts = self.opts.clone();
        let (job_tx, job_rx) = std::sync::mpsc::channel::<Job>();
        let job_rx = std::sync::Mutex::new(job_rx);
        let (done_tx, done_rx) = std::sync::mpsc::channel::<Attempt>();
        std::thread::scope(|s| {
            for _ in 0..threads {
                let done_tx = done_tx.clone();
                let (job_rx, stop, opts) = (&job_rx, &stop, &opts);
                s.spawn(move || loop {
                    let job = job_rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok((q, mut call, rlimit, strict)) = job else { break };
                    let mut stats = Stats::default();
                    let t0 = Instant::now();
                    let strict_tried = strict.is_some();
                    let without_values = !stop.load(std::sync::atomic::Ordering::Relaxed)
                        && strict.is_some_and(|(mut s, r)| {
                            matches!(s.solve(opts, &mut stats, Some(r), crate::call::WallCap::Loose, stop), Ok(Some(SatResult::Unsat)))
                        });
                    let strict_took = t0.elapsed();
                    let answer = if stop.load(std::sync::atomic::Ordering::Relaxed) {
                        Err(Verdict::Timeout)
                    } else if without_values {
                        Ok(Some(SatResult::Unsat))
                    } else {
                        call.solve(opts, &mut stats, rlimit, crate::call::WallCap::Loose, stop)
                    };
                    if std::env::var_os("SYNCFIX_DEBUG_QUERIES").is_some() {
                        eprintln!(
                            "query: attempt {q} on a worker: strict call {:.3}s ({}), first attempt {:.3}s: {:?}",
                            strict_took.as_secs_f64(),
                            if without_values {
                                "refuted"
                            } else if strict_tried {
                                "not refuted"
                            } else {
                                "none"
                            },
                            (t0.elapsed() - strict_took).as_secs_f64(),
                            answer.as_ref().ok()
                        );
                    }
                    // A satisfiable attempt goes back with its solver, for its model.
                    let call = matches!(answer, Ok(Some(SatResult::Sat))).then_some(call);
                    let _ = done_tx.send(Attempt {
                        q,
                        answer,
                        call,
                        solver_calls: stats.solver_calls,
                        took: t0.elapsed(),
                        strict_tried,
                        without_values,
                    });
                });
            }
            drop(done_tx);
            let out = self.solve_ahead(base, threads, job_tx, &done_rx);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            out
        })
    }

    /// The loop of [`Verifier::solve_in_order`] on this thread: up to `threads` ×
    /// [`LOOKAHEAD`] first attempts sent on `jobs` ahead of the query waited for, their
    /// answers from `done`.
    fn solve_ahead(
        &mut self,
        base: &[Bool<'ctx>],
        threads: usize,
        jobs: std::sync::mpsc::Sender<Job>,
        done: &std::sync::mpsc::Receiver<Attempt>,
    ) -> (Result<SatResult, Verdict>, Option<z3::Model<'ctx>>) {
        let n = self.queries.len();
        let mut ahead: HashMap<usize, Ahead> = HashMap::new();
        let mut answers: HashMap<usize, Attempt> = HashMap::new();
        let mut next = 0;
        for q in 0..n {
            // Up to `LOOKAHEAD` first attempts per thread prepared ahead of the query waited
            // for, by its place alone (what is prepared when does not depend on how fast the
            // calls are): the workers take them in order, and a slow query no longer keeps
            // the next slow one from starting.
            while next < n && next < q + threads * LOOKAHEAD {
                let tp = Instant::now();
                let a = self.prepare_first_attempt(base, next);
                if std::env::var_os("SYNCFIX_DEBUG_QUERIES").is_some() {
                    eprintln!("query: prepared {} in {:.3}s", self.queries[next].label, tp.elapsed().as_secs_f64());
                }
                if let Ahead::Sent(..) = a.0 {
                    let (call, rlimit, strict) = a.1.expect("a prepared call");
                    let _ = jobs.send((next, call, rlimit, strict));
                }
                ahead.insert(next, a.0);
                next += 1;
            }
            let t0 = Instant::now();
            let mut first = None;
            let mut strict_tried = false;
            let refuted = match ahead.remove(&q) {
                Some(Ahead::Reused) => {
                    self.count_query(q, Duration::ZERO, &Ok(SatResult::Unsat));
                    true
                }
                Some(Ahead::Sent(answered, key)) => {
                    let attempt = loop {
                        if let Some(a) = answers.remove(&q) {
                            strict_tried = a.strict_tried;
                            break Some(a);
                        }
                        match done.recv() {
                            Ok(a) => {
                                answers.insert(a.q, a);
                            }
                            Err(_) => break None,
                        }
                    };
                    self.stats.solve_time += t0.elapsed();
                    match attempt {
                        Some(Attempt { answer: Ok(Some(SatResult::Unsat)), solver_calls, took, without_values, .. }) => {
                            self.stats.solver_calls += solver_calls;
                            if without_values {
                                self.stats.queries_without_values += 1;
                            }
                            let kept = self.memo.kept.clone();
                            self.memo.record_unsat(answered, key, &kept);
                            self.count_query(q, took, &Ok(SatResult::Unsat));
                            true
                        }
                        Some(Attempt { answer: Ok(None), solver_calls, .. }) => {
                            // Its budget ran out: solved in chunks here, as `solve_one` does.
                            self.stats.solver_calls += solver_calls;
                            self.chunked.insert(self.queries[q].label.clone());
                            false
                        }
                        Some(Attempt { answer: Ok(Some(SatResult::Sat)), call: Some(call), solver_calls, .. }) => {
                            // Satisfiable: its model goes on here as `solve_one` goes on from
                            // its first attempt (a wider slice, the earliest violation).
                            self.stats.solver_calls += solver_calls;
                            first = Some((Ok(SatResult::Sat), call.model(self.ctx)));
                            false
                        }
                        Some(Attempt { solver_calls, .. }) => {
                            self.stats.solver_calls += solver_calls;
                            false
                        }
                        None => false,
                    }
                }
                _ => false,
            };
            if refuted {
                continue;
            }
            let (r, model) = self.solve_one_from(base, q, first, strict_tried);
            if !matches!(r, Ok(SatResult::Unsat)) {
                self.sat_query = Some(q);
                return (r, model);
            }
        }
        (Ok(SatResult::Unsat), None)
    }

    /// Query `q`'s first attempt as [`Verifier::solve_one`] makes it, prepared to be solved
    /// on another thread: `Ahead::Sent` with the call and its budget, `Ahead::Reused` when the
    /// memo knows it refuted, `Ahead::Here` when it is solved on this thread (chunked since
    /// an earlier check).
    fn prepare_first_attempt(
        &mut self,
        base: &[Bool<'ctx>],
        q: usize,
    ) -> (Ahead, Option<(apart::Detached, Option<u32>, Option<(apart::Detached, u32)>)>) {
        let n = self.queries[q].props.len();
        let budget = if n > 1 { rlimit_within(&self.opts, query_budget(n)) } else { None };
        if self.refuted_by_stride(q) {
            return (Ahead::Reused, None);
        }
        if budget.is_some() && self.chunked.contains(&self.queries[q].label) {
            return (Ahead::Here, None);
        }
        let Some((answered, key, call)) = self.detached_call(base, q, Sel::Prefix(n)) else {
            return (Ahead::Reused, None);
        };
        let strict = self.strict_formula(q).map(|(slice, violated, rlimit)| {
            let asserted: Vec<&Bool<'ctx>> =
                self.enc.symbols.background().iter().chain(&slice.facts).chain(base).chain([&violated]).collect();
            (apart::Detached::new(&asserted, &[]), rlimit)
        });
        (Ahead::Sent(answered, key), Some((call, budget, strict)))
    }

    /// The call for the properties `sel` of query `q` as [`Verifier::solve_query_with`] makes
    /// it (on their slice), prepared in a Z3 context of its own to be solved on another
    /// thread, with what its answer is of and its memo key; `None` when the memo knows them
    /// refuted ([`Verifier::slice_unless_known`]).
    fn detached_call(&mut self, base: &[Bool<'ctx>], q: usize, sel: Sel) -> Option<(memo::Answered, memo::Key, apart::Detached)> {
        let (answered, slice, key) = self.slice_unless_known(q, sel)?;
        let (mut asserted, assumptions, violated) = Self::first_attempt(self.ctx, &self.enc, &self.queries[q], base, sel, &slice);
        asserted.push(&violated);
        let call = apart::Detached::new(&asserted, &assumptions);
        // For debugging: SYNCFIX_DUMP_QUERIES=DIR writes each such call as
        // DIR/side.<query>.<first property>.smt2 (its assumptions asserted).
        if let Some(dir) = std::env::var_os("SYNCFIX_DUMP_QUERIES") {
            call.dump(&std::path::PathBuf::from(dir).join(format!("side.{q}.{}.smt2", sel.range().start)));
        }
        Some((answered, key, call))
    }

    /// The properties `sel` of query `q`: what their answer is of, their slice of the
    /// assumptions (`cone`) and its memo key; `None` when the memo knows them refuted under an
    /// earlier assignment (counted as reused).
    fn slice_unless_known(&mut self, q: usize, sel: Sel) -> Option<(memo::Answered, cone::Slice<'ctx>, memo::Key)> {
        let query = &self.queries[q];
        let props: &[usize] = &query.props[sel.range()];
        let conds: Vec<&Bool<'ctx>> = props.iter().map(|&i| &self.enc.obligations.props()[i].cond).collect();
        let oks: Vec<&Bool<'ctx>> = props.iter().map(|&i| &self.enc.obligations.props()[i].ok).collect();
        let stamp = props.iter().map(|&i| self.enc.obligations.props()[i].stamp).max().unwrap_or(0);
        let answered = memo::Answered::Query(q, sel.range().start, sel.range().end);
        let slice = self.enc.assumptions.borrow_mut().slice(&conds, &oks, query.logs, stamp, self.widened.get(&q));
        if std::env::var_os("SYNCFIX_DEBUG_QUERIES").is_some() {
            let all = self.enc.assumptions.borrow().len();
            eprintln!("query: {}: {} facts of assumptions, {} left out of {}", query.label, slice.facts.len(), slice.dropped(), all);
        }
        // An answer of an earlier assignment that holds for this one (`memo`).
        let key = self.memo.key(&self.enc, &slice.facts, &conds);
        if self.memo.known_unsat(answered, &key, &self.memo.kept) {
            self.stats.queries_reused += 1;
            return None;
        }
        Some((answered, slice, key))
    }

    /// Counts query `q` as solved in `took` ([`Verifier::solve_one`]'s bookkeeping).
    fn count_query(&mut self, q: usize, took: Duration, res: &Result<SatResult, Verdict>) {
        self.stats.queries += 1;
        if self.stats.slowest_query.as_ref().is_none_or(|(_, t)| took > *t) {
            self.stats.slowest_query = Some((self.queries[q].label.clone(), took));
        }
        self.stats.query_times.push((self.queries[q].label.clone(), self.queries[q].props.len(), took));
        if std::env::var_os("SYNCFIX_DEBUG_QUERIES").is_some() {
            let query = &self.queries[q];
            eprintln!("query: {} ({} properties) took {:.3}s: {:?}", query.label, query.props.len(), took.as_secs_f64(), res.as_ref().ok());
        }
    }

    /// A model of the earliest position in the schedule at which satisfiable query `q` can be
    /// violated: the shortest satisfiable prefix of its properties that ends at a position
    /// boundary, by bisection (a few more solver calls, on a defect only). The defect reported
    /// is then the kernel's first in schedule order, whatever model Z3 happened to give for
    /// the whole query; among the properties of that one position the model decides, as
    /// before (`trace::extract`). `None` when a call did not answer, or the whole query is
    /// the shortest (its model stands).
    fn earliest(&mut self, base: &[Bool<'ctx>], q: usize) -> Option<z3::Model<'ctx>> {
        let props = &self.queries[q].props;
        // The prefix lengths that end at a position boundary, shortest first.
        let ends: Vec<usize> = (1..=props.len())
            .filter(|&n| n == props.len() || self.enc.obligations.props()[props[n]].pos != self.enc.obligations.props()[props[n - 1]].pos)
            .collect();
        // Invariant: the prefix `ends[hi]` is satisfiable, those before `ends[lo]` are not.
        let (mut lo, mut hi) = (0, ends.len() - 1);
        let mut model = None;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.solve_query(base, q, Sel::Prefix(ends[mid]), None) {
                (Ok(SatResult::Sat), m) => {
                    hi = mid;
                    model = m;
                }
                (Ok(SatResult::Unsat), _) => lo = mid + 1,
                _ => return None,
            }
        }
        model
    }
}
