/* The base layer: what every other layer stands on. Arenas and containers,
 * overflow-checked arithmetic, source spans and diagnostics (util.c), dtypes
 * and the small floats (dtype.c), the op table (ops.c, ops.h), the semantics
 * of one value (scalar.c) and .npy files (npy.c). It uses no other layer.
 * Units: strides and offsets are in elements everywhere in the compiler. */
#ifndef ATHENE_BASE_H
#define ATHENE_BASE_H

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
void note_at(Diag *d, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* diag_at, then unwind to d->jmp. */
_Noreturn void error_at(Diag *d, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An error without a position (run time, bindings); unwinds. */
_Noreturn void error_plain(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------- dtype.c */

/* The dtype table (dtypes.h), by athene_dtype. */
enum { DC_BOOL, DC_SINT, DC_UINT, DC_FLOAT };
typedef struct {
	const char *name;
	size_t size;   /* bytes */
	int cls;       /* DC_* */
	char npy;      /* the .npy descr's kind letter */
	const char *jnp;
} DTypeInfo;
extern const DTypeInfo dtype_info[ATHENE_NDTYPES];
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
double dt_i2f(DType t, int64_t x);        /* integer x rounded once to float dtype t */
double dt_ratio_to_float(DType t, int64_t s, int64_t c); /* s / c (c >= 1) rounded once to t */
int64_t dt_wrap_int(DType t, int64_t x);  /* x wrapped to int dtype t (bool: x != 0) */
int64_t dt_saturate(DType t, int64_t x);  /* x clamped to the range of int dtype t */
int64_t dt_f2i(double x);                 /* truncation toward zero, saturating; NaN -> 0 */
/* Element i of a buffer of dtype t, as a double or as an integer, and back.
 * Storing converts like NumPy's astype (float -> int truncates; NaN -> 0). */
double dt_load_f(const void *base, DType t, int64_t i);
int64_t dt_load_i(const void *base, DType t, int64_t i);
void dt_store_f(void *base, DType t, int64_t i, double x);
void dt_store_i(void *base, DType t, int64_t i, int64_t x);

/* ---------------------------------------------------------------- ops.c */

enum {
#define X(e, s, n, k, j) e,
#define RX(e, s, j)
#include "ops.h"
#undef RX
#undef X
	NOPS
};
enum {
#define X(e, s, n, k, j)
#define RX(e, s, j) e,
#include "ops.h"
#undef RX
#undef X
	R_NONE
};
enum { K_ARITH, K_TDIV, K_FLOOR, K_CMP, K_LOGIC, K_BIT, K_SHIFT, K_FLOAT, K_FLOATI, K_SAME, K_PRED, K_WHERE, K_WRAP };
extern const struct OpInfo {
	const char *name;
	int arity, kind;
	const char *jnp; /* the Pallas emitter's spelling */
} op_info[NOPS];
extern const struct ReduceInfo {
	const char *name;
	const char *jnp;
} reduce_info[R_NONE];

/* ---------------------------------------------------------------- scalar.c */

enum { SYM_OK, SYM_EOVF, SYM_EDIV0 };
typedef union {
	int64_t i;
	double f;
} Val;

/* The one exact integer evaluator: a op b (OP_ADD, OP_SUB, OP_MUL,
 * OP_FLOORDIV, OP_MOD; OP_NEG of a) in 64 bits, Python's floor semantics.
 * SYM_OK with *out, or SYM_EOVF / SYM_EDIV0. */
int int_op(int op, int64_t a, int64_t b, int64_t *out);
/* Python-semantics floor division and modulo on int64 (d != 0). */
int64_t floordiv64(int64_t a, int64_t d);
int64_t gcd64(int64_t a, int64_t b); /* >= 0; 0 when it does not fit */
int64_t floormod64(int64_t a, int64_t d);
/* Value conversion, as NumPy's astype (float -> int truncates and saturates,
 * NaN -> 0; float -> bool is x != 0). Floats are doubles rounded to their
 * dtype; integers int64 wrapped to theirs. */
Val val_convert(Val v, DType from, DType to);
/* A value of dtype t as a condition: nonzero. */
bool val_truth(Val v, DType t);
/* One operation on scalars whose operands are already of dtype t (the
 * interpreter's semantics, for every evaluator of the body IR): ops on
 * logic values take 0/1, where() takes its pick in v[0]. */
Val val_op(int op, DType t, const Val *v);
/* A one-argument float op in double, before the dtype's rounding (what
 * val_op computes for it). */
double val_fop1(int op, double x);
/* The same at a narrow float dtype (f32, f16, bf16), whose values are
 * f32's: exp, sigmoid, tanh and erf by base/narrow.c, every other op as
 * val_fop1. */
double val_fop1_narrow(int op, double x);
/* base/narrow.c: athene's own exp, sigmoid, tanh and erf of an f32, in f32
 * arithmetic (docs/language.md); the executor's vector forms take the same
 * steps with the same constants. */
float narrow_exp(float x);
float narrow_sigmoid(float x);
float narrow_tanh(float x);
float narrow_erf(float x);
/* Is op one of the four the language defines by those formulas (exp,
 * sigmoid, tanh, erf)? */
bool narrow_fn(int op);
/* e^x for x in [NARROW_EXP_LO, NARROW_EXP_HI], as those functions compute it */
float narrow_exp_core(float x);
/* at NARROW_EXP_LO, narrow_exp_core's result is 0 */
#define NARROW_EXP_LO (-104.0f)
#define NARROW_EXP_HI 89.0f
#define NARROW_LOG2E 1.44269504f
#define NARROW_LN2_HI 0.693359375f
#define NARROW_LN2_LO (-2.12194440e-4f)
#define NARROW_TANH_SMALL 0.625f
#define NARROW_EXP_N 6
#define NARROW_TANH_N 5
#define NARROW_ERF0_N 8
#define NARROW_ERF1_N 10
#define NARROW_ERF2_N 9
#define NARROW_ERF3_N 7
extern const float narrow_exp_c[NARROW_EXP_N], narrow_tanh_c[NARROW_TANH_N];
extern const float narrow_erf0_c[NARROW_ERF0_N], narrow_erf1_c[NARROW_ERF1_N], narrow_erf2_c[NARROW_ERF2_N],
	narrow_erf3_c[NARROW_ERF3_N];
/* base/bessel.c: a Bessel function (OP_I0 ... OP_SPHERICAL_J0) of x, and
 * a polynomial (OP_CHEBYSHEV_T ... OP_LEGENDRE_P) of x of degree n, which
 * val_op computes at float dtype t, in double. */
double val_bessel(int op, double x);
double val_polynomial(int op, DType t, double x, double n);
/* The value of dtype 'to' whose bits are v's in dtype 'from' (of the same
 * size): a NaN is stored as its dtype stores it (the quiet NaN of its
 * sign for f16 and bf16). */
Val val_bitcast(Val v, DType from, DType to);
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

/* ---------------------------------------------------------------- gamma.c */

/* The special functions of the gamma family and their neighbours,
 * in double (what val_op computes for their ops before the dtype's
 * rounding); edges as PyTorch's on the CPU. */
double sf_frexp_mantissa(double x); /* in [0.5, 1) by magnitude; 0, inf, NaN themselves */
int sf_frexp_exponent(double x);    /* x = mantissa * 2^exponent; 0 for 0, inf, NaN */
double sf_igamma(double a, double x);  /* the regularized lower incomplete gamma P(a, x) */
double sf_igammac(double a, double x); /* the upper one, Q(a, x) = 1 - P(a, x) */
double sf_polygamma(double n, double x); /* n >= 1 an integer (0: digamma, in scalar.c) */
double sf_zeta(double x, double q);      /* Hurwitz: sum over k >= 0 of (q + k)^-x */
double sf_erfcx(double x);               /* exp(x^2) erfc(x) */
double sf_ndtri(double p);               /* the standard normal distribution function's inverse */
double sf_airy_ai(double x);

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
