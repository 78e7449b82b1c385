//! Lowering of calls that `builtins::classify` does not know (`Lowerer::lower_call`'s other
//! cases): calls through a function pointer, memory intrinsics and functions, NVVM
//! intrinsics, the device library, bodiless functions, and functions to inline.

use super::builtins::{is_grid_group_sync, is_pure, is_pure_call};
use super::{unsupported, At, Frame, LVal, LowerError, Lowerer};
use crate::names::function_name;
use either::Either;
use llvm_ir::instruction::Call;
use syncfix_kir::{BlockId, Fences, InstKind, Operand, Scope};

impl<'a> Lowerer<'a> {
    /// A call through a function pointer (`indirect_call`); returns the block where lowering
    /// continues.
    pub(super) fn lower_call_through_pointer(&mut self, frame: &mut Frame, c: &'a Call, at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let Either::Right(callee) = &c.function else {
            return Err(unsupported("inline assembly", loc));
        };
        let p = self.operand(frame, callee, loc)?;
        let mut args = vec![];
        for (a, _) in &c.arguments {
            args.push(self.operand(frame, a, loc)?);
        }
        let (cont, value) = self.indirect_call(p, &c.function_ty, args, cur, span, loc)?;
        if let (Some(dest), Some(v)) = (&c.dest, value) {
            frame.values.insert(dest.clone(), v);
        }
        Ok(cont)
    }

    /// A call that `classify` does not know: memory intrinsics and functions, NVVM intrinsics,
    /// the device library, cooperative groups' grid sync, a bodiless function, or a function
    /// inlined; returns the block where lowering continues.
    pub(super) fn lower_named_call(
        &mut self,
        frame: &mut Frame,
        c: &'a Call,
        name: &str,
        args: Vec<LVal>,
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let name = name.to_string();
        if name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove") {
            return self.memcpy(&args, At::new(cur, span, loc));
        }
        if name.starts_with("llvm.memset") {
            return self.memset(&args, At::new(cur, span, loc));
        }
        if matches!(name.as_str(), "memcpy" | "memmove" | "memset") {
            // The C functions (CUDA device code calls them): as the intrinsics, and
            // they return their destination.
            let next =
                if name == "memset" { self.memset(&args, At::new(cur, span, loc))? } else { self.memcpy(&args, At::new(cur, span, loc))? };
            if let (Some(dest), Some(d)) = (&c.dest, args.first()) {
                frame.values.insert(dest.clone(), d.clone());
            }
            return Ok(next);
        }
        let ret_ty = match c.function_ty.as_ref() {
            llvm_ir::Type::FuncType { result_type, .. } => Some(result_type.clone()),
            _ => None,
        };
        if name.starts_with("llvm.nvvm.") {
            let (next, v) = self.lower_nvvm_intrinsic(&name, &args, ret_ty.as_ref(), ret_bits, At::new(cur, span, loc))?;
            if let (Some(dest), Some(v)) = (&c.dest, v) {
                frame.values.insert(dest.clone(), v);
            }
            return Ok(next);
        }
        if let Some((next, r)) = self.lower_library_call(frame, &name, &args, ret_ty.as_ref(), ret_bits, At::new(cur, span, loc))? {
            if let (Some(dest), Some(v)) = (&c.dest, r) {
                frame.values.insert(dest.clone(), v);
            }
            return Ok(next);
        }
        // The CUDA toolkit's `grid_group::sync()` (cooperative groups): a grid barrier.
        // Its body (a spin on a counter in the launch's workspace) is not read.
        if is_grid_group_sync(&name) {
            self.barrier(frame, cur, Scope::Grid, Fences::ALL, span);
            return Ok(cur);
        }
        let callee = self.functions.get(name.as_str()).copied();
        if callee.is_none_or(|f| f.basic_blocks.is_empty()) {
            return self.lower_bodiless_call(frame, c, &name, &args, callee, At::new(cur, span, loc));
        }
        let Some(callee) = callee else {
            return Err(unsupported(format!("a call to `{}`, which has no definition", function_name(&name)), loc));
        };
        let (cont, value) = self.inline_call(callee, args, span, cur)?;
        if let (Some(dest), Some(v)) = (&c.dest, value) {
            frame.values.insert(dest.clone(), v);
        }
        Ok(cont)
    }

    /// A call of a function without a body (only declared, or defined without blocks): a pure
    /// one an uninterpreted function of its arguments; else, as GPUVerify's bodiless
    /// procedure, an arbitrary result and no memory access (told to the user when it takes
    /// pointers).
    fn lower_bodiless_call(
        &mut self,
        frame: &mut Frame,
        c: &'a Call,
        name: &str,
        args: &[LVal],
        callee: Option<&'a llvm_ir::Function>,
        at: At<'_>,
    ) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let declared = self.m.func_declarations.iter().find(|d| d.name == name);
        if callee.is_none() && declared.is_none() {
            return Err(unsupported(format!("a call to `{}`, which has no definition", function_name(name)), loc));
        }
        // A bodiless function without memory effects (a prelude's `const` math
        // function): an uninterpreted function of its arguments.
        let pure = callee.is_some_and(is_pure);
        if pure || is_pure_call(c) {
            let v = self.pure_call(name, args, &c.function_ty, false, At::new(cur, span, loc))?;
            if let Some(dest) = &c.dest {
                frame.values.insert(dest.clone(), v);
            }
            return Ok(cur);
        }
        // A bodiless function (GPUVerify's bodiless procedure): it returns an
        // arbitrary value at each call (a pointer into no known array) and is
        // assumed, as GPUVerify assumes, not to access memory. With pointer
        // arguments that is an assumption the user is told about.
        let pointers = !args.iter().all(|a| matches!(a, LVal::Scalar(_) | LVal::Agg(_)));
        if pointers {
            let at = loc.filter(|l| l.file == syncfix_kir::FileId::MAIN).map(|l| format!(" (line {})", l.line)).unwrap_or_default();
            let note = format!(
                "`{}`{at} has no body: assumed not to access memory through its pointer arguments, as GPUVerify assumes (give it a body or a __spec_ contract to check it)",
                function_name(name)
            );
            if !self.kir.k.assumptions.contains(&note) {
                self.kir.k.assumptions.push(note);
            }
        }
        {
            if let Some(dest) = &c.dest {
                let ty = match c.function_ty.as_ref() {
                    llvm_ir::Type::FuncType { result_type, .. } => result_type.clone(),
                    _ => return Err(unsupported(format!("a call to `{}` of unknown type", function_name(name)), loc)),
                };
                if matches!(ty.as_ref(), llvm_ir::Type::PointerType { .. }) {
                    // An arbitrary pointer: an access through it is a possible
                    // null-pointer access (GPUVerify's verdict too).
                    let sel = self.kir.push(cur, InstKind::Havoc, 32, span);
                    let off = self.kir.push(cur, InstKind::Havoc, 64, span);
                    frame.values.insert(dest.clone(), LVal::DynPtr { sel: Operand::Value(sel), cands: vec![], off: Operand::Value(off) });
                    return Ok(cur);
                }
                let mut widths = vec![];
                if !super::inst::leaf_widths(&self.m.types, &ty, &mut widths) {
                    return Err(unsupported(format!("`{}` returning {ty}", function_name(name)), loc));
                }
                let leaves: Vec<Operand> = widths.iter().map(|w| Operand::Value(self.kir.push(cur, InstKind::Havoc, *w, span))).collect();
                let v = super::inst::rebuild(&self.m.types, &ty, &mut leaves.into_iter());
                frame.values.insert(dest.clone(), v);
            }
            Ok(cur)
        }
    }
}
