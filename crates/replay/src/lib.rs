//! The concrete replay of a counterexample (issue 29): runs a kernel's threads on the launch,
//! the scalar arguments and the initial memory of a verifier's trace, and says whether the
//! race (or the barrier divergence) the verifier reported happens.
//!
//! The verifier proves race freedom of an abstraction (GPUVerify's two-thread reduction, loops
//! cut at their heads with invariants, arrays read as arbitrary values; ESOP 2013 §3–4), so a
//! trace can be spurious: the replay is the check that it is not. It is an interpreter of
//! KIR with CUDA's and OpenCL's semantics: every thread of the trace's block (or of its two
//! blocks, for a race between blocks) runs on its own values; shared memory is one per block,
//! global memory one for the grid, private memory one per thread; a barrier waits for the
//! threads it synchronises (the block, the named threads of a tile, the grid) and releases
//! them together.
//!
//! Two accesses race when they touch a common byte, one writes, they are not both atomic and
//! no barrier orders them: for two threads of one block, a block barrier both passed between
//! the two accesses whose fences, as each thread gave them, both cover the memory's space
//! (GPUVerify's barrier flags), or a tile barrier of their warp; for two blocks, a grid
//! barrier. An asynchronous copy's access (OpenCL's `async_work_group_copy`) stays unordered
//! until its thread waits for it. A barrier diverges when some threads wait at it while
//! others of its block (of the grid, for a grid barrier) have left the kernel or wait at
//! another barrier (GPUVerify's barrier divergence).
//!
//! Values are bit-vectors with the verifier's SMT-LIB semantics ([`value`]); floating-point
//! operations, which the verifier leaves uninterpreted, take their IEEE 754 values ([`float`]).
//! What the replay cannot compute (a function it does not know, a value the front end does not
//! model) gets a deterministic value and taints whatever depends on it, with the place it came
//! from, so that a race whose address or path depends on such a value is never confirmed.
//!
//! The schedule is one the hardware may choose: each thread runs until it waits at a barrier
//! or ends, in thread order; a race is a pair of accesses that no barrier orders, whatever
//! the schedule. Where the first run does not reproduce the defect, [`replay`] searches:
//! memory filled with a pattern instead of zeros (when the run read memory the model does not
//! give), and scalar arguments made small (when the model's made the run too long).

mod exec;
mod float;
mod graph;
mod judge;
mod machine;
mod shrink;
mod value;

use graph::post_dominators;
use machine::{Machine, Run};
use shrink::{small_params, Probe};

use std::time::{Duration, Instant};
use syncfix_kir::{Cfg, InstId, Kernel, ObjectId, ParamKind};

/// The ids of one thread: `local` within its block, `group` in the grid, per dimension.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThreadId {
    pub local: [u32; 3],
    pub group: [u32; 3],
}

/// What to run: the kernel (with `assignment`, the barrier variables' values, for an
/// instrumented kernel), the launch, the blocks to run, and the inputs.
pub struct Input<'a> {
    pub kernel: &'a Kernel,
    /// Barrier variables by index (a variable missing here is on).
    pub assignment: &'a [bool],
    /// Threads per block and blocks per grid, per dimension (concrete).
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    /// The blocks to run (group ids, at most two): the trace's block, or its two blocks.
    pub groups: Vec<[u32; 3]>,
    /// The scalar parameters' values: (parameter index, bits); a missing one is 0.
    pub params: Vec<(usize, u128)>,
    /// Initial bytes known from the model: (object, byte offset, byte). Every other byte of
    /// an object without known contents starts as 0 (or, in the search, as a pattern).
    pub memory: Vec<(ObjectId, u64, u8)>,
    /// When to give up (the caller's time limit).
    pub deadline: Instant,
    /// Instructions executed, over all threads, before a run gives up.
    pub max_steps: u64,
    /// `--warp-sync=N`: the threads of each warp of `N` run in lock-step, so two of them
    /// race only in one step of the same instruction (the verifier's warp semantics).
    pub warp_sync: Option<u32>,
}

/// At most this many threads are run (two blocks of 4096 threads, OpenCL's largest groups in
/// GPUVerify's tests).
pub const MAX_THREADS: u64 = 8192;

/// At most this many thread-values are held (threads × instructions of the kernel): 256 MiB
/// of values and 64 MiB of taints.
const MAX_VALUES: u64 = 1 << 24;

/// At most this many accesses of the two instructions of a race are recorded.
pub(crate) const MAX_RECORDS: usize = 4_000_000;

/// Arguments above this (as unsigned and as signed numbers) are made small in the search.
const LARGE_ARGUMENT: u128 = 4096;

/// What the replay looks for.
#[derive(Clone, Debug)]
pub enum Target {
    /// A race on `object` between an access of `insts[0]` and one of `insts[1]`; `threads` and
    /// `offset` (a byte of the second access) are the trace's, preferred when the replay finds
    /// several racing pairs.
    Race { object: ObjectId, insts: [InstId; 2], threads: [ThreadId; 2], offset: u64 },
    /// Divergence at `barrier`.
    Divergence { barrier: InstId },
}

/// How the replay ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The replay reproduced the defect.
    Confirmed(Box<Witness>),
    /// It did not; why, in a sentence for the user.
    Possible(String),
}

/// A reproduced defect. For a race: the two accesses' threads (in the order of the target's
/// instructions), the byte offset where they meet, and for each access the loop iterations it
/// ran in: (the loop's source line, iteration counted from 0), outermost loop first. For a
/// divergence: a thread that waits at the barrier and one that does not reach it, no offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    pub threads: [ThreadId; 2],
    pub offset: Option<u64>,
    pub iterations: [Vec<(u32, u64)>; 2],
    /// Whether the threads are the trace's (otherwise another pair reproduced it).
    pub trace_threads: bool,
    /// The scalar arguments of the run that reproduced it: (parameter index, bits).
    pub params: Vec<(usize, u128)>,
    /// What the search changed from the model's inputs, in words (`None`: nothing).
    pub search: Option<String>,
    /// The launch of that run: threads per block and blocks per grid (the trace's, or made
    /// small where the kernel leaves them symbolic), and the blocks run.
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    pub groups: Vec<[u32; 3]>,
    /// How memory the model does not give started in that run.
    pub fill: Fill,
    /// Whether that run started from the memory the model chose ([`Input::memory`]; the
    /// search also runs without it, in case the model's values are what keeps the defect
    /// from happening).
    pub model_memory: bool,
    /// For each global object the run touched, one past the highest byte it touched.
    pub extents: Vec<(ObjectId, u64)>,
}

/// Replays `target` on `input`, then, within the deadline, on the inputs of the search.
///
/// `Possible` with the reason when the launch is too large to run (more than [`MAX_THREADS`]
/// threads in the blocks to run, or too many values), when every run passes the deadline or
/// the step budget, when the accesses are never reached or never meet without a barrier
/// between them, or when they meet only through a value the replay cannot compute.
pub fn replay(input: &Input<'_>, target: &Target) -> Outcome {
    let k = input.kernel;
    let per_block: u64 = input.block_dim.iter().map(|&d| d as u64).product();
    let threads = per_block * input.groups.len() as u64;
    if per_block == 0 || input.groups.is_empty() {
        return Outcome::Possible("the launch has no threads to replay".into());
    }
    if threads > MAX_THREADS {
        return Outcome::Possible(format!(
            "the launch is too large to replay: {threads} threads in the blocks to run (at most {MAX_THREADS})"
        ));
    }
    if threads * k.insts.len() as u64 > MAX_VALUES {
        return Outcome::Possible(format!(
            "the kernel is too large to replay: {} instructions for each of {threads} threads",
            k.insts.len()
        ));
    }
    let cfg = match Cfg::compute(k) {
        Ok(c) => c,
        Err(_) => return Outcome::Possible("the kernel's control flow is irreducible".into()),
    };
    let ipdom = post_dominators(k);
    // The search's inputs, in order: the model's (its arguments and the memory it chose,
    // zeros elsewhere), the model's arguments on zeros alone (when the model chose memory),
    // then memory filled otherwise, then small arguments; each tried only when the runs
    // before give a reason to.
    let small = small_params(k, &input.params);
    let mut first_reason: Option<String> = None;
    let mut tried: Vec<String> = vec![];
    let attempts: [(Fill, bool, bool); 7] = [
        (Fill::Zero, false, true),
        (Fill::Zero, false, false),
        (Fill::Small, false, true),
        (Fill::Pattern, false, true),
        (Fill::Zero, true, true),
        (Fill::Small, true, true),
        (Fill::Pattern, true, true),
    ];
    let mut read_input = false;
    let mut too_long = false;
    for (i, &(fill, use_small, model_memory)) in attempts.iter().enumerate() {
        let wanted = match (fill, use_small) {
            (Fill::Zero, false) => model_memory || !input.memory.is_empty(),
            (_, false) => read_input,
            (Fill::Zero, true) => small.is_some() && (too_long || read_input),
            (_, true) => small.is_some() && read_input,
        };
        if !wanted {
            continue;
        }
        let now = Instant::now();
        if now >= input.deadline {
            break;
        }
        // The model's inputs get half the time; each later run half of what is left, the
        // last all of it.
        let left = input.deadline - now;
        let share = if i + 1 == attempts.len() { left } else { left / 2 };
        let params = if use_small { small.clone().unwrap_or_default() } else { input.params.clone() };
        let budget = share.max(Duration::from_millis(200)).min(left);
        let run = Run { params: &params, fill, model_memory, deadline: now + budget, budget };
        let mut m = Machine::new(input, &run, &cfg, &ipdom, target);
        let ended = m.run();
        read_input |= m.read_input;
        let outcome = match ended {
            Ok(()) => m.judge().unwrap_or_else(|| Outcome::Possible(m.not_reproduced())),
            Err(why) => {
                too_long = true;
                m.judge().unwrap_or(Outcome::Possible(why))
            }
        };
        let mut changed: Vec<String> = vec![];
        if !model_memory && !input.memory.is_empty() {
            changed.push("the memory the model chose left out (zeros)".into());
        }
        match fill {
            Fill::Zero => {}
            Fill::Small => changed.push("memory filled with 0, 1, 2, ... by word".into()),
            Fill::Pattern => changed.push("memory filled with a pseudo-random pattern".into()),
        }
        if use_small {
            changed.push("the model's large arguments made 64".into());
        }
        match outcome {
            Outcome::Confirmed(mut w) => {
                w.params = params.clone();
                if !use_small {
                    let took = now.elapsed();
                    let probe = Probe { input, target, cfg: &cfg, ipdom: &ipdom, fill, model_memory, took };
                    if let Some((smaller, shrunk)) = probe.shrink(&params) {
                        for (i, from) in &smaller {
                            let name = k.params.get(*i).map_or("?", |p| p.name.as_str());
                            changed.push(format!("`{name}` made as small as still reproduces it, from the model's {from}"));
                        }
                        *w = shrunk;
                    }
                    if let Some((small, what)) = probe.shrink_launch(&w.params) {
                        changed.extend(what);
                        *w = small;
                    }
                }
                w.search = if changed.is_empty() { None } else { Some(changed.join(", ")) };
                return Outcome::Confirmed(w);
            }
            Outcome::Possible(why) => {
                if first_reason.is_none() {
                    first_reason = Some(why);
                } else {
                    tried.push(changed.join(" and "));
                }
            }
        }
    }
    let mut why = first_reason.unwrap_or_else(|| "no time was left before the time limit to replay it".into());
    if !tried.is_empty() {
        why.push_str(&format!(" (also tried: {})", tried.join("; ")));
    }
    Outcome::Possible(why)
}

/// How memory the model does not give starts (the search's fills).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Every byte 0.
    Zero,
    /// Each 4-byte word `0`, `1`, `2`, `0`, ... by its index (so that some elements are zero
    /// and others not): byte `b` is `b / 4 % 3` when `b % 4 == 0`, else 0.
    Small,
    /// A pseudo-random byte per (object, offset): [`pattern_byte`].
    Pattern,
}

/// The byte at offset `off` of the object with index `object` in [`Fill::Pattern`] (a
/// splitmix64-style mix, so that a harness can compute the same bytes).
pub fn pattern_byte(object: u32, off: u64) -> u8 {
    let mut h = (object as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ off.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 31;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    (h >> 29) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncfix_kir::{EntityRef, InstKind};

    /// A kernel of 64 threads: thread `t` writes `s[t]`, then (after a block barrier guarded
    /// by `var0`, with fences `FENCES`) reads `s[t + 1]`.
    fn neighbour(fences: &str) -> Kernel {
        let text = format!(
            "kernel k (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]
  obj0 s[65]: shared elem 4
block0:
  v0:i32 = local_id.x
  v1:i64 = zext v0
  v2:i64 = mul v1, 4:i64
  store.4 obj0[v2], v0
  barrier.block fences({fences}) if var0 candidate
  v3:i64 = add v2, 4:i64
  v4:i32 = load.4 obj0[v3]
  ret
"
        );
        syncfix_kir::parse(&text).unwrap()
    }

    fn run(k: &Kernel, assignment: &[bool], target: &Target) -> Outcome {
        run_on(k, assignment, vec![], target)
    }

    /// Replays `target` on one block of 64 threads, with `memory` as the model's.
    fn run_on(k: &Kernel, assignment: &[bool], memory: Vec<(ObjectId, u64, u8)>, target: &Target) -> Outcome {
        let input = Input {
            kernel: k,
            assignment,
            block_dim: [64, 1, 1],
            grid_dim: [1, 1, 1],
            groups: vec![[0, 0, 0]],
            params: vec![],
            memory,
            deadline: Instant::now() + Duration::from_secs(10),
            max_steps: 1_000_000,
            warp_sync: None,
        };
        replay(&input, target)
    }

    fn inst_of(k: &Kernel, pred: impl Fn(&InstKind) -> bool) -> InstId {
        k.insts.iter().find(|(_, i)| pred(&i.kind)).map(|(v, _)| v).unwrap()
    }

    fn race_target(k: &Kernel) -> Target {
        let store = inst_of(k, |i| matches!(i, InstKind::Store { .. }));
        let load = inst_of(k, |i| matches!(i, InstKind::Load { .. }));
        let t = |x: u32| ThreadId { local: [x, 0, 0], group: [0, 0, 0] };
        Target::Race { object: ObjectId::new(0), insts: [store, load], threads: [t(1), t(0)], offset: 4 }
    }

    #[test]
    fn a_barrier_variable_decides_whether_the_neighbours_race() {
        let k = neighbour("local");
        match run(&k, &[false], &race_target(&k)) {
            Outcome::Confirmed(w) => {
                assert_eq!(w.offset, Some(4));
                assert!(w.trace_threads);
                assert_eq!(w.threads[0].local[0], 1);
            }
            o => panic!("{o:?}"),
        }
        assert!(matches!(run(&k, &[true], &race_target(&k)), Outcome::Possible(_)));
    }

    #[test]
    fn a_barrier_orders_only_the_memory_its_fences_name() {
        // A global fence does not order shared memory (OpenCL's flags, GPUVerify's model).
        let k = neighbour("global");
        assert!(matches!(run(&k, &[true], &race_target(&k)), Outcome::Confirmed(_)));
        let k = neighbour("");
        assert!(matches!(run(&k, &[true], &race_target(&k)), Outcome::Confirmed(_)));
    }

    #[test]
    fn a_barrier_in_a_branch_some_threads_skip_diverges() {
        let text = "kernel k (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]
block0:
  v0:i32 = local_id.x
  v1:i1 = cmp.ult v0, 16:i32
  br v1, block1, block2
block1:
  barrier.block fences(local,global) existing(fixed)
  br block2
block2:
  ret
";
        let k = syncfix_kir::parse(text).unwrap();
        let barrier = inst_of(&k, |i| matches!(i, InstKind::Barrier(_)));
        match run(&k, &[], &Target::Divergence { barrier }) {
            Outcome::Confirmed(w) => assert!(w.threads[0].local[0] < 16 && w.threads[1].local[0] >= 16, "{w:?}"),
            o => panic!("{o:?}"),
        }
    }

    /// 64 threads: thread `t` reads word `t` of `A` and waits at a barrier when it is 0.
    fn barrier_on_input() -> Kernel {
        let text = "kernel k (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]
  param 0 A: ptr obj0
  obj0 A: global elem 4
block0:
  v0:i32 = local_id.x
  v1:i64 = zext v0
  v2:i64 = mul v1, 4:i64
  v3:i32 = load.4 obj0[v2]
  v4:i1 = cmp.eq v3, 0:i32
  br v4, block1, block2
block1:
  barrier.block fences(local,global) existing(fixed)
  br block2
block2:
  ret
";
        syncfix_kir::parse(text).unwrap()
    }

    #[test]
    fn the_first_run_starts_from_the_memory_the_model_chose() {
        // The model: word 5 of `A` is 7, every other word 0 (thread 5 skips the barrier).
        let k = barrier_on_input();
        let barrier = inst_of(&k, |i| matches!(i, InstKind::Barrier(_)));
        match run_on(&k, &[], vec![(ObjectId::new(0), 20, 7)], &Target::Divergence { barrier }) {
            Outcome::Confirmed(w) => {
                assert!(w.model_memory && w.search.is_none(), "{w:?}");
                assert_eq!(w.threads[1].local[0], 5, "{w:?}");
            }
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn without_the_models_memory_the_search_fills_memory() {
        let k = barrier_on_input();
        let barrier = inst_of(&k, |i| matches!(i, InstKind::Barrier(_)));
        match run_on(&k, &[], vec![], &Target::Divergence { barrier }) {
            Outcome::Confirmed(w) => assert!(w.search.as_deref().is_some_and(|s| s.contains("memory filled")), "{w:?}"),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn the_search_also_runs_without_the_models_memory() {
        // Thread `t` writes `B[A[t]]`: with the model's `A` a permutation the threads never
        // meet; on zeros they all write `B[0]`.
        let text = "kernel k (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]
  param 0 A: ptr obj0
  param 1 B: ptr obj1
  obj0 A: global elem 4
  obj1 B: global elem 4
block0:
  v0:i32 = local_id.x
  v1:i64 = zext v0
  v2:i64 = mul v1, 4:i64
  v3:i32 = load.4 obj0[v2]
  v4:i64 = zext v3
  v5:i64 = mul v4, 4:i64
  store.4 obj1[v5], v0
  ret
";
        let k = syncfix_kir::parse(text).unwrap();
        let store = inst_of(&k, |i| matches!(i, InstKind::Store { .. }));
        let t = |x: u32| ThreadId { local: [x, 0, 0], group: [0, 0, 0] };
        let target = Target::Race { object: ObjectId::new(1), insts: [store, store], threads: [t(1), t(0)], offset: 0 };
        let identity = (0..64u64).map(|w| (ObjectId::new(0), 4 * w, w as u8)).collect();
        match run_on(&k, &[], identity, &target) {
            Outcome::Confirmed(w) => {
                assert!(!w.model_memory, "{w:?}");
                assert_eq!(w.search.as_deref(), Some("the memory the model chose left out (zeros)"));
                assert_eq!(w.offset, Some(0));
            }
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn a_confirmed_defects_arguments_are_made_as_small_as_still_reproduce_it() {
        // Every thread writes `A[0]` when `n > 100`; the model chose n = 1000000, and a signed
        // `m` of -5000 plays no part (it becomes 0).
        let text = "kernel k (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]
  param 0 A: ptr obj0
  param 1 n: i32
  param 2 m: i32
  obj0 A: global elem 4
block0:
  v0:i32 = param 1
  v1:i1 = cmp.sgt v0, 100:i32
  br v1, block1, block2
block1:
  v2:i32 = local_id.x
  store.4 obj0[0:i64], v2
  br block2
block2:
  ret
";
        let k = syncfix_kir::parse(text).unwrap();
        let store = inst_of(&k, |i| matches!(i, InstKind::Store { .. }));
        let t = |x: u32| ThreadId { local: [x, 0, 0], group: [0, 0, 0] };
        let target = Target::Race { object: ObjectId::new(0), insts: [store, store], threads: [t(1), t(0)], offset: 0 };
        let input = Input {
            kernel: &k,
            assignment: &[],
            block_dim: [64, 1, 1],
            grid_dim: [1, 1, 1],
            groups: vec![[0, 0, 0]],
            params: vec![(1, 1_000_000), (2, (-5000i32) as u32 as u128)],
            memory: vec![],
            deadline: Instant::now() + Duration::from_secs(10),
            max_steps: 1_000_000,
            warp_sync: None,
        };
        match replay(&input, &target) {
            Outcome::Confirmed(w) => {
                assert_eq!(w.params, vec![(1, 101), (2, 0)]);
                let search = w.search.unwrap();
                assert!(search.contains("`n` made as small as still reproduces it, from the model's 1000000"), "{search}");
                assert!(search.contains("`m` made as small"), "{search}");
            }
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn post_dominators_of_a_diamond_and_a_loop() {
        let text = "kernel k (Cuda) block_dim=[1, 1, 1] grid_dim=[1, 1, 1]
block0:
  v0:i32 = local_id.x
  v1:i1 = cmp.ult v0, 16:i32
  br v1, block1, block2
block1:
  br block3
block2:
  br block3
block3:
  v2:i32 = phi [block3: v3], [block1: 0:i32], [block2: 1:i32]
  v3:i32 = add v2, 1:i32
  v4:i1 = cmp.ult v3, 4:i32
  br v4, block3, block4
block4:
  ret
";
        let k = syncfix_kir::parse(text).unwrap();
        let ipdom = post_dominators(&k);
        assert_eq!(ipdom, vec![3, 3, 3, 4, 5]);
    }
}
