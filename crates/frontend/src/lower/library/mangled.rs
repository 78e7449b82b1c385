//! The parameter types of an overloaded library function, read off its Itanium-mangled name
//! through the one demangler (`crate::names::plain_signature`).

/// A parameter type of an Itanium-mangled function name, as far as the library needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum MTy {
    Void,
    Int {
        bits: u16,
        signed: bool,
    },
    Float(u16),
    Ptr(Box<MTy>),
    Vector(Box<MTy>),
    /// A class or struct, by name (`curandStateXORWOW`).
    Named(String),
}

/// The source name and parameter types of an Itanium-mangled name (`_Z7add_satii`), for
/// functions at namespace scope without template arguments (see
/// [`crate::names::plain_signature`]); `None` for other names or a parameter type the library
/// does not need.
pub(super) fn parse_mangled(s: &str) -> Option<(String, Vec<MTy>)> {
    let (name, params) = crate::names::plain_signature(s)?;
    let params = params.iter().map(|p| parse_type(p)).collect::<Option<Vec<_>>>()?;
    Some((name, params))
}

/// A parameter type as the demangler spells it (`unsigned int volatile AS1*`, `float
/// __vector(4)`, `curandStateXORWOW*`). Qualifiers (address spaces `ASn`, `const`, `volatile`,
/// `restrict`) are dropped: the library does not need them.
pub(super) fn parse_type(t: &str) -> Option<MTy> {
    let mut t = t.trim();
    loop {
        let last = t.rsplit(' ').next().unwrap_or(t);
        let qualifier = matches!(last, "const" | "volatile" | "restrict")
            || last.strip_prefix("AS").is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
        match t.rfind(' ') {
            Some(i) if qualifier => t = t[..i].trim_end(),
            _ => break,
        }
    }
    if let Some(inner) = t.strip_suffix('*') {
        return Some(MTy::Ptr(Box::new(parse_type(inner)?)));
    }
    if let Some(i) = t.find(" __vector(") {
        return Some(MTy::Vector(Box::new(parse_type(&t[..i])?)));
    }
    let int = |bits, signed| Some(MTy::Int { bits, signed });
    match t {
        "void" => Some(MTy::Void),
        "bool" | "unsigned char" => int(8, false),
        "char" | "signed char" => int(8, true),
        "short" => int(16, true),
        "unsigned short" => int(16, false),
        "int" => int(32, true),
        "unsigned int" => int(32, false),
        "long" | "long long" => int(64, true),
        "unsigned long" | "unsigned long long" => int(64, false),
        "float" => Some(MTy::Float(32)),
        "double" => Some(MTy::Float(64)),
        "half" => Some(MTy::Float(16)),
        // Other builtin types the library never takes.
        "wchar_t" | "char8_t" | "char16_t" | "char32_t" | "__int128" | "__float128" | "_Float16" | "auto" => None,
        // A class or struct at namespace scope.
        _ if !t.is_empty() && t.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') && !t.as_bytes()[0].is_ascii_digit() => {
            Some(MTy::Named(t.to_string()))
        }
        _ => None,
    }
}
