/* The reports of athene explain and athene -d: an instance's bindings,
 * fusion decisions and offsets, views, and plans (text and JSON), composed
 * from the printers that live beside each IR. Only the driver calls it. */
#include <stdlib.h>
#include <string.h>

#include "explain.h"

/* ---- plans (athene explain, -d plan) ---- */

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
				gather_position(&m, op->view, &op->view->ax[op->view->gat[x->ref].axis]);
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
	return op->access == 0 ? "store" : op->prefetch ? "index" : "load";
}

/* The class and the view as the plan moves the operand (it may demote a
 * view to an element gather). */
static void op_class(Buf *b, const PlanOperand *op)
{
	if (op->cls == VIEW_ELEM && op->access == 0 && op->acc->t->def->at)
		buf_printf(b, "scatter, updated in place%s", op->acc->t->def->accum ? " (+=)" : "");
	else if (op->cls == VIEW_ELEM)
		buf_printf(b, op->access == 0 ? "element scatter" : "element gather");
	else
		view_class(b, op->view);
}

static void op_view(Buf *b, const PlanOperand *op)
{
	if (op->cls == VIEW_ELEM)
		buf_printf(b, "none: %s", op->reason);
	else
		view_print(b, op->view);
}

static void explain_access_text(Buf *b, const PlanOperand *op)
{
	Buf c = {0}, v = {0};
	op_class(&c, op);
	op_view(&v, op);
	buf_printf(b, "    %-5s %-8s %s\n", access_kind(op), op->t->name, buf_str(&c));
	buf_printf(b, "          view  %s\n", buf_str(&v));
	if (op->piece) {
		v.len = 0;
		view_print(&v, op->piece);
		buf_printf(b, "          and   %s\n", buf_str(&v));
	}
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
		buf_printf(b, "%s%lld", a ? ", " : "", (long long)plan_var_blocks(v));
	}
	buf_printf(b, ps->ngrid == 1 ? ",)" : ")");
	for (int i = 0; i < ps->nvars; i++) {
		const PlanVar *v = &ps->vars[i];
		buf_printf(b, "%s%s ", i ? ", " : "  ", v->var->name);
		if (v->grid >= 0)
			buf_printf(b, "%s%lld blocks of %lld%s", v->reduce ? "arbitrary " : "",
			           (long long)plan_var_blocks(v), (long long)v->block, v->split ? " (split)" : "");
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
	buf_printf(b, ", \"materialised\": %s, \"fused\": [", ps->stmt->t->role == ROLE_LET ? "true" : "false");
	for (int i = 0; i < ps->src->fused.n; i++) {
		buf_printf(b, i ? ", " : "");
		json_str(b, ((const Tensor *)ps->src->fused.v[i])->name);
	}
	buf_printf(b, "], \"accesses\": [");
	for (int i = 0; i < ps->ops.n; i++) {
		const PlanOperand *op = ps->ops.v[i];
		buf_printf(b, "%s{\"tensor\": ", i ? ", " : "");
		json_str(b, op->t->name);
		buf_printf(b, ", \"kind\": \"%s\", \"class\": ", access_kind(op));
		tmp.len = 0;
		op_class(&tmp, op);
		json_str(b, buf_str(&tmp));
		buf_printf(b, ", \"view\": ");
		tmp.len = 0;
		op_view(&tmp, op);
		json_str(b, op->cls == VIEW_ELEM ? "" : buf_str(&tmp));
		if (op->piece) { /* a roll: the view of its second piece */
			buf_printf(b, ", \"piece\": ");
			tmp.len = 0;
			view_print(&tmp, op->piece);
			json_str(b, buf_str(&tmp));
		}
		buf_printf(b, ", \"reason\": ");
		if (op->cls == VIEW_ELEM)
			json_str(b, op->reason);
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
		           (long long)plan_var_blocks(v), (long long)v->block, v->reduce ? "arbitrary" : "parallel");
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

static void print_stmt_head(Buf *b, const Stmt *s)
{
	buf_printf(b, "  %s", s->t->role == ROLE_LET ? "let " : "");
	ast_print_target(b, s);
	buf_printf(b, " %s ", s->accum ? "+=" : "=");
	ast_print(b, s->rhs);
}

/* The planned statement a fused let is expanded into. */
static const Stmt *consumer(const Inst *in, const Tensor *t)
{
	for (int i = 0; i < in->nplanned; i++)
		for (int j = 0; j < in->planned[i].fused.n; j++)
			if (in->planned[i].fused.v[j] == t)
				return in->planned[i].stmt;
	return NULL;
}

void explain_plan(Buf *b, const Plan *p, bool json)
{
	const Kernel *k = p->in->k;
	if (json) {
		buf_printf(b, "{\"kernel\": ");
		json_str(b, k->name);
		buf_printf(b, ", \"target\": \"%s\", \"statements\": [", p->tg->name);
		for (int i = 0; i < p->nstmts; i++) {
			buf_printf(b, i ? ", " : "");
			explain_json_stmt(b, &p->st[i]);
		}
		buf_printf(b, "]}");
		return;
	}
	buf_printf(b, "kernel %s  (target %s)\n", k->name, p->tg->name);
	for (int i = 0, next = 0; i < k->stmts.n; i++) {
		const Stmt *s = k->stmts.v[i];
		print_stmt_head(b, s);
		if (next < p->nstmts && p->st[next].stmt == s) {
			const PlanStmt *ps = &p->st[next++];
			buf_printf(b, s->t->role == ROLE_LET ? "    # materialised\n" : "\n");
			for (int j = 0; j < ps->ops.n; j++)
				explain_access_text(b, ps->ops.v[j]);
			explain_plan_text(b, ps);
			continue;
		}
		const Stmt *into = consumer(p->in, s->t);
		buf_printf(b, "    # fused into %s%s\n", into && into->t->role == ROLE_LET ? "let " : "", into ? into->t->name : "?");
	}
}

/* ---- instances (athene -d bind, inline, lower, simplify, analyse) ---- */

void explain_bind(Buf *b, const Inst *in)
{
	const Kernel *k = in->k;
	buf_printf(b, "kernel %s\n", k->name);
	for (int i = 0; i < k->nsyms; i++)
		buf_printf(b, "  size %s = %lld  (%s)\n", k->syms[i].name, (long long)in->size[i], in->from[i]);
	for (int i = 0; i < k->params.n + k->lets.n; i++) {
		const Tensor *t = i < k->params.n ? k->params.v[i] : k->lets.v[i - k->params.n];
		const Layout *l = tensor_layout(in, t);
		buf_printf(b, "  %s %s: %s[", t->role == ROLE_IN ? "in " : t->role == ROLE_OUT ? "out" : "let", t->name,
		           athene_dtype_name(t->dt));
		for (int d = 0; d < t->rank; d++)
			buf_printf(b, "%s%lld", d ? ", " : "", (long long)l->shape[d]);
		buf_printf(b, "] strides (");
		for (int d = 0; d < t->rank; d++)
			buf_printf(b, "%s%lld", d ? ", " : "", (long long)l->strides[d]);
		buf_printf(b, t->rank == 1 ? ",)" : ")");
		buf_printf(b, " offset %lld storage %lld%s\n", (long long)l->offset, (long long)l->storage,
		           t->role != ROLE_LET && in->given[t->index] ? "  (given)" : "");
	}
	for (int i = 0; i < k->vars.n; i++) {
		const Var *v = k->vars.v[i];
		buf_printf(b, "  var %s < %lld\n", v->name, (long long)in->n[v->id]);
	}
}

void explain_inline(Buf *b, const Inst *in)
{
	const Kernel *k = in->k;
	buf_printf(b, "kernel %s\n", k->name);
	for (int i = 0; i < k->lets.n; i++) {
		const Tensor *t = k->lets.v[i];
		const Stmt *into = in->fused[i] ? consumer(in, t) : NULL;
		buf_printf(b, "  let %s: %s", t->name, in->fused[i] ? "fused into " : "materialised: ");
		if (into)
			buf_printf(b, "%s\n", into->t->name);
		else
			buf_printf(b, "%s\n", t->reduces ? "it has a reduction" : t->uses == 0 ? "never read"
			                      : let_fallible(t) ? "its value can fail at run time (a gather or wrap)"
			                      : t->uses > 1 ? "read more than once"
			                      : let_broadcast(k, t) ? "read broadcast: fused, it would be computed again at each point of a variable it does not depend on"
			                      : "read through a subscript with data");
	}
	for (int i = 0; i < in->nplanned; i++) {
		const Planned *ps = &in->planned[i];
		buf_printf(b, "  planned %s: %d access%s\n", ps->stmt->t->name, ps->acc.n, ps->acc.n == 1 ? "" : "es");
	}
}

static void access_name(Buf *b, const Access *ac)
{
	if (!ac->load) {
		buf_printf(b, "store %s", ac->t->name);
		return;
	}
	buf_printf(b, "load %s", ac->t->name);
}

void explain_offsets(Buf *b, const Inst *in, bool raw)
{
	buf_printf(b, "kernel %s\n", in->k->name);
	for (int i = 0; i < in->nplanned; i++) {
		const Planned *ps = &in->planned[i];
		buf_printf(b, "  %s\n", ps->stmt->t->name);
		for (int j = 0; j < ps->acc.n; j++) {
			const Access *ac = ps->acc.v[j];
			const Sym *s = raw ? ac->raw : ac->off;
			buf_printf(b, "    ");
			access_name(b, ac);
			buf_printf(b, ": ");
			sym_print(b, s, sym_leaf_name, NULL);
			if (s->ovf)
				buf_printf(b, "  (range unknown: data-dependent)\n");
			else
				buf_printf(b, "  in [%lld, %lld]\n", (long long)s->lo, (long long)s->hi);
		}
	}
}

void explain_views(Buf *b, const Inst *in)
{
	buf_printf(b, "kernel %s\n", in->k->name);
	for (int i = 0; i < in->nplanned; i++) {
		const Planned *ps = &in->planned[i];
		buf_printf(b, "  %s\n", ps->stmt->t->name);
		for (int j = 0; j < ps->acc.n; j++) {
			const Access *ac = ps->acc.v[j];
			Buf c = {0}, v = {0};
			view_class(&c, &ac->view);
			view_print(&v, &ac->view);
			buf_printf(b, "    ");
			access_name(b, ac);
			buf_printf(b, ": %s\n      %s\n", buf_str(&c), buf_str(&v));
			if (ac->piece) {
				v.len = 0;
				view_print(&v, ac->piece);
				buf_printf(b, "      and %s\n", buf_str(&v));
			}
			buf_free(&c);
			buf_free(&v);
		}
	}
}
