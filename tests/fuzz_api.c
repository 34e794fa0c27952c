/* libFuzzer harness over the public API (make fuzz). An input is a kernel
 * source; when its first line is a comment, the bytes after the '#' choose
 * the sizes (from a table of small and huge values, up to INT64_MAX), the
 * layouts given at run time and the input values. For every kernel that
 * loads: bind, compile, explain and dump the body for both targets, and run
 * both backends on small storage. A crash, a sanitizer report, a hang or
 * an internal error ("error: internal:") in any diagnostic is a finding:
 * internal errors are for broken invariants only, and no input may reach
 * one. An input that starts with the .npy magic is a .npy file instead:
 * read, written and read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "athene.h"
#include "analysis/analysis.h"

static const int64_t SIZES[] = {
	0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 100, 128, 1000, 65536, 3037000499, INT64_C(1) << 31,
	(INT64_C(1) << 32) + 1, INT64_C(1) << 40, INT64_C(1) << 62, INT64_MAX - 1, INT64_MAX, 6, 1048576, 24,
};
#define NSIZES (int)(sizeof SIZES / sizeof SIZES[0])
static const int64_t STRIDES[] = {1, 0, -1, 2, 3, -4, 64, INT64_C(1) << 40};
#define NSTRIDES (int)(sizeof STRIDES / sizeof STRIDES[0])
enum { MAX_STORAGE_BYTES = 1 << 16, MAX_KERNELS = 4 };
#define MAX_POINTS (INT64_C(1) << 20)

/* The selector bytes: the first line's after '#'. */
typedef struct {
	const unsigned char *b;
	size_t n, next;
} Sel;

static unsigned pick(Sel *s)
{
	return s->n ? s->b[s->next++ % s->n] : 0;
}

/* Does a line start with s? The line after a located header is the
 * source echoed, whatever it says, so it never counts. */
static bool message_line(const char *text, const char *s)
{
	bool echo = false;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		if (!echo && !strncmp(line, s, strlen(s)))
			return true;
		int a, b;
		char colon;
		const char *c = memchr(line, ':', nl ? (size_t)(nl - line) : strlen(line));
		echo = c && sscanf(c, ":%d:%d%c", &a, &b, &colon) == 3 && colon == ':';
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

static void no_internal(const char *what, const char *text)
{
	if (text && (message_line(text, "error: internal") || message_line(text, "athene: internal error"))) {
		fprintf(stderr, "fuzz_api: %s reported an internal error:\n%s\n", what, text);
		abort();
	}
}

static int64_t sat_mul(int64_t a, int64_t b)
{
	int64_t r;
	return !a || !b ? 0 : __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static bool small_enough(const athene_inst *in)
{
	const Kernel *k = in->k;
	for (int i = 0; i < k->params.n + k->lets.n; i++) {
		const Tensor *t = i < k->params.n ? k->params.v[i] : k->lets.v[i - k->params.n];
		int64_t bytes;
		if (__builtin_mul_overflow(tensor_layout(in, t)->storage, (int64_t)athene_dtype_size(t->dt), &bytes) ||
		    bytes > MAX_STORAGE_BYTES)
			return false;
	}
	/* Small storage is not a small run: stride-0 inputs let a reduction
	 * walk 2^62 points. Bound each statement's points (its lhs times every
	 * reduction variable of the kernel, an upper bound); an empty extent
	 * empties the product however large the others (those runs are kept:
	 * they must return at once). */
	int64_t red = 1;
	for (int i = 0; i < k->vars.n; i++)
		if (((const Var *)k->vars.v[i])->kind == V_RED)
			red = sat_mul(red, var_extent(in, k->vars.v[i]));
	for (int i = 0; i < k->stmts.n; i++) {
		const Stmt *st = k->stmts.v[i];
		int64_t points = red;
		for (int d = 0; d < st->nlhs; d++)
			points = sat_mul(points, var_extent(in, st->lhs[d]));
		if (points > MAX_POINTS)
			return false;
	}
	return true;
}

/* Both backends on storage filled from the selectors; indices in range
 * most of the time, so that runs get past the first load. */
static void run_small(athene_inst *in, Sel *s)
{
	athene_kernel *k = athene_instance_kernel(in);
	int np = athene_kernel_nparams(k), nin = athene_kernel_ninputs(k);
	void *storage[64] = {0};
	for (int p = 0; p < np && p < 64; p++) {
		athene_param pi;
		if (athene_param_info(in, p, &pi))
			break; /* a failed explain failed the instance; the run reports it */
		storage[p] = calloc((size_t)pi.storage_elems + 1, athene_dtype_size(pi.dtype));
		int64_t lo = -3, hi = 3;
		bool index = p < nin && !athene_index_range(in, p, &lo, &hi) && lo <= hi && (pick(s) & 7);
		uint64_t span = (uint64_t)hi - (uint64_t)lo;
		for (int64_t i = 0; p < nin && i < pi.storage_elems; i++) {
			unsigned r = pick(s) * 251u + (unsigned)i;
			if (athene_dtype_is_float(pi.dtype))
				athene_store_f64(storage[p], pi.dtype, i, ((double)(r % 97) - 48) / 8);
			else if (index)
				athene_store_i64(storage[p], pi.dtype, i, (int64_t)((uint64_t)lo + (span == UINT64_MAX ? r : r % (span + 1))));
			else
				athene_store_i64(storage[p], pi.dtype, i, (int64_t)(r % 7) - 3);
		}
	}
	athene_status st;
	if (np <= 64) {
		if (athene_run(in, storage, ATHENE_REFERENCE, &st))
			no_internal("athene_run (reference)", st.message);
		if (athene_run(in, storage, 0, &st))
			no_internal("athene_run", st.message);
	}
	for (int p = 0; p < np && p < 64; p++)
		free(storage[p]);
}

static void fuzz_kernel(athene_kernel *k, Sel *s)
{
	athene_inst *in = athene_instance(k);
	if (!in)
		return;
	for (int i = 0; i < athene_size_count(k); i++)
		if (athene_bind_size(in, athene_size_name(k, i), SIZES[pick(s) % NSIZES]))
			no_internal("athene_bind_size", athene_inst_errors(in));
	for (int p = 0; p < athene_kernel_nparams(k) && (pick(s) & 3) == 0; p++) {
		int64_t strides[ATHENE_MAX_RANK];
		for (int d = 0; d < athene_param_rank(k, p); d++)
			strides[d] = STRIDES[pick(s) % NSTRIDES];
		if (!athene_param_declares_layout(k, p) && athene_bind_layout(in, p, strides, pick(s) % 5))
			no_internal("athene_bind_layout", athene_inst_errors(in));
	}
	if (athene_compile(in)) {
		no_internal("athene_compile", athene_inst_errors(in));
		athene_instance_free(in);
		return;
	}
	static const char *const targets[] = {"cpu", "tpu"};
	for (int t = 0; t < 2; t++) {
		if (!athene_explain(in, targets[t], pick(s) & 1))
			no_internal("athene_explain", athene_inst_errors(in));
		if (!athene_dump(in, "body", targets[t]))
			no_internal("athene_dump body", athene_inst_errors(in));
	}
	if (small_enough(in))
		run_small(in, s);
	athene_instance_free(in);
}

/* An input that starts like a .npy file is one: read it, write what was
 * read, and read that back unchanged. */
static void fuzz_npy(const uint8_t *data, size_t n)
{
	char path[64], err[512];
	snprintf(path, sizeof path, "/tmp/athene-fuzz-%ld.npy", (long)getpid());
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, n, f) != n || fclose(f))
		abort();
	athene_array a, b;
	if (!athene_npy_read(path, &a, err, sizeof err)) {
		if (athene_npy_write(path, a.dtype, a.rank, a.shape, a.data, err, sizeof err) ||
		    athene_npy_read(path, &b, err, sizeof err) || b.dtype != a.dtype || b.rank != a.rank ||
		    memcmp(b.shape, a.shape, sizeof a.shape) || b.nbytes != a.nbytes || memcmp(a.data, b.data, a.nbytes)) {
			fprintf(stderr, "fuzz_api: a .npy array did not survive writing and reading: %s\n", err);
			abort();
		}
		athene_array_free(&b);
		athene_array_free(&a);
	}
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n >= 6 && !memcmp(data, "\x93NUMPY", 6)) {
		fuzz_npy(data, n);
		return 0;
	}
	char *src = malloc(n + 1);
	memcpy(src, data, n);
	src[n] = 0;
	Sel s = {0};
	if (n > 1 && data[0] == '#') {
		const unsigned char *nl = memchr(data, '\n', n);
		s.b = data + 1;
		s.n = nl ? (size_t)(nl - data) - 1 : n - 1;
	}
	athene_set_threads(1 + (int)(pick(&s) % 3));
	athene_ctx *c = athene_create();
	if (athene_load(c, "fuzz.ath", src))
		no_internal("athene_load", athene_errors(c));
	for (int i = 0; i < athene_kernel_count(c) && i < MAX_KERNELS; i++)
		fuzz_kernel(athene_kernel_at(c, i), &s);
	athene_destroy(c);
	free(src);
	return 0;
}
