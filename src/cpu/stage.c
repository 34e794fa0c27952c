/* Strided N-D box copy: the executor's one data-movement primitive.
 *
 * A box is normalised first: extent-1 dims dropped, negative destination
 * strides flipped (the copy is a bijection, so walking a dim backwards on
 * both sides changes nothing), dims sorted by destination stride, and
 * neighbours merged where both sides are contiguous across them. Then one
 * of four kinds, by what the two fastest axes do:
 *   K_RUN      innermost dim contiguous on both sides: a memcpy per run,
 *              streamed from the destination's 32-byte boundary on;
 *   K_RUNTILE  the same with short runs whose next axes differ: the runs
 *              are elements of a transpose over the destination's and the
 *              source's next axes;
 *   K_TRANS    the fastest axes of src and dst differ: HPTT's scheme, macro
 *              tiles over the two axes and a register transpose inside;
 *   K_GEN      anything else: a strided loop, with vector kernels for the
 *              stride-2 and stride-4 reads of 4-byte elements.
 * Each kind copies in tiles of its loop dims 0 and 1 (a and b). K_GEN
 * loops over the other dims in destination order, and so does K_RUN with
 * runs shorter than RUN_SHORT bytes; longer runs are tiled along the dim
 * where they lie closest together in the source, and the other dims walked
 * in source order. The two transposing kinds walk the source too: a block
 * of a (a few KiB of each destination row, whole lines) is outermost, and
 * under it b and the other dims in source order, so every source row is
 * read from start to end, with software prefetches running ahead;
 * measured, reading in long sequential stretches is what a transpose
 * needs, while streamed writes only need whole 64-byte lines, written back
 * to back. A task is a run of consecutive tiles, so tasks touch disjoint
 * destination bytes.
 *
 * The library is built without -mavx2: AVX2 kernels carry a target
 * attribute and are chosen at plan time by a CPU check; SSE2 is the x86-64
 * baseline; elsewhere, or when forced, portable C does everything.
 * Non-temporal stores are weakly ordered, so every task that may have used
 * them ends with a store fence. */
#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "base/base.h" /* f16_to_float, f16_from_float */

#if defined(__x86_64__) && defined(__GNUC__)
#define X86 1
#include <cpuid.h>
#include <immintrin.h>
#define AVX2_FN __attribute__((target("avx2")))
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
 * pieces the same, 2048 0.9x; runs of 2 KiB 0.97x, hence the RUN_SHORT). */
#define RUN_STREAMS 8
#define RUN_PIECE 1024
#define GATHER_AHEAD 2048 /* bytes ahead along the source of a stride-2 or -4 gather */

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

static atomic_bool force_portable;

void copy_set_portable(bool on)
{
	atomic_store(&force_portable, on);
}

/* Transposes are tuned for two kinds of core, told apart by the size of
 * the L1 data cache: at most 32 KiB (measured on a Zen 3 and a Zen 4) or
 * more (measured on a Zen 5 and on Intel Xeons of the Sapphire Rapids
 * class, both 48 KiB). The small one takes tiles of fewer rows, prefetches
 * one line ahead instead of two, and treats no pitch apart (plan_trans,
 * sets_collide). The cores differ in how many misses they keep in flight
 * more than in the cache's size, for which the size stands in: a tile's
 * rows all miss at once at each new line. Among small L1s, one rule of
 * plan_trans holds only with a 512 KiB L2 (the Zen 3's, small_l2) and
 * not with the Zen 4's 1 MiB. Among large L1s, an Intel core (few_misses)
 * takes at most 32 rows per tile and prefetches at 4 KiB pitches too. */
static atomic_int profile = COPY_PROFILE_AUTO;

void copy_set_profile(int which)
{
	atomic_store(&profile, which);
}

static long cache_size(int name)
{
	long n = sysconf(name);
	return n > 0 ? n : -1;
}

/* Is this an Intel CPU? Asked once, by core_profile (CPUID traps to the
 * host in a VM). */
static bool cpu_is_intel(void)
{
#ifdef X86
	unsigned a, b, c, d;
	return __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu;
#else
	return false;
#endif
}

static int core_profile(void)
{
	int k = atomic_load_explicit(&profile, memory_order_relaxed);
	if (k == COPY_PROFILE_AUTO) {
		long l1 = -1, l2 = -1;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
		l1 = cache_size(_SC_LEVEL1_DCACHE_SIZE);
		l2 = cache_size(_SC_LEVEL2_CACHE_SIZE);
#endif
		k = l1 < 0 || l1 > 32768 ? (cpu_is_intel() ? COPY_PROFILE_LARGE_L1_INTEL : COPY_PROFILE_LARGE_L1)
		    : l2 > 0 && l2 <= 524288 ? COPY_PROFILE_SMALL_L1 : COPY_PROFILE_SMALL_L1_LARGE_L2;
		atomic_store_explicit(&profile, k, memory_order_relaxed);
	}
	return k;
}

static bool small_l1(void)
{
	int k = core_profile();
	return k != COPY_PROFILE_LARGE_L1 && k != COPY_PROFILE_LARGE_L1_INTEL;
}

static bool small_l2(void)
{
	return core_profile() == COPY_PROFILE_SMALL_L1;
}

/* A large L1 on a core that keeps fewer misses in flight than a Zen 5's
 * (measured on an Intel Xeon with 48 KiB L1d and 2 MiB L2, plan_trans). */
static bool few_misses(void)
{
	return core_profile() == COPY_PROFILE_LARGE_L1_INTEL;
}

bool seq_prefetch_pays(void)
{
	return core_profile() != COPY_PROFILE_SMALL_L1_LARGE_L2;
}

static int pick_simd(void)
{
	if (atomic_load(&force_portable))
		return SIMD_NONE;
#ifdef X86
#ifndef __AVX2__
	if (!__builtin_cpu_supports("avx2"))
		return SIMD_SSE2;
#endif
	return SIMD_AVX2;
#else
	return SIMD_NONE;
#endif
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* ---------------------------------------------------------- normalising */

typedef struct {
	int rank;
	int64_t n[BOX_MAX_RANK], ds[BOX_MAX_RANK], ss[BOX_MAX_RANK];
	char *dst;
	const char *src;
} Box;

/* Walks dim k backwards on both sides. */
static void flip(Box *b, int k)
{
	b->dst += (b->n[k] - 1) * b->ds[k];
	b->src += (b->n[k] - 1) * b->ss[k];
	b->ds[k] = -b->ds[k];
	b->ss[k] = -b->ss[k];
}

static void swap_dims(Box *b, int i, int j)
{
	int64_t t;
	t = b->n[i], b->n[i] = b->n[j], b->n[j] = t;
	t = b->ds[i], b->ds[i] = b->ds[j], b->ds[j] = t;
	t = b->ss[i], b->ss[i] = b->ss[j], b->ss[j] = t;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* Sorts by dst stride, then by |src stride| (ties only for broadcast or
 * self-overlapping dsts, where any order is as good). */
static void sort_dims(Box *b)
{
	for (int i = 1; i < b->rank; i++)
		for (int j = i; j > 0; j--) {
			bool less = b->ds[j] < b->ds[j - 1] ||
				    (b->ds[j] == b->ds[j - 1] &&
				     abs64(b->ss[j]) < abs64(b->ss[j - 1]));
			if (!less)
				break;
			swap_dims(b, j, j - 1);
		}
}

/* Merges dim k into the one below where both sides continue it. */
static void merge_dims(Box *b)
{
	int r = 0;
	for (int k = 0; k < b->rank; k++) {
		if (r > 0 && b->ds[k] == b->ds[r - 1] * b->n[r - 1] &&
		    b->ss[k] == b->ss[r - 1] * b->n[r - 1]) {
			b->n[r - 1] *= b->n[k];
			continue;
		}
		b->n[r] = b->n[k], b->ds[r] = b->ds[k], b->ss[r] = b->ss[k];
		r++;
	}
	b->rank = r;
}

/* False when the box is empty. */
static bool normalise(Box *b, void *dst, const int64_t *dstride,
		      const void *src, const int64_t *sstride,
		      const int64_t *shape, int rank)
{
	b->rank = 0;
	b->dst = dst;
	b->src = src;
	for (int k = 0; k < rank; k++) {
		if (shape[k] <= 0)
			return false;
		if (shape[k] == 1)
			continue;
		int r = b->rank++;
		b->n[r] = shape[k], b->ds[r] = dstride[k], b->ss[r] = sstride[k];
		if (b->ds[r] < 0)
			flip(b, r);
	}
	sort_dims(b);
	merge_dims(b);
	return true;
}

/* -------------------------------------------------------------- planning */

/* A src dim other than skip0 and skip1 with |stride| == bytes, or -1. */
static int src_dim(const Box *b, int64_t bytes, int skip0, int skip1)
{
	for (int k = 0; k < b->rank; k++)
		if (k != skip0 && k != skip1 && abs64(b->ss[k]) == bytes)
			return k;
	return -1;
}

/* Loop dims: a and c (c < 0: a dummy of extent 1) first, then the rest
 * innermost first, leaving out skip: in dst order, or in src order (by
 * |src stride|) for the kinds that walk the source, whose tiles of dim 0
 * then come last in the walk (t0_at, see unit_at; plan_trans places a
 * transpose's among the outer dims). */
static void set_loops(BoxPlan *p, const Box *b, int a, int c, int skip, bool by_src)
{
	int order[BOX_MAX_RANK + 1], m = 0;
	order[m++] = a;
	order[m++] = c;
	for (int k = 0; k < b->rank; k++)
		if (k != a && k != c && k != skip)
			order[m++] = k;
	for (int i = 3; by_src && i < m; i++)
		for (int j = i; j > 2 && abs64(b->ss[order[j]]) < abs64(b->ss[order[j - 1]]); j--) {
			int t = order[j];
			order[j] = order[j - 1], order[j - 1] = t;
		}
	p->t0_at = by_src ? m : 1;
	p->nloop = m;
	for (int i = 0; i < m; i++) {
		int k = order[i];
		p->n[i] = k < 0 ? 1 : b->n[k];
		p->ds[i] = k < 0 ? 0 : b->ds[k];
		p->ss[i] = k < 0 ? 0 : b->ss[k];
	}
}

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

/* A transpose of elements of p->esize bytes between dst-contiguous dim a
 * and src-contiguous dim c. */
static void plan_trans(BoxPlan *p, Box *b, int a, int c, int skip)
{
	if (b->ss[c] < 0)
		flip(b, c);
	p->kind = K_TRANS;
	p->elem = p->esize;
	set_loops(p, b, a, c, skip, true);
	/* Rows per tile: all of them up to TR_A, else TR_A, or TR_A / 2 for
	 * short source rows, which the walk leaves soon (measured:
	 * (96,75,75,96)->(3,2,1,0) 1.4x, (7264,7264)->(1,0) 0.9x with TR_A / 2).
	 * Then at most TR_A / 2 where the rows' lines collide in the caches
	 * (measured alternating on a Zen 5: (48,28,28,28,48) and (48,28,28,4,352)
	 * to (4,3,2,1,0), 48 rows a multiple of 4 KiB apart, 1.6-1.8x faster;
	 * (8192,8192)->(1,0) 1.08-1.2x; short-row transposes of 48 rows at other
	 * pitches alike in tiles of 32 or 48, -6 to +7 %), and at most TR_A / 4
	 * for 4-byte rows of 128-256 bytes at most 640 apart, so that a tile
	 * reads one short, nearly contiguous stretch ((28,28,28,48,48) and
	 * (28,28,4,352,48) to (2,0,4,1,3) 1.07-1.22x, (15,15,15,112,5,32) to
	 * (2,0,4,1,5,3) 1.06-1.11x, (2000,512,48) and (2000,256,64) to (0,2,1)
	 * 1.06-1.27x; rows of 64 or 512 bytes 0.79x and 0.89x, pitches of 1920
	 * bytes and more 0.73-0.87x). */
	int64_t row = p->n[1] * (int64_t)p->esize, sp = abs64(p->ss[0]);
	bool compact = few_misses() && p->esize == 4 && sp <= 640 && abs64(p->ds[1]) <= 640;
	/* With a small L1 (small_l1), 4- and 8-byte elements take TR_A / 4
	 * rows, or TR_A / 2 where they lie within 2 KiB of each other, so that
	 * a tile reads one nearly contiguous stretch (measured alternating in
	 * one process on a Zen 3, against the rule above: the 45 transposes of
	 * the performance set 1.11x at the median, 0.79-1.70x; (7264,7264)->
	 * (1,0) 1.43x; rows at most 2 KiB apart 1.03-1.16x faster with 32 rows
	 * than with 16, rows 2240 bytes apart and more 0.79-0.90x; f64
	 * transposes of 5000^2, 4096^2 and (200,384,384)->(0,2,1) 1.21-1.56x).
	 * Elements of 1 or 2 bytes take the rule above (16 rows of them give
	 * half lines of destination: 7264^2 f16 0.71-0.78x), without its cap at
	 * 4 KiB pitches there (8192^2 f16 1.2x with 64 rows than with 32).
	 * 4-byte elements whose rows lie a multiple of 4 KiB apart take TR_A / 2
	 * rows too (measured alternating, against 16: the 43210s of the set
	 * 1.25-1.35x, 8192^2, 4096x16384, 16384x2048 and 16384x1024 1.26-1.68x,
	 * (64,512,1024)->(2,1,0) 1.45x; f64 4096^2 0.87x, so 8-byte elements
	 * keep 16). So do 4-byte elements whose tiles write at least 256
	 * destination rows at least 1 KiB apart and at most 1024 elements long,
	 * the 210 kind ((384,355,384) and (384,59,2320) to (2,1,0) 1.71-1.72x,
	 * (75,96,12,608) to (3,0,2,1) 1.18x, (59,384,2320) to (0,2,1) 1.24x,
	 * (28,48,28,4,352) to (4,0,3,2,1) 1.16x; the 32 rows lost on longer
	 * rows, (2320,59,384) to (2,1,0) 0.80x, 7264^2 0.88x, on fewer
	 * destination rows, (75,96,75,96) to (3,0,2,1) 0.73x, and on rows
	 * closer together, (75,96,12,608) to (2,0,3,1) 0.60x). That last rule
	 * holds with the Zen 3's 512 KiB L2 only (small_l2): on a Zen 4 (1 MiB
	 * L2, measured alternating, 16 rows against 32) the same tiles run
	 * 1.27-1.50x faster with 16 rows ((59,384,2320) to (0,2,1) 1.50x, the
	 * 210s 1.39x and 1.43x, (75,96,12,608) to (3,0,2,1) 1.27x, (96,75,12,
	 * 608) to (3,2,1,0) 1.30x), while its 32 rows at 4 KiB pitches still
	 * pay (the 43210s 1.09-1.19x against 16). With the large L2, f32 rows
	 * 1-2 KiB long and at most 2 KiB apart take up to TR_A * 4 of them
	 * where there are at least 96, a tile reading one stretch of up to
	 * 512 KiB and writing destination rows of up to 1 KiB (measured
	 * alternating against 32: (355,384,384) and (59,2320,384) to (0,2,1)
	 * 1.35-1.67x without the next tile's prefetch (NextTile), 1.15-1.18x
	 * with it; 200000x256 to 256x200000 1.92x, 150000x384 1.38x; 192 and
	 * 384 rows within noise of 256; 48 rows of 48 0.77-0.92x against 32,
	 * hence the 96). Shorter rows keep 32 with the next tile's prefetch
	 * (against 256: (75,12,608,96) and (75,75,96,96) to (1,0,3,2) 1.64x and
	 * 1.14x, (28,28,4,352,48) to (2,0,4,1,3) 1.25x, 600000x96 1.45x;
	 * (28,28,352,4,48) to (1,3,0,4,2) 0.90x). */
	if (small_l1() && p->esize >= 4) {
		bool far_rows = small_l2() && p->esize == 4 && p->n[0] <= 1024 && p->n[1] >= 256 && abs64(p->ds[1]) >= 1024;
		bool wide = sp <= TR_CLOSE || (p->esize == 4 && pitch_4k(sp)) || far_rows;
		bool tall = !small_l2() && p->esize == 4 && row >= 1024 && sp <= TR_CLOSE && p->n[0] >= 96;
		p->blk[0] = min64(p->n[0], tall ? TR_A * 4 : wide ? TR_A / 2 : TR_A / 4);
	} else {
		/* An Intel core (few_misses) takes at most TR_A / 2 rows everywhere
		 * (measured alternating in one process on an Intel Xeon with a 48 KiB
		 * L1d and a 2 MiB L2, against TR_A: 7264^2 1.48x, 1216x43408 1.95x,
		 * (59,384,2320) to (0,2,1) 1.9x, (384,59,2320) to (2,1,0) 1.5x, f64
		 * 5000^2 1.7x; the other permutations of the set within noise,
		 * 0.97-1.05x), except 4-byte rows at most 640 bytes apart on both
		 * sides, so that a tile is one compact block of each, which take
		 * TR_A (measured alternating in one process, the L3 flushed between
		 * runs: (75,75,96,96) to (1,0,3,2) 1.09x, (15,15,15,112,5,32) to
		 * (2,0,4,1,5,3) 1.11x, the other permutations of the set within 3 %;
		 * TR_A wherever the source rows lie within 2 KiB lost up to 0.87x). */
		bool close = p->esize == 4 && row >= 128 && row <= 256 && sp <= 640;
		int64_t cap = close ? TR_A / 4 : sets_collide(sp) || few_misses() ? TR_A / 2 : TR_A;
		p->blk[0] = p->esize == 1 ? min64(p->n[0], TR_A) /* whole lines of 64 rows (tr_tile_narrow) */
			    : compact ? min64(p->n[0], TR_A)
			    : min64(p->n[0] <= TR_A ? p->n[0] : row < TR_SHORT ? TR_A / 2 : TR_A, cap);
	}
	p->blk[1] = min64(p->n[1], TR_B);
	/* compact tiles (above) do without it: (75,75,96,96) to (1,0,3,2)
	 * 1.13x, (15,15,15,112,5,32) to (2,0,4,1,5,3) 0.98x (Intel Xeon,
	 * alternating in one process, the L3 flushed between runs) */
	p->next_tile = p->esize >= 4 && (p->flags & COPY_STREAM) && sp <= TR_CLOSE && !compact;
	/* An Intel core at a 4 KiB pitch: tiles of up to TR_B columns that
	 * walk bands (tr_bands4) where the source rows are at least TR_BANDS
	 * long and the destination rows lie on their lines (measured
	 * alternating in one process on an Intel Xeon, with the L3 warm,
	 * against the tiles below: 8192², 4096 x 16384, 8000² at a
	 * pitch of 8192 and (64,4096,64) to (2,1,0) 1.19-1.21x, (64,512,1024)
	 * to (2,1,0) 1.18x, 16384 x 2048 1.15x, (64,2048,96) to (2,1,0) 1.11x,
	 * 16384 x 1024 1.06x, (48,28,28,4,352) to (4,3,2,1,0) 1.05x; rows of 48
	 * lost, (48,28,28,28,48) to (4,3,2,1,0) 0.88x). Else tiles TR_A columns
	 * wide, each prefetching the next one's source (NextTile) and not
	 * along its own rows, as the sub-tiles of pw_chain_sub (measured
	 * alternating in one process on an Intel Xeon, the L3 flushed between
	 * runs: 8192², 4096 x 16384 and (64,512,1024) to (2,1,0) 1.07-1.08x,
	 * 16384 x 1024 1.04x; tiles of 128 columns the same, 4096 as before
	 * with the prefetch along the rows). */
	if (few_misses() && p->esize == 4 && pitch_4k(sp) && (p->flags & COPY_STREAM)) {
		p->bands = p->n[1] >= TR_BANDS && p->ds[1] % 64 == 0; /* else staged, below */
		p->blk[1] = min64(p->n[1], p->bands ? TR_B : TR_A);
		p->next_tile = p->next_only = !p->bands;
	}
	/* An Intel core, f32 destination rows that are no multiple of 64 bytes
	 * apart, streamed: tiles of up to 2 TR_A rows whose rows go through
	 * tr_rows_staged, so that each row's piece is streamed in whole lines
	 * but for its two ends (measured alternating in one process on an
	 * Intel Xeon, the L3 flushed between runs, against the plain stores of
	 * tiles of 32 rows: 4100² 1.7x, 5000² 1.45x, 5008 x 3000 1.45x, 8000 x
	 * 1001 1.1x, (1000,300,200) to (2,1,0) 1.0x; 64 rows 1.2-1.3x, 96 and
	 * 192 within 5 % of 128; 128 rows with plain stores 1.1x) */
	if (few_misses() && p->esize == 4 && (p->flags & COPY_STREAM) && p->ds[1] % 64 && p->ds[1] % 4 == 0 &&
	    (uintptr_t)b->dst % 4 == 0) {
		p->blk[0] = min64(p->n[0], TR_STAGED);
		p->staged = true;
	}
	/* dim 0's tiles among the outer dims, by their step's src stride (unit_at) */
	for (p->t0_at = 2; p->t0_at < p->nloop && abs64(p->ss[p->t0_at]) < p->blk[0] * sp; p->t0_at++)
		;
}

/* Contiguous on both sides in dim 0: runs, tiled when short and both
 * sides have a next axis to tile over. */
static void plan_runs(BoxPlan *p, Box *b)
{
	int64_t run = b->n[0] * (int64_t)p->esize;
	int a = b->rank > 1 && b->ds[1] == run ? 1 : -1;
	int c = a < 0 ? -1 : src_dim(b, run, 0, a);
	if (run > RUN_SHORT || c < 0) {
		p->kind = K_RUN;
		p->elem = p->esize;
		/* Long runs: the other dims in source order, dim 0's tiles
		 * innermost, so runs are read one after the other where they lie
		 * together in the source (measured alternating in one process on
		 * an Intel Xeon, against destination order: (384,64,2144) to
		 * (1,0,2) 1.13x, (1024,64,1024) 1.29x, (16,32,64,2048) to
		 * (2,0,1,3) 1.20x, (8,8192,1024) 1.08x, runs of 2 KiB from rows
		 * 2400 bytes apart 1.13x, four others 1.01-1.03x). Shorter runs
		 * that cannot be tiled keep destination order: 128-byte runs
		 * written 64 KiB apart ran at half the speed. */
		int c1 = b->rank > 1 ? 1 : -1;
		for (int k = 2; run >= RUN_SHORT && k < b->rank; k++)
			if (abs64(b->ss[k]) < abs64(b->ss[c1]))
				c1 = k;
		set_loops(p, b, 0, c1, -1, run >= RUN_SHORT);
		p->t0_at = 1;
		p->blk[0] = min64(p->n[0], CHUNK / (int64_t)p->esize);
		int64_t runs = CHUNK / (p->blk[0] * (int64_t)p->esize);
		p->blk[1] = clamp64(run > RUN_SHORT && runs < RUN_STREAMS ? RUN_STREAMS : runs, 1, p->n[1]);
		return;
	}
	if (run == 2 || run == 4 || run == 8) { /* a transpose of wider elements */
		p->esize = (size_t)run;
		plan_trans(p, b, a, c, 0);
		return;
	}
	if (b->ss[c] < 0)
		flip(b, c);
	p->kind = K_RUNTILE;
	p->elem = (size_t)run;
	set_loops(p, b, a, c, 0, true);
	/* On an Intel core at least RUNS_MIN runs (measured on an Intel Xeon,
	 * the L3 flushed between runs, against RUNS_A / run alone, which left
	 * runs of 700 bytes and more one to a tile: (48,28,28,8,176) to
	 * (1,3,2,0,4) 1.29x, (96,75,16,464) to (2,1,0,3) 1.14x, (2307,64,368)
	 * to (1,0,2) 1.12x, (96,75,96,80) to (2,1,0,3) 1.12x, (384,384,368)
	 * and (582,75,16,80) 1.07x, (15,15,32,15,10,48) to (4,1,0,3,2,5)
	 * 1.08x, the other short-run permutations of the set the same; 8 and
	 * 32 runs within 5 % of 16, alternating in one process) */
	int64_t runs = RUNS_A / run;
	p->blk[0] = clamp64(few_misses() && runs < RUNS_MIN ? RUNS_MIN : runs, 1, p->n[0]);
	p->blk[1] = clamp64(CHUNK / run, 1, p->n[1]);
}

static void plan_kind(BoxPlan *p, Box *b)
{
	int64_t es = (int64_t)p->esize;
	if (b->ds[0] == es && b->ss[0] == es) {
		plan_runs(p, b);
		return;
	}
	int c = b->ds[0] == es ? src_dim(b, es, 0, 0) : -1;
	if (c >= 0) {
		plan_trans(p, b, 0, c, -1);
		return;
	}
	p->kind = K_GEN;
	p->elem = p->esize;
	set_loops(p, b, 0, b->rank > 1 ? 1 : -1, -1, false);
	p->blk[0] = min64(p->n[0], CHUNK / es);
	p->blk[1] = clamp64(CHUNK / (p->blk[0] * es), 1, p->n[1]);
}

int64_t box_plan(BoxPlan *p, void *dst, const int64_t *dstride,
		 const void *src, const int64_t *sstride, const int64_t *shape,
		 int rank, size_t esize, int flags)
{
	assert(rank >= 0 && rank <= BOX_MAX_RANK);
	assert(esize == 1 || esize == 2 || esize == 4 || esize == 8);
	memset(p, 0, sizeof *p);
	Box b;
	if (!normalise(&b, dst, dstride, src, sstride, shape, rank))
		return 0;
	if (b.rank == 0) { /* one element */
		b.rank = 1;
		b.n[0] = 1, b.ds[0] = b.ss[0] = (int64_t)esize;
	}
	p->esize = esize;
	p->flags = flags;
	p->simd = pick_simd();
	plan_kind(p, &b);
	p->dst = b.dst;
	p->src = b.src;
	p->nunits = 1;
	for (int i = 0; i < 2; i++) {
		p->ntile[i] = (p->n[i] + p->blk[i] - 1) / p->blk[i];
		p->nunits *= p->ntile[i];
	}
	for (int i = 2; i < p->nloop; i++)
		p->nunits *= p->n[i];
	int64_t unit = p->blk[0] * p->blk[1] * (int64_t)p->elem;
	p->per_task = clamp64(TASK_BYTES / unit, 1, p->nunits);
	p->ntasks = (p->nunits + p->per_task - 1) / p->per_task;
	return p->ntasks;
}

/* -------------------------------------------------------- scalar kernels */

/* n elements of es bytes from s, s + sstep, ... to d, d + dstep, ...;
 * a loop per size so that each compiles to plain moves. */
static void row_copy(char *d, int64_t dstep, const char *s, int64_t sstep,
		     int64_t n, size_t es)
{
	switch (es) {
	case 1:
		for (int64_t i = 0; i < n; i++)
			d[i * dstep] = s[i * sstep];
		break;
	case 2:
		for (int64_t i = 0; i < n; i++)
			memcpy(d + i * dstep, s + i * sstep, 2);
		break;
	case 4:
		for (int64_t i = 0; i < n; i++)
			memcpy(d + i * dstep, s + i * sstep, 4);
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			memcpy(d + i * dstep, s + i * sstep, 8);
		break;
	}
}

/* The same with a contiguous destination, so stores can be vectorised. */
static void row_gather(char *d, const char *s, int64_t sstep, int64_t n, size_t es)
{
	switch (es) {
	case 1:
		for (int64_t i = 0; i < n; i++)
			d[i] = s[i * sstep];
		break;
	case 2:
		for (int64_t i = 0; i < n; i++)
			memcpy(d + 2 * i, s + i * sstep, 2);
		break;
	case 4:
		for (int64_t i = 0; i < n; i++)
			memcpy(d + 4 * i, s + i * sstep, 4);
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			memcpy(d + 8 * i, s + i * sstep, 8);
		break;
	}
}

/* Transpose of an na x nb block: dst[ib*dp + ia*es] = src[ia*sp + ib*es].
 * The tiles call it for their heads and edges, most of them empty: an
 * empty one returns before its loop over nb rows of nothing (measured
 * alternating on a Zen 4, against that loop: the 57 permutations of the
 * performance set 1.07x at the median, 0.93-1.33x; 7264^2 1.16-1.19x,
 * 1216x43408 1.17-1.21x). */
static void tr_scalar(char *d, int64_t dp, const char *s, int64_t sp,
		      int64_t na, int64_t nb, size_t es)
{
	if (na <= 0)
		return;
	for (int64_t ib = 0; ib < nb; ib++)
		row_gather(d + ib * dp, s + ib * (int64_t)es, sp, na, es);
}

/* Leading elements to copy with plain stores before d is aligned to
 * width bytes; -1 when no prefix aligns every row of pitch dp. */
static int64_t stream_head(const char *d, int64_t dp, size_t es, size_t width, int64_t n)
{
	uintptr_t mis = (uintptr_t)d % width;
	if (dp % (int64_t)width || mis % es)
		return -1;
	return min64(n, (int64_t)((width - mis) % width / es));
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

/* ------------------------------------------------------------ x86 kernels */

#ifdef X86

AVX2_FN static inline void stream_copy_avx2(char *d, const char *s, size_t n)
{
	size_t head = (size_t)(-(uintptr_t)d & 31);
	head = head < n ? head : n;
	if (head)
		memcpy(d, s, head);
	d += head, s += head, n -= head;
	for (; n >= 128; n -= 128, d += 128, s += 128) {
		__m256i x0 = _mm256_loadu_si256((const __m256i *)s);
		__m256i x1 = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i x2 = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i x3 = _mm256_loadu_si256((const __m256i *)(s + 96));
		_mm256_stream_si256((__m256i *)d, x0);
		_mm256_stream_si256((__m256i *)(d + 32), x1);
		_mm256_stream_si256((__m256i *)(d + 64), x2);
		_mm256_stream_si256((__m256i *)(d + 96), x3);
	}
	for (; n >= 32; n -= 32, d += 32, s += 32)
		_mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
	if (n)
		memcpy(d, s, n);
}

/* 8x8 transpose of 4-byte elements: o[k] is column k of 8 src rows. */
AVX2_FN static inline void tr8x8_4(const char *s, int64_t sp, __m256 *o)
{
	__m256 r0 = _mm256_loadu_ps((const float *)s);
	__m256 r1 = _mm256_loadu_ps((const float *)(s + sp));
	__m256 r2 = _mm256_loadu_ps((const float *)(s + 2 * sp));
	__m256 r3 = _mm256_loadu_ps((const float *)(s + 3 * sp));
	__m256 r4 = _mm256_loadu_ps((const float *)(s + 4 * sp));
	__m256 r5 = _mm256_loadu_ps((const float *)(s + 5 * sp));
	__m256 r6 = _mm256_loadu_ps((const float *)(s + 6 * sp));
	__m256 r7 = _mm256_loadu_ps((const float *)(s + 7 * sp));
	/* pairs of rows interleaved, then quads: column k of rows 0-3 and 4-7
	 * in the two halves of u_k, then the halves put together */
	__m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
	__m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
	__m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
	__m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
	__m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
	__m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
	__m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
	__m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
	o[0] = _mm256_permute2f128_ps(u0, u4, 0x20), o[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
	o[2] = _mm256_permute2f128_ps(u2, u6, 0x20), o[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
	o[4] = _mm256_permute2f128_ps(u0, u4, 0x31), o[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
	o[6] = _mm256_permute2f128_ps(u2, u6, 0x31), o[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

AVX2_FN static inline void store_4(char *d, __m256 v, bool stream)
{
	if (stream)
		_mm256_stream_ps((float *)d, v);
	else
		_mm256_storeu_ps((float *)d, v);
}

/* 16 src rows of 8: each of 8 dst rows gets 64 bytes in two stores back to
 * back, so a streamed line is whole when it leaves the write buffer (half
 * lines flushed alone cost a read-modify-write in memory). */
AVX2_FN static inline void tr16x8_4(char *d, int64_t dp, const char *s, int64_t sp, bool stream)
{
	__m256 o[8], q[8];
	tr8x8_4(s, sp, o);
	tr8x8_4(s + 8 * sp, sp, q);
	for (int k = 0; k < 8; k++) {
		store_4(d + k * dp, o[k], stream);
		store_4(d + k * dp + 32, q[k], stream);
	}
}

/* 4x4 transpose of 8-byte elements: o[k] is column k of 4 src rows. */
AVX2_FN static inline void tr4x4_8(const char *s, int64_t sp, __m256d *o)
{
	__m256d r0 = _mm256_loadu_pd((const double *)s);
	__m256d r1 = _mm256_loadu_pd((const double *)(s + sp));
	__m256d r2 = _mm256_loadu_pd((const double *)(s + 2 * sp));
	__m256d r3 = _mm256_loadu_pd((const double *)(s + 3 * sp));
	__m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
	__m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
	o[0] = _mm256_permute2f128_pd(t0, t2, 0x20), o[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
	o[2] = _mm256_permute2f128_pd(t0, t2, 0x31), o[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

AVX2_FN static inline void store_8(char *d, __m256d v, bool stream)
{
	if (stream)
		_mm256_stream_pd((double *)d, v);
	else
		_mm256_storeu_pd((double *)d, v);
}

/* 8 src rows of 4: whole 64-byte dst rows, as tr16x8_4. */
AVX2_FN static inline void tr8x4_8(char *d, int64_t dp, const char *s, int64_t sp, bool stream)
{
	__m256d o[4], q[4];
	tr4x4_8(s, sp, o);
	tr4x4_8(s + 4 * sp, sp, q);
	for (int k = 0; k < 4; k++) {
		store_8(d + k * dp, o[k], stream);
		store_8(d + k * dp + 32, q[k], stream);
	}
}

/* 8x8 transpose of 2-byte elements (SSE2). */
static inline void tr8x8_2(char *d, int64_t dp, const char *s, int64_t sp)
{
	__m128i a[8], b[8], c[8];
	for (int k = 0; k < 8; k++)
		a[k] = _mm_loadu_si128((const __m128i *)(s + k * sp));
	for (int k = 0; k < 4; k++) {
		b[2 * k] = _mm_unpacklo_epi16(a[2 * k], a[2 * k + 1]);
		b[2 * k + 1] = _mm_unpackhi_epi16(a[2 * k], a[2 * k + 1]);
	}
	/* c[0..3]: columns 0-1, 2-3, 4-5, 6-7 of rows 0-3; c[4..7] of rows 4-7 */
	for (int h = 0; h < 2; h++) {
		c[4 * h] = _mm_unpacklo_epi32(b[4 * h], b[4 * h + 2]);
		c[4 * h + 1] = _mm_unpackhi_epi32(b[4 * h], b[4 * h + 2]);
		c[4 * h + 2] = _mm_unpacklo_epi32(b[4 * h + 1], b[4 * h + 3]);
		c[4 * h + 3] = _mm_unpackhi_epi32(b[4 * h + 1], b[4 * h + 3]);
	}
	for (int k = 0; k < 4; k++) {
		__m128i lo = _mm_unpacklo_epi64(c[k], c[k + 4]);
		__m128i hi = _mm_unpackhi_epi64(c[k], c[k + 4]);
		_mm_storeu_si128((__m128i *)(d + 2 * k * dp), lo);
		_mm_storeu_si128((__m128i *)(d + (2 * k + 1) * dp), hi);
	}
}

/* 8x8 transpose of bytes (SSE2), 8-byte rows. */
static inline void tr8x8_1(char *d, int64_t dp, const char *s, int64_t sp)
{
	__m128i a[8], b[4], c[4];
	for (int k = 0; k < 8; k++)
		a[k] = _mm_loadl_epi64((const __m128i *)(s + k * sp));
	for (int k = 0; k < 4; k++)
		b[k] = _mm_unpacklo_epi8(a[2 * k], a[2 * k + 1]);
	/* c[0], c[1]: columns 0-3, 4-7 of rows 0-3; c[2], c[3] of rows 4-7 */
	for (int h = 0; h < 2; h++) {
		c[2 * h] = _mm_unpacklo_epi16(b[2 * h], b[2 * h + 1]);
		c[2 * h + 1] = _mm_unpackhi_epi16(b[2 * h], b[2 * h + 1]);
	}
	for (int k = 0; k < 2; k++) {
		__m128i lo = _mm_unpacklo_epi32(c[k], c[k + 2]);
		__m128i hi = _mm_unpackhi_epi32(c[k], c[k + 2]);
		_mm_storel_epi64((__m128i *)(d + 4 * k * dp), lo);
		_mm_storel_epi64((__m128i *)(d + (4 * k + 1) * dp), _mm_srli_si128(lo, 8));
		_mm_storel_epi64((__m128i *)(d + (4 * k + 2) * dp), hi);
		_mm_storel_epi64((__m128i *)(d + (4 * k + 3) * dp), _mm_srli_si128(hi, 8));
	}
}

/* Streams only where every dst row of the tile starts a line after the
 * first head elements (which take plain stores); sets *head. */
static bool stream_rows(const char *d, int64_t dp, size_t es, int64_t na, bool want, int64_t *head)
{
	int64_t h = want ? stream_head(d, dp, es, 64, na) : -1;
	*head = h > 0 ? h : 0;
	return h >= 0;
}

/* The last na % 8 rows and nb % 8 columns of an na x nb tile of 4-byte
 * elements (both at least 8), by 8x8 kernels over the last 8 rows and
 * columns that store only what the tile's other kernels have not: the
 * last columns' kernels the rows those leave, the last rows' kernels,
 * through a mask, the lanes they leave. Plain stores: these are partial
 * lines. (Measured alternating on a Zen 4 against the scalar edges:
 * 4000000x13 to 13x4000000 1.35x, 192000x300 1.05x; in cache, 1000x13
 * 2x, 1003x300 1.4x.) */
AVX2_FN static void tr_edges4(char *d, int64_t dp, const char *s, int64_t sp, int64_t na, int64_t nb)
{
	int64_t na8 = na & ~(int64_t)7, nb8 = nb & ~(int64_t)7;
	__m256 o[8];
	if (nb > nb8)
		for (int64_t ia = 0; ia < na8; ia += 8) {
			tr8x8_4(s + ia * sp + (nb - 8) * 4, sp, o);
			for (int64_t k = 8 - (nb - nb8); k < 8; k++)
				_mm256_storeu_ps((float *)(d + (nb - 8 + k) * dp + ia * 4), o[k]);
		}
	if (na > na8) {
		const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
		__m256i keep = _mm256_cmpgt_epi32(lane, _mm256_set1_epi32((int)(7 - (na - na8))));
		for (int64_t ib = 0; ib < nb; ib += 8) {
			int64_t at = ib + 8 <= nb ? ib : nb - 8; /* the last kernel: over the last 8 columns */
			tr8x8_4(s + (na - 8) * sp + at * 4, sp, o);
			for (int64_t k = ib - at; k < 8; k++)
				_mm256_maskstore_ps((float *)(d + (at + k) * dp + (na - 8) * 4), keep, o[k]);
		}
	}
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

/* 8 destination rows of n16 (a multiple of 16) 4-byte elements, from n16
 * source rows, where the rows start at different offsets in their lines
 * (a pitch that is no multiple of 64 bytes), so no kernel's stores make
 * whole lines: the kernels' output is put together in an L1 buffer, each
 * row at its own offset in the buffer's lines, and then each row is
 * streamed in whole lines, its partial first and last lines by plain
 * stores. Prefetches as tr_tile4's. */
AVX2_FN static void tr_rows_staged(char *d, int64_t dp, const char *s, int64_t sp, int64_t n16, int64_t ahead,
				   NextTile *next)
{
	float buf[8][TR_STAGED + 16] __attribute__((aligned(64)));
	int64_t off[8];
	for (int k = 0; k < 8; k++)
		off[k] = (int64_t)((uintptr_t)(d + k * dp) % 64 / 4);
	for (int64_t ia = 0; ia < n16; ia += 16) {
		if (ahead)
			prefetch_rows(s + ia * sp, sp, 16, ahead);
		__m256 lo[8], hi[8];
		tr8x8_4(s + ia * sp, sp, lo);
		tr8x8_4(s + (ia + 8) * sp, sp, hi);
		for (int k = 0; k < 8; k++) {
			_mm256_storeu_ps(&buf[k][off[k] + ia], lo[k]);
			_mm256_storeu_ps(&buf[k][off[k] + ia + 8], hi[k]);
		}
		if (next)
			next_tile_step(next);
	}
	for (int k = 0; k < 8; k++) {
		char *dr = d + k * dp;
		const float *b = &buf[k][off[k]]; /* b + j lies on a line where dr + 4 j does */
		int64_t j = min64((16 - off[k]) % 16, n16);
		memcpy(dr, b, (size_t)j * 4);
		for (; j + 16 <= n16; j += 16) {
			_mm256_stream_ps((float *)(dr + 4 * j), _mm256_load_ps(b + j));
			_mm256_stream_ps((float *)(dr + 4 * j + 32), _mm256_load_ps(b + j + 8));
		}
		memcpy(dr + 4 * j, b + j, (size_t)(n16 - j) * 4);
	}
}

AVX2_FN static void tr_bands4(char *d, int64_t dp, const char *s, int64_t sp, int64_t na16, int64_t nb16);

/* Tiles of na x nb 4-byte elements: 16x8 kernels down the src rows, 8 dst
 * rows at a time, then the edges (tr_edges4, or scalar ones in tiles of
 * fewer than 8 rows or columns). Each group of 16 src rows is
 * prefetched prefetch_ahead() bytes ahead once per line (not at all where
 * their lines collide: sets_collide); the tile that follows continues the same rows,
 * so running past the tile is useful too. With bands (BoxPlan.bands) the
 * whole multiples of 16 go through tr_bands4 and the edges as above. */

AVX2_FN static void tr_tile4(char *d, int64_t dp, const char *s, int64_t sp,
			     int64_t na, int64_t nb, bool stream, bool staged, bool bands, NextTile *next)
{
	int64_t head;
	stream = stream_rows(d, dp, 4, na, stream, &head); /* false where staged: dp is no multiple of 64 */
	assert(!staged || (!stream && na <= TR_STAGED));
	tr_scalar(d, dp, s, sp, head, nb, 4);
	d += head * 4, s += head * sp, na -= head;
	if (bands && stream && na >= 16 && nb >= 16) {
		int64_t na16 = na & ~(int64_t)15, nb16 = nb & ~(int64_t)15;
		tr_bands4(d, dp, s, sp, na16, nb16);
		tr_tile4(d + na16 * 4, dp, s + na16 * sp, sp, na - na16, nb16, stream, false, false, NULL);
		tr_tile4(d + nb16 * dp, dp, s + nb16 * 4, sp, na, nb - nb16, stream, false, false, NULL);
		return;
	}
	int64_t ahead = next && next->only ? 0 : prefetch_ahead(sp);
	if (ahead)
		prefetch_heads(s, sp, na, ahead);
	int64_t na16 = na & ~(int64_t)15, na8 = na & ~(int64_t)7, nb8 = nb & ~(int64_t)7;
	for (int64_t ib = 0; ib < nb8; ib += 8) {
		bool pf = ahead && ib % 16 == 0;
		if (staged)
			tr_rows_staged(d + ib * dp, dp, s + ib * 4, sp, na16, pf ? ahead : 0, next);
		else
			for (int64_t ia = 0; ia < na16; ia += 16) {
				if (pf)
					prefetch_rows(s + ia * sp + ib * 4, sp, 16, ahead);
				tr16x8_4(d + ib * dp + ia * 4, dp, s + ia * sp + ib * 4, sp, stream);
				if (next)
					next_tile_step(next);
			}
		if (na8 > na16) { /* half lines: plain stores */
			__m256 o[8];
			if (pf)
				prefetch_rows(s + na16 * sp + ib * 4, sp, 8, ahead);
			tr8x8_4(s + na16 * sp + ib * 4, sp, o);
			for (int k = 0; k < 8; k++)
				store_4(d + (ib + k) * dp + na16 * 4, o[k], false);
		}
	}
	if (na >= 8 && nb >= 8) {
		tr_edges4(d, dp, s, sp, na, nb);
		return;
	}
	tr_scalar(d + na8 * 4, dp, s + na8 * sp, sp, na - na8, nb, 4);
	tr_scalar(d + nb8 * dp, dp, s + nb8 * 4, sp, na8, nb - nb8, 4);
}

/* The same for 8-byte elements with 8x4 kernels. */
AVX2_FN static void tr_tile8(char *d, int64_t dp, const char *s, int64_t sp,
			     int64_t na, int64_t nb, bool stream, NextTile *next)
{
	int64_t head;
	stream = stream_rows(d, dp, 8, na, stream, &head);
	tr_scalar(d, dp, s, sp, head, nb, 8);
	d += head * 8, s += head * sp, na -= head;
	int64_t ahead = prefetch_ahead(sp);
	if (ahead)
		prefetch_heads(s, sp, na, ahead);
	int64_t na8 = na & ~(int64_t)7, na4 = na & ~(int64_t)3, nb4 = nb & ~(int64_t)3;
	for (int64_t ib = 0; ib < nb4; ib += 4) {
		bool pf = ahead && ib % 8 == 0;
		for (int64_t ia = 0; ia < na8; ia += 8) {
			if (pf)
				prefetch_rows(s + ia * sp + ib * 8, sp, 8, ahead);
			tr8x4_8(d + ib * dp + ia * 8, dp, s + ia * sp + ib * 8, sp, stream);
			if (next)
				next_tile_step(next);
		}
		if (na4 > na8) {
			__m256d o[4];
			tr4x4_8(s + na8 * sp + ib * 8, sp, o);
			for (int k = 0; k < 4; k++)
				store_8(d + (ib + k) * dp + na8 * 8, o[k], false);
		}
	}
	tr_scalar(d + na4 * 8, dp, s + na4 * sp, sp, na - na4, nb, 8);
	tr_scalar(d + nb4 * dp, dp, s + nb4 * 8, sp, na4, nb - nb4, 8);
}

/* The 8 lines of buf streamed to 8 dst rows dp bytes apart. */
AVX2_FN static inline void stream_lines8(char *d, int64_t dp, char (*buf)[64])
{
	for (int k = 0; k < 8; k++) {
		_mm256_stream_si256((__m256i *)(d + k * dp), _mm256_load_si256((const __m256i *)buf[k]));
		_mm256_stream_si256((__m256i *)(d + k * dp + 32), _mm256_load_si256((const __m256i *)&buf[k][32]));
	}
}

/* 32 src rows of 8 2-byte elements: each of 8 dst rows gets one whole
 * 64-byte line, put together in an L1 buffer by four 8x8 kernels and
 * streamed (a streamed half line costs a read of the line in memory). */
AVX2_FN static void tr32x8_2_stream(char *d, int64_t dp, const char *s, int64_t sp)
{
	char buf[8][64] __attribute__((aligned(64)));
	for (int q = 0; q < 4; q++)
		tr8x8_2(&buf[0][16 * q], 64, s + 8 * q * sp, sp);
	stream_lines8(d, dp, buf);
}

/* 64 src rows of 8 bytes: 8 dst rows of one whole line each, as
 * tr32x8_2_stream. */
AVX2_FN static void tr64x8_1_stream(char *d, int64_t dp, const char *s, int64_t sp)
{
	char buf[8][64] __attribute__((aligned(64)));
	for (int q = 0; q < 8; q++)
		tr8x8_1(&buf[0][8 * q], 64, s + 8 * q * sp, sp);
	stream_lines8(d, dp, buf);
}

/* Tiles of 2- or 1-byte elements (es): 8x8 kernels with plain stores (16
 * or 8 bytes of a row each), or, streamed (stream: AVX2 and a streamed
 * copy), 64 / es source rows at a time as whole lines of 8 destination
 * rows, the rows' first elements up to a line boundary and the last rows
 * by the plain kernels (byte tiles take 64 rows: plan_trans). Measured
 * alternating in one process on an Intel Xeon against the plain kernels
 * alone: 7264² f16 6.2 to 24.7 GB/s, 8192² 5.5 to 20.7, bf16
 * (64,2048,1024) to (0,2,1) 6.2 to 17.2, u8 the same 6.0 to 17.0, i8 8000²
 * 7.7 to 17-25. */
static void tr_tile_narrow(char *d, int64_t dp, const char *s, int64_t sp, int64_t na, int64_t nb, int64_t es,
			   bool stream)
{
	int64_t head, line = 64 / es;
	bool aligned = stream_rows(d, dp, (size_t)es, na, stream, &head);
	stream = aligned && na - head >= line;
	if (stream) {
		tr_scalar(d, dp, s, sp, head, nb, (size_t)es);
		d += head * es, s += head * sp, na -= head;
	}
	int64_t nal = stream ? na / line * line : 0, na8 = na & ~(int64_t)7, nb8 = nb & ~(int64_t)7;
	for (int64_t ib = 0; ib < nb8; ib += 8) {
		for (int64_t ia = 0; ia < nal; ia += line)
			(es == 2 ? tr32x8_2_stream : tr64x8_1_stream)(d + ib * dp + ia * es, dp, s + ia * sp + ib * es, sp);
		for (int64_t ia = nal; ia < na8; ia += 8)
			(es == 2 ? tr8x8_2 : tr8x8_1)(d + ib * dp + ia * es, dp, s + ia * sp + ib * es, sp);
	}
	tr_scalar(d + na8 * es, dp, s + na8 * sp, sp, na - na8, nb, (size_t)es);
	tr_scalar(d + nb8 * dp, dp, s + nb8 * es, sp, na8, nb - nb8, (size_t)es);
}

/* The first `lanes` floats at s, the rest 0: a load that reads nothing
 * past them. */
AVX2_FN static inline __m256 load_first(const char *s, int lanes)
{
	__m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	return _mm256_maskload_ps((const float *)s, _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), lane));
}

/* Even elements of two vectors of 4-byte elements: one shuffle, then a
 * lane permute puts them in order. With last, the second vector's last
 * element (odd, not among them) is not read. */
AVX2_FN static inline __m256 even_4(const char *s, bool last)
{
	__m256 b = last ? load_first(s + 32, 7) : _mm256_loadu_ps((const float *)(s + 32));
	__m256 e = _mm256_shuffle_ps(_mm256_loadu_ps((const float *)s), b, 0x88);
	return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8));
}

/* Elements 0, 4, 8, ... of four vectors of 4-byte elements; with last,
 * nothing of the fourth vector past its element 4 is read. */
AVX2_FN static inline __m256 every4_4(const char *s, bool last)
{
	const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
	const float *p = (const float *)s;
	__m256 q = last ? load_first(s + 96, 5) : _mm256_loadu_ps(p + 24);
	__m256 ab = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0);
	__m256 cd = _mm256_shuffle_ps(_mm256_loadu_ps(p + 16), q, 0);
	return _mm256_permutevar8x32_ps(_mm256_shuffle_ps(ab, cd, 0x88), order);
}

/* One streamed line of gather_k4: d[0..16) = s[0], s[k], ..., the k
 * source lines GATHER_AHEAD on prefetched; last: the line ends at the
 * last element, whose successor is not read. */
AVX2_FN static inline void gather_line_k4(char *d, const char *s, int k, bool last)
{
	prefetch(s, GATHER_AHEAD);
	prefetch(s, GATHER_AHEAD + 64);
	if (k == 4) {
		prefetch(s, GATHER_AHEAD + 128);
		prefetch(s, GATHER_AHEAD + 192);
	}
	__m256 lo = k == 2 ? even_4(s, false) : every4_4(s, false);
	__m256 hi = k == 2 ? even_4(s + 32 * k, last) : every4_4(s + 32 * k, last);
	_mm256_stream_ps((float *)d, lo);
	_mm256_stream_ps((float *)(d + 32), hi);
}

/* d[i] = s[k·i] for 4-byte elements, k = 2 or 4. Streamed, from the first
 * whole line of d on, sixteen elements (a whole line) per step, its two
 * halves stored back to back, the last line too: its last vector is read
 * through a mask, so nothing past the last element is read (a half line
 * left to plain stores at the end of every 64 KiB piece made x[:, ::2] of
 * 8192² 1.13x slower and x[:, 1::4] 1.08x: measured on an Intel Xeon, the
 * L3 flushed between runs). A tail shorter than a line takes plain
 * stores; the unstreamed loop stops before the last element. */
AVX2_FN static void gather_k4(char *d, const char *s, int64_t n, int k, bool stream)
{
	int64_t i = stream ? stream_head(d, 0, 4, 64, n) : 0, step = 4 * k;
	stream = stream && i >= 0;
	i = i > 0 ? i : 0;
	row_gather(d, s, step, i, 4);
	for (; stream && i + 16 < n; i += 16)
		gather_line_k4(d + 4 * i, s + step * i, k, false);
	if (stream && i + 16 == n) {
		gather_line_k4(d + 4 * i, s + step * i, k, true);
		i += 16;
	}
	for (; i + 8 + 1 <= n; i += 8)
		store_4(d + 4 * i, k == 2 ? even_4(s + step * i, false) : every4_4(s + step * i, false), false);
	row_gather(d + 4 * i, s + step * i, step, n - i, 4);
}

#endif /* X86 */

/* ------------------------------------------------------- one stream copy */

void copy_stream(void *dst, const void *src, size_t n)
{
#ifdef X86
	if (pick_simd() == SIMD_AVX2 && n >= 64) {
		stream_copy_avx2(dst, src, n);
		_mm_sfence(); /* visible before whatever the caller signals next */
		return;
	}
#endif
	memcpy(dst, src, n);
}

void copy_stream_nofence(void *dst, const void *src, size_t n)
{
#ifdef X86
	if (pick_simd() == SIMD_AVX2 && n >= 64) {
		stream_copy_avx2(dst, src, n);
		return;
	}
#endif
	memcpy(dst, src, n);
}

/* Any of n i64 (unaligned, contiguous) outside [lo, hi] once a negative
 * one has mod added? */
static bool i64_out_c(const char *p, int64_t n, int64_t mod, int64_t lo, int64_t hi)
{
	uint64_t bad = 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t v;
		memcpy(&v, p + i * 8, sizeof v);
		v += v < 0 ? mod : 0;
		bad |= (uint64_t)(v < lo) | (uint64_t)(v > hi);
	}
	return bad != 0;
}

#ifdef X86
AVX2_FN static bool i64_out_avx2(const char *p, int64_t n, int64_t mod, int64_t lo, int64_t hi)
{
	const __m256i m = _mm256_set1_epi64x(mod), l = _mm256_set1_epi64x(lo), h = _mm256_set1_epi64x(hi);
	const __m256i zero = _mm256_setzero_si256();
	__m256i bad = zero;
	int64_t i = 0;
	for (; i + 8 <= n; i += 8)
		for (int k = 0; k < 8; k += 4) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + (i + k) * 8));
			v = _mm256_add_epi64(v, _mm256_and_si256(_mm256_cmpgt_epi64(zero, v), m));
			bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi64(l, v), _mm256_cmpgt_epi64(v, h)));
		}
	return !_mm256_testz_si256(bad, bad) || i64_out_c(p + i * 8, n - i, mod, lo, hi);
}
#endif

#ifdef X86
/* Index r of a row gather: i64 (w 8) or i32 (w 4), plus mod when negative. */
static inline int64_t gather_index(const char *ip, int64_t istep, int w, int64_t r, int64_t mod)
{
	int64_t v;
	if (w == 8)
		memcpy(&v, ip + r * istep, 8);
	else {
		int32_t v32;
		memcpy(&v32, ip + r * istep, 4);
		v = v32;
	}
	return v + (v < 0 ? mod : 0);
}

/* copy_gathered_rows' loop for w-byte indices and rows of len bytes (a
 * multiple of 32; a constant where it is inlined with one): 32-byte
 * moves, streamed or plain, the row ahead rows on prefetched into L2. */
AVX2_FN static inline __attribute__((always_inline)) int64_t gather_rows_k(const RowGather *g, int64_t r0, int64_t n,
                                                                          int w, size_t len, bool stream)
{
	const char *ip = g->ip, *tp = g->tp;
	char *op = g->op;
	int64_t istep = g->istep, toff = g->toff, istride = g->istride, ostep = g->ostep, lo = g->lo, mod = g->mod;
	int64_t ahead = g->ahead, end = g->end;
	uint64_t span = g->span;
	for (int64_t r = r0; r < r0 + n; r++) {
		if (r + ahead < end) {
			int64_t q = gather_index(ip, istep, w, r + ahead, mod);
			if ((uint64_t)q - (uint64_t)lo <= span) {
				const char *p = tp + (toff + q * istride);
				for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < (uintptr_t)p + len; a += 64)
					_mm_prefetch((const char *)a, _MM_HINT_T1);
			}
		}
		int64_t j = gather_index(ip, istep, w, r, mod);
		if ((uint64_t)j - (uint64_t)lo > span)
			return r;
		const char *s = tp + (toff + j * istride);
		char *d = op + r * ostep;
		for (size_t k = 0; k < len; k += 32) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(s + k));
			if (stream)
				_mm256_stream_si256((__m256i *)(void *)(d + k), v);
			else
				_mm256_storeu_si256((__m256i *)(void *)(d + k), v);
		}
	}
	return r0 + n;
}

#define GATHER_ROWS(w)                                                                                                 \
	(g->len == 64 && !g->stream ? gather_rows_k(g, r0, n, w, 64, false)                                             \
	 : g->stream                ? gather_rows_k(g, r0, n, w, g->len, true)                                          \
	                            : gather_rows_k(g, r0, n, w, g->len, false))

AVX2_FN static int64_t gather_rows_avx2(const RowGather *g, int64_t r0, int64_t n)
{
	return g->iw == 8 ? GATHER_ROWS(8) : GATHER_ROWS(4);
}
#undef GATHER_ROWS
#endif

int64_t copy_gathered_rows(const RowGather *g, int64_t r0, int64_t n)
{
#ifdef X86
	if (pick_simd() == SIMD_AVX2 && (g->iw == 8 || g->iw == 4) && g->len % 32 == 0 &&
	    (!g->stream || (uintptr_t)g->op % 32 == 0))
		return gather_rows_avx2(g, r0, n);
#endif
	(void)g, (void)r0, (void)n;
	return -1;
}

bool i64_out_of(const void *p, int64_t n, int64_t mod, int64_t lo, int64_t hi)
{
#ifdef X86
	if (pick_simd() == SIMD_AVX2)
		return i64_out_avx2(p, n, mod, lo, hi);
#endif
	return i64_out_c(p, n, mod, lo, hi);
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
	default: return a > 0 || a != a ? a : 0.0f;
	}
}

#ifdef X86
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
	default: { /* relu: a where a > 0 or a is NaN, else +0 */
		return _mm256_and_ps(a, _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_NLE_UQ)); /* not a <= 0 */
	}
	}
}

AVX2_FN static void stream_op_avx2(int op, char *d, const float *a, const float *b, int64_t n)
{
	int64_t i = 0;
	for (; i < n && (uintptr_t)(d + 4 * i) % 32; i++)
		((float *)d)[i] = sop1(op, a[i], b[i]);
	for (; i + 16 <= n; i += 16) { /* two stores back to back: whole lines */
		__m256 r0 = sop8(op, _mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
		__m256 r1 = sop8(op, _mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
		_mm256_stream_ps((float *)(d + 4 * i), r0);
		_mm256_stream_ps((float *)(d + 4 * i + 32), r1);
	}
	for (; i < n; i++)
		((float *)d)[i] = sop1(op, a[i], b[i]);
}
#endif

void stream_op_f32(int op, void *dst, const float *a, const float *b, int64_t n)
{
#ifdef X86
	if (pick_simd() == SIMD_AVX2) {
		stream_op_avx2(op, dst, a, b, n);
		return;
	}
#endif
	for (int64_t i = 0; i < n; i++)
		((float *)dst)[i] = sop1(op, a[i], b[i]);
}

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
		if (q->op == SOP_NEG || q->op == SOP_RELU) {
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
	return pw_chain(p, &ch); /* which refuses transposed sides: the tiles transpose the value */
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

/* The chain over 8 vectors of row r from column c. */
PW_INLINE void pw_chain_row(const PwProg *p, const PwChain *ch, __m256 *val, int64_t r, int64_t c)
{
	enum { N = 8 };
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
			pw_chain_row(p, ch, val, r, c);
			PW_UNROLL for (int k = 0; k < 8; k++)
				store_4(dr + 4 * (c + 8 * k), val[k], stream);
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
AVX2_FN static void tr_bands4(char *d, int64_t dp, const char *s, int64_t sp, int64_t na16, int64_t nb16)
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

/* CPUID leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports has no
 * "f16c"); AVX2 already says that the OS saves the vector registers. Asked
 * once: every unit of f16 lanes asks, and in a VM CPUID traps to the host. */
static bool has_f16c(void)
{
	static atomic_int known = -1;
	int k = atomic_load_explicit(&known, memory_order_relaxed);
	if (k < 0) {
		unsigned a, b, c = 0, d;
		k = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
		atomic_store_explicit(&known, k, memory_order_relaxed);
	}
	return k && pick_simd() == SIMD_AVX2;
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

/* sigmoid as the interpreter has it, 1 / (1 + e^-x) in double. */
static double sigmoid1(double x)
{
	return 1.0 / (1.0 + exp(-x));
}

#ifdef X86
/* c[0] + c[1]·x + ... + c[n-1]·x^(n-1) by Horner's rule. */
AVX2_FN static inline __m256d poly4(__m256d x, const double *c, int n)
{
	__m256d p = _mm256_set1_pd(c[n - 1]);
	for (int k = n - 2; k >= 0; k--)
		p = _mm256_add_pd(_mm256_mul_pd(p, x), _mm256_set1_pd(c[k]));
	return p;
}

/* ln 2 in two parts: LN2_HI has 32 trailing zero bits, so its product
 * with an integer of up to 21 bits is exact. */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10

/* exp in double of 4 floats: n = round(x·log2 e), r = x - n·ln 2 in two
 * parts (n has at most 8 bits), e^r by Taylor's series to r^11 (|r| <= 0.35: the first term left
 * out is below 2^-47 of the sum; Horner's rounding adds a few 2^-53), times
 * 2^n put together in the exponent bits. Within 2^-46 of e^x, far less
 * than the margin exp_floats leaves. */
AVX2_FN static inline __m256d exp4(__m256d x)
{
	static const double c[12] = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
				     1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800};
	__m256d n = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(1.4426950408889634)),
				    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	__m256d r = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_mul_pd(n, _mm256_set1_pd(LN2_HI))),
				  _mm256_mul_pd(n, _mm256_set1_pd(LN2_LO)));
	__m256d p = poly4(r, c, 12);
	__m256i e = _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n)), _mm256_set1_epi64x(1023)),
				      52);
	return _mm256_mul_pd(p, _mm256_castsi256_pd(e));
}

/* Lanes of y whose rounding to float exp4's error could change: within
 * 2^13 units of the last place (a double's) of a halfway point between
 * two floats (the 29 bits a float drops are near 2^28). libm's exp and
 * exp4 both lie far closer than that to e^x, so elsewhere both round to
 * the same float. */
AVX2_FN static inline int exp_unsure(__m256d y)
{
	__m256i m = _mm256_and_si256(_mm256_castpd_si256(y), _mm256_set1_epi64x((1 << 29) - 1));
	__m256i d = _mm256_sub_epi64(m, _mm256_set1_epi64x((1 << 28) - (1 << 13)));
	__m256i in = _mm256_and_si256(_mm256_cmpgt_epi64(d, _mm256_set1_epi64x(-1)),
				      _mm256_cmpgt_epi64(_mm256_set1_epi64x(1 << 14), d));
	return _mm256_movemask_pd(_mm256_castsi256_pd(in));
}

/* d[i] = f(s[i]) for n floats, as the interpreter computes f (in double
 * by libm, rounded once), 8 at a time with f4 where x (or |x|, odd: f4
 * then takes |x| and the sign is put back) lies in [lo, hi] and the
 * rounding is sure (exp_unsure), f1 for the rest. d may be s. */
AVX2_FN static inline __attribute__((always_inline)) void floats_by4(float *d, const float *s, int64_t n, float lo,
								      float hi, bool odd, __m256d (*f4)(__m256d),
								      double (*f1)(double))
{
	const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi), sign = _mm256_set1_ps(-0.0f);
	int64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		float xs[8];
		__m256 x = _mm256_loadu_ps(s + i), ax = odd ? _mm256_andnot_ps(sign, x) : x;
		_mm256_storeu_ps(xs, x);
		int in = _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(ax, vlo, _CMP_GE_OQ), _mm256_cmp_ps(ax, vhi, _CMP_LE_OQ)));
		if (!in) { /* none in range: f1 alone */
			for (int k = 0; k < 8; k++)
				d[i + k] = (float)f1((double)xs[k]);
			continue;
		}
		__m256d y0 = f4(_mm256_cvtps_pd(_mm256_castps256_ps128(ax)));
		__m256d y1 = f4(_mm256_cvtps_pd(_mm256_extractf128_ps(ax, 1)));
		int sure = in & ~(exp_unsure(y0) | exp_unsure(y1) << 4);
		__m256 y = _mm256_set_m128(_mm256_cvtpd_ps(y1), _mm256_cvtpd_ps(y0));
		_mm256_storeu_ps(d + i, odd ? _mm256_or_ps(y, _mm256_and_ps(sign, x)) : y);
		if (sure != 0xff)
			for (int k = 0; k < 8; k++)
				if (!(sure >> k & 1))
					d[i + k] = (float)f1((double)xs[k]);
	}
	for (; i < n; i++)
		d[i] = (float)f1((double)s[i]);
}

/* The same with exp4: within 2^-45 of it, so the same check of the
 * rounding holds (x in [-87, 87]). */
AVX2_FN static inline __m256d sigmoid4(__m256d x)
{
	const __m256d one = _mm256_set1_pd(1.0);
	return _mm256_div_pd(one, _mm256_add_pd(one, exp4(_mm256_xor_pd(x, _mm256_set1_pd(-0.0)))));
}

/* e^r - 1 for r in [0, 1]: r·(1 + r/2 + r^2/6 + ... + r^16/17!), the
 * first term left out below 2^-52 of the sum: accurate near 0, where
 * exp4's e^r - 1 would lose the bits of r. */
AVX2_FN static inline __m256d expm1_small4(__m256d r)
{
	static const double c[17] = {1.0 / 1, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
				     1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600,
				     1.0 / 6227020800.0, 1.0 / 87178291200.0, 1.0 / 1307674368000.0,
				     1.0 / 20922789888000.0, 1.0 / 355687428096000.0};
	return _mm256_mul_pd(poly4(r, c, 17), r);
}

/* tanh of 4 doubles a = |x| in [2^-126, 44]: q / (q + 2) with q = e^2a - 1
 * (expm1_small4) below 0.5, 1 - 2 / (e^2a + 1) from there (at least 0.46,
 * so exp4's error stays within 2^-45 of it); the sign is put back after. */
AVX2_FN static inline __m256d tanh4(__m256d a)
{
	const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0);
	__m256d a2 = _mm256_add_pd(a, a);
	__m256d q = expm1_small4(_mm256_min_pd(a2, one));
	__m256d small = _mm256_div_pd(q, _mm256_add_pd(q, two));
	__m256d big = _mm256_sub_pd(one, _mm256_div_pd(two, _mm256_add_pd(exp4(a2), one)));
	return _mm256_blendv_pd(big, small, _mm256_cmp_pd(a, _mm256_set1_pd(0.5), _CMP_LT_OQ));
}

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

/* The vectorised forms: exp where x is in [-87, 88] (no overflow, no
 * float subnormal), sigmoid in [-87, 87], tanh where |x| is in [2^-126,
 * 44] (past 9 it is 1 in float anyway), log of positive normal floats. */
AVX2_FN static void exp_floats_avx2(float *d, const float *s, int64_t n)
{
	floats_by4(d, s, n, -87.0f, 88.0f, false, exp4, exp);
}

AVX2_FN static void sigmoid_floats_avx2(float *d, const float *s, int64_t n)
{
	floats_by4(d, s, n, -87.0f, 87.0f, false, sigmoid4, sigmoid1);
}

AVX2_FN static void tanh_floats_avx2(float *d, const float *s, int64_t n)
{
	floats_by4(d, s, n, 0x1p-126f, 44.0f, true, tanh4, tanh);
}

AVX2_FN static void log_floats_avx2(float *d, const float *s, int64_t n)
{
	floats_by4(d, s, n, 0x1p-126f, 0x1.fffffep+127f, false, log4, log);
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
#define exp_floats_avx2 NULL
#define sigmoid_floats_avx2 NULL
#define tanh_floats_avx2 NULL
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

void exp_floats(float *d, const float *s, int64_t n)
{
	floats_fn(d, s, n, exp_floats_avx2, exp);
}

void sigmoid_floats(float *d, const float *s, int64_t n)
{
	floats_fn(d, s, n, sigmoid_floats_avx2, sigmoid1);
}

void tanh_floats(float *d, const float *s, int64_t n)
{
	floats_fn(d, s, n, tanh_floats_avx2, tanh);
}

void log_floats(float *d, const float *s, int64_t n)
{
	floats_fn(d, s, n, log_floats_avx2, log);
}

void sqrt_floats(float *d, const float *s, int64_t n)
{
	floats_fn(d, s, n, sqrt_floats_avx2, sqrt);
}

void copy_fence(void)
{
#ifdef X86
	_mm_sfence();
#endif
}

/* --------------------------------------------------------------- units */

static void copy_run(const BoxPlan *p, char *d, const char *s, size_t n)
{
#ifdef X86
	if ((p->flags & COPY_STREAM) && p->simd == SIMD_AVX2 && n >= 64) {
		stream_copy_avx2(d, s, n);
		return;
	}
#endif
	memcpy(d, s, n);
}

/* K_RUN: nb runs of na elements. */
static void unit_run(const BoxPlan *p, char *d, const char *s, int64_t na, int64_t nb)
{
	size_t len = (size_t)na * p->esize, piece = len > RUN_SHORT && nb > 1 ? RUN_PIECE : len;
	for (size_t off = 0; off < len; off += piece) /* long runs: RUN_PIECE bytes of each in turn */
		for (int64_t ib = 0; ib < nb; ib++)
			copy_run(p, d + ib * p->ds[1] + off, s + ib * p->ss[1] + off, len - off < piece ? len - off : piece);
}

/* Prefetches a run's bytes RUN_PREFETCH ahead along its source row. */
static inline void prefetch_run(const char *s, size_t len)
{
	for (size_t off = 0; off < len; off += 64)
		prefetch(s, RUN_PREFETCH + (int64_t)off);
}

#ifdef X86
/* K_RUNTILE streamed; one function so the short copies are inlined. */
AVX2_FN static void runtile_stream(const BoxPlan *p, char *d, const char *s, int64_t na, int64_t nb)
{
	size_t len = p->elem;
	for (int64_t ib = 0; ib < nb; ib++) {
		char *dr = d + ib * p->ds[1];
		const char *sr = s + ib * p->ss[1];
		for (int64_t ia = 0; ia < na; ia++) {
			prefetch_run(sr + ia * p->ss[0], len);
			stream_copy_avx2(dr + ia * (int64_t)len, sr + ia * p->ss[0], len);
		}
	}
}
#endif

/* K_RUNTILE: an na x nb tile of runs of p->elem bytes; dst is contiguous
 * along a, so each tile row is one destination stream. */
static void unit_runtile(const BoxPlan *p, char *d, const char *s, int64_t na, int64_t nb)
{
#ifdef X86
	if ((p->flags & COPY_STREAM) && p->simd == SIMD_AVX2) {
		runtile_stream(p, d, s, na, nb);
		return;
	}
#endif
	size_t len = p->elem;
	for (int64_t ib = 0; ib < nb; ib++) {
		char *dr = d + ib * p->ds[1];
		const char *sr = s + ib * p->ss[1];
		for (int64_t ia = 0; ia < na; ia++) {
			prefetch_run(sr + ia * p->ss[0], len);
			memcpy(dr + ia * (int64_t)len, sr + ia * p->ss[0], len);
		}
	}
}

/* A tile, and the next one's source and extents when it has one to
 * prefetch (p->next_tile and not the task's last). */
typedef struct {
	char *d;
	const char *s;
	int64_t na, nb;
} Unit;

static void unit_trans(const BoxPlan *p, const Unit *t, const Unit *next)
{
	char *d = t->d;
	const char *s = t->s;
	int64_t dp = p->ds[1], sp = p->ss[0], na = t->na, nb = t->nb;
	bool stream = p->flags & COPY_STREAM;
#ifdef X86
	if (p->simd == SIMD_AVX2 && (p->esize == 4 || p->esize == 8)) {
		/* the kernels: 16x8 of 4-byte elements, 8x4 of 8-byte ones */
		int64_t es = (int64_t)p->esize, kernels = (na / (64 / es)) * (nb / (32 / es));
		NextTile nt = next_tile(next ? next->s : NULL, 0, sp, next ? (next->nb * es + 63) / 64 : 0,
					next ? next->na : 0, kernels, p->next_only);
		if (es == 4)
			tr_tile4(d, dp, s, sp, na, nb, stream, p->staged, p->bands, nt.per ? &nt : NULL);
		else
			tr_tile8(d, dp, s, sp, na, nb, stream, nt.per ? &nt : NULL);
		return;
	}
	if (p->simd != SIMD_NONE && p->esize <= 2) {
		tr_tile_narrow(d, dp, s, sp, na, nb, (int64_t)p->esize, stream && p->simd == SIMD_AVX2);
		return;
	}
#endif
	(void)stream;
	tr_scalar(d, dp, s, sp, na, nb, p->esize);
}

/* One strided row of K_GEN. */
static void gen_row(const BoxPlan *p, char *d, const char *s, int64_t n)
{
	int64_t es = (int64_t)p->esize, dstep = p->ds[0], sstep = p->ss[0];
#ifdef X86
	bool stream = p->flags & COPY_STREAM;
	if (p->simd == SIMD_AVX2 && es == 4 && dstep == 4 && (sstep == 8 || sstep == 16)) {
		gather_k4(d, s, n, (int)(sstep / 4), stream);
		return;
	}
#endif
	if (dstep == es)
		row_gather(d, s, sstep, n, p->esize);
	else
		row_copy(d, dstep, s, sstep, n, p->esize);
}

static void unit_gen(const BoxPlan *p, char *d, const char *s, int64_t na, int64_t nb)
{
	for (int64_t ib = 0; ib < nb; ib++)
		gen_row(p, d + ib * p->ds[1], s + ib * p->ss[1], na);
}

/* --------------------------------------------------------------- tasks */

/* Tile u: loop dims 0 and 1 tiled, the others one index each. Tiles are
 * numbered with dim 1's tiles fastest, then the outer dims in loop order,
 * with dim 0's tiles just before loop dim t0_at's: t0_at 1 puts them
 * first (the kinds that walk the destination), nloop last (K_RUNTILE),
 * and a transpose puts them where their step falls among the outer dims'
 * source strides, so that consecutive tiles read the source in order
 * (measured, alternating in one process: (75,12,608,96) to (1,0,3,2)
 * 9-11 % faster, (28,28,4,352,48) to (2,0,4,1,3) 7-9 % than with them
 * last; the other permutations of the performance set within the noise,
 * as for K_RUNTILE's short runs). */
static Unit unit_at(const BoxPlan *p, int64_t u)
{
	int64_t t0 = 0, t1 = 0, doff = 0, soff = 0;
	for (int k = 1; k <= p->nloop; k++) { /* k: the loop dim whose index comes next (1: dim 1's tiles) */
		if (k == p->t0_at) {
			t0 = u % p->ntile[0];
			u /= p->ntile[0];
		}
		if (k == 1) {
			t1 = u % p->ntile[1];
			u /= p->ntile[1];
		} else if (k < p->nloop) {
			int64_t i = u % p->n[k];
			u /= p->n[k];
			doff += i * p->ds[k];
			soff += i * p->ss[k];
		}
	}
	int64_t i0 = t0 * p->blk[0], i1 = t1 * p->blk[1];
	doff += i0 * p->ds[0] + i1 * p->ds[1];
	soff += i0 * p->ss[0] + i1 * p->ss[1];
	return (Unit){p->dst + doff, p->src + soff, min64(p->blk[0], p->n[0] - i0), min64(p->blk[1], p->n[1] - i1)};
}

static void run_unit(const BoxPlan *p, const Unit *t, const Unit *next)
{
	switch (p->kind) {
	case K_RUN: unit_run(p, t->d, t->s, t->na, t->nb); break;
	case K_RUNTILE: unit_runtile(p, t->d, t->s, t->na, t->nb); break;
	case K_TRANS: unit_trans(p, t, next); break;
	default: unit_gen(p, t->d, t->s, t->na, t->nb); break;
	}
}

void box_run_task(const BoxPlan *p, int64_t task)
{
	int64_t u0 = task * p->per_task;
	int64_t u1 = min64(u0 + p->per_task, p->nunits);
	if (u0 >= u1)
		return;
	Unit t = unit_at(p, u0);
	for (int64_t u = u0; u < u1; u++) { /* each tile found once, as the one before's next */
		bool more = u + 1 < u1;
		Unit next = more ? unit_at(p, u + 1) : t;
		run_unit(p, &t, more && p->next_tile ? &next : NULL);
		t = next;
	}
#ifdef X86
	if (p->flags & COPY_STREAM)
		_mm_sfence();
#endif
}

void copy_box(void *dst, const int64_t *dstride, const void *src,
	      const int64_t *sstride, const int64_t *shape, int rank,
	      size_t esize, int flags)
{
	BoxPlan p;
	int64_t n = box_plan(&p, dst, dstride, src, sstride, shape, rank, esize, flags);
	for (int64_t t = 0; t < n; t++)
		box_run_task(&p, t);
}

static void par_task(void *arg, int64_t task, int worker)
{
	(void)worker;
	box_run_task(arg, task);
}

void copy_box_par(void *dst, const int64_t *dstride, const void *src,
		  const int64_t *sstride, const int64_t *shape, int rank,
		  size_t esize, int flags, int nthreads)
{
	BoxPlan p;
	int64_t n = box_plan(&p, dst, dstride, src, sstride, shape, rank, esize, flags);
	pool_run(n, par_task, &p, nthreads);
}
