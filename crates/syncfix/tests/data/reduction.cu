// Parallel reduction in the style of the CUDA SDK's reduction sample: seven kernels,
// templates over the element type and the block size, explicitly instantiated.

// Dynamically allocated shared memory of any element type: the unsized extern array cannot
// be templated directly, so a struct converts to a pointer of the wanted type.
template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

// Interleaved addressing with divergent branching.
template <class T>
__global__ void reduce0(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if ((tid % (2 * s)) == 0) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Interleaved addressing with a strided index and no divergence.
template <class T>
__global__ void reduce1(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x) {
      sdata[index] += sdata[index + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Sequential addressing.
template <class T>
__global__ void reduce2(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// The first addition during the global load.
template <class T>
__global__ void reduce3(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// The last warp unrolled (volatile shared memory, as the SDK's older samples do).
template <class T, unsigned int blockSize>
__global__ void reduce4(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid < 32) {
    volatile T *smem = sdata;
    if (blockSize >= 64) smem[tid] = mySum = mySum + smem[tid + 32];
    if (blockSize >= 32) smem[tid] = mySum = mySum + smem[tid + 16];
    if (blockSize >= 16) smem[tid] = mySum = mySum + smem[tid + 8];
    if (blockSize >= 8) smem[tid] = mySum = mySum + smem[tid + 4];
    if (blockSize >= 4) smem[tid] = mySum = mySum + smem[tid + 2];
    if (blockSize >= 2) smem[tid] = mySum = mySum + smem[tid + 1];
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Completely unrolled, with the block size a template parameter.
template <class T, unsigned int blockSize>
__global__ void reduce5(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  __syncthreads();
  if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
  __syncthreads();
  if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
  __syncthreads();
  if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    volatile T *smem = sdata;
    if (blockSize >= 64) smem[tid] = mySum = mySum + smem[tid + 32];
    if (blockSize >= 32) smem[tid] = mySum = mySum + smem[tid + 16];
    if (blockSize >= 16) smem[tid] = mySum = mySum + smem[tid + 8];
    if (blockSize >= 8) smem[tid] = mySum = mySum + smem[tid + 4];
    if (blockSize >= 4) smem[tid] = mySum = mySum + smem[tid + 2];
    if (blockSize >= 2) smem[tid] = mySum = mySum + smem[tid + 1];
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// Several elements per thread (a grid-stride loop), the power-of-two case chosen at compile
// time.
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
  unsigned int gridSize = blockSize * 2 * gridDim.x;
  T mySum = 0;
  while (i < n) {
    mySum += g_idata[i];
    if (nIsPow2 || i + blockSize < n) mySum += g_idata[i + blockSize];
    i += gridSize;
  }
  sdata[tid] = mySum;
  __syncthreads();
  if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
  __syncthreads();
  if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
  __syncthreads();
  if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    volatile T *smem = sdata;
    if (blockSize >= 64) smem[tid] = mySum = mySum + smem[tid + 32];
    if (blockSize >= 32) smem[tid] = mySum = mySum + smem[tid + 16];
    if (blockSize >= 16) smem[tid] = mySum = mySum + smem[tid + 8];
    if (blockSize >= 8) smem[tid] = mySum = mySum + smem[tid + 4];
    if (blockSize >= 4) smem[tid] = mySum = mySum + smem[tid + 2];
    if (blockSize >= 2) smem[tid] = mySum = mySum + smem[tid + 1];
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

template __global__ void reduce0<int>(int *g_idata, int *g_odata, unsigned int n);
template __global__ void reduce0<float>(float *g_idata, float *g_odata, unsigned int n);
template __global__ void reduce1<int>(int *g_idata, int *g_odata, unsigned int n);
template __global__ void reduce2<int>(int *g_idata, int *g_odata, unsigned int n);
template __global__ void reduce3<int>(int *g_idata, int *g_odata, unsigned int n);
template __global__ void reduce4<int, 64>(int *g_idata, int *g_odata, unsigned int n);
template __global__ void reduce5<int, 64>(int *g_idata, int *g_odata, unsigned int n);
template __global__ void reduce6<int, 64, true>(int *g_idata, int *g_odata, unsigned int n);
template __global__ void reduce6<int, 64, false>(int *g_idata, int *g_odata, unsigned int n);
