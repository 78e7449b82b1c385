//! The in-process passes (`syncfix_frontend::passes::clean`) give the module that
//! `opt-19 -passes=mem2reg,infer-address-spaces` gives, for CUDA (NVPTX: generic pointers to
//! shared memory become `addrspace(3)`) and OpenCL (SPIR: `mem2reg` alone).

use std::path::Path;
use std::process::Command;
use syncfix_frontend::prelude;
use syncfix_kir::Language;

/// Compiles `src` with clang-19 (the prelude included) to bitcode in `dir`.
fn bitcode(dir: &Path, language: Language, src: &str) -> std::path::PathBuf {
    prelude::write_headers(dir, prelude::headers(language)).unwrap();
    let inc = dir.join("include");
    let (file, args): (&str, &[&str]) = match language {
        Language::Cuda => (
            "k.cu",
            &[
                "-x",
                "cuda",
                "--cuda-device-only",
                "--cuda-gpu-arch=sm_70",
                "-nocudainc",
                "-nocudalib",
                "-include",
                "syncfix_cuda_prelude.h",
            ],
        ),
        Language::OpenCl => ("k.cl", &["-x", "cl", "-cl-std=CL1.2", "-target", "spir64", "-include", "syncfix_opencl_prelude.h"]),
    };
    std::fs::write(dir.join(file), src).unwrap();
    let bc = dir.join("k.bc");
    let out = Command::new("clang-19")
        .args(args)
        .arg(format!("-I{}", inc.display()))
        .args(["-O0", "-Xclang", "-disable-O0-optnone", "-g", "-emit-llvm", "-c", "-o"])
        .arg(&bc)
        .arg(dir.join(file))
        .output()
        .expect("clang-19 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    bc
}

/// The module's text without its first line (the `; ModuleID = '…'` comment names the file),
/// and without `distinct` on metadata nodes: LLVM marks some debug-information nodes of the
/// C library's types distinct in a module read from bitcode and not in the one built in
/// memory, which changes nothing the lowering reads.
fn body(ir: &str) -> String {
    ir.lines().filter(|l| !l.starts_with("; ModuleID")).map(|l| l.replace("= distinct !", "= !")).collect::<Vec<_>>().join("\n")
}

fn same_as_opt(language: Language, src: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let bc = bitcode(dir.path(), language, src);
    let ours = syncfix_frontend::passes::clean(&bc).unwrap();
    let out = Command::new("opt-19")
        .args(["-passes=mem2reg,infer-address-spaces", "-S"])
        .arg(&bc)
        .arg("-o")
        .arg("-")
        .output()
        .expect("opt-19 runs");
    assert!(out.status.success());
    let theirs = String::from_utf8(out.stdout).unwrap();
    let (ours_body, theirs_body) = (body(&ours), body(&theirs));
    if let Some((i, (a, b))) = ours_body.lines().zip(theirs_body.lines()).enumerate().find(|(_, (a, b))| a != b) {
        panic!("line {} differs:\n ours:   {a}\n opt-19: {b}", i + 2);
    }
    assert_eq!(ours_body.lines().count(), theirs_body.lines().count(), "the modules' lengths differ");
    ours
}

#[test]
fn cuda_shared_accesses_get_their_address_space() {
    let ir = same_as_opt(
        Language::Cuda,
        "__global__ void k(int *A) {\n  __shared__ int s[64];\n  int *p = s;\n  p[threadIdx.x] = A[threadIdx.x];\n  __syncthreads();\n  A[threadIdx.x] = p[63 - threadIdx.x];\n}\n",
    );
    assert!(ir.contains("store i32 %") && ir.contains("ptr addrspace(3)"), "{ir}");
    assert!(!ir.contains("alloca"), "mem2reg left an alloca:\n{ir}");
}

#[test]
fn opencl_locals_are_promoted() {
    let ir = same_as_opt(
        Language::OpenCl,
        "__kernel void k(__global int *A, __local int *s) {\n  int i = get_local_id(0);\n  s[i] = A[i];\n  barrier(CLK_LOCAL_MEM_FENCE);\n  A[i] = s[63 - i];\n}\n",
    );
    assert!(!ir.contains("alloca"), "mem2reg left an alloca:\n{ir}");
}

#[test]
fn a_missing_file_is_an_error() {
    let e = syncfix_frontend::passes::clean(Path::new("/nonexistent/k.bc")).unwrap_err();
    assert!(e.contains("cannot read /nonexistent/k.bc"), "{e}");
}
