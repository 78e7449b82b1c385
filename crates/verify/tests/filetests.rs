//! The verifier's KIR file tests, as Cranelift's filetests: every `filetests/*.kir` is one
//! kernel in KIR's text form (what `syncfix verify --emit=kir` prints; `syncfix_kir::parse`
//! reads it), verified as `syncfix verify` would, with the verdict its header states.
//!
//! The header is the `;` comments before the `kernel` line; `; KEY: VALUE` lines are the
//! test's contract (an unknown key is an error), other comments say what the test is about:
//!
//! ```text
//! ; launch: block=[64] grid=[2]        required; must agree with the kernel line
//! ; options: --only-intra-group        optional; GPUVerify's flag names (OPTIONS below)
//! ; expect: race write-write on G between groups
//! ; cut-loops: 1                       optional; loops proved with invariants, not unrolled
//! ; source: __global__ void k(int *G)  optional, any number: the source the kernel came from
//! ```
//!
//! `expect` is one of: `verified`; `race K-K [on NAME] [within group | between groups]` (the
//! access kinds `read`, `write`, `atomic` in either order, since which of the two accesses
//! is logged first is the solver's choice); `divergence`; an assertion that fails
//! (`assertion`, `precondition`, `postcondition`, `loop-invariant`, `barrier-invariant`,
//! `null-pointer`); `out-of-bounds [on NAME]`; `constant-write`; `no-error-up-to N`;
//! `unknown`. A mismatch prints the verdict in the same words.
//!
//! `cargo test -p syncfix-verify --test filetests -- NAME` runs one file.

use std::path::Path;
use std::time::{Duration, Instant};
use syncfix_kir::{Guard, InstKind, Kernel};
use syncfix_verify::{AccessKind, Defect, ForceAbstraction, Verdict, Verifier, VerifyOptions};

/// The flags a file test may give, as `syncfix verify` reads them.
const OPTIONS: &str = "--only-intra-group, --no-benign-tolerance, --equality-abstraction, --adversarial-abstraction, \
                       --loop-unwind=N, --findbugs, --no-infer, --asymmetric-asserts, --warp-sync=N, \
                       --check-array-bounds, --only-divergence";

/// No file test should come near this; past it the verdict is a timeout (and the test fails).
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// A file's header.
struct Header {
    launch: ([u32; 3], [u32; 3]),
    options: VerifyOptions,
    expect: String,
    cut_loops: Option<usize>,
}

/// `[64]`, `[8, 8]`, `[2, 1, 1]`: missing dimensions are 1.
fn dims(s: &str) -> Result<[u32; 3], String> {
    let inner = s.strip_prefix('[').and_then(|s| s.strip_suffix(']')).ok_or_else(|| format!("expected `[X, Y, Z]`, found `{s}`"))?;
    let mut d = [1; 3];
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("more than three dimensions in `{s}`"));
    }
    for (x, p) in d.iter_mut().zip(parts) {
        *x = p.parse().map_err(|_| format!("`{p}` is not a size"))?;
    }
    Ok(d)
}

/// `block=[64] grid=[2]`.
fn launch(value: &str) -> Result<([u32; 3], [u32; 3]), String> {
    let (mut block, mut grid) = (None, None);
    // Split at the `=`s: `block=[8, 8] grid=[2]`.
    let mut rest = value.trim();
    while !rest.is_empty() {
        let (key, tail) = rest.split_once('=').ok_or_else(|| format!("expected `block=[...] grid=[...]`, found `{rest}`"))?;
        let close = tail.find(']').ok_or_else(|| format!("no `]` in `{tail}`"))?;
        let d = dims(tail[..=close].trim())?;
        match key.trim() {
            "block" => block = Some(d),
            "grid" => grid = Some(d),
            k => return Err(format!("unknown launch key `{k}` (expected `block` and `grid`)")),
        }
        rest = tail[close + 1..].trim();
    }
    Ok((block.ok_or("`launch` needs `block=[...]`")?, grid.ok_or("`launch` needs `grid=[...]`")?))
}

fn options(value: &str) -> Result<VerifyOptions, String> {
    let mut o = VerifyOptions::default();
    for flag in value.split_whitespace() {
        let (name, arg) = flag.split_once('=').map_or((flag, None), |(n, a)| (n, Some(a)));
        let number = || arg.and_then(|a| a.parse::<u32>().ok()).ok_or_else(|| format!("`{name}` takes a number (`{name}=N`)"));
        match name {
            "--only-intra-group" => o.only_intra_group = true,
            "--no-benign-tolerance" => o.benign_tolerance = false,
            "--equality-abstraction" => o.abstraction = ForceAbstraction::Equality,
            "--adversarial-abstraction" => o.abstraction = ForceAbstraction::Adversarial,
            "--loop-unwind" => o.loop_unwind = Some(number()?),
            "--findbugs" => o.loop_unwind = Some(2),
            "--no-infer" => o.infer = false,
            "--asymmetric-asserts" => o.asymmetric_asserts = true,
            "--warp-sync" => o.warp_size = Some(number()?),
            "--check-array-bounds" => o.array_bounds = true,
            "--only-divergence" => o.race_checks = false,
            _ => return Err(format!("unknown option `{flag}` (file tests take {OPTIONS})")),
        }
    }
    Ok(o)
}

/// The header: `; KEY: VALUE` lines before the `kernel` line.
fn header(text: &str) -> Result<Header, String> {
    let (mut launch_at, mut opts, mut expect, mut cut_loops) = (None, VerifyOptions::default(), None, None);
    for line in text.lines().take_while(|l| !l.starts_with("kernel ")) {
        let Some(comment) = line.trim().strip_prefix(';') else { continue };
        let Some((key, value)) = comment.split_once(':') else { continue };
        let key = key.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            continue;
        }
        let value = value.trim();
        match key {
            "launch" => launch_at = Some(launch(value)?),
            "options" => opts = options(value)?,
            "expect" => expect = Some(value.to_string()),
            "source" => {}
            "cut-loops" => cut_loops = Some(value.parse().map_err(|_| format!("`cut-loops: {value}`: expected a number"))?),
            _ => return Err(format!("unknown header key `{key}` (expected `launch`, `options`, `expect`, `cut-loops`, `source`)")),
        }
    }
    Ok(Header {
        launch: launch_at.ok_or("no `; launch: block=[...] grid=[...]` line before the kernel")?,
        options: opts,
        expect: expect.ok_or("no `; expect: VERDICT` line before the kernel")?,
        cut_loops,
    })
}

/// The verdict, in the words of `expect`.
enum Outcome {
    Verified,
    Race { kinds: [AccessKind; 2], object: String, between_groups: bool },
    Divergence,
    Assertion(&'static str),
    OutOfBounds { object: String },
    ConstantWrite,
    NoErrorUpTo(u32),
    Unknown(String),
    Timeout,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Verified => write!(f, "verified"),
            Outcome::Race { kinds, object, between_groups } => {
                let groups = if *between_groups { "between groups" } else { "within group" };
                write!(f, "race {}-{} on {object} {groups}", kinds[0].name(), kinds[1].name())
            }
            Outcome::Divergence => write!(f, "divergence"),
            Outcome::Assertion(kind) => write!(f, "{kind}"),
            Outcome::OutOfBounds { object } => write!(f, "out-of-bounds on {object}"),
            Outcome::ConstantWrite => write!(f, "constant-write"),
            Outcome::NoErrorUpTo(n) => write!(f, "no-error-up-to {n}"),
            Outcome::Unknown(why) => write!(f, "unknown ({why})"),
            Outcome::Timeout => write!(f, "timeout"),
        }
    }
}

fn outcome(k: &Kernel, verdict: Verdict) -> Outcome {
    let t = match verdict {
        Verdict::Verified => return Outcome::Verified,
        Verdict::NoErrorUpTo { bound } => return Outcome::NoErrorUpTo(bound),
        Verdict::Unknown(why) => return Outcome::Unknown(why),
        Verdict::Timeout => return Outcome::Timeout,
        Verdict::Defect(t) => t,
    };
    match t.defect {
        Defect::Race(r) => {
            Outcome::Race { kinds: [r.first.kind, r.second.kind], object: k.objects[r.object].name.clone(), between_groups: !t.same_group }
        }
        Defect::Divergence { .. } => Outcome::Divergence,
        Defect::Assertion { kind, .. } => Outcome::Assertion(match kind {
            syncfix_kir::AssertKind::Assertion => "assertion",
            syncfix_kir::AssertKind::Precondition => "precondition",
            syncfix_kir::AssertKind::Postcondition => "postcondition",
            syncfix_kir::AssertKind::LoopInvariant => "loop-invariant",
            syncfix_kir::AssertKind::BarrierInvariant => "barrier-invariant",
            syncfix_kir::AssertKind::BarrierInvariantAccess => "barrier-invariant-access",
            syncfix_kir::AssertKind::NullPointer => "null-pointer",
        }),
        Defect::OutOfBounds { object, .. } => Outcome::OutOfBounds { object: k.objects[object].name.clone() },
        Defect::ConstantWrite { .. } => Outcome::ConstantWrite,
    }
}

/// Whether the outcome is the one `expect` describes; `Err` for an expectation that is not
/// one of the forms above.
fn matches(expect: &str, actual: &Outcome) -> Result<bool, String> {
    let words: Vec<&str> = expect.split_whitespace().collect();
    let bad = || format!("`expect: {expect}` is not a verdict (see crates/verify/tests/filetests.rs)");
    // `on NAME` and `within group` / `between groups` after the first words.
    let qualifiers = |rest: &[&str]| -> Result<(Option<String>, Option<bool>), String> {
        let (mut object, mut between) = (None, None);
        let mut i = 0;
        while i < rest.len() {
            match (rest[i], rest.get(i + 1)) {
                ("on", Some(name)) => object = Some(name.to_string()),
                ("within", Some(&"group")) => between = Some(false),
                ("between", Some(&"groups")) => between = Some(true),
                _ => return Err(bad()),
            }
            i += 2;
        }
        Ok((object, between))
    };
    Ok(match (words.as_slice(), actual) {
        (["race", kinds, rest @ ..], _) => {
            let (a, b) = kinds.split_once('-').ok_or_else(bad)?;
            for k in [a, b] {
                if !["read", "write", "atomic"].contains(&k) {
                    return Err(bad());
                }
            }
            let (object, between) = qualifiers(rest)?;
            match actual {
                Outcome::Race { kinds: [x, y], object: o, between_groups } => {
                    let (x, y) = (x.name(), y.name());
                    ((a, b) == (x, y) || (a, b) == (y, x)) && object.is_none_or(|n| &n == o) && between.is_none_or(|g| g == *between_groups)
                }
                _ => false,
            }
        }
        (["out-of-bounds", rest @ ..], _) => {
            let (object, between) = qualifiers(rest)?;
            if between.is_some() {
                return Err(bad());
            }
            matches!(actual, Outcome::OutOfBounds { object: o } if object.is_none_or(|n| &n == o))
        }
        (["no-error-up-to", n], _) => {
            let n: u32 = n.parse().map_err(|_| bad())?;
            matches!(actual, Outcome::NoErrorUpTo(m) if *m == n)
        }
        (["verified"], Outcome::Verified) | (["divergence"], Outcome::Divergence) | (["constant-write"], Outcome::ConstantWrite) => true,
        (["unknown"], Outcome::Unknown(_)) => true,
        ([kind], Outcome::Assertion(k)) if kind == k => true,
        (
            ["verified" | "divergence" | "constant-write" | "unknown" | "assertion" | "precondition" | "postcondition" | "loop-invariant"
            | "barrier-invariant" | "null-pointer"],
            _,
        ) => false,
        _ => return Err(bad()),
    })
}

/// A failure, printed as its text (datatest-stable prints a test's error with `Debug`).
struct Failure(String);

impl std::fmt::Debug for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

fn check(path: &Path, text: String) -> datatest_stable::Result<()> {
    run(path, &text).map_err(|e| Failure(e).into())
}

fn run(path: &Path, text: &str) -> Result<(), String> {
    let name = path.display();
    let h = header(text).map_err(|e| format!("{name}: {e}"))?;
    let kernel = syncfix_kir::parse(text).map_err(|e| format!("{name}:{}:{}: {}", e.line, e.col, e.message))?;
    if (kernel.launch.block_dim, kernel.launch.grid_dim) != h.launch {
        return Err(format!(
            "{name}: `; launch:` says block={:?} grid={:?}, the kernel line block_dim={:?} grid_dim={:?}",
            h.launch.0, h.launch.1, kernel.launch.block_dim, kernel.launch.grid_dim
        ));
    }
    if kernel.insts.values().any(|i| matches!(&i.kind, InstKind::Barrier(b) if b.guard != Guard::Always)) {
        return Err(format!(
            "{name}: barrier variables (`if varN`) are the instrumenter's: a file test verifies a kernel as the front end gives it"
        ));
    }
    let mut opts = h.options;
    opts.deadline = Some(Instant::now() + TIME_LIMIT);
    let ctx = z3::Context::new(&z3::Config::new());
    let (actual, cut) = match Verifier::new(&ctx, &kernel, 0, &opts) {
        Ok(mut v) => {
            let verdict = v.check(&[]);
            (outcome(&kernel, verdict), v.stats.cut_loops)
        }
        Err(e) => (Outcome::Unknown(e.to_string()), 0),
    };
    if !matches(&h.expect, &actual).map_err(|e| format!("{name}: {e}"))? {
        return Err(format!("{name}: expected `{}`, the verifier says `{actual}`", h.expect));
    }
    if let Some(want) = h.cut_loops {
        if want != cut {
            return Err(format!("{name}: expected {want} loops cut (proved with invariants), the verifier cut {cut}"));
        }
    }
    Ok(())
}

datatest_stable::harness! {
    { test = check, root = "tests/filetests", pattern = r"\.kir$" },
}
