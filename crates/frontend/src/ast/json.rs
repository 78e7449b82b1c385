//! Reading clang's JSON AST (`-Xclang -ast-dump=json`) and resolving its locations.
//!
//! clang prints a location as `{offset, file?, line?, col, tokLen, includedFrom?}` and leaves
//! out `file` (and `line`) when they equal those of the location printed just before it, in
//! document order. A location in a macro expansion is `{spellingLoc: {..}, expansionLoc: {..}}`
//! instead; the expansion location is where the outermost macro invocation stands in a file.
//! `includedFrom` objects carry a `file` but are not locations. So [`parse`] walks the whole
//! document in printed order (serde_json's `preserve_order` keeps object members in that order)
//! and tags every location object with whether it lies in the main file. Offsets are byte
//! offsets in the file of the location; only main-file offsets are ever used.

use super::{scan, AstError};
use serde_json::Value;

/// The member [`parse`] adds to every location object: `true` iff it lies in the main file.
const MAIN_KEY: &str = "syncfix.main";
/// The member [`parse`] adds to every location object: `true` iff it lies in a user's file
/// (the main file, or a header that is not a system or toolkit header).
const USER_KEY: &str = "syncfix.user";

/// Whether a file clang names is a system or toolkit header: under `/usr/` or `/opt/`, in a
/// Python package (NVIDIA's toolkit wheels), or below the `include` folder of a CUDA toolkit
/// (one holding `cuda_runtime_api.h`) wherever it is installed (`--cuda-path`).
fn system_file(file: &str) -> bool {
    file.starts_with("/usr/")
        || file.starts_with("/opt/")
        || file.contains("/site-packages/")
        || file.starts_with('<')
        || std::path::Path::new(file).ancestors().any(|a| a.ends_with("include") && a.join("cuda_runtime_api.h").is_file())
}

/// The member [`parse`] adds to every location object in a user's header (a user's file that
/// is not the main file): the file's name as clang gives it.
const FILE_KEY: &str = "syncfix.file";
/// The key [`parse`] adds to every bare location: its 1-based line (clang prints `line` only
/// where it changes).
const LINE_KEY: &str = "syncfix.line";

/// Deepest JSON nesting accepted (clang nests one or two levels per AST node).
pub(crate) const MAX_DEPTH: usize = 20_000;

/// Parses `json` and tags its locations (see the module doc).
///
/// Errors: [`AstError::TooDeep`] beyond [`MAX_DEPTH`] levels, [`AstError::Json`] on malformed
/// JSON. Must run on a thread with a stack large enough for [`MAX_DEPTH`] levels.
pub(crate) fn parse(json: &str, main_file: &str) -> Result<Value, AstError> {
    if max_depth(json.as_bytes()) > MAX_DEPTH {
        return Err(AstError::TooDeep { limit: MAX_DEPTH });
    }
    let mut de = serde_json::Deserializer::from_str(json);
    de.disable_recursion_limit();
    let mut value: Value = serde::Deserialize::deserialize(&mut de)?;
    de.end()?;
    let mut current = Current::default();
    tag_locations(&mut value, main_file, &mut current);
    Ok(value)
}

/// The maximal nesting of `[`/`{` outside string literals.
fn max_depth(json: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut escaped) = (0usize, 0usize, false, false);
    for &b in json {
        if in_str {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_str = true,
                b'[' | b'{' => {
                    depth += 1;
                    max = max.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    max
}

/// Whether `v` is a bare location object (clang always prints `offset` and `tokLen` in one).
fn is_bare_location(v: &serde_json::Map<String, Value>) -> bool {
    v.contains_key("offset") && v.contains_key("tokLen")
}

/// The file of the location printed last, as [`tag_locations`] walks.
#[derive(Default)]
struct Current {
    main: bool,
    user: bool,
    /// The file's name, for a user's header.
    header: Option<Value>,
    /// The line printed last.
    line: Option<Value>,
}

/// Tags every bare location under `v`, in document order, tracking the current file.
fn tag_locations(v: &mut Value, main_file: &str, current: &mut Current) {
    match v {
        Value::Object(map) if is_bare_location(map) => {
            if let Some(file) = map.get("file").and_then(Value::as_str) {
                let main = file == main_file;
                let user = main || !system_file(file);
                let header = (user && !main).then(|| Value::String(file.to_owned()));
                *current = Current { main, user, header, line: current.line.take() };
            }
            if let Some(line) = map.get("line") {
                current.line = Some(line.clone());
            }
            if let Some(line) = &current.line {
                map.insert(LINE_KEY.to_owned(), line.clone());
            }
            map.insert(MAIN_KEY.to_owned(), Value::Bool(current.main));
            map.insert(USER_KEY.to_owned(), Value::Bool(current.user));
            if let Some(file) = &current.header {
                map.insert(FILE_KEY.to_owned(), file.clone());
            }
        }
        Value::Object(map) => {
            for member in map.values_mut() {
                tag_locations(member, main_file, current);
            }
        }
        Value::Array(items) => {
            for item in items {
                tag_locations(item, main_file, current);
            }
        }
        _ => {}
    }
}

/// A node's byte range in a user's header (not the main file): the header's name as clang
/// gives it, and the half-open range from its first token to the end of its last. `None`
/// when the node is not wholly in one user header (or comes from a macro defined elsewhere).
pub(crate) fn header_range(node: &Value) -> Option<(String, usize, usize)> {
    let bare = |which: &str| -> Option<&serde_json::Map<String, Value>> {
        let loc = range_loc(node, which)?.as_object()?;
        let loc = loc.get("expansionLoc").and_then(Value::as_object).unwrap_or(loc);
        is_bare_location(loc).then_some(loc)
    };
    let (begin, end) = (bare("begin")?, bare("end")?);
    let file = begin.get(FILE_KEY)?.as_str()?;
    if end.get(FILE_KEY)?.as_str()? != file {
        return None;
    }
    let (start, _) = offset_len(begin)?;
    let (last, len) = offset_len(end)?;
    let end = last.checked_add(len)?;
    (start < end).then(|| (file.to_owned(), start, end))
}

/// Where a node begins when that is in a user's header (not the main file): the header's
/// name as clang gives it and the 1-based line (of the macro invocation, for a token from a
/// macro).
pub(crate) fn header_place(node: &Value) -> Option<(String, u32)> {
    let loc = range_loc(node, "begin")?.as_object()?;
    let loc = loc.get("expansionLoc").and_then(Value::as_object).unwrap_or(loc);
    let file = loc.get(FILE_KEY)?.as_str()?;
    let line = u32::try_from(loc.get(LINE_KEY)?.as_u64()?).ok()?;
    Some((file.to_owned(), line))
}

/// A resolved location.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pos {
    /// A token of the main file: its offset and length in bytes.
    Main { offset: usize, len: usize },
    /// A token from a macro expansion whose outermost invocation is in the main file: the
    /// invocation's offset and the length of the macro name; `arg` if the token was spelled
    /// in a macro argument, `spelling` where it was spelled if that is in the main file.
    Macro { offset: usize, len: usize, arg: bool, spelling: Option<usize> },
    /// Elsewhere (another file, a built-in, invalid).
    Other,
}

fn offset_len(map: &serde_json::Map<String, Value>) -> Option<(usize, usize)> {
    let offset = usize::try_from(map.get("offset")?.as_u64()?).ok()?;
    let len = usize::try_from(map.get("tokLen")?.as_u64()?).ok()?;
    Some((offset, len))
}

/// Resolves a (tagged) location object.
pub(crate) fn pos(loc: &Value) -> Pos {
    let Some(map) = loc.as_object() else { return Pos::Other };
    let main = |m: &serde_json::Map<String, Value>| m.get(MAIN_KEY) == Some(&Value::Bool(true));
    if is_bare_location(map) {
        return match offset_len(map) {
            Some((offset, len)) if main(map) => Pos::Main { offset, len },
            _ => Pos::Other,
        };
    }
    let Some(exp) = map.get("expansionLoc").and_then(Value::as_object) else {
        return Pos::Other;
    };
    match offset_len(exp) {
        Some((offset, len)) if main(exp) => {
            let arg = exp.get("isMacroArgExpansion") == Some(&Value::Bool(true));
            let spelling = map.get("spellingLoc").and_then(Value::as_object).filter(|s| main(s)).and_then(offset_len).map(|(o, _)| o);
            Pos::Macro { offset, len, arg, spelling }
        }
        _ => Pos::Other,
    }
}

/// The `kind` of an AST node (`""` if absent).
pub(crate) fn kind(node: &Value) -> &str {
    node.get("kind").and_then(Value::as_str).unwrap_or("")
}

/// The `inner` children of an AST node (empty if absent).
pub(crate) fn inner(node: &Value) -> &[Value] {
    node.get("inner").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// A string member of an AST node.
pub(crate) fn str_field<'a>(node: &'a Value, key: &str) -> Option<&'a str> {
    node.get(key).and_then(Value::as_str)
}

/// A Boolean member of an AST node (`false` if absent).
pub(crate) fn flag(node: &Value, key: &str) -> bool {
    node.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The spelled type (`type.qualType`) of an AST node.
pub(crate) fn qual_type(node: &Value) -> Option<&str> {
    node.get("type")?.get("qualType")?.as_str()
}

/// A node's type with typedefs resolved (`float (*)(float *, unsigned int)` for `funcType`),
/// or its type as written when clang gives no other.
pub(crate) fn desugared_type(node: &Value) -> Option<&str> {
    let t = node.get("type")?;
    t.get("desugaredQualType").or_else(|| t.get("qualType"))?.as_str()
}

fn range_loc<'a>(node: &'a Value, which: &str) -> Option<&'a Value> {
    node.get("range")?.get(which)
}

/// Where a node's text begins in the main file: its first token, or the invocation of the
/// macro its first token comes from. For a token spelled in a macro argument, only if it is
/// the first token of the first argument (`M(a, ...)` where the node begins with `a`);
/// otherwise the invocation holds more than the node before it.
pub(crate) fn begin_of(node: &Value, src: &[u8]) -> Option<usize> {
    match pos(range_loc(node, "begin")?) {
        Pos::Main { offset, .. } => Some(offset),
        Pos::Macro { offset, arg: false, .. } => Some(offset),
        Pos::Macro { offset, len, arg: true, spelling: Some(s) } => {
            let paren = scan::skip_trivia(src, offset.checked_add(len)?);
            (src.get(paren) == Some(&b'(') && scan::skip_trivia(src, paren + 1) == s).then_some(offset)
        }
        _ => None,
    }
}

/// Where a node's last token ends in the main file; for a token from a macro expansion, the
/// end of the whole invocation (with its argument list).
pub(crate) fn end_of(node: &Value, src: &[u8]) -> Option<usize> {
    let end = match pos(range_loc(node, "end")?) {
        Pos::Main { offset, len } => offset.checked_add(len)?,
        Pos::Macro { offset, len, .. } => scan::after_macro_invocation(src, offset.checked_add(len)?)?,
        Pos::Other => return None,
    };
    (end <= src.len()).then_some(end)
}

/// Whether a (tagged) bare location, or a macro location's expansion, lies in a user's file
/// (the main file or a header that is not a system or toolkit header).
pub(crate) fn loc_in_user_file(loc: Option<&Value>) -> bool {
    let Some(map) = loc.and_then(Value::as_object) else { return false };
    let map = map.get("expansionLoc").and_then(Value::as_object).unwrap_or(map);
    map.get(USER_KEY) == Some(&Value::Bool(true))
}

/// Whether a (tagged) location lies in the main file, directly or through a macro invocation.
pub(crate) fn loc_in_main(loc: Option<&Value>) -> bool {
    loc.is_some_and(|l| pos(l) != Pos::Other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_tracked_in_document_order() {
        let json = r#"{"kind":"TranslationUnitDecl","inner":[
            {"loc":{"offset":1,"file":"k.cu","line":1,"col":2,"tokLen":1,
                    "includedFrom":{"file":"other.h"}}},
            {"loc":{"offset":2,"col":3,"tokLen":1}},
            {"loc":{"spellingLoc":{"offset":9,"file":"p.h","line":3,"col":1,"tokLen":2},
                    "expansionLoc":{"offset":4,"file":"k.cu","line":1,"col":5,"tokLen":3}}},
            {"loc":{"offset":7,"col":8,"tokLen":1}},
            {"loc":{"offset":8,"file":"p.h","line":1,"col":8,"tokLen":1}},
            {"loc":{"offset":8,"col":9,"tokLen":1}},
            {"loc":{}}]}"#;
        let v = parse(json, "k.cu").unwrap();
        let locs: Vec<Pos> = inner(&v).iter().map(|n| pos(&n["loc"])).collect();
        assert_eq!(
            locs,
            [
                Pos::Main { offset: 1, len: 1 },
                Pos::Main { offset: 2, len: 1 },
                Pos::Macro { offset: 4, len: 3, arg: false, spelling: None },
                Pos::Main { offset: 7, len: 1 },
                Pos::Other,
                Pos::Other,
                Pos::Other,
            ]
        );
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert!(matches!(parse(&deep, "k.cu"), Err(AstError::TooDeep { .. })));
        assert_eq!(max_depth(br#"{"a":"[[[{","b":[1]}"#), 2);
        assert!(matches!(parse("{\"a\":", "k.cu"), Err(AstError::Json(_))));
    }
}
