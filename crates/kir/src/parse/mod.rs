//! The parser of KIR's text form: reads back what `Display for Kernel` prints (`--emit=kir`,
//! and the kernel of `--emit=instrumented`, whose barriers carry `if varN`), so that
//! `parse(text)` prints as `text` again, and kernels can be written by hand for tests (as
//! Cranelift's file tests do).
//!
//! The grammar, one item per line (`;` starts a comment; blank lines are skipped):
//! ```text
//! kernel NAME (Cuda|OpenCl) block_dim=[X, Y, Z] grid_dim=[X, Y, Z] [global_offset=[X, Y, Z]]
//!   param I NAME: iW | ptr objN
//!   objN NAME[D]...: global|shared|constant|private elem E [uniform] [init {OFF: CONST, ...}]
//!   assumption "TEXT"
//! blockN:
//!   [vN:iW =] INSTRUCTION                 ; SPAN
//!   TERMINATOR                            ; SPAN
//! ```
//! A span is `file:line:col` for the kernel's file and `file` alone for others, innermost
//! first, joined by ` <- `. The first block is the entry; blocks are numbered from 0 without
//! gaps, in any order. Instructions without a value have no
//! printed id; they get the ids left free by the others (ids of instructions that are in no
//! block are lost, and filled with anchors that no block holds).
//!
//! What the text form does not hold: the statement table (a parsed kernel's is empty, so it
//! cannot be instrumented), source texts and directories, and lines and columns in files
//! other than the kernel's (0:0 after parsing).

mod check;
mod cursor;

pub use cursor::ParseError;

use crate::entity::{BlockId, FileId, InstId, ObjectId, StmtId, VarId};
use crate::ir::*;
use crate::source::{Loc, SourceFile, Span, StmtTable};
use cranelift_entity::{EntityRef, PrimaryMap};
use cursor::Cursor;
use std::collections::BTreeMap;
use std::fmt::Debug;

/// Parses the text of one kernel (comments and blank lines allowed anywhere).
///
/// Errors: a [`ParseError`] with the line and column and what was expected there; also for
/// text that is well-formed but inconsistent (an undefined value, block or object, operand
/// widths that do not fit the instruction).
pub fn parse(text: &str) -> Result<Kernel, ParseError> {
    let mut kernels = parse_all(text)?;
    match kernels.len() {
        1 => Ok(kernels.remove(0)),
        0 => Err(ParseError { line: text.lines().count().max(1), col: 1, message: "expected a `kernel` line".into() }),
        n => {
            let line = text.lines().enumerate().filter(|(_, l)| l.starts_with("kernel ")).nth(1).map_or(1, |(i, _)| i + 1);
            Err(ParseError { line, col: 1, message: format!("expected one kernel, found {n} (the second starts here)") })
        }
    }
}

/// Parses a dump of several kernels (`--emit=kir` of a file with more than one), each
/// starting at its `kernel` line.
pub fn parse_all(text: &str) -> Result<Vec<Kernel>, ParseError> {
    let mut out = vec![];
    let mut current: Option<KernelParser> = None;
    for (i, full) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = full.trim_start();
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        if full.starts_with("kernel ") {
            if let Some(p) = current.take() {
                out.push(p.finish()?);
            }
            current = Some(KernelParser::header(line, full)?);
            continue;
        }
        let Some(p) = current.as_mut() else {
            return Err(Cursor::new(line, full, 0, full.len()).expected("a `kernel` line"));
        };
        p.line(line, full)?;
    }
    if let Some(p) = current.take() {
        out.push(p.finish()?);
    }
    Ok(out)
}

/// Where the line's comment (the span) starts: at the first `;` outside a quoted string (only
/// an assumption's text, a string, may hold one), else the line's end.
fn comment_start(full: &str) -> usize {
    let (mut quoted, mut escaped) = (false, false);
    for (i, ch) in full.char_indices() {
        match ch {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ';' if !quoted => return i,
            _ => {}
        }
    }
    full.len()
}

/// Every variant of a fieldless enum, matched by its lower-case name as the printer writes it.
fn by_name<T: Copy + Debug>(all: &[T], name: &str) -> Option<T> {
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
const ASSERT_KINDS: [AssertKind; 6] = {
    use AssertKind::*;
    [Assertion, Precondition, Postcondition, LoopInvariant, BarrierInvariant, NullPointer]
};
const LOG_KINDS: [LogKind; 3] = [LogKind::Read, LogKind::Write, LogKind::Atomic];
const LOG_QUERIES: [LogQuery; 2] = [LogQuery::Has, LogQuery::OffsetBytes];
const SPACES: [Space; 4] = [Space::Global, Space::Shared, Space::Constant, Space::Private];
const SCOPES: [Scope; 2] = [Scope::Block, Scope::Grid];

/// A reference to check once the whole kernel is read: what it names and where it stands.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Ref {
    Value(InstId),
    Block(BlockId),
    Object(ObjectId),
}

/// An instruction as read: its id when printed (it has a value), and the line it is on.
pub(crate) struct ParsedInst {
    pub id: Option<InstId>,
    pub inst: Inst,
    pub line: usize,
    /// Column of the instruction's kind.
    pub col: usize,
    pub text: String,
}

struct ParsedBlock {
    id: BlockId,
    /// Indices into `KernelParser::insts`.
    insts: Vec<usize>,
    term: Option<(Terminator, Span)>,
    line: usize,
    /// Line and column of the terminator.
    term_at: (usize, usize),
}

/// The state of one kernel being read.
struct KernelParser {
    name: String,
    language: Language,
    launch: Launch,
    params: Vec<Param>,
    objects: PrimaryMap<ObjectId, MemObject>,
    assumptions: Vec<String>,
    files: Files,
    blocks: Vec<ParsedBlock>,
    insts: Vec<ParsedInst>,
    /// References to check: what, line and column.
    refs: Vec<(Ref, usize, usize)>,
    header_line: usize,
}

/// The source files named by spans: the kernel's own file (the one printed with lines and
/// columns) is [`FileId::MAIN`].
#[derive(Default)]
struct Files {
    main: Option<String>,
    others: Vec<String>,
}

impl Files {
    fn id(&mut self, name: &str, main: bool) -> Result<FileId, String> {
        if main {
            match &self.main {
                Some(m) if m != name => Err(format!("`{name}:...` has a line and column, but the kernel's file is `{m}` (only it has them)")),
                Some(_) => Ok(FileId::MAIN),
                None => {
                    self.main = Some(name.to_string());
                    Ok(FileId::MAIN)
                }
            }
        } else {
            let i = match self.others.iter().position(|o| o == name) {
                Some(i) => i,
                None => {
                    self.others.push(name.to_string());
                    self.others.len() - 1
                }
            };
            Ok(FileId::new(i + 1))
        }
    }

    fn finish(self) -> PrimaryMap<FileId, SourceFile> {
        let mut files = PrimaryMap::new();
        files.push(SourceFile::new(self.main.unwrap_or_default(), None));
        for o in self.others {
            files.push(SourceFile::new(o, None));
        }
        files
    }
}

fn dims3(c: &mut Cursor) -> Result<[u32; 3], ParseError> {
    c.expect("[")?;
    let mut d = [0; 3];
    for (i, x) in d.iter_mut().enumerate() {
        if i > 0 {
            c.expect(",")?;
        }
        *x = c.number("a size")?;
    }
    c.expect("]")?;
    Ok(d)
}

impl KernelParser {
    /// `kernel NAME (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]`.
    fn header(line: usize, full: &str) -> Result<KernelParser, ParseError> {
        // The name may hold spaces and parentheses (`reduce<int, 4>`): it ends at the last
        // ` (` before ` block_dim=`. A comment may follow the launch.
        let dims_at = full.rfind(" block_dim=");
        let end = dims_at.and_then(|d| full[d..].find(';').map(|i| d + i)).unwrap_or(full.len());
        let mut c = Cursor::new(line, full, "kernel ".len(), end);
        let dims_at = dims_at.ok_or_else(|| c.error_at(full.len(), "expected ` block_dim=[X, Y, Z]`"))?;
        let lang_at = full[..dims_at].rfind(" (").filter(|&i| i >= c.pos).ok_or_else(|| c.expected("a kernel name and `(Cuda)` or `(OpenCl)`"))?;
        let name = full[c.pos..lang_at].to_string();
        if name.trim().is_empty() {
            return Err(c.expected("a kernel name"));
        }
        c.pos = lang_at;
        c.expect("(")?;
        let language = match c.word() {
            "Cuda" => Language::Cuda,
            "OpenCl" => Language::OpenCl,
            _ => {
                c.pos = lang_at + 2;
                return Err(c.expected("`Cuda` or `OpenCl`"));
            }
        };
        c.expect(")")?;
        c.expect("block_dim=")?;
        let block_dim = dims3(&mut c)?;
        c.expect("grid_dim=")?;
        let grid_dim = dims3(&mut c)?;
        let mut launch = Launch::new(block_dim, grid_dim);
        if c.eat("global_offset=") {
            launch.global_offset = dims3(&mut c)?;
        }
        c.end()?;
        Ok(KernelParser {
            name,
            language,
            launch,
            params: vec![],
            objects: PrimaryMap::new(),
            assumptions: vec![],
            files: Files::default(),
            blocks: vec![],
            insts: vec![],
            refs: vec![],
            header_line: line,
        })
    }

    fn line(&mut self, line: usize, full: &str) -> Result<(), ParseError> {
        let end = comment_start(full);
        let mut c = Cursor::new(line, full, 0, end);
        if !full.starts_with([' ', '\t']) {
            let id = BlockId::from_u32(c.entity("block", "a block label (`block0:`) or an indented line")?);
            c.expect(":")?;
            c.end()?;
            if let Some(b) = self.blocks.last() {
                if b.term.is_none() {
                    return Err(c.error_at(0, format!("expected a terminator of {} before the next block", b.id)));
                }
            }
            self.blocks.push(ParsedBlock { id, insts: vec![], term: None, line, term_at: (line, 1) });
            return Ok(());
        }
        let span = self.span(line, full, end)?;
        if self.blocks.is_empty() {
            return self.declaration(&mut c);
        }
        c.ws();
        let start = c.pos;
        let blk_index = self.blocks.len() - 1;
        if self.blocks[blk_index].term.is_some() {
            return Err(c.error(format!("expected a block label: {} already ended with its terminator", self.blocks[blk_index].id)));
        }
        let block = self.blocks[blk_index].id;
        let word_at = c.pos;
        let word = c.word();
        if let Some(term) = self.terminator(&mut c, word)? {
            c.end()?;
            self.blocks[blk_index].term = Some((term, span));
            self.blocks[blk_index].term_at = (line, c.col_of(word_at));
            return Ok(());
        }
        c.pos = word_at;
        let (id, width) = if c.rest().starts_with('v') {
            let id = InstId::from_u32(c.entity("v", "an instruction")?);
            c.expect(":")?;
            let width = c.width()?;
            c.expect("=")?;
            (Some(id), width)
        } else {
            (None, 0)
        };
        c.ws();
        let kind_at = c.pos;
        let kind = self.inst_kind(&mut c)?;
        c.end()?;
        let text = full[start..end].trim_end().to_string();
        self.blocks[blk_index].insts.push(self.insts.len());
        self.insts.push(ParsedInst { id, inst: Inst { kind, width, block, span }, line, col: c.col_of(kind_at), text });
        Ok(())
    }

    /// The span after the `;` at `end`, if any.
    fn span(&mut self, line: usize, full: &str, end: usize) -> Result<Span, ParseError> {
        let mut frames = vec![];
        if end >= full.len() {
            return Ok(Span { frames });
        }
        let mut at = end + 1;
        for part in full[end + 1..].split(" <- ") {
            let lead = part.len() - part.trim_start().len();
            let frame = part.trim();
            let c = Cursor::new(line, full, at + lead, at + lead + frame.len());
            if frame.is_empty() {
                return Err(c.error_at(at + lead, "expected a location (`file.cu:3:14` or `file.h`)"));
            }
            let mut parts = frame.rsplitn(3, ':');
            let (col, ln, name) = (parts.next(), parts.next(), parts.next());
            let numeric = |s: Option<&str>| s.and_then(|s| s.parse::<u32>().ok());
            let loc = match (name, numeric(ln), numeric(col)) {
                (Some(name), Some(ln), Some(col)) if !name.is_empty() => {
                    let file = self.files.id(name, true).map_err(|m| c.error_at(at + lead, m))?;
                    Loc { file, line: ln, col }
                }
                _ => {
                    let file = self.files.id(frame, false).map_err(|m| c.error_at(at + lead, m))?;
                    Loc { file, line: 0, col: 0 }
                }
            };
            frames.push(loc);
            at += part.len() + " <- ".len();
        }
        Ok(Span { frames })
    }

    /// A line before the first block: a parameter, an object or an assumption.
    fn declaration(&mut self, c: &mut Cursor) -> Result<(), ParseError> {
        c.ws();
        if c.eat("assumption ") {
            let a = c.string()?;
            self.assumptions.push(a);
            return c.end();
        }
        if c.rest().starts_with("obj") {
            return self.object(c);
        }
        if !c.eat("param ") {
            return Err(c.expected("`param`, an object (`obj0 ...`), `assumption` or a block label"));
        }
        let at = c.pos;
        let index: usize = c.number("a parameter index")?;
        if index != self.params.len() {
            return Err(c.error_at(at, format!("expected parameter {} (parameters are numbered in order from 0)", self.params.len())));
        }
        c.ws();
        let rest = c.rest();
        let colon = rest.rfind(": ").filter(|&i| i > 0).ok_or_else(|| c.expected("a parameter name and `: TYPE`"))?;
        let name = rest[..colon].to_string();
        c.pos += colon + 1;
        let kind = if c.eat("ptr ") {
            ParamKind::Pointer(self.object_ref(c)?)
        } else {
            ParamKind::Scalar { width: c.width().map_err(|_| c.expected("`iW` or `ptr objN`"))? }
        };
        self.params.push(Param { name, kind });
        c.end()
    }

    /// `obj1 b[128]: shared elem 4 uniform init {0: 1:i32}`.
    fn object(&mut self, c: &mut Cursor) -> Result<(), ParseError> {
        let at = c.pos;
        let id = c.entity("obj", "an object")?;
        if id as usize != self.objects.len() {
            return Err(c.error_at(at, format!("expected obj{} (objects are numbered in order from 0)", self.objects.len())));
        }
        c.ws();
        // The name (which may hold `.`, `:` or `<...>`) ends at the `: ` before the space.
        let rest = c.rest();
        let colon = rest
            .match_indices(": ")
            .map(|(i, _)| i)
            .find(|&i| SPACES.iter().any(|s| rest[i + 2..].starts_with(&format!("{s:?} elem ").to_lowercase())))
            .ok_or_else(|| c.expected("an object name and `: SPACE elem SIZE`"))?;
        let mut name = &rest[..colon];
        let mut dims = vec![];
        while let Some(open) = name.strip_suffix(']').and_then(|n| n.rfind('[')) {
            match name[open + 1..name.len() - 1].parse::<u64>() {
                Ok(d) if open > 0 => {
                    dims.insert(0, d);
                    name = &name[..open];
                }
                _ => break,
            }
        }
        if name.is_empty() {
            return Err(c.expected("an object name"));
        }
        let name = name.to_string();
        c.pos += colon + 1;
        let space = by_name(&SPACES, c.word()).expect("found above");
        c.expect("elem")?;
        let elem_size = c.number("an element size in bytes")?;
        let uniform = c.eat("uniform");
        let init = if c.eat("init") {
            c.expect("{")?;
            let mut cells = vec![];
            while !c.eat("}") {
                if !cells.is_empty() {
                    c.expect(",")?;
                }
                let off: u64 = c.number("a byte offset")?;
                c.expect(":")?;
                let (value, at) = c.operand()?;
                match value {
                    Operand::Const { width, bits } if width % 8 == 0 => cells.push((off, (width / 8) as u32, bits)),
                    _ => return Err(c.error_at(at, "expected a constant of whole bytes (`7:i32`)")),
                }
            }
            Some(Init { cells })
        } else {
            None
        };
        c.end()?;
        self.objects.push(MemObject { name, space, elem_size, dims, param: None, init, uniform });
        Ok(())
    }

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

    fn object_ref(&mut self, c: &mut Cursor) -> Result<ObjectId, ParseError> {
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
        s.parse().ok().filter(|&w: &u32| w > 0).ok_or_else(|| c.error_at(at, format!("expected a width in bytes after the opcode, found `{s}`")))
    }

    /// The terminator named `word`, or `None` if `word` is not one.
    fn terminator(&mut self, c: &mut Cursor, word: &str) -> Result<Option<Terminator>, ParseError> {
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

    fn inst_kind(&mut self, c: &mut Cursor) -> Result<InstKind, ParseError> {
        let at = c.pos;
        if c.eat("float.") {
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
            return Ok(InstKind::Float { func, args });
        }
        let word = c.word();
        let parts: Vec<&str> = word.split('.').collect();
        let unknown = |c: &mut Cursor| {
            c.pos = at;
            c.expected("an instruction")
        };
        Ok(match parts.as_slice() {
            ["param"] => InstKind::Param { index: c.number("a parameter index")? },
            [id @ ("local_id" | "group_id"), dim] => {
                let Some(d) = ["x", "y", "z"].iter().position(|x| x == dim) else {
                    return Err(c.error_at(at, format!("expected `{id}.x`, `.y` or `.z`")));
                };
                InstKind::Builtin(if *id == "local_id" { Builtin::LocalId(d as u8) } else { Builtin::GroupId(d as u8) })
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
            ["phi"] => {
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
                InstKind::Phi { incoming }
            }
            ["load", w] => {
                let width = Self::byte_width(c, w, at)?;
                InstKind::Load { ptr: self.pointer(c)?, width }
            }
            ["specload", w] => {
                let width = Self::byte_width(c, w, at)?;
                InstKind::SpecLoad { ptr: self.pointer(c)?, width }
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
            ["barrier", scope] => {
                let scope = by_name(&SCOPES, scope).ok_or_else(|| c.error_at(at, "expected `barrier.block` or `barrier.grid`"))?;
                c.expect("fences(")?;
                let fences = if c.rest().trim_start().starts_with(|ch: char| ch == 'v' || ch == '-' || ch.is_ascii_digit() || ch == 't' || ch == 'f') {
                    Fences::Dynamic(self.operand(c)?)
                } else {
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
                    Fences::Const { local, global }
                };
                c.expect(")")?;
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
                InstKind::Barrier(Barrier { scope, fences, guard, origin })
            }
            ["anchor"] => {
                let stmt = StmtId::from_u32(c.entity("stmt", "a statement (`stmt3`)")?);
                InstKind::Anchor(Anchor { stmt, split: c.eat("split") })
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
            ["snapshot"] => {
                let dst = self.object_ref(c)?;
                c.expect("<-")?;
                InstKind::Snapshot { dst, src: self.object_ref(c)? }
            }
            _ => return Err(unknown(c)),
        })
    }

    /// Builds the kernel: assigns ids, checks references and widths.
    fn finish(self) -> Result<Kernel, ParseError> {
        let header_error = |message: String| ParseError { line: self.header_line, col: 1, message };
        let Some(first) = self.blocks.first() else { return Err(header_error(format!("kernel {} has no blocks", self.name))) };
        let entry = first.id;
        if let Some(b) = self.blocks.iter().find(|b| b.term.is_none()) {
            return Err(ParseError { line: b.line, col: 1, message: format!("{} has no terminator", b.id) });
        }
        // Blocks: ids 0..n, each defined once.
        let mut by_id: BTreeMap<BlockId, &ParsedBlock> = BTreeMap::new();
        for b in &self.blocks {
            if by_id.insert(b.id, b).is_some() {
                return Err(ParseError { line: b.line, col: 1, message: format!("{} is defined twice", b.id) });
            }
        }
        if let Some((i, _)) = by_id.keys().enumerate().find(|(i, b)| b.index() != *i) {
            let line = by_id.values().nth(i).map_or(self.header_line, |b| b.line);
            return Err(ParseError { line, col: 1, message: format!("block{i} is missing (blocks are numbered from 0 without gaps)") });
        }
        // Instruction ids: printed ones as printed, the others in the free slots.
        let mut taken: BTreeMap<InstId, usize> = BTreeMap::new();
        for (n, p) in self.insts.iter().enumerate() {
            if let Some(id) = p.id {
                if taken.insert(id, n).is_some() {
                    return Err(ParseError { line: p.line, col: 3, message: format!("{id} is defined twice") });
                }
            }
        }
        let size = taken.keys().next_back().map_or(0, |v| v.index() + 1).max(self.insts.len());
        let mut slots: Vec<Option<usize>> = vec![None; size];
        for (id, n) in &taken {
            slots[id.index()] = Some(*n);
        }
        let mut free = (0..size).filter(|i| slots[*i].is_none()).collect::<Vec<_>>().into_iter();
        let mut ids = vec![InstId::new(0); self.insts.len()];
        for (n, p) in self.insts.iter().enumerate() {
            ids[n] = match p.id {
                Some(id) => id,
                None => {
                    let i = free.next().expect("enough free slots");
                    slots[i] = Some(n);
                    InstId::new(i)
                }
            };
        }
        let filler = Inst { kind: InstKind::Anchor(Anchor { stmt: StmtId::new(0), split: false }), width: 0, block: entry, span: Span::default() };
        let mut insts = PrimaryMap::new();
        for slot in &slots {
            insts.push(slot.map_or_else(|| filler.clone(), |n| self.insts[n].inst.clone()));
        }
        let mut blocks = PrimaryMap::new();
        for b in by_id.values() {
            let (term, term_span) = b.term.clone().expect("checked above");
            blocks.push(Block { insts: b.insts.iter().map(|n| ids[*n]).collect(), term, term_span });
        }
        let mut objects = self.objects;
        for (i, p) in self.params.iter().enumerate() {
            if let ParamKind::Pointer(o) = p.kind {
                if let Some(obj) = objects.get_mut(o) {
                    obj.param = Some(i);
                }
            }
        }
        let kernel = Kernel {
            name: self.name,
            language: self.language,
            launch: self.launch,
            params: self.params,
            objects,
            blocks,
            insts,
            entry,
            files: self.files.finish(),
            stmts: StmtTable::default(),
            assumptions: self.assumptions,
        };
        check::references(&kernel, &self.refs, &taken)?;
        check::instructions(&kernel, &self.insts)?;
        let terms: Vec<(BlockId, (usize, usize))> = by_id.values().map(|b| (b.id, b.term_at)).collect();
        check::terminators(&kernel, &terms)?;
        Ok(kernel)
    }
}
