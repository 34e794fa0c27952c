/* The analysis layer: an instance (a checked kernel with its sizes and
 * layouts bound) and everything derived from it, one section per pass in
 * pipeline order: the index algebra (sym.c), bind, inline, lower and
 * simplify, the access analysis (view.c), the planner (plan.c, plancheck.c)
 * and the body IR (body.c). Backends read what it produces, read-only. */
#ifndef ATHENE_ANALYSIS_H
#define ATHENE_ANALYSIS_H

#include <stdatomic.h>

#include "ast/ast.h"

typedef struct Sym Sym;

/* ---------------------------------------------------------------- sym.c */

enum { S_CONST, S_VAR, S_ATOM, S_ADD, S_MUL, S_DIV, S_MOD };
struct Sym {
	int kind, id;
	uint64_t hash;
	int64_t lo, hi; /* every value the expression takes lies in [lo, hi] */
	bool ovf;       /* computing the range overflowed: it may overflow 64 bits */
	int64_t c;      /* CONST: value; ADD: constant term; VAR, ATOM: their number */
	int n;          /* ADD: terms; MUL: factors; DIV, MOD: 2 */
	Sym **a;
	int64_t *k;     /* ADD: coefficient of each term */
	void *p;        /* VAR: Var*; ATOM: Node* (the data-dependent expression) */
};
typedef struct SymTab {
	Arena *ar;
	Sym **tab;
	size_t cap, n;
	int nextid;
	bool rules;    /* apply the simplification rules (off: only canonical sums) */
	bool overflow; /* a coefficient or constant overflowed 64 bits */
} SymTab;
SymTab *symtab_new(Arena *a, bool rules);
Sym *sym_const(SymTab *t, int64_t c);
Sym *sym_var(SymTab *t, int num, int64_t lo, int64_t hi, void *p);
Sym *sym_atom(SymTab *t, int num, int64_t lo, int64_t hi, void *p);
Sym *sym_add(SymTab *t, Sym *a, Sym *b);
Sym *sym_sub(SymTab *t, Sym *a, Sym *b);
Sym *sym_mul(SymTab *t, Sym *a, Sym *b);
Sym *sym_scale(SymTab *t, Sym *a, int64_t k);
Sym *sym_floordiv(SymTab *t, Sym *a, Sym *b); /* NULL: constant division by zero */
Sym *sym_mod(SymTab *t, Sym *a, Sym *b);
/* Rebuilds s in t (with t's rules). map (may be NULL) gives the replacement
 * of a VAR or ATOM leaf, or NULL to keep it. */
typedef Sym *(*SymMap)(SymTab *t, const Sym *leaf, void *env);
Sym *sym_rebuild(SymTab *t, const Sym *s, SymMap map, void *env);
/* Evaluates s; leaf() gives the value of VAR and ATOM nodes. Returns 0, or
 * SYM_EOVF / SYM_EDIV0. */
typedef int (*SymLeaf)(void *env, const Sym *s, int64_t *out);
int sym_eval(const Sym *s, SymLeaf leaf, void *env, int64_t *out);
bool sym_has_atom(const Sym *s);
/* The values of term `at` of the sum e that keep e in [0, last] whatever
 * the other terms take (none of them an atom). */
bool sym_term_range(const Sym *e, int at, int64_t last, int64_t *lo, int64_t *hi);
typedef void (*SymName)(Buf *b, const Sym *leaf, void *env);
void sym_print(Buf *b, const Sym *s, SymName name, void *env);

/* ---------------------------------------------------------------- bind.c */

/* A tensor's bound layout: logical shape, strides and offset in elements,
 * and how many elements its storage spans. */
typedef struct {
	int64_t shape[MAXRANK], strides[MAXRANK], offset, storage;
} Layout;
/* Evaluates dims and layouts with every size bound (a layout given at run
 * time replaces the row-major default); the extents of the variables.
 * Unwinds on error. */
void bind_inst(Inst *in);
void bind_size(Inst *in, int sym, int64_t value, const char *from);
void bind_shape(Inst *in, const Tensor *t, int rank, const int64_t *shape);
void bind_layout(Inst *in, const Tensor *t, const int64_t *strides, int64_t offset);
const Layout *tensor_layout(const Inst *in, const Tensor *t);
int64_t var_extent(const Inst *in, const Var *v);

/* ---------------------------------------------------------------- lower.c, inline.c */

/* Decides which lets are fused into their consumers (in->fused) and lists
 * the planned statements: outputs and materialised lets. */
void inline_lets(Inst *in);
/* Can a let's value fail at run time (then it is materialised)? */
bool let_fallible(const Tensor *t);
/* Is let t read broadcast somewhere (a variable in scope at a read that its
 * subscripts do not name)? Then only a bare load of it is fused. */
bool let_broadcast(const Kernel *k, const Tensor *t);
/* Lowers every load and store to a flat storage offset: per load in its own
 * statement (the interpreter's cross-check, index ranges), and per access of
 * a planned statement, with fused lets expanded in place. raw: canonical
 * sums only; else simplified and range-checked (unwinds on provable errors). */
void lower_inst(Inst *in, bool raw);
/* Prints a leaf of a lowered offset: a variable's name, or an atom's expression. */
void sym_leaf_name(Buf *b, const Sym *leaf, void *env);
/* The value v that n wraps: wrap(v, m), or PyTorch's negative-index wrap as
 * Inductor writes it, where(v < 0, v + m, v) (also v >= 0 with the branches
 * swapped, and 0 > v, 0 <= v), with the constant m > 0 in *m; else NULL. */
const Node *wrap_of(const Inst *in, const Node *n, int64_t *m);
/* The values of input p valid as indices, over its uses as a whole
 * subscript (idx[s] or a wrap of it, either spelling) and as a term of a
 * flat offset (idx[s] or idx.flat[s], wrapped or not): 0, or -1 when it is
 * used so nowhere. After the simplify pass. */
int lower_index_range(const Inst *in, const Tensor *p, int64_t *lo, int64_t *hi);

/* ---------------------------------------------------------------- view.c */

#define VIEW_MAXDIG 24
#define VIEW_MAXAX 48
enum { VIEW_VIEW, VIEW_ROWGATHER, VIEW_ELEM };
enum { VA_ITER, VA_INDEX, VA_GATHER, VA_UNIT };
/* class flags, derived from the view */
enum {
	VF_BROADCAST = 1 << 1, VF_STRIDED = 1 << 2, VF_SLICED = 1 << 3, VF_REVERSED = 1 << 4,
	VF_PERMUTED = 1 << 5, VF_COLLAPSED = 1 << 6, VF_ROWGATHER = 1 << 7, VF_EMPTY = 1 << 8,
	VF_MASKED = 1 << 9, VF_ROLLED = 1 << 10,
};
/* One axis of the storage reshaped as a mixed-radix array. */
typedef struct {
	int kind;
	int64_t stride, size; /* elements; the reshape's extent of this axis */
	int64_t start;        /* VA_INDEX: the static index; VA_ITER/VA_GATHER: position of digit 0 */
	int64_t len;          /* VA_ITER: how many positions the digit takes */
	int64_t step;         /* +1, -1 for a reversed slice, or any other on a strided
	                       * slice of a declared dim: positions start + step·digit */
	int ref;              /* VA_ITER: digit; VA_GATHER: gather */
} VAxis;
/* A digit of an index variable: var = Σ place·digit, digit < n. */
typedef struct {
	const Var *var;
	int vi, index, nsplit; /* index 0 is the least significant of nsplit digits */
	int64_t place, n, coef;
	int axis;              /* storage axis, -1: broadcast (coefficient 0) */
	bool masked;           /* read only for var in [mlo, mhi] (a where() guard): the
	                        * positions of the other values are the padded region */
	int64_t mlo, mhi;
} ViewDigit;
typedef struct {
	const Sym *atom;       /* payload: the subscript node (with its index load) */
	const Node *index_load;
	int64_t wrap;          /* the index is wrap(index_load, wrap) (0: a bare load) */
	int axis;
} ViewGather;
typedef struct {
	int cls;
	char reason[200];
	int naxes, ndig, ngat;
	VAxis ax[VIEW_MAXAX];        /* outer to inner */
	ViewDigit dig[VIEW_MAXDIG];  /* by variable, most significant digit first */
	ViewGather gat[VIEW_MAXDIG];
	unsigned flags;
} View;
/* The view of a flat offset over `storage` elements of tensor t (layout
 * lay, NULL for intermediates). scope: the index variables the access
 * iterates over; those absent from the offset are broadcast. index_off
 * gives the offset of an index load in the same statement. A variable of
 * the offset whose range is narrower than its extent (a guarded access,
 * lowered over the box its where() condition leaves) is masked: the view
 * holds for its range, and its axis's other positions are padding. */
typedef const Sym *(*IndexOff)(const void *env, const Node *load);
void view_analyse(View *v, Arena *ar, const Sym *off, int64_t storage, const Tensor *t, const Layout *lay,
                  const Inst *in, const Var *const *scope, int nscope, IndexOff index_off, const void *env);
/* Address of an element through the view (var_value by Var id, atom_value by gather). */
int64_t view_address(const View *v, const int64_t *var_value, const int64_t *atom_value);

/* The printers of a view (view.c). */
void view_print(Buf *b, const View *v);
void view_class(Buf *b, const View *v);
void gather_position(Buf *b, const View *v, const VAxis *a);

/* ---------------------------------------------------------------- analyse (view.c) */

#define MAXSCOPE 32
/* One access of a planned statement: its store, or one of its loads (those
 * of fused lets included, with the let's variables replaced by the
 * consumer's subscripts). The view is computed once and then read-only. */
/* A fused let being expanded: its variables stand for the subscripts of
 * the load `use`, which are expressions of the enclosing expansion. */
typedef struct Env {
	const struct Env *up;
	const Stmt *let;
	const Node *use;
} Env;
/* A condition an expression is evaluated under (the language evaluates
 * only the branch where() takes, and the right side of && and || only when
 * it decides): where(c, a, b) guards a by c and b by !c; a && b guards b by
 * a; a || b guards b by !a. */
typedef struct Guard {
	const struct Guard *up;
	const Node *cond;
	bool neg;           /* guarded by !cond */
	const Env *env;     /* the expansion cond sits in */
} Guard;
/* The guard of argument i of n, evaluated under g (lower.c). */
const Guard *guard_child(Arena *a, const Node *n, int i, const Guard *g, const Env *env);
typedef struct {
	const Node *load;   /* NULL for the store */
	const Tensor *t;    /* never a fused let */
	const Env *env;     /* the expansion it sits in, NULL outside fused lets */
	const Guard *guard; /* the conditions it is read under, NULL: always */
	bool masked;        /* its view holds only in the box its guard leaves (off is moff) */
	Sym *moff;          /* the offset over that box, NULL when the guard is no box */
	bool exact;         /* the guard is exactly that box of ranges */
	bool never;         /* no point satisfies the box: it is never read */
	int nscope;         /* the variables it iterates over */
	const Var *scope[MAXSCOPE];
	Sym *raw, *off;     /* flat storage offset: as lowered, simplified */
	Sym *roff[2];       /* a roll ((v + c) % n wrapping once over v's range): the
	                     * offset for v below the wrap and from it, NULL for none */
	View view;
	View *piece;        /* a rolled access: the view of its second piece, the
	                     * first being view; both are masked to their ranges of v */
} Access;
typedef struct {
	Stmt *stmt;
	int index;          /* in Kernel.stmts */
	Vec acc;            /* Access: the store, then the loads in source order */
	Vec fused;          /* Tensor: the lets fused into this statement */
} Planned;
void analyse_inst(Inst *in);

/* ---------------------------------------------------------------- plan.c */

#define PLAN_MAXVARS MAXSCOPE
/* What the planner knows of a target; no pass tests a target's name. Each
 * target is defined in its backend's folder and listed in the backend
 * table (backends.c); id is its slot in Inst.plan. */
#define MAXTARGETS 4
typedef struct {
	const char *name;
	int id;             /* [0, MAXTARGETS): the instance's plan slot */
	int64_t budget;     /* bytes of one grid step's blocks */
	int buffers;        /* copies of each block (2: double-buffered DMA) */
	bool tiles;         /* (8·packing, 128) tiles: padding and the block rule */
	int threads;        /* grid steps wanted at least (cpu: one per thread) */
	int64_t min_block;  /* bytes: a step is not split below this */
	int minor_align;    /* elements: a block on a minor axis is a multiple */
	bool wide64;        /* has 64-bit vector types (f64, i64) */
	bool pads;          /* its backend fills the padded region of a masked view
	                     * (else the plan reads a masked operand element by element) */
	bool pieces;        /* its backend reads a rolled view as two masked pieces */
	const char *transposes; /* what it can transpose inside a block, for explain */
} Target;
/* Target t for a run on `threads` threads (> 0; else the machine's) where
 * t takes one grid step per thread (t->threads == 0): a copy in buf. */
const Target *target_for(const Target *t, int threads, Target *buf);
typedef struct {
	const Var *var;
	int64_t n, block; /* elements of the variable per block */
	int grid;         /* grid axis, -1 when the block holds the whole variable */
	bool reduce;      /* a reduction variable: its grid axis is 'arbitrary' */
	bool split;       /* split into digits by some access */
	bool whole;       /* must stay whole (the store is not a view) */
	bool pinned;      /* its block is fixed: one index value of a gather per step */
	int64_t unit;     /* the block is a multiple of it: the place of the top
	                   * digit of every access that splits the variable */
} PlanVar;
/* One axis of an operand's array (its storage reshaped by the view). */
typedef struct {
	int kind;         /* VA_ITER, VA_INDEX (static), VA_GATHER, VA_UNIT (added) */
	int64_t size;
	int64_t block;    /* 0: squeezed */
	int64_t start, len;
	int64_t stride;   /* elements, in the operand's storage (0 for unit axes) */
	int64_t step;     /* as the view's axis: positions start + step·digit */
	int var;          /* VA_ITER: the PlanVar driving it, -1 when none */
	int ref;          /* VA_ITER: view digit; VA_GATHER: view gather */
	int vaxis;        /* the view's axis it comes from, -1 for an added unit axis */
	int64_t place;    /* > 0: one of two axes a whole view axis is cut into, taking
	                   * (digit / place) % size of its digit (start 0, step 1) */
	bool widened;     /* loaded whole; the kernel indexes inside the block */
	bool masked;      /* only values [mlo, mhi] of its variable are read: the
	                   * positions of the others are padding (a where() guard) */
	int64_t mlo, mhi;
} PlanAxis;
/* An operand: one access of the statement, as this plan moves it. The view
 * is the analysis's (read-only); what the plan decides is here. */
typedef struct {
	const Tensor *t;
	const Access *acc;
	int access;       /* position in the statement's accesses, 0: the store */
	const View *view;
	int cls;          /* VIEW_*: the view's class, or VIEW_ELEM when the plan demotes it */
	const char *reason; /* why it is an element gather */
	const View *piece; /* a roll: its second piece (the blocks are view's) */
	bool prefetch;    /* an index load of a row gather: scalar prefetch */
	int naxes;
	PlanAxis ax[VIEW_MAXAX + 4];
} PlanOperand;
typedef struct {
	const Planned *src;
	const Inst *in;
	Stmt *stmt;
	bool empty;       /* the output has no elements: nothing to do */
	bool scatter;     /* the store is not a view: one block for everything */
	char notes[512];  /* target-specific remarks, one per line */
	int nvars, nlhs;  /* output variables first, then reduction variables */
	PlanVar vars[PLAN_MAXVARS];
	int ngrid;
	int grid_var[PLAN_MAXVARS];
	Vec ops;          /* PlanOperand, one per access: the store first, then the loads */
} PlanStmt;
typedef struct Plan {
	const Target *tg;
	Target tgbuf;
	const Inst *in;
	int nstmts;
	PlanStmt *st;
} Plan;
Plan *plan_inst(Inst *in, const Target *tg);
/* tpu alignment: 8·packing sublanes for a dtype's packing. */
int dtype_packing(DType t);
bool tpu_ok(int64_t block, int64_t size, int64_t align);
int64_t plan_var_blocks(const PlanVar *v); /* blocks along v (1 off the grid), overflow-free */

/* ---------------------------------------------------------------- plancheck.c */

/* Proves the plan moves what the kernel needs (bounded work for any size:
 * exhaustive on small domains, corners otherwise); 0, or -1 with the
 * first problem in err. */
int plan_check(const Plan *p, Buf *err);
/* The tile rule of a tiled target on every operand. */
int plan_check_tiles(const Plan *p, Buf *err);

/* ---------------------------------------------------------------- body.c */

/* The body IR: a typed linear program per planned statement, in SSA form
 * (register r is instruction r's result). Promotion, weak literals and
 * casts are resolved: every operand of an I_OP already has the dtype it
 * computes in (opdt), so a backend renders each instruction on its own. */
enum { I_CONST, I_IVAR, I_LOAD, I_CAST, I_BITCAST, I_OP, I_REDUCE };
typedef struct {
	int kind;
	int op;         /* I_OP: OP_*; I_REDUCE: R_* */
	DType dt;       /* of the result */
	DType opdt;     /* I_OP: dtype of the operands (bool for logic ops) */
	int nargs;
	int a[3];       /* argument registers; I_REDUCE: a[0] in the inner scope */
	int scope;      /* where it is evaluated: 0 the statement's variables, else a reduction's */
	int guard;      /* bool register: evaluated only where it holds; -1: everywhere */
	bool exact;     /* I_OP of index arithmetic: exact i64, overflow is an error */
	int inner;      /* I_REDUCE: the scope it reduces over */
	int operand;    /* I_LOAD: the access (plan operand) it reads */
	int natoms;     /* I_LOAD: registers holding the data-dependent atoms of its offset */
	const Sym **atom;
	int *atom_reg;
	int nchecks;    /* I_LOAD: data-dependent subscripts the offset does not show */
	int *check_reg; /* (of dims with stride 0), checked against their dim */
	int *check_dim;
	const Var *var; /* I_IVAR */
	Val c;          /* I_CONST */
	const Node *src;/* where it comes from, for messages */
} Ins;
typedef struct {
	int parent;
	int nvars;
	const Var **vars; /* reduction variables (empty for scope 0) */
} Scope;
#define MAXSCOPES 64 /* scopes of one statement's body, scope 0 included */
typedef struct Prog {
	int n;
	Ins *ins;
	int nscopes; /* at most MAXSCOPES */
	Scope *scopes;
	int result;     /* register stored into the statement's tensor */
	DType out;      /* the stored tensor's dtype */
	int store;      /* a scatter: the I_LOAD of operand 0 (the store) that computes and
	                 * checks the address written, never read; -1 for other statements */
	bool accum;     /* a scatter with +=: the value is added to the element (in out) */
	int nvalues;    /* instructions other than constants: what a backend evaluates at each point */
	int nfuncs;     /* ... of which exp, sigmoid, tanh and erf (narrow_fn), each a longer formula */
} Prog;
Prog *body_build(Inst *in, const Planned *ps);
void body_print(Buf *b, const Prog *p);

/* ---------------------------------------------------------------- the instance (api.c) */

/* The passes of the driver, in order (api.c: PASSES). */
enum { P_BIND, P_INLINE, P_LOWER, P_SIMPLIFY, P_ANALYSE, P_PLAN, P_CHECKPLAN, P_BODY, NPASSES };

/* A compiled instance: a checked kernel with its sizes and layouts bound,
 * and everything derived from them, in its own arena. */
struct athene_inst {
	Kernel *k;
	Ctx *ctx;
	Inst *next, *prev;
	Arena arena;
	Diag diag;
	Buf text;           /* the text last returned (explain, dump) */
	int passes;         /* how many passes have run */
	/* bind */
	int64_t *size;      /* per size symbol */
	bool *bound;
	char (*from)[96];   /* where each bound value came from, for messages */
	Layout *lay;        /* per tensor: the params, then the lets */
	bool *given;        /* per param: a layout given at run time */
	int64_t *n;         /* per index variable: its extent */
	/* lower, simplify */
	Sym **load_off;     /* per load, in its own statement: flat offset */
	Sym **store_off;    /* per statement */
	Sym **load_raw, **store_raw;
	/* inline, analyse */
	bool *fused;        /* per let */
	int nplanned;
	Planned *planned;
	/* plan, body: per target, made on demand */
	Plan *plan[MAXTARGETS]; /* by Target.id */
	int plan_threads[MAXTARGETS];
	bool plan_checked[MAXTARGETS];
	Prog **prog;        /* per planned statement */
	/* per planned statement: the native backend's state of it, kept
	 * between runs (NULL: none), freed by backend_native()->release;
	 * then two slots of its own (the lets it keeps, its compiled code) */
	_Atomic(void *) *run_state;
};

#endif
