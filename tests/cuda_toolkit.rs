//! CUDA programs compiled with a real CUDA toolkit's headers (`--cuda-path`, issue 24):
//! cooperative groups, CUB and the inline PTX they lower to, modelled as NVIDIA documents them.
//!
//! These tests need a toolkit: `$SYNCFIX_TEST_CUDA_PATH`, else `$CUDA_PATH`, else
//! `/usr/local/cuda` (`scripts/install-cuda-headers DIR` makes one from NVIDIA's PyPI
//! packages). Without one each test says so on stderr and passes without checking anything;
//! CI installs one (`.ci/run`), so there they run.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The toolkit the tests use, or `None` (and a line on stderr saying the test is skipped).
fn toolkit(test: &str) -> Option<PathBuf> {
    let found = ["SYNCFIX_TEST_CUDA_PATH", "CUDA_PATH"]
        .iter()
        .filter_map(|v| std::env::var_os(v).filter(|d| !d.is_empty()).map(PathBuf::from))
        .chain([PathBuf::from("/usr/local/cuda")])
        .find(|d| d.join("include").join("cuda_runtime.h").is_file());
    if found.is_none() {
        eprintln!("{test}: skipped: no CUDA toolkit (set SYNCFIX_TEST_CUDA_PATH; scripts/install-cuda-headers DIR makes one)");
    }
    found
}

fn run(dir: &Path, cuda: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(dir)
        .arg(args[0])
        .arg(format!("--cuda-path={}", cuda.display()))
        .args(&args[1..])
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// `cg::reduce` over a `thread_block_tile<32>` with the toolkit's own implementation (warp
/// shuffles and `%laneid`): a value and no barrier, so the partial sums that each tile's
/// leader writes need `block.sync()` before thread 0 reads them.
#[test]
fn cooperative_groups_reduce_over_a_tile_with_the_toolkit() {
    let Some(cuda) = toolkit("cooperative_groups_reduce_over_a_tile_with_the_toolkit") else { return };
    let d = tempfile::tempdir().unwrap();
    let text = "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n__global__ void sum(const int *in, int *out) {\n  __shared__ int partial[8];\n  cg::thread_block block = cg::this_thread_block();\n  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);\n  int v = cg::reduce(tile, in[block.thread_rank()], cg::plus<int>());\n  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;\n  block.sync();\n  if (block.thread_rank() == 0) { int s = 0; for (int i = 0; i < 8; ++i) s += partial[i]; *out = s; }\n}\n";
    write(d.path(), "cg.cu", text);
    let (code, out, err) = run(d.path(), &cuda, &["verify", "--blockDim=256", "--gridDim=1", "cg.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    write(d.path(), "cg2.cu", &text.replace("  block.sync();\n", ""));
    let (code, out, err) = run(d.path(), &cuda, &["verify", "--blockDim=256", "--gridDim=1", "cg2.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(format!("{out}{err}").contains("race on partial["), "{out}{err}");
}

/// CUB's `BlockReduce` as CUB implements it (its warp reductions are inline PTX: a shuffle
/// and a predicated add), launched from host code: verified; its `TempStorage` reused
/// without a barrier races, as CUB's documentation warns.
#[test]
fn cub_block_reduce_with_the_toolkit() {
    let Some(cuda) = toolkit("cub_block_reduce_with_the_toolkit") else { return };
    let d = tempfile::tempdir().unwrap();
    let text = "#include <cub/cub.cuh>\n#define THREADS 128\n__global__ void twice(const float *in, float *out) {\n  typedef cub::BlockReduce<float, THREADS> BlockReduce;\n  __shared__ typename BlockReduce::TempStorage temp;\n  float a = BlockReduce(temp).Sum(in[threadIdx.x]);\n  __syncthreads();\n  float b = BlockReduce(temp).Sum(in[THREADS + threadIdx.x]);\n  if (threadIdx.x == 0) { out[0] = a; out[1] = b; }\n}\nint main() { float *p; twice<<<1, THREADS>>>(p, p + 256); }\n";
    write(d.path(), "cub.cu", text);
    let (code, out, err) = run(d.path(), &cuda, &["verify", "cub.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("blockDim=128, gridDim=1 taken from the launch at cub.cu:11"), "{err}");
    write(d.path(), "cub2.cu", &text.replace("  __syncthreads();\n", ""));
    let (code, out, err) = run(d.path(), &cuda, &["verify", "cub2.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(format!("{out}{err}").contains("race on temp"), "{out}{err}");
}

/// The toolkit's `grid_group::sync()` (a spin on a counter in the launch's workspace) is a
/// grid barrier.
#[test]
fn a_grid_sync_of_the_toolkit_is_a_grid_barrier() {
    let Some(cuda) = toolkit("a_grid_sync_of_the_toolkit_is_a_grid_barrier") else { return };
    let d = tempfile::tempdir().unwrap();
    let text = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void step(int *a, int *b) {\n  cg::grid_group grid = cg::this_grid();\n  unsigned i = grid.thread_rank();\n  a[i] = (int)i;\n  grid.sync();\n  b[i] = a[(i + 1) % grid.size()];\n}\n";
    write(d.path(), "grid.cu", text);
    let (code, out, err) = run(d.path(), &cuda, &["verify", "--blockDim=64", "--gridDim=4", "grid.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    write(d.path(), "grid2.cu", &text.replace("  grid.sync();\n", ""));
    let (code, out, err) = run(d.path(), &cuda, &["verify", "--blockDim=64", "--gridDim=4", "grid2.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(format!("{out}{err}").contains("race on a["), "{out}{err}");
}

/// Inline PTX that syncfix does not model is an error naming the statement and its line.
#[test]
fn inline_ptx_that_is_not_modelled_is_named() {
    let Some(cuda) = toolkit("inline_ptx_that_is_not_modelled_is_named") else { return };
    let d = tempfile::tempdir().unwrap();
    let text = "__global__ void k(unsigned *p) {\n  unsigned v = threadIdx.x;\n  asm volatile(\"st.global.u32 [%0], %1;\" :: \"l\"(p + threadIdx.x), \"r\"(v));\n}\n";
    write(d.path(), "asm.cu", text);
    let (code, out, err) = run(d.path(), &cuda, &["verify", "--blockDim=64", "--gridDim=1", "asm.cu"]);
    assert_eq!(code, 4, "{out}{err}");
    assert!(err.contains("asm.cu:3") && err.contains("the inline assembly `st.global.u32 [$0], $1;`"), "{err}");
    // `%laneid` is the linear thread id modulo 32: lanes 0 of two warps are different threads.
    let text = "__global__ void k(int *p) {\n  unsigned lane;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n  if (lane == 0) p[threadIdx.x / 32] = 1;\n  if (lane == 0) p[0] = 2;\n}\n";
    write(d.path(), "lane.cu", text);
    let (code, out, err) = run(d.path(), &cuda, &["verify", "--blockDim=64", "--gridDim=1", "lane.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(format!("{out}{err}").contains("race on p["), "{out}{err}");
    let (code, out, err) = run(d.path(), &cuda, &["verify", "--blockDim=32", "--gridDim=1", "lane.cu"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// `--cuda-path` naming something that is not a toolkit is a command-line error (no toolkit
/// needed for this one).
#[test]
fn a_cuda_path_that_is_not_a_toolkit_is_a_command_line_error() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "k.cu", "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n");
    let out = Command::cargo_bin("syncfix")
        .unwrap()
        .current_dir(d.path())
        .args(["verify", "--cuda-path=nowhere", "--blockDim=32", "--gridDim=1", "k.cu"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--cuda-path=nowhere: not a CUDA toolkit"), "{err}");
}

/// `syncfix replay --emit-harness FILE` writes a CUDA program that launches the kernel with
/// the replay's inputs; it compiles with clang-19 against the toolkit (host and device).
#[test]
fn the_replay_harness_compiles() {
    let Some(cuda) = toolkit("the_replay_harness_compiles") else { return };
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "k.cu",
        "__global__ void k(int *A, float f, int n) {\n  __shared__ int s[64];\n  if (n > 100 && A[1] == 12345) s[threadIdx.x % 8] = (int)f;\n  A[threadIdx.x] = s[0];\n}\nint main() { return 0; }\n",
    );
    let (code, _, err) = run(d.path(), &cuda, &["replay", "--blockDim=64", "--gridDim=2", "--emit-harness", "h.cu", "k.cu"]);
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("note: confirmed by a replay") && err.contains("wrote the harness to h.cu"), "{err}");
    let h = std::fs::read_to_string(d.path().join("h.cu")).unwrap();
    assert!(h.contains("cudaLaunchKernel((const void *)(k), dim3(2, 1, 1), dim3(64, 1, 1)"), "{h}");
    assert!(h.contains("uint32_t a2 = ") && h.contains("// `n`"), "{h}");
    // The memory the model chose (`A[1] == 12345`, little-endian) is written into `A`.
    assert!(h.contains("static const unsigned long long at0[] = {4ull, 5ull, 6ull, 7ull};"), "{h}");
    assert!(h.contains("static const unsigned char byte0[] = {57, 48, 0, 0};"), "{h}");
    let out = std::process::Command::new("clang-19")
        .current_dir(d.path())
        .args(["-x", "cuda", "--cuda-gpu-arch=sm_70", "-fsyntax-only", "-Wno-unknown-cuda-version"])
        .arg(format!("--cuda-path={}", cuda.display()))
        .arg("h.cu")
        .output()
        .unwrap();
    assert!(out.status.success(), "the harness does not compile:\n{}\n{h}", String::from_utf8_lossy(&out.stderr));
    // The kernel's own file is never the harness's.
    let (code, _, err) = run(d.path(), &cuda, &["replay", "--blockDim=64", "--gridDim=2", "--emit-harness", "k.cu", "k.cu"]);
    assert_eq!(code, 1, "{err}");
    assert!(std::fs::read_to_string(d.path().join("k.cu")).unwrap().starts_with("__global__"));
}
