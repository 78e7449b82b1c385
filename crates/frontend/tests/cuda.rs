//! The statement table of CUDA sources, read from clang-19's real AST, and their marked text.

mod common;

use common::{check, check_marked, Lang};

fn check_cuda(src: &str, expect: &str) {
    let info = check(Lang::Cuda, src, expect);
    check_marked(Lang::Cuda, src, &info);
}

#[test]
fn ranges_of_each_kind() {
    check_cuda(
        r#"__global__ void k(int *A) {
  int t = threadIdx.x, u = 0;
  A[t] = 1 /* one */ ;
  if (t) { return; } else u++;
  for (int i = 0; i < 2; i++) { if (i) continue; else break; }
  while (u < 3) u++;
  do { u--; } while (u > 0) ;
  goto end;
  ;
end:
  { }
}
"#,
        r#"
        0 Decl `int t = threadIdx.x, u = 0;`
        1 Expr `A[t] = 1 /* one */ ;`
        2 If `if (t) { return; } else u++;`
          3 Compound `{ return; }`
            4 Return `return;`
          5 Expr sole `u++;`
        6 For `for (int i = 0; i < 2; i++) { if (i) continue; else break; }`
          7 Compound `{ if (i) continue; else break; }`
            8 If loop-start `if (i) continue; else break;`
              9 Continue sole `continue;`
              10 Break sole `break;`
        11 While `while (u < 3) u++;`
          12 Expr sole loop-start `u++;`
        13 Do `do { u--; } while (u > 0) ;`
          14 Compound `{ u--; }`
            15 Expr loop-start `u--;`
        16 Other `goto end;`
        17 Null `;`
        18 Compound `{ }`
        "#,
    );
}

#[test]
fn else_if_chains_and_nested_sole_bodies() {
    check_cuda(
        r#"__global__ void k(int *A) {
  int a = A[0], b = A[1], x = 0;
  if (a) x = 1; else if (b) x = 2; else x = 3;
  if (a) if (b) x++;
  for (;;) if (a) while (b) b--; else break;
}
"#,
        r#"
        0 Decl `int a = A[0], b = A[1], x = 0;`
        1 If `if (a) x = 1; else if (b) x = 2; else x = 3;`
          2 Expr sole `x = 1;`
          3 If sole `if (b) x = 2; else x = 3;`
            4 Expr sole `x = 2;`
            5 Expr sole `x = 3;`
        6 If `if (a) if (b) x++;`
          7 If sole `if (b) x++;`
            8 Expr sole `x++;`
        9 For `for (;;) if (a) while (b) b--; else break;`
          10 If sole loop-start `if (a) while (b) b--; else break;`
            11 While sole `while (b) b--;`
              12 Expr sole loop-start `b--;`
            13 Break sole `break;`
        "#,
    );
}

#[test]
fn switch_case_and_labels() {
    check_cuda(
        r#"__global__ void k(int *A) {
  switch (A[0]) {
  case 0:
  case 1: A[1] = 0; break;
  default: { A[2] = 0; }
  }
  again: A[3]++;
  if (A[3] < 4) goto again;
  switch (A[4]) case 7: A[5] = 1;
}
"#,
        r#"
        0 Switch `switch (A[0]) {
          case 0:
          case 1: A[1] = 0; break;
          default: { A[2] = 0; }
          }`
          1 Expr `A[1] = 0;`
          2 Break `break;`
          3 Compound `{ A[2] = 0; }`
            4 Expr `A[2] = 0;`
        5 Expr `A[3]++;` split `A[3]`: int
        6 If `if (A[3] < 4) goto again;`
          7 Other sole `goto again;`
        8 Switch `switch (A[4]) case 7: A[5] = 1;`
          9 Expr sole `A[5] = 1;`
        "#,
    );
}

/// Statements inside a macro expansion are left out (`SET(A[0])`, the `then` arm of the last
/// `if`, both statements of `TWO(x) = 3;`, the first member of the loop body); statements that use macros, or begin or end with a whole invocation, are kept.
#[test]
fn macros() {
    check_cuda(
        r#"#define SET(x) x = 1;
#define N 4
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define BARRIER __syncthreads()
#define AT(p, i) p[i]
#define TWO(a) A[0] = 1; a
__global__ void k(int *A) {
  __shared__ int s[N];
  SET(A[0])
  int x = N + A[N];
  x = MAX(x, N);
  x = A[MAX(x, 2)] + 1;
  BARRIER;
  AT(A, 1) = AT(s, 2);
  if (x) SET(x) else x = 2;
  TWO(x) = 3;
  for (int i = 0; i < 2; i++) { SET(A[i]) A[i + 1] = 2; }
}
"#,
        r#"
        0 Decl `__shared__ int s[N];`
        1 Decl `int x = N + A[N];`
        2 Expr `x = MAX(x, N);`
        3 Expr `x = A[MAX(x, 2)] + 1;`
        4 Expr Removable `BARRIER;`
        5 Expr `AT(A, 1) = AT(s, 2);` split `AT(s, 2)`: int
        6 If `if (x) SET(x) else x = 2;`
          7 Expr sole `x = 2;`
        8 For `for (int i = 0; i < 2; i++) { SET(A[i]) A[i + 1] = 2; }`
          9 Compound `{ SET(A[i]) A[i + 1] = 2; }`
            10 Expr loop-start `A[i + 1] = 2;`
        "#,
    );
}

#[test]
fn splits() {
    check_cuda(
        r#"struct P { int v; int w[2]; };
__device__ int g;
__global__ void k(int *A, float *b, P *p, int s) {
  __shared__ int sv;
  int t = threadIdx.x, arr[2];
  P loc;
  int &r = A[0];
  A[t] = A[t+1];
  b[t] += b[t+s];
  int x = A[t];
  x = A[t];
  arr[0] = A[t];
  loc.v = A[t];
  loc.w[1] = *A;
  p->v = p[1].v;
  A[t] = sv;
  A[t] = g + 1;
  A[t] = t + s;
  A[t] = threadIdx.x;
  A[t] = sizeof(A[0]);
  r = A[1];
  s = x ? A[2] : 0;
  A[(x = A[3])] = 0;
}
"#,
        r#"
        0 Decl `__shared__ int sv;`
        1 Decl `int t = threadIdx.x, arr[2];`
        2 Decl `P loc;`
        3 Decl `int &r = A[0];`
        4 Expr `A[t] = A[t+1];` split `A[t+1]`: int
        5 Expr `b[t] += b[t+s];` split `b[t+s]`: float
        6 Decl `int x = A[t];`
        7 Expr `x = A[t];`
        8 Expr `arr[0] = A[t];`
        9 Expr `loc.v = A[t];`
        10 Expr `loc.w[1] = *A;`
        11 Expr `p->v = p[1].v;` split `p[1].v`: int
        12 Expr `A[t] = sv;` split `sv`: int
        13 Expr `A[t] = g + 1;` split `g + 1`: int
        14 Expr `A[t] = t + s;`
        15 Expr `A[t] = threadIdx.x;`
        16 Expr `A[t] = sizeof(A[0]);`
        17 Expr `r = A[1];` split `A[1]`: int
        18 Expr `s = x ? A[2] : 0;`
        19 Expr `A[(x = A[3])] = 0;`
        "#,
    );
}

#[test]
fn barrier_calls() {
    check_cuda(
        r#"using namespace cooperative_groups;
__global__ void k(int *A) {
  grid_group g = this_grid();
  thread_block b = this_thread_block();
  __syncthreads();
  if (A[0]) __syncthreads();
  g.sync();
  synchronize(b);
  this_grid().sync();
  (__syncthreads());
  __threadfence();
  A[0] = 1, __syncthreads();
}
"#,
        r#"
        0 Decl `grid_group g = this_grid();`
        1 Decl `thread_block b = this_thread_block();`
        2 Expr Removable `__syncthreads();`
        3 If `if (A[0]) __syncthreads();`
          4 Expr sole Removable `__syncthreads();`
        5 Expr Removable `g.sync();`
        6 Expr Removable `synchronize(b);`
        7 Expr Removable `this_grid().sync();`
        8 Expr Removable `(__syncthreads());`
        9 Expr `__threadfence();`
        10 Expr `A[0] = 1, __syncthreads();`
        "#,
    );
}

#[test]
fn pragma_loops_and_attributes() {
    let src = r#"__global__ void k(int *A) {
  int s = 0;
  #pragma unroll 4
  for (int i = 0; i < 8; i++) s += A[i];
  if (s)
#pragma unroll
    for (int j = 0; j < 2; j++) { A[j] = s; }
  [[likely]] A[0] = s;
}
"#;
    let info = check(
        Lang::Cuda,
        src,
        r#"
        0 Decl `int s = 0;`
        1 For `#pragma unroll 4
          for (int i = 0; i < 8; i++) s += A[i];`
          2 Expr sole loop-start `s += A[i];`
        3 If `if (s)
        #pragma unroll
            for (int j = 0; j < 2; j++) { A[j] = s; }`
          4 For sole `#pragma unroll
            for (int j = 0; j < 2; j++) { A[j] = s; }`
            5 Compound `{ A[j] = s; }`
              6 Expr loop-start `A[j] = s;`
        7 Expr `[[likely]] A[0] = s;`
        "#,
    );
    let marked = check_marked(Lang::Cuda, src, &info);
    // The markers of the pragma loops go after the previous token, off the pragma's line.
    assert!(marked.text.contains("int s = 0;__syncfix_anchor(1);\n  #pragma unroll 4\n"), "{}", marked.text);
    assert!(marked.text.contains("if (s){__syncfix_anchor(4);\n#pragma unroll\n"), "{}", marked.text);
}

#[test]
fn which_functions_get_statements() {
    let src = r#"int host_only(int *a) { a[0] = 1; return 0; }
__host__ __device__ int both(int *a) { return a[0]; }
constexpr int twice(int x) { return 2 * x; }
template <typename T> __device__ T first(T *p) { return p[0]; }
struct S { __device__ int get() const { return v; } int v; };
__global__ void k(int *A, float *F) {
  S s;
  A[0] = first(A) + (int)first(F) + s.get() + both(A) + twice(1);
}
"#;
    let info = check(
        Lang::Cuda,
        src,
        r#"
        0 Return `return a[0];`
        1 Return `return p[0];`
        2 Return `return v;`
        3 Decl `S s;`
        4 Expr `A[0] = first(A) + (int)first(F) + s.get() + both(A) + twice(1);` split `first(A) + (int)first(F) + s.get() + both(A) + twice(1)`: int
        "#,
    );
    check_marked(Lang::Cuda, src, &info);
    let main: Vec<_> =
        info.functions.iter().filter(|f| f.in_main).map(|f| (f.name.as_str(), f.mangled_name.as_deref(), f.is_kernel)).collect();
    assert_eq!(
        main,
        [
            ("host_only", Some("_Z9host_onlyPi"), false),
            ("both", Some("_Z4bothPi"), false),
            ("twice", Some("_Z5twicei"), false),
            ("first", None, false),
            ("first", Some("_Z5firstIiET_PS0_"), false),
            ("first", Some("_Z5firstIfET_PS0_"), false),
            ("get", Some("_ZNK1S3getEv"), false),
            ("k", Some("_Z1kPiPf"), true),
        ]
    );
    let k = info.functions.iter().find(|f| f.name == "k").unwrap();
    let body = k.body.unwrap();
    assert!(src[body.start..body.end].starts_with("{\n  S s;") && src[..body.end].ends_with("twice(1);\n}"));
    assert_eq!(k.params, [("A".to_owned(), "int *".to_owned()), ("F".to_owned(), "float *".to_owned())]);
}

#[test]
fn variables() {
    let src = r#"__device__ int g;
__constant__ float c[4];
__shared__ int gs[8];
__global__ void k(int *A) {
  __shared__ float tile[16];
  static __device__ int counter;
  int t = threadIdx.x;
  extern __shared__ int dynamic[];
  A[t] = g + (int)c[0] + gs[0] + (int)tile[0] + counter + dynamic[0];
}
"#;
    let info = common::ast(Lang::Cuda, src);
    let vars: Vec<_> = info
        .vars
        .iter()
        .map(|v| (v.name.as_str(), v.mangled_name.as_deref(), v.qual_type.as_str(), v.function.as_deref(), v.shared))
        .filter(|v| ["g", "c", "gs", "tile", "counter", "dynamic", "t"].contains(&v.0))
        .collect();
    assert_eq!(
        vars,
        [
            ("g", Some("g"), "int", None, false),
            ("c", Some("c"), "float[4]", None, false),
            ("gs", Some("gs"), "int[8]", None, true),
            ("tile", Some("_ZZ1kPiE4tile"), "float[16]", Some("k"), true),
            ("counter", Some("_ZZ1kPiE7counter"), "int", Some("k"), false),
            ("dynamic", Some("dynamic"), "int[]", Some("k"), true),
        ]
    );
}
