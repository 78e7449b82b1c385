//! The results of the library's calls as plain data: the one status, repairs with their
//! edits, candidate sites (a kernel's verdict is `report.rs`'s). Nothing here names a stage's
//! type.

use crate::report::Finding;
use crate::text::TextEdit;
use crate::Stats;

/// The verdict on a kernel (and on a file: its first defect, else unknown, timeout, bounded,
/// verified): the one status of the library, the JSON verdict, SARIF and the editor.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A proof: no data race, barrier divergence or failing assertion.
    Verified,
    /// `--loop-unwind` / `--findbugs`: no defect within the unwinding bound; not a proof.
    Bounded,
    Race,
    Divergence,
    /// `__assert`, a write to constant memory, LLVM's `unreachable`.
    Assertion,
    /// A loop invariant (on entry or not maintained) or a barrier invariant.
    Invariant,
    /// A callee's `__requires`.
    Precondition,
    /// An `__ensures`.
    Postcondition,
    /// An access out of its array's bounds (`--check-array-bounds`).
    Bounds,
    /// An access through a pointer that may be null or point nowhere known.
    Null,
    /// No verdict; the reason says why.
    Unknown,
    /// The time limit (`--timeout`) was reached.
    Timeout,
    /// No verdict because of an error: the command line, clang, the front end.
    Error,
}

impl Status {
    /// Every status, in the order of the README.
    pub const ALL: [Status; 13] = [
        Status::Verified,
        Status::Bounded,
        Status::Race,
        Status::Divergence,
        Status::Assertion,
        Status::Invariant,
        Status::Precondition,
        Status::Postcondition,
        Status::Bounds,
        Status::Null,
        Status::Unknown,
        Status::Timeout,
        Status::Error,
    ];

    /// The exit code of a file whose kernels ended with `statuses` (GPUVerify's rule, one
    /// place for the CLI and the editor): [`crate::exit::NOT_ALL_VERIFIED`] (6) when a kernel
    /// has a defect or no verdict could be established, else [`crate::exit::TIMEOUT`] (7) when
    /// one timed out, else [`crate::exit::SUCCESS`] (0: verified, or nothing found up to the
    /// loop bound).
    pub fn exit_code(statuses: impl IntoIterator<Item = Status>) -> u8 {
        let (mut failed, mut timeout) = (false, false);
        for s in statuses {
            match s {
                Status::Timeout => timeout = true,
                Status::Verified | Status::Bounded => {}
                _ => failed = true,
            }
        }
        if failed {
            crate::exit::NOT_ALL_VERIFIED
        } else if timeout {
            crate::exit::TIMEOUT
        } else {
            crate::exit::SUCCESS
        }
    }

    /// The name in the JSON (`"race"`).
    pub fn name(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::Bounded => "bounded",
            Status::Race => "race",
            Status::Divergence => "divergence",
            Status::Assertion => "assertion",
            Status::Invariant => "invariant",
            Status::Precondition => "precondition",
            Status::Postcondition => "postcondition",
            Status::Bounds => "bounds",
            Status::Null => "null",
            Status::Unknown => "unknown",
            Status::Timeout => "timeout",
            Status::Error => "error",
        }
    }

    /// A defect was found (race, divergence, or a failing specification).
    pub fn is_defect(self) -> bool {
        !matches!(self, Status::Verified | Status::Bounded | Status::Unknown | Status::Timeout | Status::Error)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a repair ended (GPURepair's outcomes). In the JSON ([`crate::verdict::RepairSummary`]),
/// the string `status` ([`RepairStatus::name`]) and, for all but `repaired` and `no-change`, a
/// `reason` ([`RepairStatus::reason`]).
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

/// How safely a fix may be applied without review (Ruff's levels), ordered from the safest.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Only block (or warp) barriers are inserted, or fences strengthened: the patched kernel
    /// re-verifies as it is.
    Safe,
    /// A barrier is removed: the removal rests on the launch configuration and abstractions
    /// verified, so the user should review it.
    Unsafe,
    /// A grid barrier is inserted: the launch must become cooperative, outside this file.
    CooperativeLaunch,
    /// The patched kernel is checked only up to a loop-unwinding bound, not proved: the level
    /// of a whole fix or change found with `--loop-unwind` ([`RepairReport::level`]), never
    /// the fix's own ([`RepairReport::applicability`]).
    Bounded,
}

impl Applicability {
    /// The name in JSON, SARIF and the editor's quick fix (`safe`, `unsafe`,
    /// `cooperative-launch`, `bounded`).
    pub fn name(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
            Applicability::CooperativeLaunch => "cooperative-launch",
            Applicability::Bounded => "bounded",
        }
    }
}

impl std::fmt::Display for Applicability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One kernel's part of a repair or audit (the JSON's `kernels[]`, serialised with its report:
/// [`crate::verdict::RepairSummary`]).
#[derive(Clone, Debug)]
pub struct KernelRepair {
    pub kernel: String,
    /// How this kernel's repair ended: [`RepairStatus::Repaired`] when the fix holds changes
    /// for it, [`RepairStatus::NoChange`] when it needs none.
    pub status: RepairStatus,
    /// Findings that explain this kernel's failure.
    pub findings: Vec<Finding>,
    /// The changes the fix makes for this kernel (a change in a function that several
    /// kernels call is listed under each).
    pub changes: Vec<ChangeInfo>,
    /// What the repair over-approximated, and when (GPURepair's coarse clauses where a trace
    /// is not exact, widened clauses, the kernel's barriers kept): `--verbose` prints it.
    pub log: Vec<String>,
    /// Each verifier call of the repair loop, in order (`--stats` prints them).
    pub calls: Vec<VerifierCallInfo>,
    /// The user's barriers (1-based lines) kept without being shown needed: the check of the
    /// kernel without each gave no answer within its share of `--timeout` (or gave
    /// `unknown`). An audit's answer with such barriers is minimal among those checked, not
    /// proven of minimum weight.
    pub undecided: Vec<u32>,
    /// The race or divergence of the kernel as written that the repair started from, with
    /// its replay on concrete threads ([`Finding::replay`]): whether the barriers inserted
    /// order a race that was confirmed, or only a possible one.
    pub defect: Option<Finding>,
    /// The lines (1-based) of the barriers inserted for this kernel that order only races or
    /// divergences a replay on concrete threads did not confirm: every counterexample whose
    /// clause names the site was replayed and none was reproduced. A barrier to review: it
    /// may order a race that cannot happen.
    pub possible_only: Vec<u32>,
}

/// One verifier call of a repair or audit (issue 28: where the time goes).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VerifierCallInfo {
    /// The barrier sites on, each `LINE` (a new block barrier before or in that line's
    /// statement), `LINE existing` (the user's barrier), `LINE warp` or `LINE grid`.
    pub on: Vec<String>,
    /// Wall-clock milliseconds.
    pub ms: f64,
    pub houdini_rounds: u32,
    pub solver_calls: u32,
    /// Houdini's checks and queries answered from an earlier call's answers.
    pub reused: u32,
    /// `verified`, `no error up to the bound`, `race`, `divergence`, `assertion`, `defect`,
    /// `unknown` or `timeout`.
    pub outcome: String,
    /// For a defect: whether its trace is exact (replays under every barrier assignment, so
    /// its clause is exact too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
}

/// The result of `syncfix repair` or `syncfix audit` on one file.
///
/// Kernels are repaired one by one: a kernel that cannot be repaired does not drop the
/// others' changes. The fix ([`RepairReport::edits`]) then holds the changes of the kernels
/// that were repaired, re-verified on the patched text, while [`RepairReport::status`] is the
/// first failing kernel's (so the exit code says that the file is not fully repaired) and
/// [`RepairReport::kernels`] says which kernel ended how.
///
/// Serialised as schema `syncfix.repair/1` without the run's fields
/// ([`crate::verdict::RepairSummary`] adds them: the command, the file, the exit code, the
/// diff).
#[derive(Clone, Debug)]
pub struct RepairReport {
    /// [`RepairStatus::Repaired`] when every kernel verifies with the fix and some change
    /// was made; otherwise the first failing kernel's status (or [`RepairStatus::NoChange`]).
    pub status: RepairStatus,
    /// Each kernel of the file, in the file's order.
    pub kernels: Vec<KernelRepair>,
    /// The fix as non-overlapping edits of the source text, in its order (empty: no change).
    pub edits: Vec<TextEdit>,
    /// How safely the fix may be applied (`None`: no change).
    pub applicability: Option<Applicability>,
    /// Messages for the user about the fix (e.g. that the launch must become cooperative).
    pub notes: Vec<String>,
    /// The patched text (only when there are edits).
    pub patched: Option<String>,
    /// Findings that explain a failure (the assertion, the unrepairable race...).
    pub findings: Vec<Finding>,
    /// Barriers added / removed / whose OpenCL fences are strengthened in place, for the
    /// summary.
    pub inserted: usize,
    pub removed: usize,
    pub upgraded: usize,
    /// Places where the fix waits for OpenCL asynchronous copies (`wait_group_events`) before
    /// a barrier (inserted with it, or before the user's).
    pub waited: usize,
    /// Places restructured so that every thread reaches a barrier: a conditional split in two
    /// around it, or an early return moved past it (the user's barrier moved, or a place made
    /// for a new one).
    pub restructured: usize,
    pub timings: Stats,
    /// What the front end assumed and could not check (`syncfix: warning:` lines).
    pub assumptions: Vec<String>,
    /// The front end's notes on the file (`syncfix: note:` lines; see
    /// [`crate::KernelReport::notes`]), each once.
    pub frontend_notes: Vec<String>,
    /// The result holds only up to this many loop iterations (`--loop-unwind`, `--findbugs`):
    /// the repair, or "no change needed", is then not a proof.
    pub bounded: Option<u32>,
    /// The user's barrier statements the fix removes: 1-based line and the statement's text.
    pub removals: Vec<Removal>,
    /// Every change of the fix, in the order of the file.
    pub changes: Vec<ChangeInfo>,
}

/// One change of a fix, as plain data (for `--format json`, SARIF and editors; serialised with
/// its report: [`crate::verdict::RepairSummary`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeInfo {
    /// What the change does.
    pub kind: ChangeKind,
    /// 1-based line of the statement the change is anchored to.
    pub line: u32,
    /// The barrier statement inserted, or the statement removed, as text.
    pub barrier: String,
    /// The threads the barrier orders.
    pub scope: BarrierScope,
    /// GPURepair's weight of the barrier variable (`sw*lw^depth + gw*[grid]`, GPURepair,
    /// VMCAI 2021, §2.3).
    pub weight: u64,
    /// Loop nesting depth of the site.
    pub loop_depth: u32,
}

impl ChangeInfo {
    /// This change's own applicability, in the levels of the fix's (Ruff's):
    /// [`Applicability::Unsafe`] for a removal or a restructuring,
    /// [`Applicability::CooperativeLaunch`] for a grid barrier, else [`Applicability::Safe`] (a
    /// block or warp barrier inserted, fences strengthened, a wait). Never
    /// [`Applicability::Bounded`]: a fix found with a loop bound is bounded as a whole
    /// ([`RepairReport::bounded`]), and so is each of its changes in the JSON.
    pub fn applicability(&self) -> Applicability {
        match (self.kind, self.scope) {
            (ChangeKind::Remove | ChangeKind::SplitConditional | ChangeKind::DelayReturn, _) => Applicability::Unsafe,
            (_, BarrierScope::Grid) => Applicability::CooperativeLaunch,
            _ => Applicability::Safe,
        }
    }
}

/// What a change of a fix does ([`ChangeInfo::kind`]); its name in the JSON is the kebab-case
/// one ([`ChangeKind::name`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// `insert`: a barrier before a statement.
    Insert,
    /// `insert-split`: a barrier between the read and the write of an assignment, through a
    /// temporary.
    InsertSplit,
    /// `insert-step`: a barrier inside a `memcpy` call, which is printed as a copy in steps.
    InsertStep,
    /// `insert-end`: a barrier at the end of a loop body, before its `}`.
    InsertEnd,
    /// `insert-wait`: OpenCL `wait_group_events` for the asynchronous copies pending there,
    /// then a barrier unless it stands before the user's ([`ChangeInfo::barrier`] holds the
    /// statements).
    InsertWait,
    /// `remove`: the user's barrier statement removed.
    Remove,
    /// `upgrade`: an OpenCL barrier's flags rewritten in place ([`ChangeInfo::barrier`] is the
    /// new statement).
    Upgrade,
    /// `split-conditional`: the `if` at [`ChangeInfo::line`] split in two;
    /// [`ChangeInfo::barrier`] is the user's barrier moved between the halves, empty when the
    /// place between them takes a new barrier; weight 0.
    SplitConditional,
    /// `delay-return`: the early return at [`ChangeInfo::line`] moved past the barrier, or past
    /// the loop that holds it, the statements before it guarded.
    DelayReturn,
}

impl ChangeKind {
    /// The name in JSON and SARIF (`insert`, `insert-split`, `insert-step`, `insert-end`,
    /// `insert-wait`, `remove`, `upgrade`, `split-conditional`, `delay-return`).
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Insert => "insert",
            ChangeKind::InsertSplit => "insert-split",
            ChangeKind::InsertStep => "insert-step",
            ChangeKind::InsertEnd => "insert-end",
            ChangeKind::InsertWait => "insert-wait",
            ChangeKind::Remove => "remove",
            ChangeKind::Upgrade => "upgrade",
            ChangeKind::SplitConditional => "split-conditional",
            ChangeKind::DelayReturn => "delay-return",
        }
    }
}

impl std::fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The threads a barrier orders; its name in the JSON is the lowercase one
/// ([`BarrierScope::name`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BarrierScope {
    /// The lanes of one warp (`__syncwarp();`).
    Warp,
    /// A block (CUDA) or work-group (OpenCL): `__syncthreads();`, `barrier(...)`.
    Block,
    /// The whole grid (`cooperative_groups::this_grid().sync();`): the launch must be
    /// cooperative.
    Grid,
}

impl BarrierScope {
    /// The name in JSON and SARIF (`warp`, `block`, `grid`).
    pub fn name(self) -> &'static str {
        match self {
            BarrierScope::Warp => "warp",
            BarrierScope::Block => "block",
            BarrierScope::Grid => "grid",
        }
    }
}

impl std::fmt::Display for BarrierScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A barrier statement that a fix removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// 1-based line of the statement in the user's file.
    pub line: u32,
    /// The statement as written (e.g. `__syncthreads();`).
    pub text: String,
}

impl RepairStatus {
    /// Whether the kernel verifies after the repair: [`RepairStatus::Repaired`] or
    /// [`RepairStatus::NoChange`].
    pub fn succeeded(&self) -> bool {
        matches!(self, RepairStatus::Repaired | RepairStatus::NoChange)
    }

    /// The name in the JSON's `status` and SARIF: `repaired`, `no-change`, `not-verified`,
    /// `assertion`, `other-error`, `unrepairable`, `unknown`, `timeout` or `not-reverified`.
    pub fn name(&self) -> &'static str {
        match self {
            RepairStatus::Repaired => "repaired",
            RepairStatus::NoChange => "no-change",
            RepairStatus::NotVerified => "not-verified",
            RepairStatus::AssertionFailure => "assertion",
            RepairStatus::OtherError => "other-error",
            RepairStatus::Unrepairable(_) => "unrepairable",
            RepairStatus::Unknown(_) => "unknown",
            RepairStatus::Timeout => "timeout",
            RepairStatus::NotReverified(_) => "not-reverified",
        }
    }

    /// Why, in a sentence, for every status but [`RepairStatus::Repaired`] and
    /// [`RepairStatus::NoChange`] (`None`): the variant's own reason, else a fixed one. The
    /// JSON's `reason`.
    pub fn reason(&self) -> Option<&str> {
        match self {
            RepairStatus::Repaired | RepairStatus::NoChange => None,
            RepairStatus::NotVerified => Some("the kernel does not verify"),
            RepairStatus::AssertionFailure => Some("an assertion fails even with a barrier at every candidate site (statement boundaries, loop heads, branches, calls); no barrier placement syncfix considers repairs it"),
            RepairStatus::OtherError => Some("a defect that barriers cannot repair"),
            RepairStatus::Unrepairable(r) | RepairStatus::Unknown(r) | RepairStatus::NotReverified(r) => Some(r),
            RepairStatus::Timeout => Some("the time limit (--timeout) was reached"),
        }
    }
}

impl RepairReport {
    /// The fix's level as the JSON summary, SARIF and the editor give it:
    /// [`Applicability::Bounded`] when it holds only up to a loop bound, else
    /// [`RepairReport::applicability`] (`None`: nothing changes).
    pub fn level(&self) -> Option<Applicability> {
        self.applicability.map(|a| if self.bounded.is_some() { Applicability::Bounded } else { a })
    }

    /// Whether `--apply` may write the fix without `--unsafe-fixes` or `--bounded-fixes` (Ruff's
    /// rule): only a [`Applicability::Safe`] fix (block barriers inserted) that is proved, not
    /// bounded.
    pub fn applies_safely(&self) -> bool {
        self.bounded.is_none() && self.applicability == Some(Applicability::Safe)
    }

    /// Why `--apply` needs `--bounded-fixes` for this fix: it is checked only up to a loop
    /// bound, not proved (None: it is proved).
    pub fn bounded_reason(&self) -> Option<String> {
        self.bounded.map(|n| format!("the patched kernel is checked only up to {n} loop iterations (not a proof)"))
    }

    /// Why `--apply` needs `--unsafe-fixes` for this fix (None: it does not): it removes a
    /// barrier, inserts a grid barrier or restructures the code. (A bounded fix needs
    /// `--bounded-fixes` as well: [`RepairReport::bounded_reason`].)
    pub fn unsafe_reason(&self) -> Option<String> {
        match self.applicability? {
            Applicability::Safe => None,
            Applicability::Unsafe if self.restructured > 0 => {
                Some("it restructures the code (a conditional split in two, or an early return moved, around a barrier), which deserves a review".into())
            }
            Applicability::Unsafe => Some("it removes a barrier, which rests on the launch configuration and abstractions verified".into()),
            Applicability::CooperativeLaunch => Some("it inserts a grid barrier, which needs a cooperative launch outside this file".into()),
            Applicability::Bounded => None,
        }
    }
}

/// A candidate barrier site, as plain data.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Site {
    /// Where the barrier would go: the anchor statement's 1-based line and column.
    pub line: u32,
    pub col: u32,
    /// `before` (a new barrier before the statement), `split` (between the read and the write
    /// of the assignment), `existing` (the user's barrier statement itself).
    pub kind: &'static str,
    /// The threads the barrier would order: a block, the grid, or a warp (a CUDA block of more
    /// than one warp, unless `--no-warp-barriers`).
    pub scope: BarrierScope,
    /// The memory the barrier would order: `local`, `global`, `local+global` (CUDA's barriers
    /// order both; an OpenCL site is offered with each), or `dynamic` (a user's barrier whose
    /// flags are computed at run time).
    pub fences: &'static str,
    pub depth: u32,
    pub weight: u64,
    pub in_callee: bool,
}

#[cfg(test)]
mod name_tests {
    use super::{BarrierScope, ChangeKind};

    #[test]
    fn the_json_names_are_the_serde_names() {
        use ChangeKind as K;
        let kinds = [
            K::Insert,
            K::InsertSplit,
            K::InsertStep,
            K::InsertEnd,
            K::InsertWait,
            K::Remove,
            K::Upgrade,
            K::SplitConditional,
            K::DelayReturn,
        ];
        for k in kinds {
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{}\"", k.name()));
            assert_eq!(serde_json::from_str::<ChangeKind>(&format!("\"{k}\"")).unwrap(), k);
        }
        for s in [BarrierScope::Warp, BarrierScope::Block, BarrierScope::Grid] {
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{}\"", s.name()));
            assert_eq!(serde_json::from_str::<BarrierScope>(&format!("\"{s}\"")).unwrap(), s);
        }
    }
}

#[cfg(test)]
mod exit_code_tests {
    use super::Status;
    use crate::exit;

    #[test]
    fn a_defect_or_unknown_outranks_a_timeout_which_outranks_success() {
        let code = |s: &[Status]| Status::exit_code(s.iter().copied());
        assert_eq!(code(&[]), exit::SUCCESS);
        assert_eq!(code(&[Status::Verified, Status::Bounded]), exit::SUCCESS);
        assert_eq!(code(&[Status::Verified, Status::Timeout]), exit::TIMEOUT);
        assert_eq!(code(&[Status::Timeout, Status::Race]), exit::NOT_ALL_VERIFIED);
        assert_eq!(code(&[Status::Unknown, Status::Timeout]), exit::NOT_ALL_VERIFIED);
    }
}
