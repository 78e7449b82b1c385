//! Counterexample traces read off the solver's model (ARCHITECTURE.md, "crates/verify": a trace names the defect,
//! the two accesses, the threads, every barrier variable, and the sites between).

use crate::encode::{Encoding, PropKind};
use crate::memory::AccessKind;
use std::collections::{BTreeMap, BTreeSet};
use syncfix_kir::EntityRef;
use syncfix_kir::{AssertKind, Cfg, Fences, InstId, InstKind, Kernel, ObjectId, Scope, Space, Span, VarId};
use z3::ast::{Bool, BV};
use z3::{Context, Model};

/// Thread and group ids of one thread, per dimension.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ThreadIds {
    pub local: [u32; 3],
    pub group: [u32; 3],
    /// The launch's block and grid sizes in this trace (symbolic sizes take the model's).
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
}

/// One access of a race.
#[derive(Clone, Debug)]
pub struct Access {
    pub inst: InstId,
    pub span: Span,
    pub kind: AccessKind,
    /// Which of the trace's threads made it (0 or 1).
    pub thread: usize,
    /// Made by an external (specified) function, so it has no source location of its own.
    pub external: bool,
}

/// A data race between two accesses.
#[derive(Clone, Debug)]
pub struct Race {
    pub object: ObjectId,
    /// Byte offset of the second access.
    pub offset: u64,
    pub width: u32,
    /// The access logged first (thread 1) and the conflicting later access (thread 2).
    pub first: Access,
    pub second: Access,
    /// Disabled barrier variables whose barrier both threads reached between the two
    /// accesses and that would order this pair (scope and fences fit): enabling one of them
    /// removes this trace (the exact clause, ARCHITECTURE.md "crates/repair").
    pub separating: Vec<VarId>,
    /// Clauses of a trace that is not exact, as GPURepair draws them (§2.4) but only where the
    /// pair can be ordered, from the tightest: disabled variables of fitting barriers between
    /// the two accesses in program order, or round the back edge of the loops enclosing both,
    /// one more loop per level from the innermost. When the first access lies later in a loop
    /// body than the second (an earlier iteration logged it), level 0 already goes round the
    /// innermost loop: after the first or before the second; barriers that order only
    /// accesses two or more iterations apart are left out.
    pub near: Vec<Vec<VarId>>,
    /// The coarse clause, for when `near` is empty: disabled variables of fitting barriers
    /// between the two accesses in program order, plus those in loops enclosing either access.
    pub in_order: Vec<VarId>,
}

/// The defect a trace exhibits.
#[derive(Clone, Debug)]
pub enum Defect {
    Race(Race),
    /// A barrier reached by one thread of the pair and not the other.
    Divergence {
        barrier: InstId,
        span: Span,
        var: Option<VarId>,
    },
    /// An assertion (or a callee's precondition, a postcondition, an invariant) fails for
    /// `thread`; `first_iteration`: a loop invariant fails on entry to its loop.
    Assertion {
        inst: InstId,
        span: Span,
        kind: AssertKind,
        thread: usize,
        first_iteration: bool,
    },
    /// `thread` writes constant memory.
    ConstantWrite {
        inst: InstId,
        span: Span,
        thread: usize,
    },
    /// `thread` accesses `object` at byte `offset`, outside the array.
    OutOfBounds {
        inst: InstId,
        span: Span,
        thread: usize,
        object: ObjectId,
        offset: u64,
    },
}

/// A counterexample.
#[derive(Clone, Debug)]
pub struct Trace {
    pub defect: Defect,
    pub threads: [ThreadIds; 2],
    pub same_group: bool,
    /// The barrier assignment the trace was found under.
    pub assignment: Vec<bool>,
    /// The trace replays under every assignment of the barrier variables (no
    /// equality-abstracted arrays; loops fully unrolled), so clauses drawn from it are exact.
    pub exact: bool,
    /// Values of the kernel's scalar parameters in the model: (parameter index, bits).
    pub params: Vec<(usize, u128)>,
    /// The memory the model chose: (object, byte offset, byte) for each byte of shared or
    /// global memory (without a known initializer) that a load of either thread read before
    /// the defect, the first read of a byte first; at most [`MAX_MEMORY_BYTES`] bytes.
    pub memory: Vec<(ObjectId, u64, u8)>,
    /// The disabled barrier variables whose barriers the trace reached before its defect (the
    /// failing thread's, for an assertion): GPURepair's clause for an assertion.
    pub reached: Vec<VarId>,
}

fn eval_bool<'ctx>(m: &Model<'ctx>, b: &Bool<'ctx>) -> bool {
    m.eval(b, true).and_then(|v| v.as_bool()).unwrap_or(false)
}

fn eval_bv<'ctx>(m: &Model<'ctx>, b: &BV<'ctx>) -> u64 {
    m.eval(b, true).and_then(|v| v.as_u64()).unwrap_or(0)
}

pub(crate) fn extract<'ctx>(
    ctx: &'ctx Context,
    k: &Kernel,
    cfg: &Cfg,
    enc: &Encoding<'ctx>,
    m: &Model<'ctx>,
    among: Option<&[usize]>,
    assignment: &[bool],
    exact: bool,
) -> Option<Trace> {
    let _ = ctx;
    // The earliest violated property in the lock-step schedule, among those of the query
    // that gave the model (`among`, indices into `enc.obligations.props()`) when it is known.
    let prop = match among {
        Some(among) => among.iter().map(|&i| &enc.obligations.props()[i]).filter(|p| eval_bool(m, &p.cond)).min_by_key(|p| p.pos)?,
        None => enc.obligations.props().iter().filter(|p| eval_bool(m, &p.cond)).min_by_key(|p| p.pos)?,
    };
    let threads: [ThreadIds; 2] = std::array::from_fn(|t| ThreadIds {
        local: std::array::from_fn(|d| eval_bv(m, &enc.symbols.tid(t).local[d]) as u32),
        group: std::array::from_fn(|d| eval_bv(m, &enc.symbols.tid(t).group[d]) as u32),
        block_dim: std::array::from_fn(|d| eval_bv(m, &enc.symbols.sizes()[0][d]) as u32),
        grid_dim: std::array::from_fn(|d| eval_bv(m, &enc.symbols.sizes()[1][d]) as u32),
    });
    let same_group = eval_bool(m, enc.symbols.same_group());
    let reading = Reading { k, enc, m, assignment, threads, same_group };
    let disabled = |v: VarId| reading.disabled(v);
    let defect = match &prop.kind {
        PropKind::Race { check, logged, who, off2 } => reading.race(*check, *logged, who, off2)?,
        PropKind::Divergence { barrier } => {
            let b = &enc.obligations.barriers()[*barrier];
            Defect::Divergence { barrier: b.inst, span: k.insts[b.inst].span.clone(), var: b.var }
        }
        PropKind::Assert { inst, thread, kind, first_iteration } => Defect::Assertion {
            inst: *inst,
            span: k.insts[*inst].span.clone(),
            kind: *kind,
            thread: *thread,
            first_iteration: *first_iteration,
        },
        PropKind::OutOfBounds { inst, thread, off } => {
            let object = match k.insts[*inst].kind.access() {
                Some((p, _, _, _)) => p.object,
                None => return None,
            };
            Defect::OutOfBounds { inst: *inst, span: k.insts[*inst].span.clone(), thread: *thread, object, offset: eval_bv(m, off) }
        }
        PropKind::ConstantWrite { inst, thread } => {
            Defect::ConstantWrite { inst: *inst, span: k.insts[*inst].span.clone(), thread: *thread }
        }
    };
    let params = enc
        .symbols
        .params()
        .iter()
        .map(|(i, t)| {
            let v = match t {
                crate::term::Term::B(b) => eval_bool(m, b) as u128,
                crate::term::Term::V(v) => eval_bv(m, v) as u128,
            };
            (*i, v)
        })
        .collect();
    // GPURepair's clause for a failing assertion (§2.4): the disabled barriers of the trace,
    // those the failing thread reached before it (both threads, for the other defects).
    let reached = enc
        .obligations
        .barriers()
        .iter()
        .filter(|b| b.pos < prop.pos)
        .filter(|b| match prop.kind {
            // A loop invariant not maintained: only the iteration that broke it counts.
            PropKind::Assert { inst, thread, kind: AssertKind::LoopInvariant, first_iteration: false } => {
                eval_bool(m, &b.pred[thread]) && cfg.loop_of[k.insts[inst].block].is_some_and(|l| b.loops.contains(&l))
            }
            PropKind::Assert { thread, .. } => eval_bool(m, &b.pred[thread]),
            _ => eval_bool(m, &b.pred[0]) && eval_bool(m, &b.pred[1]),
        })
        .filter_map(|b| b.var)
        .filter(|v| disabled(*v))
        .collect::<BTreeSet<VarId>>()
        .into_iter()
        .collect();
    let memory = initial_memory(enc, m, prop.pos);
    Some(Trace { defect, threads: reading.threads, same_group, assignment: assignment.to_vec(), exact, params, memory, reached })
}

/// At most this many bytes of memory are read from a model ([`Trace::memory`]).
pub const MAX_MEMORY_BYTES: usize = 1 << 16;

/// The bytes the loads of `enc` up to schedule position `upto` read in model `m`, where they
/// ran: what memory held for the trace (for an equality-abstracted array, its contents; for
/// an adversarial one, the values its reads returned), little-endian, the first read of a
/// byte first.
fn initial_memory<'ctx>(enc: &Encoding<'ctx>, m: &Model<'ctx>, upto: u32) -> Vec<(ObjectId, u64, u8)> {
    let mut bytes: BTreeMap<(ObjectId, u64), u8> = BTreeMap::new();
    for r in enc.obligations.reads().iter().filter(|r| r.pos <= upto) {
        if bytes.len() >= MAX_MEMORY_BYTES {
            break;
        }
        if !eval_bool(m, &r.pred) {
            continue;
        }
        let off = eval_bv(m, &r.off);
        for chunk in 0..r.bytes.div_ceil(8) {
            let lo = chunk * 64;
            let hi = (lo + 64).min(r.bytes * 8) - 1;
            let v = if lo == 0 && hi + 1 == r.val.get_size() { eval_bv(m, &r.val) } else { eval_bv(m, &r.val.extract(hi, lo)) };
            for b in 0..=(hi - lo) / 8 {
                let at = off.wrapping_add(u64::from(chunk * 8 + b));
                bytes.entry((r.object, at)).or_insert((v >> (8 * b)) as u8);
            }
        }
    }
    bytes.into_iter().map(|((o, off), b)| (o, off, b)).collect()
}

/// A model read for a trace: the kernel, its encoding, the model, the barrier assignment it
/// was found under, and the two threads' ids it gives.
struct Reading<'a, 'ctx> {
    k: &'a Kernel,
    enc: &'a Encoding<'ctx>,
    m: &'a Model<'ctx>,
    assignment: &'a [bool],
    threads: [ThreadIds; 2],
    same_group: bool,
}

impl<'ctx> Reading<'_, 'ctx> {
    /// Barrier variable `v` is off in the assignment.
    fn disabled(&self, v: VarId) -> bool {
        !self.assignment.get(v.index()).copied().unwrap_or(false)
    }

    /// Whether barrier instance `b` can order an access pair of these threads on an object in
    /// shared memory (`shared`) or global memory, by its scope and fences alone: a guarded
    /// tile barrier (a repair's warp twin, every lane named) when both threads are in one tile
    /// of one block, a grid barrier, or a block barrier in one group with the object's fence.
    fn orders_statically(&self, b: &crate::encode::BarrierInstance<'ctx>, shared: bool) -> bool {
        // A guarded tile barrier (a repair's warp twin, every lane named) orders the
        // pair when both threads are in one tile of one block.
        if let Scope::Tile { size, mask } = b.scope {
            let full = mask == syncfix_kir::TileMask::FULL;
            return full && self.same_group && {
                let lin = |t: &ThreadIds| {
                    let [bx, by, _] = t.block_dim.map(u64::from);
                    let [x, y, z] = t.local.map(u64::from);
                    x + y * bx + z * bx * by
                };
                let size = u64::from(size.max(1));
                lin(&self.threads[0]) / size == lin(&self.threads[1]) / size
            };
        }
        if !self.same_group && b.scope != Scope::Grid {
            return false;
        }
        if b.scope == Scope::Grid {
            return true;
        }
        match &self.k.insts[b.inst].kind {
            InstKind::Barrier(bar) => match bar.fences {
                Fences::Const { local, global } => {
                    if shared {
                        local
                    } else {
                        global
                    }
                }
                Fences::Dynamic(_) => true,
            },
            _ => false,
        }
    }

    /// The race of property `Race { check, logged, who, off2 }` in the model: its two
    /// accesses, and the barrier variables off in the assignment that would order them
    /// (between them in this trace, `separating`; by loop level, `near`; any on their paths,
    /// `in_order`: GPURepair's clause, VMCAI 2021 §2.4). `None` when the log names no access.
    fn race(&self, check: usize, logged: crate::memory::AccessKind, who: &BV<'ctx>, off2: &BV<'ctx>) -> Option<Defect> {
        let second = &self.enc.obligations.accesses()[check];
        let first_idx = eval_bv(self.m, who) as usize;
        let first = self.enc.obligations.accesses().get(first_idx)?;
        let object = second.object;
        let shared = self.k.objects[object].space == Space::Shared;
        let mut separating = BTreeSet::new();
        let mut in_order = BTreeSet::new();
        // Loops enclosing both accesses, innermost first.
        let common_order: Vec<usize> = self.enc.obligations.access_loops()[first_idx]
            .iter()
            .filter(|l| self.enc.obligations.access_loops()[check].contains(l))
            .copied()
            .collect();
        // The first access later in the body than the second: an earlier iteration logged
        // it, and level k wraps round the k+1 innermost common loops. Otherwise level 0 is
        // the same iteration, and level k wraps round the k innermost (the trace cannot
        // tell which iteration logged the first access when it is not exact).
        let backwards = first.pos >= second.pos;
        let levels = if backwards { common_order.len().max(1) } else { common_order.len() + 1 };
        let mut near: Vec<BTreeSet<VarId>> = vec![BTreeSet::new(); levels];
        let loops: BTreeSet<usize> = self.enc.obligations.access_loops()[first_idx]
            .iter()
            .chain(self.enc.obligations.access_loops()[check].iter())
            .copied()
            .collect();
        // An asynchronous copy's access stays unordered by barriers until thread 1 waits
        // (OpenCL `wait_group_events`): a barrier orders it only after a wait that is on,
        // or that the barrier's own variable turns on (a wait-then-barrier candidate).
        let own_wait = |v: VarId| self.enc.obligations.waits().iter().any(|w| w.var == Some(v));
        let waited = |b: &crate::encode::BarrierInstance<'ctx>, v: VarId| {
            !first.async_copy
                || self.enc.obligations.waits().iter().any(|w| {
                    first.pos < w.pos && w.pos < b.pos && eval_bool(self.m, &w.pred1) && w.var.is_none_or(|x| x == v || !self.disabled(x))
                })
        };
        for b in self.enc.obligations.barriers() {
            let Some(v) = b.var else { continue };
            if !self.disabled(v) || !self.orders_statically(b, shared) {
                continue;
            }
            let between = first.pos < b.pos && b.pos < second.pos;
            // A barrier that could not complete the copy (no wait before it in the trace,
            // and none of its own) orders it in no iteration.
            if first.async_copy && !own_wait(v) && !(between && waited(b, v)) {
                continue;
            }
            if between && eval_bool(self.m, &b.pred[0]) && eval_bool(self.m, &b.pred[1]) && waited(b, v) {
                let fence_ok = b.scope == Scope::Grid || eval_bool(self.m, if shared { &b.local1 } else { &b.global1 });
                if fence_ok {
                    separating.insert(v);
                }
            }
            // The pair ordered within one iteration (between them in program order), or,
            // when the first access comes later in the loop body than the second, across
            // the back edge of a loop enclosing both: after the first or before the second.
            let wraps = !backwards || b.pos > first.pos || b.pos < second.pos;
            for (level, set) in near.iter_mut().enumerate() {
                let wrapped = if backwards { level + 1 } else { level };
                let around = wraps && b.loops.iter().any(|l| common_order.iter().take(wrapped).any(|c| c == l));
                if between || around {
                    set.insert(v);
                }
            }
            if between || b.loops.iter().any(|l| loops.contains(l)) {
                in_order.insert(v);
            }
        }
        let width = match self.k.insts[second.inst].kind.access() {
            Some((_, w, _, _)) => w,
            None => 0,
        };
        Some(Defect::Race(Race {
            object,
            offset: eval_bv(self.m, off2),
            width,
            first: Access {
                inst: first.inst,
                span: self.k.insts[first.inst].span.clone(),
                kind: logged,
                thread: 0,
                external: first.external,
            },
            second: Access {
                inst: second.inst,
                span: self.k.insts[second.inst].span.clone(),
                kind: second.kind,
                thread: 1,
                external: false,
            },
            separating: separating.into_iter().collect(),
            near: near.into_iter().map(|s| s.into_iter().collect()).collect(),
            in_order: in_order.into_iter().collect(),
        }))
    }
}
