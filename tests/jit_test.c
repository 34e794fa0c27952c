/* Compiled statements (cpu/jit.c) against the interpreter: every kernel of
 * the given files and of the built-in list below (the kernels Inductor
 * hands athene for a nanoGPT block, and bodies built to reach every branch
 * of the generator: each op of the op table, casts, bitcasts, nested and
 * multi-variable reductions of every kind, split variables, tails of every
 * length, several threads) is run by the interpreter and by the executor
 * with ATHENE_JIT=sync on the same random inputs, each on a fresh instance:
 * the outputs must agree bit for bit (any NaN equals any NaN) with 1 and 3
 * threads (the files' kernels with 3), and the built-in kernels must run every statement the generator
 * writes through compiled code (jit_ran counts them). A kernel whose every
 * statement the generator declines runs on the register machine and is
 * still checked. The compiled objects go to a fresh cache folder, and a
 * second pass loads them from it.
 *   jit_test [SYM=INT]... FILE... */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/vm.h"
#include "testlib.h"

/* Kernels that move more elements than this are left out (two runs through
 * the interpreter would take minutes). */
#define MAX_ELEMS (1 << 20)

static const char *builtin =
	/* the nanoGPT block's kernels as Inductor writes them */
	"kernel layernorm(a: f32[2, 32, 64], w: f32[64], b: f32[64]) -> (y: f32[64, 64]) {\n"
	"    let t1[x < 64] = sum(r < 64: a.flat[64 * x + r])\n"
	"    let t3[x < 64] = t1[x] / f32(64.0)\n"
	"    let t7[x < 64] = sum(r < 64: (a.flat[64 * x + r] - t3[x]) * (a.flat[64 * x + r] - t3[x]))\n"
	"    let t13[x < 64] = rsqrt(t7[x] / f32(64.0) + f32(1e-05))\n"
	"    y[x, r] = (a.flat[64 * x + r] - t3[x]) * t13[x] * w.flat[r] + b.flat[r]\n"
	"}\n"
	"kernel softmax(b: f32[8, 32, 32]) -> (y: f32[8, 32, 32]) {\n"
	"    let m[x1 < 8, x0 < 32] = max(r < 32: where(!(((-1 * x0 + r) <= 0) && true), f32(-inf),"
	" b.flat[1024 * x1 + 32 * x0 + r] / f32(4.0)))\n"
	"    let s[x1 < 8, x0 < 32] = sum(r < 32: exp(where(!(((-1 * x0 + r) <= 0) && true), f32(-inf),"
	" b.flat[1024 * x1 + 32 * x0 + r] / f32(4.0)) - m[x1, x0]))\n"
	"    y[x1, x0, r] = exp(where(!(((-1 * x0 + r) <= 0) && true), f32(-inf),"
	" b.flat[1024 * x1 + 32 * x0 + r] / f32(4.0)) - m[x1, x0]) / s[x1, x0]\n"
	"}\n"
	/* torch's safe softmax: the masked, scaled load written out at each
	 * of its uses, as three operands of one tensor (the generator's
	 * repeats merged) */
	"kernel safe_softmax(b: f32[8, 32, 32]) -> (y: f32[8, 32, 32]) {\n"
	"    let nf[x1 < 8, x0 < 32] = any(r < 32: !(((where(r > x0, f32(-inf), b.flat[1024 * x1 + 32 * x0 + r]) / f32(4.0))"
	" == (where(r > x0, f32(-inf), b.flat[1024 * x1 + 32 * x0 + r]) / f32(4.0))) && (abs(where(r > x0, f32(-inf),"
	" b.flat[1024 * x1 + 32 * x0 + r]) / f32(4.0)) != f32(inf))))\n"
	"    let m[x1 < 8, x0 < 32] = max(r < 32: where(r > x0, f32(-inf), b.flat[1024 * x1 + 32 * x0 + r]) / f32(4.0))\n"
	"    y[x1, x0, r] = where(nf[x1, x0], exp(where(r > x0, f32(-inf), b.flat[1024 * x1 + 32 * x0 + r] * f32(2.0))"
	" / f32(8.0) - m[x1, x0]), exp(where(r > x0, f32(-inf), b.flat[1024 * x1 + 32 * x0 + r]) / f32(4.0) - m[x1, x0]))\n"
	"}\n"
	"kernel gelu(b: f32[64, 256]) -> (y: f32[16384]) {\n"
	"    y[x] = b.flat[x] * f32(0.5) * (erf(b.flat[x] * f32(0.7071067811865476)) + f32(1.0))\n"
	"}\n"
	"kernel add3(a: f32[2, 32, 64], b: f32[64, 64], c: f32[64, 64]) -> (y: f32[4096]) {\n"
	"    y[x] = a.flat[x] + b.flat[x] + c.flat[x]\n"
	"}\n"
	/* float functions, in f32 (the vector forms) and f64 (through val_op), tails of 1 to 7 */
	"kernel funcs(x: f32[37, 19], z: f64[37, 19]) -> (y: f32[37, 19], w: f64[37, 19]) {\n"
	"    y[i, j] = exp(x[i, j]) + sigmoid(x[i, j]) * tanh(x[i, j]) - erf(x[i, j]) + log(abs(x[i, j]))"
	" + sqrt(abs(x[i, j])) * rsqrt(abs(x[i, j]) + 1.0) + sin(x[i, j]) + relu(x[i, j]) + sign(x[i, j])"
	" + floor(x[i, j]) + ceil(x[i, j]) + round(x[i, j]) + trunc(x[i, j]) + pow(abs(x[i, j]), x[i, j])"
	" + atan2(x[i, j], f32(0.5)) + clamp(x[i, j], -1.0, 1.0) + max(x[i, j], -x[i, j]) + min(x[i, j], f32(0.25))\n"
	"    w[i, j] = exp(z[i, j]) + tanh(z[i, j]) + erf(z[i, j]) / sqrt(abs(z[i, j]) + 1.0) + where(isnan(z[i, j]),"
	" 1.0, lgamma(abs(z[i, j]) + 0.5)) + max(z[i, j], 0.0) - min(z[i, j], 0.0)\n"
	"}\n"
	/* integers: wrapping arithmetic, floor division and modulo, bits, casts both ways */
	"kernel ints(a: i32[45], b: i32[45], c: i8[45], u: u8[45], q: bool[45], f: f32[45]) ->"
	" (y: i32[45], z: i64[45], v: f32[45], k: bool[45], s: i16[45], h: i32[45]) {\n"
	"    y[i] = a[i] * b[i] + a[i] // (b[i] % 7) - b[i] % (a[i] // 3 + 1) + max(a[i], b[i]) - abs(a[i]) * sign(b[i])\n"
	"    z[i] = i64(a[i]) * i64(b[i]) + i64(c[i]) - i64(u[i]) + (i64(a[i]) & 255) + (i64(b[i]) | 3) + (i64(a[i]) ^ 9)"
	" + (i64(a[i]) << 2) + (i64(b[i]) >> 1) + i64(f[i])\n"
	"    v[i] = f32(a[i]) + f32(c[i]) * f32(0.5) + f32(u[i]) + f32(q[i]) + f32(i64(a[i]) * 1000003)\n"
	"    k[i] = (a[i] < b[i] && q[i]) || !(c[i] >= i8(0)) || f[i] != f[i] || f[i] > 1.0\n"
	"    s[i] = i16(f[i] * f32(1000.0)) + i16(a[i])\n"
	"    h[i] = i32.bits(f[i]) ^ i32(u8.bits(c[i]))\n"
	"}\n"
	/* index arithmetic in values: i64 whose ranges fit in 32 bits computed in
	 * 32 (a causal mask), products past 32 bits kept in 64 and wrapped by a
	 * cast; any and all over rows of 8 lanes, of bools and of floats (-0.0
	 * is false, NaN true) */
	"kernel masks(x: f32[4, 32, 40], n: i32[4, 32, 40]) -> (y: f32[4, 32, 40], z: i64[4, 32, 40], an: bool[4, 32],"
	" al: bool[4, 32], af: bool[4, 32], w: i32[4, 32, 40]) {\n"
	"    y[b, i, r] = where(r - i >= 1, f32(-inf), x[b, i, r]) + f32((-1) * i + r * 3)\n"
	"    z[b, i, r] = i64(n[b, i, r]) * 100000 + (r - i) * 70000 * i - b + max(r, i) * min(-r, 3 - i)\n"
	"    an[b, i] = any(r: n[b, i, r] > 150)\n"
	"    al[b, i] = all(r: x[b, i, r] < 4.0 || r > i)\n"
	"    af[b, i] = any(r: x[b, i, r] * f32(0.0))\n"
	"    w[b, i, r] = i32(where(r > i, r * 40000 - i, -r)) + i32(-(i - r) * 65536 * 32768)\n"
	"}\n"
	/* reductions of every kind the generator writes, over several variables, nested */
	"kernel reds(x: f32[13, 6, 11], n: i32[13, 6, 11], q: bool[13, 6, 11]) ->"
	" (s: f32[13], m: f32[13], p: f64[13], a: f32[13], mi: i32[13], si: i64[13], an: bool[13], al: bool[13],"
	" nest: f32[13], sp: f32[6, 11]) {\n"
	"    s[i] = sum(j, k: x[i, j, k])\n"
	"    m[i] = max(j, k: x[i, j, k])\n"
	"    p[i] = prod(j, k: f64(x[i, j, k]) * 0.5 + 1.0)\n"
	"    a[i] = mean(j, k: x[i, j, k])\n"
	"    mi[i] = min(j, k: n[i, j, k])\n"
	"    si[i] = sum(j, k: i64(n[i, j, k]))\n"
	"    an[i] = any(j, k: q[i, j, k])\n"
	"    al[i] = all(j, k: q[i, j, k] || x[i, j, k] > -4.0)\n"
	"    nest[i] = sum(j: max(k: x[i, j, k]) * sum(k: x[i, j, k] * x[i, j, k]))\n"
	"    sp[j, k] = sum(i: x[i, j, k]) / max(i: abs(x[i, j, k]) + 1.0)\n"
	"}\n"
	/* split variables (the flat offsets of a reshape and a permutation), on several threads */
	"kernel split(x: f32[24, 10, 16]) -> (y: f32[16, 240], z: f32[3840]) {\n"
	"    y[c, r] = x.flat[(r // 10) * 160 + (r % 10) * 16 + c] * f32(2.0)\n"
	"    z[i] = x.flat[i] + f32(i // 16) - f32(i % 7)\n"
	"}\n"
	"kernel wide(x: f32[300, 301], v: f32[301]) -> (y: f32[300, 301], s: f32[300]) {\n"
	"    y[i, j] = x[i, j] * v[j] + f32(i) - f32(j)\n"
	"    s[i] = sum(j: x[i, j] * v[j])\n"
	"}\n"
	"kernel scalar(x: f32[7]) -> (y: f32[], z: f32[7]) {\n"
	"    y = sum(i: x[i]) + f32(1.0)\n"
	"    z[i] = x[i] * sum(j: x[j])\n"
	"}\n";

/* Kernels the generator declines, run for the executor's other paths on
 * these inputs: a column gather through a flat offset, whose index can be
 * legal at a row's first point and not at its others (the row copy read
 * past the table; the statement now runs point by point). */
static const char *declined =
	"kernel colgather(t: f32[16, 64], idx: i64[5]) -> (out: f32[16, 5]) {\n"
	"    out[i, j] = t.flat[where(idx.flat[j] < 0, idx.flat[j] + 64, idx.flat[j]) + 64 * i]\n"
	"}\n"
	"kernel rowgather(t: f32[64, 32], idx: i64[10]) -> (y: f32[320]) {\n"
	"    y[x] = t.flat[x % 32 + 32 * idx[x // 32] + 5]\n"
	"}\n";

static long failed, compiled;

static void fill(void *p, athene_dtype dt, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		unsigned r = rnd(20000);
		double v = r == 0 ? NAN : r == 1 ? -0.0 : r == 2 ? INFINITY : (double)rnd(20001) / 2000.0 - 5.0;
		if (!athene_dtype_is_float(dt)) /* small, and now and then large enough to wrap */
			v = r < 500 ? (double)rnd(2000000000) * (r % 2 ? 1 : -1) : (double)(int64_t)rnd(401) - 200;
		athene_store_f64(p, dt, i, v);
	}
}

/* Runs kernel k by the interpreter and by the executor (compiled) on a
 * fresh instance each, threads threads; want: every statement the
 * generator writes must run compiled (false: whatever it declines). */
static void check(athene_kernel *k, int threads, bool want)
{
	const char *name = athene_kernel_name(k);
	athene_inst *ref = kf_instance(k), *got = kf_instance(k);
	if (!ref || !got) {
		kcheck(false, "compiles", name, 0);
		athene_instance_free(ref);
		athene_instance_free(got);
		return;
	}
	int np = athene_kernel_nparams(k);
	athene_param pi[16];
	void *a[16], *b[16];
	size_t bytes[16];
	int64_t elems = 0;
	for (int p = 0; p < np && p < 16; p++) {
		athene_param_info(ref, p, &pi[p]);
		elems += pi[p].storage_elems;
	}
	if (np > 16 || elems > MAX_ELEMS) {
		athene_instance_free(ref);
		athene_instance_free(got);
		return;
	}
	for (int p = 0; p < np; p++) {
		bytes[p] = (size_t)pi[p].storage_elems * athene_dtype_size(pi[p].dtype);
		a[p] = malloc(bytes[p] ? bytes[p] : 1);
		b[p] = malloc(bytes[p] ? bytes[p] : 1);
		if (pi[p].is_output)
			memset(a[p], 0x55, bytes[p]);
		else
			fill(a[p], pi[p].dtype, pi[p].storage_elems);
		memcpy(b[p], a[p], bytes[p]);
	}
	athene_status st;
	int rref = athene_run(ref, a, ATHENE_REFERENCE, &st);
	athene_set_threads(threads);
	int64_t before = jit_ran();
	int rgot = athene_run(got, b, 0, &st);
	int64_t ran = jit_ran() - before;
	athene_set_threads(0);
	bool same = rref == rgot;
	for (int p = 0; same && !rref && p < np; p++)
		same = kcheck_same_bits(a[p], b[p], pi[p].dtype, pi[p].storage_elems);
	kcheck(same, "compiled statements give the interpreter's bits", name, threads);
	kcheck(!want || ran > 0, "runs compiled statements", name, threads);
	compiled += ran;
	for (int p = 0; p < np; p++)
		free(a[p]), free(b[p]);
	athene_instance_free(ref);
	athene_instance_free(got);
}

/* The kernels of c with 1 and 3 threads (the files': 3 only). */
static void check_all(athene_ctx *c, bool want)
{
	for (int j = 0; j < athene_kernel_count(c); j++)
		for (int t = want ? 1 : 3; t <= 3; t += 2)
			check(athene_kernel_at(c, j), t, want);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/athene-jit-test-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("ATHENE_CACHE_DIR", dir, 1);
	setenv("ATHENE_JIT", "sync", 1);
	rng = 20261207;
	for (int k = 0; k < 20; k++) { /* fresh inputs each time */
		athene_ctx *c = kcheck_load("declined", declined);
		if (c)
			check_all(c, false);
		athene_destroy(c);
	}
	for (int pass = 0; pass < 2; pass++) { /* the second loads from the cache */
		athene_ctx *c = kcheck_load("builtin", builtin);
		if (c)
			check_all(c, true);
		athene_destroy(c);
	}
	for (int i = 1; i < argc; i++) {
		if (kf_size_arg(argv[i]))
			continue;
		char *src = kf_read(argv[i]);
		athene_ctx *c = athene_create();
		if (!src || athene_load(c, argv[i], src)) {
			fprintf(stderr, "FAIL %s does not load\n%s", argv[i], athene_errors(c));
			failed++;
		} else {
			check_all(c, false);
		}
		athene_destroy(c);
		free(src);
	}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "jit_test: could not remove %s\n", dir);
	printf("jit_test: %ld statement runs compiled\n", compiled);
	kcheck(!failed, "every file loads and every kernel compiles", "jit_test", 0);
	return kcheck_report();
}
