//! Inline PTX assembly, as the CUDA toolkit's headers use it (cooperative groups, CUB,
//! `cuda_fp16.hpp`): `crate::passes` gives each assembly statement a declared function named
//! after its text ([`crate::passes::INLINE_ASM_PREFIX`]), and this module gives the statements
//! it knows their meaning in the PTX ISA (NVIDIA, "PTX ISA", sections "Special Registers" and
//! the instruction sets):
//!
//! - `mov` from a special register: `%laneid` is the thread's linear id in its block modulo 32
//!   (the warp size; a warp is 32 consecutive linear ids, CUDA Programming Guide, "SIMT
//!   Architecture"), `%lanemask_eq/lt/le/gt/ge` the masks of the lanes equal to, below, ...
//!   that lane, `%tid`, `%ntid`, `%ctaid`, `%nctaid` the thread and block ids and sizes;
//!   registers the hardware sets (`%warpid`, `%smid`, clocks, `%envreg*`, shared memory
//!   sizes) an arbitrary value at each read;
//! - warp-level exchange (`shfl.sync`, `vote`, `match`, `activemask`, `redux.sync`): an
//!   arbitrary value at each execution, as the NVVM intrinsics of the same name (`libdevice`);
//! - fences (`membar`, `fence`): nothing that race checking sees;
//! - arithmetic on registers only (`bfe`, `bfi`, `prmt`, `shl`, `cvt`, `fma.rz`, ...): an
//!   uninterpreted function of the operands, named after the text (two threads with the same
//!   operands get the same result).
//!
//! Anything else (memory operands `[...]`, barriers, `trap`, blocks of several instructions)
//! is an error that names the text: never a guess.

use super::{unsupported, At, LVal, LowerError, Lowerer};
use syncfix_kir::{BinOp, InstKind, Operand};

/// The NVVM intrinsic that reads the same special register as `text` when it is a thread or
/// block id or size (`mov.u32 $0, %tid.x;` is `llvm.nvvm.read.ptx.sreg.tid.x`).
pub(super) fn index_intrinsic(text: &str) -> Option<String> {
    match classify(text)? {
        Ptx::Index(reg) => Some(format!("llvm.nvvm.read.ptx.sreg.{reg}")),
        _ => None,
    }
}

/// What an assembly statement does, as far as syncfix models it.
#[derive(Debug, PartialEq, Eq)]
enum Ptx {
    /// `%laneid`.
    LaneId,
    /// `%lanemask_*`, by its suffix (`eq`, `lt`, `le`, `gt`, `ge`).
    LaneMask(&'static str),
    /// `%tid.x` ... : a thread or block id or size, as the NVVM intrinsic's name ends
    /// (`tid.x`), which `builtins` lowers.
    Index(String),
    /// A value the hardware or other lanes give: arbitrary at each execution.
    Arbitrary,
    /// No effect that syncfix sees (a fence).
    Nothing,
    /// A pure function of the register operands.
    Pure,
}

/// The PTX instructions without memory operands or effects beyond their result (PTX ISA,
/// "Integer Arithmetic", "Floating-Point", "Logic and Shift", "Data Movement and Conversion"
/// without loads and stores, "Comparison and Selection").
const PURE: &[&str] = &[
    "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max", "popc", "clz", "bfind", "fns", "brev",
    "bfe", "bfi", "szext", "bmsk", "dp4a", "dp2a", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign", "testp",
    "set", "setp", "selp", "slct", "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr", "mov", "cvt", "prmt", "vadd", "vsub",
    "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2", "vadd4", "vsub2", "vsub4", "vmax2", "vmax4", "vmin2", "vmin4",
];

/// The statement `text` (whitespace as written) classified; `None` when syncfix does not
/// model it.
fn classify(text: &str) -> Option<Ptx> {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let t = t.trim().trim_end_matches(';').trim();
    if t.contains('[') {
        return None;
    }
    if t.contains(';') || t.contains('{') {
        return classify_block(t);
    }
    let (opcode, operands) = t.split_once(' ').unwrap_or((t, ""));
    let base = opcode.split('.').next().unwrap_or(opcode);
    let operands: Vec<&str> = operands.split(',').map(str::trim).collect();
    if base == "mov" && operands.len() == 2 {
        if let Some(reg) = operands[1].strip_prefix('%') {
            return special_register(reg);
        }
    }
    if ["shfl", "vote", "match", "activemask", "redux"].contains(&base) {
        return Some(Ptx::Arbitrary);
    }
    if ["membar", "fence"].contains(&base) {
        return Some(Ptx::Nothing);
    }
    if PURE.contains(&base) && operands.iter().all(|o| !o.starts_with('%')) {
        return Some(Ptx::Pure);
    }
    None
}

/// A block of instructions (`{ .reg .f32 r0; shfl.sync.down.b32 r0|p, $1, $2, $3, $5; @p
/// add.f32 r0, r0, $4; mov.f32 $0, r0; }`, CUB's warp reduction step) without memory operands:
/// a pure function of its operands when every instruction is register arithmetic, an
/// arbitrary value when one also takes a value from another lane or a special register;
/// `None` when one is anything else. Its own registers (declared by `.reg`) are named without
/// `%` (a `%` name is taken for a special register).
fn classify_block(t: &str) -> Option<Ptx> {
    let mut arbitrary = false;
    for inst in t.trim_start_matches('{').trim_end_matches('}').split(';') {
        let inst = inst.trim().trim_start_matches('{').trim_end_matches('}').trim();
        // A guard (`@p`, `@!p`) does not change what the instruction may do.
        let inst = match inst.strip_prefix('@') {
            Some(rest) => rest.split_once(' ').map_or("", |(_, i)| i.trim()),
            None => inst,
        };
        if inst.is_empty() || inst.starts_with(".reg") {
            continue;
        }
        let (opcode, operands) = inst.split_once(' ').unwrap_or((inst, ""));
        let base = opcode.split('.').next().unwrap_or(opcode);
        if operands.contains('%') || ["shfl", "vote", "match", "activemask", "redux"].contains(&base) {
            arbitrary = true;
        } else if !PURE.contains(&base) {
            return None;
        }
    }
    Some(if arbitrary { Ptx::Arbitrary } else { Ptx::Pure })
}

/// A special register (PTX ISA, "Special Registers") read by `mov`.
fn special_register(reg: &str) -> Option<Ptx> {
    let (name, dim) = match reg.split_once('.') {
        Some((n, d)) => (n, Some(d)),
        None => (reg, None),
    };
    if dim.is_some_and(|d| !["x", "y", "z"].contains(&d)) {
        return None;
    }
    match (name, dim) {
        ("laneid", None) => Some(Ptx::LaneId),
        ("lanemask_eq", None) => Some(Ptx::LaneMask("eq")),
        ("lanemask_lt", None) => Some(Ptx::LaneMask("lt")),
        ("lanemask_le", None) => Some(Ptx::LaneMask("le")),
        ("lanemask_gt", None) => Some(Ptx::LaneMask("gt")),
        ("lanemask_ge", None) => Some(Ptx::LaneMask("ge")),
        ("tid" | "ctaid" | "ntid" | "nctaid", Some(_)) => Some(Ptx::Index(reg.to_string())),
        (
            "warpid" | "nwarpid" | "smid" | "nsmid" | "gridid" | "clock" | "clock_hi" | "clock64" | "globaltimer" | "globaltimer_lo"
            | "globaltimer_hi" | "dynamic_smem_size" | "total_smem_size" | "aggr_smem_size",
            None,
        ) => Some(Ptx::Arbitrary),
        (n, None) if n.starts_with("envreg") || n.starts_with("pm") => Some(Ptx::Arbitrary),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    /// A call of the inline assembly `text` (the name's rest after
    /// [`crate::passes::INLINE_ASM_PREFIX`], `#N` cut) with `args` and function type `fty`.
    /// Returns the call's value. Errors: a statement syncfix does not model, named with its
    /// text.
    pub(super) fn lower_inline_asm(
        &mut self,
        name: &str,
        text: &str,
        args: &[LVal],
        fty: &llvm_ir::TypeRef,
        ret_bits: Option<u16>,
        at: At<'_>,
    ) -> Result<Option<LVal>, LowerError> {
        let At { cur, span, loc } = at;
        let shown = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let Some(what) = classify(text) else {
            return Err(unsupported(format!("the inline assembly `{shown}` (not modelled by syncfix)"), loc));
        };
        let w = ret_bits.unwrap_or(32);
        let scalar = |me: &mut Self, v: Operand| -> Operand { me.kir.resize_unfolded(cur, v, w, false, span) };
        Ok(match what {
            Ptx::Nothing => None,
            Ptx::LaneId => {
                let id = self.lib_linear_id(cur, false, span);
                let lane = self.kir.bin(cur, BinOp::URem, id, Operand::konst(32, 32), span);
                Some(LVal::Scalar(scalar(self, lane)))
            }
            Ptx::LaneMask(kind) => {
                let id = self.lib_linear_id(cur, false, span);
                let lane = self.kir.bin(cur, BinOp::URem, id, Operand::konst(32, 32), span);
                let eq = self.kir.bin(cur, BinOp::Shl, Operand::konst(32, 1), lane, span);
                // lt = eq - 1; le = (eq << 1) - 1 (all ones for lane 31, as 32-bit wraps);
                // gt = !le; ge = !lt.
                let lt = self.kir.bin(cur, BinOp::Sub, eq, Operand::konst(32, 1), span);
                let eq2 = self.kir.bin(cur, BinOp::Shl, eq, Operand::konst(32, 1), span);
                let le = self.kir.bin(cur, BinOp::Sub, eq2, Operand::konst(32, 1), span);
                let ones = Operand::konst(32, u32::MAX as u128);
                let m = match kind {
                    "eq" => eq,
                    "lt" => lt,
                    "le" => le,
                    "gt" => self.kir.bin(cur, BinOp::Xor, le, ones, span),
                    _ => self.kir.bin(cur, BinOp::Xor, lt, ones, span),
                };
                Some(LVal::Scalar(scalar(self, m)))
            }
            Ptx::Index(_) => unreachable!("`builtins` lowers the thread and block ids"),
            Ptx::Arbitrary => {
                // Each scalar of the result (one per output operand) arbitrary.
                let ret = match fty.as_ref() {
                    llvm_ir::Type::FuncType { result_type, .. } => result_type.clone(),
                    _ => return Err(unsupported(format!("the inline assembly `{shown}` of unknown type"), loc)),
                };
                let mut widths = vec![];
                if !super::inst::leaf_widths(&self.m.types, &ret, &mut widths) {
                    return Err(unsupported(format!("the inline assembly `{shown}` returning {ret}"), loc));
                }
                if widths.is_empty() {
                    return Ok(None);
                }
                let leaves: Vec<Operand> = widths.iter().map(|w| Operand::Value(self.kir.push(cur, InstKind::Havoc, *w, span))).collect();
                Some(super::inst::rebuild(&self.m.types, &ret, &mut leaves.into_iter()))
            }
            Ptx::Pure => Some(self.pure_call(name, args, fty, false, At::new(cur, span, loc))?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_special_registers_of_cooperative_groups_are_read() {
        assert_eq!(classify("mov.u32 $0, %laneid;"), Some(Ptx::LaneId));
        assert_eq!(classify("mov.u32 $0, %lanemask_lt;"), Some(Ptx::LaneMask("lt")));
        assert_eq!(classify("mov.u32 $0,  %tid.y;"), Some(Ptx::Index("tid.y".into())));
        assert_eq!(index_intrinsic("mov.u32 $0, %ntid.x;").as_deref(), Some("llvm.nvvm.read.ptx.sreg.ntid.x"));
        assert_eq!(classify("mov.u32 $0, %warpid;"), Some(Ptx::Arbitrary));
    }

    #[test]
    fn register_arithmetic_is_pure_and_memory_is_not_modelled() {
        assert_eq!(classify("bfe.u32 $0, $1, $2, $3;"), Some(Ptx::Pure));
        assert_eq!(classify("shfl.sync.down.b32 $0, $1, $2, $3, $4;"), Some(Ptx::Arbitrary));
        assert_eq!(classify("ld.acquire.gpu.u32 $0,[$1];"), None);
        assert_eq!(classify("red.or.release.cta.b32 [$0],$1;"), None);
        assert_eq!(classify("bar.sync 1, $0;"), None);
        assert_eq!(classify("trap;"), None);
        // Blocks: register arithmetic is pure, a shuffle arbitrary, a store not modelled.
        assert_eq!(classify("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $1, 0;\n\tselp.u32 $0, 1, 0, p;\n}"), Some(Ptx::Pure));
        let cub = "{ .reg .f32 r0; .reg .pred p; shfl.sync.down.b32 r0|p, $1, $2, $3, $5; @p add.f32 r0, r0, $4; mov.f32 $0, r0;}";
        assert_eq!(classify(cub), Some(Ptx::Arbitrary));
        assert_eq!(classify("{ .reg .u32 r; st.shared.u32 [$0], r; }"), None);
        assert_eq!(classify("{ bar.sync 1, 64; }"), None);
        // A register the operands do not name (a special register) is not a pure operand.
        assert_eq!(classify("add.u32 $0, %laneid, 1;"), None);
    }
}
