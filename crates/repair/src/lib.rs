//! The repair loop of syncfix (ARCHITECTURE.md, "crates/repair"; GPURepair Algorithm 1): clauses over barrier
//! variables learnt from error traces, and the solver that proposes which barriers to enable.

pub mod repair;
pub mod solve;
