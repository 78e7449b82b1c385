//! Grid barriers: the `<cooperative_groups.h>` include, the cooperative-launch note and the
//! display-only applicability.

mod common;

use common::Kernel;
use syncfix_fix::{Applicability, BarrierText::*, Change};

fn grid(stmt: syncfix_kir::StmtId) -> Change {
    Change::Insert { stmt, barrier: CudaGrid }
}

#[test]
fn include_goes_after_the_last_top_level_include() {
    let src = "#include <cuda.h>\n#include \"util.h\"\n#ifdef DEBUG\n#include <stdio.h>\n#endif\n\n__global__ void scan(int *A) {\n  A[0] = 1;\n}\n";
    let mut k = Kernel::new(src);
    let s = k.stmt("A[0] = 1;");
    k.set_function(s, "scan");
    let fix = k.build(&[grid(s)]).unwrap();
    assert_eq!(fix.applicability, Applicability::DisplayOnly);
    assert_eq!(fix.notes.len(), 1);
    assert!(fix.notes[0].contains("`scan`") && fix.notes[0].contains("cudaLaunchCooperativeKernel"), "{:?}", fix.notes);
    assert_eq!(
        k.fix(&[grid(s)]),
        "#include <cuda.h>\n#include \"util.h\"\n#include <cooperative_groups.h>\n#ifdef DEBUG\n#include <stdio.h>\n#endif\n\n__global__ void scan(int *A) {\n  cooperative_groups::this_grid().sync();\n  A[0] = 1;\n}\n"
    );
}

#[test]
fn include_follows_the_leading_comments_when_there_is_none() {
    let mut k = Kernel::new("// a comment\n__global__ void k(int *A) { A[0] = 1; }\n");
    let s = k.stmt("A[0] = 1;");
    assert_eq!(
        k.fix(&[grid(s)]),
        "// a comment\n#include <cooperative_groups.h>\n__global__ void k(int *A) { cooperative_groups::this_grid().sync(); A[0] = 1; }\n"
    );
    let mut k = Kernel::new("__global__ void k(int *A) { A[0] = 1; }\n");
    let s = k.stmt("A[0] = 1;");
    assert_eq!(
        k.fix(&[grid(s)]),
        "#include <cooperative_groups.h>\n__global__ void k(int *A) { cooperative_groups::this_grid().sync(); A[0] = 1; }\n"
    );
}

#[test]
fn existing_include_is_kept() {
    let src = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k(int *A) {\n  A[0] = 1;\n}\n";
    let mut k = Kernel::new(src);
    let s = k.stmt("A[0] = 1;");
    let fix = k.build(&[grid(s)]).unwrap();
    assert_eq!(fix.edits.len(), 1);
    assert_eq!(fix.applicability, Applicability::DisplayOnly);
    assert_eq!(
        k.fix(&[grid(s)]),
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k(int *A) {\n  cooperative_groups::this_grid().sync();\n  A[0] = 1;\n}\n"
    );
}

#[test]
fn one_include_and_one_note_per_kernel() {
    let src = "#include <cuda.h>\n__global__ void a(int *A) {\n  A[0] = 1;\n  A[1] = 1;\n}\n__global__ void b(int *A) {\n  A[2] = 1;\n}\n";
    let mut k = Kernel::new(src);
    let (a0, a1, b0) = (k.stmt("A[0] = 1;"), k.stmt("A[1] = 1;"), k.stmt("A[2] = 1;"));
    k.set_function(a0, "a");
    k.set_function(a1, "a");
    k.set_function(b0, "b");
    let fix = k.build(&[grid(b0), grid(a1), grid(a0)]).unwrap();
    assert_eq!(fix.notes.len(), 2);
    assert!(fix.notes[0].contains("`a`") && fix.notes[1].contains("`b`"), "{:?}", fix.notes);
    let out = k.fix(&[grid(b0), grid(a1), grid(a0)]);
    assert_eq!(out.matches("#include <cooperative_groups.h>").count(), 1);
    assert_eq!(out.matches("this_grid().sync();").count(), 3);
}

#[test]
fn grid_split_is_display_only() {
    let mut k = Kernel::new("#include <cuda.h>");
    k.src.push_str("\n{ A[t] = A[t + 1]; }");
    let s = k.split("A[t] = A[t + 1];", "A[t + 1]", "int");
    let fix = k.build(&[Change::InsertSplit { stmt: s, barrier: CudaGrid }]).unwrap();
    assert_eq!(fix.applicability, Applicability::DisplayOnly);
    assert_eq!(fix.notes.len(), 1);
}

#[test]
fn include_after_a_last_line_without_newline() {
    // The statement lies before the include only in this made-up text; what matters is that
    // the include gets a line of its own.
    let mut k = Kernel::new("{ A[0] = 1; }\n#include <cuda.h>");
    let s = k.stmt("A[0] = 1;");
    assert_eq!(
        k.fix(&[grid(s)]),
        "{ cooperative_groups::this_grid().sync(); A[0] = 1; }\n#include <cuda.h>\n#include <cooperative_groups.h>"
    );
}

#[test]
fn block_barriers_only_are_safe() {
    let mut k = Kernel::new("{ A[0] = 1; }");
    let s = k.stmt("A[0] = 1;");
    let fix = k.build(&[Change::Insert { stmt: s, barrier: OpenClBlock }]).unwrap();
    assert_eq!(fix.applicability, Applicability::Safe);
    assert!(fix.notes.is_empty());
}
