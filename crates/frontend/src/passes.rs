//! LLVM's `mem2reg` and `infer-address-spaces` passes on clang's bitcode, run in this process
//! through LLVM's C API (libLLVM-19, which `llvm-ir` links anyway): what
//! `opt-19 -passes=mem2reg,infer-address-spaces` does, without starting a process.
//!
//! `infer-address-spaces` asks the target which address space is the generic one, so the
//! module's target (NVPTX for CUDA) is set up as `opt` sets it up; a module whose target
//! LLVM does not know (SPIR) gets `mem2reg` alone, as from `opt`.

use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::core::*;
use llvm_sys::error::{LLVMDisposeErrorMessage, LLVMGetErrorMessage};
use llvm_sys::prelude::*;
use llvm_sys::target_machine::*;
use llvm_sys::transforms::pass_builder::*;
use std::ffi::{CStr, CString};
use std::path::Path;

/// Runs `mem2reg,infer-address-spaces` on the bitcode file `bc` and returns the module as
/// LLVM IR text.
///
/// Errors: a message when the file cannot be read or parsed, or a pass fails.
pub fn clean(bc: &Path) -> Result<String, String> {
    static TARGETS: std::sync::Once = std::sync::Once::new();
    // SAFETY: LLVM's target registration functions are meant to be called once, before use.
    TARGETS.call_once(|| unsafe {
        llvm_sys::target::LLVMInitializeNVPTXTargetInfo();
        llvm_sys::target::LLVMInitializeNVPTXTarget();
        llvm_sys::target::LLVMInitializeNVPTXTargetMC();
    });
    let path = CString::new(bc.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: every object created below is owned here and disposed of once, in reverse order;
    // LLVM's out-parameters are read only when the call reports success.
    unsafe {
        let mut buf: LLVMMemoryBufferRef = std::ptr::null_mut();
        let mut msg: *mut libc::c_char = std::ptr::null_mut();
        if LLVMCreateMemoryBufferWithContentsOfFile(path.as_ptr(), &mut buf, &mut msg) != 0 {
            return Err(format!("cannot read {}: {}", bc.display(), take_message(msg)));
        }
        let ctx = LLVMContextCreate();
        let mut module: LLVMModuleRef = std::ptr::null_mut();
        // The buffer is not taken by the parser (the `2` variants leave it to the caller).
        let failed = LLVMParseBitcodeInContext2(ctx, buf, &mut module) != 0;
        LLVMDisposeMemoryBuffer(buf);
        if failed {
            LLVMContextDispose(ctx);
            return Err(format!("cannot parse the bitcode {}", bc.display()));
        }
        let triple = LLVMGetTarget(module);
        let mut target: LLVMTargetRef = std::ptr::null_mut();
        let mut err: *mut libc::c_char = std::ptr::null_mut();
        let machine = if LLVMGetTargetFromTriple(triple, &mut target, &mut err) == 0 {
            LLVMCreateTargetMachine(
                target,
                triple,
                c"".as_ptr(),
                c"".as_ptr(),
                LLVMCodeGenOptLevel::LLVMCodeGenLevelNone,
                LLVMRelocMode::LLVMRelocDefault,
                LLVMCodeModel::LLVMCodeModelDefault,
            )
        } else {
            take_message(err);
            std::ptr::null_mut()
        };
        name_inline_asm(module);
        let options = LLVMCreatePassBuilderOptions();
        let error = LLVMRunPasses(module, c"mem2reg,infer-address-spaces".as_ptr(), machine, options);
        LLVMDisposePassBuilderOptions(options);
        let result = if error.is_null() {
            let text = LLVMPrintModuleToString(module);
            Ok(take_message(text))
        } else {
            let m = LLVMGetErrorMessage(error);
            let s = CStr::from_ptr(m).to_string_lossy().into_owned();
            LLVMDisposeErrorMessage(m);
            Err(format!("LLVM's passes failed: {s}"))
        };
        if !machine.is_null() {
            LLVMDisposeTargetMachine(machine);
        }
        LLVMDisposeModule(module);
        LLVMContextDispose(ctx);
        result
    }
}

/// The prefix of the function that stands for an inline assembly statement: the rest of its
/// name is the assembly text (PTX, with `$0`, `$1` for the operands), then `#N` (a number that
/// keeps the names unique).
pub const INLINE_ASM_PREFIX: &str = "__syncfix_asm:";

/// Replaces the callee of every call of inline assembly with a declared function named
/// [`INLINE_ASM_PREFIX`] and the assembly text, of the same type: the `llvm-ir` crate keeps no
/// assembly text (LLVM's C API had none when it was written), and the lowering needs it to give
/// the PTX that CUDA's headers use (`mov.u32 %0, %%laneid;`) its meaning, or to name the
/// statement it does not model.
///
/// # Safety
/// `module` is a valid module, not used by another thread.
unsafe fn name_inline_asm(module: LLVMModuleRef) {
    let mut declared: std::collections::HashMap<(String, LLVMTypeRef), LLVMValueRef> = std::collections::HashMap::new();
    for_each_instruction(module, |i| {
        if LLVMIsACallInst(i).is_null() {
            return;
        }
        let callee = LLVMGetCalledValue(i);
        if callee.is_null() || LLVMIsAInlineAsm(callee).is_null() {
            return;
        }
        let mut len = 0usize;
        let text = LLVMGetInlineAsmAsmString(callee, &mut len);
        let text = if text.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(text as *const u8, len)).into_owned()
        };
        let fty = LLVMGetCalledFunctionType(i);
        let n = declared.len();
        let g = *declared.entry((text.clone(), fty)).or_insert_with(|| {
            // `#n` keeps each name unique (LLVM would rename a second function of one name
            // itself, `.1`, which would read as part of the text).
            let name = CString::new(format!("{INLINE_ASM_PREFIX}{text}#{n}").replace('\0', " ")).expect("no NUL");
            LLVMAddFunction(module, name.as_ptr(), fty)
        });
        LLVMSetOperand(i, (LLVMGetNumOperands(i) - 1) as u32, g);
    });
}

/// Calls `f` on every instruction of every function of `module`, in order.
///
/// # Safety
/// `module` is a valid module, not used by another thread; `f` may change an instruction's
/// operands but not remove it.
pub(crate) unsafe fn for_each_instruction(module: LLVMModuleRef, mut f: impl FnMut(LLVMValueRef)) {
    let mut func = LLVMGetFirstFunction(module);
    while !func.is_null() {
        let mut b = LLVMGetFirstBasicBlock(func);
        while !b.is_null() {
            let mut i = LLVMGetFirstInstruction(b);
            while !i.is_null() {
                f(i);
                i = LLVMGetNextInstruction(i);
            }
            b = LLVMGetNextBasicBlock(b);
        }
        func = LLVMGetNextFunction(func);
    }
}

/// The text of an LLVM-allocated message, which is then freed (empty for null).
///
/// # Safety
/// `m` is null or a string LLVM allocated for the caller to dispose of.
unsafe fn take_message(m: *mut libc::c_char) -> String {
    if m.is_null() {
        return String::new();
    }
    let s = CStr::from_ptr(m).to_string_lossy().into_owned();
    LLVMDisposeMessage(m);
    s
}
