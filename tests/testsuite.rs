//! Our own kernels in `testsuite/` (GPUVerify's layout: `NAME/kernel.cu|cl` with a `//pass` or
//! `//xfail:CODE` header, flags, and output regexes), each checked three ways:
//! 1. `syncfix verify` gives the header's exit code and its output matches the regexes;
//! 2. `syncfix repair` prints exactly `repair.patch` (nothing if the file is absent) and exits
//!    with `exit` from `repair.toml` (0 if absent), its stderr matching `stderr` there;
//! 3. the patch applies with `patch -p1` and `syncfix verify` accepts the patched kernel.
//!
//! `SYNCFIX_BLESS=1 cargo test --test testsuite` rewrites the `repair.patch` files.

use regex::Regex;
use std::path::Path;
use std::process::{Command, Output};
use syncfix::testsuite::parse_header;

const BIN: &str = env!("CARGO_BIN_EXE_syncfix");

#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RepairExpect {
    exit: Option<u8>,
    stderr: Option<String>,
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN).args(args).current_dir(dir).output().expect("run syncfix")
}

fn check(path: &Path) -> datatest_stable::Result<()> {
    let dir = path.parent().ok_or("kernel without a directory")?;
    let file = path.file_name().and_then(|f| f.to_str()).ok_or("bad file name")?;
    let text = std::fs::read_to_string(path)?;
    let header = parse_header(&text).ok_or("missing //pass or //xfail header")?;
    let mut args: Vec<&str> = vec!["verify"];
    args.extend(header.flags.iter().map(|s| s.as_str()));
    args.push(file);
    let out = run(dir, &args);
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.code() != Some(header.expected as i32) {
        return Err(format!("verify: expected exit {}, got {:?}\n{all}", header.expected, out.status.code()).into());
    }
    for r in &header.regexes {
        if !Regex::new(&format!("(?m){r}"))?.is_match(&all) {
            return Err(format!("verify: output does not match /{r}/:\n{all}").into());
        }
    }

    // Repair.
    let expect: RepairExpect = match std::fs::read_to_string(dir.join("repair.toml")) {
        Ok(t) => toml::from_str(&t)?,
        Err(_) => RepairExpect::default(),
    };
    args[0] = "repair";
    let out = run(dir, &args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let want_exit = expect.exit.unwrap_or(0);
    if out.status.code() != Some(want_exit as i32) {
        return Err(format!("repair: expected exit {want_exit}, got {:?}\n{stdout}{stderr}", out.status.code()).into());
    }
    if let Some(r) = &expect.stderr {
        if !Regex::new(&format!("(?m){r}"))?.is_match(&stderr) {
            return Err(format!("repair: stderr does not match /{r}/:\n{stderr}").into());
        }
    }
    let patch_file = dir.join("repair.patch");
    if std::env::var_os("SYNCFIX_BLESS").is_some() {
        if stdout.is_empty() {
            let _ = std::fs::remove_file(&patch_file);
        } else {
            std::fs::write(&patch_file, &stdout)?;
        }
    }
    let want = std::fs::read_to_string(&patch_file).unwrap_or_default();
    if stdout != want {
        return Err(format!("repair: the diff differs from repair.patch\n--- expected\n{want}--- got\n{stdout}").into());
    }
    if stdout.is_empty() {
        return Ok(());
    }

    // The patch applies and the patched kernel verifies.
    let tmp = tempfile::tempdir()?;
    std::fs::copy(path, tmp.path().join(file))?;
    let mut p = Command::new("patch").args(["-p1", "--quiet"]).current_dir(tmp.path()).stdin(std::process::Stdio::piped()).spawn()?;
    std::io::Write::write_all(p.stdin.as_mut().ok_or("patch stdin")?, stdout.as_bytes())?;
    if !p.wait()?.success() {
        return Err("patch -p1 rejected the diff".into());
    }
    args[0] = "verify";
    let out = run(tmp.path(), &args);
    if out.status.code() != Some(0) {
        return Err(format!(
            "the patched kernel does not verify:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(())
}

datatest_stable::harness! {
    { test = check, root = "testsuite", pattern = r"kernel\.(cu|cl)$" },
}
