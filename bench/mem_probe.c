/* What this host's memory does with the access patterns of the kernels
 * that miss their targets, without athene: two threads, each on its own
 * half of 1 GiB buffers from athene_alloc (2 MiB-aligned, huge pages, as
 * athene's kernels get them; nothing else of athene runs). Every
 * pattern runs in turn with every other, round after round, and keeps its
 * best time, so all of them see the same stretches of a noisy host; each
 * line prints GB/s and the fraction of the copy measured in the same run.
 *
 *  - reads along K rows at once (a transpose's source tile), 192 bytes of
 *    each in turn, the rows a multiple of 4 KiB apart as in the 43210 of
 *    48x28x28x28x48; with software prefetches ahead along the rows; and
 *    16 rows read in pieces, each piece of a row a new place in it;
 *  - the same reads with their bytes written back with streamed stores,
 *    sequentially or as runs of W bytes spread over rows 4 MiB apart (a
 *    transpose's destination), or at the 32 KiB pitch of 8192 floats;
 *  - random rows of 512 bytes (the row gather of the performance set).
 *
 * docs/performance.md reads the results. Timings are taken by the threads
 * themselves (first start to last end), not by the thread that starts them.
 *   mem_probe [--rounds N] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "athene.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define X86 1
#define AVX2_FN __attribute__((target("avx2")))
#else
#define AVX2_FN
#endif

#define HALF ((size_t)512 << 20) /* each thread's part of a buffer */
#define PITCH 4214784L          /* 28*28*28*48 floats: the 43210's row pitch */
#define GATHER_ROWS 65536
#define GATHER_ROW 512 /* bytes */

enum { READ, READ_WRITE, GATHER };

typedef struct {
	const char *name;
	int kind;
	int rows;     /* K read streams at once (0: one sequential stream) */
	long pitch;   /* bytes between them */
	long piece;   /* bytes of a row read before the next piece (0: the row) */
	int ahead;    /* prefetch bytes ahead along each row (0: none) */
	int hint;     /* 3: into L1, 2: into L2 */
	int run;      /* written runs of this many bytes (0: sequential) */
	long wpitch;  /* bytes between written rows */
	double best;  /* seconds */
} Pat;

static char *src, *dst;
static int64_t *gidx;
static const Pat *cur;
static pthread_barrier_t bar;
static double t_start[2], t_end[2];

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* 32 bytes from s into the accumulator, and to d with a streamed store when
 * d is not NULL (plain stores where there is no AVX2). */
#ifdef X86
typedef __m256 Acc;
AVX2_FN static inline Acc move32(Acc acc, const char *s, char *d)
{
	__m256 v = _mm256_load_ps((const float *)s);
	if (d)
		_mm256_stream_ps((float *)d, v);
	return _mm256_add_ps(acc, v);
}
AVX2_FN static inline Acc acc_zero(void) { return _mm256_setzero_ps(); }
AVX2_FN static inline float acc_sum(Acc a)
{
	float f[8];
	_mm256_storeu_ps(f, a);
	return f[0] + f[7];
}
AVX2_FN static inline void fence(void) { _mm_sfence(); }
#else
typedef uint64_t Acc;
static inline Acc move32(Acc acc, const char *s, char *d)
{
	uint64_t v[4];
	memcpy(v, s, 32);
	if (d)
		memcpy(d, v, 32);
	return acc + v[0] + v[3];
}
static inline Acc acc_zero(void) { return 0; }
static inline float acc_sum(Acc a) { return (float)a; }
static inline void fence(void) {}
#endif

static inline void hint(const char *p, int h)
{
	if (h == 3)
		__builtin_prefetch(p, 0, 3);
	else
		__builtin_prefetch(p, 0, 2);
}

static long gcd(long a, long b)
{
	while (b) {
		long t = a % b;
		a = b, b = t;
	}
	return a;
}

/* Where the next 32 written bytes go: sequentially, or in runs of p->run
 * bytes that visit rows p->wpitch apart in turn, each row advancing a run
 * per visit (a transpose's destination). */
typedef struct {
	char *base;
	size_t at, nrows, visit;
	long in_run;
} Writer;

static inline char *next_out(Writer *w, const Pat *p)
{
	if (!p->run) {
		char *o = w->base + w->at;
		w->at = w->at + 32 < HALF ? w->at + 32 : 0;
		return o;
	}
	if (w->in_run == p->run) {
		w->in_run = 0;
		w->visit++;
		size_t row = w->visit % w->nrows, col = (w->visit / w->nrows) * (size_t)p->run % (size_t)p->wpitch;
		w->at = row * (size_t)p->wpitch + col;
	}
	char *o = w->base + w->at + w->in_run;
	w->in_run += 32;
	return o;
}

AVX2_FN static float streams(const Pat *p, int tid)
{
	const char *s0 = src + (size_t)tid * HALF;
	Writer w = {dst + (size_t)tid * HALF, 0, p->run ? HALF / (size_t)p->wpitch : 1, 0, 0};
	bool write = p->kind == READ_WRITE;
	Acc acc = acc_zero();
	if (!p->rows) { /* one sequential stream */
		for (size_t i = 0; i < HALF; i += 32)
			acc = move32(acc, s0 + i, write ? next_out(&w, p) : NULL);
		return acc_sum(acc);
	}
	size_t block = (size_t)p->rows * (size_t)p->pitch;
	long piece = p->piece ? p->piece : p->pitch, npieces = p->pitch / piece, step = 11;
	while (gcd(step, npieces) != 1)
		step += 2;
	for (size_t b = 0; b + block <= HALF; b += block)
		for (long j = 0; j < npieces; j++) {
			long from = (j * step % npieces) * piece; /* pieces out of order: each a new place */
			for (long off = from; off + 192 <= from + piece; off += 192)
				for (int k = 0; k < p->rows; k++) {
					const char *r = s0 + b + (size_t)k * (size_t)p->pitch + off;
					if (p->ahead && off + p->ahead + 192 <= p->pitch)
						for (int q = 0; q < 192; q += 64)
							hint(r + p->ahead + q, p->hint);
					for (int q = 0; q < 192; q += 32)
						acc = move32(acc, r + q, write ? next_out(&w, p) : NULL);
				}
		}
	return acc_sum(acc);
}

AVX2_FN static float gather(const Pat *p, int tid)
{
	int per = GATHER_ROWS / 2, from = tid * per;
	Acc acc = acc_zero();
	for (int r = from; r < from + per; r++) {
		if (p->ahead && r + p->ahead < from + per)
			for (int q = 0; q < GATHER_ROW; q += 64)
				hint(src + gidx[r + p->ahead] * GATHER_ROW + q, p->hint);
		const char *s = src + gidx[r] * GATHER_ROW;
		for (int q = 0; q < GATHER_ROW; q += 32)
			acc = move32(acc, s + q, dst + (size_t)r * GATHER_ROW + (size_t)q);
	}
	return acc_sum(acc);
}

static volatile float sink;

static void *worker(void *arg)
{
	int tid = (int)(intptr_t)arg;
	pthread_barrier_wait(&bar);
	t_start[tid] = now();
	sink = cur->kind == GATHER ? gather(cur, tid) : streams(cur, tid);
	fence();
	t_end[tid] = now();
	return NULL;
}

static double run(const Pat *p)
{
	pthread_t t[2];
	cur = p;
	pthread_barrier_init(&bar, NULL, 2);
	for (intptr_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	double a = t_start[0] < t_start[1] ? t_start[0] : t_start[1];
	double b = t_end[0] > t_end[1] ? t_end[0] : t_end[1];
	return b - a;
}

static double moved(const Pat *p)
{
	if (p->kind == GATHER)
		return 2.0 * GATHER_ROWS * GATHER_ROW;
	double read = (double)HALF;
	if (p->rows) {
		size_t block = (size_t)p->rows * (size_t)p->pitch;
		long piece = p->piece ? p->piece : p->pitch;
		read = (double)(HALF / block) * p->rows * (double)(p->pitch / piece) * (double)(piece / 192 * 192);
	}
	return 2.0 * read * (p->kind == READ_WRITE ? 2 : 1);
}

static uint64_t rng = 88172645463325252ull;

static void new_indices(void)
{
	int64_t n = (int64_t)(2 * HALF / GATHER_ROW);
	for (int i = 0; i < GATHER_ROWS; i++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		gidx[i] = (int64_t)(rng % (uint64_t)n);
	}
}

int main(int argc, char **argv)
{
	int rounds = 5;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--rounds") && a + 1 < argc && atoi(argv[a + 1]) > 0)
			rounds = atoi(argv[++a]);
		else {
			fprintf(stderr, "usage: mem_probe [--rounds N]\n");
			return 2;
		}
	}
	Pat pats[] = {
		{"copy (read, streamed write)", READ_WRITE, 0, 0, 0, 0, 0, 0, 0, 0},
		{"read, one stream", READ, 0, 0, 0, 0, 0, 0, 0, 0},
		{"read 8 rows", READ, 8, PITCH, 0, 0, 0, 0, 0, 0},
		{"read 16 rows", READ, 16, PITCH, 0, 0, 0, 0, 0, 0},
		{"read 20 rows", READ, 20, PITCH, 0, 0, 0, 0, 0, 0},
		{"read 24 rows", READ, 24, PITCH, 0, 0, 0, 0, 0, 0},
		{"read 32 rows", READ, 32, PITCH, 0, 0, 0, 0, 0, 0},
		{"read 48 rows", READ, 48, PITCH, 0, 0, 0, 0, 0, 0},
		{"read 32 rows, prefetch 768 B", READ, 32, PITCH, 0, 768, 3, 0, 0, 0},
		{"read 32 rows, prefetch L2 768 B", READ, 32, PITCH, 0, 768, 2, 0, 0, 0},
		{"read 48 rows, prefetch L2 768 B", READ, 48, PITCH, 0, 768, 2, 0, 0, 0},
		{"read 48 rows, pieces 5376 B, L2 768 B", READ, 48, PITCH, 5376, 768, 2, 0, 0, 0},
		{"read 16 rows, pieces 1344 B", READ, 16, PITCH, 1344, 0, 0, 0, 0, 0},
		{"read 16 rows, pieces 5376 B", READ, 16, PITCH, 5376, 0, 0, 0, 0, 0},
		{"read 16 rows, pieces 10752 B", READ, 16, PITCH, 10752, 0, 0, 0, 0, 0},
		{"read 16 rows, pieces 37632 B", READ, 16, PITCH, 37632, 0, 0, 0, 0, 0},
		{"16 rows, streamed write", READ_WRITE, 16, PITCH, 0, 0, 0, 0, 0, 0},
		{"32 rows, streamed write", READ_WRITE, 32, PITCH, 0, 0, 0, 0, 0, 0},
		{"16 rows, write runs of 64 B", READ_WRITE, 16, PITCH, 0, 0, 0, 64, PITCH, 0},
		{"16 rows, write runs of 128 B", READ_WRITE, 16, PITCH, 0, 0, 0, 128, PITCH, 0},
		{"16 rows, write runs of 192 B", READ_WRITE, 16, PITCH, 0, 0, 0, 192, PITCH, 0},
		{"16 rows, write runs of 2752 B", READ_WRITE, 16, PITCH, 0, 0, 0, 2752, PITCH, 0},
		{"32 rows, write runs of 2752 B", READ_WRITE, 32, PITCH, 0, 0, 0, 2752, PITCH, 0},
		{"48 rows, L2 768 B, runs of 192 B", READ_WRITE, 48, PITCH, 0, 768, 2, 192, PITCH, 0},
		{"48 rows, pieces 5376 B, L2 768 B, 192 B", READ_WRITE, 48, PITCH, 5376, 768, 2, 192, PITCH, 0},
		{"one stream, write runs of 64 B", READ_WRITE, 0, 0, 0, 0, 0, 64, PITCH, 0},
		{"one stream, write runs of 192 B", READ_WRITE, 0, 0, 0, 0, 0, 192, PITCH, 0},
		{"one stream, runs of 64 B, 32 KiB", READ_WRITE, 0, 0, 0, 0, 0, 64, 32768, 0},
		{"one stream, runs of 128 B, 32 KiB", READ_WRITE, 0, 0, 0, 0, 0, 128, 32768, 0},
		{"gather 512 B rows", GATHER, 0, 0, 0, 0, 0, 0, 0, 0},
		{"gather 512 B rows, prefetch L2 8 on", GATHER, 0, 0, 0, 8, 2, 0, 0, 0},
		{"gather 512 B rows, prefetch L1 8 on", GATHER, 0, 0, 0, 8, 3, 0, 0, 0},
	};
	int n = (int)(sizeof pats / sizeof pats[0]);
	src = athene_alloc(2 * HALF);
	dst = athene_alloc(2 * HALF);
	gidx = malloc(GATHER_ROWS * sizeof *gidx);
	if (!src || !dst || !gidx) {
		fprintf(stderr, "mem_probe: cannot allocate 2 GiB\n");
		return 1;
	}
	memset(src, 1, 2 * HALF);
	memset(dst, 0, 2 * HALF);
	for (int i = 0; i < n; i++)
		pats[i].best = 1e30;
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++)
			for (int k = 0; k < 3; k++) {
				if (pats[i].kind == GATHER)
					new_indices(); /* fresh rows: none left in the caches */
				double t = run(&pats[i]);
				pats[i].best = t < pats[i].best ? t : pats[i].best;
			}
	double copy = moved(&pats[0]) / pats[0].best / 1e9;
	printf("mem_probe: 2 threads, best of %d rounds of 3; GB/s counts bytes read + written\n", rounds);
	for (int i = 0; i < n; i++) {
		double g = moved(&pats[i]) / pats[i].best / 1e9;
		printf("%-38s %7.1f GB/s  %5.2f of copy\n", pats[i].name, g, g / copy);
	}
	athene_free(src, 2 * HALF);
	athene_free(dst, 2 * HALF);
	free(gidx);
	return 0;
}
