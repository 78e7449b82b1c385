//! The marked text against clang-19: it compiles, and clang's positions in it map back.

mod common;

use common::{ast, check_marked, clang, Lang};
use syncfix_frontend::ast::{parse_ast, AstError};

/// clang's warnings on the marked text, mapped back with `to_original`, point where clang
/// points in the original.
#[test]
fn diagnostics_map_back_to_the_original() {
    let src = r#"__global__ void k(int *A) {
  int t = threadIdx.x; if (t) { int unused1 = A[t]; } else A[t] = A[t+1];
  for (int i = 0; i < 2; i++) A[i] = A[i+1] + (t == t);
}
"#;
    let warnings = |text: &str| -> Vec<(u32, u32)> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kernel.cu"), text).unwrap();
        let out = std::process::Command::new("clang-19")
            .current_dir(dir.path())
            .args(common::clang_args(Lang::Cuda))
            .args(["-fsyntax-only", "-Wall", "-Wtautological-compare", "-fno-caret-diagnostics", "kernel.cu"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        stderr
            .lines()
            .filter_map(|l| l.strip_prefix("kernel.cu:"))
            .filter(|l| l.contains(" warning: "))
            .filter_map(|l| {
                let mut it = l.split(':');
                Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
            })
            .collect()
    };
    let original = warnings(src);
    assert_eq!(original, [(2, 37), (3, 50)]);
    let info = ast(Lang::Cuda, src);
    let marked = check_marked(Lang::Cuda, src, &info);
    let mapped: Vec<_> = warnings(&marked.text).into_iter().map(|(l, c)| marked.to_original(l, c)).collect();
    assert_eq!(mapped, original);
}

#[test]
fn positions_inside_markers_map_to_the_insertion_point() {
    let src = "__global__ void k(int *A) {\n  if (A[0]) A[1] = A[2];\n}\n";
    let info = ast(Lang::Cuda, src);
    let marked = check_marked(Lang::Cuda, src, &info);
    let line2 = marked.text.lines().nth(1).unwrap();
    assert_eq!(
        line2,
        "  __syncfix_anchor(0);if (A[0]) {__syncfix_anchor(1);A[1] = ({ __auto_type __syncfix_v = (A[2]); \
         __syncfix_split(1); __syncfix_v; });}"
    );
    let col = |needle: &str| line2.find(needle).unwrap() as u32 + 1;
    assert_eq!(marked.to_original(2, col("__syncfix_anchor(0)") + 3), (2, 3));
    assert_eq!(marked.to_original(2, col("if (A")), (2, 3));
    assert_eq!(marked.to_original(2, col("{__syncfix_anchor(1)")), (2, 13));
    assert_eq!(marked.to_original(2, col("__syncfix_anchor(1)")), (2, 13));
    assert_eq!(marked.to_original(2, col("A[1]")), (2, 13));
    assert_eq!(marked.to_original(2, col("__auto_type")), (2, 20));
    assert_eq!(marked.to_original(2, col("A[2]")), (2, 20));
    assert_eq!(marked.to_original(2, col("__syncfix_split")), (2, 24));
    assert_eq!(marked.to_original(2, col("});}")), (2, 24));
    assert_eq!(marked.to_original(2, line2.len() as u32), (2, 25));
    assert_eq!(marked.to_original(3, 1), (3, 1));
    let a2 = marked.text.find("A[2]").unwrap();
    assert_eq!(marked.original_offset(a2), src.find("A[2]").unwrap());
}

#[test]
fn malformed_input_is_an_error() {
    assert!(matches!(parse_ast("{\"kind\": ", "k.cu", ""), Err(AstError::Json(_))));
    assert!(matches!(parse_ast("[1, 2]", "k.cu", ""), Err(AstError::NotTranslationUnit(_))));
    assert!(matches!(parse_ast("{\"kind\":\"FunctionDecl\"}", "k.cu", ""), Err(AstError::NotTranslationUnit(k)) if k == "FunctionDecl"));
    let deep = "[".repeat(30_000);
    assert!(matches!(parse_ast(&deep, "k.cu", ""), Err(AstError::TooDeep { .. })));
    // Nodes of unexpected shapes are skipped, not trusted.
    let odd = r#"{"kind":"TranslationUnitDecl","inner":[{"kind":"FunctionDecl","name":"f","inner":[
        {"kind":"CompoundStmt","range":{"begin":{"offset":0,"file":"k.cu","line":1,"col":1,"tokLen":1},
                                        "end":{"offset":99,"col":9,"tokLen":1}},
         "inner":[{"kind":"NullStmt","range":{"begin":{"offset":3,"col":4,"tokLen":1},"end":{"offset":3,"col":4,"tokLen":1}}},
                  {"kind":"IfStmt","hasElse":true,"range":{"begin":{"offset":1,"col":2,"tokLen":2},"end":{}}},
                  {"kind":"ReturnStmt","range":{"begin":{"offset":"x"},"end":7}},
                  {"kind":"DoStmt","range":{"begin":{"offset":5,"col":3,"tokLen":2},"end":{"offset":5,"col":6,"tokLen":50}}},
                  {"kind":"CaseStmt"}, {"kind":"IfStmt","inner":[]}, 7, "x", null]}]}]}"#;
    let info = parse_ast(odd, "k.cu", "{ x;   ").unwrap();
    assert_eq!(info.stmts.stmts.len(), 0, "the body's `}}` is past the text");
    let info =
        parse_ast(odd, "k.cu", "{ x;                                                                                               }")
            .unwrap();
    assert_eq!(info.stmts.stmts.len(), 1);
    assert_eq!(info.functions.len(), 1);
}

/// The table only holds the main file's statements: under another main-file name, none.
#[test]
fn statements_come_from_the_main_file_only() {
    let src = "__global__ void k(int *A) { A[0] = 1; }\n";
    let json = common::ast_json(Lang::Cuda, src, &[]).unwrap();
    assert_eq!(parse_ast(&json, "kernel.cu", src).unwrap().stmts.stmts.len(), 1);
    let other = parse_ast(&json, "other.cu", src).unwrap();
    assert_eq!(other.stmts.stmts.len(), 0);
    assert!(other.functions.iter().all(|f| !f.in_main && f.body.is_none()));
    // The same input numbers statements the same way.
    let again = parse_ast(&json, "kernel.cu", src).unwrap();
    assert_eq!(again.stmts.stmts[syncfix_kir::StmtId::from_u32(0)].range.start, src.find("A[0]").unwrap());
    let _ = clang;
}

/// Read-modify-writes of memory get a split that reads `x` before the marker and writes
/// `x = tmp op e` after it; the marked text compiles in CUDA and OpenCL.
#[test]
fn read_modify_writes_are_split_between_the_read_and_the_write() {
    let cuda = "__global__ void k(int *A, float *F, int n) {\n  A[0]++;\n  --A[1];\n  F[threadIdx.x] *= n + 1;\n  A[2] <<= 3;\n  int x = 0;\n  x++;\n  A[n++] += 1;\n  A[3] += A[4];\n}\n";
    let info = ast(Lang::Cuda, cuda);
    let marked = check_marked(Lang::Cuda, cuda, &info);
    let rmw: Vec<(String, String, Option<String>)> = info
        .stmts
        .stmts
        .values()
        .filter_map(|s| {
            let sp = s.split.as_ref()?;
            let r = sp.rmw.as_ref()?;
            let text = |t: syncfix_kir::TextRange| cuda[t.start..t.end].to_string();
            Some((text(sp.rhs), r.op.clone(), r.operand.map(text)))
        })
        .collect();
    // Not `x++` (private), not `A[n++] += 1` (its address has a side effect), and `A[3] += A[4]`
    // is a right-hand-side split.
    let want = [("A[0]", "+", None), ("A[1]", "-", None), ("F[threadIdx.x]", "*", Some("n + 1")), ("A[2]", "<<", Some("3"))];
    let want: Vec<_> = want.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.map(str::to_string))).collect();
    assert_eq!(rmw, want);
    let line = |n: usize| marked.text.lines().nth(n).unwrap().to_string();
    let has = |n: usize, parts: &[&str]| assert!(parts.iter().all(|p| line(n).contains(p)), "{}", line(n));
    has(1, &["({ __auto_type __syncfix_v = (A[0]); __syncfix_split(", "); (A[0]) = __syncfix_v + 1; }) /*++*/;"]);
    has(2, &["({ /*--*/ __auto_type __syncfix_v = (A[1]); __syncfix_split(", "); (A[1]) = __syncfix_v - 1; });"]);
    assert!(line(3).contains("(F[threadIdx.x]) = __syncfix_v * (/* *= */n + 1); });"), "{}", line(3));
    let opencl = "__kernel void k(__local short *p, __global float4 *v) {\n  p[0]++;\n  v[get_global_id(0)] += 1.0f;\n}\n";
    let info = ast(Lang::OpenCl, opencl);
    let marked = check_marked(Lang::OpenCl, opencl, &info);
    assert!(marked.text.contains("(p[0]) = __syncfix_v + 1;"), "{}", marked.text);
    assert!(marked.text.contains("(v[get_global_id(0)]) = __syncfix_v + (/* += */1.0f); })"), "{}", marked.text);
}
