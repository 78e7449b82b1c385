//! The assumptions made along the schedule, and each formula's cone of influence among them
//! (issue 25: cost linear in the kernel; DESIGN.md §6).
//!
//! Boogie's `assume` makes every later property conditional on it, so every violation
//! condition used to hold the conjunction of all assumptions before it (`State::ok`): each
//! query carried the whole prefix of the kernel, and the `loops` scaling family's queries grew
//! with their position (its queries of the 8th loop nest were 5 times the 1st's). Here the
//! state's `ok` is a Boolean constant, one per assumption, defined by the facts
//! `ok_k → ok_parent(k) ∧ c_k` (Tseitin-style; `ok` occurs only positively in conditions, so the
//! implication is as strong as the equivalence). A query is solved with the facts of only
//! those assumptions in its cone of influence: the assumptions that share a fresh constant
//! with its conditions, transitively (a union-find over the fresh constants, those whose
//! name holds `!`; the threads' ids, sizes, parameters and barrier variables are the
//! kernel's inputs and link nothing). Leaving an assumption out only adds executions, so an
//! unsatisfiable slice proves the query (Faial, CAV 2021, checks each barrier interval and
//! array on its own for the same reason). A satisfiable slice is a real violation when the
//! assumptions left out hold in its model ([`Slice::holds_in`]); otherwise the caller solves
//! again with every assumption ([`Assumptions::full`]).

use crate::encode::encoding::LogUse;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

/// A hash map with a fixed hasher, for maps that hold Z3 terms: a map's order of dropping its
/// terms decides which ids Z3 recycles, and so the models it gives (std's random hasher made
/// a counterexample's values vary between runs of one kernel).
pub(crate) type TermMap<K, V> = HashMap<K, V, BuildHasherDefault<std::collections::hash_map::DefaultHasher>>;
/// A hash set with a fixed hasher (see [`TermMap`]).
pub(crate) type TermSet<K> = HashSet<K, BuildHasherDefault<std::collections::hash_map::DefaultHasher>>;
use syncfix_kir::ObjectId;
use z3::ast::{Ast, Bool, Dynamic};
use z3::{DeclKind, Model};

mod recheck;

/// One assumption: `ok → ok_parent ∧ cond`.
struct Def<'ctx> {
    ok: Bool<'ctx>,
    parent: Option<usize>,
    cond: Bool<'ctx>,
    /// A fresh constant of the assumption (its class), or `None`: over inputs only, such an
    /// assumption is in every cone.
    rep: Option<u32>,
}

/// A loop cut's facts about one object's race logs at its head (`Encoding::log_facts`):
/// `logs_ok → facts`, where `logs_ok` is an assumption of the cut.
struct LogFactDef<'ctx> {
    fact: Bool<'ctx>,
    object: ObjectId,
    stamp: u32,
    /// Its fresh constants (ids of the union-find).
    ids: Vec<u32>,
}

/// The assumptions and loop cuts' log facts of one encoding, shared by the states of the
/// encoder (`State::assume`, `Encoder::assert_log_fact`).
#[derive(Default)]
pub(crate) struct Assumptions<'ctx> {
    defs: Vec<Def<'ctx>>,
    facts: Vec<LogFactDef<'ctx>>,
    /// Each `ok` constant's definition.
    index: TermMap<Bool<'ctx>, usize>,
    /// Fresh constants (by name) and their union-find.
    names: HashMap<String, u32>,
    parent: Vec<u32>,
    /// Per visited term: a fresh constant whose class holds all of the term's, or `None`.
    memo: TermMap<Dynamic<'ctx>, Option<u32>>,
    /// Per class (root) and set of its assumptions left out: values of the class's own
    /// constants that satisfied them with the values of the rest that some model had
    /// ([`Assumptions::recheck`]), tried first with a new model's.
    witnesses: HashMap<(u32, Vec<usize>), Vec<Vec<(Dynamic<'ctx>, Dynamic<'ctx>)>>>,
    /// Per class (root) and set of its assumptions: the constants they mention from outside
    /// the class (and the literals fixed by the caller), and their own constants.
    pins: HashMap<(u32, Vec<usize>), (Vec<Dynamic<'ctx>>, Vec<Dynamic<'ctx>>)>,
    /// Per class (root), set of its assumptions left out and values of the constants they
    /// share (`pins`): found satisfiable together ([`Assumptions::recheck`]). Whether they
    /// are depends on those values only, so a later model with the same values needs none
    /// of their conditions evaluated (each model of the `loops` family's last unwinding
    /// checks and Houdini rounds left out the classes of some 120 earlier loops).
    satisfiable: HashSet<ClassValues<'ctx>>,
    /// How many times a class was set aside that way.
    settled: usize,
}

/// A class (root), a set of its assumptions, and values of the constants they share with the
/// rest (see `Assumptions::satisfiable`).
type ClassValues<'ctx> = (u32, Vec<usize>, Vec<Dynamic<'ctx>>);

/// The facts to assert for some formulas: their `ok` constants' chains, compressed to the
/// assumptions of their cone, those assumptions, and the loop cuts' log facts of the cone.
pub(crate) struct Slice<'ctx> {
    pub facts: Vec<Bool<'ctx>>,
    /// How many of `facts` are loop cuts' log facts.
    pub log_facts: usize,
    /// The formulas' `ok` constants (definitions).
    oks: Vec<usize>,
    /// The assumptions on their chains left out.
    dropped: Vec<usize>,
    /// The log facts that the formulas may need (`logs`, `stamp`) left out.
    dropped_facts: Vec<usize>,
    /// Those taken (a log fact may mention the fresh constants of several classes: those of
    /// the log before its loop and of the loop's own).
    kept_facts: Vec<usize>,
    /// The classes of the cone.
    cone: HashSet<u32>,
    logs: LogUse,
    stamp: u32,
    /// Every assumption and log fact is in.
    pub full: bool,
    /// The cone it started from (before any widening by [`Assumptions::recheck`]).
    initial: HashSet<u32>,
}

/// What a query's slice was widened by ([`Slice::widened`]), to start its next slices from
/// (the chunks of one query lean on the same facts: HeCBench nbnxm's 281 race properties on
/// its shared buffer, where every chunk's first answer broke the same left-out assumption).
#[derive(Clone, Debug, Default)]
pub(crate) struct Widened {
    /// Members of the classes added (their roots when recorded).
    classes: Vec<u32>,
    /// The slice took every fact.
    full: bool,
}

impl Slice<'_> {
    /// The classes this slice holds beyond those it started from, and whether it is full;
    /// `None` when it was not widened.
    pub fn widened(&self) -> Option<Widened> {
        let mut classes: Vec<u32> = self.cone.difference(&self.initial).copied().collect();
        classes.sort_unstable();
        (self.full || !classes.is_empty()).then_some(Widened { classes, full: self.full })
    }
}

impl Widened {
    /// Every assumption and log fact (a slice that is not narrowed at all).
    pub fn every() -> Widened {
        Widened { classes: vec![], full: true }
    }

    /// Both widenings together.
    pub fn merge(&mut self, other: Widened) {
        self.full |= other.full;
        for c in other.classes {
            if !self.classes.contains(&c) {
                self.classes.push(c);
            }
        }
    }
}

impl std::fmt::Debug for Assumptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Assumptions({}, {} log facts)", self.defs.len(), self.facts.len())
    }
}

/// How many times a slice is widened by the classes of the facts a model broke before every
/// fact is taken.
const MAX_REFINEMENTS: usize = 4;

/// How many witnesses are remembered per class ([`Assumptions::recheck`]).
const MAX_WITNESSES: usize = 4;
/// How many classes with their values [`Assumptions::recheck`] remembers as satisfiable
/// (`Assumptions::satisfiable`) before it starts again from none.
const MAX_SATISFIABLE: usize = 1 << 16;

/// Solves one class of assumptions left out of a slice, its shared constants pinned
/// ([`Assumptions::recheck`]): `Some(Some(model))` when satisfiable, `Some(None)` when not,
/// `None` when undecided.
pub(crate) type SolveClass<'a, 'ctx> = dyn FnMut(&[Bool<'ctx>]) -> Option<Option<Model<'ctx>>> + 'a;

/// The constant of a literal (`c` or `¬c`), or the literal itself.
fn atom<'ctx>(l: &Bool<'ctx>) -> Dynamic<'ctx> {
    if !l.is_const() && l.decl().kind() == DeclKind::NOT {
        if let Some(c) = l.nth_child(0) {
            return c;
        }
    }
    Dynamic::from_ast(l)
}

/// The constants (uninterpreted, no arguments) that occur in `formulas`, each shared subterm
/// walked once.
pub(crate) fn constants<'ctx>(formulas: &[&Bool<'ctx>]) -> Vec<Dynamic<'ctx>> {
    let mut out = vec![];
    let mut seen: TermSet<Dynamic<'ctx>> = TermSet::default();
    let mut stack: Vec<Dynamic<'ctx>> = formulas.iter().map(|f| Dynamic::from_ast(*f)).collect();
    while let Some(t) = stack.pop() {
        if !t.is_app() || !seen.insert(t.clone()) {
            continue;
        }
        if t.is_const() {
            if t.decl().kind() == DeclKind::UNINTERPRETED {
                out.push(t);
            }
            continue;
        }
        stack.extend(t.children());
    }
    out
}

impl<'ctx> Assumptions<'ctx> {
    /// Records the assumption `cond` made where `prev` held; returns the new `ok` constant.
    pub fn assume(&mut self, prev: &Bool<'ctx>, cond: &Bool<'ctx>) -> Bool<'ctx> {
        let ctx = cond.get_ctx();
        let k = self.defs.len();
        let ok = Bool::new_const(ctx, format!("ok#{k}"));
        let parent = self.index.get(prev).copied();
        let rep = self.rep_of(&Dynamic::from_ast(cond));
        self.defs.push(Def { ok: ok.clone(), parent, cond: cond.clone(), rep });
        self.index.insert(ok.clone(), k);
        ok
    }

    /// Records a loop cut's log fact `fact` (`guard → …`) about `object`'s logs, made with
    /// stamp `stamp`: the guard joins the class of `own`, the havocked log fields it
    /// describes (so that a formula about them takes the guard's assumption and the fact).
    pub fn add_log_fact(&mut self, fact: &Bool<'ctx>, object: ObjectId, stamp: u32, guard: &Bool<'ctx>, own: &[Dynamic<'ctx>]) {
        let mut rep = self.rep_of(&Dynamic::from_ast(guard));
        for o in own {
            if let Some(r) = self.rep_of(o) {
                rep = Some(match rep {
                    None => r,
                    Some(x) => self.union(x, r),
                });
            }
        }
        let ids = self.fresh_ids(&[fact]);
        self.facts.push(LogFactDef { fact: fact.clone(), object, stamp, ids });
    }

    /// How many assumptions have been recorded.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// The facts that `formulas`, built where `oks` held (each a `State::ok`) and reading the
    /// logs `logs` by stamp `stamp`, need from the assumptions and log facts of their cone of
    /// influence.
    ///
    /// `widened` is what an earlier slice of the same query was widened by
    /// ([`Slice::widened`]): its classes are taken from the start, and every fact when it
    /// was full.
    pub fn slice(
        &mut self,
        formulas: &[&Bool<'ctx>],
        oks: &[&Bool<'ctx>],
        logs: LogUse,
        stamp: u32,
        widened: Option<&Widened>,
    ) -> Slice<'ctx> {
        let ids = self.fresh_ids(formulas);
        let mut cone: HashSet<u32> = ids.into_iter().map(|i| self.find(i)).collect();
        let mut full = false;
        if let Some(w) = widened {
            full = w.full;
            for &c in &w.classes {
                let r = self.find(c);
                cone.insert(r);
            }
        }
        let initial = cone.clone();
        let mut oks: Vec<usize> = oks.iter().filter_map(|o| self.index.get(*o).copied()).collect();
        oks.sort_unstable();
        oks.dedup();
        let mut slice = self.select(cone, oks, logs, stamp, full);
        slice.initial = initial;
        slice
    }

    /// The id of `c`'s function symbol if it is a fresh constant seen before.
    fn fresh_id_of(&self, c: &Dynamic<'ctx>) -> Option<u32> {
        self.names.get(&c.decl().name()).copied()
    }

    /// The slice of the cone `cone` (every fact when `full`).
    fn select(&mut self, cone: HashSet<u32>, oks: Vec<usize>, logs: LogUse, stamp: u32, full: bool) -> Slice<'ctx> {
        let selected = |asm: &mut Self, d: usize| -> bool {
            full || match asm.defs[d].rep {
                None => true,
                Some(r) => {
                    let root = asm.find(r);
                    cone.contains(&root)
                }
            }
        };
        // Per definition on the chains: its nearest selected ancestor-or-self (memoised).
        let mut nearest: HashMap<usize, Option<usize>> = HashMap::new();
        let mut facts = vec![];
        let mut dropped = vec![];
        let mut queue: Vec<usize> = vec![];
        // Walks up from `start`; returns the nearest selected definition, recording the
        // definitions passed and left out.
        let walk = |asm: &mut Self,
                    start: Option<usize>,
                    nearest: &mut HashMap<usize, Option<usize>>,
                    dropped: &mut Vec<usize>,
                    queue: &mut Vec<usize>|
         -> Option<usize> {
            let mut path = vec![];
            let mut cur = start;
            let mut found: Option<usize> = None;
            while let Some(d) = cur {
                if let Some(&f) = nearest.get(&d) {
                    found = f;
                    break;
                }
                path.push(d);
                if selected(asm, d) {
                    found = Some(d);
                    queue.push(d);
                    break;
                }
                cur = asm.defs[d].parent;
            }
            for &d in &path {
                if Some(d) != found {
                    dropped.push(d);
                }
                nearest.insert(d, found);
            }
            found
        };
        for &n in &oks {
            if let Some(s) = walk(self, Some(n), &mut nearest, &mut dropped, &mut queue) {
                if s != n {
                    facts.push(self.defs[n].ok.implies(&self.defs[s].ok));
                }
            }
        }
        // Each selected definition: its assumption, and the link to its own nearest selected
        // ancestor.
        let mut i = 0;
        while i < queue.len() {
            let s = queue[i];
            i += 1;
            facts.push(self.defs[s].ok.implies(&self.defs[s].cond));
            let parent = self.defs[s].parent;
            if let Some(a) = walk(self, parent, &mut nearest, &mut dropped, &mut queue) {
                facts.push(self.defs[s].ok.implies(&self.defs[a].ok));
            }
        }
        // The log facts the formulas may read.
        let wanted = |o: ObjectId| match logs {
            LogUse::None => false,
            LogUse::Object(x) => x == o,
            LogUse::All => true,
        };
        let mut dropped_facts = vec![];
        let mut kept_facts = vec![];
        let mut log_facts = 0;
        for i in 0..self.facts.len() {
            if self.facts[i].stamp > stamp || !wanted(self.facts[i].object) {
                continue;
            }
            let ids = self.facts[i].ids.clone();
            if full
                || ids.into_iter().any(|x| {
                    let r = self.find(x);
                    cone.contains(&r)
                })
            {
                facts.push(self.facts[i].fact.clone());
                log_facts += 1;
                kept_facts.push(i);
            } else {
                dropped_facts.push(i);
            }
        }
        if std::env::var_os("SYNCFIX_DEBUG_CONE").is_some() {
            eprintln!(
                "cone: {} classes, {} facts ({} log facts), {} assumptions and {} log facts left out{}",
                cone.len(),
                facts.len(),
                log_facts,
                dropped.len(),
                dropped_facts.len(),
                if full { " (full)" } else { "" }
            );
        }
        let initial = cone.clone();
        Slice { facts, log_facts, oks, dropped, dropped_facts, kept_facts, cone, logs, stamp, full, initial }
    }

    /// The fresh constants of `formulas` (as ids; not unioned: a formula may join the states
    /// of two loops, as a loop's entry check does, without making every later query about
    /// the one need the other's assumptions). A term made of assumptions' terms gives its
    /// class's representative.
    fn fresh_ids(&mut self, formulas: &[&Bool<'ctx>]) -> Vec<u32> {
        let mut out = HashSet::new();
        let mut seen: TermSet<Dynamic<'ctx>> = TermSet::default();
        let mut stack: Vec<Dynamic<'ctx>> = formulas.iter().map(|f| Dynamic::from_ast(*f)).collect();
        while let Some(n) = stack.pop() {
            if let Some(r) = self.memo.get(&n).copied() {
                if let Some(r) = r {
                    out.insert(r);
                }
                continue;
            }
            if !n.is_app() || !seen.insert(n.clone()) {
                continue;
            }
            if let Some(id) = self.fresh_id(&n) {
                out.insert(id);
            }
            stack.extend(n.children());
        }
        let mut v: Vec<u32> = out.into_iter().collect();
        v.sort_unstable();
        v
    }

    /// The representative of `t`'s fresh constants (all unioned into one class), walking the
    /// terms not seen before.
    fn rep_of(&mut self, t: &Dynamic<'ctx>) -> Option<u32> {
        if let Some(r) = self.memo.get(t) {
            return r.map(|r| self.find(r));
        }
        let mut stack: Vec<(Dynamic<'ctx>, bool)> = vec![(t.clone(), false)];
        while let Some((n, expanded)) = stack.pop() {
            if self.memo.contains_key(&n) {
                continue;
            }
            if !n.is_app() {
                self.memo.insert(n, None);
                continue;
            }
            let kids = n.children();
            if !expanded {
                stack.push((n, true));
                for k in kids {
                    if !self.memo.contains_key(&k) {
                        stack.push((k, false));
                    }
                }
                continue;
            }
            let mut rep = self.fresh_id(&n);
            for k in &kids {
                if let Some(Some(r)) = self.memo.get(k).copied() {
                    rep = Some(match rep {
                        None => r,
                        Some(x) => self.union(x, r),
                    });
                }
            }
            self.memo.insert(n, rep);
        }
        self.memo.get(t).copied().flatten().map(|r| self.find(r))
    }

    /// The id of `n`'s function symbol when it is a fresh uninterpreted one (`ok#k` is not).
    fn fresh_id(&mut self, n: &Dynamic<'ctx>) -> Option<u32> {
        let d = n.decl();
        if d.kind() != DeclKind::UNINTERPRETED {
            return None;
        }
        let name = d.name();
        if !name.contains('!') {
            return None;
        }
        let next = self.parent.len() as u32;
        let id = *self.names.entry(name).or_insert(next);
        if id == next {
            self.parent.push(next);
        }
        Some(id)
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[b as usize] = a;
        }
        a
    }
}

impl<'ctx> Slice<'ctx> {
    /// How many assumptions were left out.
    pub fn dropped(&self) -> usize {
        self.dropped.len()
    }

    /// Whether an assumption or a log fact was left out (a satisfiable answer may then be
    /// spurious, see [`Assumptions::recheck`]).
    pub fn is_narrow(&self) -> bool {
        !self.full && (!self.dropped.is_empty() || !self.dropped_facts.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;
    use z3::{Config, Context, SatResult, Solver};

    /// A class's facts solved on a solver of their own, answered as `recheck`'s `solve_class`
    /// is (a model when satisfiable, `Some(None)` when not, `None` when undecided).
    fn solve_on_its_own<'c>(ctx: &'c Context, facts: &[Bool<'c>]) -> Option<Option<Model<'c>>> {
        let s = Solver::new(ctx);
        for f in facts {
            s.assert(f);
        }
        match s.check() {
            SatResult::Sat => Some(s.get_model()),
            SatResult::Unsat => Some(None),
            SatResult::Unknown => None,
        }
    }

    /// Two loops' worth of assumptions over their own fresh constants: a formula about the
    /// second gets the second's assumptions and the one over inputs only, not the first's;
    /// the slice alone refutes what the assumptions refute; a model that breaks an assumption
    /// left out is detected and the slice widened to its class, whose model is one of the
    /// whole.
    #[test]
    fn slices_hold_the_cone_only() {
        let ctx = Context::new(&Config::new());
        let m = BV::new_const(&ctx, "m", 32);
        let x = BV::new_const(&ctx, "x!1", 32);
        let y = BV::new_const(&ctx, "y!2", 32);
        let z = BV::new_const(&ctx, "z!3", 32);
        let k = |v: u64| BV::from_u64(&ctx, v, 32);
        let mut asm = Assumptions::default();
        let t = Bool::from_bool(&ctx, true);
        let ok1 = asm.assume(&t, &x.bvult(&m)); // first loop: x < m
        let ok2 = asm.assume(&ok1, &x._eq(&k(7))); // x == 7
        let ok3 = asm.assume(&ok2, &m.bvugt(&k(3))); // inputs only: m > 3
        let ok4 = asm.assume(&ok3, &y.bvule(&z)); // second loop: y <= z
        let ok5 = asm.assume(&ok4, &z._eq(&k(5))); // z == 5
        let solve = |facts: &[Bool], cond: &Bool| {
            let s = Solver::new(&ctx);
            for f in facts {
                s.assert(f);
            }
            s.assert(cond);
            let r = s.check();
            (r, s.get_model())
        };
        // Violated when y > 5 under ok5: refuted by the second loop's assumptions alone.
        let cond = Bool::and(&ctx, &[&ok5, &y.bvugt(&k(5))]);
        let slice = asm.slice(&[&cond], &[&ok5], LogUse::None, 0, None);
        assert_eq!(slice.dropped(), 2, "the first loop's two assumptions are left out");
        let text: Vec<String> = slice.facts.iter().map(|f| f.to_string()).collect();
        assert!(text.iter().all(|f| !f.contains("x!1")), "{text:?}");
        assert!(text.iter().any(|f| f.contains("#x00000003")), "the assumption over inputs is kept: {text:?}");
        assert_eq!(solve(&slice.facts, &cond).0, SatResult::Unsat);
        // Solving one class on its own, its inputs pinned (as `apart::class_satisfiable`).
        let mut solve_class = |facts: &[_]| solve_on_its_own(&ctx, facts);
        // A satisfiable property whose model says nothing about x: completion gives x = 0,
        // which breaks `x == 7`; with m = 9, x's class holds on its own (x = 7), so the model
        // extends to one of the whole and nothing is widened.
        let cond2 = Bool::and(&ctx, &[&ok5, &y.bvult(&k(5)), &m._eq(&k(9))]);
        let slice2 = asm.slice(&[&cond2], &[&ok5], LogUse::None, 0, None);
        let (r, model) = solve(&slice2.facts, &cond2);
        assert_eq!(r, SatResult::Sat);
        assert!(asm.recheck(&slice2, &model.unwrap(), 0, &[], &mut solve_class).is_none(), "x = 7 < m = 9 holds");
        // With m = 5, `x < m ∧ x == 7` cannot hold: the slice is widened by x's class, whose
        // answer (unsatisfiable) is the whole's.
        let cond3 = Bool::and(&ctx, &[&ok5, &y.bvult(&k(5)), &m._eq(&k(5))]);
        let slice3 = asm.slice(&[&cond3], &[&ok5], LogUse::None, 0, None);
        let (r, model) = solve(&slice3.facts, &cond3);
        assert_eq!(r, SatResult::Sat);
        let wider = asm.recheck(&slice3, &model.unwrap(), 0, &[], &mut solve_class).expect("x's class cannot hold with m = 5");
        assert_eq!(wider.dropped(), 0);
        assert!(wider.facts.iter().any(|f| f.to_string().contains("x!1")));
        assert_eq!(solve(&wider.facts, &cond3).0, SatResult::Unsat);
    }

    /// A class left out that was found satisfiable with some values of what it shares is not
    /// looked at again for a model with the same values (no condition evaluated, no solver
    /// call), but is for other values; an own constant that the caller's literals set (a
    /// candidate's) is part of those values: the class is settled for the candidate false,
    /// not for it true.
    #[test]
    fn a_class_found_satisfiable_is_settled_for_the_same_values() {
        let ctx = Context::new(&Config::new());
        let m = BV::new_const(&ctx, "m", 32);
        let x = BV::new_const(&ctx, "x!1", 32);
        let y = BV::new_const(&ctx, "y!2", 32);
        let cand = Bool::new_const(&ctx, "cand!9");
        let k = |v: u64| BV::from_u64(&ctx, v, 32);
        let mut asm = Assumptions::default();
        let t = Bool::from_bool(&ctx, true);
        let ok1 = asm.assume(&t, &x.bvult(&m)); // x < m
        let ok2 = asm.assume(&ok1, &x._eq(&k(7))); // x == 7 (completion's x = 0 breaks it)
        let ok3 = asm.assume(&ok2, &cand.implies(&x.bvugt(&k(100)))); // a candidate: x > 100
        let ok4 = asm.assume(&ok3, &y.bvult(&k(50))); // another class: y < 50
        let calls = std::cell::Cell::new(0usize);
        let mut solve_class = |facts: &[_]| {
            calls.set(calls.get() + 1);
            solve_on_its_own(&ctx, facts)
        };
        // The slice of a formula over y, solved with m and the candidate's literal fixed (the
        // literal assumed, as Houdini's rounds do): whether it is widened.
        fn recheck<'c>(
            asm: &mut Assumptions<'c>,
            ok: &Bool<'c>,
            cond: Bool<'c>,
            lit: Bool<'c>,
            solve_class: &mut SolveClass<'_, 'c>,
        ) -> bool {
            let cond = Bool::and(cond.get_ctx(), &[ok, &cond]);
            let slice = asm.slice(&[&cond], &[ok], LogUse::None, 0, None);
            let s = Solver::new(cond.get_ctx());
            for f in &slice.facts {
                s.assert(f);
            }
            s.assert(&cond);
            assert_eq!(s.check_assumptions(std::slice::from_ref(&lit)), SatResult::Sat);
            asm.recheck(&slice, &s.get_model().unwrap(), 0, std::slice::from_ref(&lit), solve_class).is_some()
        }
        let over_y = |mv: u64| Bool::and(&ctx, &[&y.bvugt(&k(10)), &m._eq(&k(mv))]);
        let mut rechecks = |mv: u64, c: bool| {
            let (before, settled) = (calls.get(), asm.settled);
            let lit = if c { cand.clone() } else { cand.not() };
            let widened = recheck(&mut asm, &ok4, over_y(mv), lit, &mut solve_class);
            (widened, calls.get() - before, asm.settled - settled)
        };
        // m = 9, candidate false: x = 7 holds; the class is solved once.
        assert_eq!(rechecks(9, false), (false, 1, 0));
        // The same values again: settled, nothing solved.
        assert_eq!(rechecks(9, false), (false, 0, 1));
        // The candidate true: x > 100 and x < 9 cannot hold; the slice is widened.
        assert!(rechecks(9, true).0);
        // m = 5: x == 7 and x < 5 cannot hold, whatever was settled for m = 9.
        assert!(rechecks(5, false).0);
    }
}
