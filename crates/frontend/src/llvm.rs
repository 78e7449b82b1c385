//! Small readers of the `llvm-ir` crate's types, shared by the driver, [`crate::constgep`] and
//! the lowering. They import nothing of this crate, so that those modules need not import each
//! other for them.

use either::Either;
use llvm_ir::constant::Constant;
use llvm_ir::instruction::Call;
use llvm_ir::Name;

/// The text of an IR name: `%x` is `x`, `%7` is `7`.
pub fn name_str(n: &Name) -> String {
    match n {
        Name::Name(s) => s.to_string(),
        Name::Number(i) => format!("{i}"),
    }
}

/// The symbol a call names directly (not through a pointer or inline assembly).
pub fn callee_name(c: &Call) -> Option<String> {
    match &c.function {
        Either::Right(llvm_ir::Operand::ConstantOperand(cr)) => match cr.as_ref() {
            Constant::GlobalReference { name, .. } => Some(name_str(name)),
            _ => None,
        },
        _ => None,
    }
}
