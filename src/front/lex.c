/* Lexer: source text -> token array ending in T_EOF. Comments run from '#'
 * to the end of the line; whitespace and newlines separate tokens only. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

static const struct {
	const char *s;
	int kind;
} puncts[] = {
	{"->", T_ARROW}, {"==", T_EQ}, {"!=", T_NE}, {"<=", T_LE}, {">=", T_GE},
	{"&&", T_AND}, {"||", T_OR}, {"//", T_FLOORDIV}, {"<<", T_SHL}, {">>", T_SHR},
};

const char *token_desc(int kind)
{
	static char one[4][8];
	static int next;
	switch (kind) {
	case T_EOF: return "end of file";
	case T_INT: return "integer";
	case T_FLOAT: return "number";
	case T_NAME: return "name";
	case T_KERNEL: return "'kernel'";
	case T_LET: return "'let'";
	case T_TRUE: return "'true'";
	case T_FALSE: return "'false'";
	case T_BAD: return "bad token";
	}
	for (size_t i = 0; i < sizeof puncts / sizeof puncts[0]; i++)
		if (puncts[i].kind == kind)
			return puncts[i].s;
	char *s = one[next++ % 4];
	snprintf(s, sizeof one[0], "'%c'", kind);
	return s;
}

typedef struct {
	Ctx *c;
	const Src *src;
	size_t pos;
	int line;
	size_t line_start;
	bool quiet; /* a bad character was reported in this kernel already */
} Lexer;

static Span span_here(Lexer *l, size_t start)
{
	return (Span){(int)start, (int)(l->pos - start), l->line, (int)(start - l->line_start) + 1};
}

static int keyword(const char *s, size_t n)
{
	if (n == 6 && !memcmp(s, "kernel", 6)) return T_KERNEL;
	if (n == 3 && !memcmp(s, "let", 3)) return T_LET;
	if (n == 4 && !memcmp(s, "true", 4)) return T_TRUE;
	if (n == 5 && !memcmp(s, "false", 5)) return T_FALSE;
	return T_NAME;
}

/* number := digits ['.' digits] [('e'|'E') ['+'|'-'] digits] | '.' digits ... */
static bool lex_number(Lexer *l, Token *t)
{
	const char *s = l->src->text;
	size_t start = l->pos, p = l->pos;
	bool isfloat = false;
	while (p < l->src->len && isdigit((unsigned char)s[p]))
		p++;
	if (p < l->src->len && s[p] == '.' && (p + 1 >= l->src->len || s[p + 1] != '.')) {
		isfloat = true;
		p++;
		while (p < l->src->len && isdigit((unsigned char)s[p]))
			p++;
	}
	if (p < l->src->len && (s[p] == 'e' || s[p] == 'E')) {
		size_t q = p + 1;
		if (q < l->src->len && (s[q] == '+' || s[q] == '-'))
			q++;
		if (q < l->src->len && isdigit((unsigned char)s[q])) {
			isfloat = true;
			p = q;
			while (p < l->src->len && isdigit((unsigned char)s[p]))
				p++;
		}
	}
	char tmp[128];
	size_t n = p - start;
	l->pos = p;
	t->sp = span_here(l, start);
	if (n >= sizeof tmp) {
		diag_at(&l->c->diag, t->sp, "number literal is too long");
		return false;
	}
	memcpy(tmp, s + start, n);
	tmp[n] = 0;
	errno = 0;
	if (isfloat) {
		t->kind = T_FLOAT;
		t->fval = strtod(tmp, NULL);
	} else {
		t->kind = T_INT;
		t->ival = strtoll(tmp, NULL, 10);
		if (errno == ERANGE) {
			diag_at(&l->c->diag, t->sp, "integer literal %s does not fit in 64 bits", tmp);
			return false;
		}
	}
	if (p < l->src->len && (isalpha((unsigned char)s[p]) || s[p] == '_')) {
		l->pos++;
		diag_at(&l->c->diag, span_here(l, p), "unexpected character '%c' after a number", s[p]);
		return false;
	}
	return true;
}

static bool lex_one(Lexer *l, Token *t)
{
	const char *s = l->src->text;
	size_t start = l->pos;
	char ch = s[start];
	if (isdigit((unsigned char)ch) ||
	    (ch == '.' && start + 1 < l->src->len && isdigit((unsigned char)s[start + 1])))
		return lex_number(l, t);
	if (isalpha((unsigned char)ch) || ch == '_') {
		while (l->pos < l->src->len && (isalnum((unsigned char)s[l->pos]) || s[l->pos] == '_'))
			l->pos++;
		t->kind = keyword(s + start, l->pos - start);
		if (t->kind == T_KERNEL)
			l->quiet = false;
		t->name = arena_strndup(&l->c->arena, s + start, l->pos - start);
		t->sp = span_here(l, start);
		return true;
	}
	for (size_t i = 0; ch && strchr("-=!<>&|/", ch) && i < sizeof puncts / sizeof puncts[0]; i++)
		if (!strncmp(s + start, puncts[i].s, 2) && start + 1 < l->src->len) {
			l->pos += 2;
			t->kind = puncts[i].kind;
			t->sp = span_here(l, start);
			return true;
		}
	l->pos++;
	t->sp = span_here(l, start);
	if (ch && strchr("()[]{},:;=+-*/%<>!.&|^~", ch)) {
		t->kind = (unsigned char)ch;
		return true;
	}
	/* one message for a whole UTF-8 sequence */
	unsigned char u = (unsigned char)ch;
	int extra = u >= 0xf0 ? 3 : u >= 0xe0 ? 2 : u >= 0xc0 ? 1 : 0;
	while (extra-- > 0 && l->pos < l->src->len && ((unsigned char)s[l->pos] & 0xc0) == 0x80)
		l->pos++;
	t->sp = span_here(l, start);
	if (l->quiet)
		return false;
	l->quiet = true; /* the parser skips the rest of this kernel */
	if (isprint(u))
		diag_at(&l->c->diag, t->sp, "unexpected character '%c'", ch);
	else if (u >= 0xc0 && l->pos - start > 1)
		diag_at(&l->c->diag, t->sp, "unexpected character '%.*s' (only ASCII is allowed outside comments)",
		        (int)(l->pos - start), s + start);
	else
		diag_at(&l->c->diag, t->sp, "unexpected byte 0x%02x", u);
	return false;
}

/* Appends t to the growing array *v (malloc'd, doubling). */
static void push_token(Ctx *c, Token **v, int *n, int *cap, const Token *t)
{
	if (*n == *cap) {
		int ncap = !*cap ? 1024 : *cap <= INT_MAX / 2 ? 2 * *cap : INT_MAX;
		Token *nv = ncap > *cap ? realloc(*v, (size_t)ncap * sizeof *nv) : NULL;
		if (!nv) {
			free(*v);
			error_plain(&c->diag, "cannot allocate %zu bytes for the tokens of %s", (size_t)ncap * sizeof *nv,
			            c->diag.src->name);
		}
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *t;
}

Token *lex(Ctx *c, const Src *src, int *ntok)
{
	Lexer l = {c, src, 0, 1, 0, false};
	Token *toks = NULL;
	int n = 0, cap = 0;
	for (;;) {
		const char *s = src->text;
		while (l.pos < src->len) {
			if (s[l.pos] == '\n') {
				l.line++;
				l.line_start = ++l.pos;
			} else if (s[l.pos] == ' ' || s[l.pos] == '\t' || s[l.pos] == '\r') {
				l.pos++;
			} else if (s[l.pos] == '#') {
				while (l.pos < src->len && s[l.pos] != '\n')
					l.pos++;
			} else {
				break;
			}
		}
		Token t = {0};
		if (l.pos >= src->len) {
			t.kind = T_EOF;
			t.sp = span_here(&l, l.pos);
			t.sp.len = 1;
			push_token(c, &toks, &n, &cap, &t);
			break;
		}
		/* A bad character becomes a T_BAD token: the parser skips the rest of
		 * its kernel without another message, and goes on with the next. */
		if (!lex_one(&l, &t))
			t.kind = T_BAD;
		push_token(c, &toks, &n, &cap, &t);
	}
	Token *arr = arena_try_alloc(&c->arena, (size_t)n * sizeof *arr);
	if (arr)
		memcpy(arr, toks, (size_t)n * sizeof *arr);
	free(toks);
	if (!arr)
		error_plain(&c->diag, "cannot allocate %zu bytes for the tokens of %s", (size_t)n * sizeof *arr, src->name);
	*ntok = n;
	return arr;
}
