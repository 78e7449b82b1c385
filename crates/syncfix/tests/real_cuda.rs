//! CUDA as it is written in real projects and the CUDA SDK, through the whole pipeline: kernel
//! templates and their explicit instantiations, C++ in device code, CUDA's device headers
//! (vector types, make_*, the math library, warp intrinsics, textures), and macros inside the
//! statements syncfix marks. Each kernel must reach the verifier and get its verdict.

mod common;

use common::*;
use syncfix::{Language, Status};

/// The SDK-style reduction kernels reduce0..reduce6 (tests/data/reduction.cu), explicitly
/// instantiated: every instantiation is a kernel, reported under its name.
fn reduction(kernel: Option<&str>) -> Result<Vec<(String, String)>, String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reduction.cu");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut opts = options(Language::Cuda, [64, 1, 1], [2, 1, 1]);
    opts.source.kernel = kernel.map(str::to_owned);
    let (reports, _) = syncfix::verify(&path, &text, &opts).map_err(|e| e.to_string())?;
    Ok(reports
        .iter()
        .map(|r| {
            let verdict = match &r.status {
                Status::Verified => "verified".to_owned(),
                s if s.is_defect() => r.findings[0].headline(),
                other => format!("{other:?}"),
            };
            (r.kernel.clone(), verdict)
        })
        .collect())
}

#[test]
fn the_sdk_reductions_are_each_instantiation_a_kernel() {
    let got = reduction(None).unwrap();
    let names: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "reduce0<int>",
            "reduce0<float>",
            "reduce1<int>",
            "reduce2<int>",
            "reduce3<int>",
            "reduce4<int, 64u>",
            "reduce5<int, 64u>",
            "reduce6<int, 64u, true>",
            "reduce6<int, 64u, false>"
        ]
    );
    // The tree reductions with a barrier per step are race-free; the unrolled warp tails
    // (warp-synchronous, without __syncwarp) race, as CUDA's memory model says and GPUVerify
    // reports.
    for (k, v) in &got {
        if ["reduce0", "reduce1", "reduce2", "reduce3"].iter().any(|p| k.starts_with(p)) {
            assert_eq!(v, "verified", "{k}");
        } else {
            assert!(v.starts_with("possible") && v.contains("race on __smem["), "{k}: {v}");
        }
    }
}

#[test]
fn a_kernel_is_chosen_by_its_instantiation_or_symbol_and_a_templates_name_chooses_every_instantiation() {
    let one = reduction(Some("reduce6<int, 64, false>")).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].0, "reduce6<int, 64u, false>");
    let by_symbol = reduction(Some("_Z7reduce2IiEvPT_S1_j")).unwrap();
    assert_eq!(by_symbol, [("reduce2<int>".to_owned(), "verified".to_owned())]);
    let by_name = reduction(Some("reduce3")).unwrap();
    assert_eq!(by_name.len(), 1);
    let every = reduction(Some("reduce0")).unwrap();
    assert_eq!(every, [("reduce0<int>".to_owned(), "verified".to_owned()), ("reduce0<float>".to_owned(), "verified".to_owned())]);
}

#[test]
fn a_kernel_template_without_instantiation_is_explained() {
    let src = "template <class T, unsigned int blockSize> __global__ void k(T *A) { A[threadIdx.x] = blockSize; }";
    let got = cuda(src, 32, 1);
    assert!(got.contains("never instantiated") && got.contains("template __global__ void k<int, 256>(int *);"), "{got}");
}

// ---- C++ in device code --------------------------------------------------------------

#[test]
fn namespaces_overloads_constexpr_and_device_function_templates() {
    let src = "namespace util {
  constexpr int kStride = 2;
  __device__ int twice(int x) { return kStride * x; }
  __device__ float twice(float x) { return x + x; }
  template <class T> __device__ T pick(T a, T b, bool first = true) { return first ? a : b; }
}
__global__ void k(int *A, float *B) {
  static_assert(util::kStride == 2, \"stride\");
  int t = threadIdx.x;
  A[util::pick(util::twice(t), 0)] = t;
  B[t] = util::twice(1.5f);
}";
    starts(cuda(src, 32, 1), "verified");
    // The default argument chooses `a`: with `false` every thread writes A[0].
    starts(
        cuda(&src.replace("util::pick(util::twice(t), 0)", "util::pick(util::twice(t), 0, false)"), 32, 1),
        "possible write-write race on A[0]",
    );
}

#[test]
fn lambdas_in_device_code() {
    let src = "__global__ void k(int *A) {
  int base = 2;
  auto at = [&](int i) -> int & { return A[base * i]; };
  at(threadIdx.x) = threadIdx.x;
}";
    starts(cuda(src, 32, 1), "verified");
    starts(cuda(&src.replace("base * i", "base * (i / 2)"), 32, 1), "possible write-write race on A[");
}

// ---- CUDA's device headers -----------------------------------------------------------

#[test]
fn a_kernel_may_overload_make_float3_as_helper_math_does() {
    let src = "inline __host__ __device__ float3 make_float3(float s) { return make_float3(s, s, s); }
inline __host__ __device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
__global__ void k(float3 *P) {
  float3 p = make_float3((float)threadIdx.x);
  P[threadIdx.x] = p + make_float3(1.0f, 2.0f, 3.0f);
}";
    starts(cuda(src, 32, 1), "verified");
}

#[test]
fn float4_arithmetic_is_element_wise_on_cuda_layout() {
    let src = "__global__ void k(float4 *V, int4 *I) {
  static_assert(sizeof(float4) == 16 && alignof(float4) == 16 && sizeof(float3) == 12 && alignof(float3) == 4, \"layout\");
  float4 a = V[threadIdx.x];
  float4 b = a * 2.0f + a - make_float4(1, 2, 3, 4);
  b += 0.5f * a;
  V[threadIdx.x] = -b / 3.0f;
  int4 i = I[threadIdx.x];
  i = i * 3 + 1;
  __assert(I[threadIdx.x].x != 1 | i.x == 4);
  I[threadIdx.x] = i;
}";
    starts(cuda(src, 32, 1), "verified");
    // Element-wise means one element per component: a wrong index races on float4 elements.
    starts(cuda("__global__ void k(float4 *V) { V[threadIdx.x / 2] = V[threadIdx.x / 2] * 2.0f; }", 32, 1), "possible ");
}

#[test]
fn frexp_and_sincos_write_through_their_pointers() {
    let own = "__global__ void k(float *A, int *E) { float s, c; sincosf(A[threadIdx.x], &s, &c); A[threadIdx.x] = frexpf(s + c, &E[threadIdx.x]) + frexp(1.0, &E[threadIdx.x]); }";
    starts(cuda(own, 32, 1), "verified");
    let shared = "__global__ void k(float *A, int *E) { A[threadIdx.x] = frexpf(A[threadIdx.x], &E[0]); }";
    starts(cuda(shared, 32, 1), "possible write-write race on E[0]");
    // The rest of the math library is there and deterministic.
    let math = "__global__ void k(float *A) { float x = A[threadIdx.x]; __assert(__float_as_int(rsqrtf(x) + __fdividef(x, 3.0f) + erfcinvf(x) + norm3df(x, x, x)) == __float_as_int(rsqrtf(x) + __fdividef(x, 3.0f) + erfcinvf(x) + norm3df(x, x, x))); }";
    starts(cuda(math, 32, 1), "verified");
}

#[test]
fn warp_intrinsics_give_arbitrary_values_and_ldg_reads() {
    // A shuffled value used as an index may collide.
    let shfl = "__global__ void k(int *A) { int v = __shfl_down_sync(0xffffffff, (int)threadIdx.x, 1); A[v] = 1 + threadIdx.x; }";
    starts(cuda(shfl, 32, 1), "possible write-write race on A[");
    let votes = "__global__ void k(unsigned *A) { unsigned m = __activemask(); A[threadIdx.x] = __ballot_sync(m, threadIdx.x > 3) + __popc(m) + (unsigned)clock() + (unsigned)clock64(); }";
    starts(cuda(votes, 32, 1), "verified");
    // __ldg is a read: it races with a write of another thread.
    let ldg = "__global__ void k(float *A) { float v = __ldg(&A[threadIdx.x + 1]); A[threadIdx.x] = v; }";
    starts(cuda(ldg, 32, 1), "possible read-write race on A[");
}

#[test]
fn a_2d_texture_reference_and_a_cubemap_are_read() {
    let src = "texture<float, cudaTextureType2D, cudaReadModeElementType> texRef;
texture<float4, cudaTextureTypeCubemap> cube;
__global__ void k(float *out, int width) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  float v = tex2D(texRef, x + 0.5f, y + 0.5f) + texCubemap(cube, 1.0f, 0.0f, 0.0f).x;
  out[y * 64 + x] = v;
}";
    starts(verdict_with(src, &options(Language::Cuda, [32, 1, 1], [2, 4, 1])), "verified");
}

// ---- macros in the statements syncfix marks --------------------------------------------

#[test]
fn a_macro_that_ends_a_marked_expression_keeps_the_kernel_verifiable() {
    // READ's `;` ends the statement inside the split syncfix would wrap around `READ(A)`: the
    // split is left out for that statement, and the race is found.
    let src = "#define READ(p) p[threadIdx.x + 1];
#define AT(p, i) p[i]
__global__ void k(int *A, int *B) {
  A[threadIdx.x] = READ(A);
  AT(B, threadIdx.x) = AT(B, threadIdx.x) + 1;
}";
    starts(cuda(src, 32, 1), "possible read-write race on A[");
    let safe = src.replace("threadIdx.x + 1];", "threadIdx.x];");
    starts(cuda(&safe, 32, 1), "verified");
}
