//! Control equivalence: where every thread that was at one block is again.
//!
//! Block `b` is control-equivalent to its dominator `a` when both have the same innermost loop
//! and every path from `a` that stays in one iteration of that loop reaches `b` (it
//! post-dominates `a` in the loop body, inner loops taken as single steps; a `return` or an
//! `unreachable` ends a path elsewhere). Then, in an execution that reaches `b` at all, exactly
//! the threads that were at `a` (in that iteration) are at `b`, and the encoder gives `b` the
//! predicate of `a` (Ferrante, Ottenstein & Warren, TOPLAS 1987: control dependence; the
//! structured reconvergence of predicated execution, ESOP 2013 §4). Threads can only fail to
//! arrive by running forever, and such an execution reaches no property past `b`.
//!
//! The predicate that the edges give `b` says the same for real executions, but after a loop
//! cut it is a formula over the loop's havocked state (its exit condition), and every later
//! predicate would carry it: each later query's cone of influence (`cone`) would then hold
//! every earlier loop's invariants, and its cost grow with its position in the kernel.

use syncfix_kir::{BlockId, Cfg, Kernel, LoopId, SecondaryMap, Terminator};

/// A node of one loop body's (or the kernel's top level's) acyclic graph.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Node {
    Block(BlockId),
    Loop(LoopId),
    Exit,
}

/// Per block, its nearest control-equivalent dominator (see the module documentation).
pub(crate) fn control_equivalent(k: &Kernel, cfg: &Cfg) -> SecondaryMap<BlockId, Option<BlockId>> {
    let mut out: SecondaryMap<BlockId, Option<BlockId>> = SecondaryMap::new();
    // The contexts: the top level and every loop body.
    let mut contexts: Vec<Option<LoopId>> = vec![None];
    contexts.extend((0..cfg.loops.len()).map(Some));
    for ctx in contexts {
        let ipdom = post_dominators(k, cfg, ctx);
        for &b in &cfg.rpo {
            if cfg.loop_of[b] != ctx || ctx.is_some_and(|l| cfg.loops[l].header == b) {
                continue;
            }
            // The nearest dominator in the same context that `b` post-dominates.
            let mut a = cfg.idom[b];
            while let Some(x) = a {
                if x == b {
                    break;
                }
                if cfg.loop_of[x] == ctx {
                    // A loop header's predicate is the loop's own business (a cut havocs it).
                    let header = ctx.is_some_and(|l| cfg.loops[l].header == x);
                    if !header && post_dominates(&ipdom, Node::Block(b), Node::Block(x)) {
                        out[b] = Some(x);
                    }
                    break;
                }
                a = cfg.idom[x].filter(|&p| p != x);
            }
        }
    }
    out
}

/// Whether `b` is on `a`'s chain of immediate post-dominators.
fn post_dominates(ipdom: &std::collections::HashMap<Node, Node>, b: Node, a: Node) -> bool {
    let mut x = a;
    while let Some(&p) = ipdom.get(&x) {
        if p == b {
            return true;
        }
        if p == Node::Exit {
            return false;
        }
        x = p;
    }
    false
}

/// The node of block `y` in context `ctx`: itself, the child loop of `ctx` holding it, or the
/// exit (outside `ctx`, or its header: the next iteration).
fn node_of(cfg: &Cfg, ctx: Option<LoopId>, y: BlockId) -> Node {
    if ctx.is_some_and(|l| cfg.loops[l].header == y || !cfg.loops[l].blocks.contains(&y)) {
        return Node::Exit;
    }
    let mut l = cfg.loop_of[y];
    if l == ctx {
        return Node::Block(y);
    }
    while let Some(x) = l {
        if cfg.loops[x].parent == ctx {
            return Node::Loop(x);
        }
        l = cfg.loops[x].parent;
    }
    Node::Exit
}

/// Immediate post-dominators of context `ctx`'s acyclic graph (nodes that cannot reach its
/// exit have none).
fn post_dominators(k: &Kernel, cfg: &Cfg, ctx: Option<LoopId>) -> std::collections::HashMap<Node, Node> {
    use std::collections::HashMap;
    let succs = |n: Node| -> Vec<Node> {
        let from: Vec<BlockId> = match n {
            Node::Block(b) => vec![b],
            Node::Loop(l) => cfg.loops[l].blocks.iter().copied().collect(),
            Node::Exit => return vec![],
        };
        let mut v = vec![];
        for b in from {
            let term = &k.blocks[b].term;
            if matches!(term, Terminator::Return | Terminator::Unreachable) {
                v.push(Node::Exit);
            }
            for y in term.successors() {
                if let Node::Loop(l) = n {
                    if cfg.loops[l].blocks.contains(&y) {
                        continue;
                    }
                }
                let m = node_of(cfg, ctx, y);
                if !v.contains(&m) {
                    v.push(m);
                }
            }
        }
        v
    };
    // Post-order from the context's entry nodes (every node of the context), successors first.
    let mut nodes: Vec<Node> = vec![];
    for &b in &cfg.rpo {
        if cfg.loop_of[b] == ctx {
            nodes.push(Node::Block(b));
        }
    }
    for (l, lp) in cfg.loops.iter().enumerate() {
        if lp.parent == ctx {
            nodes.push(Node::Loop(l));
        }
    }
    let mut order: Vec<Node> = vec![];
    let mut seen: std::collections::HashSet<Node> = std::collections::HashSet::new();
    let mut memo_succs: HashMap<Node, Vec<Node>> = HashMap::new();
    for &root in &nodes {
        if !seen.insert(root) {
            continue;
        }
        let mut stack: Vec<(Node, usize)> = vec![(root, 0)];
        while let Some(&mut (n, ref mut i)) = stack.last_mut() {
            let ss = memo_succs.entry(n).or_insert_with(|| succs(n)).clone();
            if *i < ss.len() {
                let s = ss[*i];
                *i += 1;
                if s != Node::Exit && seen.insert(s) {
                    stack.push((s, 0));
                }
            } else {
                order.push(n);
                stack.pop();
            }
        }
    }
    let mut ipdom: HashMap<Node, Node> = HashMap::new();
    let mut depth: HashMap<Node, u32> = HashMap::new();
    depth.insert(Node::Exit, 0);
    for n in order {
        let ss = &memo_succs[&n];
        let mut acc: Option<Node> = None;
        let mut dead = ss.is_empty();
        for &s in ss {
            if !depth.contains_key(&s) {
                // A successor that cannot reach the exit (or a cycle: not a DAG).
                dead = true;
                break;
            }
            acc = Some(match acc {
                None => s,
                Some(a) => intersect(&ipdom, &depth, a, s),
            });
        }
        if dead {
            continue;
        }
        if let Some(p) = acc {
            ipdom.insert(n, p);
            depth.insert(n, depth[&p] + 1);
        }
    }
    ipdom
}

/// The nearest common post-dominator of `a` and `b`.
fn intersect(
    ipdom: &std::collections::HashMap<Node, Node>,
    depth: &std::collections::HashMap<Node, u32>,
    mut a: Node,
    mut b: Node,
) -> Node {
    while a != b {
        if depth[&a] >= depth[&b] {
            a = ipdom.get(&a).copied().unwrap_or(Node::Exit);
        } else {
            b = ipdom.get(&b).copied().unwrap_or(Node::Exit);
        }
    }
    a
}
