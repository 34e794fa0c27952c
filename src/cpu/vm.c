/* The register machine: the body IR of a planned statement over the boxes
 * of one grid block (exec.c splits the statement into loop dims and boxes).
 * Each box of scope 0 is evaluated in units of up to VM_LANES points with
 * one tight loop per instruction over the unit's lanes. Operands whose
 * order is not the box's dense order are staged whole first (transposed by
 * the box copy); a result is written in place or staged and copied back
 * through the output's view. A reduction evaluates its inner scope over
 * its whole domain for each outer point, in row-major order, with the
 * interpreter's accumulator, so results are the interpreter's bits. A unit
 * that fails runs again lane by lane so the error reported is the first.
 * Units: strides in elements, bytes at the box-copy boundary. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

typedef struct W {
	const X *x;
	Val *reg;         /* REG_STRIDE per register */
	Val **rp;         /* per register: its lanes (its own, or an aliased load's) */
	Val *splat;       /* an outer register's value, spread over the lanes */
	unsigned char *tmp;
	int64_t coord[XMAXD];
	int lanes[64];    /* per scope: lanes of its current unit */
	int lane[64];     /* per scope: the lane being evaluated of its unit */
	const XBox *unit[64];
	int ustart[64];   /* per scope: index in nsd of its first varying dim */
	int64_t *val;     /* per variable id */
	bool bad;
	bool stored;      /* scope 0's unit went straight to the output */
	/* the scope-0 box being run: operands not contiguous in its dense
	 * order are staged whole (transposed by the box copy), and so is the
	 * result when the output's view is not */
	const XBox *box0;
	int64_t dense0[XMAXD]; /* element strides of the dense box, per dim */
	unsigned char **stage; /* per access: its staged box, NULL if read in place */
	unsigned char **keep;  /* per access: the buffer, kept between boxes */
	size_t *cap;
	XBox *vb;              /* per output variable: its boxes in a block */
	struct RInfo *ri;      /* per register: what is known of it over the unit */
	bool *outer;           /* per register: read by an instruction of another scope */
	bool *fallible;        /* per register: evaluating it can fail, or what it reads
	                        * (a reduction: its scope) */
	signed char pw_ok;     /* the statement is one fused pointwise program
	                        * (pw_build; -1: not yet asked) */
	PwProg pw;             /* its loads' addresses set per box */
	int pw_acc[PW_MAX];    /* per load instruction: its access */
	bool guarded[MAXSCOPES]; /* per scope: it has a guard or a where() to decide; in
	                          * the others every instruction is evaluated (ri set once) */
	/* reduce_chains: the values of a group of lanes' float sums, each
	 * lane's domain in order, which red_unit appends while chain_scope
	 * (a reduction's scope; 0: none) is being reduced */
	float *chain;
	int64_t chain_n, chain_cap;
	int chain_scope;
	int const_lanes;       /* lanes of the constants' registers filled so far: as many
	                        * as a unit has needed (a small kernel's run fills few) */
	/* reduce_batch: a reduction's scope (0: none) whose unit holds many
	 * rows, its dims then bsd[0..bnsd): scope 0's, then its own */
	int bscope, bnsd;
	int bsd[XMAXD];
} W;

/* A register over the current unit of its scope (decide, then needs):
 * its range when it is an integer the index variables' ranges bound, the
 * value of a bool that is the same at every lane, whether its guard is
 * false at every lane (then it is never read), and whether the unit
 * needs its lanes. A where() of a decided condition is its chosen branch,
 * and what only the other branch or a decided comparison reads is not
 * evaluated: the inside of a pad, or one side of a cat, runs without its
 * guard. */
typedef struct RInfo {
	int64_t lo, hi;
	bool known;       /* lo, hi hold */
	signed char dec;  /* a bool: 0 or 1 at every lane, -1: not decided */
	bool skip;        /* its guard is false at every lane */
	bool need;        /* evaluated in this unit */
} RInfo;

/* Vals from one register to the next: VM_LANES and five lines more, so
 * that registers start at different offsets modulo 4 KiB. An op's loop
 * reads two registers and writes a third at the same index; at equal
 * offsets the loads would wait on the stores (4 KiB aliasing), which made
 * every op of the machine several times slower than its loop. */
#define REG_STRIDE (VM_LANES + 40)
/* Lanes from which a row of the box is a unit alone. */
#define ROW_UNIT 256


/* ---- registers ---- */

/* The register machine's loops, compiled for AVX2 too where the CPU has it
 * (chosen at load time), and vectorised. Not under the sanitizers: an
 * ifunc resolver runs before their runtime is up. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define ATHENE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ATHENE_SANITIZED 1
#endif
#if defined(ATHENE_SANITIZED)
#define HOT
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT __attribute__((target_clones("avx2", "default"), optimize("O3")))
#elif defined(__x86_64__) && defined(__clang__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

HOT static void to_lanes(Val *r, const unsigned char *t, DType dt, int n)
{
	switch (dt) {
	case ATHENE_F32: memcpy(r, t, (size_t)n * sizeof(float)); break; /* a float register */
	case ATHENE_F64: for (int i = 0; i < n; i++) r[i].f = ((const double *)t)[i]; break;
	case ATHENE_F16: f16_to_floats((float *)r, (const uint16_t *)t, n); break;
	case ATHENE_BF16: for (int i = 0; i < n; i++) ((float *)r)[i] = bf16_to_float(((const uint16_t *)t)[i]); break;
	case ATHENE_I8: for (int i = 0; i < n; i++) r[i].i = ((const int8_t *)t)[i]; break;
	case ATHENE_I16: for (int i = 0; i < n; i++) r[i].i = ((const int16_t *)t)[i]; break;
	case ATHENE_I32: for (int i = 0; i < n; i++) r[i].i = ((const int32_t *)t)[i]; break;
	case ATHENE_I64: for (int i = 0; i < n; i++) r[i].i = ((const int64_t *)t)[i]; break;
	case ATHENE_U8: for (int i = 0; i < n; i++) r[i].i = t[i]; break;
	default: for (int i = 0; i < n; i++) r[i].i = t[i] != 0; break;
	}
}

HOT static void from_lanes(unsigned char *t, DType dt, const Val *r, int n)
{
	switch (dt) {
	case ATHENE_F32: memcpy(t, r, (size_t)n * sizeof(float)); break; /* a float register */
	case ATHENE_F64: for (int i = 0; i < n; i++) ((double *)t)[i] = r[i].f; break;
	case ATHENE_F16: f16_from_floats((uint16_t *)t, (const float *)r, n); break;
	case ATHENE_BF16: for (int i = 0; i < n; i++) ((uint16_t *)t)[i] = bf16_from_float(((const float *)r)[i]); break;
	case ATHENE_I8: for (int i = 0; i < n; i++) ((int8_t *)t)[i] = (int8_t)r[i].i; break;
	case ATHENE_I16: for (int i = 0; i < n; i++) ((int16_t *)t)[i] = (int16_t)r[i].i; break;
	case ATHENE_I32: for (int i = 0; i < n; i++) ((int32_t *)t)[i] = (int32_t)r[i].i; break;
	case ATHENE_I64: for (int i = 0; i < n; i++) ((int64_t *)t)[i] = r[i].i; break;
	case ATHENE_U8: for (int i = 0; i < n; i++) t[i] = (uint8_t)r[i].i; break;
	default: for (int i = 0; i < n; i++) t[i] = r[i].i != 0; break;
	}
}

/* The lanes of register r as seen from scope s: its own, or an outer
 * register's value at the current point, spread. */
/* An f32, f16 or bf16 register holds floats (its lanes' first half): f32
 * arithmetic is exact in float, so it runs twice as wide and a load or
 * store of an f32 tensor is a plain copy; f16 and bf16 values are exact in
 * float too, and their + - * / in f32, rounded to them, are exact
 * (base/base.h, bf16_round_f). Every other register holds Vals. */
static bool floats(DType t)
{
	return t == ATHENE_F32 || t == ATHENE_F16 || t == ATHENE_BF16;
}

static bool flt_reg(const X *x, int r)
{
	return floats(x->p->ins[r].dt);
}

static Val *regv(W *w, int r)
{
	return w->rp[r];
}

static float *regf(W *w, int r)
{
	return (float *)w->rp[r];
}

/* A load whose lanes are contiguous in memory and laid out as its register
 * (f32 as floats, f64 and i64 as Vals) reads nothing: the register points
 * at them. */
static bool alias(W *w, int r, const unsigned char *at, DType dt)
{
	if (dt != ATHENE_F32 && dt != ATHENE_F64 && dt != ATHENE_I64)
		return false;
	if ((uintptr_t)at % athene_dtype_size(dt))
		return false;
	w->rp[r] = (Val *)(uintptr_t)at; /* only read through: registers are SSA */
	return true;
}

/* Lane l of register src (floats: both hold floats) into lanes 0..n-1 of
 * d, which may be src. The value is read once: a loop that read it at
 * every step could not be vectorised (its stores might change it), and
 * took 38 % of a LayerNorm. */
HOT static void spread(Val *d, const Val *src, int l, bool fl, int n)
{
	if (fl) {
		float v = ((const float *)src)[l], *f = (float *)d;
		for (int i = 0; i < n; i++)
			f[i] = v;
	} else {
		Val v = src[l];
		for (int i = 0; i < n; i++)
			d[i] = v;
	}
}

static const Val *arg(W *w, int s, int r)
{
	int rs = w->x->p->ins[r].scope;
	if (rs == s)
		return regv(w, r);
	Val *sp = &w->splat[(size_t)r * REG_STRIDE];
	spread(sp, regv(w, r), w->lane[rs], flt_reg(w->x, r), w->lanes[s]);
	return sp;
}

static const float *argf(W *w, int s, int r)
{
	return (const float *)arg(w, s, r);
}

/* Lane l of register r seen from scope s, as a Val (f32 as a double). */
static Val get(W *w, int s, int r, int l)
{
	int rs = w->x->p->ins[r].scope;
	int ll = rs == s ? l : w->lane[rs];
	if (flt_reg(w->x, r))
		return (Val){.f = regf(w, r)[ll]};
	return regv(w, r)[ll];
}

static void put(W *w, int r, int l, Val v)
{
	if (flt_reg(w->x, r))
		regf(w, r)[l] = (float)v.f;
	else
		regv(w, r)[l] = v;
}

/* The dims of scope s's units, in order (*n of them): its own, or in a
 * batched reduction's unit scope 0's first (reduce_batch). */
static inline const int *scope_dims(const W *w, int s, int *n)
{
	if (s && s == w->bscope) {
		*n = w->bnsd;
		return w->bsd;
	}
	*n = w->x->nsd[s];
	return w->x->sd[s];
}

/* Sets the coordinates of scope s's varying dims to lane l of its unit. */
static void lane_coords(W *w, int s, int l)
{
	const XBox *u = w->unit[s];
	int nsd;
	const int *sd = scope_dims(w, s, &nsd);
	for (int k = nsd - 1; k >= w->ustart[s]; k--) {
		int d = sd[k];
		int64_t ext = u->hi[d] - u->lo[d];
		w->coord[d] = u->lo[d] + l % ext;
		l = (int)(l / ext);
	}
}

static void var_values(W *w)
{
	const X *x = w->x;
	for (int i = 0; i < x->ps->nvars; i++)
		w->val[x->ps->vars[i].var->id] = 0;
	for (int k = 0; k < x->nd; k++)
		w->val[x->ps->vars[x->d[k].var].var->id] += w->coord[k] * x->d[k].place;
}

static int64_t position(W *w)
{
	const Stmt *st = w->x->pd->stmt;
	int64_t pos = 0;
	for (int d = 0; d < st->nlhs; d++)
		pos += w->val[st->lhs[d]->id] * w->x->pstride[d];
	return pos;
}

/* Element offset of operand o at the current coordinates (dims of scope s
 * from the unit's first lane). */
static int64_t unit_offset(const W *w, const XOp *o)
{
	int64_t off = o->start;
	for (int k = 0; k < w->x->nd; k++)
		off += w->coord[k] * o->stride[k];
	return off;
}

/* Shape and byte strides of the unit of scope s, over its varying dims. */
static int unit_shape(const W *w, int s, const XOp *o, int64_t *shape, int64_t *stride)
{
	int n = 0, nsd;
	const int *sd = scope_dims(w, s, &nsd);
	for (int k = w->ustart[s]; k < nsd; k++) {
		int d = sd[k];
		shape[n] = w->unit[s]->hi[d] - w->unit[s]->lo[d];
		stride[n++] = o->stride[d] * (int64_t)o->es;
	}
	return n;
}

/* Is a box with strides ss laid out like the dense strides ds (dims of
 * extent 1 aside)? */
static bool contiguous(const int64_t *shape, const int64_t *ss, const int64_t *ds, int n)
{
	for (int k = 0; k < n; k++)
		if (shape[k] > 1 && ss[k] != ds[k])
			return false;
	return true;
}

static void dense(const int64_t *shape, int n, size_t es, int64_t *stride)
{
	int64_t s = (int64_t)es;
	for (int k = n - 1; k >= 0; k--) {
		stride[k] = s;
		s *= shape[k];
	}
}

/* Reports the subscript `sub` of load ins, held in register r, out of
 * range at lane l of scope s (with the raw value and modulus of a wrap). */
static void subscript_error(W *w, int s, const Ins *ins, const Node *sub, int r, int l)
{
	const X *x = w->x;
	int64_t value = arg(w, s, r)[l].i, raw = value, m = 0;
	int wr = wrap_of_reg(x->p, r);
	if (wr >= 0) {
		raw = arg(w, s, x->p->ins[wr].a[0])[l].i;
		m = arg(w, s, x->p->ins[wr].a[1])[l].i;
	}
	lane_coords(w, s, l);
	var_values(w);
	exec_index_error(x->err, x->in, x->pd->stmt, w->val, position(w), ins->src, sub, value, raw, m);
	w->bad = true;
}

static void atom_error(W *w, int s, const Ins *ins, int k, int l)
{
	subscript_error(w, s, ins, ins->atom[k]->p, ins->atom_reg[k], l);
}

typedef struct {
	const Ins *ins;
	const Val *const *atoms;
	int l;
	const int64_t *val;
} LaneEnv;

static int lane_leaf(void *env, const Sym *s, int64_t *out)
{
	const LaneEnv *e = env;
	if (s->kind == S_VAR) {
		*out = e->val[((const Var *)s->p)->id];
		return SYM_OK;
	}
	for (int k = 0; k < e->ins->natoms; k++)
		if (e->ins->atom[k] == s) {
			*out = e->atoms[k][e->l].i;
			return SYM_OK;
		}
	return SYM_EOVF;
}

static void point_lanes(W *w, int s, const Ins *ins, Val *r);
static void eval_box(W *w, int s, const XBox *b, int acc, Red *red);
static void store_unit(W *w);

/* Element offset of the current coordinates in the dense scope-0 box. */
static int64_t dense_offset(const W *w)
{
	const X *x = w->x;
	int64_t off = 0;
	for (int k = 0; k < x->nsd[0]; k++) {
		int d = x->sd[0][k];
		off += (w->coord[d] - w->box0->lo[d]) * w->dense0[d];
	}
	return off;
}

/* The part a masked operand reads of the box at the current coordinates
 * whose dims dims[0..n) take shape[] positions: 0 when it is all padding,
 * 1 when it reads it all, 2 when it reads the sub-box from skip[] of
 * extents shape[] (narrowed). */
static int mask_clip(const W *w, const XOp *o, const int *dims, int n, int64_t *shape, int64_t *skip)
{
	int part = 1;
	for (int p = 0; p < n; p++)
		skip[p] = 0;
	for (int k = 0; k < w->x->nd; k++) {
		if (!o->mk[k])
			continue;
		int p = 0;
		while (p < n && dims[p] != k)
			p++;
		int64_t lo = w->coord[k], hi = lo + (p < n ? shape[p] : 1) - 1;
		if (hi < o->mlo[k] || lo > o->mhi[k])
			return 0;
		if (lo >= o->mlo[k] && hi <= o->mhi[k])
			continue;
		if (p == n)
			return 0; /* unreachable: a fixed coordinate is inside or outside */
		skip[p] = lo < o->mlo[k] ? o->mlo[k] - lo : 0;
		shape[p] = (hi < o->mhi[k] ? hi : o->mhi[k]) - (lo + skip[p]) + 1;
		part = 2;
	}
	return part;
}

/* Copies the box of masked operand o at element offset off (of the box's
 * first position, maybe padding), dims dims[0..n) of extents shape[] and
 * byte strides ss[], into the dense dst (byte strides ds[]): the values it
 * reads, and those of its second piece if it is rolled, zeros in the
 * padding. False when its first piece reads all of the box. */
static bool mask_copy(const W *w, const XOp *o, const int *dims, int n, const int64_t *shape, const int64_t *ss,
                      const int64_t *ds, int64_t off, unsigned char *dst)
{
	int64_t sub[XMAXD], skip[XMAXD], qs[XMAXD], bytes = (int64_t)o->es;
	memcpy(sub, shape, (size_t)n * sizeof *sub);
	int part = mask_clip(w, o, dims, n, sub, skip);
	if (part == 1)
		return false;
	for (int p = 0; p < n; p++)
		bytes *= shape[p];
	memset(dst, 0, (size_t)bytes);
	for (const XOp *q = o; q; q = q->piece) {
		if (q != o) { /* the second piece: its own offset, strides and mask */
			memcpy(sub, shape, (size_t)n * sizeof *sub);
			part = mask_clip(w, q, dims, n, sub, skip);
			off = unit_offset(w, q);
			for (int p = 0; p < n; p++)
				qs[p] = q->stride[dims[p]] * (int64_t)q->es;
			ss = qs;
		}
		if (part == 0)
			continue;
		int64_t from = off * (int64_t)q->es;
		unsigned char *to = dst;
		for (int p = 0; p < n; p++) {
			from += skip[p] * ss[p];
			to += skip[p] * ds[p];
		}
		box_copy((char *)to, ds, q->base + from, ss, sub, n, q->es, 0, false);
	}
	return true;
}

/* Stages operand j of load `ins` for the unit of scope s into r. */
static void load_lanes(W *w, int s, const Ins *ins, Val *r)
{
	const X *x = w->x;
	const XOp *o = &x->op[ins->operand];
	if (o->point) {
		point_lanes(w, s, ins, r);
		return;
	}
	lane_coords(w, s, 0);
	if (s == 0 && w->stage[ins->operand]) {
		const unsigned char *at = w->stage[ins->operand] + dense_offset(w) * (int64_t)o->es;
		if (!alias(w, (int)(ins - x->p->ins), at, o->dt))
			to_lanes(r, at, o->dt, w->lanes[s]);
		return;
	}
	int64_t off = unit_offset(w, o), shape[XMAXD], ss[XMAXD], ds[XMAXD];
	const View *v = o->op->view;
	for (int g = 0; g < v->ngat; g++) {
		const VAxis *a = &v->ax[v->gat[g].axis];
		int k = 0; /* the analysis rebuilt its atoms: the same subscript node */
		while (k < ins->natoms && ins->atom[k]->p != v->gat[g].atom->p)
			k++;
		if (k == ins->natoms)
			die("a gathered atom that is no atom of its load");
		const Val *av = arg(w, s, ins->atom_reg[k]);
		for (int l = 1; l < w->lanes[s]; l++)
			if (av[l].i != av[0].i) {
				point_lanes(w, s, ins, r); /* the row changes inside the unit */
				return;
			}
		const Sym *at = v->gat[g].atom;
		if (av[0].i < at->lo || av[0].i > at->hi) {
			point_lanes(w, s, ins, r); /* reports it as the interpreter does */
			return;
		}
		off += (a->start + a->step * (av[0].i - at->lo)) * a->stride;
	}
	int n = unit_shape(w, s, o, shape, ss);
	dense(shape, n, o->es, ds);
	int nsd;
	if (o->masked && mask_copy(w, o, scope_dims(w, s, &nsd) + w->ustart[s], n, shape, ss, ds, off, w->tmp)) {
		to_lanes(r, w->tmp, o->dt, w->lanes[s]);
		return;
	}
	const unsigned char *src = (const unsigned char *)o->base + off * (int64_t)o->es;
	bool one = true; /* every lane reads the same element: a let of a row read along it */
	for (int k = 0; k < n; k++)
		one &= ss[k] == 0 || shape[k] == 1;
	if (one) {
		to_lanes(r, src, o->dt, 1);
		spread(r, r, 0, floats(o->dt), w->lanes[s]);
		return;
	}
	if (contiguous(shape, ss, ds, n)) {
		/* the next unit is most often the bytes after this one: fetched
		 * while this one computes, where that pays (seq_prefetch_pays:
		 * not on a Zen 4, where i32 and f64 adds and an f32-to-f64 cast
		 * of 256 MiB ran 1.11-1.38x faster without, measured alternating) */
		size_t bytes = (size_t)w->lanes[s] * o->es;
		if (bytes >= 1024 && seq_prefetch_pays())
			for (size_t q = 0; q < bytes; q += 64) /* a hint: never faults */
				__builtin_prefetch((const void *)((uintptr_t)src + bytes + q));
		if (!alias(w, (int)(ins - x->p->ins), src, o->dt))
			to_lanes(r, src, o->dt, w->lanes[s]); /* read in place */
		return;
	}
	if (o->dt == ATHENE_F32 || o->dt == ATHENE_F64 || o->dt == ATHENE_I64) { /* laid out as the register */
		box_copy((char *)r, ds, (const char *)src, ss, shape, n, o->es, 0, false);
		return;
	}
	box_copy((char *)w->tmp, ds, (const char *)src, ss, shape, n, o->es, 0, false);
	to_lanes(r, w->tmp, o->dt, w->lanes[s]);
}

/* Point by point through the flat offset: element gathers and the rest. */
static void point_lanes(W *w, int s, const Ins *ins, Val *r)
{
	const X *x = w->x;
	const Access *ac = x->pd->acc.v[ins->operand];
	const XOp *o = &x->op[ins->operand];
	const Val *guard = ins->guard >= 0 ? arg(w, s, ins->guard) : NULL;
	const Val *atoms[VIEW_MAXDIG];
	int64_t storage = tensor_layout(x->in, ac->t)->storage, off;
	for (int k = 0; k < ins->natoms && k < VIEW_MAXDIG; k++)
		atoms[k] = arg(w, s, ins->atom_reg[k]);
	for (int l = 0; l < w->lanes[s] && !w->bad; l++) {
		put(w, (int)(ins - x->p->ins), l, (Val){0});
		if (guard && !guard[l].i)
			continue;
		for (int k = 0; k < ins->natoms && !w->bad; k++)
			if (atoms[k][l].i < ins->atom[k]->lo || atoms[k][l].i > ins->atom[k]->hi)
				atom_error(w, s, ins, k, l);
		for (int c = 0; c < ins->nchecks && !w->bad; c++)
			if (!in_dim(x->in, ins, c, arg(w, s, ins->check_reg[c])[l].i))
				subscript_error(w, s, ins, ins->src->args[ins->check_dim[c]], ins->check_reg[c], l);
		if (w->bad)
			break;
		lane_coords(w, s, l);
		var_values(w);
		LaneEnv env = {ins, atoms, l, w->val};
		if (sym_eval(ac->off, lane_leaf, &env, &off)) {
			run_error(x->err, position(w), ins->src->sp, "index arithmetic overflows 64 bits");
			w->bad = true;
		} else if (off < 0 || off >= storage) {
			exec_index_error(x->err, x->in, x->pd->stmt, w->val, position(w), ins->src, NULL, off, off, 0);
			w->bad = true;
		} else if (dt_is_float(o->dt)) {
			put(w, (int)(ins - x->p->ins), l, (Val){.f = dt_load_f(o->base, o->dt, off)});
		} else {
			r[l].i = dt_load_i(o->base, o->dt, off);
		}
	}
}

/* ---- instructions over lanes ---- */

/* Float lanes rounded to f16 or bf16 (their registers hold floats). */
HOT static void round_lanes(float *f, DType t, int n)
{
	if (t == ATHENE_F16)
		for (int i = 0; i < n; i++)
			f[i] = f16_round_f(f[i]);
	else if (t == ATHENE_BF16)
		for (int i = 0; i < n; i++)
			f[i] = bf16_round_f(f[i]);
}

/* Integer lanes wrapped to dtype t (dt_wrap_int), one loop per dtype. */
HOT static void wrap_lanes(Val *r, DType t, int n)
{
	int64_t *v = (int64_t *)r; /* the lanes' integers: gcc 12 vectorises no in-place loop over a union member */
	switch (t) {
	case ATHENE_I8: for (int i = 0; i < n; i++) v[i] = (int8_t)(uint8_t)(uint64_t)v[i]; break;
	case ATHENE_I16: for (int i = 0; i < n; i++) v[i] = (int16_t)(uint16_t)(uint64_t)v[i]; break;
	case ATHENE_I32: for (int i = 0; i < n; i++) v[i] = (int32_t)(uint32_t)(uint64_t)v[i]; break;
	case ATHENE_U8: for (int i = 0; i < n; i++) v[i] = (uint8_t)(uint64_t)v[i]; break;
	default: break;
	}
}

/* A one-argument float function (exp, log, tanh, ...: K_FLOAT) over f32
 * lanes: in double, rounded once to float, as val_op. exp, sigmoid, log,
 * tanh and sqrt go through their vector forms in pw.c (libm's bits,
 * vectorised where the rounding is sure), the others through val_fop1.
 * False for any other op. (Over 8192² f32 on an Intel Xeon, against val_op
 * per lane: exp 1.7 to 4.7 GB/s with a libm loop, to 7.1 with exp_floats.) */
static bool float_fn_lanes(int op, float *r, const float *a, int n)
{
	if (op_info[op].kind != K_FLOAT || op_info[op].arity != 1)
		return false;
	switch (op) {
	case OP_EXP: exp_floats(r, a, n); break;
	case OP_SIGMOID: sigmoid_floats(r, a, n); break;
	case OP_LOG: log_floats(r, a, n); break;
	case OP_TANH: tanh_floats(r, a, n); break;
	case OP_ERF: erf_floats(r, a, n); break;
	case OP_SQRT: sqrt_floats(r, a, n); break;
	default: for (int i = 0; i < n; i++) r[i] = (float)val_fop1(op, (double)a[i]); break;
	}
	return true;
}

/* The same over f64 lanes (no rounding: val_op's f64 is the double). */
static bool double_fn_lanes(int op, Val *r, const Val *a, int n)
{
	if (op_info[op].kind != K_FLOAT || op_info[op].arity != 1)
		return false;
	for (int i = 0; i < n; i++)
		r[i].f = val_fop1(op, a[i].f);
	return true;
}

/* The common float and integer ops as plain loops; the rest through the
 * interpreter's scalar semantics (val_op), which they must equal. */
HOT static bool fast_op(const Ins *x, Val *r, const Val *a, const Val *b, int n)
{
	DType t = x->opdt;
	if (floats(t)) { /* float registers; exact: IEEE rounds each of + - * / once (f16, bf16: see floats) */
		float *rf = (float *)r;
		const float *af = (const float *)a, *bf = (const float *)b;
		switch (x->op) {
		case OP_ADD: for (int i = 0; i < n; i++) rf[i] = af[i] + bf[i]; break;
		case OP_SUB: for (int i = 0; i < n; i++) rf[i] = af[i] - bf[i]; break;
		case OP_MUL: for (int i = 0; i < n; i++) rf[i] = af[i] * bf[i]; break;
		case OP_DIV: for (int i = 0; i < n; i++) rf[i] = af[i] / bf[i]; break;
		case OP_NEG: for (int i = 0; i < n; i++) rf[i] = -af[i]; return true;
		case OP_RELU: for (int i = 0; i < n; i++) rf[i] = af[i] > 0 || af[i] != af[i] ? af[i] : 0.0f; return true;
		case OP_MAX: for (int i = 0; i < n; i++) rf[i] = af[i] != af[i] || bf[i] != bf[i] ? NAN : af[i] > bf[i] ? af[i] : bf[i]; return true;
		case OP_MIN: for (int i = 0; i < n; i++) rf[i] = af[i] != af[i] || bf[i] != bf[i] ? NAN : af[i] < bf[i] ? af[i] : bf[i]; return true;
		case OP_LT: for (int i = 0; i < n; i++) r[i].i = af[i] < bf[i]; return true;
		case OP_GT: for (int i = 0; i < n; i++) r[i].i = af[i] > bf[i]; return true;
		/* exact in float: the same value as in double, and the dtype's own (an
		 * integer as large as a value of the dtype fits it) */
		case OP_ABS: for (int i = 0; i < n; i++) rf[i] = fabsf(af[i]); return true;
		case OP_FLOOR: for (int i = 0; i < n; i++) rf[i] = floorf(af[i]); return true;
		case OP_CEIL: for (int i = 0; i < n; i++) rf[i] = ceilf(af[i]); return true;
		case OP_TRUNC: for (int i = 0; i < n; i++) rf[i] = truncf(af[i]); return true;
		case OP_ROUND: for (int i = 0; i < n; i++) rf[i] = nearbyintf(af[i]); return true;
		default: return t == ATHENE_F32 && float_fn_lanes(x->op, rf, af, n);
		}
		round_lanes(rf, t, n); /* + - * / */
		return true;
	}
	if (t == ATHENE_F64) { /* in double (val_op) */
		switch (x->op) {
		case OP_ADD: for (int i = 0; i < n; i++) r[i].f = a[i].f + b[i].f; break;
		case OP_SUB: for (int i = 0; i < n; i++) r[i].f = a[i].f - b[i].f; break;
		case OP_MUL: for (int i = 0; i < n; i++) r[i].f = a[i].f * b[i].f; break;
		case OP_DIV: for (int i = 0; i < n; i++) r[i].f = a[i].f / b[i].f; break;
		case OP_NEG: for (int i = 0; i < n; i++) r[i].f = -a[i].f; break;
		case OP_RELU: for (int i = 0; i < n; i++) r[i].f = isnan(a[i].f) || a[i].f > 0 ? a[i].f : 0.0; break;
		case OP_LT: for (int i = 0; i < n; i++) r[i].i = a[i].f < b[i].f; return true;
		case OP_GT: for (int i = 0; i < n; i++) r[i].i = a[i].f > b[i].f; return true;
		default: return double_fn_lanes(x->op, r, a, n);
		}
		return true;
	}
	if (!dt_is_float(t) && op_info[x->op].kind == K_CMP) { /* integer lanes hold their values in .i */
		switch (x->op) {
		case OP_EQ: for (int i = 0; i < n; i++) r[i].i = a[i].i == b[i].i; return true;
		case OP_NE: for (int i = 0; i < n; i++) r[i].i = a[i].i != b[i].i; return true;
		case OP_LT: for (int i = 0; i < n; i++) r[i].i = a[i].i < b[i].i; return true;
		case OP_LE: for (int i = 0; i < n; i++) r[i].i = a[i].i <= b[i].i; return true;
		case OP_GT: for (int i = 0; i < n; i++) r[i].i = a[i].i > b[i].i; return true;
		default: for (int i = 0; i < n; i++) r[i].i = a[i].i >= b[i].i; return true;
		}
	}
	if (op_info[x->op].kind == K_LOGIC) { /* bool lanes: 0 or 1 */
		switch (x->op) {
		case OP_AND: for (int i = 0; i < n; i++) r[i].i = a[i].i & b[i].i; return true;
		case OP_OR: for (int i = 0; i < n; i++) r[i].i = a[i].i | b[i].i; return true;
		default: for (int i = 0; i < n; i++) r[i].i = !a[i].i; return true;
		}
	}
	if (dt_is_int(t) && t != ATHENE_BOOL) { /* in 64 bits, then wrapped to the dtype (val_op) */
		switch (x->op) {
		case OP_ADD: for (int i = 0; i < n; i++) r[i].i = (int64_t)((uint64_t)a[i].i + (uint64_t)b[i].i); break;
		case OP_SUB: for (int i = 0; i < n; i++) r[i].i = (int64_t)((uint64_t)a[i].i - (uint64_t)b[i].i); break;
		case OP_MUL: for (int i = 0; i < n; i++) r[i].i = (int64_t)((uint64_t)a[i].i * (uint64_t)b[i].i); break;
		case OP_MIN: for (int i = 0; i < n; i++) r[i].i = a[i].i < b[i].i ? a[i].i : b[i].i; return true;
		case OP_MAX: for (int i = 0; i < n; i++) r[i].i = a[i].i > b[i].i ? a[i].i : b[i].i; return true;
		default: return false;
		}
		wrap_lanes(r, t, n);
		return true;
	}
	return false;
}

/* where(c, a, b) over n lanes: f32 lanes as floats, the others as Vals. */
HOT static void where_lanes(Val *r, const Val *c, const Val *a, const Val *b, bool f32, int n)
{
	if (f32) {
		float *rf = (float *)r;
		const float *af = (const float *)a, *bf = (const float *)b;
		for (int i = 0; i < n; i++)
			rf[i] = c[i].i ? af[i] : bf[i];
	} else {
		int64_t *ri = (int64_t *)r;
		const int64_t *ai = (const int64_t *)a, *bi = (const int64_t *)b;
		for (int i = 0; i < n; i++) /* the bits of a Val, whatever it holds */
			ri[i] = c[i].i ? ai[i] : bi[i];
	}
}

/* The lanes of an index variable: its value at the first lane (ramp_lanes),
 * plus q·place at the q-th of every `ext` steps of `run` lanes (ramp_add,
 * once per varying dim of the variable). */
HOT static void ramp_lanes(Val *r, int64_t base, int n)
{
	for (int l = 0; l < n; l++)
		r[l].i = base;
}

HOT static void ramp_add(Val *r, int n, int ext, int run, int64_t place)
{
	int64_t *v = (int64_t *)r; /* as wrap_lanes */
	if (run == 1) { /* the innermost varying dim: a ramp along each row */
		for (int l = 0; l < n; l += ext)
			for (int q = 1; q < ext; q++)
				v[l + q] += q * place;
		return;
	}
	for (int l = 0; l < n; l += run * ext)
		for (int q = 1; q < ext; q++)
			for (int m = 0; m < run; m++)
				v[l + q * run + m] += q * place;
}

static void op_lanes(W *w, int s, const Ins *x, Val *r)
{
	const Val *a[3] = {NULL, NULL, NULL};
	int n = w->lanes[s];
	for (int k = 0; k < x->nargs; k++)
		a[k] = arg(w, s, x->a[k]);
	if (!x->exact && x->nargs <= 2 && fast_op(x, r, a[0], a[1] ? a[1] : a[0], n))
		return;
	if (x->op == OP_WHERE) { /* its branches are cast to its dtype, its condition to bool */
		where_lanes(r, a[0], a[1], a[2], flt_reg(w->x, (int)(x - w->x->p->ins)), n);
		return;
	}
	DType t = op_info[x->op].kind == K_PRED ? w->x->p->ins[x->a[0]].dt : x->opdt;
	const Val *guard = x->guard >= 0 ? arg(w, s, x->guard) : NULL;
	bool checked = x->exact || x->op == OP_WRAP;
	int dst = (int)(x - w->x->p->ins);
	Val v[3], res;
	for (int i = 0; i < n; i++) {
		const char *why;
		Span sp;
		for (int k = 0; k < x->nargs; k++)
			v[k] = get(w, s, x->a[k], i);
		res = val_op(x->op, t, v);
		bool failed = checked && (!guard || guard[i].i) && !checked_op(x, v, &res, &why, &sp);
		put(w, dst, i, res);
		if (failed) {
			lane_coords(w, s, i);
			var_values(w);
			op_failed(w->x->err, w->x->in, w->x->pd->stmt, w->val, position(w), why, sp);
			w->bad = true;
			return;
		}
	}
}

#define STREAM_LANES 256 /* lanes computed, then streamed, at a time */

/* Is the result an f32 op of scope 0 that op_stream can write straight
 * into a big f32 output? */
static bool stream_result(const X *x)
{
	const Ins *r = &x->p->ins[x->p->result];
	return x->stream && x->p->out == ATHENE_F32 && r->kind == I_OP && r->dt == ATHENE_F32 && r->scope == 0 &&
	       !r->exact && r->nargs <= 2 && r->guard < 0;
}

/* The result op of scope 0 (stream_result) straight into the output, when
 * the unit's rows (all its dims but the first) are contiguous there and the
 * result is not staged: STREAM_LANES lanes computed, then streamed out, at
 * a time, so the output is never read and the op's reads and the writes
 * overlap. False when it does not apply (the caller evaluates the op as
 * usual). */
static bool op_stream(W *w, const Ins *x, Val *r)
{
	const X *xs = w->x;
	const XOp *o = &xs->op[0];
	int n = w->lanes[0];
	if ((int)(x - xs->p->ins) != xs->p->result || !stream_result(xs) || w->stage[0])
		return false;
	int64_t shape[XMAXD], ds[XMAXD], ss[XMAXD];
	lane_coords(w, 0, 0);
	int nd = unit_shape(w, 0, o, shape, ds);
	dense(shape, nd, o->es, ss);
	int64_t rows = 1, pitch = 0;
	if (nd > 0 && !contiguous(shape, ds, ss, nd)) {
		if (!contiguous(shape + 1, ds + 1, ss + 1, nd - 1))
			return false;
		rows = shape[0];
		pitch = ds[0];
	}
	int len = (int)(n / rows); /* lanes of a row */
	if (rows > 1 && (len % 2 || len < 16))
		return false; /* rows would cut lines, or leave floats unaligned for Vals */
	unsigned char *out = (unsigned char *)o->base + unit_offset(w, o) * (int64_t)o->es;
	const float *a = argf(w, 0, x->a[0]), *b = x->nargs > 1 ? argf(w, 0, x->a[1]) : a;
	float *rf = (float *)r;
	int sop = x->op == OP_ADD ? SOP_ADD : x->op == OP_SUB ? SOP_SUB : x->op == OP_MUL ? SOP_MUL :
	          x->op == OP_DIV ? SOP_DIV : x->op == OP_NEG ? SOP_NEG : x->op == OP_RELU ? SOP_RELU : -1;
	if (sop >= 0) { /* in vector registers, straight to the output */
		for (int64_t q = 0; q < rows; q++)
			stream_op_f32(sop, out + q * pitch, a + q * len, b + q * len, len);
		w->stored = true;
		return true;
	}
	for (int64_t q = 0; q < rows; q++)
		for (int c = 0; c < len; c += STREAM_LANES) {
			int m = len - c < STREAM_LANES ? len - c : STREAM_LANES, at = (int)q * len + c;
			/* at is even: the Vals stay aligned */
			if (!fast_op(x, (Val *)(rf + at), (const Val *)(a + at), (const Val *)(b + at), m))
				return false; /* not a plain loop: at the first, nothing done yet */
			copy_stream_nofence(out + q * pitch + (int64_t)c * (int64_t)sizeof(float), rf + at,
			                    (size_t)m * sizeof(float));
		}
	w->stored = true;
	return true;
}

static void cast_lanes(W *w, int s, const Ins *x, Val *r)
{
	DType from = w->x->p->ins[x->a[0]].dt;
	int n = w->lanes[s], dst = (int)(x - w->x->p->ins);
	if (from == ATHENE_F32 && x->dt == ATHENE_F64) {
		const float *a = argf(w, s, x->a[0]);
		for (int i = 0; i < n; i++)
			r[i].f = a[i];
	} else if (from == ATHENE_F64 && x->dt == ATHENE_F32) {
		const Val *a = arg(w, s, x->a[0]);
		for (int i = 0; i < n; i++)
			((float *)r)[i] = (float)a[i].f;
	} else if (floats(from) && floats(x->dt)) { /* float registers: exact in float, then rounded once */
		memcpy(r, argf(w, s, x->a[0]), (size_t)n * sizeof(float));
		round_lanes((float *)r, x->dt, n);
	} else {
		for (int i = 0; i < n; i++)
			put(w, dst, i, val_convert(get(w, s, x->a[0], i), from, x->dt));
	}
}

static void bitcast_lanes(W *w, int s, const Ins *x, Val *r)
{
	DType from = w->x->p->ins[x->a[0]].dt;
	int n = w->lanes[s], dst = (int)(x - w->x->p->ins);
	(void)r;
	for (int i = 0; i < n; i++)
		put(w, dst, i, val_bitcast(get(w, s, x->a[0], i), from, x->dt));
}

static void run_unit(W *w, int s);
static void red_fold(Red *red, W *w, int s, int acc, int from, int n);

/* Sets the dims of PlanVar i in box b to the single value v. */
static void fix_value(const X *x, int i, int64_t v, XBox *b)
{
	for (int k = 0; k < x->nd; k++)
		if (x->d[k].var == i) {
			bool top = k == 0 || x->d[k - 1].var != i;
			int64_t q = v / x->d[k].place;
			b->lo[k] = top ? q : q % x->d[k].n;
			b->hi[k] = b->lo[k] + 1;
		}
}

/* The whole domain of reduction scope c, in row-major order of its
 * variables: a variable whose digits do not tile its range (a partial top
 * digit) takes several boxes, and then the variables before it are stepped
 * one value at a time, so that no value is visited out of order or twice. */
static void reduce_domain(W *w, int c, int acc, Red *red)
{
	const X *x = w->x;
	const Scope *sc = &x->p->scopes[c];
	int vars[MAXSCOPE], nv = 0, last = -1;
	int64_t n[MAXSCOPE];
	XBox box, vb[XMAXBOX];
	for (int j = 0; j < sc->nvars; j++)
		for (int i = 0; i < x->ps->nvars; i++)
			if (x->ps->vars[i].var == sc->vars[j] && nv < MAXSCOPE) {
				n[nv] = x->ps->vars[i].n;
				vars[nv++] = i;
			}
	for (int j = 0; j < nv; j++) {
		if (n[j] == 0)
			return; /* an empty range */
		if (var_boxes(x, vars[j], 0, n[j], vb, XMAXBOX) > 1)
			last = j;
	}
	for (int j = last + 1; j < nv; j++)
		var_boxes(x, vars[j], 0, n[j], &box, 1); /* its one box, straight into the box */
	int64_t val[MAXSCOPE] = {0};
	for (;;) {
		for (int j = 0; j < last; j++)
			fix_value(x, vars[j], val[j], &box);
		int nb = last >= 0 ? var_boxes(x, vars[last], 0, n[last], vb, XMAXBOX) : 1;
		for (int b = 0; b < nb && !w->bad; b++) {
			if (last >= 0)
				copy_var(x, vars[last], &vb[b], &box);
			eval_box(w, c, &box, acc, red);
		}
		int j = last - 1;
		while (j >= 0 && ++val[j] == n[j])
			val[j--] = 0;
		if (j < 0 || w->bad)
			return;
	}
}
/* One step of a float reduction, as red_step takes it: sum and mean add
 * in double; max and min keep a NaN once they hold one, take a NaN, and
 * otherwise replace only on a strict win, so the first of equal values
 * (-0.0 before 0.0) stays. x != x is NaN; the compares are quiet ones and
 * all evaluated (& and |), so the loops vectorise. */
#define RED_SUM(a, v) ((a) + (v))
#define RED_MAX(a, v) (((a) == (a)) & (((v) != (v)) | __builtin_isgreater(v, a)) ? (v) : (a))
#define RED_MIN(a, v) (((a) == (a)) & (((v) != (v)) | __builtin_isless(v, a)) ? (v) : (a))
#define RED_MAX1(a, v) (!isnan(a) && (isnan(v) || (v) > (a)) ? (v) : (a)) /* one lane at a time: branches */
#define RED_MIN1(a, v) (!isnan(a) && (isnan(v) || (v) < (a)) ? (v) : (a))

/* The inner domain of a fast reduction: nk dims, the last fastest, each
 * of ext[k] points st[k] elements apart. */
typedef struct {
	int nk;
	int64_t ext[XMAXD], st[XMAXD], total;
} RDom;

/* Steps *off (and idx) to the domain's next row: an odometer over all
 * dims but the last; false after the last row. */
static inline bool rdom_next_row(const RDom *r, int64_t *idx, int64_t *off)
{
	for (int k = r->nk - 2; k >= 0; k--) {
		*off += r->st[k];
		if (++idx[k] < r->ext[k])
			return true;
		*off -= r->ext[k] * r->st[k];
		idx[k] = 0;
	}
	return false;
}

/* acc[l] = lane l's reduction (n lanes, lane l's first element at base +
 * l·ls) over the domain, every lane in the domain's order (first: max or
 * min, which start from the first value, else a sum from 0): one pass over the domain's
 * rows with all lanes at each point (the lanes are the contiguous side). */
#define RED_LANES(NAME, T, A, OP)                                                                     \
	HOT static void NAME(double *acc, const T *base, int64_t ls, int n, const RDom *r, bool first) \
	{                                                                                             \
		int64_t idx[XMAXD] = {0}, off = 0, last = r->ext[r->nk - 1], st = r->st[r->nk - 1];   \
		A a[VM_LANES];                                                                        \
		for (int l = 0; l < n; l++)                                                           \
			a[l] = 0; /* sum's start; max and min take the first row */                  \
		do {                                                                                  \
			for (int64_t i = 0; i < last; i++) {                                          \
				const T *p = base + off + i * st;                                      \
				if (first) {                                                          \
					for (int l = 0; l < n; l++)                                   \
						a[l] = p[l * ls];                                     \
					first = false;                                                \
				} else if (ls == 1) {                                                 \
					for (int l = 0; l < n; l++)                                   \
						a[l] = OP(a[l], (A)p[l]);                             \
				} else {                                                              \
					for (int l = 0; l < n; l++)                                   \
						a[l] = OP(a[l], (A)p[l * ls]);                        \
				}                                                                     \
			}                                                                             \
		} while (rdom_next_row(r, idx, &off));                                                \
		for (int l = 0; l < n; l++)                                                           \
			acc[l] = a[l];                                                                \
	}
/* Element i of the row at off of four lanes' domains, in four chains. */
#define RED_STEP4(OP, ST)                                                   \
	(a[0] = OP(a[0], (double)p[0][off + i * (ST)]), a[1] = OP(a[1], (double)p[1][off + i * (ST)]), \
	 a[2] = OP(a[2], (double)p[2][off + i * (ST)]), a[3] = OP(a[3], (double)p[3][off + i * (ST)]))
/* The same with each lane's domain walked on its own, four lanes at a time
 * (four chains of dependent adds in flight): lanes far apart (rows). */
#define RED_ROWS(NAME, T, OP)                                                                         \
	HOT static void NAME(double *acc, const T *base, const int64_t *lb, int n, const RDom *r, bool first) \
	{                                                                                             \
		int64_t last = r->ext[r->nk - 1], st = r->st[r->nk - 1];                              \
		for (int l0 = 0; l0 < n; l0 += 4) {                                                   \
			int m = n - l0 < 4 ? n - l0 : 4;                                              \
			const T *p[4];                                                                \
			double a[4];                                                                  \
			for (int q = 0; q < 4; q++)                                                   \
				p[q] = base + lb[l0 + (q < m ? q : 0)], a[q] = first ? (double)p[q][0] : 0; \
			int64_t idx[XMAXD] = {0}, off = 0;                                            \
			int64_t i = first ? 1 : 0;                                                    \
			do {                                                                          \
				if (st == 1) /* contiguous rows: 1.15-1.2x on a row sum */            \
					for (; i < last; i++)                                         \
						RED_STEP4(OP, 1);                                     \
				else                                                                  \
					for (; i < last; i++)                                         \
						RED_STEP4(OP, st);                                    \
				i = 0;                                                                \
			} while (rdom_next_row(r, idx, &off));                                        \
			for (int q = 0; q < m; q++)                                                   \
				acc[l0 + q] = a[q];                                                   \
		}                                                                                     \
	}
RED_LANES(red_lanes_sum_f32, float, double, RED_SUM)
RED_LANES(red_lanes_max_f32, float, float, RED_MAX)
RED_LANES(red_lanes_min_f32, float, float, RED_MIN)
RED_LANES(red_lanes_sum_f64, double, double, RED_SUM)
RED_LANES(red_lanes_max_f64, double, double, RED_MAX)
RED_LANES(red_lanes_min_f64, double, double, RED_MIN)
RED_ROWS(red_rows_sum_f32, float, RED_SUM)
RED_ROWS(red_rows_max_f32, float, RED_MAX1)
RED_ROWS(red_rows_min_f32, float, RED_MIN1)
RED_ROWS(red_rows_sum_f64, double, RED_SUM)
RED_ROWS(red_rows_max_f64, double, RED_MAX1)
RED_ROWS(red_rows_min_f64, double, RED_MIN1)
#undef RED_LANES
#undef RED_ROWS
#undef RED_STEP4
#undef RED_SUM
#undef RED_MAX
#undef RED_MIN
#undef RED_MAX1
#undef RED_MIN1

/* Is reduction scope c's domain non-empty with every variable one box
 * (reduce_domain's single-box case)? Then its dims' ranges go into box. */
static bool one_box_domain(const X *xs, int c, XBox *box)
{
	const Scope *sc = &xs->p->scopes[c];
	XBox vb[2];
	for (int j = 0; j < sc->nvars; j++) {
		int i = 0;
		while (i < xs->ps->nvars && xs->ps->vars[i].var != sc->vars[j])
			i++;
		if (i == xs->ps->nvars || xs->ps->vars[i].n <= 0 || var_boxes(xs, i, 0, xs->ps->vars[i].n, vb, 2) != 1)
			return false;
		copy_var(xs, i, &vb[0], box);
	}
	return true;
}

/* The domain's points when they are one contiguous run, else -1. */
static int64_t contiguous_run(const RDom *r)
{
	int64_t run = 1;
	for (int k = r->nk - 1; k >= 0; k--) {
		if (r->st[k] != run)
			return -1;
		run *= r->ext[k];
	}
	return run;
}

/* acc[l] = the sum of lane l's domain of floats, in its order from 0, in
 * double, when the domain is one contiguous run: sum_rows's vector chains,
 * sixteen rows at a time. False when it is not one run. */
static bool sum_runs(double *acc, const float *base, const int64_t *lb, int n, const RDom *r)
{
	int64_t run = contiguous_run(r);
	if (run < 0)
		return false;
	const float *p[VM_LANES];
	for (int l = 0; l < n; l++)
		acc[l] = 0, p[l] = base + lb[l];
	sum_rows(acc, p, run, n);
	return true;
}

/* acc[l] = the max (maxi) or min of lane l's domain of floats (n lanes,
 * lane l's first at base + lb[l]) when the domain is one contiguous run
 * and row_extreme finds each lane's extreme with vectors: no NaN, and not
 * zero, so that no order of the comparisons could change its bits. False,
 * having set nothing that counts, when some lane's is not found so. */
static bool extreme_rows(double *acc, const float *base, const int64_t *lb, int n, const RDom *r, bool maxi)
{
	int64_t run = contiguous_run(r);
	if (run < 0)
		return false;
	for (int l = 0; l < n; l++) {
		float m;
		if (!row_extreme(base + lb[l], run, maxi, &m))
			return false;
		acc[l] = m;
	}
	return true;
}

/* A reduction of scope 0 whose inner scope is one plain load of f32 or
 * f64 (no gather, mask or guard), reduced by sum, mean, max or min over a
 * non-empty domain whose every variable is one box: each lane's values
 * are taken in the domain's row-major order, as reduce_domain takes them,
 * into the same double accumulator, so the bits are the interpreter's;
 * but with the lanes side by side (a column sum reads rows, all its lanes
 * at once) or four lanes' chains of adds in flight (a row sum), instead
 * of a generic step per value. False when it does not apply. */
static bool reduce_fast(W *w, int s, const Ins *x)
{
	const X *xs = w->x;
	const Prog *p = xs->p;
	int c = x->inner, dst = (int)(x - p->ins);
	if (s != 0 || x->guard >= 0 || p->scopes[c].parent != 0 || (x->opdt != ATHENE_F32 && x->opdt != ATHENE_F64) ||
	    (x->op != R_SUM && x->op != R_MEAN && x->op != R_MAX && x->op != R_MIN))
		return false;
	const Ins *ld = &p->ins[x->a[0]];
	if (ld->kind != I_LOAD || ld->scope != c || ld->natoms || ld->nchecks || ld->guard >= 0 || ld->dt != x->opdt)
		return false;
	for (int i = 0; i < p->n; i++)
		if (p->ins[i].scope == c && i != x->a[0])
			return false;
	const XOp *o = &xs->op[ld->operand];
	if (o->point || o->masked || o->piece || o->op->view->ngat || o->dt != x->opdt)
		return false;
	XBox box;
	if (!one_box_domain(xs, c, &box))
		return false;
	RDom r = {.nk = xs->nsd[c], .total = 1};
	if (r.nk <= 0)
		return false;
	for (int k = 0; k < r.nk; k++) {
		int d = xs->sd[c][k];
		r.ext[k] = box.hi[d] - box.lo[d];
		r.st[k] = o->stride[d];
		r.total *= r.ext[k];
		w->coord[d] = box.lo[d]; /* the domain's first point, for unit_offset */
	}
	if (r.total <= 0)
		return false;
	int n = w->lanes[s];
	int64_t lb[VM_LANES]; /* each lane's first element */
	for (int l = 0; l < n; l++) {
		lane_coords(w, s, l);
		lb[l] = unit_offset(w, o);
	}
	int64_t ls = n > 1 ? lb[1] - lb[0] : 0;
	bool lanes = n > 1;
	for (int l = 2; l < n && lanes; l++)
		lanes = lb[l] - lb[l - 1] == ls;
	lanes = lanes && llabs(ls) < llabs(r.st[r.nk - 1]);
	double acc[VM_LANES];
	int op = x->op == R_MEAN ? R_SUM : x->op;
	bool f32 = o->dt == ATHENE_F32, first = op != R_SUM;
	bool runs = !lanes && f32 &&
		    (first ? extreme_rows(acc, (const float *)o->base, lb, n, &r, op == R_MAX)
			   : sum_runs(acc, (const float *)o->base, lb, n, &r));
	if (runs)
		; /* each lane's domain one contiguous run: done in vectors */
	else if (lanes && f32)
		(op == R_SUM ? red_lanes_sum_f32 : op == R_MAX ? red_lanes_max_f32 : red_lanes_min_f32)(
			acc, (const float *)o->base + lb[0], ls, n, &r, first);
	else if (lanes)
		(op == R_SUM ? red_lanes_sum_f64 : op == R_MAX ? red_lanes_max_f64 : red_lanes_min_f64)(
			acc, (const double *)o->base + lb[0], ls, n, &r, first);
	else if (f32)
		(op == R_SUM ? red_rows_sum_f32 : op == R_MAX ? red_rows_max_f32 : red_rows_min_f32)(
			acc, (const float *)o->base, lb, n, &r, first);
	else
		(op == R_SUM ? red_rows_sum_f64 : op == R_MAX ? red_rows_max_f64 : red_rows_min_f64)(
			acc, (const double *)o->base, lb, n, &r, first);
	for (int l = 0; l < n; l++) {
		Red red;
		Val v = {0};
		red_init(&red, x->op, x->opdt);
		red.f = acc[l];
		red.count = r.total;
		red_result(&red, x->dt, &v);
		put(w, dst, l, v);
	}
	return true;
}

/* A float sum or mean of a float register of the reduction's own scope,
 * not inside another such: reduce_chains applies. */
static bool chains_apply(const W *w, int s, const Ins *x)
{
	const Ins *a = &w->x->p->ins[x->a[0]];
	return w->chain_scope == 0 && w->lanes[s] > 1 && (x->op == R_SUM || x->op == R_MEAN) &&
	       dt_is_float(x->opdt) && a->scope == x->inner && floats(a->dt);
}

/* Lanes reduce_chains sums at once: their values (CHAIN_LANES rows of
 * 1024 f32, 32 KiB) stay in L1 between their evaluation and the sum (16
 * lanes were slower: 6.7 against 6.0 ms for RMSNorm's row sums of 8192 x
 * 1024 at one thread). */
#define CHAIN_LANES 8

/* d[q] += each lane's values in order: sum_rows's chains in flight side
 * by side when the lanes' domains are as long (a row's sum of x * x, of
 * exp(x - m)); the same adds in the same order as red_step. */
static void sum_chains(double *a, const float *const *p, const int64_t *len, int m)
{
	bool same = m > 0;
	for (int q = 1; q < m && same; q++)
		same = len[q] == len[0];
	if (same) {
		sum_rows(a, p, len[0], m);
		return;
	}
	for (int q = 0; q < m; q++)
		for (int64_t i = 0; i < len[q]; i++)
			a[q] += p[q][i];
}

/* reduce_lanes for chains_apply: each lane's domain evaluated as before,
 * in lane order (the same errors at the same lane), its values collected
 * (red_unit), and CHAIN_LANES lanes summed at once (sum_chains). */
static void reduce_chains(W *w, int s, const Ins *x)
{
	const X *xs = w->x;
	int c = x->inner, dst = (int)(x - xs->p->ins);
	const Val *guard = x->guard >= 0 ? arg(w, s, x->guard) : NULL;
	for (int l0 = 0; l0 < w->lanes[s] && !w->bad; l0 += CHAIN_LANES) {
		int m = 0, lane[CHAIN_LANES];
		Red red[CHAIN_LANES];
		int64_t start[CHAIN_LANES], len[CHAIN_LANES];
		w->chain_n = 0;
		w->chain_scope = c;
		for (int l = l0; l < l0 + CHAIN_LANES && l < w->lanes[s] && !w->bad; l++) {
			put(w, dst, l, (Val){0});
			if (guard && !guard[l].i)
				continue;
			red_init(&red[m], x->op, x->opdt);
			w->lane[s] = l;
			lane_coords(w, s, l);
			start[m] = w->chain_n;
			reduce_domain(w, c, x->a[0], &red[m]);
			len[m] = w->chain_n - start[m];
			lane[m++] = l;
		}
		w->chain_scope = 0;
		if (w->bad)
			break;
		double a[CHAIN_LANES];
		const float *p[CHAIN_LANES];
		for (int q = 0; q < m; q++)
			a[q] = red[q].f, p[q] = len[q] ? w->chain + start[q] : NULL; /* none: an empty domain */
		sum_chains(a, p, len, m);
		for (int q = 0; q < m; q++) {
			Val v = {0};
			red[q].f = a[q];
			red_result(&red[q], x->dt, &v); /* a sum or mean: always a value */
			put(w, dst, lane[q], v);
		}
	}
	w->chain_scope = 0;
	w->lane[s] = 0;
}

/* Rows of a reduction at most this long are reduced many to a unit
 * (reduce_batch). */
#define BATCH_ROW (VM_LANES / 2)

static atomic_llong batched;

int64_t vm_batched(void)
{
	return atomic_load(&batched);
}

/* Does the batched unit of reduction x's scope c evaluate it as its own
 * units would? When c holds no reduction, nothing that can fail, and reads
 * nothing of another scope but constants (a value of scope 0 would differ
 * from row to row of the unit), and x folds a register of c. */
static bool batch_fits(const W *w, const Ins *x)
{
	const Prog *p = w->x->p;
	int c = x->inner;
	if (x->guard >= 0 || p->scopes[c].parent != 0 || p->ins[x->a[0]].scope != c)
		return false;
	for (int i = 0; i < p->n; i++) {
		const Ins *in = &p->ins[i];
		if (in->scope != c)
			continue;
		if (in->kind == I_REDUCE || w->fallible[i])
			return false;
		for (int k = 0; k < in->nargs + 1; k++) {
			int r = k < in->nargs ? in->a[k] : in->guard;
			if (r >= 0 && p->ins[r].scope != c && p->ins[r].kind != I_CONST)
				return false;
		}
		for (int k = 0; in->kind == I_LOAD && k < in->natoms + in->nchecks; k++) {
			int r = k < in->natoms ? in->atom_reg[k] : in->check_reg[k - in->natoms];
			if (p->ins[r].scope != c && p->ins[r].kind != I_CONST)
				return false;
		}
	}
	return true;
}

/* A reduction of scope 0 over short rows (a domain of at most BATCH_ROW
 * points, every variable one box: reduce_domain's single unit), the rows
 * of many of the unit's lanes evaluated as one unit of its scope, whose
 * dims are then scope 0's varying ones followed by its own (scope_dims):
 * lane g·T + i is point i of row g, in the domain's order. Each row is
 * then folded as red_unit folds a unit, sums eight rows' chains at once
 * (sum_rows): the interpreter's bits. A causal softmax's masked row
 * maximum over (8, 32, 32) ran 256 units of 32 lanes; it runs 8 of 1024.
 * False when it does not apply (batch_fits). */
static bool reduce_batch(W *w, int s, const Ins *x)
{
	const X *xs = w->x;
	const Prog *p = xs->p;
	int c = x->inner, dst = (int)(x - p->ins), n = w->lanes[s], acc = x->a[0];
	if (s != 0 || n < 2 || !batch_fits(w, x))
		return false;
	XBox ub = *w->unit[0];
	int64_t T = 1;
	if (!one_box_domain(xs, c, &ub))
		return false;
	for (int k = 0; k < xs->nsd[c]; k++) {
		int d = xs->sd[c][k];
		T *= ub.hi[d] - ub.lo[d];
	}
	if (T <= 0 || T > BATCH_ROW)
		return false;
	/* rows per unit: scope 0's last varying dims whole (P lanes), the one
	 * before them (cj) in chunks of q */
	const XBox *u0 = w->unit[0];
	int u = w->ustart[0], j = xs->nsd[0];
	int64_t most = VM_LANES / T, P = 1;
	while (j > u) {
		int d = xs->sd[0][j - 1];
		if (P * (u0->hi[d] - u0->lo[d]) > most)
			break;
		P *= u0->hi[d] - u0->lo[d];
		j--;
	}
	int cj = j > u ? j - 1 : -1, first = cj >= 0 ? cj : j;
	int64_t q = most / P;
	w->bnsd = 0;
	for (int k = first; k < xs->nsd[0]; k++)
		w->bsd[w->bnsd++] = xs->sd[0][k];
	for (int k = 0; k < xs->nsd[c]; k++)
		w->bsd[w->bnsd++] = xs->sd[c][k];
	bool sums = (x->op == R_SUM || x->op == R_MEAN) && dt_is_float(x->opdt) && flt_reg(xs, acc);
	atomic_fetch_add_explicit(&batched, 1, memory_order_relaxed);
	for (int l0 = 0; l0 < n && !w->bad;) {
		lane_coords(w, 0, l0); /* the fixed dims of scope 0, and the first row's */
		int64_t rows = P;
		if (cj >= 0) {
			int d = xs->sd[0][cj];
			ub.lo[d] = w->coord[d];
			ub.hi[d] = w->coord[d] + q < u0->hi[d] ? w->coord[d] + q : u0->hi[d];
			rows *= ub.hi[d] - ub.lo[d];
		}
		w->bscope = c;
		w->unit[c] = &ub;
		w->ustart[c] = 0;
		w->lanes[c] = (int)(rows * T);
		w->lane[c] = 0;
		run_unit(w, c);
		w->bscope = 0;
		if (w->bad)
			return true; /* cannot be (batch_fits); the unit's lanes run again one by one */
		for (int64_t g0 = 0; g0 < rows; g0 += CHAIN_LANES) {
			int m = rows - g0 < CHAIN_LANES ? (int)(rows - g0) : CHAIN_LANES;
			Red red[CHAIN_LANES];
			double a[CHAIN_LANES];
			const float *rp[CHAIN_LANES];
			for (int g = 0; g < m; g++) {
				red_init(&red[g], x->op, x->opdt);
				if (sums)
					a[g] = red[g].f, rp[g] = regf(w, acc) + (g0 + g) * T, red[g].count = T;
				else
					red_fold(&red[g], w, c, acc, (int)((g0 + g) * T), (int)T);
			}
			if (sums)
				sum_rows(a, rp, T, m);
			for (int g = 0; g < m; g++) {
				Val v = {0};
				if (sums)
					red[g].f = a[g];
				red_result(&red[g], x->dt, &v); /* a domain of T > 0 points: always a value */
				put(w, dst, (int)(l0 + g0 + g), v);
			}
		}
		l0 += (int)rows;
	}
	return true;
}

/* Writes through put(): an f32 result's register holds floats. */
static void reduce_lanes(W *w, int s, const Ins *x)
{
	if (reduce_fast(w, s, x) || reduce_batch(w, s, x))
		return;
	if (chains_apply(w, s, x)) {
		reduce_chains(w, s, x);
		return;
	}
	const X *xs = w->x;
	int c = x->inner, dst = (int)(x - xs->p->ins);
	const Val *guard = x->guard >= 0 ? arg(w, s, x->guard) : NULL;
	for (int l = 0; l < w->lanes[s] && !w->bad; l++) {
		Red red;
		Val v = {0};
		red_init(&red, x->op, x->opdt);
		put(w, dst, l, v);
		if (guard && !guard[l].i)
			continue;
		w->lane[s] = l;
		lane_coords(w, s, l);
		reduce_domain(w, c, x->a[0], &red);
		bool ok = w->bad || red_result(&red, x->dt, &v);
		put(w, dst, l, v);
		if (!ok) {
			char at[160], msg[400];
			var_values(w);
			where_str(at, sizeof at, xs->pd->stmt, w->val);
			snprintf(msg, sizeof msg, "kernel %s: %s over an empty range at %s", xs->in->k->name, x->src->name, at);
			run_error(xs->err, position(w), x->src->sp, msg);
			w->bad = true;
		}
	}
	w->lane[s] = 0;
}

/* The values of variable v over the lanes of scope s's unit: its value
 * at the first lane, plus place·offset along each varying dim of it. */
static void ivar_lanes(W *w, int s, int i, Val *r)
{
	const X *x = w->x;
	const Var *v = x->p->ins[i].var;
	int n = w->lanes[s], run = 1;
	if (!w->ri[i].known) { /* else decide found its value at the first lane */
		lane_coords(w, s, 0);
		var_values(w);
		w->ri[i].lo = w->val[v->id];
	}
	ramp_lanes(r, w->ri[i].lo, n);
	int nsd;
	const int *sd = scope_dims(w, s, &nsd);
	for (int k = nsd - 1; k >= w->ustart[s]; k--) {
		const XDim *d = &x->d[sd[k]];
		int ext = (int)(w->unit[s]->hi[sd[k]] - w->unit[s]->lo[sd[k]]);
		if (x->ps->vars[d->var].var == v && ext > 1)
			ramp_add(r, n, ext, run, d->place);
		run *= ext;
	}
}

/* The range over scope s's unit of integer register r: its own, or the
 * value of an outer register at its current lane. */
static bool int_range(W *w, int s, int r, int64_t *lo, int64_t *hi)
{
	const Ins *x = &w->x->p->ins[r];
	if (dt_is_float(x->dt))
		return false;
	if (x->scope != s) {
		*lo = *hi = regv(w, r)[w->lane[x->scope]].i;
		return true;
	}
	*lo = w->ri[r].lo;
	*hi = w->ri[r].hi;
	return w->ri[r].known && !w->ri[r].skip;
}

/* A bool register the same at every lane of scope s's unit: 0 or 1; -1
 * when it is not decided. */
static int bool_of(W *w, int s, int r)
{
	const Ins *x = &w->x->p->ins[r];
	if (x->scope != s)
		return regv(w, r)[w->lane[x->scope]].i != 0;
	return w->ri[r].skip ? -1 : w->ri[r].dec;
}

static int decide_cmp(int op, int64_t al, int64_t ah, int64_t bl, int64_t bh)
{
	switch (op) {
	case OP_LT: return ah < bl ? 1 : al >= bh ? 0 : -1;
	case OP_LE: return ah <= bl ? 1 : al > bh ? 0 : -1;
	case OP_GT: return al > bh ? 1 : ah <= bl ? 0 : -1;
	case OP_GE: return al >= bh ? 1 : ah < bl ? 0 : -1;
	case OP_EQ: return al == ah && bl == bh && al == bl ? 1 : ah < bl || bh < al ? 0 : -1;
	default: return al == ah && bl == bh && al == bl ? 0 : ah < bl || bh < al ? 1 : -1; /* OP_NE */
	}
}

static void decide_op(W *w, int s, const Ins *x, RInfo *f)
{
	int kind = op_info[x->op].kind;
	int64_t al, ah, bl, bh;
	bool two = x->nargs > 1 && int_range(w, s, x->a[0], &al, &ah) && int_range(w, s, x->a[1], &bl, &bh);
	if (kind == K_CMP && !dt_is_float(x->opdt) && two) {
		f->dec = (signed char)decide_cmp(x->op, al, ah, bl, bh);
	} else if (kind == K_LOGIC) {
		int a = bool_of(w, s, x->a[0]), b = x->nargs > 1 ? bool_of(w, s, x->a[1]) : -1;
		f->dec = (signed char)(x->op == OP_NOT ? (a < 0 ? -1 : !a)
		                       : x->op == OP_AND ? (a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : -1)
		                                         : (a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : -1));
	} else if ((x->op == OP_ADD || x->op == OP_SUB) && x->opdt == ATHENE_I64 && two) {
		f->known = x->op == OP_ADD ? i64_add(al, bl, &f->lo) && i64_add(ah, bh, &f->hi)
		                           : i64_sub(al, bh, &f->lo) && i64_sub(ah, bl, &f->hi);
	}
	if (f->dec >= 0) {
		f->known = true;
		f->lo = f->hi = f->dec;
	}
}

/* What is known of scope s's registers over its current unit. */
static void decide(W *w, int s)
{
	const X *x = w->x;
	for (int i = 0; i < x->p->n; i++) {
		const Ins *in = &x->p->ins[i];
		RInfo *f = &w->ri[i];
		if (in->scope != s)
			continue;
		/* a guard implies its own guard: under a skipped one, skipped too */
		bool gskip = in->guard >= 0 && (bool_of(w, s, in->guard) == 0 ||
		                                (x->p->ins[in->guard].scope == s && w->ri[in->guard].skip));
		*f = (RInfo){.dec = -1, .skip = gskip};
		if (f->skip)
			continue;
		int64_t lo, hi;
		switch (in->kind) {
		case I_CONST:
			if (!dt_is_float(in->dt)) {
				f->known = true;
				f->lo = f->hi = in->c.i;
				if (in->dt == ATHENE_BOOL)
					f->dec = in->c.i != 0;
			}
			break;
		case I_IVAR: { /* from its value at the first lane to its value at the last */
			lane_coords(w, s, 0);
			var_values(w);
			f->known = true;
			f->lo = f->hi = w->val[in->var->id];
			int nsd;
			const int *sd = scope_dims(w, s, &nsd);
			for (int k = w->ustart[s]; k < nsd; k++) {
				int d = sd[k];
				if (x->ps->vars[x->d[d].var].var == in->var)
					f->hi += (w->unit[s]->hi[d] - w->unit[s]->lo[d] - 1) * x->d[d].place;
			}
			break;
		}
		case I_CAST:
			if (in->dt == ATHENE_I64 && int_range(w, s, in->a[0], &lo, &hi)) {
				f->known = true;
				f->lo = lo, f->hi = hi;
			}
			break;
		case I_OP: decide_op(w, s, in, f); break;
		default: break;
		}
	}
}

/* Can evaluating the instruction fail (a run-time error the interpreter
 * reports): then it is evaluated wherever its guard may hold. */
static bool can_fail(const X *x, const Ins *in)
{
	return ins_can_fail(x->p, in) || (in->kind == I_LOAD && x->op[in->operand].point);
}

static void need(W *w, int s, int r)
{
	if (w->x->p->ins[r].scope == s)
		w->ri[r].need = true;
}

/* Which of scope s's instructions the unit evaluates: from the result,
 * what other scopes read and what can fail, back through the arguments of
 * each evaluated one (a decided op reads none, a decided where only its
 * chosen branch, and only what can fail reads its guard's lanes). */
static void needs(W *w, int s)
{
	const X *x = w->x;
	for (int i = x->p->n - 1; i >= 0; i--) {
		const Ins *in = &x->p->ins[i];
		RInfo *f = &w->ri[i];
		if (in->scope != s)
			continue;
		f->need = !f->skip && (f->need || w->outer[i] || i == x->p->result || can_fail(x, in));
		if (!f->need)
			continue;
		if (in->kind == I_OP && f->dec >= 0) { /* it reads none, but what can fail still runs */
			for (int k = 0; k < in->nargs; k++)
				if (w->fallible[in->a[k]])
					need(w, s, in->a[k]);
			continue;
		}
		if (in->guard >= 0 && can_fail(x, in))
			need(w, s, in->guard); /* it checks only where its guard holds: it reads its lanes */
		int c = in->kind == I_OP && in->op == OP_WHERE ? bool_of(w, s, in->a[0]) : -1;
		if (c >= 0) {
			need(w, s, in->a[c ? 1 : 2]);
			if (w->fallible[in->a[0]])
				need(w, s, in->a[0]);
			continue;
		}
		for (int k = 0; k < in->nargs; k++)
			need(w, s, in->a[k]);
		for (int k = 0; in->kind == I_LOAD && k < in->natoms; k++)
			need(w, s, in->atom_reg[k]);
		for (int k = 0; in->kind == I_LOAD && k < in->nchecks; k++)
			need(w, s, in->check_reg[k]);
	}
}

/* The lanes [from, to) of every constant's register (only constants write
 * their lanes, so once is enough). */
static void const_lanes(W *w, int from, int to)
{
	const X *x = w->x;
	for (int r = 0; r < x->p->n; r++) {
		if (x->p->ins[r].kind != I_CONST)
			continue;
		Val *v = &w->reg[(size_t)r * REG_STRIDE];
		for (int l = from; l < to; l++) {
			if (flt_reg(x, r))
				((float *)v)[l] = (float)x->p->ins[r].c.f;
			else
				v[l] = x->p->ins[r].c;
		}
	}
}

/* Evaluates the instructions of scope s over its current unit. */
static void run_unit(W *w, int s)
{
	const Prog *p = w->x->p;
	if (w->lanes[s] > w->const_lanes) { /* whole vectors of 64 lanes, as the ops read them */
		int to = (w->lanes[s] + 63) / 64 * 64;
		to = to < VM_LANES ? to : VM_LANES;
		const_lanes(w, w->const_lanes, to);
		w->const_lanes = to;
	}
	if (w->guarded[s]) { /* else nothing to decide: everything is evaluated */
		decide(w, s);
		needs(w, s);
	}
#if defined(ATHENE_SANITIZED)
	for (int i = 0; i < p->n; i++) /* what a unit does not evaluate holds garbage: make it loud */
		if (p->ins[i].scope == s && p->ins[i].kind != I_CONST)
			memset(&w->reg[(size_t)i * REG_STRIDE], 0x45, (size_t)w->lanes[s] * sizeof(Val));
#endif
	for (int i = 0; i < p->n && !w->bad; i++) {
		const Ins *x = &p->ins[i];
		if (x->scope != s)
			continue;
		Val *r = w->rp[i] = &w->reg[(size_t)i * REG_STRIDE]; /* its own lanes, unless a load aliases */
		const RInfo *f = &w->ri[i];
		if (!f->need)
			continue; /* never read in this unit */
		if (x->kind == I_OP && f->dec >= 0) {
			ramp_lanes(r, f->dec, w->lanes[s]); /* the same bool at every lane */
			continue;
		}
		int c = x->kind == I_OP && x->op == OP_WHERE ? bool_of(w, s, x->a[0]) : -1;
		if (c >= 0) {
			w->rp[i] = (Val *)(uintptr_t)arg(w, s, x->a[c ? 1 : 2]); /* its chosen branch, read only */
			continue;
		}
		switch (x->kind) {
		case I_CONST: break; /* its lanes were filled with the scratch */
		case I_IVAR: ivar_lanes(w, s, i, r); break;
		case I_LOAD: load_lanes(w, s, x, r); break;
		case I_CAST: cast_lanes(w, s, x, r); break;
		case I_BITCAST: bitcast_lanes(w, s, x, r); break;
		case I_OP:
			if (!op_stream(w, x, r))
				op_lanes(w, s, x, r);
			break;
		case I_REDUCE: reduce_lanes(w, s, x); break;
		}
	}
}

/* A unit failed: its lanes again one at a time, in order, so that the
 * error reported is the interpreter's first (an earlier lane may fail in a
 * later instruction). */
static void first_error(W *w, int s, const XBox *u)
{
	const X *x = w->x;
	int lanes = w->lanes[s];
	XBox one = *u;
	w->unit[s] = u;
	for (int l = 0; l < lanes; l++) {
		w->unit[s] = u;
		lane_coords(w, s, l);
		for (int k = w->ustart[s]; k < x->nsd[s]; k++) {
			int d = x->sd[s][k];
			one.lo[d] = w->coord[d];
			one.hi[d] = w->coord[d] + 1;
		}
		w->unit[s] = &one;
		w->lanes[s] = 1;
		w->bad = false;
		run_unit(w, s);
		if (w->bad)
			break;
	}
	w->unit[s] = u;
	w->bad = true;
}

/* How box b of scope s is cut into units: the dims after the one
 * returned are whole (*whole lanes), the one returned (-1: none, the box is one unit) is
 * cut in steps of *step, the ones before it stepped one at a time. A unit
 * holds at most VM_LANES lanes; when its whole dims hold ROW_UNIT lanes or
 * more it holds just those (one row), so that an operand whose rows are
 * contiguous, not its box, is read in place. */
static int unit_split(const W *w, int s, const XBox *b, int64_t *step, int64_t *whole)
{
	const X *x = w->x;
	int j = x->nsd[s];
	int64_t inner = 1;
	while (j > 0) {
		int d = x->sd[s][j - 1];
		int64_t e = b->hi[d] - b->lo[d];
		if (inner * e > VM_LANES)
			break;
		inner *= e;
		j--;
	}
	int cj = j - 1;
	*step = cj >= 0 ? VM_LANES / inner : 1;
	if (cj >= 0 && inner >= ROW_UNIT)
		*step = 1;
	*whole = inner;
	return cj;
}

/* Folds the unit's lanes of register acc into red, in lane order: what
 * red_step does value by value, bit for bit (sums in double; max and min
 * keep the first NaN, else replace on a strict win), in tight loops for a
 * float sum, mean, max or min of a float register of scope s, else
 * through red_step. */
static void red_unit(Red *red, W *w, int s, int acc)
{
	int n = w->lanes[s];
	if (s == w->chain_scope && n > 0) { /* reduce_chains sums them */
		if (w->chain_n + n > w->chain_cap) {
			int64_t cap = 2 * (w->chain_n + n);
			float *p = realloc(w->chain, (size_t)cap * sizeof *p);
			if (!p) {
				run_error(w->x->err, position(w), w->x->pd->stmt->sp, "cannot allocate a reduction's buffer");
				w->bad = true;
				return;
			}
			w->chain = p;
			w->chain_cap = cap;
		}
		memcpy(w->chain + w->chain_n, regf(w, acc), (size_t)n * sizeof(float));
		w->chain_n += n;
		red->count += n;
		return;
	}
	red_fold(red, w, s, acc, 0, n);
}

/* Folds lanes [from, from + n) of register acc of scope s's unit into red,
 * as red_unit says. */
static void red_fold(Red *red, W *w, int s, int acc, int from, int n)
{
	int op = red->op;
	bool fast = (op == R_SUM || op == R_MEAN || op == R_MAX || op == R_MIN) && dt_is_float(red->bt);
	if (!fast || n <= 0 || w->x->p->ins[acc].scope != s || !flt_reg(w->x, acc)) {
		for (int l = 0; l < n; l++)
			red_step(red, get(w, s, acc, from + l));
		return;
	}
	const float *f = regf(w, acc) + from;
	double a = red->f;
	int l = 0;
	if (op == R_SUM || op == R_MEAN) {
		for (; l < n; l++)
			a += f[l];
	} else {
		bool maxi = op == R_MAX;
		float m;
		if (!(red->count && isnan(a)) && row_extreme(f, n, maxi, &m)) {
			/* the lanes' one extreme, a nonzero value: the first lane
			 * holding it, or a, if as large, wins (the same bits) */
			a = !red->count || (maxi ? m > a : m < a) ? m : a;
			l = n;
		}
		if (!red->count && l < n)
			a = f[l++];
		for (; l < n && !isnan(a); l++) {
			double v = f[l];
			if (isnan(v) || (maxi ? v > a : v < a))
				a = v;
		}
		red->i = ((Val){.f = a}).i; /* as red_step leaves it */
	}
	red->f = a;
	red->count += n;
}

/* Every unit of box b over scope s's dims, in row-major order: the dims
 * before ustart are stepped one at a time, the one at ustart in chunks, the
 * rest whole. red: accumulate register `acc` (scope s is a reduction's);
 * else the result is stored through the output's view (scope 0). */
static void eval_box(W *w, int s, const XBox *b, int acc, Red *red)
{
	const X *x = w->x;
	int nsd = x->nsd[s];
	for (int k = 0; k < nsd; k++) {
		int d = x->sd[s][k];
		if (b->hi[d] <= b->lo[d])
			return; /* an empty box */
	}
	int64_t step, inner;
	int cj = unit_split(w, s, b, &step, &inner);
	XBox u = *b;
	w->unit[s] = &u;
	w->ustart[s] = cj >= 0 ? cj : 0;
	for (int k = 0; k < nsd; k++)
		w->coord[x->sd[s][k]] = b->lo[x->sd[s][k]];
	for (;;) {
		for (int k = 0; k < cj; k++) {
			int d = x->sd[s][k];
			u.lo[d] = w->coord[d];
			u.hi[d] = w->coord[d] + 1;
		}
		int64_t chunk = 1;
		if (cj >= 0) {
			int d = x->sd[s][cj];
			u.lo[d] = w->coord[d];
			u.hi[d] = w->coord[d] + step < b->hi[d] ? w->coord[d] + step : b->hi[d];
			chunk = u.hi[d] - u.lo[d];
		}
		w->lanes[s] = (int)(chunk * inner);
		w->stored = false;
		run_unit(w, s);
		if (w->bad) {
			first_error(w, s, &u);
			return;
		}
		if (red)
			red_unit(red, w, s, acc);
		else
			store_unit(w);
		/* next unit: advance the chunked dim, then the stepped ones */
		int k = cj;
		if (k >= 0) {
			int d = x->sd[s][k];
			w->coord[d] = u.hi[d];
			if (w->coord[d] < b->hi[d])
				continue;
			w->coord[d] = b->lo[d];
		}
		for (k = cj - 1; k >= 0; k--) {
			int d = x->sd[s][k];
			if (++w->coord[d] < b->hi[d])
				break;
			w->coord[d] = b->lo[d];
		}
		if (k < 0)
			return;
	}
}

/* The result of scope 0's unit, through the output's view. */
static void store_unit(W *w)
{
	const X *x = w->x;
	const XOp *o = &x->op[0];
	int64_t shape[XMAXD], ds[XMAXD], ss[XMAXD];
	if (w->stored)
		return;
	lane_coords(w, 0, 0);
	if (w->stage[0]) {
		from_lanes(w->stage[0] + dense_offset(w) * (int64_t)o->es, x->p->out,
		           regv(w, x->p->result), w->lanes[0]);
		return;
	}
	int64_t off = unit_offset(w, o);
	int n = unit_shape(w, 0, o, shape, ds);
	dense(shape, n, o->es, ss);
	unsigned char *dst = (unsigned char *)o->base + off * (int64_t)o->es;
	const Val *res = regv(w, x->p->result);
	if (contiguous(shape, ds, ss, n) && !x->stream) {
		from_lanes(dst, x->p->out, res, w->lanes[0]); /* write in place */
		return;
	}
	if (contiguous(shape, ds, ss, n)) { /* a big output: streaming stores, no line fetched for them */
		const void *from = res;
		if (x->p->out != ATHENE_F32) {
			from_lanes(w->tmp, x->p->out, res, w->lanes[0]);
			from = w->tmp;
		}
		copy_stream_nofence(dst, from, (size_t)w->lanes[0] * o->es); /* fenced after the block */
		return;
	}
	from_lanes(w->tmp, x->p->out, res, w->lanes[0]);
	box_copy((char *)dst, ds, (const char *)w->tmp, ss, shape, n, o->es, x->stream ? COPY_STREAM : 0, false);
}

#define STAGE_MAX (64 << 20) /* bytes: larger boxes are read unit by unit */

/* Copies operand j's part of the scope-0 box b between its view and the
 * dense staging buffer (out: from the buffer to the view). */
static void stage_copy(W *w, const XBox *b, int j, bool out)
{
	const X *x = w->x;
	const XOp *o = &x->op[j];
	int64_t shape[XMAXD], vs[XMAXD], dst[XMAXD];
	int n = 0;
	for (int k = 0; k < x->nsd[0]; k++) {
		int d = x->sd[0][k];
		w->coord[d] = b->lo[d];
		shape[n] = b->hi[d] - b->lo[d];
		vs[n] = o->stride[d] * (int64_t)o->es;
		dst[n++] = w->dense0[d] * (int64_t)o->es;
	}
	if (!out && o->masked && mask_copy(w, o, x->sd[0], n, shape, vs, dst, unit_offset(w, o), w->stage[j]))
		return;
	char *view = o->base + unit_offset(w, o) * (int64_t)o->es;
	if (out)
		box_copy(view, vs, (const char *)w->stage[j], dst, shape, n, o->es, x->stream ? COPY_STREAM : 0, false);
	else
		box_copy((char *)w->stage[j], dst, view, vs, shape, n, o->es, 0, false);
}

/* Is operand o contiguous over every unit of the scope-0 box b (cut at
 * dim cj in steps of step: unit_split), in the unit's dense order (then it
 * is read or written in place), or, a load, one element over each unit (a row's
 * value broadcast along it: load_lanes spreads it; staging it would copy
 * it to every lane through the box copy's transpose)? */
static bool unit_in_place(const W *w, const XOp *o, const XBox *b, int cj, int64_t step, bool load)
{
	const X *x = w->x;
	int64_t want = 1;
	bool dense = true, one = true;
	for (int k = x->nsd[0] - 1; k >= (cj > 0 ? cj : 0); k--) {
		int d = x->sd[0][k];
		int64_t e = b->hi[d] - b->lo[d];
		if (k == cj && e > step)
			e = step;
		dense &= e == 1 || o->stride[d] == want;
		one &= e == 1 || o->stride[d] == 0;
		want *= e;
	}
	return dense || (load && one && !o->masked);
}

/* Decides which operands of the scope-0 box b are staged whole: the store
 * and the scope-0 view loads whose order is not the box's dense order. */
static void stage_box(W *w, const XBox *b)
{
	const X *x = w->x;
	int64_t points = 1;
	w->box0 = b;
	for (int k = x->nsd[0] - 1; k >= 0; k--) {
		int d = x->sd[0][k];
		w->dense0[d] = points;
		points *= b->hi[d] - b->lo[d];
	}
	int64_t step, whole;
	int cj = unit_split(w, 0, b, &step, &whole);
	for (int j = 0; j < x->pd->acc.n; j++) {
		const XOp *o = &x->op[j];
		bool want = j == 0 || (x->opreg[j] >= 0 && x->p->ins[x->opreg[j]].scope == 0 && !o->point &&
		                       !o->op->view->ngat);
		want &= !unit_in_place(w, o, b, cj, step, j > 0);
		if (j == 0 && stream_result(x) && o->stride[x->sd[0][x->nsd[0] - 1]] == 1 &&
		    b->hi[x->sd[0][x->nsd[0] - 1]] - b->lo[x->sd[0][x->nsd[0] - 1]] >= 64)
			want = false; /* rows of 256 bytes and more: op_stream writes them in place */
		size_t bytes = (size_t)points * o->es;
		w->stage[j] = NULL;
		if (!want || bytes > STAGE_MAX)
			continue;
		if (w->cap[j] < bytes) {
			unsigned char *p = realloc(w->keep[j], bytes);
			if (!p)
				continue;
			w->cap[j] = bytes;
			w->keep[j] = p;
		}
		w->stage[j] = w->keep[j];
		if (j > 0)
			stage_copy(w, b, j, false);
	}
}

static int sop_of(int op)
{
	switch (op) {
	case OP_ADD: return SOP_ADD;
	case OP_SUB: return SOP_SUB;
	case OP_MUL: return SOP_MUL;
	case OP_DIV: return SOP_DIV;
	case OP_NEG: return SOP_NEG;
	case OP_RELU: return SOP_RELU;
	case OP_MAX: return SOP_MAX;
	case OP_MIN: return SOP_MIN;
	case OP_EXP: return SOP_EXP;
	case OP_SIGMOID: return SOP_SIGMOID;
	case OP_TANH: return SOP_TANH;
	case OP_ERF: return SOP_ERF;
	default: return -1;
	}
}

/* The statement as one fused f32 pointwise program (pw_run) into pw, acc
 * the access of each load: every instruction of scope 0, unguarded, and an
 * f32 load of a plain view, an f32 constant or an f32 op pw_run has. Such
 * a body cannot fail at run time. The loads' strides and addresses are set
 * per box or tile (pw_strides). */
static bool pw_build(const X *x, PwProg *pw, int *acc)
{
	const Prog *p = x->p;
	bool used[PW_MAX] = {false};
	if (p->n > PW_MAX || p->out != ATHENE_F32 || x->op[0].dt != ATHENE_F32)
		return false;
	used[p->result] = true;
	for (int r = p->n - 1; r >= 0; r--)
		for (int k = 0; used[r] && p->ins[r].kind == I_OP && k < p->ins[r].nargs; k++)
			used[p->ins[r].a[k]] = true;
	for (int r = 0; r < p->n; r++) {
		const Ins *in = &p->ins[r];
		PwIns *q = &pw->ins[r];
		int sop = in->kind == I_OP ? sop_of(in->op) : -1;
		if (!used[r]) { /* the result does not read it (a literal's other dtype) */
			*q = (PwIns){.kind = PW_CONST};
			continue;
		}
		if (in->scope != 0 || in->guard >= 0 || in->dt != ATHENE_F32)
			return false;
		if (in->kind == I_CONST) {
			*q = (PwIns){.kind = PW_CONST, .c = (float)in->c.f};
		} else if (in->kind == I_LOAD) {
			const XOp *o = &x->op[in->operand];
			if (o->dt != ATHENE_F32 || o->point || o->masked || o->piece || o->op->view->ngat || in->natoms ||
			    in->nchecks)
				return false;
			*q = (PwIns){.kind = PW_LOAD};
			acc[r] = in->operand;
		} else if (sop >= 0 && !in->exact && in->opdt == ATHENE_F32 && in->nargs >= 1 && in->nargs <= 2) {
			*q = (PwIns){.kind = PW_OP, .op = sop, .a = in->a[0], .b = in->a[in->nargs - 1]};
		} else {
			return false;
		}
	}
	pw->n = p->n;
	pw->result = p->result;
	return true;
}

/* The element strides of pw's loads over rows (dim drow, -1: none) and
 * columns (din) of a slice of rows x cols; false when the output's
 * columns are not contiguous or a load does not fit (pw_fits). */
static bool pw_strides(const X *x, PwProg *pw, const int *acc, int drow, int din, int64_t rows, int64_t cols)
{
	const XOp *out = &x->op[0];
	if (out->stride[din] != 1 || (drow >= 0 && out->stride[drow] < 0))
		return false;
	for (int r = 0; r < pw->n; r++) {
		PwIns *q = &pw->ins[r];
		if (q->kind == PW_LOAD) {
			const XOp *o = &x->op[acc[r]];
			q->rs = drow >= 0 && rows > 1 ? o->stride[drow] * 4 : 0;
			q->cs = cols > 1 ? o->stride[din] * 4 : 0;
		}
	}
	return pw_fits(pw);
}

/* Runs pw on the slice of rows x cols at coordinates coord. */
static void pw_slice(const X *x, PwProg *pw, const int *acc, const int64_t *coord, int drow, int64_t rows,
		     int64_t cols)
{
	const XOp *out = &x->op[0];
	for (int r = 0; r < pw->n; r++)
		if (pw->ins[r].kind == PW_LOAD) {
			const XOp *o = &x->op[acc[r]];
			int64_t off = o->start;
			for (int k = 0; k < x->nd; k++)
				off += coord[k] * o->stride[k];
			pw->ins[r].p = o->base + off * 4;
		}
	int64_t off = out->start;
	for (int k = 0; k < x->nd; k++)
		off += coord[k] * out->stride[k];
	pw_run(pw, out->base + off * 4, drow >= 0 ? out->stride[drow] * 4 : 0, rows, cols, x->stream);
}

/* Box b as the fused program, when its loads fit it (pw_fits): one 2-D
 * slice (its last two dims) per point of the dims before. False when it
 * does not apply and nothing was done. */
static bool pw_box(W *w, const XBox *b)
{
	const X *x = w->x;
	int nsd = x->nsd[0];
	if (w->pw_ok < 0)
		w->pw_ok = pw_build(x, &w->pw, w->pw_acc);
	if (!w->pw_ok || nsd == 0)
		return false;
	int din = x->sd[0][nsd - 1], drow = nsd >= 2 ? x->sd[0][nsd - 2] : -1;
	int64_t rows = drow >= 0 ? b->hi[drow] - b->lo[drow] : 1, cols = b->hi[din] - b->lo[din];
	if (!pw_strides(x, &w->pw, w->pw_acc, drow, din, rows, cols))
		return false;
	if (cols < 16 || (pw_transposes(&w->pw) && rows < 8))
		return false; /* it would be all edges, element by element: the register machine's */
	if (drow >= 0 && rows < 8 && !pw_transposes(&w->pw)) {
		/* few rows a slice (RoPE's halves of (2, 32, 2, 16): 64 slices of 2
		 * rows): the longest dim before the columns serves as the rows
		 * instead (every operand has a stride along it), where no load then
		 * reads across the rows */
		int best = drow;
		for (int k = 0; k < nsd - 1; k++) {
			int d = x->sd[0][k];
			if (b->hi[d] - b->lo[d] > b->hi[best] - b->lo[best])
				best = d;
		}
		if (best != drow && (!pw_strides(x, &w->pw, w->pw_acc, best, din, b->hi[best] - b->lo[best], cols) ||
		                     pw_transposes(&w->pw)))
			best = drow;
		drow = best;
		rows = b->hi[drow] - b->lo[drow];
		if (!pw_strides(x, &w->pw, w->pw_acc, drow, din, rows, cols))
			return false;
	}
	for (int k = 0; k < nsd; k++) {
		if (b->hi[x->sd[0][k]] <= b->lo[x->sd[0][k]])
			return true; /* an empty box */
		w->coord[x->sd[0][k]] = b->lo[x->sd[0][k]];
	}
	for (;;) {
		pw_slice(x, &w->pw, w->pw_acc, w->coord, drow, rows, cols);
		int k = nsd - 2; /* the next slice: the dims before the columns, but the rows */
		for (; k >= 0; k--) {
			int d = x->sd[0][k];
			if (d == drow)
				continue;
			if (++w->coord[d] < b->hi[d])
				break;
			w->coord[d] = b->lo[d];
		}
		if (k < 0)
			return true;
	}
}

/* Scope-0 box b, staged, evaluated and written back; even after an
 * error in another box: the boxes are not in position order, and the first
 * error is the one reported. */
static void run_box(W *w, const XBox *b)
{
	const X *x = w->x;
	w->bad = false;
	for (int k = 0; k < x->nsd[0]; k++)
		w->coord[x->sd[0][k]] = b->lo[x->sd[0][k]];
	var_values(w);
	if (position(w) > atomic_load(&x->err->first) || pw_box(w, b))
		return;
	stage_box(w, b);
	eval_box(w, 0, b, -1, NULL);
	if (!w->bad && w->stage[0])
		stage_copy(w, b, 0, true);
}

/* The boxes of one block: the product of every output variable's boxes. */
static void block_boxes(W *w, const int64_t *lo, const int64_t *hi)
{
	const X *x = w->x;
	int nl = x->ps->nlhs, nb[MAXSCOPE], at[MAXSCOPE] = {0};
	XBox *vb = w->vb;
	for (int i = 0; i < nl; i++)
		if ((nb[i] = var_boxes(x, i, lo[i], hi[i], &vb[i * XMAXBOX], XMAXBOX)) == 0)
			goto done; /* an empty range */
	for (;;) {
		XBox b;
		for (int i = 0; i < nl; i++)
			for (int k = 0; k < x->nd; k++)
				if (x->d[k].var == i) {
					b.lo[k] = vb[i * XMAXBOX + at[i]].lo[k];
					b.hi[k] = vb[i * XMAXBOX + at[i]].hi[k];
				}
		run_box(w, &b);
		int i = nl - 1;
		while (i >= 0 && ++at[i] == nb[i])
			at[i--] = 0;
		if (i < 0)
			break;
	}
done:;
}

/* Grid axis g's range of block t: lo and hi of its variable; t divided by
 * the axis's block count. */
static void grid_range(const PlanStmt *ps, int g, int64_t *t, int64_t *lo, int64_t *hi)
{
	int i = ps->grid_var[g];
	const PlanVar *pv = &ps->vars[i];
	int64_t nb = i64_ceil_div(pv->n, pv->block);
	lo[i] = *t % nb * pv->block;
	hi[i] = lo[i] + pv->block < pv->n ? lo[i] + pv->block : pv->n;
	*t /= nb;
}

static void run_block(const X *x, int64_t t, int64_t n, int worker);

/* Task t: x->chunk consecutive blocks in the executor's walk order, one
 * after the other, or as one range (x->merge), or half of one row of them
 * (x->halves: the pool's front thread takes tasks 0, 1, ... and its back
 * thread 2 rows - 1, 2 rows - 2, ..., so the two work on the two halves of
 * the same rows, in order). */
int64_t vm_block_tasks(const X *x)
{
	return x->halves ? x->ntasks / x->row_blocks * 2 : i64_ceil_div(x->ntasks, x->chunk);
}

void vm_block_task(void *arg, int64_t t, int worker)
{
	const X *x = arg;
	if (x->merge && x->halves) { /* the pool's two ends: both halves of row t at once, rows in order */
		int64_t rows = vm_block_tasks(x) / 2, row = t < rows ? t : 2 * rows - 1 - t, second = t >= rows;
		int64_t n = second ? x->row_blocks - x->chunk : x->chunk;
		if (n > 0)
			run_block(x, row * x->row_blocks + second * x->chunk, n, worker);
		return;
	}
	if (x->merge) {
		run_block(x, t * x->chunk, x->chunk, worker);
		return;
	}
	for (int64_t b = t * x->chunk; b < (t + 1) * x->chunk && b < x->ntasks; b++)
		run_block(x, b, 1, worker);
}

/* Does the statement run as a transposed chain that reads best in whole
 * source rows (pw_whole_rows)? Its program as pw_box would build it for a
 * box of several rows and columns. */
int vm_whole_rows(const X *x)
{
	PwProg pw;
	int acc[PW_MAX], nsd = x->nsd[0];
	if (nsd < 2 || !pw_build(x, &pw, acc) || !pw_strides(x, &pw, acc, x->sd[0][nsd - 2], x->sd[0][nsd - 1], 2, 2))
		return PW_BLOCKS;
	return pw_whole_rows(&pw);
}

/* Marks the registers instruction in reads from another scope. */
static void mark_outer(const Prog *p, const Ins *in, bool *outer)
{
	for (int k = 0; k < in->nargs + 1; k++) {
		int r = k < in->nargs ? in->a[k] : in->guard;
		if (r >= 0 && p->ins[r].scope != in->scope)
			outer[r] = true;
	}
	for (int k = 0; in->kind == I_LOAD && k < in->natoms + in->nchecks; k++) {
		int r = k < in->natoms ? in->atom_reg[k] : in->check_reg[k - in->natoms];
		if (p->ins[r].scope != in->scope)
			outer[r] = true;
	}
}

/* Marks the registers whose evaluation can fail (can_fail), or reads one
 * that can (an argument, an atom, a check, a guard; a reduction: any
 * instruction of its scope, nested ones included). Until nothing changes:
 * a reduction's scope need not come before it. */
static void mark_fallible(const X *x, bool *fallible)
{
	const Prog *p = x->p;
	bool scope_fails[MAXSCOPES] = {false}, changed = true;
	while (changed) {
		changed = false;
		for (int i = 0; i < p->n; i++) {
			const Ins *in = &p->ins[i];
			bool f = can_fail(x, in) || (in->guard >= 0 && fallible[in->guard]) ||
			         (in->kind == I_REDUCE && scope_fails[in->inner]);
			for (int k = 0; k < in->nargs; k++)
				f |= fallible[in->a[k]];
			for (int k = 0; in->kind == I_LOAD && k < in->natoms; k++)
				f |= fallible[in->atom_reg[k]];
			for (int k = 0; in->kind == I_LOAD && k < in->nchecks; k++)
				f |= fallible[in->check_reg[k]];
			if (f && !fallible[i])
				fallible[i] = changed = true;
			for (int sc = in->scope; f && sc > 0 && !scope_fails[sc]; sc = p->scopes[sc].parent)
				scope_fails[sc] = changed = true;
		}
	}
}

/* The registers' memory of finished runs, kept for the next (a run of a
 * small kernel spent more in malloc and free of its big blocks, registers and
 * boxes, than in its loops): blocks of one size taken back whole, their contents garbage as a
 * fresh malloc's. At most STASH blocks of up to STASH_MAX bytes each. */
#define STASH 16
#define STASH_MAX ((size_t)256 << 10)
static struct {
	pthread_mutex_t mu;
	void *p[STASH];
	size_t bytes[STASH];
} stash = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}};

void *vm_stash_take(size_t bytes)
{
	void *p = NULL;
	pthread_mutex_lock(&stash.mu);
	for (int i = 0; i < STASH && !p; i++)
		if (stash.p[i] && stash.bytes[i] == bytes) {
			p = stash.p[i];
			stash.p[i] = NULL;
		}
	pthread_mutex_unlock(&stash.mu);
	return p ? p : malloc(bytes);
}

void vm_stash_give(void *p, size_t bytes)
{
	if (p && bytes <= STASH_MAX) {
		pthread_mutex_lock(&stash.mu);
		for (int i = 0; i < STASH && p; i++)
			if (!stash.p[i]) {
				stash.p[i] = p;
				stash.bytes[i] = bytes;
				p = NULL;
			}
		pthread_mutex_unlock(&stash.mu);
	}
	free(p);
}

static size_t reg_bytes(const X *x)
{
	return ((size_t)x->p->n + 1) * REG_STRIDE * sizeof(Val);
}

static size_t vb_bytes(const X *x)
{
	return (size_t)(x->ps->nlhs ? x->ps->nlhs : 1) * XMAXBOX * sizeof(XBox);
}

static void run_range(const X *x, const int64_t *lo, const int64_t *hi, int worker);

/* Blocks t to t + n - 1, n consecutive ones along fast_g in one row of
 * the grid, as one range of its variable. */
static void run_block(const X *x, int64_t t, int64_t n, int worker)
{
	const PlanStmt *ps = x->ps;
	int64_t lo[MAXSCOPE], hi[MAXSCOPE];
	for (int i = 0; i < ps->nlhs; i++) {
		lo[i] = 0;
		hi[i] = ps->vars[i].n;
	}
	if (x->fast_g >= 0) {
		const PlanVar *fv = &ps->vars[ps->grid_var[x->fast_g]];
		grid_range(ps, x->fast_g, &t, lo, hi);
		int i = ps->grid_var[x->fast_g];
		hi[i] = lo[i] + n * fv->block < fv->n ? lo[i] + n * fv->block : fv->n;
	}
	for (int g = ps->ngrid - 1; g >= 0; g--)
		if (!ps->vars[ps->grid_var[g]].reduce && g != x->fast_g)
			grid_range(ps, g, &t, lo, hi);
	run_range(x, lo, hi, worker);
}

void vm_run_rows(const X *x, int64_t r0, int64_t r1, int worker)
{
	const PlanStmt *ps = x->ps;
	int64_t lo[MAXSCOPE], hi[MAXSCOPE], at[MAXSCOPE] = {0}, nb[MAXSCOPE];
	int grid[MAXSCOPE], ng = 0;
	for (int g = 0; g < ps->ngrid; g++) /* the grid's other output variables, an odometer */
		if (!ps->vars[ps->grid_var[g]].reduce && ps->grid_var[g] != 0) {
			grid[ng] = ps->grid_var[g];
			nb[ng++] = i64_ceil_div(ps->vars[ps->grid_var[g]].n, ps->vars[ps->grid_var[g]].block);
		}
	for (int i = 0; i < ps->nlhs; i++) {
		lo[i] = 0;
		hi[i] = ps->vars[i].n;
	}
	int64_t b0 = ps->vars[0].block > 0 ? ps->vars[0].block : ps->vars[0].n;
	for (;;) {
		for (int k = 0; k < ng; k++) {
			const PlanVar *pv = &ps->vars[grid[k]];
			lo[grid[k]] = at[k] * pv->block;
			hi[grid[k]] = lo[grid[k]] + pv->block < pv->n ? lo[grid[k]] + pv->block : pv->n;
		}
		for (int64_t a = r0 / b0 * b0; a < r1; a += b0) { /* var 0's blocks, cut to [r0, r1) */
			lo[0] = a > r0 ? a : r0;
			hi[0] = a + b0 < r1 ? a + b0 : r1;
			run_range(x, lo, hi, worker);
		}
		int k = ng - 1;
		for (; k >= 0 && ++at[k] == nb[k]; k--)
			at[k] = 0;
		if (k < 0)
			return;
	}
}

/* The block of output points lo[i] <= var i < hi[i] (ranges within one
 * of the plan's blocks, or several of fast_g's). */
static void run_range(const X *x, const int64_t *lo, const int64_t *hi, int worker)
{
	const PlanStmt *ps = x->ps;
	int64_t first = 0;
	for (int i = 0; i < ps->nlhs; i++)
		first += lo[i] * x->pstride[i];
	if (first > atomic_load(&x->err->first))
		return; /* after the first error: the interpreter would not get here */
	W *w = &x->w[worker]; /* its scratch, made on its first block */
	if (!w->reg) {
		size_t nreg = (size_t)x->p->n + 1;
		w->x = x;
		w->reg = vm_stash_take(reg_bytes(x));
		w->rp = malloc(nreg * sizeof *w->rp);
		for (size_t r = 0; w->reg && w->rp && r < nreg; r++)
			w->rp[r] = &w->reg[r * REG_STRIDE];
		w->splat = vm_stash_take(reg_bytes(x));
		w->tmp = vm_stash_take(VM_LANES * 8);
		w->val = calloc((size_t)x->in->k->vars.n + 1, sizeof *w->val);
		w->stage = calloc((size_t)x->pd->acc.n, sizeof *w->stage);
		w->keep = calloc((size_t)x->pd->acc.n, sizeof *w->keep);
		w->cap = calloc((size_t)x->pd->acc.n, sizeof *w->cap);
		w->vb = vm_stash_take(vb_bytes(x));
		w->ri = calloc(nreg, sizeof *w->ri);
		w->outer = calloc(nreg, sizeof *w->outer);
		for (int i = 0; w->outer && i < x->p->n; i++)
			mark_outer(x->p, &x->p->ins[i], w->outer);
		w->fallible = calloc(nreg, sizeof *w->fallible);
		if (w->fallible)
			mark_fallible(x, w->fallible);
		for (int i = 0; w->ri && i < x->p->n; i++) {
			const Ins *in = &x->p->ins[i];
			w->guarded[in->scope] |= in->guard >= 0 || (in->kind == I_OP && in->op == OP_WHERE);
			w->ri[i] = (RInfo){.dec = -1, .need = true};
		}
		w->pw_ok = -1;
	}
	w->bad = false;
	if (!w->reg || !w->rp || !w->splat || !w->tmp || !w->val || !w->stage || !w->keep || !w->cap || !w->vb || !w->ri ||
	    !w->outer || !w->fallible)
		run_error(x->err, first, x->pd->stmt->sp, "cannot allocate the executor's registers");
	else
		block_boxes(w, lo, hi);
	if (x->stream)
		copy_fence(); /* the block's streamed stores, before the task is done */
}

size_t vm_workers_bytes(const X *x)
{
	size_t n = 0;
	for (int i = 0; i < x->nw; i++) {
		const W *w = &x->w[i];
		if (!w->reg)
			continue;
		n += 2 * reg_bytes(x) + VM_LANES * 8 + vb_bytes(x) + (size_t)w->chain_cap * sizeof(float);
		for (int j = 0; w->cap && j < x->pd->acc.n; j++)
			n += w->cap[j];
	}
	return n;
}

/* Per-worker scratch of a statement, made empty (each worker fills its own
 * on its first block). */
struct W *vm_workers(int nw)
{
	return calloc((size_t)nw, sizeof(W));
}

void vm_free_workers(X *x, int nw)
{
	for (int i = 0; i < nw; i++) {
		vm_stash_give(x->w[i].reg, reg_bytes(x));
		free(x->w[i].rp);
		vm_stash_give(x->w[i].splat, reg_bytes(x));
		vm_stash_give(x->w[i].tmp, VM_LANES * 8);
		free(x->w[i].val);
		for (int j = 0; x->w[i].keep && j < x->pd->acc.n; j++)
			free(x->w[i].keep[j]);
		free(x->w[i].stage);
		free(x->w[i].keep);
		free(x->w[i].cap);
		vm_stash_give(x->w[i].vb, vb_bytes(x));
		free(x->w[i].ri);
		free(x->w[i].outer);
		free(x->w[i].fallible);
		free(x->w[i].chain);
	}
	free(x->w);
	x->w = NULL;
}
