/* The op and reduction tables (ops.h), for every layer that reads them. */
#include "base.h"

const struct OpInfo op_info[NOPS] = {
#define X(e, s, n, k, j) {s, n, k, j},
#include "ops.h"
#undef X
};
const struct ReduceInfo reduce_info[R_NONE] = {
#define X(e, s, n, k, j)
#define RX(e, s, j) {s, j},
#include "ops.h"
#undef RX
#undef X
};
