/* The f16 and bf16 conversions (base/base.h, on the bits) against a
 * reference written the other way, on the values (frexp, ldexp and
 * nearbyint, the conversions athene had before, which turned doubles that
 * round up to 2^1024 into 0.5, fixed here): every one of the 65536
 * patterns of each to double and back, every halfway point between two
 * neighbours with the doubles next to it, the edges of the subnormals and
 * of overflow, and random doubles of every exponent. Then the float
 * versions of the register machine's f16/bf16 lanes against the double
 * ones: every pattern to a float, a float pattern in 61 and every 13-bit
 * halfway point from one, and + - * / in f32 on random pairs of values and
 * on every third value with the least and the greatest; and the register
 * machine's f16 row conversions (F16C where the CPU has it) against them.
 * And integers converted to each float dtype (dt_i2f, dt_ratio_to_float)
 * against a reference that rounds by integer arithmetic. Bit for bit.
 *
 *   dtype_test [SEED [COUNT]] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/exec.h"
#include "testlib.h"

static long passed, failed;

/* x rounded once, to nearest even, to mbits explicit mantissa bits,
 * exponent ebits, least normal exponent emin: the bits. */
static uint16_t ref_from(double x, int mbits, int ebits, int emin)
{
	uint16_t sign = signbit(x) ? (uint16_t)(1u << (mbits + ebits)) : 0;
	int emax_field = (1 << ebits) - 1;
	if (isnan(x))
		return (uint16_t)(sign | (emax_field << mbits) | (1u << (mbits - 1)));
	x = fabs(x);
	if (isinf(x) || x >= 0x1p1000) /* (the conversions before returned 0.5 for doubles that round up to 2^1024) */
		return (uint16_t)(sign | (emax_field << mbits));
	if (x == 0)
		return sign;
	int e;
	frexp(x, &e);
	e -= 1; /* x = m * 2^e, 1 <= m < 2 */
	if (e < emin)
		e = emin; /* subnormal: a fixed quantum */
	double q = ldexp(1.0, e - mbits), r = nearbyint(x / q), y = r * q;
	int ey;
	frexp(y, &ey);
	ey -= 1;
	int bias = 1 - emin;
	if (ey + bias >= emax_field)
		return (uint16_t)(sign | (emax_field << mbits));
	if (y < ldexp(1.0, emin))
		return (uint16_t)(sign | (uint16_t)r);
	uint32_t mant = (uint32_t)(ldexp(y, -ey) * (1u << mbits)) & ((1u << mbits) - 1);
	return (uint16_t)(sign | (uint32_t)(ey + bias) << mbits | mant);
}

static double ref_to(uint16_t h, int mbits, int ebits, int emin)
{
	int sign = (h >> (mbits + ebits)) & 1, ef = (h >> mbits) & ((1 << ebits) - 1), mant = h & ((1 << mbits) - 1);
	double v = ef == (1 << ebits) - 1 ? (mant ? NAN : INFINITY)
	           : ef == 0             ? ldexp(mant, emin - mbits)
	                                 : ldexp(mant + (1 << mbits), ef - (1 - emin) - mbits);
	return sign ? -v : v;
}

typedef struct {
	const char *name;
	int mbits, ebits, emin;
	uint16_t (*from)(double);
	double (*to)(uint16_t);
	double (*round)(double); /* to the small float, as a double */
	float (*round_f)(float); /* the same in float */
} Small;

/* The small float's largest finite value. */
static double greatest(const Small *f)
{
	return ldexp(2.0 - ldexp(1.0, -f->mbits), (1 << (f->ebits - 1)) - 1);
}

static uint64_t bits_of(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

static double of_bits(uint64_t u)
{
	double x;
	memcpy(&x, &u, sizeof x);
	return x;
}

static void check_from(const Small *f, double x)
{
	uint16_t want = ref_from(x, f->mbits, f->ebits, f->emin), got = f->from(x);
	double wr = ref_to(want, f->mbits, f->ebits, f->emin), gr = f->round(x);
	if (want == got && bits_of(wr) == bits_of(gr)) {
		passed++;
		return;
	}
	if (failed++ < 20)
		printf("FAIL %s_from_double(%a): 0x%04x, want 0x%04x; %s_round %a, want %a\n", f->name, x, got, want, f->name,
		       gr, wr);
}

static void check_small(const Small *f)
{
	for (uint32_t h = 0; h < 1u << (f->mbits + f->ebits); h++) /* each magnitude, then with the sign (the top bit) */
		for (int s = 0; s < 2; s++) {
			uint16_t b = (uint16_t)(h | (uint32_t)s << (f->mbits + f->ebits));
			double want = ref_to(b, f->mbits, f->ebits, f->emin), got = f->to(b);
			if (bits_of(want) == bits_of(got))
				passed++;
			else if (failed++ < 20)
				printf("FAIL %s_to_double(0x%04x): %a, want %a\n", f->name, b, got, want);
			check_from(f, got); /* back: the same bits, a NaN the quiet one */
			/* the halfway point to the next pattern up, and the doubles
			 * either side of it and of the value itself */
			double next = f->to((uint16_t)(b + 1)), mid = (got + next) / 2;
			double around[] = {got, mid, nextafter(mid, 0), nextafter(mid, INFINITY), nextafter(mid, -INFINITY),
			                   nextafter(got, 0), nextafter(got, INFINITY), nextafter(got, -INFINITY)};
			if (isnan(got) || isnan(next) || isinf(got))
				continue;
			for (size_t k = 0; k < sizeof around / sizeof around[0]; k++)
				check_from(f, around[k]);
		}
	/* edges: the least subnormal and half of it, the largest finite and
	 * the overflow threshold, double subnormals, huge doubles */
	double least = ldexp(1.0, f->emin - f->mbits);
	double big = greatest(f);
	double edges[] = {least, least / 2, nextafter(least / 2, 1), nextafter(least / 2, 0), least * 1.5,
	                  ldexp(1.0, f->emin), nextafter(ldexp(1.0, f->emin), 0), big,
	                  big + ldexp(1.0, (1 << (f->ebits - 1)) - 2 - f->mbits),
	                  nextafter(big + ldexp(1.0, (1 << (f->ebits - 1)) - 2 - f->mbits), 0), 0x1p-1074, 0x1p-1022,
	                  0x1.fffffffffffffp1023, INFINITY, NAN, -NAN, 0.0, -0.0};
	for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
		check_from(f, edges[k]);
		check_from(f, -edges[k]);
	}
}

/* The float versions against the double ones: float x rounded to f16 and
 * bf16, bf16 bits to a float and back. */
static void check_float(float x)
{
	double d = x;
	bool ok = bits_of((double)f16_round_f(x)) == bits_of(f16_round(d)) &&
	          bits_of((double)bf16_round_f(x)) == bits_of(bf16_round(d)) && bf16_from_float(x) == bf16_from_double(d) &&
	          f16_from_float(x) == f16_from_double(d);
	if (ok)
		passed++;
	else if (failed++ < 20)
		printf("FAIL float %a: f16_round_f %a (want %a), bf16_round_f %a (want %a), bf16_from_float 0x%04x (want "
		       "0x%04x), f16_from_float 0x%04x (want 0x%04x)\n",
		       d, (double)f16_round_f(x), f16_round(d), (double)bf16_round_f(x), bf16_round(d), bf16_from_float(x),
		       bf16_from_double(d), f16_from_float(x), f16_from_double(d));
}

/* a op b of two small-float values, in f32 then rounded to the small float,
 * against the same in double (the exact result, for these, rounded once). */
static void check_op_f(const Small *f, uint16_t ha, uint16_t hb)
{
	double a = f->to(ha), b = f->to(hb), want[4] = {a + b, a - b, a * b, a / b};
	float fa = (float)a, fb = (float)b, got[4] = {fa + fb, fa - fb, fa * fb, fa / fb};
	for (int op = 0; op < 4; op++) {
		double g = f->round_f(got[op]), w = f->round(want[op]);
		if (bits_of(g) == bits_of(w))
			passed++;
		else if (failed++ < 20)
			printf("FAIL %s 0x%04x %c 0x%04x in f32: %a, want %a\n", f->name, ha, "+-*/"[op], hb, g, w);
	}
}

static void check_floats(const Small *smalls, long count)
{
	for (uint64_t u = 0; u < (uint64_t)1 << 32; u += 61) /* a pattern in 61, every exponent and sign */
		check_float(fof((uint32_t)u));
	for (uint32_t hi = 0; hi < 1u << 19; hi++) { /* every 13-bit halfway point and its neighbours */
		uint32_t lows[] = {0, 1, 0xfff, 0x1000, 0x1001, 0x1fff};
		for (int k = 0; k < 6; k++)
			check_float(fof(hi << 13 | lows[k]));
	}
	for (uint32_t h = 0; h < 1u << 16; h++) {
		double want = bf16_to_double((uint16_t)h), want16 = f16_to_double((uint16_t)h);
		if (bits_of((double)bf16_to_float((uint16_t)h)) == bits_of(want) &&
		    bits_of((double)f16_to_float((uint16_t)h)) == bits_of(want16))
			passed++;
		else if (failed++ < 20)
			printf("FAIL bf16_to_float(0x%04x): %a, want %a; f16_to_float %a, want %a\n", h,
			       (double)bf16_to_float((uint16_t)h), want, (double)f16_to_float((uint16_t)h), want16);
	}
	for (int i = 0; i < 2; i++) {
		for (long k = 0; k < count; k++) /* random pairs of patterns */
			check_op_f(&smalls[i], (uint16_t)rnd(1u << 16), (uint16_t)rnd(1u << 16));
		uint16_t big = smalls[i].from(greatest(&smalls[i])), sign = 0x8000;
		uint16_t edges[] = {0x0001, big, 0x0001 | sign, big | sign}; /* the least subnormal, the greatest */
		for (uint32_t h = 0; h < 1u << 16; h += 3) /* every third pattern against them */
			for (int k = 0; k < 4; k++)
				check_op_f(&smalls[i], (uint16_t)h, edges[k]);
	}
}

/* The row conversions (f16_to_floats, f16_from_floats: F16C where the CPU
 * has it, or portable) against the element ones, on every pattern and on
 * a float pattern in 61, in rows of odd lengths (vector bodies and tails). */
static void check_f16_rows(void)
{
	enum { ROW = 1021 };
	static uint16_t h[ROW], back[ROW], want16[ROW];
	static float f[ROW], fx[ROW];
	for (int portable = 0; portable < 2; portable++) {
		copy_set_portable(portable);
		for (uint32_t at = 0; at < 1u << 16; at += ROW) {
			int n = (int)((1u << 16) - at < ROW ? (1u << 16) - at : ROW);
			for (int i = 0; i < n; i++)
				h[i] = (uint16_t)(at + (uint32_t)i);
			f16_to_floats(f, h, n);
			for (int i = 0; i < n; i++)
				if (bits_of((double)f[i]) == bits_of((double)f16_to_float(h[i])))
					passed++;
				else if (failed++ < 20)
					printf("FAIL f16_to_floats (portable %d) 0x%04x: %a\n", portable, h[i], (double)f[i]);
		}
		for (uint64_t at = 0; at < (uint64_t)1 << 32; at += (uint64_t)61 * ROW) {
			for (int i = 0; i < ROW; i++) {
				fx[i] = fof((uint32_t)(at + (uint64_t)61 * (uint64_t)i));
				want16[i] = f16_from_float(fx[i]);
			}
			f16_from_floats(back, fx, ROW);
			for (int i = 0; i < ROW; i++)
				if (back[i] == want16[i])
					passed++;
				else if (failed++ < 20)
					printf("FAIL f16_from_floats (portable %d) %a: 0x%04x, want 0x%04x\n", portable, (double)fx[i],
					       back[i], want16[i]);
		}
	}
	copy_set_portable(false);
}

/* Integer x rounded once, to nearest even, to mbits explicit mantissa bits
 * (greatest finite value big, beyond it infinity), by integer arithmetic. */
static double ref_int(int64_t x, int mbits, double big)
{
	uint64_t a = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
	int drop = 0;
	while (a >> (mbits + 1 + drop))
		drop++;
	uint64_t q = drop ? a >> drop : a, rem = drop ? a & (((uint64_t)1 << drop) - 1) : 0;
	uint64_t half = drop ? (uint64_t)1 << (drop - 1) : 1;
	if (drop && (rem > half || (rem == half && (q & 1))))
		q++;
	double y = ldexp((double)q, drop); /* q <= 2^(mbits + 1): exact */
	y = y > big ? INFINITY : y;
	return x < 0 ? -y : y;
}

/* dt_i2f and dt_ratio_to_float (a power-of-two count) against ref_int for
 * integers of every bit length (divided by a power of two that keeps them
 * normal), and beside the halfway cases of each
 * dtype (2^60 + 2^36 + 1 rounds once to 2^60 + 2^37 in f32, through f64 to
 * 2^60). */
static void check_ints(long count)
{
	static const struct { DType t; int mbits; double big; } ts[] = {
		{ATHENE_F16, 10, 65504.0}, {ATHENE_BF16, 7, 0x1.fep127}, {ATHENE_F32, 23, 0x1.fffffep127},
		{ATHENE_F64, 52, 0x1.fffffffffffffp1023}};
	for (long k = 0; k < count; k++) {
		int len = 1 + (int)rnd(63);
		uint64_t u = ((uint64_t)rnd(1u << 30) << 34 | (uint64_t)rnd(1u << 30) << 4 | rnd(16)) >> (64 - len);
		int m = rnd(2) ? 24 : 8; /* the bits f32 or bf16 keep */
		if (k % 3 == 1 && len > m + 1) /* a tie of f32 or bf16 at the bit after them, maybe one bit below */
			u = u >> (len - m) << (len - m) | (uint64_t)1 << (len - m - 1) |
			    (rnd(2) ? (uint64_t)1 << rnd((unsigned)(len - m - 1)) : 0);
		int64_t x = (int64_t)(k % 2 ? 0 - u : u);
		for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
			int sh = ts[i].t == ATHENE_F16 ? 0 : (int)rnd(40); /* s / 2^sh stays normal */
			double want = ref_int(x, ts[i].mbits, ts[i].big), got = dt_i2f(ts[i].t, x);
			double got2 = ldexp(dt_ratio_to_float(ts[i].t, x, (int64_t)1 << sh), sh);
			if (bits_of(got) == bits_of(want) && (isinf(want) || bits_of(got2) == bits_of(want)))
				passed++;
			else if (failed++ < 20)
				printf("FAIL %s of %lld: %a, / 2^%d: %a, want %a\n", athene_dtype_name(ts[i].t), (long long)x,
				       got, sh, got2, want);
		}
	}
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 20261203;
	long count = argc > 2 ? strtol(argv[2], NULL, 10) : 2000000;
	rng = seed * 2654435761u + 88172645463325252ull;
	printf("dtype_test: seed %llu, %ld random doubles\n", (unsigned long long)seed, count);
	const Small smalls[] = {{"f16", 10, 5, -14, f16_from_double, f16_to_double, f16_round, f16_round_f},
	                        {"bf16", 7, 8, -126, bf16_from_double, bf16_to_double, bf16_round, bf16_round_f}};
	for (int i = 0; i < 2; i++) {
		check_small(&smalls[i]);
		for (long k = 0; k < count; k++) {
			/* every exponent of a double, weighted toward the small
			 * floats' range, and random low bits */
			uint64_t u = (uint64_t)rnd(1u << 16) << 48 | (uint64_t)rnd(1u << 24) << 24 | rnd(1u << 24);
			if (k % 2) { /* near the range: exponents 2^-160 to 2^+140 */
				uint64_t e = (uint64_t)(1023 - 160 + (int)rnd(300));
				u = (u & 0x800fffffffffffffull) | e << 52;
			}
			if (k % 4 == 1) /* few low bits: near a halfway point */
				u &= ~(((uint64_t)1 << (40 + rnd(12))) - 1) | 0xfff0000000000000ull;
			check_from(&smalls[i], of_bits(u));
		}
	}
	check_floats(smalls, count);
	check_f16_rows();
	check_ints(count);
	/* dt_round_float: each dtype rounds through its pattern */
	double vs[] = {1.0 / 3, 65519.0, 65520.0, 1e-8, -2.5e-45, 3.0e38, 3.4e38, 1e300};
	for (size_t k = 0; k < sizeof vs / sizeof vs[0]; k++) {
		double a = dt_round_float(ATHENE_F16, vs[k]), b = dt_round_float(ATHENE_BF16, vs[k]);
		bool ok = bits_of(a) == bits_of(ref_to(ref_from(vs[k], 10, 5, -14), 10, 5, -14)) &&
		          bits_of(b) == bits_of(ref_to(ref_from(vs[k], 7, 8, -126), 7, 8, -126));
		if (ok)
			passed++;
		else if (failed++ < 20)
			printf("FAIL dt_round_float(%a): f16 %a, bf16 %a\n", vs[k], a, b);
	}
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed != 0;
}
