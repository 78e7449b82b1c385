//! Statements of the kernel generator (`gen.rs`): declarations, assignments, array
//! writes, `if`/`else`, loops with constant or launch bounds (counters are never written in
//! the body, so every loop terminates), `break`/`continue`, early returns, barriers, helper
//! calls and `__assert`.

use super::expr::paren;
use super::{Array, Gen, Helper, Lang, Param, Ret, Space, Ty, TYS};

impl Gen<'_> {
    pub(super) fn budget_left(&self) -> bool {
        self.stmts < self.max_stmts
    }

    pub(super) fn stmt_list(&mut self) {
        while self.budget_left() && !self.exhausted() && self.pick(&[1, 7]) == 1 {
            self.sep();
            self.stmt();
        }
    }

    /// A braced body in a new scope.
    pub(super) fn block(&mut self) {
        self.emit("{");
        let mark = self.push_scope();
        self.indent += 1;
        self.depth += 1;
        self.stmt_list();
        self.depth -= 1;
        self.indent -= 1;
        self.pop_scope(mark);
        self.sep();
        self.emit("}");
    }

    /// The body of an `if`/`else`/loop: a braced block, or (sometimes) one simple statement
    /// that is not a declaration (C does not allow one there).
    pub(super) fn body(&mut self) {
        if self.one_in(4) {
            self.feature("unbraced body");
            let mark = self.push_scope();
            self.indent += 1;
            self.depth += 1;
            self.sep();
            self.simple_stmt();
            self.depth -= 1;
            self.indent -= 1;
            self.pop_scope(mark);
        } else {
            self.block();
        }
    }

    pub(super) fn stmt(&mut self) {
        self.stmts += 1;
        let nested = self.depth < self.sizes.max_depth;
        let in_loop = self.loop_depth > 0;
        let n = |b: bool, w: u32| if b { w } else { 0 };
        let weights = [
            4,             // 0 simple statement
            3,             // 1 declaration
            n(nested, 3),  // 2 if
            n(nested, 2),  // 3 for
            n(nested, 1),  // 4 while with a counter
            n(nested, 1),  // 5 do-while with a counter
            n(nested, 1),  // 6 block
            1,             // 7 several declarators
            1,             // 8 private array
            n(in_loop, 2), // 9 break / continue
            1,             // 10 (conditional) return
        ];
        match self.pick(&weights) {
            0 => self.simple_stmt(),
            1 => self.decl(),
            2 => self.if_stmt(),
            3 => self.for_stmt(),
            4 => self.while_stmt(),
            5 => self.do_while_stmt(),
            6 => {
                self.feature("block");
                self.block()
            }
            7 => self.multi_decl(),
            8 => self.private_array(),
            9 => self.jump(),
            _ => self.return_stmt(),
        }
    }

    /// A statement that is not a declaration and has no sub-statements.
    pub(super) fn simple_stmt(&mut self) {
        let mutable = !self.vars(|v| v.mutable).is_empty();
        let writable = self.arrays.iter().any(|a| a.writable);
        let callable = !self.callable(None).is_empty();
        let n = |b: bool, w: u32| if b { w } else { 0 };
        let weights = [
            1,                         // 0 barrier
            n(mutable, 4),             // 1 assignment
            n(mutable, 2),             // 2 compound assignment
            n(mutable, 1),             // 3 increment / decrement
            n(writable, 6),            // 4 array write
            n(callable, 2),            // 5 call
            1,                         // 6 assert
            n(self.loop_depth > 0, 1), // 7 break/continue
            1,                         // 8 return
        ];
        match self.pick(&weights) {
            0 => self.barrier(),
            1 => {
                let v = self.pick_var(|v| v.mutable);
                let e = self.expr(v.ty, self.sizes.max_expr_depth);
                self.emit(&format!("{} = {e};", v.name));
            }
            2 => {
                let v = self.pick_var(|v| v.mutable);
                let (op, e) = self.compound_rhs(v.ty);
                self.feature("compound assignment");
                self.emit(&format!("{} {op}= {e};", v.name));
            }
            3 => {
                let v = self.pick_var(|v| v.mutable);
                self.feature("increment/decrement");
                let s = match self.below(4) {
                    0 => format!("{}++;", v.name),
                    1 => format!("++{};", v.name),
                    2 => format!("{}--;", v.name),
                    _ => format!("--{};", v.name),
                };
                self.emit(&s);
            }
            4 => self.array_write(),
            5 => self.call_stmt(),
            6 => {
                self.feature("__assert");
                let c = self.cond(self.sizes.max_expr_depth);
                self.emit(&format!("__assert({c});"));
            }
            7 => self.jump(),
            _ => self.return_stmt(),
        }
    }

    pub(super) fn barrier(&mut self) {
        self.feature("barrier");
        let s = match self.lang {
            Lang::Cuda => "__syncthreads();",
            Lang::OpenCl => {
                ["barrier(CLK_LOCAL_MEM_FENCE);", "barrier(CLK_GLOBAL_MEM_FENCE);", "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"]
                    [self.pick(&[3, 1, 1])]
            }
        };
        self.emit(s);
    }

    pub(super) fn decl(&mut self) {
        self.feature("declaration");
        let t = TYS[self.below(3)];
        let name = self.fresh("v");
        match self.pick(&[5, 1, 1]) {
            0 => {
                let e = self.expr(t, self.sizes.max_expr_depth);
                self.emit(&format!("{} {name} = {e};", self.ty_name(t)));
                self.declare(&name, t, true);
            }
            1 => {
                self.feature("const local");
                let e = self.expr(t, self.sizes.max_expr_depth);
                self.emit(&format!("const {} {name} = {e};", self.ty_name(t)));
                self.declare(&name, t, false);
            }
            _ => {
                // Read before any write on some paths: an undefined value.
                self.feature("uninitialized local");
                self.emit(&format!("{} {name};", self.ty_name(t)));
                self.declare(&name, t, true);
            }
        }
    }

    pub(super) fn multi_decl(&mut self) {
        self.feature("several declarators");
        let t = TYS[self.below(3)];
        let mut parts = vec![];
        for _ in 0..2 + self.below(2) {
            let e = self.expr(t, self.sizes.max_expr_depth - 1);
            let name = self.fresh("v");
            parts.push(format!("{name} = {e}"));
            // Each declarator is in scope in the next one's initializer.
            self.declare(&name, t, true);
        }
        self.emit(&format!("{} {};", self.ty_name(t), parts.join(", ")));
    }

    pub(super) fn private_array(&mut self) {
        self.feature("private array");
        let t = TYS[self.below(3)];
        let name = self.fresh("p");
        self.emit(&format!("{} {name}[4];", self.ty_name(t)));
        self.arrays.push(Array { name, elem: t, dims: vec![4], space: Space::Private, writable: true });
    }

    pub(super) fn if_stmt(&mut self) {
        self.feature("if");
        let c = self.cond(self.sizes.max_expr_depth);
        self.emit(&format!("if ({c}) "));
        self.body();
        match self.pick(&[2, 2, 1]) {
            0 => {}
            1 => {
                self.feature("else");
                self.sep();
                self.emit("else ");
                self.body();
            }
            _ => {
                self.feature("else if");
                self.sep();
                let c = self.cond(self.sizes.max_expr_depth);
                self.emit(&format!("else if ({c}) "));
                self.body();
            }
        }
    }

    pub(super) fn loop_body(&mut self) {
        self.loop_depth += 1;
        self.body();
        self.loop_depth -= 1;
    }

    pub(super) fn for_stmt(&mut self) {
        self.feature("for");
        let i = self.fresh("i");
        let k = 1 + self.below(self.sizes.max_trip as usize) as u32;
        let (it, ut) = (self.ty_name(Ty::Int), self.ty_name(Ty::Uint));
        let (ty, head) = match self.pick(&[4, 1, 1, 1, 1, 1]) {
            0 => (Ty::Int, format!("for (int {i} = 0; {i} < {k}; {i}++)")),
            1 => (Ty::Int, format!("for ({it} {i} = {k}; {i} > 0; --{i})")),
            5 => {
                self.feature("loop counting down in its condition");
                (Ty::Uint, format!("for ({ut} {i} = {k}; {i}-- > 0;)"))
            }
            2 => (Ty::Uint, format!("for ({ut} {i} = 0; {i} < {}; {i} += 2)", 2 * k)),
            3 => {
                self.feature("loop bounded by the launch");
                let dim = self.local_size();
                (Ty::Uint, format!("for ({ut} {i} = 0; {i} < {dim}; {i}++)"))
            }
            _ => {
                self.feature("strided loop");
                let (tid, dim) = (self.local_id(), self.local_size());
                (Ty::Uint, format!("for ({ut} {i} = {tid}; {i} < {}; {i} += {dim})", 4 * k))
            }
        };
        self.emit(&format!("{head} "));
        let mark = self.push_scope();
        self.declare(&i, ty, false);
        self.loop_body();
        self.pop_scope(mark);
    }

    /// `int c = 0; while (c < K) { c++; ... }`: the counter is incremented first, so a
    /// `continue` cannot skip it.
    pub(super) fn while_stmt(&mut self) {
        self.feature("while");
        let c = self.fresh("c");
        let k = 1 + self.below(self.sizes.max_trip as usize);
        self.emit(&format!("int {c} = 0;"));
        self.declare(&c, Ty::Int, false);
        self.sep();
        let variant = self.pick(&[2, 1, 1]);
        match variant {
            0 => self.emit(&format!("while ({c} < {k}) {{")),
            1 => self.emit(&format!("while ({c}++ < {k}) {{")),
            _ => {
                self.feature("while (1)");
                self.emit(&format!("while (1) {{ if ({c} >= {k}) break;"));
            }
        }
        // The counter goes up first in the body unless the condition does it.
        let bump = variant != 1;
        self.loop_depth += 1;
        self.depth += 1;
        self.indent += 1;
        let mark = self.push_scope();
        if bump {
            self.sep();
            self.emit(&format!("{c}++;"));
        }
        self.stmt_list();
        self.pop_scope(mark);
        self.indent -= 1;
        self.depth -= 1;
        self.loop_depth -= 1;
        self.sep();
        self.emit("}");
    }

    pub(super) fn do_while_stmt(&mut self) {
        self.feature("do-while");
        let c = self.fresh("c");
        let k = 1 + self.below(self.sizes.max_trip as usize);
        self.emit(&format!("int {c} = 0;"));
        self.declare(&c, Ty::Int, false);
        self.sep();
        self.emit("do {");
        self.loop_depth += 1;
        self.depth += 1;
        self.indent += 1;
        let mark = self.push_scope();
        self.sep();
        self.emit(&format!("{c}++;"));
        self.stmt_list();
        self.pop_scope(mark);
        self.indent -= 1;
        self.depth -= 1;
        self.loop_depth -= 1;
        self.sep();
        self.emit(&format!("}} while ({c} < {k});"));
    }

    pub(super) fn jump(&mut self) {
        if self.loop_depth == 0 {
            return self.barrier();
        }
        let kw = if self.one_in(2) { "continue" } else { "break" };
        self.feature(if kw == "break" { "break" } else { "continue" });
        if self.one_in(2) {
            let c = self.cond(self.sizes.max_expr_depth);
            self.emit(&format!("if ({c}) {kw};"));
        } else {
            self.emit(&format!("{kw};"));
        }
    }

    pub(super) fn return_stmt(&mut self) {
        self.feature("early return");
        let r = match self.ret {
            Ret::Kernel | Ret::Void => "return;".to_string(),
            Ret::Value(t) => format!("return {};", self.expr(t, self.sizes.max_expr_depth)),
        };
        if self.one_in(3) {
            self.emit(&r);
        } else {
            let c = self.cond(self.sizes.max_expr_depth);
            self.emit(&format!("if ({c}) {r}"));
        }
    }

    pub(super) fn compound_rhs(&mut self, t: Ty) -> (&'static str, String) {
        let d = self.sizes.max_expr_depth - 1;
        match t {
            Ty::Float => {
                let op = ["+", "-", "*", "/"][self.below(4)];
                (op, self.expr(t, d))
            }
            _ => {
                let op = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"][self.below(10)];
                let e = self.expr(t, d);
                let e = match op {
                    "/" | "%" => format!("({} | 1)", paren(&e)),
                    "<<" | ">>" => format!("({} & 7)", paren(&e)),
                    _ => e,
                };
                (op, e)
            }
        }
    }

    pub(super) fn array_write(&mut self) {
        self.feature("array write");
        let writable: Vec<Array> = self.arrays.iter().filter(|a| a.writable).cloned().collect();
        let a = writable[self.below(writable.len())].clone();
        let lhs = self.element(&a);
        match self.pick(&[4, 2, 1, 1]) {
            0 => {
                let e = self.expr(a.elem, self.sizes.max_expr_depth);
                self.emit(&format!("{lhs} = {e};"));
            }
            1 => {
                // The read-then-write pattern (`A[t] = A[t + 1];`) that the front end splits.
                self.feature("read-then-write of one array");
                let rhs = self.element(&a);
                self.emit(&format!("{lhs} = {rhs};"));
            }
            2 => {
                self.feature("compound assignment");
                let (op, e) = self.compound_rhs(a.elem);
                self.emit(&format!("{lhs} {op}= {e};"));
            }
            _ => {
                self.feature("increment/decrement");
                self.emit(&format!("{lhs}++;"));
            }
        }
    }

    /// Helpers whose pointer parameters can all be given an argument here, returning
    /// `ret` (`None`: any, including void).
    pub(super) fn callable(&self, ret: Option<Ty>) -> Vec<Helper> {
        self.helpers
            .iter()
            .filter(|h| ret.is_none() || h.ret.is_some())
            .filter(|h| {
                h.params.iter().all(|(_, p)| match p {
                    Param::Scalar(_) => true,
                    Param::Pointer(e, s, w) => self.arrays.iter().any(|a| self.passes(a, *e, *s, *w)),
                })
            })
            .cloned()
            .collect()
    }

    /// Whether array `a` can be passed for a pointer parameter.
    pub(super) fn passes(&self, a: &Array, elem: Ty, space: Space, writable: bool) -> bool {
        a.elem == elem
            && a.space != Space::Private
            && (a.writable || !writable)
            && match self.lang {
                // Generic pointers; constant memory is never passed.
                Lang::Cuda => a.space != Space::Const && space != Space::Const,
                Lang::OpenCl => a.space == space,
            }
    }

    pub(super) fn call(&mut self, h: &Helper) -> String {
        self.feature("helper call");
        let mut args = vec![];
        for (_, p) in &h.params {
            match p {
                Param::Scalar(t) => args.push(self.expr(*t, self.sizes.max_expr_depth - 1)),
                Param::Pointer(e, s, w) => {
                    let fits: Vec<Array> = self.arrays.iter().filter(|a| self.passes(a, *e, *s, *w)).cloned().collect();
                    let a = fits[self.below(fits.len())].clone();
                    let arg = match (a.dims.len(), self.pick(&[4, 1, 1])) {
                        (2, _) => {
                            self.feature("row of a 2-D array as a pointer");
                            format!("{}[{}]", a.name, self.below(a.dims[0] as usize))
                        }
                        (_, 0) => a.name.clone(),
                        (_, 1) => {
                            self.feature("pointer arithmetic");
                            format!("{} + {}", a.name, self.below(3))
                        }
                        _ => {
                            self.feature("address of an element");
                            format!("&{}[{}]", a.name, self.below(3))
                        }
                    };
                    args.push(arg);
                }
            }
        }
        format!("{}({})", h.name, args.join(", "))
    }

    pub(super) fn call_stmt(&mut self) {
        let hs = self.callable(None);
        let h = hs[self.below(hs.len())].clone();
        let c = self.call(&h);
        self.emit(&format!("{c};"));
    }
}
