//! The verdict as data: what `syncfix verify --format json` prints, schema [`SCHEMA`].
//!
//! Plain serde types (the CLI serialises them; this crate never prints). One [`Verdict`] per
//! run: the file's status, one [`KernelVerdict`] per kernel with its defects, the error of a
//! run that gave no verdict, and the run's [`Stats`]. The README's "JSON verdict" section
//! documents every field with one example per status; a change of meaning bumps the version.

use crate::report::{AccessDesc, Check, Finding, Location, ThreadDesc};
use crate::{KernelReport, Stats, Status};
use serde::{Deserialize, Serialize};

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
    pub kernels: Vec<KernelVerdict>,
    /// Only with status `error`.
    pub error: Option<ErrorInfo>,
    /// What the front end assumed and could not check (`syncfix: warning:` in text).
    pub warnings: Vec<String>,
    pub stats: Stats,
}

/// The verdict on one kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelVerdict {
    pub kernel: String,
    pub status: Status,
    /// Status `unknown` or `timeout`: why.
    pub reason: Option<String>,
    /// Status `bounded`: the loop-unwinding bound within which nothing was found.
    pub bound: Option<u32>,
    /// The defects found (one, today), each with its accesses.
    pub defects: Vec<Defect>,
    /// The front end's notes on this kernel (where its launch came from, what was left out
    /// of the program to reach it).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A defect, as GPUVerify reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Defect {
    /// `race`, `divergence`, `assertion`, `precondition`, `postcondition`, `invariant`
    /// (a loop invariant), `barrier_invariant`, `null`, `bounds`, `constant_write`.
    pub kind: String,
    /// GPUVerify's first line: `possible write-read race on A[17]`.
    pub message: String,
    /// Races: `read-write`, `write-read`, `write-write`, `atomic-read`...
    pub race: Option<String>,
    /// Races and bounds: the array's source name.
    pub array: Option<String>,
    /// Races and bounds: where in the array.
    pub offset: Option<Offset>,
    /// The defect's location (a race: the second access), then the call sites it was
    /// inlined through.
    pub stack: Vec<Position>,
    /// The thread that fails an assertion or accesses out of bounds.
    pub thread: Option<Thread>,
    /// Races: the access logged first, then the conflicting one.
    pub accesses: Vec<Access>,
    /// Races and divergences: whether a concrete replay of the counterexample reproduced it
    /// (`true`: confirmed) or not (`false`: possible, see `reason`); absent where no replay
    /// ran (other defects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<bool>,
    /// A possible defect: why the replay did not reproduce it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A confirmed defect: how the replay reproduced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<ReplayWitness>,
}

/// How a concrete replay reproduced a race or a divergence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayWitness {
    /// A race's two threads (first and second access), or a divergence's thread that waits
    /// at the barrier and one that does not reach it.
    pub threads: Vec<Thread>,
    /// Whether those are the counterexample's threads (another pair reproduced it otherwise).
    pub trace_threads: bool,
    /// Races: where the accesses meet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Offset>,
    /// Races: for each access, the loops it ran in, outermost first.
    #[serde(default)]
    pub iterations: Vec<Vec<crate::report::LoopIteration>>,
    /// The kernel's scalar arguments the replay ran with.
    pub arguments: Vec<Argument>,
    /// The memory it started from that the verifier's model chose: each element not zero
    /// (`name` the element, `flag[1]`; `value` its bytes as an unsigned little-endian
    /// integer), at most 16; absent when the run started from zeros or a fill.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<Argument>,
    /// What the replay's search changed from the counterexample's inputs, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
}

/// A scalar argument's value (as an unsigned integer of the parameter's width).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Argument {
    pub name: String,
    pub value: u128,
}

/// A place in an array.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Offset {
    /// The element as printed: `A[17]`, `b[2][5]`, `q[3] (bytes 0..1)`.
    pub element: String,
    /// The byte offset from the array's start.
    pub byte: u64,
}

/// A source location (1-based line and column, clang's, as GPUVerify prints them) and the
/// range of the expression there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Position {
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// The range of the access's expression (or the statement's start), when the file's text
    /// is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<TextRange>,
}

/// One access of a race.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Access {
    /// `read`, `write` or `atomic`.
    pub kind: String,
    /// The access's location; `null` when it is made by a function without a body (GPUVerify:
    /// "from external source location").
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The range of the access's expression (`A[i + 1]`; for a store, its lvalue), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<TextRange>,
    pub thread: Thread,
    /// The call sites the access was inlined through, innermost first.
    pub stack: Vec<Position>,
}

/// A thread of a counterexample: ids per dimension x, y, z.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    /// `threadIdx` / `get_local_id`.
    pub local: [u32; 3],
    /// `blockIdx` / `get_group_id`.
    pub group: [u32; 3],
    /// `group * blockDim + local`.
    pub global: [u64; 3],
}

impl Thread {
    /// `thread 3 in block 0`, or `thread (3, 1, 0) in block (0, 2, 0)` when a y or z id is
    /// not 0: a short description for labels (SARIF, editors).
    pub fn describe(&self) -> String {
        let ids = |v: [u32; 3]| if v[1] == 0 && v[2] == 0 { v[0].to_string() } else { format!("({}, {}, {})", v[0], v[1], v[2]) };
        format!("thread {} in block {}", ids(self.local), ids(self.group))
    }
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
        let kernels: Vec<KernelVerdict> = reports.iter().map(kernel_verdict).collect();
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

    /// The verdict with every relative path (the file's, the defects' positions and accesses')
    /// taken as relative to `dir`: for a run made in another directory than the reader's.
    pub fn rebased(mut self, dir: &std::path::Path) -> Verdict {
        let re = |f: &mut String| {
            if std::path::Path::new(f.as_str()).is_relative() {
                *f = dir.join(&*f).display().to_string();
            }
        };
        re(&mut self.file);
        for d in self.kernels.iter_mut().flat_map(|k| k.defects.iter_mut()) {
            d.stack.iter_mut().for_each(|p| re(&mut p.file));
            for a in &mut d.accesses {
                a.file.iter_mut().for_each(re);
                a.stack.iter_mut().for_each(|p| re(&mut p.file));
            }
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

fn kernel_verdict(r: &KernelReport) -> KernelVerdict {
    let reason = match r.status {
        Status::Timeout => Some(r.reason.clone().unwrap_or_else(|| "the time limit was reached".into())),
        _ => r.reason.clone(),
    };
    KernelVerdict {
        kernel: r.kernel.clone(),
        status: r.status,
        reason,
        bound: r.bound,
        defects: r.findings.iter().map(defect).collect(),
        notes: r.notes.clone(),
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

fn position(l: &Location) -> Position {
    Position { file: l.file.clone(), line: l.line, column: l.col, range: l.range }
}

fn thread(t: &ThreadDesc) -> Thread {
    Thread { local: t.local, group: t.group, global: t.global() }
}

fn access(a: &AccessDesc) -> Access {
    let at = if a.external { None } else { a.at.first() };
    Access {
        kind: a.kind.to_ascii_lowercase(),
        file: at.map(|l| l.file.clone()),
        line: at.map(|l| l.line),
        column: at.map(|l| l.col),
        range: at.and_then(|l| l.range),
        thread: thread(&a.thread),
        stack: if a.external { vec![] } else { a.at.iter().skip(1).map(position).collect() },
    }
}

fn defect(f: &Finding) -> Defect {
    let mut d = Defect {
        kind: String::new(),
        message: f.headline(),
        race: None,
        array: None,
        offset: None,
        stack: vec![],
        thread: None,
        accesses: vec![],
        confirmed: None,
        reason: None,
        witness: None,
    };
    match f {
        Finding::Race { replay, .. } | Finding::Divergence { replay, .. } => {
            if let Some(r) = replay {
                d.confirmed = Some(r.confirmed);
                d.reason = r.reason.clone();
                d.witness = r.witness.as_ref().map(|w| ReplayWitness {
                    threads: w.threads.iter().map(thread).collect(),
                    trace_threads: w.trace_threads,
                    offset: w.element.clone().zip(w.offset).map(|(element, byte)| Offset { element, byte }),
                    iterations: w.iterations.to_vec(),
                    arguments: w.arguments.iter().map(|(name, value)| Argument { name: name.clone(), value: *value }).collect(),
                    memory: w.memory.iter().map(|(name, value)| Argument { name: name.clone(), value: *value }).collect(),
                    search: w.search.clone(),
                });
            }
        }
        _ => {}
    }
    match f {
        Finding::Race { race, array, object, offset, first, second, .. } => {
            d.kind = "race".into();
            d.race = Some(race.clone());
            d.array = Some(object.clone());
            d.offset = Some(Offset { element: array.clone(), byte: *offset });
            d.stack = second.at.iter().map(position).collect();
            d.accesses = vec![access(first), access(second)];
        }
        Finding::Divergence { at, .. } => {
            d.kind = "divergence".into();
            d.stack = at.iter().map(position).collect();
        }
        Finding::OutOfBounds { at, thread: t, array, object, offset } => {
            d.kind = "bounds".into();
            d.array = Some(object.clone());
            d.offset = Some(Offset { element: array.clone(), byte: *offset });
            d.stack = at.iter().map(position).collect();
            d.thread = Some(thread(t));
        }
        Finding::ConstantWrite { at, thread: t } => {
            d.kind = "constant_write".into();
            d.stack = at.iter().map(position).collect();
            d.thread = Some(thread(t));
        }
        Finding::Assertion { at, thread: t, kind } => {
            d.kind = match kind {
                Check::Assertion => "assertion",
                Check::Precondition => "precondition",
                Check::Postcondition => "postcondition",
                Check::InvariantOnEntry | Check::InvariantMaintained => "invariant",
                Check::BarrierInvariant => "barrier_invariant",
                Check::BarrierInvariantAccess => "barrier_invariant_access",
                Check::NullPointer => "null",
            }
            .into();
            d.stack = at.iter().map(position).collect();
            d.thread = Some(thread(t));
        }
    }
    d
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
        assert_eq!(v.kernels[1].defects[0].kind, "divergence");
    }
}
