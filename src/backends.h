/* The backend table (backends.c): every planner target and every backend,
 * one row each, the way QBE lists its targets. The driver knows backends
 * only through it; nothing else compares a target's or a backend's name.
 * Adding a backend: its folder (its Target, its entry points), one row
 * here, its folder in the Makefile and docs/layers.txt. */
#ifndef ATHENE_BACKENDS_H
#define ATHENE_BACKENDS_H

#include "analysis/analysis.h"

typedef struct {
	const char *name;     /* as athene_emit, athene run and --target name it */
	const Target *target; /* what it plans for: the instance's plan slot target->id */
	/* Runs a compiled instance (NULL: the backend only emits), unwinding to
	 * d on a run-time error; and whether a failing run leaves the outputs
	 * untouched (athene_inst_clean_errors). */
	void (*run)(const Inst *in, void *const *storage, Diag *d, bool untouched);
	bool (*clean_errors)(const Inst *in);
	/* Frees what run kept in the instance between runs (NULL: nothing). */
	void (*release)(Inst *in);
	/* Emits one kernel and the module around the kernels of a file (NULL:
	 * the backend only runs); variant is passed to emit_kernel. */
	void (*emit_kernel)(Buf *out, unsigned *needs, Inst *in, const Plan *p, bool variant, Arena *scratch);
	void (*emit_module)(Buf *out, const char *file, const char *target, const char *chip, unsigned needs,
	                    const char *kernels);
	bool variant;
	const char *const *chips; /* the chips an emitted module may name, NULL-terminated; NULL: none */
} Backend;

/* The planner's targets, by id (NULL past the last), and by name. */
const Target *target_at(int id);
const Target *target_named(const char *name);
/* The backend of that name, or NULL. */
const Backend *backend_named(const char *name);
/* The native backend athene_run uses. */
const Backend *backend_native(void);
/* "a, b, c": the names of the targets (or of the backends that emit), for messages. */
void target_names(Buf *b);
void emit_backend_names(Buf *b);
/* Is chip one of b's? */
bool backend_chip_ok(const Backend *b, const char *chip);

#endif
