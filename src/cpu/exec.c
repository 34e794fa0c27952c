/* Native executor: runs an instance's cpu plan on the thread pool.
 *
 * Each planned statement runs in order; its parallel grid steps are the
 * pool's tasks, each owning one output block. Inside a block:
 *
 *  - Loop dims. Every variable of the statement is split into the common
 *    refinement of the digits its accesses cut it into (v = Σ place·digit),
 *    so that every operand's element offset is affine in the loop dims: an
 *    operand is a base plus one element stride per dim (0 where it is
 *    broadcast). A row gather adds, per evaluation unit, the row its
 *    prefetched index selects, after `wrap` and the bounds check.
 *  - Pure data movement (the body is one load of the output's dtype) copies
 *    the block from input to output through both views in one strided box
 *    copy (stage.c: memcpy runs, vectorised micro-transposes, streaming
 *    stores for big outputs).
 *  - Otherwise the body IR runs on a small register machine (vm.c): units
 *    of up to VM_LANES points, each operand staged into a dense buffer by a
 *    box copy, one tight loop per instruction, the result staged back
 *    through the output's view. A reduction evaluates its inner scope over
 *    the whole reduction domain for each outer point, in row-major order,
 *    so results are bit-identical to the interpreter's whatever the thread
 *    count.
 *  - What is no box (element gathers, scattered stores, digit cuts that do
 *    not nest) runs point by point through the accesses' flat offsets.
 *
 * Run-time errors (a bad gather index) never unwind across threads: each is
 * recorded with its output position; the one with the smallest position
 * (the interpreter's first) is reported, and blocks after it stop early.
 * Inputs are never written; no thread writes outside an output block.
 * Units: strides in elements here, bytes at the box-copy boundary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

/* ---- errors ---- */

/* ---- the point-by-point path ---- */

typedef struct {
	const Inst *in;
	const Planned *ps;
	const Prog *p;
	void *const *storage;
	void **lets;
	RunErr *err;
	int64_t npts;
} Scalar;

typedef struct {
	const Scalar *s;
	int64_t *val; /* per variable */
	Val *reg;
	const Ins *load;
	const Ins *noread; /* a load to check but not read */
	int64_t pos;
	bool bad;
} Point;

static void *tensor_base(void *const *storage, void **lets, const Tensor *t)
{
	return t->role == ROLE_LET ? lets[t->index] : storage[t->index];
}

/* The value of a raw (pre-wrap) atom, for the wrap message. */
static void wrap_parts(const Prog *p, const Val *reg, int r, int64_t *raw, int64_t *m)
{
	int w = wrap_of_reg(p, r);
	*raw = w < 0 ? reg[xuncast(p, r)].i : reg[p->ins[w].a[0]].i;
	*m = w < 0 ? 0 : reg[p->ins[w].a[1]].i;
}

static int point_leaf(void *env, const Sym *s, int64_t *out)
{
	Point *pt = env;
	if (s->kind == S_VAR) {
		*out = pt->val[((const Var *)s->p)->id];
		return SYM_OK;
	}
	const Ins *x = pt->load;
	for (int i = 0; x && i < x->natoms; i++)
		if (x->atom[i] == s) {
			*out = pt->reg[x->atom_reg[i]].i;
			if (*out < s->lo || *out > s->hi) {
				int64_t raw, m;
				wrap_parts(pt->s->p, pt->reg, x->atom_reg[i], &raw, &m);
				exec_index_error(pt->s->err, pt->s->in, pt->s->ps->stmt, pt->val, pt->pos, x->src, s->p, *out, raw, m);
				pt->bad = true;
			}
			return SYM_OK;
		}
	return SYM_EOVF;
}

static Val point_load(Point *pt, const Ins *x)
{
	const Scalar *s = pt->s;
	const Access *ac = s->ps->acc.v[x->operand];
	int64_t off;
	for (int c = 0; c < x->nchecks; c++) {
		int64_t v = pt->reg[x->check_reg[c]].i, raw, m;
		if (in_dim(s->in, x, c, v))
			continue;
		wrap_parts(s->p, pt->reg, x->check_reg[c], &raw, &m);
		exec_index_error(s->err, s->in, s->ps->stmt, pt->val, pt->pos, x->src, x->src->args[x->check_dim[c]], v, raw, m);
		pt->bad = true;
		return (Val){0};
	}
	pt->load = x;
	bool was_bad = pt->bad;
	if (sym_eval(ac->off, point_leaf, pt, &off) || pt->bad) {
		if (!was_bad && !pt->bad)
			run_error(s->err, pt->pos, x->src->sp, "index arithmetic overflows 64 bits");
		pt->bad = true;
		return (Val){0};
	}
	if (off < 0 || off >= tensor_layout(s->in, ac->t)->storage) {
		exec_index_error(s->err, s->in, s->ps->stmt, pt->val, pt->pos, x->src, NULL, off, off, 0);
		pt->bad = true;
		return (Val){0};
	}
	if (x == pt->noread)
		return (Val){0}; /* checked only: the caller moves the data */
	const void *b = tensor_base(s->storage, s->lets, ac->t);
	if (dt_is_float(ac->t->dt))
		return (Val){.f = dt_load_f(b, ac->t->dt, off)};
	return (Val){.i = dt_load_i(b, ac->t->dt, off)};
}

static void point_scope(Point *pt, int scope);

static void point_reduce(Point *pt, const Ins *x, Val *out)
{
	const Scope *sc = &pt->s->p->scopes[x->inner];
	const int64_t *ext = pt->s->in->n;
	Red r;
	red_init(&r, x->op, x->opdt);
	int64_t total = 1;
	for (int v = 0; v < sc->nvars; v++)
		total *= ext[sc->vars[v]->id];
	for (int64_t q0 = 0; q0 < total && !pt->bad; q0++) {
		int64_t q = q0;
		for (int v = sc->nvars - 1; v >= 0; v--) {
			int64_t n = ext[sc->vars[v]->id];
			pt->val[sc->vars[v]->id] = q % n;
			q /= n;
		}
		point_scope(pt, x->inner);
		red_step(&r, pt->reg[x->a[0]]);
	}
	if (!pt->bad && !red_result(&r, x->dt, out)) {
		char at[160], msg[400];
		where_str(at, sizeof at, pt->s->ps->stmt, pt->val);
		snprintf(msg, sizeof msg, "kernel %s: %s over an empty range at %s", pt->s->in->k->name, x->src->name, at);
		run_error(pt->s->err, pt->pos, x->src->sp, msg);
		pt->bad = true;
	}
}

static void point_scope(Point *pt, int scope)
{
	const Prog *p = pt->s->p;
	for (int i = 0; i < p->n && !pt->bad; i++) {
		const Ins *x = &p->ins[i];
		Val args[3];
		if (x->scope != scope)
			continue;
		if (x->guard >= 0 && !pt->reg[x->guard].i) {
			pt->reg[i] = (Val){0};
			continue;
		}
		switch (x->kind) {
		case I_CONST: pt->reg[i] = x->c; break;
		case I_IVAR: pt->reg[i] = (Val){.i = pt->val[x->var->id]}; break;
		case I_LOAD: pt->reg[i] = point_load(pt, x); break;
		case I_CAST: pt->reg[i] = val_convert(pt->reg[x->a[0]], p->ins[x->a[0]].dt, x->dt); break;
		case I_BITCAST: pt->reg[i] = val_bitcast(pt->reg[x->a[0]], p->ins[x->a[0]].dt, x->dt); break;
		case I_OP: {
			const char *why;
			Span sp;
			for (int a = 0; a < x->nargs; a++)
				args[a] = pt->reg[x->a[a]];
			pt->reg[i] = val_op(x->op, op_info[x->op].kind == K_PRED ? p->ins[x->a[0]].dt : x->opdt, args);
			if (!checked_op(x, args, &pt->reg[i], &why, &sp)) {
				op_failed(pt->s->err, pt->s->in, pt->s->ps->stmt, pt->val, pt->pos, why, sp);
				pt->bad = true;
			}
			break;
		}
		case I_REDUCE: point_reduce(pt, x, &pt->reg[i]); break;
		}
	}
}

#define SCALAR_CHUNK 4096

/* Point q0 of the statement (its variables row-major): its value in the
 * registers and the element it stores to in *off, through the store's
 * offset (load: the instruction of that offset's atoms, or NULL); false
 * when it failed (pt->bad, the error recorded). */
static bool eval_point(Point *pt, int64_t q0, const Ins *load, int64_t *off)
{
	const Scalar *s = pt->s;
	const Stmt *st = s->ps->stmt;
	int64_t q = q0;
	for (int d = st->nlhs - 1; d >= 0; d--) {
		int64_t n = s->in->n[st->lhs[d]->id];
		pt->val[st->lhs[d]->id] = q % n;
		q /= n;
	}
	pt->pos = q0;
	point_scope(pt, 0);
	if (pt->bad)
		return false;
	pt->load = load;
	const Access *store = s->ps->acc.v[0];
	sym_eval(store->off, point_leaf, pt, off);
	return true;
}

/* Task t: output points [t·CHUNK, (t+1)·CHUNK) in row-major order. */
static void scalar_task(void *arg, int64_t t, int worker)
{
	(void)worker;
	const Scalar *s = arg;
	const Stmt *st = s->ps->stmt;
	int64_t from = t * SCALAR_CHUNK, to = from + SCALAR_CHUNK < s->npts ? from + SCALAR_CHUNK : s->npts;
	if (from > atomic_load(&s->err->first))
		return;
	Point pt = {.s = s};
	pt.val = calloc((size_t)s->in->k->vars.n + 1, sizeof *pt.val);
	pt.reg = calloc((size_t)s->p->n + 1, sizeof *pt.reg);
	if (!pt.val || !pt.reg) {
		run_error(s->err, from, st->sp, "cannot allocate the executor's registers");
		goto done;
	}
	void *out = tensor_base(s->storage, s->lets, st->t);
	for (int64_t q0 = from; q0 < to && !pt.bad; q0++) {
		int64_t off;
		if (!eval_point(&pt, q0, NULL, &off))
			break;
		Val v = pt.reg[s->p->result];
		if (dt_is_float(s->p->out))
			dt_store_f(out, st->t->dt, off, v.f);
		else
			dt_store_i(out, st->t->dt, off, v.i);
	}
done:
	free(pt.val);
	free(pt.reg);
}

static void run_scalar(const Inst *in, int si, void *const *storage, void **lets, RunErr *err)
{
	const Planned *ps = &in->planned[si];
	Scalar s = {in, ps, in->prog[si], storage, lets, err, 1};
	for (int d = 0; d < ps->stmt->nlhs; d++)
		s.npts *= in->n[ps->stmt->lhs[d]->id];
	pool_run(i64_ceil_div(s.npts, SCALAR_CHUNK), scalar_task, &s, 0);
}

/* ---- scatters ---- */

/* A scatter (y[s < S: idx[s]] = v[s], or +=) runs in two phases. Its points
 * are evaluated in parallel, in the chunks of the point-by-point path, each
 * recording the element it writes (checked there: its store instruction is
 * a load that is never read) and its value; no thread writes. Then, if no
 * point failed, one thread stores them in row-major point order. Serial
 * stores make += deterministic and bit-identical to the interpreter, which
 * adds in the same order whatever the thread count (atomic adds would make a
 * float sum depend on the schedule), and resolve duplicates the same way
 * (the last point wins); they are one pass over two arrays. A failing
 * scatter leaves its output untouched. */
typedef struct {
	Scalar s;
	int64_t *off;
	Val *val;
} Scatter;

static void scatter_task(void *arg, int64_t t, int worker)
{
	(void)worker;
	Scatter *sc = arg;
	const Scalar *s = &sc->s;
	const Stmt *st = s->ps->stmt;
	const Ins *at = &s->p->ins[s->p->store];
	int64_t from = t * SCALAR_CHUNK, to = from + SCALAR_CHUNK < s->npts ? from + SCALAR_CHUNK : s->npts;
	if (from > atomic_load(&s->err->first))
		return;
	Point pt = {.s = s, .noread = at};
	pt.val = calloc((size_t)s->in->k->vars.n + 1, sizeof *pt.val);
	pt.reg = calloc((size_t)s->p->n + 1, sizeof *pt.reg);
	if (!pt.val || !pt.reg) {
		run_error(s->err, from, st->sp, "cannot allocate the executor's registers");
		goto done;
	}
	for (int64_t q0 = from; q0 < to && !pt.bad; q0++) {
		if (!eval_point(&pt, q0, at, &sc->off[q0])) /* at: checked in range by the store instruction */
			break;
		sc->val[q0] = pt.reg[s->p->result];
	}
done:
	free(pt.val);
	free(pt.reg);
}

static void run_scatter(const Inst *in, int si, void *const *storage, void **lets, RunErr *err)
{
	const Planned *ps = &in->planned[si];
	const Prog *p = in->prog[si];
	Scatter sc = {{in, ps, p, storage, lets, err, 1}, NULL, NULL};
	bool fits = true;
	int64_t bytes;
	for (int d = 0; d < ps->stmt->nlhs; d++)
		fits &= i64_mul(sc.s.npts, in->n[ps->stmt->lhs[d]->id], &sc.s.npts);
	fits &= i64_mul(sc.s.npts, (int64_t)(sizeof *sc.off + sizeof *sc.val), &bytes) && (uint64_t)bytes < SIZE_MAX / 2;
	sc.off = fits ? malloc((size_t)sc.s.npts * sizeof *sc.off + 1) : NULL;
	sc.val = fits ? malloc((size_t)sc.s.npts * sizeof *sc.val + 1) : NULL;
	if (!sc.off || !sc.val) {
		char msg[300];
		snprintf(msg, sizeof msg, "kernel %s: cannot allocate the points of the scatter into '%s'", in->k->name,
		         ps->stmt->t->name);
		run_error(err, 0, ps->stmt->sp, msg);
	}
	else
		pool_run(i64_ceil_div(sc.s.npts, SCALAR_CHUNK), scatter_task, &sc, 0);
	if (atomic_load(&err->first) == INT64_MAX) {
		const Tensor *t = ps->stmt->t;
		void *out = storage[t->index];
		for (int64_t q = 0; q < sc.s.npts; q++) {
			Val v = sc.val[q];
			int64_t off = sc.off[q];
			if (p->accum) {
				Val old = dt_is_float(t->dt) ? (Val){.f = dt_load_f(out, t->dt, off)} : (Val){.i = dt_load_i(out, t->dt, off)};
				v = val_op(OP_ADD, t->dt, (Val[]){old, v});
			}
			if (dt_is_float(t->dt))
				dt_store_f(out, t->dt, off, v.f);
			else
				dt_store_i(out, t->dt, off, v.i);
		}
	}
	free(sc.off);
	free(sc.val);
}

/* ---- the box path: loop dims and boxes ---- */

/* The scope of a reduction variable in the program, -1 for none. */
static int var_scope(const Prog *p, const Var *v)
{
	for (int s = 1; s < p->nscopes; s++)
		for (int j = 0; j < p->scopes[s].nvars; j++)
			if (p->scopes[s].vars[j] == v)
				return s;
	return -1;
}

/* The places every access cuts variable v at, as a divisibility chain.
 * False when they do not nest (then the statement runs point by point). */
static bool refine(const PlanStmt *ps, const Var *v, int64_t *place, int *np)
{
	*np = 1;
	place[0] = 1;
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		for (int g = 0; g < op->view->ndig; g++) {
			const ViewDigit *dg = &op->view->dig[g];
			if (dg->var != v || dg->place <= 1)
				continue;
			int j = 0;
			while (j < *np && place[j] < dg->place)
				j++;
			if (j < *np && place[j] == dg->place)
				continue;
			if (*np == 16)
				return false;
			memmove(&place[j + 1], &place[j], (size_t)(*np - j) * sizeof *place);
			place[j] = dg->place;
			(*np)++;
		}
	}
	for (int j = 1; j < *np; j++)
		if (place[j] % place[j - 1])
			return false;
	return true;
}

static bool make_dims(X *x)
{
	const PlanStmt *ps = x->ps;
	for (int i = 0; i < ps->nvars; i++) {
		const PlanVar *pv = &ps->vars[i];
		int64_t place[16];
		int np, scope = i < ps->nlhs ? 0 : var_scope(x->p, pv->var);
		if (scope < 0 || !refine(ps, pv->var, place, &np) || x->nd + np > XMAXD)
			return false;
		for (int j = np - 1; j >= 0; j--) {
			int64_t n = j == np - 1 ? i64_ceil_div(pv->n, place[j]) : place[j + 1] / place[j];
			XDim *d = &x->d[x->nd];
			*d = (XDim){.var = i, .place = place[j], .n = n, .scope = scope};
			x->sd[scope][x->nsd[scope]++] = x->nd++;
		}
	}
	return true;
}

/* Element strides of a view operand (the view v of it) over the loop dims. */
static void op_strides(X *x, XOp *o, const View *v)
{
	for (int a = 0; a < v->naxes; a++)
		if (v->ax[a].kind != VA_GATHER)
			o->start += v->ax[a].start * v->ax[a].stride;
	for (int g = 0; g < v->ndig; g++) {
		const ViewDigit *dg = &v->dig[g];
		if (dg->axis < 0)
			continue;
		const VAxis *a = &v->ax[dg->axis];
		bool top = dg->index == dg->nsplit - 1;
		for (int k = 0; k < x->nd; k++) {
			const XDim *d = &x->d[k];
			if (x->ps->vars[d->var].var != dg->var || d->place < dg->place ||
			    (!top && d->place >= dg->place * dg->n))
				continue;
			o->stride[k] += d->place / dg->place * a->step * a->stride;
		}
	}
}

/* The masked digits of a view operand as ranges of its loop dims; false
 * when a masked variable is cut into several dims (no box then: the
 * operand is read point by point, under its guard). */
static bool op_masks(X *x, XOp *o, const View *v)
{
	if (o->op->cls == VIEW_ELEM || !(v->flags & VF_MASKED))
		return true;
	for (int g = 0; g < v->ndig; g++) {
		const ViewDigit *dg = &v->dig[g];
		if (!dg->masked)
			continue;
		int dim = -1;
		for (int k = 0; k < x->nd; k++)
			if (x->ps->vars[x->d[k].var].var == dg->var) {
				if (dim >= 0)
					return false;
				dim = k;
			}
		if (dim < 0)
			return false;
		o->masked = true;
		o->mk[dim] = true;
		o->mlo[dim] = dg->mlo;
		o->mhi[dim] = dg->mhi;
	}
	return true;
}

static bool sym_uses_var(const Sym *s, const Var *v)
{
	if (s->kind == S_VAR)
		return s->p == v;
	for (int i = 0; i < s->n; i++)
		if (sym_uses_var(s->a[i], v))
			return true;
	return false;
}

/* Loads that cannot be staged as a box: element gathers, gathers under a
 * guard or inside a reduction, gathers whose index varies in a block. */
static bool needs_points(const X *x, const PlanOperand *op, int reg)
{
	if (op->cls == VIEW_ELEM || x->p->ins[reg].nchecks)
		return true;
	if (!op->view->ngat)
		return false;
	const Ins *ld = &x->p->ins[reg];
	if (ld->nchecks)
		return true; /* subscripts the offset does not show: checked point by point */
	if (ld->guard >= 0 || ld->scope != 0)
		return true;
	for (int g = 0; g < op->view->ngat; g++) {
		const Sym *ioff = NULL;
		for (int j = 0; j < x->pd->acc.n; j++)
			if (((const Access *)x->pd->acc.v[j])->load == op->view->gat[g].index_load)
				ioff = ((const Access *)x->pd->acc.v[j])->off;
		for (int i = 0; i < x->ps->nvars && ioff; i++) {
			const PlanVar *pv = &x->ps->vars[i];
			bool fixed = i < x->ps->nlhs && (pv->n <= 1 || (pv->grid >= 0 && pv->block == 1));
			if (!fixed && sym_uses_var(ioff, pv->var))
				return true;
		}
		if (!ioff)
			return true;
	}
	return false;
}

/* A body that is one row gather of the output's dtype, whose index (and
 * only it) the other instructions compute, everything in scope 0: the rows
 * are copied one by one, the index read at each with the interpreter's
 * checks. Returns the number of rows, 0 when the body is no such gather. */
static int gather_rows(X *x)
{
	const Ins *res = &x->p->ins[x->p->result];
	if (res->kind != I_LOAD || res->dt != x->p->out || x->op[res->operand].point || x->op[0].point ||
	    !x->op[res->operand].op->view->ngat || res->guard >= 0)
		return 0;
	for (int i = 0; i < x->p->n; i++)
		if (x->p->ins[i].scope || x->p->ins[i].guard >= 0 || x->p->ins[i].kind == I_REDUCE)
			return 0;
	int64_t rows = 1;
	x->nrow = 0;
	for (int i = 0; i < x->ps->nlhs; i++) {
		const PlanVar *pv = &x->ps->vars[i];
		for (int k = 0; k < x->nd; k++)
			if (x->d[k].var == i && x->d[k].place > 1)
				return 0; /* a split variable: the general path */
		if (!(pv->grid >= 0 && pv->block == 1) || pv->n <= 1)
			continue;
		x->row_var[x->nrow++] = i;
		rows *= pv->n;
	}
	return rows > 0 && rows < INT32_MAX && x->nrow ? (int)rows : 0;
}

/* Bytes of output a task of blocks takes at least where walk_order leaves
 * one block per task: blocks taken one by one put both threads' streams in
 * neighbouring pieces, and each piece starts the hardware prefetchers
 * afresh (measured alternating in one process on an Intel Xeon, the L3
 * flushed between runs: a + b of 8192² in blocks of 2 rows, 64 KiB of
 * output, 1.02x with tasks of 1 MiB, 1.06x with the prefetch distance of
 * pw_chain_rows as well; a hand loop of it in turns of 64 KiB ran at 0.89
 * of one in 1 MiB pieces). */
#define EXEC_TASK_BYTES (1 << 20)

/* The order the register machine walks the grid in. When a staged
 * operand (one not in the box's dense order) is contiguous along a grid
 * variable, consecutive blocks of a task step that variable first, so each
 * task reads on along the operand's rows from where its last block
 * stopped, about 4 KiB of each: a transpose reads best in long sequential
 * stretches. Blocks are independent, so the order changes no result. */
static void walk_order(X *x)
{
	const PlanStmt *ps = x->ps;
	int64_t best = 0;
	x->fast_g = -1;
	x->chunk = 1;
	if (x->nsd[0] == 0)
		return;
	int inner = x->sd[0][x->nsd[0] - 1];
	for (int j = 1; j < x->pd->acc.n; j++) {
		const XOp *o = &x->op[j];
		if (x->opreg[j] < 0 || o->point || o->masked || o->op->view->ngat || o->stride[inner] == 1)
			continue;
		int64_t size = tensor_layout(x->in, o->acc->t)->storage * (int64_t)o->es;
		for (int k = 0; k < x->nd; k++)
			for (int g = 0; g < ps->ngrid && size > best; g++) {
				const PlanVar *pv = &ps->vars[ps->grid_var[g]];
				if (o->stride[k] != 1 || x->d[k].var != ps->grid_var[g] || x->d[k].place != 1 || pv->reduce ||
				    pv->block >= pv->n)
					continue;
				best = size;
				x->fast_g = g;
				x->chunk = i64_ceil_div(pv->n, pv->block);
				int64_t run = 4096 / (pv->block * (int64_t)o->es);
				x->chunk = run < 1 ? 1 : run < x->chunk ? run : x->chunk;
			}
	}
	int whole = x->fast_g >= 0 ? vm_whole_rows(x) : PW_BLOCKS;
	if (whole != PW_BLOCKS) { /* a task: every block of one row of the grid, or half of them */
		const PlanVar *pv = &ps->vars[ps->grid_var[x->fast_g]];
		x->merge = true;
		x->row_blocks = i64_ceil_div(pv->n, pv->block);
		x->halves = whole == PW_HALVES;
		x->chunk = x->halves ? i64_ceil_div(x->row_blocks, 2) : x->row_blocks;
	}
}

static void row_form(X *x);

/* What of x changes from run to run: where the operands lie, and the
 * run's error record. */
static void bind_run(X *x, void *const *storage, void **lets, RunErr *err)
{
	x->storage = storage;
	x->lets = lets;
	x->err = err;
	for (int j = 0; j < x->pd->acc.n; j++) {
		XOp *o = &x->op[j];
		o->base = tensor_base(storage, lets, o->acc->t);
		if (o->piece)
			o->piece->base = o->base;
		x->jb[j] = o->base ? o->base + o->start * (int64_t)o->es : NULL;
	}
}

/* Does the statement write its output of bytes with streaming stores? From
 * 8 MiB on; but not where every load reads along the output's rows (no
 * transpose) and the output and the tensors it reads together fit in the
 * L3 (the size the kernel reports): there the output stays in cache for
 * the next kernel, while a streamed line goes to memory. Measured in one
 * process on a Zen 4 (32 MiB L3), torch.compile of (2, 4, 128, 2048)
 * permutations alternating with Inductor's: rows of 8 KiB copied in
 * 0.22-0.28 ms plain against 0.32 streamed (and Inductor's calls between
 * them 0.16-0.21 ms against 0.23-0.27); the transposes among them lost
 * 1.3-1.6x plain ((3,1,2,0) 3.8 ms against 2.4-2.7). */
static bool streams(const X *x, const Inst *in, int64_t bytes)
{
	if (bytes < (8 << 20))
		return false;
	int64_t l3 = l3_bytes(), all = bytes;
	int d0 = 0;
	while (d0 < x->nd && x->op[0].stride[d0] != 1)
		d0++;
	if (l3 <= 0 || d0 == x->nd)
		return true;
	for (int j = 1; j < x->pd->acc.n && all < l3; j++) {
		const XOp *o = &x->op[j];
		if (o->point || (o->stride[d0] != 0 && o->stride[d0] != 1))
			return true; /* read across the rows: a transpose streams */
		all += tensor_layout(in, o->op->t)->storage * (int64_t)o->es;
	}
	return all >= l3;
}

/* Lays statement si out for runs (bind_run then says where its operands
 * lie); false when it is no box statement. */
static bool setup(X *x, const Inst *in, int si, RunErr *err)
{
	x->in = in;
	x->ps = &in->plan[cpu_target.id]->st[si];
	x->pd = &in->planned[si];
	x->p = in->prog[si];
	x->err = err;
	if (!make_dims(x))
		return false;
	int nacc = x->pd->acc.n;
	x->op = calloc((size_t)nacc, sizeof *x->op);
	x->opreg = malloc((size_t)nacc * sizeof *x->opreg);
	x->jb = calloc((size_t)nacc, sizeof *x->jb);
	if (!x->op || !x->opreg || !x->jb)
		return false;
	for (int j = 0; j < nacc; j++)
		x->opreg[j] = -1;
	for (int r = 0; r < x->p->n; r++)
		if (x->p->ins[r].kind == I_LOAD)
			x->opreg[x->p->ins[r].operand] = r;
	for (int j = 0; j < nacc; j++) {
		XOp *o = &x->op[j];
		o->op = x->ps->ops.v[j];
		o->acc = x->pd->acc.v[j];
		o->dt = o->acc->t->dt;
		o->es = athene_dtype_size(o->dt);
		if (j > 0 && x->opreg[j] < 0)
			continue; /* not read by the body */
		if (j == 0 ? o->op->cls == VIEW_ELEM : needs_points(x, o->op, x->opreg[j]) || !op_masks(x, o, o->op->view))
			o->point = true;
		else
			op_strides(x, o, o->op->view);
		if (o->point || !o->op->piece)
			continue;
		XOp *q = calloc(1, sizeof *q); /* a rolled view: its second piece */
		if (!q)
			return false;
		*q = (XOp){.op = o->op, .acc = o->acc, .dt = o->dt, .es = o->es};
		o->piece = q;
		if (!op_masks(x, q, o->op->piece))
			o->point = true;
		else
			op_strides(x, q, o->op->piece);
	}
	if (x->op[0].point)
		return false;
	const Stmt *st = x->pd->stmt;
	int64_t ps = 1;
	for (int d = st->nlhs - 1; d >= 0; d--) {
		x->pstride[d] = ps;
		ps *= in->n[st->lhs[d]->id];
	}
	const Ins *res = &x->p->ins[x->p->result];
	x->copy = x->p->n == 1 && res->kind == I_LOAD && !x->op[res->operand].point && res->dt == x->p->out &&
	          !x->op[res->operand].op->view->ngat && (!x->op[res->operand].masked || x->op[res->operand].piece);
	x->stream = streams(x, in, tensor_layout(in, st->t)->storage * (int64_t)x->op[0].es);
	x->rows = gather_rows(x);
	if (x->rows)
		row_form(x);
	x->ntasks = 1;
	for (int g = 0; g < x->ps->ngrid; g++) {
		const PlanVar *pv = &x->ps->vars[x->ps->grid_var[g]];
		if (!pv->reduce)
			x->ntasks *= i64_ceil_div(pv->n, pv->block);
	}
	walk_order(x);
	if (x->fast_g < 0) { /* consecutive blocks, EXEC_TASK_BYTES of output a task, 4 tasks a thread at least */
		int64_t block = tensor_layout(in, st->t)->storage * (int64_t)x->op[0].es / x->ntasks;
		int64_t want = EXEC_TASK_BYTES / (block > 0 ? block : 1), most = x->ntasks / (4 * (int64_t)pool_threads());
		x->chunk = want < most ? want : most;
		x->chunk = x->chunk < 1 ? 1 : x->chunk;
	}
	return true;
}

/* ---- boxes of a block ---- */

/* Pure data movement: the whole statement, box by box, as one strided copy
 * each, which the staging engine tiles for the caches and spreads over the
 * threads itself (a plan's blocks, sized for a body's registers, would only
 * cut its tiles short). */
static void copy_stmt(const X *x)
{
	const PlanStmt *ps = x->ps;
	const XOp *dst = &x->op[0], *src = &x->op[x->p->ins[x->p->result].operand];
	int nl = ps->nlhs, nb[MAXSCOPE], at[MAXSCOPE] = {0};
	XBox *vb = malloc((size_t)(nl ? nl : 1) * XMAXBOX * sizeof *vb);
	if (!vb) {
		run_error(x->err, 0, x->pd->stmt->sp, "cannot allocate the executor's boxes");
		return;
	}
	for (int i = 0; i < nl; i++)
		if ((nb[i] = var_boxes(x, i, 0, ps->vars[i].n, &vb[i * XMAXBOX], XMAXBOX)) == 0)
			goto done;
	for (;;) {
		for (const XOp *q = src; q; q = q->piece) { /* a rolled source: each piece where it reads */
			int64_t shape[XMAXD], ds[XMAXD], ss[XMAXD], doff = dst->start, soff = q->start;
			int n = 0;
			for (int k = 0; k < x->nsd[0] && n >= 0; k++) {
				int d = x->sd[0][k];
				const XBox *b = &vb[x->d[d].var * XMAXBOX + at[x->d[d].var]];
				int64_t lo = b->lo[d], hi = b->hi[d];
				if (q->mk[d]) {
					lo = lo > q->mlo[d] ? lo : q->mlo[d];
					hi = hi < q->mhi[d] + 1 ? hi : q->mhi[d] + 1;
				}
				if (lo >= hi)
					n = -1; /* this piece reads none of the box */
				else {
					shape[n] = hi - lo;
					ds[n] = dst->stride[d] * (int64_t)dst->es;
					ss[n++] = q->stride[d] * (int64_t)q->es;
					doff += lo * dst->stride[d];
					soff += lo * q->stride[d];
				}
			}
			if (n >= 0)
				box_copy(dst->base + doff * (int64_t)dst->es, ds, q->base + soff * (int64_t)q->es, ss, shape, n,
				         dst->es, x->stream ? COPY_STREAM : 0, x->nw > 1);
		}
		int i = nl - 1;
		while (i >= 0 && ++at[i] == nb[i])
			at[i--] = 0;
		if (i < 0)
			break;
	}
done:
	free(vb);
}

#define ROWS_PER_TASK 2048 /* at most; fewer when the threads would not all get 4 tasks */
#define ROW_BATCH 32 /* rows whose lines are fetched together */

/* Rows of a gather: for each point of the row variables (the others at 0),
 * the point evaluator computes the index (and checks it and the load, as
 * the interpreter would at that output element); then the row moves as one
 * box copy (a memcpy when it is contiguous on both sides). */
/* The index of a row gather read straight from its tensor: the atom is a
 * view load of an integer tensor, maybe cast, maybe wrap(load, constant).
 * Fills *o and *mod (0: no wrap); false for any other form. */
static bool direct_index(const X *x, const Ins *ld, const XOp **o, int64_t *mod)
{
	if (ld->natoms != 1 || ld->nchecks)
		return false;
	const Ins *p = x->p->ins;
	int r = xuncast(x->p, ld->atom_reg[0]), wr = wrap_of_reg(x->p, r);
	*mod = 0;
	if (wr >= 0 && p[p[wr].a[1]].kind == I_CONST) {
		*mod = p[p[wr].a[1]].c.i;
		r = xuncast(x->p, p[wr].a[0]);
	}
	if (p[r].kind != I_LOAD || !dt_is_int(p[r].dt) || x->op[p[r].operand].point || p[r].natoms || *mod < 0)
		return false;
	*o = &x->op[p[r].operand];
	return true;
}

/* Rows prefetched ahead in the one-variable loop: about 16 KiB of them,
 * 8 to 32 rows (measured alternating in one process on a Zen 4, with fresh
 * rows every run: 64-byte rows 1.18x with 32 rows ahead than with 8; on
 * an Intel Xeon, 512-byte rows 1.15-1.5x with 32 than with 8, from L3 or
 * from memory, with plain or streamed stores; 24 to 64 within noise). */
static inline int64_t row_ahead(size_t len)
{
	int64_t n = len ? (int64_t)(16384 / len) : 32;
	return n < 8 ? 8 : n > 32 ? 32 : n;
}

/* Element i of an index tensor: i64 and i32 read in place, the rest
 * through the dtype's loader. */
static inline int64_t index_at(const XOp *io, int64_t i)
{
	if (io->dt == ATHENE_I64) {
		int64_t v;
		memcpy(&v, io->base + i * 8, sizeof v);
		return v;
	}
	if (io->dt == ATHENE_I32) {
		int32_t v;
		memcpy(&v, io->base + i * 4, sizeof v);
		return v;
	}
	return dt_load_i(io->base, io->dt, i);
}

/* One row of len bytes; rows of one line copied with a constant size (two
 * vector moves, no call). */
static inline void copy_row(char *d, const char *s, size_t len, bool stream)
{
	if (stream)
		copy_stream_nofence(d, s, len);
	else if (len == 64)
		memcpy(d, s, 64);
	else
		memcpy(d, s, len);
}

/* Where fast_rows reads: row r's index at io's ibase + r·istep, and index
 * row idx (lo <= idx <= hi, after the wrap by mod) at table element
 * sbase + r·sstep + idx·istride. */
typedef struct {
	const XOp *io;
	const char *table;
	int64_t mod, lo, hi, sbase, sstep, istride, ibase, istep, es;
} RowSrc;

/* The dim of x's boxes that the gather's row variable walks. */
static int row_axis(const X *x)
{
	int kr = 0;
	while (x->d[kr].var != x->row_var[0])
		kr++;
	return kr;
}

/* Where a fast_rows gather (x->fast) reads. */
static RowSrc row_src(const X *x)
{
	const XOp *src = &x->op[x->p->ins[x->p->result].operand], *io = x->row_io;
	const View *v = src->op->view;
	const VAxis *a = &v->ax[v->gat[0].axis];
	const Sym *at = v->gat[0].atom;
	int kr = row_axis(x);
	return (RowSrc){io, src->base, x->row_mod, at->lo, at->hi,
	                src->start + (a->start - a->step * at->lo) * a->stride, src->stride[kr], a->step * a->stride,
	                io->start, io->stride[kr], (int64_t)src->es};
}

/* Row r's table row for index j (in range). */
static inline const char *row_at(const RowSrc *g, int64_t r, int64_t j)
{
	return g->table + (g->sbase + r * g->sstep + j * g->istride) * g->es;
}

/* Row r's index, after the wrap (in range when lo <= it <= hi). */
static inline int64_t row_index(const RowSrc *g, int64_t r)
{
	int64_t j = index_at(g->io, g->ibase + r * g->istep);
	return j + (g->mod && j < 0 ? g->mod : 0);
}

/* Every line of [p, p + len) into L2 and L3, not L1 (prefetcht1 on x86):
 * a row that starts off a line (a NumPy array is 16-byte aligned) ends in
 * one more. Prefetches into L1 hold its few miss buffers until the lines
 * arrive, and a gather keeps many rows in flight: measured alternating in
 * one process on a Zen 4, with fresh random rows every run, 512-byte rows
 * 1.13-1.15x and 64-byte rows 1.14x faster than into L1. */
static inline void prefetch_lines(const char *p, size_t len)
{
	for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; len && a < (uintptr_t)p + len; a += 64)
		__builtin_prefetch((const void *)a, 0, 2);
}

/* Row q's source lines into every cache level, when its index is in
 * range. (Non-temporal prefetches looked faster in runs alternating with
 * these, whose lines they found in L3; alone, they left a table's rows out
 * of L3 and read every row from memory again: 512-byte rows at half the
 * speed.) */
static inline void prefetch_row(const RowSrc *g, int64_t q, size_t len)
{
	int64_t j = row_index(g, q);
	if (j < g->lo || j > g->hi)
		return;
	prefetch_lines(row_at(g, q, j), len);
}

/* Rows [r0, r0 + n) of a fast_rows gather copied while their indices are
 * in range, each after a prefetch of the row rg->ahead rows on (below
 * rg->end): in copy_gathered_rows's AVX2 loop where it takes them, else
 * row by row here. Returns the first row whose index is out of range, or
 * r0 + n. A function of its own with few live values: the loop inlined
 * into rows_task spilled registers to the stack, stores that queue behind
 * the copies' stores to output lines not yet in cache and leave fewer rows
 * in flight (64-byte rows in L3 on a Xeon: 1.2x). */
static __attribute__((noinline)) int64_t rows_span(const RowSrc *g, const RowGather *rg, int64_t r0, int64_t n)
{
	int64_t done = copy_gathered_rows(rg, r0, n);
	if (done >= 0)
		return done;
	for (int64_t r = r0; r < r0 + n; r++) {
		if (r + rg->ahead < rg->end)
			prefetch_row(g, r + rg->ahead, rg->len);
		int64_t j = row_index(g, r);
		if (j < g->lo || j > g->hi)
			return r;
		copy_row(rg->op + r * rg->ostep, row_at(g, r, j), rg->len, rg->stream);
	}
	return r0 + n;
}

/* The common row gather, rows [from, to): one row variable, the index
 * straight from its tensor, each row contiguous on both sides (len bytes).
 * Per row: the index, its check, one copy (streamed for a big output), and
 * the row row_ahead() rows on prefetched (the first ones before the
 * loop), 64 rows to a rows_span call. A bad index goes through the point
 * evaluator, which reports it as the interpreter would. */
static void fast_rows(const X *x, Point *pt, int64_t from, int64_t to, size_t len)
{
	const Ins *ld = &x->p->ins[x->p->result];
	const XOp *dst = &x->op[0];
	const RowSrc g = row_src(x);
	int rv = x->row_var[0];
	int64_t *var = &pt->val[x->ps->vars[rv].var->id];
	int64_t es = g.es, pstride = x->pstride[rv], ostep = dst->stride[row_axis(x)] * es;
	char *out = dst->base + dst->start * es;
	/* the AVX2 loop's byte form: i64 and i32 indices, the table's row not
	 * moving with the row variable */
	int iw = g.sstep == 0 && (g.io->dt == ATHENE_I64 || g.io->dt == ATHENE_I32) ? dt_bits(g.io->dt) / 8 : 0;
	/* streamed only in whole lines: a row that shares a line with the next
	 * (NumPy's arrays are 16-byte aligned) mixes plain and streamed stores
	 * in it, and 512-byte rows at 16 bytes off a line ran 2.9x slower
	 * streamed than plain (in L3, on a Xeon) */
	bool stream = x->stream && (uintptr_t)out % 64 == 0 && ostep % 64 == 0 && len % 64 == 0;
	RowGather rg = {g.io->base + g.ibase * iw, g.table, out, g.istep * iw, g.sbase * es, g.istride * es, ostep,
	                g.lo, g.mod, row_ahead(len), to, (uint64_t)g.hi - (uint64_t)g.lo, len, iw, stream};
	for (int64_t q = from; q < from + rg.ahead && q < to; q++) /* the rows the loop's prefetches do not reach */
		prefetch_row(&g, q, len);
	for (int64_t r = from; r < to && r * pstride <= atomic_load(&x->err->first);) {
		int64_t stop = (r | 63) + 1 < to ? (r | 63) + 1 : to;
		r = rows_span(&g, &rg, r, stop - r);
		if (r == stop)
			continue;
		*var = r; /* the general form, and the interpreter's error */
		pt->pos = r * pstride;
		point_scope(pt, 0);
		if (pt->bad)
			break;
		int64_t value = pt->reg[ld->atom_reg[0]].i;
		if (value < g.lo || value > g.hi) { /* legal here, maybe not along the row */
			atomic_store(&((X *)x)->scalar, true);
			break;
		}
		copy_row(out + r * ostep, row_at(&g, r, value), len, stream);
		r++;
	}
	if (stream)
		copy_fence();
}

/* A row of a gather as a box: the dims that are no row variable's (marked
 * false in row_dim), their extents and byte strides on both sides; *dense
 * the row's bytes, *flat whether it is contiguous on both sides. Returns
 * the box's rank. */
static int row_box(const X *x, bool *row_dim, int64_t *shape, int64_t *ds, int64_t *ss, int64_t *dense, bool *flat)
{
	const XOp *dst = &x->op[0], *src = &x->op[x->p->ins[x->p->result].operand];
	int n = 0;
	for (int k = 0; k < x->nd; k++) {
		row_dim[k] = false;
		for (int r = 0; r < x->nrow; r++)
			row_dim[k] |= x->d[k].var == x->row_var[r];
	}
	for (int k = 0; k < x->nsd[0]; k++) {
		int d = x->sd[0][k];
		if (row_dim[d])
			continue;
		shape[n] = x->d[d].n;
		ds[n] = dst->stride[d] * (int64_t)dst->es;
		ss[n++] = src->stride[d] * (int64_t)src->es;
	}
	*dense = (int64_t)dst->es;
	*flat = true;
	for (int k = n - 1; k >= 0; k--) {
		*flat &= shape[k] <= 1 || (ds[k] == *dense && ss[k] == *dense);
		*dense *= shape[k];
	}
	return n;
}

/* How the gather reads its index and its rows (set once, in setup). */
static void row_form(X *x)
{
	int64_t shape[XMAXD], ds[XMAXD], ss[XMAXD], dense;
	bool row_dim[XMAXD], flat;
	const Ins *ld = &x->p->ins[x->p->result];
	row_box(x, row_dim, shape, ds, ss, &dense, &flat);
	x->row_direct = direct_index(x, ld, &x->row_io, &x->row_mod) && x->op[ld->operand].op->view->ngat == 1;
	x->fast = x->row_direct && x->nrow == 1 && flat;
	x->row_len = (size_t)dense;
}

/* Row r of a gather through the point evaluator, as fast_rows hands it a
 * row whose index is out of its atom's range: true when that is an error
 * (then in x->err, the interpreter's). Nothing is written. */
static bool row_fails(const X *x, int64_t r)
{
	Scalar sc = {x->in, x->pd, x->p, x->storage, x->lets, x->err, 0};
	Point pt = {.s = &sc, .noread = &x->p->ins[x->p->result]};
	pt.val = calloc((size_t)x->in->k->vars.n + 1, sizeof *pt.val);
	pt.reg = calloc((size_t)x->p->n + 1, sizeof *pt.reg);
	if (!pt.val || !pt.reg)
		run_error(x->err, 0, x->pd->stmt->sp, "cannot allocate the executor's registers");
	else {
		pt.val[x->ps->vars[x->row_var[0]].var->id] = r;
		pt.pos = r * x->pstride[x->row_var[0]];
		point_scope(&pt, 0);
	}
	free(pt.val);
	free(pt.reg);
	return !pt.val || !pt.reg || pt.bad;
}

/* The index pre-read of a fast_rows gather, a task per gather task. */
typedef struct {
	RowSrc g;
	int64_t rows, rt;
	atomic_bool odd; /* some index out of [lo, hi] */
} RowCheck;

/* Rows [from, to): is every index within [lo, hi] after the wrap? i64
 * indices read in order, the common case, go four to a vector compare
 * (i64_out_of). */
static bool indices_in(const RowSrc *g, int64_t from, int64_t to)
{
	if (g->io->dt == ATHENE_I64 && g->istep == 1)
		return !i64_out_of(g->io->base + (g->ibase + from) * 8, to - from, g->mod, g->lo, g->hi);
	for (int64_t r = from; r < to; r++) {
		int64_t v = row_index(g, r);
		if (v < g->lo || v > g->hi)
			return false;
	}
	return true;
}

static void check_task(void *arg, int64_t t, int worker)
{
	(void)worker;
	RowCheck *c = arg;
	int64_t to = (t + 1) * c->rt < c->rows ? (t + 1) * c->rt : c->rows;
	if (!atomic_load(&c->odd) && !indices_in(&c->g, t * c->rt, to))
		atomic_store(&c->odd, true);
}

/* Every index of a fast_rows gather, read (by the pool, in the gather's
 * tasks) before any row moves: false when one is bad (the error in
 * x->err), so that a bad index stops the run with the output untouched.
 * An index out of its atom's range goes to the point evaluator, as in
 * fast_rows, rows in order, so the error is the first row's. */
static bool rows_ok(const X *x, int nw)
{
	RowCheck c = {row_src(x), x->rows, x->row_task, false};
	pool_run(i64_ceil_div(x->rows, x->row_task), check_task, &c, nw);
	if (!atomic_load(&c.odd))
		return true;
	for (int64_t r = 0; r < x->rows; r++)
		if (!indices_in(&c.g, r, r + 1) && row_fails(x, r))
			return false;
	return true;
}

static void rows_task(void *arg, int64_t t, int worker)
{
	(void)worker;
	const X *x = arg;
	const PlanStmt *ps = x->ps;
	const Ins *ld = &x->p->ins[x->p->result];
	const XOp *dst = &x->op[0], *src = &x->op[ld->operand];
	const View *v = src->op->view;
	Scalar sc = {x->in, x->pd, x->p, x->storage, x->lets, x->err, 0};
	Point pt = {.s = &sc, .noread = ld};
	pt.val = calloc((size_t)x->in->k->vars.n + 1, sizeof *pt.val);
	pt.reg = calloc((size_t)x->p->n + 1, sizeof *pt.reg);
	if (!pt.val || !pt.reg) {
		run_error(x->err, 0, x->pd->stmt->sp, "cannot allocate the executor's registers");
		goto done;
	}
	int64_t rt = x->row_task, from = t * rt, end = from + rt < x->rows ? from + rt : x->rows;
	if (x->fast) {
		fast_rows(x, &pt, from, end, x->row_len);
		goto done;
	}
	int64_t shape[XMAXD], ds[XMAXD], ss[XMAXD], coord[XMAXD] = {0}, dense;
	bool row_dim[XMAXD], flat;
	int n = row_box(x, row_dim, shape, ds, ss, &dense, &flat);
	const XOp *io = x->row_io;
	int64_t mod = x->row_mod;
	bool direct = x->row_direct;
	for (int64_t row0 = from; row0 < end && !pt.bad; row0 += ROW_BATCH) {
		/* a batch: every row's index first, its lines prefetched, then the copies */
		char *dp[ROW_BATCH];
		const char *spp[ROW_BATCH];
		int nb = 0;
		for (int64_t row = row0; row < end && row < row0 + ROW_BATCH; row++) {
			int64_t q = row, pos = 0, doff = dst->start, soff = src->start;
			if (x->nrow == 1) /* the common case, without a division */
				pt.val[ps->vars[x->row_var[0]].var->id] = row;
			for (int r = x->nrow - 1; r >= 0 && x->nrow > 1; r--) {
				const PlanVar *pv = &ps->vars[x->row_var[r]];
				pt.val[pv->var->id] = q % pv->n;
				q /= pv->n;
			}
			for (int i = 0; i < ps->nlhs; i++)
				pos += pt.val[ps->vars[i].var->id] * x->pstride[i];
			if (pos > atomic_load(&x->err->first))
				break;
			pt.pos = pos;
			int64_t ioff = direct ? io->start : 0, idx = 0;
			for (int k = 0; k < x->nd; k++)
				if (row_dim[k]) {
					coord[k] = pt.val[ps->vars[x->d[k].var].var->id];
					doff += coord[k] * dst->stride[k];
					soff += coord[k] * src->stride[k];
					ioff += direct ? coord[k] * io->stride[k] : 0;
				}
			if (direct) { /* the index straight from its tensor, then the checks */
				idx = dt_load_i(io->base, io->dt, ioff);
				if (mod && idx < 0)
					idx += mod;
			}
			const Sym *at = v->gat[0].atom;
			if (!direct || idx < at->lo || idx > at->hi) {
				point_scope(&pt, 0); /* the general form, and the interpreter's error */
				if (pt.bad)
					break;
			}
			bool inside = true;
			for (int g = 0; g < v->ngat; g++) {
				const VAxis *a = &v->ax[v->gat[g].axis];
				int k = 0;
				while (k < ld->natoms && ld->atom[k]->p != v->gat[g].atom->p)
					k++;
				int64_t value = direct ? idx : pt.reg[ld->atom_reg[k]].i;
				inside &= value >= v->gat[g].atom->lo && value <= v->gat[g].atom->hi;
				soff += (a->start + a->step * (value - v->gat[g].atom->lo)) * a->stride;
			}
			if (!inside) { /* legal at this point (a flat offset's other terms left room), maybe
			                * not at the row's others: the statement runs point by point */
				atomic_store(&((X *)x)->scalar, true);
				pt.bad = true;
				break;
			}
			dp[nb] = dst->base + doff * (int64_t)dst->es;
			spp[nb] = src->base + soff * (int64_t)src->es;
			if (flat)
				prefetch_lines(spp[nb], (size_t)dense);
			nb++;
		}
		for (int i = 0; i < nb; i++)
			if (flat)
				memcpy(dp[i], spp[i], (size_t)dense);
			else
				box_copy(dp[i], ds, spp[i], ss, shape, n, dst->es, 0, false);
	}
done:
	free(pt.val);
	free(pt.reg);
}

/* A zeroed X but for its dims by scope (sd), which make_dims writes and
 * everything reads below nsd: 12 of its 14 KiB, which a small kernel's run
 * spent a fifth of its time clearing. */
static X *x_new(void)
{
	X *x = vm_stash_take(sizeof *x);
	if (x) {
		size_t at = offsetof(X, sd), end = at + sizeof x->sd;
		memset(x, 0, at);
		memset((char *)x + end, 0, sizeof *x - end);
	}
	return x;
}

static void x_release(X *x)
{
	if (!x)
		return;
	if (x->w)
		vm_free_workers(x, x->nw);
	for (int j = 0; x->op && j < x->pd->acc.n; j++)
		free(x->op[j].piece);
	free(x->op);
	free(x->opreg);
	free(x->jb);
	vm_stash_give(x, sizeof *x);
}

/* A statement of at most KEEP_POINTS output points keeps its state (X, its
 * workers' registers and boxes) in the instance between runs when that
 * holds at most KEEP_BYTES, so that a small kernel's run does not build it
 * anew each time (most of its cost: 1.0 against 0.2 us for 64 elements); a
 * larger one's runs are long beside that, and it frees its state. */
#define KEEP_POINTS ((int64_t)1 << 16)
#define KEEP_BYTES ((int64_t)1 << 20) /* also the lets' bound (exec_run) */
/* What every instance together keeps, at most: past it, runs free their
 * state as a large statement's do (a process holding thousands of small
 * instances, a test suite's, would otherwise hold a MiB each). */
#define KEEP_TOTAL ((int64_t)64 << 20)
static atomic_llong kept_total;

/* Counts n more bytes kept (n < 0: fewer); false, counting nothing, when
 * that would pass KEEP_TOTAL. */
static bool keep_count(int64_t n)
{
	if (atomic_fetch_add(&kept_total, n) + n <= KEEP_TOTAL || n <= 0)
		return true;
	atomic_fetch_sub(&kept_total, n);
	return false;
}

/* The state statement si kept from an earlier run, if it still fits: the
 * same plan, as many threads. NULL when there is none, or when another
 * thread's run has it. */
static X *x_take(const Inst *in, int si)
{
	X *x = atomic_exchange(&in->run_state[si], NULL);
	if (x)
		keep_count(-x->held);
	return x;
}

static X *x_kept(const Inst *in, int si, int nw)
{
	X *x = x_take(in, si);
	if (x && (x->ps != &in->plan[cpu_target.id]->st[si] || x->nw != nw)) {
		x_release(x);
		x = NULL;
	}
	return x;
}

/* The points of a planned statement's first n variables (INT64_MAX past it). */
static int64_t stmt_points(const PlanStmt *ps, int n)
{
	int64_t points = 1;
	for (int i = 0; i < n; i++)
		if (!i64_mul(points, ps->vars[i].n, &points))
			return INT64_MAX;
	return points;
}

static void x_keep(const Inst *in, int si, X *x)
{
	int64_t points = stmt_points(x->ps, x->ps->nlhs);
	x->held = (int64_t)(sizeof *x + vm_workers_bytes(x));
	if (points <= KEEP_POINTS && x->held <= KEEP_BYTES && keep_count(x->held)) {
		x = atomic_exchange(&in->run_state[si], x);
		if (x)
			keep_count(-x->held);
	}
	x_release(x);
}

static void free_lets(const Inst *in, void **lets);
static void **lets_take(const Inst *in);

void exec_release(Inst *in)
{
	for (int i = 0; i < in->nplanned; i++)
		x_release(x_take(in, i));
	free_lets(in, lets_take(in));
}

/* A statement whose work is at most ALONE_WORK runs on the calling thread:
 * waking the pool's workers costs more than they would save. Its work is
 * its points (output and reduction variables together) times the
 * instructions its body evaluates at each (constants aside; a copy's one
 * load counts one), about 0.3 ns each on the register machine: a copy of
 * 16384 floats runs alone, a causal softmax's row statements of 8192
 * points (11 to 15 instructions each) on every thread. (Beside torch,
 * athene runs on torch's OpenMP team, so the two never spin on the same
 * cores; measured in docs/torch.md.) */
#define ALONE_WORK ((int64_t)1 << 14)
/* The same for a compiled statement, whose instructions cost a few times
 * less (exec.c, run_compiled). */
#define ALONE_COMPILED ((int64_t)1 << 16)

/* exp, sigmoid, tanh and erf count FUNC_WORK instructions each (their
 * vector forms take about 20 operations) */
#define FUNC_WORK 8

static bool alone(const Inst *in, int si, bool compiled)
{
	const PlanStmt *ps = &in->plan[cpu_target.id]->st[si];
	const Prog *p = in->prog[si];
	int64_t work, ins = p->nvalues + (int64_t)(FUNC_WORK - 1) * p->nfuncs;
	return i64_mul(stmt_points(ps, ps->nvars), ins > 0 ? ins : 1, &work) &&
	       work <= (compiled ? ALONE_COMPILED : ALONE_WORK);
}

/* Statement si laid out for nw workers (kept from an earlier run, or
 * anew) in *out; false when it is no box statement or memory ran out. */
static bool x_for(const Inst *in, int si, int nw, RunErr *err, X **out)
{
	X *x = *out = x_kept(in, si, nw);
	if (x)
		return true;
	if (!(x = *out = x_new()))
		return false;
	x->nw = nw;
	return setup(x, in, si, err) && (x->w = vm_workers(nw));
}

/* After a run of statement si (ran: it did run): kept for the next run,
 * or freed. */
static void x_done(const Inst *in, int si, X *x, bool ran, const RunErr *err)
{
	if (ran && atomic_load(&err->first) == INT64_MAX)
		x_keep(in, si, x);
	else
		x_release(x);
}

/* ---- compiled statements (jit.c) ---- */

/* The compiled code of the instance's statements: at its first run, each
 * statement the generator writes goes into one source, queued for the
 * compiler (the slot after the lets' in run_state). */
static const JitEntry *jit_of(const Inst *in)
{
	_Atomic(void *) *slot = &in->run_state[in->nplanned + 1];
	void *e = atomic_load_explicit(slot, memory_order_acquire);
	if (e)
		return e;
	Buf src = {0};
	bool *has = calloc((size_t)in->nplanned + 1, sizeof *has);
	RunErr err = {.pos = INT64_MAX};
	bool avx2 = jit_avx2();
	for (int i = 0; has && jit_mode() && i < in->nplanned; i++) {
		if (in->plan[cpu_target.id]->st[i].empty || in->planned[i].stmt->at)
			continue;
		X *x = x_new(); /* laid out, never bound: nothing runs */
		char name[32], why[160];
		snprintf(name, sizeof name, "athene_s%d", i);
		why[0] = 0;
		has[i] = x && setup(x, in, i, &err) && jit_stmt(&src, x, avx2, name, why, sizeof why);
		if (!has[i] && getenv("ATHENE_JIT_WHY"))
			fprintf(stderr, "athene: %s, statement %d ('%s'): not compiled: %s\n", in->k->name, i,
			        in->planned[i].stmt->t->name, why[0] ? why : "no box statement");
		x_release(x);
	}
	e = has ? jit_submit(&src, avx2, in->nplanned, has) : NULL;
	free(has);
	buf_free(&src);
	if (!e)
		return NULL;
	void *none = NULL;
	if (!atomic_compare_exchange_strong(slot, &none, e))
		e = none; /* another run's: the same source, the same entry */
	return e;
}

/* Statement si's compiled function, NULL until it is loaded or where the
 * generator declined it (copies and row gathers among them). */
static JitFn stmt_fn(const Inst *in, int si)
{
	const JitEntry *e = atomic_load_explicit(&in->run_state[in->nplanned + 1], memory_order_acquire);
	return e ? jit_fn(e, si) : NULL;
}

typedef struct {
	const X *x;
	JitFn f;
	int64_t per, n;
} JitRun;

static void jit_task(void *arg, int64_t t, int worker)
{
	(void)worker;
	const JitRun *j = arg;
	int64_t lo = t * j->per, hi = lo + j->per < j->n ? lo + j->per : j->n;
	j->f(jit_runtime(), j->x->jb, lo, hi);
}

/* Statement x through its compiled function f, its first dim cut in tasks
 * (4 a thread; lanes in whole chunks of 8 where that dim is the lanes'). */
static void run_compiled(const X *x, JitFn f, int nw)
{
	JitRun j = {x, f, 1, x->nsd[0] ? x->d[x->sd[0][0]].n : 1};
	if (nw > 1) {
		j.per = i64_ceil_div(j.n, 4 * (int64_t)nw);
		if (x->nsd[0] == 1)
			j.per = i64_ceil_div(j.per, 8) * 8;
	} else {
		j.per = j.n > 0 ? j.n : 1;
	}
	jit_count_run();
	pool_run(i64_ceil_div(j.n, j.per), jit_task, &j, nw);
}

/* Runs planned statement si through its plan; false when it is no box
 * statement (the caller runs it point by point). With untouched, a
 * fast_rows gather reads all its indices before it moves a row. */
static bool exec_stmt(const Inst *in, int si, void *const *storage, void **lets, RunErr *err, bool untouched)
{
	JitFn f = stmt_fn(in, si);
	int nw = alone(in, si, f != NULL) ? 1 : pool_threads();
	X *x;
	bool ok = x_for(in, si, nw, err, &x);
	if (ok)
		bind_run(x, storage, lets, err);
	if (ok && f)
		run_compiled(x, f, nw);
	else if (ok && x->copy)
		copy_stmt(x);
	else if (ok && x->rows) {
		/* long tasks, so each task's first rows (which its loop's prefetches
		 * do not reach) are few, but at least 4 per thread */
		int64_t per = i64_ceil_div(x->rows, 4 * (int64_t)nw);
		x->row_task = per < ROW_BATCH ? ROW_BATCH : per < ROWS_PER_TASK ? per : ROWS_PER_TASK;
		atomic_store(&x->scalar, false);
		if (!untouched || !x->fast || rows_ok(x, nw))
			pool_run(i64_ceil_div(x->rows, x->row_task), rows_task, x, nw);
		ok = !atomic_load(&x->scalar); /* else run_scalar, whose checks are every point's */
	}
	else if (ok)
		pool_run(vm_block_tasks(x), vm_block_task, x, nw);
	x_done(in, si, x, ok, err);
	return ok;
}

/* Can planned statement si fail in this binding? A max, min, argmax or
 * argmin fails only over an empty domain. */
static bool may_fail(const Inst *in, int si)
{
	const Prog *p = in->prog[si];
	for (int i = 0; i < p->n; i++) {
		const Ins *x = &p->ins[i];
		bool empty = false;
		for (int v = 0; x->kind == I_REDUCE && v < p->scopes[x->inner].nvars; v++)
			empty |= var_extent(in, p->scopes[x->inner].vars[v]) <= 0;
		if (ins_can_fail(p, x) && (x->kind != I_REDUCE || empty))
			return true;
	}
	return false;
}

/* Statements run in order, so a failing run leaves the outputs as they
 * were when no statement that can fail comes after one that writes an
 * output, and each that can fail writes a let or is a fast_rows gather
 * (which, with untouched, fails before it writes). */
bool exec_clean_errors(const Inst *in)
{
	bool clean = true, wrote = false;
	RunErr err = {.pos = INT64_MAX};
	for (int i = 0; clean && i < in->nplanned; i++) {
		bool out = in->planned[i].stmt->t->role == ROLE_OUT;
		if (in->plan[cpu_target.id]->st[i].empty)
			continue;
		if (in->planned[i].stmt->at) { /* a scatter checks every point before it writes */
			clean = !wrote;
			wrote = true;
			continue;
		}
		if (may_fail(in, i) && (wrote || out)) {
			X *x = x_new(); /* laid out, never bound: nothing runs */
			clean = !wrote && x && setup(x, in, i, &err) && x->fast;
			x_release(x);
		}
		wrote |= out;
	}
	return clean;
}

/* ---- bands: statements that run row band by row band ---- */

/* Consecutive statements whose first output variable ranges over the same
 * R rows, none of which can fail, where each reads what an earlier one of
 * them wrote (a let) only in its own rows, run band by band: each pool
 * task takes a band of rows through all of them, so that a reduction's
 * rows are still in the cache when its epilogue reads them again (a
 * softmax or a norm of (8192, 1024) read its 32 MiB input from memory once
 * per statement). A band's statements run in order; every point of every
 * statement runs once, as in statement order, and a statement's points
 * depend on no other band's (outputs are not read in the group, lets only
 * in their own rows, inputs never written: run_band checks that no output
 * overlaps an input). */
#define BAND_MAX 16

/* Does op, an operand of a statement of the group, touch only rows of its
 * let by the statement's first variable: its array's outer axis driven by
 * var 0 alone, from 0 step 1 over the let's R rows of stride storage / R? */
static bool row_local(const Inst *in, const PlanOperand *op, int64_t rows)
{
	const PlanAxis *a = &op->ax[0];
	return op->cls != VIEW_ELEM && !op->prefetch && !op->piece && op->naxes >= 1 && a->kind == VA_ITER &&
	       a->var == 0 && a->start == 0 && a->step == 1 && a->size == rows && a->place == 0 && !a->widened &&
	       !a->masked && a->stride * rows == tensor_layout(in, op->t)->storage;
}

static bool written_by(const Tensor *const *w, int n, const Tensor *t)
{
	for (int k = 0; k < n; k++)
		if (w[k] == t)
			return true;
	return false;
}

/* The end (exclusive) of the group of statements from si, or si when
 * fewer than two form one or all are small (alone: they run on the
 * calling thread, one after the other). */
static int band_end(const Inst *in, int si)
{
	const Plan *plan = in->plan[cpu_target.id];
	const Tensor *wrote[BAND_MAX];
	int64_t rows = -1;
	bool large = false;
	int j = si;
	if (in->nplanned - si < 2)
		return si; /* a group has two statements at least */
	for (; j < in->nplanned && j - si < BAND_MAX; j++) {
		const PlanStmt *ps = &plan->st[j];
		const Prog *p = in->prog[j];
		if (ps->empty || ps->scatter || in->planned[j].stmt->at || ps->nlhs < 1 || ps->vars[0].reduce ||
		    ps->vars[0].split || may_fail(in, j) || (rows >= 0 && ps->vars[0].n != rows) ||
		    (p->n == 1 && p->ins[p->result].kind == I_LOAD)) /* a copy (copy_stmt) */
			break;
		rows = ps->vars[0].n;
		const PlanOperand *store = ps->ops.v[0];
		bool ok = !written_by(wrote, j - si, store->t) && (store->t->role != ROLE_LET || row_local(in, store, rows));
		for (int a = 1; a < ps->ops.n && ok; a++) {
			const PlanOperand *op = ps->ops.v[a];
			ok = op->cls != VIEW_ELEM && !op->view->ngat &&
			     (op->t->role == ROLE_IN ||
			      (op->t->role == ROLE_LET && (!written_by(wrote, j - si, op->t) || row_local(in, op, rows))));
		}
		if (!ok)
			break;
		wrote[j - si] = store->t;
		large |= !alone(in, j, stmt_fn(in, j) != NULL);
	}
	return j - si >= 2 && large ? j : si;
}

typedef struct {
	X *x[BAND_MAX];
	JitFn f[BAND_MAX];
	int n;
	int64_t rows, band;
} Band;

static atomic_llong banded;

int64_t exec_banded(void)
{
	return atomic_load(&banded);
}

static void band_task(void *arg, int64_t t, int worker)
{
	const Band *b = arg;
	int64_t r0 = t * b->band, r1 = r0 + b->band < b->rows ? r0 + b->band : b->rows;
	for (int k = 0; k < b->n; k++)
		if (b->f[k])
			b->f[k](jit_runtime(), b->x[k]->jb, r0, r1);
		else
			vm_run_rows(b->x[k], r0, r1, worker);
}

/* Does an output of group b overlap an input it reads, in this run's
 * storage? */
static bool band_overlaps(const Inst *in, void *const *storage, const Band *b)
{
	for (int m = 0; m < b->n; m++) {
		const Tensor *o = ((const PlanOperand *)b->x[m]->ps->ops.v[0])->t;
		if (o->role != ROLE_OUT) /* a let: storage holds the parameters only */
			continue;
		int64_t no = tensor_layout(in, o)->storage * (int64_t)athene_dtype_size(o->dt);
		const char *po = storage[o->index];
		for (int k = 0; k < b->n; k++)
			for (int a = 1; a < b->x[k]->ps->ops.n; a++) {
				const Tensor *t = ((const PlanOperand *)b->x[k]->ps->ops.v[a])->t;
				if (t->role != ROLE_IN)
					continue;
				int64_t nt = tensor_layout(in, t)->storage * (int64_t)athene_dtype_size(t->dt);
				const char *pt = storage[t->index];
				if (no > 0 && nt > 0 && po < pt + nt && pt < po + no)
					return true;
			}
	}
	return false;
}

/* Runs statements [si, se) (band_end) band by band; false, having run
 * nothing, when one of them is no statement of the register machine
 * (a copy, a row gather, a point-by-point one) or an output overlaps an
 * input. */
static bool run_band(const Inst *in, int si, int se, void *const *storage, void **lets, RunErr *err)
{
	int nw = pool_threads();
	Band b = {.n = se - si, .band = INT64_MAX};
	bool ok = true;
	for (int k = 0; k < b.n && ok; k++)
		ok = x_for(in, si + k, nw, err, &b.x[k]) && !b.x[k]->copy && !b.x[k]->rows;
	ok = ok && !band_overlaps(in, storage, &b);
	if (ok) {
		for (int k = 0; k < b.n; k++) {
			int64_t blk = b.x[k]->ps->vars[0].block;
			b.band = blk > 0 && blk < b.band ? blk : b.band;
			bind_run(b.x[k], storage, lets, err);
			b.f[k] = stmt_fn(in, si + k);
			if (b.f[k])
				jit_count_run();
		}
		b.rows = b.x[0]->ps->vars[0].n;
		int64_t most = i64_ceil_div(b.rows, 4 * (int64_t)nw); /* 4 bands a thread at least */
		b.band = b.band < most ? b.band : most < 1 ? 1 : most;
		pool_run(i64_ceil_div(b.rows, b.band), band_task, &b, nw);
		atomic_fetch_add(&banded, 1);
	}
	for (int k = 0; k < b.n; k++)
		x_done(in, si + k, b.x[k], ok, err);
	return ok;
}

/* ---- the whole run ---- */

static size_t let_bytes(const Inst *in, const Tensor *t)
{
	size_t n = (size_t)tensor_layout(in, t)->storage * athene_dtype_size(t->dt);
	return n ? n : 1;
}

/* Materialised lets: row-major buffers of their own, for this run. */
/* Into *out before any can fail, so that the caller frees what was made. */
static void alloc_lets(const Inst *in, Diag *d, void ***out)
{
	const Kernel *k = in->k;
	void **lets = *out = calloc((size_t)k->lets.n + 1, sizeof *lets);
	if (!lets)
		error_plain(d, "cannot allocate the executor's state");
	for (int i = 0; i < k->lets.n; i++) {
		const Tensor *t = k->lets.v[i];
		int64_t bytes;
		if (in->fused[i])
			continue;
		if (!i64_mul(tensor_layout(in, t)->storage, (int64_t)athene_dtype_size(t->dt), &bytes))
			error_at(d, t->def->sp, "the intermediate '%s' needs more than 2^63 bytes", t->name);
		if (!(lets[i] = big_alloc(let_bytes(in, t))))
			error_at(d, t->def->sp, "cannot allocate %lld bytes for the intermediate '%s'", (long long)bytes, t->name);
	}
}

static void free_lets(const Inst *in, void **lets)
{
	for (int i = 0; lets && i < in->k->lets.n; i++) {
		const Tensor *t = in->k->lets.v[i];
		if (lets[i])
			big_free(lets[i], let_bytes(in, t));
	}
	free(lets);
}

typedef struct {
	const Inst *in;
	void *const *storage;
	Diag *d;
	bool untouched; /* row gathers read their indices first */
	void **lets;
	RunErr err;
} Run;

/* The bytes of the lets a run maps. A finished run keeps them in the
 * instance (its state's last slot) for the next when they hold at most
 * KEEP_BYTES: a small kernel's run would spend more in mapping them than
 * in its loops. */
static int64_t lets_bytes(const Inst *in)
{
	size_t n = 0;
	for (int i = 0; i < in->k->lets.n; i++)
		if (!in->fused[i])
			n += let_bytes(in, in->k->lets.v[i]);
	return (int64_t)n;
}

/* The lets an earlier run kept, taken out of the instance (NULL: none). */
static void **lets_take(const Inst *in)
{
	void **lets = atomic_exchange(&in->run_state[in->nplanned], NULL);
	if (lets)
		keep_count(-lets_bytes(in));
	return lets;
}

static void run_body(void *arg)
{
	Run *r = arg;
	const Inst *in = r->in;
	if (!(r->lets = lets_take(in)))
		alloc_lets(in, r->d, &r->lets);
	jit_of(in);
	for (int i = in->k->nin; i < in->k->params.n; i++) {
		const Tensor *t = in->k->params.v[i];
		advise_fresh(r->storage[i], (size_t)tensor_layout(in, t)->storage * athene_dtype_size(t->dt));
	}
	for (int i = 0; i < in->nplanned; i++) {
		const PlanStmt *ps = &in->plan[cpu_target.id]->st[i];
		int se = band_end(in, i);
		if (se > i && run_band(in, i, se, r->storage, r->lets, &r->err)) {
			i = se - 1;
			continue;
		}
		if (ps->empty)
			continue;
		if (in->planned[i].stmt->at)
			run_scatter(in, i, r->storage, r->lets, &r->err);
		else if (!exec_stmt(in, i, r->storage, r->lets, &r->err, r->untouched))
			run_scalar(in, i, r->storage, r->lets, &r->err);
		if (atomic_load(&r->err.first) != INT64_MAX) {
			diag_at(r->d, r->err.sp, "%s", r->err.msg);
			longjmp(*r->d->jmp, 1);
		}
	}
}

void exec_run(const Inst *in, void *const *storage, Diag *d, bool untouched)
{
	Run r = {in, storage, d, untouched, NULL, {.pos = INT64_MAX}};
	pthread_mutex_init(&r.err.mu, NULL);
	atomic_init(&r.err.first, INT64_MAX);
	int rc = protect(d, run_body, &r);
	int64_t bytes = lets_bytes(in);
	if (!rc && r.lets && bytes <= KEEP_BYTES && keep_count(bytes)) {
		r.lets = atomic_exchange(&in->run_state[in->nplanned], r.lets);
		if (r.lets)
			keep_count(-bytes);
	}
	free_lets(in, r.lets);
	pthread_mutex_destroy(&r.err.mu);
	if (rc)
		longjmp(*d->jmp, 1);
}
