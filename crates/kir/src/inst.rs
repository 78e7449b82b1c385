//! An instruction of the kernel ([`Inst`]) and what it does ([`InstKind`]).

use crate::entity::{BlockId, ObjectId};
use crate::ir::*;
use crate::source::Span;

#[derive(Clone, PartialEq, Debug)]
pub enum InstKind {
    /// A scalar kernel parameter: one symbolic value shared by all threads.
    Param {
        index: usize,
    },
    Builtin(Builtin),
    /// A value chosen freshly per thread each time it executes (LLVM `undef`, results of
    /// calls we do not model).
    Havoc,
    Bin {
        op: BinOp,
        lhs: Operand,
        rhs: Operand,
    },
    Cmp {
        pred: CmpPred,
        lhs: Operand,
        rhs: Operand,
    },
    Cast {
        op: CastOp,
        arg: Operand,
    },
    Select {
        cond: Operand,
        then: Operand,
        els: Operand,
    },
    Phi {
        incoming: Vec<(BlockId, Operand)>,
    },
    /// An uninterpreted floating-point (or math library) function, named by its operation and
    /// widths, e.g. `fadd.f32`, `sqrt.f32`, `fcmp.olt.f32`.
    Float {
        func: String,
        args: Vec<Operand>,
    },
    /// Read `width` bytes.
    Load {
        ptr: Pointer,
        width: u32,
    },
    /// Write `width` bytes.
    Store {
        ptr: Pointer,
        value: Operand,
        width: u32,
    },
    /// An atomic read-modify-write of `width` bytes; the result is the old value.
    Atomic {
        op: AtomicOp,
        ptr: Pointer,
        args: Vec<Operand>,
        width: u32,
    },
    Barrier(Barrier),
    Anchor(Anchor),
    /// A check of `cond` by each enabled thread; a `global` one (`__global_assert`,
    /// `__global_invariant`...) is checked whenever either thread of the pair is enabled.
    Assert {
        cond: Operand,
        kind: AssertKind,
        global: bool,
    },
    /// `__requires` of the kernel, `__assume`: executions that violate it are not considered.
    Assume {
        cond: Operand,
    },
    /// A candidate invariant or assertion (`__candidate_invariant(e)`): a hint for invariant
    /// inference, not a claim; it is not checked.
    Candidate {
        cond: Operand,
    },
    /// `__enabled()`: whether this thread executes here (width 1).
    Enabled,
    /// `__other_int(e)`: the value of `arg` in the other thread of the pair.
    Other {
        arg: Operand,
    },
    /// `__old_int(e)`: the value of `arg` where this instruction stands, kept when a
    /// specification is evaluated again elsewhere (a postcondition at a return).
    Old {
        arg: Operand,
    },
    /// A query on thread 1's race log of `object` (GPUVerify's `__read`, `__write_offset_bytes`...).
    LogQuery {
        object: ObjectId,
        kind: LogKind,
        query: LogQuery,
    },
    /// A read made by a specification (an invariant, a postcondition): not an access, so it
    /// is never logged or checked for races (GPUVerify's non-temporal loads).
    SpecLoad {
        ptr: Pointer,
        width: u32,
    },
    /// `__read_permission(x)` / `__write_permission(x)`: the thread may read the `width` bytes
    /// at `ptr` in the barrier invariants of this barrier interval as if it had accessed them
    /// (GPUVerify's barrier-invariant access check, Chong et al. OOPSLA 2013). Not an access.
    Permission {
        ptr: Pointer,
        width: u32,
    },
    /// The effect of an external (specified) function: `__reads_from(p)` / `__writes_to(p)`.
    /// Thread 1's log of `object` may now hold such an access at any offset (only the
    /// function's postconditions say more); a write leaves the contents arbitrary. Neither
    /// thread's access is checked here (GPUVerify checks only the caller's accesses).
    External {
        object: ObjectId,
        kind: LogKind,
    },
    /// `__atomic_has_taken_value(p, i, v)`: whether a repetition-free atomic on the cell at
    /// `ptr` (a byte address) has returned `value` to either thread so far (width 1); an
    /// arbitrary Boolean when the object is not repetition-free. The query on GPUVerify's
    /// `used` map of the refined atomic abstraction (NFM 2014 §4.2).
    AtomicTaken {
        ptr: Pointer,
        value: Operand,
    },
    /// `__array_snapshot(dst, src)`: the contents of `dst` become those of `src`, for every
    /// thread that executes it. A ghost copy for specifications: neither object is accessed
    /// (nothing is logged or checked for races).
    Snapshot {
        dst: ObjectId,
        src: ObjectId,
    },
    /// The thread's access just made to `object` is an asynchronous copy's (OpenCL's
    /// `async_work_group_copy`): barriers do not order it until the thread's next
    /// [`InstKind::AsyncWait`].
    AsyncPending {
        object: ObjectId,
    },
    /// `wait_group_events`: the thread's asynchronous copies are complete (it orders nothing
    /// by itself; a barrier after it does). `guard` is [`Guard::Always`] for the user's waits;
    /// the instrumenter's wait-then-barrier candidates (a repair that inserts
    /// `wait_group_events` before a barrier) guard it by their barrier variable.
    AsyncWait {
        guard: Guard,
    },
}

impl InstKind {
    /// The memory access of this instruction, if any: (pointer, width in bytes, is a write,
    /// is atomic).
    pub fn access(&self) -> Option<(Pointer, u32, bool, bool)> {
        match self {
            InstKind::Load { ptr, width } => Some((*ptr, *width, false, false)),
            InstKind::Store { ptr, width, .. } => Some((*ptr, *width, true, false)),
            InstKind::Atomic { ptr, width, .. } => Some((*ptr, *width, true, true)),
            _ => None,
        }
    }

    /// Operands read by the instruction (not including pointer objects).
    pub fn operands(&self) -> Vec<Operand> {
        match self {
            InstKind::Param { .. }
            | InstKind::Builtin(_)
            | InstKind::Havoc
            | InstKind::Anchor(_)
            | InstKind::Enabled
            | InstKind::LogQuery { .. }
            | InstKind::External { .. }
            | InstKind::Snapshot { .. }
            | InstKind::AsyncPending { .. }
            | InstKind::AsyncWait { .. } => vec![],
            InstKind::AtomicTaken { ptr, value } => vec![ptr.offset, *value],
            InstKind::Other { arg } | InstKind::Old { arg } => vec![*arg],
            InstKind::SpecLoad { ptr, .. } | InstKind::Permission { ptr, .. } => vec![ptr.offset],
            InstKind::Candidate { cond } => vec![*cond],
            InstKind::Bin { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => vec![*lhs, *rhs],
            InstKind::Cast { arg, .. } => vec![*arg],
            InstKind::Select { cond, then, els } => vec![*cond, *then, *els],
            InstKind::Phi { incoming } => incoming.iter().map(|(_, o)| *o).collect(),
            InstKind::Float { args, .. } => args.clone(),
            InstKind::Load { ptr, .. } => vec![ptr.offset],
            InstKind::Store { ptr, value, .. } => vec![ptr.offset, *value],
            InstKind::Atomic { ptr, args, .. } => {
                let mut v = vec![ptr.offset];
                v.extend(args.iter().copied());
                v
            }
            InstKind::Barrier(b) => {
                let mut v = match b.fences {
                    Fences::Dynamic(o) => vec![o],
                    Fences::Const { .. } => vec![],
                };
                if let Scope::Tile { mask: TileMask::Dynamic(m), .. } = b.scope {
                    v.push(m);
                }
                v
            }
            InstKind::Assert { cond, .. } | InstKind::Assume { cond } => vec![*cond],
        }
    }
}

/// An instruction: its kind, result width in bits (0 when it produces no value), its block
/// and source span.
#[derive(Clone, Debug)]
pub struct Inst {
    pub kind: InstKind,
    pub width: u16,
    pub block: BlockId,
    pub span: Span,
}
