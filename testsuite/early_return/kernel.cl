//xfail:NOT_ALL_VERIFIED
//--local_size=64 --num_groups=1
//kernel.cl:10:[0-9]+: error: barrier may be reached by non-uniform control flow
/* Work-items past the end return before the barrier: the return moves past it. */
__kernel void shift(__global float *out, __global const float *in, int n) {
  __local float tile[64];
  int t = get_local_id(0);
  if (t >= n) return;
  tile[t] = in[t];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[t] = tile[(t + 1) % n];
}
