/* The semantics of one value: what every op of the language computes on
 * scalars of each dtype, value conversions, reductions' running states and
 * Python-semantics integer arithmetic. This is the definition the reference
 * interpreter, the native executor and the body IR's constant folding all
 * evaluate with; tests/test_scalar.py checks it against NumPy on the edge
 * values of every op and dtype.
 *
 * Floats are held as doubles already rounded to their dtype (f16, bf16 and
 * f32 arithmetic is rounded after every op); integers as int64 wrapped to
 * their dtype. */
#define _DEFAULT_SOURCE /* lgamma_r: lgamma writes the global signgam, and threads call this */
#include <math.h>
#include <string.h>

#include "base.h"

int int_op(int op, int64_t a, int64_t b, int64_t *out)
{
	switch (op) {
	case OP_NEG:
		return a == INT64_MIN ? SYM_EOVF : (*out = -a, SYM_OK);
	case OP_ADD:
		return __builtin_add_overflow(a, b, out) ? SYM_EOVF : SYM_OK;
	case OP_SUB:
		return __builtin_sub_overflow(a, b, out) ? SYM_EOVF : SYM_OK;
	case OP_MUL:
		return __builtin_mul_overflow(a, b, out) ? SYM_EOVF : SYM_OK;
	case OP_FLOORDIV:
	case OP_MOD:
		if (b == 0)
			return SYM_EDIV0;
		if (a == INT64_MIN && b == -1)
			return op == OP_MOD ? (*out = 0, SYM_OK) : SYM_EOVF;
		*out = op == OP_MOD ? floormod64(a, b) : floordiv64(a, b);
		return SYM_OK;
	}
	die("int_op: not an integer index op");
}

int64_t floordiv64(int64_t a, int64_t d)
{
	int64_t q = a / d;
	if ((a % d != 0) && ((a < 0) != (d < 0)))
		q--;
	return q;
}

int64_t floormod64(int64_t a, int64_t d)
{
	int64_t r = a % d;
	if (r != 0 && ((r < 0) != (d < 0)))
		r += d;
	return r;
}

int64_t gcd64(int64_t a, int64_t b)
{
	uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = b < 0 ? -(uint64_t)b : (uint64_t)b;
	while (y) {
		uint64_t r = x % y;
		x = y;
		y = r;
	}
	return x > INT64_MAX ? 0 : (int64_t)x;
}

bool val_truth(Val v, DType t)
{
	return dt_is_float(t) ? v.f != 0 : v.i != 0;
}

/* Is x a new best for argmax/argmin/max/min (NaN wins, first occurrence)? */
static bool better(const Red *r, Val x, bool maxi)
{
	if (!r->count)
		return true;
	if (dt_is_float(r->bt)) {
		if (isnan(r->f))
			return false;
		return isnan(x.f) || (maxi ? x.f > r->f : x.f < r->f);
	}
	return maxi ? x.i > r->i : x.i < r->i;
}

static Val cmp(int op, Val a, Val b, DType t)
{
	int r;
	if (dt_is_float(t)) {
		double x = a.f, y = b.f;
		r = op == OP_EQ ? x == y : op == OP_NE ? x != y : op == OP_LT ? x < y : op == OP_LE ? x <= y : op == OP_GT ? x > y : x >= y;
	} else {
		int64_t x = a.i, y = b.i;
		r = op == OP_EQ ? x == y : op == OP_NE ? x != y : op == OP_LT ? x < y : op == OP_LE ? x <= y : op == OP_GT ? x > y : x >= y;
	}
	return (Val){.i = r};
}

static double float_floordiv(double a, double b, double *modp)
{
	if (b == 0) {
		*modp = NAN;
		return a / b;
	}
	double mod = fmod(a, b), div = (a - mod) / b;
	if (mod != 0) {
		if ((b < 0) != (mod < 0)) {
			mod += b;
			div -= 1.0;
		}
	} else {
		mod = copysign(0.0, b);
	}
	double fd;
	if (div != 0) {
		fd = floor(div);
		if (div - fd > 0.5)
			fd += 1.0;
	} else {
		fd = copysign(0.0, a / b);
	}
	*modp = mod;
	return fd;
}

static double digamma(double x);

static double fop2(int op, double a, double b)
{
	double m;
	switch (op) {
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_MUL: return a * b;
	case OP_DIV: return a / b;
	case OP_FLOORDIV: return float_floordiv(a, b, &m);
	case OP_MOD: return float_floordiv(a, b, &m), m;
	case OP_POW: return pow(a, b);
	case OP_MIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
	case OP_MAX: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
	case OP_ATAN2: return atan2(a, b);
	case OP_HYPOT: return hypot(a, b);
	case OP_IGAMMA: return sf_igamma(a, b);
	case OP_IGAMMAC: return sf_igammac(a, b);
	case OP_POLYGAMMA: return a == 0 ? digamma(b) : sf_polygamma(a, b);
	case OP_ZETA: return sf_zeta(a, b);
	}
	die("bad float op");
}

static int64_t iop1(int op, int64_t x)
{
	switch (op) {
	case OP_NEG: return (int64_t)(0 - (uint64_t)x);
	case OP_ABS: return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
	case OP_SIGN: return (x > 0) - (x < 0);
	case OP_RELU: return x > 0 ? x : 0;
	case OP_FLOOR:
	case OP_CEIL:
	case OP_ROUND:
	case OP_TRUNC: return x;
	}
	die("bad int op");
}

static int64_t ipow(int64_t x, int64_t y)
{
	if (y < 0)
		return x == 1 ? 1 : x == -1 ? (y & 1 ? -1 : 1) : 0;
	uint64_t r = 1, b = (uint64_t)x;
	while (y) {
		if (y & 1)
			r *= b;
		b *= b;
		y >>= 1;
	}
	return (int64_t)r;
}

static int64_t iop2(int op, int64_t a, int64_t b)
{
	uint64_t x = (uint64_t)a, y = (uint64_t)b;
	switch (op) {
	case OP_ADD: return (int64_t)(x + y);
	case OP_SUB: return (int64_t)(x - y);
	case OP_MUL: return (int64_t)(x * y);
	case OP_FLOORDIV: return b == 0 ? 0 : (a == INT64_MIN && b == -1) ? a : floordiv64(a, b);
	case OP_MOD: return b == 0 || b == -1 ? 0 : floormod64(a, b);
	case OP_POW: return ipow(a, b);
	case OP_MIN: return a < b ? a : b;
	case OP_MAX: return a > b ? a : b;
	}
	die("bad int op");
}

/* erfinv(y) in double: Giles' single-precision approximation ("Approximating
 * the erfinv function", GPU Computing Gems, 2011), then Newton steps on
 * erf(x) - y, on erfc(x) - (1 - |y|) where |y| > 0.5 (1 - |y| is exact
 * there, and erf(x) near 1 would lose it). */
static double erfinv(double y)
{
	if (isnan(y) || y < -1 || y > 1)
		return NAN;
	if (y == 1 || y == -1)
		return copysign(INFINITY, y);
	if (y == 0)
		return y;
	double a = fabs(y), w = -log((1 - a) * (1 + a)), p;
	if (w < 5) {
		w -= 2.5;
		p = 2.81022636e-08;
		p = 3.43273939e-07 + p * w;
		p = -3.5233877e-06 + p * w;
		p = -4.39150654e-06 + p * w;
		p = 0.00021858087 + p * w;
		p = -0.00125372503 + p * w;
		p = -0.00417768164 + p * w;
		p = 0.246640727 + p * w;
		p = 1.50140941 + p * w;
	} else {
		w = sqrt(w) - 3;
		p = -0.000200214257;
		p = 0.000100950558 + p * w;
		p = 0.00134934322 + p * w;
		p = -0.00367342844 + p * w;
		p = 0.00573950773 + p * w;
		p = -0.0076224613 + p * w;
		p = 0.00943887047 + p * w;
		p = 1.00167406 + p * w;
		p = 2.83297682 + p * w;
	}
	double x = p * a;
	for (int i = 0; i < 3; i++) {
		double d = 2 / sqrt(M_PI) * exp(-x * x); /* erf'(x) */
		double r = a > 0.5 ? -(erfc(x) - (1 - a)) : erf(x) - a;
		if (d == 0 || !isfinite(r / d))
			break;
		x -= r / d;
	}
	return copysign(x, y);
}

/* digamma(x), Cephes' psi as PyTorch's CPU kernel computes it: 0 gives
 * -inf (-0.0: +inf), negative integers and -inf NaN, negative x the
 * reflection psi(1 - x) - pi / tan(pi x), then the recurrence up to 10 and
 * the asymptotic series. */
static double digamma(double x)
{
	static const double A[] = {8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
	                           -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
	                           8.33333333333333333333E-2};
	if (x == 0)
		return copysign(INFINITY, -x);
	if (x < 0) {
		if (x == trunc(x))
			return NAN;
		double q, r = modf(x, &q);
		return digamma(1 - x) - M_PI / tan(M_PI * r);
	}
	double res = 0;
	while (x < 10) {
		res -= 1 / x;
		x += 1;
	}
	if (x == 10)
		return res + 2.25175258906672110764;
	double y = 0;
	if (x < 1.0e17) {
		double z = 1 / (x * x), p = A[0];
		for (int i = 1; i < 7; i++)
			p = p * z + A[i];
		y = z * p;
	}
	return res + log(x) - 0.5 / x - y;
}

static double lgamma1(double x)
{
	int sign;
	return lgamma_r(x, &sign);
}

/* The next value of float dtype t after a toward b, on the bits (f16 and
 * bf16 have no libm function). */
static double nextafter_dt(DType t, double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return b;
	if (t == ATHENE_F64)
		return nextafter(a, b);
	uint64_t u = 0;
	dt_store_f(&u, t, 0, a);
	uint64_t sign = (uint64_t)1 << (dt_bits(t) - 1);
	if (a == 0)
		u = 1 | (b < 0 ? sign : 0); /* the smallest subnormal toward b */
	else if ((a < b) == (a > 0))
		u++; /* away from zero */
	else
		u--;
	return dt_load_f(&u, t, 0);
}

/* x << c and x >> c at integer dtype t (x and c of t), as PyTorch computes
 * them on the CPU: a count outside [0, bits of t) shifts every bit out, so
 * << gives 0 and >> the sign (-1 for a negative x, else 0); >> is
 * arithmetic (floor division by 2^c), << wraps. */
static int64_t shift(int op, DType t, int64_t x, int64_t c)
{
	if (c < 0 || c >= dt_bits(t))
		return op == OP_SHL || x >= 0 ? 0 : -1;
	return op == OP_SHL ? (int64_t)((uint64_t)x << c) : x >> c;
}

static int64_t bitop(int op, DType t, int64_t a, int64_t b)
{
	switch (op) {
	case OP_BAND: return a & b;
	case OP_BOR: return a | b;
	case OP_BXOR: return a ^ b;
	case OP_BNOT: return t == ATHENE_BOOL ? !a : ~a;
	}
	return shift(op, t, a, b);
}

Val val_bitcast(Val v, DType from, DType to)
{
	uint64_t u = 0;
	if (dt_is_float(from))
		dt_store_f(&u, from, 0, v.f);
	else
		dt_store_i(&u, from, 0, v.i);
	return dt_is_float(to) ? (Val){.f = dt_load_f(&u, to, 0)} : (Val){.i = dt_load_i(&u, to, 0)};
}

/* astype: float -> int truncates toward zero and saturates at the target's
 * range (NaN -> 0); float -> bool is x != 0. */
Val val_convert(Val v, DType from, DType to)
{
	if (dt_is_float(to))
		return (Val){.f = dt_is_float(from) ? dt_round_float(to, v.f) : dt_i2f(to, v.i)};
	if (dt_is_float(from))
		return (Val){.i = to == ATHENE_BOOL ? v.f != 0 : dt_saturate(to, dt_f2i(v.f))};
	return (Val){.i = dt_wrap_int(to, v.i)};
}

double val_fop1(int op, double x)
{
	if (op >= OP_I0 && op <= OP_SPHERICAL_J0)
		return val_bessel(op, x);
	switch (op) {
	case OP_NEG: return -x;
	case OP_ABS: return fabs(x);
	case OP_SIGN: return isnan(x) ? x : (x > 0) - (x < 0);
	case OP_RELU: return isnan(x) || x > 0 ? x : 0.0;
	case OP_FLOOR: return floor(x);
	case OP_CEIL: return ceil(x);
	case OP_ROUND: return nearbyint(x);
	case OP_TRUNC: return trunc(x);
	case OP_EXP: return exp(x);
	case OP_EXP2: return exp2(x);
	case OP_LOG: return log(x);
	case OP_LOG2: return log2(x);
	case OP_LOG1P: return log1p(x);
	case OP_EXPM1: return expm1(x);
	case OP_SQRT: return sqrt(x);
	case OP_RSQRT: return 1.0 / sqrt(x);
	case OP_SIN: return sin(x);
	case OP_COS: return cos(x);
	case OP_TAN: return tan(x);
	case OP_TANH: return tanh(x);
	case OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
	case OP_ERF: return erf(x);
	case OP_ERFINV: return erfinv(x);
	case OP_LGAMMA: return lgamma1(x);
	case OP_DIGAMMA: return digamma(x);
	case OP_FREXP_MANTISSA: return sf_frexp_mantissa(x);
	case OP_ERFCX: return sf_erfcx(x);
	case OP_NDTRI: return sf_ndtri(x);
	case OP_AIRY_AI: return sf_airy_ai(x);
	}
	die("bad float op");
}

double val_fop1_narrow(int op, double x)
{
	switch (op) {
	case OP_EXP: return narrow_exp((float)x);
	case OP_SIGMOID: return narrow_sigmoid((float)x);
	case OP_TANH: return narrow_tanh((float)x);
	case OP_ERF: return narrow_erf((float)x);
	default: return val_fop1(op, x);
	}
}

Val val_op(int op, DType t, const Val *v)
{
	const struct OpInfo *oi = &op_info[op];
	if (oi->kind == K_LOGIC)
		return (Val){.i = op == OP_NOT ? !v[0].i : op == OP_AND ? v[0].i && v[1].i : v[0].i || v[1].i};
	if (oi->kind == K_PRED)
		return (Val){.i = !dt_is_float(t) ? 0 : op == OP_ISNAN ? isnan(v[0].f) != 0 : isinf(v[0].f) != 0};
	if (oi->kind == K_CMP)
		return cmp(op, v[0], v[1], t);
	if (oi->kind == K_BIT || oi->kind == K_SHIFT)
		return (Val){.i = dt_wrap_int(t, bitop(op, t, v[0].i, oi->arity == 2 ? v[1].i : 0))};
	if (op == OP_FREXP_EXPONENT) /* t is the operand's float dtype, the result i32 */
		return (Val){.i = sf_frexp_exponent(v[0].f)};
	if (op == OP_NEXTAFTER)
		return (Val){.f = dt_is_float(t) ? nextafter_dt(t, v[0].f, v[1].f) : NAN};
	if (op >= OP_CHEBYSHEV_T && op <= OP_LEGENDRE_P)
		return (Val){.f = dt_round_float(t, val_polynomial(op, t, v[0].f, v[1].f))};
	if (op == OP_WHERE)
		return v[0].i ? v[1] : v[2];
	if (op == OP_WRAP)
		return (Val){.i = dt_wrap_int(t, v[0].i < 0 ? (int64_t)((uint64_t)v[0].i + (uint64_t)v[1].i) : v[0].i)};
	if (op == OP_CLAMP) {
		if (dt_is_float(t))
			return (Val){.f = fop2(OP_MIN, fop2(OP_MAX, v[0].f, v[1].f), v[2].f)};
		return (Val){.i = iop2(OP_MIN, iop2(OP_MAX, v[0].i, v[1].i), v[2].i)};
	}
	if (dt_is_float(t))
		return (Val){.f = dt_round_float(t, oi->arity == 2 ? fop2(op, v[0].f, v[1].f) :
						  t == ATHENE_F64 ? val_fop1(op, v[0].f) : val_fop1_narrow(op, v[0].f))};
	return (Val){.i = dt_wrap_int(t, oi->arity == 1 ? iop1(op, v[0].i) : iop2(op, v[0].i, v[1].i))};
}

void red_init(Red *r, int op, DType bt)
{
	memset(r, 0, sizeof *r);
	r->op = op;
	r->bt = bt;
	if (op == R_PROD)
		r->f = 1, r->i = 1;
	if (op == R_ALL)
		r->i = 1;
}

void red_step(Red *r, Val x)
{
	bool fl = dt_is_float(r->bt);
	switch (r->op) {
	case R_SUM:
	case R_MEAN:
		if (fl) r->f += x.f;
		else r->i = (int64_t)((uint64_t)r->i + (uint64_t)x.i);
		break;
	case R_PROD:
		if (fl) r->f *= x.f;
		else r->i = (int64_t)((uint64_t)r->i * (uint64_t)x.i);
		break;
	case R_MAX:
	case R_MIN:
	case R_ARGMAX:
	case R_ARGMIN:
		if (better(r, x, r->op == R_MAX || r->op == R_ARGMAX)) {
			r->f = x.f;
			r->i = x.i;
			r->arg = r->count;
		}
		break;
	case R_ANY: r->i |= val_truth(x, r->bt); break;
	case R_ALL: r->i &= val_truth(x, r->bt); break;
	}
	r->count++;
}

bool red_result(const Red *r, DType dt, Val *out)
{
	bool fl = dt_is_float(r->bt);
	if (!r->count && (r->op == R_MAX || r->op == R_MIN || r->op == R_ARGMAX || r->op == R_ARGMIN))
		return false;
	switch (r->op) {
	case R_MEAN:
		if (!r->count)
			*out = (Val){.f = NAN};
		else
			*out = (Val){.f = fl ? dt_round_float(dt, r->f / (double)r->count) : dt_ratio_to_float(dt, r->i, r->count)};
		return true;
	case R_ARGMAX:
	case R_ARGMIN:
		*out = (Val){.i = r->arg};
		return true;
	case R_ANY:
	case R_ALL:
		*out = (Val){.i = r->i};
		return true;
	}
	if (dt_is_float(dt))
		*out = (Val){.f = fl ? dt_round_float(dt, r->f) : dt_i2f(dt, r->i)};
	else
		*out = (Val){.i = dt_wrap_int(dt, r->i)};
	return true;
}
