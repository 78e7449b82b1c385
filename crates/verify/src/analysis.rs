//! Static facts about a kernel that the encoding needs, computed once: values that escape
//! their loops, values that depend on the race log, the width of logged values, and per loop
//! what it modifies (its *modset*, Betts et al. OOPSLA 2012 §4) and what it contains.

use std::collections::{BTreeSet, HashSet};
use syncfix_kir::{AssertKind, BlockId, Cfg, InstId, InstKind, Kernel, LogKind, LoopId, ObjectId, Operand, SecondaryMap, Terminator};

/// What one loop contains and modifies (nested loops included).
#[derive(Clone, Debug, Default)]
pub struct LoopInfo {
    /// The header's phis, in order.
    pub phis: Vec<InstId>,
    /// Objects written (stored to, updated atomically, written by an external function,
    /// snapshot into).
    pub written: BTreeSet<ObjectId>,
    /// Objects accessed (read, written or atomically updated), whose race logs the loop
    /// may change.
    pub accessed: BTreeSet<ObjectId>,
    /// The loop contains a barrier (which clears logs and havocs shared state).
    pub has_barrier: bool,
    /// The loop contains atomics on a repetition-free object (their history is state).
    pub atomic_objects: BTreeSet<ObjectId>,
    /// User loop invariants and candidates at the loop's head: (instruction, is a candidate).
    pub specs: Vec<(InstId, bool)>,
    /// The instructions of the header up to the last spec, in order (their values are the
    /// specs' operands).
    pub spec_prefix: Vec<InstId>,
    /// A non-pure instruction precedes a spec at the head (its value cannot be evaluated on
    /// another state): the instruction.
    pub impure_prefix: Option<InstId>,
    /// Values defined in the loop and used outside it.
    pub escapes: Vec<InstId>,
    /// When the header's instructions are all pure and it ends the loop with a two-way branch:
    /// the instructions, the branch condition and whether `true` stays in the loop.
    pub guard: Option<(Vec<InstId>, Operand, bool)>,
    /// The loop's exit conditions depend only on constants, launch dimensions and ids.
    pub bounded_by_launch: bool,
}

/// Facts about a kernel.
pub struct Analysis {
    /// Values defined in a loop and used outside it (they need predicated updates).
    pub escaping: HashSet<InstId>,
    /// Values computed from a query of the race log (`__write(p)`, `__read_offset_bytes(p)`).
    pub log_dependent: HashSet<InstId>,
    /// Width in bits of logged values of each object: its widest access.
    pub value_bits: SecondaryMap<ObjectId, u32>,
    /// The width in bytes of every logged access of an object, when they all have it and
    /// aligned offsets (then two accesses overlap exactly when their offsets are equal).
    pub uniform_width: SecondaryMap<ObjectId, Option<u32>>,
    pub loops: Vec<LoopInfo>,
    /// Values that can reach what the verifier checks or branches on ([`relevant_values`]).
    pub relevant: HashSet<InstId>,
}

impl Analysis {
    ///
    /// `active`: whether a barrier's site is encoded (a loop whose barriers are all left out
    /// is a loop without barriers).
    pub fn compute(k: &Kernel, cfg: &Cfg, abs: &crate::abstraction::Abstraction, active: &dyn Fn(syncfix_kir::Guard) -> bool) -> Analysis {
        let mut value_bits: SecondaryMap<ObjectId, u32> = SecondaryMap::with_default(8);
        for (_, i) in k.insts.iter() {
            if let Some((p, width, _, _)) = i.kind.access() {
                value_bits[p.object] = value_bits[p.object].max((width * 8).min(1024));
            }
        }
        let mut widths: SecondaryMap<ObjectId, BTreeSet<u32>> = SecondaryMap::new();
        for (_, i) in k.insts.iter() {
            match &i.kind {
                InstKind::External { object, .. } => {
                    widths[*object].insert(k.objects[*object].elem_size.max(1));
                }
                kind => {
                    if let Some((p, width, _, _)) = kind.access() {
                        widths[p.object].insert(width);
                    }
                }
            }
        }
        let mut uniform_width: SecondaryMap<ObjectId, Option<u32>> = SecondaryMap::new();
        for (o, _) in k.objects.iter() {
            if widths[o].len() == 1 && widths[o].iter().next() == Some(&abs.granule[o]) {
                uniform_width[o] = Some(abs.granule[o]);
            }
        }
        let uses = uses(k);
        let escaping = escaping_values(k, cfg, &uses);
        let loops = (0..cfg.loops.len()).map(|l| loop_info(k, cfg, l, &escaping, &uses, active)).collect();
        Analysis { escaping, log_dependent: log_dependent_values(k), value_bits, uniform_width, loops, relevant: relevant_values(k) }
    }
}

/// The values that can reach an address, a branch or loop condition, an assertion,
/// assumption or specification, an atomic's operands or a barrier's operands: every operand of
/// those, and, backwards, the operands of the pure instructions that compute them and the
/// values stored to an object whose loaded values are themselves relevant (through a
/// snapshot, its source's too). The others are data that is only computed and stored (an
/// MD5 round's state, a stencil's sums): a candidate invariant about them cannot help prove
/// anything the verifier checks — GPUVerify guesses loop bounds only for the variables of a
/// loop's guard (`GenerateCandidateForLoopBounds`) — and its check makes the solver reason
/// about the data's arithmetic (gpgpu-sim's md5: 20 to 30 s per candidate on its state).
pub fn relevant_values(k: &Kernel) -> HashSet<InstId> {
    let mut rel: HashSet<InstId> = HashSet::new();
    let mut stack: Vec<InstId> = vec![];
    let mut objects_read: HashSet<ObjectId> = HashSet::new();
    let mut object_stack: Vec<ObjectId> = vec![];
    let mut stored: std::collections::HashMap<ObjectId, Vec<Operand>> = Default::default();
    let mut snapshots_into: std::collections::HashMap<ObjectId, Vec<ObjectId>> = Default::default();
    fn push(o: Operand, rel: &mut HashSet<InstId>, stack: &mut Vec<InstId>) {
        if let Operand::Value(v) = o {
            if rel.insert(v) {
                stack.push(v);
            }
        }
    }
    for (_, b) in k.blocks.iter() {
        for o in term_operands(&b.term) {
            push(o, &mut rel, &mut stack);
        }
    }
    for (_, inst) in k.insts.iter() {
        match &inst.kind {
            InstKind::Store { ptr, value, .. } => {
                push(ptr.offset, &mut rel, &mut stack);
                stored.entry(ptr.object).or_default().push(*value);
            }
            InstKind::Snapshot { dst, src } => snapshots_into.entry(*dst).or_default().push(*src),
            InstKind::Bin { .. }
            | InstKind::Cmp { .. }
            | InstKind::Cast { .. }
            | InstKind::Select { .. }
            | InstKind::Phi { .. }
            | InstKind::Float { .. }
            | InstKind::Load { .. } => {
                if let InstKind::Load { ptr, .. } = &inst.kind {
                    push(ptr.offset, &mut rel, &mut stack);
                }
            }
            kind => {
                if let InstKind::SpecLoad { ptr, .. } | InstKind::AtomicTaken { ptr, .. } = kind {
                    if objects_read.insert(ptr.object) {
                        object_stack.push(ptr.object);
                    }
                }
                for o in kind.operands() {
                    push(o, &mut rel, &mut stack);
                }
            }
        }
    }
    loop {
        while let Some(v) = stack.pop() {
            match &k.insts[v].kind {
                InstKind::Bin { .. }
                | InstKind::Cmp { .. }
                | InstKind::Cast { .. }
                | InstKind::Select { .. }
                | InstKind::Phi { .. }
                | InstKind::Float { .. } => {
                    for o in k.insts[v].kind.operands() {
                        push(o, &mut rel, &mut stack);
                    }
                }
                // A load's or an atomic's value is the object's: what was stored there counts.
                InstKind::Load { ptr, .. } | InstKind::Atomic { ptr, .. } if objects_read.insert(ptr.object) => {
                    object_stack.push(ptr.object);
                }
                _ => {}
            }
        }
        let Some(o) = object_stack.pop() else { break };
        for &value in stored.get(&o).map(Vec::as_slice).unwrap_or(&[]) {
            push(value, &mut rel, &mut stack);
        }
        for &src in snapshots_into.get(&o).map(Vec::as_slice).unwrap_or(&[]) {
            if objects_read.insert(src) {
                object_stack.push(src);
            }
        }
    }
    rel
}

fn loop_info(
    k: &Kernel,
    cfg: &Cfg,
    l: LoopId,
    escaping: &HashSet<InstId>,
    uses: &[(InstId, BlockId)],
    active: &dyn Fn(syncfix_kir::Guard) -> bool,
) -> LoopInfo {
    let lp = &cfg.loops[l];
    let mut info = LoopInfo::default();
    for &b in &lp.blocks {
        for &i in &k.blocks[b].insts {
            match &k.insts[i].kind {
                InstKind::Store { ptr, .. } => {
                    info.written.insert(ptr.object);
                    info.accessed.insert(ptr.object);
                }
                InstKind::Atomic { ptr, .. } => {
                    info.written.insert(ptr.object);
                    info.accessed.insert(ptr.object);
                    info.atomic_objects.insert(ptr.object);
                }
                InstKind::Load { ptr, .. } => {
                    info.accessed.insert(ptr.object);
                }
                InstKind::External { object, kind } => {
                    info.accessed.insert(*object);
                    if *kind == LogKind::Write {
                        info.written.insert(*object);
                    }
                }
                InstKind::Snapshot { dst, .. } => {
                    info.written.insert(*dst);
                }
                InstKind::Barrier(b) if active(b.guard) => info.has_barrier = true,
                _ => {}
            }
            if escaping.contains(&i) && uses.iter().any(|&(v, b)| v == i && !cfg.in_loop(b, l)) {
                info.escapes.push(i);
            }
        }
    }
    let header = &k.blocks[lp.header];
    for &i in &header.insts {
        match &k.insts[i].kind {
            InstKind::Phi { .. } => info.phis.push(i),
            InstKind::Assert { kind: AssertKind::LoopInvariant, .. } => info.specs.push((i, false)),
            InstKind::Candidate { .. } => info.specs.push((i, true)),
            _ => {}
        }
    }
    if let Some(&(last, _)) = info.specs.last() {
        for &i in &header.insts {
            if matches!(k.insts[i].kind, InstKind::Phi { .. }) {
                continue;
            }
            if !is_pure(&k.insts[i].kind) && info.impure_prefix.is_none() {
                info.impure_prefix = Some(i);
            }
            info.spec_prefix.push(i);
            if i == last {
                break;
            }
        }
    }
    info.bounded_by_launch = loop_bounded_by_launch(k, cfg, l);
    let body: Vec<InstId> = header.insts.iter().copied().filter(|i| !matches!(k.insts[*i].kind, InstKind::Phi { .. })).collect();
    if body.iter().all(|i| is_pure(&k.insts[*i].kind)) {
        if let Terminator::CondBr { cond, then, els } = &header.term {
            match (cfg.in_loop(*then, l), cfg.in_loop(*els, l)) {
                (true, false) => info.guard = Some((body, *cond, true)),
                (false, true) => info.guard = Some((body, *cond, false)),
                _ => {}
            }
        }
    }
    info
}

/// Instructions whose value depends only on their operands and the current state (they can
/// be evaluated again on another state: a loop's entry or end-of-iteration state).
fn is_pure(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Param { .. }
            | InstKind::Builtin(_)
            | InstKind::Bin { .. }
            | InstKind::Cmp { .. }
            | InstKind::Cast { .. }
            | InstKind::Select { .. }
            | InstKind::Float { .. }
            | InstKind::Anchor(_)
            | InstKind::Assert { kind: AssertKind::LoopInvariant, .. }
            | InstKind::Candidate { .. }
            | InstKind::Enabled
            | InstKind::Other { .. }
            | InstKind::Old { .. }
            | InstKind::LogQuery { .. }
            | InstKind::SpecLoad { .. }
            | InstKind::AtomicTaken { .. }
    )
}

fn term_operands(t: &Terminator) -> Vec<Operand> {
    match t {
        Terminator::CondBr { cond, .. } => vec![*cond],
        Terminator::Switch { value, .. } => vec![*value],
        _ => vec![],
    }
}

/// Where each value is used: (value, block of the use). A phi's operand is used at the end
/// of its incoming block (that is where the edge takes it).
fn uses(k: &Kernel) -> Vec<(InstId, BlockId)> {
    let mut out = vec![];
    for (_, inst) in k.insts.iter() {
        match &inst.kind {
            InstKind::Phi { incoming } => {
                for (b, o) in incoming {
                    if let Operand::Value(v) = o {
                        out.push((*v, *b));
                    }
                }
            }
            other => out.extend(other.operands().into_iter().filter_map(|o| match o {
                Operand::Value(v) => Some((v, inst.block)),
                _ => None,
            })),
        }
    }
    for (b, blk) in k.blocks.iter() {
        for o in term_operands(&blk.term) {
            if let Operand::Value(v) = o {
                out.push((v, b));
            }
        }
    }
    out
}

/// Values defined in a loop and used outside it.
fn escaping_values(k: &Kernel, cfg: &Cfg, uses: &[(InstId, BlockId)]) -> HashSet<InstId> {
    let mut out = HashSet::new();
    for &(v, user) in uses {
        if let Some(l) = cfg.loop_of[k.insts[v].block] {
            if !cfg.in_loop(user, l) {
                out.insert(v);
            }
        }
    }
    out
}

/// Whether the exit conditions of a loop depend only on constants, launch dimensions and
/// thread ids (then full unrolling terminates). Conditions that depend on parameters, memory
/// or havocked values may not.
fn loop_bounded_by_launch(k: &Kernel, cfg: &Cfg, l: LoopId) -> bool {
    let mut conds: Vec<Operand> = vec![];
    for &b in &cfg.loops[l].blocks {
        let succs = k.blocks[b].term.successors();
        if succs.iter().any(|s| !cfg.in_loop(*s, l)) {
            conds.extend(term_operands(&k.blocks[b].term));
        }
    }
    let mut seen: HashSet<InstId> = HashSet::new();
    let mut work: Vec<Operand> = conds;
    while let Some(o) = work.pop() {
        let Operand::Value(v) = o else { continue };
        if !seen.insert(v) {
            continue;
        }
        match &k.insts[v].kind {
            InstKind::Param { .. } | InstKind::Havoc | InstKind::Load { .. } | InstKind::Atomic { .. } | InstKind::Float { .. } => {
                return false
            }
            other => work.extend(other.operands()),
        }
    }
    true
}

/// Values computed from a query of the race log (`__write(p)`, `__read_offset_bytes(p)`...).
fn log_dependent_values(k: &Kernel) -> HashSet<InstId> {
    let mut out: HashSet<InstId> = HashSet::new();
    loop {
        let before = out.len();
        for (id, inst) in k.insts.iter() {
            if out.contains(&id) {
                continue;
            }
            let dep = matches!(inst.kind, InstKind::LogQuery { .. })
                || inst.kind.operands().iter().any(|o| matches!(o, Operand::Value(v) if out.contains(v)));
            if dep && inst.width > 0 {
                out.insert(id);
            }
        }
        if out.len() == before {
            return out;
        }
    }
}
