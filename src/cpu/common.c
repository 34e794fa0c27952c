/* The helpers exec.c and vm.c share: the run's error record and its
 * messages, checked operations, the boxes of a block and the box copy
 * between an operand and a dense buffer. Neither of the two files is
 * called from here.
 * Units: strides in elements, bytes at the box-copy boundary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

void run_error(RunErr *e, int64_t pos, Span sp, const char *msg)
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

/* The interpreter's message for a bad data-dependent subscript or offset:
 * atom is the offending atom of load `ld`, value its value (raw: the value
 * before wrap, when the subscript is a wrap). */
void exec_index_error(RunErr *e, const Inst *in, const Stmt *st, const int64_t *val, int64_t pos,
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

/* "out[3, 0]": the output element at the statement's variables' values. */
void where_str(char *s, size_t n, const Stmt *st, const int64_t *val)
{
	int len = snprintf(s, n, "%s[", st->t->name);
	for (int d = 0; d < st->nlhs && len > 0 && (size_t)len < n; d++) /* a scatter's point: s=3 */
		len += snprintf(s + len, n - (size_t)len, "%s%s%s%lld", d ? ", " : "", st->at ? st->lhs[d]->name : "",
		                st->at ? "=" : "", (long long)val[st->lhs[d]->id]);
	if (len > 0 && (size_t)len < n)
		snprintf(s + len, n - (size_t)len, "]");
}

/* Is v inside the dim of load x that check c is about? */
bool in_dim(const Inst *in, const Ins *x, int c, int64_t v)
{
	return v >= 0 && v < tensor_layout(in, x->src->t)->shape[x->check_dim[c]];
}

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

/* Register r, or the one its integer casts start from. */
int xuncast(const Prog *p, int r)
{
	while (p->ins[r].kind == I_CAST && dt_is_int(p->ins[r].dt))
		r = p->ins[r].a[0];
	return r;
}

/* An op whose evaluation can fail: index arithmetic (exact), and wrap()
 * with a modulus below 1. False with the message (and its place). */
bool checked_op(const Ins *x, const Val *v, Val *out, const char **msg, Span *sp)
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

void op_failed(RunErr *e, const Inst *in, const Stmt *st, const int64_t *val, int64_t pos, const char *what,
                      Span sp)
{
	char at[160], msg[600];
	where_str(at, sizeof at, st, val);
	snprintf(msg, sizeof msg, "kernel %s: %s at %s", in->k->name, what, at);
	run_error(e, pos, sp, msg);
}

bool ins_can_fail(const Prog *p, const Ins *s)
{
	if (s->kind == I_LOAD)
		return s->natoms || s->nchecks;
	if (s->kind == I_REDUCE)
		return s->op == R_MAX || s->op == R_MIN || s->op == R_ARGMAX || s->op == R_ARGMIN;
	return s->kind == I_OP && (s->exact || (s->op == OP_WRAP && !(p->ins[s->a[1]].kind == I_CONST &&
	                                                                 p->ins[s->a[1]].c.i >= 1)));
}

/* The wrap() an index register holds, through its casts; -1 for none. */
int wrap_of_reg(const Prog *p, int r)
{
	r = xuncast(p, r);
	return p->ins[r].kind == I_OP && p->ins[r].op == OP_WRAP ? r : -1;
}

/* The boxes of the range [lo, hi) of PlanVar i, in increasing order of its
 * values; only its dims are set in them. */
int var_boxes(const X *x, int i, int64_t lo, int64_t hi, XBox *out, int max)
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
void copy_var(const X *x, int i, const XBox *from, XBox *to)
{
	for (int k = 0; k < x->nd; k++)
		if (x->d[k].var == i) {
			to->lo[k] = from->lo[k];
			to->hi[k] = from->hi[k];
		}
}

/* copy_box (or copy_box_par, par) over a box of any rank: dims of extent 1
 * dropped, and dims beyond the box copy's rank looped over here. */
void box_copy(char *dst, const int64_t *ds, const char *src, const int64_t *ss, const int64_t *shape, int n,
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
