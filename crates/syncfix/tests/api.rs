//! The library's API as an editor uses it: plain options (serde), results per kernel, errors
//! with their stage, cancellation.

mod common;

use common::{options, write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use syncfix::{ErrorStage, Language, Options, RepairStatus, Status};

const TWO_KERNELS: &str = "__global__ void good(int *A) {\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t;\n}\n\n__global__ void bad(int *A) {\n  A[0] = threadIdx.x;\n}\n";

#[test]
fn a_kernel_that_cannot_be_repaired_keeps_the_others_fix() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, TWO_KERNELS);
    let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    let r = syncfix::repair(&path, TWO_KERNELS, &opts).expect("the repair runs");
    // The file is not repaired as a whole: the failing kernel's status.
    assert!(matches!(r.status, RepairStatus::Unrepairable(_)), "{:?}", r.status);
    let statuses: Vec<(&str, bool)> = r.kernels.iter().map(|k| (k.kernel.as_str(), matches!(k.status, RepairStatus::Repaired))).collect();
    assert_eq!(statuses, [("good", true), ("bad", false)]);
    assert_eq!(r.kernels[0].changes.len(), 1);
    assert!(r.kernels[1].changes.is_empty() && !r.kernels[1].findings.is_empty());
    // The fix of `good` is there, and `good` verifies in the patched text.
    assert_eq!(r.edits.len(), 1);
    let patched = r.patched.clone().expect("a patch");
    assert_eq!(patched, syncfix::apply_edits(TWO_KERNELS, &r.edits));
    let (reports, _) = syncfix::verify(&path, &patched, &opts).unwrap();
    let good = reports.iter().find(|k| k.kernel == "good").unwrap();
    assert!(matches!(good.status, Status::Verified), "{:?}", good.status);
    // The JSON summary says the same kernel by kernel.
    let s = serde_json::to_value(syncfix::verdict::RepairSummary::of("repair", "two.cu", &r, None, 202, Duration::ZERO)).unwrap();
    assert_eq!(s["status"], "unrepairable");
    let ks: Vec<(&str, &str)> =
        s["kernels"].as_array().unwrap().iter().map(|k| (k["kernel"].as_str().unwrap(), k["status"].as_str().unwrap())).collect();
    assert_eq!(ks, [("good", "repaired"), ("bad", "unrepairable")]);
    assert_eq!(s["edits"].as_array().unwrap().len(), 1);
    // An editor is offered the fix of `good`, and told why `bad` has none.
    let a = syncfix::analyse(&path, TWO_KERNELS, &opts).unwrap();
    let fix = a.fix.expect("the fix of `good`");
    assert!(fix.title.starts_with("Insert barriers in `good`"), "{}", fix.title);
    assert_eq!(syncfix::apply_edits(TWO_KERNELS, &fix.edits), patched);
    assert!(a.note.is_some_and(|n| n.contains("same statement")));
}

#[test]
fn options_are_plain_data_that_round_trip_through_json() {
    let mut o = options(Language::OpenCl, [64, 2, 1], [0, 1, 1]);
    o.source.defines.push("N=4".into());
    o.verifier.loop_unwind = Some(3);
    o.repair.solver = syncfix::Solver::MaxSat;
    o.timeout = Some(Duration::from_secs(9));
    let json = serde_json::to_string(&o).unwrap();
    assert!(json.contains("\"language\":\"opencl\"") && json.contains("\"solver\":\"maxsat\""), "{json}");
    let back: Options = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
    // A settings file may give only what it changes; the rest are the defaults.
    let partial: Options =
        serde_json::from_str(r#"{"language": null, "launch": {"block_dim": [32, 1, 1], "grid_dim": [1, 1, 1]}}"#).unwrap();
    assert_eq!(partial.repair, syncfix::RepairOptions::default());
    assert_eq!(partial.repair.loop_depth_weight, 10, "configs/default.toml's weight");
}

#[test]
fn errors_say_which_stage_failed() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(Language::Cuda, [4, 1, 1], [1, 1, 1]);
    let bad = "__global__ void k(int *A) { A[0] = ; }\n";
    let e = syncfix::verify(&write(dir.path(), Language::Cuda, bad), bad, &opts).unwrap_err();
    assert_eq!((e.stage, e.exit_code), (ErrorStage::Clang, 2), "{e:?}");
    let asm = "__global__ void k(int *A) {\n  asm(\"exit;\");\n}\n";
    let e = syncfix::repair(&write(dir.path(), Language::Cuda, asm), asm, &opts).unwrap_err();
    assert_eq!((e.stage, e.exit_code, e.line), (ErrorStage::FrontEnd, 4, Some(2)), "{e:?}");
    assert_eq!(serde_json::to_value(&e).unwrap()["stage"], "frontend");
}

#[test]
fn a_cancelled_call_fails_with_stage_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, TWO_KERNELS);
    let mut opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    opts.cancel = Some(Arc::new(AtomicBool::new(true)));
    let e = syncfix::analyse(&path, TWO_KERNELS, &opts).unwrap_err();
    assert_eq!(e.stage, ErrorStage::Cancelled, "{e:?}");
}

/// A flag set while one long solver call runs interrupts that call (Z3's interrupt), so an
/// editor's stale analysis stops within seconds (Z3 4.8.12 polls its interrupt flag only now
/// and then: 1 to 8 s here), not when the solver is done (minutes: 109 s to the time limit
/// without the interrupt).
#[test]
fn cancelling_interrupts_a_running_solver_call() {
    let dir = tempfile::tempdir().unwrap();
    // Each thread keeps to its 64 cells. Ten accesses at columns that depend on the thread
    // each in its own way make more classes of offsets than a stride refutation takes
    // (`stride`'s MAX_CLASSES), so the solver refutes the 3000 × 3000 pairs, for minutes.
    let mut text = String::from("__global__ void k(int *A) {\n");
    for b in 0..10 {
        text.push_str(&format!("  A[threadIdx.x * 64 + ((threadIdx.x >> {b}) & 1)] += 1;\n"));
    }
    for i in 10..3000 {
        text.push_str(&format!("  A[threadIdx.x * 64 + {}] += {i};\n", i % 64));
    }
    text.push_str("}\n");
    let path = write(dir.path(), Language::Cuda, &text);
    let mut opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    // Without the interrupt the call would run past this limit and end as a timeout.
    opts.timeout = Some(Duration::from_secs(120));
    let cancel = Arc::new(AtomicBool::new(false));
    opts.cancel = Some(cancel.clone());
    let setter = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            // The front end and the encoding take about 3 s (more on a loaded machine); the
            // solver call then runs for minutes.
            std::thread::sleep(Duration::from_secs(12));
            cancel.store(true, Ordering::Relaxed);
            Instant::now()
        })
    };
    let r = syncfix::verify(&path, &text, &opts);
    let ended = Instant::now();
    let set = setter.join().unwrap();
    let e = r.expect_err("the call was cancelled");
    assert_eq!(e.stage, ErrorStage::Cancelled, "{e:?}");
    assert!(
        ended.saturating_duration_since(set) < Duration::from_secs(30),
        "ended {:?} after the flag",
        ended.saturating_duration_since(set)
    );
}

#[test]
fn results_serialise_as_plain_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, TWO_KERNELS);
    let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    let (reports, _) = syncfix::verify(&path, TWO_KERNELS, &opts).unwrap();
    // A report is a kernel of the JSON verdict (`syncfix verify --format json`).
    let v = serde_json::to_value(&reports).unwrap();
    assert_eq!(v[0]["status"], "race", "{v}");
    let race = &v[0]["defects"][0];
    assert_eq!(race["kind"], "race", "{race}");
    // Both accesses, each with the range of its expression.
    assert_eq!(race["accesses"][1]["range"]["start"]["column"], 3, "{race}");
    assert_eq!(race["accesses"][0]["range"]["end"]["column"], 29, "{race}");
    let r = syncfix::repair(&path, TWO_KERNELS, &opts).unwrap();
    // The report is the JSON repair summary without the run's fields: the status as its name
    // and reason, as `syncfix repair --format json` prints it.
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["status"], "unrepairable", "{v}");
    assert!(v["reason"].as_str().is_some_and(|r| r.contains("same statement")), "{v}");
    assert!(v.get("schema").is_none() && v.get("exit_code").is_none(), "{v}");
    assert_eq!(v["applicability"], "safe");
    assert_eq!(v["kernels"][0]["status"], "repaired");
    assert_eq!(v["kernels"][0]["changes"][0]["kind"], "insert");
}

/// `--verbose`'s log: a clause from a trace that is not exact (here the equality abstraction)
/// is said to over-approximate, with the reason; an exact repair logs nothing.
#[test]
fn a_repair_says_what_it_over_approximated() {
    let src = "__global__ void k(int *A) {\n  __shared__ int s[64];\n  s[threadIdx.x] = A[threadIdx.x];\n  A[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, src);
    let mut opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    let exact = syncfix::repair(&path, src, &opts).unwrap();
    assert!(matches!(exact.status, RepairStatus::Repaired), "{:?}", exact.status);
    assert!(exact.kernels[0].log.is_empty(), "{:?}", exact.kernels[0].log);
    opts.verifier.abstraction = syncfix::Abstraction::Equality;
    let coarse = syncfix::repair(&path, src, &opts).unwrap();
    assert!(matches!(coarse.status, RepairStatus::Repaired), "{:?}", coarse.status);
    let log = coarse.kernels[0].log.join("\n");
    assert!(log.contains("over-approximates") && log.contains("equality abstraction of `A`, `s`"), "{log}");
}

#[test]
fn an_editor_is_offered_a_restructuring_as_an_unsafe_quick_fix() {
    // A barrier in a conditional half the threads skip: the quick fix moves it out (it moves
    // code, so it is unsafe), and its edits give a text that verifies.
    let text = "__global__ void k(int *A) {\n  unsigned idx = threadIdx.x;\n  if (idx % 2 == 0) {\n    int temp = A[idx + 2];\n    __syncthreads();\n    A[idx] = temp;\n  }\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, text);
    let opts = options(Language::Cuda, [32, 1, 1], [1, 1, 1]);
    let a = syncfix::analyse(&path, text, &opts).unwrap();
    let fix = a.fix.expect("a quick fix");
    assert_eq!(fix.title, "Restructure so that every thread reaches the barrier (syncfix repair: 1 change, re-verified)");
    assert_eq!(fix.applicability, syncfix::Applicability::Unsafe);
    assert_eq!(fix.report.changes[0].kind, syncfix::ChangeKind::SplitConditional);
    let patched = syncfix::apply_edits(text, &fix.edits);
    let (reports, _) = syncfix::verify(&path, &patched, &opts).unwrap();
    assert!(matches!(reports[0].status, Status::Verified), "{:?}\n{patched}", reports[0].status);
}

/// The front end's notes reach [`Options::progress`] as soon as the front end ends, so that a
/// caller whose watchdog ends the call at its time limit can still print them (the CLI does).
#[test]
fn the_front_ends_notes_are_published_while_the_call_runs() {
    let src =
        "__global__ void k(int *a) {\n  a[blockIdx.x * blockDim.x + threadIdx.x] = 1;\n}\nint main() {\n  int *p;\n  k<<<4, 64>>>(p);\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, src);
    let mut opts = options(Language::Cuda, [0; 3], [0; 3]);
    opts.source.launch_from_host = true;
    let progress = Arc::new(syncfix::Progress::default());
    opts.progress = Some(progress.clone());
    assert!(progress.notes().is_empty());
    let (reports, _) = syncfix::verify(&path, src, &opts).unwrap();
    assert!(matches!(reports[0].status, Status::Verified), "{:?}", reports[0].status);
    let notes = progress.notes();
    assert_eq!(notes, reports[0].notes, "the notes published are the report's");
    assert!(
        notes.iter().any(|n| n.starts_with("blockDim=64, gridDim=4 taken from the launch at ") && n.ends_with("kernel.cu:6")),
        "{notes:?}"
    );
    // A repair publishes them too.
    let progress = Arc::new(syncfix::Progress::default());
    opts.progress = Some(progress.clone());
    let r = syncfix::repair(&path, src, &opts).unwrap();
    assert_eq!(progress.notes(), r.frontend_notes);
}

/// Each kernel's verdict reaches [`Options::progress`] as soon as it is in, with the front
/// end's times and the kernel's, so that a caller whose watchdog ends the call at its limit
/// prints the verdicts reached (the CLI does) instead of a bare timeout, each race marked
/// possible as not replayed; a kernel the front end could not lower is there with its
/// reason from the start.
#[test]
fn each_kernels_verdict_is_published_while_the_call_runs() {
    let src = "__global__ void racy(int *a) {\n  a[0] = threadIdx.x;\n}\n__global__ void fine(int *a) {\n  a[threadIdx.x] = 1;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, src);
    let mut opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    let progress = Arc::new(syncfix::Progress::default());
    opts.progress = Some(progress.clone());
    assert!(progress.reports().is_empty(), "nothing before the front end has ended");
    let (reports, _) = syncfix::verify(&path, src, &opts).unwrap();
    let published = progress.reports();
    let names = |rs: &[syncfix::KernelReport]| rs.iter().map(|r| r.kernel.clone()).collect::<Vec<_>>();
    assert_eq!(names(&published), names(&reports));
    for (p, r) in published.iter().zip(&reports) {
        assert_eq!(format!("{:?}", p.status), format!("{:?}", r.status), "{}", r.kernel);
        assert_eq!(p.findings.len(), r.findings.len(), "{}", r.kernel);
    }
    assert!(reports[0].status.is_defect() && matches!(reports[1].status, Status::Verified), "{reports:?}");
    // Published before its replay: a caller that reads it ended the call before the replay,
    // so the finding is possible for that reason; the call's own report has the replay.
    let early = published[0].findings[0].replay().expect("a mark");
    assert!(!early.confirmed && early.reason.as_deref() == Some("no time was left before the time limit to replay it"), "{early:?}");
    assert!(reports[0].findings[0].replay().is_some_and(|r| r.confirmed));
    let t = progress.timings();
    assert!(!t.frontend.is_zero() && t.solver_calls > 0, "{t:?}");
}
