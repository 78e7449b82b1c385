/* syncfix: cuRAND's device API (curand_init, curand, curand_uniform, ... and the state types)
 * is declared by syncfix's force-included CUDA prelude; this header lets
 * `#include <curand_kernel.h>` compile, and brings the host API as the real one does. */
#include "curand.h"
