/* Pallas emitter: one self-contained Python module for the kernels of a
 * file, rendered from each instance's tpu plan (read-only) and its body IR.
 *
 * Per kernel K the module has:
 *  - one kernel function over refs per planned statement (_K_y), the body
 *    IR rendered over the statement's block as jax.numpy values;
 *  - K_pure(*inputs, interpret=False): the traceable function: storage
 *    reshapes from the views, one pl.pallas_call per planned statement with
 *    the plan's grid, BlockSpecs and index maps; it returns the outputs and,
 *    when a gather's indices are not proven in range, the bad-index records;
 *  - K(*inputs, interpret=None): the entry point, a jax.jit of K_pure that
 *    raises IndexError for the first out-of-range index a kernel counted.
 *
 * Inside a kernel every value lives in the block's iteration space: one axis
 * per variable of the statement (output variables, then reductions), of the
 * variable's block, or of size 1 where the value does not depend on it. A
 * load turns its block into that space: static indices and in-kernel slices
 * of widened axes, a transpose into variable order, digits merged into
 * their variable; a store does the inverse. An axis whose block does not
 * start on a multiple of its size is loaded whole and sliced in the kernel.
 *
 * Rows gathered through scalar prefetch are placed by the index map, which
 * clamps the row into the table so the DMA never leaves it; the kernel
 * counts the indices that were out of range in an SMEM record (count, check,
 * value, position), which the entry point turns into an IndexError. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { AX_SQUEEZED, AX_EXACT, AX_WHOLE };

typedef struct {
	Buf *b;
	Inst *in;
	const Plan *p;
	const PlanStmt *ps;
	const Prog *prog;
	const char *kname, *sname; /* kernel, stored tensor */
	unsigned *needs;
	int nchecks;               /* checks of the whole kernel so far */
	int stmt_checks;           /* of this statement */
	int64_t vb[PLAN_MAXVARS];  /* each variable's extent in the block */
	bool *used;
	bool *narrow;              /* an i64 register that only indexes: int32 */
	unsigned *dep;             /* variables a register depends on */
	bool *iota_done;
	Buf msgs;                  /* the kernel's bad-index messages */
} Em;

enum { NEED_RECORD = 1, NEED_I32 = 2, NEED_X64 = 4, NEED_PAD = 8 };

static _Noreturn void unsupported(Em *e, const char *what)
{
	error_plain(&e->in->diag, "kernel %s: the Pallas emitter cannot express %s", e->kname, what);
}

static const char *jdt(DType t)
{
	static const char *const n[] = {"jnp.bool_",   "jnp.int8",    "jnp.int16",    "jnp.int32",  "jnp.int64",
	                                "jnp.uint8",   "jnp.float16", "jnp.bfloat16", "jnp.float32", "jnp.float64"};
	return n[t];
}

/* Python names of tensors and variables: never a keyword or a module name. */
static const char *pyname(const char *s)
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

static void tuple(Buf *b, const int64_t *v, int n)
{
	buf_putc(b, '(');
	for (int i = 0; i < n; i++)
		buf_printf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
	buf_printf(b, n == 1 ? ",)" : ")");
}

/* ---- operands: how each axis is moved ---- */

/* The operands as the module moves them: the plan's, with reversed axes
 * flipped by the wrapper (Mosaic has no in-kernel reverse), so the kernel
 * walks every axis upwards. Set per statement by emit_pallas_kernel. */
static _Thread_local const PlanOperand *const *moved;

static const PlanOperand *operand(const PlanStmt *ps, int j)
{
	return moved ? moved[j] : ps->ops.v[j];
}

/* Axes the wrapper flips: reversed slices of an operand read by view. */
static bool flipped(const PlanOperand *op, const PlanAxis *x)
{
	return op->cls != VIEW_ELEM && !op->prefetch && x->kind == VA_ITER && x->step < 0;
}

/* The axes of a moved operand that the wrapper flips (the plan's reversed ones). */
static void flip_axes(Buf *b, const PlanStmt *ps, const PlanOperand *op)
{
	const PlanOperand *plan = ps->ops.v[op->access];
	for (int a = 0, k = 0; a < plan->naxes; a++)
		if (flipped(plan, &plan->ax[a]))
			buf_printf(b, "%s%d", k++ ? ", " : "", a);
}

/* The kernel's name for an operand's ref: x_ref, or x2_ref for the second
 * operand that reads x. */
static const char *ref_name(const PlanStmt *ps, const PlanOperand *op)
{
	static _Thread_local char buf[8][96];
	static _Thread_local int k;
	char *r = buf[k++ & 7];
	int seen = 0;
	for (int i = 0; i < op->access; i++)
		seen += operand(ps, i)->t == op->t;
	if (seen)
		snprintf(r, sizeof buf[0], "%s%d_ref", op->t->name, seen + 1);
	else
		snprintf(r, sizeof buf[0], "%s_ref", op->t->name);
	return r;
}

static const PlanVar *axis_var(const PlanStmt *ps, const PlanAxis *x)
{
	return x->var >= 0 ? &ps->vars[x->var] : NULL;
}

static bool on_grid(const PlanStmt *ps, const PlanAxis *x)
{
	const PlanVar *v = axis_var(ps, x);
	return v && v->grid >= 0;
}

/* The lowest and one past the highest position an axis's slice takes:
 * start + step·k for k in [0, len). */
static int64_t lowest(const PlanAxis *x)
{
	return x->step > 0 ? x->start : x->start + x->step * (x->len - 1);
}

static int64_t highest(const PlanAxis *x)
{
	return (x->step > 0 ? x->start + x->step * (x->len - 1) : x->start) + 1;
}

/* A Python slice of the positions of axis x from `start` (static). */
static void slice_of(Buf *b, const PlanAxis *x, int64_t start)
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

/* Squeezed, exact (the block holds what the step needs, from a multiple of
 * its size), or whole (loaded whole and sliced in the kernel). */
static int axis_mode(const PlanStmt *ps, const PlanAxis *x)
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
	if (on_grid(ps, x)) {
		const PlanVar *v = axis_var(ps, x);
		if (x->step > 0)
			return x->start % b == 0 ? AX_EXACT : AX_WHOLE;
		return (x->start + 1) % b == 0 && x->len % b == 0 && v->n % v->block == 0 ? AX_EXACT : AX_WHOLE;
	}
	int64_t first = x->step > 0 ? x->start : x->start - x->len + 1;
	return first % b == 0 && b == x->len ? AX_EXACT : AX_WHOLE;
}

static int64_t array_elems(const PlanOperand *op)
{
	int64_t n = 1;
	for (int a = 0; a < op->naxes; a++)
		n *= op->ax[a].size;
	return n;
}

/* ---- index maps ---- */

static const char *grid_name(const PlanStmt *ps, int g)
{
	return pyname(ps->vars[ps->grid_var[g]].var->name);
}

/* A variable's value in an index map: its grid index (a variable that
 * addresses an index load has block 1), or 0 when it is not on the grid. */
static void map_var(Buf *b, const PlanStmt *ps, const Var *v, bool pid)
{
	for (int i = 0; i < ps->nvars; i++)
		if (ps->vars[i].var == v) {
			const PlanVar *pv = &ps->vars[i];
			/* the block's first value: an index read once per step is the same for all */
			if (pv->grid >= 0 && pid)
				buf_printf(b, "pl.program_id(%d)", pv->grid);
			else if (pv->grid >= 0)
				buf_printf(b, "%s", pyname(v->name));
			else
				buf_printf(b, "0");
			if (pv->grid >= 0 && pv->block != 1)
				buf_printf(b, " * %lld", (long long)pv->block);
			return;
		}
	buf_printf(b, "0");
}

static const PlanOperand *index_operand(const PlanStmt *ps, const Node *load)
{
	for (int i = 0; i < ps->ops.n; i++)
		if (operand(ps, i)->acc->load == load)
			return operand(ps, i);
	return NULL;
}

typedef struct {
	Em *e;
	bool map;        /* index-map context: grid indices; else the kernel's iotas */
	bool pid;        /* grid indices as program ids (a prefetched load in the kernel) */
	const Ins *load; /* kernel context: the load whose atoms are registers */
	int reg;         /* that load's register */
} SymCtx;

static void node_expr(Buf *b, SymCtx *c, const Node *n);
static int reg_of(SymCtx *c, const Node *n);
static void use_iota(Em *e, int vi);
static void reg(Buf *b, Em *e, int r);

static int pvar_index(const PlanStmt *ps, const Var *v)
{
	for (int i = 0; i < ps->nvars; i++)
		if (ps->vars[i].var == v)
			return i;
	return -1;
}

static void sym_leaf(Buf *b, const Sym *s, void *env)
{
	SymCtx *c = env;
	if (s->kind == S_VAR) {
		if (c->map) {
			map_var(b, c->e->ps, s->p, c->pid);
			return;
		}
		int vi = pvar_index(c->e->ps, s->p);
		if (vi < 0)
			die("a variable outside the statement");
		use_iota(c->e, vi);
		buf_printf(b, "%s", pyname(((const Var *)s->p)->name));
		return;
	}
	node_expr(b, c, s->p);
}

/* A sum of products, floor divisions and remainders, in Python. */
static void sym_expr(Buf *b, SymCtx *c, const Sym *s)
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
			sym_expr(b, c, s->a[i]);
		}
		if (s->c)
			buf_printf(b, " %c %lld", s->c < 0 ? '-' : '+', (long long)llabs(s->c));
		buf_putc(b, ')');
		return;
	case S_MUL:
		buf_putc(b, '(');
		for (int i = 0; i < s->n; i++) {
			buf_printf(b, i ? " * " : "");
			sym_expr(b, c, s->a[i]);
		}
		buf_putc(b, ')');
		return;
	case S_DIV:
	case S_MOD:
		buf_putc(b, '(');
		sym_expr(b, c, s->a[0]);
		buf_printf(b, s->kind == S_DIV ? " // " : " %% ");
		sym_expr(b, c, s->a[1]);
		buf_putc(b, ')');
		return;
	}
}

/* Does expression s need parentheses as an operand (a space or a sign at
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

/* An op's jnp spelling with its operands substituted. */
static void spell(Buf *b, const char *pat, Buf *args, int n)
{
	for (const char *s = pat; *s; s++) {
		if (*s == '$' && s[1] >= '0' && s[1] < '0' + n) {
			const char *a = buf_str(&args[s[1] - '0']);
			bool call_arg = s > pat && (s[-1] == '(' || s[-2] == ',') && (s[2] == ',' || s[2] == ')');
			buf_printf(b, compound(a) && !call_arg ? "(%s)" : "%s", a);
			s++;
		} else
			buf_putc(b, *s);
	}
}

/* An index expression from the AST (a gathered subscript): in an index map
 * from the prefetched refs; in the kernel from the body's registers. */
static void node_expr(Buf *b, SymCtx *c, const Node *n)
{
	if (!c->map) {
		int r = reg_of(c, n);
		if (r >= 0) {
			c->e->used[r] = true;
			reg(b, c->e, r);
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
	case N_CAST: node_expr(b, c, n->args[0]); return;
	case N_LOAD:
	case N_FLAT: {
		const PlanOperand *op = index_operand(c->e->ps, n);
		if (!op || !op->prefetch || !c->map)
			unsupported(c->e, "a gathered index that is not prefetched");
		buf_printf(b, "%s[", ref_name(c->e->ps, op));
		sym_expr(b, c, op->acc->off);
		buf_putc(b, ']');
		return;
	}
	case N_OP: {
		Buf a[3] = {{0}, {0}, {0}};
		for (int i = 0; i < n->nargs && i < 3; i++)
			node_expr(&a[i], c, n->args[i]);
		spell(b, op_info[n->op].jnp, a, n->nargs);
		for (int i = 0; i < 3; i++)
			buf_free(&a[i]);
		return;
	}
	}
	unsupported(c->e, "this gathered index expression");
}

/* The position of gathered axis x: in an index map (grid indices), or in
 * the kernel (program ids). */
static void gather_pos(Buf *b, Em *e, const PlanOperand *op, const PlanAxis *x, bool pid)
{
	const View *v = op->view;
	const VAxis *va = &v->ax[x->vaxis];
	int64_t c0 = va->start - va->step * v->gat[va->ref].atom->lo;
	SymCtx c = {e, true, pid, NULL, -1};
	if (c0 || va->step < 0)
		buf_printf(b, "%lld %c ", (long long)c0, va->step > 0 ? '+' : '-');
	node_expr(b, &c, v->gat[va->ref].atom->p);
}

/* The element offset (squeezed) or block index of axis x in an index map. */
static void map_entry(Buf *b, Em *e, const PlanOperand *op, const PlanAxis *x)
{
	const PlanStmt *ps = e->ps;
	int mode = axis_mode(ps, x);
	if (mode == AX_WHOLE || x->kind == VA_UNIT) {
		buf_printf(b, "np.int32(0)");
		return;
	}
	if (x->kind == VA_INDEX) {
		buf_printf(b, "np.int32(%lld)", (long long)x->start);
		return;
	}
	if (x->kind == VA_GATHER) {
		buf_printf(b, "jnp.clip(");
		gather_pos(b, e, op, x, false);
		buf_printf(b, ", 0, %lld)", (long long)(x->size - 1));
		return;
	}
	const PlanVar *v = axis_var(ps, x);
	int64_t blk = x->block ? x->block : 1;
	if (!x->block && v && v->grid >= 0) { /* one position per step */
		const char *g = pyname(v->var->name);
		if (x->step == 1)
			buf_printf(b, x->start ? "%lld + %s" : "%.0lld%s", (long long)x->start, g);
		else
			buf_printf(b, "%lld %c %lld*%s", (long long)x->start, x->step > 0 ? '+' : '-', llabs((long long)x->step), g);
		return;
	}
	if (!v || v->grid < 0) {
		int64_t first = x->step > 0 ? x->start : x->start - x->len + 1;
		buf_printf(b, "np.int32(%lld)", (long long)(first / blk));
		return;
	}
	const char *g = pyname(v->var->name);
	if (x->step > 0) {
		int64_t s = x->start / blk;
		if (s)
			buf_printf(b, "%lld + %s", (long long)s, g);
		else
			buf_printf(b, "%s", g);
	} else
		buf_printf(b, "%lld - %s", (long long)((x->start + 1) / blk - 1), g);
}

static void map_params(Buf *b, const PlanStmt *ps)
{
	buf_printf(b, "lambda");
	int k = 0;
	for (int g = 0; g < ps->ngrid; g++)
		buf_printf(b, "%s %s", k++ ? "," : "", grid_name(ps, g));
	if (!ps->ngrid)
		buf_printf(b, " _%s", k++ ? "," : ""); /* the one step of a statement without a grid */
	for (int i = 0; i < ps->ops.n; i++)
		if (operand(ps, i)->prefetch)
			buf_printf(b, "%s %s", k++ ? "," : "", ref_name(ps, operand(ps, i)));
	buf_printf(b, ": ");
}

static void block_spec(Buf *b, Em *e, const PlanOperand *op)
{
	buf_printf(b, "pl.BlockSpec((");
	for (int a = 0; a < op->naxes; a++) {
		const PlanAxis *x = &op->ax[a];
		int mode = axis_mode(e->ps, x);
		if (a)
			buf_printf(b, ", ");
		if (mode == AX_SQUEEZED)
			buf_printf(b, "None");
		else
			buf_printf(b, "%lld", (long long)(mode == AX_WHOLE ? x->size : x->block));
	}
	buf_printf(b, op->naxes == 1 ? ",), " : "), ");
	map_params(b, e->ps);
	buf_putc(b, '(');
	for (int a = 0; a < op->naxes; a++) {
		if (a)
			buf_printf(b, ", ");
		if (op->cls == VIEW_ELEM)
			buf_printf(b, "np.int32(0)");
		else
			map_entry(b, e, op, &op->ax[a]);
	}
	buf_printf(b, op->naxes == 1 ? ",))" : "))");
}

/* ---- the kernel body ---- */

static void shape_of(Buf *b, Em *e, unsigned dep)
{
	int64_t s[PLAN_MAXVARS];
	for (int v = 0; v < e->ps->nvars; v++)
		s[v] = dep >> v & 1 ? e->vb[v] : 1;
	tuple(b, s, e->ps->nvars);
}

static void line(Em *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(Em *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_printf(e->b, "    ");
	buf_vprintf(e->b, fmt, ap);
	buf_putc(e->b, '\n');
	va_end(ap);
}

/* The iota of variable vi over the block, offset by its grid step. */
static void use_iota(Em *e, int vi)
{
	if (e->iota_done[vi])
		return;
	e->iota_done[vi] = true;
	const PlanVar *v = &e->ps->vars[vi];
	Buf s = {0};
	shape_of(&s, e, 1u << vi);
	if (v->grid >= 0)
		line(e, "%s = pl.program_id(%d) * %lld + jax.lax.broadcasted_iota(jnp.int32, %s, %d)", pyname(v->var->name),
		     v->grid, (long long)v->block, buf_str(&s), vi);
	else
		line(e, "%s = jax.lax.broadcasted_iota(jnp.int32, %s, %d)", pyname(v->var->name), buf_str(&s), vi);
	buf_free(&s);
}

/* The register (the last before the load's) that computes node n. */
static int reg_of(SymCtx *c, const Node *n)
{
	for (int r = c->reg - 1; r >= 0; r--)
		if (c->e->prog->ins[r].src == n && c->e->prog->ins[r].kind != I_CONST)
			return r;
	return -1;
}

static const char *rdt(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	return e->narrow[r] ? "jnp.int32" : jdt(x->dt);
}

static void constant(Buf *b, Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	if (x->dt == ATHENE_BOOL)
		buf_printf(b, x->c.i ? "True" : "False");
	else if (!dt_is_float(x->dt))
		buf_printf(b, "%s(%lld)", rdt(e, r), (long long)x->c.i);
	else if (isnan(x->c.f))
		buf_printf(b, "%s(jnp.nan)", jdt(x->dt));
	else if (isinf(x->c.f))
		buf_printf(b, "%s(%sjnp.inf)", jdt(x->dt), x->c.f < 0 ? "-" : "");
	else
		buf_printf(b, "%s(%.17g)", jdt(x->dt), x->c.f);
}

static bool needs_check(const Em *e, const Ins *x);
static bool present_in(const PlanOperand *op, const ViewDigit *g);

static bool sym_has_var(const Sym *s, const Var *v)
{
	if (s->kind == S_VAR)
		return s->p == v;
	for (int i = 0; i < s->n && s->kind != S_ATOM; i++)
		if (sym_has_var(s->a[i], v))
			return true;
	return false;
}

/* Registers reachable from the result and from the checks; i64 registers
 * that only compute indices are narrowed to int32. */
static void analyse_regs(Em *e, const bool *check_root)
{
	const Prog *p = e->prog;
	bool value_use[p->n + 1];
	memset(value_use, 0, sizeof value_use);
	e->used[p->result] = true;
	value_use[p->result] = true;
	/* i64 values computed from index variables, int32 constants and
	 * prefetched indices fit int32 (extents do): the TPU has no i64, so they
	 * are int32 unless an i64 tensor is stored */
	bool index[p->n + 1];
	for (int r = 0; r < p->n; r++) {
		const Ins *x = &p->ins[r];
		index[r] = x->kind == I_IVAR || (x->kind == I_CONST && !dt_is_float(x->dt) && x->c.i == (int32_t)x->c.i) ||
		           (x->kind == I_LOAD && operand(e->ps, x->operand)->prefetch);
		if ((x->kind == I_OP || x->kind == I_CAST) && !dt_is_float(x->dt)) {
			index[r] = true;
			for (int i = 0; i < x->nargs; i++)
				index[r] &= index[x->a[i]] || p->ins[x->a[i]].dt == ATHENE_BOOL;
		}
		e->narrow[r] |= x->dt == ATHENE_I64 && index[r] && p->out != ATHENE_I64;
	}
	/* backwards: every use of r is seen before r */
	for (int r = p->n - 1; r >= 0; r--) {
		const Ins *x = &p->ins[r];
		if (check_root[r])
			e->used[r] = true;
		e->narrow[r] |= x->dt == ATHENE_I64 && !value_use[r];
		if (!e->used[r])
			continue;
		for (int i = 0; i < x->nargs && x->kind != I_LOAD; i++) {
			e->used[x->a[i]] = true;
			value_use[x->a[i]] |= value_use[r] || !e->narrow[r];
		}
		/* the kernel needs a gather's indices to read elements or to check them */
		bool atoms = x->kind == I_LOAD && (operand(e->ps, x->operand)->cls == VIEW_ELEM || needs_check(e, x));
		for (int i = 0; i < x->natoms && atoms; i++)
			e->used[x->atom_reg[i]] = true;
	}
	for (int r = 0; r < p->n; r++) {
		const Ins *x = &p->ins[r];
		unsigned d = 0;
		if (x->kind == I_IVAR)
			d = 1u << pvar_index(e->ps, x->var);
		for (int i = 0; i < x->nargs && x->kind != I_LOAD; i++)
			d |= e->dep[x->a[i]];
		if (x->kind == I_LOAD) {
			const PlanOperand *op = operand(e->ps, x->operand);
			for (int v = 0; v < e->ps->nvars && !op->prefetch; v++)
				for (int g = 0; g < op->view->ndig; g++)
					if (op->view->dig[g].var == e->ps->vars[v].var && op->cls != VIEW_ELEM &&
					    present_in(op, &op->view->dig[g]))
						d |= 1u << v;
			if (op->cls == VIEW_ELEM)
				for (int v = 0; v < e->ps->nvars; v++)
					if (e->vb[v] > 1 && sym_has_var(op->acc->off, e->ps->vars[v].var))
						d |= 1u << v;
			for (int i = 0; i < x->natoms; i++)
				d |= e->dep[x->atom_reg[i]];
		}
		if (x->kind == I_REDUCE)
			for (int v = 0; v < p->scopes[x->inner].nvars; v++)
				d &= ~(1u << pvar_index(e->ps, p->scopes[x->inner].vars[v]));
		e->dep[r] = d;
	}
}

/* ---- loads ---- */

/* The block extent of plan axis x once the kernel has sliced it. */
static int64_t axis_extent(const PlanStmt *ps, const PlanAxis *x)
{
	return axis_mode(ps, x) == AX_WHOLE && !on_grid(ps, x) ? x->len : x->block;
}

/* Extent in the block of digit g of a variable whose block extent is vb. */
static int64_t digit_extent(const ViewDigit *g, int64_t vb)
{
	return g->index == g->nsplit - 1 ? (vb + g->place - 1) / g->place : g->n;
}

/* Is digit g an axis of the operand's block value (not broadcast, not
 * squeezed onto the grid)? */
static bool present_in(const PlanOperand *op, const ViewDigit *g)
{
	if (g->axis < 0 || g->n <= 1)
		return false;
	for (int a = 0; a < op->naxes; a++) /* a cut axis: its squeezed top part is the grid's */
		if (op->ax[a].vaxis == g->axis && op->ax[a].block)
			return true;
	return false;
}

/* Sorts the value axes (plan axes in ax[]) into variable order, digits most
 * significant first: perm[k] is the value axis that goes to position k. */
static void var_order(const Em *e, const PlanOperand *op, const int *ax, int n, int *perm)
{
	int key[VIEW_MAXAX + 4];
	for (int k = 0; k < n; k++) {
		const ViewDigit *g = &op->view->dig[op->ax[ax[k]].ref];
		key[k] = pvar_index(e->ps, g->var) * 64 + (g->nsplit - 1 - g->index);
		perm[k] = k;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && key[perm[j - 1]] > key[perm[j]]; j--) {
			int t = perm[j];
			perm[j] = perm[j - 1];
			perm[j - 1] = t;
		}
}

static bool identity_perm(const int *perm, int n)
{
	for (int k = 0; k < n; k++)
		if (perm[k] != k)
			return false;
	return true;
}

static bool same_shape(const int64_t *a, int na, const int64_t *b, int nb)
{
	return na == nb && !memcmp(a, b, (size_t)na * sizeof *a);
}

/* v{r} = a view operand's block, in the iteration space. */
static void load_view(Em *e, int r, const PlanOperand *op)
{
	const PlanStmt *ps = e->ps;
	const char *t = ref_name(ps, op);
	int ax[VIEW_MAXAX + 4], n = 0;
	Buf idx = {0}, pad = {0};
	bool any = false, padded = false;
	for (int a = 0; a < op->naxes; a++) {
		const PlanAxis *x = &op->ax[a];
		int mode = axis_mode(ps, x);
		if (mode == AX_SQUEEZED)
			continue;
		buf_printf(&idx, "%s", n || any ? ", " : "");
		any = true;
		/* a masked slice reaches past the array: padding, never read */
		int64_t lo = 0, hi = 0;
		if (x->kind == VA_ITER && mode == AX_WHOLE && !on_grid(ps, x)) {
			lo = lowest(x) < 0 ? -lowest(x) : 0;
			hi = highest(x) > x->size ? highest(x) - x->size : 0;
		}
		buf_printf(&pad, "(%lld, %lld), ", (long long)lo, (long long)hi);
		padded |= lo || hi;
		PlanAxis shifted = *x;
		shifted.start += lo;
		x = &shifted;
		if (x->kind == VA_UNIT)
			buf_printf(&idx, "0");
		else if (x->kind == VA_INDEX)
			buf_printf(&idx, "%lld", (long long)x->start);
		else if (x->kind != VA_ITER)
			unsupported(e, "a widened gathered axis");
		else {
			ax[n++] = a;
			if (mode == AX_WHOLE && !on_grid(ps, x))
				slice_of(&idx, x, x->start);
			else if (mode == AX_EXACT && x->step < 0)
				buf_printf(&idx, "::-1");
			else
				buf_printf(&idx, ":");
		}
	}
	bool trivial = true;
	for (const char *s = buf_str(&idx); *s; s++)
		trivial &= *s == ':' || *s == ',' || *s == ' ';
	if (padded) {
		line(e, "v%d = jnp.pad(%s[...], (%s))", r, t, buf_str(&pad));
		line(e, "v%d = v%d[%s]", r, r, buf_str(&idx));
	} else if (trivial)
		line(e, "v%d = %s[...]", r, t);
	else
		line(e, "v%d = %s[...][%s]", r, t, buf_str(&idx));
	buf_free(&idx);
	buf_free(&pad);
	/* axes on the grid loaded whole: this step's part, by its program id */
	for (int k = 0; k < n; k++) {
		const PlanAxis *x = &op->ax[ax[k]];
		if (axis_mode(ps, x) != AX_WHOLE || !on_grid(ps, x))
			continue;
		line(e, "v%d = jnp.take(v%d, %lld + %lld * (pl.program_id(%d) * %lld + jnp.arange(%lld)), axis=%d, mode=\"clip\")",
		     r, r, (long long)x->start, (long long)x->step, axis_var(ps, x)->grid, (long long)x->block,
		     (long long)x->block, k);
	}
	int perm[VIEW_MAXAX + 4];
	int64_t cur[VIEW_MAXAX + 4];
	var_order(e, op, ax, n, perm);
	for (int k = 0; k < n; k++)
		cur[k] = axis_extent(ps, &op->ax[ax[perm[k]]]);
	if (!identity_perm(perm, n)) {
		Buf p = {0};
		for (int k = 0; k < n; k++)
			buf_printf(&p, "%s%d", k ? ", " : "", perm[k]);
		line(e, "v%d = jnp.transpose(v%d, (%s))", r, r, buf_str(&p));
		buf_free(&p);
	}
	/* digits into variables: absent digits broadcast, then merged */
	int64_t exp[VIEW_MAXAX + PLAN_MAXVARS], full[VIEW_MAXAX + PLAN_MAXVARS], merged[PLAN_MAXVARS];
	int ne = 0, k = 0;
	bool cut = false;
	for (int v = 0; v < ps->nvars; v++) {
		const View *vw = op->view;
		bool has = false;
		for (int d = 0; d < vw->ndig; d++)
			has |= vw->dig[d].var == ps->vars[v].var && present_in(op, &vw->dig[d]);
		merged[v] = 1;
		if (!has) {
			exp[ne] = full[ne] = 1;
			ne++;
			continue;
		}
		for (int d = 0; d < vw->ndig; d++) {
			const ViewDigit *g = &vw->dig[d];
			if (g->var != ps->vars[v].var)
				continue;
			bool in = present_in(op, g);
			int64_t x = in ? cur[k++] : digit_extent(g, e->vb[v]);
			exp[ne] = in ? x : 1;
			full[ne++] = x;
			merged[v] *= x;
		}
		cut |= merged[v] > e->vb[v];
	}
	Buf s = {0};
	if (!same_shape(exp, ne, cur, n)) {
		tuple(&s, exp, ne);
		line(e, "v%d = v%d.reshape(%s)", r, r, buf_str(&s));
	}
	if (!same_shape(full, ne, exp, ne)) {
		s.len = 0;
		tuple(&s, full, ne);
		line(e, "v%d = jnp.broadcast_to(v%d, %s)", r, r, buf_str(&s));
	}
	if (!same_shape(merged, ps->nvars, full, ne)) {
		s.len = 0;
		tuple(&s, merged, ps->nvars);
		line(e, "v%d = v%d.reshape(%s)", r, r, buf_str(&s));
	}
	if (cut) {
		s.len = 0;
		for (int v = 0; v < ps->nvars; v++)
			if (merged[v] > e->vb[v])
				buf_printf(&s, "%s:%lld", v ? ", " : "", (long long)e->vb[v]);
			else
				buf_printf(&s, "%s:", v ? ", " : "");
		line(e, "v%d = v%d[%s]", r, r, buf_str(&s));
	}
	buf_free(&s);
}

static void load(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	const PlanOperand *op = operand(e->ps, x->operand);
	SymCtx c = {e, false, false, x, r};
	if (op->prefetch) {
		Buf o = {0};
		SymCtx m = {e, true, true, x, r};
		sym_expr(&o, &m, op->acc->off);
		line(e, "v%d = %s[%s]", r, ref_name(e->ps, op), buf_str(&o));
		buf_free(&o);
		return;
	}
	if (op->naxes == 0) {
		Buf s = {0};
		shape_of(&s, e, e->dep[r]);
		line(e, "v%d = jnp.zeros(%s, %s)  # no elements", r, buf_str(&s), jdt(x->dt));
		buf_free(&s);
		return;
	}
	if (op->cls == VIEW_ELEM) {
		Buf o = {0};
		sym_expr(&o, &c, op->acc->off);
		line(e, "# element gather: %s", op->reason);
		line(e, "v%d = jnp.take(%s[...], %s, mode=\"clip\")", r, ref_name(e->ps, op), buf_str(&o));
		buf_free(&o);
		return;
	}
	load_view(e, r, op);
}

/* ---- instructions ---- */

/* The register whose expression stands for r (casts that change nothing). */
static int alias_of(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	while (x->kind == I_CAST && !strcmp(rdt(e, r), rdt(e, x->a[0]))) {
		r = x->a[0];
		x = &e->prog->ins[r];
	}
	return r;
}

static void reg(Buf *b, Em *e, int r)
{
	r = alias_of(e, r);
	const Ins *x = &e->prog->ins[r];
	if (x->kind == I_CONST)
		constant(b, e, r);
	else if (x->kind == I_IVAR && e->narrow[r]) {
		int vi = pvar_index(e->ps, x->var);
		use_iota(e, vi);
		buf_printf(b, "%s", pyname(x->var->name));
	} else
		buf_printf(b, "v%d", r);
}

static const char *identity(int op, DType t)
{
	switch (op) {
	case R_SUM: return "0";
	case R_PROD: return "1";
	case R_ANY: return "False";
	case R_ALL: return "True";
	case R_MAX: return dt_is_float(t) ? "-jnp.inf" : t == ATHENE_BOOL ? "False" : NULL;
	case R_MIN: return dt_is_float(t) ? "jnp.inf" : t == ATHENE_BOOL ? "True" : NULL;
	}
	return NULL;
}

/* The identity of a reduction as a Python expression of dtype t. */
static void identity_of(Buf *b, int op, DType t)
{
	const char *id = identity(op, t);
	if (id)
		buf_printf(b, "%s", id);
	else
		buf_printf(b, "jnp.iinfo(%s).%s", jdt(t), op == R_MAX ? "min" : "max");
}

static void reduce(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	const Scope *sc = &e->prog->scopes[x->inner];
	unsigned mask = 0;
	Buf axes = {0}, s = {0}, v = {0};
	int lo = PLAN_MAXVARS, hi = -1;
	for (int i = 0; i < sc->nvars; i++) {
		int vi = pvar_index(e->ps, sc->vars[i]);
		mask |= 1u << vi;
		buf_printf(&axes, "%s%d", i ? ", " : "", vi);
		lo = vi < lo ? vi : lo;
		hi = vi > hi ? vi : hi;
	}
	shape_of(&s, e, e->dep[x->a[0]] | mask);
	reg(&v, e, x->a[0]);
	line(e, "v%d = jnp.broadcast_to(%s, %s)", r, buf_str(&v), buf_str(&s));
	/* a partial last block of a reduction on the grid holds padding */
	for (int i = 0; i < sc->nvars; i++) {
		int vi = pvar_index(e->ps, sc->vars[i]);
		const PlanVar *pv = &e->ps->vars[vi];
		if (pv->grid < 0 || pv->n % pv->block == 0)
			continue;
		Buf id = {0};
		identity_of(&id, x->op, x->opdt);
		use_iota(e, vi);
		line(e, "v%d = jnp.where(%s < %lld, v%d, %s)", r, pyname(pv->var->name), (long long)pv->n, r, buf_str(&id));
		buf_free(&id);
	}
	if (x->op == R_ARGMAX || x->op == R_ARGMIN) {
		if (hi - lo + 1 != sc->nvars)
			unsupported(e, "an argmax over variables that are not adjacent");
		int64_t sh[PLAN_MAXVARS], keep[PLAN_MAXVARS];
		int n = 0;
		for (int vi = 0; vi < e->ps->nvars; vi++) {
			int64_t ext = (e->dep[x->a[0]] | mask) >> vi & 1 ? e->vb[vi] : 1;
			keep[vi] = mask >> vi & 1 ? 1 : ext;
			if (vi > lo && vi <= hi)
				sh[n - 1] *= ext;
			else
				sh[n++] = ext;
		}
		Buf t = {0}, k = {0};
		tuple(&t, sh, n);
		tuple(&k, keep, e->ps->nvars);
		line(e, "v%d = jnp.%s(v%d.reshape(%s), axis=%d, keepdims=True).reshape(%s).astype(%s)", r,
		     x->op == R_ARGMAX ? "argmax" : "argmin", r, buf_str(&t), lo, buf_str(&k), jdt(x->dt));
		buf_free(&t);
		buf_free(&k);
	} else if (x->op == R_ANY || x->op == R_ALL) /* Mosaic reduces floats, not bools */
		line(e, "v%d = jnp.%s(v%d.astype(jnp.float32), axis=(%s,), keepdims=True) > 0", r, x->op == R_ANY ? "max" : "min",
		     r, buf_str(&axes));
	else if ((x->op == R_MAX || x->op == R_MIN) && !dt_is_float(x->opdt) && dt_bits(x->opdt) <= 16)
		line(e, "v%d = %s(v%d.astype(jnp.float32), axis=(%s,), keepdims=True).astype(%s)  # exact in f32", r,
		     reduce_info[x->op].jnp, r, buf_str(&axes), jdt(x->dt));
	else
		line(e, "v%d = %s(v%d, axis=(%s,), keepdims=True).astype(%s)", r, reduce_info[x->op].jnp, r, buf_str(&axes),
		     jdt(x->dt));
	buf_free(&axes);
	buf_free(&s);
	buf_free(&v);
}

static void instruction(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	if (alias_of(e, r) != r)
		return;
	switch (x->kind) {
	case I_CONST: return;
	case I_IVAR:
		if (!e->narrow[r]) {
			use_iota(e, pvar_index(e->ps, x->var));
			line(e, "v%d = %s.astype(%s)", r, pyname(x->var->name), jdt(x->dt));
		}
		return;
	case I_LOAD: load(e, r); return;
	case I_CAST: {
		Buf a = {0};
		reg(&a, e, x->a[0]);
		line(e, "v%d = %s.astype(%s)", r, buf_str(&a), rdt(e, r));
		buf_free(&a);
		return;
	}
	case I_OP: {
		Buf a[3] = {{0}, {0}, {0}}, o = {0};
		for (int i = 0; i < x->nargs; i++)
			reg(&a[i], e, x->a[i]);
		spell(&o, op_info[x->op].jnp, a, x->nargs);
		line(e, "v%d = %s", r, buf_str(&o));
		for (int i = 0; i < 3; i++)
			buf_free(&a[i]);
		buf_free(&o);
		return;
	}
	case I_REDUCE: reduce(e, r); return;
	}
}

/* ---- bounds checks of gathered indices ---- */

static const Ins *skip_casts(const Prog *p, int *r)
{
	while (p->ins[*r].kind == I_CAST)
		*r = p->ins[*r].a[0];
	return &p->ins[*r];
}

/* Position of the first element of the block on each output axis. */
static void block_base(Buf *b, Em *e)
{
	buf_putc(b, '(');
	for (int v = 0; v < e->ps->nlhs; v++) {
		const PlanVar *pv = &e->ps->vars[v];
		if (pv->grid >= 0 && pv->block == 1)
			buf_printf(b, "%spl.program_id(%d)", v ? ", " : "", pv->grid);
		else if (pv->grid >= 0)
			buf_printf(b, "%spl.program_id(%d) * %lld", v ? ", " : "", pv->grid, (long long)pv->block);
		else
			buf_printf(b, "%s0", v ? ", " : "");
	}
	buf_printf(b, e->ps->nlhs == 1 ? ",)" : ")");
}

static void message_at(Em *e)
{
	buf_printf(&e->msgs, " at %s[", e->sname);
	for (int v = 0; v < e->ps->nlhs; v++)
		buf_printf(&e->msgs, "%s{%d}", v ? ", " : "", 3 + v);
	buf_printf(&e->msgs, "]\",\n");
}

/* Emits: bad = cond (under the load's guard), recorded as check c. */
static void record(Em *e, const Ins *x, const char *cond, const char *value, unsigned dep)
{
	Buf s = {0}, base = {0};
	if (x->guard >= 0) {
		Buf g = {0};
		reg(&g, e, x->guard);
		line(e, "bad = (%s) & %s", cond, buf_str(&g));
		buf_free(&g);
	} else
		line(e, "bad = %s", cond);
	unsigned all = (1u << e->ps->nvars) - 1;
	block_base(&base, e);
	if (dep) {
		shape_of(&s, e, all);
		line(e, "_record(err_ref, jnp.broadcast_to(bad, %s), %d, jnp.broadcast_to(%s, %s), %s)", buf_str(&s),
		     e->nchecks, value, buf_str(&s), buf_str(&base));
	} else
		line(e, "_record(err_ref, bad, %d, %s, %s)", e->nchecks, value, buf_str(&base));
	*e->needs |= NEED_RECORD;
	e->nchecks++;
	e->stmt_checks++;
	buf_free(&s);
	buf_free(&base);
}

/* The atom of load x that subscripts dim d and needs a check, or -1: a
 * subscript whose range is proven (a clamp) needs none; wrap() proves
 * nothing, its range assumes a valid index. */
/* The values a subscript can take, proven: a load's dtype, a clamp of
 * constant bounds. (The analysis's atom ranges assume valid indices.) */
static bool proven_range(const Em *e, const Node *n, int64_t *lo, int64_t *hi)
{
	if (n->kind == N_INT) {
		*lo = *hi = n->ival;
		return true;
	}
	if (n->kind == N_SIZE) {
		*lo = *hi = e->in->size[n->sym];
		return true;
	}
	if (n->kind == N_LOAD || n->kind == N_FLAT) {
		int bits = dt_bits(n->t->dt);
		if (n->t->dt == ATHENE_BOOL || bits >= 64 || dt_is_float(n->t->dt))
			return n->t->dt == ATHENE_BOOL && (*lo = 0, *hi = 1, true);
		*lo = dt_is_signed(n->t->dt) ? -((int64_t)1 << (bits - 1)) : 0;
		*hi = dt_is_signed(n->t->dt) ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
		return true;
	}
	int64_t l1, h1, l2, h2;
	if (n->kind == N_OP && n->op == OP_CLAMP && proven_range(e, n->args[1], &l1, &h1) &&
	    proven_range(e, n->args[2], &l2, &h2)) {
		*lo = l1;
		*hi = h2;
		return true;
	}
	return false;
}

static int checked_atom(const Em *e, const Ins *x, int d)
{
	const Node *n = x->src;
	const Layout *l = tensor_layout(e->in, n->t);
	for (int i = 0; i < x->natoms; i++) {
		const Node *s = x->atom[i]->p;
		int64_t lo, hi;
		if (s == n->args[d])
			return proven_range(e, s, &lo, &hi) && lo >= 0 && hi < l->shape[d] ? -1 : i;
	}
	return -1;
}

static bool needs_check(const Em *e, const Ins *x)
{
	if (x->kind != I_LOAD || !x->natoms)
		return false;
	const Node *n = x->src;
	const Sym *off = operand(e->ps, x->operand)->acc->off;
	if (n->kind == N_FLAT)
		return off->lo < 0 || off->hi >= tensor_layout(e->in, n->t)->storage;
	for (int d = 0; d < n->nargs; d++)
		if (checked_atom(e, x, d) >= 0)
			return true;
	return false;
}

static void check_load(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	const Node *n = x->src;
	const Layout *l = tensor_layout(e->in, n->t);
	SymCtx c = {e, false, false, x, r};
	const PlanOperand *op = operand(e->ps, x->operand);
	if (n->kind == N_FLAT) {
		if (op->acc->off->lo >= 0 && op->acc->off->hi < l->storage)
			return;
		Buf o = {0}, cond = {0}, val = {0};
		unsigned dep = e->dep[r];
		if (op->cls == VIEW_ROWGATHER) {
			/* one row per step: its gathered positions, scalars of the step */
			SymCtx m = {e, true, true, x, r};
			sym_expr(&o, &m, op->acc->off);
			for (int a = 0; a < op->naxes; a++) {
				const PlanAxis *g = &op->ax[a];
				if (g->kind != VA_GATHER)
					continue;
				Buf pos = {0};
				gather_pos(&pos, e, op, g, true);
				buf_printf(&cond, "%s(%s < 0) | (%s >= %lld)", cond.len ? " | " : "", buf_str(&pos), buf_str(&pos),
				           (long long)g->size);
				buf_free(&pos);
			}
			dep = 0;
		} else {
			sym_expr(&o, &c, op->acc->off);
			buf_printf(&cond, "(%s < 0) | (%s >= %lld)", buf_str(&o), buf_str(&o), (long long)l->storage);
		}
		buf_printf(&val, "%s - %lld", buf_str(&o), (long long)l->offset);
		buf_printf(&e->msgs, "    \"kernel %s: flat offset {2} is out of range for the storage of '%s' (%lld elements)",
		           e->kname, n->t->name, (long long)l->storage);
		message_at(e);
		record(e, x, buf_str(&cond), buf_str(&val), dep);
		buf_free(&o);
		buf_free(&cond);
		buf_free(&val);
		return;
	}
	for (int d = 0; d < n->nargs; d++) {
		int a = checked_atom(e, x, d);
		if (a < 0)
			continue;
		int ar = x->atom_reg[a];
		const Ins *w = skip_casts(e->prog, &ar);
		Buf v = {0}, raw = {0}, cond = {0};
		reg(&v, e, x->atom_reg[a]);
		buf_printf(&cond, "(%s < 0) | (%s >= %lld)", buf_str(&v), buf_str(&v), (long long)l->shape[d]);
		buf_printf(&e->msgs, "    \"kernel %s: index {2} out of range for dim %d of '%s' (size %lld", e->kname, d,
		           n->t->name, (long long)l->shape[d]);
		const Node *wn = n->args[d];
		if (w->kind == I_OP && w->op == OP_WRAP && (wn->args[1]->kind == N_INT || wn->args[1]->kind == N_SIZE)) {
			int64_t m = wn->args[1]->kind == N_INT ? wn->args[1]->ival : e->in->size[wn->args[1]->sym];
			reg(&raw, e, w->a[0]);
			buf_printf(&e->msgs, "; wrap() accepts [%lld, %lld))", (long long)-m, (long long)m);
		} else {
			reg(&raw, e, x->atom_reg[a]);
			buf_printf(&e->msgs, ")");
		}
		message_at(e);
		record(e, x, buf_str(&cond), buf_str(&raw), e->dep[x->atom_reg[a]]);
		buf_free(&v);
		buf_free(&raw);
		buf_free(&cond);
	}
}

/* ---- stores ---- */

static unsigned out_mask(const Em *e)
{
	return (1u << e->ps->nlhs) - 1;
}

/* An element scatter: the whole storage, written element by element. */
static void store_scatter(Em *e, const PlanOperand *op, const char *val)
{
	Buf o = {0}, s = {0};
	SymCtx c = {e, false, false, NULL, e->prog->n};
	sym_expr(&o, &c, op->acc->off);
	shape_of(&s, e, out_mask(e));
	line(e, "# element scatter: %s", op->reason);
	line(e, "%s[...] = jnp.zeros_like(%s).at[jnp.broadcast_to(%s, %s).reshape(-1)].set(jnp.broadcast_to(%s, %s).reshape(-1))",
	     ref_name(e->ps, op), ref_name(e->ps, op), buf_str(&o), buf_str(&s), val, buf_str(&s));
	buf_free(&o);
	buf_free(&s);
}

/* The grid reduction the store accumulates, or NULL. */
static const Ins *grid_reduction(Em *e)
{
	const Ins *x = &e->prog->ins[alias_of(e, e->prog->result)];
	bool grid = false;
	for (int v = e->ps->nlhs; v < e->ps->nvars; v++)
		grid |= e->ps->vars[v].grid >= 0;
	if (!grid)
		return NULL;
	if (x->kind != I_REDUCE || x->dt != e->prog->out || x->op == R_MEAN || x->op == R_ARGMAX || x->op == R_ARGMIN)
		unsupported(e, "a reduction on the grid whose result is not stored as it is");
	return x;
}

static void store(Em *e)
{
	const PlanStmt *ps = e->ps;
	const PlanOperand *op = operand(ps, 0);
	Buf val = {0}, s = {0};
	reg(&val, e, e->prog->result);
	if (op->cls == VIEW_ELEM) {
		store_scatter(e, op, buf_str(&val));
		buf_free(&val);
		return;
	}
	int ax[VIEW_MAXAX + 4], n = 0, perm[VIEW_MAXAX + 4];
	for (int a = 0; a < op->naxes; a++)
		if (axis_mode(ps, &op->ax[a]) != AX_SQUEEZED && op->ax[a].kind == VA_ITER)
			ax[n++] = a;
	var_order(e, op, ax, n, perm);
	/* the value over the output variables, padded to whole digits */
	int64_t out[PLAN_MAXVARS], dig[VIEW_MAXAX + 4], merged[PLAN_MAXVARS];
	int nd = 0, k = 0;
	bool pad = false;
	for (int v = 0; v < ps->nlhs; v++) {
		out[v] = e->vb[v];
		merged[v] = 1;
		for (int d = 0; d < op->view->ndig; d++) {
			const ViewDigit *g = &op->view->dig[d];
			if (g->var != ps->vars[v].var || g->n <= 1 || (g->axis >= 0 && !present_in(op, g)))
				continue; /* a digit fixed by the grid */
			if (!present_in(op, g))
				unsupported(e, "a store that broadcasts");
			dig[nd] = axis_extent(ps, &op->ax[ax[perm[k++]]]);
			merged[v] *= dig[nd++];
		}
		if (merged[v] < out[v])
			unsupported(e, "a store whose digits do not cover its variable");
		pad |= merged[v] > out[v];
	}
	int64_t cur[VIEW_MAXAX + PLAN_MAXVARS];
	int ncur = ps->nvars;
	for (int v = 0; v < ps->nvars; v++)
		cur[v] = v < ps->nlhs ? e->vb[v] : 1;
	shape_of(&s, e, out_mask(e));
	if (e->dep[alias_of(e, e->prog->result)] == out_mask(e) && e->prog->ins[alias_of(e, e->prog->result)].kind != I_REDUCE)
		line(e, "out = %s", buf_str(&val));
	else
		line(e, "out = jnp.broadcast_to(%s, %s)", buf_str(&val), buf_str(&s));
	if (pad) {
		for (int v = 0; v < ps->nlhs; v++)
			cur[v] = merged[v];
		s.len = 0;
		for (int v = 0; v < ps->nlhs; v++)
			buf_printf(&s, "(0, %lld), ", (long long)(merged[v] - out[v]));
		for (int v = ps->nlhs; v < ps->nvars; v++)
			buf_printf(&s, "(0, 0), ");
		line(e, "out = jnp.pad(out, (%s))", buf_str(&s));
	}
	s.len = 0;
	tuple(&s, dig, nd);
	bool transposed = !identity_perm(perm, n);
	if (transposed && !same_shape(dig, nd, cur, ncur)) {
		line(e, "out = out.reshape(%s)", buf_str(&s));
		memcpy(cur, dig, (size_t)nd * sizeof *dig);
		ncur = nd;
	}
	if (transposed) {
		int inv[VIEW_MAXAX + 4];
		for (int i = 0; i < n; i++)
			inv[perm[i]] = i;
		s.len = 0;
		for (int i = 0; i < n; i++)
			buf_printf(&s, "%s%d", i ? ", " : "", inv[i]);
		line(e, "out = jnp.transpose(out, (%s))", buf_str(&s));
		ncur = nd;
	}
	/* unit axes back in, reversed axes flipped, whole axes sliced */
	int64_t blk[VIEW_MAXAX + 4];
	int nb = 0;
	Buf flip = {0}, idx = {0};
	bool sliced = false;
	for (int a = 0; a < op->naxes; a++) {
		const PlanAxis *x = &op->ax[a];
		int mode = axis_mode(ps, x);
		if (mode == AX_SQUEEZED)
			continue;
		buf_printf(&idx, "%s", nb ? ", " : "");
		if (x->kind != VA_ITER) {
			if (x->kind != VA_UNIT)
				unsupported(e, "a store through a static index that is not squeezed");
			blk[nb++] = 1;
			buf_printf(&idx, ":");
			continue;
		}
		if (x->step < 0)
			buf_printf(&flip, "%d, ", nb);
		if (mode == AX_WHOLE) {
			if (on_grid(ps, x))
				unsupported(e, "a store whose blocks do not start on a multiple of their size");
			PlanAxis up = *x; /* the value is flipped: ascending positions */
			up.step = x->step < 0 ? -x->step : x->step;
			slice_of(&idx, &up, lowest(x));
			sliced = true;
		} else
			buf_printf(&idx, ":");
		blk[nb++] = axis_extent(ps, x);
	}
	if (transposed)
		for (int i = 0; i < n; i++)
			cur[perm[i]] = dig[i];
	if (!same_shape(blk, nb, cur, ncur)) {
		s.len = 0;
		tuple(&s, blk, nb);
		line(e, "out = out.reshape(%s)", buf_str(&s));
	}
	if (flip.len)
		line(e, "out = jnp.flip(out, axis=(%s))", buf_str(&flip));
	const char *y = ref_name(ps, op);
	const Ins *acc = grid_reduction(e);
	if (acc) {
		Buf id = {0}, first = {0};
		identity_of(&id, acc->op, acc->dt);
		for (int v = ps->nlhs, k2 = 0; v < ps->nvars; v++)
			if (ps->vars[v].grid >= 0)
				buf_printf(&first, "%s(pl.program_id(%d) == 0)", k2++ ? " & " : "", ps->vars[v].grid);
		line(e, "@pl.when(%s)", buf_str(&first));
		line(e, "def _start():");
		line(e, "    %s[...] = jnp.full(%s.shape, %s, %s)", y, y, buf_str(&id), jdt(acc->dt));
		static const char *const comb[] = {"%s[...] + out", "%s[...] * out", "jnp.maximum(%s[...], out)",
		                                   "jnp.minimum(%s[...], out)", NULL, NULL, NULL, "%s[...] | out",
		                                   "%s[...] & out"};
		Buf c = {0};
		buf_printf(&c, comb[acc->op], y);
		line(e, "%s[...] = %s", y, buf_str(&c));
		buf_free(&c);
		buf_free(&id);
		buf_free(&first);
	} else if (sliced)
		line(e, "%s[%s] = out", y, buf_str(&idx));
	else
		line(e, "%s[...] = out", y);
	buf_free(&flip);
	buf_free(&idx);
	buf_free(&val);
	buf_free(&s);
}

/* ---- one planned statement: its kernel function and its call ---- */

static const char *fn_name(Em *e, Buf *b)
{
	b->len = 0;
	buf_printf(b, "_%s_%s", e->kname, e->sname);
	return buf_str(b);
}

/* The kernel's refs in Pallas's order: prefetched, loads, the store, the record. */
static void kernel_params(Buf *b, Em *e)
{
	const PlanStmt *ps = e->ps;
	int k = 0;
	for (int i = 0; i < ps->ops.n; i++)
		if (operand(ps, i)->prefetch)
			buf_printf(b, "%s%s", k++ ? ", " : "", ref_name(ps, operand(ps, i)));
	for (int i = 1; i < ps->ops.n; i++)
		if (!operand(ps, i)->prefetch && operand(ps, i)->naxes)
			buf_printf(b, "%s%s", k++ ? ", " : "", ref_name(ps, operand(ps, i)));
	buf_printf(b, "%s%s", k++ ? ", " : "", ref_name(ps, operand(ps, 0)));
	if (e->stmt_checks)
		buf_printf(b, ", err_ref");
}

static void emit_kernel_fn(Em *e, Buf *out)
{
	const Prog *p = e->prog;
	bool roots[p->n + 1], used[p->n + 1], narrow[p->n + 1], iota[PLAN_MAXVARS];
	unsigned dep[p->n + 1];
	memset(roots, 0, sizeof roots);
	memset(used, 0, sizeof used);
	memset(narrow, 0, sizeof narrow);
	memset(iota, 0, sizeof iota);
	memset(dep, 0, sizeof dep);
	for (int r = 0; r < p->n; r++) {
		const Ins *x = &p->ins[r];
		if (x->kind == I_LOAD && x->natoms && x->guard >= 0)
			roots[x->guard] = true;
		/* prefetched indices arrive as int32 */
		narrow[r] = x->kind == I_LOAD && operand(e->ps, x->operand)->prefetch;
	}
	e->used = used;
	e->narrow = narrow;
	e->dep = dep;
	e->iota_done = iota;
	analyse_regs(e, roots);
	for (int r = 0; r < p->n; r++)
		narrow[r] |= p->ins[r].kind == I_LOAD && operand(e->ps, p->ins[r].operand)->prefetch;
	Buf body = {0}, *saved = e->b;
	e->b = &body;
	e->stmt_checks = 0;
	for (int r = 0; r < p->n; r++) {
		if (!used[r])
			continue;
		instruction(e, r);
		if (p->ins[r].kind == I_LOAD && p->ins[r].natoms)
			check_load(e, r);
	}
	store(e);
	e->b = saved;
	Buf name = {0}, params = {0}, src = {0};
	kernel_params(&params, e);
	dump_node(&src, e->ps->stmt->rhs);
	buf_printf(out, "\ndef %s(%s):\n", fn_name(e, &name), buf_str(&params));
	buf_printf(out, "    # %s[", e->ps->stmt->t->name);
	for (int d = 0; d < e->ps->stmt->nlhs; d++)
		buf_printf(out, "%s%s", d ? ", " : "", e->ps->stmt->lhs[d]->name);
	buf_printf(out, "] = %s\n", buf_str(&src));
	if (e->stmt_checks) {
		Buf first = {0};
		for (int g = 0; g < e->ps->ngrid; g++)
			if (e->ps->ngrid == 1)
				buf_printf(&first, "pl.program_id(0) == 0");
			else
				buf_printf(&first, "%s(pl.program_id(%d) == 0)", g ? " & " : "", g);
		if (e->ps->ngrid) {
			buf_printf(out, "    @pl.when(%s)\n    def _init():\n        _record_init(err_ref)\n", buf_str(&first));
		} else
			buf_printf(out, "    _record_init(err_ref)\n");
		buf_free(&first);
	}
	buf_printf(out, "%s", buf_str(&body));
	buf_free(&body);
	buf_free(&name);
	buf_free(&params);
	buf_free(&src);
}

/* The array an operand is given: its storage reshaped (padded to whole rows). */
static void operand_array(Buf *out, Em *e, const PlanOperand *op)
{
	const char *t = pyname(op->t->name);
	Buf arr = {0}, f = {0}, *b = &arr;
	int64_t storage = tensor_layout(e->in, op->t)->storage;
	if (op->prefetch) {
		buf_printf(out, "_i32(%s)", t);
		*e->needs |= NEED_I32;
		return;
	}
	int64_t n = array_elems(op), shape[VIEW_MAXAX + 4];
	for (int a = 0; a < op->naxes; a++)
		shape[a] = op->ax[a].size;
	if (n > storage) {
		buf_printf(b, "_pad(%s, %lld)", t, (long long)n);
		*e->needs |= NEED_PAD;
	} else
		buf_printf(b, "%s", t);
	if (op->naxes > 1 || n != storage) {
		buf_printf(b, ".reshape");
		tuple(b, shape, op->naxes);
	}
	flip_axes(&f, e->ps, op);
	if (f.len)
		buf_printf(out, "jnp.flip(%s, (%s,))", buf_str(&arr), buf_str(&f));
	else
		buf_printf(out, "%s", buf_str(&arr));
	buf_free(&arr);
	buf_free(&f);
}

/* The statement's grid spec, at module level: tools and tests can call its
 * index maps directly. */
static void emit_grid_spec(Em *e, Buf *out)
{
	const PlanStmt *ps = e->ps;
	const PlanOperand *st = operand(ps, 0);
	Buf name = {0};
	int npre = 0;
	for (int i = 0; i < ps->ops.n; i++)
		npre += operand(ps, i)->prefetch;
	buf_printf(out, "\n\n%s_grid = ", fn_name(e, &name));
	if (npre)
		buf_printf(out, "pltpu.PrefetchScalarGridSpec(\n    num_scalar_prefetch=%d,\n", npre);
	else
		buf_printf(out, "pl.GridSpec(\n");
	int64_t grid[PLAN_MAXVARS];
	for (int g = 0; g < ps->ngrid; g++) {
		const PlanVar *v = &ps->vars[ps->grid_var[g]];
		grid[g] = (v->n + v->block - 1) / v->block;
	}
	buf_printf(out, "    grid=");
	if (!ps->ngrid)
		buf_printf(out, "(1,)"); /* Pallas prefetches, and places blocks off 0, only on a grid */
	else
		tuple(out, grid, ps->ngrid);
	buf_printf(out, ",\n    in_specs=[");
	int k = 0;
	for (int i = 1; i < ps->ops.n; i++) {
		const PlanOperand *op = operand(ps, i);
		if (op->prefetch || !op->naxes)
			continue;
		buf_printf(out, "%s\n        ", k++ ? "," : "");
		block_spec(out, e, op);
	}
	buf_printf(out, "],\n    out_specs=%s", e->stmt_checks ? "[" : "");
	block_spec(out, e, st);
	if (e->stmt_checks)
		buf_printf(out, ", pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)]");
	buf_printf(out, ")\n");
	buf_free(&name);
}

static void emit_call(Em *e, Buf *w, int si, Buf *records)
{
	const PlanStmt *ps = e->ps;
	const PlanOperand *st = operand(ps, 0);
	const char *y = pyname(ps->stmt->t->name);
	int64_t storage = tensor_layout(e->in, st->t)->storage;
	Buf name = {0};
	if (e->stmt_checks)
		buf_printf(w, "    %s, bad%d = pl.pallas_call(\n", y, si);
	else
		buf_printf(w, "    %s = pl.pallas_call(\n", y);
	buf_printf(w, "        %s,\n", fn_name(e, &name));
	int64_t shape[VIEW_MAXAX + 4];
	for (int a = 0; a < st->naxes; a++)
		shape[a] = st->ax[a].size;
	buf_printf(w, "        out_shape=%sjax.ShapeDtypeStruct(", e->stmt_checks ? "(" : "");
	tuple(w, shape, st->naxes);
	buf_printf(w, ", %s)%s,\n", jdt(st->t->dt), e->stmt_checks ? ", jax.ShapeDtypeStruct((11,), jnp.int32))" : "");
	buf_printf(w, "        grid_spec=%s_grid,\n", fn_name(e, &name));
	/* The planner budgets 16 MiB of double-buffered blocks; the kernel's own
	 * values (a transposed block, merged digits) come on top, past the
	 * chips' default scoped VMEM: big blocks get 100 MiB of the 128. */
	int64_t bytes = 0;
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = operand(ps, i);
		int64_t n = 2 * (int64_t)athene_dtype_size(op->t->dt); /* double-buffered, tiles padded */
		for (int a = 0; a < op->naxes && !op->prefetch; a++) {
			int64_t b = axis_mode(ps, &op->ax[a]) == AX_WHOLE ? op->ax[a].size : op->ax[a].block ? op->ax[a].block : 1;
			int64_t tile = a == op->naxes - 1 ? 128 : a == op->naxes - 2 ? 8 * dtype_packing(op->t->dt) : 1;
			n *= (b + tile - 1) / tile * tile;
		}
		bytes += op->prefetch || !op->naxes ? 0 : n;
	}
	bool big = bytes > 4 << 20;
	if (ps->ngrid || big) {
		buf_printf(w, "        compiler_params=pltpu.CompilerParams(");
		if (ps->ngrid) {
			buf_printf(w, "dimension_semantics=(");
			for (int g = 0; g < ps->ngrid; g++) {
				/* the bad-index record is one block for the whole grid: steps in order */
				bool arb = ps->vars[ps->grid_var[g]].reduce || e->stmt_checks;
				buf_printf(w, "%s\"%s\"", g ? ", " : "", arb ? "arbitrary" : "parallel");
			}
			buf_printf(w, ps->ngrid == 1 ? ",)" : ")");
		}
		buf_printf(w, "%s),\n", big ? ps->ngrid ? ", vmem_limit_bytes=100 * 2**20" : "vmem_limit_bytes=100 * 2**20" : "");
	}
	buf_printf(w, "        interpret=interpret,\n    )(");
	int k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 1; i < ps->ops.n; i++) {
			const PlanOperand *op = operand(ps, i);
			if (op->prefetch != (pass == 0) || (!op->prefetch && !op->naxes))
				continue;
			buf_printf(w, "%s", k++ ? ", " : "");
			operand_array(w, e, op);
		}
	buf_printf(w, ")\n");
	Buf f = {0};
	flip_axes(&f, ps, st);
	if (f.len)
		buf_printf(w, "    %s = jnp.flip(%s, (%s,))\n", y, y, buf_str(&f));
	buf_free(&f);
	if (array_elems(st) > storage)
		buf_printf(w, "    %s = %s.reshape(-1)[:%lld]\n", y, y, (long long)storage);
	else if (st->naxes != 1)
		buf_printf(w, "    %s = %s.reshape(-1)\n", y, y);
	if (e->stmt_checks)
		buf_printf(records, "%sbad%d", records->len ? ", " : "", si);
	buf_free(&name);
}

/* ---- a kernel ---- */

static bool wide(DType t)
{
	return t == ATHENE_I64 || t == ATHENE_F64;
}

static void signature(Buf *b, const Kernel *k, int from, int to)
{
	for (int i = from; i < to; i++) {
		const Tensor *t = k->params.v[i];
		buf_printf(b, "%s%s", i > from ? ", " : "", pyname(t->name));
	}
}

static void describe(Buf *b, const Inst *in, int from, int to)
{
	const Kernel *k = in->k;
	for (int i = from; i < to; i++) {
		const Tensor *t = k->params.v[i];
		const Layout *l = tensor_layout(in, t);
		buf_printf(b, "%s%s %s[", i > from ? ", " : "", t->name, athene_dtype_name(t->dt));
		for (int d = 0; d < t->rank; d++)
			buf_printf(b, "%s%lld", d ? ", " : "", (long long)l->shape[d]);
		buf_putc(b, ']');
		if (t->has_strides || t->offset_ex)
			buf_printf(b, " (storage of %lld)", (long long)l->storage);
	}
}

void emit_pallas_kernel(Buf *out, unsigned *needs, Inst *in, const Plan *p, bool gpu)
{
	const Kernel *k = in->k;
	Em e = {.in = in, .p = p, .kname = k->name, .needs = needs};
	if (gpu)
		error_plain(&in->diag, "kernel %s: --target pallas-gpu is not implemented yet (Pallas's GPU lowerings need "
		            "gathers read inside the kernel and power-of-two blocks); --target pallas runs on TPUs and in "
		            "JAX's interpreter on any CPU", k->name);
	Buf fns = {0}, w = {0}, records = {0};
	for (int i = 0; i < k->params.n; i++)
		if (wide(((const Tensor *)k->params.v[i])->dt))
			*needs |= NEED_X64;
	for (int si = 0; si < p->nstmts; si++) {
		const PlanStmt *ps = &p->st[si];
		const Tensor *t = ps->stmt->t;
		e.ps = ps;
		e.prog = in->prog[si];
		e.sname = t->name;
		buf_printf(&w, "    # %s\n", ps->stmt->t->name);
		if (ps->empty) {
			buf_printf(&w, "    %s = jnp.zeros((%lld,), %s)  # no elements\n", pyname(t->name),
			           (long long)tensor_layout(in, t)->storage, jdt(t->dt));
			continue;
		}
		for (int v = 0; v < ps->nvars; v++)
			e.vb[v] = ps->vars[v].grid >= 0 ? ps->vars[v].block : ps->vars[v].n;
		PlanOperand **ops = arena_alloc(&in->arena, (size_t)ps->ops.n * sizeof *ops);
		for (int j = 0; j < ps->ops.n; j++) {
			PlanOperand *op = ops[j] = arena_dup(&in->arena, ps->ops.v[j], sizeof *op);
			for (int a = 0; a < op->naxes; a++) {
				PlanAxis *x = &op->ax[a];
				if (flipped(op, x)) {
					x->start = x->size - 1 - x->start;
					x->step = -x->step;
				}
			}
		}
		moved = (const PlanOperand *const *)ops;
		emit_kernel_fn(&e, &fns);
		emit_grid_spec(&e, &fns);
		emit_call(&e, &w, si, &records);
		moved = NULL;
	}
	buf_printf(out, "\n\n# ---- kernel %s\n", k->name);
	buf_printf(out, "%s", buf_str(&fns));
	if (e.nchecks)
		buf_printf(out, "\n\n_%s_MESSAGES = (\n%s)\n", k->name, buf_str(&e.msgs));
	Buf sig = {0}, outs = {0}, desc = {0};
	signature(&sig, k, 0, k->nin);
	signature(&outs, k, k->nin, k->params.n);
	buf_printf(&desc, "%s(", k->name);
	describe(&desc, in, 0, k->nin);
	buf_printf(&desc, ") -> ");
	describe(&desc, in, k->nin, k->params.n);
	buf_printf(out, "\n\ndef %s_pure(%s%sinterpret=False):\n", k->name, buf_str(&sig), k->nin ? ", *, " : "*, ");
	buf_printf(out, "    \"\"\"Traceable %s.%s\"\"\"\n", buf_str(&desc),
	           e.nchecks ? " Returns the outputs, then the bad-index records." : "");
	for (int i = 0; i < k->nin; i++) {
		const char *t = pyname(((const Tensor *)k->params.v[i])->name);
		buf_printf(out, "    %s = jnp.asarray(%s).reshape(-1)\n", t, t);
	}
	buf_printf(out, "%s", buf_str(&w));
	buf_printf(out, "    return ");
	for (int i = k->nin; i < k->params.n; i++) {
		const Tensor *t = k->params.v[i];
		const Layout *l = tensor_layout(in, t);
		buf_printf(out, "%s%s", i > k->nin ? ", " : "", pyname(t->name));
		if (!t->has_strides && !t->offset_ex) {
			buf_printf(out, ".reshape(");
			for (int d = 0; d < t->rank; d++)
				buf_printf(out, "%s%lld", d ? ", " : "", (long long)l->shape[d]);
			buf_printf(out, t->rank ? ")" : "())");
		}
	}
	if (e.nchecks)
		buf_printf(out, strchr(buf_str(&records), ',') ? ", jnp.concatenate([%s])" : ", %s", buf_str(&records));
	buf_printf(out, "\n\n\n_%s = jax.jit(%s_pure, static_argnames=\"interpret\")\n", k->name, k->name);
	buf_printf(out, "\n\ndef %s(%s%sinterpret=None):\n", k->name, buf_str(&sig), k->nin ? ", *, " : "*, ");
	buf_printf(out, "    \"\"\"%s.%s\"\"\"\n", buf_str(&desc),
	           e.nchecks ? " Raises IndexError for an out-of-range gather index." : "");
	int nout = k->params.n - k->nin;
	if (e.nchecks) {
		buf_printf(out, "    *outs, bad = _run(_%s, (%s%s), interpret)\n", k->name, buf_str(&sig), k->nin == 1 ? "," : "");
		buf_printf(out, "    _raise_bad(bad, _%s_MESSAGES)\n", k->name);
		buf_printf(out, nout == 1 ? "    return outs[0]\n" : "    return tuple(outs)\n");
	} else
		buf_printf(out, "    return _run(_%s, (%s%s), interpret)\n", k->name, buf_str(&sig), k->nin == 1 ? "," : "");
	buf_free(&fns);
	buf_free(&w);
	buf_free(&records);
	buf_free(&sig);
	buf_free(&outs);
	buf_free(&desc);
	buf_free(&e.msgs);
}

static const char helper_run[] =
	"\n\ndef _run(pure, args, interpret):\n"
	"    \"\"\"interpret=None: compiled on a TPU, elsewhere the interpreter on the CPU device.\"\"\"\n"
	"    if interpret is None and jax.default_backend() != \"tpu\":\n"
	"        with jax.default_device(jax.devices(\"cpu\")[0]):\n"
	"            return pure(*args, interpret=True)\n"
	"    return pure(*args, interpret=False if interpret is None else interpret)\n";

static const char helper_record[] =
	"\n\ndef _record_init(err_ref):\n"
	"    \"\"\"Zeroes the bad-index record: count, check, value, position.\"\"\"\n"
	"    for k in range(11):\n"
	"        err_ref[k] = jnp.int32(0)\n"
	"\n\ndef _record(err_ref, bad, check, value, base):\n"
	"    \"\"\"Counts this block's out-of-range indices of one check; keeps the first.\"\"\"\n"
	"    if jnp.ndim(bad) == 0:\n"
	"        k, pos, count = 0, (0,) * len(base), bad.astype(jnp.int32)\n"
	"    else:\n"
	"        k = jnp.argmax(bad.reshape(-1))\n"
	"        pos = jnp.unravel_index(k, bad.shape)\n"
	"        count = jnp.sum(bad.astype(jnp.int32))\n"
	"        value = value.reshape(-1)[k]\n"
	"\n"
	"    @pl.when((err_ref[0] == 0) & (count > 0))\n"
	"    def _first():\n"
	"        err_ref[1] = jnp.int32(check)\n"
	"        err_ref[2] = jnp.asarray(value).astype(jnp.int32)\n"
	"        for d, b in enumerate(base):\n"
	"            err_ref[3 + d] = jnp.asarray(b + pos[d]).astype(jnp.int32)\n"
	"\n"
	"    err_ref[0] += count\n"
	"\n\ndef _raise_bad(bad, messages):\n"
	"    \"\"\"Raises IndexError for the first out-of-range index a kernel counted.\"\"\"\n"
	"    for rec in np.asarray(bad).reshape(-1, 11):\n"
	"        if rec[0]:\n"
	"            raise IndexError(messages[rec[1]].format(*rec.tolist()))\n";

static const char helper_i32[] =
	"\n\ndef _i32(a):\n"
	"    \"\"\"Index values as int32, saturated: an index that does not fit stays out of range.\"\"\"\n"
	"    if a.dtype == jnp.int64:\n"
	"        a = jnp.clip(a, -2**31, 2**31 - 1)\n"
	"    return a.astype(jnp.int32)\n";

static const char helper_pad[] =
	"\n\ndef _pad(a, n):\n"
	"    \"\"\"The storage padded to n elements: the reshape's last row is partial.\"\"\"\n"
	"    return jnp.pad(a, (0, n - a.shape[0]))\n";

void emit_pallas_module(Buf *out, const char *file, const char *target, const char *chip, unsigned needs,
                        const char *kernels)
{
	buf_printf(out, "\"\"\"Pallas kernels of %s, emitted by athene (target %s%s%s). Do not edit.\n\n", file, target,
	           chip ? ", chip " : "", chip ? chip : "");
	buf_printf(out, "Each kernel K has an entry point K(*inputs, interpret=None) and a traceable\n"
	                "K_pure(*inputs, interpret=False). Inputs have the kernel's logical shapes; a\n"
	                "parameter that declares its layout takes (and an output that declares one\n"
	                "returns) its storage as a 1-D array. interpret=None runs compiled on a TPU and\n"
	                "in the interpreter on the CPU elsewhere.\n\"\"\"\n");
	buf_printf(out, "import jax\nimport jax.numpy as jnp\nimport numpy as np\n"
	                "from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n");
	if (needs & NEED_X64)
		buf_printf(out, "\n# 64-bit tensors: without x64 JAX would silently narrow them to 32 bits.\n"
		                "jax.config.update(\"jax_enable_x64\", True)\n");
	buf_printf(out, "%s", helper_run);
	if (needs & NEED_RECORD)
		buf_printf(out, "%s", helper_record);
	if (needs & NEED_I32)
		buf_printf(out, "%s", helper_i32);
	if (needs & NEED_PAD)
		buf_printf(out, "%s", helper_pad);
	buf_printf(out, "%s", kernels);
}
