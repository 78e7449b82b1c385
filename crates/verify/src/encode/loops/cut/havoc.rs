//! The memory and race logs of a loop being cut (ARCHITECTURE.md, "crates/verify"): the memory
//! the loop may write, havocked at its head, fresh logs, and what a havocked log may hold
//! (the entry's access, or an access of an earlier iteration tied to a ghost copy of it).

use crate::encode::Encoder;
use crate::memory::{AccessKind, Log};
use crate::term::{and, or};
use syncfix_kir::{LoopId, ObjectId, Space};
use z3::ast::{Ast, Bool, Dynamic, BV};

impl<'ctx, 'k> Encoder<'ctx, 'k> {
    /// Havocs the memory loop `l` may write: its written objects, and every written
    /// equality-abstracted object when it contains a barrier.
    pub(super) fn havoc_memory(&mut self, l: LoopId) {
        let info = &self.analysis.loops[l];
        let mut objs: Vec<ObjectId> = info.written.iter().copied().collect();
        if info.has_barrier {
            objs.extend(
                self.state.eq_objects().into_iter().filter(|o| self.abs.written[*o] && self.kernel.objects[*o].space != Space::Constant),
            );
        }
        objs.sort();
        objs.dedup();
        for o in objs {
            let name = self.kernel.objects[o].name.clone();
            let g = self.abs.granule[o];
            if self.state.eq_copies(o).is_some() {
                let a = self.symbols.fresh_mem(&name, g);
                let b = if self.kernel.objects[o].space == Space::Shared { self.symbols.fresh_mem(&name, g) } else { a.clone() };
                self.state.set_eq_copies(o, [a, b]);
            }
            if self.state.private(0, o).is_some() {
                if self.kernel.objects[o].uniform {
                    let m = self.symbols.fresh_mem(&name, g);
                    self.state.set_private(0, o, m.clone());
                    self.state.set_private(1, o, m);
                } else {
                    for t in 0..2 {
                        let m = self.symbols.fresh_mem(&format!("{name}${}", t + 1), g);
                        self.state.set_private(t, o, m);
                    }
                }
            }
        }
    }

    pub(super) fn fresh_log(&mut self, o: ObjectId, kind: AccessKind, bits: u32) -> Log<'ctx> {
        let n = format!("{}.{}", self.kernel.objects[o].name, kind.name());
        Log {
            has: self.symbols.fresh_bool(&format!("{n}.has")),
            off: self.symbols.fresh_bv(&format!("{n}.off"), 64),
            width: self.symbols.fresh_bv(&format!("{n}.width"), 32),
            value: self.symbols.fresh_bv(&format!("{n}.value"), bits),
            changed: self.symbols.fresh_bool(&format!("{n}.changed")),
            who: self.symbols.fresh_bv(&format!("{n}.who"), 32),
            // Only kernels with asynchronous copies have pending accesses.
            pending: if self.has_async {
                self.symbols.fresh_bool(&format!("{n}.pending"))
            } else {
                z3::ast::Bool::from_bool(self.ctx, false)
            },
        }
    }

    /// What the havocked log `h` (at the head; `p` before the loop) of `o`'s `kind` accesses
    /// holds: nothing, the entry's logged access unchanged, or an access of an earlier
    /// iteration of this loop (tied to a ghost copy of that iteration, `body`).
    pub(super) fn log_fact(&mut self, o: ObjectId, kind: AccessKind, h: &Log<'ctx>, p: &Log<'ctx>, body: &Body<'_, 'ctx>) -> Bool<'ctx> {
        let &Body { head_fact, fresh: body_fresh, ref accesses, assumed_lo } = body;
        let (lo, hi) = (accesses.start, accesses.end);
        let ctx = self.ctx;
        // The assumptions the body made before each access, as a chain of conjunctions (a
        // nested loop's invariants at its head, its exit: what a ghost iteration keeps of them).
        let mut made: Vec<Bool<'ctx>> = vec![Bool::from_bool(ctx, true)];
        for c in self.state.assumed().get(assumed_lo..).unwrap_or(&[]) {
            let last = made.last().expect("non-empty").clone();
            made.push(if last.as_bool() == Some(true) { c.clone() } else { Bool::and(ctx, &[&last, c]) });
        }
        let unchanged = and(
            ctx,
            &[
                &p.has,
                &h.who._eq(&p.who),
                &h.off._eq(&p.off),
                &h.width._eq(&p.width),
                &h.value._eq(&p.value),
                &h.changed.implies(&p.changed),
            ],
        );
        let mut earlier: Vec<Bool<'ctx>> = vec![];
        let mut offsets: Vec<(BV<'ctx>, u32)> = vec![];
        for i in lo..hi {
            let a = self.obligations.access(i);
            if a.object != o || a.kind != kind {
                continue;
            }
            let who = BV::from_u64(ctx, i as u64, 32);
            let w = BV::from_u64(ctx, a.width as u64, 32);
            let before = &made[a.assumed.saturating_sub(assumed_lo).min(made.len() - 1)];
            earlier.push(and(ctx, &[&h.who._eq(&who), &h.width._eq(&w), &h.off._eq(&a.off1), &h.value._eq(&a.val1), &a.pred1, before]));
            offsets.push((a.off1.clone(), a.width));
        }
        let earlier = if earlier.is_empty() {
            Bool::from_bool(ctx, false)
        } else {
            let body = Bool::and(ctx, &[head_fact, &or(ctx, &earlier.iter().collect::<Vec<_>>())]);
            // The ghost iteration: the body's fresh values (the head state included) renamed;
            // the log's own fields are the ones being described, so they stay.
            let own: Vec<Dynamic<'ctx>> = [
                Dynamic::from_ast(&h.has),
                Dynamic::from_ast(&h.who),
                Dynamic::from_ast(&h.off),
                Dynamic::from_ast(&h.width),
                Dynamic::from_ast(&h.value),
                Dynamic::from_ast(&h.changed),
            ]
            .into();
            let mut pairs: Vec<(Dynamic<'ctx>, Dynamic<'ctx>)> = vec![];
            for d in body_fresh {
                if own.iter().any(|x| x == d) {
                    continue;
                }
                let g = self.symbols.fresh_like(d, "ghost");
                pairs.push((d.clone(), g));
            }
            let refs: Vec<(&Dynamic<'ctx>, &Dynamic<'ctx>)> = pairs.iter().map(|(a, b)| (a, b)).collect();
            for (off, _) in &mut offsets {
                *off = off.substitute(&refs);
            }
            body.substitute(&refs)
        };
        self.obligations.add_havocked_log(
            h.who.clone(),
            crate::encode::HavockedLog { entry: (p.has.as_bool() != Some(false)).then(|| p.who.clone()), earlier: offsets },
        );
        h.has.implies(&Bool::or(ctx, &[&unchanged, &earlier]))
    }
}

/// One iteration of a cut loop's body, as [`Encoder::log_fact`] ties a log to it: the facts at
/// the head, the body's fresh values (renamed for a ghost copy), and the access instances the
/// body logged (indices into the encoder's accesses).
pub(super) struct Body<'a, 'ctx> {
    pub(super) head_fact: &'a Bool<'ctx>,
    pub(super) fresh: &'a [Dynamic<'ctx>],
    pub(super) accesses: std::ops::Range<usize>,
    /// The body's first assumption (`State::assumed`; those before hold at the head).
    pub(super) assumed_lo: usize,
}
