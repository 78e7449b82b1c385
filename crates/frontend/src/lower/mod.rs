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
//!
//! Parts: `build` (`KirBuilder`: the kernel being built, emission,
//! folding, offset arithmetic), `walk` (functions and blocks, phis, inlining), `inst`
//! (instructions and terminators), `constant`, `memory` and `layout` (memory objects, loads
//! and stores, type sizes), `pointer` and `partial`, `builtins`, `library` (one module per
//! model), `spec` (annotations), `vector`, `fold`. This module holds the lowering's types and
//! the attempts loop.

mod access;
mod build;
mod builtins;
mod calls;
mod constant;
mod copy;
mod fold;
mod inst;
pub mod layout;
mod library;
mod memory;
mod partial;
mod pointer;
mod ptx;
mod spec;
mod values;
mod vector;
mod walk;

use crate::llvm::name_str;
use build::KirBuilder;
use llvm_ir::{DebugLoc, Function, Module, Name, Type, TypeRef};
use std::collections::HashMap;
use syncfix_kir::{
    Block, BlockId, FileId, InstId, InstKind, Kernel, Language, Launch, Loc, MemObject, ObjectId, Operand, Param, ParamKind, PrimaryMap,
    SourceFile, Space, Span, StmtTable, Terminator,
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
    /// The lowered kernel breaks KIR's rules ([`syncfix_kir::check`],
    /// [`syncfix_kir::check_spans`]): a bug of the lowering, never of the user's code.
    #[error("the lowering of `{kernel}` broke KIR's rules:\n{errors}")]
    IllFormed { kernel: String, errors: String },
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
/// `--only-requires`): declared once, in `syncfix-options`.
pub use syncfix_options::Annotations;

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
    DynPtr {
        sel: Operand,
        cands: Vec<ObjectId>,
        off: Operand,
    },
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
                well_formed(&k)?;
                return Ok(k);
            }
            Err(Attempt::Retry(h)) => hints = h,
            Err(Attempt::Failed(e)) => return Err(e),
        }
    }
    Err(unsupported("pointers whose targets did not settle after 64 attempts", None))
}

/// [`LowerError::IllFormed`] with every broken rule when the lowered kernel `k` is not well
/// formed (KIR's invariants, [`syncfix_kir::check`], and the source locations the front end
/// promises, [`syncfix_kir::check_spans`]): a bug of the lowering, caught where it is made
/// rather than in the verifier. Run on every kernel lowered, in every build and test (it costs
/// a pass over the kernel and its dominator tree).
fn well_formed(k: &Kernel) -> Result<(), LowerError> {
    let errors: Vec<String> = syncfix_kir::check(k).iter().chain(syncfix_kir::check_spans(k).iter()).map(|e| e.to_string()).collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(LowerError::IllFormed { kernel: k.name.clone(), errors: errors.join("\n") })
    }
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
}
