/* The AST of a kernel: what the front end produces and every later layer
 * reads (read-only once checked), its printer in the language's syntax and
 * the context that holds the loaded kernels. The front end's passes are in
 * front.h, which only the driver includes. */
#ifndef ATHENE_AST_H
#define ATHENE_AST_H

#include "base/base.h"

typedef struct athene_kernel Kernel;
typedef struct athene_ctx Ctx;
typedef struct athene_inst Inst;
typedef struct Node Node;

/* ---------------------------------------------------------------- the AST */

enum {
	N_INT, N_FLOAT, N_BOOL, N_NAME, N_LOAD, N_FLAT, N_CALL, N_UNARY, N_BINARY, N_REDUCE,
	/* produced by check.c */
	N_IVAR, N_SIZE, N_OP, N_CAST, N_BITCAST,
};

typedef struct Tensor Tensor;
typedef struct Var Var;

struct Node {
	int kind;
	Span sp;
	int op;          /* N_UNARY/N_BINARY/N_OP: OP_*; N_REDUCE: R_*; N_CAST, N_BITCAST: dtype */
	DType dt;        /* after check */
	DType opdt;      /* N_OP: the dtype the operation computes in */
	bool weak;       /* after check: a literal-like value (Python scalar) */
	int64_t ival;    /* N_INT, N_BOOL */
	double fval;     /* N_FLOAT */
	const char *name;/* N_NAME, N_CALL, N_LOAD, N_FLAT, N_REDUCE (its op name) */
	Node **args;     /* operands, call arguments, subscripts, reduction body (args[0]) */
	int nargs;
	Tensor *t;       /* N_LOAD, N_FLAT after check */
	Var *var;        /* N_IVAR */
	int sym;         /* N_SIZE: index into kernel's size symbols */
	int load_id;     /* N_LOAD, N_FLAT: index into Kernel.loads */
	int depth;       /* height of the tree below (bounded by the parser) */
	/* N_REDUCE: variables and optional bounds as written */
	const char **rnames;
	Span *rspans;
	Node **rbounds;  /* NULL entries where the bound is inferred */
	Var **rvars;     /* after check */
	int nrvars;
};

/* A dim as written: a literal or a size symbol. val is the bound value. */
typedef struct {
	int sym; /* -1: literal */
	int64_t val;
	Span sp;
} Dim;

enum { ROLE_IN, ROLE_OUT, ROLE_LET };
struct Tensor {
	const char *name;
	Span sp;
	int role, index; /* param index, or let index */
	DType dt;
	int rank;
	Dim dims[MAXRANK];
	Node *stride_ex[MAXRANK]; /* NULL: row-major layout */
	Node *offset_ex;
	bool has_strides;
	struct Stmt *def; /* outputs and lets: the statement that defines it */
	int uses;         /* lets: how many loads read it */
	bool reduces;     /* lets: its definition has a reduction */
};

enum { V_LHS, V_RED };
struct Var {
	const char *name;
	Span sp;
	int id, kind;
	Dim ext;        /* extent: the var ranges over [0, ext) */
	bool ext_known;
	bool inferred;  /* ext comes from the dims the variable subscripts */
};

typedef struct Stmt {
	Span sp;
	Tensor *t;
	Var *lhs[MAXRANK];
	Node *bound[MAXRANK]; /* let t[i < N]: the range given, NULL where inferred */
	int nlhs;
	Node *rhs;
	/* a scatter, y[i < N: e0, e1] = v or y.flat[i < N: e] += v: the element
	 * stored to (N_LOAD or N_FLAT of the output, load_id -1; its subscripts
	 * may read data); the variables' ranges are given in bound[]. NULL for
	 * every other statement. The output is updated in place: elements no
	 * point stores to keep their values. */
	Node *at;
	bool accum;           /* += : each point adds its value to the element */
} Stmt;

typedef struct {
	const char *name;
	Span sp;
} SizeSym;

/* Two dims that must agree once sizes are bound (both symbolic). */
typedef struct {
	Dim a, b;
	Span sp;
	const char *what;
} Agree;

/* A checked kernel is read-only: everything that depends on sizes and
 * layouts lives in an instance (Inst). */
struct athene_kernel {
	Ctx *ctx;
	const Src *src;
	const char *name;
	Span sp;
	bool checked;
	Vec params;   /* Tensor: inputs then outputs */
	Names pnames; /* the parameters by name (the first of duplicates) */
	int nin;
	Vec lets;     /* Tensor */
	Vec stmts;    /* Stmt */
	Vec vars;     /* Var, id = position */
	Vec loads;    /* Node (N_LOAD/N_FLAT) of every load, id = load_id */
	SizeSym *syms;
	int nsyms, capsyms;
	Names symnames; /* into syms */
	Agree *agree;
	int nagree, capagree;
};

/* ---------------------------------------------------------------- ast.c */

/* The printer of the AST, in the language's syntax (ast.c). */
void ast_print(Buf *b, const Node *n);
void ast_print_kernel(Buf *b, const Kernel *k, bool checked);
void ast_print_lhs(Buf *b, const Stmt *s, int d); /* variable d of a statement's left side */
void ast_print_target(Buf *b, const Stmt *s);      /* the whole left side */
bool ast_equal(const Node *a, const Node *b); /* structurally equal */

/* ---------------------------------------------------------------- the context (api.c) */

struct athene_ctx {
	Arena arena;      /* kernels and sources: grows with what is loaded */
	Diag diag;
	Vec kernels;      /* of Kernel */
	Inst *insts;      /* live instances */
	Names names;        /* the loaded kernels, by name */
};

#endif
