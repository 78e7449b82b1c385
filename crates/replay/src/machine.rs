//! The machine of a replay: threads, memory, the records of the race's accesses, and the
//! schedule that runs each thread until it waits and releases the barriers whose threads have
//! all arrived.

use crate::graph::loop_line;
use crate::{Fill, Input, Target, ThreadId};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use syncfix_kir::{BlockId, Cfg, EntityRef, InstId, Kernel, ObjectId};

/// One run's inputs.
pub(crate) struct Run<'p> {
    pub(crate) params: &'p [(usize, u128)],
    pub(crate) fill: Fill,
    /// Whether the run starts from the memory the model chose ([`crate::Input::memory`]).
    pub(crate) model_memory: bool,
    pub(crate) deadline: Instant,
    /// The run's share of the time (for the message when it runs out).
    pub(crate) budget: Duration,
}

/// Where a value the replay could not compute came from: 0 for none, else the index + 1 of
/// the instruction that made it.
pub(crate) type Taint = u32;

pub(crate) fn taint_of(v: InstId) -> Taint {
    v.index() as u32 + 1
}

pub(crate) fn join(a: Taint, b: Taint) -> Taint {
    if a != 0 {
        a
    } else {
        b
    }
}

#[derive(Clone, Debug)]
pub(crate) enum State {
    Run,
    Wait(Wait),
    Done,
    /// Stopped: an assumption failed, unreachable code, or divergence.
    Stopped,
}

#[derive(Copy, Clone, Debug)]
pub(crate) struct Wait {
    pub(crate) inst: InstId,
    pub(crate) scope: WaitScope,
    pub(crate) local: bool,
    pub(crate) global: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum WaitScope {
    Block,
    Grid,
    Tile { size: u32, mask: u32 },
}

/// A byte-addressed memory object: the bytes written or known, and what taints them.
#[derive(Clone, Default)]
pub(crate) struct Mem {
    pub(crate) bytes: HashMap<u64, (u8, Taint)>,
}

pub(crate) struct Thread {
    pub(crate) id: ThreadId,
    /// Index of its block in `Input::groups`.
    pub(crate) block: usize,
    pub(crate) linear: u32,
    pub(crate) vals: Vec<u128>,
    pub(crate) taint: Vec<Taint>,
    pub(crate) at: BlockId,
    pub(crate) idx: usize,
    pub(crate) state: State,
    /// The fences of each block (or grid) barrier it passed, in order: (local, global).
    pub(crate) fenced: Vec<(bool, bool)>,
    pub(crate) tiles: u64,
    pub(crate) grids: u64,
    pub(crate) iters: Vec<u64>,
    pub(crate) private: HashMap<ObjectId, Mem>,
    /// The branches on values it could not compute that it has not left: (the branch's
    /// immediate post-dominator, as an index of `Machine::ipdom`'s, and the taint).
    pub(crate) branches: Vec<(usize, Taint)>,
    /// Its asynchronous copies' records not yet waited for.
    pub(crate) pending: Vec<usize>,
    /// The records of its last access, if that access was one of the race's (two when both
    /// of the race's accesses are one instruction).
    pub(crate) last_records: Vec<usize>,
}

/// One access of a race's instruction: by `thread`, to bytes `lo..hi`, in barrier interval
/// `bar` (block barriers passed) and, for an asynchronous copy, unordered until interval
/// `until` (its wait; `u64::MAX` without one).
#[derive(Clone)]
pub(crate) struct Record {
    pub(crate) thread: usize,
    pub(crate) which: usize,
    pub(crate) lo: u64,
    pub(crate) hi: u64,
    pub(crate) write: bool,
    pub(crate) atomic: bool,
    pub(crate) bar: u64,
    pub(crate) until: u64,
    pub(crate) tiles: u64,
    pub(crate) grids: u64,
    pub(crate) iters: Vec<(u32, u64)>,
    pub(crate) taint: Taint,
}

pub(crate) struct Machine<'a> {
    pub(crate) k: &'a Kernel,
    pub(crate) cfg: &'a Cfg,
    pub(crate) input: &'a Input<'a>,
    pub(crate) run: &'a Run<'a>,
    pub(crate) target: &'a Target,
    pub(crate) threads: Vec<Thread>,
    pub(crate) global: HashMap<ObjectId, Mem>,
    pub(crate) shared: Vec<HashMap<ObjectId, Mem>>,
    pub(crate) initial: HashMap<(ObjectId, u64), u8>,
    pub(crate) header_of: HashMap<BlockId, usize>,
    pub(crate) loop_line: Vec<u32>,
    /// Each block's immediate post-dominator (a block index, or the number of blocks for the
    /// kernel's exit), where the threads that branched there meet again.
    pub(crate) ipdom: &'a [usize],
    pub(crate) records: Vec<Record>,
    /// Divergences seen: (barrier, a thread waiting there, a thread that is not).
    pub(crate) divergences: Vec<(InstId, usize, usize)>,
    /// Whether some thread reached each of the race's two instructions.
    pub(crate) reached: [bool; 2],
    /// Assumptions that failed and unreachable code reached, in words.
    pub(crate) stops: Vec<String>,
    /// Whether the run read memory that neither the model nor the kernel gave.
    pub(crate) read_input: bool,
    /// One past the highest byte touched of each global object.
    pub(crate) extents: HashMap<ObjectId, u64>,
    pub(crate) steps: u64,
}

impl<'a> Machine<'a> {
    pub(crate) fn new(input: &'a Input<'a>, run: &'a Run<'a>, cfg: &'a Cfg, ipdom: &'a [usize], target: &'a Target) -> Self {
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
        if run.model_memory {
            for &(o, off, b) in &input.memory {
                initial.insert((o, off), b);
            }
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
    pub(crate) fn run(&mut self) -> Result<(), String> {
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

    pub(crate) fn stop_waiting(&mut self, threads: impl IntoIterator<Item = usize>) {
        for t in threads {
            if matches!(self.threads[t].state, State::Wait(_)) {
                self.threads[t].state = State::Stopped;
            }
        }
    }

    /// Releases each tile whose named threads all wait at a tile barrier.
    pub(crate) fn release_tiles(&mut self) -> bool {
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
    pub(crate) fn divergent_at(&self, waits: &[(usize, Wait)]) -> (InstId, usize) {
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
    pub(crate) fn release_blocks(&mut self) -> bool {
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
    pub(crate) fn release_grid(&mut self) -> bool {
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
}
