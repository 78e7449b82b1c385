//! Uniformity analysis (GPUVerify's `UniformityAnalyser`; Betts et al., OOPSLA 2012 §5): a
//! value is *uniform* when any two threads that both execute its instruction (at the same
//! point of the lock-step schedule) compute the same value; a loop is uniform when two threads
//! that both entered it go round it the same number of times.
//!
//! A loop cut uses the facts: a uniform header phi is havocked as one value shared by both
//! threads, and a uniform loop's predicate is the same in both threads that entered it. They
//! hold without inference, so they also serve under `--no-infer`.
//!
//! Non-uniform sources: thread ids (group ids too when the two threads may be in different
//! groups), reads of memory (but for a read of an equality-abstracted global array at a
//! uniform offset, which both threads read from one copy), atomics, havocked values, the
//! other thread's value, the predicate itself. A value computed from non-uniform operands is
//! non-uniform; a phi is non-uniform when the choice of its incoming edge may differ between
//! the threads (a non-uniform branch between the phi's block and its immediate dominator), and
//! so is a header phi of a non-uniform loop; a
//! value used after a non-uniform loop it is defined in is non-uniform (the threads may have
//! left in different iterations).

use crate::abstraction::{Abstraction, Model};
use std::collections::{BTreeSet, HashSet};
use syncfix_kir::{BlockId, Builtin, Cfg, InstId, InstKind, Kernel, LoopId, Operand, Space, Terminator};

pub struct Uniformity {
    nonuniform: HashSet<InstId>,
    /// Per loop: both threads that entered it leave it in the same iteration by the same exit.
    pub uniform_loop: Vec<bool>,
}

impl Uniformity {
    /// `multi_group`: the two threads may be in different groups (group ids differ).
    pub fn compute(k: &Kernel, cfg: &Cfg, abs: &Abstraction, an: &crate::analysis::Analysis, multi_group: bool) -> Uniformity {
        let mut nonuniform: HashSet<InstId> = HashSet::new();
        let mut uniform_loop = vec![true; cfg.loops.len()];
        let nu = |n: &HashSet<InstId>, o: &Operand| matches!(o, Operand::Value(v) if n.contains(v));
        loop {
            let before = (nonuniform.len(), uniform_loop.iter().filter(|u| !**u).count());
            // Branches whose condition is non-uniform.
            let branchy: BTreeSet<BlockId> = k
                .blocks
                .iter()
                .filter(|(_, b)| match &b.term {
                    Terminator::CondBr { cond, then, els } => then != els && nu(&nonuniform, cond),
                    Terminator::Switch { value, .. } => nu(&nonuniform, value),
                    _ => false,
                })
                .map(|(id, _)| id)
                .collect();
            for (l, lp) in cfg.loops.iter().enumerate() {
                if lp.blocks.iter().any(|b| branchy.contains(b)) {
                    uniform_loop[l] = false;
                }
            }
            for (id, inst) in k.insts.iter() {
                if nonuniform.contains(&id) || !cfg.reachable[inst.block] {
                    continue;
                }
                let non = match &inst.kind {
                    InstKind::Builtin(Builtin::LocalId(_)) => true,
                    InstKind::Builtin(Builtin::GroupId(_)) => multi_group,
                    InstKind::Builtin(Builtin::LocalSize(_) | Builtin::NumGroups(_)) => false,
                    InstKind::Havoc
                    | InstKind::Atomic { .. }
                    | InstKind::Other { .. }
                    | InstKind::Enabled
                    | InstKind::AtomicTaken { .. }
                    | InstKind::SpecLoad { .. } => true,
                    InstKind::Load { ptr, .. } => {
                        let o = &k.objects[ptr.object];
                        !(abs.model(ptr.object) == Model::Equality && o.space != Space::Shared && o.space != Space::Private)
                            || nu(&nonuniform, &ptr.offset)
                    }
                    // A header phi of a non-uniform loop is non-uniform, as in GPUVerify (whose
                    // variables keep a thread's value after it left the loop).
                    InstKind::Phi { incoming } => {
                        incoming.iter().any(|(_, o)| nu(&nonuniform, o))
                            || divergent_join(k, cfg, inst.block, &branchy, &uniform_loop)
                            || cfg.loop_of[inst.block].is_some_and(|l| cfg.loops[l].header == inst.block && !uniform_loop[l])
                    }
                    other => other.operands().iter().any(|o| nu(&nonuniform, o)),
                };
                // A value used after a non-uniform loop it is defined in.
                let escapes = || {
                    let mut l = cfg.loop_of[inst.block];
                    while let Some(x) = l {
                        if !uniform_loop[x] && an.loops[x].escapes.contains(&id) {
                            return true;
                        }
                        l = cfg.loops[x].parent;
                    }
                    false
                };
                if non || escapes() {
                    nonuniform.insert(id);
                }
            }
            let after = (nonuniform.len(), uniform_loop.iter().filter(|u| !**u).count());
            if after == before {
                return Uniformity { nonuniform, uniform_loop };
            }
        }
    }

    pub fn is_uniform(&self, v: InstId) -> bool {
        !self.nonuniform.contains(&v)
    }
}

/// Whether the incoming edge of a phi in block `b` may differ between two threads: a
/// non-uniform branch lies between `b`'s immediate dominator and `b` (for a loop header, the
/// entry edges; its back edges are chosen uniformly when the loop is uniform or has one latch).
fn divergent_join(k: &Kernel, cfg: &Cfg, b: BlockId, branchy: &BTreeSet<BlockId>, uniform_loop: &[bool]) -> bool {
    let Some(d) = cfg.idom[b] else { return true };
    let header_of: Option<LoopId> = cfg.loop_of[b].filter(|l| cfg.loops[*l].header == b);
    if let Some(l) = header_of {
        if cfg.loops[l].latches.len() > 1 && !uniform_loop[l] {
            return true;
        }
    }
    // Blocks from which `b` is reachable without passing through `d`, walking predecessors
    // (skipping the loop's own back edges for a header).
    let mut seen: BTreeSet<BlockId> = BTreeSet::new();
    let mut work: Vec<BlockId> = cfg.preds[b].iter().copied().filter(|p| header_of.is_none_or(|l| !cfg.in_loop(*p, l))).collect();
    while let Some(x) = work.pop() {
        if !seen.insert(x) {
            continue;
        }
        if branchy.contains(&x) {
            return true;
        }
        if x == d {
            continue;
        }
        work.extend(cfg.preds[x].iter().copied());
    }
    let _ = k;
    false
}
