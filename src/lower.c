/* Lowering: every load and store of a bound kernel becomes one flat storage
 * offset (elements) over the index variables, whatever form the author used:
 * x[i, 2*j] and x.flat[16*i + 2*j] give the same expression, with the
 * layout's strides and offset folded in. Then simplify rebuilds each offset
 * with the range-aware rules, and every access whose offset does not involve
 * loaded data is range-checked: a provable out-of-bounds access (a point of
 * the domain that reaches outside) is a compile error.
 *
 * Data-dependent parts are atoms. A dim subscript that involves loaded data
 * becomes one atom whose range is the dim, [0, n) (the run-time check makes
 * that true); other data-dependent values (a loaded index, min(), a cast)
 * are atoms with the range of their dtype. */
#include <string.h>

#include "internal.h"

typedef struct {
	Kernel *k;
	SymTab *t;
	int natoms;
	bool check; /* report provable errors (the simplify pass) */
} Lower;

static void dtype_range(DType dt, int64_t *lo, int64_t *hi)
{
	switch (dt) {
	case ATHENE_BOOL: *lo = 0, *hi = 1; break;
	case ATHENE_I8: *lo = INT8_MIN, *hi = INT8_MAX; break;
	case ATHENE_I16: *lo = INT16_MIN, *hi = INT16_MAX; break;
	case ATHENE_I32: *lo = INT32_MIN, *hi = INT32_MAX; break;
	case ATHENE_U8: *lo = 0, *hi = UINT8_MAX; break;
	default: *lo = INT64_MIN, *hi = INT64_MAX; break;
	}
}

static Sym *opaque(Lower *l, Node *n)
{
	int64_t lo, hi;
	dtype_range(n->dt, &lo, &hi);
	return sym_atom(l->t, l->natoms++, lo, hi, n);
}

static Sym *lower_index(Lower *l, Node *n);
static void overflow_witness(Lower *l, Node *n);

/* wrap(e, m) is e mod m wherever -m <= e < m; otherwise it is opaque. */
static Sym *lower_wrap(Lower *l, Node *n)
{
	Sym *e = lower_index(l, n->args[0]), *m = lower_index(l, n->args[1]);
	if (m->kind != S_CONST || sym_has_atom(e) || e->ovf)
		return opaque(l, n);
	if (e->lo >= 0)
		return e;
	if (e->hi < 0)
		return sym_add(l->t, e, m);
	if (m->c > 0 && e->lo >= -m->c && e->hi < m->c)
		return sym_mod(l->t, e, m);
	return opaque(l, n);
}

static Sym *lower_op(Lower *l, Node *n);

/* An index subexpression whose coefficients overflow 64 bits stays opaque:
 * a compile error where a point of the domain proves the overflow, else the
 * run-time check catches it. */
static Sym *lower_index(Lower *l, Node *n)
{
	bool before = l->t->overflow;
	l->t->overflow = false;
	Sym *r = lower_op(l, n);
	if (l->check && r->ovf && n->kind == N_OP && !sym_has_atom(r))
		overflow_witness(l, n); /* simplification may hide it: x*2^62 % 8 */
	if (l->t->overflow) {
		if (l->check)
			overflow_witness(l, n);
		r = opaque(l, n);
	}
	l->t->overflow = before;
	return r;
}

static Sym *lower_op(Lower *l, Node *n)
{
	SymTab *t = l->t;
	Sym *a, *b, *r;
	switch (n->kind) {
	case N_INT:
		return sym_const(t, n->ival);
	case N_SIZE:
		return sym_const(t, l->k->syms[n->sym].val);
	case N_IVAR:
		return sym_var(t, n->var->id, 0, n->var->n - 1, n->var);
	case N_OP:
		if (!dt_is_int(n->dt))
			break;
		switch (n->op) {
		case OP_NEG:
			return sym_scale(t, lower_index(l, n->args[0]), -1);
		case OP_ADD:
		case OP_SUB:
		case OP_MUL:
		case OP_FLOORDIV:
		case OP_MOD:
			a = lower_index(l, n->args[0]);
			b = lower_index(l, n->args[1]);
			if (n->op == OP_ADD)
				return sym_add(t, a, b);
			if (n->op == OP_SUB)
				return sym_sub(t, a, b);
			if (n->op == OP_MUL)
				return sym_mul(t, a, b);
			r = n->op == OP_FLOORDIV ? sym_floordiv(t, a, b) : sym_mod(t, a, b);
			if (!r)
				error_at(l->k->ctx, n->sp, "division by zero in an index expression");
			return r;
		case OP_WRAP:
			return lower_wrap(l, n);
		}
		break;
	}
	return opaque(l, n);
}

/* ---- range checks ---- */

/* Exact evaluation of an index expression without loads at a point. */
static int eval_node(const Node *n, const int64_t *val, int64_t *out)
{
	int64_t a, b;
	int e;
	switch (n->kind) {
	case N_INT: *out = n->ival; return SYM_OK;
	case N_IVAR: *out = val[n->var->id]; return SYM_OK;
	case N_OP: break;
	default: return -1; /* not evaluable here */
	}
	if ((e = eval_node(n->args[0], val, &a)))
		return e;
	if (n->op == OP_NEG)
		return a == INT64_MIN ? SYM_EOVF : (*out = -a, SYM_OK);
	if (n->nargs != 2 || (e = eval_node(n->args[1], val, &b)))
		return n->nargs != 2 ? -1 : e;
	switch (n->op) {
	case OP_ADD: return __builtin_add_overflow(a, b, out) ? SYM_EOVF : SYM_OK;
	case OP_SUB: return __builtin_sub_overflow(a, b, out) ? SYM_EOVF : SYM_OK;
	case OP_MUL: return __builtin_mul_overflow(a, b, out) ? SYM_EOVF : SYM_OK;
	case OP_FLOORDIV:
	case OP_MOD:
		if (b == 0)
			return SYM_EDIV0;
		if (a == INT64_MIN && b == -1)
			return n->op == OP_MOD ? (*out = 0, SYM_OK) : SYM_EOVF;
		*out = n->op == OP_MOD ? floormod64(a, b) : floordiv64(a, b);
		return SYM_OK;
	}
	return -1;
}

static void node_vars(const Node *n, const Var **vars, int *nv)
{
	if (n->kind == N_IVAR) {
		for (int i = 0; i < *nv; i++)
			if (vars[i] == n->var)
				return;
		if (*nv < 12)
			vars[(*nv)++] = n->var;
	}
	for (int i = 0; i < n->nargs; i++)
		node_vars(n->args[i], vars, nv);
}

static void overflow_witness(Lower *l, Node *n)
{
	const Var *vars[12];
	int nv = 0;
	node_vars(n, vars, &nv);
	for (int i = 0; i < nv; i++)
		if (vars[i]->n == 0)
			return; /* an empty domain */
	int64_t *val = arena_alloc(&l->k->ctx->arena, (size_t)(l->k->vars.n + 1) * sizeof *val), out;
	for (int c = 0; c < 1 << nv; c++) {
		for (int i = 0; i < nv; i++)
			val[vars[i]->id] = (c >> i) & 1 ? vars[i]->n - 1 : 0;
		if (eval_node(n, val, &out) != SYM_EOVF)
			continue;
		char pt[256] = "";
		for (int i = 0, len = 0; i < nv && len < (int)sizeof pt; i++)
			len += snprintf(pt + len, sizeof pt - (size_t)len, "%s%s=%lld", i ? ", " : "", vars[i]->name,
			                (long long)val[vars[i]->id]);
		error_at(l->k->ctx, n->sp, "index arithmetic overflows 64 bits%s%s", nv ? " at " : "", pt);
	}
}

typedef struct {
	int nv;
	const Sym *vars[16];
	int64_t val[16];
} Point;

static void collect_vars(const Sym *s, Point *p)
{
	if (s->kind == S_VAR) {
		for (int i = 0; i < p->nv; i++)
			if (p->vars[i] == s)
				return;
		if (p->nv < 16)
			p->vars[p->nv++] = s;
		else
			p->nv = 17; /* too many to search */
		return;
	}
	for (int i = 0; i < s->n && p->nv <= 16; i++)
		collect_vars(s->a[i], p);
}

static int point_leaf(void *env, const Sym *s, int64_t *out)
{
	Point *p = env;
	for (int i = 0; i < p->nv; i++)
		if (p->vars[i] == s) {
			*out = p->val[i];
			return SYM_OK;
		}
	return SYM_EOVF;
}

/* Is there a point of the domain where s fails (error, or a value outside
 * [lo, hi])? Searches the corners, then every point of a small domain. */
static int find_witness(const Sym *s, int64_t lo, int64_t hi, Point *p, int64_t *value)
{
	p->nv = 0;
	collect_vars(s, p);
	if (p->nv > 16)
		return 0;
	for (int i = 0; i < p->nv; i++)
		if (p->vars[i]->hi < p->vars[i]->lo)
			return 0; /* an empty domain: nothing is ever read */
	int64_t total = 1;
	for (int i = 0; i < p->nv; i++)
		if (__builtin_mul_overflow(total, p->vars[i]->hi + 1, &total))
			total = INT64_MAX;
	for (int pass = 0; pass < 2; pass++) {
		int64_t count = pass == 0 ? (int64_t)1 << (p->nv < 12 ? p->nv : 12) : total;
		if (pass == 1 && total > 65536)
			break;
		for (int64_t c = 0; c < count; c++) {
			int64_t rest = c;
			for (int i = 0; i < p->nv; i++) {
				int64_t ext = p->vars[i]->hi + 1;
				if (pass == 0) {
					p->val[i] = (rest & 1) ? p->vars[i]->hi : p->vars[i]->lo;
					rest >>= 1;
				} else {
					p->val[i] = rest % ext;
					rest /= ext;
				}
			}
			int e = sym_eval(s, point_leaf, p, value);
			if (e)
				return e;
			if (*value < lo || *value > hi)
				return -1;
		}
	}
	return 0;
}

static void print_point(Buf *b, const Point *p)
{
	for (int i = 0; i < p->nv; i++) {
		const Var *v = p->vars[i]->p;
		buf_printf(b, "%s%s=%lld", i ? ", " : "", v->name, (long long)p->val[i]);
	}
}

void sym_leaf_name(Buf *b, const Sym *s, void *env)
{
	(void)env;
	if (s->kind == S_VAR)
		buf_printf(b, "%s", ((const Var *)s->p)->name);
	else
		dump_node(b, s->p);
}

/* Fails compilation when some point of the domain takes s outside [0, n). */
static void check_range(Lower *l, Node *at, const Sym *s, int64_t n, const char *what)
{
	if (sym_has_atom(s) || (!s->ovf && s->lo >= 0 && s->hi < n))
		return;
	Point p;
	int64_t v;
	int e = find_witness(s, 0, n - 1, &p, &v);
	if (!e)
		return; /* not provable: the run-time checks catch it */
	Buf pt = {0}, ex = {0};
	print_point(&pt, &p);
	sym_print(&ex, s, sym_leaf_name, NULL);
	Ctx *c = l->k->ctx;
	if (e == SYM_EOVF)
		diag_at(c, at->sp, "index arithmetic %s overflows 64 bits at %s", buf_str(&ex), buf_str(&pt));
	else if (e == SYM_EDIV0)
		diag_at(c, at->sp, "division by zero in index %s at %s", buf_str(&ex), buf_str(&pt));
	else if (p.nv == 0)
		diag_at(c, at->sp, "%s is out of bounds: %lld, but the valid range is [0, %lld)", what, (long long)v,
		        (long long)n);
	else
		diag_at(c, at->sp, "%s is out of bounds: %s = %lld at %s, but the valid range is [0, %lld)", what,
		        buf_str(&ex), (long long)v, buf_str(&pt), (long long)n);
	buf_free(&pt);
	buf_free(&ex);
	longjmp(*c->jmp, 1);
}

/* ---- loads and stores ---- */

static Sym *lower_load(Lower *l, Node *n, bool check)
{
	Tensor *t = n->t;
	SymTab *st = l->t;
	if (n->kind == N_FLAT)
		return sym_add(st, sym_const(st, t->offset), lower_index(l, n->args[0]));
	Sym *off = sym_const(st, t->offset);
	for (int d = 0; d < t->rank; d++) {
		Sym *s = lower_index(l, n->args[d]);
		if (check) {
			char what[96];
			snprintf(what, sizeof what, "subscript %d of '%s'", d, t->name);
			check_range(l, n->args[d], s, t->shape[d], what);
		}
		if (sym_has_atom(s))
			s = sym_atom(st, l->natoms++, 0, t->shape[d] - 1, n->args[d]);
		off = sym_add(st, off, sym_scale(st, s, t->strides[d]));
	}
	return off;
}

static Sym *lower_store(Lower *l, Stmt *s)
{
	SymTab *st = l->t;
	Sym *off = sym_const(st, s->t->offset);
	for (int d = 0; d < s->nlhs; d++) {
		Var *v = s->lhs[d];
		off = sym_add(st, off, sym_scale(st, sym_var(st, v->id, 0, v->n - 1, v), s->t->strides[d]));
	}
	return off;
}

static void check_overflow(Kernel *k, SymTab *t)
{
	if (t->overflow)
		error_at(k->ctx, k->sp, "an index expression of kernel '%s' overflows 64 bits", k->name);
}

void lower_kernel(Kernel *k)
{
	Arena *a = &k->ctx->arena;
	int nl = k->loads.n, ns = k->stmts.n;
	k->load_lower = arena_alloc(a, (size_t)(nl + 1) * sizeof(Sym *));
	k->load_off = arena_alloc(a, (size_t)(nl + 1) * sizeof(Sym *));
	k->store_lower = arena_alloc(a, (size_t)(ns + 1) * sizeof(Sym *));
	k->store_off = arena_alloc(a, (size_t)(ns + 1) * sizeof(Sym *));
	/* lower with canonical sums only, then simplify into a second table */
	Lower raw = {k, symtab_new(a, false), 0, false};
	for (int i = 0; i < nl; i++)
		k->load_lower[i] = lower_load(&raw, k->loads.v[i], false);
	for (int i = 0; i < ns; i++)
		k->store_lower[i] = lower_store(&raw, k->stmts.v[i]);
	check_overflow(k, raw.t);
	Lower simp = {k, symtab_new(a, true), 0, true};
	k->st = simp.t;
	for (int i = 0; i < nl; i++) {
		Node *n = k->loads.v[i];
		k->load_off[i] = lower_load(&simp, n, true);
		if (n->kind == N_FLAT) {
			char what[96];
			snprintf(what, sizeof what, "flat offset into '%s'", n->t->name);
			check_range(&simp, n, k->load_off[i], n->t->storage, what);
		}
	}
	for (int i = 0; i < ns; i++)
		k->store_off[i] = sym_rebuild(simp.t, k->store_lower[i], NULL, NULL);
	check_overflow(k, simp.t);
}

void dump_lowered(Buf *b, Kernel *k, bool simplified)
{
	Sym **loads = simplified ? k->load_off : k->load_lower;
	Sym **stores = simplified ? k->store_off : k->store_lower;
	buf_printf(b, "kernel %s\n", k->name);
	for (int i = 0; i < k->stmts.n; i++) {
		Stmt *s = k->stmts.v[i];
		buf_printf(b, "  store %s: ", s->t->name);
		sym_print(b, stores[i], sym_leaf_name, NULL);
		buf_printf(b, "  in [%lld, %lld]\n", (long long)stores[i]->lo, (long long)stores[i]->hi);
	}
	for (int i = 0; i < k->loads.n; i++) {
		Node *n = k->loads.v[i];
		buf_printf(b, "  load %s: ", n->t->name);
		sym_print(b, loads[i], sym_leaf_name, NULL);
		if (loads[i]->ovf)
			buf_printf(b, "  (range unknown: data-dependent)\n");
		else
			buf_printf(b, "  in [%lld, %lld]\n", (long long)loads[i]->lo, (long long)loads[i]->hi);
	}
}
