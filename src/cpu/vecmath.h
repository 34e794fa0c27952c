/* The vector forms of base/narrow.c's exp, sigmoid, tanh and erf (8 f32
 * lanes, AVX2 and FMA: machine.c's pick_simd): the same steps with the same
 * constants, so the same bits;
 * and the 8x8 transpose of 4-byte elements.
 * Written once, as the argument of a macro, for two readers: the executor
 * compiles them (simd.h: VECMATH(VECMATH_CODE)), and the source of every
 * compiled statement carries their text (jit.c: VECMATH(VECMATH_TEXT)),
 * beside the constants printed from the library's own. Comments inside the
 * macro do not reach the text. fm8 puts a NaN lane's NaN back after. */
#ifndef ATHENE_VECMATH_H
#define ATHENE_VECMATH_H

#define VECMATH_CODE(...) __VA_ARGS__
#define VECMATH_TEXT(...) #__VA_ARGS__

#define VECMATH(F) F( \
/* 8x8 transpose of 4-byte elements: o[k] is column k of the 8 src rows \
 * that start at r[0], ..., r[7]. */ \
AVX2_FN static inline __attribute__((always_inline)) void tr8x8_ptr(const char *const *r, __m256 *o) \
{ \
	__m256 r0 = _mm256_loadu_ps((const float *)r[0]), r1 = _mm256_loadu_ps((const float *)r[1]); \
	__m256 r2 = _mm256_loadu_ps((const float *)r[2]), r3 = _mm256_loadu_ps((const float *)r[3]); \
	__m256 r4 = _mm256_loadu_ps((const float *)r[4]), r5 = _mm256_loadu_ps((const float *)r[5]); \
	__m256 r6 = _mm256_loadu_ps((const float *)r[6]), r7 = _mm256_loadu_ps((const float *)r[7]); \
	/* pairs of rows interleaved, then quads: column k of rows 0-3 and 4-7 \
	 * in the two halves of u_k, then the halves put together */ \
	__m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1); \
	__m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3); \
	__m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5); \
	__m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7); \
	__m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE); \
	__m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE); \
	__m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE); \
	__m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE); \
	o[0] = _mm256_permute2f128_ps(u0, u4, 0x20), o[1] = _mm256_permute2f128_ps(u1, u5, 0x20); \
	o[2] = _mm256_permute2f128_ps(u2, u6, 0x20), o[3] = _mm256_permute2f128_ps(u3, u7, 0x20); \
	o[4] = _mm256_permute2f128_ps(u0, u4, 0x31), o[5] = _mm256_permute2f128_ps(u1, u5, 0x31); \
	o[6] = _mm256_permute2f128_ps(u2, u6, 0x31), o[7] = _mm256_permute2f128_ps(u3, u7, 0x31); \
} \
\
/* The same for 8 src rows sp bytes apart from s. */ \
AVX2_FN static inline __attribute__((always_inline)) void tr8x8_4(const char *s, int64_t sp, __m256 *o) \
{ \
	const char *r[8] = {s, s + sp, s + 2 * sp, s + 3 * sp, s + 4 * sp, s + 5 * sp, s + 6 * sp, s + 7 * sp}; \
	tr8x8_ptr(r, o); \
} \
\
/* c[0] + c[1]·x + ... + c[n-1]·x^(n-1) by Horner's rule in f32, a fused \
 * multiply-add a step (polyf) */ \
AVX2_FN static inline __m256 poly8(__m256 x, const float *c, int n) \
{ \
	__m256 p = _mm256_set1_ps(c[n - 1]); \
	_Pragma("GCC unroll 16") for (int k = n - 2; k >= 0; k--) \
		p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(c[k])); \
	return p; \
} \
\
/* 2^k for k in [-126, 127] (pow2f) */ \
AVX2_FN static inline __m256 pow2_8(__m256i k) \
{ \
	return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23)); \
} \
\
/* narrow_exp_core's steps: e^x for x in [-104, 89] */ \
AVX2_FN static inline __m256 exp_steps8(__m256 x) \
{ \
	__m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(NARROW_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); \
	__m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(NARROW_LN2_HI), x); \
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(NARROW_LN2_LO), r); \
	__m256 e = _mm256_fmadd_ps(_mm256_mul_ps(r, r), poly8(r, narrow_exp_c, NARROW_EXP_N), r); \
	e = _mm256_add_ps(e, _mm256_set1_ps(1.0f)); \
	__m256i ni = _mm256_cvtps_epi32(n), n1 = _mm256_cvttps_epi32(_mm256_mul_ps(n, _mm256_set1_ps(0.5f))); \
	return _mm256_mul_ps(_mm256_mul_ps(e, pow2_8(n1)), pow2_8(_mm256_sub_epi32(ni, n1))); \
} \
\
/* narrow_exp_core: exp_steps8, but lanes at NARROW_EXP_LO (-inf and all \
 * below -104, clamped there: a causal mask's) take its value, 0, without \
 * the steps; their subnormal products cost the CPU a slow path (a causal \
 * softmax's exp ran 3x slower). Lanes whose result is subnormal, above \
 * NARROW_EXP_LO, still take every step. No branch: \
 * a branch on which lanes were masked mispredicted along a causal row, and \
 * each miss cost the overlap of the next vectors' steps. */ \
AVX2_FN static inline __m256 exp_core8(__m256 x) \
{ \
	__m256 low = _mm256_cmp_ps(x, _mm256_set1_ps(NARROW_EXP_LO), _CMP_LE_OQ); \
	return _mm256_andnot_ps(low, exp_steps8(_mm256_andnot_ps(low, x))); \
} \
\
AVX2_FN static inline __m256 exp8(__m256 x) \
{ \
	return exp_core8(_mm256_max_ps(_mm256_min_ps(x, _mm256_set1_ps(NARROW_EXP_HI)), _mm256_set1_ps(NARROW_EXP_LO))); \
} \
\
AVX2_FN static inline __m256 sigmoid8(__m256 x) \
{ \
	__m256 m = _mm256_or_ps(x, _mm256_set1_ps(-0.0f)); /* -|x| */ \
	__m256 e = exp_core8(_mm256_max_ps(m, _mm256_set1_ps(NARROW_EXP_LO))); \
	__m256 d = _mm256_add_ps(_mm256_set1_ps(1.0f), e); \
	__m256 neg = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ); \
	return _mm256_div_ps(_mm256_blendv_ps(_mm256_set1_ps(1.0f), e, neg), d); \
} \
\
AVX2_FN static inline __m256 tanh8(__m256 x) \
{ \
	const __m256 one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f); \
	__m256 a = _mm256_andnot_ps(sign, x); \
	__m256 lo = _mm256_cmp_ps(a, _mm256_set1_ps(NARROW_TANH_SMALL), _CMP_LT_OQ); \
	int m = _mm256_movemask_ps(lo); \
	__m256 small = _mm256_setzero_ps(), big = _mm256_setzero_ps(); \
	if (m) { \
		__m256 u = _mm256_mul_ps(a, a); \
		small = _mm256_fmadd_ps(a, _mm256_mul_ps(u, poly8(u, narrow_tanh_c, NARROW_TANH_N)), a); \
	} \
	if (m != 0xff) { \
		__m256 e = exp_core8(_mm256_min_ps(_mm256_add_ps(a, a), _mm256_set1_ps(NARROW_EXP_HI))); \
		big = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one))); \
	} \
	return _mm256_or_ps(_mm256_blendv_ps(big, small, lo), _mm256_and_ps(sign, x)); \
} \
\
/* erf: a vector whose lanes all lie below 1 (most of a GELU's in a model: \
 * a linear layer's outputs times 1/sqrt(2)) takes the first piece alone; \
 * else the pieces below 3 are evaluated on every lane and blended, with no \
 * branch (inputs spread wider put most vectors across two or three of \
 * them, and a branch per piece mispredicted: a GELU of 16,384 floats 43 -> \
 * 27 us, compiled, one thread); the piece from 3 to 4, which few lanes \
 * reach, only when one does. Each lane takes the same steps as \
 * narrow_erf's. The first piece alone: a GELU of 16,384 floats of N(0, \
 * 0.58) 28 -> 13-16 us, and 28 -> 32 where lanes of N(0, 1.5) or of \
 * [-3, 3] mix the pieces (a test loop, one thread, a Zen 3). */ \
AVX2_FN static inline __m256 erf8(__m256 x) \
{ \
	const __m256 sign = _mm256_set1_ps(-0.0f); \
	__m256 a = _mm256_andnot_ps(sign, x), q = _mm256_set1_ps(1.0f); \
	__m256 b1 = _mm256_cmp_ps(a, _mm256_set1_ps(1.0f), _CMP_LT_OQ); \
	__m256 p0 = _mm256_fmadd_ps(a, poly8(_mm256_mul_ps(a, a), narrow_erf0_c, NARROW_ERF0_N), a); \
	if (_mm256_movemask_ps(b1) == 0xff) \
		return _mm256_or_ps(p0, _mm256_and_ps(sign, x)); \
	__m256 b2 = _mm256_cmp_ps(a, _mm256_set1_ps(2.0f), _CMP_LT_OQ); \
	__m256 b3 = _mm256_cmp_ps(a, _mm256_set1_ps(3.0f), _CMP_LT_OQ), b4 = _mm256_cmp_ps(a, _mm256_set1_ps(4.0f), _CMP_LT_OQ); \
	__m256 p1 = poly8(_mm256_sub_ps(a, _mm256_set1_ps(1.5f)), narrow_erf1_c, NARROW_ERF1_N); \
	__m256 p2 = poly8(_mm256_sub_ps(a, _mm256_set1_ps(2.5f)), narrow_erf2_c, NARROW_ERF2_N); \
	if (_mm256_movemask_ps(_mm256_andnot_ps(b3, b4))) \
		q = _mm256_blendv_ps(q, poly8(_mm256_sub_ps(a, _mm256_set1_ps(3.5f)), narrow_erf3_c, NARROW_ERF3_N), b4); \
	q = _mm256_blendv_ps(q, p2, b3); \
	q = _mm256_blendv_ps(q, p1, b2); \
	q = _mm256_blendv_ps(q, p0, b1); \
	return _mm256_or_ps(q, _mm256_and_ps(sign, x)); \
} \
\
/* f8 of x, a NaN lane keeping its NaN (narrow.c's functions give x) */ \
AVX2_FN static inline __attribute__((always_inline)) __m256 fm8(__m256 (*f8)(__m256), __m256 x) \
{ \
	return _mm256_blendv_ps(f8(x), x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q)); \
} \
)

#endif
