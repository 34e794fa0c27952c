/* Private to the Pallas emitter: emit.c (module, wrapper, index maps) and
 * kernel.c (the kernel body from the body IR) share the emitter's state
 * and, through common.c, its renderers of operands and expressions. */
#ifndef ATHENE_EMIT_H
#define ATHENE_EMIT_H

#include "pallas.h"

enum { AX_SQUEEZED, AX_EXACT, AX_WHOLE };

typedef struct {
	Buf *b;
	Inst *in;                  /* read-only: the emitter allocates in ar */
	Arena *ar;                 /* scratch of one athene_emit, freed when it returns */
	const Plan *p;
	const PlanStmt *ps;
	int si;                    /* its index in the plan */
	const Prog *prog;
	const char *kname, *sname; /* kernel, stored tensor */
	unsigned *needs;
	int nchecks;               /* checks of the whole kernel so far */
	int stmt_checks;           /* of this statement */
	int64_t vb[PLAN_MAXVARS];  /* each variable's extent in the block */
	bool *used;
	bool *narrow;              /* an i64 register that only indexes: int32 */
	unsigned *dep;             /* variables a register depends on */
	bool *iota_done;
	Buf msgs;                  /* the kernel's bad-index messages */
	const char **prep;         /* per operand: the wrapper's call that prepares it, or NULL */
	Buf *fns;                  /* module-level functions of the kernel */
	int64_t (*pad)[VIEW_MAXAX + 4][2]; /* per operand and axis: the wrapper's pad of a masked slice */
	bool gpu;                  /* Pallas's GPU (Triton) lowering */
	bool xla;                  /* the statement runs in XLA: a function over whole arrays */
	const char *xla_why;       /* set by ep_emit_kernel_fn: why Mosaic cannot run it */
	const char *refused;       /* gpu: why the kernel is left out of the module */
} Em;

enum { NEED_RECORD = 1, NEED_I32 = 2, NEED_X64 = 4, NEED_PAD = 8, NEED_GPU_RECORD = 16, NEED_SPECIAL = 32, NEED_AIRY = 64,
       NEED_FREXP64 = 128 };

/* special.c: the module's functions for the Bessel functions and the
 * polynomials (NEED_SPECIAL) */
extern const char ep_special_helpers[];

typedef struct {
	Em *e;
	bool map;        /* index-map context: grid indices; else the kernel's iotas */
	bool pid;        /* grid indices as program ids (a prefetched load in the kernel) */
	const Ins *load; /* kernel context: the load whose atoms are registers */
	int reg;         /* that load's register */
	bool xla;        /* in the XLA wrapper: variables are iotas over their whole
	                  * range, index loads are jnp.take of the index tensors */
	const Tensor **reads; /* xla: the tensors the expression reads (at most 16) */
	int nreads;
} SymCtx;

/* ---------------------------------------------------------------- common.c */

/* Names and spellings. */
_Noreturn void ep_unsupported(Em *e, const char *what);
int64_t ep_mul(Em *e, int64_t a, int64_t b); /* a size the module spells (ep_unsupported past 2^63) */
const char *ep_jdt(DType t);
const char *ep_pyname(const char *s);
void ep_tuple(Buf *b, const int64_t *v, int n);
void ep_spell(Buf *b, const char *pat, Buf *args, int n);
/* x << c or x >> c (op) at integer dtype t, with the language's results for
 * counts outside [0, bits of t) (base/scalar.c). */
void ep_shift(Buf *b, int op, DType t, const char *x, const char *c);
const char *ep_fn_name(Em *e, Buf *b);
/* Operands as the module moves them (set per statement by emit.c), their axes. */
extern _Thread_local const PlanOperand *const *ep_moved;
const PlanOperand *ep_operand(const PlanStmt *ps, int j);
void ep_drop_operand(int j);
const char *ep_ref_name(const PlanStmt *ps, const PlanOperand *op);
const PlanVar *ep_axis_var(const PlanStmt *ps, const PlanAxis *x);
bool ep_on_grid(const PlanStmt *ps, const PlanAxis *x);
int64_t ep_lowest(const PlanAxis *x);
void ep_slice_of(Buf *b, const PlanAxis *x, int64_t start);
int ep_axis_mode(const PlanStmt *ps, const PlanAxis *x);
const PlanOperand *ep_index_operand(const PlanStmt *ps, const Node *load);
int ep_pvar_index(const PlanStmt *ps, const Var *v);
/* Where digit g goes in variable order: by variable, most significant
 * digit first. */
int ep_digit_key(const PlanStmt *ps, const ViewDigit *g);
/* perm[0..n) such that key[perm[k]] ascends, ties in index order. */
void ep_sort_by_key(int *perm, const int *key, int n);
bool ep_present_in(const PlanOperand *op, const ViewDigit *g);
int64_t ep_digit_extent(const ViewDigit *g, int64_t vb);
/* Index expressions in an index map or in the kernel. */
void ep_sym_expr(Buf *b, SymCtx *c, const Sym *s);
void ep_gather_pos(Buf *b, Em *e, const PlanOperand *op, const PlanAxis *x, bool pid);
bool ep_rowmajor(const Em *e, const Sym *off);
/* The kernel body's lines, registers and iotas. */
void ep_line(Em *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *ep_rdt(Em *e, int r);
void ep_shape_of(Buf *b, Em *e, unsigned dep);
int ep_alias_of(Em *e, int r);
void ep_use_iota(Em *e, int vi);
void ep_reg(Buf *b, Em *e, int r);

/* ---------------------------------------------------------------- kernel.c */

/* The kernel function of one planned statement (or, with e->xla, the same
 * body over whole arrays in the XLA wrapper). */
void ep_emit_kernel_fn(Em *e, Buf *out);

#endif
