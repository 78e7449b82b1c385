//! The memory and race logs of a loop being cut (ARCHITECTURE.md, "crates/verify"): the memory
//! the loop may write, havocked at its head, fresh logs, and what a havocked log may hold
//! (the entry's access, or an access of an earlier iteration tied to a ghost copy of it).

use crate::cone::{constants, TermMap, TermSet};
use crate::encode::Encoder;
use crate::memory::{AccessKind, Log};
use crate::term::{and, or};
use syncfix_kir::{LoopId, ObjectId, Space};
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::DeclKind;

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
        let log = Log {
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
        };
        self.log_fields.extend(log.fields());
        log
    }

    /// What the havocked log `h` (at the head; `p` before the loop) of `o`'s `kind` accesses
    /// holds: nothing, the entry's logged access unchanged, or an access of an earlier
    /// iteration of this loop (tied to a ghost copy of that iteration, `body`).
    ///
    /// The ghost copy keeps only the facts in the cone of the accesses it describes (their
    /// offsets, values and predicates): the head's facts and the body's assumptions that
    /// share a renamed constant with them, transitively. The others (the user's
    /// function-wide invariants on the other logs, a nested loop's facts about its own logs)
    /// say nothing of these accesses, and each copy of them cost the solver its dividers
    /// again (adi `kernel17`: 162 of the 166 dividers by `n` and `n − 1` of one race query
    /// were in such copies). Leaving a fact out of an assumption only weakens it.
    pub(super) fn log_fact(&mut self, o: ObjectId, kind: AccessKind, h: &Log<'ctx>, p: &Log<'ctx>, body: &Body<'_, 'ctx>) -> Bool<'ctx> {
        let &Body { head_facts, fresh: body_fresh, ref accesses, assumed_lo } = body;
        let (lo, hi) = (accesses.start, accesses.end);
        let ctx = self.ctx;
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
        // The log's own fields are the ones being described: they stay (all but `pending`,
        // which the ghost iteration renames).
        let own: Vec<Dynamic<'ctx>> = h.fields()[..6].to_vec();
        let mut described: Vec<(usize, Bool<'ctx>)> = vec![];
        let mut offsets: Vec<(BV<'ctx>, u32)> = vec![];
        for i in lo..hi {
            let a = self.obligations.access(i);
            if a.object != o || a.kind != kind {
                continue;
            }
            let who = BV::from_u64(ctx, i as u64, 32);
            let w = BV::from_u64(ctx, a.width as u64, 32);
            let made = a.assumed.saturating_sub(assumed_lo);
            described.push((made, and(ctx, &[&h.who._eq(&who), &h.width._eq(&w), &h.off._eq(&a.off1), &h.value._eq(&a.val1), &a.pred1])));
            offsets.push((a.off1.clone(), a.width));
        }
        let earlier = if described.is_empty() {
            Bool::from_bool(ctx, false)
        } else {
            let assumed: Vec<Bool<'ctx>> = self.state.assumed().get(assumed_lo..).unwrap_or(&[]).to_vec();
            let last = described.iter().map(|(m, _)| *m).max().unwrap_or(0).min(assumed.len());
            let renamed: TermSet<Dynamic<'ctx>> =
                body_fresh.iter().filter(|d| !own.contains(d) && !self.log_fields.contains(*d)).cloned().collect();
            let other_logs: TermSet<Dynamic<'ctx>> =
                body_fresh.iter().filter(|d| !own.contains(d) && self.log_fields.contains(*d)).cloned().collect();
            // The facts (the head's, then the body's assumptions before the last access) in
            // the cone of the accesses, each taken apart into its conjuncts.
            // A fact kept whole is itself (the encoding unchanged where nothing is left out).
            let facts: Vec<&Bool<'ctx>> = head_facts.iter().chain(&assumed[..last]).collect();
            let mut pieces: Vec<Bool<'ctx>> = vec![];
            let mut ranges: Vec<std::ops::Range<usize>> = vec![];
            for f in &facts {
                let start = pieces.len();
                pieces.extend(conjuncts(f));
                ranges.push(start..pieces.len());
            }
            let pool: Vec<&Bool<'ctx>> = pieces.iter().collect();
            let seeds: Vec<&Bool<'ctx>> = described.iter().map(|(_, f)| f).collect();
            let kept = cone_of(&seeds, &pool, &renamed, &other_logs);
            // Each fact's kept part: itself when kept whole, else its kept conjuncts.
            let kept_parts: Vec<Vec<&Bool<'ctx>>> = facts
                .iter()
                .zip(&ranges)
                .map(|(f, r)| {
                    if kept[r.clone()].iter().all(|k| *k) {
                        vec![*f]
                    } else {
                        r.clone().filter(|&i| kept[i]).map(|i| &pieces[i]).collect()
                    }
                })
                .collect();
            let head_kept: Vec<&Bool<'ctx>> = kept_parts[..head_facts.len()].iter().flatten().copied().collect();
            // The assumptions the body made before each access, as a chain of conjunctions (a
            // nested loop's invariants at its head, its exit: what a ghost iteration keeps of
            // them).
            let mut made: Vec<Bool<'ctx>> = vec![Bool::from_bool(ctx, true)];
            for c in &kept_parts[head_facts.len()..] {
                let prev = made.last().expect("non-empty").clone();
                made.push(if c.is_empty() {
                    prev
                } else if prev.as_bool() == Some(true) {
                    and(ctx, c)
                } else {
                    let mut all = vec![&prev];
                    all.extend(c.iter().copied());
                    and(ctx, &all)
                });
            }
            let earlier: Vec<Bool<'ctx>> = described.iter().map(|(m, f)| Bool::and(ctx, &[f, &made[(*m).min(last)]])).collect();
            let head_fact = and(ctx, &head_kept);
            let body = Bool::and(ctx, &[&head_fact, &or(ctx, &earlier.iter().collect::<Vec<_>>())]);
            // The ghost iteration: the body's fresh values (the head state included) renamed.
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
    /// The facts at the head, one by one.
    pub(super) head_facts: &'a [Bool<'ctx>],
    pub(super) fresh: &'a [Dynamic<'ctx>],
    pub(super) accesses: std::ops::Range<usize>,
    /// The body's first assumption (`State::assumed`; those before hold at the head).
    pub(super) assumed_lo: usize,
}

/// Which of `pool` are in the cone of `seeds`: those that share a constant of `linking` with
/// the seeds or with a fact in the cone, transitively, and mention none of `left_out` (one
/// flag per fact of `pool`). A worklist over the constants: each fact is looked at once per
/// constant it holds (a body's chain of definitions, each linked to the one before, would
/// take a pass per link if the facts were scanned again until none is added).
fn cone_of<'ctx>(
    seeds: &[&Bool<'ctx>],
    pool: &[&Bool<'ctx>],
    linking: &TermSet<Dynamic<'ctx>>,
    left_out: &TermSet<Dynamic<'ctx>>,
) -> Vec<bool> {
    let links = |f: &Bool<'ctx>| -> Option<Vec<Dynamic<'ctx>>> {
        let cs = constants(&[f]);
        if cs.iter().any(|c| left_out.contains(c)) {
            return None;
        }
        Some(cs.into_iter().filter(|c| linking.contains(c)).collect())
    };
    let facts: Vec<Vec<Dynamic<'ctx>>> = pool.iter().map(|f| links(f).unwrap_or_default()).collect();
    let mut holders: TermMap<Dynamic<'ctx>, Vec<usize>> = TermMap::default();
    for (j, cs) in facts.iter().enumerate() {
        for c in cs {
            holders.entry(c.clone()).or_default().push(j);
        }
    }
    let mut reached: TermSet<Dynamic<'ctx>> = TermSet::default();
    let mut work: Vec<Dynamic<'ctx>> = seeds.iter().flat_map(|f| links(f).unwrap_or_default()).collect();
    let mut kept = vec![false; pool.len()];
    while let Some(c) = work.pop() {
        if !reached.insert(c.clone()) {
            continue;
        }
        for &j in holders.get(&c).map(|v| v.as_slice()).unwrap_or(&[]) {
            if !kept[j] {
                kept[j] = true;
                work.extend(facts[j].iter().filter(|d| !reached.contains(*d)).cloned());
            }
        }
    }
    kept
}

/// The conjuncts of `f`: its top-level conjunctions taken apart, and an implication whose
/// consequent is a conjunction as one implication per conjunct.
fn conjuncts<'ctx>(f: &Bool<'ctx>) -> Vec<Bool<'ctx>> {
    let mut out = vec![];
    let mut stack = vec![f.clone()];
    while let Some(g) = stack.pop() {
        if g.is_app() && !g.is_const() {
            match g.decl().kind() {
                DeclKind::AND => {
                    stack.extend(g.children().into_iter().rev().filter_map(|c| c.as_bool()));
                    continue;
                }
                DeclKind::IMPLIES => {
                    if let (Some(a), Some(b)) = (g.nth_child(0).and_then(|c| c.as_bool()), g.nth_child(1).and_then(|c| c.as_bool())) {
                        if b.is_app() && !b.is_const() && b.decl().kind() == DeclKind::AND && b.num_children() > 1 {
                            stack.extend(b.children().into_iter().rev().filter_map(|c| c.as_bool()).map(|c| a.implies(&c)));
                            continue;
                        }
                    }
                }
                _ => {}
            }
        }
        if g.as_bool() != Some(true) {
            out.push(g);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::{Config, Context};

    /// A ghost iteration keeps the facts linked to its accesses through renamed constants,
    /// transitively, and leaves out a fact over other constants only and a fact about another
    /// log (however it is linked).
    #[test]
    fn the_cone_follows_renamed_constants_and_leaves_other_logs_out() {
        let ctx = Context::new(&Config::new());
        let bv = |n: &str| BV::new_const(&ctx, n, 64);
        let (x, y, z, w, n) = (bv("x!1"), bv("y!2"), bv("z!3"), bv("w!4"), bv("n"));
        let (off, has) = (bv("p.read.off!5"), Bool::new_const(&ctx, "p.read.has!6"));
        let active = Bool::new_const(&ctx, "loop0.active!7");
        let seed = Bool::and(&ctx, &[&active, &x._eq(&n)]);
        let pool = [
            y.bvult(&x),                                           // x–y: kept
            z.bvult(&y),                                           // y–z: kept, through y
            w.bvult(&n),                                           // w alone: left out
            active.implies(&has.implies(&off.bvurem(&n)._eq(&x))), // another log's: left out
        ];
        let linking: TermSet<Dynamic> =
            [&x, &y, &z, &w].iter().map(|c| Dynamic::from_ast(*c)).chain([Dynamic::from_ast(&active)]).collect();
        let logs: TermSet<Dynamic> = [Dynamic::from_ast(&off), Dynamic::from_ast(&has)].into_iter().collect();
        let kept = cone_of(&[&seed], &pool.iter().collect::<Vec<_>>(), &linking, &logs);
        assert_eq!(kept, [true, true, false, false]);
        // Without the logs left out, the last fact is linked through the loop's predicate.
        let kept = cone_of(&[&seed], &pool.iter().collect::<Vec<_>>(), &linking, &TermSet::default());
        assert_eq!(kept, [true, true, false, true]);
    }

    /// Conjunctions are taken apart, at the top and under an implication.
    #[test]
    fn conjuncts_take_conjunctions_apart() {
        let ctx = Context::new(&Config::new());
        let b = |n: &str| Bool::new_const(&ctx, n);
        let (a, c, d, g) = (b("a"), b("c"), b("d"), b("g"));
        let f = Bool::and(&ctx, &[&a, &g.implies(&Bool::and(&ctx, &[&c, &d])), &Bool::from_bool(&ctx, true)]);
        let parts = conjuncts(&f);
        assert_eq!(parts, vec![a.clone(), g.implies(&c), g.implies(&d)]);
        assert_eq!(conjuncts(&c.implies(&d)), vec![c.implies(&d)]);
    }
}
