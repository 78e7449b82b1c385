//! Reading clang's JSON AST of the user's file (ARCHITECTURE.md, "crates/frontend": `ast`).
//!
//! [`parse_ast`] takes the output of `clang-19 ... -fsyntax-only -Xclang -ast-dump=json FILE`
//! and returns the statement table of the main file (the *source anchors* of barrier sites),
//! the functions and the variables with static storage. Barrier sites must sit at source
//! statement boundaries that the fix stage can print (ARCHITECTURE.md, "crates/instrument"), so the ranges are clang's,
//! exact to the byte, never guessed.
//!
//! **Locations.** clang leaves out a location's `file` when it equals that of the location
//! printed just before it, so the reader walks the whole document in printed order (serde_json
//! keeps object members in that order) tracking the current file; `includedFrom` objects are
//! not locations. A token from a macro expansion is placed at its outermost invocation in the
//! main file. Offsets are bytes of the main file; nothing from other files is used.
//!
//! **Statements.** In every function *defined* in the main file (kernels, `__device__`
//! helpers, methods, the pattern of a function template; not template instantiations, not
//! constexpr functions, and in CUDA not host-only functions): the members of compound
//! statements, `if`/`else` arms, loop bodies, switch bodies' members and the statement under a
//! `case`/`default`/label (the label is skipped), recursively; nothing inside expressions
//! (lambda bodies). A statement is left out, with everything in it, unless its text is
//! main-file text: it may use macros, and may begin or end with a whole macro invocation
//! (`__shared__ int s[N];`, `x = MAX(a, b);`), but not begin or end inside one. Statements are
//! numbered in pre-order, so the same input gives the same `StmtId`s.
//!
//! **Ranges** run from the first token (or the attribute or `#pragma` of an attributed
//! statement) to the full end: after the `;` of expression, declaration, `return`, `break`,
//! `continue`, `goto`, `do` and null statements (comments before the `;` included), after the
//! `}` of a compound, and where the last arm or body ends for `if`, loops, `switch`.
//!
//! **Splits** (ARCHITECTURE.md, "crates/instrument" and "crates/fix"): an expression statement `LHS = RHS;` or `LHS op= RHS;` whose
//! left side is not private to the thread (a local automatic variable or by-value parameter,
//! a field or local-array element of one) and whose right side may read memory (an array
//! subscript, `*p`, `p->f`, a call, or the value of a global, shared or static variable) gets
//! a [`Split`](syncfix_kir::Split) with the right side's range and type. **Barrier calls**: an
//! expression statement that is just a call of `__syncthreads`, `barrier`,
//! `work_group_barrier`, `synchronize` or a member `sync` is
//! [`Removable`](syncfix_kir::BarrierCall::Removable).

mod expr;
mod json;
mod launch;
pub(crate) mod scan;
mod stmts;

use json::{desugared_type, inner, kind, loc_in_main, qual_type, str_field};
pub use launch::LaunchSite;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use syncfix_kir::{StmtTable, TextRange};

/// A function declared in the translation unit (the main file, an included file or a prelude).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionInfo {
    /// The source name (`k`, `sync`, `~G`).
    pub name: String,
    /// The symbol name in LLVM IR; `None` for a function template's pattern.
    pub mangled_name: Option<String>,
    /// A `__global__` (CUDA) or `__kernel` (OpenCL) function.
    pub is_kernel: bool,
    /// It is explicitly declared in the main file (its name is there, directly or through a
    /// macro invocation); implicit declarations (builtins, special members) are not.
    pub in_main: bool,
    /// The byte range of its body `{ ... }` in the main file, if it is defined there.
    pub body: Option<TextRange>,
    /// Parameters: name (empty if unnamed) and type with typedefs resolved.
    pub params: Vec<(String, String)>,
    /// For the pattern of a function template (which has no symbol of its own): its template
    /// parameters in order, each a name and, for a non-type parameter, its type (`None` for a
    /// type parameter). Empty for every other function.
    pub template_params: Vec<(String, Option<String>)>,
    /// A CUDA host function: neither `__device__` nor `__global__`, and not `constexpr` (which
    /// clang makes host and device). Device code cannot call it, so its body can be left
    /// out when it does not compile (see `driver::host`).
    pub host_only: bool,
    /// It is defined (has a body) in a header of the user's (not a system or toolkit header):
    /// a kernel there is verified like one of the main file, but has no statements to
    /// instrument or edit.
    pub in_user_header: bool,
}

impl FunctionInfo {
    /// Whether this is the pattern of a function template: it has no symbol of its own, and
    /// only its instantiations (which have one) can be compiled.
    pub fn is_template_pattern(&self) -> bool {
        self.mangled_name.is_none() && !self.template_params.is_empty()
    }
}

/// A variable with static storage: a global, a `__shared__`/`__local`/`__constant` array,
/// a static local.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarInfo {
    /// The source name.
    pub name: String,
    /// The symbol name in LLVM IR (OpenCL C: the plain name), if clang gives one.
    pub mangled_name: Option<String>,
    /// The type as clang spells it (`int[64]`, `__local float[16]`).
    pub qual_type: String,
    /// The source name of the enclosing function, for variables declared in a function body.
    pub function: Option<String>,
    /// A CUDA `__shared__` variable or an OpenCL `__local` one.
    pub shared: bool,
}

/// What the front end needs from clang's AST.
#[derive(Clone, Debug, Default)]
pub struct AstInfo {
    /// The statements of the functions defined in the main file, numbered in source order
    /// (pre-order): the same input always gives the same `StmtId`s.
    pub stmts: StmtTable,
    /// Functions in document order, one entry per mangled name (a declaration and its
    /// definition merge); function template patterns have no mangled name.
    pub functions: Vec<FunctionInfo>,
    /// Variables with static storage in document order, one entry per mangled name.
    pub vars: Vec<VarInfo>,
    /// Complete struct and class definitions by name (the first of a name wins): how the
    /// front end names the arrays that pointer fields of by-value kernel parameters point to.
    pub records: HashMap<String, RecordInfo>,
    /// The kernel launches of the host code (`k<<<grid, block>>>(...)`), in document order.
    pub launches: Vec<LaunchSite>,
    /// Host functions and record fields of the user's files (the main file and its headers)
    /// that the whole-program fallback may leave out when they do not compile (`driver::host`).
    pub host_decls: Vec<HostDecl>,
}

/// A declaration in a user's file that a device-side compile does not need when it is host
/// code: a host function (declaration or definition), or a field of a struct or class (which
/// device code may not use: the driver checks the LLVM IR for the record's type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostDecl {
    /// The file: `None` for the main file, else the header's name as clang gives it.
    pub file: Option<String>,
    /// The function's or field's name.
    pub name: String,
    /// For a field, the name of its struct or class.
    pub record: Option<String>,
    /// The whole declaration, from its first token to the end of its last (the `;` after it
    /// not included), as byte offsets in its file.
    pub range: TextRange,
    /// A function definition's body `{ ... }`, as byte offsets in its file.
    pub body: Option<TextRange>,
}

/// The members of a struct or class in declaration order, as LLVM lays them out: the base
/// classes first, then the fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordInfo {
    /// The number of (non-virtual) base classes.
    pub bases: usize,
    /// The fields: name (empty for an unnamed field) and type as clang spells it.
    pub fields: Vec<(String, String)>,
}

/// Why clang's JSON AST could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AstError {
    /// The text is not JSON.
    #[error("malformed clang AST JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The JSON nests deeper than `limit` levels (far beyond what clang prints for real code).
    #[error("clang AST JSON nests deeper than {limit} levels")]
    TooDeep { limit: usize },
    /// The top-level node is not a `TranslationUnitDecl` (its kind, possibly empty).
    #[error("clang AST JSON is not a translation unit (top-level node `{0}`)")]
    NotTranslationUnit(String),
    /// The reader thread could not be started or failed.
    #[error("the AST reader failed: {0}")]
    Reader(String),
}

/// Stack of the reader thread: JSON nesting up to `json::MAX_DEPTH` levels, recursively.
const READER_STACK: usize = 256 << 20;

/// Reads clang's JSON AST dump of one translation unit (see the module doc for what is
/// recorded).
///
/// `json` is the whole output of `-Xclang -ast-dump=json` (one `TranslationUnitDecl`, no
/// `-ast-dump-filter`); `main_file` is the main file's name exactly as passed to clang (the
/// dump's `file` strings are compared with it); `source` is that file's text, in which all
/// returned ranges are byte offsets (half-open). Statements whose text is not in the main file
/// are left out, never misplaced.
///
/// Errors: [`AstError::Json`] for malformed JSON, [`AstError::TooDeep`] for absurd nesting,
/// [`AstError::NotTranslationUnit`] if the top-level node is something else,
/// [`AstError::Reader`] if the reader thread (with a stack for deep ASTs) cannot start.
/// Nodes of unexpected shapes are skipped, never a panic.
pub fn parse_ast(json: &str, main_file: &str, source: &str) -> Result<AstInfo, AstError> {
    // Deep expressions nest the JSON deeply; parse, walk and drop on a thread with a stack
    // sized for `json::MAX_DEPTH` (checked before parsing).
    std::thread::scope(|s| {
        let reader = std::thread::Builder::new()
            .name("syncfix-ast".into())
            .stack_size(READER_STACK)
            .spawn_scoped(s, || read(json, main_file, source))
            .map_err(|e| AstError::Reader(e.to_string()))?;
        reader.join().map_err(|_| AstError::Reader("the reader thread panicked".into()))?
    })
}

fn read(json: &str, main_file: &str, source: &str) -> Result<AstInfo, AstError> {
    let tu = json::parse(json, main_file)?;
    if kind(&tu) != "TranslationUnitDecl" {
        return Err(AstError::NotTranslationUnit(kind(&tu).to_owned()));
    }
    let mut decls = Decls {
        src: source.as_bytes(),
        functions: Vec::new(),
        function_index: HashMap::new(),
        vars: Vec::new(),
        var_index: HashMap::new(),
        locals: HashSet::new(),
        bodies: Vec::new(),
        cuda: false,
        records: HashMap::new(),
        host_decls: Vec::new(),
    };
    decls.walk(&tu, false);
    let mut recorder =
        stmts::Recorder { text: source, cx: expr::SplitCx { src: source.as_bytes(), locals: &decls.locals }, table: StmtTable::default() };
    // In CUDA (any function carries a CUDA attribute) only device code gets statements:
    // the marker functions are `__device__`, and host code never runs on the GPU.
    for body in &decls.bodies {
        if body.device || !decls.cuda {
            recorder.record_body(&body.function, body.body);
        }
    }
    let stmts = recorder.table;
    // Outside CUDA (OpenCL) there is no host code.
    if !decls.cuda {
        for f in &mut decls.functions {
            f.host_only = false;
        }
    }
    Ok(AstInfo {
        stmts,
        functions: decls.functions,
        vars: decls.vars,
        records: decls.records,
        launches: launch::launches(&tu, source.as_bytes()),
        host_decls: if decls.cuda { decls.host_decls } else { vec![] },
    })
}

const FUNCTION_KINDS: &[&str] = &["FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "CXXDestructorDecl", "CXXConversionDecl"];

/// The declaration walk: functions, variables, local variables, bodies to record.
struct Decls<'v> {
    /// The main file's text.
    src: &'v [u8],
    functions: Vec<FunctionInfo>,
    function_index: HashMap<String, usize>,
    vars: Vec<VarInfo>,
    var_index: HashMap<String, usize>,
    /// Ids of local automatic variables.
    locals: HashSet<String>,
    /// Bodies whose statements are recorded (not template instantiations), in document order.
    bodies: Vec<Body<'v>>,
    /// Some function carries a CUDA attribute (`__host__`, `__device__`, `__global__`).
    cuda: bool,
    records: HashMap<String, RecordInfo>,
    host_decls: Vec<HostDecl>,
}

/// A function body whose statements may be recorded.
struct Body<'v> {
    function: String,
    body: &'v Value,
    /// The function has `__device__` or `__global__` (CUDA).
    device: bool,
}

impl<'v> Decls<'v> {
    /// Walks the declarations in a declaration context. `instantiation`: inside a template
    /// instantiation, whose bodies repeat the pattern's text.
    fn walk(&mut self, ctx: &'v Value, instantiation: bool) {
        for d in inner(ctx) {
            match kind(d) {
                k if FUNCTION_KINDS.contains(&k) => self.function(d, !instantiation, None),
                "FunctionTemplateDecl" => {
                    // The first function is the pattern; the others are instantiations.
                    let params: Vec<(String, Option<String>)> = inner(d)
                        .iter()
                        .filter_map(|p| match kind(p) {
                            "TemplateTypeParmDecl" | "TemplateTemplateParmDecl" => {
                                Some((str_field(p, "name").unwrap_or("").to_owned(), None))
                            }
                            "NonTypeTemplateParmDecl" => {
                                Some((str_field(p, "name").unwrap_or("").to_owned(), Some(qual_type(p).unwrap_or("int").to_owned())))
                            }
                            _ => None,
                        })
                        .collect();
                    let mut first = true;
                    for f in inner(d).iter().filter(|f| FUNCTION_KINDS.contains(&kind(f))) {
                        let pattern = first.then(|| params.clone());
                        self.function(f, first && !instantiation, pattern);
                        first = false;
                    }
                }
                "ClassTemplateDecl" => {
                    for c in inner(d) {
                        let inst = instantiation || kind(c) == "ClassTemplateSpecializationDecl";
                        if matches!(kind(c), "CXXRecordDecl" | "ClassTemplateSpecializationDecl") {
                            self.walk(c, inst);
                        }
                    }
                }
                "NamespaceDecl"
                | "LinkageSpecDecl"
                | "ExportDecl"
                | "CXXRecordDecl"
                | "RecordDecl"
                | "ClassTemplateSpecializationDecl"
                | "ClassTemplatePartialSpecializationDecl" => {
                    self.record(d);
                    self.walk(d, instantiation)
                }
                "VarDecl" => self.var(d, None),
                _ => {}
            }
        }
    }

    /// A declaration's range in a user's file: the file (`None` for the main file) and the
    /// byte range in it; `None` elsewhere (a system header, a macro from another file).
    fn decl_range(&self, d: &Value) -> Option<(Option<String>, TextRange)> {
        if let (Some(start), Some(end)) = (json::begin_of(d, self.src), json::end_of(d, self.src)) {
            return (start < end).then_some((None, TextRange { start, end }));
        }
        let (file, start, end) = json::header_range(d)?;
        Some((Some(file), TextRange { start, end }))
    }

    /// Records the members of a complete struct or class definition.
    fn record(&mut self, d: &'v Value) {
        let (Some(name), true) = (str_field(d, "name"), json::flag(d, "completeDefinition")) else { return };
        for field in inner(d).iter().filter(|c| kind(c) == "FieldDecl") {
            if let Some((file, range)) = self.decl_range(field) {
                self.host_decls.push(HostDecl {
                    file,
                    name: str_field(field, "name").unwrap_or("").to_owned(),
                    record: Some(name.to_owned()),
                    range,
                    body: None,
                });
            }
        }
        if str_field(d, "tagUsed") == Some("union") || self.records.contains_key(name) {
            return;
        }
        let bases = d.get("bases").and_then(Value::as_array).map_or(0, Vec::len);
        let fields = inner(d)
            .iter()
            .filter(|c| kind(c) == "FieldDecl")
            .map(|c| (str_field(c, "name").unwrap_or("").to_owned(), qual_type(c).unwrap_or("").to_owned()))
            .collect();
        self.records.insert(name.to_owned(), RecordInfo { bases, fields });
    }

    /// Records a function; `template_params` are given for the pattern of a function template.
    fn function(&mut self, f: &'v Value, record: bool, template_params: Option<Vec<(String, Option<String>)>>) {
        let name = str_field(f, "name").unwrap_or("").to_owned();
        // Implicit declarations (builtins, special members) have no text of their own.
        let implicit = json::flag(f, "isImplicit");
        let mut info = FunctionInfo {
            name: name.clone(),
            mangled_name: str_field(f, "mangledName").map(str::to_owned),
            is_kernel: false,
            in_main: !implicit && loc_in_main(f.get("loc")),
            body: None,
            params: Vec::new(),
            template_params: template_params.unwrap_or_default(),
            host_only: false,
            in_user_header: false,
        };
        let mut body = None;
        let mut device = false;
        for c in inner(f) {
            match kind(c) {
                "CUDAGlobalAttr" | "OpenCLKernelAttr" => {
                    info.is_kernel = true;
                    device |= kind(c) == "CUDAGlobalAttr";
                    self.cuda |= kind(c) == "CUDAGlobalAttr";
                }
                "CUDADeviceAttr" => (device, self.cuda) = (true, true),
                "CUDAHostAttr" => self.cuda = true,
                "ParmVarDecl" => {
                    let ty = desugared_type(c).unwrap_or("").to_owned();
                    info.params.push((str_field(c, "name").unwrap_or("").to_owned(), ty));
                }
                "CompoundStmt" | "CXXTryStmt" => body = Some(c),
                _ => {}
            }
        }
        let constant = json::flag(f, "constexpr") || json::flag(f, "consteval");
        info.host_only = !device && !info.is_kernel && !constant;
        if info.host_only && !implicit {
            if let Some((file, range)) = self.decl_range(f) {
                let body = body.and_then(|b| match &file {
                    None => Some(TextRange { start: json::begin_of(b, self.src)?, end: json::end_of(b, self.src)? }),
                    Some(header) => json::header_range(b).filter(|(h, _, _)| h == header).map(|(_, start, end)| TextRange { start, end }),
                });
                self.host_decls.push(HostDecl { file, name: name.clone(), record: None, range, body });
            }
        }
        info.in_user_header = body.is_some() && !implicit && !info.in_main && json::loc_in_user_file(f.get("loc"));
        if let Some(b) = body {
            if let (Some(start), Some(end), false) = (json::begin_of(b, self.src), json::end_of(b, self.src), implicit) {
                if start < end {
                    info.body = Some(TextRange { start, end });
                    // A marker call would make a constexpr function invalid.
                    if record && !constant {
                        self.bodies.push(Body { function: name.clone(), body: b, device });
                    }
                }
            }
            self.locals_and_statics(b, &name);
        }
        self.add_function(info);
    }

    fn add_function(&mut self, info: FunctionInfo) {
        let Some(key) = info.mangled_name.clone() else {
            return self.functions.push(info);
        };
        match self.function_index.get(&key) {
            Some(&i) => {
                let old = &mut self.functions[i];
                old.is_kernel |= info.is_kernel;
                if info.body.is_some() {
                    let is_kernel = old.is_kernel;
                    *old = FunctionInfo { is_kernel, ..info };
                }
            }
            None => {
                self.function_index.insert(key, self.functions.len());
                self.functions.push(info);
            }
        }
    }

    /// Walks a function body for variable declarations.
    fn locals_and_statics(&mut self, node: &'v Value, function: &str) {
        for c in inner(node) {
            if kind(c) == "VarDecl" {
                if is_automatic(c) {
                    self.locals.extend(str_field(c, "id").map(str::to_owned));
                } else {
                    self.var(c, Some(function));
                }
            }
            self.locals_and_statics(c, function);
        }
    }

    fn var(&mut self, v: &Value, function: Option<&str>) {
        let qual_type = qual_type(v).unwrap_or("").to_owned();
        let shared = inner(v).iter().any(|a| kind(a) == "CUDASharedAttr") || qual_type.starts_with("__local");
        let info = VarInfo {
            name: str_field(v, "name").unwrap_or("").to_owned(),
            mangled_name: str_field(v, "mangledName").map(str::to_owned),
            qual_type,
            function: function.map(str::to_owned),
            shared,
        };
        let Some(key) = info.mangled_name.clone() else {
            return self.vars.push(info);
        };
        match self.var_index.get(&key) {
            // A later declaration (the definition after an `extern` one) wins.
            Some(&i) => self.vars[i] = info,
            None => {
                self.var_index.insert(key, self.vars.len());
                self.vars.push(info);
            }
        }
    }
}

/// Whether a `VarDecl` in a function body is a local automatic variable (private to the
/// thread, by value): no storage class, not `__shared__`/`__constant__`/`__device__`, not in
/// an OpenCL address space other than private, not a reference.
fn is_automatic(v: &Value) -> bool {
    let ty = qual_type(v).unwrap_or("");
    v.get("storageClass").is_none()
        && !inner(v).iter().any(|a| matches!(kind(a), "CUDASharedAttr" | "CUDAConstantAttr" | "CUDADeviceAttr"))
        && !["__local", "__global", "__constant"].iter().any(|q| ty.starts_with(q))
        && !expr::is_reference(ty)
}
