//! Answers that hold under other barrier assignments (issue 28: reuse what was proved).
//!
//! The repair loop asks the verifier about many barrier assignments of one encoding, and each
//! used to solve again every Houdini check and every query, though most of them do not
//! depend on the barrier variables that changed: a formula (the background, a slice of the
//! assumptions and log facts, a check's or query's condition) mentions only some of the
//! barrier variables, often none (a loop counter's bounds, an interval far from every site
//! that changed). So an unsatisfiable answer under the candidate invariants kept `K` holds
//! for every assignment that gives the variables it mentions the same values, and under
//! every kept set that contains `K`: a candidate's literal occurs only in its own check and
//! as the antecedent of its assumption at its loop's head (`lit → inv`), so turning one on
//! only strengthens a formula. Satisfiable answers are not kept: a model is checked against
//! the assumptions left out of its slice, which may mention other variables.
//! Measured on HeCBench's accuracy with a barrier deleted (10 assignments): Houdini's checks
//! solved 846 → 27 (173 s → 60 s for the repair).

use crate::cone::TermMap;
use crate::encode::Encoding;
use std::collections::HashMap;
use z3::ast::{Bool, Dynamic};

/// What an answer is of.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Answered {
    /// Houdini's check (an index into `Encoding::cand_checks`) on its own.
    Check(usize),
    /// A query (its index) with its properties `a..b`.
    Query(usize, usize, usize),
}

/// What an answer depends on: the values of the barrier variables its formula mentions (in
/// variable order), and which candidate invariants' literals it mentions at all. A literal
/// that the formula (background, slice, condition) does not mention occurs only in the
/// assumptions, as a unit: the answer is the same whether that candidate is kept or not, so
/// an unsatisfiable answer is remembered under the kept set restricted to the candidates
/// mentioned (an unsat core read off the formula's constants), and holds again after Houdini
/// drops a candidate it does not mention (HeCBench-style loop nests: a check of an inner
/// loop solved again after each drop in the outer loop).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Key {
    vars: Vec<(usize, bool)>,
    /// Per candidate: whether the formula mentions its literal.
    cands: Vec<bool>,
}

/// The answers remembered for one encoding.
#[derive(Default)]
pub(crate) struct AnswerMemo<'ctx> {
    /// The barrier variables by their constant (made on first use).
    vars: Option<TermMap<Dynamic<'ctx>, usize>>,
    /// The candidates by their literal (made on first use).
    cand_lits: Option<TermMap<Dynamic<'ctx>, usize>>,
    /// The barrier variables the background mentions.
    background: Vec<usize>,
    /// The candidates whose literals the background mentions.
    background_cands: Vec<usize>,
    /// The barrier assignment of the verifier call under way.
    pub assignment: Vec<bool>,
    /// The candidates kept by Houdini for the verifier call under way (its queries).
    pub kept: Vec<bool>,
    /// Per formula and key: the kept sets (a prefix of the candidates) under which it was
    /// unsatisfiable.
    unsat: HashMap<(Answered, Key), Vec<Vec<bool>>>,
    /// The same for formulas not decided within their budget (exact kept sets only: an
    /// undecided answer is not monotone).
    undecided: HashMap<(Answered, Key), Vec<Vec<bool>>>,
}

impl<'ctx> AnswerMemo<'ctx> {
    /// The values under [`AnswerMemo::assignment`] of the barrier variables that `facts`,
    /// `formulas` or the background mention.
    pub fn key(&mut self, enc: &Encoding<'ctx>, facts: &[Bool<'ctx>], formulas: &[&Bool<'ctx>]) -> Key {
        if self.vars.is_none() {
            let vars: TermMap<Dynamic<'ctx>, usize> =
                enc.symbols.vars().iter().enumerate().map(|(i, v)| (Dynamic::from_ast(v), i)).collect();
            let cand_lits: TermMap<Dynamic<'ctx>, usize> =
                enc.invariants.candidates().iter().enumerate().map(|(i, c)| (Dynamic::from_ast(&c.lit), i)).collect();
            let background: Vec<&Bool<'ctx>> = enc.symbols.background().iter().collect();
            let constants = crate::cone::constants(&background);
            let mut mentioned: Vec<usize> = constants.iter().filter_map(|c| vars.get(c).copied()).collect();
            mentioned.sort_unstable();
            mentioned.dedup();
            self.background = mentioned;
            self.background_cands = constants.iter().filter_map(|c| cand_lits.get(c).copied()).collect();
            self.vars = Some(vars);
            self.cand_lits = Some(cand_lits);
        }
        let vars = self.vars.as_ref().expect("made above");
        let cand_lits = self.cand_lits.as_ref().expect("made above");
        let mut mentioned: Vec<usize> = self.background.clone();
        let mut cands = vec![false; cand_lits.len()];
        for &c in &self.background_cands {
            cands[c] = true;
        }
        if !vars.is_empty() || !cand_lits.is_empty() {
            let mut all: Vec<&Bool<'ctx>> = facts.iter().collect();
            all.extend(formulas);
            for c in crate::cone::constants(&all).iter() {
                if let Some(&v) = vars.get(c) {
                    mentioned.push(v);
                }
                if let Some(&k) = cand_lits.get(c) {
                    cands[k] = true;
                }
            }
        }
        mentioned.sort_unstable();
        mentioned.dedup();
        let vars = mentioned.into_iter().map(|i| (i, self.assignment.get(i).copied().unwrap_or(false))).collect();
        Key { vars, cands }
    }

    /// Whether `what` was unsatisfiable under `key` and a kept set that `kept` contains.
    pub fn known_unsat(&self, what: Answered, key: &Key, kept: &[bool]) -> bool {
        self.unsat
            .get(&(what, key.clone()))
            .is_some_and(|sets| sets.iter().any(|k| k.len() <= kept.len() && k.iter().zip(kept).all(|(a, b)| !a || *b)))
    }

    /// Whether `what` ran past its budget under `key` and exactly `kept`.
    pub fn known_undecided(&self, what: Answered, key: &Key, kept: &[bool]) -> bool {
        self.undecided.get(&(what, key.clone())).is_some_and(|sets| sets.iter().any(|k| k == kept))
    }

    /// Remembers that `what` was unsatisfiable under `key` and `kept`: under `kept`
    /// restricted to the candidates `key` says its formula mentions.
    pub fn record_unsat(&mut self, what: Answered, key: Key, kept: &[bool]) {
        let needed: Vec<bool> = kept.iter().enumerate().map(|(i, k)| *k && key.cands.get(i).copied().unwrap_or(true)).collect();
        self.unsat.entry((what, key)).or_default().push(needed);
    }

    pub fn record_undecided(&mut self, what: Answered, key: Key, kept: &[bool]) {
        self.undecided.entry((what, key)).or_default().push(kept.to_vec());
    }
}
