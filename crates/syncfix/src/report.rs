//! A kernel's verdict and its findings as plain data: what went wrong, where, and for which
//! threads. The CLI renders them with GPUVerify's wording; an editor turns them into
//! diagnostics. Each type is serialised as its part of the JSON verdict (schema
//! `syncfix.verdict/1`, through the private forms of `verdict/json.rs`) and read back from it:
//! what the JSON does not carry reads back empty, as each such field says.

use crate::text::{TextPoint, TextRange};
use crate::Status;
use syncfix_kir::{AssertKind, Kernel, Span};
use syncfix_verify::{AccessKind, Defect, Trace};

/// The result of verifying one kernel. In JSON, a kernel of the verdict
/// ([`crate::verdict::Verdict::kernels`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelReport {
    pub kernel: String,
    /// A defect's status is its first finding's kind ([`crate::verdict::status_of`]).
    pub status: Status,
    /// Status `unknown`: why (and `timeout`, when there is more to say than that the limit
    /// was reached).
    pub reason: Option<String>,
    /// Status `bounded`: the loop-unwinding bound within which nothing was found.
    pub bound: Option<u32>,
    pub findings: Vec<Finding>,
    /// Whether inter-group races were checked (false under `--only-intra-group` or one group;
    /// not in the JSON: false when read back).
    pub inter_group: bool,
    /// What the front end assumed and could not check (`syncfix: warning:` lines; in JSON,
    /// the verdict's `warnings`: empty when read back).
    pub assumptions: Vec<String>,
    /// The front end's notes (`syncfix: note:` lines): what it left out of a whole program
    /// to reach its device code, and where the kernel's launch came from when the host code
    /// gave it.
    pub notes: Vec<String>,
    /// The kernel's scalar arguments in the counterexample of the first finding (name, value
    /// as an unsigned integer of the parameter's width), as GPUVerify prints them (not in the
    /// JSON: empty when read back; a confirmed finding's witness has the replay's).
    pub param_values: Vec<(String, u128)>,
}

impl KernelReport {
    /// A report of `kernel` with `status` and nothing else: no finding, no note (a kernel the
    /// front end could not lower, one whose verdict is not in yet).
    pub fn bare(kernel: &str, status: Status) -> KernelReport {
        KernelReport {
            kernel: kernel.to_string(),
            status,
            reason: None,
            bound: None,
            findings: vec![],
            inter_group: false,
            assumptions: vec![],
            notes: vec![],
            param_values: vec![],
        }
    }
}

/// A source location with its line of text. In JSON: `file`, `line`, `column` and `range`
/// (absent when unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    /// clang's 1-based line and column (bytes) of the access or statement, as GPUVerify
    /// prints them.
    pub line: u32,
    pub col: u32,
    /// The range of the access's expression in the file's text (`A[i + 1]` of a load, the
    /// lvalue `A[i]` of a store, whose clang column is its `=`; see `extent.rs`), when the
    /// file's text is known.
    pub range: Option<TextRange>,
    /// The 1-based line's text, when the file is known (not in the JSON: `None` when read
    /// back from it).
    pub source_line: Option<String>,
    /// Whether the location is in the user's kernel file (not in the JSON: `false` when read
    /// back from it).
    pub in_main: bool,
}

/// A thread of a counterexample: ids per dimension and the launch it belongs to. In JSON:
/// `local`, `group` and `global` ([`ThreadDesc::global`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadDesc {
    /// `threadIdx` / `get_local_id`, per dimension x, y, z.
    pub local: [u32; 3],
    /// `blockIdx` / `get_group_id`.
    pub group: [u32; 3],
    /// The launch's block size. Read back from the JSON: `(global - local) / group` in each
    /// dimension whose group id is not 0, else 0 (unknown).
    pub block_dim: [u32; 3],
    /// The launch's grid size (not in the JSON: `[0, 0, 0]`, unknown, when read back).
    pub grid_dim: [u32; 3],
}

impl ThreadDesc {
    /// `group * block_dim + local`, per dimension.
    pub fn global(&self) -> [u64; 3] {
        std::array::from_fn(|d| self.group[d] as u64 * self.block_dim[d] as u64 + self.local[d] as u64)
    }

    /// `thread 3 in block 0`, or `thread (3, 1, 0) in block (0, 2, 0)` when a y or z id is
    /// not 0: a short description for labels (SARIF, editors).
    pub fn describe(&self) -> String {
        let ids = |v: [u32; 3]| if v[1] == 0 && v[2] == 0 { v[0].to_string() } else { format!("({}, {}, {})", v[0], v[1], v[2]) };
        format!("thread {} in block {}", ids(self.local), ids(self.group))
    }
}

/// One access of a race. In JSON: `kind` ([`AccessDesc::kind_name`]), `file`, `line`,
/// `column` and `range` of its location (`null` for an external access), `thread`, and
/// `stack`, the call sites.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessDesc {
    /// `Read`, `Write` or `Atomic`.
    pub kind: &'static str,
    pub thread: ThreadDesc,
    /// The access's location, then the call sites it was inlined through. Not in the JSON
    /// for an external access: empty when read back (but for a race's second access, whose
    /// locations are the finding's `stack`).
    pub at: Vec<Location>,
    /// Made by an external (specified) function: GPUVerify prints "from external source
    /// location". Read back from the JSON: an access without a `file`.
    pub external: bool,
}

impl AccessDesc {
    /// The kind as the JSON, SARIF and the editor name it: `read`, `write` or `atomic`.
    pub fn kind_name(&self) -> String {
        self.kind.to_ascii_lowercase()
    }

    /// Where the access is: its first location, `None` for an external access (or one
    /// without a location).
    pub fn location(&self) -> Option<&Location> {
        if self.external {
            None
        } else {
            self.at.first()
        }
    }
}

/// A defect found by the verifier. In JSON, a kernel's `defects[]`: `kind` ([`Finding::kind`]),
/// `message` ([`Finding::headline`]), `race`, `array` (the array's name), `offset` (`element`
/// and `byte`), `stack` ([`Finding::stack`]), `thread` ([`Finding::thread`]), `accesses`
/// (a race's two), and for a replayed race or divergence its [`Replay`]'s `confirmed`,
/// `reason` and `witness`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// `race` is GPUVerify's name (`read-write`, `write-read`, `write-write`, `atomic-read`...);
    /// `first` is the access logged first (thread 1), `second` the later one.
    /// `array` is the element as GPUVerify prints it (`A[17]`), `object` the array's name and
    /// `offset` the byte offset of the second access.
    Race {
        race: String,
        array: String,
        object: String,
        offset: u64,
        first: AccessDesc,
        second: AccessDesc,
        /// The concrete replay of the trace: whether it reproduced the race.
        replay: Option<Box<Replay>>,
    },
    Divergence {
        at: Vec<Location>,
        /// The concrete replay of the trace: whether it reproduced the divergence.
        replay: Option<Box<Replay>>,
    },
    Assertion {
        at: Vec<Location>,
        thread: ThreadDesc,
        kind: Check,
    },
    ConstantWrite {
        at: Vec<Location>,
        thread: ThreadDesc,
    },
    /// An access outside its array (`--check-array-bounds`); `array` as `L[25]`, `object`
    /// the array's name, `offset` the access's byte offset.
    OutOfBounds {
        at: Vec<Location>,
        thread: ThreadDesc,
        array: String,
        object: String,
        offset: u64,
    },
}

/// What a concrete replay of a race or divergence found (issue 29; `syncfix-replay`): the
/// trace's threads run on the trace's launch and scalar arguments, as on a GPU. In JSON its
/// fields stand in the finding: `"confirmed": true` and the `witness`, or `"confirmed": false`
/// and the `reason` (on its own, an object of those fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The replay reproduced the finding: it is real for these inputs. Otherwise it is
    /// possible: the verifier's abstraction may have made it up.
    pub confirmed: bool,
    pub witness: Option<Box<Witness>>,
    /// Why a possible finding was not reproduced, in a sentence.
    pub reason: Option<String>,
    /// When asked for (`Options::verifier.emit_harness`): a CUDA host program that launches
    /// the kernel with the replay's inputs, or why there is none. Never in the JSON: `None`
    /// when read back from it.
    pub harness: Option<Result<String, String>>,
}

/// How a replay reproduced a finding. In JSON: `threads`, `trace_threads`, `offset`
/// (`element` and `byte`; absent when unknown), `iterations`, `arguments` and `memory` (each
/// `name` and `value`; `memory` absent when empty) and `search` (absent when `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// A race's two threads (the first and the second access's), or a divergence's thread
    /// that waits at the barrier and one that does not reach it.
    pub threads: [ThreadDesc; 2],
    /// Whether those are the trace's threads (another pair reproduced it otherwise).
    pub trace_threads: bool,
    /// The element where a race's accesses meet, as GPUVerify prints it (`A[17]`), and its
    /// byte offset (in the JSON only when both are known).
    pub element: Option<String>,
    pub offset: Option<u64>,
    /// For each access of a race, the loops it ran in, outermost first.
    pub iterations: [Vec<LoopIteration>; 2],
    /// The kernel's scalar arguments it ran with (name, value as an unsigned integer).
    pub arguments: Vec<(String, u128)>,
    /// The memory it started from that the verifier's model chose: each element holding a
    /// byte the model gave and not zero (`flag[1]`, value as an unsigned little-endian
    /// integer of the element's bytes), in the order of objects and offsets; at most
    /// 16. Empty when the run started from zeros (or a fill).
    pub memory: Vec<(String, u128)>,
    /// What the replay's search changed from the counterexample's inputs (`None`: nothing;
    /// else, e.g., "memory filled with a pattern instead of zeros").
    pub search: Option<String>,
}

/// An iteration of a loop: the loop's line in the kernel's file and the iteration, from 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoopIteration {
    pub line: u32,
    pub iteration: u64,
}

/// What kind of specification failed (GPUVerify words each differently).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Check {
    Assertion,
    /// A callee's `__requires`: reported at the call, with a note at the precondition.
    Precondition,
    Postcondition,
    /// A loop invariant that fails on entry to its loop.
    InvariantOnEntry,
    /// A loop invariant that the loop does not maintain.
    InvariantMaintained,
    BarrierInvariant,
    /// A barrier invariant reads what the thread has no permission to read.
    BarrierInvariantAccess,
    /// An access through a pointer that may be null.
    NullPointer,
}

impl Check {
    /// Every check, in the order of the enum.
    pub(crate) const ALL: [Check; 8] = [
        Check::Assertion,
        Check::Precondition,
        Check::Postcondition,
        Check::InvariantOnEntry,
        Check::InvariantMaintained,
        Check::BarrierInvariant,
        Check::BarrierInvariantAccess,
        Check::NullPointer,
    ];

    /// The kind of its finding in the JSON and SARIF (both loop invariants' is `invariant`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Check::Assertion => "assertion",
            Check::Precondition => "precondition",
            Check::Postcondition => "postcondition",
            Check::InvariantOnEntry | Check::InvariantMaintained => "invariant",
            Check::BarrierInvariant => "barrier_invariant",
            Check::BarrierInvariantAccess => "barrier_invariant_access",
            Check::NullPointer => "null",
        }
    }

    /// Its finding's message, in GPUVerify's words.
    pub(crate) fn headline(self) -> &'static str {
        match self {
            Check::Assertion => "this assertion might not hold",
            Check::Precondition => "a precondition for this call might not hold",
            Check::Postcondition => "postcondition might not hold on all return paths",
            Check::InvariantOnEntry => "loop invariant might not hold on entry",
            Check::InvariantMaintained => "loop invariant might not be maintained by the loop",
            Check::BarrierInvariant => "this barrier invariant might not hold",
            Check::BarrierInvariantAccess => "barrier invariant access check might fail: insufficient permission to read this location",
            Check::NullPointer => "possible null pointer access",
        }
    }
}

impl Finding {
    /// The message's first line, in GPUVerify's words.
    pub fn headline(&self) -> String {
        match self {
            Finding::Race { race, array, .. } => format!("possible {race} race on {array}"),
            Finding::Divergence { .. } => "barrier may be reached by non-uniform control flow".into(),
            Finding::Assertion { kind, .. } => kind.headline().into(),
            Finding::ConstantWrite { .. } => "possible attempt to modify constant memory".into(),
            Finding::OutOfBounds { array, .. } => format!("possible array out-of-bounds access on array {array}"),
        }
    }

    /// The kind as the JSON and SARIF (its rule id) name it: `race`, `divergence`,
    /// `assertion`, `precondition`, `postcondition`, `invariant` (a loop invariant),
    /// `barrier_invariant`, `barrier_invariant_access`, `null`, `bounds`, `constant_write`.
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::Race { .. } => "race",
            Finding::Divergence { .. } => "divergence",
            Finding::Assertion { kind, .. } => kind.name(),
            Finding::ConstantWrite { .. } => "constant_write",
            Finding::OutOfBounds { .. } => "bounds",
        }
    }

    /// The concrete replay of a race or a divergence, if one ran.
    pub fn replay(&self) -> Option<&Replay> {
        match self {
            Finding::Race { replay, .. } | Finding::Divergence { replay, .. } => replay.as_deref(),
            _ => None,
        }
    }

    /// The finding's location (a race: its second access's), then the call sites it was
    /// inlined through (the JSON's `stack`).
    pub fn stack(&self) -> &[Location] {
        match self {
            Finding::Race { second, .. } => &second.at,
            Finding::Divergence { at, .. }
            | Finding::Assertion { at, .. }
            | Finding::ConstantWrite { at, .. }
            | Finding::OutOfBounds { at, .. } => at,
        }
    }

    /// The primary location (the second access of a race): the first of [`Finding::stack`].
    pub fn primary(&self) -> Option<&Location> {
        self.stack().first()
    }

    /// The thread that fails an assertion, writes to constant memory or accesses out of
    /// bounds; `None` for a race or a divergence (whose threads are its accesses' and its
    /// witness's).
    pub fn thread(&self) -> Option<&ThreadDesc> {
        match self {
            Finding::Race { .. } | Finding::Divergence { .. } => None,
            Finding::Assertion { thread, .. } | Finding::ConstantWrite { thread, .. } | Finding::OutOfBounds { thread, .. } => Some(thread),
        }
    }
}

fn locations(k: &Kernel, span: &Span) -> Vec<Location> {
    span.frames
        .iter()
        .map(|l| {
            let f = &k.files[l.file];
            let range = f.text.as_deref().and_then(|text| {
                let at = crate::extent::offset_of(text, l.line, l.col)?;
                let (start, end) = crate::extent::access_extent(text, at);
                Some(TextRange { start: TextPoint::of(text, start), end: TextPoint::of(text, end) })
            });
            Location {
                file: f.path.clone(),
                line: l.line,
                col: l.col,
                range,
                source_line: f.line_text(l.line).map(|s| s.to_string()),
                in_main: l.file == syncfix_kir::FileId::MAIN,
            }
        })
        .collect()
}

/// Locations to show: drop the frames inside syncfix's preludes, keep the user's.
fn user_locations(k: &Kernel, span: &Span) -> Vec<Location> {
    let all = locations(k, span);
    let first_main = all.iter().position(|l| l.in_main).unwrap_or(0);
    all.into_iter().skip(first_main).collect()
}

fn kind_name(k: AccessKind) -> &'static str {
    match k {
        AccessKind::Read => "Read",
        AccessKind::Write => "Write",
        AccessKind::Atomic => "Atomic",
    }
}

/// Describes a trace of kernel `k` as a finding.
pub(crate) fn describe(k: &Kernel, t: &Trace) -> Finding {
    let thread = |i: usize| ThreadDesc {
        local: t.threads[i].local,
        group: t.threads[i].group,
        block_dim: t.threads[i].block_dim,
        grid_dim: t.threads[i].grid_dim,
    };
    match &t.defect {
        Defect::Race(r) => {
            let race = format!("{}-{}", r.first.kind.name(), r.second.kind.name());
            Finding::Race {
                race,
                array: element(k, r.object, r.offset, r.width),
                object: k.objects[r.object].name.clone(),
                offset: r.offset,
                first: AccessDesc {
                    kind: kind_name(r.first.kind),
                    thread: thread(0),
                    at: user_locations(k, &r.first.span),
                    external: r.first.external,
                },
                second: AccessDesc {
                    kind: kind_name(r.second.kind),
                    thread: thread(1),
                    at: user_locations(k, &r.second.span),
                    external: r.second.external,
                },
                replay: None,
            }
        }
        Defect::Divergence { span, .. } => Finding::Divergence { at: user_locations(k, span), replay: None },
        Defect::OutOfBounds { span, thread: th, object, offset, inst } => {
            let width = k.insts[*inst].kind.access().map_or(1, |(_, w, _, _)| w);
            Finding::OutOfBounds {
                at: user_locations(k, span),
                thread: thread(*th),
                array: element(k, *object, *offset, width),
                object: k.objects[*object].name.clone(),
                offset: *offset,
            }
        }
        Defect::ConstantWrite { span, thread: th, .. } => Finding::ConstantWrite { at: user_locations(k, span), thread: thread(*th) },
        Defect::Assertion { span, kind, thread: th, first_iteration, .. } => Finding::Assertion {
            at: user_locations(k, span),
            thread: thread(*th),
            kind: match kind {
                AssertKind::Assertion => Check::Assertion,
                AssertKind::Precondition => Check::Precondition,
                AssertKind::Postcondition => Check::Postcondition,
                AssertKind::LoopInvariant if *first_iteration => Check::InvariantOnEntry,
                AssertKind::LoopInvariant => Check::InvariantMaintained,
                AssertKind::BarrierInvariant => Check::BarrierInvariant,
                AssertKind::BarrierInvariantAccess => Check::BarrierInvariantAccess,
                AssertKind::NullPointer => Check::NullPointer,
            },
        },
    }
}

/// The element a byte offset designates, as GPUVerify prints it: `A[17]`, `b[2][5]`, or
/// `q[3] (byte 1)` when the access does not start at an element boundary.
pub(crate) fn element(k: &Kernel, o: syncfix_kir::ObjectId, offset: u64, width: u32) -> String {
    let obj = &k.objects[o];
    let elem = if obj.elem_size > 0 { obj.elem_size as i64 } else { width.max(1) as i64 };
    let off = offset as i64;
    let index = off.div_euclid(elem);
    let byte = off.rem_euclid(elem);
    let mut s = obj.name.clone();
    if obj.dims.len() > 1 {
        let mut rem = index;
        let strides: Vec<i64> = (0..obj.dims.len()).map(|d| obj.dims[d + 1..].iter().product::<u64>() as i64).collect();
        for st in strides {
            let st = st.max(1);
            s.push_str(&format!("[{}]", rem.div_euclid(st)));
            rem = rem.rem_euclid(st);
        }
    } else {
        s.push_str(&format!("[{index}]"));
    }
    if byte != 0 || (width as i64) < elem {
        if width == 1 {
            s.push_str(&format!(" (byte {byte})"));
        } else {
            s.push_str(&format!(" (bytes {}..{})", byte, byte + width as i64 - 1));
        }
    }
    s
}
