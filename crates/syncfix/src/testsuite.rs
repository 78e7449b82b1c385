//! GPUVerify's test-file convention (its `gvtester`), shared by `syncfix suite` and our tests.
//!
//! Line 1 is `//pass` or `//xfail:CODE` (CODE an exit-code name), line 2 `//` and the
//! command-line flags, then `//` lines with regular expressions the combined output must match
//! when the exit code is the expected one.

/// A test's header.
#[derive(Clone, Debug)]
pub struct Header {
    pub expected: u8,
    pub expected_name: String,
    pub flags: Vec<String>,
    pub regexes: Vec<String>,
}

/// GPUVerify's exit-code names.
pub fn code_of(name: &str) -> Option<u8> {
    Some(match name {
        "pass" | "SUCCESS" => 0,
        "COMMAND_LINE_ERROR" => 1,
        "CLANG_ERROR" => 2,
        "OPT_ERROR" => 3,
        "BUGLE_ERROR" => 4,
        "GPUVERIFYVCGEN_ERROR" => 5,
        "NOT_ALL_VERIFIED" => 6,
        "TIMEOUT" => 7,
        _ => return None,
    })
}

/// Parses a kernel's header lines.
pub fn parse_header(text: &str) -> Option<Header> {
    let mut lines = text.lines();
    // The suite writes `//pass` and `//xfail:` in either case (`//PASS`, `//XFAIL:`).
    let first = lines.next()?.trim();
    let lower = first.to_ascii_lowercase();
    let (expected, expected_name) = if lower == "//pass" {
        (0, "pass".to_string())
    } else {
        lower.strip_prefix("//xfail:")?;
        let name = first["//xfail:".len()..].trim().to_string();
        (code_of(&name)?, name)
    };
    let flags = lines.next()?.trim().strip_prefix("//")?.split_whitespace().map(|s| s.to_string()).collect();
    let mut regexes = vec![];
    for l in lines {
        match l.strip_prefix("//") {
            Some(r) => regexes.push(r.to_string()),
            None => break,
        }
    }
    Some(Header { expected, expected_name, flags, regexes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let h = parse_header("//xfail:NOT_ALL_VERIFIED\n//--blockDim=64 --gridDim=1\n//error: a\\[1\\]\n\nint x;").unwrap();
        assert_eq!(h.expected, 6);
        assert_eq!(h.flags, vec!["--blockDim=64", "--gridDim=1"]);
        assert_eq!(h.regexes, vec!["error: a\\[1\\]"]);
        let p = parse_header("//pass\n//--local_size=8 --num_groups=2\nkernel").unwrap();
        assert_eq!(p.expected, 0);
        assert!(p.regexes.is_empty());
        assert!(parse_header("// nothing\n").is_none());
        assert_eq!(parse_header("//PASS\n//--blockDim=2 --gridDim=1\n").unwrap().expected, 0);
        assert_eq!(parse_header("//XFAIL:NOT_ALL_VERIFIED\n//--blockDim=2\n").unwrap().expected, 6);
        assert!(parse_header("//xfail:WHATEVER\n//x\n").is_none());
    }
}
