/* Stand-in for <cuda.h>: the test prelude is force-included. */
