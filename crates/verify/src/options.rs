//! What a verification is asked (`VerifyOptions`, `Limits`), what it answers (`Verdict`,
//! `VerifyError`) and what it counts (`Stats`).

use crate::trace::Trace;
use crate::{ForceAbstraction, HoudiniSeed};
use std::time::{Duration, Instant};

/// Bounds on the unrolling (defaults in `configs/default.toml`).
#[derive(Copy, Clone, Debug)]
pub struct Limits {
    /// Most iterations of a loop unrolled (when its exits depend only on constants, launch
    /// sizes and ids, and it has no user invariant) before it is cut and proved with
    /// invariants instead.
    pub max_unwind: u32,
    /// Most instructions one loop's unrolling may execute before it is cut instead.
    pub max_unroll_instructions: u64,
    /// Most unwinding checks (solver calls) one loop's unrolling may make before it is cut
    /// instead.
    pub max_unwind_checks: u32,
    /// Most instructions executed by the whole encoding (both threads count once).
    pub max_instructions: u64,
    /// Most groups of Houdini's checks that keep their solver (a Z3 context of its own,
    /// 17–40 MB) between rounds; the least recently used is made again from its slice when
    /// its group is solved again. At least 1.
    pub houdini_solvers: usize,
    /// How long a Houdini round's disjunction is solved alone (in Z3's resource units at
    /// their nominal rate, see `rlimit_within`) before, with several solver threads, it is
    /// solved again beside the round's checks one at a time, the first to end taken (zero:
    /// every round not answered at once).
    pub houdini_race_after: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        // `configs/default.toml`'s values (syncfix_kir::defaults).
        use syncfix_kir::defaults as d;
        Limits {
            max_unwind: d::VERIFIER_MAX_UNWIND as u32,
            max_unroll_instructions: d::VERIFIER_MAX_UNROLL_INSTRUCTIONS as u64,
            max_unwind_checks: d::VERIFIER_MAX_UNWIND_CHECKS as u32,
            max_instructions: d::VERIFIER_MAX_INSTRUCTIONS as u64,
            houdini_solvers: d::VERIFIER_HOUDINI_SOLVERS as usize,
            houdini_race_after: std::time::Duration::from_millis(d::VERIFIER_HOUDINI_RACE_AFTER_MS as u64),
        }
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
    /// Set by the caller to end the verification early: checked where the deadline is, and
    /// then treated as a deadline that has passed ([`VerifyError::Timeout`],
    /// [`Verdict::Timeout`]); the caller tells the two apart by its flag.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
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
    /// Infer loop invariants (Houdini's candidates); `--no-infer` turns it off, leaving the
    /// user's invariants and the uniformity analysis.
    pub infer: bool,
    /// GPUVerify's barrier-invariant access check (`--no-barrier-access-checks` turns it off).
    pub barrier_access_checks: bool,
    /// Houdini's answers of an earlier verification, by kernel name, to start Houdini from
    /// (`seed`: the re-verification of a repair's patched source); a seed whose candidates
    /// are not the kernel's is not used.
    pub seeds: Option<std::sync::Arc<std::collections::HashMap<String, HoudiniSeed>>>,
    /// The barrier variables whose sites are encoded (indexed by variable; `None`: all). A
    /// site left out behaves as its variable off and costs nothing: no barrier interval, no
    /// divergence property, and its loop is a loop without barriers; it is still recorded
    /// where it lies in the schedule, so that a trace names it (issue 28: instrument where
    /// the race is). [`crate::Verifier::check`] of an assignment that turns one on encodes again with
    /// it. Set by [`crate::Verifier::with_sites`].
    pub active_sites: Option<std::sync::Arc<Vec<bool>>>,
    /// How many threads solve a check's queries at once (`--solver-threads`; 0: one per core).
    /// The queries are independent (`query::split`), so while the verifier's thread waits for
    /// one, the next are solved on other threads; the answer, the trace and the order in
    /// which queries count are those of solving them one after another.
    pub solver_threads: usize,
}

impl VerifyOptions {
    /// Whether the site of a barrier guarded by `g` is encoded ([`VerifyOptions::active_sites`]).
    pub fn site_active(&self, g: syncfix_kir::Guard) -> bool {
        match (g, &self.active_sites) {
            (syncfix_kir::Guard::Var(v), Some(a)) => a.get(syncfix_kir::EntityRef::index(v)).copied().unwrap_or(true),
            _ => true,
        }
    }
}

impl VerifyOptions {
    /// [`VerifyOptions::solver_threads`], 0 read as the number of cores.
    pub fn threads(&self) -> usize {
        match self.solver_threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// Whether [`VerifyOptions::cancel`] is set.
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }
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
            cancel: None,
            race_checks: true,
            barrier_access_checks: true,
            asymmetric_asserts: false,
            warp_size: None,
            array_bounds: false,
            check_arrays: None,
            infer: true,
            seeds: None,
            active_sites: None,
            solver_threads: 0,
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
    /// The encoding executed more than the limit's instructions (`max_instructions`): a
    /// forced unrolling (`--loop-unwind=N` with a large N) or straight-line code that long. An
    /// unrolling the verifier only attempts falls back to cutting the loop instead.
    #[error("the kernel exceeds {0} instructions once its loops are unrolled and its calls inlined (a bound of --loop-unwind too large to unroll, or straight-line code that long)")]
    TooLarge(u64),
    /// `/checkArrays` names an array the kernel does not have (GPUVerify: GPUVERIFYVCGEN_ERROR).
    #[error("Array name '{0}' specified for restricted checking is not found")]
    UnknownArray(String),
    /// `--equality-abstraction` on a kernel with atomics, whose arrays must be adversarial
    /// (NFM 2014 §4.1; GPUVerify: GPUVERIFYVCGEN_ERROR).
    #[error("--equality-abstraction cannot be used with atomics")]
    EqualityWithAtomics,
    /// The deadline passed while encoding.
    #[error("the time limit was reached")]
    Timeout,
    /// Something the verifier cannot encode (the verdict is `unknown`, with this reason).
    #[error("{0}")]
    Unsupported(String),
}

/// Counters for the benchmark.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Building the encoding, less the unwinding checks' solver time.
    pub encode_time: Duration,
    /// Every solver call: unwinding checks, Houdini's rounds and [`crate::Verifier::check`].
    pub solve_time: Duration,
    /// Solver calls on the kernel's full encoding ([`crate::Verifier::check`]): verifier calls.
    pub checks: u32,
    /// Every solver call (check-sat), the unwinding checks and Houdini's included.
    pub solver_calls: u32,
    /// Houdini's rounds and time (part of `solve_time`).
    pub houdini_rounds: u32,
    pub houdini_time: Duration,
    pub properties: usize,
    pub candidates: usize,
    pub access_instances: usize,
    pub barrier_instances: usize,
    /// Loops proved with invariants (cut) rather than unrolled.
    pub cut_loops: usize,
    /// Queries solved by [`crate::Verifier::check`] (the properties split by barrier interval and
    /// object, one solver call each), and the slowest one: its label and time.
    pub queries: u32,
    pub slowest_query: Option<(String, Duration)>,
    /// Every query solved, in the order solved: its label, its number of properties and the
    /// wall time it took (what `--stats` lists as where the solving time went).
    pub query_times: Vec<(String, usize, Duration)>,
    /// Houdini's rounds and their wall time by loop (the loop of the group each round
    /// solved, and the line of the user's source at its header, if any), in the order first
    /// solved.
    pub houdini_loops: Vec<(syncfix_kir::LoopId, Option<u32>, u32, Duration)>,
    /// Solver calls repeated with every assumption because the model of a call with those of
    /// its cone of influence only violated one left out (`cone`).
    pub cone_fallbacks: u32,
    /// Candidate invariants that Houdini dropped because checking one on its own ran past
    /// its budget (`houdini`'s `CHECK_BUDGET`): the invariant is weaker (still sound) and a
    /// race found through it may be spurious.
    pub houdini_unproved: u32,
    /// Houdini's checks solved again with their array reads abstracted as uninterpreted
    /// functions after a call ran past its short budget (`reads`), and of those, the ones
    /// refuted so.
    pub reads_abstracted: u32,
    pub refuted_reads_abstracted: u32,
    /// Houdini's checks answered from an earlier barrier assignment's (`memo`) instead of
    /// solved.
    pub houdini_reused: u32,
    /// Queries answered from an earlier barrier assignment's (`memo`) instead of solved.
    pub queries_reused: u32,
    /// Race queries refuted by the stride of their offsets (`stride`) instead of solved.
    pub queries_by_stride: u32,
    /// Race queries refuted with GPUVerify's benign-race tolerance left out (no two of
    /// their accesses can overlap, whatever the values) instead of solved with it
    /// (`Property::strict`).
    pub queries_without_values: u32,
    /// Whether Houdini started from a seed ([`VerifyOptions::seeds`]), and whether the check
    /// was then made again without it (the verdict under the seed was not verified).
    pub seeded: bool,
    pub seed_fallback: bool,
    /// How many times the kernel was encoded: once, and again each time a check turned on a
    /// site left out ([`VerifyOptions::active_sites`]); the sites of the latest encoding
    /// (`None`: every site).
    pub encodings: u32,
    pub sites_encoded: Option<usize>,
}
