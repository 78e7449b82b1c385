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

mod float;
mod value;

use std::collections::HashMap;
use std::time::{Duration, Instant};
use syncfix_kir::{
    AtomicOp, BlockId, Cfg, EntityRef, Fences, Guard, InstId, InstKind, Kernel, ObjectId, Operand, ParamKind, Scope, Space, Terminator,
    TileMask,
};

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
const MAX_RECORDS: usize = 4_000_000;

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
    Confirmed(Witness),
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
    /// How memory the model does not give started in that run.
    pub fill: Fill,
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
    // The search's inputs, in order: the model's, then memory filled otherwise, then small
    // arguments; each tried only when the runs before give a reason to.
    let small = small_params(k, &input.params);
    let mut first_reason: Option<String> = None;
    let mut tried: Vec<String> = vec![];
    let attempts: [(Fill, bool); 6] =
        [(Fill::Zero, false), (Fill::Small, false), (Fill::Pattern, false), (Fill::Zero, true), (Fill::Small, true), (Fill::Pattern, true)];
    let mut read_input = false;
    let mut too_long = false;
    for (i, &(fill, use_small)) in attempts.iter().enumerate() {
        let wanted = match (fill, use_small) {
            (Fill::Zero, false) => true,
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
        let run = Run { params: &params, fill, deadline: now + budget, budget };
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
        let mut changed = vec![];
        match fill {
            Fill::Zero => {}
            Fill::Small => changed.push("memory filled with 0, 1, 2, ... by word"),
            Fill::Pattern => changed.push("memory filled with a pseudo-random pattern"),
        }
        if use_small {
            changed.push("the model's large arguments made 64");
        }
        match outcome {
            Outcome::Confirmed(mut w) => {
                w.params = params.clone();
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

/// The model's scalar arguments with each large one (as unsigned and as signed number of
/// its width) replaced by 64 (`None` when none is large).
fn small_params(k: &Kernel, params: &[(usize, u128)]) -> Option<Vec<(usize, u128)>> {
    let mut changed = false;
    let out = params
        .iter()
        .map(|&(i, v)| {
            let width = match k.params.get(i).map(|p| &p.kind) {
                Some(ParamKind::Scalar { width }) => *width,
                _ => return (i, v),
            };
            let s = value::signed(v, width);
            if width > 8 && v > LARGE_ARGUMENT && !(-(LARGE_ARGUMENT as i128)..=LARGE_ARGUMENT as i128).contains(&s) {
                changed = true;
                (i, 64)
            } else {
                (i, v)
            }
        })
        .collect();
    changed.then_some(out)
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

/// One run's inputs.
struct Run<'p> {
    params: &'p [(usize, u128)],
    fill: Fill,
    deadline: Instant,
    /// The run's share of the time (for the message when it runs out).
    budget: Duration,
}

/// Where a value the replay could not compute came from: 0 for none, else the index + 1 of
/// the instruction that made it.
type Taint = u32;

fn taint_of(v: InstId) -> Taint {
    v.index() as u32 + 1
}

fn join(a: Taint, b: Taint) -> Taint {
    if a != 0 {
        a
    } else {
        b
    }
}

#[derive(Clone, Debug)]
enum State {
    Run,
    Wait(Wait),
    Done,
    /// Stopped: an assumption failed, unreachable code, or divergence.
    Stopped,
}

#[derive(Copy, Clone, Debug)]
struct Wait {
    inst: InstId,
    scope: WaitScope,
    local: bool,
    global: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum WaitScope {
    Block,
    Grid,
    Tile { size: u32, mask: u32 },
}

/// A byte-addressed memory object: the bytes written or known, and what taints them.
#[derive(Clone, Default)]
struct Mem {
    bytes: HashMap<u64, (u8, Taint)>,
}

struct Thread {
    id: ThreadId,
    /// Index of its block in `Input::groups`.
    block: usize,
    linear: u32,
    vals: Vec<u128>,
    taint: Vec<Taint>,
    at: BlockId,
    idx: usize,
    state: State,
    /// The fences of each block (or grid) barrier it passed, in order: (local, global).
    fenced: Vec<(bool, bool)>,
    tiles: u64,
    grids: u64,
    iters: Vec<u64>,
    private: HashMap<ObjectId, Mem>,
    /// The branches on values it could not compute that it has not left: (the branch's
    /// immediate post-dominator, as an index of `Machine::ipdom`'s, and the taint).
    branches: Vec<(usize, Taint)>,
    /// Its asynchronous copies' records not yet waited for.
    pending: Vec<usize>,
    /// The records of its last access, if that access was one of the race's (two when both
    /// of the race's accesses are one instruction).
    last_records: Vec<usize>,
}

/// One access of a race's instruction: by `thread`, to bytes `lo..hi`, in barrier interval
/// `bar` (block barriers passed) and, for an asynchronous copy, unordered until interval
/// `until` (its wait; `u64::MAX` without one).
#[derive(Clone)]
struct Record {
    thread: usize,
    which: usize,
    lo: u64,
    hi: u64,
    write: bool,
    atomic: bool,
    bar: u64,
    until: u64,
    tiles: u64,
    grids: u64,
    iters: Vec<(u32, u64)>,
    taint: Taint,
}

struct Machine<'a> {
    k: &'a Kernel,
    cfg: &'a Cfg,
    input: &'a Input<'a>,
    run: &'a Run<'a>,
    target: &'a Target,
    threads: Vec<Thread>,
    global: HashMap<ObjectId, Mem>,
    shared: Vec<HashMap<ObjectId, Mem>>,
    initial: HashMap<(ObjectId, u64), u8>,
    header_of: HashMap<BlockId, usize>,
    loop_line: Vec<u32>,
    /// Each block's immediate post-dominator (a block index, or the number of blocks for the
    /// kernel's exit), where the threads that branched there meet again.
    ipdom: &'a [usize],
    records: Vec<Record>,
    /// Divergences seen: (barrier, a thread waiting there, a thread that is not).
    divergences: Vec<(InstId, usize, usize)>,
    /// Whether some thread reached each of the race's two instructions.
    reached: [bool; 2],
    /// Assumptions that failed and unreachable code reached, in words.
    stops: Vec<String>,
    /// Whether the run read memory that neither the model nor the kernel gave.
    read_input: bool,
    /// One past the highest byte touched of each global object.
    extents: HashMap<ObjectId, u64>,
    steps: u64,
}

impl<'a> Machine<'a> {
    fn new(input: &'a Input<'a>, run: &'a Run<'a>, cfg: &'a Cfg, ipdom: &'a [usize], target: &'a Target) -> Self {
        let k = input.kernel;
        let [bx, by, bz] = input.block_dim;
        let mut threads = vec![];
        for (block, &group) in input.groups.iter().enumerate() {
            for z in 0..bz {
                for y in 0..by {
                    for x in 0..bx {
                        threads.push(Thread {
                            id: ThreadId { local: [x, y, z], group },
                            block,
                            linear: x + y * bx + z * bx * by,
                            vals: vec![0; k.insts.len()],
                            taint: vec![0; k.insts.len()],
                            at: k.entry,
                            idx: 0,
                            state: State::Run,
                            fenced: vec![],
                            tiles: 0,
                            grids: 0,
                            iters: vec![0; cfg.loops.len()],
                            private: HashMap::new(),
                            branches: vec![],
                            pending: vec![],
                            last_records: vec![],
                        });
                    }
                }
            }
        }
        let mut initial: HashMap<(ObjectId, u64), u8> = HashMap::new();
        for (o, obj) in k.objects.iter() {
            if let Some(init) = &obj.init {
                for &(off, w, v) in &init.cells {
                    for i in 0..w as u64 {
                        initial.insert((o, off + i), (v >> (8 * i)) as u8);
                    }
                }
            }
        }
        for &(o, off, b) in &input.memory {
            initial.insert((o, off), b);
        }
        let header_of = cfg.loops.iter().enumerate().map(|(i, l)| (l.header, i)).collect();
        let loop_line = cfg.loops.iter().map(|l| loop_line(k, l)).collect();
        let shared = vec![HashMap::new(); input.groups.len()];
        Machine {
            k,
            cfg,
            input,
            run,
            target,
            threads,
            global: HashMap::new(),
            shared,
            initial,
            header_of,
            loop_line,
            ipdom,
            records: vec![],
            divergences: vec![],
            reached: [false; 2],
            stops: vec![],
            read_input: false,
            extents: HashMap::new(),
            steps: 0,
        }
    }

    /// Runs every thread to its end: rounds of running each thread until it waits, then
    /// releasing the barriers whose threads have all arrived.
    fn run(&mut self) -> Result<(), String> {
        loop {
            for t in 0..self.threads.len() {
                while matches!(self.threads[t].state, State::Run) {
                    self.step(t)?;
                }
            }
            if self.threads.iter().all(|t| matches!(t.state, State::Done | State::Stopped)) {
                return Ok(());
            }
            if self.release_tiles() || self.release_blocks() || self.release_grid() {
                continue;
            }
            // Nothing can go on: every waiting thread waits for one that will not come.
            let Some(w) = self.threads.iter().position(|t| matches!(t.state, State::Wait(_))) else { return Ok(()) };
            let State::Wait(wait) = self.threads[w].state else { unreachable!() };
            let other = (0..self.threads.len()).find(|&o| !matches!(&self.threads[o].state, State::Wait(x) if x.inst == wait.inst));
            self.divergences.push((wait.inst, w, other.unwrap_or(w)));
            self.stop_waiting(0..self.threads.len());
        }
    }

    fn stop_waiting(&mut self, threads: impl IntoIterator<Item = usize>) {
        for t in threads {
            if matches!(self.threads[t].state, State::Wait(_)) {
                self.threads[t].state = State::Stopped;
            }
        }
    }

    /// Releases each tile whose named threads all wait at a tile barrier.
    fn release_tiles(&mut self) -> bool {
        let mut released = false;
        let mut seen = std::collections::HashSet::new();
        for t in 0..self.threads.len() {
            let State::Wait(Wait { scope: WaitScope::Tile { size, mask }, .. }) = self.threads[t].state else { continue };
            let size = size.max(1);
            let (block, tile) = (self.threads[t].block, self.threads[t].linear / size);
            if !seen.insert((block, tile, size, mask)) {
                continue;
            }
            let members: Vec<usize> = (0..self.threads.len())
                .filter(|&o| {
                    let th = &self.threads[o];
                    th.block == block && th.linear / size == tile && (mask >> (th.linear % 32)) & 1 == 1
                })
                .collect();
            let ready = members.iter().all(|&o| match &self.threads[o].state {
                State::Wait(w) => matches!(w.scope, WaitScope::Tile { .. }),
                State::Done | State::Stopped => true,
                State::Run => false,
            });
            if ready {
                for o in members.into_iter().chain(std::iter::once(t)) {
                    if matches!(&self.threads[o].state, State::Wait(w) if matches!(w.scope, WaitScope::Tile { .. })) {
                        self.threads[o].state = State::Run;
                        self.threads[o].tiles += 1;
                        released = true;
                    }
                }
            }
        }
        released
    }

    /// The barrier to report a divergence at among `waits`: the target's if some thread
    /// waits there.
    fn divergent_at(&self, waits: &[(usize, Wait)]) -> (InstId, usize) {
        let (first, w0) = waits[0];
        match self.target {
            Target::Divergence { barrier } => {
                waits.iter().find(|(_, w)| w.inst == *barrier).map_or((w0.inst, first), |&(t, w)| (w.inst, t))
            }
            Target::Race { .. } => (w0.inst, first),
        }
    }

    /// Releases each block whose threads all wait at one block barrier; records a divergence
    /// where some wait at a block barrier and the others cannot join them.
    fn release_blocks(&mut self) -> bool {
        let mut released = false;
        for b in 0..self.input.groups.len() {
            let members: Vec<usize> = (0..self.threads.len()).filter(|&t| self.threads[t].block == b).collect();
            let waits: Vec<(usize, Wait)> = members
                .iter()
                .filter_map(|&t| match self.threads[t].state {
                    State::Wait(w) if w.scope == WaitScope::Block => Some((t, w)),
                    _ => None,
                })
                .collect();
            let Some(&(_, w0)) = waits.first() else { continue };
            if waits.len() == members.len() && waits.iter().all(|(_, w)| w.inst == w0.inst) {
                for (t, w) in waits {
                    self.threads[t].fenced.push((w.local, w.global));
                    self.threads[t].state = State::Run;
                }
                released = true;
                continue;
            }
            // Threads still running or waiting at a tile or the grid may yet arrive.
            if members.iter().any(|&t| matches!(&self.threads[t].state, State::Run)) {
                continue;
            }
            let other_waits = members.iter().any(|&t| matches!(&self.threads[t].state, State::Wait(w) if w.scope != WaitScope::Block));
            let mixed = waits.iter().any(|(_, w)| w.inst != w0.inst);
            let left = members.iter().any(|&t| matches!(self.threads[t].state, State::Done | State::Stopped));
            if other_waits && !mixed && !left {
                continue;
            }
            let (at, waiting) = self.divergent_at(&waits);
            let other =
                members.iter().copied().find(|&t| !matches!(&self.threads[t].state, State::Wait(w) if w.inst == at)).unwrap_or(waiting);
            self.divergences.push((at, waiting, other));
            self.stop_waiting(members);
            released = true;
        }
        released
    }

    /// Releases the grid when every thread run waits at one grid barrier (the blocks not run
    /// are taken to arrive too); records a divergence when some wait there and the others have
    /// left or wait elsewhere.
    fn release_grid(&mut self) -> bool {
        let waits: Vec<(usize, Wait)> = (0..self.threads.len())
            .filter_map(|t| match self.threads[t].state {
                State::Wait(w) if w.scope == WaitScope::Grid => Some((t, w)),
                _ => None,
            })
            .collect();
        let Some(&(_, w0)) = waits.first() else { return false };
        if waits.len() == self.threads.len() && waits.iter().all(|(_, w)| w.inst == w0.inst) {
            for (t, w) in waits {
                let th = &mut self.threads[t];
                th.grids += 1;
                th.fenced.push((w.local || w.global, true));
                th.state = State::Run;
            }
            return true;
        }
        if self.threads.iter().any(|t| matches!(t.state, State::Run)) {
            return false;
        }
        let (at, waiting) = self.divergent_at(&waits);
        let other = (0..self.threads.len()).find(|&t| !matches!(&self.threads[t].state, State::Wait(w) if w.inst == at)).unwrap_or(waiting);
        self.divergences.push((at, waiting, other));
        self.stop_waiting(0..self.threads.len());
        true
    }

    fn val(&self, t: usize, op: Operand) -> (u128, Taint) {
        match op {
            Operand::Const { bits, .. } => (bits, 0),
            Operand::Value(v) => (self.threads[t].vals[v.index()], self.threads[t].taint[v.index()]),
        }
    }

    fn set(&mut self, t: usize, v: InstId, x: u128, taint: Taint) {
        let w = self.k.insts[v].width;
        let th = &mut self.threads[t];
        th.vals[v.index()] = x & value::mask(w);
        th.taint[v.index()] = taint;
    }

    fn mem(&mut self, t: usize, o: ObjectId) -> &mut Mem {
        match self.k.objects[o].space {
            Space::Global | Space::Constant => self.global.entry(o).or_default(),
            Space::Shared => {
                let b = self.threads[t].block;
                self.shared[b].entry(o).or_default()
            }
            Space::Private => self.threads[t].private.entry(o).or_default(),
        }
    }

    /// The initial byte at `off` of `o`: the model's or the kernel's, else the run's fill.
    fn initial_byte(&mut self, o: ObjectId, off: u64) -> u8 {
        if let Some(&b) = self.initial.get(&(o, off)) {
            return b;
        }
        let obj = &self.k.objects[o];
        if obj.space == Space::Private && !obj.uniform {
            return 0;
        }
        self.read_input = true;
        match self.run.fill {
            Fill::Zero => 0,
            Fill::Small if off.is_multiple_of(4) => (off / 4 % 3) as u8,
            Fill::Small => 0,
            Fill::Pattern => pattern_byte(o.index() as u32, off),
        }
    }

    fn touch(&mut self, o: ObjectId, off: u64, width: u32) {
        if self.k.objects[o].space == Space::Global {
            let end = off.saturating_add(width as u64);
            let e = self.extents.entry(o).or_insert(0);
            *e = (*e).max(end);
        }
    }

    fn load(&mut self, t: usize, o: ObjectId, off: u64, width: u32) -> (u128, Taint) {
        self.touch(o, off, width);
        let mut v = 0u128;
        let mut taint = 0;
        for i in 0..width.min(16) as u64 {
            let at = off.wrapping_add(i);
            let (b, bt) = match self.mem(t, o).bytes.get(&at) {
                Some(&x) => x,
                None => (self.initial_byte(o, at), 0),
            };
            v |= (b as u128) << (8 * i);
            taint = join(taint, bt);
        }
        (v, taint)
    }

    fn store(&mut self, t: usize, o: ObjectId, off: u64, width: u32, v: u128, taint: Taint) {
        self.touch(o, off, width);
        let mem = self.mem(t, o);
        for i in 0..width.min(16) as u64 {
            mem.bytes.insert(off.wrapping_add(i), ((v >> (8 * i)) as u8, taint));
        }
    }

    /// The loop iterations of thread `t` at block `b`, outermost first.
    fn iterations(&self, t: usize, b: BlockId) -> Vec<(u32, u64)> {
        let mut out = vec![];
        let mut l = self.cfg.loop_of[b];
        while let Some(x) = l {
            out.push((self.loop_line[x], self.threads[t].iters[x]));
            l = self.cfg.loops[x].parent;
        }
        out.reverse();
        out
    }

    fn record(&mut self, t: usize, inst: InstId, o: ObjectId, off: u64, width: u32, write: bool, atomic: bool, taint: Taint) {
        self.threads[t].last_records.clear();
        let Target::Race { object, insts, .. } = self.target else { return };
        if *object != o {
            return;
        }
        for which in 0..2 {
            if insts[which] != inst {
                continue;
            }
            self.reached[which] = true;
            if self.records.len() >= MAX_RECORDS {
                return;
            }
            let th = &self.threads[t];
            let bar = th.fenced.len() as u64;
            let rec = Record {
                thread: t,
                which,
                lo: off,
                hi: off.saturating_add(width as u64),
                write,
                atomic,
                bar,
                until: bar,
                tiles: th.tiles,
                grids: th.grids,
                iters: self.iterations(t, self.k.insts[inst].block),
                taint: join(taint, path_taint(th)),
            };
            self.records.push(rec);
            self.threads[t].last_records.push(self.records.len() - 1);
        }
    }

    /// Executes thread `t`'s next instruction or terminator.
    fn step(&mut self, t: usize) -> Result<(), String> {
        self.steps += 1;
        if self.steps > self.input.max_steps {
            return Err(format!("the replay ran past its budget of {} instructions", self.input.max_steps));
        }
        if self.steps.is_multiple_of(65536) && Instant::now() >= self.run.deadline {
            return Err(format!("the replay ran out of its {:.1} s", self.run.budget.as_secs_f64()));
        }
        let k = self.k;
        let (b, idx) = (self.threads[t].at, self.threads[t].idx);
        let block = &k.blocks[b];
        if idx >= block.insts.len() {
            return self.terminate(t, b);
        }
        self.threads[t].idx += 1;
        let v = block.insts[idx];
        let inst = &k.insts[v];
        match &inst.kind {
            InstKind::Phi { .. } | InstKind::Anchor(_) | InstKind::Candidate { .. } | InstKind::Assert { .. } => {}
            InstKind::Permission { .. } | InstKind::External { .. } => {}
            InstKind::AsyncPending { object } => {
                // The thread's last access, to `object`, is an asynchronous copy's.
                for i in self.threads[t].last_records.clone() {
                    if matches!(self.target, Target::Race { object: o, .. } if o == object) && self.records[i].until != u64::MAX {
                        // Which thread copies which element is the implementation's choice
                        // (the verifier's arbitrary share and rotation): any is a real run.
                        self.records[i].taint = 0;
                        self.records[i].until = u64::MAX;
                        self.threads[t].pending.push(i);
                    }
                }
            }
            InstKind::AsyncWait { guard } => {
                let on = match guard {
                    Guard::Always => true,
                    Guard::Var(var) => self.input.assignment.get(var.index()).copied().unwrap_or(true),
                };
                if on {
                    let now = self.threads[t].fenced.len() as u64;
                    for i in std::mem::take(&mut self.threads[t].pending) {
                        self.records[i].until = now;
                    }
                }
            }
            InstKind::Param { index } => {
                let x = self.run.params.iter().find(|(i, _)| i == index).map_or(0, |(_, x)| *x);
                self.set(t, v, x, 0);
            }
            InstKind::Builtin(bi) => {
                let th = &self.threads[t];
                let x = match bi {
                    syncfix_kir::Builtin::LocalId(d) => th.id.local[*d as usize],
                    syncfix_kir::Builtin::GroupId(d) => th.id.group[*d as usize],
                    syncfix_kir::Builtin::LocalSize(d) => self.input.block_dim[*d as usize],
                    syncfix_kir::Builtin::NumGroups(d) => self.input.grid_dim[*d as usize],
                };
                self.set(t, v, x as u128, 0);
            }
            InstKind::Havoc => self.set(t, v, 0, taint_of(v)),
            InstKind::Bin { op, lhs, rhs } => {
                let ((a, ta), (c, tc)) = (self.val(t, *lhs), self.val(t, *rhs));
                self.set(t, v, value::bin(*op, a, c, inst.width), join(ta, tc));
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let ((a, ta), (c, tc)) = (self.val(t, *lhs), self.val(t, *rhs));
                let r = value::cmp(*pred, a, c, k.width(*lhs));
                self.set(t, v, r as u128, join(ta, tc));
            }
            InstKind::Cast { op, arg } => {
                let (a, ta) = self.val(t, *arg);
                self.set(t, v, value::cast(*op, a, k.width(*arg), inst.width), ta);
            }
            InstKind::Select { cond, then, els } => {
                let (c, tc) = self.val(t, *cond);
                let (x, tx) = self.val(t, if c & 1 == 1 { *then } else { *els });
                self.set(t, v, x, join(tc, tx));
            }
            InstKind::Float { func, args } => {
                let vals: Vec<(u128, u16)> = args.iter().map(|a| (self.val(t, *a).0, k.width(*a))).collect();
                let taint = args.iter().fold(0, |acc, a| join(acc, self.val(t, *a).1));
                match float::eval(func, &vals, inst.width) {
                    Some(x) => self.set(t, v, x, taint),
                    // An asynchronous copy's rotation (the prelude's model: thread `t` copies
                    // element `t + r`): 1, each element copied by another thread than the one
                    // that reads it in place, a distribution an implementation may choose.
                    None if func.starts_with("__syncfix_async_rotation") => self.set(t, v, 1, 0),
                    None => {
                        // Deterministic: the same function of the same arguments gives the same value.
                        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
                        for byte in func.bytes().chain(vals.iter().flat_map(|(x, _)| x.to_le_bytes())) {
                            h = (h ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
                        }
                        self.set(t, v, h as u128, taint_of(v));
                    }
                }
            }
            InstKind::Load { ptr, width } | InstKind::SpecLoad { ptr, width } => {
                let (off, to) = self.val(t, ptr.offset);
                let (x, tx) = self.load(t, ptr.object, off as u64, *width);
                if matches!(inst.kind, InstKind::Load { .. }) {
                    self.record(t, v, ptr.object, off as u64, *width, false, false, to);
                }
                self.set(t, v, x, join(tx, to));
            }
            InstKind::Store { ptr, value: val, width } => {
                let (off, to) = self.val(t, ptr.offset);
                let (x, tx) = self.val(t, *val);
                self.record(t, v, ptr.object, off as u64, *width, true, false, to);
                self.store(t, ptr.object, off as u64, *width, x, tx);
            }
            InstKind::Atomic { op, ptr, args, width } => self.atomic(t, v, *op, ptr.object, ptr.offset, args, *width),
            InstKind::Barrier(bar) => {
                let on = match bar.guard {
                    Guard::Always => true,
                    Guard::Var(var) => self.input.assignment.get(var.index()).copied().unwrap_or(true),
                };
                if on {
                    let (local, global) = match bar.fences {
                        Fences::Const { local, global } => (local, global),
                        Fences::Dynamic(o) => {
                            let f = self.val(t, o).0;
                            (f & 1 == 1, f & 2 == 2)
                        }
                    };
                    let scope = match bar.scope {
                        Scope::Block => WaitScope::Block,
                        Scope::Grid => WaitScope::Grid,
                        Scope::Tile { size, mask } => WaitScope::Tile {
                            size,
                            mask: match mask {
                                TileMask::Const(m) => m,
                                TileMask::Dynamic(o) => self.val(t, o).0 as u32,
                            },
                        },
                    };
                    self.threads[t].state = State::Wait(Wait { inst: v, scope, local, global });
                }
            }
            InstKind::Assume { cond } => {
                if self.val(t, *cond).0 & 1 == 0 {
                    self.stops.push(format!("an assumption at {} does not hold for {}", place(k, v), self.describe(t)));
                    self.threads[t].state = State::Stopped;
                }
            }
            InstKind::Enabled => self.set(t, v, 1, 0),
            InstKind::Other { arg } | InstKind::Old { arg } => {
                let (x, tx) = self.val(t, *arg);
                self.set(t, v, x, tx);
            }
            InstKind::LogQuery { .. } | InstKind::AtomicTaken { .. } => self.set(t, v, 0, taint_of(v)),
            InstKind::Snapshot { dst, src } => {
                let copy = self.mem(t, *src).clone();
                *self.mem(t, *dst) = copy;
            }
        }
        Ok(())
    }

    /// An atomic read-modify-write of `width` bytes of `o` at `offset`; its value the old one.
    fn atomic(&mut self, t: usize, v: InstId, op: AtomicOp, o: ObjectId, offset: Operand, args: &[Operand], width: u32) {
        let (off, to) = self.val(t, offset);
        let (old, told) = self.load(t, o, off as u64, width);
        let bits = (width * 8) as u16;
        let arg = |i: usize| args.get(i).map_or((0, 0), |a| self.val(t, *a));
        let ((a, ta), (c, tc)) = (arg(0), arg(1));
        let f = |name: &str| float::eval(&format!("{name}.{bits}"), &[(old, bits), (a, bits)], bits);
        let new = match op {
            AtomicOp::Xchg => Some(a),
            AtomicOp::Add => Some(value::bin(syncfix_kir::BinOp::Add, old, a, bits)),
            AtomicOp::Sub => Some(value::bin(syncfix_kir::BinOp::Sub, old, a, bits)),
            AtomicOp::And => Some(old & a),
            AtomicOp::Or => Some(old | a),
            AtomicOp::Xor => Some(old ^ a),
            AtomicOp::Max => Some(if value::signed(old, bits) >= value::signed(a, bits) { old } else { a }),
            AtomicOp::Min => Some(if value::signed(old, bits) <= value::signed(a, bits) { old } else { a }),
            AtomicOp::UMax => Some(old.max(a)),
            AtomicOp::UMin => Some(old.min(a)),
            AtomicOp::FAdd => f("fadd"),
            AtomicOp::FSub => f("fsub"),
            AtomicOp::Inc => Some(if old >= a { 0 } else { old + 1 }),
            AtomicOp::Dec => Some(if old == 0 || old > a { a } else { old - 1 }),
            AtomicOp::CmpXchg => Some(if old == a { c } else { old }),
            AtomicOp::Other => None,
        };
        self.record(t, v, o, off as u64, width, true, true, to);
        match new {
            Some(n) => self.store(t, o, off as u64, width, n, join(told, join(ta, tc))),
            None => self.store(t, o, off as u64, width, old, taint_of(v)),
        }
        self.set(t, v, old, join(told, to));
    }

    fn terminate(&mut self, t: usize, b: BlockId) -> Result<(), String> {
        let k = self.k;
        let next = match &k.blocks[b].term {
            Terminator::Br(n) => *n,
            Terminator::CondBr { cond, then, els } => {
                let (c, tc) = self.val(t, *cond);
                self.tainted_branch(t, b, tc);
                if c & 1 == 1 {
                    *then
                } else {
                    *els
                }
            }
            Terminator::Switch { value, default, cases } => {
                let (x, tx) = self.val(t, *value);
                self.tainted_branch(t, b, tx);
                cases.iter().find(|(c, _)| *c == x).map_or(*default, |(_, n)| *n)
            }
            Terminator::Return => {
                self.threads[t].state = State::Done;
                return Ok(());
            }
            Terminator::Unreachable => {
                self.stops.push(format!("{} reached code the compiler marked unreachable", self.describe(t)));
                self.threads[t].state = State::Stopped;
                return Ok(());
            }
        };
        // Loop iterations: entering a header from inside its loop is the next iteration.
        if let Some(&l) = self.header_of.get(&next) {
            let th = &mut self.threads[t];
            th.iters[l] = if self.cfg.in_loop(b, l) { th.iters[l] + 1 } else { 0 };
        }
        // Where the branches on tainted values meet again, the values the branch chose (the
        // phis) carry the taint.
        let th = &mut self.threads[t];
        let met = th.branches.iter().filter(|(at, _)| *at == next.index()).fold(0, |acc, (_, x)| join(acc, *x));
        th.branches.retain(|(at, _)| *at != next.index());
        // The phis of the next block, all at once from the values at the edge.
        let phis: Vec<(InstId, (u128, Taint))> = k.blocks[next]
            .insts
            .iter()
            .map_while(|&p| match &k.insts[p].kind {
                InstKind::Phi { incoming } => Some((p, incoming)),
                _ => None,
            })
            .filter_map(|(p, incoming)| incoming.iter().find(|(from, _)| *from == b).map(|(_, o)| (p, self.val(t, *o))))
            .collect();
        for (p, (x, tx)) in phis {
            self.set(t, p, x, join(tx, met));
        }
        let th = &mut self.threads[t];
        th.at = next;
        th.idx = 0;
        Ok(())
    }

    /// Thread `t` branches at the end of `b` on a value tainted by `taint` (0: untainted):
    /// what it does until the branch's post-dominator depends on that value.
    fn tainted_branch(&mut self, t: usize, b: BlockId, taint: Taint) {
        if taint == 0 {
            return;
        }
        let meet = self.ipdom[b.index()];
        let th = &mut self.threads[t];
        if !th.branches.iter().any(|(at, _)| *at == meet) {
            th.branches.push((meet, taint));
        }
    }

    fn describe(&self, t: usize) -> String {
        let id = self.threads[t].id;
        format!("thread {} of block {}", dims(id.local), dims(id.group))
    }

    /// Whether two records race: different threads, a common byte, a write, not both
    /// atomic, and no barrier that orders them.
    fn races(&self, a: &Record, b: &Record, space: Space) -> bool {
        if a.thread == b.thread || !(a.write || b.write) || (a.atomic && b.atomic) || a.lo >= b.hi || b.lo >= a.hi {
            return false;
        }
        let (ta, tb) = (&self.threads[a.thread], &self.threads[b.thread]);
        match space {
            Space::Private | Space::Constant => return false,
            Space::Shared if ta.block != tb.block => return false,
            _ => {}
        }
        if ta.block != tb.block {
            return a.grids == b.grids;
        }
        if ta.linear / 32 == tb.linear / 32 && a.tiles != b.tiles {
            return false;
        }
        if let (Some(w), Target::Race { insts, .. }) = (self.input.warp_sync.filter(|&w| w > 0), self.target) {
            if ta.linear / w == tb.linear / w {
                return insts[0] == insts[1] && a.iters == b.iters;
            }
        }
        // A block barrier between the two intervals that fenced this space for both threads.
        let (early, late) = if a.until < b.bar {
            (a, b)
        } else if b.until < a.bar {
            (b, a)
        } else {
            return true;
        };
        let (te, tl) = (&self.threads[early.thread], &self.threads[late.thread]);
        let covers = |f: &(bool, bool)| if space == Space::Shared { f.0 } else { f.1 };
        !(early.until..late.bar).any(|j| {
            let j = j as usize;
            te.fenced.get(j).is_some_and(covers) && tl.fenced.get(j).is_some_and(covers)
        })
    }

    /// The outcome, when the replay reproduced the target (or found only what depends on a
    /// value it could not compute).
    fn judge(&self) -> Option<Outcome> {
        match self.target {
            Target::Divergence { barrier } => {
                let &(_, w, o) = self.divergences.iter().find(|(at, _, _)| at == barrier)?;
                Some(Outcome::Confirmed(Witness {
                    threads: [self.threads[w].id, self.threads[o].id],
                    offset: None,
                    iterations: [vec![], vec![]],
                    trace_threads: false,
                    params: vec![],
                    search: None,
                    fill: self.run.fill,
                    extents: self.extents(),
                }))
            }
            Target::Race { object, threads, offset, .. } => {
                let space = self.k.objects[*object].space;
                let mut by_byte: HashMap<u64, Vec<usize>> = HashMap::new();
                for (i, r) in self.records.iter().enumerate().filter(|(_, r)| r.which == 1) {
                    for byte in r.lo..r.hi.min(r.lo + 16) {
                        by_byte.entry(byte).or_default().push(i);
                    }
                }
                let mut best: Option<(u8, &Record, &Record, u64)> = None;
                let mut tainted: Taint = 0;
                let mut checks: u64 = 0;
                'outer: for a in self.records.iter().filter(|r| r.which == 0) {
                    for byte in a.lo..a.hi.min(a.lo + 16) {
                        for &j in by_byte.get(&byte).map_or(&[][..], |v| v.as_slice()) {
                            checks += 1;
                            if checks > 50_000_000 {
                                break 'outer;
                            }
                            let b = &self.records[j];
                            if !self.races(a, b, space) {
                                continue;
                            }
                            if a.taint != 0 || b.taint != 0 {
                                tainted = join(tainted, join(a.taint, b.taint));
                                continue;
                            }
                            let ids = [self.threads[a.thread].id, self.threads[b.thread].id];
                            let rank = (ids == *threads) as u8 * 2 + (byte == *offset) as u8;
                            if best.as_ref().is_none_or(|(r, ..)| rank > *r) {
                                best = Some((rank, a, b, byte));
                            }
                            if rank == 3 {
                                break 'outer;
                            }
                        }
                    }
                }
                match best {
                    Some((rank, a, b, byte)) => Some(Outcome::Confirmed(Witness {
                        threads: [self.threads[a.thread].id, self.threads[b.thread].id],
                        offset: Some(byte),
                        iterations: [a.iters.clone(), b.iters.clone()],
                        trace_threads: rank >= 2,
                        params: vec![],
                        search: None,
                        fill: self.run.fill,
                        extents: self.extents(),
                    })),
                    None if tainted != 0 => Some(Outcome::Possible(format!(
                        "the accesses meet in the replay only through {}, which the replay cannot compute",
                        self.taint_source(tainted)
                    ))),
                    None => None,
                }
            }
        }
    }

    fn extents(&self) -> Vec<(ObjectId, u64)> {
        let mut v: Vec<(ObjectId, u64)> = self.extents.iter().map(|(o, e)| (*o, *e)).collect();
        v.sort();
        v
    }

    /// What made a tainted value, in words.
    fn taint_source(&self, taint: Taint) -> String {
        let v = InstId::new(taint as usize - 1);
        let at = place(self.k, v);
        match &self.k.insts[v].kind {
            InstKind::Float { func, .. } => {
                format!("the value of `{}` at {at}", func.rsplit_once('.').map_or(func.as_str(), |(f, _)| f))
            }
            InstKind::Havoc => format!(
                "a value the front end does not model at {at} (an undefined value, or a call's result or choice it leaves arbitrary)"
            ),
            InstKind::Atomic { .. } => format!("the result of an atomic operation at {at} that the replay does not model"),
            _ => format!("a specification's value at {at}"),
        }
    }

    /// Why the replay did not reproduce the target (it ran to its end).
    fn not_reproduced(&self) -> String {
        let mut why = match self.target {
            Target::Divergence { barrier } => match self.divergences.first() {
                Some(&(at, _, _)) => {
                    format!("the replay diverges at the barrier at {} instead of the one at {}", place(self.k, at), place(self.k, *barrier))
                }
                None => format!("every thread of the replay reaches the barrier at {} together", place(self.k, *barrier)),
            },
            Target::Race { insts, .. } => match self.reached {
                [false, _] => format!("no thread of the replay reaches the access at {}", place(self.k, insts[0])),
                [_, false] => format!("no thread of the replay reaches the access at {}", place(self.k, insts[1])),
                _ => format!(
                    "the accesses at {} and {} never touch a common byte without a barrier between them in the replay",
                    place(self.k, insts[0]),
                    place(self.k, insts[1])
                ),
            },
        };
        if let Some(s) = self.stops.first() {
            why.push_str(&format!(" ({s})"));
        }
        why
    }
}

/// The taint of a thread's path: the first branch on a tainted value it has not left.
fn path_taint(th: &Thread) -> Taint {
    th.branches.first().map_or(0, |(_, x)| *x)
}

/// Each block's immediate post-dominator: a block index, or `k.blocks.len()` (the exit) for
/// a block every path from which leaves the kernel without meeting another, or for a block
/// from which the exit cannot be reached. Cooper, Harvey and Kennedy's algorithm on the
/// reversed CFG, rooted at a virtual exit that every `ret` and `unreachable` leads to.
fn post_dominators(k: &Kernel) -> Vec<usize> {
    let n = k.blocks.len();
    let exit = n;
    let succs: Vec<Vec<usize>> = k
        .blocks
        .values()
        .map(|b| {
            let s: Vec<usize> = b.term.successors().iter().map(|x| x.index()).collect();
            if s.is_empty() {
                vec![exit]
            } else {
                s
            }
        })
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![vec![]; n + 1];
    for (b, ss) in succs.iter().enumerate() {
        for &x in ss {
            preds[x].push(b);
        }
    }
    // Post-order of the reversed graph from the exit (iterative DFS).
    let mut order = vec![];
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(exit, 0usize)];
    seen[exit] = true;
    while let Some((x, i)) = stack.pop() {
        if i < preds[x].len() {
            stack.push((x, i + 1));
            let p = preds[x][i];
            if !seen[p] {
                seen[p] = true;
                stack.push((p, 0));
            }
        } else {
            order.push(x);
        }
    }
    let mut number = vec![usize::MAX; n + 1];
    for (i, &x) in order.iter().enumerate() {
        number[x] = i;
    }
    let mut ipdom = vec![usize::MAX; n + 1];
    ipdom[exit] = exit;
    let mut changed = true;
    while changed {
        changed = false;
        for &x in order.iter().rev() {
            if x == exit {
                continue;
            }
            let mut new = usize::MAX;
            for &s in &succs[x] {
                if ipdom[s] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    s
                } else {
                    let (mut a, mut b) = (s, new);
                    while a != b {
                        while number[a] < number[b] {
                            a = ipdom[a];
                        }
                        while number[b] < number[a] {
                            b = ipdom[b];
                        }
                    }
                    a
                };
            }
            if new != usize::MAX && ipdom[x] != new {
                ipdom[x] = new;
                changed = true;
            }
        }
    }
    ipdom.truncate(n);
    ipdom.into_iter().map(|x| if x == usize::MAX { exit } else { x }).collect()
}

/// `x` or `(x, y)` or `(x, y, z)`: trailing dimensions of 0 left out.
fn dims(d: [u32; 3]) -> String {
    match d {
        [x, 0, 0] => x.to_string(),
        [x, y, 0] => format!("({x}, {y})"),
        [x, y, z] => format!("({x}, {y}, {z})"),
    }
}

/// `line L` of the main file where instruction `v` stands (or was inlined from), else
/// `FILE:L` of the header it stands in.
fn place(k: &Kernel, v: InstId) -> String {
    let span = &k.insts[v].span;
    match (span.in_main(), span.top()) {
        (Some(l), _) => format!("line {}", l.line),
        (None, Some(l)) => {
            let path = &k.files[l.file].path;
            format!("{}:{}", path.rsplit('/').next().unwrap_or(path), l.line)
        }
        (None, None) => "a place without a source location".into(),
    }
}

/// The source line of a loop: the first line of the kernel's file among its blocks'
/// instructions and terminators (the `for` or `while` line), 0 when none is in the file.
fn loop_line(k: &Kernel, l: &syncfix_kir::Loop) -> u32 {
    l.blocks
        .iter()
        .flat_map(|&b| {
            let block = &k.blocks[b];
            block.insts.iter().filter_map(|&i| k.insts[i].span.in_main()).chain(block.term_span.in_main())
        })
        .map(|l| l.line)
        .filter(|&line| line > 0)
        .min()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let input = Input {
            kernel: k,
            assignment,
            block_dim: [64, 1, 1],
            grid_dim: [1, 1, 1],
            groups: vec![[0, 0, 0]],
            params: vec![],
            memory: vec![],
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
