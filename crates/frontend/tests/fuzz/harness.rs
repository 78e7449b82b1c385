//! The runner shared by the fuzz tests (front end: `crates/frontend/tests/fuzz.rs`; whole
//! pipeline: `crates/syncfix/tests/fuzz.rs`).
//!
//! Each case draws a kernel from [`crate::gen::kernels`] and classifies it with the test's
//! check: a pass (with a label: "compiled", "verified"...), an *allowed* failure (an
//! unsupported construct) or a *problem* (a panic, a clang rejection...). Unlike
//! `proptest!`, the run does not stop at the first problem: every distinct signature is
//! counted, and the first kernel of each is shrunk (its choice stream, then its text) to a
//! small kernel with the same signature. The test fails at
//! the end if there was any problem.
//!
//! Environment: `PROPTEST_CASES` (default: the test's), `PROPTEST_RNG_SEED` (default: a
//! fresh seed, printed), `SYNCFIX_FUZZ_SHRINK_ALL=1` also shrinks the examples of allowed
//! failures (slow; for long runs). The summary goes to stderr (`--nocapture` shows it).
#![allow(dead_code)]

use crate::gen::{generate, kernels, GenKernel, Lang, Sizes};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngSeed, TestRunner};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// How a check classifies a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Class {
    Pass,
    Allowed,
    Problem,
}

/// The result of checking one kernel: its class, a signature that groups equal failures (or
/// the pass label), and the full message.
#[derive(Clone, Debug)]
pub struct Check {
    pub class: Class,
    pub signature: String,
    pub detail: String,
}

impl Check {
    /// A pass, counted under `label`.
    pub fn pass(label: impl Into<String>) -> Check {
        Check { class: Class::Pass, signature: label.into(), detail: String::new() }
    }

    /// An allowed failure (e.g. an unsupported construct).
    pub fn allowed(signature: impl Into<String>, detail: impl Into<String>) -> Check {
        Check { class: Class::Allowed, signature: signature.into(), detail: detail.into() }
    }

    /// A problem: the test fails.
    pub fn problem(signature: impl Into<String>, detail: impl Into<String>) -> Check {
        Check { class: Class::Problem, signature: signature.into(), detail: detail.into() }
    }
}

thread_local! {
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `f`, turning a panic into `Err("panic at FILE:LINE: MESSAGE")`.
pub fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let msg = syncfix_frontend::driver::panic_message(info).unwrap_or_else(|| "(no message)".into());
            let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = format!("panic at {at}: {msg}"));
        }))
    });
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| LAST_PANIC.with(|p| p.borrow().clone()))
}

/// `s` with every run of digits replaced by `N` and cut to its first line (at most 200
/// characters): the signature of a message whose numbers vary.
pub fn normalize(s: &str) -> String {
    let line = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut out = String::new();
    let mut in_digits = false;
    for c in line.chars().take(200) {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('N');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    out
}

/// The first `error:` line of clang's diagnostics, without its file and position.
pub fn clang_signature(diagnostics: &str) -> String {
    let line = diagnostics.lines().find(|l| l.contains("error:")).unwrap_or(diagnostics.lines().next().unwrap_or(""));
    let line = line.find("error:").map(|i| &line[i..]).unwrap_or(line);
    normalize(line)
}

/// One failure signature: how often it occurred and its smallest known kernel.
pub struct Finding {
    pub count: usize,
    pub example: GenKernel,
    pub detail: String,
    pub shrunk: bool,
}

/// What a run saw.
pub struct Summary {
    pub name: String,
    pub cases: u32,
    pub seed: u64,
    pub elapsed: Duration,
    pub check_time: Duration,
    pub by_lang: BTreeMap<Lang, usize>,
    pub passes: BTreeMap<String, usize>,
    pub features: BTreeMap<&'static str, usize>,
    pub allowed: BTreeMap<String, Finding>,
    pub problems: BTreeMap<String, Finding>,
    pub slowest: Option<(Duration, GenKernel)>,
}

impl Summary {
    /// The report printed at the end of a run.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let n = self.cases.max(1) as f64;
        let _ = writeln!(
            s,
            "== {}: {} kernels ({} CUDA, {} OpenCL) in {:.1} s ({:.3} s/kernel checking), PROPTEST_RNG_SEED={}",
            self.name,
            self.cases,
            self.by_lang.get(&Lang::Cuda).unwrap_or(&0),
            self.by_lang.get(&Lang::OpenCl).unwrap_or(&0),
            self.elapsed.as_secs_f64(),
            self.check_time.as_secs_f64() / n,
            self.seed
        );
        let _ = writeln!(s, "passes:");
        for (label, c) in &self.passes {
            let _ = writeln!(s, "  {c:6}  {label}");
        }
        let _ = writeln!(s, "constructs (kernels containing each):");
        for (f, c) in &self.features {
            let _ = writeln!(s, "  {c:6}  {f}");
        }
        if let Some((t, k)) = &self.slowest {
            let _ = writeln!(s, "slowest kernel: {:.2} s, {}\n{}", t.as_secs_f64(), launch(k), indent(&k.source));
        }
        for (title, map) in [("allowed failures (unsupported constructs)", &self.allowed), ("PROBLEMS", &self.problems)] {
            let _ = writeln!(s, "{title}: {} kinds, {} kernels", map.len(), map.values().map(|f| f.count).sum::<usize>());
            for (sig, f) in map {
                let _ = writeln!(s, "  [{}x] {sig}", f.count);
                let _ = writeln!(
                    s,
                    "    {} example ({}, {}):",
                    if f.shrunk { "shrunk" } else { "first" },
                    f.example.file_name(),
                    launch(&f.example)
                );
                let _ = writeln!(s, "{}", indent(&f.example.source));
                let _ = writeln!(s, "    message:\n{}", indent(&f.detail));
            }
        }
        s
    }
}

fn launch(k: &GenKernel) -> String {
    format!("block {:?}, grid {:?}, variant {}", k.launch.0, k.launch.1, k.variant)
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("      | {l}")).collect::<Vec<_>>().join("\n")
}

/// The number of cases: `PROPTEST_CASES`, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Runs `check` on `PROPTEST_CASES` (else `default_cases`) kernels drawn with `sizes`.
pub fn run(name: &str, sizes: Sizes, default_cases: u32, check: impl Fn(&GenKernel) -> Check) -> Summary {
    let mut config = Config { cases: cases(default_cases), failure_persistence: None, ..Config::default() };
    let seed = match config.rng_seed {
        RngSeed::Fixed(s) => s,
        RngSeed::Random => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            now.as_nanos() as u64 ^ (std::process::id() as u64) << 32
        }
    };
    config.rng_seed = RngSeed::Fixed(seed);
    let shrink_all = std::env::var("SYNCFIX_FUZZ_SHRINK_ALL").is_ok_and(|v| v == "1");
    let mut runner = TestRunner::new(config.clone());
    let strategy = kernels(sizes);
    let start = Instant::now();
    let mut sum = Summary {
        name: name.into(),
        cases: config.cases,
        seed,
        elapsed: Duration::ZERO,
        check_time: Duration::ZERO,
        by_lang: BTreeMap::new(),
        passes: BTreeMap::new(),
        features: BTreeMap::new(),
        allowed: BTreeMap::new(),
        problems: BTreeMap::new(),
        slowest: None,
    };
    for _ in 0..config.cases {
        let k = strategy.new_tree(&mut runner).expect("the kernel strategy never rejects").current();
        *sum.by_lang.entry(k.lang).or_default() += 1;
        for f in &k.features {
            *sum.features.entry(f).or_default() += 1;
        }
        let t = Instant::now();
        let c = check(&k);
        let dt = t.elapsed();
        sum.check_time += dt;
        if sum.slowest.as_ref().is_none_or(|(s, _)| dt > *s) {
            sum.slowest = Some((dt, k.clone()));
        }
        let map = match c.class {
            Class::Pass => {
                *sum.passes.entry(c.signature).or_default() += 1;
                continue;
            }
            Class::Allowed => &mut sum.allowed,
            Class::Problem => &mut sum.problems,
        };
        if let Some(f) = map.get_mut(&c.signature) {
            f.count += 1;
            continue;
        }
        let finding = if c.class == Class::Problem || shrink_all {
            let budget = if c.class == Class::Problem { Duration::from_secs(120) } else { Duration::from_secs(30) };
            let (example, detail) = shrink(k, &c, &check, budget);
            Finding { count: 1, example, detail, shrunk: true }
        } else {
            Finding { count: 1, example: k, detail: c.detail.clone(), shrunk: false }
        };
        map.insert(c.signature, finding);
    }
    sum.elapsed = start.elapsed();
    sum
}

/// The smallest kernel found with `found`'s class and signature, within `budget`: first
/// the choice stream is edited (chunks deleted, choices zeroed), as Hypothesis shrinks, then
/// the source text (compound statements and lines deleted).
fn shrink(k: GenKernel, found: &Check, check: &impl Fn(&GenKernel) -> Check, budget: Duration) -> (GenKernel, String) {
    let start = Instant::now();
    let time_left = || start.elapsed() < budget;
    let same = |k: &GenKernel| -> Option<String> {
        let c = check(k);
        (c.class == found.class && c.signature == found.signature).then_some(c.detail)
    };
    let mut best = k;
    let mut detail = found.detail.clone();
    // A candidate stream replaces the best kernel if it gives the same source (no check
    // needed) or a shorter one that keeps the signature.
    let try_choices = |best: &mut GenKernel, detail: &mut String, choices: Vec<u32>| -> bool {
        let k = generate(best.lang, &choices, best.sizes);
        if k.source == best.source {
            *best = k;
            return true;
        }
        if k.source.len() >= best.source.len() {
            return false;
        }
        match same(&k) {
            Some(d) => {
                *best = k;
                *detail = d;
                true
            }
            None => false,
        }
    };
    let mut progress = true;
    while progress && time_left() {
        progress = false;
        for chunk in [64, 16, 4, 1] {
            let mut i = 0;
            while i < best.choices.len() && time_left() {
                let mut c = best.choices.clone();
                c.drain(i..(i + chunk).min(c.len()));
                let before = best.choices.len();
                if try_choices(&mut best, &mut detail, c) {
                    progress |= best.choices.len() < before;
                } else {
                    i += chunk;
                }
            }
        }
        for i in 0..best.choices.len() {
            if !time_left() {
                break;
            }
            if best.choices.get(i).is_some_and(|&c| c != 0) {
                let mut c = best.choices.clone();
                c[i] = 0;
                let src = best.source.len();
                if try_choices(&mut best, &mut detail, c) && best.source.len() < src {
                    progress = true;
                }
            }
        }
    }
    // The text: delete a line together with the lines up to its matching `}`, then single
    // lines.
    let mut edited = true;
    while edited && time_left() {
        edited = false;
        let mut i = 0;
        loop {
            let lines: Vec<&str> = best.source.lines().collect();
            if i >= lines.len() || !time_left() {
                break;
            }
            let mut candidates = vec![];
            let mut depth = 0i32;
            for (j, l) in lines.iter().enumerate().skip(i) {
                depth += l.matches('{').count() as i32 - l.matches('}').count() as i32;
                if depth <= 0 {
                    if j > i {
                        candidates.push(j + 1);
                    }
                    break;
                }
            }
            candidates.push(i + 1);
            let mut removed = false;
            for end in candidates {
                let text = lines[..i].iter().chain(&lines[end..]).copied().collect::<Vec<_>>().join("\n") + "\n";
                let k = GenKernel { source: text, choices: vec![], ..best.clone() };
                if let Some(d) = same(&k) {
                    best = k;
                    detail = d;
                    removed = true;
                    edited = true;
                    break;
                }
            }
            if !removed {
                i += 1;
            }
        }
    }
    (best, detail)
}
