//! The verify result's types in the JSON verdict (schema `syncfix.verdict/1`, the README's
//! "JSON verdict"): [`KernelReport`], [`Finding`], [`Replay`], [`Witness`], [`AccessDesc`],
//! [`ThreadDesc`] and [`Location`] are each serialised through a private struct of the
//! schema's fields, in its order, and read back from it (the suite runner reads its children's
//! verdicts). What the JSON does not carry reads back empty (each such field says so), and
//! what it carries twice is read from one place, so that a verdict read back serialises to the
//! same bytes.

use crate::report::{AccessDesc, Check, Finding, Location, LoopIteration, Replay, ThreadDesc, Witness};
use crate::text::TextRange;
use crate::{KernelReport, Status};
use serde::de::{Deserializer, Error as _};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

/// `Serialize` for `$t` through `$json` (made from a `&$t`), `Deserialize` through
/// `TryFrom<$json>`.
macro_rules! through {
    ($t:ty, $json:ident) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $json::from(self).serialize(s)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$t>::try_from($json::deserialize(d)?).map_err(D::Error::custom)
            }
        }
    };
}

through!(KernelReport, KernelJson);
through!(Finding, DefectJson);
through!(Replay, ReplayJson);
through!(Witness, WitnessJson);
through!(AccessDesc, AccessJson);
through!(ThreadDesc, ThreadJson);
through!(Location, PositionJson);

/// A kernel's verdict: `kernels[]`.
#[derive(Serialize, Deserialize)]
struct KernelJson {
    kernel: String,
    status: Status,
    reason: Option<String>,
    bound: Option<u32>,
    defects: Vec<Finding>,
    #[serde(default)]
    notes: Vec<String>,
}

/// A kernel's `reason`: its own, or for a timeout without one, that the time limit was
/// reached.
pub(super) fn reason(r: &KernelReport) -> Option<String> {
    match r.status {
        Status::Timeout => Some(r.reason.clone().unwrap_or_else(|| "the time limit was reached".into())),
        _ => r.reason.clone(),
    }
}

impl From<&KernelReport> for KernelJson {
    fn from(r: &KernelReport) -> KernelJson {
        KernelJson {
            kernel: r.kernel.clone(),
            status: r.status,
            reason: reason(r),
            bound: r.bound,
            defects: r.findings.clone(),
            notes: r.notes.clone(),
        }
    }
}

impl TryFrom<KernelJson> for KernelReport {
    type Error = String;

    fn try_from(k: KernelJson) -> Result<KernelReport, String> {
        Ok(KernelReport {
            reason: k.reason,
            bound: k.bound,
            findings: k.defects,
            notes: k.notes,
            ..KernelReport::bare(&k.kernel, k.status)
        })
    }
}

/// A defect: `defects[]`.
#[derive(Serialize, Deserialize)]
struct DefectJson {
    kind: String,
    message: String,
    race: Option<String>,
    array: Option<String>,
    offset: Option<OffsetJson>,
    stack: Vec<Location>,
    thread: Option<ThreadDesc>,
    accesses: Vec<AccessDesc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    confirmed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    witness: Option<Witness>,
}

/// A place in an array: `element` as printed, `byte` from the array's start.
#[derive(Clone, Serialize, Deserialize)]
struct OffsetJson {
    element: String,
    byte: u64,
}

impl From<&Finding> for DefectJson {
    fn from(f: &Finding) -> DefectJson {
        let replay = f.replay();
        let (race, array, offset, accesses) = match f {
            Finding::Race { race, array, object, offset, first, second, .. } => (
                Some(race.clone()),
                Some(object.clone()),
                Some(OffsetJson { element: array.clone(), byte: *offset }),
                vec![first.clone(), second.clone()],
            ),
            Finding::OutOfBounds { array, object, offset, .. } => {
                (None, Some(object.clone()), Some(OffsetJson { element: array.clone(), byte: *offset }), vec![])
            }
            _ => (None, None, None, vec![]),
        };
        DefectJson {
            kind: f.kind().into(),
            message: f.headline(),
            race,
            array,
            offset,
            stack: f.stack().to_vec(),
            thread: f.thread().cloned(),
            accesses,
            confirmed: replay.map(|r| r.confirmed),
            reason: replay.and_then(|r| r.reason.clone()),
            witness: replay.and_then(|r| r.witness.as_deref().cloned()),
        }
    }
}

/// The finding of a defect. Its `message` is not read (it is the headline of what is): a race
/// is its `race`, `array`, `offset` and `accesses`, with `stack` as the second access's
/// locations; a loop invariant's `kind` says which by its message.
impl TryFrom<DefectJson> for Finding {
    type Error = String;

    fn try_from(d: DefectJson) -> Result<Finding, String> {
        let DefectJson { kind, message, race, array, offset, stack: at, thread, accesses, confirmed, reason, witness } = d;
        let missing = |field: &str| format!("a defect of kind `{kind}` without `{field}`");
        let replay = confirmed.map(|confirmed| Box::new(Replay { confirmed, witness: witness.map(Box::new), reason, harness: None }));
        Ok(match kind.as_str() {
            "race" => {
                let [first, mut second] = <[AccessDesc; 2]>::try_from(accesses).map_err(|_| "a race without its two accesses")?;
                second.at = at;
                let OffsetJson { element, byte } = offset.ok_or_else(|| missing("offset"))?;
                let race = race.ok_or_else(|| missing("race"))?;
                let object = array.ok_or_else(|| missing("array"))?;
                Finding::Race { race, array: element, object, offset: byte, first, second, replay }
            }
            "divergence" => Finding::Divergence { at, replay },
            "bounds" => {
                let OffsetJson { element, byte } = offset.ok_or_else(|| missing("offset"))?;
                let object = array.ok_or_else(|| missing("array"))?;
                Finding::OutOfBounds { at, thread: thread.ok_or_else(|| missing("thread"))?, array: element, object, offset: byte }
            }
            "constant_write" => Finding::ConstantWrite { at, thread: thread.ok_or_else(|| missing("thread"))? },
            name => {
                let named = || Check::ALL.into_iter().filter(move |c| c.name() == name);
                let check = named().find(|c| c.headline() == message).or_else(|| named().next());
                let check = check.ok_or_else(|| format!("a defect of unknown kind `{name}`"))?;
                Finding::Assertion { at, thread: thread.ok_or_else(|| missing("thread"))?, kind: check }
            }
        })
    }
}

/// A replay on its own (in a defect, its fields stand in the defect's).
#[derive(Serialize, Deserialize)]
struct ReplayJson {
    confirmed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    witness: Option<Witness>,
}

impl From<&Replay> for ReplayJson {
    fn from(r: &Replay) -> ReplayJson {
        ReplayJson { confirmed: r.confirmed, reason: r.reason.clone(), witness: r.witness.as_deref().cloned() }
    }
}

impl TryFrom<ReplayJson> for Replay {
    type Error = String;

    fn try_from(r: ReplayJson) -> Result<Replay, String> {
        Ok(Replay { confirmed: r.confirmed, witness: r.witness.map(Box::new), reason: r.reason, harness: None })
    }
}

/// A confirmed defect's `witness`.
#[derive(Serialize, Deserialize)]
struct WitnessJson {
    threads: Vec<ThreadDesc>,
    trace_threads: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offset: Option<OffsetJson>,
    #[serde(default)]
    iterations: Vec<Vec<LoopIteration>>,
    arguments: Vec<ArgumentJson>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    memory: Vec<ArgumentJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    search: Option<String>,
}

/// A scalar argument's or an element's value (as an unsigned integer).
#[derive(Serialize, Deserialize)]
struct ArgumentJson {
    name: String,
    value: u128,
}

fn arguments(list: &[(String, u128)]) -> Vec<ArgumentJson> {
    list.iter().map(|(name, value)| ArgumentJson { name: name.clone(), value: *value }).collect()
}

fn pairs(list: Vec<ArgumentJson>) -> Vec<(String, u128)> {
    list.into_iter().map(|a| (a.name, a.value)).collect()
}

impl From<&Witness> for WitnessJson {
    fn from(w: &Witness) -> WitnessJson {
        WitnessJson {
            threads: w.threads.to_vec(),
            trace_threads: w.trace_threads,
            offset: w.element.clone().zip(w.offset).map(|(element, byte)| OffsetJson { element, byte }),
            iterations: w.iterations.to_vec(),
            arguments: arguments(&w.arguments),
            memory: arguments(&w.memory),
            search: w.search.clone(),
        }
    }
}

impl TryFrom<WitnessJson> for Witness {
    type Error = String;

    fn try_from(w: WitnessJson) -> Result<Witness, String> {
        if w.iterations.len() > 2 {
            return Err(format!("a witness with {} accesses' iterations, not 2", w.iterations.len()));
        }
        let mut iterations = w.iterations.into_iter();
        Ok(Witness {
            threads: <[ThreadDesc; 2]>::try_from(w.threads).map_err(|t| format!("a witness with {} threads, not 2", t.len()))?,
            trace_threads: w.trace_threads,
            element: w.offset.as_ref().map(|o| o.element.clone()),
            offset: w.offset.map(|o| o.byte),
            iterations: [iterations.next().unwrap_or_default(), iterations.next().unwrap_or_default()],
            arguments: pairs(w.arguments),
            memory: pairs(w.memory),
            search: w.search,
        })
    }
}

/// One access of a race: `accesses[]`.
#[derive(Serialize, Deserialize)]
struct AccessJson {
    kind: String,
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    range: Option<TextRange>,
    thread: ThreadDesc,
    stack: Vec<Location>,
}

impl From<&AccessDesc> for AccessJson {
    fn from(a: &AccessDesc) -> AccessJson {
        let at = a.location();
        AccessJson {
            kind: a.kind_name(),
            file: at.map(|l| l.file.clone()),
            line: at.map(|l| l.line),
            column: at.map(|l| l.col),
            range: at.and_then(|l| l.range),
            thread: a.thread.clone(),
            stack: if at.is_some() { a.at[1..].to_vec() } else { vec![] },
        }
    }
}

impl TryFrom<AccessJson> for AccessDesc {
    type Error = String;

    fn try_from(a: AccessJson) -> Result<AccessDesc, String> {
        let kind = match a.kind.as_str() {
            "read" => "Read",
            "write" => "Write",
            "atomic" => "Atomic",
            other => return Err(format!("an access of unknown kind `{other}`")),
        };
        let at = match (a.file, a.line, a.column) {
            (None, _, _) => vec![],
            (Some(file), Some(line), Some(col)) => {
                let here = Location { file, line, col, range: a.range, source_line: None, in_main: false };
                std::iter::once(here).chain(a.stack).collect()
            }
            (Some(file), _, _) => return Err(format!("an access in `{file}` without its line and column")),
        };
        Ok(AccessDesc { kind, thread: a.thread, external: at.is_empty(), at })
    }
}

/// A thread: ids in x, y, z.
#[derive(Serialize, Deserialize)]
struct ThreadJson {
    local: [u32; 3],
    group: [u32; 3],
    global: [u64; 3],
}

impl From<&ThreadDesc> for ThreadJson {
    fn from(t: &ThreadDesc) -> ThreadJson {
        ThreadJson { local: t.local, group: t.group, global: t.global() }
    }
}

/// The block size from `global = group * block + local` where the group id is not 0.
impl TryFrom<ThreadJson> for ThreadDesc {
    type Error = String;

    fn try_from(t: ThreadJson) -> Result<ThreadDesc, String> {
        let mut block_dim = [0; 3];
        for d in 0..3 {
            let (local, group) = (u64::from(t.local[d]), u64::from(t.group[d]));
            let block = match t.global[d].checked_sub(local) {
                Some(0) if group == 0 => Some(0),
                Some(span) if group > 0 && span % group == 0 => u32::try_from(span / group).ok(),
                _ => None,
            };
            block_dim[d] = block.ok_or_else(|| format!("a thread whose global id {:?} is not group * block size + local id", t.global))?;
        }
        Ok(ThreadDesc { local: t.local, group: t.group, block_dim, grid_dim: [0; 3] })
    }
}

/// A source location: `stack[]`.
#[derive(Serialize, Deserialize)]
struct PositionJson {
    file: String,
    line: u32,
    column: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    range: Option<TextRange>,
}

impl From<&Location> for PositionJson {
    fn from(l: &Location) -> PositionJson {
        PositionJson { file: l.file.clone(), line: l.line, column: l.col, range: l.range }
    }
}

impl From<PositionJson> for Location {
    fn from(p: PositionJson) -> Location {
        Location { file: p.file, line: p.line, col: p.column, range: p.range, source_line: None, in_main: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::TextPoint;
    use crate::verdict::Verdict;
    use crate::Stats;

    /// A location as the front end makes it: with its line's text, in the kernel's file.
    fn at(line: u32, col: u32) -> Location {
        Location { file: "k.cu".into(), line, col, range: None, source_line: Some("  A[i] = t;".into()), in_main: true }
    }

    fn thread(local: u32, group: u32) -> ThreadDesc {
        ThreadDesc { local: [local, 1, 0], group: [group, 0, 0], block_dim: [64, 2, 1], grid_dim: [4, 1, 1] }
    }

    fn findings() -> Vec<Finding> {
        let point = |byte, column| TextPoint { byte, line: 3, column };
        let write = Location { range: Some(TextRange { start: point(30, 3), end: point(34, 7) }), ..at(3, 8) };
        let witness = Witness {
            threads: [thread(5, 0), thread(6, 1)],
            trace_threads: false,
            element: Some("A[7]".into()),
            offset: Some(28),
            iterations: [vec![LoopIteration { line: 2, iteration: 3 }], vec![]],
            arguments: vec![("n".into(), 7)],
            memory: vec![("flag[1]".into(), 1)],
            search: Some("memory filled with a pattern instead of zeros".into()),
        };
        let replay = Replay { confirmed: true, witness: Some(Box::new(witness)), reason: None, harness: Some(Ok("int main() {}".into())) };
        let assertion = |kind| Finding::Assertion { at: vec![at(2, 3), at(9, 5)], thread: thread(3, 1), kind };
        let mut all = vec![
            Finding::Race {
                race: "write-write".into(),
                array: "A[7]".into(),
                object: "A".into(),
                offset: 28,
                first: AccessDesc { kind: "Write", thread: thread(5, 0), at: vec![at(7, 2)], external: true },
                second: AccessDesc { kind: "Write", thread: thread(6, 1), at: vec![write, at(12, 4)], external: false },
                replay: Some(Box::new(replay)),
            },
            Finding::Divergence {
                at: vec![at(4, 5)],
                replay: Some(Box::new(Replay { confirmed: false, witness: None, reason: Some("why".into()), harness: None })),
            },
            Finding::ConstantWrite { at: vec![at(2, 3)], thread: thread(0, 0) },
            Finding::OutOfBounds { at: vec![at(2, 3)], thread: thread(4, 0), array: "L[4]".into(), object: "L".into(), offset: 16 },
        ];
        all.extend(Check::ALL.map(assertion));
        all
    }

    /// A verdict read back (as the suite runner reads its children's) prints the same bytes,
    /// and restores from the JSON what it can: the block size where the group id is not 0, an
    /// external access, the second access's locations, which loop invariant failed.
    #[test]
    fn a_verdict_reads_back_from_its_json() {
        let report = KernelReport { findings: findings(), ..KernelReport::bare("k", Status::Race) };
        let timeout = KernelReport::bare("t", Status::Timeout);
        let v = Verdict::of_reports("k.cu", &[report, timeout], Stats::default(), 6);
        let json = serde_json::to_string_pretty(&v).unwrap();
        let back: Verdict = serde_json::from_str(&json).unwrap();
        assert_eq!(serde_json::to_string_pretty(&back).unwrap(), json);
        assert_eq!(back.kernels[1].reason.as_deref(), Some("the time limit was reached"));
        let (found, read) = (&v.kernels[0].findings, &back.kernels[0].findings);
        let Finding::Race { first, second, replay, .. } = &read[0] else { panic!("{:?}", read[0]) };
        assert!(first.external && first.at.is_empty(), "{first:?}");
        assert_eq!((second.at.len(), second.at[0].range, second.at[0].col), (2, found[0].stack()[0].range, 8));
        assert_eq!((second.at[0].source_line.as_deref(), second.at[0].in_main), (None, false));
        assert_eq!((second.thread.block_dim, second.thread.global()), ([64, 0, 0], [70, 1, 0]));
        let replay = replay.as_deref().unwrap();
        assert_eq!((replay.harness.as_ref(), replay.witness.as_ref().unwrap().offset), (None, Some(28)));
        for (f, r) in found.iter().zip(read).skip(1) {
            assert_eq!((r.kind(), r.headline(), r.stack().len()), (f.kind(), f.headline(), f.stack().len()));
        }
        assert!(matches!(read[7], Finding::Assertion { kind: Check::InvariantOnEntry, .. }), "{:?}", read[7]);
        assert!(matches!(read[8], Finding::Assertion { kind: Check::InvariantMaintained, .. }), "{:?}", read[8]);
    }

    #[test]
    fn a_thread_whose_ids_do_not_add_up_is_refused() {
        let ok: ThreadDesc = serde_json::from_str(r#"{"local": [3, 0, 0], "group": [2, 0, 0], "global": [131, 0, 0]}"#).unwrap();
        assert_eq!(ok.block_dim, [64, 0, 0]);
        let bad = serde_json::from_str::<ThreadDesc>(r#"{"local": [3, 0, 0], "group": [2, 0, 0], "global": [130, 0, 0]}"#);
        assert!(bad.unwrap_err().to_string().contains("not group * block size + local id"));
    }
}
