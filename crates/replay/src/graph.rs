//! Control flow and source places: post-dominators (where branches meet again), a loop's
//! line, an instruction's place.

use crate::machine::{Taint, Thread};
use syncfix_kir::{EntityRef, InstId, Kernel};

/// The taint of a thread's path: the first branch on a tainted value it has not left.
pub(crate) fn path_taint(th: &Thread) -> Taint {
    th.branches.first().map_or(0, |(_, x)| *x)
}

/// Each block's immediate post-dominator: a block index, or `k.blocks.len()` (the exit) for
/// a block every path from which leaves the kernel without meeting another, or for a block
/// from which the exit cannot be reached. Cooper, Harvey and Kennedy's algorithm on the
/// reversed CFG, rooted at a virtual exit that every `ret` and `unreachable` leads to.
pub(crate) fn post_dominators(k: &Kernel) -> Vec<usize> {
    let n = k.blocks.len();
    let exit = n;
    let succs: Vec<Vec<usize>> = k
        .blocks
        .values()
        .map(|b| {
            let s: Vec<usize> = b.term.successors().iter().map(|x| x.index()).collect();
            if s.is_empty() {
                vec![exit]
            } else {
                s
            }
        })
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![vec![]; n + 1];
    for (b, ss) in succs.iter().enumerate() {
        for &x in ss {
            preds[x].push(b);
        }
    }
    // Post-order of the reversed graph from the exit (iterative DFS).
    let mut order = vec![];
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(exit, 0usize)];
    seen[exit] = true;
    while let Some((x, i)) = stack.pop() {
        if i < preds[x].len() {
            stack.push((x, i + 1));
            let p = preds[x][i];
            if !seen[p] {
                seen[p] = true;
                stack.push((p, 0));
            }
        } else {
            order.push(x);
        }
    }
    let mut number = vec![usize::MAX; n + 1];
    for (i, &x) in order.iter().enumerate() {
        number[x] = i;
    }
    let mut ipdom = vec![usize::MAX; n + 1];
    ipdom[exit] = exit;
    let mut changed = true;
    while changed {
        changed = false;
        for &x in order.iter().rev() {
            if x == exit {
                continue;
            }
            let mut new = usize::MAX;
            for &s in &succs[x] {
                if ipdom[s] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    s
                } else {
                    let (mut a, mut b) = (s, new);
                    while a != b {
                        while number[a] < number[b] {
                            a = ipdom[a];
                        }
                        while number[b] < number[a] {
                            b = ipdom[b];
                        }
                    }
                    a
                };
            }
            if new != usize::MAX && ipdom[x] != new {
                ipdom[x] = new;
                changed = true;
            }
        }
    }
    ipdom.truncate(n);
    ipdom.into_iter().map(|x| if x == usize::MAX { exit } else { x }).collect()
}

/// `x` or `(x, y)` or `(x, y, z)`: trailing dimensions of 0 left out.
pub(crate) fn dims(d: [u32; 3]) -> String {
    match d {
        [x, 0, 0] => x.to_string(),
        [x, y, 0] => format!("({x}, {y})"),
        [x, y, z] => format!("({x}, {y}, {z})"),
    }
}

/// `line L` of the main file where instruction `v` stands (or was inlined from), else
/// `FILE:L` of the header it stands in.
pub(crate) fn place(k: &Kernel, v: InstId) -> String {
    let span = &k.insts[v].span;
    match (span.in_main(), span.top()) {
        (Some(l), _) => format!("line {}", l.line),
        (None, Some(l)) => {
            let path = &k.files[l.file].path;
            format!("{}:{}", path.rsplit('/').next().unwrap_or(path), l.line)
        }
        (None, None) => "a place without a source location".into(),
    }
}

/// The source line of a loop: the first line of the kernel's file among its blocks'
/// instructions and terminators (the `for` or `while` line), 0 when none is in the file.
pub(crate) fn loop_line(k: &Kernel, l: &syncfix_kir::Loop) -> u32 {
    l.blocks
        .iter()
        .flat_map(|&b| {
            let block = &k.blocks[b];
            block.insts.iter().filter_map(|&i| k.insts[i].span.in_main()).chain(block.term_span.in_main())
        })
        .map(|l| l.line)
        .filter(|&line| line > 0)
        .min()
        .unwrap_or(0)
}
