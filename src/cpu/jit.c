/* Compiled statements: the native executor's register machine interprets
 * a statement's body IR instruction by instruction over vectors of lanes;
 * here the same body is written as one C function per statement, its loop
 * dims, extents and strides constants, compiled once with the system's C
 * compiler into a shared object, and loaded. A run uses the compiled
 * function when it is ready and the register machine until then, so that
 * no run waits for the compiler (ATHENE_JIT=sync makes the first run wait:
 * the tests).
 *
 * What a compiled function computes is the language's semantics, bit for
 * bit what the interpreter and the register machine give: f32 arithmetic
 * rounded at each op (-ffp-contract=off: no fused multiply-adds), exp,
 * sigmoid, tanh, erf and log through the executor's own vector functions,
 * every other op through base/'s val_op itself (called through a table of
 * the library's functions, JitRt), float sums in double in the domain's
 * order. What it cannot express it declines, with a reason (ATHENE_JIT_WHY=1
 * prints it), and
 * the register machine runs that statement: copies and row gathers (their
 * own paths), operands read across their rows or in steps along the lanes
 * and outputs written so (its staged, tiled copies), gathers, masked or
 * rolled views, loads read point by point, instructions that can fail
 * (exact index arithmetic, a max over an empty range), argmax and argmin,
 * f16 and bf16, scatters, and variables split into digits that do not
 * divide their extent.
 *
 * The shape of the code: the statement's dims of each scope are loops, the
 * innermost dim of a scope in chunks of JIT_W lanes; every instruction of a
 * scope is a loop over the chunk's lanes (which the compiler vectorises).
 * A reduction that holds none runs its scope's loops once across the lanes
 * of the chunk it sits in (its registers rows of JIT_W lanes, one per
 * outer lane; an accumulator per outer lane, each folding its lanes in
 * order, a float sum, max or min of 8 rows by an 8x8 transpose in vectors);
 * one that holds another runs them lane by lane. Instructions the result
 * does not read are left out. A function takes the statement's first dim
 * over [lo, hi) (pool tasks, bands).
 *
 * The compiled objects are cached on disk (ATHENE_CACHE_DIR, else
 * $XDG_CACHE_HOME/athene, else ~/.cache/athene; under jit/), named by a
 * hash of the source, the compiler and its flags; one compiler runs at a
 * time, on a background thread, one source file per instance. ATHENE_CC
 * names the compiler (default cc); ATHENE_JIT=0 turns all this off. A
 * compiler that is missing or fails is said once on stderr, and the
 * register machine runs everything. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simd.h"
#include "vecmath.h"
#include "vm.h"

extern char **environ;

#define JIT_W 8 /* lanes of a chunk */

/* ---- the library's functions the compiled code calls ---- */

static void vf32(int op, float *d, const float *s, int n)
{
	switch (op) {
	case OP_EXP: exp_floats(d, s, n); break;
	case OP_SIGMOID: sigmoid_floats(d, s, n); break;
	case OP_TANH: tanh_floats(d, s, n); break;
	case OP_ERF: erf_floats(d, s, n); break;
	default: log_floats(d, s, n); break;
	}
}

static const JitRt jit_rt = {val_op, val_convert, vf32};

const JitRt *jit_runtime(void)
{
	return &jit_rt;
}

/* The prelude of every source: JitRt as the compiled code sees it (Val and
 * DType have the same layout), the integer helpers of base/scalar.c, and
 * with AVX2 the vector functions (vecmath.h) and their constants. */
static const char prelude[] =
	"#include <math.h>\n#include <stdint.h>\n#include <string.h>\n"
	"typedef union { int64_t i; double f; } V;\n"
	"typedef struct { V (*op)(int, int, const V *); V (*conv)(V, int, int); void (*vf)(int, float *, const float *, int); } R;\n"
	"static inline int64_t fdiv(int64_t a, int64_t b) { if (b == 0) return 0; if (a == INT64_MIN && b == -1) return a;"
	" int64_t q = a / b; if (a % b != 0 && ((a < 0) != (b < 0))) q--; return q; }\n"
	"static inline int64_t fmodi(int64_t a, int64_t b) { if (b == 0 || b == -1) return 0;"
	" int64_t r = a % b; if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }\n"
	"static inline V vf(double f) { V v; v.f = f; return v; }\n"
	"static inline V vi(int64_t i) { V v; v.i = i; return v; }\n"
	/* an f32 select by masks: with a ?: gcc moved the arm's arithmetic
	 * under a branch per lane and did not vectorise it (a causal
	 * softmax's where). f64 keeps ?: (gcc 12's vectors of the same select
	 * of doubles, loaded from a vector of floats, dropped a later rounding
	 * to f32: examples/fusion.ath, fused_weak) */
	"static inline float wsel_f(int c, float a, float b) { uint32_t m = -(uint32_t)c, x, y;"
	" memcpy(&x, &a, 4); memcpy(&y, &b, 4); x = (x & m) | (y & ~m); memcpy(&a, &x, 4); return a; }\n";

#ifdef X86
static const char vecmath[] = VECMATH(VECMATH_TEXT);

static void floats(Buf *b, const char *name, const float *c, int n)
{
	buf_printf(b, "static const float %s[%d] = {", name, n);
	for (int i = 0; i < n; i++)
		buf_printf(b, "%s%af", i ? ", " : "", (double)c[i]);
	buf_printf(b, "};\n");
}
#endif

bool jit_avx2(void)
{
	return pick_simd() == SIMD_AVX2;
}

void jit_prelude(Buf *b, bool avx2)
{
	(void)avx2; /* no vector functions off x86 */
	buf_printf(b, "%s", prelude);
#ifdef X86
	if (!avx2)
		return;
	buf_printf(b, "#include <immintrin.h>\n#define AVX2_FN\n");
	const struct { const char *name; float v; } k[] = {
		{"NARROW_EXP_LO", NARROW_EXP_LO}, {"NARROW_EXP_HI", NARROW_EXP_HI},
		{"NARROW_LOG2E", NARROW_LOG2E}, {"NARROW_LN2_HI", NARROW_LN2_HI}, {"NARROW_LN2_LO", NARROW_LN2_LO},
		{"NARROW_TANH_SMALL", NARROW_TANH_SMALL},
	};
	for (size_t i = 0; i < sizeof k / sizeof *k; i++)
		buf_printf(b, "#define %s (%af)\n", k[i].name, (double)k[i].v);
	buf_printf(b, "#define NARROW_EXP_N %d\n#define NARROW_TANH_N %d\n#define NARROW_ERF0_N %d\n#define NARROW_ERF1_N %d\n"
	           "#define NARROW_ERF2_N %d\n#define NARROW_ERF3_N %d\n", NARROW_EXP_N, NARROW_TANH_N, NARROW_ERF0_N,
	           NARROW_ERF1_N, NARROW_ERF2_N, NARROW_ERF3_N);
	floats(b, "narrow_exp_c", narrow_exp_c, NARROW_EXP_N);
	floats(b, "narrow_tanh_c", narrow_tanh_c, NARROW_TANH_N);
	floats(b, "narrow_erf0_c", narrow_erf0_c, NARROW_ERF0_N);
	floats(b, "narrow_erf1_c", narrow_erf1_c, NARROW_ERF1_N);
	floats(b, "narrow_erf2_c", narrow_erf2_c, NARROW_ERF2_N);
	floats(b, "narrow_erf3_c", narrow_erf3_c, NARROW_ERF3_N);
	buf_printf(b, "%s\n", vecmath);
#endif
}

/* ---- the generator ---- */

typedef struct {
	Buf *b;
	const X *x;
	const Prog *p;
	int lane[MAXSCOPES]; /* per scope: its innermost dim, -1 when it has none */
	int across[MAXSCOPES]; /* per scope: its parent's when it runs across the parent's lanes, else -1 */
	char pnl[MAXSCOPES][8]; /* ... and the parent's lane count there */
	bool bylane[MAXSCOPES]; /* across: the instructions run a parent lane (a row) at a time */
	int rows[MAXSCOPES];    /* ... and the register folded, kept for each row; -1: none */
	bool avx2;           /* the prelude has vecmath.h's functions */
	bool *used;          /* per register: the stored value depends on it */
	bool *n32;           /* per register: an i64 whose values all fit in 32 bits (ranges) */
	bool *vec;           /* per register: the chunk being written computes it as one vector */
	bool stream;         /* the output is written around the cache where it can */
	bool streamed;       /* ... and is: the function fences at its end */
	char why[160];
} G;

static bool decline(G *g, const char *fmt, const char *what)
{
	if (!g->why[0])
		snprintf(g->why, sizeof g->why, fmt, what);
	return false;
}

static const char *ctype(DType t)
{
	switch (t) {
	case ATHENE_BOOL:
	case ATHENE_U8: return "uint8_t";
	case ATHENE_I8: return "int8_t";
	case ATHENE_I16: return "int16_t";
	case ATHENE_I32: return "int32_t";
	case ATHENE_I64: return "int64_t";
	case ATHENE_F32: return "float";
	case ATHENE_F64: return "double";
	default: return NULL;
	}
}

/* The C type of register r's lanes: its dtype's, but 32 bits for a bool
 * (lanes as wide as f32's, so that a mask selects floats without a
 * widening) and for an i64 whose values fit (n32: an index variable, a
 * causal mask's r0 - x0), so that 8 lanes make one vector. */
static const char *rtype(const G *g, const Ins *in)
{
	if (in->dt == ATHENE_BOOL || g->n32[in - g->p->ins])
		return "int32_t";
	return ctype(in->dt);
}

/* The index of variable v among the plan's (fits: every one is there). */
static int plan_var(const X *x, const Var *v)
{
	int i = 0;
	while (x->ps->vars[i].var != v)
		i++;
	return i;
}

static bool simple_op(int op, DType t)
{
	switch (op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_NEG: case OP_MIN: case OP_MAX:
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
	case OP_WHERE: case OP_AND: case OP_OR: case OP_NOT: return true;
	case OP_DIV: case OP_SQRT: case OP_RSQRT: case OP_ABS: case OP_RELU: return dt_is_float(t);
	case OP_FLOORDIV: case OP_MOD: return dt_is_int(t) && t != ATHENE_BOOL;
	default: return false;
	}
}

/* The C library function that val_op calls for op on floats of dtype t,
 * in double, the result rounded to t (base/scalar.c: val_fop1, fop2);
 * NULL for the others. f32's exp, tanh, erf and sigmoid are the
 * language's own formulas, not libm's. The compiled code calls the same
 * libm the library does. */
static const char *libm_fn(int op, DType t)
{
	bool f64 = t == ATHENE_F64;
	if (!dt_is_float(t))
		return NULL;
	switch (op) {
	case OP_EXP: return f64 ? "exp" : NULL;
	case OP_TANH: return f64 ? "tanh" : NULL;
	case OP_ERF: return f64 ? "erf" : NULL;
	case OP_EXP2: return "exp2";
	case OP_LOG: return "log";
	case OP_LOG2: return "log2";
	case OP_LOG1P: return "log1p";
	case OP_EXPM1: return "expm1";
	case OP_SIN: return "sin";
	case OP_COS: return "cos";
	case OP_TAN: return "tan";
	case OP_FLOOR: return "floor";
	case OP_CEIL: return "ceil";
	case OP_TRUNC: return "trunc";
	case OP_ROUND: return "nearbyint";
	case OP_POW: return "pow";
	case OP_ATAN2: return "atan2";
	case OP_HYPOT: return "hypot";
	default: return NULL;
	}
}

/* Is the body one the generator writes? */
static bool fits(G *g)
{
	const X *x = g->x;
	const Prog *p = g->p;
	if (x->copy || x->rows)
		return decline(g, "%s", x->copy ? "a copy" : "a row gather");
	if (p->store >= 0)
		return decline(g, "%s", "a scatter");
	for (int i = 0; i < x->ps->nvars; i++) { /* the top digit of each variable divides its extent */
		int64_t top = 0;
		for (int k = 0; k < x->nd; k++)
			if (x->d[k].var == i && x->d[k].place * x->d[k].n > top)
				top = x->d[k].place * x->d[k].n;
		if (top && top != x->ps->vars[i].n)
			return decline(g, "the digits of '%s' do not divide its extent", x->ps->vars[i].var->name);
	}
	for (int s = 0; s < p->nscopes; s++)
		g->lane[s] = x->nsd[s] ? x->sd[s][x->nsd[s] - 1] : -1;
	for (int j = 0; j < x->pd->acc.n; j++) {
		const XOp *o = &x->op[j];
		if (j > 0 && x->opreg[j] < 0)
			continue;
		if (o->point || o->masked || o->piece || o->op->view->ngat)
			return decline(g, "'%s' is read through a gather, a mask or a roll", o->acc->t->name);
		if (!ctype(o->dt))
			return decline(g, "'%s' is f16 or bf16", o->acc->t->name);
	}
	for (int r = 0; r < p->n; r++) {
		const Ins *in = &p->ins[r];
		int v = 0;
		while (in->kind == I_IVAR && v < x->ps->nvars && x->ps->vars[v].var != in->var)
			v++;
		if (in->kind == I_IVAR && v == x->ps->nvars)
			return decline(g, "'%s' is no variable of the plan", in->var->name);
		if (!ctype(in->dt) || (in->kind == I_OP && !ctype(in->opdt)))
			return decline(g, "a value is %s", athene_dtype_name(in->dt));
		if (in->kind == I_BITCAST && (in->dt == ATHENE_BOOL || p->ins[in->a[0]].dt == ATHENE_BOOL))
			return decline(g, "%s", "a bitcast of a bool");
		if (in->kind == I_LOAD && (in->natoms || in->nchecks))
			return decline(g, "%s", "a data-dependent subscript");
		if (in->kind == I_OP && (in->exact || (ins_can_fail(p, in))))
			return decline(g, "%s", "index arithmetic that can fail");
		if (in->kind == I_REDUCE) {
			int op = in->op;
			bool fl = dt_is_float(in->opdt), empty = false;
			for (int k = 0; k < x->nsd[in->inner]; k++)
				empty |= x->d[x->sd[in->inner][k]].n <= 0;
			if (op == R_ARGMAX || op == R_ARGMIN || ((op == R_MAX || op == R_MIN) && empty))
				return decline(g, "%s", "an argmax, argmin or an empty max");
			if ((op == R_SUM || op == R_PROD || op == R_MAX || op == R_MIN) &&
			    (fl != dt_is_float(in->dt) || in->dt == ATHENE_BOOL || in->opdt == ATHENE_BOOL))
				return decline(g, "%s", "a reduction that changes class");
			if (op == R_MEAN && (!fl || !dt_is_float(in->dt)))
				return decline(g, "%s", "an integer mean");
		}
	}
	/* along its lanes, an operand is read in place or broadcast, and the
	 * output written in place: a transposed or stepped read is the register
	 * machine's (its staged, tiled copies) */
	if (g->lane[0] >= 0 && x->op[0].stride[g->lane[0]] != 1)
		return decline(g, "'%s' is written across its rows", x->op[0].acc->t->name);
	for (int j = 1; j < x->pd->acc.n; j++) {
		int lane = x->opreg[j] >= 0 ? g->lane[p->ins[x->opreg[j]].scope] : -1;
		if (lane >= 0 && x->op[j].stride[lane] != 0 && x->op[j].stride[lane] != 1)
			return decline(g, "'%s' is read across its rows or in steps", x->op[j].acc->t->name);
	}
	/* an operand varies only with the dims of its load's scope and those around it */
	for (int j = 0; j < x->pd->acc.n; j++) {
		int s = j == 0 ? 0 : x->opreg[j] >= 0 ? p->ins[x->opreg[j]].scope : -1;
		for (int k = 0; s >= 0 && k < x->nd; k++) {
			bool around = false;
			for (int t = s; t >= 0; t = p->scopes[t].parent)
				around |= x->d[k].scope == t;
			if (x->op[j].stride[k] && !around)
				return decline(g, "%s", "an operand varies outside its scope");
		}
	}
	return true;
}

/* The value of register r where scope s computes lane `l`. */
static void ref(G *g, int r, int s)
{
	const Ins *in = &g->p->ins[r];
	if (in->kind == I_CONST) {
		const char *t = ctype(in->dt);
		if (dt_is_float(in->dt)) {
			double f = in->c.f;
			if (f != f)
				buf_printf(g->b, "((%s)NAN)", t);
			else if (f == INFINITY || f == -INFINITY)
				buf_printf(g->b, "(%s(%s)INFINITY)", f < 0 ? "-" : "", t);
			else
				buf_printf(g->b, "((%s)%a)", t, f);
		} else if (in->dt == ATHENE_I64 && in->c.i >= INT32_MIN && in->c.i <= INT32_MAX) {
			/* so that a compare with a 32-bit register (n32) stays in 32 bits */
			buf_printf(g->b, "((int32_t)%lld)", (long long)in->c.i);
		} else {
			buf_printf(g->b, "((%s)(int64_t)UINT64_C(%llu))", t, (unsigned long long)in->c.i);
		}
	} else if (in->scope == s && g->across[s] >= 0 && (!g->bylane[s] || g->rows[s] == r)) {
		buf_printf(g->b, "r%d[L%d][l]", r, g->across[s]);
	} else if (in->scope == s) {
		buf_printf(g->b, "r%d[l]", r);
	} else {
		buf_printf(g->b, "r%d[L%d]", r, in->scope);
	}
}

/* The coordinate of dim k where scope s computes lane `l` (n32: in 32 bits). */
static void coord(G *g, int k, int s, bool n32)
{
	int ks = g->x->d[k].scope;
	const char *c = n32 ? "(int32_t)" : "";
	if (g->lane[ks] != k)
		buf_printf(g->b, "%si%d", c, k);
	else if (ks == s)
		buf_printf(g->b, "(%sc%d + l)", c, k);
	else
		buf_printf(g->b, "(%sc%d + L%d)", c, k, ks);
}

/* The element offset of access j where scope s computes lane `l`. */
static void offset(G *g, int j, int s)
{
	const XOp *o = &g->x->op[j];
	bool any = false;
	for (int k = 0; k < g->x->nd; k++) {
		if (!o->stride[k])
			continue;
		buf_printf(g->b, "%s(int64_t)%lld * ", any ? " + " : "", (long long)o->stride[k]);
		coord(g, k, s, false);
		any = true;
	}
	if (!any)
		buf_printf(g->b, "0");
}

/* The loop over the parent's lanes of scope s across them, a lane at a time. */
static void rows_loop(G *g, int s)
{
	int a = g->across[s];
	buf_printf(g->b, "\t\tfor (int L%d = 0; L%d < %s; L%d++) ", a, a, g->pnl[s], a);
}

/* The loop over the lanes of scope s (and, across, its parent's). */
static void lanes(G *g, int s, const char *nl)
{
	if (g->across[s] >= 0 && !g->bylane[s])
		rows_loop(g, s);
	else
		buf_printf(g->b, "\t\t");
	buf_printf(g->b, "for (int l = 0; l < %s; l++) ", nl);
}

/* Register r of scope s: its row at the parent's lane L (across), or its lanes. */
static void reg(G *g, int r, int s)
{
	if (g->across[s] >= 0 && (!g->bylane[s] || g->rows[s] == r))
		buf_printf(g->b, "r%d[L%d]", r, g->across[s]);
	else
		buf_printf(g->b, "r%d", r);
}

/* Register r of scope s, written at lane `l`. */
static void dst(G *g, int r, int s)
{
	reg(g, r, s);
	buf_printf(g->b, "[l]");
}

/* Register or constant r of scope s as an f32 vector of its 8 lanes (a
 * parent's register: its value on each). */
static void vref(G *g, int r, int s)
{
	const Ins *in = &g->p->ins[r];
	if (in->kind == I_CONST || in->scope != s) {
		buf_printf(g->b, "_mm256_set1_ps(");
		ref(g, r, s);
		buf_printf(g->b, ")");
	} else {
		buf_printf(g->b, "_mm256_loadu_ps(");
		reg(g, r, s);
		buf_printf(g->b, ")");
	}
}

/* Are a chunk's 8 lanes of scope s written as vectors (AVX2)? */
static bool vector_lanes(const G *g, int s, const char *nl)
{
	return g->avx2 && !strcmp(nl, "8") && g->lane[s] >= 0 && (g->across[s] < 0 || g->bylane[s]);
}

/* Is register or constant r, read in scope s, a vector there (or a value
 * that vref spreads)? A vector load of 8 lanes that a loop stored one by
 * one waits for the stores (a LayerNorm's output: 4.3 -> 4.9 us). */
static bool vec_ready(const G *g, int r, int s)
{
	const Ins *in = &g->p->ins[r];
	return in->kind == I_CONST || in->scope != s || g->vec[r];
}

/* A call of val_op on lane l's operands of r, its result as r's dtype. */
static void fallback(G *g, const Ins *in, int r, int s)
{
	buf_printf(g->b, "{ V v[3]; ");
	for (int a = 0; a < in->nargs; a++) {
		bool fl = dt_is_float(g->p->ins[in->a[a]].dt);
		buf_printf(g->b, "v[%d] = %s(", a, fl ? "vf" : "vi");
		ref(g, in->a[a], s);
		buf_printf(g->b, "); ");
	}
	DType t = op_info[in->op].kind == K_PRED ? g->p->ins[in->a[0]].dt : in->opdt;
	buf_printf(g->b, "V o = rt->op(%d, %d, v); ", in->op, (int)t);
	dst(g, r, s);
	buf_printf(g->b, " = (%s)o.%c; }\n", ctype(in->dt), dt_is_float(in->dt) ? 'f' : 'i');
}

/* pattern with $0, $1, $2 as the operands' values where scope s computes
 * lane `l` (the op table's jnp spellings take the same form). */
static void pattern(G *g, const Ins *in, int s, const char *pat)
{
	for (const char *c = pat; *c; c++)
		if (c[0] == '$' && c[1] >= '0' && c[1] <= '2')
			ref(g, in->a[*++c - '0'], s);
		else
			buf_putc(g->b, *c);
}

static void binary(G *g, const Ins *in, int s, const char *op)
{
	char pat[16];
	snprintf(pat, sizeof pat, "($0 %s $1)", op);
	pattern(g, in, s, pat);
}

/* An integer op computed in 64 bits without overflow, then wrapped; an
 * n32 result in 32 (the low 32 bits of a sum, a difference or a product
 * are those of the operands'). */
static void wrapped(G *g, const Ins *in, int s, const char *op)
{
	bool n32 = g->n32[in - g->p->ins];
	buf_printf(g->b, n32 ? "(int32_t)((uint32_t)" : "(%s)(int64_t)((uint64_t)(int64_t)", ctype(in->dt));
	ref(g, in->a[0], s);
	buf_printf(g->b, n32 ? " %s (uint32_t)" : " %s (uint64_t)(int64_t)", op);
	ref(g, in->a[1], s);
	buf_printf(g->b, ")");
}

static void op_value(G *g, const Ins *in, int r, int s, const char *nl)
{
	const char *t = rtype(g, in);
	bool fl = dt_is_float(in->opdt);
	bool own = g->p->ins[in->a[0]].kind != I_CONST && g->p->ins[in->a[0]].scope == s;
	const char *f8 = in->op == OP_EXP ? "exp8" : in->op == OP_SIGMOID ? "sigmoid8" : in->op == OP_TANH ? "tanh8" :
	                 in->op == OP_ERF ? "erf8" : NULL;
	if ((f8 || in->op == OP_LOG) && own && in->opdt == ATHENE_F32) {
		if (g->across[s] >= 0 && !g->bylane[s]) /* one row of 8 lanes per lane of the parent */
			rows_loop(g, s);
		g->vec[r] = f8 && g->avx2 && vector_lanes(g, s, nl);
		if (f8 && g->avx2) /* vecmath.h's, inline; a tail's lanes past t are 0 */
			buf_printf(g->b, "\t\t_mm256_storeu_ps(");
		else
			buf_printf(g->b, "\t\trt->vf(%d, ", in->op);
		reg(g, r, s);
		buf_printf(g->b, f8 && g->avx2 ? ", fm8(%s, _mm256_loadu_ps(" : ", ", f8);
		reg(g, in->a[0], s);
		buf_printf(g->b, f8 && g->avx2 ? ")));\n" : ", %s);\n", nl);
		return;
	}
	if (vector_lanes(g, s, nl) && in->opdt == ATHENE_F32 && in->dt == ATHENE_F32 &&
	    (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MUL || in->op == OP_DIV || in->op == OP_NEG) &&
	    vec_ready(g, in->a[0], s) && (in->op == OP_NEG || vec_ready(g, in->a[1], s))) {
		/* gcc's vectors of such lanes around a vecmath.h call came out in
		 * halves and single floats (a SiLU's 1 + exp(-x)) */
		const char *vop = in->op == OP_ADD ? "add" : in->op == OP_SUB ? "sub" : in->op == OP_MUL ? "mul" :
		                  in->op == OP_DIV ? "div" : "xor"; /* neg: the sign bit flipped, a NaN's too */
		buf_printf(g->b, "\t\t_mm256_storeu_ps(");
		reg(g, r, s);
		buf_printf(g->b, ", _mm256_%s_ps(", vop);
		vref(g, in->a[0], s);
		buf_printf(g->b, ", ");
		if (in->op == OP_NEG)
			buf_printf(g->b, "_mm256_set1_ps(-0.0f)");
		else
			vref(g, in->a[1], s);
		buf_printf(g->b, "));\n");
		g->vec[r] = true;
		return;
	}
	lanes(g, s, nl);
	const char *fn = libm_fn(in->op, in->opdt);
	if (fn) {
		dst(g, r, s);
		buf_printf(g->b, " = (%s)%s((double)", t, fn);
		ref(g, in->a[0], s);
		if (in->nargs == 2) {
			buf_printf(g->b, ", (double)");
			ref(g, in->a[1], s);
		}
		buf_printf(g->b, ");\n");
		return;
	}
	if (!simple_op(in->op, in->opdt)) {
		fallback(g, in, r, s);
		return;
	}
	dst(g, r, s);
	buf_printf(g->b, " = (%s)", t);
	switch (in->op) {
	case OP_ADD: fl ? binary(g, in, s, "+") : wrapped(g, in, s, "+"); break;
	case OP_SUB: fl ? binary(g, in, s, "-") : wrapped(g, in, s, "-"); break;
	case OP_MUL: fl ? binary(g, in, s, "*") : wrapped(g, in, s, "*"); break;
	case OP_DIV: binary(g, in, s, "/"); break;
	case OP_EQ: binary(g, in, s, "=="); break;
	case OP_NE: binary(g, in, s, "!="); break;
	case OP_LT: binary(g, in, s, "<"); break;
	case OP_LE: binary(g, in, s, "<="); break;
	case OP_GT: binary(g, in, s, ">"); break;
	case OP_GE: binary(g, in, s, ">="); break;
	case OP_AND: binary(g, in, s, "&"); break;
	case OP_OR: binary(g, in, s, "|"); break;
	case OP_NOT: pattern(g, in, s, "!$0"); break;
	case OP_FLOORDIV: pattern(g, in, s, "fdiv((int64_t)$0, (int64_t)$1)"); break;
	case OP_MOD: pattern(g, in, s, "fmodi((int64_t)$0, (int64_t)$1)"); break;
	case OP_NEG:
		if (fl) {
			buf_printf(g->b, "-");
			ref(g, in->a[0], s);
		} else {
			buf_printf(g->b, g->n32[r] ? "(int32_t)(0u - (uint32_t)" : "(int64_t)(0 - (uint64_t)(int64_t)");
			ref(g, in->a[0], s);
			buf_printf(g->b, ")");
		}
		break;
	case OP_ABS: pattern(g, in, s, "fabs($0)"); break;
	case OP_SQRT: pattern(g, in, s, "sqrt((double)$0)"); break;
	case OP_RSQRT: pattern(g, in, s, "(1.0 / sqrt((double)$0))"); break;
	case OP_RELU: pattern(g, in, s, "($0 > 0 || $0 != $0 ? $0 : 0)"); break;
	case OP_MIN: /* NaN when either is */
		pattern(g, in, s, fl ? "($0 != $0 || $1 != $1 ? NAN : $0 < $1 ? $0 : $1)" : "($0 < $1 ? $0 : $1)");
		break;
	case OP_MAX:
		pattern(g, in, s, fl ? "($0 != $0 || $1 != $1 ? NAN : $0 > $1 ? $0 : $1)" : "($0 > $1 ? $0 : $1)");
		break;
	default: /* OP_WHERE */
		pattern(g, in, s, in->dt == ATHENE_F32 ? "wsel_f($0 != 0, $1, $2)" : "($0 ? $1 : $2)");
		break;
	}
	buf_printf(g->b, ";\n");
}

static void cast_value(G *g, const Ins *in, int r, int s, const char *nl)
{
	DType from = g->p->ins[in->a[0]].dt, to = in->dt;
	lanes(g, s, nl);
	if (in->kind == I_BITCAST) {
		buf_printf(g->b, "{ %s v = ", ctype(from));
		ref(g, in->a[0], s);
		buf_printf(g->b, "; memcpy(&");
		dst(g, r, s);
		buf_printf(g->b, ", &v, sizeof v); }\n");
		return;
	}
	dst(g, r, s);
	if (dt_is_float(from) && !dt_is_float(to)) { /* saturating: val_convert */
		buf_printf(g->b, " = (%s)rt->conv(vf(", ctype(to));
		ref(g, in->a[0], s);
		buf_printf(g->b, "), %d, %d).i;\n", (int)from, (int)to);
	} else if (to == ATHENE_BOOL) {
		buf_printf(g->b, " = ");
		ref(g, in->a[0], s);
		buf_printf(g->b, " != 0;\n");
	} else {
		buf_printf(g->b, " = (%s)%s", ctype(to), dt_is_float(to) && !dt_is_float(from) ? "(int64_t)" : "");
		ref(g, in->a[0], s);
		buf_printf(g->b, ";\n");
	}
}

/* Does scope s hold a reduction of its own? */
static bool nests(const Prog *p, int s)
{
	for (int r = 0; r < p->n; r++)
		if (p->ins[r].scope == s && p->ins[r].kind == I_REDUCE)
			return true;
	return false;
}

static void scope_loops(G *g, int s, int reduce);

/* Folds lane l's value of scope s (red's operand) into accumulator acc, in order. */
static void fold(G *g, const Ins *red, int s, const char *nl, const char *acc)
{
	const Ins *v = &g->p->ins[red->a[0]];
	buf_printf(g->b, "\t\tfor (int l = 0; l < %s; l++) ", nl);
	buf_printf(g->b, "{ %s e = ", ctype(v->dt));
	ref(g, red->a[0], s);
	buf_printf(g->b, "; ");
	bool fl = dt_is_float(v->dt);
	switch (red->op) {
	case R_SUM:
	case R_MEAN: buf_printf(g->b, fl ? "%s += (double)e;" : "%s += (uint64_t)(int64_t)e;", acc); break;
	case R_PROD: buf_printf(g->b, fl ? "%s *= (double)e;" : "%s *= (uint64_t)(int64_t)e;", acc); break;
	case R_MAX:
	case R_MIN:
		/* the first NaN wins; a select, not a branch */
		if (fl)
			buf_printf(g->b, "int take = ((e != e) | (e %s %s)) & (%s == %s); %s = take ? e : %s;",
			           red->op == R_MAX ? ">" : "<", acc, acc, acc, acc, acc);
		else
			buf_printf(g->b, "%s = (int64_t)e %s %s ? e : %s;", acc, red->op == R_MAX ? ">" : "<", acc, acc);
		break;
	case R_ANY: buf_printf(g->b, "%s |= e != 0;", acc); break;
	default: buf_printf(g->b, "%s &= e != 0;", acc); break; /* R_ALL */
	}
	buf_printf(g->b, " }\n");
}

/* Does scope s call vecmath.h's exp, sigmoid, tanh or erf? */
static bool vecmath_calls(const G *g, int s)
{
	for (int r = 0; r < g->p->n; r++) {
		const Ins *in = &g->p->ins[r];
		if (in->scope == s && in->kind == I_OP && in->opdt == ATHENE_F32 && g->used[r] && narrow_fn(in->op))
			return true;
	}
	return false;
}

/* The instructions of scope s for one chunk of nl lanes. */
static void chunk(G *g, int s, const char *nl, int reduce)
{
	const Prog *p = g->p;
	const X *x = g->x;
	int pa = g->across[s];
	bool tail = strcmp(nl, "8") || (pa >= 0 && strcmp(g->pnl[s], "8"));
	g->bylane[s] = pa >= 0 && vecmath_calls(g, s);
	if (g->bylane[s]) {
		/* Across the parent's lanes, where the scope calls vecmath.h's
		 * functions, the instructions run a row at a time (its registers
		 * stay in registers), and only the register folded keeps every
		 * row, for the fold after: a causal softmax's sum of exp, whose
		 * 8 x 8 arrays gcc kept on the stack, 32 -> 22 us for 4,096
		 * floats on one thread. Without such a call, the 8 x 8 arrays are
		 * the faster code: an instruction's 8 rows make 8 vectors side by
		 * side (the max of that softmax, 8.5 -> 12 us a row at a time). */
		const Ins *red = &p->ins[reduce];
		int v = red->a[0];
		g->rows[s] = p->ins[v].kind != I_CONST && p->ins[v].scope == s ? v : -1;
		if (g->rows[s] >= 0)
			buf_printf(g->b, "\t\t%s r%d[%d][%d]%s;\n", rtype(g, &p->ins[v]), v, JIT_W, JIT_W, tail ? " = {{0}}" : "");
		rows_loop(g, s);
		buf_printf(g->b, "{\n");
	}
	for (int r = 0; r < p->n; r++) {
		const Ins *in = &p->ins[r];
		if (in->scope != s || in->kind == I_CONST || !g->used[r])
			continue;
		g->vec[r] = false;
		if (pa >= 0 && (!g->bylane[s] || g->rows[s] == r)) {
			if (!g->bylane[s])
				buf_printf(g->b, "\t\t%s r%d[%d][%d]%s;\n", rtype(g, in), r, JIT_W, JIT_W, tail ? " = {{0}}" : "");
		} else {
			buf_printf(g->b, "\t\t%s r%d[%d]%s;\n", rtype(g, in), r, JIT_W, tail ? " = {0}" : "");
		}
		switch (in->kind) {
		case I_IVAR: {
			int v = plan_var(x, in->var);
			bool n32 = !strcmp(rtype(g, in), "int32_t");
			lanes(g, s, nl);
			dst(g, r, s);
			buf_printf(g->b, " = 0");
			for (int k = 0; k < x->nd; k++)
				if (x->d[k].var == v) {
					buf_printf(g->b, n32 ? " + %lld * " : " + (int64_t)%lld * ", (long long)x->d[k].place);
					coord(g, k, s, n32);
				}
			buf_printf(g->b, ";\n");
			break;
		}
		case I_LOAD: {
			const char *t = ctype(in->dt);
			if (vector_lanes(g, s, nl) && in->dt == ATHENE_F32 && x->op[in->operand].stride[g->lane[s]] == 1) {
				/* 8 floats in a row: one 32-byte load from lane 0's element */
				buf_printf(g->b, "\t\t{ int l = 0; _mm256_storeu_ps(");
				reg(g, r, s);
				buf_printf(g->b, ", _mm256_loadu_ps(&((const float *)B[%d])[", in->operand);
				offset(g, in->operand, s);
				buf_printf(g->b, "])); }\n");
				g->vec[r] = true;
				break;
			}
			lanes(g, s, nl);
			dst(g, r, s);
			buf_printf(g->b, " = ((const %s *)B[%d])[", t, in->operand);
			offset(g, in->operand, s);
			buf_printf(g->b, "]%s;\n", in->dt == ATHENE_BOOL ? " != 0" : "");
			break;
		}
		case I_CAST:
		case I_BITCAST: cast_value(g, in, r, s, nl); break;
		case I_OP: op_value(g, in, r, s, nl); break;
		case I_REDUCE:
			/* a reduction with none inside runs across this chunk's lanes, one
			 * accumulator each, their chains side by side; else lane by lane */
			if (g->across[s] < 0 && !nests(p, in->inner)) {
				g->across[in->inner] = s;
				snprintf(g->pnl[in->inner], sizeof g->pnl[in->inner], "%s", nl);
				scope_loops(g, in->inner, r);
				break;
			}
			g->across[in->inner] = -1;
			buf_printf(g->b, "\t\tfor (int L%d = 0; L%d < %s; L%d++) {\n", s, s, nl, s);
			scope_loops(g, in->inner, r);
			buf_printf(g->b, "\t\t}\n");
			break;
		}
	}
	if (g->bylane[s])
		buf_printf(g->b, "\t\t}\n");
	if (reduce >= 0) { /* fold the chunk's lanes into the enclosing reduction */
		const Ins *red = &p->ins[reduce];
		const Ins *v = &p->ins[red->a[0]];
		char acc[16] = "a";
		bool full = pa >= 0 && g->avx2 && !strcmp(nl, "8") && !strcmp(g->pnl[s], "8") && v->kind != I_CONST &&
		            v->scope == s;
		bool logic = red->op == R_ANY || red->op == R_ALL;
		bool vec = full && (logic ? v->dt == ATHENE_F32 || !strcmp(rtype(g, v), "int32_t")
		                          : v->dt == ATHENE_F32 && (red->op == R_SUM || red->op == R_MEAN ||
		                                                    red->op == R_MAX || red->op == R_MIN));
		if (vec) { /* the 8x8 block transposed: lane l of the 8 rows at once, each row's lanes in order */
			buf_printf(g->b, "\t\t{ __m256 T[8]; tr8x8_4((const char *)r%d, 32, T);\n", red->a[0]);
			if (logic) /* a[] holds 0 or 1; a lane is true where it is not 0 (-0.0 is 0, NaN is not) */
				buf_printf(g->b, "\t\t__m256i A = _mm256_cmpgt_epi32(_mm256_loadu_si256((const __m256i *)a), _mm256_setzero_si256());\n"
				           "\t\tfor (int l = 0; l < 8; l++) { __m256i t = %s; A = %s(A, t); }\n"
				           "\t\t_mm256_storeu_si256((__m256i *)a, _mm256_and_si256(A, _mm256_set1_epi32(1))); }\n",
				           v->dt == ATHENE_F32 ? "_mm256_castps_si256(_mm256_cmp_ps(T[l], _mm256_setzero_ps(), _CMP_NEQ_UQ))"
				                               : "_mm256_xor_si256(_mm256_cmpeq_epi32(_mm256_castps_si256(T[l]), "
				                                 "_mm256_setzero_si256()), _mm256_set1_epi32(-1))",
				           red->op == R_ANY ? "_mm256_or_si256" : "_mm256_and_si256");
			else if (red->op == R_SUM || red->op == R_MEAN)
				buf_printf(g->b, "\t\t__m256d lo = _mm256_loadu_pd(a), hi = _mm256_loadu_pd(a + 4);\n"
				           "\t\tfor (int l = 0; l < 8; l++) { lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(T[l])));"
				           " hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(T[l], 1))); }\n"
				           "\t\t_mm256_storeu_pd(a, lo); _mm256_storeu_pd(a + 4, hi); }\n");
			else
				buf_printf(g->b, "\t\t__m256 A = _mm256_loadu_ps(a);\n"
				           "\t\tfor (int l = 0; l < 8; l++) { __m256 e = T[l]; __m256 take = _mm256_and_ps(_mm256_or_ps("
				           "_mm256_cmp_ps(e, e, _CMP_UNORD_Q), _mm256_cmp_ps(e, A, %s)), _mm256_cmp_ps(A, A, _CMP_ORD_Q));"
				           " A = _mm256_blendv_ps(A, e, take); }\n\t\t_mm256_storeu_ps(a, A); }\n",
				           red->op == R_MAX ? "_CMP_GT_OQ" : "_CMP_LT_OQ");
		}
		if (pa >= 0 && !vec) { /* each accumulator's lanes in order; the accumulators side by side */
			snprintf(acc, sizeof acc, "a[L%d]", pa);
			buf_printf(g->b, "\t\tfor (int L%d = 0; L%d < %s; L%d++) ", pa, pa, g->pnl[s], pa);
		}
		if (!vec)
			fold(g, red, s, nl, acc);
	}
	const Ins *res = &p->ins[p->result];
	bool own = res->kind != I_CONST && res->scope == 0;
	if (s == 0 && g->stream && own && p->out == ATHENE_F32 && !strcmp(nl, "8") && g->lane[0] >= 0 &&
	    x->op[0].stride[g->lane[0]] == 1) {
		/* a large output goes around the cache (the register machine's
		 * streams rule, exec.c) where its 32 bytes are aligned */
		buf_printf(g->b, "\t\t{ int l = 0; float *q = &((float *)B[0])[");
		offset(g, 0, s);
		buf_printf(g->b, "]; if (((uintptr_t)q & 31) == 0) _mm256_stream_ps(q, _mm256_loadu_ps(r%d)); else"
		           " memcpy(q, r%d, 32); }\n", p->result, p->result);
		g->streamed = true;
		return;
	}
	if (s == 0 && vector_lanes(g, s, nl) && p->out == ATHENE_F32 && res->dt == ATHENE_F32 &&
	    x->op[0].stride[g->lane[0]] == 1 && vec_ready(g, p->result, s)) { /* the store: one vector (else gcc wrote it in pieces) */
		buf_printf(g->b, "\t\t{ int l = 0; _mm256_storeu_ps(&((float *)B[0])[");
		offset(g, 0, s);
		buf_printf(g->b, "], ");
		vref(g, p->result, s);
		buf_printf(g->b, "); }\n");
		return;
	}
	if (s == 0) { /* the store */
		lanes(g, s, nl);
		buf_printf(g->b, "((%s *)B[0])[", ctype(p->out));
		offset(g, 0, s);
		buf_printf(g->b, "] = ");
		ref(g, p->result, s);
		buf_printf(g->b, ";\n");
	}
}

/* Does scope s load a value that is the same along its lanes? */
static bool lane_broadcast(const G *g, int s)
{
	const Prog *p = g->p;
	for (int r = 0; r < p->n; r++) {
		const Ins *in = &p->ins[r];
		if (in->scope == s && in->kind == I_LOAD && g->used[r] && g->x->op[in->operand].stride[g->lane[s]] == 0)
			return true;
	}
	return false;
}

/* The loops of scope s (inside lane L<parent> of its reduction `reduce`,
 * or scope 0 over [lo, hi) of its first dim). */
static void scope_loops(G *g, int s, int reduce)
{
	const X *x = g->x;
	const Prog *p = g->p;
	int lane = g->lane[s];
	int64_t count = 1;
	for (int k = 0; k < x->nsd[s]; k++)
		count *= x->d[x->sd[s][k]].n;
	if (reduce >= 0) {
		const Ins *red = &p->ins[reduce];
		const Ins *v = &p->ins[red->a[0]];
		bool fl = dt_is_float(v->dt);
		const char *init, *type = fl ? "double" : "uint64_t";
		switch (red->op) {
		case R_PROD: init = "1"; break;
		case R_MAX:
		case R_MIN:
			type = fl ? ctype(v->dt) : "int64_t";
			init = fl ? (red->op == R_MAX ? "-INFINITY" : "INFINITY") : red->op == R_MAX ? "INT64_MIN" : "INT64_MAX";
			break;
		case R_ALL: type = "int"; init = "1"; break;
		case R_ANY: type = "int"; init = "0"; break;
		default: init = "0"; break;
		}
		int pa = g->across[s];
		if (pa >= 0)
			buf_printf(g->b, "\t\t{ %s a[%d]; for (int L%d = 0; L%d < %s; L%d++) a[L%d] = %s;\n", type, JIT_W, pa, pa,
			           g->pnl[s], pa, pa, init);
		else
			buf_printf(g->b, "\t\t{ %s a = %s;\n", type, init);
	}
	for (int k = 0; k < x->nsd[s]; k++) {
		int d = x->sd[s][k];
		if (d == lane)
			continue;
		if (s == 0 && k == 0)
			buf_printf(g->b, "\t\tfor (int64_t i%d = lo; i%d < hi; i%d++)\n", d, d, d);
		else
			buf_printf(g->b, "\t\tfor (int64_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)x->d[d].n, d);
	}
	if (lane < 0) {
		if (s == 0)
			buf_printf(g->b, "\t\tif (lo < hi)\n");
		buf_printf(g->b, "\t\t{\n");
		chunk(g, s, "1", reduce);
		buf_printf(g->b, "\t\t}\n");
	} else {
		bool first = s == 0 && x->nsd[0] == 1;
		const char *from = first ? "lo" : "0";
		char end[32];
		if (first)
			snprintf(end, sizeof end, "hi");
		else
			snprintf(end, sizeof end, "%lld", (long long)x->d[lane].n);
		buf_printf(g->b, "\t\t{ int64_t c%d = %s;\n", lane, from);
		/* Where a load is the same along the lanes, the empty asm keeps gcc
		 * from vectorising the chunk loop itself (lane l of 8 chunks in a
		 * vector, put back in order by permutes: a LayerNorm's output
		 * statement of (64, 64) took 4.7 us against 0.55 with it, each
		 * chunk's lanes vectorised); where every load runs along the
		 * lanes, that loop's vectors are the better code (the sum of three
		 * tensors of 4,096 floats 1.0 us against 1.5). Where the chunk calls
		 * vecmath.h's functions, whose vectors are a chunk's lanes, the
		 * same: gcc's vectors across chunks took the lanes apart around
		 * the call (a SiLU of 16,384 floats 33 -> 11 us, one thread). */
		buf_printf(g->b, "\t\tfor (; c%d + %d <= %s; c%d += %d) {\n%s", lane, JIT_W, end, lane, JIT_W,
		           g->avx2 && (lane_broadcast(g, s) || vecmath_calls(g, s)) ? "\t\t__asm__ volatile(\"\");\n" : "");
		chunk(g, s, "8", reduce);
		char tail[16];
		snprintf(tail, sizeof tail, "t%d", s);
		buf_printf(g->b, "\t\t}\n\t\tif (c%d < %s) { int %s = (int)(%s - c%d);\n", lane, end, tail, end, lane);
		chunk(g, s, tail, reduce);
		buf_printf(g->b, "\t\t} }\n");
	}
	if (reduce >= 0) {
		const Ins *red = &p->ins[reduce];
		const char *t = ctype(red->dt);
		int ps = red->scope, pa = g->across[s];
		char acc[16] = "a";
		if (pa >= 0) {
			snprintf(acc, sizeof acc, "a[L%d]", pa);
			buf_printf(g->b, "\t\tfor (int L%d = 0; L%d < %s; L%d++)", pa, pa, g->pnl[s], pa);
		}
		if (red->op == R_MEAN)
			buf_printf(g->b, "\t\tr%d[L%d] = (%s)(%s / %lld.0); }\n", reduce, ps, t, acc, (long long)count);
		else if (!dt_is_float(red->dt) && (red->op == R_SUM || red->op == R_PROD))
			buf_printf(g->b, "\t\tr%d[L%d] = (%s)(int64_t)%s; }\n", reduce, ps, t, acc);
		else
			buf_printf(g->b, "\t\tr%d[L%d] = (%s)%s; }\n", reduce, ps, t, acc);
	}
}

/* Do operands j and k read the same elements? */
static bool same_operand(const X *x, int j, int k)
{
	const XOp *a = &x->op[j], *b = &x->op[k];
	if (a->op->t->role != b->op->t->role || a->op->t->index != b->op->t->index || a->dt != b->dt ||
	    a->start != b->start || a->point || b->point || a->masked || b->masked || a->piece || b->piece)
		return false;
	for (int d = 0; d < x->nd; d++)
		if (a->stride[d] != b->stride[d])
			return false;
	return true;
}

/* Do variables u and v take the same value at each point (the sum of the
 * same dims' coordinates, ivar's)? */
static bool same_ivar(const X *x, const Var *u, const Var *v)
{
	int i = plan_var(x, u), j = plan_var(x, v);
	for (int k = 0; k < x->nd; k++)
		if ((x->d[k].var == i) != (x->d[k].var == j))
			return false;
	return true;
}

/* Does instruction r compute what q does (q < r, both their own
 * representatives' arguments in rep)? Guards aside: the generator
 * evaluates every instruction at every point (none it writes can fail). */
static bool same_ins(const X *x, const Ins *q, const Ins *r, const int *rep)
{
	if (q->kind != r->kind || q->scope != r->scope || q->dt != r->dt || q->kind == I_REDUCE)
		return false;
	switch (r->kind) {
	case I_CONST: return !memcmp(&q->c, &r->c, sizeof q->c);
	case I_IVAR: return same_ivar(x, q->var, r->var);
	case I_LOAD:
		return !q->natoms && !r->natoms && !q->nchecks && !r->nchecks && same_operand(x, q->operand, r->operand);
	default:
		if (q->op != r->op || q->opdt != r->opdt || q->nargs != r->nargs || q->exact != r->exact)
			return false;
		for (int k = 0; k < r->nargs; k++)
			if (rep[q->a[k]] != rep[r->a[k]])
				return false;
		return true;
	}
}

/* x's program with each instruction that repeats an earlier one of its
 * scope replaced by that one in every use (the repeats stay, unused):
 * Inductor writes a masked load's whole expression again at each of its
 * uses (a causal softmax's where three times in one statement, its tensor
 * as three operands), which gcc cannot merge across the operands'
 * pointers. The caller frees it and its ins. */
static Prog *dedup(const X *x)
{
	const Prog *p = x->p;
	Prog *q = malloc(sizeof *q);
	int *rep = malloc((size_t)(p->n + 1) * sizeof *rep);
	if (q)
		*q = *p, q->ins = malloc((size_t)(p->n + 1) * sizeof *q->ins);
	if (!q || !q->ins || !rep) {
		if (q)
			free(q->ins);
		free(q);
		free(rep);
		return NULL;
	}
	memcpy(q->ins, p->ins, (size_t)p->n * sizeof *q->ins);
	for (int r = 0; r < p->n; r++) {
		rep[r] = r;
		for (int k = 0; k < r && rep[r] == r; k++)
			if (rep[k] == k && same_ins(x, &p->ins[k], &p->ins[r], rep))
				rep[r] = k;
		Ins *in = &q->ins[r];
		for (int k = 0; k < in->nargs && in->kind != I_LOAD; k++)
			in->a[k] = rep[in->a[k]];
		if (in->guard >= 0)
			in->guard = rep[in->guard];
	}
	q->result = rep[p->result];
	free(rep);
	return q;
}

/* The values dtype t can hold, as [lo, hi] (u64 as i64's). */
static void dt_range(DType t, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MIN, *hi = INT64_MAX;
	if (t == ATHENE_BOOL)
		*lo = 0, *hi = 1;
	else if (t == ATHENE_U8)
		*lo = 0, *hi = UINT8_MAX;
	else if (dt_is_int(t) && dt_bits(t) < 64)
		*hi = (int64_t)((UINT64_C(1) << (dt_bits(t) - 1)) - 1), *lo = -*hi - 1;
}

/* The range of each integer register's values, from its variables' extents,
 * constants and dtypes through + - * neg min max where: an i64 whose values
 * all fit in 32 bits is computed in 32 (AVX2 has no 64-bit multiply, and a
 * vector holds 8 such lanes, not 4). Inductor writes index arithmetic such
 * as a causal mask's r0 - x0 >= 1 in i64. */
static void ranges(G *g, int64_t *lo, int64_t *hi)
{
	const Prog *p = g->p;
	for (int r = 0; r < p->n; r++) {
		const Ins *in = &p->ins[r];
		int64_t l, h, a0 = 0, a1 = 0, b0 = 0, b1 = 0;
		dt_range(in->dt, &lo[r], &hi[r]);
		if (!dt_is_int(in->dt))
			continue;
		if (in->nargs > 0 && in->kind == I_OP) {
			int x = in->a[in->op == OP_WHERE], y = in->a[in->nargs - 1];
			a0 = lo[x], a1 = hi[x], b0 = lo[y], b1 = hi[y];
		}
		bool ok = true;
		if (in->kind == I_CONST) {
			l = h = in->c.i;
		} else if (in->kind == I_IVAR) {
			l = 0, h = g->x->ps->vars[plan_var(g->x, in->var)].n - 1;
		} else if (in->kind == I_CAST && dt_is_int(p->ins[in->a[0]].dt)) {
			l = lo[in->a[0]], h = hi[in->a[0]];
		} else if (in->kind != I_OP || !dt_is_int(in->opdt)) {
			continue;
		} else if (in->op == OP_ADD) {
			ok = !__builtin_add_overflow(a0, b0, &l) && !__builtin_add_overflow(a1, b1, &h);
		} else if (in->op == OP_SUB) {
			ok = !__builtin_sub_overflow(a0, b1, &l) && !__builtin_sub_overflow(a1, b0, &h);
		} else if (in->op == OP_NEG) {
			ok = a0 > INT64_MIN, l = -a1, h = ok ? -a0 : 0;
		} else if (in->op == OP_MUL) {
			int64_t c[4];
			ok = !__builtin_mul_overflow(a0, b0, &c[0]) && !__builtin_mul_overflow(a0, b1, &c[1]) &&
			     !__builtin_mul_overflow(a1, b0, &c[2]) && !__builtin_mul_overflow(a1, b1, &c[3]);
			l = h = c[0];
			for (int k = 1; ok && k < 4; k++)
				l = c[k] < l ? c[k] : l, h = c[k] > h ? c[k] : h;
		} else if (in->op == OP_MIN || in->op == OP_MAX || in->op == OP_WHERE) {
			l = a0 < b0 ? a0 : b0, h = a1 > b1 ? a1 : b1; /* both arms' (a bound of min's and max's) */
		} else {
			continue;
		}
		if (ok && l >= lo[r] && h <= hi[r]) /* else it wraps: the dtype's */
			lo[r] = l, hi[r] = h;
	}
}

bool jit_stmt(Buf *b, const X *x, bool avx2, const char *name, char *why, size_t nwhy)
{
	Prog *p = dedup(x);
	if (!p)
		return false;
	G g = {.b = b, .x = x, .p = p, .avx2 = avx2, .stream = x->stream && avx2};
	for (int s = 0; s < MAXSCOPES; s++)
		g.across[s] = g.rows[s] = -1;
	int64_t *lo = malloc(((size_t)p->n + 1) * sizeof *lo), *hi = malloc(((size_t)p->n + 1) * sizeof *hi);
	g.used = calloc((size_t)p->n + 1, sizeof *g.used);
	g.n32 = calloc((size_t)p->n + 1, sizeof *g.n32);
	g.vec = calloc((size_t)p->n + 1, sizeof *g.vec);
	if (!lo || !hi || !g.used || !g.n32 || !g.vec) {
		free(lo);
		free(hi);
		free(g.used);
		free(g.n32);
		free(g.vec);
		free(p->ins);
		free(p);
		return false;
	}
	ranges(&g, lo, hi);
	for (int r = 0; r < p->n; r++) /* constants are written where they are used */
		g.n32[r] = p->ins[r].dt == ATHENE_I64 && p->ins[r].kind != I_CONST && lo[r] >= INT32_MIN && hi[r] <= INT32_MAX;
	free(lo);
	free(hi);
	g.used[p->result] = true; /* what the result reads (guards aside: nothing here can fail) */
	for (int r = p->n - 1; r >= 0; r--)
		for (int k = 0; g.used[r] && k < p->ins[r].nargs && p->ins[r].kind != I_LOAD; k++)
			g.used[p->ins[r].a[k]] = true;
	bool ok = fits(&g);
	if (ok) {
		buf_printf(b, "void %s(const R *rt, char *const *B, int64_t lo, int64_t hi)\n{\n\t(void)rt;\n", name);
		scope_loops(&g, 0, -1);
		if (g.streamed)
			buf_printf(b, "\t_mm_sfence();\n");
		buf_printf(b, "}\n");
	}
	if (why)
		snprintf(why, nwhy, "%s", g.why);
	free(g.used);
	free(g.n32);
	free(g.vec);
	free(p->ins);
	free(p);
	return ok;
}

/* ---- compiling, caching, loading ---- */

#define JIT_VERSION "athene-jit 2 -O3 -mfma -mtune=haswell"
enum { JIT_PENDING, JIT_READY, JIT_FAILED };

struct JitEntry {
	struct JitEntry *next;  /* in the table */
	struct JitEntry *qnext; /* in the queue */
	uint64_t hash;
	bool avx2;              /* the source is written for AVX2 */
	int nfn;
	bool *has;              /* per statement: has a function */
	JitFn *fn;              /* set before state turns JIT_READY */
	atomic_int state;
	char *src;              /* freed once compiled */
};

static JitEntry jit_none = {.state = JIT_FAILED};

static pthread_mutex_t jit_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jit_work = PTHREAD_COND_INITIALIZER, jit_done = PTHREAD_COND_INITIALIZER;
static JitEntry *jit_table, *jit_head, *jit_tail, *jit_busy;
static int jit_entries;
/* Sources a process compiles at most (an entry and its loaded object stay
 * for the process's life); past them, new instances run on the register
 * machine (a shape-polymorphic loop over ever new sizes, say). */
#define JIT_MAX_ENTRIES 4096
static bool jit_worker, jit_atfork, jit_said;
static atomic_llong jit_runs;

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static const char *jit_cc(void)
{
	const char *cc = getenv("ATHENE_CC");
	return cc && *cc ? cc : "cc";
}

int jit_mode(void)
{
	const char *m = getenv("ATHENE_JIT");
	if (m && (!strcmp(m, "0") || !strcmp(m, "off")))
		return 0;
	return m && !strcmp(m, "sync") ? 2 : 1;
}

/* The cache folder into d (made if missing); false when there is none. */
static bool cache_dir(char *d, size_t n)
{
	const char *a = getenv("ATHENE_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	int k;
	if (a && *a)
		k = snprintf(d, n, "%s/jit", a);
	else if (x && *x)
		k = snprintf(d, n, "%s/athene/jit", x);
	else if (h && *h)
		k = snprintf(d, n, "%s/.cache/athene/jit", h);
	else
		return false;
	if (k <= 0 || (size_t)k >= n)
		return false;
	for (char *p = d + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(d, 0755) && errno != EEXIST)
				return false;
			*p = '/';
		}
	return !mkdir(d, 0755) || errno == EEXIST;
}

/* Once per process: why the compiled code will not be used. */
static void say(const char *fmt, const char *a, const char *b)
{
	pthread_mutex_lock(&jit_mu);
	bool said = jit_said;
	jit_said = true;
	pthread_mutex_unlock(&jit_mu);
	if (!said) {
		fprintf(stderr, "athene: ");
		fprintf(stderr, fmt, a, b);
		fprintf(stderr, "; statements run on the register machine\n");
	}
}

static bool load(JitEntry *e, const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	for (int i = 0; i < e->nfn; i++) {
		char name[32];
		snprintf(name, sizeof name, "athene_s%d", i);
		void *f = e->has[i] ? dlsym(h, name) : NULL;
		if (e->has[i] && !f)
			return false; /* the handle stays open: an entry is never unloaded */
		memcpy(&e->fn[i], &f, sizeof f);
	}
	return true;
}

/* Runs the compiler on `in` (a source, or with header the prelude into
 * its precompiled form) into out: 0, or the errno of a failed start, or
 * -1 when it failed. */
static int run_cc(const char *dir, const char *in, const char *out, bool header, bool avx2)
{
	char inc[3100];
	char *argv[24];
	int n = 0;
	snprintf(inc, sizeof inc, "-I%s", dir);
	argv[n++] = (char *)jit_cc();
	argv[n++] = "-O3";
	argv[n++] = "-fPIC";
	argv[n++] = "-ffp-contract=off";
	argv[n++] = "-fno-math-errno";
	if (avx2) { /* haswell's tuning: whole 32-byte loads and stores, never split in halves */
		argv[n++] = "-mavx2";
		argv[n++] = "-mfma";
		argv[n++] = "-mtune=haswell";
	}
	argv[n++] = inc;
	argv[n++] = header ? "-x" : "-shared";
	argv[n++] = header ? "c-header" : "-lm";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = (char *)in;
	argv[n] = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ), status = 0;
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return rc;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* Writes text to path through a file of its own, renamed into place. */
static bool put(const char *path, const char *text)
{
	static atomic_int serial;
	char tmp[3300];
	if (snprintf(tmp, sizeof tmp, "%s.%ld.%d", path, (long)getpid(), atomic_fetch_add(&serial, 1)) >= (int)sizeof tmp)
		return false;
	FILE *f = fopen(tmp, "w");
	bool ok = f && fputs(text, f) >= 0;
	ok = f && !fclose(f) && ok && !rename(tmp, path);
	if (!ok)
		unlink(tmp);
	return ok;
}

/* The prelude as a header of the cache (prelude-HASH.h) and, where the
 * compiler makes one, its precompiled form beside it (.h.gch: gcc reads it
 * in its place; it saves the parse of immintrin.h, most of a compile).
 * Made once per process when missing; its name into name. */
static bool prelude_header(const char *dir, bool avx2, char *name, size_t n)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static bool tried[2];
	Buf b = {0};
	jit_prelude(&b, avx2);
	char path[3300], gch[3300];
	snprintf(name, n, "prelude-%016llx.h", (unsigned long long)fnv(0xcbf29ce484222325ull, buf_str(&b)));
	bool ok = snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path &&
	          snprintf(gch, sizeof gch, "%s.gch", path) < (int)sizeof gch && (!access(path, R_OK) || put(path, buf_str(&b)));
	buf_free(&b);
	pthread_mutex_lock(&mu);
	if (ok && !tried[avx2] && access(gch, R_OK)) {
		char tmp[3400];
		if (snprintf(tmp, sizeof tmp, "%s.%ld.gch", path, (long)getpid()) < (int)sizeof tmp &&
		    !run_cc(dir, path, tmp, true, avx2))
			rename(tmp, gch);
		unlink(tmp);
	}
	tried[avx2] = true;
	pthread_mutex_unlock(&mu);
	return ok;
}

/* Compiles e's source into the cache (unless it is there) and loads it. */
static bool build(JitEntry *e)
{
	char dir[3072], path[3200], src[3200], tmp[3200], header[64];
	if (!cache_dir(dir, sizeof dir)) {
		say("no cache folder for compiled statements (%s%s)", "set ATHENE_CACHE_DIR or HOME", "");
		return false;
	}
	snprintf(path, sizeof path, "%s/%016llx.so", dir, (unsigned long long)e->hash);
	if (!access(path, R_OK) && load(e, path))
		return true;
	static atomic_int serial;
	int id = atomic_fetch_add(&serial, 1);
	snprintf(src, sizeof src, "%s/%016llx.%ld.%d.c", dir, (unsigned long long)e->hash, (long)getpid(), id);
	snprintf(tmp, sizeof tmp, "%s/%016llx.%ld.%d.so", dir, (unsigned long long)e->hash, (long)getpid(), id);
	FILE *f = prelude_header(dir, e->avx2, header, sizeof header) ? fopen(src, "w") : NULL;
	if (!f || fprintf(f, "#include \"%s\"\n", header) < 0 || fputs(e->src, f) < 0 || fclose(f)) {
		if (f)
			fclose(f);
		say("cannot write %s%s", src, "");
		return false;
	}
	int rc = run_cc(dir, src, tmp, false, e->avx2);
	if (rc > 0) {
		unlink(src);
		say("cannot run the C compiler '%s' (%s; ATHENE_CC names another)", jit_cc(), strerror(rc));
		return false;
	}
	if (rc) {
		unlink(tmp);
		say("the C compiler '%s' failed on %s", jit_cc(), src);
		return false;
	}
	if (!getenv("ATHENE_JIT_KEEP"))
		unlink(src);
	if (rename(tmp, path)) {
		unlink(tmp);
		say("cannot write %s%s", path, "");
		return false;
	}
	return load(e, path);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&jit_mu);
	for (;;) {
		while (!jit_head)
			pthread_cond_wait(&jit_work, &jit_mu);
		JitEntry *e = jit_busy = jit_head;
		jit_head = e->qnext;
		if (!jit_head)
			jit_tail = NULL;
		pthread_mutex_unlock(&jit_mu);
		bool ok = build(e);
		pthread_mutex_lock(&jit_mu);
		free(e->src);
		e->src = NULL;
		atomic_store(&e->state, ok ? JIT_READY : JIT_FAILED);
		jit_busy = NULL;
		pthread_cond_broadcast(&jit_done);
	}
	return NULL;
}

/* In a child of fork: no worker; what the parent was compiling is queued again. */
static void after_fork(void)
{
	pthread_mutex_init(&jit_mu, NULL);
	pthread_cond_init(&jit_work, NULL);
	pthread_cond_init(&jit_done, NULL);
	jit_worker = false;
	if (jit_busy) {
		jit_busy->qnext = jit_head;
		jit_head = jit_busy;
		if (!jit_tail)
			jit_tail = jit_busy;
		jit_busy = NULL;
	}
}

JitEntry *jit_submit(Buf *src, bool avx2, int nfn, const bool *has)
{
	int mode = jit_mode(), any = 0;
	for (int i = 0; i < nfn; i++)
		any += has[i];
	if (!mode || !any)
		return &jit_none;
	char flags[256];
	snprintf(flags, sizeof flags, "%s|%s|%s", JIT_VERSION, jit_cc(), avx2 ? "avx2" : "");
	Buf pre = {0};
	jit_prelude(&pre, avx2);
	uint64_t h = fnv(fnv(fnv(0xcbf29ce484222325ull, flags), buf_str(&pre)), buf_str(src));
	buf_free(&pre);
	pthread_mutex_lock(&jit_mu);
	JitEntry *e = jit_table;
	while (e && e->hash != h)
		e = e->next;
	if (!e && jit_entries < JIT_MAX_ENTRIES && (e = calloc(1, sizeof *e))) {
		jit_entries++;
		e->hash = h;
		e->avx2 = avx2;
		e->nfn = nfn;
		e->has = malloc((size_t)nfn * sizeof *e->has);
		e->fn = calloc((size_t)nfn, sizeof *e->fn);
		e->src = strdup(buf_str(src));
		if (!e->has || !e->fn || !e->src) {
			free(e->has);
			free(e->fn);
			free(e->src);
			free(e);
			pthread_mutex_unlock(&jit_mu);
			return &jit_none;
		}
		memcpy(e->has, has, (size_t)nfn * sizeof *has);
		atomic_init(&e->state, JIT_PENDING);
		e->next = jit_table;
		jit_table = e;
		if (jit_tail)
			jit_tail->qnext = e;
		else
			jit_head = e;
		jit_tail = e;
		if (!jit_atfork) {
			pthread_atfork(NULL, NULL, after_fork);
			jit_atfork = true;
		}
		if (!jit_worker) {
			pthread_t t;
			pthread_attr_t at;
			pthread_attr_init(&at);
			pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
			jit_worker = !pthread_create(&t, &at, worker, NULL);
			pthread_attr_destroy(&at);
		}
		pthread_cond_signal(&jit_work);
	}
	if (!e)
		e = &jit_none;
	while (mode == 2 && jit_worker && atomic_load(&e->state) == JIT_PENDING)
		pthread_cond_wait(&jit_done, &jit_mu);
	pthread_mutex_unlock(&jit_mu);
	return e;
}

JitFn jit_fn(const JitEntry *e, int si)
{
	if (atomic_load_explicit(&((JitEntry *)e)->state, memory_order_acquire) != JIT_READY || si >= e->nfn)
		return NULL;
	return e->fn[si];
}

void jit_wait(void)
{
	pthread_mutex_lock(&jit_mu);
	while (jit_worker && (jit_head || jit_busy))
		pthread_cond_wait(&jit_done, &jit_mu);
	pthread_mutex_unlock(&jit_mu);
}

void jit_count_run(void)
{
	atomic_fetch_add_explicit(&jit_runs, 1, memory_order_relaxed);
}

int64_t jit_ran(void)
{
	return atomic_load(&jit_runs);
}
