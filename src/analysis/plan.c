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
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#include <unistd.h>

static int machine_threads(void)
{
	static atomic_int cached; /* sysconf reads files: once */
	int c = atomic_load(&cached);
	if (!c) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		c = n > 0 && n < 1024 ? (int)n : 1;
		atomic_store(&cached, c);
	}
	return c;
}

const Target *target_for(const Target *t, int threads, Target *buf)
{
	*buf = *t;
	if (!buf->threads)
		buf->threads = threads > 0 ? threads : machine_threads();
	return buf;
}

static int find_pvar(const PlanStmt *ps, const Var *v)
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
	int64_t n = var_extent(ps->in, v);
	ps->vars[ps->nvars++] = (PlanVar){.var = v, .n = n, .block = n, .grid = -1, .reduce = reduce, .unit = 1};
}

/* The reduction variables of an expression (fused lets have none). */
static void reduction_vars(PlanStmt *ps, const Node *n)
{
	if (n->kind == N_REDUCE)
		for (int i = 0; i < n->nrvars; i++)
			add_pvar(ps, n->rvars[i], true);
	for (int i = 0; i < n->nargs; i++)
		reduction_vars(ps, n->args[i]);
}

static int64_t storage_of(const Inst *in, const Tensor *t)
{
	int64_t s = tensor_layout(in, t)->storage;
	return s > 0 ? s : 1;
}

static bool node_within(const Node *tree, const Node *n)
{
	if (tree == n)
		return true;
	for (int i = 0; i < tree->nargs; i++)
		if (node_within(tree->args[i], n))
			return true;
	return false;
}

/* Is load n an index load inside a row gather of this statement? Every
 * copy of it in the gathered index counts (where(i < 0, i + m, i) reads i
 * three times). */
static bool is_index_load(PlanStmt *ps, const Node *n)
{
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		for (int g = 0; op->cls == VIEW_ROWGATHER && g < op->view->ngat; g++) {
			const ViewGather *vg = &op->view->gat[g];
			if (vg->index_load == n || (node_within(vg->atom->p, n) && ast_equal(vg->index_load, n)))
				return true;
		}
	}
	return false;
}

/* The operand of index load n in this statement. */
static const PlanOperand *index_operand(const PlanStmt *ps, const Node *n)
{
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		if (op->acc->load == n)
			return op;
	}
	die("an index load that is no access of its statement");
}

/* Does the index load read only the top digit of split variable vi, with
 * the place of that digit the variable's unit? Then a block of one unit
 * holds one index value: y[x] = t.flat[x % 32 + 32*idx[x // 32]]. */
static bool top_digit_only(const PlanStmt *ps, const PlanOperand *iop, int vi)
{
	const View *v = iop->view;
	if (v->cls != VIEW_VIEW)
		return false;
	for (int d = 0; d < v->ndig; d++) {
		const ViewDigit *g = &v->dig[d];
		if (g->var != ps->vars[vi].var || g->coef == 0 || g->n <= 1)
			continue;
		if (g->index != g->nsplit - 1 || g->place != ps->vars[vi].unit)
			return false;
	}
	return true;
}

/* A variable whose blocks hold several values of the index (a split
 * variable whose index reads its lower digits, or one kept whole): that is
 * not one row per grid step, so the access falls back to an element gather. */
static const Var *split_var_in(const PlanStmt *ps, const Sym *s, const PlanOperand *iop)
{
	if (s->kind == S_VAR) {
		int i = find_pvar(ps, s->p);
		if (i < 0 || ps->vars[i].n <= 1 || (!ps->vars[i].split && !ps->vars[i].whole))
			return NULL;
		return !ps->vars[i].whole && top_digit_only(ps, iop, i) ? NULL : s->p;
	}
	for (int j = 0; j < s->n; j++) {
		const Var *v = split_var_in(ps, s->a[j], iop);
		if (v)
			return v;
	}
	return NULL;
}

static void check_gather_vars(Arena *ar, PlanStmt *ps, PlanOperand *op)
{
	const View *v = op->view;
	for (int g = 0; g < v->ngat && op->cls == VIEW_ROWGATHER; g++) {
		const PlanOperand *iop = index_operand(ps, v->gat[g].index_load);
		const Var *bad = split_var_in(ps, iop->acc->off, iop);
		if (!bad)
			continue;
		Buf b = {0};
		ast_print(&b, v->gat[g].index_load);
		char *r = arena_alloc(ar, 256);
		int vi = find_pvar(ps, bad);
		if (ps->scatter)
			snprintf(r, 256, "the index %s changes inside a block: the store is not a view, so a block holds "
			         "several values of '%s'", buf_str(&b), bad->name);
		else
			snprintf(r, 256, "the index %s changes inside a block: it reads '%s' below its unit (%lld), and a block "
			         "of a split variable holds whole units", buf_str(&b), bad->name, (long long)ps->vars[vi].unit);
		buf_free(&b);
		op->reason = r;
		op->cls = VIEW_ELEM;
	}
}

/* The variables of a prefetched index get one index value per grid step:
 * block 1, or one unit for a split variable whose top digit the index reads. */
static void mark_vars(PlanStmt *ps, const Sym *s)
{
	if (s->kind == S_VAR) {
		int i = find_pvar(ps, s->p);
		if (i >= 0 && !ps->vars[i].whole) {
			ps->vars[i].block = ps->vars[i].split ? ps->vars[i].unit : 1;
			ps->vars[i].pinned = true;
		}
		return;
	}
	for (int j = 0; j < s->n; j++)
		mark_vars(ps, s->a[j]);
}

/* ---- choosing blocks ---- */

int dtype_packing(DType t)
{
	size_t s = athene_dtype_size(t);
	return s >= 4 ? 1 : s == 2 ? 2 : 4;
}

static int64_t lcm(int64_t a, int64_t b)
{
	int64_t l, g = gcd64(a, b);
	return g == 0 || !i64_mul(a / g, b, &l) ? INT64_MAX : l;
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
		int last = op->view->naxes - 1;
		for (int d = 0; d < op->view->ndig && op->cls != VIEW_ELEM; d++) {
			const ViewDigit *g = &op->view->dig[d];
			if (g->var != ps->vars[vi].var || g->axis < 0 || last - g->axis > 1 || g->index < g->nsplit - 1)
				continue;
			int64_t a = last == g->axis ? 128 : 8 * dtype_packing(op->t->dt);
			align = lcm(align, i64_mul(a, g->place, &a) ? a : INT64_MAX);
		}
	}
	return align;
}

/* The points of the variables on op's axes (saturating). */
static int64_t op_reach(const PlanStmt *ps, const PlanOperand *op)
{
	int64_t n = 1;
	for (int i = 0; i < ps->nvars; i++)
		for (int d = 0; d < op->view->ndig; d++)
			if (op->view->dig[d].var == ps->vars[i].var && op->view->dig[d].axis >= 0) {
				if (!i64_mul(n, ps->vars[i].n, &n))
					return INT64_MAX;
				break;
			}
	return n;
}

/* Does var i drive the last axis of some operand? On a target without
 * tiles, not of an operand that reaches under 1/8 of the statement's
 * points (a row's scale s[i] beside x[i, j], a reduction's own earlier
 * result): its rows are short whatever the block, and a first aligned tile
 * of i would cut the large operands' rows into pieces (x[i, j] * s[i] of
 * (8192, 1024) was planned (64, 448) where x * 2 is (32, 1024), and ran
 * at a third of its speed). */
static bool is_minor(const Plan *p, PlanStmt *ps, int vi)
{
	int64_t all = 1;
	for (int i = 0; i < ps->nvars; i++)
		if (!i64_mul(all, ps->vars[i].n, &all))
			all = INT64_MAX;
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		if (!p->tg->tiles && op_reach(ps, op) < all / 8)
			continue;
		for (int d = 0; d < op->view->ndig && op->cls != VIEW_ELEM && !op->prefetch; d++) {
			const ViewDigit *g = &op->view->dig[d];
			if (g->var == ps->vars[vi].var && g->axis >= 0 && g->axis == op->view->naxes - 1)
				return true;
		}
	}
	return false;
}

/* Blocks of var i are multiples of this. */
static int64_t var_align(Plan *p, PlanStmt *ps, int i)
{
	int64_t a = p->tg->tiles ? tpu_align(ps, i) : is_minor(p, ps, i) ? p->tg->minor_align : 1;
	return lcm(a, ps->vars[i].unit);
}

/* A strided slice of a declared dim (step other than ±1): blocks are
 * contiguous, so the axis is loaded whole and indexed in the kernel. */
static bool strided_axis(const VAxis *a)
{
	return a->kind == VA_ITER && (a->step < -1 || a->step > 1);
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
		const View *v = op->view;
		int64_t bytes = (int64_t)athene_dtype_size(op->t->dt), dim[VIEW_MAXAX] = {0};
		bool elem = op->cls == VIEW_ELEM;
		if (op->prefetch || (v->flags & VF_EMPTY))
			continue;
		int nd = elem ? 1 : v->naxes;
		if (nd <= 0 || nd > VIEW_MAXAX)
			continue;
		for (int a = 0; a < nd; a++) {
			dim[a] = elem ? storage_of(p->in, op->t) : 1;
			if (elem || v->ax[a].kind != VA_ITER)
				continue;
			const ViewDigit *g = &v->dig[v->ax[a].ref];
			int vi = find_pvar(ps, g->var);
			if (strided_axis(&v->ax[a])) {
				dim[a] = v->ax[a].size; /* loaded whole */
				continue;
			}
			if (vi < 0 || ps->vars[vi].whole) {
				dim[a] = g->n;
				continue;
			}
			int64_t vb = vi == trial ? tb : set[vi] ? ps->vars[vi].block : ps->vars[vi].unit;
			/* a split variable: lower digits whole, a range of the top one */
			dim[a] = g->nsplit == 1 ? vb : g->index == g->nsplit - 1 ? i64_ceil_div(vb, g->place) : g->n;
		}
		if (p->tg->tiles) {
			if (!i64_round_up(dim[nd - 1], 128, &dim[nd - 1]) ||
			    (nd >= 2 && !i64_round_up(dim[nd - 2], 8 * dtype_packing(op->t->dt), &dim[nd - 2])))
				return INT64_MAX;
		}
		for (int a = 0; a < nd; a++)
			if (__builtin_mul_overflow(bytes, dim[a] > 0 ? dim[a] : 1, &bytes))
				return INT64_MAX;
		if (__builtin_add_overflow(total, bytes, &total))
			return INT64_MAX;
	}
	if (__builtin_mul_overflow(total, p->tg->buffers, &total))
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

/* The variable on op's axis `back` places from the last (0: the minor
 * axis), or -1. */
static int axis_var(const PlanStmt *ps, const PlanOperand *op, int back)
{
	const View *v = op->view;
	if (op->cls == VIEW_ELEM || op->prefetch || v->naxes <= back)
		return -1;
	for (int d = 0; d < v->ndig; d++)
		if (v->dig[d].axis == v->naxes - 1 - back)
			return find_pvar(ps, v->dig[d].var);
	return -1;
}

/* On a target without tiles, a statement that transposes its last two
 * axes (a load whose minor variable is the store's second-minor one) reads
 * best from few source rows at a time, each in long stretches: 32 of them,
 * as many streams as the hardware prefetcher follows, each a page (4 KiB)
 * at a time, the stretch it follows without a pause. Measured on an 8192²
 * f32 relu(x.T * s + b), alternating binaries: blocks of (1024, 32)
 * 0.67-0.82 of copy, (512, 32) 0.65-0.72, (960, 32) 0.63-0.74, (64, 448)
 * 0.49-0.72. So the store's minor variable gets TRANSPOSE_BYTES (two whole
 * lines of every output row) and the load's TRANSPOSE_RUN bytes of its
 * rows, halved while the blocks that grow with it exceed the budget (the
 * others, such as a row of scales, may take it a little over: budget_note
 * says so); neither grows further. A statement whose blocks fit whole
 * keeps them. */
#define TRANSPOSE_BYTES 128
#define TRANSPOSE_RUN 4096
static bool transposed_minor(const Plan *p, PlanStmt *ps, int *js, int *jl)
{
	if (p->tg->tiles || ps->ops.n < 2)
		return false;
	*js = axis_var(ps, ps->ops.v[0], 0);
	*jl = axis_var(ps, ps->ops.v[0], 1);
	if (*js < 0 || *jl < 0 || *js == *jl || ps->vars[*js].split || ps->vars[*jl].split)
		return false;
	bool transposed = false;
	for (int i = 1; i < ps->ops.n; i++)
		transposed |= axis_var(ps, ps->ops.v[i], 0) == *jl && axis_var(ps, ps->ops.v[i], 1) == *js;
	if (!transposed)
		return false;
	bool all[PLAN_MAXVARS]; /* a statement whose blocks fit whole keeps them */
	int64_t keep[PLAN_MAXVARS];
	for (int i = 0; i < ps->nvars; i++) {
		all[i] = true;
		keep[i] = ps->vars[i].block;
		if (!ps->vars[i].pinned)
			ps->vars[i].block = ps->vars[i].n;
	}
	int64_t whole = block_bytes(p, ps, all, -1, 0);
	for (int i = 0; i < ps->nvars; i++)
		ps->vars[i].block = keep[i];
	return whole > p->tg->budget;
}

/* The blocks of transposed_minor's two variables (set them). */
static void transpose_blocks(const Plan *p, PlanStmt *ps, bool *set, int js, int jl)
{
	const PlanOperand *store = ps->ops.v[0];
	PlanVar *s = &ps->vars[js], *l = &ps->vars[jl];
	int64_t bs = TRANSPOSE_BYTES / (int64_t)athene_dtype_size(store->t->dt), bl = TRANSPOSE_RUN / 4;
	for (int i = 1; i < ps->ops.n; i++) { /* the run in elements of the transposed load */
		const PlanOperand *load = ps->ops.v[i];
		if (axis_var(ps, load, 0) == jl)
			bl = TRANSPOSE_RUN / (int64_t)athene_dtype_size(load->t->dt);
	}
	s->block = bs < s->n ? bs : s->n;
	set[js] = true;
	while (bl > 64 && block_bytes(p, ps, set, jl, bl) - block_bytes(p, ps, set, jl, 1) > p->tg->budget)
		bl /= 2;
	l->block = bl < l->n ? bl : l->n;
	set[jl] = true;
}

/* Order of growth: variables on some operand's minor axis first (innermost
 * output variable first), then reductions, then the other output
 * variables from the inside out. Each grows to the whole range if the budget
 * allows, else to the largest aligned tile; what is left gets block 1. */
static void choose_blocks(Plan *p, PlanStmt *ps)
{
	int64_t budget = p->tg->budget;
	bool set[PLAN_MAXVARS] = {0};
	int order[PLAN_MAXVARS], no = 0;
	for (int i = 0; i < ps->nvars; i++)
		set[i] = ps->vars[i].whole || ps->vars[i].pinned;
	for (int pass = 0; pass < 3; pass++)
		for (int j = 0; j < ps->nvars; j++) {
			int i = j < ps->nlhs ? ps->nlhs - 1 - j : j; /* output variables inside out */
			bool minor = is_minor(p, ps, i), red = ps->vars[i].reduce;
			if (!set[i] && (pass == 0 ? minor : pass == 1 ? red && !minor : !red && !minor))
				order[no++] = i;
		}
	int js = -1, jl = -1;
	if (transposed_minor(p, ps, &js, &jl) && !set[js] && !set[jl])
		transpose_blocks(p, ps, set, js, jl);
	else
		js = jl = -1;
	for (int j = 0; j < no; j++) { /* a first aligned tile for the minor ones */
		PlanVar *v = &ps->vars[order[j]];
		if (is_minor(p, ps, order[j]) && order[j] != js && order[j] != jl) {
			int64_t a = var_align(p, ps, order[j]);
			v->block = a < v->n ? a : v->n;
			set[order[j]] = true;
		}
	}
	for (int j = 0; j < no; j++) {
		int i = order[j];
		PlanVar *v = &ps->vars[i];
		if (i == js || i == jl)
			continue;
		/* at least one unit: a block of a split variable holds whole lower
		 * digits (on a tiled target an aligned one, so the block rule holds
		 * even when nothing fits the budget) */
		int64_t first = v->unit > 1 && p->tg->tiles ? var_align(p, ps, i) : v->unit;
		int64_t cur = set[i] ? v->block : first < v->n ? first : v->n;
		v->block = fit_block(p, ps, set, i, var_align(p, ps, i), cur, budget);
		set[i] = true;
	}
	if (p->tg->threads <= 1)
		return;
	/* enough blocks for every thread, but no block under min_block bytes */
	for (int guard = 0; guard < 16; guard++) {
		int64_t nb = 1;
		for (int i = 0; i < ps->nlhs; i++)
			if (!i64_mul(nb, i64_ceil_div(ps->vars[i].n, ps->vars[i].block), &nb))
				nb = INT64_MAX;
		int o = 0;
		while (o < ps->nlhs && (ps->vars[o].split || ps->vars[o].whole || ps->vars[o].block < 2))
			o++;
		if (nb >= p->tg->threads || o == ps->nlhs || block_bytes(p, ps, set, -1, 0) / 2 < p->tg->min_block)
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

static void widen(PlanAxis *x)
{
	x->block = x->size;
	x->widened = true;
}

/* A variable pinned at one unit per grid step (a gather's index reads its
 * top digit) on a whole axis that does not cut it: on a tiled target the
 * axis is cut at the unit, (n / unit, unit), so the block is one squeezed
 * row of a whole minor axis rather than a slice of the axis. */
static bool cut_axis(PlanOperand *op, const PlanVar *pv, const ViewDigit *g, const VAxis *a)
{
	if (!pv->pinned || !pv->split || pv->grid < 0 || g->nsplit != 1 || a->start || a->step != 1 ||
	    a->len != a->size || a->size % pv->unit || op->naxes >= VIEW_MAXAX + 2)
		return false;
	PlanAxis *hi = &op->ax[op->naxes - 1], *lo = &op->ax[op->naxes++];
	*lo = *hi;
	hi->size = a->size / pv->unit;
	hi->len = hi->size;
	hi->stride = a->stride * pv->unit;
	hi->place = pv->unit;
	hi->block = 0; /* one value of the top digit per grid step */
	lo->size = lo->len = lo->block = pv->unit;
	lo->place = 1;
	lo->var = -1; /* whole in the block */
	return true;
}

static void operand_axes(const Plan *p, PlanStmt *ps, PlanOperand *op)
{
	const View *v = op->view;
	op->naxes = 0;
	if (v->flags & VF_EMPTY)
		return; /* touches no element */
	if (op->cls == VIEW_ELEM) { /* the whole storage, read element by element */
		int64_t n = storage_of(p->in, op->t);
		op->ax[op->naxes++] = (PlanAxis){.kind = VA_ITER, .size = n, .block = n, .var = -1, .step = 1, .len = n,
		                                 .widened = true};
		return;
	}
	for (int i = 0; i < v->naxes; i++) {
		const VAxis *a = &v->ax[i];
		PlanAxis *x = &op->ax[op->naxes++];
		*x = (PlanAxis){.kind = a->kind, .size = a->size, .start = a->start, .step = a->step, .len = a->len, .var = -1,
		                .ref = a->ref, .stride = a->stride, .vaxis = i};
		if (a->kind != VA_ITER)
			continue; /* squeezed: a static index or a gathered row */
		if (strided_axis(a)) {
			widen(x);
			continue;
		}
		const ViewDigit *g = &v->dig[a->ref];
		x->var = find_pvar(ps, g->var);
		x->block = g->n;
		x->masked = g->masked;
		x->mlo = g->mlo;
		x->mhi = g->mhi;
		if (x->var < 0)
			continue;
		const PlanVar *pv = &ps->vars[x->var];
		if (p->tg->tiles && cut_axis(op, pv, g, a))
			continue;
		if (g->nsplit == 1)
			x->block = pv->grid >= 0 && pv->block == 1 ? 0 : pv->block;
		else if (g->index == g->nsplit - 1 && pv->grid >= 0)
			x->block = pv->block / g->place; /* a range of the top digit per step */
		else
			x->var = -1; /* a lower digit, or the variable is whole: not on the grid */
	}
}

bool tpu_ok(int64_t block, int64_t size, int64_t align)
{
	int64_t b = block ? block : 1; /* squeezed counts as 1 */
	return b % align == 0 || b == size;
}


/* Appends a unit axis (a free reshape) so squeezed axes leave the last two. */
static void append_unit(PlanOperand *op, int at)
{
	memmove(&op->ax[at + 1], &op->ax[at], (size_t)(op->naxes - at) * sizeof op->ax[0]);
	op->ax[at] = (PlanAxis){.kind = VA_UNIT, .size = 1, .block = 1, .var = -1, .step = 1, .len = 1, .vaxis = -1};
	op->naxes++;
}

static void tile_rules(PlanOperand *op, bool is_store)
{
	if (op->naxes == 0)
		return;
	int64_t sub = 8 * dtype_packing(op->t->dt);
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

/* Stores are never widened: a store block the rule rejects is something
 * the target cannot write, a located error rather than a wrong plan. */
static void store_tiles(const Plan *p, const PlanStmt *ps)
{
	const PlanOperand *op = ps->ops.v[0];
	for (int k = 1; k <= 2 && k <= op->naxes; k++) {
		const PlanAxis *x = &op->ax[op->naxes - k];
		int64_t align = k == 1 ? 128 : 8 * dtype_packing(op->t->dt);
		if (!tpu_ok(x->block, x->size, align))
			error_at(&((Inst *)p->in)->diag, ps->stmt->sp,
			         "kernel %s: the %s cannot store '%s' in blocks of %lld on an axis of %lld: its %s block dim must "
			         "be a multiple of %lld or the whole axis", p->in->k->name, p->tg->name, op->t->name,
			         (long long)(x->block ? x->block : 1), (long long)x->size, k == 1 ? "last" : "second-minor",
			         (long long)align);
	}
}

static void add_note(PlanStmt *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(PlanStmt *ps, const char *fmt, ...)
{
	char line[sizeof ps->notes];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	for (const char *at = ps->notes; (at = strstr(at, line)); at++)
		if (at == ps->notes || at[-1] == '\n')
			return; /* one line for the copies of a load */
	size_t len = strlen(ps->notes);
	snprintf(ps->notes + len, sizeof ps->notes - len, "%s", line);
}

/* A target with no 64-bit vector types: index tensors are narrowed to i32
 * (their values are checked to be valid indices, so they fit). */
static void narrow_notes(PlanStmt *ps, const char *target)
{
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		DType t = op->t->dt;
		if (op->prefetch && t == ATHENE_I64)
			add_note(ps, "%s: i64 index narrowed to i32 for scalar prefetch\n", op->t->name);
		else if (t == ATHENE_F64 || t == ATHENE_I64)
			add_note(ps, "%s: %s is not supported by the %s: it would need a 32-bit copy\n", op->t->name,
			         athene_dtype_name(t), target);
	}
}

/* "j in [1, 16], i in [2, 5]": the ranges a masked view reads. */
static void masked_ranges(char *where, size_t n, const View *v)
{
	where[0] = 0;
	for (int d = 0, len = 0; d < v->ndig && len < (int)n; d++)
		if (v->dig[d].masked)
			len += snprintf(where + len, n - (size_t)len, "%s%s in [%lld, %lld]", len ? ", " : "",
			                v->dig[d].var->name, (long long)v->dig[d].mlo, (long long)v->dig[d].mhi);
}

/* A rolled operand: two masked pieces of one array, the blocks those of
 * the first; a target whose backend reads no pieces reads it element by
 * element. */
static void roll_operand(const Plan *p, PlanStmt *ps, PlanOperand *op)
{
	char a[200], b[200];
	masked_ranges(a, sizeof a, op->view);
	masked_ranges(b, sizeof b, op->acc->piece);
	add_note(ps, "%s: rolled: read in two pieces, where %s and where %s\n", op->t->name, a, b);
	if (p->tg->pieces && p->tg->pads) {
		op->piece = op->acc->piece;
		return;
	}
	Buf v = {0};
	view_print(&v, op->view);
	buf_printf(&v, " and ");
	view_print(&v, op->acc->piece);
	char *r = arena_alloc(&((Inst *)p->in)->arena, 400);
	snprintf(r, 400, "the rolled view %s: the %s backend reads no rolled pieces, so it is read element by element",
	         buf_str(&v), p->tg->name);
	buf_free(&v);
	op->cls = VIEW_ELEM;
	op->reason = r;
}

/* A masked operand: which values it reads, the rest of its blocks being
 * padding, which the backend fills (the executor stages the values read
 * and zeros around them). A target whose backend fills no pads reads a
 * masked view element by element, where its guard holds; the view itself,
 * with its masked region, stays in the access. */
static void mask_operand(const Plan *p, PlanStmt *ps, PlanOperand *op)
{
	const View *v = op->view;
	if (op->acc->never)
		add_note(ps, "%s: never read: its where() guard holds nowhere\n", op->t->name);
	if (op->cls == VIEW_ELEM || !(v->flags & VF_MASKED))
		return;
	if (op->acc->piece) {
		roll_operand(p, ps, op);
		return;
	}

	char where[200];
	masked_ranges(where, sizeof where, v);
	add_note(ps, "%s: masked: read only where %s%s\n", op->t->name, where,
	         op->acc->exact ? "" : " (and where the rest of its guard holds)");
	if (p->tg->pads)
		return;
	Buf b = {0};
	view_print(&b, v);
	char *r = arena_alloc(&((Inst *)p->in)->arena, 320);
	snprintf(r, 320, "the masked view %s: the %s backend fills no padded blocks, so it is read element by element "
	         "where its guard holds", buf_str(&b), p->tg->name);
	buf_free(&b);
	op->cls = VIEW_ELEM;
	op->reason = r;
}

/* Blocks that cannot fit (an element gather loads its whole storage, a
 * split variable takes at least one unit): the plan stays valid, over the
 * budget, and says so. */
static void budget_note(const Plan *p, PlanStmt *ps)
{
	bool set[PLAN_MAXVARS];
	for (int i = 0; i < ps->nvars; i++)
		set[i] = true;
	int64_t bytes = block_bytes(p, ps, set, -1, 0);
	if (bytes <= p->tg->budget)
		return;
	if (bytes == INT64_MAX)
		add_note(ps, "the blocks of one grid step take more than 2^63 bytes: over the %s budget of %lld bytes\n",
		         p->tg->name, (long long)p->tg->budget);
	else
		add_note(ps, "the blocks of one grid step take %lld bytes: over the %s budget of %lld bytes\n",
		         (long long)bytes, p->tg->name, (long long)p->tg->budget);
}

/* Blocks along a variable: 1 when it is not on the grid. */
int64_t plan_var_blocks(const PlanVar *v)
{
	return v->block > 0 ? i64_ceil_div(v->n, v->block) : 1;
}

/* ---- the whole kernel ---- */

/* Variables some access splits into digits, with their units. */
static void mark_split(PlanStmt *ps)
{
	for (int i = 0; i < ps->ops.n; i++) {
		const View *v = ((PlanOperand *)ps->ops.v[i])->view;
		if (v->cls == VIEW_ELEM)
			continue; /* loaded whole: its digits cut no block */
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

static void add_operand(Plan *p, PlanStmt *ps, const Access *ac, int j)
{
	PlanOperand *op = arena_alloc(&((Inst *)p->in)->arena, sizeof *op);
	op->t = ac->t;
	op->acc = ac;
	op->access = j;
	op->view = &ac->view;
	op->cls = ac->view.cls;
	op->reason = ac->view.reason;
	vec_push(&((Inst *)p->in)->arena, &ps->ops, op);
}

static void plan_stmt(Plan *p, PlanStmt *ps, const Planned *src)
{
	Arena *ar = &((Inst *)p->in)->arena;
	Stmt *s = src->stmt;
	ps->src = src;
	ps->in = p->in;
	ps->stmt = s;
	for (int d = 0; d < s->nlhs; d++)
		add_pvar(ps, s->lhs[d], false);
	ps->nlhs = ps->nvars;
	reduction_vars(ps, s->rhs);
	for (int j = 0; j < src->acc.n; j++)
		add_operand(p, ps, src->acc.v[j], j);
	mark_split(ps);
	PlanOperand *store = ps->ops.v[0];
	if (store->cls == VIEW_ELEM) {
		/* an output layout that is no view: one block writes all of it */
		ps->scatter = true;
		for (int i = 0; i < ps->nlhs; i++)
			ps->vars[i].whole = true;
		if (s->at)
			add_note(ps, "%s: %s: one block holds the whole output, each point writes its element (no view)\n",
			         s->t->name, store->reason);
		else
			add_note(ps, "%s: the store is not a view (%s): one block writes the whole output\n", s->t->name,
			         store->reason);
	}
	for (int i = 0; i < ps->ops.n; i++) {
		check_gather_vars(ar, ps, ps->ops.v[i]);
		mask_operand(p, ps, ps->ops.v[i]);
	}
	/* index loads of row gathers become scalar-prefetch operands */
	for (int i = 1; i < ps->ops.n; i++) {
		PlanOperand *op = ps->ops.v[i];
		if (is_index_load(ps, op->acc->load))
			op->prefetch = true;
	}
	for (int i = 0; i < ps->ops.n; i++) {
		PlanOperand *op = ps->ops.v[i];
		if (op->prefetch)
			mark_vars(ps, op->acc->off);
	}
	for (int i = 0; i < ps->nlhs; i++)
		ps->empty |= ps->vars[i].n == 0;
	if (ps->empty)
		return;
	choose_blocks(p, ps);
	make_grid(ps);
	budget_note(p, ps);
	if (!p->tg->wide64)
		narrow_notes(ps, p->tg->name);
	for (int i = 0; i < ps->ops.n; i++) {
		PlanOperand *op = ps->ops.v[i];
		if (op->prefetch)
			continue;
		operand_axes(p, ps, op);
		if (p->tg->tiles)
			tile_rules(op, i == 0);
	}
	if (p->tg->tiles)
		store_tiles(p, ps);
}

Plan *plan_inst(Inst *in, const Target *tg)
{
	Plan *p = arena_alloc(&in->arena, sizeof *p);
	p->tgbuf = *tg;
	p->tg = &p->tgbuf;
	p->in = in;
	p->nstmts = in->nplanned;
	p->st = arena_alloc(&in->arena, (size_t)(p->nstmts + 1) * sizeof *p->st);
	for (int i = 0; i < p->nstmts; i++)
		plan_stmt(p, &p->st[i], &in->planned[i]);
	return p;
}
