//! Kernel names as users write them: a kernel is named by its source name (`k`), by its
//! template instantiation (`reduce0<int>`, `ns::k<float, 64u>`) or by its symbol, the
//! Itanium-mangled name in the LLVM IR (`_Z7reduce0IiEvPT_S1_j`). Demangling is the
//! `cpp_demangle` crate's, here and only here: the lowering names functions in its messages
//! ([`function_name`]), finds function-local statics ([`local_static`]) and reads the parameter
//! types of overloaded library functions ([`plain_signature`]) through this module.

use cpp_demangle::{DemangleOptions, Symbol};

/// The demangled name of a symbol without its parameters and return type (`reduce0<int>`,
/// `ns::k`); `None` when `symbol` is not an Itanium-mangled name (a C or OpenCL C name).
pub fn short_name(symbol: &str) -> Option<String> {
    // Only `_Z` names: cpp_demangle also reads a bare type encoding, so the OpenCL kernel `a`
    // would be `signed char`.
    short_of(&mangled(symbol)?)
}

fn short_of(s: &Symbol<&str>) -> Option<String> {
    s.demangle(&DemangleOptions::new().no_params().no_return_type()).ok().map(|n| literals(&n))
}

/// The name of a function symbol for messages and for recognising annotation and library
/// functions: its demangled qualified name without template arguments (`reduce0`, `cg::sync`,
/// `__requires`), or the symbol itself when it is not mangled (C, OpenCL C, `__nv_` functions).
pub fn function_name(symbol: &str) -> String {
    match mangled(symbol).and_then(|s| short_of(&s)) {
        Some(n) => without_template_args(&n),
        None => symbol.to_string(),
    }
}

/// `name` without its template argument lists (`f<int>::g<2>` is `f::g`).
fn without_template_args(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The source name of a function-local static variable's symbol (`_ZZ1kPfE1b` is `b` of
/// `k(float*)`); `None` for any other symbol.
pub fn local_static(symbol: &str) -> Option<String> {
    if !symbol.starts_with("_ZZ") {
        return None;
    }
    let full = mangled(symbol)?.demangle(&DemangleOptions::new()).ok()?;
    // The entity's name follows the last `::` outside the function's parameter list.
    let mut depth = 0i32;
    let mut start = None;
    let bytes = full.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'(' | b'<' => depth += 1,
            b')' | b'>' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => start = Some(i + 2),
            _ => {}
        }
    }
    let name = &full[start?..];
    (!name.is_empty()).then(|| name.to_string())
}

/// The name and parameter types, as C++ spells them after demangling (`unsigned int volatile
/// AS1*`, `float __vector(4)`), of the symbol of a function at namespace scope without
/// template arguments (`_Z7add_satii` is `add_sat(int, int)`); `None` for any other symbol
/// (not mangled, nested, a template instantiation, a clone). A function without parameters has
/// none (not `void`).
pub fn plain_signature(symbol: &str) -> Option<(String, Vec<String>)> {
    let sym = mangled(symbol)?;
    let name = sym.demangle(&DemangleOptions::new().no_params().no_return_type()).ok()?;
    if !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    let full = sym.demangle(&DemangleOptions::new()).ok()?;
    let params = full.strip_prefix(name.as_str())?.strip_prefix('(')?.strip_suffix(')')?;
    let mut out = vec![];
    let (mut depth, mut from) = (0i32, 0);
    for (i, c) in params.char_indices() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(params[from..i].trim().to_string());
                from = i + 1;
            }
            _ => {}
        }
    }
    if !params.trim().is_empty() {
        out.push(params[from..].trim().to_string());
    }
    Some((name, out))
}

/// Integer template arguments as C++ writes them: the demangler's `(unsigned int)64` is `64u`,
/// `(int)-1` is `-1`; other casts stay.
fn literals(name: &str) -> String {
    const SUFFIXES: &[(&str, &str)] = &[
        ("(int)", ""),
        ("(unsigned int)", "u"),
        ("(long)", "l"),
        ("(unsigned long)", "ul"),
        ("(long long)", "ll"),
        ("(unsigned long long)", "ull"),
    ];
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    'scan: while !rest.is_empty() {
        for (cast, suffix) in SUFFIXES {
            if let Some(after) = rest.strip_prefix(cast) {
                let sign = usize::from(after.starts_with('-'));
                let digits = after[sign..].bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 {
                    out.push_str(&after[..sign + digits]);
                    out.push_str(suffix);
                    rest = &after[sign + digits..];
                    continue 'scan;
                }
            }
        }
        let c = rest.chars().next().expect("not empty");
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The whole demangled signature of a symbol (`void reduce0<int>(int*, int*, unsigned int)`);
/// `None` when `symbol` is not an Itanium-mangled name.
pub fn signature(symbol: &str) -> Option<String> {
    Symbol::new(symbol).ok()?.demangle(&DemangleOptions::new()).ok()
}

/// The parsed symbol when `symbol` is an Itanium-mangled name (`_Z...`). The demangler also
/// reads a bare type encoding, so that a C name such as `f` or `i` would otherwise demangle to
/// `float` or `int`.
fn mangled(symbol: &str) -> Option<Symbol<&str>> {
    symbol.starts_with("_Z").then(|| Symbol::new(symbol).ok()).flatten()
}

/// A name reduced for comparison: no white space, and no suffix on integer literals (the
/// demangler writes the template argument `64` of an `unsigned int` parameter as `64u`).
pub fn normalize(name: &str) -> String {
    let chars: Vec<char> = name.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = String::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        out.push(c);
        i += 1;
        // A number that does not continue an identifier: drop its `u`/`l` suffix letters.
        let starts_number = c.is_ascii_digit() && !out[..out.len() - 1].chars().last().is_some_and(|p| p.is_alphanumeric() || p == '_');
        if starts_number {
            while i < chars.len() && chars[i].is_ascii_digit() {
                out.push(chars[i]);
                i += 1;
            }
            let end = chars[i..].iter().take_while(|c| matches!(c, 'u' | 'U' | 'l' | 'L')).count();
            let next = chars.get(i + end);
            if end > 0 && !next.is_some_and(|c| c.is_alphanumeric() || *c == '_') {
                i += end;
            }
        }
    }
    out
}

/// Whether the user's `--kernel=` text `want` names the kernel with source name `source` and
/// symbol `symbol`: its source name, its symbol, its demangled name (`reduce0<int>`) or its
/// demangled signature, white space and literal suffixes aside.
pub fn names_kernel(want: &str, source: &str, symbol: &str) -> bool {
    if want == source || want == symbol {
        return true;
    }
    let w = normalize(want);
    [short_name(symbol), signature(symbol).map(|s| literals(&s))].into_iter().flatten().any(|n| normalize(&n) == w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instantiations_are_named_as_written() {
        assert_eq!(short_name("_Z7reduce0IiEvPT_S1_j").as_deref(), Some("reduce0<int>"));
        assert_eq!(signature("_Z7reduce0IiEvPT_S1_j").as_deref(), Some("void reduce0<int>(int*, int*, unsigned int)"));
        let six = "_Z7reduce6IiLj64ELb1EEvPT_S1_j";
        assert_eq!(short_name(six).as_deref(), Some("reduce6<int, 64u, true>"));
        assert!(names_kernel("reduce6<int, 64, true>", "reduce6", six));
        assert!(names_kernel("reduce6<int,64u,true>", "reduce6", six));
        assert!(names_kernel(six, "reduce6", six));
        assert!(names_kernel("reduce6", "reduce6", six));
        assert!(!names_kernel("reduce6<int, 64, false>", "reduce6", six));
        assert_eq!(short_name("k"), None);
        // A C name that reads as a type encoding is still a C name.
        assert_eq!(short_name("a"), None);
        assert!(names_kernel("k", "k", "k"));
        assert_eq!(literals("f<(int)-3, (unsigned long)7, (char)65>"), "f<-3, 7ul, (char)65>");
    }

    #[test]
    fn function_names_local_statics_and_plain_signatures() {
        assert_eq!(function_name("_Z7reduce0IiEvPT_S1_j"), "reduce0");
        assert_eq!(function_name("_ZN2cg4syncEv"), "cg::sync");
        assert_eq!(function_name("_Z10__requiresb"), "__requires");
        assert_eq!(function_name("_Z5helloi.constprop.0"), "hello");
        assert_eq!(function_name("barrier"), "barrier");
        assert_eq!(function_name("f"), "f");
        assert_eq!(local_static("_ZZ1kPfE1b").as_deref(), Some("b"));
        assert_eq!(local_static("_ZZN2ns1kIiEEvPT_E5cache").as_deref(), Some("cache"));
        assert_eq!(local_static("_Z1kPf"), None);
        assert_eq!(local_static("k.l"), None);
        let sig = |s: &str| plain_signature(s).map(|(n, p)| format!("{n}|{}", p.join("|")));
        assert_eq!(sig("_Z7add_satii").as_deref(), Some("add_sat|int|int"));
        assert_eq!(sig("_Z10atomic_incPU3AS1Vj").as_deref(), Some("atomic_inc|unsigned int volatile AS1*"));
        assert_eq!(sig("_Z3dotDv4_fS_").as_deref(), Some("dot|float __vector(4)|float __vector(4)"));
        assert_eq!(sig("_Z13__threadfencev").as_deref(), Some("__threadfence|"));
        assert_eq!(sig("_ZN2cg4syncEv"), None);
        assert_eq!(sig("_Z7reduce0IiEvPT_S1_j"), None);
        assert_eq!(sig("_Z5helloi.constprop.0"), None);
        assert_eq!(sig("barrier"), None);
    }

    #[test]
    fn literal_suffixes_only_on_numbers() {
        assert_eq!(normalize("f< int, 64u, 3ul >"), "f<int,64,3>");
        assert_eq!(normalize("x1u<a2l>"), "x1u<a2l>");
        assert_eq!(normalize("k<16uz>"), "k<16uz>");
    }
}
