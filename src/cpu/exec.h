/* The native executor's data-movement core: a thread pool with big-buffer
 * allocation (pool.c), the strided N-D box copy (stage.c), the pointwise
 * tiles, f16 rows and vector functions (pw.c), and the CPU's facts the
 * tests may force (machine.c).
 * Units: every stride and offset here is in BYTES (the compiler counts
 * elements; the executor counts bytes). */
#ifndef ATHENE_EXEC_H
#define ATHENE_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- pool.c */

/* One task of a pool_run: task in [0, ntasks), worker in [0, threads used)
 * with the calling thread as worker 0. */
typedef void (*PoolFn)(void *arg, int64_t task, int worker);

/* Threads the pool runs with: ATHENE_THREADS if set to a positive number,
 * else the online CPUs; pool_set_threads(n > 0) overrides both, 0 restores
 * the default. Setting it waits for a run in progress and restarts the
 * workers lazily. Neither it nor pool_shutdown may be called from a task. */
int pool_threads(void);
void pool_set_threads(int n);

/* Runs fn on every task, handed out one at a time from a shared counter,
 * on min(nthreads, pool_threads()) threads (nthreads <= 0: all of them),
 * the caller included; returns when every task is done. Allocates nothing.
 * One run at a time owns the workers: a call made while another is in
 * progress (from another application thread, or from inside a task) runs
 * all its tasks inline on its own thread instead of waiting. */
void pool_run(int64_t ntasks, PoolFn fn, void *arg, int nthreads);
/* Tests only: the most tasks one job holds (default and ceiling 2^31, the
 * bits the claim word has for them); a run of more goes as several jobs. */
void pool_set_max_tasks(int64_t n);

/* fn: an OpenMP runtime's parallel-region entry that the process already
 * runs (libgomp's GOMP_parallel), or NULL. With one, a pool_run of more
 * than one thread runs on that runtime's team (pool_threads() threads at
 * most, the caller as worker 0) instead of the pool's workers, so that the
 * two never compete for cores; pool_team_runs counts such runs. */
void pool_set_team(void *fn);
int64_t pool_team_runs(void);

/* Joins the workers (also run at exit); a later pool_run starts them again. */
void pool_shutdown(void);

/* Page-backed buffers from mmap, never from malloc: sizes of 1 MiB and more
 * are 2 MiB-aligned, rounded up to 2 MiB and advised to use huge pages, so
 * a streaming pass does not pay a page fault per 4 KiB. NULL on failure or
 * for 0 bytes. big_free takes the size given to big_alloc. */
void *big_alloc(size_t bytes);
void big_free(void *p, size_t bytes);
/* An output of bytes at p whose memory is mapped but not yet in memory (a
 * fresh mapping, as a large malloc gets: each 4 KiB page faults on its
 * first write) is advised to use huge pages over its whole 2 MiB-aligned
 * pages, from 4 MiB on: its first write then faults once per 2 MiB. A
 * hint: its values, and any memory already in use, are left as they are. */
void advise_fresh(void *p, size_t bytes);

/* --------------------------------------------------------------- stage.c */

#define BOX_MAX_RANK 8

enum {
	COPY_STREAM = 1, /* non-temporal stores where destination runs allow */
};

/* A planned box copy split into tasks. Built by box_plan from the caller's
 * view; the fields describe the normalised box and belong to stage.c. */
typedef struct BoxPlan {
	char *dst;
	const char *src;
	int kind;
	int flags;
	int simd;        /* kernels chosen at plan time, same for every task */
	int nloop;       /* loop dims: 0 and 1 are the tiled pair, then outer */
	int t0_at;       /* the walk takes dim 0's tiles just before loop dim t0_at's (see unit_at) */
	bool next_tile;  /* a transpose tile prefetches the next one's source (stage.c, NextTile) */
	bool next_only;  /* ... and not along its own rows */
	bool staged;     /* destination rows off their lines stream through an L1 buffer (stage.c, tr_rows_staged) */
	bool bands;      /* a 4-byte transpose at a 4 KiB pitch walks bands (stage.c, tr_bands4) */
	size_t esize;    /* bytes of one element */
	size_t elem;     /* bytes a kernel moves per index of loop dim 0 */
	int64_t n[BOX_MAX_RANK], ds[BOX_MAX_RANK], ss[BOX_MAX_RANK];
	int64_t blk[2];  /* tile extents of loop dims 0 and 1 */
	int64_t wn, wds, wss; /* a dim each tile walks whole (extent, strides; wn 0: none; stage.c, short_rows) */
	int64_t ntile[2];
	int64_t nunits;  /* tiles in the whole box */
	int64_t per_task;
	int64_t ntasks;
} BoxPlan;

/* Copies the box of the given shape: element (i0, ..., i_{rank-1}) goes from
 * src + sum(i_k * sstride[k]) to dst + sum(i_k * dstride[k]).
 * Strides are in bytes and may be negative; src strides may be zero
 * (broadcast); dst positions must be distinct (dst must not overlap itself
 * or src). shape[k] >= 0, rank 0..8, esize 1, 2, 4 or 8; pointers and
 * strides need no alignment. */
void copy_box(void *dst, const int64_t *dstride, const void *src,
	      const int64_t *sstride, const int64_t *shape, int rank,
	      size_t esize, int flags);

/* The same on the pool with up to nthreads threads (<= 0: the pool's). */
void copy_box_par(void *dst, const int64_t *dstride, const void *src,
		  const int64_t *sstride, const int64_t *shape, int rank,
		  size_t esize, int flags, int nthreads);

/* The pieces of copy_box_par, for callers that schedule tasks themselves:
 * box_plan returns the number of tasks (0 when the box is empty); every task
 * may run on any thread, in any order, and must run once. Tasks touch
 * disjoint destination bytes, each of them cache-sized macro tiles. */
int64_t box_plan(BoxPlan *p, void *dst, const int64_t *dstride,
		 const void *src, const int64_t *sstride, const int64_t *shape,
		 int rank, size_t esize, int flags);
void box_run_task(const BoxPlan *p, int64_t task);

/* n contiguous bytes with streaming stores where the CPU has them, not
 * fenced, for a run of many small copies: the caller calls copy_fence once
 * after the last of them. */
void copy_stream_nofence(void *dst, const void *src, size_t n);
void copy_fence(void);
/* f16 to float and back, n elements (F16C where the CPU has it; the same
 * values as f16_to_float and f16_from_float in base/base.h). */
void f16_to_floats(float *d, const uint16_t *s, int64_t n);
void f16_from_floats(uint16_t *d, const float *s, int64_t n);
/* d[i] = (float)exp((double)s[i]) with libm's bits, vectorised where the
 * rounding is sure (d == s allowed). */
void exp_floats(float *d, const float *s, int64_t n);
/* The same for sigmoid, 1 / (1 + exp(-x)) in double, rounded once. */
void sigmoid_floats(float *d, const float *s, int64_t n);
/* The same for tanh (vectorised where |x| is in [2^-126, 44]). */
void tanh_floats(float *d, const float *s, int64_t n);
/* The same for erf (vectorised where |x| is in [2^-126, 4]). */
void erf_floats(float *d, const float *s, int64_t n);
/* The same for log (vectorised for positive normal floats). */
void log_floats(float *d, const float *s, int64_t n);
/* The same for sqrt (the float instruction: the same bits). */
void sqrt_floats(float *d, const float *s, int64_t n);

/* a[q] += p[q][i] for i < len, in that order, for m lanes q: the adds in
 * double of row sums, the rows' chains in flight side by side (four at a
 * time, in vectors where the CPU has AVX2). */
void sum_rows(double *a, const float *const *p, int64_t len, int m);
/* The largest (maxi) or least of f[0..n) into *m, in vectors, when it is
 * what any order of comparisons gives: false when f holds a NaN (the first
 * one wins), when the extreme is a zero (the first of -0.0 and 0.0 wins),
 * and without AVX2. */
bool row_extreme(const float *f, int64_t n, bool maxi, float *m);

/* Is any of the n i64 at p (contiguous, any alignment) outside [lo, hi]
 * once mod is added to each negative one? (A row gather's indices, read
 * before it moves a row.) */
bool i64_out_of(const void *p, int64_t n, int64_t mod, int64_t lo, int64_t hi);

/* A row gather with i64 or i32 indices (iw bytes; 0: other dtypes): row
 * r's index at ip + r·istep, plus mod when negative, is good when
 * index - lo <= span (unsigned) and then selects tp + toff + index·istride,
 * whose len bytes go to op + r·ostep (streamed with stream: op and ostep
 * whole lines); before each row, the row ahead rows on (when below end) is
 * prefetched. */
typedef struct {
	const char *ip, *tp;
	char *op;
	int64_t istep, toff, istride, ostep, lo, mod, ahead, end;
	uint64_t span;
	size_t len;
	int iw;
	bool stream;
} RowGather;

/* Copies rows r0, r0 + 1, ... (n at most) until the first whose index is
 * not good: returns that row, or r0 + n; -1 when it has no kernel for them
 * (no AVX2, len no multiple of 32, iw not 8 or 4). The caller fences after
 * streamed rows. */
int64_t copy_gathered_rows(const RowGather *g, int64_t r0, int64_t n);

/* The f32 ops of the vector kernels below; exp, sigmoid, tanh and erf as
 * the language defines them at f32 (base/narrow.c). */
enum { SOP_ADD, SOP_SUB, SOP_MUL, SOP_DIV, SOP_NEG, SOP_RELU, SOP_MAX, SOP_MIN, SOP_EXP, SOP_SIGMOID, SOP_TANH, SOP_ERF };
/* Is op one of one operand? */
#define SOP_UNARY(op) ((op) == SOP_NEG || (op) == SOP_RELU || (op) >= SOP_EXP)
/* dst[i] = a[i] op b[i] (b unused for the unary ones) for n floats, each
 * rounded as float arithmetic rounds it (relu: a where a > 0 or a is NaN,
 * else +0), with streaming stores where the CPU has them and no fence:
 * computed in vector registers and stored, so the result is never read
 * back (a read just after a streamed store to an address equal modulo
 * 4 KiB waits for it). */
void stream_op_f32(int op, void *dst, const float *a, const float *b, int64_t n);

/* A fused f32 pointwise program over a 2-D tile, Y[r][c] for r < rows and
 * c < cols, its instructions in order, each a load, a constant, or an op
 * (SOP_*, max and min NaN if either is) of two earlier ones. A load reads
 * element (r, c) at p + r * rs + c * cs (bytes): along rows when cs is 4,
 * one value per row when cs is 0, and through an 8x8 register transpose
 * when rs is 4 (a source read down its columns). Every op rounds as float
 * arithmetic, as the register machine's loops do. The program must be a
 * chain (each op combines the value so far with a load or a constant), its
 * transposed load, if any, the value: the value stays in vector registers
 * from load to store, one pass over the data. */
enum { PW_LOAD, PW_CONST, PW_OP };
#define PW_MAX 24
typedef struct {
	int kind, op, a, b;
	float c;
	const char *p;
	int64_t rs, cs;
} PwIns;
typedef struct {
	int n, result;
	PwIns ins[PW_MAX];
} PwProg;
/* Is every load of p one of the three kinds, and p such a chain, or, when
 * no load is transposed, any tree of ops (pw.c, pw_tree_rows)? */
bool pw_fits(const PwProg *p);
/* Does a load of p read through a transpose (neither along rows nor one
 * value per row)? */
bool pw_transposes(const PwProg *p);
/* Does p run over tiles in their fixed form, clamp(v * a + b)? (tests) */
bool pw_form_fits(const PwProg *p);
/* How a transposed chain's tasks read its source rows (vm_whole_rows):
 * PW_BLOCKS the plan's blocks, PW_WHOLE a task per row of the grid,
 * PW_HALVES half of one a task, both halves of a row at once. */
enum { PW_BLOCKS, PW_WHOLE, PW_HALVES };
int pw_whole_rows(const PwProg *p);
/* Runs p (pw_fits) into d, row pitch dp bytes, columns contiguous;
 * streaming stores (unfenced, see copy_stream_nofence) if stream. */
void pw_run(const PwProg *p, char *d, int64_t dp, int64_t rows, int64_t cols, bool stream);

/* Tests only: how many groups of statements this process ran band by band
 * (exec.c, run_band). */
int64_t exec_banded(void);
/* Tests only: how many reductions this process ran many short rows to a
 * unit (vm.c, reduce_batch). */
int64_t vm_batched(void);
/* Tests only: true forces the portable C kernels (no SIMD) in later plans. */
void copy_set_portable(bool on);
/* Tests and benchmarks: the core the transposes are tuned for (machine.c,
 * small_l1, small_l2 and few_misses): a 32 KiB L1 with a 512 KiB L2
 * (SMALL_L1) or a larger L2 (SMALL_L1_LARGE_L2), or a larger L1, on an AMD
 * core (LARGE_L1) or an Intel one (LARGE_L1_INTEL); AUTO asks the CPU at
 * the next plan. */
enum {
	COPY_PROFILE_AUTO,
	COPY_PROFILE_SMALL_L1,
	COPY_PROFILE_LARGE_L1,
	COPY_PROFILE_SMALL_L1_LARGE_L2,
	COPY_PROFILE_LARGE_L1_INTEL
};
void copy_set_profile(int which);
/* Do software prefetches ahead of sequential reads pay on this core? Not
 * with the Zen 4's tuning (SMALL_L1_LARGE_L2), where the hardware
 * prefetchers alone read faster (stage.c's pointwise rows, vm.c's reads in
 * place). */
bool seq_prefetch_pays(void);
/* The last-level (L3) cache's bytes, -1 when the system does not say.
 * Asked once. copy_set_l3 (tests) puts another size in its place, 0 the
 * system's back. */
int64_t l3_bytes(void);
void copy_set_l3(int64_t bytes);

#endif
