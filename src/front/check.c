/* Checker: resolves names, types every expression (NumPy/PyTorch promotion,
 * weak literals), infers the ranges of reduction and 'let' variables, and
 * rejects subscripts out of bounds for every size. The AST is rewritten in
 * place: names become variables, size symbols or loads; calls become ops or
 * casts. After this the kernel is read-only. Errors unwind through the
 * context's diagnostics (one per kernel). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

#define DEFAULT_FLOAT ATHENE_F32

typedef struct {
	Kernel *k;
	Ctx *c;
	Var *scope[64];
	int nscope;
	Stmt *stmt; /* statement being checked */
	int nstmt;  /* its position: lets defined before it are visible */
} Checker;

static Var *new_var(Checker *ck, const char *name, Span sp, int kind)
{
	Var *v = arena_alloc(&ck->c->arena, sizeof *v);
	v->name = name;
	v->sp = sp;
	v->kind = kind;
	v->id = ck->k->vars.n;
	vec_push(&ck->c->arena, &ck->k->vars, v);
	return v;
}

static Tensor *find_let(Checker *ck, const char *name)
{
	for (int i = 0; i < ck->k->lets.n; i++) {
		Tensor *t = ck->k->lets.v[i];
		if (!strcmp(t->name, name))
			return t;
	}
	return NULL;
}

static Var *find_var(Checker *ck, const char *name)
{
	for (int i = ck->nscope - 1; i >= 0; i--)
		if (!strcmp(ck->scope[i]->name, name))
			return ck->scope[i];
	return NULL;
}

static bool reserved(const char *name)
{
	return !strcmp(name, "inf") || !strcmp(name, "nan");
}

static void push_var(Checker *ck, Var *v)
{
	if (reserved(v->name))
		error_at(&ck->c->diag, v->sp, "'%s' is a literal and cannot name an index variable", v->name);
	if (find_var(ck, v->name))
		error_at(&ck->c->diag, v->sp, "index variable '%s' is already in use here", v->name);
	if (kernel_param(ck->k, v->name) || find_let(ck, v->name) || find_sym(ck->k, v->name) >= 0)
		error_at(&ck->c->diag, v->sp, "index variable '%s' has the name of a tensor or size symbol", v->name);
	if (ck->nscope == 64)
		error_at(&ck->c->diag, v->sp, "too many nested index variables");
	ck->scope[ck->nscope++] = v;
}

static const char *dim_str(Checker *ck, Dim d)
{
	if (d.sym >= 0)
		return ck->k->syms[d.sym].name;
	char *s = arena_alloc(&ck->c->arena, 24);
	snprintf(s, 24, "%lld", (long long)d.val);
	return s;
}

static void add_agree(Checker *ck, Dim a, Dim b, Span sp, const char *what)
{
	Kernel *k = ck->k;
	if (k->nagree == k->capagree) {
		int cap = k->capagree ? 2 * k->capagree : 8;
		Agree *n = arena_alloc(&ck->c->arena, (size_t)cap * sizeof *n);
		if (k->nagree)
			memcpy(n, k->agree, (size_t)k->nagree * sizeof *n);
		k->agree = n;
		k->capagree = cap;
	}
	k->agree[k->nagree++] = (Agree){a, b, sp, what};
}

/* Records that variable v subscripts a dim of extent d (at sp). Variables
 * whose range is inferred take it from their first such use; later uses
 * must agree. */
static void infer_range(Checker *ck, Var *v, Dim d, Span sp, const char *tname, int dim)
{
	if (v->ext_known && !v->inferred)
		return; /* a given range: the load is range-checked instead */
	if (!v->ext_known) {
		v->ext = d;
		v->ext.sp = sp;
		v->ext_known = v->inferred = true;
		return;
	}
	if (v->ext.sym < 0 && d.sym < 0 && v->ext.val != d.val) {
		note_at(&ck->c->diag, v->ext.sp, "'%s' ranges over %lld here", v->name, (long long)v->ext.val);
		error_at(&ck->c->diag, sp, "inconsistent ranges for '%s': dim %d of '%s' has size %lld, not %lld",
		         v->name, dim, tname, (long long)d.val, (long long)v->ext.val);
	}
	if (v->ext.sym != d.sym || (d.sym < 0 && v->ext.val != d.val)) {
		char *what = arena_alloc(&ck->c->arena, 160);
		snprintf(what, 160, "the range of '%s' (%s) and dim %d of '%s' (%s)", v->name,
		         dim_str(ck, v->ext), dim, tname, dim_str(ck, d));
		add_agree(ck, v->ext, d, sp, what);
	}
}

/* ---- dtypes ---- */

static int category(DType t)
{
	return t == ATHENE_BOOL ? 0 : dt_is_float(t) ? 2 : 1;
}

/* Promotion with weak (Python scalar) operands: a weak operand adopts the
 * other's dtype unless its category is higher (then the default dtype of
 * its category: f32 for floats, i64 for integers). */
static void promote2(DType a, bool aw, DType b, bool bw, DType *dt, bool *weak)
{
	if (aw && bw) {
		*weak = true;
		*dt = category(a) >= category(b) ? a : b;
		return;
	}
	*weak = false;
	if (aw || bw) {
		DType w = aw ? a : b, s = aw ? b : a;
		if (category(w) <= category(s))
			*dt = s;
		else
			*dt = category(w) == 2 ? DEFAULT_FLOAT : ATHENE_I64;
		return;
	}
	*dt = dt_promote(a, b);
}

static void promote_args(Node *n, int from, DType *dt, bool *weak)
{
	*dt = n->args[from]->dt;
	*weak = n->args[from]->weak;
	for (int i = from + 1; i < n->nargs; i++)
		promote2(*dt, *weak, n->args[i]->dt, n->args[i]->weak, dt, weak);
}

static void floatify(DType *dt, bool weak)
{
	if (!dt_is_float(*dt))
		*dt = weak ? ATHENE_F64 : DEFAULT_FLOAT;
}

static void type_op(Checker *ck, Node *n)
{
	DType dt;
	bool weak;
	const struct OpInfo *oi = &op_info[n->op];
	switch (oi->kind) {
	case K_ARITH:
		promote_args(n, 0, &dt, &weak);
		if (dt == ATHENE_BOOL && n->op == OP_SUB)
			error_at(&ck->c->diag, n->sp, "subtracting booleans is not supported; use '!=' or cast to an integer");
		break;
	case K_BIT:
	case K_SHIFT:
		for (int i = 0; i < n->nargs; i++)
			if (dt_is_float(n->args[i]->dt) || (oi->kind == K_SHIFT && n->args[i]->dt == ATHENE_BOOL))
				error_at(&ck->c->diag, n->args[i]->sp, "'%s' takes integers%s, not %s", oi->name,
				         oi->kind == K_BIT ? " or bools" : "", athene_dtype_name(n->args[i]->dt));
		promote_args(n, 0, &dt, &weak);
		break;
	case K_TDIV:
	case K_FLOAT:
		promote_args(n, 0, &dt, &weak);
		floatify(&dt, weak);
		break;
	case K_FLOATI:
		promote_args(n, 0, &n->opdt, &weak);
		floatify(&n->opdt, weak);
		dt = ATHENE_I32;
		weak = false;
		break;
	case K_FLOOR:
		promote_args(n, 0, &dt, &weak);
		if (dt == ATHENE_BOOL)
			dt = ATHENE_I64;
		break;
	case K_CMP:
		promote_args(n, 0, &n->opdt, &weak);
		/* a Python scalar compares exactly: 255 < 300 even for u8 */
		if (n->args[0]->weak != n->args[1]->weak)
			n->opdt = dt_is_float(n->opdt) ? ATHENE_F64 : ATHENE_I64;
		/* fall through */
	case K_LOGIC:
	case K_PRED:
		dt = ATHENE_BOOL;
		weak = false;
		for (int i = 0; i < n->nargs; i++)
			weak = i ? weak && n->args[i]->weak : n->args[i]->weak;
		break;
	case K_SAME:
		dt = n->args[0]->dt;
		weak = n->args[0]->weak;
		if (dt == ATHENE_BOOL && n->op == OP_NEG)
			error_at(&ck->c->diag, n->sp, "negating a bool is not supported; use '!'");
		break;
	case K_WHERE:
		promote_args(n, 1, &dt, &weak);
		break;
	case K_WRAP:
		for (int i = 0; i < 2; i++)
			if (!dt_is_int(n->args[i]->dt))
				error_at(&ck->c->diag, n->args[i]->sp, "wrap() takes integers, not %s", athene_dtype_name(n->args[i]->dt));
		promote_args(n, 0, &dt, &weak);
		break;
	default:
		die("bad op kind");
	}
	n->dt = dt;
	n->weak = weak;
	if (oi->kind != K_CMP && oi->kind != K_FLOATI)
		n->opdt = oi->kind == K_PRED || oi->kind == K_LOGIC ? n->args[0]->dt : dt;
}

static int reduce_result(Checker *ck, Node *n)
{
	Node *b = n->args[0];
	n->weak = false;
	switch (n->op) {
	case R_SUM:
	case R_PROD:
		n->dt = dt_is_float(b->dt) ? b->dt : ATHENE_I64;
		n->weak = b->weak;
		break;
	case R_MEAN:
		n->dt = dt_is_float(b->dt) ? b->dt : DEFAULT_FLOAT;
		break;
	case R_MAX:
	case R_MIN:
		n->dt = b->dt;
		n->weak = b->weak;
		break;
	case R_ARGMAX:
	case R_ARGMIN:
		n->dt = ATHENE_I64;
		break;
	case R_ANY:
	case R_ALL:
		n->dt = ATHENE_BOOL;
		break;
	default:
		error_at(&ck->c->diag, n->sp, "bad reduction");
	}
	return 0;
}

/* ---- expressions ---- */

static void check_expr(Checker *ck, Node *n);

/* The tensor a load names. bare: the name stands alone (a 0-d tensor), so an
 * unknown name may also have been meant as a variable or size symbol. */
static Tensor *resolve_tensor(Checker *ck, Node *n, bool bare)
{
	Tensor *t = kernel_param(ck->k, n->name);
	if (t && t->role == ROLE_OUT)
		error_at(&ck->c->diag, n->sp, "'%s' is an output and cannot be read; compute it in a 'let' and read that", n->name);
	if (t)
		return t;
	t = find_let(ck, n->name);
	if (t)
		return t;
	if (ck->stmt->t->role == ROLE_LET && !strcmp(ck->stmt->t->name, n->name))
		error_at(&ck->c->diag, n->sp, "'%s' is used in its own definition", n->name);
	for (int i = ck->nstmt + 1; i < ck->k->stmts.n; i++) {
		Stmt *s = ck->k->stmts.v[i];
		if (s->t->role == ROLE_LET && !strcmp(s->t->name, n->name))
			error_at(&ck->c->diag, n->sp, "'%s' is used before its definition on line %d", n->name, s->sp.line);
	}
	if (find_var(ck, n->name))
		error_at(&ck->c->diag, n->sp, "'%s' is an index variable, not a tensor", n->name);
	if (find_sym(ck->k, n->name) >= 0)
		error_at(&ck->c->diag, n->sp, "'%s' is a size symbol, not a tensor", n->name);
	if (bare)
		error_at(&ck->c->diag, n->sp, "unknown name '%s': not an index variable, a size symbol or a tensor", n->name);
	error_at(&ck->c->diag, n->sp, "unknown tensor '%s'", n->name);
}

static void check_index(Checker *ck, Node *e, const char *what, const char *tname)
{
	check_expr(ck, e);
	if (dt_is_float(e->dt) && e->kind == N_OP && e->op == OP_DIV)
		error_at(&ck->c->diag, e->sp, "%s of '%s' is a float (%s): '/' is true division; use '//' for floor division",
		         what, tname, athene_dtype_name(e->dt));
	if (dt_is_float(e->dt))
		error_at(&ck->c->diag, e->sp, "%s of '%s' is a float (%s); indices must be integers (cast with i64())",
		         what, tname, athene_dtype_name(e->dt));
	if (e->dt == ATHENE_BOOL)
		error_at(&ck->c->diag, e->sp, "%s of '%s' is a bool; indices must be integers", what, tname);
}

static Var *node_var_of_subscript(const Node *n)
{
	return n->kind == N_IVAR ? n->var : NULL;
}

static void check_load(Checker *ck, Node *n)
{
	Tensor *t = resolve_tensor(ck, n, false);
	n->t = t;
	n->dt = t->dt;
	n->weak = false;
	t->uses += t->role == ROLE_LET;
	if (n->kind == N_FLAT) {
		if (t->role == ROLE_LET)
			error_at(&ck->c->diag, n->sp, "'.flat' addresses a parameter's storage; '%s' is an intermediate", t->name);
		check_index(ck, n->args[0], "the flat offset", t->name);
	} else {
		if (n->nargs != t->rank)
			error_at(&ck->c->diag, n->sp, "'%s' has %d dim%s but %d subscript%s", t->name, t->rank,
			         t->rank == 1 ? "" : "s", n->nargs, n->nargs == 1 ? "" : "s");
		for (int i = 0; i < n->nargs; i++) {
			check_index(ck, n->args[i], "subscript", t->name);
			Var *v = node_var_of_subscript(n->args[i]);
			if (v)
				infer_range(ck, v, t->dims[i], n->args[i]->sp, t->name, i);
		}
	}
	n->load_id = ck->k->loads.n;
	vec_push(&ck->c->arena, &ck->k->loads, n);
}

static void check_name(Checker *ck, Node *n)
{
	if (!strcmp(n->name, "inf") || !strcmp(n->name, "nan")) {
		n->kind = N_FLOAT;
		n->fval = n->name[0] == 'i' ? INFINITY : NAN;
		n->dt = ATHENE_F64;
		n->weak = true;
		return;
	}
	Var *v = find_var(ck, n->name);
	if (v) {
		n->kind = N_IVAR;
		n->var = v;
		n->dt = ATHENE_I64;
		return;
	}
	int s = find_sym(ck->k, n->name);
	if (s >= 0 && !kernel_param(ck->k, n->name)) {
		n->kind = N_SIZE;
		n->sym = s;
		n->dt = ATHENE_I64;
		n->weak = true;
		return;
	}
	Tensor *t = resolve_tensor(ck, n, true);
	if (t->rank != 0)
		error_at(&ck->c->diag, n->sp, "'%s' has %d dim%s; subscript it", n->name, t->rank, t->rank == 1 ? "" : "s");
	n->kind = N_LOAD;
	n->nargs = 0;
	check_load(ck, n);
}

static int find_op(const char *name)
{
	for (int i = 0; i < NOPS; i++)
		if (!strcmp(op_info[i].name, name))
			return i;
	return -1;
}

static void check_call(Checker *ck, Node *n)
{
	DType dt;
	for (int i = 0; i < n->nargs; i++)
		check_expr(ck, n->args[i]);
	if (!athene_dtype_from_name(n->name, &dt)) {
		if (n->nargs != 1)
			error_at(&ck->c->diag, n->sp, "cast %s() takes 1 argument, not %d", n->name, n->nargs);
		n->kind = N_CAST;
		n->op = dt;
		n->dt = dt;
		n->weak = false;
		return;
	}
	int op = find_op(n->name);
	if (op < 0 || n->name[0] < 'a') {
		static const char *reds[] = {"sum", "prod", "mean", "argmax", "argmin", "any", "all"};
		for (size_t i = 0; i < sizeof reds / sizeof reds[0]; i++)
			if (!strcmp(n->name, reds[i]))
				error_at(&ck->c->diag, n->sp, "'%s' is a reduction: write %s(k: expr)", n->name, n->name);
		error_at(&ck->c->diag, n->sp, "unknown function '%s'", n->name);
	}
	if (n->nargs != op_info[op].arity)
		error_at(&ck->c->diag, n->sp, "%s() takes %d argument%s, not %d", n->name, op_info[op].arity,
		         op_info[op].arity == 1 ? "" : "s", n->nargs);
	n->kind = N_OP;
	n->op = op;
	type_op(ck, n);
}

/* D.bits(x): the D whose bits are x's, D and x's dtype of one size and
 * neither a bool (a literal has no bits of its own). */
static void check_bitcast(Checker *ck, Node *n)
{
	DType dt;
	Node *a = n->args[0];
	check_expr(ck, a);
	if (athene_dtype_from_name(n->name, &dt))
		die("a bitcast to an unknown dtype");
	if (a->weak)
		error_at(&ck->c->diag, a->sp, "%s.bits() of a literal, which has no dtype of its own: cast it first, as in %s.bits(%s(1))",
		         n->name, n->name, dtype_info[dt].size == 8 ? "f64" : dtype_info[dt].size == 4 ? "f32" : "f16");
	if (dt == ATHENE_BOOL || a->dt == ATHENE_BOOL || athene_dtype_size(dt) != athene_dtype_size(a->dt))
		error_at(&ck->c->diag, n->sp, "%s.bits() of %s: a bitcast is between dtypes of one size (f64 i64, f32 i32, f16 bf16 i16, i8 u8)",
		         n->name, athene_dtype_name(a->dt));
	n->op = dt;
	n->dt = dt;
	n->weak = false;
}

/* A reduction or 'let' bound: an integer literal or a size symbol. */
static Dim bound_dim(Checker *ck, Node *b, const char *what)
{
	if (b->kind == N_INT && b->ival >= 0)
		return (Dim){-1, b->ival, b->sp};
	if (b->kind == N_NAME) {
		int s = find_sym(ck->k, b->name);
		if (s >= 0)
			return (Dim){s, 0, b->sp};
	}
	error_at(&ck->c->diag, b->sp, "%s bound must be a non-negative integer or a size symbol", what);
}

static void check_reduce(Checker *ck, Node *n)
{
	int save = ck->nscope;
	n->rvars = arena_alloc(&ck->c->arena, (size_t)n->nrvars * sizeof *n->rvars);
	for (int i = 0; i < n->nrvars; i++) {
		Var *v = new_var(ck, n->rnames[i], n->rspans[i], V_RED);
		if (n->rbounds[i]) {
			v->ext = bound_dim(ck, n->rbounds[i], "a reduction");
			v->ext_known = true;
		}
		for (int j = 0; j < i; j++)
			if (!strcmp(n->rvars[j]->name, v->name))
				error_at(&ck->c->diag, v->sp, "reduction variable '%s' is listed twice", v->name);
		push_var(ck, v);
		n->rvars[i] = v;
	}
	check_expr(ck, n->args[0]);
	for (int i = 0; i < n->nrvars; i++)
		if (!n->rvars[i]->ext_known)
			error_at(&ck->c->diag, n->rvars[i]->sp,
			         "cannot infer the range of '%s': it never subscripts a load directly; give a bound, e.g. %s(%s < N: ...)",
			         n->rvars[i]->name, n->name, n->rvars[i]->name);
	ck->nscope = save;
	ck->stmt->t->reduces = true;
	reduce_result(ck, n);
}

static void check_expr(Checker *ck, Node *n)
{
	switch (n->kind) {
	case N_INT:
		n->dt = ATHENE_I64;
		n->weak = true;
		break;
	case N_FLOAT:
		n->dt = ATHENE_F64;
		n->weak = true;
		break;
	case N_BOOL:
		n->dt = ATHENE_BOOL;
		n->weak = true;
		break;
	case N_NAME:
		check_name(ck, n);
		break;
	case N_LOAD:
	case N_FLAT:
		check_load(ck, n);
		break;
	case N_CALL:
		check_call(ck, n);
		break;
	case N_UNARY:
	case N_BINARY:
		for (int i = 0; i < n->nargs; i++)
			check_expr(ck, n->args[i]);
		n->kind = N_OP;
		type_op(ck, n);
		break;
	case N_REDUCE:
		check_reduce(ck, n);
		break;
	case N_BITCAST:
		check_bitcast(ck, n);
		break;
	default:
		die("unexpected node in check");
	}
}

/* ---- parameters and statements ---- */

/* Layout expressions use integers and size symbols only. */
static void check_layout_expr(Checker *ck, Node *e)
{
	switch (e->kind) {
	case N_INT:
		e->dt = ATHENE_I64;
		return;
	case N_NAME:
		e->sym = find_sym(ck->k, e->name);
		if (e->sym < 0)
			error_at(&ck->c->diag, e->sp, "'%s' is not a size symbol of this kernel; strides and offsets use integers and size symbols", e->name);
		e->kind = N_SIZE;
		e->dt = ATHENE_I64;
		return;
	case N_UNARY:
	case N_BINARY:
		if (e->op == OP_NEG || e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL ||
		    e->op == OP_FLOORDIV || e->op == OP_MOD) {
			for (int i = 0; i < e->nargs; i++)
				check_layout_expr(ck, e->args[i]);
			e->kind = N_OP;
			e->dt = ATHENE_I64;
			return;
		}
	}
	error_at(&ck->c->diag, e->sp, "strides and offsets are integer expressions of integers and size symbols");
}

static void check_params(Checker *ck)
{
	Kernel *k = ck->k;
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = k->params.v[i], *u = kernel_param(k, t->name);
		if (u != t) {
			note_at(&ck->c->diag, u->sp, "'%s' is first declared here", u->name);
			error_at(&ck->c->diag, t->sp, "duplicate parameter '%s'", t->name);
		}
		if (find_sym(k, t->name) >= 0)
			error_at(&ck->c->diag, t->sp, "'%s' is both a parameter and a size symbol", t->name);
		if (reserved(t->name))
			error_at(&ck->c->diag, t->sp, "'%s' is a literal and cannot name a parameter", t->name);
		for (int d = 0; d < t->rank; d++)
			if (t->dims[d].sym >= 0 && reserved(k->syms[t->dims[d].sym].name))
				error_at(&ck->c->diag, t->dims[d].sp, "'%s' is a literal and cannot name a size", k->syms[t->dims[d].sym].name);
		for (int d = 0; d < t->rank; d++)
			if (t->has_strides)
				check_layout_expr(ck, t->stride_ex[d]);
		if (t->offset_ex)
			check_layout_expr(ck, t->offset_ex);
	}
}

static void check_target(Checker *ck, Stmt *s)
{
	Kernel *k = ck->k;
	if (s->t->role == ROLE_LET) {
		Tensor *t = s->t, *prev = kernel_param(k, t->name);
		if (!prev)
			prev = find_let(ck, t->name);
		if (prev)
			note_at(&ck->c->diag, prev->sp, "'%s' is first defined here", t->name);
		if (prev || find_sym(k, t->name) >= 0)
			error_at(&ck->c->diag, s->sp, "'%s' is already defined", t->name);
		if (reserved(t->name))
			error_at(&ck->c->diag, s->sp, "'%s' is a literal and cannot name an intermediate", t->name);
		t->rank = s->nlhs;
		t->index = k->lets.n;
		t->def = s;
		return;
	}
	Tensor *t = kernel_param(k, s->t->name);
	if (!t)
		error_at(&ck->c->diag, s->sp, "'%s' is not an output of kernel '%s' (declare it after '->', or write 'let %s')",
		         s->t->name, k->name, s->t->name);
	if (t->role == ROLE_IN)
		error_at(&ck->c->diag, s->sp, "'%s' is an input; inputs are read-only", t->name);
	if (t->def) {
		note_at(&ck->c->diag, t->def->sp, "'%s' is first written here", t->name);
		error_at(&ck->c->diag, s->sp, "output '%s' is written twice; every output is written by exactly one statement", t->name);
	}
	if (s->at && s->at->kind == N_LOAD && s->at->nargs != t->rank)
		error_at(&ck->c->diag, s->at->sp, "'%s' has %d dim%s but the scatter gives %d subscript%s", t->name, t->rank,
		         t->rank == 1 ? "" : "s", s->at->nargs, s->at->nargs == 1 ? "" : "s");
	if (!s->at && s->nlhs != t->rank)
		error_at(&ck->c->diag, s->sp, "'%s' has %d dim%s but %d index variable%s", t->name, t->rank,
		         t->rank == 1 ? "" : "s", s->nlhs, s->nlhs == 1 ? "" : "s");
	t->def = s;
	s->t = t;
}

static void check_stmt(Checker *ck, Stmt *s, int i)
{
	ck->stmt = s;
	ck->nstmt = i;
	ck->nscope = 0;
	check_target(ck, s);
	for (int d = 0; d < s->nlhs; d++) {
		Var *v = new_var(ck, s->lhs[d]->name, s->lhs[d]->sp, V_LHS);
		s->lhs[d] = v;
		if (s->at) { /* a scatter's variables: given */
			v->ext = bound_dim(ck, s->bound[d], "a scatter's");
			v->ext_known = true;
		} else if (s->t->role == ROLE_OUT) {
			v->ext = s->t->dims[d];
			v->ext_known = true;
		} else if (s->bound[d]) { /* let t[i < N]: given, not inferred */
			v->ext = bound_dim(ck, s->bound[d], "a let's");
			v->ext_known = true;
		}
		push_var(ck, v);
	}
	if (s->at) { /* the element stored to: subscripts (or a flat offset) of the output, never a read */
		s->at->t = s->t;
		s->at->dt = s->t->dt;
		for (int i = 0; i < s->at->nargs; i++)
			check_index(ck, s->at->args[i], s->at->kind == N_FLAT ? "the flat offset" : "subscript", s->t->name);
	}
	check_expr(ck, s->rhs);
	if (s->t->role == ROLE_LET) {
		for (int d = 0; d < s->nlhs; d++) {
			Var *v = s->lhs[d];
			if (!v->ext_known)
				error_at(&ck->c->diag, v->sp, "cannot infer the range of '%s' in '%s': it must subscript a load directly in the definition",
				         v->name, s->t->name);
			s->t->dims[d] = v->ext;
		}
		s->t->dt = s->rhs->dt == ATHENE_F64 && s->rhs->weak ? DEFAULT_FLOAT : s->rhs->dt;
		vec_push(&ck->c->arena, &ck->k->lets, s->t);
	}
}

/* ---- symbolic bounds: provable for every size ---- */

#define MAXLSYM 16
/* c + Σ a[s]·S_s, over the kernel's size symbols */
typedef struct {
	int64_t c, a[MAXLSYM];
} Lin;

static Lin lin_dim(Dim d)
{
	Lin l = {0};
	if (d.sym < 0)
		l.c = d.val;
	else if (d.sym < MAXLSYM)
		l.a[d.sym] = 1;
	return l;
}

static bool lin_axpy(Lin *y, int64_t k, const Lin *x) /* y += k·x; false on overflow */
{
	bool ovf = false;
	int64_t t;
	ovf |= __builtin_mul_overflow(k, x->c, &t) || __builtin_add_overflow(y->c, t, &y->c);
	for (int i = 0; i < MAXLSYM; i++)
		ovf |= __builtin_mul_overflow(k, x->a[i], &t) || __builtin_add_overflow(y->a[i], t, &y->a[i]);
	return !ovf;
}

/* The exact range [lo, hi] of an affine subscript in which every variable
 * appears once, as forms in the sizes. False when it is not of that shape. */
static bool lin_range(const Node *n, Lin *lo, Lin *hi, uint64_t *seen, bool *symbolic)
{
	Lin l2, h2, one = {.c = 1};
	memset(lo, 0, sizeof *lo);
	memset(hi, 0, sizeof *hi);
	switch (n->kind) {
	case N_INT:
		lo->c = hi->c = n->ival;
		return true;
	case N_SIZE:
		if (n->sym >= MAXLSYM)
			return false;
		lo->a[n->sym] = hi->a[n->sym] = 1;
		*symbolic = true;
		return true;
	case N_IVAR:
		if (n->var->id < 64 && (*seen >> n->var->id & 1))
			return false; /* twice: the interval would not be exact */
		*seen |= n->var->id < 64 ? 1ull << n->var->id : 0;
		*symbolic |= n->var->ext.sym >= 0;
		*hi = lin_dim(n->var->ext);
		return lin_axpy(hi, -1, &one);
	case N_OP:
		break;
	default:
		return false;
	}
	if (n->op == OP_NEG)
		return lin_range(n->args[0], &l2, &h2, seen, symbolic) && lin_axpy(lo, -1, &h2) && lin_axpy(hi, -1, &l2);
	if (n->op != OP_ADD && n->op != OP_SUB && n->op != OP_MUL)
		return false;
	Lin l1, h1;
	if (!lin_range(n->args[0], &l1, &h1, seen, symbolic) || !lin_range(n->args[1], &l2, &h2, seen, symbolic))
		return false;
	if (n->op == OP_MUL) { /* only by a constant */
		bool c1 = !memcmp(&l1, &h1, sizeof l1), c2 = !memcmp(&l2, &h2, sizeof l2);
		Lin *cl = c1 ? &l1 : &l2, *vl = c1 ? &l2 : &l1, *vh = c1 ? &h2 : &h1;
		for (int i = 0; i < MAXLSYM; i++)
			if (cl->a[i])
				return false;
		if (!c1 && !c2)
			return false;
		int64_t k = cl->c;
		return lin_axpy(lo, k, k >= 0 ? vl : vh) && lin_axpy(hi, k, k >= 0 ? vh : vl);
	}
	int64_t sg = n->op == OP_SUB ? -1 : 1;
	return lin_axpy(lo, 1, &l1) && lin_axpy(hi, 1, &h1) && lin_axpy(lo, sg, sg > 0 ? &l2 : &h2) &&
	       lin_axpy(hi, sg, sg > 0 ? &h2 : &l2);
}

/* Is c + Σ a·S > 0 for every size S >= 1? */
static bool lin_positive(const Lin *l)
{
	int64_t at_one = l->c;
	for (int i = 0; i < MAXLSYM; i++) {
		if (l->a[i] < 0 || __builtin_add_overflow(at_one, l->a[i], &at_one))
			return false;
	}
	return at_one > 0;
}

static void lin_print(Buf *b, const Kernel *k, const Lin *l)
{
	bool any = false;
	for (int i = 0; i < MAXLSYM && i < k->nsyms; i++)
		if (l->a[i]) {
			if (l->a[i] == 1 || l->a[i] == -1)
				buf_printf(b, "%s%s", l->a[i] < 0 ? (any ? " - " : "-") : (any ? " + " : ""), k->syms[i].name);
			else
				buf_printf(b, "%s%lld*%s", any ? (l->a[i] < 0 ? " - " : " + ") : (l->a[i] < 0 ? "-" : ""),
				           (long long)llabs(l->a[i]), k->syms[i].name);
			any = true;
		}
	if (l->c || !any)
		buf_printf(b, any ? (l->c < 0 ? " - %lld" : " + %lld") : "%lld", (long long)(any ? llabs(l->c) : l->c));
}

/* A subscript out of bounds for every size of the symbols it involves. */
/* Loads evaluated only under a condition (a branch of where(), the right
 * side of && or ||), by load id: their bounds depend on the condition, and
 * lowering proves them once the sizes are bound. */
static void mark_guarded(const Node *n, bool guarded, bool *out)
{
	if (n->kind == N_LOAD || n->kind == N_FLAT)
		out[n->load_id] = guarded;
	bool branch = n->kind == N_OP && (n->op == OP_WHERE || n->op == OP_AND || n->op == OP_OR);
	for (int i = 0; i < n->nargs; i++)
		mark_guarded(n->args[i], guarded || (branch && i > 0), out);
}

static void check_symbolic_bounds(Checker *ck)
{
	Kernel *k = ck->k;
	Lin one = {.c = 1};
	bool *guarded = arena_alloc(&ck->c->arena, (size_t)k->loads.n + 1);
	for (int i = 0; i < k->stmts.n; i++)
		mark_guarded(((Stmt *)k->stmts.v[i])->rhs, false, guarded);
	for (int i = 0; i < k->loads.n; i++) {
		Node *n = k->loads.v[i];
		if (guarded[i])
			continue;
		for (int d = 0; d < n->nargs && n->kind == N_LOAD; d++) {
			Lin lo, hi, dim = lin_dim(n->t->dims[d]), over;
			uint64_t seen = 0;
			bool symbolic = n->t->dims[d].sym >= 0;
			if (!lin_range(n->args[d], &lo, &hi, &seen, &symbolic) || !symbolic)
				continue; /* concrete sizes: checked with a witness when bound */
			over = hi; /* hi - (dim - 1) */
			bool ok = lin_axpy(&over, -1, &dim) && lin_axpy(&over, 1, &one);
			Lin neg = {0};
			ok = ok && lin_axpy(&neg, -1, &lo);
			if (!ok || (!lin_positive(&over) && !lin_positive(&neg)))
				continue;
			Buf b = {0};
			lin_print(&b, k, lin_positive(&over) ? &hi : &lo);
			buf_printf(&b, "%s", lin_positive(&over) ? ", but the dim has size " : "");
			if (lin_positive(&over))
				lin_print(&b, k, &dim);
			char msg[300];
			snprintf(msg, sizeof msg, "%s", buf_str(&b));
			buf_free(&b);
			error_at(&ck->c->diag, n->args[d]->sp, "subscript %d of '%s' is out of bounds for every size: it reaches %s", d,
			         n->t->name, msg);
		}
	}
}

void check_kernel(Kernel *k)
{
	Checker ck = {.k = k, .c = k->ctx};
	check_params(&ck);
	for (int i = 0; i < k->stmts.n; i++)
		check_stmt(&ck, k->stmts.v[i], i);
	for (int i = k->nin; i < k->params.n; i++) {
		Tensor *t = k->params.v[i];
		if (!t->def)
			error_at(&ck.c->diag, t->sp, "output '%s' is never written", t->name);
	}
	check_symbolic_bounds(&ck);
	k->checked = true;
}
