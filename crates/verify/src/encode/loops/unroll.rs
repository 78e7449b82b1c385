//! Unrolling iteration by iteration while either thread may still be in the loop. After each
//! iteration an *unwinding check* asks the solver whether another iteration is possible (for
//! every assignment of the barrier variables); when none is, the unrolling is complete and
//! exact. The check is skipped when the loop-head predicates are unchanged (the same threads
//! go round again) or constant.

use crate::encode::frames::FramesMark;
use crate::encode::invariants::InvariantsMark;
use crate::encode::obligations::ObligationsMark;
use crate::encode::schedule::ScheduleMark;
use crate::encode::{BoundedLoop, Encoder, State};
use crate::term::{is_false, or};
use crate::VerifyError;
use syncfix_kir::LoopId;
use z3::ast::{Ast, Bool};
use z3::SatResult;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Mode {
    /// `--loop-unwind=N`: stop after N iterations and say so (never a proof).
    Bounded,
    /// Unroll completely within the limits, or report that the loop is too long.
    Attempt,
}

/// Everything an unrolling attempt may change, to undo it.
pub(super) struct Snapshot<'ctx> {
    st: State<'ctx>,
    schedule: ScheduleMark<'ctx>,
    frames: FramesMark<'ctx>,
    obligations: ObligationsMark,
    invariants: InvariantsMark,
    executed: u64,
    fresh: Vec<usize>,
}

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    pub(super) fn snapshot(&self) -> Snapshot<'ctx> {
        Snapshot {
            st: self.state.clone(),
            schedule: self.schedule.mark(),
            frames: self.frames.mark(),
            obligations: self.obligations.mark(),
            invariants: self.invariants.mark(),
            executed: self.budget.executed(),
            fresh: self.symbols.frames_mark(),
        }
    }

    pub(super) fn restore(&mut self, s: Snapshot<'ctx>) {
        self.state = s.st;
        self.schedule.restore(s.schedule);
        self.frames.restore(s.frames);
        self.obligations.truncate(s.obligations);
        self.invariants.truncate(s.invariants);
        self.budget.rewind(s.executed);
        self.symbols.forget_since(s.fresh);
    }

    /// Unrolls loop `l` for at most `cap` iterations. Returns whether the unrolling is
    /// complete (always, in bounded mode: executions that would go on are cut off and the
    /// loop is recorded as bounded).
    pub(super) fn unroll(&mut self, l: LoopId, cap: u32, mode: Mode) -> Result<bool, VerifyError> {
        let ctx = self.ctx;
        let header = self.cfg.loops[l].header;
        let start = self.budget.executed();
        let calls = self.budget.solver_calls();
        self.frames.enter(Some(0));
        let order = self.cfg.loop_order[l].clone();
        let mut iter = 0u32;
        // Iterations with a nested loop cut that were found possible without asking the
        // solver: they count as unwinding checks. (Before a cut loop's exit predicate became
        // its entry's (`reconverge`), the solver was asked about every such iteration; a loop
        // around loops that are cut is itself cut after a few iterations, instead of unrolled
        // until its instruction budget with each iteration's nested loops tried again:
        // GPUVerify's inference_tests/strided_invariant_2 took 19 s instead of 0.2 s.)
        let mut unasked = 0u32;
        let complete = loop {
            self.frames.set_iteration(iter);
            let entry: [Bool<'ctx>; 2] = {
                let inc = self.schedule.incoming(header);
                self.join(&inc)
            };
            let cuts_before = self.frames.cut_count();
            if let Err(e) = self.exec_items(&order) {
                self.frames.leave();
                return Err(e);
            }
            iter += 1;
            let back = self.schedule.take_back(l);
            let p: [Bool<'ctx>; 2] = std::array::from_fn(|t| or(ctx, &back.iter().map(|b| &b.pred[t]).collect::<Vec<_>>()).simplify());
            if is_false(&p[0]) && is_false(&p[1]) {
                break true;
            }
            if mode == Mode::Attempt
                && (self.budget.executed() - start > self.budget.limits().max_unroll_instructions
                    || self.budget.solver_calls() - calls + unasked >= self.budget.limits().max_unwind_checks)
            {
                break false;
            }
            let again = Bool::or(ctx, &[&p[0], &p[1]]);
            let possible = if iter >= cap || (p[0] == entry[0] && p[1] == entry[1]) {
                // The same threads go round again: no need to ask the solver.
                if self.frames.cut_count() > cuts_before {
                    unasked += 1;
                }
                true
            } else {
                // On a solver of its own, as a query, without the loop cuts' log facts (the
                // question is about values and predicates; a fact left out can only make
                // another iteration look possible, and the unrolling go on): on one shared
                // solver holding every log fact, under an assumption literal per check, each
                // check paid for every earlier one and for the race logs (the `loops` scaling
                // family at n = 160: about 18 s of 41; at n = 40 the log facts alone made the
                // checks of the 4th loop 0.7 s each instead of 0.04 s).
                self.check_deadline()?;
                // With the assumptions of `again`'s cone of influence (`cone`); a model that
                // violates one left out is checked again with more of them. In a context of
                // its own (`apart`).
                let mut slice = self.state.assumptions().borrow_mut().slice(
                    &[&again],
                    &[self.state.ok()],
                    crate::encode::LogUse::None,
                    self.symbols.stamp(),
                    None,
                );
                let mut solver = crate::apart::ApartSolver::one_shot(self.opts);
                let mut asserted: Vec<&Bool<'ctx>> = self.symbols.background().iter().chain(&slice.facts).collect();
                asserted.push(self.state.ok());
                asserted.push(&again);
                solver.assert(&asserted);
                let t0 = std::time::Instant::now();
                let mut stats = crate::Stats::default();
                let opts = self.opts;
                let mut answer = solver.check(ctx, opts, &mut stats, &[], None, crate::call::WallCap::Off, None);
                let mut refinements = 0;
                while let Ok(Some((SatResult::Sat, Some(m)))) = &answer {
                    let mut solve_class = |facts: &[Bool<'ctx>]| crate::apart::class_satisfiable(ctx, opts, &mut stats, facts);
                    let wider = self.state.assumptions().borrow_mut().recheck(&slice, m, refinements, &[], &mut solve_class);
                    let Some(w) = wider else { break };
                    solver.assert(&w.facts.iter().collect::<Vec<_>>());
                    slice = w;
                    refinements += 1;
                    answer = solver.check(ctx, opts, &mut stats, &[], None, crate::call::WallCap::Off, None);
                }
                self.budget.add_solver_calls(stats.solver_calls);
                // An answer other than unsat (Z3 gave up) lets the unrolling go on.
                let r = match answer {
                    Ok(Some((r, _))) => r,
                    Err(crate::Verdict::Timeout) => return Err(VerifyError::Timeout),
                    _ => SatResult::Unknown,
                };
                self.budget.add_solve_time(t0.elapsed());
                if std::env::var_os("SYNCFIX_DEBUG_UNWIND").is_some() {
                    eprintln!("unwind: loop {l} iteration {iter} took {:.3}s: {r:?}", t0.elapsed().as_secs_f64());
                }
                r != SatResult::Unsat
            };
            if !possible {
                break true;
            }
            if iter >= cap {
                if mode == Mode::Attempt {
                    break false;
                }
                let span = self.header_span(header);
                self.frames.add_bounded(BoundedLoop {
                    header_span: span,
                    bound: cap,
                    reason: format!("loop unwinding bound {cap} reached"),
                });
                // Executions that would run another iteration are cut off.
                self.state.assume(&again.not());
                break true;
            }
            // Next iteration: the back edges enter the header.
            for b in self.cfg.loops[l].blocks.iter() {
                self.schedule.take_incoming(*b);
            }
            self.schedule.set_incoming(header, back);
        };
        self.frames.leave();
        Ok(complete)
    }
}
