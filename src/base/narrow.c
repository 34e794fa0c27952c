/* exp, sigmoid, tanh and erf of the narrow floats (f32, f16, bf16): athene's
 * own short formulas (docs/language.md, "Functions"), whose result val_op
 * rounds to the result dtype. exp, sigmoid and tanh are computed in f32
 * arithmetic, at most 1 unit in the last place of f32 from libm's double
 * rounded to f32 (sigmoid 2); erf in double, with e^-x^2 from the f32 exp,
 * at most 1. Every step is one IEEE operation (a multiply, an add, a divide, a
 * rounding to an integer, a power of two put together in the exponent
 * bits; no fused multiply-add), so the executor's vector forms (cpu/pw.c),
 * which take the same steps in the same order, give the same bits, several
 * times faster than libm's double rounded to float. f64 keeps libm's
 * functions (val_fop1).
 *
 * The polynomials were fitted in 50-digit arithmetic (mpmath's chebyfit)
 * and rounded to the format they are evaluated in; the bounds above were
 * measured on every f32 (stage_test checks every 251st), whose results
 * equal libm's rounded double but for 0.4 % of them (exp), 0.15 % (tanh),
 * 3 % (sigmoid) and 0.0005 % (erf). */
#include <math.h>
#include <string.h>

#include "base.h"

/* (e^r - 1 - r) / r^2 for |r| <= ln 2 / 2 */
const float narrow_exp_c[NARROW_EXP_N] = {0.5f, 0.1666666716337204f, 0.041666463017463684f, 0.00833331048488617f,
					  0.0013933662557974458f, 0.00019891005649697036f};
/* (tanh(a) / a - 1) / u in u = a^2 on [0, 0.625^2] */
const float narrow_tanh_c[NARROW_TANH_N] = {-0.333333283662796f, 0.1333276927471161f, -0.05385090783238411f,
					    0.020997179672122f, -0.006096714176237583f};
/* erf(a) / a in v = a^2 - 2 on [-2, 2] (a < 2): a times it within 2^-41
 * of erf */
const double narrow_erf_lo_c[NARROW_ERF_LO_N] = {
	0.6749332360398007, -0.13055593046563163, 0.029869784648894202, -0.006082847180924954,
	0.0010705215500029486, -0.00016358987075707968, 2.1954532129733733e-05, -2.6183075417512413e-06,
	2.804879099277154e-07, -2.7239752189316855e-08, 2.4122208877712104e-09, -1.9717255795163909e-10,
	1.5940304792560102e-11, -1.1135555084236513e-12};
/* erfcx(a) = e^(a^2) erfc(a) in w = a - 3 on [-1, 1] (2 <= a < 4), within
 * 2^-33 */
const double narrow_erf_hi_c[NARROW_ERF_HI_N] = {
	0.17900115118138996, -0.05437226082750891, 0.01588437134380639, -0.004479414652149056,
	0.0012230353824378567, -0.00032421661405247293, 8.357456550238927e-05, -2.0783956920239128e-05,
	5.1003227571248005e-06, -1.4332136568157824e-06, 3.341543348951629e-07};

/* c[0] + c[1] x + ... + c[n-1] x^(n-1) by Horner's rule, a multiply and an
 * add a step, in f32 and in double */
static float polyf(float x, const float *c, int n)
{
	float p = c[n - 1];
	for (int k = n - 2; k >= 0; k--) {
		p = p * x;
		p = p + c[k];
	}
	return p;
}

static double polyd(double x, const double *c, int n)
{
	double p = c[n - 1];
	for (int k = n - 2; k >= 0; k--) {
		p = p * x;
		p = p + c[k];
	}
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
 * (n times the first, of 9 bits, is exact), e^r = 1 + r + r^2 P(r), times
 * 2^n in two factors 2^n1 2^n2 (n1 = n / 2 truncated), the first product
 * exact, so a subnormal result is rounded once. */
float narrow_exp_core(float x)
{
	float n = rintf(x * NARROW_LOG2E);
	float r = x - n * NARROW_LN2_HI;
	r = r - n * NARROW_LN2_LO;
	float e = r * r;
	e = e * polyf(r, narrow_exp_c, NARROW_EXP_N);
	e = e + r;
	e = e + 1.0f;
	int ni = (int)n, n1 = (int)(n * 0.5f);
	e = e * pow2f(n1);
	return e * pow2f(ni - n1);
}

float narrow_exp(float x)
{
	return isnan(x) ? x : narrow_exp_core(x < NARROW_EXP_LO ? NARROW_EXP_LO : x > NARROW_EXP_HI ? NARROW_EXP_HI : x);
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
		q = a * q;
		q = a + q;
	} else {
		float e = narrow_exp_core(fminf(a + a, NARROW_EXP_HI));
		q = 2.0f / (e + 1.0f);
		q = 1.0f - q;
	}
	return copysignf(q, x);
}

/* In double, a = |x|: a P(a^2 - 2) below 2 (a^2 is exact), 1 - e^-a^2
 * Q(a - 3) below 4, e^-a^2 narrow_exp_core's of -a^2 rounded to f32 (its
 * error times erfc(a) < 0.005 stays far below f32's unit at 1), else 1
 * (erf(4) is within 2^-26 of 1: every narrow float rounds it to 1); x's
 * sign. */
double narrow_erf(double x)
{
	if (isnan(x))
		return x;
	double a = fabs(x), u = a * a, q;
	if (a < 2.0) {
		q = a * polyd(u - 2.0, narrow_erf_lo_c, NARROW_ERF_LO_N);
	} else if (a < 4.0) {
		q = (double)narrow_exp_core((float)-u) * polyd(a - 3.0, narrow_erf_hi_c, NARROW_ERF_HI_N);
		q = 1.0 - q;
	} else {
		q = 1.0;
	}
	return copysign(q, x);
}
