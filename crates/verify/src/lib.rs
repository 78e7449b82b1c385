//! The verifier of syncfix: GPUVerify's method on KIR (DESIGN §6).
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
mod encode;
mod memory;
mod term;
mod trace;

pub use abstraction::{Abstraction, ForceAbstraction, Model};
pub use memory::AccessKind;
pub use trace::{Access, Defect, Race, ThreadIds, Trace};

use encode::{Encoder, Encoding};
use std::time::{Duration, Instant};
use syncfix_kir::{Cfg, Kernel, Span};
use z3::ast::Bool;
use z3::{Context, Params, SatResult};

/// Bounds on the unrolling (defaults in `configs/default.toml`).
#[derive(Copy, Clone, Debug)]
pub struct Limits {
    /// Most iterations unrolled of one loop whose trip count depends only on constants and
    /// launch dimensions.
    pub max_unwind: u32,
    /// Most iterations unrolled of any other loop before the verdict becomes `unknown`.
    pub max_unwind_unbounded: u32,
    /// Most instructions executed by the unrolled encoding (both threads count once).
    pub max_instructions: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_unwind: 1024, max_unwind_unbounded: 16, max_instructions: 400_000 }
    }
}

/// Options of the verifier (GPUVerify's flags).
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// `--equality-abstraction` / `--adversarial-abstraction`, or the per-array analysis.
    pub abstraction: ForceAbstraction,
    /// `--only-intra-group`: both threads are in the same group; inter-group races are not
    /// checked.
    pub only_intra_group: bool,
    /// GPUVerify's default benign-race tolerance (`--no-benign-tolerance` turns it off).
    pub benign_tolerance: bool,
    /// `--loop-unwind=N` (and `--findbugs`, N = 2): explore at most N iterations per loop;
    /// the result is then a bug or "no defect found up to N", never a proof.
    pub loop_unwind: Option<u32>,
    pub limits: Limits,
    /// Time limit of one solver call.
    pub timeout: Option<Duration>,
    /// `--timeout`: the whole verification ends by then. Checked before each block is
    /// encoded and before each solver call, whose own limit is the time left; past it the
    /// encoding fails with [`VerifyError::Timeout`] and a check gives [`Verdict::Timeout`].
    pub deadline: Option<Instant>,
    /// Check data races (`--only-divergence` and `--only-log` turn this off; accesses are
    /// still logged for annotations that query the logs).
    pub race_checks: bool,
    /// `--asymmetric-asserts`: assertions are checked for the first thread only.
    pub asymmetric_asserts: bool,
    /// `--warp-sync=N`: threads of one warp of N threads run in lock-step, so only accesses
    /// of one instruction can race between them (Bardsley & Donaldson, NFM 2014 §3).
    pub warp_size: Option<u32>,
    /// `--check-array-bounds`: accesses to arrays of known size must stay in bounds.
    pub array_bounds: bool,
    /// `--vcgen-opt=/checkArrays:A,B`: check races on these arrays only (by source name).
    pub check_arrays: Option<Vec<String>>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            abstraction: ForceAbstraction::PerArray,
            only_intra_group: false,
            benign_tolerance: true,
            loop_unwind: None,
            limits: Limits::default(),
            timeout: None,
            deadline: None,
            race_checks: true,
            asymmetric_asserts: false,
            warp_size: None,
            array_bounds: false,
            check_arrays: None,
        }
    }
}

/// The outcome of one verification.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Free of data races, barrier divergence and assertion failures (a proof, modulo the
    /// two-thread abstraction's assumptions).
    Verified,
    /// Bug-finding mode: no defect within `bound` iterations per loop. Not a proof.
    NoErrorUpTo { bound: u32 },
    /// A defect, with a trace from the solver's model.
    Defect(Box<Trace>),
    /// The verifier cannot establish a verdict; the reason says why.
    Unknown(String),
    /// The solver ran out of time.
    Timeout,
}

/// Errors that stop the encoding itself.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("the kernel's control flow is not reducible (e.g. a goto into a loop); lock-step predication needs a reducible CFG")]
    Irreducible,
    #[error("the unrolled kernel exceeds {0} instructions; loop invariants are not supported yet")]
    TooLarge(u64),
    /// `/checkArrays` names an array the kernel does not have (GPUVerify: GPUVERIFYVCGEN_ERROR).
    #[error("Array name '{0}' specified for restricted checking is not found")]
    UnknownArray(String),
    /// `--equality-abstraction` on a kernel with atomics, whose arrays must be adversarial
    /// (NFM 2014 §4.1; GPUVerify: GPUVERIFYVCGEN_ERROR).
    #[error("--equality-abstraction cannot be used with atomics")]
    EqualityWithAtomics,
    /// [`VerifyOptions::deadline`] passed while encoding.
    #[error("the time limit was reached")]
    Timeout,
}

/// Counters for the benchmark.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Building the encoding, less the unwinding checks' solver time.
    pub encode_time: Duration,
    /// Every solver call: unwinding checks and [`Verifier::check`].
    pub solve_time: Duration,
    /// Solver calls on the kernel's full encoding ([`Verifier::check`]): verifier calls.
    pub checks: u32,
    /// Every solver call (check-sat), the unwinding checks and Houdini's included.
    pub solver_calls: u32,
    /// Houdini's rounds and time (part of `solve_time`).
    pub houdini_rounds: u32,
    pub houdini_time: Duration,
    pub properties: usize,
    pub access_instances: usize,
    pub barrier_instances: usize,
}

/// `Err(Timeout)` once [`VerifyOptions::deadline`] has passed.
pub(crate) fn check_deadline(opts: &VerifyOptions) -> Result<(), VerifyError> {
    match opts.deadline {
        Some(d) if Instant::now() >= d => Err(VerifyError::Timeout),
        _ => Ok(()),
    }
}

/// Parameters for the next solver call: a fixed seed, no SIGINT handler of Z3's own (syncfix
/// handles Ctrl-C), and a time limit of the smaller of [`VerifyOptions::timeout`] and the time
/// left before the deadline. `Err(Timeout)` when no time is left.
pub(crate) fn solver_params<'ctx>(ctx: &'ctx Context, opts: &VerifyOptions) -> Result<Params<'ctx>, VerifyError> {
    let left = match opts.deadline {
        Some(d) => Some(d.checked_duration_since(Instant::now()).filter(|l| !l.is_zero()).ok_or(VerifyError::Timeout)?),
        None => None,
    };
    let mut params = Params::new(ctx);
    params.set_u32("random_seed", 0);
    params.set_bool("ctrl_c", false);
    if let Some(t) = [opts.timeout, left].into_iter().flatten().min() {
        params.set_u32("timeout", t.as_millis().clamp(1, u32::MAX as u128) as u32);
    }
    Ok(params)
}

/// A kernel encoded once; candidate assignments are checked under assumptions.
pub struct Verifier<'ctx, 'k> {
    ctx: &'ctx Context,
    kernel: &'k Kernel,
    cfg: Cfg,
    abs: Abstraction,
    enc: Encoding<'ctx>,
    opts: VerifyOptions,
    pub stats: Stats,
}

impl<'ctx, 'k> Verifier<'ctx, 'k> {
    /// Encodes `kernel`, whose barrier guards use variables `0..num_vars`.
    ///
    /// Errors: an irreducible CFG, or an unrolling larger than [`Limits::max_instructions`].
    pub fn new(ctx: &'ctx Context, kernel: &'k Kernel, num_vars: usize, opts: &VerifyOptions) -> Result<Self, VerifyError> {
        let start = Instant::now();
        if let Some(names) = &opts.check_arrays {
            for n in names {
                if !kernel.objects.values().any(|o| &o.name == n) {
                    return Err(VerifyError::UnknownArray(n.clone()));
                }
            }
        }
        if opts.abstraction == ForceAbstraction::Equality && kernel.insts.values().any(|i| matches!(i.kind, syncfix_kir::InstKind::Atomic { .. })) {
            return Err(VerifyError::EqualityWithAtomics);
        }
        let cfg = Cfg::compute(kernel).map_err(|_| VerifyError::Irreducible)?;
        let abs = Abstraction::compute(kernel, opts.abstraction);
        let enc = Encoder::new(ctx, kernel, &cfg, &abs, num_vars, opts).run()?;
        let bad: Vec<&Bool<'ctx>> = enc.props.iter().map(|p| &p.cond).collect();
        enc.solver.assert(&term::or(ctx, &bad));
        enc.solver.set_params(&solver_params(ctx, opts)?);
        // For debugging the encoding: SYNCFIX_DUMP_SMT=FILE writes the solver's assertions.
        if let Some(path) = std::env::var_os("SYNCFIX_DUMP_SMT") {
            let _ = std::fs::write(path, enc.solver.to_string());
        }
        let stats = Stats {
            encode_time: start.elapsed().saturating_sub(enc.solve_time),
            solve_time: enc.solve_time,
            solver_calls: enc.solver_calls,
            properties: enc.props.len(),
            access_instances: enc.accesses.len(),
            barrier_instances: enc.barriers.len(),
            ..Stats::default()
        };
        Ok(Verifier { ctx, kernel, cfg, abs, enc, opts: opts.clone(), stats })
    }

    /// Limits each later solver call to `t` (the repair loop passes the time left).
    pub fn set_timeout(&mut self, t: Duration) {
        let mut params = Params::new(self.ctx);
        params.set_u32("timeout", t.as_millis().clamp(1, u32::MAX as u128) as u32);
        self.enc.solver.set_params(&params);
    }

    /// The abstraction chosen for each object.
    pub fn abstraction(&self) -> &Abstraction {
        &self.abs
    }

    /// Loops whose unrolling was cut at a bound: (loop head location, bound, reason).
    pub fn bounded_loops(&self) -> Vec<(Span, u32, String)> {
        self.enc.bounded.iter().map(|b| (b.header_span.clone(), b.bound, b.reason.clone())).collect()
    }

    /// Checks the kernel with barrier variable `i` set to `assignment[i]` (missing entries are
    /// false).
    pub fn check(&mut self, assignment: &[bool]) -> Verdict {
        let ctx = self.ctx;
        let lits: Vec<Bool<'ctx>> = self
            .enc
            .vars
            .iter()
            .enumerate()
            .map(|(i, v)| if assignment.get(i).copied().unwrap_or(false) { v.clone() } else { v.not() })
            .collect();
        match solver_params(ctx, &self.opts) {
            Ok(p) => self.enc.solver.set_params(&p),
            Err(_) => return Verdict::Timeout,
        }
        let start = Instant::now();
        let r = self.enc.solver.check_assumptions(&lits);
        self.stats.solve_time += start.elapsed();
        self.stats.checks += 1;
        self.stats.solver_calls += 1;
        match r {
            SatResult::Unsat => {
                if self.enc.bounded.is_empty() {
                    Verdict::Verified
                } else if let Some(n) = self.opts.loop_unwind {
                    Verdict::NoErrorUpTo { bound: n }
                } else {
                    Verdict::Unknown(self.bounded_reason())
                }
            }
            SatResult::Unknown => {
                let why = self.enc.solver.get_reason_unknown().unwrap_or_default();
                if why.contains("timeout") || why.contains("canceled") {
                    Verdict::Timeout
                } else {
                    Verdict::Unknown(format!("the SMT solver gave up ({why})"))
                }
            }
            SatResult::Sat => match self.enc.solver.get_model() {
                Some(model) => {
                    let exact = !self.abs.has_equality(self.kernel);
                    match trace::extract(ctx, self.kernel, &self.cfg, &self.enc, &model, assignment, exact) {
                        Some(t) => Verdict::Defect(Box::new(t)),
                        None => Verdict::Unknown("internal error: no violated property in the model".into()),
                    }
                }
                None => Verdict::Unknown("the SMT solver returned no model".into()),
            },
        }
    }

    fn bounded_reason(&self) -> String {
        let k = self.kernel;
        let parts: Vec<String> = self
            .enc
            .bounded
            .iter()
            .map(|b| {
                let at = b
                    .header_span
                    .in_main()
                    .map(|l| format!("{}:{}:{}", k.main_file().file_name(), l.line, l.col))
                    .unwrap_or_else(|| "an unknown location".into());
                format!("the loop at {at} could not be fully unrolled: {}", b.reason)
            })
            .collect();
        let mut s = parts.join("; ");
        s.push_str(" (loop invariants are not supported yet)");
        s
    }
}
