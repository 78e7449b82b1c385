//! GPUVerify's launch-configuration flags: `--blockDim`/`--local_size`, `--gridDim`/
//! `--num_groups`, `--global_size`, each `[x,y,z]`, `x,y` or a bare `x`.

use syncfix::Launch;

/// Parses `64`, `[64,2]`, `64,2` into three dimensions (missing ones are 1); `*` is a
/// symbolic dimension (0).
pub fn parse_dims(flag: &str, s: &str) -> Result<[u32; 3], String> {
    let t = s.trim().trim_start_matches('[').trim_end_matches(']');
    let parts: Vec<&str> = t.split(',').map(|p| p.trim()).collect();
    if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(format!("{flag}={s}: expected a size like 64, [64,2] or [8,8,4]"));
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        if *p == "*" {
            // Symbolic (GPUVerify's unconstrained size): 0 in a `Launch`.
            out[i] = 0;
            continue;
        }
        let v: u32 = p.parse().map_err(|_| match p.parse::<u128>() {
            // A number, but past what a launch size holds (32 bits, as in `dim3`).
            Ok(_) => format!("{flag}={s}: `{p}` is too large: a size is at most {} (32 bits, as in dim3)", u32::MAX),
            Err(_) => format!("{flag}={s}: `{p}` is not a positive integer"),
        })?;
        if v == 0 {
            return Err(format!("{flag}={s}: dimension {} is zero", i + 1));
        }
        out[i] = v;
    }
    Ok(out)
}

/// The launch from the flags a user gave (GPUVerify accepts the CUDA and OpenCL spellings
/// for either language). A size not given is symbolic in every dimension, as `*`.
///
/// Errors name the flags as the user wrote them (`--local_size` or `--blockDim`, ...): the
/// spellings found on the command line, else the language's own.
pub fn launch(block: Option<&str>, grid: Option<&str>, global: Option<&str>, opencl: bool) -> Result<Launch, String> {
    let spelled = |names: [&'static str; 2], default: &'static str| -> &'static str {
        crate::command_line().iter().find_map(|a| names.into_iter().find(|n| a == *n || a.starts_with(&format!("{n}=")))).unwrap_or(default)
    };
    let (bflag, gflag) = if opencl { ("--local_size", "--num_groups") } else { ("--blockDim", "--gridDim") };
    let bflag = spelled(["--blockDim", "--local_size"], bflag);
    let gflag = spelled(["--gridDim", "--num_groups"], gflag);
    let block_dim = match block {
        Some(b) => parse_dims(bflag, b)?,
        // No size: symbolic in every dimension (GPUVerify's `*`).
        None => [0; 3],
    };
    let grid_dim = match (grid, global) {
        (Some(_), Some(_)) => return Err(format!("{gflag}=: not allowed with argument --global_size= (give one of them)")),
        (Some(g), None) => parse_dims(gflag, g)?,
        (None, Some(g)) => {
            let glob = parse_dims("--global_size", g)?;
            let gn = dim_count(g);
            let bn = block.map_or(gn, dim_count);
            if gn != bn {
                return Err(format!(
                    "Dimensions of local and global size must match: --global_size={g} has {gn} dimension{} but {bflag}={} has {bn}",
                    if gn == 1 { "" } else { "s" },
                    block.unwrap_or_default()
                ));
            }
            let mut n = [1u32; 3];
            let mut fixed = [0u32; 3];
            for d in 0..3 {
                // A symbolic factor: the other is symbolic too, their product fixed when the
                // global size is.
                if glob[d] == 0 || block_dim[d] == 0 {
                    n[d] = 0;
                    fixed[d] = glob[d];
                    continue;
                }
                if glob[d] % block_dim[d] != 0 {
                    // GPUVerify's wording, dimensions counted from 0.
                    return Err(format!(
                        "Dimension {d} of global size does not divide by dimension {d} of local size: \
                         --global_size={g} has {} threads there, not a multiple of the {} size ({})",
                        glob[d],
                        if opencl { "work-group" } else { "block" },
                        block_dim[d]
                    ));
                }
                n[d] = glob[d] / block_dim[d];
            }
            let mut l = Launch::new(block_dim, n);
            l.global_dim = fixed;
            return Ok(l);
        }
        (None, None) => [0; 3],
    };
    Ok(Launch::new(block_dim, grid_dim))
}

/// The number of dimensions a size flag's value gives (`64`: 1, `[64,2]`: 2).
fn dim_count(s: &str) -> usize {
    s.trim().trim_start_matches('[').trim_end_matches(']').split(',').count()
}

/// `--global_offset`: like a size, but zeros are allowed.
pub fn parse_offset(s: &str) -> Result<[u32; 3], String> {
    let t = s.trim().trim_start_matches('[').trim_end_matches(']');
    let mut out = [0u32; 3];
    let parts: Vec<&str> = t.split(',').map(|p| p.trim()).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("--global_offset={s}: expected an offset like 64 or [64,0]"));
    }
    for (i, p) in parts.iter().enumerate() {
        out[i] = p.parse().map_err(|_| format!("--global_offset={s}: `{p}` is not a non-negative integer"))?;
    }
    Ok(out)
}

/// `--kernel-args=K,v1,...` (hexadecimal values, `radix` 16) and `--kernel-arrays=K,s1,...`
/// (decimal sizes): the kernel's name and one value or `*` (unconstrained) per parameter.
pub fn parse_kernel_values(s: &str, radix: u32) -> Result<(String, Vec<Option<u128>>), String> {
    let mut parts = s.split(',').map(|p| p.trim());
    let kernel = match parts.next() {
        Some(k) if !k.is_empty() => k.to_string(),
        _ => return Err(format!("{s}: the first element must name the kernel")),
    };
    let mut values = vec![];
    for p in parts {
        if p == "*" {
            values.push(None);
            continue;
        }
        let digits = if radix == 16 { p.trim_start_matches("0x").trim_start_matches("0X") } else { p };
        let v = u128::from_str_radix(digits, radix)
            .map_err(|_| format!("{s}: `{p}` is not a {} value or *", if radix == 16 { "hexadecimal" } else { "positive" }))?;
        values.push(Some(v));
    }
    Ok((kernel, values))
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernel_values() {
        assert_eq!(super::parse_kernel_values("foo,0x00000003,*", 16).unwrap(), ("foo".into(), vec![Some(3), None]));
        assert!(super::parse_kernel_values("foo,zz", 16).is_err());
        assert!(super::parse_kernel_values(",1", 10).is_err());
        assert_eq!(super::parse_offset("[64,0]").unwrap(), [64, 0, 0]);
    }

    use super::*;

    #[test]
    fn dims_forms() {
        assert_eq!(parse_dims("f", "64").unwrap(), [64, 1, 1]);
        assert_eq!(parse_dims("f", "[64,2]").unwrap(), [64, 2, 1]);
        assert_eq!(parse_dims("f", "5,6,7").unwrap(), [5, 6, 7]);
        assert!(parse_dims("f", "0").is_err());
        assert!(parse_dims("f", "[1,2,3,4]").is_err());
        assert!(parse_dims("f", "x").is_err());
        assert!(parse_dims("f", "[]").is_err());
    }

    #[test]
    fn global_size_divides() {
        let l = launch(Some("[2,3]"), None, Some("[4,9]"), true).unwrap();
        assert_eq!(l.grid_dim, [2, 3, 1]);
        assert!(launch(Some("4"), None, Some("6"), true).is_err());
        // Sizes not given are symbolic in every dimension; `*` in one.
        assert_eq!(launch(None, Some("4"), None, false).unwrap().block_dim, [0, 0, 0]);
        assert_eq!(launch(Some("4"), None, None, false).unwrap().grid_dim, [0, 0, 0]);
        let l = launch(Some("*"), None, Some("64"), true).unwrap();
        assert_eq!((l.block_dim, l.grid_dim, l.global_dim), ([0, 1, 1], [0, 1, 1], [64, 0, 0]));
    }
}
