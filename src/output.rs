//! Printing: the machine formats (JSON, SARIF) on stdout, GPUVerify's text on stderr and
//! stdout, patches in the file's encoding.

use crate::args::Format;
use crate::render;
use std::path::Path;
use std::time::Instant;
use syncfix::exit;
use syncfix::verdict::{RepairSummary, Verdict};
use syncfix::Stats;
use syncfix::{Encoding, ErrorReport, Language, Status};

/// Prints a `verify` failure (the message on stderr; in a machine format, its verdict of
/// status `error` on stdout) and returns its exit code.
pub fn fail(format: Format, file: &str, e: ErrorReport, started: Instant) -> u8 {
    eprint!("{}", e.message);
    if !e.message.ends_with('\n') {
        eprintln!();
    }
    print_verdict(format, &Verdict::error(file, e.stage.name(), e.exit_code, &e.message, Stats::default().with_total(started.elapsed())));
    e.exit_code
}

/// A `repair` or `audit` run that failed before a result: the message on stderr and, in a
/// machine format, a summary of status `error` (or `timeout`) on stdout.
pub fn fail_repair_like(format: Format, what: &str, file: &str, e: ErrorReport, started: Instant) -> u8 {
    let status = if e.exit_code == exit::TIMEOUT { Status::Timeout } else { Status::Error };
    print_repair(format, &RepairSummary::failure(what, file, status, &e.message, e.exit_code, started.elapsed()));
    fail(Format::Text, "", e, started)
}

/// Prints the verdict in `format` on stdout (nothing in text, whose lines are printed as the
/// run goes).
pub fn print_verdict(format: Format, v: &Verdict) {
    match format {
        Format::Text => {}
        Format::Json => print_json(v),
        Format::Sarif => print_json(&syncfix::sarif::of_verdict(v)),
    }
}

/// Prints a repair or audit summary in `format` on stdout (nothing in text).
pub fn print_repair(format: Format, r: &RepairSummary) {
    match format {
        Format::Text => {}
        Format::Json => print_json(r),
        Format::Sarif => print_json(&syncfix::sarif::of_repair(r)),
    }
}

/// Prints a unified diff on stdout in the encoding of the file it patches (so that `patch`
/// finds its context lines byte for byte).
pub fn print_patch(diff: &str, encoding: Encoding) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(&syncfix::encode_source(diff, encoding)).and_then(|()| out.flush()) {
        eprintln!("syncfix: error: cannot write the patch: {e}");
    }
}

pub fn print_json(v: &impl serde::Serialize) {
    match serde_json::to_string_pretty(v) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("syncfix: error: internal error: cannot write the JSON verdict: {e}"),
    }
}

pub fn print_stats(t: &syncfix::Stats) {
    eprintln!(
        "syncfix: stats: frontend {:.3}s (clang {:.3}s), encode {:.3}s, solve {:.3}s (houdini {:.3}s), verifier calls {}, solver calls {}, houdini rounds {}, barrier variables {}{}, repair iterations {}, clauses {}",
        t.frontend.as_secs_f64(),
        t.clang.as_secs_f64(),
        t.encode.as_secs_f64(),
        t.solve.as_secs_f64(),
        t.houdini.as_secs_f64(),
        t.verifier_calls,
        t.solver_calls,
        t.houdini_rounds,
        t.barrier_vars,
        if t.sites_considered > 0 {
            format!(
                " ({} named by the clauses{}, {} encoded, {} encoding{})",
                t.sites_considered,
                if t.sites_widened { ", widened past the first race's" } else { "" },
                t.sites_encoded,
                t.encodings,
                if t.encodings == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        },
        t.repair_iterations,
        t.clauses
    );
    if let Some((label, took)) = &t.slowest_query {
        eprintln!(
            "syncfix: stats: queries {}, the slowest {:.3}s ({label}), solved again with every assumption {}, candidate invariants dropped undecided {}, checks tried with their reads abstracted {} (refuted {}), answers reused instead of solved {} (Houdini's checks) and {} (queries), race queries refuted by their offsets' stride {} and without their values {}{}",
            t.queries,
            took.as_secs_f64(),
            t.cone_fallbacks,
            t.houdini_unproved,
            t.reads_abstracted,
            t.refuted_reads_abstracted,
            t.houdini_reused,
            t.queries_reused,
            t.queries_by_stride,
            t.queries_without_values,
            match (t.houdini_seeded, t.seed_fallbacks) {
                (0, _) => String::new(),
                (n, 0) => format!(", Houdini of the re-verification started from the repair's invariants ({n} kernel{})", if n == 1 { "" } else { "s" }),
                (n, f) => format!(", Houdini of the re-verification started from the repair's invariants ({n} kernel{}, {f} checked again from every candidate)", if n == 1 { "" } else { "s" }),
            }
        );
    }
    print_time_by_part(t);
}

/// `--stats`: where the solving time went, the queries (the slowest [`LISTED`]) and Houdini's
/// loops, each by wall time, the longest first.
fn print_time_by_part(t: &syncfix::Stats) {
    let mut queries: Vec<&syncfix::QueryTime> = t.query_times.iter().collect();
    queries.sort_by(|a, b| b.ms.total_cmp(&a.ms));
    if !queries.is_empty() {
        let shown: Vec<String> = queries
            .iter()
            .take(LISTED)
            .map(|q| {
                let times = if q.solved == 1 { String::new() } else { format!(", solved {} times", q.solved) };
                let props = if q.properties == 1 { "property" } else { "properties" };
                format!("{} {:.3}s ({} {props}{times})", q.label, q.ms / 1e3, q.properties)
            })
            .collect();
        let rest = &queries[queries.len().min(LISTED)..];
        let more = if rest.is_empty() {
            String::new()
        } else {
            format!("; {} more, {:.3}s in all", rest.len(), rest.iter().map(|q| q.ms).sum::<f64>() / 1e3)
        };
        eprintln!("syncfix: stats: queries by time: {}{more}", shown.join("; "));
    }
    let mut loops: Vec<&syncfix::LoopTime> = t.houdini_loops.iter().collect();
    loops.sort_by(|a, b| b.ms.total_cmp(&a.ms));
    if !loops.is_empty() {
        let shown: Vec<String> = loops.iter().map(|l| format!("{} {:.3}s ({} rounds)", l.label, l.ms / 1e3, l.rounds)).collect();
        eprintln!("syncfix: stats: Houdini by loop: {}", shown.join("; "));
    }
}

/// How many queries `--stats` names one by one.
const LISTED: usize = 10;

pub const TIMEOUT_HINT: &str = "use --timeout=N with a larger N, or --timeout=0 to disable the limit";

/// Prints where `verify` prints GPUVerify's summary lines: stdout, or stderr under `--format
/// json` or `sarif` (whose stdout holds only the document).
pub fn say(format: Format, s: &str) {
    if format != Format::Text {
        eprint!("{s}");
    } else {
        print!("{s}");
    }
}

pub fn file_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// The path to print in the diff headers (`--- a/PATH`), and the directory the patch applies
/// from with `patch -p1` when that is not the current one. A path given relative and without
/// `..` is kept as given; a file below the current directory is named relative to it; any
/// other file (an absolute path elsewhere, `../k.cu`) is named by its file name, to be applied
/// from its own directory, so that a header never holds `..` or an absolute path.
pub fn diff_path(p: &Path) -> (String, Option<std::path::PathBuf>) {
    use std::path::Component;
    if p.is_relative() && !p.components().any(|c| matches!(c, Component::ParentDir)) {
        return (p.display().to_string(), None);
    }
    let file = std::fs::canonicalize(p).ok();
    let cwd = std::env::current_dir().ok().and_then(|c| std::fs::canonicalize(c).ok());
    if let (Some(f), Some(c)) = (&file, &cwd) {
        if let Ok(rel) = f.strip_prefix(c) {
            return (rel.display().to_string(), None);
        }
    }
    let name = p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned());
    let dir = file.as_deref().and_then(Path::parent).map(Path::to_path_buf);
    (name, dir)
}

/// Says where a patch whose header names the file by its name alone applies from.
pub fn say_patch_dir(dir: &Option<std::path::PathBuf>) {
    if let Some(d) = dir {
        eprintln!("syncfix: note: the patch names the file relative to its own directory: apply it there (`patch -p1 -d {}`)", d.display());
    }
}

/// Prints findings as GPUVerify words them, on stderr.
pub fn print_findings(findings: &[syncfix::Finding], lang: Language, file: &str) {
    for f in findings {
        eprint!("{}", render::finding(f, lang, file));
    }
}

/// The note the front end gives a kernel whose launch it took from the host code contains this.
const TAKEN_FROM_LAUNCH: &str = " taken from the launch";

/// For a CUDA run given no launch size: warns that the sizes are symbolic for the kernels
/// (`(name, notes)`, one per verified configuration) that no launch of the host code gave
/// constant sizes, naming them when others had such a launch; nothing when every kernel had.
pub fn symbolic_sizes_warning<'a>(file: &str, kernels: impl IntoIterator<Item = (&'a str, &'a [String])>) {
    let mut symbolic: Vec<&str> = vec![];
    let mut any_taken = false;
    for (name, notes) in kernels {
        if notes.iter().any(|n| n.contains(TAKEN_FROM_LAUNCH)) {
            any_taken = true;
        } else if !symbolic.contains(&name) {
            symbolic.push(name);
        }
    }
    if symbolic.is_empty() {
        return;
    }
    let which = if any_taken {
        let names: Vec<String> = symbolic.iter().map(|k| format!("`{k}`")).collect();
        format!(" for {} (no launch in the host code gives constant sizes)", names.join(", "))
    } else {
        String::new()
    };
    eprintln!(
        "syncfix: warning: {file}: no --blockDim or --gridDim given: those sizes are symbolic in every dimension{which}, \
         and the verdict holds for every launch (give the sizes, or __requires on them, to narrow it)"
    );
}
