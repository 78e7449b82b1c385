//! A host program that launches a kernel with a counterexample's inputs (issue 29, `syncfix
//! replay --emit-harness`): the launch, the scalar arguments and the initial memory of the
//! replay that reproduced the race, so that a user with a GPU can watch it happen under
//! `compute-sanitizer --tool racecheck` (shared memory) or `--tool synccheck` (barriers).

use std::fmt::Write;
use syncfix_kir::{EntityRef, Kernel, Language, ParamKind, Space};
use syncfix_replay::{Fill, Witness};

/// Bytes given to a pointer parameter whose extent neither its type nor the replay gives.
const DEFAULT_BUFFER: u64 = 1 << 20;

/// Dynamic shared memory given to a kernel with an `extern __shared__` array.
const DEFAULT_DYNAMIC_SHARED: u64 = 16 << 10;

/// The harness of kernel `k` (of the file at `path`) for the defect `headline`: launch `grid`
/// × `block`, scalar arguments `params` (index, bits), memory as `witness` says (from a run of
/// `ran_blocks` blocks: what it touched, scaled to the grid; zeros and [`DEFAULT_BUFFER`]
/// bytes per buffer without one) with the bytes of `memory` (object, byte offset, byte: the
/// memory the model chose) written over it. `Err` with the reason for a kernel it
/// cannot launch: OpenCL, a parameter passed by value as a struct, a scalar wider than 64 bits.
pub(crate) fn harness(
    k: &Kernel,
    path: &str,
    headline: &str,
    grid: [u32; 3],
    block: [u32; 3],
    params: &[(usize, u128)],
    witness: Option<&Witness>,
    memory: &[(syncfix_kir::ObjectId, u64, u8)],
    ran_blocks: u64,
) -> Result<String, String> {
    if k.language == Language::OpenCl {
        return Err("the harness is a CUDA program; an OpenCL kernel needs an OpenCL host".into());
    }
    let include = std::fs::canonicalize(path).map_or_else(|_| path.to_string(), |p| p.display().to_string());
    let fill = witness.map_or(Fill::Zero, |w| w.fill);
    let mut body = String::new();
    let mut args = vec![];
    for (i, p) in k.params.iter().enumerate() {
        match &p.kind {
            ParamKind::Pointer(o) => {
                let obj = &k.objects[*o];
                if obj.space == Space::Private {
                    return Err(format!("parameter `{}` is a struct passed by value, which the harness does not build", p.name));
                }
                let declared: u64 = if obj.dims.is_empty() { 0 } else { obj.dims.iter().product::<u64>() * obj.elem_size.max(1) as u64 };
                // The replay ran one or two blocks; the harness launches them all.
                let blocks = grid.iter().map(|&g| g.max(1) as u64).product::<u64>();
                let touched = witness.and_then(|w| w.extents.iter().find(|(x, _)| x == o)).map_or(0, |(_, e)| *e);
                let touched = touched.saturating_mul(blocks.div_ceil(ran_blocks.max(1)));
                let bytes = declared.max(touched.next_multiple_of(4096)).max(if declared == 0 { DEFAULT_BUFFER } else { 0 });
                let how = match fill {
                    Fill::Zero => 0,
                    Fill::Small => 1,
                    Fill::Pattern => 2,
                };
                writeln!(body, "  // `{}`: {bytes} bytes", p.name).unwrap();
                let known: Vec<(u64, u8)> =
                    memory.iter().filter(|(x, off, _)| x == o && *off < bytes).map(|&(_, off, b)| (off, b)).collect();
                if known.is_empty() {
                    writeln!(body, "  void *p{i} = buffer({bytes}ull, {how}, {}u, nullptr, nullptr, 0);", o.index()).unwrap();
                } else {
                    let list = |f: &dyn Fn(&(u64, u8)) -> String| known.iter().map(f).collect::<Vec<_>>().join(", ");
                    writeln!(body, "  // The {} bytes the verifier's model chose.", known.len()).unwrap();
                    writeln!(body, "  static const unsigned long long at{i}[] = {{{}}};", list(&|(off, _)| format!("{off}ull"))).unwrap();
                    writeln!(body, "  static const unsigned char byte{i}[] = {{{}}};", list(&|(_, b)| b.to_string())).unwrap();
                    writeln!(body, "  void *p{i} = buffer({bytes}ull, {how}, {}u, at{i}, byte{i}, {});", o.index(), known.len()).unwrap();
                }
                args.push(format!("&p{i}"));
            }
            ParamKind::Scalar { width } => {
                let v = params.iter().find(|(x, _)| *x == i).map_or(0, |(_, v)| *v);
                let ty = match width {
                    1..=8 => "uint8_t",
                    9..=16 => "uint16_t",
                    17..=32 => "uint32_t",
                    33..=64 => "uint64_t",
                    _ => return Err(format!("parameter `{}` has {width} bits, more than the harness passes", p.name)),
                };
                writeln!(body, "  {ty} a{i} = {v}ull; // `{}`", p.name).unwrap();
                args.push(format!("&a{i}"));
            }
        }
    }
    let dynamic_shared = k.objects.values().any(|o| o.space == Space::Shared && o.dims.is_empty());
    let shared = if dynamic_shared { DEFAULT_DYNAMIC_SHARED } else { 0 };
    let dim = |d: [u32; 3]| format!("dim3({}, {}, {})", d[0], d[1], d[2]);
    let fill_words = match fill {
        Fill::Zero => "zeros",
        Fill::Small => "the words 0, 1, 2, 0, ...",
        Fill::Pattern => "syncfix's pseudo-random pattern",
    };
    let mut s = String::new();
    writeln!(s, "// Generated by `syncfix replay --emit-harness`: launches `{}` with the inputs of a", k.name).unwrap();
    writeln!(s, "// counterexample of \"{headline}\".").unwrap();
    writeln!(s, "// Launch {} blocks of {} threads; memory starts as {fill_words}.", dim(grid), dim(block)).unwrap();
    writeln!(s, "// Build and watch the race:").unwrap();
    writeln!(s, "//   nvcc -arch=native -o harness harness.cu").unwrap();
    writeln!(s, "//   compute-sanitizer --tool racecheck ./harness   (races on shared memory)").unwrap();
    writeln!(s, "//   compute-sanitizer --tool synccheck ./harness   (barrier divergence)").unwrap();
    writeln!(s, "#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <vector>\n#include <cuda_runtime.h>").unwrap();
    // The kernel's file, whose own `main` (a whole program's) is renamed out of the way.
    writeln!(s, "#define main syncfix_users_main").unwrap();
    writeln!(s, "#include \"{}\"", include.replace('\\', "\\\\").replace('"', "\\\"")).unwrap();
    writeln!(s, "#undef main\n").unwrap();
    s.push_str(
        "// A device buffer of `bytes` bytes: zeros (how 0), words 0, 1, 2, ... (1), or the pattern of
// syncfix's replay for memory object `object` (2); then byte `at[i]` set to `byte[i]` for each
// of the `known` bytes the verifier's model chose.
static void *buffer(unsigned long long bytes, int how, unsigned object, const unsigned long long *at,
                    const unsigned char *byte, unsigned long long known) {
  std::vector<unsigned char> host(bytes, 0);
  for (unsigned long long b = 0; b < bytes; b++) {
    if (how == 1 && b % 4 == 0) host[b] = (unsigned char)(b / 4 % 3);
    if (how == 2) {
      unsigned long long h = (unsigned long long)object * 0x9e3779b97f4a7c15ull ^ b * 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
      h *= 0x94d049bb133111ebull;
      host[b] = (unsigned char)(h >> 29);
    }
  }
  for (unsigned long long i = 0; i < known; i++) host[at[i]] = byte[i];
  void *p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess || cudaMemcpy(p, host.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    fprintf(stderr, \"harness: cannot allocate %llu bytes\\n\", bytes);
    exit(2);
  }
  return p;
}

int main() {
",
    );
    s.push_str(&body);
    writeln!(s, "  void *args[] = {{{}}};", if args.is_empty() { "nullptr".to_string() } else { args.join(", ") }).unwrap();
    writeln!(s, "  cudaError_t e = cudaLaunchKernel((const void *)({}), {}, {}, args, {shared}, 0);", k.name, dim(grid), dim(block))
        .unwrap();
    s.push_str(
        "  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  printf(\"harness: %s\\n\", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
",
    );
    Ok(s)
}
