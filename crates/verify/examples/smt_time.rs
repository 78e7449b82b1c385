//! Times Z3 (the linked library) on a `SYNCFIX_DUMP_SMT` file: `smt_time FILE [lit|-lit]...`
//! assumes `properties` and the given literals (`NOASSUME=1`: plain `check`, no assumptions,
//! as a query's solver is called). For tuning the encoding (not a test).
use std::time::Instant;
use z3::ast::{Ast, Bool};
use z3::{Config, Context, Params, Solver};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ctx = Context::new(&Config::new());
    let solver = match std::env::var("LOGIC") {
        Ok(l) => Solver::new_for_logic(&ctx, l.as_str()).expect("a logic"),
        Err(_) => Solver::new(&ctx),
    };
    solver.from_string(std::fs::read_to_string(&args[1]).expect("the file"));
    // SIMPLIFY=1: the assertions simplified by Z3's rewriter first (timed apart).
    let solver = if std::env::var_os("SIMPLIFY").is_some() {
        let t = Instant::now();
        let simple: Vec<Bool> = solver.get_assertions().iter().map(|a| a.simplify()).collect();
        let s = Solver::new(&ctx);
        for a in &simple {
            s.assert(a);
        }
        eprintln!("simplified in {:.2}s", t.elapsed().as_secs_f64());
        s
    } else {
        solver
    };
    let mut p = Params::new(&ctx);
    p.set_u32("timeout", 60_000);
    for kv in std::env::var("PARAMS").unwrap_or_default().split_whitespace() {
        let (k, v) = kv.split_once('=').expect("k=v");
        match v {
            "true" | "false" => p.set_bool(k, v == "true"),
            _ => p.set_u32(k, v.parse().expect("a number")),
        }
    }
    solver.set_params(&p);
    let mut a = vec![Bool::new_const(&ctx, "properties")];
    for x in &args[2..] {
        a.push(match x.strip_prefix('-') {
            Some(n) => Bool::new_const(&ctx, n).not(),
            None => Bool::new_const(&ctx, x.as_str()),
        });
    }
    let t = Instant::now();
    let r = if std::env::var_os("NOASSUME").is_some() { solver.check() } else { solver.check_assumptions(&a) };
    let why = if r == z3::SatResult::Unknown { solver.get_reason_unknown().unwrap_or_default() } else { String::new() };
    println!("{r:?} {:.2}s {why}", t.elapsed().as_secs_f64());
}
