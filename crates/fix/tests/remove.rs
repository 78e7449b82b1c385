//! Removing barrier statements (ARCHITECTURE.md, "crates/fix"; `audit`).

mod common;

use common::Kernel;
use syncfix_fix::{Applicability, BarrierText::*, Change, FixError};

fn remove(stmt: syncfix_kir::StmtId) -> Change {
    Change::Remove { stmt }
}

#[test]
fn inline_removal_takes_the_blanks_after() {
    let mut k = Kernel::new("{ a; __syncthreads(); b; }");
    let s = k.barrier("__syncthreads();");
    let fix = k.build(&[remove(s)]).unwrap();
    assert_eq!(fix.applicability, Applicability::Unsafe);
    assert_eq!(k.fix(&[remove(s)]), "{ a; b; }");
}

#[test]
fn inline_removal_at_the_end_of_a_line_takes_the_blanks_before() {
    let mut k = Kernel::new("  a; __syncthreads();  \n  b;\n");
    let s = k.barrier("__syncthreads();");
    assert_eq!(k.fix(&[remove(s)]), "  a;\n  b;\n");
}

#[test]
fn inline_removal_before_a_comment() {
    let mut k = Kernel::new("  a; __syncthreads(); // wait\n");
    let s = k.barrier("__syncthreads();");
    assert_eq!(k.fix(&[remove(s)]), "  a; // wait\n");
}

#[test]
fn own_line_removal_takes_the_whole_line() {
    let src = "__kernel void k() {\n  a = 1;\n  barrier(CLK_LOCAL_MEM_FENCE);   \n  b = 2;\n}\n";
    let mut k = Kernel::new(src);
    let s = k.barrier("barrier(CLK_LOCAL_MEM_FENCE);");
    assert_eq!(k.fix(&[remove(s)]), "__kernel void k() {\n  a = 1;\n  b = 2;\n}\n");
}

#[test]
fn own_line_removal_of_a_statement_over_two_lines_and_crlf() {
    let mut k = Kernel::new("{\r\n  barrier(CLK_LOCAL_MEM_FENCE |\r\n          CLK_GLOBAL_MEM_FENCE);\r\n  b = 2;\r\n}\r\n");
    let s = k.barrier("barrier(CLK_LOCAL_MEM_FENCE |\r\n          CLK_GLOBAL_MEM_FENCE);");
    assert_eq!(k.fix(&[remove(s)]), "{\r\n  b = 2;\r\n}\r\n");
}

#[test]
fn own_line_removal_of_the_last_line_without_newline() {
    let mut k = Kernel::new("a;\n__syncthreads();");
    let s = k.barrier("__syncthreads();");
    assert_eq!(k.fix(&[remove(s)]), "a;\n");
}

#[test]
fn sole_body_removal_leaves_an_empty_block() {
    let mut k = Kernel::new("if (c) __syncthreads();\nif (d) __syncthreads(); else x;\nfor (;;)\n  __syncthreads();\n");
    let ids: Vec<_> = (0..3).map(|n| k.barrier_nth("__syncthreads();", n)).collect();
    for &id in &ids {
        k.table.stmts[id].sole_body = true;
    }
    let changes: Vec<Change> = ids.iter().map(|&s| remove(s)).collect();
    assert_eq!(k.fix(&changes), "if (c) {}\nif (d) {} else x;\nfor (;;)\n  {}\n");
}

#[test]
fn adjacent_removals_merge() {
    let mut k = Kernel::new("{ a; __syncthreads(); __syncthreads(); b; }\n  a; __syncthreads(); __syncthreads();\n");
    let ids: Vec<_> = (0..4).map(|n| k.barrier_nth("__syncthreads();", n)).collect();
    let changes: Vec<Change> = ids.iter().map(|&s| remove(s)).collect();
    assert_eq!(k.fix(&changes), "{ a; b; }\n  a;\n");
}

#[test]
fn inline_removals_that_fill_a_line_take_the_line() {
    let mut k = Kernel::new("{\n  __syncthreads(); __syncthreads();\r\n  a;\n\n  __syncthreads();\n\n}\n");
    let changes: Vec<Change> = (0..3).map(|n| remove(k.barrier_nth("__syncthreads();", n))).collect();
    assert_eq!(k.fix(&changes), "{\n  a;\n\n\n}\n");
}

#[test]
fn consecutive_own_line_removals() {
    let mut k = Kernel::new("{\n  __syncthreads();\n  __syncthreads();\n}\n");
    let changes = [remove(k.barrier_nth("__syncthreads();", 1)), remove(k.barrier_nth("__syncthreads();", 0))];
    assert_eq!(k.fix(&changes), "{\n}\n");
}

#[test]
fn remove_and_insert_on_one_statement_replace_the_barrier() {
    let mut k = Kernel::new("#include <cooperative_groups.h>\n{\n  __syncthreads();\n  if (c) __syncthreads();\n}\n");
    let own = k.barrier_nth("__syncthreads();", 0);
    let sole = k.barrier_nth("__syncthreads();", 1);
    k.table.stmts[sole].sole_body = true;
    let grid = |stmt| Change::Insert { stmt, barrier: CudaGrid };
    let block = |stmt| Change::Insert { stmt, barrier: CudaBlock };
    let fix = k.build(&[remove(own), grid(own)]).unwrap();
    assert_eq!(fix.applicability, Applicability::DisplayOnly);
    assert_eq!(
        k.fix(&[remove(own), grid(own), remove(sole), grid(sole)]),
        "#include <cooperative_groups.h>\n{\n  cooperative_groups::this_grid().sync();\n  if (c) cooperative_groups::this_grid().sync();\n}\n"
    );
    assert_eq!(
        k.fix(&[remove(own), grid(own), block(own), remove(sole), grid(sole), block(sole)]),
        "#include <cooperative_groups.h>\n{\n  __syncthreads();\n  cooperative_groups::this_grid().sync();\n  if (c) { __syncthreads(); cooperative_groups::this_grid().sync(); }\n}\n"
    );
    // Replacing a barrier by itself changes nothing.
    assert!(k.build(&[remove(own), block(own)]).unwrap().edits.is_empty());
}

#[test]
fn removal_of_a_statement_that_is_not_a_barrier() {
    let mut k = Kernel::new("{ a = 1; __syncthreads(); }");
    let s = k.stmt("a = 1;");
    let b = k.barrier("__syncthreads();");
    k.table.stmts[b].split = Some(syncfix_kir::Split { rhs: k.range("__syncthreads()"), rhs_type: "void".into(), rmw: None });
    assert!(matches!(k.build(&[remove(s)]), Err(FixError::DoesNotFit { stmt, .. }) if stmt == s));
    let split = Change::InsertSplit { stmt: b, barrier: CudaBlock };
    assert!(matches!(k.build(&[remove(b), split]), Err(FixError::DoesNotFit { stmt, .. }) if stmt == b));
}
