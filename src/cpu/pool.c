/* The executor's thread pool and its big-buffer allocator.
 *
 * Workers start on the first pool_run that needs them and wait between
 * runs: a spin on the run generation (SPINS; a run often follows a run
 * within microseconds), then a condition variable, so an idle pool burns
 * no core.
 * A run writes its job into the slot of its generation's parity, then
 * publishes the generation and its tasks in one atomic word (the generation
 * in the high half, the first and the end of the tasks left in 16 bits each,
 * so a job holds at most 65535 tasks and longer runs go in pieces), and
 * wakes the workers. A task is claimed by a compare-and-swap of that word,
 * so a worker that wakes late, even jobs later, claims nothing of a job
 * that is gone; a claim holds its job in place, since the caller returns
 * only when every task of it is done (counted per slot), and a slot is
 * rewritten two jobs later. So the caller
 * never waits for a worker that took no task: on a busy machine a worker
 * the scheduler has not run yet (another library's threads spinning on the
 * same cores) costs a run nothing but its help, where waiting for it cost a
 * scheduler slice (a 0.4 ms gather took 1.8 ms beside jax's and torch's
 * threads). The done count, read with acquire, also orders all task writes
 * before the return. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, madvise, MADV_HUGEPAGE */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec.h"

#define MAX_THREADS 256
#define SPINS 20000 /* polls before blocking: about 0.4 ms here (a pause takes ~20 ns on this CPU);
                    * 2000 (40 us) made a 0.4 ms gather beside torch 5-25 % slower: the
                    * worker slept between the calls and woke after the run had started */
#define MAX_TASKS ((int64_t)0xffff) /* tasks of one published job: a quarter of the word */
static _Atomic int64_t max_tasks = MAX_TASKS; /* lowered by tests (pool_set_max_tasks) */
static int spins = SPINS; /* a worker's polls; ATHENE_POOL_SPINS when the workers start (0: block at once,
                          * for measuring the spin beside other libraries' threads) */

typedef struct {
	PoolFn fn;
	void *arg;
	_Atomic int64_t ntasks;  /* read before a claim, so atomic (a stale value fails the claim) */
	_Atomic int nthreads;
	_Atomic int64_t done;    /* tasks finished */
} Job;

static struct {
	pthread_mutex_t run;  /* held by the caller that owns the workers */
	pthread_mutex_t lock; /* guards the fields below and the condvars */
	pthread_cond_t wake, done;
	pthread_t tid[MAX_THREADS];
	int started;          /* threads running, the caller included */
	int wanted;           /* pool_set_threads; 0 = default */
	bool stop;
	bool atexit_done;
	unsigned start_gen;   /* gen when the workers were created */
	Job job[2];           /* by the parity of the generation */
	_Atomic uint64_t next; /* gen << 32 | the job's first task left << 16 | its last + 1 */
	_Atomic unsigned gen;
	bool waiting;         /* the caller waits on done (under lock) */
} P = {
	.run = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static int read_default_threads(void);

/* Read once: sysconf opens files under /sys, which a tiny kernel's run
 * would pay for every time. */
static int default_threads(void)
{
	static atomic_int cached;
	int n = atomic_load(&cached);
	if (!n) {
		n = read_default_threads();
		atomic_store(&cached, n);
	}
	return n;
}

static int read_default_threads(void)
{
	const char *e = getenv("ATHENE_THREADS");
	long n = 0;
	if (e && *e >= '0' && *e <= '9') { /* only a whole decimal number counts */
		char *end;
		errno = 0;
		n = strtol(e, &end, 10);
		if (errno || *end)
			n = 0;
	}
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n <= 0)
		n = 1;
	return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* Claims and runs tasks of the job published in P.next until it has none
 * left (or another is published); returns the generation it saw last.
 * Even workers claim from the front, odd ones from the back, so that two
 * threads each walk one contiguous half of a run's memory: tasks taken in
 * turn put both threads' streams in neighbouring 64 KiB pieces (measured on
 * an Intel Xeon, a + b of 8192² 1.04x, the 43210s and relu(x.T * s + b)
 * 1.02-1.03x, alternating in one process; a hand loop of a + b in turns of
 * 64 KiB ran at 0.84 of one in halves, a copy at 0.65). */
static unsigned work(int worker)
{
	bool back = worker & 1;
	for (;;) {
		uint64_t v = atomic_load(&P.next);
		unsigned g = (unsigned)(v >> 32);
		Job *j = &P.job[g & 1];
		int64_t lo = (int64_t)(v >> 16 & 0xffff), hi = (int64_t)(v & 0xffff);
		if (lo >= hi || worker >= atomic_load_explicit(&j->nthreads, memory_order_relaxed))
			return g;
		if (!atomic_compare_exchange_weak(&P.next, &v, back ? v - 1 : v + 0x10000))
			continue; /* another claim, or another job: look again */
		int64_t t = back ? hi - 1 : lo, n = atomic_load_explicit(&j->ntasks, memory_order_relaxed);
		j->fn(j->arg, t, worker);
		if (atomic_fetch_add(&j->done, 1) + 1 == n) {
			pthread_mutex_lock(&P.lock);
			if (P.waiting)
				pthread_cond_signal(&P.done);
			pthread_mutex_unlock(&P.lock);
		}
	}
}

/* Waits for a generation other than seen; false when told to stop (which
 * never happens while a job is out, so a new generation means a job). */
static bool wait_job(unsigned seen)
{
	for (int i = 0; i < spins; i++) {
		if (atomic_load(&P.gen) != seen)
			return true;
		cpu_relax();
	}
	pthread_mutex_lock(&P.lock);
	while (atomic_load(&P.gen) == seen && !P.stop)
		pthread_cond_wait(&P.wake, &P.lock);
	bool stop = P.stop;
	pthread_mutex_unlock(&P.lock);
	return !stop;
}

static void *worker_main(void *arg)
{
	int id = (int)(intptr_t)arg;
	unsigned seen = P.start_gen; /* a job may be out before we get here */
	while (wait_job(seen))
		seen = work(id); /* the job it last saw: a later one ends the wait at once */
	return NULL;
}

/* Joins the workers; the caller holds P.run. */
static void stop_workers(void)
{
	pthread_mutex_lock(&P.lock);
	P.stop = true;
	pthread_cond_broadcast(&P.wake);
	pthread_mutex_unlock(&P.lock);
	for (int i = 1; i < P.started; i++)
		pthread_join(P.tid[i], NULL);
	P.stop = false;
	P.started = 0;
}

/* Starts the workers; the caller holds P.run. A thread that fails to
 * start only makes the pool smaller. */
static void start_workers(void)
{
	if (!P.atexit_done) {
		P.atexit_done = true;
		atexit(pool_shutdown);
	}
	int want = P.wanted > 0 ? P.wanted : default_threads();
	const char *env = getenv("ATHENE_POOL_SPINS");
	if (env) {
		char *end;
		long n = strtol(env, &end, 10);
		spins = *env && !*end && n >= 0 && n <= 100000000 ? (int)n : SPINS;
	}
	P.start_gen = atomic_load(&P.gen);
	P.started = 1;
	for (int i = 1; i < want; i++) {
		if (pthread_create(&P.tid[i], NULL, worker_main, (void *)(intptr_t)i))
			break;
		P.started = i + 1;
	}
}

int pool_threads(void)
{
	pthread_mutex_lock(&P.run);
	int n = P.started ? P.started : P.wanted > 0 ? P.wanted : default_threads();
	pthread_mutex_unlock(&P.run);
	return n;
}

void pool_set_threads(int n)
{
	pthread_mutex_lock(&P.run);
	if (n < 0)
		n = 0;
	P.wanted = n > MAX_THREADS ? MAX_THREADS : n;
	if (P.started)
		stop_workers();
	pthread_mutex_unlock(&P.run);
}

void pool_set_max_tasks(int64_t n)
{
	atomic_store(&max_tasks, n >= 1 && n <= MAX_TASKS ? n : MAX_TASKS);
}

/* Tasks [base, base + max_tasks) of a bigger run, as one job. */
typedef struct {
	PoolFn fn;
	void *arg;
	int64_t base;
} Piece;

static void piece_task(void *arg, int64_t t, int worker)
{
	const Piece *p = arg;
	p->fn(p->arg, p->base + t, worker);
}

static void run_inline(int64_t ntasks, PoolFn fn, void *arg)
{
	for (int64_t t = 0; t < ntasks; t++)
		fn(arg, t, 0);
}

/* Publishes the job, works on it as worker 0 and waits until every task
 * is done (not for the workers that took none). */
static void run_shared(int64_t ntasks, PoolFn fn, void *arg, int nthreads)
{
	unsigned g = atomic_load(&P.gen) + 1;
	Job *j = &P.job[g & 1];
	j->fn = fn;
	j->arg = arg;
	atomic_store(&j->ntasks, ntasks);
	atomic_store(&j->nthreads, nthreads);
	atomic_store(&j->done, 0);
	atomic_store(&P.next, (uint64_t)g << 32 | (uint64_t)ntasks);
	pthread_mutex_lock(&P.lock);
	atomic_store(&P.gen, g);
	pthread_cond_broadcast(&P.wake);
	pthread_mutex_unlock(&P.lock);

	work(0);
	for (int i = 0; i < SPINS && atomic_load(&j->done) < ntasks; i++)
		cpu_relax();
	pthread_mutex_lock(&P.lock);
	P.waiting = true;
	while (atomic_load(&j->done) < ntasks)
		pthread_cond_wait(&P.done, &P.lock);
	P.waiting = false;
	pthread_mutex_unlock(&P.lock);
}

/* ------------------------------------------------ another runtime's team */

/* An OpenMP runtime's parallel-region entry (libgomp's GOMP_parallel), or
 * NULL: pool_set_team. */
typedef void (*TeamFn)(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags);
static _Atomic(TeamFn) team;
static atomic_llong team_count;

/* A child of fork() has none of the team's threads, and libgomp, given a
 * region there, waits for them: the child goes back to the pool. */
static void team_forget(void)
{
	atomic_store(&team, (TeamFn)NULL);
}

static void team_at_fork(void)
{
	pthread_atfork(NULL, NULL, team_forget);
}

void pool_set_team(void *fn)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	if (fn)
		pthread_once(&once, team_at_fork);
	atomic_store(&team, (TeamFn)fn);
}

int64_t pool_team_runs(void)
{
	return atomic_load(&team_count);
}

/* A run on the team: its tasks and the claim word (first task left << 32 |
 * last + 1), worker ids handed out as the team's threads arrive (the
 * caller is worker 0). */
typedef struct {
	PoolFn fn;
	void *arg;
	int nthreads;
	pthread_t caller;
	_Atomic uint64_t next;
	atomic_int ids;
} Team;

/* Each team thread's part: as work() claims, even workers from the front,
 * odd ones from the back. A thread past the run's count takes nothing. */
static void team_body(void *data)
{
	Team *tm = data;
	int w = pthread_equal(pthread_self(), tm->caller) ? 0 : atomic_fetch_add(&tm->ids, 1);
	if (w >= tm->nthreads)
		return;
	bool back = w & 1;
	for (;;) {
		uint64_t v = atomic_load(&tm->next);
		int64_t lo = (int64_t)(v >> 32), hi = (int64_t)(v & 0xffffffff);
		if (lo >= hi)
			return;
		if (!atomic_compare_exchange_weak(&tm->next, &v, back ? v - 1 : v + ((uint64_t)1 << 32)))
			continue;
		tm->fn(tm->arg, back ? hi - 1 : lo, w);
	}
}

/* Runs tasks [0, ntasks) (fewer than 2^31) on the team of nthreads; the
 * runtime returns when all its threads are done. */
static void run_team(TeamFn fn, int64_t ntasks, PoolFn f, void *arg, int nthreads)
{
	Team tm = {.fn = f, .arg = arg, .nthreads = nthreads, .caller = pthread_self()};
	atomic_init(&tm.next, (uint64_t)ntasks);
	atomic_init(&tm.ids, 1);
	atomic_fetch_add(&team_count, 1);
	fn(team_body, &tm, (unsigned)nthreads, 0);
}

void pool_run(int64_t ntasks, PoolFn fn, void *arg, int nthreads)
{
	if (ntasks <= 0)
		return;
	TeamFn tf = atomic_load(&team);
	if (tf && nthreads != 1 && ntasks > 1 && ntasks < ((int64_t)1 << 31)) {
		int most = pool_threads();
		run_team(tf, ntasks, fn, arg, nthreads <= 0 || nthreads > most ? most : nthreads);
		return;
	}
	if (nthreads == 1 || ntasks == 1 || pthread_mutex_trylock(&P.run)) {
		run_inline(ntasks, fn, arg);
		return;
	}
	if (!P.started)
		start_workers();
	if (nthreads <= 0 || nthreads > P.started)
		nthreads = P.started;
	int64_t most = atomic_load(&max_tasks);
	if (nthreads <= 1)
		run_inline(ntasks, fn, arg);
	else if (ntasks <= most)
		run_shared(ntasks, fn, arg, nthreads);
	else
		for (Piece p = {fn, arg, 0}; p.base < ntasks; p.base += most)
			run_shared(ntasks - p.base < most ? ntasks - p.base : most, piece_task, &p, nthreads);
	pthread_mutex_unlock(&P.run);
}

void pool_shutdown(void)
{
	pthread_mutex_lock(&P.run);
	if (P.started)
		stop_workers();
	pthread_mutex_unlock(&P.run);
}

/* ------------------------------------------------------------ big buffers */

#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)1 << 20) /* from here on, whole huge pages */
#define FRESH_MIN ((size_t)4 << 20) /* advise_fresh: outputs of this size and more */

/* The length big_alloc maps for a request of bytes. */
static size_t map_len(size_t bytes)
{
	size_t unit = bytes >= HUGE_MIN ? HUGE_PAGE : (size_t)sysconf(_SC_PAGESIZE);
	if (bytes > SIZE_MAX - unit)
		return 0;
	return (bytes + unit - 1) / unit * unit;
}

void *big_alloc(size_t bytes)
{
	size_t len = map_len(bytes);
	if (!bytes || !len)
		return NULL;
	size_t extra = bytes >= HUGE_MIN ? HUGE_PAGE : 0;
	if (len > SIZE_MAX - extra)
		return NULL;
	char *m = mmap(NULL, len + extra, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (!extra)
		return m;
	/* Keep the 2 MiB-aligned middle and give back both ends. */
	char *p = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (p > m)
		munmap(m, (size_t)(p - m));
	if (m + extra > p)
		munmap(p + len, (size_t)(m + extra - p));
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE); /* a hint; failure changes nothing */
#endif
	return p;
}

void advise_fresh(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE) && defined(__linux__)
	if (bytes < FRESH_MIN)
		return;
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t b = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
	unsigned char res = 1;
	if (b <= a || mincore((void *)a, 1, &res) || (res & 1))
		return; /* no whole huge page, not mapped, or in memory already */
	madvise((void *)a, b - a, MADV_HUGEPAGE); /* a hint; failure changes nothing */
#else
	(void)p, (void)bytes;
#endif
}

void big_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, map_len(bytes));
}
