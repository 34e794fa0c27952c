/* Property test of the box copy and the pool. Random boxes (ranks 0-6,
 * extents with 0, 1 and odd sizes, random layouts on both sides, negative
 * and zero source strides, unaligned bases, every element size, with and
 * without streaming stores, SIMD and portable kernels, serial, on the pool,
 * and task by task in a shuffled order) are copied into a buffer full of
 * noise and compared byte for byte, the noise included, with a naive copy.
 * Random fused pointwise programs (pw_run: chains and general ones, loads
 * along rows, one per row and transposed, edges of every size, unaligned
 * and streamed outputs) are compared bit for bit, NaNs and signed zeros
 * included, with a naive evaluation, the noise around the output too.
 * The pool is checked for running every task once, concurrent callers,
 * nested runs, restarts, and runs back to back with more workers than
 * cores (workers that wake after their run), runs of more tasks than a
 * job holds (in pieces); big_alloc for alignment.
 * The row gathers' index check (i64_out_of) against a plain loop.
 * The stride-2 and -4 gathers against a source that ends at a page no
 * read may touch.
 *   stage_test [SEED [COUNT]]
 * Prints one line per failed check, then "N passed, M failed". */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"
#include "cpu/exec.h"

static long passed, failed;

static void check(bool ok, const char *what, long id)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	if (failed <= 20)
		printf("FAIL %s (case %ld)\n", what, id);
}

/* xorshift64: reproducible from the seed */
static uint64_t rng;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static uint32_t rng_next32(void)
{
	rnd(1);
	return (uint32_t)(rng >> 32);
}

/* ------------------------------------------------------------ box cases */

typedef struct {
	int rank;
	size_t es;
	int64_t shape[8], ds[8], ss[8];
	int64_t dbase, sbase;  /* offset of element 0 in its buffer */
	size_t dlen, slen;     /* buffer sizes */
	int flags;
} Case;

static int64_t pick_extent(void)
{
	static const int64_t small[] = {1, 1, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17};
	unsigned r = rnd(100);
	if (r < 2)
		return 0;
	if (r < 60)
		return small[rnd(sizeof small / sizeof small[0])];
	if (r < 90)
		return 8 + rnd(60);
	return 60 + rnd(200);
}

static void shuffle(int *v, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)rnd((unsigned)i + 1), t = v[i];
		v[i] = v[j], v[j] = t;
	}
}

/* Row-major strides over the dims in order perm (last fastest), each
 * dim's allocated extent padded sometimes. */
static void layout(int64_t *stride, const int64_t *shape, const int *perm,
		      int rank, size_t es, int64_t step)
{
	int64_t acc = (int64_t)es * step;
	for (int i = rank - 1; i >= 0; i--) {
		int k = perm[i];
		int64_t ext = shape[k] > 0 ? shape[k] : 1;
		unsigned r = rnd(10);
		if (r == 0)
			ext += rnd(3);
		else if (r == 1)
			ext = (ext + 15) / 16 * 16;
		stride[k] = acc;
		acc *= ext;
	}
}

/* Flips some dims (and zeroes some strides on the src side); returns the
 * offset of element 0 that keeps every element at offset >= 0. */
static int64_t mess_up(int64_t *stride, const int64_t *shape, int rank, bool zero)
{
	int64_t base = 0;
	for (int k = 0; k < rank; k++) {
		unsigned r = rnd(100);
		if (zero && r < 10)
			stride[k] = 0;
		else if (r < 30 && shape[k] > 0) {
			base += (shape[k] - 1) * stride[k];
			stride[k] = -stride[k];
		}
	}
	return base;
}

/* Largest offset of an element, base included. */
static int64_t span(const int64_t *stride, const int64_t *shape, int rank, int64_t base)
{
	int64_t hi = base;
	for (int k = 0; k < rank; k++)
		if (shape[k] > 0 && stride[k] > 0)
			hi += (shape[k] - 1) * stride[k];
	return hi;
}

static void make_case(Case *c)
{
	memset(c, 0, sizeof *c);
	c->rank = (int)rnd(7);
	c->es = (size_t)1 << rnd(4);
	int64_t budget = rnd(20) ? (rnd(4) ? 4096 : 65536) : 1 << 20;
	int64_t total = 1;
	for (int k = 0; k < c->rank; k++) {
		int64_t n = pick_extent();
		while (n > 1 && total * n > budget)
			n /= 2;
		c->shape[k] = n;
		total *= n > 0 ? n : 1;
	}
	int sp[8], dp[8];
	for (int k = 0; k < c->rank; k++)
		sp[k] = dp[k] = k;
	shuffle(sp, c->rank);
	unsigned how = rnd(10);
	if (how < 3) /* same layout: runs */
		memcpy(dp, sp, sizeof sp);
	else if (how < 5 && c->rank >= 2) { /* same innermost dim: short runs */
		shuffle(dp, c->rank);
		for (int i = 0; i < c->rank; i++)
			if (dp[i] == sp[c->rank - 1])
				dp[i] = dp[c->rank - 1], dp[c->rank - 1] = sp[c->rank - 1];
	} else
		shuffle(dp, c->rank);
	int64_t step = rnd(5) ? 1 : 2 + rnd(3); /* x[..., ::step] */
	layout(c->ss, c->shape, sp, c->rank, c->es, step);
	layout(c->ds, c->shape, dp, c->rank, c->es, 1);
	c->sbase = mess_up(c->ss, c->shape, c->rank, true);
	c->dbase = rnd(3) ? 0 : mess_up(c->ds, c->shape, c->rank, false);
	c->sbase += rnd(2) ? 0 : rnd(64);
	c->dbase += rnd(2) ? 0 : rnd(64);
	c->slen = (size_t)(span(c->ss, c->shape, c->rank, c->sbase) + (int64_t)c->es);
	c->dlen = (size_t)(span(c->ds, c->shape, c->rank, c->dbase) + (int64_t)c->es);
	c->flags = rnd(2) ? COPY_STREAM : 0;
}

/* The naive copy: an odometer over every index. */
static void ref_copy(char *dst, const char *src, const Case *c)
{
	for (int k = 0; k < c->rank; k++)
		if (c->shape[k] == 0)
			return;
	int64_t idx[8] = {0};
	for (;;) {
		int64_t d = 0, s = 0;
		for (int k = 0; k < c->rank; k++)
			d += idx[k] * c->ds[k], s += idx[k] * c->ss[k];
		memcpy(dst + d, src + s, c->es);
		int k = c->rank - 1;
		while (k >= 0 && ++idx[k] == c->shape[k])
			idx[k--] = 0;
		if (k < 0)
			return;
	}
}

/* 64-byte aligned and of exactly n bytes, so that the address sanitizer
 * sees a read or write one byte outside. */
static void *alloc64(size_t n)
{
	void *p = NULL;
	return posix_memalign(&p, 64, n ? n : 1) ? NULL : p;
}

static void fill(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)rnd(256);
}

/* Runs the plan's tasks one by one in a random order. */
static void run_shuffled(const BoxPlan *p, int64_t ntasks)
{
	int64_t *order = malloc((size_t)(ntasks > 0 ? ntasks : 1) * sizeof *order);
	for (int64_t t = 0; t < ntasks; t++)
		order[t] = t;
	for (int64_t t = ntasks - 1; t > 0; t--) {
		int64_t j = (int64_t)rnd((unsigned)t + 1), x = order[t];
		order[t] = order[j], order[j] = x;
	}
	for (int64_t t = 0; t < ntasks; t++)
		box_run_task(p, order[t]);
	free(order);
}

static void print_case(const Case *c, int mode)
{
	printf("  rank %d es %zu flags %d mode %d shape", c->rank, c->es, c->flags, mode);
	for (int k = 0; k < c->rank; k++)
		printf(" %lld", (long long)c->shape[k]);
	printf(" ds");
	for (int k = 0; k < c->rank; k++)
		printf(" %lld", (long long)c->ds[k]);
	printf(" ss");
	for (int k = 0; k < c->rank; k++)
		printf(" %lld", (long long)c->ss[k]);
	printf(" dbase %lld sbase %lld\n", (long long)c->dbase, (long long)c->sbase);
}

static long t0_among; /* boxes whose walk takes dim 0's tiles among the outer dims */

/* Copies box c in one of three ways (the mode, or a random one for -1)
 * and compares with ref_copy; true when the plan's walk takes dim 0's
 * tiles among the outer dims. */
/* The four tunings of stage.c's transposes. */
static const int profiles[] = {COPY_PROFILE_SMALL_L1, COPY_PROFILE_SMALL_L1_LARGE_L2, COPY_PROFILE_LARGE_L1,
			       COPY_PROFILE_LARGE_L1_INTEL};
enum { NPROFILES = sizeof profiles / sizeof *profiles };

static bool run_case(const Case *c, long id, int mode)
{
	char *src = alloc64(c->slen), *dst = alloc64(c->dlen), *ref = alloc64(c->dlen);
	fill(src, c->slen);
	fill(dst, c->dlen);
	memcpy(ref, dst, c->dlen);
	ref_copy(ref + c->dbase, src + c->sbase, c);
	copy_set_portable(rnd(4) == 0);
	copy_set_profile(profiles[rnd(NPROFILES)]);
	BoxPlan p;
	int64_t n = box_plan(&p, dst + c->dbase, c->ds, src + c->sbase, c->ss, c->shape, c->rank, c->es, c->flags);
	mode = mode < 0 ? (int)rnd(3) : mode;
	if (mode == 0)
		copy_box(dst + c->dbase, c->ds, src + c->sbase, c->ss, c->shape, c->rank, c->es, c->flags);
	else if (mode == 1)
		copy_box_par(dst + c->dbase, c->ds, src + c->sbase, c->ss, c->shape, c->rank, c->es, c->flags,
			     1 + (int)rnd(3));
	else
		run_shuffled(&p, n);
	bool among = p.t0_at >= 2 && p.t0_at < p.nloop;
	t0_among += among;
	bool ok = !memcmp(dst, ref, c->dlen);
	check(ok, "box copy", id);
	if (!ok && failed <= 20)
		print_case(c, mode);
	free(src), free(dst), free(ref);
	return among;
}

static void box_case(long id)
{
	Case c;
	make_case(&c);
	run_case(&c, id, -1);
}

/* y = x.transpose(1, 0, 3, 2) for x of shape (3, 2, 100, 24): a transpose
 * of short rows with more rows (100) than a tile takes, whose tiles along
 * them are nearer each other in the source than the next outer dim's
 * steps, so that the tiles of dim 0 are walked right after those of dim 1.
 * Both element widths the AVX2 kernels take, streamed and not, every way
 * of running the plan. */
static void t0_among_cases(void)
{
	static const int64_t xshape[4] = {3, 2, 100, 24}, perm[4] = {1, 0, 3, 2};
	for (int w = 0; w < 2; w++)
		for (int f = 0; f < 2; f++)
			for (int mode = 0; mode < 3; mode++) {
				Case c = {.rank = 4, .es = w ? 8 : 4, .flags = f ? COPY_STREAM : 0};
				int64_t xs[4], s = (int64_t)c.es;
				for (int k = 3; k >= 0; k--)
					xs[k] = s, s *= xshape[k];
				c.slen = (size_t)s;
				for (int k = 0; k < 4; k++)
					c.shape[k] = xshape[perm[k]], c.ss[k] = xs[perm[k]];
				s = (int64_t)c.es;
				for (int k = 3; k >= 0; k--)
					c.ds[k] = s, s *= c.shape[k];
				c.dlen = (size_t)s;
				check(run_case(&c, 4 * w + 2 * f + mode, mode), "the transpose walks dim 0's tiles among the outer dims", 0);
			}
}

/* f32 transposes whose tiles have fewer than 8 rows or exactly 8: zips of
 * na source rows into one contiguous destination (dst rows of na
 * elements that follow each other: tr_narrow4's zip kernels), the same
 * rows at a wider pitch (its 4x8, 2x8 and scalar kernels), and dst rows
 * of na continued by an outer dim of w steps (short_rows, tr_short4 with
 * its 8x8 kernels for na = 8); nb columns with and without a tail, the
 * destination aligned or one element past, streamed or not, every way of
 * running the plan, under a random tuning. */
static void narrow_rows_cases(void)
{
	static const int64_t nas[] = {2, 3, 4, 5, 7, 8}, nbs[] = {7, 8, 37, 1000};
	long id = 0, bad = failed;
	for (int kind = 0; kind < 3; kind++)
		for (int i = 0; i < 6; i++)
			for (int j = 0; j < 4; j++)
				for (int f = 0; f < 4; f++, id++) {
					int64_t na = nas[i], nb = nbs[j], w = kind == 2 ? 5 : 1;
					/* src (na, w, nb) contiguous (na and w do not merge); dst
					 * (nb, w, na) or, at a wider pitch, rows of 9 */
					Case c = {.rank = 3, .es = 4, .flags = f & 1 ? COPY_STREAM : 0};
					c.shape[0] = na, c.shape[1] = nb, c.shape[2] = w;
					c.ss[0] = w * nb * 4, c.ss[1] = 4, c.ss[2] = nb * 4;
					c.ds[0] = 4, c.ds[1] = kind == 1 ? 9 * 4 : w * na * 4, c.ds[2] = na * 4;
					c.dbase = f & 2 ? 4 : 0;
					c.slen = (size_t)(w * na * nb * 4);
					c.dlen = (size_t)(c.dbase + nb * c.ds[1]);
					run_case(&c, id, (int)(id % 3));
				}
	check(failed == bad, "f32 transposes of 2 to 8 rows: zips, short rows, rows continued", 0);
}

/* Rows per tile of an n x n transpose of es-byte elements, rows pitch
 * elements apart on both sides, under a tuning (a plan only: nothing is
 * read or written). */
static int64_t tile_rows(int profile, int64_t n, int64_t pitch, size_t es)
{
	static char buf[64];
	int64_t shape[2] = {n, n}, ds[2] = {pitch * (int64_t)es, (int64_t)es}, ss[2] = {(int64_t)es, pitch * (int64_t)es};
	copy_set_profile(profile);
	BoxPlan p;
	box_plan(&p, buf, ds, buf, ss, shape, 2, es, COPY_STREAM);
	copy_set_profile(COPY_PROFILE_AUTO);
	return p.blk[0];
}

/* A 700 x 300 f32 transpose (rows 1200 bytes apart: tall tiles of 256
 * rows on a large L2, and a last tile of 188) under each tuning, streamed
 * or not, against the element-by-element copy. */
static void tall_tile_cases(void)
{
	enum { R = 700, C = 300 };
	float *src = (float *)alloc64(R * C * 4), *dst = (float *)alloc64(R * C * 4);
	for (int i = 0; i < R * C; i++)
		src[i] = (float)i;
	for (int k = 0; k < 2 * NPROFILES; k++) {
		int64_t shape[2] = {R, C}, ds[2] = {4, 4 * R}, ss[2] = {4 * C, 4};
		memset(dst, 0, R * C * 4);
		copy_set_profile(profiles[k % NPROFILES]);
		copy_box(dst, ds, src, ss, shape, 2, 4, k < NPROFILES ? COPY_STREAM : 0);
		copy_fence();
		copy_set_profile(COPY_PROFILE_AUTO);
		bool ok = true;
		for (int i = 0; i < R && ok; i++)
			for (int j = 0; j < C && ok; j++)
				ok = dst[j * R + i] == src[i * C + j];
		check(ok, "700 x 300 f32 transpose in tall tiles", k);
	}
	free(src);
	free(dst);
}

/* 300 x 150 transposes of 2- and 1-byte elements into rows 384 elements
 * apart (whole lines), the destination starting on a line or 5 elements
 * past one, streamed or not, under each tuning and with the portable
 * kernels, against the element-by-element copy: the streamed kernels that
 * put 32 or 64 source rows together into whole lines, their heads and
 * their last rows. */
static void narrow_trans_cases(void)
{
	enum { R = 300, C = 150, P = 384 };
	unsigned char *src = alloc64(R * C * 2), *dst = alloc64(C * P * 2 + 64);
	for (int i = 0; i < R * C * 2; i++)
		src[i] = (unsigned char)(i * 7 + i / 251);
	int id = 0;
	for (int es = 1; es <= 2; es++)
		for (int k = 0; k < 4 * NPROFILES; k++, id++) {
			int off = k & 1 ? 5 : 0;
			bool stream = k & 2;
			int64_t shape[2] = {R, C}, ds[2] = {es, es * P}, ss[2] = {es * C, es};
			memset(dst, 0, C * P * 2 + 64);
			copy_set_profile(profiles[k / 4]);
			copy_set_portable(k == 0);
			copy_box(dst + off * es, ds, src, ss, shape, 2, (size_t)es, stream ? COPY_STREAM : 0);
			copy_fence();
			copy_set_portable(false);
			copy_set_profile(COPY_PROFILE_AUTO);
			bool ok = true;
			for (int i = 0; i < R && ok; i++)
				for (int j = 0; j < C && ok; j++)
					ok = !memcmp(dst + (off + j * P + i) * es, src + (i * C + j) * es, (size_t)es);
			for (int j = 0; j < C && ok; j++) /* nothing written between the rows */
				for (int i = R; i < P - off && ok; i++)
					ok = !memcmp(dst + (off + j * P + i) * es, "\0\0", (size_t)es);
			check(ok, "300 x 150 transpose of 1- and 2-byte elements", id);
		}
	free(src);
	free(dst);
}

/* The place of float x among the floats: neighbours differ by 1, -0.0 and
 * 0.0 are both 0. */
static int64_t float_order(float x)
{
	int32_t b;
	memcpy(&b, &x, 4);
	return b < 0 ? -(int64_t)(b & 0x7fffffff) : b;
}

static const char *fn_name[6] = {"exp", "sigmoid", "tanh", "erf", "log", "sqrt"};
static void (*const fn_floats[6])(float *, const float *, int64_t) = {exp_floats, sigmoid_floats, tanh_floats,
								      erf_floats, log_floats, sqrt_floats};
static const int fn_op[6] = {OP_EXP, OP_SIGMOID, OP_TANH, OP_ERF, OP_LOG, OP_SQRT};

/* The interpreter's f32 value of fn_name[f] at x (val_op's) and libm's
 * double rounded once */
static float fn_want(int f, float x)
{
	Val v = {.f = x};
	return (float)val_op(fn_op[f], ATHENE_F32, &v).f;
}

static float fn_libm(int f, double v)
{
	return (float)(f == 0 ? exp(v) : f == 1 ? 1.0 / (1.0 + exp(-v)) : f == 2 ? tanh(v) : f == 3 ? erf(v) :
		       f == 4 ? log(v) : sqrt(v));
}

/* Of the six: exp, sigmoid, tanh and erf are athene's own formulas
 * (base/narrow.c), log and sqrt libm's double rounded once. Each vector
 * form (exp_floats, ...) against the interpreter's value, bit for bit (any
 * NaN equals any NaN), vectorised and portable: the edges of the ranges,
 * of overflow, of exp's zeros and of float subnormals, the polynomials'
 * ends, and 2^22 random float patterns, half of them in [-87, 88], a
 * quarter in [-5, 5]; and how far the formulas lie from libm's rounded
 * double, in units in the last place (the language's bound: 1, sigmoid
 * 2), at every 251st float pattern and those. */
static void exp_cases(void)
{
	enum { N = 1 << 16 };
	static float x[N], y[N];
	static const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-30f, -1e-30f, -87.0f, 88.0f, -87.00001f, 88.00001f,
				     -87.33655f, -87.33654f, 88.72283f, 88.72284f, -103.97208f, -103.97209f, 1e-45f,
				     INFINITY, -INFINITY, NAN, 0.6931472f, -0.6931472f, 0.34657359f, 0.34657362f,
				     0x1.060e1ep+6f, -0x1.03d5bep+0f, 0.5f, -0.5f, 0.49999997f, 44.0f, -44.00001f, 9.01f,
				     1.00000012f, 0.99999994f, 1.41421354f, 1.41421366f, 0x1p-126f, 0x1.fffffep+127f,
				     -104.0f, -103.99999f, -104.00001f, -1e30f, 2.0f, 1.99999988f, -2.00000024f, 4.0f,
				     -4.0f, 4.00000048f, 3.92f, 1e-38f, 0x1p-127f, 0.625f, 0.62499994f, -0.625f, 89.0f,
				     89.00001f, 44.5f, 44.49999f, 3.99999976f, -3.99999976f, 0x1p-149f, -0x1p-149f};
	static const int bound[6] = {1, 2, 1, 1, 0, 0};
	for (int pass = 0; pass < 2 * 64; pass++) {
		int n = 0;
		if (pass < 2)
			for (; n < (int)(sizeof edge / sizeof *edge); n++)
				x[n] = edge[n];
		for (; n < N; n++) {
			uint32_t u = rng_next32();
			memcpy(&x[n], &u, 4);
			if (n % 2)
				x[n] = -87.0f + (float)(u % 175000000u) * 1e-6f;
			else if (n % 4 == 2)
				x[n] = -5.0f + (float)(u % 10000000u) * 1e-6f;
		}
		for (int f = 0; f < 6; f++) {
			copy_set_portable(pass % 2);
			if (pass % 4 == 2) { /* in place */
				memcpy(y, x, sizeof y);
				fn_floats[f](y, y, N - pass);
			} else {
				fn_floats[f](y, x, N - pass); /* the tail after the last 8, too */
			}
			copy_set_portable(false);
			bool ok = true;
			for (int i = 0; i < N - pass && ok; i++) {
				float want = fn_want(f, x[i]), libm = fn_libm(f, x[i]);
				ok = !memcmp(&want, &y[i], 4) || (isnan(want) && isnan(y[i]));
				if (!ok)
					printf("%s(%a): %a, not %a\n", fn_name[f], (double)x[i], (double)y[i], (double)want);
				ok = ok && (isnan(libm) ? isnan(want) : llabs(float_order(want) - float_order(libm)) <= bound[f]);
				if (!ok)
					printf("%s(%a): %a, libm's %a\n", fn_name[f], (double)x[i], (double)want, (double)libm);
			}
			check(ok, "exp_floats, ... equal the interpreter's value, within the language's bound of libm's", 6 * pass + f);
		}
	}
	/* every 251st float pattern, the worst distance from libm's and how often
	 * any (exp's 0.4 % of them, tanh's 0.15 %, sigmoid's 3 %, erf's 3 %) */
	for (int f = 0; f < 4; f++) {
		int64_t worst = 0, off = 0, count = 0;
		bool same = true;
		for (uint64_t u = 0; u < (1ull << 32); u += 251 * N) {
			int m = 0;
			for (uint64_t k = u; k < u + 251ull * N && k < (1ull << 32); k += 251) {
				uint32_t b = (uint32_t)k;
				memcpy(&x[m++], &b, 4);
			}
			fn_floats[f](y, x, m);
			for (int i = 0; i < m; i++) {
				float want = fn_want(f, x[i]), libm = fn_libm(f, x[i]);
				same = same && (!memcmp(&want, &y[i], 4) || (isnan(want) && isnan(y[i])));
				if (isnan(libm))
					continue;
				int64_t dist = isnan(want) ? INT64_MAX : llabs(float_order(want) - float_order(libm));
				worst = dist > worst ? dist : worst;
				off += dist != 0;
				count++;
			}
		}
		printf("  %s: at most %lld unit(s) from libm's, %.4f %% of floats not libm's\n", fn_name[f],
		       (long long)worst, 100.0 * (double)off / (double)count);
		check(same && worst <= bound[f] && off < count / 25, "every 251st float: the vector form is the interpreter's, "
		      "within the bound of libm's", f);
	}
}

/* Streamed f32 transposes whose destination rows are no multiple of 64
 * bytes apart, at every alignment of the destination a multiple of 4 bytes
 * allows, with rows left over at either tile edge, under each tuning (the
 * Intel one puts such rows together in an L1 buffer: tr_rows_staged), the
 * noise around each destination row kept. */
static void odd_pitch_cases(void)
{
	enum { R = 300, C = 203, P = 312 };
	static const int pitches[] = {301, 303, 306, 308, 310, 312};
	float *src = (float *)alloc64(R * C * 4), *dst = (float *)alloc64((C + 1) * P * 4 + 64);
	for (int i = 0; i < R * C; i++)
		src[i] = (float)i;
	for (int q = 0; q < (int)(sizeof pitches / sizeof *pitches); q++)
		for (int off = 0; off < 16; off += 5)
			for (int k = 0; k < NPROFILES; k++) {
				int64_t pitch = pitches[q], shape[2] = {R, C}, ds[2] = {4, 4 * pitch}, ss[2] = {4 * C, 4};
				float *d = dst + off;
				memset(dst, 0xff, (size_t)(C + 1) * P * 4 + 64);
				copy_set_profile(profiles[k]);
				copy_box(d, ds, src, ss, shape, 2, 4, COPY_STREAM);
				copy_fence();
				copy_set_profile(COPY_PROFILE_AUTO);
				bool ok = true;
				for (int j = 0; j < C && ok; j++)
					for (int i = 0; i < pitch && ok; i++) {
						uint32_t got;
						memcpy(&got, &d[j * pitch + i], 4);
						ok = i < R ? d[j * pitch + i] == src[i * C + j] : got == 0xffffffffu;
					}
				check(ok, "a streamed f32 transpose into rows no multiple of 64 bytes apart", q * 10000 + off * 100 + k);
			}
	free(src);
	free(dst);
}

/* Every 2nd and 4th element of 4-byte elements (the vector gathers of
 * K_GEN), n of them from a source whose last one ends where a page that
 * cannot be read begins: nothing past it is read, with the output streamed
 * or not, at every alignment, n up to five lines. */
static void gather_edge_cases(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), span = 4 * page;
	char *m = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *dst = alloc64(1024);
	if (m == MAP_FAILED || mprotect(m + span, page, PROT_NONE) || !dst) {
		check(false, "a guarded source for the gather edge cases", 0);
		return;
	}
	fill(m, span);
	copy_set_portable(false);
	for (int k = 2; k <= 4; k += 2)
		for (int64_t n = 1; n <= 80; n++)
			for (int64_t off = 0; off < 64; off += 4)
				for (int flags = 0; flags <= COPY_STREAM; flags += COPY_STREAM) {
					const char *src = m + span - ((n - 1) * k + 1) * 4;
					int64_t shape[1] = {n}, ds[1] = {4}, ss[1] = {4 * k};
					memset(dst, 0x5a, 1024);
					copy_box(dst + off, ds, src, ss, shape, 1, 4, flags);
					bool ok = true;
					for (int64_t i = 0; i < 1024; i++) {
						int64_t e = (i - off) / 4;
						char want = i >= off && e < n ? src[e * k * 4 + (i - off) % 4] : 0x5a;
						ok = ok && dst[i] == want;
					}
					check(ok, "a stride-2 or -4 gather up to a page that cannot be read", k * 100000 + n * 100 + off + flags);
				}
	munmap(m, span + page);
	free(dst);
}

/* The four tunings' tiles, as stage.c's plan_trans gives them. */
static void tile_rows_cases(void)
{
	enum {
		S = COPY_PROFILE_SMALL_L1,
		M = COPY_PROFILE_SMALL_L1_LARGE_L2,
		L = COPY_PROFILE_LARGE_L1,
		I = COPY_PROFILE_LARGE_L1_INTEL
	};
	check(tile_rows(S, 7264, 7264, 4) == 16, "small L1: 16 rows of f32 29 KiB apart", 0);
	check(tile_rows(S, 7264, 7264, 8) == 16, "small L1: 16 rows of f64", 0);
	check(tile_rows(S, 384, 384, 4) == 32, "small L1: 32 rows of f32 1536 bytes apart", 0);
	check(tile_rows(S, 8192, 8192, 4) == 32, "small L1: 32 rows of f32 at a 4 KiB pitch", 0);
	check(tile_rows(S, 8192, 8192, 8) == 16, "small L1: 16 rows of f64 at a 4 KiB pitch", 0);
	check(tile_rows(S, 7264, 7264, 2) == 64, "small L1: f16 keeps the large L1's tiles", 0);
	check(tile_rows(S, 12, 12, 4) == 12, "small L1: fewer rows than a tile", 0);
	check(tile_rows(S, 1000, 7264, 4) == 32, "small L1: 32 rows of f32 that write 1000 rows far apart", 0);
	check(tile_rows(S, 255, 7264, 4) == 16, "small L1: 16 rows of f32 that write fewer than 256 rows", 0);
	check(tile_rows(M, 1000, 7264, 4) == 16, "small L1, large L2: 16 rows of f32 that write 1000 rows far apart", 0);
	check(tile_rows(M, 8192, 8192, 4) == 32, "small L1, large L2: 32 rows of f32 at a 4 KiB pitch", 0);
	check(tile_rows(M, 384, 384, 4) == 256, "small L1, large L2: 256 rows of f32 1536 bytes apart", 0);
	check(tile_rows(M, 200, 256, 4) == 32, "small L1, large L2: 32 of 200 rows of f32 800 bytes long", 0);
	check(tile_rows(M, 48, 384, 4) == 32, "small L1, large L2: 32 of 48 rows of f32 1536 bytes apart", 0);
	check(tile_rows(M, 48, 2560, 4) == 16, "small L1, large L2: 16 of 48 rows of f32 10 KiB apart", 0);
	check(tile_rows(S, 384, 384, 4) == 32, "small L1, small L2: 32 rows of f32 1536 bytes apart", 0);
	check(tile_rows(M, 7264, 7264, 4) == 16, "small L1, large L2: 16 rows of f32 29 KiB apart", 0);
	check(tile_rows(L, 7264, 7264, 4) == 64, "large L1: 64 rows of long f32 rows", 0);
	check(tile_rows(L, 8192, 8192, 4) == 32, "large L1: 32 rows at a 4 KiB pitch", 0);
	check(tile_rows(L, 384, 384, 4) == 32, "large L1: 32 rows of short rows", 0);
	check(tile_rows(I, 7264, 7264, 4) == 32, "large L1, Intel: 32 rows of long f32 rows", 0);
	check(tile_rows(I, 5000, 5000, 8) == 32, "large L1, Intel: 32 rows of long f64 rows", 0);
	check(tile_rows(I, 8192, 8192, 4) == 32, "large L1, Intel: 32 rows at a 4 KiB pitch", 0);
	check(tile_rows(I, 48, 48, 4) == 48 && tile_rows(I, 96, 96, 4) == 64,
	      "large L1, Intel: up to 64 rows at most 640 bytes apart on both sides", 0);
	check(tile_rows(I, 192, 192, 4) == 32, "large L1, Intel: 32 rows of 768 bytes", 0);
	check(tile_rows(I, 20, 7264, 4) == 20, "large L1, Intel: fewer rows than a tile", 0);
	check(tile_rows(I, 7264, 7264, 1) == 64 && tile_rows(S, 7264, 7264, 1) == 64,
	      "1-byte elements: 64 rows, whole lines", 0);
}

/* ----------------------------------------------------------- pool checks */

typedef struct {
	_Atomic int hits[4096];
	_Atomic int bad_worker;
	int nthreads;
} Count;

static void count_task(void *arg, int64_t task, int worker)
{
	Count *c = arg;
	atomic_fetch_add(&c->hits[task], 1);
	if (worker < 0 || worker >= c->nthreads)
		atomic_store(&c->bad_worker, 1);
}

/* Every task ran once, on a worker in range. */
static bool run_counted(int64_t ntasks, int nthreads)
{
	static Count c;
	memset(&c, 0, sizeof c);
	c.nthreads = nthreads > 0 ? nthreads : pool_threads();
	pool_run(ntasks, count_task, &c, nthreads);
	bool ok = !atomic_load(&c.bad_worker);
	for (int64_t t = 0; t < 4096; t++)
		ok = ok && atomic_load(&c.hits[t]) == (t < ntasks);
	return ok;
}

static void sum_task(void *arg, int64_t task, int worker)
{
	(void)worker;
	atomic_fetch_add((_Atomic int64_t *)arg, task + 1);
}

/* A run of n tasks (more than the 65535 one job holds: pieces), each
 * counted in its own slot. */
static void hit_task(void *arg, int64_t task, int worker)
{
	(void)worker;
	atomic_fetch_add(&((_Atomic unsigned char *)arg)[task], 1);
}

static bool run_many(int64_t n)
{
	_Atomic unsigned char *hits = calloc((size_t)n, 1);
	pool_run(n, hit_task, (void *)hits, 0);
	bool ok = true;
	for (int64_t t = 0; t < n; t++)
		ok = ok && atomic_load(&hits[t]) == 1;
	free((void *)hits);
	return ok;
}

/* An application thread making many small runs. */
static void *caller(void *arg)
{
	long *bad = arg;
	for (int i = 0; i < 300; i++) {
		_Atomic int64_t sum = 0;
		int64_t n = 1 + i % 37;
		pool_run(n, sum_task, &sum, 0);
		if (atomic_load(&sum) != n * (n + 1) / 2)
			++*bad;
	}
	return NULL;
}

typedef struct {
	int run;
	int mark[16]; /* plain ints: the run's return must order the workers' writes */
} Marks;

static void mark_task(void *arg, int64_t task, int worker)
{
	(void)worker;
	Marks *m = arg;
	m->mark[task] = m->run;
}

/* Runs back to back with more workers than cores, so that some wake only
 * after their run is over, even runs later: each task of each run exactly
 * once, and its write seen when the run returns. */
static bool back_to_back(int runs)
{
	static Marks m;
	bool ok = true;
	for (int r = 1; r <= runs && ok; r++) {
		int n = 1 + r % 9;
		m.run = r;
		pool_run(n, mark_task, &m, 0);
		for (int t = 0; t < 16; t++)
			ok = ok && m.mark[t] == (t < n ? r : m.mark[t]);
		for (int t = 0; t < n; t++)
			m.mark[t] = 0;
	}
	return ok;
}

static void nested_task(void *arg, int64_t task, int worker)
{
	(void)task, (void)worker;
	_Atomic int64_t sum = 0;
	pool_run(10, sum_task, &sum, 0);
	if (atomic_load(&sum) == 55)
		atomic_fetch_add((_Atomic int64_t *)arg, 1);
}

static void pool_checks(void)
{
	int sizes[] = {0, 1, 2, 3, 5, 64, 100};
	for (int i = 0; i < 7; i++)
		for (int64_t n = 0; n <= 4096; n = n ? n * 4 : 1)
			check(run_counted(n, sizes[i]), "pool_run covers every task once", n);
	long bad[2] = {0, 0};
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, caller, &bad[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	check(!bad[0] && !bad[1], "concurrent pool_run callers", 0);
	_Atomic int64_t nested = 0;
	pool_run(8, nested_task, &nested, 0);
	check(atomic_load(&nested) == 8, "pool_run from inside a task", 0);
	pool_set_threads(6);
	check(back_to_back(20000), "back-to-back runs with workers that wake late", 0);
	pool_set_max_tasks(7); /* runs of more tasks than a job holds, in pieces */
	for (int64_t n = 1; n <= 40; n += 3)
		check(run_counted(n, 0), "a run in pieces covers every task once", n);
	pool_set_max_tasks(0);
	check(run_many(200000), "a run of more tasks than a job holds by default covers every task once", 0);
	pool_set_threads(2);
	check(pool_threads() == 2 && run_counted(1000, 0), "pool_set_threads(2)", 0);
	pool_set_threads(0);
	check(pool_threads() >= 1 && run_counted(1000, 0), "pool_set_threads(0)", 0);
	pool_shutdown();
	check(run_counted(1000, 0), "pool_run after pool_shutdown", 0);
}

static void alloc_checks(void)
{
	check(big_alloc(0) == NULL, "big_alloc(0) is NULL", 0);
	size_t sizes[] = {1, 4096, 100000, (size_t)3 << 20, ((size_t)64 << 20) + 5};
	for (int i = 0; i < 5; i++) {
		char *p = big_alloc(sizes[i]);
		bool ok = p != NULL && (uintptr_t)p % 4096 == 0;
		if (ok && sizes[i] >= (1 << 20))
			ok = (uintptr_t)p % (2 << 20) == 0;
		if (ok)
			p[0] = 1, p[sizes[i] - 1] = 2;
		check(ok, "big_alloc alignment", (long)sizes[i]);
		big_free(p, sizes[i]);
	}
	check(big_alloc(SIZE_MAX - 100) == NULL, "big_alloc of too much is NULL", 0);
}

/* ---- fused pointwise programs ---- */

#define SOPS (SOP_ERF + 1) /* the ops, the functions among them */

/* The ops' semantics written here on their own, not taken from stage.c's
 * scalar path: that path is one of those this test checks. */
static float ref_op(int op, float a, float b)
{
	switch (op) {
	case SOP_ADD: return a + b;
	case SOP_SUB: return a - b;
	case SOP_MUL: return a * b;
	case SOP_DIV: return a / b;
	case SOP_NEG: return -a;
	case SOP_RELU: return a > 0 || a != a ? a : 0.0f;
	case SOP_MAX: return a != a || b != b ? NAN : a > b ? a : b;
	case SOP_MIN: return a != a || b != b ? NAN : a < b ? a : b;
	default: { /* the functions: the interpreter's f32 value (base/narrow.c through val_op) */
		Val v = {.f = a};
		int fop = op == SOP_EXP ? OP_EXP : op == SOP_SIGMOID ? OP_SIGMOID : op == SOP_TANH ? OP_TANH : OP_ERF;
		return (float)val_op(fop, ATHENE_F32, &v).f;
	}
	}
}

static float some_float(void)
{
	static const float special[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 1.0f, -1.0f, 1e-40f};
	return rnd(8) == 0 ? special[rnd(8)] : ((float)rnd(2001) - 1000.0f) / 64.0f;
}

static long pw_ran, pw_ran_rows; /* programs run with a transposed load, and without */
static long pw_ran_trees;        /* ... without, no chain (pw_tree_rows) */
static long pw_ran_form;         /* those that ran in the tiles' fixed form */
static long pw_ran_collide;      /* those with the transposed load's rows 4 KiB apart */

/* A chain over a transposed load (%0) in the order of the tiles' fixed
 * form: neg, mul, add or sub, relu or max or min, each there or not, with
 * sides on either hand, each a constant or one row for every row (%1, %2);
 * now and then a step out of that order, which the form must refuse. */
static void form_chain(PwProg *p, const float *src, int64_t pitch)
{
	int n = 0;
	p->ins[n++] = (PwIns){.kind = PW_LOAD, .p = (const char *)(src + rnd(16)), .rs = 4, .cs = pitch * 4};
	for (int k = 0; k < 2; k++)
		p->ins[n++] = (PwIns){.kind = PW_LOAD, .p = (const char *)(src + rnd(16)), .rs = 0, .cs = 4};
	p->ins[n++] = (PwIns){.kind = PW_CONST, .c = some_float()};
	int last = 0;
	static const int order[] = {SOP_NEG, SOP_MUL, -1, -2};
	for (int k = 0; k < 4; k++) {
		int op = order[k];
		if (rnd(3) == 0)
			continue;
		if (op == -1)
			op = rnd(2) ? SOP_ADD : SOP_SUB;
		if (op == -2)
			op = (int[]){SOP_RELU, SOP_MAX, SOP_MIN}[rnd(3)];
		if (rnd(8) == 0)
			op = (int)rnd(SOPS); /* out of order: the general tiles */
		int side = 1 + (int)rnd(3);
		bool rev = !SOP_UNARY(op) && rnd(2);
		p->ins[n] = (PwIns){.kind = PW_OP, .op = op, .a = rev ? side : last, .b = rev ? last : side};
		if (SOP_UNARY(op))
			p->ins[n].b = last;
		last = n++;
	}
	p->n = n;
	p->result = last;
}

/* The same bits, or both NaN: which NaN an op of two NaNs returns is the
 * compiler's choice of operand order (as in the differential tests). */
static bool pw_same(float a, float b)
{
	return (a != a && b != b) || !memcmp(&a, &b, sizeof a);
}

/* One random program over a random tile, on the kernels then portable. */
static void pw_case(long id)
{
	int64_t rows = (int64_t[]){1, 2, 7, 8, 9, 16, 17, 24, 33}[rnd(9)];
	int64_t cols = (int64_t[]){1, 3, 8, 15, 16, 17, 31, 32, 63, 64, 65, 130, 300}[rnd(13)];
	int64_t most = rows > cols ? rows : cols, pitch = most; /* elements, of every source layout */
	pitch += rnd(3) * 7;
	bool collide = rnd(5) == 0;
	if (collide) /* 4 KiB: the source rows' lines share their cache sets (pw_down) */
		pitch = 1024;
	size_t src_elems = (size_t)(most * pitch + pitch + 16);
	float *src = alloc64(src_elems * sizeof(float));
	for (size_t i = 0; i < src_elems; i++)
		src[i] = some_float();
	PwProg p = {0};
	int nloads = 1 + (int)rnd(3), n = 0;
	bool chain = rnd(2);
	int nops = 0, last = 0;
	if (rnd(3) == 0) { /* the shape of the tiles' fixed form, or near it */
		form_chain(&p, src, pitch);
		chain = true;
		nloads = 3;
		n = p.n;
		last = p.result;
		nops = n - 4;
	} else {
		for (int i = 0; i < nloads; i++) {
			PwIns *q = &p.ins[n++];
			int kind = rnd(4); /* along rows, one row for all, one per row, transposed */
			q->kind = PW_LOAD;
			q->p = (const char *)(src + rnd(16));
			q->rs = kind == 0 ? pitch * 4 : kind == 1 ? 0 : 4;
			q->cs = kind == 0 || kind == 1 ? 4 : kind == 2 ? 0 : pitch * 4;
			if (kind == 2 && rnd(2))
				q->rs = pitch * 4; /* one per row, rows a pitch apart */
		}
		if (rnd(2))
			p.ins[n++] = (PwIns){.kind = PW_CONST, .c = some_float()};
		nops = (int)rnd(6), last = (int)rnd((unsigned)n);
		int leaves = n;
		for (int k = 0; k < nops; k++) { /* a chain's side: a load or the constant */
			int op = (int)rnd(SOPS), a = chain ? last : (int)rnd((unsigned)n), b = (int)rnd(chain ? (unsigned)leaves : (unsigned)n);
			if (chain && rnd(2) && !SOP_UNARY(op)) { /* the value on either side */
				b = a;
				a = (int)rnd((unsigned)nloads);
			}
			p.ins[n] = (PwIns){.kind = PW_OP, .op = op, .a = a, .b = b};
			last = n++;
		}
		p.n = n;
		p.result = chain || rnd(2) ? last : (int)rnd((unsigned)n);
	}
	/* pw_run takes chains whose transposed load, if any, is the value:
	 * every chain without one fits; the others run when they fit */
	bool any_trans = false;
	for (int i = 0; i < nloads; i++)
		any_trans |= p.ins[i].rs == 4 && p.ins[i].cs != 4 && p.ins[i].cs != 0;
	if (chain && !any_trans)
		check(pw_fits(&p), "a chain without a transposed load fits pw_run", id);
	if (!chain && nops >= 2 && p.result == last && p.ins[last].kind == PW_OP && p.ins[p.ins[last].a].kind == PW_OP &&
	    p.ins[p.ins[last].b].kind == PW_OP && !SOP_UNARY(p.ins[last].op))
		check(pw_fits(&p) == !any_trans, "two ops meeting is no chain: it runs as a tree when it reads along rows", id);
	if (!pw_fits(&p)) {
		free(src);
		return;
	}
	pw_ran += chain && any_trans;
	pw_ran_collide += chain && any_trans && collide;
	pw_ran_form += pw_form_fits(&p);
	pw_ran_rows += !any_trans;
	pw_ran_trees += !any_trans && !chain;
	/* elements; line-aligned rows half the time, so streamed tiles have
	 * heads of every width to go element by element */
	int64_t dp = rnd(2) ? (cols + 15) / 16 * 16 : cols + rnd(3) * 5, skew = rnd(2) ? rnd(16) : 0;
	size_t dn = (size_t)(rows * dp + skew + 8);
	float *d = alloc64(dn * sizeof(float)), *want = alloc64(dn * sizeof(float)), *noise = alloc64(dn * sizeof(float));
	fill((char *)noise, dn * sizeof(float));
	memcpy(want, noise, dn * sizeof(float));
	for (int64_t r = 0; r < rows; r++)
		for (int64_t c = 0; c < cols; c++) {
			float v[PW_MAX] = {0};
			for (int i = 0; i < p.n; i++) {
				const PwIns *q = &p.ins[i];
				if (q->kind == PW_LOAD)
					memcpy(&v[i], q->p + r * q->rs + c * q->cs, sizeof(float));
				else
					v[i] = q->kind == PW_CONST ? q->c : ref_op(q->op, v[q->a], v[q->b]);
			}
			want[skew + r * dp + c] = v[p.result];
		}
	for (int portable = 0; portable < 2; portable++) {
		bool stream = rnd(2);
		copy_set_portable(portable);
		/* either walk at either pitch: down the columns first at 4 KiB
		 * pitches on a large L1, at the others on a small one */
		copy_set_profile(profiles[rnd(NPROFILES)]);
		memcpy(d, noise, dn * sizeof(float));
		pw_run(&p, (char *)(d + skew), dp * 4, rows, cols, stream);
		copy_fence();
		bool same = true; /* the tile, then the noise around it and in its rows' gaps */
		for (size_t e = 0; e < dn; e++) {
			int64_t at = (int64_t)e - skew;
			bool in = at >= 0 && at / dp < rows && at % dp < cols;
			same &= in ? pw_same(d[e], want[e]) : !memcmp(&d[e], &noise[e], sizeof(float));
		}
		check(same, portable ? "a fused pointwise program (portable)" : "a fused pointwise program", id);
		if (!same && failed <= 20) {
			printf("  rows %lld cols %lld, %d loads, %d ops, chain %d, result %d, stream %d\n", (long long)rows,
			       (long long)cols, nloads, nops, chain, p.result, stream);
			for (int i = 0; i < p.n; i++)
				printf("    %%%d = kind %d op %d (%%%d, %%%d) c %g rs %lld cs %lld\n", i, p.ins[i].kind, p.ins[i].op,
				       p.ins[i].a, p.ins[i].b, p.ins[i].c, (long long)p.ins[i].rs, (long long)p.ins[i].cs);
			for (int64_t e = 0, shown = 0; e < rows * cols && shown < 3; e++) {
				int64_t at = skew + e / cols * dp + e % cols;
				if (!pw_same(d[at], want[at]) && ++shown)
					printf("    at (%lld, %lld): %g, want %g\n", (long long)(e / cols), (long long)(e % cols),
					       d[at], want[at]);
			}
		}
	}
	copy_set_portable(false);
	free(src);
	free(d);
	free(want);
	free(noise);
}

/* ------------------------------------------------------------ index checks */

/* i64_out_of against a plain loop: random lengths and alignments, indices
 * near both bounds, negative ones wrapped or not, at most one bad index at
 * a random position (often the first or last), SIMD and portable. */
static void index_case(long id)
{
	int64_t buf[80];
	int64_t n = rnd(70), off = rnd(2), lo = rnd(4), hi = lo + rnd(3) + (rnd(3) ? 1000 : 0);
	int64_t mod = rnd(3) ? hi + 1 : 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t v = rnd(2) ? lo + (int64_t)rnd(4) : hi - (int64_t)rnd(4);
		buf[off + i] = v < lo ? lo : v > hi ? hi : v;
		if (mod && rnd(3) == 0)
			buf[off + i] -= mod; /* negative, in range once wrapped */
	}
	if (n && rnd(2)) {
		int64_t at = rnd(3) == 0 ? 0 : rnd(3) == 0 ? n - 1 : rnd((unsigned)n);
		static const int64_t odd[] = {-1, 1, 0, INT64_MIN, INT64_MAX};
		int64_t k = rnd(5);
		buf[off + at] = k == 0 ? lo - 1 - (mod ? mod : 0) : k == 1 ? hi + 1 : k == 2 ? (mod ? -mod - 1 : -1) : odd[k];
	}
	bool want = false;
	for (int64_t i = 0; i < n; i++) {
		int64_t v = buf[off + i];
		v += v < 0 ? mod : 0;
		want |= v < lo || v > hi;
	}
	copy_set_portable(rnd(2));
	/* unaligned: the i64 start 4 bytes into the buffer half the time */
	char *bytes = (char *)buf, *at = bytes + 4 * (id & 1);
	if (id & 1)
		memmove(at + off * 8, bytes + off * 8, (size_t)n * 8);
	check(i64_out_of(at + off * 8, n, mod, lo, hi) == want, "i64_out_of", id);
	copy_set_portable(false);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 20261129;
	long count = argc > 2 ? strtol(argv[2], NULL, 10) : 4000;
	rng = seed * 2654435761u + 88172645463325252ull;
	printf("stage_test: seed %llu, %ld random boxes\n", (unsigned long long)seed, count);
	pool_set_threads(3); /* more workers than tasks need, on any machine */
	for (long i = 0; i < count; i++)
		box_case(i);
	t0_among_cases();
	narrow_rows_cases();
	tile_rows_cases();
	tall_tile_cases();
	narrow_trans_cases();
	exp_cases();
	gather_edge_cases();
	odd_pitch_cases();
	for (long i = 0; i < count / 2; i++)
		pw_case(i);
	check(pw_ran > count / 80 && pw_ran_rows > count / 20, "enough chains ran, transposed and not", 0);
	check(pw_ran_form > count / 40, "enough chains ran in the tiles' fixed form", 0);
	check(pw_ran_trees > count / 40, "enough programs that are no chain ran along rows", 0);
	check(pw_ran_collide > count / 400, "enough transposed chains ran with their source rows 4 KiB apart", 0);
	for (long i = 0; i < count; i++)
		index_case(i);
	printf("stage_test: %ld fused programs over tiles with a transposed load (%ld in the fixed form, %ld with its "
	       "rows 4 KiB apart), %ld along rows (%ld no chain); %ld boxes walked dim 0's tiles among the outer dims\n",
	       pw_ran, pw_ran_form, pw_ran_collide, pw_ran_rows, pw_ran_trees, t0_among);
	copy_set_portable(false);
	copy_set_profile(COPY_PROFILE_AUTO);
	pool_checks();
	alloc_checks();
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed != 0;
}
