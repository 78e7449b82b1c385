//! Race queries refuted before they are solved pair by pair (ARCHITECTURE.md, "crates/verify"):
//! by the stride of their offsets (`stride`), and without the values of the benign-race
//! tolerance, on small kernels through the whole pipeline (clang-19 and Z3 are required).

mod common;

use common::*;
use syncfix::Language;

/// A structure-of-arrays kernel in SHOC S3D's style: `n` statements `RF(q) = RF(q) * C(q')`
/// over `X[(q − 1) · stride + gid]` (`gid` the global thread id).
fn structure_of_arrays(n: u32, stride: u32, skew: u32) -> String {
    let mut src = format!(
        "#define gid (blockIdx.x * blockDim.x + threadIdx.x)\n#define RF(q) RF[((q) - 1) * {stride} + gid]\n#define C(q) C[((q) - 1) * {stride} + gid]\n__global__ void k(float *RF, const float *C) {{\n"
    );
    for q in 1..=n {
        let last = if q == n { skew } else { 0 };
        src.push_str(&format!("  RF({q}) = RF[({q} - 1) * {stride} + gid + {last}] * C({});\n", q % 7 + 1));
    }
    src.push_str("}\n");
    src
}

/// Verifies CUDA source `src` under `opts`, asserts that it verified, and returns the timings
/// (for the stride refutations counted).
fn verified_timings(src: &str, opts: &syncfix::Options) -> syncfix::Stats {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), Language::Cuda, src);
    let (reports, timings) = syncfix::verify(&path, src, opts).unwrap();
    assert!(matches!(reports[0].status, syncfix::Status::Verified), "{:?}", reports[0].status);
    timings
}

#[test]
fn offsets_that_differ_by_multiples_of_a_stride_are_refuted_at_once() {
    // 64 threads: a stride of 64 elements keeps each thread to its own cells; the race query
    // (40 reads and 40 writes of RF against a log of 80 accesses) is refuted by the stride
    // of its offsets alone (`stride`), not pair by pair.
    let opts = options(Language::Cuda, [32, 1, 1], [2, 1, 1]);
    assert_eq!(verified_timings(&structure_of_arrays(40, 64, 0), &opts).queries_by_stride, 1);
    // A stride below the number of threads: thread t + 48 writes RF(q + 1)'s cell of thread t.
    starts(verdict_with(&structure_of_arrays(40, 48, 0), &opts), "possible ");
    // One access off its cell by one element: the stride no longer refutes, the pairs do not.
    starts(verdict_with(&structure_of_arrays(40, 64, 1), &opts), "possible ");
}

#[test]
fn a_race_query_that_no_overlap_violates_is_refuted_without_the_values() {
    // HeCBench match's `Match5` in small: each thread of row 0 writes its own cell the running
    // maximum of a loop (a value the benign-race tolerance would compare). No two threads'
    // writes overlap, so the query is refuted with the tolerance left out.
    let src = "__global__ void k(float *out, const float *in, int n) {\n\
               float m = 0.0f;\n\
               for (int i = threadIdx.x; i < n; i += blockDim.x) if (in[i] > m) m = in[i];\n\
               if (threadIdx.y == 0) out[blockIdx.x * blockDim.x + threadIdx.x] = m;\n}\n";
    let opts = options(Language::Cuda, [16, 16, 1], [8, 1, 1]);
    assert!(verified_timings(src, &opts).queries_without_values >= 1);
    // Every thread writes the same value to one cell: the overlap is there, the tolerance
    // decides (verified), and nothing is refuted without the values.
    let benign = "__global__ void k(int *A) { A[0] = 1; }";
    assert_eq!(verified_timings(benign, &options(Language::Cuda, [64, 1, 1], [1, 1, 1])).queries_without_values, 0);
    // Rows other than 0 write too, the same cells with their own maxima: still a race.
    let racy = src.replace("threadIdx.y == 0", "threadIdx.y < 2");
    starts(verdict_with(&racy, &opts), "possible write-write race on out[");
}

#[test]
fn a_stride_refutes_signed_indices_and_per_warp_tiles() {
    // `int` indices (sign-extended) and a shared array of one tile per warp (a base
    // pointer per warp, 32 · q + lane within it, as gpgpu-sim's md5): each thread keeps to
    // its cells, and each race query is refuted by its stride.
    let opts = options(Language::Cuda, [64, 1, 1], [2, 1, 1]);
    let signed = |stride: u32| {
        let mut src = "__global__ void k(float *A) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n".to_string();
        for q in 0..40 {
            src.push_str(&format!("  A[{q} * {stride} + i] = A[{q} * {stride} + i] + 1.0f;\n"));
        }
        src + "}\n"
    };
    let tiles = |tile: u32| {
        let mut src = format!(
            "__global__ void k(unsigned *out) {{\n  __shared__ unsigned s[1024];\n  unsigned *mine = s + (threadIdx.x >> 5) * {tile};\n  unsigned lane = threadIdx.x & 31;\n"
        );
        for q in 0..16 {
            src.push_str(&format!("  mine[32 * {q} + lane] = mine[32 * {} + lane] + {q};\n", (q + 5) % 16));
        }
        src + "  out[blockIdx.x * blockDim.x + threadIdx.x] = mine[lane];\n}\n"
    };
    for (src, want) in [(signed(128), "verified"), (signed(100), "possible "), (tiles(512), "verified"), (tiles(256), "possible ")] {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), Language::Cuda, &src);
        let (reports, timings) = syncfix::verify(&path, &src, &opts).unwrap();
        let got = match &reports[0].status {
            syncfix::Status::Verified => "verified".to_string(),
            s if s.is_defect() => reports[0].findings[0].headline(),
            s => format!("{s:?}"),
        };
        starts(got, want);
        if want == "verified" {
            assert!(timings.queries_by_stride >= 1, "{src}");
        }
    }
}

#[test]
fn a_stride_refutes_arrays_of_different_elements_in_one_buffer() {
    // One shared byte buffer holding a `float4` array and an `int` array after it (as
    // HeCBench nbnxm lays out its shared memory): the offsets fall into classes of different
    // scales and bases, each pair of classes refuted at once. Moving the `int` array back by
    // 64 bytes makes it overlap the last `float4`s: a race.
    let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    let buffer = |int_at: u32| {
        let mut src = format!(
            "__global__ void k(float *out) {{\n  __shared__ unsigned char buf[64 * 16 + 64 * 4];\n  float4 *xq = (float4 *)buf;\n  int *ty = (int *)(buf + {int_at});\n  int t = threadIdx.x;\n"
        );
        for q in 0..10 {
            src.push_str(&format!("  xq[t] = make_float4({q}.0f, xq[t].x, xq[t].y, xq[t].z);\n  ty[t] = ty[t] + {q};\n"));
        }
        src + "  out[t] = xq[t].w + ty[t];\n}\n"
    };
    assert_eq!(verified_timings(&buffer(64 * 16), &opts).queries_by_stride, 1);
    starts(verdict_with(&buffer(64 * 16 - 64), &opts), "possible ");
}

#[test]
fn a_stride_refutes_words_read_bytewise() {
    // Each thread writes its words of a per-warp tile (`32 · q + lane`) and reads them back
    // byte by byte (gpgpu-sim's md5 reads its message words with `GET_UINT32_LE`): the bytes'
    // offsets are `128 · q + 4 · lane + k`, `k` in 0..3, whose constants' gcd is 1; as `128 ·
    // u + r` with `r` in 0..3 they stay apart from every other lane's word, and the race query
    // is refuted by its stride. Reading the next lane's bytes is a race.
    let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    let bytewise = |other: u32| {
        let mut src = "__global__ void k(unsigned *out) {\n  __shared__ unsigned s[1024];\n  unsigned *mine = s + (threadIdx.x >> 5) * 512;\n  unsigned lane = threadIdx.x & 31;\n  unsigned sum = 0;\n".to_string();
        for q in 0..16 {
            src.push_str(&format!("  mine[32 * {q} + lane] = {q} + lane;\n"));
        }
        src.push_str(&format!("  unsigned char *bytes = (unsigned char *)(mine + ((lane + {other}) & 31));\n"));
        for q in 0..16 {
            for k in 0..4 {
                src.push_str(&format!("  sum += bytes[128 * {q} + {k}];\n"));
            }
        }
        src + "  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;\n}\n"
    };
    let timings = verified_timings(&bytewise(0), &opts);
    assert!(timings.queries_by_stride >= 1, "{timings:?}");
    starts(verdict_with(&bytewise(1), &opts), "possible ");
}

#[test]
fn a_stride_refutes_races_on_a_cut_loops_logs() {
    // A loop of unknown trip count (cut: its race logs havocked at the head, GPUVerify's
    // method) whose body keeps each thread to its 64 cells, one column taken from the
    // iteration: the logs hold the entry's access or a ghost iteration's, whose offsets have
    // the same stride, so the race query is refuted by its stride. Thread t's last column 64
    // is thread t + 1's first: a race.
    let opts = options(Language::Cuda, [64, 1, 1], [1, 1, 1]);
    let looped = |last: u32| {
        let mut src = "__global__ void k(int *A, int n) {\n  int t = threadIdx.x;\n  A[t * 64] = 0;\n  for (int i = 0; i < n; i++) {\n    A[t * 64 + (i & 31)] += i;\n".to_string();
        for c in 0..20 {
            src.push_str(&format!("    A[t * 64 + {}] += {c};\n", 32 + c));
        }
        src + &format!("    A[t * 64 + {last}] = 1;\n  }}\n}}\n")
    };
    let timings = verified_timings(&looped(63), &opts);
    assert!(timings.queries_by_stride >= 1, "{timings:?}");
    starts(verdict_with(&looped(64), &opts), "possible ");
}
