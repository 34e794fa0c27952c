/* Property tests of the index algebra (src/sym.c).
 *
 * Random expression trees (affine terms, products, floor division and modulo
 * by positive and negative constants and by expressions, nested, negative
 * constants) over 1-3 variables with small ranges. For each tree, at every
 * point of the domain:
 *   - the simplified form (rules on) and the canonical form (rules off)
 *     evaluate to the tree's value, computed directly with Python semantics,
 *     and fail (division by zero, overflow) exactly where it fails;
 *   - every node of both forms has a range that contains its value.
 * Seeded and reproducible: `sym_test [SEED] [COUNT]`. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "testlib.h"

enum { E_VAR, E_CONST, E_ADD, E_SUB, E_MUL, E_DIV, E_MOD, E_NEG };

typedef struct Ex {
	int op;
	int64_t c;
	struct Ex *a, *b;
} Ex;


static int nvars;
static int64_t ext[3];

static Ex *mk(Arena *ar, int op, int64_t c, Ex *a, Ex *b)
{
	Ex *e = arena_alloc(ar, sizeof *e);
	e->op = op;
	e->c = c;
	e->a = a;
	e->b = b;
	return e;
}

static Ex *cst(Arena *ar, int64_t lo, int64_t hi)
{
	return mk(ar, E_CONST, lo + (int64_t)rnd((unsigned)(hi - lo + 1)), NULL, NULL);
}

static int64_t nonzero(void)
{
	static const int64_t ds[] = {2, 2, 3, 4, 4, 8, 16, 5, 6, 7, 1, -2, -3, -4, 12, 64};
	return ds[rnd(sizeof ds / sizeof ds[0])];
}

/* Every random draw is sequenced (no two in one call's arguments), so a
 * seed gives the same expressions whatever the compiler. */
static Ex *gen(Arena *ar, int depth)
{
	if (depth == 0 || rnd(5) == 0) {
		if (rnd(3))
			return mk(ar, E_VAR, rnd((unsigned)nvars), NULL, NULL);
		return cst(ar, -10, 10);
	}
	unsigned kind = rnd(11);
	static const int ops[] = {E_ADD, E_ADD, E_SUB, E_MUL, E_MUL, E_DIV, E_DIV, E_MOD, E_MOD};
	if (kind == 3) { /* a constant times an expression */
		Ex *c = cst(ar, -6, 16);
		return mk(ar, E_MUL, 0, c, gen(ar, depth - 1));
	}
	if (kind >= 5 && kind <= 8) { /* by a constant divisor */
		Ex *x = gen(ar, depth - 1);
		return mk(ar, ops[kind], 0, x, mk(ar, E_CONST, nonzero(), NULL, NULL));
	}
	if (kind == 10) { /* the digit patterns the rules target: (k·a + b) // d and % d */
		int64_t k = nonzero(), d = nonzero();
		Ex *a = gen(ar, depth - 1);
		Ex *b = gen(ar, depth - 1);
		Ex *sum = mk(ar, E_ADD, 0, mk(ar, E_MUL, 0, mk(ar, E_CONST, k, NULL, NULL), a), b);
		return mk(ar, rnd(2) ? E_DIV : E_MOD, 0, sum, mk(ar, E_CONST, d, NULL, NULL));
	}
	int op = kind == 9 ? (rnd(2) ? E_DIV : E_MOD) : ops[kind]; /* by an expression, too */
	Ex *a = gen(ar, depth - 1);
	Ex *b = gen(ar, depth - 1);
	return mk(ar, op, 0, a, b);
}

/* Direct evaluation; returns SYM_OK or the error. */
static int ev(const Ex *e, const int64_t *pt, int64_t *out)
{
	int64_t a, b;
	int r;
	switch (e->op) {
	case E_VAR: *out = pt[e->c]; return SYM_OK;
	case E_CONST: *out = e->c; return SYM_OK;
	case E_NEG:
		if ((r = ev(e->a, pt, &a)))
			return r;
		if (a == INT64_MIN)
			return SYM_EOVF;
		*out = -a;
		return SYM_OK;
	}
	if ((r = ev(e->a, pt, &a)) || (r = ev(e->b, pt, &b)))
		return r;
	switch (e->op) {
	case E_ADD: return __builtin_add_overflow(a, b, out) ? SYM_EOVF : SYM_OK;
	case E_SUB: return __builtin_sub_overflow(a, b, out) ? SYM_EOVF : SYM_OK;
	case E_MUL: return __builtin_mul_overflow(a, b, out) ? SYM_EOVF : SYM_OK;
	}
	if (b == 0)
		return SYM_EDIV0;
	*out = e->op == E_DIV ? floordiv64(a, b) : floormod64(a, b);
	return SYM_OK;
}

static Sym *build(SymTab *t, const Ex *e, Sym **vars)
{
	Sym *a, *b, *r;
	switch (e->op) {
	case E_VAR: return vars[e->c];
	case E_CONST: return sym_const(t, e->c);
	}
	a = build(t, e->a, vars);
	b = build(t, e->b, vars);
	if (!a || !b)
		return NULL; /* a constant division by zero below */
	switch (e->op) {
	case E_ADD: return sym_add(t, a, b);
	case E_SUB: return sym_sub(t, a, b);
	case E_MUL: return sym_mul(t, a, b);
	}
	r = e->op == E_DIV ? sym_floordiv(t, a, b) : sym_mod(t, a, b);
	return r; /* NULL: division by a constant zero */
}

static int leaf(void *env, const Sym *s, int64_t *out)
{
	*out = ((const int64_t *)env)[s->c];
	return SYM_OK;
}

static long failures, checks;

static void print_ex(Buf *b, const Ex *e)
{
	static const char *ops[] = {"", "", " + ", " - ", "*", " // ", " % ", "-"};
	if (e->op == E_VAR)
		buf_printf(b, "v%lld", (long long)e->c);
	else if (e->op == E_CONST)
		buf_printf(b, "%lld", (long long)e->c);
	else {
		buf_putc(b, '(');
		print_ex(b, e->a);
		buf_printf(b, "%s", ops[e->op]);
		print_ex(b, e->b);
		buf_putc(b, ')');
	}
}

static void fail(const char *what, const Ex *e, const Sym *s, const int64_t *pt, int64_t want, int64_t got)
{
	(void)s;
	if (failures++ < 10) {
		Buf b = {0};
		print_ex(&b, e);
		fprintf(stderr, "FAIL %s: %s at (%lld, %lld, %lld): want %lld got %lld\n", what, buf_str(&b),
		        (long long)pt[0], (long long)pt[1], (long long)pt[2], (long long)want, (long long)got);
		buf_free(&b);
	}
}

/* Every node's range contains its value at pt (skipping nodes that fail). */
static void check_ranges(const Sym *s, const int64_t *pt, const Ex *e)
{
	int64_t v;
	if (sym_eval(s, leaf, (void *)pt, &v) == SYM_OK && !s->ovf) {
		checks++;
		if (v < s->lo || v > s->hi)
			fail("range", e, s, pt, s->lo, v);
	}
	for (int i = 0; i < s->n; i++)
		check_ranges(s->a[i], pt, e);
}

static void name_var(Buf *b, const Sym *s, void *env)
{
	(void)env;
	buf_printf(b, "v%lld", (long long)s->c);
}

static void test_one(Arena *ar)
{
	nvars = 1 + (int)rnd(3);
	for (int i = 0; i < 3; i++)
		ext[i] = i < nvars ? 1 + rnd(12) : 1;
	Ex *e = gen(ar, 1 + (int)rnd(4));
	SymTab *raw = symtab_new(ar, false), *simp = symtab_new(ar, true);
	Sym *vr[3], *vs[3];
	for (int i = 0; i < 3; i++) {
		vr[i] = sym_var(raw, i, 0, ext[i] - 1, NULL);
		vs[i] = sym_var(simp, i, 0, ext[i] - 1, NULL);
	}
	Sym *r = build(raw, e, vr), *s = build(simp, e, vs);
	Sym *s2 = r ? sym_rebuild(simp, r, NULL, NULL) : NULL;
	int64_t pt[3] = {0, 0, 0};
	for (pt[2] = 0; pt[2] < ext[2]; pt[2]++)
		for (pt[1] = 0; pt[1] < ext[1]; pt[1]++)
			for (pt[0] = 0; pt[0] < ext[0]; pt[0]++) {
				int64_t want, got;
				int we = ev(e, pt, &want);
				Sym *forms[3] = {r, s, s2};
				for (int f = 0; f < 3; f++) {
					if (!forms[f] || raw->overflow || simp->overflow) {
						/* constant division by zero must be a real one */
						if (!forms[f] && we != SYM_EDIV0)
							fail("NULL without division by zero", e, NULL, pt, 0, 0);
						continue;
					}
					int ge = sym_eval(forms[f], leaf, pt, &got);
					checks++;
					if (we == SYM_EDIV0 && ge == SYM_OK)
						continue; /* simplification may remove a dead division (x // 0 * 0) */
					if (we != ge || (we == SYM_OK && want != got)) {
						if (failures < 10) {
							Buf b = {0};
							sym_print(&b, forms[f], name_var, NULL);
							fprintf(stderr, "form %d: %s (exts %lld %lld %lld) err %d/%d\n", f, buf_str(&b),
							        (long long)ext[0], (long long)ext[1], (long long)ext[2], we, ge);
							buf_free(&b);
						}
						fail("value", e, forms[f], pt, want, got);
					}
					check_ranges(forms[f], pt, e);
				}
			}
}

/* Known rewrites and hash-consing. */
static void test_rules(Arena *ar)
{
	SymTab *t = symtab_new(ar, true);
	Sym *a = sym_var(t, 0, 0, 9, NULL), *b = sym_var(t, 1, 0, 7, NULL);
	Sym *c8 = sym_const(t, 8), *s = sym_add(t, sym_scale(t, a, 8), b);
	Sym *x = sym_var(t, 2, 0, 319, NULL), *x32 = sym_floordiv(t, x, sym_const(t, 32));
	Sym *x160 = sym_floordiv(t, x, sym_const(t, 160));
	struct {
		const char *what;
		Sym *got, *want;
	} cases[] = {
		{"(8a + b) // 8 -> a", sym_floordiv(t, s, c8), a},
		{"(8a + b) % 8 -> b", sym_mod(t, s, c8), b},
		{"b % 8 -> b", sym_mod(t, b, c8), b},
		{"a + b == b + a", sym_add(t, a, b), sym_add(t, b, a)},
		{"8*(x//8) + x%8 -> x", sym_add(t, sym_scale(t, sym_floordiv(t, a, c8), 8), sym_mod(t, a, c8)), a},
		{"(a // 2) // 4 -> a // 8", sym_floordiv(t, sym_floordiv(t, a, sym_const(t, 2)), sym_const(t, 4)),
		 sym_floordiv(t, a, c8)},
		{"(a % 8) % 4 -> a % 4", sym_mod(t, sym_mod(t, a, c8), sym_const(t, 4)), sym_mod(t, a, sym_const(t, 4))},
		{"(4a + 2) // 2 -> 2a + 1", sym_floordiv(t, sym_add(t, sym_scale(t, a, 4), sym_const(t, 2)), sym_const(t, 2)),
		 sym_add(t, sym_scale(t, a, 2), sym_const(t, 1))},
		{"a - a -> 0", sym_sub(t, a, a), sym_const(t, 0)},
		{"5*(x//160) + (x//32)%5 -> x//32", sym_add(t, sym_scale(t, x160, 5), sym_mod(t, x32, sym_const(t, 5))), x32},
		{"10*(x//160) + 2*((x//32)%5) -> 2*(x//32)",
		 sym_add(t, sym_scale(t, x160, 10), sym_scale(t, sym_mod(t, x32, sym_const(t, 5)), 2)), sym_scale(t, x32, 2)},
		{"5*(x//160) + 2*((x//32)%5) stays",
		 sym_add(t, sym_scale(t, x160, 5), sym_scale(t, sym_mod(t, x32, sym_const(t, 5)), 2)) == sym_scale(t, x32, 2)
		     ? NULL : x, x},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		checks++;
		if (cases[i].got != cases[i].want) {
			failures++;
			fprintf(stderr, "FAIL rule %s\n", cases[i].what);
		}
	}
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 20261129;
	long count = argc > 2 ? strtol(argv[2], NULL, 10) : 20000;
	rng = seed * 2654435761u + 88172645463325252ull;
	Arena ar = {0};
	test_rules(&ar);
	for (long i = 0; i < count; i++) {
		test_one(&ar);
		if (i % 1000 == 999) {
			arena_free(&ar);
		}
	}
	arena_free(&ar);
	printf("sym_test: seed %llu, %ld random expressions, %ld checks\n", (unsigned long long)seed, count, checks);
	printf("%ld passed, %ld failed\n", checks - failures, failures);
	return failures != 0;
}
