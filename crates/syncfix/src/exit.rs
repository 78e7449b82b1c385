//! Exit codes: GPUVerify's (`error_codes.py`), GPURepair's repair codes, and the shell's for a
//! signal. [`TABLE`] is the one list; the README's table and `syncfix --help` follow it.

pub const SUCCESS: u8 = 0;
pub const COMMAND_LINE_ERROR: u8 = 1;
pub const CLANG_ERROR: u8 = 2;
pub const FRONTEND_ERROR: u8 = 4;
/// GPUVerify's VC-generation stage rejected the input (e.g. an unknown `/checkArrays` name).
pub const VCGEN_ERROR: u8 = 5;
pub const NOT_ALL_VERIFIED: u8 = 6;
pub const TIMEOUT: u8 = 7;
/// An internal error of the verifier (GPUVerify's BOOGIE_INTERNAL_ERROR).
pub const INTERNAL_ERROR: u8 = 11;
pub const ASSERTION_FAILURE: u8 = 201;
pub const UNREPAIRABLE: u8 = 202;
pub const REPAIR_ERROR: u8 = 203;
/// SIGINT (Ctrl-C): 128 + 2.
pub const INTERRUPTED: u8 = 130;
/// SIGTERM: 128 + 15.
pub const TERMINATED: u8 = 143;

/// Every exit code: `(code, GPUVerify's or GPURepair's name, meaning)`.
pub const TABLE: [(u8, &str, &str); 13] = [
    (SUCCESS, "SUCCESS", "verified (or repaired, or nothing to change)"),
    (COMMAND_LINE_ERROR, "COMMAND_LINE_ERROR", "bad flags, a missing or unreadable file"),
    (CLANG_ERROR, "CLANG_ERROR", "clang rejected the kernel (its message is shown), or is missing"),
    (FRONTEND_ERROR, "BUGLE_ERROR", "the front end cannot translate a construct (named, with its line)"),
    (VCGEN_ERROR, "GPUVERIFYVCGEN_ERROR", "an annotation or /checkArrays option names what does not exist"),
    (NOT_ALL_VERIFIED, "GPUVERIFY_ERRORS", "a defect was found, or no verdict could be established (unknown)"),
    (TIMEOUT, "TIMEOUT", "the time limit (--timeout) was reached"),
    (INTERNAL_ERROR, "BOOGIE_INTERNAL_ERROR", "an internal error of syncfix (a bug; please report it)"),
    (ASSERTION_FAILURE, "ASSERTION_FAILURE", "repair: an assertion fails whatever the barriers"),
    (UNREPAIRABLE, "UNREPAIRABLE", "repair: no placement of barriers repairs the kernel (the reason is printed)"),
    (REPAIR_ERROR, "REPAIR_ERROR", "repair: another error (a defect barriers cannot repair; a file that cannot be written)"),
    (INTERRUPTED, "SIGINT", "interrupted (Ctrl-C)"),
    (TERMINATED, "SIGTERM", "terminated"),
];

/// The name of `code` in [`TABLE`] (`""` for a code not in it).
pub fn name(code: u8) -> &'static str {
    TABLE.iter().find(|(c, _, _)| *c == code).map_or("", |(_, n, _)| n)
}
