//! The command line: exit codes for bad input, the repair flags, `--apply`, determinism and
//! the intermediate dumps.

mod common;

use common::*;
use std::path::Path;

#[test]
fn command_line_errors_exit_1_with_a_message() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "k.cu", RACE);
    // No launch configuration: every size is symbolic, and the user is told.
    let (code, _, err) = run(d.path(), &["verify", "k.cu"]);
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("no --blockDim or --gridDim given: those sizes are symbolic"), "{err}");
    let (code, _, err) = run(d.path(), &["verify", "--blockDim=64", "k.cu"]);
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("no --gridDim given: that size is symbolic"), "{err}");
    let (code, _, err) = run(d.path(), &["verify", "--blockDim=0", "--gridDim=1", "k.cu"]);
    assert_eq!(code, 1);
    assert!(err.contains("zero"), "{err}");
    let (code, _, err) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "missing.cu"]);
    assert_eq!(code, 1);
    assert!(err.contains("missing.cu"), "{err}");
    let (code, _, _) = run(d.path(), &["verify", "--no-such-flag", "k.cu"]);
    assert_eq!(code, 1);
    let (code, _, _) = run(d.path(), &[]);
    assert_eq!(code, 1);
    let (code, _, err) = run(d.path(), &["verify", "--local_size=4", "--global_size=6", "k.cu"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Dimension 0 of global size does not divide by dimension 0 of local size"), "{err}");
    let (code, _, err) = run(d.path(), &["verify", "--local_size=[32,64]", "--global_size=[64]", "k.cu"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("Dimensions of local and global size must match: --global_size=[64] has 1 dimension but")
            && err.contains("=[32,64] has 2"),
        "{err}"
    );
    // `*` is a symbolic size: the race is found for some group size dividing 64 (within a
    // group, read-write; between groups, which all write `A[threadIdx.x]`, also write-write:
    // the model chooses).
    let (code, out, err) = run(d.path(), &["verify", "--local_size=*", "--global_size=64", "k.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    let all = format!("{out}{err}");
    assert!(all.contains("possible read-write race on A[") || all.contains("possible write-write race on A["), "{all}");
}

#[test]
fn clang_errors_exit_2_and_name_the_users_file() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "bad.cu", "__global__ void k(int *A) { A[0] = ; }\n");
    let (code, _, err) = run(d.path(), &["verify", "--blockDim=2", "--gridDim=1", "bad.cu"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.cu:1:"), "{err}");
    assert!(err.contains("expected expression"), "{err}");
}

#[test]
fn a_file_without_a_kernel_exits_4() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "lib.cu", "__device__ int f(int x) { return x + 1; }\n");
    let (code, _, err) = run(d.path(), &["verify", "--blockDim=2", "--gridDim=1", "lib.cu"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("no kernel found"), "{err}");
}

#[test]
fn unsupported_constructs_exit_4_naming_the_construct_and_line() {
    let d = tempfile::tempdir().unwrap();
    let src = "__device__ int f(int n) { return n <= 0 ? 0 : f(n - 1); }\n__global__ void k(int *A) {\n  A[threadIdx.x] = f(3);\n}\n";
    kernel(d.path(), "rec.cu", src);
    let (code, _, err) = run(d.path(), &["verify", "--blockDim=2", "--gridDim=1", "rec.cu"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("rec.cu:1:") && err.contains("recursive call to `f`"), "{err}");
}

#[test]
fn misplaced_annotations_exit_as_gpuverify_with_the_line() {
    let d = tempfile::tempdir().unwrap();
    // A loop invariant in the body (GPUVerify's VC generator: exit 5).
    let body =
        "__kernel void k(__local float *p) {\n  for (unsigned i = 0; i < 4; i++) {\n    p[i] = 0;\n    __invariant(i < 5);\n  }\n}\n";
    kernel(d.path(), "body.cl", body);
    let (code, _, err) = run(d.path(), &["verify", "--local_size=16", "--num_groups=1", "body.cl"]);
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("body.cl:4:") && err.contains("user-specified invariant does not appear at loop head"), "{err}");
    // After a short-circuit `&&` of the condition: not at the head either.
    let and = "__kernel void k(__local float *p) {\n  for (unsigned i = 0;\n       __invariant(i >= 0 && i < 5),\n       i < 4; i++) { p[i] = 0; }\n}\n";
    kernel(d.path(), "and.cl", and);
    assert_eq!(run(d.path(), &["verify", "--local_size=16", "--num_groups=1", "and.cl"]).0, 5);
    // In the condition, with `__ite` (a select, not a branch): accepted.
    let ite = and.replace("i >= 0 && i < 5", "__ite(i < 5, 1, 0)");
    kernel(d.path(), "ite.cl", &ite);
    let (code, _, err) = run(d.path(), &["verify", "--local_size=16", "--num_groups=1", "ite.cl"]);
    assert!(code == 0 || code == 6, "{err}");
    // A function-wide invariant before the function's last statement (GPUVerify's front end:
    // exit 4), or over a variable the function updates.
    let early = "__kernel void k(unsigned n, __global int *A) {\n  __function_wide_invariant(n % 2 == 0);\n  if (n > 10) A[get_global_id(0)] = 1;\n}\n";
    kernel(d.path(), "early.cl", early);
    let (code, _, err) = run(d.path(), &["verify", "--local_size=16", "--num_groups=1", "early.cl"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("early.cl:2:") && err.contains("must appear at the end of its function"), "{err}");
    let updated = "__kernel void k(unsigned n) {\n  for (n = 0; n < 8; n += 2) {}\n  __function_wide_invariant(n % 2 == 0);\n}\n";
    kernel(d.path(), "updated.cl", updated);
    let (code, _, err) = run(d.path(), &["verify", "--local_size=16", "--num_groups=1", "updated.cl"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("uses a value computed in the function body"), "{err}");
    // --equality-abstraction with atomics (GPUVerify's VC generator: exit 5).
    kernel(d.path(), "atomic.cl", "__kernel void k(__local int *A) { atomic_inc(A); }\n");
    let (code, _, err) = run(d.path(), &["verify", "--local_size=16", "--num_groups=1", "--equality-abstraction", "atomic.cl"]);
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("--equality-abstraction cannot be used with atomics"), "{err}");
}

#[test]
fn emit_kir_dumps_the_kernel() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "race.cu", RACE);
    let (code, out, _) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "--emit=kir", "race.cu"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("kernel k (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]\n"), "{out}");
    assert!(out.contains("load.4 obj0[") && out.contains("store.4 obj0["), "{out}");
}

#[test]
fn the_same_input_gives_the_same_output() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "loop.cu", LOOP);
    let a = run(d.path(), &["verify", "--blockDim=128", "--gridDim=2", "loop.cu"]);
    let b = run(d.path(), &["verify", "--blockDim=128", "--gridDim=2", "loop.cu"]);
    assert_eq!(a, b);
    assert_eq!(a.0, 6);
    let a = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "loop.cu"]);
    let b = run(d.path(), &["repair", "--blockDim=128", "--gridDim=2", "loop.cu"]);
    assert_eq!(a, b);
}

/// A GPUVerify-layout tree: a kernel that verifies, a race, a clang error, and one whose
/// expected class the manifest gives wrong (so it disagrees).
fn tree(root: &Path) {
    let k = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    k("ok/kernel.cu", "//pass\n//--blockDim=32 --gridDim=1\n__global__ void k(int *A) { A[threadIdx.x] = 1; }\n");
    k("race/kernel.cu", &format!("//xfail:NOT_ALL_VERIFIED\n//--blockDim=32 --gridDim=1\n//possible read-write race on A\n{RACE}"));
    k("clang/kernel.cu", "//xfail:CLANG_ERROR\n//--blockDim=32 --gridDim=1\n__global__ void k(int *A) { A[0] = ; }\n");
    k("wrong/kernel.cu", &format!("//xfail:NOT_ALL_VERIFIED\n//--blockDim=32 --gridDim=1\n{RACE}"));
    std::fs::write(
        root.join("MANIFEST.tsv"),
        "path\tlanguage\texpected\tdefect\tflags\tbasis\n\
         ok/kernel.cu\tCUDA\tpass\tnone\t\t\n\
         race/kernel.cu\tCUDA\tNOT_ALL_VERIFIED\trace\t\t\n\
         clang/kernel.cu\tCUDA\tCLANG_ERROR\tfrontend\t\t\n\
         wrong/kernel.cu\tCUDA\tNOT_ALL_VERIFIED\tdivergence\t\t\n",
    )
    .unwrap();
}

#[test]
fn suite_scores_verdicts_by_defect_class_and_writes_them_all() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path());
    let (code, out, err) = run(d.path(), &["suite", ".", "--jobs=2", "--timeout=60", "--json=suite.json"]);
    // Every exit code is the expected one and the regexes match.
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("4 kernels (0 skipped): 4 gave the expected exit code, 4 also matched"), "{out}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}:\n{out}"))
            .split_whitespace()
            .skip(1)
            .take(5)
            .collect::<Vec<_>>()
            .join(" ")
    };
    // kernels agree disagree unknown timeout
    assert_eq!(row("none "), "1 1 0 0 0", "{out}");
    assert_eq!(row("race "), "1 1 0 0 0", "{out}");
    assert_eq!(row("divergence "), "1 0 1 0 0", "{out}");
    assert_eq!(row("frontend "), "1 1 0 0 0", "{out}");
    assert!(out.contains("divergence -> race: 1"), "{out}");
    // Not a terminal: one plain line per kernel.
    assert_eq!(err.lines().filter(|l| l.starts_with('[')).count(), 4, "{err}");
    assert!(err.contains("DISAGREE divergence -> race"), "{err}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.path().join("suite.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], "syncfix.suite/1");
    let kernels = json["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 4);
    let clang = kernels.iter().find(|k| k["path"] == "clang/kernel.cu").unwrap();
    assert_eq!(
        (clang["class"].as_str(), clang["status"].as_str(), clang["agree"].as_bool()),
        (Some("frontend"), Some("error"), Some(true))
    );
    assert_eq!(clang["verdict"]["error"]["exit_code"], 2);
    let race = kernels.iter().find(|k| k["path"] == "race/kernel.cu").unwrap();
    assert_eq!(race["verdict"]["kernels"][0]["defects"][0]["array"], "A");
    assert_eq!(race["regex_ok"], true);
}

/// `syncfix suite` forks each kernel from a server that has loaded syncfix once; each kernel's
/// verdict, exit code, output and regex check are those of the kernel exec'd on its own
/// (`SYNCFIX_SUITE_FORK=0`).
#[test]
fn suite_forked_kernels_give_what_exec_d_ones_give() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path());
    let tmp = tempfile::tempdir().unwrap();
    let kernels = |fork: &str, json: &str| -> Vec<serde_json::Value> {
        let out = syncfix(d.path())
            .env("SYNCFIX_SUITE_FORK", fork)
            .env("TMPDIR", tmp.path())
            .args(["suite", ".", "--jobs=2", "--timeout=60", &format!("--json={json}")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.path().join(json)).unwrap()).unwrap();
        let mut ks: Vec<serde_json::Value> = doc["kernels"].as_array().unwrap().clone();
        for k in &mut ks {
            // Times differ from run to run.
            k.as_object_mut().unwrap().remove("seconds");
            let v = k["verdict"].as_object_mut().unwrap();
            v.remove("stats");
            if let Some(ks) = v.get_mut("kernels").and_then(|x| x.as_array_mut()) {
                for k in ks {
                    k.as_object_mut().unwrap().remove("stats");
                }
            }
        }
        ks
    };
    // `require`: a kernel that could not be forked would be an internal error.
    let forked = kernels("require", "forked.json");
    let execd = kernels("0", "execd.json");
    assert_eq!(forked.len(), 4);
    assert_eq!(forked, execd);
    // The servers' scratch folders are gone.
    let left: Vec<String> =
        std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert!(left.iter().all(|n| !n.starts_with("syncfix-suite-")), "{left:?}");
}

#[test]
fn suite_without_a_manifest_reads_the_headers() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path());
    std::fs::remove_file(d.path().join("MANIFEST.tsv")).unwrap();
    let (code, out, _) = run(d.path(), &["suite", ".", "--jobs=2", "--filter=r"]);
    assert_eq!(code, 0, "{out}");
    // race/ and wrong/ are //xfail:NOT_ALL_VERIFIED: some defect, and a race is one.
    assert!(out.lines().any(|l| l.split_whitespace().take(3).collect::<Vec<_>>() == ["fail", "2", "2"]), "{out}");
}

#[test]
fn bench_times_every_stage_beside_a_plain_clang_compile() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path());
    let (code, out, err) = run(d.path(), &["bench", ".", "--filter=ok", "--json=bench.json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("median syncfix/clang ratio"), "{out}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.path().join("bench.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], "syncfix.bench/1");
    let k = &json["kernels"][0];
    assert_eq!(k["status"], "verified");
    for stage in ["clang_ms", "lowering_ms", "encoding_ms", "houdini_ms", "solving_ms", "total_ms", "clang_baseline_ms"] {
        assert!(k["stats"][stage].as_f64().is_some(), "{stage}: {k:#}");
    }
    assert!(k["stats"]["clang_baseline_ms"].as_f64().unwrap() > 0.0);
    assert!(k["ratio"].as_f64().unwrap() > 0.0);
    assert_eq!(json["totals"]["verifier_calls"], 1);
    assert!(json["totals"]["median_ratio"].as_f64().unwrap() > 0.0);
}

#[test]
fn a_counterexample_gives_the_kernels_arguments() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "args.cu", "__global__ void k(unsigned a, unsigned b) {\n  __requires(a == 12);\n  __assert(a + b != 48);\n}\n");
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=16", "--gridDim=1", "args.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(err.contains("\na = 12\nb = 36\n"), "{err}");
}

/// Piped, the text is GPUVerify's (the suite's regular expressions match it line by line);
/// `--color=always` draws each access's line with a caret and a label, in colour; on a
/// terminal the drawing is on by itself, in colour unless `NO_COLOR` is set.
#[test]
fn diagnostics_are_drawn_on_a_terminal_and_gpuverifys_text_when_piped() {
    let dir = tempfile::tempdir().unwrap();
    let src = "__global__ void k(int *A) {\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t;\n}\n";
    kernel(dir.path(), "race.cu", src);
    let flags = ["verify", "--blockDim=64", "--gridDim=1", "race.cu"];
    let (code, _, plain) = run(dir.path(), &flags);
    assert_eq!(code, 6);
    // The element is the model's choice (any thread but the first writes where its
    // neighbour reads); each run of one binary gives the same, and every line names it.
    let n: u32 = plain
        .strip_prefix("race.cu: error: possible read-write race on A[")
        .and_then(|r| r.split(']').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{plain}"));
    assert!((1..64).contains(&n), "{plain}");
    assert!(plain.contains(&format!("A[{n}]:\n\nWrite by thread {n} in thread block 0 (global id {n}), ")), "{plain}");
    assert!(plain.contains(&format!(":3:18:\n  A[threadIdx.x] = t;\n\nRead by thread {}", n - 1)), "{plain}");
    assert!(!plain.contains('\x1b') && !plain.contains(" | "), "{plain}");

    let (_, _, drawn) = run(dir.path(), &[&flags[..], &["--color=always"]].concat());
    assert!(drawn.contains("\x1b[") && drawn.contains(&format!("\x1b[1;91merror\x1b[0m: possible read-write race on A[{n}]")), "{drawn}");
    let stripped = String::from_utf8(strip_ansi(drawn.as_bytes())).unwrap();
    // Each access's expression is underlined: the store's lvalue (clang's column is its `=`),
    // the load's `A[threadIdx.x + 1]`.
    assert!(stripped.contains(&format!("3 |   A[threadIdx.x] = t;\n  |   ^^^^^^^^^^^^^^ write by thread {n} of block 0\n")), "{stripped}");
    assert!(
        stripped.contains(&format!(
            "2 |   int t = A[threadIdx.x + 1];\n  |           ^^^^^^^^^^^^^^^^^^ read by thread {} of block 0\n",
            n - 1
        )),
        "{stripped}"
    );

    // A terminal (util-linux's `script` gives the process one) with NO_COLOR: drawn, no colour.
    let cmd = format!("{} {} --color=auto", env!("CARGO_BIN_EXE_syncfix"), flags.join(" "));
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("NO_COLOR", "1")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let tty = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert!(tty.contains(&format!("3 |   A[threadIdx.x] = t;\n  |   ^^^^^^^^^^^^^^ write by thread {n} of block 0")), "{tty}");
    assert!(!tty.contains("\x1b[1;91m"), "NO_COLOR is honoured:\n{tty}");
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env_remove("NO_COLOR")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("\x1b[1;91merror"), "colour on a terminal");
}

fn strip_ansi(b: &[u8]) -> Vec<u8> {
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if b[i] == 0x1b {
            while i < b.len() && !b[i].is_ascii_alphabetic() {
                i += 1;
            }
            i += 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// A symbolic CUDA launch stays within CUDA's limits (at most 1024 threads per block in x, 64
/// in z; at most 65535 blocks in z): races that need a larger block or grid cannot happen.
/// OpenCL has no such limit (the device's), so each of the three races there.
#[test]
fn symbolic_cuda_sizes_stay_within_cudas_launch_limits() {
    let d = tempfile::tempdir().unwrap();
    let cuda = "__global__ void k(int *out) {\n  __shared__ int s[1024], r[64];\n  if (threadIdx.y == 0 && threadIdx.z == 0) s[threadIdx.x % 1024] = threadIdx.x;\n  if (threadIdx.x == 0 && threadIdx.y == 0) r[threadIdx.z % 64] = threadIdx.z;\n  if (threadIdx.x + threadIdx.y + threadIdx.z == 0 && blockIdx.x == 0 && blockIdx.y == 0) out[blockIdx.z % 65536] = blockIdx.z;\n}\n";
    kernel(d.path(), "lim.cu", cuda);
    let (code, out, err) = run(d.path(), &["verify", "lim.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    let mut opencl = cuda.replace("__global__ void k(int *out)", "__kernel void k(__global int *out)").replace("__shared__", "__local");
    for (d3, f) in ["x", "y", "z"].iter().enumerate() {
        opencl = opencl
            .replace(&format!("threadIdx.{f}"), &format!("get_local_id({d3})"))
            .replace(&format!("blockIdx.{f}"), &format!("get_group_id({d3})"));
    }
    let lines: Vec<&str> = opencl.lines().collect();
    for (line, array) in [(2, "s"), (3, "r"), (4, "out")] {
        let only: Vec<&str> = lines.iter().enumerate().map(|(i, l)| if (2..=4).contains(&i) && i != line { "  ;" } else { l }).collect();
        kernel(d.path(), "lim.cl", &(only.join("\n") + "\n"));
        let (code, out, err) = run(d.path(), &["verify", "lim.cl"]);
        assert_eq!(code, 6, "{out}{err}");
        assert!(format!("{out}{err}").contains(&format!("write-write race on {array}[")), "{out}{err}");
    }
}

/// A pointer read from memory when the kernel stores no address (a field of a struct the host
/// filled with `cudaMalloc`'s results, as HeCBench's gmm does) points where the host put it:
/// not modelled, so an unsupported construct naming its line, never a null-pointer defect.
/// A pointer made from NULL stays a possible null pointer access (GPUVerify's suite).
#[test]
fn a_pointer_the_host_stored_in_memory_is_not_modelled_nor_null() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "s.cu", "struct S { float *a; int n; };\n__global__ void k(S *s) {\n  s->a[threadIdx.x] = 1.0f;\n}\n");
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "s.cu"]);
    assert_eq!(code, 4, "{out}{err}");
    assert!(err.contains("s.cu:3:") && err.contains("pointer read from memory"), "{err}");
    assert!(!format!("{out}{err}").contains("null pointer"), "{out}{err}");
    // With another kernel in the file, that one is verified and this one is inconclusive.
    kernel(d.path(), "two.cu", "struct S { float *a; int n; };\n__global__ void k(S *s) {\n  s->a[threadIdx.x] = 1.0f;\n}\n__global__ void ok(float *a) {\n  a[threadIdx.x] = 1.0f;\n}\n");
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "two.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(
        err.contains("kernel `k` could not be verified: unsupported construct at line 3: an access through a pointer read from memory"),
        "{err}"
    );
    assert!(format!("{out}{err}").contains("1 verified, 0 errors, 1 inconclusive"), "{out}{err}");
    kernel(d.path(), "n.cu", "__global__ void k() {\n  char *p = 0;\n  p = p + 5;\n  p[threadIdx.x] = 1;\n}\n");
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "n.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(err.contains("possible null pointer access"), "{err}");
}

/// A parameter `float x[][N]` (a pointer to arrays, `float (*)[16]`) is the kernel's own
/// array, never null (issue 29: it was taken for a function pointer and reported as a
/// possible null pointer access with `x = 0`); a race through it is still found.
#[test]
fn an_array_of_arrays_parameter_is_an_array_not_a_null_pointer() {
    let d = tempfile::tempdir().unwrap();
    kernel(d.path(), "a.cu", "#define N 16\n__global__ void k(float x[][N], float *y) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  y[i] = x[i][0];\n}\n");
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=4", "a.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    kernel(d.path(), "r.cu", "#define N 16\n__global__ void k(float x[][N]) {\n  x[threadIdx.x][0] = x[threadIdx.x + 1][0];\n}\n");
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "r.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(err.contains("race on x["), "{err}");
}

/// `-` reads the kernel from standard input, named by --stdin-filename (its extension picks
/// the language; default `stdin.cu`, `stdin.cl` with --opencl); --apply refuses it.
#[test]
fn the_kernel_from_standard_input() {
    let d = tempfile::tempdir().unwrap();
    let out = syncfix(d.path()).args(["verify", "--blockDim=32", "--gridDim=1", "-"]).write_stdin(RACE).output().unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("stdin.cu: error: possible read-write race on A["),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cl = "__kernel void k(__global int *a) { a[get_local_id(0) + 1] = a[get_local_id(0)]; }\n";
    let out = syncfix(d.path())
        .args(["verify", "--local_size=32", "--num_groups=1", "--stdin-filename=dir/k.cl", "-"])
        .write_stdin(cl)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert!(String::from_utf8_lossy(&out.stderr).contains("k.cl: error: possible"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = syncfix(d.path())
        .args(["repair", "--blockDim=32", "--gridDim=1", "--stdin-filename=src/my.cu", "-"])
        .write_stdin(RACE)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("--- a/src/my.cu\n+++ b/src/my.cu\n"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = syncfix(d.path()).args(["repair", "--apply", "--blockDim=32", "--gridDim=1", "-"]).write_stdin(RACE).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--apply rewrites a file: not the standard input"));
}

/// A kernel of `n` barrier intervals over `n` shared arrays; with `race_at`, the barrier
/// ending that interval is missing, so its read races with the next interval's write.
fn intervals(n: usize, race_at: Option<usize>) -> String {
    let mut s = String::from("__global__ void k(float *out) {\n");
    for i in 0..n {
        s.push_str(&format!("  __shared__ float s{i}[64];\n"));
    }
    s.push_str("  unsigned t = threadIdx.x;\n  float acc = 0;\n");
    for i in 0..n {
        s.push_str(&format!("  s{i}[t] = out[t] + {i};\n"));
        s.push_str(&format!("  {}\n", if race_at == Some(i) { "" } else { "__syncthreads();" }));
        s.push_str(&format!("  acc += s{i}[(t + 1) % 64];\n"));
        s.push_str(&format!("  s{}[t] = acc;\n", (i + 1) % n));
        s.push_str("  __syncthreads();\n");
    }
    s.push_str("  out[t] = acc;\n}\n");
    s
}

#[test]
fn queries_solved_on_several_threads_give_the_verdicts_and_traces_of_one_thread() {
    let d = tempfile::tempdir().unwrap();
    for (name, race_at, code) in [("ok.cu", None, 0), ("late.cu", Some(9), 6), ("early.cu", Some(2), 6)] {
        kernel(d.path(), name, &intervals(12, race_at));
        let flags = ["--blockDim=64", "--gridDim=1", "--format=json"];
        let one = run(d.path(), &[&["verify", "--solver-threads=1"][..], &flags, &[name]].concat());
        let four = run(d.path(), &[&["verify", "--solver-threads=4"][..], &flags, &[name]].concat());
        assert_eq!(one.0, code, "{name}: {}", one.2);
        let strip = |json: &str| {
            let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
            // Times and solver calls differ; the verdict, trace and properties must not.
            v.as_object_mut().unwrap().remove("stats");
            for k in v["kernels"].as_array_mut().unwrap() {
                k.as_object_mut().unwrap().remove("stats");
            }
            v
        };
        assert_eq!((one.0, strip(&one.1)), (four.0, strip(&four.1)), "{name}");
        if race_at.is_some() {
            let one = run(d.path(), &["repair", "--solver-threads=1", "--blockDim=64", "--gridDim=1", name]);
            let four = run(d.path(), &["repair", "--solver-threads=4", "--blockDim=64", "--gridDim=1", name]);
            assert_eq!((one.0, &one.1), (four.0, &four.1), "{name}");
            assert!(one.1.contains("+  __syncthreads();"), "{name}: {}", one.1);
        }
    }
}

/// After a race or divergence, a note says whether a replay on concrete threads reproduced it
/// (the threads, the element, the loop iterations, the arguments) or why not.
#[test]
fn a_note_says_whether_a_replay_confirmed_the_race() {
    let d = tempfile::tempdir().unwrap();
    kernel(
        d.path(),
        "loop.cu",
        "__global__ void k(int *A) {\n  __shared__ int s[64];\n  int acc = 0;\n  for (int i = 0; i < 4; i++) {\n    s[threadIdx.x] = i;\n    __syncthreads();\n    acc += s[(threadIdx.x + 1) % 64];\n  }\n  A[threadIdx.x] = acc;\n}\n",
    );
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "loop.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    let note = err
        .lines()
        .find(|l| l.starts_with("loop.cu: note: confirmed by a replay on concrete threads: "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(note.contains(" of the loop at line 4"), "{note}");
    kernel(d.path(), "div.cu", "__global__ void k(int *A) {\n  if (threadIdx.x < 16) __syncthreads();\n}\n");
    let (_, _, err) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "div.cu"]);
    assert!(err.contains("waits at this barrier and thread "), "{err}");
    kernel(
        d.path(),
        "cut.cu",
        "__global__ void k(int n) {\n  __shared__ int s[64];\n  int x = threadIdx.x;\n  for (int i = 0; i < n; i++) x = 63 - x;\n  s[x] = threadIdx.x;\n}\n",
    );
    let (code, _, err) = run(d.path(), &["verify", "--blockDim=64", "--gridDim=1", "cut.cu"]);
    assert_eq!(code, 6);
    assert!(
        err.contains("cut.cu: note: possible (not confirmed by a replay on concrete threads): the accesses at line 5 and line 5 never"),
        "{err}"
    );
}

/// `--help` groups the flags as GPUVerify's documentation does (general, launch sizes,
/// advanced, development, invariant inference), syncfix's own apart, GPURepair's weights on
/// `repair` and `audit`.
#[test]
fn help_groups_the_flags_as_gpuverify_does() {
    let d = tempfile::tempdir().unwrap();
    let (code, out, _) = run(d.path(), &["verify", "--help"]);
    assert_eq!(code, 0);
    // The lines under `heading:` up to the next heading (a line of its own ending in `:`).
    let section = |heading: &str| -> String {
        let mut lines = out.lines().skip_while(|l| *l != format!("{heading}:"));
        assert!(lines.next().is_some(), "no `{heading}` in {out}");
        lines.take_while(|l| !(l.ends_with(':') && l.starts_with(|c: char| c.is_ascii_uppercase()))).collect::<Vec<_>>().join("\n")
    };
    assert!(section("Launch sizes (GPUVerify's CUDA- and OpenCL-specific options)").contains("--blockDim"), "{out}");
    let general = section("General options (GPUVerify's)");
    assert!(["--findbugs", "--loop-unwind", "--only-intra-group", "--timeout", "-D"].iter().all(|f| general.contains(f)), "{general}");
    assert!(section("Advanced options (GPUVerify's)").contains("--equality-abstraction"), "{out}");
    assert!(section("Invariant inference options (GPUVerify's)").contains("--no-infer"), "{out}");
    assert!(section("Options of syncfix's own").contains("--confirmed-only"), "{out}");
    for command in ["repair", "audit"] {
        let (_, out, _) = run(d.path(), &[command, "--help"]);
        assert!(out.contains("\nBarrier weights (GPURepair):\n      --loop-depth-weight"), "{out}");
    }
}
