//! The verdict as data: what `syncfix verify --format json` prints, schema [`SCHEMA`].
//!
//! One [`Verdict`] per run (the CLI serialises it; this crate never prints): the file's
//! status, each kernel's [`KernelReport`] with its [`Finding`]s, the error of a run that gave
//! no verdict, and the run's [`Stats`]. No second set of types: the library's own reports are
//! serialised in the schema's shape (`json.rs`) and read back from it. The README's "JSON
//! verdict" section documents every field with one example per status; a change of meaning
//! bumps the version.

use crate::report::{Check, Finding, Location};
use crate::{KernelReport, Stats, Status};
use serde::{Deserialize, Serialize};

mod json;
mod repair;
pub use crate::text::{TextEdit, TextPoint, TextRange};
pub use repair::{RepairSummary, REPAIR_SCHEMA};

/// The schema's name and version, the value of [`Verdict::schema`].
pub const SCHEMA: &str = "syncfix.verdict/1";

/// The verdict on one file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// [`SCHEMA`].
    pub schema: String,
    /// The file as given on the command line.
    pub file: String,
    /// The first defect of the kernels (in file order), else `unknown`, `timeout`, `bounded`,
    /// `verified` in that order of precedence; `error` when there is no verdict.
    pub status: Status,
    /// The process's exit code (GPUVerify's).
    pub exit_code: u8,
    /// Why the status is `unknown` or `timeout` (the first such kernel's reason).
    pub reason: Option<String>,
    /// Each kernel's report, in the file's order. In JSON each is `kernel`, `status`,
    /// `reason` (a timeout's says that the time limit was reached), `bound`, `defects` (its
    /// findings) and `notes`; read back, a report has no assumptions (they are the verdict's
    /// `warnings`) and no argument values.
    pub kernels: Vec<KernelReport>,
    /// Only with status `error`.
    pub error: Option<ErrorInfo>,
    /// What the front end assumed and could not check (`syncfix: warning:` in text).
    pub warnings: Vec<String>,
    pub stats: Stats,
}

/// Why a run gave no verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorInfo {
    /// `command_line`, `clang`, `frontend`, `vcgen`, `internal`.
    pub stage: String,
    /// The exit code (also [`Verdict::exit_code`]).
    pub exit_code: u8,
    /// The message as printed on stderr.
    pub message: String,
}

impl Verdict {
    /// The verdict of `syncfix verify` on `file` from its kernels' reports.
    pub fn of_reports(file: &str, reports: &[KernelReport], stats: Stats, exit_code: u8) -> Verdict {
        // Each kernel as the JSON gives it: a timeout says why.
        let kernels: Vec<KernelReport> = reports.iter().map(|r| KernelReport { reason: json::reason(r), ..r.clone() }).collect();
        let first = |f: &dyn Fn(Status) -> bool| kernels.iter().find(|k| f(k.status));
        let pick = first(&|s| s.is_defect())
            .or_else(|| first(&|s| s == Status::Unknown))
            .or_else(|| first(&|s| s == Status::Timeout))
            .or_else(|| first(&|s| s == Status::Bounded));
        let (status, reason) = match pick {
            Some(k) => (k.status, k.reason.clone()),
            None if kernels.is_empty() => (Status::Unknown, Some("no kernel was verified".into())),
            None => (Status::Verified, None),
        };
        Verdict {
            schema: SCHEMA.into(),
            file: file.into(),
            status,
            exit_code,
            reason,
            kernels,
            error: None,
            warnings: reports.iter().flat_map(|r| r.assumptions.iter().cloned()).collect(),
            stats,
        }
    }

    /// A run that gave no verdict: `stage` (see [`ErrorInfo::stage`]), exit code, message.
    pub fn error(file: &str, stage: &str, exit_code: u8, message: &str, stats: Stats) -> Verdict {
        Verdict {
            error: Some(ErrorInfo { stage: stage.into(), exit_code, message: message.trim_end().into() }),
            ..Verdict::bare(file, Status::Error, exit_code, None, stats)
        }
    }

    /// A run stopped by its time limit before any kernel's verdict.
    pub fn timeout(file: &str, exit_code: u8, reason: &str, stats: Stats) -> Verdict {
        Verdict::bare(file, Status::Timeout, exit_code, Some(reason.into()), stats)
    }

    /// The verdict with every relative path (the file's, the findings' locations) taken as
    /// relative to `dir`: for a run made in another directory than the reader's.
    pub fn rebased(mut self, dir: &std::path::Path) -> Verdict {
        let re = |f: &mut String| {
            if std::path::Path::new(f.as_str()).is_relative() {
                *f = dir.join(&*f).display().to_string();
            }
        };
        re(&mut self.file);
        for f in self.kernels.iter_mut().flat_map(|k| k.findings.iter_mut()) {
            let at: Vec<&mut Location> = match f {
                Finding::Race { first, second, .. } => first.at.iter_mut().chain(&mut second.at).collect(),
                Finding::Divergence { at, .. }
                | Finding::Assertion { at, .. }
                | Finding::ConstantWrite { at, .. }
                | Finding::OutOfBounds { at, .. } => at.iter_mut().collect(),
            };
            at.into_iter().for_each(|l| re(&mut l.file));
        }
        self
    }

    fn bare(file: &str, status: Status, exit_code: u8, reason: Option<String>, stats: Stats) -> Verdict {
        Verdict {
            schema: SCHEMA.into(),
            file: file.into(),
            status,
            exit_code,
            reason,
            kernels: vec![],
            error: None,
            warnings: vec![],
            stats,
        }
    }
}

/// The status a finding gives its kernel. A barrier invariant counts as an invariant, a write
/// to constant memory as an assertion (GPUVerify reports both as errors of the kernel).
pub fn status_of(f: &Finding) -> Status {
    match f {
        Finding::Race { .. } => Status::Race,
        Finding::Divergence { .. } => Status::Divergence,
        Finding::OutOfBounds { .. } => Status::Bounds,
        Finding::ConstantWrite { .. } => Status::Assertion,
        Finding::Assertion { kind, .. } => match kind {
            Check::Assertion => Status::Assertion,
            Check::Precondition => Status::Precondition,
            Check::Postcondition => Status::Postcondition,
            Check::InvariantOnEntry | Check::InvariantMaintained | Check::BarrierInvariant | Check::BarrierInvariantAccess => {
                Status::Invariant
            }
            Check::NullPointer => Status::Null,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_serialise_by_their_names() {
        for s in Status::ALL {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.name()));
            assert_eq!(serde_json::from_str::<Status>(&json).unwrap(), s);
        }
    }

    #[test]
    fn the_file_status_is_the_first_defect_then_unknown_timeout_bounded() {
        let k = KernelReport::bare;
        let bounded = KernelReport { bound: Some(2), ..k("b", Status::Bounded) };
        let v = Verdict::of_reports("a.cu", &[k("a", Status::Verified), bounded], Stats::default(), 0);
        assert_eq!(v.status, Status::Bounded);
        assert_eq!(v.kernels[1].bound, Some(2));
        let unknown = |name: &str, why: &str| KernelReport { reason: Some(why.into()), ..k(name, Status::Unknown) };
        let v = Verdict::of_reports("a.cu", &[k("a", Status::Timeout), unknown("b", "why")], Stats::default(), 6);
        assert_eq!((v.status, v.reason.as_deref()), (Status::Unknown, Some("why")));
        let div = KernelReport { findings: vec![Finding::Divergence { at: vec![], replay: None }], ..k("c", Status::Divergence) };
        let v = Verdict::of_reports("a.cu", &[unknown("a", "x"), div], Stats::default(), 6);
        assert_eq!(v.status, Status::Divergence);
        assert_eq!(v.kernels[1].findings[0].kind(), "divergence");
    }
}
