/* Times what issue 8 promised stays fast whatever the input: loading a 2 MB
 * file of nested calls (the parser is linear), files of many kernels, and
 * check and explain of the huge-size reproducers (every checker is
 * bounded). Prints one line per case with its time and whether it
 * compiled; each should take well under a second. Timing only: the tests
 * check the results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "athene.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* About `bytes` of lets, each a reduction around calls nested `depth`
 * deep (finding whether a call is a reduction was quadratic). */
static char *nested_calls(size_t bytes, int depth)
{
	size_t cap = bytes + 4096, n = 0;
	char *s = malloc(cap);
	if (!s)
		exit(1);
	n += (size_t)snprintf(s + n, cap - n, "kernel nested(x: f32[4]) -> (y: f32[4]) {\n");
	for (int stmt = 0; n + 16 * (size_t)depth + 64 < bytes; stmt++) {
		n += (size_t)snprintf(s + n, cap - n, "    let t%d[i] = ", stmt);
		for (int d = 0; d < depth; d++)
			n += (size_t)snprintf(s + n, cap - n, d ? "abs(" : "max(k < 4: ");
		n += (size_t)snprintf(s + n, cap - n, "x[i]");
		for (int d = 0; d < depth; d++)
			s[n++] = ')';
		s[n++] = '\n';
	}
	n += (size_t)snprintf(s + n, cap - n, "    y[i] = x[i]\n}\n");
	return s;
}

static void bench_parse(void)
{
	char *src = nested_calls(2u << 20, 900);
	athene_ctx *c = athene_create();
	double t0 = now(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	int rc = athene_load(c, "nested.ath", src);
	double t = now() - t0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	printf("parse  %-44s %8.3f s  %s (cpu %.3f s)\n", "2 MB of calls nested 900 deep", t, rc ? "error" : "ok", cpu);
	if (rc)
		fputs(athene_errors(c), stdout);
	athene_destroy(c);
	free(src);
}

/* Many small kernels in one file: loading must stay linear in their number
 * (each is checked against the names of the others). */
static void bench_many_kernels(int n)
{
	size_t cap = (size_t)n * 64 + 1, len = 0;
	char *src = malloc(cap);
	if (!src)
		exit(1);
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(src + len, cap - len, "kernel k%d(x: f32[1]) -> (y: f32[1]) { y[i] = x[i] }\n", i);
	athene_ctx *c = athene_create();
	double t0 = now(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	int rc = athene_load(c, "many.ath", src);
	double t = now() - t0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	char label[64];
	snprintf(label, sizeof label, "%d small kernels (%.1f MB)", n, (double)len / 1e6);
	printf("parse  %-44s %8.3f s  %s (cpu %.3f s)\n", label, t, rc ? "error" : "ok", cpu);
	athene_destroy(c);
	free(src);
}

/* One kernel with many parameters, each with a size symbol of its own. */
static void bench_many_params(int n)
{
	size_t cap = (size_t)n * 32 + 128, len = 0;
	char *src = malloc(cap);
	if (!src)
		exit(1);
	len += (size_t)snprintf(src + len, cap - len, "kernel wide(");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(src + len, cap - len, "%sa%d: f32[S%d]", i ? ", " : "", i, i);
	len += (size_t)snprintf(src + len, cap - len, ") -> (y: f32[4]) { y[i] = 1.0 }\n");
	athene_ctx *c = athene_create();
	double t0 = now(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	int rc = athene_load(c, "wide.ath", src);
	double t = now() - t0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	char label[64];
	snprintf(label, sizeof label, "a kernel of %d parameters (%.1f MB)", n, (double)len / 1e6);
	printf("parse  %-44s %8.3f s  %s (cpu %.3f s)\n", label, t, rc ? "error" : "ok", cpu);
	athene_destroy(c);
	free(src);
}

/* The huge-size reproducers of issue 8, and a few more at the limits. */
static const struct {
	const char *name, *src;
	const char *sym;
	long long value;
} CASES[] = {
	{"arange N=INT64_MAX", "kernel k() -> (y: f32[N]) { y[i] = f32(i) }", "N", 9223372036854775807LL},
	{"max reduction N=2^62", "kernel k(x: f32[N]) -> (y: f32[]) { y = max(i: x[i]) }", "N", 4611686018427387904LL},
	{"sum of rows N=2^31", "kernel k(x: f32[N, 4]) -> (y: f32[4]) { y[j] = sum(i: x[i, j]) }", "N", 2147483648LL},
	{"let of stride 0 N=2^62", "kernel k(x: f32[N] strides(0)) -> (y: f32[]) { let t[i] = x[i]\n y = t[0] }", "N",
	 4611686018427387904LL},
	{"transpose N=2^31", "kernel k(x: f32[N, 2]) -> (y: f32[2, N]) { y[j, i] = x[i, j] }", "N", 2147483648LL},
	{"gather V=INT64_MAX", "kernel k(t: f32[V] strides(0), i: i64[8]) -> (y: f32[8]) { y[s] = t[wrap(i[s], V)] }",
	 "V", 9223372036854775807LL},
	{"tpu unfold (6, 1048576)",
	 "kernel k(x: f32[6, 1048576]) -> (y: f32[16, 9]) { y[p, q] = x[p // 4 + q // 3, p % 4 + q % 3] }", NULL, 0},
	{"offset INT64_MAX", "kernel k(x: f32[1] offset 9223372036854775807) -> (y: f32[1]) { y[i] = x[i] }", NULL, 0},
};

static void bench_case(int i)
{
	athene_ctx *c = athene_create();
	double t0 = now();
	const char *what = "ok";
	if (athene_load(c, "case.ath", CASES[i].src) || athene_kernel_count(c) != 1)
		what = "error at load";
	double tcheck = now() - t0;
	if (athene_kernel_count(c) != 1)
		printf("check  %-44s %8.3f s  %s\n", CASES[i].name, tcheck, what);
	for (int tg = 0; tg < 2 && athene_kernel_count(c) == 1; tg++) {
		athene_inst *in = athene_instance(athene_kernel_at(c, 0));
		t0 = now();
		if (CASES[i].sym && athene_bind_size(in, CASES[i].sym, CASES[i].value))
			what = "error";
		int rc = athene_compile(in);
		double tc = now() - t0;
		const char *text = rc ? NULL : athene_explain(in, tg ? "tpu" : "cpu", 0);
		double te = now() - t0;
		if (!text)
			what = strstr(athene_inst_errors(in), "internal") ? "INTERNAL ERROR" : "error";
		char label[96];
		snprintf(label, sizeof label, "%s (%s)", CASES[i].name, tg ? "tpu" : "cpu");
		printf("check  %-44s %8.3f s\nexplain %-43s %8.3f s  %s\n", label, tcheck + tc, label, te, what);
		athene_instance_free(in);
	}
	athene_destroy(c);
}

int main(void)
{
	bench_parse();
	bench_many_kernels(2500);
	bench_many_kernels(10000);
	bench_many_params(2500);
	bench_many_params(10000);
	for (int i = 0; i < (int)(sizeof CASES / sizeof CASES[0]); i++)
		bench_case(i);
	return 0;
}
