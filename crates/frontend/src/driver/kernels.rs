//! Which functions of the main file are lowered (ARCHITECTURE.md, "crates/frontend": `driver`):
//! the kernels (each instantiation of a kernel template one), the one `--kernel` names, and for
//! `--no-inline` the device functions with a contract; their symbols in the LLVM IR.

use super::options::FrontendError;
use crate::ast::{AstInfo, FunctionInfo};
use std::path::Path;
use syncfix_kir::Language;

/// The symbol of a function in the LLVM IR: its mangled name in CUDA (C++), its name in
/// OpenCL C.
pub(super) fn ir_name(language: Language, f: &FunctionInfo) -> String {
    match language {
        Language::Cuda => f.mangled_name.clone().unwrap_or_else(|| f.name.clone()),
        Language::OpenCl => f.name.clone(),
    }
}

/// The device functions of the main file with a contract (a call of `__requires`,
/// `__global_requires`, `__ensures` or `__global_ensures` in their body), for `--no-inline`'s
/// modular check; only the one `want` names, if given.
pub(super) fn with_contracts<'a>(language: Language, ast: &'a AstInfo, module: &llvm_ir::Module, want: Option<&str>) -> Vec<Chosen<'a>> {
    let has_contract = |symbol: &str| {
        let Some(func) = module.functions.iter().find(|g| g.name == symbol) else { return false };
        func.basic_blocks.iter().flat_map(|b| &b.instrs).any(|i| match i {
            llvm_ir::Instruction::Call(c) => crate::llvm::callee_name(c).is_some_and(|n| {
                matches!(crate::names::function_name(&n).as_str(), "__requires" | "__global_requires" | "__ensures" | "__global_ensures")
            }),
            _ => false,
        })
    };
    ast.functions
        .iter()
        .filter(|f| !f.is_kernel && f.in_main && f.body.is_some() && !f.is_template_pattern())
        .filter(|f| !f.name.starts_with("__spec_") && !f.name.starts_with("__syncfix"))
        .filter(|f| want.is_none_or(|w| crate::names::names_kernel(w, &f.name, &ir_name(language, f))))
        .filter(|f| has_contract(&ir_name(language, f)))
        .map(|f| Chosen { info: f, name: f.name.clone() })
        .collect()
}

/// A kernel to lower and the name it is reported under (`k`, `reduce0<int>`).
pub(super) struct Chosen<'a> {
    pub(super) info: &'a FunctionInfo,
    pub(super) name: String,
}

/// The kernels of the main file to lower: every kernel with a body (each instantiation of a
/// kernel template is one), or the one `want` names (see [`crate::names::names_kernel`]).
///
/// A `want` that is the source name of several kernels (the instantiations of a kernel
/// template, overloads) chooses every one of them.
///
/// Errors ([`FrontendError::NoKernel`]): no kernel; `want` names none; a kernel template with
/// no instantiation (the message says how to instantiate it).
pub(super) fn choose_kernels<'a>(
    path: &Path,
    language: Language,
    ast: &'a AstInfo,
    want: Option<&str>,
) -> Result<Vec<Chosen<'a>>, FrontendError> {
    let defined = |f: &&FunctionInfo| f.is_kernel && ((f.in_main && f.body.is_some()) || f.in_user_header);
    let templates: Vec<&FunctionInfo> = ast.functions.iter().filter(defined).filter(|f| f.is_template_pattern()).collect();
    let kernels: Vec<Chosen> = ast
        .functions
        .iter()
        .filter(defined)
        .filter(|f| !f.is_template_pattern())
        .map(|f| {
            let symbol = ir_name(language, f);
            let name = crate::names::short_name(&symbol).unwrap_or_else(|| f.name.clone());
            Chosen { info: f, name }
        })
        .collect();
    let instantiated: Vec<&str> = kernels.iter().map(|k| k.info.name.as_str()).collect();
    let uninstantiated = |t: &FunctionInfo| !instantiated.contains(&t.name.as_str());
    let file = path.display();
    let Some(want) = want else {
        if kernels.is_empty() {
            return Err(match templates.iter().find(|t| uninstantiated(t)) {
                Some(t) => FrontendError::NoKernel(format!("{file}: {}", not_instantiated(t))),
                None => FrontendError::NoKernel(format!(
                    "{file}: no kernel found (a `{}` function with a body)",
                    if language == Language::Cuda { "__global__" } else { "__kernel" }
                )),
            });
        }
        return Ok(kernels);
    };
    let mut named: Vec<Chosen> = vec![];
    for k in kernels {
        if crate::names::names_kernel(want, &k.info.name, &ir_name(language, k.info)) {
            named.push(k);
        }
    }
    // A source name shared by several kernels (instantiations of one template, overloads)
    // chooses all of them, as a file with no `--kernel` does, unless it is exactly one's own
    // name (`reduce6<int, 64u, false>`): the template's source is one, and so is its fix.
    if named.len() > 1 {
        let exact: Vec<usize> = (0..named.len()).filter(|&i| named[i].name == want).collect();
        if let [i] = exact[..] {
            return Ok(vec![named.swap_remove(i)]);
        }
    }
    if named.is_empty() {
        return Err(match templates.iter().find(|t| t.name == want && uninstantiated(t)) {
            Some(t) => FrontendError::NoKernel(format!("{file}: {}", not_instantiated(t))),
            None => FrontendError::NoKernel(format!("{file}: no kernel named `{want}`")),
        });
    }
    Ok(named)
}

/// The message for a kernel template that has no instantiation, with an explicit
/// instantiation to copy (every type parameter `int`, every non-type parameter an example
/// value of its type).
fn not_instantiated(t: &FunctionInfo) -> String {
    let args: Vec<(String, String)> = t
        .template_params
        .iter()
        .map(|(name, ty)| {
            let value = match ty.as_deref() {
                None => "int".to_owned(),
                Some("bool") => "true".to_owned(),
                Some(_) => "256".to_owned(),
            };
            (name.clone(), value)
        })
        .collect();
    let substitute = |ty: &str| -> String {
        let mut out = String::new();
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let w = std::mem::take(word);
            out.push_str(args.iter().find(|(n, _)| *n == w).map_or(w.as_str(), |(_, v)| v.as_str()));
        };
        for c in ty.chars() {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    };
    let params = t.params.iter().map(|(_, ty)| substitute(ty)).collect::<Vec<_>>().join(", ");
    let targs = args.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(", ");
    format!(
        "kernel template `{name}` is never instantiated, so there is no kernel to verify: instantiate it after its definition with the template arguments it is launched with, for example `template __global__ void {name}<{targs}>({params});`",
        name = t.name
    )
}
