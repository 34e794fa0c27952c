/* Row gathers y[s, d] = t[idx[s], d], which the executor runs in loops of
 * their own (exec.c fast_rows; stage.c copy_gathered_rows for i64 and i32
 * indices with rows of whole 32-byte chunks), against the interpreter,
 * byte for byte, with 1, 2 and 3 threads: tables of 1- to 8-byte elements, rows of 1 to
 * 128 elements, i64, i32, i16 and u8 indices, with and without wrap(),
 * table and output at addresses off their lines (as NumPy's are), and one
 * output large enough to be streamed, run streamed and not. A third of the
 * runs hold one index just outside its range (or far outside): every run
 * must then fail with the interpreter's message, and with ATHENE_UNTOUCHED
 * leave the output as it was. */
#include "cpu/exec.h"
#include "testlib.h"

/* Storage for n elements of es bytes at off bytes past a 64-byte line. */
typedef struct {
	char *mem, *p;
	size_t bytes;
} Mem;

static void mem_make(Mem *b, int64_t n, size_t es, size_t off)
{
	b->bytes = (size_t)(n > 0 ? n : 1) * es;
	b->mem = malloc(b->bytes + 128);
	b->p = (char *)(((uintptr_t)b->mem + 63) & ~(uintptr_t)63) + off;
}

/* One kernel: V table rows of D elements of dt, S output rows, indices
 * of it (wrap: taken through wrap(idx, V)); out_off and t_off move the
 * output and the table off their lines. */
static void run_case(athene_dtype dt, int64_t D, athene_dtype it, bool wrap, int64_t V, int64_t S, size_t t_off,
                     size_t out_off, int bad)
{
	char src[512], name[96], index[64];
	const char *tn = athene_dtype_name(dt), *itn = athene_dtype_name(it);
	snprintf(name, sizeof name, "g_%s_%lld_%s%s", tn, (long long)D, itn, wrap ? "_wrap" : "");
	snprintf(index, sizeof index, wrap ? "wrap(idx[s], %lld)" : "idx[s]", (long long)V);
	snprintf(src, sizeof src,
	         "kernel %s(t: %s[%lld, %lld], idx: %s[%lld]) -> (y: %s[%lld, %lld]) {\n"
	         "    y[s, d] = t[%s, d]\n}\n",
	         name, tn, (long long)V, (long long)D, itn, (long long)S, tn, (long long)S, (long long)D, index);
	athene_ctx *c = kcheck_load(name, src);
	if (!c)
		return;
	athene_inst *in = kcheck_instance(athene_kernel_at(c, 0));
	if (!in) {
		athene_destroy(c);
		return;
	}
	size_t es = athene_dtype_size(dt), is = athene_dtype_size(it);
	Mem t, ix, ref, got;
	mem_make(&t, V * D, es, t_off);
	mem_make(&ix, S, is, 0);
	mem_make(&ref, S * D, es, out_off);
	mem_make(&got, S * D, es, out_off);
	for (int64_t e = 0; e < V * D; e++)
		athene_store_i64(t.p, dt, e, (int64_t)rnd(251));
	int64_t lo = wrap ? -V : 0, hi = V - 1;
	for (int64_t s = 0; s < S; s++)
		athene_store_i64(ix.p, it, s, lo + (int64_t)rnd((unsigned)(hi - lo + 1)));
	if (bad) { /* one index just past either end, or far past */
		int64_t v = bad == 1 ? hi + 1 : bad == 2 ? lo - 1 : hi + 1 + (int64_t)rnd(100);
		if (it == ATHENE_U8 && v < 0)
			v = hi + 1;
		athene_store_i64(ix.p, it, (int64_t)rnd((unsigned)S), v);
	}
	void *sref[3] = {t.p, ix.p, ref.p}, *sgot[3] = {t.p, ix.p, got.p};
	athene_status rs, gs;
	memset(ref.p, 0x5a, ref.bytes);
	int rrc = athene_run(in, sref, ATHENE_REFERENCE, &rs);
	kcheck((rrc != 0) == (bad != 0), "the interpreter fails exactly when an index is bad", name, 0);
	for (int threads = 1; threads <= 3; threads++)
		for (int flags = 0; flags <= ATHENE_UNTOUCHED; flags += ATHENE_UNTOUCHED) {
			athene_set_threads(threads);
			memset(got.p, 0x5a, got.bytes);
			int grc = athene_run(in, sgot, flags, &gs);
			kcheck((grc != 0) == (rrc != 0), "fails as the interpreter does", name, threads);
			if (rrc && grc)
				kcheck(!strcmp(rs.message, gs.message), "the interpreter's message", name, threads);
			if (!rrc && !grc)
				kcheck(!memcmp(ref.p, got.p, ref.bytes), "the interpreter's bytes", name, threads);
			if (grc && flags) {
				bool same = true;
				for (size_t b = 0; b < got.bytes; b++)
					same &= (unsigned char)got.p[b] == 0x5a;
				kcheck(same, "a failed untouched run leaves the output as it was", name, threads);
			}
		}
	athene_set_threads(0);
	free(t.mem), free(ix.mem), free(ref.mem), free(got.mem);
	athene_instance_free(in);
	athene_destroy(c);
}

int main(void)
{
	rng = 20261205;
	static const athene_dtype dts[] = {ATHENE_F32, ATHENE_F64, ATHENE_F16, ATHENE_U8, ATHENE_I32, ATHENE_BF16};
	static const athene_dtype its[] = {ATHENE_I64, ATHENE_I64, ATHENE_I32, ATHENE_I16, ATHENE_U8};
	static const int64_t widths[] = {1, 3, 8, 16, 32, 64, 128};
	for (size_t a = 0; a < sizeof dts / sizeof *dts; a++)
		for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
			athene_dtype it = its[rnd(5)];
			bool wrap = rnd(2) && it != ATHENE_U8;
			int64_t V = it == ATHENE_U8 ? 200 : 1000 + (int64_t)rnd(50), S = 2000 + (int64_t)rnd(1500);
			size_t off = rnd(3) == 0 ? 0 : athene_dtype_size(dts[a]) * (1 + rnd(7)) % 64;
			size_t out_off = rnd(2) ? 0 : 16;
			int bad = rnd(3) ? 0 : 1 + (int)rnd(3);
			run_case(dts[a], widths[w], it, wrap, V, S, off, out_off, bad);
		}
	/* i64 indices into rows of whole lines, every way */
	for (int bad = 0; bad <= 3; bad++)
		for (int k = 0; k < 4; k++)
			run_case(ATHENE_F32, 16 << (k % 2), ATHENE_I64, k >= 2, 1500, 3000, k % 2 ? 16 : 0, k % 3 ? 16 : 0, bad);
	/* an output of 12 MiB, streamed where its rows are whole lines (with an
	 * L3 smaller than what the kernel touches), and not (a larger one) */
	for (int l3 = 0; l3 < 2; l3++) {
		copy_set_l3(l3 ? (int64_t)1 << 40 : 1);
		run_case(ATHENE_F32, 128, ATHENE_I64, false, 4096, 24576, 0, 0, 0);
		run_case(ATHENE_F32, 128, ATHENE_I64, true, 4096, 24576, 16, 16, 0);
		run_case(ATHENE_F32, 128, ATHENE_I64, false, 4096, 24576, 0, 0, 1);
	}
	copy_set_l3(0);
	return kcheck_report();
}
