/* Test prelude for OpenCL (force-included with -include, after clang's default OpenCL header
   from -Xclang -finclude-default-header): the marker functions and GPUVerify's annotations. */
void __syncfix_anchor(int);
void __syncfix_anchor_end(int);
void __syncfix_split(int);

/* GPUVerify's annotation language, as plain declarations. */
#define __requires(x) __requires_(!!(x))
#define __ensures(x) __ensures_(!!(x))
#define __invariant(x) __invariant_(!!(x))
#define __global_invariant(x) __global_invariant_(!!(x))
#define __candidate_invariant(x) __candidate_invariant_(!!(x))
#define __assert(x) __assert_(!!(x))
#define __assume(x) __assume_(!!(x))
void __requires_(int);
void __ensures_(int);
void __invariant_(int);
void __global_invariant_(int);
int __candidate_invariant_(int);
void __assert_(int);
void __assume_(int);
int __enabled(void);
#define __implies(a, b) (!(a) || (b))
#define __read(p) __read_((ulong)(p))
#define __write(p) __write_((ulong)(p))
#define __no_read(p) (!__read(p))
#define __no_write(p) (!__write(p))
#define __read_offset_bytes(p) __read_offset_bytes_((ulong)(p))
#define __write_offset_bytes(p) __write_offset_bytes_((ulong)(p))
#define __ptr_offset_bytes(p) __ptr_offset_bytes_((ulong)(p))
#define __requires_fresh_array(p) __requires_fresh_array_((ulong)(p))
int __read_(ulong);
int __write_(ulong);
size_t __read_offset_bytes_(ulong);
size_t __write_offset_bytes_(ulong);
size_t __ptr_offset_bytes_(ulong);
void __requires_fresh_array_(ulong);
int __other_int(int);
int __uniform_int(int);
int __distinct_int(int);
int __same_group(void);
int __return_val_int(void);
int __other_bool(int);
int __uniform_bool(int);
#define __function_wide_invariant(x) __invariant_(!!(x))
#define __function_wide_candidate_invariant(x) __invariant_(!!(x))
#define __global_requires(x) __requires_(!!(x))
#define __global_ensures(x) __ensures_(!!(x))
#define __global_assert(x) __assert_(!!(x))
#define __ite(c, a, b) ((c) ? (a) : (b))
#define __read_implies(p, c) __read_implies_((ulong)(p), !!(c))
#define __write_implies(p, c) __write_implies_((ulong)(p), !!(c))
int __read_implies_(ulong, int);
int __write_implies_(ulong, int);
void __barrier_invariant_(int);
#define __barrier_invariant_1(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_1(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_2(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_2(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_3(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_3(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_4(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_4(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_5(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_5(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_6(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_6(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_7(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_7(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_8(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_8(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_9(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_9(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_10(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_10(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_11(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_11(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_12(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_12(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_13(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_13(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_14(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_14(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_15(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_15(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_16(c, ...) __barrier_invariant_(!!(c))
#define __barrier_invariant_binary_16(c, ...) __barrier_invariant_(!!(c))
/* OpenCL 2.0's barrier, for tests in OpenCL 1.2 mode. */
void work_group_barrier(cl_mem_fence_flags);
