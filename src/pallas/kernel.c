/* The kernel body of one planned statement, rendered from its body IR
 * over the statement's block (see emit.c for the module around
 * it): every value lives in the block's iteration space; loads bring
 * their blocks into it, stores take the result out; gathered indices that
 * are not proven in range are counted in the SMEM record. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* ---- the kernel body ---- */

static bool needs_check(const Em *e, const Ins *x);

static bool sym_has_var(const Sym *s, const Var *v)
{
	if (s->kind == S_VAR)
		return s->p == v;
	for (int i = 0; i < s->n && s->kind != S_ATOM; i++)
		if (sym_has_var(s->a[i], v))
			return true;
	return false;
}

/* A reduction over a variable of no values: its identity, read nothing. */
static bool empty_reduce(const Em *e, const Ins *x)
{
	const Scope *sc = &e->prog->scopes[x->inner];
	for (int i = 0; i < sc->nvars; i++)
		if (e->vb[ep_pvar_index(e->ps, sc->vars[i])] == 0)
			return true;
	return false;
}

/* The values integer register r of an index computation may take (lo[r],
 * hi[r]), from its arguments'; false when they may leave int32 or are not
 * known. A prefetched index, and what is computed from one, is taken to
 * fit int32 (assumed: the wrapper reads indices so, and a gather's offsets
 * fit the TPU's int32 addressing). */
static bool index_range(const Em *e, int r, int64_t *lo, int64_t *hi, bool *assumed)
{
	const Prog *p = e->prog;
	const Ins *x = &p->ins[r];
	int64_t a = 0, b = 0; /* the arguments' ranges fit int32: sums and products fit int64 */
	assumed[r] = false;
	for (int i = 0; (x->kind == I_OP || x->kind == I_CAST) && i < x->nargs; i++)
		assumed[r] |= assumed[x->a[i]];
	if (x->dt == ATHENE_BOOL) {
		a = 0, b = 1;
	} else if (dt_is_float(x->dt)) {
		return false;
	} else if (x->kind == I_IVAR) {
		int v = ep_pvar_index(e->ps, x->var);
		a = 0, b = v >= 0 && e->ps->vars[v].n > 0 ? e->ps->vars[v].n - 1 : INT32_MAX;
	} else if (x->kind == I_CONST) {
		a = b = x->c.i;
	} else if (x->kind == I_LOAD) {
		if (!ep_operand(e->ps, x->operand)->prefetch)
			return false;
		assumed[r] = true;
	} else if (x->kind == I_OP && x->op == OP_SHL) {
		return false; /* 1 << i leaves int32 */
	} else if (assumed[r]) {
		;
	} else if (x->kind == I_CAST) {
		a = lo[x->a[0]], b = hi[x->a[0]];
		int bits = dt_bits(x->dt);
		int64_t tlo = x->dt == ATHENE_U8 ? 0 : bits < 64 ? -((int64_t)1 << (bits - 1)) : INT64_MIN;
		int64_t thi = bits < 64 ? ((int64_t)1 << (bits - (x->dt != ATHENE_U8))) - 1 : INT64_MAX;
		if (a < tlo || b > thi) /* it wraps */
			a = tlo, b = thi;
	} else if (x->kind == I_OP) {
		int i0 = x->a[0], i1 = x->nargs > 1 ? x->a[1] : i0, i2 = x->nargs > 2 ? x->a[2] : i1;
		int64_t l0 = lo[i0], h0 = hi[i0], l1 = lo[i1], h1 = hi[i1];
		int64_t m0 = l0 < 0 ? -l0 : l0, m1 = h0 < 0 ? -h0 : h0, mag = m0 > m1 ? m0 : m1;
		int64_t n0 = l1 < 0 ? -l1 : l1, n1 = h1 < 0 ? -h1 : h1, div = n0 > n1 ? n0 : n1;
		int64_t q[4] = {l0 * l1, l0 * h1, h0 * l1, h0 * h1};
		switch (x->op) {
		case OP_ADD: a = l0 + l1, b = h0 + h1; break;
		case OP_SUB: a = l0 - h1, b = h0 - l1; break;
		case OP_NEG: a = -h0, b = -l0; break;
		case OP_MUL:
			a = b = q[0];
			for (int k = 1; k < 4; k++)
				a = q[k] < a ? q[k] : a, b = q[k] > b ? q[k] : b;
			break;
		case OP_ABS: a = 0, b = mag; break;
		case OP_FLOORDIV: a = -mag, b = mag; break; /* |a // b| <= |a|; by 0: 0 */
		case OP_MOD: a = -div, b = div; break;
		case OP_MIN: a = l0 < l1 ? l0 : l1, b = h0 < h1 ? h0 : h1; break;
		case OP_MAX: a = l0 > l1 ? l0 : l1, b = h0 > h1 ? h0 : h1; break;
		case OP_WHERE: a = lo[i1] < lo[i2] ? lo[i1] : lo[i2], b = hi[i1] > hi[i2] ? hi[i1] : hi[i2]; break;
		case OP_WRAP: a = 0, b = h0 > h1 ? h0 : h1; break;
		case OP_BAND: case OP_BOR: case OP_BXOR: case OP_BNOT: case OP_SHR:
			a = INT32_MIN, b = INT32_MAX; /* of int32 values: int32 values */
			break;
		default: return false;
		}
	} else {
		return false;
	}
	if (assumed[r])
		a = INT32_MIN, b = INT32_MAX;
	if (a < INT32_MIN || b > INT32_MAX)
		return false;
	lo[r] = a, hi[r] = b;
	return true;
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
	/* i64 values computed from index variables, constants and prefetched
	 * indices whose range fits int32 (index_range: extents do, 2147483647 +
	 * b does not): the TPU has no i64, so they are int32 unless an i64
	 * tensor is stored */
	bool index[p->n + 1], assumed[p->n + 1];
	int64_t lo[p->n + 1], hi[p->n + 1];
	for (int r = 0; r < p->n; r++) {
		const Ins *x = &p->ins[r];
		lo[r] = 0, hi[r] = 1, assumed[r] = false; /* a bool's, whatever computes it */
		index[r] = x->kind != I_REDUCE && x->kind != I_BITCAST;
		for (int i = 0; index[r] && (x->kind == I_OP || x->kind == I_CAST) && i < x->nargs; i++)
			index[r] = index[x->a[i]] || p->ins[x->a[i]].dt == ATHENE_BOOL;
		index[r] = index[r] && index_range(e, r, lo, hi, assumed);
		e->narrow[r] |= x->dt == ATHENE_I64 && index[r] && p->out != ATHENE_I64;
	}
	/* backwards: every use of r is seen before r */
	for (int r = p->n - 1; r >= 0; r--) {
		const Ins *x = &p->ins[r];
		if (check_root[r])
			e->used[r] = true;
		e->narrow[r] |= x->dt == ATHENE_I64 && !value_use[r];
		if (!e->used[r] || (x->kind == I_REDUCE && empty_reduce(e, x)))
			continue;
		for (int i = 0; i < x->nargs && x->kind != I_LOAD; i++) {
			e->used[x->a[i]] = true;
			value_use[x->a[i]] |= value_use[r] || !e->narrow[r];
		}
		/* the kernel needs a gather's indices to read elements or to check them */
		bool atoms = x->kind == I_LOAD && (ep_operand(e->ps, x->operand)->cls == VIEW_ELEM || needs_check(e, x));
		for (int i = 0; i < x->natoms && atoms; i++)
			e->used[x->atom_reg[i]] = true;
	}
	for (int r = 0; r < p->n; r++) {
		const Ins *x = &p->ins[r];
		unsigned d = 0;
		if (x->kind == I_IVAR)
			d = 1u << ep_pvar_index(e->ps, x->var);
		for (int i = 0; i < x->nargs && x->kind != I_LOAD; i++)
			d |= e->dep[x->a[i]];
		if (x->kind == I_LOAD) {
			const PlanOperand *op = ep_operand(e->ps, x->operand);
			for (int v = 0; v < e->ps->nvars && !op->prefetch; v++)
				for (int g = 0; g < op->view->ndig; g++)
					if (op->view->dig[g].var == e->ps->vars[v].var && op->cls != VIEW_ELEM &&
					    ep_present_in(op, &op->view->dig[g]))
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
				d &= ~(1u << ep_pvar_index(e->ps, p->scopes[x->inner].vars[v]));
		e->dep[r] = d;
	}
}

/* ---- loads ---- */

/* The block extent of plan axis x once the kernel has sliced it. */
static int64_t axis_extent(const PlanStmt *ps, const PlanAxis *x)
{
	return ep_axis_mode(ps, x) == AX_WHOLE && !ep_on_grid(ps, x) ? x->len : x->block;
}

/* Sorts the value axes (plan axes in ax[]) into variable order, digits most
 * significant first: perm[k] is the value axis that goes to position k. */
static void var_order(const Em *e, const PlanOperand *op, const int *ax, int n, int *perm)
{
	int key[VIEW_MAXAX + 4];
	for (int k = 0; k < n; k++)
		key[k] = ep_digit_key(e->ps, &op->view->dig[op->ax[ax[k]].ref]);
	ep_sort_by_key(perm, key, n);
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
	const char *t = ep_ref_name(ps, op);
	int ax[VIEW_MAXAX + 4], n = 0;
	Buf idx = {0};
	bool any = false, gathered = false;
	for (int a = 0; a < op->naxes; a++) {
		const PlanAxis *x = &op->ax[a];
		int mode = ep_axis_mode(ps, x);
		if (mode == AX_SQUEEZED)
			continue;
		buf_printf(&idx, "%s", n || any ? ", " : "");
		any = true;
		if (x->kind == VA_UNIT)
			buf_printf(&idx, "0");
		else if (x->kind == VA_INDEX)
			buf_printf(&idx, "%lld", (long long)x->start);
		else if (x->kind == VA_GATHER && e->gpu) { /* the gpu's row: read from the whole table */
			buf_printf(&idx, "jnp.clip(");
			ep_gather_pos(&idx, e, op, x, true);
			buf_printf(&idx, ", 0, %lld)", (long long)(x->size - 1)); /* inside the table; the check reports */
			gathered = true;
		} else if (x->kind != VA_ITER)
			ep_unsupported(e, "a widened gathered axis");
		else {
			ax[n++] = a;
			if (mode == AX_WHOLE && !ep_on_grid(ps, x))
				ep_slice_of(&idx, x, x->start);
			else if (mode == AX_EXACT && x->step < 0)
				buf_printf(&idx, "::-1");
			else
				buf_printf(&idx, ":");
		}
	}
	bool trivial = true;
	for (const char *s = buf_str(&idx); *s; s++)
		trivial &= *s == ':' || *s == ',' || *s == ' ';
	if (gathered) /* indexing the ref: a load of the row */
		ep_line(e, "v%d = %s[%s]", r, t, buf_str(&idx));
	else if (trivial)
		ep_line(e, "v%d = %s[...]", r, t);
	else
		ep_line(e, "v%d = %s[...][%s]", r, t, buf_str(&idx));
	buf_free(&idx);
	/* axes on the grid loaded whole: this step's part, by its program id */
	for (int k = 0; k < n; k++) {
		const PlanAxis *x = &op->ax[ax[k]];
		if (ep_axis_mode(ps, x) != AX_WHOLE || !ep_on_grid(ps, x))
			continue;
		ep_line(e, "v%d = jnp.take(v%d, %lld + %lld * (pl.program_id(%d) * %lld + jnp.arange(%lld)), axis=%d, mode=\"clip\")",
		     r, r, (long long)x->start, (long long)x->step, ep_axis_var(ps, x)->grid, (long long)x->block,
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
		ep_line(e, "v%d = jnp.transpose(v%d, (%s))", r, r, buf_str(&p));
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
			has |= vw->dig[d].var == ps->vars[v].var && ep_present_in(op, &vw->dig[d]);
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
			bool in = ep_present_in(op, g);
			int64_t x = in ? cur[k++] : ep_digit_extent(g, e->vb[v]);
			exp[ne] = in ? x : 1;
			full[ne++] = x;
			merged[v] *= x;
		}
		cut |= merged[v] > e->vb[v];
	}
	Buf s = {0};
	if (!same_shape(exp, ne, cur, n)) {
		ep_tuple(&s, exp, ne);
		ep_line(e, "v%d = v%d.reshape(%s)", r, r, buf_str(&s));
	}
	if (!same_shape(full, ne, exp, ne)) {
		s.len = 0;
		ep_tuple(&s, full, ne);
		ep_line(e, "v%d = jnp.broadcast_to(v%d, %s)", r, r, buf_str(&s));
	}
	if (!same_shape(merged, ps->nvars, full, ne)) {
		s.len = 0;
		ep_tuple(&s, merged, ps->nvars);
		ep_line(e, "v%d = v%d.reshape(%s)", r, r, buf_str(&s));
	}
	if (cut) {
		s.len = 0;
		for (int v = 0; v < ps->nvars; v++)
			if (merged[v] > e->vb[v])
				buf_printf(&s, "%s:%lld", v ? ", " : "", (long long)e->vb[v]);
			else
				buf_printf(&s, "%s:", v ? ", " : "");
		ep_line(e, "v%d = v%d[%s]", r, r, buf_str(&s));
	}
	buf_free(&s);
}

static void load(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	const PlanOperand *op = ep_operand(e->ps, x->operand);
	SymCtx c = {.e = e, .map = false, .pid = false, .load = x, .reg = r};
	if (op->prefetch) {
		Buf o = {0};
		SymCtx m = {.e = e, .map = true, .pid = true, .load = x, .reg = r};
		ep_sym_expr(&o, &m, op->acc->off);
		ep_line(e, "v%d = %s[%s]", r, ep_ref_name(e->ps, op), buf_str(&o));
		buf_free(&o);
		return;
	}
	if (op->naxes == 0) {
		Buf s = {0};
		ep_shape_of(&s, e, e->dep[r]);
		ep_line(e, "v%d = jnp.zeros(%s, %s)  # no elements", r, buf_str(&s), ep_jdt(x->dt));
		buf_free(&s);
		return;
	}
	if (op->cls == VIEW_ELEM) {
		Buf o = {0};
		ep_sym_expr(&o, &c, op->acc->off);
		ep_line(e, "# element gather: %s", op->reason);
		ep_line(e, "v%d = jnp.take(%s[...], %s, mode=\"clip\")", r, ep_ref_name(e->ps, op), buf_str(&o));
		buf_free(&o);
		return;
	}
	load_view(e, r, op);
}

/* ---- instructions ---- */

static const char *identity(int op, DType t)
{
	switch (op) {
	case R_SUM: return "0";
	case R_PROD: return "1";
	case R_ANY: return "False";
	case R_ALL: return "True";
	case R_MAX:
	case R_ARGMAX: return dt_is_float(t) ? "-jnp.inf" : t == ATHENE_BOOL ? "False" : NULL;
	case R_MIN:
	case R_ARGMIN: return dt_is_float(t) ? "jnp.inf" : t == ATHENE_BOOL ? "True" : NULL;
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
		buf_printf(b, "jnp.iinfo(%s).%s", ep_jdt(t), op == R_MAX || op == R_ARGMAX ? "min" : "max");
}

static void reduce(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	const Scope *sc = &e->prog->scopes[x->inner];
	bool arg = x->op == R_ARGMAX || x->op == R_ARGMIN, body_bool = e->prog->ins[x->a[0]].dt == ATHENE_BOOL;
	/* an error natively (and in the interpreter), which a module cannot raise */
	if (empty_reduce(e, x) && (arg || x->op == R_MAX || x->op == R_MIN))
		error_at(&e->in->diag, x->src->sp, "kernel %s: %s over an empty range (the Pallas emitter refuses it)",
		         e->kname, reduce_info[x->op].name);
	unsigned mask = 0;
	Buf axes = {0}, s = {0}, v = {0};
	int lo = PLAN_MAXVARS, hi = -1;
	for (int i = 0; i < sc->nvars; i++) {
		int vi = ep_pvar_index(e->ps, sc->vars[i]);
		mask |= 1u << vi;
		buf_printf(&axes, "%s%d", i ? ", " : "", vi);
		lo = vi < lo ? vi : lo;
		hi = vi > hi ? vi : hi;
	}
	if (empty_reduce(e, x)) { /* Mosaic has no zero-size vectors */
		ep_shape_of(&s, e, e->dep[r]);
		if (x->op == R_MEAN)
			buf_printf(&v, "jnp.nan");
		else
			identity_of(&v, x->op, x->opdt);
		ep_line(e, "v%d = jnp.full(%s, %s, %s)  # a reduction over no elements", r, buf_str(&s), buf_str(&v), ep_jdt(x->dt));
		buf_free(&axes);
		buf_free(&s);
		buf_free(&v);
		return;
	}
	ep_shape_of(&s, e, e->dep[x->a[0]] | mask);
	ep_reg(&v, e, x->a[0]);
	ep_line(e, "v%d = jnp.broadcast_to(%s, %s)", r, buf_str(&v), buf_str(&s));
	/* a partial last block of a reduction on the grid holds padding */
	for (int i = 0; i < sc->nvars; i++) {
		int vi = ep_pvar_index(e->ps, sc->vars[i]);
		const PlanVar *pv = &e->ps->vars[vi];
		if (pv->grid >= 0 ? pv->n % pv->block == 0 : e->vb[vi] <= pv->n)
			continue; /* (off the grid: the gpu's power-of-two block past the end) */
		Buf id = {0};
		identity_of(&id, x->op, x->opdt);
		ep_use_iota(e, vi);
		ep_line(e, "v%d = jnp.where(%s < %lld, v%d, %s)", r, ep_pyname(pv->var->name), (long long)pv->n, r, buf_str(&id));
		buf_free(&id);
	}
	if (x->op == R_ARGMAX || x->op == R_ARGMIN) {
		if (hi - lo + 1 != sc->nvars)
			error_at(&e->in->diag, x->src->sp, "kernel %s: the Pallas emitter cannot express an %s over variables "
			         "that are not adjacent", e->kname, reduce_info[x->op].name);
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
		ep_tuple(&t, sh, n);
		ep_tuple(&k, keep, e->ps->nvars);
		/* int32 positions: the TPU and Triton lowerings take no other */
		ep_line(e, "v%d = jax.lax.%s(v%d.reshape(%s), %d, jnp.int32).reshape(%s).astype(%s)", r,
		     x->op == R_ARGMAX ? "argmax" : "argmin", r, buf_str(&t), lo, buf_str(&k), ep_jdt(x->dt));
		buf_free(&t);
		buf_free(&k);
	} else if (x->op == R_ANY || x->op == R_ALL) /* Mosaic reduces floats, not bools; non-zero (NaN too) is true */
		ep_line(e, "v%d = jnp.%s(%sv%d%s.astype(jnp.float32), axis=(%s,), keepdims=True) > 0", r,
		     x->op == R_ANY ? "max" : "min", body_bool ? "" : "(", r, body_bool ? "" : " != 0)", buf_str(&axes));
	else if ((x->op == R_MAX || x->op == R_MIN) && !dt_is_float(x->opdt) && dt_bits(x->opdt) <= 16)
		ep_line(e, "v%d = %s(v%d.astype(jnp.float32), axis=(%s,), keepdims=True).astype(%s)  # exact in f32", r,
		     reduce_info[x->op].jnp, r, buf_str(&axes), ep_jdt(x->dt));
	else
		ep_line(e, "v%d = %s(v%d, axis=(%s,), keepdims=True).astype(%s)", r, reduce_info[x->op].jnp, r, buf_str(&axes),
		     ep_jdt(x->dt));
	buf_free(&axes);
	buf_free(&s);
	buf_free(&v);
}

/* nextafter in f64 on the bits, as base/scalar.c computes it, through
 * uint64 (as a bitcast, below): XLA's TPU compiler refuses jnp.nextafter's
 * f64 (Triton lowers jnp.nextafter, and not this). */
static void nextafter64(Buf *o, const char *x, const char *y)
{
	buf_printf(o, "jnp.where(jnp.isnan(%s) | jnp.isnan(%s), jnp.nan, jnp.where(%s == %s, %s, jnp.where(%s == 0, "
	           "jnp.where(%s < 0, -5e-324, 5e-324), jax.lax.bitcast_convert_type(jax.lax.bitcast_convert_type(%s, "
	           "jnp.uint64) + jnp.where((%s < %s) == (%s > 0), jnp.uint64(1), jnp.uint64(2**64 - 1)), jnp.float64))))", x, y, x, y, y, x, y, x, x, y, x);
}

/* -c of a float constant c, spelled as a constant (Pallas's Triton lowering
 * has no neg of a literal); NaN keeps the neg (its sign). */
static bool neg_const(Buf *b, const Ins *c)
{
	if (c->kind != I_CONST || !dt_is_float(c->dt) || isnan(c->c.f))
		return false;
	double f = -c->c.f;
	if (isinf(f))
		buf_printf(b, "%s(%sjnp.inf)", ep_jdt(c->dt), f < 0 ? "-" : "");
	else if (f == 0 && signbit(f))
		buf_printf(b, "%s(-0.0)", ep_jdt(c->dt));
	else
		buf_printf(b, "%s(%.17g)", ep_jdt(c->dt), f);
	return true;
}

/* The language's edges around JAX's functions (base/gamma.c has them; JAX
 * gives NaN at most): the incomplete gamma's bounds and infinities, zeta's
 * pole at x = 1, its poles at q = 0, -1, ..., and its infinities, polygamma's
 * poles for n >= 1. */
static void gamma_edges(Buf *o, int op, const char *a, const char *b, const char *fn)
{
	if (op == OP_IGAMMA || op == OP_IGAMMAC) {
		int lo = op == OP_IGAMMAC, hi = !lo;
		buf_printf(o, "jnp.where((%s < 0) | (%s < 0), jnp.nan, jnp.where(%s == 0, jnp.where(%s > 0, %d, jnp.nan), "
		           "jnp.where(%s == 0, %d, jnp.where(jnp.isinf(%s), jnp.where(jnp.isinf(%s), jnp.nan, %d), "
		           "jnp.where(jnp.isinf(%s), %d, %s)))))", b, a, a, b, hi, b, lo, a, b, lo, b, hi, fn);
	} else if (op == OP_ZETA) {
		buf_printf(o, "jnp.where(%s == 1, jnp.inf, jnp.where(%s < 1, jnp.nan, jnp.where((%s <= 0) & (%s == jnp.floor(%s)), "
		           "jnp.inf, jnp.where((%s == jnp.inf) | ((%s == jnp.inf) & (%s > 1)), jnp.nan, jnp.where(%s == jnp.inf, "
		           "jnp.where(%s == 1, 1, jnp.inf), %s)))))", a, a, b, b, b, b, a, b, a, b, fn);
	} else { /* polygamma */
		buf_printf(o, "jnp.where((%s >= 1) & (%s == jnp.floor(%s)) & (%s <= 0) & (%s == jnp.floor(%s)), "
		           "jnp.where(%s %% 2 == 1, jnp.inf, -jnp.inf), %s)", a, a, a, b, b, b, a, fn);
	}
}

static void instruction(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	if (ep_alias_of(e, r) != r)
		return;
	switch (x->kind) {
	case I_CONST: return;
	case I_IVAR:
		if (!e->narrow[r]) {
			ep_use_iota(e, ep_pvar_index(e->ps, x->var));
			ep_line(e, "v%d = %s.astype(%s)", r, ep_pyname(x->var->name), ep_jdt(x->dt));
		}
		return;
	case I_LOAD: load(e, r); return;
	case I_CAST: {
		Buf a = {0};
		ep_reg(&a, e, x->a[0]);
		DType from = e->prog->ins[x->a[0]].dt;
		if (dt_is_float(from) && dt_is_int(x->dt)) {
			/* the language's float -> int: toward zero, saturating, NaN 0 (XLA's convert
			 * gives INT_MIN past the range); the bounds are powers of two, exact in any float */
			int bits = e->narrow[r] ? 32 : dt_bits(x->dt);
			bool u = x->dt == ATHENE_U8;
			const char *v = buf_str(&a), *t = ep_rdt(e, r);
			char lo[32] = "0.0";
			if (!u)
				snprintf(lo, sizeof lo, "-2.0 ** %d", bits - 1);
			ep_line(e, "v%d = jnp.where(%s != %s, 0, jnp.where(%s >= 2.0 ** %d, jnp.iinfo(%s).max, jnp.where(%s <= %s, "
			     "jnp.iinfo(%s).min, %s.astype(%s)))).astype(%s)",
			     r, v, v, v, u ? bits : bits - 1, t, v, lo, t, v, t, t);
		} else
			ep_line(e, "v%d = %s.astype(%s)", r, buf_str(&a), ep_rdt(e, r));
		buf_free(&a);
		return;
	}
	case I_BITCAST: {
		Buf a = {0};
		ep_reg(&a, e, x->a[0]);
		/* 64 bits through uint64: XLA's TPU compiler miscompiles arithmetic on an int64
		 * bitcast straight from an f64 (its emulated halves disagree in sign) */
		if (x->dt == ATHENE_I64)
			ep_line(e, "v%d = jax.lax.bitcast_convert_type(%s, jnp.uint64).astype(jnp.int64)", r, buf_str(&a));
		else if (x->dt == ATHENE_F64)
			ep_line(e, "v%d = jax.lax.bitcast_convert_type((%s).astype(jnp.uint64), jnp.float64)", r, buf_str(&a));
		else
			ep_line(e, "v%d = jax.lax.bitcast_convert_type(%s, %s)", r, buf_str(&a), ep_jdt(x->dt));
		buf_free(&a);
		return;
	}
	case I_OP: {
		Buf a[3] = {{0}, {0}, {0}}, o = {0};
		for (int i = 0; i < x->nargs; i++) {
			/* int32 arguments of an op index_range does not keep in int32 (2147483647
			 * + b): in int64, or JAX would wrap in int32 */
			bool widen = !e->narrow[r] && x->dt == ATHENE_I64 && e->narrow[x->a[i]];
			buf_printf(&a[i], "%s", widen ? "(" : "");
			ep_reg(&a[i], e, x->a[i]);
			buf_printf(&a[i], "%s", widen ? ").astype(jnp.int64)" : "");
		}
		const char *p = buf_str(&a[0]), *q = buf_str(&a[1]);
		/* integer // and % by zero are 0 (jnp's // gives -1 or -2 there); a
		 * float zero result has NumPy's sign: a // b that of a / b, a % b
		 * that of b (jnp's differ) */
		const Ins *d = &e->prog->ins[x->a[1]];
		bool nonzero = d->kind == I_CONST && !dt_is_float(d->dt) && d->c.i != 0;
		/* float // and % of f16 and bf16 in f32, rounded once, as NumPy's (jnp's are
		 * several ops, each rounded to the narrow dtype: 251 // -0.1018 in f16 was -2468) */
		bool narrow = (x->op == OP_FLOORDIV || x->op == OP_MOD) && (x->opdt == ATHENE_F16 || x->opdt == ATHENE_BF16);
		if (narrow) {
			ep_line(e, "v%dp = (%s).astype(jnp.float32)", r, p);
			ep_line(e, "v%dq = (%s).astype(jnp.float32)", r, q);
			for (int i = 0; i < 2; i++) {
				buf_free(&a[i]);
				buf_printf(&a[i], "v%d%c", r, "pq"[i]);
			}
			p = buf_str(&a[0]);
			q = buf_str(&a[1]);
		}
		if (x->op == OP_SHL || x->op == OP_SHR)
			ep_shift(&o, x->op, x->opdt, p, q);
		else if (x->op == OP_NEG && e->gpu && neg_const(&o, &e->prog->ins[x->a[0]]))
			;
		else if (x->op == OP_NEXTAFTER && x->opdt == ATHENE_F64 && !e->gpu)
			nextafter64(&o, p, q);
		else if ((x->op == OP_FREXP_MANTISSA || x->op == OP_FREXP_EXPONENT) && x->opdt == ATHENE_F64 && !e->gpu) {
			buf_printf(&o, "_frexp64(%s)[%d]", p, x->op == OP_FREXP_EXPONENT); /* helper_frexp64, emit.c */
			*e->needs |= NEED_FREXP64;
		} else if (x->op == OP_IGAMMA || x->op == OP_IGAMMAC || x->op == OP_ZETA || x->op == OP_POLYGAMMA) {
			Buf f = {0};
			ep_spell(&f, op_info[x->op].jnp, a, x->nargs);
			gamma_edges(&o, x->op, p, q, buf_str(&f));
			buf_free(&f);
		}
		else if ((x->op == OP_FLOORDIV || x->op == OP_MOD) && !dt_is_float(x->opdt) && !nonzero)
			buf_printf(&o, "jnp.where(%s == 0, 0, %s %s jnp.where(%s == 0, 1, %s))", q, p,
			           x->op == OP_MOD ? "%" : "//", q, q);
		else if ((x->op == OP_FLOORDIV || x->op == OP_MOD) && !dt_is_float(x->opdt))
			ep_spell(&o, op_info[x->op].jnp, a, x->nargs);
		else if (x->op == OP_CLAMP && dt_is_float(x->opdt)) {
			/* min(max(x, lo), hi) with the language's min and max (jnp.clip gives +0.0
			 * for clamp(1.0, -8.0, -0.0)) */
			const char *hi = buf_str(&a[2]);
			ep_line(e, "v%d = jnp.where(%s > %s, %s, jnp.where(%s != %s, %s, %s))", r, p, q, p, p, p, p, q);
			buf_printf(&o, "jnp.where(v%d < %s, v%d, jnp.where(v%d != v%d, v%d, %s))", r, hi, r, r, r, r, hi);
		} else if (x->opdt == ATHENE_BOOL && op_info[x->op].kind == K_SAME)
			buf_printf(&o, "%s", p); /* abs, sign, relu, floor, ... of a bool: itself (jnp refuses some) */
		else if (x->op == OP_FLOORDIV)
			buf_printf(&o, "jnp.where(%s // %s == 0, %s / %s * 0, %s // %s)", p, q, p, q, p, q);
		else if (x->op == OP_MOD)
			buf_printf(&o, "jnp.where(%s %% %s == 0, jnp.where(%s < 0, -jnp.abs(%s %% %s), jnp.abs(%s %% %s)), %s %% %s)",
			           p, q, q, p, q, p, q, p, q);
		else
			ep_spell(&o, op_info[x->op].jnp, a, x->nargs);
		if (x->op >= OP_I0 && x->op <= OP_LEGENDRE_P)
			*e->needs |= NEED_SPECIAL;
		if (x->op == OP_AIRY_AI)
			*e->needs |= NEED_AIRY;
		if (narrow)
			ep_line(e, "v%d = (%s).astype(%s)", r, buf_str(&o), ep_jdt(x->opdt));
		else
			ep_line(e, "v%d = %s", r, buf_str(&o));
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
	for (int v = 0; v < e->ps->nlhs; v++) /* a scatter's point: s={3} */
		buf_printf(&e->msgs, "%s%s%s{%d}", v ? ", " : "", e->ps->stmt->at ? e->ps->vars[v].var->name : "",
		           e->ps->stmt->at ? "=" : "", 3 + v);
	buf_printf(&e->msgs, "]\",\n");
}

/* The gpu's check: the grid's steps run in parallel, so each writes, for
 * every output element of its block, how many indices were bad (over the
 * reductions) and the largest of them; the wrapper keeps the first
 * element's (_first_bad). Positions past a variable's end (the power-of-two
 * block) are not counted. A statement in XLA (either target) computes the
 * same arrays over the whole space, as locals its function returns. */
static void record_gpu(Em *e, const char *value)
{
	const PlanStmt *ps = e->ps;
	Buf s = {0}, red = {0}, lhs = {0}, mask = {0};
	ep_shape_of(&s, e, (1u << ps->nvars) - 1);
	for (int v = 0; v < ps->nvars; v++) {
		if (v >= ps->nlhs)
			buf_printf(&red, "%s%d", red.len ? ", " : "", v);
		if (ps->vars[v].grid < 0 && e->vb[v] > ps->vars[v].n) {
			ep_use_iota(e, v);
			buf_printf(&mask, " & (%s < %lld)", ep_pyname(ps->vars[v].var->name), (long long)ps->vars[v].n);
		}
	}
	int64_t sh[PLAN_MAXVARS];
	int n = 0;
	for (int v = 0; v < ps->nlhs; v++) /* the block of the output's elements, squeezed where the grid is */
		if (ps->vars[v].grid < 0 || ps->vars[v].block != 1)
			sh[n++] = e->vb[v];
	if (!ps->nlhs)
		sh[n++] = 1;
	ep_tuple(&lhs, sh, n);
	int c = e->stmt_checks;
	const char *to = e->xla ? "" : "_ref[...]";
	ep_line(e, "bad = jnp.broadcast_to(bad%s, %s)", buf_str(&mask), buf_str(&s));
	ep_line(e, "value = jnp.clip(jnp.broadcast_to(%s, %s), -2**31, 2**31 - 1).astype(jnp.int32)", value, buf_str(&s));
	if (red.len) {
		ep_line(e, "err%d_n%s = jnp.sum(bad.astype(jnp.int32), axis=(%s,)).reshape(%s)", c, to, buf_str(&red), buf_str(&lhs));
		ep_line(e, "err%d_v%s = jnp.max(jnp.where(bad, value, jnp.iinfo(jnp.int32).min), axis=(%s,)).reshape(%s)", c,
		     to, buf_str(&red), buf_str(&lhs));
	} else {
		ep_line(e, "err%d_n%s = bad.astype(jnp.int32).reshape(%s)", c, to, buf_str(&lhs));
		ep_line(e, "err%d_v%s = value.reshape(%s)", c, to, buf_str(&lhs));
	}
	*e->needs |= NEED_GPU_RECORD;
	e->nchecks++;
	e->stmt_checks++;
	buf_free(&s);
	buf_free(&red);
	buf_free(&lhs);
	buf_free(&mask);
}

static unsigned out_mask(const Em *e)
{
	return (1u << e->ps->nlhs) - 1;
}

/* A scatter's check, in XLA over whole arrays: for every point, whether its
 * element is out of range and the index; the wrapper keeps the first point's
 * (_first_bad) and the function writes nothing where any point is bad. */
static void record_xla(Em *e, const char *cond, const char *value)
{
	Buf s = {0};
	ep_shape_of(&s, e, out_mask(e));
	int c = e->stmt_checks;
	ep_line(e, "err%d_n = jnp.broadcast_to(%s, %s).astype(jnp.int32)", c, cond, buf_str(&s));
	ep_line(e, "err%d_v = jnp.clip(jnp.broadcast_to(%s, %s), -2**31, 2**31 - 1).astype(jnp.int32)", c, value, buf_str(&s));
	*e->needs |= NEED_GPU_RECORD;
	e->nchecks++;
	e->stmt_checks++;
	buf_free(&s);
}

/* Emits: bad = cond (under the load's guard), recorded as check c. */
static void record(Em *e, const Ins *x, const char *cond, const char *value, unsigned dep)
{
	Buf s = {0}, base = {0};
	if (e->xla && e->ps->stmt->at && x == &e->prog->ins[e->prog->store]) {
		record_xla(e, cond, value);
		return;
	}
	if (e->xla && tensor_layout(e->in, ep_operand(e->ps, x->operand)->t)->storage == 0)
		ep_unsupported(e, "a checked gather from an empty tensor in a statement that runs in XLA"); /* jnp.take has no empty axis */
	if (x->guard >= 0) {
		Buf g = {0};
		ep_reg(&g, e, x->guard);
		ep_line(e, "bad = (%s) & %s", cond, buf_str(&g));
		buf_free(&g);
	} else
		ep_line(e, "bad = %s", cond);
	unsigned all = (1u << e->ps->nvars) - 1;
	if (e->gpu || e->xla) {
		record_gpu(e, value);
		buf_free(&s);
		buf_free(&base);
		return;
	}
	block_base(&base, e);
	if (dep) {
		ep_shape_of(&s, e, all);
		ep_line(e, "_record(err_ref, jnp.broadcast_to(bad, %s), %d, jnp.broadcast_to(%s, %s), %s)", buf_str(&s),
		     e->nchecks, value, buf_str(&s), buf_str(&base));
	} else
		ep_line(e, "_record(err_ref, bad, %d, %s, %s)", e->nchecks, value, buf_str(&base));
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
	const Sym *off = ep_operand(e->ps, x->operand)->acc->off;
	if (n->kind == N_FLAT)
		return off->lo < 0 || off->hi >= tensor_layout(e->in, n->t)->storage;
	for (int d = 0; d < n->nargs; d++)
		if (checked_atom(e, x, d) >= 0)
			return true;
	return false;
}

/* Why the Triton lowering cannot run the statement (a reduction it has
 * none of), or NULL: then it runs in XLA. */
static const char *ep_gpu_reduction(const Em *e)
{
	for (int r = 0; r < e->prog->n; r++)
		if (e->used[r] && e->prog->ins[r].kind == I_REDUCE && e->prog->ins[r].op == R_PROD)
			return "a product reduction: Pallas's Triton lowering has no reduce_prod";
	return NULL;
}

/* A function Pallas's lowerings (TPU, Triton) have no rule for, or NULL. */
static const char *no_lowering(const Em *e, const char *which)
{
	for (int r = 0; r < e->prog->n; r++) {
		const Ins *x = &e->prog->ins[r];
		if (!e->used[r] || x->kind != I_OP)
			continue;
		char *s = arena_alloc(e->ar, 128);
		if (x->op >= OP_I0 && x->op <= OP_LEGENDRE_P) {
			snprintf(s, 128, "Pallas's %s lowering has no %s", which, op_info[x->op].name);
			return s;
		}
		switch (x->op) {
		case OP_LGAMMA:
		case OP_DIGAMMA:
		case OP_IGAMMA:
		case OP_IGAMMAC:
		case OP_POLYGAMMA:
		case OP_ZETA:
			snprintf(s, 128, "Pallas's %s lowering has no %s", which, op_info[x->op].name);
			return s;
		case OP_ERFCX:
		case OP_NDTRI: /* both lowerings: the kernel's trace refuses them */
			snprintf(s, 128, "jax.scipy.special.%s's coefficient tables are constants a Pallas kernel cannot capture",
			         op_info[x->op].name);
			return s;
		}
	}
	return NULL;
}

/* Why the gpu's kernel cannot run the statement (Triton), or NULL. */
static const char *gpu_cannot(const Em *e)
{
	if (e->ps->stmt->at)
		return "a scatter: XLA updates the output in place (.at[...].set/.add)";
	const char *why = ep_gpu_reduction(e);
	if (why || (why = no_lowering(e, "Triton")))
		return why;
	for (int r = 0; r < e->prog->n; r++) {
		const Ins *x = &e->prog->ins[r];
		if (e->used[r] && x->kind == I_OP && (x->op == OP_ERF || x->op == OP_ROUND)) {
			char *s = arena_alloc(e->ar, 64);
			snprintf(s, 64, "Pallas's Triton lowering has no %s", op_info[x->op].name);
			return s;
		}
	}
	return NULL;
}

static void check_load(Em *e, int r)
{
	const Ins *x = &e->prog->ins[r];
	const Node *n = x->src;
	const Layout *l = tensor_layout(e->in, n->t);
	SymCtx c = {.e = e, .map = false, .pid = false, .load = x, .reg = r};
	const PlanOperand *op = ep_operand(e->ps, x->operand);
	if (n->kind == N_FLAT) {
		if (op->acc->off->lo >= 0 && op->acc->off->hi < l->storage)
			return;
		Buf o = {0}, cond = {0}, val = {0};
		unsigned dep = e->dep[r];
		if (op->cls == VIEW_ROWGATHER) {
			/* one row per step: its gathered positions, scalars of the step */
			SymCtx m = {.e = e, .map = true, .pid = true, .load = x, .reg = r};
			ep_sym_expr(&o, &m, op->acc->off);
			for (int a = 0; a < op->naxes; a++) {
				const PlanAxis *g = &op->ax[a];
				if (g->kind != VA_GATHER)
					continue;
				Buf pos = {0};
				ep_gather_pos(&pos, e, op, g, true);
				buf_printf(&cond, "%s(%s < 0) | (%s >= %lld)", cond.len ? " | " : "", buf_str(&pos), buf_str(&pos),
				           (long long)g->size);
				buf_free(&pos);
			}
			dep = 0;
		} else {
			ep_sym_expr(&o, &c, op->acc->off);
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
		ep_reg(&v, e, x->atom_reg[a]);
		buf_printf(&cond, "(%s < 0) | (%s >= %lld)", buf_str(&v), buf_str(&v), (long long)l->shape[d]);
		buf_printf(&e->msgs, "    \"kernel %s: index {2} out of range for dim %d of '%s' (size %lld", e->kname, d,
		           n->t->name, (long long)l->shape[d]);
		const Node *wn = n->args[d];
		if (w->kind == I_OP && w->op == OP_WRAP && (wn->args[1]->kind == N_INT || wn->args[1]->kind == N_SIZE)) {
			int64_t m = wn->args[1]->kind == N_INT ? wn->args[1]->ival : e->in->size[wn->args[1]->sym];
			ep_reg(&raw, e, w->a[0]);
			buf_printf(&e->msgs, "; wrap() accepts [%lld, %lld))", (long long)-m, (long long)m);
		} else {
			ep_reg(&raw, e, x->atom_reg[a]);
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


/* An element scatter: the whole storage, written element by element. */
static void store_scatter(Em *e, const PlanOperand *op, const char *val)
{
	Buf o = {0}, s = {0};
	SymCtx c = {.e = e, .map = false, .pid = false, .load = NULL, .reg = e->prog->n};
	ep_sym_expr(&o, &c, op->acc->off);
	ep_shape_of(&s, e, out_mask(e));
	ep_line(e, "# element scatter: %s", op->reason);
	ep_line(e, "%s[...] = jnp.zeros_like(%s).at[jnp.broadcast_to(%s, %s).reshape(-1)].set(jnp.broadcast_to(%s, %s).reshape(-1))",
	     ep_ref_name(e->ps, op), ep_ref_name(e->ps, op), buf_str(&o), buf_str(&s), val, buf_str(&s));
	buf_free(&o);
	buf_free(&s);
}

/* The grid reduction the store accumulates, or NULL. */
static const Ins *grid_reduction(Em *e)
{
	const Ins *x = &e->prog->ins[ep_alias_of(e, e->prog->result)];
	bool grid = false;
	for (int v = e->ps->nlhs; v < e->ps->nvars; v++)
		grid |= e->ps->vars[v].grid >= 0;
	if (!grid)
		return NULL;
	if (x->kind != I_REDUCE || x->dt != e->prog->out || x->op == R_MEAN || x->op == R_ARGMAX || x->op == R_ARGMIN)
		ep_unsupported(e, "a reduction on the grid whose result is not stored as it is");
	return x;
}

/* In XLA the statement returns the output's storage; a scatter updates the
 * storage it is given (.at[...].set, or .add for +=), then returns the
 * checks' arrays. Where several points name one element, XLA keeps one of
 * their values (set) or adds them in an order of its own (add). */
static void store_xla(Em *e, const char *val)
{
	const PlanStmt *ps = e->ps;
	const PlanOperand *op = ep_operand(ps, 0);
	const char *dt = ep_jdt(ps->stmt->t->dt);
	Buf s = {0}, o = {0};
	const char *lhs = e->stmt_checks ? "out =" : "return";
	ep_shape_of(&s, e, out_mask(e));
	if (ps->stmt->at) {
		SymCtx c = {.e = e, .map = false, .pid = false, .load = &e->prog->ins[e->prog->store], .reg = e->prog->store};
		ep_sym_expr(&o, &c, op->acc->off);
		ep_line(e, "out = %s.at[jnp.broadcast_to(%s, %s).reshape(-1)].%s(jnp.broadcast_to(%s, %s).reshape(-1).astype(%s), mode=\"drop\")",
		        ep_ref_name(ps, op), buf_str(&o), buf_str(&s), ps->stmt->accum ? "add" : "set", val, buf_str(&s), dt);
		Buf errs = {0};
		for (int c = 0; c < e->stmt_checks; c++)
			buf_printf(&errs, ", err%d_n, err%d_v", c, c);
		ep_line(e, "return out%s", buf_str(&errs));
		buf_free(&errs);
		buf_free(&s);
		buf_free(&o);
		return;
	}
	if (ep_rowmajor(e, op->acc->off))
		ep_line(e, "%s jnp.broadcast_to(%s, %s).reshape(-1).astype(%s)", lhs, val, buf_str(&s), dt);
	else {
		SymCtx c = {.e = e, .map = false, .pid = false, .load = NULL, .reg = e->prog->n};
		ep_sym_expr(&o, &c, op->acc->off);
		ep_line(e, "%s jnp.zeros((%lld,), %s).at[jnp.broadcast_to(%s, %s).reshape(-1)].set(jnp.broadcast_to(%s, %s).reshape(-1).astype(%s))",
		     lhs, (long long)tensor_layout(e->in, ps->stmt->t)->storage, dt, buf_str(&o), buf_str(&s), val, buf_str(&s), dt);
	}
	if (e->stmt_checks) { /* and the checks' arrays, as a scatter returns them */
		Buf errs = {0};
		for (int c = 0; c < e->stmt_checks; c++)
			buf_printf(&errs, ", err%d_n, err%d_v", c, c);
		ep_line(e, "return out%s", buf_str(&errs));
		buf_free(&errs);
	}
	buf_free(&s);
	buf_free(&o);
}

static void store(Em *e)
{
	const PlanStmt *ps = e->ps;
	const PlanOperand *op = ep_operand(ps, 0);
	Buf val = {0}, s = {0};
	ep_reg(&val, e, e->prog->result);
	if (e->xla) {
		store_xla(e, buf_str(&val));
		buf_free(&val);
		return;
	}
	if (op->cls == VIEW_ELEM) {
		store_scatter(e, op, buf_str(&val));
		buf_free(&val);
		return;
	}
	int ax[VIEW_MAXAX + 4], n = 0, perm[VIEW_MAXAX + 4];
	for (int a = 0; a < op->naxes; a++)
		if (ep_axis_mode(ps, &op->ax[a]) != AX_SQUEEZED && op->ax[a].kind == VA_ITER)
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
			if (g->var != ps->vars[v].var || g->n <= 1 || (g->axis >= 0 && !ep_present_in(op, g)))
				continue; /* a digit fixed by the grid */
			if (!ep_present_in(op, g))
				ep_unsupported(e, "a store that broadcasts");
			dig[nd] = axis_extent(ps, &op->ax[ax[perm[k++]]]);
			merged[v] = ep_mul(e, merged[v], dig[nd++]);
		}
		if (merged[v] < out[v])
			ep_unsupported(e, "a store whose digits do not cover its variable");
		pad |= merged[v] > out[v];
	}
	int64_t cur[VIEW_MAXAX + PLAN_MAXVARS];
	int ncur = ps->nvars;
	for (int v = 0; v < ps->nvars; v++)
		cur[v] = v < ps->nlhs ? e->vb[v] : 1;
	ep_shape_of(&s, e, out_mask(e));
	if (e->dep[ep_alias_of(e, e->prog->result)] == out_mask(e) && e->prog->ins[ep_alias_of(e, e->prog->result)].kind != I_REDUCE)
		ep_line(e, "out = %s", buf_str(&val));
	else
		ep_line(e, "out = jnp.broadcast_to(%s, %s)", buf_str(&val), buf_str(&s));
	if (pad) {
		for (int v = 0; v < ps->nlhs; v++)
			cur[v] = merged[v];
		s.len = 0;
		for (int v = 0; v < ps->nlhs; v++)
			buf_printf(&s, "(0, %lld), ", (long long)(merged[v] - out[v]));
		for (int v = ps->nlhs; v < ps->nvars; v++)
			buf_printf(&s, "(0, 0), ");
		ep_line(e, "out = jnp.pad(out, (%s))", buf_str(&s));
	}
	s.len = 0;
	ep_tuple(&s, dig, nd);
	bool transposed = !identity_perm(perm, n);
	if (transposed && !same_shape(dig, nd, cur, ncur)) {
		ep_line(e, "out = out.reshape(%s)", buf_str(&s));
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
		ep_line(e, "out = jnp.transpose(out, (%s))", buf_str(&s));
		ncur = nd;
	}
	/* unit axes back in, reversed axes flipped, whole axes sliced */
	int64_t blk[VIEW_MAXAX + 4];
	int nb = 0;
	Buf flip = {0}, idx = {0};
	bool sliced = false;
	for (int a = 0; a < op->naxes; a++) {
		const PlanAxis *x = &op->ax[a];
		int mode = ep_axis_mode(ps, x);
		if (mode == AX_SQUEEZED)
			continue;
		buf_printf(&idx, "%s", nb ? ", " : "");
		if (x->kind != VA_ITER) {
			if (x->kind != VA_UNIT)
				ep_unsupported(e, "a store through a static index that is not squeezed");
			blk[nb++] = 1;
			buf_printf(&idx, ":");
			continue;
		}
		if (x->step < 0)
			buf_printf(&flip, "%d, ", nb);
		if (mode == AX_WHOLE) {
			if (ep_on_grid(ps, x))
				ep_unsupported(e, "a store whose blocks do not start on a multiple of their size");
			PlanAxis up = *x; /* the value is flipped: ascending positions */
			up.step = x->step < 0 ? -x->step : x->step;
			ep_slice_of(&idx, &up, ep_lowest(x));
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
		ep_tuple(&s, blk, nb);
		ep_line(e, "out = out.reshape(%s)", buf_str(&s));
	}
	if (flip.len)
		ep_line(e, "out = jnp.flip(out, axis=(%s))", buf_str(&flip));
	const char *y = ep_ref_name(ps, op);
	const Ins *acc = grid_reduction(e);
	if (acc) {
		Buf id = {0}, first = {0};
		identity_of(&id, acc->op, acc->dt);
		for (int v = ps->nlhs, k2 = 0; v < ps->nvars; v++)
			if (ps->vars[v].grid >= 0)
				buf_printf(&first, "%s(pl.program_id(%d) == 0)", k2++ ? " & " : "", ps->vars[v].grid);
		ep_line(e, "@pl.when(%s)", buf_str(&first));
		ep_line(e, "def _start():");
		ep_line(e, "    %s[...] = jnp.full(%s.shape, %s, %s)", y, y, buf_str(&id), ep_jdt(acc->dt));
		static const char *const comb[R_NONE] = {
			[R_SUM] = "%s[...] + out", [R_PROD] = "%s[...] * out", [R_MAX] = "jnp.maximum(%s[...], out)",
			[R_MIN] = "jnp.minimum(%s[...], out)", [R_ANY] = "%s[...] | out", [R_ALL] = "%s[...] & out"};
		Buf c = {0};
		buf_printf(&c, comb[acc->op], y);
		ep_line(e, "%s[...] = %s", y, buf_str(&c));
		buf_free(&c);
		buf_free(&id);
		buf_free(&first);
	} else if (sliced)
		ep_line(e, "%s[%s] = out", y, buf_str(&idx));
	else
		ep_line(e, "%s[...] = out", y);
	buf_free(&flip);
	buf_free(&idx);
	buf_free(&val);
	buf_free(&s);
}

/* Why Mosaic cannot run the statement's body (its vector types, a
 * scatter), or NULL: then it runs in XLA. */
static const char *tpu_cannot(const Em *e, const bool *used, const bool *narrow)
{
	const Prog *p = e->prog;
	DType st = e->ps->stmt->t->dt;
	if (e->ps->stmt->at)
		return "a scatter: XLA updates the output in place (.at[...].set/.add)";
	if (ep_operand(e->ps, 0)->cls == VIEW_ELEM)
		return "Mosaic has no scatter (the store is no view)";
	if (st == ATHENE_I64 || st == ATHENE_F64)
		return "the TPU has no 64-bit vectors; XLA emulates f64 and i64";
	for (int r = 0; r < p->n; r++)
		if (used[r] && p->ins[r].kind == I_REDUCE && p->ins[r].op == R_PROD)
			return "a product reduction: Pallas's TPU lowering has no reduce_prod";
	const char *why = no_lowering(e, "TPU");
	if (why)
		return why;
	for (int r = 0; r < p->n; r++)
		if (used[r] && p->ins[r].kind == I_OP && p->ins[r].op == OP_ERFINV)
			return "Mosaic's compiler fails on some erf_inv blocks"; /* libtpu: "Check failed: ... bitwidth_ <= 32" on a (16,) block */
	for (int r = 0; r < p->n; r++) {
		if (used[r] && p->ins[r].kind == I_OP && p->ins[r].op == OP_EXPM1)
			return "Pallas's TPU lowering has no expm1";
		if (used[r] && p->ins[r].kind == I_OP && p->ins[r].op == OP_AIRY_AI)
			return "Mosaic's compiler fails on the airy_ai helper's loops"; /* the same check, on a (16,) block */
	}
	for (int r = 0; r < p->n; r++) {
		const Ins *x = &p->ins[r];
		if (!used[r])
			continue;
		const PlanOperand *op = x->kind == I_LOAD ? ep_operand(e->ps, x->operand) : NULL;
		DType t = op ? op->t->dt : x->dt;
		if (op && op->prefetch)
			continue;
		if ((t == ATHENE_I64 || t == ATHENE_F64) && (op || !narrow[r]))
			return "the TPU has no 64-bit vectors; XLA emulates f64 and i64";
		if (op && t == ATHENE_F16)
			return "Mosaic loads no f16 vectors";
		if (x->dt == ATHENE_I8)
			return "Mosaic has no i8 vectors";
		bool vector = false;
		for (int d = 0; op && d < op->view->ndig; d++)
			vector |= ep_present_in(op, &op->view->dig[d]);
		if (op && !vector && t != ATHENE_BOOL && dt_bits(t) < 32)
			return "Mosaic reads no scalars of less than 32 bits";
	}
	return NULL;
}

/* The kernel's refs in Pallas's order: prefetched, loads, the store, the record. */
static void kernel_params(Buf *b, Em *e)
{
	const PlanStmt *ps = e->ps;
	int k = 0;
	if (e->xla && ps->stmt->at) /* the storage a scatter updates */
		buf_printf(b, "%s", ep_ref_name(ps, ep_operand(ps, 0))), k++;
	for (int i = 0; i < ps->ops.n; i++)
		if (ep_operand(ps, i)->prefetch)
			buf_printf(b, "%s%s", k++ ? ", " : "", ep_ref_name(ps, ep_operand(ps, i)));
	for (int i = 1; i < ps->ops.n; i++)
		if (!ep_operand(ps, i)->prefetch && ep_operand(ps, i)->naxes)
			buf_printf(b, "%s%s", k++ ? ", " : "", ep_ref_name(ps, ep_operand(ps, i)));
	if (!e->xla) /* in XLA the function returns the output */
		buf_printf(b, "%s%s", k++ ? ", " : "", ep_ref_name(ps, ep_operand(ps, 0)));
	for (int c = 0; c < e->stmt_checks && e->gpu && !e->xla; c++)
		buf_printf(b, ", err%d_n_ref, err%d_v_ref", c, c);
	if (e->stmt_checks && !e->gpu && !e->xla) /* in XLA it returns its checks' arrays */
		buf_printf(b, ", err_ref");
}

void ep_emit_kernel_fn(Em *e, Buf *out)
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
		narrow[r] = x->kind == I_LOAD && ep_operand(e->ps, x->operand)->prefetch;
	}
	if (p->store >= 0) /* a scatter's element: its atoms and checks */
		roots[p->store] = true;
	e->used = used;
	e->narrow = narrow;
	e->dep = dep;
	e->iota_done = iota;
	analyse_regs(e, roots);
	/* an operand that no used instruction loads is not passed (a gather
	 * whose index is read only by the wrapper) */
	for (int j = 1; j < e->ps->ops.n; j++) {
		bool read = ep_operand(e->ps, j)->prefetch;
		for (int r = 0; r < p->n && !read; r++)
			read = used[r] && p->ins[r].kind == I_LOAD && p->ins[r].operand == j;
		if (!read)
			ep_drop_operand(j);
	}
	for (int r = 0; r < p->n; r++)
		narrow[r] |= p->ins[r].kind == I_LOAD && ep_operand(e->ps, p->ins[r].operand)->prefetch;
	if (!e->xla && (e->xla_why = e->gpu ? gpu_cannot(e) : tpu_cannot(e, used, narrow)))
		return;
	Buf body = {0}, *saved = e->b;
	e->b = &body;
	e->stmt_checks = 0;
	for (int r = 0; r < p->n; r++) {
		if (!used[r])
			continue;
		if (r != p->store) /* a scatter's element is no read */
			instruction(e, r);
		if (p->ins[r].kind == I_LOAD && p->ins[r].natoms)
			check_load(e, r);
	}
	store(e);
	e->b = saved;
	Buf name = {0}, params = {0}, src = {0};
	kernel_params(&params, e);
	ast_print(&src, e->ps->stmt->rhs);
	buf_printf(out, "\ndef %s(%s):\n", ep_fn_name(e, &name), buf_str(&params));
	Buf lhs = {0};
	if (e->ps->stmt->at) {
		ast_print_target(&lhs, e->ps->stmt);
	} else {
		buf_printf(&lhs, "%s[", e->ps->stmt->t->name);
		for (int d = 0; d < e->ps->stmt->nlhs; d++)
			buf_printf(&lhs, "%s%s", d ? ", " : "", e->ps->stmt->lhs[d]->name);
		buf_putc(&lhs, ']');
	}
	buf_printf(out, "    # %s %s %s\n", buf_str(&lhs), e->ps->stmt->accum ? "+=" : "=", buf_str(&src));
	buf_free(&lhs);
	if (e->stmt_checks && !e->gpu && !e->xla) {
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
