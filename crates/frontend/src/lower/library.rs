//! Calls to the device library that our preludes declare without a body and that need more
//! than an uninterpreted function: atomics in their many spellings, `__syncthreads_count`,
//! curand, and the like. (Pure math functions need nothing here: a bodiless function marked
//! `const` in a prelude is lowered as an uninterpreted function by `builtins`.)

use super::{Frame, LVal, LowerError, Lowerer};
use syncfix_kir::{BlockId, Loc, Operand, Span};

impl<'a> Lowerer<'a> {
    /// Lowers a call to the library function `name` (IR name, possibly mangled) with lowered
    /// arguments `args`; `ret_bits` is the result's width when it is a scalar.
    ///
    /// Returns `Ok(None)` when `name` is not a library function handled here, otherwise
    /// `Ok(Some(result))` (`result` is `None` for calls without a value) after emitting the
    /// call's KIR into `cur`.
    pub(crate) fn lower_library_call(
        &mut self,
        _frame: &mut Frame,
        name: &str,
        args: &[LVal],
        ret_bits: Option<u16>,
        cur: BlockId,
        span: &Span,
        loc: Option<Loc>,
    ) -> Result<Option<Option<Operand>>, LowerError> {
        let _ = (name, args, ret_bits, cur, span, loc);
        Ok(None)
    }
}
