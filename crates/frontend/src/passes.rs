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
