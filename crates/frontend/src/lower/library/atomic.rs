//! Atomic library functions in their many spellings (OpenCL's `atomic_add`/`atom_add`, CUDA's
//! `atomicAdd`, `atomicAdd_block`...): which operation each is, and the `Atomic` instruction.

use super::*;

/// What an atomic library function does.
pub(super) enum AtomicKind {
    /// A read-modify-write with the call's second argument.
    Rmw(AtomicOp),
    /// OpenCL `atomic_inc`/`atomic_dec`: add or subtract 1 (kept as additions of a constant so
    /// that the verifier can recognise repetition-free counters).
    Step(AtomicOp),
    /// Compare-and-swap with the call's second and third arguments.
    CmpXchg,
}

/// The atomic operation of an OpenCL (`atomic_add`, `atom_add`) or CUDA (`atomicAdd`,
/// `atomicAdd_block`) atomic function, given the language and whether the element type is
/// signed, a float.
pub(super) fn atomic_kind(name: &str, opencl: bool, signed: bool, float: bool) -> Option<AtomicKind> {
    use AtomicKind::*;
    // The read-modify-writes both languages share, by their lower-case name.
    let shared = |op: &str| -> Option<AtomicKind> {
        Some(Rmw(match op {
            "add" => AtomicOp::Add,
            "sub" => AtomicOp::Sub,
            "min" if signed => AtomicOp::Min,
            "min" => AtomicOp::UMin,
            "max" if signed => AtomicOp::Max,
            "max" => AtomicOp::UMax,
            "and" => AtomicOp::And,
            "or" => AtomicOp::Or,
            "xor" => AtomicOp::Xor,
            _ => return None,
        }))
    };
    if opencl {
        let op = name.strip_prefix("atomic_").or_else(|| name.strip_prefix("atom_"))?;
        return match op {
            "xchg" => Some(Rmw(AtomicOp::Xchg)),
            "inc" => Some(Step(AtomicOp::Add)),
            "dec" => Some(Step(AtomicOp::Sub)),
            "cmpxchg" => Some(CmpXchg),
            _ => shared(op),
        };
    }
    let op = name.strip_prefix("atomic")?;
    let op = op.strip_suffix("_block").or_else(|| op.strip_suffix("_system")).unwrap_or(op);
    match op {
        "Add" if float => Some(Rmw(AtomicOp::FAdd)),
        "Exch" => Some(Rmw(AtomicOp::Xchg)),
        // CUDA: ((old >= val) ? 0 : old + 1) and (((old == 0) || (old > val)) ? val : old - 1),
        // LLVM's uinc_wrap and udec_wrap.
        "Inc" => Some(Rmw(AtomicOp::Inc)),
        "Dec" => Some(Rmw(AtomicOp::Dec)),
        "CAS" => Some(CmpXchg),
        // CUDA spells them capitalised: atomicAdd, atomicMin...
        _ if op.starts_with(|c: char| c.is_ascii_uppercase()) => shared(&op.to_ascii_lowercase()),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    /// An atomic read-modify-write or compare-and-swap on the object the first argument
    /// points into; the result is the old value.
    pub(super) fn lib_atomic(
        &mut self,
        what: &str,
        kind: AtomicKind,
        args: &[LVal],
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Option<Operand>, LowerError> {
        let At { cur, span, loc } = at;
        let ptr = self.lib_pointer_arg(what, args, 0, loc)?;
        let w = ret_bits.ok_or_else(|| unsupported(format!("`{what}` on a non-scalar"), loc))?;
        let scalar = |i: usize| match args.get(i) {
            Some(LVal::Scalar(v)) => Ok(*v),
            _ => Err(unsupported(format!("a call to `{what}` with unexpected arguments"), loc)),
        };
        let (op, ops) = match kind {
            AtomicKind::Rmw(op) => (op, vec![scalar(1)?]),
            AtomicKind::Step(op) => (op, vec![Operand::konst(w, 1)]),
            AtomicKind::CmpXchg => (AtomicOp::CmpXchg, vec![scalar(1)?, scalar(2)?]),
        };
        let ops = ops.into_iter().map(|o| self.kir.resize_unfolded(cur, o, w, true, span)).collect();
        let v = self.kir.push(cur, InstKind::Atomic { op, ptr, args: ops, width: w.div_ceil(8) as u32 }, w, span);
        Ok(Some(Operand::Value(v)))
    }
}
