//! Instructions and terminators of KIR's text form: one opcode word (`load.4`, `cmp.ult`,
//! `atomic.add.4`, `barrier.block`) and its operands, as `Display for InstKind` and
//! `Display for Terminator` print them.

use super::cursor::{Cursor, ParseError};
use super::{KernelParser, Ref};
use crate::entity::{BlockId, ObjectId, StmtId, VarId};
use crate::ir::*;
use std::fmt::Debug;

/// Every variant of a fieldless enum, matched by its lower-case name as the printer writes it.
pub(super) fn by_name<T: Copy + Debug>(all: &[T], name: &str) -> Option<T> {
    all.iter().copied().find(|v| format!("{v:?}").to_lowercase() == name)
}

const BIN_OPS: [BinOp; 13] = {
    use BinOp::*;
    [Add, Sub, Mul, UDiv, SDiv, URem, SRem, Shl, LShr, AShr, And, Or, Xor]
};
const CMP_PREDS: [CmpPred; 10] = {
    use CmpPred::*;
    [Eq, Ne, Ult, Ule, Ugt, Uge, Slt, Sle, Sgt, Sge]
};
const CAST_OPS: [CastOp; 3] = [CastOp::ZExt, CastOp::SExt, CastOp::Trunc];
const ATOMIC_OPS: [AtomicOp; 16] = {
    use AtomicOp::*;
    [Xchg, Add, Sub, And, Or, Xor, Max, Min, UMax, UMin, FAdd, FSub, Inc, Dec, CmpXchg, Other]
};
const ASSERT_KINDS: [AssertKind; 7] = {
    use AssertKind::*;
    [Assertion, Precondition, Postcondition, LoopInvariant, BarrierInvariant, BarrierInvariantAccess, NullPointer]
};
const LOG_KINDS: [LogKind; 3] = [LogKind::Read, LogKind::Write, LogKind::Atomic];
const LOG_QUERIES: [LogQuery; 2] = [LogQuery::Has, LogQuery::OffsetBytes];
pub(super) const SPACES: [Space; 4] = [Space::Global, Space::Shared, Space::Constant, Space::Private];
const SCOPES: [Scope; 2] = [Scope::Block, Scope::Grid];

/// Every builtin, of dimension `d`.
fn builtins(d: u8) -> [Builtin; 4] {
    [Builtin::LocalId(d), Builtin::GroupId(d), Builtin::LocalSize(d), Builtin::NumGroups(d)]
}

/// A builtin's name as printed (`local_id.x`) without its dimension. The match names every
/// builtin, so that one added to KIR stops the build here until [`builtins`] lists it.
fn builtin_name(b: Builtin) -> &'static str {
    match b {
        Builtin::LocalId(_) => "local_id",
        Builtin::GroupId(_) => "group_id",
        Builtin::LocalSize(_) => "local_size",
        Builtin::NumGroups(_) => "num_groups",
    }
}

impl KernelParser {
    fn operand(&mut self, c: &mut Cursor) -> Result<Operand, ParseError> {
        let (o, at) = c.operand()?;
        if let Operand::Value(v) = o {
            self.refs.push((Ref::Value(v), c.line, c.col_of(at)));
        }
        Ok(o)
    }

    fn block_ref(&mut self, c: &mut Cursor) -> Result<BlockId, ParseError> {
        c.ws();
        let at = c.pos;
        let b = BlockId::from_u32(c.entity("block", "a block (`block3`)")?);
        self.refs.push((Ref::Block(b), c.line, c.col_of(at)));
        Ok(b)
    }

    pub(super) fn object_ref(&mut self, c: &mut Cursor) -> Result<ObjectId, ParseError> {
        c.ws();
        let at = c.pos;
        let o = ObjectId::from_u32(c.entity("obj", "an object (`obj0`)")?);
        self.refs.push((Ref::Object(o), c.line, c.col_of(at)));
        Ok(o)
    }

    /// `obj0[v5]`.
    fn pointer(&mut self, c: &mut Cursor) -> Result<Pointer, ParseError> {
        let object = self.object_ref(c)?;
        c.expect("[")?;
        let offset = self.operand(c)?;
        c.expect("]")?;
        Ok(Pointer { object, offset })
    }

    /// `WIDTH` after `load.`: a number of bytes, the end of the opcode.
    fn byte_width(c: &mut Cursor, s: &str, at: usize) -> Result<u32, ParseError> {
        s.parse()
            .ok()
            .filter(|&w: &u32| w > 0)
            .ok_or_else(|| c.error_at(at, format!("expected a width in bytes after the opcode, found `{s}`")))
    }

    /// The terminator named `word`, or `None` if `word` is not one.
    pub(super) fn terminator(&mut self, c: &mut Cursor, word: &str) -> Result<Option<Terminator>, ParseError> {
        Ok(Some(match word {
            "ret" => Terminator::Return,
            "unreachable" => Terminator::Unreachable,
            "br" => {
                c.ws();
                if c.rest().starts_with("block") {
                    Terminator::Br(self.block_ref(c)?)
                } else {
                    let cond = self.operand(c)?;
                    c.expect(",")?;
                    let then = self.block_ref(c)?;
                    c.expect(",")?;
                    let els = self.block_ref(c)?;
                    Terminator::CondBr { cond, then, els }
                }
            }
            "switch" => {
                let value = self.operand(c)?;
                c.expect(",")?;
                c.expect("default")?;
                let default = self.block_ref(c)?;
                let mut cases = vec![];
                while c.eat(",") {
                    let v: u128 = c.number("a case value")?;
                    c.expect(":")?;
                    cases.push((v, self.block_ref(c)?));
                }
                Terminator::Switch { value, default, cases }
            }
            _ => return Ok(None),
        }))
    }

    pub(super) fn inst_kind(&mut self, c: &mut Cursor) -> Result<InstKind, ParseError> {
        let at = c.pos;
        if c.eat("float.") {
            return self.float_call(c);
        }
        let word = c.word();
        let parts: Vec<&str> = word.split('.').collect();
        let unknown = |c: &mut Cursor| {
            c.pos = at;
            c.expected("an instruction")
        };
        Ok(match parts.as_slice() {
            ["param"] => InstKind::Param { index: c.number("a parameter index")? },
            [id, dim] if builtins(0).iter().any(|b| builtin_name(*b) == *id) => {
                let Some(d) = ["x", "y", "z"].iter().position(|x| x == dim) else {
                    return Err(c.error_at(at, format!("expected `{id}.x`, `.y` or `.z`")));
                };
                InstKind::Builtin(builtins(d as u8).into_iter().find(|b| builtin_name(*b) == *id).expect("found above"))
            }
            ["havoc"] => InstKind::Havoc,
            ["enabled"] => InstKind::Enabled,
            [op] if by_name(&BIN_OPS, op).is_some() => {
                let op = by_name(&BIN_OPS, op).unwrap();
                let lhs = self.operand(c)?;
                c.expect(",")?;
                InstKind::Bin { op, lhs, rhs: self.operand(c)? }
            }
            ["cmp", pred] => {
                let pred = by_name(&CMP_PREDS, pred).ok_or_else(|| c.error_at(at, format!("unknown comparison `cmp.{pred}`")))?;
                let lhs = self.operand(c)?;
                c.expect(",")?;
                InstKind::Cmp { pred, lhs, rhs: self.operand(c)? }
            }
            [op] if by_name(&CAST_OPS, op).is_some() => InstKind::Cast { op: by_name(&CAST_OPS, op).unwrap(), arg: self.operand(c)? },
            ["select"] => {
                let cond = self.operand(c)?;
                c.expect(",")?;
                let then = self.operand(c)?;
                c.expect(",")?;
                InstKind::Select { cond, then, els: self.operand(c)? }
            }
            ["phi"] => self.phi(c)?,
            ["load", w] => {
                let width = Self::byte_width(c, w, at)?;
                InstKind::Load { ptr: self.pointer(c)?, width }
            }
            ["specload", w] => {
                let width = Self::byte_width(c, w, at)?;
                InstKind::SpecLoad { ptr: self.pointer(c)?, width }
            }
            ["permission", w] => {
                let width = Self::byte_width(c, w, at)?;
                InstKind::Permission { ptr: self.pointer(c)?, width }
            }
            ["store", w] => {
                let width = Self::byte_width(c, w, at)?;
                let ptr = self.pointer(c)?;
                c.expect(",")?;
                InstKind::Store { ptr, value: self.operand(c)?, width }
            }
            ["atomic", op, w] => {
                let op = by_name(&ATOMIC_OPS, op).ok_or_else(|| c.error_at(at, format!("unknown atomic operation `{op}`")))?;
                let width = Self::byte_width(c, w, at)?;
                let ptr = self.pointer(c)?;
                let mut args = vec![];
                while c.eat(",") {
                    args.push(self.operand(c)?);
                }
                InstKind::Atomic { op, ptr, args, width }
            }
            ["barrier", scope] => self.barrier(c, scope, at)?,
            ["anchor"] => {
                let stmt = StmtId::from_u32(c.entity("stmt", "a statement (`stmt3`)")?);
                let split = c.eat("split");
                let end = c.eat("end");
                let step = if c.eat("step") { c.number("a step's byte offset")? } else { 0 };
                InstKind::Anchor(Anchor { stmt, split, end, step })
            }
            ["assert", kind, rest @ ..] => {
                let kind = by_name(&ASSERT_KINDS, kind).ok_or_else(|| c.error_at(at, format!("unknown assertion kind `{kind}`")))?;
                let global = match rest {
                    [] => false,
                    ["global"] => true,
                    _ => return Err(unknown(c)),
                };
                InstKind::Assert { cond: self.operand(c)?, kind, global }
            }
            ["assume"] => InstKind::Assume { cond: self.operand(c)? },
            ["candidate"] => InstKind::Candidate { cond: self.operand(c)? },
            ["other"] => InstKind::Other { arg: self.operand(c)? },
            ["old"] => InstKind::Old { arg: self.operand(c)? },
            ["log", kind, query] => {
                let kind = by_name(&LOG_KINDS, kind).ok_or_else(|| c.error_at(at, "expected `log.read`, `log.write` or `log.atomic`"))?;
                let query = by_name(&LOG_QUERIES, query).ok_or_else(|| c.error_at(at, "expected `.has` or `.offsetbytes`"))?;
                InstKind::LogQuery { object: self.object_ref(c)?, kind, query }
            }
            ["external", kind] => {
                let kind = by_name(&LOG_KINDS, kind).ok_or_else(|| c.error_at(at, "expected `external.read`, `.write` or `.atomic`"))?;
                InstKind::External { object: self.object_ref(c)?, kind }
            }
            ["atomic_taken"] => {
                let ptr = self.pointer(c)?;
                c.expect(",")?;
                InstKind::AtomicTaken { ptr, value: self.operand(c)? }
            }
            ["asyncpending"] => InstKind::AsyncPending { object: self.object_ref(c)? },
            ["asyncwait"] => InstKind::AsyncWait {
                guard: if c.eat("if ") {
                    Guard::Var(VarId::from_u32(c.entity("var", "a barrier variable (`var0`)")?))
                } else {
                    Guard::Always
                },
            },
            ["snapshot"] => {
                let dst = self.object_ref(c)?;
                c.expect("<-")?;
                InstKind::Snapshot { dst, src: self.object_ref(c)? }
            }
            _ => return Err(unknown(c)),
        })
    }

    /// `float.NAME(args)`: a floating-point operation by its KIR name.
    fn float_call(&mut self, c: &mut Cursor) -> Result<InstKind, ParseError> {
        let rest = c.rest();
        let n = rest.find('(').filter(|&n| n > 0).ok_or_else(|| c.expected("a function name and `(`"))?;
        let func = rest[..n].to_string();
        c.pos += n;
        c.expect("(")?;
        let mut args = vec![];
        while !c.eat(")") {
            if !args.is_empty() {
                c.expect(",")?;
            }
            args.push(self.operand(c)?);
        }
        Ok(InstKind::Float { func, args })
    }

    /// `phi [blockN: operand], ...`.
    fn phi(&mut self, c: &mut Cursor) -> Result<InstKind, ParseError> {
        let mut incoming = vec![];
        while !c.at_end() {
            if !incoming.is_empty() {
                c.expect(",")?;
            }
            c.expect("[")?;
            let b = self.block_ref(c)?;
            c.expect(":")?;
            incoming.push((b, self.operand(c)?));
            c.expect("]")?;
        }
        Ok(InstKind::Phi { incoming })
    }

    /// `barrier.SCOPE fences(...) [mask(...)] [if varN] ORIGIN`, after `barrier.SCOPE` (`at`:
    /// where the instruction's word began).
    fn barrier(&mut self, c: &mut Cursor, scope: &str, at: usize) -> Result<InstKind, ParseError> {
        // `barrier.tile32 ... mask(0xffffffff)`: a tile barrier of 32 threads.
        let tile = scope.strip_prefix("tile").and_then(|n| n.parse::<u32>().ok());
        let scope = match tile {
            Some(size) => Scope::Tile { size, mask: TileMask::FULL },
            None => by_name(&SCOPES, scope).ok_or_else(|| c.error_at(at, "expected `barrier.block`, `barrier.grid` or `barrier.tileN`"))?,
        };
        c.expect("fences(")?;
        let fences = self.fences(c)?;
        c.expect(")")?;
        let scope = match scope {
            Scope::Tile { size, .. } => Scope::Tile { size, mask: self.tile_mask(c)? },
            s => s,
        };
        let guard = if c.eat("if ") { Guard::Var(VarId::from_u32(c.entity("var", "a barrier variable (`var0`)")?)) } else { Guard::Always };
        let origin = if c.eat("candidate") {
            BarrierOrigin::Candidate
        } else if c.eat("existing(") {
            let stmt = if c.eat("fixed") { None } else { Some(StmtId::from_u32(c.entity("stmt", "`stmtN` or `fixed`")?)) };
            c.expect(")")?;
            BarrierOrigin::Existing { stmt }
        } else {
            return Err(c.expected("`existing(stmtN)`, `existing(fixed)` or `candidate`"));
        };
        Ok(InstKind::Barrier(Barrier { scope, fences, guard, origin }))
    }

    /// A barrier's fences, inside `fences(...)`: an operand, or `local`, `global` or both.
    fn fences(&mut self, c: &mut Cursor) -> Result<Fences, ParseError> {
        if c.rest().trim_start().starts_with(|ch: char| ch == 'v' || ch == '-' || ch.is_ascii_digit() || ch == 't' || ch == 'f') {
            return Ok(Fences::Dynamic(self.operand(c)?));
        }
        let (mut local, mut global) = (false, false);
        while !c.rest().trim_start().starts_with(')') {
            if local || global {
                c.expect(",")?;
            }
            let w = c.pos;
            match c.word() {
                "local" => local = true,
                "global" => global = true,
                _ => {
                    c.pos = w;
                    return Err(c.expected("`local`, `global` or an operand"));
                }
            }
        }
        Ok(Fences::Const { local, global })
    }

    /// A tile barrier's `mask(0xHEX)` or `mask(operand)`.
    fn tile_mask(&mut self, c: &mut Cursor) -> Result<TileMask, ParseError> {
        c.expect("mask(")?;
        let w = c.pos;
        let mask = if c.eat("0x") {
            let digits = c.word();
            TileMask::Const(u32::from_str_radix(digits, 16).map_err(|_| {
                c.pos = w;
                c.expected("a hexadecimal mask (`0xffffffff`) or an operand")
            })?)
        } else {
            TileMask::Dynamic(self.operand(c)?)
        };
        c.expect(")")?;
        Ok(mask)
    }
}
