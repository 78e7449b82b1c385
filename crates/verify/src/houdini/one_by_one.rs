//! A Houdini round solved one check at a time ([`Verifier::houdini_one_by_one`]): after a
//! group's disjunction ran past its budget. The checks of one pass are independent (each is
//! solved under the candidates kept when the round began), so their first calls run side by
//! side on the verifier's threads, each in a Z3 context of its own ([`Detached`]), while the
//! answers are taken in the checks' order on this thread: what is dropped, recorded and
//! widened is what one check after the other gives (PolyBench nussinov `kernel2`: eleven
//! checks of 1.5–3 s each in one pass).

use super::{debug, ABSTRACTED_READS_BUDGET, CHECK_BUDGET, NARROW_CHECK_BUDGET, SHORT_CHECK_BUDGET};
use crate::apart::{self, Answer, Detached};
use crate::call::WallCap;
use crate::cone::Slice;
use crate::memo::{Answered, Key};
use crate::{Stats, Verdict, Verifier};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use z3::ast::Bool;
use z3::{Model, SatResult};

/// One check of a pass, as prepared (its slice and memo key made, the memo asked).
enum Step<'ctx> {
    /// The memo knows it unsatisfiable under the round's candidates.
    KnownUnsat,
    /// The memo knows it undecided, or a candidate of its shape was undecided by an earlier
    /// verifier of the kernel: its candidate is dropped.
    KnownUndecided,
    /// To be solved on its slice.
    Solve(Box<Call<'ctx>>),
}

/// A check to solve: its slice of the assumptions, its memo key and its condition.
struct Call<'ctx> {
    slice: Slice<'ctx>,
    key: Key,
    cond: Bool<'ctx>,
}

impl<'ctx> Call<'ctx> {
    /// What a call of the check asserts: the encoding's background, the slice's facts, the
    /// candidates' literals `a` and the check.
    fn formulas<'b>(&'b self, enc: &'b crate::Encoding<'ctx>, a: &'b [Bool<'ctx>]) -> Vec<&'b Bool<'ctx>> {
        enc.symbols.background().iter().chain(&self.slice.facts).chain(a).chain([&self.cond]).collect()
    }
}

/// The budget of one call of a check.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Budget {
    /// [`NARROW_CHECK_BUDGET`]: a slice that left something out.
    Narrow,
    /// [`SHORT_CHECK_BUDGET`]: every assumption, first (or after a narrow slice's call ran
    /// out).
    Short,
    /// [`CHECK_BUDGET`]: past it the candidate is dropped.
    Whole,
}

/// How a check solved ended.
enum Ended<'ctx> {
    /// Unsatisfiable: the candidate stays (for this check).
    Refuted,
    /// Not decided within [`CHECK_BUDGET`]: its candidate was dropped.
    Undecided(usize),
    /// A model of the whole formula: the candidates whose checks it violates are dropped.
    Violated(Model<'ctx>),
}

/// A check's call sent to a worker: its place in the pass, the call, its budget and how it is
/// capped in wall-clock time, its stop flag.
type Job = (usize, Detached, Option<u32>, WallCap, Arc<AtomicBool>);

/// What a worker sends back: the place, the call (for its model), the answer, the call's
/// stats and wall time.
type Done = (usize, Detached, Result<Option<SatResult>, Verdict>, Stats, Duration);

/// A call's answer as a worker sent it back (a [`Done`] without its place).
type Arrived = (Detached, Result<Option<SatResult>, Verdict>, Stats, Duration);

/// How a round solved one check at a time beside its disjunction
/// ([`Verifier::houdini_raced`]) ended.
pub(super) enum Raced<'ctx> {
    /// The pass ended first (or the disjunction ran out): the lowest candidate dropped, and
    /// whether the disjunction had run out of its budget by then (it is stopped otherwise).
    Pass(Option<usize>, bool),
    /// The disjunction was answered first: its answer, and the lowest candidate the pass
    /// had dropped by then (each drop is one Houdini makes in any order: a check violated
    /// under the round's candidates).
    Disjunction(Answer<'ctx>, Option<usize>),
}

/// How a pass ended ([`Verifier::run_pass`]): the lowest candidate dropped, and whether the
/// disjunction it raced was answered before the pass's end.
struct PassEnd {
    lowest: Option<usize>,
    disjunction_first: bool,
}

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Group `g`'s round one check at a time, each on a fresh solver (the background, the
    /// log facts and assumptions the check needs, `a` asserted, the check): every
    /// satisfiable one drops the candidates whose checks its model violates; the lowest
    /// candidate dropped (`None` when none is).
    ///
    /// One pass over the checks, every drop made on the way (under `a`, the candidates kept
    /// when the round began): a round with a drop is followed by another (the group is
    /// solved again), and only a round without one ends Houdini for the group, so its answer
    /// is inductive. Stopping at the first drop made each undecided check cost a round that
    /// solved every check before it again (HeCBench's FDTD3d: 9 such rounds of about 10 s).
    pub(super) fn houdini_one_by_one(&mut self, g: usize, a: &[Bool<'ctx>], kept: &mut [bool]) -> Result<Option<usize>, Verdict> {
        // SYNCFIX_DUMP_HOUDINI writes each call as it is solved: on this thread.
        if !Self::passes_side_by_side(&self.opts) {
            // The candidates kept when the round began (those `a` assumes): with the barrier
            // variables a check mentions, what an answer is remembered under (`memo`).
            let round_kept: Vec<bool> = kept[..self.houdini_groups[g].depends_below].to_vec();
            return self.one_by_one_here(g, a, kept, &round_kept);
        }
        match self.houdini_raced(g, a, kept, None)? {
            Raced::Pass(lowest, _) => Ok(lowest),
            Raced::Disjunction(..) => unreachable!("no disjunction was raced"),
        }
    }

    /// Whether a pass's calls run on worker threads (more than one thread, and no
    /// `SYNCFIX_DUMP_HOUDINI`, which writes each call as it is solved, on this thread).
    pub(super) fn passes_side_by_side(opts: &crate::VerifyOptions) -> bool {
        opts.threads() > 1 && std::env::var_os("SYNCFIX_DUMP_HOUDINI").is_none()
    }

    /// Group `g`'s round one check at a time ([`Verifier::houdini_one_by_one`]) on the
    /// verifier's threads, its wall time taken as its solving time (the calls ran side by
    /// side); with a `disjunction` (the group's slice and the disjunction of its checks,
    /// under `a`, prepared apart, and its resource limit), that is solved beside the checks
    /// on one of the workers: whichever
    /// ends first is taken, the other stopped. A disjunction that Z3 does not answer within
    /// a fraction of a second is answered, when at all, in seconds, while its checks one by
    /// one take milliseconds each (the CUDA SDK's stereoDisparity: 2.2 s to its budget, then
    /// 21 checks in 0.1 s; Parboil's mri-gridding: five groups each ran 2.5–3 s to their
    /// budget), and a round waited for it before it began the checks. Only with worker
    /// threads ([`Verifier::passes_side_by_side`]).
    pub(super) fn houdini_raced(
        &mut self,
        g: usize,
        a: &[Bool<'ctx>],
        kept: &mut [bool],
        disjunction: Option<(Detached, Option<u32>)>,
    ) -> Result<Raced<'ctx>, Verdict> {
        let round_kept: Vec<bool> = kept[..self.houdini_groups[g].depends_below].to_vec();
        let threads = self.opts.threads();
        let start = Instant::now();
        let solve_before = self.stats.solve_time;
        let r = self.one_by_one_side_by_side(g, a, kept, &round_kept, threads, disjunction);
        self.stats.solve_time = solve_before + start.elapsed().max(self.stats.solve_time - solve_before);
        r
    }

    /// [`Verifier::houdini_one_by_one`] with every call on this thread.
    fn one_by_one_here(&mut self, g: usize, a: &[Bool<'ctx>], kept: &mut [bool], round_kept: &[bool]) -> Result<Option<usize>, Verdict> {
        let mut lowest = None;
        for i in self.houdini_groups[g].checks.clone() {
            if !kept[self.cand_of(i)] {
                continue;
            }
            let step = self.prepare_check(g, i, round_kept);
            self.take_step(g, i, step, a, round_kept, kept, &mut lowest, |v, call| {
                let budget = v.check_budget(&call.slice);
                v.solve_check(i, call, a, 0, budget)
            })?;
        }
        Ok(lowest)
    }

    /// [`Verifier::houdini_one_by_one`] with the checks' first calls on `threads` workers:
    /// up to `threads` calls prepared ahead of the check whose answer is taken next (so that
    /// what is prepared when does not depend on how fast the calls are), the answers taken in
    /// the checks' order. A call whose candidate an earlier check dropped is stopped and its
    /// answer ignored, as one check after the other would not have solved it. With a
    /// `disjunction` (and its resource limit): it is the first call sent, and the pass ends
    /// early once it is answered ([`Verifier::houdini_raced`]).
    fn one_by_one_side_by_side(
        &mut self,
        g: usize,
        a: &[Bool<'ctx>],
        kept: &mut [bool],
        round_kept: &[bool],
        threads: usize,
        disjunction: Option<(Detached, Option<u32>)>,
    ) -> Result<Raced<'ctx>, Verdict> {
        let opts = self.opts.clone();
        let (job_tx, job_rx) = mpsc::channel::<Job>();
        let job_rx = Mutex::new(job_rx);
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        std::thread::scope(|s| {
            for _ in 0..threads {
                let (done_tx, job_rx, opts) = (done_tx.clone(), &job_rx, &opts);
                s.spawn(move || loop {
                    let job = job_rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok((k, mut call, rlimit, cap, stop)) = job else { break };
                    let mut stats = Stats::default();
                    let t0 = Instant::now();
                    // A panic in a call (Z3's bindings panic on some errors) is this check's
                    // error, not a worker lost while the pass waits for its answer.
                    let r = if stop.load(Ordering::Relaxed) {
                        Err(Verdict::Timeout)
                    } else {
                        let solve = std::panic::AssertUnwindSafe(|| call.solve(opts, &mut stats, rlimit, cap, &stop));
                        std::panic::catch_unwind(solve)
                            .unwrap_or_else(|_| Err(Verdict::Unknown("internal error: a solver call of Houdini panicked".into())))
                    };
                    if done_tx.send((k, call, r, stats, t0.elapsed())).is_err() {
                        break;
                    }
                });
            }
            drop(done_tx);
            let mut pass = Pass {
                job_tx: Some(job_tx),
                done_rx,
                arrived: BTreeMap::new(),
                stops: vec![],
                disjunction: None,
                disjunction_answer: None,
            };
            if let Some((call, rlimit)) = disjunction {
                let stop = Arc::new(AtomicBool::new(false));
                pass.stops.push(stop.clone());
                pass.disjunction = Some(0);
                let job_tx = pass.job_tx.as_ref().expect("open while the pass runs");
                if job_tx.send((0, call, rlimit, WallCap::Loose, stop)).is_err() {
                    return Err(Verdict::Unknown("internal error: Houdini's solver threads ended early".into()));
                }
            }
            let r = self.run_pass(g, a, kept, round_kept, threads, &mut pass);
            // Whatever is still running is not needed: stopped, and the workers end once the
            // queue is closed.
            for stop in &pass.stops {
                stop.store(true, Ordering::Relaxed);
            }
            pass.job_tx = None;
            let end = r?;
            if !end.disjunction_first {
                let ran_out = matches!(&pass.disjunction_answer, Some((_, Ok(None), _, _)));
                return Ok(Raced::Pass(end.lowest, ran_out));
            }
            let (call, r, stats, took) = pass.disjunction_answer.take().expect("the disjunction answered first");
            self.stats.solver_calls += stats.solver_calls;
            let r = r?.expect("a disjunction answered");
            if debug() {
                eprintln!("houdini:   the disjunction answered {r:?} after {:.3}s, first", took.as_secs_f64());
            }
            let model = if r == SatResult::Sat { call.model(self.ctx) } else { None };
            Ok(Raced::Disjunction((r, model), end.lowest))
        })
    }

    /// The pass of [`Verifier::one_by_one_side_by_side`] on its workers' queues.
    fn run_pass(
        &mut self,
        g: usize,
        a: &[Bool<'ctx>],
        kept: &mut [bool],
        round_kept: &[bool],
        threads: usize,
        pass: &mut Pass,
    ) -> Result<PassEnd, Verdict> {
        let checks = self.houdini_groups[g].checks.clone();
        let mut lowest = None;
        // The checks prepared, in order: the check, and its step (a call sent: its place).
        let mut prepared: Vec<(usize, Step<'ctx>, Option<usize>)> = vec![];
        let (mut next, mut taken, mut ahead) = (0, 0, 0);
        loop {
            while ahead < threads && next < checks.len() {
                let i = checks[next];
                next += 1;
                if !kept[self.cand_of(i)] {
                    continue;
                }
                let step = self.prepare_check(g, i, round_kept);
                let place = match &step {
                    Step::Solve(call) => {
                        let asserted = call.formulas(&self.enc, a);
                        let (rlimit, cap) = self.rlimit_of(self.check_budget(&call.slice));
                        let stop = Arc::new(AtomicBool::new(false));
                        pass.stops.push(stop.clone());
                        let k = pass.stops.len() - 1;
                        let job_tx = pass.job_tx.as_ref().expect("open while the pass runs");
                        if job_tx.send((k, Detached::new(&asserted, &[]), rlimit, cap, stop)).is_err() {
                            return Err(Verdict::Unknown("internal error: Houdini's solver threads ended early".into()));
                        }
                        ahead += 1;
                        Some(k)
                    }
                    _ => None,
                };
                prepared.push((i, step, place));
            }
            if taken == prepared.len() {
                return Ok(PassEnd { lowest, disjunction_first: false });
            }
            let (i, step, place) = std::mem::replace(&mut prepared[taken], (0, Step::KnownUnsat, None));
            taken += 1;
            if place.is_some() {
                ahead -= 1;
            }
            if !kept[self.cand_of(i)] {
                if let Some(k) = place {
                    pass.stops[k].store(true, Ordering::Relaxed);
                }
                continue;
            }
            // The first answer of a call to solve is its worker's (unless the disjunction
            // raced beside the pass is answered first: the pass ends there).
            let arrived = match place {
                Some(k) => match pass.wait(k)? {
                    Some(x) => Some(x),
                    None => return Ok(PassEnd { lowest, disjunction_first: true }),
                },
                None => None,
            };
            let first = move |v: &mut Self, _: &Call<'ctx>| {
                let (detached, r, stats, took) = arrived.expect("a call to solve was sent");
                v.stats.solver_calls += stats.solver_calls;
                let first = r.map(|r| {
                    r.map(|r| {
                        let model = if r == SatResult::Sat { detached.model(v.ctx) } else { None };
                        (r, model)
                    })
                });
                if debug() {
                    v.debug_check(i, took, &first);
                }
                first
            };
            self.take_step(g, i, step, a, round_kept, kept, &mut lowest, first)?;
            // The calls of checks whose candidates were just dropped are not needed.
            for (j, _, place) in &prepared[taken..] {
                if let (Some(k), false) = (place, kept[self.cand_of(*j)]) {
                    pass.stops[*k].store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// Check `i` of group `g`, prepared as `step`, taken in its turn: a known answer, or the
    /// call solved from its `first` answer on ([`Verifier::finish_check`]); what it drops is
    /// dropped from `kept` and noted in `lowest`.
    #[allow(clippy::too_many_arguments)]
    fn take_step(
        &mut self,
        g: usize,
        i: usize,
        step: Step<'ctx>,
        a: &[Bool<'ctx>],
        round_kept: &[bool],
        kept: &mut [bool],
        lowest: &mut Option<usize>,
        first: impl FnOnce(&mut Self, &Call<'ctx>) -> Result<Option<Answer<'ctx>>, Verdict>,
    ) -> Result<(), Verdict> {
        let ended = match step {
            Step::KnownUnsat => {
                self.stats.houdini_reused += 1;
                return Ok(());
            }
            Step::KnownUndecided => {
                self.drop_undecided(i, kept, lowest);
                return Ok(());
            }
            Step::Solve(call) => {
                let first = first(self, &call);
                self.finish_check(g, i, call, a, round_kept, first)?
            }
        };
        self.take_ended(g, ended, kept, lowest)
    }

    /// Check `i`'s candidate.
    fn cand_of(&self, i: usize) -> usize {
        self.enc.invariants.checks()[i].cand
    }

    /// Check `i` of group `g`: its slice and memo key, and what the memo knows of it under
    /// `round_kept`.
    fn prepare_check(&mut self, g: usize, i: usize, round_kept: &[bool]) -> Step<'ctx> {
        let check = &self.enc.invariants.checks()[i];
        let (cond, ok) = (check.cond.clone(), check.ok.clone());
        let group = &self.houdini_groups[g];
        let slice = self.enc.assumptions.borrow_mut().slice(&[&cond], &[&ok], group.logs, group.stamp, Some(&group.widened));
        let key = self.memo.key(&self.enc, &slice.facts, &[&cond]);
        if self.memo.known_unsat(Answered::Check(i), &key, round_kept) {
            return Step::KnownUnsat;
        }
        if self.memo.known_undecided(Answered::Check(i), &key, round_kept) || self.undecided_before.contains(&self.cand_shape(i)) {
            return Step::KnownUndecided;
        }
        Step::Solve(Box::new(Call { slice, key, cond }))
    }

    /// The loop and the shape of check `i`'s candidate (what an undecided candidate is
    /// remembered by between verifiers of one kernel).
    fn cand_shape(&self, i: usize) -> (syncfix_kir::LoopId, String) {
        let c = &self.enc.invariants.candidates()[self.cand_of(i)];
        (c.loop_id, crate::seed::shape(&c.what))
    }

    /// Drops check `i`'s candidate, known undecided.
    fn drop_undecided(&mut self, i: usize, kept: &mut [bool], lowest: &mut Option<usize>) {
        let cand = self.cand_of(i);
        kept[cand] = false;
        self.stats.houdini_unproved += 1;
        self.stats.houdini_reused += 1;
        note_drop(lowest, cand);
    }

    /// The budget of a check's first call on `slice`: [`Budget::Narrow`] when the slice left
    /// something out (past it the check is solved again on every assumption:
    /// `finish_check`), [`Budget::Short`] otherwise (past it the check is tried with its
    /// reads abstracted, and then within [`Budget::Whole`]).
    fn check_budget(&self, slice: &crate::cone::Slice<'ctx>) -> Budget {
        if slice.is_narrow() {
            Budget::Narrow
        } else {
            Budget::Short
        }
    }

    /// `budget` in Z3's resource units, and how it is capped in wall-clock time (`run_check`):
    /// [`Budget::Whole`], whose end drops the candidate, in resource units alone, as
    /// deterministic as Z3 is; [`Budget::Narrow`] at the budget itself, since past it the check
    /// is solved on every assumption anyway ([`NARROW_CHECK_BUDGET`]); [`Budget::Short`] at
    /// three times the budget (at least a second).
    fn rlimit_of(&self, budget: Budget) -> (Option<u32>, WallCap) {
        match budget {
            Budget::Narrow => (crate::rlimit_within(&self.opts, NARROW_CHECK_BUDGET), WallCap::Tight),
            Budget::Short => (crate::rlimit_within(&self.opts, SHORT_CHECK_BUDGET), WallCap::Loose),
            Budget::Whole => (crate::rlimit_within(&self.opts, CHECK_BUDGET), WallCap::Off),
        }
    }

    /// Check `i` on `call`'s slice (widened `refinements` times), on this thread, within
    /// `budget`.
    fn solve_check(
        &mut self,
        i: usize,
        call: &Call<'ctx>,
        a: &[Bool<'ctx>],
        refinements: usize,
        budget: Budget,
    ) -> Result<Option<Answer<'ctx>>, Verdict> {
        let asserted = call.formulas(&self.enc, a);
        let (rlimit, cap) = self.rlimit_of(budget);
        let t0 = Instant::now();
        // SYNCFIX_DUMP_HOUDINI=PREFIX: each check as PREFIX.<round>.check<i> (.widerN: its
        // slice widened N times).
        let dump = std::env::var_os("SYNCFIX_DUMP_HOUDINI").map(|p| {
            let wider = if refinements == 0 { String::new() } else { format!(".wider{refinements}") };
            std::path::PathBuf::from(format!("{}.{}.check{i}{wider}", p.to_string_lossy(), self.stats.houdini_rounds))
        });
        // A call within the whole budget comes after the narrow, short and abstracted ones ran
        // out: its formula is one Z3's preprocessing for bit-vectors (`Fallback::Preprocessed`)
        // may shrink. mri-gridding has two such calls, "no read of `sharedBin` logged" on two
        // loops, satisfiable: 0.4 and 2.3 s with the solver for the logic, 1.1 and 0.9 s so
        // (alternating, 22.8, 23.1 -> 22.1, 22.3 s in one hour, 23.0, 23.1 -> 20.5, 20.9 s in
        // another; the other slow kernels and GPUVerify's suite the same). The calls before
        // it on this thread (on every assumption after a narrow slice ran out, or on a
        // widened slice) are preprocessed the same way and then solved by Z3's SMT core
        // (`Fallback::PreprocessedSmt`): gridding's "no read of `sharedBin` logged" on every
        // assumption 3.7 s with the solver for the logic, 0.5 s so in Z3's CLI; the kernel
        // 18.9, 17.8 -> 16.1, 16.0 s alternating. (The first calls, on the worker threads
        // (`Detached`), keep the solver for the logic: so changed, gridding ran out at 60 s.)
        let fallback = if budget == Budget::Whole { apart::Fallback::Preprocessed } else { apart::Fallback::PreprocessedSmt };
        let answer = apart::solve_one_shot(self.ctx, &self.opts, &mut self.stats, &asserted, rlimit, cap, dump, fallback);
        if debug() {
            self.debug_check(i, t0.elapsed(), &answer);
        }
        answer
    }

    /// Whether check `i` on `call`'s slice is refuted with its reads abstracted as
    /// uninterpreted functions ([`crate::reads`]), within [`ABSTRACTED_READS_BUDGET`]
    /// (capped in wall-clock time too): an answer for the check itself, the abstraction being
    /// weaker than the formula. `Err` only when the time is up.
    fn refuted_with_reads_abstracted(&mut self, i: usize, call: &Call<'ctx>, a: &[Bool<'ctx>]) -> Result<bool, Verdict> {
        let Some(abstracted) = crate::reads::reads_as_functions(&call.formulas(&self.enc, a)) else { return Ok(false) };
        let abstracted: Vec<&Bool<'ctx>> = abstracted.iter().collect();
        let rlimit = crate::rlimit_within(&self.opts, ABSTRACTED_READS_BUDGET);
        let t0 = Instant::now();
        let answer = apart::solve(self.ctx, &self.opts, &mut self.stats, &abstracted, &[], rlimit, WallCap::Loose, None);
        let refuted = matches!(answer, Ok(Some((SatResult::Unsat, _))));
        if debug() {
            let what = &self.enc.invariants.candidates()[self.cand_of(i)].what;
            eprintln!("houdini:   check {i} ({what}) with its reads abstracted took {:.3}s: refuted {refuted}", t0.elapsed().as_secs_f64());
        }
        self.stats.reads_abstracted += 1;
        self.stats.refuted_reads_abstracted += refuted as u32;
        match answer {
            Err(Verdict::Timeout) => Err(Verdict::Timeout),
            _ => Ok(refuted),
        }
    }

    /// `SYNCFIX_DEBUG_HOUDINI`: check `i`'s answer and time.
    fn debug_check(&self, i: usize, took: Duration, answer: &Result<Option<Answer<'ctx>>, Verdict>) {
        let what = &self.enc.invariants.candidates()[self.cand_of(i)].what;
        let r = answer.as_ref().map(|a| a.as_ref().map(|a| a.0));
        eprintln!("houdini:   check {i} ({what}) took {:.3}s: {:?}", took.as_secs_f64(), r.ok().flatten());
    }

    /// Check `i` of group `g` from its first answer `first` on: recorded in the memo when
    /// refuted, its candidate dropped when undecided, and a model that breaks what its slice
    /// left out solved again on the slice widened (`cone`), the widening kept for the
    /// group's later checks.
    fn finish_check(
        &mut self,
        g: usize,
        i: usize,
        call: Box<Call<'ctx>>,
        a: &[Bool<'ctx>],
        round_kept: &[bool],
        first: Result<Option<Answer<'ctx>>, Verdict>,
    ) -> Result<Ended<'ctx>, Verdict> {
        let mut call = *call;
        let mut refinements = 0;
        let mut answer = first;
        // The budget of the call that gave `answer`.
        let mut budget = self.check_budget(&call.slice);
        let ended = loop {
            match answer {
                Err(v) => break Err(v),
                Ok(Some((SatResult::Unsat, _))) => {
                    let key = if refinements == 0 { call.key } else { self.memo.key(&self.enc, &call.slice.facts, &[&call.cond]) };
                    self.memo.record_unsat(Answered::Check(i), key, round_kept);
                    break Ok(Ended::Refuted);
                }
                Ok(Some((_, Some(m)))) => {
                    let (ctx, opts, stats) = (self.ctx, &self.opts, &mut self.stats);
                    let mut solve_class = |facts: &[Bool<'ctx>]| apart::class_satisfiable(ctx, opts, stats, facts);
                    let wider = self.enc.assumptions.borrow_mut().recheck(&call.slice, &m, refinements, a, &mut solve_class);
                    let Some(w) = wider else { break Ok(Ended::Violated(m)) };
                    self.stats.cone_fallbacks += 1;
                    refinements += 1;
                    call.slice = w;
                    budget = self.check_budget(&call.slice);
                }
                Ok(Some((_, None))) => break Err(Verdict::Unknown("the SMT solver returned no model".into())),
                Ok(None) if budget == Budget::Narrow => {
                    // A narrow slice's call past its budget: solved again on every
                    // assumption (`NARROW_CHECK_BUDGET`), first within the short budget.
                    let check = &self.enc.invariants.checks()[i];
                    let ok = check.ok.clone();
                    let group = &self.houdini_groups[g];
                    let every = crate::cone::Widened::every();
                    call.slice = self.enc.assumptions.borrow_mut().slice(&[&call.cond], &[&ok], group.logs, group.stamp, Some(&every));
                    self.stats.cone_fallbacks += 1;
                    refinements += 1;
                    budget = Budget::Short;
                }
                Ok(None) if budget == Budget::Short => {
                    // Past the short budget too: tried with its reads abstracted (`reads`),
                    // then within the whole budget.
                    if self.refuted_with_reads_abstracted(i, &call, a)? {
                        answer = Ok(Some((SatResult::Unsat, None)));
                        continue;
                    }
                    budget = Budget::Whole;
                }
                Ok(None) => {
                    // Not decided within the whole budget: the candidate is dropped as if it
                    // were violated (the fixpoint stays inductive, only weaker).
                    let key = if refinements == 0 { call.key } else { self.memo.key(&self.enc, &call.slice.facts, &[&call.cond]) };
                    self.memo.record_undecided(Answered::Check(i), key, round_kept);
                    self.undecided.insert(self.cand_shape(i));
                    let cand = self.cand_of(i);
                    self.stats.houdini_unproved += 1;
                    if debug() {
                        eprintln!("houdini:   drops {} (not decided within {CHECK_BUDGET:?})", self.enc.invariants.candidates()[cand].what);
                    }
                    break Ok(Ended::Undecided(cand));
                }
            }
            answer = self.solve_check(i, &call, a, refinements, budget);
        };
        // The group's later checks start from this one's widening.
        if let Some(w) = call.slice.widened() {
            self.houdini_groups[g].widened.merge(w);
        }
        ended
    }

    /// What a check's end drops from `kept` (of group `g`), noted in `lowest`.
    fn take_ended(&mut self, g: usize, ended: Ended<'ctx>, kept: &mut [bool], lowest: &mut Option<usize>) -> Result<(), Verdict> {
        match ended {
            Ended::Refuted => {}
            Ended::Undecided(cand) => {
                kept[cand] = false;
                note_drop(lowest, cand);
            }
            Ended::Violated(model) => note_drop(lowest, self.drop_violated(g, &model, kept)?),
        }
        Ok(())
    }
}

/// `cand` dropped: the lowest candidate dropped so far.
fn note_drop(lowest: &mut Option<usize>, cand: usize) {
    *lowest = Some(lowest.map_or(cand, |l| l.min(cand)));
}

/// The queues of a pass solved side by side, and the answers that came ahead of their turn.
struct Pass {
    /// Closed (`None`) when the pass ends, which ends the workers.
    job_tx: Option<mpsc::Sender<Job>>,
    done_rx: mpsc::Receiver<Done>,
    arrived: BTreeMap<usize, Arrived>,
    /// Each call's stop flag, by its place.
    stops: Vec<Arc<AtomicBool>>,
    /// The place of the disjunction raced beside the pass, if any ([`Verifier::houdini_raced`]).
    disjunction: Option<usize>,
    /// Its answer, once it came.
    disjunction_answer: Option<Arrived>,
}

impl Pass {
    /// The answer of the call at place `k`, waiting for it; `None` when the disjunction
    /// raced beside the pass is answered (satisfiable or not) first.
    fn wait(&mut self, k: usize) -> Result<Option<Arrived>, Verdict> {
        loop {
            if let Some(x) = self.arrived.remove(&k) {
                return Ok(Some(x));
            }
            if matches!(&self.disjunction_answer, Some((_, Ok(Some(_)), _, _))) {
                return Ok(None);
            }
            match self.done_rx.recv() {
                Ok((j, call, r, stats, took)) if Some(j) == self.disjunction => {
                    self.disjunction_answer = Some((call, r, stats, took));
                }
                Ok((j, call, r, stats, took)) => {
                    self.arrived.insert(j, (call, r, stats, took));
                }
                Err(_) => return Err(Verdict::Unknown("internal error: Houdini's solver threads ended early".into())),
            }
        }
    }
}
