//! `syncfix verify --format json`: one object of schema `syncfix.verdict/1` on stdout, with
//! the fields the README documents; one test per status.

use assert_cmd::Command;
use serde_json::Value;

/// Runs `syncfix verify --format json ARGS FILE` on `src` saved as `name`: exit code and the
/// verdict (stdout must be exactly one JSON object).
fn verdict(name: &str, src: &str, args: &[&str]) -> (i32, Value) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(name), src).unwrap();
    let out = Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(d.path())
        .arg("verify")
        .arg("--format=json")
        .args(args)
        .arg(name)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}):\n{stdout}\nstderr:\n{}", String::from_utf8_lossy(&out.stderr)));
    check_schema(&v);
    (out.status.code().unwrap_or(-1), v)
}

fn cuda(src: &str, extra: &[&str]) -> (i32, Value) {
    let args: Vec<&str> = ["--blockDim=64", "--gridDim=1"].into_iter().chain(extra.iter().copied()).collect();
    verdict("k.cu", src, &args)
}

/// Runs `syncfix verify --blockDim=64 --gridDim=1 EXTRA k.cu` (text output) on `src`.
fn text_verdict(src: &str, extra: &[&str]) -> std::process::Output {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("k.cu"), src).unwrap();
    Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(d.path())
        .args(["verify", "--blockDim=64", "--gridDim=1"])
        .args(extra)
        .arg("k.cu")
        .output()
        .unwrap()
}

fn has(v: &Value, fields: &[&str]) {
    for f in fields {
        assert!(v.get(f).is_some(), "no `{f}` in {v:#}");
    }
}

/// The fields every verdict has, as the README documents them.
fn check_schema(v: &Value) {
    assert_eq!(v["schema"], "syncfix.verdict/1");
    has(v, &["schema", "file", "status", "exit_code", "reason", "kernels", "error", "warnings", "stats"]);
    has(
        &v["stats"],
        &[
            "clang_ms",
            "lowering_ms",
            "encoding_ms",
            "houdini_ms",
            "solving_ms",
            "total_ms",
            "verifier_calls",
            "solver_calls",
            "houdini_rounds",
        ],
    );
    for k in v["kernels"].as_array().unwrap() {
        has(k, &["kernel", "status", "reason", "bound", "defects"]);
        for d in k["defects"].as_array().unwrap() {
            has(d, &["kind", "message", "race", "array", "offset", "stack", "thread", "accesses"]);
            for a in d["accesses"].as_array().unwrap() {
                has(a, &["kind", "file", "line", "column", "thread", "stack"]);
                has(&a["thread"], &["local", "group", "global"]);
            }
        }
    }
}

/// The status, and the file's status is its only kernel's.
fn status(v: &Value) -> &str {
    let s = v["status"].as_str().unwrap();
    if let Some(k) = v["kernels"].as_array().and_then(|k| k.first()) {
        assert_eq!(k["status"], s, "{v:#}");
    }
    s
}

fn defect(v: &Value) -> &Value {
    &v["kernels"][0]["defects"][0]
}

#[test]
fn verified() {
    let (code, v) = cuda("__global__ void k(int *A) { A[threadIdx.x] = 1; }\n", &[]);
    assert_eq!((code, status(&v)), (0, "verified"));
    assert_eq!(v["exit_code"], 0);
    assert_eq!(v["kernels"][0]["kernel"], "k");
    assert_eq!(v["stats"]["verifier_calls"], 1);
    assert!(v["stats"]["clang_ms"].as_f64().unwrap() > 0.0, "{v:#}");
    assert!(v["stats"]["total_ms"].as_f64().unwrap() >= v["stats"]["solving_ms"].as_f64().unwrap());
}

/// Where the solving time went (issue 25): each query solved, by its label, with its
/// properties and time, and Houdini's rounds and time by loop; `--stats` prints both.
#[test]
fn time_by_query_and_by_loop() {
    // Two barrier intervals with a race query each on `s`, and a loop with a barrier
    // (Houdini's candidates).
    let src = "__global__ void k(int *A, int n) {\n  __shared__ int s[64];\n  s[threadIdx.x] = A[threadIdx.x];\n  __syncthreads();\n  for (int i = 0; i < n; i++) {\n    A[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n    __syncthreads();\n  }\n}\n";
    let (code, v) = cuda(src, &[]);
    assert_eq!((code, status(&v)), (0, "verified"), "{v:#}");
    let queries = v["stats"]["query_times"].as_array().expect("query_times");
    assert_eq!(queries.len() as u64, v["stats"]["queries"].as_u64().unwrap(), "{v:#}");
    for q in queries {
        has(q, &["label", "properties", "solved", "ms"]);
        assert_eq!(q["solved"], 1, "{q}");
        assert!(q["properties"].as_u64().unwrap() >= 1, "{q}");
    }
    let labels: Vec<&str> = queries.iter().map(|q| q["label"].as_str().unwrap()).collect();
    assert!(labels.iter().any(|l| l.starts_with("races on `s`")), "{labels:?}");
    let slowest = v["stats"]["slowest_query_ms"].as_f64().unwrap();
    assert_eq!(queries.iter().map(|q| q["ms"].as_f64().unwrap()).fold(0.0, f64::max), slowest, "{v:#}");
    let loops = v["stats"]["houdini_loops"].as_array().expect("houdini_loops");
    assert_eq!(loops.len(), 1, "{v:#}");
    assert_eq!(loops[0]["label"], "loop 0 (line 5)");
    assert_eq!(loops[0]["rounds"], v["stats"]["houdini_rounds"]);
    assert!(loops[0]["ms"].as_f64().unwrap() <= v["stats"]["houdini_ms"].as_f64().unwrap() + 0.01, "{v:#}");
    // The text: the same under --stats.
    let out = text_verdict(src, &["--stats"]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("syncfix: stats: queries by time: "), "{text}");
    assert!(text.contains("races on `s`"), "{text}");
    assert!(text.contains("syncfix: stats: Houdini by loop: loop 0 (line 5) "), "{text}");
}

#[test]
fn bounded_is_not_verified() {
    let src = "__global__ void k(int *A) { for (int i = 0; i < 100; i++) A[threadIdx.x] = i; }\n";
    let (code, v) = cuda(src, &["--loop-unwind=2"]);
    assert_eq!((code, status(&v)), (0, "bounded"));
    assert_eq!(v["kernels"][0]["bound"], 2);
    // The text says so too: the summary line does not count it as verified.
    let out = text_verdict(src, &["--loop-unwind=2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("finished with 0 verified, 0 errors, 1 bounded"), "{text}");
    assert!(text.contains("not a proof"), "{text}");
}

#[test]
fn race_with_its_array_offset_and_both_accesses() {
    let (code, v) = cuda("__global__ void k(int *A) { int t = A[threadIdx.x + 1]; A[threadIdx.x] = t; }\n", &[]);
    assert_eq!((code, status(&v)), (6, "race"));
    let d = defect(&v);
    assert_eq!(d["kind"], "race");
    assert_eq!(d["race"], "read-write");
    assert_eq!(d["array"], "A");
    let element = d["offset"]["element"].as_str().unwrap();
    let index: u64 = element.trim_start_matches("A[").trim_end_matches(']').parse().unwrap();
    assert_eq!(d["offset"]["byte"], index * 4, "{d:#}");
    assert!(d["message"].as_str().unwrap().starts_with("possible read-write race on A["), "{d:#}");
    let a = d["accesses"].as_array().unwrap();
    assert_eq!(a.len(), 2);
    assert_eq!((a[0]["kind"].as_str(), a[1]["kind"].as_str()), (Some("read"), Some("write")));
    assert_eq!((a[0]["file"].as_str(), a[0]["line"].as_u64()), (Some("k.cu"), Some(1)));
    assert_eq!(a[0]["column"], 37);
    assert_eq!(a[1]["column"], 72);
    // The reader reads the element the writer writes: thread t + 1 writes A[t + 1].
    let (t0, t1) = (a[0]["thread"]["local"][0].as_u64().unwrap(), a[1]["thread"]["local"][0].as_u64().unwrap());
    assert_eq!(t0 + 1, t1, "{d:#}");
    assert_eq!(a[1]["thread"]["global"][0], t1);
    assert_eq!(a[1]["thread"]["group"], serde_json::json!([0, 0, 0]));
}

#[test]
fn divergence() {
    let (code, v) = cuda("__global__ void k(int *A) { if (threadIdx.x < 5) __syncthreads(); }\n", &[]);
    assert_eq!((code, status(&v)), (6, "divergence"));
    assert_eq!(defect(&v)["stack"][0]["line"], 1);
}

#[test]
fn assertion() {
    let (code, v) = cuda("__global__ void k(int *A) { __assert(threadIdx.x < 5); }\n", &[]);
    assert_eq!((code, status(&v)), (6, "assertion"));
    assert!(defect(&v)["thread"]["local"][0].as_u64().unwrap() >= 5);
}

#[test]
fn invariant() {
    let src = "__global__ void k(int *A) { for (int i = 0; __invariant(i < 3), i < 10; i++) { A[threadIdx.x] = i; } }\n";
    let (code, v) = cuda(src, &[]);
    assert_eq!((code, status(&v)), (6, "invariant"));
    assert_eq!(defect(&v)["kind"], "invariant");
}

#[test]
fn a_barrier_invariant_counts_as_an_invariant() {
    let src = "__global__ void k(int *A) { __shared__ int S[64]; S[threadIdx.x] = threadIdx.x; \
               __barrier_invariant_1(S[threadIdx.x] == 0, threadIdx.x); __syncthreads(); }\n";
    let (code, v) = cuda(src, &[]);
    assert_eq!((code, status(&v)), (6, "invariant"));
    assert_eq!(defect(&v)["kind"], "barrier_invariant");
}

#[test]
fn precondition() {
    let (code, v) = cuda("__device__ void f(int x) { __requires(x > 3); }\n__global__ void k(int *A) { f(threadIdx.x); }\n", &[]);
    assert_eq!((code, status(&v)), (6, "precondition"));
}

#[test]
fn postcondition() {
    let src = "__device__ int f(int x) { __ensures(__return_val_int() > 3); return x; }\n\
               __global__ void k(int *A) { A[threadIdx.x] = f(threadIdx.x); }\n";
    let (code, v) = cuda(src, &[]);
    assert_eq!((code, status(&v)), (6, "postcondition"));
}

#[test]
fn bounds() {
    let src = "__kernel void k() { __local int L[4]; L[get_local_id(0)] = 0; }\n";
    let (code, v) = verdict("k.cl", src, &["--local_size=8", "--num_groups=1", "--check-array-bounds"]);
    assert_eq!((code, status(&v)), (6, "bounds"));
    let d = defect(&v);
    assert_eq!(d["array"], "L");
    let index = d["thread"]["local"][0].as_u64().unwrap();
    assert!(index >= 4);
    assert_eq!(d["offset"]["element"], format!("L[{index}]"));
    assert_eq!(d["offset"]["byte"], index * 4);
}

#[test]
fn null() {
    let (code, v) = cuda("__global__ void k(int *A, int c) { int *p = c ? A : 0; p[threadIdx.x] = 1; }\n", &[]);
    assert_eq!((code, status(&v)), (6, "null"));
}

#[test]
fn a_constant_write_counts_as_an_assertion() {
    let (code, v) = cuda("__constant__ int C[64];\n__global__ void k(int *A) { C[threadIdx.x] = 1; }\n", &[]);
    assert_eq!((code, status(&v)), (6, "assertion"));
    assert_eq!(defect(&v)["kind"], "constant_write");
}

#[test]
fn unknown_with_its_reason() {
    // An invariant that needs a store at the loop head evaluated again on entry: the verifier
    // cannot establish it and says why.
    let src = "__global__ void k(int *A, int n) {\n for (int i = 0; A[1] = 0, __invariant(i >= 0), i < n; i++) A[threadIdx.x] = i;\n}\n";
    let (code, v) = cuda(src, &[]);
    assert_eq!((code, status(&v)), (6, "unknown"));
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.contains("the invariants of the loop at k.cu:2:") && reason.contains("cannot be evaluated on entry to the loop"),
        "{reason}"
    );
    assert_eq!(v["kernels"][0]["reason"], reason);
}

#[test]
fn timeout() {
    let (code, v) = cuda("__global__ void k(int *A) { while (1) { A[threadIdx.x] = 1; } }\n", &["--timeout=1", "--loop-unwind=100000000"]);
    assert_eq!((code, status(&v)), (7, "timeout"));
    assert_eq!(v["exit_code"], 7);
    assert!(v["reason"].as_str().is_some(), "{v:#}");
}

#[test]
fn a_clang_error_is_an_error_with_its_code_and_message() {
    let (code, v) = cuda("__global__ void k(int *A) { A[0] = ; }\n", &[]);
    assert_eq!((code, status(&v)), (2, "error"));
    assert_eq!(v["error"]["exit_code"], 2);
    assert_eq!(v["error"]["stage"], "clang");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains("k.cu:1:") && msg.contains("expected expression"), "{msg}");
    assert_eq!(v["kernels"], serde_json::json!([]));
}

#[test]
fn a_bad_flag_is_an_error_with_exit_1() {
    let (code, v) = cuda("__global__ void k(int *A) { A[threadIdx.x] = 1; }\n", &["--no-such-flag"]);
    assert_eq!((code, status(&v)), (1, "error"));
    assert_eq!(v["error"]["stage"], "command_line");
    assert!(v["error"]["message"].as_str().unwrap().contains("--no-such-flag"), "{v:#}");
    assert_eq!(v["file"], "k.cu");
    // A bad launch size is caught after parsing: the same shape.
    let (code, v) = verdict("k.cu", "__global__ void k(int *A) {}\n", &["--blockDim=0", "--gridDim=1"]);
    assert_eq!((code, status(&v)), (1, "error"));
    assert!(v["error"]["message"].as_str().unwrap().contains("--blockDim=0: dimension 1 is zero"), "{v:#}");
}

#[test]
fn an_unsupported_construct_is_a_front_end_error() {
    let src = "__device__ int f(int n) { return n <= 0 ? 0 : f(n - 1); }\n__global__ void k(int *A) { A[threadIdx.x] = f(3); }\n";
    let (code, v) = cuda(src, &[]);
    assert_eq!((code, status(&v)), (4, "error"));
    assert_eq!(v["error"]["stage"], "frontend");
}

/// Runs `syncfix CMD --format json` (repair or audit) on a CUDA kernel: exit code and summary.
fn summary(cmd: &str, src: &str, extra: &[&str]) -> (i32, Value) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("k.cu"), src).unwrap();
    let out = Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(d.path())
        .args([cmd, "--format=json", "--blockDim=64", "--gridDim=1"])
        .args(extra)
        .arg("k.cu")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}):\n{stdout}"));
    assert_eq!(v["schema"], "syncfix.repair/1");
    has(&v, &["command", "file", "status", "exit_code", "bound", "applicability", "changes", "patch", "notes", "findings", "stats"]);
    has(&v["stats"], &["verifier_calls", "solver_calls", "repair_iterations", "clauses", "barrier_variables", "total_ms"]);
    assert_eq!(v["exit_code"].as_i64(), out.status.code().map(i64::from));
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn repair_and_audit_summaries() {
    let race = "__global__ void k(int *A) {\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t;\n}\n";
    let (code, v) = summary("repair", race, &[]);
    assert_eq!((code, v["status"].as_str()), (0, Some("repaired")), "{v:#}");
    assert_eq!(v["applicability"], "safe");
    let c = &v["changes"][0];
    assert_eq!(
        (c["kind"].as_str(), c["line"].as_u64(), c["barrier"].as_str()),
        (Some("insert"), Some(3), Some("__syncthreads();")),
        "{v:#}"
    );
    assert_eq!(c["applicability"], "safe", "{v:#}");
    assert!(v["patch"].as_str().unwrap().contains("+  __syncthreads();"), "{v:#}");
    // Bounded: said so, and not safe.
    let looped = "__global__ void k(int *A, int n) {\n  for (int i = 0; i < n; i++) {\n    int t = A[threadIdx.x + 1];\n    A[threadIdx.x] = t;\n  }\n}\n";
    let (_, v) = summary("repair", looped, &["--loop-unwind=2"]);
    assert_eq!((v["bound"].as_u64(), v["applicability"].as_str()), (Some(2), Some("bounded")), "{v:#}");
    assert_eq!(v["changes"][0]["applicability"], "bounded", "{v:#}");
    // Audit of a kernel with a barrier it does not need, and of one that races.
    let extra = "__global__ void k(int *A) {\n  A[threadIdx.x] = 1;\n  __syncthreads();\n  A[threadIdx.x] = 2;\n}\n";
    let (code, v) = summary("audit", extra, &[]);
    assert_eq!((code, v["status"].as_str(), v["applicability"].as_str()), (0, Some("repaired"), Some("unsafe")), "{v:#}");
    assert_eq!((v["changes"][0]["kind"].as_str(), v["changes"][0]["line"].as_u64()), (Some("remove"), Some(3)), "{v:#}");
    assert_eq!(v["changes"][0]["applicability"], "unsafe", "{v:#}");
    let (code, v) = summary("audit", race, &[]);
    assert_eq!((code, v["status"].as_str()), (6, Some("not-verified")), "{v:#}");
    assert!(v["findings"][0].as_str().unwrap().contains("race"), "{v:#}");
    assert_eq!(v["patch"], Value::Null);
}

#[test]
fn repair_and_audit_errors_are_summaries_too() {
    // A syntax error (the front end), a bad flag (the command line), a missing file: each an
    // object of status `error` with the message as its reason and the process's exit code.
    let (code, v) = summary("repair", "__global__ void k(int *A) { A[0] = }\n", &[]);
    assert_eq!((code, v["status"].as_str()), (2, Some("error")), "{v:#}");
    assert!(v["reason"].as_str().unwrap().contains("expected expression"), "{v:#}");
    let (code, v) = summary("audit", "__global__ void k(int *A) { }\n", &["--blockDim=0"]);
    assert_eq!((code, v["status"].as_str(), v["command"].as_str()), (1, Some("error"), Some("audit")), "{v:#}");
    let (code, v) = summary("repair", "__global__ void k(int *A) { }\n", &["--no-such-flag"]);
    assert_eq!((code, v["status"].as_str()), (1, Some("error")), "{v:#}");
    let d = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("syncfix").unwrap().current_dir(d.path()).args(["audit", "--format=json", "missing.cu"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!((v["status"].as_str(), v["file"].as_str()), (Some("error"), Some("missing.cu")), "{v:#}");
    assert_eq!(v["exit_code"].as_i64(), out.status.code().map(i64::from));
}

#[test]
fn an_audit_removing_a_grid_barrier_says_its_scope_is_grid() {
    let src = "#include <cooperative_groups.h>\n__global__ void k(int *A) {\n  A[blockIdx.x * blockDim.x + threadIdx.x] = 1;\n  cooperative_groups::this_grid().sync();\n  A[blockIdx.x * blockDim.x + threadIdx.x] = 2;\n}\n";
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("k.cu"), src).unwrap();
    let out = Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(d.path())
        .args(["audit", "--format=json", "--blockDim=64", "--gridDim=4", "k.cu"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!((out.status.code(), v["status"].as_str()), (Some(0), Some("repaired")), "{v:#}");
    let c = &v["changes"][0];
    assert_eq!((c["kind"].as_str(), c["scope"].as_str(), c["line"].as_u64()), (Some("remove"), Some("grid"), Some(4)), "{v:#}");
}

#[test]
fn a_race_says_whether_a_replay_confirmed_it() {
    // Confirmed: the witness names the threads, the element and the arguments.
    let (_, v) = cuda("__global__ void k(int *A, int n) { if (n > 100) A[0] = threadIdx.x; }\n", &[]);
    let d = defect(&v);
    assert_eq!(d["confirmed"], true, "{d:#}");
    let w = &d["witness"];
    assert_eq!(w["offset"]["element"], "A[0]");
    assert_eq!(w["threads"].as_array().unwrap().len(), 2);
    let n = &w["arguments"].as_array().unwrap()[0];
    assert_eq!(n["name"], "n");
    assert!(n["value"].as_u64().unwrap() as i32 > 100, "{w:#}");
    // Possible: the reason, no witness (a permutation the cut loop forgets).
    let src = "__global__ void k(int n) { __shared__ int s[64]; int x = threadIdx.x; for (int i = 0; i < n; i++) x = 63 - x; s[x] = threadIdx.x; }\n";
    let (code, v) = cuda(src, &[]);
    let d = defect(&v);
    assert_eq!((code, d["confirmed"].as_bool()), (6, Some(false)), "{d:#}");
    assert!(d["reason"].as_str().unwrap().contains("never touch a common byte"), "{d:#}");
    assert!(d.get("witness").is_none());
    // --confirmed-only: the kernel is unknown with the reason, not a race.
    let (code, v) = cuda(src, &["--confirmed-only"]);
    assert_eq!((code, status(&v)), (6, "unknown"), "{v:#}");
    assert!(v["kernels"][0]["reason"].as_str().unwrap().contains("did not confirm"), "{v:#}");
    let (code, v) = cuda("__global__ void k(int *A, int n) { if (n > 100) A[0] = threadIdx.x; }\n", &["--confirmed-only"]);
    assert_eq!((code, status(&v)), (6, "race"));
}
