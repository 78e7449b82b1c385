//! The text parser against the printer: hand-written kernels that use every construct of the
//! text form print back unchanged, malformed or inconsistent text gives an error naming the
//! line, the column and what was expected, and generated kernels round-trip
//! (`print(parse(print(k))) == print(k)`).

use proptest::prelude::*;
use syncfix_kir::*;

/// A kernel with every instruction kind, terminator and declaration of the text form.
const EVERY_CONSTRUCT: &str = "\
kernel k<int, 4> (OpenCl) block_dim=[8, 2, 1] grid_dim=[4, 1, 1] global_offset=[16, 0, 0]
  param 0 A: ptr obj0
  param 1 n: i32
  param 2 s: ptr obj3
  obj0 A: global elem 4
  obj1 tile[2][8]: shared elem 4
  obj2 table[4]: constant elem 2 init {0: 7:i16, 6: -1:i16}
  obj3 s: private elem 8 uniform
  obj4 q.p: global elem 1
  assumption \"`f` is assumed not to access memory through `p` (\\\"no body\\\"; a `;` is no comment here)\"
block0:
  v0:i32 = param 1
  v1:i32 = local_id.x                           ; k.cl:3:7
  v2:i32 = group_id.z                           ; prelude.h <- k.cl:4:9
  v3:i32 = havoc
  v4:i32 = add v1, -1:i32
  v5:i1 = cmp.sle v4, v0
  v6:i64 = zext v1
  v7:i8 = trunc v1
  v8:i64 = sext v7
  v9:i32 = select v5, v1, 340282:i32
  v10:i32 = float.fadd.32(v9, v3)
  v11:i1 = float.fcmp.olt.32(v10, v3)
  v12:i64 = float.__syncfix_async_rotation()
  v13:i32 = load.4 obj0[v6]
  store.4 obj1[v6], v13
  v14:i32 = atomic.add.4 obj0[0:i64], 1:i32
  v15:i32 = atomic.cmpxchg.4 obj0[v8], v1, v4
  v16:i32 = atomic.inc.4 obj0[v8]
  barrier.block fences(local,global) existing(stmt3)
  barrier.block fences(local) if var1 candidate
  barrier.grid fences() existing(fixed)
  barrier.block fences(v0) if var0 existing(stmt4)
  anchor stmt0
  anchor stmt2 split
  assert.assertion v5
  assert.loopinvariant.global v5
  assert.nullpointer false
  assume v11
  candidate true
  v17:i1 = enabled
  v18:i32 = other v1
  v19:i32 = old v4
  v20:i1 = log.write.has obj1
  v21:i64 = log.read.offsetbytes obj0
  v22:i16 = specload.2 obj2[v21]
  external.write obj4
  external.atomic obj0
  v23:i1 = atomic_taken obj0[v6], v1
  snapshot obj3 <- obj0
  br v5, block1, block2                         ; k.cl:9:1
block1:
  v24:i128 = zext v1
  switch v1, default block3, 0: block2, 340282366920938463463374607431768211455: block3
block2:
  v25:i32 = phi [block0: v1], [block1: 5:i32]
  v26:i32 = phi 
  ret
block3:
  unreachable
block4:
  v27:i32 = udiv v25, 2:i32
  br block4
";

#[test]
fn every_construct_prints_back_unchanged() {
    let k = parse(EVERY_CONSTRUCT).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(k.to_string(), EVERY_CONSTRUCT);
    // What the text gives beyond the printed form: parameters' objects, files, ids.
    assert_eq!(k.name, "k<int, 4>");
    assert_eq!(k.launch.global_offset, [16, 0, 0]);
    assert_eq!(k.objects[ObjectId::new(0)].param, Some(0));
    assert_eq!(k.objects[ObjectId::new(3)].param, Some(2));
    assert_eq!(k.objects[ObjectId::new(1)].param, None);
    assert_eq!(k.objects[ObjectId::new(2)].init, Some(Init { cells: vec![(0, 2, 7), (6, 2, 0xffff)] }));
    assert_eq!(k.assumptions, vec!["`f` is assumed not to access memory through `p` (\"no body\"; a `;` is no comment here)".to_string()]);
    assert_eq!(k.main_file().path, "k.cl");
    assert_eq!(k.files[FileId::new(1)].path, "prelude.h");
    let v2 = &k.insts[InstId::new(2)];
    assert_eq!(v2.span.frames, vec![Loc { file: FileId::new(1), line: 0, col: 0 }, Loc { file: FileId::MAIN, line: 4, col: 9 }]);
    assert_eq!(k.blocks[BlockId::new(0)].term_span.frames, vec![Loc { file: FileId::MAIN, line: 9, col: 1 }]);
    // 28 values (v0..v27) and 15 instructions without one: ids 28..43, the store first.
    assert_eq!(k.insts.len(), 43);
    let store = k.blocks[BlockId::new(0)].insts[14];
    assert_eq!(store, InstId::new(28));
    assert!(matches!(k.insts[store].kind, InstKind::Store { width: 4, .. }));
    assert_eq!(k.insts[InstId::new(27)].block, BlockId::new(4));
    assert_eq!(k.entry, BlockId::new(0));
}

#[test]
fn comments_blank_lines_and_several_kernels() {
    let text = "; test verify\n\nkernel a (Cuda) block_dim=[1, 1, 1] grid_dim=[1, 1, 1] ; a comment\n; between\nblock0:\n  ret\nkernel b (Cuda) block_dim=[2, 1, 1] grid_dim=[1, 1, 1]\nblock0:\n  ret\n";
    let ks = parse_all(text).unwrap();
    assert_eq!(ks.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    let e = parse(text).unwrap_err();
    assert_eq!(e.to_string(), "line 7, column 1: expected one kernel, found 2 (the second starts here)");
}

#[test]
fn instructions_without_a_value_fill_the_free_ids() {
    // v1 and v3 are free: the store and the barrier take them, in the order printed.
    let k = parse("kernel k (Cuda) block_dim=[2, 1, 1] grid_dim=[1, 1, 1]\n  obj0 A: shared elem 4\nblock0:\n  v0:i32 = local_id.x\n  store.4 obj0[0:i64], v0\n  v2:i32 = add v0, v0\n  barrier.block fences(local) existing(fixed)\n  v4:i32 = add v2, v2\n  ret\n").unwrap();
    let ids: Vec<usize> = k.blocks[k.entry].insts.iter().map(|i| i.index()).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4]);
    // A gap that no instruction fills is an anchor in no block.
    let k = parse("kernel k (Cuda) block_dim=[2, 1, 1] grid_dim=[1, 1, 1]\nblock0:\n  v2:i32 = local_id.x\n  ret\n").unwrap();
    assert_eq!(k.insts.len(), 3);
    assert!(matches!(k.insts[InstId::new(0)].kind, InstKind::Anchor(_)));
    assert_eq!(k.blocks[k.entry].insts, [InstId::new(2)]);
}

/// The error that `text` gives, as printed.
fn error(text: &str) -> String {
    match parse(text) {
        Ok(k) => panic!("parsed:\n{k}"),
        Err(e) => e.to_string(),
    }
}

const HEADER: &str = "kernel k (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]\n";

/// The error of a kernel with `HEADER`, one object `obj0 A: global elem 4` and the given
/// blocks (so the blocks' first line is line 3).
fn error_in_blocks(blocks: &str) -> String {
    error(&format!("{HEADER}  obj0 A: global elem 4\n{blocks}"))
}

#[test]
fn errors_name_the_line_the_column_and_what_was_expected() {
    let cases: &[(&str, &str)] = &[
        ("", "line 1, column 1: expected a `kernel` line"),
        ("block0:\n  ret\n", "line 1, column 1: expected a `kernel` line, found `block0`"),
        ("kernel k (Cuda) grid_dim=[1, 1, 1]\n", "line 1, column 35: expected ` block_dim=[X, Y, Z]`"),
        ("kernel k (Metal) block_dim=[1, 1, 1] grid_dim=[1, 1, 1]\n", "line 1, column 11: expected `Cuda` or `OpenCl`, found `Metal`"),
        ("kernel k (Cuda) block_dim=[1, 1] grid_dim=[1, 1, 1]\n", "line 1, column 32: expected `,`, found `]`"),
        ("kernel k (Cuda) block_dim=[1, 1, 1] grid_dim=[1, 1, 1] x\n", "line 1, column 56: expected end of line, found `x`"),
        (&format!("{HEADER}  param 1 n: i32\n"), "line 2, column 9: expected parameter 0 (parameters are numbered in order from 0)"),
        (&format!("{HEADER}  param 0 n: f32\nblock0:\n  ret\n"), "line 2, column 14: expected `iW` or `ptr objN`, found `f32`"),
        (&format!("{HEADER}  obj0 A: heap elem 4\n"), "line 2, column 8: expected an object name and `: SPACE elem SIZE`, found `A`"),
        (&format!("{HEADER}  obj1 A: global elem 4\n"), "line 2, column 3: expected obj0 (objects are numbered in order from 0)"),
        (
            &format!("{HEADER}  obj0 A: constant elem 4 init {{0: 1:i3}}\n"),
            "line 2, column 36: expected a constant of whole bytes (`7:i32`)",
        ),
        (&format!("{HEADER}  assumption unquoted\n"), "line 2, column 14: expected a quoted string, found `unquoted`"),
        (&format!("{HEADER}  param 0 A: ptr obj2\nblock0:\n  ret\n"), "line 2, column 18: obj2 is not declared"),
        (HEADER, "line 1, column 1: kernel k has no blocks"),
    ];
    let mut wrong = vec![];
    for (text, want) in cases {
        let got = error(text);
        if &got != want {
            wrong.push(format!("for:\n{text}\n  want: {want}\n  got:  {got}"));
        }
    }
    let cases: &[(&str, &str)] = &[
        ("block0:\n  v0:i32 = frobnicate 1:i32\n  ret\n", "line 4, column 12: expected an instruction, found `frobnicate`"),
        ("block0:\n  v0:i32 = add 1:i32 2:i32\n  ret\n", "line 4, column 22: expected `,`, found `2`"),
        ("block0:\n  v0:i32 = add 1:i32, 300:i8\n  ret\n", "line 4, column 23: 300 does not fit in i8"),
        ("block0:\n  v0:i32 = add 1:i32, -129:i8\n  ret\n", "line 4, column 23: -129 does not fit in i8"),
        ("block0:\n  v0:i32 = add 1:i32, 1:i0\n  ret\n", "line 4, column 25: width i0 is not in i1..i128"),
        ("block0:\n  v0:i32 = add v1, 1:i32\n  ret\n", "line 4, column 16: v1 is not defined (no line `v1:iW = ...`)"),
        (
            "block0:\n  v0:i32 = add 1:i64, 1:i64\n  ret\n",
            "line 4, column 12: 1:i64 is i64, but an operand of the result's width of `v0:i32 = add 1:i64, 1:i64` must be i32",
        ),
        (
            "block0:\n  v0:i32 = cmp.eq 1:i32, 2:i32\n  ret\n",
            "line 4, column 12: `v0:i32 = cmp.eq 1:i32, 2:i32` compares operands of one width and gives an i1",
        ),
        ("block0:\n  v0:i8 = zext 1:i32\n  ret\n", "line 4, column 11: `v0:i8 = zext 1:i32` casts an i32 to an i8"),
        (
            "block0:\n  load.4 obj0[0:i64]\n  ret\n",
            "line 4, column 3: `load.4 obj0[0:i64]` produces a value: write `vN:iW = load.4 obj0[0:i64]`",
        ),
        (
            "block0:\n  v0:i32 = load.4 obj0[0:i32]\n  ret\n",
            "line 4, column 12: 0:i32 is i32, but a byte offset of `v0:i32 = load.4 obj0[0:i32]` must be i64",
        ),
        ("block0:\n  v0:i32 = load.x obj0[0:i64]\n  ret\n", "line 4, column 12: expected a width in bytes after the opcode, found `x`"),
        ("block0:\n  v0:i32 = load.4 obj1[0:i64]\n  ret\n", "line 4, column 19: obj1 is not declared"),
        ("block0:\n  v0:i32 = param 0\n  ret\n", "line 4, column 12: there is no parameter 0"),
        (
            "block0:\n  barrier.block fences(local) always\n  ret\n",
            "line 4, column 31: expected `existing(stmtN)`, `existing(fixed)` or `candidate`, found `always`",
        ),
        (
            "block0:\n  barrier.block fences(shared) candidate\n  ret\n",
            "line 4, column 24: expected `local`, `global` or an operand, found `shared`",
        ),
        ("block0:\n  assert.maybe true\n  ret\n", "line 4, column 3: unknown assertion kind `maybe`"),
        ("block0:\n  v0:i32 = local_id.w\n  ret\n", "line 4, column 12: expected `local_id.x`, `.y` or `.z`"),
        ("block0:\n  br block1\n", "line 4, column 6: block1 is not defined"),
        ("block0:\n  br 1:i32, block0, block0\n", "line 4, column 3: the condition 1:i32 of `br` is i32, not i1"),
        ("block0:\n  ret\n  ret\n", "line 5, column 3: expected a block label: block0 already ended with its terminator"),
        ("block0:\n  v0:i32 = havoc\nblock1:\n  ret\n", "line 5, column 1: expected a terminator of block0 before the next block"),
        ("block0:\n  v0:i32 = havoc\n", "line 3, column 1: block0 has no terminator"),
        ("block0:\n  ret\nblock0:\n  ret\n", "line 5, column 1: block0 is defined twice"),
        ("block0:\n  br block2\nblock2:\n  ret\n", "line 5, column 1: block1 is missing (blocks are numbered from 0 without gaps)"),
        ("block0:\n  v0:i32 = havoc\n  v0:i32 = havoc\n  ret\n", "line 5, column 3: v0 is defined twice"),
        ("block0:\n  v0:i32 = havoc  ; k.cu:1:2 <- \n  ret\n", "line 4, column 33: expected a location (`file.cu:3:14` or `file.h`)"),
        (
            "block0:\n  v0:i32 = havoc  ; k.cu:1:2 <- j.cu:3:4\n  ret\n",
            "line 4, column 33: `j.cu:...` has a line and column, but the kernel's file is `k.cu` (only it has them)",
        ),
        ("bloc0:\n  ret\n", "line 3, column 1: expected a block label (`block0:`) or an indented line, found `bloc0`"),
    ];
    for (blocks, want) in cases {
        let got = error_in_blocks(blocks);
        if &got != want {
            wrong.push(format!("for:\n{blocks}\n  want: {want}\n  got:  {got}"));
        }
    }
    assert!(wrong.is_empty(), "{} errors differ:\n{}", wrong.len(), wrong.join("\n"));
}

// ---- generated kernels ---------------------------------------------------------------

/// A recipe for one instruction: a kind chosen by `tag`, operands chosen among earlier values
/// of the right width (or constants) by the numbers.
#[derive(Clone, Debug)]
struct Recipe {
    tag: u8,
    picks: [u16; 4],
    width: u16,
    span: Option<(bool, u32, u32)>,
}

fn recipe() -> impl Strategy<Value = Recipe> {
    (
        0u8..40,
        any::<[u16; 4]>(),
        prop::sample::select(vec![1u16, 8, 16, 32, 64, 128]),
        prop::option::of((any::<bool>(), 1u32..500, 1u32..120)),
    )
        .prop_map(|(tag, picks, width, span)| Recipe { tag, picks, width, span })
}

/// Builds a kernel of `blocks` blocks from recipes: every operand is well-typed, branches go
/// to any block (so loops and unreachable blocks occur).
fn build(recipes: &[Vec<Recipe>], terms: &[(u8, u16, u16)]) -> Kernel {
    let main = SourceFile::new("gen.cu", None);
    let mut files = PrimaryMap::new();
    files.push(main);
    files.push(SourceFile::new("prelude.h", None));
    let mut objects = PrimaryMap::new();
    objects.push(MemObject {
        name: "A".into(),
        space: Space::Global,
        elem_size: 4,
        dims: vec![],
        param: Some(0),
        init: None,
        uniform: false,
    });
    objects.push(MemObject {
        name: "s".into(),
        space: Space::Shared,
        elem_size: 2,
        dims: vec![4, 8],
        param: None,
        init: None,
        uniform: false,
    });
    objects.push(MemObject {
        name: "c".into(),
        space: Space::Constant,
        elem_size: 4,
        dims: vec![3],
        param: None,
        init: Some(Init { cells: vec![(0, 4, 1), (4, 4, 0xffff_fffe)] }),
        uniform: false,
    });
    let params = vec![
        Param { name: "A".into(), kind: ParamKind::Pointer(ObjectId::new(0)) },
        Param { name: "n".into(), kind: ParamKind::Scalar { width: 32 } },
    ];
    let n = recipes.len();
    let mut k = Kernel {
        name: "gen".into(),
        language: Language::Cuda,
        launch: Launch::new([32, 1, 1], [2, 1, 1]),
        params,
        objects,
        blocks: PrimaryMap::new(),
        insts: PrimaryMap::new(),
        entry: BlockId::new(0),
        files,
        stmts: StmtTable::default(),
        assumptions: vec![],
    };
    for _ in 0..n {
        k.blocks.push(Block { insts: vec![], term: Terminator::Return, term_span: Span::default() });
    }
    let mut values: Vec<(InstId, u16)> = vec![];
    for (b, rs) in recipes.iter().enumerate() {
        let b = BlockId::new(b);
        for r in rs {
            let pick = |i: usize, width: u16| -> Operand {
                let cands: Vec<InstId> = values.iter().filter(|(_, vw)| *vw == width).map(|(v, _)| *v).collect();
                let p = r.picks[i] as usize;
                if p.is_multiple_of(3) || cands.is_empty() {
                    Operand::konst(width, (p as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (p % 128))
                } else {
                    Operand::Value(cands[p % cands.len()])
                }
            };
            let (kind, width) = instruction(r, &pick, n);
            let span = match r.span {
                None => Span::default(),
                Some((inlined, line, col)) => {
                    let mut frames = vec![];
                    if inlined {
                        frames.push(Loc { file: FileId::new(1), line: 7, col: 3 });
                    }
                    frames.push(Loc { file: FileId::MAIN, line, col });
                    Span { frames }
                }
            };
            let id = k.push_inst(b, kind, width, span);
            if width > 0 {
                values.push((id, width));
            }
        }
    }
    for (b, &(tag, x, y)) in terms.iter().enumerate().take(n) {
        let (x, y) = (BlockId::new(x as usize % n), BlockId::new(y as usize % n));
        let cond = values.iter().rev().find(|(_, w)| *w == 1).map_or(Operand::bool(true), |(v, _)| Operand::Value(*v));
        k.blocks[BlockId::new(b)].term = match tag % 5 {
            0 => Terminator::Return,
            1 => Terminator::Unreachable,
            2 => Terminator::Br(x),
            3 => Terminator::CondBr { cond, then: x, els: y },
            _ => Terminator::Switch { value: Operand::konst(16, tag as u128), default: x, cases: vec![(0, y), (u128::MAX, x)] },
        };
        if tag % 2 == 0 {
            k.blocks[BlockId::new(b)].term_span = Span { frames: vec![Loc { file: FileId::MAIN, line: b as u32 + 1, col: 1 }] };
        }
    }
    k
}

/// The instruction of recipe `r` and its width (0: no value), its operands chosen by `pick`
/// (operand number, width) and its branch targets among `n` blocks.
fn instruction(r: &Recipe, pick: &dyn Fn(usize, u16) -> Operand, n: usize) -> (InstKind, u16) {
    let w = r.width;
    let obj = ObjectId::new(r.picks[3] as usize % 3);
    let ptr = Pointer { object: obj, offset: pick(1, 64) };
    let bytes = (w / 8).max(1) as u32;
    match r.tag {
        0 => (InstKind::Param { index: 1 }, 32),
        1 => (InstKind::Builtin(Builtin::LocalId((r.picks[0] % 3) as u8)), 32),
        2 => (InstKind::Builtin(Builtin::GroupId((r.picks[0] % 3) as u8)), 32),
        3 => (InstKind::Havoc, w),
        4..=8 => {
            let ops = [
                BinOp::Add,
                BinOp::Sub,
                BinOp::Mul,
                BinOp::UDiv,
                BinOp::SDiv,
                BinOp::URem,
                BinOp::SRem,
                BinOp::Shl,
                BinOp::LShr,
                BinOp::AShr,
                BinOp::And,
                BinOp::Or,
                BinOp::Xor,
            ];
            (InstKind::Bin { op: ops[r.picks[2] as usize % ops.len()], lhs: pick(0, w), rhs: pick(1, w) }, w)
        }
        9 | 10 => {
            let preds = [
                CmpPred::Eq,
                CmpPred::Ne,
                CmpPred::Ult,
                CmpPred::Ule,
                CmpPred::Ugt,
                CmpPred::Uge,
                CmpPred::Slt,
                CmpPred::Sle,
                CmpPred::Sgt,
                CmpPred::Sge,
            ];
            (InstKind::Cmp { pred: preds[r.picks[2] as usize % preds.len()], lhs: pick(0, w), rhs: pick(1, w) }, 1)
        }
        11 => (InstKind::Cast { op: CastOp::ZExt, arg: pick(0, 8) }, w.max(8)),
        12 => (InstKind::Cast { op: CastOp::SExt, arg: pick(0, 1) }, w),
        13 => (InstKind::Cast { op: CastOp::Trunc, arg: pick(0, 128) }, w),
        14 => (InstKind::Select { cond: pick(0, 1), then: pick(1, w), els: pick(2, w) }, w),
        15 => {
            let incoming = (0..(r.picks[2] % 3)).map(|i| (BlockId::new((r.picks[i as usize] as usize) % n), pick(i as usize, w))).collect();
            (InstKind::Phi { incoming }, w)
        }
        16 => (InstKind::Float { func: format!("fma.{w}#{}", r.picks[2] % 4), args: vec![pick(0, w), pick(1, 32)] }, w),
        17 => (InstKind::Load { ptr, width: bytes }, w),
        18 => (InstKind::Store { ptr, value: pick(0, w), width: bytes }, 0),
        19 => {
            let ops = [AtomicOp::Xchg, AtomicOp::Add, AtomicOp::UMax, AtomicOp::FSub, AtomicOp::CmpXchg, AtomicOp::Other, AtomicOp::Dec];
            let args = (0..r.picks[2] % 3).map(|i| pick(i as usize, w)).collect();
            (InstKind::Atomic { op: ops[r.picks[0] as usize % ops.len()], ptr, args, width: bytes }, w)
        }
        20..=22 => {
            let fences = match r.picks[0] % 5 {
                0 => Fences::Dynamic(pick(1, 32)),
                p => Fences::Const { local: p & 1 == 1, global: p & 2 == 2 },
            };
            let guard = if r.picks[1].is_multiple_of(2) { Guard::Always } else { Guard::Var(VarId::new(r.picks[2] as usize % 50)) };
            let origin = match r.picks[3] % 3 {
                0 => BarrierOrigin::Candidate,
                1 => BarrierOrigin::Existing { stmt: None },
                _ => BarrierOrigin::Existing { stmt: Some(StmtId::new(r.picks[2] as usize % 20)) },
            };
            let scope = if r.tag == 22 { Scope::Grid } else { Scope::Block };
            (InstKind::Barrier(Barrier { scope, fences, guard, origin }), 0)
        }
        23 => (
            InstKind::Anchor(Anchor {
                stmt: StmtId::new(r.picks[0] as usize % 20),
                split: r.picks[1].is_multiple_of(2),
                end: r.picks[1].is_multiple_of(3),
                step: (r.picks[1] % 5) as u32 * 4,
            }),
            0,
        ),
        24 => {
            let kinds = [
                AssertKind::Assertion,
                AssertKind::Precondition,
                AssertKind::Postcondition,
                AssertKind::LoopInvariant,
                AssertKind::BarrierInvariant,
                AssertKind::NullPointer,
            ];
            (InstKind::Assert { cond: pick(0, 1), kind: kinds[r.picks[1] as usize % kinds.len()], global: r.picks[2].is_multiple_of(2) }, 0)
        }
        25 => (InstKind::Assume { cond: pick(0, 1) }, 0),
        26 => (InstKind::Candidate { cond: pick(0, 1) }, 0),
        27 => (InstKind::Enabled, 1),
        28 => (InstKind::Other { arg: pick(0, w) }, w),
        29 => (InstKind::Old { arg: pick(0, w) }, w),
        30 => {
            let kind = [LogKind::Read, LogKind::Write, LogKind::Atomic][r.picks[0] as usize % 3];
            let has = r.picks[1].is_multiple_of(2);
            (
                InstKind::LogQuery { object: obj, kind, query: if has { LogQuery::Has } else { LogQuery::OffsetBytes } },
                if has { 1 } else { 64 },
            )
        }
        31 => (InstKind::SpecLoad { ptr, width: bytes }, w),
        32 => (InstKind::External { object: obj, kind: [LogKind::Read, LogKind::Write, LogKind::Atomic][r.picks[0] as usize % 3] }, 0),
        33 => (InstKind::AtomicTaken { ptr, value: pick(0, 32) }, 1),
        36 => (InstKind::AsyncPending { object: obj }, 0),
        37 => (InstKind::AsyncWait { guard: Guard::Always }, 0),
        35 => (InstKind::Permission { ptr, width: bytes }, 0),
        34 => (InstKind::Snapshot { dst: obj, src: ObjectId::new(r.picks[0] as usize % 3) }, 0),
        _ => (InstKind::Bin { op: BinOp::Add, lhs: pick(0, w), rhs: pick(1, w) }, w),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_kernels_round_trip(
        recipes in prop::collection::vec(prop::collection::vec(recipe(), 0..12), 1..6),
        terms in prop::collection::vec((any::<u8>(), any::<u16>(), any::<u16>()), 6),
    ) {
        let k = build(&recipes, &terms);
        let text = k.to_string();
        let parsed = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(parsed.to_string(), text);
        prop_assert_eq!(parsed.insts.len(), k.insts.len());
        prop_assert_eq!(parsed.blocks.len(), k.blocks.len());
    }
}

#[test]
fn tile_barriers_permissions_and_symbolic_sizes_print_back_unchanged() {
    let text = "kernel k (Cuda) block_dim=[0, 1, 1] grid_dim=[0, 1, 1] global_dim=[1024, 0, 0]
  obj0 s[64]: shared elem 4
block0:
  v0:i32 = local_id.x
  v1:i32 = local_size.x
  v2:i32 = num_groups.x
  v3:i64 = zext v0
  permission.4 obj0[v3]
  barrier.tile32 fences(local,global) mask(0xffffffff) existing(fixed)
  barrier.tile16 fences(local) mask(v1) existing(fixed)
  ret
";
    let k = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(k.to_string(), text);
    assert_eq!(k.launch.global_dim, [1024, 0, 0]);
}

/// A kernel with a statement table: a loop whose body is a compound of a split statement and
/// a barrier call, the loop's body marked.
const WITH_STATEMENTS: &str = "\
kernel k (Cuda) block_dim=[64, 1, 1] grid_dim=[1, 1, 1]
  obj0 s[64]: shared elem 4
  stmt0 {\"function\":\"k\",\"kind\":\"For\",\"range\":{\"start\":10,\"end\":90},\"children\":[1],\"lvalues\":[\"i\"]}
  stmt1 {\"function\":\"k\",\"kind\":\"Compound\",\"range\":{\"start\":40,\"end\":90},\"parent\":0,\"children\":[2,3],\"sole_body\":true,\"loop_body_start\":true}
  stmt2 {\"function\":\"k\",\"kind\":\"Expr\",\"range\":{\"start\":42,\"end\":60},\"parent\":1,\"split\":{\"rhs\":{\"start\":49,\"end\":59},\"rhs_type\":\"int\",\"rmw\":null},\"lvalues\":[\"s\"]}
  stmt3 {\"function\":\"k\",\"kind\":\"Expr\",\"range\":{\"start\":61,\"end\":78},\"parent\":1,\"barrier_call\":\"Removable\"}
block0:
  anchor stmt2
  ret
";

#[test]
fn the_statement_table_prints_back_unchanged_and_is_read_as_written() {
    let k = parse(WITH_STATEMENTS).expect("parses");
    assert_eq!(k.to_string(), WITH_STATEMENTS);
    let st = &k.stmts.stmts;
    assert_eq!(st.len(), 4);
    assert_eq!(st[StmtId::new(1)].children, vec![StmtId::new(2), StmtId::new(3)]);
    assert!(st[StmtId::new(1)].loop_body_start && st[StmtId::new(1)].sole_body);
    assert_eq!(st[StmtId::new(2)].split.as_ref().map(|s| (s.rhs.start, s.rhs_type.as_str())), Some((49, "int")));
    assert_eq!(st[StmtId::new(3)].barrier_call, Some(BarrierCall::Removable));
    assert_eq!(st[StmtId::new(0)].range, TextRange { start: 10, end: 90 });
}

#[test]
fn a_statement_out_of_order_or_naming_no_statement_or_not_json_is_an_error() {
    let line = |s: &str| format!("{HEADER}{s}\nblock0:\n  ret\n");
    let e = error(&line("  stmt1 {\"function\":\"k\",\"kind\":\"Expr\",\"range\":{\"start\":0,\"end\":1}}"));
    assert_eq!(e, "line 2, column 3: expected stmt0 (statements are numbered from 0, in order)");
    let e = error(&line("  stmt0 {\"function\":\"k\",\"kind\":\"Expr\",\"range\":{\"start\":0,\"end\":1},\"parent\":5}"));
    assert_eq!(e, "line 2, column 3: stmt0 names statement 5 of 1");
    let e = error(&line("  stmt0 {\"function\":\"k\",\"kind\":\"Loop\",\"range\":{\"start\":0,\"end\":1}}"));
    assert!(e.starts_with("line 2, column 9: expected a statement as a JSON object (unknown variant `Loop`"), "{e}");
}
