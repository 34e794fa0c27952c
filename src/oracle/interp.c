/* Reference interpreter: evaluates a compiled kernel element by element,
 * straight from the language's definition (subscripts and layouts, not the
 * lowered offsets), so it can serve as the oracle for every backend. It does
 * cross-check each load against its lowered, simplified offset: a mismatch is
 * a compiler bug and aborts.
 *
 * Values are base/scalar.c's (the semantics of one value, which every
 * evaluator shares and tests/test_scalar.py checks against NumPy on its
 * own); everything structural (subscripts, layouts' addressing, loops,
 * lets, guards) is this file's own. Subscripts are evaluated exactly in
 * 64 bits. */
#include <math.h>
#include <string.h>

#include "oracle.h"

typedef struct {
	const Inst *in;
	const Kernel *k;
	Diag *d;
	void *const *storage; /* per parameter */
	void **lets;          /* per let: its row-major buffer */
	int64_t *env;         /* per variable: its current value */
	int64_t *ext;         /* per variable: its extent */
	Layout *lay;          /* per parameter, then per let: as this file reads the bindings */
	Stmt *stmt;
	int stmt_index;
} Interp;

static Val eval(Interp *in, Node *n);
static int64_t eval_index(Interp *in, Node *n);
static int64_t element_offset(Interp *in, Node *n, const Sym *lowered);

/* ---- the bindings, read on its own ---- */

/* The interpreter takes from the instance only what the caller bound: the
 * sizes, and the strides and offset given at run time for a parameter that
 * declares none. The rest it derives itself from the checked kernel: a
 * dim's value, an index variable's extent, a tensor's strides (declared,
 * given or row-major), its offset and the storage it spans. None of it
 * comes from bind.c, whose layouts the lowering and the backends use; the
 * compile passes have already refused a layout that overflows or reaches
 * outside its storage. */
static int64_t dim_value(const Inst *in, Dim d)
{
	return d.sym < 0 ? d.val : in->size[d.sym];
}

static int64_t layout_value(const Inst *in, const Node *e)
{
	int64_t a, b = 0, r;
	switch (e->kind) {
	case N_INT:
		return e->ival;
	case N_SIZE:
		return in->size[e->sym];
	case N_OP:
		a = layout_value(in, e->args[0]);
		if (e->op != OP_NEG)
			b = layout_value(in, e->args[1]);
		if (int_op(e->op, a, b, &r) != SYM_OK)
			die("a layout the compile passes accepted does not evaluate");
		return r;
	}
	die("bad layout expression");
}

static void read_layout(const Inst *inst, const Tensor *t, const Layout *given, Layout *l)
{
	int64_t numel = 1, hi = 0;
	for (int d = t->rank - 1; d >= 0; d--) {
		l->shape[d] = dim_value(inst, t->dims[d]);
		l->strides[d] = given ? given->strides[d] : t->has_strides ? layout_value(inst, t->stride_ex[d]) : numel;
		numel *= l->shape[d];
	}
	l->offset = given ? given->offset : t->offset_ex ? layout_value(inst, t->offset_ex) : 0;
	for (int d = 0; d < t->rank; d++)
		if (l->strides[d] > 0)
			hi += l->strides[d] * (l->shape[d] - 1);
	l->storage = numel > 0 ? l->offset + hi + 1 : 0;
}

static void read_bindings(Interp *in, Arena *scratch)
{
	const Inst *inst = in->in;
	const Kernel *k = in->k;
	in->ext = arena_alloc(scratch, (size_t)(k->vars.n + 1) * sizeof *in->ext);
	for (int i = 0; i < k->vars.n; i++) {
		const Var *v = k->vars.v[i];
		in->ext[v->id] = dim_value(inst, v->ext);
	}
	in->lay = arena_alloc(scratch, (size_t)(k->params.n + k->lets.n + 1) * sizeof *in->lay);
	for (int i = 0; i < k->params.n; i++) /* inst->lay[i]: a layout given at run time, as given */
		read_layout(inst, k->params.v[i], inst->given[i] ? &inst->lay[i] : NULL, &in->lay[i]);
	for (int i = 0; i < k->lets.n; i++)
		read_layout(inst, k->lets.v[i], NULL, &in->lay[k->params.n + i]);
}

static const Layout *layout_of(const Interp *in, const Tensor *t)
{
	return &in->lay[t->role == ROLE_LET ? in->k->params.n + t->index : t->index];
}

/* ---- errors ---- */

/* "out[3, 0]": the element being computed. */
static void where_str(Interp *in, char *s, size_t n)
{
	Stmt *st = in->stmt;
	int len = snprintf(s, n, "%s[", st->t->name);
	for (int d = 0; d < st->nlhs && len > 0 && (size_t)len < n; d++) /* a scatter's point: s=3 */
		len += snprintf(s + len, n - (size_t)len, "%s%s%s%lld", d ? ", " : "", st->at ? st->lhs[d]->name : "",
		                st->at ? "=" : "", (long long)in->env[st->lhs[d]->id]);
	if (len > 0 && (size_t)len < n)
		snprintf(s + len, n - (size_t)len, "]");
}

static _Noreturn void run_error(Interp *in, Node *at, const char *fmt, ...)
{
	char msg[512], pos[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	where_str(in, pos, sizeof pos);
	error_at(in->d, at->sp, "kernel %s: %s at %s", in->k->name, msg, pos);
}

/* ---- arithmetic ---- */

/* wrap(i, m) needs m >= 1: with m <= 0 no index is valid, and -m need not
 * fit in 64 bits (the error message names [-m, m)). */
static void check_modulus(Interp *in, Node *n, int64_t m)
{
	if (m < 1)
		run_error(in, n->args[1], "wrap() needs a positive modulus, not %lld", (long long)m);
}

static Val eval_op(Interp *in, Node *n)
{
	Val v[3];
	DType t = n->opdt;
	const struct OpInfo *oi = &op_info[n->op];
	if (oi->kind == K_LOGIC) {
		bool a = val_truth(eval(in, n->args[0]), n->args[0]->dt);
		if (n->op == OP_NOT)
			return (Val){.i = !a};
		if (n->op == OP_AND ? !a : a) /* short-circuit */
			return (Val){.i = a};
		return (Val){.i = val_truth(eval(in, n->args[1]), n->args[1]->dt)};
	}
	if (n->op == OP_WHERE) {
		Node *pick = val_truth(eval(in, n->args[0]), n->args[0]->dt) ? n->args[1] : n->args[2];
		return val_convert(eval(in, pick), pick->dt, t);
	}
	if (oi->kind == K_PRED)
		return val_op(n->op, n->args[0]->dt, (Val[]){eval(in, n->args[0])});
	for (int i = 0; i < n->nargs; i++)
		v[i] = val_convert(eval(in, n->args[i]), n->args[i]->dt, t);
	if (n->op == OP_WRAP)
		check_modulus(in, n, v[1].i);
	return val_op(n->op, t, v);
}

/* ---- loads ---- */

static int leaf_value(void *env, const Sym *s, int64_t *out)
{
	Interp *in = env;
	*out = s->kind == S_VAR ? in->env[s->c] : eval_index(in, s->p);
	return SYM_OK;
}

static int64_t load_offset(Interp *in, Node *n)
{
	return element_offset(in, n, in->in->load_off ? in->in->load_off[n->load_id] : NULL);
}

/* The storage element n names (a load, or a scatter's element written),
 * checked against the tensor's dims or storage, and cross-checked against
 * its lowered offset when there is one. */
static int64_t element_offset(Interp *in, Node *n, const Sym *lowered)
{
	Tensor *t = n->t;
	const Layout *l = layout_of(in, t);
	int64_t off = l->offset, x;
	if (n->kind == N_FLAT) {
		int64_t e = eval_index(in, n->args[0]);
		if (!i64_add(off, e, &off) || off < 0 || off >= l->storage)
			run_error(in, n->args[0], "flat offset %lld (storage element %lld) is out of range for the storage of '%s' (%lld elements)",
			          (long long)e, (long long)(l->offset + e), t->name, (long long)l->storage);
	} else {
		for (int d = 0; d < t->rank; d++) {
			Node *s = n->args[d];
			int64_t i = eval_index(in, s);
			if ((i < 0 || i >= l->shape[d]) && s->kind == N_OP && s->op == OP_WRAP) {
				int64_t raw = eval_index(in, s->args[0]), m = eval_index(in, s->args[1]);
				run_error(in, s, "index %lld out of range for dim %d of '%s' (size %lld; wrap() accepts [%lld, %lld))",
				          (long long)raw, d, t->name, (long long)l->shape[d], (long long)-m, (long long)m);
			}
			if (i < 0 || i >= l->shape[d])
				run_error(in, s, "index %lld out of range for dim %d of '%s' (size %lld)", (long long)i, d, t->name,
				          (long long)l->shape[d]);
			off += l->strides[d] * i; /* in range: the layout check bounds it */
		}
	}
	if (lowered && (sym_eval(lowered, leaf_value, in, &x) || x != off))
		die("lowered offset disagrees with the reference interpreter");
	return off;
}

static Val load(Interp *in, Node *n)
{
	Tensor *t = n->t;
	int64_t off = load_offset(in, n);
	const void *base = t->role == ROLE_LET ? in->lets[t->index] : in->storage[t->index];
	if (dt_is_float(t->dt))
		return (Val){.f = dt_load_f(base, t->dt, off)};
	return (Val){.i = dt_load_i(base, t->dt, off)};
}

/* ---- index expressions: exact 64-bit integers ---- */

/* Index arithmetic is exact: an overflow or a division by zero is an error. */
static int64_t eval_index(Interp *in, Node *n)
{
	int64_t a, b = 0, r;
	if (n->kind != N_OP || !dt_is_int(n->dt))
		return val_convert(eval(in, n), n->dt, ATHENE_I64).i;
	switch (n->op) {
	case OP_NEG:
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
	case OP_FLOORDIV:
	case OP_MOD:
	case OP_WRAP:
		a = eval_index(in, n->args[0]);
		if (n->op != OP_NEG)
			b = eval_index(in, n->args[1]);
		break;
	default:
		return eval(in, n).i;
	}
	if (n->op == OP_WRAP)
		check_modulus(in, n, b);
	if (n->op == OP_WRAP && a >= 0)
		return a;
	switch (int_op(n->op == OP_WRAP ? OP_ADD : n->op, a, b, &r)) {
	case SYM_EOVF: run_error(in, n, "index arithmetic overflows 64 bits");
	case SYM_EDIV0: run_error(in, n, "division by zero in an index");
	}
	return r;
}

/* ---- reductions ---- */


/* Is any of the n variables empty (then so is the loop nest over them,
 * however large the others: never walk an outer extent of 2^62 over an
 * empty inner one)? */
static bool any_empty(const Interp *in, Var *const *vars, int n)
{
	for (int d = 0; d < n; d++)
		if (in->ext[vars[d]->id] == 0)
			return true;
	return false;
}

static void reduce_loop(Interp *in, Node *n, int v, Red *r)
{
	if (v == n->nrvars) {
		red_step(r, eval(in, n->args[0]));
		return;
	}
	Var *var = n->rvars[v];
	for (int64_t i = 0; i < in->ext[var->id]; i++) {
		in->env[var->id] = i;
		reduce_loop(in, n, v + 1, r);
	}
}

static Val reduce(Interp *in, Node *n)
{
	Red r;
	Val v;
	red_init(&r, n->op, n->args[0]->dt);
	if (!any_empty(in, n->rvars, n->nrvars))
		reduce_loop(in, n, 0, &r);
	if (!red_result(&r, n->dt, &v))
		run_error(in, n, "%s over an empty range", n->name);
	return v;
}

static Val eval(Interp *in, Node *n)
{
	switch (n->kind) {
	case N_INT:
	case N_BOOL:
		return (Val){.i = n->ival};
	case N_FLOAT:
		return (Val){.f = n->fval};
	case N_IVAR:
		return (Val){.i = in->env[n->var->id]};
	case N_SIZE:
		return (Val){.i = in->in->size[n->sym]};
	case N_LOAD:
	case N_FLAT:
		return load(in, n);
	case N_CAST:
		return val_convert(eval(in, n->args[0]), n->args[0]->dt, n->dt);
	case N_BITCAST:
		return val_bitcast(eval(in, n->args[0]), n->args[0]->dt, n->dt);
	case N_OP:
		return eval_op(in, n);
	case N_REDUCE:
		return reduce(in, n);
	}
	die("unexpected node in interp");
}

/* ---- statements ---- */

static void store(Interp *in, Stmt *s, Val v)
{
	Tensor *t = s->t;
	const Layout *l = layout_of(in, t);
	int64_t off = l->offset;
	for (int d = 0; d < s->nlhs; d++)
		off += l->strides[d] * in->env[s->lhs[d]->id];
	void *base = t->role == ROLE_LET ? in->lets[t->index] : in->storage[t->index];
	if (dt_is_float(s->rhs->dt))
		dt_store_f(base, t->dt, off, v.f);
	else
		dt_store_i(base, t->dt, off, v.i);
}

static void stmt_loop(Interp *in, Stmt *s, int d)
{
	if (d == s->nlhs) {
		store(in, s, eval(in, s->rhs));
		return;
	}
	Var *v = s->lhs[d];
	for (int64_t i = 0; i < in->ext[v->id]; i++) {
		in->env[v->id] = i;
		stmt_loop(in, s, d + 1);
	}
}

/* A scatter: every point's element and value first (an error there leaves
 * the output untouched), then the stores in row-major point order; with
 * +=, each adds its value to the element, converted to the output's dtype,
 * in that dtype. */
typedef struct {
	int64_t n, *off;
	Val *val;
} Scattered;

static void scatter_loop(Interp *in, Stmt *s, int d, Scattered *sc)
{
	if (d == s->nlhs) {
		const Sym *lowered = in->in->store_off ? in->in->store_off[in->stmt_index] : NULL;
		sc->off[sc->n] = element_offset(in, s->at, lowered);
		sc->val[sc->n++] = val_convert(eval(in, s->rhs), s->rhs->dt, s->t->dt);
		return;
	}
	Var *v = s->lhs[d];
	for (int64_t i = 0; i < in->ext[v->id]; i++) {
		in->env[v->id] = i;
		scatter_loop(in, s, d + 1, sc);
	}
}

static void scatter(Interp *in, Stmt *s, Arena *scratch)
{
	Scattered sc = {0};
	int64_t npts = 1, bytes;
	bool fits = true;
	for (int d = 0; d < s->nlhs; d++)
		fits &= i64_mul(npts, in->ext[s->lhs[d]->id], &npts);
	if (!fits || !i64_mul(npts, (int64_t)(sizeof *sc.off + sizeof *sc.val), &bytes) || (uint64_t)bytes >= SIZE_MAX / 2 ||
	    !(sc.off = arena_try_alloc(scratch, (size_t)npts * sizeof *sc.off + 1)) ||
	    !(sc.val = arena_try_alloc(scratch, (size_t)npts * sizeof *sc.val + 1)))
		error_at(in->d, s->sp, "kernel %s: cannot allocate the points of the scatter into '%s'", in->k->name, s->t->name);
	scatter_loop(in, s, 0, &sc);
	void *base = in->storage[s->t->index];
	DType dt = s->t->dt;
	for (int64_t q = 0; q < sc.n; q++) {
		Val v = sc.val[q];
		if (s->accum) {
			Val old = dt_is_float(dt) ? (Val){.f = dt_load_f(base, dt, sc.off[q])} : (Val){.i = dt_load_i(base, dt, sc.off[q])};
			v = val_op(OP_ADD, dt, (Val[]){old, v});
		}
		if (dt_is_float(dt))
			dt_store_f(base, dt, sc.off[q], v.f);
		else
			dt_store_i(base, dt, sc.off[q], v.i);
	}
}

void interp_run(const Inst *inst, void *const *storage, Diag *d, Arena *scratch)
{
	const Kernel *k = inst->k;
	Interp in = {inst, k, d, storage, NULL, NULL, NULL, NULL, NULL, 0};
	read_bindings(&in, scratch);
	in.env = arena_alloc(scratch, (size_t)(k->vars.n + 1) * sizeof *in.env);
	in.lets = arena_alloc(scratch, (size_t)(k->lets.n + 1) * sizeof *in.lets);
	for (int i = 0; i < k->lets.n; i++) {
		Tensor *t = k->lets.v[i];
		int64_t bytes;
		if (!i64_mul(layout_of(&in, t)->storage, (int64_t)athene_dtype_size(t->dt), &bytes))
			error_at(d, t->def->sp, "the intermediate '%s' needs more than 2^63 bytes", t->name);
		if (!(in.lets[i] = arena_try_alloc(scratch, (size_t)bytes)))
			error_at(d, t->def->sp, "cannot allocate %lld bytes for the intermediate '%s'", (long long)bytes, t->name);
	}
	for (int i = 0; i < k->stmts.n; i++) {
		in.stmt = k->stmts.v[i];
		in.stmt_index = i;
		if (any_empty(&in, in.stmt->lhs, in.stmt->nlhs))
			continue;
		if (in.stmt->at)
			scatter(&in, in.stmt, scratch);
		else
			stmt_loop(&in, in.stmt, 0);
	}
}
