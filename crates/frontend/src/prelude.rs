//! syncfix's prelude headers (`prelude/`: the CUDA and OpenCL built-ins and GPUVerify's
//! annotations) and their precompiled header, kept between runs.
//!
//! Precompiling the prelude costs about 0.15 s, three times a small kernel's own compile. The
//! headers and their PCH depend only on the language, the clang binary, the prelude's text and
//! the options that change how a header compiles (`-D`, `--clang-opt`), not on the kernel or its
//! directory (clang accepts a PCH under other `-I` paths). So they are kept in a cache folder,
//! one subfolder per such key, as ccache or clangd keep theirs:
//! `$SYNCFIX_CACHE_DIR`, else `$XDG_CACHE_HOME/syncfix`, else `$HOME/.cache/syncfix`;
//! `SYNCFIX_CACHE_DIR=` (empty) turns the cache off, and a folder that cannot be written is
//! passed over: the prelude is then written and precompiled in the run's scratch folder.
//!
//! Concurrent runs share a key's folder safely: a header is written once, to a new name that is
//! then hard-linked into place (so a header the PCH was built from never changes: clang checks
//! their sizes and times), and the PCH is built in a scratch folder of the cache folder and
//! renamed into place. The user's source never goes to the cache.

use crate::process::Scratch;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use syncfix_kir::Language;

/// A header of the prelude: its path under `include/` and its text.
pub type Header = (&'static str, &'static str);

const CUDA_PRELUDE: &str = include_str!("../prelude/cuda/syncfix_cuda_prelude.h");
const CUDA_TOOLKIT_PRELUDE: &str = include_str!("../prelude/cuda/syncfix_cuda_toolkit_prelude.h");
const CUDA_RUNTIME_H: &str = include_str!("../prelude/cuda/syncfix_cuda_runtime.h");
const CUDA_H: &str = include_str!("../prelude/cuda/cuda.h");
const COOPERATIVE_GROUPS_H: &str = include_str!("../prelude/cuda/cooperative_groups.h");
const SM_70_RT_HPP: &str = include_str!("../prelude/cuda/crt/sm_70_rt.hpp");
const OPENCL_PRELUDE: &str = include_str!("../prelude/opencl/syncfix_opencl_prelude.h");
const ANNOTATIONS_H: &str = include_str!("../prelude/common/syncfix_annotations.h");
const HOST_MINMAX_H: &str = include_str!("../prelude/cuda/syncfix_host_minmax.h");
/// A header of `prelude/cuda/` under its own path.
macro_rules! cuda_header {
    ($path:literal) => {
        ($path, include_str!(concat!("../prelude/cuda/", $path)))
    };
}
const CUB_PART: &str = "/* syncfix: part of syncfix's CUB stand-in. */\n#include <cub/cub.cuh>\n";

/// The headers of `language`'s prelude; the last one is the prelude itself, which every
/// compile includes first (precompiled or with `-include`). The CUDA ones other than the
/// prelude stand in for the CUDA toolkit's headers of the same names (without a toolkit):
/// `cuda.h`, `cuda_runtime.h`, `cooperative_groups.h` (empty: the prelude declares what they
/// declare), `cooperative_groups/reduce.h`, `math_constants.h`, `cuda_fp16.h`, `curand.h`,
/// `curand_kernel.h` and CUB's block and warp primitives (`cub/cub.cuh`).
pub fn headers(language: Language) -> &'static [Header] {
    match language {
        Language::Cuda => &[
            ("syncfix_annotations.h", ANNOTATIONS_H),
            ("cuda.h", CUDA_H),
            ("cuda_runtime.h", CUDA_H),
            ("cuda_runtime_api.h", CUDA_H),
            ("cooperative_groups.h", COOPERATIVE_GROUPS_H),
            cuda_header!("cooperative_groups/reduce.h"),
            cuda_header!("cooperative_groups/scan.h"),
            cuda_header!("math_constants.h"),
            cuda_header!("cuda_fp16.h"),
            cuda_header!("curand.h"),
            cuda_header!("curand_kernel.h"),
            cuda_header!("cub/cub.cuh"),
            ("cub/block/block_reduce.cuh", CUB_PART),
            ("cub/block/block_scan.cuh", CUB_PART),
            ("cub/warp/warp_reduce.cuh", CUB_PART),
            ("cub/device/device_reduce.cuh", CUB_PART),
            ("cub/device/device_scan.cuh", CUB_PART),
            ("cub/device/device_radix_sort.cuh", CUB_PART),
            ("crt/sm_70_rt.hpp", SM_70_RT_HPP),
            ("syncfix_cuda_runtime.h", CUDA_RUNTIME_H),
            ("syncfix_host_minmax.h", HOST_MINMAX_H),
            ("syncfix_cuda_prelude.h", CUDA_PRELUDE),
        ],
        Language::OpenCl => &[("syncfix_annotations.h", ANNOTATIONS_H), ("syncfix_opencl_prelude.h", OPENCL_PRELUDE)],
    }
}

/// The headers of the CUDA prelude over a real CUDA toolkit (`--cuda-path`): the toolkit's own
/// headers are used, and the prelude (the last header) declares only syncfix's markers and
/// barrier functions and GPUVerify's annotations.
pub fn toolkit_headers() -> &'static [Header] {
    &[
        ("syncfix_annotations.h", ANNOTATIONS_H),
        ("syncfix_host_minmax.h", HOST_MINMAX_H),
        ("syncfix_cuda_toolkit_prelude.h", CUDA_TOOLKIT_PRELUDE),
    ]
}

/// The toolkit headers that `text` includes before anything else (its leading block of
/// `#include` lines, comments, blank lines and `#pragma once`), in order, as spelled: the ones
/// found under `toolkit/include` (`cub/cub.cuh`, `cooperative_groups.h`). The toolkit prelude
/// includes them, so they are precompiled once rather than parsed (and dumped: CUB's AST is
/// about 1 GB of JSON) for every kernel; the program's own `#include` then finds them
/// included. Only the leading block is taken: a header included after a `#define` or `#if`
/// may depend on it.
pub fn toolkit_includes(text: &str, toolkit: &Path) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let mut in_comment = false;
    for line in text.lines() {
        // The line without its comments.
        let mut code = String::new();
        let mut rest = line;
        loop {
            if in_comment {
                match rest.find("*/") {
                    Some(i) => {
                        in_comment = false;
                        rest = &rest[i + 2..];
                    }
                    None => break,
                }
            }
            match (rest.find("/*"), rest.find("//")) {
                (Some(b), l) if l.is_none_or(|l| b < l) => {
                    code.push_str(&rest[..b]);
                    code.push(' ');
                    in_comment = true;
                    rest = &rest[b + 2..];
                }
                (_, Some(l)) => {
                    code.push_str(&rest[..l]);
                    break;
                }
                _ => {
                    code.push_str(rest);
                    break;
                }
            }
        }
        let l = code.trim();
        if l.is_empty() {
            continue;
        }
        let Some(directive) = l.strip_prefix('#').map(str::trim_start) else { break };
        if directive.starts_with("pragma once") {
            continue;
        }
        let Some(spelled) = directive.strip_prefix("include").map(str::trim) else { break };
        let name = spelled
            .strip_prefix('<')
            .and_then(|r| r.split_once('>'))
            .or_else(|| spelled.strip_prefix('"').and_then(|r| r.split_once('"')))
            .map(|(n, _)| n);
        let Some(name) = name else { break };
        if !name.contains("..") && toolkit.join("include").join(name).is_file() && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// The cache folder (see the module's documentation), or `None` when it is turned off.
pub fn cache_root() -> Option<PathBuf> {
    match std::env::var_os("SYNCFIX_CACHE_DIR") {
        Some(d) if d.is_empty() => None,
        Some(d) => Some(PathBuf::from(d)),
        None => std::env::var_os("XDG_CACHE_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".cache")))
            .map(|d| d.join("syncfix")),
    }
}

/// The cache's default size limit in bytes (`$SYNCFIX_CACHE_MAX_MB` sets another, in MiB):
/// each distinct `-D` set, `--clang-opt` or set of CUDA toolkit headers a file includes first
/// adds a subfolder (6 MiB for syncfix's own CUDA prelude, 28 MiB with CUB's headers).
pub const DEFAULT_CACHE_MAX_BYTES: u64 = 512 << 20;

/// A subfolder used within this long is never removed by [`prune`] (a concurrent run may be
/// compiling with its headers).
const IN_USE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Marks the cache subfolder `dir` as used now (its modification time), for [`prune`].
pub fn touch(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

/// Keeps the cache folder `root` within `max_bytes`: removes its least recently used
/// `prelude-*` subfolders (by modification time, see [`touch`]) until the rest fit, never
/// `keep` nor one used in the last hour. Errors are ignored: the cache is only a speed-up.
pub fn prune(root: &Path, keep: &Path, max_bytes: u64) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    let mut dirs: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("prelude-"))
        .filter_map(|e| {
            let used = e.metadata().ok()?.modified().ok()?;
            Some((used, size_of(&e.path()), e.path()))
        })
        .collect();
    let mut total: u64 = dirs.iter().map(|d| d.1).sum();
    dirs.sort();
    let now = std::time::SystemTime::now();
    for (used, bytes, dir) in dirs {
        if total <= max_bytes {
            break;
        }
        let recent = now.duration_since(used).map_or(true, |age| age < IN_USE);
        if dir == keep || recent {
            continue;
        }
        if std::fs::remove_dir_all(&dir).is_ok() {
            total -= bytes;
        }
    }
}

/// The bytes of the files below `dir`.
fn size_of(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size_of(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

/// The cache's size limit: `$SYNCFIX_CACHE_MAX_MB` MiB, else [`DEFAULT_CACHE_MAX_BYTES`].
pub fn cache_max_bytes() -> u64 {
    std::env::var("SYNCFIX_CACHE_MAX_MB").ok().and_then(|v| v.trim().parse::<u64>().ok()).map_or(DEFAULT_CACHE_MAX_BYTES, |mb| mb << 20)
}

/// The arguments, beyond those common to every clang run, with which the prelude is
/// precompiled (`-emit-pch`).
///
/// For CUDA, `-fpch-instantiate-templates`: the templates the prelude's headers (clang's CUDA
/// wrappers, the toolkit's) instantiate are instantiated once, in the PCH, instead of at the
/// end of every translation unit that includes it (clang's default, which made each run that
/// loads the PCH about 50 ms slower than clang's own start-up; the LLVM IR is the same).
pub fn pch_args(language: Language) -> &'static [&'static str] {
    match language {
        Language::Cuda => &["-fpch-instantiate-templates"],
        _ => &[],
    }
}

/// The name of the cache subfolder for a prelude compiled by `clang` with `args`: a hash of
/// syncfix's version, the clang binary (path, size, modification time), the arguments (and
/// [`pch_args`]) and the headers' text.
pub fn key(language: Language, clang: &Path, args: &[String], headers: &[(String, String)]) -> String {
    // FNV-1a: stable across Rust releases, unlike std's default hasher.
    struct Fnv(u64);
    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for b in bytes {
                self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
            }
        }
    }
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    let binary = clang.canonicalize().unwrap_or_else(|_| clang.to_path_buf());
    binary.hash(&mut h);
    if let Ok(m) = std::fs::metadata(&binary) {
        m.len().hash(&mut h);
        m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).hash(&mut h);
    }
    matches!(language, Language::Cuda).hash(&mut h);
    args.hash(&mut h);
    pch_args(language).hash(&mut h);
    headers.hash(&mut h);
    format!("prelude-{:016x}", h.finish())
}

/// Writes `headers` under `dir/include`, each only if it is not there yet (written to a new
/// name, then hard-linked into place, so that a concurrent run never sees half a header and
/// an existing header is never rewritten).
///
/// Errors: the file system's.
pub fn write_headers<N: AsRef<str>, T: AsRef<str>>(dir: &Path, headers: &[(N, T)]) -> std::io::Result<()> {
    let inc = dir.join("include");
    for (name, text) in headers {
        let (name, text) = (name.as_ref(), text.as_ref());
        let path = inc.join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        if path.exists() {
            continue;
        }
        let mut tmp = tempfile::Builder::new().prefix(".header-").tempfile_in(dir)?;
        std::io::Write::write_all(&mut tmp, text.as_bytes())?;
        match std::fs::hard_link(tmp.path(), &path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A folder to build a PCH in, inside the cache folder `dir` (removed when dropped, or when
/// syncfix is stopped by a signal).
///
/// Errors: the file system's.
pub fn build_dir(dir: &Path) -> std::io::Result<Scratch> {
    Scratch::new_in(dir)
}

#[cfg(test)]
mod toolkit_include_tests {
    use super::*;

    #[test]
    fn the_cache_keeps_its_size_limit_removing_the_least_recently_used() {
        let root = tempfile::tempdir().unwrap();
        let hour_ago = |h: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(3600 * h);
        for (name, age) in [("prelude-old", 5), ("prelude-mid", 3), ("prelude-keep", 9), ("prelude-new", 0)] {
            let d = root.path().join(name);
            std::fs::create_dir_all(d.join("include")).unwrap();
            std::fs::write(d.join("include").join("h"), vec![0u8; 1000]).unwrap();
            std::fs::File::open(&d).unwrap().set_modified(hour_ago(age)).unwrap();
        }
        std::fs::write(root.path().join("unrelated"), vec![0u8; 5000]).unwrap();
        // 4000 bytes of preludes, 2500 allowed: the oldest that is neither kept nor in use goes
        // (prelude-keep is older, but it is the one this run uses), then the next.
        prune(root.path(), &root.path().join("prelude-keep"), 2500);
        let left: Vec<bool> =
            ["prelude-old", "prelude-mid", "prelude-keep", "prelude-new"].iter().map(|n| root.path().join(n).exists()).collect();
        assert_eq!(left, vec![false, false, true, true]);
        assert!(root.path().join("unrelated").exists());
        // One used within the hour stays even over the limit.
        prune(root.path(), &root.path().join("prelude-keep"), 0);
        assert!(root.path().join("prelude-new").exists());
    }

    #[test]
    fn only_the_leading_includes_that_the_toolkit_has_are_taken() {
        let dir = tempfile::tempdir().unwrap();
        for h in ["cub/cub.cuh", "cooperative_groups.h", "cuda_fp16.h"] {
            let p = dir.path().join("include").join(h);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let text = "// a program\n#pragma once\n#include <stdio.h>\n/* many\n lines */ #include <cub/cub.cuh>\n#include \"cooperative_groups.h\" // cg\n#define CUDA_NO_HALF\n#include <cuda_fp16.h>\n";
        assert_eq!(toolkit_includes(text, dir.path()), vec!["cub/cub.cuh".to_string(), "cooperative_groups.h".to_string()]);
    }
}
