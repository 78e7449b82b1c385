//! Expressions of the kernel generator (`gen.rs`): every expression is generated at a type
//! and only with operators valid at that type; values of another type are cast.

use super::{Array, Gen, Lang, Ty, Var, TYS};

impl Gen<'_> {
    pub(super) fn pick_var(&mut self, pred: impl Fn(&Var) -> bool) -> Var {
        let vs = self.vars(pred);
        vs[self.below(vs.len())].clone()
    }

    pub(super) fn literal_of(&self, t: Ty, i: usize) -> String {
        match t {
            Ty::Int => format!("{i}"),
            Ty::Uint => format!("{i}u"),
            Ty::Float => format!("{i}.5f"),
        }
    }

    pub(super) fn literal(&mut self, t: Ty) -> String {
        let i = self.pick(&[3, 3, 2, 1, 1, 1]);
        match (t, i) {
            (_, 0..=2) => self.literal_of(t, i),
            (Ty::Int, 3) => "(-1)".into(),
            (Ty::Int, 4) => "1000".into(),
            (Ty::Int, _) => "7".into(),
            (Ty::Uint, 3) => "0xffffffffu".into(),
            (Ty::Uint, 4) => "1000u".into(),
            (Ty::Uint, _) => "7u".into(),
            (Ty::Float, 3) => "(-2.0f)".into(),
            (Ty::Float, 4) => "1e3f".into(),
            (Ty::Float, _) => "0.0f".into(),
        }
    }

    /// An id or size of the launch (unsigned in CUDA, `size_t` in OpenCL).
    pub(super) fn launch_value(&mut self) -> String {
        self.feature("thread/group id or size");
        let cuda = [
            "threadIdx.x",
            "threadIdx.y",
            "blockIdx.x",
            "blockIdx.y",
            "blockDim.x",
            "blockDim.y",
            "gridDim.x",
            "threadIdx.z",
            "blockDim.z",
            "gridDim.y",
        ];
        let ocl = [
            "get_local_id(0)",
            "get_local_id(1)",
            "get_global_id(0)",
            "get_global_id(1)",
            "get_group_id(0)",
            "get_local_size(0)",
            "get_num_groups(0)",
            "get_global_size(0)",
            "get_local_id(2)",
            "get_group_id(1)",
            "get_local_size(1)",
            "get_num_groups(1)",
        ];
        match self.lang {
            Lang::Cuda => cuda[self.pick(&[6, 2, 3, 1, 2, 1, 1, 1, 1, 1])].into(),
            Lang::OpenCl => ocl[self.pick(&[6, 2, 3, 1, 2, 2, 1, 1, 1, 1, 1, 1])].into(),
        }
    }

    pub(super) fn local_id(&mut self) -> &'static str {
        match self.lang {
            Lang::Cuda => "threadIdx.x",
            Lang::OpenCl => "get_local_id(0)",
        }
    }

    pub(super) fn local_size(&mut self) -> &'static str {
        match self.lang {
            Lang::Cuda => "blockDim.x",
            Lang::OpenCl => "get_local_size(0)",
        }
    }

    pub(super) fn global_id(&mut self) -> String {
        match self.lang {
            Lang::Cuda => "(blockIdx.x * blockDim.x + threadIdx.x)".into(),
            Lang::OpenCl => "get_global_id(0)".into(),
        }
    }

    pub(super) fn cast(&mut self, to: Ty, e: &str) -> String {
        self.feature("cast");
        if self.lang == Lang::Cuda && self.one_in(4) {
            format!("static_cast<{}>({e})", self.ty_name(to))
        } else {
            format!("(({}){})", self.ty_name(to), paren(e))
        }
    }

    pub(super) fn atom(&mut self, t: Ty) -> String {
        let vars = self.vars(|v| v.ty == t);
        match self.pick(&[3, if vars.is_empty() { 0 } else { 5 }, if t == Ty::Float { 0 } else { 2 }]) {
            0 => self.literal(t),
            1 => vars[self.below(vars.len())].name.clone(),
            _ => {
                let v = self.launch_value();
                if t == Ty::Int || self.lang == Lang::OpenCl {
                    self.cast(t, &v)
                } else {
                    v
                }
            }
        }
    }

    /// An expression of type `t`.
    pub(super) fn expr(&mut self, t: Ty, d: usize) -> String {
        if d == 0 || self.exhausted() {
            return self.atom(t);
        }
        let int = t != Ty::Float;
        let readable = !self.arrays.is_empty();
        let callable = !self.callable(Some(t)).is_empty();
        let n = |b: bool, w: u32| if b { w } else { 0 };
        let weights = [
            4,              // 0 atom
            4,              // 1 binary
            1,              // 2 unary
            1,              // 3 ternary
            n(readable, 3), // 4 array read
            n(callable, 1), // 5 call
            1,              // 6 cast from another type
            n(int, 1),      // 7 comparison as a value
            2,              // 8 global id
        ];
        match self.pick(&weights) {
            0 => self.atom(t),
            1 => {
                let a = self.expr(t, d - 1);
                let b = self.expr(t, d - 1);
                if int {
                    let op = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"][self.pick(&[4, 3, 3, 1, 1, 1, 1, 1, 1, 1])];
                    let b = match op {
                        "/" | "%" if self.one_in(8) => {
                            self.feature("unguarded division");
                            b
                        }
                        "/" | "%" => format!("({} | 1)", paren(&b)),
                        "<<" | ">>" => format!("({} & 7)", paren(&b)),
                        _ => b,
                    };
                    format!("({a} {op} {b})")
                } else {
                    let op = ["+", "-", "*", "/"][self.pick(&[3, 2, 2, 1])];
                    format!("({a} {op} {b})")
                }
            }
            2 => {
                let a = self.expr(t, d - 1);
                let op = match t {
                    Ty::Int => ["-", "~", "!"][self.below(3)],
                    Ty::Uint => ["~", "-"][self.below(2)],
                    Ty::Float => "-",
                };
                if op == "!" && self.lang == Lang::Cuda {
                    // `!` gives `bool` in C++; keep the type.
                    format!("((int)!{})", paren(&a))
                } else {
                    format!("({op}{})", paren(&a))
                }
            }
            3 => {
                self.feature("ternary");
                let c = self.cond(d - 1);
                let a = self.expr(t, d - 1);
                let b = self.expr(t, d - 1);
                format!("({c} ? {a} : {b})")
            }
            4 => self.array_read(t),
            5 => {
                let hs = self.callable(Some(t));
                let h = hs[self.below(hs.len())].clone();
                let c = self.call(&h);
                if h.ret == Some(t) {
                    c
                } else {
                    self.cast(t, &c)
                }
            }
            6 => {
                let from = TYS[self.below(3)];
                let e = self.expr(from, d - 1);
                self.cast(t, &e)
            }
            7 => {
                let c = self.comparison(d - 1);
                self.cast(t, &c)
            }
            _ => {
                let g = self.global_id();
                self.cast(t, &g)
            }
        }
    }

    pub(super) fn array_read(&mut self, t: Ty) -> String {
        self.feature("array read");
        let same: Vec<Array> = self.arrays.iter().filter(|a| a.elem == t).cloned().collect();
        let a = if !same.is_empty() && !self.one_in(4) {
            same[self.below(same.len())].clone()
        } else {
            let i = self.below(self.arrays.len());
            self.arrays[i].clone()
        };
        let e = self.element(&a);
        if a.elem == t {
            e
        } else {
            self.cast(t, &e)
        }
    }

    /// An element of `a`: `A[i]`, `s[i & 7]`, `s[i][j]`.
    pub(super) fn element(&mut self, a: &Array) -> String {
        let mut s = a.name.clone();
        if a.dims.is_empty() {
            let i = self.index();
            s.push_str(&format!("[{i}]"));
        }
        for &n in &a.dims {
            let i = self.bounded_index(n);
            s.push_str(&format!("[{i}]"));
        }
        s
    }

    /// An index into a pointer: mostly thread-dependent.
    pub(super) fn index(&mut self) -> String {
        match self.pick(&[2, 4, 2, 2, 2]) {
            0 => self.below(8).to_string(),
            1 => self.local_id().into(),
            2 => {
                let tid = self.local_id();
                let k = 1 + self.below(3);
                if self.one_in(2) {
                    format!("{tid} + {k}")
                } else {
                    format!("{tid} * {k}")
                }
            }
            3 => self.global_id(),
            _ => self.expr(Ty::Int, self.sizes.max_expr_depth - 1),
        }
    }

    /// An index in `0..n` (`n` a power of two).
    pub(super) fn bounded_index(&mut self, n: u32) -> String {
        match self.pick(&[2, 3, 2, 2]) {
            0 => self.below(n as usize).to_string(),
            1 => {
                let tid = self.local_id();
                format!("{tid} % {n}")
            }
            2 => {
                let e = self.index();
                format!("({}) & {}", e, n - 1)
            }
            _ => {
                let e = self.expr(Ty::Uint, self.sizes.max_expr_depth - 1);
                format!("{} % {n}u", paren(&e))
            }
        }
    }

    pub(super) fn comparison(&mut self, d: usize) -> String {
        let t = TYS[self.below(3)];
        let a = self.expr(t, d);
        let b = self.expr(t, d);
        let op = ["<", "<=", ">", ">=", "==", "!="][self.below(6)];
        format!("({a} {op} {b})")
    }

    /// A condition (for `if`, loops, `?:`, `__assert`).
    pub(super) fn cond(&mut self, d: usize) -> String {
        if d == 0 {
            return self.comparison(0);
        }
        match self.pick(&[3, 3, 1, 1, 1, 1]) {
            0 => self.comparison(d - 1),
            1 => {
                self.feature("thread-dependent condition");
                let tid = self.local_id();
                match self.below(4) {
                    0 => format!("{tid} == 0"),
                    1 => format!("{tid} < {}", 1 + self.below(4)),
                    2 => format!("{tid} % 2 == 0"),
                    _ => format!("{} > {}", self.global_id(), self.below(8)),
                }
            }
            2 => {
                let a = self.cond(d - 1);
                let b = self.cond(d - 1);
                format!("({a}) && ({b})")
            }
            3 => {
                let a = self.cond(d - 1);
                let b = self.cond(d - 1);
                format!("({a}) || ({b})")
            }
            4 => {
                let a = self.cond(d - 1);
                format!("!({a})")
            }
            _ => self.expr(Ty::Int, d - 1),
        }
    }
}

/// `e` in parentheses unless it already is one parenthesized group, an identifier or a
/// number.
pub(super) fn paren(e: &str) -> String {
    let simple = e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if simple || is_one_group(e) {
        e.to_string()
    } else {
        format!("({e})")
    }
}

fn is_one_group(e: &str) -> bool {
    if !e.starts_with('(') || !e.ends_with(')') {
        return false;
    }
    let mut depth = 0;
    for (i, c) in e.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 != e.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}
