/* syncfix: kernels may `#include <cuda.h>` or "cuda.h"; everything a kernel needs is in
 * syncfix's force-included prelude, so this header is intentionally empty. */
