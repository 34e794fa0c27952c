/* The reference interpreter: the oracle every backend is tested against. */
#ifndef ATHENE_ORACLE_H
#define ATHENE_ORACLE_H

#include "analysis/analysis.h"

/* ---------------------------------------------------------------- interp.c */

/* Runs an instance element by element from the checked kernel and the bound
 * layouts (intermediates in scratch). Unwinds to d on run-time errors. */
void interp_run(const Inst *in, void *const *storage, Diag *d, Arena *scratch);

#endif
