/* The public API and the pass driver. Every entry point runs its work under
 * protect(), so nothing below needs to check for failure: errors unwind to
 * the diagnostics of the context (loading), of the instance (binding,
 * compiling, explaining) or of the run.
 *
 * The passes, in order (athene -d PASS prints the IR after one):
 *   parse, check                      per kernel, at athene_load
 *   bind → inline → lower → simplify → analyse        per instance, athene_compile
 *   plan(target) → checkplan → body                    per instance and target
 *   backend: a row of the backend table (backends.c): the native executor
 *            (athene_run), the reference interpreter (ATHENE_REFERENCE), or
 *            an emitter (athene_emit)
 * drive() is the one list of the passes; api.c knows the backends only
 * through the table. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "front/front.h"
#include "oracle/oracle.h"
#include "cpu/cpu.h"
#include "pallas/pallas.h"
#include "explain.h"
#include "backends.h"

static const char *const pass_names[] = {"parse",    "check",   "bind",      "inline", "lower",
                                         "simplify", "analyse", "plan",      "checkplan", "body"};
#define KERNEL_PASSES 2 /* parse, check */
_Static_assert(sizeof pass_names / sizeof pass_names[0] == KERNEL_PASSES + NPASSES, "a name per pass");

static void pass_plan(Inst *in, int t);
static void pass_checkplan(Inst *in, int t);
static void pass_body(Inst *in, int t);

/* Is pass p due on the way to `last`? Each runs once per instance. */
static bool due(Inst *in, int p, int last)
{
	if (in->passes > p || last < p)
		return false;
	in->passes = p + 1;
	return true;
}

/* Runs the instance's passes up to `last` (P_*), for target t where they
 * depend on one. The one list of the passes, in order. */
static void drive(Inst *in, int last, int t)
{
	if (due(in, P_BIND, last)) bind_inst(in);
	if (due(in, P_INLINE, last)) inline_lets(in);
	if (due(in, P_LOWER, last)) lower_inst(in, true);
	if (due(in, P_SIMPLIFY, last)) lower_inst(in, false);
	if (due(in, P_ANALYSE, last)) analyse_inst(in);
	if (last >= P_PLAN) pass_plan(in, t);
	if (last >= P_CHECKPLAN) pass_checkplan(in, t);
	if (last >= P_BODY) pass_body(in, t);
}

/* ---- per-target passes: made once, kept by the instance ---- */

static void pass_plan(Inst *in, int t)
{
	Target buf;
	const Target *tg = target_for(target_at(t), athene_threads(), &buf);
	if (!in->plan[t] || in->plan_threads[t] != tg->threads) {
		in->plan[t] = plan_inst(in, tg);
		in->plan_threads[t] = tg->threads;
		in->plan_checked[t] = false;
	}
}

static void pass_checkplan(Inst *in, int t)
{
	Buf err = {0};
	const Plan *p = in->plan[t];
	if (in->plan_checked[t])
		return;
	in->plan_checked[t] = true;
	if (plan_check(p, &err) || (p->tg->tiles && plan_check_tiles(p, &err))) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", buf_str(&err));
		buf_free(&err);
		error_plain(&in->diag, "internal: the %s plan of kernel %s is wrong: %s", p->tg->name, in->k->name, msg);
	}
	buf_free(&err);
}

static void pass_body(Inst *in, int t)
{
	(void)t;
	if (in->prog)
		return;
	in->prog = arena_alloc(&in->arena, (size_t)(in->nplanned + 1) * sizeof *in->prog);
	in->run_state = arena_alloc(&in->arena, (size_t)(in->nplanned + 2) * sizeof *in->run_state);
	for (int i = 0; i <= in->nplanned + 1; i++)
		atomic_init(&in->run_state[i], NULL);
	for (int i = 0; i < in->nplanned; i++)
		in->prog[i] = body_build(in, &in->planned[i]);
}

/* ---- contexts ---- */

static atomic_int live_contexts; /* the thread pool stops with the last one */

athene_ctx *athene_create(void)
{
	athene_ctx *c = calloc(1, sizeof(athene_ctx));
	if (c)
		atomic_fetch_add(&live_contexts, 1);
	return c;
}

void athene_destroy(athene_ctx *c)
{
	if (!c)
		return;
	while (c->insts)
		athene_instance_free(c->insts);
	arena_free(&c->arena);
	diag_free(&c->diag);
	free(c);
	if (atomic_fetch_sub(&live_contexts, 1) == 1)
		pool_shutdown(); /* started again by the next run */
}

const char *athene_errors(const athene_ctx *c)
{
	return buf_str((Buf *)&c->diag.errs);
}

/* A kernel without size symbols is compiled at once, so that its range
 * errors show up at load (and in `athene check`). */
static void check_now(void *arg)
{
	Kernel *k = arg;
	check_kernel(k);
}

static int load_kernel(Kernel *k)
{
	Ctx *c = k->ctx;
	if (names_get(&c->names, k->name)) {
		diag_at(&c->diag, k->sp, "a kernel named '%s' already exists", k->name);
		return -1;
	}
	if (protect(&c->diag, check_now, k))
		return -1;
	if (k->nsyms)
		return 0;
	athene_inst *in = athene_instance(k);
	if (!in)
		return -1;
	int rc = athene_compile(in);
	if (rc)
		buf_printf(&c->diag.errs, "%s", buf_str(&in->diag.errs));
	c->diag.nerrs += rc != 0;
	athene_instance_free(in);
	return rc;
}

int athene_load(athene_ctx *c, const char *filename, const char *source)
{
	diag_clear(&c->diag);
	Src *src = arena_alloc(&c->arena, sizeof *src);
	src->name = arena_strndup(&c->arena, filename, strlen(filename));
	src->len = strlen(source);
	src->text = arena_strndup(&c->arena, source, src->len);
	int first = c->kernels.n;
	parse_file(c, src);
	int keep = first;
	for (int i = first; i < c->kernels.n; i++) {
		Kernel *k = c->kernels.v[i];
		c->kernels.v[keep++] = k;
		if (load_kernel(k))
			keep--;
		else
			names_add(&c->arena, &c->names, k->name, k);
	}
	c->kernels.n = keep;
	sort_diagnostics(&c->diag);
	return c->diag.nerrs ? -1 : 0;
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

/* ---- kernels ---- */

static const Tensor *param(const athene_kernel *k, int i)
{
	return i >= 0 && i < k->params.n ? k->params.v[i] : NULL;
}

const char *athene_kernel_name(const athene_kernel *k) { return k->name; }
int athene_kernel_nparams(const athene_kernel *k) { return k->params.n; }
int athene_kernel_ninputs(const athene_kernel *k) { return k->nin; }
int athene_size_count(const athene_kernel *k) { return k->nsyms; }
int athene_size_index(const athene_kernel *k, const char *name) { return find_sym(k, name); }

const char *athene_size_name(const athene_kernel *k, int s)
{
	return s >= 0 && s < k->nsyms ? k->syms[s].name : NULL;
}

const char *athene_param_name(const athene_kernel *k, int i)
{
	return param(k, i) ? param(k, i)->name : NULL;
}

athene_dtype athene_param_dtype(const athene_kernel *k, int i)
{
	return param(k, i) ? param(k, i)->dt : ATHENE_NDTYPES;
}

int athene_param_rank(const athene_kernel *k, int i)
{
	return param(k, i) ? param(k, i)->rank : -1;
}

int athene_param_dim_sym(const athene_kernel *k, int i, int d)
{
	const Tensor *t = param(k, i);
	return t && d >= 0 && d < t->rank ? t->dims[d].sym : -1;
}

int athene_param_declares_layout(const athene_kernel *k, int i)
{
	const Tensor *t = param(k, i);
	return t && (t->has_strides || t->offset_ex);
}

int athene_param_index(const athene_kernel *k, const char *name)
{
	for (int i = 0; i < k->params.n; i++)
		if (!strcmp(((Tensor *)k->params.v[i])->name, name))
			return i;
	return -1;
}

const char *athene_kernel_dump(athene_kernel *k, const char *pass)
{
	static _Thread_local Buf b;
	b.len = 0;
	if (strcmp(pass, "parse") && strcmp(pass, "check"))
		return NULL;
	ast_print_kernel(&b, k, pass[0] == 'c');
	return buf_str(&b);
}

/* ---- instances ---- */

athene_inst *athene_instance(athene_kernel *k)
{
	Inst *in = calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->k = k;
	in->ctx = k->ctx;
	in->diag.src = k->src;
	int nt = k->params.n + k->lets.n;
	in->size = arena_try_alloc(&in->arena, (size_t)(k->nsyms + 1) * sizeof *in->size);
	in->bound = arena_try_alloc(&in->arena, (size_t)(k->nsyms + 1) * sizeof *in->bound);
	in->from = arena_try_alloc(&in->arena, (size_t)(k->nsyms + 1) * sizeof *in->from);
	in->lay = arena_try_alloc(&in->arena, (size_t)(nt + 1) * sizeof *in->lay);
	in->given = arena_try_alloc(&in->arena, (size_t)(k->params.n + 1) * sizeof *in->given);
	in->n = arena_try_alloc(&in->arena, (size_t)(k->vars.n + 1) * sizeof *in->n);
	if (!in->size || !in->bound || !in->from || !in->lay || !in->given || !in->n) {
		arena_free(&in->arena);
		free(in);
		return NULL;
	}
	in->next = in->ctx->insts;
	if (in->next)
		in->next->prev = in;
	in->ctx->insts = in;
	return in;
}

void athene_instance_free(athene_inst *in)
{
	if (!in)
		return;
	if (in->prev)
		in->prev->next = in->next;
	else
		in->ctx->insts = in->next;
	if (in->next)
		in->next->prev = in->prev;
	if (in->run_state && backend_native()->release)
		backend_native()->release(in);
	arena_free(&in->arena);
	diag_free(&in->diag);
	buf_free(&in->text);
	free(in);
}

athene_kernel *athene_instance_kernel(const athene_inst *in) { return in->k; }

const char *athene_inst_errors(const athene_inst *in)
{
	return buf_str((Buf *)&in->diag.errs);
}

/* A call that changes the binding: only before the passes have run. */
static int rebinding(Inst *in)
{
	diag_clear(&in->diag);
	if (!in->passes)
		return 0;
	buf_printf(&in->diag.errs, "error: instance of kernel %s is already compiled; bind a new instance\n", in->k->name);
	return -1;
}

typedef struct {
	Inst *in;
	int sym, param, rank;
	int64_t value, offset;
	const int64_t *vals;
	const char *from;
} BindCall;

static void do_bind_size(void *arg)
{
	BindCall *b = arg;
	char from[96];
	if (b->from)
		snprintf(from, sizeof from, "%s", b->from);
	else
		snprintf(from, sizeof from, "%s=%lld", b->in->k->syms[b->sym].name, (long long)b->value);
	bind_size(b->in, b->sym, b->value, from);
}

int athene_bind_size(athene_inst *in, const char *sym, int64_t value)
{
	return athene_bind_size_from(in, sym, value, NULL);
}

int athene_bind_size_from(athene_inst *in, const char *sym, int64_t value, const char *from)
{
	if (rebinding(in))
		return -1;
	BindCall b = {in, find_sym(in->k, sym), 0, 0, value, 0, NULL, from};
	if (b.sym < 0) {
		buf_printf(&in->diag.errs, "error: kernel %s has no size symbol '%s'\n", in->k->name, sym);
		return -1;
	}
	return protect(&in->diag, do_bind_size, &b);
}

static void do_bind_shape(void *arg)
{
	BindCall *b = arg;
	bind_shape(b->in, b->in->k->params.v[b->param], b->rank, b->vals);
}

int athene_bind_shape(athene_inst *in, int p, int rank, const int64_t *shape)
{
	if (rebinding(in))
		return -1;
	if (!param(in->k, p) || rank < 0 || rank > MAXRANK) {
		buf_printf(&in->diag.errs, "error: kernel %s has no parameter %d, or rank %d is not 0..%d\n", in->k->name, p,
		           rank, MAXRANK);
		return -1;
	}
	BindCall b = {in, 0, p, rank, 0, 0, shape, NULL};
	return protect(&in->diag, do_bind_shape, &b);
}

static void do_bind_layout(void *arg)
{
	BindCall *b = arg;
	bind_layout(b->in, b->in->k->params.v[b->param], b->vals, b->offset);
}

int athene_bind_layout(athene_inst *in, int p, const int64_t *strides, int64_t offset)
{
	if (rebinding(in))
		return -1;
	if (!param(in->k, p)) {
		buf_printf(&in->diag.errs, "error: kernel %s has no parameter %d\n", in->k->name, p);
		return -1;
	}
	BindCall b = {in, 0, p, 0, 0, offset, strides, NULL};
	return protect(&in->diag, do_bind_layout, &b);
}

int athene_size_value(const athene_inst *in, int s, int64_t *value)
{
	if (s < 0 || s >= in->k->nsyms || !in->bound[s])
		return -1;
	*value = in->size[s];
	return 0;
}

typedef struct {
	Inst *in;
	int last, target;
} PassCall;

static void do_passes(void *arg)
{
	PassCall *pc = arg;
	drive(pc->in, pc->last, pc->target);
}

/* Runs the passes to `last` (for the target with that id, -1 when last
 * comes before the per-target passes); a failed instance stays failed. */
static int passes(Inst *in, int last, int target)
{
	diag_clear(&in->diag);
	if (in->passes < 0) {
		buf_printf(&in->diag.errs, "error: instance of kernel %s failed to compile; bind a new instance\n",
		           in->k->name);
		return -1;
	}
	PassCall pc = {in, last, target};
	if (protect(&in->diag, do_passes, &pc)) {
		if (in->passes <= P_ANALYSE + 1)
			in->passes = -1; /* the instance's own passes failed */
		return -1;
	}
	return 0;
}

int athene_compile(athene_inst *in)
{
	return passes(in, P_ANALYSE, -1);
}

int athene_param_info(const athene_inst *in, int i, athene_param *out)
{
	const Tensor *t = param(in->k, i);
	if (!t || in->passes <= P_BIND)
		return -1;
	const Layout *l = tensor_layout(in, t);
	memset(out, 0, sizeof *out);
	out->name = t->name;
	out->dtype = t->dt;
	out->is_output = t->role != ROLE_OUT ? 0 : t->def && t->def->at ? 2 : 1;
	out->rank = t->rank;
	memcpy(out->shape, l->shape, sizeof out->shape);
	memcpy(out->strides, l->strides, sizeof out->strides);
	out->offset = l->offset;
	out->storage_elems = l->storage;
	return 0;
}

int athene_index_range(const athene_inst *in, int param_i, int64_t *lo, int64_t *hi)
{
	const Tensor *p = param(in->k, param_i);
	if (!p || in->passes <= P_SIMPLIFY)
		return -1;
	return lower_index_range(in, p, lo, hi);
}

/* Distinct input elements an access reads: the view's moving digits, at
 * most the storage. */
static double read_elems(const Inst *in, const Access *ac)
{
	const View *v = &ac->view;
	double n = 1;
	int64_t storage = tensor_layout(in, ac->t)->storage;
	if (v->cls == VIEW_ELEM)
		return (double)storage;
	for (int d = 0; d < v->ndig; d++)
		if (v->dig[d].axis >= 0)
			n *= (double)v->dig[d].n;
	return n < (double)storage ? n : (double)storage;
}

double athene_bytes_moved(athene_inst *in, double *lines)
{
	double logical = 0, touched = 0;
	if (passes(in, P_ANALYSE, -1))
		return -1;
	for (int p = 0; p < in->nplanned; p++) {
		const Planned *ps = &in->planned[p];
		double points = 1;
		for (int d = 0; d < ps->stmt->nlhs; d++)
			points *= (double)in->n[ps->stmt->lhs[d]->id];
		for (int j = 0; j < ps->acc.n; j++) {
			const Access *ac = ps->acc.v[j];
			double es = (double)athene_dtype_size(ac->t->dt), n, used = 1;
			if (ac->t->role == ROLE_LET)
				continue; /* intermediates: not what the kernel moves */
			if (!ac->load) {
				logical += points * es;
				touched += points * es;
				continue;
			}
			n = read_elems(in, ac);
			if (ac->view.ngat) { /* a gather: as many rows as output points at most */
				double storage = (double)tensor_layout(in, ac->t)->storage;
				n = storage < points ? storage : points;
			}
			/* the innermost moving axis's stride says how much of each line is used */
			int64_t inner = 0;
			for (int a = 0; a < ac->view.naxes && ac->view.cls != VIEW_ELEM; a++)
				if (ac->view.ax[a].kind == VA_ITER)
					inner = ac->view.ax[a].stride;
			if (inner > 1 && (double)inner * es < 64)
				used = 1.0 / (double)inner;
			logical += n * es;
			touched += n * es / used;
		}
	}
	if (lines)
		*lines = touched;
	return logical;
}

static int target_index(Inst *in, const char *target)
{
	const Target *t = target_named(target);
	if (!t) {
		diag_clear(&in->diag);
		buf_printf(&in->diag.errs, "error: unknown target '%s' (", target);
		target_names(&in->diag.errs);
		buf_printf(&in->diag.errs, ")\n");
	}
	return t ? t->id : -1;
}

const char *athene_target_name(int i)
{
	const Target *t = target_at(i);
	return t ? t->name : NULL;
}

const char *athene_explain(athene_inst *in, const char *target, int json)
{
	int t = target_index(in, target);
	if (t < 0 || passes(in, P_CHECKPLAN, t))
		return NULL;
	in->text.len = 0;
	explain_plan(&in->text, in->plan[t], json);
	return buf_str(&in->text);
}

/* ---- emitting: one module for several instances (pallas/) ---- */

typedef struct {
	Buf *kernels;
	unsigned *needs;
	Inst *in;
	const Backend *be;
	Arena *scratch;
} EmitCall;

static void do_emit(void *arg)
{
	EmitCall *c = arg;
	c->be->emit_kernel(c->kernels, c->needs, c->in, c->in->plan[c->be->target->id], c->be->variant, c->scratch);
}

const char *athene_emit(athene_inst *const *ins, int n, const char *target, const char *chip)
{
	if (n < 1)
		return NULL;
	Inst *first = ins[0];
	const Backend *be = backend_named(target);
	diag_clear(&first->diag);
	if (!be || !be->emit_kernel) {
		buf_printf(&first->diag.errs, "error: unknown emit target '%s' (", target);
		emit_backend_names(&first->diag.errs);
		buf_printf(&first->diag.errs, ")\n");
		return NULL;
	}
	if (chip && !backend_chip_ok(be, chip)) {
		buf_printf(&first->diag.errs, "error: unknown TPU chip '%s' (", chip);
		for (int i = 0; be->chips && be->chips[i]; i++)
			buf_printf(&first->diag.errs, "%s%s", i ? ", " : "", be->chips[i]);
		buf_printf(&first->diag.errs, ")\n");
		return NULL;
	}
	Buf kernels = {0};
	unsigned needs = 0;
	for (int i = 0; i < n; i++) {
		Arena scratch = {0};
		EmitCall c = {&kernels, &needs, ins[i], be, &scratch};
		int failed = passes(ins[i], P_BODY, be->target->id);
		if (!failed) {
			/* a refusal unwinds past the emitter's buffers: the ledger frees them */
			BufLedger led;
			buf_ledger_open(&led);
			failed = protect(&ins[i]->diag, do_emit, &c);
			buf_ledger_forget(&led, kernels.s);
			buf_ledger_forget(&led, ins[i]->diag.errs.s);
			buf_ledger_forget(&led, ins[i]->diag.pending.s);
			buf_ledger_close(&led, failed);
		}
		arena_free(&scratch);
		if (failed) {
			if (ins[i] != first)
				buf_printf(&first->diag.errs, "%s", athene_inst_errors(ins[i]));
			buf_free(&kernels);
			return NULL;
		}
	}
	first->text.len = 0;
	be->emit_module(&first->text, first->k->src->name, be->name, chip, needs, buf_str(&kernels));
	buf_free(&kernels);
	return buf_str(&first->text);
}

const char *athene_pass_name(int i)
{
	return i >= 0 && i < (int)(sizeof pass_names / sizeof pass_names[0]) ? pass_names[i] : NULL;
}

const char *athene_dump(athene_inst *in, const char *pass, const char *target)
{
	int p = -1, t = target_index(in, target ? target : "cpu");
	for (int i = KERNEL_PASSES; athene_pass_name(i); i++)
		if (!strcmp(pass, athene_pass_name(i)))
			p = i - KERNEL_PASSES;
	if (p < 0) {
		if (athene_kernel_dump(in->k, pass))
			return athene_kernel_dump(in->k, pass);
		diag_clear(&in->diag);
		buf_printf(&in->diag.errs, "error: unknown pass '%s'\n", pass);
		return NULL;
	}
	if (t < 0 || passes(in, p, t))
		return NULL;
	Buf *b = &in->text;
	b->len = 0;
	switch (p) {
	case P_BIND: explain_bind(b, in); break;
	case P_INLINE: explain_inline(b, in); break;
	case P_LOWER: explain_offsets(b, in, true); break;
	case P_SIMPLIFY: explain_offsets(b, in, false); break;
	case P_ANALYSE: explain_views(b, in); break;
	case P_PLAN: explain_plan(b, in->plan[t], false); break;
	case P_CHECKPLAN: buf_printf(b, "kernel %s: the %s plan checks\n", in->k->name, in->plan[t]->tg->name); break;
	case P_BODY:
		buf_printf(b, "kernel %s\n", in->k->name);
		for (int i = 0; i < in->nplanned; i++) {
			buf_printf(b, "  %s\n", in->planned[i].stmt->t->name);
			body_print(b, in->prog[i]);
		}
		break;
	}
	return buf_str(b);
}

/* ---- running ---- */

typedef struct {
	Inst *in;
	void *const *storage;
	Diag *d;
	int flags;
	Arena scratch;
} RunCall;

static void do_run(void *arg)
{
	RunCall *r = arg;
	interp_run(r->in, r->storage, r->d, &r->scratch);
}

static void do_exec(void *arg)
{
	RunCall *r = arg;
	backend_native()->run(r->in, r->storage, r->d, r->flags & ATHENE_UNTOUCHED);
}

/* The status of a call that has not failed (no memset: the message is 2 KiB
 * and a run of a small kernel costs less than clearing it). */
static void status_clear(athene_status *st)
{
	if (st) {
		st->failed = 0;
		st->message[0] = 0;
	}
}

static int status_fail(athene_status *st, const char *msg)
{
	if (st) {
		st->failed = 1;
		snprintf(st->message, sizeof st->message, "%s", msg);
	}
	return -1;
}

/* The run of an instance whose passes are done. */
static int run_passed(athene_inst *in, void *const *storage, int flags, athene_status *st)
{
	Diag d = {.src = in->k->src};
	RunCall r = {in, storage, &d, flags, {0}};
	int rc = protect(&d, flags & ATHENE_REFERENCE ? do_run : do_exec, &r);
	arena_free(&r.scratch);
	if (rc)
		status_fail(st, buf_str(&d.errs));
	diag_free(&d);
	return rc;
}

static int run_passes(athene_inst *in, int flags, athene_status *st)
{
	status_clear(st);
	if (passes(in, flags & ATHENE_REFERENCE ? P_ANALYSE : P_BODY, backend_native()->target->id))
		return status_fail(st, athene_inst_errors(in));
	return 0;
}

int athene_run(athene_inst *in, void *const *storage, int flags, athene_status *st)
{
	if (run_passes(in, flags, st))
		return -1;
	return run_passed(in, storage, flags, st);
}

int athene_run_checked(athene_inst *in, void *const *storage, const int64_t *storage_elems, int flags,
                       athene_status *st)
{
	if (run_passes(in, flags, st))
		return -1;
	for (int i = 0; i < in->k->params.n; i++) {
		const Tensor *t = param(in->k, i);
		int64_t reach = tensor_layout(in, t)->storage;
		if (reach <= 0 || (storage[i] && storage_elems[i] >= reach))
			continue;
		if (st) {
			st->failed = 1;
			snprintf(st->message, sizeof st->message,
			         "kernel %s: the storage given for '%s' has %lld elements%s; its layout reaches %lld",
			         in->k->name, t->name, (long long)storage_elems[i], storage[i] ? "" : " at NULL",
			         (long long)reach);
		}
		return -2;
	}
	return run_passed(in, storage, flags, st);
}

int athene_inst_clean_errors(athene_inst *in)
{
	const Backend *be = backend_native();
	return !passes(in, P_BODY, be->target->id) && be->clean_errors(in);
}

void *athene_alloc(size_t bytes)
{
	return big_alloc(bytes ? bytes : 1);
}

void athene_free(void *p, size_t bytes)
{
	if (p)
		big_free(p, bytes ? bytes : 1);
}

static atomic_int threads;

void athene_set_threads(int n)
{
	atomic_store(&threads, n > 0 ? n : 0);
	pool_set_threads(n > 0 ? n : 0);
}

void athene_set_team(void *gomp_parallel)
{
	pool_set_team(gomp_parallel);
}

long long athene_team_runs(void)
{
	return (long long)pool_team_runs();
}

long long athene_wait_compiled(void)
{
	jit_wait();
	return (long long)jit_ran();
}

int athene_threads(void)
{
	int n = atomic_load(&threads);
	return n > 0 ? n : pool_threads();
}
