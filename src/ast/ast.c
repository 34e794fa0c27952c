/* The printer of the AST: expressions and kernels in the language's syntax
 * (athene -d parse / check, and every message that quotes an expression),
 * and the structural equality of two expressions. */
#include "ast.h"

static void dump_args(Buf *b, const Node *n, const char *open, const char *close)
{
	buf_printf(b, "%s", open);
	for (int i = 0; i < n->nargs; i++) {
		if (i)
			buf_printf(b, ", ");
		ast_print(b, n->args[i]);
	}
	buf_printf(b, "%s", close);
}

/* Prints an expression in the language's own syntax, fully parenthesised. */
void ast_print(Buf *b, const Node *n)
{
	switch (n->kind) {
	case N_INT: buf_printf(b, "%lld", (long long)n->ival); return;
	case N_FLOAT: buf_printf(b, "%.17g", n->fval); return;
	case N_BOOL: buf_printf(b, n->ival ? "true" : "false"); return;
	case N_NAME: buf_printf(b, "%s", n->name); return;
	case N_IVAR: buf_printf(b, "%s", n->var->name); return;
	case N_SIZE: buf_printf(b, "%s", n->name); return;
	case N_LOAD:
		buf_printf(b, "%s", n->name);
		if (n->nargs || !n->t || n->t->rank)
			dump_args(b, n, "[", "]");
		return;
	case N_FLAT: buf_printf(b, "%s.flat", n->name); dump_args(b, n, "[", "]"); return;
	case N_CALL: buf_printf(b, "%s", n->name); dump_args(b, n, "(", ")"); return;
	case N_CAST: buf_printf(b, "%s", athene_dtype_name(n->op)); dump_args(b, n, "(", ")"); return;
	case N_BITCAST: buf_printf(b, "%s.bits", n->name); dump_args(b, n, "(", ")"); return;
	case N_UNARY:
	case N_BINARY:
	case N_OP:
		if (n->nargs == 2 && op_info[n->op].name[0] < 'a') { /* an operator, not a function */
			buf_putc(b, '(');
			ast_print(b, n->args[0]);
			buf_printf(b, " %s ", op_info[n->op].name);
			ast_print(b, n->args[1]);
			buf_putc(b, ')');
		} else if (n->op == OP_NEG || n->op == OP_NOT || n->op == OP_BNOT) {
			buf_printf(b, "%s", n->op == OP_NEG ? "-" : op_info[n->op].name);
			ast_print(b, n->args[0]);
		} else {
			buf_printf(b, "%s", op_info[n->op].name);
			dump_args(b, n, "(", ")");
		}
		return;
	case N_REDUCE:
		buf_printf(b, "%s(", reduce_info[n->op].name);
		for (int i = 0; i < n->nrvars; i++) {
			buf_printf(b, "%s%s", i ? ", " : "", n->rnames[i]);
			if (n->rbounds[i]) {
				buf_printf(b, " < ");
				ast_print(b, n->rbounds[i]);
			}
		}
		buf_printf(b, ": ");
		ast_print(b, n->args[0]);
		buf_putc(b, ')');
		return;
	}
}

static void dump_dim(Buf *b, const Kernel *k, Dim d)
{
	if (d.sym >= 0)
		buf_printf(b, "%s", k->syms[d.sym].name);
	else
		buf_printf(b, "%lld", (long long)d.val);
}

static void dump_tensor(Buf *b, const Kernel *k, const Tensor *t)
{
	buf_printf(b, "%s: %s[", t->name, athene_dtype_name(t->dt));
	for (int d = 0; d < t->rank; d++) {
		if (d)
			buf_printf(b, ", ");
		dump_dim(b, k, t->dims[d]);
	}
	buf_putc(b, ']');
	if (t->has_strides)
		for (int d = 0; d < t->rank; d++) {
			buf_printf(b, d ? ", " : " strides(");
			ast_print(b, t->stride_ex[d]);
			if (d == t->rank - 1)
				buf_putc(b, ')');
		}
	if (t->offset_ex) {
		buf_printf(b, " offset ");
		ast_print(b, t->offset_ex);
	}
}

/* Index variable d of a statement's target, with its bound if one is given. */
void ast_print_lhs(Buf *b, const Stmt *s, int d)
{
	buf_printf(b, "%s%s", d ? ", " : "", s->lhs[d]->name);
	if (s->bound[d]) {
		buf_printf(b, " < ");
		ast_print(b, s->bound[d]);
	}
}

/* A statement's left side: y[i, j], or a scatter's y[i < N: e] / y.flat[i < N: e]. */
void ast_print_target(Buf *b, const Stmt *s)
{
	buf_printf(b, "%s%s[", s->t->name, s->at && s->at->kind == N_FLAT ? ".flat" : "");
	for (int d = 0; d < s->nlhs; d++)
		ast_print_lhs(b, s, d);
	if (s->at) {
		buf_printf(b, ": ");
		for (int i = 0; i < s->at->nargs; i++) {
			buf_printf(b, "%s", i ? ", " : "");
			ast_print(b, s->at->args[i]);
		}
	}
	buf_putc(b, ']');
}

/* The kernel in source form; checked: with dtypes and variable ranges. */
void ast_print_kernel(Buf *b, const Kernel *k, bool checked)
{
	buf_printf(b, "kernel %s(", k->name);
	for (int i = 0; i < k->params.n; i++) {
		if (i == k->nin)
			buf_printf(b, ") -> (");
		else if (i)
			buf_printf(b, ", ");
		dump_tensor(b, k, k->params.v[i]);
	}
	buf_printf(b, ") {\n");
	for (int i = 0; i < k->stmts.n; i++) {
		const Stmt *s = k->stmts.v[i];
		buf_printf(b, "    %s", s->t->role == ROLE_LET ? "let " : "");
		ast_print_target(b, s);
		buf_printf(b, " %s ", s->accum ? "+=" : "=");
		ast_print(b, s->rhs);
		if (checked) {
			buf_printf(b, "    # %s", athene_dtype_name(s->rhs->dt));
			for (int d = 0; d < s->nlhs; d++) {
				buf_printf(b, d ? ", %s < " : "; %s < ", s->lhs[d]->name);
				dump_dim(b, k, s->lhs[d]->ext);
			}
		}
		buf_putc(b, '\n');
	}
	buf_printf(b, "}\n");
}

/* Structural equality of two checked expressions. */
bool ast_equal(const Node *a, const Node *b)
{
	if (a == b)
		return true;
	if (a->kind != b->kind || a->op != b->op || a->dt != b->dt || a->nargs != b->nargs || a->ival != b->ival ||
	    a->t != b->t || a->var != b->var || a->sym != b->sym || (a->kind == N_FLOAT && a->fval != b->fval))
		return false;
	for (int i = 0; i < a->nargs; i++)
		if (!ast_equal(a->args[i], b->args[i]))
			return false;
	return true;
}
