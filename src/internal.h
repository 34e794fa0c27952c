/* Internal header: one section per source file, in pipeline order.
 * Units: strides and offsets are in elements everywhere in the compiler. */
#ifndef ATHENE_INTERNAL_H
#define ATHENE_INTERNAL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "athene.h"

#define MAXRANK ATHENE_MAX_RANK
typedef athene_dtype DType;
typedef struct athene_kernel Kernel;
typedef struct athene_ctx Ctx;
typedef struct Node Node;
typedef struct Sym Sym;

/* ---------------------------------------------------------------- util.c */

typedef struct Chunk Chunk;
typedef struct {
	Chunk *head;
} Arena;
void *arena_alloc(Arena *a, size_t n); /* zeroed, 16-byte aligned */
void arena_free(Arena *a);
char *arena_strndup(Arena *a, const char *s, size_t n);
void *arena_dup(Arena *a, const void *p, size_t n);

/* A growable string, malloc-owned. */
typedef struct {
	char *s;
	size_t len, cap;
} Buf;
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_putc(Buf *b, char c);
void buf_free(Buf *b);
const char *buf_str(Buf *b); /* never NULL */

/* A growable array of pointers, arena-owned. */
typedef struct {
	void **v;
	int n, cap;
} Vec;
void vec_push(Arena *a, Vec *v, void *p);

uint64_t hash_bytes(const void *p, size_t n, uint64_t h);
_Noreturn void die_at(const char *file, int line, const char *msg);
#define die(msg) die_at(__FILE__, __LINE__, msg)

/* Source text and positions. */
typedef struct {
	const char *name;
	const char *text;
	size_t len;
} Src;
typedef struct {
	int off, len, line, col;
} Span;

struct athene_ctx {
	Arena arena;
	Buf errs;
	Buf dump;
	jmp_buf *jmp;     /* where error_at unwinds to */
	const Src *src;   /* source of what is being compiled now */
	int nerrs;
	Vec kernels;      /* of Kernel */
	Buf pending;      /* notes, printed after the next error */
	int nchunks;      /* diagnostics in errs, for sorting by position */
	struct DiagChunk {
		size_t start;
		int line, col;
	} chunks[64];
};
/* Puts the diagnostics gathered so far in source order. */
void sort_diagnostics(Ctx *c);
/* Appends "file:line:col: error: msg" with the source line and a caret. */
void diag_at(Ctx *c, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void vdiag_at(Ctx *c, Span sp, const char *kind, const char *fmt, va_list ap);
void note_at(Ctx *c, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* diag_at, then unwind to c->jmp. */
_Noreturn void error_at(Ctx *c, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An error without a position (run time, bindings); unwinds. */
_Noreturn void error_plain(Ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------- dtype.c */

bool dt_is_float(DType t);
bool dt_is_int(DType t);   /* signed or unsigned, not bool */
bool dt_is_signed(DType t);
int dt_bits(DType t);
/* NumPy/PyTorch promotion of two non-weak dtypes. */
DType dt_promote(DType a, DType b);
uint16_t f16_from_double(double x);  /* round to nearest even */
double f16_to_double(uint16_t h);
uint16_t bf16_from_double(double x); /* round to nearest even */
double bf16_to_double(uint16_t h);
double dt_round_float(DType t, double x); /* x rounded to float dtype t */
int64_t dt_wrap_int(DType t, int64_t x);  /* x wrapped to int dtype t (bool: x != 0) */
int64_t dt_saturate(DType t, int64_t x);  /* x clamped to the range of int dtype t */
int64_t dt_f2i(double x);                 /* truncation toward zero, saturating; NaN -> 0 */
/* Element i of a buffer of dtype t, as a double or as an integer, and back.
 * Storing converts like NumPy's astype (float -> int truncates; NaN -> 0). */
double dt_load_f(const void *base, DType t, int64_t i);
int64_t dt_load_i(const void *base, DType t, int64_t i);
void dt_store_f(void *base, DType t, int64_t i, double x);
void dt_store_i(void *base, DType t, int64_t i, int64_t x);
/* Copies element si of src (dtype st) to element di of dst (dtype dt). */
void dt_convert(void *dst, DType dt, int64_t di, const void *src, DType st, int64_t si);

/* ---------------------------------------------------------------- lex.c */

enum {
	T_EOF = 0,
	/* single-character tokens use their character code */
	T_INT = 256, T_FLOAT, T_NAME,
	T_KERNEL, T_LET, T_TRUE, T_FALSE,
	T_ARROW, T_EQ, T_NE, T_LE, T_GE, T_AND, T_OR, T_FLOORDIV, T_BAD,
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

enum {
	N_INT, N_FLOAT, N_BOOL, N_NAME, N_LOAD, N_FLAT, N_CALL, N_UNARY, N_BINARY, N_REDUCE,
	/* produced by check.c */
	N_IVAR, N_SIZE, N_OP, N_CAST,
};
enum { R_SUM, R_PROD, R_MAX, R_MIN, R_MEAN, R_ARGMAX, R_ARGMIN, R_ANY, R_ALL, R_NONE };

enum {
#define X(e, s, n, k) e,
#include "ops.h"
#undef X
	NOPS
};
enum { K_ARITH, K_TDIV, K_FLOOR, K_CMP, K_LOGIC, K_FLOAT, K_SAME, K_PRED, K_WHERE, K_WRAP };
extern const struct OpInfo {
	const char *name;
	int arity, kind;
} op_info[NOPS];

typedef struct Tensor Tensor;
typedef struct Var Var;

struct Node {
	int kind;
	Span sp;
	int op;          /* N_UNARY/N_BINARY/N_OP: OP_*; N_REDUCE: R_*; N_CAST: dtype */
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
	/* bound */
	int64_t shape[MAXRANK], strides[MAXRANK], offset, storage;
};

enum { V_LHS, V_RED };
struct Var {
	const char *name;
	Span sp;
	int id, kind;
	Dim ext;        /* extent: the var ranges over [0, ext) */
	bool ext_known;
	bool inferred;  /* ext comes from the dims the variable subscripts */
	int64_t n;      /* bound extent */
};

typedef struct Stmt {
	Span sp;
	Tensor *t;
	Var *lhs[MAXRANK];
	int nlhs;
	Node *rhs;
} Stmt;

typedef struct {
	const char *name;
	Span sp;
	bool bound;
	int64_t val;
	char from[96]; /* where the bound value came from, for messages */
} SizeSym;

/* Two dims that must agree once sizes are bound (both symbolic). */
typedef struct {
	Dim a, b;
	Span sp;
	const char *what;
} Agree;

/* An access whose range could only be checked once sizes are bound. */
enum { KS_PARSED, KS_CHECKED, KS_COMPILED };

struct athene_kernel {
	Ctx *ctx;
	const Src *src;
	const char *name;
	Span sp;
	int state;
	Vec params;   /* Tensor: inputs then outputs */
	int nin;
	Vec lets;     /* Tensor */
	Vec stmts;    /* Stmt */
	Vec vars;     /* Var, id = position */
	Vec loads;    /* Node (N_LOAD/N_FLAT) of every load, id = load_id */
	SizeSym *syms;
	int nsyms, capsyms;
	Agree *agree;
	int nagree, capagree;
	/* lowered (KS_COMPILED) */
	struct SymTab *st;
	Sym **load_off;  /* per load: flat storage offset of the element read */
	Sym **store_off; /* per statement: flat offset of the element written */
	Sym **load_lower;/* per load: offset as lowered, before simplification */
	Sym **store_lower;
};

/* Parses a whole file into kernels (state KS_PARSED) appended to c->kernels.
 * Returns the number of kernels with syntax errors. */
int parse_file(Ctx *c, const Src *src);
Tensor *kernel_param(Kernel *k, const char *name);
void dump_node(Buf *b, const Node *n);
void dump_kernel(Buf *b, const Kernel *k, bool checked);

/* ---------------------------------------------------------------- check.c */

/* Names, dtypes, shapes, ranges. Unwinds on the first error. */
void check_kernel(Kernel *k);
/* Evaluates the layouts and dims with every size bound; range checks that
 * need concrete sizes. Unwinds on error. */
void bind_kernel(Kernel *k);
int find_sym(const Kernel *k, const char *name);
int bind_size(Kernel *k, int sym, int64_t value, const char *from);
void bind_shape(Kernel *k, Tensor *t, int rank, const int64_t *shape);
Var *node_var_of_subscript(const Node *n);

/* ---------------------------------------------------------------- sym.c */

enum { S_CONST, S_VAR, S_ATOM, S_ADD, S_MUL, S_DIV, S_MOD };
struct Sym {
	int kind, id;
	uint64_t hash;
	int64_t lo, hi; /* every value the expression takes lies in [lo, hi] */
	bool ovf;       /* computing the range overflowed: it may overflow 64 bits */
	int64_t c;      /* CONST: value; ADD: constant term; VAR, ATOM: their number */
	int n;          /* ADD: terms; MUL: factors; DIV, MOD: 2 */
	Sym **a;
	int64_t *k;     /* ADD: coefficient of each term */
	void *p;        /* VAR: Var*; ATOM: Node* (the data-dependent expression) */
};
typedef struct SymTab {
	Arena *ar;
	Sym **tab;
	size_t cap, n;
	int nextid;
	bool rules;    /* apply the simplification rules (off: only canonical sums) */
	bool overflow; /* a coefficient or constant overflowed 64 bits */
} SymTab;
SymTab *symtab_new(Arena *a, bool rules);
Sym *sym_const(SymTab *t, int64_t c);
Sym *sym_var(SymTab *t, int num, int64_t lo, int64_t hi, void *p);
Sym *sym_atom(SymTab *t, int num, int64_t lo, int64_t hi, void *p);
Sym *sym_add(SymTab *t, Sym *a, Sym *b);
Sym *sym_sub(SymTab *t, Sym *a, Sym *b);
Sym *sym_mul(SymTab *t, Sym *a, Sym *b);
Sym *sym_scale(SymTab *t, Sym *a, int64_t k);
Sym *sym_floordiv(SymTab *t, Sym *a, Sym *b); /* NULL: constant division by zero */
Sym *sym_mod(SymTab *t, Sym *a, Sym *b);
/* Rebuilds s in t (with t's rules). map (may be NULL) gives the replacement
 * of a VAR or ATOM leaf, or NULL to keep it. */
typedef Sym *(*SymMap)(SymTab *t, const Sym *leaf, void *env);
Sym *sym_rebuild(SymTab *t, const Sym *s, SymMap map, void *env);
/* Evaluates s; leaf() gives the value of VAR and ATOM nodes. Returns 0, or
 * SYM_EOVF / SYM_EDIV0. */
enum { SYM_OK, SYM_EOVF, SYM_EDIV0 };
typedef int (*SymLeaf)(void *env, const Sym *s, int64_t *out);
int sym_eval(const Sym *s, SymLeaf leaf, void *env, int64_t *out);
bool sym_has_atom(const Sym *s);
/* The values of term `at` of the sum e that keep e in [0, last] whatever
 * the other terms take (none of them an atom). */
bool sym_term_range(const Sym *e, int at, int64_t last, int64_t *lo, int64_t *hi);
typedef void (*SymName)(Buf *b, const Sym *leaf, void *env);
void sym_print(Buf *b, const Sym *s, SymName name, void *env);
/* Python-semantics floor division and modulo on int64 (d != 0). */
int64_t floordiv64(int64_t a, int64_t d);
int64_t gcd64(int64_t a, int64_t b); /* >= 0; 0 when it does not fit */
int64_t floormod64(int64_t a, int64_t d);

/* ---------------------------------------------------------------- lower.c */

/* Turns every load and store into a flat storage offset (k->load_lower),
 * then simplifies them (k->load_off). Unwinds on provable errors. */
void lower_kernel(Kernel *k);
void dump_lowered(Buf *b, Kernel *k, bool simplified);
/* Prints a leaf of a lowered offset: a variable's name, or an atom's expression. */
void sym_leaf_name(Buf *b, const Sym *leaf, void *env);

/* ---------------------------------------------------------------- view.c */

#define VIEW_MAXDIG 24
#define VIEW_MAXAX 48
enum { VIEW_VIEW, VIEW_ROWGATHER, VIEW_ELEM };
enum { VA_ITER, VA_INDEX, VA_GATHER, VA_UNIT };
/* class flags, derived from the view */
enum {
	VF_BROADCAST = 1 << 1, VF_STRIDED = 1 << 2, VF_SLICED = 1 << 3, VF_REVERSED = 1 << 4,
	VF_PERMUTED = 1 << 5, VF_COLLAPSED = 1 << 6, VF_ROWGATHER = 1 << 7, VF_EMPTY = 1 << 8,
};
/* One axis of the storage reshaped as a mixed-radix array. */
typedef struct {
	int kind;
	int64_t stride, size; /* elements; the reshape's extent of this axis */
	int64_t start;        /* VA_INDEX: the static index; VA_ITER/VA_GATHER: position of digit 0 */
	int64_t len;          /* VA_ITER: how many positions the digit takes */
	int step;             /* +1, or -1 for a reversed slice */
	int ref;              /* VA_ITER: digit; VA_GATHER: gather */
} VAxis;
/* A digit of an index variable: var = Σ place·digit, digit < n. */
typedef struct {
	const Var *var;
	int vi, index, nsplit; /* index 0 is the least significant of nsplit digits */
	int64_t place, n, coef;
	int axis;              /* storage axis, -1: broadcast (coefficient 0) */
} ViewDigit;
typedef struct {
	const Sym *atom;       /* payload: the subscript node (with its index load) */
	const Node *index_load;
	int axis;
} ViewGather;
typedef struct {
	int cls;
	char reason[200];
	int naxes, ndig, ngat;
	VAxis ax[VIEW_MAXAX];        /* outer to inner */
	ViewDigit dig[VIEW_MAXDIG];  /* by variable, most significant digit first */
	ViewGather gat[VIEW_MAXDIG];
	unsigned flags;
} View;
/* scope: the index variables the access iterates over; those absent from
 * the offset are broadcast. */
void view_analyse(View *v, Arena *ar, const Sym *off, int64_t storage, const Tensor *t, Kernel *k,
                  const Var *const *scope, int nscope);
/* Address of an element through the view (var_value by Var id, atom_value by gather). */
int64_t view_address(const View *v, const int64_t *var_value, const int64_t *atom_value);
void view_print(Buf *b, const View *v);
void gather_position(Buf *b, const View *v, const VAxis *a);
void view_class(Buf *b, const View *v);

/* ---------------------------------------------------------------- plan.c */

#define PLAN_MAXVARS 32
enum { TARGET_CPU, TARGET_TPU };
typedef struct {
	const Var *var;
	int64_t n, block; /* elements of the variable per block */
	int grid;         /* grid axis, -1 when the block holds the whole variable */
	bool reduce;      /* a reduction variable: its grid axis is 'arbitrary' */
	bool split;       /* split into digits by some access */
	bool whole;       /* must stay whole (the store is not a view) */
	int64_t unit;     /* the block is a multiple of it: the place of the top
	                   * digit of every access that splits the variable */
} PlanVar;
/* One axis of an operand's array (its storage reshaped by the view). */
typedef struct {
	int kind;         /* VA_ITER, VA_INDEX (static), VA_GATHER, VA_UNIT (added) */
	int64_t size;
	int64_t block;    /* 0: squeezed */
	int64_t start, len;
	int64_t stride;   /* elements, in the operand's storage (0 for unit axes) */
	int step;
	int var;          /* VA_ITER: the PlanVar driving it, -1 when none */
	int ref;          /* VA_ITER: view digit; VA_GATHER: view gather */
	int vaxis;        /* the view's axis it comes from, -1 for an added unit axis */
	bool widened;     /* loaded whole; the kernel indexes inside the block */
} PlanAxis;
typedef struct {
	const Tensor *t;
	int access;       /* load id, -1 for the store */
	bool prefetch;    /* an index load of a row gather: scalar prefetch */
	View view;
	int naxes;
	PlanAxis ax[VIEW_MAXAX + 4];
} PlanOperand;
typedef struct {
	Stmt *stmt;
	bool materialised;
	bool empty;       /* the output has no elements: nothing to do */
	bool scatter;     /* the store is not a view: one block for everything */
	char notes[512];  /* target-specific remarks, one per line */
	int nvars, nlhs;  /* output variables first, then reduction variables */
	PlanVar vars[PLAN_MAXVARS];
	int ngrid;
	int grid_var[PLAN_MAXVARS];
	Vec ops;          /* PlanOperand: the store first, then the loads */
} PlanStmt;
typedef struct Plan {
	int target;
	Kernel *k;
	int nstmts;
	PlanStmt *st;
} Plan;
Plan *plan_kernel(Kernel *k, int target);
int plan_check(const Plan *p, Buf *err);
int plan_check_tpu(const Plan *p, Buf *err);
void plan_explain(Buf *b, const Plan *p, bool json);

/* ---------------------------------------------------------------- interp.c */

/* Runs a compiled kernel element by element. Unwinds on run-time errors. */
void interp_run(Kernel *k, void *const *storage);

/* ---------------------------------------------------------------- npy.c */

typedef struct {
	DType dt;
	int rank;
	int64_t shape[MAXRANK];
	void *data;     /* malloc'd, C order, native byte order */
	size_t nbytes;
} Npy;
/* 0 on success; -1 with a message in err. Fortran-order files are
 * transposed into C order. */
int npy_read(const char *path, Npy *out, char *err, size_t errlen);
/* Writes a C-order array. 0 on success; -1 with a message in err. */
int npy_write(const char *path, DType dt, int rank, const int64_t *shape, const void *data,
              char *err, size_t errlen);
void npy_free(Npy *a);

#endif
