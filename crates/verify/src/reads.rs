//! Reads abstracted as uninterpreted functions: a cheap refutation of a call that ran out of
//! its budget (issue 25).
//!
//! Every array read `select(A, i)` of a formula is replaced by `f_A(i)`, one fresh
//! uninterpreted function per array term `A`: the values read stay functions of their
//! indices (two reads of `A` at equal indices are equal, also across the two threads), but
//! what was stored where is forgotten. The result is weaker than the formula (any model of
//! the formula is one of the result, with `f_A` read off `A`'s value), so that **an
//! unsatisfiable result proves the formula unsatisfiable**; a satisfiable one says nothing,
//! and the caller goes on as before. Z3 solves such a formula by Ackermann's reduction
//! instead of the theory of arrays.
//!
//! Where it pays: a Houdini check whose truth does not depend on what memory holds, over
//! values read from an array that is modelled by its contents (the equality abstraction:
//! `abstraction.rs`). The CUDA SDK's stereoDisparity keeps the least cost of a loop, a sum of
//! 17 reads of a shared array, and its candidate "`bestCost` ≤ its initial value" ran past
//! its 5 s budget (11.5 s of wall time) on the whole formula and was dropped undecided; with
//! its reads abstracted Z3 refutes it in 0.15 s. This is the same idea as GPUVerify's
//! adversarial abstraction (a read returns an arbitrary value), applied per solver call
//! rather than per array.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use z3::ast::{Ast, Bool, Dynamic};
use z3::{AstKind, DeclKind, FuncDecl, Sort};

/// `formulas` with every array read replaced by an application of an uninterpreted function
/// of its array term (see the module's doc), or `None` when they read no array (the result
/// would be the same formulas). Reads nested in the index of another read, and reads under
/// a quantifier, are left as they are (the result is still weaker than `formulas`).
pub(crate) fn reads_as_functions<'ctx>(formulas: &[&Bool<'ctx>]) -> Option<Vec<Bool<'ctx>>> {
    let ctx = formulas.first()?.get_ctx();
    let mut functions: HashMap<Dynamic<'ctx>, FuncDecl<'ctx>> = HashMap::new();
    let mut pairs: Vec<(Dynamic<'ctx>, Dynamic<'ctx>)> = vec![];
    let mut seen: HashSet<Dynamic<'ctx>> = HashSet::new();
    let mut stack: Vec<Dynamic<'ctx>> = formulas.iter().map(|f| Dynamic::from_ast(*f)).collect();
    while let Some(t) = stack.pop() {
        if t.kind() != AstKind::App || !seen.insert(t.clone()) {
            continue;
        }
        let decl = t.decl();
        let children = t.children();
        if decl.kind() == DeclKind::SELECT && children.len() >= 2 {
            let array = children[0].clone();
            let f = functions.entry(array).or_insert_with(|| {
                let domain: Vec<Sort<'ctx>> = children[1..].iter().map(|c| c.get_sort()).collect();
                let domain: Vec<&Sort<'ctx>> = domain.iter().collect();
                let n = FRESH.fetch_add(1, Ordering::Relaxed);
                FuncDecl::new(ctx, format!("read!{n}"), &domain, &t.get_sort())
            });
            let args: Vec<&dyn Ast<'ctx>> = children[1..].iter().map(|c| c as &dyn Ast<'ctx>).collect();
            pairs.push((t.clone(), f.apply(&args)));
            continue;
        }
        stack.extend(children);
    }
    if pairs.is_empty() {
        return None;
    }
    let pairs: Vec<(&Dynamic<'ctx>, &Dynamic<'ctx>)> = pairs.iter().map(|(a, b)| (a, b)).collect();
    Some(formulas.iter().map(|f| f.substitute(&pairs)).collect())
}

/// Numbers the functions made (their names must differ: two arrays sharing one function
/// would make the result stronger than the formula, not weaker).
static FRESH: AtomicUsize = AtomicUsize::new(0);

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Array, BV};
    use z3::{Config, Context, SatResult, Solver};

    fn solve(formulas: &[Bool<'_>]) -> SatResult {
        let s = Solver::new(formulas[0].get_ctx());
        for f in formulas {
            s.assert(f);
        }
        s.check()
    }

    /// The least of a value read and a bound stays under the bound whatever was stored: the
    /// abstracted formula is refuted too. A fact that needs what was stored (a read after a
    /// write of 5 at the same index is 5) is lost: the abstracted formula is satisfiable,
    /// which says nothing.
    #[test]
    fn refutes_what_does_not_depend_on_memory_and_only_that() {
        let ctx = Context::new(&Config::new());
        let bv = Sort::bitvector(&ctx, 32);
        let mem = Array::new_const(&ctx, "mem", &bv, &bv);
        let (i, best) = (BV::new_const(&ctx, "i", 32), BV::new_const(&ctx, "best", 32));
        let stored = mem.store(&BV::from_u64(&ctx, 3, 32), &BV::from_u64(&ctx, 5, 32));
        let read = stored.select(&i).as_bv().unwrap();
        let bound = BV::from_u64(&ctx, 9_999_999, 32);
        let least = read.bvult(&best).ite(&read, &best);
        let min_stays = [best.bvule(&bound), least.bvule(&bound).not()];
        let abstracted = reads_as_functions(&min_stays.iter().collect::<Vec<_>>()).expect("reads an array");
        assert!(abstracted.iter().all(|f| !f.to_string().contains("select")), "{abstracted:?}");
        assert_eq!(solve(&min_stays), SatResult::Unsat);
        assert_eq!(solve(&abstracted), SatResult::Unsat);

        let read_back = [i._eq(&BV::from_u64(&ctx, 3, 32)), read._eq(&BV::from_u64(&ctx, 5, 32)).not()];
        assert_eq!(solve(&read_back), SatResult::Unsat);
        let abstracted = reads_as_functions(&read_back.iter().collect::<Vec<_>>()).expect("reads an array");
        assert_eq!(solve(&abstracted), SatResult::Sat);

        // Two reads of one array at equal indices still read one value.
        let j = BV::new_const(&ctx, "j", 32);
        let same = [i._eq(&j), stored.select(&i)._eq(&stored.select(&j)).not()];
        let abstracted = reads_as_functions(&same.iter().collect::<Vec<_>>()).expect("reads an array");
        assert_eq!(solve(&abstracted), SatResult::Unsat);

        assert!(reads_as_functions(&[&i.bvule(&j)]).is_none());
    }

    /// Two arrays get two functions: equal indices into different arrays may read different
    /// values (one function for both would refute this satisfiable formula).
    #[test]
    fn arrays_get_functions_of_their_own() {
        let ctx = Context::new(&Config::new());
        let bv = Sort::bitvector(&ctx, 32);
        let (a, b) = (Array::new_const(&ctx, "a", &bv, &bv), Array::new_const(&ctx, "b", &bv, &bv));
        let i = BV::new_const(&ctx, "i", 32);
        let differ = [a.select(&i)._eq(&b.select(&i)).not()];
        let abstracted = reads_as_functions(&differ.iter().collect::<Vec<_>>()).expect("reads an array");
        assert_eq!(solve(&abstracted), SatResult::Sat);
    }
}
