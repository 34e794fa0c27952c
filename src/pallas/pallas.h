/* The Pallas emitter, as the driver sees it (emit.c; kernel.c and
 * common.c behind it share emit.h). */
#ifndef ATHENE_PALLAS_H
#define ATHENE_PALLAS_H

#include "analysis/analysis.h"

/* ---------------------------------------------------------------- target.c */

extern const Target tpu_target;
extern const char *const tpu_chips[]; /* NULL-terminated */

/* ---------------------------------------------------------------- emit.c */

/* Appends one kernel's Pallas functions, from its tpu plan and body IR
 * (read-only), to out; what the module's head must define accumulates in
 * *needs. Unwinds to the instance's diagnostics on what it cannot express.
 * Everything it allocates is in scratch (the caller frees it, also after
 * an unwind): emitting leaves the instance as it was. */
void emit_pallas_kernel(Buf *out, unsigned *needs, Inst *in, const Plan *p, bool gpu, Arena *scratch);
/* The module: its docstring, imports and the helpers in needs, then kernels. */
void emit_pallas_module(Buf *out, const char *file, const char *target, const char *chip, unsigned needs,
                        const char *kernels);

#endif
