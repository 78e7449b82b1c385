//! Kernel names as users write them: a kernel is named by its source name (`k`), by its
//! template instantiation (`reduce0<int>`, `ns::k<float, 64u>`) or by its symbol, the
//! Itanium-mangled name in the LLVM IR (`_Z7reduce0IiEvPT_S1_j`). Demangling is the
//! `cpp_demangle` crate's.

use cpp_demangle::{DemangleOptions, Symbol};

/// The demangled name of a symbol without its parameters and return type (`reduce0<int>`,
/// `ns::k`); `None` when `symbol` is not an Itanium-mangled name (a C or OpenCL C name).
pub fn short_name(symbol: &str) -> Option<String> {
    let s = Symbol::new(symbol).ok()?;
    s.demangle(&DemangleOptions::new().no_params().no_return_type()).ok().map(|n| literals(&n))
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
        let starts_number = c.is_ascii_digit()
            && !out[..out.len() - 1].chars().last().is_some_and(|p| p.is_alphanumeric() || p == '_');
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
        assert!(names_kernel("k", "k", "k"));
        assert_eq!(literals("f<(int)-3, (unsigned long)7, (char)65>"), "f<-3, 7ul, (char)65>");
    }

    #[test]
    fn literal_suffixes_only_on_numbers() {
        assert_eq!(normalize("f< int, 64u, 3ul >"), "f<int,64,3>");
        assert_eq!(normalize("x1u<a2l>"), "x1u<a2l>");
        assert_eq!(normalize("k<16uz>"), "k<16uz>");
    }
}
