/* syncfix's stand-in for CUB (CCCL 2.x), used without a CUDA toolkit: the block- and
 * warp-level primitives a kernel calls, modelled by what they do to memory and barriers, and
 * the device-wide algorithms that host code calls, declared only.
 *
 * cub::BlockReduce (BLOCK_REDUCE_WARP_REDUCTIONS, CUB's default): each warp reduces its
 * values with shuffles (values syncfix takes as arbitrary, as every shuffle's), lane 0 of
 * each warp writes its warp's aggregate to the TempStorage, the block synchronises
 * (`__syncthreads()`), and thread 0 reads the other warps' aggregates and combines them: the
 * result is valid in thread 0. cub::BlockScan: the last lane of each warp writes its warp's
 * total, the block synchronises, and each thread reads the totals of the warps before it.
 * These are the accesses and the barrier of CUB's own implementations, so that a kernel that
 * reuses a TempStorage without a `__syncthreads()` between (which CUB's documentation
 * forbids) races here as it does on the GPU. cub::WarpReduce: shuffles only (an arbitrary
 * value, no memory, no barrier). */
#ifndef SYNCFIX_CUB_CUH
#define SYNCFIX_CUB_CUH
namespace cub {
struct Sum { template <class T> __host__ __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a + b; } };
struct Max { template <class T> __host__ __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
struct Min { template <class T> __host__ __device__ __forceinline__ T operator()(const T &a, const T &b) const { return b < a ? b : a; } };
/* A fresh value per call: a warp's shuffles' result. */
template <class T> __device__ T __syncfix_warp_value(int lanes);
enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };
template <class T> struct Uninitialized { T __syncfix_value; __device__ T &Alias() { return __syncfix_value; } };
__device__ __forceinline__ unsigned int __syncfix_block_linear_tid(int dx, int dy) {
  return threadIdx.x + dx * (threadIdx.y + dy * threadIdx.z);
}

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
  static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int WARPS = (THREADS + 31) / 32;
  struct _TempStorage { T warp_aggregates[WARPS]; };
public:
  struct TempStorage : Uninitialized<_TempStorage> {};
private:
  _TempStorage &temp;
  unsigned int tid;
public:
  __device__ __forceinline__ BlockReduce(TempStorage &t) : temp(t.Alias()), tid(__syncfix_block_linear_tid(BLOCK_DIM_X, BLOCK_DIM_Y)) {}
  template <class Op> __device__ __forceinline__ T Reduce(T input, Op op, int num_valid) {
    T warp_aggregate = __syncfix_warp_value<T>(32);
    if (tid % 32 == 0) temp.warp_aggregates[tid / 32] = warp_aggregate;
    __syncthreads();
    T result = warp_aggregate;
    if (tid == 0) {
      for (int w = 1; w < WARPS && w * 32 < num_valid; ++w) result = op(result, temp.warp_aggregates[w]);
    }
    return result;
  }
  template <class Op> __device__ __forceinline__ T Reduce(T input, Op op) { return Reduce(input, op, THREADS); }
  template <int ITEMS, class Op> __device__ __forceinline__ T Reduce(T (&inputs)[ITEMS], Op op) {
    T partial = inputs[0];
    for (int i = 1; i < ITEMS; ++i) partial = op(partial, inputs[i]);
    return Reduce(partial, op, THREADS);
  }
  __device__ __forceinline__ T Sum(T input) { return Reduce(input, cub::Sum(), THREADS); }
  __device__ __forceinline__ T Sum(T input, int num_valid) { return Reduce(input, cub::Sum(), num_valid); }
  template <int ITEMS> __device__ __forceinline__ T Sum(T (&inputs)[ITEMS]) { return Reduce(inputs, cub::Sum()); }
};

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1,
          int LEGACY_PTX_ARCH = 0>
class BlockScan {
  static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int WARPS = (THREADS + 31) / 32;
  struct _TempStorage { T warp_aggregates[WARPS]; };
public:
  struct TempStorage : Uninitialized<_TempStorage> {};
private:
  _TempStorage &temp;
  unsigned int tid;
  /* The scan's accesses and barrier; the value is arbitrary. */
  template <class Op> __device__ __forceinline__ T scan(T input, Op op, T *block_aggregate) {
    T warp_total = __syncfix_warp_value<T>(32);
    if (tid % 32 == 31 || tid == THREADS - 1) temp.warp_aggregates[tid / 32] = warp_total;
    __syncthreads();
    T prefix = warp_total;
    for (int w = 0; w < (int)(tid / 32); ++w) prefix = op(prefix, temp.warp_aggregates[w]);
    if (block_aggregate) {
      T total = temp.warp_aggregates[0];
      for (int w = 1; w < WARPS; ++w) total = op(total, temp.warp_aggregates[w]);
      *block_aggregate = total;
    }
    return op(prefix, __syncfix_warp_value<T>(32));
  }
public:
  __device__ __forceinline__ BlockScan(TempStorage &t) : temp(t.Alias()), tid(__syncfix_block_linear_tid(BLOCK_DIM_X, BLOCK_DIM_Y)) {}
  __device__ __forceinline__ void ExclusiveSum(T input, T &output) { output = scan(input, cub::Sum(), (T *)0); }
  __device__ __forceinline__ void ExclusiveSum(T input, T &output, T &block_aggregate) { output = scan(input, cub::Sum(), &block_aggregate); }
  __device__ __forceinline__ void InclusiveSum(T input, T &output) { output = scan(input, cub::Sum(), (T *)0); }
  __device__ __forceinline__ void InclusiveSum(T input, T &output, T &block_aggregate) { output = scan(input, cub::Sum(), &block_aggregate); }
  template <class Op> __device__ __forceinline__ void ExclusiveScan(T input, T &output, T initial, Op op) { output = scan(input, op, (T *)0); }
  template <class Op> __device__ __forceinline__ void ExclusiveScan(T input, T &output, T initial, Op op, T &block_aggregate) { output = scan(input, op, &block_aggregate); }
  template <class Op> __device__ __forceinline__ void InclusiveScan(T input, T &output, Op op) { output = scan(input, op, (T *)0); }
  template <class Op> __device__ __forceinline__ void InclusiveScan(T input, T &output, Op op, T &block_aggregate) { output = scan(input, op, &block_aggregate); }
  /* Several items per thread: the thread's items are combined, scanned across the block as
   * one value, and each output item is the scan's (arbitrary) value. */
  template <int ITEMS, class Op> __device__ __forceinline__ void items(T (&input)[ITEMS], T (&output)[ITEMS], Op op, T *block_aggregate) {
    T partial = input[0];
    for (int i = 1; i < ITEMS; ++i) partial = op(partial, input[i]);
    T prefix = scan(partial, op, block_aggregate);
    for (int i = 0; i < ITEMS; ++i) output[i] = op(prefix, input[i]);
  }
  template <int ITEMS> __device__ __forceinline__ void ExclusiveSum(T (&input)[ITEMS], T (&output)[ITEMS]) { items(input, output, cub::Sum(), (T *)0); }
  template <int ITEMS> __device__ __forceinline__ void ExclusiveSum(T (&input)[ITEMS], T (&output)[ITEMS], T &block_aggregate) { items(input, output, cub::Sum(), &block_aggregate); }
  template <int ITEMS> __device__ __forceinline__ void InclusiveSum(T (&input)[ITEMS], T (&output)[ITEMS]) { items(input, output, cub::Sum(), (T *)0); }
  template <int ITEMS> __device__ __forceinline__ void InclusiveSum(T (&input)[ITEMS], T (&output)[ITEMS], T &block_aggregate) { items(input, output, cub::Sum(), &block_aggregate); }
  template <int ITEMS, class Op> __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS], T (&output)[ITEMS], Op op) { items(input, output, op, (T *)0); }
  template <int ITEMS, class Op> __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS], T (&output)[ITEMS], Op op, T &block_aggregate) { items(input, output, op, &block_aggregate); }
  template <int ITEMS, class Op> __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS], T (&output)[ITEMS], T initial, Op op) { items(input, output, op, (T *)0); }
  template <int ITEMS, class Op> __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS], T (&output)[ITEMS], T initial, Op op, T &block_aggregate) { items(input, output, op, &block_aggregate); }
};

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
public:
  struct TempStorage {};
  __device__ __forceinline__ WarpReduce(TempStorage &) {}
  __device__ __forceinline__ T Sum(T input) { return __syncfix_warp_value<T>(LOGICAL_WARP_THREADS); }
  __device__ __forceinline__ T Sum(T input, int valid_items) { return __syncfix_warp_value<T>(LOGICAL_WARP_THREADS); }
  template <class Op> __device__ __forceinline__ T Reduce(T input, Op op) { return __syncfix_warp_value<T>(LOGICAL_WARP_THREADS); }
  template <class Op> __device__ __forceinline__ T Reduce(T input, Op op, int valid_items) { return __syncfix_warp_value<T>(LOGICAL_WARP_THREADS); }
};

/* Device-wide algorithms: launched by host code, which syncfix does not verify. */
struct DeviceReduce {
  template <class In, class Out> static __host__ cudaError_t Sum(void *temp, size_t &bytes, In in, Out out, int n, cudaStream_t s = 0) { return cudaSuccess; }
  template <class In, class Out> static __host__ cudaError_t Max(void *temp, size_t &bytes, In in, Out out, int n, cudaStream_t s = 0) { return cudaSuccess; }
  template <class In, class Out> static __host__ cudaError_t Min(void *temp, size_t &bytes, In in, Out out, int n, cudaStream_t s = 0) { return cudaSuccess; }
  template <class In, class Out, class Op, class T> static __host__ cudaError_t Reduce(void *temp, size_t &bytes, In in, Out out, int n, Op op, T init, cudaStream_t s = 0) { return cudaSuccess; }
};
struct DeviceScan {
  template <class In, class Out> static __host__ cudaError_t ExclusiveSum(void *temp, size_t &bytes, In in, Out out, int n, cudaStream_t s = 0) { return cudaSuccess; }
  template <class In, class Out> static __host__ cudaError_t InclusiveSum(void *temp, size_t &bytes, In in, Out out, int n, cudaStream_t s = 0) { return cudaSuccess; }
};
struct DeviceRadixSort {
  template <class K> static __host__ cudaError_t SortKeys(void *temp, size_t &bytes, const K *in, K *out, int n, int begin_bit = 0, int end_bit = sizeof(K) * 8, cudaStream_t s = 0) { return cudaSuccess; }
  template <class K, class V> static __host__ cudaError_t SortPairs(void *temp, size_t &bytes, const K *kin, K *kout, const V *vin, V *vout, int n, int begin_bit = 0, int end_bit = sizeof(K) * 8, cudaStream_t s = 0) { return cudaSuccess; }
};
} // namespace cub
#endif
