//! The launch's symbols: the block and grid sizes, the two threads' ids, and the facts about
//! them that every query assumes.

use super::encoding::ThreadSyms;
use crate::term::{and, or};
use syncfix_kir::Kernel;
use z3::ast::{Ast, Bool, BV};
use z3::Context;

/// The launch's sizes (`[block, grid]`: constants, or GPUVerify's `*` as symbols the same for
/// both threads) and the two threads' local and group ids (a dimension of size 1: zero).
/// `only_intra_group`: both threads in one group.
pub(super) fn launch_symbols<'ctx>(
    ctx: &'ctx Context,
    l: syncfix_kir::Launch,
    only_intra_group: bool,
) -> ([[BV<'ctx>; 3]; 2], [ThreadSyms<'ctx>; 2]) {
    let dims = |n: &str, t: usize, size: [u32; 3]| -> [BV<'ctx>; 3] {
        std::array::from_fn(|d| {
            if size[d] == 1 {
                BV::from_u64(ctx, 0, 32)
            } else {
                BV::new_const(ctx, format!("{n}{}${}", ["x", "y", "z"][d], t + 1), 32)
            }
        })
    };
    let size = |n: &str, v: [u32; 3]| -> [BV<'ctx>; 3] {
        std::array::from_fn(|d| match v[d] {
            0 => BV::new_const(ctx, format!("{n}{}", ["x", "y", "z"][d]), 32),
            v => BV::from_u64(ctx, v as u64, 32),
        })
    };
    let sizes = [size("group_size_", l.block_dim), size("num_groups_", l.grid_dim)];
    let local = [dims("local_id_", 0, l.block_dim), dims("local_id_", 1, l.block_dim)];
    let group = if only_intra_group {
        let g = dims("group_id_", 0, l.grid_dim);
        [g.clone(), g]
    } else {
        [dims("group_id_", 0, l.grid_dim), dims("group_id_", 1, l.grid_dim)]
    };
    let [l1, l2] = local;
    let [g1, g2] = group;
    (sizes, [ThreadSyms { local: l1, group: g1 }, ThreadSyms { local: l2, group: g2 }])
}

/// The facts about the launch that every query assumes: each id below its size, symbolic
/// sizes positive and within 32 bits of threads per dimension (GPUVerify's), CUDA's limits
/// on a launch, global ids equal only for equal ids, and the two threads distinct; and the
/// condition that both threads are in one group.
pub(super) fn launch_facts<'ctx>(
    ctx: &'ctx Context,
    k: &Kernel,
    sizes: &[[BV<'ctx>; 3]; 2],
    tid: &[ThreadSyms<'ctx>; 2],
) -> (Vec<Bool<'ctx>>, Bool<'ctx>) {
    let l = k.launch;
    // Ranges and distinctness.
    let mut bg: Vec<Bool<'ctx>> = Vec::new();
    for t in tid {
        for d in 0..3 {
            if l.block_dim[d] != 1 {
                bg.push(t.local[d].bvult(&sizes[0][d]));
            }
            if l.grid_dim[d] != 1 {
                bg.push(t.group[d].bvult(&sizes[1][d]));
            }
        }
    }
    // Symbolic sizes: positive, and the grid's threads per dimension fit in 32 bits (or
    // are the fixed global size), as GPUVerify assumes.
    for d in 0..3 {
        if l.block_dim[d] == 0 || l.grid_dim[d] == 0 {
            let zero = BV::from_u64(ctx, 0, 32);
            bg.push(sizes[0][d].bvugt(&zero));
            bg.push(sizes[1][d].bvugt(&zero));
            bg.push(sizes[0][d].bvmul_no_overflow(&sizes[1][d], false));
            if l.global_dim[d] != 0 {
                bg.push(sizes[0][d].bvmul(&sizes[1][d])._eq(&BV::from_u64(ctx, l.global_dim[d] as u64, 32)));
            }
        }
    }
    // CUDA's limits on a launch (Programming Guide, "Technical Specifications per Compute
    // Capability", every capability since 2.0): at most 1024 threads per block, 1024 in x
    // and y and 64 in z; at most 2^31 - 1 blocks in x and 65535 in y and z. A launch beyond
    // them fails, so no kernel runs with such sizes. OpenCL's limits are the device's
    // (`CL_DEVICE_MAX_WORK_GROUP_SIZE`): none is assumed there.
    if k.language == syncfix_kir::Language::Cuda {
        let c = |v: u64| BV::from_u64(ctx, v, 32);
        for (d, (block, grid)) in [(1024, 0x7fff_ffff), (1024, 65535), (64, 65535)].into_iter().enumerate() {
            if l.block_dim[d] == 0 {
                bg.push(sizes[0][d].bvule(&c(block)));
            }
            if l.grid_dim[d] == 0 {
                bg.push(sizes[1][d].bvule(&c(grid)));
            }
        }
        if l.block_dim.contains(&0) {
            // Each factor is at most 1024, so the product fits in 32 bits.
            let threads = sizes[0][0].bvmul(&sizes[0][1]).bvmul(&sizes[0][2]);
            bg.push(threads.bvule(&c(1024)));
        }
    }
    // A fact about symbolic sizes that bit-vector solvers find hard (32-bit products):
    // global ids `g * L + l` (as the front end builds them) of two threads are equal only
    // when their group and local ids are (`l < L` and no overflow, both asserted above).
    for d in 0..3 {
        if l.block_dim[d] == 0 || l.grid_dim[d] == 0 {
            let gid = |t: &ThreadSyms<'ctx>| t.group[d].bvmul(&sizes[0][d]).bvadd(&t.local[d]);
            let same_ids = Bool::and(ctx, &[&tid[0].group[d]._eq(&tid[1].group[d]), &tid[0].local[d]._eq(&tid[1].local[d])]);
            bg.push(gid(&tid[0])._eq(&gid(&tid[1])).implies(&same_ids));
        }
    }
    let same: Vec<Bool<'ctx>> = (0..3).map(|d| tid[0].group[d]._eq(&tid[1].group[d])).collect();
    let same_group = and(ctx, &same.iter().collect::<Vec<_>>()).simplify();
    let mut differ: Vec<Bool<'ctx>> = (0..3).map(|d| tid[0].local[d]._eq(&tid[1].local[d]).not()).collect();
    differ.push(same_group.not());
    bg.push(or(ctx, &differ.iter().collect::<Vec<_>>()));
    (bg, same_group)
}

/// The linear id `x + y*bx + z*bx*by` of local ids `ids` in a block of `block` threads per
/// dimension (32 bits): what warps and tiles are made of.
pub(super) fn linear_id<'ctx>(ids: &[BV<'ctx>; 3], block: &[BV<'ctx>; 3]) -> BV<'ctx> {
    let (bx, by) = (&block[0], &block[1]);
    ids[0].bvadd(&ids[1].bvmul(bx)).bvadd(&ids[2].bvmul(bx).bvmul(by))
}
