/* Body IR: each planned statement's right-hand side as a typed linear
 * program (Prog), the one form every backend renders (the executor's VM,
 * the Pallas and C emitters). Built from the checked AST with the fused
 * lets expanded exactly as lowering expanded them, so each I_LOAD names an
 * access of the statement, that is, a plan operand.
 *
 * What is resolved here, once:
 *  - promotion and weak literals: every I_OP's operands are cast (I_CAST)
 *    to the dtype it computes in; casts of constants are folded;
 *  - a fused let's value is cast to the let's dtype, as storing it would;
 *  - laziness: the operands of where() and the right side of && and || get
 *    a guard, the condition under which the interpreter evaluates them (a
 *    backend may compute them everywhere, but must only report run-time
 *    errors, or read outside an operand, where the guard holds);
 *  - index arithmetic (the data-dependent parts of subscripts and flat
 *    offsets) is marked exact: 64-bit, an overflow or a division by zero
 *    is a run-time error, as in the interpreter; a wrap() modulus below 1
 *    is one wherever wrap() appears;
 *  - reductions: an I_REDUCE reads a register of an inner scope (the body,
 *    evaluated over the reduction variables too) and yields one value per
 *    point of the outer scope.
 * The final value is cast to the stored tensor's dtype. */
#include <string.h>

#include "analysis.h"

typedef struct {
	Inst *in;
	const Planned *ps;
	Prog *p;
	int cap;
	int scope;
	int guard;
} Builder;

static int emit(Builder *b, Ins ins)
{
	Prog *p = b->p;
	if (p->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 32;
		Ins *n = arena_alloc(&b->in->arena, (size_t)b->cap * sizeof *n);
		if (p->n)
			memcpy(n, p->ins, (size_t)p->n * sizeof *n);
		p->ins = n;
	}
	ins.scope = b->scope;
	ins.guard = b->guard;
	p->ins[p->n] = ins;
	return p->n++;
}

static int constant(Builder *b, DType dt, Val v, const Node *src)
{
	return emit(b, (Ins){.kind = I_CONST, .dt = dt, .c = v, .src = src});
}

/* r as dtype to: a new constant for a constant, r itself when it is one. */
static int cast(Builder *b, int r, DType to)
{
	const Ins *x = &b->p->ins[r];
	if (x->dt == to)
		return r;
	if (x->kind == I_CONST)
		return constant(b, to, val_convert(x->c, x->dt, to), x->src);
	return emit(b, (Ins){.kind = I_CAST, .dt = to, .nargs = 1, .a = {r}, .src = x->src});
}

/* The value of dtype `to` whose bits are r's (check.c: of the same size). */
static int bitcast(Builder *b, int r, DType to, const Node *src)
{
	const Ins *x = &b->p->ins[r];
	if (x->kind == I_CONST)
		return constant(b, to, val_bitcast(x->c, x->dt, to), src);
	return emit(b, (Ins){.kind = I_BITCAST, .dt = to, .nargs = 1, .a = {r}, .src = src});
}

static int op(Builder *b, int o, DType dt, DType opdt, int n, const int *args, const Node *src)
{
	Ins ins = {.kind = I_OP, .op = o, .dt = dt, .opdt = opdt, .nargs = n, .src = src};
	memcpy(ins.a, args, (size_t)n * sizeof *args);
	return emit(b, ins);
}

static int not_of(Builder *b, int x, const Node *src);

/* Narrows the guard to `cond` (true: cond holds, false: it does not). */
static int narrow_guard(Builder *b, int cond, bool holds)
{
	int saved = b->guard;
	if (!holds)
		cond = not_of(b, cond, NULL);
	if (b->guard >= 0)
		cond = op(b, OP_AND, ATHENE_BOOL, ATHENE_BOOL, 2, (int[]){b->guard, cond}, NULL);
	b->guard = cond;
	return saved;
}

static int expr(Builder *b, const Node *n, const Env *env);

/* The expansion lowering made for the fused let read by `use` inside env;
 * a new one when no access of the statement lies inside it. */
static const Env *expansion(Builder *b, const Node *use, const Env *env)
{
	for (int j = 0; j < b->ps->acc.n; j++) {
		const Access *ac = b->ps->acc.v[j];
		for (const Env *e = ac->env; e; e = e->up)
			if (e->use == use && e->up == env)
				return e;
	}
	Env *e = arena_alloc(&b->in->arena, sizeof *e);
	*e = (Env){env, use->t->def, use};
	return e;
}

static int access_of(Builder *b, const Node *n, const Env *env)
{
	for (int j = 0; j < b->ps->acc.n; j++) {
		const Access *ac = b->ps->acc.v[j];
		if (ac->load == n && ac->env == env)
			return j;
	}
	die("a load that is no access of its statement");
}

/* Does a subscript read data (a load inside it)? */
static bool reads_data(const Node *n)
{
	if (n->kind == N_LOAD || n->kind == N_FLAT)
		return true;
	for (int i = 0; i < n->nargs; i++)
		if (reads_data(n->args[i]))
			return true;
	return false;
}

static void collect_atoms(const Sym *s, const Sym **atoms, int *n, int max)
{
	if (s->kind == S_ATOM) {
		for (int i = 0; i < *n; i++)
			if (atoms[i] == s)
				return;
		if (*n < max)
			atoms[(*n)++] = s;
		return;
	}
	for (int i = 0; i < s->n; i++)
		collect_atoms(s->a[i], atoms, n, max);
}

/* A subscript or flat offset, as the interpreter evaluates one: integer
 * arithmetic exact in 64 bits (an overflow or a division by zero is a
 * run-time error), anything else a value converted to i64. */
static int index_expr(Builder *b, const Node *n, const Env *env)
{
	int64_t m;
	const Node *v = n->kind == N_OP && n->op == OP_WHERE ? wrap_of(b->in, n, &m) : NULL;
	if (v) { /* Inductor's negative-index wrap is the wrap() it computes: one read of v */
		int args[2] = {index_expr(b, v, env), constant(b, ATHENE_I64, (Val){.i = m}, n)};
		int r = op(b, OP_WRAP, ATHENE_I64, ATHENE_I64, 2, args, n);
		b->p->ins[r].exact = true;
		return r;
	}
	bool exact = n->kind == N_OP && dt_is_int(n->dt) &&
	             (n->op == OP_NEG || n->op == OP_ADD || n->op == OP_SUB || n->op == OP_MUL ||
	              n->op == OP_FLOORDIV || n->op == OP_MOD || n->op == OP_WRAP);
	if (!exact)
		return cast(b, expr(b, n, env), ATHENE_I64);
	int args[2];
	for (int i = 0; i < n->nargs; i++)
		args[i] = index_expr(b, n->args[i], env);
	int r = op(b, n->op, ATHENE_I64, ATHENE_I64, n->nargs, args, n);
	b->p->ins[r].exact = true;
	return r;
}

static int load_access(Builder *b, const Node *n, const Env *env, int j);

static int load(Builder *b, const Node *n, const Env *env)
{
	if (n->t->role == ROLE_LET && b->in->fused[n->t->index]) {
		const Env *e = expansion(b, n, env);
		return cast(b, expr(b, n->t->def->rhs, e), n->t->dt);
	}
	return load_access(b, n, env, access_of(b, n, env));
}

/* Access j read by n (for a scatter's store, n is the element written:
 * the instruction computes and checks its address, and is never read). */
static int load_access(Builder *b, const Node *n, const Env *env, int j)
{
	const Access *ac = b->ps->acc.v[j];
	const Sym *atoms[VIEW_MAXDIG];
	int na = 0;
	collect_atoms(ac->off, atoms, &na, VIEW_MAXDIG);
	Ins ins = {.kind = I_LOAD, .dt = n->t->dt, .operand = j, .natoms = na, .src = n};
	if (na) {
		ins.atom = arena_alloc(&b->in->arena, (size_t)na * sizeof *ins.atom);
		ins.atom_reg = arena_alloc(&b->in->arena, (size_t)na * sizeof *ins.atom_reg);
		for (int i = 0; i < na; i++) {
			ins.atom[i] = atoms[i];
			ins.atom_reg[i] = index_expr(b, atoms[i]->p, env);
		}
	}
	/* a data-dependent subscript of a dim with stride 0 leaves no atom in
	 * the offset, but is bounds-checked all the same */
	for (int d = 0; n->kind == N_LOAD && d < n->nargs; d++) {
		bool atom = false;
		for (int i = 0; i < na; i++)
			atom |= atoms[i]->p == n->args[d];
		if (atom || !reads_data(n->args[d]))
			continue;
		if (!ins.check_reg) {
			ins.check_reg = arena_alloc(&b->in->arena, (size_t)n->nargs * sizeof *ins.check_reg);
			ins.check_dim = arena_alloc(&b->in->arena, (size_t)n->nargs * sizeof *ins.check_dim);
		}
		ins.check_reg[ins.nchecks] = index_expr(b, n->args[d], env);
		ins.check_dim[ins.nchecks++] = d;
	}
	return emit(b, ins);
}

static int variable(Builder *b, const Node *n, const Env *env)
{
	for (const Env *e = env; e; e = e->up)
		for (int d = 0; d < e->let->nlhs; d++)
			if (e->let->lhs[d] == n->var)
				return cast(b, expr(b, e->use->args[d], e->up), ATHENE_I64);
	return emit(b, (Ins){.kind = I_IVAR, .dt = ATHENE_I64, .var = n->var, .src = n});
}

/* The comparison that is op's negation on integers (on floats a NaN makes
 * both false). */
static int negated_cmp(int o)
{
	switch (o) {
	case OP_EQ: return OP_NE;
	case OP_NE: return OP_EQ;
	case OP_LT: return OP_GE;
	case OP_LE: return OP_GT;
	case OP_GT: return OP_LE;
	default: return OP_LT; /* OP_GE */
	}
}

/* r's value when it is a constant: 0 or 1 (a bool), else -1 */
static int known_bool(const Builder *b, int r)
{
	const Ins *x = &b->p->ins[r];
	return x->kind == I_CONST ? x->c.i != 0 : -1;
}

/* !x, x a bool register */
static int not_of(Builder *b, int x, const Node *src)
{
	const Ins *xi = &b->p->ins[x];
	if (xi->kind == I_CONST)
		return constant(b, ATHENE_BOOL, (Val){.i = !xi->c.i}, src);
	if (xi->kind == I_OP && op_info[xi->op].kind == K_CMP && dt_is_int(xi->opdt))
		return op(b, negated_cmp(xi->op), ATHENE_BOOL, xi->opdt, 2, (int[]){xi->a[0], xi->a[1]}, src);
	return op(b, OP_NOT, ATHENE_BOOL, ATHENE_BOOL, 1, &x, src);
}

/* !, && and ||. What a constant decides is decided here, so that a mask
 * Inductor writes as `!(c && true)` costs one comparison: ! of a constant
 * is one, ! of an integer comparison the opposite comparison, `x && true`
 * and `x || false` are x, `true && y` and `false || y` are y (built with
 * no guard: it always runs), `false && y` and `true || y` are x (y is
 * never evaluated, as in the interpreter). */
static int logic(Builder *b, const Node *n, const Env *env)
{
	int x = cast(b, expr(b, n->args[0], env), ATHENE_BOOL);
	if (n->op == OP_NOT)
		return not_of(b, x, n);
	int kx = known_bool(b, x), unit = n->op == OP_AND; /* the value that leaves the other side */
	if (kx == unit)
		return cast(b, expr(b, n->args[1], env), ATHENE_BOOL);
	if (kx >= 0)
		return x;
	int saved = narrow_guard(b, x, n->op == OP_AND);
	int y = cast(b, expr(b, n->args[1], env), ATHENE_BOOL);
	b->guard = saved;
	if (known_bool(b, y) == unit)
		return x;
	return op(b, n->op, ATHENE_BOOL, ATHENE_BOOL, 2, (int[]){x, y}, n);
}

static int where(Builder *b, const Node *n, const Env *env)
{
	int c = cast(b, expr(b, n->args[0], env), ATHENE_BOOL);
	int saved = narrow_guard(b, c, true);
	int x = cast(b, expr(b, n->args[1], env), n->dt);
	b->guard = saved;
	saved = narrow_guard(b, c, false);
	int y = cast(b, expr(b, n->args[2], env), n->dt);
	b->guard = saved;
	return op(b, OP_WHERE, n->dt, n->dt, 3, (int[]){c, x, y}, n);
}

/* Is r an index variable's value (in [0, its extent): a difference of two
 * never wraps)? */
static bool is_ivar(const Builder *b, int r)
{
	return b->p->ins[r].kind == I_IVAR;
}

/* u when r is -1 * u or u * -1, u an index variable's value; else -1 */
static int negated_ivar(const Builder *b, int r)
{
	const Ins *x = &b->p->ins[r];
	if (x->kind != I_OP || x->op != OP_MUL)
		return -1;
	for (int k = 0; k < 2; k++) {
		const Ins *c = &b->p->ins[x->a[k]];
		if (c->kind == I_CONST && c->c.i == -1 && is_ivar(b, x->a[1 - k]))
			return x->a[1 - k];
	}
	return -1;
}

/* A comparison of (-1 * u + v) with 0, u and v index variables' values,
 * as Inductor writes a causal mask (`x0 - y0 <= 0`): becomes v compared
 * with u (args rewritten), the same truth in one instruction. */
static void difference_compared(const Builder *b, int *args)
{
	const Ins *l = &b->p->ins[args[0]], *r = &b->p->ins[args[1]];
	if (r->kind != I_CONST || r->c.i != 0 || l->kind != I_OP || l->op != OP_ADD)
		return;
	for (int k = 0; k < 2; k++) {
		int u = negated_ivar(b, l->a[k]);
		if (u >= 0 && is_ivar(b, l->a[1 - k])) {
			args[0] = l->a[1 - k];
			args[1] = u;
			return;
		}
	}
}

static int operation(Builder *b, const Node *n, const Env *env)
{
	int kind = op_info[n->op].kind, args[3];
	if (kind == K_LOGIC)
		return logic(b, n, env);
	if (n->op == OP_WHERE)
		return where(b, n, env);
	bool consts = true;
	Val v[3];
	for (int i = 0; i < n->nargs; i++) {
		args[i] = expr(b, n->args[i], env);
		if (kind != K_PRED)
			args[i] = cast(b, args[i], n->opdt);
		consts &= b->p->ins[args[i]].kind == I_CONST;
		v[i] = b->p->ins[args[i]].c;
	}
	/* folded: an op of constants is one, but for a wrap() whose modulus is
	 * below 1, an error at run time (the only value op that can fail) */
	if (consts && !(n->op == OP_WRAP && v[1].i < 1))
		return constant(b, n->dt, val_op(n->op, kind == K_PRED ? n->args[0]->dt : n->opdt, v), n);
	if (kind == K_CMP && dt_is_int(n->opdt))
		difference_compared(b, args);
	return op(b, n->op, n->dt, n->opdt, n->nargs, args, n);
}

static int reduction(Builder *b, const Node *n, const Env *env)
{
	Prog *p = b->p;
	if (p->nscopes == MAXSCOPES)
		error_at(&b->in->diag, n->sp, "too many nested reductions");
	int outer = b->scope, s = p->nscopes++;
	p->scopes[s] = (Scope){.parent = outer, .nvars = n->nrvars, .vars = (const Var **)n->rvars};
	b->scope = s;
	int body = expr(b, n->args[0], env);
	b->scope = outer;
	return emit(b, (Ins){.kind = I_REDUCE, .op = n->op, .dt = n->dt, .opdt = n->args[0]->dt, .nargs = 1,
	                     .a = {body}, .inner = s, .src = n});
}

static int expr(Builder *b, const Node *n, const Env *env)
{
	switch (n->kind) {
	case N_INT:
	case N_BOOL:
		return constant(b, n->dt, (Val){.i = n->ival}, n);
	case N_FLOAT:
		return constant(b, n->dt, (Val){.f = n->fval}, n);
	case N_SIZE:
		return constant(b, ATHENE_I64, (Val){.i = b->in->size[n->sym]}, n);
	case N_IVAR:
		return variable(b, n, env);
	case N_LOAD:
	case N_FLAT:
		return load(b, n, env);
	case N_CAST:
		return cast(b, expr(b, n->args[0], env), n->dt);
	case N_BITCAST:
		return bitcast(b, expr(b, n->args[0], env), n->dt, n);
	case N_OP:
		return operation(b, n, env);
	case N_REDUCE:
		return reduction(b, n, env);
	}
	die("unexpected node in body");
}

Prog *body_build(Inst *in, const Planned *ps)
{
	Prog *p = arena_alloc(&in->arena, sizeof *p);
	Builder b = {in, ps, p, 0, 0, -1};
	p->scopes = arena_alloc(&in->arena, MAXSCOPES * sizeof *p->scopes);
	p->nscopes = 1;
	p->scopes[0] = (Scope){.parent = -1};
	p->out = ps->stmt->t->dt;
	p->store = -1;
	p->accum = ps->stmt->accum;
	if (ps->stmt->at) /* a scatter: the element written first, then the value */
		p->store = load_access(&b, ps->stmt->at, NULL, 0);
	p->result = cast(&b, expr(&b, ps->stmt->rhs, NULL), p->out);
	for (int r = 0; r < p->n; r++) {
		p->nvalues += p->ins[r].kind != I_CONST;
		p->nfuncs += p->ins[r].kind == I_OP && narrow_fn(p->ins[r].op);
	}
	return p;
}

/* ---- printing (athene -d body) ---- */

void body_print(Buf *b, const Prog *p)
{
	for (int r = 0; r < p->n; r++) {
		const Ins *x = &p->ins[r];
		buf_printf(b, "    %%%d = %s ", r, athene_dtype_name(x->dt));
		switch (x->kind) {
		case I_CONST:
			if (dt_is_float(x->dt))
				buf_printf(b, "const %.17g", x->c.f);
			else
				buf_printf(b, "const %lld", (long long)x->c.i);
			break;
		case I_IVAR: buf_printf(b, "var %s", x->var->name); break;
		case I_LOAD: buf_printf(b, "load operand %d", x->operand); break;
		case I_CAST: buf_printf(b, "cast %%%d", x->a[0]); break;
		case I_BITCAST: buf_printf(b, "bits %%%d", x->a[0]); break;
		case I_OP: buf_printf(b, "%s.%s", op_info[x->op].name, athene_dtype_name(x->opdt)); break;
		case I_REDUCE: buf_printf(b, "%s over scope %d of %%%d", reduce_info[x->op].name, x->inner, x->a[0]); break;
		}
		for (int i = 0; x->kind == I_OP && i < x->nargs; i++)
			buf_printf(b, " %%%d", x->a[i]);
		for (int i = 0; i < x->natoms; i++)
			buf_printf(b, "%s%%%d", i ? ", " : "  atoms ", x->atom_reg[i]);
		for (int i = 0; i < x->nchecks; i++)
			buf_printf(b, "%s%%%d (dim %d)", i ? ", " : "  checks ", x->check_reg[i], x->check_dim[i]);
		if (x->exact)
			buf_printf(b, "  [exact]");
		if (x->scope)
			buf_printf(b, "  [scope %d]", x->scope);
		if (x->guard >= 0)
			buf_printf(b, "  [if %%%d]", x->guard);
		buf_putc(b, '\n');
	}
	for (int s = 1; s < p->nscopes; s++) {
		buf_printf(b, "    scope %d in %d:", s, p->scopes[s].parent);
		for (int v = 0; v < p->scopes[s].nvars; v++)
			buf_printf(b, " %s", p->scopes[s].vars[v]->name);
		buf_putc(b, '\n');
	}
	if (p->store >= 0)
		buf_printf(b, "    scatter %%%d as %s %s at %%%d\n", p->result, athene_dtype_name(p->out), p->accum ? "adding" : "storing",
		           p->store);
	else
		buf_printf(b, "    store %%%d as %s\n", p->result, athene_dtype_name(p->out));
}
