//! CUDA's device library as clang's CUDA headers define it (the CUDA prelude includes them):
//! their functions call libdevice (`__nv_sinf`, `__nv_mul24`: bodiless, since syncfix runs
//! clang with `-nocudalib`) and NVVM built-ins, which become LLVM's `llvm.nvvm.*` intrinsics.
//!
//! - libdevice: integer functions exact (as the CUDA names in `library`), reinterpretations
//!   of bits exact, results written through pointers (`sincosf`, `frexpf`, `modff`,
//!   `remquof`) written, and every other function an uninterpreted function of its arguments
//!   (named after the libdevice function and its width, so that `sinf(x)` and the sine that
//!   `sincosf(x, ...)` writes agree).
//! - NVVM intrinsics: `__syncthreads_count/_and/_or` are block barriers (with divergence
//!   checks; never removed by the repair). `__syncwarp(mask)` (`bar.warp.sync`) is a warp
//!   barrier, a `Scope::Tile` of 32 threads (warp = linear thread id / 32) with the mask's
//!   lanes: it orders two threads of one warp that it names and that both reach it, exactly
//!   as a block barrier orders a pair of one block, and orders nothing for threads of
//!   different warps; a named thread that does not reach it, or a thread outside its own
//!   mask, is barrier divergence. A mask computed at run time is kept as an operand and
//!   evaluated per thread, so masks that may differ between the threads (an abstract value
//!   such as `__activemask()` or a vote) are reported as divergence: sound, not precise.
//!   Fences order nothing that race checking sees; warp values (shuffles, votes,
//!   `__activemask`, matches, reductions) and clocks are arbitrary; `__ldg` is a load. Any
//!   other intrinsic is an error naming it, never dropped.

use super::super::At;
use super::super::{unsupported, LVal, LowerError, Lowerer};
use super::IntFn;
use llvm_ir::TypeRef;
use syncfix_kir::{BlockId, InstKind, Operand, Pointer};

/// The integer function of a libdevice name (without `__nv_`) and whether its operands are
/// signed.
fn libdevice_int(f: &str) -> Option<(IntFn, bool)> {
    use IntFn::*;
    Some(match f {
        "min" | "llmin" => (Min, true),
        "umin" | "ullmin" => (Min, false),
        "max" | "llmax" => (Max, true),
        "umax" | "ullmax" => (Max, false),
        "abs" | "llabs" => (Abs, true),
        "mul24" => (Mul24, true),
        "umul24" => (Mul24, false),
        "mulhi" | "mul64hi" => (MulHi, true),
        "umulhi" | "umul64hi" => (MulHi, false),
        "hadd" => (HAdd, true),
        "uhadd" => (HAdd, false),
        "rhadd" => (RHAdd, true),
        "urhadd" => (RHAdd, false),
        "sad" => (Sad, true),
        "usad" => (Sad, false),
        _ => return None,
    })
}

impl<'a> Lowerer<'a> {
    /// A call to the libdevice function `name` (`__nv_...`, without a body) with lowered
    /// arguments; `ret_bits` is its result's width. Returns the call's value.
    pub(super) fn lower_libdevice_call(
        &mut self,
        name: &str,
        args: &[LVal],
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Option<Operand>, LowerError> {
        let At { cur, span, loc } = at;
        let f = name.strip_prefix("__nv_").unwrap_or(name);
        if let Some((intfn, signed)) = libdevice_int(f) {
            return self.lib_int_function(name, intfn, signed, args, ret_bits, At::new(cur, span, loc));
        }
        if matches!(f, "float_as_int" | "float_as_uint" | "int_as_float" | "uint_as_float" | "double_as_longlong" | "longlong_as_double") {
            let [x] = self.lib_scalars::<1>(name, args, loc)?;
            return Ok(Some(x));
        }
        // Results written through pointers: (the functions written, one per pointer, and the
        // function returned), each an uninterpreted function of the scalar arguments.
        let (code, w) = if f.ends_with('f') { ("f", 32) } else { ("", 64) };
        let writes: Option<(Vec<(String, u16)>, Option<String>)> = match f.trim_end_matches('f') {
            "sincos" => Some((vec![(format!("__nv_sin{code}"), w), (format!("__nv_cos{code}"), w)], None)),
            "sincospi" => Some((vec![(format!("__nv_sinpi{code}"), w), (format!("__nv_cospi{code}"), w)], None)),
            "fast_sincos" => Some((vec![("__nv_fast_sinf".into(), 32), ("__nv_fast_cosf".into(), 32)], None)),
            "frexp" => Some((vec![(format!("{name}.exponent"), 32)], Some(name.to_owned()))),
            // The integral part is `trunc`; the result is the fraction.
            "mod" => Some((vec![(format!("__nv_trunc{code}"), w)], Some(name.to_owned()))),
            "remquo" => Some((vec![(format!("{name}.quotient"), 32)], Some(format!("__nv_remainder{code}")))),
            _ => None,
        };
        let scalars: Vec<Operand> = args
            .iter()
            .filter_map(|a| match a {
                LVal::Scalar(v) => Some(*v),
                _ => None,
            })
            .collect();
        let Some((written, returned)) = writes else {
            if scalars.len() != args.len() {
                return Err(unsupported(format!("`{name}`, which reads memory through a pointer (not modelled)"), loc));
            }
            let w = ret_bits.ok_or_else(|| unsupported(format!("`{name}` without a numeric result"), loc))?;
            return Ok(Some(Operand::Value(self.kir.push(cur, InstKind::Float { func: format!("{name}.{w}"), args: scalars }, w, span))));
        };
        let first_ptr = scalars.len();
        for (i, (func, bits)) in written.into_iter().enumerate() {
            let ptr: Pointer = self.lib_pointer_arg(name, args, first_ptr + i, loc)?;
            let v = self.kir.push(cur, InstKind::Float { func: format!("{func}.{bits}"), args: scalars.clone() }, bits, span);
            self.kir.push(cur, InstKind::Store { ptr, value: Operand::Value(v), width: (bits / 8) as u32 }, 0, span);
        }
        Ok(match (returned, ret_bits) {
            (Some(func), Some(w)) => {
                Some(Operand::Value(self.kir.push(cur, InstKind::Float { func: format!("{func}.{w}"), args: scalars }, w, span)))
            }
            _ => None,
        })
    }

    /// A call to the NVVM intrinsic `name` (`llvm.nvvm.*`) other than the thread and block
    /// ids and `__syncthreads` (see `builtins`). Returns the block where lowering continues
    /// and the call's value. Errors: an intrinsic syncfix does not model, named.
    pub(crate) fn lower_nvvm_intrinsic(
        &mut self,
        name: &str,
        args: &[LVal],
        ret_ty: Option<&TypeRef>,
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<(BlockId, Option<LVal>), LowerError> {
        let At { cur, span, loc } = at;
        let rest = name.strip_prefix("llvm.nvvm.").unwrap_or(name);
        let reduction = match rest {
            "barrier0.popc" => Some("__syncthreads_count"),
            "barrier0.and" => Some("__syncthreads_and"),
            "barrier0.or" => Some("__syncthreads_or"),
            _ => None,
        };
        if let Some(what) = reduction {
            let v = self.lib_syncthreads_reduction(what, args, ret_bits, cur, span, loc)?;
            return Ok((cur, v.map(LVal::Scalar)));
        }
        // clang's atomicInc/atomicDec (`__nvvm_atom_inc_gen_ui`): CUDA's wrapping increment
        // and decrement (`AtomicOp::Inc`, `AtomicOp::Dec`).
        let step = if rest.starts_with("atomic.load.inc.") {
            Some(syncfix_kir::AtomicOp::Inc)
        } else if rest.starts_with("atomic.load.dec.") {
            Some(syncfix_kir::AtomicOp::Dec)
        } else {
            None
        };
        if let Some(op) = step {
            let v = self.lib_atomic(name, super::atomic::AtomicKind::Rmw(op), args, ret_bits, At::new(cur, span, loc))?;
            return Ok((cur, v.map(LVal::Scalar)));
        }
        if rest == "bar.warp.sync" {
            self.lib_syncwarp(args, At::new(cur, span, loc))?;
            return Ok((cur, None));
        }
        if rest.starts_with("membar.") || rest.starts_with("fence.") {
            return Ok((cur, None));
        }
        if rest.starts_with("ldg.global.") {
            let (Some(p), Some(ty)) = (args.first(), ret_ty) else {
                return Err(unsupported(format!("a call to `{name}` with unexpected arguments"), loc));
            };
            let ty = ty.clone();
            return self.through(cur, p.clone(), Some(&ty), span, loc, &mut |me, b, o, off| {
                Ok((b, Some(me.load(o, off, &ty, At::new(b, span, loc))?)))
            });
        }
        let arbitrary = ["shfl.", "vote.", "match.", "redux.sync.", "read.ptx.sreg."].iter().any(|p| rest.starts_with(p))
            || matches!(rest, "activemask" | "fns");
        if !arbitrary {
            return Err(unsupported(format!("the NVVM intrinsic `{name}` (not modelled by syncfix)"), loc));
        }
        // Values of other lanes, clocks: arbitrary, a fresh value at each call.
        let Some(ty) = ret_ty else { return Ok((cur, None)) };
        let mut widths = vec![];
        if !super::super::inst::leaf_widths(&self.m.types, ty, &mut widths) {
            return Err(unsupported(format!("`{name}` returning {ty}"), loc));
        }
        if widths.is_empty() {
            return Ok((cur, None));
        }
        let leaves: Vec<Operand> = widths.iter().map(|w| Operand::Value(self.kir.push(cur, InstKind::Havoc, *w, span))).collect();
        Ok((cur, Some(super::super::inst::rebuild(&self.m.types, ty, &mut leaves.into_iter()))))
    }
}
