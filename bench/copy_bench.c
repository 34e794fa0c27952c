/* Data-movement benchmark of the native executor, in one process and run:
 *   (a) "copy": a 256 MiB copy by a threaded memcpy and by copy_box_par
 *       with streaming stores, the faster of the two;
 *   (b) the 57 HPTT permutations (f32, B = A.transpose(axes), both row
 *       major): GB/s counting bytes read + written, fraction of copy, time;
 *       then the median and minimum fraction;
 *   (c) strided reads x[:, ::2], x[::2, :], x[:, 1::4] of an (8192, 8192)
 *       f32 matrix: fraction of copy and of their physical limit, copy x
 *       logical bytes / bytes of the cache lines touched.
 * Times are the best of a few runs after a warm-up. The machine may be
 * shared, so each case's runs alternate with runs of the streamed copy:
 * "of copy" is the fraction of the best copy of the whole run, "local" of
 * the best copy among those alternating runs. Buffers come from big_alloc
 * and are written once before any timing.
 *   copy_bench [--quick] [--threads N] [--reps N] [--verbose] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec.h"

/* row-major shape -> axes, as listed in the conformance cases */
static const char *const perms[] = {
	"7264,7264 1,0", "1216,43408 1,0", "43408,1216 1,0",
	"384,384,368 1,0,2", "384,64,2144 1,0,2", "2307,64,368 1,0,2",
	"355,384,384 0,2,1", "59,384,2320 0,2,1", "59,2320,384 0,2,1",
	"384,355,384 2,1,0", "384,59,2320 2,1,0", "2320,59,384 2,1,0",
	"96,75,96,80 2,1,0,3", "96,75,16,464 2,1,0,3", "582,75,16,80 2,1,0,3",
	"75,96,75,96 3,0,2,1", "75,96,12,608 3,0,2,1", "75,608,12,96 3,0,2,1",
	"75,96,75,96 2,0,3,1", "75,96,12,608 2,0,3,1", "75,608,12,96 2,0,3,1",
	"75,75,96,96 1,0,3,2", "75,12,96,608 1,0,3,2", "75,12,608,96 1,0,3,2",
	"96,75,75,96 3,2,1,0", "96,75,12,608 3,2,1,0", "608,75,12,96 3,2,1,0",
	"48,28,28,48,32 1,3,2,0,4", "48,28,28,8,176 1,3,2,0,4", "298,28,28,8,32 1,3,2,0,4",
	"28,48,28,28,48 4,0,3,2,1", "28,48,28,4,352 4,0,3,2,1", "28,352,28,4,48 4,0,3,2,1",
	"28,28,48,28,48 1,3,0,4,2", "28,28,48,4,352 1,3,0,4,2", "28,28,352,4,48 1,3,0,4,2",
	"28,28,28,48,48 2,0,4,1,3", "28,28,4,48,352 2,0,4,1,3", "28,28,4,352,48 2,0,4,1,3",
	"48,28,28,28,48 4,3,2,1,0", "48,28,28,4,352 4,3,2,1,0", "352,28,28,4,48 4,3,2,1,0",
	"15,15,32,15,32,16 4,1,0,3,2,5", "15,15,32,15,10,48 4,1,0,3,2,5",
	"15,15,103,15,10,16 4,1,0,3,2,5",
	"15,15,32,15,15,32 1,4,0,5,3,2", "15,15,32,15,5,112 1,4,0,5,3,2",
	"15,15,112,15,5,32 1,4,0,5,3,2",
	"15,15,15,32,15,32 2,0,4,1,5,3", "15,15,15,32,5,112 2,0,4,1,5,3",
	"15,15,15,112,5,32 2,0,4,1,5,3",
	"15,15,32,15,15,32 1,5,4,0,3,2", "15,15,32,15,5,112 1,5,4,0,3,2",
	"15,15,112,15,5,32 1,5,4,0,3,2",
	"32,15,15,15,15,32 5,4,3,2,1,0", "32,15,15,15,5,112 5,4,3,2,1,0",
	"112,15,15,15,5,32 5,4,3,2,1,0",
};
#define NPERMS (int)(sizeof perms / sizeof perms[0])

static int threads, reps = 3;
static bool verbose;
static char *copy_dst, *copy_src; /* 256 MiB each */
static double copy_best;          /* GB/s */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ copy */

typedef struct {
	char *dst;
	const char *src;
	size_t bytes;
	int64_t parts;
} Memcpy;

static void memcpy_task(void *arg, int64_t task, int worker)
{
	(void)worker;
	Memcpy *m = arg;
	size_t lo = m->bytes * (size_t)task / (size_t)m->parts;
	size_t hi = m->bytes * (size_t)(task + 1) / (size_t)m->parts;
	memcpy(m->dst + lo, m->src + lo, hi - lo);
}

static double time_memcpy(char *dst, const char *src, size_t bytes)
{
	Memcpy m = {dst, src, bytes, threads};
	double best = 1e30;
	for (int r = 0; r <= reps; r++) {
		double t = now();
		pool_run(m.parts, memcpy_task, &m, threads);
		t = now() - t;
		best = r && t < best ? t : best;
	}
	return best;
}

/* Best time of copy_box_par on the box, the first run a warm-up. */
static double time_box(void *dst, const int64_t *ds, const void *src, const int64_t *ss,
		       const int64_t *shape, int rank)
{
	double best = 1e30;
	for (int r = 0; r <= reps; r++) {
		double t = now();
		copy_box_par(dst, ds, src, ss, shape, rank, 4, COPY_STREAM, threads);
		t = now() - t;
		best = r && t < best ? t : best;
	}
	return best;
}

#define COPY_BYTES ((size_t)256 << 20)

/* One streamed box copy of 256 MiB: its GB/s, also kept in copy_best. */
static double recopy(void)
{
	int64_t shape[1] = {(int64_t)(COPY_BYTES / 4)}, st[1] = {4};
	double t = now();
	copy_box_par(copy_dst, st, copy_src, st, shape, 1, 4, COPY_STREAM, threads);
	t = now() - t;
	double gbs = 2.0 * (double)COPY_BYTES / t / 1e9;
	copy_best = gbs > copy_best ? gbs : copy_best;
	return gbs;
}

/* time_box with a copy before every run; *local is the best copy's GB/s. */
static double time_case(void *dst, const int64_t *ds, const void *src, const int64_t *ss,
			const int64_t *shape, int rank, double *local)
{
	double best = 1e30;
	*local = 0;
	for (int r = 0; r <= reps; r++) {
		double gbs = recopy();
		*local = gbs > *local ? gbs : *local;
		double t = now();
		copy_box_par(dst, ds, src, ss, shape, rank, 4, COPY_STREAM, threads);
		t = now() - t;
		best = r && t < best ? t : best;
	}
	return best;
}

static void bench_copy(void)
{
	double tm = time_memcpy(copy_dst, copy_src, COPY_BYTES);
	int64_t shape[1] = {(int64_t)(COPY_BYTES / 4)}, st[1] = {4};
	double tb = time_box(copy_dst, st, copy_src, st, shape, 1);
	double gm = 2.0 * (double)COPY_BYTES / tm / 1e9, gb = 2.0 * (double)COPY_BYTES / tb / 1e9;
	bool ok = !memcmp(copy_dst, copy_src, COPY_BYTES);
	printf("copy 256 MiB: threaded memcpy %.1f GB/s, copy_box_par %.1f GB/s%s\n",
	       gm, gb, ok ? "" : "  WRONG");
	copy_best = gm > gb ? gm : gb;
}

/* ---------------------------------------------------------- permutations */

typedef struct {
	int rank;
	int64_t shape[8], axes[8];
	int64_t bshape[8], ds[8], ss[8]; /* over B's dims, in bytes */
	int64_t elems;
} Perm;

static void parse_perm(Perm *p, const char *text)
{
	memset(p, 0, sizeof *p);
	const char *s = text;
	char *end;
	while (*s != ' ') {
		p->shape[p->rank++] = strtoll(s, &end, 10);
		s = *end == ',' ? end + 1 : end;
	}
	for (int i = 0; i < p->rank; i++) {
		p->axes[i] = strtoll(s, &end, 10);
		s = end + 1;
	}
	int64_t astride[8], acc = 4;
	for (int k = p->rank - 1; k >= 0; k--)
		astride[k] = acc, acc *= p->shape[k];
	p->elems = acc / 4;
	acc = 4;
	for (int i = p->rank - 1; i >= 0; i--) {
		p->bshape[i] = p->shape[p->axes[i]];
		p->ss[i] = astride[p->axes[i]];
		p->ds[i] = acc;
		acc *= p->bshape[i];
	}
}

/* Spot check of a thousand random elements of B against A. */
static bool perm_ok(const Perm *p, const char *b, const char *a)
{
	uint64_t x = 88172645463325252ull;
	for (int t = 0; t < 1000; t++) {
		int64_t doff = 0, soff = 0;
		for (int i = 0; i < p->rank; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			int64_t idx = (int64_t)(x % (uint64_t)p->bshape[i]);
			doff += idx * p->ds[i], soff += idx * p->ss[i];
		}
		if (memcmp(b + doff, a + soff, 4))
			return false;
	}
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts v. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof v[0], cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_plan(const Perm *p, char *dst, const char *src)
{
	BoxPlan bp;
	box_plan(&bp, dst, p->ds, src, p->ss, p->bshape, p->rank, 4, COPY_STREAM);
	printf("    kind %d elem %zu loops", bp.kind, bp.elem);
	for (int i = 0; i < bp.nloop; i++)
		printf(" %lld(%lld,%lld)", (long long)bp.n[i], (long long)bp.ds[i], (long long)bp.ss[i]);
	printf(" tile %lldx%lld tasks %lld\n", (long long)bp.blk[0], (long long)bp.blk[1],
	       (long long)bp.ntasks);
}

/* The table is printed after every case has run, when copy_best is known. */
static void bench_perms(char *dst, char *src, bool quick)
{
	double gbs[NPERMS], local[NPERMS], ms[NPERMS], frac[NPERMS], lfrac[NPERMS];
	bool ok[NPERMS];
	for (int c = 0; c < NPERMS; c++) {
		if (quick && c % 3)
			continue;
		Perm p;
		parse_perm(&p, perms[c]);
		double t = time_case(dst, p.ds, src, p.ss, p.bshape, p.rank, &local[c]);
		gbs[c] = 8.0 * (double)p.elems / t / 1e9;
		ms[c] = t * 1e3;
		ok[c] = perm_ok(&p, dst, src);
	}
	printf("\n%-36s %8s %8s %8s %9s\n", "permutation (row-major shape -> axes)", "GB/s",
	       "of copy", "local", "ms");
	int n = 0;
	for (int c = 0; c < NPERMS; c++) {
		if (quick && c % 3)
			continue;
		lfrac[n] = gbs[c] / local[c];
		frac[n++] = gbs[c] / copy_best;
		printf("%-36s %8.1f %8.2f %8.2f %9.2f%s\n", perms[c], gbs[c], gbs[c] / copy_best,
		       gbs[c] / local[c], ms[c], ok[c] ? "" : "  WRONG");
		if (verbose) {
			Perm p;
			parse_perm(&p, perms[c]);
			print_plan(&p, dst, src);
		}
	}
	double med = median(frac, n), lmed = median(lfrac, n);
	printf("permutations: %d, median %.2f of copy, minimum %.2f; local: median %.2f, minimum %.2f\n",
	       n, med, frac[0], lmed, lfrac[0]);
}

/* --------------------------------------------------------------- strided */

static void bench_strided(char *dst, char *src)
{
	enum { N = 8192 };
	static const struct {
		const char *name;
		int64_t rows, cols, rstep, cstep, first;
		double limit; /* logical bytes / bytes of lines touched */
	} cases[] = {
		{"x[:, ::2]", N, N / 2, 1, 2, 0, 2.0 / 3.0},
		{"x[::2, :]", N / 2, N, 2, 1, 0, 1.0},
		{"x[:, 1::4]", N, N / 4, 1, 4, 1, 0.4},
	};
	double gbs[3], local[3], ms[3];
	bool ok[3];
	for (int c = 0; c < 3; c++) {
		int64_t shape[2] = {cases[c].rows, cases[c].cols};
		int64_t ss[2] = {4 * N * cases[c].rstep, 4 * cases[c].cstep};
		int64_t ds[2] = {4 * cases[c].cols, 4};
		const char *s = src + 4 * cases[c].first;
		double t = time_case(dst, ds, s, ss, shape, 2, &local[c]);
		gbs[c] = 8.0 * (double)(shape[0] * shape[1]) / t / 1e9;
		ms[c] = t * 1e3;
		ok[c] = !memcmp(dst + 4 * (cases[c].cols + 3), s + ss[0] + 3 * ss[1], 4);
	}
	printf("\n%-12s %8s %8s %9s %8s %9s %9s\n", "read", "GB/s", "of copy", "of limit",
	       "local", "of limit", "ms");
	for (int c = 0; c < 3; c++) {
		double f = gbs[c] / copy_best, l = gbs[c] / local[c];
		printf("%-12s %8.1f %8.2f %9.2f %8.2f %9.2f %9.2f%s\n", cases[c].name, gbs[c], f,
		       f / cases[c].limit, l, l / cases[c].limit, ms[c], ok[c] ? "" : "  WRONG");
	}
}

int main(int argc, char **argv)
{
	bool quick = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			pool_set_threads(atoi(argv[++i]));
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: copy_bench [--quick] [--threads N] [--reps N] [--verbose]\n");
			return 2;
		}
	}
	threads = pool_threads();
	int64_t most = (int64_t)256 << 20; /* the copy and the strided cases */
	for (int c = 0; c < NPERMS; c++) {
		Perm p;
		parse_perm(&p, perms[c]);
		most = p.elems * 4 > most ? p.elems * 4 : most;
	}
	char *src = big_alloc((size_t)most), *dst = big_alloc((size_t)most);
	if (!src || !dst) {
		fprintf(stderr, "copy_bench: out of memory\n");
		return 1;
	}
	for (int64_t i = 0; i < most / 4; i++)
		memcpy(src + 4 * i, &(uint32_t){(uint32_t)i}, 4); /* distinct */
	memset(dst, 1, (size_t)most);
	printf("copy_bench: %d threads, best of %d after a warm-up\n", threads, reps);
	copy_dst = dst, copy_src = src;
	bench_copy();
	bench_perms(dst, src, quick);
	bench_strided(dst, src);
	printf("copy: best of the run %.1f GB/s\n", copy_best);
	big_free(src, (size_t)most);
	big_free(dst, (size_t)most);
	return 0;
}
