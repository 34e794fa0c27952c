/* Planner: from the views of a statement's accesses, a block plan in the
 * shape of a Pallas grid spec: a grid over some index variables, and for
 * every operand its array (the storage reshaped as its view says), a block
 * shape (sizes, or squeezed) and an index map giving each block's element
 * offset on every axis from the grid indices and prefetched scalars.
 *
 * Choices, per statement:
 *  - a variable that some access splits into digits is tiled in multiples of
 *    the place of its top digit: a block holds whole lower digits and a
 *    range of the top one (the reshape happens inside the block);
 *  - a variable that addresses an index load of a row gather is a grid axis
 *    of block 1, so the index is one scalar per grid step (scalar prefetch);
 *  - the other variables grow the block in this order until the budget is
 *    spent (cpu: L2; tpu: VMEM, counting tile padding and double buffering):
 *    those on some operand's minor axis first (from an aligned tile), then
 *    reductions (one that does not fit whole becomes an 'arbitrary' grid
 *    axis with an accumulator), then the output variables from the inside
 *    out; each takes its whole range or the largest aligned tile that fits,
 *    and what is left goes on the grid with block 1;
 *  - cpu: enough grid steps for every thread, while blocks stay >= 16 KiB.
 * tpu then enforces its block rule on every operand: the last two block dims
 * divisible by (8·packing, 128) or equal to the array's dims, a squeezed dim
 * counting as 1. Inputs whose axes break it are widened to the whole axis
 * (the kernel indexes inside the block); squeezed axes among the last two get
 * unit axes appended to the reshape. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CPU_BUDGET (256 << 10)
#define TPU_BUDGET (16 << 20) /* scoped VMEM, both buffers of every block */
#define CPU_THREADS 4

static int find_pvar(PlanStmt *ps, const Var *v)
{
	for (int i = 0; i < ps->nvars; i++)
		if (ps->vars[i].var == v)
			return i;
	return -1;
}

static void add_pvar(PlanStmt *ps, const Var *v, bool reduce)
{
	if (find_pvar(ps, v) >= 0 || ps->nvars == PLAN_MAXVARS)
		return;
	ps->vars[ps->nvars++] = (PlanVar){.var = v, .n = v->n, .block = v->n, .grid = -1, .reduce = reduce, .unit = 1};
}

/* A load with the variables it iterates over: the statement's, and those of
 * the reductions around it. */
typedef struct {
	Node *load;
	int nscope;
	const Var *scope[PLAN_MAXVARS];
} Scoped;

/* Loads of a statement in source order, and its reduction variables. */
static void collect(Arena *ar, PlanStmt *ps, Node *n, Vec *loads, const Var **scope, int nscope)
{
	const Var *inner[PLAN_MAXVARS];
	if (n->kind == N_LOAD || n->kind == N_FLAT) {
		Scoped *l = arena_alloc(ar, sizeof *l);
		l->load = n;
		l->nscope = nscope;
		for (int i = 0; i < nscope; i++)
			l->scope[i] = scope[i];
		vec_push(ar, loads, l);
	}
	if (n->kind == N_REDUCE) {
		for (int i = 0; i < nscope; i++)
			inner[i] = scope[i];
		for (int i = 0; i < n->nrvars; i++) {
			add_pvar(ps, n->rvars[i], true);
			if (nscope < PLAN_MAXVARS)
				inner[nscope++] = n->rvars[i];
		}
		scope = inner;
	}
	for (int i = 0; i < n->nargs; i++)
		collect(ar, ps, n->args[i], loads, scope, nscope);
}

static int64_t storage_of(const Tensor *t)
{
	return t->storage > 0 ? t->storage : 1;
}

static PlanOperand *add_operand(Arena *ar, PlanStmt *ps, Kernel *k, const Tensor *t, const Sym *off, int access,
                                const Var *const *scope, int nscope)
{
	PlanOperand *op = arena_alloc(ar, sizeof *op);
	op->t = t;
	op->access = access;
	view_analyse(&op->view, ar, off, storage_of(t), t, k, scope, nscope);
	vec_push(ar, &ps->ops, op);
	return op;
}

/* Is load n an index load inside a row gather of this statement? */
static bool is_index_load(PlanStmt *ps, const Node *n)
{
	for (int i = 0; i < ps->ops.n; i++) {
		const View *v = &((PlanOperand *)ps->ops.v[i])->view;
		for (int g = 0; v->cls == VIEW_ROWGATHER && g < v->ngat; g++)
			if (v->gat[g].index_load == n)
				return true;
	}
	return false;
}

/* A split variable (its blocks hold whole lower digits, so more than one
 * value) that addresses an index load of a row gather: that is not one row
 * per grid step, so the access falls back to an element gather. */
static const Var *split_var_in(PlanStmt *ps, const Sym *s)
{
	if (s->kind == S_VAR) {
		int i = find_pvar(ps, s->p);
		return i >= 0 && (ps->vars[i].split || ps->vars[i].whole) && ps->vars[i].n > 1 ? s->p : NULL;
	}
	for (int j = 0; j < s->n; j++) {
		const Var *v = split_var_in(ps, s->a[j]);
		if (v)
			return v;
	}
	return NULL;
}

static void check_gather_vars(PlanStmt *ps, Kernel *k, PlanOperand *op)
{
	View *v = &op->view;
	for (int g = 0; g < v->ngat && v->cls == VIEW_ROWGATHER; g++) {
		const Var *bad = split_var_in(ps, k->load_off[v->gat[g].index_load->load_id]);
		if (!bad)
			continue;
		Buf b = {0};
		dump_node(&b, v->gat[g].index_load);
		snprintf(v->reason, sizeof v->reason, "the index %s changes inside a block: %s, so a block holds several values of '%s'",
		         buf_str(&b), ps->scatter ? "the store is not a view" : "another access splits it into digits",
		         bad->name);
		buf_free(&b);
		v->cls = VIEW_ELEM;
	}
}

static void mark_vars(PlanStmt *ps, const Sym *s, int64_t block)
{
	if (s->kind == S_VAR) {
		int i = find_pvar(ps, s->p);
		if (i >= 0 && !ps->vars[i].split && !ps->vars[i].whole)
			ps->vars[i].block = block;
		return;
	}
	for (int j = 0; j < s->n; j++)
		mark_vars(ps, s->a[j], block);
}

/* ---- choosing blocks ---- */

static int packing(DType t)
{
	size_t s = athene_dtype_size(t);
	return s >= 4 ? 1 : s == 2 ? 2 : 4;
}

static int64_t lcm(int64_t a, int64_t b)
{
	int64_t l;
	return __builtin_mul_overflow(a / gcd64(a, b), b, &l) ? INT64_MAX : l;
}

/* The tpu alignment var i needs: its block on the last axis of an operand a
 * multiple of 128, on a second-minor one of 8·packing, else 1. A top digit
 * takes block/place of the variable, so its multiple scales by the place;
 * a lower digit is whole in the block and needs nothing. */
static int64_t tpu_align(PlanStmt *ps, int vi)
{
	int64_t align = 1;
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		int last = op->view.naxes - 1;
		for (int d = 0; d < op->view.ndig && op->view.cls != VIEW_ELEM; d++) {
			const ViewDigit *g = &op->view.dig[d];
			if (g->var != ps->vars[vi].var || g->axis < 0 || last - g->axis > 1 || g->index < g->nsplit - 1)
				continue;
			int64_t a = last == g->axis ? 128 : 8 * packing(op->t->dt);
			align = lcm(align, a * g->place);
		}
	}
	return align;
}

/* Does var i drive the last axis of some operand? */
static bool is_minor(PlanStmt *ps, int vi)
{
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		for (int d = 0; d < op->view.ndig && op->view.cls != VIEW_ELEM && !op->prefetch; d++) {
			const ViewDigit *g = &op->view.dig[d];
			if (g->var == ps->vars[vi].var && g->axis >= 0 && g->axis == op->view.naxes - 1)
				return true;
		}
	}
	return false;
}

/* Blocks of var i are multiples of this. */
static int64_t var_align(Plan *p, PlanStmt *ps, int i)
{
	int64_t a = p->target == TARGET_TPU ? tpu_align(ps, i) : is_minor(ps, i) ? 16 : 1;
	return lcm(a, ps->vars[i].unit);
}

/* Bytes of one grid step's blocks, all operands, when variable `trial` has
 * block tb (set variables their blocks, the others 1). On tpu the last two
 * dims of every block are padded to the (8·packing, 128) tile and each block
 * is double-buffered. An element gather loads its whole operand. */
static int64_t block_bytes(const Plan *p, PlanStmt *ps, const bool *set, int trial, int64_t tb)
{
	int64_t total = 0;
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		const View *v = &op->view;
		int64_t bytes = (int64_t)athene_dtype_size(op->t->dt), dim[VIEW_MAXAX] = {0};
		if (op->prefetch || (v->flags & VF_EMPTY))
			continue;
		int nd = v->cls == VIEW_ELEM ? 1 : v->naxes;
		if (nd <= 0 || nd > VIEW_MAXAX)
			continue;
		for (int a = 0; a < nd; a++) {
			dim[a] = v->cls == VIEW_ELEM ? storage_of(op->t) : 1;
			if (v->cls == VIEW_ELEM || v->ax[a].kind != VA_ITER)
				continue;
			const ViewDigit *g = &v->dig[v->ax[a].ref];
			int vi = find_pvar(ps, g->var);
			if (vi < 0 || ps->vars[vi].whole) {
				dim[a] = g->n;
				continue;
			}
			int64_t vb = vi == trial ? tb : set[vi] ? ps->vars[vi].block : ps->vars[vi].unit;
			/* a split variable: lower digits whole, a range of the top one */
			dim[a] = g->nsplit == 1 ? vb : g->index == g->nsplit - 1 ? (vb + g->place - 1) / g->place : g->n;
		}
		if (p->target == TARGET_TPU) {
			dim[nd - 1] = (dim[nd - 1] + 127) / 128 * 128;
			if (nd >= 2) {
				int64_t sub = 8 * packing(op->t->dt);
				dim[nd - 2] = (dim[nd - 2] + sub - 1) / sub * sub;
			}
		}
		for (int a = 0; a < nd; a++)
			if (__builtin_mul_overflow(bytes, dim[a] > 0 ? dim[a] : 1, &bytes))
				return INT64_MAX;
		if (__builtin_add_overflow(total, bytes, &total))
			return INT64_MAX;
	}
	if (p->target == TARGET_TPU && __builtin_mul_overflow(total, 2, &total))
		return INT64_MAX;
	return total;
}

/* The largest block of var i, a multiple of a (or the whole range), at
 * least cur, whose blocks fit the budget; cur when none does. */
static int64_t fit_block(const Plan *p, PlanStmt *ps, const bool *set, int i, int64_t a, int64_t cur, int64_t budget)
{
	int64_t n = ps->vars[i].n;
	if (block_bytes(p, ps, set, i, n) <= budget)
		return n;
	int64_t lo = 0, hi = n / a; /* in units of a: lo fits (or is 0), hi does not */
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (block_bytes(p, ps, set, i, mid * a) <= budget)
			lo = mid;
		else
			hi = mid;
	}
	if (lo > 0 && block_bytes(p, ps, set, i, lo * a) > budget)
		lo = 0;
	return lo * a > cur ? lo * a : cur;
}

/* Order of growth: variables on some operand's minor axis first (innermost
 * output variable first), then reductions, then the other output
 * variables from the inside out. Each grows to the whole range if the budget
 * allows, else to the largest aligned tile; what is left gets block 1. */
static void choose_blocks(Plan *p, PlanStmt *ps)
{
	int64_t budget = p->target == TARGET_TPU ? TPU_BUDGET : CPU_BUDGET;
	bool set[PLAN_MAXVARS] = {0};
	int order[PLAN_MAXVARS], no = 0;
	for (int i = 0; i < ps->nvars; i++)
		set[i] = ps->vars[i].whole || ps->vars[i].block <= 1;
	for (int pass = 0; pass < 3; pass++)
		for (int j = 0; j < ps->nvars; j++) {
			int i = j < ps->nlhs ? ps->nlhs - 1 - j : j; /* output variables inside out */
			bool minor = is_minor(ps, i), red = ps->vars[i].reduce;
			if (!set[i] && (pass == 0 ? minor : pass == 1 ? red && !minor : !red && !minor))
				order[no++] = i;
		}
	for (int j = 0; j < no; j++) { /* a first aligned tile for the minor ones */
		PlanVar *v = &ps->vars[order[j]];
		if (is_minor(ps, order[j])) {
			int64_t a = var_align(p, ps, order[j]);
			v->block = a < v->n ? a : v->n;
			set[order[j]] = true;
		}
	}
	for (int j = 0; j < no; j++) {
		int i = order[j];
		PlanVar *v = &ps->vars[i];
		/* at least one unit: a block of a split variable holds whole lower digits */
		int64_t cur = set[i] ? v->block : v->unit < v->n ? v->unit : v->n;
		v->block = fit_block(p, ps, set, i, var_align(p, ps, i), cur, budget);
		set[i] = true;
	}
	if (p->target != TARGET_CPU)
		return;
	/* enough blocks for every thread, but no block under 16 KiB */
	for (int guard = 0; guard < 16; guard++) {
		int64_t nb = 1;
		for (int i = 0; i < ps->nlhs; i++)
			nb *= (ps->vars[i].n + ps->vars[i].block - 1) / ps->vars[i].block;
		int o = 0;
		while (o < ps->nlhs && (ps->vars[o].split || ps->vars[o].whole || ps->vars[o].block < 2))
			o++;
		if (nb >= CPU_THREADS || o == ps->nlhs || block_bytes(p, ps, set, -1, 0) / 2 < (16 << 10))
			break;
		ps->vars[o].block = (ps->vars[o].block + 1) / 2;
	}
}

static void make_grid(PlanStmt *ps)
{
	ps->ngrid = 0;
	for (int i = 0; i < ps->nvars; i++) {
		PlanVar *v = &ps->vars[i];
		v->grid = -1;
		if (v->block > 0 && v->block < v->n && ps->ngrid < PLAN_MAXVARS) {
			v->grid = ps->ngrid;
			ps->grid_var[ps->ngrid++] = i;
		}
	}
}

/* ---- operand blocks ---- */

static void operand_axes(PlanStmt *ps, PlanOperand *op)
{
	const View *v = &op->view;
	op->naxes = 0;
	if (v->flags & VF_EMPTY)
		return; /* touches no element */
	if (v->cls == VIEW_ELEM) { /* the whole storage, read element by element */
		op->ax[op->naxes++] = (PlanAxis){.kind = VA_ITER, .size = storage_of(op->t), .block = storage_of(op->t),
		                                 .var = -1, .step = 1, .len = storage_of(op->t), .widened = true};
		return;
	}
	for (int i = 0; i < v->naxes; i++) {
		const VAxis *a = &v->ax[i];
		PlanAxis *x = &op->ax[op->naxes++];
		*x = (PlanAxis){.kind = a->kind, .size = a->size, .start = a->start, .step = a->step, .len = a->len, .var = -1,
		                .ref = a->ref, .stride = a->stride, .vaxis = i};
		if (a->kind != VA_ITER)
			continue; /* squeezed: a static index or a gathered row */
		const ViewDigit *g = &v->dig[a->ref];
		x->var = find_pvar(ps, g->var);
		x->block = g->n;
		if (x->var < 0)
			continue;
		const PlanVar *pv = &ps->vars[x->var];
		if (g->nsplit == 1)
			x->block = pv->grid >= 0 && pv->block == 1 ? 0 : pv->block;
		else if (g->index == g->nsplit - 1 && pv->grid >= 0)
			x->block = pv->block / g->place; /* a range of the top digit per step */
		else
			x->var = -1; /* a lower digit, or the variable is whole: not on the grid */
	}
}

static bool tpu_ok(int64_t block, int64_t size, int64_t align)
{
	int64_t b = block ? block : 1; /* squeezed counts as 1 */
	return b % align == 0 || b == size;
}

static void widen(PlanAxis *x)
{
	x->block = x->size;
	x->widened = true;
}

/* Appends a unit axis (a free reshape) so squeezed axes leave the last two. */
static void append_unit(PlanOperand *op, int at)
{
	memmove(&op->ax[at + 1], &op->ax[at], (size_t)(op->naxes - at) * sizeof op->ax[0]);
	op->ax[at] = (PlanAxis){.kind = VA_UNIT, .size = 1, .block = 1, .var = -1, .step = 1, .len = 1, .vaxis = -1};
	op->naxes++;
}

static void tpu_rules(PlanOperand *op, bool is_store)
{
	if (op->naxes == 0)
		return;
	int64_t sub = 8 * packing(op->t->dt);
	PlanAxis *last = &op->ax[op->naxes - 1];
	if (!last->block && last->kind == VA_INDEX && !is_store)
		widen(last); /* x[::2]: load whole rows, pick the column inside */
	if (!op->ax[op->naxes - 1].block) {
		append_unit(op, op->naxes);
		append_unit(op, op->naxes);
	}
	last = &op->ax[op->naxes - 1];
	if (!tpu_ok(last->block, last->size, 128) && !is_store)
		widen(last);
	if (op->naxes >= 2) {
		PlanAxis *second = &op->ax[op->naxes - 2];
		if (!second->block)
			append_unit(op, op->naxes - 1);
		else if (!tpu_ok(second->block, second->size, sub) && !is_store)
			widen(second);
	}
}

static void add_note(PlanStmt *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(PlanStmt *ps, const char *fmt, ...)
{
	size_t len = strlen(ps->notes);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->notes + len, sizeof ps->notes - len, fmt, ap);
	va_end(ap);
}

/* The tpu has no 64-bit vector types; index tensors are narrowed to i32
 * (their values are checked to be valid indices, so they fit). */
static void tpu_notes(PlanStmt *ps)
{
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		DType t = op->t->dt;
		if (op->prefetch && t == ATHENE_I64)
			add_note(ps, "%s: i64 index narrowed to i32 for scalar prefetch\n", op->t->name);
		else if (t == ATHENE_F64 || t == ATHENE_I64)
			add_note(ps, "%s: %s is not supported by the tpu: it would need a 32-bit copy\n", op->t->name,
			         athene_dtype_name(t));
	}
}

/* ---- the whole kernel ---- */

static bool let_fused(Kernel *k, Tensor *t)
{
	int uses = 0;
	bool bare = true;
	for (int i = 0; i < k->loads.n; i++) {
		Node *n = k->loads.v[i];
		if (n->t != t)
			continue;
		uses++;
		for (int d = 0; d < n->nargs; d++)
			bare &= n->args[d]->kind == N_IVAR;
	}
	Vec tmp = {0};
	PlanStmt dummy = {0};
	collect(&k->ctx->arena, &dummy, t->def->rhs, &tmp, NULL, 0);
	return uses == 1 && bare && dummy.nvars == 0; /* no reduction inside */
}

/* Variables some access splits into digits, with their units. */
static void mark_split(PlanStmt *ps)
{
	for (int i = 0; i < ps->ops.n; i++) {
		const View *v = &((PlanOperand *)ps->ops.v[i])->view;
		for (int d = 0; d < v->ndig; d++) {
			int j = v->dig[d].nsplit > 1 ? find_pvar(ps, v->dig[d].var) : -1;
			if (j < 0)
				continue;
			ps->vars[j].split = true;
			if (v->dig[d].index == v->dig[d].nsplit - 1)
				ps->vars[j].unit = lcm(ps->vars[j].unit, v->dig[d].place);
		}
	}
}

static void plan_stmt(Plan *p, PlanStmt *ps, Kernel *k, int si)
{
	Arena *ar = &k->ctx->arena;
	Stmt *s = k->stmts.v[si];
	ps->stmt = s;
	for (int d = 0; d < s->nlhs; d++)
		add_pvar(ps, s->lhs[d], false);
	ps->nlhs = ps->nvars;
	Vec loads = {0};
	const Var *scope[PLAN_MAXVARS];
	for (int d = 0; d < s->nlhs; d++)
		scope[d] = s->lhs[d];
	collect(ar, ps, s->rhs, &loads, scope, s->nlhs);
	add_operand(ar, ps, k, s->t, k->store_off[si], -1, scope, s->nlhs);
	for (int i = 0; i < loads.n; i++) {
		Scoped *l = loads.v[i];
		add_operand(ar, ps, k, l->load->t, k->load_off[l->load->load_id], l->load->load_id, l->scope, l->nscope);
	}
	ps->materialised = s->t->role != ROLE_LET || !let_fused(k, s->t);
	mark_split(ps);
	if (((PlanOperand *)ps->ops.v[0])->view.cls == VIEW_ELEM) {
		/* an output layout that is no view: one block writes all of it */
		ps->scatter = true;
		for (int i = 0; i < ps->nlhs; i++)
			ps->vars[i].whole = true;
		add_note(ps, "%s: the store is not a view (%s): one block writes the whole output\n", s->t->name,
		         ((PlanOperand *)ps->ops.v[0])->view.reason);
	}
	for (int i = 0; i < ps->ops.n; i++)
		check_gather_vars(ps, k, ps->ops.v[i]);
	/* index loads of row gathers become scalar-prefetch operands */
	for (int i = 1; i < ps->ops.n; i++) {
		PlanOperand *op = ps->ops.v[i];
		if (op->access >= 0 && is_index_load(ps, k->loads.v[op->access]))
			op->prefetch = true;
	}
	for (int i = 0; i < ps->ops.n; i++) {
		PlanOperand *op = ps->ops.v[i];
		if (op->prefetch)
			mark_vars(ps, k->load_off[op->access], 1);
	}
	for (int i = 0; i < ps->nlhs; i++)
		ps->empty |= ps->vars[i].n == 0;
	if (ps->empty)
		return;
	choose_blocks(p, ps);
	make_grid(ps);
	if (p->target == TARGET_TPU)
		tpu_notes(ps);
	for (int i = 0; i < ps->ops.n; i++) {
		PlanOperand *op = ps->ops.v[i];
		if (op->prefetch)
			continue;
		operand_axes(ps, op);
		if (p->target == TARGET_TPU)
			tpu_rules(op, i == 0);
	}
}

Plan *plan_kernel(Kernel *k, int target)
{
	Arena *ar = &k->ctx->arena;
	Plan *p = arena_alloc(ar, sizeof *p);
	p->target = target;
	p->k = k;
	p->nstmts = k->stmts.n;
	p->st = arena_alloc(ar, (size_t)(p->nstmts + 1) * sizeof *p->st);
	for (int i = 0; i < p->nstmts; i++)
		plan_stmt(p, &p->st[i], k, i);
	return p;
}

/* ---- checking ---- */

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
			/* a partial last block is masked to the slice [lo, lo + len) */
			int64_t lo = ax->step > 0 ? ax->start : ax->start - ax->len + 1, e = s + b;
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
		extent[a] = (v->n + v->block - 1) / v->block;
		npts *= extent[a];
	}
	int64_t storage = out->t->storage;
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
		bool first = true; /* reduction steps revisit the same block */
		for (int a = 0; a < ps->ngrid; a++)
			first &= !ps->vars[ps->grid_var[a]].reduce || gidx[a] == 0;
		if (!first)
			continue;
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
	if (out->view.cls == VIEW_ELEM) { /* a single block must write everything */
		for (int i = 0; i < ps->nlhs; i++)
			if (ps->vars[i].grid >= 0 || ps->vars[i].block != ps->vars[i].n)
				return plan_error(err, "output %s: the store is not a view but the block of %s is not all of it",
				                  ps->stmt->t->name, ps->vars[i].var->name);
		return 0;
	}
	for (int i = 0; i < ps->nlhs; i++) {
		const PlanVar *v = &ps->vars[i];
		int64_t g = v->grid >= 0 ? (v->n + v->block - 1) / v->block : 1;
		if (v->grid < 0 ? v->block != v->n : (g - 1) * v->block >= v->n || g * v->block < v->n)
			return plan_error(err, "output %s: the blocks of %s do not partition [0, %lld)", ps->stmt->t->name,
			                  v->var->name, (long long)v->n);
		int axes = 0;
		for (int d = 0; d < out->view.ndig; d++)
			axes += out->view.dig[d].var == v->var && out->view.dig[d].axis >= 0;
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
		const VAxis *va = &op->view.ax[ax->vaxis];
		const ViewDigit *g = &op->view.dig[va->ref];
		int64_t digit = val[g->var->id] / g->place;
		if (g->index < g->nsplit - 1)
			digit %= g->n;
		int64_t pos = va->start + va->step * digit, s = block_start(ax, ps, gidx);
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
			if (op->prefetch || op->view.cls == VIEW_ELEM || (op->view.flags & VF_EMPTY))
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
		extent[a] = (v->n + v->block - 1) / v->block;
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

int plan_check(const Plan *p, Buf *err)
{
	for (int i = 0; i < p->nstmts; i++)
		if (check_stmt(&p->st[i], err))
			return -1;
	return 0;
}

/* The tpu block rule on every operand; 0 when all obey it. */
int plan_check_tpu(const Plan *p, Buf *err)
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
				if (!tpu_ok(s->block, s->size, 8 * packing(op->t->dt)))
					return plan_error(err, "%s: second-minor block dim %lld of %lld breaks the (8, 128) rule",
					                  op->t->name, (long long)s->block, (long long)s->size);
			}
		}
	}
	return 0;
}

/* ---- printing (athene explain) ---- */

static void json_str(Buf *b, const char *s)
{
	buf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_putc(b, '\\');
		if ((unsigned char)*s < 0x20)
			buf_printf(b, "\\u%04x", *s);
		else
			buf_putc(b, *s);
	}
	buf_putc(b, '"');
}

/* The element offset of axis x's block, in terms of the grid indices. */
static void axis_map(Buf *b, const PlanStmt *ps, const PlanAxis *x)
{
	if (x->widened || x->kind == VA_UNIT) {
		buf_printf(b, "0");
		return;
	}
	if (x->kind == VA_INDEX) {
		buf_printf(b, "%lld", (long long)x->start);
		return;
	}
	const PlanVar *v = x->var >= 0 ? &ps->vars[x->var] : NULL;
	int64_t blk = x->block ? x->block : 1;
	int64_t s = x->step > 0 ? x->start : x->start - blk + 1;
	if (!v || v->grid < 0) {
		buf_printf(b, "%lld", (long long)(x->step > 0 ? x->start : x->start - x->len + 1));
		return;
	}
	if (s)
		buf_printf(b, "%lld %c ", (long long)s, x->step > 0 ? '+' : '-');
	else if (x->step < 0)
		buf_putc(b, '-');
	if (blk != 1)
		buf_printf(b, "%lld*", (long long)blk);
	buf_printf(b, "%s", v->var->name);
}

static void print_tuple(Buf *b, const PlanOperand *op, int what, const PlanStmt *ps, bool json)
{
	buf_printf(b, json ? "[" : "(");
	for (int i = 0; i < op->naxes; i++) {
		const PlanAxis *x = &op->ax[i];
		if (i)
			buf_printf(b, ", ");
		if (what == 0)
			buf_printf(b, "%lld", (long long)x->size);
		else if (what == 1)
			buf_printf(b, x->block ? "%lld" : (json ? "null" : "-"), (long long)x->block);
		else {
			Buf m = {0};
			if (x->kind == VA_GATHER)
				gather_position(&m, &op->view, &op->view.ax[op->view.gat[x->ref].axis]);
			else
				axis_map(&m, ps, x);
			if (json)
				json_str(b, buf_str(&m));
			else
				buf_printf(b, "%s", buf_str(&m));
			buf_free(&m);
		}
	}
	buf_printf(b, json ? "]" : (op->naxes == 1 ? ",)" : ")"));
}

static const char *access_kind(const PlanOperand *op)
{
	return op->access < 0 ? "store" : op->prefetch ? "index" : "load";
}

static void explain_access_text(Buf *b, const PlanOperand *op)
{
	Buf c = {0}, v = {0};
	if (op->access < 0 && op->view.cls == VIEW_ELEM)
		buf_printf(&c, "element scatter");
	else
		view_class(&c, &op->view);
	view_print(&v, &op->view);
	buf_printf(b, "    %-5s %-8s %s\n", access_kind(op), op->t->name, buf_str(&c));
	buf_printf(b, "          view  %s\n", buf_str(&v));
	buf_free(&c);
	buf_free(&v);
}

static void explain_plan_text(Buf *b, const PlanStmt *ps)
{
	if (ps->empty) {
		buf_printf(b, "    plan  empty: the output has no elements\n");
		return;
	}
	buf_printf(b, "    plan  grid (");
	for (int a = 0; a < ps->ngrid; a++) {
		const PlanVar *v = &ps->vars[ps->grid_var[a]];
		buf_printf(b, "%s%lld", a ? ", " : "", (long long)((v->n + v->block - 1) / v->block));
	}
	buf_printf(b, ps->ngrid == 1 ? ",)" : ")");
	for (int i = 0; i < ps->nvars; i++) {
		const PlanVar *v = &ps->vars[i];
		buf_printf(b, "%s%s ", i ? ", " : "  ", v->var->name);
		if (v->grid >= 0)
			buf_printf(b, "%s%lld blocks of %lld%s", v->reduce ? "arbitrary " : "",
			           (long long)((v->n + v->block - 1) / v->block), (long long)v->block, v->split ? " (split)" : "");
		else
			buf_printf(b, "whole %lld%s", (long long)v->n, v->split ? " (split)" : "");
	}
	buf_printf(b, "\n");
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		if (op->prefetch) {
			buf_printf(b, "          %-8s scalar prefetch\n", op->t->name);
			continue;
		}
		if (op->naxes == 0) {
			buf_printf(b, "          %-8s no elements\n", op->t->name);
			continue;
		}
		Buf t = {0};
		buf_printf(&t, "          %-8s array ", op->t->name);
		print_tuple(&t, op, 0, ps, false);
		buf_printf(&t, "  block ");
		print_tuple(&t, op, 1, ps, false);
		buf_printf(&t, "  map ");
		print_tuple(&t, op, 2, ps, false);
		int nw = 0;
		for (int x = 0; x < op->naxes; x++)
			if (op->ax[x].widened)
				buf_printf(&t, nw++ ? ", %d" : "  (loaded whole, indexed in the kernel: axis %d", x);
		if (nw)
			buf_putc(&t, ')');
		buf_printf(b, "%s\n", buf_str(&t));
		buf_free(&t);
	}
	const char *n = ps->notes;
	while (*n) {
		const char *e = strchr(n, '\n');
		if (!e)
			break;
		buf_printf(b, "          note: %.*s\n", (int)(e - n), n);
		n = e + 1;
	}
}

static void explain_json_stmt(Buf *b, const PlanStmt *ps)
{
	Buf tmp = {0};
	buf_printf(b, "{\"target\": ");
	json_str(b, ps->stmt->t->name);
	buf_printf(b, ", \"materialised\": %s, \"accesses\": [", ps->materialised ? "true" : "false");
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		buf_printf(b, "%s{\"tensor\": ", i ? ", " : "");
		json_str(b, op->t->name);
		buf_printf(b, ", \"kind\": \"%s\", \"class\": ", access_kind(op));
		tmp.len = 0;
		if (op->access < 0 && op->view.cls == VIEW_ELEM)
			buf_printf(&tmp, "element scatter");
		else
			view_class(&tmp, &op->view);
		json_str(b, buf_str(&tmp));
		buf_printf(b, ", \"view\": ");
		tmp.len = 0;
		view_print(&tmp, &op->view);
		json_str(b, op->view.cls == VIEW_ELEM ? "" : buf_str(&tmp));
		buf_printf(b, ", \"reason\": ");
		if (op->view.cls == VIEW_ELEM)
			json_str(b, op->view.reason);
		else
			buf_printf(b, "null");
		if (!op->prefetch) {
			buf_printf(b, ", \"array\": ");
			print_tuple(b, op, 0, ps, true);
			buf_printf(b, ", \"block\": ");
			print_tuple(b, op, 1, ps, true);
			buf_printf(b, ", \"map\": ");
			print_tuple(b, op, 2, ps, true);
			buf_printf(b, ", \"widened\": [");
			for (int x = 0; x < op->naxes; x++)
				buf_printf(b, "%s%s", x ? ", " : "", op->ax[x].widened ? "true" : "false");
			buf_putc(b, ']');
		}
		buf_putc(b, '}');
	}
	buf_printf(b, "], \"grid\": [");
	for (int a = 0; a < ps->ngrid; a++) {
		const PlanVar *v = &ps->vars[ps->grid_var[a]];
		buf_printf(b, "%s{\"var\": ", a ? ", " : "");
		json_str(b, v->var->name);
		buf_printf(b, ", \"blocks\": %lld, \"block\": %lld, \"semantics\": \"%s\"}",
		           (long long)((v->n + v->block - 1) / v->block), (long long)v->block, v->reduce ? "arbitrary" : "parallel");
	}
	buf_printf(b, "], \"prefetch\": [");
	bool first = true;
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		if (!op->prefetch)
			continue;
		buf_printf(b, first ? "" : ", ");
		json_str(b, op->t->name);
		first = false;
	}
	buf_printf(b, "], \"empty\": %s, \"notes\": ", ps->empty ? "true" : "false");
	json_str(b, ps->notes);
	buf_printf(b, "}");
	buf_free(&tmp);
}

void plan_explain(Buf *b, const Plan *p, bool json)
{
	const char *tname = p->target == TARGET_TPU ? "tpu" : "cpu";
	if (json) {
		buf_printf(b, "{\"kernel\": ");
		json_str(b, p->k->name);
		buf_printf(b, ", \"target\": \"%s\", \"statements\": [", tname);
		for (int i = 0; i < p->nstmts; i++) {
			buf_printf(b, i ? ", " : "");
			explain_json_stmt(b, &p->st[i]);
		}
		buf_printf(b, "]}");
		return;
	}
	buf_printf(b, "kernel %s  (target %s)\n", p->k->name, tname);
	for (int i = 0; i < p->nstmts; i++) {
		const PlanStmt *ps = &p->st[i];
		const Stmt *s = ps->stmt;
		buf_printf(b, "  %s%s[", s->t->role == ROLE_LET ? "let " : "", s->t->name);
		for (int d = 0; d < s->nlhs; d++)
			buf_printf(b, "%s%s", d ? ", " : "", s->lhs[d]->name);
		buf_printf(b, "] = ");
		dump_node(b, s->rhs);
		if (s->t->role == ROLE_LET)
			buf_printf(b, ps->materialised ? "    # materialised" : "    # fused into its consumer");
		buf_putc(b, '\n');
		for (int j = 0; j < ps->ops.n; j++)
			explain_access_text(b, ps->ops.v[j]);
		explain_plan_text(b, ps);
	}
}
