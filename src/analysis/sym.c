/* Index algebra: hash-consed integer expressions over index variables and
 * data-dependent atoms, each node annotated with a value range.
 *
 * Canonical form: a sum is ADD{c, Σ k_i·t_i} with terms t_i sorted by id,
 * no zero coefficients, no nested sums and no constant terms; a product is
 * MUL of non-constant, non-sum factors sorted by id; DIV and MOD are floor
 * division and floor modulo (Python semantics). Nodes are built only by the
 * smart constructors below, which intern them: equal expressions are the same
 * pointer. With t->rules set, the constructors also apply the range-aware
 * rewrites; each is written above its code. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

SymTab *symtab_new(Arena *a, bool rules)
{
	SymTab *t = arena_alloc(a, sizeof *t);
	t->ar = a;
	t->cap = 256;
	t->tab = arena_alloc(a, t->cap * sizeof *t->tab);
	t->rules = rules;
	return t;
}

/* ---- interning ---- */

static uint64_t node_hash(int kind, int64_t c, int n, Sym **a, const int64_t *k)
{
	uint64_t h = hash_bytes(&kind, sizeof kind, 0);
	h = hash_bytes(&c, sizeof c, h);
	for (int i = 0; i < n; i++) {
		h = hash_bytes(&a[i]->id, sizeof a[i]->id, h);
		if (k)
			h = hash_bytes(&k[i], sizeof k[i], h);
	}
	return h;
}

static bool node_eq(const Sym *s, int kind, int64_t c, int n, Sym **a, const int64_t *k)
{
	if (s->kind != kind || s->c != c || s->n != n)
		return false;
	for (int i = 0; i < n; i++)
		if (s->a[i] != a[i] || (k && s->k[i] != k[i]))
			return false;
	return true;
}

static void grow(SymTab *t)
{
	size_t cap = t->cap * 2;
	Sym **tab = arena_alloc(t->ar, cap * sizeof *tab);
	for (size_t i = 0; i < t->cap; i++) {
		Sym *s = t->tab[i];
		if (!s)
			continue;
		size_t j = s->hash & (cap - 1);
		while (tab[j])
			j = (j + 1) & (cap - 1);
		tab[j] = s;
	}
	t->tab = tab;
	t->cap = cap;
}

/* Saturating interval arithmetic for the ranges. */
static bool range_add(int64_t alo, int64_t ahi, int64_t blo, int64_t bhi, int64_t *lo, int64_t *hi)
{
	bool a = __builtin_add_overflow(alo, blo, lo);
	bool b = __builtin_add_overflow(ahi, bhi, hi);
	return a || b;
}

static bool range_mul(int64_t alo, int64_t ahi, int64_t blo, int64_t bhi, int64_t *lo, int64_t *hi)
{
	int64_t p[4];
	bool ovf = false;
	ovf |= __builtin_mul_overflow(alo, blo, &p[0]);
	ovf |= __builtin_mul_overflow(alo, bhi, &p[1]);
	ovf |= __builtin_mul_overflow(ahi, blo, &p[2]);
	ovf |= __builtin_mul_overflow(ahi, bhi, &p[3]);
	*lo = *hi = p[0];
	for (int i = 1; i < 4; i++) {
		*lo = p[i] < *lo ? p[i] : *lo;
		*hi = p[i] > *hi ? p[i] : *hi;
	}
	return ovf;
}

static int64_t abs_max(const Sym *s)
{
	int64_t a = s->lo == INT64_MIN ? INT64_MAX : s->lo < 0 ? -s->lo : s->lo;
	return a > s->hi ? a : s->hi;
}

static void div_range(Sym *s)
{
	Sym *a = s->a[0], *b = s->a[1];
	/* (an empty divisor range, a variable of extent 0, takes the general rule) */
	if (b->lo <= b->hi && (b->lo > 0 || b->hi < 0)) {
		int64_t c[4] = {floordiv64(a->lo, b->lo), floordiv64(a->lo, b->hi), floordiv64(a->hi, b->lo),
		                floordiv64(a->hi, b->hi)};
		s->lo = s->hi = c[0];
		for (int i = 1; i < 4; i++) {
			s->lo = c[i] < s->lo ? c[i] : s->lo;
			s->hi = c[i] > s->hi ? c[i] : s->hi;
		}
		if ((a->lo == INT64_MIN || a->hi == INT64_MIN) && b->lo <= -1 && b->hi >= -1)
			s->ovf = true;
	} else {
		s->hi = abs_max(a);
		s->lo = -s->hi;
	}
}

static void mod_range(Sym *s)
{
	Sym *a = s->a[0], *b = s->a[1];
	if (b->lo == b->hi && b->lo > 0 && floordiv64(a->lo, b->lo) == floordiv64(a->hi, b->lo)) {
		int64_t q = floordiv64(a->lo, b->lo) * b->lo;
		s->lo = a->lo - q;
		s->hi = a->hi - q;
	} else if (b->lo > 0) {
		s->lo = 0;
		s->hi = b->hi - 1;
		if (a->lo >= 0 && a->hi < s->hi)
			s->hi = a->hi;
	} else if (b->hi < 0) {
		s->lo = b->lo + 1;
		s->hi = 0;
	} else { /* the divisor may be zero: there the value is an error */
		s->hi = abs_max(b) > 0 ? abs_max(b) - 1 : 0;
		s->lo = -s->hi;
	}
}

static void compute_range(Sym *s)
{
	for (int i = 0; i < s->n; i++)
		s->ovf |= s->a[i]->ovf;
	switch (s->kind) {
	case S_CONST:
		s->lo = s->hi = s->c;
		break;
	case S_ADD:
		s->lo = s->hi = s->c;
		for (int i = 0; i < s->n; i++) {
			int64_t lo, hi;
			s->ovf |= range_mul(s->a[i]->lo, s->a[i]->hi, s->k[i], s->k[i], &lo, &hi);
			s->ovf |= range_add(s->lo, s->hi, lo, hi, &s->lo, &s->hi);
		}
		break;
	case S_MUL:
		s->lo = s->hi = 1;
		for (int i = 0; i < s->n; i++)
			s->ovf |= range_mul(s->lo, s->hi, s->a[i]->lo, s->a[i]->hi, &s->lo, &s->hi);
		break;
	case S_DIV:
		div_range(s);
		break;
	case S_MOD:
		mod_range(s);
		break;
	}
	if (s->ovf) {
		s->lo = INT64_MIN;
		s->hi = INT64_MAX;
	}
}

static Sym *intern(SymTab *t, int kind, int64_t c, int n, Sym **a, const int64_t *k, int64_t lo, int64_t hi, void *p)
{
	uint64_t h = node_hash(kind, c, n, a, k);
	size_t i = h & (t->cap - 1);
	for (; t->tab[i]; i = (i + 1) & (t->cap - 1))
		if (t->tab[i]->hash == h && node_eq(t->tab[i], kind, c, n, a, k))
			return t->tab[i];
	Sym *s = arena_alloc(t->ar, sizeof *s);
	s->kind = kind;
	s->c = c;
	s->n = n;
	s->hash = h;
	s->p = p;
	s->id = t->nextid++;
	if (n) {
		s->a = arena_dup(t->ar, a, (size_t)n * sizeof *a);
		if (k)
			s->k = arena_dup(t->ar, k, (size_t)n * sizeof *k);
	}
	s->lo = lo;
	s->hi = hi;
	if (kind != S_VAR && kind != S_ATOM)
		compute_range(s);
	t->tab[i] = s;
	if (++t->n * 2 > t->cap)
		grow(t);
	return s;
}

Sym *sym_const(SymTab *t, int64_t c) { return intern(t, S_CONST, c, 0, NULL, NULL, c, c, NULL); }
Sym *sym_var(SymTab *t, int num, int64_t lo, int64_t hi, void *p) { return intern(t, S_VAR, num, 0, NULL, NULL, lo, hi, p); }
Sym *sym_atom(SymTab *t, int num, int64_t lo, int64_t hi, void *p) { return intern(t, S_ATOM, num, 0, NULL, NULL, lo, hi, p); }

/* ---- sums ---- */

/* A sum under construction: constant plus terms with coefficients. */
typedef struct {
	int64_t c;
	int n, cap;
	Sym **t;
	int64_t *k;
	bool ovf;
} Acc;

static void acc_term(Acc *s, Sym *term, int64_t k)
{
	for (int i = 0; i < s->n; i++)
		if (s->t[i] == term) {
			s->ovf |= __builtin_add_overflow(s->k[i], k, &s->k[i]);
			return;
		}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->t = realloc(s->t, (size_t)s->cap * sizeof *s->t);
		s->k = realloc(s->k, (size_t)s->cap * sizeof *s->k);
		if (!s->t || !s->k)
			die("out of memory");
	}
	s->t[s->n] = term;
	s->k[s->n++] = k;
}

/* Adds k·x to the accumulator, flattening sums and constants. */
static void acc_add(Acc *s, Sym *x, int64_t k)
{
	int64_t v;
	if (x->kind == S_CONST || x->kind == S_ADD) {
		s->ovf |= __builtin_mul_overflow(x->c, k, &v);
		s->ovf |= __builtin_add_overflow(s->c, v, &s->c);
	}
	if (x->kind == S_CONST)
		return;
	if (x->kind == S_ADD) {
		for (int i = 0; i < x->n; i++) {
			s->ovf |= __builtin_mul_overflow(x->k[i], k, &v);
			acc_term(s, x->a[i], v);
		}
	} else {
		acc_term(s, x, k);
	}
}

static void acc_drop(Acc *s, int i)
{
	s->t[i] = s->t[--s->n];
	s->k[i] = s->k[s->n];
}

static int find_term(Acc *s, Sym *x)
{
	for (int i = 0; i < s->n; i++)
		if (s->t[i] == x && s->k[i] != 0)
			return i;
	return -1;
}

/* The term (X // b) % c of the sum with b·c = d, b > 1: the lower digit
 * of X // b under X // d (which is (X // b) // c); -1 for none. */
static int find_digit(const Acc *s, const Sym *x, int64_t d, int64_t *c)
{
	for (int j = 0; j < s->n; j++) {
		const Sym *g = s->t[j];
		if (s->k[j] == 0 || g->kind != S_MOD || g->a[1]->kind != S_CONST || g->a[0]->kind != S_DIV ||
		    g->a[0]->a[0] != x || g->a[0]->a[1]->kind != S_CONST)
			continue;
		int64_t b = g->a[0]->a[1]->c, bc;
		*c = g->a[1]->c;
		if (b > 1 && *c > 0 && !__builtin_mul_overflow(b, *c, &bc) && bc == d)
			return j;
	}
	return -1;
}

/* d·k·(X // d) + k·(X % d) -> k·X
 * c·k·(X // d) + k·((X // b) % c) -> k·(X // b)   (d = b·c: the digits of X // b)
 * X·k - d·k·(X // d) -> k·(X % d)           (X a single term) */
static bool recombine(SymTab *t, Acc *s)
{
	for (int i = 0; i < s->n; i++) {
		Sym *f = s->t[i];
		if (f->kind != S_DIV || f->a[1]->kind != S_CONST || s->k[i] == 0)
			continue;
		int64_t d = f->a[1]->c, kf = s->k[i], c, p;
		Sym *x = f->a[0];
		int lo = find_digit(s, x, d, &c);
		if (lo >= 0 && kf % c == 0 && kf / c == s->k[lo]) {
			Sym *q = sym_floordiv(t, x, sym_const(t, d / c));
			int64_t k = s->k[lo];
			s->k[i] = s->k[lo] = 0;
			acc_add(s, q, k);
			return true;
		}
		if (kf % d)
			continue;
		int m = find_term(s, sym_mod(t, x, f->a[1]));
		if (m >= 0 && !__builtin_mul_overflow(s->k[m], d, &p) && p == kf) {
			int64_t k = s->k[m];
			s->k[i] = s->k[m] = 0;
			acc_add(s, x, k);
			return true;
		}
		int j = find_term(s, x);
		if (j >= 0 && !__builtin_mul_overflow(-s->k[j], d, &p) && p == kf) {
			int64_t k = s->k[j];
			s->k[i] = s->k[j] = 0;
			acc_add(s, sym_mod(t, x, f->a[1]), k);
			return true;
		}
	}
	return false;
}

static int by_id(const void *a, const void *b)
{
	const Sym *x = *(Sym *const *)a, *y = *(Sym *const *)b;
	return (x->id > y->id) - (x->id < y->id);
}

static Sym *overflowed(SymTab *t)
{
	t->overflow = true;
	return sym_const(t, 0);
}

static Sym *acc_finish(SymTab *t, Acc *s)
{
	for (int guard = 0; t->rules && guard < 16 && recombine(t, s); guard++)
		;
	for (int i = s->n - 1; i >= 0; i--)
		if (s->k[i] == 0)
			acc_drop(s, i);
	Sym *r;
	if (s->ovf) {
		r = overflowed(t);
	} else if (s->n == 0) {
		r = sym_const(t, s->c);
	} else if (s->n == 1 && s->c == 0 && s->k[0] == 1) {
		r = s->t[0];
	} else {
		/* sort terms (with their coefficients) by id */
		int order[64], n = s->n;
		Sym *ts[64];
		int64_t ks[64];
		if (n > 64) {
			free(s->t);
			free(s->k);
			return overflowed(t); /* absurdly long sums are refused */
		}
		for (int i = 0; i < n; i++)
			ts[i] = s->t[i];
		qsort(ts, (size_t)n, sizeof *ts, by_id);
		for (int i = 0; i < n; i++) {
			order[i] = find_term(s, ts[i]);
			ks[i] = s->k[order[i]];
		}
		r = intern(t, S_ADD, s->c, n, ts, ks, 0, 0, NULL);
	}
	free(s->t);
	free(s->k);
	return r;
}

Sym *sym_add(SymTab *t, Sym *a, Sym *b)
{
	Acc s = {0};
	acc_add(&s, a, 1);
	acc_add(&s, b, 1);
	return acc_finish(t, &s);
}

Sym *sym_scale(SymTab *t, Sym *a, int64_t k)
{
	if (k == 1)
		return a;
	Acc s = {0};
	acc_add(&s, a, k);
	return acc_finish(t, &s);
}

Sym *sym_sub(SymTab *t, Sym *a, Sym *b)
{
	Acc s = {0};
	acc_add(&s, a, 1);
	if (b->kind == S_CONST && b->c == INT64_MIN)
		s.ovf = true;
	acc_add(&s, b, -1);
	return acc_finish(t, &s);
}

/* ---- products ---- */

/* A product of two non-constant, non-sum terms: merged sorted factors. */
static Sym *mul_terms(SymTab *t, Sym *a, Sym *b)
{
	Sym *f[64];
	int n = 0;
	Sym *ab[2] = {a, b};
	for (int j = 0; j < 2; j++) {
		int m = ab[j]->kind == S_MUL ? ab[j]->n : 1;
		if (n + m > 64)
			return overflowed(t);
		for (int i = 0; i < m; i++)
			f[n++] = ab[j]->kind == S_MUL ? ab[j]->a[i] : ab[j];
	}
	qsort(f, (size_t)n, sizeof *f, by_id);
	return intern(t, S_MUL, 0, n, f, NULL, 0, 0, NULL);
}

/* (c + Σ k_i·t_i)·b -> c·b + Σ k_i·(t_i·b) */
Sym *sym_mul(SymTab *t, Sym *a, Sym *b)
{
	if (a->kind == S_CONST)
		return sym_scale(t, b, a->c);
	if (b->kind == S_CONST)
		return sym_scale(t, a, b->c);
	if (b->kind == S_ADD) {
		Sym *tmp = a;
		a = b;
		b = tmp;
	}
	if (a->kind != S_ADD)
		return mul_terms(t, a, b);
	Sym *r = sym_scale(t, b, a->c);
	for (int i = 0; i < a->n; i++)
		r = sym_add(t, r, sym_scale(t, sym_mul(t, a->a[i], b), a->k[i]));
	return r;
}

/* ---- floor division and modulo ---- */

static Sym *sym_neg(SymTab *t, Sym *a) { return sym_scale(t, a, -1); }

/* The largest g > 1 with g | d such that a = g·A + r, where every term of A
 * has a coefficient divisible by g and 0 <= r < g over r's whole range.
 * Returns g (or 0) with A in *big and r in *small. */
static int64_t split_digits(SymTab *t, Sym *a, int64_t d, Sym **big, Sym **small)
{
	if (a->kind != S_ADD)
		return 0;
	int64_t best = 0;
	for (int i = 0; i < a->n; i++) {
		int64_t g = gcd64(a->k[i], d);
		if (g <= 1 || g <= best)
			continue;
		Sym *B = sym_const(t, floordiv64(a->c, g)), *R = sym_const(t, floormod64(a->c, g));
		for (int j = 0; j < a->n; j++) {
			if (a->k[j] % g == 0)
				B = sym_add(t, B, sym_scale(t, a->a[j], a->k[j] / g));
			else
				R = sym_add(t, R, sym_scale(t, a->a[j], a->k[j]));
		}
		if (R->lo >= 0 && R->hi < g && !R->ovf) {
			best = g;
			*big = B;
			*small = R;
		}
	}
	return best;
}

static Sym *div_node(SymTab *t, Sym *a, Sym *b)
{
	Sym *ab[2] = {a, b};
	return intern(t, S_DIV, 0, 2, ab, NULL, 0, 0, NULL);
}

static Sym *mod_node(SymTab *t, Sym *a, Sym *b)
{
	Sym *ab[2] = {a, b};
	return intern(t, S_MOD, 0, 2, ab, NULL, 0, 0, NULL);
}

/* Terms of a sum whose coefficient d divides leave the division:
 * (d·q·x + c + r) // d -> q·x + c//d + (c%d + r) // d */
static Sym *div_split(SymTab *t, Sym *a, int64_t d)
{
	if (a->kind != S_ADD)
		return NULL;
	Sym *out = sym_const(t, floordiv64(a->c, d)), *rest = sym_const(t, floormod64(a->c, d));
	bool moved = out->c != 0;
	for (int i = 0; i < a->n; i++) {
		if (a->k[i] % d == 0) {
			out = sym_add(t, out, sym_scale(t, a->a[i], a->k[i] / d));
			moved = true;
		} else {
			rest = sym_add(t, rest, sym_scale(t, a->a[i], a->k[i]));
		}
	}
	return moved ? sym_add(t, out, sym_floordiv(t, rest, sym_const(t, d))) : NULL;
}

Sym *sym_floordiv(SymTab *t, Sym *a, Sym *b)
{
	if (b->kind != S_CONST)
		return div_node(t, a, b);
	int64_t d = b->c;
	if (d == 0)
		return NULL;
	if (a->kind == S_CONST)
		return a->c == INT64_MIN && d == -1 ? overflowed(t) : sym_const(t, floordiv64(a->c, d));
	/* x // -d -> (-x) // d */
	if (d < 0)
		return d == INT64_MIN ? div_node(t, a, b) : sym_floordiv(t, sym_neg(t, a), sym_const(t, -d));
	/* x // 1 -> x */
	if (d == 1)
		return a;
	if (!t->rules)
		return div_node(t, a, b);
	/* x // d -> q when every value of x lies in [q·d, q·d + d) */
	if (!a->ovf && floordiv64(a->lo, d) == floordiv64(a->hi, d))
		return sym_const(t, floordiv64(a->lo, d));
	Sym *r = div_split(t, a, d);
	if (r)
		return r;
	/* (g·A + r) // d -> A // (d/g)   when g | d and 0 <= r < g */
	Sym *big, *small;
	int64_t g = split_digits(t, a, d, &big, &small);
	if (g)
		return sym_floordiv(t, big, sym_const(t, d / g));
	/* (x // d1) // d2 -> x // (d1·d2) */
	int64_t dd;
	if (a->kind == S_DIV && a->a[1]->kind == S_CONST && a->a[1]->c > 0 &&
	    !__builtin_mul_overflow(a->a[1]->c, d, &dd))
		return sym_floordiv(t, a->a[0], sym_const(t, dd));
	return div_node(t, a, b);
}

/* Coefficients and constant reduced modulo m: (k·x + c) % m -> ((k%m)·x + c%m) % m */
static Sym *mod_reduce(SymTab *t, Sym *a, int64_t m)
{
	if (a->kind != S_ADD)
		return NULL;
	bool changed = floormod64(a->c, m) != a->c;
	Sym *r = sym_const(t, floormod64(a->c, m));
	for (int i = 0; i < a->n; i++) {
		int64_t k = floormod64(a->k[i], m);
		changed |= k != a->k[i];
		r = sym_add(t, r, sym_scale(t, a->a[i], k));
	}
	return changed ? r : NULL;
}

Sym *sym_mod(SymTab *t, Sym *a, Sym *b)
{
	if (b->kind != S_CONST)
		return mod_node(t, a, b);
	int64_t m = b->c;
	if (m == 0)
		return NULL;
	if (a->kind == S_CONST)
		return sym_const(t, m == -1 ? 0 : floormod64(a->c, m));
	/* x % -m -> -((-x) % m) */
	if (m < 0)
		return m == INT64_MIN ? mod_node(t, a, b) : sym_neg(t, sym_mod(t, sym_neg(t, a), sym_const(t, -m)));
	/* x % 1 -> 0 */
	if (m == 1)
		return sym_const(t, 0);
	if (!t->rules)
		return mod_node(t, a, b);
	/* x % m -> x - q·m when every value of x lies in [q·m, q·m + m) */
	if (!a->ovf && floordiv64(a->lo, m) == floordiv64(a->hi, m))
		return sym_add(t, a, sym_const(t, -floordiv64(a->lo, m) * m));
	Sym *r = mod_reduce(t, a, m);
	if (r)
		return sym_mod(t, r, b);
	/* (g·A + r) % m -> g·(A % (m/g)) + r   when g | m and 0 <= r < g */
	Sym *big, *small;
	int64_t g = split_digits(t, a, m, &big, &small);
	if (g)
		return sym_add(t, sym_scale(t, sym_mod(t, big, sym_const(t, m / g)), g), small);
	/* (x % m1) % m -> x % m   when m | m1 */
	if (a->kind == S_MOD && a->a[1]->kind == S_CONST && a->a[1]->c > 0 && a->a[1]->c % m == 0)
		return sym_mod(t, a->a[0], b);
	return mod_node(t, a, b);
}

Sym *sym_rebuild(SymTab *t, const Sym *s, SymMap map, void *env)
{
	Sym *r, *x, *y;
	switch (s->kind) {
	case S_CONST: return sym_const(t, s->c);
	case S_VAR:
	case S_ATOM:
		if (map && (r = map(t, s, env)))
			return r;
		return s->kind == S_VAR ? sym_var(t, (int)s->c, s->lo, s->hi, s->p) : sym_atom(t, (int)s->c, s->lo, s->hi, s->p);
	case S_ADD:
		r = sym_const(t, s->c);
		for (int i = 0; i < s->n; i++)
			r = sym_add(t, r, sym_scale(t, sym_rebuild(t, s->a[i], map, env), s->k[i]));
		return r;
	case S_MUL:
		r = sym_const(t, 1);
		for (int i = 0; i < s->n; i++)
			r = sym_mul(t, r, sym_rebuild(t, s->a[i], map, env));
		return r;
	case S_DIV:
	case S_MOD:
		x = sym_rebuild(t, s->a[0], map, env);
		y = sym_rebuild(t, s->a[1], map, env);
		r = s->kind == S_DIV ? sym_floordiv(t, x, y) : sym_mod(t, x, y);
		return r ? r : overflowed(t);
	}
	die("bad sym");
}

/* ---- evaluation and printing ---- */

int sym_eval(const Sym *s, SymLeaf leaf, void *env, int64_t *out)
{
	int64_t x, y, v;
	int e;
	switch (s->kind) {
	case S_CONST:
		*out = s->c;
		return SYM_OK;
	case S_VAR:
	case S_ATOM:
		return leaf(env, s, out);
	case S_ADD:
		v = s->c;
		for (int i = 0; i < s->n; i++) {
			if ((e = sym_eval(s->a[i], leaf, env, &x)))
				return e;
			if (__builtin_mul_overflow(x, s->k[i], &x) || __builtin_add_overflow(v, x, &v))
				return SYM_EOVF;
		}
		*out = v;
		return SYM_OK;
	case S_MUL:
		v = 1;
		for (int i = 0; i < s->n; i++) {
			if ((e = sym_eval(s->a[i], leaf, env, &x)))
				return e;
			if (__builtin_mul_overflow(v, x, &v))
				return SYM_EOVF;
		}
		*out = v;
		return SYM_OK;
	case S_DIV:
	case S_MOD:
		if ((e = sym_eval(s->a[0], leaf, env, &x)) || (e = sym_eval(s->a[1], leaf, env, &y)))
			return e;
		return int_op(s->kind == S_DIV ? OP_FLOORDIV : OP_MOD, x, y, out);
	}
	return SYM_EOVF;
}

/* 0 <= e <= last: the values of term `at` of the sum e that keep it there
 * whatever the other terms (which must not be atoms) take. */
bool sym_term_range(const Sym *e, int at, int64_t last, int64_t *lo, int64_t *hi)
{
	if (e->kind != S_ADD || at < 0 || at >= e->n || e->k[at] == 0)
		return false;
	int64_t rlo = e->c, rhi = e->c, c = e->k[at];
	for (int j = 0; j < e->n; j++) {
		int64_t x, y;
		if (j == at)
			continue;
		if (e->a[j]->kind == S_ATOM || __builtin_mul_overflow(e->a[j]->lo, e->k[j], &x) ||
		    __builtin_mul_overflow(e->a[j]->hi, e->k[j], &y) || __builtin_add_overflow(rlo, x < y ? x : y, &rlo) ||
		    __builtin_add_overflow(rhi, x < y ? y : x, &rhi))
			return false;
	}
	/* 0 <= c*a + rest <= last for every rest in [rlo, rhi] */
	*lo = c > 0 ? -floordiv64(rlo, c) : -floordiv64(last - rhi, -c);
	*hi = c > 0 ? floordiv64(last - rhi, c) : floordiv64(rlo, -c);
	return true;
}

bool sym_has_atom(const Sym *s)
{
	if (s->kind == S_ATOM)
		return true;
	for (int i = 0; i < s->n; i++)
		if (sym_has_atom(s->a[i]))
			return true;
	return false;
}

static void print_prec(Buf *b, const Sym *s, SymName name, void *env, int prec);

/* prec: 0 sum context, 1 product operand, 2 operand of // or % */
static void print_prec(Buf *b, const Sym *s, SymName name, void *env, int prec)
{
	switch (s->kind) {
	case S_CONST:
		buf_printf(b, s->c < 0 && prec > 0 ? "(%lld)" : "%lld", (long long)s->c);
		return;
	case S_VAR:
	case S_ATOM:
		name(b, s, env);
		return;
	case S_ADD: {
		bool paren = prec > 0 && !(s->n == 1 && s->c == 0 && s->k[0] > 0 && prec == 1);
		if (paren)
			buf_putc(b, '(');
		for (int i = 0; i < s->n; i++) {
			int64_t k = s->k[i];
			if (i == 0 && k < 0)
				buf_putc(b, '-');
			else if (i > 0)
				buf_printf(b, k < 0 ? " - " : " + ");
			uint64_t ak = k < 0 ? -(uint64_t)k : (uint64_t)k;
			if (ak != 1)
				buf_printf(b, "%llu*", (unsigned long long)ak);
			print_prec(b, s->a[i], name, env, ak != 1 ? 1 : (s->a[i]->kind == S_MUL ? 0 : 1));
		}
		if (s->c)
			buf_printf(b, s->c < 0 ? " - %llu" : " + %llu",
			           (unsigned long long)(s->c < 0 ? -(uint64_t)s->c : (uint64_t)s->c));
		if (paren)
			buf_putc(b, ')');
		return;
	}
	case S_MUL:
		if (prec > 1)
			buf_putc(b, '(');
		for (int i = 0; i < s->n; i++) {
			if (i)
				buf_putc(b, '*');
			print_prec(b, s->a[i], name, env, 2);
		}
		if (prec > 1)
			buf_putc(b, ')');
		return;
	case S_DIV:
	case S_MOD:
		if (prec > 0)
			buf_putc(b, '(');
		print_prec(b, s->a[0], name, env, 2);
		buf_printf(b, s->kind == S_DIV ? " // " : " %% ");
		print_prec(b, s->a[1], name, env, 2);
		if (prec > 0)
			buf_putc(b, ')');
		return;
	}
}

void sym_print(Buf *b, const Sym *s, SymName name, void *env)
{
	print_prec(b, s, name, env, 0);
}
