#![warn(missing_docs)]
//! The fix stage of syncfix (ARCHITECTURE.md, "crates/fix"): a repair solution becomes text edits on the user's
//! source file, the edits are applied, and the change is printed as a unified diff.
//!
//! Plain data in, plain data out, so that an IDE quick fix can call it: the input is the
//! source text, the statement table clang's AST gave ([`syncfix_kir::StmtTable`]) and a list of
//! [`Change`]s; the output is a [`Fix`], a list of [`Edit`]s (byte ranges of the original text
//! with their replacements) with an [`Applicability`] in the style of Ruff.
//!
//! ```text
//! build_fix(source, stmts, changes) -> Fix { edits, applicability, notes }
//! apply_edits(source, &fix.edits)   -> patched text
//! unified_diff(source, patched, path) -> "--- a/path\n+++ b/path\n@@ ..."
//! ```
//!
//! **Invariants**
//! - Every offset is a byte offset into the *original* text; edits never overlap, and the
//!   edits of a [`Fix`] are sorted by position.
//! - Nothing here panics on bad input: an unknown statement, a range outside the text, a change
//!   that does not fit its statement or overlapping edits are [`FixError`]s.
//! - Statement boundaries come from clang ([`syncfix_kir::Stmt::range`]); this crate never
//!   parses C to find them. The only text it scans is whitespace around statements, the
//!   identifiers of the file (to name temporaries) and `#include` lines.

mod apply;
mod build;
mod diff;
mod layout;
mod restructure;

pub use apply::apply_edits;
pub use build::build_fix;
pub use diff::{edits_between, unified_diff};
pub use restructure::{delay_return, restructure, split_conditional, Restructure, RestructureKind};

use std::fmt;
use syncfix_kir::{StmtId, TextRange};

/// The barrier to print.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BarrierText {
    /// A CUDA block-level barrier: `__syncthreads();`.
    CudaBlock,
    /// An OpenCL work-group barrier over local and global memory:
    /// `barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);`.
    OpenClBlock,
    /// An OpenCL work-group barrier over local memory: `barrier(CLK_LOCAL_MEM_FENCE);`.
    OpenClLocal,
    /// An OpenCL work-group barrier over global memory: `barrier(CLK_GLOBAL_MEM_FENCE);`.
    OpenClGlobal,
    /// A CUDA grid-level barrier: `cooperative_groups::this_grid().sync();`. It needs
    /// `#include <cooperative_groups.h>` and a cooperative launch (`cudaLaunchCooperativeKernel`).
    CudaGrid,
    /// A CUDA warp-level barrier over every lane of the warp: `__syncwarp();` (CUDA 9, sm_70's
    /// independent thread scheduling). It orders only the threads of one warp.
    CudaWarp,
}

impl BarrierText {
    /// The statement as printed, with its `;`.
    pub fn text(self) -> &'static str {
        match self {
            BarrierText::CudaBlock => "__syncthreads();",
            BarrierText::OpenClBlock => "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
            BarrierText::OpenClLocal => "barrier(CLK_LOCAL_MEM_FENCE);",
            BarrierText::OpenClGlobal => "barrier(CLK_GLOBAL_MEM_FENCE);",
            BarrierText::CudaGrid => "cooperative_groups::this_grid().sync();",
            BarrierText::CudaWarp => "__syncwarp();",
        }
    }

    /// Whether this is a grid barrier (printed after block barriers at the same place).
    pub fn is_grid(self) -> bool {
        matches!(self, BarrierText::CudaGrid)
    }

    /// The threads the barrier orders: `warp`, `block` (a work-group) or `grid`.
    pub fn scope_name(self) -> &'static str {
        match self {
            BarrierText::CudaGrid => "grid",
            BarrierText::CudaWarp => "warp",
            _ => "block",
        }
    }
}

impl fmt::Display for BarrierText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// One change of a repair solution, anchored to a statement of the main file.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Change {
    /// Insert a barrier just before statement `stmt`.
    Insert {
        /// The anchor statement.
        stmt: StmtId,
        /// The barrier to insert.
        barrier: BarrierText,
    },
    /// `stmt` has a [`syncfix_kir::Split`] (an assignment `LHS op= RHS;` whose RHS reads
    /// memory): hoist the RHS into a temporary, then the barrier, then the assignment using the
    /// temporary: `T tmp = RHS; <barrier> LHS op= tmp;`.
    InsertSplit {
        /// The assignment statement.
        stmt: StmtId,
        /// The barrier between the read and the write.
        barrier: BarrierText,
    },
    /// `stmt` is a copy call `F(DST, SRC, LEN);` ([`syncfix_kir::CopyCall`]): copy the bytes
    /// before `offset` first, then the barrier, then the rest. The statement is printed as a
    /// block of copies, one per step, the barriers of all its `InsertStep`s between them:
    /// `{ char *dst = (char *)(DST); const char *src = (const char *)(SRC); F(dst, src, 6);
    /// <barrier> F(dst + 6, src + 6, LEN - 6); }`.
    InsertStep {
        /// The copy call statement.
        stmt: StmtId,
        /// The byte offset in the copy (`0 < offset < LEN`).
        offset: u32,
        /// The barrier between the steps.
        barrier: BarrierText,
    },
    /// Insert a barrier at the end of loop statement `stmt`'s braced body, before its `}`.
    InsertEnd {
        /// The loop statement.
        stmt: StmtId,
        /// The barrier to insert.
        barrier: BarrierText,
    },
    /// Delete the barrier statement `stmt` (it has `barrier_call: Some(Removable)`).
    Remove {
        /// The barrier statement.
        stmt: StmtId,
    },
    /// Insert `wait_group_events(1, &e);` just before statement `stmt` for each event `e` of
    /// an OpenCL asynchronous copy pending there
    /// ([`syncfix_kir::StmtTable::pending_events`]), then `barrier` if there is one: a barrier
    /// orders a copy's accesses only once the work-item has waited for it. `None` before one
    /// of the user's barriers, which then does the ordering.
    InsertWait {
        /// The anchor statement.
        stmt: StmtId,
        /// The barrier after the waits.
        barrier: Option<BarrierText>,
    },
    /// Rewrite the barrier statement `stmt` (removable, like [`Change::Remove`]'s) as `barrier`:
    /// an OpenCL barrier whose fences were too weak gets the flags it needs, in place.
    Upgrade {
        /// The barrier statement.
        stmt: StmtId,
        /// The barrier it becomes.
        barrier: BarrierText,
    },
}

impl Change {
    /// The statement the change is anchored to.
    pub fn stmt(&self) -> StmtId {
        match *self {
            Change::Insert { stmt, .. }
            | Change::InsertSplit { stmt, .. }
            | Change::InsertStep { stmt, .. }
            | Change::InsertEnd { stmt, .. }
            | Change::Remove { stmt }
            | Change::Upgrade { stmt, .. }
            | Change::InsertWait { stmt, .. } => stmt,
        }
    }
}

/// A text edit: replace the bytes `range` of the original text by `replacement`. An empty
/// range is an insertion, an empty replacement a deletion.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Edit {
    /// Byte offsets `[start, end)` into the original text.
    pub range: TextRange,
    /// The new text.
    pub replacement: String,
}

impl Edit {
    /// Insert `text` at byte offset `at`.
    pub fn insertion(at: usize, text: impl Into<String>) -> Edit {
        Edit { range: TextRange { start: at, end: at }, replacement: text.into() }
    }

    /// Replace the bytes `range` by `text`.
    pub fn replacement(range: TextRange, text: impl Into<String>) -> Edit {
        Edit { range, replacement: text.into() }
    }

    /// Delete the bytes `range`.
    pub fn deletion(range: TextRange) -> Edit {
        Edit { range, replacement: String::new() }
    }
}

/// How safely a [`Fix`] may be applied, in the levels of Ruff's fix safety (safe, unsafe,
/// display-only). Ordered from safest.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Applicability {
    /// Only block barriers are inserted: the patched kernel re-verifies as it is.
    Safe,
    /// A barrier is removed: the removal rests on the verifier's assumptions (launch
    /// configuration, abstractions), so the user should review it.
    Unsafe,
    /// A grid barrier is inserted: the launch must become cooperative, which is outside the
    /// file; show the fix, never apply it silently.
    DisplayOnly,
}

/// The edits that print a repair solution on the user's source.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Fix {
    /// Non-overlapping edits of the original text, sorted by position.
    pub edits: Vec<Edit>,
    /// [`Applicability::DisplayOnly`] when a grid barrier is inserted, else
    /// [`Applicability::Unsafe`] when a barrier is removed, else [`Applicability::Safe`].
    pub applicability: Applicability,
    /// Messages for the user (e.g. that a kernel must now be launched cooperatively).
    pub notes: Vec<String>,
}

/// Why a fix could not be built or applied.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum FixError {
    /// A change names a statement that is not in the table.
    #[error("unknown statement {stmt}")]
    UnknownStmt {
        /// The statement named.
        stmt: StmtId,
    },
    /// A statement's range (or its split's RHS range) does not lie in the text, is reversed, or
    /// does not fall on character boundaries.
    #[error("{stmt} has range {range}, which is not a range of the {len}-byte source")]
    BadRange {
        /// The statement.
        stmt: StmtId,
        /// The bad range.
        range: TextRange,
        /// The length of the text in bytes.
        len: usize,
    },
    /// A change does not fit its statement: `InsertSplit` on a statement without a split (or
    /// with a split whose type cannot declare a temporary), `Remove` on a statement that is not
    /// a removable barrier call, or changes on one statement that exclude each other.
    #[error("cannot apply {change:?} to {stmt}: {reason}")]
    DoesNotFit {
        /// The statement.
        stmt: StmtId,
        /// The change that does not fit.
        change: Change,
        /// Why, for the user.
        reason: String,
    },
    /// A conditional cannot be split in two around statement `stmt`
    /// ([`split_conditional`]).
    #[error("cannot split the conditional around {stmt}: {reason}")]
    CannotRestructure {
        /// The statement the split was asked before.
        stmt: StmtId,
        /// Why, for the user.
        reason: String,
    },
    /// Two edits touch the same text.
    #[error("edits at {first} and {second} overlap")]
    Overlap {
        /// The range of the earlier edit.
        first: TextRange,
        /// The range of the later edit.
        second: TextRange,
    },
    /// An edit's range does not lie in the text, is reversed, or does not fall on character
    /// boundaries.
    #[error("edit range {range} is not a range of the {len}-byte text")]
    EditOutOfBounds {
        /// The bad range.
        range: TextRange,
        /// The length of the text in bytes.
        len: usize,
    },
}
