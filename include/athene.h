/* athene: a compiler and runtime for fused tensor kernels.
 *
 * The one public header. A context holds the kernels of the sources it
 * loads; an instance binds one kernel's sizes and layouts and owns all that
 * is compiled from them. Every call reports failure through its return
 * value and leaves the diagnostics' text where its doc says. Nothing here
 * exits or prints. */
#ifndef ATHENE_H
#define ATHENE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATHENE_MAX_RANK 8

#if defined(ATHENE_BUILD) && defined(__GNUC__)
#define ATHENE_API __attribute__((visibility("default")))
#else
#define ATHENE_API
#endif

typedef enum {
	ATHENE_BOOL, ATHENE_I8, ATHENE_I16, ATHENE_I32, ATHENE_I64, ATHENE_U8,
	ATHENE_F16, ATHENE_BF16, ATHENE_F32, ATHENE_F64, ATHENE_NDTYPES
} athene_dtype;

typedef struct athene_ctx athene_ctx;
typedef struct athene_kernel athene_kernel;
typedef struct athene_inst athene_inst;

/* What a parameter looks like once sizes are bound: logical shape, storage
 * layout in elements, and how many elements its storage holds. */
typedef struct {
	const char *name;
	athene_dtype dtype;
	int is_output;      /* 0: an input; 1: an output; 2: an output a scatter updates in
	                     * place (its storage's values are read: the elements no point
	                     * writes keep them) */
	int rank;
	int64_t shape[ATHENE_MAX_RANK];
	int64_t strides[ATHENE_MAX_RANK];
	int64_t offset;
	int64_t storage_elems;
} athene_param;

/* ---- contexts and kernels ---- */

ATHENE_API athene_ctx *athene_create(void);
/* Frees the context, its kernels and any instance still alive. */
ATHENE_API void athene_destroy(athene_ctx *ctx);

/* Diagnostics of the last failing athene_load, "file:line:col: error: ..."
 * lines with the source line and a caret; "" when there were none. */
ATHENE_API const char *athene_errors(const athene_ctx *ctx);

/* Parses and checks every kernel of a source text. 0 on success, -1 with
 * diagnostics (at least the first error of every bad kernel); the kernels
 * without errors are kept. A checked kernel is read-only. */
ATHENE_API int athene_load(athene_ctx *ctx, const char *filename, const char *source);

ATHENE_API int athene_kernel_count(const athene_ctx *ctx);
ATHENE_API athene_kernel *athene_kernel_at(athene_ctx *ctx, int i);
ATHENE_API athene_kernel *athene_find_kernel(athene_ctx *ctx, const char *name);
ATHENE_API const char *athene_kernel_name(const athene_kernel *k);
ATHENE_API int athene_kernel_nparams(const athene_kernel *k); /* inputs, then outputs */
ATHENE_API int athene_kernel_ninputs(const athene_kernel *k);
ATHENE_API const char *athene_param_name(const athene_kernel *k, int i);
ATHENE_API int athene_param_index(const athene_kernel *k, const char *name);
ATHENE_API athene_dtype athene_param_dtype(const athene_kernel *k, int i);
ATHENE_API int athene_param_rank(const athene_kernel *k, int i);
/* The size symbol dim d of parameter i is written as, or -1 for a literal. */
ATHENE_API int athene_param_dim_sym(const athene_kernel *k, int i, int d);
/* Does parameter i declare its layout (strides or offset) in the source? */
ATHENE_API int athene_param_declares_layout(const athene_kernel *k, int i);
ATHENE_API int athene_size_count(const athene_kernel *k);
ATHENE_API const char *athene_size_name(const athene_kernel *k, int s);
ATHENE_API int athene_size_index(const athene_kernel *k, const char *name);

/* ---- instances ---- */

/* An instance of a kernel: its sizes and layouts bound, then compiled. Any
 * number of instances of one kernel live side by side; each owns all the
 * memory derived from its binding, freed by athene_instance_free. Two
 * threads may use two instances at once, never one. NULL when out of memory. */
ATHENE_API athene_inst *athene_instance(athene_kernel *k);
ATHENE_API void athene_instance_free(athene_inst *in);
ATHENE_API athene_kernel *athene_instance_kernel(const athene_inst *in);
/* Diagnostics of the instance's last failing call; "" when none. */
ATHENE_API const char *athene_inst_errors(const athene_inst *in);

/* Binding. A size symbol is bound by name; binding it twice to different
 * values is an error. Dims of parameters that are a bare symbol are bound
 * from an array's shape. A parameter that declares no layout may be given
 * one (element strides, possibly negative or zero, and an element offset):
 * this is how a strided array view arrives. All before athene_compile. */
ATHENE_API int athene_bind_size(athene_inst *in, const char *sym, int64_t value);
/* The same, with the words its messages use for where the value came from
 * ("--size N=4" on the command line; athene_bind_size says "N=4"). */
ATHENE_API int athene_bind_size_from(athene_inst *in, const char *sym, int64_t value, const char *from);
ATHENE_API int athene_bind_shape(athene_inst *in, int param, int rank, const int64_t *shape);
ATHENE_API int athene_bind_layout(athene_inst *in, int param, const int64_t *strides, int64_t offset);
/* The value bound to size symbol s: 0 with *value, -1 when unbound. */
ATHENE_API int athene_size_value(const athene_inst *in, int s, int64_t *value);

/* Runs the compiler's passes on the binding (bind, inline, lower, simplify,
 * analyse): after this the params have concrete layouts and it can run. */
ATHENE_API int athene_compile(athene_inst *in);
ATHENE_API int athene_param_info(const athene_inst *in, int i, athene_param *out);

/* The values an integer input may hold when it is used as an index: whole as
 * a subscript (idx in x[idx[s]] or x[wrap(idx[s], n)]) or as a term of a
 * flat offset (x.flat[64*idx[s] + d]): for generating valid inputs.
 * 0 with [lo, hi] set, or -1 when it is not used that way. */
ATHENE_API int athene_index_range(const athene_inst *in, int param, int64_t *lo, int64_t *hi);

/* The bytes one run logically moves, as `athene run --bench` and the
 * benchmarks count them: each output element once, and each input element
 * the kernel reads once (the digits its view moves, at most its storage; a
 * gather at most one row per output point; an element gather its
 * storage). *lines, if not NULL: the same reads counted as the bytes of the
 * cache lines they touch (a read that skips inside 64-byte lines, like
 * x[:, ::2], touches more than it uses). -1 with errors if the instance
 * does not compile. */
ATHENE_API double athene_bytes_moved(athene_inst *in, double *lines);

/* The access analysis and block plan for a target ("cpu" or "tpu"), as text
 * or JSON; NULL with errors on failure. Valid until the next call on in. */
ATHENE_API const char *athene_explain(athene_inst *in, const char *target, int json);

/* One self-contained Python module of JAX Pallas kernels for the instances
 * ins[0..n) (kernels of one file, each with its sizes bound), emitted from
 * their tpu plans: target "pallas" (TPU through Mosaic) or "pallas-gpu"
 * (Pallas's Triton lowering, power-of-two blocks); both also run in JAX's
 * interpreter on a CPU. A kernel the gpu module cannot hold is left out
 * with a comment line "# ---- kernel K: not emitted for pallas-gpu: why".
 * chip ("v5e", "v6e", "v4" or NULL) is recorded in the module; the plan is
 * the tpu target's for each.
 * For each kernel K the module defines K(*inputs, interpret=None) and the
 * traceable K_pure(*inputs, interpret=False) (see docs/pallas.md). NULL on
 * failure with the errors in athene_inst_errors(ins[0]); the text is valid
 * until the next call on ins[0]. */
ATHENE_API const char *athene_emit(athene_inst *const *ins, int n, const char *target, const char *chip);

/* The passes, in order: athene_pass_name(i) for i = 0, 1, ... until NULL.
 * "parse" and "check" are the kernel's; the others the instance's. */
ATHENE_API const char *athene_pass_name(int i);
/* The planner's targets that explain and dump take: athene_target_name(i)
 * for i = 0, 1, ... until NULL ("cpu", "tpu"). */
ATHENE_API const char *athene_target_name(int i);
/* The backends athene_emit writes modules for, in the backend table's order:
 * athene_emit_target(i) for i = 0, 1, ... until NULL ("pallas",
 * "pallas-gpu"); and the chips a module of target may name,
 * athene_emit_chip(target, i) until NULL (NULL at once for an unknown
 * target or one that names no chip). */
ATHENE_API const char *athene_emit_target(int i);
ATHENE_API const char *athene_emit_chip(const char *target, int i);
/* Text of the IR after a pass (running the passes up to it), for target
 * ("cpu" or "tpu") where the pass depends on one; NULL with errors. */
ATHENE_API const char *athene_dump(athene_inst *in, const char *pass, const char *target);
/* The kernel's source form after "parse" or "check". */
ATHENE_API const char *athene_kernel_dump(athene_kernel *k, const char *pass);

/* ---- running ---- */

/* What one run reports: its own, so runs never share error state. */
typedef struct {
	int failed;
	char message[2048]; /* the first error, "file:line:col: error: ..." */
} athene_status;

/* Runs a compiled instance. storage[i] points at element 0 of parameter i's
 * storage (storage_elems elements of its dtype, laid out as bound). Inputs
 * are only read; an output a scatter updates in place (is_output 2) is read
 * too, and a failing scatter writes nothing. On a run-time error (a data-dependent index out of range)
 * returns -1 and st (if not NULL) says which; outputs may be partly
 * written. Flags: ATHENE_REFERENCE runs the interpreter; ATHENE_UNTOUCHED
 * makes a native row gather read all its indices before it moves a row
 * (one more read of the index tensor), so that a failing run leaves every
 * output as it was wherever athene_inst_clean_errors says so. */
enum { ATHENE_REFERENCE = 1, ATHENE_UNTOUCHED = 2 };
ATHENE_API int athene_run(athene_inst *in, void *const *storage, int flags, athene_status *st);

/* athene_run, with each parameter's storage checked against its bound
 * layout first: storage_elems[i] elements of parameter i's dtype lie from
 * storage[i] on. A layout that reaches further (or a NULL storage of a
 * parameter whose layout reaches any element) returns -2 before anything
 * runs, st saying which parameter; otherwise as athene_run (-1 on a
 * run-time error). The one call a binding made once needs per run. */
ATHENE_API int athene_run_checked(athene_inst *in, void *const *storage, const int64_t *storage_elems, int flags,
                                  athene_status *st);

/* 1 when a native run with ATHENE_UNTOUCHED of a compiled instance that
 * stops on a run-time error leaves every output as it was: no statement
 * that can fail comes after one that writes an output, and each that can
 * writes an intermediate (a let) or is a row gather read straight from its
 * index tensor (which then reads all its indices before it moves a row). 0
 * when a failing run may have written part of an output, or the passes a
 * run needs (run here as athene_run would) fail. */
ATHENE_API int athene_inst_clean_errors(athene_inst *in);

/* The thread count the cpu target plans and runs for: 0 (the default) is
 * the machine's online CPUs. Process-wide. */
ATHENE_API void athene_set_threads(int n);
ATHENE_API int athene_threads(void);

/* The native executor compiles the statements it can (docs/architecture.md,
 * "Compiled statements") in the background, with the system's C compiler,
 * and runs them on its register machine until their code is loaded. This
 * waits until nothing is queued or compiling, and returns how many
 * statement runs so far went through compiled code (process-wide). */
ATHENE_API long long athene_wait_compiled(void);

/* The parallel-region entry of an OpenMP runtime this process already
 * runs, libgomp's GOMP_parallel (void (void (*fn)(void *), void *data,
 * unsigned nthreads, unsigned flags)), or NULL. With one, a kernel's run on
 * more than one thread runs on that runtime's team of threads instead of
 * athene's own workers, so the two never compete for cores: athene.torch
 * passes torch's, whose threads spin for a while after each of its
 * kernels. athene_team_runs counts the runs made so. Process-wide. */
ATHENE_API void athene_set_team(void *gomp_parallel);
ATHENE_API long long athene_team_runs(void);

/* Zeroed memory for a parameter's storage: mapped pages, 2 MiB-aligned and
 * advised to use huge pages when large (a streaming kernel then pays no
 * page fault or TLB miss per 4 KiB). NULL when it cannot be had. Free it
 * with athene_free and the same size. */
ATHENE_API void *athene_alloc(size_t bytes);
ATHENE_API void athene_free(void *p, size_t bytes);

/* Bytes the library holds for every context, instance and run, all threads
 * together: what a cache of instances costs. */
ATHENE_API long long athene_memory_in_use(void);

/* ---- arrays and elements, for tools around the library ---- */

/* A C-order array in native byte order; data is malloc'd. */
typedef struct {
	athene_dtype dtype;
	int rank;
	int64_t shape[ATHENE_MAX_RANK];
	void *data;
	size_t nbytes;
} athene_array;
/* .npy files (versions 1-3, any byte order, Fortran order transposed).
 * 0 on success; -1 with a message in err. Writing is atomic. */
ATHENE_API int athene_npy_read(const char *path, athene_array *out, char *err, size_t errlen);
ATHENE_API int athene_npy_write(const char *path, athene_dtype dt, int rank, const int64_t *shape, const void *data,
                                char *err, size_t errlen);
/* Writes n arrays so that they appear together or not at all: a regular
 * file (or a symbolic link, written through as cp does) gets a temporary
 * beside it, a FIFO or character device is written into once every
 * temporary is, then all temporaries are renamed into place. Directories
 * and other special files are refused, never replaced; so are two paths
 * naming one file. athene_npy_write is this for one array. */
ATHENE_API int athene_npy_write_all(int n, const char *const *paths, const athene_array *arrays, char *err,
                                    size_t errlen);
ATHENE_API void athene_array_free(athene_array *a);
/* Element i of a buffer of dtype t, as a double or an integer, and back
 * (storing converts like NumPy's astype); and one element converted. */
ATHENE_API double athene_load_f64(const void *base, athene_dtype t, int64_t i);
ATHENE_API void athene_store_f64(void *base, athene_dtype t, int64_t i, double x);
ATHENE_API void athene_store_i64(void *base, athene_dtype t, int64_t i, int64_t x);
ATHENE_API void athene_convert(void *dst, athene_dtype dt, int64_t di, const void *src, athene_dtype st, int64_t si);
ATHENE_API int athene_dtype_is_float(athene_dtype t);

ATHENE_API const char *athene_dtype_name(athene_dtype t);
ATHENE_API size_t athene_dtype_size(athene_dtype t);
ATHENE_API int athene_dtype_from_name(const char *name, athene_dtype *out);

#ifdef __cplusplus
}
#endif
#endif
