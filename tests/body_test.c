/* Body IR test: every kernel of the given files is run twice on the same
 * random inputs, by the reference interpreter (from the checked AST) and by
 * a scalar evaluator of the body IR (each planned statement's Prog, its
 * loads through the accesses' composed offsets, fused lets expanded,
 * materialised lets in their own buffers), and a third time by the native
 * executor. The outputs must agree bit for bit, a run-time error in one
 * must be the same error in the others, and no input may change. This proves
 * the IR's promotion, casts, guards and reductions, and the offsets of
 * fused accesses, against the language's definition.
 *   body_test [SYM=INT]... FILE...   (unbound size symbols default to 64) */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "testlib.h"

static long passed, failed, big;

/* Kernels that move more elements than this are left to the pytest suite
 * (their scaled-down twins in the examples have the same index structure):
 * two scalar runs of them would take minutes. */
#define MAX_ELEMS (1 << 21)

typedef struct {
	const Inst *in;
	const Prog *p;
	const Planned *ps;
	void *const *storage;
	void **lets;
	int64_t *env; /* per variable */
	Val *reg;
	const Ins *load; /* the load whose offset is being evaluated */
	bool bad;        /* a gathered index out of range */
} Vm;

static void *base_of(Vm *vm, const Tensor *t)
{
	return t->role == ROLE_LET ? vm->lets[t->index] : vm->storage[t->index];
}

static int leaf(void *env, const Sym *s, int64_t *out)
{
	Vm *vm = env;
	if (s->kind == S_VAR) {
		*out = vm->env[((const Var *)s->p)->id];
		return SYM_OK;
	}
	for (int i = 0; i < vm->load->natoms; i++)
		if (vm->load->atom[i] == s) {
			*out = vm->reg[vm->load->atom_reg[i]].i;
			if (*out < s->lo || *out > s->hi)
				vm->bad = true;
			return SYM_OK;
		}
	return SYM_EOVF;
}

static Val load(Vm *vm, const Ins *x)
{
	const Access *ac = vm->ps->acc.v[x->operand];
	int64_t off;
	vm->load = x;
	if (sym_eval(ac->off, leaf, vm, &off) || off < 0 || off >= tensor_layout(vm->in, ac->t)->storage) {
		vm->bad = true;
		return (Val){0};
	}
	const void *b = base_of(vm, ac->t);
	return dt_is_float(ac->t->dt) ? (Val){.f = dt_load_f(b, ac->t->dt, off)} : (Val){.i = dt_load_i(b, ac->t->dt, off)};
}

static void eval_scope(Vm *vm, int scope);

/* Every point of a scope's variables, in order, each evaluating the scope. */
static void reduce(Vm *vm, const Ins *x, Val *out)
{
	const Scope *sc = &vm->p->scopes[x->inner];
	Red r;
	red_init(&r, x->op, x->opdt);
	int64_t total = 1;
	for (int v = 0; v < sc->nvars; v++)
		total *= vm->in->n[sc->vars[v]->id];
	for (int64_t pt = 0; pt < total; pt++) {
		int64_t q = pt;
		for (int v = sc->nvars - 1; v >= 0; v--) {
			int64_t n = vm->in->n[sc->vars[v]->id];
			vm->env[sc->vars[v]->id] = q % n;
			q /= n;
		}
		eval_scope(vm, x->inner);
		red_step(&r, vm->reg[x->a[0]]);
	}
	if (!red_result(&r, x->dt, out))
		vm->bad = true;
}

static void eval_scope(Vm *vm, int scope)
{
	for (int i = 0; i < vm->p->n; i++) {
		const Ins *x = &vm->p->ins[i];
		Val args[3];
		if (x->scope != scope)
			continue;
		if (x->guard >= 0 && !vm->reg[x->guard].i) {
			vm->reg[i] = (Val){0}; /* not evaluated, as in the language */
			continue;
		}
		switch (x->kind) {
		case I_CONST: vm->reg[i] = x->c; break;
		case I_IVAR: vm->reg[i] = (Val){.i = vm->env[x->var->id]}; break;
		case I_LOAD: vm->reg[i] = load(vm, x); break;
		case I_CAST: vm->reg[i] = val_convert(vm->reg[x->a[0]], vm->p->ins[x->a[0]].dt, x->dt); break;
		case I_OP:
			for (int a = 0; a < x->nargs; a++)
				args[a] = vm->reg[x->a[a]];
			vm->reg[i] = val_op(x->op, op_info[x->op].kind == K_PRED ? vm->p->ins[x->a[0]].dt : x->opdt, args);
			break;
		case I_REDUCE: reduce(vm, x, &vm->reg[i]); break;
		}
	}
}

static bool body_run(const Inst *in, void *const *storage, void **lets)
{
	Vm vm = {.in = in, .storage = storage, .lets = lets};
	vm.env = calloc((size_t)in->k->vars.n + 1, sizeof *vm.env);
	for (int s = 0; s < in->nplanned && !vm.bad; s++) {
		vm.ps = &in->planned[s];
		vm.p = in->prog[s];
		vm.reg = calloc((size_t)vm.p->n + 1, sizeof *vm.reg);
		const Stmt *st = vm.ps->stmt;
		int64_t total = 1;
		for (int d = 0; d < st->nlhs; d++)
			total *= in->n[st->lhs[d]->id];
		for (int64_t pt = 0; pt < total && !vm.bad; pt++) {
			int64_t q = pt, off;
			for (int d = st->nlhs - 1; d >= 0; d--) {
				int64_t n = in->n[st->lhs[d]->id];
				vm.env[st->lhs[d]->id] = q % n;
				q /= n;
			}
			eval_scope(&vm, 0);
			vm.load = NULL;
			sym_eval(((const Access *)vm.ps->acc.v[0])->off, leaf, &vm, &off);
			Val v = vm.reg[vm.p->result];
			if (dt_is_float(vm.p->out))
				dt_store_f(base_of(&vm, st->t), st->t->dt, off, v.f);
			else
				dt_store_i(base_of(&vm, st->t), st->t->dt, off, v.i);
		}
		free(vm.reg);
	}
	free(vm.env);
	return !vm.bad;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill(Inst *in, int p, void *buf, int64_t n, DType dt)
{
	uint64_t s = 1234 + (uint64_t)p;
	int64_t lo = -8, hi = 7;
	if (dt == ATHENE_BOOL || dt == ATHENE_U8)
		lo = 0, hi = dt == ATHENE_BOOL ? 1 : 15;
	if (athene_index_range(in, p, &lo, &hi) == 0 && hi < lo)
		lo = hi = 0;
	for (int64_t i = 0; i < n; i++) {
		uint64_t r = splitmix(&s);
		if (dt_is_float(dt))
			dt_store_f(buf, dt, i, (double)(r >> 11) * 0x1p-53 * 4.0 - 2.0);
		else
			dt_store_i(buf, dt, i, lo + (int64_t)(r % ((uint64_t)hi - (uint64_t)lo + 1)));
	}
}

static const char *first_line(const char *s)
{
	static _Thread_local char line[512];
	size_t n = strcspn(s, "\n");
	snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), s);
	return line;
}

static void test_kernel(Inst *in)
{
	const Kernel *k = in->k;
	int np = k->params.n;
	int64_t elems = 0;
	for (int p = 0; p < np; p++)
		elems += tensor_layout(in, k->params.v[p])->storage;
	if (elems > MAX_ELEMS) {
		big++;
		return;
	}
	size_t nslots = (size_t)(np > 0 ? np : 1);
	void **a = calloc(nslots, sizeof *a), **b = calloc(nslots, sizeof *b), **c = calloc(nslots, sizeof *c);
	void **lets = calloc((size_t)k->lets.n + 1, sizeof *lets);
	size_t *bytes = calloc(nslots, sizeof *bytes);
	for (int p = 0; p < np; p++) {
		const Tensor *t = k->params.v[p];
		int64_t n = tensor_layout(in, t)->storage;
		bytes[p] = (size_t)n * athene_dtype_size(t->dt) + 1;
		a[p] = calloc(bytes[p], 1);
		b[p] = calloc(bytes[p], 1);
		c[p] = calloc(bytes[p], 1);
		if (p < k->nin) {
			fill(in, p, a[p], n, t->dt);
			memcpy(b[p], a[p], bytes[p]);
			memcpy(c[p], a[p], bytes[p]);
		}
	}
	for (int i = 0; i < k->lets.n; i++) {
		const Tensor *t = k->lets.v[i];
		lets[i] = calloc((size_t)tensor_layout(in, t)->storage * athene_dtype_size(t->dt) + 1, 1);
	}
	athene_status st;
	bool ok_ref = athene_run(in, a, ATHENE_REFERENCE, &st) == 0;
	bool ok_body = body_run(in, b, lets);
	bool same = ok_ref == ok_body;
	for (int p = k->nin; p < np && same && ok_ref; p++)
		same = !memcmp(a[p], b[p], bytes[p]);
	if (same)
		passed++;
	else {
		failed++;
		fprintf(stderr, "FAIL %s: body IR %s the interpreter (%s)\n", k->name,
		        ok_ref == ok_body ? "computes other values than" : "disagrees on a run-time error with",
		        ok_ref ? "it ran" : st.message);
	}
	/* the native executor, on the same inputs */
	athene_status sx;
	bool ok_exec = athene_run(in, c, 0, &sx) == 0;
	same = ok_ref == ok_exec && (ok_ref || !strcmp(first_line(st.message), first_line(sx.message)));
	int bad_out = -1;
	for (int p = k->nin; p < np && same && ok_ref; p++)
		if (memcmp(a[p], c[p], bytes[p]))
			bad_out = p, same = false;
	for (int p = 0; p < k->nin && same; p++)
		same = !memcmp(a[p], c[p], bytes[p]); /* inputs untouched */
	if (same)
		passed++;
	else {
		failed++;
		fprintf(stderr, "FAIL %s: the executor %s the interpreter (%s | %s)\n", k->name,
		        ok_ref == ok_exec ? "computes other values than" : "disagrees on a run-time error with",
		        ok_ref ? "it ran" : first_line(st.message), ok_exec ? "ran" : first_line(sx.message));
		if (bad_out >= 0) {
			const Tensor *t = k->params.v[bad_out];
			int64_t n = tensor_layout(in, t)->storage;
			for (int64_t e = 0, shown = 0; e < n && shown < 4; e++)
				if (memcmp((char *)a[bad_out] + e * (int64_t)athene_dtype_size(t->dt),
				           (char *)c[bad_out] + e * (int64_t)athene_dtype_size(t->dt), athene_dtype_size(t->dt))) {
					fprintf(stderr, "    %s storage[%lld]: %g vs %g\n", t->name, (long long)e, dt_load_f(a[bad_out], t->dt, e),
					        dt_load_f(c[bad_out], t->dt, e));
					shown++;
				}
		}
	}
	for (int p = 0; p < np; p++) {
		free(a[p]);
		free(b[p]);
		free(c[p]);
	}
	for (int i = 0; i < k->lets.n; i++)
		free(lets[i]);
	free(a);
	free(b);
	free(c);
	free(lets);
	free(bytes);
}

int main(int argc, char **argv)
{
	int nk = 0;
	for (int i = 1; i < argc; i++) {
		if (kf_size_arg(argv[i]))
			continue;
		char *src = kf_read(argv[i]);
		athene_ctx *c = athene_create();
		if (!src || athene_load(c, argv[i], src)) {
			fprintf(stderr, "FAIL %s does not load\n%s", argv[i], athene_errors(c));
			failed++;
		}
		for (int j = 0; j < athene_kernel_count(c); j++) {
			Inst *in = kf_instance(athene_kernel_at(c, j));
			if (!in || !athene_dump(in, "body", "cpu")) {
				failed++;
				athene_instance_free(in);
				continue;
			}
			test_kernel(in);
			athene_instance_free(in);
			nk++;
		}
		athene_destroy(c);
		free(src);
	}
	printf("body_test: %d kernels, body IR against the interpreter (%ld over %d elements left to pytest)\n", nk,
	       big, MAX_ELEMS);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed != 0;
}
