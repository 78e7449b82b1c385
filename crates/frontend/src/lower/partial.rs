//! Stores of a vector with some lanes replaced: clang compiles `v.y = e` (OpenCL and CUDA
//! vector components) to a load of the whole vector, `insertelement`s and a store of the
//! whole vector. The source writes only the replaced lanes, and reads nothing: lowering the
//! load and the store as they stand would report races on the other lanes (another thread
//! writing `v.x` at the same time is no race). This finds those patterns in a function so
//! that the lowering stores only the replaced lanes and drops the load.
//!
//! The pattern, in one basic block: `%l = load <N x T>, ptr P` (one use), then a chain of
//! `insertelement` with constant lane indices (each one use), then `store <N x T> %v, ptr P`
//! with the same `P`, and no store, call or atomic between the load and the store.

use llvm_ir::{Constant, Function, Instruction, Name, Operand};
use std::collections::{HashMap, HashSet};

/// What the lowering of one function does differently.
#[derive(Default, Debug)]
pub(crate) struct PartialStores {
    /// Loads whose value only feeds such a store: not accesses (their lanes are unused).
    pub dead_loads: HashSet<Name>,
    /// Stores by the name of their stored value: the lanes they write.
    pub lanes: HashMap<Name, Vec<u64>>,
}

fn local(o: &Operand) -> Option<&Name> {
    match o {
        Operand::LocalOperand { name, .. } => Some(name),
        _ => None,
    }
}

fn const_index(o: &Operand) -> Option<u64> {
    match o {
        Operand::ConstantOperand(c) => match c.as_ref() {
            Constant::Int { value, .. } => Some(*value),
            _ => None,
        },
        _ => None,
    }
}

/// The uses of each local name in `func` (operands of instructions and terminators).
fn use_counts(func: &Function) -> HashMap<Name, usize> {
    let mut n: HashMap<Name, usize> = HashMap::new();
    for bb in &func.basic_blocks {
        for i in &bb.instrs {
            // The instruction's text names its operands: count `%name` occurrences of each
            // local that appears (robust over every instruction kind).
            for name in operand_names(&i.to_string()) {
                *n.entry(name).or_default() += 1;
            }
        }
        for name in operand_names(&bb.term.to_string()) {
            *n.entry(name).or_default() += 1;
        }
    }
    n
}

/// The local names an instruction's text uses (after its `=`).
fn operand_names(text: &str) -> Vec<Name> {
    let body = match text.find(" = ") {
        Some(i) => &text[i + 3..],
        None => text,
    };
    let mut out = vec![];
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let start = i + 1;
            let mut j = start;
            while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'.' || bytes[j] == b'_') {
                j += 1;
            }
            let s = &body[start..j];
            if !s.is_empty() {
                out.push(match s.parse::<usize>() {
                    Ok(n) => Name::Number(n),
                    Err(_) => Name::from(s),
                });
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The partial stores of `func`.
pub(crate) fn find(func: &Function) -> PartialStores {
    let mut out = PartialStores::default();
    let uses = use_counts(func);
    let one_use = |n: &Name| uses.get(n).copied() == Some(1);
    for bb in &func.basic_blocks {
        let defs: HashMap<&Name, (usize, &Instruction)> =
            bb.instrs.iter().enumerate().filter_map(|(k, i)| i.try_get_result().map(|n| (n, (k, i)))).collect();
        for (si, ins) in bb.instrs.iter().enumerate() {
            let Instruction::Store(s) = ins else { continue };
            if s.volatile {
                continue;
            }
            let Some(mut v) = local(&s.value) else { continue };
            let stored = v.clone();
            let mut lanes = vec![];
            // Walk the insertelement chain back to the load.
            let load = loop {
                if !one_use(v) {
                    break None;
                }
                match defs.get(v) {
                    Some((_, Instruction::InsertElement(x))) => {
                        let Some(lane) = const_index(&x.index) else { break None };
                        lanes.push(lane);
                        match local(&x.vector) {
                            Some(n) => v = n,
                            None => break None,
                        }
                    }
                    Some((li, Instruction::Load(l))) if l.address == s.address && !l.volatile => break Some((*li, l.dest.clone())),
                    _ => break None,
                }
            };
            let Some((li, load_name)) = load else { continue };
            if lanes.is_empty() {
                continue;
            }
            let between = &bb.instrs[li + 1..si];
            if between.iter().any(|i| {
                matches!(
                    i,
                    Instruction::Store(_)
                        | Instruction::Call(_)
                        | Instruction::AtomicRMW(_)
                        | Instruction::CmpXchg(_)
                        | Instruction::Fence(_)
                )
            }) {
                continue;
            }
            lanes.sort_unstable();
            lanes.dedup();
            out.dead_loads.insert(load_name);
            out.lanes.insert(stored, lanes);
        }
    }
    out
}
