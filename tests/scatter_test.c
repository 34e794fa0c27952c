/* Scatters into an output updated in place, y[s < S, d < D: idx[s], d] = t[s, d]
 * (= and +=, through dims with and without wrap(), and through .flat), which
 * the executor runs in two phases (exec.c run_scatter: points in parallel,
 * stores in point order), against the interpreter, byte for byte, with 1, 2
 * and 3 threads: dtypes of 1 to 8 bytes, indices with many duplicates (so
 * += sums several values into one element, and = keeps the last), outputs
 * that start from values of their own (elements no point writes keep
 * them), and enough points for several tasks. A third of the runs hold one
 * index just outside its range (or far outside): every run must then fail
 * with the interpreter's message and leave the output as it was, with or
 * without ATHENE_UNTOUCHED (a scatter checks every point before it writes). */
#include "testlib.h"

static void fill(void *p, athene_dtype dt, int64_t n)
{
	for (int64_t e = 0; e < n; e++)
		if (athene_dtype_is_float(dt))
			athene_store_f64(p, dt, e, ((double)rnd(2001) - 1000.0) / 64.0);
		else
			athene_store_i64(p, dt, e, (int64_t)rnd(dt == ATHENE_BOOL ? 2 : 100));
}

/* form 0: y[..: idx[s], d], 1: y[..: wrap(idx[s], V), d], 2: y.flat[..: idx[s] * D + d] */
static void run_case(athene_dtype dt, athene_dtype it, int form, bool accum, int64_t V, int64_t D, int64_t S, int bad)
{
	char src[600], name[96], target[96];
	const char *tn = athene_dtype_name(dt), *itn = athene_dtype_name(it);
	snprintf(name, sizeof name, "sc_%s_%s_%d%s_%lld", tn, itn, form, accum ? "_acc" : "", (long long)D);
	if (form == 2)
		snprintf(target, sizeof target, "y.flat[s < %lld, d < %lld: idx[s] * %lld + d]", (long long)S, (long long)D,
		         (long long)D);
	else
		snprintf(target, sizeof target, "y[s < %lld, d < %lld: %s, d]", (long long)S, (long long)D,
		         form ? "wrap(idx[s], V)" : "idx[s]");
	snprintf(src, sizeof src,
	         "kernel %s(t: %s[%lld, %lld], idx: %s[%lld]) -> (y: %s[V, %lld]) {\n"
	         "    %s %s t[s, d]\n}\n",
	         name, tn, (long long)S, (long long)D, itn, (long long)S, tn, (long long)D, target, accum ? "+=" : "=");
	athene_ctx *c = kcheck_load(name, src);
	if (!c)
		return;
	athene_kernel *k = athene_kernel_at(c, 0);
	athene_inst *in = athene_instance(k);
	if (athene_bind_size(in, "V", V) || athene_compile(in)) {
		kcheck(false, athene_inst_errors(in), name, 0);
		athene_instance_free(in);
		athene_destroy(c);
		return;
	}
	athene_param yp;
	athene_param_info(in, 2, &yp);
	kcheck(yp.is_output == 2, "the output is updated in place", name, 0);
	size_t es = athene_dtype_size(dt), is = athene_dtype_size(it), ybytes = (size_t)(V * D) * es;
	char *t = malloc((size_t)(S * D) * es + 1), *ix = malloc((size_t)S * is + 1);
	char *y0 = malloc(ybytes + 1), *ref = malloc(ybytes + 1), *got = malloc(ybytes + 1);
	fill(t, dt, S * D);
	fill(y0, dt, V * D);
	int64_t lo = form == 1 ? -V : 0, hi = V - 1, few = 1 + (int64_t)rnd(8); /* few distinct rows: duplicates */
	for (int64_t s = 0; s < S; s++)
		athene_store_i64(ix, it, s, rnd(2) ? lo + (int64_t)rnd((unsigned)(hi - lo + 1)) : hi - (int64_t)rnd((unsigned)few));
	if (bad) {
		int64_t v = bad == 1 ? hi + 1 : bad == 2 ? lo - 1 : hi + 1 + (int64_t)rnd(100);
		if (it == ATHENE_U8 && v < 0)
			v = hi + 1;
		athene_store_i64(ix, it, (int64_t)rnd((unsigned)S), v);
	}
	void *sref[3] = {t, ix, ref}, *sgot[3] = {t, ix, got};
	athene_status rs, gs;
	memcpy(ref, y0, ybytes);
	int rrc = athene_run(in, sref, ATHENE_REFERENCE, &rs);
	kcheck((rrc != 0) == (bad != 0), "the interpreter fails exactly when an index is bad", name, 0);
	kcheck(!rrc || !memcmp(ref, y0, ybytes), "a failed interpreter run leaves the output as it was", name, 0);
	for (int threads = 1; threads <= 3; threads++)
		for (int flags = 0; flags <= ATHENE_UNTOUCHED; flags += ATHENE_UNTOUCHED) {
			athene_set_threads(threads);
			memcpy(got, y0, ybytes);
			int grc = athene_run(in, sgot, flags, &gs);
			kcheck((grc != 0) == (rrc != 0), "fails as the interpreter does", name, threads);
			if (rrc && grc)
				kcheck(!strcmp(rs.message, gs.message), "the interpreter's message", name, threads);
			if (!rrc && !grc)
				kcheck(!memcmp(ref, got, ybytes), "the interpreter's bytes", name, threads);
			if (grc)
				kcheck(!memcmp(got, y0, ybytes), "a failed run leaves the output as it was", name, threads);
		}
	athene_set_threads(0);
	kcheck(athene_inst_clean_errors(in) == 1, "a scatter alone fails clean", name, 0);
	free(t), free(ix), free(y0), free(ref), free(got);
	athene_instance_free(in);
	athene_destroy(c);
}

int main(void)
{
	rng = 20261206;
	static const athene_dtype dts[] = {ATHENE_F32, ATHENE_F64, ATHENE_F16, ATHENE_BF16, ATHENE_I32, ATHENE_U8,
	                                   ATHENE_I64, ATHENE_I8, ATHENE_BOOL};
	static const athene_dtype its[] = {ATHENE_I64, ATHENE_I32, ATHENE_I16, ATHENE_U8};
	for (size_t a = 0; a < sizeof dts / sizeof *dts; a++)
		for (int form = 0; form < 3; form++)
			for (int accum = 0; accum < 2; accum++) {
				athene_dtype it = its[rnd(4)];
				if (form == 1 && it == ATHENE_U8)
					it = ATHENE_I32;
				int64_t V = it == ATHENE_U8 ? 200 : 50 + (int64_t)rnd(500), D = 1 + (int64_t)rnd(9);
				int64_t S = 200 + (int64_t)rnd(3000);
				int bad = rnd(3) ? 0 : 1 + (int)rnd(3);
				run_case(dts[a], it, form, accum, V, D, S, bad);
			}
	/* many tasks: 12288 points at 3 threads, each way */
	for (int bad = 0; bad <= 1; bad++)
		for (int form = 0; form < 3; form++)
			run_case(ATHENE_F32, ATHENE_I64, form, form != 1, 64, 4, 3072, bad);
	return kcheck_report();
}
