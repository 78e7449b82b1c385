//! Whether a slice's model is one of the whole formula ([`Assumptions::recheck`]), and the
//! slice widened by the classes of assumptions it breaks when it is not.

use super::*;

impl<'ctx> Assumptions<'ctx> {
    /// Whether `slice`'s answer `model` extends to a model of the whole (`None`), else the
    /// slice to solve again: widened by the classes of the facts that cannot hold with the
    /// model's values, or (after [`MAX_REFINEMENTS`] widenings, or when nothing would be
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
        let mut guards: Vec<Bool<'ctx>> = vec![];
        let mut rest: Vec<usize> = vec![];
        for &d in slice.dropped.iter().filter(|d| on.contains(d)) {
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
        // The classes (roots) of the broken assumptions, and every assumption left out on
        // the chains (guards included) by class.
        let mut by_class: HashMap<u32, Vec<usize>> = HashMap::new();
        for &d in slice.dropped.iter().filter(|d| on.contains(d)) {
            if let Some(r) = self.defs[d].rep {
                let root = self.find(r);
                by_class.entry(root).or_default().push(d);
            }
        }
        let mut broken_classes: Vec<u32> = vec![];
        // The classes that the log facts the formulas may need touch: not solved on their own
        // (a log fact taken may give the slice's model values of a class left out, which
        // solving the class on its own would not keep).
        let touched = self.touched_classes(slice);
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
        for root in broken_classes {
            let mut ds = by_class.remove(&root).unwrap_or_default();
            ds.sort_unstable();
            if self.class_holds(root, ds.clone(), model, fixed, solve_class) {
                continue;
            }
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
        for &i in &slice.dropped_facts {
            if !holds(&self.facts[i].fact) {
                if dbg {
                    let t = self.facts[i].fact.to_string().replace('\n', " ");
                    eprintln!("cone: broken log fact {i}: {}", &t[..t.len().min(300)]);
                }
                any = true;
                broken.extend(self.facts[i].ids.iter().copied());
            }
        }
        if !any {
            return None;
        }
        // Only the latest broken fact's classes (the nearest to the formulas in the schedule):
        // what the model got wrong is most often what the formulas lean on directly, and the
        // earlier facts it broke are only the arbitrary values of what lies before.
        Some(self.widen(slice, if latest.is_empty() { broken } else { latest }, refinements))
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

    /// Whether the assumptions `ds` of class `root` are satisfiable with the constants they
    /// share with the rest (inputs, literals of `fixed`) at `model`'s values (see
    /// [`Assumptions::recheck`]). A constant of a sort other than Boolean or bit-vector
    /// among them gives `false` (its model value need not be a term).
    fn class_holds(
        &mut self,
        root: u32,
        ds: Vec<usize>,
        model: &Model<'ctx>,
        fixed: &[Bool<'ctx>],
        solve_class: &mut SolveClass<'_, 'ctx>,
    ) -> bool {
        let key = (root, ds);
        if !self.pins.contains_key(&key) {
            let conds: Vec<&Bool<'ctx>> = key.1.iter().map(|&d| &self.defs[d].cond).collect();
            let fixed_atoms: TermSet<Dynamic<'ctx>> = fixed.iter().map(|l| atom(l)).collect();
            let (mut pins, mut own_consts) = (vec![], vec![]);
            for c in constants(&conds) {
                let own = match self.fresh_id_of(&c) {
                    Some(id) => self.find(id) == root,
                    None => false,
                };
                if !own || fixed_atoms.contains(&c) {
                    pins.push(c);
                } else {
                    own_consts.push(c);
                }
            }
            self.pins.insert(key.clone(), (pins, own_consts));
        }
        let (pins, own_consts) = &self.pins[&key];
        let conds: Vec<&Bool<'ctx>> = key.1.iter().map(|&d| &self.defs[d].cond).collect();
        // A witness found before (values of the class's own constants) that still holds with
        // this model's values of the rest.
        if let Some(ws) = self.witnesses.get(&key) {
            for w in ws {
                let pairs: Vec<(&Dynamic<'ctx>, &Dynamic<'ctx>)> = w.iter().map(|(c, v)| (c, v)).collect();
                let holds = conds.iter().all(|f| model.eval(&f.substitute(&pairs), true).and_then(|b| b.as_bool()) == Some(true));
                if holds {
                    return true;
                }
            }
        }
        let mut facts: Vec<Bool<'ctx>> = conds.iter().map(|f| (*f).clone()).collect();
        for p in pins {
            let simple = p.as_bool().is_some() || p.as_bv().is_some();
            match model.eval(p, true) {
                // A value: a numeral or true/false.
                Some(v) if simple && v.children().is_empty() && v.decl().kind() != DeclKind::UNINTERPRETED => facts.push(p._eq(&v)),
                _ => return false,
            }
        }
        let Some(Some(witness)) = solve_class(&facts) else { return false };
        let mut w = vec![];
        for c in own_consts {
            match witness.eval(c, true) {
                Some(v) if v.children().is_empty() && v.decl().kind() != DeclKind::UNINTERPRETED => w.push((c.clone(), v)),
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
