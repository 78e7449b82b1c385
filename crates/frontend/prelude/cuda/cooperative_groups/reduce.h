/* syncfix's stand-in for CUDA's cooperative_groups/reduce.h (CUDA Programming Guide,
 * "Cooperative Groups", cg::reduce): a reduction of a tile's (or coalesced group's) values
 * through warp shuffles, whose result syncfix takes as arbitrary, as it takes every shuffle's
 * value (races do not depend on it). It accesses no memory and orders none: CUDA does not
 * make it a barrier. The functors are CUDA's (cg::plus, cg::less, cg::greater, cg::bit_*). */
#ifndef SYNCFIX_CG_REDUCE_H
#define SYNCFIX_CG_REDUCE_H
#include <cooperative_groups.h>
namespace cooperative_groups {
template <class T> struct plus { __device__ T operator()(const T &a, const T &b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(const T &a, const T &b) const { return a < b ? a : b; } };
template <class T> struct greater { __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(const T &a, const T &b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(const T &a, const T &b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(const T &a, const T &b) const { return a ^ b; } };
/* A fresh value per call (a bodiless function without pointer arguments). */
template <class T> __device__ T __syncfix_collective_value(unsigned int group_size);
template <class Group, class T, class Op> __device__ __forceinline__ T reduce(const Group &g, T value, Op op) {
  return __syncfix_collective_value<T>(g.size());
}
template <class Group, class T, class Op> __device__ __forceinline__ T inclusive_scan(const Group &g, T value, Op op) {
  return __syncfix_collective_value<T>(g.size());
}
template <class Group, class T> __device__ __forceinline__ T inclusive_scan(const Group &g, T value) {
  return __syncfix_collective_value<T>(g.size());
}
template <class Group, class T, class Op> __device__ __forceinline__ T exclusive_scan(const Group &g, T value, Op op) {
  return __syncfix_collective_value<T>(g.size());
}
template <class Group, class T> __device__ __forceinline__ T exclusive_scan(const Group &g, T value) {
  return __syncfix_collective_value<T>(g.size());
}
} // namespace cooperative_groups
#endif
