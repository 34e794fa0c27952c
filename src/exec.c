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
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- errors ---- */

/* A run's error state, shared by its threads. */
typedef struct {
	pthread_mutex_t mu;
	atomic_llong first; /* smallest failing output position, INT64_MAX: none */
	int64_t pos;
	Span sp;
	char msg[1024];
} RunErr;

static void run_error(RunErr *e, int64_t pos, Span sp, const char *msg)
{
	pthread_mutex_lock(&e->mu);
	if (pos < e->pos) {
		e->pos = pos;
		e->sp = sp;
		snprintf(e->msg, sizeof e->msg, "%s", msg);
		atomic_store(&e->first, pos);
	}
	pthread_mutex_unlock(&e->mu);
}

/* "out[3, 0]": the output element at the statement's variables' values. */
static void where_str(char *s, size_t n, const Stmt *st, const int64_t *val)
{
	int len = snprintf(s, n, "%s[", st->t->name);
	for (int d = 0; d < st->nlhs && len > 0 && (size_t)len < n; d++)
		len += snprintf(s + len, n - (size_t)len, "%s%lld", d ? ", " : "", (long long)val[st->lhs[d]->id]);
	if (len > 0 && (size_t)len < n)
		snprintf(s + len, n - (size_t)len, "]");
}

/* The interpreter's message for a bad data-dependent subscript or offset:
 * atom is the offending atom of load `ld`, value its value (raw: the value
 * before wrap, when the subscript is a wrap). */
static void exec_index_error(RunErr *e, const Inst *in, const Stmt *st, const int64_t *val, int64_t pos,
                             const Node *ld, const Node *sub, int64_t value, int64_t raw, int64_t m)
{
	char at[160], msg[900];
	if (!sub)
		sub = ld->args[0];
	where_str(at, sizeof at, st, val);
	const Layout *l = tensor_layout(in, ld->t);
	int dim = -1;
	for (int d = 0; ld->kind == N_LOAD && d < ld->nargs; d++)
		if (ld->args[d] == sub)
			dim = d;
	if (dim < 0)
		snprintf(msg, sizeof msg,
		         "kernel %s: flat offset %lld (storage element %lld) is out of range for the storage of '%s' (%lld elements) at %s",
		         in->k->name, (long long)(value - l->offset), (long long)value, ld->t->name, (long long)l->storage, at);
	else if (sub->kind == N_OP && sub->op == OP_WRAP)
		snprintf(msg, sizeof msg,
		         "kernel %s: index %lld out of range for dim %d of '%s' (size %lld; wrap() accepts [%lld, %lld)) at %s",
		         in->k->name, (long long)raw, dim, ld->t->name, (long long)l->shape[dim], (long long)-m, (long long)m, at);
	else
		snprintf(msg, sizeof msg, "kernel %s: index %lld out of range for dim %d of '%s' (size %lld) at %s", in->k->name,
		         (long long)value, dim, ld->t->name, (long long)l->shape[dim], at);
	run_error(e, pos, dim < 0 ? ld->args[0]->sp : sub->sp, msg);
}

/* An op whose evaluation can fail: index arithmetic (exact), and wrap()
 * with a modulus below 1. False with the message (and its place). */
static bool checked_op(const Ins *x, const Val *v, Val *out, const char **msg, Span *sp)
{
	if (x->op == OP_WRAP && v[1].i < 1) {
		static _Thread_local char buf[96];
		snprintf(buf, sizeof buf, "wrap() needs a positive modulus, not %lld", (long long)v[1].i);
		*msg = buf;
		*sp = x->src->args[1]->sp;
		return false;
	}
	if (!x->exact)
		return true;
	int64_t r;
	int e = x->op == OP_WRAP ? (v[0].i >= 0 ? (r = v[0].i, SYM_OK) : int_op(OP_ADD, v[0].i, v[1].i, &r))
	                         : int_op(x->op, v[0].i, x->nargs > 1 ? v[1].i : 0, &r);
	*sp = x->src->sp;
	if (e == SYM_EOVF)
		*msg = "index arithmetic overflows 64 bits";
	if (e == SYM_EDIV0)
		*msg = "division by zero in an index";
	out->i = r;
	return e == SYM_OK;
}

static void op_failed(RunErr *e, const Inst *in, const Stmt *st, const int64_t *val, int64_t pos, const char *what,
                      Span sp)
{
	char at[160], msg[600];
	where_str(at, sizeof at, st, val);
	snprintf(msg, sizeof msg, "kernel %s: %s at %s", in->k->name, what, at);
	run_error(e, pos, sp, msg);
}

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

/* Register r, or the one its integer casts start from. */
static int uncast(const Prog *p, int r)
{
	while (p->ins[r].kind == I_CAST && dt_is_int(p->ins[r].dt))
		r = p->ins[r].a[0];
	return r;
}

/* The wrap() an index register holds, through its casts; -1 for none. */
static int wrap_of_reg(const Prog *p, int r)
{
	r = uncast(p, r);
	return p->ins[r].kind == I_OP && p->ins[r].op == OP_WRAP ? r : -1;
}

/* The value of a raw (pre-wrap) atom, for the wrap message. */
static void wrap_parts(const Prog *p, const Val *reg, int r, int64_t *raw, int64_t *m)
{
	int w = wrap_of_reg(p, r);
	*raw = w < 0 ? reg[uncast(p, r)].i : reg[p->ins[w].a[0]].i;
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

/* Is v inside the dim of load x that check c is about? */
static bool in_dim(const Inst *in, const Ins *x, int c, int64_t v)
{
	return v >= 0 && v < tensor_layout(in, x->src->t)->shape[x->check_dim[c]];
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
	const Access *store = s->ps->acc.v[0];
	void *out = tensor_base(s->storage, s->lets, st->t);
	for (int64_t q0 = from; q0 < to && !pt.bad; q0++) {
		int64_t q = q0, off;
		for (int d = st->nlhs - 1; d >= 0; d--) {
			int64_t n = s->in->n[st->lhs[d]->id];
			pt.val[st->lhs[d]->id] = q % n;
			q /= n;
		}
		pt.pos = q0;
		point_scope(&pt, 0);
		if (pt.bad)
			break;
		pt.load = NULL;
		sym_eval(store->off, point_leaf, &pt, &off);
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

/* ---- the box path: loop dims, staged operands, the register machine ---- */

#define VM_LANES 1024
#define XMAXD 48
#define XMAXBOX 64

typedef struct {
	int var;          /* PlanVar */
	int64_t place, n; /* the digit: (v / place) % n; the top digit has no modulo */
	int scope;
} XDim;

typedef struct {
	const Access *acc;
	const PlanOperand *op;
	DType dt;
	size_t es;
	char *base;       /* element 0 of its storage */
	int64_t start;    /* the static part of its element offset */
	int64_t stride[XMAXD];
	bool point;       /* loaded point by point through its flat offset */
	bool masked;      /* a masked view: only coordinates [mlo, mhi] of the dims
	                   * with mk set are read, the others are padding (zeros) */
	bool mk[XMAXD];
	int64_t mlo[XMAXD], mhi[XMAXD];
} XOp;

typedef struct {
	const Inst *in;
	const PlanStmt *ps;
	const Planned *pd;
	const Prog *p;
	RunErr *err;
	int nd;
	XDim d[XMAXD];
	int nsd[64];      /* per scope: its dims, in order */
	int sd[64][XMAXD];
	XOp *op;          /* per access */
	int *opreg;       /* per access: its I_LOAD register, -1 for the store */
	bool copy;        /* the body is one load of the output's dtype */
	int rows;         /* > 0: the body is one row gather of the output's dtype,
	                   * its index read at rows points of the output variables
	                   * the gather's index depends on (row_var[0..nrow)) */
	int nrow, row_var[MAXSCOPE];
	void *const *storage;
	void **lets;
	int64_t ntasks;
	int64_t pstride[MAXSCOPE]; /* row-major position of each output variable */
	bool stream;
	struct W *w;      /* per worker: its scratch */
} X;

/* A box: a range of every dim (dims outside the box's scope ignored). */
typedef struct {
	int64_t lo[XMAXD], hi[XMAXD];
} XBox;

typedef struct W {
	const X *x;
	Val *reg;         /* VM_LANES per register */
	Val **rp;         /* per register: its lanes (its own, or an aliased load's) */
	Val *splat;       /* an outer register's value, spread over the lanes */
	unsigned char *tmp;
	int64_t coord[XMAXD];
	int lanes[64];    /* per scope: lanes of its current unit */
	int lane[64];     /* per scope: the lane being evaluated of its unit */
	const XBox *unit[64];
	int ustart[64];   /* per scope: index in nsd of its first varying dim */
	int64_t *val;     /* per variable id */
	bool bad;
	/* the scope-0 box being run: operands not contiguous in its dense
	 * order are staged whole (transposed by the box copy), and so is the
	 * result when the output's view is not */
	const XBox *box0;
	int64_t dense0[XMAXD]; /* element strides of the dense box, per dim */
	unsigned char **stage; /* per access: its staged box, NULL if read in place */
	unsigned char **keep;  /* per access: the buffer, kept between boxes */
	size_t *cap;
	XBox *vb;              /* per output variable: its boxes in a block */
} W;

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

/* Element strides of a view operand over the loop dims. */
static void op_strides(X *x, XOp *o)
{
	const View *v = o->op->view;
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
static bool op_masks(X *x, XOp *o)
{
	const View *v = o->op->view;
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

static bool setup(X *x, const Inst *in, int si, void *const *storage, void **lets, RunErr *err)
{
	x->in = in;
	x->storage = storage;
	x->lets = lets;
	x->ps = &in->plan[0]->st[si];
	x->pd = &in->planned[si];
	x->p = in->prog[si];
	x->err = err;
	if (!make_dims(x))
		return false;
	int nacc = x->pd->acc.n;
	x->op = calloc((size_t)nacc, sizeof *x->op);
	x->opreg = malloc((size_t)nacc * sizeof *x->opreg);
	if (!x->op || !x->opreg)
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
		o->base = tensor_base(storage, lets, o->acc->t);
		if (j > 0 && x->opreg[j] < 0)
			continue; /* not read by the body */
		if (j == 0 ? o->op->cls == VIEW_ELEM : needs_points(x, o->op, x->opreg[j]) || !op_masks(x, o))
			o->point = true;
		else
			op_strides(x, o);
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
	          !x->op[res->operand].op->view->ngat;
	x->stream = tensor_layout(in, st->t)->storage * (int64_t)x->op[0].es >= (8 << 20);
	x->rows = gather_rows(x);
	x->ntasks = 1;
	for (int g = 0; g < x->ps->ngrid; g++) {
		const PlanVar *pv = &x->ps->vars[x->ps->grid_var[g]];
		if (!pv->reduce)
			x->ntasks *= i64_ceil_div(pv->n, pv->block);
	}
	return true;
}

/* ---- boxes of a block ---- */

/* Splits the range [lo, hi) of a variable into boxes over its digits
 * (dims[0] the top one, places decreasing to 1): at each level a partial
 * head, a run of whole digits, a partial tail. r is relative to the prefix
 * fixed by the levels above (within one unit of the level above). */
static int split_range(const X *x, const int *dims, int nd, int lv, int64_t lo, int64_t hi, XBox *cur, XBox *out,
                       int nb, int max)
{
	if (lo >= hi || nb >= max)
		return nb;
	const XDim *d = &x->d[dims[lv]];
	int64_t P = d->place, qlo = lo / P, qhi = hi / P;
	if (lv == nd - 1) { /* place 1: the digit is r itself */
		cur->lo[dims[lv]] = lo;
		cur->hi[dims[lv]] = hi;
		out[nb] = *cur;
		return nb + 1;
	}
	if (qlo == qhi) { /* within one unit of this level */
		cur->lo[dims[lv]] = qlo;
		cur->hi[dims[lv]] = qlo + 1;
		return split_range(x, dims, nd, lv + 1, lo - qlo * P, hi - qlo * P, cur, out, nb, max);
	}
	if (lo % P) { /* the head: one value of this digit, part of the lower ones */
		cur->lo[dims[lv]] = qlo;
		cur->hi[dims[lv]] = qlo + 1;
		nb = split_range(x, dims, nd, lv + 1, lo - qlo * P, P, cur, out, nb, max);
		qlo++;
	}
	if (qhi > qlo && nb < max) { /* whole lower digits */
		cur->lo[dims[lv]] = qlo;
		cur->hi[dims[lv]] = qhi;
		for (int u = lv + 1; u < nd; u++) {
			cur->lo[dims[u]] = 0;
			cur->hi[dims[u]] = x->d[dims[u]].n;
		}
		out[nb++] = *cur;
	}
	if (hi % P) { /* the tail */
		cur->lo[dims[lv]] = qhi;
		cur->hi[dims[lv]] = qhi + 1;
		nb = split_range(x, dims, nd, lv + 1, 0, hi - qhi * P, cur, out, nb, max);
	}
	return nb;
}

/* The boxes of the range [lo, hi) of PlanVar i, in increasing order of its
 * values; only its dims are set in them. */
static int var_boxes(const X *x, int i, int64_t lo, int64_t hi, XBox *out, int max)
{
	int dims[16], nd = 0;
	XBox cur;
	for (int k = 0; k < x->nd && nd < 16; k++)
		if (x->d[k].var == i)
			dims[nd++] = k; /* top digit first */
	if (nd == 0)
		return 1; /* a variable no access iterates over: nothing to set */
	return split_range(x, dims, nd, 0, lo, hi, &cur, out, 0, max);
}

/* Copies the ranges of PlanVar i's dims from box `from` into box `to`. */
static void copy_var(const X *x, int i, const XBox *from, XBox *to)
{
	for (int k = 0; k < x->nd; k++)
		if (x->d[k].var == i) {
			to->lo[k] = from->lo[k];
			to->hi[k] = from->hi[k];
		}
}

/* copy_box (or copy_box_par, par) over a box of any rank: dims of extent 1
 * dropped, and dims beyond the box copy's rank looped over here. */
static void box_copy(char *dst, const int64_t *ds, const char *src, const int64_t *ss, const int64_t *shape, int n,
                     size_t es, int flags, bool par)
{
	int64_t sh[XMAXD], d2[XMAXD], s2[XMAXD];
	int m = 0;
	for (int k = 0; k < n; k++) {
		if (shape[k] == 0)
			return;
		if (shape[k] > 1) {
			sh[m] = shape[k];
			d2[m] = ds[k];
			s2[m++] = ss[k];
		}
	}
	if (m > BOX_MAX_RANK) {
		for (int64_t i = 0; i < sh[0]; i++)
			box_copy(dst + i * d2[0], d2 + 1, src + i * s2[0], s2 + 1, sh + 1, m - 1, es, flags, par);
		return;
	}
	if (par)
		copy_box_par(dst, d2, src, s2, sh, m, es, flags, 0);
	else
		copy_box(dst, d2, src, s2, sh, m, es, flags);
}

/* ---- registers ---- */

/* The register machine's loops, compiled for AVX2 too where the CPU has it
 * (chosen at load time), and vectorised. Not under the sanitizers: an
 * ifunc resolver runs before their runtime is up. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define ATHENE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ATHENE_SANITIZED 1
#endif
#if defined(ATHENE_SANITIZED)
#define HOT
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT __attribute__((target_clones("avx2", "default"), optimize("O3")))
#elif defined(__x86_64__) && defined(__clang__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

HOT static void to_lanes(Val *r, const unsigned char *t, DType dt, int n)
{
	switch (dt) {
	case ATHENE_F32: memcpy(r, t, (size_t)n * sizeof(float)); break; /* a float register */
	case ATHENE_F64: for (int i = 0; i < n; i++) r[i].f = ((const double *)t)[i]; break;
	case ATHENE_F16: for (int i = 0; i < n; i++) r[i].f = f16_to_double(((const uint16_t *)t)[i]); break;
	case ATHENE_BF16: for (int i = 0; i < n; i++) r[i].f = bf16_to_double(((const uint16_t *)t)[i]); break;
	case ATHENE_I8: for (int i = 0; i < n; i++) r[i].i = ((const int8_t *)t)[i]; break;
	case ATHENE_I16: for (int i = 0; i < n; i++) r[i].i = ((const int16_t *)t)[i]; break;
	case ATHENE_I32: for (int i = 0; i < n; i++) r[i].i = ((const int32_t *)t)[i]; break;
	case ATHENE_I64: for (int i = 0; i < n; i++) r[i].i = ((const int64_t *)t)[i]; break;
	case ATHENE_U8: for (int i = 0; i < n; i++) r[i].i = t[i]; break;
	default: for (int i = 0; i < n; i++) r[i].i = t[i] != 0; break;
	}
}

HOT static void from_lanes(unsigned char *t, DType dt, const Val *r, int n)
{
	switch (dt) {
	case ATHENE_F32: memcpy(t, r, (size_t)n * sizeof(float)); break; /* a float register */
	case ATHENE_F64: for (int i = 0; i < n; i++) ((double *)t)[i] = r[i].f; break;
	case ATHENE_F16: for (int i = 0; i < n; i++) ((uint16_t *)t)[i] = f16_from_double(r[i].f); break;
	case ATHENE_BF16: for (int i = 0; i < n; i++) ((uint16_t *)t)[i] = bf16_from_double(r[i].f); break;
	case ATHENE_I8: for (int i = 0; i < n; i++) ((int8_t *)t)[i] = (int8_t)r[i].i; break;
	case ATHENE_I16: for (int i = 0; i < n; i++) ((int16_t *)t)[i] = (int16_t)r[i].i; break;
	case ATHENE_I32: for (int i = 0; i < n; i++) ((int32_t *)t)[i] = (int32_t)r[i].i; break;
	case ATHENE_I64: for (int i = 0; i < n; i++) ((int64_t *)t)[i] = r[i].i; break;
	case ATHENE_U8: for (int i = 0; i < n; i++) t[i] = (uint8_t)r[i].i; break;
	default: for (int i = 0; i < n; i++) t[i] = r[i].i != 0; break;
	}
}

/* The lanes of register r as seen from scope s: its own, or an outer
 * register's value at the current point, spread. */
/* An f32 register holds floats (its lanes' first half): f32 arithmetic is
 * exact in float, so it runs twice as wide and a load or store of an f32
 * tensor is a plain copy. Every other register holds Vals. */
static bool is32(const X *x, int r)
{
	return x->p->ins[r].dt == ATHENE_F32;
}

static Val *regv(W *w, int r)
{
	return w->rp[r];
}

static float *regf(W *w, int r)
{
	return (float *)w->rp[r];
}

/* A load whose lanes are contiguous in memory and laid out as its register
 * (f32 as floats, f64 and i64 as Vals) reads nothing: the register points
 * at them. */
static bool alias(W *w, int r, const unsigned char *at, DType dt)
{
	if (dt != ATHENE_F32 && dt != ATHENE_F64 && dt != ATHENE_I64)
		return false;
	if ((uintptr_t)at % athene_dtype_size(dt))
		return false;
	w->rp[r] = (Val *)(uintptr_t)at; /* only read through: registers are SSA */
	return true;
}

static const Val *arg(W *w, int s, int r)
{
	int rs = w->x->p->ins[r].scope;
	if (rs == s)
		return regv(w, r);
	Val *sp = &w->splat[(size_t)r * VM_LANES];
	if (is32(w->x, r)) {
		float v = regf(w, r)[w->lane[rs]], *f = (float *)sp;
		for (int i = 0; i < w->lanes[s]; i++)
			f[i] = v;
		return sp;
	}
	Val v = regv(w, r)[w->lane[rs]];
	for (int i = 0; i < w->lanes[s]; i++)
		sp[i] = v;
	return sp;
}

static const float *argf(W *w, int s, int r)
{
	return (const float *)arg(w, s, r);
}

/* Lane l of register r seen from scope s, as a Val (f32 as a double). */
static Val get(W *w, int s, int r, int l)
{
	int rs = w->x->p->ins[r].scope;
	int ll = rs == s ? l : w->lane[rs];
	if (is32(w->x, r))
		return (Val){.f = regf(w, r)[ll]};
	return regv(w, r)[ll];
}

static void put(W *w, int r, int l, Val v)
{
	if (is32(w->x, r))
		regf(w, r)[l] = (float)v.f;
	else
		regv(w, r)[l] = v;
}

/* Sets the coordinates of scope s's varying dims to lane l of its unit. */
static void lane_coords(W *w, int s, int l)
{
	const X *x = w->x;
	const XBox *u = w->unit[s];
	for (int k = x->nsd[s] - 1; k >= w->ustart[s]; k--) {
		int d = x->sd[s][k];
		int64_t ext = u->hi[d] - u->lo[d];
		w->coord[d] = u->lo[d] + l % ext;
		l = (int)(l / ext);
	}
}

static void var_values(W *w)
{
	const X *x = w->x;
	for (int i = 0; i < x->ps->nvars; i++)
		w->val[x->ps->vars[i].var->id] = 0;
	for (int k = 0; k < x->nd; k++)
		w->val[x->ps->vars[x->d[k].var].var->id] += w->coord[k] * x->d[k].place;
}

static int64_t position(W *w)
{
	const Stmt *st = w->x->pd->stmt;
	int64_t pos = 0;
	for (int d = 0; d < st->nlhs; d++)
		pos += w->val[st->lhs[d]->id] * w->x->pstride[d];
	return pos;
}

/* Element offset of operand o at the current coordinates (dims of scope s
 * from the unit's first lane). */
static int64_t unit_offset(const W *w, const XOp *o)
{
	int64_t off = o->start;
	for (int k = 0; k < w->x->nd; k++)
		off += w->coord[k] * o->stride[k];
	return off;
}

/* Shape and byte strides of the unit of scope s, over its varying dims. */
static int unit_shape(const W *w, int s, const XOp *o, int64_t *shape, int64_t *stride)
{
	const X *x = w->x;
	int n = 0;
	for (int k = w->ustart[s]; k < x->nsd[s]; k++) {
		int d = x->sd[s][k];
		shape[n] = w->unit[s]->hi[d] - w->unit[s]->lo[d];
		stride[n++] = o->stride[d] * (int64_t)o->es;
	}
	return n;
}

/* Is a box with strides ss laid out like the dense strides ds (dims of
 * extent 1 aside)? */
static bool contiguous(const int64_t *shape, const int64_t *ss, const int64_t *ds, int n)
{
	for (int k = 0; k < n; k++)
		if (shape[k] > 1 && ss[k] != ds[k])
			return false;
	return true;
}

static void dense(const int64_t *shape, int n, size_t es, int64_t *stride)
{
	int64_t s = (int64_t)es;
	for (int k = n - 1; k >= 0; k--) {
		stride[k] = s;
		s *= shape[k];
	}
}

/* Reports the subscript `sub` of load ins, held in register r, out of
 * range at lane l of scope s (with the raw value and modulus of a wrap). */
static void subscript_error(W *w, int s, const Ins *ins, const Node *sub, int r, int l)
{
	const X *x = w->x;
	int64_t value = arg(w, s, r)[l].i, raw = value, m = 0;
	int wr = wrap_of_reg(x->p, r);
	if (wr >= 0) {
		raw = arg(w, s, x->p->ins[wr].a[0])[l].i;
		m = arg(w, s, x->p->ins[wr].a[1])[l].i;
	}
	lane_coords(w, s, l);
	var_values(w);
	exec_index_error(x->err, x->in, x->pd->stmt, w->val, position(w), ins->src, sub, value, raw, m);
	w->bad = true;
}

static void atom_error(W *w, int s, const Ins *ins, int k, int l)
{
	subscript_error(w, s, ins, ins->atom[k]->p, ins->atom_reg[k], l);
}

typedef struct {
	const Ins *ins;
	const Val *const *atoms;
	int l;
	const int64_t *val;
} LaneEnv;

static int lane_leaf(void *env, const Sym *s, int64_t *out)
{
	const LaneEnv *e = env;
	if (s->kind == S_VAR) {
		*out = e->val[((const Var *)s->p)->id];
		return SYM_OK;
	}
	for (int k = 0; k < e->ins->natoms; k++)
		if (e->ins->atom[k] == s) {
			*out = e->atoms[k][e->l].i;
			return SYM_OK;
		}
	return SYM_EOVF;
}

static void point_lanes(W *w, int s, const Ins *ins, Val *r);
static void eval_box(W *w, int s, const XBox *b, int acc, Red *red);
static void store_unit(W *w);

/* Element offset of the current coordinates in the dense scope-0 box. */
static int64_t dense_offset(const W *w)
{
	const X *x = w->x;
	int64_t off = 0;
	for (int k = 0; k < x->nsd[0]; k++) {
		int d = x->sd[0][k];
		off += (w->coord[d] - w->box0->lo[d]) * w->dense0[d];
	}
	return off;
}

/* The part a masked operand reads of the box at the current coordinates
 * whose dims dims[0..n) take shape[] positions: 0 when it is all padding,
 * 1 when it reads it all, 2 when it reads the sub-box from skip[] of
 * extents shape[] (narrowed). */
static int mask_clip(const W *w, const XOp *o, const int *dims, int n, int64_t *shape, int64_t *skip)
{
	int part = 1;
	for (int p = 0; p < n; p++)
		skip[p] = 0;
	for (int k = 0; k < w->x->nd; k++) {
		if (!o->mk[k])
			continue;
		int p = 0;
		while (p < n && dims[p] != k)
			p++;
		int64_t lo = w->coord[k], hi = lo + (p < n ? shape[p] : 1) - 1;
		if (hi < o->mlo[k] || lo > o->mhi[k])
			return 0;
		if (lo >= o->mlo[k] && hi <= o->mhi[k])
			continue;
		if (p == n)
			return 0; /* unreachable: a fixed coordinate is inside or outside */
		skip[p] = lo < o->mlo[k] ? o->mlo[k] - lo : 0;
		shape[p] = (hi < o->mhi[k] ? hi : o->mhi[k]) - (lo + skip[p]) + 1;
		part = 2;
	}
	return part;
}

/* Copies the box of masked operand o at element offset off (of the box's
 * first position, maybe padding), dims dims[0..n) of extents shape[] and
 * byte strides ss[], into the dense dst (byte strides ds[]): the values it
 * reads, zeros in its padding. False when it reads all of the box. */
static bool mask_copy(const W *w, const XOp *o, const int *dims, int n, const int64_t *shape, const int64_t *ss,
                      const int64_t *ds, int64_t off, unsigned char *dst)
{
	int64_t sub[XMAXD], skip[XMAXD], bytes = (int64_t)o->es;
	memcpy(sub, shape, (size_t)n * sizeof *sub);
	int part = mask_clip(w, o, dims, n, sub, skip);
	if (part == 1)
		return false;
	for (int p = 0; p < n; p++)
		bytes *= shape[p];
	memset(dst, 0, (size_t)bytes);
	if (part == 0)
		return true;
	int64_t from = off * (int64_t)o->es;
	for (int p = 0; p < n; p++) {
		from += skip[p] * ss[p];
		dst += skip[p] * ds[p];
	}
	box_copy((char *)dst, ds, o->base + from, ss, sub, n, o->es, 0, false);
	return true;
}

/* Stages operand j of load `ins` for the unit of scope s into r. */
static void load_lanes(W *w, int s, const Ins *ins, Val *r)
{
	const X *x = w->x;
	const XOp *o = &x->op[ins->operand];
	if (o->point) {
		point_lanes(w, s, ins, r);
		return;
	}
	lane_coords(w, s, 0);
	if (s == 0 && w->stage[ins->operand]) {
		const unsigned char *at = w->stage[ins->operand] + dense_offset(w) * (int64_t)o->es;
		if (!alias(w, (int)(ins - x->p->ins), at, o->dt))
			to_lanes(r, at, o->dt, w->lanes[s]);
		return;
	}
	int64_t off = unit_offset(w, o), shape[XMAXD], ss[XMAXD], ds[XMAXD];
	const View *v = o->op->view;
	for (int g = 0; g < v->ngat; g++) {
		const VAxis *a = &v->ax[v->gat[g].axis];
		int k = 0; /* the analysis rebuilt its atoms: the same subscript node */
		while (k < ins->natoms && ins->atom[k]->p != v->gat[g].atom->p)
			k++;
		if (k == ins->natoms)
			die("a gathered atom that is no atom of its load");
		const Val *av = arg(w, s, ins->atom_reg[k]);
		for (int l = 1; l < w->lanes[s]; l++)
			if (av[l].i != av[0].i) {
				point_lanes(w, s, ins, r); /* the row changes inside the unit */
				return;
			}
		const Sym *at = v->gat[g].atom;
		if (av[0].i < at->lo || av[0].i > at->hi) {
			point_lanes(w, s, ins, r); /* reports it as the interpreter does */
			return;
		}
		off += (a->start + a->step * (av[0].i - at->lo)) * a->stride;
	}
	int n = unit_shape(w, s, o, shape, ss);
	dense(shape, n, o->es, ds);
	if (o->masked && mask_copy(w, o, &x->sd[s][w->ustart[s]], n, shape, ss, ds, off, w->tmp)) {
		to_lanes(r, w->tmp, o->dt, w->lanes[s]);
		return;
	}
	const unsigned char *src = (const unsigned char *)o->base + off * (int64_t)o->es;
	if (contiguous(shape, ss, ds, n)) {
		if (!alias(w, (int)(ins - x->p->ins), src, o->dt))
			to_lanes(r, src, o->dt, w->lanes[s]); /* read in place */
		return;
	}
	box_copy((char *)w->tmp, ds, (const char *)src, ss, shape, n, o->es, 0, false);
	to_lanes(r, w->tmp, o->dt, w->lanes[s]);
}

/* Point by point through the flat offset: element gathers and the rest. */
static void point_lanes(W *w, int s, const Ins *ins, Val *r)
{
	const X *x = w->x;
	const Access *ac = x->pd->acc.v[ins->operand];
	const XOp *o = &x->op[ins->operand];
	const Val *guard = ins->guard >= 0 ? arg(w, s, ins->guard) : NULL;
	const Val *atoms[VIEW_MAXDIG];
	int64_t storage = tensor_layout(x->in, ac->t)->storage, off;
	for (int k = 0; k < ins->natoms && k < VIEW_MAXDIG; k++)
		atoms[k] = arg(w, s, ins->atom_reg[k]);
	for (int l = 0; l < w->lanes[s] && !w->bad; l++) {
		put(w, (int)(ins - x->p->ins), l, (Val){0});
		if (guard && !guard[l].i)
			continue;
		for (int k = 0; k < ins->natoms && !w->bad; k++)
			if (atoms[k][l].i < ins->atom[k]->lo || atoms[k][l].i > ins->atom[k]->hi)
				atom_error(w, s, ins, k, l);
		for (int c = 0; c < ins->nchecks && !w->bad; c++)
			if (!in_dim(x->in, ins, c, arg(w, s, ins->check_reg[c])[l].i))
				subscript_error(w, s, ins, ins->src->args[ins->check_dim[c]], ins->check_reg[c], l);
		if (w->bad)
			break;
		lane_coords(w, s, l);
		var_values(w);
		LaneEnv env = {ins, atoms, l, w->val};
		if (sym_eval(ac->off, lane_leaf, &env, &off)) {
			run_error(x->err, position(w), ins->src->sp, "index arithmetic overflows 64 bits");
			w->bad = true;
		} else if (off < 0 || off >= storage) {
			exec_index_error(x->err, x->in, x->pd->stmt, w->val, position(w), ins->src, NULL, off, off, 0);
			w->bad = true;
		} else if (dt_is_float(o->dt)) {
			put(w, (int)(ins - x->p->ins), l, (Val){.f = dt_load_f(o->base, o->dt, off)});
		} else {
			r[l].i = dt_load_i(o->base, o->dt, off);
		}
	}
}

/* ---- instructions over lanes ---- */

HOT static void round_lanes(Val *r, DType t, int n)
{
	if (t == ATHENE_F32)
		for (int i = 0; i < n; i++)
			r[i].f = (float)r[i].f;
	else if (t == ATHENE_F16 || t == ATHENE_BF16)
		for (int i = 0; i < n; i++)
			r[i].f = dt_round_float(t, r[i].f);
}

/* The common float and integer ops as plain loops; the rest through the
 * interpreter's scalar semantics (val_op), which they must equal. */
HOT static bool fast_op(const Ins *x, Val *r, const Val *a, const Val *b, int n)
{
	DType t = x->opdt;
	if (t == ATHENE_F32) { /* float registers; exact: IEEE rounds each of + - * / once */
		float *rf = (float *)r;
		const float *af = (const float *)a, *bf = (const float *)b;
		switch (x->op) {
		case OP_ADD: for (int i = 0; i < n; i++) rf[i] = af[i] + bf[i]; return true;
		case OP_SUB: for (int i = 0; i < n; i++) rf[i] = af[i] - bf[i]; return true;
		case OP_MUL: for (int i = 0; i < n; i++) rf[i] = af[i] * bf[i]; return true;
		case OP_DIV: for (int i = 0; i < n; i++) rf[i] = af[i] / bf[i]; return true;
		case OP_NEG: for (int i = 0; i < n; i++) rf[i] = -af[i]; return true;
		case OP_RELU: for (int i = 0; i < n; i++) rf[i] = af[i] > 0 || af[i] != af[i] ? af[i] : 0.0f; return true;
		case OP_MAX: for (int i = 0; i < n; i++) rf[i] = af[i] != af[i] || bf[i] != bf[i] ? NAN : af[i] > bf[i] ? af[i] : bf[i]; return true;
		case OP_MIN: for (int i = 0; i < n; i++) rf[i] = af[i] != af[i] || bf[i] != bf[i] ? NAN : af[i] < bf[i] ? af[i] : bf[i]; return true;
		case OP_LT: for (int i = 0; i < n; i++) r[i].i = af[i] < bf[i]; return true;
		case OP_GT: for (int i = 0; i < n; i++) r[i].i = af[i] > bf[i]; return true;
		default: return false;
		}
	}
	if (dt_is_float(t) && t != ATHENE_F16 && t != ATHENE_BF16) {
		switch (x->op) {
		case OP_ADD: for (int i = 0; i < n; i++) r[i].f = a[i].f + b[i].f; break;
		case OP_SUB: for (int i = 0; i < n; i++) r[i].f = a[i].f - b[i].f; break;
		case OP_MUL: for (int i = 0; i < n; i++) r[i].f = a[i].f * b[i].f; break;
		case OP_DIV: for (int i = 0; i < n; i++) r[i].f = a[i].f / b[i].f; break;
		case OP_NEG: for (int i = 0; i < n; i++) r[i].f = -a[i].f; break;
		case OP_RELU: for (int i = 0; i < n; i++) r[i].f = isnan(a[i].f) || a[i].f > 0 ? a[i].f : 0.0; break;
		case OP_LT: for (int i = 0; i < n; i++) r[i].i = a[i].f < b[i].f; return true;
		case OP_GT: for (int i = 0; i < n; i++) r[i].i = a[i].f > b[i].f; return true;
		default: return false;
		}
		round_lanes(r, t, n);
		return true;
	}
	if (!dt_is_float(t) && op_info[x->op].kind == K_CMP) { /* integer lanes hold their values in .i */
		switch (x->op) {
		case OP_EQ: for (int i = 0; i < n; i++) r[i].i = a[i].i == b[i].i; return true;
		case OP_NE: for (int i = 0; i < n; i++) r[i].i = a[i].i != b[i].i; return true;
		case OP_LT: for (int i = 0; i < n; i++) r[i].i = a[i].i < b[i].i; return true;
		case OP_LE: for (int i = 0; i < n; i++) r[i].i = a[i].i <= b[i].i; return true;
		case OP_GT: for (int i = 0; i < n; i++) r[i].i = a[i].i > b[i].i; return true;
		default: for (int i = 0; i < n; i++) r[i].i = a[i].i >= b[i].i; return true;
		}
	}
	if (op_info[x->op].kind == K_LOGIC) { /* bool lanes: 0 or 1 */
		switch (x->op) {
		case OP_AND: for (int i = 0; i < n; i++) r[i].i = a[i].i & b[i].i; return true;
		case OP_OR: for (int i = 0; i < n; i++) r[i].i = a[i].i | b[i].i; return true;
		default: for (int i = 0; i < n; i++) r[i].i = !a[i].i; return true;
		}
	}
	if (t == ATHENE_I64) {
		switch (x->op) {
		case OP_ADD: for (int i = 0; i < n; i++) r[i].i = (int64_t)((uint64_t)a[i].i + (uint64_t)b[i].i); return true;
		case OP_SUB: for (int i = 0; i < n; i++) r[i].i = (int64_t)((uint64_t)a[i].i - (uint64_t)b[i].i); return true;
		case OP_MUL: for (int i = 0; i < n; i++) r[i].i = (int64_t)((uint64_t)a[i].i * (uint64_t)b[i].i); return true;
		default: return false;
		}
	}
	return false;
}

static void op_lanes(W *w, int s, const Ins *x, Val *r)
{
	const Val *a[3] = {NULL, NULL, NULL};
	int n = w->lanes[s];
	for (int k = 0; k < x->nargs; k++)
		a[k] = arg(w, s, x->a[k]);
	if (!x->exact && x->nargs <= 2 && fast_op(x, r, a[0], a[1] ? a[1] : a[0], n))
		return;
	if (x->op == OP_WHERE) { /* its branches are cast to its dtype, its condition to bool */
		if (is32(w->x, (int)(x - w->x->p->ins))) {
			float *rf = (float *)r;
			const float *af = (const float *)a[1], *bf = (const float *)a[2];
			for (int i = 0; i < n; i++)
				rf[i] = a[0][i].i ? af[i] : bf[i];
		} else {
			for (int i = 0; i < n; i++)
				r[i] = a[0][i].i ? a[1][i] : a[2][i];
		}
		return;
	}
	DType t = op_info[x->op].kind == K_PRED ? w->x->p->ins[x->a[0]].dt : x->opdt;
	const Val *guard = x->guard >= 0 ? arg(w, s, x->guard) : NULL;
	bool checked = x->exact || x->op == OP_WRAP;
	int dst = (int)(x - w->x->p->ins);
	Val v[3], res;
	for (int i = 0; i < n; i++) {
		const char *why;
		Span sp;
		for (int k = 0; k < x->nargs; k++)
			v[k] = get(w, s, x->a[k], i);
		res = val_op(x->op, t, v);
		bool failed = checked && (!guard || guard[i].i) && !checked_op(x, v, &res, &why, &sp);
		put(w, dst, i, res);
		if (failed) {
			lane_coords(w, s, i);
			var_values(w);
			op_failed(w->x->err, w->x->in, w->x->pd->stmt, w->val, position(w), why, sp);
			w->bad = true;
			return;
		}
	}
}

static void cast_lanes(W *w, int s, const Ins *x, Val *r)
{
	DType from = w->x->p->ins[x->a[0]].dt;
	int n = w->lanes[s], dst = (int)(x - w->x->p->ins);
	if (from == ATHENE_F32 && x->dt == ATHENE_F64) {
		const float *a = argf(w, s, x->a[0]);
		for (int i = 0; i < n; i++)
			r[i].f = a[i];
	} else if (from == ATHENE_F64 && x->dt == ATHENE_F32) {
		const Val *a = arg(w, s, x->a[0]);
		for (int i = 0; i < n; i++)
			((float *)r)[i] = (float)a[i].f;
	} else {
		for (int i = 0; i < n; i++)
			put(w, dst, i, val_convert(get(w, s, x->a[0], i), from, x->dt));
	}
}

static void run_unit(W *w, int s);

/* Sets the dims of PlanVar i in box b to the single value v. */
static void fix_value(const X *x, int i, int64_t v, XBox *b)
{
	for (int k = 0; k < x->nd; k++)
		if (x->d[k].var == i) {
			bool top = k == 0 || x->d[k - 1].var != i;
			int64_t q = v / x->d[k].place;
			b->lo[k] = top ? q : q % x->d[k].n;
			b->hi[k] = b->lo[k] + 1;
		}
}

/* The whole domain of reduction scope c, in row-major order of its
 * variables: a variable whose digits do not tile its range (a partial top
 * digit) takes several boxes, and then the variables before it are stepped
 * one value at a time, so that no value is visited out of order or twice. */
static void reduce_domain(W *w, int c, int acc, Red *red)
{
	const X *x = w->x;
	const Scope *sc = &x->p->scopes[c];
	int vars[MAXSCOPE], nv = 0, last = -1;
	int64_t n[MAXSCOPE];
	XBox box, vb[XMAXBOX];
	for (int j = 0; j < sc->nvars; j++)
		for (int i = 0; i < x->ps->nvars; i++)
			if (x->ps->vars[i].var == sc->vars[j] && nv < MAXSCOPE) {
				n[nv] = x->ps->vars[i].n;
				vars[nv++] = i;
			}
	for (int j = 0; j < nv; j++) {
		if (n[j] == 0)
			return; /* an empty range */
		if (var_boxes(x, vars[j], 0, n[j], vb, XMAXBOX) > 1)
			last = j;
	}
	for (int j = last + 1; j < nv; j++)
		var_boxes(x, vars[j], 0, n[j], &box, 1); /* its one box, straight into the box */
	int64_t val[MAXSCOPE] = {0};
	for (;;) {
		for (int j = 0; j < last; j++)
			fix_value(x, vars[j], val[j], &box);
		int nb = last >= 0 ? var_boxes(x, vars[last], 0, n[last], vb, XMAXBOX) : 1;
		for (int b = 0; b < nb && !w->bad; b++) {
			if (last >= 0)
				copy_var(x, vars[last], &vb[b], &box);
			eval_box(w, c, &box, acc, red);
		}
		int j = last - 1;
		while (j >= 0 && ++val[j] == n[j])
			val[j--] = 0;
		if (j < 0 || w->bad)
			return;
	}
}
/* Writes through put(): an f32 result's register holds floats. */
static void reduce_lanes(W *w, int s, const Ins *x)
{
	const X *xs = w->x;
	int c = x->inner, dst = (int)(x - xs->p->ins);
	const Val *guard = x->guard >= 0 ? arg(w, s, x->guard) : NULL;
	for (int l = 0; l < w->lanes[s] && !w->bad; l++) {
		Red red;
		Val v = {0};
		red_init(&red, x->op, x->opdt);
		put(w, dst, l, v);
		if (guard && !guard[l].i)
			continue;
		w->lane[s] = l;
		lane_coords(w, s, l);
		reduce_domain(w, c, x->a[0], &red);
		bool ok = w->bad || red_result(&red, x->dt, &v);
		put(w, dst, l, v);
		if (!ok) {
			char at[160], msg[400];
			var_values(w);
			where_str(at, sizeof at, xs->pd->stmt, w->val);
			snprintf(msg, sizeof msg, "kernel %s: %s over an empty range at %s", xs->in->k->name, x->src->name, at);
			run_error(xs->err, position(w), x->src->sp, msg);
			w->bad = true;
		}
	}
	w->lane[s] = 0;
}

/* The values of variable v over the lanes of scope s's unit: its value
 * at the first lane, plus place·offset along each varying dim of it. */
static void ivar_lanes(W *w, int s, const Var *v, Val *r)
{
	const X *x = w->x;
	int n = w->lanes[s], run = 1;
	lane_coords(w, s, 0);
	var_values(w);
	for (int l = 0; l < n; l++)
		r[l].i = w->val[v->id];
	for (int k = x->nsd[s] - 1; k >= w->ustart[s]; k--) {
		const XDim *d = &x->d[x->sd[s][k]];
		int ext = (int)(w->unit[s]->hi[x->sd[s][k]] - w->unit[s]->lo[x->sd[s][k]]);
		if (x->ps->vars[d->var].var == v && ext > 1)
			for (int l = 0; l < n; l += run * ext)
				for (int q = 1; q < ext; q++)
					for (int m = 0; m < run; m++)
						r[l + q * run + m].i += q * d->place;
		run *= ext;
	}
}

/* Evaluates the instructions of scope s over its current unit. */
static void run_unit(W *w, int s)
{
	const Prog *p = w->x->p;
	for (int i = 0; i < p->n && !w->bad; i++) {
		const Ins *x = &p->ins[i];
		if (x->scope != s)
			continue;
		Val *r = w->rp[i] = &w->reg[(size_t)i * VM_LANES]; /* its own lanes, unless a load aliases */
		switch (x->kind) {
		case I_CONST: break; /* its lanes were filled with the scratch */
		case I_IVAR: ivar_lanes(w, s, x->var, r); break;
		case I_LOAD: load_lanes(w, s, x, r); break;
		case I_CAST: cast_lanes(w, s, x, r); break;
		case I_OP: op_lanes(w, s, x, r); break;
		case I_REDUCE: reduce_lanes(w, s, x); break;
		}
	}
}

/* A unit failed: its lanes again one at a time, in order, so that the
 * error reported is the interpreter's first (an earlier lane may fail in a
 * later instruction). */
static void first_error(W *w, int s, const XBox *u)
{
	const X *x = w->x;
	int lanes = w->lanes[s];
	XBox one = *u;
	w->unit[s] = u;
	for (int l = 0; l < lanes; l++) {
		w->unit[s] = u;
		lane_coords(w, s, l);
		for (int k = w->ustart[s]; k < x->nsd[s]; k++) {
			int d = x->sd[s][k];
			one.lo[d] = w->coord[d];
			one.hi[d] = w->coord[d] + 1;
		}
		w->unit[s] = &one;
		w->lanes[s] = 1;
		w->bad = false;
		run_unit(w, s);
		if (w->bad)
			break;
	}
	w->unit[s] = u;
	w->bad = true;
}

/* Every unit of box b over scope s's dims, in row-major order: the dims
 * before ustart are stepped one at a time, the one at ustart in chunks, the
 * rest whole. red: accumulate register `acc` (scope s is a reduction's);
 * else the result is stored through the output's view (scope 0). */
static void eval_box(W *w, int s, const XBox *b, int acc, Red *red)
{
	const X *x = w->x;
	int nsd = x->nsd[s], j = nsd;
	int64_t inner = 1;
	for (int k = 0; k < nsd; k++) {
		int d = x->sd[s][k];
		if (b->hi[d] <= b->lo[d])
			return; /* an empty box */
	}
	while (j > 0) {
		int d = x->sd[s][j - 1];
		int64_t e = b->hi[d] - b->lo[d];
		if (inner * e > VM_LANES)
			break;
		inner *= e;
		j--;
	}
	/* j: the first whole dim; j - 1 (if any) is chunked */
	int cj = j > 0 ? j - 1 : -1;
	int64_t step = cj >= 0 ? VM_LANES / inner : 1;
	XBox u = *b;
	w->unit[s] = &u;
	w->ustart[s] = cj >= 0 ? cj : 0;
	for (int k = 0; k < nsd; k++)
		w->coord[x->sd[s][k]] = b->lo[x->sd[s][k]];
	for (;;) {
		for (int k = 0; k < cj; k++) {
			int d = x->sd[s][k];
			u.lo[d] = w->coord[d];
			u.hi[d] = w->coord[d] + 1;
		}
		int64_t chunk = 1;
		if (cj >= 0) {
			int d = x->sd[s][cj];
			u.lo[d] = w->coord[d];
			u.hi[d] = w->coord[d] + step < b->hi[d] ? w->coord[d] + step : b->hi[d];
			chunk = u.hi[d] - u.lo[d];
		}
		w->lanes[s] = (int)(chunk * inner);
		run_unit(w, s);
		if (w->bad) {
			first_error(w, s, &u);
			return;
		}
		if (red)
			for (int l = 0; l < w->lanes[s]; l++)
				red_step(red, get(w, s, acc, l));
		else
			store_unit(w);
		/* next unit: advance the chunked dim, then the stepped ones */
		int k = cj;
		if (k >= 0) {
			int d = x->sd[s][k];
			w->coord[d] = u.hi[d];
			if (w->coord[d] < b->hi[d])
				continue;
			w->coord[d] = b->lo[d];
		}
		for (k = cj - 1; k >= 0; k--) {
			int d = x->sd[s][k];
			if (++w->coord[d] < b->hi[d])
				break;
			w->coord[d] = b->lo[d];
		}
		if (k < 0)
			return;
	}
}

/* The result of scope 0's unit, through the output's view. */
static void store_unit(W *w)
{
	const X *x = w->x;
	const XOp *o = &x->op[0];
	int64_t shape[XMAXD], ds[XMAXD], ss[XMAXD];
	lane_coords(w, 0, 0);
	if (w->stage[0]) {
		from_lanes(w->stage[0] + dense_offset(w) * (int64_t)o->es, x->p->out,
		           regv(w, x->p->result), w->lanes[0]);
		return;
	}
	int64_t off = unit_offset(w, o);
	int n = unit_shape(w, 0, o, shape, ds);
	dense(shape, n, o->es, ss);
	unsigned char *dst = (unsigned char *)o->base + off * (int64_t)o->es;
	const Val *res = regv(w, x->p->result);
	if (contiguous(shape, ds, ss, n) && !x->stream) {
		from_lanes(dst, x->p->out, res, w->lanes[0]); /* write in place */
		return;
	}
	if (contiguous(shape, ds, ss, n)) { /* a big output: streaming stores, no line fetched for them */
		const void *from = res;
		if (x->p->out != ATHENE_F32) {
			from_lanes(w->tmp, x->p->out, res, w->lanes[0]);
			from = w->tmp;
		}
		copy_stream(dst, from, (size_t)w->lanes[0] * o->es);
		return;
	}
	from_lanes(w->tmp, x->p->out, res, w->lanes[0]);
	box_copy((char *)dst, ds, (const char *)w->tmp, ss, shape, n, o->es, 0, false);
}

#define STAGE_MAX (64 << 20) /* bytes: larger boxes are read unit by unit */

/* Copies operand j's part of the scope-0 box b between its view and the
 * dense staging buffer (out: from the buffer to the view). */
static void stage_copy(W *w, const XBox *b, int j, bool out)
{
	const X *x = w->x;
	const XOp *o = &x->op[j];
	int64_t shape[XMAXD], vs[XMAXD], dst[XMAXD];
	int n = 0;
	for (int k = 0; k < x->nsd[0]; k++) {
		int d = x->sd[0][k];
		w->coord[d] = b->lo[d];
		shape[n] = b->hi[d] - b->lo[d];
		vs[n] = o->stride[d] * (int64_t)o->es;
		dst[n++] = w->dense0[d] * (int64_t)o->es;
	}
	if (!out && o->masked && mask_copy(w, o, x->sd[0], n, shape, vs, dst, unit_offset(w, o), w->stage[j]))
		return;
	char *view = o->base + unit_offset(w, o) * (int64_t)o->es;
	if (out)
		box_copy(view, vs, (const char *)w->stage[j], dst, shape, n, o->es, x->stream ? COPY_STREAM : 0, false);
	else
		box_copy((char *)w->stage[j], dst, view, vs, shape, n, o->es, 0, false);
}

/* Decides which operands of the scope-0 box b are staged whole: the store
 * and the scope-0 view loads whose order is not the box's dense order. */
static void stage_box(W *w, const XBox *b)
{
	const X *x = w->x;
	int64_t points = 1;
	w->box0 = b;
	for (int k = x->nsd[0] - 1; k >= 0; k--) {
		int d = x->sd[0][k];
		w->dense0[d] = points;
		points *= b->hi[d] - b->lo[d];
	}
	for (int j = 0; j < x->pd->acc.n; j++) {
		const XOp *o = &x->op[j];
		bool want = j == 0 || (x->opreg[j] >= 0 && x->p->ins[x->opreg[j]].scope == 0 && !o->point &&
		                       !o->op->view->ngat);
		bool dense = true;
		for (int k = 0; k < x->nsd[0]; k++) {
			int d = x->sd[0][k];
			dense &= b->hi[d] - b->lo[d] <= 1 || o->stride[d] == w->dense0[d];
		}
		want &= !dense;
		size_t bytes = (size_t)points * o->es;
		w->stage[j] = NULL;
		if (!want || bytes > STAGE_MAX)
			continue;
		if (w->cap[j] < bytes) {
			unsigned char *p = realloc(w->keep[j], bytes);
			if (!p)
				continue;
			w->cap[j] = bytes;
			w->keep[j] = p;
		}
		w->stage[j] = w->keep[j];
		if (j > 0)
			stage_copy(w, b, j, false);
	}
}

/* The boxes of one block: the product of every output variable's boxes. */
static void block_boxes(W *w, const int64_t *lo, const int64_t *hi)
{
	const X *x = w->x;
	int nl = x->ps->nlhs, nb[MAXSCOPE], at[MAXSCOPE] = {0};
	XBox *vb = w->vb;
	for (int i = 0; i < nl; i++)
		if ((nb[i] = var_boxes(x, i, lo[i], hi[i], &vb[i * XMAXBOX], XMAXBOX)) == 0)
			goto done; /* an empty range */
	for (;;) {
		XBox b;
		for (int i = 0; i < nl; i++)
			for (int k = 0; k < x->nd; k++)
				if (x->d[k].var == i) {
					b.lo[k] = vb[i * XMAXBOX + at[i]].lo[k];
					b.hi[k] = vb[i * XMAXBOX + at[i]].hi[k];
				}
		/* every box, even after an error in another: the boxes are not in
		 * position order, and the first error is the one reported */
		w->bad = false;
		for (int k = 0; k < x->nsd[0]; k++)
			w->coord[x->sd[0][k]] = b.lo[x->sd[0][k]];
		var_values(w);
		if (position(w) <= atomic_load(&x->err->first)) {
			stage_box(w, &b);
			eval_box(w, 0, &b, -1, NULL);
			if (!w->bad && w->stage[0])
				stage_copy(w, &b, 0, true);
		}
		int i = nl - 1;
		while (i >= 0 && ++at[i] == nb[i])
			at[i--] = 0;
		if (i < 0)
			break;
	}
done:;
}

static void block_task(void *arg, int64_t t, int worker)
{
	(void)worker;
	const X *x = arg;
	const PlanStmt *ps = x->ps;
	int64_t lo[MAXSCOPE], hi[MAXSCOPE], first = 0;
	for (int i = 0; i < ps->nlhs; i++) {
		lo[i] = 0;
		hi[i] = ps->vars[i].n;
	}
	for (int g = ps->ngrid - 1; g >= 0; g--) {
		int i = ps->grid_var[g];
		const PlanVar *pv = &ps->vars[i];
		if (pv->reduce)
			continue;
		int64_t nb = i64_ceil_div(pv->n, pv->block);
		lo[i] = t % nb * pv->block;
		hi[i] = lo[i] + pv->block < pv->n ? lo[i] + pv->block : pv->n;
		t /= nb;
	}
	for (int i = 0; i < ps->nlhs; i++)
		first += lo[i] * x->pstride[i];
	if (first > atomic_load(&x->err->first))
		return; /* after the first error: the interpreter would not get here */
	W *w = &x->w[worker]; /* its scratch, made on its first block */
	if (!w->reg) {
		size_t nreg = (size_t)x->p->n + 1;
		w->x = x;
		w->reg = malloc(nreg * VM_LANES * sizeof *w->reg);
		w->rp = malloc(nreg * sizeof *w->rp);
		for (size_t r = 0; w->reg && w->rp && r < nreg; r++)
			w->rp[r] = &w->reg[r * VM_LANES];
		for (int r = 0; w->reg && r < x->p->n; r++) { /* constants: once (only they write their lanes) */
			if (x->p->ins[r].kind != I_CONST)
				continue;
			for (int l = 0; l < VM_LANES; l++) {
				if (is32(x, r))
					((float *)w->rp[r])[l] = (float)x->p->ins[r].c.f;
				else
					w->rp[r][l] = x->p->ins[r].c;
			}
		}
		w->splat = malloc(nreg * VM_LANES * sizeof *w->splat);
		w->tmp = malloc(VM_LANES * 8);
		w->val = calloc((size_t)x->in->k->vars.n + 1, sizeof *w->val);
		w->stage = calloc((size_t)x->pd->acc.n, sizeof *w->stage);
		w->keep = calloc((size_t)x->pd->acc.n, sizeof *w->keep);
		w->cap = calloc((size_t)x->pd->acc.n, sizeof *w->cap);
		w->vb = malloc((size_t)(x->ps->nlhs ? x->ps->nlhs : 1) * XMAXBOX * sizeof *w->vb);
	}
	w->bad = false;
	if (!w->reg || !w->rp || !w->splat || !w->tmp || !w->val || !w->stage || !w->keep || !w->cap || !w->vb)
		run_error(x->err, first, x->pd->stmt->sp, "cannot allocate the executor's registers");
	else
		block_boxes(w, lo, hi);
}

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
		int64_t shape[XMAXD], ds[XMAXD], ss[XMAXD], doff = dst->start, soff = src->start;
		int n = 0;
		for (int k = 0; k < x->nsd[0]; k++) {
			int d = x->sd[0][k];
			const XBox *b = &vb[x->d[d].var * XMAXBOX + at[x->d[d].var]];
			shape[n] = b->hi[d] - b->lo[d];
			ds[n] = dst->stride[d] * (int64_t)dst->es;
			ss[n++] = src->stride[d] * (int64_t)src->es;
			doff += b->lo[d] * dst->stride[d];
			soff += b->lo[d] * src->stride[d];
		}
		box_copy(dst->base + doff * (int64_t)dst->es, ds, src->base + soff * (int64_t)src->es, ss, shape, n, dst->es,
		         x->stream ? COPY_STREAM : 0, true);
		int i = nl - 1;
		while (i >= 0 && ++at[i] == nb[i])
			at[i--] = 0;
		if (i < 0)
			break;
	}
done:
	free(vb);
}

#define ROWS_PER_TASK 512
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
	int r = uncast(x->p, ld->atom_reg[0]), wr = wrap_of_reg(x->p, r);
	*mod = 0;
	if (wr >= 0 && p[p[wr].a[1]].kind == I_CONST) {
		*mod = p[p[wr].a[1]].c.i;
		r = uncast(x->p, p[wr].a[0]);
	}
	if (p[r].kind != I_LOAD || !dt_is_int(p[r].dt) || x->op[p[r].operand].point || p[r].natoms || *mod < 0)
		return false;
	*o = &x->op[p[r].operand];
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
	int64_t shape[XMAXD], ds[XMAXD], ss[XMAXD], coord[XMAXD] = {0};
	int n = 0;
	bool row_dim[XMAXD] = {false};
	for (int r = 0; r < x->nrow; r++)
		for (int k = 0; k < x->nd; k++)
			row_dim[k] |= x->d[k].var == x->row_var[r];
	for (int k = 0; k < x->nsd[0]; k++) {
		int d = x->sd[0][k];
		if (row_dim[d])
			continue;
		shape[n] = x->d[d].n;
		ds[n] = dst->stride[d] * (int64_t)dst->es;
		ss[n++] = src->stride[d] * (int64_t)src->es;
	}
	int64_t dense = (int64_t)dst->es;
	bool flat = true; /* the row contiguous on both sides */
	for (int k = n - 1; k >= 0; k--) {
		flat &= shape[k] <= 1 || (ds[k] == dense && ss[k] == dense);
		dense *= shape[k];
	}
	if (!pt.val || !pt.reg) {
		run_error(x->err, 0, x->pd->stmt->sp, "cannot allocate the executor's registers");
		goto done;
	}
	const XOp *io = NULL;
	int64_t mod = 0;
	bool direct = direct_index(x, ld, &io, &mod) && v->ngat == 1;
	int64_t end = (t + 1) * ROWS_PER_TASK < x->rows ? (t + 1) * ROWS_PER_TASK : x->rows;
	for (int64_t row0 = t * ROWS_PER_TASK; row0 < end && !pt.bad; row0 += ROW_BATCH) {
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
			for (int g = 0; g < v->ngat; g++) {
				const VAxis *a = &v->ax[v->gat[g].axis];
				int k = 0;
				while (k < ld->natoms && ld->atom[k]->p != v->gat[g].atom->p)
					k++;
				int64_t value = direct ? idx : pt.reg[ld->atom_reg[k]].i;
				soff += (a->start + a->step * (value - v->gat[g].atom->lo)) * a->stride;
			}
			dp[nb] = dst->base + doff * (int64_t)dst->es;
			spp[nb] = src->base + soff * (int64_t)src->es;
			for (int64_t l = 0; flat && l < dense; l += 64)
				__builtin_prefetch(spp[nb] + l);
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

/* Runs planned statement si through its plan; false when it is no box
 * statement (the caller runs it point by point). */
static bool exec_stmt(const Inst *in, int si, void *const *storage, void **lets, RunErr *err)
{
	X *x = calloc(1, sizeof *x);
	bool ok = x && setup(x, in, si, storage, lets, err);
	int nw = pool_threads();
	if (ok && !(x->w = calloc((size_t)nw, sizeof *x->w)))
		ok = false;
	if (ok && x->copy)
		copy_stmt(x);
	else if (ok && x->rows)
		pool_run(i64_ceil_div(x->rows, ROWS_PER_TASK), rows_task, x, nw);
	else if (ok)
		pool_run(x->ntasks, block_task, x, nw);
	for (int i = 0; x && x->w && i < nw; i++) {
		free(x->w[i].reg);
		free(x->w[i].rp);
		free(x->w[i].splat);
		free(x->w[i].tmp);
		free(x->w[i].val);
		for (int j = 0; x->w[i].keep && j < x->pd->acc.n; j++)
			free(x->w[i].keep[j]);
		free(x->w[i].stage);
		free(x->w[i].keep);
		free(x->w[i].cap);
		free(x->w[i].vb);
	}
	if (x) {
		free(x->op);
		free(x->opreg);
		free(x->w);
	}
	free(x);
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
	void **lets;
	RunErr err;
} Run;

static void run_body(void *arg)
{
	Run *r = arg;
	const Inst *in = r->in;
	alloc_lets(in, r->d, &r->lets);
	for (int i = 0; i < in->nplanned; i++) {
		const PlanStmt *ps = &in->plan[0]->st[i];
		if (ps->empty)
			continue;
		if (!exec_stmt(in, i, r->storage, r->lets, &r->err))
			run_scalar(in, i, r->storage, r->lets, &r->err);
		if (atomic_load(&r->err.first) != INT64_MAX) {
			diag_at(r->d, r->err.sp, "%s", r->err.msg);
			longjmp(*r->d->jmp, 1);
		}
	}
}

void exec_run(const Inst *in, void *const *storage, Diag *d)
{
	Run r = {in, storage, d, NULL, {.pos = INT64_MAX}};
	pthread_mutex_init(&r.err.mu, NULL);
	atomic_init(&r.err.first, INT64_MAX);
	int rc = protect(d, run_body, &r);
	free_lets(in, r.lets);
	pthread_mutex_destroy(&r.err.mu);
	if (rc)
		longjmp(*d->jmp, 1);
}
