//! `syncfix suite DIR`: runs a GPUVerify-style test tree, as GPUVerify's `gvtester` does.
//!
//! Each `kernel.cu` / `kernel.cl` starts with `//pass` or `//xfail:CODE`, then `//<flags>`,
//! then `//<regex>` lines that the combined output must match when the exit code is the
//! expected one. Each kernel runs as a separate `syncfix verify` process from its own folder
//! (`${KERNEL_DIR}` in the flags is that folder), with a time limit.

use clap::Args;
use regex::Regex;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use syncfix::testsuite::{parse_header, Header};

#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// The test tree.
    dir: PathBuf,
    /// Parallel jobs (default: the number of cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Seconds per kernel before it is killed (counted as a timeout, exit 7).
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Only kernels whose path contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Write one row per kernel (path, expected, got, seconds, regex ok, stage times) here.
    #[arg(long, value_name = "FILE")]
    tsv: Option<PathBuf>,
    /// Print every kernel, not only the unexpected ones.
    #[arg(long, short = 'v')]
    verbose: bool,
}

struct Outcome {
    path: PathBuf,
    header: Header,
    got: Option<u8>,
    seconds: f64,
    regex_ok: bool,
    stats: String,
    output: String,
}

fn find_kernels(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            find_kernels(&p, out);
        } else if matches!(p.file_name().and_then(|n| n.to_str()), Some("kernel.cu") | Some("kernel.cl")) {
            out.push(p);
        }
    }
}

fn run_one(exe: &Path, kernel: &Path, header: Header, timeout: Duration) -> Outcome {
    let dir = kernel.parent().unwrap_or(Path::new("."));
    let dir_abs = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let file = kernel.file_name().map(PathBuf::from).unwrap_or_default();
    let flags: Vec<String> = header.flags.iter().map(|f| f.replace("${KERNEL_DIR}", &dir_abs.display().to_string())).collect();
    let start = Instant::now();
    let child = Command::new(exe)
        .arg("verify")
        .args(&flags)
        .arg("--stats")
        .arg(&file)
        .current_dir(&dir_abs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            return Outcome { path: kernel.to_path_buf(), header, got: None, seconds: 0.0, regex_ok: false, stats: String::new(), output: e.to_string() }
        }
    };
    // Drain both pipes on threads so a chatty child cannot block.
    let mut so = child.stdout.take();
    let mut se = child.stderr.take();
    let t1 = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(p) = so.as_mut() {
            let _ = p.read_to_string(&mut s);
        }
        s
    });
    let t2 = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(p) = se.as_mut() {
            let _ = p.read_to_string(&mut s);
        }
        s
    });
    let got = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st.code().map(|c| c as u8),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break Some(7);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let output = format!("{}{}", t1.join().unwrap_or_default(), t2.join().unwrap_or_default());
    let stats = output.lines().find_map(|l| l.strip_prefix("syncfix: stats: ")).unwrap_or("").to_string();
    let regex_ok = got == Some(header.expected)
        && header.regexes.iter().all(|r| match Regex::new(&format!("(?m){r}")) {
            Ok(re) => re.is_match(&output),
            Err(_) => false,
        });
    Outcome { path: kernel.to_path_buf(), header, got, seconds, regex_ok, stats, output }
}

pub fn run(a: &SuiteArgs) -> u8 {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("syncfix: error: cannot find my own executable: {e}");
            return crate::exit::COMMAND_LINE_ERROR;
        }
    };
    let mut kernels = vec![];
    find_kernels(&a.dir, &mut kernels);
    if let Some(f) = &a.filter {
        kernels.retain(|k| k.display().to_string().contains(f.as_str()));
    }
    if kernels.is_empty() {
        eprintln!("syncfix: error: no kernel.cu or kernel.cl under {}", a.dir.display());
        return crate::exit::COMMAND_LINE_ERROR;
    }
    let mut work = vec![];
    let mut skipped = 0;
    for k in kernels {
        let text = std::fs::read_to_string(&k).unwrap_or_default();
        match parse_header(&text) {
            Some(h) => work.push((k, h)),
            None => {
                skipped += 1;
                eprintln!("skip {} (no //pass or //xfail header)", k.display());
            }
        }
    }
    let total = work.len();
    let queue = Arc::new(Mutex::new(work.into_iter().enumerate().collect::<Vec<_>>()));
    let results: Arc<Mutex<Vec<(usize, Outcome)>>> = Arc::new(Mutex::new(vec![]));
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)).max(1);
    let timeout = Duration::from_secs(a.timeout);
    let verbose = a.verbose;
    let mut handles = vec![];
    for _ in 0..jobs {
        let (q, r, exe) = (queue.clone(), results.clone(), exe.clone());
        handles.push(std::thread::spawn(move || loop {
            let next = q.lock().ok().and_then(|mut v| v.pop());
            let Some((i, (k, h))) = next else { break };
            let o = run_one(&exe, &k, h, timeout);
            let ok = o.got == Some(o.header.expected) && o.regex_ok;
            if verbose || !ok {
                let got = o.got.map(|c| c.to_string()).unwrap_or_else(|| "crash".into());
                let tag = if ok {
                    "ok  "
                } else if o.got == Some(o.header.expected) {
                    "REGX"
                } else {
                    "FAIL"
                };
                eprintln!("{tag} expected {:>2} got {:>4} {:7.2}s {}", o.header.expected, got, o.seconds, o.path.display());
                if verbose && !ok {
                    for l in o.output.lines().take(6) {
                        eprintln!("       | {l}");
                    }
                }
            }
            if let Ok(mut v) = r.lock() {
                v.push((i, o));
            }
        }));
    }
    for h in handles {
        let _ = h.join();
    }
    let mut results = match Arc::try_unwrap(results).ok().and_then(|m| m.into_inner().ok()) {
        Some(r) => r,
        None => return crate::exit::COMMAND_LINE_ERROR,
    };
    results.sort_by_key(|(i, _)| *i);
    let code_ok = results.iter().filter(|(_, o)| o.got == Some(o.header.expected)).count();
    let all_ok = results.iter().filter(|(_, o)| o.got == Some(o.header.expected) && o.regex_ok).count();
    let secs: f64 = results.iter().map(|(_, o)| o.seconds).sum();
    if let Some(path) = &a.tsv {
        let mut s = String::from("path\texpected\tgot\tseconds\tregex_ok\tstats\n");
        for (_, o) in &results {
            s.push_str(&format!(
                "{}\t{}\t{}\t{:.3}\t{}\t{}\n",
                o.path.display(),
                o.header.expected_name,
                o.got.map(|c| c.to_string()).unwrap_or_else(|| "crash".into()),
                o.seconds,
                o.regex_ok,
                o.stats
            ));
        }
        if let Err(e) = std::fs::write(path, s) {
            eprintln!("syncfix: error: cannot write {}: {e}", path.display());
        }
    }
    println!(
        "{total} kernels ({skipped} skipped): {code_ok} gave the expected exit code, {all_ok} also matched their regular expressions; {:.1}s of kernel time",
        secs
    );
    // The benchmark: per-stage totals from each run's `--stats` line.
    let mut sums = [0f64; 4];
    for (_, o) in &results {
        for (i, key) in ["frontend ", "encode ", "solve ", "verifier calls "].iter().enumerate() {
            if let Some(v) = stat(&o.stats, key) {
                sums[i] += v;
            }
        }
    }
    println!(
        "stages: frontend {:.1}s, encode {:.1}s, solve {:.1}s; {} verifier calls",
        sums[0], sums[1], sums[2], sums[3] as u64
    );
    if all_ok == total {
        0
    } else {
        100
    }
}

/// The number after `key` in a `--stats` line (`frontend 0.311s, ... verifier calls 3, ...`).
fn stat(line: &str, key: &str) -> Option<f64> {
    let rest = &line[line.find(key)? + key.len()..];
    let num: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    num.parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn stats_are_read_back() {
        let l = "frontend 0.311s, encode 0.016s, solve 0.049s, verifier calls 3, barrier variables 2";
        assert_eq!(super::stat(l, "encode "), Some(0.016));
        assert_eq!(super::stat(l, "verifier calls "), Some(3.0));
        assert_eq!(super::stat(l, "nope "), None);
    }
}
