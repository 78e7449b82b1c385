//! Reading a run: the pairs of records that race, the divergences, and why a run did not
//! reproduce the target.

use crate::graph::place;
use crate::machine::*;
use crate::{Outcome, Target, Witness};
use std::collections::HashMap;
use syncfix_kir::{EntityRef, InstId, InstKind, ObjectId, Space};

impl<'a> Machine<'a> {
    /// Whether two records race: different threads, a common byte, a write, not both
    /// atomic, and no barrier that orders them.
    pub(crate) fn races(&self, a: &Record, b: &Record, space: Space) -> bool {
        if a.thread == b.thread || !(a.write || b.write) || (a.atomic && b.atomic) || a.lo >= b.hi || b.lo >= a.hi {
            return false;
        }
        let (ta, tb) = (&self.threads[a.thread], &self.threads[b.thread]);
        match space {
            Space::Private | Space::Constant => return false,
            Space::Shared if ta.block != tb.block => return false,
            _ => {}
        }
        if ta.block != tb.block {
            return a.grids == b.grids;
        }
        if ta.linear / 32 == tb.linear / 32 && a.tiles != b.tiles {
            return false;
        }
        if let (Some(w), Target::Race { insts, .. }) = (self.input.warp_sync.filter(|&w| w > 0), self.target) {
            if ta.linear / w == tb.linear / w {
                return insts[0] == insts[1] && a.iters == b.iters;
            }
        }
        // A block barrier between the two intervals that fenced this space for both threads.
        let (early, late) = if a.until < b.bar {
            (a, b)
        } else if b.until < a.bar {
            (b, a)
        } else {
            return true;
        };
        let (te, tl) = (&self.threads[early.thread], &self.threads[late.thread]);
        let covers = |f: &(bool, bool)| if space == Space::Shared { f.0 } else { f.1 };
        !(early.until..late.bar).any(|j| {
            let j = j as usize;
            te.fenced.get(j).is_some_and(covers) && tl.fenced.get(j).is_some_and(covers)
        })
    }

    /// The outcome, when the replay reproduced the target (or found only what depends on a
    /// value it could not compute).
    pub(crate) fn judge(&self) -> Option<Outcome> {
        match self.target {
            Target::Divergence { barrier } => {
                let &(_, w, o) = self.divergences.iter().find(|(at, _, _)| at == barrier)?;
                Some(Outcome::Confirmed(Box::new(Witness {
                    threads: [self.threads[w].id, self.threads[o].id],
                    offset: None,
                    iterations: [vec![], vec![]],
                    trace_threads: false,
                    params: vec![],
                    search: None,
                    block_dim: self.input.block_dim,
                    grid_dim: self.input.grid_dim,
                    groups: self.input.groups.clone(),
                    fill: self.run.fill,
                    model_memory: self.run.model_memory,
                    extents: self.extents(),
                })))
            }
            Target::Race { object, threads, offset, .. } => {
                let space = self.k.objects[*object].space;
                let mut by_byte: HashMap<u64, Vec<usize>> = HashMap::new();
                for (i, r) in self.records.iter().enumerate().filter(|(_, r)| r.which == 1) {
                    for byte in r.lo..r.hi.min(r.lo + 16) {
                        by_byte.entry(byte).or_default().push(i);
                    }
                }
                let mut best: Option<(u8, &Record, &Record, u64)> = None;
                let mut tainted: Taint = 0;
                let mut checks: u64 = 0;
                'outer: for a in self.records.iter().filter(|r| r.which == 0) {
                    for byte in a.lo..a.hi.min(a.lo + 16) {
                        for &j in by_byte.get(&byte).map_or(&[][..], |v| v.as_slice()) {
                            checks += 1;
                            if checks > 50_000_000 {
                                break 'outer;
                            }
                            let b = &self.records[j];
                            if !self.races(a, b, space) {
                                continue;
                            }
                            if a.taint != 0 || b.taint != 0 {
                                tainted = join(tainted, join(a.taint, b.taint));
                                continue;
                            }
                            let ids = [self.threads[a.thread].id, self.threads[b.thread].id];
                            let rank = (ids == *threads) as u8 * 2 + (byte == *offset) as u8;
                            if best.as_ref().is_none_or(|(r, ..)| rank > *r) {
                                best = Some((rank, a, b, byte));
                            }
                            if rank == 3 {
                                break 'outer;
                            }
                        }
                    }
                }
                match best {
                    Some((rank, a, b, byte)) => Some(Outcome::Confirmed(Box::new(Witness {
                        threads: [self.threads[a.thread].id, self.threads[b.thread].id],
                        offset: Some(byte),
                        iterations: [a.iters.clone(), b.iters.clone()],
                        trace_threads: rank >= 2,
                        params: vec![],
                        search: None,
                        block_dim: self.input.block_dim,
                        grid_dim: self.input.grid_dim,
                        groups: self.input.groups.clone(),
                        fill: self.run.fill,
                        model_memory: self.run.model_memory,
                        extents: self.extents(),
                    }))),
                    None if tainted != 0 => Some(Outcome::Possible(format!(
                        "the accesses meet in the replay only through {}, which the replay cannot compute",
                        self.taint_source(tainted)
                    ))),
                    None => None,
                }
            }
        }
    }

    pub(crate) fn extents(&self) -> Vec<(ObjectId, u64)> {
        let mut v: Vec<(ObjectId, u64)> = self.extents.iter().map(|(o, e)| (*o, *e)).collect();
        v.sort();
        v
    }

    /// What made a tainted value, in words.
    pub(crate) fn taint_source(&self, taint: Taint) -> String {
        let v = InstId::new(taint as usize - 1);
        let at = place(self.k, v);
        match &self.k.insts[v].kind {
            InstKind::Float { func, .. } => {
                format!("the value of `{}` at {at}", func.rsplit_once('.').map_or(func.as_str(), |(f, _)| f))
            }
            InstKind::Havoc => format!(
                "a value the front end does not model at {at} (an undefined value, or a call's result or choice it leaves arbitrary)"
            ),
            InstKind::Atomic { .. } => format!("the result of an atomic operation at {at} that the replay does not model"),
            _ => format!("a specification's value at {at}"),
        }
    }

    /// Why the replay did not reproduce the target (it ran to its end).
    pub(crate) fn not_reproduced(&self) -> String {
        let mut why = match self.target {
            Target::Divergence { barrier } => match self.divergences.first() {
                Some(&(at, _, _)) => {
                    format!("the replay diverges at the barrier at {} instead of the one at {}", place(self.k, at), place(self.k, *barrier))
                }
                None => format!("every thread of the replay reaches the barrier at {} together", place(self.k, *barrier)),
            },
            Target::Race { insts, .. } => match self.reached {
                [false, _] => format!("no thread of the replay reaches the access at {}", place(self.k, insts[0])),
                [_, false] => format!("no thread of the replay reaches the access at {}", place(self.k, insts[1])),
                _ => format!(
                    "the accesses at {} and {} never touch a common byte without a barrier between them in the replay",
                    place(self.k, insts[0]),
                    place(self.k, insts[1])
                ),
            },
        };
        if let Some(s) = self.stops.first() {
            why.push_str(&format!(" ({s})"));
        }
        why
    }
}
