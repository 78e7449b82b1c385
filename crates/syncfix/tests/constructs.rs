//! The front end's lowering, one construct per test, checked by its meaning: each kernel is
//! verified through the whole pipeline (clang-19 and Z3 are required) and the verdict shows
//! that the construct was lowered as C defines it — a race on the right array and element, a
//! value the assertion can rely on — not merely that lowering did not fail.

mod common;

use common::*;
use syncfix::Language;

// ---- pointers -------------------------------------------------------------------------

#[test]
fn a_pointer_chosen_by_a_condition_accesses_the_array_it_points_to() {
    // Only B is written by every thread at one element: the race is on B, not A.
    let src = "__global__ void k(int *A, int *B, int c) { int *p = c ? A + threadIdx.x : B; *p = 1 + threadIdx.x; }";
    starts(cuda(src, 32, 1), "possible write-write race on B[0]");
    let safe = "__global__ void k(int *A, int *B, int c) { int *p = c ? A : B; p[threadIdx.x] = 1; }";
    starts(cuda(safe, 32, 1), "verified");
}

#[test]
fn a_pointer_phi_over_a_loop_back_edge_becomes_dynamic() {
    // On the first iteration p is A, afterwards B: the write to B[0] races.
    let src = "__global__ void k(int *A, int *B) { int *p = A; for (int i = 0; i < 2; i++) { if (i == 1) p[0] = threadIdx.x; else p[threadIdx.x] = 0; p = B; } }";
    starts(cuda(src, 32, 1), "possible write-write race on B[0]");
}

#[test]
fn an_access_through_a_null_pointer_is_reported() {
    starts(
        opencl("__kernel void k(__global int *A, int c) { __global int *p = c ? A : 0; p[get_local_id(0)] = 1; }", 16, 1),
        "possible null pointer access",
    );
    starts(
        opencl("__kernel void k(__global int *A, int c) { __global int *p = c ? A : 0; if (p != 0) p[get_local_id(0)] = 1; }", 16, 1),
        "verified",
    );
}

#[test]
fn an_uninitialised_pointer_points_nowhere() {
    starts(opencl("__kernel void k() { __global int *x; __assert(x == 0); }", 4, 1), "this assertion might not hold");
}

#[test]
fn pointers_stored_in_memory_keep_their_target() {
    let src = "struct S { int *p; int n; };
__global__ void k(int *A, int *B) { S s; s.p = B; s.n = 0; s.p[s.n] = threadIdx.x; }";
    starts(cuda(src, 32, 1), "possible write-write race on B[0]");
    let arr = "__global__ void k(int *A, int *B) { int *ps[2]; ps[0] = A; ps[1] = B; ps[threadIdx.x % 2][threadIdx.x] = 1; }";
    starts(cuda(arr, 32, 1), "verified");
}

#[test]
fn pointers_through_integers_keep_their_target() {
    let src = "__global__ void k(int *H) { unsigned long t = (unsigned long)H; t += sizeof(int); int *G = (int *)t; G -= 1; G[threadIdx.x] = threadIdx.x; }";
    starts(cuda(src, 32, 1), "verified");
    let racy = "__global__ void k(int *H) { unsigned long t = (unsigned long)H; int *G = (int *)t; G[0] = threadIdx.x; }";
    starts(cuda(racy, 32, 1), "possible write-write race on H[0]");
}

#[test]
fn pointer_fields_of_a_struct_parameter_point_to_fresh_arrays_named_by_their_path() {
    let src = "struct s { float *p[4]; int n; };
__global__ void k(s q) { q.p[2][0] = threadIdx.x; }";
    starts(cuda(src, 32, 1), "possible write-write race on q.p[2][0]");
    let inherit = "struct a { char *p; }; struct b : a { int x; };
__global__ void k(b q) { q.p[threadIdx.x] = 1; }";
    starts(cuda(inherit, 32, 1), "verified");
}

#[test]
fn casts_between_pointer_types_address_bytes() {
    // Thread t writes bytes 4t..4t+3 through a char pointer: no two threads share a byte.
    let src = "__global__ void k(int *A) { char *c = (char *)A; c[4 * threadIdx.x + 3] = 1; }";
    starts(cuda(src, 32, 1), "verified");
    let distinct = "__global__ void k(int *A) { char *c = (char *)A; c[2 * threadIdx.x] = threadIdx.x; }";
    starts(cuda(distinct, 32, 1), "verified");
    let overlap = "__global__ void k(int *A) { short *c = (short *)A; c[threadIdx.x] = 1; A[threadIdx.x] = 2; }";
    starts(cuda(overlap, 32, 1), "possible write-write race on A[");
}

// ---- aggregates ---------------------------------------------------------------------

#[test]
fn structs_and_arrays_of_structs_are_laid_out_as_c_does() {
    let src = "struct P { char c; int x; short y[3]; };
__global__ void k(P *A) { A[threadIdx.x].x = 1; A[threadIdx.x].y[2] = 2; }";
    starts(cuda(src, 32, 1), "verified");
    // x is at byte 4 (after padding), so the next element's c is another byte.
    let padded = "struct P { char c; int x; };
__global__ void k(P *A) { A[threadIdx.x].x = threadIdx.x; A[threadIdx.x + 1].c = threadIdx.x; }";
    starts(cuda(padded, 32, 1), "verified");
    let overlap = "struct P { int x; int y; };
__global__ void k(P *A) { A[threadIdx.x].y = threadIdx.x; int *raw = (int *)A; raw[2 * threadIdx.x + 2] = threadIdx.x; }";
    starts(cuda(overlap, 32, 1), "verified");
    let clash = "struct P { int x; int y; };
__global__ void k(P *A) { A[threadIdx.x].y = threadIdx.x; int *raw = (int *)A; raw[2 * threadIdx.x + 3] = threadIdx.x; }";
    starts(cuda(clash, 32, 1), "possible write-write race on A[");
}

#[test]
fn unions_share_their_bytes() {
    let src = "union U { int i; float f; };
__global__ void k(U *A) { A[threadIdx.x].i = threadIdx.x; A[threadIdx.x + 1].f = 2.0f; }";
    starts(cuda(src, 32, 1), "possible write-write race on A[");
}

#[test]
fn nested_arrays_index_row_major() {
    let src = "__global__ void k(int *out) { __shared__ int s[4][8]; s[threadIdx.x / 8][threadIdx.x % 8] = 1; __syncthreads(); out[threadIdx.x] = s[threadIdx.x % 4][threadIdx.x / 4]; }";
    starts(cuda(src, 32, 1), "verified");
    let racy = "__global__ void k() { __shared__ int s[4][8]; s[threadIdx.x / 8][0] = threadIdx.x; }";
    starts(cuda(racy, 32, 1), "possible write-write race on s[");
}

#[test]
fn struct_parameters_are_the_same_for_every_thread() {
    let src = "struct P { int a; int b; };
__global__ void k(P p, int *A) { __assert(p.a == __other_int(p.a)); A[threadIdx.x] = p.b; }";
    starts(cuda(src, 32, 1), "verified");
}

#[test]
fn private_arrays_indexed_at_run_time_hold_their_values() {
    let src = "__global__ void k(int *A, int i) { __requires(i >= 0 & i < 8); int a[8]; for (int j = 0; j < 8; j++) a[j] = j; __assert(a[i] == i); }";
    starts(cuda(src, 4, 1), "verified");
}

#[test]
fn memcpy_and_memset_copy_bytes() {
    let src = "struct S { int a; int b; };
__global__ void k(S *out, S *in) { S t; memcpy(&t, &in[threadIdx.x], sizeof(S)); memset(&out[threadIdx.x], 0, sizeof(S)); out[threadIdx.x].a = t.b; }";
    starts(cuda(src, 32, 1), "verified");
    let racy = "struct S { int a; int b; };
__global__ void k(S *out) { memset(out, threadIdx.x, 2 * sizeof(S)); }";
    starts(cuda(racy, 32, 1), "possible write-write race on out[");
    let value = "__global__ void k() { int x[2]; memset(x, 1, sizeof(x)); __assert(x[1] == 0x01010101); }";
    starts(cuda(value, 4, 1), "verified");
    let null = "__global__ void k(int *out) { memcpy(&out[threadIdx.x], 0, sizeof(int)); }";
    starts(cuda(null, 4, 1), "possible null pointer access");
}

#[test]
fn vectors_are_element_wise() {
    let src = "__kernel void k(__global int4 *A) { int4 v = (int4)(1, 2, 3, 4); A[get_local_id(0)] = v * 2; __assert(v.w == 4); }";
    starts(opencl(src, 16, 1), "verified");
    let racy = "__kernel void k(__global float4 *A) { A[0].y = get_local_id(0); }";
    starts(opencl(racy, 16, 1), "possible write-write race on A[0] (bytes 4..7)");
    // Writing one component writes only it: two threads writing two components do not race.
    let lanes = "__kernel void k(__global float4 *A) { if (get_local_id(0) == 0) A[3].x = 1.0f; if (get_local_id(0) == 1) A[3].y = 2.0f; }";
    starts(opencl(lanes, 16, 1), "verified");
    let same = "__kernel void k(__global float4 *A) { if (get_local_id(0) == 0) A[3].y = 1.0f; if (get_local_id(0) == 1) A[3].y = 2.0f; }";
    starts(opencl(same, 16, 1), "possible write-write race on A[3] (bytes 4..7)");
}

// ---- control flow -------------------------------------------------------------------

#[test]
fn short_circuit_conditions_only_evaluate_what_they_must() {
    // With i out of range the second operand (an out-of-bounds read) is not evaluated.
    let src = "__global__ void k(int *A) { __shared__ int s[32]; s[threadIdx.x] = 0; if (threadIdx.x < 16 && s[threadIdx.x + 16] == 0) A[threadIdx.x] = 1; }";
    // The read is of s[16..32) (threads below 16), never past the array.
    let got = cuda(src, 32, 1);
    let index: u32 = got
        .strip_prefix("possible write-read race on s[")
        .and_then(|r| r.split(']').next())
        .and_then(|i| i.parse().ok())
        .unwrap_or_else(|| panic!("expected a write-read race on s[16..32), got `{got}`"));
    assert!((16..32).contains(&index), "{got}");
    let guarded = "__global__ void k(int *A) { __shared__ int s[32]; s[threadIdx.x] = 0; if (threadIdx.x >= 32 && s[threadIdx.x] == 0) A[threadIdx.x] = 1; }";
    starts(cuda(guarded, 32, 1), "verified");
}

#[test]
fn switch_statements_branch_on_their_value() {
    let src = "__global__ void k(int *A) { int v; switch (threadIdx.x % 3) { case 0: v = 10; break; case 1: v = 20; break; default: v = 30; } __assert(v == 10 | v == 20 | v == 30); __assert(threadIdx.x % 3 != 1 | v == 20); A[threadIdx.x] = v; }";
    starts(cuda(src, 32, 1), "verified");
}

#[test]
fn do_while_break_continue_and_early_return() {
    let src = "__global__ void k(int *A) { int i = 0; do { i++; if (i == 2) continue; if (i == 3) break; } while (i < 10); __assert(i == 3); if (threadIdx.x > 4) return; A[threadIdx.x] = i; }";
    starts(cuda(src, 32, 1), "verified");
    let racy = "__global__ void k(int *A) { for (int i = 0; i < 4; i++) { if (i == 2) { A[0] = threadIdx.x; break; } } }";
    starts(cuda(racy, 32, 1), "possible write-write race on A[0]");
}

// ---- memory spaces ------------------------------------------------------------------

#[test]
fn large_constant_arrays_are_known() {
    let mut table = String::new();
    for i in 0..512 {
        table.push_str(&format!("{}, ", i * 3));
    }
    let src = format!(
        "__constant int T[512] = {{ {table} }};
__kernel void k(__global int *A) {{ int i = get_local_id(0); __assert(T[i] == 3 * i); A[T[i] / 3] = 1; }}"
    );
    starts(opencl(&src, 64, 1), "verified");
}

#[test]
fn restrict_pointers_are_distinct_arrays() {
    starts(
        cuda("__global__ void k(int * __restrict__ A, const int * __restrict__ B) { A[threadIdx.x] = B[threadIdx.x + 1]; }", 32, 1),
        "verified",
    );
}

// ---- constant expressions: folded exactly, never guessed ----------------------------
// clang folds operations on addresses of globals into LLVM constant expressions; LLVM 19
// keeps add, sub, mul, xor, trunc, ptrtoint, inttoptr, bitcast, addrspacecast, getelementptr
// and the vector element operations as such. Each is checked against the same operation done
// by an instruction at run time (`c` is a parameter), or by the access it makes.

/// A kernel over `__device__ int g[8]` whose body is `body`, verified with 32 threads.
fn with_global(body: &str) -> String {
    cuda(&format!("__device__ int g[8];\n__global__ void k(long *A, int c) {{ {body} }}"), 32, 1)
}

#[test]
fn constant_add_and_inttoptr_address_the_element() {
    // inttoptr (add (ptrtoint @g, 4)): g[1], written by every thread.
    starts(with_global("int *p = (int *)((long)g + 4); p[0] = threadIdx.x;"), "possible write-write race on g[1]");
}

#[test]
fn constant_sub_and_ptrtoint_give_the_distance() {
    starts(with_global("long d = (long)&g[3] - (long)&g[0]; __assert(d == 12); A[threadIdx.x] = d;"), "verified");
    starts(with_global("long d = (long)&g[3] - (long)&g[0]; __assert(d == 3); A[threadIdx.x] = d;"), "this assertion might not hold");
}

#[test]
fn constant_mul_is_the_product() {
    // `(long)g << c` is an instruction; with c == 1 it must equal the folded `(long)g * 2`.
    starts(with_global("long m = (long)g * 2; long s = (long)g << c; __assert(c != 1 | m == s); A[threadIdx.x] = m;"), "verified");
    starts(
        with_global("long m = (long)g * 2; long s = (long)g << c; __assert(c != 2 | m == s); A[threadIdx.x] = m;"),
        "this assertion might not hold",
    );
}

#[test]
fn constant_xor_is_the_exclusive_or() {
    starts(with_global("long x = (long)g ^ 1; long o = (long)g | c; __assert(c != 1 | x == o); A[threadIdx.x] = x;"), "verified");
    starts(
        with_global("long x = (long)g ^ 1; long o = (long)g | c; __assert(c != 3 | x == o); A[threadIdx.x] = x;"),
        "this assertion might not hold",
    );
}

#[test]
fn constant_trunc_keeps_the_low_bits() {
    // trunc (xor (ptrtoint @g, 6)) to i16: the offset bits of g's address, 0, xor 6.
    starts(with_global("short t = (short)((long)g ^ 6); __assert(t == 6); A[threadIdx.x] = t;"), "verified");
    // ptrtoint to i32 of &g[1]: the low 32 bits of the address, the offset 4.
    starts(with_global("int t = (int)(long)&g[1]; __assert(t == 4); A[threadIdx.x] = t;"), "verified");
}

#[test]
fn a_constant_that_is_not_a_number_is_named() {
    // GNU C's label address is a `blockaddress` constant: no number syncfix can give it.
    let got = with_global("void *p = &&l; A[threadIdx.x] = (long)p; l: return;");
    assert!(got.contains("the constant `blockaddr"), "{got}");
}

// ---- what the front end refuses ----------------------------------------------------

#[test]
fn unsupported_constructs_are_named_with_their_line() {
    let asm = "__global__ void k(int *A) {\n  A[threadIdx.x] = 1;\n  asm(\"exit;\");\n}";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kernel.cu");
    std::fs::write(&path, asm).unwrap();
    match syncfix::verify(&path, asm, &options(Language::Cuda, [4, 1, 1], [1, 1, 1])) {
        Err(e) if e.stage == syncfix::ErrorStage::FrontEnd => {
            assert!(e.message.contains("unsupported construct: the inline assembly `exit;` (not modelled by syncfix)"), "{}", e.message);
            assert_eq!((e.line, e.column.is_some()), (Some(3), true));
        }
        Err(e) => panic!("expected an unsupported construct, got {e}"),
        Ok(_) => panic!("inline assembly was accepted"),
    }
}

// ---- function pointers ----------------------------------------------------------------

#[test]
fn a_call_through_a_function_pointer_runs_the_function_it_points_to() {
    // f is `twice` for the threads with an even id, `half` for the others: the assertion
    // holds only if each call runs the right function.
    let src = "__device__ int twice(int x) { return 2 * x; }
__device__ int half(int x) { return x / 2; }
typedef int (*fn_t)(int);
__global__ void k(int *A) { fn_t f = threadIdx.x % 2 == 0 ? twice : half; int v = f(threadIdx.x); __assert(threadIdx.x % 2 != 0 | v == 2 * threadIdx.x); A[threadIdx.x] = v; }";
    starts(cuda(src, 32, 1), "verified");
    let wrong = src.replace("v == 2 * threadIdx.x", "v == threadIdx.x");
    starts(cuda(&wrong, 32, 1), "this assertion might not hold");
}

#[test]
fn a_function_pointer_parameter_may_be_null_unless_required_otherwise() {
    let src = "__device__ void put(int *A) { A[threadIdx.x] = 1; }
typedef void (*fn_t)(int *);
__global__ void k(int *A, fn_t f) { f(A); }";
    starts(cuda(src, 32, 1), "possible null pointer access");
    let required = src.replace("{ f(A); }", "{ __requires(f == put); f(A); }");
    starts(cuda(&required, 32, 1), "verified");
    // The race in the function the pointer designates is found.
    let racy = required.replace("A[threadIdx.x] = 1", "A[0] = threadIdx.x");
    starts(cuda(&racy, 32, 1), "possible write-write race on A[0]");
}

#[test]
fn a_pointer_to_a_function_without_a_body_is_named() {
    let src = "__device__ int g(int);
__device__ int h(int x) { return x; }
typedef int (*fn_t)(int);
__global__ void k(int *A) { fn_t f = threadIdx.x ? g : h; A[threadIdx.x] = f(1); }";
    let got = cuda(src, 32, 1);
    assert!(got.contains("pointer to function `g`") && got.contains("no body"), "{got}");
}

// ---- images and textures --------------------------------------------------------------

#[test]
fn image_writes_race_on_the_texel_at_their_coordinates() {
    // Every work-item of a row writes texel (0, y): a race on dest[y][0]; writing its own
    // texel (x, y) is race-free, and reads (through a sampler) never race.
    let racy = "__kernel void k(__write_only image2d_t dest, __read_only image2d_t src) {
  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
  write_imagef(dest, (int2)(0, get_global_id(1)), read_imagef(src, s, (int2)(get_global_id(0), get_global_id(1))));
}";
    let opts = options(Language::OpenCl, [8, 8, 1], [2, 2, 1]);
    starts(verdict_with(racy, &opts), "possible write-write race on dest[");
    assert!(verdict_with(racy, &opts).contains("][0]"), "{}", verdict_with(racy, &opts));
    let safe = racy.replace("(int2)(0, get_global_id(1))", "(int2)(get_global_id(0), get_global_id(1))");
    starts(verdict_with(&safe, &opts), "verified");
}

#[test]
fn a_program_scope_sampler_and_a_sampler_parameter_are_accepted() {
    let src = "const sampler_t s = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_NEAREST;
__kernel void k(__read_only image2d_t img, sampler_t p, __global float *out) {
  float4 a = read_imagef(img, s, (int2)(get_global_id(0), 0));
  float4 b = read_imagef(img, p, (float2)(0.5f, 0.5f));
  out[get_global_id(0)] = a.x + b.y;
}";
    starts(opencl(src, 16, 2), "verified");
}

#[test]
fn a_texture_fetch_returns_an_arbitrary_value_of_the_texture_type() {
    // The fetched value is arbitrary: an index computed from it may collide.
    let src = "texture<int, 1, cudaReadModeElementType> t;
__global__ void k(int *A) { A[tex1Dfetch(t, threadIdx.x)] = threadIdx.x; }";
    starts(cuda(src, 32, 1), "possible write-write race on A[");
    let normalized = "texture<unsigned char, 2, cudaReadModeNormalizedFloat> t;
__global__ void k(float *A) { float v = tex2D(t, threadIdx.x + 0.5f, 0.5f); A[threadIdx.x] = v; }";
    starts(cuda(normalized, 32, 1), "verified");
}

// ---- annotations of the refined atomic abstraction and ghost arrays -------------------

#[test]
fn atomic_has_taken_value_queries_the_values_a_counter_returned() {
    let src = "__kernel void k(__global unsigned *c, __global int *out) {
  unsigned i = atomic_inc(c);
  __assert(__atomic_has_taken_value(c, 0, i + DELTA));
  out[i] = 1;
}";
    starts(opencl(&src.replace("DELTA", "0"), 64, 4), "verified");
    starts(opencl(&src.replace("DELTA", "1"), 64, 4), "this assertion might not hold");
}

#[test]
fn array_snapshot_copies_the_array_for_specifications() {
    let src = "__kernel void k() {
  __local int A[64];
  __local int G[64];
  A[get_local_id(0)] = get_local_id(0);
  __array_snapshot(G, A);
  A[get_local_id(0)]++;
  __assert(A[get_local_id(0)] == G[get_local_id(0)] + DELTA);
}";
    starts(opencl(&src.replace("DELTA", "1"), 64, 2), "verified");
    starts(opencl(&src.replace("DELTA", "0"), 64, 2), "this assertion might not hold");
}
