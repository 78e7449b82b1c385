//! The statement table of OpenCL sources, read from clang-19's real AST, and their marked text.

mod common;

use common::{check, check_marked, Lang};

#[test]
fn opencl_kernel() {
    let src = r#"#define TILE 16
__kernel void k(__global int *A, __local float *B, __global float4 *V) {
  __local int s[8];
  int t = get_local_id(0);
  s[t] = A[t];
  barrier(CLK_LOCAL_MEM_FENCE);
  A[t] = s[t+1];
  B[t] = B[t + 1] * TILE;
  int p = s[0];
  p = s[1];
  V[t].x = V[t+1].y;
  for (int i = 0; i < 4; i++) {
    __invariant(i >= 0);
    A[i] += A[i + 1];
  }
  if (t == 0) barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); else ;
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
}
"#;
    let info = check(
        Lang::OpenCl,
        src,
        r#"
        0 Decl `__local int s[8];`
        1 Decl `int t = get_local_id(0);`
        2 Expr `s[t] = A[t];` split `A[t]`: int
        3 Expr Removable `barrier(CLK_LOCAL_MEM_FENCE);`
        4 Expr `A[t] = s[t+1];` split `s[t+1]`: int
        5 Expr `B[t] = B[t + 1] * TILE;` split `B[t + 1] * TILE`: float
        6 Decl `int p = s[0];`
        7 Expr `p = s[1];`
        8 Expr `V[t].x = V[t+1].y;` split `V[t+1].y`: float
        9 For `for (int i = 0; i < 4; i++) {
            __invariant(i >= 0);
            A[i] += A[i + 1];
          }`
          10 Compound `{
            __invariant(i >= 0);
            A[i] += A[i + 1];
          }`
            11 Expr loop-start `__invariant(i >= 0);`
            12 Expr `A[i] += A[i + 1];` split `A[i + 1]`: int
        13 If `if (t == 0) barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); else ;`
          14 Expr sole Removable `barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);`
          15 Null sole `;`
        16 Expr Removable `work_group_barrier(CLK_LOCAL_MEM_FENCE);`
        "#,
    );
    check_marked(Lang::OpenCl, src, &info);
    let k = info.functions.iter().find(|f| f.name == "k").unwrap();
    assert!(k.is_kernel && k.in_main && k.mangled_name.as_deref() == Some("k"));
    assert_eq!(k.params[1], ("B".to_owned(), "__local float *__private".to_owned()));
    let s = info.vars.iter().find(|v| v.name == "s").unwrap();
    assert!(s.shared && s.function.as_deref() == Some("k") && s.qual_type == "__local int[8]");
}

#[test]
fn opencl_helpers_and_sole_bodies() {
    let src = r#"int get(__local int *p, int i) { return p[i]; }
void put(__global int *p, int i, int v) { if (i >= 0) p[i] = v; }
__kernel void k(__global int *A) {
  __local int s[4];
  int t = get_local_id(0);
  while (t < 4) s[t++] = 0;
  put(A, t, get(s, t));
  A[t] = get(s, 0);
}
"#;
    let info = check(
        Lang::OpenCl,
        src,
        r#"
        0 Return `return p[i];`
        1 If `if (i >= 0) p[i] = v;`
          2 Expr sole `p[i] = v;`
        3 Decl `__local int s[4];`
        4 Decl `int t = get_local_id(0);`
        5 While `while (t < 4) s[t++] = 0;`
          6 Expr sole loop-start `s[t++] = 0;`
        7 Expr `put(A, t, get(s, t));`
        8 Expr `A[t] = get(s, 0);` split `get(s, 0)`: int
        "#,
    );
    check_marked(Lang::OpenCl, src, &info);
}
