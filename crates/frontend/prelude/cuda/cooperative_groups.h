/* syncfix: cooperative groups (this_grid, this_thread_block, sync, synchronize) are declared
 * by syncfix's force-included prelude; this header lets `#include <cooperative_groups.h>`
 * compile. */
