//! Reading clang's LLVM IR with `llvm-ir` (ARCHITECTURE.md, "crates/frontend": `driver`), whose
//! panics on constructs it does not know become errors.

use super::options::FrontendError;
use llvm_ir::Module;

/// The message of a panic (its `String` or `&str` payload), if it has one.
pub fn panic_message(info: &std::panic::PanicHookInfo<'_>) -> Option<String> {
    let p = info.payload();
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
}

/// Reads LLVM IR text with `llvm-ir`, which panics on constructs it does not know (e.g. LLVM
/// 19's target extension types, which clang uses for OpenCL's `event_t`): such a panic is
/// caught and reported as an unsupported construct.
pub(super) fn read_ir(ir: &str) -> Result<Module, FrontendError> {
    static HOOK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let message = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let m2 = message.clone();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = panic_message(info).unwrap_or_default();
        if let Ok(mut m) = m2.lock() {
            *m = text;
        }
    }));
    let result = std::panic::catch_unwind(|| Module::from_ir_str(ir));
    std::panic::set_hook(previous);
    match result {
        Ok(Ok(m)) => Ok(m),
        Ok(Err(e)) => Err(FrontendError::Internal(format!("reading LLVM IR: {e}"))),
        Err(_) => {
            let why = message.lock().map(|m| m.clone()).unwrap_or_default();
            let why = why.lines().next().unwrap_or("").chars().take(200).collect::<String>();
            Err(FrontendError::Unsupported {
                what: format!("an LLVM IR construct the IR reader (llvm-ir 0.11) does not handle ({why}); OpenCL's event_t and async copies are not supported yet"),
                loc: None,
            })
        }
    }
}
