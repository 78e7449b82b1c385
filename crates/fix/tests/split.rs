//! Splitting `LHS op= RHS;` around a barrier (ARCHITECTURE.md, "crates/fix"): the RHS goes into a temporary; a
//! read-modify-write `x++;` reads `x` into a temporary and writes `x = tmp + 1;`.

mod common;

use common::Kernel;
use syncfix_fix::{BarrierText::*, Change, FixError};
use syncfix_kir::{StmtId, StmtKind};

fn split(stmt: StmtId) -> Change {
    Change::InsertSplit { stmt, barrier: CudaBlock }
}

#[test]
fn inline_split() {
    let mut k = Kernel::new("{ x = 1; A[threadIdx.x] = A[threadIdx.x + 1]; }");
    let s = k.split("A[threadIdx.x] = A[threadIdx.x + 1];", "A[threadIdx.x + 1]", "int");
    assert_eq!(k.fix(&[split(s)]), "{ x = 1; int tmp = A[threadIdx.x + 1]; __syncthreads(); A[threadIdx.x] = tmp; }");
}

#[test]
fn own_line_split_of_a_compound_assignment() {
    let src = "__global__ void k(float *A) {\n    A[threadIdx.x] += A[threadIdx.x + 1] * 2.0f;\n}\n";
    let mut k = Kernel::new(src);
    let s = k.split("A[threadIdx.x] += A[threadIdx.x + 1] * 2.0f;", "A[threadIdx.x + 1] * 2.0f", "const float");
    assert_eq!(
        k.fix(&[split(s)]),
        "__global__ void k(float *A) {\n    float tmp = A[threadIdx.x + 1] * 2.0f;\n    __syncthreads();\n    A[threadIdx.x] += tmp;\n}\n"
    );
}

#[test]
fn opencl_split_drops_the_address_space_of_the_value() {
    let src = "__kernel void k(__local int *A) {\n  A[get_local_id(0)] = A[get_local_id(0) + 1];\n}\n";
    let mut k = Kernel::new(src);
    let s = k.split("A[get_local_id(0)] = A[get_local_id(0) + 1];", "A[get_local_id(0) + 1]", "__local int");
    let changes = [Change::InsertSplit { stmt: s, barrier: OpenClBlock }];
    assert_eq!(
        k.fix(&changes),
        "__kernel void k(__local int *A) {\n  int tmp = A[get_local_id(0) + 1];\n  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n  A[get_local_id(0)] = tmp;\n}\n"
    );
}

#[test]
fn split_of_a_sole_body_is_braced() {
    let mut k = Kernel::new("  if (c) A[t] = A[t + 1];\n");
    let s = k.split("A[t] = A[t + 1];", "A[t + 1]", "int");
    k.table.stmts[s].sole_body = true;
    assert_eq!(k.fix(&[split(s)]), "  if (c) { int tmp = A[t + 1]; __syncthreads(); A[t] = tmp; }\n");
}

#[test]
fn split_of_an_own_line_sole_body_stays_on_its_line() {
    let mut k = Kernel::new("  for (;;)\n    A[t] = A[t + 1];\n");
    let s = k.split("A[t] = A[t + 1];", "A[t + 1]", "int");
    k.table.stmts[s].sole_body = true;
    assert_eq!(k.fix(&[split(s)]), "  for (;;)\n    { int tmp = A[t + 1]; __syncthreads(); A[t] = tmp; }\n");
}

#[test]
fn insert_and_split_on_one_statement() {
    let mut k = Kernel::new("{\n  A[t] = A[t + 1];\n}\n");
    let s = k.split("A[t] = A[t + 1];", "A[t + 1]", "int");
    let insert = Change::Insert { stmt: s, barrier: CudaBlock };
    let expected = "{\n  __syncthreads();\n  int tmp = A[t + 1];\n  __syncthreads();\n  A[t] = tmp;\n}\n";
    assert_eq!(k.fix(&[split(s), insert]), expected);
    assert_eq!(k.fix(&[insert, split(s)]), expected);
}

#[test]
fn insert_and_split_on_one_inline_statement() {
    let mut k = Kernel::new("{ A[t] = A[t + 1]; }");
    let s = k.split("A[t] = A[t + 1];", "A[t + 1]", "int");
    let insert = Change::Insert { stmt: s, barrier: CudaBlock };
    assert_eq!(k.fix(&[split(s), insert]), "{ __syncthreads(); int tmp = A[t + 1]; __syncthreads(); A[t] = tmp; }");
}

#[test]
fn block_and_grid_barrier_in_one_split() {
    let mut k = Kernel::new("#include <cooperative_groups.h>\n{ A[t] = A[t + 1]; }");
    let s = k.split("A[t] = A[t + 1];", "A[t + 1]", "int");
    let grid = Change::InsertSplit { stmt: s, barrier: CudaGrid };
    assert_eq!(
        k.fix(&[grid, split(s)]),
        "#include <cooperative_groups.h>\n{ int tmp = A[t + 1]; __syncthreads(); cooperative_groups::this_grid().sync(); A[t] = tmp; }"
    );
}

#[test]
fn temporary_name_avoids_identifiers_of_the_file() {
    let src = "{ int tmp = 0, tmp1 = 1; A[t] = A[tmp2x] + tmp + tmp1; }";
    let mut k = Kernel::new(src);
    let s = k.split("A[t] = A[tmp2x] + tmp + tmp1;", "A[tmp2x] + tmp + tmp1", "int");
    assert_eq!(k.fix(&[split(s)]), "{ int tmp = 0, tmp1 = 1; int tmp2 = A[tmp2x] + tmp + tmp1; __syncthreads(); A[t] = tmp2; }");
}

#[test]
fn temporary_name_check_is_whole_word() {
    let mut k = Kernel::new("{ mytmp = 0; A[t] = A[tmpx] + _tmp; }");
    let s = k.split("A[t] = A[tmpx] + _tmp;", "A[tmpx] + _tmp", "int");
    assert_eq!(k.fix(&[split(s)]), "{ mytmp = 0; int tmp = A[tmpx] + _tmp; __syncthreads(); A[t] = tmp; }");
}

#[test]
fn two_splits_get_distinct_names_in_source_order() {
    let src = "{\n  A[t] = A[t + 1];\n  B[t] = B[t + 1];\n}\n";
    let mut k = Kernel::new(src);
    let b = k.split("B[t] = B[t + 1];", "B[t + 1]", "float");
    let a = k.split("A[t] = A[t + 1];", "A[t + 1]", "int");
    assert_eq!(
        k.fix(&[split(b), split(a)]),
        "{\n  int tmp = A[t + 1];\n  __syncthreads();\n  A[t] = tmp;\n  float tmp1 = B[t + 1];\n  __syncthreads();\n  B[t] = tmp1;\n}\n"
    );
}

#[test]
fn split_in_a_switch_body_is_braced() {
    let src = "switch (k) {\n  case 0:\n    A[t] = A[t + 1];\n    break;\n  default:\n    break;\n}\n";
    let mut k = Kernel::new(src);
    let sw = k.add_nth(StmtKind::Switch, src, 0);
    let body = k.add_range(StmtKind::Compound, k.range("{\n  case 0:\n    A[t] = A[t + 1];\n    break;\n  default:\n    break;\n}"));
    k.set_parent(body, sw);
    let s = k.split("A[t] = A[t + 1];", "A[t + 1]", "int");
    k.set_parent(s, body);
    assert_eq!(
        k.fix(&[split(s)]),
        "switch (k) {\n  case 0:\n    { int tmp = A[t + 1]; __syncthreads(); A[t] = tmp; }\n    break;\n  default:\n    break;\n}\n"
    );
    // A plain insertion needs no scope.
    assert_eq!(
        k.fix(&[Change::Insert { stmt: s, barrier: CudaBlock }]),
        "switch (k) {\n  case 0:\n    __syncthreads();\n    A[t] = A[t + 1];\n    break;\n  default:\n    break;\n}\n"
    );
}

#[test]
fn split_that_does_not_fit() {
    let mut k = Kernel::new("{ a = b; A[t] = A[t + 1]; c = f(A[t]); }");
    let plain = k.stmt("a = b;");
    let fnptr = k.split("A[t] = A[t + 1];", "A[t + 1]", "int (*)(int)");
    let outside = k.split("c = f(A[t]);", "f(A[t])", "int");
    k.table.stmts[outside].split.as_mut().unwrap().rhs.end += 3; // past the statement's `;`
    for s in [plain, fnptr, outside] {
        let err = k.build(&[split(s)]).unwrap_err();
        assert!(matches!(err, FixError::DoesNotFit { stmt, .. } if stmt == s), "{err}");
    }
}

#[test]
fn read_modify_writes_read_into_a_temporary_and_write_after_the_barrier() {
    let src = "__kernel void k(__local short *p) {\n  p[0]++;\n  --p[1];\n  p[2] <<= n + 1;\n  p[3] *= 2;\n}\n";
    let mut k = Kernel::new(src);
    let a = k.read_modify_write("p[0]++;", "p[0]", "+", None, "__local short");
    let b = k.read_modify_write("--p[1];", "p[1]", "-", None, "__local short");
    let c = k.read_modify_write("p[2] <<= n + 1;", "p[2]", "<<", Some("n + 1"), "__local short");
    let d = k.read_modify_write("p[3] *= 2;", "p[3]", "*", Some("2"), "__local short");
    let changes: Vec<Change> = [a, b, c, d].map(|stmt| Change::InsertSplit { stmt, barrier: OpenClLocal }).to_vec();
    assert_eq!(
        k.fix(&changes),
        "__kernel void k(__local short *p) {\n  short tmp = p[0];\n  barrier(CLK_LOCAL_MEM_FENCE);\n  p[0] = tmp + 1;\n  \
         short tmp1 = p[1];\n  barrier(CLK_LOCAL_MEM_FENCE);\n  p[1] = tmp1 - 1;\n  \
         short tmp2 = p[2];\n  barrier(CLK_LOCAL_MEM_FENCE);\n  p[2] = tmp2 << (n + 1);\n  \
         short tmp3 = p[3];\n  barrier(CLK_LOCAL_MEM_FENCE);\n  p[3] = tmp3 * 2;\n}\n"
    );
    // Inline, and with a barrier before the statement as well.
    let mut k = Kernel::new("{ x = 1; s[0] += 1; }");
    let s = k.read_modify_write("s[0] += 1;", "s[0]", "+", Some("1"), "int");
    assert_eq!(
        k.fix(&[Change::Insert { stmt: s, barrier: CudaWarp }, split(s)]),
        "{ x = 1; __syncwarp(); int tmp = s[0]; __syncthreads(); s[0] = tmp + 1; }"
    );
}
