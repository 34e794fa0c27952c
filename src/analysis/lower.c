/* lower and simplify: every load and store becomes one flat storage offset (elements)
 * over the index variables, whatever form the author used: x[i, 2*j] and
 * x.flat[16*i + 2*j] give the same expression, with the layout's strides and
 * offset folded in. This is done per load in its own statement (where the
 * range checks belong), and per access of each planned statement, where a
 * fused let's variables stand for the consumer's subscripts, so the analysis
 * sees the composed access. The raw pass builds canonical sums only; the
 * simplify pass applies the range-aware rules, and every access whose offset
 * does not involve loaded data is range-checked: a provable out-of-bounds
 * access (a point of the domain that reaches outside) is a compile error.
 *
 * Data-dependent parts are atoms. A dim subscript that involves loaded data
 * becomes one atom whose range is the dim, [0, n) (the run-time check makes
 * that true); other data-dependent values (a loaded index, min(), a cast)
 * are atoms with the range of their dtype. */
#include <string.h>

#include "analysis.h"

/* A fused let being expanded: its variables stand for the subscripts of
 * the load `use`, which are expressions of the enclosing expansion. */
typedef struct {
	Inst *in;
	SymTab *t;
	int natoms;
	bool check; /* report provable errors (the simplify pass) */
	bool value; /* lowering a value (a guard's condition), where integer // and % by zero are 0, not errors */
	const Env *env;
	const int64_t *lo, *hi; /* by Var id: the ranges a guard leaves; NULL: [0, n) */
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

/* wrap(e, m) is e mod m wherever -m <= e < m; otherwise it is opaque. The
 * same for Inductor's where(e < 0, e + m, e) (wrap_of). */
static Sym *lower_wrap(Lower *l, Node *n, Node *arg, int64_t mod)
{
	Sym *e = lower_index(l, arg), *m = sym_const(l->t, mod);
	if (sym_has_atom(e) || e->ovf)
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

static bool const_value(const Inst *in, const Node *n, int64_t *c)
{
	if (n->kind == N_INT)
		*c = n->ival;
	else if (n->kind == N_SIZE)
		*c = in->size[n->sym];
	else
		return false;
	return true;
}

/* Is s the sum v + m (either order) of v and a constant? */
static bool plus_const(const Inst *in, const Node *s, const Node *v, int64_t *m)
{
	if (s->kind != N_OP || s->op != OP_ADD)
		return false;
	return (ast_equal(s->args[0], v) && const_value(in, s->args[1], m)) ||
	       (ast_equal(s->args[1], v) && const_value(in, s->args[0], m));
}

/* wrap(v, m), or PyTorch's negative-index wrap as Inductor writes it:
 * where(v < 0, v + m, v), where(v >= 0, v, v + m) and their mirrored
 * comparisons (0 > v, 0 <= v). The wrapped value v, with m in *m, or NULL. */
const Node *wrap_of(const Inst *in, const Node *n, int64_t *m)
{
	if (n->kind != N_OP || !dt_is_int(n->dt))
		return NULL;
	if (n->op == OP_WRAP)
		return const_value(in, n->args[1], m) ? n->args[0] : NULL;
	if (n->op != OP_WHERE)
		return NULL;
	const Node *c = n->args[0], *v;
	int64_t zero;
	if (c->kind != N_OP || c->nargs != 2)
		return NULL;
	bool neg; /* the condition holds for v < 0 */
	if (const_value(in, c->args[1], &zero) && zero == 0 && (c->op == OP_LT || c->op == OP_GE))
		v = c->args[0], neg = c->op == OP_LT;
	else if (const_value(in, c->args[0], &zero) && zero == 0 && (c->op == OP_GT || c->op == OP_LE))
		v = c->args[1], neg = c->op == OP_GT;
	else
		return NULL;
	const Node *plus = n->args[neg ? 1 : 2], *same = n->args[neg ? 2 : 1];
	return ast_equal(same, v) && plus_const(in, plus, v, m) && *m > 0 ? v : NULL;
}

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

/* A variable, or inside a fused let the consumer's subscript it stands for. */
static Sym *lower_var(Lower *l, const Var *v)
{
	for (const Env *e = l->env; e; e = e->up)
		for (int d = 0; d < e->let->nlhs; d++)
			if (e->let->lhs[d] == v) {
				const Env *save = l->env;
				l->env = e->up;
				Sym *r = lower_index(l, e->use->args[d]);
				l->env = save;
				return r;
			}
	if (l->lo)
		return sym_var(l->t, v->id, l->lo[v->id], l->hi[v->id], (void *)v);
	return sym_var(l->t, v->id, 0, l->in->n[v->id] - 1, (void *)v);
}

/* min, max and clamp of index expressions stay opaque, with the range
 * their operands give: clamp(j - 1, 0, 15) is in [0, 15]. */
static Sym *lower_bounded(Lower *l, Node *n)
{
	Sym *a[3] = {0};
	if (n->nargs < 2 || n->nargs > 3)
		return opaque(l, n);
	for (int i = 0; i < n->nargs; i++)
		if ((a[i] = lower_index(l, n->args[i]))->ovf)
			return opaque(l, n);
	int64_t lo = a[0]->lo, hi = a[0]->hi;
	for (int i = 1; i < n->nargs; i++) {
		bool up = n->op == OP_MAX || (n->op == OP_CLAMP && i == 1);
		lo = up == (a[i]->lo > lo) ? a[i]->lo : lo;
		hi = up == (a[i]->hi > hi) ? a[i]->hi : hi;
	}
	return sym_atom(l->t, l->natoms++, lo, hi, n);
}

static Sym *lower_op(Lower *l, Node *n)
{
	SymTab *t = l->t;
	Sym *a, *b, *r;
	switch (n->kind) {
	case N_INT:
		return sym_const(t, n->ival);
	case N_SIZE:
		return sym_const(t, l->in->size[n->sym]);
	case N_IVAR:
		return lower_var(l, n->var);
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
			if (!r && l->value)
				return opaque(l, n);
			if (!r)
				error_at(&l->in->diag, n->sp, "division by zero in an index expression");
			return r;
		case OP_WRAP:
			b = lower_index(l, n->args[1]);
			if (b->kind == S_CONST && b->c < 1)
				error_at(&l->in->diag, n->args[1]->sp, "wrap() needs a positive modulus, not %lld", (long long)b->c);
			if (b->kind == S_CONST)
				return lower_wrap(l, n, n->args[0], b->c);
			break;
		case OP_MIN:
		case OP_MAX:
		case OP_CLAMP:
			return lower_bounded(l, n);
		case OP_WHERE: {
			int64_t m;
			const Node *v = wrap_of(l->in, n, &m);
			if (v)
				return lower_wrap(l, n, (Node *)v, m);
			break;
		}
		}
		break;
	}
	return opaque(l, n);
}

/* ---- range checks ---- */

/* Exact evaluation of an index expression without loads at a point. */
static int eval_node(const Node *n, const int64_t *val, int64_t *out)
{
	int64_t a, b = 0;
	int e;
	switch (n->kind) {
	case N_INT: *out = n->ival; return SYM_OK;
	case N_IVAR: *out = val[n->var->id]; return SYM_OK;
	case N_OP: break;
	default: return -1; /* not evaluable here */
	}
	if (n->op != OP_NEG && n->op != OP_ADD && n->op != OP_SUB && n->op != OP_MUL && n->op != OP_FLOORDIV &&
	    n->op != OP_MOD)
		return -1;
	if ((e = eval_node(n->args[0], val, &a)))
		return e;
	if (n->op != OP_NEG && (e = eval_node(n->args[1], val, &b)))
		return e;
	return int_op(n->op, a, b, out);
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
	const int64_t *ext = l->in->n;
	for (int i = 0; i < nv; i++)
		if (ext[vars[i]->id] == 0)
			return; /* an empty domain */
	int64_t *val = arena_alloc(&l->in->arena, (size_t)(l->in->k->vars.n + 1) * sizeof *val), out;
	for (int c = 0; c < 1 << nv; c++) {
		for (int i = 0; i < nv; i++)
			val[vars[i]->id] = (c >> i) & 1 ? ext[vars[i]->id] - 1 : 0;
		if (eval_node(n, val, &out) != SYM_EOVF)
			continue;
		char pt[256] = "";
		for (int i = 0, len = 0; i < nv && len < (int)sizeof pt; i++)
			len += snprintf(pt + len, sizeof pt - (size_t)len, "%s%s=%lld", i ? ", " : "", vars[i]->name,
			                (long long)val[vars[i]->id]);
		error_at(&l->in->diag, n->sp, "index arithmetic overflows 64 bits%s%s", nv ? " at " : "", pt);
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
		if (__builtin_mul_overflow(total, p->vars[i]->hi - p->vars[i]->lo + 1, &total))
			total = INT64_MAX;
	for (int pass = 0; pass < 2; pass++) {
		int64_t count = pass == 0 ? (int64_t)1 << (p->nv < 12 ? p->nv : 12) : total;
		if (pass == 1 && total > 65536)
			break;
		for (int64_t c = 0; c < count; c++) {
			int64_t rest = c;
			for (int i = 0; i < p->nv; i++) {
				int64_t ext = p->vars[i]->hi - p->vars[i]->lo + 1;
				if (pass == 0) {
					p->val[i] = (rest & 1) ? p->vars[i]->hi : p->vars[i]->lo;
					rest >>= 1;
				} else {
					p->val[i] = p->vars[i]->lo + rest % ext;
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
		ast_print(b, s->p);
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
	Diag *c = &l->in->diag;
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

/* ---- guards: the ranges a where() condition leaves ---- */

/* The guard of argument i of n, evaluated under g. */
const Guard *guard_child(Arena *a, const Node *n, int i, const Guard *g, const Env *env)
{
	bool branch = n->kind == N_OP && n->op == OP_WHERE && i > 0;
	bool right = n->kind == N_OP && (n->op == OP_AND || n->op == OP_OR) && i == 1;
	if (!branch && !right)
		return g;
	Guard *h = arena_alloc(a, sizeof *h);
	*h = (Guard){g, n->args[0], branch ? i == 2 : n->op == OP_OR, env};
	return h;
}

/* The guard of every load of an expression in its own statement, by load id. */
static void load_guards(Arena *a, const Node *n, const Guard *g, const Guard **out)
{
	if (n->kind == N_LOAD || n->kind == N_FLAT)
		out[n->load_id] = g;
	for (int i = 0; i < n->nargs; i++)
		load_guards(a, n->args[i], guard_child(a, n, i, g, NULL), out);
}

static int negate_cmp(int op)
{
	switch (op) {
	case OP_LT: return OP_GE;
	case OP_LE: return OP_GT;
	case OP_GT: return OP_LE;
	case OP_GE: return OP_LT;
	case OP_EQ: return OP_NE;
	default: return OP_EQ;
	}
}

/* ceil(a / b), b != 0, |a|, |b| < 2^62 */
static int64_t ceil_div(int64_t a, int64_t b)
{
	int64_t q = floordiv64(a, b);
	return q * b == a ? q : q + 1;
}

/* c0 + k·v rel 0 narrows [*lo, *hi]; false when it is no such bound. */
static bool bound_var(int rel, int64_t c0, int64_t k, int64_t *lo, int64_t *hi)
{
	const int64_t big = (int64_t)1 << 62;
	if (c0 <= -big || c0 >= big || k <= -big || k >= big || k == 0 || rel == OP_NE)
		return false;
	int64_t r = -c0, upper = INT64_MAX, lower = INT64_MIN; /* of k·v */
	if (rel == OP_LT || rel == OP_LE || rel == OP_EQ)
		upper = rel == OP_LT ? r - 1 : r;
	if (rel == OP_GT || rel == OP_GE || rel == OP_EQ)
		lower = rel == OP_GT ? r + 1 : r;
	if (upper != INT64_MAX) {
		int64_t b = k > 0 ? floordiv64(upper, k) : ceil_div(upper, k);
		if (k > 0 && b < *hi)
			*hi = b;
		if (k < 0 && b > *lo)
			*lo = b;
	}
	if (lower != INT64_MIN) {
		int64_t b = k > 0 ? ceil_div(lower, k) : floordiv64(lower, k);
		if (k > 0 && b > *lo)
			*lo = b;
		if (k < 0 && b < *hi)
			*hi = b;
	}
	return true;
}

/* Narrows the ranges by condition c (negated when neg): comparisons of an
 * index expression affine in one variable with a constant, joined by && (or
 * negated ||). Anything else clears *exact: the guard is more than a box. */
static void guard_cond(Lower *l, const Node *c, bool neg, int64_t *lo, int64_t *hi, bool *exact)
{
	if (c->kind == N_OP && c->op == OP_NOT) {
		guard_cond(l, c->args[0], !neg, lo, hi, exact);
		return;
	}
	if (c->kind == N_OP && c->op == (neg ? OP_OR : OP_AND)) {
		guard_cond(l, c->args[0], neg, lo, hi, exact);
		guard_cond(l, c->args[1], neg, lo, hi, exact);
		return;
	}
	if (c->kind == N_BOOL && c->ival == !neg)
		return; /* always true */
	if (c->kind != N_OP || op_info[c->op].kind != K_CMP || !dt_is_int(c->args[0]->dt) || !dt_is_int(c->args[1]->dt)) {
		*exact = false;
		return;
	}
	Sym *d = sym_sub(l->t, lower_index(l, c->args[0]), lower_index(l, c->args[1]));
	const Sym *v = d->kind == S_VAR ? d : d->kind == S_ADD && d->n == 1 && d->a[0]->kind == S_VAR ? d->a[0] : NULL;
	int64_t c0 = d->kind == S_ADD ? d->c : 0, k = d->kind == S_ADD ? d->k[0] : 1;
	const Var *var = v ? v->p : NULL;
	if (!var || d->ovf || !bound_var(neg ? negate_cmp(c->op) : c->op, c0, k, &lo[var->id], &hi[var->id]))
		*exact = false;
}

/* The box of variable ranges guard g leaves (in *lo, *hi, by Var id).
 * True when it narrows some variable; *exact when the guard is that box. */
static bool guard_box(Inst *in, const Guard *g, int64_t **lo, int64_t **hi, bool *exact)
{
	int nv = in->k->vars.n;
	*exact = true;
	if (!g)
		return false;
	*lo = arena_alloc(&in->arena, (size_t)(nv + 1) * sizeof **lo);
	*hi = arena_alloc(&in->arena, (size_t)(nv + 1) * sizeof **hi);
	for (int i = 0; i < nv; i++)
		(*lo)[i] = 0, (*hi)[i] = in->n[i] - 1;
	for (; g; g = g->up) {
		Lower l = {in, symtab_new(&in->arena, true), 0, false, true, g->env, NULL, NULL};
		guard_cond(&l, g->cond, g->neg, *lo, *hi, exact);
	}
	bool narrowed = false;
	for (int i = 0; i < nv; i++)
		narrowed |= (*lo)[i] != 0 || (*hi)[i] != in->n[i] - 1;
	return narrowed;
}

/* Is the box empty: the guarded expression is never evaluated? Only the
 * ranges the guard narrowed count: a variable of extent 0 is another
 * statement's (or its statement is empty, and never run). */
static bool box_empty(const Inst *in, const int64_t *lo, const int64_t *hi)
{
	for (int i = 0; i < in->k->vars.n; i++)
		if (lo[i] > hi[i] && (lo[i] != 0 || hi[i] != in->n[i] - 1))
			return true;
	return false;
}

/* ---- loads and stores ---- */

static Sym *lower_load(Lower *l, const Node *n, bool check)
{
	const Tensor *t = n->t;
	const Layout *lay = tensor_layout(l->in, t);
	SymTab *st = l->t;
	if (n->kind == N_FLAT)
		return sym_add(st, sym_const(st, lay->offset), lower_index(l, n->args[0]));
	Sym *off = sym_const(st, lay->offset);
	for (int d = 0; d < t->rank; d++) {
		Sym *s = lower_index(l, n->args[d]);
		if (check) {
			char what[96];
			snprintf(what, sizeof what, "subscript %d of '%s'", d, t->name);
			check_range(l, n->args[d], s, lay->shape[d], what);
		}
		if (sym_has_atom(s))
			s = sym_atom(st, l->natoms++, 0, lay->shape[d] - 1, n->args[d]);
		off = sym_add(st, off, sym_scale(st, s, lay->strides[d]));
	}
	return off;
}

static Sym *lower_store(Lower *l, const Stmt *s)
{
	if (s->at) { /* a scatter: the element it names, like a load's (checked where provable) */
		Sym *off = lower_load(l, s->at, l->check);
		if (s->at->kind == N_FLAT && l->check) {
			char what[96];
			snprintf(what, sizeof what, "flat offset into '%s'", s->t->name);
			check_range(l, s->at->args[0], off, tensor_layout(l->in, s->t)->storage, what);
		}
		return off;
	}
	SymTab *st = l->t;
	const Layout *lay = tensor_layout(l->in, s->t);
	Sym *off = sym_const(st, lay->offset);
	for (int d = 0; d < s->nlhs; d++)
		off = sym_add(st, off, sym_scale(st, lower_var(l, s->lhs[d]), lay->strides[d]));
	return off;
}

static void check_overflow(Inst *in, SymTab *t)
{
	if (t->overflow)
		error_at(&in->diag, in->k->sp, "an index expression of kernel '%s' overflows 64 bits", in->k->name);
}

/* A load in its own statement, over the ranges its guard leaves; with a
 * guard that is more than a box, or that no point satisfies, nothing about
 * it is provable: the run-time checks decide. */
static Sym *lower_own_load(Lower *l, Node *n, const Guard *g, bool raw)
{
	Lower lg = *l;
	int64_t *lo, *hi;
	bool exact;
	if (guard_box(l->in, g, &lo, &hi, &exact)) {
		lg.t = symtab_new(&l->in->arena, !raw);
		lg.check = !raw && exact && !box_empty(l->in, lo, hi);
		if (!box_empty(l->in, lo, hi))
			lg.lo = lo, lg.hi = hi;
	} else if (!exact) {
		lg.check = false;
	}
	Sym *off = lower_load(&lg, n, lg.check);
	if (n->kind == N_FLAT && lg.check) {
		char what[96];
		snprintf(what, sizeof what, "flat offset into '%s'", n->t->name);
		check_range(&lg, n, off, tensor_layout(l->in, n->t)->storage, what);
	}
	if (lg.t != l->t && lg.check)
		check_overflow(l->in, lg.t);
	l->natoms = lg.natoms;
	return off;
}

/* A roll: a term (±v + c) % n of the offset whose argument wraps once
 * over v's range [lo, hi] (torch.roll: (j + 13) % 16; the simplified form
 * of (c - j) % n is ((n - 1)·j + c) % n). Returns v, and in *t the value
 * it wraps at: the term is affine for v < t and for v >= t. */
static const Var *roll_point(const Sym *s, const int64_t *lo, const int64_t *hi, int64_t *t)
{
	const Sym *a = s->kind == S_MOD ? s->a[0] : NULL;
	if (a && s->a[1]->kind == S_CONST && s->a[1]->c > 1 && a->kind == S_ADD && a->n == 1 && a->a[0]->kind == S_VAR) {
		int64_t n = s->a[1]->c, amin, amax, kk = floormod64(a->k[0], n);
		if (kk == 1 || kk == n - 1) {
			const Var *v = a->a[0]->p;
			int64_t k = kk == 1 ? 1 : -1, c = a->c, vl = lo[v->id], vh = hi[v->id];
			bool ok = k > 0 ? i64_add(vl, c, &amin) && i64_add(vh, c, &amax)
			                : i64_sub(c, vh, &amin) && i64_sub(c, vl, &amax);
			if (ok && vl < vh && floordiv64(amax, n) == floordiv64(amin, n) + 1) {
				int64_t m = floordiv64(amax, n) * n;
				*t = k > 0 ? m - c : c - m + 1;
				return v;
			}
		}
	}
	for (int i = 0; i < s->n && s->kind != S_VAR && s->kind != S_ATOM; i++) {
		const Var *v = roll_point(s->a[i], lo, hi, t);
		if (v)
			return v;
	}
	return NULL;
}

/* The offsets of a rolled load over the two pieces of v's range [lo, hi]
 * (the box of its guard, or every variable's extent). */
static void roll_pieces(Lower *l, Access *ac, const int64_t *lo, const int64_t *hi)
{
	Inst *in = l->in;
	int nv = in->k->vars.n;
	int64_t t, *blo = NULL, *bhi = NULL;
	if (!lo) {
		blo = arena_alloc(&in->arena, (size_t)(nv + 1) * sizeof *blo);
		bhi = arena_alloc(&in->arena, (size_t)(nv + 1) * sizeof *bhi);
		for (int i = 0; i < nv; i++)
			blo[i] = 0, bhi[i] = in->n[i] - 1;
		lo = blo, hi = bhi;
	}
	const Sym *off = ac->moff ? ac->moff : ac->off;
	const Var *v = sym_has_atom(off) ? NULL : roll_point(off, lo, hi, &t);
	for (int p = 0; v && p < 2; p++) {
		int64_t *plo = arena_alloc(&in->arena, (size_t)(nv + 1) * sizeof *plo);
		int64_t *phi = arena_alloc(&in->arena, (size_t)(nv + 1) * sizeof *phi);
		memcpy(plo, lo, (size_t)nv * sizeof *plo);
		memcpy(phi, hi, (size_t)nv * sizeof *phi);
		*(p ? &plo[v->id] : &phi[v->id]) = p ? t : t - 1;
		Lower la = *l;
		la.t = symtab_new(&in->arena, true);
		la.lo = plo, la.hi = phi;
		ac->roff[p] = lower_load(&la, ac->load, false);
		l->natoms = la.natoms;
	}
}

/* An access of a planned statement; a guarded load also over the box its
 * guard leaves, for the analysis to fall back on (a pad: x.flat[j - 1]
 * where j >= 1), and a rolled one over its two pieces. */
static void lower_access(Lower *l, Access *ac, Sym *store, bool raw)
{
	l->env = ac->env;
	*(raw ? &ac->raw : &ac->off) = ac->load ? lower_load(l, ac->load, false) : store;
	int64_t *lo, *hi;
	bool boxed = ac->load && guard_box(l->in, ac->guard, &lo, &hi, &ac->exact);
	ac->never = boxed && box_empty(l->in, lo, hi);
	ac->moff = NULL;
	if (boxed && !ac->never && !raw) {
		Lower la = *l;
		la.t = symtab_new(&l->in->arena, true);
		la.lo = lo, la.hi = hi;
		ac->moff = lower_load(&la, ac->load, false);
		l->natoms = la.natoms;
	}
	ac->roff[0] = ac->roff[1] = NULL;
	if (ac->load && !ac->never && !raw)
		roll_pieces(l, ac, boxed ? lo : NULL, boxed ? hi : NULL);
	l->env = NULL;
}

void lower_inst(Inst *in, bool raw)
{
	Kernel *k = in->k;
	Arena *a = &in->arena;
	int nl = k->loads.n, ns = k->stmts.n;
	Sym **loads = arena_alloc(a, (size_t)(nl + 1) * sizeof(Sym *));
	Sym **stores = arena_alloc(a, (size_t)(ns + 1) * sizeof(Sym *));
	Lower l = {in, symtab_new(a, !raw), 0, !raw, false, NULL, NULL, NULL};
	const Guard **guard = arena_alloc(a, (size_t)(nl + 1) * sizeof *guard);
	for (int i = 0; i < ns; i++) {
		const Stmt *s = k->stmts.v[i];
		load_guards(a, s->rhs, NULL, guard);
		for (int d = 0; s->at && d < s->at->nargs; d++)
			load_guards(a, s->at->args[d], NULL, guard);
	}
	for (int i = 0; i < nl; i++)
		loads[i] = lower_own_load(&l, k->loads.v[i], guard[i], raw);
	for (int i = 0; i < ns; i++)
		stores[i] = lower_store(&l, k->stmts.v[i]);
	for (int p = 0; p < in->nplanned; p++) {
		Planned *ps = &in->planned[p];
		for (int j = 0; j < ps->acc.n; j++)
			lower_access(&l, ps->acc.v[j], stores[ps->index], raw);
	}
	check_overflow(in, l.t);
	if (raw) {
		in->load_raw = loads;
		in->store_raw = stores;
	} else {
		in->load_off = loads;
		in->store_off = stores;
	}
}

/* ---- valid index values ---- */

static bool is_load_of(const Node *n, const Tensor *p)
{
	return (n->kind == N_LOAD || n->kind == N_FLAT) && n->t == p;
}

/* Narrows [*lo, *hi], the values a use may take (a dim's [0, n), or what
 * keeps a flat offset in its storage), to those of p itself when the use is
 * p's load or a wrap of it (either spelling): wrapped by m, [-m, m) when all
 * of [0, m) is valid, else the non-negative part. False for other uses. */
static bool use_range(const Inst *in, const Node *use, const Tensor *p, int64_t *lo, int64_t *hi)
{
	int64_t m = 0;
	const Node *v = wrap_of(in, use, &m);
	if (!v)
		v = use, m = 0;
	if (!is_load_of(v, p))
		return false;
	if (m) {
		*lo = *lo <= 0 && *hi >= m - 1 ? -m : *lo > 0 ? *lo : 0;
		*hi = *hi < m - 1 ? *hi : m - 1;
	}
	return true;
}

int lower_index_range(const Inst *in, const Tensor *p, int64_t *lo, int64_t *hi)
{
	const Kernel *k = in->k;
	int64_t rlo = INT64_MIN, rhi = INT64_MAX;
	bool found = false;
	for (int i = 0; i < k->loads.n + k->stmts.n; i++) { /* the loads, then the scatters' elements */
		const Stmt *s = i < k->loads.n ? NULL : k->stmts.v[i - k->loads.n];
		if (s && !s->at)
			continue;
		const Node *n = s ? s->at : k->loads.v[i];
		const Sym *e = s ? in->store_off[i - k->loads.n] : in->load_off[n->load_id];
		int64_t l, h;
		for (int j = 0; n->kind == N_FLAT && e->kind == S_ADD && j < e->n; j++)
			if (e->a[j]->kind == S_ATOM && sym_term_range(e, j, tensor_layout(in, n->t)->storage - 1, &l, &h) &&
			    use_range(in, e->a[j]->p, p, &l, &h)) {
				rlo = l > rlo ? l : rlo;
				rhi = h < rhi ? h : rhi;
				found = true;
			}
		for (int d = 0; d < n->nargs && n->kind == N_LOAD; d++) {
			int64_t ext = tensor_layout(in, n->t)->shape[d];
			l = 0, h = ext - 1;
			if (!use_range(in, n->args[d], p, &l, &h))
				continue;
			rlo = l > rlo ? l : rlo;
			rhi = h < rhi ? h : rhi;
			found = true;
		}
	}
	if (found)
		*lo = rlo, *hi = rhi;
	return found ? 0 : -1;
}
