//! Byte offsets of the module's constant `getelementptr` expressions.
//!
//! With opaque pointers the meaning of a `getelementptr` index depends on the expression's
//! *source element type*, which `llvm-ir` 0.11 does not keep for constant expressions (it
//! keeps it for instructions). clang emits such constants for every constant address of a
//! global: `A[3][4]` on `__local int A[10][5]` is
//! `getelementptr ([5 x i32], ptr getelementptr ([10 x [5 x i32]], ptr @A, 0, 3), 0, 4)`,
//! and `((char *)A)[5]` is `getelementptr (i8, ptr @A, 5)`. This module reads the same IR
//! with LLVM's C API (`llvm-sys`, already linked for `llvm-ir`), which has the source types
//! and the data layout, and computes each constant GEP's byte offset from its address
//! operand. The lowering looks offsets up by [`key`]; a constant GEP it does not find is an
//! error, never a guess.

use llvm_ir::constant::Constant;
use llvm_sys::core::*;
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMCreateTargetData, LLVMDisposeTargetData, LLVMOffsetOfElement, LLVMTargetDataRef};
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::HashMap;
use std::ffi::{CStr, CString};

/// Byte offsets of constant GEPs, by [`key`].
pub type GepOffsets = HashMap<String, i64>;

/// The key of a constant: its operator tree with globals by name and integers by value,
/// types left out (`gep(gep(@foo.A,0,3),0,4)`). Casts between pointers are transparent.
/// `None` for constants that are not made of globals, integers, GEPs and casts.
pub fn key(c: &Constant) -> Option<String> {
    Some(match c {
        Constant::GlobalReference { name, .. } => format!("@{}", crate::llvm::name_str(name)),
        Constant::Int { value, bits } => {
            let v = if *bits < 64 && *bits > 0 && (*value >> (*bits - 1)) & 1 == 1 {
                (*value | (u64::MAX << *bits)) as i64
            } else {
                *value as i64
            };
            v.to_string()
        }
        Constant::GetElementPtr(g) => {
            let mut s = format!("gep({}", key(&g.address)?);
            for i in &g.indices {
                s.push(',');
                s.push_str(&key(i)?);
            }
            s.push(')');
            s
        }
        Constant::BitCast(b) => key(&b.operand)?,
        Constant::AddrSpaceCast(b) => key(&b.operand)?,
        _ => return None,
    })
}

/// The byte offsets of every constant GEP in the IR text `ir` (relative to the GEP's address
/// operand). Errors carry LLVM's message when the IR does not parse.
pub fn offsets(ir: &str) -> Result<GepOffsets, String> {
    let mut out = GepOffsets::new();
    // SAFETY: plain use of LLVM's C API on objects created and disposed here; the buffer is
    // owned by the module after a successful parse, by us otherwise.
    unsafe {
        let ctx = LLVMContextCreate();
        let src = CString::new(ir).map_err(|_| "LLVM IR with a NUL byte".to_string())?;
        let name = CString::new("kernel.ll").expect("no NUL");
        let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(src.as_ptr(), ir.len(), name.as_ptr());
        let mut module: LLVMModuleRef = std::ptr::null_mut();
        let mut msg: *mut std::ffi::c_char = std::ptr::null_mut();
        if LLVMParseIRInContext(ctx, buf, &mut module, &mut msg) != 0 {
            let m = if msg.is_null() { String::new() } else { CStr::from_ptr(msg).to_string_lossy().into_owned() };
            if !msg.is_null() {
                LLVMDisposeMessage(msg);
            }
            LLVMContextDispose(ctx);
            return Err(m);
        }
        let td = LLVMCreateTargetData(LLVMGetDataLayoutStr(module));
        let mut w = Walker { td, out: &mut out, seen: HashMap::new() };
        let mut g = LLVMGetFirstGlobal(module);
        while !g.is_null() {
            let init = LLVMGetInitializer(g);
            if !init.is_null() {
                w.value(init);
            }
            g = LLVMGetNextGlobal(g);
        }
        crate::passes::for_each_instruction(module, |i| {
            for k in 0..LLVMGetNumOperands(i).max(0) as u32 {
                w.value(LLVMGetOperand(i, k));
            }
        });
        LLVMDisposeTargetData(td);
        LLVMDisposeModule(module);
        LLVMContextDispose(ctx);
    }
    Ok(out)
}

struct Walker<'o> {
    td: LLVMTargetDataRef,
    out: &'o mut GepOffsets,
    /// Keys of the constants visited (by address), `None` when a constant has none.
    seen: HashMap<usize, Option<String>>,
}

impl Walker<'_> {
    /// Visits a value: records the offsets of the constant GEPs in it, returns its key.
    unsafe fn value(&mut self, v: LLVMValueRef) -> Option<String> {
        if v.is_null() {
            return None;
        }
        if let Some(k) = self.seen.get(&(v as usize)) {
            return k.clone();
        }
        let k = self.compute(v);
        self.seen.insert(v as usize, k.clone());
        k
    }

    unsafe fn compute(&mut self, v: LLVMValueRef) -> Option<String> {
        if !LLVMIsAGlobalValue(v).is_null() {
            let mut len = 0usize;
            let p = LLVMGetValueName2(v, &mut len);
            let bytes = std::slice::from_raw_parts(p as *const u8, len);
            return Some(format!("@{}", String::from_utf8_lossy(bytes)));
        }
        if !LLVMIsAConstantInt(v).is_null() {
            return Some(LLVMConstIntGetSExtValue(v).to_string());
        }
        if LLVMIsAConstantExpr(v).is_null() {
            // Aggregates: visit their elements (initializers of arrays of pointers).
            if !LLVMIsAConstant(v).is_null() {
                for k in 0..LLVMGetNumOperands(v).max(0) as u32 {
                    self.value(LLVMGetOperand(v, k));
                }
            }
            return None;
        }
        let n = LLVMGetNumOperands(v).max(0) as u32;
        let ops: Vec<Option<String>> = (0..n).map(|k| self.value(LLVMGetOperand(v, k))).collect();
        match LLVMGetConstOpcode(v) {
            LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => ops.first().cloned().flatten(),
            LLVMOpcode::LLVMGetElementPtr => {
                let mut key = format!("gep({}", ops.first().cloned().flatten()?);
                for o in &ops[1..] {
                    key.push(',');
                    key.push_str(o.as_deref()?);
                }
                key.push(')');
                if let Some(off) = self.gep_offset(v, n) {
                    self.out.insert(key.clone(), off);
                }
                Some(key)
            }
            _ => None,
        }
    }

    /// The byte offset of the constant GEP `v` (with `n` operands) from its address operand.
    unsafe fn gep_offset(&self, v: LLVMValueRef, n: u32) -> Option<i64> {
        let mut ty = LLVMGetGEPSourceElementType(v);
        let mut off: i64 = 0;
        for k in 1..n {
            let idx = LLVMGetOperand(v, k);
            if LLVMIsAConstantInt(idx).is_null() {
                return None;
            }
            let i = LLVMConstIntGetSExtValue(idx);
            if k == 1 {
                off = off.checked_add(i.checked_mul(LLVMABISizeOfType(self.td, ty) as i64)?)?;
                continue;
            }
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMStructTypeKind => {
                    let field = u32::try_from(i).ok()?;
                    off = off.checked_add(LLVMOffsetOfElement(self.td, ty, field) as i64)?;
                    ty = LLVMStructGetTypeAtIndex(ty, field);
                }
                LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                    ty = LLVMGetElementType(ty);
                    off = off.checked_add(i.checked_mul(LLVMABISizeOfType(self.td, ty) as i64)?)?;
                }
                _ => return None,
            }
        }
        Some(off)
    }
}
