//! Which barrier sites the instrumenter offers (ARCHITECTURE.md, "crates/instrument"; GPURepair §2.2): access points, splits, scope
//! boundaries, existing barriers, grid and warp twins; weights sw*lw^depth + gw*grid.

use std::path::Path;
use syncfix::{BarrierScope, Language, Launch, Options, RepairOptions};

fn sites(src: &str, lang: Language, block: u32, grid: u32, cfg: RepairOptions) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(if lang == Language::Cuda { "k.cu" } else { "k.cl" });
    std::fs::write(&path, src).unwrap();
    let mut opts = Options::new(Launch::new([block, 1, 1], [grid, 1, 1]));
    opts.language = Some(lang);
    opts.repair = cfg;
    let mut v: Vec<String> = syncfix::sites(Path::new(&path), src, &opts)
        .unwrap()
        .into_iter()
        .map(|s| format!("{}:{} {} {} w{}{}", s.line, s.col, s.kind, s.scope, s.weight, if s.in_callee { " callee" } else { "" }))
        .collect();
    v.sort();
    v
}

/// The sites of a CUDA kernel, without warp twins (see `warp_twins_*`).
fn cuda(src: &str, block: u32, grid: u32) -> Vec<String> {
    sites(src, Language::Cuda, block, grid, RepairOptions { warp_barriers: false, ..RepairOptions::default() })
}

#[test]
fn warp_twins_only_where_a_block_holds_more_than_one_warp() {
    let src = "__global__ void k(int *A) {\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t;\n}\n";
    let all = |block| sites(src, Language::Cuda, block, 1, RepairOptions::default());
    assert_eq!(all(64), vec!["2:3 before block w1", "2:3 before warp w1", "3:3 before block w1", "3:3 before warp w1"]);
    assert_eq!(all(32), vec!["2:3 before block w1", "3:3 before block w1"]);
    // Weights per scope, and the warp size, from the configuration.
    let cfg = RepairOptions { block_barrier_weight: 4, warp_barrier_weight: 3, warp_size: 64, ..RepairOptions::default() };
    assert_eq!(sites(src, Language::Cuda, 64, 1, cfg.clone()), vec!["2:3 before block w4", "3:3 before block w4"]);
    let s = sites(src, Language::Cuda, 128, 1, cfg);
    assert_eq!(s, vec!["2:3 before block w4", "2:3 before warp w3", "3:3 before block w4", "3:3 before warp w3"]);
    // OpenCL has no warp barrier.
    let cl = "__kernel void k(__global int *A) {\n  int t = A[get_local_id(0) + 1];\n  A[get_local_id(0)] = t;\n}\n";
    assert!(sites(cl, Language::OpenCl, 64, 1, RepairOptions::default()).iter().all(|s| !s.contains("warp")));
}

#[test]
fn access_points_are_statements_that_touch_written_memory() {
    // `int t = A[...]` and `A[...] = t` access A; nothing else does.
    let s = cuda("__global__ void k(int *A) {\n  int x = 1;\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t + x;\n}\n", 64, 1);
    assert_eq!(s, vec!["3:3 before block w1", "4:3 before block w1"]);
}

#[test]
fn read_only_memory_offers_no_sites() {
    let s =
        cuda("__global__ void k(const int *B, int *A) {\n  int t = B[threadIdx.x];\n  int u = t * 2;\n  A[threadIdx.x] = u;\n}\n", 64, 1);
    assert_eq!(s, vec!["4:3 before block w1"]);
}

#[test]
fn a_loop_body_ending_with_a_conditional_gets_an_end_site() {
    let src = "__global__ void k(int *A, int n) {\n  for (int i = 0; i < n; i++) {\n    if (threadIdx.x < 4) {\n      A[threadIdx.x] = i;\n    }\n  }\n}\n";
    let s = cuda(src, 64, 1);
    assert!(s.contains(&"6:3 end block w10".to_string()), "{s:?}");
}

#[test]
fn an_assignment_reading_memory_gets_a_split_site() {
    let s = cuda("__global__ void k(int *A) { A[threadIdx.x] = A[threadIdx.x + 1]; }\n", 64, 1);
    assert_eq!(s, vec!["1:29 before block w1", "1:29 split block w1"]);
}

#[test]
fn conditionals_and_loops_containing_sites_get_scope_sites() {
    let src = "__global__ void k(int *A) {\n  if (threadIdx.x < 4) {\n    A[threadIdx.x] = 1;\n  }\n  for (int i = 0; i < 4; i++) {\n    int x = i;\n    A[i] = x;\n  }\n}\n";
    let s = cuda(src, 64, 1);
    assert_eq!(
        s,
        vec![
            "2:3 before block w1",  // before the if
            "3:5 before block w1",  // the access in the branch
            "5:3 before block w1",  // before the loop
            "6:5 before block w10", // the loop body's start
            "7:5 before block w10", // the access in the loop
        ]
    );
}

#[test]
fn call_statements_whose_callee_accesses_memory_are_sites_and_callee_sites_are_shared() {
    let src = "__device__ void put(int *A, int i) { A[i] = i; }\n__global__ void k(int *A) {\n  put(A, threadIdx.x);\n  for (int j = 0; j < 2; j++) put(A, j);\n}\n";
    let s = cuda(src, 64, 1);
    // One variable for the statement inside `put`, weighted at its deepest copy (in the loop).
    assert!(s.contains(&"1:38 before block w10 callee".to_string()), "{s:?}");
    assert!(s.contains(&"3:3 before block w1".to_string()), "{s:?}");
    assert_eq!(s.iter().filter(|x| x.starts_with("1:38")).count(), 1, "{s:?}");
}

#[test]
fn existing_barriers_are_inspected_unless_disabled() {
    let src = "__global__ void k(int *A) {\n  int t = A[threadIdx.x + 1];\n  __syncthreads();\n  A[threadIdx.x] = t;\n}\n";
    let s = cuda(src, 64, 1);
    assert!(s.contains(&"3:3 existing block w1".to_string()), "{s:?}");
    let cfg = RepairOptions { disable_inspect: true, ..RepairOptions::default() };
    let s = sites(src, Language::Cuda, 64, 1, cfg);
    assert!(!s.iter().any(|x| x.contains("existing")), "{s:?}");
}

#[test]
fn multi_block_cuda_kernels_get_grid_twins() {
    let src = "__global__ void k(int *A) {\n  int t = A[threadIdx.x + 1];\n  A[threadIdx.x] = t;\n}\n";
    let s = cuda(src, 32, 4);
    assert_eq!(s, vec!["2:3 before block w1", "2:3 before grid w13", "3:3 before block w1", "3:3 before grid w13"]);
    let cfg = RepairOptions { disable_grid: true, ..RepairOptions::default() };
    assert_eq!(sites(src, Language::Cuda, 32, 4, cfg).len(), 2);
    // Nor under --only-intra-group: no race between blocks is checked, so none to order.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.cu");
    std::fs::write(&path, src).unwrap();
    let mut opts = Options::new(Launch::new([32, 1, 1], [4, 1, 1]));
    opts.language = Some(Language::Cuda);
    opts.repair.warp_barriers = false;
    opts.verifier.only_intra_group = true;
    let intra: Vec<BarrierScope> = syncfix::sites(&path, src, &opts).unwrap().iter().map(|s| s.scope).collect();
    assert_eq!(intra, [BarrierScope::Block, BarrierScope::Block]);
    // OpenCL has no grid barrier.
    let cl = "__kernel void k(__global int *A) {\n  int t = A[get_global_id(0) + 1];\n  A[get_global_id(0)] = t;\n}\n";
    assert!(!sites(cl, Language::OpenCl, 32, 4, RepairOptions::default()).iter().any(|x| x.contains("grid")));
}

#[test]
fn an_early_return_that_sites_follow_is_a_scope_boundary() {
    // `if (t >= n) return;` (line 3) before the accesses: a site before it, where the threads
    // that leave and those that stay last meet. One after the accesses is not.
    let src = "__global__ void k(int *A, int n) {\n  int t = threadIdx.x;\n  if (t >= n) return;\n  int v = A[t + 1];\n  A[t] = v;\n  if (t == 0) {\n    return;\n  }\n}\n";
    let s = cuda(src, 32, 1);
    assert_eq!(s, vec!["3:3 before block w1", "4:3 before block w1", "5:3 before block w1"]);
}
