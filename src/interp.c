/* Reference interpreter: evaluates a compiled kernel element by element,
 * straight from the language's definition (subscripts and layouts, not the
 * lowered offsets), so it can serve as the oracle for every backend. It does
 * cross-check each load against its lowered, simplified offset: a mismatch is
 * a compiler bug and aborts.
 *
 * Values: floats are held as doubles already rounded to their dtype (f16,
 * bf16 and f32 arithmetic is rounded after every op); integers as int64
 * wrapped to their dtype. Subscripts are evaluated exactly in 64 bits.
 * val_convert and val_op are these semantics for one value, shared with
 * every evaluator of the body IR. */
#include <math.h>
#include <string.h>

#include "internal.h"

typedef struct {
	const Inst *in;
	const Kernel *k;
	Diag *d;
	void *const *storage; /* per parameter */
	void **lets;          /* per let: its row-major buffer */
	int64_t *env;         /* per variable: its current value */
	Stmt *stmt;
} Interp;

static Val eval(Interp *in, Node *n);
static int64_t eval_index(Interp *in, Node *n);

/* ---- values ---- */

/* astype: float -> int truncates toward zero and saturates at the target's
 * range (NaN -> 0); float -> bool is x != 0. */
Val val_convert(Val v, DType from, DType to)
{
	if (dt_is_float(to))
		return (Val){.f = dt_is_float(from) ? dt_round_float(to, v.f) : dt_i2f(to, v.i)};
	if (dt_is_float(from))
		return (Val){.i = to == ATHENE_BOOL ? v.f != 0 : dt_saturate(to, dt_f2i(v.f))};
	return (Val){.i = dt_wrap_int(to, v.i)};
}

static bool truth(Val v, DType t)
{
	return dt_is_float(t) ? v.f != 0 : v.i != 0;
}

/* ---- errors ---- */

/* "out[3, 0]": the element being computed. */
static void where_str(Interp *in, char *s, size_t n)
{
	Stmt *st = in->stmt;
	int len = snprintf(s, n, "%s[", st->t->name);
	for (int d = 0; d < st->nlhs && len > 0 && (size_t)len < n; d++)
		len += snprintf(s + len, n - (size_t)len, "%s%lld", d ? ", " : "", (long long)in->env[st->lhs[d]->id]);
	if (len > 0 && (size_t)len < n)
		snprintf(s + len, n - (size_t)len, "]");
}

static _Noreturn void run_error(Interp *in, Node *at, const char *fmt, ...)
{
	char msg[512], pos[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	where_str(in, pos, sizeof pos);
	error_at(in->d, at->sp, "kernel %s: %s at %s", in->k->name, msg, pos);
}

/* ---- arithmetic ---- */

static double float_floordiv(double a, double b, double *modp)
{
	if (b == 0) {
		*modp = NAN;
		return a / b;
	}
	double mod = fmod(a, b), div = (a - mod) / b;
	if (mod != 0) {
		if ((b < 0) != (mod < 0)) {
			mod += b;
			div -= 1.0;
		}
	} else {
		mod = copysign(0.0, b);
	}
	double fd;
	if (div != 0) {
		fd = floor(div);
		if (div - fd > 0.5)
			fd += 1.0;
	} else {
		fd = copysign(0.0, a / b);
	}
	*modp = mod;
	return fd;
}

static int64_t ipow(int64_t x, int64_t y)
{
	if (y < 0)
		return x == 1 ? 1 : x == -1 ? (y & 1 ? -1 : 1) : 0;
	uint64_t r = 1, b = (uint64_t)x;
	while (y) {
		if (y & 1)
			r *= b;
		b *= b;
		y >>= 1;
	}
	return (int64_t)r;
}

static double fop2(int op, double a, double b)
{
	double m;
	switch (op) {
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_MUL: return a * b;
	case OP_DIV: return a / b;
	case OP_FLOORDIV: return float_floordiv(a, b, &m);
	case OP_MOD: return float_floordiv(a, b, &m), m;
	case OP_POW: return pow(a, b);
	case OP_MIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
	case OP_MAX: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
	case OP_ATAN2: return atan2(a, b);
	}
	die("bad float op");
}

static int64_t iop2(int op, int64_t a, int64_t b)
{
	uint64_t x = (uint64_t)a, y = (uint64_t)b;
	switch (op) {
	case OP_ADD: return (int64_t)(x + y);
	case OP_SUB: return (int64_t)(x - y);
	case OP_MUL: return (int64_t)(x * y);
	case OP_FLOORDIV: return b == 0 ? 0 : (a == INT64_MIN && b == -1) ? a : floordiv64(a, b);
	case OP_MOD: return b == 0 || b == -1 ? 0 : floormod64(a, b);
	case OP_POW: return ipow(a, b);
	case OP_MIN: return a < b ? a : b;
	case OP_MAX: return a > b ? a : b;
	}
	die("bad int op");
}

double val_fop1(int op, double x)
{
	switch (op) {
	case OP_NEG: return -x;
	case OP_ABS: return fabs(x);
	case OP_SIGN: return isnan(x) ? x : (x > 0) - (x < 0);
	case OP_RELU: return isnan(x) || x > 0 ? x : 0.0;
	case OP_FLOOR: return floor(x);
	case OP_CEIL: return ceil(x);
	case OP_ROUND: return nearbyint(x);
	case OP_TRUNC: return trunc(x);
	case OP_EXP: return exp(x);
	case OP_EXP2: return exp2(x);
	case OP_LOG: return log(x);
	case OP_LOG2: return log2(x);
	case OP_LOG1P: return log1p(x);
	case OP_EXPM1: return expm1(x);
	case OP_SQRT: return sqrt(x);
	case OP_RSQRT: return 1.0 / sqrt(x);
	case OP_SIN: return sin(x);
	case OP_COS: return cos(x);
	case OP_TAN: return tan(x);
	case OP_TANH: return tanh(x);
	case OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
	case OP_ERF: return erf(x);
	}
	die("bad float op");
}

static int64_t iop1(int op, int64_t x)
{
	switch (op) {
	case OP_NEG: return (int64_t)(0 - (uint64_t)x);
	case OP_ABS: return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
	case OP_SIGN: return (x > 0) - (x < 0);
	case OP_RELU: return x > 0 ? x : 0;
	case OP_FLOOR:
	case OP_CEIL:
	case OP_ROUND:
	case OP_TRUNC: return x;
	}
	die("bad int op");
}

static Val cmp(int op, Val a, Val b, DType t)
{
	int r;
	if (dt_is_float(t)) {
		double x = a.f, y = b.f;
		r = op == OP_EQ ? x == y : op == OP_NE ? x != y : op == OP_LT ? x < y : op == OP_LE ? x <= y : op == OP_GT ? x > y : x >= y;
	} else {
		int64_t x = a.i, y = b.i;
		r = op == OP_EQ ? x == y : op == OP_NE ? x != y : op == OP_LT ? x < y : op == OP_LE ? x <= y : op == OP_GT ? x > y : x >= y;
	}
	return (Val){.i = r};
}

Val val_op(int op, DType t, const Val *v)
{
	const struct OpInfo *oi = &op_info[op];
	if (oi->kind == K_LOGIC)
		return (Val){.i = op == OP_NOT ? !v[0].i : op == OP_AND ? v[0].i && v[1].i : v[0].i || v[1].i};
	if (oi->kind == K_PRED)
		return (Val){.i = !dt_is_float(t) ? 0 : op == OP_ISNAN ? isnan(v[0].f) != 0 : isinf(v[0].f) != 0};
	if (oi->kind == K_CMP)
		return cmp(op, v[0], v[1], t);
	if (op == OP_WHERE)
		return v[0].i ? v[1] : v[2];
	if (op == OP_WRAP)
		return (Val){.i = dt_wrap_int(t, v[0].i < 0 ? (int64_t)((uint64_t)v[0].i + (uint64_t)v[1].i) : v[0].i)};
	if (op == OP_CLAMP) {
		if (dt_is_float(t))
			return (Val){.f = fop2(OP_MIN, fop2(OP_MAX, v[0].f, v[1].f), v[2].f)};
		return (Val){.i = iop2(OP_MIN, iop2(OP_MAX, v[0].i, v[1].i), v[2].i)};
	}
	if (dt_is_float(t))
		return (Val){.f = dt_round_float(t, oi->arity == 1 ? val_fop1(op, v[0].f) : fop2(op, v[0].f, v[1].f))};
	return (Val){.i = dt_wrap_int(t, oi->arity == 1 ? iop1(op, v[0].i) : iop2(op, v[0].i, v[1].i))};
}

/* wrap(i, m) needs m >= 1: with m <= 0 no index is valid, and -m need not
 * fit in 64 bits (the error message names [-m, m)). */
static void check_modulus(Interp *in, Node *n, int64_t m)
{
	if (m < 1)
		run_error(in, n->args[1], "wrap() needs a positive modulus, not %lld", (long long)m);
}

static Val eval_op(Interp *in, Node *n)
{
	Val v[3];
	DType t = n->opdt;
	const struct OpInfo *oi = &op_info[n->op];
	if (oi->kind == K_LOGIC) {
		bool a = truth(eval(in, n->args[0]), n->args[0]->dt);
		if (n->op == OP_NOT)
			return (Val){.i = !a};
		if (n->op == OP_AND ? !a : a) /* short-circuit */
			return (Val){.i = a};
		return (Val){.i = truth(eval(in, n->args[1]), n->args[1]->dt)};
	}
	if (n->op == OP_WHERE) {
		Node *pick = truth(eval(in, n->args[0]), n->args[0]->dt) ? n->args[1] : n->args[2];
		return val_convert(eval(in, pick), pick->dt, t);
	}
	if (oi->kind == K_PRED)
		return val_op(n->op, n->args[0]->dt, (Val[]){eval(in, n->args[0])});
	for (int i = 0; i < n->nargs; i++)
		v[i] = val_convert(eval(in, n->args[i]), n->args[i]->dt, t);
	if (n->op == OP_WRAP)
		check_modulus(in, n, v[1].i);
	return val_op(n->op, t, v);
}

/* ---- loads ---- */

static int leaf_value(void *env, const Sym *s, int64_t *out)
{
	Interp *in = env;
	*out = s->kind == S_VAR ? in->env[s->c] : eval_index(in, s->p);
	return SYM_OK;
}

static int64_t load_offset(Interp *in, Node *n)
{
	Tensor *t = n->t;
	const Layout *l = tensor_layout(in->in, t);
	int64_t off = l->offset, x;
	if (n->kind == N_FLAT) {
		int64_t e = eval_index(in, n->args[0]);
		if (!i64_add(off, e, &off) || off < 0 || off >= l->storage)
			run_error(in, n->args[0], "flat offset %lld (storage element %lld) is out of range for the storage of '%s' (%lld elements)",
			          (long long)e, (long long)(l->offset + e), t->name, (long long)l->storage);
	} else {
		for (int d = 0; d < t->rank; d++) {
			Node *s = n->args[d];
			int64_t i = eval_index(in, s);
			if ((i < 0 || i >= l->shape[d]) && s->kind == N_OP && s->op == OP_WRAP) {
				int64_t raw = eval_index(in, s->args[0]), m = eval_index(in, s->args[1]);
				run_error(in, s, "index %lld out of range for dim %d of '%s' (size %lld; wrap() accepts [%lld, %lld))",
				          (long long)raw, d, t->name, (long long)l->shape[d], (long long)-m, (long long)m);
			}
			if (i < 0 || i >= l->shape[d])
				run_error(in, s, "index %lld out of range for dim %d of '%s' (size %lld)", (long long)i, d, t->name,
				          (long long)l->shape[d]);
			off += l->strides[d] * i; /* in range: the layout check bounds it */
		}
	}
	if (in->in->load_off && (sym_eval(in->in->load_off[n->load_id], leaf_value, in, &x) || x != off))
		die("lowered offset disagrees with the reference interpreter");
	return off;
}

static Val load(Interp *in, Node *n)
{
	Tensor *t = n->t;
	int64_t off = load_offset(in, n);
	const void *base = t->role == ROLE_LET ? in->lets[t->index] : in->storage[t->index];
	if (dt_is_float(t->dt))
		return (Val){.f = dt_load_f(base, t->dt, off)};
	return (Val){.i = dt_load_i(base, t->dt, off)};
}

/* ---- index expressions: exact 64-bit integers ---- */

/* Index arithmetic is exact: an overflow or a division by zero is an error. */
static int64_t eval_index(Interp *in, Node *n)
{
	int64_t a, b = 0, r;
	if (n->kind != N_OP || !dt_is_int(n->dt))
		return val_convert(eval(in, n), n->dt, ATHENE_I64).i;
	switch (n->op) {
	case OP_NEG:
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
	case OP_FLOORDIV:
	case OP_MOD:
	case OP_WRAP:
		a = eval_index(in, n->args[0]);
		if (n->op != OP_NEG)
			b = eval_index(in, n->args[1]);
		break;
	default:
		return eval(in, n).i;
	}
	if (n->op == OP_WRAP)
		check_modulus(in, n, b);
	if (n->op == OP_WRAP && a >= 0)
		return a;
	switch (int_op(n->op == OP_WRAP ? OP_ADD : n->op, a, b, &r)) {
	case SYM_EOVF: run_error(in, n, "index arithmetic overflows 64 bits");
	case SYM_EDIV0: run_error(in, n, "division by zero in an index");
	}
	return r;
}

/* ---- reductions ---- */


void red_init(Red *r, int op, DType bt)
{
	memset(r, 0, sizeof *r);
	r->op = op;
	r->bt = bt;
	if (op == R_PROD)
		r->f = 1, r->i = 1;
	if (op == R_ALL)
		r->i = 1;
}

/* Is x a new best for argmax/argmin/max/min (NaN wins, first occurrence)? */
static bool better(const Red *r, Val x, bool maxi)
{
	if (!r->count)
		return true;
	if (dt_is_float(r->bt)) {
		if (isnan(r->f))
			return false;
		return isnan(x.f) || (maxi ? x.f > r->f : x.f < r->f);
	}
	return maxi ? x.i > r->i : x.i < r->i;
}

void red_step(Red *r, Val x)
{
	bool fl = dt_is_float(r->bt);
	switch (r->op) {
	case R_SUM:
	case R_MEAN:
		if (fl) r->f += x.f;
		else r->i = (int64_t)((uint64_t)r->i + (uint64_t)x.i);
		break;
	case R_PROD:
		if (fl) r->f *= x.f;
		else r->i = (int64_t)((uint64_t)r->i * (uint64_t)x.i);
		break;
	case R_MAX:
	case R_MIN:
	case R_ARGMAX:
	case R_ARGMIN:
		if (better(r, x, r->op == R_MAX || r->op == R_ARGMAX)) {
			r->f = x.f;
			r->i = x.i;
			r->arg = r->count;
		}
		break;
	case R_ANY: r->i |= truth(x, r->bt); break;
	case R_ALL: r->i &= truth(x, r->bt); break;
	}
	r->count++;
}

bool red_result(const Red *r, DType dt, Val *out)
{
	bool fl = dt_is_float(r->bt);
	if (!r->count && (r->op == R_MAX || r->op == R_MIN || r->op == R_ARGMAX || r->op == R_ARGMIN))
		return false;
	switch (r->op) {
	case R_MEAN:
		if (!r->count)
			*out = (Val){.f = NAN};
		else
			*out = (Val){.f = fl ? dt_round_float(dt, r->f / (double)r->count) : dt_ratio_to_float(dt, r->i, r->count)};
		return true;
	case R_ARGMAX:
	case R_ARGMIN:
		*out = (Val){.i = r->arg};
		return true;
	case R_ANY:
	case R_ALL:
		*out = (Val){.i = r->i};
		return true;
	}
	if (dt_is_float(dt))
		*out = (Val){.f = fl ? dt_round_float(dt, r->f) : dt_i2f(dt, r->i)};
	else
		*out = (Val){.i = dt_wrap_int(dt, r->i)};
	return true;
}

/* Is any of the n variables empty (then so is the loop nest over them,
 * however large the others: never walk an outer extent of 2^62 over an
 * empty inner one)? */
static bool any_empty(const Interp *in, Var *const *vars, int n)
{
	for (int d = 0; d < n; d++)
		if (in->in->n[vars[d]->id] == 0)
			return true;
	return false;
}

static void reduce_loop(Interp *in, Node *n, int v, Red *r)
{
	if (v == n->nrvars) {
		red_step(r, eval(in, n->args[0]));
		return;
	}
	Var *var = n->rvars[v];
	for (int64_t i = 0; i < in->in->n[var->id]; i++) {
		in->env[var->id] = i;
		reduce_loop(in, n, v + 1, r);
	}
}

static Val reduce(Interp *in, Node *n)
{
	Red r;
	Val v;
	red_init(&r, n->op, n->args[0]->dt);
	if (!any_empty(in, n->rvars, n->nrvars))
		reduce_loop(in, n, 0, &r);
	if (!red_result(&r, n->dt, &v))
		run_error(in, n, "%s over an empty range", n->name);
	return v;
}

static Val eval(Interp *in, Node *n)
{
	switch (n->kind) {
	case N_INT:
	case N_BOOL:
		return (Val){.i = n->ival};
	case N_FLOAT:
		return (Val){.f = n->fval};
	case N_IVAR:
		return (Val){.i = in->env[n->var->id]};
	case N_SIZE:
		return (Val){.i = in->in->size[n->sym]};
	case N_LOAD:
	case N_FLAT:
		return load(in, n);
	case N_CAST:
		return val_convert(eval(in, n->args[0]), n->args[0]->dt, n->dt);
	case N_OP:
		return eval_op(in, n);
	case N_REDUCE:
		return reduce(in, n);
	}
	die("unexpected node in interp");
}

/* ---- statements ---- */

static void store(Interp *in, Stmt *s, Val v)
{
	Tensor *t = s->t;
	const Layout *l = tensor_layout(in->in, t);
	int64_t off = l->offset;
	for (int d = 0; d < s->nlhs; d++)
		off += l->strides[d] * in->env[s->lhs[d]->id];
	void *base = t->role == ROLE_LET ? in->lets[t->index] : in->storage[t->index];
	if (dt_is_float(s->rhs->dt))
		dt_store_f(base, t->dt, off, v.f);
	else
		dt_store_i(base, t->dt, off, v.i);
}

static void stmt_loop(Interp *in, Stmt *s, int d)
{
	if (d == s->nlhs) {
		store(in, s, eval(in, s->rhs));
		return;
	}
	Var *v = s->lhs[d];
	for (int64_t i = 0; i < in->in->n[v->id]; i++) {
		in->env[v->id] = i;
		stmt_loop(in, s, d + 1);
	}
}

void interp_run(const Inst *inst, void *const *storage, Diag *d, Arena *scratch)
{
	const Kernel *k = inst->k;
	Interp in = {inst, k, d, storage, NULL, NULL, NULL};
	in.env = arena_alloc(scratch, (size_t)(k->vars.n + 1) * sizeof *in.env);
	in.lets = arena_alloc(scratch, (size_t)(k->lets.n + 1) * sizeof *in.lets);
	for (int i = 0; i < k->lets.n; i++) {
		Tensor *t = k->lets.v[i];
		int64_t bytes;
		if (!i64_mul(tensor_layout(inst, t)->storage, (int64_t)athene_dtype_size(t->dt), &bytes))
			error_at(d, t->def->sp, "the intermediate '%s' needs more than 2^63 bytes", t->name);
		if (!(in.lets[i] = arena_try_alloc(scratch, (size_t)bytes)))
			error_at(d, t->def->sp, "cannot allocate %lld bytes for the intermediate '%s'", (long long)bytes, t->name);
	}
	for (int i = 0; i < k->stmts.n; i++) {
		in.stmt = k->stmts.v[i];
		if (!any_empty(&in, in.stmt->lhs, in.stmt->nlhs))
			stmt_loop(&in, in.stmt, 0);
	}
}
