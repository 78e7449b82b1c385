//! The result of `repair` and `audit` as data: what `syncfix repair --format json` and
//! `syncfix audit --format json` print, schema [`REPAIR_SCHEMA`] (GPURepair's summary file, as
//! data): how the run ended, each kernel, each change, the edits and the statistics.

use crate::text::TextEdit;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The schema of [`RepairSummary`], what `syncfix repair --format json` and
/// `syncfix audit --format json` print (GPURepair's summary file, as data).
pub const REPAIR_SCHEMA: &str = "syncfix.repair/1";

/// The result of `repair` or `audit` as data: how it ended, each change, the patch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepairSummary {
    /// [`REPAIR_SCHEMA`].
    pub schema: String,
    /// `repair` or `audit`.
    pub command: String,
    pub file: String,
    /// `repaired` (a change, re-verified), `no-change`, `not-verified` (audit of a kernel
    /// that does not verify), `assertion` (201), `other-error` (203), `unrepairable` (202),
    /// `unknown`, `timeout`, `not-reverified` (syncfix's bug, 203), `error`.
    pub status: String,
    pub exit_code: u8,
    /// Why, for every status but `repaired` and `no-change`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The result holds only up to this many loop iterations (not a proof); `null`: proved.
    pub bound: Option<u32>,
    /// `safe` (block barriers inserted, proved: `--apply` writes it), `unsafe` (a barrier
    /// removed), `cooperative-launch` (a grid barrier), `bounded` (not proved); `null` when
    /// nothing changes.
    pub applicability: Option<crate::Applicability>,
    /// Every change, in the order of the file.
    pub changes: Vec<ChangeSummary>,
    /// The unified diff, as printed in text mode; `null` when nothing changes.
    pub patch: Option<String>,
    /// The fix as text edits of the source as read (what an editor applies, what SARIF's
    /// `fixes` carry); empty when nothing changes. Non-overlapping, in the order of the file.
    #[serde(default)]
    pub edits: Vec<TextEdit>,
    /// Notes for the user (e.g. that the launch must become cooperative).
    pub notes: Vec<String>,
    /// Headlines of the findings that explain a failure.
    pub findings: Vec<String>,
    /// Each kernel of the file: how its repair (or audit) ended and its changes. A kernel that
    /// cannot be repaired does not drop the others' changes: `status` is then the first
    /// failing kernel's, and `edits` hold the changes of the kernels repaired.
    #[serde(default)]
    pub kernels: Vec<KernelRepairSummary>,
    pub stats: crate::Stats,
}

/// One kernel of a [`RepairSummary`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelRepairSummary {
    pub kernel: String,
    /// As [`RepairSummary::status`].
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// This kernel's changes (a change in a function several kernels call is listed under
    /// each).
    pub changes: Vec<ChangeSummary>,
    /// What the repair over-approximated, and when (`--verbose` prints it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<String>,
    /// Each verifier call of the repair loop: the sites on, the time, Houdini's rounds, the
    /// answer and whether its trace is exact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<crate::results::VerifierCallInfo>,
    /// The user's barriers (1-based lines) kept without being shown needed: the check without
    /// each gave no answer in its share of the time limit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undecided: Vec<u32>,
    /// The race or divergence of the kernel as written that the repair started from: its
    /// message, and whether a replay on concrete threads confirmed it (`reason`: why not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defect: Option<ReplayedDefect>,
    /// The lines of the barriers inserted that order only races or divergences a replay did
    /// not confirm ([`crate::KernelRepair::possible_only`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub possible_only: Vec<u32>,
}

/// A defect and its replay (issue 29).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayedDefect {
    pub message: String,
    pub confirmed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn change_summary(file: &str, c: &crate::ChangeInfo, bounded: bool) -> ChangeSummary {
    let applicability = if bounded { crate::Applicability::Bounded } else { c.applicability() };
    ChangeSummary {
        kind: c.kind.name().into(),
        applicability,
        file: file.into(),
        line: c.line,
        barrier: c.barrier.clone(),
        scope: c.scope.name().into(),
        weight: c.weight,
        loop_depth: c.loop_depth,
    }
}

/// One change of a [`RepairSummary`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeSummary {
    /// `insert`, `insert-split`, `insert-end`, `insert-wait`, `remove`, `upgrade`,
    /// `split-conditional` or `delay-return` ([`crate::ChangeInfo::kind`]).
    pub kind: String,
    /// This change's applicability: `safe` (a block or warp barrier inserted, fences
    /// strengthened, a wait), `unsafe` (a barrier removed, code restructured),
    /// `cooperative-launch` (a grid barrier) or `bounded` (the fix is not proved).
    pub applicability: crate::Applicability,
    pub file: String,
    /// 1-based line of the statement the change is anchored to.
    pub line: u32,
    /// The barrier inserted or the statement removed.
    pub barrier: String,
    /// `warp`, `block` or `grid`.
    pub scope: String,
    pub weight: u64,
    pub loop_depth: u32,
}

impl RepairSummary {
    /// The summary of a run that ended before a result: `status` is `error` (the command line,
    /// the file, the front end; `reason` says which and why) or `timeout`.
    pub fn failure(command: &str, file: &str, status: &str, reason: &str, exit_code: u8, total: Duration) -> Self {
        RepairSummary {
            schema: REPAIR_SCHEMA.into(),
            command: command.into(),
            file: file.into(),
            status: status.into(),
            exit_code,
            reason: Some(reason.trim_end().to_string()),
            bound: None,
            applicability: None,
            changes: vec![],
            patch: None,
            edits: vec![],
            notes: vec![],
            findings: vec![],
            kernels: vec![],
            stats: crate::Stats::default().with_total(total),
        }
    }

    /// The summary of `report` (`command`: `repair` or `audit`), with the diff `patch` and
    /// the run's `exit_code` and `total` time.
    pub fn of(command: &str, file: &str, report: &crate::RepairReport, patch: Option<String>, exit_code: u8, total: Duration) -> Self {
        let (status, reason) = (report.status.name(), report.status.reason().map(str::to_string));
        let applicability = report.level();
        RepairSummary {
            reason,
            bound: report.bounded,
            applicability,
            changes: report.changes.iter().map(|c| change_summary(file, c, report.bounded.is_some())).collect(),
            kernels: report
                .kernels
                .iter()
                .map(|k| KernelRepairSummary {
                    kernel: k.kernel.clone(),
                    status: k.status.name().into(),
                    reason: k.status.reason().map(str::to_string),
                    changes: k.changes.iter().map(|c| change_summary(file, c, report.bounded.is_some())).collect(),
                    log: k.log.clone(),
                    calls: k.calls.clone(),
                    undecided: k.undecided.clone(),
                    possible_only: k.possible_only.clone(),
                    defect: k.defect.as_ref().and_then(|f| {
                        let r = f.replay()?;
                        Some(ReplayedDefect { message: f.headline(), confirmed: r.confirmed, reason: r.reason.clone() })
                    }),
                })
                .collect(),
            edits: report.edits.clone(),
            patch,
            notes: report.notes.clone(),
            findings: report.findings.iter().map(|f| f.headline()).collect(),
            stats: report.timings.clone().with_total(total),
            ..RepairSummary::failure(command, file, status, "", exit_code, total)
        }
    }
}
