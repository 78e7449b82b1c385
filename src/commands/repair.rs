//! `syncfix repair` and `syncfix audit`: GPURepair's repair and the barrier audit.

use crate::args::{AuditArgs, CommonArgs, Format, RepairArgs};
use crate::output::{
    diff_path, fail_repair_like, file_name, print_findings, print_patch, print_repair, print_stats, say_patch_dir, TIMEOUT_HINT,
};
use crate::setup::setup;
use crate::stop;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;
use syncfix::exit;
use syncfix::{ErrorReport, Language, Options, Progress, RepairReport, RepairStatus};

/// `syncfix repair timed out; use --timeout=N ...`: what a run of `what` that reached its time
/// limit says, from the watchdog, the front end or the repair loop alike.
fn timed_out(what: &str) -> String {
    format!("syncfix: {what} timed out; {TIMEOUT_HINT}")
}

/// Runs `repair` or `audit` (`what`, the function `f`) under the deadline's watchdog and prints
/// what every outcome shares (the front end's assumptions, `--stats`). Err: the exit code of a
/// run that gave no report (timeout, an error of the front end or the verifier).
fn run_repair_like(
    c: &CommonArgs,
    opts: &Options,
    text: &str,
    what: &'static str,
    format: Format,
    started: Instant,
    f: fn(&Path, &str, &Options) -> Result<syncfix::RepairReport, ErrorReport>,
) -> Result<syncfix::RepairReport, u8> {
    // The front end's notes reach the user even when the time limit ends the run.
    let progress = Arc::new(Progress::default());
    let opts = &Options { progress: Some(progress.clone()), ..opts.clone() };
    let print_notes = |p: &Progress| {
        for n in p.notes() {
            eprintln!("syncfix: note: {n}");
        }
    };
    if let Some(d) = opts.timeout.map(|t| Instant::now() + t) {
        let progress = progress.clone();
        let file = c.file.display().to_string();
        stop::watchdog(d, move || {
            print_notes(&progress);
            eprintln!("{}", timed_out(what));
            // A JSON or SARIF consumer gets its one object, as on every other way out.
            print_repair(
                format,
                &syncfix::verdict::RepairSummary::failure(
                    what,
                    &file,
                    syncfix::Status::Timeout,
                    &timed_out(what),
                    exit::TIMEOUT,
                    started.elapsed(),
                ),
            );
            exit::TIMEOUT
        });
    }
    let result = f(&c.file, text, opts);
    stop::begin_output();
    let report = match result {
        Ok(r) => r,
        Err(e) if e.is_timeout() => {
            print_notes(&progress);
            let e = ErrorReport { message: timed_out(what), ..e };
            return Err(fail_repair_like(format, what, &c.file.display().to_string(), e, started));
        }
        Err(e) => return Err(fail_repair_like(format, what, &c.file.display().to_string(), e, started)),
    };
    if opts.source.launch_from_host {
        // The notes are the file's, not each kernel's: warn when no launch was taken.
        let name = c.file.display().to_string();
        crate::output::symbolic_sizes_warning(&name, [(name.as_str(), report.frontend_notes.as_slice())]);
    }
    for n in &report.frontend_notes {
        eprintln!("syncfix: note: {n}");
    }
    for a in &report.assumptions {
        eprintln!("syncfix: warning: {a}");
    }
    if c.verbose && report.timings.sites_considered > 0 {
        let t = &report.timings;
        eprintln!(
            "syncfix: note: the repair could enable {} of the {} barrier sites instrumented: those its traces' clauses named (where the races are){}; {} encoded (the kernel's own and those a candidate turned on), in {} encoding{}",
            t.sites_considered,
            t.barrier_vars,
            if t.sites_widened { ", widened when a later trace needed sites the first did not name" } else { ", all from the first trace" },
            t.sites_encoded,
            t.encodings,
            if t.encodings == 1 { "" } else { "s" }
        );
    }
    // Whether the race (or divergence) the repair ordered was confirmed by a replay on
    // concrete threads, or only possible (issue 29).
    for k in &report.kernels {
        let Some(f) = k.defect.as_ref().filter(|_| matches!(k.status, syncfix::RepairStatus::Repaired)) else { continue };
        let Some(r) = f.replay() else { continue };
        let who = if report.kernels.len() > 1 { format!("kernel `{}`: ", k.kernel) } else { String::new() };
        if r.confirmed {
            eprintln!("syncfix: note: {who}the repair orders \"{}\", which a replay on concrete threads confirmed", f.headline());
        } else {
            eprintln!(
                "syncfix: note: {who}the repair orders \"{}\", which a replay on concrete threads did not confirm ({}): its barriers may order a race that cannot happen",
                f.headline(),
                r.reason.as_deref().unwrap_or("no reason given")
            );
        }
    }
    // The inserted barriers that order only defects a replay did not confirm.
    for k in &report.kernels {
        if k.possible_only.is_empty() || !matches!(k.status, syncfix::RepairStatus::Repaired) {
            continue;
        }
        let who = if report.kernels.len() > 1 { format!("kernel `{}`: ", k.kernel) } else { String::new() };
        let lines: Vec<String> = k.possible_only.iter().map(|l| l.to_string()).collect();
        eprintln!(
            "syncfix: note: {who}the barrier{} inserted at line{} {} order{} only races or divergences that a replay on concrete threads did not confirm: review {}, {} may order what cannot happen",
            if lines.len() == 1 { "" } else { "s" },
            if lines.len() == 1 { "" } else { "s" },
            lines.join(", "),
            if lines.len() == 1 { "s" } else { "" },
            if lines.len() == 1 { "it" } else { "them" },
            if lines.len() == 1 { "it" } else { "they" },
        );
    }
    if c.verbose {
        let several = report.kernels.len() > 1;
        for k in &report.kernels {
            for line in &k.log {
                let who = if several { format!("kernel `{}`: ", k.kernel) } else { String::new() };
                eprintln!("syncfix: note: {who}{line}");
            }
        }
    }
    if c.stats {
        print_stats(&report.timings);
        print_calls(&report);
    }
    Ok(report)
}

pub fn audit(a: &AuditArgs, started: Instant) -> u8 {
    let c = &a.common;
    let (text, encoding, mut opts) = match setup(c, None, true) {
        Ok(x) => x,
        Err(e) => return fail_repair_like(a.format, "audit", &c.file.display().to_string(), e, started),
    };
    a.weights.apply(&mut opts.repair);
    if let Some(e) = c.emit {
        return crate::commands::verify::emit(c, &text, &opts, e, true);
    }
    let report = match run_repair_like(c, &opts, &text, "audit", a.format, started, syncfix::audit) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let lang = opts.language.unwrap_or(Language::Cuda);
    let file = c.file.display().to_string();
    let bound = |n: Option<u32>| n.map(|n| format!(" up to {n} loop iterations (not a proof)")).unwrap_or_default();
    let format = a.format;
    let mut patch: Option<String> = None;
    let mut undecided: Vec<u32> = report.kernels.iter().flat_map(|k| k.undecided.iter().copied()).collect();
    undecided.sort_unstable();
    undecided.dedup();
    let code = 'out: {
        match &report.status {
            RepairStatus::NoChange if !undecided.is_empty() => {
                eprintln!(
                    "syncfix: {}: no barrier was shown removable; the barrier{} at line{} {} stay{} undecided: the kernel without \
                     each gave no answer within its share of the time limit (a larger --timeout may decide)",
                    file_name(&file),
                    if undecided.len() == 1 { "" } else { "s" },
                    if undecided.len() == 1 { "" } else { "s" },
                    lines_list(&undecided),
                    if undecided.len() == 1 { "s" } else { "" },
                );
                exit::SUCCESS
            }
            RepairStatus::NoChange => {
                eprintln!(
                    "syncfix: {}: no barrier can be removed: the kernel needs each one the audit may remove{} (barriers that carry \
                 barrier invariants, and warp and tile barriers, are kept as written)",
                    file_name(&file),
                    bound(report.bounded)
                );
                exit::SUCCESS
            }
            RepairStatus::Repaired => {
                let Some(patched) = &report.patched else {
                    break 'out exit::REPAIR_ERROR;
                };
                let (name, dir) = diff_path(&c.file);
                let diff = syncfix::unified_diff(&text, patched, &name);
                say_patch_dir(&dir);
                if format != Format::Text {
                    patch = Some(diff);
                } else {
                    print_patch(&diff, encoding);
                }
                for r in &report.removals {
                    eprintln!(
                        "syncfix: {}:{}: `{}` is not needed: the kernel verifies without it{}",
                        file_name(&file),
                        r.line,
                        r.text,
                        if report.bounded.is_some() { " (within the loop bound)" } else { "" }
                    );
                }
                if !undecided.is_empty() {
                    eprintln!(
                        "syncfix: {}: the barrier{} at line{} {} stay{} undecided: the kernel without each gave no answer within its \
                         share of the time limit (a larger --timeout may decide)",
                        file_name(&file),
                        if undecided.len() == 1 { "" } else { "s" },
                        if undecided.len() == 1 { "" } else { "s" },
                        lines_list(&undecided),
                        if undecided.len() == 1 { "s" } else { "" },
                    );
                }
                eprintln!(
                    "syncfix: {}: {} barrier{} can be removed; the patched kernel {}",
                    file_name(&file),
                    report.removed,
                    if report.removed == 1 { "" } else { "s" },
                    match report.bounded {
                        Some(n) => format!("has no error up to {n} loop iterations (not a proof)"),
                        None => "verifies".into(),
                    }
                );
                exit::SUCCESS
            }
            RepairStatus::NotVerified => {
                print_findings(&report.findings, lang, &file);
                eprintln!(
                    "syncfix: {}: the kernel does not verify, so its barriers are not audited; `syncfix repair` fixes it",
                    file_name(&file)
                );
                exit::NOT_ALL_VERIFIED
            }
            RepairStatus::Unknown(reason) => {
                eprintln!("syncfix: {}: no audit: {reason}", file_name(&file));
                exit::NOT_ALL_VERIFIED
            }
            RepairStatus::Timeout => {
                eprintln!("{}", timed_out("audit"));
                exit::TIMEOUT
            }
            RepairStatus::NotReverified(why) => {
                eprintln!("syncfix: error: internal error: the audit's patch did not re-verify, so it is not printed: {why}");
                exit::REPAIR_ERROR
            }
            RepairStatus::AssertionFailure | RepairStatus::OtherError | RepairStatus::Unrepairable(_) => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: {}: the kernel does not verify; `syncfix repair` fixes it", file_name(&file));
                exit::NOT_ALL_VERIFIED
            }
        }
    };
    print_repair(format, &syncfix::verdict::RepairSummary::of("audit", &file, &report, patch.as_deref(), code, started.elapsed()));
    code
}
pub fn repair(a: &RepairArgs, started: Instant) -> u8 {
    let c = &a.common;
    let format = a.format;
    let (text, encoding, opts) = match setup(c, Some(a), true) {
        Ok(x) => x,
        Err(e) => return fail_repair_like(format, "repair", &c.file.display().to_string(), e, started),
    };
    if let Some(e) = c.emit {
        return crate::commands::verify::emit(c, &text, &opts, e, false);
    }
    let report = match run_repair_like(c, &opts, &text, "repair", format, started, syncfix::repair) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let lang = opts.language.unwrap_or(Language::Cuda);
    let file = c.file.display().to_string();
    let mut patch: Option<String> = None;
    // Kernels repaired beside one that is not: their fix is printed (and applied when asked),
    // then the failure says what is left.
    if !matches!(report.status, RepairStatus::Repaired) && report.patched.is_some() {
        let repaired: Vec<String> =
            report.kernels.iter().filter(|k| matches!(k.status, RepairStatus::Repaired)).map(|k| format!("`{}`", k.kernel)).collect();
        let failed: Vec<String> = report.kernels.iter().filter(|k| !k.status.succeeded()).map(|k| format!("`{}`", k.kernel)).collect();
        // A fix that --apply leaves unapplied (6) changes nothing here: the file is not
        // repaired as a whole anyway, and its exit code says so below.
        match write_fix(a, &report, &text, encoding, &mut patch) {
            Err(code) if code != exit::NOT_ALL_VERIFIED => {
                print_repair(
                    format,
                    &syncfix::verdict::RepairSummary::of("repair", &file, &report, patch.as_deref(), code, started.elapsed()),
                );
                return code;
            }
            _ => {}
        }
        eprintln!(
            "syncfix: {}: the patch repairs kernel{} {} only; kernel{} {} not repaired:",
            file_name(&file),
            if repaired.len() == 1 { "" } else { "s" },
            repaired.join(", "),
            if failed.len() == 1 { "" } else { "s" },
            failed.join(", ") + if failed.len() == 1 { " is" } else { " are" }
        );
    }
    let code = 'out: {
        match &report.status {
            RepairStatus::NoChange => {
                match report.bounded {
                    Some(n) => {
                        eprintln!("syncfix: {}: no change: no error found up to {n} loop iterations (not a proof)", file_name(&file))
                    }
                    None => eprintln!(
                        "syncfix: {}: no change needed: the kernel verifies (`syncfix audit` finds the barriers it does not need)",
                        file_name(&file)
                    ),
                }
                exit::SUCCESS
            }
            RepairStatus::NotVerified => exit::NOT_ALL_VERIFIED,
            RepairStatus::Repaired => {
                if report.patched.is_none() {
                    break 'out exit::REPAIR_ERROR;
                }
                match write_fix(a, &report, &text, encoding, &mut patch) {
                    Ok(()) => exit::SUCCESS,
                    Err(code) => code,
                }
            }
            RepairStatus::AssertionFailure => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: error: an assertion fails even with a barrier at every candidate site (statement boundaries, loop heads, branches, calls); no barrier placement syncfix considers repairs it");
                exit::ASSERTION_FAILURE
            }
            RepairStatus::OtherError => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: error: the kernel has a defect that barriers cannot repair");
                exit::REPAIR_ERROR
            }
            RepairStatus::Unrepairable(reason) => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: error: {} cannot be repaired: {reason}", the_kernel(&report));
                exit::UNREPAIRABLE
            }
            RepairStatus::Unknown(reason) => {
                eprintln!("syncfix: {}: no repair found: {reason}", file_name(&file));
                exit::NOT_ALL_VERIFIED
            }
            RepairStatus::Timeout => {
                eprintln!("{}", timed_out("repair"));
                exit::TIMEOUT
            }
            RepairStatus::NotReverified(why) => {
                print_findings(&report.findings, lang, &file);
                eprintln!("syncfix: error: internal error: the repair did not re-verify, so it is not printed: {why}");
                exit::REPAIR_ERROR
            }
        }
    };
    print_repair(format, &syncfix::verdict::RepairSummary::of("repair", &file, &report, patch.as_deref(), code, started.elapsed()));
    code
}

/// Prints the fix of `report` (a repair of every kernel, or of some) as a diff, or keeps it in
/// `patch` for the machine formats; says what it changes and notes; applies it with `--apply`
/// when it is safe and proved (or `--unsafe-fixes`, `--bounded-fixes`). Err: the exit code of a
/// failed write, or 6 when `--apply` was asked and the fix is not applied (the file keeps its
/// defect).
fn write_fix(
    a: &RepairArgs,
    report: &syncfix::RepairReport,
    text: &str,
    encoding: syncfix::Encoding,
    patch: &mut Option<String>,
) -> Result<(), u8> {
    let c = &a.common;
    let file = c.file.display().to_string();
    let Some(patched) = &report.patched else { return Ok(()) };
    let (name, dir) = diff_path(&c.file);
    let diff = syncfix::unified_diff(text, patched, &name);
    say_patch_dir(&dir);
    if a.format != Format::Text {
        *patch = Some(diff);
    } else {
        print_patch(&diff, encoding);
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let proof = match report.bounded {
        Some(n) => format!("no error found in the patched kernel up to {n} loop iterations (not a proof)"),
        None => "the patched kernel verifies".into(),
    };
    let mut upgraded = if report.upgraded > 0 { format!(", strengthened the fences of {}", report.upgraded) } else { String::new() };
    if report.waited > 0 {
        upgraded += &format!(", waited for asynchronous copies at {} place{}", report.waited, plural(report.waited));
    }
    if report.restructured > 0 {
        upgraded += &format!(", restructured the code at {} place{} (see the notes)", report.restructured, plural(report.restructured));
    }
    eprintln!(
        "syncfix: {}: inserted {} barrier{}, removed {}{upgraded}; {proof}",
        file_name(&file),
        report.inserted,
        plural(report.inserted),
        report.removed
    );
    for n in &report.notes {
        eprintln!("syncfix: note: {n}");
    }
    if !a.apply {
        return Ok(());
    }
    if !a.bounded_fixes {
        if let Some(why) = report.bounded_reason() {
            eprintln!(
                "syncfix: warning: {} not rewritten: the fix is not proved: {why}; add --bounded-fixes to apply it",
                c.file.display()
            );
            // The file on disk still has its defect: a script must not take this for a repair.
            return Err(exit::NOT_ALL_VERIFIED);
        }
    }
    if !a.unsafe_fixes {
        if let Some(why) = report.unsafe_reason() {
            eprintln!("syncfix: warning: {} not rewritten: the fix is not safe: {why}; add --unsafe-fixes to apply it", c.file.display());
            return Err(exit::NOT_ALL_VERIFIED);
        }
    }
    let (old, new) = (syncfix::encode_source(text, encoding), syncfix::encode_source(patched, encoding));
    if let Err(e) = syncfix::apply_to_file(&c.file, &old, &new) {
        eprintln!("syncfix: error: cannot write {}: {e}", c.file.display());
        return Err(exit::REPAIR_ERROR);
    }
    eprintln!("syncfix: {} rewritten", c.file.display());
    Ok(())
}

/// `the kernel`, or `kernel `k`` when the file has several and `k` is the first that failed.
fn the_kernel(report: &syncfix::RepairReport) -> String {
    match report.kernels.iter().find(|k| !k.status.succeeded()) {
        Some(k) if report.kernels.len() > 1 => format!("kernel `{}`", k.kernel),
        _ => "the kernel".into(),
    }
}

/// `--stats`: each verifier call of each kernel's repair, in order.
fn print_calls(report: &RepairReport) {
    let several = report.kernels.len() > 1;
    for k in &report.kernels {
        let who = if several { format!(" of kernel `{}`", k.kernel) } else { String::new() };
        for (i, c) in k.calls.iter().enumerate() {
            let exact = match c.exact {
                Some(true) => " (exact trace)",
                Some(false) => " (trace not exact)",
                None => "",
            };
            let on = if c.on.len() <= 8 { c.on.join(", ") } else { format!("{}, … ({} in all)", c.on[..8].join(", "), c.on.len()) };
            eprintln!(
                "syncfix: stats: verifier call {}{who}: {}{exact} in {:.3}s, houdini rounds {}, solver calls {}, answers reused {}; sites on: {}",
                i + 1,
                c.outcome,
                c.ms / 1000.0,
                c.houdini_rounds,
                c.solver_calls,
                c.reused,
                if on.is_empty() { "none".to_string() } else { on }
            );
        }
    }
}

/// `3`, `3 and 7`, `3, 7 and 9`.
fn lines_list(lines: &[u32]) -> String {
    match lines {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")),
    }
}
