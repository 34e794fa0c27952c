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

#include "emit_pallas.h"


_Noreturn void ep_unsupported(Em *e, const char *what)
{
	error_plain(&e->in->diag, "kernel %s: the Pallas emitter cannot express %s", e->kname, what);
}

const char *ep_jdt(DType t)
{
	static const char *const n[] = {"jnp.bool_",   "jnp.int8",    "jnp.int16",    "jnp.int32",  "jnp.int64",
	                                "jnp.uint8",   "jnp.float16", "jnp.bfloat16", "jnp.float32", "jnp.float64"};
	return n[t];
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

void ep_tuple(Buf *b, const int64_t *v, int n)
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

const PlanOperand *ep_operand(const PlanStmt *ps, int j)
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

const PlanVar *ep_axis_var(const PlanStmt *ps, const PlanAxis *x)
{
	return x->var >= 0 ? &ps->vars[x->var] : NULL;
}

bool ep_on_grid(const PlanStmt *ps, const PlanAxis *x)
{
	const PlanVar *v = ep_axis_var(ps, x);
	return v && v->grid >= 0;
}

/* The lowest and one past the highest position an axis's slice takes:
 * start + step·k for k in [0, len). */
int64_t ep_lowest(const PlanAxis *x)
{
	return x->step > 0 ? x->start : x->start + x->step * (x->len - 1);
}

int64_t ep_highest(const PlanAxis *x)
{
	return (x->step > 0 ? x->start + x->step * (x->len - 1) : x->start) + 1;
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
	return first % b == 0 && b == x->len ? AX_EXACT : AX_WHOLE;
}

int64_t ep_array_elems(const PlanOperand *op)
{
	int64_t n = 1;
	for (int a = 0; a < op->naxes; a++)
		n *= op->ax[a].size;
	return n;
}

/* ---- index maps ---- */

const char *ep_grid_name(const PlanStmt *ps, int g)
{
	return ep_pyname(ps->vars[ps->grid_var[g]].var->name);
}

/* A variable's value in an index map: its grid index (a variable that
 * addresses an index load has block 1), or 0 when it is not on the grid. */
void ep_map_var(Buf *b, const PlanStmt *ps, const Var *v, bool pid)
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

const PlanOperand *ep_index_operand(const PlanStmt *ps, const Node *load)
{
	for (int i = 0; i < ps->ops.n; i++)
		if (ep_operand(ps, i)->acc->load == load)
			return ep_operand(ps, i);
	return NULL;
}



int ep_pvar_index(const PlanStmt *ps, const Var *v)
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

/* An op's jnp spelling with its operands substituted. */
void ep_spell(Buf *b, const char *pat, Buf *args, int n)
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
void ep_node_expr(Buf *b, SymCtx *c, const Node *n)
{
	if (!c->map) {
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
		ep_spell(b, op_info[n->op].jnp, a, n->nargs);
		for (int i = 0; i < 3; i++)
			buf_free(&a[i]);
		return;
	}
	}
	ep_unsupported(c->e, "this gathered index expression");
}

/* The position of gathered axis x: in an index map (grid indices), or in
 * the kernel (program ids). */
void ep_gather_pos(Buf *b, Em *e, const PlanOperand *op, const PlanAxis *x, bool pid)
{
	const View *v = op->view;
	const VAxis *va = &v->ax[x->vaxis];
	int64_t c0 = va->start - va->step * v->gat[va->ref].atom->lo;
	SymCtx c = {e, true, pid, NULL, -1};
	if (c0 || va->step < 0)
		buf_printf(b, "%lld %c ", (long long)c0, va->step > 0 ? '+' : '-');
	ep_node_expr(b, &c, v->gat[va->ref].atom->p);
}

/* The element offset (squeezed) or block index of axis x in an index map. */
static void map_entry(Buf *b, Em *e, const PlanOperand *op, const PlanAxis *x)
{
	const PlanStmt *ps = e->ps;
	int mode = ep_axis_mode(ps, x);
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
		ep_gather_pos(b, e, op, x, false);
		buf_printf(b, ", 0, %lld)", (long long)(x->size - 1));
		return;
	}
	const PlanVar *v = ep_axis_var(ps, x);
	int64_t blk = x->block ? x->block : 1;
	if (!x->block && v && v->grid >= 0) { /* one position per step */
		const char *g = ep_pyname(v->var->name);
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
	const char *g = ep_pyname(v->var->name);
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
		buf_printf(b, "%s %s", k++ ? "," : "", ep_grid_name(ps, g));
	if (!ps->ngrid)
		buf_printf(b, " _%s", k++ ? "," : ""); /* the one step of a statement without a grid */
	for (int i = 0; i < ps->ops.n; i++)
		if (ep_operand(ps, i)->prefetch)
			buf_printf(b, "%s %s", k++ ? "," : "", ep_ref_name(ps, ep_operand(ps, i)));
	buf_printf(b, ": ");
}

static void block_spec(Buf *b, Em *e, const PlanOperand *op)
{
	buf_printf(b, "pl.BlockSpec((");
	for (int a = 0; a < op->naxes; a++) {
		const PlanAxis *x = &op->ax[a];
		int mode = ep_axis_mode(e->ps, x);
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

/* ---- one planned statement: its kernel function and its call ---- */

const char *ep_fn_name(Em *e, Buf *b)
{
	b->len = 0;
	buf_printf(b, "_%s_%s", e->kname, e->sname);
	return buf_str(b);
}

/* The array an operand is given: its storage reshaped (padded to whole rows). */
static void operand_array(Buf *out, Em *e, const PlanOperand *op)
{
	const char *t = ep_pyname(op->t->name);
	Buf arr = {0}, f = {0}, *b = &arr;
	int64_t storage = tensor_layout(e->in, op->t)->storage;
	if (op->prefetch) {
		buf_printf(out, "_i32(%s)", t);
		*e->needs |= NEED_I32;
		return;
	}
	int64_t n = ep_array_elems(op), shape[VIEW_MAXAX + 4];
	for (int a = 0; a < op->naxes; a++)
		shape[a] = op->ax[a].size;
	if (n > storage) {
		buf_printf(b, "_pad(%s, %lld)", t, (long long)n);
		*e->needs |= NEED_PAD;
	} else
		buf_printf(b, "%s", t);
	if (op->naxes > 1 || n != storage) {
		buf_printf(b, ".reshape");
		ep_tuple(b, shape, op->naxes);
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
	const PlanOperand *st = ep_operand(ps, 0);
	Buf name = {0};
	int npre = 0;
	for (int i = 0; i < ps->ops.n; i++)
		npre += ep_operand(ps, i)->prefetch;
	buf_printf(out, "\n\n%s_grid = ", ep_fn_name(e, &name));
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
		ep_tuple(out, grid, ps->ngrid);
	buf_printf(out, ",\n    in_specs=[");
	int k = 0;
	for (int i = 1; i < ps->ops.n; i++) {
		const PlanOperand *op = ep_operand(ps, i);
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
	const PlanOperand *st = ep_operand(ps, 0);
	const char *y = ep_pyname(ps->stmt->t->name);
	int64_t storage = tensor_layout(e->in, st->t)->storage;
	Buf name = {0};
	if (e->stmt_checks)
		buf_printf(w, "    %s, bad%d = pl.pallas_call(\n", y, si);
	else
		buf_printf(w, "    %s = pl.pallas_call(\n", y);
	buf_printf(w, "        %s,\n", ep_fn_name(e, &name));
	int64_t shape[VIEW_MAXAX + 4];
	for (int a = 0; a < st->naxes; a++)
		shape[a] = st->ax[a].size;
	buf_printf(w, "        out_shape=%sjax.ShapeDtypeStruct(", e->stmt_checks ? "(" : "");
	ep_tuple(w, shape, st->naxes);
	buf_printf(w, ", %s)%s,\n", ep_jdt(st->t->dt), e->stmt_checks ? ", jax.ShapeDtypeStruct((11,), jnp.int32))" : "");
	buf_printf(w, "        grid_spec=%s_grid,\n", ep_fn_name(e, &name));
	/* The planner budgets 16 MiB of double-buffered blocks; the kernel's own
	 * values (a transposed block, merged digits) come on top, past the
	 * chips' default scoped VMEM: big blocks get 100 MiB of the 128. */
	int64_t bytes = 0;
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ep_operand(ps, i);
		int64_t n = 2 * (int64_t)athene_dtype_size(op->t->dt); /* double-buffered, tiles padded */
		for (int a = 0; a < op->naxes && !op->prefetch; a++) {
			int64_t b = ep_axis_mode(ps, &op->ax[a]) == AX_WHOLE ? op->ax[a].size : op->ax[a].block ? op->ax[a].block : 1;
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
			const PlanOperand *op = ep_operand(ps, i);
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
	if (ep_array_elems(st) > storage)
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
		buf_printf(b, "%s%s", i > from ? ", " : "", ep_pyname(t->name));
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
			buf_printf(&w, "    %s = jnp.zeros((%lld,), %s)  # no elements\n", ep_pyname(t->name),
			           (long long)tensor_layout(in, t)->storage, ep_jdt(t->dt));
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
		ep_emit_kernel_fn(&e, &fns);
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
		const char *t = ep_pyname(((const Tensor *)k->params.v[i])->name);
		buf_printf(out, "    %s = jnp.asarray(%s).reshape(-1)\n", t, t);
	}
	buf_printf(out, "%s", buf_str(&w));
	buf_printf(out, "    return ");
	for (int i = k->nin; i < k->params.n; i++) {
		const Tensor *t = k->params.v[i];
		const Layout *l = tensor_layout(in, t);
		buf_printf(out, "%s%s", i > k->nin ? ", " : "", ep_pyname(t->name));
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
		buf_printf(out, nout == 1 ? "    return outs[0]\n" : "    return ep_tuple(outs)\n");
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
