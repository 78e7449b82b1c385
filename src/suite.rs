//! `syncfix suite DIR`: runs a GPUVerify-style test tree in parallel (see [`crate::runner`])
//! and scores each kernel's JSON verdict against its expected defect class.
//!
//! The class comes from `DIR/MANIFEST.tsv` (columns `path`, `expected`, `defect`) when there
//! is one, else from the kernel's header: `//pass` is `none`, `//xfail:NOT_ALL_VERIFIED` is
//! `fail` (some defect), another `//xfail:CODE` is `frontend` with that exit code. Agreement:
//! none = verified; race = race; divergence = divergence; other = assertion, invariant,
//! precondition, postcondition, bounds or null; fail = any defect; frontend = error with the
//! expected exit code. `unknown`, `timeout` and `bounded` never agree.

use crate::runner::{self, KernelRun, Plan};
use clap::Args;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use syncfix::testsuite::code_of;
use syncfix::verdict::Verdict;
use syncfix::Status;

#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// The test tree.
    dir: PathBuf,
    /// Parallel jobs (default: the number of cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Seconds per kernel (`--timeout` of each run; a run still going 3 s later is ended).
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Only kernels whose path contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Write every kernel's verdict (and the summary) here, as JSON (schema `syncfix.suite/1`).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write every kernel's verdict here as one SARIF 2.1.0 log (one run, one invocation per
    /// kernel; paths relative to DIR's parent as given).
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
    /// Print the output of the kernels that disagree.
    #[arg(long, short = 'v')]
    verbose: bool,
    /// `text`: the table and summary on stdout; `json` / `sarif`: the `--json` document or
    /// the `--sarif` log on stdout instead, and the table and summary on stderr.
    #[arg(long, value_enum, default_value_t = crate::args::Format::Text)]
    format: crate::args::Format,
}

/// The defect a kernel is expected to show.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Free of defects: must verify.
    None,
    Race,
    Divergence,
    /// A failing assertion, invariant, contract, bounds or null-pointer check.
    Other,
    /// Some defect, kind unknown (a header's `//xfail:NOT_ALL_VERIFIED` without a manifest).
    Fail,
    /// Rejected before verification, with this exit code.
    Frontend(u8),
}

impl Class {
    fn name(&self) -> &'static str {
        match self {
            Class::None => "none",
            Class::Race => "race",
            Class::Divergence => "divergence",
            Class::Other => "other",
            Class::Fail => "fail",
            Class::Frontend(_) => "frontend",
        }
    }

    /// The class of a manifest row (`defect` column, `expected` exit-code name).
    fn of_manifest(defect: &str, expected: &str) -> Option<Class> {
        Some(match defect {
            "none" => Class::None,
            "race" => Class::Race,
            "divergence" => Class::Divergence,
            "other" => Class::Other,
            "frontend" => Class::Frontend(code_of(expected)?),
            _ => return None,
        })
    }

    /// The class of a header's expected exit code.
    fn of_header(expected: u8) -> Class {
        match expected {
            0 => Class::None,
            crate::exit::NOT_ALL_VERIFIED => Class::Fail,
            c => Class::Frontend(c),
        }
    }
}

/// Whether a verdict shows the defect of `class` (see the module's documentation).
pub fn agrees(class: &Class, v: &Verdict) -> bool {
    use Status as S;
    match class {
        Class::None => v.status == S::Verified,
        Class::Race => v.status == S::Race,
        Class::Divergence => v.status == S::Divergence,
        Class::Other => matches!(v.status, S::Assertion | S::Invariant | S::Precondition | S::Postcondition | S::Bounds | S::Null),
        Class::Fail => v.status.is_defect(),
        Class::Frontend(code) => v.status == S::Error && v.exit_code == *code,
    }
}

/// `DIR/MANIFEST.tsv`: path -> class. Empty when there is none.
fn manifest(dir: &Path) -> Result<HashMap<String, Class>, String> {
    let path = dir.join("MANIFEST.tsv");
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(HashMap::new()) };
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).ok_or_else(|| format!("{}: no `{name}` column", path.display()));
    let (p, e, d) = (col("path")?, col("expected")?, col("defect")?);
    let mut out = HashMap::new();
    for (i, l) in lines.enumerate() {
        let cols: Vec<&str> = l.split('\t').collect();
        let get = |c: usize| cols.get(c).copied().unwrap_or("");
        let class = Class::of_manifest(get(d), get(e))
            .ok_or_else(|| format!("{}:{}: unknown defect class `{}` or exit code `{}`", path.display(), i + 2, get(d), get(e)))?;
        out.insert(get(p).to_string(), class);
    }
    Ok(out)
}

#[derive(Serialize)]
struct KernelJson<'a> {
    path: &'a str,
    /// The header's expected exit-code name (`pass`, `NOT_ALL_VERIFIED`, ...).
    expected: &'a str,
    expected_code: u8,
    class: &'static str,
    status: Status,
    exit_code: u8,
    agree: bool,
    regex_ok: bool,
    seconds: f64,
    verdict: &'a Verdict,
}

#[derive(Serialize)]
struct SuiteJson<'a> {
    schema: &'static str,
    dir: String,
    timeout_s: u64,
    jobs: usize,
    kernels: Vec<KernelJson<'a>>,
}

/// One row of the table.
#[derive(Default)]
struct Row {
    kernels: usize,
    agree: usize,
    disagree: usize,
    unknown: usize,
    timeout: usize,
    seconds: Vec<f64>,
    verifier_calls: u64,
}

fn table(scored: &[(Class, &KernelRun, bool)]) -> String {
    let mut rows: BTreeMap<(u8, &'static str), Row> = BTreeMap::new();
    let mut kinds: BTreeMap<(String, String), usize> = BTreeMap::new();
    let order = |c: &Class| match c {
        Class::None => 0,
        Class::Race => 1,
        Class::Divergence => 2,
        Class::Other => 3,
        Class::Fail => 4,
        Class::Frontend(_) => 5,
    };
    for (class, run, agree) in scored {
        let status = run.verdict.status;
        for key in [(order(class), class.name()), (9, "total")] {
            let r = rows.entry(key).or_default();
            r.kernels += 1;
            r.seconds.push(run.seconds);
            r.verifier_calls += run.verdict.stats.verifier_calls as u64;
            match status {
                _ if *agree => r.agree += 1,
                Status::Unknown => r.unknown += 1,
                Status::Timeout => r.timeout += 1,
                _ => r.disagree += 1,
            }
        }
        if !agree && !matches!(status, Status::Unknown | Status::Timeout) {
            *kinds.entry((class.name().to_string(), runner::status_text(&run.verdict))).or_default() += 1;
        }
    }
    let mut s = format!(
        "{:<11} {:>7} {:>6} {:>9} {:>8} {:>8} {:>9} {:>9} {:>9}\n",
        "class", "kernels", "agree", "disagree", "unknown", "timeout", "total s", "median s", "verifier"
    );
    for ((_, name), r) in rows {
        let total: f64 = r.seconds.iter().sum();
        s.push_str(&format!(
            "{:<11} {:>7} {:>6} {:>9} {:>8} {:>8} {:>9.1} {:>9.2} {:>9}\n",
            name,
            r.kernels,
            r.agree,
            r.disagree,
            r.unknown,
            r.timeout,
            total,
            runner::median(r.seconds),
            r.verifier_calls
        ));
    }
    if !kinds.is_empty() {
        s.push_str("disagreements (expected class -> status):\n");
        let mut kinds: Vec<_> = kinds.into_iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for ((class, status), n) in kinds {
            s.push_str(&format!("  {class} -> {status}: {n}\n"));
        }
    }
    s
}

pub fn run(a: &SuiteArgs) -> u8 {
    let (jobs, skipped) = match runner::collect(&a.dir, a.filter.as_deref()) {
        Ok(x) => x,
        Err(m) => return runner::fail(&m),
    };
    let manifest = match manifest(&a.dir) {
        Ok(m) => m,
        Err(m) => return runner::fail(&m),
    };
    let class_of = |rel: &str, expected: u8| manifest.get(rel).cloned().unwrap_or_else(|| Class::of_header(expected));
    let jobs_n = a.jobs.unwrap_or_else(runner::default_jobs);
    let plan = Plan { jobs: jobs_n, timeout: a.timeout, extra: vec![runner::solver_threads_flag(jobs_n)], fork: true };
    let verbose = a.verbose;
    let runs = runner::run_all(jobs, &plan, |r| {
        let class = class_of(&r.job.rel, r.job.header.expected);
        let agree = agrees(&class, &r.verdict);
        let tag = if agree { "agree   " } else { "DISAGREE" };
        let mut line = format!(
            "{tag} {:<10} -> {:<12} exit {:>3} (expected {:>3}){} {:7.2}s {}",
            class.name(),
            runner::status_text(&r.verdict),
            r.exit_code(),
            r.job.header.expected,
            if r.code_ok() && !r.regex_ok { " regex FAIL" } else { "" },
            r.seconds,
            r.job.rel
        );
        if verbose && !agree {
            for l in r.output.lines().take(6) {
                line.push_str(&format!("\n       | {l}"));
            }
        }
        (line, !agree)
    });
    let runs = match runs {
        Ok(r) => r,
        Err(m) => return runner::fail(&m),
    };
    let scored: Vec<(Class, &KernelRun, bool)> = runs
        .iter()
        .map(|r| {
            let c = class_of(&r.job.rel, r.job.header.expected);
            let agree = agrees(&c, &r.verdict);
            (c, r, agree)
        })
        .collect();
    use crate::args::Format;
    if a.json.is_some() || a.format == Format::Json {
        let doc = SuiteJson {
            schema: "syncfix.suite/1",
            dir: a.dir.display().to_string(),
            timeout_s: a.timeout,
            jobs: plan.jobs,
            kernels: scored
                .iter()
                .map(|(c, r, agree)| KernelJson {
                    path: &r.job.rel,
                    expected: &r.job.header.expected_name,
                    expected_code: r.job.header.expected,
                    class: c.name(),
                    status: r.verdict.status,
                    exit_code: r.exit_code(),
                    agree: *agree,
                    regex_ok: r.regex_ok,
                    seconds: (r.seconds * 1e3).round() / 1e3,
                    verdict: &r.verdict,
                })
                .collect(),
        };
        if let Some(path) = &a.json {
            if let Err(e) = runner::write_json(path, &doc) {
                runner::fail(&e);
            }
        }
        if a.format == Format::Json {
            crate::output::print_json(&doc);
        }
    }
    if a.sarif.is_some() || a.format == Format::Sarif {
        let verdicts: Vec<syncfix::verdict::Verdict> = runs
            .iter()
            .map(|r| {
                let path = a.dir.join(&r.job.rel);
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let kernel_dir = path.parent().unwrap_or(&a.dir);
                syncfix::verdict::Verdict { file: name, ..r.verdict.clone() }.rebased(kernel_dir)
            })
            .collect();
        let log = syncfix::sarif::of_verdicts(&verdicts);
        if let Some(path) = &a.sarif {
            if let Err(e) = runner::write_json(path, &log) {
                runner::fail(&e);
            }
        }
        if a.format == Format::Sarif {
            crate::output::print_json(&log);
        }
    }
    let total = runs.len();
    let code_ok = runs.iter().filter(|r| r.code_ok()).count();
    let all_ok = runs.iter().filter(|r| r.code_ok() && r.regex_ok).count();
    let secs: f64 = runs.iter().map(|r| r.seconds).sum();
    let summary = format!(
        "{total} kernels ({skipped} skipped): {code_ok} gave the expected exit code, {all_ok} also matched their regular expressions; {secs:.1}s of kernel time"
    );
    if a.format == Format::Text {
        print!("{}", table(&scored));
        println!("{summary}");
    } else {
        eprint!("{}", table(&scored));
        eprintln!("{summary}");
    }
    if all_ok == total {
        0
    } else {
        100
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncfix::Stats;

    fn verdict(status: Status, exit_code: u8) -> Verdict {
        let mut v = Verdict::timeout("k.cu", exit_code, "", Stats::default());
        v.status = status;
        v
    }

    #[test]
    fn agreement_maps_classes_to_statuses() {
        use Status as S;
        let other = [S::Assertion, S::Invariant, S::Precondition, S::Postcondition, S::Bounds, S::Null];
        for s in S::ALL {
            let v = verdict(s, 6);
            assert_eq!(agrees(&Class::None, &v), s == S::Verified, "{s}");
            assert_eq!(agrees(&Class::Race, &v), s == S::Race, "{s}");
            assert_eq!(agrees(&Class::Divergence, &v), s == S::Divergence, "{s}");
            assert_eq!(agrees(&Class::Other, &v), other.contains(&s), "{s}");
            assert_eq!(agrees(&Class::Fail, &v), s == S::Race || s == S::Divergence || other.contains(&s), "{s}");
            // Unknown, timeout and bounded never agree with anything.
            if matches!(s, S::Unknown | S::Timeout | S::Bounded) {
                for c in [Class::None, Class::Race, Class::Divergence, Class::Other, Class::Fail, Class::Frontend(6)] {
                    assert!(!agrees(&c, &v), "{s} agrees with {c:?}");
                }
            }
        }
        // A front-end class needs an error with its exit code.
        assert!(agrees(&Class::Frontend(2), &verdict(S::Error, 2)));
        assert!(!agrees(&Class::Frontend(2), &verdict(S::Error, 4)));
        assert!(!agrees(&Class::Frontend(2), &verdict(S::Race, 2)));
        assert!(!agrees(&Class::None, &verdict(S::Error, 0)));
    }

    #[test]
    fn classes_come_from_the_manifest_or_the_header() {
        assert_eq!(Class::of_manifest("frontend", "CLANG_ERROR"), Some(Class::Frontend(2)));
        assert_eq!(Class::of_manifest("frontend", "BUGLE_ERROR"), Some(Class::Frontend(4)));
        assert_eq!(Class::of_manifest("other", "NOT_ALL_VERIFIED"), Some(Class::Other));
        assert_eq!(Class::of_manifest("weird", "pass"), None);
        assert_eq!(Class::of_header(0), Class::None);
        assert_eq!(Class::of_header(6), Class::Fail);
        assert_eq!(Class::of_header(5), Class::Frontend(5));
    }
}
