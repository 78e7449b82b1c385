//! Calls: thread/group ids and sizes, barriers, GPUVerify annotations, syncfix's statement
//! markers, LLVM intrinsics, and inlining of defined functions.

use super::build::KirBuilder;
use super::{unsupported, At, Frame, LVal, LowerError, Lowerer};
use crate::names::function_name;

use llvm_ir::instruction::Call;
use syncfix_kir::EntityRef;
use syncfix_kir::{
    Anchor, AssertKind, Barrier, BarrierOrigin, BinOp, BlockId, Builtin, CastOp, CmpPred, Fences, Guard, InstKind, Operand, Scope, Span,
    StmtId, Terminator, TileMask,
};

/// What a call to a known name means.
enum Known {
    LocalId(Option<u8>),
    GroupId(Option<u8>),
    LocalSize(Option<u8>),
    NumGroups(Option<u8>),
    GlobalId(Option<u8>),
    GlobalSize(Option<u8>),
    WorkDim,
    GlobalOffset,
    BlockBarrier,
    OpenClBarrier,
    GridBarrier,
    /// `__syncfix_tile_sync(size)`: the prelude's cooperative-groups tile barrier.
    TileBarrier,
    Anchor {
        split: bool,
        end: bool,
    },
    /// Intrinsics with no effect on races or control flow.
    Ignore,
    SMax,
    SMin,
    UMax,
    UMin,
    Abs,
    /// A floating-point or math function, uninterpreted.
    Math(String),
}

fn dim(s: &str) -> Option<u8> {
    match s {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    }
}

/// Whether `symbol` is the CUDA toolkit's `cooperative_groups::grid_group::sync()` (in any
/// of its versioned namespaces, `cooperative_groups::__v1::`).
pub(super) fn is_grid_group_sync(symbol: &str) -> bool {
    symbol.starts_with("_ZN")
        && symbol.contains("18cooperative_groups")
        && crate::names::signature(symbol).is_some_and(|s| s.starts_with("cooperative_groups::") && s.contains("grid_group::sync()"))
}

fn classify(name: &str) -> Option<Known> {
    if let Some(rest) = name.strip_prefix("llvm.nvvm.read.ptx.sreg.") {
        let (what, d) = rest.split_once('.')?;
        let d = dim(d);
        return Some(match what {
            "tid" => Known::LocalId(d),
            "ctaid" => Known::GroupId(d),
            "ntid" => Known::LocalSize(d),
            "nctaid" => Known::NumGroups(d),
            _ => return None,
        });
    }
    if name.starts_with("llvm.dbg.")
        || name.starts_with("llvm.lifetime.")
        || name.starts_with("llvm.assume")
        || name.starts_with("llvm.experimental.noalias")
        || name.starts_with("llvm.invariant.")
    {
        return Some(Known::Ignore);
    }
    for (p, k) in [("llvm.smax.", 0), ("llvm.smin.", 1), ("llvm.umax.", 2), ("llvm.umin.", 3), ("llvm.abs.", 4)] {
        if name.starts_with(p) {
            return Some(match k {
                0 => Known::SMax,
                1 => Known::SMin,
                2 => Known::UMax,
                3 => Known::UMin,
                _ => Known::Abs,
            });
        }
    }
    if let Some(rest) = name.strip_prefix("llvm.") {
        let base = rest.split('.').next().unwrap_or(rest);
        if matches!(
            base,
            "fmuladd"
                | "fma"
                | "fabs"
                | "sqrt"
                | "sin"
                | "cos"
                | "exp"
                | "exp2"
                | "log"
                | "log2"
                | "log10"
                | "pow"
                | "floor"
                | "ceil"
                | "trunc"
                | "round"
                | "rint"
                | "nearbyint"
                | "minnum"
                | "maxnum"
                | "minimum"
                | "maximum"
                | "copysign"
                | "powi"
                | "ldexp"
                | "canonicalize"
        ) {
            return Some(Known::Math(base.to_string()));
        }
    }
    Some(match name {
        // `bar.sync a` (the toolkit's cooperative groups: `__barrier_sync(0)`) without a
        // thread count waits for every thread of the block, whatever barrier `a` is.
        "llvm.nvvm.barrier0" | "llvm.nvvm.barrier.sync" => Known::BlockBarrier,
        "get_local_id" => Known::LocalId(None),
        "get_group_id" => Known::GroupId(None),
        "get_local_size" => Known::LocalSize(None),
        "get_num_groups" => Known::NumGroups(None),
        "get_global_id" => Known::GlobalId(None),
        "get_global_size" => Known::GlobalSize(None),
        "get_work_dim" => Known::WorkDim,
        "get_global_offset" => Known::GlobalOffset,
        "barrier" | "work_group_barrier" => Known::OpenClBarrier,
        "__syncfix_grid_sync" => Known::GridBarrier,
        "__syncfix_tile_sync" => Known::TileBarrier,
        "__syncfix_anchor" => Known::Anchor { split: false, end: false },
        "__syncfix_split" => Known::Anchor { split: true, end: false },
        "__syncfix_anchor_end" => Known::Anchor { split: false, end: true },
        _ => return None,
    })
}

impl<'a> Lowerer<'a> {
    pub(crate) fn lower_call(&mut self, frame: &mut Frame, c: &'a Call, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let Some(name) = self.callee_name(c) else {
            return self.lower_call_through_pointer(frame, c, at);
        };
        let mut args = vec![];
        for (a, _) in &c.arguments {
            args.push(self.operand(frame, a, loc)?);
        }
        // Inline assembly (`crate::passes` named it after its text): a thread or block id
        // is its NVVM intrinsic; the rest is `ptx`'s.
        let mut name = name;
        if let Some(rest) = name.strip_prefix(crate::passes::INLINE_ASM_PREFIX) {
            let text = rest.rsplit_once('#').map_or(rest, |(t, _)| t);
            match super::ptx::index_intrinsic(text) {
                Some(intrinsic) => name = intrinsic,
                None => {
                    let ret_bits = match c.function_ty.as_ref() {
                        llvm_ir::Type::FuncType { result_type, .. } => super::layout::scalar_bits(result_type),
                        _ => None,
                    };
                    let v = self.lower_inline_asm(&name, text, &args, &c.function_ty, ret_bits, At::new(cur, span, loc))?;
                    if let (Some(dest), Some(v)) = (&c.dest, v) {
                        frame.values.insert(dest.clone(), v);
                    }
                    return Ok(cur);
                }
            }
        }
        let scalar_arg = |i: usize| -> Result<Operand, LowerError> {
            match args.get(i) {
                Some(LVal::Scalar(o)) => Ok(*o),
                _ => Err(unsupported(format!("a call to `{}` with unexpected arguments", function_name(&name)), loc)),
            }
        };
        let ret_bits = match c.function_ty.as_ref() {
            llvm_ir::Type::FuncType { result_type, .. } => super::layout::scalar_bits(result_type),
            _ => None,
        };
        if self.lower_annotation(frame, c, &name, &args, ret_bits, At::new(cur, span, loc))? {
            return Ok(cur);
        }
        let launch = self.kir.k.launch;
        let result: Option<Operand> = match classify(&name) {
            Some(Known::LocalId(d))
            | Some(Known::GroupId(d))
            | Some(Known::LocalSize(d))
            | Some(Known::NumGroups(d))
            | Some(Known::GlobalId(d))
            | Some(Known::GlobalSize(d)) => {
                let kind = classify(&name).expect("classified");
                let w = ret_bits.unwrap_or(32);
                let dimop = match d {
                    Some(d) => Operand::konst(32, d as u128),
                    None => scalar_arg(0)?,
                };
                Some(self.dim_value(cur, kind, dimop, w, span, launch))
            }
            Some(Known::WorkDim) => {
                let dims = (0..3).rev().find(|&d| launch.block_dim[d] != 1 || launch.grid_dim[d] != 1).unwrap_or(0) + 1;
                Some(Operand::konst(ret_bits.unwrap_or(32), dims as u128))
            }
            Some(Known::GlobalOffset) => {
                let w = ret_bits.unwrap_or(64);
                let dimop = scalar_arg(0)?;
                match dimop.as_const() {
                    Some(d) if d < 3 => Some(Operand::konst(w, launch.global_offset[d as usize] as u128)),
                    Some(_) => Some(Operand::konst(w, 0)),
                    None => {
                        let [x, y, z] = launch.global_offset;
                        if x == 0 && y == 0 && z == 0 {
                            Some(Operand::konst(w, 0))
                        } else {
                            return Err(unsupported("get_global_offset with a non-constant dimension and a global offset", loc));
                        }
                    }
                }
            }
            Some(Known::BlockBarrier) => {
                self.barrier(frame, cur, Scope::Block, Fences::ALL, span);
                None
            }
            Some(Known::GridBarrier) => {
                self.barrier(frame, cur, Scope::Grid, Fences::ALL, span);
                None
            }
            Some(Known::TileBarrier) => {
                let size = scalar_arg(0)?;
                return self.tile_sync(frame, size, At::new(cur, span, loc));
            }
            Some(Known::OpenClBarrier) => {
                let f = scalar_arg(0)?;
                let fences = match f.as_const() {
                    Some(bits) => Fences::Const { local: bits & 1 != 0, global: bits & 2 != 0 },
                    None => Fences::Dynamic(f),
                };
                self.barrier(frame, cur, Scope::Block, fences, span);
                None
            }
            Some(Known::Anchor { split, end }) => {
                let n = scalar_arg(0)?.as_const().ok_or_else(|| unsupported("a statement marker with a non-constant id", loc))?;
                let stmt = StmtId::new(n as usize);
                if stmt.index() < self.kir.k.stmts.stmts.len() {
                    self.kir.push(cur, InstKind::Anchor(Anchor { stmt, split, end, step: 0 }), 0, span);
                }
                None
            }
            Some(Known::Ignore) => None,
            Some(k @ (Known::SMax | Known::SMin | Known::UMax | Known::UMin)) => {
                let (a, b) = (scalar_arg(0)?, scalar_arg(1)?);
                Some(self.min_max(k, a, b, cur, span))
            }
            Some(Known::Abs) => Some(self.abs(scalar_arg(0)?, cur, span)),
            Some(Known::Math(f)) => {
                // Element by element for vector intrinsics (`llvm.fmuladd.v4f32`).
                let v = self.pure_call(&f, &args, &c.function_ty, true, At::new(cur, span, loc))?;
                if let Some(dest) = &c.dest {
                    frame.values.insert(dest.clone(), v);
                }
                return Ok(cur);
            }
            None => return self.lower_named_call(frame, c, &name, args, ret_bits, At::new(cur, span, loc)),
        };
        if let (Some(dest), Some(v)) = (&c.dest, result) {
            frame.values.insert(dest.clone(), LVal::Scalar(v));
        } else if let Some(dest) = &c.dest {
            // A call whose value is unused by our model but may be used by the program.
            let w = ret_bits.unwrap_or(32);
            let v = self.kir.push(cur, InstKind::Havoc, w, span);
            frame.values.insert(dest.clone(), LVal::Scalar(Operand::Value(v)));
        }
        Ok(cur)
    }

    /// `max`/`min` (signed or unsigned, `k`) of `a` and `b`: a comparison and a select.
    fn min_max(&mut self, k: Known, a: Operand, b: Operand, cur: BlockId, span: &Span) -> Operand {
        let pred = match k {
            Known::SMax => CmpPred::Sgt,
            Known::SMin => CmpPred::Slt,
            Known::UMax => CmpPred::Ugt,
            _ => CmpPred::Ult,
        };
        let w = self.kir.width(a);
        let c = self.kir.push(cur, InstKind::Cmp { pred, lhs: a, rhs: b }, 1, span);
        Operand::Value(self.kir.push(cur, InstKind::Select { cond: Operand::Value(c), then: a, els: b }, w, span))
    }

    /// `|a|` (two's complement): `a < 0 ? 0 − a : a`.
    fn abs(&mut self, a: Operand, cur: BlockId, span: &Span) -> Operand {
        let w = self.kir.width(a);
        let neg = self.kir.push(cur, InstKind::Bin { op: BinOp::Sub, lhs: Operand::konst(w, 0), rhs: a }, w, span);
        let c = self.kir.push(cur, InstKind::Cmp { pred: CmpPred::Slt, lhs: a, rhs: Operand::konst(w, 0) }, 1, span);
        Operand::Value(self.kir.push(cur, InstKind::Select { cond: Operand::Value(c), then: Operand::Value(neg), els: a }, w, span))
    }

    /// A call of a pure function as an uninterpreted function: scalar arguments and result
    /// directly; with `elementwise`, vector arguments and results element by element (LLVM's
    /// vector math intrinsics); otherwise one function per result element over all argument
    /// scalars.
    pub(super) fn pure_call(
        &mut self,
        name: &str,
        args: &[LVal],
        fty: &llvm_ir::TypeRef,
        elementwise: bool,
        at: At<'_>,
    ) -> Result<LVal, LowerError> {
        let At { cur, span, loc } = at;
        let ret = match fty.as_ref() {
            llvm_ir::Type::FuncType { result_type, .. } => result_type.clone(),
            _ => return Err(unsupported(format!("a call to `{}` of unknown type", function_name(name)), loc)),
        };
        let mut widths = vec![];
        if !super::inst::leaf_widths(&self.m.types, &ret, &mut widths) {
            return Err(unsupported(format!("`{}` returning {ret}", function_name(name)), loc));
        }
        let mut flat: Vec<Vec<Operand>> = vec![];
        for a in args {
            let mut leaves = vec![];
            if !Self::leaves_of(a, &mut leaves) {
                return Err(unsupported(format!("`{}` with a pointer argument", function_name(name)), loc));
            }
            flat.push(leaves);
        }
        let mut out = vec![];
        for (i, w) in widths.iter().enumerate() {
            let ops: Vec<Operand> = if elementwise {
                flat.iter()
                    .map(|l| if l.len() == widths.len() { l[i] } else { l.first().copied().unwrap_or(Operand::konst(1, 0)) })
                    .collect()
            } else {
                flat.iter().flatten().copied().collect()
            };
            // Element-wise: one function for every element (a scalar call gives the same
            // value on the same arguments); otherwise one function per result scalar.
            let func = if widths.len() == 1 || elementwise { format!("{}.{w}", name) } else { format!("{}.{w}#{i}", name) };
            out.push(Operand::Value(self.kir.push(cur, InstKind::Float { func, args: ops }, *w, span)));
        }
        Ok(super::inst::rebuild(&self.m.types, &ret, &mut out.into_iter()))
    }

    pub(crate) fn barrier(&mut self, frame: &mut Frame, cur: BlockId, scope: Scope, fences: Fences, span: &Span) {
        // The statement whose deletion removes this barrier: the innermost statement of the
        // main file that contains the barrier's user-code location and is a bare barrier call.
        let stmt = span.in_main().and_then(|l| {
            let s = self.kir.k.statement_at(l)?;
            self.kir.k.stmts.stmts[s].barrier_call.map(|_| s)
        });
        let kind = InstKind::Barrier(Barrier { scope, fences, guard: Guard::Always, origin: BarrierOrigin::Existing { stmt } });
        let span = span.clone();
        self.with_barrier_invariants(frame, cur, |me| {
            me.kir.push(cur, kind, 0, &span);
        });
    }

    /// `__syncfix_tile_sync(size)`, the prelude's `sync()` of a cooperative group: 0 is the
    /// whole block (a `thread_group` holding a block), `size` a tile of that many threads
    /// ([`KirBuilder::tile_barrier`]). A size only known at run time (a `thread_group` from the
    /// dynamic `tiled_partition(parent, n)`, read back from private memory) is a switch over
    /// the sizes CUDA allows there (0 and the powers of two up to 32), each case its barrier;
    /// any other size fails the call's precondition. Neither barrier can be removed by the
    /// repair: the statement that calls it may be a tile's `sync()`. Returns the block where
    /// lowering continues.
    fn tile_sync(&mut self, frame: &mut Frame, size: Operand, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let one = |me: &mut Self, frame: &mut Frame, b: BlockId, n: u128| {
            if n == 0 {
                let bar = Barrier {
                    scope: Scope::Block,
                    fences: Fences::ALL,
                    guard: Guard::Always,
                    origin: BarrierOrigin::Existing { stmt: None },
                };
                me.with_barrier_invariants(frame, b, |me| {
                    me.kir.push(b, InstKind::Barrier(bar), 0, span);
                });
            } else {
                me.kir.tile_barrier(b, n as u32, TileMask::FULL, span);
            }
        };
        if let Some(n) = size.as_const() {
            if n > u32::MAX as u128 {
                return Err(unsupported(format!("a cooperative-groups tile of {n} threads"), loc));
            }
            one(self, frame, cur, n);
            return Ok(cur);
        }
        let join = self.kir.new_block();
        let mut cases = vec![];
        for n in [0u128, 1, 2, 4, 8, 16, 32] {
            let b = self.kir.new_block();
            one(self, frame, b, n);
            self.kir.k.blocks[b].term = Terminator::Br(join);
            self.kir.k.blocks[b].term_span = span.clone();
            cases.push((n, b));
        }
        let bad = self.kir.new_block();
        self.kir.push(bad, InstKind::Assert { cond: Operand::bool(false), kind: AssertKind::Precondition, global: false }, 0, span);
        self.kir.k.blocks[bad].term = Terminator::Br(join);
        self.kir.k.blocks[bad].term_span = span.clone();
        self.kir.k.blocks[cur].term = Terminator::Switch { value: size, default: bad, cases };
        self.kir.k.blocks[cur].term_span = span.clone();
        Ok(join)
    }

    /// `get_local_id(d)` and friends for a possibly non-constant dimension `d`.
    fn dim_value(&mut self, cur: BlockId, kind: Known, d: Operand, w: u16, span: &Span, launch: syncfix_kir::Launch) -> Operand {
        let per_dim = |this: &mut Self, dd: u8| -> Operand {
            let i = dd as usize;
            let v32 = match kind {
                Known::LocalId(_) => Some(Builtin::LocalId(dd)),
                Known::GroupId(_) => Some(Builtin::GroupId(dd)),
                _ => None,
            };
            let value = match (&kind, v32) {
                (_, Some(b)) => {
                    if (matches!(b, Builtin::LocalId(_)) && launch.block_dim[i] == 1)
                        || (matches!(b, Builtin::GroupId(_)) && launch.grid_dim[i] == 1)
                    {
                        Operand::konst(32, 0)
                    } else {
                        Operand::Value(this.kir.push(cur, InstKind::Builtin(b), 32, span))
                    }
                }
                (Known::LocalSize(_), _) => this.kir.launch_size(cur, false, dd, span),
                (Known::NumGroups(_), _) => this.kir.launch_size(cur, true, dd, span),
                (Known::GlobalSize(_), _) if launch.block_dim[i] != 0 && launch.grid_dim[i] != 0 => {
                    Operand::konst(32, launch.block_dim[i] as u128 * launch.grid_dim[i] as u128)
                }
                (Known::GlobalSize(_), _) => {
                    let (b, g) = (this.kir.launch_size(cur, false, dd, span), this.kir.launch_size(cur, true, dd, span));
                    Operand::Value(this.kir.push(cur, InstKind::Bin { op: BinOp::Mul, lhs: b, rhs: g }, 32, span))
                }
                (Known::GlobalId(_), _) => {
                    let l = if launch.block_dim[i] == 1 {
                        Operand::konst(32, 0)
                    } else {
                        Operand::Value(this.kir.push(cur, InstKind::Builtin(Builtin::LocalId(dd)), 32, span))
                    };
                    let g = if launch.grid_dim[i] == 1 {
                        Operand::konst(32, 0)
                    } else {
                        Operand::Value(this.kir.push(cur, InstKind::Builtin(Builtin::GroupId(dd)), 32, span))
                    };
                    let id = match g {
                        Operand::Const { bits: 0, .. } => l,
                        _ => {
                            let size = this.kir.launch_size(cur, false, dd, span);
                            let m = this.kir.push(cur, InstKind::Bin { op: BinOp::Mul, lhs: g, rhs: size }, 32, span);
                            Operand::Value(this.kir.push(cur, InstKind::Bin { op: BinOp::Add, lhs: Operand::Value(m), rhs: l }, 32, span))
                        }
                    };
                    // OpenCL's global offset (`--global_offset`).
                    match launch.global_offset[i] {
                        0 => id,
                        off => Operand::Value(this.kir.push(
                            cur,
                            InstKind::Bin { op: BinOp::Add, lhs: id, rhs: Operand::konst(32, off as u128) },
                            32,
                            span,
                        )),
                    }
                }
                _ => Operand::konst(32, 0),
            };
            match (value, w) {
                (v, 32) => v,
                (Operand::Const { bits, .. }, w) => Operand::konst(w, bits),
                (v, w) if w > 32 => Operand::Value(this.kir.push(cur, InstKind::Cast { op: CastOp::ZExt, arg: v }, w, span)),
                (v, w) => Operand::Value(this.kir.push(cur, InstKind::Cast { op: CastOp::Trunc, arg: v }, w, span)),
            }
        };
        match d.as_const() {
            Some(c) if c < 3 => per_dim(self, c as u8),
            Some(_) => {
                // Out-of-range dimensions: sizes are 1, ids 0 (OpenCL 1.2 §6.12.1).
                let one = matches!(kind, Known::LocalSize(_) | Known::NumGroups(_) | Known::GlobalSize(_));
                Operand::konst(w, one as u128)
            }
            None => {
                let (x, y, z) = (per_dim(self, 0), per_dim(self, 1), per_dim(self, 2));
                let dw = self.kir.width(d);
                let is1 = self.kir.push(cur, InstKind::Cmp { pred: CmpPred::Eq, lhs: d, rhs: Operand::konst(dw, 1) }, 1, span);
                let is2 = self.kir.push(cur, InstKind::Cmp { pred: CmpPred::Eq, lhs: d, rhs: Operand::konst(dw, 2) }, 1, span);
                let yz = self.kir.push(cur, InstKind::Select { cond: Operand::Value(is2), then: z, els: y }, w, span);
                let is0 = self.kir.push(cur, InstKind::Cmp { pred: CmpPred::Eq, lhs: d, rhs: Operand::konst(dw, 0) }, 1, span);
                let _ = is1;
                Operand::Value(self.kir.push(
                    cur,
                    InstKind::Select { cond: Operand::Value(is0), then: x, els: Operand::Value(yz) },
                    w,
                    span,
                ))
            }
        }
    }
}

/// The launch's sizes and tile barriers.
impl KirBuilder {
    /// The block size (or, `group`, the number of blocks) in dimension `d` (32 bits): a
    /// constant, or the builtin of a symbolic size (`*`).
    pub(crate) fn launch_size(&mut self, cur: BlockId, group: bool, d: u8, span: &Span) -> Operand {
        let l = self.k.launch;
        match if group { l.grid_dim[d as usize] } else { l.block_dim[d as usize] } {
            0 => {
                let b = if group { Builtin::NumGroups(d) } else { Builtin::LocalSize(d) };
                Operand::Value(self.push(cur, InstKind::Builtin(b), 32, span))
            }
            n => Operand::konst(32, n as u128),
        }
    }

    /// A barrier among the threads of one tile of `size` consecutive linear thread ids that
    /// `mask` names (`__syncwarp(mask)`: 32; cooperative groups' tiles: their size, every
    /// thread). It is part of a library call, not a statement the repair may remove, and takes
    /// no barrier invariants (they belong to the next block barrier).
    pub(crate) fn tile_barrier(&mut self, cur: BlockId, size: u32, mask: TileMask, span: &Span) {
        let scope = Scope::Tile { size, mask };
        let bar = Barrier { scope, fences: Fences::ALL, guard: Guard::Always, origin: BarrierOrigin::Existing { stmt: None } };
        self.push(cur, InstKind::Barrier(bar), 0, span);
    }
}

/// `memory(none)` (or `readnone`) on a function: it reads and writes no memory.
fn pure_attrs(attrs: &[llvm_ir::function::FunctionAttribute]) -> bool {
    use llvm_ir::function::{FunctionAttribute as A, MemoryEffect as M};
    attrs.iter().any(|a| match a {
        A::ReadNone => true,
        A::Memory { default, argmem, inaccessible_mem } => {
            matches!(default, M::None) && matches!(argmem, M::None) && matches!(inaccessible_mem, M::None)
        }
        _ => false,
    })
}

pub(super) fn is_pure(f: &llvm_ir::Function) -> bool {
    pure_attrs(&f.function_attributes)
}

pub(super) fn is_pure_call(c: &Call) -> bool {
    pure_attrs(&c.function_attributes)
}
