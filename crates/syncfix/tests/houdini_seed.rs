//! Houdini started from a seed (issue 28: the re-verification of a repair's patched source
//! starts from the invariants the repair's verifier kept): a seed proves what Houdini proved,
//! a seed too weak to prove the kernel gives no false race (the check is made again from
//! every candidate), and a seed of other candidates is not used.

mod common;

use syncfix::Language;
use syncfix_verify::{HoudiniSeed, Verdict, Verifier, VerifyOptions};

/// A grid-stride loop: verified only with the loop counter's congruence (Houdini's `strided`
/// candidate), a race without it.
const STRIDED: &str =
    "__global__ void k(int *a, int n) {\n  for (int i = threadIdx.x; i < n; i += blockDim.x) {\n    a[i] = a[i] + 1;\n  }\n}\n";
const OTHER: &str = "__global__ void k(int *a, int n) {\n  a[threadIdx.x] = n;\n}\n";

fn with_kernel<T>(src: &str, f: impl FnOnce(&syncfix_kir::Kernel) -> T) -> T {
    let dir = tempfile::tempdir().unwrap();
    let path = common::write(dir.path(), Language::Cuda, src);
    let mut frontend = syncfix_frontend::driver::FrontendOptions::new(syncfix_kir::Launch::new([64, 1, 1], [1, 1, 1]));
    frontend.language = Some(syncfix_kir::Language::Cuda);
    let compiled = syncfix_frontend::driver::compile(&path, src, &frontend).expect("the kernel compiles");
    f(&compiled.kernels[0])
}

fn check(k: &syncfix_kir::Kernel, seed: Option<HoudiniSeed>) -> (Verdict, syncfix_verify::Stats, Option<HoudiniSeed>) {
    let ctx = z3::Context::new(&z3::Config::new());
    let opts =
        VerifyOptions { seeds: seed.map(|s| std::sync::Arc::new([(k.name.clone(), s)].into_iter().collect())), ..VerifyOptions::default() };
    let mut v = Verifier::new(&ctx, k, 0, &opts).expect("an encoding");
    let verdict = v.check(&[]);
    let seed = v.houdini_seed(&[]);
    (verdict, v.stats.clone(), seed)
}

#[test]
fn houdini_from_a_seed_proves_what_it_proved_and_a_weak_seed_gives_no_false_race() {
    with_kernel(STRIDED, |k| {
        let (verdict, stats, seed) = check(k, None);
        assert!(matches!(verdict, Verdict::Verified), "{verdict:?}");
        assert!(!stats.seeded);
        let seed = seed.expect("Houdini ran");
        let (kept, all) = seed.counts();
        assert!(kept > 0 && kept < all, "{kept} of {all}");
        // From the seed: verified, without falling back, in fewer rounds.
        let (verdict, seeded, _) = check(k, Some(seed.clone()));
        assert!(matches!(verdict, Verdict::Verified), "{verdict:?}");
        assert!(seeded.seeded && !seeded.seed_fallback);
        assert!(
            seeded.houdini_rounds < stats.houdini_rounds,
            "{} rounds from the seed, {} without",
            seeded.houdini_rounds,
            stats.houdini_rounds
        );
        // A seed without the congruence: the race it would give is not reported, the kernel
        // is checked again from every candidate.
        let mut weak = seed;
        weak.retain(|_, shape| !shape.contains("strided"));
        let (verdict, fallback, _) = check(k, Some(weak));
        assert!(matches!(verdict, Verdict::Verified), "{verdict:?}");
        assert!(fallback.seeded && fallback.seed_fallback);
    });
    // Another kernel's seed is not this kernel's: not used.
    let other = with_kernel(OTHER, |k| check(k, None).2.expect("Houdini ran"));
    with_kernel(STRIDED, |k| {
        let (verdict, stats, _) = check(k, Some(other));
        assert!(matches!(verdict, Verdict::Verified), "{verdict:?}");
        assert!(!stats.seeded);
    });
}

/// Candidate invariants are guessed only about values that reach an address, a condition, a
/// specification or an atomic (`analysis::relevant_values`): a loop's accumulator that is
/// only computed and stored adds none, one that becomes an index does.
#[test]
fn candidates_are_guessed_only_about_values_that_can_matter() {
    let count = |src: &str| {
        with_kernel(src, |k| {
            let (verdict, stats, _) = check(k, None);
            (stats.candidates, verdict)
        })
    };
    let plain =
        "__global__ void k(int *a, int *out, int n) {\n  for (int i = threadIdx.x; i < n; i += blockDim.x) {\n    out[i] = a[i];\n  }\n}\n";
    let data = "__global__ void k(int *a, int *out, int n) {\n  int s = 0;\n  for (int i = threadIdx.x; i < n; i += blockDim.x) {\n    s = s * 31 + a[i];\n    out[i] = s;\n  }\n}\n";
    let index = "__global__ void k(int *a, int *out, int n) {\n  int s = 0;\n  for (int i = threadIdx.x; i < n; i += blockDim.x) {\n    s = s * 31 + a[i];\n    out[i] = a[s & 63];\n  }\n}\n";
    let (p, vp) = count(plain);
    let (d, vd) = count(data);
    let (x, _) = count(index);
    assert!(matches!(vp, Verdict::Verified) && matches!(vd, Verdict::Verified), "{vp:?} {vd:?}");
    assert_eq!(d, p, "the accumulator only stored adds no candidate");
    assert!(x > p, "an accumulator used as an index has candidates ({x} against {p})");
}

/// A loop with two barriers it does not need (each thread reads back its own cell): an
/// audit's check of the kernel without one of them starts Houdini from what it kept for the
/// kernel as written (`Verifier::seed_from`), and proves it without falling back, in fewer
/// rounds than from every candidate.
const TWO_BARRIERS: &str = "__global__ void k(int *a, int n) {\n  __shared__ int s[64];\n  for (int j = 0; j < n; j++) {\n    s[threadIdx.x] = a[j * 64 + threadIdx.x];\n    __syncthreads();\n    a[j * 64 + threadIdx.x] = s[threadIdx.x] + 1;\n    __syncthreads();\n  }\n}\n";

#[test]
fn an_audits_check_starts_houdini_from_the_invariants_of_the_kernel_as_written() {
    with_kernel(TWO_BARRIERS, |k| {
        let config = syncfix_instrument::InstrumentConfig { new_sites: false, ..Default::default() };
        let inst = syncfix_instrument::instrument(k, &config);
        assert_eq!(inst.vars.len(), 2, "the kernel's own barriers are its sites");
        let without_first = [false, true];
        let ctx = z3::Context::new(&z3::Config::new());
        // From every candidate.
        let mut fresh = Verifier::new(&ctx, &inst.kernel, 2, &VerifyOptions::default()).expect("an encoding");
        let verdict = fresh.check(&without_first);
        assert!(matches!(verdict, Verdict::Verified), "{verdict:?}");
        // From the kernel as written's invariants.
        let mut v = Verifier::new(&ctx, &inst.kernel, 2, &VerifyOptions::default()).expect("an encoding");
        assert!(matches!(v.check(&inst.original_assignment()), Verdict::Verified));
        let before = v.stats.houdini_rounds;
        v.seed_from(&inst.original_assignment());
        assert!(matches!(v.check(&without_first), Verdict::Verified));
        assert!(v.stats.seeded && !v.stats.seed_fallback);
        let rounds = v.stats.houdini_rounds - before;
        assert!(rounds < fresh.stats.houdini_rounds, "{rounds} rounds from the seed, {} without", fresh.stats.houdini_rounds);
    });
}
