/* Generic containers (arena, string buffer, pointer vector, hashing) and the
 * diagnostics every stage reports through. Arena memory is never freed
 * piecemeal: a context frees all of it at once. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"

static atomic_llong arena_bytes; /* held by every arena, for athene_memory_in_use */

long long athene_memory_in_use(void)
{
	return atomic_load(&arena_bytes);
}

struct Chunk {
	Chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char mem[];
};

/* Arena memory is zeroed, so every page of a block is touched: a block
 * larger than the machine's memory could only end in the OOM killer. */
static bool beyond_memory(size_t n)
{
	if (n < ((size_t)1 << 30))
		return false;
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 && n / (size_t)size >= (size_t)pages;
}

void *arena_try_alloc(Arena *a, size_t n)
{
	if (n > SIZE_MAX - 64 - sizeof(Chunk) || beyond_memory(n))
		return NULL;
	n = (n + 15) & ~(size_t)15;
	Chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		atomic_fetch_add(&arena_bytes, (long long)(sizeof *c + cap));
		c->next = a->head;
		c->used = 0;
		c->cap = cap;
		a->head = c;
	}
	void *p = c->mem + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

/* The diagnostics of the innermost protect() on this thread: running out of
 * memory inside the library is an error there, not a crash. */
static _Thread_local Diag *alloc_diag;

void *arena_alloc(Arena *a, size_t n)
{
	void *p = arena_try_alloc(a, n);
	if (!p && alloc_diag)
		error_plain(alloc_diag, "cannot allocate %zu bytes of compiler memory", n);
	if (!p)
		die("out of memory");
	return p;
}

void arena_free(Arena *a)
{
	for (Chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		atomic_fetch_sub(&arena_bytes, (long long)(sizeof *c + c->cap));
		free(c);
	}
	a->head = NULL;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	return p;
}

void *arena_dup(Arena *a, const void *p, size_t n)
{
	void *q = arena_alloc(a, n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

static _Thread_local BufLedger *ledger;

void buf_ledger_open(BufLedger *l)
{
	*l = (BufLedger){0};
	ledger = l;
}

void buf_ledger_forget(BufLedger *l, const void *block)
{
	for (int i = 0; block && i < l->n; i++)
		if (l->p[i] == block) {
			l->p[i] = l->p[--l->n];
			return;
		}
}

void buf_ledger_close(BufLedger *l, bool free_blocks)
{
	for (int i = 0; free_blocks && i < l->n; i++)
		free(l->p[i]);
	free(l->p);
	*l = (BufLedger){0};
	ledger = NULL;
}

/* A block moved by realloc: the ledger follows it; a new one joins it. */
static void ledger_moved(const void *old, void *now)
{
	for (int i = 0; old && i < ledger->n; i++)
		if (ledger->p[i] == old) {
			ledger->p[i] = now;
			return;
		}
	if (old)
		return; /* a Buf grown before the ledger opened: its owner frees it */
	if (ledger->n == ledger->cap) {
		int cap = ledger->cap ? 2 * ledger->cap : 64;
		void **p = realloc(ledger->p, (size_t)cap * sizeof *p);
		if (!p)
			die("out of memory");
		ledger->p = p;
		ledger->cap = cap;
	}
	ledger->p[ledger->n++] = now;
}

void buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s)
			die("out of memory");
		if (ledger)
			ledger_moved(b->s, s);
		b->s = s;
		b->cap = cap;
	}
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_putc(Buf *b, char c)
{
	buf_printf(b, "%c", c);
}

void buf_free(Buf *b)
{
	if (ledger)
		buf_ledger_forget(ledger, b->s);
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

const char *buf_str(Buf *b)
{
	return b->s ? b->s : "";
}

void vec_push(Arena *a, Vec *v, void *p)
{
	if (v->n == v->cap) {
		int cap = v->cap ? 2 * v->cap : 8;
		void **nv = arena_alloc(a, (size_t)cap * sizeof *nv);
		if (v->n)
			memcpy(nv, v->v, (size_t)v->n * sizeof *nv);
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = p;
}

/* FNV-1a, 64-bit. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
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

static size_t names_slot(const Names *m, const char *key)
{
	size_t i = (size_t)hash_bytes(key, strlen(key), 0) & (m->cap - 1);
	while (m->key[i] && strcmp(m->key[i], key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *names_get(const Names *m, const char *key)
{
	return m->cap ? m->val[names_slot(m, key)] : NULL;
}

void *names_add(Arena *a, Names *m, const char *key, void *val)
{
	if (m->cap) {
		size_t i = names_slot(m, key);
		if (m->key[i])
			return m->val[i];
	}
	if (2 * (m->n + 1) > m->cap) {
		Names old = *m;
		m->cap = m->cap ? 2 * m->cap : 64;
		m->key = arena_alloc(a, m->cap * sizeof *m->key);
		m->val = arena_alloc(a, m->cap * sizeof *m->val);
		for (size_t i = 0; i < old.cap; i++)
			if (old.key[i]) {
				size_t j = names_slot(m, old.key[i]);
				m->key[j] = old.key[i];
				m->val[j] = old.val[i];
			}
	}
	size_t i = names_slot(m, key);
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
	return val;
}

_Noreturn void die_at(const char *file, int line, const char *msg)
{
	fprintf(stderr, "athene: internal error at %s:%d: %s\n", file, line, msg);
	abort();
}

/* The source line containing sp, and a caret line under the span. */
static void show_source(Buf *b, const Src *src, Span sp)
{
	if (!src || sp.line <= 0)
		return;
	size_t start = (size_t)sp.off, end = (size_t)sp.off;
	while (start > 0 && src->text[start - 1] != '\n')
		start--;
	while (end < src->len && src->text[end] != '\n')
		end++;
	buf_printf(b, "%.*s\n", (int)(end - start), src->text + start);
	/* columns count characters: UTF-8 continuation bytes take no column */
	for (size_t i = start; i < (size_t)sp.off; i++)
		if (((unsigned char)src->text[i] & 0xc0) != 0x80)
			buf_putc(b, src->text[i] == '\t' ? '\t' : ' ');
	buf_putc(b, '^');
	for (int i = 1; i < sp.len && (size_t)sp.off + (size_t)i < end; i++)
		if (((unsigned char)src->text[sp.off + i] & 0xc0) != 0x80)
			buf_putc(b, '~');
	buf_putc(b, '\n');
}

static void vdiag_at(Diag *c, Span sp, const char *kind, const char *fmt, va_list ap)
{
	const Src *src = c->src;
	if (!strcmp(kind, "note")) {
		Buf *b = &c->pending;
		if (src && sp.line > 0)
			buf_printf(b, "%s:%d:%d: note: ", src->name, sp.line, sp.col);
		buf_vprintf(b, fmt, ap);
		buf_putc(b, '\n');
		show_source(b, src, sp);
		return;
	}
	if (c->nchunks < 64)
		c->chunks[c->nchunks++] = (struct DiagChunk){c->errs.len, sp.line, sp.col};
	if (src && sp.line > 0)
		buf_printf(&c->errs, "%s:%d:%d: %s: ", src->name, sp.line, sp.col, kind);
	else
		buf_printf(&c->errs, "%s: ", kind);
	buf_vprintf(&c->errs, fmt, ap);
	buf_putc(&c->errs, '\n');
	show_source(&c->errs, src, sp);
	if (c->pending.len) {
		buf_printf(&c->errs, "%s", buf_str(&c->pending));
		c->pending.len = 0;
	}
}

void sort_diagnostics(Diag *c)
{
	int n = c->nchunks;
	if (n < 2 || n == 64)
		return;
	int order[64];
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = 1; i < n; i++) /* stable insertion sort by line, col */
		for (int j = i; j > 0; j--) {
			struct DiagChunk *a = &c->chunks[order[j - 1]], *b = &c->chunks[order[j]];
			if (a->line < b->line || (a->line == b->line && a->col <= b->col))
				break;
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	Buf out = {0};
	for (int i = 0; i < n; i++) {
		size_t from = c->chunks[order[i]].start;
		size_t to = order[i] + 1 < n ? c->chunks[order[i] + 1].start : c->errs.len;
		buf_printf(&out, "%.*s", (int)(to - from), c->errs.s + from);
	}
	buf_free(&c->errs);
	c->errs = out;
	c->nchunks = 0;
}

void diag_at(Diag *c, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag_at(c, sp, "error", fmt, ap);
	va_end(ap);
	c->nerrs++;
}

void note_at(Diag *c, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag_at(c, sp, "note", fmt, ap);
	va_end(ap);
}

_Noreturn void error_at(Diag *c, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag_at(c, sp, "error", fmt, ap);
	va_end(ap);
	c->nerrs++;
	if (!c->jmp)
		die("error with no recovery point");
	longjmp(*c->jmp, 1);
}

_Noreturn void error_plain(Diag *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (c->nchunks < 64)
		c->chunks[c->nchunks++] = (struct DiagChunk){c->errs.len, 0, 0};
	buf_printf(&c->errs, "error: ");
	buf_vprintf(&c->errs, fmt, ap);
	buf_putc(&c->errs, '\n');
	va_end(ap);
	c->nerrs++;
	if (!c->jmp)
		die("error with no recovery point");
	longjmp(*c->jmp, 1);
}

void diag_clear(Diag *d)
{
	d->errs.len = 0;
	if (d->errs.s)
		d->errs.s[0] = 0;
	d->pending.len = 0;
	d->nerrs = 0;
	d->nchunks = 0;
}

void diag_free(Diag *d)
{
	buf_free(&d->errs);
	buf_free(&d->pending);
}

int protect(Diag *d, void (*fn)(void *), void *arg)
{
	jmp_buf jb, *saved = d->jmp;
	Diag *saved_alloc = alloc_diag;
	d->jmp = &jb;
	alloc_diag = d;
	if (setjmp(jb)) {
		d->jmp = saved;
		alloc_diag = saved_alloc;
		return -1;
	}
	fn(arg);
	d->jmp = saved;
	alloc_diag = saved_alloc;
	return 0;
}
