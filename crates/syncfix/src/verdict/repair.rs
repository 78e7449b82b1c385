//! The result of `repair` and `audit` as JSON: what `syncfix repair --format json` and
//! `syncfix audit --format json` print, schema [`REPAIR_SCHEMA`] (GPURepair's summary file, as
//! data): how the run ended, each kernel, each change, the edits and the statistics.
//!
//! No second set of types: the library's own [`RepairReport`], [`KernelRepair`],
//! [`ChangeInfo`] and [`RepairStatus`](crate::RepairStatus) are serialised here, and
//! [`RepairSummary`] borrows a report and adds what belongs to the run (the command, the file,
//! the exit code, the diff, the total time).

use crate::report::{Finding, Replay};
use crate::results::{ChangeInfo, KernelRepair, RepairReport};
use crate::{Applicability, Stats, Status};
use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use std::time::Duration;

/// The schema of [`RepairSummary`], what `syncfix repair --format json` and
/// `syncfix audit --format json` print (GPURepair's summary file, as data).
pub const REPAIR_SCHEMA: &str = "syncfix.repair/1";

/// What `syncfix repair --format json` and `syncfix audit --format json` print, schema
/// [`REPAIR_SCHEMA`], and what [`crate::sarif::of_repair`] reads: a [`RepairReport`] (or why the
/// run ended without one) with the run around it.
///
/// Serialised as one object with, in this order (the README's "JSON repair summary"):
/// `schema`, `command`, `file`, `status` ([`crate::RepairStatus::name`], or `error` /
/// `timeout` for a run without a report), `exit_code`, `reason` (absent when there is none),
/// `bound`, `applicability` ([`RepairReport::level`]), `changes` (each [`ChangeInfo`] with its
/// `applicability`, `bounded` when the fix is, and this `file`), `patch`, `edits`, `notes`,
/// `findings` (their headlines), `kernels` (each [`KernelRepair`]) and `stats` (with this
/// run's total time). A [`RepairReport`] serialised on its own gives the same object without
/// the run's fields (`schema`, `command`, `file`, `exit_code`, `patch`, each change's `file`).
#[derive(Clone, Copy, Debug)]
pub struct RepairSummary<'a> {
    /// `repair` or `audit`.
    pub command: &'a str,
    /// The file as given on the command line (each change's `file` too).
    pub file: &'a str,
    /// The run's exit code ([`crate::exit`]).
    pub exit_code: u8,
    /// The report, or how the run ended before one: [`Status::Error`] (the command line, the
    /// file, the front end, a crash) or [`Status::Timeout`], with the message (the JSON's
    /// `reason`, without its trailing newline).
    pub outcome: Result<&'a RepairReport, (Status, &'a str)>,
    /// The unified diff, as text mode prints it (`None`: nothing changes, or no diff was made).
    pub patch: Option<&'a str>,
    /// The run's wall-clock time: the `stats`' `total_ms`.
    pub total: Duration,
}

impl<'a> RepairSummary<'a> {
    /// The summary of a run that ended before a result: `status` is [`Status::Error`] (the
    /// command line, the file, the front end; `reason` says which and why) or
    /// [`Status::Timeout`].
    pub fn failure(command: &'a str, file: &'a str, status: Status, reason: &'a str, exit_code: u8, total: Duration) -> Self {
        RepairSummary { command, file, exit_code, outcome: Err((status, reason)), patch: None, total }
    }

    /// The summary of `report` (`command`: `repair` or `audit`), with the diff `patch` and
    /// the run's `exit_code` and `total` time.
    pub fn of(command: &'a str, file: &'a str, report: &'a RepairReport, patch: Option<&'a str>, exit_code: u8, total: Duration) -> Self {
        RepairSummary { command, file, exit_code, outcome: Ok(report), patch, total }
    }
}

impl Serialize for RepairSummary<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.outcome {
            Ok(r) => write(s, Some(r), (r.status.name(), r.status.reason()), &r.timings.clone().with_total(self.total), Some(self)),
            Err((status, reason)) => {
                write(s, None, (status.name(), Some(reason.trim_end())), &Stats::default().with_total(self.total), Some(self))
            }
        }
    }
}

/// The object of [`RepairSummary`] without the run's fields: `status`, `reason` (absent when
/// none), `bound`, `applicability`, `changes`, `edits`, `notes`, `findings`, `kernels` and
/// `stats` ([`RepairReport::timings`]).
impl Serialize for RepairReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write(s, Some(self), (self.status.name(), self.status.reason()), &self.timings, None)
    }
}

/// The fields of schema `syncfix.repair/1`: `report`'s (`None`: a run that ended before a
/// report, every list empty) with `status` and `reason`, and `run`'s where there is one.
fn write<S: Serializer>(
    s: S,
    report: Option<&RepairReport>,
    (status, reason): (&str, Option<&str>),
    stats: &Stats,
    run: Option<&RepairSummary>,
) -> Result<S::Ok, S::Error> {
    let bounded = report.and_then(|r| r.bounded);
    let ctx = Context { file: run.map(|r| r.file), bounded: bounded.is_some() };
    let changes = report.map_or(&[][..], |r| &r.changes);
    let kernels = report.map_or(&[][..], |r| &r.kernels);
    let findings = report.map_or(&[][..], |r| &r.findings);
    let mut m = s.serialize_struct("RepairSummary", 15)?;
    if let Some(run) = run {
        m.serialize_field("schema", REPAIR_SCHEMA)?;
        m.serialize_field("command", run.command)?;
        m.serialize_field("file", run.file)?;
    }
    m.serialize_field("status", status)?;
    if let Some(run) = run {
        m.serialize_field("exit_code", &run.exit_code)?;
    }
    if let Some(reason) = reason {
        m.serialize_field("reason", reason)?;
    }
    m.serialize_field("bound", &bounded)?;
    m.serialize_field("applicability", &report.and_then(RepairReport::level))?;
    m.serialize_field("changes", &Seq(changes.iter().map(|c| InReport(c, ctx))))?;
    if let Some(run) = run {
        m.serialize_field("patch", &run.patch)?;
    }
    m.serialize_field("edits", report.map_or(&[][..], |r| &r.edits))?;
    m.serialize_field("notes", report.map_or(&[][..], |r| &r.notes))?;
    m.serialize_field("findings", &Seq(findings.iter().map(Finding::headline)))?;
    m.serialize_field("kernels", &Seq(kernels.iter().map(|k| InReport(k, ctx))))?;
    m.serialize_field("stats", stats)?;
    m.end()
}

/// What a change or a kernel's part is serialised with: the run's file (each change's `file`;
/// `None` for a report on its own) and whether the fix holds only up to a loop bound (each
/// change's `applicability` is then `bounded`).
#[derive(Clone, Copy)]
struct Context<'a> {
    file: Option<&'a str>,
    bounded: bool,
}

/// A change or a kernel's part of a report, with its [`Context`].
#[derive(Clone, Copy)]
struct InReport<'a, T>(&'a T, Context<'a>);

/// The items of an iterator, as an array.
struct Seq<I>(I);

impl<I: Iterator + Clone> Serialize for Seq<I>
where
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clone())
    }
}

/// `kind`, `applicability`, `file` (with a run), `line`, `barrier`, `scope`, `weight`,
/// `loop_depth`.
impl Serialize for InReport<'_, ChangeInfo> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let InReport(c, ctx) = *self;
        let mut m = s.serialize_struct("ChangeInfo", 8)?;
        m.serialize_field("kind", &c.kind)?;
        m.serialize_field("applicability", &if ctx.bounded { Applicability::Bounded } else { c.applicability() })?;
        if let Some(file) = ctx.file {
            m.serialize_field("file", file)?;
        }
        m.serialize_field("line", &c.line)?;
        m.serialize_field("barrier", &c.barrier)?;
        m.serialize_field("scope", &c.scope)?;
        m.serialize_field("weight", &c.weight)?;
        m.serialize_field("loop_depth", &c.loop_depth)?;
        m.end()
    }
}

/// `kernel`, `status`, `reason` (absent when none), `changes`, then, each absent when empty:
/// `log`, `calls`, `undecided`, `defect` (the finding's headline as `message`, and its replay's
/// `confirmed` and `reason`; absent without a replay) and `possible_only`.
impl Serialize for InReport<'_, KernelRepair> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let InReport(k, ctx) = *self;
        let mut m = s.serialize_struct("KernelRepair", 9)?;
        m.serialize_field("kernel", &k.kernel)?;
        m.serialize_field("status", k.status.name())?;
        if let Some(reason) = k.status.reason() {
            m.serialize_field("reason", reason)?;
        }
        m.serialize_field("changes", &Seq(k.changes.iter().map(|c| InReport(c, ctx))))?;
        if !k.log.is_empty() {
            m.serialize_field("log", &k.log)?;
        }
        if !k.calls.is_empty() {
            m.serialize_field("calls", &k.calls)?;
        }
        if !k.undecided.is_empty() {
            m.serialize_field("undecided", &k.undecided)?;
        }
        if let Some((finding, replay)) = k.defect.as_ref().and_then(|f| Some((f, f.replay()?))) {
            m.serialize_field("defect", &Replayed(finding, replay))?;
        }
        if !k.possible_only.is_empty() {
            m.serialize_field("possible_only", &k.possible_only)?;
        }
        m.end()
    }
}

/// A defect and its replay (issue 29): `message` (the finding's headline), `confirmed`, and
/// `reason` (why it was not reproduced; absent when none).
struct Replayed<'a>(&'a Finding, &'a Replay);

impl Serialize for Replayed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Replayed(finding, replay) = *self;
        let mut m = s.serialize_struct("Replayed", 3)?;
        m.serialize_field("message", &finding.headline())?;
        m.serialize_field("confirmed", &replay.confirmed)?;
        if let Some(reason) = &replay.reason {
            m.serialize_field("reason", reason)?;
        }
        m.end()
    }
}
