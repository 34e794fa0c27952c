/* The athene command-line tool. The only file that prints to the terminal
 * or exits. Exit status: 0 ok, 1 user error (compile or run), 2 usage. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "athene.h"

static const char usage_text[] =
	"usage: athene [-d PASS] COMMAND FILE [options]\n"
	"  athene check FILE [--kernel NAME] [--size SYM=INT]...\n"
	"  athene explain FILE [--kernel NAME] [--size SYM=INT]... [--target cpu|tpu] [--json] [--threads N]\n"
	"  athene run FILE [--kernel NAME] [--size SYM=INT]... [--in NAME=PATH.npy]...\n"
	"                  [--out NAME=PATH.npy]... [--seed S] [--reference] [--threads N]\n"
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
	bool used;
} Pair;

typedef struct {
	const char *cmd, *file, *kernel, *dump, *target;
	Pair sizes[64], ins[64], outs[64];
	int nsizes, nins, nouts;
	uint64_t seed;
	int threads;
	bool reference, json;
} Opts;

static void add_pair(Pair *p, int *n, const char *arg, const char *flag)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		usage("%s takes NAME=VALUE", flag);
	if (*n == 64)
		usage("too many %s options", flag);
	p[*n].name = strndup(arg, (size_t)(eq - arg));
	p[*n].path = eq + 1;
	for (int i = 0; i < *n; i++)
		if (!strcmp(p[i].name, p[*n].name))
			usage("%s given twice for the same name", flag);
	(*n)++;
}

static Opts parse_args(int argc, char **argv)
{
	Opts o = {0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = !strcmp(a, "-d") || !strcmp(a, "--kernel") || !strcmp(a, "--size") || !strcmp(a, "--target") ||
		             !strcmp(a, "--in") || !strcmp(a, "--out") || !strcmp(a, "--seed") || !strcmp(a, "--threads");
		if (!strcmp(a, "-d") && (!v || !strcmp(v, "list")))
			list_passes();
		if (takes && !v)
			usage("%s needs a value", a);
		if (!strcmp(a, "-d")) o.dump = v;
		else if (!strcmp(a, "--threads")) {
			char *end;
			errno = 0;
			long n = strtol(v, &end, 10);
			if (*end || errno || n < 1 || n > 1024 || v[0] < '0' || v[0] > '9')
				usage("--threads takes a count from 1 to 1024, not '%s'", v);
			o.threads = (int)n;
		}
		else if (!strcmp(a, "--kernel")) o.kernel = v;
		else if (!strcmp(a, "--target")) o.target = v;
		else if (!strcmp(a, "--json")) o.json = true;
		else if (!strcmp(a, "--size")) add_pair(o.sizes, &o.nsizes, v, a);
		else if (!strcmp(a, "--in")) add_pair(o.ins, &o.nins, v, a);
		else if (!strcmp(a, "--out")) add_pair(o.outs, &o.nouts, v, a);
		else if (!strcmp(a, "--seed")) {
			char *end;
			errno = 0;
			o.seed = strtoull(v, &end, 10);
			if (*end || errno || v[0] == '-')
				usage("--seed takes a non-negative integer, not '%s'", v);
		} else if (!strcmp(a, "--reference")) o.reference = true;
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
	if (strcmp(o.cmd, "check") && strcmp(o.cmd, "run") && strcmp(o.cmd, "explain"))
		usage("unknown command '%s'", o.cmd);
	if (!o.file)
		usage("%s needs a FILE", o.cmd);
	bool known = false;
	for (int i = 0; o.dump && athene_pass_name(i); i++)
		known |= !strcmp(o.dump, athene_pass_name(i));
	if (o.dump && !known)
		usage("unknown pass '%s' (athene -d list shows them)", o.dump);
	if (!strcmp(o.cmd, "check") && (o.nins || o.nouts || o.reference))
		usage("%s", "check takes FILE, --kernel, --size and -d");
	if (strcmp(o.cmd, "explain") && o.json)
		usage("%s", "--json is an option of explain");
	if (strcmp(o.cmd, "explain") && o.target && !o.dump)
		usage("%s", "--target is an option of explain and -d");
	if (!strcmp(o.cmd, "explain") && (o.nins || o.nouts || o.reference))
		usage("%s", "explain takes FILE, --kernel, --size, --target and --json");
	if (o.target && strcmp(o.target, "cpu") && strcmp(o.target, "tpu"))
		usage("unknown target '%s' (cpu, tpu)", o.target);
	return o;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "athene: cannot read %s: %s\n", path, f ? "not a regular file" : strerror(errno));
		if (f)
			fclose(f);
		exit(1);
	}
	char *s = malloc((size_t)st.st_size + 1);
	size_t n = s ? fread(s, 1, (size_t)st.st_size, f) : 0;
	fclose(f);
	if (!s || n != (size_t)st.st_size) {
		fprintf(stderr, "athene: cannot read %s\n", path);
		exit(1);
	}
	s[n] = 0;
	if (strlen(s) != n) {
		fprintf(stderr, "athene: %s: contains a NUL byte; kernel files are text\n", path);
		exit(1);
	}
	return s;
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
	for (int64_t i = 0; i < pi->storage_elems; i++) {
		uint64_t r = splitmix(&s);
		if (athene_dtype_is_float(pi->dtype))
			athene_store_f64(buf, pi->dtype, i, (double)(r >> 11) * 0x1p-53 * 4.0 - 2.0);
		else
			athene_store_i64(buf, pi->dtype, i, lo + (int64_t)(r % ((uint64_t)hi - (uint64_t)lo + 1)));
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
	unsigned char *seen = calloc((size_t)pi->storage_elems + 1, 1);
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

static void *gather_output(const athene_param *pi, const void *buf)
{
	int64_t n = numel(pi);
	size_t es = athene_dtype_size(pi->dtype);
	char *out = malloc((size_t)n * es + 1);
	for (int64_t i = 0; i < n; i++)
		memcpy(out + i * (int64_t)es, (const char *)buf + storage_offset(pi, i) * (int64_t)es, es);
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

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) || stat(b, &sb))
		return !strcmp(a, b);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ---- commands ---- */

static void bind_sizes(athene_inst *in, Opts *o)
{
	athene_kernel *k = athene_instance_kernel(in);
	for (int i = 0; i < o->nsizes; i++) {
		char *end;
		errno = 0;
		long long v = strtoll(o->sizes[i].path, &end, 10);
		if (*end || errno)
			usage("--size takes SYM=INT, not '%s'", o->sizes[i].path);
		if (athene_size_index(k, o->sizes[i].name) < 0)
			continue;
		o->sizes[i].used = true;
		if (athene_bind_size(in, o->sizes[i].name, v))
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

static int run_kernel(athene_inst *k, Opts *o)
{
	athene_kernel *kern = athene_instance_kernel(k);
	int np = athene_kernel_nparams(kern), nin = athene_kernel_ninputs(kern);
	athene_array *in = calloc((size_t)np, sizeof *in);
	const char **inpath = calloc((size_t)np, sizeof *inpath);
	bind_sizes(k, o);
	for (int i = 0; i < o->nins; i++) {
		int p = athene_param_index(kern, o->ins[i].name);
		if (p < 0 || p >= nin)
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
	if (athene_compile(k))
		fail(athene_inst_errors(k));
	void **storage = calloc((size_t)np, sizeof *storage);
	athene_param *pi = calloc((size_t)np, sizeof *pi);
	for (int p = 0; p < np; p++) {
		athene_param_info(k, p, &pi[p]);
		storage[p] = calloc((size_t)pi[p].storage_elems + 1, athene_dtype_size(pi[p].dtype));
		if (!storage[p]) {
			fprintf(stderr, "athene: out of memory for %s\n", pi[p].name);
			exit(1);
		}
		if (p >= nin)
			continue;
		if (!inpath[p])
			random_fill(k, p, &pi[p], storage[p], o->seed);
		else if (place_input(&pi[p], &in[p], storage[p], inpath[p]))
			exit(1);
	}
	athene_status st;
	if (athene_run(k, storage, ATHENE_REFERENCE, &st))
		fail(st.message);
	for (int p = nin; p < np; p++) {
		void *logical = gather_output(&pi[p], storage[p]);
		summary(athene_kernel_name(kern), &pi[p], logical);
		for (int i = 0; i < o->nouts; i++) {
			char err[512];
			if (!strcmp(o->outs[i].name, pi[p].name) &&
			    athene_npy_write(o->outs[i].path, pi[p].dtype, pi[p].rank, pi[p].shape, logical, err, sizeof err)) {
				fprintf(stderr, "athene: %s\n", err);
				exit(1);
			}
		}
		free(logical);
	}
	for (int p = 0; p < np; p++) {
		free(storage[p]);
		athene_array_free(&in[p]);
	}
	free(storage);
	free(pi);
	free(in);
	free(inpath);
	return 0;
}

static void dump(athene_kernel *k, athene_inst *in, const Opts *o)
{
	const char *s = athene_kernel_dump(k, o->dump);
	if (!s && !in)
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
	if (!in)
		fail("athene: out of memory\n");
	if (!strcmp(o->cmd, "check")) {
		bind_sizes(in, o);
		if (all_bound(in) && athene_compile(in)) {
			fputs(athene_inst_errors(in), stderr);
			athene_instance_free(in);
			return 1;
		}
		if (!all_bound(in) && strcmp(o->dump ? o->dump : "parse", "parse") && strcmp(o->dump, "check")) {
			athene_instance_free(in);
			in = NULL;
		}
	} else if (!strcmp(o->cmd, "explain")) {
		bind_sizes(in, o);
		const char *text = athene_explain(in, o->target ? o->target : "cpu", o->json);
		if (!text)
			fail(athene_inst_errors(in));
		fputs(text, stdout);
	} else {
		run_kernel(in, o);
	}
	if (o->dump)
		dump(k, in, o);
	athene_instance_free(in);
	return rc;
}

int main(int argc, char **argv)
{
	Opts o = parse_args(argc, argv);
	char *src = read_file(o.file);
	athene_ctx *c = athene_create();
	int rc = 0;
	if (o.threads)
		athene_set_threads(o.threads);
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
