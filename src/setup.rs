//! From the command line to the library's options: reading the file, the launch, the
//! configuration; and the failures of a run that gives no verdict.

use crate::args::{CommonArgs, RepairArgs};
use crate::launch;
use std::path::Path;
use syncfix::{Abstraction, Annotations, Config, Encoding, ErrorReport, Language, Options, Solver, SourceOptions};

/// Reads the file and builds the options; `Err` is the failure to report. `repairs`: the
/// command is `repair` or `audit`, for which `--verbose` means something.
/// The text is the file's bytes as [`syncfix::decode_source`] reads them, in `Encoding`.
pub fn setup(c: &CommonArgs, repair: Option<&RepairArgs>, repairs: bool) -> Result<(String, Encoding, Options), ErrorReport> {
    if c.stdin_text.is_some() && repair.is_some_and(|r| r.apply) {
        return Err(ErrorReport::command_line("--apply rewrites a file: not the standard input (`-`); give the file instead"));
    }
    let (text, encoding) = read_source(c)?;
    let config = match &c.config {
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => Config::with_overrides(&t).map_err(|e| ErrorReport::command_line(&format!("{}: {e}", p.display())))?,
            Err(e) => return Err(ErrorReport::command_line(&format!("{}: {e}", p.display()))),
        },
        None => Config::builtin(),
    };
    let language = if c.opencl {
        Language::OpenCl
    } else if c.cuda {
        Language::Cuda
    } else {
        syncfix_language(&c.file).map_err(|m| ErrorReport::command_line(&m))?
    };
    let (launch, no_sizes) = launch_of(c, language)?;
    if !c.boogie_file.is_empty() {
        return Err(ErrorReport::command_line(
            "--boogie-file supplies Boogie axioms to GPUVerify's Boogie back end, which syncfix does not have; \
             state the facts in the kernel instead (__axiom, __requires)",
        ));
    }
    let mut check_arrays: Option<Vec<String>> = None;
    let mut ignored = ignored_flags(c);
    // `--verbose` says what the repair over-approximated (repair and audit).
    if repairs {
        ignored.retain(|f| f != "--verbose");
    }
    for v in &c.vcgen_opt {
        match v.strip_prefix("/checkArrays:") {
            Some(list) => check_arrays.get_or_insert_with(Vec::new).extend(list.split(',').map(|a| a.trim().to_string())),
            None => ignored.push(format!("--vcgen-opt={v}")),
        }
    }
    if !ignored.is_empty() {
        eprintln!("syncfix: note: ignoring options of GPUVerify's internal stages: {}", ignored.join(", "));
    }
    let timeout_s = c.timeout.unwrap_or(config.verifier.timeout_seconds);
    let mut opts = Options::from_config(launch, &config);
    opts.language = Some(language);
    opts.timeout = syncfix::timeout_of_seconds(timeout_s);
    opts.source = source_options(c, language, no_sizes)?;
    set_verifier_options(c, check_arrays, &mut opts);
    if let Some(r) = repair {
        set_repair_options(r, &mut opts);
    }
    Ok((text, encoding, opts))
}

/// The file's text (or the standard input's) as [`syncfix::decode_source`] reads it, warning
/// when it is not UTF-8.
fn read_source(c: &CommonArgs) -> Result<(String, Encoding), ErrorReport> {
    if c.stdin_text.is_none() && c.file.is_dir() {
        return Err(ErrorReport::command_line(&format!("{}: is a directory, not a kernel file", c.file.display())));
    }
    let read = match &c.stdin_text {
        Some(b) => Ok(b.clone()),
        None => std::fs::read(&c.file),
    };
    let (text, encoding) = match read {
        Ok(b) => syncfix::decode_source(b).map_err(|e| ErrorReport::command_line(&format!("{}: {e}", c.file.display())))?,
        Err(e) => return Err(ErrorReport::command_line(&format!("{}: {e}", c.file.display()))),
    };
    if encoding == Encoding::Latin1 {
        eprintln!(
            "syncfix: warning: {}: not UTF-8; read as Latin-1 (ISO 8859-1), as clang reads its bytes; a diff or --apply writes it back in Latin-1",
            c.file.display()
        );
    }
    Ok((text, encoding))
}

/// The launch of the command line's sizes, and whether none was given for a CUDA kernel (the
/// launch is then taken from the host code's launches); warns of the sizes left symbolic.
fn launch_of(c: &CommonArgs, language: Language) -> Result<(syncfix::Launch, bool), ErrorReport> {
    let mut launch = launch::launch(c.block_dim.as_deref(), c.grid_dim.as_deref(), c.global_size.as_deref(), language == Language::OpenCl)
        .map_err(|m| ErrorReport::command_line(&m))?;
    // No size at all: CUDA kernels take their launch from the host code's launches where
    // their sizes are constants (each taken launch said in a note).
    let no_sizes = c.block_dim.is_none() && c.grid_dim.is_none() && c.global_size.is_none() && language == Language::Cuda;
    let (b, g) = if language == Language::OpenCl { ("--local_size", "--num_groups") } else { ("--blockDim", "--gridDim") };
    let missing: Vec<&str> = [(c.block_dim.is_none(), b), (c.grid_dim.is_none() && c.global_size.is_none(), g)]
        .iter()
        .filter(|(m, _)| *m)
        .map(|(_, f)| *f)
        .collect();
    // With no size at all (CUDA), the warning waits for the front end: it names the kernels
    // that no launch of the host code gave constant sizes (`output::symbolic_sizes_warning`).
    if !missing.is_empty() && !no_sizes {
        eprintln!(
            "syncfix: warning: {}: no {} given: {} symbolic in every dimension, and the verdict holds for every launch \
             (give the sizes, or __requires on them, to narrow it)",
            c.file.display(),
            missing.join(" or "),
            if missing.len() == 1 { "that size is" } else { "those sizes are" },
        );
    }
    if let Some(o) = &c.global_offset {
        launch.global_offset = launch::parse_offset(o).map_err(|m| ErrorReport::command_line(&m))?;
    }
    Ok((launch, no_sizes))
}

/// The front end's options: defines, includes, the kernel, annotations, the CUDA toolkit,
/// `--kernel-args` and `--kernel-arrays`.
fn source_options(c: &CommonArgs, language: Language, launch_from_host: bool) -> Result<SourceOptions, ErrorReport> {
    let kernel_args = c
        .kernel_args
        .iter()
        .map(|a| launch::parse_kernel_values(a, 16))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|m| ErrorReport::command_line(&m))?;
    let kernel_arrays = c
        .kernel_arrays
        .iter()
        .map(|a| launch::parse_kernel_values(a, 10).map(|(k, v)| (k, v.into_iter().map(|x| x.map(|n| n as u64)).collect())))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|m| ErrorReport::command_line(&m))?;
    let cuda_toolkit = if language == Language::Cuda && !c.no_cuda_toolkit {
        syncfix::find_cuda_toolkit(c.cuda_path.as_deref()).map_err(|m: String| ErrorReport::command_line(&m))?
    } else {
        None
    };
    Ok(SourceOptions {
        defines: c.defines.clone(),
        include_dirs: c.include.clone(),
        clang_args: c.clang_opt.clone(),
        kernel: c.kernel.clone(),
        annotations: if c.no_annotations {
            Annotations::Ignore
        } else if c.only_requires {
            Annotations::OnlyRequires
        } else {
            Annotations::All
        },
        invariants_as_candidates: c.invariants_as_candidates,
        modular: c.no_inline,
        launch_from_host,
        cuda_toolkit,
        kernel_args,
        kernel_arrays,
    })
}

/// The verifier's flags (GPUVerify's) into `opts.verifier`.
fn set_verifier_options(c: &CommonArgs, check_arrays: Option<Vec<String>>, opts: &mut Options) {
    let v = &mut opts.verifier;
    v.abstraction = if c.equality_abstraction {
        Abstraction::Equality
    } else if c.adversarial_abstraction {
        Abstraction::Adversarial
    } else {
        Abstraction::PerArray
    };
    v.only_intra_group = c.only_intra_group;
    v.confirmed_only = c.confirmed_only;
    v.benign_tolerance = !c.no_benign_tolerance;
    v.loop_unwind = c.loop_unwind.or(if c.findbugs { Some(2) } else { None });
    v.race_checks = !(c.only_divergence || c.only_log);
    v.barrier_access_checks = !c.no_barrier_access_checks;
    v.asymmetric_asserts = c.asymmetric_asserts;
    v.warp_sync = c.warp_sync;
    if let Some(n) = c.solver_threads {
        v.solver_threads = n;
    }
    v.array_bounds = c.check_array_bounds;
    v.check_arrays = check_arrays;
    v.infer = !c.no_infer;
}

/// The repair's flags (GPURepair's) into `opts.repair`.
fn set_repair_options(r: &RepairArgs, opts: &mut Options) {
    let o = &mut opts.repair;
    o.disable_grid = r.disable_grid;
    o.disable_inspect = r.disable_inspect;
    r.weights.apply(o);
    if let Some(n) = r.warp_size {
        o.warp_size = n;
    }
    o.warp_barriers &= !r.no_warp_barriers;
    if r.maxsat {
        o.solver = Solver::MaxSat;
    } else if r.mhs {
        o.solver = Solver::Mhs;
    }
}

/// The GPUVerify options given that concern its internal stages (accepted and ignored).
fn ignored_flags(c: &CommonArgs) -> Vec<String> {
    let mut v: Vec<String> = vec![];
    for (on, name) in [
        (c.debug, "--debug"),
        (c.infer_info, "--infer-info"),
        (c.staged_inference, "--staged-inference"),
        (c.keep_temps, "--keep-temps"),
        (c.gen_smt2, "--gen-smt2"),
        (c.math_int, "--math-int"),
        (c.stop_at_opt, "--stop-at-opt"),
        (c.stop_at_gbpl, "--stop-at-gbpl"),
        (c.stop_at_bpl, "--stop-at-bpl"),
        (c.stop_at_cbpl, "--stop-at-cbpl"),
        (c.verbose, "--verbose"),
    ] {
        if on {
            v.push(name.to_string());
        }
    }
    for (vals, name) in [
        (&c.cruncher_opt, "--cruncher-opt"),
        (&c.boogie_opt, "--boogie-opt"),
        (&c.bugle_opt, "--bugle-opt"),
        (&c.opt_opt, "--opt-opt"),
        (&c.omit_infer, "--omit-infer"),
    ] {
        v.extend(vals.iter().map(|x| format!("{name}={x}")));
    }
    if let Some(k) = c.k_induction_depth {
        v.push(format!("--k-induction-depth={k}"));
    }
    for (val, name) in [(&c.race_instrumenter, "--race-instrumenter"), (&c.solver, "--solver"), (&c.time_as_csv, "--time-as-csv")] {
        if let Some(x) = val {
            v.push(format!("{name}={x}"));
        }
    }
    if let Some(p) = c.pointer_bitwidth {
        v.push(format!("--pointer-bitwidth={p}"));
    }
    v
}

/// The language a file's extension names: `.cl` OpenCL, `.cu`/`.cuh` CUDA; another extension
/// is an error that asks for `--cuda` or `--opencl`.
fn syncfix_language(p: &Path) -> Result<Language, String> {
    let ext = p.extension().and_then(|e| e.to_str());
    match Language::of_path(p) {
        Some(l) => Ok(l),
        None => Err(format!(
            "{}: cannot tell the kernel's language from {}: give --cuda or --opencl (or name the file .cu or .cl)",
            p.display(),
            ext.map_or("a name without an extension".to_string(), |e| format!("the extension `.{e}`"))
        )),
    }
}
