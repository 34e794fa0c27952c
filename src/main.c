/* The athene command-line tool. The only file that prints to the terminal
 * or exits. Exit status: 0 ok, 1 user error (compile or run), 2 usage. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "athene.h"

static const char usage_text[] =
	"usage: athene [-d PASS] COMMAND FILE [options]\n"
	"  athene check FILE [--kernel NAME] [--size SYM=INT]...\n"
	"  athene explain FILE [--kernel NAME] [--size SYM=INT]... [--target cpu|tpu] [--json] [--threads N]\n"
	"  athene run FILE [--kernel NAME] [--size SYM=INT]... [--in NAME=PATH.npy]...\n"
	"                  [--out NAME=PATH.npy]... [--seed S] [--threads N]\n"
	"                  [--reference] [--check | --bench [--repeat N]]\n"
	"  athene emit FILE --target pallas|pallas-gpu [--kernel NAME] [--size SYM=INT]...\n"
	"                   [--tpu v5e|v6e|v4] [-o OUT.py]\n"
	"  -d PASS   print the IR after PASS (athene -d list: the passes, in order)\n";

static void list_passes(void)
{
	for (int i = 0; athene_pass_name(i); i++)
		printf("%s\n", athene_pass_name(i));
	exit(0);
}

static _Noreturn void usage(const char *fmt, const char *arg)
{
	if (fmt) {
		fprintf(stderr, "athene: ");
		fprintf(stderr, fmt, arg);
		fprintf(stderr, "\n");
	}
	fputs(usage_text, stderr);
	exit(2);
}

typedef struct {
	const char *name, *path;
	int64_t value; /* --size */
	bool used;
} Pair;

typedef struct {
	const char *cmd, *file, *kernel, *dump, *target;
	Pair sizes[64], ins[64], outs[64];
	int nsizes, nins, nouts;
	int64_t seed;
	int threads, repeat;
	bool reference, check, bench, json;
} Opts;

/* The one parser of integer arguments: an optional '-' and decimal digits,
 * nothing else (no sign '+', no spaces), within [lo, hi]. */
static bool parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	bool neg = *s == '-';
	const char *p = s + neg;
	uint64_t mag = 0;
	if (!*p)
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		unsigned d = (unsigned)(*p - '0');
		if (mag > (UINT64_MAX - d) / 10)
			return false;
		mag = mag * 10 + d;
	}
	if (mag > (uint64_t)INT64_MAX + neg)
		return false;
	int64_t v = neg ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
	if (neg && mag == 0)
		v = 0;
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) || stat(b, &sb))
		return !strcmp(a, b);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void add_pair(Pair *p, int *n, const char *arg, const char *flag)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		usage("%s takes NAME=VALUE", flag);
	if (*n == 64)
		usage("too many %s options", flag);
	p[*n].name = strndup(arg, (size_t)(eq - arg));
	p[*n].path = eq + 1;
	if (!p[*n].name)
		usage("%s", "out of memory");
	for (int i = 0; i < *n; i++)
		if (!strcmp(p[i].name, p[*n].name))
			usage("%s given twice for the same name", flag);
	if (!strcmp(flag, "--size") && !parse_int(p[*n].path, INT64_MIN, INT64_MAX, &p[*n].value))
		usage("--size takes SYM=INT (a 64-bit decimal integer), not '%s'", arg);
	for (int i = 0; i < *n && !strcmp(flag, "--out"); i++)
		if (same_file(p[i].path, p[*n].path)) {
			char msg[256];
			snprintf(msg, sizeof msg, "--out gives one file to both %s and %s", p[i].name, p[*n].name);
			usage("%s", msg);
		}
	(*n)++;
}

/* v as an integer in [lo, hi] for what (a flag or a variable), or false
 * after saying why. */
static bool int_value(const char *what, const char *v, int64_t lo, int64_t hi, int64_t *n)
{
	if (parse_int(v, lo, hi, n))
		return true;
	fprintf(stderr, "athene: %s takes an integer from %lld to %lld, not '%s'\n", what, (long long)lo, (long long)hi,
	        v);
	return false;
}

static int64_t int_option(const char *flag, const char *v, int64_t lo, int64_t hi)
{
	int64_t n;
	if (!int_value(flag, v, lo, hi, &n))
		usage(NULL, NULL);
	return n;
}

/* ATHENE_THREADS as --threads takes it: the library falls back to one
 * thread per online CPU on a value it cannot use, the command line says so
 * (an empty value is no value). */
static void check_threads_env(void)
{
	const char *e = getenv("ATHENE_THREADS");
	int64_t n;
	if (e && *e && !int_value("ATHENE_THREADS", e, 1, 1024, &n))
		exit(2);
}

static bool known_command(const char *name);

/* The library's lists of names (its backend table): planner targets, emit
 * targets, the chips of the emit target given. */
typedef const char *(*NameList)(int i);

static const char *emit_target;
static const char *emit_chip(int i)
{
	return athene_emit_chip(emit_target, i);
}

static bool listed(NameList names, const char *name)
{
	for (int i = 0; names(i); i++)
		if (!strcmp(names(i), name))
			return true;
	return false;
}

/* "athene: unknown WHAT 'NAME'WHERE (a, b, c)", then the usage: exit 2. */
static _Noreturn void unknown_name(const char *what, const char *name, const char *where, NameList names)
{
	char list[256] = "";
	for (int i = 0; names(i); i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names(i));
	fprintf(stderr, "athene: unknown %s '%s'%s (%s)\n", what, name, where, list);
	usage(NULL, NULL);
}

static Opts parse_args(int argc, char **argv)
{
	Opts o = {0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = !strcmp(a, "-d") || !strcmp(a, "--kernel") || !strcmp(a, "--size") || !strcmp(a, "--target") ||
		             !strcmp(a, "--in") || !strcmp(a, "--out") || !strcmp(a, "--seed") || !strcmp(a, "--threads") ||
		             !strcmp(a, "--repeat");
		if (!strcmp(a, "-d") && (!v || !strcmp(v, "list")))
			list_passes();
		if (takes && !v)
			usage("%s needs a value", a);
		if (!strcmp(a, "-d")) o.dump = v;
		else if (!strcmp(a, "--threads")) o.threads = (int)int_option(a, v, 1, 1024);
		else if (!strcmp(a, "--repeat")) o.repeat = (int)int_option(a, v, 1, 1000000);
		else if (!strcmp(a, "--seed")) o.seed = int_option(a, v, 0, INT64_MAX);
		else if (!strcmp(a, "--kernel")) o.kernel = v;
		else if (!strcmp(a, "--target")) o.target = v;
		else if (!strcmp(a, "--json")) o.json = true;
		else if (!strcmp(a, "--size")) add_pair(o.sizes, &o.nsizes, v, a);
		else if (!strcmp(a, "--in")) add_pair(o.ins, &o.nins, v, a);
		else if (!strcmp(a, "--out")) add_pair(o.outs, &o.nouts, v, a);
		else if (!strcmp(a, "--reference")) o.reference = true;
		else if (!strcmp(a, "--check")) o.check = true;
		else if (!strcmp(a, "--bench")) o.bench = true;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			exit(0);
		} else if (a[0] == '-' && a[1]) usage("unknown option %s", a);
		else if (!o.cmd) o.cmd = a;
		else if (!o.file) o.file = a;
		else usage("unexpected argument '%s'", a);
		i += takes;
	}
	if (!o.cmd)
		usage(NULL, NULL);
	if (!known_command(o.cmd))
		usage("unknown command '%s'", o.cmd);
	if (!o.file)
		usage("%s needs a FILE", o.cmd);
	bool known = false;
	for (int i = 0; o.dump && athene_pass_name(i); i++)
		known |= !strcmp(o.dump, athene_pass_name(i));
	if (o.dump && !known)
		usage("unknown pass '%s' (athene -d list shows them)", o.dump);
	bool run = !strcmp(o.cmd, "run");
	if (!strcmp(o.cmd, "check") && (o.nins || o.nouts || o.reference))
		usage("%s", "check takes FILE, --kernel, --size and -d");
	if (strcmp(o.cmd, "explain") && o.json)
		usage("%s", "--json is an option of explain");
	if (strcmp(o.cmd, "explain") && o.target && !o.dump)
		usage("%s", "--target is an option of explain and -d");
	if (!strcmp(o.cmd, "explain") && (o.nins || o.nouts || o.reference))
		usage("%s", "explain takes FILE, --kernel, --size, --target and --json");
	if (!run && (o.check || o.bench || o.repeat || o.seed))
		usage("%s", "--check, --bench, --repeat and --seed are options of run");
	if (o.check && (o.reference || o.bench))
		usage("%s", "--check runs both backends: it goes with neither --reference nor --bench");
	if (o.repeat && !o.bench)
		usage("%s", "--repeat is an option of --bench");
	if (o.bench && o.nouts)
		usage("%s", "--bench writes no outputs: drop --out");
	if (o.target && !listed(athene_target_name, o.target))
		unknown_name("target", o.target, "", athene_target_name);
	for (int i = 0; i < o.nouts; i++)
		if (same_file(o.outs[i].path, o.file))
			usage("refusing to write an output over the kernel file %s", o.file);
	return o;
}

/* Opening non-blocking keeps a FIFO from hanging us before it is refused. */
static char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	const char *why = fd < 0 ? strerror(errno) : NULL;
	if (!why && fstat(fd, &st))
		why = strerror(errno);
	else if (!why && !S_ISREG(st.st_mode))
		why = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
	else if (!why && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		why = strerror(errno);
	if (why) {
		fprintf(stderr, "athene: cannot read %s: %s\n", path, why);
		exit(1);
	}
	char *s = (uint64_t)st.st_size < SIZE_MAX ? malloc((size_t)st.st_size + 1) : NULL;
	if (!s) {
		fprintf(stderr, "athene: cannot allocate %lld bytes for the kernel file %s\n", (long long)st.st_size + 1, path);
		exit(1);
	}
	size_t n = 0;
	ssize_t got;
	while (n < (size_t)st.st_size && (got = read(fd, s + n, (size_t)st.st_size - n)) > 0)
		n += (size_t)got;
	close(fd);
	if (n != (size_t)st.st_size) {
		fprintf(stderr, "athene: cannot read %s\n", path);
		exit(1);
	}
	s[n] = 0;
	char *nul = memchr(s, 0, n);
	if (nul) {
		int line = 1;
		const char *start = s;
		for (const char *q = s; q < nul; q++)
			if (*q == '\n')
				line++, start = q + 1;
		fprintf(stderr, "%s:%d:%d: error: a NUL byte; kernel files are text\n", path, line, (int)(nul - start) + 1);
		exit(1);
	}
	return s;
}

static _Noreturn void out_of_memory(long long bytes, const char *what, const char *name)
{
	if (bytes < 0)
		fprintf(stderr, "athene: cannot allocate more than 2^63 bytes for %s '%s'\n", what, name);
	else
		fprintf(stderr, "athene: cannot allocate %lld bytes for %s '%s'\n", bytes, what, name);
	exit(1);
}

/* n elements of size es, zeroed, or a clean exit naming what they are for. */
static void *alloc_elems(int64_t n, size_t es, const char *what, const char *name)
{
	int64_t bytes;
	if (n < 0 || __builtin_mul_overflow(n, (int64_t)es, &bytes) || bytes == INT64_MAX)
		out_of_memory(-1, what, name);
	void *p = (uint64_t)bytes < SIZE_MAX ? calloc((size_t)bytes + 1, 1) : NULL;
	if (!p)
		out_of_memory(bytes, what, name);
	return p;
}

/* A parameter's storage: from athene_alloc (huge pages for big ones). */
static void *alloc_storage(int64_t n, size_t es, const char *what, const char *name)
{
	int64_t bytes;
	if (n < 0 || __builtin_mul_overflow(n, (int64_t)es, &bytes) || bytes == INT64_MAX)
		out_of_memory(-1, what, name);
	void *p = (uint64_t)bytes < SIZE_MAX ? athene_alloc((size_t)bytes + 1) : NULL;
	if (!p)
		out_of_memory(bytes, what, name);
	return p;
}

static void free_storage(void *p, int64_t n, size_t es)
{
	athene_free(p, (size_t)(n * (int64_t)es) + 1);
}

static _Noreturn void fail(const char *errors)
{
	fputs(errors, stderr);
	exit(1);
}

/* FNV-1a, 64-bit: a digest of an output for the summary line. */
static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;
	if (!h)
		h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* ---- inputs ---- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Fills the whole storage: floats uniform in [-2, 2), integers small, and
 * integers used as indices within their valid range. */
static void random_fill(athene_inst *k, int p, const athene_param *pi, void *buf, uint64_t seed)
{
	uint64_t s = fnv(pi->name, strlen(pi->name), seed * 0x9e3779b97f4a7c15ull + 1);
	int64_t lo = pi->dtype == ATHENE_U8 ? 0 : -8, hi = pi->dtype == ATHENE_U8 ? 15 : 7;
	if (pi->dtype == ATHENE_BOOL)
		lo = 0, hi = 1;
	if (athene_index_range(k, p, &lo, &hi) == 0 && hi < lo)
		lo = hi = 0; /* an empty dim: no index is valid; none will be read */
	uint64_t span = (uint64_t)hi - (uint64_t)lo; /* hi - lo + 1 may not fit */
	for (int64_t i = 0; i < pi->storage_elems; i++) {
		uint64_t r = splitmix(&s);
		if (athene_dtype_is_float(pi->dtype))
			athene_store_f64(buf, pi->dtype, i, (double)(r >> 11) * 0x1p-53 * 4.0 - 2.0);
		else
			athene_store_i64(buf, pi->dtype, i, (int64_t)((uint64_t)lo + (span == UINT64_MAX ? r : r % (span + 1))));
	}
}

/* Storage offset of the logical element with C-order number i. */
static int64_t storage_offset(const athene_param *pi, int64_t i)
{
	int64_t off = pi->offset;
	for (int d = pi->rank - 1; d >= 0; d--) {
		off += pi->strides[d] * (i % pi->shape[d]);
		i /= pi->shape[d];
	}
	return off;
}

static int64_t numel(const athene_param *pi)
{
	int64_t n = 1;
	for (int d = 0; d < pi->rank; d++)
		n *= pi->shape[d];
	return n;
}

/* Places logical values (C order) into storage with the declared layout.
 * Elements that share storage (stride 0) must hold equal values. */
static int place_input(const athene_param *pi, const athene_array *a, void *buf, const char *path)
{
	if (athene_dtype_is_float(a->dtype) && !athene_dtype_is_float(pi->dtype)) {
		fprintf(stderr, "athene: %s holds %s values but input %s is %s\n", path, athene_dtype_name(a->dtype),
		        pi->name, athene_dtype_name(pi->dtype));
		return -1;
	}
	int64_t n = numel(pi);
	unsigned char *seen = alloc_elems(pi->storage_elems, 1, "the placement of input", pi->name);
	size_t es = athene_dtype_size(pi->dtype);
	unsigned char tmp[8];
	for (int64_t i = 0; i < n; i++) {
		int64_t off = storage_offset(pi, i);
		athene_convert(tmp, pi->dtype, 0, a->data, a->dtype, i);
		if (seen[off] && memcmp((char *)buf + off * (int64_t)es, tmp, es)) {
			fprintf(stderr, "athene: %s: input %s has elements that share storage (its strides overlap) but hold different values\n",
			        path, pi->name);
			free(seen);
			return -1;
		}
		memcpy((char *)buf + off * (int64_t)es, tmp, es);
		seen[off] = 1;
	}
	free(seen);
	return 0;
}

/* ---- outputs ---- */

/* Is the storage the logical array itself (row-major, offset 0)? */
static bool row_major(const athene_param *pi)
{
	int64_t stride = 1;
	for (int d = pi->rank - 1; d >= 0; d--) {
		if (pi->shape[d] != 1 && pi->strides[d] != stride)
			return false;
		stride *= pi->shape[d];
	}
	return pi->offset == 0 && pi->storage_elems == stride;
}

/* The logical (C-order) values of an output: its storage itself when that
 * is row-major, else a copy (*owned) that the caller frees. */
static const void *logical_output(const athene_param *pi, const void *buf, void **owned)
{
	*owned = NULL;
	if (row_major(pi))
		return buf;
	int64_t n = numel(pi);
	size_t es = athene_dtype_size(pi->dtype);
	char *out = alloc_elems(n, es, "the values of output", pi->name);
	for (int64_t i = 0; i < n; i++)
		memcpy(out + i * (int64_t)es, (const char *)buf + storage_offset(pi, i) * (int64_t)es, es);
	*owned = out;
	return out;
}

static void summary(const char *kname, const athene_param *pi, const void *logical)
{
	int64_t n = numel(pi);
	double sum = 0;
	for (int64_t i = 0; i < n; i++)
		sum += athene_load_f64(logical, pi->dtype, i);
	uint64_t h = fnv(logical, (size_t)n * athene_dtype_size(pi->dtype), 0);
	printf("%s: %s %s[", kname, pi->name, athene_dtype_name(pi->dtype));
	for (int d = 0; d < pi->rank; d++)
		printf("%s%lld", d ? ", " : "", (long long)pi->shape[d]);
	printf("] sum=%.9g fnv=%016llx\n", sum, (unsigned long long)h);
}

/* ---- --check: the native executor against the reference ---- */

/* Floats: |a - b| <= rtol·|b| + atol with b the reference's value
 * (docs/language.md, the command line). NaN matches NaN, an infinity only
 * itself. */
static bool close_enough(athene_dtype t, double a, double b, double *diff)
{
	if (!isfinite(a) || !isfinite(b)) {
		bool same = a == b || (isnan(a) && isnan(b));
		*diff = same ? 0 : INFINITY;
		return same;
	}
	bool half = t == ATHENE_F16 || t == ATHENE_BF16;
	double rtol = half ? 1e-2 : 1e-5, atol = half ? 0 : 1e-6;
	*diff = fabs(a - b);
	return *diff <= rtol * fabs(b) + atol;
}

static void print_position(const athene_param *pi, int64_t i)
{
	int64_t idx[ATHENE_MAX_RANK];
	for (int d = pi->rank - 1; d >= 0; d--) {
		idx[d] = pi->shape[d] ? i % pi->shape[d] : 0;
		i = pi->shape[d] ? i / pi->shape[d] : 0;
	}
	printf("%s[", pi->name);
	for (int d = 0; d < pi->rank; d++)
		printf("%s%lld", d ? ", " : "", (long long)idx[d]);
	printf("]");
}

/* One line per output: the largest difference and where. Integers compare
 * by their bytes, so that no value is lost to a double. */
static bool compare_output(const char *kname, const athene_param *pi, const void *got, const void *want)
{
	int64_t n = numel(pi), worst = -1, bad = 0;
	size_t es = athene_dtype_size(pi->dtype);
	double max = 0, diff = 0;
	for (int64_t i = 0; i < n; i++) {
		double a = athene_load_f64(got, pi->dtype, i), b = athene_load_f64(want, pi->dtype, i);
		bool ok = athene_dtype_is_float(pi->dtype) ? close_enough(pi->dtype, a, b, &diff)
		                                           : !memcmp((const char *)got + i * (int64_t)es,
		                                                     (const char *)want + i * (int64_t)es, es);
		if (!athene_dtype_is_float(pi->dtype))
			diff = ok ? 0 : a == b ? 1 : fabs(a - b);
		bad += !ok;
		if (worst < 0 || diff > max)
			max = diff, worst = i;
	}
	printf("%s: check %s max_diff=%.9g", kname, pi->name, max);
	if (worst >= 0 && max > 0) {
		printf(" at ");
		print_position(pi, worst);
	}
	if (bad)
		printf(" FAILED: %lld of %lld elements beyond tolerance\n", (long long)bad, (long long)n);
	else
		printf(" ok\n");
	return bad == 0;
}

/* ---- --bench ---- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Times athene_run alone: one warm-up, then the best of o->repeat runs.
 * Bytes: those the kernel logically moves (athene_bytes_moved). */
static void bench(athene_inst *in, const Opts *o, void *const *storage, int flags)
{
	athene_status st;
	double best = INFINITY, bytes;
	for (int r = 0; r <= (o->repeat ? o->repeat : 5); r++) {
		double t0 = now();
		if (athene_run(in, storage, flags, &st))
			fail(st.message);
		double t = now() - t0;
		if (r > 0 && t < best)
			best = t;
	}
	bytes = athene_bytes_moved(in, NULL);
	printf("%s: bench %s repeat=%d time_s=%.9f gbps=%.3f\n", athene_kernel_name(athene_instance_kernel(in)),
	       flags == ATHENE_REFERENCE ? "reference" : "native", o->repeat ? o->repeat : 5, best,
	       best > 0 ? bytes / best / 1e9 : 0.0);
}

/* ---- commands ---- */

static void bind_sizes(athene_inst *in, Opts *o)
{
	athene_kernel *k = athene_instance_kernel(in);
	for (int i = 0; i < o->nsizes; i++) {
		if (athene_size_index(k, o->sizes[i].name) < 0)
			continue;
		o->sizes[i].used = true;
		char flag[160];
		snprintf(flag, sizeof flag, "--size %s=%lld", o->sizes[i].name, (long long)o->sizes[i].value);
		if (athene_bind_size_from(in, o->sizes[i].name, o->sizes[i].value, flag))
			fail(athene_inst_errors(in));
	}
}

static bool all_bound(athene_inst *in)
{
	int64_t v;
	for (int s = 0; s < athene_size_count(athene_instance_kernel(in)); s++)
		if (athene_size_value(in, s, &v))
			return false;
	return true;
}

/* Reads the --in arrays and binds their shapes; checks the --out names. */
static void bind_inputs(athene_inst *k, Opts *o, athene_array *in, const char **inpath)
{
	athene_kernel *kern = athene_instance_kernel(k);
	int nin = athene_kernel_ninputs(kern);
	for (int i = 0; i < o->nins; i++) {
		int p = athene_param_index(kern, o->ins[i].name);
		if (p < 0) /* an output: only one a scatter updates in place (checked once compiled) */
			usage("--in: kernel has no input named '%s'", o->ins[i].name);
		char err[512];
		if (athene_npy_read(o->ins[i].path, &in[p], err, sizeof err)) {
			fprintf(stderr, "athene: %s\n", err);
			exit(1);
		}
		inpath[p] = o->ins[i].path;
		if (athene_bind_shape(k, p, in[p].rank, in[p].shape))
			fail(athene_inst_errors(k));
	}
	for (int i = 0; i < o->nouts; i++) {
		int p = athene_param_index(kern, o->outs[i].name);
		if (p < nin)
			usage("--out: kernel has no output named '%s'", o->outs[i].name);
		for (int j = 0; j < o->nins; j++)
			if (same_file(o->outs[i].path, o->ins[j].path))
				usage("refusing to write an output over the input file %s", o->ins[j].path);
	}
}

/* Every output given --out, written all or nothing. */
static void write_outputs(const Opts *o, const athene_param *pi, const void *const *logical, int nin, int np)
{
	const char *paths[64];
	athene_array arrays[64];
	int n = 0;
	for (int i = 0; i < o->nouts; i++)
		for (int p = nin; p < np; p++) {
			if (strcmp(o->outs[i].name, pi[p].name))
				continue;
			paths[n] = o->outs[i].path;
			arrays[n] = (athene_array){.dtype = pi[p].dtype, .rank = pi[p].rank, .data = (void *)logical[p]};
			memcpy(arrays[n].shape, pi[p].shape, sizeof arrays[n].shape);
			n++;
		}
	char err[512];
	if (athene_npy_write_all(n, paths, arrays, err, sizeof err)) {
		fprintf(stderr, "athene: %s (no output was written)\n", err);
		exit(1);
	}
}

/* Runs both backends on the same inputs; outputs get storage of their own. */
static bool check_run(athene_inst *in, void **storage, const athene_param *pi, int nin, int np)
{
	const char *kname = athene_kernel_name(athene_instance_kernel(in));
	void **ref = calloc((size_t)np, sizeof *ref);
	if (!ref)
		out_of_memory((long long)np * (long long)sizeof *ref, "the outputs of kernel", kname);
	for (int p = 0; p < np; p++) {
		ref[p] = p < nin ? storage[p] : alloc_elems(pi[p].storage_elems, athene_dtype_size(pi[p].dtype),
		                                            "the reference's output", pi[p].name);
		if (p >= nin && pi[p].is_output == 2) /* updated in place: both start from the same values */
			memcpy(ref[p], storage[p], (size_t)pi[p].storage_elems * athene_dtype_size(pi[p].dtype));
	}
	athene_status st, rst;
	int rc = athene_run(in, storage, 0, &st), rrc = athene_run(in, ref, ATHENE_REFERENCE, &rst);
	if (rc && rrc && !strcmp(st.message, rst.message))
		fail(st.message);
	if (rc && rrc) {
		fprintf(stderr, "athene: check: kernel %s: both failed, with different errors:\nnative executor: %sreference: %s",
		        kname, st.message, rst.message);
		exit(1);
	}
	if (rc || rrc) {
		fprintf(stderr, "athene: check: kernel %s: the %s failed and the %s did not:\n%s", kname,
		        rc ? "native executor" : "reference", rc ? "reference" : "native executor", rc ? st.message : rst.message);
		exit(1);
	}
	bool ok = true;
	for (int p = nin; p < np; p++) {
		void *g, *w;
		const void *got = logical_output(&pi[p], storage[p], &g), *want = logical_output(&pi[p], ref[p], &w);
		ok &= compare_output(kname, &pi[p], got, want);
		free(g);
		free(w);
		free(ref[p]);
	}
	free(ref);
	return ok;
}

static int cmd_run(athene_inst *k, Opts *o)
{
	athene_kernel *kern = athene_instance_kernel(k);
	const char *kname = athene_kernel_name(kern);
	int np = athene_kernel_nparams(kern), nin = athene_kernel_ninputs(kern), rc = 0;
	athene_array *in = calloc((size_t)np, sizeof *in);
	const char **inpath = calloc((size_t)np, sizeof *inpath);
	void **storage = calloc((size_t)np, sizeof *storage), **owned = calloc((size_t)np, sizeof *owned);
	const void **logical = calloc((size_t)np, sizeof *logical);
	athene_param *pi = calloc((size_t)np, sizeof *pi);
	if (!in || !inpath || !storage || !owned || !logical || !pi)
		out_of_memory((long long)np * 256, "the parameters of kernel", kname);
	bind_sizes(k, o);
	bind_inputs(k, o, in, inpath);
	if (athene_compile(k))
		fail(athene_inst_errors(k));
	for (int p = 0; p < np; p++) {
		athene_param_info(k, p, &pi[p]);
		storage[p] = alloc_storage(pi[p].storage_elems, athene_dtype_size(pi[p].dtype),
		                           p < nin ? "input" : "output", pi[p].name);
		if (p >= nin && pi[p].is_output != 2 && inpath[p])
			usage("--in: '%s' is an output that no scatter updates in place: it takes no --in", pi[p].name);
		if (p >= nin && pi[p].is_output != 2)
			continue;
		if (!inpath[p])
			random_fill(k, p, &pi[p], storage[p], (uint64_t)o->seed);
		else if (place_input(&pi[p], &in[p], storage[p], inpath[p]))
			exit(1);
		athene_array_free(&in[p]);
	}
	int flags = o->reference ? ATHENE_REFERENCE : 0;
	athene_status st;
	if (o->bench)
		bench(k, o, storage, flags);
	else if (o->check)
		rc = check_run(k, storage, pi, nin, np) ? 0 : 1;
	else if (athene_run(k, storage, flags, &st))
		fail(st.message);
	for (int p = nin; p < np && !o->bench && !o->check; p++) {
		logical[p] = logical_output(&pi[p], storage[p], &owned[p]);
		summary(kname, &pi[p], logical[p]);
	}
	if (!o->bench && !o->check)
		write_outputs(o, pi, logical, nin, np);
	for (int p = 0; p < np; p++) {
		if (storage[p])
			free_storage(storage[p], pi[p].storage_elems, athene_dtype_size(pi[p].dtype));
		free(owned[p]);
	}
	free(storage);
	free(owned);
	free(logical);
	free(pi);
	free(in);
	free(inpath);
	return rc;
}

static int cmd_check(athene_inst *in, Opts *o)
{
	bind_sizes(in, o);
	if (all_bound(in) && athene_compile(in)) {
		fputs(athene_inst_errors(in), stderr);
		return 1;
	}
	return 0;
}

static int cmd_explain(athene_inst *in, Opts *o)
{
	bind_sizes(in, o);
	const char *text = athene_explain(in, o->target ? o->target : "cpu", o->json);
	if (!text)
		fail(athene_inst_errors(in));
	fputs(text, stdout);
	return 0;
}

/* The commands: one line each. */
static const struct {
	const char *name;
	int (*fn)(athene_inst *in, Opts *o);
} commands[] = {
	{"check", cmd_check},
	{"explain", cmd_explain},
	{"run", cmd_run},
};

static bool known_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(commands[i].name, name))
			return true;
	return false;
}

/* -d PASS: a kernel pass, or an instance's pass once its sizes are bound. */
static void dump(athene_kernel *k, athene_inst *in, const Opts *o)
{
	const char *s = athene_kernel_dump(k, o->dump);
	if (!s && !all_bound(in))
		return; /* a kernel whose sizes check did not bind */
	if (!s)
		s = athene_dump(in, o->dump, o->target ? o->target : "cpu");
	if (!s)
		fail(athene_inst_errors(in));
	fputs(s, stdout);
}

/* One kernel: a fresh instance for the command, freed after it. */
static int command(athene_kernel *k, Opts *o)
{
	athene_inst *in = athene_instance(k);
	int rc = 0;
	if (!in) {
		fprintf(stderr, "athene: cannot allocate an instance of kernel '%s'\n", athene_kernel_name(k));
		exit(1);
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(commands[i].name, o->cmd))
			rc = commands[i].fn(in, o);
	if (o->dump && !rc)
		dump(k, in, o);
	athene_instance_free(in);
	return rc;
}

/* athene emit FILE --target pallas|pallas-gpu [--kernel NAME] [--size SYM=INT]...
 * [--tpu v5e|v6e|v4] [-o OUT.py]: one Python module for every kernel of the
 * file whose sizes are bound (or the one named), on stdout or in OUT.py. */
static int cmd_emit(int argc, char **argv, int at)
{
	const char *file = NULL, *kernel = NULL, *target = NULL, *chip = NULL, *out = NULL;
	const char *sizes[64];
	int nsizes = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		const char **one = !strcmp(a, "--kernel") ? &kernel : !strcmp(a, "--target") ? &target
		                 : !strcmp(a, "--tpu")    ? &chip
		                 : !strcmp(a, "-o")       ? &out
		                                          : NULL;
		bool takes = one || !strcmp(a, "--size");
		if (i == at)
			continue; /* the word emit */
		if (!strcmp(a, "-d"))
			usage("%s", "-d is an option of check, explain and run, not of emit");
		if (takes && !v)
			usage("%s needs a value", a);
		if (one && *one)
			usage("%s given twice", a);
		if (one && !*v)
			usage("%s needs a value, not ''", a);
		if (one) *one = v;
		else if (!strcmp(a, "--size") && nsizes < 64) sizes[nsizes++] = v;
		else if (!strcmp(a, "--size")) usage("%s", "too many --size options");
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			exit(0);
		} else if (a[0] == '-') usage("unknown option %s for emit", a);
		else if (!file) file = a;
		else usage("unexpected argument '%s'", a);
		i += takes;
	}
	if (!file || !target)
		usage("%s", "emit takes FILE --target pallas|pallas-gpu [--kernel NAME] [--size SYM=INT]... [--tpu v5e|v6e|v4] [-o OUT.py]");
	if (!listed(athene_emit_target, target))
		unknown_name("--target", target, " for emit", athene_emit_target);
	emit_target = target;
	if (chip && !listed(emit_chip, chip))
		unknown_name("--tpu chip", chip, "", emit_chip);
	if (out && same_file(out, file))
		usage("refusing to write the module over the kernel file %s (-o)", file);
	for (int j = 0; j < nsizes; j++) {
		const char *eq = strchr(sizes[j], '=');
		int64_t val;
		if (!eq || eq == sizes[j] || !parse_int(eq + 1, INT64_MIN, INT64_MAX, &val))
			usage("--size takes SYM=INT (a 64-bit decimal integer), not '%s'", sizes[j]);
	}
	char *src = read_file(file);
	athene_ctx *c = athene_create();
	if (athene_load(c, file, src))
		fail(athene_errors(c));
	if (kernel && !athene_find_kernel(c, kernel))
		usage("no kernel named '%s' in this file", kernel);
	int nk = athene_kernel_count(c), n = 0;
	athene_inst **ins = calloc((size_t)nk + 1, sizeof *ins);
	for (int i = 0; i < nk; i++) {
		athene_kernel *k = athene_kernel_at(c, i);
		if (kernel && strcmp(athene_kernel_name(k), kernel))
			continue;
		athene_inst *in = athene_instance(k);
		for (int j = 0; j < nsizes; j++) {
			const char *eq = strchr(sizes[j], '=');
			char name[128];
			int64_t val;
			if ((size_t)(eq - sizes[j]) >= sizeof name || !parse_int(eq + 1, INT64_MIN, INT64_MAX, &val))
				usage("--size takes SYM=INT (a 64-bit decimal integer), not '%s'", sizes[j]);
			snprintf(name, sizeof name, "%.*s", (int)(eq - sizes[j]), sizes[j]);
			char flag[160];
			snprintf(flag, sizeof flag, "--size %s", sizes[j]);
			if (athene_size_index(k, name) >= 0 && athene_bind_size_from(in, name, val, flag))
				fail(athene_inst_errors(in));
		}
		int64_t v;
		bool bound = true;
		for (int s = 0; s < athene_size_count(k); s++)
			bound &= athene_size_value(in, s, &v) == 0;
		if (!bound && kernel)
			usage("kernel '%s' has size symbols without a --size", kernel);
		if (!bound) {
			fprintf(stderr, "athene: emit: skipping kernel %s: its sizes are not all given\n", athene_kernel_name(k));
			athene_instance_free(in);
			continue;
		}
		ins[n++] = in;
	}
	const char *text = n ? athene_emit(ins, n, target, chip) : "";
	if (!text)
		fail(athene_inst_errors(ins[0]));
	/* a kernel the gpu module leaves out says why in a comment line; the named one is an error */
	static const char left_out[] = ": not emitted for pallas-gpu: ";
	for (const char *l = strstr(text, left_out); l; l = strstr(l + 1, left_out)) {
		const char *bol = l, *eol = strchr(l, '\n');
		while (bol > text && bol[-1] != '\n')
			bol--;
		int len = (int)(eol ? eol - bol : (ptrdiff_t)strlen(bol)) - 14; /* after "# ---- kernel " */
		fprintf(stderr, "athene: emit: %s%.*s\n", kernel ? "error: " : "", len, bol + 14);
		if (kernel)
			exit(1);
	}
	FILE *f = out ? fopen(out, "w") : stdout;
	if (!f || fputs(text, f) < 0 || (out && fclose(f))) {
		fprintf(stderr, "athene: cannot write %s: %s\n", out ? out : "stdout", strerror(errno));
		exit(1);
	}
	athene_destroy(c);
	free(ins);
	free(src);
	return 0;
}

int main(int argc, char **argv)
{
	int at = argc > 3 && !strcmp(argv[1], "-d") ? 3 : 1; /* where the command is */
	if (argc > at && !strcmp(argv[at], "emit"))
		return cmd_emit(argc, argv, at);
	Opts o = parse_args(argc, argv);
	char *src = read_file(o.file);
	athene_ctx *c = athene_create();
	int rc = 0;
	if (o.threads)
		athene_set_threads(o.threads);
	else if (!strcmp(o.cmd, "run") || !strcmp(o.cmd, "explain"))
		check_threads_env();
	/* compiled statements (ATHENE_JIT): a run of each kernel once would
	 * only start compiles it never uses; --bench times the steady state,
	 * compiled code, so its first run waits for it */
	if (!getenv("ATHENE_JIT"))
		setenv("ATHENE_JIT", o.bench ? "sync" : "0", 1);
	if (athene_load(c, o.file, src)) {
		if (strcmp(o.cmd, "check"))
			fail(athene_errors(c));
		fputs(athene_errors(c), stderr); /* check goes on with the kernels that compiled */
		rc = 1;
	}
	int nk = athene_kernel_count(c);
	athene_kernel *only = NULL;
	if (o.kernel && !(only = athene_find_kernel(c, o.kernel)))
		usage("no kernel named '%s' in this file", o.kernel);
	if (!only && nk > 1 && (o.nins || o.nouts))
		usage("%s", "this file has several kernels: choose one with --kernel to use --in or --out");
	bool json = !strcmp(o.cmd, "explain") && o.json;
	if (json)
		fputs("[\n", stdout); /* one JSON document: an array of kernels */
	for (int i = 0, printed = 0; i < nk; i++) {
		athene_kernel *k = athene_kernel_at(c, i);
		if (only && k != only)
			continue;
		if (json && printed++)
			fputs(",\n", stdout);
		rc |= command(k, &o);
	}
	if (json)
		fputs("]\n", stdout);
	for (int i = 0; i < o.nsizes; i++)
		if (!o.sizes[i].used && (only || nk == 1))
			fprintf(stderr, "athene: warning: no kernel in %s has a size symbol '%s'\n", o.file, o.sizes[i].name);
	athene_destroy(c);
	free(src);
	for (int i = 0; i < o.nsizes; i++)
		free((void *)o.sizes[i].name);
	for (int i = 0; i < o.nins; i++)
		free((void *)o.ins[i].name);
	for (int i = 0; i < o.nouts; i++)
		free((void *)o.outs[i].name);
	return rc;
}
