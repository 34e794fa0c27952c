/* Private to the native executor's data movement (stage.c: the box copy;
 * pw.c: the pointwise tiles and row kernels; machine.c: what the planner
 * asks of the CPU): the tuning constants, the x86 vector primitives both
 * copies use, inline, and the CPU's facts.
 * Units: every stride and offset here is in BYTES. */
#ifndef ATHENE_SIMD_H
#define ATHENE_SIMD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/base.h" /* narrow.c: the constants of exp, sigmoid, tanh and erf */
#include "exec.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define X86 1
#include <immintrin.h>
#define AVX2_FN __attribute__((target("avx2,fma")))
#endif

enum { K_RUN, K_RUNTILE, K_TRANS, K_GEN };
enum { SIMD_NONE, SIMD_SSE2, SIMD_AVX2 };

/* Tile and task sizes. A transpose takes TR_A rows of the source (TR_A
 * elements of each destination row: four whole lines of f32) and walks
 * along them, TR_B elements per tile (TR_A / 2 rows when the rows are
 * shorter than TR_SHORT bytes); runs shorter than RUN_SHORT are tiled
 * the same way with RUNS_A bytes of destination per block; long runs and
 * strided rows are cut in CHUNK-byte pieces; a task is about TASK_BYTES.
 * RUNS_A: a block of short runs reads that many source rows at once, and
 * fewer of them are faster (measured alternating on a Zen 4, 1024 against
 * 4096: (48,28,28,48,32) and (298,28,28,8,32) to (1,3,2,0,4) 1.45-2.4x,
 * (48,28,28,8,176) 1.18x, the 410325s 1.07-1.43x; 512 and 768 within
 * noise of 1024, 256 0.74-0.89x of 512 on the 410325s). */
#define TR_A 64
#define TR_B 4096
#define TR_SHORT 8192 /* bytes: source rows of a transpose shorter than this are short */
#define TR_CLOSE 2048 /* bytes: source rows at most this far apart are close (small L1 tunings, NextTile) */
#define RUN_SHORT 2048
#define RUNS_A 1024
#define RUNS_MIN 16 /* runs per block of short runs at least, on an Intel core (plan_runs) */
#define TR_SHORT_BYTES (256 << 10) /* a tile of short dst rows writes about this much (stage.c, short_rows) */
#define TR_STAGED 128 /* source rows of a tile whose rows go through tr_rows_staged */
#define TR_BANDS 64 /* source columns at least of a transpose that walks bands (tr_bands4) */
#define CHUNK 65536
/* A task: its tiles one after the other, the pool's two ends walked by
 * two threads (pool.c); each new task costs the hardware prefetchers a
 * fresh start (measured alternating in one process on an Intel Xeon, the
 * L3 flushed between runs, 1 MiB against 256 KiB: the copy of 256 MiB
 * 1.05x, (2307,64,368) to (1,0,2) and (355,384,384) to (0,2,1) 1.08x, the
 * 43210s 1.03x, other permutations -2 to +2 %; 4 MiB: the copy 1.07x,
 * 021 1.14x, (2307,64,368) 1.00x) */
#define TASK_BYTES (1 << 20)
#define PREFETCH_FAR 128  /* bytes ahead along a source row of a transpose (large L1) */
#define PREFETCH_NEAR 64  /* the same with a 32 KiB L1 (small_l1) */
#define RUN_PREFETCH 256  /* the same for rows of short runs */
/* A tile of runs longer than RUN_SHORT takes at least RUN_STREAMS of them
 * and copies RUN_PIECE bytes of each in turn (unit_run): the memory reads
 * several streams at once (measured alternating in one process on an
 * Intel Xeon, against each run whole and two to a tile: x[::2, :] of
 * 8192^2 f32 1.4x, (384,64,2144) to (1,0,2) 1.2x, (64,384,2144) and
 * (128,128,4096) to (1,0,2) 1.28-1.33x, (2,4096,2,4096) to (1,0,2,3)
 * 1.21x, three more 1.04-1.12x, L3 flushed between runs or not; 512-byte
 * pieces the same, 2048 0.9x; runs of 2 KiB 0.97x, hence the RUN_SHORT).
 * Not on a Zen 3, where whole runs copied faster (unit_run). */
#define RUN_STREAMS 8
#define RUN_PIECE 1024
#define GATHER_AHEAD 2048 /* bytes ahead along the source of a stride-2 or -4 gather */

/* ---------------------------------------------------------------- machine.c */

/* What the planner knows of this CPU (docs/executor.md): the core's
 * profile (told apart by the L1 and L2 sizes and the vendor), whether
 * sequential prefetch pays there, and the widest vectors to use. */
int core_profile(void); /* COPY_PROFILE_*, asked once */
/* Inline, as they were beside the box copy: the transposes ask them per tile. */
static inline bool small_l1(void)
{
	int k = core_profile();
	return k != COPY_PROFILE_LARGE_L1 && k != COPY_PROFILE_LARGE_L1_INTEL;
}

static inline bool small_l2(void)
{
	return core_profile() == COPY_PROFILE_SMALL_L1;
}

/* A large L1 on a core that keeps fewer misses in flight than a Zen 5's
 * (measured on an Intel Xeon with 48 KiB L1d and 2 MiB L2, plan_trans). */
static inline bool few_misses(void)
{
	return core_profile() == COPY_PROFILE_LARGE_L1_INTEL;
}
int pick_simd(void);
#ifdef X86
bool has_f16c(void); /* and AVX2 (pick_simd) */
#endif

/* ---------------------------------------------------------------- pw.c */

#ifdef X86
/* Plain f32 transposes at 4 KiB pitches walk bands (BoxPlan.bands). */
AVX2_FN void tr_bands4(char *d, int64_t dp, const char *s, int64_t sp, int64_t na16, int64_t nb16);
#endif

/* ---------------------------------------------------------------- inline primitives */

/* A hint only: prefetches never fault, so base + off may lie past the box
 * (computed as an integer, since such a pointer is no valid C pointer). */
static inline void prefetch(const char *base, int64_t off)
{
#ifdef __GNUC__
	__builtin_prefetch((const void *)((uintptr_t)base + (uintptr_t)off));
#else
	(void)base, (void)off;
#endif
}

static inline int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* The next tile's source lines, prefetched a few after each kernel of the
 * tile before it, row after row, so that they arrive spread over its time:
 * where the rows lie at most 2 KiB apart (p->next_tile), a streamed tile's
 * source is one stretch of memory, read column by column, in an order the
 * hardware prefetchers do not follow. (Measured alternating on a Zen 4:
 * the 1032s of the set 1.68-1.75x, 96x96 transposes of 5625 batches
 * 1.64-1.86x, the 021s 1.13-1.22x, the 20413s 1.11-1.29x, 13042 of
 * 28x28x352x4x48 1.23x, 204153 of 15x15x15x112x5x32 1.25x; f64 96x96
 * transposes of 2800 batches 1.50x, (180,384,192) to (0,2,1) 1.30x; rows
 * further apart lost, down to 0.71x, with the next tile or the one after
 * as the target, so they keep the prefetch along their rows alone.) */
typedef struct {
	const char *s;  /* the next tile's source */
	int64_t sp;     /* its row pitch */
	int64_t lines;  /* lines per row */
	int64_t left;   /* lines still to prefetch */
	int64_t per;    /* lines per kernel of this tile */
	int64_t line, row; /* the next line to prefetch: row row's line line */
	bool only;      /* the tile prefetches nothing else (BoxPlan.next_only) */
} NextTile;

/* Are rows sp bytes apart a multiple of 4 KiB apart? */
static inline bool pitch_4k(int64_t sp)
{
	return sp % 4096 == 0;
}

/* Do lines prefetched ahead in the rows of a transposed read at pitch sp
 * evict each other before they are read? At a pitch that is a multiple of
 * 4 KiB the same column of every row falls in one L1 set (64 sets of 64
 * bytes, 12 ways) and a few L2 sets, so the lines a tile prefetches ahead
 * in its 16 rows push out the ones it still reads. Measured paired on
 * 8192 x 8192 f32: the plain transpose 7-8 % faster without, relu(x.T * s
 * + b) 8-25 % slower with; at a pitch of 7264 floats the prefetches make
 * the plain transpose 20-26 % faster and relu(x.T * s + b) 8-16 %. */
static inline bool sets_collide(int64_t sp)
{
	return !small_l1() && pitch_4k(sp);
}

/* How far ahead a transpose tile prefetches along its source rows at
 * pitch sp: 0 (not at all) where their lines collide, except on an Intel
 * core (few_misses), where one line ahead made two of the set's 43210s
 * 1.05-1.12x faster and left the third as it was (alternating in one
 * process, 32 rows per tile). Asked once per tile. */
static inline int64_t prefetch_ahead(int64_t sp)
{
	return sets_collide(sp) ? (few_misses() ? PREFETCH_NEAR : 0) : small_l1() ? PREFETCH_NEAR : PREFETCH_FAR;
}

/* Prefetches ahead bytes ahead in n rows of pitch sp from s. */
static inline void prefetch_rows(const char *s, int64_t sp, int n, int64_t ahead)
{
	for (int k = 0; k < n; k++)
		prefetch(s, k * sp + ahead);
}

/* The first ahead bytes of n rows: what a tile reads before its
 * prefetches along the rows run ahead. Short rows are otherwise read one
 * line of every row at a time, each a miss. */
static inline void prefetch_heads(const char *s, int64_t sp, int64_t n, int64_t ahead)
{
	for (int64_t k = 0; k < n; k++)
		for (int64_t off = 0; off < ahead; off += 64)
			prefetch(s, k * sp + off);
}

/* The prefetch of rows rows of lines lines each, sp bytes apart from
 * s + off on, spread over steps steps (s + off may lie past the end when
 * rows is 0: prefetch computes the addresses as integers). */
static inline NextTile next_tile(const char *s, int64_t off, int64_t sp, int64_t lines, int64_t rows, int64_t steps,
				 bool only)
{
	int64_t left = lines * rows;
	return (NextTile){s, sp, lines, left, steps ? (left + steps - 1) / steps : 0, 0, off, only};
}

/* How many lines bytes from s + off take in every row, the rows pitch
 * bytes apart: exact where the rows start at the same offset in their
 * lines, else the most a row can take. */
static inline int64_t row_lines(const char *s, int64_t off, int64_t pitch, int64_t bytes)
{
	int64_t at = pitch % 64 ? 63 : (int64_t)(((uintptr_t)s + (uintptr_t)off) % 64);
	return bytes > 0 ? (at + bytes + 63) / 64 : 0;
}

static inline void next_tile_step(NextTile *nt)
{
	for (int64_t q = 0; q < nt->per && nt->left > 0; q++, nt->left--) {
		prefetch(nt->s, nt->row + nt->line * 64);
		if (++nt->line == nt->lines)
			nt->line = 0, nt->row += nt->sp;
	}
}

/* One op of stream_op_f32 on scalars, as the register machine's loops
 * compute it. */
static inline float sop1(int op, float a, float b)
{
	switch (op) {
	case SOP_ADD: return a + b;
	case SOP_SUB: return a - b;
	case SOP_MUL: return a * b;
	case SOP_DIV: return a / b;
	case SOP_NEG: return -a;
	case SOP_MAX: return a != a || b != b ? NAN : a > b ? a : b;
	case SOP_MIN: return a != a || b != b ? NAN : a < b ? a : b;
	case SOP_EXP: return narrow_exp(a);
	case SOP_SIGMOID: return narrow_sigmoid(a);
	case SOP_TANH: return narrow_tanh(a);
	case SOP_ERF: return narrow_erf(a);
	default: return a > 0 || a != a ? a : 0.0f;
	}
}

#ifdef X86
AVX2_FN static inline void store_4(char *d, __m256 v, bool stream)
{
	if (stream)
		_mm256_stream_ps((float *)d, v);
	else
		_mm256_storeu_ps((float *)d, v);
}

#include "vecmath.h"
VECMATH(VECMATH_CODE)

/* One of the functions (SOP_EXP ...) of 8 floats, fm8 of its vector form:
 * out of line (pw.c), so that the pointwise kernels' many unrolled steps
 * call one copy of each. */
AVX2_FN __m256 sop8_fn(int op, __m256 a);

AVX2_FN static inline __m256 sop8(int op, __m256 a, __m256 b)
{
	switch (op) {
	case SOP_ADD: return _mm256_add_ps(a, b);
	case SOP_SUB: return _mm256_sub_ps(a, b);
	case SOP_MUL: return _mm256_mul_ps(a, b);
	case SOP_DIV: return _mm256_div_ps(a, b);
	case SOP_NEG: return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f));
	case SOP_MAX: /* a > b ? a : b, then NaN where either is */
		return _mm256_blendv_ps(_mm256_max_ps(a, b), _mm256_set1_ps(NAN), _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
	case SOP_MIN:
		return _mm256_blendv_ps(_mm256_min_ps(a, b), _mm256_set1_ps(NAN), _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
	case SOP_EXP:
	case SOP_SIGMOID:
	case SOP_TANH:
	case SOP_ERF: return sop8_fn(op, a);
	default: { /* relu: a where a > 0 or a is NaN, else +0 */
		return _mm256_and_ps(a, _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_NLE_UQ)); /* not a <= 0 */
	}
	}
}

#endif

#endif
