//! Running clang-19 (ARCHITECTURE.md, "crates/frontend": `driver`): the scratch folder with
//! the user's source and the prelude headers ([`Setup`]), the precompiled prelude, the
//! arguments common to every run, runs until the deadline, and clang's diagnostics (the lines
//! they name, the user's path in place of the copy's).

use super::options::{language_of, FrontendError, FrontendOptions};
use crate::process::{self, RunError, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use syncfix_kir::Language;

/// Path of a tool: `$SYNCFIX_<NAME>`, then `<name>-19` on the PATH, then LLVM 19's directory.
fn tool(env: &str, name: &str) -> PathBuf {
    // Set and not empty (`SYNCFIX_CLANG=` means the default).
    if let Ok(p) = std::env::var(env) {
        if !p.is_empty() {
            return PathBuf::from(p);
        }
    }
    let versioned = format!("{name}-19");
    if let Ok(path) = std::env::var("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(&versioned);
            if p.is_file() {
                return p;
            }
        }
    }
    PathBuf::from(format!("/usr/lib/llvm-19/bin/{name}"))
}

/// `p` made absolute from the directory syncfix runs in (unchanged if that is unknown).
fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        return p.to_path_buf();
    }
    std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf())
}

/// clang arguments with the relative paths of the path-taking flags (`-I`, `-isystem`,
/// `-iquote`, `-idirafter`, `-include`, joined or as the next argument) made absolute.
pub(super) fn absolute_paths(args: &[String]) -> Vec<String> {
    const FLAGS: [&str; 5] = ["-isystem", "-iquote", "-idirafter", "-include", "-I"];
    let mut out = Vec::with_capacity(args.len());
    let mut next_is_path = false;
    for a in args {
        if next_is_path {
            out.push(absolute(Path::new(a)).display().to_string());
            next_is_path = false;
            continue;
        }
        match FLAGS.iter().find(|f| a.starts_with(*f)) {
            Some(f) if a.len() == f.len() => {
                next_is_path = true;
                out.push(a.clone());
            }
            Some(f) => out.push(format!("{f}{}", absolute(Path::new(&a[f.len()..])).display())),
            None => out.push(a.clone()),
        }
    }
    out
}

/// Runs a tool until `deadline`, adding its time to `time`.
pub(super) fn run(
    cmd: &mut Command,
    what: &str,
    deadline: Option<Instant>,
    time: &mut Duration,
) -> Result<std::process::Output, FrontendError> {
    match process::run(cmd, deadline) {
        Ok((out, t)) => {
            *time += t;
            // A failure without a word (a wrong `SYNCFIX_CLANG`, say) still gets a message.
            if !out.status.success() && out.stderr.iter().all(u8::is_ascii_whitespace) {
                return Err(FrontendError::Tool(format!(
                    "{what} (`{}`) failed ({}) and printed no message{}",
                    cmd.get_program().to_string_lossy(),
                    out.status,
                    if what == "clang" { "; is it clang-19? (SYNCFIX_CLANG names the clang syncfix runs)" } else { "" }
                )));
            }
            Ok(out)
        }
        Err(RunError::Spawn(e)) => Err(FrontendError::Tool(format!("cannot run {what} ({}): {e}", cmd.get_program().to_string_lossy()))),
        Err(RunError::Timeout) => Err(FrontendError::Timeout),
        Err(RunError::Aborted) => Err(FrontendError::Tool("syncfix is stopping".into())),
    }
}

/// The lines of `file` that clang's diagnostics `diags` give errors on (`file:L:C: error:`).
pub(super) fn error_lines(diags: &str, file: &str) -> Vec<u32> {
    diags
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(file)?.strip_prefix(':')?;
            let (line, rest) = rest.split_once(':')?;
            let (_, rest) = rest.split_once(':')?;
            rest.trim_start().starts_with("error").then(|| line.parse().ok()).flatten()
        })
        .collect()
}

/// clang's diagnostics with the temporary copy's name replaced by the user's path.
pub(super) fn user_paths(msg: &str, file_name: &str, path: &Path) -> String {
    let user = path.display().to_string();
    msg.lines()
        .map(|l| match l.strip_prefix(file_name) {
            Some(rest) if rest.starts_with(':') => format!("{user}{rest}"),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The version of the CUDA toolkit in `dir` (`12.4`), from `CUDA_VERSION` in its `cuda.h`.
fn toolkit_version(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("include").join("cuda.h")).ok()?;
    let n: u32 = text.lines().find_map(|l| l.trim().strip_prefix("#define CUDA_VERSION")?.trim().parse().ok())?;
    Some(format!("{}.{}", n / 1000, n % 1000 / 10))
}

/// A scratch directory for the user's source, the prelude headers (cached, see
/// [`crate::prelude`]), and the clang arguments that use them.
pub(super) struct Setup {
    scratch: Scratch,
    pub(super) language: Language,
    /// The arguments common to every clang run (language, `-O0`, includes, `-D`, `-I`,
    /// `--clang-opt`); the prelude is added by each run (precompiled or included).
    pub(super) common: Vec<String>,
    /// The prelude header, which includes the others.
    pub(super) prelude: PathBuf,
    /// The prelude's headers (the prelude last): syncfix's stand-ins or, over a real CUDA
    /// toolkit, its few own declarations.
    pub(super) headers: Vec<(String, String)>,
    /// The cache folder of this prelude, if the cache is used.
    cached: Option<PathBuf>,
    /// The folder a PCH was built in, when it could not be moved into the cache.
    pch_dir: Option<Scratch>,
    /// The user's file name, which the copies in the scratch directory keep.
    pub(super) file_name: String,
    pub(super) clang: PathBuf,
}

impl Setup {
    pub(super) fn new(path: &Path, text: &str, opts: &FrontendOptions) -> Result<Setup, FrontendError> {
        let language = opts.language.unwrap_or_else(|| language_of(path));
        let scratch = Scratch::new().map_err(|e| FrontendError::Tool(format!("cannot create a temporary directory: {e}")))?;
        let clang = tool("SYNCFIX_CLANG", "clang");
        // The options that decide how the prelude compiles; `-I` paths do not.
        let toolkit = opts.source.cuda_toolkit.as_ref().filter(|_| language == Language::Cuda);
        let mut args: Vec<String> = match language {
            // A real toolkit: its headers through clang's CUDA wrapper, libdevice still left
            // out (its functions stay calls, which the lowering models); LLVM's passes off so
            // that the toolkit's `__forceinline__` functions are not inlined by clang (syncfix
            // inlines them itself, keeping the call chain for source locations).
            Language::Cuda if toolkit.is_some() => {
                let dir = toolkit.expect("checked").display().to_string();
                [
                    "-x",
                    "cuda",
                    "--cuda-device-only",
                    "--cuda-gpu-arch=sm_70",
                    "-nocudalib",
                    "-Xclang",
                    "-target-feature",
                    "-Xclang",
                    "+ptx84",
                    "-Xclang",
                    "-disable-llvm-passes",
                ]
                .iter()
                .map(|s| s.to_string())
                .chain([format!("--cuda-path={dir}")])
                // clang reads the toolkit's version from libdevice's folder, which
                // -nocudalib skips; without it clang takes CUDA 7's launch API
                // (`cudaConfigureCall`) and the toolkit's headers do not compile.
                .chain(
                    toolkit_version(toolkit.expect("checked"))
                        .map(|v| format!("-Xclang -target-sdk-version={v}"))
                        .into_iter()
                        .flat_map(|a| a.split(' ').map(str::to_string).collect::<Vec<_>>()),
                )
                .collect()
            }
            // PTX 8.4 (CUDA 12.4, the CUDA_VERSION the prelude gives): clang's headers use the
            // warp built-ins (`__nvvm_shfl_sync_*`) that need PTX 6.0 and later.
            Language::Cuda => [
                "-x",
                "cuda",
                "--cuda-device-only",
                "--cuda-gpu-arch=sm_70",
                "-nocudainc",
                "-nocudalib",
                "-Xclang",
                "-target-feature",
                "-Xclang",
                "+ptx84",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            // gnu89 inline semantics: a plain `inline` function is emitted (C99's would leave
            // only a declaration, and its accesses unseen).
            Language::OpenCl => {
                ["-x", "cl", "-cl-std=CL1.2", "-target", "spir64", "-fgnu89-inline"].iter().map(|s| s.to_string()).collect()
            }
        };
        args.push("-w".into());
        // One optimisation level for the precompiled prelude and both compilations (it decides
        // `__OPTIMIZE__`, which a precompiled header must agree on; OpenCL's default is -O2).
        args.push("-O0".into());
        for d in &opts.source.defines {
            args.push(format!("-D{d}"));
        }
        args.extend(opts.source.clang_args.iter().cloned());
        let mut headers: Vec<(String, String)> =
            if toolkit.is_some() { crate::prelude::toolkit_headers() } else { crate::prelude::headers(language) }
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect();
        // Over a toolkit, the toolkit headers the program includes first are precompiled with
        // the prelude (`prelude::toolkit_includes`).
        if let (Some(dir), Some(last)) = (toolkit, headers.last_mut()) {
            let pre = crate::prelude::toolkit_includes(text, dir);
            if !pre.is_empty() {
                let includes: String = pre.iter().map(|h| format!("#include <{h}>\n")).collect();
                last.1 = format!("{}\n/* The toolkit headers the program includes first, precompiled here. */\n{includes}", last.1);
            }
        }
        let cached = crate::prelude::cache_root()
            .map(|root| root.join(crate::prelude::key(language, &clang, &args, &headers)))
            .filter(|dir| crate::prelude::write_headers(dir, &headers).is_ok());
        // The cache stays within its size limit (least recently used folders go first).
        if let (Some(dir), Some(root)) = (&cached, crate::prelude::cache_root()) {
            crate::prelude::touch(dir);
            crate::prelude::prune(&root, dir, crate::prelude::cache_max_bytes());
        }
        let base = match &cached {
            Some(dir) => dir.clone(),
            None => {
                let dir = scratch.path().to_path_buf();
                crate::prelude::write_headers(&dir, &headers)
                    .map_err(|e| FrontendError::Tool(format!("cannot write the prelude in {}: {e}", dir.display())))?;
                dir
            }
        };
        let inc = base.join("include");
        let prelude = inc.join(headers.last().map_or("", |h| h.0.as_str()));
        let src_dir = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p }).unwrap_or(Path::new("."));
        let src_dir = src_dir.canonicalize().unwrap_or_else(|_| src_dir.to_path_buf());
        let n = args.len() - opts.source.clang_args.len();
        let mut common: Vec<String> = args[..n].to_vec();
        common.push(format!("-I{}", inc.display()));
        // clang runs in the scratch folder: a relative `-I` (and a relative path after `-I`,
        // `-isystem`, `-iquote`, `-idirafter` or `-include` in `--clang-opt`) means what it
        // means to clang run where syncfix runs, so it is made absolute from there.
        for i in &opts.source.include_dirs {
            common.push(format!("-I{}", absolute(i).display()));
        }
        common.push(format!("-I{}", src_dir.display()));
        common.extend(absolute_paths(&opts.source.clang_args));
        Ok(Setup {
            scratch,
            language,
            common,
            prelude,
            headers,
            cached,
            pch_dir: None,
            file_name: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "kernel.cu".into()),
            clang,
        })
    }

    pub(super) fn dir(&self) -> &Path {
        self.scratch.path()
    }

    /// Writes `body` to `name` under the scratch directory.
    pub(super) fn write(&self, name: &str, body: &str) -> Result<PathBuf, FrontendError> {
        let p = self.dir().join(name);
        std::fs::write(&p, body).map_err(|e| FrontendError::Tool(format!("cannot write {}: {e}", p.display())))?;
        Ok(p)
    }

    /// The precompiled prelude: the cached one if there is one (and `fresh` is false), else
    /// one built now and moved into the cache (replacing a spoiled one) when it is used.
    ///
    /// Errors: the prelude does not compile with the user's options ([`FrontendError::Clang`]),
    /// [`FrontendError::Timeout`].
    pub(super) fn pch(&mut self, fresh: bool, deadline: Option<Instant>, time: &mut Duration) -> Result<PathBuf, FrontendError> {
        let cached = self.cached.as_ref().map(|d| d.join("prelude.pch"));
        if let Some(p) = cached.as_ref().filter(|p| !fresh && p.is_file()) {
            return Ok(p.clone());
        }
        let build = match self.cached.as_deref().map(crate::prelude::build_dir) {
            Some(Ok(b)) => Some(b),
            _ => None,
        };
        let pch = build.as_ref().map_or(self.dir(), |b| b.path()).join("prelude.pch");
        let out = run(
            Command::new(&self.clang)
                .current_dir(self.dir())
                .args(&self.common)
                .args(crate::prelude::pch_args(self.language))
                .args(["-S", "-Xclang", "-emit-pch", "-o"])
                .arg(&pch)
                .arg(&self.prelude),
            "clang",
            deadline,
            time,
        )?;
        if !out.status.success() {
            return Err(FrontendError::Clang(format!(
                "syncfix's {} prelude does not compile with these options:\n{}",
                if self.language == Language::Cuda { "CUDA" } else { "OpenCL" },
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        match (build, cached) {
            (Some(b), Some(c)) => {
                if std::fs::rename(&pch, &c).is_ok() {
                    return Ok(c);
                }
                self.pch_dir = Some(b);
                Ok(pch)
            }
            _ => Ok(pch),
        }
    }

    /// Whether clang's messages `diags` are about the cached precompiled prelude `pch` (one
    /// that no longer fits, say after an upgrade that kept clang's size and time).
    pub(super) fn cached_pch_failed(&self, pch: &Path, diags: &str) -> bool {
        self.cached.as_ref().is_some_and(|d| pch.starts_with(d)) && diags.contains(&pch.display().to_string())
    }
}
