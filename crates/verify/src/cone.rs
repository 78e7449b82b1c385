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

use std::collections::HashMap;
use z3::ast::{Ast, Bool, Dynamic};
use z3::{DeclKind, Model};

/// One assumption: `ok → ok_parent ∧ cond`.
struct Def<'ctx> {
    ok: Bool<'ctx>,
    parent: Option<usize>,
    cond: Bool<'ctx>,
    /// A fresh constant of the assumption (its class), or `None`: over inputs only, such an
    /// assumption is in every cone.
    rep: Option<u32>,
}

/// The assumptions of one encoding, shared by the states of the encoder (`State::assume`).
pub(crate) struct Assumptions<'ctx> {
    defs: Vec<Def<'ctx>>,
    /// Each `ok` constant's definition.
    index: HashMap<Bool<'ctx>, usize>,
    /// Fresh constants (by name) and their union-find.
    names: HashMap<String, u32>,
    parent: Vec<u32>,
    /// Per visited term: a fresh constant whose class holds all of the term's, or `None`.
    memo: HashMap<Dynamic<'ctx>, Option<u32>>,
}

/// The facts to assert for some formulas: their `ok` constants' chains, compressed to the
/// assumptions of their cone, and those assumptions.
pub(crate) struct Slice<'ctx> {
    pub facts: Vec<Bool<'ctx>>,
    /// The formulas' `ok` constants (definitions).
    oks: Vec<usize>,
    /// The assumptions on their chains left out.
    dropped: Vec<usize>,
}

impl std::fmt::Debug for Assumptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Assumptions({})", self.defs.len())
    }
}

impl<'ctx> Default for Assumptions<'ctx> {
    fn default() -> Self {
        Assumptions { defs: vec![], index: HashMap::new(), names: HashMap::new(), parent: vec![], memo: HashMap::new() }
    }
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

    /// How many assumptions have been recorded.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// The facts that `formulas`, built where `oks` held (each a `State::ok`), need from the
    /// assumptions of their cone of influence.
    pub fn slice(&mut self, formulas: &[&Bool<'ctx>], oks: &[&Bool<'ctx>]) -> Slice<'ctx> {
        let cone = self.classes_of(formulas);
        let mut oks: Vec<usize> = oks.iter().filter_map(|o| self.index.get(*o).copied()).collect();
        oks.sort_unstable();
        oks.dedup();
        // Per definition on the chains: its nearest selected ancestor-or-self (memoised).
        let mut nearest: HashMap<usize, Option<usize>> = HashMap::new();
        let mut facts = vec![];
        let mut dropped = vec![];
        let mut selected_seen: Vec<usize> = vec![];
        for &n in &oks {
            let mut path = vec![];
            let mut cur = Some(n);
            let mut found: Option<usize> = None;
            while let Some(d) = cur {
                if let Some(&f) = nearest.get(&d) {
                    found = f;
                    break;
                }
                path.push(d);
                let sel = match self.defs[d].rep {
                    None => true,
                    Some(r) => cone.contains(&self.find(r)),
                };
                if sel {
                    found = Some(d);
                    break;
                }
                cur = self.defs[d].parent;
            }
            // Every node of `path` before the selected one was left out; `found` is the nearest
            // selected for all of them.
            for &d in &path {
                if Some(d) != found {
                    dropped.push(d);
                }
                nearest.insert(d, found);
            }
            if let Some(s) = found {
                if s != n {
                    facts.push(self.defs[n].ok.implies(&self.defs[s].ok));
                }
                if path.last() == Some(&s) {
                    selected_seen.push(s);
                }
            }
        }
        // Each selected definition: its assumption, and the link to its own nearest selected
        // ancestor (found the same way, continuing up the chain).
        let mut i = 0;
        while i < selected_seen.len() {
            let s = selected_seen[i];
            i += 1;
            facts.push(self.defs[s].ok.implies(&self.defs[s].cond));
            let mut path = vec![];
            let mut cur = self.defs[s].parent;
            let mut found: Option<usize> = None;
            while let Some(d) = cur {
                if let Some(&f) = nearest.get(&d) {
                    found = f;
                    break;
                }
                path.push(d);
                let sel = match self.defs[d].rep {
                    None => true,
                    Some(r) => cone.contains(&self.find(r)),
                };
                if sel {
                    found = Some(d);
                    break;
                }
                cur = self.defs[d].parent;
            }
            for &d in &path {
                if Some(d) != found {
                    dropped.push(d);
                }
                nearest.insert(d, found);
            }
            if let Some(a) = found {
                facts.push(self.defs[s].ok.implies(&self.defs[a].ok));
                if path.last() == Some(&a) {
                    selected_seen.push(a);
                }
            }
        }
        if std::env::var_os("SYNCFIX_DEBUG_CONE").is_some() {
            for &s in &selected_seen {
                let t = self.defs[s].cond.to_string().replace('\n', " ");
                eprintln!("cone: {s} {:?}: {}", self.defs[s].rep, &t[..t.len().min(300)]);
            }
        }
        Slice { facts, oks, dropped }
    }

    /// Every assumption on the chains of `slice`'s `ok` constants: the facts of the whole
    /// prefix, as the encoding had them before slicing.
    pub fn full(&self, slice: &Slice<'ctx>) -> Vec<Bool<'ctx>> {
        let mut seen = std::collections::HashSet::new();
        let mut facts = vec![];
        for &n in &slice.oks {
            let mut cur = Some(n);
            while let Some(d) = cur {
                if !seen.insert(d) {
                    break;
                }
                let def = &self.defs[d];
                facts.push(def.ok.implies(&def.cond));
                if let Some(p) = def.parent {
                    facts.push(def.ok.implies(&self.defs[p].ok));
                }
                cur = def.parent;
            }
        }
        facts
    }

    /// The classes of the fresh constants of `formulas` (not unioned: a formula may join
    /// the states of two loops, as a loop's entry check does, without making every later
    /// query about the one need the other's assumptions).
    fn classes_of(&mut self, formulas: &[&Bool<'ctx>]) -> std::collections::HashSet<u32> {
        let mut cone = std::collections::HashSet::new();
        let mut seen: std::collections::HashSet<Dynamic<'ctx>> = std::collections::HashSet::new();
        let mut stack: Vec<Dynamic<'ctx>> = formulas.iter().map(|f| Dynamic::from_ast(*f)).collect();
        while let Some(n) = stack.pop() {
            if let Some(r) = self.memo.get(&n).copied() {
                // Made of assumptions' terms: its constants are one class.
                if let Some(r) = r {
                    let root = self.find(r);
                    cone.insert(root);
                }
                continue;
            }
            if !n.is_app() || !seen.insert(n.clone()) {
                continue;
            }
            if let Some(id) = self.fresh_id(&n) {
                let root = self.find(id);
                cone.insert(root);
            }
            stack.extend(n.children());
        }
        cone
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
    /// Whether `model` (of the sliced formula) is one of the whole: every assumption left out
    /// on the chain of an `ok` that the model makes true holds in it (with model completion;
    /// the `ok` constants of those assumptions are then all true, and every definition holds).
    pub fn holds_in(&self, asm: &Assumptions<'ctx>, model: &Model<'ctx>) -> bool {
        if self.dropped.is_empty() {
            return true;
        }
        // The chains of the true `ok`s.
        let mut on = std::collections::HashSet::new();
        for &n in &self.oks {
            if model.eval(&asm.defs[n].ok, true).and_then(|b| b.as_bool()) == Some(false) {
                continue;
            }
            let mut cur = Some(n);
            while let Some(d) = cur {
                if !on.insert(d) {
                    break;
                }
                cur = asm.defs[d].parent;
            }
        }
        self.dropped
            .iter()
            .filter(|d| on.contains(d))
            .all(|&d| model.eval(&asm.defs[d].cond, true).and_then(|b| b.as_bool()) == Some(true))
    }

    /// How many assumptions were left out.
    pub fn dropped(&self) -> usize {
        self.dropped.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;
    use z3::{Config, Context, SatResult, Solver};

    /// Two loops' worth of assumptions over their own fresh constants: a formula about the
    /// second gets the second's assumptions and the one over inputs only, not the first's;
    /// the slice alone refutes what the assumptions refute; a model that breaks an assumption
    /// left out is detected, and `full` gives every assumption.
    #[test]
    fn slices_hold_the_cone_only() {
        let ctx = Context::new(&Config::new());
        let m = BV::new_const(&ctx, "m", 32);
        let x = BV::new_const(&ctx, "x!1", 32);
        let y = BV::new_const(&ctx, "y!2", 32);
        let z = BV::new_const(&ctx, "z!3", 32);
        let mut asm = Assumptions::default();
        let t = Bool::from_bool(&ctx, true);
        let ok1 = asm.assume(&t, &x.bvult(&m)); // first loop: x < m
        let ok2 = asm.assume(&ok1, &x._eq(&BV::from_u64(&ctx, 7, 32))); // x == 7
        let ok3 = asm.assume(&ok2, &m.bvugt(&BV::from_u64(&ctx, 3, 32))); // inputs only: m > 3
        let ok4 = asm.assume(&ok3, &y.bvule(&z)); // second loop: y <= z
        let ok5 = asm.assume(&ok4, &z._eq(&BV::from_u64(&ctx, 5, 32))); // z == 5
        // Violated when y > 5 under ok5: refuted by the second loop's assumptions alone.
        let cond = Bool::and(&ctx, &[&ok5, &y.bvugt(&BV::from_u64(&ctx, 5, 32))]);
        let slice = asm.slice(&[&cond], &[&ok5]);
        assert_eq!(slice.dropped(), 2, "the first loop's two assumptions are left out");
        let text: Vec<String> = slice.facts.iter().map(|f| f.to_string()).collect();
        assert!(text.iter().all(|f| !f.contains("x!1")), "{text:?}");
        assert!(text.iter().any(|f| f.contains("#x00000003")), "the assumption over inputs is kept: {text:?}");
        let s = Solver::new(&ctx);
        for f in &slice.facts {
            s.assert(f);
        }
        s.assert(&cond);
        assert_eq!(s.check(), SatResult::Unsat);
        // A property the slice cannot refute, whose model says nothing about x: completion
        // gives x = 0, which breaks `x == 7`, so the model is not taken as one of the whole.
        let cond2 = Bool::and(&ctx, &[&ok5, &y.bvult(&BV::from_u64(&ctx, 5, 32))]);
        let slice2 = asm.slice(&[&cond2], &[&ok5]);
        let s2 = Solver::new(&ctx);
        for f in &slice2.facts {
            s2.assert(f);
        }
        s2.assert(&cond2);
        assert_eq!(s2.check(), SatResult::Sat);
        let model = s2.get_model().unwrap();
        assert!(!slice2.holds_in(&asm, &model));
        let full = asm.full(&slice2);
        assert_eq!(full.iter().filter(|f| f.to_string().contains("x!1")).count(), 2);
        let s3 = Solver::new(&ctx);
        for f in &full {
            s3.assert(f);
        }
        s3.assert(&cond2);
        assert_eq!(s3.check(), SatResult::Sat);
        // A model of the whole formula is one.
        assert!(slice2.holds_in(&asm, &s3.get_model().unwrap()));
    }
}
