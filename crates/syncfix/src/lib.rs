//! The syncfix library: verify and repair the synchronisation of CUDA and OpenCL kernels.
//!
//! This facade is what an editor's quick fix (and the CLI) calls. It speaks plain data —
//! paths, source text, byte offsets, line/column locations and text edits — and never
//! prints: rendering (GPUVerify-style text, diffs, JSON) belongs to the caller.
//!
//! Pipeline (DESIGN §2): front end (clang-19 -> LLVM IR -> KIR) -> instrumentation (barrier
//! variables) -> verifier (two-thread lock-step encoding, Z3) -> repair loop (GPURepair
//! Algorithm 1) -> fix (source edits, re-verified) .

mod config;
mod editor;
pub mod exit;
mod failure;
mod report;
pub mod sarif;
mod source;
pub mod testsuite;
pub mod verdict;

pub use config::{Config, ConfigError};
pub use editor::{analyse, apply_edits, Analysis, QuickFix};
pub use failure::ErrorReport;
pub use source::{decode_source, encode_source, Encoding, SourceError};
pub use report::{describe, Check, Finding, Location, ThreadDesc};
pub use syncfix_fix::{apply_to_file, unified_diff, write_atomically, Applicability, ApplyError, Edit, Fix};
pub use syncfix_frontend::driver::{panic_message, Annotations, FrontendError, FrontendOptions};
/// Child processes and temporary directories that `process::abort` ends and removes, for a
/// process about to exit early (a signal, a watchdog); later front-end calls then fail.
pub use syncfix_frontend::process;
pub use syncfix_instrument::InstrumentConfig;
pub use syncfix_kir::{FileId, Language, Launch, Loc};
pub use syncfix_frontend::lower::Stage;
pub use syncfix_repair::repair::RepairOptions;
pub use syncfix_repair::solve::Strategy;
pub use syncfix_verify::{ForceAbstraction, Limits, VerifyError, VerifyOptions};

use std::path::Path;
use std::time::{Duration, Instant};
use syncfix_fix::{BarrierText, Change};
use syncfix_frontend::driver::{compile, Compiled};
use syncfix_instrument::{instrument, Instrumented, SiteKind};
use syncfix_kir::{Kernel, Scope, StmtId};
use syncfix_repair::repair::{repair_from as repair_loop, Outcome, RepairStats};
use syncfix_verify::{Verdict, Verifier};

/// Everything syncfix needs besides the file.
#[derive(Clone, Debug)]
pub struct Options {
    pub frontend: FrontendOptions,
    pub verify: VerifyOptions,
    pub instrument: InstrumentConfig,
    pub repair: RepairOptions,
}

impl Options {
    /// The defaults (GPUVerify's and GPURepair's) for a launch; the language follows the
    /// file's extension (`.cl` is OpenCL).
    pub fn new(launch: Launch) -> Options {
        Options {
            frontend: FrontendOptions::new(launch),
            verify: VerifyOptions::default(),
            instrument: InstrumentConfig::default(),
            repair: RepairOptions::default(),
        }
    }

    /// `--timeout`: every stage (front end, encoding, each solver call, the repair loop and
    /// the re-verification of its patch) ends by `deadline`.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.frontend.deadline = deadline;
        self.verify.deadline = deadline;
        self.repair.deadline = deadline;
    }
}

/// Why syncfix could not produce a verdict at all.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    #[error("{kernel}: {source}")]
    Verify { kernel: String, source: VerifyError },
}

/// The verdict on one kernel.
#[derive(Clone, Debug)]
pub enum Status {
    Verified,
    /// Bug-finding mode: nothing found within the unwinding bound.
    NoErrorUpTo(u32),
    /// A defect (its finding is in [`KernelReport::findings`]).
    Defect,
    Unknown(String),
    Timeout,
}

/// Per-stage times and counters (for the benchmark).
#[derive(Clone, Debug, Default)]
pub struct Timings {
    /// The whole front end, `clang` included.
    pub frontend: Duration,
    /// The clang-19 processes.
    pub clang: Duration,
    pub encode: Duration,
    /// Every solver call, `houdini` included.
    pub solve: Duration,
    pub houdini: Duration,
    /// Solver calls on a kernel's full encoding.
    pub verifier_calls: u32,
    /// Every solver call (unwinding checks and Houdini's included).
    pub solver_calls: u32,
    pub houdini_rounds: u32,
    pub barrier_vars: usize,
    pub repair_iterations: u32,
    pub clauses: usize,
}

impl Timings {
    /// Adds the times and solver counters of `t` (not the repair's counters).
    pub fn add(&mut self, t: &Timings) {
        self.frontend += t.frontend;
        self.clang += t.clang;
        self.encode += t.encode;
        self.solve += t.solve;
        self.houdini += t.houdini;
        self.verifier_calls += t.verifier_calls;
        self.solver_calls += t.solver_calls;
        self.houdini_rounds += t.houdini_rounds;
    }
}

/// The result of verifying one kernel.
#[derive(Clone, Debug)]
pub struct KernelReport {
    pub kernel: String,
    pub status: Status,
    pub findings: Vec<Finding>,
    /// Whether inter-group races were checked (false under `--only-intra-group` or one group).
    pub inter_group: bool,
    /// What the front end assumed and could not check ([`Kernel::assumptions`]).
    pub assumptions: Vec<String>,
    /// The kernel's scalar arguments in the counterexample of the first finding (name, value
    /// as an unsigned integer of the parameter's width), as GPUVerify prints them.
    pub param_values: Vec<(String, u128)>,
}

/// `syncfix verify`: GPUVerify's verdict for every kernel of a file.
///
/// Past [`Options::set_deadline`]'s deadline the front end fails with
/// [`FrontendError::Timeout`] and a kernel's status is [`Status::Timeout`].
pub fn verify(path: &Path, text: &str, opts: &Options) -> Result<(Vec<KernelReport>, Timings), Error> {
    let t0 = Instant::now();
    let compiled = compile(path, text, &opts.frontend)?;
    let mut timings = Timings { frontend: t0.elapsed(), clang: compiled.tool_time, ..Timings::default() };
    let mut out = vec![];
    for k in &compiled.kernels {
        out.push(verify_kernel(k, opts, &mut timings)?);
    }
    Ok((out, timings))
}

/// The benchmark's baseline: the time of one plain clang-19 compile of `text` to LLVM IR with
/// the front end's flags and prelude (see `syncfix_frontend::driver::clang_baseline`).
pub fn clang_baseline(path: &Path, text: &str, opts: &Options) -> Result<Duration, Error> {
    Ok(syncfix_frontend::driver::clang_baseline(path, text, &opts.frontend)?)
}

fn verify_kernel(k: &Kernel, opts: &Options, timings: &mut Timings) -> Result<KernelReport, Error> {
    let inst = instrument(k, &InstrumentConfig::verify_only());
    let ctx = z3::Context::new(&z3::Config::new());
    let mut v = match Verifier::new(&ctx, &inst.kernel, inst.vars.len(), &opts.verify) {
        Ok(v) => v,
        // Too large, or something the verifier cannot encode: no verdict, and the reason says
        // why.
        Err(e @ (VerifyError::TooLarge(_) | VerifyError::Unsupported(_))) => {
            return Ok(report_of(k, Verdict::Unknown(e.to_string()), opts))
        }
        Err(VerifyError::Timeout) => return Ok(report_of(k, Verdict::Timeout, opts)),
        Err(source) => return Err(Error::Verify { kernel: k.name.clone(), source }),
    };
    let verdict = v.check(&inst.original_assignment());
    add_verifier_stats(timings, &v.stats);
    Ok(report_of(&inst.kernel, verdict, opts))
}

fn add_verifier_stats(t: &mut Timings, s: &syncfix_verify::Stats) {
    t.encode += s.encode_time;
    t.solve += s.solve_time;
    t.houdini += s.houdini_time;
    t.verifier_calls += s.checks;
    t.solver_calls += s.solver_calls;
    t.houdini_rounds += s.houdini_rounds;
}

fn report_of(k: &Kernel, verdict: Verdict, opts: &Options) -> KernelReport {
    let inter_group = !opts.verify.only_intra_group && k.multi_block();
    let mut param_values = vec![];
    let (status, findings) = match verdict {
        Verdict::Verified => (Status::Verified, vec![]),
        Verdict::NoErrorUpTo { bound } => (Status::NoErrorUpTo(bound), vec![]),
        Verdict::Defect(t) => {
            param_values = t.params.iter().filter_map(|&(i, v)| k.params.get(i).map(|p| (p.name.clone(), v))).collect();
            (Status::Defect, vec![describe(k, &t)])
        }
        Verdict::Unknown(r) => (Status::Unknown(r), vec![]),
        Verdict::Timeout => (Status::Timeout, vec![]),
    };
    KernelReport { kernel: k.name.clone(), status, findings, inter_group, assumptions: k.assumptions.clone(), param_values }
}

/// How a repair ended (GPURepair's outcomes).
#[derive(Clone, Debug)]
pub enum RepairStatus {
    /// The kernel needs no change: it verifies as written (`repair`), or every barrier is
    /// needed (`audit`).
    NoChange,
    /// `audit` only: the kernel does not verify as written, so no barrier is judged; the
    /// findings say why (`repair` is the command for it).
    NotVerified,
    /// A change was found and the patched source verifies.
    Repaired,
    /// An assertion fails (201).
    AssertionFailure,
    /// Another defect that barriers cannot fix, e.g. a write to constant memory (203).
    OtherError,
    /// No barrier placement can repair the kernel (202).
    Unrepairable(String),
    /// Undecided (6): the reason.
    Unknown(String),
    /// Out of time (7).
    Timeout,
    /// The patched source did not re-verify: a bug in syncfix (203); nothing is printed.
    NotReverified(String),
}

/// The result of `syncfix repair`.
#[derive(Clone, Debug)]
pub struct RepairReport {
    pub status: RepairStatus,
    /// The edits of the fix (only when repaired).
    pub fix: Option<Fix>,
    /// The patched text (only when repaired).
    pub patched: Option<String>,
    /// Findings that explain a failure (the assertion, the unrepairable race...).
    pub findings: Vec<Finding>,
    /// Barriers added / removed / whose OpenCL fences are strengthened in place, for the
    /// summary.
    pub inserted: usize,
    pub removed: usize,
    pub upgraded: usize,
    pub timings: Timings,
    /// What the front end assumed and could not check ([`Kernel::assumptions`]).
    pub assumptions: Vec<String>,
    /// The result holds only up to this many loop iterations (`--loop-unwind`, `--findbugs`):
    /// the repair, or "no change needed", is then not a proof.
    pub bounded: Option<u32>,
    /// The user's barrier statements the fix removes: 1-based line and the statement's text.
    pub removals: Vec<Removal>,
    /// Every change of the fix, in the order of the file.
    pub changes: Vec<ChangeInfo>,
}

/// One change of a fix, as plain data (for `--format json` and editors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeInfo {
    /// `insert` (a barrier before a statement), `insert-split` (between the read and the write
    /// of an assignment, through a temporary), `remove`, or `upgrade` (an OpenCL barrier's
    /// flags rewritten; `barrier` is the new statement).
    pub kind: &'static str,
    /// 1-based line of the statement the change is anchored to.
    pub line: u32,
    /// The barrier statement inserted, or the statement removed, as text.
    pub barrier: String,
    /// `warp`, `block` or `grid`.
    pub scope: &'static str,
    /// GPURepair's weight of the barrier variable (`sw*lw^depth + gw*[grid]`, see
    /// `syncfix_instrument`).
    pub weight: u64,
    /// Loop nesting depth of the site.
    pub loop_depth: u32,
}

/// A barrier statement that a fix removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// 1-based line of the statement in the user's file.
    pub line: u32,
    /// The statement as written (e.g. `__syncthreads();`).
    pub text: String,
}

impl RepairReport {
    /// Whether `--apply` may write the fix without `--unsafe-fixes` (Ruff's rule): only a
    /// [`Applicability::Safe`] fix (block barriers inserted) that is proved, not bounded.
    pub fn applies_safely(&self) -> bool {
        self.bounded.is_none() && self.fix.as_ref().is_some_and(|f| f.applicability == Applicability::Safe)
    }

    /// Why `--apply` needs `--unsafe-fixes` for this fix (None: it does not).
    pub fn unsafe_reason(&self) -> Option<String> {
        if let Some(n) = self.bounded {
            return Some(format!("the patched kernel is checked only up to {n} loop iterations (not a proof)"));
        }
        match self.fix.as_ref()?.applicability {
            Applicability::Safe => None,
            Applicability::Unsafe => Some("it removes a barrier, which rests on the launch configuration and abstractions verified".into()),
            Applicability::DisplayOnly => Some("it inserts a grid barrier, which needs a cooperative launch outside this file".into()),
        }
    }
}

/// `syncfix repair`: a minimal-weight set of barriers to insert and remove, as source edits,
/// re-verified on the patched text before it is returned (GPURepair, VMCAI 2021, §2.4). A
/// kernel that verifies as written is left as it is ([`RepairStatus::NoChange`]): which of its
/// barriers it does not need is [`audit`]'s question.
///
/// Errors: the front end's ([`Error::Frontend`]) and the verifier's ([`Error::Verify`]);
/// every other outcome is a [`RepairStatus`].
pub fn repair(path: &Path, text: &str, opts: &Options) -> Result<RepairReport, Error> {
    let t0 = Instant::now();
    let compiled = compile(path, text, &opts.frontend)?;
    let mut report = repair_compiled(path, text, opts, &compiled, t0, Mode::Repair)?;
    report.assumptions = compiled.kernels.iter().flat_map(|k| k.assumptions.iter().cloned()).collect();
    Ok(report)
}

/// `syncfix audit`: on a kernel that verifies as written, the minimum-weight subset of its
/// existing block and grid barriers that keeps it verified, as source edits removing the
/// others (re-verified on the patched text); [`RepairStatus::NoChange`] when every barrier is
/// needed, [`RepairStatus::NotVerified`] (with the findings) when the kernel does not verify.
/// The repair loop of [`repair`] with the user's barriers as the only sites (GPURepair's
/// inspection, §2.2). Tile barriers (`__syncwarp`, cooperative groups' tiles) are never
/// removed.
///
/// Errors: as [`repair`].
pub fn audit(path: &Path, text: &str, opts: &Options) -> Result<RepairReport, Error> {
    let t0 = Instant::now();
    let compiled = compile(path, text, &opts.frontend)?;
    let mut o = opts.clone();
    o.instrument.new_sites = false;
    o.instrument.disable_inspect = false;
    let mut report = repair_compiled(path, text, &o, &compiled, t0, Mode::Audit)?;
    report.assumptions = compiled.kernels.iter().flat_map(|k| k.assumptions.iter().cloned()).collect();
    Ok(report)
}

/// Whether [`repair_compiled`] repairs or audits.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Mode {
    Repair,
    Audit,
}

fn repair_compiled(path: &Path, text: &str, opts: &Options, compiled: &Compiled, t0: Instant, mode: Mode) -> Result<RepairReport, Error> {
    let mut timings = Timings { frontend: t0.elapsed(), clang: compiled.tool_time, ..Timings::default() };
    let mut changes: Vec<Change> = vec![];
    let mut removals_kept: Vec<StmtId> = vec![];
    let mut findings = vec![];
    let mut bounded: Option<u32> = None;
    // Each change's weight and loop depth (the largest over the kernels that make it).
    // Per change: weight, loop depth, and whether the barrier is a grid barrier.
    let mut meta: std::collections::HashMap<Change, (u64, u32, bool)> = Default::default();
    for k in &compiled.kernels {
        let inst = instrument(k, &opts.instrument);
        timings.barrier_vars += inst.vars.len();
        let ctx = z3::Context::new(&z3::Config::new());
        let mut v = match Verifier::new(&ctx, &inst.kernel, inst.vars.len(), &opts.verify) {
            Ok(v) => v,
            Err(e @ (VerifyError::TooLarge(_) | VerifyError::Unsupported(_))) => {
                return Ok(RepairReport::failed(RepairStatus::Unknown(e.to_string()), findings, timings))
            }
            Err(VerifyError::Timeout) => return Ok(RepairReport::failed(RepairStatus::Timeout, findings, timings)),
            Err(source) => return Err(Error::Verify { kernel: k.name.clone(), source }),
        };
        // The kernel as written: `repair` leaves a verified kernel alone, `audit` judges only
        // a verified kernel's barriers.
        let first = v.check(&inst.original_assignment());
        match (&first, mode) {
            (Verdict::Verified, Mode::Repair) => {
                add_verifier_stats(&mut timings, &v.stats);
                continue;
            }
            (Verdict::NoErrorUpTo { bound }, Mode::Repair) => {
                bounded = bounded.max(Some(*bound));
                add_verifier_stats(&mut timings, &v.stats);
                continue;
            }
            (Verdict::Defect(t), Mode::Audit) => {
                findings.push(describe(&inst.kernel, t));
                add_verifier_stats(&mut timings, &v.stats);
                return Ok(RepairReport::failed(RepairStatus::NotVerified, findings, timings));
            }
            (Verdict::Unknown(r), _) => {
                add_verifier_stats(&mut timings, &v.stats);
                return Ok(RepairReport::failed(RepairStatus::Unknown(r.clone()), findings, timings));
            }
            (Verdict::Timeout, _) => return Ok(RepairReport::failed(RepairStatus::Timeout, findings, timings)),
            _ => {}
        }
        let seed = match first {
            Verdict::Defect(t) => Some(t),
            _ => None,
        };
        let (outcome, stats) = repair_loop(&inst, &mut v, &opts.repair, seed);
        add_stats(&mut timings, &v, &stats);
        match outcome {
            Outcome::Repaired { assignment, bounded: b, .. } => {
                bounded = bounded.max(b);
                let (c, kept) = changes_of(&inst, &assignment);
                for (change, m) in c {
                    let e = meta.entry(change).or_insert(m);
                    *e = (e.0.max(m.0), e.1.max(m.1), e.2 || m.2);
                    changes.push(change);
                }
                removals_kept.extend(kept);
            }
            Outcome::AssertionFailure(t) => {
                findings.push(describe(&inst.kernel, &t));
                return Ok(RepairReport::failed(RepairStatus::AssertionFailure, findings, timings));
            }
            Outcome::OtherError(t) => {
                findings.push(describe(&inst.kernel, &t));
                return Ok(RepairReport::failed(RepairStatus::OtherError, findings, timings));
            }
            Outcome::Unrepairable { reason, trace } => {
                if let Some(t) = trace {
                    findings.push(describe(&inst.kernel, &t));
                }
                return Ok(RepairReport::failed(RepairStatus::Unrepairable(reason), findings, timings));
            }
            Outcome::Unknown(r) => return Ok(RepairReport::failed(RepairStatus::Unknown(r), findings, timings)),
            Outcome::Timeout => return Ok(RepairReport::failed(RepairStatus::Timeout, findings, timings)),
        }
    }
    // A barrier in a shared `__device__` function is removed only if no kernel keeps it.
    changes.retain(|c| !matches!(c, Change::Remove { stmt } if removals_kept.contains(stmt)));
    changes.sort_by_key(|c| format!("{c:?}"));
    changes.dedup_by_key(|c| format!("{c:?}"));
    if changes.is_empty() {
        return Ok(RepairReport { status: RepairStatus::NoChange, fix: None, patched: None, findings, inserted: 0, removed: 0, upgraded: 0, timings, assumptions: vec![], bounded, removals: vec![], changes: vec![] });
    }
    let inserted =
        changes.iter().filter(|c| matches!(c, Change::Insert { .. } | Change::InsertSplit { .. } | Change::InsertEnd { .. })).count();
    let removed = changes.iter().filter(|c| matches!(c, Change::Remove { .. })).count();
    let upgraded = changes.iter().filter(|c| matches!(c, Change::Upgrade { .. })).count();
    let fix = match syncfix_fix::build_fix(text, &compiled.ast.stmts, &changes) {
        Ok(f) => f,
        Err(e) => {
            return Ok(RepairReport::failed(RepairStatus::NotReverified(format!("the fix could not be written: {e}")), findings, timings))
        }
    };
    let patched = match syncfix_fix::apply_edits(text, &fix.edits) {
        Ok(p) => p,
        Err(e) => {
            return Ok(RepairReport::failed(RepairStatus::NotReverified(format!("the fix could not be applied: {e}")), findings, timings))
        }
    };
    // Re-verify the patched source through the whole pipeline (DESIGN §8), in the time left.
    match verify(path, &patched, opts) {
        Ok((reports, t)) => {
            timings.add(&t);
            if reports.iter().any(|r| matches!(r.status, Status::Timeout)) {
                return Ok(RepairReport::failed(RepairStatus::Timeout, vec![], timings));
            }
            for r in &reports {
                if let Status::NoErrorUpTo(n) = r.status {
                    bounded = bounded.max(Some(n));
                }
            }
            let bad: Vec<&KernelReport> =
                reports.iter().filter(|r| !matches!(r.status, Status::Verified | Status::NoErrorUpTo(_))).collect();
            if let Some(r) = bad.first() {
                let why = match &r.status {
                    Status::Defect => r.findings.first().map(|f| f.headline()).unwrap_or_default(),
                    Status::Unknown(u) => u.clone(),
                    Status::Timeout => "timeout".into(),
                    _ => String::new(),
                };
                return Ok(RepairReport::failed(
                    RepairStatus::NotReverified(format!("kernel `{}` of the patched source does not verify: {why}", r.kernel)),
                    r.findings.clone(),
                    timings,
                ));
            }
        }
        Err(Error::Frontend(FrontendError::Timeout)) => return Ok(RepairReport::failed(RepairStatus::Timeout, vec![], timings)),
        Err(e) => {
            return Ok(RepairReport::failed(RepairStatus::NotReverified(format!("the patched source does not compile: {e}")), findings, timings))
        }
    }
    // Each change as plain data, in the order of the file; the removals are those of kind
    // `remove`.
    let mut infos: Vec<(usize, ChangeInfo)> = changes
        .iter()
        .map(|c| {
            let (weight, loop_depth, grid) = meta.get(c).copied().unwrap_or((0, 0, false));
            let range = compiled.ast.stmts.stmts.get(c.stmt()).map(|s| s.range);
            // An insertion at the end of a loop body stands on the line of its `}`.
            let start = match c {
                Change::InsertEnd { .. } => range.map_or(0, |r| r.end.saturating_sub(1)),
                _ => range.map_or(0, |r| r.start),
            };
            let line = text.get(..start).map_or(0, |t| t.matches('\n').count() as u32 + 1);
            let (kind, barrier, scope) = match c {
                Change::Insert { barrier, .. } | Change::InsertSplit { barrier, .. } | Change::InsertEnd { barrier, .. } => (
                    match c {
                        Change::InsertSplit { .. } => "insert-split",
                        Change::InsertEnd { .. } => "insert-end",
                        _ => "insert",
                    },
                    barrier.text().to_string(),
                    barrier.scope_name(),
                ),
                Change::Remove { .. } => (
                    "remove",
                    range.and_then(|r| text.get(r.start..r.end)).unwrap_or("").trim().to_string(),
                    if grid { "grid" } else { "block" },
                ),
                Change::Upgrade { barrier, .. } => ("upgrade", barrier.text().to_string(), "block"),
            };
            (start, ChangeInfo { kind, line, barrier, scope, weight, loop_depth })
        })
        .collect();
    infos.sort_by_key(|(start, _)| *start);
    let changes: Vec<ChangeInfo> = infos.into_iter().map(|(_, i)| i).collect();
    let removals =
        changes.iter().filter(|c| c.kind == "remove").map(|c| Removal { line: c.line, text: c.barrier.clone() }).collect();
    Ok(RepairReport {
        status: RepairStatus::Repaired,
        fix: Some(fix),
        patched: Some(patched),
        findings,
        inserted,
        removed,
        upgraded,
        timings,
        assumptions: vec![],
        bounded,
        removals,
        changes,
    })
}

impl RepairReport {
    fn failed(status: RepairStatus, findings: Vec<Finding>, timings: Timings) -> Self {
        RepairReport { status, fix: None, patched: None, findings, inserted: 0, removed: 0, upgraded: 0, timings, assumptions: vec![], bounded: None, removals: vec![], changes: vec![] }
    }
}

fn add_stats(t: &mut Timings, v: &Verifier<'_, '_>, s: &RepairStats) {
    add_verifier_stats(t, &v.stats);
    t.solve += s.solver_time;
    t.repair_iterations += s.iterations;
    t.clauses += s.clauses;
}

/// The source changes that realise an assignment: enabled new sites are insertions, disabled
/// existing barriers removals. Also returns the existing barriers the assignment keeps.
///
/// An OpenCL site's two variables (one per fence) give one barrier with the flags of those
/// enabled.
fn changes_of(inst: &Instrumented, assignment: &[bool]) -> (Vec<(Change, (u64, u32, bool))>, Vec<StmtId>) {
    let lang = inst.kernel.language;
    let mut out = vec![];
    let mut kept = vec![];
    // OpenCL insertions: (statement, split) -> (local, global, weight, depth).
    let mut opencl: std::collections::BTreeMap<(StmtId, SiteKind), (bool, bool, u64, u32)> = Default::default();
    for (i, v) in inst.vars.iter().enumerate() {
        let on = assignment.get(i).copied().unwrap_or(false);
        let barrier = match (v.scope, lang) {
            (Scope::Grid, _) => BarrierText::CudaGrid,
            (Scope::Block, Language::Cuda) => BarrierText::CudaBlock,
            (Scope::Block, Language::OpenCl) => {
                if on && v.kind != SiteKind::Existing {
                    let (local, global) = match v.fences {
                        syncfix_kir::Fences::Const { local, global } => (local, global),
                        syncfix_kir::Fences::Dynamic(_) => (true, true),
                    };
                    let e = opencl.entry((v.stmt, v.kind)).or_default();
                    *e = (e.0 || local, e.1 || global, e.2.max(v.weight), e.3.max(v.depth));
                    continue;
                }
                BarrierText::OpenClBlock
            }
            // The user's tile barriers are never instrumented; a tile variable is a new warp
            // site (CUDA only).
            (Scope::Tile { .. }, Language::Cuda) if v.kind != SiteKind::Existing => BarrierText::CudaWarp,
            (Scope::Tile { .. }, _) => continue,
        };
        let m = (v.weight, v.depth, v.scope == Scope::Grid);
        match (v.kind, on) {
            (SiteKind::Before, true) => out.push((Change::Insert { stmt: v.stmt, barrier }, m)),
            (SiteKind::End, true) => out.push((Change::InsertEnd { stmt: v.stmt, barrier }, m)),
            (SiteKind::Split, true) => out.push((Change::InsertSplit { stmt: v.stmt, barrier }, m)),
            (SiteKind::Existing, false) => out.push((Change::Remove { stmt: v.stmt }, m)),
            (SiteKind::Existing, true) => kept.push(v.stmt),
            _ => {}
        }
    }
    for ((stmt, kind), (local, global, weight, depth)) in opencl {
        let barrier = match (local, global) {
            (true, false) => BarrierText::OpenClLocal,
            (false, true) => BarrierText::OpenClGlobal,
            _ => BarrierText::OpenClBlock,
        };
        let c = match kind {
            SiteKind::Split => Change::InsertSplit { stmt, barrier },
            SiteKind::End => Change::InsertEnd { stmt, barrier },
            _ => Change::Insert { stmt, barrier },
        };
        out.push((c, (weight, depth, false)));
    }
    upgrades(inst, &mut out);
    (out, kept)
}

/// Turns the removal of an OpenCL barrier and the insertion of a barrier with more fences
/// right after it (nothing but blanks, `;` and comments between) into one [`Change::Upgrade`]
/// of the user's barrier: its flags are rewritten in place.
fn upgrades(inst: &Instrumented, out: &mut Vec<(Change, (u64, u32, bool))>) {
    if inst.kernel.language != Language::OpenCl {
        return;
    }
    let Some(text) = inst.kernel.main_file().text.as_deref() else { return };
    let stmts = &inst.kernel.stmts.stmts;
    let fences_of = |b: BarrierText| match b {
        BarrierText::OpenClLocal => (true, false),
        BarrierText::OpenClGlobal => (false, true),
        _ => (true, true),
    };
    let mut i = 0;
    while i < out.len() {
        let Change::Remove { stmt: e } = out[i].0 else {
            i += 1;
            continue;
        };
        let old = inst.vars.iter().find(|v| v.stmt == e && v.kind == SiteKind::Existing).map(|v| v.fences);
        let Some(syncfix_kir::Fences::Const { local: l0, global: g0 }) = old else {
            i += 1;
            continue;
        };
        let end = stmts[e].range.end;
        let next = out.iter().position(|(c, _)| match *c {
            Change::Insert { stmt, barrier } if !barrier.is_grid() => {
                let start = stmts[stmt].range.start;
                let (l, g) = fences_of(barrier);
                start >= end
                    && text.get(end..start).is_some_and(only_blanks_and_comments)
                    && (l || !l0)
                    && (g || !g0)
            }
            _ => false,
        });
        match next {
            Some(j) => {
                let Change::Insert { barrier, .. } = out[j].0 else { unreachable!("matched above") };
                out[i] = (Change::Upgrade { stmt: e, barrier }, out[j].1);
                out.remove(j);
                i = 0;
            }
            None => i += 1,
        }
    }
}

/// Whether `s` holds only whitespace, `;` and C comments.
fn only_blanks_and_comments(s: &str) -> bool {
    let mut rest = s;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ';');
        if rest.is_empty() {
            return true;
        }
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            match r.split_once("*/") {
                Some((_, after)) => rest = after,
                None => return false,
            }
        } else {
            return false;
        }
    }
}

/// A candidate barrier site, as plain data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Where the barrier would go: the anchor statement's 1-based line and column.
    pub line: u32,
    pub col: u32,
    /// `before` (a new barrier before the statement), `split` (between the read and the write
    /// of the assignment), `existing` (the user's barrier statement itself).
    pub kind: &'static str,
    /// `block` or `grid` (`tile` never occurs: tile barriers get no site).
    pub scope: &'static str,
    /// The memory the barrier would order: `local`, `global`, `local+global` (CUDA's barriers
    /// order both; an OpenCL site is offered with each), or `dynamic` (a user's barrier whose
    /// flags are computed at run time).
    pub fences: &'static str,
    pub depth: u32,
    pub weight: u64,
    pub in_callee: bool,
}

/// The candidate barrier sites of every kernel of a file (GPURepair's instrumentation).
pub fn sites(path: &Path, text: &str, opts: &Options) -> Result<Vec<Site>, Error> {
    let compiled = compile(path, text, &opts.frontend)?;
    let mut out = vec![];
    for k in &compiled.kernels {
        let inst = instrument(k, &opts.instrument);
        for v in &inst.vars {
            let (line, col) = k.main_file().line_col(inst.site_offset(v));
            out.push(Site {
                line,
                col,
                kind: match v.kind {
                    SiteKind::Before => "before",
                    SiteKind::Split => "split",
                    SiteKind::End => "end",
                    SiteKind::Existing => "existing",
                },
                scope: match v.scope {
                    Scope::Block => "block",
                    Scope::Grid => "grid",
                    Scope::Tile { .. } => "warp",
                },
                fences: match v.fences {
                    syncfix_kir::Fences::Const { local: true, global: false } => "local",
                    syncfix_kir::Fences::Const { local: false, global: true } => "global",
                    syncfix_kir::Fences::Const { .. } => "local+global",
                    syncfix_kir::Fences::Dynamic(_) => "dynamic",
                },
                depth: v.depth,
                weight: v.weight,
                in_callee: v.in_callee,
            });
        }
    }
    Ok(out)
}

/// Compiles and instruments a file, for `--emit=kir` / `--emit=instrumented` dumps.
pub fn dump(path: &Path, text: &str, opts: &Options, instrumented: bool) -> Result<String, Error> {
    let compiled = compile(path, text, &opts.frontend)?;
    let mut s = String::new();
    for k in &compiled.kernels {
        if instrumented {
            let inst = instrument(k, &opts.instrument);
            s.push_str(&format!("{}", inst.kernel));
            s.push_str("barrier variables:\n");
            s.push_str(&inst.describe_vars());
        } else {
            s.push_str(&format!("{k}"));
        }
    }
    Ok(s)
}
