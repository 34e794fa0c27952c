/* The reports of athene explain and athene -d, for the driver alone. */
#ifndef ATHENE_EXPLAIN_H
#define ATHENE_EXPLAIN_H

#include "analysis/analysis.h"

/* ---------------------------------------------------------------- explain.c */

void dump_bind(Buf *b, const Inst *in);
void dump_inline(Buf *b, const Inst *in);
void dump_offsets(Buf *b, const Inst *in, bool raw);
void dump_views(Buf *b, const Inst *in);
void plan_explain(Buf *b, const Plan *p, bool json);

#endif
