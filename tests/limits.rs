//! Time is a result: `--timeout=S` ends every run with exit 7 within S + 2 s, SIGINT and SIGTERM
//! end it within a second with 130 / 143, and no temporary file is left behind in any case.
//!
//! The kernels are forced to unroll (`--loop-unwind=100000000`) so that they stay hard once
//! the verifier proves loops with invariants.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `while (1)`: never ends.
const INFINITE: &str = "__global__ void k(int *A) { while (1) { A[threadIdx.x] = 1; } }\n";

/// Three nested loops of 1000 iterations with a shared-memory access. The counters start at
/// a parameter: counted from 0 their values are numerals, which the encoder folds, and the
/// forced unwinding reached the unroller's size limit (exit 6, inconclusive) within 4 s.
const NEST: &str = "__global__ void k(int *A, int a) {
  __shared__ int S[64];
  for (int i = a; i < a + 1000; i++)
    for (int j = a; j < a + 1000; j++)
      for (int l = a; l < a + 1000; l++)
        S[threadIdx.x] = A[threadIdx.x] + i + j + l;
}
";

const FORCE: &str = "--loop-unwind=100000000";

/// A folder with the kernel, and an empty folder to be the run's `TMPDIR`.
struct Setup {
    dir: tempfile::TempDir,
    tmp: tempfile::TempDir,
}

fn setup(src: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cu"), src).unwrap();
    Setup { dir, tmp: tempfile::tempdir().unwrap() }
}

impl Setup {
    fn start(&self, args: &[&str]) -> Child {
        Command::new(assert_cmd::cargo::cargo_bin("syncfix"))
            .args(args)
            .arg("k.cu")
            .current_dir(self.dir.path())
            .env("TMPDIR", self.tmp.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs to the end: exit code, seconds, stdout.
    fn run(&self, args: &[&str]) -> (i32, f64, String) {
        let t = Instant::now();
        let out = self.start(args).wait_with_output().unwrap();
        (out.status.code().unwrap_or(-1), t.elapsed().as_secs_f64(), String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn assert_no_temporary_files(&self) {
        assert_empty(self.tmp.path());
    }
}

fn assert_empty(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
}

const VERIFY: [&str; 3] = ["verify", "--blockDim=64", "--gridDim=1"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    VERIFY.iter().copied().chain(extra.iter().copied()).collect()
}

#[test]
fn timeout_5_ends_the_infinite_loop_with_exit_7_within_7_seconds() {
    let s = setup(INFINITE);
    let (code, secs, _) = s.run(&args(&["--timeout=5", FORCE]));
    assert_eq!(code, 7, "after {secs:.1}s");
    assert!(secs < 7.0, "{secs:.1}s");
    s.assert_no_temporary_files();
}

#[test]
fn timeout_5_ends_the_loop_nest_with_exit_7_within_7_seconds() {
    let s = setup(NEST);
    let (code, secs, _) = s.run(&args(&["--timeout=5", FORCE]));
    assert_eq!(code, 7, "after {secs:.1}s");
    assert!(secs < 7.0, "{secs:.1}s");
    s.assert_no_temporary_files();
}

#[test]
fn the_timeout_verdict_is_json_under_format_json() {
    let s = setup(INFINITE);
    let (code, secs, out) = s.run(&args(&["--timeout=2", FORCE, "--format=json"]));
    assert_eq!(code, 7, "after {secs:.1}s");
    assert!(secs < 4.0, "{secs:.1}s");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["status"], "timeout", "{out}");
    assert_eq!(v["exit_code"], 7, "{out}");
}

#[test]
fn without_a_forced_bound_the_kernels_end_within_7_seconds() {
    // Whatever the verifier can do with them: a proof, unknown, or the time limit.
    for src in [INFINITE, NEST] {
        let s = setup(src);
        let (code, secs, _) = s.run(&args(&["--timeout=5"]));
        assert!([0, 6, 7].contains(&code), "exit {code} after {secs:.1}s\n{src}");
        assert!(secs < 7.0, "{secs:.1}s\n{src}");
        s.assert_no_temporary_files();
    }
}

#[test]
fn the_repair_loop_and_its_re_verification_share_the_limit() {
    let s = setup(NEST);
    let (code, secs, _) = s.run(&["repair", "--blockDim=64", "--gridDim=1", "--timeout=5", FORCE]);
    assert_eq!(code, 7, "after {secs:.1}s");
    assert!(secs < 7.0, "{secs:.1}s");
    s.assert_no_temporary_files();
}

#[test]
fn a_forced_unrolling_past_the_size_limit_is_inconclusive_and_says_why() {
    // NEST counted from 0: the counters are numerals, and the unrolling reaches the
    // encoder's instruction limit within seconds.
    let s = setup(&NEST.replace("int a)", "int)").replace("= a;", "= 0;").replace("< a + 1000", "< 1000"));
    let out = s.start(&args(&["--timeout=120", FORCE])).wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert!(stderr.contains("exceeds 400000 instructions") && stderr.contains("--loop-unwind"), "{stderr}");
    assert!(!stderr.contains("not supported"), "{stderr}");
    s.assert_no_temporary_files();
}

/// Sends `signal` to a run `after` its start; returns the exit code and how long the run took
/// to end after the signal.
fn interrupt(s: &Setup, extra: &[&str], signal: i32, after: Duration) -> (i32, f64) {
    interrupt_when(s, extra, signal, || std::thread::sleep(after))
}

/// Sends `signal` to a run once `wait` returns.
fn interrupt_when(s: &Setup, extra: &[&str], signal: i32, wait: impl FnOnce()) -> (i32, f64) {
    let mut child = s.start(&args(extra));
    wait();
    assert!(child.try_wait().unwrap().is_none(), "the run ended before the signal");
    let t = Instant::now();
    // SAFETY: kill(2) on our own child, which has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let status = child.wait().unwrap();
    (status.code().unwrap_or(-1), t.elapsed().as_secs_f64())
}

/// `signal` one second into the forced runs of both kernels ends each within a second with
/// exit `want`, leaving no temporary file.
fn assert_signal_ends_the_runs(signal: i32, want: i32) {
    for src in [INFINITE, NEST] {
        let s = setup(src);
        let (code, secs) = interrupt(&s, &["--timeout=60", FORCE], signal, Duration::from_secs(1));
        assert_eq!(code, want, "{src}");
        assert!(secs < 1.0, "{secs:.2}s");
        s.assert_no_temporary_files();
    }
}

#[test]
fn sigint_ends_a_run_within_a_second_with_130() {
    assert_signal_ends_the_runs(libc::SIGINT, 130);
}

#[test]
fn sigterm_ends_a_run_within_a_second_with_143() {
    assert_signal_ends_the_runs(libc::SIGTERM, 143);
}

#[test]
fn a_signal_in_the_front_end_kills_clang_and_removes_the_copy_of_the_source() {
    // Once the front end has made its scratch folder, clang is running (a fixed delay was too
    // short on a loaded machine: the signal came before the handlers were installed).
    for (signal, want) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let s = setup(NEST);
        let tmp = s.tmp.path().to_path_buf();
        let scratch_made = move || {
            let t = Instant::now();
            while std::fs::read_dir(&tmp).map_or(true, |mut d| d.next().is_none()) && t.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(2));
            }
        };
        let (code, secs) = interrupt_when(&s, &["--timeout=60", FORCE], signal, scratch_made);
        assert_eq!(code, want);
        assert!(secs < 1.0, "{secs:.2}s");
        s.assert_no_temporary_files();
    }
}

#[test]
fn a_normal_run_leaves_no_temporary_file() {
    let s = setup("__global__ void k(int *A) { A[threadIdx.x] = 1; }\n");
    let (code, _, _) = s.run(&args(&[]));
    assert_eq!(code, 0);
    s.assert_no_temporary_files();
}
