/* Compile-time benchmark: for every kernel of the given files, the time from
 * source text to checked, lowered and simplified IR (parse -> check -> bind
 * -> lower -> simplify), and then the time of the access analysis and block
 * planning for the cpu and tpu targets; best of several repetitions, in
 * microseconds.
 * Size symbols are bound from SYM=INT arguments, or to 64 when not given.
 *   compile_bench [SYM=INT]... FILE... */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends.h"
#include "testlib.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}


/* Start of the 'kernel' keyword of a kernel whose name is at offset off. */
static int kernel_start(const char *src, int off)
{
	while (off > 0 && strncmp(src + off, "kernel", 6))
		off--;
	return off;
}

/* Time to compile one kernel's source text from scratch (load, bind, the
 * passes through the analysis), and to plan it for both targets, in
 * microseconds. */
static double time_one(const char *file, const char *text, double *plan_us)
{
	double best = 1e30;
	*plan_us = 1e30;
	for (int rep = 0; rep < 50; rep++) {
		double t0 = now_us();
		athene_ctx *c = athene_create();
		athene_load(c, file, text);
		athene_kernel *k = athene_kernel_at(c, 0);
		athene_inst *in = k ? kf_instance(k) : NULL;
		if (!in) {
			athene_destroy(c);
			return -1;
		}
		double t1 = now_us();
		Target tb;
		plan_inst(in, target_for(target_named("cpu"), 4, &tb));
		plan_inst(in, target_for(target_named("tpu"), 4, &tb));
		double t2 = now_us();
		athene_destroy(c);
		best = t1 - t0 < best ? t1 - t0 : best;
		*plan_us = (t2 - t1) / 2 < *plan_us ? (t2 - t1) / 2 : *plan_us;
	}
	return best;
}

int main(int argc, char **argv)
{
	double worst = 0, total = 0, pworst = 0, ptotal = 0;
	int n = 0;
	for (int a = 1; a < argc; a++) {
		if (kf_size_arg(argv[a]))
			continue;
		char *src = kf_read(argv[a]);
		if (!src)
			continue;
		athene_ctx *c = athene_create();
		int nk = athene_load(c, argv[a], src) ? 0 : athene_kernel_count(c);
		for (int i = 0; i < nk; i++) {
			Kernel *k = athene_kernel_at(c, i), *next = athene_kernel_at(c, i + 1);
			int from = kernel_start(src, k->sp.off);
			int to = next ? kernel_start(src, next->sp.off) : (int)strlen(src);
			char *text = strndup(src + from, (size_t)(to - from));
			double pt, t = time_one(argv[a], text, &pt);
			free(text);
			if (t < 0)
				continue;
			printf("%-24s %-32s compile %7.1f us  plan %7.1f us\n", argv[a],
			       athene_kernel_name(athene_kernel_at(c, i)), t, pt);
			worst = t > worst ? t : worst;
			total += t;
			pworst = pt > pworst ? pt : pworst;
			ptotal += pt;
			n++;
		}
		athene_destroy(c);
		free(src);
	}
	printf("%d kernels: compile mean %.1f us, worst %.1f us (each from its own source text)\n", n,
	       n ? total / n : 0, worst);
	printf("%d kernels: analyse+plan per target mean %.1f us, worst %.1f us\n", n, n ? ptotal / n : 0, pworst);
	return 0;
}
