//! Confirmation of races and divergences by a concrete replay of their traces (issue 29):
//! the trace's launch, blocks and scalar arguments given to `syncfix-replay`, and its answer
//! put on the finding.

use crate::harness::harness;
use crate::report::{Finding, LoopIteration, Replay, ThreadDesc, Witness};
use std::time::{Duration, Instant};
use syncfix_kir::Kernel;
use syncfix_replay::{Input, Outcome, Target, ThreadId};
use syncfix_verify::{Defect, Trace};

/// The longest a replay runs (within the caller's deadline, and at most three quarters of the
/// time left before it, so that the call still ends in time; the facade replays once every
/// kernel of the file has its verdict).
const BUDGET: Duration = Duration::from_secs(3);

/// At most this many elements of the memory the model chose are shown with a confirmed
/// defect ([`Witness::memory`]).
pub const MAX_MEMORY_SHOWN: usize = 16;

/// Instructions a replay executes at most, over all threads.
const MAX_STEPS: u64 = 400_000_000;

/// Puts the replay of `t` (a trace of kernel `k`, the kernel it was found on) on `f`, its
/// finding, when `t` is a race or a divergence. Runs until `deadline` at the latest (and at
/// most [`BUDGET`]); `warp_sync` is the verifier's `--warp-sync`.
pub(crate) fn confirm(k: &Kernel, t: &Trace, f: &mut Finding, deadline: Option<Instant>, warp_sync: Option<u32>, emit_harness: bool) {
    let headline = f.headline();
    let (target, slot) = match (&t.defect, f) {
        (Defect::Race(r), Finding::Race { replay, .. }) => {
            let ids = |i: usize| ThreadId { local: t.threads[i].local, group: t.threads[i].group };
            let target =
                Target::Race { object: r.object, insts: [r.first.inst, r.second.inst], threads: [ids(0), ids(1)], offset: r.offset };
            (target, replay)
        }
        (Defect::Divergence { barrier, .. }, Finding::Divergence { replay, .. }) => (Target::Divergence { barrier: *barrier }, replay),
        _ => return,
    };
    let groups = if t.same_group { vec![t.threads[0].group] } else { vec![t.threads[0].group, t.threads[1].group] };
    let now = Instant::now();
    let share = deadline.map_or(BUDGET, |d| d.saturating_duration_since(now) * 3 / 4);
    let limit = now + BUDGET.min(share);
    let input = Input {
        kernel: k,
        assignment: &t.assignment,
        block_dim: t.threads[0].block_dim,
        grid_dim: t.threads[0].grid_dim,
        groups,
        params: t.params.clone(),
        memory: t.memory.clone(),
        deadline: deadline.map_or(limit, |d| d.min(limit)),
        max_steps: MAX_STEPS,
        warp_sync,
    };
    // An access an external (specified) function makes has no code to run.
    let external = matches!(&t.defect, Defect::Race(r) if r.first.external);
    let outcome = if external {
        Outcome::Possible("its first access is made by an external function, which the replay does not run".into())
    } else {
        syncfix_replay::replay(&input, &target)
    };
    let witness = match &outcome {
        Outcome::Confirmed(w) => Some(&**w),
        Outcome::Possible(_) => None,
    };
    let made = emit_harness.then(|| {
        let params = witness.map_or(&t.params, |w| &w.params);
        let memory: &[_] = if witness.is_none_or(|w| w.model_memory) { &input.memory } else { &[] };
        // The launch of the run that reproduced it (made small where the kernel leaves it
        // symbolic), else the trace's.
        let (grid, block, ran) =
            witness.map_or((input.grid_dim, input.block_dim, input.groups.len()), |w| (w.grid_dim, w.block_dim, w.groups.len()));
        harness(k, &k.main_file().path, &headline, grid, block, params, witness, memory, ran as u64)
    });
    let mut r = match outcome {
        Outcome::Confirmed(w) => Replay {
            confirmed: true,
            // The threads as the run that reproduced it launched them.
            witness: Some(Box::new(Witness {
                threads: w.threads.map(|id: ThreadId| ThreadDesc {
                    local: id.local,
                    group: id.group,
                    block_dim: w.block_dim,
                    grid_dim: w.grid_dim,
                }),
                trace_threads: w.trace_threads,
                element: match (&t.defect, w.offset) {
                    (Defect::Race(r), Some(o)) => {
                        // The element that holds the byte where the accesses meet.
                        let size = match k.objects[r.object].elem_size {
                            0 => r.width.max(1) as u64,
                            s => s as u64,
                        };
                        Some(crate::report::element(k, r.object, o - o % size, size as u32))
                    }
                    _ => None,
                },
                offset: w.offset,
                iterations: w.iterations.map(|its| its.into_iter().map(|(line, iteration)| LoopIteration { line, iteration }).collect()),
                arguments: w.params.iter().filter_map(|&(i, v)| k.params.get(i).map(|p| (p.name.clone(), v))).collect(),
                memory: if w.model_memory { chosen_elements(k, &input.memory) } else { vec![] },
                search: w.search,
            })),
            reason: None,
            harness: None,
        },
        Outcome::Possible(why) if !t.exact && !external => possible(&format!(
            "{why}; the verifier's trace is not exact (a loop cut at its head or an array abstracted), so its values need not occur"
        )),
        Outcome::Possible(why) => possible(&why),
    };
    r.harness = made;
    *slot = Some(Box::new(r));
}

/// The elements of `memory` (object, byte offset, byte: what the model chose) that hold a
/// byte other than zero, with their values (little-endian, missing bytes zero), in the order
/// of objects and offsets, at most [`MAX_MEMORY_SHOWN`].
fn chosen_elements(k: &Kernel, memory: &[(syncfix_kir::ObjectId, u64, u8)]) -> Vec<(String, u128)> {
    let mut elements: std::collections::BTreeMap<(syncfix_kir::ObjectId, u64), u128> = std::collections::BTreeMap::new();
    for &(o, off, b) in memory {
        let size = u64::from(k.objects[o].elem_size.clamp(1, 16));
        let v = elements.entry((o, off - off % size)).or_insert(0);
        *v |= u128::from(b) << (8 * (off % size));
    }
    elements
        .into_iter()
        .filter(|(_, v)| *v != 0)
        .take(MAX_MEMORY_SHOWN)
        .map(|((o, off), v)| (crate::report::element(k, o, off, k.objects[o].elem_size.clamp(1, 16)), v))
        .collect()
}

/// Marks `f` (a race or a divergence without a replay) possible because it could not be
/// replayed: `why`.
pub(crate) fn not_replayed(f: &mut Finding, why: &str) {
    if let Finding::Race { replay, .. } | Finding::Divergence { replay, .. } = f {
        if replay.is_none() {
            *replay = Some(Box::new(possible(why)));
        }
    }
}

fn possible(why: &str) -> Replay {
    Replay { confirmed: false, witness: None, reason: Some(why.to_string()), harness: None }
}
