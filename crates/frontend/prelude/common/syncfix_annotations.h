/* GPUVerify's annotation language, as syncfix understands it. Included by both preludes.
 *
 * Every function here is declared without a body on purpose: syncfix's lowering recognises
 * calls to them by name and gives each its meaning in KIR (an assertion, an assumption, a
 * candidate invariant, a query on the race logs, a value of the other thread...). Arguments
 * of specifications are evaluated between __syncfix_spec_begin() and __syncfix_spec_end():
 * loads there are specification reads, which are not logged as accesses (GPUVerify's
 * "non-temporal loads").
 */
#ifndef SYNCFIX_ANNOTATIONS_H
#define SYNCFIX_ANNOTATIONS_H

#ifdef __cplusplus
#define SYNCFIX_SPEC extern "C" __attribute__((device))
#define SYNCFIX_OVL __attribute__((device))
typedef bool __syncfix_bool;
#else
#define SYNCFIX_SPEC
#define SYNCFIX_OVL __attribute__((overloadable))
typedef bool __syncfix_bool;
#endif

SYNCFIX_SPEC void __syncfix_spec_begin(void);
SYNCFIX_SPEC void __syncfix_spec_end(void);
#define __non_temporal_loads_begin() __syncfix_spec_begin()
#define __non_temporal_loads_end() __syncfix_spec_end()
#define SYNCFIX_SPEC_CALL(CALL) (__syncfix_spec_begin(), CALL, __syncfix_spec_end())

/* Assertions and assumptions. */
SYNCFIX_SPEC void __assert(__syncfix_bool expr);
SYNCFIX_SPEC void __global_assert(__syncfix_bool expr);
SYNCFIX_SPEC void __candidate_assert(__syncfix_bool expr);
SYNCFIX_SPEC void __candidate_global_assert(__syncfix_bool expr);
SYNCFIX_SPEC void __assume(__syncfix_bool expr);

/* Contracts. */
SYNCFIX_SPEC void __requires(__syncfix_bool expr);
SYNCFIX_SPEC void __global_requires(__syncfix_bool expr);
SYNCFIX_SPEC void __ensures(__syncfix_bool expr);
SYNCFIX_SPEC void __global_ensures(__syncfix_bool expr);
SYNCFIX_SPEC int __return_val_int(void);
SYNCFIX_SPEC __syncfix_bool __return_val_bool(void);
SYNCFIX_SPEC void *__return_val_ptr(void);
#define __return_val_funptr(T) ((T)__return_val_ptr())
#ifndef __cplusplus
SYNCFIX_SPEC int4 __return_val_int4(void);
#endif
SYNCFIX_SPEC int __old_int(int expr);
SYNCFIX_SPEC __syncfix_bool __old_bool(__syncfix_bool expr);

/* Loop invariants (checked at the loop head; candidates are for inference). */
SYNCFIX_SPEC void __syncfix_invariant(__syncfix_bool expr);
SYNCFIX_SPEC void __syncfix_global_invariant(__syncfix_bool expr);
SYNCFIX_SPEC void __candidate_invariant(__syncfix_bool expr);
SYNCFIX_SPEC void __candidate_global_invariant(__syncfix_bool expr);
SYNCFIX_SPEC void __syncfix_function_wide_invariant(__syncfix_bool expr);
SYNCFIX_SPEC void __function_wide_candidate_invariant(__syncfix_bool expr);
#define __invariant(X) SYNCFIX_SPEC_CALL(__syncfix_invariant(X))
#define __global_invariant(X) SYNCFIX_SPEC_CALL(__syncfix_global_invariant(X))
#define __function_wide_invariant(X) SYNCFIX_SPEC_CALL(__syncfix_function_wide_invariant(X))

/* Predicates. */
SYNCFIX_SPEC __syncfix_bool __enabled(void);
SYNCFIX_SPEC __syncfix_bool __dominator_enabled(void);
SYNCFIX_SPEC __syncfix_bool __implies(__syncfix_bool a, __syncfix_bool b);
SYNCFIX_SPEC int __other_int(int expr);
SYNCFIX_SPEC __syncfix_bool __other_bool(__syncfix_bool expr);
#define __uniform_int(X) ((X) == __other_int(X))
#define __uniform_bool(X) ((X) == __other_bool(X))
#define __distinct_int(X) ((X) != __other_int(X))
#define __distinct_bool(X) ((X) != __other_bool(X))
#define __all(X) ((X) & __other_bool(X))
#define __exclusive(X) (!(__all(X)))
#ifdef __cplusplus
#define __same_group (blockIdx.x == __other_int(blockIdx.x) & blockIdx.y == __other_int(blockIdx.y) & blockIdx.z == __other_int(blockIdx.z))
#else
#define __same_group (get_group_id(0) == __other_int(get_group_id(0)) & get_group_id(1) == __other_int(get_group_id(1)) & get_group_id(2) == __other_int(get_group_id(2)))
#endif
#define __is_pow2(x) ((((x) & (x - 1)) == 0))
#define __mod_pow2(x, y) ((y - 1) & (x))

/* Queries on the race logs (thread 1's logged access of the array `p` points into). Pointer
 * arguments are `const void *` in CUDA and overloaded per address space in OpenCL. */
#ifdef __cplusplus
#define SYNCFIX_PTR_QUERY(NAME, T) SYNCFIX_SPEC T NAME(const volatile void *p);
#else
#define SYNCFIX_PTR_QUERY(NAME, T)                                                              \
  SYNCFIX_OVL T NAME(const volatile __global void *p);                                         \
  SYNCFIX_OVL T NAME(const volatile __local void *p);                                          \
  SYNCFIX_OVL T NAME(const volatile __constant void *p);                                       \
  SYNCFIX_OVL T NAME(const volatile void *p);
#endif
SYNCFIX_PTR_QUERY(__read, __syncfix_bool)
SYNCFIX_PTR_QUERY(__write, __syncfix_bool)
SYNCFIX_PTR_QUERY(__atomic, __syncfix_bool)
SYNCFIX_PTR_QUERY(__read_offset_bytes, unsigned long)
SYNCFIX_PTR_QUERY(__write_offset_bytes, unsigned long)
SYNCFIX_PTR_QUERY(__ptr_base, int)
SYNCFIX_PTR_QUERY(__ptr_offset_bytes, unsigned long)
SYNCFIX_PTR_QUERY(__syncfix_reads_from, void)
SYNCFIX_PTR_QUERY(__syncfix_writes_to, void)
SYNCFIX_PTR_QUERY(__requires_fresh_array, void)
/* Permissions (`__read_permission(A[i])`, also `__read_permission(int, A[i])`) let the thread
   read `A[i]` in the barrier invariants of this barrier interval as if it had accessed it
   (GPUVerify's barrier-invariant access check). */
#ifdef __cplusplus
SYNCFIX_SPEC void __syncfix_permission(const volatile void *p, unsigned long bytes);
#else
SYNCFIX_OVL void __syncfix_permission(const volatile __global void *p, unsigned long bytes);
SYNCFIX_OVL void __syncfix_permission(const volatile __local void *p, unsigned long bytes);
SYNCFIX_OVL void __syncfix_permission(const volatile __constant void *p, unsigned long bytes);
SYNCFIX_OVL void __syncfix_permission(const volatile void *p, unsigned long bytes);
#endif
#define __SYNCFIX_PICK(_1, _2, F, ...) F
#define __SYNCFIX_FIRST(a) a
#define __SYNCFIX_SECOND(t, a) a
#define __SYNCFIX_LAST(...) __SYNCFIX_PICK(__VA_ARGS__, __SYNCFIX_SECOND, __SYNCFIX_FIRST)(__VA_ARGS__)
#define __read_permission(...) __syncfix_permission(&(__SYNCFIX_LAST(__VA_ARGS__)), sizeof(__SYNCFIX_LAST(__VA_ARGS__)))
#define __write_permission(...) __read_permission(__VA_ARGS__)
#define __no_read(p) (!__read(p))
#define __no_write(p) (!__write(p))
#define __read_implies(p, e) __implies(__read(p), e)
#define __write_implies(p, e) __implies(__write(p), e)
/* Effects of a specified external function (in a __spec_ function). */
#define __reads_from(p) __syncfix_reads_from(p)
#define __writes_to(p) __syncfix_writes_to(p)

/* Barrier invariants: checked at the next barrier, assumed after it with the thread's local id
 * replaced by each instantiation (OpenCL C has no variadic functions: one name per arity). */
SYNCFIX_SPEC void __syncfix_barrier_invariant_1(__syncfix_bool expr, int);
#define __barrier_invariant_1(X, I0) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_1(X, I0))
SYNCFIX_SPEC void __syncfix_barrier_invariant_2(__syncfix_bool expr, int, int);
#define __barrier_invariant_2(X, I0, I1) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_2(X, I0, I1))
SYNCFIX_SPEC void __syncfix_barrier_invariant_3(__syncfix_bool expr, int, int, int);
#define __barrier_invariant_3(X, I0, I1, I2) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_3(X, I0, I1, I2))
SYNCFIX_SPEC void __syncfix_barrier_invariant_4(__syncfix_bool expr, int, int, int, int);
#define __barrier_invariant_4(X, I0, I1, I2, I3) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_4(X, I0, I1, I2, I3))
SYNCFIX_SPEC void __syncfix_barrier_invariant_5(__syncfix_bool expr, int, int, int, int, int);
#define __barrier_invariant_5(X, I0, I1, I2, I3, I4) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_5(X, I0, I1, I2, I3, I4))
SYNCFIX_SPEC void __syncfix_barrier_invariant_6(__syncfix_bool expr, int, int, int, int, int, int);
#define __barrier_invariant_6(X, I0, I1, I2, I3, I4, I5) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_6(X, I0, I1, I2, I3, I4, I5))
SYNCFIX_SPEC void __syncfix_barrier_invariant_7(__syncfix_bool expr, int, int, int, int, int, int, int);
#define __barrier_invariant_7(X, I0, I1, I2, I3, I4, I5, I6) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_7(X, I0, I1, I2, I3, I4, I5, I6))
SYNCFIX_SPEC void __syncfix_barrier_invariant_8(__syncfix_bool expr, int, int, int, int, int, int, int, int);
#define __barrier_invariant_8(X, I0, I1, I2, I3, I4, I5, I6, I7) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_8(X, I0, I1, I2, I3, I4, I5, I6, I7))
SYNCFIX_SPEC void __syncfix_barrier_invariant_9(__syncfix_bool expr, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_9(X, I0, I1, I2, I3, I4, I5, I6, I7, I8) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_9(X, I0, I1, I2, I3, I4, I5, I6, I7, I8))
SYNCFIX_SPEC void __syncfix_barrier_invariant_10(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_10(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_10(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9))
SYNCFIX_SPEC void __syncfix_barrier_invariant_11(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_11(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_11(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10))
SYNCFIX_SPEC void __syncfix_barrier_invariant_12(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_12(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_12(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11))
SYNCFIX_SPEC void __syncfix_barrier_invariant_13(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_13(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_13(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12))
SYNCFIX_SPEC void __syncfix_barrier_invariant_14(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_14(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_14(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13))
SYNCFIX_SPEC void __syncfix_barrier_invariant_15(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_15(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_15(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14))
SYNCFIX_SPEC void __syncfix_barrier_invariant_16(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_16(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_16(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15))
SYNCFIX_SPEC void __syncfix_barrier_invariant_17(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_17(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15, I16) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_17(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15, I16))
SYNCFIX_SPEC void __syncfix_barrier_invariant_18(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_18(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15, I16, I17) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_18(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15, I16, I17))
SYNCFIX_SPEC void __syncfix_barrier_invariant_19(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_19(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15, I16, I17, I18) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_19(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15, I16, I17, I18))
SYNCFIX_SPEC void __syncfix_barrier_invariant_20(__syncfix_bool expr, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int);
#define __barrier_invariant_20(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15, I16, I17, I18, I19) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_20(X, I0, I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14, I15, I16, I17, I18, I19))
SYNCFIX_SPEC void __syncfix_barrier_invariant_binary_1(__syncfix_bool expr, int, int);
#define __barrier_invariant_binary_1(X, I0, I1) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_binary_1(X, I0, I1))
SYNCFIX_SPEC void __syncfix_barrier_invariant_binary_2(__syncfix_bool expr, int, int, int, int);
#define __barrier_invariant_binary_2(X, I0, I1, I2, I3) SYNCFIX_SPEC_CALL(__syncfix_barrier_invariant_binary_2(X, I0, I1, I2, I3))

/* Ghost state (not supported yet by syncfix's lowering: a clear error names them). */
#ifdef __cplusplus
SYNCFIX_SPEC void __array_snapshot(void *dst, void *src);
SYNCFIX_SPEC __syncfix_bool __atomic_has_taken_value(unsigned *atomic_array, unsigned offset, unsigned value);
#else
SYNCFIX_OVL void __array_snapshot(__local void *dst, __local void *src);
SYNCFIX_OVL void __array_snapshot(__global void *dst, __global void *src);
SYNCFIX_OVL __syncfix_bool __atomic_has_taken_value(__local unsigned *atomic_array, size_t offset, unsigned value);
SYNCFIX_OVL __syncfix_bool __atomic_has_taken_value(__global unsigned *atomic_array, size_t offset, unsigned value);
#endif

/* Arithmetic helpers. */
#define SYNCFIX_NOOVFL(T, N)                                                                    \
  SYNCFIX_SPEC T __add_noovfl_##N(T x, T y);                                                    \
  SYNCFIX_SPEC unsigned T __add_noovfl_unsigned_##N(unsigned T x, unsigned T y);
SYNCFIX_NOOVFL(char, char)
SYNCFIX_NOOVFL(short, short)
SYNCFIX_NOOVFL(int, int)
SYNCFIX_NOOVFL(long, long)
#undef SYNCFIX_NOOVFL
/* `__add_noovfl(x, y, ...)`: the sum of the arguments does not overflow (in the first
 * argument's type: signed or unsigned, the first argument of the call says which). */
SYNCFIX_SPEC __syncfix_bool __syncfix_add_noovfl_2(int is_signed, int x, int y);
SYNCFIX_SPEC __syncfix_bool __syncfix_add_noovfl_3(int is_signed, int x, int y, int z);
SYNCFIX_SPEC __syncfix_bool __syncfix_add_noovfl_4(int is_signed, int x, int y, int z, int w);
#define __syncfix_pick(_1, _2, _3, _4, NAME, ...) NAME
#define __syncfix_is_signed(...) __syncfix_is_signed_first(__VA_ARGS__, 0)
#define __syncfix_is_signed_first(x, ...) ((__typeof__(x))(-1) < 0)
#define __add_noovfl(...) __syncfix_pick(__VA_ARGS__, __syncfix_add_noovfl_4, __syncfix_add_noovfl_3, __syncfix_add_noovfl_2, __syncfix_add_noovfl_1)(__syncfix_is_signed(__VA_ARGS__), __VA_ARGS__)

/* `__ite(b, x, y)`: x if b, else y, as one expression (lowered to a select, not a branch, so
 * that an invariant using it stays at its loop head). */
#define SYNCFIX_ITE(T)                                                                          \
  SYNCFIX_OVL T __ite(__syncfix_bool b, T x, T y);                                               \
  SYNCFIX_OVL unsigned T __ite(__syncfix_bool b, unsigned T x, unsigned T y);
SYNCFIX_ITE(char)
SYNCFIX_ITE(short)
SYNCFIX_ITE(int)
SYNCFIX_ITE(long)
#undef SYNCFIX_ITE

/* Axioms: `__axiom(e)` defines a function whose result is assumed at kernel entry. */
#define __syncfix_concat(x, y) x##y
#define __syncfix_axiom_name(x, y) __syncfix_concat(x, y)
#ifdef __cplusplus
#define __axiom(expr)                                                                           \
  extern "C" __attribute__((device)) bool __syncfix_axiom_name(__syncfix_axiom_, __COUNTER__)(void) { return (expr); }
#else
#define __axiom(expr) bool __syncfix_axiom_name(__syncfix_axiom_, __COUNTER__)(void) { return (expr); }
#endif

#endif /* SYNCFIX_ANNOTATIONS_H */
