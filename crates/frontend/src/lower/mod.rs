//! Lowering of clang's LLVM IR (read with the `llvm-ir` crate) to KIR (ARCHITECTURE.md,
//! "crates/frontend": `lower`).
//!
//! - Every `__device__` call is inlined here (not by LLVM, whose inlining would lose the
//!   call-site chain of source locations: `llvm-ir` drops `inlinedAt`); each instruction's
//!   span is its own location followed by the call sites it was inlined through.
//! - Pointers are resolved statically where they can be: a pointer value is a memory object
//!   and a byte offset (`getelementptr` becomes offset arithmetic), so an access names its
//!   object. A pointer that may point into several objects or be null (`?:`, phis, pointers
//!   stored in memory or converted to integers) is a selector among candidate objects and an
//!   offset; an access through it is a switch on the selector (`pointer.rs`).
//! - Launch dimensions are constants; thread and group ids are builtins.
//! - Anything not understood is an [`LowerError::Unsupported`] naming the construct and its
//!   source location — never dropped silently.

mod build;
mod builtins;
mod constant;
mod fold;
mod inst;
pub mod layout;
mod library;
mod memory;
mod partial;
mod pointer;
mod spec;
mod vector;

use build::KirBuilder;
use crate::llvm::name_str;
use llvm_ir::{DebugLoc, Function, Module, Name, Type, TypeRef};
use std::collections::HashMap;
use syncfix_kir::{
    Block, BlockId, FileId, InstId, InstKind, Kernel, Language, Launch, Loc, MemObject, ObjectId, Operand, Param,
    ParamKind, PrimaryMap, SourceFile, Space, Span, StmtTable, Terminator,
};

/// A construct the front end does not understand.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LowerError {
    #[error("{what}")]
    Unsupported { what: String, loc: Option<Loc> },
    /// An annotation where it has no meaning, rejected as GPUVerify rejects it (at `stage`):
    /// a loop invariant that is not at a loop head, a function-wide invariant that is not at
    /// the end of its function or uses values computed in its body.
    #[error("{what}")]
    Annotation { what: String, loc: Option<Loc>, stage: Stage },
}

/// The stage of GPUVerify's tool chain that rejects a misplaced annotation: its exit code
/// differs (GPUVerify's `error_codes.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The front end (Bugle; exit 4).
    FrontEnd,
    /// The verification-condition generator (GPUVerifyVCGen; exit 5).
    VcGen,
}

pub(crate) fn unsupported(what: impl Into<String>, loc: Option<Loc>) -> LowerError {
    LowerError::Unsupported { what: what.into(), loc }
}

/// Maps clang's debug locations to KIR locations.
pub trait LocMapper {
    /// `Some((line, col))` in the original main file when `dl` is in the (marked) main file.
    fn main_loc(&self, dl: &DebugLoc) -> Option<(u32, u32)>;
}

/// Source names the IR does not carry.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// The kernel's parameters: (name, type with typedefs resolved).
    pub params: Vec<(String, String)>,
    /// IR names of every kernel of the module (no function pointer targets them).
    pub kernels: Vec<String>,
    /// IR names of global variables (shared arrays, constants) to source names.
    pub globals: HashMap<String, String>,
    /// Struct and class members by record name (from clang's AST).
    pub records: HashMap<String, crate::ast::RecordInfo>,
}

/// Which source-level annotations the front end honours (GPUVerify's `--no-annotations`,
/// `--only-requires`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Annotations {
    #[default]
    All,
    OnlyRequires,
    Ignore,
}

/// Everything the lowering needs besides the module.
pub struct LowerInput<'a> {
    pub module: &'a Module,
    /// The kernel function's IR (mangled) name.
    pub kernel_ir_name: &'a str,
    /// Its source name.
    pub kernel_name: &'a str,
    pub language: Language,
    pub launch: Launch,
    pub names: &'a Names,
    pub mapper: &'a dyn LocMapper,
    /// The main file (becomes [`FileId::MAIN`]) and other known files by path.
    pub main_file: SourceFile,
    pub known_files: Vec<SourceFile>,
    pub stmts: StmtTable,
    pub annotations: Annotations,
    pub invariants_as_candidates: bool,
    /// Fixed values of the kernel's scalar parameters, in order of the scalar parameters
    /// (`--kernel-args`).
    pub param_values: Vec<Option<u128>>,
    /// Sizes in bytes of the kernel's pointer parameters, in order of the pointer parameters
    /// (`--kernel-arrays`), for array-bounds checking.
    pub array_sizes: Vec<Option<u64>>,
    /// Byte offsets of the module's constant getelementptr expressions (see `constgep`).
    pub gep_offsets: &'a crate::constgep::GepOffsets,
    /// The entry is not a kernel but a device function checked on its own against its
    /// contract (GPUVerify's `--no-inline`, Betts et al. OOPSLA 2012 §5: procedures are
    /// checked modularly): its `__requires` are assumed, its `__ensures` checked at each
    /// return, and its scalar parameters are arbitrary values of each thread, not kernel
    /// arguments shared by all threads.
    pub modular: bool,
}

/// A lowered value: a scalar, a pointer (object and byte offset), or an aggregate.
#[derive(Clone, Debug)]
pub(crate) enum LVal {
    Scalar(Operand),
    Ptr(ObjectId, Operand),
    Null,
    /// A pointer chosen at run time: `sel` (32 bits) is 0 for null, else `index + 1` of the
    /// object it points into, one of `cands`; `off` (64 bits) its byte offset.
    DynPtr { sel: Operand, cands: Vec<ObjectId>, off: Operand },
    Agg(Vec<LVal>),
}

/// What a pending phi stands for.
#[derive(Clone, Debug)]
pub(crate) enum PhiShape {
    /// A scalar or the scalar leaves of an aggregate.
    Leaves,
    /// A pointer into one object: the phi is its offset.
    Static(ObjectId),
    /// A pointer into one of these objects, or null: phis of its selector and offset.
    Dynamic(Vec<ObjectId>),
}

/// What one lowering attempt learnt about pointers, for the next attempt: the lowering of a
/// use depends on whether a pointer is static, which a phi's later incoming values (loop back
/// edges) or a later store of a pointer can change.
#[derive(Clone, Debug, Default)]
pub(crate) struct PtrHints {
    /// Pointer phis (function, IR name) that must be dynamic, with their candidates.
    pub(crate) phis: HashMap<(String, Name), Vec<ObjectId>>,
    /// Objects whose address is stored in memory or converted to an integer somewhere in the
    /// kernel: the candidates of a pointer read from memory.
    pub(crate) escaped: Vec<ObjectId>,
}

pub(crate) struct PendingPhi {
    dest: Name,
    /// The KIR phi of a scalar, the offset phi of a pointer, or one phi per scalar leaf of an
    /// aggregate (a vector, a struct).
    insts: Vec<InstId>,
    incoming: Vec<(llvm_ir::Operand, Name)>,
    shape: PhiShape,
    loc: Option<Loc>,
}

/// Where lowered KIR goes and where it comes from: the block that receives the instructions,
/// the span they carry, and the source location an error names. These three travel together
/// through the lowering's helpers.
#[derive(Clone, Copy)]
pub(crate) struct At<'s> {
    pub(crate) cur: BlockId,
    pub(crate) span: &'s Span,
    pub(crate) loc: Option<Loc>,
}

impl<'s> At<'s> {
    pub(crate) fn new(cur: BlockId, span: &'s Span, loc: Option<Loc>) -> Self {
        At { cur, span, loc }
    }
}

pub(crate) struct Frame {
    values: HashMap<Name, LVal>,
    blocks: HashMap<Name, BlockId>,
    exits: HashMap<Name, BlockId>,
    phis: Vec<PendingPhi>,
    /// The call chain this body was inlined through (empty for the kernel).
    call_site: Span,
    is_kernel: bool,
    returns: Vec<(BlockId, Option<LVal>)>,
    /// The function is a GPUVerify specification (`__spec_f`): its postconditions are
    /// assumed, not checked.
    is_spec: bool,
    /// Postconditions (condition, global), evaluated again at each return.
    ensures: Vec<(Operand, bool, Span)>,
    /// Placeholders of `__return_val_*()` (one per scalar of the value), replaced by the
    /// returned value at each return.
    ret_placeholders: Vec<Vec<InstId>>,
    /// `__function_wide_invariant` conditions, checked at each loop head of the function
    /// (`true`: a candidate, `__function_wide_candidate_invariant` or with
    /// `--invariants-as-candidates`).
    function_wide: Vec<(Operand, bool)>,
    /// `__barrier_invariant_N` (condition, instantiations) waiting for the next barrier.
    /// Instantiations: this thread's local id, and for a binary invariant the other's.
    barrier_invariants: Vec<(Operand, Vec<(Operand, Option<Operand>)>, Span)>,
    /// LLVM block names in the order they were lowered (for the function's loop heads).
    order: Vec<Name>,
    /// Vector stores that write only some lanes (`v.y = e`), see [`partial`].
    partial: partial::PartialStores,
}

pub(crate) struct Lowerer<'a> {
    m: &'a Module,
    input: &'a LowerInput<'a>,
    /// The kernel being built.
    pub(crate) kir: KirBuilder,
    globals: HashMap<String, ObjectId>,
    stack: Vec<String>,
    files: HashMap<String, FileId>,
    functions: HashMap<&'a str, &'a Function>,
    private_count: u32,
    /// Inside `__syncfix_spec_begin/end`: loads are specification reads.
    pub(crate) spec_depth: u32,
    /// What earlier attempts learnt about pointers.
    pub(crate) hints: PtrHints,
    /// Learnt in this attempt: when set, the attempt's result is discarded and lowering
    /// starts again with these hints.
    pub(crate) learnt: Option<PtrHints>,
    /// Objects whose address escaped so far in this attempt (see [`PtrHints::escaped`]).
    pub(crate) escaped: Vec<ObjectId>,
    /// A pointer was read from memory in this attempt.
    pub(crate) decoded: bool,
    kernel: &'a Function,
}

/// Lowers the kernel `input.kernel_ir_name` of `input.module` to KIR.
///
/// Errors: [`LowerError::Unsupported`] naming the first construct that is not understood
/// (recursion, pointers stored in memory, vector operations, unknown functions, ...).
pub fn lower(input: &LowerInput<'_>) -> Result<Kernel, LowerError> {
    // Each retry learns at least one more dynamic phi, candidate or escaped object, so this
    // bound is never reached by real kernels; it only guards against a bug looping.
    let mut hints = PtrHints::default();
    for _ in 0..64 {
        match lower_once(input, hints.clone()) {
            Ok(k) => {
                if cfg!(debug_assertions) {
                    assert_well_formed(&k);
                }
                return Ok(k);
            }
            Err(Attempt::Retry(h)) => hints = h,
            Err(Attempt::Failed(e)) => return Err(e),
        }
    }
    Err(unsupported("pointers whose targets did not settle after 64 attempts", None))
}

/// Panics with every broken rule when the lowered kernel `k` is not well formed (KIR's
/// invariants, [`syncfix_kir::check`], and the source locations the front end promises,
/// [`syncfix_kir::check_spans`]): a bug of the lowering, caught where it is made rather than in
/// the verifier. Run in debug builds; the tests call the check themselves.
fn assert_well_formed(k: &Kernel) {
    let errors: Vec<String> = syncfix_kir::check(k).iter().chain(syncfix_kir::check_spans(k).iter()).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "the lowering of `{}` broke KIR's rules:\n{}", k.name, errors.join("\n"));
}

/// Why a lowering attempt gave no kernel.
enum Attempt {
    /// It learnt something about pointers: lower again with these hints.
    Retry(PtrHints),
    Failed(LowerError),
}

/// One lowering attempt with what earlier attempts learnt.
fn lower_once(input: &LowerInput<'_>, hints: PtrHints) -> Result<Kernel, Attempt> {
    let mut l = Lowerer::new(input, hints).map_err(Attempt::Failed)?;
    let result = l.run();
    if let Some(h) = l.learnt.take() {
        return Err(Attempt::Retry(h));
    }
    // A pointer read from memory before a later store made another object escape: its
    // candidates were too few.
    if result.is_ok() && l.decoded && l.escaped.iter().any(|o| !l.hints.escaped.contains(o)) {
        let mut h = l.hints.clone();
        for o in &l.escaped {
            if !h.escaped.contains(o) {
                h.escaped.push(*o);
            }
        }
        return Err(Attempt::Retry(h));
    }
    result.map_err(Attempt::Failed)?;
    spec::check_invariant_placement(&l.kir.k).map_err(Attempt::Failed)?;
    Ok(l.kir.k)
}

impl<'a> Lowerer<'a> {
    fn new(input: &'a LowerInput<'a>, hints: PtrHints) -> Result<Self, LowerError> {
        let m = input.module;
        let func = m
            .functions
            .iter()
            .find(|f| f.name == input.kernel_ir_name)
            .ok_or_else(|| unsupported(format!("kernel `{}` has no definition in the IR", input.kernel_name), None))?;
        let mut files = PrimaryMap::new();
        files.push(input.main_file.clone());
        let mut file_ids = HashMap::new();
        for f in &input.known_files {
            let id = files.push(f.clone());
            file_ids.insert(f.path.clone(), id);
        }
        let mut blocks = PrimaryMap::new();
        let entry = blocks.push(Block { insts: vec![], term: Terminator::Return, term_span: Span::default() });
        let k = Kernel {
            name: input.kernel_name.to_string(),
            language: input.language,
            launch: input.launch,
            params: vec![],
            objects: PrimaryMap::new(),
            blocks,
            insts: PrimaryMap::new(),
            entry,
            files,
            stmts: input.stmts.clone(),
            assumptions: vec![],
        };
        Ok(Lowerer {
            m,
            input,
            kir: KirBuilder::new(k),
            globals: HashMap::new(),
            stack: vec![],
            files: file_ids,
            functions: m.functions.iter().map(|f| (f.name.as_str(), f)).collect(),
            private_count: 0,
            spec_depth: 0,
            hints,
            learnt: None,
            escaped: vec![],
            decoded: false,
            kernel: func,
        })
    }

    /// Lowers the kernel into `self.kir.k`.
    fn run(&mut self) -> Result<(), LowerError> {
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
        if self.stack.iter().any(|f| *f == callee.name) {
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
    let succs = |i: usize| -> Vec<usize> {
        successors(&func.basic_blocks[i].term).into_iter().filter_map(|n| index.get(n).copied()).collect()
    };
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
