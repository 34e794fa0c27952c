/* What the executor's planner asks of the CPU, each asked once: the
 * core's profile (docs/executor.md: the transposes are tuned for two kinds
 * of core, told apart by their caches and vendor), and the widest vector
 * kernels it may run. Tests force a profile or the portable kernels. */
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "simd.h"
#ifdef X86
#include <cpuid.h>
#endif

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

int core_profile(void)
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

/* The L3 the kernel reports for cpu 0 (sysfs: the cache one core shares
 * with its neighbours), -1 when there is none to read. glibc's sysconf
 * is no help here: on this AMD EPYC it says 320 MiB for a 32 MiB L3. */
static int64_t read_l3(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
	if (!f)
		return -1;
	long long n = -1;
	char unit = 0;
	int got = fscanf(f, "%lld%c", &n, &unit);
	fclose(f);
	if (got < 1 || n <= 0)
		return -1;
	return unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : n;
}

static _Atomic int64_t l3_forced; /* copy_set_l3; 0: the system's */

void copy_set_l3(int64_t bytes)
{
	atomic_store(&l3_forced, bytes > 0 ? bytes : 0);
}

int64_t l3_bytes(void)
{
	static _Atomic int64_t known = -2;
	int64_t f = atomic_load_explicit(&l3_forced, memory_order_relaxed);
	if (f > 0)
		return f;
	int64_t n = atomic_load_explicit(&known, memory_order_relaxed);
	if (n == -2) {
		n = read_l3();
		atomic_store_explicit(&known, n, memory_order_relaxed);
	}
	return n;
}

bool seq_prefetch_pays(void)
{
	return core_profile() != COPY_PROFILE_SMALL_L1_LARGE_L2;
}

int pick_simd(void)
{
	if (atomic_load(&force_portable))
		return SIMD_NONE;
#ifdef X86
#if !defined(__AVX2__) || !defined(__FMA__)
	/* AVX2 and FMA: the vector forms of exp, sigmoid, tanh and erf take fused multiply-adds */
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
		return SIMD_SSE2;
#endif
	return SIMD_AVX2;
#else
	return SIMD_NONE;
#endif
}

#ifdef X86
/* CPUID leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports has no
 * "f16c"); AVX2 already says that the OS saves the vector registers. Asked
 * once: every unit of f16 lanes asks, and in a VM CPUID traps to the host. */
bool has_f16c(void)
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
