//! KIR, the kernel intermediate representation of syncfix (ARCHITECTURE.md, "crates/kir").
//!
//! One [`Kernel`] is an SSA control-flow graph of a single GPU kernel with every `__device__`
//! call inlined. Blocks and instructions live in arenas with typed ids ([`BlockId`],
//! [`InstId`], [`ObjectId`], [`StmtId`], [`VarId`]); each instruction carries a source
//! [`Span`] with its inline chain. Memory is a set of [`MemObject`]s; an access names its
//! object statically and a byte offset. Barriers carry a [`Guard`]: `Always` in a kernel from
//! the front end, a barrier variable in an instrumented kernel (GPURepair §2.2).
//! `Display` prints a kernel as text (`--emit=kir`) and [`parse`] reads that text back, so
//! that `print(parse(print(k))) == print(k)`.
//!
//! **Invariants**
//! - Every operand refers to an instruction of the same kernel; phi operands name
//!   predecessor blocks.
//! - Widths: values are bit-vectors of `1..=128` bits; offsets are 64 bits.
//! - Statement boundaries ([`Anchor`]) have no semantics; removing them changes nothing.

mod cfg;
mod check;
pub mod defaults;
mod display;
mod entity;
mod inst;
mod ir;
mod parse;
mod source;

pub use cfg::{Cfg, Irreducible, Item, Loop, LoopId};
pub use check::{check, check_spans, CheckError};
pub use entity::{BlockId, FileId, InstId, ObjectId, StmtId, VarId};

pub use ir::*;
pub use parse::{parse, parse_all, ParseError};
pub use source::{
    BarrierCall, Branch, CopyCall, Loc, LocalDecl, PendingEvent, ReadModifyWrite, SourceFile, Span, Split, Stmt, StmtKind, StmtTable,
    TextRange,
};

pub use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
