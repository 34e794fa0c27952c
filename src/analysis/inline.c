/* inline: which lets are fused into their consumers, and the planned
 * statements with their accesses. A let is fused when recomputing it costs
 * nothing: it has no reduction, each use subscripts it with affine index
 * expressions (no data), and it is used once or is a bare load, and read
 * broadcast (along a variable its subscripts do not name) only if it is a
 * bare load. The other
 * lets are materialised: planned statements of their own, like outputs. */
#include "analysis.h"

/* An index expression with no data in it: lowering gives no atoms. */
static bool affine_index(const Node *n)
{
	if (n->kind == N_INT || n->kind == N_IVAR || n->kind == N_SIZE)
		return true;
	if (n->kind != N_OP || !dt_is_int(n->dt))
		return false;
	if (n->op != OP_NEG && n->op != OP_ADD && n->op != OP_SUB && n->op != OP_MUL && n->op != OP_FLOORDIV &&
	    n->op != OP_MOD)
		return false;
	for (int i = 0; i < n->nargs; i++)
		if (!affine_index(n->args[i]))
			return false;
	return true;
}

static bool affine_load(const Node *n)
{
	for (int d = 0; d < n->nargs; d++)
		if (!affine_index(n->args[d]))
			return false;
	return true;
}

/* A bare load (cast or not) with affine subscripts: re-reading it costs
 * what reading a materialised copy would. */
static bool bare_load(const Node *n)
{
	while (n->kind == N_CAST)
		n = n->args[0];
	return n->kind == N_LOAD && affine_load(n);
}

/* Can evaluating n fail at run time (a data-dependent subscript or flat
 * offset, a wrap() modulus)? A let that can is not fused: the language
 * evaluates every element of an intermediate, read or not, so its errors
 * must not depend on which elements its consumer reads. */
static bool fallible(const Node *n)
{
	if ((n->kind == N_LOAD || n->kind == N_FLAT) && !affine_load(n))
		return true;
	if (n->kind == N_OP && n->op == OP_WRAP)
		return true;
	for (int i = 0; i < n->nargs; i++)
		if (fallible(n->args[i]))
			return true;
	return false;
}

bool let_fallible(const Tensor *t)
{
	return fallible(t->def->rhs);
}

static bool mentions(const Node *n, const Var *v)
{
	if (n->kind == N_IVAR)
		return n->var == v;
	for (int i = 0; i < n->nargs; i++)
		if (mentions(n->args[i], v))
			return true;
	return false;
}

/* Does n read t broadcast: a variable in scope at the read (the
 * statement's and those of the reductions around it) in none of its
 * subscripts, so that a fused t would be recomputed at each of that
 * variable's points (rsqrt(sum(...)) of a row, read by each element of
 * the row)? */
static bool broadcast_use(const Node *n, const Tensor *t, const Var **scope, int nscope)
{
	if ((n->kind == N_LOAD || n->kind == N_FLAT) && n->t == t)
		for (int v = 0; v < nscope; v++) {
			bool seen = false;
			for (int d = 0; d < n->nargs && !seen; d++)
				seen = mentions(n->args[d], scope[v]);
			if (!seen)
				return true;
		}
	const Var *inner[MAXSCOPE];
	if (n->kind == N_REDUCE) {
		memcpy(inner, scope, (size_t)nscope * sizeof *scope);
		for (int i = 0; i < n->nrvars && nscope < MAXSCOPE; i++)
			inner[nscope++] = n->rvars[i];
		scope = inner;
	}
	for (int i = 0; i < n->nargs; i++)
		if (broadcast_use(n->args[i], t, scope, nscope))
			return true;
	return false;
}

bool let_broadcast(const Kernel *k, const Tensor *t)
{
	for (int i = 0; i < k->stmts.n; i++) {
		const Stmt *s = k->stmts.v[i];
		const Var *scope[MAXSCOPE];
		int nscope = s->nlhs < MAXSCOPE ? s->nlhs : MAXSCOPE;
		for (int d = 0; d < nscope; d++)
			scope[d] = s->lhs[d];
		if (broadcast_use(s->rhs, t, scope, nscope))
			return true;
	}
	return false;
}

static bool fusible(const Kernel *k, const Tensor *t)
{
	if (t->reduces || t->uses == 0 || (t->uses > 1 && !bare_load(t->def->rhs)) || fallible(t->def->rhs))
		return false;
	if (!bare_load(t->def->rhs) && let_broadcast(k, t))
		return false;
	for (int i = 0; i < k->loads.n; i++) {
		const Node *n = k->loads.v[i];
		if (n->t == t && !affine_load(n))
			return false;
	}
	return true;
}

static void add_access(Inst *in, Planned *ps, const Node *load, const Tensor *t, const Env *env,
                       const Guard *guard, const Var *const *scope, int nscope)
{
	Access *ac = arena_alloc(&in->arena, sizeof *ac);
	ac->load = load;
	ac->t = t;
	ac->env = env;
	ac->guard = guard;
	ac->nscope = nscope;
	memcpy(ac->scope, scope, (size_t)nscope * sizeof *scope);
	vec_push(&in->arena, &ps->acc, ac);
}

/* The loads of an expression in source order, fused lets expanded. */
static void collect(Inst *in, Planned *ps, const Node *n, const Env *env, const Guard *g, const Var **scope,
                    int nscope)
{
	const Var *inner[MAXSCOPE];
	if ((n->kind == N_LOAD || n->kind == N_FLAT) && n->t->role == ROLE_LET && in->fused[n->t->index]) {
		bool seen = false;
		for (int i = 0; i < ps->fused.n; i++)
			seen |= ps->fused.v[i] == n->t;
		if (!seen)
			vec_push(&in->arena, &ps->fused, (void *)n->t);
		Env *e = arena_alloc(&in->arena, sizeof *e);
		*e = (Env){env, n->t->def, n};
		collect(in, ps, n->t->def->rhs, e, g, scope, nscope);
		return;
	}
	if (n->kind == N_LOAD || n->kind == N_FLAT)
		add_access(in, ps, n, n->t, env, g, scope, nscope);
	if (n->kind == N_REDUCE) {
		memcpy(inner, scope, (size_t)nscope * sizeof *scope);
		for (int i = 0; i < n->nrvars && nscope < MAXSCOPE; i++)
			inner[nscope++] = n->rvars[i];
		scope = inner;
	}
	for (int i = 0; i < n->nargs; i++)
		collect(in, ps, n->args[i], env, guard_child(&in->arena, n, i, g, env), scope, nscope);
}

void inline_lets(Inst *in)
{
	Kernel *k = in->k;
	in->fused = arena_alloc(&in->arena, (size_t)(k->lets.n + 1) * sizeof *in->fused);
	for (int i = 0; i < k->lets.n; i++)
		in->fused[i] = fusible(k, k->lets.v[i]);
	in->planned = arena_alloc(&in->arena, (size_t)(k->stmts.n + 1) * sizeof *in->planned);
	for (int i = 0; i < k->stmts.n; i++) {
		Stmt *s = k->stmts.v[i];
		if (s->t->role == ROLE_LET && in->fused[s->t->index])
			continue;
		if (s->nlhs > MAXSCOPE)
			error_at(&in->diag, s->sp, "too many index variables");
		Planned *ps = &in->planned[in->nplanned++];
		ps->stmt = s;
		ps->index = i;
		const Var *scope[MAXSCOPE];
		for (int d = 0; d < s->nlhs; d++)
			scope[d] = s->lhs[d];
		add_access(in, ps, NULL, s->t, NULL, NULL, scope, s->nlhs);
		for (int d = 0; s->at && d < s->at->nargs; d++) /* a scatter's: the loads of its subscripts */
			collect(in, ps, s->at->args[d], NULL, NULL, scope, s->nlhs);
		collect(in, ps, s->rhs, NULL, NULL, scope, s->nlhs);
	}
}
