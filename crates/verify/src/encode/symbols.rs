//! The launch's symbols: the block and grid sizes, the two threads' ids, and the facts about
//! them that every query assumes.

use super::encoding::ThreadSyms;
use crate::memory::Mem;
use crate::term::{and, or, Term};
use crate::VerifyOptions;
use std::collections::BTreeMap;
use syncfix_kir::{EntityRef, Kernel, VarId};
use z3::ast::{Array, Ast, Bool, Dynamic, BV};
use z3::{Context, FuncDecl, Sort};

/// The constants a kernel's encoding is made of: the barrier variables, the launch's sizes and
/// the two threads' ids with the facts about them (`background`), the kernel's scalar
/// parameters, the uninterpreted functions of floating-point operations, and the fresh
/// constants (each made once, named by a counter that only grows: `stamp`).
pub(crate) struct Symbols<'ctx> {
    ctx: &'ctx Context,
    /// One Boolean constant per barrier variable (`b0`, `b1`, ...).
    vars: Vec<Bool<'ctx>>,
    /// The two threads' local and group ids.
    tid: [ThreadSyms<'ctx>; 2],
    /// Block and grid sizes per dimension (constants, or symbols for `*`).
    sizes: [[BV<'ctx>; 3]; 2],
    /// Both threads are in one group.
    same_group: Bool<'ctx>,
    /// `--warp-sync`: both threads are in one warp.
    same_warp: Option<Bool<'ctx>>,
    /// The facts every solver holds ([`super::Encoding::background`]).
    background: Vec<Bool<'ctx>>,
    /// The kernel's scalar parameters, by index: one constant each, shared by both threads.
    params: BTreeMap<usize, Term<'ctx>>,
    /// The uninterpreted functions standing for floating-point operations, by key
    /// (`func:[argument widths]:width`).
    uninterpreted: BTreeMap<String, FuncDecl<'ctx>>,
    /// How many fresh constants were made so far (their names' counter).
    fresh: u32,
    /// While loop bodies are encoded, the fresh constants they create (a cut's ghost copy of
    /// an earlier iteration renames them), innermost last.
    frames: Vec<Vec<Dynamic<'ctx>>>,
    /// The divisions by a constant made so far without a divider ([`crate::divide`]), by
    /// operation, dividend and divisor: their result and the fresh quotient's definition. The
    /// same division of the same term reads the same quotient, so that a formula evaluated
    /// twice on one state is the same term twice (a loop's invariant at its head and in the
    /// case of an iteration that logged nothing: `loops/head.rs`).
    quotients: std::collections::HashMap<(crate::divide::DivOp, BV<'ctx>, u64), (BV<'ctx>, Option<Bool<'ctx>>)>,
}

impl<'ctx> Symbols<'ctx> {
    /// The barrier variables (`num_vars`), then the launch's symbols and the facts about them
    /// (the parameters come with [`Symbols::init_params`]).
    pub(super) fn new(ctx: &'ctx Context, k: &Kernel, num_vars: usize, opts: &VerifyOptions) -> Self {
        let vars = (0..num_vars).map(|i| Bool::new_const(ctx, format!("b{i}"))).collect();
        let (sizes, tid) = launch_symbols(ctx, k.launch, opts.only_intra_group);
        let (background, same_group) = launch_facts(ctx, k, &sizes, &tid);
        let same_warp = opts.warp_size.filter(|w| *w > 0).map(|w| {
            // Warps are runs of `w` consecutive linear local ids (x fastest).
            let lin = |t: &ThreadSyms<'ctx>| linear_id(&t.local, &sizes[0]);
            let wv = BV::from_u64(ctx, w as u64, 32);
            let same = lin(&tid[0]).bvudiv(&wv)._eq(&lin(&tid[1]).bvudiv(&wv));
            Bool::and(ctx, &[&same_group, &same]).simplify()
        });
        Symbols {
            ctx,
            vars,
            tid,
            sizes,
            same_group,
            same_warp,
            background,
            params: BTreeMap::new(),
            uninterpreted: BTreeMap::new(),
            fresh: 0,
            frames: Vec::new(),
            quotients: Default::default(),
        }
    }

    /// The barrier variables' constants, by variable.
    pub(crate) fn vars(&self) -> &[Bool<'ctx>] {
        &self.vars
    }

    /// Barrier variable `v`'s constant.
    pub(super) fn var(&self, v: VarId) -> &Bool<'ctx> {
        &self.vars[v.index()]
    }

    /// Thread `t`'s ids.
    pub(crate) fn tid(&self, t: usize) -> &ThreadSyms<'ctx> {
        &self.tid[t]
    }

    /// Block (`[0]`) and grid (`[1]`) sizes per dimension.
    pub(crate) fn sizes(&self) -> &[[BV<'ctx>; 3]; 2] {
        &self.sizes
    }

    /// Both threads are in one group.
    pub(crate) fn same_group(&self) -> &Bool<'ctx> {
        &self.same_group
    }

    /// `--warp-sync`: both threads are in one warp.
    pub(super) fn same_warp(&self) -> Option<&Bool<'ctx>> {
        self.same_warp.as_ref()
    }

    /// The facts every solver holds.
    pub(crate) fn background(&self) -> &[Bool<'ctx>] {
        &self.background
    }

    /// Adds a fact every solver holds (an assumption at the kernel's entry).
    pub(super) fn add_background(&mut self, fact: Bool<'ctx>) {
        self.background.push(fact);
    }

    /// The kernel's scalar parameters: one constant each, shared by both threads (never
    /// renamed by a loop cut's ghost copy).
    pub(super) fn init_params(&mut self, k: &Kernel) {
        for (index, p) in k.params.iter().enumerate() {
            if let syncfix_kir::ParamKind::Scalar { width } = p.kind {
                let v = if width == 1 {
                    Term::B(Bool::new_const(self.ctx, p.name.as_str()))
                } else {
                    Term::V(BV::new_const(self.ctx, p.name.as_str(), width as u32))
                };
                self.params.insert(index, v);
            }
        }
    }

    /// The kernel's scalar parameters' constants, by index.
    pub(crate) fn params(&self) -> &BTreeMap<usize, Term<'ctx>> {
        &self.params
    }

    /// Parameter `index`'s constant, if made.
    pub(super) fn known_param(&self, index: usize) -> Option<&Term<'ctx>> {
        self.params.get(&index)
    }

    /// Parameter `index`'s constant (`width` bits), made with `name` if not yet.
    pub(super) fn param(&mut self, index: usize, width: u16, name: impl FnOnce() -> String) -> Term<'ctx> {
        let ctx = self.ctx;
        match self.params.get(&index) {
            Some(v) => v.clone(),
            None => {
                let name = name();
                let v = if width == 1 { Term::B(Bool::new_const(ctx, name)) } else { Term::V(BV::new_const(ctx, name, width as u32)) };
                self.params.insert(index, v.clone());
                v
            }
        }
    }

    /// The uninterpreted function for `func` of arguments of `widths` bits to `width` bits
    /// (declared once); returns its key ([`Symbols::apply`]).
    pub(super) fn uninterpreted(&mut self, func: &str, widths: &[u16], width: u16) -> String {
        let ctx = self.ctx;
        let key = format!("{func}:{widths:?}:{width}");
        if self.uninterpreted.contains_key(&key) {
            return key;
        }
        let sort = |w: u16| if w == 1 { Sort::bool(ctx) } else { Sort::bitvector(ctx, w as u32) };
        let dom: Vec<Sort<'ctx>> = widths.iter().map(|w| sort(*w)).collect();
        let dom_refs: Vec<&Sort<'ctx>> = dom.iter().collect();
        let f = FuncDecl::new(ctx, key.clone(), &dom_refs, &sort(width));
        self.uninterpreted.insert(key.clone(), f);
        key
    }

    /// The uninterpreted function of key `key` applied to `args`.
    pub(super) fn apply(&self, key: &str, args: &[&dyn Ast<'ctx>]) -> Dynamic<'ctx> {
        self.uninterpreted[key].apply(args)
    }

    // ---- fresh constants -------------------------------------------------------------

    /// A count of the fresh constants made so far: a formula built now mentions none made
    /// later (never reset, not even when an unrolling is undone, so the names stay unique).
    pub(super) fn stamp(&self) -> u32 {
        self.fresh
    }

    fn record(&mut self, d: Dynamic<'ctx>) {
        if let Some(f) = self.frames.last_mut() {
            f.push(d);
        }
    }

    fn fresh_name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}!{}", self.fresh)
    }

    /// A fresh Boolean constant.
    pub(super) fn fresh_bool(&mut self, prefix: &str) -> Bool<'ctx> {
        let name = self.fresh_name(prefix);
        let b = Bool::new_const(self.ctx, name);
        self.record(Dynamic::from_ast(&b));
        b
    }

    /// A fresh bit-vector constant of `bits` bits.
    pub(super) fn fresh_bv(&mut self, prefix: &str, bits: u32) -> BV<'ctx> {
        let name = self.fresh_name(prefix);
        let v = BV::new_const(self.ctx, name, bits);
        self.record(Dynamic::from_ast(&v));
        v
    }

    /// A fresh value of an instruction's width (a Boolean for width 1).
    pub(super) fn fresh_term(&mut self, prefix: &str, width: u16) -> Term<'ctx> {
        if width == 1 {
            Term::B(self.fresh_bool(prefix))
        } else {
            Term::V(self.fresh_bv(prefix, width as u32))
        }
    }

    /// A fresh array with arbitrary contents.
    pub(super) fn fresh_mem(&mut self, name: &str, granule: u32) -> Mem<'ctx> {
        let name = self.fresh_name(name);
        let dom = Sort::bitvector(self.ctx, 64);
        let rng = Sort::bitvector(self.ctx, granule * 8);
        let arr = Array::new_const(self.ctx, name, &dom, &rng);
        self.record(Dynamic::from_ast(&arr));
        Mem { arr, granule, table: None }
    }

    /// A fresh constant of `d`'s sort.
    pub(super) fn fresh_like(&mut self, d: &Dynamic<'ctx>, prefix: &str) -> Dynamic<'ctx> {
        let name = self.fresh_name(prefix);
        let g = FuncDecl::new(self.ctx, name, &[], &d.get_sort()).apply(&[]);
        self.record(g.clone());
        g
    }

    /// Starts recording the fresh constants created from here on.
    pub(super) fn push_fresh_frame(&mut self) {
        self.frames.push(Vec::new());
    }

    /// Stops recording; returns what this frame recorded (the enclosing frame keeps them too).
    pub(super) fn pop_fresh_frame(&mut self) -> Vec<Dynamic<'ctx>> {
        let f = self.frames.pop().unwrap_or_default();
        if let Some(outer) = self.frames.last_mut() {
            outer.extend(f.iter().cloned());
        }
        f
    }

    /// How many constants each recording frame holds (to undo an unrolling attempt,
    /// [`Symbols::forget_since`]).
    pub(super) fn frames_mark(&self) -> Vec<usize> {
        self.frames.iter().map(|f| f.len()).collect()
    }

    /// Forgets what the recording frames recorded since `mark` (the constants stay made: the
    /// counter is never reset, so the names stay unique).
    pub(super) fn forget_since(&mut self, mark: Vec<usize>) {
        for (f, n) in self.frames.iter_mut().zip(mark) {
            f.truncate(n);
        }
        // A quotient made since is no longer recorded where a ghost copy would rename it.
        self.quotients.clear();
    }

    /// `x op d` by the constant `d` without a divider ([`crate::divide::by_constant`]): the
    /// result and the definition of its fresh quotient, the same ones for the same `op`, `x`
    /// and `d` (the definition holds of exactly one quotient for each `x`, so sharing it
    /// excludes nothing). `None` where the divider is kept.
    pub(super) fn divide_by_constant(&mut self, op: crate::divide::DivOp, x: &BV<'ctx>, d: u64) -> Option<(BV<'ctx>, Option<Bool<'ctx>>)> {
        let key = (op, x.clone(), d);
        if let Some(r) = self.quotients.get(&key) {
            return Some(r.clone());
        }
        let r = crate::divide::by_constant(self.ctx, op, x, d, |w| self.fresh_bv("quotient", w))?;
        self.quotients.insert(key, r.clone());
        Some(r)
    }
}

/// The launch's sizes (`[block, grid]`: constants, or GPUVerify's `*` as symbols the same for
/// both threads) and the two threads' local and group ids (a dimension of size 1: zero).
/// `only_intra_group`: both threads in one group.
fn launch_symbols<'ctx>(ctx: &'ctx Context, l: syncfix_kir::Launch, only_intra_group: bool) -> ([[BV<'ctx>; 3]; 2], [ThreadSyms<'ctx>; 2]) {
    let dims = |n: &str, t: usize, size: [u32; 3]| -> [BV<'ctx>; 3] {
        std::array::from_fn(|d| {
            if size[d] == 1 {
                BV::from_u64(ctx, 0, 32)
            } else {
                BV::new_const(ctx, format!("{n}{}${}", ["x", "y", "z"][d], t + 1), 32)
            }
        })
    };
    let size = |n: &str, v: [u32; 3]| -> [BV<'ctx>; 3] {
        std::array::from_fn(|d| match v[d] {
            0 => BV::new_const(ctx, format!("{n}{}", ["x", "y", "z"][d]), 32),
            v => BV::from_u64(ctx, v as u64, 32),
        })
    };
    let sizes = [size("group_size_", l.block_dim), size("num_groups_", l.grid_dim)];
    let local = [dims("local_id_", 0, l.block_dim), dims("local_id_", 1, l.block_dim)];
    let group = if only_intra_group {
        let g = dims("group_id_", 0, l.grid_dim);
        [g.clone(), g]
    } else {
        [dims("group_id_", 0, l.grid_dim), dims("group_id_", 1, l.grid_dim)]
    };
    let [l1, l2] = local;
    let [g1, g2] = group;
    (sizes, [ThreadSyms { local: l1, group: g1 }, ThreadSyms { local: l2, group: g2 }])
}

/// The facts about the launch that every query assumes: each id below its size, symbolic
/// sizes positive and within 32 bits of threads per dimension (GPUVerify's), CUDA's limits
/// on a launch, global ids equal only for equal ids, and the two threads distinct; and the
/// condition that both threads are in one group.
fn launch_facts<'ctx>(
    ctx: &'ctx Context,
    k: &Kernel,
    sizes: &[[BV<'ctx>; 3]; 2],
    tid: &[ThreadSyms<'ctx>; 2],
) -> (Vec<Bool<'ctx>>, Bool<'ctx>) {
    let l = k.launch;
    // Ranges and distinctness.
    let mut bg: Vec<Bool<'ctx>> = Vec::new();
    for t in tid {
        for d in 0..3 {
            if l.block_dim[d] != 1 {
                bg.push(t.local[d].bvult(&sizes[0][d]));
            }
            if l.grid_dim[d] != 1 {
                bg.push(t.group[d].bvult(&sizes[1][d]));
            }
        }
    }
    // Symbolic sizes: positive, and the grid's threads per dimension fit in 32 bits (or
    // are the fixed global size), as GPUVerify assumes.
    for d in 0..3 {
        if l.block_dim[d] == 0 || l.grid_dim[d] == 0 {
            let zero = BV::from_u64(ctx, 0, 32);
            bg.push(sizes[0][d].bvugt(&zero));
            bg.push(sizes[1][d].bvugt(&zero));
            bg.push(sizes[0][d].bvmul_no_overflow(&sizes[1][d], false));
            if l.global_dim[d] != 0 {
                bg.push(sizes[0][d].bvmul(&sizes[1][d])._eq(&BV::from_u64(ctx, l.global_dim[d] as u64, 32)));
            }
        }
    }
    // CUDA's limits on a launch (Programming Guide, "Technical Specifications per Compute
    // Capability", every capability since 2.0): at most 1024 threads per block, 1024 in x
    // and y and 64 in z; at most 2^31 - 1 blocks in x and 65535 in y and z. A launch beyond
    // them fails, so no kernel runs with such sizes. OpenCL's limits are the device's
    // (`CL_DEVICE_MAX_WORK_GROUP_SIZE`): none is assumed there.
    if k.language == syncfix_kir::Language::Cuda {
        let c = |v: u64| BV::from_u64(ctx, v, 32);
        for (d, (block, grid)) in [(1024, 0x7fff_ffff), (1024, 65535), (64, 65535)].into_iter().enumerate() {
            if l.block_dim[d] == 0 {
                bg.push(sizes[0][d].bvule(&c(block)));
            }
            if l.grid_dim[d] == 0 {
                bg.push(sizes[1][d].bvule(&c(grid)));
            }
        }
        if l.block_dim.contains(&0) {
            // Each factor is at most 1024, so the product fits in 32 bits.
            let threads = sizes[0][0].bvmul(&sizes[0][1]).bvmul(&sizes[0][2]);
            bg.push(threads.bvule(&c(1024)));
        }
    }
    // A fact about symbolic sizes that bit-vector solvers find hard (32-bit products):
    // global ids `g * L + l` (as the front end builds them) of two threads are equal only
    // when their group and local ids are (`l < L` and no overflow, both asserted above).
    for d in 0..3 {
        if l.block_dim[d] == 0 || l.grid_dim[d] == 0 {
            let gid = |t: &ThreadSyms<'ctx>| t.group[d].bvmul(&sizes[0][d]).bvadd(&t.local[d]);
            let same_ids = Bool::and(ctx, &[&tid[0].group[d]._eq(&tid[1].group[d]), &tid[0].local[d]._eq(&tid[1].local[d])]);
            bg.push(gid(&tid[0])._eq(&gid(&tid[1])).implies(&same_ids));
        }
    }
    let same: Vec<Bool<'ctx>> = (0..3).map(|d| tid[0].group[d]._eq(&tid[1].group[d])).collect();
    let same_group = and(ctx, &same.iter().collect::<Vec<_>>()).simplify();
    let mut differ: Vec<Bool<'ctx>> = (0..3).map(|d| tid[0].local[d]._eq(&tid[1].local[d]).not()).collect();
    differ.push(same_group.not());
    bg.push(or(ctx, &differ.iter().collect::<Vec<_>>()));
    (bg, same_group)
}

/// The linear id `x + y*bx + z*bx*by` of local ids `ids` in a block of `block` threads per
/// dimension (32 bits): what warps and tiles are made of.
pub(super) fn linear_id<'ctx>(ids: &[BV<'ctx>; 3], block: &[BV<'ctx>; 3]) -> BV<'ctx> {
    let (bx, by) = (&block[0], &block[1]);
    ids[0].bvadd(&ids[1].bvmul(bx)).bvadd(&ids[2].bvmul(bx).bvmul(by))
}
