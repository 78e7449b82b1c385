//! The times and counters of a run ([`Stats`]), one type for the library, the CLI's `--stats`,
//! the JSON of a verdict and of a repair, and the benchmark.

use std::time::Duration;

/// Per-stage times and counters of a run: what `--stats` prints, the JSON's `stats` (of the
/// verdict and of a repair or audit, through `StatsJson`: times in milliseconds, every
/// counter by name), the benchmark's figures, and what the library's calls return.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(into = "StatsJson", from = "StatsJson")]
pub struct Stats {
    /// The whole front end, `clang` included.
    pub frontend: Duration,
    /// The clang-19 processes.
    pub clang: Duration,
    pub encode: Duration,
    /// Every solver call, `houdini` included.
    pub solve: Duration,
    pub houdini: Duration,
    /// Solver calls on a kernel's full encoding.
    pub verifier_calls: u32,
    /// Every solver call (unwinding checks and Houdini's included).
    pub solver_calls: u32,
    pub houdini_rounds: u32,
    /// Queries the verifier calls solved (the properties split by barrier interval and
    /// object, one solver call each), and the slowest: its label and time.
    pub queries: u32,
    pub slowest_query: Option<(String, Duration)>,
    /// Where the solving time went, query by query: each query's label (the barrier interval,
    /// and the array for a race query), its properties, how many times it was solved (once
    /// per verifier call that solved it) and its wall time in all, in the order first
    /// solved.
    pub query_times: Vec<QueryTime>,
    /// Houdini's rounds and their wall time by loop (`loop N (line L)`: N the loop's number
    /// in the kernel, as `SYNCFIX_DEBUG_HOUDINI` prints it, L the line of its header in the
    /// user's source), in the order first solved.
    pub houdini_loops: Vec<LoopTime>,
    /// Solver calls repeated with every assumption of the kernel, because the model of the
    /// call with those of its cone of influence only broke one left out.
    pub cone_fallbacks: u32,
    /// Candidate loop invariants dropped because their check ran past its budget.
    pub houdini_unproved: u32,
    /// Houdini's checks tried again with their array reads abstracted as uninterpreted
    /// functions after running past their budget, and of those, the ones refuted so.
    pub reads_abstracted: u32,
    pub refuted_reads_abstracted: u32,
    /// Houdini's checks answered from an earlier barrier assignment's instead of solved.
    pub houdini_reused: u32,
    /// Queries answered from an earlier barrier assignment's instead of solved.
    pub queries_reused: u32,
    /// Race queries refuted by the stride of their offsets instead of solved pair by pair.
    pub queries_by_stride: u32,
    /// Race queries refuted with the benign-race tolerance left out (no two accesses can
    /// overlap) instead of solved with the values of the accesses.
    pub queries_without_values: u32,
    /// Kernels whose Houdini started from what a repair's verifier kept (the
    /// re-verification of the patched source), and of those, the ones checked again from
    /// every candidate because the verdict under the seed was not verified.
    pub houdini_seeded: u32,
    pub seed_fallbacks: u32,
    pub barrier_vars: usize,
    /// Of those, the sites the repair's clauses named (the only ones it could enable), and
    /// whether a later trace named sites the first did not.
    pub sites_considered: usize,
    pub sites_widened: bool,
    /// Of those, the sites the repair's verifier encoded (the user's barriers, and each one a
    /// candidate turned on), and how many times it
    /// encoded the kernel.
    pub sites_encoded: usize,
    pub encodings: u32,
    pub repair_iterations: u32,
    pub clauses: usize,
    /// The whole run, from the start of the process: set by the caller that timed it (the
    /// CLI, the editor); zero in what the library's calls return.
    pub total: Duration,
    /// The benchmark's baseline (`--bench-clang`): one plain clang-19 compile of the kernel.
    pub clang_baseline: Option<Duration>,
}

impl Stats {
    /// Adds the times and solver counters of `t` (not the repair's counters), its total and
    /// its baseline (for sums over runs).
    pub fn add(&mut self, t: &Stats) {
        self.frontend += t.frontend;
        self.clang += t.clang;
        self.encode += t.encode;
        self.solve += t.solve;
        self.houdini += t.houdini;
        self.verifier_calls += t.verifier_calls;
        self.solver_calls += t.solver_calls;
        self.houdini_rounds += t.houdini_rounds;
        self.queries += t.queries;
        self.cone_fallbacks += t.cone_fallbacks;
        self.houdini_unproved += t.houdini_unproved;
        self.reads_abstracted += t.reads_abstracted;
        self.refuted_reads_abstracted += t.refuted_reads_abstracted;
        self.houdini_reused += t.houdini_reused;
        self.queries_reused += t.queries_reused;
        self.queries_by_stride += t.queries_by_stride;
        self.queries_without_values += t.queries_without_values;
        self.houdini_seeded += t.houdini_seeded;
        self.seed_fallbacks += t.seed_fallbacks;
        self.note_slowest(&t.slowest_query);
        for q in &t.query_times {
            self.note_query_ms(&q.label, q.properties, q.solved, q.ms);
        }
        for l in &t.houdini_loops {
            self.note_houdini_loop(&l.label, l.rounds, l.ms);
        }
        self.total += t.total;
        if let Some(b) = t.clang_baseline {
            self.clang_baseline = Some(self.clang_baseline.unwrap_or_default() + b);
        }
    }

    /// These stats with the whole run's time `total`.
    pub fn with_total(mut self, total: Duration) -> Stats {
        self.total = total;
        self
    }

    /// Adds the repair's counters of `t` (those [`Stats::add`] leaves out).
    pub fn add_repair(&mut self, t: &Stats) {
        self.barrier_vars += t.barrier_vars;
        self.sites_considered += t.sites_considered;
        self.sites_widened |= t.sites_widened;
        self.sites_encoded += t.sites_encoded;
        self.encodings += t.encodings;
        self.repair_iterations += t.repair_iterations;
        self.clauses += t.clauses;
    }

    /// Keeps `q` as the slowest query if it took longer than the one kept.
    pub fn note_slowest(&mut self, q: &Option<(String, Duration)>) {
        if let Some((label, took)) = q {
            if self.slowest_query.as_ref().is_none_or(|(_, s)| took > s) {
                self.slowest_query = Some((label.clone(), *took));
            }
        }
    }
}

/// One query's line of [`Stats::query_times`].
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueryTime {
    /// As `SYNCFIX_DEBUG_QUERIES` and the slowest query name it: `interval 2`, ``races on `u`,
    /// interval 1``.
    pub label: String,
    /// Its properties (the most, when solved several times).
    pub properties: usize,
    /// How many times it was solved.
    pub solved: u32,
    /// Wall time, milliseconds, in all.
    pub ms: f64,
}

/// One loop's line of [`Stats::houdini_loops`].
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoopTime {
    /// `loop N (line L)`, or `loop N` when its header has no line in the user's source.
    pub label: String,
    /// Houdini's rounds on the loop's candidates.
    pub rounds: u32,
    /// Their wall time, milliseconds, in all.
    pub ms: f64,
}

impl Stats {
    /// Adds query `label` (of `properties`), solved `solved` times in `took` in all, to
    /// [`Stats::query_times`].
    pub fn note_query(&mut self, label: &str, properties: usize, solved: u32, took: Duration) {
        self.note_query_ms(label, properties, solved, ms(took));
    }

    fn note_query_ms(&mut self, label: &str, properties: usize, solved: u32, took_ms: f64) {
        match self.query_times.iter_mut().find(|q| q.label == label) {
            Some(q) => {
                q.properties = q.properties.max(properties);
                q.solved += solved;
                q.ms += took_ms;
            }
            None => self.query_times.push(QueryTime { label: label.to_string(), properties, solved, ms: took_ms }),
        }
    }

    /// Adds `rounds` of Houdini on loop `label` (in `took_ms`) to [`Stats::houdini_loops`].
    pub fn note_houdini_loop(&mut self, label: &str, rounds: u32, took_ms: f64) {
        match self.houdini_loops.iter_mut().find(|l| l.label == label) {
            Some(l) => {
                l.rounds += rounds;
                l.ms += took_ms;
            }
            None => self.houdini_loops.push(LoopTime { label: label.to_string(), rounds, ms: took_ms }),
        }
    }
}

/// Milliseconds, rounded to the microsecond (the JSON's unit).
pub(crate) fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn duration(ms: f64) -> Duration {
    Duration::try_from_secs_f64(ms / 1e3).unwrap_or_default()
}

/// [`Stats`] as the JSON gives it (schemas `syncfix.verdict/1` and `syncfix.repair/1`, the
/// README's "JSON verdict"): times in milliseconds, the front end as `clang_ms` and
/// `lowering_ms` (the rest of it), every counter by name. Missing fields read as zero.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
struct StatsJson {
    clang_ms: f64,
    lowering_ms: f64,
    encoding_ms: f64,
    houdini_ms: f64,
    solving_ms: f64,
    total_ms: f64,
    verifier_calls: u32,
    solver_calls: u32,
    houdini_rounds: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    clang_baseline_ms: Option<f64>,
    queries: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    slowest_query: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    slowest_query_ms: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    query_times: Vec<QueryTime>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    houdini_loops: Vec<LoopTime>,
    cone_fallbacks: u32,
    houdini_unproved: u32,
    reads_abstracted: u32,
    refuted_reads_abstracted: u32,
    houdini_reused: u32,
    queries_reused: u32,
    queries_by_stride: u32,
    queries_without_values: u32,
    reverify_seeded: u32,
    reverify_seed_fallbacks: u32,
    repair_iterations: u32,
    clauses: usize,
    barrier_variables: usize,
    sites_considered: usize,
    sites_widened: bool,
    sites_encoded: usize,
    encodings: u32,
}

impl From<Stats> for StatsJson {
    fn from(s: Stats) -> StatsJson {
        StatsJson {
            clang_ms: ms(s.clang),
            lowering_ms: ms(s.frontend.saturating_sub(s.clang)),
            encoding_ms: ms(s.encode),
            houdini_ms: ms(s.houdini),
            solving_ms: ms(s.solve),
            total_ms: ms(s.total),
            verifier_calls: s.verifier_calls,
            solver_calls: s.solver_calls,
            houdini_rounds: s.houdini_rounds,
            clang_baseline_ms: s.clang_baseline.map(ms),
            queries: s.queries,
            slowest_query_ms: s.slowest_query.as_ref().map(|(_, d)| ms(*d)),
            slowest_query: s.slowest_query.map(|(label, _)| label),
            query_times: s.query_times,
            houdini_loops: s.houdini_loops,
            cone_fallbacks: s.cone_fallbacks,
            houdini_unproved: s.houdini_unproved,
            reads_abstracted: s.reads_abstracted,
            refuted_reads_abstracted: s.refuted_reads_abstracted,
            houdini_reused: s.houdini_reused,
            queries_reused: s.queries_reused,
            queries_by_stride: s.queries_by_stride,
            queries_without_values: s.queries_without_values,
            reverify_seeded: s.houdini_seeded,
            reverify_seed_fallbacks: s.seed_fallbacks,
            repair_iterations: s.repair_iterations,
            clauses: s.clauses,
            barrier_variables: s.barrier_vars,
            sites_considered: s.sites_considered,
            sites_widened: s.sites_widened,
            sites_encoded: s.sites_encoded,
            encodings: s.encodings,
        }
    }
}

impl From<StatsJson> for Stats {
    fn from(j: StatsJson) -> Stats {
        Stats {
            frontend: duration(j.clang_ms + j.lowering_ms),
            clang: duration(j.clang_ms),
            encode: duration(j.encoding_ms),
            solve: duration(j.solving_ms),
            houdini: duration(j.houdini_ms),
            verifier_calls: j.verifier_calls,
            solver_calls: j.solver_calls,
            houdini_rounds: j.houdini_rounds,
            queries: j.queries,
            slowest_query: j.slowest_query.map(|label| (label, duration(j.slowest_query_ms.unwrap_or(0.0)))),
            query_times: j.query_times,
            houdini_loops: j.houdini_loops,
            cone_fallbacks: j.cone_fallbacks,
            houdini_unproved: j.houdini_unproved,
            reads_abstracted: j.reads_abstracted,
            refuted_reads_abstracted: j.refuted_reads_abstracted,
            houdini_reused: j.houdini_reused,
            queries_reused: j.queries_reused,
            queries_by_stride: j.queries_by_stride,
            queries_without_values: j.queries_without_values,
            houdini_seeded: j.reverify_seeded,
            seed_fallbacks: j.reverify_seed_fallbacks,
            barrier_vars: j.barrier_variables,
            sites_considered: j.sites_considered,
            sites_widened: j.sites_widened,
            sites_encoded: j.sites_encoded,
            encodings: j.encodings,
            repair_iterations: j.repair_iterations,
            clauses: j.clauses,
            total: duration(j.total_ms),
            clang_baseline: j.clang_baseline_ms.map(duration),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_read_back_from_their_json() {
        let s = Stats {
            frontend: Duration::from_millis(30),
            clang: Duration::from_millis(20),
            solve: Duration::from_millis(7),
            verifier_calls: 2,
            slowest_query: Some(("races on A".into(), Duration::from_millis(3))),
            barrier_vars: 4,
            sites_widened: true,
            total: Duration::from_millis(50),
            clang_baseline: Some(Duration::from_millis(18)),
            ..Stats::default()
        };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!((v["clang_ms"].as_f64(), v["lowering_ms"].as_f64(), v["total_ms"].as_f64()), (Some(20.0), Some(10.0), Some(50.0)));
        assert_eq!((v["barrier_variables"].as_u64(), v["slowest_query"].as_str()), (Some(4), Some("races on A")));
        assert_eq!(serde_json::from_value::<Stats>(v).unwrap(), s);
        // An older record without the counters reads as zeros.
        let old: Stats = serde_json::from_str(r#"{"clang_ms": 1.5, "total_ms": 2.0, "verifier_calls": 1}"#).unwrap();
        assert_eq!((old.clang, old.verifier_calls, old.clauses), (Duration::from_micros(1500), 1, 0));
    }
}
