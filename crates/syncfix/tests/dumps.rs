//! Snapshots of the KIR text form (`--emit=kir`, `--emit=instrumented`) of the walking-skeleton
//! examples: a change to lowering or instrumentation shows up here as a reviewable diff.

use std::path::Path;
use syncfix::{Launch, Options};

fn dump(name: &str, src: &str, block: u32, grid: u32, instrumented: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, src).unwrap();
    let opts = Options::new(Launch::new([block, 1, 1], [grid, 1, 1]));
    syncfix::dump(Path::new(&path), src, &opts, instrumented).unwrap()
}

#[test]
fn kir_of_calls() {
    let src = "__device__ int get(int *A, int i) { return A[i + 1]; }\n__device__ void put(int *A, int i, int v) { A[i] = v; }\n__global__ void k(int *A) { int v = get(A, threadIdx.x); put(A, threadIdx.x, v); }\n";
    insta::assert_snapshot!(dump("calls.cu", src, 64, 1, false));
}

#[test]
fn instrumented_loop() {
    let src = "__global__ void k(float *out) { __shared__ float b[128]; unsigned t = threadIdx.x; b[t] = t;\n  __syncthreads(); for (unsigned s = 64; s > 0; s >>= 1) { if (t < s) b[t] += b[t + s]; }\n  if (t == 0) out[blockIdx.x] = b[0]; }\n";
    insta::assert_snapshot!(dump("loop.cu", src, 128, 2, true));
}

#[test]
fn kir_of_opencl_local() {
    let src = "__kernel void k(__global float *g) { __local float l[64]; size_t i = get_local_id(0);\n  l[i] = g[get_global_id(0)]; g[get_global_id(0)] = l[(i + 1) % 64]; }\n";
    insta::assert_snapshot!(dump("local.cl", src, 64, 4, false));
}
