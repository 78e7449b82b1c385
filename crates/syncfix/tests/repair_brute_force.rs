//! The whole repair loop (instrumentation, verifier, hitting sets / MaxSAT) against brute force
//! on small random kernels (issue 12): over every assignment of the barrier variables, the
//! lightest one under which the kernel verifies has the weight the loop finds; the loop's
//! answer verifies; and when no assignment verifies, the loop says so (202) or `unknown`.

mod common;

use proptest::prelude::*;
use syncfix::Language;
use syncfix_instrument::{instrument, InstrumentConfig};
use syncfix_repair::repair::{repair, Outcome, RepairRun};
use syncfix_verify::{Verdict, Verifier};

const INDICES: [&str; 4] = ["threadIdx.x", "(threadIdx.x + 1) % 64", "63 - threadIdx.x", "threadIdx.x / 2"];

/// A statement of the random kernels: shared-memory writes and reads, global accumulations,
/// barriers, a conditional write.
fn statement() -> impl Strategy<Value = String> {
    let idx = prop::sample::select(INDICES.to_vec());
    prop_oneof![
        idx.clone().prop_map(|i| format!("s[{i}] = A[threadIdx.x];")),
        idx.clone().prop_map(|i| format!("A[threadIdx.x] += s[{i}];")),
        idx.clone().prop_map(|i| format!("s[threadIdx.x] = s[{i}] + 1;")),
        Just("__syncthreads();".to_string()),
        idx.prop_map(|i| format!("if (threadIdx.x < 32) {{ s[{i}] = 2; }}")),
    ]
}

fn kernel(stmts: &[String]) -> String {
    format!("__global__ void k(int *A) {{\n  __shared__ int s[64];\n  {}\n}}\n", stmts.join("\n  "))
}

/// The kernel `src` compiled for 64 threads in one block and instrumented with every site
/// (this test drives the stages directly, with their own options).
fn instrumented(src: &str) -> syncfix_instrument::Instrumented {
    let dir = tempfile::tempdir().unwrap();
    let path = common::write(dir.path(), Language::Cuda, src);
    let mut frontend = syncfix_frontend::driver::FrontendOptions::new(syncfix_kir::Launch::new([64, 1, 1], [1, 1, 1]));
    frontend.language = Some(syncfix_kir::Language::Cuda);
    let compiled = syncfix_frontend::driver::compile(&path, src, &frontend).expect("the kernel compiles");
    instrument(&compiled.kernels[0], &InstrumentConfig::default())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_repair_loop_finds_the_lightest_verifying_assignment(stmts in prop::collection::vec(statement(), 2..5)) {
        let src = kernel(&stmts);
        let inst = instrumented(&src);
        let verify = syncfix_verify::VerifyOptions::default();
        let n = inst.vars.len();
        prop_assume!(n <= 8);
        let ctx = z3::Context::new(&z3::Config::new());
        let mut v = Verifier::new(&ctx, &inst.kernel, n, &verify).expect("an encoding");
        // Brute force: every assignment.
        let mut best: Option<u64> = None;
        for bits in 0u32..(1 << n) {
            let a: Vec<bool> = (0..n).map(|i| bits >> i & 1 == 1).collect();
            let w: u64 = (0..n).filter(|&i| a[i]).map(|i| inst.vars[i].weight).sum();
            if best.is_some_and(|b| w >= b) {
                continue;
            }
            if matches!(v.check(&a), Verdict::Verified) {
                best = Some(w);
            }
        }
        let (outcome, _) = repair(&inst, &mut v, &RepairRun::default());
        match (outcome, best) {
            (Outcome::Repaired { assignment, weight, .. }, Some(b)) => {
                prop_assert_eq!(weight, b, "{}", src);
                prop_assert!(matches!(v.check(&assignment), Verdict::Verified), "the answer does not verify:\n{}", src);
            }
            (Outcome::Unrepairable { .. } | Outcome::Unknown(_), None) => {}
            (Outcome::Unknown(why), Some(b)) => prop_assert!(false, "unknown ({}) though weight {} verifies:\n{}", why, b, src),
            (o, b) => prop_assert!(false, "loop: {:?}, brute force: {:?}:\n{}", std::mem::discriminant(&o), b, src),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    /// Sites encoded only where they are used (issue 28, `Verifier::with_sites`): a verifier
    /// that starts with the kernel's own barriers and encodes a site when an assignment turns
    /// it on gives every assignment the verdict of the encoding of every site, and the
    /// repair loop on it finds the same lightest weight.
    #[test]
    fn sites_encoded_on_demand_give_the_verdicts_of_every_site_encoded(stmts in prop::collection::vec(statement(), 2..5)) {
        let src = kernel(&stmts);
        let inst = instrumented(&src);
        let verify = syncfix_verify::VerifyOptions::default();
        let n = inst.vars.len();
        prop_assume!(n <= 6);
        let ctx = z3::Context::new(&z3::Config::new());
        let mut full = Verifier::new(&ctx, &inst.kernel, n, &verify).expect("an encoding");
        let mut best: Option<u64> = None;
        for bits in 0u32..(1 << n) {
            let a: Vec<bool> = (0..n).map(|i| bits >> i & 1 == 1).collect();
            let mut some = Verifier::with_sites(&ctx, &inst.kernel, inst.original_assignment(), &verify).expect("an encoding");
            let (x, y) = (full.check(&a), some.check(&a));
            prop_assert_eq!(std::mem::discriminant(&x), std::mem::discriminant(&y), "assignment {:?}:\n{}", a, src);
            if let (Verdict::Defect(t), Verdict::Defect(u)) = (&x, &y) {
                prop_assert_eq!(std::mem::discriminant(&t.defect), std::mem::discriminant(&u.defect), "assignment {:?}:\n{}", a, src);
            }
            let w: u64 = (0..n).filter(|&i| a[i]).map(|i| inst.vars[i].weight).sum();
            if matches!(x, Verdict::Verified) && best.is_none_or(|b| w < b) {
                best = Some(w);
            }
        }
        let mut some = Verifier::with_sites(&ctx, &inst.kernel, inst.original_assignment(), &verify).expect("an encoding");
        let (outcome, _) = repair(&inst, &mut some, &RepairRun::default());
        match (outcome, best) {
            (Outcome::Repaired { weight, .. }, Some(b)) => prop_assert_eq!(weight, b, "{}", src),
            (Outcome::Unrepairable { .. } | Outcome::Unknown(_), None) => {}
            (o, b) => prop_assert!(false, "loop: {:?}, brute force: {:?}:\n{}", std::mem::discriminant(&o), b, src),
        }
        prop_assert!(some.stats.encodings >= 1);
    }
}
