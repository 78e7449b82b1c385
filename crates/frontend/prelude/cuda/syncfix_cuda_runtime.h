/* syncfix's stand-in for the host side of the CUDA runtime API (CUDA Runtime API reference,
 * cuda_runtime_api.h and driver_types.h of CUDA 12.4): the types, constants and functions that
 * a program's host code uses (memory, streams, events, errors, device queries, launches), so
 * that a whole `.cu` file compiles for the device side as nvcc reads it. syncfix verifies
 * device code only: these functions have no body and are never lowered; their declarations
 * only have to let host code type-check. Included by the CUDA prelude; a program's
 * `#include <cuda_runtime.h>` finds an empty header. */
#ifndef SYNCFIX_CUDA_RUNTIME_H
#define SYNCFIX_CUDA_RUNTIME_H

#define __SYNCFIX_HOST extern "C" __host__

/* ---- driver_types.h ---------------------------------------------------------------------------- */
enum cudaError {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4, cudaErrorProfilerDisabled = 5, cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12, cudaErrorInvalidSymbol = 13, cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17, cudaErrorInvalidTexture = 18, cudaErrorInvalidTextureBinding = 19,
  cudaErrorInvalidChannelDescriptor = 20, cudaErrorInvalidMemcpyDirection = 21, cudaErrorInvalidFilterSetting = 26,
  cudaErrorInvalidNormSetting = 27, cudaErrorStubLibrary = 34, cudaErrorInsufficientDriver = 35,
  cudaErrorCallRequiresNewerDriver = 36, cudaErrorInvalidSurface = 37, cudaErrorDuplicateVariableName = 43,
  cudaErrorDuplicateTextureName = 44, cudaErrorDuplicateSurfaceName = 45, cudaErrorDevicesUnavailable = 46,
  cudaErrorIncompatibleDriverContext = 49, cudaErrorMissingConfiguration = 52, cudaErrorLaunchMaxDepthExceeded = 65,
  cudaErrorLaunchFileScopedTex = 66, cudaErrorLaunchFileScopedSurf = 67, cudaErrorSyncDepthExceeded = 68,
  cudaErrorLaunchPendingCountExceeded = 69, cudaErrorInvalidDeviceFunction = 98, cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101, cudaErrorDeviceNotLicensed = 102, cudaErrorSoftwareValidityNotEstablished = 103,
  cudaErrorStartupFailure = 127, cudaErrorInvalidKernelImage = 200, cudaErrorDeviceUninitialized = 201,
  cudaErrorMapBufferObjectFailed = 205, cudaErrorUnmapBufferObjectFailed = 206, cudaErrorArrayIsMapped = 207,
  cudaErrorAlreadyMapped = 208, cudaErrorNoKernelImageForDevice = 209, cudaErrorAlreadyAcquired = 210,
  cudaErrorNotMapped = 211, cudaErrorNotMappedAsArray = 212, cudaErrorNotMappedAsPointer = 213,
  cudaErrorECCUncorrectable = 214, cudaErrorUnsupportedLimit = 215, cudaErrorDeviceAlreadyInUse = 216,
  cudaErrorPeerAccessUnsupported = 217, cudaErrorInvalidPtx = 218, cudaErrorInvalidGraphicsContext = 219,
  cudaErrorNvlinkUncorrectable = 220, cudaErrorJitCompilerNotFound = 221, cudaErrorInvalidSource = 300,
  cudaErrorFileNotFound = 301, cudaErrorSharedObjectSymbolNotFound = 302, cudaErrorSharedObjectInitFailed = 303,
  cudaErrorOperatingSystem = 304, cudaErrorInvalidResourceHandle = 400, cudaErrorIllegalState = 401,
  cudaErrorSymbolNotFound = 500, cudaErrorNotReady = 600, cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701, cudaErrorLaunchTimeout = 702, cudaErrorLaunchIncompatibleTexturing = 703,
  cudaErrorPeerAccessAlreadyEnabled = 704, cudaErrorPeerAccessNotEnabled = 705, cudaErrorSetOnActiveProcess = 708,
  cudaErrorContextIsDestroyed = 709, cudaErrorAssert = 710, cudaErrorTooManyPeers = 711,
  cudaErrorHostMemoryAlreadyRegistered = 712, cudaErrorHostMemoryNotRegistered = 713, cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715, cudaErrorMisalignedAddress = 716, cudaErrorInvalidAddressSpace = 717,
  cudaErrorInvalidPc = 718, cudaErrorLaunchFailure = 719, cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorNotPermitted = 800, cudaErrorNotSupported = 801, cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef unsigned long long cudaSurfaceObject_t;
typedef struct CUfunc_st *cudaFunction_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1, cudaSharedMemBankSizeEightByte = 2 };
enum cudaSharedCarveout { cudaSharedmemCarveoutDefault = -1, cudaSharedmemCarveoutMaxShared = 100, cudaSharedmemCarveoutMaxL1 = 0 };
enum cudaLimit {
  cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2,
  cudaLimitDevRuntimeSyncDepth = 3, cudaLimitDevRuntimePendingLaunchCount = 4, cudaLimitMaxL2FetchGranularity = 5,
  cudaLimitPersistingL2CacheSize = 6
};
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10, cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12, cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14, cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
  cudaFuncAttributeMax
};
enum cudaMemoryAdvise {
  cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2, cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4, cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6
};
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes { enum cudaMemoryType type; int device; void *devicePointer; void *hostPointer; };
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6, cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8, cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11, cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14, cudaDevAttrGpuOverlap = 15, cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17, cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20, cudaDevAttrConcurrentKernels = 31, cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33, cudaDevAttrPciDeviceId = 34, cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37, cudaDevAttrL2CacheSize = 38, cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrUnifiedAddressing = 41, cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81, cudaDevAttrManagedMemory = 83,
  cudaDevAttrConcurrentManagedAccess = 89, cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
};
struct cudaDeviceProp {
  char name[256];
  struct { char bytes[16]; } uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory, computeMode;
  int maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear, maxTexture2D[2], maxTexture2DMipmap[2];
  int maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3], maxTextureCubemap;
  int maxTexture1DLayered[2], maxTexture2DLayered[3], maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2];
  int maxSurface3D[3], maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver, asyncEngineCount, unifiedAddressing;
  int memoryClockRate, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize, maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID, hostNativeAtomicSupported;
  int singleToDoublePrecisionPerfRatio, pageableMemoryAccess, concurrentManagedAccess, computePreemptionSupported;
  int canUseHostPointerForRegisteredMem, cooperativeLaunch, cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost, maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
};
struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
};
enum cudaChannelFormatKind { cudaChannelFormatKindSigned = 0, cudaChannelFormatKindUnsigned = 1, cudaChannelFormatKindFloat = 2, cudaChannelFormatKindNone = 3 };
struct cudaChannelFormatDesc { int x, y, z, w; enum cudaChannelFormatKind f; };
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };
struct cudaMemcpy3DParms {
  cudaArray_t srcArray; struct cudaPos srcPos; struct cudaPitchedPtr srcPtr;
  cudaArray_t dstArray; struct cudaPos dstPos; struct cudaPitchedPtr dstPtr;
  struct cudaExtent extent; enum cudaMemcpyKind kind;
};
enum cudaResourceType { cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1, cudaResourceTypeLinear = 2, cudaResourceTypePitch2D = 3 };
struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { cudaMipmappedArray_t mipmap; } mipmap;
    struct { void *devPtr; struct cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
    struct { void *devPtr; struct cudaChannelFormatDesc desc; size_t width, height, pitchInBytes; } pitch2D;
  } res;
};
struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization, seamlessCubemap;
};
struct cudaResourceViewDesc { int format; size_t width, height, depth; unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer; };
struct textureReference { int normalized; enum cudaTextureFilterMode filterMode; enum cudaTextureAddressMode addressMode[3]; struct cudaChannelFormatDesc channelDesc; };
struct cudaLaunchParams { void *func; dim3 gridDim; dim3 blockDim; void **args; size_t sharedMem; cudaStream_t stream; };
typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);
static inline __host__ __device__ struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz) { struct cudaPitchedPtr s = {d, p, xsz, ysz}; return s; }
static inline __host__ __device__ struct cudaPos make_cudaPos(size_t x, size_t y, size_t z) { struct cudaPos p = {x, y, z}; return p; }
static inline __host__ __device__ struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { struct cudaExtent e = {w, h, d}; return e; }

/* ---- cuda_runtime_api.h: the host functions ------------------------------------------------------ */
__SYNCFIX_HOST cudaError_t cudaDeviceReset(void);
__SYNCFIX_HOST cudaError_t cudaDeviceSynchronize(void);
__SYNCFIX_HOST cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
__SYNCFIX_HOST cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit);
__SYNCFIX_HOST cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
__SYNCFIX_HOST cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig);
__SYNCFIX_HOST cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
__SYNCFIX_HOST cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
__SYNCFIX_HOST cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
__SYNCFIX_HOST cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
__SYNCFIX_HOST cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
__SYNCFIX_HOST cudaError_t cudaThreadSynchronize(void);
__SYNCFIX_HOST cudaError_t cudaThreadExit(void);
__SYNCFIX_HOST cudaError_t cudaGetLastError(void);
__SYNCFIX_HOST cudaError_t cudaPeekAtLastError(void);
__SYNCFIX_HOST const char *cudaGetErrorName(cudaError_t error);
__SYNCFIX_HOST const char *cudaGetErrorString(cudaError_t error);
__SYNCFIX_HOST cudaError_t cudaGetDeviceCount(int *count);
__SYNCFIX_HOST cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
__SYNCFIX_HOST cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
__SYNCFIX_HOST cudaError_t cudaSetDevice(int device);
__SYNCFIX_HOST cudaError_t cudaGetDevice(int *device);
__SYNCFIX_HOST cudaError_t cudaSetDeviceFlags(unsigned int flags);
__SYNCFIX_HOST cudaError_t cudaGetDeviceFlags(unsigned int *flags);
__SYNCFIX_HOST cudaError_t cudaDriverGetVersion(int *driverVersion);
__SYNCFIX_HOST cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
__SYNCFIX_HOST cudaError_t cudaStreamCreate(cudaStream_t *pStream);
__SYNCFIX_HOST cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
__SYNCFIX_HOST cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
__SYNCFIX_HOST cudaError_t cudaStreamDestroy(cudaStream_t stream);
__SYNCFIX_HOST cudaError_t cudaStreamSynchronize(cudaStream_t stream);
__SYNCFIX_HOST cudaError_t cudaStreamQuery(cudaStream_t stream);
__SYNCFIX_HOST cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
__SYNCFIX_HOST cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags);
__SYNCFIX_HOST cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length = 0, unsigned int flags = cudaMemAttachSingle);
__SYNCFIX_HOST cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode);
__SYNCFIX_HOST cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
__SYNCFIX_HOST cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
__SYNCFIX_HOST cudaError_t cudaEventCreate(cudaEvent_t *event);
__SYNCFIX_HOST cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
__SYNCFIX_HOST cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
__SYNCFIX_HOST cudaError_t cudaEventQuery(cudaEvent_t event);
__SYNCFIX_HOST cudaError_t cudaEventSynchronize(cudaEvent_t event);
__SYNCFIX_HOST cudaError_t cudaEventDestroy(cudaEvent_t event);
__SYNCFIX_HOST cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
__SYNCFIX_HOST cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);
__SYNCFIX_HOST cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);
__SYNCFIX_HOST cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig);
__SYNCFIX_HOST cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config);
__SYNCFIX_HOST cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
__SYNCFIX_HOST cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
__SYNCFIX_HOST cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize);
__SYNCFIX_HOST cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags);
__SYNCFIX_HOST cudaError_t cudaMalloc(void **devPtr, size_t size);
__SYNCFIX_HOST cudaError_t cudaMallocHost(void **ptr, size_t size);
__SYNCFIX_HOST cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
__SYNCFIX_HOST cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height = 0, unsigned int flags = 0);
__SYNCFIX_HOST cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);
__SYNCFIX_HOST cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent, unsigned int flags = 0);
__SYNCFIX_HOST cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
__SYNCFIX_HOST cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
__SYNCFIX_HOST cudaError_t cudaFree(void *devPtr);
__SYNCFIX_HOST cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream);
__SYNCFIX_HOST cudaError_t cudaFreeHost(void *ptr);
__SYNCFIX_HOST cudaError_t cudaFreeArray(cudaArray_t array);
__SYNCFIX_HOST cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
__SYNCFIX_HOST cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
__SYNCFIX_HOST cudaError_t cudaHostUnregister(void *ptr);
__SYNCFIX_HOST cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
__SYNCFIX_HOST cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
__SYNCFIX_HOST cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
__SYNCFIX_HOST cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
__SYNCFIX_HOST cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
__SYNCFIX_HOST cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
__SYNCFIX_HOST cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind);
__SYNCFIX_HOST cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count, enum cudaMemcpyKind kind);
__SYNCFIX_HOST cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
__SYNCFIX_HOST cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream = 0);
__SYNCFIX_HOST cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream = 0);
__SYNCFIX_HOST cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream = 0);
__SYNCFIX_HOST cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
__SYNCFIX_HOST cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
__SYNCFIX_HOST cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream = 0);
__SYNCFIX_HOST cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream = 0);
__SYNCFIX_HOST cudaError_t cudaMemset(void *devPtr, int value, size_t count);
__SYNCFIX_HOST cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
__SYNCFIX_HOST cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
__SYNCFIX_HOST cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream = 0);
__SYNCFIX_HOST cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream = 0);
__SYNCFIX_HOST cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, int device);
__SYNCFIX_HOST cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
__SYNCFIX_HOST cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);
__SYNCFIX_HOST cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);
__SYNCFIX_HOST struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
__SYNCFIX_HOST cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc, const struct cudaTextureDesc *pTexDesc, const struct cudaResourceViewDesc *pResViewDesc);
__SYNCFIX_HOST cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
__SYNCFIX_HOST cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc);
__SYNCFIX_HOST cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
__SYNCFIX_HOST cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *texref, const void *devPtr, const struct cudaChannelFormatDesc *desc, size_t size = ~(size_t)0);
__SYNCFIX_HOST cudaError_t cudaBindTexture2D(size_t *offset, const struct textureReference *texref, const void *devPtr, const struct cudaChannelFormatDesc *desc, size_t width, size_t height, size_t pitch);
__SYNCFIX_HOST cudaError_t cudaBindTextureToArray(const struct textureReference *texref, cudaArray_const_t array, const struct cudaChannelFormatDesc *desc);
__SYNCFIX_HOST cudaError_t cudaUnbindTexture(const struct textureReference *texref);
__SYNCFIX_HOST cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags = 0);
__SYNCFIX_HOST cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
__SYNCFIX_HOST cudaError_t cudaGraphDestroy(cudaGraph_t graph);
__SYNCFIX_HOST cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
__SYNCFIX_HOST cudaError_t cudaProfilerStart(void);
__SYNCFIX_HOST cudaError_t cudaProfilerStop(void);
/* The kernel launch `k<<<grid, block, shared, stream>>>(args)`: clang calls one of these for
 * the configuration, depending on the CUDA version it assumes. */
__SYNCFIX_HOST int cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, cudaStream_t stream = 0);
__SYNCFIX_HOST unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, void *stream = 0);

/* ---- cuda_runtime.h: the C++ templates over the functions above ----------------------------------- */
template <class T> static inline __host__ cudaError_t cudaMalloc(T **devPtr, size_t size) { return cudaMalloc((void **)(void *)devPtr, size); }
template <class T> static inline __host__ cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0) { return cudaMallocHost((void **)(void *)ptr, size); }
template <class T> static inline __host__ cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) { return cudaHostAlloc((void **)(void *)ptr, size, flags); }
template <class T> static inline __host__ cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal) { return cudaMallocManaged((void **)(void *)devPtr, size, flags); }
template <class T> static inline __host__ cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height) { return cudaMallocPitch((void **)(void *)devPtr, pitch, width, height); }
template <class T> static inline __host__ cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream) { return cudaMallocAsync((void **)(void *)devPtr, size, stream); }
template <class T> static inline __host__ cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags) { return cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags); }
template <class T> static inline __host__ cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) { return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind); }
template <class T> static inline __host__ cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0) { return cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream); }
template <class T> static inline __host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) { return cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind); }
template <class T> static inline __host__ cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0) { return cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, stream); }
template <class T> static inline __host__ cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol) { return cudaGetSymbolAddress(devPtr, (const void *)&symbol); }
template <class T> static inline __host__ cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) { return cudaGetSymbolSize(size, (const void *)&symbol); }
template <class T> static inline __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem = 0, cudaStream_t stream = 0) { return cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream); }
template <class T> static inline __host__ cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem = 0, cudaStream_t stream = 0) { return cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream); }
template <class T> static inline __host__ cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig) { return cudaFuncSetCacheConfig((const void *)func, cacheConfig); }
template <class T> static inline __host__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *func) { return cudaFuncGetAttributes(attr, (const void *)func); }
template <class T> static inline __host__ cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value) { return cudaFuncSetAttribute((const void *)func, attr, value); }
template <class T> static inline __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func, int blockSize, size_t dynamicSMemSize) { return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void *)func, blockSize, dynamicSMemSize); }
template <class T> static inline __host__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0) { return cudaSuccess; }
template <class T> static inline __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(void) { return cudaCreateChannelDesc(8 * (int)sizeof(T), 0, 0, 0, cudaChannelFormatKindNone); }
template <class T, int D, enum cudaTextureReadMode M> static inline __host__ cudaError_t cudaBindTexture(size_t *offset, const struct texture<T, D, M> &tex, const void *devPtr, size_t size = ~(size_t)0) { return cudaSuccess; }
template <class T, int D, enum cudaTextureReadMode M> static inline __host__ cudaError_t cudaBindTexture(size_t *offset, const struct texture<T, D, M> &tex, const void *devPtr, const struct cudaChannelFormatDesc &desc, size_t size = ~(size_t)0) { return cudaSuccess; }
template <class T, int D, enum cudaTextureReadMode M> static inline __host__ cudaError_t cudaBindTexture2D(size_t *offset, const struct texture<T, D, M> &tex, const void *devPtr, const struct cudaChannelFormatDesc &desc, size_t width, size_t height, size_t pitch) { return cudaSuccess; }
template <class T, int D, enum cudaTextureReadMode M> static inline __host__ cudaError_t cudaBindTextureToArray(const struct texture<T, D, M> &tex, cudaArray_const_t array, const struct cudaChannelFormatDesc &desc) { return cudaSuccess; }
template <class T, int D, enum cudaTextureReadMode M> static inline __host__ cudaError_t cudaBindTextureToArray(const struct texture<T, D, M> &tex, cudaArray_const_t array) { return cudaSuccess; }
template <class T, int D, enum cudaTextureReadMode M> static inline __host__ cudaError_t cudaUnbindTexture(const struct texture<T, D, M> &tex) { return cudaSuccess; }

#undef __SYNCFIX_HOST
#endif /* SYNCFIX_CUDA_RUNTIME_H */
