//! Instrumentation (ARCHITECTURE.md, "crates/instrument"; GPURepair, Joshi & Muduganti, VMCAI 2021, §2.2).
//!
//! Candidate barrier *sites* are chosen among the source statement boundaries the front end
//! left in KIR ([`syncfix_kir::Anchor`]), so that every site can be printed:
//! - *access points*: before a statement that accesses shared or global memory that is
//!   written somewhere (directly, or through a call: the call statement), and between the
//!   read and the write of an assignment whose right-hand side reads such memory, and
//!   between the bytes of a copy call statement (`memcpy(d, s, n);`, printed as the copy in
//!   steps);
//! - *scope boundaries*: before a conditional statement whose arms contain sites, and before a
//!   loop and at the start of its body, for loops containing sites; and at the end of a loop's
//!   braced body when it ends with a conditional or a loop (after a plain statement the next
//!   iteration's start and the statement after the loop are the same program points); before
//!   an early return (`if (c) return;`) that sites follow in its block.
//!
//! Each site gets a Boolean barrier variable per scope (block, a grid twin for CUDA kernels
//! with more than one block, and a warp twin, `__syncwarp()`, for CUDA kernels whose blocks hold
//! more than one warp: it orders only threads of one warp, and is preferred where that is
//! enough); an OpenCL site gets three block variables, for
//! `CLK_LOCAL_MEM_FENCE`, `CLK_GLOBAL_MEM_FENCE` and both, so that a repair fences only the
//! memory that races. A variable belongs to a source anchor, not to an
//! inlined copy: all copies of a site in a `__device__` function share it, weighted at the
//! deepest loop depth among them. Existing block and grid barriers are guarded by variables
//! too (unless `--disable-inspect`), so the repair may remove them, except those that carry
//! barrier invariants (`__barrier_invariant`); tile barriers
//! (`__syncwarp`, cooperative groups' tiles) stay as written. Weight of a site:
//! `sw*lw^depth + gw*[grid]` (GPURepair §2.4, where `sw` = 1), `sw` the scope's weight
//! (`block_barrier_weight`, `warp_barrier_weight`; both 1 by default, so that weights stay
//! GPURepair's weights, and at equal weight the repair prefers the warp barrier).
//!
//! OpenCL kernels with asynchronous copies (`async_work_group_copy`) get *wait-then-barrier*
//! variables as well: a barrier does not order a copy's accesses until the work-item waits for
//! it, so a site (and each of the user's barriers) gets twins that run `wait_group_events` for
//! the copies pending there (their events as the source names them,
//! [`syncfix_kir::StmtTable::pending_events`]) and then the barrier; they weigh
//! `async_wait_weight` more. None where a pending copy keeps no event in a variable.

use std::collections::{BTreeMap, BTreeSet};
use syncfix_kir::{
    Barrier, BarrierOrigin, Cfg, EntityRef, Fences, FileId, Guard, InstKind, Kernel, Language, LogKind, ObjectId, Scope, SecondaryMap,
    Space, StmtId, StmtKind, TileMask, VarId,
};
pub use syncfix_options::RepairOptions;

/// How a barrier variable's barrier is printed.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum SiteKind {
    /// A new barrier just before the statement.
    Before,
    /// A new barrier between the read and the write of the assignment statement.
    Split,
    /// A new barrier at the end of the loop statement's braced body (before its `}`).
    End,
    /// A new barrier inside the copy call statement, between the bytes it copies before this
    /// byte offset and those from it on (the copy printed in steps).
    Step(u32),
    /// The user's barrier statement itself (disabling it removes the statement).
    Existing,
}

/// A barrier variable of the instrumented kernel.
#[derive(Clone, Debug)]
pub struct BarrierVar {
    pub id: VarId,
    /// The source anchor.
    pub stmt: StmtId,
    pub kind: SiteKind,
    pub scope: Scope,
    /// The memory the barrier orders. A new OpenCL site is three variables of the same weight,
    /// fencing local memory, global memory, or both (the repair's tie-break prefers fewer
    /// flags), so that a barrier fences only the memory whose races it separates; CUDA's
    /// barriers and the user's keep their own.
    pub fences: Fences,
    /// Deepest loop nesting depth among the site's inlined copies.
    pub depth: u32,
    /// GPURepair's weight `lw^depth + gw*[grid]`.
    pub weight: u64,
    /// The anchor lies in a `__device__` function rather than in the kernel.
    pub in_callee: bool,
    /// A wait-then-barrier site: `wait_group_events` for the asynchronous copies pending at
    /// the statement, then the barrier (OpenCL, [`SiteKind::Before`] only). At one of the
    /// user's barriers (same statement, same fences) it adds only the wait.
    pub waits: bool,
}

/// Instrumentation settings (GPURepair's flags; defaults from `configs/default.toml`).
#[derive(Clone, Debug)]
pub struct InstrumentConfig {
    /// Add candidate sites (repair); `false` only guards existing barriers (or nothing).
    pub new_sites: bool,
    /// The repair's knobs, of which the instrumenter reads the sites' kinds and weights:
    /// `disable_grid` (no grid-barrier twins), `disable_inspect` (existing barriers stay on,
    /// unguarded), the weights `lw`, `gw`, `sw` of block and warp barriers and a wait's
    /// (a barrier's weight is `sw * lw^depth + gw * [grid]`, GPURepair, VMCAI 2021, §2.3),
    /// `warp_barriers` (offer `__syncwarp()` twins in CUDA blocks of more than one warp) and
    /// `warp_size` (a warp twin orders the pairs of threads whose linear thread ids
    /// `x + y*bx + z*bx*by` divided by it are equal).
    pub options: RepairOptions,
}

/// New sites on, with the options of `configs/default.toml`.
impl Default for InstrumentConfig {
    fn default() -> Self {
        InstrumentConfig { new_sites: true, options: RepairOptions::default() }
    }
}

impl InstrumentConfig {
    /// No instrumentation at all: the kernel as written (`syncfix verify`).
    pub fn verify_only() -> Self {
        InstrumentConfig { new_sites: false, options: RepairOptions { disable_inspect: true, ..RepairOptions::default() } }
    }
}

/// An instrumented kernel: barriers guarded by variables `0..vars.len()`.
#[derive(Clone, Debug)]
pub struct Instrumented {
    pub kernel: Kernel,
    pub vars: Vec<BarrierVar>,
}

impl Instrumented {
    /// The assignment that leaves the kernel as the user wrote it: existing barriers on, new
    /// sites off.
    pub fn original_assignment(&self) -> Vec<bool> {
        self.vars.iter().map(|v| v.kind == SiteKind::Existing).collect()
    }

    /// The byte offset in the main file where variable `v`'s barrier stands: the start of its
    /// statement, or, for the end of a loop body, the body's closing `}`.
    pub fn site_offset(&self, v: &BarrierVar) -> usize {
        let r = self.kernel.stmts.stmts[v.stmt].range;
        if v.kind == SiteKind::End {
            r.end.saturating_sub(1)
        } else {
            r.start
        }
    }

    /// A readable table of the variables (for `--emit=instrumented`).
    pub fn describe_vars(&self) -> String {
        self.describe_vars_at(|st| {
            let (line, col) = self.kernel.main_file().line_col(self.kernel.stmts.stmts[st].range.start);
            format!("{line}:{col} ({st})")
        })
    }

    /// [`Instrumented::describe_vars`] with each site's statement named by its id alone
    /// (`at stmt2`), for a kernel without its source text (the instrumenter's file tests).
    pub fn describe_vars_by_statement(&self) -> String {
        self.describe_vars_at(|st| st.to_string())
    }

    fn describe_vars_at(&self, at: impl Fn(syncfix_kir::StmtId) -> String) -> String {
        let mut s = String::new();
        for v in &self.vars {
            s.push_str(&format!(
                "  {} = {:?}{} {:?} at {}, depth {}, weight {}{}\n",
                v.id,
                v.kind,
                if v.waits { " wait" } else { "" },
                v.scope,
                at(v.stmt),
                v.depth,
                v.weight,
                if v.in_callee { ", in a callee" } else { "" }
            ));
        }
        s
    }
}

/// Instruments `k` (a kernel from the front end).
pub fn instrument(k: &Kernel, cfg: &InstrumentConfig) -> Instrumented {
    let mut out = k.clone();
    let loops = Cfg::compute(k).ok();
    let depth_of = |b| loops.as_ref().map_or(0, |c| c.depth(b));
    let grid = cfg.new_sites && !cfg.options.disable_grid && k.language == Language::Cuda && k.multi_block();
    let chosen = if cfg.new_sites { choose_sites(k) } else { BTreeSet::new() };
    // Warp twins where a block holds more than one warp (in a block of one warp, a warp
    // barrier ties the code to that block size for no gain).
    let warp_scope = Scope::Tile { size: cfg.options.warp_size.max(1), mask: TileMask::FULL };
    let warp = cfg.new_sites
        && cfg.options.warp_barriers
        && k.language == Language::Cuda
        && k.launch.threads_per_block().is_some_and(|n| n > cfg.options.warp_size.max(1) as u64);

    // A barrier that carries barrier invariants (`__barrier_invariant` before it) is the
    // user's claim about that program point: it is never removed.
    let with_invariants = barriers_with_invariants(k);
    // Variables, keyed by (statement, kind, scope, fences), created in a deterministic order.
    // Wait-then-barrier twins: OpenCL kernels with asynchronous copies, at statements where
    // a wait can name every pending copy's event.
    let has_async = k.insts.iter().any(|(_, i)| matches!(i.kind, InstKind::AsyncPending { .. }));
    let text = k.main_file().text.as_deref();
    let waits_at = |s: StmtId| -> bool {
        cfg.new_sites
            && has_async
            && k.language == Language::OpenCl
            && text.and_then(|t| k.stmts.pending_events(t, s)).is_some_and(|e| !e.is_empty())
    };
    let fences_of = |i: &syncfix_kir::Inst| match &i.kind {
        InstKind::Barrier(b) => Some(b.fences),
        _ => None,
    };
    let new_fences: &[FenceSel] =
        if k.language == Language::OpenCl { &[FenceSel::Local, FenceSel::Global, FenceSel::All] } else { &[FenceSel::All] };
    let mut keys: BTreeMap<Key, (u32, bool)> = BTreeMap::new();
    for (_, inst) in k.insts.iter() {
        let d = depth_of(inst.block);
        match &inst.kind {
            InstKind::Anchor(a) if chosen.contains(&(a.stmt, site_kind(a))) => {
                let kind = site_kind(a);
                for &f in new_fences {
                    let e = keys.entry((a.stmt, kind, Scope::Block, f, false)).or_insert((0, false));
                    e.0 = e.0.max(d);
                }
                if grid {
                    let e = keys.entry((a.stmt, kind, Scope::Grid, FenceSel::All, false)).or_insert((0, false));
                    e.0 = e.0.max(d);
                }
                if warp {
                    let e = keys.entry((a.stmt, kind, warp_scope, FenceSel::All, false)).or_insert((0, false));
                    e.0 = e.0.max(d);
                }
                if kind == SiteKind::Before && waits_at(a.stmt) {
                    for &f in new_fences {
                        let e = keys.entry((a.stmt, kind, Scope::Block, f, true)).or_insert((0, false));
                        e.0 = e.0.max(d);
                    }
                }
            }
            InstKind::Barrier(Barrier { origin: BarrierOrigin::Existing { stmt: Some(s) }, scope, .. })
                if !cfg.options.disable_inspect && !is_tile(*scope) && !with_invariants.contains(s) =>
            {
                let e = keys.entry((*s, SiteKind::Existing, *scope, FenceSel::Own, false)).or_insert((0, false));
                e.0 = e.0.max(d);
                if grid && *scope == Scope::Block {
                    let e = keys.entry((*s, SiteKind::Before, Scope::Grid, FenceSel::All, false)).or_insert((0, false));
                    e.0 = e.0.max(d);
                }
                if *scope == Scope::Block && matches!(fences_of(inst), Some(Fences::Const { .. })) && waits_at(*s) {
                    let e = keys.entry((*s, SiteKind::Before, Scope::Block, FenceSel::Own, true)).or_insert((0, false));
                    e.0 = e.0.max(d);
                }
            }
            _ => {}
        }
    }
    let (vars, id_of) = barrier_vars(k, cfg, &keys);

    // Rewrite the blocks: chosen anchors become guarded candidate barriers; other anchors go.
    let blocks: Vec<_> = out.blocks.keys().collect();
    for b in blocks {
        let old = std::mem::take(&mut out.blocks[b].insts);
        let mut new = Vec::with_capacity(old.len());
        for i in old {
            let inst = out.insts[i].clone();
            match &inst.kind {
                InstKind::Anchor(a) => {
                    let kind = site_kind(a);
                    if !chosen.contains(&(a.stmt, kind)) {
                        continue;
                    }
                    let others = [(Scope::Grid, FenceSel::All, false), (warp_scope, FenceSel::All, false)];
                    let plain = new_fences.iter().map(|f| (Scope::Block, *f, false));
                    let waiting = new_fences.iter().map(|f| (Scope::Block, *f, true));
                    for (scope, sel, waits) in plain.chain(others).chain(waiting) {
                        if let Some(v) = id_of.get(&(a.stmt, kind, scope, sel, waits)) {
                            let fences = vars[v.index()].fences;
                            if waits {
                                new.push(out.make_inst(b, InstKind::AsyncWait { guard: Guard::Var(*v) }, 0, inst.span.clone()));
                            }
                            let bar = Barrier { scope, fences, guard: Guard::Var(*v), origin: BarrierOrigin::Candidate };
                            new.push(out.make_inst(b, InstKind::Barrier(bar), 0, inst.span.clone()));
                        }
                    }
                }
                InstKind::Barrier(bar @ Barrier { origin: BarrierOrigin::Existing { stmt: Some(s) }, .. })
                    if !cfg.options.disable_inspect && !is_tile(bar.scope) && !with_invariants.contains(s) =>
                {
                    let mut bar = *bar;
                    // A wait-then-barrier twin just before the user's barrier.
                    if let Some(v) = id_of.get(&(*s, SiteKind::Before, Scope::Block, FenceSel::Own, true)) {
                        new.push(out.make_inst(b, InstKind::AsyncWait { guard: Guard::Var(*v) }, 0, inst.span.clone()));
                        let twin = Barrier { guard: Guard::Var(*v), origin: BarrierOrigin::Candidate, ..bar };
                        new.push(out.make_inst(b, InstKind::Barrier(twin), 0, inst.span.clone()));
                    }
                    if let Some(v) = id_of.get(&(*s, SiteKind::Existing, bar.scope, FenceSel::Own, false)) {
                        bar.guard = Guard::Var(*v);
                    }
                    out.insts[i].kind = InstKind::Barrier(bar);
                    new.push(i);
                    if bar.scope == Scope::Block {
                        if let Some(v) = id_of.get(&(*s, SiteKind::Before, Scope::Grid, FenceSel::All, false)) {
                            let twin = Barrier {
                                scope: Scope::Grid,
                                fences: Fences::ALL,
                                guard: Guard::Var(*v),
                                origin: BarrierOrigin::Candidate,
                            };
                            new.push(out.make_inst(b, InstKind::Barrier(twin), 0, inst.span.clone()));
                        }
                    }
                }
                _ => new.push(i),
            }
        }
        out.blocks[b].insts = new;
    }
    Instrumented { kernel: out, vars }
}

/// The barrier variables of the sites `keys` (each with the loop depth of its deepest
/// instance), in the keys' order: weights from `cfg` (GPURepair's, VMCAI 2021 §2.4: a block
/// or warp barrier's weight times the loop-depth weight to the depth, plus the grid and
/// wait surcharges), fences from the site's selection; and each key's variable.
fn barrier_vars(k: &Kernel, cfg: &InstrumentConfig, keys: &BTreeMap<Key, (u32, bool)>) -> (Vec<BarrierVar>, BTreeMap<Key, VarId>) {
    let mut vars = Vec::new();
    let mut id_of: BTreeMap<Key, VarId> = BTreeMap::new();
    let own_fences = existing_fences(k);
    for ((stmt, kind, scope, sel, waits), (depth, _)) in keys {
        let id = VarId::new(vars.len());
        let scope_weight = if is_tile(*scope) { cfg.options.warp_barrier_weight } else { cfg.options.block_barrier_weight };
        let weight = scope_weight.saturating_mul(cfg.options.loop_depth_weight.saturating_pow(*depth))
            + if *scope == Scope::Grid { cfg.options.grid_barrier_weight } else { 0 }
            + if *waits { cfg.options.async_wait_weight } else { 0 };
        vars.push(BarrierVar {
            id,
            stmt: *stmt,
            kind: *kind,
            scope: *scope,
            fences: match sel {
                FenceSel::All => Fences::ALL,
                FenceSel::Local => Fences::Const { local: true, global: false },
                FenceSel::Global => Fences::Const { local: false, global: true },
                FenceSel::Own => own_fences.get(stmt).copied().unwrap_or(Fences::ALL),
            },
            depth: *depth,
            weight,
            in_callee: k.stmts.stmts[*stmt].function != k.name,
            waits: *waits,
        });
        id_of.insert((*stmt, *kind, *scope, *sel, *waits), id);
    }
    (vars, id_of)
}

/// A variable's identity: (statement, kind, scope, fences, waits first).
type Key = (StmtId, SiteKind, Scope, FenceSel, bool);

/// Which fences a variable's barrier has (see [`BarrierVar::fences`]).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum FenceSel {
    /// Local and global memory (CUDA's barriers, grid twins).
    All,
    /// OpenCL `CLK_LOCAL_MEM_FENCE`.
    Local,
    /// OpenCL `CLK_GLOBAL_MEM_FENCE`.
    Global,
    /// An existing barrier's own flags.
    Own,
}

/// The user's barrier statements that carry barrier invariants: the checks of those
/// invariants come just before the barrier (see the front end's `with_barrier_invariants`).
fn barriers_with_invariants(k: &Kernel) -> BTreeSet<StmtId> {
    let mut out = BTreeSet::new();
    for (_, blk) in k.blocks.iter() {
        let mut after_invariant = false;
        for i in &blk.insts {
            match &k.insts[*i].kind {
                InstKind::Assert { kind: syncfix_kir::AssertKind::BarrierInvariant, .. } => after_invariant = true,
                InstKind::Barrier(Barrier { origin: BarrierOrigin::Existing { stmt: Some(s) }, .. }) if after_invariant => {
                    out.insert(*s);
                    after_invariant = false;
                }
                InstKind::Anchor(_) => {}
                _ => after_invariant = false,
            }
        }
    }
    out
}

/// The fences of the user's barrier statements.
fn existing_fences(k: &Kernel) -> BTreeMap<StmtId, Fences> {
    let mut out = BTreeMap::new();
    for (_, inst) in k.insts.iter() {
        if let InstKind::Barrier(Barrier { origin: BarrierOrigin::Existing { stmt: Some(s) }, fences, .. }) = &inst.kind {
            out.insert(*s, *fences);
        }
    }
    out
}

/// The user's tile barriers (`__syncwarp`, cooperative groups' tiles) are never guarded: they
/// are no block-barrier sites, are not offered for removal and get no grid twin (new warp
/// twins of sites are guarded like any site). (The front end
/// already makes them unremovable; this keeps any other source of them out as well.)
fn is_tile(scope: Scope) -> bool {
    matches!(scope, Scope::Tile { .. })
}

/// The statement boundaries that become sites: (statement, split).
fn choose_sites(k: &Kernel) -> BTreeSet<(StmtId, SiteKind)> {
    let racy = racy_objects(k);
    let stmts = &k.stmts.stmts;
    let main = k.main_file();
    // Statements that contain an access to racy memory in their own expressions (or calls),
    // and, for split candidates, whether accesses fall inside / outside the right-hand side.
    let mut access: SecondaryMap<StmtId, bool> = SecondaryMap::new();
    let mut in_rhs: SecondaryMap<StmtId, bool> = SecondaryMap::new();
    let mut out_rhs: SecondaryMap<StmtId, bool> = SecondaryMap::new();
    let mut anchored: BTreeSet<(StmtId, SiteKind)> = BTreeSet::new();
    for (_, inst) in k.insts.iter() {
        if let InstKind::Anchor(a) = inst.kind {
            anchored.insert((a.stmt, site_kind(&a)));
        }
        // A specified external function's effect (`__reads_from`, `__writes_to`) accesses
        // its object at the call statement, as a load or store does.
        let object = match &inst.kind {
            InstKind::External { object, .. } => *object,
            kind => match kind.access() {
                Some((ptr, _, _, _)) => ptr.object,
                None => continue,
            },
        };
        if !racy.contains(&object) {
            continue;
        }
        for l in inst.span.frames.iter().filter(|l| l.file == FileId::MAIN) {
            let Some(off) = main.offset(l.line, l.col) else { continue };
            let Some(s) = k.stmts.innermost_at(off) else { continue };
            access[s] = true;
            if let Some(sp) = &stmts[s].split {
                if sp.rhs.contains(off) {
                    in_rhs[s] = true;
                } else {
                    out_rhs[s] = true;
                }
            }
        }
    }
    let mut chosen: BTreeSet<(StmtId, SiteKind)> = BTreeSet::new();
    for (s, _) in stmts.iter() {
        if access[s] {
            chosen.insert((s, SiteKind::Before));
        }
        if in_rhs[s] && out_rhs[s] {
            chosen.insert((s, SiteKind::Split));
        }
    }
    // Inside a copy call that accesses racy memory: between each two of its bytes.
    for &(s, kind) in &anchored {
        if matches!(kind, SiteKind::Step(_)) && access[s] {
            chosen.insert((s, kind));
        }
    }
    // Scope boundaries, bottom-up: a statement "has sites" if it or a descendant does.
    let mut has: SecondaryMap<StmtId, bool> = SecondaryMap::new();
    for (s, _) in stmts.iter() {
        if chosen.contains(&(s, SiteKind::Before)) || chosen.contains(&(s, SiteKind::Split)) {
            for a in k.stmts.ancestors(s) {
                has[a] = true;
            }
        }
    }
    for (s, st) in stmts.iter() {
        // An early return (`if (c) return;`) before sites of its block: the last place where
        // the threads that leave and those that stay can meet (and where moving the return
        // down makes a place for a barrier every thread reaches).
        if early_return_before_sites(k, s, &has) {
            chosen.insert((s, SiteKind::Before));
        }
        if !has[s] {
            continue;
        }
        if st.kind.is_conditional() || st.kind.is_loop() {
            chosen.insert((s, SiteKind::Before));
        }
        if st.kind.is_loop() {
            // The first statement of the loop body runs once per iteration, and so does the
            // end of the body. The end is a site of its own only where the body ends with a
            // conditional or a loop: after a plain statement, the next iteration's first
            // statement and the statement after the loop offer the same program points.
            for c in body_starts(k, s) {
                chosen.insert((c, SiteKind::Before));
            }
            if ends_with_control(k, s) {
                chosen.insert((s, SiteKind::End));
            }
        }
    }
    let _ = StmtKind::Compound;
    // Only boundaries the front end actually marked in the IR can host a site.
    chosen.retain(|x| anchored.contains(x));
    chosen
}

/// Whether statement `s` is an early return (`if (c) return;`) and a later statement of its
/// block has sites (`has`).
fn early_return_before_sites(k: &Kernel, s: StmtId, has: &SecondaryMap<StmtId, bool>) -> bool {
    k.stmts.early_return(s).is_some() && k.stmts.siblings(s).iter().skip_while(|&&o| o != s).skip(1).any(|&o| has[o])
}

/// Whether loop `l`'s braced body ends with a conditional or a loop statement.
fn ends_with_control(k: &Kernel, l: StmtId) -> bool {
    let stmts = &k.stmts.stmts;
    k.stmts
        .loop_body(l)
        .and_then(|body| stmts[body].children.iter().max_by_key(|c| stmts[**c].range.start))
        .is_some_and(|last| stmts[*last].kind.is_loop() || stmts[*last].kind.is_conditional())
}

/// The site kind an anchor marks.
fn site_kind(a: &syncfix_kir::Anchor) -> SiteKind {
    if a.step > 0 {
        SiteKind::Step(a.step)
    } else if a.end {
        SiteKind::End
    } else if a.split {
        SiteKind::Split
    } else {
        SiteKind::Before
    }
}

/// The statements that start a loop's body.
fn body_starts(k: &Kernel, l: StmtId) -> Vec<StmtId> {
    let mut out = vec![];
    let mut work = k.stmts.stmts[l].children.clone();
    while let Some(c) = work.pop() {
        let st = &k.stmts.stmts[c];
        if st.loop_body_start {
            out.push(c);
        } else if st.kind == StmtKind::Compound && st.parent == Some(l) {
            work.extend(st.children.iter().copied());
        }
    }
    out
}

/// Shared and global objects that are written somewhere (only they can race), by a store, an
/// atomic or a specified external function (`__writes_to`).
fn racy_objects(k: &Kernel) -> BTreeSet<ObjectId> {
    let mut out = BTreeSet::new();
    for (_, inst) in k.insts.iter() {
        let written = match &inst.kind {
            InstKind::External { object, kind: LogKind::Write | LogKind::Atomic } => Some(*object),
            kind => match kind.access() {
                Some((ptr, _, true, _)) => Some(ptr.object),
                _ => None,
            },
        };
        if let Some(o) = written {
            if matches!(k.objects[o].space, Space::Shared | Space::Global) {
                out.insert(o);
            }
        }
    }
    out
}
