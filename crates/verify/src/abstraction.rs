//! How each memory object is modelled (ARCHITECTURE.md, "crates/verify": arrays), decided once per kernel.
//!
//! GPUVerify (`ArrayControlFlowAnalyser`, `GPUVerifier.ArrayModelledAdversarially`) models an
//! array *adversarially* (every read returns a fresh value per thread; writes are dropped)
//! unless values read from it may affect control flow, in which case it uses the *equality*
//! abstraction (contents shared between the threads, havocked at barriers). The taint is a
//! flow-insensitive data-flow over SSA: a loaded value is tainted by its array and by the taint
//! of its index; taint does not flow through memory; sinks are branch conditions, switch
//! values, assertions and assumptions. Atomically accessed arrays are always adversarial
//! (unless `--equality-abstraction` forces every array).

use std::collections::BTreeSet;
use syncfix_kir::{AtomicOp, BinOp, CastOp, InstId, InstKind, Kernel, ObjectId, Operand, SecondaryMap, Space, Terminator};

/// The model of one memory object.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Model {
    /// Per-thread memory, modelled exactly.
    Private,
    /// Both threads see the same contents (per group for shared memory); havocked at barriers.
    Equality,
    /// Reads return fresh values; writes are not modelled.
    Adversarial,
}

/// A user's choice that overrides the per-array analysis.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum ForceAbstraction {
    #[default]
    PerArray,
    Equality,
    Adversarial,
}

/// The decisions for every object of a kernel.
#[derive(Clone, Debug)]
pub struct Abstraction {
    pub model: SecondaryMap<ObjectId, Option<Model>>,
    /// Access granularity in bytes: every access to the object has this width and an offset
    /// that is a multiple of it (element-level array); 1 means byte-level.
    pub granule: SecondaryMap<ObjectId, u32>,
    /// The object is written (stored to or updated atomically) somewhere: races are possible.
    pub written: SecondaryMap<ObjectId, bool>,
    pub atomic: SecondaryMap<ObjectId, bool>,
    /// Only ever updated atomically by one repetition-free operation (increments, or
    /// decrements, by positive constants): an atomic on it returns a value it never returned
    /// before at that offset since the last plain write to it (Bardsley & Donaldson, NFM 2014,
    /// §4.2).
    pub repetition_free: SecondaryMap<ObjectId, bool>,
}

impl Abstraction {
    /// Decides the model of every object of `k`.
    pub fn compute(k: &Kernel, force: ForceAbstraction) -> Abstraction {
        let mut written: SecondaryMap<ObjectId, bool> = SecondaryMap::new();
        let mut atomic: SecondaryMap<ObjectId, bool> = SecondaryMap::new();
        let mut widths: SecondaryMap<ObjectId, BTreeSet<u32>> = SecondaryMap::new();
        let mut aligned: SecondaryMap<ObjectId, u32> = SecondaryMap::with_default(u32::MAX);
        let align = alignments(k);
        for (_, inst) in k.insts.iter() {
            if let InstKind::External { object, kind: syncfix_kir::LogKind::Write } | InstKind::Snapshot { dst: object, .. } = inst.kind {
                written[object] = true;
            }
            if let Some((ptr, width, is_write, is_atomic)) = inst.kind.access() {
                if is_write {
                    written[ptr.object] = true;
                }
                if is_atomic {
                    atomic[ptr.object] = true;
                }
                widths[ptr.object].insert(width);
                let a = operand_align(&align, ptr.offset);
                aligned[ptr.object] = aligned[ptr.object].min(a);
            }
        }
        // Repetition-free objects: every atomic on them moves the value the same way by a
        // positive constant; no plain write.
        let mut direction: SecondaryMap<ObjectId, Option<i8>> = SecondaryMap::new();
        let mut repetition_free: SecondaryMap<ObjectId, bool> = SecondaryMap::new();
        let mut spoilt: SecondaryMap<ObjectId, bool> = SecondaryMap::new();
        for (_, inst) in k.insts.iter() {
            // Only atomics count: a plain write (a store, an external function's write, a snapshot
            // copied into it) may give a cell any value, and the encoding forgets the values
            // returned before it (a concurrent plain write would race with the atomics, and is
            // reported).
            if let InstKind::Atomic { op, ptr, args, .. } = &inst.kind {
                let step = args.first().and_then(|a| match a {
                    Operand::Const { bits, width } => {
                        let w = *width as u32;
                        let neg = w > 0 && w < 128 && (bits >> (w - 1)) & 1 == 1;
                        Some((*bits != 0 && !neg) as i8)
                    }
                    _ => None,
                });
                let d = match (op, step) {
                    (AtomicOp::Add, Some(1)) => Some(1),
                    (AtomicOp::Sub, Some(1)) => Some(-1),
                    _ => None,
                };
                match (d, direction[ptr.object]) {
                    (Some(d), None) if !spoilt[ptr.object] => direction[ptr.object] = Some(d),
                    (Some(d), Some(e)) if d == e => {}
                    _ => spoilt[ptr.object] = true,
                }
            }
        }
        for (o, _) in k.objects.iter() {
            repetition_free[o] = direction[o].is_some() && !spoilt[o];
        }
        let control = control_objects(k);
        let mut model: SecondaryMap<ObjectId, Option<Model>> = SecondaryMap::new();
        let mut granule: SecondaryMap<ObjectId, u32> = SecondaryMap::with_default(1);
        for (o, obj) in k.objects.iter() {
            let m = match obj.space {
                Space::Private => Model::Private,
                // Read-only memory is the same for every thread and never changes: model it
                // exactly (with its initializer, when known).
                Space::Constant if !written[o] && force != ForceAbstraction::Adversarial => Model::Equality,
                _ => match force {
                    ForceAbstraction::Equality => Model::Equality,
                    ForceAbstraction::Adversarial => Model::Adversarial,
                    ForceAbstraction::PerArray => {
                        if atomic[o] || !control.contains(&o) {
                            Model::Adversarial
                        } else {
                            Model::Equality
                        }
                    }
                },
            };
            model[o] = Some(m);
            // The narrowest access's width, when every access is a power-of-two multiple of it
            // at an offset aligned to it: a wider access then spans whole elements
            // (`Mem::read`, `Mem::write`). Parboil's mri-gridding copies a 24-byte struct into
            // its shared tile as three 8-byte stores and reads it by 4-byte fields: 6 stores
            // of 4-byte elements a copy rather than 24 of bytes. Only for memory without an
            // initializer (a constant's cells are laid out at their own widths).
            let w = widths[o].iter().next().copied().unwrap_or(1);
            let multiples = widths[o].iter().all(|x| x.is_power_of_two() && x.is_multiple_of(w));
            let single = widths[o].len() == 1;
            if w.is_power_of_two() && aligned[o] >= w && (single || (multiples && obj.space != Space::Constant)) {
                granule[o] = w;
            }
        }
        Abstraction { model, granule, written, atomic, repetition_free }
    }

    pub fn model(&self, o: ObjectId) -> Model {
        self.model[o].unwrap_or(Model::Adversarial)
    }

    /// Whether any object is modelled with the equality abstraction (traces then depend on
    /// which barriers are on, so repair clauses from them are not exact: ARCHITECTURE.md "crates/repair").
    pub fn has_equality(&self, k: &Kernel) -> bool {
        k.objects.keys().any(|o| self.model(o) == Model::Equality)
    }
}

/// Objects whose values may reach a branch condition, switch value, assertion or assumption.
fn control_objects(k: &Kernel) -> BTreeSet<ObjectId> {
    let mut taint: SecondaryMap<InstId, BTreeSet<ObjectId>> = SecondaryMap::new();
    let of = |taint: &SecondaryMap<InstId, BTreeSet<ObjectId>>, o: &Operand| -> BTreeSet<ObjectId> {
        match o {
            Operand::Value(v) => taint[*v].clone(),
            _ => BTreeSet::new(),
        }
    };
    // Iterate to a fixpoint (phis make the data flow cyclic).
    loop {
        let mut changed = false;
        for (id, inst) in k.insts.iter() {
            let mut t: BTreeSet<ObjectId> = BTreeSet::new();
            match &inst.kind {
                InstKind::Load { ptr, .. } | InstKind::Atomic { ptr, .. } | InstKind::SpecLoad { ptr, .. } => {
                    t.insert(ptr.object);
                    t.extend(of(&taint, &ptr.offset));
                }
                InstKind::Store { .. } | InstKind::Barrier(_) | InstKind::Assert { .. } | InstKind::Assume { .. } | InstKind::Anchor(_) => {
                }
                other => {
                    for o in other.operands() {
                        t.extend(of(&taint, &o));
                    }
                }
            }
            if t.len() != taint[id].len() {
                taint[id] = t;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut control = BTreeSet::new();
    for (_, inst) in k.insts.iter() {
        if let InstKind::Assert { cond, .. } | InstKind::Assume { cond } = &inst.kind {
            control.extend(of(&taint, cond));
        }
    }
    for (_, b) in k.blocks.iter() {
        match &b.term {
            Terminator::CondBr { cond, .. } => control.extend(of(&taint, cond)),
            Terminator::Switch { value, .. } => control.extend(of(&taint, value)),
            _ => {}
        }
    }
    // A snapshot's source matters wherever its copy does.
    loop {
        let before = control.len();
        for (_, inst) in k.insts.iter() {
            if let InstKind::Snapshot { dst, src } = inst.kind {
                if control.contains(&dst) {
                    control.insert(src);
                }
            }
        }
        if control.len() == before {
            break;
        }
    }
    control
}

/// Known power-of-two alignment (a divisor) of every value, in units of the value itself.
fn alignments(k: &Kernel) -> SecondaryMap<InstId, u32> {
    const TOP: u32 = 1 << 30;
    let mut a: SecondaryMap<InstId, u32> = SecondaryMap::with_default(TOP);
    loop {
        let mut changed = false;
        for (id, inst) in k.insts.iter() {
            let new = match &inst.kind {
                InstKind::Bin { op, lhs, rhs } => {
                    let (x, y) = (operand_align(&a, *lhs), operand_align(&a, *rhs));
                    match op {
                        BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor => {
                            if *op == BinOp::And {
                                x.max(y).min(TOP)
                            } else {
                                x.min(y)
                            }
                        }
                        BinOp::Mul => x.saturating_mul(y).min(TOP),
                        BinOp::Shl => match rhs.as_const() {
                            Some(s) if s < 30 => x.saturating_mul(1 << s).min(TOP),
                            _ => x,
                        },
                        _ => 1,
                    }
                }
                InstKind::Cast { op: CastOp::ZExt | CastOp::SExt, arg } => operand_align(&a, *arg),
                InstKind::Select { then, els, .. } => operand_align(&a, *then).min(operand_align(&a, *els)),
                InstKind::Phi { incoming } => incoming.iter().map(|(_, o)| operand_align(&a, *o)).min().unwrap_or(1),
                _ => 1,
            };
            if new < a[id] {
                a[id] = new;
                changed = true;
            }
        }
        if !changed {
            return a;
        }
    }
}

fn operand_align(a: &SecondaryMap<InstId, u32>, o: Operand) -> u32 {
    match o {
        Operand::Value(v) => a[v],
        Operand::Const { bits, .. } => {
            if bits == 0 {
                1 << 30
            } else {
                1u32 << (bits.trailing_zeros().min(30))
            }
        }
    }
}
