/* Instance tests, through the public API only:
 *  - one kernel bound at three sizes, the three instances alive at once,
 *    each run and checked;
 *  - a layout given at run time (negative and zero strides, an offset);
 *  - a run's error is its own (two instances, one failing run);
 *  - 10,000 bind/compile/explain/run cycles keep memory flat (resident set
 *    after 10,000 within a small bound of after 10);
 *  - the pass list, and a dump after every pass;
 *  - an extent of 2^62 over an empty one returns at once, on both backends;
 *  - the bytes a run logically moves, and the cache lines it touches;
 *  - the state a small statement keeps between native runs: fresh buffers,
 *    another thread count, a failed run, two threads at once (two
 *    instances), 10,000 runs
 *    with the resident set flat. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "athene.h"

static long passed, failed;

static void expect(int ok, const char *what)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	fprintf(stderr, "FAIL %s\n", what);
}

static const char *src =
	"kernel affine(x: f32[N]) -> (y: f32[N]) {\n"
	"    y[i] = x[i] * 2.0 + f32(i)\n"
	"}\n"
	"kernel gather(t: f32[V, 4], idx: i64[S]) -> (y: f32[S, 4]) {\n"
	"    let u[r, c] = t[r, c] * 3.0\n"
	"    y[s, c] = u[wrap(idx[s], V), c]\n"
	"}\n"
	"kernel sum_rows(x: f32[R, C]) -> (y: f32[R]) {\n"
	"    let e[i, j] = x[i, j] + 1.0\n"
	"    y[i] = sum(j: e[i, j]) + e[i, 0]\n"
	"}\n"
	"kernel cols2(x: f32[64, 64]) -> (y: f32[64, 32]) {\n"
	"    y[i, j] = x[i, 2 * j]\n"
	"}\n"
	"kernel rows_of(t: f32[1000, 16], idx: i64[10]) -> (y: f32[10, 16]) {\n"
	"    y[s, c] = t[wrap(idx[s], 1000), c] * 2.0\n"
	"}\n"
	"kernel big_gather(t: f32[V, 16], idx: i64[S]) -> (y: f32[S, 16]) {\n"
	"    y[s, c] = t[idx[s], c]\n"
	"}\n"
	"kernel out_first(t: f32[50, 4], idx: i64[10]) -> (z: f32[10], y: f32[10, 4]) {\n"
	"    z[s] = f32(idx[s])\n"
	"    y[s, c] = t[idx[s], c]\n"
	"}\n"
	"kernel let_first(t: f32[50, 4], idx: i64[10]) -> (y: f32[10, 4]) {\n"
	"    let u[s, c] = t[idx[s], c] * 2.0\n"
	"    y[s, c] = u[s, c] + 1.0\n"
	"}\n"
	"kernel gather_first(t: f32[50, 4], idx: i64[10]) -> (y: f32[10, 4], z: f32[10]) {\n"
	"    y[s, c] = t[idx[s], c]\n"
	"    z[s] = f32(idx[s])\n"
	"}\n"
	"kernel empty_inner(x: f32[R, C]) -> (y: f32[R, C], z: f32[]) {\n"
	"    y[i, j] = x[i, j] + 1.0\n"
	"    z[] = sum(i, j: x[i, j]) + 2.0\n"
	"}\n";

static athene_inst *bound(athene_kernel *k, const char *sym, int64_t n)
{
	athene_inst *in = athene_instance(k);
	if (!in || athene_bind_size(in, sym, n) || athene_compile(in)) {
		fprintf(stderr, "%s", in ? athene_inst_errors(in) : "out of memory\n");
		return NULL;
	}
	return in;
}

static int run_affine(athene_inst *in, int64_t n)
{
	float *x = malloc(sizeof(float) * (size_t)(n + 1)), *y = calloc((size_t)n + 1, sizeof(float));
	for (int64_t i = 0; i < n; i++)
		x[i] = (float)i * 0.5f;
	void *st[2] = {x, y};
	athene_status s;
	int ok = athene_run(in, st, ATHENE_REFERENCE, &s) == 0;
	for (int64_t i = 0; i < n && ok; i++)
		ok = y[i] == (float)i * 2.0f;
	free(x);
	free(y);
	return ok;
}

static void three_sizes(athene_kernel *k)
{
	int64_t sizes[3] = {5, 1000, 1};
	athene_inst *in[3];
	for (int i = 0; i < 3; i++)
		in[i] = bound(k, "N", sizes[i]);
	expect(in[0] && in[1] && in[2], "three instances compile");
	for (int i = 2; i >= 0 && in[i]; i--) {
		athene_param p;
		expect(athene_param_info(in[i], 1, &p) == 0 && p.shape[0] == sizes[i], "each instance keeps its size");
		expect(run_affine(in[i], sizes[i]), "each instance runs with its size");
	}
	for (int i = 0; i < 3; i++)
		athene_instance_free(in[i]);
}

/* x given as the reversed, every-other-element view of a 12-element buffer:
 * strides (-2), offset 10; and as a broadcast (stride 0). */
static void given_layouts(athene_kernel *k)
{
	athene_inst *in = athene_instance(k);
	int64_t stride = -2, zero = 0;
	expect(in && athene_bind_size(in, "N", 6) == 0 && athene_bind_layout(in, 0, &stride, 10) == 0 &&
	           athene_compile(in) == 0,
	       "a given layout binds");
	athene_param p;
	expect(athene_param_info(in, 0, &p) == 0 && p.strides[0] == -2 && p.offset == 10 && p.storage_elems == 11,
	       "the given layout is the parameter's");
	float x[12], y[6];
	for (int i = 0; i < 12; i++)
		x[i] = (float)i;
	void *st[2] = {x, y};
	int ok = athene_run(in, st, ATHENE_REFERENCE, NULL) == 0;
	for (int i = 0; i < 6 && ok; i++)
		ok = y[i] == (float)(10 - 2 * i) * 2.0f + (float)i;
	expect(ok, "a reversed strided view runs");
	expect(athene_bind_size(in, "N", 7) != 0 && strstr(athene_inst_errors(in), "already compiled"),
	       "a compiled instance refuses a new binding");
	athene_instance_free(in);
	in = athene_instance(k);
	expect(in && athene_bind_size(in, "N", 4) == 0 && athene_bind_layout(in, 0, &zero, 3) == 0 &&
	           athene_compile(in) == 0,
	       "a broadcast layout binds");
	st[0] = x;
	ok = athene_run(in, st, ATHENE_REFERENCE, NULL) == 0;
	for (int i = 0; i < 4 && ok; i++)
		ok = y[i] == 6.0f + (float)i;
	expect(ok, "a broadcast view runs");
	athene_instance_free(in);
}

static void own_status(athene_kernel *k)
{
	athene_inst *a = athene_instance(k), *b = athene_instance(k);
	expect(a && b && !athene_bind_size(a, "V", 3) && !athene_bind_size(a, "S", 2) && !athene_compile(a) &&
	           !athene_bind_size(b, "V", 3) && !athene_bind_size(b, "S", 2) && !athene_compile(b),
	       "two gather instances compile");
	float t[12] = {0}, y[8];
	int64_t good[2] = {-1, 2}, bad[2] = {0, 7};
	void *sa[3] = {t, good, y}, *sb[3] = {t, bad, y};
	athene_status s1, s2;
	int r1 = athene_run(a, sa, ATHENE_REFERENCE, &s1), r2 = athene_run(b, sb, ATHENE_REFERENCE, &s2);
	expect(r1 == 0 && !s1.failed && s1.message[0] == 0, "a good run reports nothing");
	expect(r2 != 0 && s2.failed && strstr(s2.message, "index 7 out of range for dim 0 of 'u'"),
	       "a bad index is reported in its own run's status");
	expect(athene_inst_errors(a)[0] == 0, "another instance's run leaves this one's errors alone");
	athene_instance_free(a);
	athene_instance_free(b);
}

/* athene_run_checked: storage that does not hold a bound layout is refused
 * before anything runs (natively and in the interpreter); enough runs. */
static void run_checked(athene_kernel *k)
{
	athene_inst *in = bound(k, "N", 6);
	expect(in != NULL, "affine compiles for run_checked");
	if (!in)
		return;
	float x[6] = {0, 1, 2, 3, 4, 5}, y[6] = {7, 7, 7, 7, 7, 7};
	void *st[2] = {x, y};
	athene_status s;
	int64_t short_y[2] = {6, 5}, enough[2] = {6, 6};
	for (int flags = 0; flags <= ATHENE_REFERENCE; flags += ATHENE_REFERENCE) {
		int rc = athene_run_checked(in, st, short_y, flags, &s);
		expect(rc == -2 && s.failed &&
		           !strcmp(s.message, "kernel affine: the storage given for 'y' has 5 elements; its layout reaches 6"),
		       "a short output storage is refused, named");
		expect(y[0] == 7 && y[5] == 7, "a refused run writes nothing");
	}
	void *null_x[2] = {NULL, y};
	expect(athene_run_checked(in, null_x, enough, 0, &s) == -2 && strstr(s.message, "'x' has 6 elements at NULL"),
	       "a NULL storage is refused");
	expect(athene_run_checked(in, st, enough, 0, &s) == 0 && !s.failed && s.message[0] == 0 && y[5] == 15.0f,
	       "storage that holds the layouts runs");
	athene_instance_free(in);
	athene_inst *empty = bound(k, "N", 0);
	void *none[2] = {NULL, NULL};
	int64_t zero[2] = {0, 0};
	expect(empty && athene_run_checked(empty, none, zero, 0, &s) == 0, "0-size parameters need no storage");
	athene_instance_free(empty);
}

static long resident_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, rss = 0;
	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = -1;
	fclose(f);
	return rss * 4;
}

/* Under AddressSanitizer freed memory stays in quarantine: no resident-set bounds. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif

static void cycle(athene_kernel *k, int64_t n)
{
	athene_inst *in = athene_instance(k);
	if (!in || athene_bind_size(in, "R", n) || athene_bind_size(in, "C", 8) || athene_compile(in) ||
	    !athene_explain(in, "cpu", 0) || !athene_explain(in, "tpu", 1) || !athene_dump(in, "body", "cpu")) {
		failed++;
		athene_instance_free(in);
		return;
	}
	float x[64 * 8], y[64];
	for (int i = 0; i < 64 * 8; i++)
		x[i] = (float)(i % 7);
	void *st[2] = {x, y};
	if (athene_run(in, st, ATHENE_REFERENCE, NULL))
		failed++;
	athene_instance_free(in);
}

/* The library's own count of the bytes it holds must come back exactly;
 * the resident set too, within a bound, except under a sanitizer (which
 * keeps freed memory in quarantine). */
static void memory_flat(athene_kernel *k)
{
	for (int i = 0; i < 10; i++)
		cycle(k, 1 + i % 64);
	long after10 = resident_kib();
	long long held10 = athene_memory_in_use();
	for (int i = 0; i < 10000; i++)
		cycle(k, 1 + i % 64);
	long after = resident_kib();
	long long held = athene_memory_in_use();
	printf("inst_test: after 10 cycles %lld bytes held, %ld KiB resident; after 10,010 %lld bytes, %ld KiB\n",
	       held10, after10, held, after);
	expect(held10 > 0 && held == held10, "10,000 compile/run cycles hold the library's memory flat");
	if (!ASAN)
		expect(after10 > 0 && after - after10 < 1024, "10,000 compile/run cycles hold the resident set flat (1 MiB)");
}

/* Emitting is read-only on the instance: 2,000 athene_emit calls of one
 * instance hold the library's memory exactly where the first left it. */
static void emit_flat(athene_kernel *k)
{
	athene_inst *in = athene_instance(k);
	if (!in || athene_bind_size(in, "R", 16) || athene_bind_size(in, "C", 8) || athene_compile(in)) {
		failed++;
		athene_instance_free(in);
		return;
	}
	const char *first = athene_emit(&in, 1, "pallas", NULL);
	expect(first && strstr(first, "pallas_call"), "a Pallas module is emitted");
	long long held1 = athene_memory_in_use();
	long after1 = resident_kib();
	int same = 1;
	for (int i = 0; i < 2000; i++) {
		const char *m = athene_emit(&in, 1, i % 2 ? "pallas-gpu" : "pallas", i % 3 ? NULL : "v5e");
		same &= m != NULL;
	}
	long long held = athene_memory_in_use();
	long after = resident_kib();
	printf("inst_test: after 1 emit %lld bytes held, %ld KiB resident; after 2,001 %lld bytes, %ld KiB\n", held1,
	       after1, held, after);
	expect(same, "every emit succeeds");
	expect(held == held1, "2,000 emits of one instance hold the library's memory flat");
	athene_instance_free(in);
}

static void passes(athene_kernel *k)
{
	int n = 0;
	while (athene_pass_name(n))
		n++;
	expect(n == 10 && !strcmp(athene_pass_name(0), "parse") && !strcmp(athene_pass_name(n - 1), "body"),
	       "the pass list runs from parse to body");
	athene_inst *in = athene_instance(k);
	athene_bind_size(in, "R", 3);
	athene_bind_size(in, "C", 5);
	for (int i = 0; i < n; i++) {
		const char *s = athene_dump(in, athene_pass_name(i), "cpu");
		char what[64];
		snprintf(what, sizeof what, "a dump after pass %s", athene_pass_name(i));
		expect(s && strstr(s, "sum_rows"), what);
	}
	const char *inl = athene_dump(in, "inline", "cpu");
	expect(inl && strstr(inl, "let e: materialised: read more than once"), "the inline dump gives the reason");
	expect(!athene_dump(in, "nonsense", "cpu") && strstr(athene_inst_errors(in), "unknown pass"),
	       "an unknown pass is an error");
	athene_instance_free(in);
}

/* A let read broadcast (along a variable its subscripts do not name) is
 * materialised, not recomputed at each point of that variable, unless it
 * is a bare load; a let read at every point of its consumer is fused. */
static void broadcast_lets(void)
{
	athene_ctx *c = athene_create();
	const char *src = "kernel rms(x: f32[R, C], w: f32[C]) -> (y: f32[R, C]) {\n"
	                  "    let s[i < R] = sum(j < C: x[i, j] * x[i, j])\n"
	                  "    let r[i < R] = rsqrt(s[i] / f32(C) + f32(1e-6))\n"
	                  "    let v[j < C] = w[j]\n"
	                  "    let e[i < R, j < C] = exp(x[i, j])\n"
	                  "    y[i, j] = x[i, j] * r[i] * v[j] + e[i, j]\n"
	                  "}\n";
	athene_inst *in = NULL;
	if (athene_load(c, "broadcast.ath", src) || !(in = athene_instance(athene_find_kernel(c, "rms")))) {
		expect(0, "the broadcast kernel loads");
		athene_destroy(c);
		return;
	}
	athene_bind_size(in, "R", 4);
	athene_bind_size(in, "C", 8);
	const char *inl = athene_dump(in, "inline", "cpu");
	expect(inl && strstr(inl, "let r: materialised: read broadcast"), "rsqrt of a row's sum is materialised");
	expect(inl && strstr(inl, "let v: fused into y"), "a bare load read broadcast is fused");
	expect(inl && strstr(inl, "let e: fused into y"), "a let read at every point is fused");
	athene_destroy(c);
}

/* R = 2^62 rows of C = 0 columns: nothing to do, and neither backend may
 * walk the rows to find that out (the test would not finish). */
static void empty_inner(athene_kernel *k)
{
	athene_inst *in = athene_instance(k);
	if (!in || athene_bind_size(in, "R", INT64_C(1) << 62) || athene_bind_size(in, "C", 0) || athene_compile(in)) {
		expect(0, "a kernel of 2^62 x 0 elements compiles");
		athene_instance_free(in);
		return;
	}
	for (int ref = 0; ref < 2; ref++) {
		float x[1] = {5}, y[1] = {7}, z[1] = {-1};
		void *st[3] = {x, y, z};
		athene_status s;
		char what[96];
		snprintf(what, sizeof what, "2^62 x 0 elements run at once (%s): nothing stored but z = 2",
		         ref ? "reference" : "executor");
		expect(athene_run(in, st, ref ? ATHENE_REFERENCE : 0, &s) == 0 && y[0] == 7 && z[0] == 2, what);
	}
	athene_instance_free(in);
}

/* A row gather of 20000 rows whose bad indices lie in three of the
 * executor's tasks (thousands of rows each), which other threads may meet
 * first: every thread count reports the first bad row, with the
 * interpreter's message. The rows before it are written (no block that
 * starts before the first error is skipped); with ATHENE_UNTOUCHED no row
 * is (the indices are all read before any row moves). */
static void first_bad_row(athene_kernel *k)
{
	enum { V = 50, S = 20000 };
	athene_inst *in = athene_instance(k);
	if (!in || athene_bind_size(in, "V", V) || athene_bind_size(in, "S", S) || athene_compile(in)) {
		expect(0, "a gather of 20000 rows compiles");
		athene_instance_free(in);
		return;
	}
	float *t = malloc(sizeof(float) * V * 16), *y = malloc(sizeof(float) * S * 16);
	int64_t *idx = malloc(sizeof(int64_t) * S);
	for (int i = 0; i < V * 16; i++)
		t[i] = (float)i;
	for (int i = 0; i < S; i++)
		idx[i] = (i * 7) % V;
	idx[19000] = -3, idx[12000] = V, idx[4100] = V + 9;
	void *st[3] = {t, idx, y};
	athene_status ref;
	expect(athene_run(in, st, ATHENE_REFERENCE, &ref) != 0 && strstr(ref.message, "59"),
	       "the interpreter reports the first bad index, 59 at row 4100");
	int before = athene_threads();
	for (int th = 1; th <= 4; th++) {
		athene_set_threads(th);
		for (int untouched = 0; untouched < 2; untouched++) {
			for (int i = 0; i < S * 16; i++)
				y[i] = -1.0f;
			athene_status s;
			char what[128];
			snprintf(what, sizeof what, "%d thread(s)%s: the interpreter's message for row 4100, %s", th,
			         untouched ? ", ATHENE_UNTOUCHED" : "", untouched ? "no row written" : "rows before it written");
			int ok = athene_run(in, st, untouched ? ATHENE_UNTOUCHED : 0, &s) != 0 && s.failed &&
			         !strcmp(s.message, ref.message);
			for (int i = 0; i < S * 16 && ok; i++)
				ok = untouched ? y[i] == -1.0f : i >= 4100 * 16 || y[i] == (float)(idx[i / 16] * 16 + i % 16);
			expect(ok, what);
		}
	}
	idx[19000] = -3 + V, idx[12000] = 0, idx[4100] = 1;
	expect(athene_run(in, st, 0, NULL) == 0 && y[4100 * 16 + 5] == 16 + 5 && y[19000 * 16] == (float)((V - 3) * 16),
	       "the same gather with its indices mended runs");
	athene_set_threads(before);
	free(t);
	free(y);
	free(idx);
	athene_instance_free(in);
}

/* athene_inst_clean_errors: which kernels leave their outputs as they were
 * when a run with ATHENE_UNTOUCHED stops on a bad index. */
static void clean_errors(athene_ctx *c)
{
	static const struct {
		const char *kernel, *sym[2];
		int64_t n[2];
		int clean;
	} cases[] = {
		{"affine", {"N"}, {8}, 1},                  /* nothing can fail */
		{"big_gather", {"S", "V"}, {100, 50}, 1},   /* a row gather, its indices read first */
		{"rows_of", {NULL}, {0}, 0},                /* a gather times 2: element by element */
		{"out_first", {NULL}, {0}, 0},              /* an output written before the gather */
		{"gather_first", {NULL}, {0}, 1},
		{"let_first", {NULL}, {0}, 1},              /* what can fail writes a let, before any output */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		athene_inst *in = athene_instance(athene_find_kernel(c, cases[i].kernel));
		int ok = in != NULL;
		for (int s = 0; s < 2 && ok && cases[i].sym[s]; s++)
			ok = !athene_bind_size(in, cases[i].sym[s], cases[i].n[s]);
		ok = ok && !athene_compile(in);
		char what[96];
		snprintf(what, sizeof what, "athene_inst_clean_errors(%s) is %d", cases[i].kernel, cases[i].clean);
		expect(ok && athene_inst_clean_errors(in) == cases[i].clean, what);
		athene_instance_free(in);
	}
}

/* Bytes: each output element once and each input element read once; a
 * read of every other float touches whole lines, twice what it uses; a
 * gather reads only its rows. */
static void bytes_moved(athene_ctx *c)
{
	athene_inst *a = athene_instance(athene_find_kernel(c, "cols2"));
	athene_inst *b = athene_instance(athene_find_kernel(c, "rows_of"));
	double lines = 0, n = athene_bytes_moved(a, &lines);
	expect(n == 64 * 32 * 4 * 2 && lines == 64 * 32 * 4 * 3, "x[i, 2 * j]: 16 KiB logical, 24 KiB of lines");
	n = athene_bytes_moved(b, NULL);
	expect(n == 10 * 16 * 4 * 2 + 10 * 8, "a gather of 10 rows of 16 floats: 1360 bytes, not the table");
	athene_instance_free(a);
	athene_instance_free(b);
}

/* One native run of `gather` (V = 40, S = 24: u materialised, y its
 * rows) on fresh buffers whose values depend on seed, against the
 * interpreter on the same inputs; bad: index 40 at row 5. */
static int kept_run(athene_inst *in, int seed, int bad)
{
	float *t = malloc(sizeof(float) * 160), *y = malloc(sizeof(float) * 96), *r = malloc(sizeof(float) * 96);
	int64_t *idx = malloc(sizeof(int64_t) * 24);
	int ok = t && y && r && idx;
	for (int i = 0; ok && i < 160; i++)
		t[i] = (float)((i * 7 + seed) % 23) - 11.0f;
	for (int s = 0; ok && s < 24; s++)
		idx[s] = (s * 5 + seed) % 40 - (s % 3 == 0 ? 40 : 0);
	if (ok && bad)
		idx[5] = 40;
	void *sn[3] = {t, idx, y}, *sr[3] = {t, idx, r};
	athene_status st;
	for (int i = 0; ok && i < 96; i++)
		y[i] = r[i] = -1.0f;
	if (ok && bad)
		ok = athene_run(in, sn, 0, &st) != 0 && strstr(st.message, "index 40 out of range") != NULL;
	else if (ok)
		ok = athene_run(in, sn, 0, &st) == 0 && athene_run(in, sr, ATHENE_REFERENCE, &st) == 0 &&
		     !memcmp(y, r, sizeof(float) * 96);
	free(t);
	free(y);
	free(r);
	free(idx);
	return ok;
}

typedef struct {
	athene_inst *in;
	int seed, good;
} KeptArg;

static void *kept_thread(void *arg)
{
	KeptArg *a = arg;
	for (int i = 0; i < 200; i++)
		a->good += kept_run(a->in, a->seed + i, 0);
	return NULL;
}

static void kept_state(athene_kernel *k)
{
	athene_inst *in = athene_instance(k);
	expect(in && !athene_bind_size(in, "V", 40) && !athene_bind_size(in, "S", 24) && !athene_compile(in),
	       "gather compiles for the kept state");
	if (!in)
		return;
	int before = athene_threads(), good = 0;
	for (int i = 0; i < 60; i++) {
		if (i % 20 == 0)
			athene_set_threads(1 + i / 20);
		good += kept_run(in, i, i % 7 == 3);
	}
	athene_set_threads(before);
	expect(good == 60, "native runs on fresh buffers, at 1-3 threads and after failed runs, match the interpreter");
	athene_inst *other = athene_instance(k); /* one instance per thread (athene.h) */
	expect(other && !athene_bind_size(other, "V", 40) && !athene_bind_size(other, "S", 24) && !athene_compile(other),
	       "a second gather instance compiles");
	KeptArg a[2] = {{in, 1000, 0}, {other, 2000, 0}};
	pthread_t th[2];
	for (int i = 0; other && i < 2; i++)
		pthread_create(&th[i], NULL, kept_thread, &a[i]);
	for (int i = 0; other && i < 2; i++)
		pthread_join(th[i], NULL);
	expect(a[0].good == 200 && a[1].good == 200, "two threads, each running its instance, match the interpreter");
	athene_instance_free(other);
	for (int i = 0; i < 100; i++)
		kept_run(in, i, 0);
	long after100 = resident_kib();
	for (int i = 0; i < 10000; i++)
		kept_run(in, i, i % 100 == 0);
	long after = resident_kib();
	printf("inst_test: kept state, after 100 native runs %ld KiB resident, after 10,100 %ld KiB\n", after100, after);
	if (!ASAN)
		expect(after100 > 0 && after - after100 < 1024, "10,000 native runs hold the resident set flat (1 MiB)");
	athene_instance_free(in);
}

int main(void)
{
	athene_ctx *c = athene_create();
	if (athene_load(c, "inst_test.ath", src)) {
		fprintf(stderr, "%s", athene_errors(c));
		return 1;
	}
	three_sizes(athene_find_kernel(c, "affine"));
	given_layouts(athene_find_kernel(c, "affine"));
	own_status(athene_find_kernel(c, "gather"));
	run_checked(athene_find_kernel(c, "affine"));
	passes(athene_find_kernel(c, "sum_rows"));
	empty_inner(athene_find_kernel(c, "empty_inner"));
	first_bad_row(athene_find_kernel(c, "big_gather"));
	clean_errors(c);
	bytes_moved(c);
	memory_flat(athene_find_kernel(c, "sum_rows"));
	emit_flat(athene_find_kernel(c, "sum_rows"));
	broadcast_lets();
	kept_state(athene_find_kernel(c, "gather"));
	athene_instance(athene_find_kernel(c, "affine")); /* left alive: athene_destroy frees it */
	athene_destroy(c);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed != 0;
}
