//! Barriers narrower than a block, on small kernels through the whole pipeline (clang-19 and
//! Z3 are required): CUDA's `__syncwarp(mask)` and cooperative groups' tiles order the
//! threads of one warp (tile) only, and are barrier divergence when a thread they wait for
//! does not reach them; `__syncthreads_count/_and/_or` and cooperative groups' block and grid
//! `sync()` are block and grid barriers. Each rule is checked in both directions: the barrier
//! gives the verdict, a variant that breaks the rule gives the other one.

mod common;

use common::*;
use std::path::Path;
use syncfix::{BarrierScope, ChangeKind, Language, Launch, Options, RepairStatus};

const DIVERGENCE: &str = "barrier may be reached by non-uniform control flow";

/// `s[t] = t; <sync> A[t] = s[<read>];` over 64 threads' shared memory.
fn exchange(sync: &str, read: &str) -> String {
    format!(
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\
         __global__ void k(int *A) {{\n  __shared__ int s[128];\n  unsigned t = threadIdx.x;\n  s[t] = t;\n  {sync}\n  A[t] = s[{read}];\n}}\n"
    )
}

#[test]
fn syncwarp_orders_the_threads_of_one_warp() {
    starts(cuda(&exchange("__syncwarp();", "t ^ 1"), 64, 1), "verified");
    starts(cuda(&exchange("__syncwarp();", "t ^ 31"), 64, 1), "verified");
    // Without it the neighbours race.
    starts(cuda(&exchange("", "t ^ 1"), 64, 1), "possible write-read race on s[");
    // On global memory too, and in every block of the grid.
    let global = "__global__ void k(int *A) { unsigned i = blockIdx.x * 64 + threadIdx.x; A[i] = i; __syncwarp(); A[i ^ 1] = 0; }";
    starts(cuda(global, 64, 2), "verified");
    starts(cuda(&global.replace("__syncwarp();", ""), 64, 2), "possible write-write race on A[");
}

#[test]
fn syncwarp_does_not_order_threads_of_different_warps() {
    starts(cuda(&exchange("__syncwarp();", "(t + 32) % 64"), 64, 1), "possible write-read race on s[");
    starts(cuda(&exchange("__syncthreads();", "(t + 32) % 64"), 64, 1), "verified");
    // Nor threads of different blocks.
    let global = "__global__ void k(int *A) { unsigned i = blockIdx.x * 32 + threadIdx.x; A[i] = i; __syncwarp(); A[(i + 32) % 64] = 0; }";
    starts(cuda(global, 32, 2), "possible write-write race on A[");
}

#[test]
fn warps_are_runs_of_32_linear_thread_ids() {
    // A 16x4 block: rows 0-1 are warp 0, rows 2-3 warp 1 (x varies fastest).
    let src = |row: &str| {
        format!(
            "__global__ void k(int *A) {{\n  __shared__ int s[4][16];\n  unsigned x = threadIdx.x, y = threadIdx.y;\n  s[y][x] = x;\n  __syncwarp();\n  A[y * 16 + x] = s[{row}][x];\n}}\n"
        )
    };
    let opts = options(Language::Cuda, [16, 4, 1], [1, 1, 1]);
    starts(verdict_with(&src("y ^ 1"), &opts), "verified");
    starts(verdict_with(&src("y ^ 2"), &opts), "possible write-read race on s[");
}

#[test]
fn syncwarp_reached_by_part_of_a_warp_diverges() {
    let src = "__global__ void k(int *A) { A[threadIdx.x] = 1; if (threadIdx.x % 2) __syncwarp(); }";
    starts(cuda(src, 64, 1), DIVERGENCE);
    // A condition uniform in each warp is no divergence, though it is for a block barrier.
    let per_warp = "__global__ void k(int *A) { A[threadIdx.x] = 1; if (threadIdx.x / 32 == 1) __syncwarp(); }";
    starts(cuda(per_warp, 64, 1), "verified");
    starts(cuda(&per_warp.replace("__syncwarp", "__syncthreads"), 64, 1), DIVERGENCE);
    // A thread that returned early does not reach it either (as for block barriers).
    starts(cuda("__global__ void k(int *A) { if (threadIdx.x == 3) return; __syncwarp(); }", 64, 1), DIVERGENCE);
}

#[test]
fn a_constant_mask_names_the_lanes_that_synchronise() {
    // The lower half of each warp synchronises among itself; the upper half does not take part.
    let lower = "if (t % 32 < 16) __syncwarp(0xffff);";
    starts(cuda(&exchange(lower, "t % 32 < 16 ? t ^ 1 : t"), 64, 1), "verified");
    starts(cuda(&exchange(lower, "t ^ 1"), 64, 1), "possible write-read race on s[");
    // Each half with its own mask: no order between the halves.
    let halves = "if (t % 32 < 16) __syncwarp(0xffff); else __syncwarp(0xffff0000);";
    starts(cuda(&exchange(halves, "t ^ 1"), 64, 1), "verified");
    starts(cuda(&exchange(halves, "t ^ 16"), 64, 1), "possible write-read race on s[");
    // A named lane that does not reach it, and a thread that is not in its own mask, are
    // undefined behaviour.
    starts(cuda(&exchange("if (t % 32 < 8) __syncwarp(0xffff);", "t"), 64, 1), DIVERGENCE);
    starts(cuda(&exchange("__syncwarp(0xffff);", "t"), 64, 1), DIVERGENCE);
}

#[test]
fn a_mask_computed_at_run_time_is_evaluated_per_thread() {
    let halves = "unsigned m = t % 32 < 16 ? 0xffffu : 0xffff0000u; __syncwarp(m);";
    starts(cuda(&exchange(halves, "t ^ 1"), 64, 1), "verified");
    starts(cuda(&exchange(halves, "t ^ 16"), 64, 1), "possible write-read race on s[");
    // A parameter may be any mask (one that does not name the thread, for one)...
    let param = |pre: &str| {
        format!("__global__ void k(int *A, unsigned m) {{\n  __shared__ int s[64];\n  unsigned t = threadIdx.x;\n  {pre}\n  s[t] = t;\n  __syncwarp(m);\n  A[t] = s[t ^ 1];\n}}\n")
    };
    starts(cuda(&param(""), 64, 1), DIVERGENCE);
    starts(cuda(&param("__requires(m == 0xffffffffu);"), 64, 1), "verified");
    // ...and an abstract value may differ between threads: conservatively divergence.
    starts(cuda(&exchange("__syncwarp(__activemask());", "t ^ 1"), 64, 1), DIVERGENCE);
}

#[test]
fn cooperative_groups_tiles_order_the_threads_of_one_tile() {
    let tile = "cg::thread_block_tile<16> g = cg::tiled_partition<16>(cg::this_thread_block()); g.sync();";
    starts(cuda(&exchange(tile, "t ^ 1"), 64, 1), "verified");
    starts(cuda(&exchange(tile, "t ^ 15"), 64, 1), "verified");
    starts(cuda(&exchange(tile, "t ^ 16"), 64, 1), "possible write-read race on s[");
    // The dynamic partition and the free function `cg::sync`.
    let dynamic = "cg::thread_group g = cg::tiled_partition(cg::this_thread_block(), 16); cg::sync(g);";
    starts(cuda(&exchange(dynamic, "t ^ 1"), 64, 1), "verified");
    starts(cuda(&exchange(dynamic, "t ^ 16"), 64, 1), "possible write-read race on s[");
    // Tiles wider than a warp are tiles all the same.
    let wide = "cg::tiled_partition<64>(cg::this_thread_block()).sync();";
    starts(cuda(&exchange(wide, "t ^ 32"), 128, 1), "verified");
    starts(cuda(&exchange(wide, "t ^ 64"), 128, 1), "possible write-read race on s[");
    // Part of a tile reaching its barrier diverges; whole tiles need not agree.
    let part = "auto g = cg::tiled_partition<16>(cg::this_thread_block()); if (t % 16 < 8) g.sync();";
    starts(cuda(&exchange(part, "t"), 64, 1), DIVERGENCE);
    let whole = "auto g = cg::tiled_partition<16>(cg::this_thread_block()); if (t / 16 == 2) g.sync();";
    starts(cuda(&exchange(whole, "t"), 64, 1), "verified");
    // A tile's ranks are within the tile.
    let ranks = "auto g = cg::tiled_partition<16>(cg::this_thread_block()); __assert(g.thread_rank() == t % 16 && g.meta_group_rank() == t / 16 && g.size() == 16);";
    starts(cuda(&exchange(ranks, "t"), 64, 1), "verified");
}

#[test]
fn cooperative_groups_block_and_grid_syncs_are_block_and_grid_barriers() {
    for sync in
        ["cg::this_thread_block().sync();", "cg::sync(cg::this_thread_block());", "cg::thread_group g = cg::this_thread_block(); g.sync();"]
    {
        starts(cuda(&exchange(sync, "(t + 32) % 64"), 64, 1), "verified");
        starts(cuda(&exchange(&format!("if (t < 32) {{ {sync} }}"), "t"), 64, 1), DIVERGENCE);
    }
    let grid = "__global__ void k(int *A) { unsigned i = blockIdx.x * 32 + threadIdx.x; A[i] = i; cooperative_groups::this_grid().sync(); A[(i + 32) % 64] = 0; }";
    starts(cuda(grid, 32, 2), "verified");
    starts(cuda(&grid.replace("this_grid()", "this_thread_block()"), 32, 2), "possible write-write race on A[");
}

#[test]
fn syncthreads_count_and_or_are_block_barriers_with_divergence_checks() {
    for f in ["__syncthreads_count", "__syncthreads_and", "__syncthreads_or"] {
        let sync = format!("int c = {f}(t > 3); A[64 + t] = c;");
        starts(cuda(&exchange(&sync, "(t + 32) % 64"), 64, 1), "verified");
        starts(cuda(&exchange(&format!("if (t % 2) {{ {sync} }}"), "t"), 64, 1), DIVERGENCE);
    }
}

type RepairFn = fn(&std::path::Path, &str, &syncfix::Options) -> Result<syncfix::RepairReport, syncfix::ErrorReport>;

/// `syncfix::repair` or `syncfix::audit` (`f`) on a 1-D CUDA launch.
fn run(f: RepairFn, src: &str, block: u32, grid: u32) -> syncfix::RepairReport {
    let opts = options(Language::Cuda, [block, 1, 1], [grid, 1, 1]);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, src);
    f(&path, src, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn repair(src: &str, block: u32, grid: u32) -> syncfix::RepairReport {
    run(syncfix::repair, src, block, grid)
}

fn audit(src: &str, block: u32, grid: u32) -> syncfix::RepairReport {
    run(syncfix::audit, src, block, grid)
}

#[test]
fn repair_inserts_a_warp_barrier_where_the_race_lies_within_one_warp() {
    // Neighbours of one warp: `__syncwarp()` orders them, and weighs no more than a block
    // barrier, so it is preferred.
    let r = repair(&exchange("", "t ^ 1"), 64, 1);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    assert_eq!((r.inserted, r.removed), (1, 0));
    assert_eq!(
        r.changes.iter().map(|c| (c.kind, c.scope, c.barrier.as_str())).collect::<Vec<_>>(),
        [(ChangeKind::Insert, BarrierScope::Warp, "__syncwarp();")]
    );
    let patched = r.patched.expect("a patched kernel");
    assert!(patched.contains("__syncwarp();") && !patched.contains("__syncthreads();"), "{patched}");
    // The patched kernel verifies.
    starts(cuda(&patched, 64, 1), "verified");
    // With the __syncwarp there is nothing to do.
    let r = repair(&exchange("__syncwarp();", "t ^ 1"), 64, 1);
    assert!(matches!(r.status, RepairStatus::NoChange), "{:?}", r.status);
}

#[test]
fn repair_inserts_a_block_barrier_where_the_race_crosses_warps() {
    // Thread t reads what thread t + 32 (another warp) wrote: only a block barrier orders them.
    let r = repair(&exchange("", "(t + 32) % 64"), 64, 1);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    let patched = r.patched.expect("a patched kernel");
    assert!(patched.contains("__syncthreads();") && !patched.contains("__syncwarp();"), "{patched}");
    // A warp barrier under a branch that whole warps take is no divergence; a block barrier
    // there would be: the classic warp-synchronous reduction step gets `__syncwarp()`.
    let src = "__global__ void k(int *A) {\n  __shared__ int s[128];\n  unsigned t = threadIdx.x;\n  s[t] = A[t];\n  __syncthreads();\n  if (t < 32) {\n    s[t] += s[t + 16];\n    s[t] += s[t + 8];\n  }\n  if (t == 0) A[0] = s[0];\n}\n";
    let r = repair(src, 128, 1);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    let patched = r.patched.expect("a patched kernel");
    assert!(patched.contains("__syncwarp();") && patched.matches("__syncthreads").count() == 1, "{patched}");
    starts(cuda(&patched, 128, 1), "verified");
    // Blocks of a single warp get block barriers only.
    let r = repair(&exchange("", "t ^ 1"), 32, 1);
    let patched = r.patched.expect("a patched kernel");
    assert!(patched.contains("__syncthreads();") && !patched.contains("__syncwarp();"), "{patched}");
}

#[test]
fn audit_and_repair_never_remove_a_warp_or_tile_barrier() {
    // Neither barrier is needed: audit removes the block barrier and keeps the warp barrier.
    let src = "__global__ void k(int *A) {\n  A[threadIdx.x] = 1;\n  __syncthreads();\n  __syncwarp();\n  A[threadIdx.x] = 2;\n}\n";
    assert!(matches!(repair(src, 64, 1).status, RepairStatus::NoChange));
    let r = audit(src, 64, 1);
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    assert_eq!((r.inserted, r.removed), (0, 1));
    let patched = r.patched.expect("a patched kernel");
    assert!(patched.contains("__syncwarp();") && !patched.contains("__syncthreads();"), "{patched}");
    let tile = "#include <cooperative_groups.h>\n__global__ void k(int *A) {\n  A[threadIdx.x] = 1;\n  cooperative_groups::tiled_partition<16>(cooperative_groups::this_thread_block()).sync();\n  A[threadIdx.x] = 2;\n}\n";
    assert!(matches!(repair(tile, 64, 1).status, RepairStatus::NoChange));
    assert!(matches!(audit(tile, 64, 1).status, RepairStatus::NoChange));
    // A divergent warp barrier cannot be repaired: it is not the repair's to remove.
    let r = repair("__global__ void k(int *A) { A[threadIdx.x] = 1; if (threadIdx.x % 2) __syncwarp(); }\n", 64, 1);
    assert!(matches!(r.status, RepairStatus::Unrepairable(_)), "{:?}", r.status);
}

/// The sites the instrumenter offers for `src`: "line kind scope".
fn sites(src: &str, grid: u32) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, src);
    let mut opts = Options::new(Launch::new([64, 1, 1], [grid, 1, 1]));
    opts.language = Some(Language::Cuda);
    let mut v: Vec<String> =
        syncfix::sites(Path::new(&path), src, &opts).unwrap().into_iter().map(|s| format!("{} {} {}", s.line, s.kind, s.scope)).collect();
    v.sort();
    v
}

#[test]
fn warp_and_tile_barriers_are_no_block_barrier_sites() {
    let src = |sync: &str| {
        format!("#include <cooperative_groups.h>\n__global__ void k(int *A) {{\n  A[threadIdx.x] = 1;\n  {sync}\n  A[threadIdx.x ^ 1] = 2;\n}}\n")
    };
    let accesses = ["3 before block", "3 before grid", "3 before warp", "5 before block", "5 before grid", "5 before warp"];
    for sync in ["__syncwarp();", "cooperative_groups::tiled_partition<16>(cooperative_groups::this_thread_block()).sync();"] {
        assert_eq!(sites(&src(sync), 2), accesses, "{sync}");
    }
    // A block barrier is a site of its own, with a grid twin.
    assert_eq!(
        sites(&src("__syncthreads();"), 2),
        [
            "3 before block",
            "3 before grid",
            "3 before warp",
            "4 before grid",
            "4 existing block",
            "5 before block",
            "5 before grid",
            "5 before warp"
        ]
    );
}
