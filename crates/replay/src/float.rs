//! Floating-point operations by their KIR names (`fadd.32`, `fcmp.olt.64`, `sitofp.32`,
//! `__nv_sqrtf.32`, `_Z4sqrtf.32`, `llvm.fabs.f32.32`), computed with IEEE 754 single or double
//! precision as the GPU computes them. The verifier leaves them uninterpreted (GPUVerify's
//! model); the replay gives them their real values, so that a race it confirms happens on a
//! real device. An operation it does not know is `None`: the caller gives it a deterministic
//! value and marks what depends on it.

use crate::value::{mask, signed};

/// A float of 32 or 64 bits.
#[derive(Copy, Clone)]
enum F {
    S(f32),
    D(f64),
}

impl F {
    fn of(bits: u128, width: u16) -> Option<F> {
        match width {
            32 => Some(F::S(f32::from_bits(bits as u32))),
            64 => Some(F::D(f64::from_bits(bits as u64))),
            _ => None,
        }
    }
    fn bits(self) -> u128 {
        match self {
            F::S(x) => x.to_bits() as u128,
            F::D(x) => x.to_bits() as u128,
        }
    }
    fn f64(self) -> f64 {
        match self {
            F::S(x) => x as f64,
            F::D(x) => x,
        }
    }
    /// Applies `f` in the operand's own precision.
    fn map(self, s: impl Fn(f32) -> f32, d: impl Fn(f64) -> f64) -> F {
        match self {
            F::S(x) => F::S(s(x)),
            F::D(x) => F::D(d(x)),
        }
    }
}

/// The base name of a math function: `sqrt` for `__nv_sqrtf`, `_Z4sqrtf`, `llvm.sqrt.f32`,
/// `sqrtf`, `__fsqrt_rn`.
fn base_name(func: &str) -> String {
    let mut f = func.trim_start_matches("llvm.");
    if let Some(rest) = f.strip_prefix("_Z") {
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = digits.parse::<usize>() {
            if let Some(name) = rest.get(digits.len()..digits.len() + n) {
                f = name;
            }
        }
    }
    let f = f.trim_start_matches("__nv_").trim_start_matches("__");
    let f = f.split('.').next().unwrap_or(f);
    let f = f.trim_end_matches("_rn").trim_end_matches("_rz").trim_end_matches("_ru").trim_end_matches("_rd");
    f.to_string()
}

/// Whether `name` less a trailing `f` (single precision) is `base`.
fn is(name: &str, base: &str) -> bool {
    name == base || name.strip_suffix('f') == Some(base) || name.strip_prefix('f').is_some_and(|n| n == base)
}

/// The value of the float operation `func` (its KIR name) on `args` (each with its width in
/// bits), as a `width`-bit result; `None` for an operation this module does not know.
pub(crate) fn eval(func: &str, args: &[(u128, u16)], width: u16) -> Option<u128> {
    let parts: Vec<&str> = func.split('.').collect();
    let arg = |i: usize| args.get(i).and_then(|&(b, w)| F::of(b, w));
    let to_int = |x: f64, signed_result: bool| -> u128 {
        let v = x.trunc();
        if signed_result {
            let lo = -(2f64.powi(width as i32 - 1));
            let hi = 2f64.powi(width as i32 - 1) - 1.0;
            (v.clamp(lo, hi) as i128) as u128 & mask(width)
        } else {
            let hi = 2f64.powi(width as i32) - 1.0;
            (v.clamp(0.0, hi) as u128) & mask(width)
        }
    };
    let from_f64 = |x: f64| -> Option<u128> {
        match width {
            32 => Some((x as f32).to_bits() as u128),
            64 => Some(x.to_bits() as u128),
            _ => None,
        }
    };
    match parts.first().copied()? {
        op @ ("fadd" | "fsub" | "fmul" | "fdiv" | "frem") if parts.len() == 2 => {
            let (a, b) = (arg(0)?, arg(1)?);
            let r = match (a, b) {
                (F::S(x), F::S(y)) => F::S(match op {
                    "fadd" => x + y,
                    "fsub" => x - y,
                    "fmul" => x * y,
                    "fdiv" => x / y,
                    _ => x % y,
                }),
                (F::D(x), F::D(y)) => F::D(match op {
                    "fadd" => x + y,
                    "fsub" => x - y,
                    "fmul" => x * y,
                    "fdiv" => x / y,
                    _ => x % y,
                }),
                _ => return None,
            };
            Some(r.bits())
        }
        "fneg" if parts.len() == 2 => Some(arg(0)?.map(|x| -x, |x| -x).bits()),
        "fcmp" if parts.len() == 3 => {
            let (x, y) = (arg(0)?.f64(), arg(1)?.f64());
            let unordered = x.is_nan() || y.is_nan();
            let r = match parts[1] {
                "oeq" => !unordered && x == y,
                "ogt" => !unordered && x > y,
                "oge" => !unordered && x >= y,
                "olt" => !unordered && x < y,
                "ole" => !unordered && x <= y,
                "one" => !unordered && x != y,
                "ord" => !unordered,
                "ueq" => unordered || x == y,
                "ugt" => unordered || x > y,
                "uge" => unordered || x >= y,
                "ult" => unordered || x < y,
                "ule" => unordered || x <= y,
                "une" => unordered || x != y,
                "uno" => unordered,
                _ => return None,
            };
            Some(r as u128)
        }
        "fpext" | "fptrunc" if parts.len() == 2 => from_f64(arg(0)?.f64()),
        "fptosi" if parts.len() == 2 => Some(to_int(arg(0)?.f64(), true)),
        "fptoui" if parts.len() == 2 => Some(to_int(arg(0)?.f64(), false)),
        "sitofp" if parts.len() == 2 => {
            let &(b, w) = args.first()?;
            from_f64(signed(b, w) as f64)
        }
        "uitofp" if parts.len() == 2 => {
            let &(b, w) = args.first()?;
            from_f64((b & mask(w)) as f64)
        }
        _ => math(&base_name(func), args, width),
    }
}

/// The math library's functions of one, two or three floats of the result's width.
fn math(name: &str, args: &[(u128, u16)], width: u16) -> Option<u128> {
    if args.iter().any(|&(_, w)| w != width) {
        return None;
    }
    let x = F::of(args.first()?.0, width)?;
    let y = args.get(1).and_then(|&(b, w)| F::of(b, w));
    let unary: Option<(fn(f32) -> f32, fn(f64) -> f64)> = match name {
        n if is(n, "sqrt") => Some((f32::sqrt, f64::sqrt)),
        n if is(n, "rsqrt") => Some((|x| 1.0 / x.sqrt(), |x| 1.0 / x.sqrt())),
        n if is(n, "fabs") || is(n, "abs") => Some((f32::abs, f64::abs)),
        n if is(n, "floor") => Some((f32::floor, f64::floor)),
        n if is(n, "ceil") => Some((f32::ceil, f64::ceil)),
        n if is(n, "trunc") => Some((f32::trunc, f64::trunc)),
        n if is(n, "round") => Some((f32::round, f64::round)),
        n if is(n, "rint") || is(n, "nearbyint") => Some((f32::round_ties_even, f64::round_ties_even)),
        n if is(n, "exp") || n == "expf" => Some((f32::exp, f64::exp)),
        n if is(n, "exp2") => Some((f32::exp2, f64::exp2)),
        n if is(n, "log") => Some((f32::ln, f64::ln)),
        n if is(n, "log2") => Some((f32::log2, f64::log2)),
        n if is(n, "log10") => Some((f32::log10, f64::log10)),
        n if is(n, "sin") => Some((f32::sin, f64::sin)),
        n if is(n, "cos") => Some((f32::cos, f64::cos)),
        n if is(n, "tan") => Some((f32::tan, f64::tan)),
        n if is(n, "tanh") => Some((f32::tanh, f64::tanh)),
        n if is(n, "cbrt") => Some((f32::cbrt, f64::cbrt)),
        _ => None,
    };
    if args.len() == 1 {
        return unary.map(|(s, d)| x.map(s, d).bits());
    }
    let y = y?;
    let r = match (name, x, y) {
        (n, F::S(a), F::S(b)) if is(n, "fmin") || is(n, "min") => F::S(a.min(b)),
        (n, F::D(a), F::D(b)) if is(n, "fmin") || is(n, "min") => F::D(a.min(b)),
        (n, F::S(a), F::S(b)) if is(n, "fmax") || is(n, "max") => F::S(a.max(b)),
        (n, F::D(a), F::D(b)) if is(n, "fmax") || is(n, "max") => F::D(a.max(b)),
        (n, F::S(a), F::S(b)) if is(n, "pow") || is(n, "powi") => F::S(a.powf(b)),
        (n, F::D(a), F::D(b)) if is(n, "pow") => F::D(a.powf(b)),
        (n, F::S(a), F::S(b)) if is(n, "fmod") => F::S(a % b),
        (n, F::D(a), F::D(b)) if is(n, "fmod") => F::D(a % b),
        (n, F::S(a), F::S(b)) if is(n, "fdivide") || is(n, "fdiv") => F::S(a / b),
        (n, F::S(a), F::S(b)) if is(n, "copysign") => F::S(a.copysign(b)),
        (n, F::D(a), F::D(b)) if is(n, "copysign") => F::D(a.copysign(b)),
        (n, F::S(a), F::S(b)) if is(n, "atan2") => F::S(a.atan2(b)),
        (n, F::D(a), F::D(b)) if is(n, "atan2") => F::D(a.atan2(b)),
        (n, F::S(a), F::S(b)) if is(n, "hypot") => F::S(a.hypot(b)),
        (n, F::D(a), F::D(b)) if is(n, "hypot") => F::D(a.hypot(b)),
        (n, F::S(a), F::S(b)) if args.len() == 3 && (is(n, "fma") || is(n, "fmuladd")) => {
            let c = F::of(args[2].0, width)?;
            let F::S(c) = c else { return None };
            F::S(a.mul_add(b, c))
        }
        (n, F::D(a), F::D(b)) if args.len() == 3 && (is(n, "fma") || is(n, "fmuladd")) => {
            let F::D(c) = F::of(args[2].0, width)? else { return None };
            F::D(a.mul_add(b, c))
        }
        _ => return None,
    };
    Some(r.bits())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: f32) -> (u128, u16) {
        (x.to_bits() as u128, 32)
    }

    #[test]
    fn real_values_of_the_operations_kernels_use() {
        assert_eq!(eval("fadd.32", &[s(1.5), s(2.0)], 32), Some(3.5f32.to_bits() as u128));
        assert_eq!(eval("fcmp.olt.32", &[s(1.0), s(2.0)], 1), Some(1));
        assert_eq!(eval("fcmp.olt.32", &[s(f32::NAN), s(2.0)], 1), Some(0));
        assert_eq!(eval("fcmp.uno.32", &[s(f32::NAN), s(2.0)], 1), Some(1));
        assert_eq!(eval("fptosi.32", &[s(-3.7)], 32), Some((-3i32) as u32 as u128));
        assert_eq!(eval("sitofp.32", &[(0xffff_fffe, 32)], 32), Some((-2.0f32).to_bits() as u128));
        assert_eq!(eval("fpext.64", &[s(0.5)], 64), Some(0.5f64.to_bits() as u128));
        assert_eq!(eval("__nv_sqrtf.32", &[s(16.0)], 32), Some(4.0f32.to_bits() as u128));
        assert_eq!(eval("_Z4sqrtf.32", &[s(9.0)], 32), Some(3.0f32.to_bits() as u128));
        assert_eq!(eval("llvm.fabs.f32.32", &[s(-2.0)], 32), Some(2.0f32.to_bits() as u128));
        assert_eq!(eval("__nv_fmaxf.32", &[s(-2.0), s(1.0)], 32), Some(1.0f32.to_bits() as u128));
        assert_eq!(eval("__uninterpreted_function_f", &[s(1.0)], 32), None);
    }
}
