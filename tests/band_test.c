/* Statements that run band by band (exec.c, run_band): Inductor's norms as
 * it hands them over (a reduction into a let, a let of it, an epilogue that
 * reads both) and kernels built to break the rules, against the
 * interpreter, bit for bit (any NaN equals any NaN), with 1, 2 and 3
 * threads, with SIMD and with the portable loops. Each kernel says whether
 * its statements run in bands, and the executor's count of banded groups
 * (exec_banded) must agree: a reduction and its epilogue in bands; no bands
 * where an epilogue reads a let in other rows (reversed, transposed), where
 * every statement is small (few points times few instructions: a statement
 * of few points and many instructions is not), or where an output overlaps
 * an input (the same storage passed for both: in statement order the column
 * maxima are taken before any row is written, in bands they would not be).
 * Three rounds run on another runtime's team of threads (pool_set_team).
 * And a large output in fresh memory is advised to use huge pages
 * (advise_fresh). */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include <math.h>
#include <pthread.h>
#include <sys/mman.h>

#include "cpu/exec.h"
#include "testlib.h"

static const char *src =
	/* softmax, as Inductor writes it */
	"kernel softmax(x: f32[301, 517]) -> (y: f32[301, 517]) {\n"
	"    let m[i < 301] = max(r < 517: x.flat[517 * i + r])\n"
	"    let s[i < 301] = sum(r < 517: exp(x.flat[517 * i + r] - m[i]))\n"
	"    y[i, r] = exp(x.flat[517 * i + r] - m[i]) / s[i]\n"
	"}\n"
	/* RMSNorm: a small let between the reduction and the epilogue */
	"kernel rmsnorm(x: f32[299, 600], w: f32[600]) -> (y: f32[299, 600]) {\n"
	"    let s[i < 299] = sum(r < 600: x.flat[600 * i + r] * x.flat[600 * i + r])\n"
	"    let q[i < 299] = rsqrt(s[i] / f32(600.0) + f32(1e-6))\n"
	"    y[i, r] = x.flat[600 * i + r] * q[i] * w[r]\n"
	"}\n"
	/* LayerNorm: two reductions, the second reading the first */
	"kernel layernorm(x: f32[257, 333], w: f32[333], b: f32[333]) -> (y: f32[257, 333]) {\n"
	"    let s[i < 257] = sum(r < 333: x[i, r])\n"
	"    let m[i < 257] = s[i] / f32(333.0)\n"
	"    let v[i < 257] = sum(r < 333: (x[i, r] - m[i]) * (x[i, r] - m[i]))\n"
	"    let q[i < 257] = rsqrt(v[i] / f32(333.0) + f32(1e-5))\n"
	"    y[i, r] = (x[i, r] - m[i]) * q[i] * w[r] + b[r]\n"
	"}\n"
	/* three dims, two outputs, f64 */
	"kernel three(x: f64[70, 30, 40]) -> (y: f64[70, 30, 40], z: f64[70]) {\n"
	"    let s[i < 70] = sum(j, k: x[i, j, k])\n"
	"    y[i, j, k] = x[i, j, k] / s[i]\n"
	"    z[i] = s[i] * 2.0\n"
	"}\n"
	/* the epilogue reads the let in other rows: statement order */
	"kernel reversed(x: f32[300, 200]) -> (y: f32[300, 200]) {\n"
	"    let m[i < 300] = max(r < 200: x[i, r])\n"
	"    y[i, r] = x[i, r] - m[299 - i]\n"
	"}\n"
	"kernel across(x: f32[256, 256]) -> (y: f32[256, 256]) {\n"
	"    let m[i < 256, j < 256] = sum(k < 2: x[i, j] * f32(k))\n"
	"    y[i, j] = m[j, i] + 1.0\n"
	"}\n"
	/* every statement small: one after the other on the calling thread */
	"kernel small(x: f32[30, 20]) -> (y: f32[30, 20]) {\n"
	"    let m[i < 30] = max(r < 20: x[i, r])\n"
	"    y[i, r] = x[i, r] - m[i]\n"
	"}\n"
	/* few points, many instructions: the epilogue's work (1024 points
	 * times 19 instructions) is more than a statement run alone (exec.c,
	 * alone), so the two run in bands */
	"kernel busy(x: f32[32, 32]) -> (y: f32[32, 32]) {\n"
	"    let m[i < 32] = max(r < 32: x[i, r])\n"
	"    y[i, r] = ((((((((x[i, r] - m[i]) * f32(1.1) + f32(2.0)) * f32(0.9) + f32(3.0)) * f32(1.2) - f32(1.0))\n"
	"              * f32(0.8) + f32(0.5)) * f32(1.3) - f32(2.5)) * f32(0.7) + f32(1.5)) * f32(1.05) - f32(0.25))\n"
	"              * f32(0.95) + f32(0.125)\n"
	"}\n"
	/* column maxima, then rows: run in place (y the storage of x) below */
	"kernel colmax(x: f32[200, 200]) -> (y: f32[200, 200]) {\n"
	"    let m[i < 200] = max(k < 200: x[k, i])\n"
	"    y[i, j] = x[i, j] - m[i]\n"
	"}\n";

/* Does kernel k run in bands (when its storage does not overlap)? */
static bool bands(const char *k)
{
	return !strcmp(k, "softmax") || !strcmp(k, "rmsnorm") || !strcmp(k, "layernorm") || !strcmp(k, "three") ||
	       !strcmp(k, "colmax") || !strcmp(k, "busy");
}

static void fill(void *p, athene_dtype dt, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		unsigned r = rnd(1000);
		athene_store_f64(p, dt, i, r == 0 ? NAN : r == 1 ? -0.0 : (double)rnd(20001) / 2000.0 - 5.0);
	}
}

/* Runs kernel in (inputs filled, storage buffers allocated) with the
 * interpreter and with the executor on threads threads; inplace: the first
 * output shares the first input's storage. A fresh instance each time: an
 * earlier run's lets, which the instance keeps, would hide a band that
 * reads rows of a let no statement wrote yet. */
static void check_kernel(athene_inst *in, const char *name, bool inplace, int threads)
{
	int np = athene_kernel_nparams(athene_instance_kernel(in));
	athene_param pi[8];
	void *ref[8], *got[8], *init[8];
	size_t bytes[8];
	for (int p = 0; p < np; p++) {
		athene_param_info(in, p, &pi[p]);
		bytes[p] = (size_t)pi[p].storage_elems * athene_dtype_size(pi[p].dtype);
		init[p] = malloc(bytes[p] ? bytes[p] : 1);
		ref[p] = malloc(bytes[p] ? bytes[p] : 1);
		got[p] = malloc(bytes[p] ? bytes[p] : 1);
		if (pi[p].is_output)
			memset(init[p], 0x55, bytes[p]);
		else
			fill(init[p], pi[p].dtype, pi[p].storage_elems);
	}
	int y = 0;
	while (y < np && !pi[y].is_output)
		y++;
	athene_status st;
	for (int p = 0; p < np; p++)
		memcpy(ref[p], init[p], bytes[p]);
	void *sref[8], *sgot[8];
	for (int p = 0; p < np; p++)
		sref[p] = ref[p], sgot[p] = got[p];
	if (inplace)
		sref[y] = ref[0], sgot[y] = got[0];
	bool ok = !athene_run(in, sref, ATHENE_REFERENCE, &st);
	kcheck(ok, "the interpreter runs", name, 0);
	if (ok) {
		athene_set_threads(threads);
		for (int p = 0; p < np; p++)
			memcpy(got[p], init[p], bytes[p]);
		int64_t before = exec_banded();
		bool ran = !athene_run(in, sgot, 0, &st);
		bool all = ran;
		for (int p = 0; p < np; p++)
			all = all && (!pi[p].is_output || (inplace && p == y) || kcheck_same_bits(ref[p], got[p], pi[p].dtype, pi[p].storage_elems));
		if (inplace)
			all = all && kcheck_same_bits(ref[0], got[0], pi[0].dtype, pi[0].storage_elems);
		kcheck(all, "the executor's bits are the interpreter's", name, threads);
		bool want = bands(name) && !inplace;
		kcheck((exec_banded() - before == 1) == want, want ? "runs in bands" : "runs statement by statement", name,
		       threads);
	}
	athene_set_threads(0);
	for (int p = 0; p < np; p++)
		free(init[p]), free(ref[p]), free(got[p]);
}

/* A team of threads as an OpenMP runtime's GOMP_parallel runs one: fn on
 * the caller and on nthreads - 1 threads started for the region, joined
 * before it returns (pool_set_team). */
typedef struct {
	void (*fn)(void *);
	void *data;
} Region;

static void *region_thread(void *arg)
{
	const Region *r = arg;
	r->fn(r->data);
	return NULL;
}

static void fake_team(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags)
{
	(void)flags;
	pthread_t t[8];
	Region r = {fn, data};
	unsigned n = 0;
	while (n + 1 < nthreads && n < 8 && !pthread_create(&t[n], NULL, region_thread, &r))
		n++;
	fn(data);
	for (unsigned i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/* The VmFlags of the mapping that holds address a (/proc/self/smaps), into
 * flags; false when there is none to read. */
static bool vm_flags(const void *a, char *flags, size_t cap)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return false;
	char line[512];
	bool in = false, found = false;
	while (!found && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)a >= lo && (uintptr_t)a < hi;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(flags, cap, "%s", line + 8);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* A large output in fresh memory (mapped, not yet written: as a large
 * malloc gets it) is advised to use huge pages over its whole 2 MiB pages
 * (advise_fresh: its first write then faults once per 2 MiB, not per 4
 * KiB); one already in memory is left as it is. Both get the interpreter's
 * values. Where the system has no smaps to read, or no transparent huge
 * pages, only the values are checked. */
static void check_fresh(void)
{
	athene_ctx *c = kcheck_load("band_test_fresh", "kernel scale(x: f32[1024, 2048]) -> (y: f32[1024, 2048]) {\n"
	                                                "    let s[i < 1024] = sum(j: x[i, j])\n"
	                                                "    y[i, j] = x[i, j] * 2.0 - s[i]\n"
	                                                "}\n");
	if (!c)
		return;
	athene_inst *in = kcheck_instance(athene_kernel_at(c, 0));
	size_t n = (size_t)1024 * 2048, bytes = n * sizeof(float), huge = (size_t)2 << 20;
	float *x = malloc(bytes), *ref = malloc(bytes);
	char *fresh = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *used = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (in && x && ref && fresh != MAP_FAILED && used != MAP_FAILED) {
		fill(x, ATHENE_F32, (int64_t)n);
		athene_status st;
		void *sref[2] = {x, ref};
		kcheck(!athene_run(in, sref, ATHENE_REFERENCE, &st), "the interpreter runs", "fresh", 0);
		/* outputs 64 bytes past a 2 MiB boundary, as a malloc'd block
		 * would lie: whole huge pages from the next boundary on */
		float *yf = (float *)(fresh + 64), *yu = (float *)(used + 64);
		memset(used, 0x55, bytes + huge);
		void *sf[2] = {x, yf}, *su[2] = {x, yu};
		bool ran = !athene_run(in, sf, 0, &st) && !athene_run(in, su, 0, &st);
		kcheck(ran && kcheck_same_bits(ref, yf, ATHENE_F32, (int64_t)n) && kcheck_same_bits(ref, yu, ATHENE_F32, (int64_t)n),
		       "the executor's bits are the interpreter's in fresh and used memory", "fresh", 0);
		char ff[512], fu[512];
		const char *af = (const char *)(((uintptr_t)yf + huge - 1) & ~(uintptr_t)(huge - 1));
		const char *au = (const char *)(((uintptr_t)yu + huge - 1) & ~(uintptr_t)(huge - 1));
		/* a kernel without transparent huge pages refuses the advice: then
		 * only the values are checked */
		void *probe = mmap(NULL, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		bool thp = probe != MAP_FAILED && !madvise(probe, huge, MADV_HUGEPAGE);
		if (probe != MAP_FAILED)
			munmap(probe, huge);
		if (thp && vm_flags(af, ff, sizeof ff) && vm_flags(au, fu, sizeof fu)) {
			kcheck(strstr(ff, " hg") != NULL, "fresh memory of an output is advised to use huge pages", "fresh", 0);
			kcheck(strstr(fu, " hg") == NULL, "memory in use is left as it is", "fresh", 0);
		}
	}
	if (fresh != MAP_FAILED)
		munmap(fresh, bytes + huge);
	if (used != MAP_FAILED)
		munmap(used, bytes + huge);
	free(x), free(ref);
	athene_instance_free(in);
	athene_destroy(c);
}

int main(void)
{
	rng = 20261206;
	athene_ctx *c = kcheck_load("band_test", src);
	if (!c)
		return kcheck_report();
	int64_t team_before = pool_team_runs();
	for (int round = 0; round < 12; round++) {
		copy_set_portable(round >= 9); /* the last three rounds: the portable C loops (sum_rows) */
		/* rounds 3 to 5: on another runtime's team of threads */
		pool_set_team(round >= 3 && round < 6 ? (void *)fake_team : NULL);
		for (int k = 0; k < athene_kernel_count(c); k++) {
			athene_kernel *kn = athene_kernel_at(c, k);
			const char *name = athene_kernel_name(kn);
			for (int inplace = 0; inplace <= !strcmp(name, "colmax"); inplace++) {
				athene_inst *in = kcheck_instance(kn);
				if (in)
					check_kernel(in, name, inplace, 1 + round % 3);
				athene_instance_free(in);
			}
		}
	}
	copy_set_portable(false);
	pool_set_team(NULL);
	kcheck(pool_team_runs() > team_before, "runs on another runtime's team when given one", "band_test", 2);
	athene_destroy(c);
	check_fresh();
	return kcheck_report();
}
