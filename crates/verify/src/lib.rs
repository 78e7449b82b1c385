//! The verifier of syncfix: GPUVerify's method on KIR (ARCHITECTURE.md, "crates/verify").
//!
//! [`Verifier::new`] builds one SMT encoding of a (possibly instrumented) kernel: two threads
//! with symbolic ids, predicated lock-step execution, per-array abstraction, race logging and
//! checking with GPUVerify's benign-race tolerance, barrier divergence, block and grid
//! barriers with their fences. Barrier variables are free Boolean constants of that one
//! encoding; [`Verifier::check`] solves it under a candidate assignment passed as solver
//! assumptions (no re-encoding per repair iteration).
//!
//! Sources: Betts et al., "GPUVerify: a verifier for GPU kernels", OOPSLA 2012; Donaldson,
//! "The GPUVerify method", AVoCS 2014 (Tables 1-2); Collingbourne et al., ESOP 2013 §4
//! (lock-step predication of reducible CFGs); Joshi & Muduganti, GPURepair, VMCAI 2021 §2.2
//! (barrier variables, grid barriers).

mod abstraction;
mod analysis;
mod apart;
mod call;
mod cone;
mod divide;
mod encode;
mod houdini;
mod memo;
mod memory;
mod options;
mod query;
mod reads;
mod reconverge;
mod seed;
mod solve;
mod stride;
mod term;
mod trace;
mod uniformity;

pub use abstraction::{Abstraction, ForceAbstraction, Model};
pub use apart::interruptible;
pub use memory::AccessKind;
pub use options::{Limits, Stats, Verdict, VerifyError, VerifyOptions};
pub use seed::HoudiniSeed;
pub use trace::{Access, Defect, Race, ThreadIds, Trace, MAX_MEMORY_BYTES};

pub(crate) use call::{rlimit_within, run_check, solver_params};

use encode::{Encoder, Encoding};
use houdini::HoudiniGroup;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};
use syncfix_kir::{Cfg, Kernel, Span};
use z3::ast::Bool;
use z3::{Context, SatResult};

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Why the traces of this encoding do not replay under every barrier assignment (so the
    /// repair's clauses from them over-approximate, GPURepair §2.3), or `None` when they do:
    /// arrays under the equality abstraction (their values depend on the barriers), loops cut
    /// and proved with invariants (an iteration's state is havocked).
    pub fn inexact_reason(&self) -> Option<String> {
        let mut why = vec![];
        let eq: Vec<&str> = self
            .kernel
            .objects
            .iter()
            .filter(|(o, _)| self.abs.model(*o) == abstraction::Model::Equality)
            .map(|(_, obj)| obj.name.as_str())
            .collect();
        if !eq.is_empty() {
            why.push(format!("the equality abstraction of {}", eq.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")));
        }
        let lines: Vec<String> = self.enc.frames.cut().iter().filter_map(|c| c.header_span.in_main().map(|l| l.line.to_string())).collect();
        if !self.enc.frames.cut().is_empty() {
            why.push(if lines.is_empty() {
                "loops cut and proved with invariants".to_string()
            } else {
                format!(
                    "the loop{} at line{} {} cut and proved with invariants",
                    if lines.len() == 1 { "" } else { "s" },
                    if lines.len() == 1 { "" } else { "s" },
                    lines.join(", ")
                )
            });
        }
        (!why.is_empty()).then(|| why.join(" and "))
    }
}

/// A kernel encoded once; candidate assignments are checked under assumptions (Houdini on a
/// solver per group of checks, kept between rounds; each query of the properties on a solver
/// of its own over the same terms).
pub struct Verifier<'ctx, 'k> {
    ctx: &'ctx Context,
    kernel: &'k Kernel,
    cfg: Cfg,
    abs: Abstraction,
    enc: Encoding<'ctx>,
    /// The kernel's properties split into independent queries (`query::split`), each solved
    /// on its own by [`Verifier::check`].
    queries: Vec<query::Query<'ctx>>,
    /// The candidates' checks split by loop, each group with a solver of its own (Houdini).
    houdini_groups: Vec<HoudiniGroup<'ctx>>,
    opts: VerifyOptions,
    /// Houdini's answer per barrier assignment.
    invariants: HashMap<Vec<bool>, Vec<bool>>,
    /// When no barrier havocs or constrains values (no equality-abstracted array, no barrier
    /// invariant), the candidates over values that Houdini kept the first time: the same for
    /// every assignment, so later runs start from them.
    value_invariants: Option<Vec<bool>>,
    values_free_of_barriers: bool,
    /// Answers that hold for other barrier assignments too ([`memo`]).
    memo: memo::AnswerMemo<'ctx>,
    /// Per query: what a slice of it was widened by before (`cone::Widened`), where its
    /// next slices start (only facts that hold are added, so every answer stands).
    widened: HashMap<usize, cone::Widened>,
    /// The queries (by label) whose whole disjunction ran past its budget in an earlier
    /// check, of this encoding or an earlier one of the kernel: solved in chunks at once
    /// (HeCBench nbnxm's 281 race properties on its shared buffer: 4.5 s spent on the
    /// disjunction at every check of a repair). Only how a query is solved depends on it.
    chunked: HashSet<String>,
    /// The race queries that [`stride`]'s abstraction refuted (true) or did not (false): it
    /// holds under every barrier assignment, so it is decided once per encoding.
    stride_refuted: HashMap<usize, bool>,
    /// The query whose model [`Verifier::solve_in_order`] returned last: the trace is
    /// chosen among its properties only (the queries before it were refuted, and its model
    /// need not satisfy the assumptions of their cones: a property of theirs may look
    /// violated in it, as an assertion over a quotient whose definition the slice left out).
    sat_query: Option<usize>,
    /// Houdini's candidates (loop, shape of the description: `seed::shape`) whose check was
    /// not decided within its budget in this encoding (`undecided`) and in the earlier ones of
    /// the kernel (`undecided_before`, dropped at once by this one: dropping is sound;
    /// HeCBench bitpacking's grid-stride congruence ran 9-12 s to its budget again after
    /// each re-encoding). Within one encoding the memo decides (`memo`).
    undecided: HashSet<(usize, String)>,
    undecided_before: HashSet<(usize, String)>,
    /// The candidates Houdini starts from, from [`VerifyOptions::seeds`] (`seed`), until a
    /// check under it is not verified.
    seed: Option<Vec<bool>>,
    /// [`Verifier::set_timeout`]'s limit on one check.
    check_limit: Option<Duration>,
    pub stats: Stats,
}

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Encodes `kernel`, whose barrier guards use variables `0..num_vars`.
    ///
    /// Errors: an irreducible CFG, an encoding larger than [`Limits::max_instructions`], the
    /// deadline, or something the verifier cannot encode.
    pub fn new(ctx: &'ctx Context, kernel: &'k Kernel, num_vars: usize, opts: &VerifyOptions) -> Result<Self, VerifyError> {
        let start = Instant::now();
        if let Some(names) = &opts.check_arrays {
            for n in names {
                if !kernel.objects.values().any(|o| &o.name == n) {
                    return Err(VerifyError::UnknownArray(n.clone()));
                }
            }
        }
        if opts.abstraction == ForceAbstraction::Equality
            && kernel.insts.values().any(|i| matches!(i.kind, syncfix_kir::InstKind::Atomic { .. }))
        {
            return Err(VerifyError::EqualityWithAtomics);
        }
        let cfg = Cfg::compute(kernel).map_err(|_| VerifyError::Irreducible)?;
        let abs = Abstraction::compute(kernel, opts.abstraction);
        let enc = Encoder::new(ctx, kernel, &cfg, &abs, num_vars, opts).run()?;
        let queries = query::split(ctx, kernel, &enc);
        // Every solver call has a solver of its own: each unwinding check (while encoding),
        // each group of Houdini's checks (`HoudiniGroup`, kept between rounds), each query.
        let houdini_groups = HoudiniGroup::split(&enc);
        solver_params(ctx, opts)?;
        // For debugging the encoding: SYNCFIX_DUMP_SMT=FILE writes the background facts and
        // the loop cuts' log facts.
        if let Some(path) = std::env::var_os("SYNCFIX_DUMP_SMT") {
            let solver = encode::new_solver(ctx);
            for b in enc.symbols.background().iter().chain(enc.obligations.log_facts().iter().map(|f| &f.fact)) {
                solver.assert(b);
            }
            let _ = std::fs::write(path, solver.to_string());
        }
        let stats = Stats {
            encode_time: start.elapsed().saturating_sub(enc.solve_time),
            solve_time: enc.solve_time,
            solver_calls: enc.solver_calls,
            properties: enc.obligations.props().len(),
            candidates: enc.invariants.candidates().len(),
            access_instances: enc.obligations.accesses().len(),
            barrier_instances: enc.obligations.barriers().len(),
            cut_loops: enc.frames.cut().len(),
            encodings: 1,
            sites_encoded: opts.active_sites.as_ref().map(|a| a.iter().filter(|&&x| x).count()),
            ..Stats::default()
        };
        // A barrier havocs the written equality-abstracted arrays outside constant memory
        // (encode::barrier) and assumes barrier invariants; nothing else it does reaches values.
        let havocked = kernel
            .objects
            .iter()
            .any(|(o, obj)| abs.model(o) == abstraction::Model::Equality && abs.written[o] && obj.space != syncfix_kir::Space::Constant);
        let values_free_of_barriers = !havocked
            && !kernel
                .insts
                .values()
                .any(|i| matches!(i.kind, syncfix_kir::InstKind::Assert { kind: syncfix_kir::AssertKind::BarrierInvariant, .. }));
        let seed = opts.seeds.as_ref().and_then(|m| m.get(&kernel.name)).and_then(|s| s.kept_for(enc.invariants.candidates()));
        Ok(Verifier {
            seed,
            check_limit: None,
            ctx,
            kernel,
            cfg,
            abs,
            enc,
            queries,
            houdini_groups,
            opts: opts.clone(),
            invariants: HashMap::new(),
            value_invariants: None,
            values_free_of_barriers,
            memo: memo::AnswerMemo::default(),
            widened: HashMap::new(),
            chunked: HashSet::new(),
            stride_refuted: HashMap::new(),
            sat_query: None,
            undecided: HashSet::new(),
            undecided_before: HashSet::new(),
            stats,
        })
    }

    /// [`Verifier::new`] with only the sites of the barrier variables that `active` marks
    /// encoded (the others behave as off, [`VerifyOptions::active_sites`]); a check whose
    /// assignment turns on another encodes the kernel again with it.
    ///
    /// Errors: as [`Verifier::new`].
    pub fn with_sites(ctx: &'ctx Context, kernel: &'k Kernel, active: Vec<bool>, opts: &VerifyOptions) -> Result<Self, VerifyError> {
        let mut opts = opts.clone();
        let n = active.len();
        opts.active_sites = Some(std::sync::Arc::new(active));
        Verifier::new(ctx, kernel, n, &opts)
    }

    /// Encodes the kernel again with the sites that `assignment` turns on added to those
    /// encoded (issue 28: widened where a candidate needs a site). Houdini's answers, the
    /// remembered answers and the queries are the new encoding's; the counters go on.
    fn encode_sites_of(&mut self, assignment: &[bool]) -> Result<(), VerifyError> {
        let Some(active) = &self.opts.active_sites else { return Ok(()) };
        if !assignment.iter().enumerate().any(|(i, &on)| on && !active.get(i).copied().unwrap_or(true)) {
            return Ok(());
        }
        let wider: Vec<bool> = active.iter().enumerate().map(|(i, &a)| a || assignment.get(i).copied().unwrap_or(false)).collect();
        let mut opts = self.opts.clone();
        opts.active_sites = Some(std::sync::Arc::new(wider));
        let fresh = Verifier::new(self.ctx, self.kernel, self.enc.symbols.vars().len(), &opts)?;
        let mut stats = std::mem::take(&mut self.stats);
        stats.encode_time += fresh.stats.encode_time;
        stats.solve_time += fresh.stats.solve_time;
        stats.solver_calls += fresh.stats.solver_calls;
        stats.encodings += 1;
        stats.sites_encoded = fresh.stats.sites_encoded;
        (stats.properties, stats.candidates, stats.access_instances, stats.barrier_instances, stats.cut_loops) = (
            fresh.stats.properties,
            fresh.stats.candidates,
            fresh.stats.access_instances,
            fresh.stats.barrier_instances,
            fresh.stats.cut_loops,
        );
        let seed = if self.seed.is_some() { fresh.seed.clone() } else { None };
        let chunked = std::mem::take(&mut self.chunked);
        let check_limit = self.check_limit;
        let mut undecided_before = std::mem::take(&mut self.undecided_before);
        undecided_before.extend(std::mem::take(&mut self.undecided));
        *self = fresh;
        self.chunked = chunked;
        self.check_limit = check_limit;
        self.undecided_before = undecided_before;
        self.stats = stats;
        self.seed = seed;
        Ok(())
    }

    /// What Houdini kept under `assignment`, as a seed for another verification of the same
    /// kernel ([`VerifyOptions::seeds`]); `None` before a check of that assignment.
    pub fn houdini_seed(&self, assignment: &[bool]) -> Option<HoudiniSeed> {
        self.invariants.get(assignment).map(|k| HoudiniSeed::of(self.enc.invariants.candidates(), k))
    }

    /// Starts the Houdini of each later check of another assignment from the candidates it
    /// kept under `assignment` (issue 28: reuse what was proved; an audit's check of the
    /// kernel without one of its barriers starts from the invariants of the kernel as
    /// written), as a seed of [`VerifyOptions::seeds`] does: a check under the seed that is
    /// not verified is made again from every candidate, and later checks start from every
    /// candidate. Houdini from a seed keeps an inductive set, so a proof under it is a proof.
    /// Measured on HeCBench accuracy's `accuracy_kernel2`: its check without the barrier at
    /// line 100, 27 s from every candidate. Nothing changes before a check of `assignment`.
    pub fn seed_from(&mut self, assignment: &[bool]) {
        if let Some(k) = self.invariants.get(assignment) {
            self.seed = Some(k.clone());
        }
    }

    /// Limits each later [`Verifier::check`] to `t` in all (Houdini's rounds and every query
    /// together; a check past it gives [`Verdict::Timeout`]), and each solver call within it:
    /// the repair loop passes the time left, or a share of it for a check it can do without.
    pub fn set_timeout(&mut self, t: Duration) {
        self.opts.timeout = Some(t);
        self.check_limit = Some(t);
    }

    /// The abstraction chosen for each object.
    pub fn abstraction(&self) -> &Abstraction {
        &self.abs
    }

    /// Loops whose unrolling was cut at a bound: (loop head location, bound, reason).
    pub fn bounded_loops(&self) -> Vec<(Span, u32, String)> {
        self.enc.frames.bounded().iter().map(|b| (b.header_span.clone(), b.bound, b.reason.clone())).collect()
    }

    /// The candidate invariants and whether Houdini kept each under the last assignment
    /// checked: (loop head, description, kept).
    pub fn invariants(&self, assignment: &[bool]) -> Vec<(Span, String, bool)> {
        let kept = self.invariants.get(assignment);
        self.enc
            .invariants
            .candidates()
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let span = self.enc.frames.cut().iter().find(|x| x.loop_id == c.loop_id).map(|x| x.header_span.clone()).unwrap_or_default();
                (span, c.what.clone(), kept.is_some_and(|k| k[i]))
            })
            .collect()
    }

    /// Checks the kernel with barrier variable `i` set to `assignment[i]` (missing entries are
    /// false): Houdini first (when loops were cut), then one verifier call on the full
    /// encoding under the invariants it kept, solved as its queries (`query::split`), one
    /// solver call each in schedule order until one is satisfiable (its model gives the
    /// trace). `Verified` when every query is unsatisfiable.
    pub fn check(&mut self, assignment: &[bool]) -> Verdict {
        // [`Verifier::set_timeout`]'s limit, as the deadline of this check.
        let deadline = self.opts.deadline;
        if let Some(t) = self.check_limit {
            let end = Instant::now() + t;
            self.opts.deadline = Some(deadline.map_or(end, |d| d.min(end)));
        }
        let v = self.check_within(assignment);
        self.opts.deadline = deadline;
        v
    }

    fn check_within(&mut self, assignment: &[bool]) -> Verdict {
        match self.encode_sites_of(assignment) {
            Ok(()) => {}
            Err(VerifyError::Timeout) => return Verdict::Timeout,
            Err(e) => return Verdict::Unknown(e.to_string()),
        }
        let seeded = self.seed.is_some() && !self.invariants.contains_key(assignment);
        let v = self.check_once(assignment);
        if seeded {
            self.stats.seeded = true;
            // Houdini from a seed keeps an inductive set that may be weaker than its greatest
            // fixpoint: any verdict but a proof is made again from every candidate.
            if !matches!(v, Verdict::Verified | Verdict::NoErrorUpTo { .. } | Verdict::Timeout) {
                self.seed = None;
                self.invariants.remove(assignment);
                self.value_invariants = None;
                self.stats.seed_fallback = true;
                return self.check_once(assignment);
            }
        }
        v
    }

    fn check_once(&mut self, assignment: &[bool]) -> Verdict {
        let ctx = self.ctx;
        let lits: Vec<Bool<'ctx>> = self
            .enc
            .symbols
            .vars()
            .iter()
            .enumerate()
            .map(|(i, v)| if assignment.get(i).copied().unwrap_or(false) { v.clone() } else { v.not() })
            .collect();
        let kept = match self.houdini(&lits, assignment) {
            Ok(k) => k,
            Err(v) => return v,
        };
        self.memo.assignment = assignment.to_vec();
        self.memo.kept = kept.clone();
        let mut base = lits;
        base.extend(self.enc.invariants.candidates().iter().zip(&kept).map(|(c, k)| if *k { c.lit.clone() } else { c.lit.not() }));
        self.stats.checks += 1;
        // One solver call per query, in schedule order; the first satisfiable one gives the
        // trace (see `query::split`).
        self.sat_query = None;
        let (r, model) = self.solve_in_order(&base);
        match r {
            Err(v) => v,
            Ok(SatResult::Unsat) => {
                if self.enc.frames.bounded().is_empty() {
                    Verdict::Verified
                } else {
                    Verdict::NoErrorUpTo { bound: self.opts.loop_unwind.unwrap_or(0) }
                }
            }
            Ok(_) => match model {
                Some(model) => {
                    let exact = !self.abs.has_equality(self.kernel) && self.enc.frames.cut().is_empty();
                    let props = self.sat_query.map(|q| self.queries[q].props.as_slice());
                    match trace::extract(ctx, self.kernel, &self.cfg, &self.enc, &model, props, assignment, exact) {
                        Some(t) => Verdict::Defect(Box::new(t)),
                        None => Verdict::Unknown("internal error: no violated property in the model".into()),
                    }
                }
                None => Verdict::Unknown("the SMT solver returned no model".into()),
            },
        }
    }
}
