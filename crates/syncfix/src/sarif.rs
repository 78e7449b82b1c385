//! SARIF 2.1.0 logs of verdicts and repairs (`--format sarif`), for code-scanning services and
//! editors that read SARIF.
//!
//! One emitter over the same data as the JSON formats ([`Verdict`], [`RepairSummary`]):
//! - a defect (a [`Finding`]) is a result of level `error` whose rule id is its kind
//!   ([`RULES`], [`Finding::kind`]); a race's location is its second access and its first
//!   access is a related location (id 1);
//! - a kernel that ends `unknown`, `timeout` or `bounded` is a result of kind `open` (the tool
//!   could not decide), never a pass;
//! - a repair or audit that changes the file is one result whose `fixes` hold the whole change
//!   as replacements (line/column regions; a zero-length region inserts);
//! - a run that gave no verdict (command line, clang, front end) is a failed invocation with
//!   the message as a tool-execution notification.
//!
//! Columns are 1-based and counted in Unicode code points (`columnKind`), as the JSON's.
//! The types are `serde-sarif`'s, generated from the OASIS schema.

use crate::verdict::{RepairSummary, TextEdit, TextRange, Verdict};
use crate::{AccessDesc, Finding, RepairReport, RepairStatus, Status};
use serde_sarif::sarif as s;

/// The schema URI written in `$schema`.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The rules (`tool.driver.rules`): `(id, short description)`. A defect's rule id is its kind
/// in the JSON verdict; `missing-barrier` is a repair, `unneeded-barrier` an audit's
/// removal, `unrepairable` a repair that cannot be made, `inconclusive` a verdict that is no
/// proof and no defect.
pub const RULES: [(&str, &str); 15] = [
    ("race", "Data race: two threads access one location, at least one writes, and no barrier orders them"),
    ("divergence", "Barrier divergence: some threads of a block reach a barrier that others skip"),
    ("assertion", "An assertion (__assert, assert) can fail"),
    ("precondition", "A callee's precondition (__requires) can fail at a call"),
    ("postcondition", "A postcondition (__ensures) can fail"),
    ("invariant", "A loop invariant can fail on entry or is not maintained"),
    ("barrier_invariant", "A barrier invariant can fail"),
    ("barrier_invariant_access", "A barrier invariant reads what the thread may not read"),
    ("null", "An access through a pointer that may be null"),
    ("bounds", "An access outside its array (--check-array-bounds)"),
    ("constant_write", "A write to constant memory"),
    ("missing-barrier", "The kernel's synchronisation is wrong; the fix inserts (or removes) barriers and re-verifies"),
    ("unneeded-barrier", "A barrier the kernel does not need: it verifies without it"),
    ("unrepairable", "No placement of barriers repairs the kernel"),
    ("inconclusive", "No verdict: neither a proof nor a defect (unknown, time limit, or only up to a loop bound)"),
];

fn message(text: impl Into<String>) -> s::Message {
    s::Message::builder().text(text.into()).build()
}

/// A relative path stays a relative URI reference; an absolute one becomes `file://`.
/// Spaces, `%` and `#` are percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for c in path.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

fn artifact(path: &str) -> s::ArtifactLocation {
    s::ArtifactLocation::builder().uri(uri(path)).build()
}

/// A location at `line` and `column` (clang's), or over `range` (the access's expression,
/// columns in code points as the run's `columnKind` says) when it is known.
fn location(path: &str, line: Option<u32>, column: Option<u32>, range: Option<&TextRange>, text: Option<String>) -> s::Location {
    let mut physical = s::PhysicalLocation::builder().artifact_location(artifact(path)).build();
    if let Some(r) = range {
        let mut region = s::Region::builder().start_line(r.start.line as i64).start_column(r.start.column as i64).build();
        region.end_line = Some(r.end.line as i64);
        region.end_column = Some(r.end.column as i64);
        physical.region = Some(region);
    } else if let Some(line) = line.filter(|&l| l > 0) {
        let mut region = s::Region::builder().start_line(line as i64).build();
        region.start_column = column.filter(|&c| c > 0).map(|c| c as i64);
        physical.region = Some(region);
    }
    let mut l = s::Location::builder().physical_location(physical).build();
    l.message = text.map(message);
    l
}

fn access_text(a: &AccessDesc) -> String {
    format!("{} by {}", a.kind_name(), a.thread.describe())
}

fn defect_result(file: &str, kernel: &str, f: &Finding) -> s::Result {
    let (headline, stack) = (f.headline(), f.stack());
    let at = stack.first();
    let mut text = format!("{headline} (kernel `{kernel}`)");
    let mut related = vec![];
    if let Finding::Race { first, second, .. } = f {
        text = format!("{headline}: {}, {} (kernel `{kernel}`)", access_text(second), access_text(first));
        let mut l = match first.location() {
            Some(p) => location(&p.file, Some(p.line), Some(p.col), p.range.as_ref(), Some(access_text(first))),
            None => location(file, None, None, None, Some(format!("{} (a function without a body)", access_text(first)))),
        };
        l.id = Some(1);
        related.push(l);
    } else if let Some(t) = f.thread() {
        text = format!("{headline} for {} (kernel `{kernel}`)", t.describe());
    }
    let primary = match at {
        Some(p) => location(&p.file, Some(p.line), Some(p.col), p.range.as_ref(), None),
        None => location(file, None, None, None, None),
    };
    // The call sites the defect was inlined through, as further related locations.
    for (i, p) in stack.iter().enumerate().skip(1) {
        let mut l = location(&p.file, Some(p.line), Some(p.col), p.range.as_ref(), Some("invoked from here".into()));
        l.id = Some(i as i64 + 1);
        related.push(l);
    }
    // A race or divergence the replay did not confirm is a warning with its reason; one it
    // confirmed, or a defect of another kind, an error (issue 29).
    let level = match f.replay() {
        Some(r) if !r.confirmed => {
            text = format!("{text}; possible, not confirmed by a replay: {}", r.reason.as_deref().unwrap_or("no reason given"));
            s::ResultLevel::Warning
        }
        Some(_) => {
            text = format!("{text}; confirmed by a replay on concrete threads");
            s::ResultLevel::Error
        }
        None => s::ResultLevel::Error,
    };
    let mut r = s::Result::builder()
        .message(message(text))
        .rule_id(f.kind())
        .level(level)
        .kind(s::ResultKind::Fail)
        .locations(vec![primary])
        .build();
    if !related.is_empty() {
        r.related_locations = Some(related);
    }
    r
}

fn open_result(file: &str, text: String) -> s::Result {
    s::Result::builder()
        .message(message(text))
        .rule_id("inconclusive")
        .level(s::ResultLevel::None)
        .kind(s::ResultKind::Open)
        .locations(vec![location(file, None, None, None, None)])
        .build()
}

fn rules() -> Vec<s::ReportingDescriptor> {
    RULES
        .iter()
        .map(|(id, text)| {
            s::ReportingDescriptor::builder()
                .id(id.to_string())
                .short_description(s::MultiformatMessageString::builder().text(text.to_string()).build())
                .build()
        })
        .collect()
}

fn invocation(exit_code: u8, successful: bool, notes: Vec<(String, &str)>) -> s::Invocation {
    let mut inv = s::Invocation::builder().execution_successful(successful).exit_code(exit_code as i64).build();
    if !notes.is_empty() {
        inv.tool_execution_notifications = Some(
            notes
                .into_iter()
                .map(|(text, level)| {
                    let mut n = s::Notification::builder().message(message(text)).build();
                    n.level = Some(serde_json::Value::String(level.into()));
                    n
                })
                .collect(),
        );
    }
    inv
}

fn run(results: Vec<s::Result>, invocations: Vec<s::Invocation>) -> s::Run {
    let driver = s::ToolComponent::builder()
        .name("syncfix")
        .version(env!("CARGO_PKG_VERSION"))
        .information_uri("https://github.com/syncfix/syncfix")
        .rules(rules())
        .build();
    let mut run = s::Run::builder().tool(s::Tool::builder().driver(driver).build()).results(results).build();
    run.invocations = Some(invocations);
    run.column_kind = Some(serde_json::Value::String("unicodeCodePoints".into()));
    run
}

fn log(run: s::Run) -> s::Sarif {
    s::Sarif::builder().schema(SARIF_SCHEMA).version(serde_json::Value::String("2.1.0".into())).runs(vec![run]).build()
}

/// Whether a run ended as its tool meant to (a verdict or a result, whatever it is), for
/// `executionSuccessful`: GPUVerify's 0 and 6 and GPURepair's 201 and 202 are verdicts.
fn successful(exit_code: u8) -> bool {
    matches!(exit_code, 0 | 6 | 201 | 202)
}

/// The results of one verdict (no tool or invocation).
fn verdict_results(v: &Verdict) -> Vec<s::Result> {
    let mut out = vec![];
    for k in &v.kernels {
        for f in &k.findings {
            out.push(defect_result(&v.file, &k.kernel, f));
        }
        let why = match k.status {
            Status::Unknown => {
                Some(format!("kernel `{}` could not be verified: {}", k.kernel, k.reason.as_deref().unwrap_or("no reason given")))
            }
            Status::Timeout => Some(format!("kernel `{}`: the time limit was reached", k.kernel)),
            Status::Bounded => Some(format!(
                "kernel `{}`: no defect up to {} loop iterations (not a proof)",
                k.kernel,
                k.bound.map_or("the loop-unwinding bound".into(), |b| b.to_string())
            )),
            _ => None,
        };
        out.extend(why.map(|w| open_result(&v.file, w)));
    }
    if v.kernels.is_empty() && v.status == Status::Timeout {
        out.push(open_result(&v.file, v.reason.clone().unwrap_or_else(|| "the time limit was reached".into())));
    }
    out
}

fn verdict_invocation(v: &Verdict) -> s::Invocation {
    let mut notes: Vec<(String, &str)> = v.warnings.iter().map(|w| (w.clone(), "warning")).collect();
    if let Some(e) = &v.error {
        notes.push((e.message.clone(), "error"));
    }
    invocation(v.exit_code, successful(v.exit_code) && v.error.is_none(), notes)
}

/// The SARIF log of `syncfix verify` on one file: one run, one invocation.
pub fn of_verdict(v: &Verdict) -> s::Sarif {
    log(run(verdict_results(v), vec![verdict_invocation(v)]))
}

/// The SARIF log of a test-suite run: one run whose results are every file's, and one
/// invocation per file.
pub fn of_verdicts<'a>(vs: impl IntoIterator<Item = &'a Verdict>) -> s::Sarif {
    let (mut results, mut invocations) = (vec![], vec![]);
    for v in vs {
        results.extend(verdict_results(v));
        invocations.push(verdict_invocation(v));
    }
    log(run(results, invocations))
}

fn region(e: &TextEdit) -> s::Region {
    let mut r = s::Region::builder().start_line(e.start.line as i64).start_column(e.start.column as i64).build();
    r.end_line = Some(e.end.line as i64);
    r.end_column = Some(e.end.column as i64);
    r
}

/// The SARIF log of `syncfix repair` or `syncfix audit` on one file: a change is one result
/// (`missing-barrier` or `unneeded-barrier`) at every changed line, with the whole change as
/// its fix; a kernel that cannot be repaired is an `unrepairable` result; no verdict is an
/// `inconclusive` result; an error is a failed invocation.
pub fn of_repair(r: &RepairSummary) -> s::Sarif {
    let mut results = vec![];
    let mut notes: Vec<(String, &str)> = vec![];
    // The message of a run that failed: an error, or a patch that did not re-verify.
    let mut error = None;
    match r.outcome {
        Ok(report) => {
            let reason = report.status.reason().unwrap_or_default().to_string();
            match &report.status {
                RepairStatus::Repaired => results.push(fix_result(r, report)),
                RepairStatus::AssertionFailure | RepairStatus::OtherError | RepairStatus::Unrepairable(_) | RepairStatus::NotVerified => {
                    let mut text = reason;
                    if !report.findings.is_empty() {
                        let headlines: Vec<String> = report.findings.iter().map(|f| f.headline()).collect();
                        text = format!("{text} ({})", headlines.join("; "));
                    }
                    let not_verified = matches!(report.status, RepairStatus::NotVerified);
                    let mut res = s::Result::builder()
                        .message(message(text))
                        .rule_id(if not_verified { "inconclusive" } else { "unrepairable" })
                        .level(s::ResultLevel::Error)
                        .kind(s::ResultKind::Fail)
                        .locations(vec![location(r.file, None, None, None, None)])
                        .build();
                    if not_verified {
                        res.level = Some(s::ResultLevel::None);
                        res.kind = Some(s::ResultKind::Open);
                    }
                    results.push(res);
                }
                RepairStatus::Unknown(_) | RepairStatus::Timeout => results.push(open_result(r.file, reason)),
                RepairStatus::NotReverified(_) => error = Some(reason),
                RepairStatus::NoChange => {}
            }
            notes.extend(report.notes.iter().map(|n| (n.clone(), "note")));
        }
        Err((Status::Timeout, reason)) => results.push(open_result(r.file, reason.trim_end().to_string())),
        Err((_, reason)) => error = Some(reason.trim_end().to_string()),
    }
    let ok = error.is_none() && successful(r.exit_code);
    if let Some(e) = error {
        notes.push((e, "error"));
    }
    log(run(results, vec![invocation(r.exit_code, ok, notes)]))
}

/// The result of a repair or audit that changes the file: one location per change, the whole
/// change as the fix.
fn fix_result(r: &RepairSummary, report: &RepairReport) -> s::Result {
    let audit = r.command == "audit";
    let mut lines: Vec<String> = report.changes.iter().map(|c| format!("{} `{}` at line {}", c.kind, c.barrier, c.line)).collect();
    lines.dedup();
    let proof = match report.bounded {
        Some(n) => format!("no error in the patched kernel up to {n} loop iterations (not a proof)"),
        None => "the patched kernel verifies".into(),
    };
    let text = format!("{}; {proof}", lines.join("; "));
    let locations: Vec<s::Location> =
        report.changes.iter().map(|c| location(r.file, Some(c.line), None, None, Some(format!("{} `{}`", c.kind, c.barrier)))).collect();
    let change = s::ArtifactChange::builder()
        .artifact_location(artifact(r.file))
        .replacements(
            report
                .edits
                .iter()
                .map(|e| {
                    s::Replacement::builder()
                        .deleted_region(region(e))
                        .inserted_content(s::ArtifactContent::builder().text(e.replacement.clone()).build())
                        .build()
                })
                .collect::<Vec<_>>(),
        )
        .build();
    let fix = s::Fix::builder()
        .description(message(format!(
            "{} ({})",
            if audit { "remove the barriers" } else { "repair the synchronisation" },
            report.level().map_or("safe", |a| a.name())
        )))
        .artifact_changes(vec![change])
        .build();
    s::Result::builder()
        .message(message(text))
        .rule_id(if audit { "unneeded-barrier" } else { "missing-barrier" })
        .level(if audit { s::ResultLevel::Warning } else { s::ResultLevel::Error })
        .kind(s::ResultKind::Fail)
        .locations(locations)
        .fixes(vec![fix])
        .build()
}
