/* Executor benchmark: in one process and one run, "copy" (the faster of
 * athene's own copy kernel y[i] = x[i] over 256 MiB and a memcpy split over
 * the same threads), then every kernel of the given files run natively,
 * best of N after a warm-up, each printed as GB/s, the fraction of copy and
 * the time; then the median and minimum fraction over the kernels whose
 * name starts with "perm" (the HPTT permutations). Copy is measured again
 * between kernels and the best of all its measurements is the reference, so
 * a noisy neighbour lowers fractions rather than raising them. "paired" is
 * the kernel's fraction of the copy kernel run in turn with it, one run of
 * each after the other over the same seconds, the best of each: the host's
 * memory runs at two speeds for seconds at a time (a copy at 50 GB/s, then
 * at 70-80 when the neighbours are quiet), and runs in turn see the same
 * speed, where the run's best copy is its fastest window.
 *
 * Bytes are the bytes a kernel logically moves: each output element once,
 * and each input element it reads once (from its views: the digits that
 * move, times the rows a gather selects, at most the storage). For a strided
 * read that skips inside cache lines the physical limit is printed too:
 * copy × logical bytes ÷ bytes of the cache lines touched.
 *
 * Every timing (the kernels', the copy's, the memcpy's) is the best of at
 * least N runs after a warm-up, and of as many more as fit in the run's
 * minimum time (--min-time S, default 0.25 s; at most 4000 runs per
 * second of it): on a shared machine, more runs give a kernel more chances
 * at a quiet moment, and the copy gets as many as the kernels.
 *   exec_bench [--repeat N] [--min-time S] [--threads N] [--only NAME,NAME,PREFIX*] FILE... */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/analysis.h"
#include "cpu/exec.h"
#include "testlib.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int repeat = 5;
static double min_time = 0.25; /* seconds of timed runs, at least */
static double best_copy;

/* The best time of run(arg) after a warm-up: at least `repeat` runs, and
 * as many more as fit in min_time (at most 4000 per second of it, 1000
 * by default); -1 when a run fails. */
static double best_time(bool (*run)(void *), void *arg)
{
	if (!run(arg))
		return -1;
	double best = 1e30, spent = 0, most = 4000 * min_time;
	for (int r = 0; r < repeat || (spent < min_time && r < most); r++) {
		double t0 = now();
		if (!run(arg))
			return -1;
		double t = now() - t0;
		best = t < best ? t : best;
		spent += t;
	}
	return best;
}

typedef struct {
	char *dst;
	const char *src;
	size_t bytes;
	int64_t parts;
} Memcpy;

static void memcpy_task(void *arg, int64_t t, int worker)
{
	(void)worker;
	const Memcpy *m = arg;
	size_t per = m->bytes / (size_t)m->parts, at = (size_t)t * per;
	memcpy(m->dst + at, m->src + at, t == m->parts - 1 ? m->bytes - at : per);
}

static bool memcpy_run(void *arg)
{
	pool_run(((Memcpy *)arg)->parts, memcpy_task, arg, 0);
	return true;
}

static void fill(Inst *in, int p, void *buf, int64_t n, DType dt)
{
	int64_t lo = -8, hi = 7;
	uint64_t s = 88172645463325252ull + (uint64_t)p;
	bool index = athene_index_range(in, p, &lo, &hi) == 0;
	for (int64_t i = 0; i < n; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		if (dt_is_float(dt) && !index)
			dt_store_f(buf, dt, i, (double)(s >> 11) * 0x1p-53 * 4.0 - 2.0);
		else
			dt_store_i(buf, dt, i, hi >= lo ? lo + (int64_t)(s % ((uint64_t)hi - (uint64_t)lo + 1)) : 0);
	}
}

typedef struct {
	Inst *in;
	void **st;
} Run;

static bool run_once(void *arg)
{
	const Run *r = arg;
	athene_status s;
	if (athene_run(r->in, r->st, 0, &s)) {
		fprintf(stderr, "%s", s.message);
		return false;
	}
	return true;
}

static double time_runs(Inst *in, void **st)
{
	Run r = {in, st};
	return best_time(run_once, &r);
}

/* The copy kernel over 256 MiB, compiled and allocated once for the run. */
static athene_ctx *copy_ctx;
static Inst *copy_inst;
static void *copy_buf[2];
static const size_t copy_bytes = (size_t)67108864 * 4;

/* athene's copy kernel now, best of best_time's runs, in
 * GB/s. */
static double copy_now(void)
{
	if (!copy_inst) {
		static const char *src = "kernel copy(x: f32[67108864]) -> (y: f32[67108864]) { y[i] = x[i] }\n";
		copy_ctx = athene_create();
		athene_load(copy_ctx, "copy", src);
		copy_inst = kf_instance(athene_kernel_at(copy_ctx, 0));
		copy_buf[0] = big_alloc(copy_bytes);
		copy_buf[1] = big_alloc(copy_bytes);
		if (!copy_inst || !copy_buf[0] || !copy_buf[1]) {
			fprintf(stderr, "exec_bench: cannot set up the 256 MiB copy\n");
			exit(1);
		}
		memset(copy_buf[0], 1, copy_bytes);
		memset(copy_buf[1], 0, copy_bytes);
	}
	return 2.0 * (double)copy_bytes / time_runs(copy_inst, copy_buf) / 1e9;
}

/* The kernel's best time and the copy kernel's, taken in turn after a
 * warm-up of each: kernel runs for about as long as one copy, then one
 * copy, and again, until each has had at least `repeat` runs and min_time
 * seconds. Both see the same seconds of the machine, and a short kernel
 * still runs after itself, as in best_time. *copy_gbps gets the copy's
 * GB/s; -1 when a run fails. */
static double paired_time(Inst *in, void **st, double *copy_gbps)
{
	copy_now(); /* sets the copy kernel up */
	Run k = {in, st}, c = {copy_inst, copy_buf};
	double t0 = now();
	if (!run_once(&k))
		return -1;
	double t1 = now();
	run_once(&c);
	double t2 = now();
	int per = (int)((t2 - t1) / (t1 - t0 + 1e-9) + 0.5); /* kernel runs per copy */
	per = per < 1 ? 1 : per > 1000 ? 1000 : per;
	double bk = 1e30, bc = 1e30, sk = 0, sc = 0;
	int nk = 0, nc = 0;
	while (nk < repeat || nc < repeat || ((sk < min_time || sc < min_time) && nc < 4000 * min_time)) {
		for (int i = 0; i < per; i++, nk++) {
			t0 = now();
			if (!run_once(&k))
				return -1;
			t1 = now() - t0;
			bk = t1 < bk ? t1 : bk;
			sk += t1;
		}
		t0 = now();
		run_once(&c);
		t1 = now() - t0;
		bc = t1 < bc ? t1 : bc;
		sc += t1, nc++;
	}
	*copy_gbps = 2.0 * (double)copy_bytes / bc / 1e9;
	if (*copy_gbps > best_copy)
		best_copy = *copy_gbps;
	return bk;
}

/* The run's copy: athene's copy kernel and a threaded memcpy, the best of
 * every such measurement the reference. */
static void measure_copy(void)
{
	double own = copy_now();
	if (own > best_copy)
		best_copy = own;
	Memcpy m = {copy_buf[1], copy_buf[0], copy_bytes, 64};
	double mc = 2.0 * (double)copy_bytes / best_time(memcpy_run, &m) / 1e9;
	if (mc > best_copy)
		best_copy = mc;
	printf("%-34s %8.2f GB/s (athene copy)  %8.2f GB/s (threaded memcpy)\n", "copy 256 MiB", own, mc);
}

/* The executor's fixed cost: a 64-element kernel, run after run; and a
 * small kernel from source text to ready to run. */
static void overheads(void)
{
	static const char *src = "kernel tiny(a: f32[64], b: f32[64]) -> (y: f32[64]) { y[i] = a[i] * 2.0 + b[i] }\n";
	float a[64] = {0}, b[64] = {0}, y[64];
	void *st[3] = {a, b, y};
	double best = 1e30, ready = 1e30;
	for (int r = 0; r < 200; r++) {
		double t0 = now();
		athene_ctx *c = athene_create();
		athene_load(c, "tiny", src);
		athene_inst *in = athene_instance(athene_kernel_at(c, 0));
		athene_status s;
		athene_compile(in);
		athene_dump(in, "body", "cpu"); /* the cpu plan, checked, and the body IR */
		double t1 = now();
		ready = t1 - t0 < ready ? t1 - t0 : ready;
		for (int k = 0; k < 50; k++) {
			double u0 = now();
			athene_run(in, st, 0, &s);
			double u = now() - u0;
			best = u < best ? u : best;
		}
		athene_instance_free(in);
		athene_destroy(c);
	}
	printf("%-34s %8.1f us (source to ready to run: load, compile, plan, check, body IR)\n", "tiny kernel compile",
	       ready * 1e6);
	printf("%-34s %8.1f us (athene_run of 64 elements, best of 10,000)\n", "tiny kernel run", best * 1e6);
}

typedef struct {
	char name[64];
	double gbps, limit, time, paired; /* paired: the copy kernel's GB/s run in turn with it */
} Row;

static int by_frac(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool run_kernel(athene_kernel *k, Row *row)
{
	Inst *in = kf_instance(k);
	if (!in)
		return false;
	int np = athene_kernel_nparams(k);
	void *st[64] = {0};
	size_t sz[64] = {0};
	for (int p = 0; p < np && p < 64; p++) {
		athene_param pi;
		athene_param_info(in, p, &pi);
		sz[p] = (size_t)pi.storage_elems * athene_dtype_size(pi.dtype) + 64;
		st[p] = big_alloc(sz[p]);
		if (!st[p]) {
			fprintf(stderr, "%s: cannot allocate %zu bytes\n", pi.name, sz[p]);
			return false;
		}
		if (p < athene_kernel_ninputs(k))
			fill(in, p, st[p], pi.storage_elems, pi.dtype);
		else
			memset(st[p], 0, sz[p]);
	}
	double logical, lines, t = paired_time(in, st, &row->paired);
	logical = athene_bytes_moved(in, &lines);
	snprintf(row->name, sizeof row->name, "%s", athene_kernel_name(k));
	row->time = t;
	row->gbps = logical / t / 1e9;
	row->limit = logical / lines;
	for (int p = 0; p < np && p < 64; p++)
		big_free(st[p], sz[p]);
	athene_instance_free(in);
	return t > 0;
}

/* Is kernel `name` in the --only list (names and prefixes ending in '*',
 * separated by commas)? Everything is when there is no list. */
static bool selected(const char *only, const char *name)
{
	for (const char *p = only; p && *p;) {
		size_t n = strcspn(p, ",");
		bool prefix = n > 0 && p[n - 1] == '*';
		size_t m = prefix ? n - 1 : n;
		if (!strncmp(p, name, m) && (prefix || name[m] == 0))
			return true;
		p += n + (p[n] == ',');
	}
	return !only;
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	Row *rows = calloc(4096, sizeof *rows);
	int nrows = 0;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--repeat") && a + 1 < argc)
			repeat = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--min-time") && a + 1 < argc) {
			char *end;
			min_time = strtod(argv[++a], &end);
			min_time = *end ? -1 : min_time; /* not a number: refused below */
		}
		else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
			athene_set_threads(atoi(argv[++a]));
		else if (!strcmp(argv[a], "--only") && a + 1 < argc)
			only = argv[++a];
	}
	if (repeat < 1 || !(min_time >= 0)) {
		fprintf(stderr, "exec_bench: --repeat needs a count of at least 1 and --min-time seconds of at least 0\n");
		return 2;
	}
	printf("exec_bench: %d threads, best of at least %d runs and %.2f s after a warm-up; fractions of the best "
	       "copy of the run\n",
	       athene_threads(), repeat, min_time);
	overheads();
	measure_copy();
	for (int a = 1; a < argc; a++) {
		if (argv[a][0] == '-') {
			a += !strcmp(argv[a], "--repeat") || !strcmp(argv[a], "--min-time") || !strcmp(argv[a], "--threads") ||
			     !strcmp(argv[a], "--only");
			continue;
		}
		char *src = kf_read(argv[a]);
		athene_ctx *c = athene_create();
		if (!src || athene_load(c, argv[a], src)) {
			fprintf(stderr, "cannot load %s\n%s", argv[a], athene_errors(c));
			return 1;
		}
		for (int i = 0; i < athene_kernel_count(c) && nrows < 4096; i++) {
			athene_kernel *k = athene_kernel_at(c, i);
			if (!selected(only, athene_kernel_name(k)))
				continue;
			if (!run_kernel(k, &rows[nrows]))
				continue;
			if (i % 8 == 7)
				measure_copy(); /* again, between kernels */
			nrows++;
		}
		athene_destroy(c);
		free(src);
	}
	printf("%-34s %8s %8s %8s %10s %10s\n", "kernel", "GB/s", "of copy", "of limit", "ms", "paired");
	double frac[4096], nfrac[4096];
	int np = 0;
	for (int i = 0; i < nrows; i++) {
		const Row *r = &rows[i];
		double f = r->gbps / best_copy, paired = r->gbps / r->paired;
		if (r->limit < 0.999)
			printf("%-34s %8.2f %8.2f %8.2f %10.2f %10.2f   (limit %.2f of copy; paired, of its limit %.2f)\n",
			       r->name, r->gbps, f, f / r->limit, r->time * 1e3, paired, r->limit, paired / r->limit);
		else
			printf("%-34s %8.2f %8.2f %8s %10.2f %10.2f\n", r->name, r->gbps, f, "", r->time * 1e3, paired);
		if (!strncmp(r->name, "perm", 4))
			nfrac[np] = paired, frac[np++] = f;
	}
	printf("copy (best of the run): %.2f GB/s\n", best_copy);
	if (np) {
		qsort(frac, (size_t)np, sizeof *frac, by_frac);
		qsort(nfrac, (size_t)np, sizeof *nfrac, by_frac);
		printf("permutations: %d, median %.2f of copy, minimum %.2f (paired: median %.2f, minimum %.2f)\n", np,
		       median(frac, np), frac[0], median(nfrac, np), nfrac[0]);
	}
	free(rows);
	if (copy_inst) {
		big_free(copy_buf[0], copy_bytes);
		big_free(copy_buf[1], copy_bytes);
		athene_instance_free(copy_inst);
		athene_destroy(copy_ctx);
	}
	return 0;
}
