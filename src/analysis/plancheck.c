/* Plan checker: proves, with bounded work whatever the sizes, that a plan
 * moves what its kernel needs: every block inside its array (at the corners
 * of the grid: index maps are affine in each grid index), every output
 * element written exactly once (each output variable's blocks partition its
 * range; small outputs enumerated element by element), and on small domains
 * every point's element inside the block its grid step moves; fused lets
 * never moved, materialised ones planned before their readers. Tiled
 * targets also get their block rule checked. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"


/* Element offset of the block on axis x at grid index g of its variable. */
static int64_t block_start(const PlanAxis *x, const PlanStmt *ps, const int64_t *gidx)
{
	if (x->widened || x->kind == VA_UNIT)
		return 0;
	if (x->kind != VA_ITER)
		return x->start;
	const PlanVar *v = x->var >= 0 ? &ps->vars[x->var] : NULL;
	int64_t g = v && v->grid >= 0 ? gidx[v->grid] : 0;
	int64_t b = x->block ? x->block : 1;
	return x->step > 0 ? x->start + g * b : x->start - g * b - b + 1;
}

static int plan_error(Buf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int plan_error(Buf *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(err, fmt, ap);
	va_end(ap);
	buf_putc(err, '\n');
	return -1;
}

/* A masked axis: the positions of the values of its variable that the
 * block at gidx holds and the mask keeps (none: an all-padding block) must
 * lie in the axis. True when they do not. */
static bool masked_bounds(const PlanStmt *ps, const PlanAxis *ax, const int64_t *gidx)
{
	const PlanVar *v = &ps->vars[ax->var];
	int64_t lo = 0, hi = v->n - 1;
	if (v->grid >= 0) {
		lo = gidx[v->grid] * v->block; /* < n: the grid index is a block's */
		hi = v->n - lo > v->block ? lo + v->block - 1 : v->n - 1;
	}
	lo = lo > ax->mlo ? lo : ax->mlo;
	hi = hi < ax->mhi ? hi : ax->mhi;
	if (lo > hi)
		return false;
	int64_t a = ax->start + ax->step * lo, b = ax->start + ax->step * hi;
	return a < 0 || a >= ax->size || b < 0 || b >= ax->size;
}

/* Blocks of every operand at grid point gidx stay inside their arrays (a
 * partial last block may run past the end of its slice: it is masked). */
static int check_bounds(const PlanStmt *ps, const int64_t *gidx, Buf *err)
{
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		for (int x = 0; x < op->naxes && !op->prefetch; x++) {
			const PlanAxis *ax = &op->ax[x];
			int64_t s = block_start(ax, ps, gidx), b = ax->block ? ax->block : 1;
			if (ax->kind == VA_GATHER)
				continue; /* checked at run time against the gathered dim */
			if (ax->masked && !ax->widened && ax->var >= 0) {
				if (masked_bounds(ps, ax, gidx))
					return plan_error(err, "%s: the unmasked part of a block of axis %d (size %lld) leaves the array",
					                  op->t->name, x, (long long)ax->size);
				continue;
			}
			/* a partial last block is masked to the slice [lo, lo + len) */
			int64_t lo = ax->step > 0 ? ax->start : ax->start - ax->len + 1, e;
			if (!i64_add(s, b, &e))
				e = INT64_MAX;
			bool grid = ax->var >= 0 && ps->vars[ax->var].grid >= 0;
			if (grid && ax->kind == VA_ITER && !ax->widened) {
				s = s > lo ? s : lo;
				e = e < lo + ax->len ? e : lo + ax->len;
			}
			if (s < 0 || s >= ax->size || e > ax->size)
				return plan_error(err, "%s: block at %lld of axis %d (size %lld) leaves the array", op->t->name,
				                  (long long)s, x, (long long)ax->size);
		}
	}
	return 0;
}

/* Small outputs: walk every grid step and every position of its output
 * block, keep the positions inside each axis's slice, and count the storage
 * elements they address: each output element exactly once. */
static int check_cover_elements(const PlanStmt *ps, Buf *err)
{
	const PlanOperand *out = ps->ops.v[0];
	int64_t nout = 1, npts = 1, gidx[PLAN_MAXVARS], extent[PLAN_MAXVARS];
	for (int i = 0; i < ps->nlhs; i++)
		nout *= ps->vars[i].n;
	for (int a = 0; a < ps->ngrid; a++) {
		const PlanVar *v = &ps->vars[ps->grid_var[a]];
		/* reduction steps revisit the same output block: the first stands for all */
		extent[a] = v->reduce ? 1 : i64_ceil_div(v->n, v->block);
		if (__builtin_mul_overflow(npts, extent[a], &npts))
			return 0;
	}
	int64_t storage = tensor_layout(ps->in, out->t)->storage;
	if (nout > (1 << 16) || storage > (1 << 20))
		return 0;
	unsigned char *hit = calloc((size_t)storage + 1, 1);
	int64_t count = 0;
	int rc = 0;
	for (int64_t pt = 0; pt < npts && !rc; pt++) {
		int64_t r = pt, inblock = 1;
		for (int a = ps->ngrid - 1; a >= 0; a--) {
			gidx[a] = r % extent[a];
			r /= extent[a];
		}
		for (int x = 0; x < out->naxes; x++)
			inblock *= out->ax[x].block ? out->ax[x].block : 1;
		for (int64_t e = 0; e < inblock && !rc; e++) {
			int64_t q = e, addr = 0;
			bool valid = true;
			for (int x = out->naxes - 1; x >= 0; x--) {
				const PlanAxis *ax = &out->ax[x];
				int64_t b = ax->block ? ax->block : 1, pos = block_start(ax, ps, gidx) + q % b;
				q /= b;
				int64_t lo = ax->step > 0 ? ax->start : ax->start - ax->len + 1;
				if (ax->kind == VA_ITER && (pos < lo || pos >= lo + ax->len))
					valid = false; /* masked: past the end of a partial block */
				addr += pos * ax->stride;
			}
			if (!valid)
				continue;
			if (addr < 0 || addr >= storage)
				rc = plan_error(err, "output %s: a block writes storage element %lld, outside [0, %lld)",
				                ps->stmt->t->name, (long long)addr, (long long)storage);
			else if (hit[addr]++)
				rc = plan_error(err, "output %s: storage element %lld is written twice", ps->stmt->t->name,
				                (long long)addr);
			count++;
		}
	}
	if (!rc && count != nout)
		rc = plan_error(err, "output %s: %lld elements written, not %lld", ps->stmt->t->name, (long long)count,
		                (long long)nout);
	free(hit);
	return rc;
}

/* Every output element is written by exactly one grid step: each output
 * variable's blocks partition its range, and each drives its own axis of
 * the output. Small outputs are also enumerated element by element. */
static int check_cover(const PlanStmt *ps, Buf *err)
{
	const PlanOperand *out = ps->ops.v[0];
	if (out->view->cls == VIEW_ELEM) { /* a single block must write everything */
		for (int i = 0; i < ps->nlhs; i++)
			if (ps->vars[i].grid >= 0 || ps->vars[i].block != ps->vars[i].n)
				return plan_error(err, "output %s: the store is not a view but the block of %s is not all of it",
				                  ps->stmt->t->name, ps->vars[i].var->name);
		return 0;
	}
	for (int i = 0; i < ps->nlhs; i++) {
		const PlanVar *v = &ps->vars[i];
		int64_t g = v->grid >= 0 ? i64_ceil_div(v->n, v->block) : 1;
		int64_t covered; /* g blocks reach n, g - 1 do not */
		if (v->block < 1 || (v->grid < 0 ? v->block != v->n : !i64_mul(g - 1, v->block, &covered) ||
		                     covered >= v->n || (i64_mul(g, v->block, &covered) && covered < v->n)))
			return plan_error(err, "output %s: the blocks of %s do not partition [0, %lld)", ps->stmt->t->name,
			                  v->var->name, (long long)v->n);
		int axes = 0;
		for (int d = 0; d < out->view->ndig; d++)
			axes += out->view->dig[d].var == v->var && out->view->dig[d].axis >= 0;
		if (v->n > 1 && axes == 0)
			return plan_error(err, "output %s: %s drives no axis", ps->stmt->t->name, v->var->name);
	}
	return check_cover_elements(ps, err);
}

/* Does the block of op at the grid step of the point `val` (values by Var
 * id) hold the element the kernel reads or writes there? */
static bool holds(const PlanStmt *ps, const PlanOperand *op, const int64_t *val, int64_t *gidx)
{
	for (int a = 0; a < ps->ngrid; a++) {
		const PlanVar *v = &ps->vars[ps->grid_var[a]];
		gidx[a] = val[v->var->id] / v->block;
	}
	for (int x = 0; x < op->naxes; x++) {
		const PlanAxis *ax = &op->ax[x];
		if (ax->kind != VA_ITER || ax->widened)
			continue;
		/* where the view puts the element: the truth the plan must follow */
		const VAxis *va = &op->view->ax[ax->vaxis];
		const ViewDigit *g = &op->view->dig[va->ref];
		int64_t digit = val[g->var->id] / g->place;
		if (g->index < g->nsplit - 1)
			digit %= g->n;
		int64_t pos = ax->place ? digit / ax->place % ax->size : va->start + va->step * digit;
		int64_t s = block_start(ax, ps, gidx);
		if (pos < s || pos >= s + (ax->block ? ax->block : 1))
			return false;
	}
	return true;
}

/* Small iteration domains: every point's element lies in the block that its
 * grid step moves, for every operand (gathered axes aside: their row comes
 * from the data). */
static int check_holds(const PlanStmt *ps, Buf *err)
{
	int64_t total = 1, val[1024] = {0}, gidx[PLAN_MAXVARS];
	for (int i = 0; i < ps->nvars; i++) {
		if (ps->vars[i].var->id >= 1024 || __builtin_mul_overflow(total, ps->vars[i].n, &total))
			return 0;
	}
	if (total > (1 << 16))
		return 0;
	for (int64_t pt = 0; pt < total; pt++) {
		int64_t r = pt;
		for (int i = ps->nvars - 1; i >= 0; i--) {
			val[ps->vars[i].var->id] = r % ps->vars[i].n;
			r /= ps->vars[i].n;
		}
		for (int j = 0; j < ps->ops.n; j++) {
			const PlanOperand *op = ps->ops.v[j];
			if (op->prefetch || op->cls == VIEW_ELEM || (op->view->flags & VF_EMPTY))
				continue;
			if (!holds(ps, op, val, gidx))
				return plan_error(err, "%s: the block of a grid step misses an element it needs", op->t->name);
		}
	}
	return 0;
}

static int check_stmt(const PlanStmt *ps, Buf *err)
{
	if (ps->empty)
		return 0;
	if (check_holds(ps, err))
		return -1;
	int64_t gidx[PLAN_MAXVARS], extent[PLAN_MAXVARS];
	for (int a = 0; a < ps->ngrid; a++) {
		const PlanVar *v = &ps->vars[ps->grid_var[a]];
		extent[a] = i64_ceil_div(v->n, v->block);
	}
	/* index maps are affine in each grid index: the corners of the grid
	 * bound every block */
	int na = ps->ngrid < 16 ? ps->ngrid : 16;
	for (int64_t c = 0; c < (int64_t)1 << na; c++) {
		for (int a = 0; a < ps->ngrid; a++)
			gidx[a] = a < na && (c >> a) & 1 ? extent[a] - 1 : 0;
		if (check_bounds(ps, gidx, err))
			return -1;
	}
	return check_cover(ps, err);
}

/* Fused lets are never moved: no operand names one, and every statement
 * that defines a let the plan moves is planned before its readers. */
static int check_fusion(const Plan *p, Buf *err)
{
	for (int i = 0; i < p->nstmts; i++)
		for (int j = 0; j < p->st[i].ops.n; j++) {
			const PlanOperand *op = p->st[i].ops.v[j];
			if (op->t->role != ROLE_LET)
				continue;
			if (p->in->fused[op->t->index])
				return plan_error(err, "%s: the fused let %s is moved as a block", p->st[i].stmt->t->name,
				                  op->t->name);
			bool before = false;
			for (int d = 0; d <= i && !before; d++)
				before = p->st[d].stmt->t == op->t && (d < i || j == 0);
			if (!before)
				return plan_error(err, "%s: the let %s is read before it is planned", p->st[i].stmt->t->name,
				                  op->t->name);
		}
	return 0;
}

int plan_check(const Plan *p, Buf *err)
{
	if (check_fusion(p, err))
		return -1;
	for (int i = 0; i < p->nstmts; i++)
		if (check_stmt(&p->st[i], err))
			return -1;
	return 0;
}

/* The tpu block rule on every operand; 0 when all obey it. */
int plan_check_tiles(const Plan *p, Buf *err)
{
	for (int i = 0; i < p->nstmts; i++) {
		const PlanStmt *ps = &p->st[i];
		for (int j = 0; j < ps->ops.n; j++) {
			const PlanOperand *op = ps->ops.v[j];
			if (op->prefetch || op->naxes == 0)
				continue;
			const PlanAxis *l = &op->ax[op->naxes - 1];
			if (!tpu_ok(l->block, l->size, 128))
				return plan_error(err, "%s: last block dim %lld of %lld breaks the (8, 128) rule", op->t->name,
				                  (long long)l->block, (long long)l->size);
			if (op->naxes >= 2) {
				const PlanAxis *s = &op->ax[op->naxes - 2];
				if (!tpu_ok(s->block, s->size, 8 * dtype_packing(op->t->dt)))
					return plan_error(err, "%s: second-minor block dim %lld of %lld breaks the (8, 128) rule",
					                  op->t->name, (long long)s->block, (long long)s->size);
			}
		}
	}
	return 0;
}

