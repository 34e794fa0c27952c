/* Parser: tokens -> kernels with an AST (Node) on every statement. Recursive
 * descent, one function per grammar rule. A syntax error reports once and
 * skips to the next 'kernel' keyword, so every kernel gets its first error. */
#include <limits.h>
#include <string.h>

#include "front.h"

#define MAX_DEPTH 1000

typedef struct {
	Ctx *c;
	Token *t;
	int pos, ntok;
	int depth; /* nesting of the expression being parsed */
	Kernel *k;
	bool *reduction; /* per token: a '(' opening a reduction's variables */
} Parser;

static Token *peek(Parser *p) { return &p->t[p->pos]; }
static Token *next(Parser *p)
{
	Token *t = &p->t[p->pos];
	if (p->pos + 1 < p->ntok)
		p->pos++;
	return t;
}

static _Noreturn void syntax(Parser *p, Token *t, const char *what)
{
	if (t->kind == T_BAD) /* already reported by the lexer */
		longjmp(*p->c->diag.jmp, 1);
	if (t->kind == T_NAME)
		error_at(&p->c->diag, t->sp, "expected %s, found '%s'", what, t->name);
	if (t->kind == T_INT || t->kind == T_FLOAT) {
		Span sp = t->sp;
		error_at(&p->c->diag, sp, "expected %s, found number '%.*s'", what, sp.len, p->c->diag.src->text + sp.off);
	}
	error_at(&p->c->diag, t->sp, "expected %s, found %s", what, token_desc(t->kind));
}

static bool accept(Parser *p, int kind)
{
	if (peek(p)->kind != kind)
		return false;
	next(p);
	return true;
}

static Token *expect(Parser *p, int kind, const char *what)
{
	if (peek(p)->kind != kind)
		syntax(p, peek(p), what);
	return next(p);
}

static Span join(Span a, Span b)
{
	if (b.line == a.line && b.off >= a.off)
		a.len = b.off + b.len - a.off;
	return a;
}

static Node *new_node(Parser *p, int kind, Span sp)
{
	Node *n = arena_alloc(&p->c->arena, sizeof *n);
	n->kind = kind;
	n->sp = sp;
	n->load_id = -1;
	n->sym = -1;
	return n;
}

/* Bounds the depth of every expression tree, so that no later recursion
 * (check, lower, interp) can exhaust the stack. */
static Node *deep(Parser *p, Node *n)
{
	int d = 0;
	for (int i = 0; i < n->nargs; i++)
		d = n->args[i]->depth > d ? n->args[i]->depth : d;
	n->depth = d + 1;
	if (n->depth > MAX_DEPTH)
		error_at(&p->c->diag, n->sp, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
	return n;
}

static void enter(Parser *p, Token *at)
{
	if (++p->depth > MAX_DEPTH)
		error_at(&p->c->diag, at->sp, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
}

static Node **node_list(Parser *p, Vec *v)
{
	Node **a = arena_alloc(&p->c->arena, (size_t)(v->n ? v->n : 1) * sizeof *a);
	for (int i = 0; i < v->n; i++)
		a[i] = v->v[i];
	return a;
}

static Node *expr(Parser *p);

/* exprs := expr (',' expr)* [','] ; closed by `close` */
static Node **expr_list(Parser *p, int close, int *n)
{
	Vec v = {0};
	while (peek(p)->kind != close) {
		vec_push(&p->c->arena, &v, expr(p));
		if (!accept(p, ','))
			break;
	}
	expect(p, close, close == ']' ? "',' or ']'" : "',' or ')'");
	*n = v.n;
	return node_list(p, &v);
}

static int reduce_op(const char *name)
{
	for (int i = 0; i < R_NONE; i++)
		if (!strcmp(name, reduce_info[i].name))
			return i;
	return R_NONE;
}

/* Marks every '(' that opens `rvars ':' expr`: a ':' directly inside it
 * (inside no nested bracket) before its closing bracket and before any '{'
 * or '}'. One pass over the tokens with a stack of open brackets, so that
 * deciding whether a call is a reduction is linear in the source. */
static bool *mark_reductions(Ctx *c, const Token *t, int ntok)
{
	bool *red = arena_alloc(&c->arena, (size_t)ntok + 1);
	int *open = arena_alloc(&c->arena, ((size_t)ntok + 1) * sizeof *open);
	int depth = 0;
	for (int i = 0; i < ntok; i++) {
		int k = t[i].kind;
		if (k == '(' || k == '[')
			open[depth++] = i;
		else if ((k == ')' || k == ']') && depth > 0)
			depth--;
		else if (k == ':' && depth > 0 && t[open[depth - 1]].kind == '(')
			red[open[depth - 1]] = true;
		else if (k == '{' || k == '}')
			depth = 0;
	}
	return red;
}

/* Is the '(' at the current position the start of `rvars ':' expr`? */
static bool looks_like_reduction(Parser *p)
{
	return p->reduction[p->pos];
}

/* reduction := REDOP '(' rvar (',' rvar)* ':' expr ')' ; rvar := NAME ['<' add] */
static Node *reduction(Parser *p, Token *name)
{
	Node *n = new_node(p, N_REDUCE, name->sp);
	n->op = reduce_op(name->name);
	n->name = name->name;
	if (n->op == R_NONE)
		error_at(&p->c->diag, name->sp, "'%s' is not a reduction (sum prod max min mean argmax argmin any all)", name->name);
	expect(p, '(', "'('");
	Vec names = {0}, bounds = {0}, spans = {0};
	do {
		Token *v = expect(p, T_NAME, "a reduction variable");
		vec_push(&p->c->arena, &names, (void *)v->name);
		vec_push(&p->c->arena, &spans, &v->sp);
		vec_push(&p->c->arena, &bounds, accept(p, '<') ? expr(p) : NULL);
	} while (accept(p, ','));
	expect(p, ':', "':' after the reduction variables");
	n->nrvars = names.n;
	n->rnames = arena_alloc(&p->c->arena, (size_t)names.n * sizeof *n->rnames);
	n->rspans = arena_alloc(&p->c->arena, (size_t)names.n * sizeof *n->rspans);
	for (int i = 0; i < names.n; i++) {
		n->rnames[i] = names.v[i];
		n->rspans[i] = *(Span *)spans.v[i];
	}
	n->rbounds = node_list(p, &bounds);
	n->args = arena_alloc(&p->c->arena, sizeof *n->args);
	n->args[0] = expr(p);
	n->nargs = 1;
	n->sp = join(n->sp, expect(p, ')', "')' closing the reduction")->sp);
	return deep(p, n);
}

/* primary := INT | FLOAT | 'true' | 'false' | NAME | call | reduction | '(' expr ')'
 * call := NAME '(' exprs ')' */
static Node *primary(Parser *p)
{
	Token *t = next(p);
	Node *n;
	switch (t->kind) {
	case T_INT:
		n = new_node(p, N_INT, t->sp);
		n->ival = t->ival;
		return n;
	case T_FLOAT:
		n = new_node(p, N_FLOAT, t->sp);
		n->fval = t->fval;
		return n;
	case T_TRUE:
	case T_FALSE:
		n = new_node(p, N_BOOL, t->sp);
		n->ival = t->kind == T_TRUE;
		return n;
	case '(':
		enter(p, t);
		n = expr(p);
		expect(p, ')', "')'");
		p->depth--;
		return n;
	case T_NAME:
		break;
	default:
		p->pos--;
		syntax(p, t, "an expression");
	}
	if (peek(p)->kind == '(') {
		enter(p, peek(p));
		if (looks_like_reduction(p))
			n = reduction(p, t);
		else {
			n = new_node(p, N_CALL, t->sp);
			n->name = t->name;
			next(p);
			n->args = expr_list(p, ')', &n->nargs);
			n->sp = join(n->sp, p->t[p->pos - 1].sp);
			deep(p, n);
		}
		p->depth--;
		return n;
	}
	n = new_node(p, N_NAME, t->sp);
	n->name = t->name;
	return n;
}

/* postfix := primary [ '[' exprs ']' | '.' 'flat' '[' expr ']' | '.' 'bits' '(' expr ')' ] */
static Node *postfix(Parser *p)
{
	Node *n = primary(p);
	if (peek(p)->kind == '[' || peek(p)->kind == '.') {
		if (n->kind != N_NAME)
			syntax(p, peek(p), "an operator");
		enter(p, peek(p));
		if (accept(p, '.')) {
			Token *f = expect(p, T_NAME, "'flat' or 'bits' after '.'");
			DType dt;
			if (!strcmp(f->name, "bits") && !athene_dtype_from_name(n->name, &dt)) {
				/* i32.bits(x): the i32 whose bits are x's */
				expect(p, '(', "'(' after '.bits'");
				n->kind = N_BITCAST;
				n->args = expr_list(p, ')', &n->nargs);
				if (n->nargs != 1)
					error_at(&p->c->diag, n->sp, "'%s.bits' takes 1 argument, not %d", n->name, n->nargs);
				n->sp = join(n->sp, p->t[p->pos - 1].sp);
				p->depth--;
				return deep(p, n);
			}
			if (!strcmp(f->name, "bits"))
				error_at(&p->c->diag, f->sp, "'.bits' follows a dtype: write i32.bits(x)");
			if (strcmp(f->name, "flat"))
				error_at(&p->c->diag, f->sp, "unknown attribute '.%s' (only '.flat' and a dtype's '.bits' exist)", f->name);
			expect(p, '[', "'[' after '.flat'");
			n->kind = N_FLAT;
			n->args = expr_list(p, ']', &n->nargs);
			if (n->nargs != 1)
				error_at(&p->c->diag, n->sp, "'%s.flat' takes exactly one offset, not %d", n->name, n->nargs);
		} else {
			next(p);
			n->kind = N_LOAD;
			n->args = expr_list(p, ']', &n->nargs);
		}
		n->sp = join(n->sp, p->t[p->pos - 1].sp);
		if (peek(p)->kind == '[')
			syntax(p, peek(p), "an operator (one subscript list per load: write x[i, j])");
		p->depth--;
		deep(p, n);
	}
	return n;
}

/* unary := ('-' | '!' | '~') unary | postfix */
static Node *unary(Parser *p)
{
	Token *t = peek(p);
	if (t->kind == '-' || t->kind == '!' || t->kind == '~') {
		next(p);
		enter(p, t);
		Node *a = unary(p);
		p->depth--;
		if (t->kind == '-' && a->kind == N_INT && a->ival != INT64_MIN) {
			a->ival = -a->ival; /* a negative literal stays a literal */
			a->sp = join(t->sp, a->sp);
			return a;
		}
		if (t->kind == '-' && a->kind == N_FLOAT) {
			a->fval = -a->fval;
			a->sp = join(t->sp, a->sp);
			return a;
		}
		Node *n = new_node(p, N_UNARY, join(t->sp, a->sp));
		n->op = t->kind == '-' ? OP_NEG : t->kind == '!' ? OP_NOT : OP_BNOT;
		n->args = arena_alloc(&p->c->arena, sizeof *n->args);
		n->args[0] = a;
		n->nargs = 1;
		return deep(p, n);
	}
	return postfix(p);
}

static Node *binary(Parser *p, int op, Node *a, Node *b, Span opsp)
{
	Node *n = new_node(p, N_BINARY, opsp);
	n->op = op;
	n->args = arena_alloc(&p->c->arena, 2 * sizeof *n->args);
	n->args[0] = a;
	n->args[1] = b;
	n->nargs = 2;
	return deep(p, n);
}

static int binop_of(int tok, int level)
{
	switch (level) {
	case 0: return tok == T_OR ? OP_OR : -1;
	case 1: return tok == T_AND ? OP_AND : -1;
	case 2:
		switch (tok) {
		case T_EQ: return OP_EQ;
		case T_NE: return OP_NE;
		case '<': return OP_LT;
		case T_LE: return OP_LE;
		case '>': return OP_GT;
		case T_GE: return OP_GE;
		}
		return -1;
	case 3: return tok == '|' ? OP_BOR : -1;
	case 4: return tok == '^' ? OP_BXOR : -1;
	case 5: return tok == '&' ? OP_BAND : -1;
	case 6: return tok == T_SHL ? OP_SHL : tok == T_SHR ? OP_SHR : -1;
	case 7: return tok == '+' ? OP_ADD : tok == '-' ? OP_SUB : -1;
	case 8:
		switch (tok) {
		case '*': return OP_MUL;
		case '/': return OP_DIV;
		case T_FLOORDIV: return OP_FLOORDIV;
		case '%': return OP_MOD;
		}
		return -1;
	}
	return -1;
}

/* or := and ('||' and)* ; and := cmp ('&&' cmp)* ; cmp := bor [CMPOP bor]
 * bor := bxor ('|' bxor)* ; bxor := band ('^' band)* ; band := shift ('&' shift)*
 * shift := add (('<<'|'>>') add)* ; add := mul (('+'|'-') mul)*
 * mul := unary (('*'|'/'|'//'|'%') unary)*
 * (Python's precedence, except that comparisons do not chain) */
static Node *level(Parser *p, int lv)
{
	if (lv == 9)
		return unary(p);
	Node *a = level(p, lv + 1);
	int op;
	while ((op = binop_of(peek(p)->kind, lv)) >= 0) {
		Token *t = next(p);
		Node *b = level(p, lv + 1);
		a = binary(p, op, a, b, t->sp);
		if (lv == 2 && binop_of(peek(p)->kind, 2) >= 0)
			error_at(&p->c->diag, peek(p)->sp, "comparisons cannot be chained; combine them with '&&'");
	}
	return a;
}

static Node *expr(Parser *p)
{
	return level(p, 0);
}

static DType parse_dtype(Parser *p)
{
	Token *t = expect(p, T_NAME, "a dtype");
	DType dt;
	if (athene_dtype_from_name(t->name, &dt))
		error_at(&p->c->diag, t->sp, "unknown dtype '%s' (bool i8 i16 i32 i64 u8 f16 bf16 f32 f64)", t->name);
	return dt;
}

int find_sym(const Kernel *k, const char *name)
{
	const SizeSym *s = names_get(&k->symnames, name);
	return s ? (int)(s - k->syms) : -1;
}

static int add_sym(Parser *p, Token *t)
{
	Kernel *k = p->k;
	int s = find_sym(k, t->name);
	if (s >= 0)
		return s;
	if (k->nsyms == k->capsyms) {
		int cap = k->capsyms ? 2 * k->capsyms : 8;
		SizeSym *n = arena_alloc(&p->c->arena, (size_t)cap * sizeof *n);
		if (k->nsyms)
			memcpy(n, k->syms, (size_t)k->nsyms * sizeof *n);
		k->syms = n;
		k->capsyms = cap;
		k->symnames = (Names){0}; /* its values point into the old array */
		for (int i = 0; i < k->nsyms; i++)
			names_add(&p->c->arena, &k->symnames, k->syms[i].name, &k->syms[i]);
	}
	k->syms[k->nsyms] = (SizeSym){.name = t->name, .sp = t->sp};
	names_add(&p->c->arena, &k->symnames, t->name, &k->syms[k->nsyms]);
	return k->nsyms++;
}

/* dim := INT | NAME */
static Dim parse_dim(Parser *p)
{
	Token *t = next(p);
	if (t->kind == T_INT) {
		if (t->ival < 0)
			error_at(&p->c->diag, t->sp, "a dim cannot be negative (%lld)", (long long)t->ival);
		return (Dim){-1, t->ival, t->sp};
	}
	if (t->kind == T_NAME)
		return (Dim){add_sym(p, t), 0, t->sp};
	if (t->kind == '-')
		error_at(&p->c->diag, t->sp, "a dim cannot be negative");
	p->pos--;
	syntax(p, t, "a dim (an integer or a size symbol)");
}

/* param := NAME ':' DTYPE '[' [dim (',' dim)*] ']' ['strides' '(' exprs ')'] ['offset' expr] */
static Tensor *param(Parser *p, int role)
{
	Tensor *t = arena_alloc(&p->c->arena, sizeof *t);
	Token *name = expect(p, T_NAME, "a parameter name");
	t->name = name->name;
	t->sp = name->sp;
	t->role = role;
	expect(p, ':', "':' and a dtype after the parameter name");
	t->dt = parse_dtype(p);
	expect(p, '[', "'[' and the dims (write [] for a scalar)");
	while (peek(p)->kind != ']') {
		if (t->rank == MAXRANK)
			error_at(&p->c->diag, peek(p)->sp, "more than %d dims", MAXRANK);
		t->dims[t->rank++] = parse_dim(p);
		if (!accept(p, ','))
			break;
	}
	expect(p, ']', "',' or ']'");
	if (peek(p)->kind == T_NAME && !strcmp(peek(p)->name, "strides")) {
		Token *st = next(p);
		expect(p, '(', "'(' after 'strides'");
		int n;
		Node **s = expr_list(p, ')', &n);
		if (n != t->rank)
			error_at(&p->c->diag, st->sp, "'%s' has %d dim%s but %d stride%s", t->name, t->rank, t->rank == 1 ? "" : "s",
			         n, n == 1 ? "" : "s");
		memcpy(t->stride_ex, s, (size_t)n * sizeof *s);
		t->has_strides = true;
	}
	if (peek(p)->kind == T_NAME && !strcmp(peek(p)->name, "offset")) {
		next(p);
		t->offset_ex = expr(p);
	}
	if (peek(p)->kind == T_NAME && !strcmp(peek(p)->name, "strides"))
		error_at(&p->c->diag, peek(p)->sp, "write 'strides(...)' before 'offset'");
	return t;
}

/* params := [param (',' param)* [',']] */
static void params(Parser *p, int role)
{
	expect(p, '(', "'('");
	while (peek(p)->kind != ')') {
		Tensor *t = param(p, role);
		t->index = p->k->params.n;
		vec_push(&p->c->arena, &p->k->params, t);
		names_add(&p->c->arena, &p->k->pnames, t->name, t);
		if (!accept(p, ','))
			break;
	}
	expect(p, ')', "',' or ')'");
}

/* Does a scatter's bracket start here: '[' ':' or '[' NAME '<'? */
static bool scatter_head(Parser *p)
{
	int i = p->pos;
	if (p->t[i].kind != '[' || i + 1 >= p->ntok)
		return false;
	return p->t[i + 1].kind == ':' || (i + 2 < p->ntok && p->t[i + 1].kind == T_NAME && p->t[i + 2].kind == '<');
}

/* scatter := NAME ['.' 'flat'] '[' [svar (',' svar)* ':'] exprs ']' ('=' | '+=') expr [';']
 * svar := NAME '<' add          (the ':' may be left out when there are no variables) */
static Stmt *scatter(Parser *p, Stmt *s, Token *name)
{
	Node *at = new_node(p, N_LOAD, name->sp);
	at->name = name->name;
	at->load_id = -1;
	if (accept(p, '.')) {
		Token *f = expect(p, T_NAME, "'flat' after '.'");
		if (strcmp(f->name, "flat"))
			error_at(&p->c->diag, f->sp, "unknown attribute '.%s' (a scatter writes 'y[...]' or 'y.flat[...]')", f->name);
		at->kind = N_FLAT;
	}
	bool vars = scatter_head(p);
	expect(p, '[', at->kind == N_FLAT ? "'[' after '.flat'" : "'['");
	if (vars && !accept(p, ':')) {
		do {
			Token *v = expect(p, T_NAME, "an index variable");
			if (s->nlhs == MAXRANK)
				error_at(&p->c->diag, v->sp, "more than %d index variables", MAXRANK);
			Var *var = arena_alloc(&p->c->arena, sizeof *var);
			var->name = v->name;
			var->sp = v->sp;
			var->kind = V_LHS;
			expect(p, '<', "'<' and the range of the scatter's variable");
			s->bound[s->nlhs] = expr(p);
			s->lhs[s->nlhs++] = var;
		} while (accept(p, ','));
		expect(p, ':', "':' after the scatter's variables");
	}
	at->args = expr_list(p, ']', &at->nargs);
	at->sp = join(at->sp, p->t[p->pos - 1].sp);
	if (at->kind == N_FLAT && at->nargs != 1)
		error_at(&p->c->diag, at->sp, "'%s.flat' takes exactly one offset, not %d", at->name, at->nargs);
	if (peek(p)->kind == '+') {
		Token *plus = next(p);
		if (peek(p)->kind != '=' || peek(p)->sp.off != plus->sp.off + 1)
			syntax(p, plus, "'=' or '+='");
		s->accum = true;
	}
	if (peek(p)->kind != '=')
		syntax(p, peek(p), "'=' or '+='");
	next(p);
	s->at = at;
	s->rhs = expr(p);
	accept(p, ';');
	return s;
}

/* stmt := 'let' NAME ['[' names ']'] '=' expr | NAME ['[' names ']'] '=' expr  [';'] | scatter */
static Stmt *statement(Parser *p)
{
	Stmt *s = arena_alloc(&p->c->arena, sizeof *s);
	bool is_let = accept(p, T_LET);
	Token *name = expect(p, T_NAME, is_let ? "the name of the intermediate" : "a statement (an output or 'let')");
	s->sp = name->sp;
	Tensor *t = arena_alloc(&p->c->arena, sizeof *t);
	t->name = name->name;
	t->sp = name->sp;
	t->role = is_let ? ROLE_LET : ROLE_OUT;
	s->t = t; /* check.c resolves outputs to their parameter */
	if (!is_let && (peek(p)->kind == '.' || scatter_head(p)))
		return scatter(p, s, name);
	if (accept(p, '[')) {
		while (peek(p)->kind != ']') {
			Token *v = expect(p, T_NAME, "an index variable");
			if (s->nlhs == MAXRANK)
				error_at(&p->c->diag, v->sp, "more than %d index variables", MAXRANK);
			Var *var = arena_alloc(&p->c->arena, sizeof *var);
			var->name = v->name;
			var->sp = v->sp;
			var->kind = V_LHS;
			s->bound[s->nlhs] = is_let && accept(p, '<') ? expr(p) : NULL; /* let t[i < N] */
			s->lhs[s->nlhs++] = var;
			if (!accept(p, ','))
				break;
		}
		expect(p, ']', "',' or ']' (the left side takes index variables only)");
	}
	if (peek(p)->kind != '=')
		syntax(p, peek(p), "'='");
	next(p);
	s->rhs = expr(p);
	accept(p, ';');
	return s;
}

/* kernel := 'kernel' NAME params '->' params '{' stmt* '}' */
static Kernel *kernel(Parser *p)
{
	Kernel *k = arena_alloc(&p->c->arena, sizeof *k);
	k->ctx = p->c;
	k->src = p->c->diag.src;
	p->k = k;
	expect(p, T_KERNEL, "'kernel'");
	Token *name = expect(p, T_NAME, "the kernel's name");
	k->name = name->name;
	k->sp = name->sp;
	params(p, ROLE_IN);
	k->nin = k->params.n;
	expect(p, T_ARROW, "'->' and the outputs");
	params(p, ROLE_OUT);
	if (k->params.n == k->nin)
		error_at(&p->c->diag, name->sp, "kernel '%s' has no outputs", k->name);
	expect(p, '{', "'{'");
	while (!accept(p, '}')) {
		if (peek(p)->kind == T_EOF || peek(p)->kind == T_KERNEL)
			syntax(p, peek(p), "'}' closing the kernel");
		vec_push(&p->c->arena, &k->stmts, statement(p));
	}
	return k;
}

static void parse_kernel(void *arg)
{
	Parser *p = arg;
	Kernel *k = kernel(p);
	vec_push(&p->c->arena, &p->c->kernels, k);
}

typedef struct {
	Ctx *c;
	const Src *src;
	int bad;
} File;

/* Each kernel is parsed under its own recovery point: a syntax error (or
 * running out of memory) costs that kernel only. */
static void parse_kernels(void *arg)
{
	File *f = arg;
	Ctx *c = f->c;
	int ntok;
	Token *toks = lex(c, f->src, &ntok);
	Parser p = {c, toks, 0, ntok, 0, NULL, mark_reductions(c, toks, ntok)};
	if (peek(&p)->kind == T_EOF)
		diag_at(&c->diag, peek(&p)->sp, "no kernels in this file"), f->bad++;
	while (peek(&p)->kind != T_EOF) {
		if (!protect(&c->diag, parse_kernel, &p))
			continue;
		f->bad++;
		p.depth = 0;
		while (peek(&p)->kind != T_EOF && peek(&p)->kind != T_KERNEL)
			next(&p); /* skip to the next kernel */
	}
}

int parse_file(Ctx *c, const Src *src)
{
	c->diag.src = src;
	if (src->len > INT_MAX / 2) { /* spans count bytes in an int */
		diag_at(&c->diag, (Span){0, 1, 1, 1}, "the file is too large (%zu bytes; at most %d)", src->len, INT_MAX / 2);
		return 1;
	}
	File f = {c, src, 0};
	if (protect(&c->diag, parse_kernels, &f))
		f.bad++;
	return f.bad;
}

Tensor *kernel_param(const Kernel *k, const char *name)
{
	return names_get(&k->pnames, name);
}
