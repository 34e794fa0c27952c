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
#include <string.h>

#include "athene.h"

#define MAXRANK ATHENE_MAX_RANK
typedef athene_dtype DType;
typedef struct athene_kernel Kernel;
typedef struct athene_ctx Ctx;
typedef struct athene_inst Inst;
typedef struct Node Node;
typedef struct Sym Sym;

/* ---------------------------------------------------------------- util.c */

typedef struct Chunk Chunk;
typedef struct {
	Chunk *head;
} Arena;
void *arena_alloc(Arena *a, size_t n); /* zeroed, 16-byte aligned; dies when out of memory */
void *arena_try_alloc(Arena *a, size_t n); /* the same, or NULL */
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
/* The blocks of Bufs first grown while a ledger is open on this thread and
 * not freed since: what an error that unwinds past their owners' frames (an
 * emitter's refusal) leaves to free. buf_ledger_forget drops a block whose
 * Buf outlives the unwinding (the caller's, a Diag's). */
typedef struct {
	void **p;
	int n, cap;
} BufLedger;
void buf_ledger_open(BufLedger *l);
void buf_ledger_forget(BufLedger *l, const void *block);
void buf_ledger_close(BufLedger *l, bool free_blocks);

/* A growable array of pointers, arena-owned. */
typedef struct {
	void **v;
	int n, cap;
} Vec;
void vec_push(Arena *a, Vec *v, void *p);

/* Overflow-checked int64 arithmetic, for every size, stride, extent, byte
 * count and round-up: true when the result fits (in *r). */
static inline bool i64_add(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline bool i64_sub(int64_t a, int64_t b, int64_t *r) { return !__builtin_sub_overflow(a, b, r); }
static inline bool i64_mul(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
/* ceil(a / b) for a >= 0, b > 0: never overflows, unlike (a + b - 1) / b. */
static inline int64_t i64_ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }
/* a rounded up to a multiple of b (a >= 0, b > 0). */
static inline bool i64_round_up(int64_t a, int64_t b, int64_t *r) { return i64_mul(i64_ceil_div(a, b), b, r); }

uint64_t hash_bytes(const void *p, size_t n, uint64_t h);

/* Names, each with a pointer: open addressing in arena memory (a grown
 * table's old slots stay in the arena). Zero-initialised is empty. */
typedef struct {
	const char **key;
	void **val;
	size_t cap, n;
} Names;
void *names_get(const Names *m, const char *key); /* NULL when absent */
/* Adds key unless present; returns the value now under key. */
void *names_add(Arena *a, Names *m, const char *key, void *val);
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

/* Where diagnostics go: the context's (loading), an instance's (binding,
 * compiling, explaining) or a run's own. An error unwinds to jmp. */
typedef struct Diag {
	Buf errs;
	Buf pending;      /* notes, printed after the next error */
	jmp_buf *jmp;     /* where error_at unwinds to */
	const Src *src;   /* source of what is being compiled now */
	int nerrs;
	int nchunks;      /* diagnostics in errs, for sorting by position */
	struct DiagChunk {
		size_t start;
		int line, col;
	} chunks[64];
} Diag;
void diag_clear(Diag *d);
void diag_free(Diag *d);
/* Runs fn(arg) with d's recovery point set: 0, or -1 after an error. */
int protect(Diag *d, void (*fn)(void *), void *arg);
/* Puts the diagnostics gathered so far in source order. */
void sort_diagnostics(Diag *d);
/* Appends "file:line:col: error: msg" with the source line and a caret. */
void diag_at(Diag *d, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void vdiag_at(Diag *d, Span sp, const char *kind, const char *fmt, va_list ap);
void note_at(Diag *d, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* diag_at, then unwind to d->jmp. */
_Noreturn void error_at(Diag *d, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An error without a position (run time, bindings); unwinds. */
_Noreturn void error_plain(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------- dtype.c */

bool dt_is_float(DType t);
bool dt_is_int(DType t);   /* signed or unsigned, not bool */
bool dt_is_signed(DType t);
int dt_bits(DType t);
/* NumPy/PyTorch promotion of two non-weak dtypes. */
DType dt_promote(DType a, DType b);
/* f16 and bf16 from and to double, on the bits, without branches (inline:
 * the register machine converts whole rows with them, and they vectorise).
 * A small float has mbits explicit mantissa bits, ebits of exponent and
 * least normal exponent emin. */
static inline uint64_t dbits(double x)
{
	union { double d; uint64_t u; } v = {.d = x}; /* C11: the bits, reinterpreted */
	return v.u;
}

static inline double dof(uint64_t u)
{
	union { uint64_t u; double d; } v = {.u = u};
	return v.d;
}

/* a where c, else b: a mask, not a branch, so that loops vectorise */
static inline uint64_t sel64(bool c, uint64_t a, uint64_t b)
{
	uint64_t m = -(uint64_t)c;
	return (a & m) | (b & ~m);
}

/* x rounded once, to nearest even, to the small float, as a double: the
 * normal range by carrying into the last place kept, below it by adding and
 * taking away 1.5·2^(emin - mbits + 52), whose last place is the small
 * float's quantum there; beyond the largest finite value infinity, a NaN the
 * quiet NaN of its sign. (The rounding mode is the default, to nearest.) */
static inline double small_round(double x, int mbits, int ebits, int emin)
{
	const int drop = 52 - mbits;
	const uint64_t inf = (uint64_t)0x7ff << 52, over = (uint64_t)(1023 + (1 << (ebits - 1))) << 52,
	               tiny = (uint64_t)(1023 + emin) << 52;
	const double c = dof((uint64_t)(1023 + emin - mbits + 52) << 52 | (uint64_t)1 << 51);
	uint64_t u = dbits(x), sign = u & (uint64_t)1 << 63, a = u ^ sign;
	uint64_t near = (a + ((uint64_t)1 << (drop - 1)) - 1 + (a >> drop & 1)) & ~(((uint64_t)1 << drop) - 1);
	uint64_t sub = dbits((dof(a & -(uint64_t)(a < tiny)) + c) - c);
	uint64_t r = sel64(a > inf, inf | (uint64_t)1 << 51, sel64(a < tiny, sub, sel64(near >= over, inf, near)));
	return dof(r | sign);
}

/* The bits of y, a value of the small float (or an infinity or a NaN). */
static inline uint16_t small_bits(double y, int mbits, int ebits, int emin)
{
	const uint64_t inf = (uint64_t)0x7ff << 52, tiny = (uint64_t)(1023 + emin) << 52;
	const double scale = dof((uint64_t)(1023 + mbits - emin) << 52); /* 2^(mbits - emin) */
	uint64_t u = dbits(y), a = u & ~((uint64_t)1 << 63), sign = (u >> 63) << (mbits + ebits);
	uint64_t top = (uint64_t)((1u << ebits) - 1) << mbits;
	uint64_t normal = ((a >> 52) - 1023 + (uint64_t)(1 - emin)) << mbits | (a >> (52 - mbits) & ((1u << mbits) - 1));
	uint64_t sub = (uint64_t)(int32_t)(dof(a & -(uint64_t)(a < tiny)) * scale); /* at most 2^mbits */
	uint64_t r = sel64(a >= inf, top | sel64(a > inf, (uint64_t)1 << (mbits - 1), 0), sel64(a < tiny, sub, normal));
	return (uint16_t)(sign | r);
}

static inline uint16_t small_from_double(double x, int mbits, int ebits, int emin)
{
	return small_bits(small_round(x, mbits, ebits, emin), mbits, ebits, emin);
}

/* The double of small float h; every NaN the quiet NaN of its sign. Exact. */
static inline double small_to_double(uint16_t h, int mbits, int ebits, int emin)
{
	const double unit = dof((uint64_t)(1023 + emin - mbits) << 52); /* the subnormals' quantum */
	uint64_t sign = (uint64_t)(h >> (mbits + ebits) & 1) << 63, mant = h & ((1u << mbits) - 1);
	uint64_t ef = (uint64_t)(h >> mbits & ((1u << ebits) - 1));
	uint64_t normal = (ef + 1023 - (uint64_t)(1 - emin)) << 52 | mant << (52 - mbits);
	uint64_t special = (uint64_t)0x7ff << 52 | sel64(mant != 0, (uint64_t)1 << 51, 0);
	uint64_t sub = dbits((double)(int32_t)mant * unit); /* (AVX2 converts 32-bit integers) */
	uint64_t r = sel64(ef == (1u << ebits) - 1, special, sel64(ef == 0, sub, normal));
	return dof(r | sign);
}

static inline uint16_t f16_from_double(double x) { return small_from_double(x, 10, 5, -14); }
static inline double f16_to_double(uint16_t h) { return small_to_double(h, 10, 5, -14); }
static inline uint16_t bf16_from_double(double x) { return small_from_double(x, 7, 8, -126); }
static inline double bf16_to_double(uint16_t h) { return small_to_double(h, 7, 8, -126); }
static inline double f16_round(double x) { return small_round(x, 10, 5, -14); }
static inline double bf16_round(double x) { return small_round(x, 7, 8, -126); }

/* The same in float, for registers that hold f16 and bf16 values in f32
 * lanes: a float is exact in double, so each equals its double version
 * (dtype_test checks that bit for bit). bf16 has f32's exponent range, so
 * rounding it is a carry into bit 16, subnormals included. And since f32's
 * 24 bits are at least 2p + 2 for both (p = 11 and 8), a + - * / of two of
 * their values rounded to f32 and then to them is the exact result rounded
 * once (dtype_test checks that too). */
static inline uint32_t fbits(float x)
{
	union { float f; uint32_t u; } v = {.f = x};
	return v.u;
}

static inline float fof(uint32_t u)
{
	union { uint32_t u; float f; } v = {.u = u};
	return v.f;
}

static inline uint32_t sel32(bool c, uint32_t a, uint32_t b)
{
	uint32_t m = -(uint32_t)c;
	return (a & m) | (b & ~m);
}

static inline float bf16_round_f(float x)
{
	uint32_t u = fbits(x), a = u & 0x7fffffffu, sign = u ^ a;
	uint32_t near = (a + 0x7fffu + (a >> 16 & 1)) & 0xffff0000u; /* carries into infinity past the largest */
	return fof(sel32(a > 0x7f800000u, 0x7fc00000u, near) | sign);
}

static inline float f16_round_f(float x)
{
	const uint32_t inf = 0x7f800000u, over = (uint32_t)(127 + 16) << 23, tiny = (uint32_t)(127 - 14) << 23;
	uint32_t u = fbits(x), a = u & 0x7fffffffu, sign = u ^ a;
	uint32_t near = (a + 0xfffu + (a >> 13 & 1)) & ~0x1fffu;
	uint32_t sub = fbits((fof(a & -(uint32_t)(a < tiny)) + 0.75f) - 0.75f); /* 0.75's last place: 2^-24 */
	return fof(sel32(a > inf, 0x7fc00000u, sel32(a < tiny, sub, sel32(near >= over, inf, near))) | sign);
}

/* f16 bits as a float, every NaN the quiet NaN of its sign (as
 * f16_to_double), and a float rounded to f16, as bits. */
static inline float f16_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = h >> 10 & 0x1f, m = h & 0x3ffu;
	uint32_t normal = (e + 112) << 23 | m << 13;
	uint32_t sub = fbits((float)(int32_t)m * 0x1p-24f), special = 0x7f800000u | sel32(m != 0, 0x400000u, 0);
	return fof(sel32(e == 31, special, sel32(e == 0, sub, normal)) | sign);
}

static inline uint16_t f16_from_float(float x)
{
	const uint32_t inf = 0x7f800000u, tiny = (uint32_t)(127 - 14) << 23;
	uint32_t u = fbits(f16_round_f(x)), a = u & 0x7fffffffu, sign = u >> 16 & 0x8000;
	uint32_t normal = ((a >> 23) - 112) << 10 | (a >> 13 & 0x3ffu);
	uint32_t sub = (uint32_t)(int32_t)(fof(a & -(uint32_t)(a < tiny)) * 0x1p24f); /* at most 2^10 */
	return (uint16_t)(sign | sel32(a >= inf, 0x7c00u | sel32(a > inf, 0x200u, 0), sel32(a < tiny, sub, normal)));
}

/* bf16 bits as a float, every NaN the quiet NaN of its sign (as
 * bf16_to_double), and a float rounded to bf16, as bits. */
static inline float bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16, a = u & 0x7fffffffu;
	return fof(sel32(a > 0x7f800000u, 0x7fc00000u | (u ^ a), u));
}

static inline uint16_t bf16_from_float(float x)
{
	return (uint16_t)(fbits(bf16_round_f(x)) >> 16);
}

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
enum {
#define X(e, s, n, k, c, j) e,
#define RX(e, s, j, c)
#include "ops.h"
#undef RX
#undef X
	NOPS
};
enum {
#define X(e, s, n, k, c, j)
#define RX(e, s, j, c) e,
#include "ops.h"
#undef RX
#undef X
	R_NONE
};
enum { K_ARITH, K_TDIV, K_FLOOR, K_CMP, K_LOGIC, K_FLOAT, K_SAME, K_PRED, K_WHERE, K_WRAP };
extern const struct OpInfo {
	const char *name;
	int arity, kind;
	const char *c, *jnp; /* the backends' spellings */
} op_info[NOPS];
extern const struct ReduceInfo {
	const char *name;
	const char *jnp, *c_init;
} reduce_info[R_NONE];

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

/* Parses a whole file into kernels appended to c->kernels. Returns the
 * number of kernels with syntax errors. */
int parse_file(Ctx *c, const Src *src);
Tensor *kernel_param(const Kernel *k, const char *name);
int find_sym(const Kernel *k, const char *name);

/* ---------------------------------------------------------------- check.c */

/* Names, dtypes, shapes, ranges. Unwinds on the first error. */
void check_kernel(Kernel *k);
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
/* The one exact integer evaluator: a op b (OP_ADD, OP_SUB, OP_MUL,
 * OP_FLOORDIV, OP_MOD; OP_NEG of a) in 64 bits, Python's floor semantics.
 * SYM_OK with *out, or SYM_EOVF / SYM_EDIV0. */
int int_op(int op, int64_t a, int64_t b, int64_t *out);
/* Python-semantics floor division and modulo on int64 (d != 0). */
int64_t floordiv64(int64_t a, int64_t d);
int64_t gcd64(int64_t a, int64_t b); /* >= 0; 0 when it does not fit */
int64_t floormod64(int64_t a, int64_t d);

/* ---------------------------------------------------------------- bind.c */

/* A tensor's bound layout: logical shape, strides and offset in elements,
 * and how many elements its storage spans. */
typedef struct {
	int64_t shape[MAXRANK], strides[MAXRANK], offset, storage;
} Layout;
/* Evaluates dims and layouts with every size bound (a layout given at run
 * time replaces the row-major default); the extents of the variables.
 * Unwinds on error. */
void bind_inst(Inst *in);
void bind_size(Inst *in, int sym, int64_t value, const char *from);
void bind_shape(Inst *in, const Tensor *t, int rank, const int64_t *shape);
void bind_layout(Inst *in, const Tensor *t, const int64_t *strides, int64_t offset);
const Layout *tensor_layout(const Inst *in, const Tensor *t);
int64_t var_extent(const Inst *in, const Var *v);

/* ---------------------------------------------------------------- lower.c */

/* Decides which lets are fused into their consumers (in->fused) and lists
 * the planned statements: outputs and materialised lets. */
void inline_lets(Inst *in);
/* Can a let's value fail at run time (then it is materialised)? */
bool let_fallible(const Tensor *t);
/* Lowers every load and store to a flat storage offset: per load in its own
 * statement (the interpreter's cross-check, index ranges), and per access of
 * a planned statement, with fused lets expanded in place. raw: canonical
 * sums only; else simplified and range-checked (unwinds on provable errors). */
void lower_inst(Inst *in, bool raw);
/* Prints a leaf of a lowered offset: a variable's name, or an atom's expression. */
void sym_leaf_name(Buf *b, const Sym *leaf, void *env);
bool node_equal(const Node *a, const Node *b); /* structurally equal */
/* The value v that n wraps: wrap(v, m), or PyTorch's negative-index wrap as
 * Inductor writes it, where(v < 0, v + m, v) (also v >= 0 with the branches
 * swapped, and 0 > v, 0 <= v), with the constant m > 0 in *m; else NULL. */
const Node *wrap_of(const Inst *in, const Node *n, int64_t *m);
/* The values of input p valid as indices, over its uses as a whole
 * subscript (idx[s] or a wrap of it, either spelling) and as a term of a
 * flat offset (idx[s] or idx.flat[s], wrapped or not): 0, or -1 when it is
 * used so nowhere. After the simplify pass. */
int lower_index_range(const Inst *in, const Tensor *p, int64_t *lo, int64_t *hi);

/* ---------------------------------------------------------------- view.c */

#define VIEW_MAXDIG 24
#define VIEW_MAXAX 48
enum { VIEW_VIEW, VIEW_ROWGATHER, VIEW_ELEM };
enum { VA_ITER, VA_INDEX, VA_GATHER, VA_UNIT };
/* class flags, derived from the view */
enum {
	VF_BROADCAST = 1 << 1, VF_STRIDED = 1 << 2, VF_SLICED = 1 << 3, VF_REVERSED = 1 << 4,
	VF_PERMUTED = 1 << 5, VF_COLLAPSED = 1 << 6, VF_ROWGATHER = 1 << 7, VF_EMPTY = 1 << 8,
	VF_MASKED = 1 << 9, VF_ROLLED = 1 << 10,
};
/* One axis of the storage reshaped as a mixed-radix array. */
typedef struct {
	int kind;
	int64_t stride, size; /* elements; the reshape's extent of this axis */
	int64_t start;        /* VA_INDEX: the static index; VA_ITER/VA_GATHER: position of digit 0 */
	int64_t len;          /* VA_ITER: how many positions the digit takes */
	int64_t step;         /* +1, -1 for a reversed slice, or any other on a strided
	                       * slice of a declared dim: positions start + step·digit */
	int ref;              /* VA_ITER: digit; VA_GATHER: gather */
} VAxis;
/* A digit of an index variable: var = Σ place·digit, digit < n. */
typedef struct {
	const Var *var;
	int vi, index, nsplit; /* index 0 is the least significant of nsplit digits */
	int64_t place, n, coef;
	int axis;              /* storage axis, -1: broadcast (coefficient 0) */
	bool masked;           /* read only for var in [mlo, mhi] (a where() guard): the
	                        * positions of the other values are the padded region */
	int64_t mlo, mhi;
} ViewDigit;
typedef struct {
	const Sym *atom;       /* payload: the subscript node (with its index load) */
	const Node *index_load;
	int64_t wrap;          /* the index is wrap(index_load, wrap) (0: a bare load) */
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
/* The view of a flat offset over `storage` elements of tensor t (layout
 * lay, NULL for intermediates). scope: the index variables the access
 * iterates over; those absent from the offset are broadcast. index_off
 * gives the offset of an index load in the same statement. A variable of
 * the offset whose range is narrower than its extent (a guarded access,
 * lowered over the box its where() condition leaves) is masked: the view
 * holds for its range, and its axis's other positions are padding. */
typedef const Sym *(*IndexOff)(const void *env, const Node *load);
void view_analyse(View *v, Arena *ar, const Sym *off, int64_t storage, const Tensor *t, const Layout *lay,
                  const Inst *in, const Var *const *scope, int nscope, IndexOff index_off, const void *env);
/* Address of an element through the view (var_value by Var id, atom_value by gather). */
int64_t view_address(const View *v, const int64_t *var_value, const int64_t *atom_value);
/* A gathered index as the index map reads it: idx[s], or wrap(idx[s], m)
 * however the source spells the wrap. */
void gather_index_print(Buf *b, const ViewGather *g);
/* Prints axis a of the view line where it needs more than a start and a
 * length (a wrapped gather, a step other than ±1, a mask); false otherwise. */
bool view_axis_print(Buf *b, const View *v, const VAxis *a);

/* ---------------------------------------------------------------- analyse (lower.c) */

#define MAXSCOPE 32
/* One access of a planned statement: its store, or one of its loads (those
 * of fused lets included, with the let's variables replaced by the
 * consumer's subscripts). The view is computed once and then read-only. */
/* A fused let being expanded: its variables stand for the subscripts of
 * the load `use`, which are expressions of the enclosing expansion. */
typedef struct Env {
	const struct Env *up;
	const Stmt *let;
	const Node *use;
} Env;
/* A condition an expression is evaluated under (the language evaluates
 * only the branch where() takes, and the right side of && and || only when
 * it decides): where(c, a, b) guards a by c and b by !c; a && b guards b by
 * a; a || b guards b by !a. */
typedef struct Guard {
	const struct Guard *up;
	const Node *cond;
	bool neg;           /* guarded by !cond */
	const Env *env;     /* the expansion cond sits in */
} Guard;
typedef struct {
	const Node *load;   /* NULL for the store */
	const Tensor *t;    /* never a fused let */
	const Env *env;     /* the expansion it sits in, NULL outside fused lets */
	const Guard *guard; /* the conditions it is read under, NULL: always */
	bool masked;        /* its view holds only in the box its guard leaves (off is moff) */
	Sym *moff;          /* the offset over that box, NULL when the guard is no box */
	bool exact;         /* the guard is exactly that box of ranges */
	bool never;         /* no point satisfies the box: it is never read */
	int nscope;         /* the variables it iterates over */
	const Var *scope[MAXSCOPE];
	Sym *raw, *off;     /* flat storage offset: as lowered, simplified */
	Sym *roff[2];       /* a roll ((v + c) % n wrapping once over v's range): the
	                     * offset for v below the wrap and from it, NULL for none */
	View view;
	View *piece;        /* a rolled access: the view of its second piece, the
	                     * first being view; both are masked to their ranges of v */
} Access;
typedef struct {
	Stmt *stmt;
	int index;          /* in Kernel.stmts */
	Vec acc;            /* Access: the store, then the loads in source order */
	Vec fused;          /* Tensor: the lets fused into this statement */
} Planned;
void analyse_inst(Inst *in);

/* ---------------------------------------------------------------- plan.c */

#define PLAN_MAXVARS MAXSCOPE
/* What the planner knows of a target; no backend tests a target's name. */
typedef struct {
	const char *name;
	int64_t budget;     /* bytes of one grid step's blocks */
	int buffers;        /* copies of each block (2: double-buffered DMA) */
	bool tiles;         /* (8·packing, 128) tiles: padding and the block rule */
	int threads;        /* grid steps wanted at least (cpu: one per thread) */
	int64_t min_block;  /* bytes: a step is not split below this */
	int minor_align;    /* elements: a block on a minor axis is a multiple */
	bool wide64;        /* has 64-bit vector types (f64, i64) */
	bool pads;          /* its backend fills the padded region of a masked view
	                     * (else the plan reads a masked operand element by element) */
	bool pieces;        /* its backend reads a rolled view as two masked pieces */
	const char *transposes; /* what it can transpose inside a block, for explain */
} Target;
/* The target named name ("cpu", "tpu"); threads > 0 overrides the cpu's
 * thread count (else the machine's). NULL for an unknown name. */
const Target *target_get(const char *name, int threads, Target *buf);
int machine_threads(void);
typedef struct {
	const Var *var;
	int64_t n, block; /* elements of the variable per block */
	int grid;         /* grid axis, -1 when the block holds the whole variable */
	bool reduce;      /* a reduction variable: its grid axis is 'arbitrary' */
	bool split;       /* split into digits by some access */
	bool whole;       /* must stay whole (the store is not a view) */
	bool pinned;      /* its block is fixed: one index value of a gather per step */
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
	int64_t step;     /* as the view's axis: positions start + step·digit */
	int var;          /* VA_ITER: the PlanVar driving it, -1 when none */
	int ref;          /* VA_ITER: view digit; VA_GATHER: view gather */
	int vaxis;        /* the view's axis it comes from, -1 for an added unit axis */
	int64_t place;    /* > 0: one of two axes a whole view axis is cut into, taking
	                   * (digit / place) % size of its digit (start 0, step 1) */
	bool widened;     /* loaded whole; the kernel indexes inside the block */
	bool masked;      /* only values [mlo, mhi] of its variable are read: the
	                   * positions of the others are padding (a where() guard) */
	int64_t mlo, mhi;
} PlanAxis;
/* An operand: one access of the statement, as this plan moves it. The view
 * is the analysis's (read-only); what the plan decides is here. */
typedef struct {
	const Tensor *t;
	const Access *acc;
	int access;       /* position in the statement's accesses, 0: the store */
	const View *view;
	int cls;          /* VIEW_*: the view's class, or VIEW_ELEM when the plan demotes it */
	const char *reason; /* why it is an element gather */
	const View *piece; /* a roll: its second piece (the blocks are view's) */
	bool prefetch;    /* an index load of a row gather: scalar prefetch */
	int naxes;
	PlanAxis ax[VIEW_MAXAX + 4];
} PlanOperand;
typedef struct {
	const Planned *src;
	const Inst *in;
	Stmt *stmt;
	bool empty;       /* the output has no elements: nothing to do */
	bool scatter;     /* the store is not a view: one block for everything */
	char notes[512];  /* target-specific remarks, one per line */
	int nvars, nlhs;  /* output variables first, then reduction variables */
	PlanVar vars[PLAN_MAXVARS];
	int ngrid;
	int grid_var[PLAN_MAXVARS];
	Vec ops;          /* PlanOperand, one per access: the store first, then the loads */
} PlanStmt;
typedef struct Plan {
	const Target *tg;
	Target tgbuf;
	const Inst *in;
	int nstmts;
	PlanStmt *st;
} Plan;
Plan *plan_inst(Inst *in, const Target *tg);
/* tpu alignment: 8·packing sublanes for a dtype's packing. */
int dtype_packing(DType t);
bool tpu_ok(int64_t block, int64_t size, int64_t align);
int64_t block_start(const PlanAxis *x, const PlanStmt *ps, const int64_t *gidx);
int64_t plan_var_blocks(const PlanVar *v); /* blocks along v (1 off the grid), overflow-free */

/* ---------------------------------------------------------------- plancheck.c */

/* Proves the plan moves what the kernel needs (bounded work for any size:
 * exhaustive on small domains, corners otherwise); 0, or -1 with the
 * first problem in err. */
int plan_check(const Plan *p, Buf *err);
/* The tile rule of a tiled target on every operand. */
int plan_check_tiles(const Plan *p, Buf *err);

/* ---------------------------------------------------------------- body.c */

/* The body IR: a typed linear program per planned statement, in SSA form
 * (register r is instruction r's result). Promotion, weak literals and
 * casts are resolved: every operand of an I_OP already has the dtype it
 * computes in (opdt), so a backend renders each instruction on its own. */
enum { I_CONST, I_IVAR, I_LOAD, I_CAST, I_OP, I_REDUCE };
typedef union {
	int64_t i;
	double f;
} Val;
typedef struct {
	int kind;
	int op;         /* I_OP: OP_*; I_REDUCE: R_* */
	DType dt;       /* of the result */
	DType opdt;     /* I_OP: dtype of the operands (bool for logic ops) */
	int nargs;
	int a[3];       /* argument registers; I_REDUCE: a[0] in the inner scope */
	int scope;      /* where it is evaluated: 0 the statement's variables, else a reduction's */
	int guard;      /* bool register: evaluated only where it holds; -1: everywhere */
	bool exact;     /* I_OP of index arithmetic: exact i64, overflow is an error */
	int inner;      /* I_REDUCE: the scope it reduces over */
	int operand;    /* I_LOAD: the access (plan operand) it reads */
	int natoms;     /* I_LOAD: registers holding the data-dependent atoms of its offset */
	const Sym **atom;
	int *atom_reg;
	int nchecks;    /* I_LOAD: data-dependent subscripts the offset does not show */
	int *check_reg; /* (of dims with stride 0), checked against their dim */
	int *check_dim;
	const Var *var; /* I_IVAR */
	Val c;          /* I_CONST */
	const Node *src;/* where it comes from, for messages */
} Ins;
typedef struct {
	int parent;
	int nvars;
	const Var **vars; /* reduction variables (empty for scope 0) */
} Scope;
#define MAXSCOPES 64 /* scopes of one statement's body, scope 0 included */
typedef struct Prog {
	int n;
	Ins *ins;
	int nscopes; /* at most MAXSCOPES */
	Scope *scopes;
	int result;     /* register stored into the statement's tensor */
	DType out;      /* the stored tensor's dtype */
} Prog;
Prog *body_build(Inst *in, const Planned *ps);
void body_print(Buf *b, const Prog *p);

/* ---------------------------------------------------------------- interp.c */

/* Runs an instance element by element from the checked kernel and the bound
 * layouts (intermediates in scratch). Unwinds to d on run-time errors. */
void interp_run(const Inst *in, void *const *storage, Diag *d, Arena *scratch);
/* Value conversion, as NumPy's astype (float -> int truncates and saturates,
 * NaN -> 0; float -> bool is x != 0). Floats are doubles rounded to their
 * dtype; integers int64 wrapped to theirs. */
Val val_convert(Val v, DType from, DType to);
/* One operation on scalars whose operands are already of dtype t (the
 * interpreter's semantics, for every evaluator of the body IR): ops on
 * logic values take 0/1, where() takes its pick in v[0]. */
Val val_op(int op, DType t, const Val *v);
/* A one-argument float op in double, before the dtype's rounding (what
 * val_op computes for it). */
double val_fop1(int op, double x);
/* A reduction's running state: NumPy's order-free semantics for max/min
 * (NaN wins) and argmax/argmin (first occurrence); float sums accumulate in
 * double and round once at the end. */
typedef struct {
	int op;
	DType bt; /* the body's dtype */
	double f;
	int64_t i, count, arg;
	bool any;
} Red;
void red_init(Red *r, int op, DType bt);
void red_step(Red *r, Val x);
/* The result as dtype dt; false for max/min/argmax/argmin of nothing. */
bool red_result(const Red *r, DType dt, Val *out);

/* ---------------------------------------------------------------- pool.c, stage.c */

#include "exec.h"

/* ---------------------------------------------------------------- exec.c */

/* Runs an instance's cpu plan (in->plan[0], in->prog) natively on the
 * thread pool. Unwinds to d, from the calling thread only, on run-time
 * errors: the interpreter's message for the first failing element. With
 * untouched, row gathers check every index before they move a row
 * (ATHENE_UNTOUCHED). */
void exec_run(const Inst *in, void *const *storage, Diag *d, bool untouched);
/* Does a native run that stops on a run-time error leave every output as
 * it was? See athene_inst_clean_errors. */
bool exec_clean_errors(const Inst *in);

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

/* ---------------------------------------------------------------- explain.c */

/* Printers of every IR: the language's syntax, bindings, offsets, views,
 * plans (text and JSON) and body programs. */
void dump_node(Buf *b, const Node *n);
void dump_kernel(Buf *b, const Kernel *k, bool checked);
void dump_bind(Buf *b, const Inst *in);
void dump_inline(Buf *b, const Inst *in);
void dump_offsets(Buf *b, const Inst *in, bool raw);
void dump_views(Buf *b, const Inst *in);
void view_print(Buf *b, const View *v);
void view_class(Buf *b, const View *v);
void gather_position(Buf *b, const View *v, const VAxis *a);
void plan_explain(Buf *b, const Plan *p, bool json);

/* ---------------------------------------------------------------- emit_pallas.c */
/* (with emit_pallas_body.c; their shared state is in emit_pallas.h) */

/* Appends one kernel's Pallas functions, from its tpu plan and body IR
 * (read-only), to out; what the module's head must define accumulates in
 * *needs. Unwinds to the instance's diagnostics on what it cannot express. */
void emit_pallas_kernel(Buf *out, unsigned *needs, Inst *in, const Plan *p, bool gpu);
/* The module: its docstring, imports and the helpers in needs, then kernels. */
void emit_pallas_module(Buf *out, const char *file, const char *target, const char *chip, unsigned needs,
                        const char *kernels);

/* ---------------------------------------------------------------- api.c */

struct athene_ctx {
	Arena arena;      /* kernels and sources: grows with what is loaded */
	Diag diag;
	Vec kernels;      /* of Kernel */
	Inst *insts;      /* live instances */
	Names names;        /* the loaded kernels, by name */
};

/* The passes of the driver, in order (api.c: PASSES). */
enum { P_BIND, P_INLINE, P_LOWER, P_SIMPLIFY, P_ANALYSE, P_PLAN, P_CHECKPLAN, P_BODY, NPASSES };

/* A compiled instance: a checked kernel with its sizes and layouts bound,
 * and everything derived from them, in its own arena. */
struct athene_inst {
	Kernel *k;
	Ctx *ctx;
	Inst *next, *prev;
	Arena arena;
	Diag diag;
	Buf text;           /* the text last returned (explain, dump) */
	int passes;         /* how many passes have run */
	/* bind */
	int64_t *size;      /* per size symbol */
	bool *bound;
	char (*from)[96];   /* where each bound value came from, for messages */
	Layout *lay;        /* per tensor: the params, then the lets */
	bool *given;        /* per param: a layout given at run time */
	int64_t *n;         /* per index variable: its extent */
	/* lower, simplify */
	Sym **load_off;     /* per load, in its own statement: flat offset */
	Sym **store_off;    /* per statement */
	Sym **load_raw, **store_raw;
	/* inline, analyse */
	bool *fused;        /* per let */
	int nplanned;
	Planned *planned;
	/* plan, body: per target, made on demand */
	Plan *plan[2];
	int plan_threads[2];
	bool plan_checked[2];
	Prog **prog;        /* per planned statement */
};

#endif
