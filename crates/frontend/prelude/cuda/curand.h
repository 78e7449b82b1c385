/* syncfix's stand-in for cuRAND's host API (curand.h): the generator calls of host code.
 * The device API (curand_kernel.h) is in syncfix's CUDA prelude. */
#ifndef SYNCFIX_CURAND_H
#define SYNCFIX_CURAND_H
enum curandStatus { CURAND_STATUS_SUCCESS = 0, CURAND_STATUS_VERSION_MISMATCH = 100, CURAND_STATUS_NOT_INITIALIZED = 101,
  CURAND_STATUS_ALLOCATION_FAILED = 102, CURAND_STATUS_TYPE_ERROR = 103, CURAND_STATUS_OUT_OF_RANGE = 104,
  CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105, CURAND_STATUS_LAUNCH_FAILURE = 201, CURAND_STATUS_INTERNAL_ERROR = 999 };
typedef enum curandStatus curandStatus_t;
enum curandRngType { CURAND_RNG_PSEUDO_DEFAULT = 100, CURAND_RNG_PSEUDO_XORWOW = 101, CURAND_RNG_PSEUDO_MRG32K3A = 121,
  CURAND_RNG_PSEUDO_MTGP32 = 141, CURAND_RNG_PSEUDO_MT19937 = 142, CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
  CURAND_RNG_QUASI_DEFAULT = 200, CURAND_RNG_QUASI_SOBOL32 = 201 };
typedef enum curandRngType curandRngType_t;
typedef struct curandGenerator_st *curandGenerator_t;
extern "C" __host__ curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type);
extern "C" __host__ curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type);
extern "C" __host__ curandStatus_t curandDestroyGenerator(curandGenerator_t generator);
extern "C" __host__ curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed);
extern "C" __host__ curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream);
extern "C" __host__ curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num);
extern "C" __host__ curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num);
extern "C" __host__ curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr, size_t num);
extern "C" __host__ curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean, float stddev);
extern "C" __host__ curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n, double mean, double stddev);
#endif
