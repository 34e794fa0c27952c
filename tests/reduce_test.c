/* Float reductions of one plain load (sum, mean, max, min of f32 and f64),
 * which the register machine runs with its lanes side by side or four
 * rows' chains at a time (vm.c, reduce_fast), against the interpreter, bit
 * for bit (any NaN equals any NaN), with 1 and 2 threads: rows and columns,
 * more lanes than a unit holds, counts that are no multiple of four, two
 * reduction variables, strided and transposed reads, a 2-D output; data
 * full of signed zeros and ties (max and min keep the first of equal
 * values: -0.0 before 0.0), NaNs (they win) and infinities. Also kernels
 * the fast form does not take (a guard, a reduction of an expression), so
 * the two paths meet in one test, and reductions of expressions over short
 * rows, which run many rows to a unit (reduce_batch; vm_batched says
 * which did): every reduction op, several outer and inner variables, a
 * mask on the index variables, f64 and f16, and epilogues over rows of 40
 * and 45 floats; and a pointwise tree whose rows are short. Float max
 * and min of contiguous rows by vectors (row_extreme), and a softmax
 * whose row values are spread over a unit's lanes. */
#include <math.h>

#include "cpu/exec.h"
#include "testlib.h"

static const char *src =
	"kernel rows(x: f32[37, 1029]) -> (y: f32[37]) { y[i] = sum(j: x[i, j]) }\n"
	"kernel cols(x: f32[1029, 1031]) -> (y: f32[1031]) { y[j] = sum(i: x[i, j]) }\n"
	"kernel rowmax(x: f32[2051, 19]) -> (y: f32[2051]) { y[i] = max(j: x[i, j]) }\n"
	"kernel colmin(x: f64[33, 70]) -> (y: f64[70]) { y[j] = min(i: x[i, j]) }\n"
	"kernel colmax(x: f64[5, 2000]) -> (y: f64[2000]) { y[j] = max(i: x[i, j]) }\n"
	"kernel rowmin(x: f64[300, 41]) -> (y: f64[300]) { y[i] = min(j: x[i, j]) }\n"
	"kernel mean2(x: f32[6, 50, 7]) -> (y: f32[50]) { y[j] = mean(a, c: x[a, j, c]) }\n"
	"kernel sum3(x: f64[9, 11, 13]) -> (y: f64[11]) { y[j] = sum(i, k: x[i, j, k]) }\n"
	"kernel max4(x: f32[3, 10, 4, 6]) -> (y: f32[10]) { y[j] = max(a, b, c: x[a, j, b, c]) }\n"
	"kernel tmax(x: f32[40, 300]) -> (y: f32[300]) { y[i] = max(k: x[k, i]) }\n"
	"kernel strided(x: f32[64, 200]) -> (y: f32[64]) { y[i] = sum(k < 50: x[i, 4*k + 1]) }\n"
	"kernel out2d(x: f32[20, 30, 40]) -> (y: f32[20, 40]) { y[i, k] = min(j: x[i, j, k]) }\n"
	"kernel rev(x: f32[17, 90]) -> (y: f32[17]) { y[i] = max(j < 90: x[16 - i, 89 - j]) }\n"
	"kernel wide(x: f32[3, 5000]) -> (y: f64[3]) { y[i] = f64(mean(j: x[i, j])) }\n"
	"kernel one(x: f32[1, 1]) -> (y: f32[1]) { y[i] = min(j: x[i, j]) }\n"
	/* float max and min of contiguous rows by vectors (row_extreme), where
	 * no NaN or zero makes the order matter: rows of 8, of 40 with no value
	 * above zero (z_: their max is a signed zero, the first of the row), of
	 * 1000, and a domain of three variables that is one contiguous run */
	"kernel rowmax8(x: f32[4000, 8]) -> (y: f32[4000]) { y[i] = max(j: x[i, j]) }\n"
	"kernel z_rowmax(x: f32[500, 40]) -> (y: f32[500]) { y[i] = max(j: x[i, j]) }\n"
	"kernel rowmin1000(x: f32[90, 1000]) -> (y: f32[90]) { y[i] = min(j: x[i, j]) }\n"
	"kernel runmax3(x: f32[50, 4, 7, 9]) -> (y: f32[50]) { y[i] = max(a, b, c: x[i, a, b, c]) }\n"
	/* float sums of contiguous rows (sum_rows's vector chains), of finite
	 * values of like magnitudes (f_: an infinity, or a value of 1e25, in a
	 * long row would hide a wrong element) */
	"kernel f_rows(x: f32[37, 1029]) -> (y: f32[37]) { y[i] = sum(j: x[i, j]) }\n"
	"kernel f_run2(x: f32[5, 3, 700]) -> (y: f32[5]) { y[i] = mean(a, b: x[i, a, b]) }\n"
	"kernel guarded(x: f32[40, 30]) -> (y: f32[40]) {\n"
	"    y[i] = where(i % 3 == 0, sum(j: x[i, j]), -1.0)\n"
	"}\n"
	"kernel expr(x: f32[40, 30]) -> (y: f32[40]) { y[i] = max(j: x[i, j] * 2.0) }\n"
	/* short rows of an expression, many rows to a unit (reduce_batch): b_ must
	 * run so, n_ must not */
	"kernel b_causal(x: f32[8, 32, 32]) -> (y: f32[8, 32]) {\n"
	"    y[b, i] = max(j: where(j > i, f32(-inf), x[b, i, j] / 4.0))\n"
	"}\n"
	"kernel b_sumsq(x: f32[64, 64]) -> (y: f32[64]) { y[i] = sum(j: (x[i, j] - 1.5) * (x[i, j] - 1.5)) }\n"
	"kernel b_mean2(x: f32[7, 9, 5, 6]) -> (y: f32[7, 9]) { y[a, b] = mean(c, d: x[a, b, c, d] * 2.0) }\n"
	"kernel b_min3(x: f64[300, 3]) -> (y: f64[300]) { y[i] = min(j: x[i, j] + 1.0) }\n"
	"kernel b_prod(x: f32[40, 12]) -> (y: f32[40]) { y[i] = prod(j: x[i, j] * 0.5) }\n"
	"kernel b_argmin(x: f32[50, 20]) -> (y: i64[50]) { y[i] = argmin(j: x[i, j] - 1.0) }\n"
	"kernel b_chunk(x: f32[5, 100, 24]) -> (y: f32[5, 100]) { y[a, b] = max(k: x[a, b, k] - 0.25) }\n"
	"kernel b_half(x: f16[30, 20]) -> (y: f16[30]) { y[i] = sum(j: x[i, j] * x[i, j]) }\n"
	/* and their epilogues, rows of 40 and 45 floats (their whole vectors
	 * in one step, then one by one) */
	"kernel b_rows40(x: f32[70, 40]) -> (y: f32[70, 40]) {\n"
	"    let s[i < 70] = sum(j < 40: x[i, j] * x[i, j])\n"
	"    y[i, j] = x[i, j] / s[i] + 1.0\n"
	"}\n"
	"kernel b_rows45(x: f32[70, 45]) -> (y: f32[70, 45]) {\n"
	"    let s[i < 70] = max(j < 45: x[i, j] * 3.0)\n"
	"    y[i, j] = exp(x[i, j] - s[i])\n"
	"}\n"
	"kernel n_long(x: f32[9, 600]) -> (y: f32[9]) { y[i] = sum(j: x[i, j] * 2.0) }\n"
	/* a softmax over rows of 300: a unit is one row, and the lets read along
	 * it are one value each, spread over the lanes, not staged */
	"kernel u_softmax(x: f32[70, 300]) -> (y: f32[70, 300]) {\n"
	"    let m[i < 70] = max(j < 300: x[i, j])\n"
	"    let s[i < 70] = sum(j < 300: exp(x[i, j] - m[i]))\n"
	"    y[i, j] = exp(x[i, j] - m[i]) / s[i]\n"
	"}\n"
	/* a pointwise tree whose rows (c) are short: its longest dim (b) serves
	 * as the rows (vm.c, pw_box) */
	"kernel t_short(x: f32[3, 2, 40, 24]) -> (y: f32[3, 40, 2, 24]) {\n"
	"    y[a, b, c, d] = x[a, c, b, d] * 2.0 - x[a, c, b, d] * x[a, c, b, d]\n"
	"}\n";

/* Values full of ties and signed zeros, some far apart in magnitude, and
 * NaNs in some tensors; none above zero when nonpos; when finite, no
 * infinity or NaN and none far apart (a sum of them shows every value). */
static void fill(void *p, athene_dtype dt, int64_t n, bool nans, bool nonpos, bool finite)
{
	static const double pick[] = {0.0, -0.0, 1.0, -1.0, 2.5, -2.5, INFINITY, -INFINITY};
	for (int64_t i = 0; i < n; i++) {
		unsigned r = rnd(100);
		double v = r < 50 ? pick[rnd(6)] : r < 52 ? pick[6 + rnd(2)] : (double)rnd(20001) / 1000.0 - 10.0;
		if (r >= 52 && r < 60 && !finite) /* magnitudes a double sum loses bits over: its order shows */
			v *= r < 56 ? 1e25 : 1e-20;
		if (finite && isinf(v))
			v = 3.0;
		if (nonpos && v > 0)
			v = -v;
		if (nans && rnd(200) == 0)
			v = NAN;
		athene_store_f64(p, dt, i, v);
	}
}

int main(void)
{
	rng = 20261205;
	athene_ctx *c = kcheck_load("reduce_test", src);
	if (!c)
		return kcheck_report();
	for (int round = 0; round < 8; round++)
		for (int k = 0; k < athene_kernel_count(c); k++) {
			athene_kernel *kn = athene_kernel_at(c, k);
			const char *name = athene_kernel_name(kn);
			athene_inst *in = kcheck_instance(kn);
			if (!in)
				continue;
			athene_param px, py;
			athene_param_info(in, 0, &px);
			athene_param_info(in, 1, &py);
			size_t xb = (size_t)px.storage_elems * athene_dtype_size(px.dtype);
			size_t yb = (size_t)py.storage_elems * athene_dtype_size(py.dtype);
			void *x = malloc(xb), *ref = malloc(yb), *got = malloc(yb);
			bool finite = name[0] == 'f' && name[1] == '_';
			fill(x, px.dtype, px.storage_elems, !finite && (round % 7 == 3 || (round + k) % 5 == 0),
			     name[0] == 'z' && name[1] == '_', finite);
			athene_status st;
			void *sref[2] = {x, ref}, *sgot[2] = {x, got};
			memset(ref, 0x55, yb);
			bool ok = !athene_run(in, sref, ATHENE_REFERENCE, &st);
			kcheck(ok, "the interpreter runs", name, 0);
			for (int threads = 1; ok && threads <= 2; threads++) {
				athene_set_threads(threads);
				memset(got, 0xaa, yb);
				int64_t before = vm_batched();
				bool ran = !athene_run(in, sgot, 0, &st);
				if (name[0] == 'b' && name[1] == '_')
					kcheck(vm_batched() > before, "runs many rows to a unit", name, threads);
				if (name[0] == 'n' && name[1] == '_')
					kcheck(vm_batched() == before, "runs a row to a unit", name, threads);
				kcheck(ran && kcheck_same_bits(ref, got, py.dtype, py.storage_elems), "the executor's bits are the interpreter's",
				      name, threads);
			}
			athene_set_threads(0);
			free(x), free(ref), free(got);
			athene_instance_free(in);
		}
	athene_destroy(c);
	return kcheck_report();
}
