/* The executor's paths that depend on the core's tuning (stage.c,
 * core_profile), run under each of the four tunings whatever the host,
 * against the interpreter, bit for bit, with 1 to 3 threads: fused chains
 * over a transposed load (tiles of whole source rows or of the plan's
 * blocks, the two threads on two halves of the same rows; bands at source
 * pitches that are a multiple of 4 KiB, with a last block of fewer lines,
 * a last 8 rows, blocks of 96 columns, a side per output row; sub-tiles
 * for sides read along rows; rows and columns left over at the edges, one
 * or two such sides, at pitches of whole lines and not, outputs big
 * enough to stream whose rows are off their lines), and streamed
 * transposes: in bands at 4 KiB pitches, with edges in both dims, into an
 * output with gaps between its rows, of short rows; into destination rows
 * no multiple of 64 bytes apart (put together in an L1 buffer on an Intel
 * core), at a 4 KiB pitch too. */
#include <math.h>

#include "cpu/exec.h"
#include "testlib.h"

static const char *src =
	"kernel relu_4k(x: f32[256, 4096], s: f32[256], b: f32[256]) -> (y: f32[4096, 256]) {\n"
	"    y[i, j] = relu(x[j, i] * s[j] + b[j])\n"
	"}\n"
	"kernel affine_4k(x: f32[96, 3072], s: f32[96], b: f32[96]) -> (y: f32[3072, 96]) {\n"
	"    y[i, j] = x[j, i] * s[j] - b[j]\n"
	"}\n"
	"kernel relu_odd(x: f32[203, 1030], s: f32[203], b: f32[203]) -> (y: f32[1030, 203]) {\n"
	"    y[i, j] = relu(x[j, i] * s[j] + b[j])\n"
	"}\n"
	"kernel max_edges(x: f32[77, 1019], s: f32[77]) -> (y: f32[1019, 77]) {\n"
	"    y[i, j] = max(x[j, i] * s[j], 0.25)\n"
	"}\n"
	"kernel side_rows(x: f32[128, 1024], z: f32[1024, 128]) -> (y: f32[1024, 128]) {\n"
	"    y[i, j] = x[j, i] + z[i, j]\n"
	"}\n"
	"kernel sides_odd(x: f32[77, 1001], z: f32[1001, 77], w: f32[1001, 77]) -> (y: f32[1001, 77]) {\n"
	"    y[i, j] = x[j, i] * z[i, j] - w[i, j]\n"
	"}\n"
	"kernel relu_off_lines(x: f32[1025, 2048], s: f32[1025], b: f32[1025]) -> (y: f32[2048, 1025]) {\n"
	"    y[i, j] = relu(x[j, i] * s[j] + b[j])\n"
	"}\n"
	"kernel side_off_lines(x: f32[1025, 2048], z: f32[2048, 1025]) -> (y: f32[2048, 1025]) {\n"
	"    y[i, j] = x[j, i] + z[i, j]\n"
	"}\n"
	"kernel div_4k(x: f32[64, 4096], s: f32[64]) -> (y: f32[4096, 64]) {\n"
	"    y[i, j] = x[j, i] / s[j]\n"
	"}\n"
	"kernel relu_4k_tail(x: f32[48, 4088] strides(4096, 1), s: f32[48], b: f32[48]) -> (y: f32[4088, 48]) {\n"
	"    y[i, j] = relu(x[j, i] * s[j] + b[j])\n"
	"}\n"
	"kernel relu_wide_4k(x: f32[96, 256] strides(1024, 1), s: f32[96], b: f32[96]) -> (y: f32[256, 96]) {\n"
	"    y[i, j] = relu(x[j, i] * s[j] + b[j])\n"
	"}\n"
	"kernel row_scale_4k(x: f32[80, 2040] strides(2048, 1), t: f32[2040]) -> (y: f32[2040, 80]) {\n"
	"    y[i, j] = x[j, i] * t[i] + 1.5\n"
	"}\n"
	"kernel tr_odd_rows(x: f32[1030, 2040]) -> (y: f32[2040, 1030]) {\n"
	"    y[i, j] = x[j, i]\n"
	"}\n"
	"kernel tr_4k(x: f32[1024, 2048]) -> (y: f32[2048, 1024]) {\n"
	"    y[i, j] = x[j, i]\n"
	"}\n"
	"kernel tr_4k_edges(x: f32[1048, 2040] strides(2048, 1)) -> (y: f32[2040, 1048] strides(1056, 1)) {\n"
	"    y[i, j] = x[j, i]\n"
	"}\n"
	"kernel tr_4k_off_lines(x: f32[1030, 2048]) -> (y: f32[2048, 1030]) {\n"
	"    y[i, j] = x[j, i]\n"
	"}\n"
	"kernel tr_4k_short(x: f32[64, 704, 48]) -> (y: f32[48, 704, 64]) {\n"
	"    y[i, j, k] = x[k, j, i]\n"
	"}\n";

static const int profiles[] = {COPY_PROFILE_SMALL_L1, COPY_PROFILE_SMALL_L1_LARGE_L2, COPY_PROFILE_LARGE_L1,
			       COPY_PROFILE_LARGE_L1_INTEL};

/* Values with signs, zeros and a few NaNs and infinities. */
static void fill(float *p, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		unsigned r = rnd(1000);
		p[i] = r == 0 ? NAN : r == 1 ? INFINITY : r < 20 ? -0.0f : (float)((double)rnd(200001) / 1000.0 - 100.0);
	}
}

int main(void)
{
	rng = 20261205;
	athene_ctx *c = kcheck_load("tuning_test", src);
	if (!c)
		return kcheck_report();
	copy_set_l3(1); /* outputs of 8 MiB and more stream, whatever this host's L3 */
	for (int k = 0; k < athene_kernel_count(c); k++) {
		athene_kernel *kn = athene_kernel_at(c, k);
		const char *name = athene_kernel_name(kn);
		athene_inst *in = kcheck_instance(kn);
		if (!in)
			continue;
		int np = athene_kernel_nparams(kn), out = np - 1;
		void *ref[8] = {0}, *got[8] = {0};
		size_t bytes[8];
		for (int p = 0; p < np; p++) {
			athene_param pi;
			athene_param_info(in, p, &pi);
			bytes[p] = (size_t)pi.storage_elems * 4;
			ref[p] = got[p] = big_alloc(bytes[p]);
			if (p < out)
				fill(ref[p], pi.storage_elems);
		}
		got[out] = big_alloc(bytes[out]);
		athene_status st;
		memset(ref[out], 0xaa, bytes[out]); /* as got[out]: an output with gaps between its rows */
		bool ok = !athene_run(in, ref, ATHENE_REFERENCE, &st);
		kcheck(ok, "the interpreter runs", name, 0);
		for (int q = 0; ok && q < (int)(sizeof profiles / sizeof *profiles); q++)
			for (int threads = 1; threads <= 3; threads++) {
				copy_set_profile(profiles[q]);
				athene_set_threads(threads);
				memset(got[out], 0xaa, bytes[out]);
				bool ran = !athene_run(in, got, 0, &st);
				char what[96];
				snprintf(what, sizeof what, "the executor's bits are the interpreter's under tuning %d", q);
				kcheck(ran && !memcmp(ref[out], got[out], bytes[out]), what, name, threads);
			}
		copy_set_profile(COPY_PROFILE_AUTO);
		athene_set_threads(0);
		for (int p = 0; p < np; p++)
			big_free(ref[p], bytes[p]);
		big_free(got[out], bytes[out]);
		athene_instance_free(in);
	}
	athene_destroy(c);
	return kcheck_report();
}
