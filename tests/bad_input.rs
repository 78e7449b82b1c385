//! The bad-input catalogue of the README ("Bad input"): one test per row, each checking the
//! message and the exit code a user gets, and that the user's file is never harmed.

use assert_cmd::Command;
use std::fs;
use std::path::Path;

const RACE: &str = "__global__ void k(int *A) {\n  A[threadIdx.x] = A[threadIdx.x + 1];\n}\n";
const LAUNCH: [&str; 2] = ["--blockDim=64", "--gridDim=1"];

/// Runs syncfix in `dir` (with `env` set): exit code, stdout, stderr.
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = Command::cargo_bin("syncfix").unwrap();
    c.current_dir(dir).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    run_env(dir, args, &[])
}

/// `verify` with the launch flags on `file`.
fn verify(dir: &Path, file: &str) -> (i32, String, String) {
    run(dir, &[&["verify"], &LAUNCH[..], &[file]].concat())
}

#[track_caller]
fn expect(got: (i32, String, String), code: i32, message: &str) {
    let (c, out, err) = got;
    assert_eq!(c, code, "stdout: {out}\nstderr: {err}");
    assert!(err.contains(message), "wanted {message:?} in stderr: {err}");
}

#[test]
fn missing_file() {
    let d = tempfile::tempdir().unwrap();
    expect(verify(d.path(), "missing.cu"), 1, "syncfix: error: missing.cu: No such file or directory");
}

#[test]
fn directory() {
    let d = tempfile::tempdir().unwrap();
    fs::create_dir(d.path().join("k.cu")).unwrap();
    expect(verify(d.path(), "k.cu"), 1, "k.cu: is a directory, not a kernel file");
}

#[test]
fn empty_file() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), "").unwrap();
    expect(verify(d.path(), "k.cu"), 4, "syncfix: error: k.cu: no kernel found");
}

#[test]
fn binary_file() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), b"\x7fELF\x02\x01\x01\0\0\0").unwrap();
    expect(verify(d.path(), "k.cu"), 1, "k.cu: a binary file (it contains NUL bytes), not CUDA or OpenCL source");
}

#[test]
fn latin1_text_is_read_and_patched_in_latin1() {
    // clang reads bytes: a Latin-1 comment is no reason to refuse the file.
    let d = tempfile::tempdir().unwrap();
    let mut bytes = b"// r\xe9sum\xe9: \xb5s\n".to_vec();
    bytes.extend_from_slice(RACE.as_bytes());
    fs::write(d.path().join("k.cu"), &bytes).unwrap();
    expect(verify(d.path(), "k.cu"), 6, "not UTF-8; read as Latin-1");
    let mut c = Command::cargo_bin("syncfix").unwrap();
    let out = c.current_dir(d.path()).args([&["repair"], &LAUNCH[..], &["k.cu"]].concat()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // The diff carries the file's own bytes, so that patch finds its context.
    assert!(out.stdout.windows(3).any(|w| w == b"r\xe9s"), "{}", String::from_utf8_lossy(&out.stdout));
    fs::write(d.path().join("fix.patch"), &out.stdout).unwrap();
    let patched = std::process::Command::new("patch").current_dir(d.path()).args(["-p1", "-i", "fix.patch"]).output().unwrap();
    assert!(patched.status.success(), "{}", String::from_utf8_lossy(&patched.stdout));
    let after = fs::read(d.path().join("k.cu")).unwrap();
    assert!(after.starts_with(b"// r\xe9sum\xe9: \xb5s\n") && after.windows(16).any(|w| w == b"__syncthreads();"));
    // --apply writes Latin-1 back, and the patched file verifies.
    fs::write(d.path().join("k.cu"), &bytes).unwrap();
    let (code, _, err) = run(d.path(), &[&["repair", "--apply"], &LAUNCH[..], &["k.cu"]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(fs::read(d.path().join("k.cu")).unwrap(), after);
    expect(verify(d.path(), "k.cu"), 0, "not UTF-8");
}

#[test]
fn unknown_extension() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.txt"), RACE).unwrap();
    expect(verify(d.path(), "k.txt"), 1, "k.txt: cannot tell the kernel's language from the extension `.txt`: give --cuda or --opencl");
    let (code, out, err) = run(d.path(), &[&["verify", "--cuda"], &LAUNCH[..], &["k.txt"]].concat());
    assert_eq!(code, 6, "{out}{err}");
}

#[test]
fn clang_missing() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), RACE).unwrap();
    let env = [("SYNCFIX_CLANG", "/no/such/clang-19"), ("SYNCFIX_CACHE_DIR", "")];
    expect(
        run_env(d.path(), &[&["verify"], &LAUNCH[..], &["k.cu"]].concat(), &env),
        2,
        "syncfix: error: cannot run clang (/no/such/clang-19)",
    );
}

#[test]
fn clang_failing_without_a_message() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), RACE).unwrap();
    let env = [("SYNCFIX_CLANG", "/bin/false"), ("SYNCFIX_CACHE_DIR", "")];
    expect(
        run_env(d.path(), &[&["verify"], &LAUNCH[..], &["k.cu"]].concat(), &env),
        2,
        "syncfix: error: clang (`/bin/false`) failed (exit status: 1) and printed no message",
    );
}

#[test]
fn syntax_error_shows_clangs_diagnostic() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), "__global__ void k(int *A) { A[0] = ; }\n").unwrap();
    expect(verify(d.path(), "k.cu"), 2, "k.cu:1:36: error: expected expression");
}

#[test]
fn zero_negative_and_non_divisible_sizes() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), RACE).unwrap();
    expect(run(d.path(), &["verify", "--blockDim=0", "--gridDim=1", "k.cu"]), 1, "--blockDim=0: dimension 1 is zero");
    expect(run(d.path(), &["verify", "--blockDim=-1", "--gridDim=1", "k.cu"]), 1, "--blockDim=-1: `-1` is not a positive integer");
    expect(
        run(d.path(), &["verify", "--local_size=4", "--global_size=6", "k.cu"]),
        1,
        "Dimension 0 of global size does not divide by dimension 0 of local size",
    );
}

#[test]
fn flags_are_named_as_written() {
    // OpenCL spellings on a CUDA file: the error names the flag the user typed.
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), RACE).unwrap();
    expect(run(d.path(), &["verify", "--local_size=64", "--num_groups=x", "k.cu"]), 1, "--num_groups=x: `x` is not a positive integer");
    expect(run(d.path(), &["verify", "--local_size=0", "--num_groups=1", "k.cu"]), 1, "--local_size=0: dimension 1 is zero");
}

#[test]
fn conflicting_flags() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), RACE).unwrap();
    expect(
        run(d.path(), &[&["verify", "--cuda", "--opencl"], &LAUNCH[..], &["k.cu"]].concat()),
        1,
        "syncfix: error: the argument '--cuda' cannot be used with '--opencl'",
    );
}

#[test]
fn kernel_name_that_does_not_exist() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), RACE).unwrap();
    expect(
        run(d.path(), &[&["verify", "--kernel=nope"], &LAUNCH[..], &["k.cu"]].concat()),
        4,
        "syncfix: error: k.cu: no kernel named `nope`",
    );
}

#[cfg(unix)]
#[test]
fn apply_refuses_a_read_only_file() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("k.cu");
    fs::write(&path, RACE).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let (code, out, err) = run(d.path(), &[&["repair", "--apply"], &LAUNCH[..], &["k.cu"]].concat());
    assert_eq!(code, 203, "{err}");
    assert!(err.contains("cannot write k.cu: the file is read-only; syncfix does not overwrite it"), "{err}");
    // The diff is still printed; the file is as it was.
    assert!(out.contains("+  __syncthreads();"), "{out}");
    assert_eq!(fs::read_to_string(&path).unwrap(), RACE);
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o444);
}

#[cfg(unix)]
#[test]
fn apply_keeps_hard_links_owner_and_permissions() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("k.cu");
    fs::write(&path, RACE).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o664)).unwrap();
    fs::hard_link(&path, d.path().join("link.cu")).unwrap();
    let before = fs::metadata(&path).unwrap();
    let (code, _, err) = run(d.path(), &[&["repair", "--apply"], &LAUNCH[..], &["k.cu"]].concat());
    assert_eq!(code, 0, "{err}");
    let after = fs::metadata(&path).unwrap();
    assert_eq!(
        (after.ino(), after.nlink(), after.uid(), after.gid(), after.mode()),
        (before.ino(), 2, before.uid(), before.gid(), before.mode())
    );
    let text = fs::read_to_string(d.path().join("link.cu")).unwrap();
    assert!(text.contains("__syncthreads();"), "{text}");
}

#[test]
fn unsupported_construct_is_named_with_its_line() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("k.cu"), "__global__ void k(int *A) {\n  int x = 1;\n  asm(\"st.global.u32 [%0], %1;\" :: \"l\"(A + threadIdx.x), \"r\"(x));\n  A[threadIdx.x] = x;\n}\n").unwrap();
    expect(verify(d.path(), "k.cu"), 4, "k.cu:3:3: error: unsupported construct: the inline assembly `st.global.u32 [$0], $1;`");
    fs::write(
        d.path().join("r.cu"),
        "__device__ int f(int n) { return n ? f(n - 1) : 0; }\n__global__ void k(int *A) { A[threadIdx.x] = f(A[0]); }\n",
    )
    .unwrap();
    expect(verify(d.path(), "r.cu"), 4, "error: unsupported construct: recursive call to `f`");
}

/// A kernel too large to decide in the time given ends with the time limit's verdict, in
/// time (the watchdog's backstop is the limit plus 2 s), and says how to give it longer.
/// Each thread reads and writes its own 64 cells, the reads through `% 4096` (the identity
/// here, but no stride the verifier refutes races by): not decided in 40 s on the 2-core
/// machine, where 3000 plain `A[threadIdx.x * 64 + k] += i` had come down to 2.7 s, under
/// the limit of 3 s the test gives.
#[test]
fn huge_kernel_and_timeout_end_at_the_limit_with_exit_7() {
    let d = tempfile::tempdir().unwrap();
    let mut text = String::from("__global__ void k(int *A) {\n");
    for i in 0..3000 {
        text.push_str(&format!("  A[threadIdx.x * 64 + {}] += A[(threadIdx.x * 64 + {}) % 4096] * {i};\n", i % 64, (i * 7 + 3) % 64));
    }
    text.push_str("}\n");
    fs::write(d.path().join("huge.cu"), &text).unwrap();
    let started = std::time::Instant::now();
    let got = run(d.path(), &[&["verify", "--timeout=3"], &LAUNCH[..], &["huge.cu"]].concat());
    assert!(started.elapsed().as_secs() <= 3 + 2 + 3, "took {:?}", started.elapsed());
    assert!(got.1.contains("GPUVerify kernel analyser finished with 0 verified, 0 errors, 1 time out"), "{}", got.1);
    expect(got, 7, "syncfix: verification timed out; use --timeout=N with a larger N, or --timeout=0 to disable the limit");
    let got = run(d.path(), &[&["repair", "--timeout=3"], &LAUNCH[..], &["huge.cu"]].concat());
    expect(got, 7, "syncfix: repair timed out; use --timeout=N");
}

/// Issue 27's second round: a time limit past what an instant holds is no crash (the longest
/// limit is about 100 years); a size past 32 bits says so and the limit; a compiler that prints
/// no AST is the user's setup, and an empty `SYNCFIX_CLANG` means the default; more
/// `--kernel-args` values than scalar parameters is a command-line error naming them.
#[test]
fn limits_compilers_and_argument_counts() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("ok.cu"), "__global__ void k(int n, int *a, unsigned m) {\n  a[threadIdx.x] = n + m;\n}\n").unwrap();
    for t in ["18446744073709551615", "9223372036854775807"] {
        let (code, out, err) = run(d.path(), &["verify", "--blockDim=32", "--gridDim=1", &format!("--timeout={t}"), "ok.cu"]);
        assert_eq!(code, 0, "{out}{err}");
        let (code, out, err) = run(d.path(), &["repair", "--blockDim=32", "--gridDim=1", &format!("--timeout={t}"), "ok.cu"]);
        assert_eq!(code, 0, "{out}{err}");
    }
    expect(
        run(d.path(), &["verify", "--blockDim=4294967296", "--gridDim=1", "ok.cu"]),
        1,
        "`4294967296` is too large: a size is at most 4294967295",
    );
    expect(
        run_env(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "ok.cu"], &[("SYNCFIX_CLANG", "/bin/true")]),
        2,
        "printed no clang AST",
    );
    let (code, out, err) = run_env(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "ok.cu"], &[("SYNCFIX_CLANG", "")]);
    assert_eq!(code, 0, "{out}{err}");
    expect(
        run(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "--kernel-args=k,1,2,3", "ok.cu"]),
        1,
        "--kernel-args: 3 values for kernel `k`, which has 2 scalar parameters (n, m)",
    );
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "--kernel-args=k,1,2", "ok.cu"]);
    assert_eq!(code, 0, "{out}{err}");
}
