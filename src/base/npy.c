/* Reading and writing NumPy .npy files.
 *
 * npy_read accepts format versions 1.0 to 3.0 holding one of athene's dtypes
 * (bf16 as NumPy saves ml_dtypes.bfloat16: a 2-byte void, '<V2'), in either
 * byte order and either memory order, and always hands back C-order data in
 * the host's byte order. npy_write writes exactly what np.save would:
 * version 1.0 (2.0 only if the header is too long for it), little-endian,
 * C order, data starting at a multiple of 64 bytes. It writes a temporary
 * file beside the target (symbolic links followed, as cp does) and renames
 * it into place, so a failed write never leaves a partial file; FIFOs and
 * character devices are written into, directories and other special files
 * refused. Several arrays are written all or nothing. Every failure returns -1 with a one-line message
 * that starts with the path; nothing here exits, prints or keeps state. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

enum {
	MAGIC_LEN = 6,
	ALIGN = 64,           /* np.save aligns data for mmap of any dtype */
	MAX_HEADER = 1 << 20, /* a sane header is a few hundred bytes */
	GROWTH_DIGITS = 21,   /* np.save's room to rewrite the first dim in place */
};
#define MAGIC "\x93NUMPY"
#define READS "bool, i8, i16, i32, i64, u8, f16, bf16, f32, f64"

/* Where messages go, and which file they name. */
typedef struct {
	const char *path;
	char *err;
	size_t errlen;
} Rep;

__attribute__((format(printf, 2, 3)))
static int fail(const Rep *r, const char *fmt, ...)
{
	if (!r->err || r->errlen == 0)
		return -1;
	int n = snprintf(r->err, r->errlen, "%s: ", r->path);
	if (n >= 0 && (size_t)n < r->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Text from the file made fit for a one-line message: printable ASCII only,
 * at most 40 characters. */
static const char *quote(const char *s, size_t n, char out[48])
{
	size_t k = 0;
	for (; k < n && k < 40; k++)
		out[k] = s[k] >= ' ' && s[k] <= '~' ? s[k] : '?';
	strcpy(out + k, n > 40 ? "..." : "");
	return out;
}

static bool host_little(void)
{
	const uint16_t one = 1;
	unsigned char b;
	memcpy(&b, &one, 1);
	return b == 1;
}

/* Reverses the bytes of every esz-byte element. */
static void swap_bytes(void *p, size_t nbytes, size_t esz)
{
	unsigned char *b = p;
	for (size_t i = 0; i + esz <= nbytes; i += esz) {
		for (size_t j = 0; j < esz / 2; j++) {
			unsigned char t = b[i + j];
			b[i + j] = b[i + esz - 1 - j];
			b[i + esz - 1 - j] = t;
		}
	}
}

/* Bytes of an array of esz-byte elements; -1 when they would not fit in
 * memory. Like NumPy, a zero dim does not excuse the others overflowing. */
static int array_bytes(int rank, const int64_t *shape, size_t esz, size_t *out)
{
	const uint64_t lim = (uint64_t)SIZE_MAX < (uint64_t)INT64_MAX ? (uint64_t)SIZE_MAX
	                                                              : (uint64_t)INT64_MAX;
	uint64_t n = esz;
	bool zero = false;
	for (int k = 0; k < rank; k++) {
		if (shape[k] == 0)
			zero = true;
		else if ((uint64_t)shape[k] > lim / n)
			return -1;
		else
			n *= (uint64_t)shape[k];
	}
	*out = zero ? 0 : (size_t)n;
	return 0;
}

/* ------------------------------------------------------------ header dict */

/* The header is a Python dict literal; this reads the small subset np.save
 * emits, tolerating the spacing, quoting and commas any writer might use. */
typedef struct {
	const char *p, *end;
} Cur;

enum { K_DESCR, K_FORTRAN, K_SHAPE, NKEYS };
static const char *const KEYS[NKEYS] = {"descr", "fortran_order", "shape"};

typedef struct {
	const char *descr;
	size_t descr_len;
	bool fortran;
	int rank; /* as written, may exceed MAXRANK */
	int64_t shape[MAXRANK];
	unsigned seen; /* bit per key */
} Header;

static void skip_ws(Cur *c)
{
	/* Python's whitespace: space, \t \n \v \f \r */
	while (c->p < c->end && (*c->p == ' ' || (*c->p >= '\t' && *c->p <= '\r')))
		c->p++;
}

static bool peek(Cur *c, char ch)
{
	skip_ws(c);
	return c->p < c->end && *c->p == ch;
}

static bool eat(Cur *c, char ch)
{
	if (!peek(c, ch))
		return false;
	c->p++;
	return true;
}

/* A quoted string. Escapes are not decoded: no key or descr we accept has
 * one, and an escaped descr is rejected as unsupported anyway. */
static bool parse_str(Cur *c, const char **s, size_t *n)
{
	skip_ws(c);
	if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
		return false;
	char q = *c->p++;
	const char *start = c->p;
	while (c->p < c->end && *c->p != q)
		c->p++;
	if (c->p >= c->end)
		return false;
	*s = start;
	*n = (size_t)(c->p++ - start);
	return true;
}

static bool parse_word(Cur *c, const char *w)
{
	size_t n = strlen(w);
	skip_ws(c);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
		return false;
	c->p += n;
	return true;
}

/* An optionally signed decimal integer (with Python 2's 'L' suffix, which old
 * files have). 0 on success, -1 if there is none, -2 if it overflows. */
static int parse_int(Cur *c, int64_t *v)
{
	skip_ws(c);
	bool neg = c->p < c->end && *c->p == '-';
	c->p += neg;
	if (c->p >= c->end || *c->p < '0' || *c->p > '9')
		return -1;
	uint64_t x = 0;
	int rc = 0;
	for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
		unsigned d = (unsigned)(*c->p - '0');
		if (x > ((uint64_t)INT64_MAX - d) / 10)
			rc = -2;
		x = x * 10 + d;
	}
	if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
		c->p++;
	*v = neg ? -(int64_t)(x & INT64_MAX) : (int64_t)(x & INT64_MAX);
	return rc;
}

static int parse_dim(Cur *c, Header *h, const Rep *r)
{
	int64_t v;
	int rc = parse_int(c, &v);
	if (rc == -1)
		return fail(r, "bad .npy header: 'shape' is not a tuple of integers");
	if (rc == -2)
		return fail(r, "dimension too large in 'shape'");
	if (v < 0)
		return fail(r, "negative dimension %" PRId64 " in 'shape'", v);
	if (h->rank < MAXRANK)
		h->shape[h->rank] = v;
	h->rank++;
	return 0;
}

static int parse_shape(Cur *c, Header *h, const Rep *r)
{
	if (!eat(c, '('))
		return fail(r, "bad .npy header: 'shape' is not a tuple");
	while (!eat(c, ')')) {
		if (parse_dim(c, h, r) < 0)
			return -1;
		if (!eat(c, ',') && !peek(c, ')'))
			return fail(r, "bad .npy header: expected ',' or ')' in 'shape'");
	}
	if (h->rank > MAXRANK)
		return fail(r, "array has rank %d; athene supports at most %d", h->rank, MAXRANK);
	return 0;
}

static int parse_value(Cur *c, int key, Header *h, const Rep *r)
{
	switch (key) {
	case K_DESCR:
		if (peek(c, '['))
			return fail(r, "unsupported structured dtype (athene reads " READS ")");
		if (!parse_str(c, &h->descr, &h->descr_len))
			return fail(r, "bad .npy header: 'descr' is not a string");
		return 0;
	case K_FORTRAN:
		if (parse_word(c, "True"))
			h->fortran = true;
		else if (!parse_word(c, "False"))
			return fail(r, "bad .npy header: 'fortran_order' is not True or False");
		return 0;
	default:
		return parse_shape(c, h, r);
	}
}

static int parse_entry(Cur *c, Header *h, const Rep *r)
{
	const char *k;
	size_t n;
	if (!parse_str(c, &k, &n))
		return fail(r, "bad .npy header: expected a quoted key");
	char q[48];
	if (!eat(c, ':'))
		return fail(r, "bad .npy header: expected ':' after '%s'", quote(k, n, q));
	int key = 0;
	while (key < NKEYS && !(strlen(KEYS[key]) == n && memcmp(KEYS[key], k, n) == 0))
		key++;
	if (key == NKEYS)
		return fail(r, "bad .npy header: unexpected key '%s'", quote(k, n, q));
	if (h->seen & 1u << key)
		return fail(r, "bad .npy header: key '%s' appears twice", KEYS[key]);
	h->seen |= 1u << key;
	return parse_value(c, key, h, r);
}

static int parse_header(const char *s, size_t n, Header *h, const Rep *r)
{
	Cur c = {s, s + n};
	if (!eat(&c, '{'))
		return fail(r, "bad .npy header: not a dict");
	while (!eat(&c, '}')) {
		if (parse_entry(&c, h, r) < 0)
			return -1;
		if (!eat(&c, ',') && !peek(&c, '}'))
			return fail(r, "bad .npy header: expected ',' or '}'");
	}
	skip_ws(&c);
	if (c.p != c.end)
		return fail(r, "bad .npy header: unexpected text after the dict");
	for (int key = 0; key < NKEYS; key++)
		if (!(h->seen & 1u << key))
			return fail(r, "bad .npy header: no '%s' key", KEYS[key]);
	return 0;
}

/* ------------------------------------------------------------ dtype descr */

static int unsupported(const Rep *r, const char *descr, size_t n, char kind, int size)
{
	char q[48];
	if (kind == 'u' && (size == 2 || size == 4 || size == 8))
		return fail(r, "unsupported dtype '%s' (athene has no u%d; it reads " READS ")",
		            quote(descr, n, q), size * 8);
	return fail(r, "unsupported dtype '%s' (athene reads " READS ")", quote(descr, n, q));
}

/* Maps a descr such as '<f4' to a dtype, and says whether the data's byte
 * order is the opposite of the host's. '|' and '=' (and no prefix) mean the
 * host's order, which is how NumPy reads them. Any V2 is bf16: ml_dtypes
 * saves it as '<V2', and a plain .view('V2') of it as '|V2'. */
static int parse_descr(const char *s, size_t n, DType *dt, bool *swap, const Rep *r)
{
	const char *d = s, *end = s + n;
	char order = '=';
	if (d < end && memchr("<>|=", *d, 4))
		order = *d++;
	char kind = d < end ? *d++ : 0;
	int size = 0;
	if (end - d < 1 || end - d > 2)
		return unsupported(r, s, n, kind, 0);
	for (; d < end; d++) {
		if (*d < '0' || *d > '9')
			return unsupported(r, s, n, kind, 0);
		size = size * 10 + (*d - '0');
	}
	for (int t = 0; t < ATHENE_NDTYPES; t++) {
		if (dtype_info[t].npy == kind && (int)dtype_info[t].size == size) {
			*dt = (DType)t;
			*swap = size > 1 && order == (host_little() ? '>' : '<');
			return 0;
		}
	}
	return unsupported(r, s, n, kind, size);
}

/* ------------------------------------------------------------ reading */

/* Opens path for reading if it is a regular file. Opening non-blocking keeps
 * a FIFO from hanging us before we can refuse it. */
static FILE *open_regular(const Rep *r, uint64_t *size)
{
	int fd = open(r->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fail(r, "cannot open: %s", strerror(errno));
		return NULL;
	}
	struct stat st;
	FILE *f = NULL;
	if (fstat(fd, &st) != 0)
		fail(r, "cannot stat: %s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		fail(r, "not a regular file");
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(f = fdopen(fd, "rb")))
		fail(r, "cannot open: %s", strerror(errno));
	if (!f)
		close(fd);
	*size = f ? (uint64_t)st.st_size : 0;
	return f;
}

static uint32_t get_le(const unsigned char *b, int n)
{
	uint32_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

/* Reads the magic, version and header length; *hlen and *data_off tell
 * where the header ends and the data begins. */
static int read_preamble(FILE *f, uint64_t fsize, uint32_t *hlen, uint64_t *data_off,
                         const Rep *r)
{
	unsigned char b[12];
	if (fread(b, 1, 8, f) != 8 || memcmp(b, MAGIC, MAGIC_LEN) != 0)
		return fail(r, "not a .npy file (no \\x93NUMPY magic)");
	if (b[6] < 1 || b[6] > 3 || b[7] != 0)
		return fail(r, "unsupported .npy format version %d.%d (athene reads 1.0, 2.0, 3.0)",
		            b[6], b[7]);
	int lenbytes = b[6] == 1 ? 2 : 4;
	if (fread(b + 8, 1, (size_t)lenbytes, f) != (size_t)lenbytes)
		return fail(r, "truncated .npy header");
	*hlen = get_le(b + 8, lenbytes);
	*data_off = 8 + (uint64_t)lenbytes + *hlen;
	if (*hlen > MAX_HEADER)
		return fail(r, ".npy header of %" PRIu32 " bytes is too long", *hlen);
	if (*data_off > fsize)
		return fail(r, "truncated .npy header");
	return 0;
}

/* Reads and checks the header; fills everything of out but the data, and
 * says whether the data needs byte swapping and transposing. */
static int read_header(FILE *f, uint32_t hlen, Npy *out, Header *h, bool *swap, const Rep *r)
{
	char *s = malloc(hlen ? hlen : 1);
	if (!s)
		return fail(r, "cannot allocate %" PRIu32 " bytes for the .npy header", hlen);
	int rc = -1;
	if (fread(s, 1, hlen, f) != hlen)
		fail(r, "cannot read the .npy header");
	else if (parse_header(s, hlen, h, r) == 0)
		rc = parse_descr(h->descr, h->descr_len, &out->dt, swap, r);
	free(s);
	if (rc < 0)
		return -1;
	out->rank = h->rank;
	memcpy(out->shape, h->shape, sizeof out->shape);
	if (array_bytes(h->rank, h->shape, dtype_info[out->dt].size, &out->nbytes) < 0)
		return fail(r, "array too large: its shape's product overflows");
	return 0;
}

/* Reorders a Fortran-order buffer (first index fastest) into C order. */
static void fortran_to_c(char *dst, const char *src, int rank, const int64_t *shape, size_t esz)
{
	int64_t idx[MAXRANK] = {0}, fstride[MAXRANK], n = 1, off = 0;
	for (int k = 0; k < rank; k++) {
		fstride[k] = n;
		n *= shape[k];
	}
	for (int64_t i = 0; i < n; i++) {
		memcpy(dst + (size_t)i * esz, src + (size_t)off * esz, esz);
		for (int k = rank - 1; k >= 0; k--) {
			off += fstride[k];
			if (++idx[k] < shape[k])
				break;
			off -= shape[k] * fstride[k];
			idx[k] = 0;
		}
	}
}

static int read_data(FILE *f, uint64_t avail, Npy *out, bool swap, bool fortran, const Rep *r)
{
	if (out->nbytes > avail)
		return fail(r, "truncated: the header promises %zu data bytes, the file has %" PRIu64,
		            out->nbytes, avail);
	size_t esz = dtype_info[out->dt].size;
	char *raw = malloc(out->nbytes ? out->nbytes : 1);
	if (!raw)
		return fail(r, "cannot allocate %zu bytes for the data", out->nbytes);
	if (fread(raw, 1, out->nbytes, f) != out->nbytes) {
		free(raw);
		return fail(r, "cannot read the data");
	}
	if (swap)
		swap_bytes(raw, out->nbytes, esz);
	if (fortran && out->rank > 1 && out->nbytes > 0) {
		char *c = malloc(out->nbytes);
		if (!c) {
			free(raw);
			return fail(r, "cannot allocate %zu bytes for the data", out->nbytes);
		}
		fortran_to_c(c, raw, out->rank, out->shape, esz);
		free(raw);
		raw = c;
	}
	out->data = raw;
	return 0;
}

int npy_read(const char *path, Npy *out, char *err, size_t errlen)
{
	Rep r = {path, err, errlen};
	memset(out, 0, sizeof *out);
	uint64_t fsize = 0, data_off = 0;
	FILE *f = open_regular(&r, &fsize);
	if (!f)
		return -1;
	uint32_t hlen = 0;
	Header h = {0};
	bool swap = false;
	int rc = read_preamble(f, fsize, &hlen, &data_off, &r);
	if (rc == 0)
		rc = read_header(f, hlen, out, &h, &swap, &r);
	if (rc == 0)
		rc = read_data(f, fsize - data_off, out, swap, h.fortran, &r);
	fclose(f);
	if (rc < 0)
		memset(out, 0, sizeof *out);
	return rc;
}

void npy_free(Npy *a)
{
	if (!a)
		return;
	free(a->data);
	memset(a, 0, sizeof *a);
}

/* ------------------------------------------------------------ writing */

enum { HEADER_CAP = 1024 }; /* rank <= 8 keeps a header under 400 bytes */

/* The dict as np.save spells it: sorted keys, each entry followed by ", ",
 * then spaces leaving room for the first dim to grow to 21 digits. */
static size_t format_dict(char *s, DType dt, int rank, const int64_t *shape)
{
	int n = snprintf(s, HEADER_CAP, "{'descr': '%c%c%d', 'fortran_order': False, 'shape': (",
	                 dtype_info[dt].size == 1 ? '|' : '<', dtype_info[dt].npy, (int)dtype_info[dt].size);
	for (int k = 0; k < rank; k++)
		n += snprintf(s + n, HEADER_CAP - (size_t)n, k ? ", %" PRId64 : "%" PRId64, shape[k]);
	n += snprintf(s + n, HEADER_CAP - (size_t)n, "%s), }", rank == 1 ? "," : "");
	if (rank > 0) {
		int first = snprintf(NULL, 0, "%" PRId64, shape[0]);
		n += snprintf(s + n, HEADER_CAP - (size_t)n, "%*s", GROWTH_DIGITS - first, "");
	}
	return (size_t)n;
}

/* The whole header: magic, version, length, dict, then spaces and a newline
 * up to the next multiple of 64 (a full 64 when already aligned, as NumPy
 * does). Version 2.0 only when the length does not fit in 16 bits. */
static size_t format_header(unsigned char *out, DType dt, int rank, const int64_t *shape)
{
	char dict[HEADER_CAP];
	size_t dn = format_dict(dict, dt, rank, shape);
	size_t pre = 10, hlen = dn + 1;
	size_t pad = ALIGN - (pre + hlen) % ALIGN;
	if (hlen + pad > 0xffff) {
		pre = 12;
		pad = ALIGN - (pre + hlen) % ALIGN;
	}
	size_t total = hlen + pad;
	memcpy(out, MAGIC, MAGIC_LEN);
	out[6] = pre == 10 ? 1 : 2;
	out[7] = 0;
	for (size_t i = 0; i < pre - 8; i++)
		out[8 + i] = (unsigned char)(total >> (8 * i));
	memcpy(out + pre, dict, dn);
	memset(out + pre + dn, ' ', pad);
	out[pre + dn + pad] = '\n';
	return pre + total;
}

static int check_array(DType dt, int rank, const int64_t *shape, const void *data,
                       size_t *nbytes, const Rep *r)
{
	if ((int)dt < 0 || dt >= ATHENE_NDTYPES)
		return fail(r, "cannot write: invalid dtype %d", (int)dt);
	if (rank < 0 || rank > MAXRANK)
		return fail(r, "cannot write: rank %d is outside 0..%d", rank, MAXRANK);
	if (rank > 0 && !shape)
		return fail(r, "cannot write: no shape given");
	for (int k = 0; k < rank; k++)
		if (shape[k] < 0)
			return fail(r, "cannot write: negative dimension %" PRId64, shape[k]);
	if (array_bytes(rank, shape, dtype_info[dt].size, nbytes) < 0)
		return fail(r, "cannot write: the shape's product overflows");
	if (*nbytes > 0 && !data)
		return fail(r, "cannot write: no data given");
	return 0;
}

/* Writes data little-endian; on a big-endian host through a swapped copy,
 * a chunk at a time. */
static bool write_data(FILE *f, const void *data, size_t nbytes, size_t esz)
{
	if (nbytes == 0)
		return true;
	if (host_little() || esz == 1)
		return fwrite(data, 1, nbytes, f) == nbytes;
	unsigned char chunk[4096]; /* a multiple of every element size */
	for (size_t off = 0; off < nbytes; off += sizeof chunk) {
		size_t n = nbytes - off < sizeof chunk ? nbytes - off : sizeof chunk;
		memcpy(chunk, (const char *)data + off, n);
		swap_bytes(chunk, n, esz);
		if (fwrite(chunk, 1, n, f) != n)
			return false;
	}
	return true;
}

/* Creates a new file "<target>.tmp.<pid>.<i>"; O_EXCL with a retry makes
 * the name unique even between threads writing the same path. */
static int create_temp(const char *target, char *tmp, size_t cap, const Rep *r)
{
	int fd = -1;
	for (int i = 0; i < 100 && fd < 0; i++) {
		snprintf(tmp, cap, "%s.tmp.%ld.%d", target, (long)getpid(), i);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		fail(r, "cannot create a file there: %s", strerror(errno));
	return fd;
}

/* Writes header and data to fd and closes it. */
static int write_fd(int fd, const unsigned char *head, size_t hn, const void *data,
                    size_t nbytes, size_t esz, const Rep *r)
{
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		int e = errno;
		close(fd);
		return fail(r, "cannot write: %s", strerror(e));
	}
	bool ok = fwrite(head, 1, hn, f) == hn && write_data(f, data, nbytes, esz);
	int e = errno;
	if (fclose(f) != 0 && ok) {
		ok = false;
		e = errno;
	}
	return ok ? 0 : fail(r, "cannot write: %s", strerror(e));
}

/* Where one array goes: the file its path names once symbolic links are
 * followed (the way cp writes through them), and how. */
typedef struct {
	Rep r;
	char *target;      /* malloc'd */
	char *tmp;         /* regular files: the temporary beside the target */
	bool direct;       /* a FIFO or character device: written in place */
	bool exists;
	struct stat st;    /* of the target, when it exists */
	unsigned char head[HEADER_CAP];
	size_t hn, nbytes, esz;
	const void *data;
} Dest;

/* path with its symbolic links followed, as a malloc'd string; a link to a
 * missing file gives that file's path (it will be created). */
static char *follow_links(const char *path, const Rep *r)
{
	char *cur = strdup(path);
	for (int hops = 0; cur && hops < 40; hops++) {
		struct stat st;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		char link[4096];
		ssize_t n = readlink(cur, link, sizeof link - 1);
		if (n < 0 || (size_t)n >= sizeof link - 1) {
			free(cur);
			fail(r, "cannot read the symbolic link: %s", n < 0 ? strerror(errno) : "too long");
			return NULL;
		}
		link[n] = 0;
		const char *slash = strrchr(cur, '/');
		size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
		char *next = malloc(dir + (size_t)n + 1);
		if (next) {
			memcpy(next, cur, dir);
			memcpy(next + dir, link, (size_t)n + 1);
		}
		free(cur);
		cur = next;
	}
	if (cur)
		fail(r, "too many levels of symbolic links");
	else
		fail(r, "out of memory");
	free(cur);
	return NULL;
}

/* Decides how d is written: never replaces a directory or a special file. */
static int prepare(Dest *d, const char *path)
{
	if (!(d->target = follow_links(path, &d->r)))
		return -1;
	if (stat(d->target, &d->st) == 0)
		d->exists = true;
	else if (errno != ENOENT)
		return fail(&d->r, "cannot write: %s", strerror(errno));
	if (d->exists && S_ISDIR(d->st.st_mode))
		return fail(&d->r, "is a directory");
	d->direct = d->exists && (S_ISFIFO(d->st.st_mode) || S_ISCHR(d->st.st_mode));
	if (d->exists && !d->direct && !S_ISREG(d->st.st_mode))
		return fail(&d->r, "is neither a regular file, a FIFO nor a character device; refusing to replace it");
	return 0;
}

static int write_temp(Dest *d)
{
	size_t cap = strlen(d->target) + 64;
	if (!(d->tmp = malloc(cap)))
		return fail(&d->r, "out of memory");
	int fd = create_temp(d->target, d->tmp, cap, &d->r);
	if (fd < 0) {
		free(d->tmp);
		d->tmp = NULL;
		return -1;
	}
	if (d->exists) /* the file keeps its permissions, as with cp */
		(void)fchmod(fd, d->st.st_mode & 07777);
	return write_fd(fd, d->head, d->hn, d->data, d->nbytes, d->esz, &d->r);
}

static int write_direct(Dest *d)
{
	int fd = open(d->target, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(&d->r, "cannot open: %s", strerror(errno));
	return write_fd(fd, d->head, d->hn, d->data, d->nbytes, d->esz, &d->r);
}

/* Two paths naming one file would have the last write win. */
static bool same_target(const Dest *a, const Dest *b)
{
	if (a->exists && b->exists)
		return a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino;
	return !strcmp(a->target, b->target);
}

/* All or nothing: every regular file is written to a temporary beside it,
 * then the FIFOs and character devices, and only when all of that worked
 * are the temporaries renamed into place. */
static int write_all(int n, const char *const *paths, const Npy *arrays, char *err, size_t errlen)
{
	Dest *d = calloc((size_t)n + 1, sizeof *d);
	if (!d)
		return fail(&(Rep){n ? paths[0] : "", err, errlen}, "out of memory");
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		const Npy *a = &arrays[i];
		d[i].r = (Rep){paths[i], err, errlen};
		rc = check_array(a->dt, a->rank, a->shape, a->data, &d[i].nbytes, &d[i].r);
		if (!rc)
			rc = prepare(&d[i], paths[i]);
		for (int j = 0; j < i && !rc; j++)
			if (same_target(&d[i], &d[j]))
				rc = fail(&d[i].r, "is the same file as %s; each output needs a file of its own", paths[j]);
		if (rc)
			break;
		d[i].hn = format_header(d[i].head, a->dt, a->rank, a->shape);
		d[i].esz = dtype_info[a->dt].size;
		d[i].data = a->data;
	}
	for (int i = 0; i < n && !rc; i++)
		if (!d[i].direct)
			rc = write_temp(&d[i]);
	for (int i = 0; i < n && !rc; i++)
		if (d[i].direct)
			rc = write_direct(&d[i]);
	for (int i = 0; i < n && !rc; i++)
		if (d[i].tmp && rename(d[i].tmp, d[i].target) != 0)
			rc = fail(&d[i].r, "cannot rename the written file into place: %s", strerror(errno));
		else if (d[i].tmp) {
			free(d[i].tmp);
			d[i].tmp = NULL;
		}
	for (int i = 0; i < n; i++) {
		if (d[i].tmp)
			unlink(d[i].tmp);
		free(d[i].tmp);
		free(d[i].target);
	}
	free(d);
	return rc;
}

int npy_write(const char *path, DType dt, int rank, const int64_t *shape, const void *data,
              char *err, size_t errlen)
{
	Npy a = {.dt = dt, .rank = rank, .data = (void *)data};
	if (check_array(dt, rank, shape, data, &a.nbytes, &(Rep){path, err, errlen}) < 0)
		return -1;
	if (rank > 0)
		memcpy(a.shape, shape, (size_t)rank * sizeof *shape);
	return write_all(1, &path, &a, err, errlen);
}

/* ---- the public form ---- */

int athene_npy_read(const char *path, athene_array *out, char *err, size_t errlen)
{
	Npy a;
	memset(out, 0, sizeof *out);
	if (npy_read(path, &a, err, errlen))
		return -1;
	out->dtype = a.dt;
	out->rank = a.rank;
	memcpy(out->shape, a.shape, sizeof out->shape);
	out->data = a.data;
	out->nbytes = a.nbytes;
	return 0;
}

int athene_npy_write(const char *path, athene_dtype dt, int rank, const int64_t *shape, const void *data, char *err,
                     size_t errlen)
{
	return npy_write(path, dt, rank, shape, data, err, errlen);
}

int athene_npy_write_all(int n, const char *const *paths, const athene_array *arrays, char *err, size_t errlen)
{
	Npy *a = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof *a);
	if (!a)
		return fail(&(Rep){n > 0 ? paths[0] : "", err, errlen}, "out of memory");
	for (int i = 0; i < n; i++) {
		a[i].dt = arrays[i].dtype;
		a[i].rank = arrays[i].rank; /* checked before it is used */
		memcpy(a[i].shape, arrays[i].shape, sizeof a[i].shape);
		a[i].data = arrays[i].data;
	}
	int rc = n > 0 ? write_all(n, paths, a, err, errlen) : 0;
	free(a);
	return rc;
}

void athene_array_free(athene_array *a)
{
	free(a->data);
	a->data = NULL;
}
