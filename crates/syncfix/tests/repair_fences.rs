//! Repairs of OpenCL kernels fence only the memory whose races the barrier separates
//! (issue 12: `barrier(CLK_LOCAL_MEM_FENCE)` when only local memory races), and a write made
//! by a specified external function (`__writes_to`) is an access a barrier can order.

mod common;

use common::*;
use syncfix::{ChangeKind, Language, RepairStatus};

/// The barriers the repair of `src` inserts (the added lines, trimmed), or the status.
fn inserted(src: &str, local: u32, groups: u32) -> Result<Vec<String>, String> {
    let opts = options(Language::OpenCl, [local, 1, 1], [groups, 1, 1]);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::OpenCl, src);
    // (An error is part of the answer here, so not `repair_with`.)
    let r = syncfix::repair(&path, src, &opts).map_err(|e| e.to_string())?;
    if !matches!(r.status, RepairStatus::Repaired) {
        return Err(format!("{:?}", r.status));
    }
    let patched = r.patched.expect("a patched kernel");
    let before: Vec<&str> = src.lines().map(str::trim).collect();
    Ok(patched.lines().map(str::trim).filter(|l| l.starts_with("barrier(") && !before.contains(l)).map(String::from).collect())
}

#[test]
fn a_race_on_local_memory_gets_a_local_fence() {
    let src = "__kernel void k(__global float *g, __local float *l) {\n  size_t i = get_local_id(0);\n  l[i] = g[get_global_id(0)];\n  g[get_global_id(0)] = l[(i + 1) % 64];\n}\n";
    assert_eq!(inserted(src, 64, 4).unwrap(), ["barrier(CLK_LOCAL_MEM_FENCE);"]);
}

#[test]
fn a_race_on_global_memory_within_a_group_gets_a_global_fence() {
    let src = "__kernel void k(__global int *G) {\n  size_t i = get_global_id(0);\n  G[i] = 1;\n  int a = G[get_group_id(0) * 64 + (get_local_id(0) + 1) % 64];\n  G[i] = a;\n}\n";
    let got = inserted(src, 64, 4).unwrap();
    assert!(!got.is_empty() && got.iter().all(|b| b == "barrier(CLK_GLOBAL_MEM_FENCE);"), "{got:?}");
}

#[test]
fn races_on_both_memories_at_one_place_get_one_barrier_with_both_flags() {
    let src = "__kernel void k(__global int *G, __local int *L) {\n  int i = get_local_id(0);\n  G[get_global_id(0)] = i;\n  L[i] = i;\n  int a = G[get_group_id(0) * 16 + (i + 1) % 16] + L[(i + 1) % 16];\n  G[get_global_id(0)] = a;\n}\n";
    let got = inserted(src, 16, 2).unwrap();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.contains(&"barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);".to_string()), "{got:?}");
}

#[test]
fn an_external_write_is_ordered_by_a_barrier_after_the_call() {
    // GPUVerify's sourcelocation_tests/race_from_bodiless_call.
    let src = "void __spec_foo(__local int * p) {\n    __writes_to(p);\n}\nvoid baz(int x);\n__kernel void bar(__local int * A) {\n    __spec_foo(A);\n    baz(A[get_local_id(0)]);\n}\n";
    assert_eq!(inserted(src, 16, 2).unwrap(), ["barrier(CLK_LOCAL_MEM_FENCE);"]);
}

#[test]
fn an_asynchronous_copy_in_flight_is_repaired_by_a_wait_before_the_barrier() {
    // GPUVerify's async_work_group_copy/fail/test1: the wait was removed. A barrier alone does
    // not order the copy; the repair waits for the copy's event, then fences both memories
    // (the copy reads `p`, which the kernel then writes).
    let src = "#define N 64\nkernel void foo(global float* p) {\n    local float mine[N];\n    event_t handle = async_work_group_copy(mine, p + N*get_group_id(0), N, 0);\n    p[get_global_id(0)] = 2*mine[get_local_id(0)];\n}\n";
    let r = repair_with(src, &options(Language::OpenCl, [64, 1, 1], [128, 1, 1]));
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    assert_eq!(r.waited, 1, "{:?}", r.changes);
    let c = r.changes.iter().find(|c| c.kind == ChangeKind::InsertWait).expect("a wait");
    assert_eq!((c.line, c.barrier.as_str()), (5, "wait_group_events(1, &handle); barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"));
}

#[test]
fn an_asynchronous_copy_without_an_event_variable_gets_one() {
    let src = "#define N 64\nkernel void foo(global float* p) {\n    local float mine[N];\n    async_work_group_copy(mine, p + N*get_group_id(0), N, 0);\n    p[get_global_id(0)] = 2*mine[get_local_id(0)];\n}\n";
    let r = repair_with(src, &options(Language::OpenCl, [64, 1, 1], [128, 1, 1]));
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    let patched = r.patched.clone().unwrap();
    assert!(
        patched.contains("    event_t ev = async_work_group_copy(mine, p + N*get_group_id(0), N, 0);\n    wait_group_events(1, &ev);\n"),
        "{patched}"
    );
}

#[test]
fn a_barrier_whose_fences_are_too_weak_is_upgraded_in_place() {
    // The barrier orders local memory; the global array races across it too. The repair
    // rewrites its flags (a safe change: no barrier is lost) rather than removing it and
    // inserting a second one.
    let src = "__kernel void k(__global int *G, __local int *L) {\n  int i = get_local_id(0);\n  G[get_global_id(0)] = i;\n  L[i] = i;\n  barrier(CLK_LOCAL_MEM_FENCE);\n  int a = G[get_group_id(0) * 16 + (i + 1) % 16] + L[(i + 1) % 16];\n  G[get_group_id(0) * 16 + (i + 2) % 16] = a;\n}\n";
    let r = repair_with(src, &options(Language::OpenCl, [16, 1, 1], [2, 1, 1]));
    assert!(matches!(r.status, RepairStatus::Repaired), "{:?}", r.status);
    assert_eq!((r.upgraded, r.removed), (1, 0), "{:?}", r.changes);
    let up = r.changes.iter().find(|c| c.kind == ChangeKind::Upgrade).expect("an upgrade");
    assert_eq!((up.line, up.barrier.as_str()), (5, "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"));
    let patched = r.patched.clone().unwrap();
    assert_eq!(patched.lines().nth(4).map(str::trim), Some("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"), "{patched}");
    assert!(r.applies_safely(), "{:?}", r.unsafe_reason());
}
