/* Dtypes: names, sizes, promotion, and element conversion with NumPy's
 * rules, including f16 and bf16 rounded to nearest even. */
#include <math.h>
#include <string.h>

#include "base.h"

const DTypeInfo dtype_info[ATHENE_NDTYPES] = {
#define DT(e, name, bytes, cls, npy, jnp) [e] = {name, bytes, cls, npy, jnp},
#include "dtypes.h"
#undef DT
};
/* a row per dtype, no more, no fewer */
#define DT(e, name, bytes, cls, npy, jnp) +1
_Static_assert(0
#include "dtypes.h"
                   == ATHENE_NDTYPES,
               "dtypes.h has a row per athene_dtype");
#undef DT

const char *athene_dtype_name(athene_dtype t)
{
	return (unsigned)t < ATHENE_NDTYPES ? dtype_info[t].name : "?";
}

size_t athene_dtype_size(athene_dtype t)
{
	return (unsigned)t < ATHENE_NDTYPES ? dtype_info[t].size : 0;
}

int athene_dtype_from_name(const char *name, athene_dtype *out)
{
	for (int i = 0; i < ATHENE_NDTYPES; i++)
		if (!strcmp(name, dtype_info[i].name)) {
			*out = (athene_dtype)i;
			return 0;
		}
	return -1;
}

bool dt_is_float(DType t)
{
	return dtype_info[t].cls == DC_FLOAT;
}

bool dt_is_int(DType t)
{
	return dtype_info[t].cls == DC_SINT || dtype_info[t].cls == DC_UINT;
}

bool dt_is_signed(DType t)
{
	return dtype_info[t].cls == DC_SINT;
}

int dt_bits(DType t)
{
	return (int)athene_dtype_size(t) * 8;
}

static DType signed_of_bits(int bits)
{
	return bits <= 8 ? ATHENE_I8 : bits <= 16 ? ATHENE_I16 : bits <= 32 ? ATHENE_I32 : ATHENE_I64;
}

/* bool < integers < floats; within floats the wider wins and f16 with bf16
 * gives f32 (PyTorch); u8 with a signed type needs a signed type twice as
 * wide (NumPy), capped at i64. An integer with a float gives the float
 * (PyTorch; NumPy would widen to f64 in some cases). */
DType dt_promote(DType a, DType b)
{
	if (a == b)
		return a;
	if (a == ATHENE_BOOL)
		return b;
	if (b == ATHENE_BOOL)
		return a;
	if (dt_is_float(a) != dt_is_float(b))
		return dt_is_float(a) ? a : b;
	if (dt_is_float(a)) {
		if ((a == ATHENE_F16 && b == ATHENE_BF16) || (a == ATHENE_BF16 && b == ATHENE_F16))
			return ATHENE_F32;
		return dt_bits(a) >= dt_bits(b) ? a : b;
	}
	if (a == ATHENE_U8)
		return signed_of_bits(dt_bits(b) > 8 ? dt_bits(b) : 16);
	if (b == ATHENE_U8)
		return signed_of_bits(dt_bits(a) > 8 ? dt_bits(a) : 16);
	return dt_bits(a) >= dt_bits(b) ? a : b;
}

double dt_round_float(DType t, double x)
{
	switch (t) {
	case ATHENE_F16: return f16_round(x);
	case ATHENE_BF16: return bf16_round(x);
	case ATHENE_F32: return (double)(float)x;
	default: return x;
	}
}

/* s / c (c >= 1) rounded once to float dtype t. A double holds 53 bits,
 * so converting an integer beyond 2^53 to double and then to t rounds twice
 * and can land on a tie of t that the value is not on (2^60 + 2^36 + 1
 * would become 2^60 in f32, not 2^60 + 2^37). Instead the quotient's first
 * bits come by long division, rounded to odd (truncated, the last bit set
 * if anything after it is not zero): 53 bits are exact in double and round
 * to t as the quotient does, t having at most 24 bits; for f64, 55 bits,
 * which the conversion to double rounds once. */
double dt_ratio_to_float(DType t, int64_t s, int64_t c)
{
	int bits = t == ATHENE_F64 ? 55 : 53, e = 0;
	uint64_t a = s < 0 ? 0 - (uint64_t)s : (uint64_t)s, d = (uint64_t)c, q = a / d, r = a % d;
	for (; q >> bits; e++) { /* too many bits: those shifted out are sticky */
		r |= q & 1;
		q >>= 1;
	}
	for (; (q || r) && !(q >> (bits - 1)); e--) { /* too few: the next bit of r / d (r < d <= 2^63: 2r fits) */
		bool up = r >= d - r;
		q = q << 1 | up;
		r = up ? r - (d - r) : r << 1;
	}
	double y = ldexp((double)(int64_t)(q | (r != 0)), e);
	return dt_round_float(t, s < 0 ? -y : y);
}

/* Integer x rounded once to float dtype t: a double holds every integer up
 * to 2^53 and converts larger ones once; beyond that, f16, bf16 and f32 as
 * dt_ratio_to_float. */
double dt_i2f(DType t, int64_t x)
{
	if (t == ATHENE_F64 || (x >= -((int64_t)1 << 53) && x <= (int64_t)1 << 53))
		return dt_round_float(t, (double)x);
	return dt_ratio_to_float(t, x, 1);
}

int64_t dt_saturate(DType t, int64_t x)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	switch (t) {
	case ATHENE_BOOL: return x != 0;
	case ATHENE_I8: lo = INT8_MIN, hi = INT8_MAX; break;
	case ATHENE_I16: lo = INT16_MIN, hi = INT16_MAX; break;
	case ATHENE_I32: lo = INT32_MIN, hi = INT32_MAX; break;
	case ATHENE_U8: lo = 0, hi = UINT8_MAX; break;
	default: break;
	}
	return x < lo ? lo : x > hi ? hi : x;
}

int64_t dt_wrap_int(DType t, int64_t x)
{
	switch (t) {
	case ATHENE_BOOL: return x != 0;
	case ATHENE_I8: return (int8_t)(uint8_t)(uint64_t)x;
	case ATHENE_I16: return (int16_t)(uint16_t)(uint64_t)x;
	case ATHENE_I32: return (int32_t)(uint32_t)(uint64_t)x;
	case ATHENE_U8: return (uint8_t)(uint64_t)x;
	default: return x;
	}
}

double dt_load_f(const void *base, DType t, int64_t i)
{
	switch (t) {
	case ATHENE_F16: return f16_to_double(((const uint16_t *)base)[i]);
	case ATHENE_BF16: return bf16_to_double(((const uint16_t *)base)[i]);
	case ATHENE_F32: return ((const float *)base)[i];
	case ATHENE_F64: return ((const double *)base)[i];
	default: return (double)dt_load_i(base, t, i);
	}
}

int64_t dt_load_i(const void *base, DType t, int64_t i)
{
	switch (t) {
	case ATHENE_BOOL: return ((const uint8_t *)base)[i] != 0;
	case ATHENE_I8: return ((const int8_t *)base)[i];
	case ATHENE_I16: return ((const int16_t *)base)[i];
	case ATHENE_I32: return ((const int32_t *)base)[i];
	case ATHENE_I64: return ((const int64_t *)base)[i];
	case ATHENE_U8: return ((const uint8_t *)base)[i];
	default: {
		double x = dt_load_f(base, t, i);
		return dt_f2i(x);
	}
	}
}

void dt_store_i(void *base, DType t, int64_t i, int64_t x)
{
	switch (t) {
	case ATHENE_BOOL: ((uint8_t *)base)[i] = x != 0; break;
	case ATHENE_I8: ((int8_t *)base)[i] = (int8_t)dt_wrap_int(t, x); break;
	case ATHENE_I16: ((int16_t *)base)[i] = (int16_t)dt_wrap_int(t, x); break;
	case ATHENE_I32: ((int32_t *)base)[i] = (int32_t)dt_wrap_int(t, x); break;
	case ATHENE_I64: ((int64_t *)base)[i] = x; break;
	case ATHENE_U8: ((uint8_t *)base)[i] = (uint8_t)dt_wrap_int(t, x); break;
	default: dt_store_f(base, t, i, dt_i2f(t, x)); break;
	}
}

/* float -> integer conversion: truncation toward zero, like astype; values
 * out of range saturate (C leaves them undefined, NumPy unspecified). */
int64_t dt_f2i(double x)
{
	if (isnan(x))
		return 0;
	if (x >= 0x1p63)
		return INT64_MAX;
	if (x < -0x1p63)
		return INT64_MIN;
	return (int64_t)x;
}

void dt_store_f(void *base, DType t, int64_t i, double x)
{
	switch (t) {
	case ATHENE_F16: ((uint16_t *)base)[i] = f16_from_double(x); break;
	case ATHENE_BF16: ((uint16_t *)base)[i] = bf16_from_double(x); break;
	case ATHENE_F32: ((float *)base)[i] = (float)x; break;
	case ATHENE_F64: ((double *)base)[i] = x; break;
	case ATHENE_BOOL: ((uint8_t *)base)[i] = x != 0; break;
	default: dt_store_i(base, t, i, dt_saturate(t, dt_f2i(x))); break;
	}
}

/* Copies element si of src (dtype st) to element di of dst (dtype dt). */
static void dt_convert(void *dst, DType dt, int64_t di, const void *src, DType st, int64_t si)
{
	if (dt_is_float(st))
		dt_store_f(dst, dt, di, dt_load_f(src, st, si));
	else
		dt_store_i(dst, dt, di, dt_load_i(src, st, si));
}

double athene_load_f64(const void *base, athene_dtype t, int64_t i) { return dt_load_f(base, t, i); }
void athene_store_f64(void *base, athene_dtype t, int64_t i, double x) { dt_store_f(base, t, i, x); }
void athene_store_i64(void *base, athene_dtype t, int64_t i, int64_t x) { dt_store_i(base, t, i, x); }
int athene_dtype_is_float(athene_dtype t) { return dt_is_float(t); }

void athene_convert(void *dst, athene_dtype dt, int64_t di, const void *src, athene_dtype st, int64_t si)
{
	dt_convert(dst, dt, di, src, st, si);
}
