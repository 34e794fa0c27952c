/* Pallas emission benchmark: for every kernel of the given files, the time
 * of athene_emit for that kernel alone (the module text, --target pallas),
 * best of 20 after a first call that also builds the tpu plan and the body
 * IR (reported on its own), in microseconds.
 * Size symbols are bound from SYM=INT arguments, or to 64 when not given.
 *   emit_bench [SYM=INT]... FILE... */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "athene.h"
#include "testlib.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	double worst = 0, total = 0;
	int n = 0, failed = 0;
	for (int a = 1; a < argc; a++) {
		if (kf_size_arg(argv[a]))
			continue;
		char *src = kf_read(argv[a]);
		athene_ctx *c = athene_create();
		int nk = src && !athene_load(c, argv[a], src) ? athene_kernel_count(c) : 0;
		for (int i = 0; i < nk; i++) {
			athene_inst *in = kf_instance(athene_kernel_at(c, i));
			if (!in)
				continue;
			double t0 = now_us();
			const char *text = athene_emit(&in, 1, "pallas", NULL);
			double first = now_us() - t0, best = 1e30;
			for (int rep = 0; text && rep < 20; rep++) {
				t0 = now_us();
				athene_emit(&in, 1, "pallas", NULL);
				double t = now_us() - t0;
				best = t < best ? t : best;
			}
			if (!text) {
				printf("%-24s %-32s not emitted: %s", argv[a], athene_kernel_name(athene_kernel_at(c, i)),
				       athene_inst_errors(in));
				failed++;
			} else {
				printf("%-24s %-32s emit %7.1f us  (first, with plan and body: %7.1f us)\n", argv[a],
				       athene_kernel_name(athene_kernel_at(c, i)), best, first);
				worst = best > worst ? best : worst;
				total += best;
				n++;
			}
			athene_instance_free(in);
		}
		athene_destroy(c);
		free(src);
	}
	printf("%d kernels emitted (%d not): emit mean %.1f us, worst %.1f us\n", n, failed, n ? total / n : 0, worst);
	return 0;
}
