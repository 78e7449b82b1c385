//! The entry point for editors and other tools that want plain data: one call gives the
//! verdict (for diagnostics) and the quick fix (text edits), and errors come as an
//! [`ErrorReport`]. The language server (`syncfix lsp`) is built on it.

use crate::verdict::{TextEdit, Verdict};
use crate::{ChangeKind, RepairReport, RepairStatus, Status};
use crate::{ErrorReport, Options};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// What [`analyse`] found in one file.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The verdict on every kernel of the file, as `syncfix verify --format json` prints it
    /// (its `exit_code` is the one `verify` would give).
    pub verdict: Verdict,
    /// The repair of a file with a defect, or the audit's removals on a file that verifies:
    /// `None` when there is nothing to change or no change could be made (`note` says why).
    pub fix: Option<QuickFix>,
    /// Why a file with a defect has no fix, or only a fix of some of its kernels (the repair's
    /// reason for the first kernel it could not repair), else `None`.
    pub note: Option<String>,
}

/// A fix an editor can offer: apply [`QuickFix::edits`] to the text that was analysed.
#[derive(Clone, Debug, Serialize)]
pub struct QuickFix {
    /// `Insert barriers (syncfix repair: 1 change, re-verified)` or `Remove unneeded barriers
    /// (syncfix audit, re-verified)`: a quick fix's title.
    pub title: String,
    /// `repair` or `audit`.
    pub command: String,
    /// The fix's level ([`RepairReport::level`]).
    pub applicability: crate::Applicability,
    /// Non-overlapping edits of the analysed text, in its order.
    pub edits: Vec<TextEdit>,
    /// The whole result: each kernel's status, each change with its line and weight (serialised
    /// as `--format json` prints it, without the run's fields).
    pub report: RepairReport,
}

/// Verifies `text` (the kernel file `path` as the editor holds it: the file on disk is not
/// read) and prepares the fix: the repair (GPURepair's method, its patch re-verified) when a
/// kernel has a race or diverges, the audit (the barriers the kernel does not need) when every
/// kernel verifies.
///
/// [`Options::cancel`], when given, is checked between the stages, between the repair's
/// iterations and before each solver call: once it is set the call returns `Err` with stage
/// [`crate::ErrorStage::Cancelled`]. [`Options::timeout`] counts from this call's start and
/// covers both the verdict and the fix.
///
/// Errors: what stops the verdict (clang, the front end, the time limit, a cancellation) as an
/// [`ErrorReport`]: exit code, stage, message, line.
///
/// ```
/// use std::path::Path;
/// let text = "__global__ void k(int *A) {\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t;\n}\n";
/// let opts = syncfix::Options::new(syncfix::Launch::new([64, 1, 1], [1, 1, 1]));
/// let a = syncfix::analyse(Path::new("race.cu"), text, &opts).expect("a verdict");
/// assert_eq!(a.verdict.status, syncfix::Status::Race);
/// let fix = a.fix.expect("a quick fix");
/// assert_eq!(fix.applicability, syncfix::Applicability::Safe);
/// let patched = syncfix::apply_edits(text, &fix.edits);
/// assert!(patched.contains("__syncthreads();"), "{patched}");
/// ```
pub fn analyse(path: &Path, text: &str, opts: &Options) -> Result<Analysis, ErrorReport> {
    analyse_with(path, text, opts, &mut |_| {})
}

/// [`analyse`], calling `on_verdict` with the verdict (an [`Analysis`] without its fix) as
/// soon as it is known, before the repair or the audit runs: an editor shows the diagnostics
/// then, and the quick fix when this returns (`syncfix lsp`). Not called when there is no fix
/// to look for (the verdict is then the answer).
///
/// Errors: as [`analyse`].
pub fn analyse_with(path: &Path, text: &str, opts: &Options, on_verdict: &mut dyn FnMut(&Analysis)) -> Result<Analysis, ErrorReport> {
    let started = Instant::now();
    // One time limit for the verdict and the fix.
    let mut opts = opts.clone();
    let deadline = opts.timeout.map(|t| started + t);
    let file = path.display().to_string();
    let (reports, timings) = crate::verify(path, text, &opts)?;
    let any_defect = reports.iter().any(|r| r.status.is_defect());
    let code = crate::Status::exit_code(reports.iter().map(|r| r.status));
    let verdict = Verdict::of_reports(&file, &reports, timings.clone().with_total(started.elapsed()), code);
    if opts.cancelled() {
        return Err(ErrorReport::cancelled());
    }
    let mut analysis = Analysis { verdict, fix: None, note: None };
    let command = if any_defect {
        "repair"
    } else if analysis.verdict.kernels.iter().all(|k| k.status == Status::Verified) && !analysis.verdict.kernels.is_empty() {
        "audit"
    } else {
        return Ok(analysis);
    };
    on_verdict(&analysis);
    let run = if command == "repair" { crate::repair } else { crate::audit };
    opts.timeout = deadline.map(|d| d.saturating_duration_since(Instant::now()));
    let report = run(path, text, &opts)?;
    let repaired = matches!(report.status, RepairStatus::Repaired);
    if command == "repair" && !repaired {
        analysis.note = report.status.reason().map(str::to_string);
    }
    // A fix of some kernels beside one that failed is still offered (its edits re-verified),
    // and `note` says what is left.
    if !report.edits.is_empty() {
        let n = report.changes.len();
        let fixed: Vec<String> =
            report.kernels.iter().filter(|k| matches!(k.status, RepairStatus::Repaired)).map(|k| format!("`{}`", k.kernel)).collect();
        let title = if command == "repair" && !repaired {
            format!("Insert barriers in {} (syncfix repair: {n} change{}, re-verified)", fixed.join(", "), if n == 1 { "" } else { "s" })
        } else if command == "repair"
            && report.changes.iter().any(|c| matches!(c.kind, ChangeKind::SplitConditional | ChangeKind::DelayReturn))
        {
            format!(
                "Restructure so that every thread reaches the barrier (syncfix repair: {n} change{}, re-verified)",
                if n == 1 { "" } else { "s" }
            )
        } else if command == "repair" {
            format!("Insert barriers (syncfix repair: {n} change{}, re-verified)", if n == 1 { "" } else { "s" })
        } else {
            format!("Remove unneeded barriers (syncfix audit: {n} barrier{}, re-verified)", if n == 1 { "" } else { "s" })
        };
        analysis.fix = Some(QuickFix {
            title,
            command: command.into(),
            applicability: report.level().unwrap_or(crate::Applicability::Safe),
            edits: report.edits.clone(),
            report,
        });
    }
    Ok(analysis)
}

/// `text` with `edits` (non-overlapping, as [`QuickFix::edits`]) applied.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.start.byte));
    let mut out = text.to_string();
    for e in sorted {
        out.replace_range(e.start.byte..e.end.byte, &e.replacement);
    }
    out
}
