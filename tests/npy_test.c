/* Unit test of npy.c: round trips of every dtype at ranks 0..8 (zero-size
 * dims included), headers byte for byte as np.save writes them, hand-made
 * files (versions 2.0 and 3.0, loose header spelling, Fortran order, big
 * endian, bf16 as '<V2') and every way a file or a write can be refused.
 * Files go to a fresh mkdtemp directory that is removed at the end.
 * Prints one line per failed check, then "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"

typedef struct {
	int passed, failed;
	char dir[512];
	char what[160]; /* the case under test, printed with a failure */
} T;

static const size_t SIZE[ATHENE_NDTYPES] = {1, 1, 2, 4, 8, 1, 2, 2, 4, 8};
static const char *const NAME[ATHENE_NDTYPES] = {"bool", "i8",  "i16", "i32", "i64",
                                                 "u8",   "f16", "bf16", "f32", "f64"};

#define CHECK(t, cond) check(t, (cond), __LINE__, #cond)

static bool check(T *t, bool ok, int line, const char *expr)
{
	if (ok) {
		t->passed++;
	} else {
		t->failed++;
		printf("FAIL npy_test.c:%d: %s [%s]\n", line, expr, t->what);
	}
	return ok;
}

__attribute__((format(printf, 2, 3)))
static void set_what(T *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->what, sizeof t->what, fmt, ap);
	va_end(ap);
}

static void path_of(const T *t, const char *name, char *path, size_t cap)
{
	snprintf(path, cap, "%s/%s", t->dir, name);
}

static bool write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok;
}

/* The whole file; *n is its size. NULL if it cannot be read. */
static unsigned char *read_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *p = NULL;
	size_t cap = 0;
	*n = 0;
	for (;;) {
		if (*n == cap && !(p = realloc(p, cap = cap * 2 + 4096)))
			break;
		size_t got = fread(p + *n, 1, cap - *n, f);
		*n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	return p;
}

/* Writes a .npy file by hand: version major.0, the header text as given
 * (no padding added), then the data. */
static void fixture(T *t, const char *path, int major, const char *header, const void *data,
                    size_t n)
{
	size_t hl = strlen(header), pre = major == 1 ? 10 : 12;
	unsigned char *b = malloc(pre + hl + n + 1);
	memcpy(b, "\x93NUMPY", 6);
	b[6] = (unsigned char)major;
	b[7] = 0;
	for (size_t i = 0; i < pre - 8; i++)
		b[8 + i] = (unsigned char)(hl >> (8 * i));
	memcpy(b + pre, header, hl);
	if (n)
		memcpy(b + pre + hl, data, n);
	CHECK(t, write_bytes(path, b, pre + hl + n));
	free(b);
}

/* --------------------------------------------------------------- round trips */

static void fill(unsigned char *p, size_t n, DType dt, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		p[i] = (unsigned char)(seed >> 24);
		if (dt == ATHENE_BOOL)
			p[i] &= 1;
	}
}

/* What np.save would put in front of the data: magic, 1.0, the length, the
 * dict, spaces, '\n', the data 64-byte aligned. */
static void check_layout(T *t, const char *path, size_t nbytes)
{
	size_t n = 0;
	unsigned char *b = read_bytes(path, &n);
	if (!CHECK(t, b && n >= 10)) {
		free(b);
		return;
	}
	size_t off = 10 + (size_t)(b[8] | b[9] << 8);
	CHECK(t, memcmp(b, "\x93NUMPY\x01\x00", 8) == 0);
	CHECK(t, off % 64 == 0);
	CHECK(t, n == off + nbytes);
	CHECK(t, off <= n && b[off - 1] == '\n' && b[10] == '{');
	free(b);
}

static void roundtrip_one(T *t, DType dt, int rank, const int64_t *shape)
{
	char path[600];
	snprintf(path, sizeof path, "%s/rt.npy", t->dir);
	size_t n = SIZE[dt];
	for (int k = 0; k < rank; k++)
		n *= (size_t)shape[k];
	unsigned char *data = malloc(n + 1);
	fill(data, n, dt, (uint32_t)(dt * 100 + rank));
	char err[256] = "";
	if (!CHECK(t, npy_write(path, dt, rank, shape, data, err, sizeof err) == 0)) {
		printf("  %s\n", err);
		free(data);
		return;
	}
	check_layout(t, path, n);
	Npy a;
	if (CHECK(t, npy_read(path, &a, err, sizeof err) == 0)) {
		CHECK(t, a.dt == dt && a.rank == rank && a.nbytes == n && a.data != NULL);
		CHECK(t, memcmp(a.shape, shape, (size_t)rank * sizeof *shape) == 0);
		CHECK(t, a.nbytes == n && memcmp(a.data, data, n) == 0);
	}
	npy_free(&a);
	free(data);
}

static void test_roundtrips(T *t)
{
	for (int dt = 0; dt < ATHENE_NDTYPES; dt++) {
		for (int rank = 0; rank <= MAXRANK; rank++) {
			int64_t shape[MAXRANK];
			for (int k = 0; k < rank; k++)
				shape[k] = 1 + (k + dt) % 3;
			set_what(t, "round trip %s rank %d", NAME[dt], rank);
			roundtrip_one(t, (DType)dt, rank, shape);
			if (rank == 0)
				continue;
			shape[(dt + rank) % rank] = 0;
			set_what(t, "round trip %s rank %d zero-size", NAME[dt], rank);
			roundtrip_one(t, (DType)dt, rank, shape);
		}
	}
}

/* Headers exactly as NumPy 2.1's np.save writes them (data at byte 128). */
static void test_golden(T *t)
{
	static const struct {
		DType dt;
		int rank;
		int64_t shape[MAXRANK];
		const char *dict;
	} cases[] = {
		{ATHENE_BOOL, 0, {0}, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }"},
		{ATHENE_I8, 1, {5}, "{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }"},
		{ATHENE_F16, 2, {2, 3}, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }"},
		{ATHENE_I64, 1, {0}, "{'descr': '<i8', 'fortran_order': False, 'shape': (0,), }"},
		{ATHENE_I32, 3, {3, 0, 2}, "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 0, 2), }"},
		{ATHENE_U8, 1, {12}, "{'descr': '|u1', 'fortran_order': False, 'shape': (12,), }"},
		{ATHENE_BF16, 2, {1, 2}, "{'descr': '<V2', 'fortran_order': False, 'shape': (1, 2), }"},
		{ATHENE_F64, 8, {1, 2, 3, 4, 5, 6, 7, 8},
		 "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 3, 4, 5, 6, 7, 8), }"},
		{ATHENE_F32, 2, {0, 1000000000000000000},
		 "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1000000000000000000), }"},
	};
	char path[600];
	path_of(t, "golden.npy", path, sizeof path);
	static const double zeros[40320];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		set_what(t, "golden header %s", cases[i].dict);
		char err[256] = "";
		CHECK(t, npy_write(path, cases[i].dt, cases[i].rank, cases[i].shape, zeros, err,
		                   sizeof err) == 0);
		size_t n = 0, dl = strlen(cases[i].dict);
		unsigned char *b = read_bytes(path, &n);
		if (!CHECK(t, b && n >= 128)) {
			free(b);
			continue;
		}
		CHECK(t, memcmp(b, "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
		CHECK(t, memcmp(b + 10, cases[i].dict, dl) == 0);
		bool spaces = true;
		for (size_t j = 10 + dl; j < 127; j++)
			spaces &= b[j] == ' ';
		CHECK(t, spaces && b[127] == '\n');
		free(b);
	}
}

/* Writing over a file replaces it; a NULL data pointer is fine when empty. */
static void test_overwrite(T *t)
{
	char path[600], err[256] = "";
	path_of(t, "over.npy", path, sizeof path);
	set_what(t, "overwrite");
	int32_t a[3] = {1, 2, 3};
	int64_t s3 = 3, s0 = 0, s2 = 2;
	int16_t b[2] = {-7, 9};
	CHECK(t, npy_write(path, ATHENE_I32, 1, &s3, a, err, sizeof err) == 0);
	CHECK(t, npy_write(path, ATHENE_I16, 1, &s2, b, err, sizeof err) == 0);
	Npy x;
	CHECK(t, npy_read(path, &x, err, sizeof err) == 0);
	CHECK(t, x.dt == ATHENE_I16 && x.nbytes == 4 && memcmp(x.data, b, 4) == 0);
	npy_free(&x);
	CHECK(t, npy_write(path, ATHENE_F32, 1, &s0, NULL, err, sizeof err) == 0);
	CHECK(t, npy_read(path, &x, err, sizeof err) == 0 && x.nbytes == 0 && x.shape[0] == 0);
	npy_free(&x);
	npy_free(&x); /* twice is harmless */
	npy_free(NULL);
}

/* --------------------------------------------------------------- fixtures */

/* Reads a hand-made file that must succeed with the given dtype and shape. */
static bool read_ok(T *t, const char *path, Npy *a, DType dt, int rank, const int64_t *shape)
{
	char err[256] = "";
	if (!CHECK(t, npy_read(path, a, err, sizeof err) == 0)) {
		printf("  %s\n", err);
		return false;
	}
	size_t n = SIZE[dt];
	for (int k = 0; k < rank; k++)
		n *= (size_t)shape[k];
	bool ok = CHECK(t, a->dt == dt && a->rank == rank && a->nbytes == n);
	ok &= CHECK(t, rank == 0 || memcmp(a->shape, shape, (size_t)rank * sizeof *shape) == 0);
	return ok;
}

static void test_versions(T *t)
{
	char path[600];
	path_of(t, "v.npy", path, sizeof path);
	Npy a;
	int32_t i3[3] = {1, -2, 300000};
	int64_t s3[1] = {3};
	set_what(t, "version 2.0");
	fixture(t, path, 2, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }\n", i3, 12);
	if (read_ok(t, path, &a, ATHENE_I32, 1, s3))
		CHECK(t, memcmp(a.data, i3, 12) == 0);
	npy_free(&a);
	double d[3] = {1.5, -0.25, 1e300};
	set_what(t, "version 3.0");
	fixture(t, path, 3, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }\n", d, 24);
	if (read_ok(t, path, &a, ATHENE_F64, 1, s3))
		CHECK(t, memcmp(a.data, d, 24) == 0);
	npy_free(&a);
}

/* Any key order, either quote, odd spacing, trailing commas or none, old
 * 'L' suffixes, and bytes after the data. */
static void test_spelling(T *t)
{
	static const char *const headers[] = {
		"{\"shape\" : ( 2 , 2 , ) ,'fortran_order':False,'descr':'<i2'}\n\t \r",
		"{'fortran_order': False, 'descr': '<i2', 'shape': (2L, 2L)}",
		"{ 'descr' :'<i2' ,\n 'shape':(2,2),'fortran_order' : False , } ",
		"{'descr': '=i2', 'fortran_order': False, 'shape': (2, 2), }",
		"{'descr': 'i2', 'fortran_order': False, 'shape': (2, 2), }",
		"{'descr': '|i2', 'fortran_order': False, 'shape': (2, 2), }",
	};
	char path[600];
	path_of(t, "sp.npy", path, sizeof path);
	int16_t v[5] = {1, -2, 3, 32767, 0x5a5a}; /* the last is trailing garbage */
	int64_t s22[2] = {2, 2};
	for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
		set_what(t, "header spelling %s", headers[i]);
		fixture(t, path, 1, headers[i], v, sizeof v);
		Npy a;
		if (read_ok(t, path, &a, ATHENE_I16, 2, s22))
			CHECK(t, memcmp(a.data, v, 8) == 0);
		npy_free(&a);
	}
}

/* 0-d arrays, one-byte dtypes under every prefix, '(5)' as a shape. */
static void test_small_forms(T *t)
{
	char path[600];
	path_of(t, "sf.npy", path, sizeof path);
	Npy a;
	double d = -3.75;
	set_what(t, "0-d");
	fixture(t, path, 1, "{'descr': '<f8', 'fortran_order': True, 'shape': ()}", &d, 8);
	if (read_ok(t, path, &a, ATHENE_F64, 0, NULL))
		CHECK(t, memcmp(a.data, &d, 8) == 0);
	npy_free(&a);
	static const struct { const char *descr; DType dt; } one[] = {
		{"|b1", ATHENE_BOOL}, {"<b1", ATHENE_BOOL}, {"|i1", ATHENE_I8},
		{">i1", ATHENE_I8},   {"|u1", ATHENE_U8},   {"=u1", ATHENE_U8},
	};
	unsigned char bytes[5] = {1, 0, 1, 1, 0};
	int64_t s5 = 5;
	for (size_t i = 0; i < sizeof one / sizeof *one; i++) {
		char h[128];
		snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (5)}", one[i].descr);
		set_what(t, "one-byte %s", h);
		fixture(t, path, 1, h, bytes, 5);
		if (read_ok(t, path, &a, one[i].dt, 1, &s5))
			CHECK(t, memcmp(a.data, bytes, 5) == 0);
		npy_free(&a);
	}
}

/* Element (i, j, k) of a 2x3x4 array holds 100i + 10j + k; in Fortran order
 * it is stored at i + 2j + 6k. */
static void test_fortran(T *t)
{
	char path[600];
	path_of(t, "f.npy", path, sizeof path);
	int32_t f[24];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 4; k++)
				f[i + 2 * j + 6 * k] = 100 * i + 10 * j + k;
	int64_t shape[3] = {2, 3, 4};
	set_what(t, "fortran 2x3x4 i32");
	fixture(t, path, 1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3, 4), }", f, sizeof f);
	Npy a;
	if (read_ok(t, path, &a, ATHENE_I32, 3, shape)) {
		const int32_t *c = a.data;
		int bad = 0;
		for (int i = 0; i < 24; i++)
			bad += c[i] != 100 * (i / 12) + 10 * (i / 4 % 3) + i % 4;
		CHECK(t, bad == 0);
	}
	npy_free(&a);
	double m[6] = {1, 4, 2, 5, 3, 6}; /* [[1, 2, 3], [4, 5, 6]] */
	double want[6] = {1, 2, 3, 4, 5, 6};
	int64_t s23[2] = {2, 3};
	set_what(t, "fortran 2x3 f8");
	fixture(t, path, 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", m, sizeof m);
	if (read_ok(t, path, &a, ATHENE_F64, 2, s23))
		CHECK(t, memcmp(a.data, want, sizeof want) == 0);
	npy_free(&a);
	int64_t s203[3] = {2, 0, 3};
	set_what(t, "fortran zero-size");
	fixture(t, path, 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 0, 3), }", NULL, 0);
	read_ok(t, path, &a, ATHENE_F64, 3, s203);
	npy_free(&a);
}

/* Big-endian data of every width comes back in the host's order. */
static void test_big_endian(T *t)
{
	char path[600];
	path_of(t, "be.npy", path, sizeof path);
	static const struct {
		const char *descr;
		DType dt;
		unsigned char be[8];
		double want;
	} cases[] = {
		{">i2", ATHENE_I16, {0xff, 0xfe}, -2},
		{">i4", ATHENE_I32, {0x00, 0x01, 0x02, 0x03}, 0x010203},
		{">i8", ATHENE_I64, {0x80, 0, 0, 0, 0, 0, 0, 1}, 0},
		{">f2", ATHENE_F16, {0x3c, 0x00}, 0},
		{">V2", ATHENE_BF16, {0x3f, 0x80}, 0},
		{">f4", ATHENE_F32, {0x40, 0x49, 0x0f, 0xdb}, 3.1415927410125732},
		{">f8", ATHENE_F64, {0xc0, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18}, -3.141592653589793},
	};
	int64_t s1 = 1;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char h[128];
		snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (1,), }",
		         cases[i].descr);
		set_what(t, "big-endian %s", cases[i].descr);
		DType dt = cases[i].dt;
		fixture(t, path, 1, h, cases[i].be, SIZE[dt]);
		Npy a;
		if (read_ok(t, path, &a, dt, 1, &s1)) {
			const unsigned char *p = a.data;
			/* the host order of the same bytes: reversed on little-endian */
			uint64_t v = 0, w = 0;
			for (size_t j = 0; j < SIZE[dt]; j++)
				v = v << 8 | cases[i].be[j];
			memcpy(&w, p, SIZE[dt]);
			CHECK(t, (SIZE[dt] == 8 ? w : w & ((1ull << 8 * SIZE[dt]) - 1)) == v);
			if (dt == ATHENE_F32)
				CHECK(t, *(const float *)a.data == (float)cases[i].want);
			if (dt == ATHENE_F64 || dt == ATHENE_I16)
				CHECK(t, dt == ATHENE_F64 ? *(const double *)a.data == cases[i].want
				                          : *(const int16_t *)a.data == -2);
		}
		npy_free(&a);
	}
}

/* Big-endian and Fortran order together. */
static void test_big_fortran(T *t)
{
	char path[600];
	path_of(t, "bf.npy", path, sizeof path);
	/* [[1, 2], [3, 4]] as >i4 in Fortran order: 1, 3, 2, 4 */
	unsigned char be[16] = {0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 4};
	int32_t want[4] = {1, 2, 3, 4};
	int64_t s22[2] = {2, 2};
	set_what(t, "big-endian fortran");
	fixture(t, path, 1, "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 2), }", be, 16);
	Npy a;
	if (read_ok(t, path, &a, ATHENE_I32, 2, s22))
		CHECK(t, memcmp(a.data, want, 16) == 0);
	npy_free(&a);
}

/* How NumPy saves ml_dtypes.bfloat16: '<V2'. 0x3f80 is 1.0, 0xc040 is -3. */
static void test_bf16(T *t)
{
	char path[600];
	path_of(t, "bf16.npy", path, sizeof path);
	uint16_t v[3] = {0x3f80, 0xc040, 0x7fc0};
	unsigned char le[6] = {0x80, 0x3f, 0x40, 0xc0, 0xc0, 0x7f};
	int64_t s3 = 3;
	static const char *const descr[] = {"<V2", "|V2"};
	for (int i = 0; i < 2; i++) {
		char h[128];
		snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (3,), }", descr[i]);
		set_what(t, "bf16 %s", descr[i]);
		fixture(t, path, 1, h, le, 6);
		Npy a;
		if (read_ok(t, path, &a, ATHENE_BF16, 1, &s3))
			CHECK(t, memcmp(a.data, v, 6) == 0);
		npy_free(&a);
	}
}

/* --------------------------------------------------------------- errors */

/* A read that must fail: -1, out left empty, a message naming the path and
 * containing want. Also run with no room for a message and with very little. */
static void expect_read_error(T *t, const char *path, const char *want)
{
	char err[512] = "";
	Npy a;
	memset(&a, 0x5a, sizeof a);
	CHECK(t, npy_read(path, &a, err, sizeof err) == -1);
	CHECK(t, a.data == NULL && a.nbytes == 0 && a.rank == 0);
	CHECK(t, strncmp(err, path, strlen(path)) == 0 && strstr(err, want) != NULL);
	CHECK(t, strchr(err, '\n') == NULL);
	if (strstr(err, want) == NULL)
		printf("  got: %s\n", err);
	npy_free(&a);
	char tiny[6] = "xxxxx";
	CHECK(t, npy_read(path, &a, tiny, sizeof tiny) == -1 && strlen(tiny) < sizeof tiny);
	npy_free(&a);
	CHECK(t, npy_read(path, &a, NULL, 0) == -1);
	npy_free(&a);
}

static void bad_header(T *t, const char *header, const char *want)
{
	char path[600];
	path_of(t, "bad.npy", path, sizeof path);
	static const unsigned char data[64];
	set_what(t, "bad header %s", header);
	fixture(t, path, 1, header, data, sizeof data);
	expect_read_error(t, path, want);
}

static void bad_descr(T *t, const char *descr, const char *want)
{
	char h[256];
	snprintf(h, sizeof h, "{'descr': %s, 'fortran_order': False, 'shape': (2,), }", descr);
	bad_header(t, h, want);
}

static void bad_shape(T *t, const char *shape, const char *want)
{
	char h[512];
	snprintf(h, sizeof h, "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }", shape);
	bad_header(t, h, want);
}

static void test_bad_dtypes(T *t)
{
	static const char *const unsupported[] = {
		"'<c8'", "'|O'", "'<U3'", "'|S4'", "'<M8[ns]'", "'<f16'", "'<i16'", "''",
		"'<'", "'<u'", "'<V4'", "'|V8'", "'<b2'", "'<f3'", "'xi4'", "'<i4 '", "'<i004'",
	};
	for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++)
		bad_descr(t, unsupported[i], "unsupported dtype");
	bad_descr(t, "'<c8'", "unsupported dtype '<c8' (athene reads bool, i8, i16, i32, i64, u8, "
	                      "f16, bf16, f32, f64)");
	bad_descr(t, "'<u2'", "athene has no u16");
	bad_descr(t, "'>u2'", "athene has no u16");
	bad_descr(t, "'<u4'", "athene has no u32");
	bad_descr(t, "'<u8'", "athene has no u64");
	bad_descr(t, "[('a', '<i4'), ('b', '<f8')]", "unsupported structured dtype");
	bad_descr(t, "5", "'descr' is not a string");
	/* text echoed from the file stays printable and short */
	bad_descr(t, "'<\x01\n\xff'", "unsupported dtype '<?\?\?' ("); /* \? dodges a trigraph */
	bad_descr(t, "'<f8aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'",
	          "unsupported dtype '<f8aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' (");
}

static void test_bad_shapes(T *t)
{
	bad_shape(t, "(1, 1, 1, 1, 1, 1, 1, 1, 1)", "rank 9");
	bad_shape(t, "(2, -3)", "negative dimension -3");
	bad_shape(t, "(4611686018427387904, 4)", "overflows");
	bad_shape(t, "(4611686018427387904, 4611686018427387904, 0)", "overflows");
	bad_shape(t, "(99999999999999999999,)", "too large");
	bad_shape(t, "(2, 'a')", "not a tuple of integers");
	bad_shape(t, "(2 3)", "expected ',' or ')'");
	bad_shape(t, "(2,", "not a tuple of integers");
	bad_shape(t, "[2, 3]", "not a tuple");
	bad_shape(t, "2", "not a tuple");
	bad_shape(t, "(,)", "not a tuple of integers");
}

static void test_bad_headers(T *t)
{
	bad_header(t, "{'descr': '<f8', 'fortran_order': False}", "no 'shape' key");
	bad_header(t, "{'fortran_order': False, 'shape': (2,)}", "no 'descr' key");
	bad_header(t, "{'descr': '<f8', 'shape': (2,)}", "no 'fortran_order' key");
	bad_header(t, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}",
	           "unexpected key 'x'");
	bad_header(t, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}",
	           "'descr' appears twice");
	bad_header(t, "{'descr': '<f8', 'fortran_order': 0, 'shape': (2,)}", "not True or False");
	bad_header(t, "{'descr': '<f8', 'fortran_order': Tru", "not True or False");
	bad_header(t, "{'descr': '<f8", "not a string");
	bad_header(t, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,)", "expected");
	bad_header(t, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} x", "after the dict");
	bad_header(t, "{'descr': '<f8' 'fortran_order': False, 'shape': (2,)}", "expected ','");
	bad_header(t, "{'descr' '<f8', 'fortran_order': False, 'shape': (2,)}", "expected ':'");
	bad_header(t, "{'fortr\nn_order': False}", "unexpected key 'fortr?n_order'");
	bad_header(t, "{descr: '<f8'}", "expected a quoted key");
	bad_header(t, "{,}", "expected a quoted key");
	bad_header(t, "[1, 2]", "not a dict");
	bad_header(t, "", "not a dict");
}

/* Files that are not .npy files, or are cut short. */
static void test_bad_files(T *t)
{
	char path[600];
	set_what(t, "missing file");
	path_of(t, "no_such.npy", path, sizeof path);
	expect_read_error(t, path, "No such file");
	set_what(t, "directory");
	expect_read_error(t, t->dir, "not a regular file");
	set_what(t, "/dev/null");
	expect_read_error(t, "/dev/null", "not a regular file");
	path_of(t, "raw.npy", path, sizeof path);
	static const struct { const char *what, *bytes; size_t n; const char *want; } raw[] = {
		{"empty", "", 0, "not a .npy file"},
		{"5 bytes", "\x93NUMP", 5, "not a .npy file"},
		{"bad magic", "\x93NUMPX\x01\x00\x00\x00", 10, "not a .npy file"},
		{"text", "hello, this is not numpy", 24, "not a .npy file"},
		{"version 4.0", "\x93NUMPY\x04\x00\x00\x00{}", 12, "version 4.0"},
		{"version 1.1", "\x93NUMPY\x01\x01\x00\x00{}", 12, "version 1.1"},
		{"version 0.0", "\x93NUMPY\x00\x00\x00\x00{}", 12, "version 0.0"},
		{"no length", "\x93NUMPY\x02\x00\x05\x00", 10, "truncated .npy header"},
		{"magic only", "\x93NUMPY\x01\x00", 8, "truncated .npy header"},
		{"long header", "\x93NUMPY\x01\x00\xff\x00{'descr'", 18, "truncated .npy header"},
		{"huge header", "\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14, "too long"},
		{"NUL in header", "\x93NUMPY\x01\x00\x04\x00{}\0 ", 14, "after the dict"},
	};
	for (size_t i = 0; i < sizeof raw / sizeof *raw; i++) {
		set_what(t, "file %s", raw[i].what);
		CHECK(t, write_bytes(path, raw[i].bytes, raw[i].n));
		expect_read_error(t, path, raw[i].want);
	}
	static const double d[10];
	set_what(t, "truncated data");
	fixture(t, path, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (10,), }", d, 79);
	expect_read_error(t, path, "truncated: the header promises 80 data bytes, the file has 79");
	/* a terabyte promised: refused before any allocation */
	set_what(t, "huge truncated");
	fixture(t, path, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (137438953472,), }", d, 80);
	expect_read_error(t, path, "truncated");
}

/* A write that must fail: -1 with a message naming the path, and no file
 * (or temporary) left behind. */
static void expect_write_error(T *t, const char *path, DType dt, int rank, const int64_t *shape,
                               const void *data, const char *want)
{
	char err[512] = "";
	CHECK(t, npy_write(path, dt, rank, shape, data, err, sizeof err) == -1);
	CHECK(t, strncmp(err, path, strlen(path)) == 0 && strstr(err, want) != NULL);
	if (strstr(err, want) == NULL)
		printf("  got: %s\n", err);
	char tiny[4];
	CHECK(t, npy_write(path, dt, rank, shape, data, tiny, sizeof tiny) == -1 && strlen(tiny) < 4);
	CHECK(t, npy_write(path, dt, rank, shape, data, NULL, 0) == -1);
}

/* No "*.tmp.*" file may be left in the test directory. */
static bool no_temp_left(const T *t)
{
	DIR *d = opendir(t->dir);
	if (!d)
		return false;
	bool ok = true;
	for (struct dirent *e; (e = readdir(d));)
		ok &= strstr(e->d_name, ".tmp.") == NULL;
	closedir(d);
	return ok;
}

static void test_write_errors(T *t)
{
	char path[600];
	int64_t shape[9] = {2, 3, 1, 1, 1, 1, 1, 1, 1};
	static const double data[6];
	path_of(t, "w.npy", path, sizeof path);
	set_what(t, "write bad dtype");
	expect_write_error(t, path, (DType)ATHENE_NDTYPES, 1, shape, data, "invalid dtype");
	expect_write_error(t, path, (DType)-1, 1, shape, data, "invalid dtype");
	set_what(t, "write bad rank");
	expect_write_error(t, path, ATHENE_F64, 9, shape, data, "rank 9");
	expect_write_error(t, path, ATHENE_F64, -1, shape, data, "rank -1");
	expect_write_error(t, path, ATHENE_F64, 2, NULL, data, "no shape");
	set_what(t, "write bad shape");
	int64_t neg[2] = {2, -1}, big[3] = {INT64_MAX, 2, 0};
	expect_write_error(t, path, ATHENE_F64, 2, neg, data, "negative dimension -1");
	expect_write_error(t, path, ATHENE_F64, 3, big, data, "overflows");
	expect_write_error(t, path, ATHENE_F64, 2, shape, NULL, "no data");
	struct stat st;
	CHECK(t, stat(path, &st) != 0);
	set_what(t, "write into missing directory");
	path_of(t, "no_dir/x.npy", path, sizeof path);
	expect_write_error(t, path, ATHENE_F64, 2, shape, data, "No such file");
	set_what(t, "write over a directory");
	path_of(t, "sub.npy", path, sizeof path);
	CHECK(t, mkdir(path, 0700) == 0);
	expect_write_error(t, path, ATHENE_F64, 2, shape, data, "is a directory");
	CHECK(t, no_temp_left(t));
	CHECK(t, rmdir(path) == 0);
}

/* --------------------------------------------------------------- main */

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char p[1024];
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (unlink(p) != 0)
			rmdir(p);
	}
	closedir(d);
	rmdir(dir);
}

int main(void)
{
	T t = {0};
	/* line-buffered, so that failures show even if a sanitizer ends the run */
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *tmp = getenv("TMPDIR");
	snprintf(t.dir, sizeof t.dir, "%s/npy_test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t.dir)) {
		printf("cannot make a temporary directory under %s\n", tmp && *tmp ? tmp : "/tmp");
		return 1;
	}
	test_roundtrips(&t);
	test_golden(&t);
	test_overwrite(&t);
	test_versions(&t);
	test_spelling(&t);
	test_small_forms(&t);
	test_fortran(&t);
	test_big_endian(&t);
	test_big_fortran(&t);
	test_bf16(&t);
	test_bad_dtypes(&t);
	test_bad_shapes(&t);
	test_bad_headers(&t);
	test_bad_files(&t);
	test_write_errors(&t);
	remove_dir(t.dir);
	printf("%d passed, %d failed\n", t.passed, t.failed);
	return t.failed != 0;
}
