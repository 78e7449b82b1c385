//! Whether a slice's model is one of the whole formula ([`Assumptions::recheck`]), and the
//! slice widened by the classes of assumptions it breaks when it is not.

use super::*;

impl<'ctx> Assumptions<'ctx> {
    /// Whether `slice`'s answer `model` extends to a model of the whole (`None`), else the
    /// slice to solve again: widened by the classes of the latest assumption in the schedule
    /// and of every log fact that cannot hold with the model's values, or (after [`MAX_REFINEMENTS`] widenings, or when nothing would be
    /// added) every fact.
    ///
    /// The model is extended by model completion and by setting every guard left out (an
    /// assumption that is one Boolean constant the model does not mention, as a loop cut's
    /// `logs_ok`) true; it is one of the whole formula when every assumption left out on the
    /// chain of a true `ok` and every log fact left out holds in the extension (the `ok`s on
    /// those chains are then all true, and every definition holds). Where the completion
    /// breaks assumptions of a class that no log fact left out touches, that class is solved
    /// on its own (`solve_class`: its assumptions left out, with the constants from outside
    /// it, the inputs and the literals of `fixed`, pinned to the model's values; `Some(true)`
    /// when satisfiable): the classes share no fresh constant, so their own models and the
    /// slice's make one model of the whole, and the slice is widened only by the classes
    /// that cannot hold (each earlier loop of the `loops` scaling family broke under the
    /// completion, so every query's slice used to grow to the whole prefix). The pinned
    /// values found satisfiable are remembered per class.
    pub fn recheck(
        &mut self,
        slice: &Slice<'ctx>,
        model: &Model<'ctx>,
        refinements: usize,
        fixed: &[Bool<'ctx>],
        solve_class: &mut SolveClass<'_, 'ctx>,
    ) -> Option<Slice<'ctx>> {
        if slice.full || (slice.dropped.is_empty() && slice.dropped_facts.is_empty()) {
            return None;
        }
        let on = self.on_chains(slice, model);
        let ctx = match (self.defs.first(), self.facts.first()) {
            (Some(d), _) => d.ok.get_ctx(),
            (None, Some(f)) => f.fact.get_ctx(),
            (None, None) => return None,
        };
        let t = Bool::from_bool(ctx, true);
        // The classes (roots) of the assumptions left out on the chains, with those
        // assumptions (guards included).
        let mut by_class: HashMap<u32, Vec<usize>> = HashMap::new();
        for &d in slice.dropped.iter().filter(|d| on.contains(d)) {
            if let Some(r) = self.defs[d].rep {
                let root = self.find(r);
                by_class.entry(root).or_default().push(d);
            }
        }
        // The classes that the log facts the formulas may need touch: not solved on their own
        // (a log fact taken may give the slice's model values of a class left out, which
        // solving the class on its own would not keep).
        let touched = self.touched_classes(slice);
        // The other classes, with the model's values of the constants they share when it has
        // them all: those found satisfiable with these values before are set aside.
        let mut values: HashMap<u32, ClassValues<'ctx>> = HashMap::new();
        let mut settled: HashSet<usize> = HashSet::new();
        for (&root, ds) in by_class.iter_mut() {
            if touched.contains(&root) {
                continue;
            }
            ds.sort_unstable();
            let Some(key) = self.class_values(root, ds, model) else { continue };
            if self.satisfiable.contains(&key) {
                self.settled += 1;
                settled.extend(ds.iter().copied());
            } else {
                values.insert(root, key);
            }
        }
        let mut guards: Vec<Bool<'ctx>> = vec![];
        let mut rest: Vec<usize> = vec![];
        for &d in slice.dropped.iter().filter(|d| on.contains(d) && !settled.contains(d)) {
            let c = &self.defs[d].cond;
            if c.is_const() && model.get_const_interp(c).is_none() {
                guards.push(c.clone());
            } else {
                rest.push(d);
            }
        }
        let pairs: Vec<(&Bool<'ctx>, &Bool<'ctx>)> = guards.iter().map(|g| (g, &t)).collect();
        let holds = |f: &Bool<'ctx>| -> bool {
            let f = if pairs.is_empty() { f.clone() } else { f.substitute(&pairs) };
            model.eval(&f, true).and_then(|b| b.as_bool()) == Some(true)
        };
        if std::env::var_os("SYNCFIX_DEBUG_CONE").is_some() {
            let roots: Vec<u32> = slice.cone.iter().copied().collect();
            eprintln!("cone: recheck, cone roots {:?}", &roots[..roots.len().min(20)]);
        }
        let mut broken: Vec<u32> = vec![];
        let mut any = false;
        let dbg = std::env::var_os("SYNCFIX_DEBUG_CONE").is_some();
        // The broken fact latest in the schedule: (its stamp-like position, its classes).
        let mut latest_at: Option<(usize, bool)> = None;
        let mut latest: Vec<u32> = vec![];
        // The classes (roots) of the broken assumptions.
        let mut broken_classes: Vec<u32> = vec![];
        let rest: Vec<usize> = rest
            .into_iter()
            .filter(|&d| {
                if holds(&self.defs[d].cond) {
                    return false;
                }
                match self.defs[d].rep.map(|r| self.find(r)) {
                    Some(root) if !touched.contains(&root) => {
                        if !broken_classes.contains(&root) {
                            broken_classes.push(root);
                        }
                        false
                    }
                    _ => true,
                }
            })
            .collect();
        // Each broken class on its own, under the model's values of what it shares.
        let fixed_atoms: TermSet<Dynamic<'ctx>> =
            if broken_classes.is_empty() { TermSet::default() } else { fixed.iter().map(|l| atom(l)).collect() };
        for root in broken_classes {
            let ds = by_class.get(&root).cloned().unwrap_or_default();
            if self.class_holds(root, ds.clone(), model, &fixed_atoms, solve_class) {
                continue;
            }
            values.remove(&root);
            if dbg {
                eprintln!("cone: class {root} ({} assumptions left out) cannot hold with the model's values", ds.len());
            }
            let d = *ds.iter().max().expect("a broken class has an assumption");
            if latest_at.is_none_or(|(x, _)| d > x) {
                latest_at = Some((d, true));
                latest = vec![root];
            }
            any = true;
            broken.push(root);
        }
        for d in rest {
            {
                // Over inputs only, or in a class that a log fact left out touches.
                if latest_at.is_none_or(|(x, _)| d > x) {
                    latest_at = Some((d, true));
                    latest = self.defs[d].rep.into_iter().collect();
                }
                if dbg {
                    let t = self.defs[d].cond.to_string().replace('\n', " ");
                    let e = model.eval(&self.defs[d].cond, false).map(|x| x.to_string()).unwrap_or_default().replace('\n', " ");
                    eprintln!(
                        "cone: broken assumption {d}: {} [in the model: {}] selected-class {:?}",
                        &t[..t.len().min(300)],
                        &e[..e.len().min(200)],
                        self.defs[d].rep.map(|r| (r, self.find(r)))
                    );
                }
                any = true;
                broken.extend(self.defs[d].rep);
            }
        }
        // The classes of the broken log facts left out: always taken (a race query leans on
        // the logs of the loops it cuts; see below).
        let mut log_broken: Vec<u32> = vec![];
        for &i in &slice.dropped_facts {
            if !holds(&self.facts[i].fact) {
                if dbg {
                    let t = self.facts[i].fact.to_string().replace('\n', " ");
                    eprintln!("cone: broken log fact {i}: {}", &t[..t.len().min(300)]);
                }
                any = true;
                broken.extend(self.facts[i].ids.iter().copied());
                log_broken.extend(self.facts[i].ids.iter().copied());
            }
        }
        // The classes whose assumptions held with the completion's values or were solved
        // with the model's values of what they share.
        if self.satisfiable.len() + values.len() > MAX_SATISFIABLE {
            self.satisfiable.clear();
        }
        self.satisfiable.extend(values.into_values());
        if !any {
            return None;
        }
        // Only the latest broken fact's classes (the nearest to the formulas in the schedule):
        // what the model got wrong is most often what the formulas lean on directly, and the
        // earlier facts it broke are only the arbitrary values of what lies before.
        // The log facts' classes with them: a log fact left out that the model breaks stays
        // broken while the earlier classes are taken one refinement at a time (binomialOptions'
        // race query on `d_CallBuffer`: four refinements of 0.5-0.8 s each, two with them).
        // (`broken` holds the log facts' classes already.)
        let chosen = if latest.is_empty() { broken } else { latest.into_iter().chain(log_broken).collect() };
        Some(self.widen(slice, chosen, refinements))
    }

    /// The assumptions on the definition chains of the formulas of `slice` that `model` does
    /// not make false (an `ok` false in the model needs none of its chain).
    fn on_chains(&self, slice: &Slice<'ctx>, model: &Model<'ctx>) -> HashSet<usize> {
        let mut on = HashSet::new();
        for &n in &slice.oks {
            if model.eval(&self.defs[n].ok, true).and_then(|b| b.as_bool()) == Some(false) {
                continue;
            }
            let mut cur = Some(n);
            while let Some(d) = cur {
                if !on.insert(d) {
                    break;
                }
                cur = self.defs[d].parent;
            }
        }
        on
    }

    /// The classes (roots) that the log facts of `slice`, taken or left out, touch.
    fn touched_classes(&mut self, slice: &Slice<'ctx>) -> HashSet<u32> {
        let mut touched: HashSet<u32> = HashSet::new();
        for &i in slice.dropped_facts.iter().chain(&slice.kept_facts) {
            for k in 0..self.facts[i].ids.len() {
                let id = self.facts[i].ids[k];
                touched.insert(self.find(id));
            }
        }
        touched
    }

    /// `slice` widened by the classes of `broken`; the whole prefix once `refinements` reach
    /// [`MAX_REFINEMENTS`] or nothing new was added.
    fn widen(&mut self, slice: &Slice<'ctx>, broken: Vec<u32>, refinements: usize) -> Slice<'ctx> {
        let mut cone = slice.cone.clone();
        let before = cone.len();
        for b in broken {
            let r = self.find(b);
            cone.insert(r);
        }
        // Classes may have merged since: the cone as roots.
        let cone: HashSet<u32> = cone.into_iter().map(|c| self.find(c)).collect();
        let full = refinements >= MAX_REFINEMENTS || cone.len() <= before && cone.is_subset(&slice.cone);
        let mut wider = self.select(cone, slice.oks.clone(), slice.logs, slice.stamp, full);
        wider.initial = slice.initial.clone();
        wider
    }

    /// Class `root`, its assumptions `ds` (sorted) and what of them `model` decides: its
    /// values of the constants they share with the rest (`pins`), then each own constant
    /// it gives a value (an assumption literal of the caller's) and that value; `None` when
    /// one of those values is not a numeral or a truth value.
    fn class_values(&mut self, root: u32, ds: &[usize], model: &Model<'ctx>) -> Option<ClassValues<'ctx>> {
        let key = (root, ds.to_vec());
        let (pins, own) = self.pins_of(&key);
        let mut vals = Vec::with_capacity(pins.len());
        for p in pins {
            vals.push(pinned_value(model, p)?);
        }
        for c in own {
            if let Some(v) = model.get_const_interp(c) {
                if !is_value(&v) {
                    return None;
                }
                vals.push(c.clone());
                vals.push(v);
            }
        }
        Some((root, key.1, vals))
    }

    /// The constants that the assumptions `key.1` of class `key.0` share with the rest, and
    /// their own (computed once per key).
    fn pins_of(&mut self, key: &(u32, Vec<usize>)) -> &(Vec<Dynamic<'ctx>>, Vec<Dynamic<'ctx>>) {
        if !self.pins.contains_key(key) {
            let conds: Vec<&Bool<'ctx>> = key.1.iter().map(|&d| &self.defs[d].cond).collect();
            let (mut pins, mut own_consts) = (vec![], vec![]);
            for c in constants(&conds) {
                let own = match self.fresh_id_of(&c) {
                    Some(id) => self.find(id) == key.0,
                    None => false,
                };
                if own {
                    own_consts.push(c);
                } else {
                    pins.push(c);
                }
            }
            self.pins.insert(key.clone(), (pins, own_consts));
        }
        &self.pins[key]
    }

    /// Whether the assumptions `ds` of class `root` are satisfiable with the constants they
    /// share with the rest (inputs, the constants of `fixed_atoms`: the atoms of the
    /// caller's literals) at `model`'s values (see
    /// [`Assumptions::recheck`]). A constant of a sort other than Boolean or bit-vector
    /// among them gives `false` (its model value need not be a term).
    fn class_holds(
        &mut self,
        root: u32,
        ds: Vec<usize>,
        model: &Model<'ctx>,
        fixed_atoms: &TermSet<Dynamic<'ctx>>,
        solve_class: &mut SolveClass<'_, 'ctx>,
    ) -> bool {
        let key = (root, ds);
        self.pins_of(&key);
        // An own constant that a literal of the caller's sets (`fixed_atoms`) is pinned as
        // well (its value is the caller's, not the class's to choose).
        let (shared, own) = &self.pins[&key];
        let pins: Vec<&Dynamic<'ctx>> = shared.iter().chain(own.iter().filter(|c| fixed_atoms.contains(c))).collect();
        let own_consts: Vec<&Dynamic<'ctx>> = own.iter().filter(|c| !fixed_atoms.contains(c)).collect();
        let conds: Vec<&Bool<'ctx>> = key.1.iter().map(|&d| &self.defs[d].cond).collect();
        // A witness found before (values of the class's own constants) that still holds with
        // this model's values of the rest.
        if let Some(ws) = self.witnesses.get(&key) {
            for w in ws {
                let pairs: Vec<(&Dynamic<'ctx>, &Dynamic<'ctx>)> =
                    w.iter().filter(|(c, _)| !fixed_atoms.contains(c)).map(|(c, v)| (c, v)).collect();
                let holds = conds.iter().all(|f| model.eval(&f.substitute(&pairs), true).and_then(|b| b.as_bool()) == Some(true));
                if holds {
                    return true;
                }
            }
        }
        let mut facts: Vec<Bool<'ctx>> = conds.iter().map(|f| (*f).clone()).collect();
        for p in pins {
            match pinned_value(model, p) {
                Some(v) => facts.push(p._eq(&v)),
                None => return false,
            }
        }
        let Some(Some(witness)) = solve_class(&facts) else { return false };
        let mut w = vec![];
        for c in own_consts {
            match witness.eval(c, true) {
                Some(v) if is_value(&v) => w.push((c.clone(), v)),
                // Not a value (an array's): the witness is not kept, but the class holds.
                _ => return true,
            }
        }
        let ws = self.witnesses.entry(key).or_default();
        if ws.len() >= MAX_WITNESSES {
            ws.remove(0);
        }
        ws.push(w);
        true
    }
}

/// A value: a numeral or true/false (not an array's or an uninterpreted sort's).
fn is_value(v: &Dynamic<'_>) -> bool {
    v.children().is_empty() && v.decl().kind() != DeclKind::UNINTERPRETED
}

/// `model`'s value of the Boolean or bit-vector constant `p` (by completion), or `None` when
/// `p` is of another sort or its value is not a numeral or truth value.
fn pinned_value<'ctx>(model: &Model<'ctx>, p: &Dynamic<'ctx>) -> Option<Dynamic<'ctx>> {
    let simple = p.as_bool().is_some() || p.as_bv().is_some();
    model.eval(p, true).filter(|v| simple && is_value(v))
}
