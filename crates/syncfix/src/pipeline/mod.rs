//! The pipeline: front end -> instrumentation -> verifier -> repair loop -> fix, and the
//! re-verification of the patched text (ARCHITECTURE.md, "crates/syncfix — the library
//! facade"): `verify` (each kernel's verdict and its replay), `repair` (the repair loop and
//! the audit on each kernel), `patch` (the fix of the source and its re-verification),
//! `restructure` and `changes`; here the sites, the dumps and what they share. The public
//! functions of the crate root wrap these with the caller's [`crate::Options`] and turn a
//! [`StageError`] into an [`crate::ErrorReport`].

mod changes;
mod patch;
mod repair;
mod restructure;
mod verify;

pub(crate) use repair::{repair_file, Mode};
pub(crate) use verify::{clang_baseline, verify};

use crate::error::StageError;
use crate::options::Stages;
use crate::results::{BarrierScope, Site};
use crate::text::{TextEdit, TextPoint};
use std::path::Path;
use syncfix_frontend::driver::compile;
use syncfix_instrument::{instrument, SiteKind};
use syncfix_kir::{Kernel, Scope};

/// The candidate barrier sites of every kernel of a file (GPURepair's instrumentation).
pub(crate) fn sites(path: &Path, text: &str, opts: &Stages) -> Result<Vec<Site>, StageError> {
    let compiled = compile(path, text, &opts.frontend)?;
    let mut out = vec![];
    for k in &compiled.kernels {
        let inst = instrument(k, &opts.instrument);
        for v in &inst.vars {
            let (line, col) = k.main_file().line_col(inst.site_offset(v));
            out.push(Site {
                line,
                col,
                kind: match v.kind {
                    SiteKind::Before => "before",
                    SiteKind::Split => "split",
                    SiteKind::Step(_) => "step",
                    SiteKind::End => "end",
                    SiteKind::Existing => "existing",
                },
                scope: match v.scope {
                    Scope::Block => BarrierScope::Block,
                    Scope::Grid => BarrierScope::Grid,
                    Scope::Tile { .. } => BarrierScope::Warp,
                },
                fences: match v.fences {
                    syncfix_kir::Fences::Const { local: true, global: false } => "local",
                    syncfix_kir::Fences::Const { local: false, global: true } => "global",
                    syncfix_kir::Fences::Const { .. } => "local+global",
                    syncfix_kir::Fences::Dynamic(_) => "dynamic",
                },
                depth: v.depth,
                weight: v.weight,
                in_callee: v.in_callee,
            });
        }
    }
    Ok(out)
}

/// Compiles and instruments a file, for `--emit=kir` / `--emit=instrumented` dumps.
/// `audit`: with `instrumented`, the barrier variables an audit checks (the user's barriers
/// only, each of them inspected), as `repair_text` sets them.
pub(crate) fn dump(path: &Path, text: &str, opts: &Stages, instrumented: bool, audit: bool) -> Result<String, StageError> {
    let compiled = compile(path, text, &opts.frontend)?;
    let mut config = opts.instrument.clone();
    if audit {
        config.new_sites = false;
        config.options.disable_inspect = false;
    }
    let mut s = String::new();
    for k in &compiled.kernels {
        if instrumented {
            let inst = instrument(k, &config);
            s.push_str(&format!("{}", inst.kernel));
            s.push_str("barrier variables:\n");
            s.push_str(&inst.describe_vars());
        } else {
            s.push_str(&format!("{k}"));
        }
    }
    Ok(s)
}

/// `notes` in their order, each once.
pub(crate) fn unique<'a>(notes: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for n in notes {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

/// `f` of each kernel (its index and itself), in the kernels' order, on as many threads as there are cores (at most
/// one per kernel): the kernels of a file are independent (each its own Z3 context), and a
/// template's instantiations are several kernels of one source (HeCBench bitpacking: 8).
/// A kernel not started before a cancellation gives [`StageError::Cancelled`].
pub(super) fn each_kernel<T: Send>(
    kernels: &[Kernel],
    opts: &Stages,
    f: impl Fn(usize, &Kernel) -> Result<T, StageError> + Sync,
) -> Vec<Result<T, StageError>> {
    let run = |i: usize, k: &Kernel| if opts.cancelled() { Err(StageError::Cancelled) } else { f(i, k) };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(kernels.len());
    if threads <= 1 {
        return kernels.iter().enumerate().map(|(i, k)| run(i, k)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Result<T, StageError>>>> = kernels.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(k) = kernels.get(i) else { break };
                let r = run(i, k);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    slots.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()).unwrap_or(Err(StageError::Cancelled))).collect()
}

/// The fix's edit `e` of `text` as the report gives it (line and column of each end).
pub(super) fn text_edit(text: &str, e: &syncfix_fix::Edit) -> TextEdit {
    TextEdit { start: TextPoint::of(text, e.range.start), end: TextPoint::of(text, e.range.end), replacement: e.replacement.clone() }
}
