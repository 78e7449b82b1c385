//! The text form of KIR (`--emit=kir`, `--emit=instrumented`): readable and stable, so it can
//! be snapshot-tested.

use crate::entity::BlockId;
use crate::ir::*;
use crate::source::Span;
use std::fmt::{self, Display, Formatter, Write};

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Value(v) => write!(f, "{v}"),
            Operand::Const { width: 1, bits } => write!(f, "{}", *bits != 0),
            Operand::Const { width, bits } => {
                // Print small negative numbers in two's complement as negatives.
                let w = *width as u32;
                let sign = w < 128 && w > 1 && (bits >> (w - 1)) & 1 == 1;
                if sign && (1u128 << w) - bits < 1 << 16 {
                    write!(f, "-{}:i{}", (1u128 << w) - bits, width)
                } else {
                    write!(f, "{}:i{}", bits, width)
                }
            }
        }
    }
}

impl Display for Pointer {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.object, self.offset)
    }
}

fn lower<T: fmt::Debug>(t: T) -> String {
    format!("{t:?}").to_lowercase()
}

impl Display for Fences {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Fences::Const { local, global } => {
                let mut v = vec![];
                if *local {
                    v.push("local");
                }
                if *global {
                    v.push("global");
                }
                write!(f, "fences({})", v.join(","))
            }
            Fences::Dynamic(o) => write!(f, "fences({o})"),
        }
    }
}

impl Display for InstKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            InstKind::Param { index } => write!(f, "param {index}"),
            InstKind::Builtin(Builtin::LocalId(d)) => write!(f, "local_id.{}", ["x", "y", "z"][*d as usize]),
            InstKind::Builtin(Builtin::GroupId(d)) => write!(f, "group_id.{}", ["x", "y", "z"][*d as usize]),
            InstKind::Builtin(Builtin::LocalSize(d)) => write!(f, "local_size.{}", ["x", "y", "z"][*d as usize]),
            InstKind::Builtin(Builtin::NumGroups(d)) => write!(f, "num_groups.{}", ["x", "y", "z"][*d as usize]),
            InstKind::Havoc => write!(f, "havoc"),
            InstKind::Bin { op, lhs, rhs } => write!(f, "{} {lhs}, {rhs}", lower(op)),
            InstKind::Cmp { pred, lhs, rhs } => write!(f, "cmp.{} {lhs}, {rhs}", lower(pred)),
            InstKind::Cast { op, arg } => write!(f, "{} {arg}", lower(op)),
            InstKind::Select { cond, then, els } => write!(f, "select {cond}, {then}, {els}"),
            InstKind::Phi { incoming } => {
                write!(f, "phi ")?;
                for (i, (b, o)) in incoming.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "[{b}: {o}]")?;
                }
                Ok(())
            }
            InstKind::Float { func, args } => {
                write!(f, "float.{func}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
            InstKind::Load { ptr, width } => write!(f, "load.{width} {ptr}"),
            InstKind::Store { ptr, value, width } => write!(f, "store.{width} {ptr}, {value}"),
            InstKind::Atomic { op, ptr, args, width } => {
                write!(f, "atomic.{}.{width} {ptr}", lower(op))?;
                for a in args {
                    write!(f, ", {a}")?;
                }
                Ok(())
            }
            InstKind::Barrier(b) => {
                match b.scope {
                    // `barrier.tile32 fences(local,global) mask(0xffff)`
                    Scope::Tile { size, mask } => {
                        write!(f, "barrier.tile{size} {}", b.fences)?;
                        match mask {
                            TileMask::Const(m) => write!(f, " mask({m:#x})")?,
                            TileMask::Dynamic(o) => write!(f, " mask({o})")?,
                        }
                    }
                    _ => write!(f, "barrier.{} {}", lower(b.scope), b.fences)?,
                }
                match b.guard {
                    Guard::Always => {}
                    Guard::Var(v) => write!(f, " if {v}")?,
                }
                match b.origin {
                    BarrierOrigin::Existing { stmt: Some(s) } => write!(f, " existing({s})"),
                    BarrierOrigin::Existing { stmt: None } => write!(f, " existing(fixed)"),
                    BarrierOrigin::Candidate => write!(f, " candidate"),
                }
            }
            InstKind::Anchor(a) => {
                write!(f, "anchor {}{}{}", a.stmt, if a.split { " split" } else { "" }, if a.end { " end" } else { "" })?;
                if a.step > 0 {
                    write!(f, " step {}", a.step)?;
                }
                Ok(())
            }
            InstKind::Assert { cond, kind, global } => {
                write!(f, "assert.{}{} {cond}", lower(kind), if *global { ".global" } else { "" })
            }
            InstKind::Assume { cond } => write!(f, "assume {cond}"),
            InstKind::Candidate { cond } => write!(f, "candidate {cond}"),
            InstKind::Enabled => write!(f, "enabled"),
            InstKind::Other { arg } => write!(f, "other {arg}"),
            InstKind::Old { arg } => write!(f, "old {arg}"),
            InstKind::LogQuery { object, kind, query } => write!(f, "log.{}.{} {object}", lower(kind), lower(query)),
            InstKind::SpecLoad { ptr, width } => write!(f, "specload.{width} {ptr}"),
            InstKind::Permission { ptr, width } => write!(f, "permission.{width} {ptr}"),
            InstKind::External { object, kind } => write!(f, "external.{} {object}", lower(kind)),
            InstKind::AtomicTaken { ptr, value } => write!(f, "atomic_taken {ptr}, {value}"),
            InstKind::Snapshot { dst, src } => write!(f, "snapshot {dst} <- {src}"),
            InstKind::AsyncPending { object } => write!(f, "asyncpending {object}"),
            InstKind::AsyncWait { guard: Guard::Always } => write!(f, "asyncwait"),
            InstKind::AsyncWait { guard: Guard::Var(v) } => write!(f, "asyncwait if {v}"),
        }
    }
}

impl Display for Terminator {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Terminator::Br(b) => write!(f, "br {b}"),
            Terminator::CondBr { cond, then, els } => write!(f, "br {cond}, {then}, {els}"),
            Terminator::Switch { value, default, cases } => {
                write!(f, "switch {value}, default {default}")?;
                for (c, b) in cases {
                    write!(f, ", {c}: {b}")?;
                }
                Ok(())
            }
            Terminator::Return => write!(f, "ret"),
            Terminator::Unreachable => write!(f, "unreachable"),
        }
    }
}

impl Kernel {
    fn span_text(&self, span: &Span) -> String {
        let mut s = String::new();
        for (i, l) in span.frames.iter().enumerate() {
            if i > 0 {
                s.push_str(" <- ");
            }
            let name = self.files.get(l.file).map(|f| f.file_name()).unwrap_or("?");
            // Lines inside other files (syncfix's preludes) would make dumps churn when they
            // change: only the user's file gets line and column.
            if l.file == crate::FileId::MAIN {
                let _ = write!(s, "{}:{}:{}", name, l.line, l.col);
            } else {
                let _ = write!(s, "{name}");
            }
        }
        s
    }
}

impl Display for MemObject {
    /// `name[16][32]: shared elem 4`, then ` uniform` and ` init {0: 7:i32, 8: -1:i16}`
    /// (byte offset: value, width from the constant) when they apply.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        for d in &self.dims {
            write!(f, "[{d}]")?;
        }
        write!(f, ": {} elem {}", lower(self.space), self.elem_size)?;
        if self.uniform {
            write!(f, " uniform")?;
        }
        if let Some(init) = &self.init {
            write!(f, " init {{")?;
            for (i, (off, width, bits)) in init.cells.iter().enumerate() {
                let value = Operand::Const { width: (*width * 8) as u16, bits: *bits };
                write!(f, "{}{off}: {value}", if i > 0 { ", " } else { "" })?;
            }
            write!(f, "}}")?;
        }
        Ok(())
    }
}

/// Pads `line` to the comment column and appends `; loc` when the span is not empty.
fn with_span(mut line: String, loc: &str) -> String {
    if !loc.is_empty() {
        let pad = 48usize.saturating_sub(line.len()).max(1);
        let _ = write!(line, "{:pad$}; {loc}", "");
    }
    line
}

impl Display for Kernel {
    /// The text form, which [`crate::parse`] reads back: the header (launch, with
    /// `global_offset=` when it is not zero), parameters, objects, the lowering's assumptions
    /// (`assumption "..."`), the statement table (`stmtN {JSON}`), then every block, reachable ones in reverse post-order from the
    /// entry (printed first), then unreachable ones in id order. Each instruction and
    /// terminator ends with its span as a comment (`; file:line:col <- call site`; other
    /// files than the kernel's are named without line and column). Instructions without a
    /// value are printed without their id.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let l = &self.launch;
        write!(f, "kernel {} ({:?}) block_dim={:?} grid_dim={:?}", self.name, self.language, l.block_dim, l.grid_dim)?;
        if l.global_offset != [0; 3] {
            write!(f, " global_offset={:?}", l.global_offset)?;
        }
        if l.global_dim != [0; 3] {
            write!(f, " global_dim={:?}", l.global_dim)?;
        }
        writeln!(f)?;
        for (i, p) in self.params.iter().enumerate() {
            match &p.kind {
                ParamKind::Scalar { width } => writeln!(f, "  param {i} {}: i{width}", p.name)?,
                ParamKind::Pointer(o) => writeln!(f, "  param {i} {}: ptr {o}", p.name)?,
            }
        }
        for (id, o) in self.objects.iter() {
            writeln!(f, "  {id} {o}")?;
        }
        for a in &self.assumptions {
            writeln!(f, "  assumption {a:?}")?;
        }
        for (id, st) in self.stmts.stmts.iter() {
            writeln!(f, "  {id} {}", serde_json::to_string(st).map_err(|_| fmt::Error)?)?;
        }
        let mut order: Vec<BlockId> = match crate::cfg::Cfg::compute(self) {
            Ok(c) => c.rpo.clone(),
            Err(_) => vec![self.entry],
        };
        let printed: std::collections::HashSet<BlockId> = order.iter().copied().collect();
        order.extend(self.blocks.keys().filter(|b| !printed.contains(b)));
        for b in order {
            let blk = &self.blocks[b];
            writeln!(f, "{b}:")?;
            for &i in &blk.insts {
                let inst = &self.insts[i];
                let line = if inst.width > 0 { format!("  {i}:i{} = {}", inst.width, inst.kind) } else { format!("  {}", inst.kind) };
                writeln!(f, "{}", with_span(line, &self.span_text(&inst.span)))?;
            }
            writeln!(f, "{}", with_span(format!("  {}", blk.term), &self.span_text(&blk.term_span)))?;
        }
        Ok(())
    }
}
