/* syncfix: cg::inclusive_scan and cg::exclusive_scan are in syncfix's reduce.h stand-in. */
#include <cooperative_groups/reduce.h>
