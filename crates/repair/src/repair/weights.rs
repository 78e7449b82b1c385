//! The costs of enabling each barrier variable: GPURepair's weights and syncfix's tie-break.

use super::*;

/// The costs of enabling each variable: GPURepair's weights, and a tie-break that prefers
/// keeping existing barriers, then anchors in the kernel over anchors in callees, then one
/// OpenCL fence over both and a warp barrier over a block barrier, then the earliest anchor,
/// and inside a copy call the latest step boundary (the most bytes copied before the barrier)
/// (ARCHITECTURE.md, "crates/repair": the tie-break).
pub fn costs(inst: &Instrumented) -> Costs {
    let n = inst.vars.len() as u64 + 1;
    let mut order: Vec<usize> = (0..inst.vars.len()).collect();
    order.sort_by_key(|&i| {
        let v = &inst.vars[i];
        let r = inst.kernel.stmts.stmts[v.stmt].range;
        let (kind, step) = match v.kind {
            SiteKind::Step(o) => (SiteKind::Step(0), o),
            k => (k, 0),
        };
        (if v.kind == SiteKind::End { r.end } else { r.start }, kind, std::cmp::Reverse(step), v.scope)
    });
    let mut rank = vec![0u64; inst.vars.len()];
    for (r, i) in order.into_iter().enumerate() {
        rank[i] = r as u64;
    }
    let callee_cost = n * n + 1;
    let new_cost = n * (callee_cost + n) + 1;
    let tie = inst
        .vars
        .iter()
        .enumerate()
        .map(|(i, v)| {
            (if v.kind == SiteKind::Existing { 0 } else { new_cost })
                + if v.in_callee { callee_cost } else { 0 }
                + rank[i]
                + if fewer_flags_possible(inst, v) || has_warp_twin(inst, v) { n } else { 0 }
        })
        .collect();
    Costs { weight: inst.vars.iter().map(|v| v.weight).collect(), tie }
}

/// A new block barrier at a site that also offers a warp barrier: at equal weight, the warp
/// barrier is preferred.
fn has_warp_twin(inst: &Instrumented, v: &syncfix_instrument::BarrierVar) -> bool {
    v.kind != SiteKind::Existing
        && v.scope == Scope::Block
        && inst.vars.iter().any(|w| w.stmt == v.stmt && w.kind == v.kind && matches!(w.scope, Scope::Tile { .. }))
}

/// A new OpenCL barrier fencing both memories, at a site that also offers each fence alone:
/// at equal weight, one fence is preferred.
fn fewer_flags_possible(inst: &Instrumented, v: &syncfix_instrument::BarrierVar) -> bool {
    inst.kernel.language == syncfix_kir::Language::OpenCl
        && v.kind != SiteKind::Existing
        && v.scope == Scope::Block
        && v.fences == syncfix_kir::Fences::ALL
}
