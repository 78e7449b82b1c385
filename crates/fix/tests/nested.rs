//! Changes on statements nested in each other or next to each other, and errors.

mod common;

use common::Kernel;
use syncfix_fix::{apply_edits, build_fix, Applicability, BarrierText::*, Change, FixError};
use syncfix_kir::{EntityRef, StmtId, StmtKind, TextRange};

fn insert(stmt: StmtId) -> Change {
    Change::Insert { stmt, barrier: CudaBlock }
}

fn remove(stmt: StmtId) -> Change {
    Change::Remove { stmt }
}

#[test]
fn insert_before_an_if_and_remove_in_its_body() {
    let src = "{\n  if (c) {\n    __syncthreads();\n    A[t] = 1;\n  }\n}\n";
    let mut k = Kernel::new(src);
    let body = "{\n    __syncthreads();\n    A[t] = 1;\n  }";
    let iff = k.add_range(StmtKind::If, TextRange { start: k.range("if (c)").start, end: k.range(body).end });
    let block = k.add_range(StmtKind::Compound, k.range(body));
    let bar = k.barrier("__syncthreads();");
    k.set_parent(block, iff);
    k.set_parent(bar, block);
    let fix = k.build(&[remove(bar), insert(iff)]).unwrap();
    assert_eq!(fix.applicability, Applicability::Unsafe);
    assert_eq!(apply_edits(&k.src, &fix.edits).unwrap(), "{\n  __syncthreads();\n  if (c) {\n    A[t] = 1;\n  }\n}\n");
}

#[test]
fn insert_before_an_if_and_at_its_sole_body() {
    let mut k = Kernel::new("{ if (c) A[t] = 1; }");
    let iff = k.add_nth(StmtKind::If, "if (c) A[t] = 1;", 0);
    let body = k.sole("A[t] = 1;");
    k.set_parent(body, iff);
    assert_eq!(k.fix(&[insert(body), insert(iff)]), "{ __syncthreads(); if (c) { __syncthreads(); A[t] = 1; } }");
}

#[test]
fn nested_sole_bodies_close_inner_first() {
    let src = "  for (;;) if (c) A[t] = 1;\n";
    let mut k = Kernel::new(src);
    let iff = k.add_nth(StmtKind::If, "if (c) A[t] = 1;", 0);
    k.table.stmts[iff].sole_body = true;
    let body = k.sole("A[t] = 1;");
    k.set_parent(body, iff);
    let expected = "  for (;;) { __syncthreads(); if (c) { __syncthreads(); A[t] = 1; } }\n";
    assert_eq!(k.fix(&[insert(body), insert(iff)]), expected);
    assert_eq!(k.fix(&[insert(iff), insert(body)]), expected);
}

#[test]
fn else_if_chain() {
    let src = "if (a) x = 1; else if (b) y = 2;";
    let mut k = Kernel::new(src);
    let inner = k.add_nth(StmtKind::If, "if (b) y = 2;", 0);
    k.table.stmts[inner].sole_body = true;
    let y = k.sole("y = 2;");
    k.set_parent(y, inner);
    assert_eq!(k.fix(&[insert(inner), insert(y)]), "if (a) x = 1; else { __syncthreads(); if (b) { __syncthreads(); y = 2; } }");
}

#[test]
fn remove_before_an_insert_inline() {
    let mut k = Kernel::new("#include <cooperative_groups.h>\n{ a; __syncthreads(); b; }");
    let bar = k.barrier("__syncthreads();");
    let b = k.stmt("b;");
    assert_eq!(
        k.fix(&[remove(bar), Change::Insert { stmt: b, barrier: CudaGrid }]),
        "#include <cooperative_groups.h>\n{ a; cooperative_groups::this_grid().sync(); b; }"
    );
}

#[test]
fn remove_before_an_insert_on_their_own_lines() {
    let mut k = Kernel::new("{\n  __syncthreads();\n  b = 1;\n}\n");
    let bar = k.barrier("__syncthreads();");
    let b = k.stmt("b = 1;");
    assert_eq!(k.fix(&[insert(b), remove(bar)]), "{\n  __syncthreads();\n  b = 1;\n}\n");
}

#[test]
fn sole_body_closing_next_to_a_removal() {
    let mut k = Kernel::new("  if (c) a = 1; __syncthreads();\n");
    let a = k.sole("a = 1;");
    let bar = k.barrier("__syncthreads();");
    assert_eq!(k.fix(&[remove(bar), insert(a)]), "  if (c) { __syncthreads(); a = 1; }\n");
}

#[test]
fn a_change_inside_a_split_rhs_overlaps() {
    // A statement inside the RHS (a GNU statement expression): its insertion cannot coexist with
    // the RHS becoming `tmp`.
    let mut k = Kernel::new("{ x = ({ y = 1; y; }); }");
    let s = k.split("x = ({ y = 1; y; });", "({ y = 1; y; })", "int");
    let y = k.stmt("y = 1;");
    let err = k.build(&[Change::InsertSplit { stmt: s, barrier: CudaBlock }, insert(y)]).unwrap_err();
    assert!(matches!(err, FixError::Overlap { .. }), "{err}");
}

#[test]
fn unknown_statement() {
    let mut k = Kernel::new("{ a = 1; }");
    k.stmt("a = 1;");
    let ghost = StmtId::new(7);
    assert_eq!(k.build(&[insert(ghost)]), Err(FixError::UnknownStmt { stmt: ghost }));
    assert_eq!(k.build(&[remove(ghost)]), Err(FixError::UnknownStmt { stmt: ghost }));
}

#[test]
fn statement_range_outside_the_text() {
    let mut k = Kernel::new("{ é = 1; }");
    let past = k.add_range(StmtKind::Expr, TextRange { start: 2, end: 40 });
    let inside_char = k.add_range(StmtKind::Expr, TextRange { start: 3, end: 6 });
    let reversed = k.add_range(StmtKind::Expr, TextRange { start: 5, end: 2 });
    for s in [past, inside_char, reversed] {
        assert!(matches!(k.build(&[insert(s)]), Err(FixError::BadRange { stmt, .. }) if stmt == s));
    }
}

/// Every change on every statement range of a small text (valid or not, with flags set in
/// every combination) gives a result or an error, never a panic; and every result applies.
#[test]
fn never_panics() {
    let src = "{ é; a = b;\n\t__syncthreads(); }";
    let len = src.len();
    let barriers = [CudaBlock, OpenClBlock, CudaGrid];
    for start in 0..=len + 1 {
        for end in 0..=len + 1 {
            for flags in 0..8u8 {
                let mut k = Kernel::new(src);
                let s = k.add_range(StmtKind::Expr, TextRange { start, end });
                let st = &mut k.table.stmts[s];
                st.sole_body = flags & 1 != 0;
                st.parent = (flags & 2 != 0).then_some(s); // a cycle
                if flags & 4 != 0 {
                    st.barrier_call = Some(syncfix_kir::BarrierCall::Removable);
                    st.split = Some(syncfix_kir::Split { rhs: TextRange { start: start + 1, end }, rhs_type: "int".into(), rmw: None });
                }
                for b in barriers {
                    let sets = [
                        vec![insert(s)],
                        vec![Change::InsertSplit { stmt: s, barrier: b }],
                        vec![remove(s)],
                        vec![remove(s), Change::Insert { stmt: s, barrier: b }],
                        vec![Change::Insert { stmt: s, barrier: b }, Change::InsertSplit { stmt: s, barrier: b }],
                    ];
                    for changes in sets {
                        if let Ok(fix) = build_fix(src, &k.table, &changes) {
                            assert!(apply_edits(src, &fix.edits).is_ok(), "{start}..{end} {flags} {changes:?}");
                        }
                    }
                }
            }
        }
    }
}
