//! Control-flow analyses computed once per kernel: predecessors, reverse post-order,
//! dominators (Cooper, Harvey & Kennedy, "A Simple, Fast Dominance Algorithm"), the natural
//! loop forest, and the *lock-step order*: a topological order of the acyclic CFG in which
//! every loop is contiguous and nested loops appear as single items (ESOP 2013 §4 requires
//! such an order for predicated lock-step execution of a reducible CFG).

use crate::entity::BlockId;
use crate::ir::Kernel;
use cranelift_entity::SecondaryMap;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// Index of a loop in [`Cfg::loops`].
pub type LoopId = usize;

/// A natural loop.
#[derive(Clone, Debug)]
pub struct Loop {
    pub header: BlockId,
    /// All blocks of the loop, nested loops included.
    pub blocks: BTreeSet<BlockId>,
    pub parent: Option<LoopId>,
    pub children: Vec<LoopId>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
    /// Blocks with an edge back to the header.
    pub latches: Vec<BlockId>,
}

/// An item of a lock-step order: a block, or a whole nested loop.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Item {
    Block(BlockId),
    Loop(LoopId),
}

/// Control-flow facts about a kernel.
#[derive(Clone, Debug)]
pub struct Cfg {
    pub preds: SecondaryMap<BlockId, Vec<BlockId>>,
    /// Reachable blocks in reverse post-order.
    pub rpo: Vec<BlockId>,
    pub rpo_index: SecondaryMap<BlockId, u32>,
    pub reachable: SecondaryMap<BlockId, bool>,
    pub idom: SecondaryMap<BlockId, Option<BlockId>>,
    pub loops: Vec<Loop>,
    /// The innermost loop containing each block.
    pub loop_of: SecondaryMap<BlockId, Option<LoopId>>,
    /// Lock-step order of the top level.
    pub top_order: Vec<Item>,
    /// Lock-step order of each loop's body (header first), indexed by [`LoopId`].
    pub loop_order: Vec<Vec<Item>>,
}

/// The CFG is not reducible (e.g. a `goto` into a loop): lock-step predication needs a
/// reducible CFG. Names a block on the offending edge.
#[derive(Debug, Clone)]
pub struct Irreducible(pub BlockId);

impl Cfg {
    /// Computes every analysis. Fails on an irreducible CFG.
    pub fn compute(k: &Kernel) -> Result<Cfg, Irreducible> {
        let Flow { preds, reachable, rpo, rpo_index, idom } = flow(k);
        let dominates = |a: BlockId, mut b: BlockId| -> bool {
            loop {
                if a == b {
                    return true;
                }
                match idom[b] {
                    Some(p) if p != b => b = p,
                    _ => return false,
                }
            }
        };
        // Back edges: an edge u -> h whose target comes no later in RPO. Reducible iff each
        // such edge's target dominates its source.
        let mut headers: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
        for &u in &rpo {
            for h in k.blocks[u].term.successors() {
                if rpo_index[h] <= rpo_index[u] {
                    if !dominates(h, u) {
                        return Err(Irreducible(h));
                    }
                    match headers.iter_mut().find(|(x, _)| *x == h) {
                        Some((_, ls)) => ls.push(u),
                        None => headers.push((h, vec![u])),
                    }
                }
            }
        }
        // Natural loop bodies.
        let mut loops: Vec<Loop> = headers
            .into_iter()
            .map(|(h, latches)| {
                let mut blocks = BTreeSet::new();
                blocks.insert(h);
                let mut work: Vec<BlockId> = latches.clone();
                while let Some(b) = work.pop() {
                    if reachable[b] && blocks.insert(b) {
                        work.extend(preds[b].iter().copied());
                    }
                }
                Loop { header: h, blocks, parent: None, children: vec![], depth: 0, latches }
            })
            .collect();
        // Nesting: the parent of a loop is the smallest strictly larger loop containing its header.
        let n = loops.len();
        for i in 0..n {
            let mut best: Option<usize> = None;
            for j in 0..n {
                if i != j
                    && loops[j].blocks.contains(&loops[i].header)
                    && loops[j].blocks.len() > loops[i].blocks.len()
                    && best.is_none_or(|b| loops[j].blocks.len() < loops[b].blocks.len())
                {
                    best = Some(j);
                }
            }
            loops[i].parent = best;
        }
        for i in 0..n {
            if let Some(p) = loops[i].parent {
                loops[p].children.push(i);
            }
        }
        for i in 0..n {
            let mut d = 1;
            let mut p = loops[i].parent;
            while let Some(q) = p {
                d += 1;
                p = loops[q].parent;
            }
            loops[i].depth = d;
        }
        let mut loop_of: SecondaryMap<BlockId, Option<LoopId>> = SecondaryMap::new();
        for &b in &rpo {
            let mut best: Option<usize> = None;
            for (i, l) in loops.iter().enumerate() {
                if l.blocks.contains(&b) && best.is_none_or(|x| l.blocks.len() < loops[x].blocks.len()) {
                    best = Some(i);
                }
            }
            loop_of[b] = best;
        }
        let mut cfg = Cfg { preds, rpo, rpo_index, reachable, idom, loops, loop_of, top_order: vec![], loop_order: vec![] };
        cfg.top_order = cfg.region_order(k, None);
        cfg.loop_order = (0..n).map(|l| cfg.region_order(k, Some(l))).collect();
        Ok(cfg)
    }

    /// Loop nesting depth of a block (0 outside loops).
    pub fn depth(&self, b: BlockId) -> u32 {
        self.loop_of[b].map_or(0, |l| self.loops[l].depth)
    }

    /// Whether `b` lies in loop `l` (nested loops included).
    pub fn in_loop(&self, b: BlockId, l: LoopId) -> bool {
        self.loops[l].blocks.contains(&b)
    }

    /// The item that represents block `b` inside region `region` (None: top level): the block
    /// itself, or the outermost loop below the region that contains it.
    fn item_in_region(&self, b: BlockId, region: Option<LoopId>) -> Option<Item> {
        if let Some(r) = region {
            if !self.in_loop(b, r) {
                return None;
            }
        }
        let mut l = self.loop_of[b];
        let mut item = Item::Block(b);
        while let Some(x) = l {
            if Some(x) == region {
                break;
            }
            item = Item::Loop(x);
            l = self.loops[x].parent;
        }
        Some(item)
    }

    fn region_order(&self, k: &Kernel, region: Option<LoopId>) -> Vec<Item> {
        let blocks: Vec<BlockId> = match region {
            None => self.rpo.clone(),
            Some(r) => self.rpo.iter().copied().filter(|b| self.in_loop(*b, r)).collect(),
        };
        let mut items: Vec<Item> = Vec::new();
        for &b in &blocks {
            let it = self.item_in_region(b, region).expect("block in region");
            if !items.contains(&it) {
                items.push(it);
            }
        }
        let key = |it: &Item| -> u32 {
            match it {
                Item::Block(b) => self.rpo_index[*b],
                Item::Loop(l) => self.rpo_index[self.loops[*l].header],
            }
        };
        let idx = |it: &Item| items.iter().position(|x| x == it).unwrap();
        let mut indeg = vec![0usize; items.len()];
        let mut succ: Vec<Vec<usize>> = vec![vec![]; items.len()];
        let header = region.map(|r| self.loops[r].header);
        for &b in &blocks {
            let from = idx(&self.item_in_region(b, region).unwrap());
            for s in k.blocks[b].term.successors() {
                if Some(s) == header {
                    continue; // back edge of this region's loop
                }
                if let Some(to_item) = self.item_in_region(s, region) {
                    let to = idx(&to_item);
                    if to != from && !succ[from].contains(&to) {
                        succ[from].push(to);
                        indeg[to] += 1;
                    }
                }
            }
        }
        let mut heap: BinaryHeap<Reverse<(u32, usize)>> = BinaryHeap::new();
        for (i, it) in items.iter().enumerate() {
            if indeg[i] == 0 {
                heap.push(Reverse((key(it), i)));
            }
        }
        let mut order = Vec::with_capacity(items.len());
        while let Some(Reverse((_, i))) = heap.pop() {
            order.push(items[i]);
            for &j in &succ[i] {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    heap.push(Reverse((key(&items[j]), j)));
                }
            }
        }
        debug_assert_eq!(order.len(), items.len(), "region graph must be acyclic");
        order
    }
}

/// The facts every analysis starts from: predecessors, the blocks reachable from the entry in
/// reverse post-order, and immediate dominators (`None` for an unreachable block; the entry is
/// its own). Shared by [`Cfg::compute`] and the well-formedness check, which must not fail on an
/// irreducible CFG.
pub(crate) struct Flow {
    pub(crate) preds: SecondaryMap<BlockId, Vec<BlockId>>,
    pub(crate) reachable: SecondaryMap<BlockId, bool>,
    pub(crate) rpo: Vec<BlockId>,
    pub(crate) rpo_index: SecondaryMap<BlockId, u32>,
    pub(crate) idom: SecondaryMap<BlockId, Option<BlockId>>,
}

/// Computes [`Flow`] for `k`.
pub(crate) fn flow(k: &Kernel) -> Flow {
    let mut preds: SecondaryMap<BlockId, Vec<BlockId>> = SecondaryMap::new();
    for (b, blk) in k.blocks.iter() {
        for s in blk.term.successors() {
            if !preds[s].contains(&b) {
                preds[s].push(b);
            }
        }
    }
    // Post-order by iterative DFS.
    let mut reachable: SecondaryMap<BlockId, bool> = SecondaryMap::new();
    let mut post = Vec::new();
    let mut stack: Vec<(BlockId, usize)> = vec![(k.entry, 0)];
    reachable[k.entry] = true;
    while let Some((b, i)) = stack.pop() {
        let succs = k.blocks[b].term.successors();
        if i < succs.len() {
            stack.push((b, i + 1));
            let s = succs[i];
            if !reachable[s] {
                reachable[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    let rpo: Vec<BlockId> = post.into_iter().rev().collect();
    let mut rpo_index: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(u32::MAX);
    for (i, b) in rpo.iter().enumerate() {
        rpo_index[*b] = i as u32;
    }
    let idom = dominators(k, &rpo, &rpo_index, &preds);
    Flow { preds, reachable, rpo, rpo_index, idom }
}

fn dominators(
    k: &Kernel,
    rpo: &[BlockId],
    rpo_index: &SecondaryMap<BlockId, u32>,
    preds: &SecondaryMap<BlockId, Vec<BlockId>>,
) -> SecondaryMap<BlockId, Option<BlockId>> {
    let mut idom: SecondaryMap<BlockId, Option<BlockId>> = SecondaryMap::new();
    idom[k.entry] = Some(k.entry);
    let intersect = |idom: &SecondaryMap<BlockId, Option<BlockId>>, mut a: BlockId, mut b: BlockId| {
        while a != b {
            while rpo_index[a] > rpo_index[b] {
                a = idom[a].unwrap();
            }
            while rpo_index[b] > rpo_index[a] {
                b = idom[b].unwrap();
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new: Option<BlockId> = None;
            for &p in &preds[b] {
                if rpo_index[p] == u32::MAX || idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(n) => intersect(&idom, p, n),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    // Unreachable blocks keep `None`.
    idom
}
