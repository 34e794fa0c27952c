/* Binding: the first pass of an instance. With every size symbol bound, the
 * dims, layouts (declared, given at run time, or row-major) and storage
 * spans of the parameters and lets, and the extents of the index variables,
 * are evaluated into the instance. The checked kernel is never written. */
#include <string.h>

#include "analysis.h"

static int64_t dim_val(const Inst *in, Dim d)
{
	return d.sym < 0 ? d.val : in->size[d.sym];
}

static int tensor_slot(const Inst *in, const Tensor *t)
{
	return t->role == ROLE_LET ? in->k->params.n + t->index : t->index;
}

const Layout *tensor_layout(const Inst *in, const Tensor *t)
{
	return &in->lay[tensor_slot(in, t)];
}

int64_t var_extent(const Inst *in, const Var *v)
{
	return in->n[v->id];
}

static int64_t eval_layout(Inst *in, Node *e)
{
	int64_t a, b = 0, r = 0;
	switch (e->kind) {
	case N_INT:
		return e->ival;
	case N_SIZE:
		return in->size[e->sym];
	case N_OP:
		a = eval_layout(in, e->args[0]);
		if (e->op != OP_NEG)
			b = eval_layout(in, e->args[1]);
		switch (int_op(e->op, a, b, &r)) {
		case SYM_EDIV0:
			error_at(&in->diag, e->sp, "division by zero in a layout");
		case SYM_EOVF:
			error_at(&in->diag, e->sp, "layout arithmetic overflows 64 bits");
		}
		return r;
	}
	die("bad layout expression");
}

/* Sorted by stride, every stride must clear the span of the smaller ones:
 * then no two elements share storage (a sufficient condition). */
static bool layout_overlaps(const Layout *l, int rank)
{
	int order[MAXRANK], n = 0;
	for (int d = 0; d < rank; d++) {
		if (l->shape[d] == 0)
			return false;
		if (l->shape[d] > 1)
			order[n++] = d;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && l->strides[order[j]] < l->strides[order[j - 1]]; j--) {
			int tmp = order[j];
			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	int64_t span = 0; /* largest offset reached by the axes so far */
	for (int i = 0; i < n; i++) {
		int64_t s = l->strides[order[i]];
		if (s <= span)
			return true;
		span += s * (l->shape[order[i]] - 1);
	}
	return false;
}

/* Shape, strides and offset of t; then the storage its elements span. */
static void bind_tensor(Inst *in, const Tensor *t)
{
	Layout *l = &in->lay[tensor_slot(in, t)];
	bool given = t->role != ROLE_LET && in->given[t->index];
	int64_t numel = 1, lo = 0, hi = 0, ext;
	for (int d = t->rank - 1; d >= 0; d--) {
		l->shape[d] = dim_val(in, t->dims[d]);
		if (!given)
			l->strides[d] = t->has_strides ? eval_layout(in, t->stride_ex[d]) : numel;
		if (!i64_mul(numel, l->shape[d], &numel))
			error_at(&in->diag, t->sp, "'%s' has more elements than 64 bits can count", t->name);
	}
	if (!given)
		l->offset = t->offset_ex ? eval_layout(in, t->offset_ex) : 0;
	for (int d = 0; d < t->rank && numel > 0; d++) {
		if (!i64_mul(l->strides[d], l->shape[d] - 1, &ext) || !i64_add(ext < 0 ? lo : hi, ext, ext < 0 ? &lo : &hi))
			error_at(&in->diag, t->sp, "the layout of '%s' spans more than 64 bits", t->name);
	}
	if (numel > 0 && (!i64_add(l->offset, lo, &lo) || !i64_add(l->offset, hi, &hi)))
		error_at(&in->diag, t->sp, "the layout of '%s' spans more than 64 bits", t->name);
	if (numel > 0 && lo < 0)
		error_at(&in->diag, t->sp,
		         "the layout of '%s' reaches storage element %lld, before the start of its storage; raise its offset",
		         t->name, (long long)lo);
	if (numel > 0 && hi == INT64_MAX)
		error_at(&in->diag, t->sp, "the storage of '%s' would have more elements than 64 bits can count", t->name);
	l->storage = numel > 0 ? hi + 1 : 0;
	if (t->role == ROLE_OUT) {
		for (int d = 0; d < t->rank; d++)
			if (l->strides[d] < 0 && l->shape[d] > 1)
				error_at(&in->diag, t->sp, "output '%s' has a negative stride; outputs need non-negative strides",
				         t->name);
		if (layout_overlaps(l, t->rank))
			error_at(&in->diag, t->sp, "the strides of output '%s' map several elements to one storage element",
			         t->name);
	}
}

void bind_inst(Inst *in)
{
	Kernel *k = in->k;
	for (int i = 0; i < k->nsyms; i++)
		if (!in->bound[i])
			error_at(&in->diag, k->syms[i].sp,
			         "size symbol '%s' of kernel '%s' is not bound: give it a size, or an input whose shape has it",
			         k->syms[i].name, k->name);
	for (int i = 0; i < k->nagree; i++) {
		Agree *a = &k->agree[i];
		if (dim_val(in, a->a) != dim_val(in, a->b))
			error_at(&in->diag, a->sp, "%s must agree, but they are %lld and %lld", a->what,
			         (long long)dim_val(in, a->a), (long long)dim_val(in, a->b));
	}
	for (int i = 0; i < k->vars.n; i++) {
		Var *v = k->vars.v[i];
		in->n[v->id] = dim_val(in, v->ext);
	}
	for (int i = 0; i < k->params.n; i++)
		bind_tensor(in, k->params.v[i]);
	for (int i = 0; i < k->lets.n; i++)
		bind_tensor(in, k->lets.v[i]);
}

void bind_size(Inst *in, int s, int64_t value, const char *from)
{
	const SizeSym *y = &in->k->syms[s];
	if (value < 0)
		error_at(&in->diag, y->sp, "size %s cannot be negative (%lld from %s)", y->name, (long long)value, from);
	if (in->bound[s] && in->size[s] != value)
		error_at(&in->diag, y->sp, "size %s of kernel %s is %lld from %s but %lld from %s", y->name, in->k->name,
		         (long long)in->size[s], in->from[s], (long long)value, from);
	in->bound[s] = true;
	in->size[s] = value;
	snprintf(in->from[s], sizeof in->from[s], "%s", from);
}

void bind_shape(Inst *in, const Tensor *t, int rank, const int64_t *shape)
{
	char from[96];
	if (rank != t->rank)
		error_at(&in->diag, t->sp, "'%s' has %d dim%s but the array given for it has %d", t->name, t->rank,
		         t->rank == 1 ? "" : "s", rank);
	for (int d = 0; d < rank; d++) {
		Dim dm = t->dims[d];
		if (dm.sym < 0 && dm.val != shape[d])
			error_at(&in->diag, dm.sp, "dim %d of '%s' is %lld but the array given for it has %lld", d, t->name,
			         (long long)dm.val, (long long)shape[d]);
		snprintf(from, sizeof from, "dim %d of %s", d, t->name);
		if (dm.sym >= 0)
			bind_size(in, dm.sym, shape[d], from);
	}
}

/* A layout given at run time (an array's strides): only for parameters
 * that declare none, since a declared layout is part of the kernel. */
void bind_layout(Inst *in, const Tensor *t, const int64_t *strides, int64_t offset)
{
	if (t->has_strides || t->offset_ex)
		error_at(&in->diag, t->sp, "'%s' declares its layout; an array's layout cannot replace it", t->name);
	if (offset < 0)
		error_at(&in->diag, t->sp, "the offset given for '%s' is negative (%lld)", t->name, (long long)offset);
	Layout *l = &in->lay[t->index];
	memcpy(l->strides, strides, (size_t)t->rank * sizeof *strides);
	l->offset = offset;
	in->given[t->index] = true;
}
