//! A generator of random well-formed CUDA and OpenCL kernels for the fuzz tests (issue 3).
//!
//! A kernel is a deterministic function of a language and a *choice stream* (a `Vec<u32>`), as
//! in Hypothesis: every decision reads the next choice, choice 0 is always the simplest option
//! (stop the statement list, a literal, no `else`...), and an exhausted stream reads 0. So
//! proptest's shrinking of the vector (shorter, smaller elements) shrinks the kernel.
//!
//! The generator keeps the kernel type-correct: it tracks the variables and arrays in scope,
//! generates every expression at a type (`int`, `unsigned`, `float`) and casts where types
//! differ, uses only operators valid at that type, never writes read-only memory, loop
//! counters or loop bounds, and calls only helpers defined earlier (so no recursion) with
//! arguments of the parameters' types and address spaces. clang rejecting a generated kernel
//! is therefore a generator bug.
#![allow(dead_code)]

#[path = "expr.rs"]
mod expr;
#[path = "stmt.rs"]
mod stmt;

use proptest::prelude::*;
use std::collections::BTreeSet;
use std::fmt;

/// The source language of a generated kernel.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lang {
    Cuda,
    OpenCl,
}

/// Size bounds of the generated kernels.
#[derive(Copy, Clone, Debug)]
pub struct Sizes {
    /// Longest choice stream (bounds the kernel's size).
    pub max_choices: usize,
    /// Most statements per function (kernel or helper).
    pub max_stmts: usize,
    /// Deepest nesting of compound statements.
    pub max_depth: usize,
    /// Deepest expression.
    pub max_expr_depth: usize,
    /// Most `__device__` helper functions.
    pub max_helpers: usize,
    /// Largest constant loop bound.
    pub max_trip: u32,
}

/// Sizes for the front-end fuzz test (clang and the lowering only).
pub const FRONTEND: Sizes = Sizes { max_choices: 600, max_stmts: 40, max_depth: 4, max_expr_depth: 3, max_helpers: 3, max_trip: 4 };

/// Sizes for the verifier-level fuzz test: small enough for Z3.
pub const VERIFY: Sizes = Sizes { max_choices: 300, max_stmts: 16, max_depth: 3, max_expr_depth: 2, max_helpers: 2, max_trip: 3 };

/// A generated kernel: its language, source text and the constructs it uses.
#[derive(Clone)]
pub struct GenKernel {
    pub lang: Lang,
    pub source: String,
    /// Names of the constructs in the source (`for`, `barrier`, `helper call`...).
    pub features: BTreeSet<&'static str>,
    /// The choices the generator read (a prefix of the stream), and its size bounds: what
    /// the shrinker edits. Empty for a kernel edited as text.
    pub choices: Vec<u32>,
    pub sizes: Sizes,
    /// A launch to check the kernel with: block and grid dimensions.
    pub launch: ([u32; 3], [u32; 3]),
    /// A choice in `0..VARIANTS` for the check's options (0, the most likely: the defaults).
    pub variant: u32,
}

impl GenKernel {
    /// The file name to compile it under (the extension decides the language).
    pub fn file_name(&self) -> &'static str {
        match self.lang {
            Lang::Cuda => "kernel.cu",
            Lang::OpenCl => "kernel.cl",
        }
    }
}

impl fmt::Debug for GenKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (block {:?}, grid {:?}, variant {}):\n{}", self.file_name(), self.launch.0, self.launch.1, self.variant, self.source)
    }
}

/// The launches the kernels are checked with (block, grid), the first the most likely: small,
/// so that the verifier's encoding stays small, with one block, several blocks, and 2-D and
/// 3-D shapes.
const LAUNCHES: [([u32; 3], [u32; 3]); 5] =
    [([4, 2, 1], [2, 1, 1]), ([8, 1, 1], [1, 1, 1]), ([2, 2, 2], [2, 2, 1]), ([16, 1, 1], [4, 1, 1]), ([1, 1, 1], [3, 1, 1])];

/// The number of option variants (see [`GenKernel::variant`]).
pub const VARIANTS: u32 = 6;

/// The strategy: a language and a choice stream of at most `sizes.max_choices` choices.
pub fn kernels(sizes: Sizes) -> impl Strategy<Value = GenKernel> {
    (any::<bool>(), proptest::collection::vec(any::<u32>(), 0..sizes.max_choices))
        .prop_map(move |(ocl, choices)| generate(if ocl { Lang::OpenCl } else { Lang::Cuda }, &choices, sizes))
}

/// The kernel of a language and a choice stream.
pub fn generate(lang: Lang, choices: &[u32], sizes: Sizes) -> GenKernel {
    let mut g = Gen {
        lang,
        sizes,
        choices,
        pos: 0,
        out: String::new(),
        indent: 0,
        scopes: vec![],
        arrays: vec![],
        helpers: vec![],
        loop_depth: 0,
        depth: 0,
        stmts: 0,
        max_stmts: 0,
        ret: Ret::Kernel,
        fresh: 0,
        features: BTreeSet::new(),
    };
    let launch = LAUNCHES[g.pick(&[6, 1, 1, 1, 1])];
    let variant = g.pick(&[2 * (VARIANTS - 1), 1, 1, 1, 1, 1]) as u32;
    g.file();
    let used = g.pos.min(choices.len());
    GenKernel { lang, source: g.out, features: g.features, choices: choices[..used].to_vec(), sizes, launch, variant }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ty {
    Int,
    Uint,
    Float,
}

const TYS: [Ty; 3] = [Ty::Int, Ty::Uint, Ty::Float];

/// Where an array lives: global memory, shared (`__shared__` / `__local`), constant memory,
/// or the thread's private memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Space {
    Global,
    Shared,
    Const,
    Private,
}

#[derive(Clone, Debug)]
struct Array {
    name: String,
    elem: Ty,
    /// Empty for a pointer (unbounded), else the extents (powers of two).
    dims: Vec<u32>,
    space: Space,
    writable: bool,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
}

#[derive(Clone, Debug)]
enum Param {
    Scalar(Ty),
    /// A pointer mirroring an array of the kernel (element type, space, writable).
    Pointer(Ty, Space, bool),
}

#[derive(Clone, Debug)]
struct Helper {
    name: String,
    ret: Option<Ty>,
    params: Vec<(String, Param)>,
    /// `__device__ `, `static inline `...
    quals: &'static str,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ret {
    Kernel,
    Void,
    Value(Ty),
}

struct Gen<'a> {
    lang: Lang,
    sizes: Sizes,
    choices: &'a [u32],
    pos: usize,
    out: String,
    indent: usize,
    /// Variables in scope, innermost scope last.
    scopes: Vec<Vec<Var>>,
    /// Arrays in scope (a scope's private arrays are popped with it via `ArrayMark`).
    arrays: Vec<Array>,
    /// Helpers defined so far (callable from later functions).
    helpers: Vec<Helper>,
    loop_depth: usize,
    depth: usize,
    /// Statements emitted in the current function, and its budget.
    stmts: usize,
    max_stmts: usize,
    ret: Ret,
    fresh: usize,
    features: BTreeSet<&'static str>,
}

impl Gen<'_> {
    // ----- choices -----

    fn next(&mut self) -> u32 {
        let c = self.choices.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        c
    }

    fn exhausted(&self) -> bool {
        self.pos >= self.choices.len()
    }

    /// An index into `weights`, by weight; an exhausted stream (choice 0) gives the first
    /// option with a non-zero weight.
    fn pick(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        assert!(total > 0, "no option to pick from");
        let mut r = self.next() % total;
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        unreachable!()
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() as usize) % n.max(1)
    }

    /// True with probability `1/n` (false when the stream is exhausted).
    fn one_in(&mut self, n: u32) -> bool {
        self.pick(&[n - 1, 1]) == 1
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn feature(&mut self, f: &'static str) {
        self.features.insert(f);
    }

    // ----- names of things -----

    fn ty_name(&self, t: Ty) -> &'static str {
        match (t, self.lang) {
            (Ty::Int, _) => "int",
            (Ty::Uint, Lang::Cuda) => "unsigned",
            (Ty::Uint, Lang::OpenCl) => "uint",
            (Ty::Float, _) => "float",
        }
    }

    fn space_qual(&self, s: Space) -> &'static str {
        match (self.lang, s) {
            (Lang::Cuda, Space::Shared) => "__shared__ ",
            (Lang::Cuda, Space::Const) => "__constant__ ",
            (Lang::Cuda, _) => "",
            (Lang::OpenCl, Space::Global) => "__global ",
            (Lang::OpenCl, Space::Shared) => "__local ",
            (Lang::OpenCl, Space::Const) => "__constant ",
            (Lang::OpenCl, Space::Private) => "",
        }
    }

    /// A pointer parameter's declaration.
    fn pointer_decl(&self, elem: Ty, space: Space, writable: bool, name: &str) -> String {
        let konst = if writable || space == Space::Const { "" } else { "const " };
        match self.lang {
            Lang::Cuda => format!("{konst}{} *{name}", self.ty_name(elem)),
            Lang::OpenCl => format!("{}{konst}{} *{name}", self.space_qual(space), self.ty_name(elem)),
        }
    }

    // ----- layout -----

    /// Before a statement: a new line, or (sometimes) the same line.
    fn sep(&mut self) {
        if self.one_in(6) {
            self.feature("statements sharing a line");
            self.out.push(' ');
        } else {
            self.newline();
        }
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn emit(&mut self, s: &str) {
        self.out.push_str(s);
    }

    // ----- scopes -----

    fn push_scope(&mut self) -> usize {
        self.scopes.push(vec![]);
        self.arrays.len()
    }

    fn pop_scope(&mut self, arrays: usize) {
        self.scopes.pop();
        self.arrays.truncate(arrays);
    }

    fn declare(&mut self, name: &str, ty: Ty, mutable: bool) {
        self.scopes.last_mut().expect("a scope").push(Var { name: name.to_string(), ty, mutable });
    }

    fn vars(&self, pred: impl Fn(&Var) -> bool) -> Vec<Var> {
        self.scopes.iter().flatten().filter(|v| pred(v)).cloned().collect()
    }

    // ----- the file -----

    fn file(&mut self) {
        // Kernel parameters: `A` always; the others optional.
        let mut params: Vec<(String, Param)> = vec![("A".into(), Param::Pointer(Ty::Int, Space::Global, true))];
        let optional: Vec<(&str, Param)> = match self.lang {
            Lang::Cuda => vec![
                ("B", Param::Pointer(Ty::Float, Space::Global, true)),
                ("U", Param::Pointer(Ty::Uint, Space::Global, true)),
                ("R", Param::Pointer(Ty::Float, Space::Global, false)),
                ("n", Param::Scalar(Ty::Int)),
                ("m", Param::Scalar(Ty::Uint)),
                ("f", Param::Scalar(Ty::Float)),
            ],
            Lang::OpenCl => vec![
                ("B", Param::Pointer(Ty::Float, Space::Global, true)),
                ("L", Param::Pointer(Ty::Float, Space::Shared, true)),
                ("U", Param::Pointer(Ty::Uint, Space::Global, true)),
                ("K", Param::Pointer(Ty::Int, Space::Const, false)),
                ("n", Param::Scalar(Ty::Int)),
                ("m", Param::Scalar(Ty::Uint)),
                ("f", Param::Scalar(Ty::Float)),
            ],
        };
        for (name, p) in optional {
            if !self.one_in(2) {
                params.push((name.to_string(), p));
            }
        }
        // File-scope arrays: CUDA `__shared__` / `__constant__`, OpenCL `__constant` with an
        // initializer.
        let mut file_arrays = vec![];
        if self.one_in(4) {
            let elem = TYS[self.below(3)];
            let shared = self.lang == Lang::Cuda && self.one_in(2);
            let (space, writable) = if shared { (Space::Shared, true) } else { (Space::Const, false) };
            let a = Array { name: "g0".into(), elem, dims: vec![8], space, writable };
            let init = if self.lang == Lang::OpenCl {
                let lit: Vec<String> = (0..8).map(|i| self.literal_of(elem, i)).collect();
                format!(" = {{{}}}", lit.join(", "))
            } else {
                String::new()
            };
            self.out.push_str(&format!("{}{} g0[8]{init};\n", self.space_qual(space), self.ty_name(elem)));
            self.feature(if space == Space::Shared { "file-scope __shared__ array" } else { "constant array" });
            file_arrays.push(a);
        }
        // Kernel-scope shared arrays (declared at the top of the kernel body).
        let mut shared = vec![];
        let n_shared = self.pick(&[2, 2, 1]);
        for i in 0..n_shared {
            let elem = TYS[self.below(3)];
            let dims = match self.pick(&[3, 1, 2]) {
                0 => vec![8],
                1 => vec![16],
                _ => vec![4, 8],
            };
            shared.push(Array { name: format!("s{i}"), elem, dims, space: Space::Shared, writable: true });
        }
        let kernel_arrays: Vec<Array> = params
            .iter()
            .filter_map(|(name, p)| match p {
                Param::Pointer(elem, space, writable) => {
                    Some(Array { name: name.clone(), elem: *elem, dims: vec![], space: *space, writable: *writable })
                }
                Param::Scalar(_) => None,
            })
            .collect();

        // Helpers: signatures first, then the kernels (which may call every helper), then
        // the helpers' bodies (each may call the earlier helpers). The kernels come first in
        // the choice stream, so a short stream gives a kernel with small helpers.
        let mut candidates: Vec<Array> = kernel_arrays.clone();
        candidates.extend(shared.iter().filter(|a| a.dims.len() == 1).cloned());
        if self.lang == Lang::Cuda {
            candidates.retain(|a| a.space != Space::Const);
        }
        let n_helpers = self.below(self.sizes.max_helpers + 1);
        let all: Vec<Helper> = (0..n_helpers).map(|i| self.helper_signature(i, &candidates)).collect();
        let head = std::mem::take(&mut self.out);

        self.helpers = all.clone();
        let mut kernel_texts = vec![];
        let kernels = if self.one_in(10) { 2 } else { 1 };
        for k in 0..kernels {
            if k > 0 {
                self.feature("two kernels in a file");
            }
            self.kernel(if k == 0 { "k".into() } else { format!("k{k}") }, &params, &shared, &file_arrays);
            kernel_texts.push(std::mem::take(&mut self.out));
        }
        let mut helper_texts = vec![];
        for (i, h) in all.iter().enumerate() {
            self.helpers = all[..i].to_vec();
            self.helper_body(h, &file_arrays);
            helper_texts.push(std::mem::take(&mut self.out));
        }
        self.out = head;
        for t in helper_texts {
            self.out.push_str(&t);
            self.out.push('\n');
        }
        self.out.push_str(&kernel_texts.join("\n"));
        self.out.push('\n');
    }

    fn kernel(&mut self, name: String, params: &[(String, Param)], shared: &[Array], file_arrays: &[Array]) {
        let decls: Vec<String> = params
            .iter()
            .map(|(n, p)| match p {
                Param::Scalar(t) => format!("{} {n}", self.ty_name(*t)),
                Param::Pointer(e, s, w) => self.pointer_decl(*e, *s, *w, n),
            })
            .collect();
        let head = match self.lang {
            Lang::Cuda => "__global__ void",
            Lang::OpenCl => "__kernel void",
        };
        self.out.push_str(&format!("{head} {name}({}) {{", decls.join(", ")));
        let named: Vec<(String, Param)> = params.to_vec();
        self.enter_function(Ret::Kernel, self.sizes.max_stmts, &named, file_arrays);
        for a in shared {
            self.newline();
            let dims: String = a.dims.iter().map(|d| format!("[{d}]")).collect();
            let decl = format!("{}{} {}{dims};", self.space_qual(Space::Shared), self.ty_name(a.elem), a.name);
            self.emit(&decl);
            self.feature(if a.dims.len() == 2 { "2-D shared array" } else { "1-D shared array" });
            self.arrays.push(a.clone());
        }
        self.stmt_list();
        self.leave_function();
    }

    /// A function's scope: its parameters (scalars are variables, pointers arrays) and the
    /// file-scope arrays.
    fn enter_function(&mut self, ret: Ret, max_stmts: usize, params: &[(String, Param)], file_arrays: &[Array]) {
        self.ret = ret;
        self.max_stmts = max_stmts;
        self.stmts = 0;
        self.depth = 0;
        self.loop_depth = 0;
        self.indent = 1;
        self.scopes = vec![vec![]];
        self.arrays = file_arrays.to_vec();
        for (n, p) in params {
            match p {
                Param::Scalar(t) => self.declare(n, *t, true),
                Param::Pointer(e, s, w) => self.arrays.push(Array { name: n.clone(), elem: *e, dims: vec![], space: *s, writable: *w }),
            }
        }
    }

    fn leave_function(&mut self) {
        self.scopes.clear();
        self.arrays.clear();
        self.indent = 0;
        self.newline();
        self.emit("}");
    }

    /// A helper's return type and parameters: pointers mirroring arrays of the kernel (so the
    /// kernel can always pass them) and scalars.
    fn helper_signature(&mut self, index: usize, candidates: &[Array]) -> Helper {
        self.feature("helper function");
        let ret = match self.pick(&[2, 1, 1, 1]) {
            0 => None,
            i => Some(TYS[i - 1]),
        };
        let mut params = vec![];
        let mut used = BTreeSet::new();
        for _ in 0..self.pick(&[1, 2, 1]) {
            if candidates.is_empty() {
                break;
            }
            let a = candidates[self.below(candidates.len())].clone();
            if used.insert(a.name.clone()) {
                params.push((a.name.clone(), Param::Pointer(a.elem, a.space, a.writable)));
            }
        }
        for _ in 0..self.pick(&[1, 2, 1]) {
            let t = TYS[self.below(3)];
            params.push((self.fresh("x"), Param::Scalar(t)));
        }
        let quals = match self.lang {
            Lang::Cuda => {
                ["__device__ ", "static __device__ ", "__device__ __forceinline__ ", "__device__ __noinline__ "][self.pick(&[4, 1, 1, 1])]
            }
            Lang::OpenCl => ["", "static ", "static inline "][self.pick(&[4, 1, 1])],
        };
        Helper { name: format!("h{index}"), ret, params, quals }
    }

    fn helper_body(&mut self, h: &Helper, file_arrays: &[Array]) {
        let decls: Vec<String> = h
            .params
            .iter()
            .map(|(n, p)| match p {
                Param::Scalar(t) => format!("{} {n}", self.ty_name(*t)),
                Param::Pointer(e, s, w) => self.pointer_decl(*e, *s, *w, n),
            })
            .collect();
        let ret_name = h.ret.map(|t| self.ty_name(t)).unwrap_or("void");
        self.out.push_str(&format!("{}{ret_name} {}({}) {{", h.quals, h.name, decls.join(", ")));
        let ret = match h.ret {
            None => Ret::Void,
            Some(t) => Ret::Value(t),
        };
        self.enter_function(ret, (self.sizes.max_stmts / 3).max(1), &h.params, file_arrays);
        self.stmt_list();
        if let Some(t) = h.ret {
            self.sep();
            let e = self.expr(t, self.sizes.max_expr_depth);
            self.emit(&format!("return {e};"));
        }
        self.leave_function();
    }
}
