//! The kernel: an SSA control-flow graph of one GPU kernel with every `__device__` call
//! inlined (ARCHITECTURE.md, "crates/kir").
//!
//! Values are bit-vectors of their width in bits (width 1 is a Boolean). Floating point is
//! uninterpreted, as in GPUVerify: a float is a bit-vector and every float operation an
//! uninterpreted function. A pointer is never a value: every memory access names its
//! [`MemObject`] statically and carries a byte offset.

use crate::entity::{BlockId, FileId, InstId, ObjectId, StmtId, VarId};
use crate::source::{Loc, SourceFile, Span, StmtTable};
use cranelift_entity::PrimaryMap;

pub use crate::inst::{Inst, InstKind};

/// The source language of a kernel.
#[derive(Copy, Clone, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub enum Language {
    Cuda,
    OpenCl,
}

/// The launch configuration: block (work-group) and grid (number of groups) sizes in threads
/// and blocks, three dimensions each (absent dimensions are 1).
///
/// A size of 0 is symbolic (GPUVerify's `*`, as in `--local_size=*`): any positive size, the
/// same for every thread, so a verdict holds for every such launch. `global_dim` fixes the
/// product of a symbolic dimension's block and grid sizes (`--local_size=* --global_size=1024`);
/// 0 there leaves it free.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Launch {
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    /// OpenCL's global offset (`--global_offset`), added to global ids.
    pub global_offset: [u32; 3],
    /// Threads per dimension in the whole grid, when fixed while its factors are symbolic.
    pub global_dim: [u32; 3],
}

impl Launch {
    /// A launch of `block_dim` threads per block and `grid_dim` blocks, no offset.
    pub fn new(block_dim: [u32; 3], grid_dim: [u32; 3]) -> Launch {
        Launch { block_dim, grid_dim, global_offset: [0; 3], global_dim: [0; 3] }
    }

    /// Threads per block; `None` when a dimension is symbolic.
    pub fn threads_per_block(&self) -> Option<u64> {
        Self::product(&self.block_dim)
    }
    /// Blocks in the grid; `None` when a dimension is symbolic.
    pub fn blocks(&self) -> Option<u64> {
        Self::product(&self.grid_dim)
    }
    /// Whether some size is symbolic (`*`).
    pub fn is_symbolic(&self) -> bool {
        self.block_dim.contains(&0) || self.grid_dim.contains(&0)
    }
    fn product(d: &[u32; 3]) -> Option<u64> {
        if d.contains(&0) {
            None
        } else {
            Some(d.iter().map(|&d| d as u64).product())
        }
    }
}

/// The memory space of an object.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Space {
    /// Device memory, shared by every thread of the grid (CUDA global, OpenCL `__global`).
    Global,
    /// Memory shared by the threads of one block (CUDA `__shared__`, OpenCL `__local`).
    Shared,
    /// Read-only memory (CUDA `__constant__`, OpenCL `__constant`).
    Constant,
    /// Memory of one thread (arrays and address-taken locals).
    Private,
}

/// A memory object.
#[derive(Clone, Debug)]
pub struct MemObject {
    /// The source name (parameter or variable), used in messages: `A` in `race on A[17]`.
    pub name: String,
    pub space: Space,
    /// Size in bytes of the source-level element type (for printing element indices).
    pub elem_size: u32,
    /// Extents of the source-level array dimensions in elements, outermost first
    /// (`[16, 32]` for `float b[16][32]`); empty for a pointer parameter of unknown size.
    pub dims: Vec<u64>,
    /// The kernel parameter this object is passed as, if any.
    pub param: Option<usize>,
    /// The known initial contents of a read-only (constant) object, if any.
    pub init: Option<Init>,
    /// A private object whose initial contents are the same for every thread (a struct
    /// passed to the kernel by value).
    pub uniform: bool,
}

/// Known initial contents of a memory object: zero everywhere except the listed cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Init {
    /// (byte offset, width in bytes, value) of each non-zero scalar.
    pub cells: Vec<(u64, u32, u128)>,
}

/// A constant or the value of an instruction. (`Ord` only so that a barrier [`Scope`] that
/// holds one can key ordered maps.)
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Operand {
    Value(InstId),
    Const { width: u16, bits: u128 },
}

impl Operand {
    pub fn konst(width: u16, bits: u128) -> Self {
        let mask = if width >= 128 { u128::MAX } else { (1u128 << width) - 1 };
        Operand::Const { width, bits: bits & mask }
    }
    pub fn bool(b: bool) -> Self {
        Operand::konst(1, b as u128)
    }
    pub fn as_const(&self) -> Option<u128> {
        match self {
            Operand::Const { bits, .. } => Some(*bits),
            _ => None,
        }
    }
}

/// A memory address: an object and a byte offset (a 64-bit value).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Pointer {
    pub object: ObjectId,
    pub offset: Operand,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CmpPred {
    Eq,
    Ne,
    Ult,
    Ule,
    Ugt,
    Uge,
    Slt,
    Sle,
    Sgt,
    Sge,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CastOp {
    ZExt,
    SExt,
    Trunc,
}

/// A built-in value (32 bits wide). Known launch sizes are constants; symbolic ones
/// (`*`, see [`Launch`]) are the builtins `LocalSize` and `NumGroups`, the same for every thread.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Builtin {
    /// `threadIdx` / `get_local_id`, dimension 0..3.
    LocalId(u8),
    /// `blockIdx` / `get_group_id`, dimension 0..3.
    GroupId(u8),
    /// `blockDim` / `get_local_size` of a symbolic dimension.
    LocalSize(u8),
    /// `gridDim` / `get_num_groups` of a symbolic dimension.
    NumGroups(u8),
}

/// The memory a barrier orders (its fences). CUDA `__syncthreads()` and grid syncs order both.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Fences {
    Const {
        local: bool,
        global: bool,
    },
    /// OpenCL `barrier(flags)` with flags computed at run time: bit 0 (`CLK_LOCAL_MEM_FENCE`)
    /// local, bit 1 (`CLK_GLOBAL_MEM_FENCE`) global; evaluated per thread.
    Dynamic(Operand),
}

impl Fences {
    pub const ALL: Fences = Fences::Const { local: true, global: true };
}

/// Which threads a barrier synchronises.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Scope {
    /// The threads of one block (work-group).
    Block,
    /// Every thread of the grid (CUDA cooperative groups `grid.sync()`).
    Grid,
    /// The threads of one tile of a block: `size` threads with consecutive linear thread ids
    /// (`x + y*bx + z*bx*by`; tile = linear id / `size`), of which `mask` names those the
    /// barrier waits for. CUDA `__syncwarp(mask)` is a tile of 32 (a warp);
    /// cooperative groups' `tiled_partition<N>(block).sync()` a tile of `N` with every thread
    /// named. Orders the pairs of one tile that it names; see [`TileMask`].
    Tile { size: u32, mask: TileMask },
}

impl Scope {
    /// A warp barrier (`__syncwarp()`, every lane named).
    pub const WARP: Scope = Scope::Tile { size: 32, mask: TileMask::FULL };
}

/// The threads a tile barrier names: bit `i` names the thread whose linear thread id is `i`
/// modulo 32 (its lane in its warp; CUDA's `__syncwarp` mask). A named thread that reaches the
/// barrier waits for every other named thread of its tile to reach it with the same mask.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum TileMask {
    Const(u32),
    /// A mask computed at run time (32 bits), evaluated per thread.
    Dynamic(Operand),
}

impl TileMask {
    /// Every lane (`0xffffffff`, `__syncwarp()`'s default).
    pub const FULL: TileMask = TileMask::Const(u32::MAX);
}

/// Whether a barrier is on.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Guard {
    /// An uninstrumented barrier: always on.
    Always,
    /// Guarded by a barrier variable of the instrumented kernel.
    Var(VarId),
}

/// Where a barrier comes from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BarrierOrigin {
    /// Written by the user; `stmt` is the statement whose deletion removes it, if it can be
    /// removed (a bare barrier call whose result is unused).
    Existing { stmt: Option<StmtId> },
    /// A candidate inserted by the instrumenter.
    Candidate,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Barrier {
    pub scope: Scope,
    pub fences: Fences,
    pub guard: Guard,
    pub origin: BarrierOrigin,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AtomicOp {
    Xchg,
    Add,
    Sub,
    And,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
    FAdd,
    FSub,
    Inc,
    Dec,
    CmpXchg,
    Other,
}

/// The kind of a GPUVerify annotation check (it decides the message).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AssertKind {
    /// `__assert(e)`.
    Assertion,
    /// `__requires(e)` of an inlined function, checked at the call.
    Precondition,
    /// `__ensures(e)` of an inlined function (or the kernel), checked at each return.
    Postcondition,
    /// `__invariant(e)` (and `__function_wide_invariant(e)` at each loop head of its
    /// function), checked each time it is reached.
    LoopInvariant,
    /// `__barrier_invariant_N(e, ...)`, checked at the barrier that follows it.
    BarrierInvariant,
    /// A barrier invariant reads memory that the thread neither accessed in this barrier
    /// interval nor was given permission to read (`__read_permission`): GPUVerify's
    /// barrier-invariant access check (Chong et al. OOPSLA 2013). Made by the verifier, not
    /// the front end.
    BarrierInvariantAccess,
    /// An access through a pointer that may be null, or may point outside every object it
    /// can point into (placed with condition `false` on the path of such an access).
    NullPointer,
}

/// A kind of access in thread 1's race log (GPUVerify's read/write/atomic sets).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LogKind {
    Read,
    Write,
    Atomic,
}

/// What a query on a race log asks.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LogQuery {
    /// Whether an access of this kind is logged (`__read(p)`, `__write(p)`): width 1.
    Has,
    /// The logged access's byte offset in its object (`__write_offset_bytes(p)`).
    OffsetBytes,
}

/// A source statement boundary left by the front end: the program point just before the
/// statement (`split == false`), or between the read and the write of an assignment
/// (`split == true`), or, for a loop statement (`end == true`), the end of its body (after
/// the body's last statement, before the next iteration), or, in a copy call statement
/// (`step > 0`, [`crate::CopyCall`]), between the bytes it copies before offset `step` and
/// those from it on. It has no semantics; the instrumenter turns chosen ones into sites.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Anchor {
    pub stmt: StmtId,
    pub split: bool,
    pub end: bool,
    /// The byte offset in the copy where the step boundary lies (0: not a step boundary).
    pub step: u32,
}

#[derive(Clone, PartialEq, Debug)]
pub enum Terminator {
    Br(BlockId),
    CondBr {
        cond: Operand,
        then: BlockId,
        els: BlockId,
    },
    Switch {
        value: Operand,
        default: BlockId,
        cases: Vec<(u128, BlockId)>,
    },
    /// The thread leaves the kernel.
    Return,
    /// Executions reaching this point are not considered (LLVM `unreachable`).
    Unreachable,
}

impl Terminator {
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Br(b) => vec![*b],
            Terminator::CondBr { then, els, .. } => vec![*then, *els],
            Terminator::Switch { default, cases, .. } => {
                let mut v = vec![*default];
                v.extend(cases.iter().map(|(_, b)| *b));
                v
            }
            Terminator::Return | Terminator::Unreachable => vec![],
        }
    }
}

#[derive(Clone, Debug)]
pub struct Block {
    pub insts: Vec<InstId>,
    pub term: Terminator,
    pub term_span: Span,
}

/// A kernel parameter.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Clone, Debug)]
pub enum ParamKind {
    /// A scalar of the given width in bits.
    Scalar { width: u16 },
    /// A pointer to a memory object.
    Pointer(ObjectId),
}

/// One GPU kernel in KIR.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The kernel's source name.
    pub name: String,
    pub language: Language,
    pub launch: Launch,
    pub params: Vec<Param>,
    pub objects: PrimaryMap<ObjectId, MemObject>,
    pub blocks: PrimaryMap<BlockId, Block>,
    pub insts: PrimaryMap<InstId, Inst>,
    pub entry: BlockId,
    /// Source files: [`FileId::MAIN`] is the kernel file.
    pub files: PrimaryMap<FileId, SourceFile>,
    /// The statements of the main file (source anchors).
    pub stmts: StmtTable,
    /// What the lowering assumed and could not check (a function without a body assumed
    /// not to access memory, as GPUVerify assumes), one sentence each, for the user.
    pub assumptions: Vec<String>,
}

impl Kernel {
    /// The main source file.
    pub fn main_file(&self) -> &SourceFile {
        &self.files[FileId::MAIN]
    }

    /// The innermost statement of the main file that contains location `l` (`None` for a
    /// location outside the main file or outside every statement).
    pub fn statement_at(&self, l: Loc) -> Option<StmtId> {
        if l.file != FileId::MAIN {
            return None;
        }
        self.stmts.innermost_at(self.main_file().offset(l.line, l.col)?)
    }

    /// The width in bits of an operand.
    pub fn width(&self, op: Operand) -> u16 {
        match op {
            Operand::Value(v) => self.insts[v].width,
            Operand::Const { width, .. } => width,
        }
    }

    /// Appends an instruction to the end of `block`.
    pub fn push_inst(&mut self, block: BlockId, kind: InstKind, width: u16, span: Span) -> InstId {
        let id = self.insts.push(Inst { kind, width, block, span });
        self.blocks[block].insts.push(id);
        id
    }

    /// Creates an instruction in `block` without placing it in the block's list (the caller
    /// inserts it where it belongs).
    pub fn make_inst(&mut self, block: BlockId, kind: InstKind, width: u16, span: Span) -> InstId {
        self.insts.push(Inst { kind, width, block, span })
    }

    /// Whether the kernel launches more than one block.
    pub fn multi_block(&self) -> bool {
        self.launch.blocks().is_none_or(|b| b > 1)
    }
}
