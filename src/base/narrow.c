/* exp, sigmoid, tanh and erf of the narrow floats (f32, f16, bf16): athene's
 * own short formulas (docs/language.md, "Functions"), whose result val_op
 * rounds to the result dtype, computed in f32 arithmetic: at most 1 unit
 * in the last place of f32 from libm's double rounded to f32 (sigmoid 2).
 * Every step is one IEEE operation (a multiply, an add, a fused
 * multiply-add rounded once (C's fmaf), a divide, a rounding to an integer,
 * a power of two put together in the exponent bits), so the executor's
 * vector forms (cpu/vecmath.h), which take the same steps in the same order,
 * give the same bits, several times faster than libm's double rounded to
 * float. f64 keeps libm's functions (val_fop1).
 *
 * The polynomials were fitted in 50-digit arithmetic (mpmath's chebyfit)
 * and rounded to f32; the bounds above were measured on every 251st f32
 * pattern (stage_test; exp and sigmoid once on all of them), whose results
 * equal libm's rounded double but for 0.4 % of them (exp), 0.15 % (tanh),
 * 3 % (sigmoid) and 3 % (erf). */
#include <math.h>
#include <string.h>

#include "base.h"

/* (e^r - 1 - r) / r^2 for |r| <= ln 2 / 2 */
const float narrow_exp_c[NARROW_EXP_N] = {0.5f, 0.1666666716337204f, 0.041666463017463684f, 0.00833331048488617f,
					  0.0013933662557974458f, 0.00019891005649697036f};
/* (tanh(a) / a - 1) / u in u = a^2 on [0, 0.625^2] */
const float narrow_tanh_c[NARROW_TANH_N] = {-0.333333283662796f, 0.1333276927471161f, -0.05385090783238411f,
					    0.020997179672122f, -0.006096714176237583f};
/* erf in pieces of a = |x|: (erf(a) / a - 1) in u = a^2 on [0, 1] (a < 1),
 * then erf itself in a - 1.5, a - 2.5, a - 3.5 on [1, 2), [2, 3), [3, 4),
 * each constant term erf at the middle rounded to f32 and the others
 * fitted to what it leaves */
const float narrow_erf0_c[NARROW_ERF0_N] = {0.12837916612625122f, -0.37612637877464294f, 0.11283782124519348f,
					    -0.026865430176258087f, 0.005221031606197357f, -0.0008484080317430198f,
					    0.00011265958892181516f, -9.667044650996104e-06f};
const float narrow_erf1_c[NARROW_ERF1_N] = {0.9661051630973816f, 0.11893028765916824f, -0.1783963143825531f,
					    0.1387520432472229f, -0.044586483389139175f, -0.01486807782202959f,
					    0.01926409639418125f, -0.004717159550637007f, -0.002278426196426153f,
					    0.0015705132391303778f};
const float narrow_erf2_c[NARROW_ERF2_N] = {0.9995930194854736f, 0.002178291790187359f, -0.0054420651867985725f,
					    0.00834912434220314f, -0.008695046417415142f, 0.006136669311672449f,
					    -0.0023372580762952566f, 0.000418379670009017f, -0.0006361299310810864f};
const float narrow_erf3_c[NARROW_ERF3_N] = {0.9999992847442627f, 5.4306674428517e-06f, -2.0920217139064334e-05f,
					    4.005374648841098e-05f, -4.5072967623127624e-05f, 0.00010556544293649495f,
					    -0.00014809012645855546f};

/* c[0] + c[1] x + ... + c[n-1] x^(n-1) by Horner's rule, a fused
 * multiply-add a step */
static float polyf(float x, const float *c, int n)
{
	float p = c[n - 1];
	for (int k = n - 2; k >= 0; k--)
		p = fmaf(p, x, c[k]);
	return p;
}

/* 2^k for k in [-126, 127] */
static float pow2f(int k)
{
	uint32_t b = (uint32_t)(k + 127) << 23;
	float f;
	memcpy(&f, &b, sizeof f);
	return f;
}

/* e^x for x in [NARROW_EXP_LO, NARROW_EXP_HI] ([-104, 89]: e^89 overflows
 * f32 and e^-104 is below half its least subnormal, so each rounds as e^x
 * would beyond): n = rint(x log2 e), r = x - n ln 2 with ln 2 in two parts
 * (n times the first, of 9 bits, is exact), e^r = 1 + (r + r^2 P(r)), times
 * 2^n in two factors 2^n1 2^n2 (n1 = n / 2 truncated), the first product
 * exact, so a subnormal result is rounded once. */
float narrow_exp_core(float x)
{
	float n = rintf(x * NARROW_LOG2E);
	float r = fmaf(-n, NARROW_LN2_HI, x);
	r = fmaf(-n, NARROW_LN2_LO, r);
	float e = r * r;
	e = fmaf(e, polyf(r, narrow_exp_c, NARROW_EXP_N), r);
	e = e + 1.0f;
	int ni = (int)n, n1 = (int)(n * 0.5f);
	e = e * pow2f(n1);
	return e * pow2f(ni - n1);
}

float narrow_exp(float x)
{
	return isnan(x) ? x : narrow_exp_core(x < NARROW_EXP_LO ? NARROW_EXP_LO : x > NARROW_EXP_HI ? NARROW_EXP_HI : x);
}

bool narrow_fn(int op)
{
	return op == OP_EXP || op == OP_SIGMOID || op == OP_TANH || op == OP_ERF;
}

/* e = e^-|x|: 1 / (1 + e) for x >= 0, e / (1 + e) below (no overflow) */
float narrow_sigmoid(float x)
{
	if (isnan(x))
		return x;
	float e = narrow_exp_core(fmaxf(-fabsf(x), NARROW_EXP_LO)), d = 1.0f + e;
	return x >= 0 ? 1.0f / d : e / d;
}

/* a = |x|: a + a u P(u) (u = a^2) below 0.625, else 1 - 2 / (e^2a + 1);
 * x's sign */
float narrow_tanh(float x)
{
	if (isnan(x))
		return x;
	float a = fabsf(x), q;
	if (a < NARROW_TANH_SMALL) {
		float u = a * a;
		q = u * polyf(u, narrow_tanh_c, NARROW_TANH_N);
		q = fmaf(a, q, a);
	} else {
		float e = narrow_exp_core(fminf(a + a, NARROW_EXP_HI));
		q = 2.0f / (e + 1.0f);
		q = 1.0f - q;
	}
	return copysignf(q, x);
}

/* In f32, a = |x|: a + a P(a^2) below 1, erf's polynomial of its piece
 * below 4, else 1 (erf(4) is within 2^-26 of 1: every narrow float rounds
 * it to 1); x's sign */
float narrow_erf(float x)
{
	if (isnan(x))
		return x;
	float a = fabsf(x), q;
	if (a < 1.0f) {
		q = fmaf(a, polyf(a * a, narrow_erf0_c, NARROW_ERF0_N), a);
	} else if (a < 2.0f) {
		q = polyf(a - 1.5f, narrow_erf1_c, NARROW_ERF1_N);
	} else if (a < 3.0f) {
		q = polyf(a - 2.5f, narrow_erf2_c, NARROW_ERF2_N);
	} else if (a < 4.0f) {
		q = polyf(a - 3.5f, narrow_erf3_c, NARROW_ERF3_N);
	} else {
		q = 1.0f;
	}
	return copysignf(q, x);
}
