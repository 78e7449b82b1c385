// Two reads of A an iteration, both in column t: PPCG's function-wide invariant on the read
// log's offset (its column, modulo n) holds of each access an iteration may have logged and
// of the log at the loop's head.
__kernel void k(__global int *A, int n, int m) {
  __requires(n == 64);
  int t = get_local_id(0);
  for (int c = 0; c < m; c += 1) {
    A[c * n + t] = A[(c + 1) * n + t] + A[(c + 2) * n + t];
  }
  __function_wide_invariant(__read_implies(A, ((__read_offset_bytes(A) / sizeof(int)) % n) == t));
}
