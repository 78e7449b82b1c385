//xfail:NOT_ALL_VERIFIED
//--local_size=64 --num_groups=4
//kernel.cl: error: possible (read-write|write-read) race on l\[
__kernel void k(__global float *g) { __local float l[64]; size_t i = get_local_id(0);
  l[i] = g[get_global_id(0)]; g[get_global_id(0)] = l[(i + 1) % 64]; }
