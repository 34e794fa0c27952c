/* Shared by the C tests and the benchmark: a seeded random generator for
 * the property tests, and for the drivers that take kernel files and SYM=INT
 * arguments, reading a file and compiling an instance of a kernel with
 * every size symbol bound (unbound ones default to 64). */
#ifndef ATHENE_TESTLIB_H
#define ATHENE_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

/* xorshift64: reproducible from the seed stored in rng (nonzero) */
static uint64_t rng;
static inline unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* A test's tally: kcheck counts a check of a kernel run with some threads
 * (printing the failed ones), kcheck_report prints the counts and gives
 * the exit status. */
static int kcheck_passed, kcheck_failed;

static inline void kcheck(bool ok, const char *what, const char *kernel, int threads)
{
	if (ok) {
		kcheck_passed++;
		return;
	}
	kcheck_failed++;
	printf("FAIL %s: %s (%d threads)\n", kernel, what, threads);
}

static inline int kcheck_report(void)
{
	printf("%d passed, %d failed\n", kcheck_passed, kcheck_failed);
	return kcheck_failed != 0;
}

/* Are the n elements of dtype dt at a and b the same bits (any NaN equal
 * to any NaN)? */
static inline bool kcheck_same_bits(const void *a, const void *b, athene_dtype dt, int64_t n)
{
	size_t es = athene_dtype_size(dt);
	for (int64_t i = 0; i < n; i++) {
		if (!memcmp((const char *)a + i * es, (const char *)b + i * es, es))
			continue;
		double x = athene_load_f64(a, dt, i), y = athene_load_f64(b, dt, i);
		if (!(x != x && y != y))
			return false;
	}
	return true;
}

/* A context holding the kernels of src (named name), or NULL, the load's
 * errors counted as a failed check. */
static inline athene_ctx *kcheck_load(const char *name, const char *src)
{
	athene_ctx *c = athene_create();
	if (c && !athene_load(c, name, src))
		return c;
	kcheck(false, c ? athene_errors(c) : "cannot create a context", name, 0);
	athene_destroy(c);
	return NULL;
}


static const char *kf_names[64];
static long kf_vals[64];
static int kf_nsyms;

/* Takes a SYM=INT argument; false when arg is not one. */
static inline bool kf_size_arg(char *arg)
{
	char *eq = strchr(arg, '=');
	if (!eq || kf_nsyms == 64)
		return false;
	*eq = 0;
	kf_names[kf_nsyms] = arg;
	kf_vals[kf_nsyms++] = strtol(eq + 1, NULL, 10);
	return true;
}

static inline char *kf_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)(n > 0 ? n : 0) + 1);
	if (n < 0 || fread(s, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	s[n] = 0;
	fclose(f);
	return s;
}

/* A compiled instance of k with every size symbol bound (64 unless given);
 * NULL with the errors printed. */
static inline athene_inst *kf_instance(athene_kernel *k)
{
	athene_inst *in = athene_instance(k);
	for (int s = 0; in && s < athene_size_count(k); s++) {
		long v = 64;
		for (int i = 0; i < kf_nsyms; i++)
			if (!strcmp(kf_names[i], athene_size_name(k, s)))
				v = kf_vals[i];
		if (athene_bind_size(in, athene_size_name(k, s), v))
			break;
	}
	if (in && !athene_inst_errors(in)[0] && !athene_compile(in))
		return in;
	fprintf(stderr, "FAIL %s: %s", athene_kernel_name(k), in ? athene_inst_errors(in) : "out of memory\n");
	athene_instance_free(in);
	return NULL;
}

/* kf_instance of kernel k, or NULL counted as a failed check. */
static inline athene_inst *kcheck_instance(athene_kernel *k)
{
	athene_inst *in = kf_instance(k);
	if (!in)
		kcheck(false, "compiles", athene_kernel_name(k), 0);
	return in;
}

#endif
