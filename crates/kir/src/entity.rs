//! Typed entity references (`u32` newtypes), in the style of Cranelift's `cranelift-entity`.
//!
//! Each id prints as in the `--emit=kir` text form: `block3`, `v12`, `obj1`, `stmt7`, `var4`.

use cranelift_entity::entity_impl;

/// A basic block of a [`crate::Kernel`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(u32);
entity_impl!(BlockId, "block");

/// An instruction of a [`crate::Kernel`]; instructions that produce a value are the value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(u32);
entity_impl!(InstId, "v");

/// A memory object: a global buffer (pointer parameter), a shared/local array, a constant
/// array or a private array.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(u32);
entity_impl!(ObjectId, "obj");

/// A source statement of the main file (a *source anchor*): the place a barrier can be printed.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(u32);
entity_impl!(StmtId, "stmt");

/// A Boolean barrier variable of an instrumented kernel (GPURepair §2.2).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(u32);
entity_impl!(VarId, "var");

/// A source file known to a kernel (the main file is always [`FileId::MAIN`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(u32);
entity_impl!(FileId, "file");

impl FileId {
    /// The user's kernel file.
    pub const MAIN: FileId = FileId(0);
}

/// A statement's id in the statement table's text form (`stmtN {...}`, [`crate::StmtTable`]):
/// its number.
impl serde::Serialize for StmtId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for StmtId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        u32::deserialize(d).map(StmtId)
    }
}
