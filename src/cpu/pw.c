/* The pointwise tiles: a body that is one fused chain of f32 ops over
 * its loads (relu(x.T * s + b) and its kind) runs from the sources to the
 * destination in vector registers, tiles walked along the sources' rows
 * (transposed sources in bands or sub-tiles, with prefetch); the f16 row
 * conversions and the vectorised exp, tanh, sigmoid, log and sqrt of the
 * register machine; and the band walk of plain f32 transposes (tr_bands4),
 * which shares the chains' bands. Used by vm.c, and by stage.c for the
 * bands. Units: bytes. */
#include <math.h>
#include <string.h>

#include "simd.h"
#include "base/base.h" /* f16_to_float, f16_from_float */

/* ------------------------------------------------- fused pointwise tiles */

/* A program that is a chain: its main instruction's value (a load or a
 * constant), then steps, each an op of the value and a side operand that
 * is no op (a load read along rows or one per row, or a constant; -1 for
 * relu and neg). Most pointwise bodies are chains, relu(x * s + b) among
 * them: the value stays in vector registers from the load to the store. */
typedef struct {
	int op, side;
	bool rev; /* side op value */
} PwStep;
typedef struct {
	int main, n;
	PwStep st[PW_MAX];
} PwChain;

static bool pw_trans(const PwIns *q)
{
	return q->kind == PW_LOAD && q->cs != 4 && q->cs != 0;
}

static bool pw_chain(const PwProg *p, PwChain *ch)
{
	PwStep back[PW_MAX];
	int n = 0, r = p->result;
	while (p->ins[r].kind == PW_OP) {
		const PwIns *q = &p->ins[r];
		if (SOP_UNARY(q->op)) {
			back[n++] = (PwStep){q->op, -1, false};
			r = q->a;
			continue;
		}
		bool oa = p->ins[q->a].kind == PW_OP, ob = p->ins[q->b].kind == PW_OP;
		if (oa && ob)
			return false;
		bool via_b = ob || (!oa && pw_trans(&p->ins[q->b]) && !pw_trans(&p->ins[q->a]));
		back[n++] = (PwStep){q->op, via_b ? q->a : q->b, via_b};
		r = via_b ? q->b : q->a;
	}
	ch->main = r;
	ch->n = n;
	for (int k = 0; k < n; k++) {
		ch->st[k] = back[n - 1 - k];
		if (ch->st[k].side >= 0 && pw_trans(&p->ins[ch->st[k].side]))
			return false;
	}
	return true;
}

bool pw_transposes(const PwProg *p)
{
	for (int i = 0; i < p->n; i++)
		if (pw_trans(&p->ins[i]))
			return true;
	return false;
}

bool pw_fits(const PwProg *p)
{
	PwChain ch;
	if (p->n <= 0 || p->n > PW_MAX || p->result < 0 || p->result >= p->n)
		return false;
	for (int i = 0; i < p->n; i++) {
		const PwIns *q = &p->ins[i];
		if (pw_trans(q) && q->rs != 4)
			return false;
		if (q->kind == PW_OP && (q->a >= i || q->b >= i || q->a < 0 || q->b < 0))
			return false;
	}
	/* pw_tree_rows takes any program that reads along rows; the tiles
	 * transpose a chain's value, and pw_chain refuses transposed sides */
	return !pw_transposes(p) || pw_chain(p, &ch);
}

static inline float pw_load1(const PwIns *q, int64_t r, int64_t c)
{
	float v;
	memcpy(&v, q->p + r * q->rs + c * q->cs, sizeof v);
	return v;
}

/* Element (r, c) of the program, one instruction at a time. */
static float pw1(const PwProg *p, int64_t r, int64_t c)
{
	float v[PW_MAX];
	for (int i = 0; i < p->n; i++) {
		const PwIns *q = &p->ins[i];
		v[i] = q->kind == PW_LOAD ? pw_load1(q, r, c) : q->kind == PW_CONST ? q->c : sop1(q->op, v[q->a], v[q->b]);
	}
	return v[p->result];
}

static void pw_scalar(const PwProg *p, char *d, int64_t dp, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
	if (c0 >= c1)
		return;
	for (int64_t r = r0; r < r1; r++)
		for (int64_t c = c0; c < c1; c++) {
			float v = pw1(p, r, c);
			memcpy(d + r * dp + c * 4, &v, sizeof v);
		}
}

#ifdef X86
#define PW_AHEAD 2048 /* bytes a chain prefetches ahead along the rows it reads */
#define PW_SUB 64 /* output rows per sub-tile of a transposed chain's tiles (pw_chain_sub) */
#define PW_OUT_AHEAD 16 /* output rows ahead whose lines a transposed chain's plain stores prefetch (prefetch_out) */
/* gcc would turn the loops that copy vectors into memcpy calls, expanded as
 * 16-byte moves that the 32-byte loads after them cannot forward from (a
 * stall per vector), and keeps loop-invariant branches inside loops. */
#if defined(__GNUC__) && !defined(__clang__)
#define PW_FN AVX2_FN __attribute__((optimize("no-tree-loop-distribute-patterns", "unswitch-loops")))
#else
#define PW_FN AVX2_FN
#endif

/* Tiles stream only where every row's stores can be line-aligned (a tile
 * row is one whole line, 16 floats; a streamed half line costs a read of
 * the line in memory): the leading columns up to the first 64-byte boundary
 * go element by element; returns how many (*stream cleared when rows cannot
 * all be aligned). */
static int64_t pw_head(const PwProg *p, char *d, int64_t dp, int64_t rows, int64_t cols, bool *stream)
{
	if (*stream && ((uintptr_t)d % 4 || dp % 64))
		*stream = false;
	int64_t h = *stream ? (int64_t)((64 - (uintptr_t)d % 64) % 64 / 4) : 0;
	h = h < cols ? h : cols;
	pw_scalar(p, d, dp, 0, rows, 0, h);
	return h;
}

#define PW_UNROLL _Pragma("GCC unroll 8")
#define PW_INLINE AVX2_FN static inline __attribute__((always_inline))
/* One step over N vectors val[k], side(k) the side operand's vector k;
 * the op, its order and the side's kind are chosen outside the loops. */
#define PW_BIN(OPV)                                                             \
	do {                                                                    \
		if (st->rev)                                                    \
			PW_UNROLL for (int k = 0; k < N; k++) {                 \
				__m256 s_ = PW_SIDE(k);                         \
				val[k] = OPV(s_, val[k]);                       \
			}                                                       \
		else                                                            \
			PW_UNROLL for (int k = 0; k < N; k++) {                 \
				__m256 s_ = PW_SIDE(k);                         \
				val[k] = OPV(val[k], s_);                       \
			}                                                       \
	} while (0)
AVX2_FN static void narrow_floats_avx2(int op, float *d, const float *s, int64_t n);
/* The function op (SOP_EXP ...) of n vectors, d may be s: one call runs
 * them all, their steps overlapping (sop8's call per vector took a GELU's
 * erf 2.6 ns a float) */
AVX2_FN static inline void narrow_vectors(int op, __m256 *d, const __m256 *s, int n)
{
	narrow_floats_avx2(op, (float *)d, (const float *)s, 8 * (int64_t)n);
}
#define PW_MAXV(a, b) sop8(SOP_MAX, a, b)
#define PW_MINV(a, b) sop8(SOP_MIN, a, b)
#define PW_STEP()                                                               \
	switch (st->op) {                                                       \
	case SOP_ADD: PW_BIN(_mm256_add_ps); break;                             \
	case SOP_SUB: PW_BIN(_mm256_sub_ps); break;                             \
	case SOP_MUL: PW_BIN(_mm256_mul_ps); break;                             \
	case SOP_DIV: PW_BIN(_mm256_div_ps); break;                             \
	case SOP_MAX: PW_BIN(PW_MAXV); break;                                   \
	case SOP_MIN: PW_BIN(PW_MINV); break;                                   \
	case SOP_NEG: PW_UNROLL for (int k = 0; k < N; k++) val[k] = sop8(SOP_NEG, val[k], val[k]); break; \
	case SOP_EXP: case SOP_SIGMOID: case SOP_TANH: case SOP_ERF: narrow_vectors(st->op, val, val, N); break; \
	default: PW_UNROLL for (int k = 0; k < N; k++) val[k] = sop8(SOP_RELU, val[k], val[k]); break; \
	}

/* The chain over 8 vectors of a tile's half at row r, column c: val[q]
 * is row q's 8 columns from c. */
PW_INLINE void pw_chain_half(const PwProg *p, const PwChain *ch, __m256 *val, int64_t r, int64_t c)
{
	enum { N = 8 };
	for (int t = 0; t < ch->n; t++) {
		const PwStep *st = &ch->st[t];
		const PwIns *q = st->side >= 0 ? &p->ins[st->side] : NULL;
		if (!q || q->kind == PW_CONST) {
			__m256 e = _mm256_set1_ps(q ? q->c : 0.0f);
#define PW_SIDE(k) e
			PW_STEP();
#undef PW_SIDE
		} else if (q->cs == 4) {
			const char *at = q->p + r * q->rs + c * 4;
			int64_t rs = q->rs;
#define PW_SIDE(k) _mm256_loadu_ps((const float *)(at + (k) * rs))
			PW_STEP();
#undef PW_SIDE
		} else {
			const char *at = q->p + r * q->rs;
			int64_t rs = q->rs;
#define PW_SIDE(k) _mm256_broadcast_ss((const float *)(at + (k) * rs))
			PW_STEP();
#undef PW_SIDE
		}
	}
}

/* The chain over N vectors (8, or fewer: a row's last whole vectors) of
 * row r from column c. */
PW_INLINE void pw_chain_row(const PwProg *p, const PwChain *ch, __m256 *val, int64_t r, int64_t c, const int N)
{
	for (int t = 0; t < ch->n; t++) {
		const PwStep *st = &ch->st[t];
		const PwIns *q = st->side >= 0 ? &p->ins[st->side] : NULL;
		if (!q || q->kind == PW_CONST || q->cs == 0) {
			__m256 e = !q ? _mm256_setzero_ps() : _mm256_set1_ps(q->kind == PW_CONST ? q->c : pw_load1(q, r, 0));
#define PW_SIDE(k) e
			PW_STEP();
#undef PW_SIDE
		} else {
			const float *at = (const float *)(q->p + r * q->rs + c * 4);
#define PW_SIDE(k) _mm256_loadu_ps(at + 8 * (k))
			PW_STEP();
#undef PW_SIDE
		}
	}
}
/* The chain over 8 vectors with each step's side vector e[t] (the same
 * for every row: pw_uniform). */
PW_INLINE void pw_uniform_half(const PwChain *ch, const __m256 *e, __m256 *val)
{
	enum { N = 8 };
	for (int t = 0; t < ch->n; t++) {
		const PwStep *st = &ch->st[t];
#define PW_SIDE(k) e[t]
		PW_STEP();
#undef PW_SIDE
	}
}

#undef PW_STEP
#undef PW_BIN
#undef PW_MAXV
#undef PW_MINV
#undef PW_INLINE

/* Before a step of a transposed chain (rows r to r + 8, columns c to c +
 * 16) that stores plainly into output rows off their lines, the lines of
 * the same columns ahead rows on (ahead 0: none), so that those stores do
 * not each wait for their line (measured alternating in one process on an
 * Intel Xeon, the L3 flushed between runs: relu(x.T * s + b) into 5000 x
 * 3000 1.32x, into 10000 x 12004 1.27x; 8, 16 and 32 rows ahead the same,
 * the pieces of the next 8 rows at once 1.17-1.24x, prefetchw
 * instead of a read prefetch 1.0-1.14x). */
static inline void prefetch_out(const char *d, int64_t dp, int64_t r, int64_t c, int64_t ahead, int64_t r8)
{
	if (!ahead || r + ahead + 8 > r8)
		return;
	for (int k = 0; k < 8; k++) {
		const char *at = d + (r + ahead + k) * dp + c * 4;
		prefetch(at, 0);
		prefetch(at, 63);
	}
}

/* The sides of a chain that it reads along the output's rows (a matrix,
 * like z in x.T + z), into side; how many. */
static int pw_row_sides(const PwProg *p, const PwChain *ch, const PwIns **side)
{
	int n = 0;
	for (int t = 0; t < ch->n; t++) {
		const PwIns *q = ch->st[t].side >= 0 ? &p->ins[ch->st[t].side] : NULL;
		if (q && q->kind == PW_LOAD && q->cs == 4 && q->rs)
			side[n++] = q;
	}
	return n;
}

/* The 4 lines ahead bytes past the 64 lanes at at. */
static inline void pw_prefetch_ahead(const char *at, int64_t ahead)
{
	for (int k = 0; k < 4; k++)
		prefetch(at, ahead + 64 * k);
}

/* Rows of a chain, 64 lanes at a time in registers, the rows it reads
 * prefetched PW_AHEAD ahead (half that on an Intel core: a + b of 8192²
 * 1.03x, measured alternating in one process on an Intel Xeon, the L3
 * flushed between runs; a hand loop of streamed adds there ran 1.06x
 * faster with 1 KiB than with 2 KiB), except with the Zen 4's tuning:
 * there the hardware prefetchers alone are faster (measured alternating on
 * a Zen 4, a + b of 8192² 1.04-1.13x, 1.10 at the median of ten rounds,
 * then within 5 % of a hand-written loop of streamed adds). */
PW_FN static void pw_chain_rows(const PwProg *p, const PwChain *ch, char *d, int64_t dp, int64_t rows, int64_t cols,
				bool stream)
{
	const PwIns *m = &p->ins[ch->main], *ahead[PW_MAX];
	int nahead = pw_row_sides(p, ch, ahead);
	bool pf = seq_prefetch_pays();
	int64_t dist = few_misses() ? PW_AHEAD / 2 : PW_AHEAD;
	for (int64_t r = 0; r < rows; r++) {
		char *dr = d + r * dp;
		int64_t c = 0;
		if (stream)
			for (; c < cols && (uintptr_t)(dr + 4 * c) % 32; c++)
				pw_scalar(p, d, dp, r, r + 1, c, c + 1);
		for (; c + 64 <= cols; c += 64) {
			__m256 val[8];
			if (m->kind == PW_LOAD && m->cs) {
				const float *at = (const float *)(m->p + r * m->rs + c * 4);
				if (pf) {
					pw_prefetch_ahead((const char *)at, dist);
					for (int k = 0; k < nahead; k++)
						pw_prefetch_ahead(ahead[k]->p + r * ahead[k]->rs + c * 4, dist);
				}
				PW_UNROLL for (int k = 0; k < 8; k++)
					val[k] = _mm256_loadu_ps(at + 8 * k);
			} else {
				__m256 e = _mm256_set1_ps(m->kind == PW_CONST ? m->c : pw_load1(m, r, 0));
				for (int k = 0; k < 8; k++)
					val[k] = e;
			}
			pw_chain_row(p, ch, val, r, c, 8);
			PW_UNROLL for (int k = 0; k < 8; k++)
				store_4(dr + 4 * (c + 8 * k), val[k], stream);
		}
		if (c + 8 <= cols) { /* the last whole vectors at once (rows of 16 to 56) */
			int nv = (int)((cols - c) / 8);
			__m256 val[8];
			for (int k = 0; k < nv; k++)
				val[k] = m->kind == PW_LOAD && m->cs ? _mm256_loadu_ps((const float *)(m->p + r * m->rs + (c + 8 * k) * 4))
				         : _mm256_set1_ps(m->kind == PW_CONST ? m->c : pw_load1(m, r, 0));
			pw_chain_row(p, ch, val, r, c, nv);
			for (int k = 0; k < nv; k++)
				store_4(dr + 4 * (c + 8 * k), val[k], stream);
			c += 8 * nv;
		}
		pw_scalar(p, d, dp, r, r + 1, c, cols);
	}
}

/* Instruction by instruction, over N vectors (8, or fewer: a row's last
 * whole vectors) of row r from column c, into v[i]: the instructions
 * live[] marks, every load along the row or one value per row (no
 * transposes). */
AVX2_FN static inline __attribute__((always_inline)) void pw_tree_step(const PwProg *p, const bool *live, __m256 (*v)[8], int64_t r, int64_t c, const int N)
{
	for (int i = 0; i < p->n; i++) {
		const PwIns *q = &p->ins[i];
		if (!live[i])
			continue;
		if (q->kind == PW_LOAD && q->cs) {
			const float *at = (const float *)(q->p + r * q->rs + c * 4);
			PW_UNROLL for (int k = 0; k < N; k++)
				v[i][k] = _mm256_loadu_ps(at + 8 * k);
			continue;
		}
		if (q->kind != PW_OP) {
			__m256 e = _mm256_set1_ps(q->kind == PW_CONST ? q->c : pw_load1(q, r, 0));
			PW_UNROLL for (int k = 0; k < N; k++)
				v[i][k] = e;
			continue;
		}
		const __m256 *a = v[q->a], *b = v[q->b];
		switch (q->op) {
#define PW_TREE_OP(OP)                                                  \
	case OP:                                                        \
		PW_UNROLL for (int k = 0; k < N; k++)                   \
			v[i][k] = sop8(OP, a[k], b[k]);                 \
		break;
			PW_TREE_OP(SOP_ADD)
			PW_TREE_OP(SOP_SUB)
			PW_TREE_OP(SOP_MUL)
			PW_TREE_OP(SOP_DIV)
			PW_TREE_OP(SOP_MAX)
			PW_TREE_OP(SOP_MIN)
			PW_TREE_OP(SOP_NEG)
			case SOP_EXP:
			case SOP_SIGMOID:
			case SOP_TANH:
			case SOP_ERF: narrow_vectors(q->op, v[i], a, N); break;
			default:
				PW_UNROLL for (int k = 0; k < N; k++) v[i][k] = sop8(SOP_RELU, a[k], b[k]);
				break;
#undef PW_TREE_OP
		}
	}
}

/* Rows of a program that is no chain (x·c - y·s, the halves of RoPE: an op
 * of two ops) and reads along rows: pw_tree_step over 64 lanes at a time,
 * each instruction's vectors in a small array (L1, where the register
 * machine's lanes of a unit are 4 KiB a register, one pass per op), then
 * the row's last whole vectors in one step, then one by one. Each step
 * prefetches the rows it reads as pw_chain_rows does (measured on a Zen 3,
 * two threads, alternating: RoPE's two statements over (4096, 1024)
 * 2.9-3.3 -> 2.1-2.4 ms, one of them alone 2.1-2.5 -> 1.0-1.3 ms; the
 * loads had waited on memory). */
PW_FN static void pw_tree_rows(const PwProg *p, char *d, int64_t dp, int64_t rows, int64_t cols, bool stream)
{
	__m256 v[PW_MAX][8];
	bool live[PW_MAX] = {false};
	live[p->result] = true;
	for (int i = p->n - 1; i >= 0; i--)
		if (live[i] && p->ins[i].kind == PW_OP)
			live[p->ins[i].a] = live[p->ins[i].b] = true;
	const PwIns *ahead[PW_MAX];
	int nahead = 0;
	for (int i = 0; seq_prefetch_pays() && i < p->n; i++)
		if (live[i] && p->ins[i].kind == PW_LOAD && p->ins[i].cs && p->ins[i].rs) /* a row read again each row: none */
			ahead[nahead++] = &p->ins[i];
	int64_t dist = few_misses() ? PW_AHEAD / 2 : PW_AHEAD;
	for (int64_t r = 0; r < rows; r++) {
		char *dr = d + r * dp;
		int64_t c = 0;
		if (stream)
			for (; c < cols && (uintptr_t)(dr + 4 * c) % 32; c++)
				pw_scalar(p, d, dp, r, r + 1, c, c + 1);
		for (; c + 64 <= cols; c += 64) {
			for (int k = 0; k < nahead; k++)
				pw_prefetch_ahead(ahead[k]->p + r * ahead[k]->rs + c * 4, dist);
			pw_tree_step(p, live, v, r, c, 8);
			PW_UNROLL for (int k = 0; k < 8; k++)
				store_4(dr + 4 * (c + 8 * k), v[p->result][k], stream);
		}
		if (c + 8 <= cols) { /* the last whole vectors at once: rows of 16 take one step */
			int nv = (int)((cols - c) / 8);
			pw_tree_step(p, live, v, r, c, nv);
			for (int k = 0; k < nv; k++)
				store_4(dr + 4 * (c + 8 * k), v[p->result][k], stream);
			c += 8 * nv;
		}
		pw_scalar(p, d, dp, r, r + 1, c, cols);
	}
}

/* Does every side of the chain hold the same vector in every row of a
 * strip (a constant, or a load of the same columns for every row)? Then
 * the sides are loaded once per tile (pw_form, pw_chain_tiles). */
static bool pw_uniform(const PwProg *p, const PwChain *ch)
{
	for (int t = 0; t < ch->n; t++) {
		const PwIns *q = ch->st[t].side >= 0 ? &p->ins[ch->st[t].side] : NULL;
		if (q && q->kind != PW_CONST && !(q->cs == 4 && q->rs == 0))
			return false;
	}
	return true;
}

/* A chain (with pw_uniform sides: a constant or the same row of floats for
 * every row) that the tiles run in one fixed form, clamp(v * a + b): an
 * optional neg, an optional mul, an optional add or sub, then an optional
 * relu, max or min. Each op rounds as the chain's own: v * 1 and v + -0.0
 * are v, -x is exact, v - b is v + -b and b - v is -v + b. No step is
 * chosen per tile: the 16 vectors of a tile stay in registers. */
#define PWF_INLINE AVX2_FN static inline __attribute__((always_inline))

/* A loop header: the statement after it runs once per step of a transposed
 * chain's tiles, with r and c the step's first output row and column. A
 * step is 8 rows by 16 columns (16 source rows); the steps go along the
 * rows first (the block's 32 source rows read 32 bytes at a time), or
 * (down) down the columns first, so that the 16 source rows a step reads
 * 32 bytes of are the ones the step before read (pw_down says which). */
#define PW_TILES(r8, c0, c16, down)                                                                 \
	for (int64_t o_ = 0, no_ = (down) ? ((c16) - (c0)) / 16 : (r8) / 8,                          \
	             ni_ = (down) ? (r8) / 8 : ((c16) - (c0)) / 16; o_ < no_; o_++)                   \
		for (int64_t i_ = 0, r = 8 * ((down) ? i_ : o_), c = (c0) + 16 * ((down) ? o_ : i_); \
		     i_ < ni_; i_++, r = 8 * ((down) ? i_ : o_), c = (c0) + 16 * ((down) ? o_ : i_))

/* Down the columns first, on a large L1, where the source rows' lines
 * collide in the caches: the lines a step missed in L1 are still in L2
 * for the step after (measured alternating on a Zen 5, relu(x.T * s + b)
 * of 8192² f32, rows 32 KiB apart: 1.06-1.13x faster). On a small L1
 * (small_l1) the other way round, as its plain transposes take 16 rows
 * at pitches that are no multiple of 4 KiB and 32 at those that are
 * (measured alternating on a Zen 3: relu(x.T * s + b) of 7264², 1216 x
 * 43408, 43408 x 1216 and 5000 x 3000 1.21-1.44x faster down; of 8192²,
 * x.T * s + b of 4096 x 16384 and x.T / s of 16384 x 1024 0.55-0.63x).
 * A chain in pw_form's shape walks down there at every pitch, since its
 * tasks read whole source rows (pw_whole_rows; measured alternating in one
 * process on a Zen 4, at 4 KiB pitches: relu(x.T * s + b) of 8192² 1.05x,
 * relu(x.T - s) of 16384 x 4096 1.07x, x.T * s + b of 4096 x 16384 1.00x;
 * chains of other shapes lost, x.T / s of 16384 x 1024 0.95x and x.T + z
 * of 8192² 0.83x). */
static inline bool pw_down(int64_t sp, bool form)
{
	return small_l1() ? form || !pitch_4k(sp) : sets_collide(sp);
}

enum { PWF_NONE, PWF_RELU, PWF_MAX, PWF_MIN };
typedef struct {
	const PwIns *a, *b, *l; /* the mul's, add's and clamp's sides, or NULL */
	bool neg_a, neg_b;
	int clamp;
} PwForm;

static bool pw_form(const PwProg *p, const PwChain *ch, PwForm *f)
{
	const PwStep *st = ch->st;
	int t = 0;
	*f = (PwForm){.clamp = PWF_NONE};
	if (t < ch->n && st[t].op == SOP_NEG)
		f->neg_a = true, t++;
	if (t < ch->n && st[t].op == SOP_MUL)
		f->a = &p->ins[st[t++].side];
	if (t < ch->n && (st[t].op == SOP_ADD || st[t].op == SOP_SUB)) {
		f->b = &p->ins[st[t].side];
		if (st[t].op == SOP_SUB && st[t].rev)
			f->neg_a = !f->neg_a;
		else if (st[t].op == SOP_SUB)
			f->neg_b = true;
		t++;
	}
	if (t < ch->n && st[t].op == SOP_RELU) {
		f->clamp = PWF_RELU, t++;
	} else if (t < ch->n && (st[t].op == SOP_MAX || st[t].op == SOP_MIN) && !st[t].rev) {
		f->clamp = st[t].op == SOP_MAX ? PWF_MAX : PWF_MIN;
		f->l = &p->ins[st[t++].side];
	}
	return t == ch->n;
}

/* Side q's 8 floats from column c (a constant: 8 copies; none: dflt),
 * negated when neg. */
AVX2_FN static inline __m256 pw_side(const PwIns *q, int64_t c, bool neg, float dflt)
{
	__m256 v = !q ? _mm256_set1_ps(dflt) : q->kind == PW_CONST ? _mm256_set1_ps(q->c) :
	           _mm256_loadu_ps((const float *)(q->p + c * 4));
	return neg ? _mm256_xor_ps(v, _mm256_set1_ps(-0.0f)) : v;
}

PWF_INLINE __m256 pw_form1(__m256 v, __m256 a, __m256 b, __m256 l, int clamp)
{
	v = _mm256_add_ps(_mm256_mul_ps(v, a), b);
	return clamp == PWF_RELU ? sop8(SOP_RELU, v, v) : clamp == PWF_MAX ? sop8(SOP_MAX, v, l) :
	       clamp == PWF_MIN ? sop8(SOP_MIN, v, l) : v;
}

/* pw_form1's a, b and l for the 8 columns from c, in v[0] to v[2]. */
PWF_INLINE void pw_form_sides(const PwForm *f, int64_t c, __m256 *v)
{
	v[0] = pw_side(f->a, c, f->neg_a, 1.0f);
	v[1] = pw_side(f->b, c, f->neg_b, -0.0f);
	v[2] = pw_side(f->l, c, false, 0.0f);
}

/* A uniform chain's (pw_uniform) side vector of each step t for the 8
 * columns from c, in e[t]. */
PWF_INLINE void pw_uniform_sides(const PwProg *p, const PwChain *ch, int64_t c, __m256 *e)
{
	for (int t = 0; t < ch->n; t++)
		e[t] = pw_side(ch->st[t].side >= 0 ? &p->ins[ch->st[t].side] : NULL, c, false, 0.0f);
}

/* Does a transposed chain walk bands (a chain that reads no side along
 * the output's rows: bands) or sub-tiles of 2 PW_SUB output rows, each
 * prefetching the next one's lines (one that does: pw_chain_sub), with
 * both threads on the two halves of the same source rows (pw_whole_rows)?
 * On an Intel core (few_misses): where the source rows lie a multiple of 4
 * KiB apart, and a chain not in pw_form's shape also where it reads a side
 * along the output's rows (measured alternating in one process on an
 * Intel Xeon, the L3 flushed between runs, sub-tiles against whole rows
 * walked down the columns: x.T + z of 8192² 1.5-1.6x, of 7264² 1.25x, at
 * a pitch of 8208 floats 1.35x, x.T * z of 4096 x 16384 1.6x; x.T / s of
 * 8192² 1.11x, of 16384 x 1024 1.13x, before the bands; without a side at
 * other pitches x.T / s of 7264² lost, 0.93x, and so did the bands). Not
 * into rows off their lines, which take plain stores (pw_chain_tiles):
 * x.T + z into 6001² ran 0.74x in sub-tiles. */
static bool sub_tiles(const PwProg *p, const PwChain *ch, bool form, int nside)
{
	return few_misses() && (pitch_4k(p->ins[ch->main].cs) || (!form && nside > 0));
}

/* The prefetches of a sub-tile of output rows r0 to r1 for the next one,
 * rows r1 to rn, spread over the sub-tile's steps: the source's lines,
 * row after row, and those of each side read along rows. */
typedef struct {
	NextTile t[1 + PW_MAX];
	int n;
} SubNext;

static inline void sub_next(SubNext *w, const PwIns *m, const PwIns *const *side, int nside, int64_t r0, int64_t r1,
			    int64_t rn, int64_t c0, int64_t c16)
{
	int64_t steps = (r1 - r0) / 8 * ((c16 - c0) / 16), off = r1 * 4 + c0 * m->cs;
	w->n = 1 + nside;
	w->t[0] = next_tile(m->p, off, m->cs, row_lines(m->p, off, m->cs, (rn - r1) * 4), c16 - c0, steps, true);
	for (int k = 0; k < nside; k++) {
		const PwIns *q = side[k];
		off = r1 * q->rs + c0 * 4;
		w->t[1 + k] = next_tile(q->p, off, q->rs, row_lines(q->p, off, q->rs, (c16 - c0) * 4), rn - r1, steps, true);
	}
}

static inline void sub_next_step(SubNext *w)
{
	for (int k = 0; k < w->n; k++)
		next_tile_step(&w->t[k]);
}

/* One step of pw_form_tiles: output rows r to r + 8, columns c to c + 16
 * (16 source rows). */
PWF_INLINE void pw_form_step(const PwForm *f, const PwIns *m, char *d, int64_t dp, int64_t r, int64_t c, int clamp,
			     bool stream)
{
	const char *at = m->p + r * 4 + c * m->cs;
	__m256 lo[8], hi[8];
	tr8x8_4(at, m->cs, lo);
	tr8x8_4(at + 8 * m->cs, m->cs, hi);
	__m256 v0[3], v1[3];
	pw_form_sides(f, c, v0);
	pw_form_sides(f, c + 8, v1);
	PW_UNROLL for (int k = 0; k < 8; k++) { /* whole lines, back to back */
		char *dr = d + (r + k) * dp + c * 4;
		store_4(dr, pw_form1(lo[k], v0[0], v0[1], v0[2], clamp), stream);
		store_4(dr + 32, pw_form1(hi[k], v1[0], v1[1], v1[2], clamp), stream);
	}
}

/* The band walk of a transposed chain, or of a plain 4-byte transpose,
 * where the source rows lie a multiple of 4 KiB apart on an Intel core
 * (sub_tiles, plan_trans). There a step of 16 source rows puts all its 16
 * lines in one L1 set of 12 ways, and the lines prefetched for the steps
 * after it land in one set each too, so most are evicted before they are
 * read. The output is cut into blocks of PW_BAND_LINES source lines (16
 * output rows each) by up to PW_BAND_COLS output columns; each band of 8
 * source rows of a block is read a whole line at a time along its rows,
 * its two 8x8 kernels (16 output rows of 8 columns) stored in an L1
 * buffer (PwBands), so that a step puts 8 lines in a set; each step
 * prefetches the line PW_BAND_AHEAD steps on in the walk's order (of its
 * own 8 rows, or at a band's end of the next band's), and streams out a
 * few whole rows of the block before's buffer. Measured alternating in
 * one process on an Intel Xeon, the L3 warm, against sub-tiles of 64
 * output rows that prefetched the next one's lines: relu(x.T * s + b) of
 * 8192² 1.16-1.19x, relu(x.T - s) of 16384 x 4096 1.17x, x.T * s + b of
 * 4096 x 16384 1.09x, x.T / s of 8192² 1.28x and of 16384 x 1024 1.21x.
 * Lost: blocks of 4 or 16 lines (0.97x, 0.90x), prefetches 8 or 12 steps
 * on (0.96x, 0.93x), or another 16 to 64 on into L2 (0.93-0.96x), none
 * (0.94x), the output stored at the block's end rather than spread over
 * the next block's steps (0.89x), bands of 16 output columns (0.76x),
 * the two threads on the two halves of the columns (0.78x) or the second
 * walking back (0.98x), kernels that put the rows' halves together as
 * they load them (0.96x); at other pitches the bands ran level, 0.92x on
 * 43408 x 1216. */
#define PW_BAND_LINES 8
#define PW_BAND_AHEAD 4
#define PW_BAND_COLS 32

typedef struct {
	float buf[2][16 * PW_BAND_LINES][PW_BAND_COLS] __attribute__((aligned(64))); /* a block's output rows, the next's */
} PwBands;

/* A position in the band walk: line j of band g of block b. */
typedef struct {
	int64_t b, g, j;
} BandAt;

static inline int64_t band_lines(int64_t b, int64_t lines)
{
	return min64(PW_BAND_LINES, lines - b * PW_BAND_LINES);
}

static inline void band_next(BandAt *at, int64_t nbands, int64_t lines)
{
	if (++at->j < band_lines(at->b, lines))
		return;
	at->j = 0;
	if (++at->g < nbands)
		return;
	at->g = 0, at->b++;
}

/* Rows k0 to k1 of block b's buffer (n columns), to the output, a vector
 * at a time (stream_copy_avx2 per row ran x.T / s of 8192² 0.97x,
 * alternating in one process). */
AVX2_FN static inline void band_out(char *d, int64_t dp, const float (*buf)[PW_BAND_COLS], int64_t b, int64_t k0,
				    int64_t k1, int64_t n, bool stream)
{
	for (int64_t k = k0; k < k1; k++) {
		char *dr = d + (b * 16 * PW_BAND_LINES + k) * dp;
		for (int64_t h = 0; h < n; h += 8)
			store_4(dr + 4 * h, _mm256_load_ps(&buf[k][h]), stream);
	}
}

/* What the band walk computes: a chain in pw_form's shape (f, clamp: a
 * constant where it is called), or any chain (p, ch, uniform). */
typedef struct {
	const PwForm *f;
	int clamp;
	const PwProg *p;
	const PwChain *ch;
	bool uniform;
} BandOp;

/* Band g's 16 output rows of source line (b, j), columns c to c + 8, in
 * lo (rows r to r + 8) and hi (the 8 after); v holds the band's side
 * vectors (pw_form's a, b, l; a uniform chain's steps'). */
PWF_INLINE void band_op(const BandOp *o, const __m256 *v, __m256 *lo, __m256 *hi, int64_t r, int64_t c)
{
	if (o->f) {
		PW_UNROLL for (int k = 0; k < 8; k++) {
			lo[k] = pw_form1(lo[k], v[0], v[1], v[2], o->clamp);
			hi[k] = pw_form1(hi[k], v[0], v[1], v[2], o->clamp);
		}
	} else if (o->uniform) {
		pw_uniform_half(o->ch, v, lo);
		pw_uniform_half(o->ch, v, hi);
	} else {
		pw_chain_half(o->p, o->ch, lo, r, c);
		pw_chain_half(o->p, o->ch, hi, r + 8, c);
	}
}

/* The side vectors of band_op for the band at column c. */
PWF_INLINE void band_sides(const BandOp *o, __m256 *v, int64_t c)
{
	if (o->f)
		pw_form_sides(o->f, c, v);
	else if (o->uniform)
		pw_uniform_sides(o->p, o->ch, c, v);
}

/* The band walk over lines source lines (16 output rows each) by n output
 * columns (16 or PW_BAND_COLS) from c0, whose first is at d. */
PWF_INLINE void bands_cols(const BandOp *o, const PwIns *m, char *d, int64_t dp, int64_t lines, int64_t c0, int64_t n,
			   bool stream, PwBands *w)
{
	int64_t nbands = n / 8, nblocks = (lines + PW_BAND_LINES - 1) / PW_BAND_LINES;
	BandAt ahead = {0, 0, 0};
	for (int k = 0; k < PW_BAND_AHEAD; k++)
		band_next(&ahead, nbands, lines);
	for (int64_t b = 0; b < nblocks; b++) {
		int64_t nl = band_lines(b, lines), prev = b ? 16 * PW_BAND_LINES : 0, done = 0;
		int64_t per = (prev + nbands * nl - 1) / (nbands * nl);
		float(*buf)[PW_BAND_COLS] = w->buf[b & 1];
		for (int64_t g = 0; g < nbands; g++) {
			int64_t c = c0 + 8 * g;
			__m256 v[PW_MAX > 3 ? PW_MAX : 3];
			band_sides(o, v, c);
			for (int64_t j = 0; j < nl; j++) {
				if (ahead.b < nblocks) {
					prefetch_rows(m->p + (c0 + 8 * ahead.g) * m->cs, m->cs, 8,
						      (ahead.b * PW_BAND_LINES + ahead.j) * 64);
					band_next(&ahead, nbands, lines);
				}
				if (done < prev) {
					int64_t end = min64(done + per, prev);
					band_out(d, dp, (const float(*)[PW_BAND_COLS])w->buf[(b - 1) & 1], b - 1, done, end, n,
						 stream);
					done = end;
				}
				int64_t r = (b * PW_BAND_LINES + j) * 16;
				const char *at = m->p + r * 4 + c * m->cs;
				__m256 lo[8], hi[8];
				tr8x8_4(at, m->cs, lo);
				tr8x8_4(at + 32, m->cs, hi);
				band_op(o, v, lo, hi, r, c);
				PW_UNROLL for (int k = 0; k < 8; k++) {
					_mm256_store_ps(&buf[16 * j + k][8 * g], lo[k]);
					_mm256_store_ps(&buf[16 * j + 8 + k][8 * g], hi[k]);
				}
			}
		}
		if (b + 1 == nblocks)
			band_out(d, dp, (const float(*)[PW_BAND_COLS])buf, b, 0, 16 * nl, n, stream);
	}
}

/* Output rows 0 to r16 (a multiple of 16), columns c0 to c16 (a multiple
 * of 16 on), in bands; each thread's buffer is its own (32 KiB). */
PWF_INLINE void bands(const BandOp *o, const PwIns *m, char *d, int64_t dp, int64_t r16, int64_t c0, int64_t c16,
		      bool stream)
{
	static _Thread_local PwBands w;
	for (int64_t c = c0; c < c16; c += PW_BAND_COLS)
		bands_cols(o, m, d + c * 4, dp, r16 / 16, c, min64(PW_BAND_COLS, c16 - c), stream, &w);
}

/* A 4-byte transpose of na16 source rows by nb16 columns (multiples of
 * 16), streamed, in bands: a chain of no steps. */
AVX2_FN void tr_bands4(char *d, int64_t dp, const char *s, int64_t sp, int64_t na16, int64_t nb16)
{
	PwChain ch = {.n = 0};
	PwIns m = {.p = s, .cs = sp};
	BandOp o = {.ch = &ch, .uniform = true};
	bands(&o, &m, d, dp, nb16, 0, na16, true);
}

/* The tiles of pw_chain_tiles in form f; clamp and stream are constants
 * where it is called. With sub (sub_tiles) in bands, else in PW_TILES's
 * walk down the columns with its prefetch along the rows. */
PWF_INLINE void pw_form_tiles(const PwForm *f, const PwIns *m, char *d, int64_t dp, int64_t r8, int64_t c0,
			     int64_t c16, int clamp, bool stream, int64_t ahead, bool sub, int64_t out_ahead)
{
	if (sub) {
		BandOp o = {.f = f, .clamp = clamp};
		bands(&o, m, d, dp, r8 & ~(int64_t)15, c0, c16, stream);
		if (r8 % 16)
			for (int64_t c = c0; c < c16; c += 16)
				pw_form_step(f, m, d, dp, r8 - 8, c, clamp, stream);
		return;
	}
	PW_TILES(r8, c0, c16, pw_down(m->cs, true)) {
			if (ahead && r % 16 == 0)
				prefetch_rows(m->p + r * 4 + c * m->cs, m->cs, 16, ahead);
			prefetch_out(d, dp, r, c, out_ahead, r8);
			pw_form_step(f, m, d, dp, r, c, clamp, stream);
		}
}

#define PW_FORM_CASE(K)                                                                           \
	case K:                                                                                   \
		if (stream)                                                                       \
			pw_form_tiles(f, m, d, dp, r8, c0, c16, K, true, ahead, sub, 0);          \
		else                                                                              \
			pw_form_tiles(f, m, d, dp, r8, c0, c16, K, false, ahead, sub, out_ahead); \
		break;
PW_FN static void pw_form_run(const PwForm *f, const PwIns *m, char *d, int64_t dp, int64_t r8, int64_t c0,
			      int64_t c16, bool stream, int64_t ahead, bool sub, int64_t out_ahead)
{
	switch (f->clamp) {
		PW_FORM_CASE(PWF_NONE)
		PW_FORM_CASE(PWF_RELU)
		PW_FORM_CASE(PWF_MAX)
		PW_FORM_CASE(PWF_MIN)
	}
}
#undef PWF_INLINE
#undef PW_FORM_CASE

/* One step of a chain not in pw_form's shape: output rows r to r + 8,
 * columns c to c + 16, half a tile (8 vectors in registers) at a time, into
 * an L1 buffer from which each row's two halves are stored back to back
 * (its steps on all 16 vectors at once spilled them around every step:
 * 1.4-1.5x the form's time on relu(x.T * s + b)). */
AVX2_FN static inline __attribute__((always_inline)) void pw_chain_step(const PwProg *p, const PwChain *ch,
									bool uniform, char *d, int64_t dp,
									int64_t r, int64_t c, bool stream)
{
	const PwIns *m = &p->ins[ch->main];
	const char *at = m->p + r * 4 + c * m->cs;
	float buf[8][16] __attribute__((aligned(32)));
	for (int h = 0; h < 2; h++) { /* each half's 8 vectors in registers */
		__m256 v[8];
		tr8x8_4(at + 8 * h * m->cs, m->cs, v);
		if (uniform) {
			__m256 e[PW_MAX];
			pw_uniform_sides(p, ch, c + 8 * h, e);
			pw_uniform_half(ch, e, v);
		} else {
			pw_chain_half(p, ch, v, r, c + 8 * h);
		}
		PW_UNROLL for (int k = 0; k < 8; k++)
			_mm256_store_ps(&buf[k][8 * h], v[k]);
	}
	PW_UNROLL for (int k = 0; k < 8; k++) { /* whole lines, back to back */
		char *dr = d + (r + k) * dp + c * 4;
		store_4(dr, _mm256_load_ps(&buf[k][0]), stream);
		store_4(dr + 32, _mm256_load_ps(&buf[k][8]), stream);
	}
}

/* A chain not in pw_form's shape where sub_tiles says so: in bands, or
 * where it reads a side along rows in sub-tiles of 2 PW_SUB rows (x.T + z
 * of 8192² and 7264² 1.04-1.08x, x.T * z of 4096 x 16384 1.05x against
 * PW_SUB, measured as for sub_tiles), each prefetching the next one's
 * lines of the source and of those sides. Bands lost there, 0.85-0.95x,
 * with the chain run on the output's rows as they leave the buffer and
 * those sides prefetched a block ahead. */
PW_FN static void pw_chain_sub(const PwProg *p, const PwChain *ch, bool uniform, const PwIns *const *side, int nside,
			       char *d, int64_t dp, int64_t r8, int64_t c0, int64_t c16, bool stream)
{
	const PwIns *m = &p->ins[ch->main];
	if (!nside) {
		BandOp o = {.p = p, .ch = ch, .uniform = uniform};
		int64_t r16 = r8 & ~(int64_t)15;
		bands(&o, m, d, dp, r16, c0, c16, stream);
		if (r8 % 16)
			for (int64_t c = c0; c < c16; c += 16)
				pw_chain_step(p, ch, uniform, d, dp, r16, c, stream);
		return;
	}
	int64_t n = 2 * PW_SUB;
	for (int64_t r0 = 0; r0 < r8; r0 += n) {
		int64_t r1 = min64(r0 + n, r8);
		SubNext w;
		sub_next(&w, m, side, nside, r0, r1, min64(r1 + n, r8), c0, c16);
		for (int64_t r = r0; r < r1; r += 8)
			for (int64_t c = c0; c < c16; c += 16) {
				pw_chain_step(p, ch, uniform, d, dp, r, c, stream);
				sub_next_step(&w);
			}
	}
}

/* Tiles of a chain whose value is a transposed load, in the order of
 * tr_tile4: 8 rows at a time, along them 16 columns (16 source rows) per
 * step. Two 8x8 kernels read 8 floats of 16 source rows, whose next 8 the
 * next 8 rows read while the lines are still in L1; each row's two vectors
 * are stored back to back, so the 8 rows are written as 8 streams of whole
 * lines. A chain of pw_form's shape runs in it; any other takes its steps
 * on half a tile (pw_chain_step). Where sub_tiles says so the walk goes in
 * bands or sub-tiles; else the source rows are prefetched as tr_tile4 prefetches
 * them (their heads, then prefetch_ahead() bytes ahead), except at a pitch
 * where their lines collide (sets_collide). */
PW_FN static void pw_chain_tiles(const PwProg *p, const PwChain *ch, char *d, int64_t dp, int64_t rows, int64_t cols,
				 bool stream)
{
	const PwIns *m = &p->ins[ch->main];
	bool big = stream; /* an output big enough to stream, if its rows allow */
	int64_t c0 = pw_head(p, d, dp, rows, cols, &stream), r8 = rows & ~(int64_t)7;
	int64_t c16 = c0 + ((cols - c0) & ~(int64_t)15);
	bool off_lines = big && !stream; /* rows off their lines: plain stores */
	int64_t out_ahead = off_lines && few_misses() ? PW_OUT_AHEAD : 0;
	PwForm f;
	const PwIns *side[PW_MAX];
	int nside = pw_row_sides(p, ch, side);
	bool uniform = pw_uniform(p, ch), form = uniform && pw_form(p, ch, &f);
	bool sub = !off_lines && sub_tiles(p, ch, form, nside);
	int64_t ahead = sub ? 0 : prefetch_ahead(m->cs);
	if (ahead)
		prefetch_heads(m->p + c0 * m->cs, m->cs, c16 - c0, ahead);
	if (form)
		pw_form_run(&f, m, d, dp, r8, c0, c16, stream, ahead, sub, out_ahead);
	else if (sub)
		pw_chain_sub(p, ch, uniform, side, nside, d, dp, r8, c0, c16, stream);
	PW_TILES(form || sub ? 0 : r8, c0, c16, pw_down(m->cs, false)) {
			if (ahead && r % 16 == 0)
				prefetch_rows(m->p + r * 4 + c * m->cs, m->cs, 16, ahead);
			prefetch_out(d, dp, r, c, out_ahead, r8);
			pw_chain_step(p, ch, uniform, d, dp, r, c, stream);
		}
	pw_scalar(p, d, dp, r8, rows, c0, c16);
	pw_scalar(p, d, dp, 0, rows, c16, cols);
}
#endif

bool pw_form_fits(const PwProg *p)
{
#ifdef X86
	PwChain ch;
	PwForm f;
	return pw_fits(p) && pw_chain(p, &ch) && pw_trans(&p->ins[ch.main]) && pw_uniform(p, &ch) && pw_form(p, &ch, &f);
#else
	(void)p;
	return false;
#endif
}

/* Does a chain whose value is transposed read best over whole source rows
 * on this core, rather than a block's (see vm_whole_rows)? On a small L1
 * and on an Intel core (few_misses). Measured alternating on a Zen 4,
 * relu(x.T * s + b) as the plan's blocks of 32 source rows by 1 KiB of
 * each, one task per block, against a task per 32 source rows, whole:
 * 1.04-1.10x at 8192², 1.12-1.15x at 7264². On an Intel Xeon, the L3
 * flushed between runs, against the plan's blocks: relu(x.T * s + b) 1.11x
 * at 7264², 1.03x at 1216 x 43408, 1.12x at 43408 x 1216, 1.08x at a pitch
 * of 8208 floats, and with pw_form_tiles's sub-tiles 1.10x at 8192²;
 * x.T / s of 16384 x 1024 1.05x; with the L3 warm, x.T + z of 8192² 0.95x
 * (which reads z 128 bytes per row either way). */
int pw_whole_rows(const PwProg *p)
{
#ifdef X86
	PwChain ch;
	if (!(small_l1() || few_misses()) || !pw_fits(p) || !pw_chain(p, &ch) || !pw_trans(&p->ins[ch.main]))
		return PW_BLOCKS;
	/* the sub-tiles read best with the two threads on the two halves of
	 * the same source rows (measured alternating in one process on an
	 * Intel Xeon, the L3 flushed between runs, against whole rows:
	 * x.T + z of 8192² 1.09x and at a pitch of 8208 floats 1.19x; at
	 * other pitches, without them, relu(x.T * s + b) of 7264² 0.96x, a
	 * pitch of 8208 floats 0.98x), and so do the bands, if by less (the
	 * same, the L3 warm: relu(x.T * s + b) of 8192² 1.02x, x.T * s + b of
	 * 4096 x 16384 1.05x, relu(x.T - s) of 16384 x 4096 0.97x, x.T / s of
	 * 8192² 1.02x and of 16384 x 1024 1.00x) */
	PwForm f;
	const PwIns *side[PW_MAX];
	int nside = pw_row_sides(p, &ch, side);
	return sub_tiles(p, &ch, pw_uniform(p, &ch) && pw_form(p, &ch, &f), nside) ? PW_HALVES : PW_WHOLE;
#else
	(void)p;
	return PW_BLOCKS;
#endif
}

void pw_run(const PwProg *p, char *d, int64_t dp, int64_t rows, int64_t cols, bool stream)
{
#ifdef X86
	PwChain ch;
	if (pick_simd() == SIMD_AVX2 && pw_chain(p, &ch)) {
		if (pw_trans(&p->ins[ch.main]))
			pw_chain_tiles(p, &ch, d, dp, rows, cols, stream);
		else
			pw_chain_rows(p, &ch, d, dp, rows, cols, stream);
		return;
	}
	if (pick_simd() == SIMD_AVX2 && !pw_transposes(p)) {
		pw_tree_rows(p, d, dp, rows, cols, stream);
		return;
	}
#endif
	(void)stream;
	pw_scalar(p, d, dp, 0, rows, 0, cols);
}

/* ---------------------------------------------------- f16 rows */

#ifdef X86
/* f16 rows with F16C: exact one way, rounded once to nearest even the
 * other, as f16_to_float and f16_from_float; NaNs are made the quiet NaN of
 * their sign first (F16C keeps their payloads), as those do. */
AVX2_FN static inline __m256 quiet_nans(__m256 v)
{
	__m256 sign = _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u)));
	__m256 quiet = _mm256_or_ps(sign, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)));
	return _mm256_blendv_ps(v, quiet, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

__attribute__((target("avx2,f16c"))) static void f16_load_f16c(float *d, const uint16_t *s, int64_t n)
{
	int64_t i = 0;
	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(d + i, quiet_nans(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i)))));
	for (; i < n; i++)
		d[i] = f16_to_float(s[i]);
}

__attribute__((target("avx2,f16c"))) static void f16_store_f16c(uint16_t *d, const float *s, int64_t n)
{
	int64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256 v = quiet_nans(_mm256_loadu_ps(s + i));
		_mm_storeu_si128((__m128i *)(d + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
	}
	for (; i < n; i++)
		d[i] = f16_from_float(s[i]);
}

#endif

void f16_to_floats(float *d, const uint16_t *s, int64_t n)
{
#ifdef X86
	if (has_f16c()) {
		f16_load_f16c(d, s, n);
		return;
	}
#endif
	for (int64_t i = 0; i < n; i++)
		d[i] = f16_to_float(s[i]);
}

void f16_from_floats(uint16_t *d, const float *s, int64_t n)
{
#ifdef X86
	if (has_f16c()) {
		f16_store_f16c(d, s, n);
		return;
	}
#endif
	for (int64_t i = 0; i < n; i++)
		d[i] = f16_from_float(s[i]);
}

#ifdef X86
/* c[0] + c[1]·x + ... + c[n-1]·x^(n-1) by Horner's rule. */
AVX2_FN static inline __m256d poly4(__m256d x, const double *c, int n)
{
	__m256d p = _mm256_set1_pd(c[n - 1]);
	_Pragma("GCC unroll 24") for (int k = n - 2; k >= 0; k--)
		p = _mm256_add_pd(_mm256_mul_pd(p, x), _mm256_set1_pd(c[k]));
	return p;
}

/* ln 2 in two parts: LN2_HI has 32 trailing zero bits, so its product
 * with an integer of up to 21 bits is exact. */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10

/* log of 4 doubles x, positive and normal: x = 2^e·m with m in
 * [sqrt(1/2), sqrt(2)), log m = 2·atanh(s) = 2s·(1 + s^2/3 + s^4/5 + ...)
 * with s = (m - 1) / (m + 1), |s| <= 0.172 (m - 1 is exact, so near x = 1
 * the result keeps its bits), to s^22 (the first term left out below
 * 2^-53 of the sum), plus e·ln 2 in two parts. Within
 * 2^-48 of log x. */
AVX2_FN static inline __m256d log4(__m256d x)
{
	const __m256d one = _mm256_set1_pd(1.0);
	__m256i b = _mm256_castpd_si256(x);
	__m256i ef = _mm256_srli_epi64(b, 52); /* the biased exponent: x is positive */
	__m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi64x(0xfffffffffffffll)),
						       _mm256_set1_epi64x(0x3ff0000000000000ll)));
	__m128i e32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(ef, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
	__m256d e = _mm256_sub_pd(_mm256_cvtepi32_pd(e32), _mm256_set1_pd(1023.0));
	__m256d big = _mm256_cmp_pd(m, _mm256_set1_pd(1.4142135623730951), _CMP_GT_OQ);
	m = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), big);
	e = _mm256_add_pd(e, _mm256_and_pd(big, one));
	static const double c[12] = {1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11,
				     1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23};
	__m256d s = _mm256_div_pd(_mm256_sub_pd(m, one), _mm256_add_pd(m, one));
	__m256d lm = _mm256_mul_pd(_mm256_add_pd(s, s), poly4(_mm256_mul_pd(s, s), c, 12));
	return _mm256_add_pd(_mm256_mul_pd(e, _mm256_set1_pd(LN2_HI)),
			     _mm256_add_pd(_mm256_mul_pd(e, _mm256_set1_pd(LN2_LO)), lm));
}

/* Lanes of y whose rounding to float log4's error could change: within
 * 2^13 units of the last place (a double's) of a halfway point between
 * two floats (the 29 bits a float drops are near 2^28). libm's log and
 * log4 both lie far closer than that to log x, so elsewhere both round to
 * the same float. */
AVX2_FN static inline int log_unsure(__m256d y)
{
	__m256i m = _mm256_and_si256(_mm256_castpd_si256(y), _mm256_set1_epi64x((1 << 29) - 1));
	__m256i d = _mm256_sub_epi64(m, _mm256_set1_epi64x((1 << 28) - (1 << 13)));
	__m256i in = _mm256_and_si256(_mm256_cmpgt_epi64(d, _mm256_set1_epi64x(-1)),
				      _mm256_cmpgt_epi64(_mm256_set1_epi64x(1 << 14), d));
	return _mm256_movemask_pd(_mm256_castsi256_pd(in));
}

/* d[i] = log(s[i]) for n floats, as the interpreter computes it (libm's
 * double, rounded once), 8 at a time with log4 where x is a positive
 * normal float and the rounding is sure (log_unsure), libm for the rest.
 * d may be s. */
AVX2_FN static void log_floats_avx2(float *d, const float *s, int64_t n)
{
	const __m256 vlo = _mm256_set1_ps(0x1p-126f), vhi = _mm256_set1_ps(0x1.fffffep+127f);
	int64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		float xs[8];
		__m256 x = _mm256_loadu_ps(s + i);
		_mm256_storeu_ps(xs, x);
		int in = _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(x, vlo, _CMP_GE_OQ), _mm256_cmp_ps(x, vhi, _CMP_LE_OQ)));
		if (!in) { /* none in range: libm alone */
			for (int k = 0; k < 8; k++)
				d[i + k] = (float)log((double)xs[k]);
			continue;
		}
		__m256d y0 = log4(_mm256_cvtps_pd(_mm256_castps256_ps128(x)));
		__m256d y1 = log4(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
		int sure = in & ~(log_unsure(y0) | log_unsure(y1) << 4);
		_mm256_storeu_ps(d + i, _mm256_set_m128(_mm256_cvtpd_ps(y1), _mm256_cvtpd_ps(y0)));
		if (sure != 0xff)
			for (int k = 0; k < 8; k++)
				if (!(sure >> k & 1))
					d[i + k] = (float)log((double)xs[k]);
	}
	for (; i < n; i++)
		d[i] = (float)log((double)s[i]);
}

AVX2_FN __attribute__((noinline)) __m256 sop8_fn(int op, __m256 a)
{
	switch (op) {
	case SOP_EXP: return fm8(exp8, a);
	case SOP_SIGMOID: return fm8(sigmoid8, a);
	case SOP_TANH: return fm8(tanh8, a);
	default: return fm8(erf8, a);
	}
}

/* d[i] = function op (SOP_EXP ...) of s[i] for n floats, 8 at a time (a
 * loop per function, its vector form inlined: through sop8_fn's call per 8
 * the exp of 1024 floats took 1.1-1.35 ns a float against 0.8-0.9), the
 * tail one by one. d may be s. */
AVX2_FN __attribute__((noinline)) static void narrow_floats_avx2(int op, float *d, const float *s, int64_t n)
{
	int64_t i = 0;
#define NARROW_LOOP(F8)                                                                 \
	for (; i + 8 <= n; i += 8)                                                      \
		_mm256_storeu_ps(d + i, fm8(F8, _mm256_loadu_ps(s + i)));               \
	break;
	switch (op) {
	case SOP_EXP: NARROW_LOOP(exp8)
	case SOP_SIGMOID: NARROW_LOOP(sigmoid8)
	case SOP_TANH: NARROW_LOOP(tanh8)
	default: NARROW_LOOP(erf8)
	}
#undef NARROW_LOOP
	for (; i < n; i++)
		d[i] = sop1(op, s[i], s[i]);
}

/* sqrt in float is sqrt in double rounded to float: rounding twice is
 * harmless for sqrt when the wider format has at least 2p + 2 bits (53 >=
 * 50); all 2^32 float patterns agreed once, NaNs included. */
AVX2_FN static void sqrt_floats_avx2(float *d, const float *s, int64_t n)
{
	int64_t i = 0;
	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(d + i, _mm256_sqrt_ps(_mm256_loadu_ps(s + i)));
	for (; i < n; i++)
		d[i] = (float)sqrt((double)s[i]);
}
#else
#define log_floats_avx2 NULL
#define sqrt_floats_avx2 NULL
#endif
#undef LN2_HI
#undef LN2_LO

/* The vectorised form where the CPU has AVX2, else f1 element by element. */
static void floats_fn(float *d, const float *s, int64_t n, void (*avx2)(float *, const float *, int64_t),
		      double (*f1)(double))
{
	if (avx2 && pick_simd() == SIMD_AVX2) {
		avx2(d, s, n);
		return;
	}
	for (int64_t i = 0; i < n; i++)
		d[i] = (float)f1((double)s[i]);
}

/* The vector form where the CPU has AVX2, else sop1 element by element
 * (base/narrow.c's functions: the same bits). */
static void narrow_floats(int op, float *d, const float *s, int64_t n)
{
#ifdef X86
	if (pick_simd() == SIMD_AVX2) {
		narrow_floats_avx2(op, d, s, n);
		return;
	}
#endif
	for (int64_t i = 0; i < n; i++)
		d[i] = sop1(op, s[i], s[i]);
}

void exp_floats(float *d, const float *s, int64_t n)
{
	narrow_floats(SOP_EXP, d, s, n);
}

void sigmoid_floats(float *d, const float *s, int64_t n)
{
	narrow_floats(SOP_SIGMOID, d, s, n);
}

void tanh_floats(float *d, const float *s, int64_t n)
{
	narrow_floats(SOP_TANH, d, s, n);
}

void erf_floats(float *d, const float *s, int64_t n)
{
	narrow_floats(SOP_ERF, d, s, n);
}

void log_floats(float *d, const float *s, int64_t n)
{
	floats_fn(d, s, n, log_floats_avx2, log);
}

void sqrt_floats(float *d, const float *s, int64_t n)
{
	floats_fn(d, s, n, sqrt_floats_avx2, sqrt);
}

#ifdef X86
/* sum_rows in up to four chains of vector adds: each step transposes 4
 * values of 4 rows (_MM_TRANSPOSE4_PS) and adds them, widened, in the
 * rows' order, so each lane adds what the scalar loop adds, in its order. */
AVX2_FN static void sum_rows_avx2(double *a, const float *const *p, int64_t len, int ng)
{
	__m256d acc[4];
	for (int g = 0; g < ng; g++)
		acc[g] = _mm256_loadu_pd(a + 4 * g);
	int64_t i = 0;
	for (; i + 4 <= len; i += 4)
		for (int g = 0; g < ng; g++) {
			__m128 r0 = _mm_loadu_ps(p[4 * g] + i), r1 = _mm_loadu_ps(p[4 * g + 1] + i);
			__m128 r2 = _mm_loadu_ps(p[4 * g + 2] + i), r3 = _mm_loadu_ps(p[4 * g + 3] + i);
			_MM_TRANSPOSE4_PS(r0, r1, r2, r3);
			acc[g] = _mm256_add_pd(acc[g], _mm256_cvtps_pd(r0));
			acc[g] = _mm256_add_pd(acc[g], _mm256_cvtps_pd(r1));
			acc[g] = _mm256_add_pd(acc[g], _mm256_cvtps_pd(r2));
			acc[g] = _mm256_add_pd(acc[g], _mm256_cvtps_pd(r3));
		}
	for (int g = 0; g < ng; g++)
		_mm256_storeu_pd(a + 4 * g, acc[g]);
	for (; i < len; i++)
		for (int q = 0; q < 4 * ng; q++)
			a[q] += p[q][i];
}
#endif

void sum_rows(double *a, const float *const *p, int64_t len, int m)
{
	int q = 0;
#ifdef X86
	if (pick_simd() == SIMD_AVX2)
		while (m - q >= 4) {
			int ng = (m - q) / 4 < 4 ? (m - q) / 4 : 4;
			sum_rows_avx2(a + q, p + q, len, ng);
			q += 4 * ng;
		}
#endif
	for (; q + 4 <= m; q += 4) { /* four chains in flight */
		double a0 = a[q], a1 = a[q + 1], a2 = a[q + 2], a3 = a[q + 3];
		for (int64_t i = 0; i < len; i++) {
			a0 += p[q][i];
			a1 += p[q + 1][i];
			a2 += p[q + 2][i];
			a3 += p[q + 3][i];
		}
		a[q] = a0, a[q + 1] = a1, a[q + 2] = a2, a[q + 3] = a3;
	}
	for (; q < m; q++)
		for (int64_t i = 0; i < len; i++)
			a[q] += p[q][i];
}

#ifdef X86
AVX2_FN static bool row_extreme_avx2(const float *f, int64_t n, bool maxi, float *m)
{
	__m256 a = _mm256_loadu_ps(f), nan = _mm256_cmp_ps(a, a, _CMP_UNORD_Q);
	int64_t i = 8;
	for (; i + 8 <= n; i += 8) {
		__m256 v = _mm256_loadu_ps(f + i);
		nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
		a = maxi ? _mm256_max_ps(a, v) : _mm256_min_ps(a, v);
	}
	if (_mm256_movemask_ps(nan))
		return false;
	float l[8];
	_mm256_storeu_ps(l, a);
	float r = l[0];
	for (int k = 1; k < 8; k++)
		r = maxi ? (l[k] > r ? l[k] : r) : (l[k] < r ? l[k] : r);
	for (; i < n; i++) {
		if (isnan(f[i]))
			return false;
		r = maxi ? (f[i] > r ? f[i] : r) : (f[i] < r ? f[i] : r);
	}
	*m = r;
	return r != 0.0f;
}
#endif

bool row_extreme(const float *f, int64_t n, bool maxi, float *m)
{
#ifdef X86
	if (n >= 8 && pick_simd() == SIMD_AVX2)
		return row_extreme_avx2(f, n, maxi, m);
#endif
	(void)f, (void)n, (void)maxi, (void)m;
	return false;
}

void copy_fence(void)
{
#ifdef X86
	_mm_sfence();
#endif
}
