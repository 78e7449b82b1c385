//! Making a confirmed defect's witness small (issue 29): its scalar arguments bisected toward
//! zero, its symbolic launch cut to the blocks run and each symbolic block dimension
//! bisected, each step a run that must still reproduce the defect.

use super::*;

/// At most this many runs are spent making a confirmed defect's arguments small.
const MAX_PROBES: u32 = 48;

/// A run of one defect's replay with other scalar arguments (the rest as the confirming run
/// had them), to make a confirmed defect's arguments as small as still reproduce it.
pub(crate) struct Probe<'a, 'i> {
    pub(crate) input: &'a Input<'i>,
    pub(crate) target: &'a Target,
    pub(crate) cfg: &'a Cfg,
    pub(crate) ipdom: &'a [usize],
    pub(crate) fill: Fill,
    pub(crate) model_memory: bool,
    /// How long the confirming run took.
    pub(crate) took: Duration,
}

impl Probe<'_, '_> {
    /// The witness of a run with `params`, if it reproduces the defect within a few times
    /// the confirming run's time (and the input's deadline).
    fn run(&self, params: &[(usize, u128)]) -> Option<Witness> {
        self.run_on(self.input, params)
    }

    /// [`Probe::run`] on `input` (the launch changed).
    fn run_on(&self, input: &Input<'_>, params: &[(usize, u128)]) -> Option<Witness> {
        let now = Instant::now();
        let budget = (self.took * 4).max(Duration::from_millis(20));
        let deadline = (now + budget).min(self.input.deadline);
        if now >= deadline {
            return None;
        }
        let run = Run { params, fill: self.fill, model_memory: self.model_memory, deadline, budget };
        let mut m = Machine::new(input, &run, self.cfg, self.ipdom, self.target);
        m.run().ok()?;
        match m.judge()? {
            Outcome::Confirmed(mut w) => {
                w.params = params.to_vec();
                Some(*w)
            }
            Outcome::Possible(_) => None,
        }
    }

    /// Each scalar argument of `params` (in order) replaced by the value nearest zero, between
    /// zero and it, with which the defect still happens (a bisection, each step a run: the
    /// smallest such value when the defect happens for every value beyond a threshold, as
    /// `n > 100` does). Returns the arguments changed (index, the model's value) and the
    /// witness of the last run with the smaller values; `None` when none changed.
    pub(crate) fn shrink(&self, params: &[(usize, u128)]) -> Option<(Vec<(usize, u128)>, Witness)> {
        let k = self.input.kernel;
        let mut current = params.to_vec();
        let mut witness = None;
        let mut changed = vec![];
        let mut probes = 0;
        for j in 0..current.len() {
            let (i, v) = current[j];
            let Some(ParamKind::Scalar { width }) = k.params.get(i).map(|p| &p.kind) else { continue };
            let width = *width;
            let s = value::signed(v, width);
            if s.abs() <= 1 || width > 64 {
                continue;
            }
            let bits = |x: i128| (x as u128) & value::mask(width);
            let with = |x: i128, probes: &mut u32| {
                *probes += 1;
                let mut p = current.clone();
                p[j].1 = bits(x);
                self.run(&p)
            };
            // The defect happens at `hi`; not at `lo` (once `lo` is tried).
            let (mut lo, mut hi) = (0i128, s);
            let mut best = None;
            if let Some(w) = with(0, &mut probes) {
                hi = 0;
                best = Some(w);
            }
            while (hi - lo).abs() > 1 && probes < MAX_PROBES && Instant::now() < self.input.deadline {
                let mid = lo + (hi - lo) / 2;
                match with(mid, &mut probes) {
                    Some(w) => {
                        hi = mid;
                        best = Some(w);
                    }
                    None => lo = mid,
                }
            }
            if let Some(w) = best {
                changed.push((i, v));
                current[j].1 = bits(hi);
                witness = Some(w);
            }
        }
        witness.map(|w| (changed, w))
    }

    /// The launch made small where the kernel leaves it symbolic (GPUVerify's `*`, which the
    /// model may have made huge): the grid's symbolic dimensions cut to the blocks run (their
    /// ids made 0, and 1 for the second block where the two differ), then each symbolic block
    /// dimension bisected between 1 and its size for the smallest that still reproduces the
    /// defect. Returns the witness of the last run that did and what changed, in words; `None`
    /// when nothing could be made smaller.
    pub(crate) fn shrink_launch(&self, params: &[(usize, u128)]) -> Option<(Witness, Vec<String>)> {
        let k = self.input.kernel;
        let symbolic = |given: [u32; 3], d: usize| given[d] == 0 && k.launch.global_dim[d] == 0;
        let (mut block, mut grid, mut groups) = (self.input.block_dim, self.input.grid_dim, self.input.groups.clone());
        let with = |block: [u32; 3], grid: [u32; 3], groups: &[[u32; 3]]| {
            let input = Input {
                kernel: k,
                assignment: self.input.assignment,
                block_dim: block,
                grid_dim: grid,
                groups: groups.to_vec(),
                params: self.input.params.clone(),
                memory: self.input.memory.clone(),
                deadline: self.input.deadline,
                max_steps: self.input.max_steps,
                warp_sync: self.input.warp_sync,
            };
            self.run_on(&input, params)
        };
        let (mut witness, mut changed) = (None, vec![]);
        let dims = ["x", "y", "z"];
        let (mut small_grid, mut small_groups) = (grid, groups.clone());
        let mut cut = vec![];
        for d in (0..3).filter(|&d| symbolic(k.launch.grid_dim, d) && grid[d] as usize > groups.len()) {
            let apart = groups.len() == 2 && groups[0][d] != groups[1][d];
            for (i, g) in small_groups.iter_mut().enumerate() {
                g[d] = if apart { i as u32 } else { 0 };
            }
            small_grid[d] = if apart { 2 } else { 1 };
            cut.push(format!("gridDim.{} = {}, from the model's {}", dims[d], small_grid[d], grid[d]));
        }
        if !cut.is_empty() {
            if let Some(w) = with(block, small_grid, &small_groups) {
                (grid, groups) = (small_grid, small_groups);
                witness = Some(w);
                changed.push(format!("the grid made small: {}", cut.join("; ")));
            }
        }
        let mut probes = 0;
        for d in 0..3 {
            if !symbolic(k.launch.block_dim, d) || block[d] <= 1 {
                continue;
            }
            let (mut lo, mut hi) = (0u32, block[d]);
            let mut best = None;
            while hi - lo > 1 && probes < MAX_PROBES && Instant::now() < self.input.deadline {
                let mid = lo + (hi - lo) / 2;
                probes += 1;
                let mut b = block;
                b[d] = mid;
                match with(b, grid, &groups) {
                    Some(w) => {
                        hi = mid;
                        best = Some(w);
                    }
                    None => lo = mid,
                }
            }
            if let Some(w) = best {
                changed.push(format!("blockDim.{} made {}, from the model's {}", dims[d], hi, block[d]));
                block[d] = hi;
                witness = Some(w);
            }
        }
        witness.map(|w| (w, changed))
    }
}

/// The model's scalar arguments with each large one (as unsigned and as signed number of
/// its width) replaced by 64 (`None` when none is large).
pub(crate) fn small_params(k: &Kernel, params: &[(usize, u128)]) -> Option<Vec<(usize, u128)>> {
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
