/* Access analysis: one algorithm turns the flat storage offset of a load or
 * store into a view of the storage, or says why it cannot.
 *
 *  1. Digits. Where // or % cut an index variable v < n, v is split into
 *     mixed-radix digits v = Σ place_j·t_j. Substituting the digits and
 *     simplifying (the algebra's digit rules) removes every // and %; new
 *     cuts are found from what is left, until the offset is affine:
 *         offset = base + Σ c_k·t_k + Σ g_j·a_j    (a_j: data-dependent atoms)
 *  2. Factor the storage. Sorted by |c|, each coefficient must divide the
 *     next and clear the span of the one before (|c_k|·n_k <= |c_{k+1}|).
 *     Then the storage reshapes into a mixed-radix array with exactly those
 *     strides (and a stride-1 filler axis when the smallest is not 1).
 *  3. Place the base. Written in that mixed radix, base gives a static index
 *     on each filler axis and the start of the slice on each iteration axis;
 *     a negative coefficient is a reversed slice. Digits with coefficient 0
 *     are broadcast axes; the order of the iteration axes against the
 *     storage axes is the permutation.
 * Atoms are axes too: a gathered axis whose index comes from loaded data.
 * When the atoms' axes factor and their index loads are plain views, the
 * access is a row gather; anything else is an element gather, with the
 * reason the view failed. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define MAXCUT 8
#define MAXPEND 64

typedef struct {
	const Sym *var; /* S_VAR in the source table */
	int64_t lo, n;  /* var in [lo, lo + n): digits are those of var - lo */
	int ncut;
	int64_t cut[MAXCUT]; /* ascending, each divides the next */
} Cuts;

typedef struct {
	View *v;
	SymTab *t;
	int nvars;
	Cuts cuts[VIEW_MAXDIG];
	const Sym *atoms[VIEW_MAXDIG];
	int natoms;
	int64_t storage;
	const Inst *in;
	int npend; /* cuts found in this round, applied after it */
	struct {
		int vi;
		int64_t place;
	} pend[MAXPEND];
} An;

static bool fail(An *an, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(An *an, int cls, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(an->v->reason, sizeof an->v->reason, fmt, ap);
	va_end(ap);
	an->v->cls = cls;
	return false;
}

static void collect_leaves(An *an, const Sym *s)
{
	if (s->kind == S_VAR) {
		for (int i = 0; i < an->nvars; i++)
			if (an->cuts[i].var == s)
				return;
		if (an->nvars < VIEW_MAXDIG)
			an->cuts[an->nvars++] = (Cuts){.var = s, .lo = s->lo, .n = s->hi - s->lo + 1};
		return;
	}
	if (s->kind == S_ATOM) {
		for (int i = 0; i < an->natoms; i++)
			if (an->atoms[i] == s)
				return;
		if (an->natoms < VIEW_MAXDIG)
			an->atoms[an->natoms++] = s;
		return;
	}
	for (int i = 0; i < s->n; i++)
		collect_leaves(an, s->a[i]);
}

/* ---- 1. digits ---- */

static int digit_count(const Cuts *c)
{
	return c->ncut + 1;
}

static int64_t digit_place(const Cuts *c, int j)
{
	return j == 0 ? 1 : c->cut[j - 1];
}

static int64_t digit_extent(const Cuts *c, int j)
{
	int64_t place = digit_place(c, j);
	if (j == c->ncut)
		return i64_ceil_div(c->n, place);
	return c->cut[j] / place;
}

/* Digit j of variable vi is variable number vi·(MAXCUT + 1) + j in the digit table. */
static Sym *digit_sym(An *an, int vi, int j)
{
	return sym_var(an->t, vi * (MAXCUT + 1) + j, 0, digit_extent(&an->cuts[vi], j) - 1, an->cuts[vi].var->p);
}

/* A variable becomes the sum of its digits, each times its place. */
static Sym *digits_of(SymTab *t, const Sym *leaf, void *env)
{
	An *an = env;
	if (leaf->kind != S_VAR)
		return NULL;
	for (int i = 0; i < an->nvars; i++)
		if (an->cuts[i].var == leaf) {
			Sym *r = sym_const(t, an->cuts[i].lo);
			for (int j = 0; j < digit_count(&an->cuts[i]); j++)
				r = sym_add(t, r, sym_scale(t, digit_sym(an, i, j), digit_place(&an->cuts[i], j)));
			return r;
		}
	die("unknown variable in view");
}

/* Adds cut `place` to variable vi. False if it would break the chain. */
static bool add_cut(Cuts *c, int64_t place)
{
	if (place <= 1 || place >= c->n)
		return true; /* no-op: the digit spans it already */
	int i = 0;
	while (i < c->ncut && c->cut[i] < place)
		i++;
	if (i < c->ncut && c->cut[i] == place)
		return true;
	if ((i > 0 && place % c->cut[i - 1]) || (i < c->ncut && c->cut[i] % place) || c->ncut == MAXCUT)
		return false;
	memmove(&c->cut[i + 1], &c->cut[i], (size_t)(c->ncut - i) * sizeof c->cut[0]);
	c->cut[i] = place;
	c->ncut++;
	return true;
}

/* For a DIV/MOD node by d over digits: cut each digit where k·t crosses d. */
static int new_cuts(An *an, const Sym *s, int *bad)
{
	int added = 0;
	for (int i = 0; i < s->n; i++)
		added += new_cuts(an, s->a[i], bad);
	if ((s->kind != S_DIV && s->kind != S_MOD) || s->a[1]->kind != S_CONST || s->a[1]->c <= 0) {
		if (s->kind == S_DIV || s->kind == S_MOD)
			(*bad)++;
		return added;
	}
	const Sym *x = s->a[0];
	int64_t d = s->a[1]->c;
	int n = x->kind == S_ADD ? x->n : 1;
	for (int i = 0; i < n; i++) {
		const Sym *t = x->kind == S_ADD ? x->a[i] : x;
		int64_t k = x->kind == S_ADD ? x->k[i] : 1;
		if (t->kind != S_VAR || k <= 0)
			continue;
		int vi = (int)(t->c / (MAXCUT + 1)), j = (int)(t->c % (MAXCUT + 1));
		int64_t sub = d / gcd64(d, k); /* the digit is cut at sub of its own units */
		Cuts *c = &an->cuts[vi];
		int64_t place;
		if (sub > 1 && sub < digit_extent(c, j) && an->npend < MAXPEND && i64_mul(digit_place(c, j), sub, &place)) {
			/* applied after the walk: the digit numbering stays fixed during it */
			an->pend[an->npend].vi = vi;
			an->pend[an->npend++].place = place;
			added++;
		}
	}
	return added;
}

/* Applies the cuts found in one round. False (reason set) when one does not
 * nest with the others. */
static bool apply_cuts(An *an)
{
	for (int i = 0; i < an->npend; i++) {
		Cuts *c = &an->cuts[an->pend[i].vi];
		if (add_cut(c, an->pend[i].place))
			continue;
		Buf b = {0};
		for (int j = 0; j < c->ncut; j++)
			buf_printf(&b, "%s%lld", j ? ", " : "", (long long)c->cut[j]);
		fail(an, VIEW_ELEM, "'%s' is cut at %lld and at %s: the digits do not nest", ((const Var *)c->var->p)->name,
		     (long long)an->pend[i].place, buf_str(&b));
		buf_free(&b);
		return false;
	}
	return true;
}

static bool is_affine(const Sym *s)
{
	if (s->kind == S_CONST || s->kind == S_VAR || s->kind == S_ATOM)
		return true;
	if (s->kind != S_ADD)
		return false;
	for (int i = 0; i < s->n; i++)
		if (s->a[i]->kind != S_VAR && s->a[i]->kind != S_ATOM)
			return false;
	return true;
}

static Sym *find_nonaffine(Sym *s)
{
	if (s->kind == S_ADD) {
		for (int i = 0; i < s->n; i++)
			if (s->a[i]->kind != S_VAR && s->a[i]->kind != S_ATOM)
				return s->a[i];
	}
	return s;
}

/* Digit until affine; returns the affine offset or NULL (reason set). */
static Sym *to_digits(An *an, const Sym *off)
{
	for (int iter = 0; iter < 2 * MAXCUT; iter++) {
		an->t = symtab_new(an->t->ar, true);
		Sym *e = sym_rebuild(an->t, off, digits_of, an);
		if (an->t->overflow)
			return fail(an, VIEW_ELEM, "the offset overflows 64 bits"), NULL;
		if (is_affine(e))
			return e;
		int bad = 0;
		an->npend = 0;
		int added = new_cuts(an, e, &bad);
		if (!apply_cuts(an))
			return NULL;
		if (!added || bad) {
			Buf b = {0};
			sym_print(&b, find_nonaffine(e), sym_leaf_name, NULL);
			fail(an, VIEW_ELEM, "%s is not affine in the digits of the index variables", buf_str(&b));
			buf_free(&b);
			return NULL;
		}
	}
	return fail(an, VIEW_ELEM, "too many digit cuts"), NULL;
}

/* ---- 2, 3. factor the storage and place the base ---- */

typedef struct {
	int64_t c;  /* coefficient */
	int64_t n;  /* extent */
	int dig;    /* digit number, or -1 - atom index */
} Term;

static int by_abs_coef(const void *a, const void *b)
{
	int64_t x = llabs(((const Term *)a)->c), y = llabs(((const Term *)b)->c);
	return (x > y) - (x < y);
}

static void term_name(An *an, const Term *t, Buf *b)
{
	if (t->dig >= 0) {
		const ViewDigit *d = &an->v->dig[t->dig];
		buf_printf(b, "%s", d->var->name);
		if (d->nsplit > 1)
			buf_printf(b, " digit %d", d->index);
	} else {
		ast_print(b, an->v->gat[-1 - t->dig].atom->p);
	}
}

static bool factor_fail(An *an, const Term *lo, const Term *hi, bool overlap)
{
	Buf a = {0}, b = {0};
	term_name(an, lo, &a);
	term_name(an, hi, &b);
	if (overlap)
		fail(an, VIEW_ELEM, "coefficients %lld (%s, %lld values) and %lld (%s) overlap: overlapping windows, like unfold",
		     (long long)lo->c, buf_str(&a), (long long)lo->n, (long long)hi->c, buf_str(&b));
	else
		fail(an, VIEW_ELEM, "coefficients %lld (%s) and %lld (%s) are not nested: neither divides the other",
		     (long long)lo->c, buf_str(&a), (long long)hi->c, buf_str(&b));
	buf_free(&a);
	buf_free(&b);
	return false;
}

typedef struct {
	Term tm[VIEW_MAXDIG * 2];
	int nt;
	int64_t base;
} Terms;

/* The terms of the affine offset: digits (those always 0 take no axis) and
 * atoms, each atom shifted to start at 0. */
static bool collect_terms(An *an, const Sym *e, Terms *T)
{
	View *v = an->v;
	T->nt = 0;
	T->base = e->kind == S_CONST ? e->c : e->kind == S_ADD ? e->c : 0;
	int n = e->kind == S_ADD ? e->n : e->kind == S_CONST ? 0 : 1;
	for (int i = 0; i < n; i++) {
		const Sym *t = e->kind == S_ADD ? e->a[i] : e;
		int64_t k = e->kind == S_ADD ? e->k[i] : 1;
		if (t->kind == S_VAR) {
			int vi = (int)(t->c / (MAXCUT + 1)), j = (int)(t->c % (MAXCUT + 1));
			for (int d = 0; d < v->ndig; d++)
				if (v->dig[d].vi == vi && v->dig[d].index == j) {
					v->dig[d].coef = k;
					if (v->dig[d].n > 1) /* a digit that is always 0 takes no axis */
						T->tm[T->nt++] = (Term){k, v->dig[d].n, d};
				}
		} else {
			/* an atom a in [lo, hi]: a = lo + a', a' in [0, hi - lo] */
			int g = v->ngat++;
			int64_t shift, ext;
			v->gat[g].atom = t;
			if (!i64_mul(k, t->lo, &shift) || !i64_add(T->base, shift, &T->base) || !i64_sub(t->hi, t->lo, &ext) ||
			    ext == INT64_MAX)
				return fail(an, VIEW_ELEM, "a data-dependent index with no bounded range"), false;
			T->tm[T->nt++] = (Term){k, ext + 1, -1 - g};
		}
	}
	for (int i = 0; i < T->nt; i++)
		if (T->tm[i].c == INT64_MIN) /* |c| does not fit */
			return fail(an, VIEW_ELEM, "the offset overflows 64 bits"), false;
	return true;
}

static VAxis term_axis(const Term *t, int64_t stride, int64_t size, int64_t step)
{
	return (VAxis){.kind = t->dig >= 0 ? VA_ITER : VA_GATHER, .stride = stride, .size = size, .len = t->n,
	               .step = step, .ref = t->dig >= 0 ? t->dig : -1 - t->dig};
}

/* Writes the base in the mixed radix of the axes (inner to outer): static
 * indices, and where each term's positions start; each term must stay in
 * its axis. Then the axes go to the view, outer to inner. */
static bool place_axes(An *an, VAxis *ax, int na, int64_t base)
{
	View *v = an->v;
	if (base < 0)
		return fail(an, VIEW_ELEM, "the first element is at %lld, before the storage", (long long)base);
	int64_t r = base;
	for (int i = 0; i < na; i++) {
		VAxis *a = &ax[i];
		bool top = i == na - 1;
		a->start = top ? r : r % a->size;
		r = top ? 0 : r / a->size;
		if (a->kind == VA_INDEX)
			continue;
		int64_t span; /* step·(len - 1): where the last position lies from the first */
		if (!i64_mul(a->step, a->len - 1, &span))
			return fail(an, VIEW_ELEM, "the offset overflows 64 bits"), false;
		int64_t lo = span < 0 ? a->start + span : a->start, hi = span < 0 ? a->start : a->start + span;
		if (lo < 0 || hi >= a->size)
			return fail(an, VIEW_ELEM, "the %sslice of %lld elements from %lld does not fit in an axis of %lld (stride %lld)",
			            a->step < 0 ? "reversed " : "", (long long)a->len, (long long)a->start, (long long)a->size,
			            (long long)a->stride);
	}
	v->naxes = na;
	for (int i = 0; i < na; i++)
		v->ax[i] = ax[na - 1 - i];
	for (int i = 0; i < na; i++) {
		if (v->ax[i].kind == VA_ITER)
			v->dig[v->ax[i].ref].axis = i;
		if (v->ax[i].kind == VA_GATHER)
			v->gat[v->ax[i].ref].axis = i;
	}
	return true;
}

/* The reshape whose strides are the coefficients themselves. */
static bool factor(An *an, Terms *T)
{
	Term *tm = T->tm;
	int nt = T->nt;
	qsort(tm, (size_t)nt, sizeof *tm, by_abs_coef);
	for (int i = 0; i + 1 < nt; i++) {
		int64_t a = llabs(tm[i].c), b = llabs(tm[i + 1].c), span;
		if (tm[i].n > 1 && (!i64_mul(a, tm[i].n, &span) || span > b || a == b))
			return factor_fail(an, &tm[i], &tm[i + 1], true);
		if (b % a)
			return factor_fail(an, &tm[i], &tm[i + 1], false);
	}
	/* storage axes, inner to outer */
	VAxis ax[VIEW_MAXAX];
	int na = 0;
	int64_t inner = nt ? llabs(tm[0].c) : 1;
	if (inner > 1)
		ax[na++] = (VAxis){.kind = VA_INDEX, .stride = 1, .size = inner};
	for (int i = 0; i < nt; i++) {
		int64_t s = llabs(tm[i].c);
		int64_t size = i + 1 < nt ? llabs(tm[i + 1].c) / s : i64_ceil_div(an->storage, s);
		ax[na++] = term_axis(&tm[i], s, size < 1 ? 1 : size, tm[i].c < 0 ? -1 : 1);
	}
	if (!nt)
		ax[na++] = (VAxis){.kind = VA_INDEX, .stride = 1, .size = an->storage > 0 ? an->storage : 1};
	return place_axes(an, ax, na, T->base);
}

/* The reshape whose strides are the tensor's declared strides (nested, no
 * overlap): each term stays inside one declared dim, whose axis it walks
 * with any step, x[:, 2::5] on (6, 17): a strided slice of that dim, where
 * the reshape by the coefficients (5 and 17) does not exist. */
static bool factor_declared(An *an, Terms *T, const Tensor *t, const Layout *lay)
{
	int64_t st[MAXRANK];
	int nd = 0;
	for (int d = 0; d < t->rank; d++)
		if (lay->shape[d] > 1 && lay->strides[d] != 0 && lay->strides[d] != INT64_MIN)
			st[nd++] = llabs(lay->strides[d]);
	for (int i = 1; i < nd; i++) /* ascending */
		for (int j = i; j > 0 && st[j] < st[j - 1]; j--) {
			int64_t x = st[j];
			st[j] = st[j - 1];
			st[j - 1] = x;
		}
	for (int i = 0; i + 1 < nd; i++)
		if (st[i + 1] % st[i] || st[i + 1] == st[i])
			return false;
	int owner[MAXRANK]; /* the term on each declared axis, -1: none */
	for (int i = 0; i < nd; i++)
		owner[i] = -1;
	for (int k = 0; k < T->nt; k++) {
		int at = -1;
		for (int i = 0; i < nd; i++)
			if (llabs(T->tm[k].c) % st[i] == 0)
				at = i;
		if (at < 0 || owner[at] >= 0 || (T->tm[k].dig < 0 && llabs(T->tm[k].c) != st[at]))
			return false;
		owner[at] = k;
	}
	VAxis ax[VIEW_MAXAX];
	int na = 0;
	int64_t inner = nd ? st[0] : 1;
	if (inner > 1)
		ax[na++] = (VAxis){.kind = VA_INDEX, .stride = 1, .size = inner};
	for (int i = 0; i < nd; i++) {
		int64_t size = i + 1 < nd ? st[i + 1] / st[i] : i64_ceil_div(an->storage, st[i]);
		if (owner[i] < 0)
			ax[na++] = (VAxis){.kind = VA_INDEX, .stride = st[i], .size = size};
		else
			ax[na++] = term_axis(&T->tm[owner[i]], st[i], size, T->tm[owner[i]].c / st[i]);
	}
	if (!na)
		ax[na++] = (VAxis){.kind = VA_INDEX, .stride = 1, .size = an->storage > 0 ? an->storage : 1};
	return place_axes(an, ax, na, T->base);
}

/* The reshape by the coefficients, else by the declared strides (the
 * first reason stays when neither exists). */
static bool factor_any(An *an, const Sym *e, const Tensor *t, const Layout *lay)
{
	Terms T;
	if (!collect_terms(an, e, &T))
		return false;
	Terms keep = T;
	if (factor(an, &T))
		return true;
	View *v = an->v;
	char reason[sizeof v->reason];
	memcpy(reason, v->reason, sizeof reason);
	int cls = v->cls;
	v->cls = VIEW_VIEW;
	if (t && lay && factor_declared(an, &keep, t, lay))
		return true;
	memcpy(v->reason, reason, sizeof reason);
	v->cls = cls;
	return false;
}

/* Masked variables: the view was found over the range a guard leaves them
 * (var = lo + digit); put back over the variable's whole extent, their
 * axes take positions outside that range too, the padded region. */
static bool unmask(An *an, const Inst *in)
{
	View *v = an->v;
	for (int i = 0; i < an->nvars; i++) {
		const Cuts *c = &an->cuts[i];
		const Var *var = c->var->p;
		int64_t full = var_extent(in, var);
		if (c->lo == 0 && c->n == full)
			continue;
		if (c->ncut)
			return fail(an, VIEW_ELEM, "'%s' is masked to [%lld, %lld] and cut into digits", var->name,
			            (long long)c->lo, (long long)(c->lo + c->n - 1));
		for (int d = 0; d < v->ndig; d++) {
			ViewDigit *g = &v->dig[d];
			if (g->vi != i)
				continue;
			g->masked = true;
			g->mlo = c->lo;
			g->mhi = c->lo + c->n - 1;
			g->n = full;
			if (g->axis >= 0) {
				VAxis *a = &v->ax[g->axis];
				a->start -= a->step * c->lo;
				a->len = full;
			}
		}
		v->flags |= VF_MASKED;
	}
	return true;
}

/* ---- classification ---- */

/* Does storage axis a span more than one declared dim of t? */
static bool spans_dims(const Tensor *t, const Layout *lay, const VAxis *a)
{
	if (!t || !lay)
		return false;
	int count = 0;
	int64_t hi;
	if (!i64_mul(a->stride, a->len, &hi))
		hi = INT64_MAX;
	for (int d = 0; d < t->rank; d++) {
		int64_t s = llabs(lay->strides[d]);
		if (lay->shape[d] > 1 && s >= a->stride && s < hi)
			count++;
	}
	return count > 1;
}

static void classify(View *v, const Tensor *t, const Layout *lay)
{
	unsigned f = 0;
	int prev = -1;
	for (int d = 0; d < v->ndig; d++) {
		const ViewDigit *g = &v->dig[d];
		if (g->n <= 1)
			continue;
		if (g->coef == 0) {
			f |= VF_BROADCAST;
			continue;
		}
		if (g->nsplit > 1)
			f |= VF_COLLAPSED;
		if (g->axis < prev)
			f |= VF_PERMUTED;
		prev = g->axis;
	}
	bool iter = false;
	for (int i = 0; i < v->naxes; i++)
		iter |= v->ax[i].kind != VA_INDEX;
	for (int i = 0; i < v->naxes; i++) {
		const VAxis *a = &v->ax[i];
		if (a->kind == VA_INDEX && a->size > 1)
			f |= iter ? VF_STRIDED : VF_SLICED;
		if (a->kind == VA_ITER) {
			if (a->step < 0)
				f |= VF_REVERSED;
			if (a->step < -1 || a->step > 1)
				f |= VF_STRIDED | VF_SLICED;
			if (a->start != (a->step < 0 ? a->len - 1 : 0) || a->len != a->size)
				f |= VF_SLICED;
			if (spans_dims(t, lay, a))
				f |= VF_COLLAPSED;
		}
	}
	if (v->ngat)
		f |= VF_ROWGATHER;
	v->flags = f;
}

/* Index loads inside a gathered atom must be plain views of grid-level data. */
static bool check_gathers(An *an, IndexOff index_off, const void *env)
{
	for (int g = 0; g < an->v->ngat; g++) {
		const Node *n = an->v->gat[g].atom->p;
		Buf b = {0};
		ast_print(&b, n);
		int64_t m = 0;
		const Node *inner = an->in ? wrap_of(an->in, n, &m) : NULL;
		if (!inner)
			inner = n, m = 0;
		bool ok = inner->kind == N_LOAD || inner->kind == N_FLAT;
		const Sym *ioff = ok && index_off ? index_off(env, inner) : NULL;
		if (ok && (!ioff || sym_has_atom(ioff)))
			ok = false;
		if (!ok) {
			fail(an, VIEW_ELEM, "the index %s is not a load of an index tensor at grid-level positions", buf_str(&b));
			buf_free(&b);
			return false;
		}
		an->v->gat[g].index_load = inner;
		an->v->gat[g].wrap = m;
		buf_free(&b);
	}
	return true;
}

/* A data-dependent term with no useful range (a flat gather, x.flat[64*i[s]
 * + d]) takes the range that keeps the access inside the storage: the
 * run-time check enforces it. Only done when the rest of the offset has no
 * other data-dependent term. */
static Sym *bound_atoms(An *an, Sym *e)
{
	for (int i = 0; e->kind == S_ADD && i < e->n; i++) {
		Sym *a = e->a[i];
		int64_t c = e->k[i], lo, hi;
		if (a->kind != S_ATOM || !sym_term_range(e, i, an->storage - 1, &lo, &hi) || (lo <= a->lo && hi >= a->hi))
			continue;
		lo = lo > a->lo ? lo : a->lo;
		hi = hi < a->hi ? hi : a->hi;
		if (hi < lo)
			hi = lo; /* no value fits: the run-time check will fail first */
		Sym *na = sym_atom(an->t, (int)a->c + (1 << 30), lo, hi, a->p);
		return sym_add(an->t, sym_sub(an->t, e, sym_scale(an->t, a, c)), sym_scale(an->t, na, c));
	}
	return e;
}

static bool node_has_load(const Node *n)
{
	if (n->kind == N_LOAD || n->kind == N_FLAT)
		return true;
	for (int i = 0; i < n->nargs; i++)
		if (node_has_load(n->args[i]))
			return true;
	return false;
}

static bool node_uses(const Node *n, const Var *v)
{
	if (n->kind == N_IVAR && n->var == v)
		return true;
	for (int i = 0; i < n->nargs; i++)
		if (node_uses(n->args[i], v))
			return true;
	return false;
}

/* Digits of the variables the offset does not mention (not even through a
 * gathered index): broadcast. */
static void add_scope(An *an, const Inst *in, const Var *const *scope, int nscope)
{
	View *v = an->v;
	for (int i = 0; i < nscope; i++) {
		bool seen = false;
		for (int d = 0; d < v->ndig; d++)
			seen |= v->dig[d].var == scope[i];
		for (int a = 0; a < an->natoms; a++)
			seen |= node_uses(an->atoms[a]->p, scope[i]);
		if (!seen && v->ndig < VIEW_MAXDIG)
			v->dig[v->ndig++] = (ViewDigit){.var = scope[i], .vi = -1, .nsplit = 1, .place = 1, .n = var_extent(in, scope[i]),
			                                .axis = -1};
	}
	/* iteration order: by variable, most significant digit first (stable) */
	for (int i = 1; i < v->ndig; i++)
		for (int j = i; j > 0 && v->dig[j].var->id < v->dig[j - 1].var->id; j--) {
			ViewDigit tmp = v->dig[j];
			v->dig[j] = v->dig[j - 1];
			v->dig[j - 1] = tmp;
		}
}

/* An access that touches nothing: a variable ranges over zero values. */
static bool empty_view(View *v)
{
	bool empty = false;
	for (int d = 0; d < v->ndig; d++)
		empty |= v->dig[d].n == 0;
	if (!empty)
		return false;
	v->cls = VIEW_VIEW;
	v->flags = VF_EMPTY;
	v->naxes = v->ngat = 0;
	for (int d = 0; d < v->ndig && v->naxes < VIEW_MAXAX; d++) {
		v->dig[d].axis = v->naxes;
		v->ax[v->naxes++] = (VAxis){.kind = VA_ITER, .size = v->dig[d].n, .len = v->dig[d].n, .step = 1, .ref = d};
	}
	return true;
}

void view_analyse(View *v, Arena *ar, const Sym *off, int64_t storage, const Tensor *t, const Layout *lay,
                  const Inst *in, const Var *const *scope, int nscope, IndexOff index_off, const void *env)
{
	memset(v, 0, sizeof *v);
	An an = {.v = v, .t = symtab_new(ar, true), .storage = storage, .in = in};
	collect_leaves(&an, off);
	if (an.nvars >= VIEW_MAXDIG || an.natoms >= VIEW_MAXDIG) {
		fail(&an, VIEW_ELEM, "too many index variables");
		return;
	}
	for (int i = 0; i < an.natoms; i++)
		if (!node_has_load(an.atoms[i]->p)) {
			Buf b = {0};
			ast_print(&b, an.atoms[i]->p);
			fail(&an, VIEW_ELEM, "%s reads no data but is not affine in the index variables (its values lie in [%lld, %lld])",
			     buf_str(&b), (long long)an.atoms[i]->lo, (long long)an.atoms[i]->hi);
			buf_free(&b);
			return;
		}
	/* iteration order: by variable number, which is declaration order */
	for (int i = 1; i < an.nvars; i++)
		for (int j = i; j > 0 && an.cuts[j].var->c < an.cuts[j - 1].var->c; j--) {
			Cuts tmp = an.cuts[j];
			an.cuts[j] = an.cuts[j - 1];
			an.cuts[j - 1] = tmp;
		}
	v->cls = VIEW_VIEW;
	Sym *e = to_digits(&an, off);
	if (!e)
		return;
	int ndig = 0;
	for (int i = 0; i < an.nvars; i++)
		ndig += digit_count(&an.cuts[i]);
	if (ndig + nscope > VIEW_MAXDIG) {
		fail(&an, VIEW_ELEM, "too many digits (%d)", ndig);
		return;
	}
	for (int i = 0; i < an.nvars; i++)
		for (int j = digit_count(&an.cuts[i]) - 1; j >= 0; j--)
			v->dig[v->ndig++] = (ViewDigit){.var = an.cuts[i].var->p, .vi = i, .index = j,
			                                .nsplit = digit_count(&an.cuts[i]), .place = digit_place(&an.cuts[i], j),
			                                .n = digit_extent(&an.cuts[i], j), .axis = -1};
	add_scope(&an, in, scope, nscope);
	if (empty_view(v))
		return;
	if (!is_affine(e = bound_atoms(&an, e)) || !factor_any(&an, e, t, lay))
		return;
	if (v->ngat && !check_gathers(&an, index_off, env))
		return;
	v->cls = v->ngat ? VIEW_ROWGATHER : VIEW_VIEW;
	classify(v, t, lay);
	unmask(&an, in);
}

/* Address of one element through the view: digits of each variable go to
 * their axes; static indices and gathered positions add their strides. */
int64_t view_address(const View *v, const int64_t *var_value, const int64_t *atom_value)
{
	int64_t addr = 0;
	for (int i = 0; i < v->naxes; i++)
		if (v->ax[i].kind == VA_INDEX)
			addr += v->ax[i].start * v->ax[i].stride;
	for (int d = 0; d < v->ndig; d++) {
		const ViewDigit *g = &v->dig[d];
		if (g->axis < 0)
			continue;
		int64_t x = var_value[g->var->id] / g->place;
		if (g->index < g->nsplit - 1)
			x %= g->n;
		const VAxis *a = &v->ax[g->axis];
		addr += (a->start + a->step * x) * a->stride;
	}
	for (int g = 0; g < v->ngat; g++) {
		const VAxis *a = &v->ax[v->gat[g].axis];
		addr += (a->start + a->step * (atom_value[g] - v->gat[g].atom->lo)) * a->stride;
	}
	return addr;
}

/* A gathered index as the index map reads it: idx[s], or wrap(idx[s], m)
 * however the source spells the wrap. */
static void gather_index_print(Buf *b, const ViewGather *g)
{
	const Node *n = g->atom->p;
	if (!g->wrap || !g->index_load || (n->kind == N_OP && n->op == OP_WRAP)) {
		ast_print(b, g->atom->p);
		return;
	}
	buf_printf(b, "wrap(");
	ast_print(b, g->index_load);
	buf_printf(b, ", %lld)", (long long)g->wrap);
}

/* count positions from first by step, in NumPy's slice notation */
static void slice_print(Buf *b, int64_t first, int64_t count, int64_t step, int64_t size)
{
	int64_t last = first + step * (count - 1);
	if (step == 1 && first == 0 && count == size)
		buf_printf(b, ":");
	else if (step > 0)
		buf_printf(b, step == 1 ? "%lld:%lld" : "%lld:%lld:%lld", (long long)first, (long long)(last + 1), (long long)step);
	else if (last - 1 < 0)
		buf_printf(b, "%lld::%lld", (long long)first, (long long)step);
	else
		buf_printf(b, "%lld:%lld:%lld", (long long)first, (long long)(last - 1), (long long)step);
}

/* The axes the printer of the view line does not know: gathered positions
 * through a wrap, strided slices of declared dims (any step) and masked
 * axes (the slice of the positions read, then how many values of the
 * variable before and after it are padding). False for the others. */
static bool view_axis_print(Buf *b, const View *v, const VAxis *a)
{
	if (a->kind == VA_GATHER) {
		const ViewGather *g = &v->gat[a->ref];
		int64_t c = a->start - a->step * g->atom->lo;
		if (c)
			buf_printf(b, "%lld %c ", (long long)c, a->step > 0 ? '+' : '-');
		else if (a->step < 0)
			buf_putc(b, '-');
		gather_index_print(b, g);
		return true;
	}
	if (a->kind != VA_ITER)
		return false;
	const ViewDigit *d = &v->dig[a->ref];
	if (!d->masked && a->step >= -1 && a->step <= 1)
		return false;
	if (!d->masked) {
		slice_print(b, a->start, a->len, a->step, a->size);
		return true;
	}
	slice_print(b, a->start + a->step * d->mlo, d->mhi - d->mlo + 1, a->step, a->size);
	buf_printf(b, " pad (%lld, %lld)", (long long)d->mlo, (long long)(d->n - 1 - d->mhi));
	return true;
}

/* ---- analyse: one view per access ---- */

static const Sym *index_offset(const void *env, const Node *load)
{
	const Planned *ps = env;
	for (int j = 0; j < ps->acc.n; j++) {
		const Access *ac = ps->acc.v[j];
		if (ac->load == load)
			return ac->off;
	}
	return NULL;
}

/* A rolled access: a view per piece, both masked to their ranges of the
 * rolled variable; false (the access unchanged) unless both are views. */
static bool roll_views(Inst *in, const Planned *ps, Access *ac, int64_t storage, const Layout *tl)
{
	View *v[2];
	for (int p = 0; p < 2; p++) {
		v[p] = arena_alloc(&in->arena, sizeof *v[p]);
		view_analyse(v[p], &in->arena, ac->roff[p], storage, ac->t, tl, in, ac->scope, ac->nscope, index_offset, ps);
		if (v[p]->cls == VIEW_ELEM || v[p]->ngat || !(v[p]->flags & VF_MASKED))
			return false;
	}
	v[0]->flags |= VF_ROLLED;
	v[1]->flags |= VF_ROLLED;
	ac->view = *v[0];
	ac->piece = v[1];
	return true;
}

void analyse_inst(Inst *in)
{
	for (int p = 0; p < in->nplanned; p++) {
		Planned *ps = &in->planned[p];
		for (int j = 0; j < ps->acc.n; j++) {
			Access *ac = ps->acc.v[j];
			const Layout *lay = tensor_layout(in, ac->t);
			int64_t storage = lay->storage > 0 ? lay->storage : 1;
			if (ac->never) { /* its guard holds nowhere: it touches nothing */
				memset(&ac->view, 0, sizeof ac->view);
				ac->view.cls = VIEW_VIEW;
				ac->view.flags = VF_EMPTY;
				continue;
			}
			const Layout *tl = ac->t->role == ROLE_LET ? NULL : lay;
			view_analyse(&ac->view, &in->arena, ac->off, storage, ac->t, tl, in, ac->scope, ac->nscope, index_offset,
			             ps);
			ac->piece = NULL;
			if (j == 0 && ps->stmt->at) { /* a scatter writes where its data says: never a view */
				ac->view.cls = VIEW_ELEM;
				ac->view.flags &= ~(unsigned)VF_ROWGATHER;
				ac->view.ngat = 0;
				snprintf(ac->view.reason, sizeof ac->view.reason, "a scatter: the element written is %s",
				         sym_has_atom(ac->off) ? "data-dependent, updated in place" : "named by its subscripts, updated in place");
				continue;
			}
			if (ac->view.cls == VIEW_ELEM && ac->roff[0] && roll_views(in, ps, ac, storage, tl))
				continue;
			if (ac->view.cls != VIEW_ELEM || !ac->moff)
				continue;
			/* no view over the whole domain: over the box its guard leaves,
			 * with the rest masked */
			View *mv = arena_alloc(&in->arena, sizeof *mv);
			view_analyse(mv, &in->arena, ac->moff, storage, ac->t, tl, in, ac->scope, ac->nscope, index_offset, ps);
			ac->view = *mv;
			if (mv->cls != VIEW_ELEM) {
				ac->masked = true;
				ac->off = ac->moff;
			}
		}
	}
}

/* ---- views ---- */

static const char *class_names[] = {"contiguous", "broadcast", "strided", "sliced", "reversed",
                                    "permuted", "collapsed", "row gather", "empty", "masked", "rolled"};

void view_class(Buf *b, const View *v)
{
	if (v->cls == VIEW_ELEM) {
		buf_printf(b, "element gather");
		return;
	}
	bool any = false;
	for (int i = 1; i < 11; i++)
		if (v->flags & (1u << i)) {
			buf_printf(b, "%s%s", any ? ", " : "", class_names[i]);
			any = true;
		}
	if (!any)
		buf_printf(b, "contiguous");
}

/* The position a gathered axis takes: start + step·(atom - lo). */
void gather_position(Buf *b, const View *v, const VAxis *a)
{
	int64_t c = a->start - a->step * v->gat[a->ref].atom->lo;
	if (c)
		buf_printf(b, "%lld %c ", (long long)c, a->step > 0 ? '+' : '-');
	else if (a->step < 0)
		buf_putc(b, '-');
	gather_index_print(b, &v->gat[a->ref]);
}

void view_print(Buf *b, const View *v)
{
	if (v->cls == VIEW_ELEM) {
		buf_printf(b, "none: %s", v->reason);
		return;
	}
	if (v->flags & VF_EMPTY) {
		buf_printf(b, "reshape (");
		for (int i = 0; i < v->naxes; i++)
			buf_printf(b, "%s%lld", i ? ", " : "", (long long)v->ax[i].size);
		buf_printf(b, v->naxes == 1 ? ",): no elements" : "): no elements");
		return;
	}
	buf_printf(b, "reshape (");
	for (int i = 0; i < v->naxes; i++)
		buf_printf(b, "%s%lld", i ? ", " : "", (long long)v->ax[i].size);
	buf_printf(b, v->naxes == 1 ? ",)" : ")");
	bool trivial = true;
	for (int i = 0; i < v->naxes; i++) {
		const VAxis *a = &v->ax[i];
		if (a->kind != VA_ITER || a->step < 0 || a->start || a->len != a->size)
			trivial = false;
	}
	if (!trivial) {
		buf_printf(b, " · index [");
		for (int i = 0; i < v->naxes; i++) {
			const VAxis *a = &v->ax[i];
			if (i)
				buf_printf(b, ", ");
			if (view_axis_print(b, v, a)) {} else if (a->kind == VA_INDEX)
				buf_printf(b, "%lld", (long long)a->start);
			else if (a->kind == VA_GATHER)
				gather_position(b, v, a);
			else if (a->step > 0 && a->start == 0 && a->len == a->size)
				buf_printf(b, ":");
			else if (a->step > 0)
				buf_printf(b, "%lld:%lld", (long long)a->start, (long long)(a->start + a->len));
			else if (a->start - a->len < 0)
				buf_printf(b, "%lld::-1", (long long)a->start);
			else
				buf_printf(b, "%lld:%lld:-1", (long long)a->start, (long long)(a->start - a->len));
		}
		buf_putc(b, ']');
	}
	/* iteration order of the remaining axes */
	int order[VIEW_MAXAX], no = 0;
	bool perm = false;
	for (int d = 0; d < v->ndig; d++)
		if (v->dig[d].axis >= 0)
			order[no++] = v->dig[d].axis;
	for (int i = 1; i < no; i++)
		perm |= order[i] < order[i - 1];
	if (perm) {
		/* positions among the iteration axes, in storage order */
		buf_printf(b, " · permute (");
		for (int i = 0; i < no; i++) {
			int rank = 0;
			for (int j = 0; j < no; j++)
				rank += order[j] < order[i];
			buf_printf(b, "%s%d", i ? ", " : "", rank);
		}
		buf_putc(b, ')');
	}
	bool bc = false;
	for (int d = 0; d < v->ndig; d++)
		if (v->dig[d].coef == 0 && v->dig[d].n > 1) {
			buf_printf(b, bc ? ", %s" : " · broadcast %s", v->dig[d].var->name);
			if (v->dig[d].nsplit > 1)
				buf_printf(b, " digit %d", v->dig[d].index);
			bc = true;
		}
	for (int d = 0; d < v->ndig; d++)
		if (v->dig[d].nsplit > 1 && v->dig[d].index == v->dig[d].nsplit - 1) {
			/* most significant digit first, as the reshape writes it */
			buf_printf(b, " · split %s = (", v->dig[d].var->name);
			for (int e = d; e < v->ndig && v->dig[e].var == v->dig[d].var; e++)
				buf_printf(b, "%s%lld", e > d ? ", " : "", (long long)v->dig[e].n);
			buf_printf(b, ") digits %d..0", v->dig[d].nsplit - 1);
		}
}
