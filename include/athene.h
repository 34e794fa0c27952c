/* athene: a compiler and runtime for fused tensor kernels.
 *
 * The one public header. A context owns everything it compiles (one arena);
 * every call reports failure through its return value and leaves the text of
 * the diagnostics in athene_errors(). Nothing here exits or prints. */
#ifndef ATHENE_H
#define ATHENE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATHENE_MAX_RANK 8

typedef enum {
	ATHENE_BOOL, ATHENE_I8, ATHENE_I16, ATHENE_I32, ATHENE_I64, ATHENE_U8,
	ATHENE_F16, ATHENE_BF16, ATHENE_F32, ATHENE_F64, ATHENE_NDTYPES
} athene_dtype;

typedef struct athene_ctx athene_ctx;
typedef struct athene_kernel athene_kernel;

/* What a parameter looks like once sizes are bound: logical shape, storage
 * layout in elements, and how many elements its storage holds. */
typedef struct {
	const char *name;
	athene_dtype dtype;
	int is_output;
	int rank;
	int64_t shape[ATHENE_MAX_RANK];
	int64_t strides[ATHENE_MAX_RANK];
	int64_t offset;
	int64_t storage_elems;
} athene_param;

athene_ctx *athene_create(void);
void athene_destroy(athene_ctx *ctx);

/* Diagnostics of the last failing call, "file:line:col: error: ..." lines
 * with the source line and a caret; "" when there were none. */
const char *athene_errors(const athene_ctx *ctx);

/* Parses and checks every kernel of a source text. 0 on success, -1 with
 * diagnostics (at least the first error of every bad kernel). */
int athene_load(athene_ctx *ctx, const char *filename, const char *source);

int athene_kernel_count(const athene_ctx *ctx);
athene_kernel *athene_kernel_at(athene_ctx *ctx, int i);
athene_kernel *athene_find_kernel(athene_ctx *ctx, const char *name);
const char *athene_kernel_name(const athene_kernel *k);
int athene_kernel_nparams(const athene_kernel *k); /* inputs, then outputs */
int athene_kernel_ninputs(const athene_kernel *k);
const char *athene_param_name(const athene_kernel *k, int i);
int athene_param_index(const athene_kernel *k, const char *name);

/* Size symbols. A symbol is bound by name; binding it twice to different
 * values is an error. Dims of parameters that are a bare symbol can also be
 * bound from an array's shape. */
int athene_bind_size(athene_kernel *k, const char *sym, int64_t value);
int athene_bind_shape(athene_kernel *k, int param, int rank, const int64_t *shape);
void athene_unbind(athene_kernel *k);

/* Binds the remaining symbols, then lowers and simplifies: after this the
 * kernel's params have concrete layouts and the kernel can run. */
int athene_compile(athene_kernel *k);
int athene_param_info(const athene_kernel *k, int i, athene_param *out);

/* Runs a compiled kernel. storage[i] points at element 0 of parameter i's
 * storage (storage_elems elements of its dtype, laid out as declared).
 * Inputs are only read. On a run-time error (a data-dependent index out of
 * range) returns -1 and athene_errors() says which. */
enum { ATHENE_REFERENCE = 1 };
int athene_run(athene_kernel *k, void *const *storage, int mode);

/* The values an integer input may hold when it is used as an index: whole as
 * a subscript (idx in x[idx[s]] or x[wrap(idx[s], n)]) or as a term of a
 * flat offset (x.flat[64*idx[s] + d]): for generating valid inputs.
 * 0 with [lo, hi] set, or -1 when it is not used that way. */
int athene_index_range(const athene_kernel *k, int param, int64_t *lo, int64_t *hi);

/* The access analysis and block plan of a compiled kernel for a target
 * ("cpu" or "tpu"), as text or JSON; NULL with errors on failure. */
const char *athene_explain(athene_kernel *k, const char *target, int json);

/* Text of the IR after a pass: "parse", "check", "lower", "simplify". */
const char *athene_dump(athene_kernel *k, const char *pass);

const char *athene_dtype_name(athene_dtype t);
size_t athene_dtype_size(athene_dtype t);
int athene_dtype_from_name(const char *name, athene_dtype *out);

#ifdef __cplusplus
}
#endif
#endif
