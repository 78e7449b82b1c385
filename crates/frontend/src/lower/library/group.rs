//! Library functions about the threads of a group: `__syncwarp` (a tile barrier),
//! `__syncthreads_count/and/or` (a barrier and a reduction), the element copies of
//! `async_work_group_copy`, and the group size and linear thread id they use.

use super::*;

impl<'a> Lowerer<'a> {
    /// `__syncwarp(mask)` (and `llvm.nvvm.bar.warp.sync`): a tile barrier of 32 threads (a
    /// warp) among the lanes `mask` names; a mask computed at run time is kept as an operand
    /// and evaluated per thread by the verifier (see `Scope::Tile`).
    pub(crate) fn lib_syncwarp(&mut self, args: &[LVal], at: At<'_>) -> Result<(), LowerError> {
        let At { cur, span, loc } = at;
        let [m] = self.lib_scalars::<1>("__syncwarp", args, loc)?;
        let mask = match m.as_const() {
            Some(c) => TileMask::Const(c as u32),
            None => TileMask::Dynamic(self.kir.resize_unfolded(cur, m, 32, false, span)),
        };
        self.kir.tile_barrier(cur, 32, mask, span);
        Ok(())
    }

    /// `__syncthreads_count/_and/_or(p)`: a block barrier (that cannot be removed: it is part
    /// of a library call) whose result is arbitrary within what this thread knows: `_and` is 0
    /// when `p` is 0, `_or` is non-zero when `p` is, and the count is between `p != 0` and the
    /// block size. FIXME: the result is the same for every thread of the block, which KIR
    /// cannot express yet; each thread gets its own arbitrary value (an over-approximation).
    pub(super) fn lib_syncthreads_reduction(
        &mut self,
        what: &str,
        args: &[LVal],
        ret_bits: Option<u16>,
        cur: BlockId,
        span: &Span,
        loc: Option<Loc>,
    ) -> Result<Option<Operand>, LowerError> {
        let [p] = self.lib_scalars::<1>(what, args, loc)?;
        let barrier =
            Barrier { scope: Scope::Block, fences: Fences::ALL, guard: Guard::Always, origin: BarrierOrigin::Existing { stmt: None } };
        self.kir.push(cur, InstKind::Barrier(barrier), 0, span);
        let w = ret_bits.unwrap_or(32);
        let h = Operand::Value(self.kir.push(cur, InstKind::Havoc, w, span));
        let pw = self.kir.width(p);
        let pnz = self.kir.cmp(cur, CmpPred::Ne, p, Operand::konst(pw, 0), span);
        let one = self.kir.resize_unfolded(cur, pnz, w, false, span);
        Ok(Some(match what {
            "__syncthreads_and" => self.kir.select(cur, pnz, h, Operand::konst(w, 0), span),
            "__syncthreads_or" => self.kir.bin(cur, BinOp::Or, h, one, span),
            _ => {
                let size = self.lib_group_size(cur, span);
                let size = self.kir.resize_unfolded(cur, size, w, false, span);
                let over = self.kir.cmp(cur, CmpPred::Ugt, h, size, span);
                let capped = self.kir.select(cur, over, size, h, span);
                let zero = self.kir.cmp(cur, CmpPred::Eq, capped, Operand::konst(w, 0), span);
                let must = self.kir.bin(cur, BinOp::And, zero, pnz, span);
                self.kir.select(cur, must, one, capped, span)
            }
        }))
    }

    /// `__syncfix_async_element(n, site)`: the element this thread copies in the asynchronous
    /// copy of `n` elements at call site `site` (the OpenCL prelude's model), or `n` if none.
    /// Thread `t` of a group of `size` threads copies one arbitrary element of its share
    /// `j = t + k * size` (`k` arbitrary, `j < n`), rotated by `r`: `(j + r) mod n`, where `r`
    /// (in `[0, n)`) is an uninterpreted function of the site and the group, so the threads of
    /// a group copy different elements and every element may be copied by any of them.
    pub(super) fn lib_async_element(&mut self, args: &[LVal], at: At<'_>) -> Result<Operand, LowerError> {
        let At { cur, span, loc } = at;
        let [n, site] = self.lib_scalars::<2>("async_work_group_copy", args, loc)?;
        let n = self.kir.resize_unfolded(cur, n, 64, false, span);
        let size = self.lib_group_size(cur, span);
        let size = self.kir.resize_unfolded(cur, size, 64, false, span);
        let t = self.lib_linear_id(cur, false, span);
        let t = self.kir.resize_unfolded(cur, t, 64, false, span);
        let k = Operand::Value(self.kir.push(cur, InstKind::Havoc, 32, span));
        let k = self.kir.resize_unfolded(cur, k, 64, false, span);
        let ks = self.kir.bin(cur, BinOp::Mul, k, size, span);
        let j = self.kir.bin(cur, BinOp::Add, t, ks, span);
        let g = self.lib_linear_id(cur, true, span);
        let r =
            Operand::Value(self.kir.push(cur, InstKind::Float { func: "__syncfix_async_rotation".into(), args: vec![site, g] }, 64, span));
        let r_ok = self.kir.cmp(cur, CmpPred::Ult, r, n, span);
        let r = self.kir.select(cur, r_ok, r, Operand::konst(64, 0), span);
        let jr = self.kir.bin(cur, BinOp::Add, j, r, span);
        let wraps = self.kir.cmp(cur, CmpPred::Uge, jr, n, span);
        let jr_n = self.kir.bin(cur, BinOp::Sub, jr, n, span);
        let e = self.kir.select(cur, wraps, jr_n, jr, span);
        let mine = self.kir.cmp(cur, CmpPred::Ult, j, n, span);
        Ok(self.kir.select(cur, mine, e, n, span))
    }

    /// `__syncfix_copy_element(dst, dst_offset, src, src_offset, bytes)`: one element of an
    /// asynchronous copy (the OpenCL prelude decides which): a read of `bytes` bytes at
    /// `src + src_offset` and a write of them at `dst + dst_offset`.
    pub(super) fn lib_copy_element(&mut self, args: &[LVal], at: At<'_>) -> Result<(), LowerError> {
        let At { cur, span, loc } = at;
        let what = "async_work_group_copy";
        let dst = self.lib_pointer_arg(what, args, 0, loc)?;
        let src = self.lib_pointer_arg(what, args, 2, loc)?;
        let scalar = |i: usize| match args.get(i) {
            Some(LVal::Scalar(v)) => Ok(*v),
            _ => Err(unsupported(format!("a call to `{what}` with unexpected arguments"), loc)),
        };
        let (doff, soff) = (scalar(1)?, scalar(3)?);
        let bytes = scalar(4)?
            .as_const()
            .filter(|b| (1..=128).contains(b))
            .ok_or_else(|| unsupported(format!("`{what}` of elements whose size is not known"), loc))? as u32;
        let doff = self.kir.resize_unfolded(cur, doff, 64, false, span);
        let soff = self.kir.resize_unfolded(cur, soff, 64, false, span);
        let d = self.kir.bin(cur, BinOp::Add, dst.offset, doff, span);
        let s = self.kir.bin(cur, BinOp::Add, src.offset, soff, span);
        let v =
            self.kir.push(cur, InstKind::Load { ptr: Pointer { object: src.object, offset: s }, width: bytes }, (bytes * 8) as u16, span);
        self.kir.push(
            cur,
            InstKind::Store { ptr: Pointer { object: dst.object, offset: d }, value: Operand::Value(v), width: bytes },
            0,
            span,
        );
        // The copy completes at the wait, not at a barrier.
        self.kir.push(cur, InstKind::AsyncPending { object: dst.object }, 0, span);
        Ok(())
    }

    /// The number of threads in a block (32 bits).
    pub(super) fn lib_group_size(&mut self, cur: BlockId, span: &Span) -> Operand {
        if let Some(n) = self.kir.k.launch.threads_per_block() {
            return Operand::konst(32, n as u128);
        }
        let mut acc = Operand::konst(32, 1);
        for d in 0..3u8 {
            let size = self.kir.launch_size(cur, false, d, span);
            acc = self.kir.bin(cur, BinOp::Mul, acc, size, span);
        }
        acc
    }

    /// The thread's linear id in its block, or (`group`) its block's linear id in the grid
    /// (32 bits): `x + X * (y + Y * z)`.
    pub(crate) fn lib_linear_id(&mut self, cur: BlockId, group: bool, span: &Span) -> Operand {
        let dims = if group { self.kir.k.launch.grid_dim } else { self.kir.k.launch.block_dim };
        let mut acc = Operand::konst(32, 0);
        for d in (0..3u8).rev() {
            let id = if dims[d as usize] != 1 {
                let b = if group { Builtin::GroupId(d) } else { Builtin::LocalId(d) };
                Operand::Value(self.kir.push(cur, InstKind::Builtin(b), 32, span))
            } else {
                Operand::konst(32, 0)
            };
            let scaled = match dims[d as usize] {
                0 => {
                    let size = self.kir.launch_size(cur, group, d, span);
                    self.kir.bin(cur, BinOp::Mul, acc, size, span)
                }
                n => self.kir.bin(cur, BinOp::Mul, acc, Operand::konst(32, n as u128), span),
            };
            acc = self.kir.bin(cur, BinOp::Add, scaled, id, span);
        }
        acc
    }
}
