/* The front end's passes: text to tokens (lex.c), tokens to kernels
 * (parse.c), kernels checked and typed in place (check.c). Only the driver
 * (api.c) includes this header; every other layer reads the AST (ast.h). */
#ifndef ATHENE_FRONT_H
#define ATHENE_FRONT_H

#include "ast/ast.h"

/* ---------------------------------------------------------------- lex.c */

enum {
	T_EOF = 0,
	/* single-character tokens use their character code */
	T_INT = 256, T_FLOAT, T_NAME,
	T_KERNEL, T_LET, T_TRUE, T_FALSE,
	T_ARROW, T_EQ, T_NE, T_LE, T_GE, T_AND, T_OR, T_FLOORDIV, T_SHL, T_SHR, T_BAD,
};
typedef struct {
	int kind;
	Span sp;
	int64_t ival;
	double fval;
	const char *name; /* T_NAME: arena-owned */
} Token;
/* Tokenizes src. A lexical error is reported and leaves a T_BAD token. */
Token *lex(Ctx *c, const Src *src, int *ntok);
const char *token_desc(int kind);

/* ---------------------------------------------------------------- parse.c */

/* Parses a whole file into kernels appended to c->kernels. Returns the
 * number of kernels with syntax errors. */
int parse_file(Ctx *c, const Src *src);
Tensor *kernel_param(const Kernel *k, const char *name);
int find_sym(const Kernel *k, const char *name);

/* ---------------------------------------------------------------- check.c */

/* Names, dtypes, shapes, ranges. Unwinds on the first error. */
void check_kernel(Kernel *k);

#endif
