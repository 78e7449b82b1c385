//! The well-formedness check (`syncfix_kir::check`, `check_spans`): a well-formed kernel passes,
//! and each broken rule is reported with the kernel, block and instruction it is in.

use syncfix_kir::*;

/// A loop with a phi, a branch, memory accesses and a barrier, every access with a location.
const LOOP: &str = "\
kernel k (Cuda) block_dim=[4, 1, 1] grid_dim=[1, 1, 1]
  param 0 A: ptr obj0
  param 1 n: i32
  obj0 A: global elem 4
block0:
  v0:i32 = param 1
  v1:i32 = local_id.x                           ; k.cu:2:3
  br block1                                     ; k.cu:3:3
block1:
  v2:i32 = phi [block0: 0:i32], [block2: v5]    ; k.cu:3:3
  v3:i1 = cmp.slt v2, v0                        ; k.cu:3:3
  br v3, block2, block3                         ; k.cu:3:3
block2:
  v4:i64 = zext v2                              ; k.cu:4:5
  store.4 obj0[v4], v1                          ; k.cu:4:5
  barrier.block fences(local,global) existing(fixed) ; k.cu:5:5
  v5:i32 = add v2, 1:i32                        ; k.cu:3:3
  br block1                                     ; k.cu:3:3
block3:
  ret                                           ; k.cu:7:1
";

fn kernel(text: &str) -> Kernel {
    parse(text).unwrap_or_else(|e| panic!("{e:?}"))
}

/// The first instruction of `k` whose kind `pred` accepts.
fn find(k: &Kernel, pred: impl Fn(&InstKind) -> bool) -> InstId {
    k.insts.iter().find(|(_, i)| pred(&i.kind)).map(|(id, _)| id).expect("an instruction of that kind")
}

fn messages(k: &Kernel) -> Vec<String> {
    check(k).iter().chain(check_spans(k).iter()).map(|e| e.to_string()).collect()
}

#[test]
fn a_well_formed_kernel_passes() {
    assert_eq!(messages(&kernel(LOOP)), Vec::<String>::new());
}

#[test]
fn a_use_before_its_definition_in_the_same_block() {
    let k = kernel(&LOOP.replace("v4:i64 = zext v2 ", "v4:i64 = zext v5 "));
    assert_eq!(messages(&k), ["kernel `k`, block2, v4: uses v5, which is not defined before it on every path"]);
}

#[test]
fn a_use_on_a_path_that_misses_the_definition() {
    // v4 is defined in the loop body only; the exit block does not see it.
    let k = kernel(&LOOP.replace("  ret  ", "  store.4 obj0[v4], 0:i32                       ; k.cu:6:1\n  ret  "));
    let store = k.blocks[BlockId::new(3)].insts[0];
    assert_eq!(messages(&k), [format!("kernel `k`, block3, {store}: uses v4, which is not defined before it on every path")]);
}

#[test]
fn a_phi_value_must_dominate_its_predecessor() {
    let k = kernel(&LOOP.replace("[block0: 0:i32]", "[block0: v5]"));
    assert_eq!(messages(&k), ["kernel `k`, block1, v2: uses v5 from block0, where v5 is not defined on every path"]);
}

#[test]
fn a_phi_from_a_block_that_is_no_predecessor() {
    let k = kernel(&LOOP.replace("[block0: 0:i32]", "[block3: 0:i32]"));
    assert_eq!(messages(&k), ["kernel `k`, block1, v2: has an incoming value from block3, which is not a predecessor of block1"]);
}

#[test]
fn a_phi_after_other_instructions() {
    let k = kernel(&LOOP.replace(
        "  v4:i64 = zext v2                              ; k.cu:4:5\n",
        "  v4:i64 = zext v2                              ; k.cu:4:5\n  v9:i32 = phi [block1: v2]                     ; k.cu:4:5\n",
    ));
    assert_eq!(messages(&k), ["kernel `k`, block2, v9: is a phi after other instructions of its block"]);
}

#[test]
fn structural_errors() {
    let mut k = kernel(LOOP);
    let b3 = BlockId::new(3);
    k.blocks[b3].term = Terminator::Br(BlockId::new(9));
    assert_eq!(messages(&k), ["kernel `k`, block3, terminator: branches to block9, which is not a block"]);

    let mut k = kernel(LOOP);
    let v1 = InstId::new(1);
    k.blocks[b3].insts.push(v1);
    assert_eq!(messages(&k), ["kernel `k`, block3, v1: is listed in block0 as well"]);

    // A value made with `make_inst` and never placed in a block.
    let mut k = kernel(LOOP);
    let loose = k.make_inst(b3, InstKind::Havoc, 32, Span::default());
    let store = find(&k, |i| matches!(i, InstKind::Store { .. }));
    if let InstKind::Store { value, .. } = &mut k.insts[store].kind {
        *value = Operand::Value(loose);
    }
    assert_eq!(messages(&k), [format!("kernel `k`, block2, {store}: uses {loose}, which stands in no block")]);
}

#[test]
fn width_errors() {
    let mut k = kernel(LOOP);
    let add = InstId::new(5);
    assert!(matches!(k.insts[add].kind, InstKind::Bin { .. }));
    k.insts[add].kind = InstKind::Bin { op: BinOp::Add, lhs: Operand::Value(InstId::new(2)), rhs: Operand::konst(64, 1) };
    assert_eq!(messages(&k), ["kernel `k`, block2, v5: has 1:i64, an i64, as an operand of the result's width (an i32)"]);

    let mut k = kernel(LOOP);
    k.insts[InstId::new(3)].width = 32;
    let m = messages(&k);
    assert!(m.contains(&"kernel `k`, block1, v3: is an i32, but its kind gives an i1".to_string()), "{m:?}");
    assert!(m.contains(&"kernel `k`, block1, terminator: branches on v3, an i32, not an i1".to_string()), "{m:?}");

    let mut k = kernel(LOOP);
    let store = find(&k, |i| matches!(i, InstKind::Store { .. }));
    k.insts[store].width = 32;
    assert_eq!(messages(&k), [format!("kernel `k`, block2, {store}: produces no value but has width 32")]);
}

#[test]
fn spans_of_shared_accesses_barriers_and_terminators() {
    let mut k = kernel(LOOP);
    let store = find(&k, |i| matches!(i, InstKind::Store { .. }));
    let barrier = find(&k, |i| matches!(i, InstKind::Barrier(_)));
    k.insts[store].span = Span::default();
    k.insts[barrier].span = Span::default();
    k.blocks[BlockId::new(3)].term_span = Span::default();
    // Other instructions and unconditional branches may go without.
    k.insts[InstId::new(4)].span = Span::default();
    k.blocks[BlockId::new(2)].term_span = Span::default();
    assert!(check(&k).is_empty());
    assert_eq!(
        messages(&k),
        [
            format!("kernel `k`, block2, {store}: has no source location"),
            format!("kernel `k`, block2, {barrier}: has no source location"),
            "kernel `k`, block3, terminator: has no source location".to_string()
        ]
    );
}
