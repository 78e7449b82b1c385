//! The lowering's walk over functions and blocks (ARCHITECTURE.md, "crates/frontend": `lower`):
//! the kernel's entry (axioms, then the body), each function body's blocks in reverse
//! post-order with their instructions and terminator, the phis resolved once every block is
//! lowered, inlined calls, and the source locations of what is lowered.

use super::{partial, unsupported, Frame, LVal, LowerError, Lowerer, PhiShape};
use crate::llvm::name_str;
use llvm_ir::{DebugLoc, Function, Name, TypeRef};
use std::collections::HashMap;
use syncfix_kir::{BlockId, FileId, InstKind, Loc, ObjectId, Operand, SourceFile, Span, Terminator};

impl<'a> Lowerer<'a> {
    /// Lowers the kernel into `self.kir.k`.
    pub(super) fn run(&mut self) -> Result<(), LowerError> {
        let l = self;
        let m = l.m;
        let func = l.kernel;
        let entry = l.kir.k.entry;
        let args = l.kernel_params(func, entry)?;
        // Axioms (`__axiom(e)` defines `__syncfix_axiom_N`): assumed at kernel entry.
        let mut cur = entry;
        let axioms: Vec<&Function> = m.functions.iter().filter(|f| f.name.starts_with("__syncfix_axiom_")).collect();
        for ax in axioms {
            let span = Span { frames: ax.debugloc.as_ref().and_then(|d| l.loc(d)).into_iter().collect() };
            let (cont, v) = l.inline_call(ax, vec![], &span, cur)?;
            if let Some(LVal::Scalar(v)) = v {
                let c = l.kir.truth(cont, v, &span);
                l.kir.push(cont, InstKind::Assume { cond: c }, 0, &span);
            }
            cur = cont;
        }
        l.stack.push(func.name.clone());
        let (body, _) = l.lower_body(func, args, Span::default(), true)?;
        l.kir.k.blocks[cur].term = Terminator::Br(body);
        Ok(())
    }
}

impl<'a> Lowerer<'a> {
    pub(crate) fn loc(&mut self, dl: &DebugLoc) -> Option<Loc> {
        if let Some((line, col)) = self.input.mapper.main_loc(dl) {
            return Some(Loc { file: FileId::MAIN, line, col });
        }
        let path = match &dl.directory {
            Some(d) if !dl.filename.starts_with('/') && !d.is_empty() => format!("{d}/{}", dl.filename),
            _ => dl.filename.clone(),
        };
        let id = match self.files.get(&path) {
            Some(id) => *id,
            None => {
                let text = std::fs::read_to_string(&path).ok();
                let id = self.kir.k.files.push(SourceFile::new(path.clone(), text));
                self.files.insert(path, id);
                id
            }
        };
        Some(Loc { file: id, line: dl.line, col: dl.col.unwrap_or(1) })
    }

    pub(crate) fn span_of(&mut self, dl: &Option<DebugLoc>, frame: &Frame) -> Span {
        let mut frames = vec![];
        if let Some(d) = dl {
            if let Some(l) = self.loc(d) {
                frames.push(l);
            }
        }
        frames.extend(frame.call_site.frames.iter().copied());
        Span { frames }
    }

    /// Lowers a function body. Returns its entry block and, for an inlined function, the
    /// blocks that return with their values (the caller branches them to its continuation).
    pub(crate) fn lower_body(
        &mut self,
        func: &'a Function,
        args: Vec<LVal>,
        call_site: Span,
        is_kernel: bool,
    ) -> Result<(BlockId, Vec<(BlockId, Option<LVal>)>), LowerError> {
        let mut frame = Frame {
            values: HashMap::new(),
            blocks: HashMap::new(),
            exits: HashMap::new(),
            phis: vec![],
            call_site,
            is_kernel,
            returns: vec![],
            is_spec: crate::names::function_name(&func.name).starts_with("__spec_"),
            ensures: vec![],
            ret_placeholders: vec![],
            function_wide: vec![],
            barrier_invariants: vec![],
            order: vec![],
            partial: partial::find(func),
        };
        for (p, a) in func.parameters.iter().zip(args) {
            frame.values.insert(p.name.clone(), a);
        }
        for bb in &func.basic_blocks {
            let b = self.kir.new_block();
            frame.blocks.insert(bb.name.clone(), b);
        }
        let entry = frame.blocks[&func.basic_blocks[0].name];
        for bi in rpo(func) {
            let bb = &func.basic_blocks[bi];
            frame.order.push(bb.name.clone());
            let mut cur = frame.blocks[&bb.name];
            for ins in &bb.instrs {
                cur = self.lower_inst(&mut frame, ins, cur)?;
            }
            self.lower_term(&mut frame, &bb.term, cur)?;
            frame.exits.insert(bb.name.clone(), cur);
        }
        self.resolve_phis(&mut frame)?;
        if let Some((_, _, span)) = frame.barrier_invariants.first() {
            return Err(unsupported("a barrier invariant that no barrier follows", span.in_main().or(span.top())));
        }
        self.function_wide_invariants(&frame, func)?;
        Ok((entry, std::mem::take(&mut frame.returns)))
    }

    fn resolve_phis(&mut self, frame: &mut Frame) -> Result<(), LowerError> {
        let phis = std::mem::take(&mut frame.phis);
        for p in phis {
            let mut incoming: Vec<Vec<(BlockId, Operand)>> = vec![vec![]; p.insts.len()];
            for (op, pred) in &p.incoming {
                let Some(&b) = frame.exits.get(pred) else { continue }; // unreachable predecessor
                let v = self.operand(frame, op, p.loc)?;
                let ops: Vec<Operand> = match (&p.shape, v) {
                    (PhiShape::Static(want), LVal::Ptr(obj, off)) if obj == *want => vec![off],
                    (PhiShape::Static(want), v @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. })) => {
                        // Another object comes in later (a loop back edge): lower again with
                        // this phi dynamic.
                        let mut cands = vec![*want];
                        self.learn_phi(&p.dest, &mut cands, &v);
                        return Err(unsupported(format!("a pointer `{}` into several objects", name_str(&p.dest)), p.loc));
                    }
                    (PhiShape::Dynamic(cands), v @ (LVal::Ptr(..) | LVal::Null | LVal::DynPtr { .. })) => {
                        let (sel, vc, off) = self.dyn_parts(&v).expect("a pointer");
                        if vc.iter().any(|o| !cands.contains(o)) {
                            let mut cands = cands.clone();
                            self.learn_phi(&p.dest, &mut cands, &v);
                            return Err(unsupported(format!("a pointer `{}` into several objects", name_str(&p.dest)), p.loc));
                        }
                        vec![sel, off]
                    }
                    (PhiShape::Leaves, v) => {
                        let mut leaves = vec![];
                        if !Self::leaves_of(&v, &mut leaves) || leaves.len() != p.insts.len() {
                            return Err(unsupported(format!("a phi of values of different shapes (`{}`)", name_str(&p.dest)), p.loc));
                        }
                        leaves
                    }
                    _ => return Err(unsupported(format!("a phi of values of different kinds (`{}`)", name_str(&p.dest)), p.loc)),
                };
                for (slot, o) in incoming.iter_mut().zip(ops) {
                    slot.push((b, o));
                }
            }
            for (inst, inc) in p.insts.iter().zip(incoming) {
                if let InstKind::Phi { incoming } = &mut self.kir.k.insts[*inst].kind {
                    *incoming = inc;
                }
            }
        }
        Ok(())
    }

    /// Records that the pointer phi `dest` of the current function must be dynamic with
    /// `cands` and the candidates of `v`, for the next lowering attempt.
    fn learn_phi(&mut self, dest: &Name, cands: &mut Vec<ObjectId>, v: &LVal) {
        if let Some((_, vc, _)) = self.dyn_parts(v) {
            for o in vc {
                if !cands.contains(&o) {
                    cands.push(o);
                }
            }
        }
        let key = (self.stack.last().cloned().unwrap_or_default(), dest.clone());
        let learnt = self.learnt.get_or_insert_with(|| self.hints.clone());
        let slot = learnt.phis.entry(key).or_default();
        for o in cands.iter() {
            if !slot.contains(o) {
                slot.push(*o);
            }
        }
    }

    /// The type of an IR operand.
    pub(crate) fn type_of(&self, op: &llvm_ir::Operand) -> TypeRef {
        llvm_ir::types::Typed::get_type(op, &self.m.types)
    }

    /// Inlines a call to a defined function.
    pub(crate) fn inline_call(
        &mut self,
        callee: &'a Function,
        args: Vec<LVal>,
        span: &Span,
        cur: BlockId,
    ) -> Result<(BlockId, Option<LVal>), LowerError> {
        if self.stack.contains(&callee.name) {
            return Err(unsupported(format!("recursive call to `{}`", crate::names::function_name(&callee.name)), span.top()));
        }
        if self.stack.len() > 64 {
            return Err(unsupported("calls nested more than 64 deep", span.top()));
        }
        self.stack.push(callee.name.clone());
        let (entry, returns) = self.lower_body(callee, args, span.clone(), false)?;
        self.stack.pop();
        self.kir.k.blocks[cur].term = Terminator::Br(entry);
        self.kir.k.blocks[cur].term_span = span.clone();
        let cont = self.kir.new_block();
        for (rb, _) in &returns {
            self.kir.k.blocks[*rb].term = Terminator::Br(cont);
        }
        let value = match returns.as_slice() {
            [] => None,
            [(_, v)] => v.clone(),
            [(_, None), ..] => None,
            _ => Some(self.join_values(cont, &callee.return_type, returns, span, span.top())?),
        };
        Ok((cont, value))
    }
}

/// The successor blocks of an LLVM terminator.
pub(crate) fn successors(t: &llvm_ir::Terminator) -> Vec<&Name> {
    use llvm_ir::Terminator as T;
    match t {
        T::Br(b) => vec![&b.dest],
        T::CondBr(c) => vec![&c.true_dest, &c.false_dest],
        T::Switch(s) => {
            let mut v = vec![&s.default_dest];
            v.extend(s.dests.iter().map(|(_, n)| n));
            v
        }
        _ => vec![],
    }
}

/// Reverse post-order of a function's blocks (definitions before uses, except phis).
fn rpo(func: &Function) -> Vec<usize> {
    let index: HashMap<&Name, usize> = func.basic_blocks.iter().enumerate().map(|(i, b)| (&b.name, i)).collect();
    let succs =
        |i: usize| -> Vec<usize> { successors(&func.basic_blocks[i].term).into_iter().filter_map(|n| index.get(n).copied()).collect() };
    let mut seen = vec![false; func.basic_blocks.len()];
    let mut post = vec![];
    let mut stack = vec![(0usize, 0usize)];
    if func.basic_blocks.is_empty() {
        return post;
    }
    seen[0] = true;
    while let Some((b, i)) = stack.pop() {
        let s = succs(b);
        if i < s.len() {
            stack.push((b, i + 1));
            if !seen[s[i]] {
                seen[s[i]] = true;
                stack.push((s[i], 0));
            }
        } else {
            post.push(b);
        }
    }
    post.reverse();
    post
}
