/* The helpers the module writer (emit.c) and the kernel-body writer
 * (kernel.c) share: names and spellings, the operands of a statement, the
 * block axes they sit on, index expressions and the registers of the body
 * IR as Python. Neither of the two files is called from here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

static void ep_constant(Buf *b, Em *e, int r);
static void ep_map_var(Buf *b, const PlanStmt *ps, const Var *v, bool pid);
static void ep_node_expr(Buf *b, SymCtx *c, const Node *n);
static int ep_reg_of(SymCtx *c, const Node *n);

/* The operands as the module moves them: the plan's, with reversed axes
 * flipped by the wrapper (Mosaic has no in-kernel reverse), so the kernel
 * walks every axis upwards. Set per statement by emit_pallas_kernel. */
_Thread_local const PlanOperand *const *ep_moved;

static void sym_leaf(Buf *b, const Sym *s, void *env);

/* Does expression s need parentheses as an ep_operand (a space or a sign at
 * its top level)? */
static bool compound(const char *s)
{
	int depth = 0;
	if (*s == '-' || *s == '~')
		return true;
	for (; *s; s++) {
		depth += *s == '(' || *s == '[';
		depth -= *s == ')' || *s == ']';
		if (*s == ' ' && !depth)
			return true;
	}
	return false;
}

/* Squeezed, exact (the block holds what the step needs, from a multiple of
 * its size), or whole (loaded whole and sliced in the kernel). */
int ep_axis_mode(const PlanStmt *ps, const PlanAxis *x)
{
	if (!x->block)
		return AX_SQUEEZED;
	if (x->widened)
		return AX_WHOLE;
	if (x->kind != VA_ITER)
		return AX_EXACT;
	if (x->step != 1 && x->step != -1)
		return AX_WHOLE; /* a strided slice of the axis: picked in the kernel */
	int64_t b = x->block;
	if (ep_on_grid(ps, x)) {
		const PlanVar *v = ep_axis_var(ps, x);
		if (x->step > 0)
			return x->start % b == 0 ? AX_EXACT : AX_WHOLE;
		return (x->start + 1) % b == 0 && x->len % b == 0 && v->n % v->block == 0 ? AX_EXACT : AX_WHOLE;
	}
	int64_t first = x->step > 0 ? x->start : x->start - x->len + 1;
	/* a block past the axis's end: the gpu's power-of-two block of a whole variable */
	return first % b == 0 && (b == x->len || (!first && b > x->len && x->len == x->size)) ? AX_EXACT : AX_WHOLE;
}

const PlanVar *ep_axis_var(const PlanStmt *ps, const PlanAxis *x)
{
	return x->var >= 0 ? &ps->vars[x->var] : NULL;
}

int ep_digit_key(const PlanStmt *ps, const ViewDigit *g)
{
	return ep_pvar_index(ps, g->var) * 64 + (g->nsplit - 1 - g->index);
}

/* An operand no used instruction loads: the call does not pass it. */
void ep_drop_operand(int j)
{
	((PlanOperand *)ep_moved[j])->naxes = 0;
}

const char *ep_fn_name(Em *e, Buf *b)
{
	b->len = 0;
	buf_printf(b, "_%s_%s", e->kname, e->sname);
	return buf_str(b);
}

/* The position of gathered axis x: in an index map (grid indices), or in
 * the kernel (program ids). */
void ep_gather_pos(Buf *b, Em *e, const PlanOperand *op, const PlanAxis *x, bool pid)
{
	const View *v = op->view;
	const VAxis *va = &v->ax[x->vaxis];
	int64_t c0 = va->start - va->step * v->gat[va->ref].atom->lo;
	SymCtx c = {.e = e, .map = true, .pid = pid, .load = NULL, .reg = -1};
	if (c0 || va->step < 0)
		buf_printf(b, "%lld %c ", (long long)c0, va->step > 0 ? '+' : '-');
	ep_node_expr(b, &c, v->gat[va->ref].atom->p);
}

const PlanOperand *ep_index_operand(const PlanStmt *ps, const Node *load)
{
	for (int i = 0; i < ps->ops.n; i++)
		if (ep_operand(ps, i)->acc->load == load)
			return ep_operand(ps, i);
	return NULL;
}

const char *ep_jdt(DType t)
{
	return dtype_info[t].jnp;
}

/* The lowest and one past the highest position an axis's slice takes:
 * start + step·k for k in [0, len). */
int64_t ep_lowest(const PlanAxis *x)
{
	return x->step > 0 ? x->start : x->start + x->step * (x->len - 1);
}

/* A variable's value in an index map: its grid index (a variable that
 * addresses an index load has block 1), or 0 when it is not on the grid. */
static void ep_map_var(Buf *b, const PlanStmt *ps, const Var *v, bool pid)
{
	for (int i = 0; i < ps->nvars; i++)
		if (ps->vars[i].var == v) {
			const PlanVar *pv = &ps->vars[i];
			/* the block's first value: an index read once per step is the same for all */
			if (pv->grid >= 0 && pid)
				buf_printf(b, "pl.program_id(%d)", pv->grid);
			else if (pv->grid >= 0)
				buf_printf(b, "%s", ep_pyname(v->name));
			else
				buf_printf(b, "0");
			if (pv->grid >= 0 && pv->block != 1)
				buf_printf(b, " * %lld", (long long)pv->block);
			return;
		}
	buf_printf(b, "0");
}

/* x << c and x >> c with the language's counts outside [0, bits): the
 * shift itself only sees counts inside (a lowering may take them modulo the
 * width), << then gives 0 and >> the sign (base/scalar.c, shift). Dtypes
 * narrower than 32 bits shift in int32 and wrap back (Mosaic compares no
 * u8 vectors and shifts no i16 ones). */
void ep_shift(Buf *o, int op, DType t, const char *x0, const char *c)
{
	int bits = dt_bits(t);
	bool narrow = bits < 32;
	Buf xw = {0}, cw = {0};
	buf_printf(&xw, narrow ? "(%s).astype(jnp.int32)" : "%s", x0);
	buf_printf(&cw, narrow ? "(%s).astype(jnp.int32)" : "(%s)", c);
	const char *x = buf_str(&xw), *n = buf_str(&cw);
	if (narrow)
		buf_putc(o, '(');
	if (op == OP_SHL)
		buf_printf(o, "jnp.where((%s >= 0) & (%s < %d), jnp.left_shift(%s, jnp.clip(%s, 0, %d)), 0)", n, n, bits, x, n,
		           bits - 1);
	else if (dt_is_signed(t)) /* a count outside shifts by bits - 1: the sign */
		buf_printf(o, "jnp.right_shift(%s, jnp.where((%s >= 0) & (%s < %d), %s, %d))", x, n, n, bits, n, bits - 1);
	else
		buf_printf(o, "jnp.where((%s >= 0) & (%s < %d), jnp.right_shift(%s, jnp.clip(%s, 0, %d)), 0)", n, n, bits, x, n,
		           bits - 1);
	if (narrow)
		buf_printf(o, ").astype(%s)", ep_jdt(t));
	buf_free(&xw);
	buf_free(&cw);
}

/* An index expression from the AST (a gathered subscript): in an index map
 * from the prefetched refs; in the kernel from the body's registers. */
static void ep_node_expr(Buf *b, SymCtx *c, const Node *n)
{
	if (!c->map && !c->xla) {
		int r = ep_reg_of(c, n);
		if (r >= 0) {
			c->e->used[r] = true;
			ep_reg(b, c->e, r);
			return;
		}
	}
	switch (n->kind) {
	case N_INT:
	case N_BOOL: buf_printf(b, "%lld", (long long)n->ival); return;
	case N_SIZE: buf_printf(b, "%lld", (long long)c->e->in->size[n->sym]); return;
	case N_IVAR: {
		Sym fake = {.kind = S_VAR, .p = n->var};
		sym_leaf(b, &fake, c);
		return;
	}
	case N_CAST: ep_node_expr(b, c, n->args[0]); return;
	case N_LOAD:
	case N_FLAT: {
		const PlanOperand *op = ep_index_operand(c->e->ps, n);
		if (op && c->xla) {
			int i = 0;
			while (i < c->nreads && c->reads[i] != op->t)
				i++;
			if (i == c->nreads && c->nreads < 16)
				c->reads[c->nreads++] = op->t;
			buf_printf(b, "jnp.take(%s, ", ep_pyname(op->t->name));
			ep_sym_expr(b, c, op->acc->off);
			buf_printf(b, ", mode=\"clip\")");
			return;
		}
		if (!op || !op->prefetch || !c->map)
			ep_unsupported(c->e, "a gathered index that is not prefetched");
		buf_printf(b, "%s[", ep_ref_name(c->e->ps, op));
		ep_sym_expr(b, c, op->acc->off);
		buf_putc(b, ']');
		return;
	}
	case N_OP: {
		Buf a[3] = {{0}, {0}, {0}};
		for (int i = 0; i < n->nargs && i < 3; i++)
			ep_node_expr(&a[i], c, n->args[i]);
		if (n->op == OP_SHL || n->op == OP_SHR)
			ep_shift(b, n->op, n->opdt, buf_str(&a[0]), buf_str(&a[1]));
		else
			ep_spell(b, op_info[n->op].jnp, a, n->nargs);
		for (int i = 0; i < 3; i++)
			buf_free(&a[i]);
		return;
	}
	}
	ep_unsupported(c->e, "this gathered index expression");
}

bool ep_on_grid(const PlanStmt *ps, const PlanAxis *x)
{
	const PlanVar *v = ep_axis_var(ps, x);
	return v && v->grid >= 0;
}

const PlanOperand *ep_operand(const PlanStmt *ps, int j)
{
	return ep_moved ? ep_moved[j] : ps->ops.v[j];
}

int ep_pvar_index(const PlanStmt *ps, const Var *v)
{
	for (int i = 0; i < ps->nvars; i++)
		if (ps->vars[i].var == v)
			return i;
	return -1;
}

/* Python names of tensors and variables: never a keyword or a module name. */
const char *ep_pyname(const char *s)
{
	static const char *const bad[] = {"and", "as", "assert", "break", "class", "continue", "def", "del", "elif",
	                                  "else", "except", "finally", "for", "from", "global", "if", "import", "in",
	                                  "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
	                                  "while", "with", "yield", "None", "True", "False", "np", "jnp", "jax", "pl",
	                                  "pltpu", "interpret", "functools"};
	static _Thread_local char buf[4][80];
	static _Thread_local int k;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (!strcmp(s, bad[i])) {
			char *r = buf[k++ & 3];
			snprintf(r, sizeof buf[0], "%s_", s);
			return r;
		}
	return s;
}

/* The kernel's name for an operand's ref: x_ref, or x2_ref for the second
 * operand that reads x. */
const char *ep_ref_name(const PlanStmt *ps, const PlanOperand *op)
{
	static _Thread_local char buf[8][96];
	static _Thread_local int k;
	char *r = buf[k++ & 7];
	int seen = 0;
	for (int i = 0; i < op->access; i++)
		seen += ep_operand(ps, i)->t == op->t;
	if (seen)
		snprintf(r, sizeof buf[0], "%s%d_ref", op->t->name, seen + 1);
	else
		snprintf(r, sizeof buf[0], "%s_ref", op->t->name);
	return r;
}

/* A Python slice of the positions of axis x from `start` (static). */
void ep_slice_of(Buf *b, const PlanAxis *x, int64_t start)
{
	int64_t stop = start + x->step * x->len;
	if (x->step == 1)
		buf_printf(b, "%lld:%lld", (long long)start, (long long)(start + x->len));
	else if (x->step > 0)
		buf_printf(b, "%lld:%lld:%lld", (long long)start, (long long)(start + x->step * (x->len - 1) + 1),
		           (long long)x->step);
	else if (stop < 0)
		buf_printf(b, "%lld::%lld", (long long)start, (long long)x->step);
	else
		buf_printf(b, "%lld:%lld:%lld", (long long)start, (long long)stop, (long long)x->step);
}

void ep_sort_by_key(int *perm, const int *key, int n)
{
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = 1; i < n; i++) /* insertion: stable, and n is a handful */
		for (int j = i; j > 0 && key[perm[j - 1]] > key[perm[j]]; j--) {
			int t = perm[j];
			perm[j] = perm[j - 1];
			perm[j - 1] = t;
		}
}

/* An op's jnp spelling with its operands substituted. */
void ep_spell(Buf *b, const char *pat, Buf *args, int n)
{
	for (const char *s = pat; *s; s++) {
		if (*s == '$' && s[1] >= '0' && s[1] < '0' + n) {
			const char *a = buf_str(&args[s[1] - '0']);
			/* an argument of a call, "f($0, $1)": no parentheses of its own */
			bool call_arg = s > pat && (s[-1] == '(' || (s - pat >= 2 && s[-2] == ',')) && (s[2] == ',' || s[2] == ')');
			buf_printf(b, compound(a) && !call_arg ? "(%s)" : "%s", a);
			s++;
		} else
			buf_putc(b, *s);
	}
}

/* A sum of products, floor divisions and remainders, in Python. */
void ep_sym_expr(Buf *b, SymCtx *c, const Sym *s)
{
	switch (s->kind) {
	case S_CONST: buf_printf(b, "%lld", (long long)s->c); return;
	case S_VAR:
	case S_ATOM: sym_leaf(b, s, c); return;
	case S_ADD:
		buf_putc(b, '(');
		for (int i = 0; i < s->n; i++) {
			if (i)
				buf_printf(b, s->k[i] < 0 ? " - " : " + ");
			else if (s->k[i] < 0)
				buf_putc(b, '-');
			if (llabs(s->k[i]) != 1)
				buf_printf(b, "%lld*", (long long)llabs(s->k[i]));
			ep_sym_expr(b, c, s->a[i]);
		}
		if (s->c)
			buf_printf(b, " %c %lld", s->c < 0 ? '-' : '+', (long long)llabs(s->c));
		buf_putc(b, ')');
		return;
	case S_MUL:
		buf_putc(b, '(');
		for (int i = 0; i < s->n; i++) {
			buf_printf(b, i ? " * " : "");
			ep_sym_expr(b, c, s->a[i]);
		}
		buf_putc(b, ')');
		return;
	case S_DIV:
	case S_MOD:
		buf_putc(b, '(');
		ep_sym_expr(b, c, s->a[0]);
		buf_printf(b, s->kind == S_DIV ? " // " : " %% ");
		ep_sym_expr(b, c, s->a[1]);
		buf_putc(b, ')');
		return;
	}
}

void ep_tuple(Buf *b, const int64_t *v, int n)
{
	buf_putc(b, '(');
	for (int i = 0; i < n; i++)
		buf_printf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
	buf_printf(b, n == 1 ? ",)" : ")");
}

_Noreturn void ep_unsupported(Em *e, const char *what)
{
	error_plain(&e->in->diag, "kernel %s: the Pallas emitter cannot express %s", e->kname, what);
}

/* a * b for a size the module spells; past 2^63 (blocks padding an array
 * near the limit) there is no module to write */
int64_t ep_mul(Em *e, int64_t a, int64_t b)
{
	int64_t r;
	if (!i64_mul(a, b, &r))
		ep_unsupported(e, "an array padded past 2^63 elements");
	return r;
}

static void sym_leaf(Buf *b, const Sym *s, void *env)
{
	SymCtx *c = env;
	if (s->kind == S_VAR) {
		if (c->xla) {
			buf_printf(b, "%s", ep_pyname(((const Var *)s->p)->name));
			return;
		}
		if (c->map) {
			ep_map_var(b, c->e->ps, s->p, c->pid);
			return;
		}
		int vi = ep_pvar_index(c->e->ps, s->p);
		if (vi < 0)
			die("a variable outside the statement");
		ep_use_iota(c->e, vi);
		buf_printf(b, "%s", ep_pyname(((const Var *)s->p)->name));
		return;
	}
	ep_node_expr(b, c, s->p);
}

/* The register whose expression stands for r (casts that change nothing). */
int ep_alias_of(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	while (x->kind == I_CAST && !strcmp(ep_rdt(e, r), ep_rdt(e, x->a[0]))) {
		r = x->a[0];
		x = &e->prog->ins[r];
	}
	return r;
}

static void ep_constant(Buf *b, Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	if (x->dt == ATHENE_BOOL) /* an array, as every other constant: True has no .astype */
		buf_printf(b, "%s(%s)", ep_jdt(x->dt), x->c.i ? "True" : "False");
	else if (!dt_is_float(x->dt))
		buf_printf(b, "%s(%lld)", ep_rdt(e, r), (long long)x->c.i);
	else if (isnan(x->c.f))
		buf_printf(b, "%s(jnp.nan)", ep_jdt(x->dt));
	else if (isinf(x->c.f))
		buf_printf(b, "%s(%sjnp.inf)", ep_jdt(x->dt), x->c.f < 0 ? "-" : "");
	else if (x->c.f == 0 && signbit(x->c.f))
		buf_printf(b, "%s(-0.0)", ep_jdt(x->dt)); /* (%g's "-0" is the int 0: +0.0) */
	else
		buf_printf(b, "%s(%.17g)", ep_jdt(x->dt), x->c.f);
}

/* Extent in the block of digit g of a variable whose block extent is vb. */
int64_t ep_digit_extent(const ViewDigit *g, int64_t vb)
{
	return g->index == g->nsplit - 1 ? i64_ceil_div(vb, g->place) : g->n;
}

/* Is digit g an axis of the operand's block value (not broadcast, not
 * squeezed onto the grid)? */
bool ep_present_in(const PlanOperand *op, const ViewDigit *g)
{
	if (g->axis < 0 || g->n <= 1)
		return false;
	for (int a = 0; a < op->naxes; a++) /* a cut axis: its squeezed top part is the grid's */
		if (op->ax[a].vaxis == g->axis && op->ax[a].block)
			return true;
	return false;
}

void ep_reg(Buf *b, Em *e, int r)
{
	r = ep_alias_of(e, r);
	const Ins *x = &e->prog->ins[r];
	if (x->kind == I_CONST)
		ep_constant(b, e, r);
	else if (x->kind == I_IVAR && e->narrow[r]) {
		int vi = ep_pvar_index(e->ps, x->var);
		ep_use_iota(e, vi);
		buf_printf(b, "%s", ep_pyname(x->var->name));
	} else
		buf_printf(b, "v%d", r);
}

/* The register (the last before the load's) that computes node n. */
static int ep_reg_of(SymCtx *c, const Node *n)
{
	for (int r = c->reg - 1; r >= 0; r--)
		if (c->e->prog->ins[r].src == n && c->e->prog->ins[r].kind != I_CONST)
			return r;
	return -1;
}

/* Is the store's offset the row-major position of the output variables
 * over the whole storage? */
bool ep_rowmajor(const Em *e, const Sym *off)
{
	const PlanStmt *ps = e->ps;
	int64_t st = 1, want[PLAN_MAXVARS];
	for (int v = ps->nlhs - 1; v >= 0; v--) {
		want[v] = ps->vars[v].n > 1 ? st : 0;
		st *= ps->vars[v].n;
	}
	if (st != tensor_layout(e->in, ps->stmt->t)->storage)
		return false;
	int n = off->kind == S_VAR ? 1 : off->kind == S_ADD && !off->c ? off->n : off->kind == S_CONST && !off->c ? 0 : -1;
	for (int i = 0; i < n; i++) {
		const Sym *t = off->kind == S_VAR ? off : off->a[i];
		int64_t k = off->kind == S_VAR ? 1 : off->k[i];
		int v = t->kind == S_VAR ? ep_pvar_index(ps, t->p) : -1;
		if (v < 0 || v >= ps->nlhs || want[v] != k)
			return false;
		want[v] = 0;
	}
	for (int v = 0; v < ps->nlhs && n >= 0; v++)
		if (want[v])
			return false;
	return n >= 0;
}

/* The iota of variable vi over the block, offset by its grid step. */
void ep_use_iota(Em *e, int vi)
{
	if (e->iota_done[vi])
		return;
	e->iota_done[vi] = true;
	const PlanVar *v = &e->ps->vars[vi];
	Buf s = {0};
	ep_shape_of(&s, e, 1u << vi);
	if (v->grid >= 0)
		ep_line(e, "%s = pl.program_id(%d) * %lld + jax.lax.broadcasted_iota(jnp.int32, %s, %d)", ep_pyname(v->var->name),
		     v->grid, (long long)v->block, buf_str(&s), vi);
	else
		ep_line(e, "%s = jax.lax.broadcasted_iota(jnp.int32, %s, %d)", ep_pyname(v->var->name), buf_str(&s), vi);
	buf_free(&s);
}

void ep_line(Em *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_printf(e->b, "    ");
	buf_vprintf(e->b, fmt, ap);
	buf_putc(e->b, '\n');
	va_end(ap);
}

const char *ep_rdt(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	return e->narrow[r] ? "jnp.int32" : ep_jdt(x->dt);
}

void ep_shape_of(Buf *b, Em *e, unsigned dep)
{
	int64_t s[PLAN_MAXVARS];
	for (int v = 0; v < e->ps->nvars; v++)
		s[v] = dep >> v & 1 ? e->vb[v] : 1;
	ep_tuple(b, s, e->ps->nvars);
}
