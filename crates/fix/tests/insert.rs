//! Inserting barriers before statements (ARCHITECTURE.md, "crates/fix"): inline, on a line of its own, and around
//! sole bodies.

mod common;

use common::Kernel;
use syncfix_fix::{Applicability, BarrierText::*, Change, Edit};
use syncfix_kir::TextRange;

fn insert(stmt: syncfix_kir::StmtId, barrier: syncfix_fix::BarrierText) -> Change {
    Change::Insert { stmt, barrier }
}

#[test]
fn inline_before_a_statement() {
    let mut k = Kernel::new("{ int t = A[i + 1]; A[i] = t; }");
    let s = k.stmt("A[i] = t;");
    let fix = k.build(&[insert(s, CudaBlock)]).unwrap();
    assert_eq!(fix.applicability, Applicability::Safe);
    assert!(fix.notes.is_empty());
    assert_eq!(fix.edits, vec![Edit::insertion(20, "__syncthreads(); ")]);
    assert_eq!(k.fix(&[insert(s, CudaBlock)]), "{ int t = A[i + 1]; __syncthreads(); A[i] = t; }");
}

#[test]
fn inline_glued_to_the_previous_statement_gets_a_space() {
    let mut k = Kernel::new("{a;b;}");
    let s = k.stmt("b;");
    assert_eq!(k.fix(&[insert(s, CudaBlock)]), "{a; __syncthreads(); b;}");
}

#[test]
fn own_line_with_indentation() {
    let src = "__global__ void k(int *A) {\n    int t = A[threadIdx.x + 1];\n    A[threadIdx.x] = t;\n}\n";
    let mut k = Kernel::new(src);
    let s = k.stmt("A[threadIdx.x] = t;");
    assert_eq!(
        k.fix(&[insert(s, CudaBlock)]),
        "__global__ void k(int *A) {\n    int t = A[threadIdx.x + 1];\n    __syncthreads();\n    A[threadIdx.x] = t;\n}\n"
    );
}

#[test]
fn own_line_with_tabs_in_opencl() {
    let src = "__kernel void k(__local int *A) {\n\tif (x) {\n\t\tint t = A[x];\n\t\tA[0] = t;\n\t}\n}\n";
    let mut k = Kernel::new(src);
    let s = k.stmt("A[0] = t;");
    assert_eq!(
        k.fix(&[insert(s, OpenClBlock)]),
        "__kernel void k(__local int *A) {\n\tif (x) {\n\t\tint t = A[x];\n\t\tbarrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n\t\tA[0] = t;\n\t}\n}\n"
    );
}

#[test]
fn own_line_at_column_one_and_first_of_several_on_a_line() {
    let mut k = Kernel::new("{\nx = 1; y = 2;\n}\n");
    let s = k.stmt("x = 1;");
    assert_eq!(k.fix(&[insert(s, CudaBlock)]), "{\n__syncthreads();\nx = 1; y = 2;\n}\n");
}

#[test]
fn own_line_keeps_crlf_line_endings() {
    let mut k = Kernel::new("{\r\n  a = 1;\r\n  b = 2;\r\n}\r\n");
    let s = k.stmt("b = 2;");
    assert_eq!(k.fix(&[insert(s, CudaBlock)]), "{\r\n  a = 1;\r\n  __syncthreads();\r\n  b = 2;\r\n}\r\n");
}

#[test]
fn sole_body_of_an_if_gets_braces() {
    let mut k = Kernel::new("  if (c) A[t] = x;\n");
    let s = k.sole("A[t] = x;");
    assert_eq!(k.fix(&[insert(s, CudaBlock)]), "  if (c) { __syncthreads(); A[t] = x; }\n");
}

#[test]
fn sole_bodies_of_an_if_and_its_else() {
    let src = "if (c) A[t] = x; else A[t] = y;";
    let mut k = Kernel::new(src);
    let then = k.sole("A[t] = x;");
    let els = k.sole("A[t] = y;");
    assert_eq!(k.fix(&[insert(then, CudaBlock)]), "if (c) { __syncthreads(); A[t] = x; } else A[t] = y;");
    assert_eq!(k.fix(&[insert(els, CudaBlock)]), "if (c) A[t] = x; else { __syncthreads(); A[t] = y; }");
    assert_eq!(
        k.fix(&[insert(els, CudaBlock), insert(then, CudaBlock)]),
        "if (c) { __syncthreads(); A[t] = x; } else { __syncthreads(); A[t] = y; }"
    );
}

#[test]
fn sole_body_on_its_own_line_stays_on_its_line() {
    let src = "  if (c)\n    A[t] = x;\n  else\n    A[t] = y;\n";
    let mut k = Kernel::new(src);
    let els = k.sole("A[t] = y;");
    assert_eq!(k.fix(&[insert(els, CudaBlock)]), "  if (c)\n    A[t] = x;\n  else\n    { __syncthreads(); A[t] = y; }\n");
}

#[test]
fn sole_body_of_a_for_loop() {
    let src = "    for (int i = 0; i < n; i++)\n        A[i] = B[i];\n    for (;;) A[0] = 1;\n";
    let mut k = Kernel::new(src);
    let first = k.sole("A[i] = B[i];");
    let second = k.sole("A[0] = 1;");
    assert_eq!(
        k.fix(&[insert(first, CudaBlock), insert(second, CudaBlock)]),
        "    for (int i = 0; i < n; i++)\n        { __syncthreads(); A[i] = B[i]; }\n    for (;;) { __syncthreads(); A[0] = 1; }\n"
    );
}

#[test]
fn sole_body_of_a_do_loop() {
    let mut k = Kernel::new("do A[t] += 1; while (c);");
    let s = k.sole("A[t] += 1;");
    assert_eq!(k.fix(&[insert(s, CudaBlock)]), "do { __syncthreads(); A[t] += 1; } while (c);");
}

#[test]
fn block_barriers_go_before_grid_barriers_and_duplicates_count_once() {
    let mut k = Kernel::new("{\n  a = 1;\n  b = 2;\n}\n");
    let s = k.stmt("b = 2;");
    let changes = [insert(s, CudaGrid), insert(s, CudaBlock), insert(s, CudaGrid), insert(s, CudaBlock)];
    assert_eq!(
        k.fix(&changes),
        "#include <cooperative_groups.h>\n{\n  a = 1;\n  __syncthreads();\n  cooperative_groups::this_grid().sync();\n  b = 2;\n}\n"
    );
}

#[test]
fn several_barriers_inline() {
    let mut k = Kernel::new("#include <cooperative_groups.h>\n{ a = 1; b = 2; }");
    let s = k.stmt("b = 2;");
    assert_eq!(
        k.fix(&[insert(s, CudaGrid), insert(s, CudaBlock)]),
        "#include <cooperative_groups.h>\n{ a = 1; __syncthreads(); cooperative_groups::this_grid().sync(); b = 2; }"
    );
}

#[test]
fn no_changes_no_edits() {
    let k = Kernel::new("{ a = 1; }");
    let fix = k.build(&[]).unwrap();
    assert!(fix.edits.is_empty());
    assert_eq!(fix.applicability, Applicability::Safe);
}

#[test]
fn edits_are_sorted_and_in_original_offsets() {
    let src = "{\n  a = 1;\n  b = 2;\n}\n";
    let mut k = Kernel::new(src);
    let b = k.stmt("b = 2;");
    let a = k.stmt("a = 1;");
    let fix = k.build(&[insert(b, CudaBlock), insert(a, CudaBlock)]).unwrap();
    let starts: Vec<usize> = fix.edits.iter().map(|e| e.range.start).collect();
    assert_eq!(starts, vec![2, 11]);
    assert!(fix.edits.iter().all(|e| e.range == TextRange { start: e.range.start, end: e.range.start }));
}
