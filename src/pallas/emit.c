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
 * value, position), which the entry point turns into an IndexError.
 *
 * What Mosaic cannot lower moves into the XLA wrapper: a load it cannot
 * express (an element gather, merged digits, a strided slice) is prepared by
 * a module-level function over the statement's variables and read as a
 * plain block; a masked view's array is padded; a statement Mosaic cannot
 * hold at all (64-bit values, f16 loads, i8 vectors, a scatter) runs in XLA
 * as the same body over whole arrays. docs/pallas.md lists them.
 *
 * --target pallas-gpu (Triton) takes the same plan with power-of-two
 * blocks, whole index tensors and tables read by scalars in the kernel
 * instead of scalar prefetch, the other non-plain operands prepared by the
 * wrapper, and per-element bad-index outputs (a GPU's grid runs in
 * parallel) that the wrapper reduces to the records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"


/* The smallest power of two >= n (0 for 0): Triton's block sizes. */
static int64_t pow2_ceil(int64_t n)
{
	int64_t p = 1;
	while (p < n)
		p *= 2;
	return n ? p : 0;
}

/* ---- operands: how each axis is moved ---- */

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

static int64_t ep_highest(const PlanAxis *x)
{
	return (x->step > 0 ? x->start + x->step * (x->len - 1) : x->start) + 1;
}

static int64_t ep_array_elems(const PlanOperand *op)
{
	int64_t n = 1;
	for (int a = 0; a < op->naxes; a++)
		if (!i64_mul(n, op->ax[a].size, &n))
			return -1; /* padded past 2^63: more than any storage */
	return n;
}

/* ---- index maps ---- */

static const char *ep_grid_name(const PlanStmt *ps, int g)
{
	return ep_pyname(ps->vars[ps->grid_var[g]].var->name);
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
	if (x->kind == VA_GATHER && e->gpu) { /* the whole table: the kernel reads the row */
		buf_printf(b, "np.int32(0)");
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

static void map_params(Buf *b, const PlanStmt *ps, bool gpu)
{
	buf_printf(b, "lambda");
	int k = 0;
	for (int g = 0; g < ps->ngrid; g++)
		buf_printf(b, "%s %s", k++ ? "," : "", ep_grid_name(ps, g));
	if (!ps->ngrid)
		buf_printf(b, " _%s", k++ ? "," : ""); /* the one step of a statement without a grid */
	for (int i = 0; i < ps->ops.n && !gpu; i++)
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
	map_params(b, e->ps, e->gpu);
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

/* The array an operand is given: its storage, or the array the wrapper
 * prepares over the statement's variables, reshaped (padded to whole rows). */
static void operand_array(Buf *out, Em *e, const PlanOperand *op)
{
	const char *t = ep_pyname(op->t->name), *prep = e->prep[op->access];
	Buf arr = {0}, f = {0}, *b = &arr;
	if (op->prefetch) {
		buf_printf(out, "_i32(%s)", t);
		*e->needs |= NEED_I32;
		return;
	}
	int64_t have = tensor_layout(e->in, op->t)->storage, n = 1, shape[VIEW_MAXAX + 4];
	int rank = 1;
	if (prep) {
		rank = op->view->naxes;
		have = 1;
		for (int a = 0; a < rank; a++)
			have = ep_mul(e, have, op->view->ax[a].size);
	}
	for (int a = 0; a < op->naxes; a++) {
		shape[a] = op->ax[a].size - e->pad[op->access][a][0] - e->pad[op->access][a][1];
		n = ep_mul(e, n, shape[a]);
	}
	if (n > have) {
		buf_printf(b, "_pad(%s%s, %lld)", prep ? prep : t, rank > 1 ? ".reshape(-1)" : "", (long long)n);
		*e->needs |= NEED_PAD;
	} else
		buf_printf(b, "%s", prep ? prep : t);
	if (op->naxes != rank || n != have) {
		buf_printf(b, ".reshape");
		ep_tuple(b, shape, op->naxes);
	}
	if (!prep)
		flip_axes(&f, e->ps, op);
	if (f.len) {
		Buf t2 = {0};
		buf_printf(&t2, "jnp.flip(%s, (%s,))", buf_str(&arr), buf_str(&f));
		buf_free(&arr);
		arr = t2;
	}
	/* the padded region of masked slices (pad_masked): zeros, never read */
	Buf pad = {0};
	bool padded = false;
	for (int a = 0; a < op->naxes; a++) {
		const int64_t *p = e->pad[op->access][a];
		buf_printf(&pad, "(%lld, %lld)%s", (long long)p[0], (long long)p[1], op->naxes == 1 ? "," : a + 1 < op->naxes ? ", " : "");
		padded |= p[0] || p[1];
	}
	if (padded)
		buf_printf(out, "jnp.pad(%s, (%s))", buf_str(&arr), buf_str(&pad));
	else
		buf_printf(out, "%s", buf_str(&arr));
	buf_free(&pad);
	buf_free(&arr);
	buf_free(&f);
}

/* ---- operands the wrapper prepares ---- */

/* Statement variables (a mask of PlanVar indices) an index expression reads,
 * through the index loads of its atoms; false when it reads one the
 * statement does not have or a form the wrapper cannot spell. */
static bool sym_vars(const PlanStmt *ps, const Sym *s, unsigned *m);
static bool node_vars(const PlanStmt *ps, const Node *n, unsigned *m)
{
	switch (n->kind) {
	case N_INT:
	case N_BOOL:
	case N_SIZE: return true;
	case N_IVAR: {
		int v = ep_pvar_index(ps, n->var);
		*m |= v >= 0 ? 1u << v : 0;
		return v >= 0;
	}
	case N_LOAD:
	case N_FLAT: {
		const PlanOperand *op = ep_index_operand(ps, n);
		return op && sym_vars(ps, op->acc->off, m);
	}
	case N_CAST:
	case N_BITCAST:
	case N_OP:
		for (int i = 0; i < n->nargs; i++)
			if (!node_vars(ps, n->args[i], m))
				return false;
		return true;
	}
	return false;
}

static bool sym_vars(const PlanStmt *ps, const Sym *s, unsigned *m)
{
	if (s->kind == S_VAR) {
		int v = ep_pvar_index(ps, s->p);
		*m |= v >= 0 ? 1u << v : 0;
		return v >= 0;
	}
	if (s->kind == S_ATOM)
		return node_vars(ps, s->p, m);
	for (int i = 0; i < s->n && s->kind != S_CONST; i++)
		if (!sym_vars(ps, s->a[i], m))
			return false;
	return true;
}

/* Why Mosaic cannot load a view operand as the kernel would, or NULL: a
 * slice with a step, or digits of a variable merged in the block (a
 * reshape of its minor dims). */
static const char *mosaic_cannot_load(const Em *e, const PlanOperand *op)
{
	const PlanStmt *ps = e->ps;
	for (int a = 0; a < op->naxes; a++)
		if (op->ax[a].kind == VA_ITER && op->ax[a].block && op->ax[a].step != 1 && op->ax[a].step != -1)
			return "Mosaic slices vectors with step 1 only";
	for (int v = 0; v < ps->nvars; v++) {
		int parts = 0;
		bool has = false;
		for (int d = 0; d < op->view->ndig; d++) {
			const ViewDigit *g = &op->view->dig[d];
			if (g->var != ps->vars[v].var)
				continue;
			bool in = ep_present_in(op, g);
			has |= in;
			parts += (in || g->axis < 0) && ep_digit_extent(g, e->vb[v]) > 1;
		}
		if (has && parts > 1)
			return "Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)";
	}
	return NULL;
}

/* Why the wrapper prepares load j of the statement, or NULL: element gathers
 * (Mosaic lowers only take_along_axis-like gathers), merged digits and
 * strided slices (Mosaic's shape casts and vector slices cannot express
 * them). */
static const char *prepared_reason(const Em *e, const PlanOperand *op, unsigned *m)
{
	if (op->access == 0 || op->prefetch || !op->naxes)
		return NULL;
	*m = 0;
	if (!sym_vars(e->ps, op->acc->off, m))
		return NULL;
	if (op->cls == VIEW_ELEM)
		return op->reason;
	return op->cls == VIEW_VIEW ? mosaic_cannot_load(e, op) : NULL;
}

/* Appends a unit axis at position at (a free reshape). */
static void unit_axis(PlanOperand *op, int at)
{
	memmove(&op->ax[at + 1], &op->ax[at], (size_t)(op->naxes - at) * sizeof op->ax[0]);
	op->ax[at] = (PlanAxis){.kind = VA_UNIT, .size = 1, .block = 1, .var = -1, .step = 1, .len = 1, .vaxis = -1};
	op->naxes++;
}

/* Load j, rewritten as an array the wrapper computes over the variables it
 * reads (each whole, in the statement's order), blocked as the statement's
 * variables are; the function computing it goes into the module. */
/* The array a view operand prepares, as XLA array ops on its storage:
 * the view's reshape, its slices and static indices, a transpose into
 * variable order, broadcast digits, digits merged into their variable (and
 * cut to its range); false for a view they do not spell (a mask, a gather). */
static bool view_in_xla(Buf *b, Em *e, const PlanOperand *op, unsigned m)
{
	const PlanStmt *ps = e->ps;
	const View *v = op->view;
	const char *t = ep_pyname(op->t->name);
	int64_t sizes[VIEW_MAXAX], total = 1, storage = tensor_layout(e->in, op->t)->storage;
	if (v->cls != VIEW_VIEW || (v->flags & VF_MASKED))
		return false;
	for (int a = 0; a < v->naxes; a++) {
		if (v->ax[a].kind != VA_ITER && v->ax[a].kind != VA_INDEX)
			return false;
		sizes[a] = v->ax[a].size;
		total *= sizes[a];
	}
	if (total < storage)
		return false;
	Buf idx = {0}, s = {0};
	ep_tuple(&s, sizes, v->naxes);
	if (total > storage) {
		buf_printf(b, "    a = _pad(%s, %lld).reshape%s\n", t, (long long)total, buf_str(&s));
		*e->needs |= NEED_PAD;
	} else if (v->naxes > 1)
		buf_printf(b, "    a = %s.reshape%s\n", t, buf_str(&s));
	else
		buf_printf(b, "    a = %s\n", t);
	/* slices and static indices; the axes left are digits */
	int n = 0, key[VIEW_MAXAX] = {0};
	int64_t len[VIEW_MAXAX];
	bool trivial = true;
	for (int a = 0; a < v->naxes; a++) {
		const VAxis *x = &v->ax[a];
		buf_printf(&idx, "%s", a ? ", " : "");
		if (x->kind == VA_INDEX) {
			buf_printf(&idx, "%lld", (long long)x->start);
			trivial = false;
			continue;
		}
		const ViewDigit *g = &v->dig[x->ref];
		len[n] = x->len;
		key[n++] = ep_digit_key(ps, g);
		if (x->start == 0 && x->step == 1 && x->len == x->size)
			buf_printf(&idx, ":");
		else {
			PlanAxis pa = {.start = x->start, .step = x->step, .len = x->len};
			ep_slice_of(&idx, &pa, x->start);
			trivial = false;
		}
	}
	if (!trivial)
		buf_printf(b, "    a = a[%s]\n", buf_str(&idx));
	int perm[VIEW_MAXAX];
	ep_sort_by_key(perm, key, n);
	bool moved_axes = false;
	s.len = 0;
	for (int i = 0; i < n; i++) {
		buf_printf(&s, "%s%d", i ? ", " : "", perm[i]);
		moved_axes |= perm[i] != i;
	}
	if (moved_axes)
		buf_printf(b, "    a = jnp.transpose(a, (%s%s))\n", buf_str(&s), n == 1 ? "," : "");
	/* each variable's digits, most significant first: broadcast ones inserted */
	int64_t exp[VIEW_MAXDIG], full[VIEW_MAXDIG], merged[PLAN_MAXVARS];
	int ne = 0, nm = 0;
	bool bcast = false, merge = false, cut = false;
	for (int pv = 0; pv < ps->nvars; pv++) {
		if (!(m >> pv & 1) || ps->vars[pv].n <= 1)
			continue;
		int parts = 0;
		merged[nm] = 1;
		for (int d = 0; d < v->ndig; d++) {
			const ViewDigit *g = &v->dig[d];
			if (g->var != ps->vars[pv].var)
				continue;
			exp[ne] = g->axis >= 0 ? v->ax[g->axis].len : 1;
			full[ne] = g->axis >= 0 ? v->ax[g->axis].len : g->n;
			bcast |= g->axis < 0 && g->n > 1;
			merged[nm] *= full[ne++];
			parts++;
		}
		merge |= parts > 1;
		cut |= merged[nm] > ps->vars[pv].n;
		if (merged[nm] < ps->vars[pv].n) {
			buf_free(&idx);
			buf_free(&s);
			return false;
		}
		nm++;
	}
	int64_t cur[VIEW_MAXAX];
	for (int i = 0; i < n; i++)
		cur[i] = len[perm[i]];
	s.len = 0;
	ep_tuple(&s, exp, ne);
	if (ne != n || memcmp(exp, cur, (size_t)n * sizeof *cur))
		buf_printf(b, "    a = a.reshape%s\n", buf_str(&s));
	if (bcast) {
		s.len = 0;
		ep_tuple(&s, full, ne);
		buf_printf(b, "    a = jnp.broadcast_to(a, %s)\n", buf_str(&s));
	}
	if (merge) {
		s.len = 0;
		ep_tuple(&s, merged, nm);
		buf_printf(b, "    a = a.reshape%s\n", buf_str(&s));
	}
	if (cut) {
		s.len = 0;
		for (int pv = 0, i = 0; pv < ps->nvars; pv++)
			if ((m >> pv & 1) && ps->vars[pv].n > 1)
				buf_printf(&s, "%s:%lld", i++ ? ", " : "", (long long)ps->vars[pv].n);
		buf_printf(b, "    a = a[%s]\n", buf_str(&s));
	}
	buf_printf(b, "    return a\n");
	buf_free(&idx);
	buf_free(&s);
	return true;
}

/* Makes op an array with one axis per variable of mask m of extent above
 * 1, in order, blocked as the plan blocks the variables: what the wrapper
 * prepares for the kernel. Returns the number of axes (their extents in
 * shape), a unit axis standing in for none. */
static int var_axes(Em *e, PlanOperand *op, unsigned m, int64_t *shape)
{
	const PlanStmt *ps = e->ps;
	View *w = arena_alloc(e->ar, sizeof *w);
	int k = 0;
	w->cls = VIEW_VIEW;
	op->naxes = 0;
	for (int v = 0; v < ps->nvars; v++) {
		const PlanVar *pv = &ps->vars[v];
		if (!(m >> v & 1) || pv->n <= 1)
			continue;
		int64_t blk = pv->grid >= 0 ? pv->block : e->vb[v];
		shape[k] = pv->n;
		w->ax[k] = (VAxis){.kind = VA_ITER, .size = pv->n, .len = pv->n, .step = 1, .ref = k};
		w->dig[k] = (ViewDigit){.var = pv->var, .vi = v, .nsplit = 1, .place = 1, .n = pv->n, .axis = k};
		op->ax[op->naxes++] = (PlanAxis){.kind = VA_ITER, .size = pv->n, .block = pv->grid >= 0 && blk == 1 ? 0 : blk,
		                                 .len = pv->n, .step = 1, .var = v, .ref = k, .vaxis = k};
		k++;
	}
	w->naxes = w->ndig = k;
	op->view = w;
	op->cls = VIEW_VIEW;
	memset(e->pad[op->access], 0, sizeof e->pad[op->access]);
	if (!k)
		unit_axis(op, 0);
	return k;
}

static void prepare(Em *e, PlanOperand *op, unsigned m, const char *why)
{
	const PlanStmt *ps = e->ps;
	Buf body = {0};
	bool as_view = view_in_xla(&body, e, op, m);
	int64_t shape[PLAN_MAXVARS + 2];
	int k = var_axes(e, op, m, shape);
	/* the tpu block rule: squeezed axes out of the last two */
	if (e->gpu) {
	} else if (!op->ax[op->naxes - 1].block) {
		unit_axis(op, op->naxes);
		unit_axis(op, op->naxes);
	} else if (op->naxes >= 2 && !op->ax[op->naxes - 2].block)
		unit_axis(op, op->naxes - 1);
	const PlanAxis *last = &op->ax[op->naxes - 1];
	const PlanAxis *second = op->naxes >= 2 ? &op->ax[op->naxes - 2] : NULL;
	if (!e->gpu && ((op->naxes >= 2 && !tpu_ok(last->block, last->size, 128)) ||
	    (second && !tpu_ok(second->block, second->size, 8 * dtype_packing(op->t->dt)))))
		ep_unsupported(e, "a prepared operand whose blocks break the tpu block rule");
	/* the function */
	Buf name = {0}, src = {0}, call = {0}, sh = {0}, off = {0};
	const Tensor *reads[16] = {op->t};
	SymCtx c = {.e = e, .xla = true, .reads = reads, .nreads = 1};
	ep_tuple(&sh, shape, k);
	for (int v = 0, a = 0; v < ps->nvars && !as_view; v++) {
		if (!(m >> v & 1))
			continue;
		const char *vn = ep_pyname(ps->vars[v].var->name);
		if (ps->vars[v].n <= 1) {
			buf_printf(&body, "    %s = jnp.int32(0)\n", vn);
			continue;
		}
		int64_t one[PLAN_MAXVARS];
		for (int i = 0; i < k; i++)
			one[i] = i == a ? shape[i] : 1;
		Buf o = {0};
		ep_tuple(&o, one, k);
		buf_printf(&body, "    %s = jax.lax.broadcasted_iota(jnp.int32, %s, %d)\n", vn, buf_str(&o), a++);
		buf_free(&o);
	}
	if (!as_view)
		ep_sym_expr(&off, &c, op->acc->off);
	if (as_view) {
	} else if (k)
		buf_printf(&body, "    return jnp.take(%s, jnp.broadcast_to(%s, %s), mode=\"clip\")\n", ep_pyname(op->t->name),
		           buf_str(&off), buf_str(&sh));
	else
		buf_printf(&body, "    return jnp.take(%s, %s, mode=\"clip\")\n", ep_pyname(op->t->name), buf_str(&off));
	const char *ref = ep_ref_name(ps, op);
	ep_fn_name(e, &name);
	buf_printf(&name, "_%.*s", (int)(strlen(ref) - 4), ref);
	ast_print(&src, op->acc->load);
	buf_printf(e->fns, "\ndef %s(", buf_str(&name));
	buf_printf(&call, "%s(", buf_str(&name));
	for (int i = 0; i < c.nreads; i++) {
		buf_printf(e->fns, "%s%s", i ? ", " : "", ep_pyname(c.reads[i]->name));
		buf_printf(&call, "%s%s", i ? ", " : "", ep_pyname(c.reads[i]->name));
	}
	buf_printf(&call, ")");
	buf_printf(e->fns, "):\n    \"\"\"%s over %s, in XLA: %s.\"\"\"\n%s\n", buf_str(&src), buf_str(&sh), why, buf_str(&body));
	e->prep[op->access] = arena_strndup(e->ar, buf_str(&call), call.len);
	buf_free(&body);
	buf_free(&name);
	buf_free(&src);
	buf_free(&call);
	buf_free(&sh);
	buf_free(&off);
}

/* The gpu's store when its view is no plain block: the kernel writes the
 * values over the output variables, the wrapper puts them into the
 * storage (a reshape, or a scatter in XLA). */
static void prepare_store(Em *e, PlanOperand *op)
{
	const PlanStmt *ps = e->ps;
	int64_t shape[PLAN_MAXVARS];
	unsigned lhs = ps->nlhs >= 32 ? ~0u : (1u << ps->nlhs) - 1; /* the output's variables */
	int k = var_axes(e, op, lhs, shape);
	if (ep_rowmajor(e, op->acc->off))
		return; /* the values in order are the storage */
	Buf name = {0}, sh = {0}, off = {0}, call = {0};
	const char *y = ep_pyname(op->t->name);
	const Tensor *reads[16] = {op->t};
	SymCtx c = {.e = e, .xla = true, .reads = reads, .nreads = 1};
	ep_tuple(&sh, shape, k);
	ep_fn_name(e, &name);
	buf_printf(&name, "_store");
	buf_printf(e->fns, "\ndef %s(%s):\n    \"\"\"The storage of %s from its values over %s, in XLA.\"\"\"\n", buf_str(&name), y,
	           op->t->name, buf_str(&sh));
	for (int v = 0, a = 0; v < ps->nlhs; v++) {
		const char *vn = ep_pyname(ps->vars[v].var->name);
		int64_t one[PLAN_MAXVARS];
		for (int i = 0; i < k; i++)
			one[i] = i == a ? shape[i] : 1;
		Buf o = {0};
		ep_tuple(&o, one, k);
		if (ps->vars[v].n <= 1)
			buf_printf(e->fns, "    %s = jnp.int32(0)\n", vn);
		else
			buf_printf(e->fns, "    %s = jax.lax.broadcasted_iota(jnp.int32, %s, %d)\n", vn, buf_str(&o), a++);
		buf_free(&o);
	}
	ep_sym_expr(&off, &c, op->acc->off);
	buf_printf(e->fns, "    return jnp.zeros((%lld,), %s).at[jnp.broadcast_to(%s, %s).reshape(-1)].set(%s.reshape(-1))\n\n",
	           (long long)tensor_layout(e->in, op->t)->storage, ep_jdt(op->t->dt), buf_str(&off), buf_str(&sh), y);
	buf_printf(&call, "%s(%s)", buf_str(&name), y);
	e->prep[0] = arena_strndup(e->ar, buf_str(&call), call.len);
	buf_free(&name);
	buf_free(&sh);
	buf_free(&off);
	buf_free(&call);
}

/* Pallas's rule for rank-1 blocks: the whole array, a multiple of 1024
 * elements, or a power of two of at least 128 words. */
static bool rank1_ok(int64_t b, int64_t size, DType t)
{
	int packing = t == ATHENE_BOOL ? 1 : 32 / (dt_bits(t) < 32 ? dt_bits(t) : 32);
	return b == size || b % 1024 == 0 || (b >= 128 * packing && (b & (b - 1)) == 0);
}

/* A rank-1 operand whose block breaks that rule, cut into rows of one block
 * (ceil(n / b), 1, b): one squeezed row per grid step (the array padded to
 * whole rows). */
static void cut_rank1(Em *e, PlanOperand *op)
{
	PlanAxis *x = &op->ax[0];
	if (op->naxes != 1 || op->prefetch || x->kind != VA_ITER || !x->block || !ep_on_grid(e->ps, x) ||
	    ep_axis_mode(e->ps, x) != AX_EXACT || x->start || x->step != 1 || x->len != x->size ||
	    rank1_ok(x->block, x->size, op->t->dt))
		return;
	PlanAxis lo = *x;
	x->size = x->len = i64_ceil_div(x->size, x->block);
	x->place = x->block;
	x->block = 0;
	lo.size = lo.len = lo.block;
	lo.var = -1;
	lo.place = 1;
	op->ax[1] = (PlanAxis){.kind = VA_UNIT, .size = 1, .block = 1, .var = -1, .step = 1, .len = 1, .vaxis = -1};
	op->ax[2] = lo;
	op->naxes = 3;
}

/* The gpu's check outputs: one int32 element per output element. */
static void lhs_shape(Buf *b, const Em *e)
{
	int64_t sh[PLAN_MAXVARS];
	int n = 0;
	for (int v = 0; v < e->ps->nlhs; v++)
		sh[n++] = e->ps->vars[v].n;
	if (!n)
		sh[n++] = 1;
	ep_tuple(b, sh, n);
}

static void lhs_spec(Buf *b, Em *e)
{
	const PlanStmt *ps = e->ps;
	Buf map = {0};
	buf_printf(b, "pl.BlockSpec((");
	for (int v = 0; v < ps->nlhs; v++) {
		const PlanVar *pv = &ps->vars[v];
		if (pv->grid >= 0 && pv->block == 1)
			buf_printf(b, "%sNone", v ? ", " : "");
		else
			buf_printf(b, "%s%lld", v ? ", " : "", (long long)e->vb[v]);
		buf_printf(&map, "%s%s", v ? ", " : "", pv->grid >= 0 ? ep_pyname(pv->var->name) : "np.int32(0)");
	}
	if (!ps->nlhs) {
		buf_printf(b, "1");
		buf_printf(&map, "np.int32(0)");
	}
	buf_printf(b, ps->nlhs > 1 ? "), " : ",), ");
	map_params(b, ps, e->gpu);
	buf_printf(b, "(%s%s))", buf_str(&map), ps->nlhs > 1 ? "" : ",");
	buf_free(&map);
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
	if (npre && !e->gpu)
		buf_printf(out, "pltpu.PrefetchScalarGridSpec(\n    num_scalar_prefetch=%d,\n", npre);
	else
		buf_printf(out, "pl.GridSpec(\n");
	int64_t grid[PLAN_MAXVARS];
	for (int g = 0; g < ps->ngrid; g++) {
		const PlanVar *v = &ps->vars[ps->grid_var[g]];
		grid[g] = i64_ceil_div(v->n, v->block);
	}
	buf_printf(out, "    grid=");
	if (!ps->ngrid)
		buf_printf(out, "(1,)"); /* Pallas prefetches, and places blocks off 0, only on a grid */
	else
		ep_tuple(out, grid, ps->ngrid);
	buf_printf(out, ",\n    in_specs=[");
	int k = 0;
	for (int i = 1; i < ps->ops.n && e->gpu; i++) { /* the gpu's indices: whole, read in the kernel */
		const PlanOperand *op = ep_operand(ps, i);
		if (!op->prefetch)
			continue;
		buf_printf(out, "%s\n        pl.BlockSpec((%lld,), ", k++ ? "," : "",
		           (long long)pow2_ceil(tensor_layout(e->in, op->t)->storage));
		map_params(out, ps, true);
		buf_printf(out, "(np.int32(0),))");
	}
	for (int i = 1; i < ps->ops.n; i++) {
		const PlanOperand *op = ep_operand(ps, i);
		if (op->prefetch || !op->naxes)
			continue;
		buf_printf(out, "%s\n        ", k++ ? "," : "");
		block_spec(out, e, op);
	}
	buf_printf(out, "],\n    out_specs=%s", e->stmt_checks ? "[" : "");
	block_spec(out, e, st);
	if (e->stmt_checks && !e->gpu)
		buf_printf(out, ", pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)]");
	else if (e->stmt_checks) {
		Buf spec = {0};
		lhs_spec(&spec, e);
		for (int c = 0; c < 2 * e->stmt_checks; c++)
			buf_printf(out, ", %s", buf_str(&spec));
		buf_printf(out, "]");
		buf_free(&spec);
	}
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
	if (e->stmt_checks && e->gpu)
		buf_printf(w, "    %s, *err%d = pl.pallas_call(\n", y, si);
	else if (e->stmt_checks)
		buf_printf(w, "    %s, bad%d = pl.pallas_call(\n", y, si);
	else
		buf_printf(w, "    %s = pl.pallas_call(\n", y);
	buf_printf(w, "        %s,\n", ep_fn_name(e, &name));
	int64_t shape[VIEW_MAXAX + 4];
	for (int a = 0; a < st->naxes; a++)
		shape[a] = st->ax[a].size;
	buf_printf(w, "        out_shape=%sjax.ShapeDtypeStruct(", e->stmt_checks ? "(" : "");
	ep_tuple(w, shape, st->naxes);
	if (e->gpu && e->stmt_checks) {
		Buf l = {0};
		lhs_shape(&l, e);
		buf_printf(w, ", %s), *[jax.ShapeDtypeStruct(%s, jnp.int32)] * %d),\n", ep_jdt(st->t->dt), buf_str(&l),
		           2 * e->stmt_checks);
		buf_free(&l);
	} else
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
			int64_t padded;
			if (!i64_round_up(b, tile, &padded) || !i64_mul(n, padded, &n))
				n = INT64_MAX; /* (a whole axis near 2^63: far past any budget) */
		}
		if (!op->prefetch && op->naxes && __builtin_add_overflow(bytes, n, &bytes))
			bytes = INT64_MAX;
	}
	bool big = bytes > 4 << 20;
	if (e->gpu)
		buf_printf(w, "        compiler_params=pltriton.CompilerParams(),\n");
	else if (ps->ngrid || big) {
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
	if (e->prep[0])
		buf_printf(w, "    %s = %s\n", y, e->prep[0]);
	else if (ep_array_elems(st) < 0 || ep_array_elems(st) > storage)
		buf_printf(w, "    %s = %s.reshape(-1)[:%lld]\n", y, y, (long long)storage);
	else if (st->naxes != 1)
		buf_printf(w, "    %s = %s.reshape(-1)\n", y, y);
	if (e->stmt_checks && e->gpu) {
		int first = e->nchecks - e->stmt_checks;
		buf_printf(w, "    bad%d = jnp.concatenate([", si);
		for (int c = 0; c < e->stmt_checks; c++)
			buf_printf(w, "%s_first_bad(err%d[%d], err%d[%d], %d)", c ? ", " : "", si, 2 * c, si, 2 * c + 1, first + c);
		buf_printf(w, "])\n");
	}
	if (e->stmt_checks)
		buf_printf(records, "%sbad%d", records->len ? ", " : "", si);
	buf_free(&name);
}

/* Records why the gpu module leaves the kernel out (the first reason). */
static void gpu_refuse(Em *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gpu_refuse(Em *e, const char *fmt, ...)
{
	if (e->refused)
		return;
	Buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	e->refused = arena_strndup(e->ar, buf_str(&b), b.len);
	buf_free(&b);
}

/* Can the gpu kernel take the operand's block as it is: every axis
 * squeezed or one whole range of a variable, in order (a transpose at
 * most), nothing sliced or indexed in the kernel? */
static bool gpu_plain(const Em *e, const PlanOperand *op, bool rows)
{
	for (int a = 0; a < op->naxes; a++) {
		const PlanAxis *x = &op->ax[a];
		if (rows && (x->kind == VA_GATHER || x->kind == VA_UNIT))
			continue; /* the row read from the whole table; a unit axis indexed */
		if (!x->block && x->kind != VA_GATHER && (x->kind != VA_ITER || ep_on_grid(e->ps, x)))
			continue;
		if (x->kind != VA_ITER || x->var < 0 || (x->step != 1 && x->step != -1) ||
		    ep_axis_mode(e->ps, x) != AX_EXACT)
			return false;
	}
	return op->cls != VIEW_ELEM;
}

/* Can the gpu kernel read the statement's gathered rows itself: every
 * row gather's index read by variables on the grid with one value per
 * step (the plan's scalar-prefetch form)? Then the indices come whole and
 * the kernel reads one row of the whole table per step. */
static bool gpu_rows_in_kernel(const Em *e, PlanOperand *const *ops)
{
	const PlanStmt *ps = e->ps;
	for (int j = 1; j < ps->ops.n; j++) {
		const View *v = ops[j]->view;
		if (ops[j]->cls != VIEW_ROWGATHER)
			continue;
		for (int g = 0; g < v->ngat; g++) {
			unsigned m = 0;
			if (!sym_vars(ps, v->gat[g].atom, &m))
				return false;
			for (int x = 0; x < ps->nvars; x++)
				if ((m >> x & 1) && (ps->vars[x].grid < 0 ? ps->vars[x].n > 1 : ps->vars[x].block != 1))
					return false;
		}
	}
	return true;
}

/* The gpu's blocks: a whole variable's block is its power-of-two extent,
 * past the array's end (Triton masks the rest); a variable on the grid
 * (not split into digits) takes the largest power of two in the plan's
 * block, on more steps. */
static void gpu_blocks(Em *e, PlanOperand *op)
{
	for (int a = 0; a < op->naxes; a++) {
		PlanAxis *x = &op->ax[a];
		const PlanVar *pv = ep_axis_var(e->ps, x);
		if (x->kind == VA_GATHER) /* the whole table */
			x->block = pow2_ceil(x->size);
		if (!x->block || x->kind != VA_ITER || !pv)
			continue;
		int64_t place = op->view->dig[x->ref].place, old = e->p->st[e->si].vars[x->var].block;
		if (pv->grid < 0)
			x->block = e->vb[x->var];
		else if (x->block * place == old && x->start % (pv->block / place) == 0) /* a top digit: block / place */
			x->block = pv->block / place;
	}
}

static int64_t pow2_floor(int64_t n)
{
	int64_t p = 1;
	while (p * 2 <= n)
		p *= 2;
	return p;
}

/* The statement for the gpu: its grid variables' blocks powers of two. */
static const PlanStmt *gpu_blocks_of(Em *e, const PlanStmt *ps)
{
	PlanStmt *g = arena_dup(e->ar, ps, sizeof *ps);
	g->ngrid = 0;
	for (int v = 0; v < g->nvars; v++) {
		PlanVar *pv = &g->vars[v];
		if (pv->grid >= 0 && pv->reduce && pv->pinned) { /* XLA gathers the rows: whole, in the block */
			pv->block = pv->n;
			pv->grid = -1;
		}
		/* a variable split into digits keeps whole lower digits in its block */
		if (pv->grid >= 0 && (!pv->split || (pv->unit > 0 && pow2_floor(pv->block) % pv->unit == 0)))
			pv->block = pow2_floor(pv->block);
		if (pv->grid >= 0) {
			pv->grid = g->ngrid;
			g->grid_var[g->ngrid++] = v;
		}
	}
	return g;
}

/* A masked slice that reaches past its array (the padded region of a pad
 * or a concatenation, never read): the wrapper pads the array so the
 * kernel's slice stays inside; the axis grows by the pad, its start moves
 * by the low pad. */
static void pad_masked(Em *e, int j, int a, PlanAxis *x)
{
	int64_t lo = ep_lowest(x) < 0 ? -ep_lowest(x) : 0, hi = ep_highest(x) > x->size ? ep_highest(x) - x->size : 0;
	if (x->kind != VA_ITER || (!lo && !hi))
		return;
	if (ep_axis_mode(e->ps, x) != AX_WHOLE || ep_on_grid(e->ps, x))
		ep_unsupported(e, "a masked slice past its array on a grid axis");
	x->size += lo + hi;
	x->start += lo;
	x->widened = true; /* the kernel slices the padded array */
	e->pad[j][a][0] = lo;
	e->pad[j][a][1] = hi;
}

/* The operands as the module moves them (ep_moved): the plan's, with
 * reversed axes flipped and masked slices padded by the wrapper, the loads
 * Mosaic cannot express prepared by the wrapper (every load, for a
 * statement in XLA), rank-1 blocks Pallas refuses cut into rows. */
static void setup_operands(Em *e, const PlanStmt *ps)
{
	bool gpu = e->gpu && !e->xla; /* (a statement in XLA has whole arrays) */
	for (int v = 0; v < ps->nvars; v++) {
		e->vb[v] = ps->vars[v].grid >= 0 ? ps->vars[v].block : ps->vars[v].n;
		if (gpu && ps->vars[v].grid < 0) /* Triton: power-of-two blocks, padded past the end */
			e->vb[v] = pow2_ceil(e->vb[v]);
		if (gpu && ps->vars[v].grid >= 0 && pow2_ceil(e->vb[v]) != e->vb[v])
			gpu_refuse(e, "the grid block %lld of %s is not a power of two", (long long)e->vb[v],
			           ps->vars[v].var->name);
		if (gpu && ps->vars[v].grid >= 0 && ps->vars[v].reduce)
			gpu_refuse(e, "the reduction over %s is split over grid steps, which a GPU runs in parallel",
			           ps->vars[v].var->name);
	}
	PlanOperand **ops = arena_alloc(e->ar, (size_t)ps->ops.n * sizeof *ops);
	e->pad = arena_alloc(e->ar, (size_t)ps->ops.n * sizeof *e->pad);
	e->prep = arena_alloc(e->ar, (size_t)ps->ops.n * sizeof *e->prep);
	for (int j = 0; j < ps->ops.n; j++) {
		PlanOperand *op = ops[j] = arena_dup(e->ar, ps->ops.v[j], sizeof *op);
		for (int a = 0; a < op->naxes && !e->xla; a++) {
			PlanAxis *x = &op->ax[a];
			if (flipped(op, x)) {
				x->start = x->size - 1 - x->start;
				x->step = -x->step;
			}
			pad_masked(e, j, a, x);
		}
	}
	ep_moved = (const PlanOperand *const *)ops;
	bool rows = gpu && gpu_rows_in_kernel(e, ops);
	for (int j = 0; j < ps->ops.n; j++) {
		unsigned m = 0;
		const char *why = prepared_reason(e, ops[j], &m);
		bool pre = ops[j]->prefetch;
		if (e->xla && j)
			ops[j]->prefetch = false;
		if (e->xla && j && (ops[j]->naxes || pre)) {
			if (!sym_vars(ps, ops[j]->acc->off, &m))
				ep_unsupported(e, "a load of a statement in XLA whose offset the wrapper cannot spell");
			why = e->xla_why;
		}
		if (gpu && j && rows && pre)
			continue; /* read whole, by scalars in the kernel */
		if (gpu && j) {
			ops[j]->prefetch = false;
			if (!why && (pre || (!gpu_plain(e, ops[j], rows) && ops[j]->naxes)))
				why = sym_vars(ps, ops[j]->acc->off, &m) ? pre || ops[j]->cls == VIEW_ROWGATHER
				                                               ? "scalar prefetch is TPU-only, so XLA gathers the rows"
				                                               : "Triton slices and indexes no blocks in the kernel"
				                                         : NULL;
			if (!why && (pre || (!gpu_plain(e, ops[j], rows) && ops[j]->naxes)))
				gpu_refuse(e, "a load of %s that the wrapper cannot gather", ops[j]->t->name);
		}
		if (gpu && !j && !gpu_plain(e, ops[j], false) && ops[j]->naxes) {
			if (sym_vars(ps, ops[j]->acc->off, &m))
				prepare_store(e, ops[j]);
			else
				gpu_refuse(e, "a store into %s whose offset the wrapper cannot spell", ops[j]->t->name);
		}
		if (why && !e->refused)
			prepare(e, ops[j], m, why);
		if (gpu)
			gpu_blocks(e, ops[j]);
		else if (!e->xla)
			cut_rank1(e, ops[j]);
	}
}

/* A statement in XLA: its function over whole arrays returns the output's
 * storage (and, when it checks indices, their arrays: the records). */
static void emit_xla_call(Em *e, Buf *w, int si, Buf *records)
{
	const PlanStmt *ps = e->ps;
	Buf name = {0};
	const char *y = ep_pyname(ps->stmt->t->name);
	buf_printf(w, "    # in XLA: %s\n", e->xla_why);
	if (e->stmt_checks)
		buf_printf(w, "    %s, *err%d = %s(", y, si, ep_fn_name(e, &name));
	else
		buf_printf(w, "    %s = %s(", y, ep_fn_name(e, &name));
	int k = 0;
	if (ps->stmt->at) /* a scatter: the storage it updates */
		buf_printf(w, "%s", y), k++;
	for (int i = 1; i < ps->ops.n; i++) {
		const PlanOperand *op = ep_operand(ps, i);
		if (!op->naxes)
			continue;
		buf_printf(w, "%s", k++ ? ", " : "");
		operand_array(w, e, op);
	}
	buf_printf(w, ")\n");
	if (e->stmt_checks) {
		int first = e->nchecks - e->stmt_checks;
		buf_printf(w, "    bad%d = jnp.concatenate([", si);
		for (int c = 0; c < e->stmt_checks; c++)
			buf_printf(w, "%s_first_bad(err%d[%d], err%d[%d], %d)", c ? ", " : "", si, 2 * c, si, 2 * c + 1, first + c);
		buf_printf(w, "])\n");
		buf_printf(records, "%sbad%d", records->len ? ", " : "", si);
	}
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

void emit_pallas_kernel(Buf *out, unsigned *needs, Inst *in, const Plan *p, bool gpu, Arena *scratch)
{
	const Kernel *k = in->k;
	Em e = {.in = in, .p = p, .kname = k->name, .needs = needs, .gpu = gpu, .ar = scratch};
	unsigned needs_in = *needs;
	Buf fns = {0}, w = {0}, records = {0};
	for (int i = 0; i < k->params.n; i++)
		if (wide(((const Tensor *)k->params.v[i])->dt))
			*needs |= NEED_X64;
	for (int si = 0; si < p->nstmts; si++) {
		const PlanStmt *ps = &p->st[si];
		const Tensor *t = ps->stmt->t;
		e.ps = ps;
		e.si = si;
		e.prog = in->prog[si];
		e.sname = t->name;
		buf_printf(&w, "    # %s\n", ps->stmt->t->name);
		if (ps->empty) {
			buf_printf(&w, "    %s = jnp.zeros((%lld,), %s)  # no elements\n", ep_pyname(t->name),
			           (long long)tensor_layout(in, t)->storage, ep_jdt(t->dt));
			continue;
		}
		size_t fns0 = fns.len, msgs0 = e.msgs.len;
		unsigned needs0 = *needs;
		int nchecks0 = e.nchecks;
		e.fns = &fns;
		e.xla = false;
		e.xla_why = NULL;
		if (gpu)
			ps = e.ps = gpu_blocks_of(&e, ps);
		setup_operands(&e, ps);
		if (e.refused)
			break;
		ep_emit_kernel_fn(&e, &fns);
		if (e.xla_why) { /* again, in XLA */
			fns.len = fns0;
			e.msgs.len = msgs0;
			*needs = needs0;
			e.nchecks = nchecks0;
			PlanStmt *whole = arena_dup(e.ar, ps, sizeof *ps);
			whole->ngrid = 0;
			for (int v = 0; v < whole->nvars; v++) {
				whole->vars[v].grid = -1;
				whole->vars[v].block = whole->vars[v].n;
			}
			e.ps = whole;
			e.xla = true;
			setup_operands(&e, whole);
			ep_emit_kernel_fn(&e, &fns);
			emit_xla_call(&e, &w, si, &records);
			e.xla = false;
		} else {
			emit_grid_spec(&e, &fns);
			emit_call(&e, &w, si, &records);
		}
		ep_moved = NULL;
	}
	if (e.refused) {
		ep_moved = NULL;
		*needs = needs_in;
		buf_printf(out, "\n\n# ---- kernel %s: not emitted for pallas-gpu: %s\n", k->name, e.refused);
		buf_free(&fns);
		buf_free(&w);
		buf_free(&records);
		buf_free(&e.msgs);
		return;
	}
	buf_printf(out, "\n\n# ---- kernel %s\n", k->name);
	buf_printf(out, "%s", buf_str(&fns));
	if (e.nchecks)
		buf_printf(out, "\n\n_%s_MESSAGES = (\n%s)\n", k->name, buf_str(&e.msgs));
	Buf sig = {0}, outs = {0}, desc = {0};
	signature(&sig, k, 0, k->nin);
	for (int i = k->nin; i < k->params.n; i++) { /* outputs a scatter updates: their values in */
		const Tensor *t = k->params.v[i];
		if (t->def && t->def->at)
			buf_printf(&sig, "%s%s", sig.len ? ", " : "", ep_pyname(t->name));
	}
	signature(&outs, k, k->nin, k->params.n);
	buf_printf(&desc, "%s(", k->name);
	describe(&desc, in, 0, k->nin);
	buf_printf(&desc, ") -> ");
	describe(&desc, in, k->nin, k->params.n);
	buf_printf(out, "\n\ndef %s_pure(%s%sinterpret=False):\n", k->name, buf_str(&sig), sig.len ? ", *, " : "*, ");
	buf_printf(out, "    \"\"\"Traceable %s.%s\"\"\"\n", buf_str(&desc),
	           e.nchecks ? " Returns the outputs, then the bad-index records." : "");
	for (int i = 0; i < k->params.n; i++) {
		const Tensor *p = k->params.v[i];
		const char *t = ep_pyname(p->name);
		if (i < k->nin || (p->def && p->def->at))
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
	buf_printf(out, "\n\ndef %s(%s%sinterpret=None):\n", k->name, buf_str(&sig), sig.len ? ", *, " : "*, ");
	buf_printf(out, "    \"\"\"%s.%s\"\"\"\n", buf_str(&desc),
	           e.nchecks ? " Raises IndexError for an out-of-range gather index." : "");
	int nout = k->params.n - k->nin;
	if (e.nchecks) {
		buf_printf(out, "    *outs, bad = _run(_%s, (%s%s), interpret)\n", k->name, buf_str(&sig), strchr(buf_str(&sig), ',') || !sig.len ? "" : ",");
		buf_printf(out, "    _raise_bad(bad, _%s_MESSAGES)\n", k->name);
		buf_printf(out, nout == 1 ? "    return outs[0]\n" : "    return tuple(outs)\n");
	} else
		buf_printf(out, "    return _run(_%s, (%s%s), interpret)\n", k->name, buf_str(&sig), strchr(buf_str(&sig), ',') || !sig.len ? "" : ",");
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
	"    \"\"\"Counts this block's out-of-range indices of one check; keeps the first (the least\n"
	"    row-major position: Mosaic has no argmax of bools, no flattening reshape, no dynamic\n"
	"    index into a vector).\"\"\"\n"
	"    if jnp.ndim(bad) == 0:\n"
	"        k, pos, count = 0, (0,) * len(base), bad.astype(jnp.int32)\n"
	"    else:\n"
	"        lin = jnp.zeros(bad.shape, jnp.int32)\n"
	"        for d, n in enumerate(bad.shape):\n"
	"            lin = lin * n + jax.lax.broadcasted_iota(jnp.int32, bad.shape, d)\n"
	"        k = jnp.min(jnp.where(bad, lin, jnp.int32(bad.size)))\n"
	"        pos = [k // jnp.int32(int(np.prod(bad.shape[d + 1:]))) % jnp.int32(n) for d, n in enumerate(bad.shape)]\n"
	"        # no int32 sum to a scalar: under x64 Mosaic's lowering of it widens to int64\n"
	"        count = jnp.sum(bad.astype(jnp.float32)).astype(jnp.int32)  # exact: a block < 2**24\n"
	"        value = jnp.max(jnp.where(lin == k, value.astype(jnp.int32), jnp.int32(-2**31)))\n"
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

static const char helper_first_bad[] =
	"\n\ndef _first_bad(count, value, check):\n"
	"    \"\"\"The bad-index record of one check (count, check, value, position) from its\n"
	"    count and largest bad index per output element: the first element's.\"\"\"\n"
	"    k = jnp.argmax(count.reshape(-1) > 0)\n"
	"    pos = jnp.unravel_index(k, count.shape)\n"
	"    head = [jnp.sum(count), jnp.int32(check), value.reshape(-1)[k], *pos]\n"
	"    return jnp.stack([jnp.asarray(v).astype(jnp.int32) for v in head] + [jnp.int32(0)] * (11 - len(head)))\n"
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

/* airy_ai as base/gamma.c computes it (its comments say why): the Maclaurin series up to |x| = 2,
 * Taylor steps of y'' = x y from 0 toward negative x and back from 10 toward positive x, the
 * asymptotic series beyond |x| = 10; every element computes each, jnp.where picks. */
static const char helper_airy[] =
	"\n\n_AIRY_U = [1.0]\n"
	"for _k in range(1, 26):\n"
	"    _AIRY_U.append(_AIRY_U[-1] * (6 * _k - 5) * (6 * _k - 3) * (6 * _k - 1) / (216 * _k * (2 * _k - 1)))\n"
	"\n\n"
	"def _airy_step(x0, h, y, dy):\n"
	"    \"\"\"y and y' at x0 + h of y'' = x y, by its Taylor series (48 terms).\"\"\"\n"
	"    def term(n, c):\n"
	"        c0, c1, c2, s, ds, hn = c\n"
	"        n = n.astype(s.dtype)\n"
	"        ds = ds + n * c2 * hn\n"
	"        hn = hn * h\n"
	"        return c1, c2, (x0 * c1 + c0) / ((n + 1) * n), s + c2 * hn, ds, hn\n"
	"    c = (y, dy, x0 * y / 2, y + dy * h, dy, h)\n"
	"    c = jax.lax.fori_loop(jnp.int32(2), jnp.int32(48), term, tuple(jnp.broadcast_to(v, jnp.shape(h)).astype(h.dtype) for v in c))\n"
	"    return c[3], c[4]\n"
	"\n\n"
	"def _airy_far_right(x):\n"
	"    \"\"\"Ai(x) and Ai'(x) for x >= 10: e^-z x^(-1/4) / (2 sqrt(pi)) sum u_k (-z)^-k, ...\"\"\"\n"
	"    z = 2.0 / 3 * x * jnp.sqrt(x)\n"
	"    su, sv, zk = 1.0, 1.0, 1.0\n"
	"    for k in range(1, 26):\n"
	"        zk = zk * -z\n"
	"        su = su + _AIRY_U[k] / zk\n"
	"        sv = sv - (6 * k + 1) / (6 * k - 1) * _AIRY_U[k] / zk\n"
	"    e, r = jnp.exp(-z) / 3.5449077018110318, jnp.sqrt(jnp.sqrt(x))  # 2 sqrt(pi)\n"
	"    return e / r * su, -e * r * sv\n"
	"\n\n"
	"def _airy_ai(x):\n"
	"    \"\"\"Airy's Ai as athene computes it: NaN at +-inf and below -2^36, 0 above 103.892.\"\"\"\n"
	"    mid = _airy_step(0.0, jnp.clip(x, -2, 2), 0.355028053887817239260, -0.258819403792806798405)[0]\n"
	"    h = jnp.clip(x, -10, -2) / 20\n"
	"    neg = jax.lax.fori_loop(jnp.int32(0), jnp.int32(20), lambda i, c: (c[0] + h, *_airy_step(c[0], h, c[1], c[2])),\n"
	"                            (jnp.zeros_like(x), jnp.full_like(x, 0.355028053887817239260),\n"
	"                             jnp.full_like(x, -0.258819403792806798405)))[1]\n"
	"    h = (jnp.clip(x, 2, 10) - 10) / 16\n"
	"    y10, dy10 = _airy_far_right(jnp.full_like(x, 10))\n"
	"    pos = jax.lax.fori_loop(jnp.int32(0), jnp.int32(16), lambda i, c: (c[0] + h, *_airy_step(c[0], h, c[1], c[2])),\n"
	"                            (jnp.full_like(x, 10), y10, dy10))[1]\n"
	"    right = _airy_far_right(jnp.clip(x, 10, 104))[0]\n"
	"    y = jnp.clip(-x, 10, 2.0 ** 36)\n"
	"    z = 2.0 / 3 * y * jnp.sqrt(y)\n"
	"    even, odd, zk = 1.0, 0.0, 1.0\n"
	"    for k in range(1, 26):\n"
	"        zk = zk * z\n"
	"        t = (-1 if (k // 2) % 2 else 1) * _AIRY_U[k] / zk\n"
	"        even, odd = (even, odd + t) if k % 2 else (even + t, odd)\n"
	"    left = (jnp.cos(z - np.pi / 4) * even + jnp.sin(z - np.pi / 4) * odd) / (1.7724538509055159 * jnp.sqrt(jnp.sqrt(y)))\n"
	"    r = jnp.where(x >= 10, right, jnp.where(x > 2, pos, jnp.where(x >= -2, mid, jnp.where(x > -10, neg, left))))\n"
	"    r = jnp.where(x > 103.892, 0, r)\n"
	"    return jnp.where(jnp.isinf(x) | (x < -2.0 ** 36), jnp.nan, r)\n";

/* frexp of an f64 in float arithmetic alone, for XLA's TPU compiler, which refuses jnp.frexp's
 * 64-bit integer arithmetic on the bits ("Binary op and with different element types: s32 and
 * u32"): the exponent from log2, set right where log2 rounds across a power of two; the scaling
 * by 2^-e in two halves (a subnormal's overflows), each a product of exact powers of two. */
static const char helper_frexp64[] =
	"\n\ndef _frexp64(a):\n"
	"    \"\"\"(mantissa, int32 exponent) of f64 a; 0, inf and NaN themselves, exponent 0.\"\"\"\n"
	"    ok = jnp.isfinite(a) & (a != 0)\n"
	"    m = jnp.where(ok, jnp.abs(a), 1.0)\n"
	"    e = jnp.floor(jnp.log2(m)) + 1\n"
	"    for half in (jnp.floor(-e / 2), -e - jnp.floor(-e / 2)):\n"
	"        k, p = jnp.abs(half), 1.0\n"
	"        for i in range(10):\n"
	"            p = p * jnp.where(jnp.floor(k / 2 ** i) % 2 == 1, 2.0 ** (2 ** i), 1.0)\n"
	"        m = jnp.where(half < 0, m / p, m * p)\n"
	"    e, m = jnp.where(m >= 1, e + 1, jnp.where(m < 0.5, e - 1, e)), jnp.where(m >= 1, m / 2, jnp.where(m < 0.5, m * 2, m))\n"
	"    return jnp.where(ok, jnp.where(a < 0, -m, m), a), jnp.where(ok, e, 0).astype(jnp.int32)\n";

static const char helper_run_gpu[] =
	"\n\ndef _run(pure, args, interpret):\n"
	"    \"\"\"interpret=None: compiled on a GPU, elsewhere the interpreter on the CPU device.\"\"\"\n"
	"    if interpret is None and jax.default_backend() != \"gpu\":\n"
	"        with jax.default_device(jax.devices(\"cpu\")[0]):\n"
	"            return pure(*args, interpret=True)\n"
	"    return pure(*args, interpret=False if interpret is None else interpret)\n";

void emit_pallas_module(Buf *out, const char *file, const char *target, const char *chip, unsigned needs,
                        const char *kernels)
{
	bool gpu = !strcmp(target, "pallas-gpu");
	buf_printf(out, "\"\"\"Pallas kernels of %s, emitted by athene (target %s%s%s). Do not edit.\n\n", file, target,
	           chip ? ", chip " : "", chip ? chip : "");
	buf_printf(out, "Each kernel K has an entry point K(*inputs, interpret=None) and a traceable\n"
	                "K_pure(*inputs, interpret=False). Inputs have the kernel's logical shapes; a\n"
	                "parameter that declares its layout takes (and an output that declares one\n"
	                "returns) its storage as a 1-D array. interpret=None runs compiled on a %s and\n"
	                "in the interpreter on the CPU elsewhere.\n\"\"\"\n", gpu ? "GPU (Triton)" : "TPU");
	buf_printf(out, "import jax\nimport jax.numpy as jnp\nimport numpy as np\n"
	                "from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import %s\n",
	           gpu ? "triton as pltriton" : "tpu as pltpu");
	if (needs & NEED_SPECIAL)
		buf_printf(out, "import jax.scipy.special\n");
	if (needs & NEED_X64)
		buf_printf(out, "\n# 64-bit tensors: without x64 JAX would silently narrow them to 32 bits.\n"
		                "jax.config.update(\"jax_enable_x64\", True)\n");
	buf_printf(out, "%s", gpu ? helper_run_gpu : helper_run);
	if (needs & NEED_RECORD)
		buf_printf(out, "%s", helper_record);
	if (needs & NEED_GPU_RECORD)
		buf_printf(out, "%s", helper_first_bad);
	if (needs & NEED_I32)
		buf_printf(out, "%s", helper_i32);
	if (needs & NEED_PAD)
		buf_printf(out, "%s", helper_pad);
	if (needs & NEED_SPECIAL)
		buf_printf(out, "%s", ep_special_helpers);
	if (needs & NEED_AIRY)
		buf_printf(out, "%s", helper_airy);
	if (needs & NEED_FREXP64)
		buf_printf(out, "%s", helper_frexp64);
	buf_printf(out, "%s", kernels);
}
