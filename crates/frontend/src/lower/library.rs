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
//!
//! The parts: `mangled` (parameter types from the mangled name), `int` (integer functions),
//! `atomic`, `group` (warp barriers, barrier reductions, async copies), `curand`, `libdevice`
//! (clang's CUDA headers' libdevice calls and NVVM intrinsics); this module dispatches a call
//! to them, element-wise on OpenCL vectors, and through pointers that may point into several
//! objects.

mod atomic;
mod curand;
mod group;
mod int;
mod libdevice;
mod mangled;

use atomic::atomic_kind;
use curand::is_curand_draw;
use int::{int_fn, IntFn};
use mangled::{parse_mangled, MTy};

use super::build::KirBuilder;
use super::{unsupported, At, Frame, LVal, LowerError, Lowerer};
use llvm_ir::TypeRef;
use syncfix_kir::{
    AtomicOp, Barrier, BarrierOrigin, BinOp, BlockId, Builtin, CmpPred, Fences, Guard, InstKind, Language, Loc, Operand, Pointer, Scope,
    Span, TileMask,
};

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
            let v = self.lower_libdevice_call(name, args, ret_bits, At::new(cur, span, loc))?;
            return Ok(Some((cur, v.map(LVal::Scalar))));
        }
        let (base, params) = parse_mangled(name).unwrap_or_else(|| (crate::names::function_name(name), vec![]));
        if let Some(v) =
            self.lower_vector_library_call(frame, LibCall { name, base: &base, params: &params, args, ret_bits }, ret_ty, at)?
        {
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
    fn lower_vector_library_call(
        &mut self,
        frame: &mut Frame,
        call: LibCall<'_>,
        ret_ty: Option<&TypeRef>,
        at: At<'_>,
    ) -> Result<Option<LVal>, LowerError> {
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
                let cw = self.kir.width(c);
                let msb = self.kir.cmp(cur, CmpPred::Slt, c, Operand::konst(cw, 0), span);
                out.push(LVal::Scalar(self.kir.select(cur, msb, b, a, span)));
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
                self.lib_syncwarp(args, At::new(cur, span, loc))?;
                return Ok(Some(None));
            }
            ("__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or", false) => {
                return self.lib_syncthreads_reduction(base, args, ret_bits, cur, span, loc).map(Some);
            }
            ("__syncfix_copy_element", true) => return self.lib_copy_element(args, At::new(cur, span, loc)).map(|()| Some(None)),
            ("__syncfix_async_wait", true) => {
                self.kir.push(cur, InstKind::AsyncWait { guard: syncfix_kir::Guard::Always }, 0, span);
                return Ok(Some(None));
            }
            ("__syncfix_async_element", true) => {
                return self.lib_async_element(args, At::new(cur, span, loc)).map(|e| Some(Some(e)));
            }
            // Reinterpretations of a value's bits: floats are bit-vectors to syncfix.
            (
                "__float_as_int"
                | "__float_as_uint"
                | "__int_as_float"
                | "__uint_as_float"
                | "__double_as_longlong"
                | "__longlong_as_double",
                false,
            ) => {
                let [x] = self.lib_scalars::<1>(base, args, loc)?;
                return Ok(Some(Some(x)));
            }
            ("printf", _) | ("vprintf", false) => {
                // Output only; its arguments are values already read by the caller.
                return Ok(Some(ret_bits.map(|w| Operand::Value(self.kir.push(cur, InstKind::Havoc, w, span)))));
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
        if opencl
            && matches!(base, "select" | "bitselect")
            && params.len() == 3
            && params.iter().all(|p| matches!(p, MTy::Int { .. } | MTy::Float(_)))
        {
            let [a, b, c] = self.lib_scalars::<3>(base, args, loc)?;
            let w = self.kir.width(a);
            let v = if base == "select" {
                let cw = self.kir.width(c);
                let nz = self.kir.cmp(cur, CmpPred::Ne, c, Operand::konst(cw, 0), span);
                self.kir.select(cur, nz, b, a, span)
            } else {
                let nc = self.kir.bin(cur, BinOp::Xor, c, Operand::konst(w, u128::MAX), span);
                let l = self.kir.bin(cur, BinOp::And, a, nc, span);
                let r = self.kir.bin(cur, BinOp::And, b, c, span);
                self.kir.bin(cur, BinOp::Or, l, r, span)
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
        let s = self.kir.push(cur, InstKind::Float { func: stored, args: ops.clone() }, out_bits, span);
        self.kir.push(cur, InstKind::Store { ptr, value: Operand::Value(s), width: (out_bits / 8) as u32 }, 0, span);
        Ok(Some(Operand::Value(self.kir.push(cur, InstKind::Float { func: result, args: ops }, w, span))))
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
    use super::atomic::AtomicKind;
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
        assert_eq!(parse_mangled("_Z6sincosfPU3AS1f"), Some(("sincos".into(), vec![MTy::Float(32), MTy::Ptr(Box::new(MTy::Float(32)))])));
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
