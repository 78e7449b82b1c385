//! Pointers that are not statically one array: chosen by `?:` or a phi between arrays, null,
//! stored in memory (struct fields, arrays of pointers), or converted to integers.
//!
//! Such a pointer is `LVal::DynPtr { sel, cands, off }`: `sel` (32 bits) is 0 for null and
//! `index + 1` of the object it points into, `cands` the objects it may point into. An access
//! through it becomes a switch on `sel` with one static access per candidate (results joined
//! by phis); the default (null, or an object it cannot point into) is a null-pointer access,
//! reported as GPUVerify does. In memory and as an integer a pointer is 64 bits: `sel` in the
//! top 16, the byte offset (sign-extended) in the low 48.

use super::build::KirBuilder;
use super::{layout, unsupported, At, Frame, LVal, LowerError, Lowerer, PendingPhi, PhiShape};
use llvm_ir::types::Type;
use llvm_ir::TypeRef;
use syncfix_kir::{
    AssertKind, BinOp, BlockId, CastOp, CmpPred, EntityRef, InstKind, Loc, MemObject, ObjectId, Operand, Pointer, Space, Span, Terminator,
};

const OFFSET_BITS: u128 = 48;

/// The selector of a function pointer: its offset is the function's id (see
/// [`Lowerer::function_pointer`]). No object has it, so an access through a function
/// pointer is a null-pointer access.
pub(crate) const FN_SEL: u128 = 0xffff;

/// The selector and the offset (64 bits) that the 64-bit representation `x` stands for.
pub(crate) fn split_constant(x: u128) -> (u128, u128) {
    let x = x as u64;
    let sel = (x >> OFFSET_BITS) as u128;
    let off = (((x << (64 - OFFSET_BITS)) as i64) >> (64 - OFFSET_BITS)) as u64 as u128;
    (sel, off)
}

/// The selector of an object (0 is null).
pub(crate) fn sel_of(o: ObjectId) -> u128 {
    o.index() as u128 + 1
}

/// The private copy of a struct passed to the kernel by value, whose pointers
/// [`Lowerer::byval_pointees`] points to fresh arrays: its object, the kernel's entry block
/// (where the pointers are stored), and the parameter's location.
#[derive(Clone, Copy)]
pub(crate) struct ByValCopy {
    pub(crate) entry: BlockId,
    pub(crate) obj: ObjectId,
    pub(crate) loc: Option<Loc>,
}

impl<'a> Lowerer<'a> {
    /// Selector, candidates and offset of a pointer value; `None` for a non-pointer.
    pub(crate) fn dyn_parts(&self, v: &LVal) -> Option<(Operand, Vec<ObjectId>, Operand)> {
        match v {
            LVal::Ptr(o, off) => Some((Operand::konst(32, sel_of(*o)), vec![*o], *off)),
            LVal::Null => Some((Operand::konst(32, 0), vec![], Operand::konst(64, 0))),
            LVal::DynPtr { sel, cands, off } => Some((*sel, cands.clone(), *off)),
            _ => None,
        }
    }

    /// The candidates of a pointer read from memory or made from an integer: the objects that
    /// escape anywhere in the kernel (as far as this attempt and earlier ones know; see
    /// [`PtrHints`](super::PtrHints)).
    pub(crate) fn escaped_objects(&mut self) -> Vec<ObjectId> {
        self.decoded = true;
        let mut v = self.hints.escaped.clone();
        for o in &self.escaped {
            if !v.contains(o) {
                v.push(*o);
            }
        }
        v
    }

    /// A pointer that is `a` or `b` per thread: static when both are the same array.
    pub(crate) fn merge_ptrs(&mut self, cur: BlockId, cond: Operand, a: LVal, b: LVal, span: &Span) -> Option<LVal> {
        if let (LVal::Ptr(o1, x), LVal::Ptr(o2, y)) = (&a, &b) {
            if o1 == o2 {
                let off = self.kir.push(cur, InstKind::Select { cond, then: *x, els: *y }, 64, span);
                return Some(LVal::Ptr(*o1, Operand::Value(off)));
            }
        }
        let (s1, c1, o1) = self.dyn_parts(&a)?;
        let (s2, c2, o2) = self.dyn_parts(&b)?;
        let sel = self.kir.push(cur, InstKind::Select { cond, then: s1, els: s2 }, 32, span);
        let off = self.kir.push(cur, InstKind::Select { cond, then: o1, els: o2 }, 64, span);
        let mut cands = c1;
        for c in c2 {
            if !cands.contains(&c) {
                cands.push(c);
            }
        }
        Some(LVal::DynPtr { sel: Operand::Value(sel), cands, off: Operand::Value(off) })
    }

    /// The 64-bit representation of a pointer (in memory, or as an integer).
    pub(crate) fn encode_ptr(&mut self, v: &LVal, at: At<'_>) -> Result<Operand, LowerError> {
        let At { cur, span, loc } = at;
        let (sel, _, off) = self.dyn_parts(v).ok_or_else(|| unsupported("a non-pointer used as a pointer", loc))?;
        let mask = Operand::konst(64, (1u128 << OFFSET_BITS) - 1);
        let lo = match off {
            Operand::Const { bits, .. } => Operand::konst(64, bits & ((1u128 << OFFSET_BITS) - 1)),
            _ => Operand::Value(self.kir.push(cur, InstKind::Bin { op: BinOp::And, lhs: off, rhs: mask }, 64, span)),
        };
        let hi = match sel {
            Operand::Const { bits, .. } => Operand::konst(64, bits << OFFSET_BITS),
            _ => {
                let z = self.kir.push(cur, InstKind::Cast { op: CastOp::ZExt, arg: sel }, 64, span);
                Operand::Value(self.kir.push(
                    cur,
                    InstKind::Bin { op: BinOp::Shl, lhs: Operand::Value(z), rhs: Operand::konst(64, OFFSET_BITS) },
                    64,
                    span,
                ))
            }
        };
        Ok(match (hi, lo) {
            (Operand::Const { bits: h, .. }, Operand::Const { bits: l, .. }) => Operand::konst(64, h | l),
            (h, l) => Operand::Value(self.kir.push(cur, InstKind::Bin { op: BinOp::Or, lhs: h, rhs: l }, 64, span)),
        })
    }

    /// The pointer a 64-bit representation stands for (it may point into any object that
    /// escapes).
    pub(crate) fn decode_ptr(&mut self, cur: BlockId, x: Operand, span: &Span) -> LVal {
        if let Operand::Const { bits: 0, .. } = x {
            return LVal::Null;
        }
        let cands = self.escaped_objects();
        let top = self.kir.push(cur, InstKind::Bin { op: BinOp::LShr, lhs: x, rhs: Operand::konst(64, OFFSET_BITS) }, 64, span);
        let sel = self.kir.push(cur, InstKind::Cast { op: CastOp::Trunc, arg: Operand::Value(top) }, 32, span);
        let up = self.kir.push(cur, InstKind::Bin { op: BinOp::Shl, lhs: x, rhs: Operand::konst(64, 64 - OFFSET_BITS) }, 64, span);
        let off = self.kir.push(
            cur,
            InstKind::Bin { op: BinOp::AShr, lhs: Operand::Value(up), rhs: Operand::konst(64, 64 - OFFSET_BITS) },
            64,
            span,
        );
        LVal::DynPtr { sel: Operand::Value(sel), cands, off: Operand::Value(off) }
    }

    /// A pointer to the function `name` (of the module): selector [`FN_SEL`], offset the
    /// function's id, `index + 1` among the module's defined functions. Returns `None` when
    /// `name` is not a function; errors when it has no body (GPUVerify: "unsupported function
    /// pointer").
    pub(crate) fn function_pointer(&self, name: &str, loc: Option<Loc>) -> Result<Option<LVal>, LowerError> {
        if let Some(i) = self.m.functions.iter().position(|f| f.name == name) {
            return Ok(Some(LVal::DynPtr { sel: Operand::konst(32, FN_SEL), cands: vec![], off: Operand::konst(64, i as u128 + 1) }));
        }
        if self.m.func_declarations.iter().any(|f| f.name == name) {
            return Err(unsupported(
                format!("a pointer to function `{}`, which has no body (unsupported function pointer)", crate::names::function_name(name)),
                loc,
            ));
        }
        Ok(None)
    }

    /// A call through the function pointer `p`: a switch over the module's functions of the
    /// call's type (kernels aside), each inlined; the default (null, or a value that is no
    /// such function) is a null-pointer access, as GPUVerify reports it. Returns the block
    /// where lowering continues and the call's value.
    pub(crate) fn indirect_call(
        &mut self,
        p: LVal,
        fty: &TypeRef,
        args: Vec<LVal>,
        cur: BlockId,
        span: &Span,
        loc: Option<Loc>,
    ) -> Result<(BlockId, Option<LVal>), LowerError> {
        let (sel, _, off) = self.dyn_parts(&p).ok_or_else(|| unsupported("a call through a value that is not a pointer", loc))?;
        let (ret, params) = match fty.as_ref() {
            Type::FuncType { result_type, param_types, is_var_arg: false } => (result_type.clone(), param_types.clone()),
            _ => return Err(unsupported("a call through a pointer to a variadic function", loc)),
        };
        let m = self.m;
        let targets: Vec<(u128, &'a llvm_ir::Function)> = m
            .functions
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                !self.input.names.kernels.contains(&f.name)
                    && !f.is_var_arg
                    && f.return_type == ret
                    && f.parameters.len() == params.len()
                    && f.parameters.iter().zip(&params).all(|(a, t)| a.ty == *t)
            })
            .map(|(i, f)| (i as u128 + 1, f))
            .collect();
        let join = self.kir.new_block();
        let null_block = self.kir.null_case(join, span);
        let mut values: Vec<(BlockId, Option<LVal>)> = vec![(null_block, None)];
        let mut cases = vec![];
        for (id, f) in targets {
            if matches!(off, Operand::Const { bits, .. } if bits != id) {
                continue;
            }
            let b = self.kir.new_block();
            let (end, v) = self.inline_call(f, args.clone(), span, b)?;
            self.kir.k.blocks[end].term = Terminator::Br(join);
            self.kir.k.blocks[end].term_span = span.clone();
            cases.push((id, b));
            values.push((end, v));
        }
        let dispatch = self.kir.new_block();
        let is_fn = self.kir.push(cur, InstKind::Cmp { pred: CmpPred::Eq, lhs: sel, rhs: Operand::konst(32, FN_SEL) }, 1, span);
        self.kir.k.blocks[cur].term = Terminator::CondBr { cond: Operand::Value(is_fn), then: dispatch, els: null_block };
        self.kir.k.blocks[cur].term_span = span.clone();
        self.kir.k.blocks[dispatch].term = match cases.as_slice() {
            [] => Terminator::Br(null_block),
            _ => Terminator::Switch { value: off, default: null_block, cases },
        };
        self.kir.k.blocks[dispatch].term_span = span.clone();
        let value = match ret.as_ref() {
            Type::VoidType => None,
            _ => Some(self.join_values(join, &ret, values, span, loc)?),
        };
        Ok((join, value))
    }

    /// Performs `f` (an access into one array at a byte offset, lowered into the given block;
    /// it returns the block where lowering continues and its result) through the pointer `p`:
    /// once for a static pointer, or once per candidate under a switch on the selector,
    /// joining results of type `result` with phis; the default case (null, or an object the
    /// pointer cannot point into) is a null-pointer access. Returns the block where lowering
    /// continues and the result.
    pub(crate) fn through(
        &mut self,
        cur: BlockId,
        p: LVal,
        result: Option<&TypeRef>,
        span: &Span,
        loc: Option<Loc>,
        f: &mut dyn FnMut(&mut Self, BlockId, ObjectId, Operand) -> Result<(BlockId, Option<LVal>), LowerError>,
    ) -> Result<(BlockId, Option<LVal>), LowerError> {
        let (sel, cands, off) = match p {
            LVal::Ptr(o, off) => return f(self, cur, o, off),
            // A pointer read from memory (or made from an integer) when no object's address is
            // ever stored: it points where the host put it (a field of a struct the host
            // filled with `cudaMalloc`'s results, say), which the model does not know. Its
            // only case would be the null one: say it is not modelled rather than report a
            // null-pointer access that the program never makes.
            LVal::DynPtr { sel, ref cands, .. } if cands.is_empty() && self.read_from_memory(sel) => {
                // In an included file the message names the place (`loc` is the main file's).
                let place = match loc.or(span.top()) {
                    Some(l) if l.file != syncfix_kir::FileId::MAIN => {
                        self.kir.k.files.get(l.file).map(|f| format!(" at {}:{}:{}", f.path, l.line, l.col)).unwrap_or_default()
                    }
                    _ => String::new(),
                };
                return Err(unsupported(
                    format!("an access through a pointer read from memory that points to no array of the kernel's{place} (the host sets it: pointers stored in memory are not modelled)"),
                    loc,
                ));
            }
            LVal::DynPtr { sel, cands, off } => (sel, cands, off),
            LVal::Null => (Operand::konst(32, 0), vec![], Operand::konst(64, 0)),
            _ => return Err(unsupported("an access through a value that is not a pointer", loc)),
        };
        let join = self.kir.new_block();
        let mut cases = vec![];
        let mut values: Vec<(BlockId, Option<LVal>)> = vec![];
        for o in cands {
            // A selector known not to be this object needs no case.
            if matches!(sel, Operand::Const { bits, .. } if bits != sel_of(o)) {
                continue;
            }
            let b = self.kir.new_block();
            let (end, v) = f(self, b, o, off)?;
            self.kir.k.blocks[end].term = Terminator::Br(join);
            self.kir.k.blocks[end].term_span = span.clone();
            cases.push((sel_of(o), b));
            values.push((end, v));
        }
        let null_block = self.kir.null_case(join, span);
        values.push((null_block, None));
        self.kir.k.blocks[cur].term = match (sel, cases.as_slice()) {
            (_, []) => Terminator::Br(null_block),
            (Operand::Const { .. }, [(_, b)]) => Terminator::Br(*b),
            _ => Terminator::Switch { value: sel, default: null_block, cases },
        };
        self.kir.k.blocks[cur].term_span = span.clone();
        let result = match result {
            None => None,
            Some(t) => Some(self.join_values(join, t, values, span, loc)?),
        };
        Ok((join, result))
    }

    /// Joins values of type `t` that arrive from several blocks with phis at the start of
    /// `join`; `None` (a path that produced no value) joins as zero or null.
    pub(crate) fn join_values(
        &mut self,
        join: BlockId,
        t: &TypeRef,
        incoming: Vec<(BlockId, Option<LVal>)>,
        span: &Span,
        loc: Option<Loc>,
    ) -> Result<LVal, LowerError> {
        let phi = |me: &mut Self, w: u16, inc: Vec<(BlockId, Operand)>| -> Operand {
            let v = me.kir.k.make_inst(join, InstKind::Phi { incoming: inc }, w, span.clone());
            let at = me.kir.k.blocks[join].insts.iter().take_while(|i| matches!(me.kir.k.insts[**i].kind, InstKind::Phi { .. })).count();
            me.kir.k.blocks[join].insts.insert(at, v);
            Operand::Value(v)
        };
        match t.as_ref() {
            Type::PointerType { .. } => {
                let vals: Vec<(BlockId, LVal)> = incoming.into_iter().map(|(b, v)| (b, v.unwrap_or(LVal::Null))).collect();
                if let Some((_, LVal::Ptr(o, _))) = vals.first() {
                    let o = *o;
                    if vals.iter().all(|(_, v)| matches!(v, LVal::Ptr(p, _) if *p == o)) {
                        let inc = vals.iter().map(|(b, v)| (*b, if let LVal::Ptr(_, off) = v { *off } else { unreachable!() })).collect();
                        return Ok(LVal::Ptr(o, phi(self, 64, inc)));
                    }
                }
                let mut cands = vec![];
                let (mut sels, mut offs) = (vec![], vec![]);
                for (b, v) in &vals {
                    let (s, c, o) = self.dyn_parts(v).ok_or_else(|| unsupported("a join of a pointer and a non-pointer", loc))?;
                    for x in c {
                        if !cands.contains(&x) {
                            cands.push(x);
                        }
                    }
                    sels.push((*b, s));
                    offs.push((*b, o));
                }
                let sel = phi(self, 32, sels);
                let off = phi(self, 64, offs);
                Ok(LVal::DynPtr { sel, cands, off })
            }
            Type::StructType { .. } | Type::NamedStructType { .. } | Type::ArrayType { .. } | Type::VectorType { .. } => {
                let (fields, _) = self.members(t, loc)?;
                let mut out = vec![];
                for (i, f) in fields.iter().enumerate() {
                    let inc = incoming
                        .iter()
                        .map(|(b, v)| {
                            let el = match v {
                                Some(LVal::Agg(xs)) => xs.get(i).cloned(),
                                _ => None,
                            };
                            (*b, el)
                        })
                        .collect();
                    out.push(self.join_values(join, f, inc, span, loc)?);
                }
                Ok(LVal::Agg(out))
            }
            _ => {
                let w = layout::scalar_bits(t).ok_or_else(|| unsupported(format!("a value of type {t}"), loc))?;
                let mut inc = vec![];
                for (b, v) in incoming {
                    inc.push((
                        b,
                        match v {
                            Some(LVal::Scalar(x)) => x,
                            None => Operand::konst(w, 0),
                            Some(_) => return Err(unsupported(format!("a join of values of type {t} and other shapes"), loc)),
                        },
                    ));
                }
                Ok(LVal::Scalar(phi(self, w, inc)))
            }
        }
    }

    /// A phi of pointers: static when every incoming value known now points into one object
    /// (and no earlier attempt learnt otherwise), else a selector phi and an offset phi.
    pub(crate) fn pointer_phi(
        &mut self,
        frame: &mut Frame,
        x: &llvm_ir::instruction::Phi,
        cur: BlockId,
        span: &Span,
        loc: Option<Loc>,
    ) -> Result<BlockId, LowerError> {
        let key = (self.stack.last().cloned().unwrap_or_default(), x.dest.clone());
        let known: Vec<LVal> = x.incoming_values.iter().filter_map(|(op, _)| self.operand(frame, op, loc).ok()).collect();
        let learnt = self.hints.phis.get(&key).cloned();
        if learnt.is_none() {
            if let Some(LVal::Ptr(o, _)) = known.first() {
                let o = *o;
                if known.iter().all(|v| matches!(v, LVal::Ptr(p, _) if *p == o)) {
                    let inst = self.kir.push(cur, InstKind::Phi { incoming: vec![] }, 64, span);
                    frame.values.insert(x.dest.clone(), LVal::Ptr(o, Operand::Value(inst)));
                    frame.phis.push(PendingPhi {
                        dest: x.dest.clone(),
                        insts: vec![inst],
                        incoming: x.incoming_values.clone(),
                        shape: PhiShape::Static(o),
                        loc,
                    });
                    return Ok(cur);
                }
            }
            if known.is_empty() {
                return Err(unsupported(
                    format!("a pointer phi `{}` whose memory object is not known", crate::llvm::name_str(&x.dest)),
                    loc,
                ));
            }
        }
        let mut cands = learnt.unwrap_or_default();
        for v in &known {
            let (_, c, _) = self.dyn_parts(v).ok_or_else(|| unsupported("a phi of a pointer and a non-pointer", loc))?;
            for o in c {
                if !cands.contains(&o) {
                    cands.push(o);
                }
            }
        }
        let sel = self.kir.push(cur, InstKind::Phi { incoming: vec![] }, 32, span);
        let off = self.kir.push(cur, InstKind::Phi { incoming: vec![] }, 64, span);
        frame.values.insert(x.dest.clone(), LVal::DynPtr { sel: Operand::Value(sel), cands: cands.clone(), off: Operand::Value(off) });
        frame.phis.push(PendingPhi {
            dest: x.dest.clone(),
            insts: vec![sel, off],
            incoming: x.incoming_values.clone(),
            shape: PhiShape::Dynamic(cands),
            loc,
        });
        Ok(cur)
    }

    /// Records that the objects `v` may point into escape (stored in memory, or converted to
    /// an integer): a pointer read back from memory may point into them.
    pub(crate) fn escape(&mut self, v: &LVal) {
        if let Some((_, cands, _)) = self.dyn_parts(v) {
            for o in cands {
                if !self.escaped.contains(&o) {
                    self.escaped.push(o);
                }
            }
        }
    }

    /// The arrays that the pointers inside a struct passed to the kernel by value point to:
    /// for each pointer in the parameter's private copy `obj` (of type `ty`, at byte `base`),
    /// a fresh global array named by its access path (`q.p`, `q.p[4]`, as GPUVerify names
    /// them), and a store of the pointer to it at kernel entry. `qual` is the type as clang
    /// spells it (for the element size).
    pub(crate) fn byval_pointees(&mut self, copy: ByValCopy, ty: &TypeRef, path: &str, base: u64, qual: &str) -> Result<(), LowerError> {
        let ByValCopy { entry, obj, loc } = copy;
        match ty.as_ref() {
            Type::PointerType { .. } => {
                self.pointer_size(ty, loc)?;
                let o = self.kir.k.objects.push(MemObject {
                    name: path.to_string(),
                    space: Space::Global,
                    elem_size: super::memory::elem_size_of_pointer_type(qual),
                    dims: vec![],
                    param: None,
                    init: None,
                    uniform: false,
                });
                let value = Operand::konst(64, sel_of(o) << OFFSET_BITS);
                self.kir.push(
                    entry,
                    InstKind::Store { ptr: Pointer { object: obj, offset: Operand::konst(64, base as u128) }, value, width: 8 },
                    0,
                    &Span::default(),
                );
                self.escaped.push(o);
            }
            Type::ArrayType { element_type, num_elements } => {
                let stride = layout::alloc_size(&self.m.types, element_type)
                    .ok_or_else(|| unsupported(format!("kernel parameter `{path}` of unknown layout"), loc))?;
                for i in 0..*num_elements as u64 {
                    self.byval_pointees(copy, element_type, &format!("{path}[{i}]"), base + i * stride, qual)?;
                }
            }
            Type::NamedStructType { name } => {
                let Some(def) = layout::resolve_named(&self.m.types, name) else { return Ok(()) };
                let Type::StructType { element_types, is_packed } = def.as_ref() else { return Ok(()) };
                let offs = layout::field_offsets(&self.m.types, element_types, *is_packed)
                    .ok_or_else(|| unsupported(format!("kernel parameter `{path}` of unknown layout"), loc))?;
                // The source names of the members, from clang's AST: `struct.s` is `s`.
                let record = name.split_once('.').map(|(_, r)| r).unwrap_or(name);
                let record = record.rsplit("::").next().unwrap_or(record);
                let trimmed = record.trim_end_matches(|c: char| c.is_ascii_digit()).trim_end_matches('.');
                let info = self.input.names.records.get(record).or_else(|| self.input.names.records.get(trimmed)).cloned();
                let info = info.filter(|r| r.bases + r.fields.len() == element_types.len());
                for (i, (e, off)) in element_types.iter().zip(offs).enumerate() {
                    let (p, q) = match &info {
                        Some(r) if i < r.bases => (path.to_string(), String::new()),
                        Some(r) => {
                            let (n, q) = &r.fields[i - r.bases];
                            (format!("{path}.{n}"), q.clone())
                        }
                        None => (format!("{path}.{i}"), String::new()),
                    };
                    self.byval_pointees(copy, e, &p, base + off, &q)?;
                }
            }
            Type::StructType { element_types, is_packed } => {
                let offs = layout::field_offsets(&self.m.types, element_types, *is_packed)
                    .ok_or_else(|| unsupported(format!("kernel parameter `{path}` of unknown layout"), loc))?;
                for (i, (e, off)) in element_types.iter().zip(offs).enumerate() {
                    self.byval_pointees(copy, e, &format!("{path}.{i}"), base + off, "")?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl<'a> Lowerer<'a> {
    /// Whether the selector `sel` of a decoded pointer was decoded from a value loaded from
    /// memory (`decode_ptr` of a load: `trunc(load >> OFFSET_BITS)`).
    fn read_from_memory(&self, sel: Operand) -> bool {
        let value = |o: Operand| match o {
            Operand::Value(v) => Some(&self.kir.k.insts[v].kind),
            Operand::Const { .. } => None,
        };
        let Some(InstKind::Cast { op: CastOp::Trunc, arg }) = value(sel) else { return false };
        let Some(InstKind::Bin { op: BinOp::LShr, lhs, .. }) = value(*arg) else { return false };
        matches!(value(*lhs), Some(InstKind::Load { .. }))
    }
}

/// Null-pointer accesses.
impl KirBuilder {
    /// A new block with a null-pointer access that continues at `join` (the default case of
    /// a switch over pointer targets).
    pub(crate) fn null_case(&mut self, join: BlockId, span: &Span) -> BlockId {
        let b = self.new_block();
        self.null_access(b, span);
        self.k.blocks[b].term = Terminator::Br(join);
        self.k.blocks[b].term_span = span.clone();
        b
    }

    /// A null-pointer access here (GPUVerify: "possible null pointer access").
    pub(crate) fn null_access(&mut self, cur: BlockId, span: &Span) {
        self.push(cur, InstKind::Assert { cond: Operand::bool(false), kind: AssertKind::NullPointer, global: false }, 0, span);
    }
}
