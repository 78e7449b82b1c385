//! A copy call done in steps around barriers (ARCHITECTURE.md, "crates/fix"):
//! `F(DST, SRC, LEN);` becomes a block with the pointers in `char *` temporaries and one call
//! per step, the barriers between them.

mod common;

use common::Kernel;
use syncfix_fix::{BarrierText::*, Change, FixError};

fn step(stmt: syncfix_kir::StmtId, offset: u32) -> Change {
    Change::InsertStep { stmt, offset, barrier: CudaBlock }
}

#[test]
fn own_line_copy_in_three_steps_with_a_literal_length() {
    let src = "__global__ void k(int *a, int *b) {\n  memcpy(&a[threadIdx.x], &b[threadIdx.x], 0x10);\n}\n";
    let mut k = Kernel::new(src);
    let s = k.copy("memcpy(&a[threadIdx.x], &b[threadIdx.x], 0x10);");
    let fix = k.build(&[step(s, 4), step(s, 12), step(s, 4)]).expect("a fix");
    assert_eq!(
        k.fix(&[step(s, 12), step(s, 4)]),
        "__global__ void k(int *a, int *b) {\n  {\n    char *dst = (char *)(&a[threadIdx.x]);\n    const char *src = (const char *)(&b[threadIdx.x]);\n    memcpy(dst, src, 4);\n    __syncthreads();\n    memcpy(dst + 4, src + 4, 8);\n    __syncthreads();\n    memcpy(dst + 12, src + 12, 4);\n  }\n}\n"
    );
    assert_eq!(fix.applicability, syncfix_fix::Applicability::Safe);
    assert!(fix.notes.iter().any(|n| n.contains("the `memcpy` at line 2 now copies in steps")), "{:?}", fix.notes);
}

#[test]
fn inline_copy_with_a_length_expression_and_taken_names() {
    // `dst` is a word of the file; the length is an expression, counted down from as written.
    let src = "__global__ void k(char *dst, char *b, int n) { __builtin_memcpy(dst + threadIdx.x, b, n * 2); }\n";
    let mut k = Kernel::new(src);
    let s = k.copy("__builtin_memcpy(dst + threadIdx.x, b, n * 2);");
    assert_eq!(
        k.fix(&[step(s, 3), Change::Insert { stmt: s, barrier: CudaBlock }]),
        "__global__ void k(char *dst, char *b, int n) { __syncthreads(); { char *dst1 = (char *)(dst + threadIdx.x); const char *src = (const char *)(b); __builtin_memcpy(dst1, src, 3); __syncthreads(); __builtin_memcpy(dst1 + 3, src + 3, (n * 2) - 3); } }\n"
    );
}

#[test]
fn steps_need_a_copy_call() {
    let mut k = Kernel::new("{ x = 1; }");
    let s = k.stmt("x = 1;");
    assert!(matches!(k.build(&[step(s, 2)]), Err(FixError::DoesNotFit { stmt, .. }) if stmt == s));
    let mut k = Kernel::new("{ memcpy(a, b, 8); }");
    let s = k.copy("memcpy(a, b, 8);");
    assert!(matches!(k.build(&[step(s, 0)]), Err(FixError::DoesNotFit { stmt, .. }) if stmt == s));
}
