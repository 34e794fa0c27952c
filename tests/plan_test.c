/* Plan tests: every kernel of the given files is planned for cpu and tpu;
 * the plan checker (every output element written exactly once, every block
 * inside its array) must pass on both, and every tpu plan must obey the
 * block rule: the last two block dims divisible by (8·packing, 128) or equal
 * to the array's dims, a squeezed dim counting as 1. The checkers are also
 * shown to fail on plans broken on purpose, and the cpu blocks of
 * statements that transpose are checked against a table.
 *   plan_test [SYM=INT]... FILE...   (unbound size symbols default to 64) */
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "testlib.h"

static long passed, failed;

static void expect(bool ok, const char *what, const char *kernel, const char *detail)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	fprintf(stderr, "FAIL %s: %s: %s\n", kernel, what, detail);
}


/* The first operand with an axis that can be broken, or NULL. */
static PlanAxis *some_last_axis(Plan *p)
{
	for (int i = 0; i < p->nstmts; i++)
		for (int j = 0; j < p->st[i].ops.n; j++) {
			PlanOperand *op = p->st[i].ops.v[j];
			if (!op->prefetch && op->naxes && op->ax[op->naxes - 1].size > 128)
				return &op->ax[op->naxes - 1];
		}
	return NULL;
}

static void test_kernel(athene_inst *in)
{
	const char *name = athene_kernel_name(athene_instance_kernel(in));
	Buf err = {0};
	for (int t = 0; t < 2; t++) {
		Target tb;
		Plan *p = plan_inst(in, target_for(target_at(t), 4, &tb));
		err.len = 0;
		int rc = plan_check(p, &err);
		expect(rc == 0, t ? "tpu plan check" : "cpu plan check", name, buf_str(&err));
		if (t == 1) {
			err.len = 0;
			rc = plan_check_tiles(p, &err);
			expect(rc == 0, "tpu block rule", name, buf_str(&err));
		}
		/* break the plan: the checkers must notice */
		PlanAxis *ax = some_last_axis(p);
		if (ax && t == 1) {
			int64_t keep = ax->block;
			bool widened = ax->widened;
			ax->block = 100;
			ax->widened = false;
			err.len = 0;
			expect(plan_check_tiles(p, &err) != 0, "tpu rule catches a block of 100", name, "not caught");
			ax->block = keep;
			ax->widened = widened;
		}
		/* shift a load's window by one: it misses an element it needs */
		for (int j = 1; j < p->st[0].ops.n && !p->st[0].empty; j++) {
			PlanOperand *op = p->st[0].ops.v[j];
			if (op->prefetch || op->cls != VIEW_VIEW || !op->naxes || op->ax[0].kind != VA_ITER ||
			    op->ax[0].widened || op->ax[0].len < 2)
				continue;
			int64_t npts = 1;
			for (int v = 0; v < p->st[0].nvars; v++)
				npts *= p->st[0].vars[v].n;
			if (npts > (1 << 16))
				break;
			op->ax[0].start += op->ax[0].step;
			err.len = 0;
			expect(plan_check(p, &err) != 0, "checker catches a shifted block", name, "not caught");
			op->ax[0].start -= op->ax[0].step;
			break;
		}
		/* plan a materialised let as if it were fused: the checker must notice */
		for (int j = 0; j < p->in->k->lets.n; j++) {
			bool *fused = &((Inst *)p->in)->fused[j];
			if (*fused)
				continue;
			*fused = true;
			err.len = 0;
			expect(plan_check(p, &err) != 0, "checker catches a moved fused let", name, "not caught");
			*fused = false;
			break;
		}
		PlanStmt *ps = &p->st[0];
		if (!ps->empty && ps->nlhs && ps->vars[0].n > 1 && ps->vars[0].n <= 4096) {
			PlanVar *v = &ps->vars[0];
			int64_t keep = v->block;
			int grid = v->grid;
			/* a grid with a block too small: elements are never written */
			v->block = v->n > 2 ? v->n / 2 : 1;
			v->grid = -1;
			err.len = 0;
			expect(plan_check(p, &err) != 0, "checker catches an uncovered output", name, "not caught");
			v->block = keep;
			v->grid = grid;
		}
	}
	buf_free(&err);
}

/* The cpu planner's rule for statements that transpose their last two
 * axes (plan.c, transpose_blocks): the blocks each kernel gets, as
 * "var block ..." in the store's order. */
static void transpose_rule(void)
{
	static const struct {
		const char *src, *want;
	} cases[] = {
		/* too big to be whole: 32 output columns (128 bytes), 1024 source columns (4 KiB) */
		{"kernel k(x: f32[8192, 8192], s: f32[8192], b: f32[8192]) -> (y: f32[8192, 8192]) {\n"
		 "    y[i, j] = relu(x[j, i] * s[j] + b[j])\n}\n",
		 "i 1024 j 32"},
		/* a second operand along the run: the run halved to fit */
		{"kernel k(x: f32[4096, 4096], z: f32[4096, 4096]) -> (y: f32[4096, 4096]) {\n"
		 "    y[i, j] = x[j, i] + z[i, j]\n}\n",
		 "i 512 j 32"},
		/* other widths: the same bytes (u8: 128 x 4096 bytes would take 1 MiB, so the run is halved) */
		{"kernel k(x: f64[4096, 4096]) -> (y: f64[4096, 4096]) {\n    y[i, j] = x[j, i] * 2.0\n}\n", "i 512 j 16"},
		{"kernel k(x: u8[4096, 4096]) -> (y: u8[4096, 4096]) {\n    y[i, j] = x[j, i]\n}\n", "i 1024 j 128"},
		/* whole when it fits the budget (then halved for the two threads) */
		{"kernel k(x: f32[64, 256]) -> (y: f32[256, 64]) {\n    y[i, j] = x[j, i]\n}\n", "i 128 j 64"},
		/* not the last two axes, or no transpose: the rule does not apply */
		{"kernel k(x: f32[64, 256, 4096]) -> (y: f32[4096, 256, 64]) {\n    y[a, b, c] = x[c, b, a] * 2.0\n}\n",
		 "a 512 b 1 c 64"},
		{"kernel k(x: f32[8192, 8192]) -> (y: f32[8192, 8192]) {\n    y[i, j] = x[i, j] + 1.0\n}\n",
		 "i 4 j 8192"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		athene_ctx *ctx = athene_create();
		athene_inst *in = NULL;
		if (!athene_load(ctx, "rule.ath", cases[c].src))
			in = kf_instance(athene_kernel_at(ctx, 0));
		Buf got = {0};
		if (in) {
			Target tb;
			Plan *p = plan_inst(in, target_for(target_named("cpu"), 2, &tb));
			const PlanStmt *ps = &p->st[0];
			for (int i = 0; i < ps->nlhs; i++)
				buf_printf(&got, "%s%s %lld", i ? " " : "", ps->vars[i].var->name, (long long)ps->vars[i].block);
		}
		char what[64];
		snprintf(what, sizeof what, "transpose rule, case %zu", c);
		expect(in && !strcmp(buf_str(&got), cases[c].want), what, cases[c].want, in ? buf_str(&got) : "no instance");
		buf_free(&got);
		if (in)
			athene_instance_free(in);
		athene_destroy(ctx);
	}
}

int main(int argc, char **argv)
{
	int nk = 0;
	transpose_rule();
	for (int a = 1; a < argc; a++) {
		if (kf_size_arg(argv[a]))
			continue;
		char *src = kf_read(argv[a]);
		if (!src) {
			fprintf(stderr, "FAIL cannot read %s\n", argv[a]);
			failed++;
			continue;
		}
		athene_ctx *c = athene_create();
		if (athene_load(c, argv[a], src)) {
			fprintf(stderr, "FAIL %s does not compile:\n%s", argv[a], athene_errors(c));
			failed++;
		}
		for (int i = 0; i < athene_kernel_count(c); i++) {
			athene_inst *in = kf_instance(athene_kernel_at(c, i));
			if (!in) {
				failed++;
				continue;
			}
			test_kernel(in);
			athene_instance_free(in);
			nk++;
		}
		athene_destroy(c);
		free(src);
	}
	printf("plan_test: %d kernels planned for cpu and tpu\n", nk);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed != 0;
}
