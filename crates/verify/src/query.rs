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
        let conds: Vec<&Bool<'ctx>> = self.props[props].iter().map(|&i| &enc.props[i].cond).collect();
        Bool::and(ctx, &[&self.lit, &crate::term::or(ctx, &conds)])
    }
}

/// Partitions `enc.props` into queries, in the order of their first property in the lock-step
/// schedule (so the first satisfiable query holds the earliest violation that any model has:
/// every earlier property is in an earlier query, found unsatisfiable before).
pub(crate) fn split<'ctx>(ctx: &'ctx Context, k: &Kernel, enc: &Encoding<'ctx>) -> Vec<Query<'ctx>> {
    let mut barrier_pos: Vec<u32> = enc.barriers.iter().filter(|b| !b.ghost).map(|b| b.pos).collect();
    barrier_pos.sort_unstable();
    // (interval, a race's object or none for the rest) -> (first position, properties).
    type Key = (usize, Option<ObjectId>);
    let mut parts: BTreeMap<Key, (u32, Vec<usize>)> = BTreeMap::new();
    for (i, p) in enc.props.iter().enumerate() {
        let interval = barrier_pos.partition_point(|&b| b < p.pos);
        let object = match &p.kind {
            PropKind::Race { check, .. } => Some(enc.accesses[*check].object),
            _ => None,
        };
        let e = parts.entry((interval, object)).or_insert((p.pos, Vec::new()));
        e.0 = e.0.min(p.pos);
        e.1.push(i);
    }
    let mut parts: Vec<(Key, (u32, Vec<usize>))> = parts.into_iter().collect();
    parts.sort_by_key(|(key, (first, _))| (*first, *key));
    parts
        .into_iter()
        .enumerate()
        .map(|(n, ((interval, object), (_, mut props)))| {
            props.sort_by_key(|&i| (enc.props[i].pos, i));
            let label = match object {
                None => format!("interval {interval}"),
                Some(o) => format!("races on `{}`, interval {interval}", k.objects[o].name),
            };
            let logs = object.map_or(LogUse::All, LogUse::Object);
            Query { lit: Bool::new_const(ctx, format!("query!{n}")), props, label, logs }
        })
        .collect()
}
