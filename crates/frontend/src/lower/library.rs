//! Calls to the device library that our preludes (or clang's OpenCL built-ins) declare without a
//! body and that need more than an uninterpreted function: atomics in their many spellings,
//! exact integer functions (`add_sat`, `mul24`, `min`...), `__syncthreads_count`,
//! `__syncwarp` (a warp barrier, `lib_syncwarp`), memory fences, curand, the element copy of `async_work_group_copy`, math functions with pointer
//! results (`sincos`), and clear errors for the image and texture functions the preludes do not
//! model. Pure math functions need nothing here: a bodiless function marked `const` is lowered
//! as an uninterpreted function by `builtins`.
//!
//! Overloaded library functions are recognised by their Itanium-mangled names (OpenCL C's
//! overloadable built-ins and CUDA's C++ overloads), whose parameter types give the
//! signedness and width of the operands. A function with a body in the module (a user's
//! own `min`, say) is never treated as a library function.

mod libdevice;

use super::{unsupported, At, Frame, LVal, LowerError, Lowerer};
use llvm_ir::TypeRef;
use syncfix_kir::{
    AtomicOp, Barrier, BarrierOrigin, BinOp, BlockId, Builtin, CmpPred, Fences, Guard, InstKind, Language, Loc,
    Operand, Pointer, Scope, Span, TileMask,
};

/// A parameter type of an Itanium-mangled function name, as far as the library needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum MTy {
    Void,
    Int { bits: u16, signed: bool },
    Float(u16),
    Ptr(Box<MTy>),
    Vector(Box<MTy>),
    /// A class or struct, by name (`curandStateXORWOW`).
    Named(String),
}

/// The source name and parameter types of an Itanium-mangled name (`_Z7add_satii`), for
/// functions at namespace scope without template arguments (see
/// [`crate::names::plain_signature`]); `None` for other names or a parameter type the library
/// does not need.
fn parse_mangled(s: &str) -> Option<(String, Vec<MTy>)> {
    let (name, params) = crate::names::plain_signature(s)?;
    let params = params.iter().map(|p| parse_type(p)).collect::<Option<Vec<_>>>()?;
    Some((name, params))
}

/// A parameter type as the demangler spells it (`unsigned int volatile AS1*`, `float
/// __vector(4)`, `curandStateXORWOW*`). Qualifiers (address spaces `ASn`, `const`, `volatile`,
/// `restrict`) are dropped: the library does not need them.
fn parse_type(t: &str) -> Option<MTy> {
    let mut t = t.trim();
    loop {
        let last = t.rsplit(' ').next().unwrap_or(t);
        let qualifier = matches!(last, "const" | "volatile" | "restrict")
            || last.strip_prefix("AS").is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
        match t.rfind(' ') {
            Some(i) if qualifier => t = t[..i].trim_end(),
            _ => break,
        }
    }
    if let Some(inner) = t.strip_suffix('*') {
        return Some(MTy::Ptr(Box::new(parse_type(inner)?)));
    }
    if let Some(i) = t.find(" __vector(") {
        return Some(MTy::Vector(Box::new(parse_type(&t[..i])?)));
    }
    let int = |bits, signed| Some(MTy::Int { bits, signed });
    match t {
        "void" => Some(MTy::Void),
        "bool" | "unsigned char" => int(8, false),
        "char" | "signed char" => int(8, true),
        "short" => int(16, true),
        "unsigned short" => int(16, false),
        "int" => int(32, true),
        "unsigned int" => int(32, false),
        "long" | "long long" => int(64, true),
        "unsigned long" | "unsigned long long" => int(64, false),
        "float" => Some(MTy::Float(32)),
        "double" => Some(MTy::Float(64)),
        "half" => Some(MTy::Float(16)),
        // Other builtin types the library never takes.
        "wchar_t" | "char8_t" | "char16_t" | "char32_t" | "__int128" | "__float128" | "_Float16" | "auto" => None,
        // A class or struct at namespace scope.
        _ if !t.is_empty() && t.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') && !t.as_bytes()[0].is_ascii_digit() => {
            Some(MTy::Named(t.to_string()))
        }
        _ => None,
    }
}

/// A call of a library function: its IR name, its source name and parameter types (read off
/// the mangled name), its lowered arguments and the result's width when it is a scalar.
#[derive(Clone, Copy)]
struct LibCall<'c> {
    name: &'c str,
    base: &'c str,
    params: &'c [MTy],
    args: &'c [LVal],
    ret_bits: Option<u16>,
}

/// What an atomic library function does.
enum AtomicKind {
    /// A read-modify-write with the call's second argument.
    Rmw(AtomicOp),
    /// OpenCL `atomic_inc`/`atomic_dec`: add or subtract 1 (kept as additions of a constant so
    /// that the verifier can recognise repetition-free counters).
    Step(AtomicOp),
    /// Compare-and-swap with the call's second and third arguments.
    CmpXchg,
}

/// The atomic operation of an OpenCL (`atomic_add`, `atom_add`) or CUDA (`atomicAdd`,
/// `atomicAdd_block`) atomic function, given the language and whether the element type is
/// signed, a float.
fn atomic_kind(name: &str, opencl: bool, signed: bool, float: bool) -> Option<AtomicKind> {
    use AtomicKind::*;
    // The read-modify-writes both languages share, by their lower-case name.
    let shared = |op: &str| -> Option<AtomicKind> {
        Some(Rmw(match op {
            "add" => AtomicOp::Add,
            "sub" => AtomicOp::Sub,
            "min" if signed => AtomicOp::Min,
            "min" => AtomicOp::UMin,
            "max" if signed => AtomicOp::Max,
            "max" => AtomicOp::UMax,
            "and" => AtomicOp::And,
            "or" => AtomicOp::Or,
            "xor" => AtomicOp::Xor,
            _ => return None,
        }))
    };
    if opencl {
        let op = name.strip_prefix("atomic_").or_else(|| name.strip_prefix("atom_"))?;
        return match op {
            "xchg" => Some(Rmw(AtomicOp::Xchg)),
            "inc" => Some(Step(AtomicOp::Add)),
            "dec" => Some(Step(AtomicOp::Sub)),
            "cmpxchg" => Some(CmpXchg),
            _ => shared(op),
        };
    }
    let op = name.strip_prefix("atomic")?;
    let op = op.strip_suffix("_block").or_else(|| op.strip_suffix("_system")).unwrap_or(op);
    match op {
        "Add" if float => Some(Rmw(AtomicOp::FAdd)),
        "Exch" => Some(Rmw(AtomicOp::Xchg)),
        // CUDA: ((old >= val) ? 0 : old + 1) and (((old == 0) || (old > val)) ? val : old - 1),
        // LLVM's uinc_wrap and udec_wrap.
        "Inc" => Some(Rmw(AtomicOp::Inc)),
        "Dec" => Some(Rmw(AtomicOp::Dec)),
        "CAS" => Some(CmpXchg),
        // CUDA spells them capitalised: atomicAdd, atomicMin...
        _ if op.starts_with(|c: char| c.is_ascii_uppercase()) => shared(&op.to_ascii_lowercase()),
        _ => None,
    }
}

/// Integer library functions computed exactly on scalars (OpenCL C 1.2 §6.12.3, CUDA's integer
/// intrinsics). The operands are signed when the first parameter's type is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum IntFn {
    AddSat,
    SubSat,
    MadSat,
    HAdd,
    RHAdd,
    MulHi,
    MadHi,
    Mul24,
    Mad24,
    Min,
    Max,
    Clamp,
    Abs,
    AbsDiff,
    Sad,
    Rotate,
    Upsample,
}

/// The integer function `name` of OpenCL C (`opencl`) or CUDA.
fn int_fn(name: &str, opencl: bool) -> Option<IntFn> {
    use IntFn::*;
    Some(match (name, opencl) {
        ("min", _) => Min,
        ("max", _) => Max,
        ("abs", _) => Abs,
        ("add_sat", true) => AddSat,
        ("sub_sat", true) => SubSat,
        ("mad_sat", true) => MadSat,
        ("hadd", true) | ("__hadd" | "__uhadd", false) => HAdd,
        ("rhadd", true) | ("__rhadd" | "__urhadd", false) => RHAdd,
        ("mul_hi", true) | ("__mulhi" | "__umulhi" | "__mul64hi" | "__umul64hi", false) => MulHi,
        ("mad_hi", true) => MadHi,
        ("mul24", true) | ("__mul24" | "__umul24", false) => Mul24,
        ("mad24", true) => Mad24,
        ("umin" | "llmin" | "ullmin", false) => Min,
        ("umax" | "llmax" | "ullmax", false) => Max,
        ("clamp", true) => Clamp,
        ("labs" | "llabs", false) => Abs,
        ("abs_diff", true) => AbsDiff,
        ("__sad" | "__usad", false) => Sad,
        ("rotate", true) => Rotate,
        ("upsample", true) => Upsample,
        _ => return None,
    })
}

/// Whether `name` is an OpenCL image/sampler or CUDA texture/surface function.
fn is_image_function(name: &str) -> bool {
    [
        "read_image",
        "write_image",
        "get_image_",
        "tex1D",
        "tex2D",
        "tex3D",
        "texCubemap",
        "surf1D",
        "surf2D",
        "surf3D",
        "llvm.nvvm.texsurf.",
        "llvm.nvvm.tex.",
        "llvm.nvvm.suld.",
        "llvm.nvvm.sust.",
    ]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The curand functions that draw a number from a generator state (the state pointer is their
/// first argument); `curand_init` takes it last.
fn is_curand_draw(name: &str) -> bool {
    matches!(
        name,
        "curand"
            | "curand_uniform"
            | "curand_uniform_double"
            | "curand_normal"
            | "curand_normal_double"
            | "curand_log_normal"
            | "curand_log_normal_double"
            | "curand_poisson"
    )
}

impl<'a> Lowerer<'a> {
    /// Lowers a call to the library function `name` (IR name, possibly mangled) with lowered
    /// arguments `args`; `ret_bits` is the result's width when it is a scalar.
    ///
    /// Returns `Ok(None)` when `name` is not a library function handled here (or has a body
    /// in the module), otherwise `Ok(Some(result))` (`result` is `None` for calls without a
    /// value) after emitting the call's KIR into `cur`. Errors: `Unsupported` for images and
    /// textures, vload/vstore (vectors), and library calls whose pointer arguments are not
    /// resolved to a memory object (null pointers).
    /// A call to the device library (`lower_library_call_at`), through pointer arguments that
    /// may be dynamic or null: the call is made once per object such an argument may point
    /// into (see [`Lowerer::through`]). Returns the block where lowering continues and the
    /// call's value, or `None` when `name` is not a library function.
    pub(crate) fn lower_library_call(
        &mut self,
        frame: &mut Frame,
        name: &str,
        args: &[LVal],
        ret_ty: Option<&TypeRef>,
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Option<(BlockId, Option<LVal>)>, LowerError> {
        let At { cur, span, loc } = at;
        // A function with a body in the module (a user's own `min`) is never the library's.
        if self.functions.get(name).is_some_and(|f| !f.basic_blocks.is_empty()) {
            return Ok(None);
        }
        if self.input.language == Language::Cuda && name.starts_with("__nv_") {
            let v = self.lower_libdevice_call(name, args, ret_bits, cur, span, loc)?;
            return Ok(Some((cur, v.map(LVal::Scalar))));
        }
        let (base, params) = parse_mangled(name).unwrap_or_else(|| (crate::names::function_name(name), vec![]));
        if let Some(v) = self.lower_vector_library_call(frame, LibCall { name, base: &base, params: &params, args, ret_bits }, ret_ty, at)? {
            return Ok(Some((cur, Some(v))));
        }
        let dynamic = args.iter().position(|a| matches!(a, LVal::DynPtr { .. } | LVal::Null));
        let Some(i) = dynamic.filter(|_| self.library_takes_pointers(&base, &params)) else {
            let r = self.lower_library_call_at(frame, LibCall { name, base: &base, params: &params, args, ret_bits }, at)?;
            return Ok(r.map(|v| (cur, v.map(LVal::Scalar))));
        };
        let ret_ty = ret_ty.filter(|_| ret_bits.is_some());
        let (next, v) = self.through(cur, args[i].clone(), ret_ty, span, loc, &mut |me, b, o, off| {
            let mut a = args.to_vec();
            a[i] = LVal::Ptr(o, off);
            match me.lower_library_call(frame, name, &a, ret_ty, ret_bits, At { cur: b, ..at })? {
                Some(r) => Ok(r),
                None => Err(unsupported(format!("a call to `{}` with unexpected arguments", crate::names::function_name(name)), loc)),
            }
        })?;
        Ok(Some((next, v)))
    }

    /// OpenCL's integer functions and `select` on vectors (`min(int4, int4)`, `max(int4,
    /// int)`...): the scalar function element-wise, a scalar argument applied to every
    /// element. `None` when `name` is not such a call.
    fn lower_vector_library_call(&mut self, frame: &mut Frame, call: LibCall<'_>, ret_ty: Option<&TypeRef>, at: At<'_>) -> Result<Option<LVal>, LowerError> {
        let LibCall { base, params, args, .. } = call;
        let At { cur, span, loc } = at;
        if self.input.language != Language::OpenCl || params.is_empty() {
            return Ok(None);
        }
        if int_fn(base, true).is_none() && base != "select" && base != "bitselect" {
            return Ok(None);
        }
        let Some(n) = args.iter().find_map(|a| match a {
            LVal::Agg(xs) => Some(xs.len()),
            _ => None,
        }) else {
            return Ok(None);
        };
        let elem_params: Option<Vec<MTy>> = params
            .iter()
            .map(|p| match p {
                MTy::Vector(e) => Some(e.as_ref().clone()),
                MTy::Int { .. } | MTy::Float(_) => Some(p.clone()),
                _ => None,
            })
            .collect();
        let Some(elem_params) = elem_params else { return Ok(None) };
        let elem_ty = match ret_ty.map(|t| t.as_ref()) {
            Some(llvm_ir::Type::VectorType { element_type, .. }) => element_type.clone(),
            _ => return Ok(None),
        };
        let ret_bits = super::layout::scalar_bits(&elem_ty);
        let mut out = vec![];
        for i in 0..n {
            let mut elem_args = vec![];
            for a in args {
                elem_args.push(match a {
                    LVal::Agg(xs) if xs.len() == n => xs[i].clone(),
                    LVal::Scalar(x) => LVal::Scalar(*x),
                    _ => return Ok(None),
                });
            }
            if base == "select" {
                // On vectors, `select` tests the most significant bit of each element of c.
                let [a, b, c] = self.lib_scalars::<3>("select", &elem_args, loc)?;
                let cw = self.k.width(c);
                let msb = self.lib_cmp(cur, CmpPred::Slt, c, Operand::konst(cw, 0), span);
                out.push(LVal::Scalar(self.lib_sel(cur, msb, b, a, span)));
                continue;
            }
            match self.lower_library_call_at(frame, LibCall { params: &elem_params, args: &elem_args, ret_bits, ..call }, at)? {
                Some(Some(v)) => out.push(LVal::Scalar(v)),
                _ => return Ok(None),
            }
        }
        Ok(Some(LVal::Agg(out)))
    }

    /// Whether `base` (with parameter types `params`) is a library function that accesses
    /// memory through its pointer arguments (atomics, the asynchronous copy's element copy,
    /// math functions with an output pointer).
    fn library_takes_pointers(&self, base: &str, params: &[MTy]) -> bool {
        let opencl = self.input.language == Language::OpenCl;
        if opencl && (base == "__syncfix_copy_element" || matches!(base, "sincos" | "fract" | "modf" | "frexp" | "lgamma_r" | "remquo")) {
            return true;
        }
        let (signed, float) = match params.first() {
            Some(MTy::Ptr(t)) => match t.as_ref() {
                MTy::Int { signed, .. } => (*signed, false),
                MTy::Float(_) => (true, true),
                _ => return false,
            },
            _ => return false,
        };
        atomic_kind(base, opencl, signed, float).is_some()
    }

    fn lower_library_call_at(&mut self, _frame: &mut Frame, call: LibCall<'_>, at: At<'_>) -> Result<Option<Option<Operand>>, LowerError> {
        let LibCall { name, base, params, args, ret_bits } = call;
        let At { cur, span, loc } = at;
        // Each language's library only: a bodiless function of the user's that happens to be
        // named like the other language's library function keeps its default meaning.
        let opencl = self.input.language == Language::OpenCl;
        match (base, opencl) {
            // Memory fences order one thread's accesses; they do not order accesses of
            // different threads, so race checking ignores them (GPUVerify does the same).
            // `prefetch` is a hint without effect on memory.
            ("mem_fence" | "read_mem_fence" | "write_mem_fence" | "prefetch", true)
            | ("__threadfence" | "__threadfence_block" | "__threadfence_system", false) => return Ok(Some(None)),
            // A barrier among the threads of one warp that the mask names.
            ("__syncwarp", false) => {
                self.lib_syncwarp(args, cur, span, loc)?;
                return Ok(Some(None));
            }
            ("__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or", false) => {
                return self.lib_syncthreads_reduction(base, args, ret_bits, cur, span, loc).map(Some);
            }
            ("__syncfix_copy_element", true) => return self.lib_copy_element(args, cur, span, loc).map(|()| Some(None)),
            ("__syncfix_async_wait", true) => {
                self.push(cur, InstKind::AsyncWait, 0, span);
                return Ok(Some(None));
            }
            ("__syncfix_async_element", true) => {
                return self.lib_async_element(args, cur, span, loc).map(|e| Some(Some(e)));
            }
            // Reinterpretations of a value's bits: floats are bit-vectors to syncfix.
            (
                "__float_as_int" | "__float_as_uint" | "__int_as_float" | "__uint_as_float" | "__double_as_longlong"
                | "__longlong_as_double",
                false,
            ) => {
                let [x] = self.lib_scalars::<1>(base, args, loc)?;
                return Ok(Some(Some(x)));
            }
            ("printf", _) | ("vprintf", false) => {
                // Output only; its arguments are values already read by the caller.
                return Ok(Some(ret_bits.map(|w| Operand::Value(self.push(cur, InstKind::Havoc, w, span)))));
            }
            _ => {}
        }
        if is_image_function(base) {
            return Err(unsupported(
                format!("`{base}`: OpenCL image types other than image1d_t, image2d_t and image3d_t, CUDA surfaces and texture functions other than the prelude's fetches are not supported"),
                loc,
            ));
        }
        if opencl && (base.starts_with("vload") || base.starts_with("vstore")) {
            return Err(unsupported(format!("`{base}` (vector types are not supported yet)"), loc));
        }
        if !opencl && (is_curand_draw(base) || base == "curand_init") {
            return self.lib_curand(base, name.contains("Mtgp32"), args, ret_bits, at).map(Some);
        }
        let elem = match params.first() {
            Some(MTy::Ptr(t)) => Some(t.as_ref().clone()),
            _ => None,
        };
        let (signed, float) = match &elem {
            Some(MTy::Int { signed, .. }) => (*signed, false),
            Some(MTy::Float(_)) => (true, true),
            _ => (true, false),
        };
        if matches!(elem, Some(MTy::Int { .. } | MTy::Float(_))) {
            if let Some(kind) = atomic_kind(base, opencl, signed, float) {
                return self.lib_atomic(base, kind, args, ret_bits, at).map(Some);
            }
        }
        let all_int = !params.is_empty() && params.iter().all(|p| matches!(p, MTy::Int { .. }));
        if let (Some(f), true) = (int_fn(base, opencl), all_int) {
            let signed = matches!(params[0], MTy::Int { signed: true, .. });
            let both_signed = params.iter().all(|p| matches!(p, MTy::Int { signed: true, .. }));
            // CUDA's mixed min/max (int, unsigned) compare as unsigned.
            let signed = if matches!(f, IntFn::Min | IntFn::Max) { both_signed } else { signed };
            return self.lib_int_function(base, f, signed, args, ret_bits, at).map(Some);
        }
        if opencl && matches!(base, "select" | "bitselect") && params.len() == 3 && params.iter().all(|p| matches!(p, MTy::Int { .. } | MTy::Float(_))) {
            let [a, b, c] = self.lib_scalars::<3>(base, args, loc)?;
            let w = self.k.width(a);
            let v = if base == "select" {
                let cw = self.k.width(c);
                let nz = self.lib_cmp(cur, CmpPred::Ne, c, Operand::konst(cw, 0), span);
                self.lib_sel(cur, nz, b, a, span)
            } else {
                let nc = self.lib_bin(cur, BinOp::Xor, c, Operand::konst(w, u128::MAX), span);
                let l = self.lib_bin(cur, BinOp::And, a, nc, span);
                let r = self.lib_bin(cur, BinOp::And, b, c, span);
                self.lib_bin(cur, BinOp::Or, l, r, span)
            };
            return Ok(Some(Some(v)));
        }
        if opencl && matches!(base, "sincos" | "fract" | "modf" | "frexp" | "lgamma_r" | "remquo") {
            return self.lib_math_with_pointer(call, at).map(Some);
        }
        Ok(None)
    }

    /// The `N` scalar arguments of a call to `what`.
    fn lib_scalars<const N: usize>(&self, what: &str, args: &[LVal], loc: Option<Loc>) -> Result<[Operand; N], LowerError> {
        let mut out = [Operand::konst(1, 0); N];
        for (i, o) in out.iter_mut().enumerate() {
            match args.get(i) {
                Some(LVal::Scalar(v)) => *o = *v,
                _ => return Err(unsupported(format!("a call to `{what}` with unexpected arguments"), loc)),
            }
        }
        Ok(out)
    }

    /// Argument `i` as a pointer (object, byte offset).
    fn lib_pointer_arg(&self, what: &str, args: &[LVal], i: usize, loc: Option<Loc>) -> Result<Pointer, LowerError> {
        match args.get(i) {
            Some(LVal::Ptr(object, offset)) => Ok(Pointer { object: *object, offset: *offset }),
            Some(LVal::Null) => Err(unsupported(format!("`{what}` on a null pointer"), loc)),
            _ => Err(unsupported(format!("a call to `{what}` with unexpected arguments"), loc)),
        }
    }

    fn lib_bin(&mut self, cur: BlockId, op: BinOp, lhs: Operand, rhs: Operand, span: &Span) -> Operand {
        let w = self.k.width(lhs);
        Operand::Value(self.push(cur, InstKind::Bin { op, lhs, rhs }, w, span))
    }

    fn lib_cmp(&mut self, cur: BlockId, pred: CmpPred, lhs: Operand, rhs: Operand, span: &Span) -> Operand {
        Operand::Value(self.push(cur, InstKind::Cmp { pred, lhs, rhs }, 1, span))
    }

    fn lib_sel(&mut self, cur: BlockId, cond: Operand, then: Operand, els: Operand, span: &Span) -> Operand {
        let w = self.k.width(then);
        Operand::Value(self.push(cur, InstKind::Select { cond, then, els }, w, span))
    }

    /// `x` clamped to the range of a `w`-bit integer (computed in `x`'s wider width), then
    /// truncated to `w` bits.
    fn lib_saturate(&mut self, cur: BlockId, x: Operand, w: u16, signed: bool, span: &Span) -> Operand {
        let ww = self.k.width(x);
        let (lo, hi) = if signed {
            let hi = (1u128 << (w - 1)) - 1;
            (Operand::konst(ww, (!hi) & mask(ww)), Operand::konst(ww, hi))
        } else {
            (Operand::konst(ww, 0), Operand::konst(ww, mask(w)))
        };
        let (lt, gt) = if signed { (CmpPred::Slt, CmpPred::Sgt) } else { (CmpPred::Ult, CmpPred::Ugt) };
        let below = self.lib_cmp(cur, lt, x, lo, span);
        let x = self.lib_sel(cur, below, lo, x, span);
        let above = self.lib_cmp(cur, gt, x, hi, span);
        let x = self.lib_sel(cur, above, hi, x, span);
        self.resize_unfolded(cur, x, w, signed, span)
    }

    /// The low 24 bits of `x`, sign- or zero-extended back to its width (for `mul24`).
    fn lib_low24(&mut self, cur: BlockId, x: Operand, signed: bool, span: &Span) -> Operand {
        let w = self.k.width(x);
        if signed {
            let s = self.lib_bin(cur, BinOp::Shl, x, Operand::konst(w, (w - 24) as u128), span);
            self.lib_bin(cur, BinOp::AShr, s, Operand::konst(w, (w - 24) as u128), span)
        } else {
            self.lib_bin(cur, BinOp::And, x, Operand::konst(w, 0xff_ffff), span)
        }
    }

    fn lib_min_max(&mut self, cur: BlockId, a: Operand, b: Operand, max: bool, signed: bool, span: &Span) -> Operand {
        let pred = match (max, signed) {
            (false, true) => CmpPred::Slt,
            (false, false) => CmpPred::Ult,
            (true, true) => CmpPred::Sgt,
            (true, false) => CmpPred::Ugt,
        };
        let c = self.lib_cmp(cur, pred, b, a, span);
        self.lib_sel(cur, c, b, a, span)
    }

    /// An integer library function on scalars, computed exactly.
    fn lib_int_function(
        &mut self,
        what: &str,
        f: IntFn,
        signed: bool,
        args: &[LVal],
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Option<Operand>, LowerError> {
        let At { cur, span, loc } = at;
        use IntFn::*;
        let arity = match f {
            Abs => 1,
            MadSat | MadHi | Mad24 | Clamp | Sad => 3,
            _ => 2,
        };
        if args.len() != arity {
            return Err(unsupported(format!("a call to `{what}` with unexpected arguments"), loc));
        }
        let ops: Vec<Operand> = match arity {
            1 => self.lib_scalars::<1>(what, args, loc)?.to_vec(),
            2 => self.lib_scalars::<2>(what, args, loc)?.to_vec(),
            _ => self.lib_scalars::<3>(what, args, loc)?.to_vec(),
        };
        // Operands of one width (clang converts arguments to the parameter types; CUDA's
        // mixed min/max take the wider).
        let w = ops.iter().map(|o| self.k.width(*o)).max().unwrap_or(32);
        let ops: Vec<Operand> = ops.into_iter().map(|o| self.resize_unfolded(cur, o, w, signed, span)).collect();
        let (a, b) = (ops[0], ops.get(1).copied().unwrap_or(ops[0]));
        let ww = (2 * w).min(128);
        let (shr, lt) = if signed { (BinOp::AShr, CmpPred::Slt) } else { (BinOp::LShr, CmpPred::Ult) };
        let v = match f {
            AddSat | SubSat | MadSat => {
                let (wa, wb) = (self.resize_unfolded(cur, a, ww, signed, span), self.resize_unfolded(cur, b, ww, signed, span));
                let r = match f {
                    AddSat => self.lib_bin(cur, BinOp::Add, wa, wb, span),
                    SubSat => self.lib_bin(cur, BinOp::Sub, wa, wb, span),
                    _ => {
                        let p = self.lib_bin(cur, BinOp::Mul, wa, wb, span);
                        let wc = self.resize_unfolded(cur, ops[2], ww, signed, span);
                        self.lib_bin(cur, BinOp::Add, p, wc, span)
                    }
                };
                self.lib_saturate(cur, r, w, signed, span)
            }
            HAdd | RHAdd => {
                let (wa, wb) = (self.resize_unfolded(cur, a, ww, signed, span), self.resize_unfolded(cur, b, ww, signed, span));
                let mut s = self.lib_bin(cur, BinOp::Add, wa, wb, span);
                if f == RHAdd {
                    s = self.lib_bin(cur, BinOp::Add, s, Operand::konst(ww, 1), span);
                }
                let h = self.lib_bin(cur, shr, s, Operand::konst(ww, 1), span);
                self.resize_unfolded(cur, h, w, signed, span)
            }
            MulHi | MadHi => {
                let (wa, wb) = (self.resize_unfolded(cur, a, ww, signed, span), self.resize_unfolded(cur, b, ww, signed, span));
                let p = self.lib_bin(cur, BinOp::Mul, wa, wb, span);
                let h = self.lib_bin(cur, shr, p, Operand::konst(ww, w as u128), span);
                let h = self.resize_unfolded(cur, h, w, signed, span);
                if f == MadHi {
                    self.lib_bin(cur, BinOp::Add, h, ops[2], span)
                } else {
                    h
                }
            }
            Mul24 | Mad24 => {
                let (la, lb) = (self.lib_low24(cur, a, signed, span), self.lib_low24(cur, b, signed, span));
                let p = self.lib_bin(cur, BinOp::Mul, la, lb, span);
                if f == Mad24 {
                    self.lib_bin(cur, BinOp::Add, p, ops[2], span)
                } else {
                    p
                }
            }
            Min => self.lib_min_max(cur, a, b, false, signed, span),
            Max => self.lib_min_max(cur, a, b, true, signed, span),
            Clamp => {
                let m = self.lib_min_max(cur, a, b, true, signed, span);
                self.lib_min_max(cur, m, ops[2], false, signed, span)
            }
            Abs => {
                if signed {
                    let neg = self.lib_bin(cur, BinOp::Sub, Operand::konst(w, 0), a, span);
                    let c = self.lib_cmp(cur, CmpPred::Slt, a, Operand::konst(w, 0), span);
                    self.lib_sel(cur, c, neg, a, span)
                } else {
                    a
                }
            }
            AbsDiff | Sad => {
                let c = self.lib_cmp(cur, lt, a, b, span);
                let ba = self.lib_bin(cur, BinOp::Sub, b, a, span);
                let ab = self.lib_bin(cur, BinOp::Sub, a, b, span);
                let d = self.lib_sel(cur, c, ba, ab, span);
                if f == Sad {
                    self.lib_bin(cur, BinOp::Add, d, ops[2], span)
                } else {
                    d
                }
            }
            Rotate => {
                let n = self.lib_bin(cur, BinOp::And, b, Operand::konst(w, (w - 1) as u128), span);
                let l = self.lib_bin(cur, BinOp::Shl, a, n, span);
                let back = self.lib_bin(cur, BinOp::Sub, Operand::konst(w, w as u128), n, span);
                let r = self.lib_bin(cur, BinOp::LShr, a, back, span);
                let rot = self.lib_bin(cur, BinOp::Or, l, r, span);
                let zero = self.lib_cmp(cur, CmpPred::Eq, n, Operand::konst(w, 0), span);
                self.lib_sel(cur, zero, a, rot, span)
            }
            Upsample => {
                let hi = self.resize_unfolded(cur, a, ww, false, span);
                let lo = self.resize_unfolded(cur, b, ww, false, span);
                let hi = self.lib_bin(cur, BinOp::Shl, hi, Operand::konst(ww, w as u128), span);
                self.lib_bin(cur, BinOp::Or, hi, lo, span)
            }
        };
        // The declared result may be narrower or wider than the computation (CUDA's
        // `__mul24` of unsigned values returning int...).
        Ok(Some(match ret_bits {
            Some(r) => self.resize_unfolded(cur, v, r, signed, span),
            None => v,
        }))
    }

    /// An atomic read-modify-write or compare-and-swap on the object the first argument
    /// points into; the result is the old value.
    fn lib_atomic(
        &mut self,
        what: &str,
        kind: AtomicKind,
        args: &[LVal],
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Option<Operand>, LowerError> {
        let At { cur, span, loc } = at;
        let ptr = self.lib_pointer_arg(what, args, 0, loc)?;
        let w = ret_bits.ok_or_else(|| unsupported(format!("`{what}` on a non-scalar"), loc))?;
        let scalar = |i: usize| match args.get(i) {
            Some(LVal::Scalar(v)) => Ok(*v),
            _ => Err(unsupported(format!("a call to `{what}` with unexpected arguments"), loc)),
        };
        let (op, ops) = match kind {
            AtomicKind::Rmw(op) => (op, vec![scalar(1)?]),
            AtomicKind::Step(op) => (op, vec![Operand::konst(w, 1)]),
            AtomicKind::CmpXchg => (AtomicOp::CmpXchg, vec![scalar(1)?, scalar(2)?]),
        };
        let ops = ops.into_iter().map(|o| self.resize_unfolded(cur, o, w, true, span)).collect();
        let v = self.push(cur, InstKind::Atomic { op, ptr, args: ops, width: w.div_ceil(8) as u32 }, w, span);
        Ok(Some(Operand::Value(v)))
    }

    /// `__syncwarp(mask)` (and `llvm.nvvm.bar.warp.sync`): a tile barrier of 32 threads (a
    /// warp) among the lanes `mask` names; a mask computed at run time is kept as an operand
    /// and evaluated per thread by the verifier (see `Scope::Tile`).
    pub(crate) fn lib_syncwarp(&mut self, args: &[LVal], cur: BlockId, span: &Span, loc: Option<Loc>) -> Result<(), LowerError> {
        let [m] = self.lib_scalars::<1>("__syncwarp", args, loc)?;
        let mask = match m.as_const() {
            Some(c) => TileMask::Const(c as u32),
            None => TileMask::Dynamic(self.resize_unfolded(cur, m, 32, false, span)),
        };
        self.tile_barrier(cur, 32, mask, span);
        Ok(())
    }

    /// `__syncthreads_count/_and/_or(p)`: a block barrier (that cannot be removed: it is part
    /// of a library call) whose result is arbitrary within what this thread knows: `_and` is 0
    /// when `p` is 0, `_or` is non-zero when `p` is, and the count is between `p != 0` and the
    /// block size. FIXME: the result is the same for every thread of the block, which KIR
    /// cannot express yet; each thread gets its own arbitrary value (an over-approximation).
    fn lib_syncthreads_reduction(
        &mut self,
        what: &str,
        args: &[LVal],
        ret_bits: Option<u16>,
        cur: BlockId,
        span: &Span,
        loc: Option<Loc>,
    ) -> Result<Option<Operand>, LowerError> {
        let [p] = self.lib_scalars::<1>(what, args, loc)?;
        let barrier = Barrier { scope: Scope::Block, fences: Fences::ALL, guard: Guard::Always, origin: BarrierOrigin::Existing { stmt: None } };
        self.push(cur, InstKind::Barrier(barrier), 0, span);
        let w = ret_bits.unwrap_or(32);
        let h = Operand::Value(self.push(cur, InstKind::Havoc, w, span));
        let pw = self.k.width(p);
        let pnz = self.lib_cmp(cur, CmpPred::Ne, p, Operand::konst(pw, 0), span);
        let one = self.resize_unfolded(cur, pnz, w, false, span);
        Ok(Some(match what {
            "__syncthreads_and" => self.lib_sel(cur, pnz, h, Operand::konst(w, 0), span),
            "__syncthreads_or" => self.lib_bin(cur, BinOp::Or, h, one, span),
            _ => {
                let size = self.lib_group_size(cur, span);
                let size = self.resize_unfolded(cur, size, w, false, span);
                let over = self.lib_cmp(cur, CmpPred::Ugt, h, size, span);
                let capped = self.lib_sel(cur, over, size, h, span);
                let zero = self.lib_cmp(cur, CmpPred::Eq, capped, Operand::konst(w, 0), span);
                let must = self.lib_bin(cur, BinOp::And, zero, pnz, span);
                self.lib_sel(cur, must, one, capped, span)
            }
        }))
    }

    /// `__syncfix_async_element(n, site)`: the element this thread copies in the asynchronous
    /// copy of `n` elements at call site `site` (the OpenCL prelude's model), or `n` if none.
    /// Thread `t` of a group of `size` threads copies one arbitrary element of its share
    /// `j = t + k * size` (`k` arbitrary, `j < n`), rotated by `r`: `(j + r) mod n`, where `r`
    /// (in `[0, n)`) is an uninterpreted function of the site and the group, so the threads of
    /// a group copy different elements and every element may be copied by any of them.
    fn lib_async_element(&mut self, args: &[LVal], cur: BlockId, span: &Span, loc: Option<Loc>) -> Result<Operand, LowerError> {
        let [n, site] = self.lib_scalars::<2>("async_work_group_copy", args, loc)?;
        let n = self.resize_unfolded(cur, n, 64, false, span);
        let size = self.lib_group_size(cur, span);
        let size = self.resize_unfolded(cur, size, 64, false, span);
        let t = self.lib_linear_id(cur, false, span);
        let t = self.resize_unfolded(cur, t, 64, false, span);
        let k = Operand::Value(self.push(cur, InstKind::Havoc, 32, span));
        let k = self.resize_unfolded(cur, k, 64, false, span);
        let ks = self.lib_bin(cur, BinOp::Mul, k, size, span);
        let j = self.lib_bin(cur, BinOp::Add, t, ks, span);
        let g = self.lib_linear_id(cur, true, span);
        let r = Operand::Value(self.push(cur, InstKind::Float { func: "__syncfix_async_rotation".into(), args: vec![site, g] }, 64, span));
        let r_ok = self.lib_cmp(cur, CmpPred::Ult, r, n, span);
        let r = self.lib_sel(cur, r_ok, r, Operand::konst(64, 0), span);
        let jr = self.lib_bin(cur, BinOp::Add, j, r, span);
        let wraps = self.lib_cmp(cur, CmpPred::Uge, jr, n, span);
        let jr_n = self.lib_bin(cur, BinOp::Sub, jr, n, span);
        let e = self.lib_sel(cur, wraps, jr_n, jr, span);
        let mine = self.lib_cmp(cur, CmpPred::Ult, j, n, span);
        Ok(self.lib_sel(cur, mine, e, n, span))
    }

    /// `__syncfix_copy_element(dst, dst_offset, src, src_offset, bytes)`: one element of an
    /// asynchronous copy (the OpenCL prelude decides which): a read of `bytes` bytes at
    /// `src + src_offset` and a write of them at `dst + dst_offset`.
    fn lib_copy_element(&mut self, args: &[LVal], cur: BlockId, span: &Span, loc: Option<Loc>) -> Result<(), LowerError> {
        let what = "async_work_group_copy";
        let dst = self.lib_pointer_arg(what, args, 0, loc)?;
        let src = self.lib_pointer_arg(what, args, 2, loc)?;
        let scalar = |i: usize| match args.get(i) {
            Some(LVal::Scalar(v)) => Ok(*v),
            _ => Err(unsupported(format!("a call to `{what}` with unexpected arguments"), loc)),
        };
        let (doff, soff) = (scalar(1)?, scalar(3)?);
        let bytes = scalar(4)?
            .as_const()
            .filter(|b| (1..=128).contains(b))
            .ok_or_else(|| unsupported(format!("`{what}` of elements whose size is not known"), loc))? as u32;
        let doff = self.resize_unfolded(cur, doff, 64, false, span);
        let soff = self.resize_unfolded(cur, soff, 64, false, span);
        let d = self.lib_bin(cur, BinOp::Add, dst.offset, doff, span);
        let s = self.lib_bin(cur, BinOp::Add, src.offset, soff, span);
        let v = self.push(cur, InstKind::Load { ptr: Pointer { object: src.object, offset: s }, width: bytes }, (bytes * 8) as u16, span);
        self.push(cur, InstKind::Store { ptr: Pointer { object: dst.object, offset: d }, value: Operand::Value(v), width: bytes }, 0, span);
        // The copy completes at the wait, not at a barrier.
        self.push(cur, InstKind::AsyncPending { object: dst.object }, 0, span);
        Ok(())
    }

    /// curand's device API (`mtgp`: on an MTGP32 state). A generator state is read and overwritten with an arbitrary value
    /// by every draw and by `curand_init`, so threads that share a state race (as in
    /// GPUVerify); the numbers drawn are arbitrary. An MTGP32 state serves the threads of one
    /// block together, at most 256 of them: thread `t` (linear id in the block) updates word
    /// `t mod 256`, so larger blocks, and different blocks sharing a state, race on it.
    fn lib_curand(
        &mut self,
        what: &str,
        mtgp: bool,
        args: &[LVal],
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Option<Operand>, LowerError> {
        let At { cur, span, loc } = at;
        let i = if what == "curand_init" { args.len().saturating_sub(1) } else { 0 };
        let state = self.lib_pointer_arg(what, args, i, loc)?;
        let offset = if mtgp {
            let t = self.lib_linear_id(cur, false, span);
            let t = self.lib_bin(cur, BinOp::And, t, Operand::konst(32, 255), span);
            let t = self.resize_unfolded(cur, t, 64, false, span);
            let b = self.lib_bin(cur, BinOp::Mul, t, Operand::konst(64, 4), span);
            self.lib_bin(cur, BinOp::Add, state.offset, b, span)
        } else {
            state.offset
        };
        let ptr = Pointer { object: state.object, offset };
        if what != "curand_init" {
            self.push(cur, InstKind::Load { ptr, width: 4 }, 32, span);
        }
        let next = self.push(cur, InstKind::Havoc, 32, span);
        self.push(cur, InstKind::Store { ptr, value: Operand::Value(next), width: 4 }, 0, span);
        match ret_bits {
            Some(w) => Ok(Some(Operand::Value(self.push(cur, InstKind::Havoc, w, span)))),
            None if what == "curand_init" => Ok(None),
            None => Err(unsupported(format!("`{what}` returning a vector (not supported yet)"), loc)),
        }
    }

    /// The number of threads in a block (32 bits).
    fn lib_group_size(&mut self, cur: BlockId, span: &Span) -> Operand {
        if let Some(n) = self.k.launch.threads_per_block() {
            return Operand::konst(32, n as u128);
        }
        let mut acc = Operand::konst(32, 1);
        for d in 0..3u8 {
            let size = self.launch_size(cur, false, d, span);
            acc = self.lib_bin(cur, BinOp::Mul, acc, size, span);
        }
        acc
    }

    /// The thread's linear id in its block, or (`group`) its block's linear id in the grid
    /// (32 bits): `x + X * (y + Y * z)`.
    fn lib_linear_id(&mut self, cur: BlockId, group: bool, span: &Span) -> Operand {
        let dims = if group { self.k.launch.grid_dim } else { self.k.launch.block_dim };
        let mut acc = Operand::konst(32, 0);
        for d in (0..3u8).rev() {
            let id = if dims[d as usize] != 1 {
                let b = if group { Builtin::GroupId(d) } else { Builtin::LocalId(d) };
                Operand::Value(self.push(cur, InstKind::Builtin(b), 32, span))
            } else {
                Operand::konst(32, 0)
            };
            let scaled = match dims[d as usize] {
                0 => {
                    let size = self.launch_size(cur, group, d, span);
                    self.lib_bin(cur, BinOp::Mul, acc, size, span)
                }
                n => self.lib_bin(cur, BinOp::Mul, acc, Operand::konst(32, n as u128), span),
            };
            acc = self.lib_bin(cur, BinOp::Add, scaled, id, span);
        }
        acc
    }

    /// OpenCL math functions with a pointer result, on scalars: `sincos(x, &c)` stores
    /// `cos(x)` and returns `sin(x)` (the same uninterpreted functions as direct calls);
    /// `fract`, `modf`, `frexp`, `lgamma_r`, `remquo` store an uninterpreted function of their
    /// operands (`floor`, `trunc`...) and return another.
    fn lib_math_with_pointer(&mut self, call: LibCall<'_>, at: At<'_>) -> Result<Option<Operand>, LowerError> {
        let LibCall { name, base: what, params, args, ret_bits } = call;
        let At { cur, span, loc } = at;
        let p = params.len().checked_sub(1).ok_or_else(|| unsupported(format!("a call to `{what}` with unexpected arguments"), loc))?;
        let (Some(MTy::Float(fw)), Some(MTy::Ptr(out))) = (params.first(), params.get(p)) else {
            return Err(unsupported(format!("`{what}` on vectors (vector types are not supported yet)"), loc));
        };
        let code = if *fw == 64 { "d" } else { "f" };
        let out_bits = match out.as_ref() {
            MTy::Float(w) | MTy::Int { bits: w, .. } => *w,
            _ => return Err(unsupported(format!("`{what}` on vectors (vector types are not supported yet)"), loc)),
        };
        let ptr = self.lib_pointer_arg(what, args, p, loc)?;
        let mut ops = vec![];
        for a in &args[..p] {
            match a {
                LVal::Scalar(v) => ops.push(*v),
                _ => return Err(unsupported(format!("a call to `{what}` with unexpected arguments"), loc)),
            }
        }
        let w = ret_bits.unwrap_or(*fw);
        // Named like the uninterpreted functions of direct calls (`builtins`: IR name and
        // result width), so that `sincos(x, &c)` and `cos(x)` agree.
        let (stored, result) = match what {
            "sincos" => (format!("_Z3cos{code}.{out_bits}"), format!("_Z3sin{code}.{w}")),
            "fract" => (format!("_Z5floor{code}.{out_bits}"), format!("{name}.{w}")),
            "modf" => (format!("_Z5trunc{code}.{out_bits}"), format!("{name}.{w}")),
            _ => (format!("{name}.out.{out_bits}"), format!("{name}.{w}")),
        };
        let s = self.push(cur, InstKind::Float { func: stored, args: ops.clone() }, out_bits, span);
        self.push(cur, InstKind::Store { ptr, value: Operand::Value(s), width: (out_bits / 8) as u32 }, 0, span);
        Ok(Some(Operand::Value(self.push(cur, InstKind::Float { func: result, args: ops }, w, span))))
    }
}

fn mask(w: u16) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(bits: u16, signed: bool) -> MTy {
        MTy::Int { bits, signed }
    }

    #[test]
    fn mangled_names_of_opencl_builtins() {
        assert_eq!(parse_mangled("_Z7add_satii"), Some(("add_sat".into(), vec![int(32, true), int(32, true)])));
        assert_eq!(parse_mangled("_Z10atomic_incPU3AS1Vj"), Some(("atomic_inc".into(), vec![MTy::Ptr(Box::new(int(32, false)))])));
        assert_eq!(
            parse_mangled("_Z8atom_addPU3AS3Vll"),
            Some(("atom_add".into(), vec![MTy::Ptr(Box::new(int(64, true))), int(64, true)]))
        );
        assert_eq!(
            parse_mangled("_Z6sincosfPU3AS1f"),
            Some(("sincos".into(), vec![MTy::Float(32), MTy::Ptr(Box::new(MTy::Float(32)))]))
        );
        // A substitution (`S_`) repeats the first substitutable type.
        let v = MTy::Vector(Box::new(MTy::Float(32)));
        assert_eq!(parse_mangled("_Z3dotDv4_fS_"), Some(("dot".into(), vec![v.clone(), v])));
        assert_eq!(parse_mangled("_Z13__threadfencev"), Some(("__threadfence".into(), vec![])));
        assert_eq!(
            parse_mangled("_Z6curandP17curandStateXORWOW"),
            Some(("curand".into(), vec![MTy::Ptr(Box::new(MTy::Named("curandStateXORWOW".into())))]))
        );
        assert_eq!(parse_mangled("barrier"), None);
        assert_eq!(parse_mangled("_ZN2cg4syncEv"), None);
    }

    #[test]
    fn library_names() {
        assert!(matches!(atomic_kind("atomic_min", true, false, false), Some(AtomicKind::Rmw(AtomicOp::UMin))));
        assert!(matches!(atomic_kind("atom_max", true, true, false), Some(AtomicKind::Rmw(AtomicOp::Max))));
        assert!(matches!(atomic_kind("atomic_inc", true, true, false), Some(AtomicKind::Step(AtomicOp::Add))));
        assert!(matches!(atomic_kind("atomicInc", false, false, false), Some(AtomicKind::Rmw(AtomicOp::Inc))));
        assert!(matches!(atomic_kind("atomicAdd", false, true, true), Some(AtomicKind::Rmw(AtomicOp::FAdd))));
        assert!(matches!(atomic_kind("atomicAdd_block", false, true, false), Some(AtomicKind::Rmw(AtomicOp::Add))));
        assert!(matches!(atomic_kind("atomicCAS", false, false, false), Some(AtomicKind::CmpXchg)));
        assert!(atomic_kind("atomicTest", false, true, false).is_none());
        assert!(atomic_kind("atomic_fetch_add", true, true, false).is_none());
        // Each language's names only.
        assert!(atomic_kind("atomicAdd", true, true, false).is_none());
        assert!(atomic_kind("atomic_add", false, true, false).is_none());
        assert_eq!(int_fn("add_sat", true), Some(IntFn::AddSat));
        assert_eq!(int_fn("add_sat", false), None);
        assert_eq!(int_fn("__mul24", false), Some(IntFn::Mul24));
        assert_eq!(int_fn("min", false), Some(IntFn::Min));
    }
}
