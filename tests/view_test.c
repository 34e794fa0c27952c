/* Property test of the access analysis (src/view.c).
 *
 * Random accesses: a tensor of rank 1-3 with a random layout (row-major,
 * permuted, with gaps, negative strides with an offset), subscripted by
 * random affine / floor-division / modulo expressions of 1-3 index variables
 * over small domains, and sometimes one dim subscripted by data (an atom,
 * like idx[s]). One time in four a variable is masked: its range is a box
 * [lo, hi] inside its extent, as a where() guard leaves it. The flat offset
 * is built as lowering builds it. Whenever the analysis produces a view (or
 * a row gather), enumerating the view must give exactly the address of the
 * original expression at every point of the domain (every point of the box,
 * for a masked variable) and every value of the atom. Every fallback must
 * carry a reason; the fraction of fallbacks is printed.
 *
 * Then NumPy basic slices of declared shapes: a tensor of rank 1-3 with a
 * random shape and layout, each dim an integer index or a slice
 * start:stop:step (any step, negative ones too, dividing the dim or not)
 * of its own variable, the variables in a random order. These are analysed
 * with the tensor's declared layout, checked the same way, and the fraction
 * that falls back is printed (it should be 0). `view_test [SEED] [COUNT]`. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "testlib.h"


static Var vars[3];
static int64_t extent[3];       /* of each variable */
static int64_t box_lo[3], box_hi[3]; /* the values a (masked) variable takes */
static Inst inst = {.n = extent}; /* only the extents are read */
static int nvars;

/* Index loads of row gathers read no data: any atom-free offset will do. */
static const Sym *index_off(const void *env, const Node *load)
{
	(void)load;
	return env;
}

/* A random subscript of the index variables. */
static Sym *subscript(SymTab *t, Sym **v)
{
	Sym *x = v[rnd((unsigned)nvars)];
	int64_t d = 2 + rnd(4), m = 2 + rnd(4);
	switch (rnd(9)) {
	case 0: return sym_const(t, rnd(3));
	case 1: return sym_scale(t, x, 1 + rnd(3));
	case 2: return sym_add(t, sym_scale(t, x, -1), sym_const(t, 20));
	case 3: return sym_floordiv(t, x, sym_const(t, d));
	case 4: return sym_mod(t, x, sym_const(t, m));
	case 5: return sym_mod(t, sym_floordiv(t, x, sym_const(t, d)), sym_const(t, m));
	case 6: return sym_add(t, x, v[rnd((unsigned)nvars)]);
	case 7: return sym_add(t, sym_scale(t, sym_mod(t, x, sym_const(t, m)), 3), sym_floordiv(t, x, sym_const(t, m)));
	default: return sym_add(t, x, sym_const(t, rnd(4)));
	}
}

typedef struct {
	const Sym *atom;
	int64_t value;
} AtomVal;
static AtomVal atomval;

static int leaf(void *env, const Sym *s, int64_t *out)
{
	const int64_t *val = env;
	*out = s->kind == S_VAR ? val[s->c] : atomval.value;
	return SYM_OK;
}

/* Every point of the variables' boxes: the next after val, false after the last. */
static bool next_point(int64_t *val)
{
	for (int i = 0; i < nvars; i++) {
		if (++val[i] <= box_hi[i])
			return true;
		val[i] = box_lo[i];
	}
	return false;
}

static void first_point(int64_t *val)
{
	for (int i = 0; i < 3; i++)
		val[i] = i < nvars ? box_lo[i] : 0;
}

static int64_t sym_min_max(const Sym *s, int64_t *hi)
{
	int64_t lo = INT64_MAX, v, val[3];
	*hi = INT64_MIN;
	first_point(val);
	do {
		sym_eval(s, leaf, val, &v);
		lo = v < lo ? v : lo;
		*hi = v > *hi ? v : *hi;
	} while (next_point(val));
	return lo;
}

static long nviews, nfallback, ngather, npoints, nbad, nmasked;
static long nslices, nslice_fallback;
static char slice_reason[200];
static char reasons[4][200];
static long counts[4];

/* Every point of the domain (the boxes) and every atom value: the view's
 * address is the offset's. */
static void check_view(const View *view, const Sym *off, int64_t natom)
{
	int64_t val[3], av[VIEW_MAXDIG] = {0};
	for (atomval.value = 0; atomval.value < natom; atomval.value++) {
		first_point(val);
		do {
			int64_t want, got;
			sym_eval(off, leaf, val, &want);
			for (int g = 0; g < view->ngat; g++)
				av[g] = atomval.value;
			got = view_address(view, val, av);
			npoints++;
			if (want != got && nbad++ < 10) {
				Buf b = {0};
				sym_print(&b, off, sym_leaf_name, NULL);
				buf_printf(&b, "  ->  ");
				view_print(&b, view);
				fprintf(stderr, "FAIL: at (%lld, %lld, %lld) want %lld got %lld: %s\n", (long long)val[0],
				        (long long)val[1], (long long)val[2], (long long)want, (long long)got, buf_str(&b));
				buf_free(&b);
			}
		} while (next_point(val));
	}
}

static void test_one(Arena *ar)
{
	SymTab *t = symtab_new(ar, true);
	nvars = 1 + (int)rnd(3);
	Sym *v[3];
	bool masked = false;
	for (int i = 0; i < nvars; i++) {
		vars[i] = (Var){.name = i == 0 ? "i" : i == 1 ? "j" : "k", .id = i};
		extent[i] = 1 + rnd(10);
		box_lo[i] = 0, box_hi[i] = extent[i] - 1;
		if (extent[i] > 2 && rnd(4) == 0) { /* masked: a box inside the extent */
			box_lo[i] = rnd((unsigned)extent[i] - 1);
			box_hi[i] = box_lo[i] + rnd((unsigned)(extent[i] - box_lo[i]));
			masked = true;
		}
		v[i] = sym_var(t, i, box_lo[i], box_hi[i], &vars[i]);
	}
	int rank = 1 + (int)rnd(3), atom_dim = rnd(5) == 0 ? (int)rnd((unsigned)rank) : -1;
	int64_t shape[3], stride[3], offset = 0, lo, hi;
	Sym *sub[3];
	static Tensor idx = {.name = "idx", .rank = 1};
	Node payload = {.kind = N_LOAD, .name = "idx", .t = &idx};
	for (int d = 0; d < rank; d++) {
		if (d == atom_dim) {
			shape[d] = 1 + rnd(6);
			sub[d] = sym_atom(t, 0, 0, shape[d] - 1, &payload);
			continue;
		}
		sub[d] = subscript(t, v);
		lo = sym_min_max(sub[d], &hi);
		sub[d] = sym_add(t, sub[d], sym_const(t, -lo)); /* in bounds from 0 */
		shape[d] = hi - lo + 1 + rnd(3);
	}
	/* layout: a random order of the dims, gaps, and negative strides */
	int order[3] = {0, 1, 2};
	for (int i = rank - 1; i > 0; i--) {
		int j = (int)rnd((unsigned)i + 1), tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	int64_t acc = 1;
	for (int i = rank - 1; i >= 0; i--) {
		stride[order[i]] = acc * (rnd(4) == 0 ? 2 : 1);
		acc = stride[order[i]] * shape[order[i]];
	}
	for (int d = 0; d < rank; d++)
		if (rnd(4) == 0) {
			offset += stride[d] * (shape[d] - 1);
			stride[d] = -stride[d];
		}
	int64_t storage = offset + 1;
	for (int d = 0; d < rank; d++)
		if (stride[d] > 0)
			storage += stride[d] * (shape[d] - 1);
	Sym *off = sym_const(t, offset);
	for (int d = 0; d < rank; d++)
		off = sym_add(t, off, sym_scale(t, sub[d], stride[d]));
	View view;
	const Var *scope[3] = {&vars[0], &vars[1], &vars[2]};
	view_analyse(&view, ar, off, storage, NULL, NULL, &inst, scope, nvars, index_off, sym_const(t, 0));
	if (view.cls == VIEW_ELEM) {
		nfallback++;
		if (!view.reason[0]) {
			nbad++;
			fprintf(stderr, "FAIL: fallback without a reason\n");
		}
		for (int r = 0; r < 4; r++) /* one example of each kind of reason */
			if (!reasons[r][0] || !strncmp(reasons[r], view.reason, 12)) {
				if (!reasons[r][0])
					snprintf(reasons[r], sizeof reasons[0], "%s", view.reason);
				counts[r]++;
				break;
			}
		return;
	}
	nviews++;
	ngather += view.cls == VIEW_ROWGATHER;
	nmasked += masked;
	check_view(&view, off, atom_dim >= 0 ? shape[atom_dim] : 1);
}

/* A NumPy basic slice of a declared shape: integer indices and slices
 * start:stop:step of distinct variables, over a random layout. */
static void test_slice(Arena *ar)
{
	SymTab *t = symtab_new(ar, true);
	int rank = 1 + (int)rnd(3);
	nvars = 0;
	int64_t shape[3], stride[3], offset = 0;
	Sym *sub[3];
	int order[3] = {0, 1, 2}; /* the dims in the order of their variables */
	for (int i = rank - 1; i > 0; i--) {
		int j = (int)rnd((unsigned)i + 1), tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (int q = 0; q < rank; q++) {
		int d = order[q];
		shape[d] = 1 + rnd(12);
		if (rnd(4) == 0) {
			sub[d] = sym_const(t, rnd((unsigned)shape[d]));
			continue;
		}
		/* start:stop:step with step in [-5, 5] \ {0}: count elements */
		int64_t step = 1 + rnd(5), count, start;
		if (rnd(3) == 0)
			step = -step;
		start = rnd((unsigned)shape[d]);
		int64_t room = step > 0 ? (shape[d] - 1 - start) / step : start / -step;
		count = 1 + rnd((unsigned)room + 1);
		int vi = nvars++;
		vars[vi] = (Var){.name = vi == 0 ? "i" : vi == 1 ? "j" : "k", .id = vi};
		extent[vi] = count;
		box_lo[vi] = 0, box_hi[vi] = count - 1;
		Sym *x = sym_var(t, vi, 0, count - 1, &vars[vi]);
		sub[d] = sym_add(t, sym_const(t, start), sym_scale(t, x, step));
	}
	if (!nvars)
		return;
	int lorder[3] = {0, 1, 2};
	for (int i = rank - 1; i > 0; i--) {
		int j = (int)rnd((unsigned)i + 1), tmp = lorder[i];
		lorder[i] = lorder[j];
		lorder[j] = tmp;
	}
	int64_t acc = 1;
	for (int i = rank - 1; i >= 0; i--) {
		stride[lorder[i]] = acc * (rnd(4) == 0 ? 2 : 1);
		acc = stride[lorder[i]] * shape[lorder[i]];
	}
	for (int d = 0; d < rank; d++)
		if (rnd(4) == 0) {
			offset += stride[d] * (shape[d] - 1);
			stride[d] = -stride[d];
		}
	int64_t storage = offset + 1;
	for (int d = 0; d < rank; d++)
		if (stride[d] > 0)
			storage += stride[d] * (shape[d] - 1);
	Sym *off = sym_const(t, offset);
	for (int d = 0; d < rank; d++)
		off = sym_add(t, off, sym_scale(t, sub[d], stride[d]));
	Tensor x = {.name = "x", .rank = rank};
	Layout lay = {.offset = offset, .storage = storage};
	for (int d = 0; d < rank; d++)
		lay.shape[d] = shape[d], lay.strides[d] = stride[d];
	View view;
	const Var *scope[3] = {&vars[0], &vars[1], &vars[2]};
	view_analyse(&view, ar, off, storage, &x, &lay, &inst, scope, nvars, NULL, NULL);
	nslices++;
	if (view.cls == VIEW_ELEM) {
		if (!nslice_fallback++)
			snprintf(slice_reason, sizeof slice_reason, "%s", view.reason);
		return;
	}
	check_view(&view, off, 1);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 20261129;
	long count = argc > 2 ? strtol(argv[2], NULL, 10) : 20000;
	rng = seed * 2654435761u + 88172645463325252ull;
	Arena ar = {0};
	for (long i = 0; i < count; i++) {
		test_one(&ar);
		if (i % 500 == 499)
			arena_free(&ar);
	}
	for (long i = 0; i < count; i++) {
		test_slice(&ar);
		if (i % 500 == 499)
			arena_free(&ar);
	}
	arena_free(&ar);
	printf("view_test: seed %llu, %ld random accesses: %ld views (%ld row gathers), %ld element gathers (%.1f%%)\n",
	       (unsigned long long)seed, count, nviews - ngather, ngather, nfallback, 100.0 * (double)nfallback / (double)count);
	for (int i = 0; i < 4 && reasons[i][0]; i++)
		printf("  %5ld like: %s\n", counts[i], reasons[i]);
	printf("  %ld views with a masked variable\n", nmasked);
	printf("basic slices of declared shapes: %ld, %ld element gathers (%.1f%%)%s%s\n", nslices, nslice_fallback,
	       nslices ? 100.0 * (double)nslice_fallback / (double)nslices : 0.0, nslice_fallback ? ", like: " : "",
	       slice_reason);
	printf("%ld passed, %ld failed\n", npoints + nfallback - nbad, nbad);
	return nbad != 0;
}
