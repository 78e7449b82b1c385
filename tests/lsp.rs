//! `syncfix lsp` in a real editor: Neovim (headless, its built-in LSP client, driven by
//! `tests/lsp/session.lua`) opens a racy kernel, receives the race as a diagnostic with the
//! other access as related information, applies the "Insert barriers" quick fix, saves, and
//! sees the diagnostics clear; the saved file then verifies on the command line. Neovim is
//! installed by the README's test command; without it this test fails (it never skips).

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_syncfix");

/// Runs the Lua session on `kernel`; returns the report it wrote.
fn session(kernel: &Path, expect: &str) -> String {
    let result = kernel.with_extension("report");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lsp/session.lua");
    // The server's scratch folders (copies of the kernel) go here, and must be gone after.
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new("nvim")
        .env("TMPDIR", tmp.path())
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("SYNCFIX", BIN)
        .env("KERNEL", kernel)
        .env("RESULT", &result)
        .env("EXPECT", expect)
        .env("XDG_STATE_HOME", kernel.parent().unwrap())
        .env("XDG_CACHE_HOME", kernel.parent().unwrap())
        .output()
        .expect("nvim (Debian's neovim; the README's test command installs it)");
    let report = std::fs::read_to_string(&result).unwrap_or_default();
    assert!(
        out.status.success() && report.ends_with("OK\n"),
        "the Neovim session failed:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The server may end a moment after Neovim: wait for its folders to go, a few seconds.
    let left = || -> Vec<String> {
        std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect()
    };
    for _ in 0..50 {
        if left().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(left().is_empty(), "scratch folders left behind: {:?}", left());
    report
}

#[test]
fn neovim_shows_the_race_and_applies_the_quick_fix() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = dir.path().join("race.cu");
    std::fs::write(
        &kernel,
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *A) {\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t;\n}\n",
    )
    .unwrap();
    let report = session(&kernel, "fix");
    println!("{report}");
    assert!(
        report.lines().any(|l| l.starts_with("diagnostic 4:") && l.contains(" race on A[") && l.contains("by thread")),
        "the race at its second access:\n{report}"
    );
    assert!(
        report.lines().any(|l| l.starts_with("related 3:") && l.contains("by thread")),
        "the first access is related information:\n{report}"
    );
    // Each access's whole expression is underlined: the store's lvalue `A[threadIdx.x]`
    // (clang's column is its `=`), the load's `A[threadIdx.x + 1]`.
    assert!(report.lines().any(|l| l == "extent 4:3-4:17"), "the store's range:\n{report}");
    assert!(report.lines().any(|l| l == "related extent 3:11-3:29"), "the load's range:\n{report}");
    assert!(report.contains("action Insert barriers"), "{report}");
    assert!(report.contains("cleared"), "{report}");
    let text = std::fs::read_to_string(&kernel).unwrap();
    assert!(text.contains("__syncthreads();"), "{text}");
    let out = Command::new(BIN).args(["verify", "--blockDim=64", "--gridDim=1"]).arg(&kernel).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "the fixed file does not verify:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn neovim_shows_what_to_add_without_a_launch_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = dir.path().join("k.cu");
    std::fs::write(&kernel, "__global__ void k(int *A) { A[threadIdx.x] = 0; }\n").unwrap();
    let report = session(&kernel, "none");
    assert!(
        report.contains("diagnostic 1:1 syncfix: no launch configuration: add a comment line `//--blockDim=64 --gridDim=1`"),
        "{report}"
    );
    // A syncfix.toml beside the file is the other place for it.
    std::fs::write(dir.path().join("syncfix.toml"), "flags = \"--blockDim=64 --gridDim=1\"\n").unwrap();
    std::fs::write(&kernel, "__global__ void k(int *A) { A[0] = threadIdx.x; }\n").unwrap();
    let report = session(&kernel, "none");
    assert!(report.contains("write-write race on A[0]"), "{report}");
}

#[test]
fn neovim_removes_an_unneeded_barrier() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = dir.path().join("k.cu");
    std::fs::write(
        &kernel,
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *A) {\n  A[threadIdx.x] = threadIdx.x;\n  __syncthreads();\n  A[threadIdx.x] += 1;\n}\n",
    )
    .unwrap();
    let report = session(&kernel, "fix");
    assert!(report.contains("diagnostic 4:1 `__syncthreads();` is not needed"), "{report}");
    assert!(report.contains("action Remove unneeded barriers"), "{report}");
    let text = std::fs::read_to_string(&kernel).unwrap();
    assert!(!text.contains("__syncthreads"), "{text}");
}

/// `syncfix lsp` over plain JSON-RPC on its standard input and output: raw bodies sent, each
/// message read.
struct Raw {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl Raw {
    fn start() -> Raw {
        let mut child = Command::new(BIN)
            .arg("lsp")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        Raw { child, stdin, out }
    }

    fn send_raw(&mut self, body: &str) {
        use std::io::Write;
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, m: serde_json::Value) {
        self.send_raw(&m.to_string());
    }

    /// `initialize` (answered) and `initialized`.
    fn initialize(&mut self) {
        self.send(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}));
        assert_eq!(self.recv()["id"], 1);
        self.send(serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    }

    /// `shutdown` (answered) and `exit`; the server must end with success.
    fn shut_down(mut self) {
        self.send(serde_json::json!({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}));
        assert_eq!(self.recv()["id"], 99);
        self.send(serde_json::json!({"jsonrpc": "2.0", "method": "exit"}));
        assert!(self.child.wait().unwrap().success());
    }

    fn recv(&mut self) -> serde_json::Value {
        use std::io::{BufRead, Read};
        let mut len = 0;
        loop {
            let mut line = String::new();
            self.out.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
            if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = n.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        self.out.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }
}

/// A message that is not JSON gets JSON-RPC's parse error (-32700, id null), and the server
/// goes on answering.
#[test]
fn a_message_that_is_not_json_gets_a_parse_error_and_the_server_goes_on() {
    let mut s = Raw::start();
    s.initialize();
    s.send_raw("{bad}");
    let m = s.recv();
    assert_eq!(m["error"]["code"], -32700, "{m}");
    assert!(m["id"].is_null(), "{m}");
    s.shut_down();
}

/// A buffer not saved yet (its folder does not even exist) is checked from the editor's text.
#[test]
fn an_unsaved_buffer_is_checked_from_the_editors_text() {
    let mut s = Raw::start();
    s.initialize();
    let text = "//--blockDim=64 --gridDim=1\n__global__ void k(int *A) { int t = A[threadIdx.x + 1]; A[threadIdx.x] = t; }\n";
    let uri = "file:///nonexistent-syncfix-folder/new.cu";
    s.send(serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}}}));
    let m = s.recv();
    assert_eq!(m["method"], "textDocument/publishDiagnostics", "{m}");
    let message = m["params"]["diagnostics"][0]["message"].as_str().unwrap_or("").to_string();
    assert!(message.contains("possible read-write race on A["), "{m}");
    s.shut_down();
}

/// The verdict's diagnostics are published as soon as it is known, before the repair runs;
/// the quick fix comes with a second publication (issue 27: a kernel whose repair took 20 s
/// showed nothing for 27 s).
#[test]
fn diagnostics_come_before_the_quick_fix() {
    let mut s = Raw::start();
    // A server that never publishes a second time fails the test instead of hanging it.
    let pid = s.child.id() as libc::pid_t;
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(120));
        // SAFETY: sends a signal; the pid is the server's (or nobody's, once it has ended).
        unsafe { libc::kill(pid, libc::SIGKILL) };
    });
    s.initialize();
    let text = "//--blockDim=64 --gridDim=1\n__global__ void k(int *A) { int t = A[threadIdx.x + 1]; A[threadIdx.x] = t; }\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race.cu");
    std::fs::write(&path, text).unwrap();
    let uri = format!("file://{}", path.display());
    s.send(serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}}}));
    for which in ["the verdict's", "the whole analysis's"] {
        let m = s.recv();
        assert_eq!(m["method"], "textDocument/publishDiagnostics", "{which}: {m}");
        let message = m["params"]["diagnostics"][0]["message"].as_str().unwrap_or("").to_string();
        assert!(message.contains("possible read-write race on A["), "{which}: {m}");
    }
    s.send(serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "textDocument/codeAction",
        "params": {"textDocument": {"uri": uri}, "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 1}},
                   "context": {"diagnostics": []}}}));
    let m = s.recv();
    assert_eq!(m["id"], 7, "{m}");
    assert!(m["result"][0]["title"].as_str().unwrap_or("").starts_with("Insert barriers"), "{m}");
    s.shut_down();
}

/// A race a replay confirmed is an error; one it did not (a cut loop's false alarm) is a
/// warning whose message gives the reason (issue 29).
#[test]
fn a_confirmed_race_is_an_error_and_a_possible_one_a_warning() {
    for (name, text, severity, says) in [
        ("real.cu", "//--blockDim=64 --gridDim=1\n__global__ void k(int *A) { A[0] = threadIdx.x; }\n", 1, "confirmed by a replay"),
        (
            "cut.cu",
            "//--blockDim=64 --gridDim=1\n__global__ void k(int n) { __shared__ int s[64]; int x = threadIdx.x; for (int i = 0; i < n; i++) x = 63 - x; s[x] = threadIdx.x; }\n",
            2,
            "possible, not confirmed by a replay: ",
        ),
    ] {
        let mut s = Raw::start();
        s.initialize();
        let uri = format!("file:///nonexistent-syncfix-folder/{name}");
        s.send(serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}}}));
        let m = s.recv();
        assert_eq!(m["method"], "textDocument/publishDiagnostics", "{m}");
        let d = &m["params"]["diagnostics"][0];
        assert_eq!(d["severity"], severity, "{name}: {m}");
        assert!(d["message"].as_str().unwrap_or("").contains(says), "{name}: {m}");
        s.shut_down();
    }
}
