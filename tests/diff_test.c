/* Differential test of the native executor (athene_run with flags 0)
 * against the reference interpreter (ATHENE_REFERENCE), through the public
 * API only.
 *
 * Each case is a random kernel written as source text from a seed: outputs
 * of rank 0-5 with sizes 0 and 1 among the others; loads through views
 * (permutations, slices with steps of either sign, reversed, broadcast and
 * constant dims, splits and merges of dims, overlapping windows); flat
 * offsets with // and % (reshuffles, repeats, tiles, collapsed
 * permutations); row gathers along any axis from index tensors of rank 0-2,
 * with and without wrap, nested, clamped, guarded by where, and through
 * .flat; reductions of every kind with explicit and inferred bounds (empty
 * ones too); lets read once (fused) and read by reductions and pointwise
 * ops (materialised); every dtype with casts and mixed promotion, and every
 * op of the op table. Inputs get layouts declared in the source or given at
 * run time with athene_bind_layout (negative and zero strides, offsets);
 * outputs get permuted and padded layouts. Sizes are literals or symbols
 * (bound by name or from a shape). Index tensors hold valid values from
 * athene_index_range, and in some cases one value outside it; other
 * integer inputs small values, or in a quarter of them values of the whole
 * range of their dtype, so that arithmetic overflows and wraps.
 *
 * A case is compiled once and run by the interpreter, then by the executor
 * with 1 thread and with T threads (--threads, default 3), on the same
 * inputs, each into its own output buffers; then by the executor with T
 * threads on a copy of the inputs at other addresses, and in some cases at
 * the same time by a second instance of the kernel on another thread (two
 * instances may run at once; this test's one use of POSIX, pthreads, whose
 * threads ThreadSanitizer sees). The runs must agree:
 *  - all succeed, or all fail with the same first line of the message;
 *  - every storage element of every output is bit-identical (any NaN
 *    equals any NaN), except that values computed from a float sum, mean or
 *    prod may differ by |a - b| <= 1e-5*|b| + 1e-6 (f32, f64), or by
 *    1e-2*|b| + 1e-3 (f16, bf16), the dtype being the narrower of the
 *    reduction's and the output's; the generator lets such a value reach an
 *    output only through ops that keep that bound (a cast to a float, a
 *    scale by 0.5, neg, abs, min or max with an exact value), and never
 *    into an integer, a comparison, an index or another sum. No op is left
 *    out for being implementation-sensitive: the transcendental functions
 *    (exp, log, sin, tanh, erf, pow, atan2, ...) are compared bit for bit
 *    too, since the language evaluates them in double and rounds once;
 *  - the executor's outputs with 1 and with T threads are bit-identical
 *    (its reductions run in an order independent of the thread count);
 *  - inputs are unchanged, and no byte outside any parameter's storage
 *    changed (random guard bytes around every buffer; buffers start at
 *    element-aligned but not always vector-aligned addresses).
 * A kernel that fails to load or compile is a failure too: the generator
 * only writes valid kernels.
 *
 * Usage: diff_test [--seed S] [--count N] [--threads T] [--only C] [--print]
 * The seed is printed first; a failing case prints its source, sizes,
 * run-time layouts and bad index, and the command that reruns it alone (a
 * crash prints the case it was running).
 * With --count of 1000 or more, every op, reduction, dtype, rank and
 * generator feature listed in `required` must have been generated, or that
 * is one more failure. The last line is "N passed, M failed". */
#include <inttypes.h>
#include <math.h>
#include <pthread.h> /* not C11's threads.h: ThreadSanitizer does not see thrd_create's threads */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "athene.h"

#define MAXIN 24 /* inputs per kernel */
#define MAXLET 3
#define MAXOUT 2
#define MAXSYM 16
#define MAXV 12 /* index variables in scope */
#define GUARD 64 /* guard bytes on each side of a buffer */

enum { BO = ATHENE_BOOL, I8 = ATHENE_I8, I16 = ATHENE_I16, I32 = ATHENE_I32, I64 = ATHENE_I64, U8 = ATHENE_U8,
       F16 = ATHENE_F16, BF16 = ATHENE_BF16, F32 = ATHENE_F32, F64 = ATHENE_F64 };

/* ---- random numbers: splitmix64, one stream per case ---- */

static uint64_t rs;

static uint64_t rnext(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int64_t rn(int64_t n) /* [0, n) */
{
	return n <= 0 ? 0 : (int64_t)(rnext() % (uint64_t)n);
}

static int64_t rr(int64_t lo, int64_t hi) /* [lo, hi] */
{
	return lo + rn(hi - lo + 1);
}

static int pct(int p)
{
	return rn(100) < p;
}

/* ---- strings: a pool emptied per case ---- */

static char pool[1 << 22];
static size_t pool_n;

static const char *fmt(const char *f, ...)
{
	va_list ap;
	size_t room = sizeof pool - pool_n;
	va_start(ap, f);
	int n = vsnprintf(pool + pool_n, room, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		fprintf(stderr, "diff_test: string pool exhausted (a generator bug)\n");
		exit(2);
	}
	char *s = pool + pool_n;
	pool_n += (size_t)n + 1;
	return s;
}

/* ---- coverage: what the generator made, by name ---- */

static const char *cov_name[512];
static long cov_n[512];
static int ncov;

static void see(const char *what)
{
	for (int i = 0; i < ncov; i++)
		if (!strcmp(cov_name[i], what)) {
			cov_n[i]++;
			return;
		}
	if (ncov < 512) {
		cov_name[ncov] = strdup(what);
		cov_n[ncov++] = 1;
	}
}

static long seen(const char *what)
{
	for (int i = 0; i < ncov; i++)
		if (!strcmp(cov_name[i], what))
			return cov_n[i];
	return 0;
}

/* ---- dtypes and promotion (docs/language.md, Types) ---- */

typedef struct {
	int dt, weak;
} Ty;

static int isf(int t)
{
	return t == F16 || t == BF16 || t == F32 || t == F64;
}

static int isint(int t)
{
	return t != BO && !isf(t);
}

static int cat(int t)
{
	return t == BO ? 0 : isf(t) ? 2 : 1;
}

static int fwidth(int t)
{
	return t == F64 ? 3 : t == F32 ? 2 : 1;
}

static int iwidth(int t)
{
	return t == I64 ? 4 : t == I32 ? 3 : t == I16 ? 2 : 1;
}

static int promote_dt(int a, int b)
{
	if (a == b)
		return a;
	if (a == BO || b == BO)
		return a == BO ? b : a;
	if (isf(a) != isf(b))
		return isf(a) ? a : b;
	if (isf(a)) {
		if ((a == F16 && b == BF16) || (a == BF16 && b == F16))
			return F32;
		return fwidth(a) >= fwidth(b) ? a : b;
	}
	if (a == U8 || b == U8) {
		int o = a == U8 ? b : a;
		return o == I8 ? I16 : o;
	}
	return iwidth(a) >= iwidth(b) ? a : b;
}

static Ty promote(Ty a, Ty b)
{
	if (a.weak && b.weak) {
		int c = cat(a.dt) > cat(b.dt) ? cat(a.dt) : cat(b.dt);
		return (Ty){c == 2 ? F64 : c == 1 ? I64 : BO, 1};
	}
	if (a.weak || b.weak) {
		Ty w = a.weak ? a : b, s = a.weak ? b : a;
		if (cat(w.dt) > cat(s.dt))
			return (Ty){cat(w.dt) == 2 ? F32 : I64, 0};
		return s;
	}
	return (Ty){promote_dt(a.dt, b.dt), 0};
}

/* The less precise of two float dtypes, for the tolerance. */
static int narrower(int a, int b)
{
	if (!a || !b)
		return a ? a : b;
	return fwidth(a) <= fwidth(b) ? a : b;
}

static int rand_dtype(void)
{
	static const int dts[] = {BO, I8, I16, I32, I64, U8, F16, BF16, F32, F32, F32, F64};
	return dts[rn(sizeof dts / sizeof dts[0])];
}

static int rand_float(void)
{
	static const int dts[] = {F16, BF16, F32, F32, F64};
	return dts[rn(5)];
}

/* ---- the kernel being generated ---- */

typedef struct {
	const char *name;
	int64_t n;
	int inferred; /* a let's or an unbounded reduction's: bare uses must match n */
} Var;

typedef struct {
	Var v[MAXV];
	int nv;
} Env;

typedef struct {
	const char *name;
	int dt, rank;
	int64_t shape[ATHENE_MAX_RANK];
	const char *dim[ATHENE_MAX_RANK]; /* a literal or a size symbol */
	int flat;                          /* read through .flat: keeps its default layout */
	int decl, rt;                      /* a layout declared in the source, or given at run time */
	int64_t str[ATHENE_MAX_RANK], off;
	int tol;   /* a let or an output holding a sum, mean or prod: its float dtype */
	int reads; /* a let's reads so far */
} Tens;

/* An expression: its text, its dtype, and tol as in Tens. */
typedef struct {
	const char *s;
	Ty ty;
	int tol;
} Ex;

static struct {
	Tens in[MAXIN], let[MAXLET], out[MAXOUT];
	int nin, nlet, nout;
	const char *sym[MAXSYM];
	int64_t symv[MAXSYM];
	int nsym;
	const char *body;
	int big;  /* 1: a large pointwise case, 2: a large reduction, 3: a large row gather */
	int nest; /* reductions open */
	int nvar;
} G;

static const char *dimtxt(int64_t d)
{
	/* never 0: the checker proves x[i] out of bounds for every size where
	 * i < Z and x's dim is a literal 0 */
	if (d > 0 && G.nsym < MAXSYM && pct(18)) {
		const char *s = fmt("Z%d", G.nsym);
		G.sym[G.nsym] = s;
		G.symv[G.nsym++] = d;
		see("size symbol");
		return s;
	}
	return fmt("%" PRId64, d);
}

static int room(int n)
{
	return G.nin + n <= MAXIN;
}

static Tens *new_in(int dt, int rank, const int64_t *shape)
{
	Tens *t = &G.in[G.nin];
	memset(t, 0, sizeof *t);
	t->name = fmt("x%d", G.nin++);
	t->dt = dt;
	t->rank = rank;
	for (int d = 0; d < rank; d++) {
		t->shape[d] = shape[d];
		t->dim[d] = dimtxt(shape[d]);
	}
	see(fmt("input rank %d", rank));
	see(fmt("input %s", athene_dtype_name(dt)));
	return t;
}

static const char *subs_text(const char *name, int rank, const char **subs)
{
	if (rank == 0)
		return pct(50) ? name : fmt("%s[]", name);
	const char *s = fmt("%s[%s", name, subs[0]);
	for (int d = 1; d < rank; d++)
		s = fmt("%s, %s", s, subs[d]);
	return fmt("%s]", s);
}

/* ---- loads ---- */

typedef struct {
	const char *s;
	int64_t need; /* the dim size it needs: its largest value + 1 */
	int bare;
} Sub;

/* A subscript of a new input's dim made from variable v. */
static Sub var_sub(const Var *v)
{
	int64_t n = v->n, c;
	int s;
	if (n < 1 || pct(45))
		return (Sub){v->name, n, 1};
	switch (rn(7)) {
	case 6:
		if (n < 2)
			return (Sub){v->name, n, 1};
		c = rr(1, n - 1);
		see("roll");
		if (pct(30)) /* flipped and rolled */
			return (Sub){fmt("(%" PRId64 " - %s) %% %" PRId64, c, v->name, n), n, 0};
		return (Sub){fmt("(%s + %" PRId64 ") %% %" PRId64, v->name, c, n), n, 0};
	case 0:
		c = n - 1 + rn(3);
		see("slice step -1");
		return (Sub){fmt("%" PRId64 " - %s", c, v->name), c + 1, 0};
	case 1:
		s = (int)rr(2, 3), c = rn(3);
		see("slice step +2/+3");
		return (Sub){fmt("%d*%s + %" PRId64, s, v->name, c), s * (n - 1) + c + 1, 0};
	case 2:
		s = (int)rr(2, 3), c = s * (n - 1) + rn(3);
		see("slice step -2/-3");
		return (Sub){fmt("%" PRId64 " - %d*%s", c, s, v->name), c + 1, 0};
	case 3:
		s = (int)rr(2, 4);
		see("// in a subscript");
		return (Sub){fmt("%s // %d", v->name, s), (n - 1) / s + 1, 0};
	case 4:
		s = (int)rr(2, 4);
		see("% in a subscript");
		return (Sub){fmt("%s %% %d", v->name, s), s < n ? s : n, 0};
	default:
		c = rr(1, 3);
		see("slice with a start");
		return (Sub){fmt("%s + %" PRId64, v->name, c), n + c, 0};
	}
}

/* A subscript for a dim of a given size d >= 1, made from a variable where
 * one fits, else a constant. used marks the variables taken. */
static const char *fixed_sub(const Env *e, int64_t d, int *used)
{
	int order[MAXV], no = 0;
	for (int i = 0; i < e->nv; i++)
		if (!used[i])
			order[no++] = i;
	for (int i = no - 1; i > 0; i--) {
		int j = (int)rn(i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (int k = 0; k < no && pct(85); k++) {
		const Var *v = &e->v[order[k]];
		int64_t n = v->n;
		int bare = v->inferred ? n == d : n <= d;
		if (n < 1) {
			if (!bare)
				continue;
			used[order[k]] = 1;
			return v->name;
		}
		int r = (int)rn(4);
		if (r == 1 && n <= d) {
			used[order[k]] = 1;
			see("reversed read of a let or input");
			return fmt("%" PRId64 " - %s", n - 1 + rn(d - n + 1), v->name);
		}
		if (r == 2 && 2 * (n - 1) < d) {
			used[order[k]] = 1;
			return fmt("2*%s + %" PRId64, v->name, rn(d - 2 * (n - 1)));
		}
		if (r == 3 && d > 1) {
			used[order[k]] = 1;
			return fmt("%s %% %" PRId64, v->name, rr(1, d));
		}
		if (bare) {
			used[order[k]] = 1;
			return v->name;
		}
	}
	return fmt("%" PRId64, rn(d));
}

static int64_t cap(void)
{
	return G.big ? 1 << 16 : 4096;
}

/* A new input read through a view of the variables in scope. anchor lists
 * variables (indices into e) that must each be a whole, bare subscript:
 * that is how a let's or a reduction's variables get their ranges. */
static Ex load_view(const Env *e, const int *anchor, int nanchor)
{
	const char *subs[ATHENE_MAX_RANK];
	int64_t shape[ATHENE_MAX_RANK], total = 1;
	int used[MAXV] = {0}, is_anchor[ATHENE_MAX_RANK] = {0}, r;
	if (nanchor > 0)
		r = nanchor + (nanchor < 5 && pct(30));
	else if (pct(70))
		r = e->nv < 5 ? e->nv + (int)rn(2) : 5;
	else
		r = (int)rn(6);
	/* the anchors at random positions, in a random order */
	int pos[ATHENE_MAX_RANK];
	for (int d = 0; d < r; d++)
		pos[d] = d;
	for (int d = r - 1; d > 0; d--) {
		int j = (int)rn(d + 1), t = pos[d];
		pos[d] = pos[j];
		pos[j] = t;
	}
	int slot[ATHENE_MAX_RANK];
	for (int d = 0; d < r; d++)
		slot[d] = -1;
	for (int a = 0; a < nanchor; a++) {
		slot[pos[a]] = anchor[a];
		used[anchor[a]] = 1;
	}
	int last_var = -1, permuted = 0;
	for (int d = 0; d < r; d++) {
		if (slot[d] >= 0) {
			const Var *v = &e->v[slot[d]];
			subs[d] = v->name;
			shape[d] = v->n;
			is_anchor[d] = 1;
			permuted |= slot[d] < last_var;
			last_var = slot[d];
		} else if (e->nv > 0 && pct(75)) {
			int vi = (int)rn(e->nv);
			for (int t = 0; t < 3 && used[vi]; t++)
				vi = (int)rn(e->nv);
			if (used[vi])
				see("a variable in two dims");
			used[vi] = 1;
			permuted |= vi < last_var;
			last_var = vi;
			const Var *v = &e->v[vi], *w = &e->v[rn(e->nv)];
			int64_t c = rr(2, 4);
			if (d + 1 < r && slot[d + 1] < 0 && v->n >= 1 && total * v->n * c <= cap() && pct(8)) {
				/* a dim split in two: v // c, v % c */
				subs[d] = fmt("%s // %" PRId64, v->name, c);
				shape[d] = (v->n - 1) / c + 1;
				subs[d + 1] = fmt("%s %% %" PRId64, v->name, c);
				shape[d + 1] = c;
				total *= shape[d] * c;
				d++;
				see("split dim");
				continue;
			} else if (v != w && v->n >= 1 && w->n >= 1 && pct(6)) { /* merge: v*W + w */
				subs[d] = fmt("%s*%" PRId64 " + %s", v->name, w->n, w->name);
				shape[d] = v->n * w->n;
				see("merged dims");
			} else if (v != w && v->n >= 1 && w->n >= 1 && pct(4)) { /* a sliding window */
				subs[d] = fmt("%s + %s", v->name, w->name);
				shape[d] = v->n + w->n - 1;
				see("overlapping window");
			} else {
				Sub s = var_sub(v);
				subs[d] = s.s;
				shape[d] = s.need + (v->inferred && s.bare ? 0 : pct(20) ? rn(3) : 0);
			}
		} else {
			shape[d] = rr(1, 4);
			subs[d] = fmt("%" PRId64, rn(shape[d]));
			see("constant subscript");
		}
		if (!is_anchor[d] && total * (shape[d] ? shape[d] : 1) > cap()) {
			subs[d] = "0";
			shape[d] = 1;
		}
		total *= shape[d] ? shape[d] : 1;
	}
	if (permuted)
		see("permutation");
	Tens *t = new_in(rand_dtype(), r, shape);
	return (Ex){subs_text(t->name, r, subs), {t->dt, 0}, 0};
}

/* A tensor of fixed dims (a let, or an input read a second time). */
static Ex load_fixed(const Env *e, Tens *t)
{
	const char *subs[ATHENE_MAX_RANK];
	int used[MAXV] = {0};
	for (int d = 0; d < t->rank; d++)
		subs[d] = fixed_sub(e, t->shape[d], used);
	t->reads++;
	return (Ex){subs_text(t->name, t->rank, subs), {t->dt, 0}, t->tol};
}

static int64_t divisor(int64_t n)
{
	int64_t ds[64];
	int nd = 0;
	for (int64_t d = 1; d <= n && nd < 64; d++)
		if (n % d == 0)
			ds[nd++] = d;
	return ds[rn(nd)];
}

/* A new input read through .flat with // and %: reshuffles, repeats,
 * tiles, collapsed permutations. */
static Ex load_flat(const Env *e)
{
	int vs[MAXV], nv = 0;
	for (int i = 0; i < e->nv; i++)
		if (e->v[i].n >= 1)
			vs[nv++] = i;
	if (nv == 0)
		return load_view(e, NULL, 0);
	int k = nv == 1 ? 1 : (int)rr(1, nv < 3 ? nv : 3);
	for (int i = 0; i < k; i++) { /* k distinct variables */
		int j = i + (int)rn(nv - i), t = vs[i];
		vs[i] = vs[j];
		vs[j] = t;
	}
	int64_t total = 1;
	for (int i = 0; i < k; i++)
		total *= e->v[vs[i]].n;
	if (total > cap()) {
		k = 1;
		total = e->v[vs[0]].n;
	}
	/* L: the row-major position in the variables */
	const char *L = e->v[vs[k - 1]].name;
	int64_t place = e->v[vs[k - 1]].n;
	for (int i = k - 2; i >= 0; i--) {
		L = fmt("%s*%" PRId64 " + %s", e->v[vs[i]].name, place, L);
		place *= e->v[vs[i]].n;
	}
	const char *E;
	int64_t storage = total;
	int64_t p, q, r;
	switch (rn(5)) {
	case 0:
		p = divisor(total), q = total / p;
		E = fmt("(%s) %% %" PRId64 "*%" PRId64 " + (%s) // %" PRId64, L, p, q, L, p);
		see("flat reshuffle");
		break;
	case 1:
		r = rr(2, 4);
		E = fmt("(%s) // %" PRId64, L, r);
		storage = (total - 1) / r + 1;
		see("flat repeat");
		break;
	case 2:
		r = rr(1, 6);
		E = fmt("(%s) %% %" PRId64, L, r);
		storage = r < total ? r : total;
		see("flat tile");
		break;
	case 3: { /* the storage is the variables' block in another order */
		int perm[MAXV];
		for (int i = 0; i < k; i++)
			perm[i] = i;
		for (int i = k - 1; i > 0; i--) {
			int j = (int)rn(i + 1), t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		int64_t st = 1;
		E = NULL;
		for (int i = k - 1; i >= 0; i--) {
			const Var *v = &e->v[vs[perm[i]]];
			E = E ? fmt("%" PRId64 "*%s + %s", st, v->name, E) : fmt("%" PRId64 "*%s", st, v->name);
			st *= v->n;
		}
		see("flat collapsed permutation");
		break;
	}
	default:
		r = rr(1, 4);
		E = fmt("%s + %" PRId64, L, r);
		storage = total + r + rn(2);
		see("flat with a start");
	}
	int64_t shape[2] = {storage, 1};
	int rank = 1;
	if (pct(30) && storage > 1) {
		shape[0] = divisor(storage);
		shape[1] = storage / shape[0];
		rank = 2;
	}
	Tens *t = new_in(rand_dtype(), rank, shape);
	t->flat = 1;
	return (Ex){fmt("%s.flat[%s]", t->name, E), {t->dt, 0}, 0};
}

static Ex lit(Ty other);

/* A new table read at a gathered position along a random axis. */
static Ex load_gather(const Env *e)
{
	if (!room(3))
		return load_view(e, NULL, 0);
	int rank = (int)rr(1, 3), ga = (int)rn(rank);
	static const int idts[] = {I64, I64, I64, I64, I32, I32, I32, I16, I8, U8};
	int idt = idts[rn(10)];
	int used[MAXV] = {0};
	/* the index tensor, subscripted by up to 2 variables */
	int ri = pct(10) ? 0 : pct(65) ? 1 : 2;
	const char *isubs[2];
	int64_t ishape[2], itotal = 1;
	for (int k = 0; k < ri; k++) {
		int vi = (int)rn(e->nv);
		if (e->nv > 0 && itotal * (e->v[vi].n ? e->v[vi].n : 1) <= cap() && pct(85)) {
			isubs[k] = e->v[vi].name;
			ishape[k] = e->v[vi].n;
			used[vi] = 1;
		} else {
			ishape[k] = rr(1, 3);
			isubs[k] = fmt("%" PRId64, rn(ishape[k]));
		}
		itotal *= ishape[k] ? ishape[k] : 1;
	}
	see(fmt("gather, index rank %d", ri));
	see(fmt("gather along axis %d", ga));
	/* the other axes of the table */
	const char *subs[3];
	int64_t shape[3], other = 1;
	for (int d = 0; d < rank; d++) {
		if (d == ga)
			continue;
		int vi = (int)rn(e->nv);
		if (e->nv > 0 && !used[vi] && other * (e->v[vi].n ? e->v[vi].n : 1) <= cap() && pct(80)) {
			Sub s = var_sub(&e->v[vi]);
			used[vi] = 1;
			subs[d] = s.s;
			shape[d] = s.need;
		} else {
			shape[d] = rr(1, 4);
			subs[d] = fmt("%" PRId64, rn(shape[d]));
		}
		other *= shape[d] ? shape[d] : 1;
	}
	int64_t rows = G.big ? rr(100, 3000) : rr(1, 12);
	if (idt == I8 || idt == U8)
		rows = rows < 100 ? rows : 100;
	if (rows * other > 4 * cap())
		rows = 4 * cap() / other > 0 ? 4 * cap() / other : 1;
	shape[ga] = rows;
	int form = (int)rn(100);
	/* the row read through .flat: t.flat[W*idx + v] */
	int fv = -1;
	for (int i = 0; i < e->nv; i++)
		if (!used[i] && e->v[i].n >= 1)
			fv = i;
	if (form >= 92 && fv >= 0) {
		int64_t w = e->v[fv].n;
		Tens *ix = new_in(idt, ri, ishape);
		const char *it = subs_text(ix->name, ri, isubs);
		int64_t tshape[1] = {rows * w};
		Tens *t = new_in(rand_dtype(), 1, tshape);
		t->flat = 1;
		see("row gather through .flat");
		return (Ex){fmt("%s.flat[%" PRId64 "*%s + %s]", t->name, w, it, e->v[fv].name), {t->dt, 0}, 0};
	}
	Tens *ix = new_in(idt, ri, ishape);
	const char *it = subs_text(ix->name, ri, isubs);
	Tens *t = new_in(rand_dtype(), rank, shape);
	const char *g;
	if (form < 35) {
		g = it;
		see("gather");
	} else if (form < 72) {
		g = fmt("wrap(%s, %s)", it, t->dim[ga]);
		see("gather with wrap");
	} else if (form < 82) {
		int64_t m = rr(1, 8);
		Tens *i2 = new_in(pct(50) ? I64 : I32, 1, &m);
		g = fmt("%s[%s]", i2->name, it);
		see("nested gather");
	} else if (form < 88) {
		g = fmt("clamp(%s, 0, %" PRId64 ")", it, rows - 1);
		see("clamped gather");
	} else {
		g = it;
	}
	subs[ga] = g;
	const char *s = subs_text(t->name, rank, subs);
	Ty ty = {t->dt, 0};
	if (form >= 88) { /* guarded: where(idx >= 0, t[idx], 0) */
		Ex z = lit(ty);
		s = fmt("where(%s >= 0, %s, %s)", it, s, z.s);
		ty = promote(ty, z.ty);
		see("gather guarded by where");
	}
	return (Ex){s, ty, 0};
}

static Ex lit(Ty other)
{
	static const char *fl[] = {"0.5", "2.0", "-1.5", "0.25", "3.0", "1e-3", "-0.0", "100.0", "1.0", "-2.0", "inf", "nan"};
	int n = (int)rr(0, isf(other.dt) ? 11 : 10);
	if (other.dt == BO && pct(30))
		return (Ex){pct(50) ? "true" : "false", {BO, 1}, 0};
	if (isf(other.dt) ? pct(85) : pct(20))
		return (Ex){fl[n], {F64, 1}, 0};
	return (Ex){fmt("%" PRId64, rr(-4, 7)), {I64, 1}, 0};
}

/* One dim of a new input read through variable v shifted into a window
 * [c, c + d) of v's range, the other dims bare variables or constants. */
static Ex window_load(const Env *e, const Var *v, int64_t d, const char *sub)
{
	const char *subs[3];
	int64_t shape[3];
	int r = (int)rr(1, 3), at = (int)rn(r);
	for (int k = 0; k < r; k++) {
		const Var *w = &e->v[rn(e->nv)];
		if (k == at) {
			subs[k] = sub;
			shape[k] = d;
		} else if (w != v && w->n >= 1 && pct(70)) {
			subs[k] = w->name;
			shape[k] = w->n + (w->inferred ? 0 : rn(2));
		} else {
			shape[k] = rr(1, 3);
			subs[k] = fmt("%" PRId64, rn(shape[k]));
		}
	}
	Tens *t = new_in(rand_dtype(), r, shape);
	return (Ex){subs_text(t->name, r, subs), {t->dt, 0}, 0};
}

/* A masked load (F.pad, torch.cat): read under a where() whose condition
 * keeps its subscript inside the tensor, padding elsewhere. */
static Ex load_masked(const Env *e)
{
	const Var *v = &e->v[rn(e->nv)];
	if (v->n < 2 || v->inferred || !room(2))
		return load_view(e, NULL, 0);
	int64_t n = v->n, d = rr(1, n - 1), c = pct(10) ? n + rn(2) : rn(n - d + 1);
	const char *name = v->name, *cond;
	if (pct(35)) { /* cat: two tensors, complementary windows */
		Ex a = window_load(e, v, d, name), b = window_load(e, v, n - d, fmt("%s - %" PRId64, name, d));
		see("masked load: cat");
		return (Ex){fmt("where(%s < %" PRId64 ", %s, %s)", name, d, a.s, b.s), promote(a.ty, b.ty), 0};
	}
	int rev = pct(25);
	const char *sub = rev ? fmt("%" PRId64 " - %s", c + d - 1, name) : fmt("%s - %" PRId64, name, c);
	cond = pct(50) ? fmt("%s >= %" PRId64 " && %s < %" PRId64, name, c, name, c + d)
	               : fmt("%s - %" PRId64 " >= 0 && %s - %" PRId64 " < %" PRId64, name, c, name, c, d);
	if (e->nv > 1 && pct(20)) {
		const Var *w = &e->v[rn(e->nv)];
		cond = fmt("%s && %s %% 2 == 0", cond, w->name); /* a guard narrower than its box */
		see("masked load: guard narrower than the box");
	}
	Ex a = window_load(e, v, d, sub);
	Ex other = lit(a.ty);
	see(c >= n ? "masked load: every position masked" : "masked load: pad");
	return (Ex){fmt("where(%s, %s, %s)", cond, a.s, other.s), promote(a.ty, other.ty), 0};
}

/* ---- expressions ---- */

static Ex gen(Env *e, int depth);
static Ex reduce(Env *e, int depth, int tolerant, const int *anchor, int nanchor);

static Ex leaf(Env *e)
{
	for (int i = 0; i < G.nlet; i++)
		if (!G.let[i].reads && !G.let[i].tol)
			return load_fixed(e, &G.let[i]);
	int r = (int)rn(100);
	if (!room(4) || (r >= 95 && G.nin > 0)) { /* an input read again */
		Tens *t = &G.in[rn(G.nin)];
		int ok = !t->flat;
		for (int d = 0; d < t->rank; d++)
			ok &= t->shape[d] >= 1;
		if (ok) {
			see("an input read twice");
			return load_fixed(e, t);
		}
	}
	if (!room(4) || (r >= 88 && e->nv > 0)) {
		const Var *v = &e->v[rn(e->nv)];
		if (!room(4) && e->nv == 0)
			return (Ex){"f32(1.0)", {F32, 0}, 0};
		see("index variable as a value");
		if (pct(50))
			return (Ex){v->name, {I64, 0}, 0};
		int dt = rand_dtype();
		return (Ex){fmt("%s(%s)", athene_dtype_name(dt), v->name), {dt, 0}, 0};
	}
	if (r < 12 && G.nlet > 0) {
		Tens *l = &G.let[rn(G.nlet)];
		if (!l->tol)
			return load_fixed(e, l);
	}
	if (r < 24)
		return load_flat(e);
	if (r < 40)
		return load_gather(e);
	if (r < 46 && e->nv > 0)
		return load_masked(e);
	return load_view(e, NULL, 0);
}

static Ty float_of(Ty t)
{
	return isf(t.dt) ? t : t.weak ? (Ty){F64, 1} : (Ty){F32, 0};
}

static Ex binop(Ex a, Ex b)
{
	static const char *ops[] = {"+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=",
	                            "&&", "||", "pow", "min", "max", "atan2", "wrap", "&", "|", "^", "<<", ">>",
	                            "hypot", "nextafter", "igamma", "igammac", "polygamma", "zeta"};
	const char *op = ops[rn(sizeof ops / sizeof ops[0])];
	Ty p = promote(a.ty, b.ty), ty = p;
	int bit = !strcmp(op, "&") || !strcmp(op, "|") || !strcmp(op, "^");
	int shift = !strcmp(op, "<<") || !strcmp(op, ">>");
	if (!strcmp(op, "-") && p.dt == BO)
		op = "+";
	if (!strcmp(op, "wrap") && (!isint(a.ty.dt) || !isint(b.ty.dt)))
		op = "max";
	if ((bit && (isf(a.ty.dt) || isf(b.ty.dt))) || (shift && (!isint(a.ty.dt) || !isint(b.ty.dt))))
		op = "min", bit = shift = 0; /* integers (and bools for & | ^) only */
	if (!strcmp(op, "wrap") && b.ty.weak) /* a literal modulus below 1 is a compile-time error */
		b.s = fmt("%" PRId64, rr(1, 7));
	see(fmt("op %s", op));
	if (!strcmp(op, "/"))
		ty = float_of(p);
	else if (!strcmp(op, "//") || !strcmp(op, "%"))
		ty = p.dt == BO ? (Ty){I64, p.weak} : p;
	else if (bit || shift)
		ty = p;
	else if (strchr("=!<>&|", op[0]))
		ty = (Ty){BO, 0};
	else if (op[0] >= 'a' && op[0] <= 'z' && strcmp(op, "pow") && strcmp(op, "min") && strcmp(op, "max") &&
	         strcmp(op, "wrap")) /* atan2, hypot, nextafter and gamma.c's */
		ty = float_of(p);
	if (op[0] >= 'a' && op[0] <= 'z')
		return (Ex){fmt("%s(%s, %s)", op, a.s, b.s), ty, 0};
	return (Ex){fmt("(%s %s %s)", a.s, op, b.s), ty, 0};
}

/* A Bessel function of a, or a polynomial of a of degree b (a float, an
 * integer of any size: truncated, below 0 or beyond the recurrence's steps) */
static Ex special(Ex a, Ex b)
{
	static const char *fns[] = {"i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e", "bessel_j0", "bessel_j1",
	                            "bessel_y0", "bessel_y1", "spherical_bessel_j0", "chebyshev_t", "chebyshev_u",
	                            "chebyshev_v", "chebyshev_w", "shifted_chebyshev_t", "shifted_chebyshev_u",
	                            "shifted_chebyshev_v", "shifted_chebyshev_w", "hermite_h", "hermite_he",
	                            "laguerre_l", "legendre_p"};
	int i = (int)rn(sizeof fns / sizeof fns[0]);
	see(fmt("op %s", fns[i]));
	if (i < 13)
		return (Ex){fmt("%s(%s)", fns[i], a.s), float_of(a.ty), 0};
	return (Ex){fmt("%s(%s, %s)", fns[i], a.s, b.s), float_of(promote(a.ty, b.ty)), 0};
}

static Ex unop(Ex a)
{
	static const char *ops[] = {"neg", "-", "!", "abs", "sign", "relu", "floor", "ceil", "round",
	                            "trunc", "exp", "exp2", "log", "log2", "log1p", "expm1", "sqrt",
	                            "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "isnan", "isinf",
	                            "~", "erfinv", "lgamma", "digamma", "frexp_mantissa", "erfcx", "ndtri", "airy_ai",
	                            "frexp_exponent"};
	int i = (int)rn(sizeof ops / sizeof ops[0]);
	const char *op = ops[i];
	if ((!strcmp(op, "neg") || !strcmp(op, "-")) && a.ty.dt == BO)
		op = "!";
	if (!strcmp(op, "~") && isf(a.ty.dt))
		op = "abs", i = 3;
	see(fmt("op %s", op));
	if (!strcmp(op, "~"))
		return (Ex){fmt("(~%s)", a.s), a.ty, 0};
	if (!strcmp(op, "frexp_exponent"))
		return (Ex){fmt("%s(%s)", op, a.s), {I32, 0}, 0};
	if (i >= 27)
		return (Ex){fmt("%s(%s)", op, a.s), float_of(a.ty), 0};
	if (!strcmp(op, "-"))
		return (Ex){fmt("(- %s)", a.s), a.ty, 0};
	if (!strcmp(op, "!"))
		return (Ex){fmt("(!%s)", a.s), {BO, 0}, 0};
	Ty ty = a.ty;
	if (i >= 10 && i < 24)
		ty = float_of(a.ty);
	else if (i >= 24)
		ty = (Ty){BO, 0};
	return (Ex){fmt("%s(%s)", op, a.s), ty, 0};
}

/* The dtype of a's size whose bits a bitcast gives, or -1 (a bool, a literal). */
static int bits_partner(Ex a)
{
	if (a.ty.weak || a.tol)
		return -1;
	switch (a.ty.dt) {
	case F64: return I64;
	case I64: return F64;
	case F32: return I32;
	case I32: return F32;
	case F16: return pct(50) ? I16 : BF16;
	case BF16: return pct(50) ? I16 : F16;
	case I16: return pct(50) ? F16 : BF16;
	case I8: return U8;
	case U8: return I8;
	}
	return -1;
}

static Ex cast(Ex a, int dt)
{
	int b = pct(25) ? bits_partner(a) : -1;
	if (b >= 0) {
		see("op bits");
		return (Ex){fmt("%s.bits(%s)", athene_dtype_name(b), a.s), {b, 0}, 0};
	}
	see(fmt("cast to %s", athene_dtype_name(dt)));
	return (Ex){fmt("%s(%s)", athene_dtype_name(dt), a.s), {dt, 0}, a.tol ? narrower(a.tol, isf(dt) ? dt : 0) : 0};
}

static Ex gen(Env *e, int depth)
{
	if (depth <= 0 || pct(22))
		return leaf(e);
	int r = (int)rn(100);
	if (r < 34) {
		Ex a = gen(e, depth - 1);
		return binop(a, pct(25) ? lit(a.ty) : gen(e, depth - 1));
	}
	if (r < 52) {
		Ex a = gen(e, depth - 1);
		if (!pct(45))
			return unop(a);
		/* a degree: a literal past the Chebyshev polynomials' trigonometric forms, or any value */
		return special(a, pct(50) ? (Ex){fmt("%" PRId64, rr(-2, 20)), {I64, 1}, 0} : gen(e, depth - 1));
	}
	/* one draw per statement: the order of a call's arguments is unspecified */
	if (r < 60) {
		Ex a = gen(e, depth - 1);
		return cast(a, rand_dtype());
	}
	if (r < 68) {
		Ex c = gen(e, depth - 1);
		if (pct(50)) {
			Ex c2 = gen(e, depth - 1);
			c = binop(c, c2);
		}
		Ex a = gen(e, depth - 1), b = pct(30) ? lit(a.ty) : gen(e, depth - 1);
		see("op where");
		return (Ex){fmt("where(%s, %s, %s)", c.s, a.s, b.s), promote(a.ty, b.ty), 0};
	}
	if (r < 73) {
		Ex x = gen(e, depth - 1);
		Ex lo = pct(60) ? (Ex){fmt("%" PRId64, rr(-3, 1)), {I64, 1}, 0} : gen(e, depth - 1);
		Ex hi = pct(60) ? (Ex){fmt("%" PRId64, rr(-1, 4)), {I64, 1}, 0} : gen(e, depth - 1);
		see("op clamp");
		return (Ex){fmt("clamp(%s, %s, %s)", x.s, lo.s, hi.s), promote(promote(x.ty, lo.ty), hi.ty), 0};
	}
	if (r < 87 && G.nest < 2 && !G.big)
		return reduce(e, depth - 1, 0, NULL, 0);
	return leaf(e);
}

enum { R_SUM, R_PROD, R_MAX, R_MIN, R_MEAN, R_ARGMAX, R_ARGMIN, R_ANY, R_ALL };
static const char *red_name[] = {"sum", "prod", "max", "min", "mean", "argmax", "argmin", "any", "all"};

/* A reduction over 1-2 new variables. tolerant: a float sum, mean or prod
 * (the result within the tolerance); otherwise an exact one (max, min,
 * argmax, argmin, any, all, and sum or prod of integers). anchor: variables
 * of e that must be bare subscripts in the body (a let's). */
static Ex reduce(Env *e, int depth, int tolerant, const int *anchor, int nanchor)
{
	static const int exact_ops[] = {R_SUM, R_PROD, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_ANY, R_ALL};
	static const int tol_ops[] = {R_SUM, R_SUM, R_MEAN, R_PROD};
	int op = tolerant ? tol_ops[rn(4)] : exact_ops[rn(8)];
	int nv = !G.big && e->nv + 2 <= MAXV && pct(25) ? 2 : 1;
	Env in = *e;
	int anc[MAXV], na = 0;
	for (int i = 0; i < nanchor; i++)
		anc[na++] = anchor[i];
	const char *head = NULL;
	for (int k = 0; k < nv && in.nv < MAXV; k++) {
		Var *v = &in.v[in.nv];
		v->name = fmt("r%d", G.nvar++);
		v->n = G.big == 2 ? rr(1000, 12000) : pct(4) ? 0 : rr(1, 6);
		const char *h;
		if (G.big == 2 || pct(60)) {
			v->inferred = 0;
			/* a symbol of a parameter's dim as the bound (one that is
			 * only a bound is undeclared) */
			int sy = G.nsym && G.big != 2 && pct(30) ? (int)rn(G.nsym) : -1;
			if (sy >= 0 && G.symv[sy] <= 12) {
				v->n = G.symv[sy];
				h = fmt("%s < %s", v->name, G.sym[sy]);
				see("reduction bound by a size symbol");
			} else {
				h = fmt("%s < %" PRId64, v->name, v->n);
			}
			see("reduction with a bound");
		} else {
			v->inferred = 1;
			anc[na++] = in.nv;
			h = v->name;
			see("reduction with an inferred range");
		}
		if (v->n == 0)
			see("empty reduction");
		head = head ? fmt("%s, %s", head, h) : h;
		in.nv++;
	}
	G.nest++;
	Ex body;
	if (na > 0) {
		Ex an = load_view(&in, anc, na);
		body = pct(50) || G.big ? an : binop(an, gen(&in, depth - 1));
	} else {
		body = gen(&in, depth - 1);
	}
	G.nest--;
	if (tolerant && !isf(body.ty.dt))
		body = cast(body, rand_float());
	if (!tolerant && (op == R_SUM || op == R_PROD) && isf(body.ty.dt))
		body = pct(50) ? cast(body, pct(50) ? I32 : I64) : (Ex){fmt("(%s > 0.0)", body.s), {BO, 0}, 0};
	see(fmt("reduction %s", red_name[op]));
	Ty ty = body.ty;
	if (op == R_SUM || op == R_PROD)
		ty = isf(body.ty.dt) ? body.ty : (Ty){I64, 0};
	else if (op == R_MEAN)
		ty = float_of(body.ty);
	else if (op == R_ARGMAX || op == R_ARGMIN)
		ty = (Ty){I64, 0};
	else if (op == R_ANY || op == R_ALL)
		ty = (Ty){BO, 0};
	return (Ex){fmt("%s(%s: %s)", red_name[op], head, body.s), ty, tolerant ? ty.dt : 0};
}

/* The right side of a statement: with some probability (always when
 * given an unread let holding a sum) a float sum, mean or prod passed
 * through an op that keeps the tolerance, else an exact expression. */
static Ex top(Env *e, int depth, Tens *tol_let)
{
	if (!tol_let && !pct(22))
		return gen(e, depth);
	Ex r = tol_let ? load_fixed(e, tol_let) : reduce(e, depth, 1, NULL, 0);
	int t = r.tol;
	switch (rn(8)) {
	case 0:
		r.s = fmt("%s * 0.5", r.s);
		break;
	case 1:
		r.s = fmt("neg(%s)", r.s);
		break;
	case 2:
		r.s = fmt("abs(%s)", r.s);
		break;
	case 3:
	case 4: {
		Ex x = gen(e, depth - 1);
		r.s = fmt("%s(%s, %s)", pct(50) ? "max" : "min", r.s, x.s);
		r.ty = promote(r.ty, x.ty);
		break;
	}
	case 5:
		r = cast(r, rand_float());
		t = r.tol;
		break;
	default:
		break;
	}
	r.tol = t;
	see("tolerant value");
	return r;
}

/* y[b, s, d] = t[idx[b, s], d]: a row gather that is the whole body, from
 * an index tensor of rank 1 or 2 over many rows, maybe wrapped, maybe with
 * one op after it. */
static Ex big_gather(const Env *e)
{
	int nv = e->nv;
	const Var *d = &e->v[nv - 1];
	int64_t ishape[2], rows = rr(100, 5000);
	const char *isubs[2];
	for (int k = 0; k < nv - 1; k++) {
		ishape[k] = e->v[k].n;
		isubs[k] = e->v[k].name;
	}
	static const int idts[] = {I64, I64, I64, I64, I64, I64, I32, I32, I16, I8, U8};
	Tens *ix = new_in(idts[rn(11)], nv - 1, ishape);
	const char *it = subs_text(ix->name, nv - 1, isubs);
	int64_t tshape[2] = {rows, d->n};
	Tens *t = new_in(rand_dtype(), 2, tshape);
	const char *g = pct(50) ? fmt("wrap(%s, %s)", it, t->dim[0]) : it;
	Ex x = {fmt("%s[%s, %s]", t->name, g, d->name), {t->dt, 0}, 0};
	if (pct(30))
		x = binop(x, lit(x.ty));
	return x;
}

static int64_t pick_extent(void)
{
	int r = (int)rn(100);
	if (r < 4) {
		see("size 0");
		return 0;
	}
	if (r < 18) {
		see("size 1");
		return 1;
	}
	return r < 82 ? rr(2, 5) : rr(6, 12);
}

static void gen_let(void)
{
	Tens *l = &G.let[G.nlet];
	memset(l, 0, sizeof *l);
	l->name = fmt("t%d", G.nlet);
	l->rank = (int)rn(4);
	Env e = {.nv = 0};
	int anchor[MAXV];
	const char *lhs = NULL;
	for (int d = 0; d < l->rank; d++) {
		Var *v = &e.v[e.nv];
		v->name = fmt("p%d", G.nvar++);
		v->n = l->shape[d] = rr(1, 6);
		v->inferred = 1;
		anchor[d] = e.nv++;
		lhs = lhs ? fmt("%s, %s", lhs, v->name) : v->name;
	}
	int has_tol = 0;
	for (int i = 0; i < G.nlet; i++)
		has_tol |= G.let[i].tol != 0;
	Ex x;
	if (!has_tol && pct(20)) {
		x = reduce(&e, 2, 1, anchor, l->rank);
		see("let holding a sum");
	} else if (l->rank == 0) {
		x = gen(&e, 2);
	} else {
		Ex an = load_view(&e, anchor, l->rank);
		x = pct(35) ? an : binop(an, gen(&e, 2));
	}
	l->dt = x.ty.dt;
	l->tol = x.tol;
	G.nlet++;
	G.body = fmt("%s    let %s%s = %s\n", G.body, l->name, lhs ? fmt("[%s]", lhs) : "", x.s);
}

static void gen_out(void)
{
	Tens *y = &G.out[G.nout];
	memset(y, 0, sizeof *y);
	y->name = fmt("y%d", G.nout);
	static const int ranks[] = {0, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5};
	y->rank = G.big == 2 ? (int)rn(2) : G.big == 3 ? 2 + pct(30) : G.big ? (int)rr(1, 3) : ranks[rn(12)];
	int64_t total = 1;
	for (int d = 0; d < y->rank; d++) {
		y->shape[d] = G.big == 2 ? rr(1, 4) : pick_extent();
		total *= y->shape[d] ? y->shape[d] : 1;
	}
	if (G.big == 3) { /* [B,] S, D with hundreds to thousands of rows S */
		for (int d = 0; d < y->rank - 2; d++)
			y->shape[d] = rr(2, 4);
		y->shape[y->rank - 2] = y->rank == 2 ? rr(513, 4000) : rr(200, 1500);
		/* rows of a few elements, or of 8-64 (whole 32-byte chunks in most dtypes) */
		y->shape[y->rank - 1] = pct(50) ? rr(1, 10) : (int64_t)8 << rn(4);
	}
	if (G.big == 1) { /* 12K-48K elements */
		int64_t want = rr(12000, 48000), left = want;
		for (int d = 0; d < y->rank; d++) {
			int64_t share = d == y->rank - 1 ? left : (int64_t)pow((double)left, 1.0 / (y->rank - d)) + rr(-3, 3);
			y->shape[d] = share > 1 ? share : 1;
			left = left / y->shape[d] > 1 ? left / y->shape[d] : 1;
		}
	}
	/* often the shape of a let, permuted, so that reads of it are
	 * transposes rather than broadcasts */
	const Tens *like = G.nlet && !G.big && pct(50) ? &G.let[rn(G.nlet)] : NULL;
	if (like && like->rank > 0) {
		y->rank = like->rank + (like->rank < 5 && pct(25));
		for (int d = 0; d < y->rank; d++)
			y->shape[d] = d < like->rank ? like->shape[d] : pick_extent();
		for (int d = like->rank - 1; d > 0; d--) {
			int j = (int)rn(d + 1);
			int64_t x = y->shape[d];
			y->shape[d] = y->shape[j];
			y->shape[j] = x;
		}
	}
	while (!G.big && total > 1024) {
		int m = 0;
		for (int d = 1; d < y->rank; d++)
			m = y->shape[d] > y->shape[m] ? d : m;
		total = total / y->shape[m] * (y->shape[m] / 2);
		y->shape[m] /= 2;
	}
	Env e = {.nv = 0};
	const char *lhs = NULL;
	for (int d = 0; d < y->rank; d++) {
		Var *v = &e.v[e.nv++];
		v->name = fmt("i%d", G.nvar++);
		v->n = y->shape[d];
		v->inferred = 0;
		lhs = lhs ? fmt("%s, %s", lhs, v->name) : v->name;
		y->dim[d] = dimtxt(y->shape[d]);
	}
	Tens *tl = NULL;
	for (int i = 0; i < G.nlet; i++)
		if (G.let[i].tol && !G.let[i].reads)
			tl = &G.let[i];
	Ex x = G.big == 2 ? reduce(&e, 1, pct(50), NULL, 0) : G.big == 3 ? big_gather(&e) : top(&e, G.big ? 1 : 3, tl);
	y->dt = x.tol ? rand_float() : pct(50) ? x.ty.dt : rand_dtype();
	y->tol = x.tol ? narrower(x.tol, y->dt) : 0;
	see(fmt("output rank %d", y->rank));
	see(fmt("output %s", athene_dtype_name(y->dt)));
	G.nout++;
	G.body = fmt("%s    %s%s = %s\n", G.body, y->name, lhs ? fmt("[%s]", lhs) : pct(50) ? "[]" : "", x.s);
}

/* A permuted, padded layout with an offset; inputs also get negative and
 * zero strides (the offset raised to keep every element in storage). */
static void layout(Tens *t, int input)
{
	int perm[ATHENE_MAX_RANK];
	for (int d = 0; d < t->rank; d++)
		perm[d] = d;
	if (pct(50))
		for (int d = t->rank - 1; d > 0; d--) {
			int j = (int)rn(d + 1), x = perm[d];
			perm[d] = perm[j];
			perm[j] = x;
		}
	int64_t s = 1;
	for (int k = t->rank - 1; k >= 0; k--) {
		int d = perm[k];
		t->str[d] = s;
		s *= (t->shape[d] > 0 ? t->shape[d] : 1) + (pct(25) ? rr(1, 3) : 0);
	}
	t->off = pct(35) ? rr(1, 6) : 0;
	const char *how = t->decl ? "declared" : "run-time";
	for (int d = 0; d < t->rank && input; d++) {
		if (pct(20)) {
			t->str[d] = -t->str[d];
			if (t->shape[d] > 0)
				t->off += -t->str[d] * (t->shape[d] - 1);
			see(fmt("%s negative stride", how));
		} else if (pct(12)) {
			t->str[d] = 0;
			see(fmt("%s zero stride", how));
		}
	}
	if (t->off)
		see(fmt("%s offset", how));
	see(fmt("%s layout, %s", how, input ? "input" : "output"));
}

static const char *param_text(const Tens *t)
{
	const char *s = fmt("%s: %s[", t->name, athene_dtype_name(t->dt));
	for (int d = 0; d < t->rank; d++)
		s = fmt("%s%s%s", s, d ? ", " : "", t->dim[d]);
	s = fmt("%s]", s);
	if (t->decl && t->rank > 0) {
		s = fmt("%s strides(", s);
		for (int d = 0; d < t->rank; d++)
			s = fmt("%s%s%" PRId64, s, d ? ", " : "", t->str[d]);
		s = fmt("%s)", s);
	}
	if (t->decl && t->off)
		s = fmt("%s offset %" PRId64, s, t->off);
	return s;
}

/* Generates the case's kernel; its source text. */
static const char *generate(void)
{
	memset(&G, 0, sizeof G);
	G.body = "";
	int r = (int)rn(100);
	G.big = r < 3 ? 1 : r < 5 ? 2 : r < 7 ? 3 : 0;
	int nlet = G.big ? 0 : pct(40) ? (int)rr(1, MAXLET) : 0;
	for (int i = 0; i < nlet; i++)
		gen_let();
	int nout = !G.big && pct(20) ? 2 : 1;
	for (int i = 0; i < nout; i++)
		gen_out();
	for (int i = 0; i < G.nin; i++) {
		Tens *t = &G.in[i];
		int c = (int)rn(100);
		if (t->flat || c >= 45)
			continue;
		t->decl = c < 25;
		t->rt = !t->decl;
		layout(t, 1);
	}
	for (int i = 0; i < G.nout; i++) {
		Tens *t = &G.out[i];
		int c = (int)rn(100);
		if (c >= 24)
			continue;
		t->decl = c < 12;
		t->rt = !t->decl;
		layout(t, 0);
	}
	if (G.big)
		see(G.big == 1 ? "large pointwise" : G.big == 2 ? "large reduction" : "large row gather");
	const char *ins = "", *outs = "";
	for (int i = 0; i < G.nin; i++)
		ins = fmt("%s%s%s", ins, i ? ", " : "", param_text(&G.in[i]));
	for (int i = 0; i < G.nout; i++)
		outs = fmt("%s%s%s", outs, i ? ", " : "", param_text(&G.out[i]));
	return fmt("kernel k(%s) -> (%s) {\n%s}\n", ins, outs, G.body);
}

/* ---- running a case ---- */

typedef struct {
	unsigned char *mem, *saved; /* the buffer, and its bytes before the runs */
	size_t lead, bytes, total;
} Buf;

static void buf_make(Buf *b, size_t bytes, size_t esize)
{
	b->lead = GUARD + (pct(30) ? esize * (size_t)rn(4) : 0);
	b->bytes = bytes;
	b->total = b->lead + bytes + GUARD;
	b->mem = malloc(b->total);
	b->saved = malloc(b->total);
	if (!b->mem || !b->saved) {
		fprintf(stderr, "diff_test: out of memory\n");
		exit(2);
	}
	for (size_t i = 0; i < b->total; i++)
		b->mem[i] = (unsigned char)rnext();
}

static void *buf_data(const Buf *b)
{
	return b->mem + b->lead;
}

static void buf_free(Buf *b)
{
	free(b->mem);
	free(b->saved);
	b->mem = b->saved = NULL;
}

typedef struct {
	long index;
	uint64_t seed;
	const char *src;
	char why[4096];
	size_t nwhy;
	int failed;
} Case;

static void fail(Case *c, const char *f, ...)
{
	va_list ap;
	c->failed = 1;
	if (c->nwhy + 1 >= sizeof c->why)
		return;
	va_start(ap, f);
	int n = vsnprintf(c->why + c->nwhy, sizeof c->why - c->nwhy, f, ap);
	va_end(ap);
	if (n > 0)
		c->nwhy = c->nwhy + (size_t)n < sizeof c->why ? c->nwhy + (size_t)n : sizeof c->why - 1;
}

static const char *first_line(const char *msg)
{
	size_t n = strcspn(msg, "\n");
	return fmt("%.*s", (int)n, msg);
}

static int64_t dt_min(int dt)
{
	return dt == BO || dt == U8 ? 0 : dt == I8 ? -128 : dt == I16 ? -32768 : dt == I32 ? INT32_MIN : INT64_MIN;
}

static int64_t dt_max(int dt)
{
	return dt == BO ? 1 : dt == U8 ? 255 : dt == I8 ? 127 : dt == I16 ? 32767 : dt == I32 ? INT32_MAX : INT64_MAX;
}

/* Element e of two output storages agrees: the same bits, or both NaN, or
 * (tol) within the tolerance of that float dtype. */
static int agree(const void *a, const void *b, int dt, int64_t e, int tol)
{
	size_t es = athene_dtype_size(dt);
	if (!memcmp((const char *)a + e * es, (const char *)b + e * es, es))
		return 1;
	if (!isf(dt))
		return 0;
	double x = athene_load_f64(a, dt, e), y = athene_load_f64(b, dt, e);
	if (isnan(x) && isnan(y))
		return 1;
	if (!tol || isnan(x) || isnan(y))
		return 0;
	if (isinf(x) || isinf(y))
		return x == y;
	double rel = fwidth(tol) == 1 ? 1e-2 : 1e-5, abs_ = fwidth(tol) == 1 ? 1e-3 : 1e-6;
	return fabs(x - y) <= rel * fabs(y) + abs_;
}

static const char *elem_text(const void *p, int dt, int64_t e)
{
	size_t es = athene_dtype_size(dt);
	uint64_t bits = 0;
	memcpy(&bits, (const char *)p + e * es, es);
	if (isf(dt))
		return fmt("%.9g (bits %0*" PRIx64 ")", athene_load_f64(p, dt, e), (int)(2 * es), bits);
	return fmt("%" PRId64, (int64_t)athene_load_f64(p, dt, e));
}

enum { RUN_REF, RUN_ONE, RUN_MANY, RUN_MOVED, RUN_TWIN, NRUNS };
static const char *run_name[NRUNS] = {
	"the interpreter", "the executor with 1 thread", "the executor with T threads",
	"the executor with T threads on inputs at other addresses",
	"a second instance of the kernel, run by another thread at the same time,"};

/* Binds an instance as the case says (sizes, then layouts given at run
 * time; first the sizes from one parameter's shape when shape_of >= 0) and
 * compiles it; 0 on success. */
static int bind_case(athene_inst *in, Tens *const *ts, int np, int shape_of)
{
	int bad = !in;
	if (!bad && shape_of >= 0)
		bad |= athene_bind_shape(in, shape_of, ts[shape_of]->rank, ts[shape_of]->shape) != 0;
	for (int s = 0; s < G.nsym && !bad; s++)
		bad |= athene_bind_size(in, G.sym[s], G.symv[s]) != 0;
	for (int p = 0; p < np && !bad; p++)
		if (ts[p]->rt)
			bad |= athene_bind_layout(in, p, ts[p]->str, ts[p]->off) != 0;
	return bad || athene_compile(in) ? -1 : 0;
}

typedef struct {
	athene_inst *in;
	void *const *storage;
	int rc;
	athene_status st;
} Job;

static void *run_job(void *arg)
{
	Job *j = arg;
	j->rc = athene_run(j->in, j->storage, 0, &j->st);
	return NULL;
}

/* Compiles and runs the case's kernel; records every disagreement. */
static void run_case(Case *c, int threads)
{
	athene_ctx *ctx = athene_create();
	const char *file = fmt("case%ld.ath", c->index);
	if (!ctx || athene_load(ctx, file, c->src)) {
		fail(c, "the generated kernel does not load:\n%s", ctx ? athene_errors(ctx) : "out of memory\n");
		athene_destroy(ctx);
		return;
	}
	athene_kernel *k = athene_find_kernel(ctx, "k");
	athene_inst *in = athene_instance(k);
	int np = athene_kernel_nparams(k), ni = athene_kernel_ninputs(k);
	Tens *ts[MAXIN + MAXOUT];
	for (int i = 0; i < G.nin; i++)
		ts[athene_param_index(k, G.in[i].name)] = &G.in[i];
	for (int i = 0; i < G.nout; i++)
		ts[athene_param_index(k, G.out[i].name)] = &G.out[i];
	/* sizes: sometimes first from one parameter's shape */
	int shape_of = G.nsym && pct(40) ? (int)rn(np) : -1;
	if (shape_of >= 0)
		see("sizes bound from a shape");
	if (np != G.nin + G.nout || bind_case(in, ts, np, shape_of)) {
		fail(c, "the generated kernel does not compile:\n%s", in ? athene_inst_errors(in) : "out of memory\n");
		athene_instance_free(in);
		athene_destroy(ctx);
		return;
	}
	/* sometimes a second instance, run at the same time as the first */
	int twin = pct(15);
	athene_inst *in2 = twin ? athene_instance(k) : NULL;
	if (twin && bind_case(in2, ts, np, -1)) {
		fail(c, "a second instance does not compile:\n%s", in2 ? athene_inst_errors(in2) : "out of memory\n");
		twin = 0;
	}
	int active[NRUNS] = {1, 1, 1, 1, twin};
	if (twin)
		see("two instances run at once");
	athene_set_threads(threads); /* the plan the run with T threads uses */
	const char *ex = athene_explain(in, "cpu", 0);
	athene_set_threads(0);
	for (const char *g = ex; g && (g = strstr(g, "grid (")); g++)
		if (g[6] >= '0' && g[6] <= '9')
			see("plan: a grid of several blocks");
	if (!ex)
		fail(c, "athene_explain fails:\n%s", athene_inst_errors(in));
	else {
		if (strstr(ex, "# fused into"))
			see("let fused");
		if (strstr(ex, "# materialised"))
			see("let materialised");
		if (strstr(ex, "row gather"))
			see("plan: row gather");
		if (strstr(ex, "element gather"))
			see("plan: element gather");
		for (const char *l = ex; (l = strstr(l, "\n    load  ")); l++) {
			const char *m = strstr(l, "masked"), *eol = strchr(l + 1, '\n');
			if (m && (!eol || m < eol))
				see("plan: masked view");
			const char *r = strstr(l, "rolled");
			if (r && (!eol || r < eol))
				see("plan: rolled view");
		}
	}
	/* inputs, and a copy of them elsewhere */
	Buf ib[MAXIN], ib2[MAXIN], ob[NRUNS][MAXOUT];
	void *st[NRUNS][MAXIN + MAXOUT];
	athene_param info[MAXIN + MAXOUT];
	int idx_params[MAXIN], nidx = 0;
	int64_t ilo[MAXIN], ihi[MAXIN];
	for (int p = 0; p < np; p++) {
		athene_param_info(in, p, &info[p]);
		size_t es = athene_dtype_size(info[p].dtype), bytes = (size_t)info[p].storage_elems * es;
		if (p >= ni) {
			Buf *b0 = &ob[0][p - ni];
			buf_make(b0, bytes, es);
			for (int r = 1; r < NRUNS; r++) {
				Buf *b = &ob[r][p - ni];
				*b = *b0;
				b->mem = malloc(b0->total);
				b->saved = malloc(b0->total);
				if (!b->mem || !b->saved)
					exit(2);
				memcpy(b->mem, b0->mem, b0->total);
			}
			for (int r = 0; r < NRUNS; r++) {
				memcpy(ob[r][p - ni].saved, ob[r][p - ni].mem, b0->total);
				st[r][p] = buf_data(&ob[r][p - ni]);
			}
			continue;
		}
		Buf *b = &ib[p];
		buf_make(b, bytes, es);
		int dt = info[p].dtype;
		int64_t lo, hi;
		int is_index = athene_index_range(in, p, &lo, &hi) == 0;
		if (is_index) {
			lo = lo > dt_min(dt) ? lo : dt_min(dt);
			hi = hi < dt_max(dt) ? hi : dt_max(dt);
			idx_params[nidx++] = p;
			ilo[p] = lo;
			ihi[p] = hi;
		}
		void *d = buf_data(b);
		int wide = isint(dt) && !is_index && pct(25); /* the dtype's whole range: ops overflow and wrap */
		if (wide)
			see("integers of the whole range");
		for (int64_t e = 0; e < info[p].storage_elems; e++) {
			if (wide)
				athene_store_i64(d, dt, e, (int64_t)rnext() >> rn(64)); /* stored as astype: wrapped */
			else if (is_index)
				athene_store_i64(d, dt, e, lo <= hi ? rr(lo, hi) : 0);
			else if (dt == BO)
				athene_store_i64(d, dt, e, rn(2));
			else if (dt == U8)
				athene_store_i64(d, dt, e, rr(0, 12));
			else if (isint(dt))
				athene_store_i64(d, dt, e, rr(-8, 8));
			else
				athene_store_f64(d, dt, e, (double)rn(1 << 20) / (1 << 18) - 2.0);
		}
		for (int r = 0; r < NRUNS; r++)
			st[r][p] = d;
	}
	for (int p = 0; p < ni; p++) {
		buf_make(&ib2[p], ib[p].bytes, athene_dtype_size(info[p].dtype));
		st[RUN_MOVED][p] = st[RUN_TWIN][p] = buf_data(&ib2[p]);
	}
	/* sometimes one index out of its valid range (more often in the large
	 * row gathers, whose fast loops check their own indices) */
	const char *badmsg = NULL;
	if (nidx && pct(G.big == 3 ? 40 : 12)) {
		int p = idx_params[rn(nidx)];
		int dt = info[p].dtype;
		int64_t v = pct(50) ? ihi[p] + 1 + (pct(30) ? rn(50) : 0) : ilo[p] - 1 - (pct(30) ? rn(50) : 0);
		if (info[p].storage_elems > 0 && v >= dt_min(dt) && v <= dt_max(dt)) {
			int64_t e = rn(info[p].storage_elems);
			athene_store_i64(buf_data(&ib[p]), dt, e, v);
			badmsg = fmt("storage element %" PRId64 " of %s is %" PRId64 " (valid: [%" PRId64 ", %" PRId64 "])",
			             e, info[p].name, v, ilo[p], ihi[p]);
			see("an index out of range");
		}
	}
	for (int p = 0; p < ni; p++) {
		memcpy(buf_data(&ib2[p]), buf_data(&ib[p]), ib[p].bytes);
		memcpy(ib[p].saved, ib[p].mem, ib[p].total);
		memcpy(ib2[p].saved, ib2[p].mem, ib2[p].total);
	}
	/* the runs */
	athene_status s[NRUNS];
	int rc[NRUNS];
	athene_set_threads(1);
	rc[RUN_REF] = athene_run(in, st[RUN_REF], ATHENE_REFERENCE, &s[RUN_REF]);
	rc[RUN_ONE] = athene_run(in, st[RUN_ONE], 0, &s[RUN_ONE]);
	athene_set_threads(threads);
	/* then a clean kernel's failing run writes no output (the other runs go without) */
	rc[RUN_MANY] = athene_run(in, st[RUN_MANY], ATHENE_UNTOUCHED, &s[RUN_MANY]);
	Job job = {in2, st[RUN_TWIN], 0, {0, ""}};
	pthread_t other;
	if (twin && pthread_create(&other, NULL, run_job, &job)) {
		fail(c, "cannot start a thread\n");
		twin = active[RUN_TWIN] = 0;
	}
	rc[RUN_MOVED] = athene_run(in, st[RUN_MOVED], 0, &s[RUN_MOVED]);
	if (twin) {
		pthread_join(other, NULL);
		rc[RUN_TWIN] = job.rc;
		s[RUN_TWIN] = job.st;
	} else {
		rc[RUN_TWIN] = rc[RUN_REF];
		s[RUN_TWIN] = s[RUN_REF];
	}
	athene_set_threads(0);
	for (int r = 0; r < NRUNS; r++)
		if (active[r] && (rc[r] != 0) != (s[r].failed != 0))
			fail(c, "%s returns %d but its status says failed=%d\n", run_name[r], rc[r], s[r].failed);
	if (rc[RUN_REF])
		see("every run fails");
	for (int r = RUN_ONE; r < NRUNS; r++) {
		if (!active[r])
			continue;
		if ((rc[r] != 0) != (rc[RUN_REF] != 0))
			fail(c, "%s %s but the interpreter %s: %s\n", run_name[r], rc[r] ? "fails" : "succeeds",
			     rc[RUN_REF] ? "fails" : "succeeds", first_line(rc[r] ? s[r].message : s[RUN_REF].message));
		else if (rc[r] && strcmp(first_line(s[r].message), first_line(s[RUN_REF].message)))
			fail(c, "%s and the interpreter fail differently:\n  %s\n  %s\n", run_name[r],
			     first_line(s[r].message), first_line(s[RUN_REF].message));
	}
	/* outputs: against the interpreter, and between thread counts */
	for (int p = ni; p < np && !c->failed && !rc[RUN_REF]; p++) {
		int dt = info[p].dtype, shown = 0;
		for (int r = RUN_ONE; r < NRUNS; r++) {
			const void *a = st[r][p], *b = st[RUN_REF][p];
			if (!active[r])
				continue;
			for (int64_t e = 0; e < info[p].storage_elems && shown < 4; e++)
				if (!agree(a, b, dt, e, ts[p]->tol)) {
					fail(c, "%s: storage element %" PRId64 " of %s is %s, the interpreter's %s\n", run_name[r], e,
					     info[p].name, elem_text(a, dt, e), elem_text(b, dt, e));
					shown++;
				}
		}
		for (int64_t e = 0; e < info[p].storage_elems && shown < 4; e++)
			if (!agree(st[RUN_ONE][p], st[RUN_MANY][p], dt, e, 0)) {
				fail(c, "the executor's storage element %" PRId64 " of %s is %s with 1 thread, %s with %d\n", e,
				     info[p].name, elem_text(st[RUN_ONE][p], dt, e), elem_text(st[RUN_MANY][p], dt, e), threads);
				shown++;
			}
	}
	if (rc[RUN_MANY] && athene_inst_clean_errors(in)) {
		see("a failed run leaving its outputs as they were");
		for (int p = ni; p < np; p++)
			if (memcmp(ob[RUN_MANY][p - ni].mem, ob[RUN_MANY][p - ni].saved, ob[RUN_MANY][p - ni].total))
				fail(c, "%s failed with ATHENE_UNTOUCHED but wrote to %s\n", run_name[RUN_MANY], info[p].name);
	}
	/* nothing written outside the outputs' storage */
	for (int p = 0; p < ni; p++)
		if (memcmp(ib[p].mem, ib[p].saved, ib[p].total) || memcmp(ib2[p].mem, ib2[p].saved, ib2[p].total))
			fail(c, "input %s (or its guard bytes) was modified\n", info[p].name);
	for (int r = 0; r < NRUNS; r++)
		for (int p = ni; p < np && active[r]; p++) {
			Buf *b = &ob[r][p - ni];
			long lo = 0, hi = 0, nlo = 0, nhi = 0;
			for (size_t i = 0; i < b->lead; i++)
				if (b->mem[i] != b->saved[i])
					lo = nlo++ ? lo : (long)i - (long)b->lead;
			for (size_t i = b->lead + b->bytes; i < b->total; i++)
				if (b->mem[i] != b->saved[i])
					hi = nhi++ ? hi : (long)(i - b->lead - b->bytes);
			if (nlo)
				fail(c, "%s wrote %ld bytes before the storage of %s (%zu bytes), from byte %ld\n", run_name[r], nlo,
				     info[p].name, b->bytes, lo);
			if (nhi)
				fail(c, "%s wrote %ld bytes after the storage of %s (%zu bytes), from byte %ld past its end\n",
				     run_name[r], nhi, info[p].name, b->bytes, hi);
		}
	if (c->failed && badmsg)
		fail(c, "bad index: %s\n", badmsg);
	for (int p = 0; p < ni; p++) {
		buf_free(&ib[p]);
		buf_free(&ib2[p]);
	}
	for (int r = 0; r < NRUNS; r++)
		for (int p = ni; p < np; p++)
			buf_free(&ob[r][p - ni]);
	athene_instance_free(in);
	athene_instance_free(in2);
	athene_destroy(ctx);
}

static void print_case(const Case *c, uint64_t seed, int threads)
{
	printf("--- case %ld (rerun alone: diff_test --seed %" PRIu64 " --only %ld --threads %d)\n%s", c->index, seed,
	       c->index, threads, c->src);
	if (G.nsym) {
		printf("sizes:");
		for (int s = 0; s < G.nsym; s++)
			printf(" %s=%" PRId64, G.sym[s], G.symv[s]);
		printf("\n");
	}
	for (int i = 0; i < G.nin + G.nout; i++) {
		const Tens *t = i < G.nin ? &G.in[i] : &G.out[i - G.nin];
		if (!t->rt)
			continue;
		printf("layout of %s given at run time: strides(", t->name);
		for (int d = 0; d < t->rank; d++)
			printf("%s%" PRId64, d ? ", " : "", t->str[d]);
		printf(") offset %" PRId64 "\n", t->off);
	}
}

/* What a run of 1000 cases or more must have generated. */
static int check_coverage(void)
{
	static const char *required[] = {
		"size 0", "size 1", "size symbol", "sizes bound from a shape", "slice step -1", "slice step +2/+3",
		"slice step -2/-3", "// in a subscript", "% in a subscript", "split dim", "merged dims",
		"overlapping window", "permutation", "constant subscript", "flat reshuffle", "flat repeat", "flat tile",
		"flat collapsed permutation", "gather", "gather with wrap", "nested gather", "clamped gather",
		"gather guarded by where", "row gather through .flat", "gather, index rank 0", "gather, index rank 1",
		"gather, index rank 2", "a failed run leaving its outputs as they were", "gather along axis 0",
		"gather along axis 1", "gather along axis 2",
		"an index out of range", "every run fails", "reduction with a bound", "reduction with an inferred range",
		"empty reduction", "let fused", "let materialised", "let holding a sum", "tolerant value",
		"declared negative stride", "declared zero stride", "declared offset", "run-time negative stride",
		"run-time zero stride", "run-time offset", "declared layout, output", "run-time layout, output",
		"an input read twice", "index variable as a value", "large pointwise", "large reduction", "large row gather", "two instances run at once",
		"plan: row gather", "plan: element gather", "plan: a grid of several blocks",
		"masked load: cat", "masked load: pad", "masked load: every position masked",
		"masked load: guard narrower than the box", "plan: masked view", "roll", "plan: rolled view",
		"integers of the whole range",
	};
	static const char *ops[] = {"+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||",
	                            "!", "neg", "abs", "sign", "relu", "floor", "ceil", "round", "trunc", "exp",
	                            "exp2", "log", "log2", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan",
	                            "tanh", "sigmoid", "erf", "atan2", "isnan", "isinf", "pow", "min", "max",
	                            "clamp", "where", "wrap", "&", "|", "^", "~", "<<", ">>", "hypot", "nextafter",
	                            "erfinv", "lgamma", "digamma", "bits", "i0", "i0e", "i1", "i1e", "k0", "k0e",
	                            "k1", "k1e", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
	                            "spherical_bessel_j0", "chebyshev_t", "chebyshev_u", "chebyshev_v",
	                            "chebyshev_w", "shifted_chebyshev_t", "shifted_chebyshev_u", "shifted_chebyshev_v",
	                            "shifted_chebyshev_w", "hermite_h", "hermite_he", "laguerre_l", "legendre_p", "igamma", "igammac", "polygamma", "zeta",
	                            "frexp_mantissa", "frexp_exponent", "erfcx", "ndtri", "airy_ai"};
	int missing = 0;
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
		if (!seen(required[i]))
			printf("coverage: no case had: %s\n", required[i]), missing++;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (!seen(fmt("op %s", ops[i])))
			printf("coverage: no case used op %s\n", ops[i]), missing++;
	for (int r = 0; r < 9; r++)
		if (!seen(fmt("reduction %s", red_name[r])))
			printf("coverage: no case used reduction %s\n", red_name[r]), missing++;
	for (int d = 0; d < ATHENE_NDTYPES; d++) {
		if (!seen(fmt("input %s", athene_dtype_name(d))) || !seen(fmt("output %s", athene_dtype_name(d))) ||
		    !seen(fmt("cast to %s", athene_dtype_name(d))))
			printf("coverage: dtype %s is missing as an input, an output or a cast\n", athene_dtype_name(d)), missing++;
	}
	for (int r = 0; r <= 5; r++)
		if (!seen(fmt("input rank %d", r)) || !seen(fmt("output rank %d", r)))
			printf("coverage: rank %d is missing as an input or an output\n", r), missing++;
	return missing;
}

/* A crash (in the library: a test must not lose the case) prints the case
 * being run before the process dies of the signal. Not under the
 * sanitizers, whose own handlers report the crash. */
static char crash_text[1 << 16];

static void on_crash(int sig)
{
	fputs(crash_text, stderr);
	fflush(stderr);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_crashes(void)
{
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
	return;
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return;
#endif
	static const int sigs[] = {SIGSEGV, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], on_crash);
}

static void usage(void)
{
	fprintf(stderr, "usage: diff_test [--seed S] [--count N] [--threads T] [--only C] [--print]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 20261201;
	long count = 2000, only = -1;
	int threads = 3, print = 0;
	for (int i = 1; i < argc; i++) {
		char *end = NULL;
		if (!strcmp(argv[i], "--print")) {
			print = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[++i], &end, 10);
		else if (!strcmp(argv[i], "--count"))
			count = strtol(argv[++i], &end, 10);
		else if (!strcmp(argv[i], "--threads"))
			threads = (int)strtol(argv[++i], &end, 10);
		else if (!strcmp(argv[i], "--only"))
			only = strtol(argv[++i], &end, 10);
		else
			usage();
		if (!end || *end || count < 0 || threads < 1)
			usage();
	}
	long first = only >= 0 ? only : 0, last = only >= 0 ? only + 1 : count;
	printf("diff_test: seed %" PRIu64 ", %ld cases, the executor with 1 and %d threads against the interpreter\n",
	       seed, last - first, threads);
	fflush(stdout);
	catch_crashes();
	long passed = 0, failed = 0;
	for (long i = first; i < last; i++) {
		Case c = {.index = i, .seed = seed};
		pool_n = 0;
		rs = seed ^ (0x2545f4914f6cdd1dull * (uint64_t)(i + 1));
		rnext();
		c.src = generate();
		snprintf(crash_text, sizeof crash_text, "diff_test: crashed in case %ld (rerun alone: diff_test --seed %" PRIu64
		         " --only %ld --threads %d)\n%s", i, seed, i, threads, c.src);
		run_case(&c, threads);
		if (c.failed || print || only >= 0) {
			print_case(&c, seed, threads);
			if (c.failed)
				printf("FAIL case %ld:\n%s", i, c.why);
			fflush(stdout);
		}
		if (c.failed)
			failed++;
		else
			passed++;
	}
	if (last - first >= 1000) {
		int missing = check_coverage();
		if (missing)
			failed++;
	}
	printf("diff_test: %ld cases,", last - first);
	for (int i = 0; i < ncov; i++)
		if (strstr(cov_name[i], "every run") || strstr(cov_name[i], "out of range") ||
		    strstr(cov_name[i], "as they were") || strstr(cov_name[i], "let ") ||
		    strstr(cov_name[i], "several blocks") || strstr(cov_name[i], "large ") || strstr(cov_name[i], "plan: masked") ||
		    strstr(cov_name[i], "plan: rolled"))
			printf(" %s: %ld,", cov_name[i], cov_n[i]);
	printf(" %d features seen\n", ncov);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}
