//! curand: a draw reads and updates the state the thread passes (a memory access), and
//! returns an arbitrary value.

use super::*;

/// The curand functions that draw a number from a generator state (the state pointer is their
/// first argument); `curand_init` takes it last.
pub(super) fn is_curand_draw(name: &str) -> bool {
    matches!(
        name,
        "curand"
            | "curand_uniform"
            | "curand_uniform_double"
            | "curand_normal"
            | "curand_normal_double"
            | "curand_log_normal"
            | "curand_log_normal_double"
            | "curand_poisson"
    )
}

impl<'a> Lowerer<'a> {
    /// curand's device API (`mtgp`: on an MTGP32 state). A generator state is read and overwritten with an arbitrary value
    /// by every draw and by `curand_init`, so threads that share a state race (as in
    /// GPUVerify); the numbers drawn are arbitrary. An MTGP32 state serves the threads of one
    /// block together, at most 256 of them: thread `t` (linear id in the block) updates word
    /// `t mod 256`, so larger blocks, and different blocks sharing a state, race on it.
    pub(super) fn lib_curand(
        &mut self,
        what: &str,
        mtgp: bool,
        args: &[LVal],
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Option<Operand>, LowerError> {
        let At { cur, span, loc } = at;
        let i = if what == "curand_init" { args.len().saturating_sub(1) } else { 0 };
        let state = self.lib_pointer_arg(what, args, i, loc)?;
        let offset = if mtgp {
            let t = self.lib_linear_id(cur, false, span);
            let t = self.kir.bin(cur, BinOp::And, t, Operand::konst(32, 255), span);
            let t = self.kir.resize_unfolded(cur, t, 64, false, span);
            let b = self.kir.bin(cur, BinOp::Mul, t, Operand::konst(64, 4), span);
            self.kir.bin(cur, BinOp::Add, state.offset, b, span)
        } else {
            state.offset
        };
        let ptr = Pointer { object: state.object, offset };
        if what != "curand_init" {
            self.kir.push(cur, InstKind::Load { ptr, width: 4 }, 32, span);
        }
        let next = self.kir.push(cur, InstKind::Havoc, 32, span);
        self.kir.push(cur, InstKind::Store { ptr, value: Operand::Value(next), width: 4 }, 0, span);
        match ret_bits {
            Some(w) => Ok(Some(Operand::Value(self.kir.push(cur, InstKind::Havoc, w, span)))),
            None if what == "curand_init" => Ok(None),
            None => Err(unsupported(format!("`{what}` returning a vector (not supported yet)"), loc)),
        }
    }
}
