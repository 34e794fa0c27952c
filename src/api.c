/* The public API: every entry point sets the recovery point that errors
 * unwind to, so nothing below it needs to check for failure. The driver
 * order of the passes is in athene_load and athene_compile:
 *   parse -> check -> bind -> lower -> simplify -> (run) */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Runs body with a recovery point; evaluates to 0, or -1 after an error. */
#define GUARDED(c, body)                      \
	do {                                  \
		jmp_buf jb_, *saved_ = (c)->jmp;  \
		(c)->jmp = &jb_;                  \
		if (setjmp(jb_)) {                \
			(c)->jmp = saved_;            \
			return -1;                    \
		}                                 \
		body;                             \
		(c)->jmp = saved_;                \
	} while (0)

athene_ctx *athene_create(void)
{
	return calloc(1, sizeof(athene_ctx));
}

void athene_destroy(athene_ctx *c)
{
	if (!c)
		return;
	arena_free(&c->arena);
	buf_free(&c->errs);
	buf_free(&c->pending);
	buf_free(&c->dump);
	free(c);
}

const char *athene_errors(const athene_ctx *c)
{
	return c->errs.s ? c->errs.s : "";
}

static void clear_errors(Ctx *c)
{
	c->errs.len = 0;
	if (c->errs.s)
		c->errs.s[0] = 0;
	c->nerrs = 0;
	c->nchunks = 0;
	c->pending.len = 0;
}

static int compile(Kernel *k)
{
	Ctx *c = k->ctx;
	c->src = k->src;
	GUARDED(c, {
		bind_kernel(k);
		lower_kernel(k);
	});
	k->state = KS_COMPILED;
	return 0;
}

/* Checks one kernel; kernels without size symbols are compiled at once so
 * that range errors show up in `athene check`. */
static int load_kernel(Kernel *k)
{
	Ctx *c = k->ctx;
	for (int i = 0; i < c->kernels.n; i++) {
		Kernel *o = c->kernels.v[i];
		if (o != k && !strcmp(o->name, k->name) && o->state >= KS_CHECKED) {
			diag_at(c, k->sp, "a kernel named '%s' already exists", k->name);
			return -1;
		}
	}
	GUARDED(c, check_kernel(k));
	if (k->nsyms == 0 && compile(k))
		return -1;
	return 0;
}

int athene_load(athene_ctx *c, const char *filename, const char *source)
{
	clear_errors(c);
	Src *src = arena_alloc(&c->arena, sizeof *src);
	src->name = arena_strndup(&c->arena, filename, strlen(filename));
	src->len = strlen(source);
	src->text = arena_strndup(&c->arena, source, src->len);
	int first = c->kernels.n;
	parse_file(c, src);
	int keep = first;
	for (int i = first; i < c->kernels.n; i++) {
		Kernel *k = c->kernels.v[i];
		if (!load_kernel(k))
			c->kernels.v[keep++] = k;
	}
	c->kernels.n = keep;
	sort_diagnostics(c);
	return c->nerrs ? -1 : 0;
}

int athene_kernel_count(const athene_ctx *c) { return c->kernels.n; }

athene_kernel *athene_kernel_at(athene_ctx *c, int i)
{
	return i >= 0 && i < c->kernels.n ? c->kernels.v[i] : NULL;
}

athene_kernel *athene_find_kernel(athene_ctx *c, const char *name)
{
	for (int i = 0; i < c->kernels.n; i++)
		if (!strcmp(((Kernel *)c->kernels.v[i])->name, name))
			return c->kernels.v[i];
	return NULL;
}

const char *athene_kernel_name(const athene_kernel *k) { return k->name; }
int athene_kernel_nparams(const athene_kernel *k) { return k->params.n; }
int athene_kernel_ninputs(const athene_kernel *k) { return k->nin; }

const char *athene_param_name(const athene_kernel *k, int i)
{
	return i >= 0 && i < k->params.n ? ((Tensor *)k->params.v[i])->name : NULL;
}

int athene_param_index(const athene_kernel *k, const char *name)
{
	for (int i = 0; i < k->params.n; i++)
		if (!strcmp(((Tensor *)k->params.v[i])->name, name))
			return i;
	return -1;
}

int athene_bind_size(athene_kernel *k, const char *sym, int64_t value)
{
	Ctx *c = k->ctx;
	clear_errors(c);
	c->src = k->src;
	GUARDED(c, {
		int s = find_sym(k, sym);
		if (s < 0)
			error_plain(c, "kernel %s has no size symbol '%s'", k->name, sym);
		char from[96];
		snprintf(from, sizeof from, "--size %s=%lld", sym, (long long)value);
		if (!k->syms[s].bound || k->syms[s].val != value)
			k->state = KS_CHECKED;
		bind_size(k, s, value, from);
	});
	return 0;
}

int athene_bind_shape(athene_kernel *k, int param, int rank, const int64_t *shape)
{
	Ctx *c = k->ctx;
	clear_errors(c);
	c->src = k->src;
	if (param < 0 || param >= k->params.n)
		return -1;
	GUARDED(c, bind_shape(k, k->params.v[param], rank, shape));
	if (k->nsyms)
		k->state = KS_CHECKED;
	return 0;
}

void athene_unbind(athene_kernel *k)
{
	for (int i = 0; i < k->nsyms; i++)
		k->syms[i].bound = false;
	if (k->nsyms)
		k->state = KS_CHECKED;
}

int athene_compile(athene_kernel *k)
{
	clear_errors(k->ctx);
	return k->state == KS_COMPILED ? 0 : compile(k);
}

int athene_param_info(const athene_kernel *k, int i, athene_param *out)
{
	if (i < 0 || i >= k->params.n || k->state != KS_COMPILED)
		return -1;
	const Tensor *t = k->params.v[i];
	memset(out, 0, sizeof *out);
	out->name = t->name;
	out->dtype = t->dt;
	out->is_output = t->role == ROLE_OUT;
	out->rank = t->rank;
	memcpy(out->shape, t->shape, sizeof out->shape);
	memcpy(out->strides, t->strides, sizeof out->strides);
	out->offset = t->offset;
	out->storage_elems = t->storage;
	return 0;
}

int athene_run(athene_kernel *k, void *const *storage, int mode)
{
	Ctx *c = k->ctx;
	clear_errors(c);
	c->src = k->src;
	if (k->state != KS_COMPILED && compile(k))
		return -1;
	(void)mode; /* the reference interpreter is the only executor so far */
	GUARDED(c, interp_run(k, storage));
	return 0;
}

const char *athene_dump(athene_kernel *k, const char *pass)
{
	Buf *b = &k->ctx->dump;
	b->len = 0;
	if (!strcmp(pass, "parse") || !strcmp(pass, "check"))
		dump_kernel(b, k, pass[0] == 'c');
	else if ((!strcmp(pass, "lower") || !strcmp(pass, "simplify")) && k->state == KS_COMPILED)
		dump_lowered(b, k, pass[0] == 's');
	else
		return NULL;
	return buf_str(b);
}

/* The values a of `param` that keep c·a + rest inside the storage of a flat
 * load x.flat[c*idx[s] + rest] (rest free of data). */
static bool flat_range(const Kernel *k, const Node *n, const Tensor *p, int64_t *lo, int64_t *hi)
{
	const Sym *e = k->load_off[n->load_id];
	for (int j = 0; e->kind == S_ADD && j < e->n; j++) {
		const Node *pl = e->a[j]->kind == S_ATOM ? e->a[j]->p : NULL;
		if (pl && pl->kind == N_LOAD && pl->t == p)
			return sym_term_range(e, j, n->t->storage - 1, lo, hi);
	}
	return false;
}

/* Which values of an integer input are valid as indices: the intersection
 * over its uses as a whole subscript, x[idx[s]] (then [0, n)) or
 * x[wrap(idx[s], n)] (then [-n, n)), and as a term of a flat offset.
 * Returns 0 when it is used so. */
int athene_index_range(const athene_kernel *k, int param, int64_t *lo, int64_t *hi)
{
	bool found = false;
	if (param < 0 || param >= k->params.n || k->state != KS_COMPILED)
		return -1;
	const Tensor *p = k->params.v[param];
	int64_t rlo = INT64_MIN, rhi = INT64_MAX;
	for (int i = 0; i < k->loads.n; i++) {
		const Node *n = k->loads.v[i];
		int64_t l, h;
		if (n->kind == N_FLAT && flat_range(k, n, p, &l, &h)) {
			rlo = l > rlo ? l : rlo;
			rhi = h < rhi ? h : rhi;
			found = true;
		}
		for (int d = 0; d < n->nargs && n->kind == N_LOAD; d++) {
			const Node *s = n->args[d];
			bool wrap = s->kind == N_OP && s->op == OP_WRAP;
			const Node *inner = wrap ? s->args[0] : s;
			if (inner->kind != N_LOAD || inner->t != p)
				continue;
			int64_t ext = n->t->shape[d], l = wrap ? -ext : 0, h = ext - 1;
			rlo = l > rlo ? l : rlo;
			rhi = h < rhi ? h : rhi;
			found = true;
		}
	}
	if (found) {
		*lo = rlo;
		*hi = rhi;
	}
	return found ? 0 : -1;
}

const char *athene_explain(athene_kernel *k, const char *target, int json)
{
	Ctx *c = k->ctx;
	clear_errors(c);
	c->src = k->src;
	int t = !strcmp(target, "cpu") ? TARGET_CPU : !strcmp(target, "tpu") ? TARGET_TPU : -1;
	if (t < 0) {
		buf_printf(&c->errs, "error: unknown target '%s' (cpu, tpu)\n", target);
		return NULL;
	}
	if (k->state != KS_COMPILED && compile(k))
		return NULL;
	Plan *p = plan_kernel(k, t);
#ifndef NDEBUG
	Buf err = {0};
	if (plan_check(p, &err) || (t == TARGET_TPU && plan_check_tpu(p, &err))) {
		buf_printf(&c->errs, "error: internal: the plan of kernel %s is wrong: %s", k->name, buf_str(&err));
		buf_free(&err);
		return NULL;
	}
	buf_free(&err);
#endif
	Buf *b = &c->dump;
	b->len = 0;
	plan_explain(b, p, json);
	return buf_str(b);
}
