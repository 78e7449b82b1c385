//! The kernel's properties split into independent solver queries (DESIGN.md §6, "cost must grow
//! linearly"; Faial, CAV 2021: each barrier interval and array on its own).
//!
//! A property's violation condition is a formula of the one encoding; the kernel is correct
//! when no condition can hold. The conditions are partitioned by barrier interval (the number
//! of barrier instances before the property in the lock-step schedule) and memory object (a
//! race's; the other properties of an interval form one query): [`crate::Verifier::check`]
//! solves one part at a time, each on a solver of its own holding the encoding's background
//! facts and the part's disjunction, so that each solver call searches for one small
//! violation instead of the disjunction of all. Any partition is sound (the parts'
//! disjunction is the whole); this one keeps each call's search to the accesses of one object
//! in one interval.

use crate::encode::{Encoding, LogUse, PropKind};
use std::collections::BTreeMap;
use syncfix_kir::{Kernel, ObjectId};
use z3::ast::Bool;
use z3::Context;

/// One part of the properties.
pub(crate) struct Query<'ctx> {
    /// Guards this part's disjunction of violation conditions (assumed when the query is
    /// solved by Z3's incremental core).
    pub lit: Bool<'ctx>,
    /// Indices into [`Encoding::props`], in schedule order.
    pub props: Vec<usize>,
    /// "races on `s`, interval 3" or "interval 3": for `--stats` and debugging.
    pub label: String,
    /// The race logs its properties read: a race query its object's, the others all (a
    /// user's assertion may read the logs).
    pub logs: LogUse,
}

impl<'ctx> Query<'ctx> {
    /// `lit ∧ (one of the conditions of the properties in `props` holds)` (indices in schedule
    /// order): asserted on the query's solver.
    pub fn violated(&self, ctx: &'ctx Context, enc: &Encoding<'ctx>, props: std::ops::Range<usize>) -> Bool<'ctx> {
        let conds: Vec<&Bool<'ctx>> = self.props[props].iter().map(|&i| &enc.obligations.props()[i].cond).collect();
        Bool::and(ctx, &[&self.lit, &crate::term::or(ctx, &conds)])
    }
}

/// Partitions `enc.obligations.props()` into queries, in the order of their first property in the lock-step
/// schedule (so the first satisfiable query holds the earliest violation that any model has:
/// every earlier property is in an earlier query, found unsatisfiable before). With barrier
/// variables the small parts are [`merged`], and a merged part may hold a property later than
/// the next part's first: a repair's checks need a counterexample, not the earliest one.
pub(crate) fn split<'ctx>(ctx: &'ctx Context, k: &Kernel, enc: &Encoding<'ctx>) -> Vec<Query<'ctx>> {
    let mut barrier_pos: Vec<u32> = enc.obligations.barriers().iter().filter(|b| !b.ghost).map(|b| b.pos).collect();
    barrier_pos.sort_unstable();
    // (interval, a race's object or none for the rest) -> (first position, properties).
    type Key = (usize, Option<ObjectId>);
    let mut parts: BTreeMap<Key, (u32, Vec<usize>)> = BTreeMap::new();
    for (i, p) in enc.obligations.props().iter().enumerate() {
        let interval = barrier_pos.partition_point(|&b| b < p.pos);
        let object = match &p.kind {
            PropKind::Race { check, .. } => Some(enc.obligations.accesses()[*check].object),
            _ => None,
        };
        let e = parts.entry((interval, object)).or_insert((p.pos, Vec::new()));
        e.0 = e.0.min(p.pos);
        e.1.push(i);
    }
    let mut parts: Vec<(Key, (u32, Vec<usize>))> = if enc.symbols.vars().is_empty() { parts.into_iter().collect() } else { merged(parts) };
    parts.sort_by_key(|(key, (first, _))| (*first, *key));
    parts
        .into_iter()
        .enumerate()
        .map(|(n, ((interval, object), (_, mut props)))| {
            props.sort_by_key(|&i| (enc.obligations.props()[i].pos, i));
            let last = barrier_pos.partition_point(|&b| b < enc.obligations.props()[*props.last().expect("a part has a property")].pos);
            let intervals = if last > interval { format!("intervals {interval}–{last}") } else { format!("interval {interval}") };
            let label = match object {
                None => intervals,
                Some(o) => format!("races on `{}`, {intervals}", k.objects[o].name),
            };
            let logs = object.map_or(LogUse::All, LogUse::Object);
            Query { lit: Bool::new_const(ctx, format!("query!{n}")), props, label, logs }
        })
        .collect()
}

/// The most properties of a query that [`merged`] makes of several barrier intervals.
const MERGED_PROPERTIES: usize = 16;

/// With barrier variables (a repair's instrumented kernel), the parts of one object (or of
/// the other properties) in consecutive barrier intervals merged while they hold at most
/// [`MERGED_PROPERTIES`] properties: each barrier site starts an interval, and a repair's
/// hundreds of one- to five-property queries cost the solver's set-up on the background
/// facts each (HeCBench nbnxm with a barrier deleted: 683 queries, ~0.3 s each for the
/// two- to five-property ones). Any partition is sound; the merged part's first property is
/// its earliest.
fn merged(parts: BTreeMap<(usize, Option<ObjectId>), (u32, Vec<usize>)>) -> Vec<((usize, Option<ObjectId>), (u32, Vec<usize>))> {
    let mut by_object: BTreeMap<Option<ObjectId>, Vec<(usize, (u32, Vec<usize>))>> = BTreeMap::new();
    for ((interval, object), part) in parts {
        by_object.entry(object).or_default().push((interval, part));
    }
    let mut out = vec![];
    for (object, parts) in by_object {
        let mut current: Option<(usize, (u32, Vec<usize>))> = None;
        for (interval, (first, props)) in parts {
            match &mut current {
                Some((_, (f, ps))) if ps.len() + props.len() <= MERGED_PROPERTIES => {
                    *f = (*f).min(first);
                    ps.extend(props);
                }
                _ => {
                    if let Some((i, part)) = current.take() {
                        out.push(((i, object), part));
                    }
                    current = Some((interval, (first, props)));
                }
            }
        }
        if let Some((i, part)) = current {
            out.push(((i, object), part));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncfix_kir::EntityRef;

    #[test]
    fn small_parts_of_one_object_merge_up_to_the_cap_in_interval_order() {
        let (a, b) = (Some(ObjectId::new(0)), Some(ObjectId::new(1)));
        let mut parts = BTreeMap::new();
        // Object a: five intervals of 5 properties; object b: one of 20; the rest: two of 1.
        for i in 0..5 {
            parts.insert((i, a), (10 * i as u32 + 3, (5 * i..5 * i + 5).collect::<Vec<usize>>()));
        }
        parts.insert((2, b), (25, (100..120).collect()));
        parts.insert((0, None), (1, vec![200]));
        parts.insert((4, None), (41, vec![201]));
        let out = merged(parts);
        let summary: Vec<(usize, Option<ObjectId>, u32, usize)> =
            out.iter().map(|((i, o), (first, ps))| (*i, *o, *first, ps.len())).collect();
        assert_eq!(summary, vec![(0, None, 1, 2), (0, a, 3, 15), (3, a, 33, 10), (2, b, 25, 20)]);
        // Every property is in exactly one part.
        let mut all: Vec<usize> = out.into_iter().flat_map(|(_, (_, ps))| ps).collect();
        all.sort_unstable();
        assert_eq!(all, (0..25).chain(100..120).chain(200..202).collect::<Vec<_>>());
    }
}
