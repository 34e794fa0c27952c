/* The native executor's shared state (exec.c, vm.c, common.c): a planned statement
 * split into loop dims, its operands as affine views over them, its boxes,
 * and the run's error record. exec.c builds them and runs data movement,
 * row gathers and the point-by-point path; vm.c runs the body IR over the
 * boxes of a block on the register machine.
 * Units: strides and offsets in elements, bytes at the box-copy boundary. */
#ifndef ATHENE_VM_H
#define ATHENE_VM_H

#include <pthread.h>
#include <stdatomic.h>

#include "cpu.h"

/* A run's error state, shared by its threads. */
typedef struct {
	pthread_mutex_t mu;
	atomic_llong first; /* smallest failing output position, INT64_MAX: none */
	int64_t pos;
	Span sp;
	char msg[1024];
} RunErr;

#define VM_LANES 1024
#define XMAXD 48
#define XMAXBOX 64

typedef struct {
	int var;          /* PlanVar */
	int64_t place, n; /* the digit: (v / place) % n; the top digit has no modulo */
	int scope;
} XDim;

typedef struct XOp {
	const Access *acc;
	const PlanOperand *op;
	DType dt;
	size_t es;
	char *base;       /* element 0 of its storage */
	int64_t start;    /* the static part of its element offset */
	int64_t stride[XMAXD];
	bool point;       /* loaded point by point through its flat offset */
	bool masked;      /* a masked view: only coordinates [mlo, mhi] of the dims
	                   * with mk set are read, the others are padding (zeros) */
	bool mk[XMAXD];
	int64_t mlo[XMAXD], mhi[XMAXD];
	struct XOp *piece; /* a rolled view: its second piece, masked to the
	                    * positions the first leaves (NULL for none) */
} XOp;

typedef struct {
	const Inst *in;
	const PlanStmt *ps;
	const Planned *pd;
	const Prog *p;
	RunErr *err;
	int nd;
	XDim d[XMAXD];
	int nsd[64];      /* per scope: its dims, in order */
	int sd[64][XMAXD];
	XOp *op;          /* per access */
	int *opreg;       /* per access: its I_LOAD register, -1 for the store */
	bool copy;        /* the body is one load of the output's dtype */
	int rows;         /* > 0: the body is one row gather of the output's dtype,
	                   * its index read at rows points of the output variables
	                   * the gather's index depends on (row_var[0..nrow)) */
	int nrow, row_var[MAXSCOPE];
	int64_t row_task; /* rows per pool task of a row gather (set by exec_stmt) */
	bool row_direct;  /* the gather's index straight from row_io's tensor, wrapped by row_mod */
	const XOp *row_io;
	int64_t row_mod;
	bool fast;        /* ... and fast_rows' form: one row variable, rows of row_len bytes
	                   * contiguous on both sides */
	size_t row_len;
	void *const *storage;
	void **lets;
	int64_t ntasks;   /* grid blocks */
	int fast_g;       /* the grid axis whose blocks a task walks first, -1: the plan's order */
	int64_t chunk;    /* consecutive blocks per task */
	bool merge;       /* a task's blocks (all of fast_g's, one row of the grid) run as one
	                   * range of its variable: a transposed chain on a small L1 or an Intel core
	                   * (pw_whole_rows) */
	bool halves;      /* ... half of them, tasks t and 2 rows - 1 - t the two halves of row t */
	int64_t row_blocks; /* fast_g's blocks in a row of the grid, where merge */
	int64_t pstride[MAXSCOPE]; /* row-major position of each output variable */
	bool stream;
	struct W *w;      /* per worker: its scratch */
	int nw;           /* ... for this many workers */
	int64_t held;     /* bytes it holds, counted while the instance keeps it (exec.c) */
	char **jb;        /* per access: its element 0 plus start, for a compiled function (jit.c) */
	atomic_bool scalar; /* a row gather met an index outside the rows whose every point lies in
	                     * the table, legal at the row's first point: the statement runs point
	                     * by point instead (exec.c, rows_task) */
} X;

/* A box: a range of every dim (dims outside the box's scope ignored). */
typedef struct {
	int64_t lo[XMAXD], hi[XMAXD];
} XBox;


/* ---------------------------------------------------------------- common.c */

void run_error(RunErr *e, int64_t pos, Span sp, const char *msg);
void where_str(char *s, size_t n, const Stmt *st, const int64_t *val);
void exec_index_error(RunErr *e, const Inst *in, const Stmt *st, const int64_t *val, int64_t pos,
                      const Node *ld, const Node *sub, int64_t value, int64_t raw, int64_t m);
bool checked_op(const Ins *x, const Val *v, Val *out, const char **msg, Span *sp);
/* Can evaluating instruction s of p fail, a run-time error the interpreter
 * reports? A load through a data-dependent index, exact index arithmetic, a
 * wrap() whose modulus is no constant above 0 (checked_op), a max, min,
 * argmax or argmin (of an empty range: red_result). */
bool ins_can_fail(const Prog *p, const Ins *s);
void op_failed(RunErr *e, const Inst *in, const Stmt *st, const int64_t *val, int64_t pos, const char *what,
               Span sp);
int wrap_of_reg(const Prog *p, int r);
/* The register an integer cast chain starts from. */
int xuncast(const Prog *p, int r);
bool in_dim(const Inst *in, const Ins *x, int c, int64_t v);
int var_boxes(const X *x, int i, int64_t lo, int64_t hi, XBox *out, int max);
void copy_var(const X *x, int i, const XBox *from, XBox *to);
void box_copy(char *dst, const int64_t *ds, const char *src, const int64_t *ss, const int64_t *shape, int n,
              size_t es, int flags, bool par);

/* ---------------------------------------------------------------- vm.c */

/* Pool task t of a statement on the register machine: the boxes of grid
 * block t, each evaluated in units and stored through the output's view. */
void vm_block_task(void *arg, int64_t t, int worker);
/* How many pool tasks vm_block_task takes. */
int64_t vm_block_tasks(const X *x);
/* The statement's blocks with its first output variable cut to [r0, r1),
 * on worker's scratch: one band of a group of statements (exec.c). */
void vm_run_rows(const X *x, int64_t r0, int64_t r1, int worker);
int vm_whole_rows(const X *x);
/* The per-worker scratch of x->w, empty until a worker's first block. */
struct W *vm_workers(int nw);
void vm_free_workers(X *x, int nw);
/* The bytes x->w's workers hold (registers, boxes, staged operands). */
size_t vm_workers_bytes(const X *x);
/* malloc and free of a run's big scratch blocks (X, registers, boxes): a
 * few freed blocks are kept and handed out again for the same size. */
void *vm_stash_take(size_t bytes);
void vm_stash_give(void *p, size_t bytes);

/* ---------------------------------------------------------------- jit.c */

/* What compiled code calls back into: base/'s val_op and val_convert, and
 * the executor's f32 functions (exp_floats ...) by op. */
typedef struct {
	Val (*op)(int op, DType t, const Val *v);
	Val (*conv)(Val v, DType from, DType to);
	void (*vf)(int op, float *d, const float *s, int n);
} JitRt;
const JitRt *jit_runtime(void);
/* A compiled statement: the points whose first dim (scope 0's) lies in
 * [lo, hi), operands at B (X.jb). */
typedef void (*JitFn)(const JitRt *rt, char *const *B, int64_t lo, int64_t hi);
typedef struct JitEntry JitEntry;
/* 0: off (ATHENE_JIT=0), 1: compiled in the background, 2: the first run waits (ATHENE_JIT=sync). */
int jit_mode(void);
/* Whether the sources are written for AVX2 (vecmath.h's functions in the
 * prelude, the compiler told -mavx2): read once per source, since a test
 * can switch the kernels to the portable ones at any time. */
bool jit_avx2(void);
/* Appends what every source starts with (the sources jit_submit takes
 * include it as a header). */
void jit_prelude(Buf *b, bool avx2);
/* Writes statement x as C function `name` into b; false (b untouched, the
 * reason in why) when it has a part the generator does not write. */
bool jit_stmt(Buf *b, const X *x, bool avx2, const char *name, char *why, size_t nwhy);
/* The compiled code of a source whose statement i is athene_s<i> where
 * has[i]: found in the process, or queued for the compiler (waited for
 * with ATHENE_JIT=sync). Never NULL; entries live as long as the process. */
JitEntry *jit_submit(Buf *src, bool avx2, int nfn, const bool *has);
/* Statement si's function, NULL until compiled (or when it has none). */
JitFn jit_fn(const JitEntry *e, int si);
void jit_count_run(void);

#endif
