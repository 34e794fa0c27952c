/* What the nanoGPT block's two slowest small kernels cost as one compiled
 * loop each, against the register machine that runs them now: the causal
 * softmax of (8, 32, 32) and the GELU of 16,384 floats, as Inductor hands
 * them to athene (docs/torch.md, "Models"). Each hand loop keeps the
 * language's semantics (the same f32 exp and erf as the executor, a float
 * sum in double in the domain's order, f32 arithmetic rounded at each op),
 * and the probe checks that its output has the executor's bits. Both run
 * on one thread, in alternating rounds of the same length, each keeping its
 * best time; the line prints both and their ratio.
 *   loop_probe [--rounds N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/simd.h"

static const char *src =
	"kernel softmax(x: f32[8, 32, 32]) -> (y: f32[8, 32, 32]) {\n"
	"    let m[a < 8, i < 32] = max(r < 32: where(!((((-1 * i) + r) <= 0) && true), f32(-inf),"
	" (x.flat[1024 * a + 32 * i + r] / f32(4.0))))\n"
	"    let s[a < 8, i < 32] = sum(r < 32: exp((where(!((((-1 * i) + r) <= 0) && true), f32(-inf),"
	" (x.flat[1024 * a + 32 * i + r] / f32(4.0))) - m[a, i])))\n"
	"    y[a, i, r] = (exp((where(!((((-1 * i) + r) <= 0) && true), f32(-inf),"
	" (x.flat[1024 * a + 32 * i + r] / f32(4.0))) - m[a, i])) / s[a, i])\n"
	"}\n"
	"kernel gelu(x: f32[64, 256]) -> (y: f32[16384]) {\n"
	"    y[i] = ((x.flat[i] * f32(0.5)) * (erf((x.flat[i] * f32(0.7071067811865476))) + f32(1.0)))\n"
	"}\n";

/* The softmax's rows: the masked row in registers, its maximum, exp of
 * the differences, their sum in double in order, the quotients. */
AVX2_FN static void softmax_loop(const float *x, float *y)
{
	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	for (int row = 0; row < 256; row++) {
		const float *xr = x + 32 * row;
		float *yr = y + 32 * row;
		__m256 v[4], e[4], mx = _mm256_set1_ps(-INFINITY);
		for (int k = 0; k < 4; k++) {
			__m256i r = _mm256_add_epi32(_mm256_set1_epi32(8 * k), lane);
			__m256 masked = _mm256_castsi256_ps(_mm256_cmpgt_epi32(r, _mm256_set1_epi32(row % 32)));
			__m256 q = _mm256_div_ps(_mm256_loadu_ps(xr + 8 * k), _mm256_set1_ps(4.0f));
			v[k] = _mm256_blendv_ps(q, _mm256_set1_ps(-INFINITY), masked);
			mx = _mm256_max_ps(mx, v[k]);
		}
		float t[32];
		_mm256_storeu_ps(t, mx);
		float m = t[0];
		for (int i = 1; i < 8; i++)
			m = t[i] > m ? t[i] : m; /* no NaN in this input */
		for (int k = 0; k < 4; k++) {
			e[k] = exp8(_mm256_sub_ps(v[k], _mm256_set1_ps(m)));
			_mm256_storeu_ps(t + 8 * k, e[k]);
		}
		double s = 0;
		for (int i = 0; i < 32; i++)
			s += t[i];
		__m256 sv = _mm256_set1_ps((float)s);
		for (int k = 0; k < 4; k++)
			_mm256_storeu_ps(yr + 8 * k, _mm256_div_ps(e[k], sv));
	}
}

AVX2_FN static void gelu_loop(const float *x, float *y)
{
	for (int i = 0; i < 16384; i += 8) {
		__m256 a = _mm256_loadu_ps(x + i);
		__m256 h = _mm256_mul_ps(a, _mm256_set1_ps(0.5f));
		__m256 e = erf8(_mm256_mul_ps(a, _mm256_set1_ps(0.7071067811865476f)));
		_mm256_storeu_ps(y + i, _mm256_mul_ps(h, _mm256_add_ps(e, _mm256_set1_ps(1.0f))));
	}
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	int rounds = argc == 3 && !strcmp(argv[1], "--rounds") ? atoi(argv[2]) : 15;
	if (rounds < 1 || !__builtin_cpu_supports("avx2")) {
		fprintf(stderr, rounds < 1 ? "usage: loop_probe [--rounds N]\n" : "loop_probe: no AVX2 on this CPU\n");
		return 2;
	}
	athene_ctx *c = athene_create();
	if (!c || athene_load(c, "loop_probe", src)) {
		fprintf(stderr, "loop_probe: %s\n", c ? athene_errors(c) : "no context");
		return 1;
	}
	athene_set_threads(1);
	int bad = 0;
	for (int k = 0; k < 2; k++) {
		athene_kernel *kn = athene_kernel_at(c, k);
		athene_inst *in = athene_instance(kn);
		if (!in || athene_compile(in)) {
			fprintf(stderr, "loop_probe: %s\n", in ? athene_inst_errors(in) : "no instance");
			return 1;
		}
		float *x = athene_alloc(16384 * 4), *ya = athene_alloc(16384 * 4), *yl = athene_alloc(16384 * 4);
		unsigned r = 20261207;
		for (int i = 0; i < 16384; i++) {
			r = r * 1103515245u + 12345u;
			x[i] = (float)((int)(r >> 16) % 2001 - 1000) / 300.0f;
		}
		void *st[2] = {x, ya};
		double ta = 1e9, tl = 1e9;
		int reps = 2000;
		for (int round = 0; round < rounds; round++) {
			athene_status s;
			double t0 = now();
			for (int i = 0; i < reps; i++)
				if (athene_run(in, st, 0, &s)) {
					fprintf(stderr, "loop_probe: %s\n", s.message);
					return 1;
				}
			double t1 = now();
			for (int i = 0; i < reps; i++)
				k ? gelu_loop(x, yl) : softmax_loop(x, yl);
			double t2 = now();
			ta = t1 - t0 < ta ? t1 - t0 : ta;
			tl = t2 - t1 < tl ? t2 - t1 : tl;
		}
		bool same = !memcmp(ya, yl, 16384 * 4);
		bad += !same;
		printf("%-8s  register machine %7.2f us  compiled loop %7.2f us  ratio %5.2f  %s\n", athene_kernel_name(kn),
		       ta / reps * 1e6, tl / reps * 1e6, ta / tl, same ? "same bits" : "DIFFERENT BITS");
		athene_free(x, 16384 * 4), athene_free(ya, 16384 * 4), athene_free(yl, 16384 * 4);
		athene_instance_free(in);
	}
	athene_destroy(c);
	return bad ? 1 : 0;
}
