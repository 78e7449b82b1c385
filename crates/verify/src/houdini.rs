//! Houdini (Flanagan & Leino 2001, as GPUVerify uses it): the largest subset of the candidate
//! loop invariants that is inductive under a barrier assignment.
//!
//! A candidate is assumed at its loop's head while its literal is on, and checked on entry and
//! at the end of an iteration ([`crate::encode::encoding::CandidateCheck`]). The checks are split by loop
//! ([`HoudiniGroup`]), each group on a solver of its own that holds the encoding's background
//! and the disjunction of the group's checks, kept between rounds and between barrier
//! assignments: a round is one incremental `check` under assumptions (the barrier
//! assignment, and each candidate's literal on or off), and every candidate whose check the
//! model violates is dropped. A group is solved again until it is unsatisfiable; then the next
//! group, in schedule order.
//!
//! Dropping a candidate weakens what other checks may assume, so the groups that can see its
//! literal are solved again: a check's condition can only mention the candidates that existed
//! when it was built ([`crate::encode::encoding::CandidateCheck::cands_before`]), so a group depends on
//! the candidates below its largest such count, and only those are assumed when it is solved
//! (an answer under fewer assumptions holds whatever the later candidates are). Candidates
//! are made in schedule order, so dropping one of a later loop leaves the earlier loops'
//! answers standing: each group is solved about once per candidate it drops, plus once, and
//! the work grows with the kernel instead of with the kernel times its loops (one shared
//! solver over every check, re-solved whole each round, took 57 s of 60 on the `loops`
//! scaling family at n = 80). The answer is inductive: at the end every group is
//! unsatisfiable under the candidates kept.

mod one_by_one;

use crate::apart::ApartSolver;
use crate::encode::{Encoding, LogUse};
use crate::{Verdict, Verifier};
use std::collections::BTreeMap;
use std::time::Instant;
use syncfix_kir::LoopId;
use z3::ast::Bool;
use z3::SatResult;

/// The checks of one loop's candidates.
pub(crate) struct HoudiniGroup<'ctx> {
    pub loop_id: LoopId,
    /// The race logs its candidates read (`Candidate::logs`): its solver holds the loop cuts'
    /// facts about those logs only (none for candidates over values).
    pub logs: LogUse,
    /// Indices into [`Encoding::cand_checks`].
    pub checks: Vec<usize>,
    /// The candidates its checks can mention: those below this index.
    pub depends_below: usize,
    /// The latest stamp of its checks (`Encoder::stamp`): the log facts it may need.
    pub stamp: u32,
    /// The assumptions and log facts of the cone of influence of its checks (`cone`), made on
    /// the group's first round and widened while a model breaks one left out.
    slice: Option<crate::cone::Slice<'ctx>>,
    /// Made on the group's first round, in a context of its own (`apart`), and kept between
    /// rounds and barrier assignments while it is among the groups solved last
    /// (`Limits::houdini_solvers`; made again from the slice otherwise): the background, the
    /// disjunction of its checks and the facts of its slice.
    solver: Option<ApartSolver>,
    /// The round (`Stats::houdini_rounds`) that last used the solver.
    last_round: u32,
    /// The facts of the slices asserted on the solver.
    asserted: crate::cone::TermSet<Bool<'ctx>>,
    /// A round's disjunction ran past its budget: later rounds solve one check at a time
    /// from the start.
    one_by_one: bool,
    /// What the slices of its checks solved one at a time were widened by (a model of a
    /// narrower slice broke an assumption it left out): its later checks' slices start from
    /// it. The checks of one loop lean on the same facts: mri-gridding's four checks about
    /// `sharedBin`'s logs each spent 7–14 s finding a model of their slice that broke the same
    /// assumption, then 0.02–0.08 s on the widened slice. Empty (the default) until then.
    widened: crate::cone::Widened,
}

impl<'ctx> HoudiniGroup<'ctx> {
    /// The checks of `enc` by loop, in the order of each loop's first check.
    pub fn split(enc: &Encoding<'ctx>) -> Vec<HoudiniGroup<'ctx>> {
        let mut groups: Vec<HoudiniGroup<'ctx>> = vec![];
        let mut index: BTreeMap<(LoopId, LogUse), usize> = BTreeMap::new();
        for (i, c) in enc.invariants.checks().iter().enumerate() {
            let l = enc.invariants.candidates()[c.cand].loop_id;
            let logs = enc.invariants.candidates()[c.cand].logs;
            let g = *index.entry((l, logs)).or_insert_with(|| {
                groups.push(HoudiniGroup {
                    loop_id: l,
                    logs,
                    checks: vec![],
                    depends_below: 0,
                    stamp: 0,
                    slice: None,
                    solver: None,
                    last_round: 0,
                    asserted: Default::default(),
                    one_by_one: false,
                    widened: Default::default(),
                });
                groups.len() - 1
            });
            groups[g].checks.push(i);
            groups[g].depends_below = groups[g].depends_below.max(c.cands_before);
            groups[g].stamp = groups[g].stamp.max(c.stamp);
        }
        groups
    }
}

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Houdini under this barrier assignment (`lits`: its literals): which candidates are
    /// kept. See the module documentation.
    pub(crate) fn houdini(&mut self, lits: &[Bool<'ctx>], assignment: &[bool]) -> Result<Vec<bool>, Verdict> {
        if let Some(k) = self.invariants.get(assignment) {
            return Ok(k.clone());
        }
        let n = self.enc.invariants.candidates().len();
        let mut kept = vec![true; n];
        // Candidates over values are inductive or not whatever the barriers (they neither read
        // the logs nor see memory a barrier havocs): start from the ones kept before. Houdini
        // still checks every candidate it keeps, so the answer is inductive in any case.
        if let Some(v) = &self.value_invariants {
            for (i, c) in self.enc.invariants.candidates().iter().enumerate() {
                if c.over_values {
                    kept[i] = v[i];
                }
            }
        }
        // A seed (`seed`): only the candidates kept there are candidates here.
        if let Some(seed) = &self.seed {
            for (k, s) in kept.iter_mut().zip(seed) {
                *k &= *s;
            }
        }
        let start = Instant::now();
        self.memo.assignment = assignment.to_vec();
        let r = self.houdini_rounds(lits, &mut kept);
        self.stats.houdini_time += start.elapsed();
        r?;
        if debug() {
            for (c, k) in self.enc.invariants.candidates().iter().zip(&kept) {
                eprintln!("houdini: loop {} {} {}", c.loop_id, if *k { "kept   " } else { "dropped" }, c.what);
            }
        }
        if self.values_free_of_barriers && self.value_invariants.is_none() {
            self.value_invariants = Some(kept.clone());
        }
        self.invariants.insert(assignment.to_vec(), kept.clone());
        Ok(kept)
    }

    /// The rounds: each group solved until unsatisfiable, again while a candidate it depends
    /// on has been dropped since.
    fn houdini_rounds(&mut self, lits: &[Bool<'ctx>], kept: &mut [bool]) -> Result<(), Verdict> {
        let groups = self.houdini_groups.len();
        let mut clean = vec![false; groups];
        // The groups answered by one solver call first, those solved one check at a time
        // (past their disjunction's budget, seconds each) once the others are clean: a drop
        // elsewhere would make a slow group's pass be made again (PolyBench's nussinov, whose
        // inner loops' cheap groups dropped candidates after each slow pass of the middle
        // loop's). The candidates kept are the same in any order (Houdini's answer is the
        // greatest fixpoint).
        let next = |clean: &[bool], groups: &[HoudiniGroup<'ctx>]| {
            (0..clean.len()).find(|&g| !clean[g] && !groups[g].one_by_one).or_else(|| clean.iter().position(|c| !c))
        };
        while let Some(g) = next(&clean, &self.houdini_groups) {
            // A group none of whose candidates is kept has nothing to check.
            if !self.houdini_groups[g].checks.iter().any(|&i| kept[self.enc.invariants.checks()[i].cand]) {
                clean[g] = true;
                continue;
            }
            let below = self.houdini_groups[g].depends_below;
            let mut a = lits.to_vec();
            a.extend(
                self.enc.invariants.candidates()[..below]
                    .iter()
                    .zip(kept.iter())
                    .map(|(c, k)| if *k { c.lit.clone() } else { c.lit.not() }),
            );
            match self.houdini_round(g, &a, kept)? {
                None => clean[g] = true,
                Some(lowest) => {
                    // Every group that can see a dropped candidate is solved again (this one
                    // included).
                    for (h, group) in self.houdini_groups.iter().enumerate() {
                        if group.depends_below > lowest {
                            clean[h] = false;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// One round of group `g` under `a`: `None` when unsatisfiable, else drops the candidates
    /// whose checks the model violates and returns the lowest one's index. Each solver call
    /// of a round is made apart (`apart`): the background, the assumptions and log facts of
    /// the group's slice, and the disjunction of its checks, under `a`.
    fn houdini_round(&mut self, g: usize, a: &[Bool<'ctx>], kept: &mut [bool]) -> Result<Option<usize>, Verdict> {
        let t0 = Instant::now();
        let r = self.solve_houdini_round(g, a, kept);
        // The round's wall time, by its group's loop (`Stats::houdini_loops`).
        let l = self.houdini_groups[g].loop_id;
        match self.stats.houdini_loops.iter_mut().find(|(id, _, _, _)| *id == l) {
            Some((_, _, rounds, took)) => {
                *rounds += 1;
                *took += t0.elapsed();
            }
            None => {
                let line = self.loop_line(l);
                self.stats.houdini_loops.push((l, line, 1, t0.elapsed()));
            }
        }
        r
    }

    /// The line of the user's source at loop `l`'s header: its first instruction or branch
    /// with a location in the main file.
    fn loop_line(&self, l: LoopId) -> Option<u32> {
        let block = &self.kernel.blocks[self.cfg.loops[l].header];
        let spans = block.insts.iter().map(|&i| &self.kernel.insts[i].span).chain([&block.term_span]);
        spans.filter_map(|s| s.in_main()).map(|loc| loc.line).next()
    }

    /// The work of [`Verifier::houdini_round`], which times it.
    fn solve_houdini_round(&mut self, g: usize, a: &[Bool<'ctx>], kept: &mut [bool]) -> Result<Option<usize>, Verdict> {
        self.stats.houdini_rounds += 1;
        let ctx = self.ctx;
        let t0 = Instant::now();
        if self.houdini_groups[g].solver.is_none() {
            let conds = conds_of(&self.enc, &self.houdini_groups[g]);
            let disjunction = crate::term::or(ctx, &conds.iter().collect::<Vec<_>>());
            if self.houdini_groups[g].slice.is_none() {
                let oks: Vec<&Bool<'ctx>> = self.houdini_groups[g].checks.iter().map(|&i| &self.enc.invariants.checks()[i].ok).collect();
                let (logs, stamp) = (self.houdini_groups[g].logs, self.houdini_groups[g].stamp);
                let slice = self.enc.assumptions.borrow_mut().slice(&conds.iter().collect::<Vec<_>>(), &oks, logs, stamp, None);
                self.houdini_groups[g].slice = Some(slice);
            }
            // The least recently used solver is let go past `Limits::houdini_solvers`.
            let live: Vec<usize> = (0..self.houdini_groups.len()).filter(|&h| self.houdini_groups[h].solver.is_some()).collect();
            if live.len() >= self.opts.limits.houdini_solvers.max(1) {
                if let Some(&h) = live.iter().min_by_key(|&&h| self.houdini_groups[h].last_round) {
                    self.houdini_groups[h].solver = None;
                }
            }
            let group = &mut self.houdini_groups[g];
            let slice = group.slice.as_ref().expect("made above");
            let solver = ApartSolver::new(&self.opts);
            let mut asserted: Vec<&Bool<'ctx>> = self.enc.symbols.background().iter().chain(&slice.facts).collect();
            asserted.push(&disjunction);
            solver.assert(&asserted);
            group.asserted = slice.facts.iter().cloned().collect();
            group.solver = Some(solver);
        }
        self.houdini_groups[g].last_round = self.stats.houdini_rounds;
        // The disjunction of the group's checks within a budget: most rounds are answered in
        // milliseconds, but Z3 can take minutes to refute a disjunction whose every disjunct
        // it refutes in milliseconds alone (the tiled matrix multiplication's last round:
        // 73 s, against 0.2 s for its 41 checks one by one). Past the budget, the checks are
        // solved one at a time (`houdini_one_by_one`); the candidates kept are the same
        // (Houdini's answer is the unique greatest fixpoint).
        //
        // With worker threads the disjunction's first call has a short budget
        // (`Limits::houdini_race_after`, 0.5 s): past it, the disjunction is solved again on a
        // worker while the other workers solve the checks one at a time, and whichever ends
        // first is taken (`houdini_raced`). The CUDA SDK's stereoDisparity went from 13.3 and
        // 14.2 s to 9.4 and 10.8 s (alternating, a slow hour). With a quarter of a second,
        // PolyBench adi's `kernel19` and `kernel26` raced a round their disjunction answered in
        // 0.36 s, and one of their race queries, as hard for Z3 either way, then ran past its
        // budget (9 s to 29 and 48 s); mri-gridding went from 45 to 35 s. That first call is
        // capped in wall-clock time at its budget (`WallCap::Tight`), not three times it: past
        // it the disjunction is raced anyway, and mri-gridding's first rounds spent a second
        // there before a pass of 0.15–0.2 s (27.5, 27.6 -> 23.9, 24.7 s alternating).
        let racing = !self.houdini_groups[g].one_by_one && Self::passes_side_by_side(&self.opts);
        let first_budget = if racing { self.opts.limits.houdini_race_after.min(DISJUNCTION_BUDGET) } else { DISJUNCTION_BUDGET };
        let mut rlimit = crate::rlimit_within(&self.opts, first_budget);
        let first_cap = if racing { crate::call::WallCap::Tight } else { crate::call::WallCap::Loose };
        let mut answer = if self.houdini_groups[g].one_by_one { Ok(None) } else { self.solve_round(g, a, rlimit, first_cap) };
        // What the checks solved one at a time beside the disjunction dropped before it was
        // answered (the lowest candidate).
        let mut pass_lowest = None;
        if racing && matches!(answer, Ok(None)) {
            let detached = self.detached_round(g, a);
            let rlimit = crate::rlimit_within(&self.opts, DISJUNCTION_BUDGET);
            match self.houdini_raced(g, a, kept, Some((detached, rlimit)))? {
                one_by_one::Raced::Pass(lowest, ran_out) => {
                    // The group's later rounds are solved one check at a time from the start,
                    // as after a disjunction that ran out: trying the disjunction again in
                    // each round (the race again when it is not answered within its short
                    // budget) made mri-gridding's rounds take 2–3 s where the checks one at
                    // a time took 1.8 s (52.5 s against 43.7 s).
                    self.houdini_groups[g].one_by_one = true;
                    if debug() {
                        eprintln!(
                            "houdini: round {} (loop {}) one check at a time, its disjunction beside them{}, took {:.3}s",
                            self.stats.houdini_rounds,
                            self.houdini_groups[g].loop_id,
                            if ran_out { " (it ran out)" } else { "" },
                            t0.elapsed().as_secs_f64()
                        );
                    }
                    return Ok(lowest);
                }
                one_by_one::Raced::Disjunction(x, lowest) => {
                    pass_lowest = lowest;
                    answer = Ok(Some(x));
                }
            }
        }
        // A model that breaks an assumption or log fact left out of the group's slice: the
        // slice widened (`cone`), and solved again.
        let mut refinements = 0;
        while let Ok(Some((SatResult::Sat, Some(model)))) = &answer {
            let wider = match &self.houdini_groups[g].slice {
                Some(slice) => {
                    let (ctx, opts, stats) = (self.ctx, &self.opts, &mut self.stats);
                    let mut solve_class = |facts: &[Bool<'ctx>]| crate::apart::class_satisfiable(ctx, opts, stats, facts);
                    self.enc.assumptions.borrow_mut().recheck(slice, model, refinements, a, &mut solve_class)
                }
                None => None,
            };
            let Some(wider) = wider else { break };
            let group = &mut self.houdini_groups[g];
            let new: Vec<&Bool<'ctx>> = wider.facts.iter().filter(|f| group.asserted.insert((*f).clone())).collect();
            group.solver.as_ref().expect("made on the first round").assert(&new);
            group.slice = Some(wider);
            self.stats.cone_fallbacks += 1;
            refinements += 1;
            rlimit = None;
            answer = self.solve_round(g, a, rlimit, crate::call::WallCap::Loose);
        }
        let (r, model) = match answer {
            Ok(Some(x)) => x,
            Ok(None) => {
                if debug() && !self.houdini_groups[g].one_by_one {
                    eprintln!(
                        "houdini: round {} (loop {}): its disjunction ran out after {:.3}s",
                        self.stats.houdini_rounds,
                        self.houdini_groups[g].loop_id,
                        t0.elapsed().as_secs_f64()
                    );
                }
                self.houdini_groups[g].one_by_one = true;
                let dropped = self.houdini_one_by_one(g, a, kept);
                if debug() {
                    eprintln!(
                        "houdini: round {} (loop {}) one check at a time took {:.3}s",
                        self.stats.houdini_rounds,
                        self.houdini_groups[g].loop_id,
                        t0.elapsed().as_secs_f64()
                    );
                }
                return dropped;
            }
            Err(v) => return Err(v),
        };
        if debug() {
            let group = &self.houdini_groups[g];
            eprintln!(
                "houdini: round {} (loop {}, {} checks from {}, candidates below {}) took {:.3}s: {:?}",
                self.stats.houdini_rounds,
                group.loop_id,
                group.checks.len(),
                group.checks[0],
                group.depends_below,
                t0.elapsed().as_secs_f64(),
                r
            );
        }
        if r == SatResult::Unsat {
            return Ok(pass_lowest);
        }
        let Some(model) = model else {
            return Err(Verdict::Unknown("the SMT solver returned no model".into()));
        };
        // The checks the model violates may all have been dropped by the pass already.
        if pass_lowest.is_some() {
            let lowest = self.drop_violated_if_any(g, &model, kept);
            return Ok(lowest.into_iter().chain(pass_lowest).min());
        }
        self.drop_violated(g, &model, kept).map(Some)
    }

    /// Group `g`'s round as one call prepared apart (`apart::Detached`): the background, the
    /// facts of the group's slice and the disjunction of its checks, under `a`.
    fn detached_round(&self, g: usize, a: &[Bool<'ctx>]) -> crate::apart::Detached {
        let conds = conds_of(&self.enc, &self.houdini_groups[g]);
        let disjunction = crate::term::or(self.ctx, &conds.iter().collect::<Vec<_>>());
        let slice = self.houdini_groups[g].slice.as_ref().expect("made on the group's first round");
        let asserted: Vec<&Bool<'ctx>> = self.enc.symbols.background().iter().chain(&slice.facts).chain([&disjunction]).collect();
        crate::apart::Detached::new(&asserted, a)
    }

    /// One solver call of group `g`'s round (see [`Verifier::houdini_round`]) on its kept
    /// solver; `Ok(None)` when `rlimit` ran out.
    fn solve_round(
        &mut self,
        g: usize,
        a: &[Bool<'ctx>],
        rlimit: Option<u32>,
        cap: crate::call::WallCap,
    ) -> Result<Option<crate::apart::Answer<'ctx>>, Verdict> {
        // For debugging: SYNCFIX_DUMP_HOUDINI=PREFIX writes each call as PREFIX.<round>.
        let dump = std::env::var_os("SYNCFIX_DUMP_HOUDINI")
            .map(|p| std::path::PathBuf::from(format!("{}.{}", p.to_string_lossy(), self.stats.houdini_rounds)));
        let solver = self.houdini_groups[g].solver.as_mut().expect("made on the first round");
        solver.check(self.ctx, &self.opts, &mut self.stats, a, rlimit, cap, dump)
    }

    /// Drops the candidates of group `g` whose checks `model` violates; returns the lowest
    /// one's index.
    fn drop_violated(&mut self, g: usize, model: &z3::Model<'ctx>, kept: &mut [bool]) -> Result<usize, Verdict> {
        self.drop_violated_if_any(g, model, kept)
            .ok_or_else(|| Verdict::Unknown("internal error: Houdini found no violated candidate in a model".into()))
    }

    /// Drops the candidates of group `g` whose checks `model` violates; the lowest one's index,
    /// `None` when none is.
    fn drop_violated_if_any(&mut self, g: usize, model: &z3::Model<'ctx>, kept: &mut [bool]) -> Option<usize> {
        let mut dropped = vec![];
        for &i in &self.houdini_groups[g].checks {
            let c = &self.enc.invariants.checks()[i];
            if kept[c.cand] && model.eval(&c.cond, true).and_then(|b| b.as_bool()).unwrap_or(false) {
                kept[c.cand] = false;
                dropped.push(c.cand);
                if debug() {
                    eprintln!("houdini:   drops {}", self.enc.invariants.candidates()[c.cand].what);
                }
            }
        }
        dropped.iter().min().copied()
    }
}

/// How long a round may spend on the disjunction of a group's checks before they are solved
/// one at a time.
const DISJUNCTION_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

/// The budget of one candidate's check on its own (in Z3 resource units, see
/// `rlimit_within`): a candidate whose check runs past it is dropped, so that no single
/// candidate stalls the inference (a grid-stride loop's 64-bit `(i - init) % gridDim.x == 0`
/// in HeCBench's scan took Z3 86 s). Z3's resource units run slower than
/// [`crate::call::RLIMIT_PER_SECOND`] on some checks: HeCBench FDTD3d's candidates over products of
/// symbolic sizes spent about 10 s of wall time each before the budget ran out.
const CHECK_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);

/// The budget of a check's first call when its slice left assumptions or log facts out
/// (`cone`), capped in wall-clock time at the budget itself (`WallCap::Tight`): past it the
/// check is solved again on every assumption, within [`CHECK_BUDGET`]. A narrow slice's
/// formula is satisfiable when a fact it left out is what refutes the check, and Z3 can take
/// far longer to build that spurious model than to refute the whole formula: Parboil's
/// mri-gridding, whose shared tile is copied byte by byte (552 array stores), spent 42 s
/// finding a model of one narrow check (no read of the tile logged in the loop over `y`) whose
/// wider formula it refutes in 0.4 s; its resource units did not reach the budget in that
/// time. With a cap of three times the budget (as the other capped budgets have) five of its
/// narrow checks each ran 3 s to the cap (35.3 s in all, against 29.1 s with the cap at 1 s,
/// the other slow kernels within noise). A quarter of a second, as [`SHORT_CHECK_BUDGET`]:
/// with 1 s, six of mri-gridding's narrow checks ran their second out (5.5 s in all) and were
/// then answered on every assumption in 0.01–0.4 s (gridding 19.6 -> 18.1 s alternating; the
/// other slow kernels and GPUVerify's suite the same).
const NARROW_CHECK_BUDGET: std::time::Duration = std::time::Duration::from_millis(250);

/// The budget of a check's first call on every assumption (capped in wall-clock time too):
/// most checks are answered in milliseconds, and so are most whose call on a narrow slice ran
/// out once the facts the slice left out are there (mri-gridding's "no write of `sharedBin`
/// logged": its narrow slice ran 3 s to its cap, the whole formula took 0.02 s). One past it
/// is tried with its reads abstracted (`reads`), and then within [`CHECK_BUDGET`].
const SHORT_CHECK_BUDGET: std::time::Duration = std::time::Duration::from_millis(250);

/// The budget of a check with its reads abstracted (`reads`), tried once a call of the check
/// ran past its budget, capped in wall-clock time too: such a formula is refuted in a
/// fraction of a second when it can be (stereoDisparity's least cost, 0.15 s against more
/// than 11 s for the formula itself).
const ABSTRACTED_READS_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

/// The conditions of `group`'s checks (each satisfiable when its candidate is violated).
fn conds_of<'ctx>(enc: &Encoding<'ctx>, group: &HoudiniGroup<'ctx>) -> Vec<Bool<'ctx>> {
    group.checks.iter().map(|&i| enc.invariants.checks()[i].cond.clone()).collect()
}

/// `SYNCFIX_DEBUG_HOUDINI=1`: each round's time and the candidates it drops.
fn debug() -> bool {
    std::env::var_os("SYNCFIX_DEBUG_HOUDINI").is_some()
}
