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

#include "simd.h"

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

/* A 4-byte transpose whose dst rows (loop dim 0) are at most 8
 * elements, continued in dst by an outer dim (a permutation whose output's
 * last dim is short: (2,4,128,2048) to (3,0,2,1), rows of 4 floats that
 * dim 2 of 128 continues): each tile walks that dim whole (tr_short4), so
 * that its stores to a dst line follow each other. */
static void short_rows(BoxPlan *p)
{
	if (p->esize != 4 || p->n[0] > 8 || p->staged || p->bands || p->simd != SIMD_AVX2)
		return;
	int j = 2;
	while (j < p->nloop && p->ds[j] != p->n[0] * 4)
		j++;
	if (j == p->nloop)
		return;
	p->wn = p->n[j], p->wds = p->ds[j], p->wss = p->ss[j];
	for (int k = j; k + 1 < p->nloop; k++) /* out of the loop dims */
		p->n[k] = p->n[k + 1], p->ds[k] = p->ds[k + 1], p->ss[k] = p->ss[k + 1];
	p->nloop--;
	p->t0_at = p->nloop; /* one tile of dim 0 */
	p->blk[1] = min64(p->n[1], clamp64(TR_SHORT_BYTES / (p->wn * p->n[0] * 4), 16, TR_B));
	p->elem = (size_t)p->wn * 4; /* a tile's bytes per index of dim 0 (box_plan's tasks) */
	p->next_tile = false;
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
	short_rows(p);
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

/* 4 src rows of 8 4-byte elements to 8 dst rows of 4: 16-byte plain
 * stores (a dst row is part of a line). */
AVX2_FN static inline void tr4x8_4(char *d, int64_t dp, const char *s, int64_t sp)
{
	__m256 r0 = _mm256_loadu_ps((const float *)s), r1 = _mm256_loadu_ps((const float *)(s + sp));
	__m256 r2 = _mm256_loadu_ps((const float *)(s + 2 * sp)), r3 = _mm256_loadu_ps((const float *)(s + 3 * sp));
	__m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
	__m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
	/* u_k: column k of the 4 rows, then column k + 4 */
	__m256 u[4] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE), _mm256_shuffle_ps(t1, t3, 0x44),
		       _mm256_shuffle_ps(t1, t3, 0xEE)};
	for (int k = 0; k < 4; k++) {
		_mm_storeu_ps((float *)(d + k * dp), _mm256_castps256_ps128(u[k]));
		_mm_storeu_ps((float *)(d + (k + 4) * dp), _mm256_extractf128_ps(u[k], 1));
	}
}

/* 2 src rows of 8 4-byte elements to 8 dst rows of 2: 8-byte stores. */
AVX2_FN static inline void tr2x8_4(char *d, int64_t dp, const char *s, int64_t sp)
{
	__m256 r0 = _mm256_loadu_ps((const float *)s), r1 = _mm256_loadu_ps((const float *)(s + sp));
	/* columns 0, 1 then 4, 5 of the 2 rows; 2, 3 then 6, 7 */
	__m256 u[2] = {_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1)};
	for (int k = 0; k < 2; k++) {
		__m128 lo = _mm256_castps256_ps128(u[k]), hi = _mm256_extractf128_ps(u[k], 1);
		_mm_storel_pi((__m64 *)(d + 2 * k * dp), lo);
		_mm_storeh_pi((__m64 *)(d + (2 * k + 1) * dp), lo);
		_mm_storel_pi((__m64 *)(d + (2 * k + 4) * dp), hi);
		_mm_storeh_pi((__m64 *)(d + (2 * k + 5) * dp), hi);
	}
}

/* 4 src rows of 8 4-byte elements to 8 dst rows of 4 that follow each
 * other (dp 16: the rows of a zip, (2,4,128,2048) to (0,2,3,1)): 128
 * contiguous bytes in four 32-byte stores. */
AVX2_FN static inline void zip4x8_4(char *d, const char *s, int64_t sp, bool stream)
{
	__m256 r0 = _mm256_loadu_ps((const float *)s), r1 = _mm256_loadu_ps((const float *)(s + sp));
	__m256 r2 = _mm256_loadu_ps((const float *)(s + 2 * sp)), r3 = _mm256_loadu_ps((const float *)(s + 3 * sp));
	__m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
	__m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
	/* u_k: column k of the 4 rows, then column k + 4 */
	__m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
	__m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
	store_4(d, _mm256_permute2f128_ps(u0, u1, 0x20), stream);
	store_4(d + 32, _mm256_permute2f128_ps(u2, u3, 0x20), stream);
	store_4(d + 64, _mm256_permute2f128_ps(u0, u1, 0x31), stream);
	store_4(d + 96, _mm256_permute2f128_ps(u2, u3, 0x31), stream);
}

/* 2 src rows of 8 to 8 dst rows of 2 that follow each other (dp 8): 64
 * contiguous bytes in two stores. */
AVX2_FN static inline void zip2x8_4(char *d, const char *s, int64_t sp, bool stream)
{
	__m256 r0 = _mm256_loadu_ps((const float *)s), r1 = _mm256_loadu_ps((const float *)(s + sp));
	__m256 lo = _mm256_unpacklo_ps(r0, r1), hi = _mm256_unpackhi_ps(r0, r1); /* columns 0, 1, 4, 5; 2, 3, 6, 7 */
	store_4(d, _mm256_permute2f128_ps(lo, hi, 0x20), stream);
	store_4(d + 32, _mm256_permute2f128_ps(lo, hi, 0x31), stream);
}

/* 8 dst rows of na < 8 elements (4-byte) at pitch dp from na src rows sp
 * apart: 4x8 kernels, then 2x8, then one by one. */
AVX2_FN static inline void narrow8(char *d, int64_t dp, const char *s, int64_t sp, int64_t na)
{
	int64_t c = 0;
	for (; c + 4 <= na; c += 4)
		tr4x8_4(d + c * 4, dp, s + c * sp, sp);
	for (; c + 2 <= na; c += 2)
		tr2x8_4(d + c * 4, dp, s + c * sp, sp);
	tr_scalar(d + c * 4, dp, s + c * sp, sp, na - c, 8, 4);
}

/* A tile of fewer than 8 rows (na < 8, dst rows of 4-28 bytes at any
 * pitch): per 8 columns, narrow8; where
 * the dst rows follow each other (a zip of 2 or 4 src rows), the zip
 * kernels, streamed where the tile's dst is aligned. Measured on a Zen 3
 * through athene run --bench at two threads, alternating with the
 * element-by-element copy of such tiles before: (2,4,128,2048) to
 * (0,2,3,1) 1.1 -> 0.22-0.41 ms, (2,0,3,1) 0.93 -> 0.22-0.40, (2,1,3,0)
 * 1.2-1.8 -> 0.23-0.25, (1,2,3,0) 1.2 -> 0.22-0.39, (2,1152,2048) to
 * (1,2,0) 2.6 -> 0.54. */
AVX2_FN static void tr_narrow4(char *d, int64_t dp, const char *s, int64_t sp, int64_t na, int64_t nb, bool stream)
{
	int64_t nb8 = nb & ~(int64_t)7;
	bool zip = (na == 4 || na == 2) && dp == na * 4;
	stream = stream && zip && (uintptr_t)d % 32 == 0;
	for (int64_t ib = 0; ib < nb8; ib += 8) {
		char *db = d + ib * dp;
		const char *sb = s + ib * 4;
		if (!zip)
			narrow8(db, dp, sb, sp, na);
		else if (na == 4)
			zip4x8_4(db, sb, sp, stream);
		else
			zip2x8_4(db, sb, sp, stream);
	}
	tr_scalar(d + nb8 * dp, dp, s + nb8 * 4, sp, na, nb - nb8, 4);
}

/* A tile of at most 8 dst columns (na <= 8, dst rows of 4-32 bytes),
 * for each of wn steps of the dim that continues the dst rows (wds, wss:
 * its strides; short_rows): per 16 dst rows, every step's 8x8 kernels,
 * then 4x8, then 2x8, then one by one (the 16 columns' src lines read
 * whole, the dst lines written one after the other); the last columns
 * one by one. Rows of 8 ((2,4,128,2048) to (3,2,0,1)) took 16x8 tiles
 * that walked one step each: 1.0-1.2 -> 0.57-0.68 ms this way.
 * Measured on a Zen 3, two threads, (2,4,128,2048) to (0,3,2,1) and
 * (3,0,2,1) (rows of 4 floats) alternating with the transposes before,
 * which took the rows one element at a time, a step of the dim a tile:
 * 2.0-4.1x and 1.4-2.2x; rows of 2 floats, (1,3,2,0) 3.9-4.9x, (2,3,1,0)
 * 2.9-3.0x, (3,1,2,0) 2.0-2.1x, (3,2,1,0) 1.3-1.4x. */
AVX2_FN static void tr_short4(char *d, int64_t dp, const char *s, int64_t sp, int64_t na, int64_t nb, int64_t wn,
			      int64_t wds, int64_t wss)
{
	int64_t nb16 = nb & ~(int64_t)15, g = na == 2 ? 4 : 0;
	for (int64_t ib = 0; ib < nb16; ib += 16) {
		int64_t w = 0;
		/* rows of 2: 4 steps at once, 8 src rows (step, then row) to 8
		 * elements that follow each other in each dst row, 32-byte stores
		 * (measured as tr_narrow4's: (2,4,128,2048) to (3,2,1,0) 3.0 ->
		 * 1.0-1.25 ms, (3,1,2,0) 1.6-1.85 -> 1.2-1.45; rows of 4 two steps
		 * at once lost, (0,3,2,1) 0.5-1.0 -> 1.6-2.0) */
		for (; g && w + g <= wn; w += g)
			for (int h = 0; h < 2; h++) {
				const char *r[8];
				for (int k = 0; k < 8; k++)
					r[k] = s + (w + k / na) * wss + (k % na) * sp + ib * 4 + h * 32;
				__m256 o[8];
				tr8x8_ptr(r, o);
				for (int k = 0; k < 8; k++)
					_mm256_storeu_ps((float *)(d + w * wds + (ib + h * 8 + k) * dp), o[k]);
			}
		for (; w < wn; w++) {
			char *dw = d + w * wds + ib * dp;
			const char *sw = s + w * wss + ib * 4;
			int64_t c = 0;
			for (; c + 8 <= na; c += 8)
				for (int h = 0; h < 2; h++) {
					__m256 o[8];
					tr8x8_4(sw + h * 32 + c * sp, sp, o);
					for (int k = 0; k < 8; k++)
						_mm256_storeu_ps((float *)(dw + (h * 8 + k) * dp + c * 4), o[k]);
				}
			for (int h = 0; h < 2; h++)
				narrow8(dw + h * 8 * dp + c * 4, dp, sw + h * 32 + c * sp, sp, na - c);
		}
	}
	for (int64_t w = 0; w < wn; w++)
		tr_scalar(d + w * wds + nb16 * dp, dp, s + w * wss + nb16 * 4, sp, na, nb - nb16, 4);
}

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
	if (na < 8 && !staged && !bands) {
		tr_narrow4(d, dp, s, sp, na, nb, stream);
		return;
	}
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

#ifdef X86
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

/* K_RUN: nb runs of na elements; long ones RUN_PIECE bytes of each in
 * turn, except on a Zen 3 (small_l2), where whole runs one after the other
 * copied faster. Measured on a Zen 3, two threads, against the pieces,
 * alternating: through athene run --bench (one output, from the L3)
 * (2,4,128,2048) to (0,2,1,3) 1.8-2.5x, (2,0,1,3) 1.35-2.6x, (1,2,0,3)
 * 1.26-2.5x, (1,0,2,3) 1.13-1.8x, (2,1,0,3) 0.81-1.88x, and (384,64,2144)
 * to (1,0,2) from memory 1.10-1.27x; in another round the two builds
 * alternating showed no clear difference through the CLI, and through the
 * Python package, a fresh output or two alternating ones each call (as
 * under torch), 1.1-2x for (0,2,1,3), (1,0,2,3), (2,0,1,3), (2,1,0,3)
 * within the noise. */
static void unit_run(const BoxPlan *p, char *d, const char *s, int64_t na, int64_t nb)
{
	size_t len = (size_t)na * p->esize, piece = len > RUN_SHORT && nb > 1 && !small_l2() ? RUN_PIECE : len;
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
	if (p->wn) { /* short_rows: set only for AVX2 and 4-byte elements */
		tr_short4(d, dp, s, sp, na, nb, p->wn, p->wds, p->wss);
		return;
	}
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
