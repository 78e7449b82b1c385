//! Whole CUDA programs as their authors write them (issue 24): host code with the runtime API
//! and `<<<...>>>` launches, the launch configuration read from the host code, templates
//! instantiated by their launches, kernels in included headers, host code that does not
//! compile left out, the toolkit headers' stand-ins, and a program's own definitions of what
//! CUDA's headers define.

use assert_cmd::Command;
use std::path::Path;

/// Runs syncfix with syncfix's own stand-ins for the toolkit's headers (`--no-cuda-toolkit`,
/// whatever is installed; `tests/cuda_toolkit.rs` tests a real toolkit).
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out =
        Command::cargo_bin("syncfix").unwrap().current_dir(dir).arg(args[0]).arg("--no-cuda-toolkit").args(&args[1..]).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(p, text).unwrap();
}

/// A program with host code: the runtime API, C++ standard headers, a launch whose sizes are
/// `#define`d constants. The kernel writes `tile[threadIdx.x % BLOCK]`, which two threads of
/// a block of more than BLOCK threads share: verified only with the launch taken from the
/// host code (symbolic sizes, or a block of 512, race).
const PROGRAM: &str = r#"#include <cstdio>
#include <cstdlib>
#include <vector>
#include <chrono>
#include <cuda.h>
#define BLOCK 256

__global__ void shift(const float *in, float *out, int n) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x % BLOCK] = in[i];
  __syncthreads();
  out[i] = tile[(threadIdx.x + 1) % BLOCK];
}

int main(int argc, char **argv) {
  const int n = 1 << 16;
  std::vector<float> h(n, 1.0f);
  float *d_in, *d_out;
  cudaMalloc((void **)&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  auto start = std::chrono::steady_clock::now();
  shift<<<n / BLOCK, BLOCK>>>(d_in, d_out, n);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) { printf("%s\n", cudaGetErrorString(err)); return 1; }
  cudaMemcpy(h.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  free(malloc(4));
  return 0;
}
"#;

#[test]
fn host_code_compiles_away_and_the_launch_comes_from_the_host_code() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "main.cu", PROGRAM);
    let (code, out, err) = run(d.path(), &["verify", "main.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("syncfix: note: blockDim=256, gridDim=256 taken from the launch at main.cu:24"), "{err}");
    // Launch flags win over the host code's launch, and say nothing of it.
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=512", "--gridDim=1", "main.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(format!("{out}{err}").contains("write-write race on tile["), "{out}{err}");
    assert!(!err.contains("taken from the launch"), "{err}");
    // The block size alone given: the grid stays symbolic (in y too, where blocks that differ
    // only in blockIdx.y write the same out[i]), and the host code is not read.
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=256", "main.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(err.contains("no --gridDim given") && !err.contains("taken from the launch"), "{err}");
}

#[test]
fn launches_with_different_constants_are_each_verified() {
    let d = tempfile::tempdir().unwrap();
    let text = "__global__ void k(int *a) {\n  __shared__ int s[64];\n  s[threadIdx.x] = a[threadIdx.x];\n  __syncthreads();\n  a[threadIdx.x] = s[63 - threadIdx.x];\n}\nint main() {\n  int *p;\n  k<<<1, 64>>>(p);\n  k<<<2, dim3(32)>>>(p);\n  k<<<1, 128>>>(p);\n}\n";
    write(d.path(), "k.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "k.cu"]);
    // With 128 threads, s[63 - 127] lies outside the tile: the third launch fails, the first
    // two are verified.
    assert!(err.contains("blockDim=64, gridDim=1 taken from the launch at k.cu:9"), "{err}");
    assert!(err.contains("blockDim=32, gridDim=2 taken from the launch at k.cu:10"), "{err}");
    assert!(err.contains("blockDim=128, gridDim=1 taken from the launch at k.cu:11"), "{err}");
    assert_eq!(code, 6, "{out}{err}");
    assert!(out.contains("2 verified, 1 error"), "{out}{err}");
}

#[test]
fn a_kernel_template_is_instantiated_by_its_launch() {
    let d = tempfile::tempdir().unwrap();
    let text = "template <class T, int N>\n__global__ void fill(T *a) {\n  __shared__ T s[N];\n  s[threadIdx.x] = a[threadIdx.x];\n  __syncthreads();\n  a[threadIdx.x] = s[N - 1 - threadIdx.x];\n}\nint main() {\n  float *p;\n  fill<float, 128><<<1, 128>>>(p);\n}\n";
    write(d.path(), "t.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "t.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("blockDim=128, gridDim=1 taken from the launch at t.cu:10"), "{err}");
    let (code, out, err) = run(d.path(), &["verify", "--kernel=fill<float, 128>", "t.cu"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// A launch in a host function template takes the template's arguments (`dim3 blocks(N /
/// 2)` in `run<int, 128>`): with 128 threads, `s[N - 1 - threadIdx.x]` would be read outside
/// what this block wrote at an index another thread writes.
#[test]
fn a_launch_in_a_host_function_template_takes_its_arguments() {
    let d = tempfile::tempdir().unwrap();
    let text = "template <int N>\n__global__ void k(int *a) {\n  __shared__ int s[N];\n  s[threadIdx.x] = a[threadIdx.x];\n  __syncthreads();\n  a[threadIdx.x] = s[N / 2 - 1 - threadIdx.x];\n}\ntemplate <class T, int N>\nvoid run(int *p) {\n  dim3 blocks(N / 2);\n  k<N><<<1, blocks>>>(p);\n}\nint main() { run<int, 128>(0); run<long, 256>(0); }\n";
    write(d.path(), "t.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "t.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("blockDim=64, gridDim=1 taken from the launch at t.cu:11"), "{err}");
    assert!(err.contains("blockDim=128, gridDim=1 taken from the launch at t.cu:11"), "{err}");
}

/// Sizes assigned before the launch (`dim3 blocks, threads; blocks = dim3(2);`, as
/// HeCBench's match does) are taken when the last assignment before the launch runs on every
/// path to it; an assignment under a condition, one later in a loop around the launch, or
/// one naming a variable that changes leaves the size symbolic.
#[test]
fn sizes_assigned_before_the_launch_are_taken_when_they_reach_it() {
    let d = tempfile::tempdir().unwrap();
    let text = "__global__ void k(int *a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1; }\nint main(int argc, char **argv) {\n  int *p = 0;\n  dim3 blocks, threads;\n  blocks = dim3(2);\n  threads = dim3(64);\n  for (int i = 0; i < 10; i++)\n    k<<<blocks, threads>>>(p);\n  threads = dim3(32);\n  k<<<blocks, threads>>>(p);\n  if (argc > 1) threads = dim3(128);\n  k<<<1, threads>>>(p);\n  dim3 t;\n  t = dim3(64);\n  for (int i = 0; i < 10; i++) {\n    k<<<1, t>>>(p);\n    t = dim3(32);\n  }\n  int n = 8;\n  dim3 g;\n  g = dim3(n);\n  n = 16;\n  k<<<g, 16>>>(p);\n}\n";
    write(d.path(), "a.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "a.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("blockDim=64, gridDim=2 taken from the launch at a.cu:8"), "{err}");
    assert!(err.contains("blockDim=32, gridDim=2 taken from the launch at a.cu:10"), "{err}");
    assert!(err.contains("blockDim=[*,*,*], gridDim=1 taken from the launches at a.cu:12, a.cu:16"), "{err}");
    assert!(err.contains("blockDim=16, gridDim=[*,*,*] taken from the launch at a.cu:23"), "{err}");
}

/// A `dim3` set field by field (`b.x = 64; b.y = 1;`, as HeCBench's morphology does): each
/// field the last such assignment before the launch on every path gives, the others as the
/// declaration left them (`dim3 b;` is 1, 1, 1); a field set from a run-time value, or set in a
/// branch, stays symbolic.
#[test]
fn a_dim3_set_field_by_field_gives_the_launch() {
    let d = tempfile::tempdir().unwrap();
    let text = "__global__ void k(int *a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1; }\nint main(int argc, char **argv) {\n  int *p = 0;\n  dim3 block, grid;\n  block.x = 64;\n  block.y = 1;\n  grid.x = argc;\n  if (argc > 2) grid.y = 2;\n  k<<<grid, block>>>(p);\n}\n";
    write(d.path(), "f.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "f.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("blockDim=64, gridDim=[*,*] taken from the launch at f.cu:9"), "{err}");
}

/// A launch written in a user's header is named by that header and its line, not as "an
/// included file" (issue 24).
#[test]
fn a_launch_in_a_users_header_names_the_header() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "launch.h", "// the host side\n\nvoid run(int *a) {\n  k<<<4, 64>>>(a);\n}\n");
    write(
        d.path(),
        "f.cu",
        "__global__ void k(int *a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1; }\n#include \"launch.h\"\nint main() { run(0); }\n",
    );
    let (code, out, err) = run(d.path(), &["verify", "f.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("blockDim=64, gridDim=4 taken from the launch at ") && err.contains("launch.h:4"), "{err}");
}

#[test]
fn a_kernel_in_an_included_header_is_verified() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "include/kernels.h", "__global__ void racy(int *a) { a[threadIdx.x] = a[threadIdx.x + 1]; }\n");
    write(d.path(), "src/main.cu", "#include \"kernels.h\"\nint main() { int *p; racy<<<1, 32>>>(p); }\n");
    // A relative -I is relative to the directory syncfix runs in, as for clang.
    let (code, out, err) = run(d.path(), &["verify", "-Iinclude", "src/main.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(format!("{out}{err}").contains("race on a["), "{out}{err}");
    assert!(format!("{out}{err}").contains("kernels.h:1"), "{out}{err}");
}

#[test]
fn host_code_that_does_not_compile_is_left_out_with_a_note() {
    let d = tempfile::tempdir().unwrap();
    let text = "#include <cublas_v2.h>\n#include \"helper_timer.h\"\n__global__ void k(int *a) { a[threadIdx.x] = 1; }\nint main() {\n  cublasHandle_t h;\n  cublasCreate(&h);\n  StopWatchInterface *t = 0;\n  return 0;\n}\n";
    write(d.path(), "p.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "p.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("`cublas_v2.h`, `helper_timer.h` not found; device code compiles without them"), "{err}");
    assert!(err.contains("host code that does not compile was left out (the bodies of main)"), "{err}");
    // A device function that does not compile is still clang's error, as it is written.
    let text = "#include <cublas_v2.h>\n__global__ void k(cublasHandle_t h, int *a) { a[threadIdx.x] = 1; }\n";
    write(d.path(), "q.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "q.cu"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("'cublas_v2.h' file not found"), "{err}");
}

/// Host code in the user's own headers (HeCBench's hbc and Chai's programs): a host class
/// with a field of a library's type, host prototypes naming a type from a header that is not
/// there, an inline host function calling the library. Each is left out through clang's
/// file overlay (the header on disk is not touched) and said in a note; device code that
/// uses such a class is still an error.
#[test]
fn host_code_in_a_users_header_is_left_out_with_a_note() {
    let d = tempfile::tempdir().unwrap();
    let header = "#pragma once\n#include <vector>\n#include <boost/bimap.hpp>\n#include \"support/common.h\"\nclass graph {\n public:\n  int *R;\n  int n;\n  boost::bimap<unsigned, int> IDs;\n};\nvoid run_cpu(flowvector *v, int n);\ninline int count(graph &g) {\n  return g.IDs.size();\n}\n";
    write(d.path(), "util.h", header);
    let text = "#include \"util.h\"\n__global__ void k(int *a) { a[threadIdx.x] = 1; }\nint main() {\n  graph g;\n  run_cpu(0, 0);\n  k<<<1, 32>>>(g.R);\n}\n";
    write(d.path(), "main.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "main.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("`boost/bimap.hpp`, `support/common.h` not found"), "{err}");
    assert!(err.contains("the bodies of count (util.h), main"), "{err}");
    assert!(err.contains("the declarations of run_cpu (util.h)"), "{err}");
    assert!(err.contains("the field graph::IDs"), "{err}");
    assert_eq!(std::fs::read_to_string(d.path().join("util.h")).unwrap(), header);
    // A kernel that takes the class whose field was left out: its layout is not the user's.
    write(
        d.path(),
        "dev.cu",
        &text
            .replace("__global__ void k(int *a) { a[threadIdx.x] = 1; }", "__global__ void k(graph g) { g.R[threadIdx.x] = 1; }")
            .replace("k<<<1, 32>>>(g.R)", "k<<<1, 32>>>(g)"),
    );
    let (code, out, err) = run(d.path(), &["verify", "dev.cu"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("device code uses `graph`"), "{err}");
}

#[test]
fn a_program_may_define_what_cuda_headers_define() {
    let d = tempfile::tempdir().unwrap();
    let text = "#include <time.h>\ntypedef long clock_t;\nstruct V { float x, y, z; };\n__host__ __device__ inline float3 make_float3(float s) { return make_float3(s, s, s); }\n__host__ __device__ inline float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }\n__host__ __device__ inline float3 cross(float3 a, float3 b) { return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }\n__global__ void k(float3 *a) { a[threadIdx.x] = cross(make_float3(1.0f), a[threadIdx.x]); }\n";
    write(d.path(), "own.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=32", "--gridDim=1", "own.cu"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn cooperative_groups_reduce_over_a_tile_is_a_value_and_no_barrier() {
    let d = tempfile::tempdir().unwrap();
    let text = "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n__global__ void sum(const int *in, int *out) {\n  __shared__ int partial[8];\n  cg::thread_block block = cg::this_thread_block();\n  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);\n  int v = cg::reduce(tile, in[block.thread_rank()], cg::plus<int>());\n  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;\n  block.sync();\n  if (block.thread_rank() == 0) { int s = 0; for (int i = 0; i < 8; ++i) s += partial[i]; *out = s; }\n}\n";
    write(d.path(), "cg.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=256", "--gridDim=1", "cg.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    // Without block.sync(), thread 0 reads what the other tiles' leaders write: cg::reduce
    // orders no memory.
    write(d.path(), "cg2.cu", &text.replace("  block.sync();\n", ""));
    let (code, out, err) = run(d.path(), &["verify", "--blockDim=256", "--gridDim=1", "cg2.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(format!("{out}{err}").contains("race on partial["), "{out}{err}");
}

#[test]
fn cub_block_reduce_and_the_reuse_of_its_temp_storage() {
    let d = tempfile::tempdir().unwrap();
    let text = "#include <cub/cub.cuh>\n#define THREADS 128\n__global__ void twice(const float *in, float *out) {\n  typedef cub::BlockReduce<float, THREADS> BlockReduce;\n  __shared__ typename BlockReduce::TempStorage temp;\n  float a = BlockReduce(temp).Sum(in[threadIdx.x]);\n  __syncthreads();\n  float b = BlockReduce(temp).Sum(in[THREADS + threadIdx.x]);\n  if (threadIdx.x == 0) { out[0] = a; out[1] = b; }\n}\nint main() { float *p; twice<<<1, THREADS>>>(p, p + 256); }\n";
    write(d.path(), "cub.cu", text);
    let (code, out, err) = run(d.path(), &["verify", "cub.cu"]);
    assert_eq!(code, 0, "{out}{err}");
    // CUB's documentation: a TempStorage reused without a barrier between is a race.
    write(d.path(), "cub2.cu", &text.replace("  __syncthreads();\n", ""));
    let (code, out, err) = run(d.path(), &["verify", "cub2.cu"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(format!("{out}{err}").contains("race on temp"), "{out}{err}");
}

#[test]
fn an_opencl_kernel_defined_in_an_included_header_under_if() {
    let d = tempfile::tempdir().unwrap();
    // The layout of several AMD SDK kernels of GPUVerify's benchmark set: the file sets a
    // macro and includes the header that defines the kernels under `#if`.
    write(
        d.path(),
        "common.h",
        "#if mykernel == 1\n__kernel void k(__global int *a) { a[get_global_id(0)] = a[get_global_id(0) + 1]; }\n#endif\n",
    );
    write(d.path(), "sub/kernel.cl", "#define mykernel 1\n#include \"../common.h\"\n");
    let (code, out, err) = run(d.path(), &["verify", "--local_size=64", "--num_groups=4", "sub/kernel.cl"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(format!("{out}{err}").contains("race on a[") && format!("{out}{err}").contains("common.h:2"), "{out}{err}");
    write(d.path(), "sub/none.cl", "#define mykernel 2\n#include \"../common.h\"\n");
    let (code, out, err) = run(d.path(), &["verify", "--local_size=64", "--num_groups=4", "sub/none.cl"]);
    assert_eq!(code, 4, "{out}{err}");
}
