/* The native executor, as the driver sees it: a run of an instance's cpu
 * plan (exec.c), and the thread pool and big buffers (pool.c, in exec.h). */
#ifndef ATHENE_CPU_H
#define ATHENE_CPU_H

#include "analysis/analysis.h"
#include "cpu/exec.h"

/* ---------------------------------------------------------------- target.c */

extern const Target cpu_target;

/* ---------------------------------------------------------------- exec.c */

/* Runs an instance's cpu plan (in->plan[cpu_target.id], in->prog)
 * natively on the thread pool. Unwinds to d, from the calling thread only, on run-time
 * errors: the interpreter's message for the first failing element. With
 * untouched, row gathers check every index before they move a row
 * (ATHENE_UNTOUCHED). */
void exec_run(const Inst *in, void *const *storage, Diag *d, bool untouched);
/* Does a native run that stops on a run-time error leave every output as
 * it was? See athene_inst_clean_errors. */
bool exec_clean_errors(const Inst *in);
/* Frees the statements' state exec_run kept in the instance. */
void exec_release(Inst *in);

/* ---------------------------------------------------------------- jit.c */

/* Waits until no statement is queued for the C compiler or compiling. */
void jit_wait(void);
/* Statement runs through compiled code in this process. */
int64_t jit_ran(void);

#endif
