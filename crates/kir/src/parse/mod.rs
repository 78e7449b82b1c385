//! The parser of KIR's text form: reads back what `Display for Kernel` prints (`--emit=kir`,
//! and the kernel of `--emit=instrumented`, whose barriers carry `if varN`), so that
//! `parse(text)` prints as `text` again, and kernels can be written by hand for tests (as
//! Cranelift's file tests do).
//!
//! The grammar, one item per line (`;` starts a comment; blank lines are skipped):
//! ```text
//! kernel NAME (Cuda|OpenCl) block_dim=[X, Y, Z] grid_dim=[X, Y, Z] [global_offset=[X, Y, Z]] [global_dim=[X, Y, Z]]
//!   param I NAME: iW | ptr objN
//!   objN NAME[D]...: global|shared|constant|private elem E [uniform] [init {OFF: CONST, ...}]
//!   assumption "TEXT"
//!   stmtN {JSON}                          ; the statement table: one `syncfix_kir::Stmt` each, from 0
//! blockN:
//!   [vN:iW =] INSTRUCTION                 ; SPAN
//!   TERMINATOR                            ; SPAN
//! ```
//! A span is `file:line:col` for the kernel's file and `file` alone for others, innermost
//! first, joined by ` <- `. The first block is the entry; blocks are numbered from 0 without
//! gaps, in any order. Instructions without a value have no printed id; they get the ids left
//! free by the others (ids of instructions that are in no block are lost, and filled with
//! anchors that no block holds).
//!
//! The statement table (what the instrumenter reads: the source statements where barriers can
//! be printed) is one `stmtN` line per statement, the statement as a JSON object (its fields
//! as `syncfix_kir::Stmt` names them; other statements by number). What the text form does
//! not hold: source texts and directories, and lines and columns in files other than the
//! kernel's (0:0 after parsing).

mod check;
mod cursor;
mod inst;

pub use cursor::ParseError;

use crate::entity::{BlockId, FileId, InstId, ObjectId, StmtId};
use crate::ir::*;
use crate::source::{Loc, SourceFile, Span, StmtTable};
use cranelift_entity::{EntityRef, PrimaryMap};
use cursor::Cursor;
use inst::{by_name, SPACES};
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
    /// The statement table (`stmtN {...}` lines) and the line of each statement.
    stmts: StmtTable,
    stmt_lines: Vec<usize>,
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
                Some(m) if m != name => {
                    Err(format!("`{name}:...` has a line and column, but the kernel's file is `{m}` (only it has them)"))
                }
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
        let lang_at =
            full[..dims_at].rfind(" (").filter(|&i| i >= c.pos).ok_or_else(|| c.expected("a kernel name and `(Cuda)` or `(OpenCl)`"))?;
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
        if c.eat("global_dim=") {
            launch.global_dim = dims3(&mut c)?;
        }
        c.end()?;
        Ok(KernelParser {
            name,
            language,
            launch,
            params: vec![],
            objects: PrimaryMap::new(),
            assumptions: vec![],
            stmts: StmtTable::default(),
            stmt_lines: vec![],
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
        if self.blocks.is_empty() && full.trim_start().starts_with("stmt") {
            return self.statement(line, full, end);
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

    /// `stmtN {JSON}`: statement N of the statement table, numbered from 0 in order.
    fn statement(&mut self, line: usize, full: &str, end: usize) -> Result<(), ParseError> {
        let lead = full.len() - full.trim_start().len();
        let mut c = Cursor::new(line, full, lead, end);
        let n = c.entity("stmt", "a statement (`stmt0 {...}`)")?;
        if n as usize != self.stmts.stmts.len() {
            return Err(c.error_at(lead, format!("expected stmt{} (statements are numbered from 0, in order)", self.stmts.stmts.len())));
        }
        c.ws();
        let json = &full[c.pos..end];
        let stmt: crate::source::Stmt =
            serde_json::from_str(json.trim_end()).map_err(|e| c.error(format!("expected a statement as a JSON object ({e})")))?;
        self.stmts.stmts.push(stmt);
        self.stmt_lines.push(line);
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
        let filler = Inst {
            kind: InstKind::Anchor(Anchor { stmt: StmtId::new(0), split: false, end: false, step: 0 }),
            width: 0,
            block: entry,
            span: Span::default(),
        };
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
            stmts: self.stmts,
            assumptions: self.assumptions,
        };
        check::statements(&kernel, &self.stmt_lines)?;
        check::references(&kernel, &self.refs, &taken)?;
        check::instructions(&kernel, &self.insts)?;
        let terms: Vec<(BlockId, (usize, usize))> = by_id.values().map(|b| (b.id, b.term_at)).collect();
        check::terminators(&kernel, &terms)?;
        Ok(kernel)
    }
}
