/* The reports of athene explain and athene -d, for the driver alone. */
#ifndef ATHENE_EXPLAIN_H
#define ATHENE_EXPLAIN_H

#include "analysis/analysis.h"

/* ---------------------------------------------------------------- explain.c */

void explain_bind(Buf *b, const Inst *in);
void explain_inline(Buf *b, const Inst *in);
void explain_offsets(Buf *b, const Inst *in, bool raw);
void explain_views(Buf *b, const Inst *in);
void explain_plan(Buf *b, const Plan *p, bool json);

#endif
