/* The op table: one row per operator or function of the kernel language.
 *   X(ENUM, spelling, arity, kind, C, jnp)
 * C and jnp are each backend's spelling, $0 $1 $2 standing for the operands
 * (already of the dtype the op computes in, parenthesised by the emitter).
 * The C spellings use <math.h>'s double functions, the f suffix added for
 * f32, and athene_* helpers for what C has no operator for (floor division,
 * NaN-propagating min/max, wrap); jnp is jax.numpy, with jax.lax where it is
 * closer to the language.
 * arity -1: variadic (checked in check.c). kind says how the result dtype is
 * formed (see check.c: op_result):
 *   ARITH  promoted operands -> promoted dtype        (+ - * min max clamp pow)
 *   TDIV   true division: float result                (/)
 *   FLOOR  floor division / modulo, promoted          (// %)
 *   CMP    comparison -> bool
 *   LOGIC  logical -> bool
 *   FLOAT  transcendental: float result (ints -> f32)
 *   SAME   keeps the operand dtype                    (abs neg sign floor ...)
 *   PRED   float predicate -> bool                    (isnan isinf)
 *   WHERE  where(bool, a, b)
 *   WRAP   wrap(i, n): integer */
X(OP_ADD,     "+",       2, K_ARITH, "$0 + $1", "$0 + $1")
X(OP_SUB,     "-",       2, K_ARITH, "$0 - $1", "$0 - $1")
X(OP_MUL,     "*",       2, K_ARITH, "$0 * $1", "$0 * $1")
X(OP_DIV,     "/",       2, K_TDIV, "$0 / $1", "$0 / $1")
X(OP_FLOORDIV,"//",      2, K_FLOOR, "athene_floordiv($0, $1)", "$0 // $1")
X(OP_MOD,     "%",       2, K_FLOOR, "athene_mod($0, $1)", "$0 % $1")
X(OP_EQ,      "==",      2, K_CMP, "$0 == $1", "$0 == $1")
X(OP_NE,      "!=",      2, K_CMP, "$0 != $1", "$0 != $1")
X(OP_LT,      "<",       2, K_CMP, "$0 < $1", "$0 < $1")
X(OP_LE,      "<=",      2, K_CMP, "$0 <= $1", "$0 <= $1")
X(OP_GT,      ">",       2, K_CMP, "$0 > $1", "$0 > $1")
X(OP_GE,      ">=",      2, K_CMP, "$0 >= $1", "$0 >= $1")
X(OP_AND,     "&&",      2, K_LOGIC, "$0 && $1", "$0 & $1")
X(OP_OR,      "||",      2, K_LOGIC, "$0 || $1", "$0 | $1")
X(OP_NOT,     "!",       1, K_LOGIC, "!$0", "~$0")
X(OP_NEG,     "neg",     1, K_SAME, "-$0", "-$0")
X(OP_ABS,     "abs",     1, K_SAME, "athene_abs($0)", "jnp.abs($0)")
X(OP_SIGN,    "sign",    1, K_SAME, "athene_sign($0)", "jnp.where($0 == 0, jnp.abs($0), jnp.sign($0))")
X(OP_RELU,    "relu",    1, K_SAME, "athene_relu($0)", "jnp.maximum($0, 0)")
X(OP_FLOOR,   "floor",   1, K_SAME, "floor($0)", "jnp.floor($0)")
X(OP_CEIL,    "ceil",    1, K_SAME, "ceil($0)", "jnp.ceil($0)")
X(OP_ROUND,   "round",   1, K_SAME, "nearbyint($0)", "jnp.round($0)")
X(OP_TRUNC,   "trunc",   1, K_SAME, "trunc($0)", "jnp.trunc($0)")
X(OP_EXP,     "exp",     1, K_FLOAT, "exp($0)", "jnp.exp($0)")
X(OP_EXP2,    "exp2",    1, K_FLOAT, "exp2($0)", "jnp.exp2($0)")
X(OP_LOG,     "log",     1, K_FLOAT, "log($0)", "jnp.log($0)")
X(OP_LOG2,    "log2",    1, K_FLOAT, "log2($0)", "jnp.log2($0)")
X(OP_LOG1P,   "log1p",   1, K_FLOAT, "log1p($0)", "jnp.log1p($0)")
X(OP_EXPM1,   "expm1",   1, K_FLOAT, "expm1($0)", "jnp.expm1($0)")
X(OP_SQRT,    "sqrt",    1, K_FLOAT, "sqrt($0)", "jnp.sqrt($0)")
X(OP_RSQRT,   "rsqrt",   1, K_FLOAT, "1 / sqrt($0)", "jax.lax.rsqrt($0)")
X(OP_SIN,     "sin",     1, K_FLOAT, "sin($0)", "jnp.sin($0)")
X(OP_COS,     "cos",     1, K_FLOAT, "cos($0)", "jnp.cos($0)")
X(OP_TAN,     "tan",     1, K_FLOAT, "tan($0)", "jnp.tan($0)")
X(OP_TANH,    "tanh",    1, K_FLOAT, "tanh($0)", "jnp.tanh($0)")
X(OP_SIGMOID, "sigmoid", 1, K_FLOAT, "1 / (1 + exp(-$0))", "jax.nn.sigmoid($0)")
X(OP_ERF,     "erf",     1, K_FLOAT, "erf($0)", "jax.lax.erf($0)")
X(OP_ATAN2,   "atan2",   2, K_FLOAT, "atan2($0, $1)", "jnp.arctan2($0, $1)")
X(OP_ISNAN,   "isnan",   1, K_PRED, "isnan($0)", "jnp.isnan($0)")
X(OP_ISINF,   "isinf",   1, K_PRED, "isinf($0)", "jnp.isinf($0)")
X(OP_POW,     "pow",     2, K_ARITH, "athene_pow($0, $1)", "jnp.power($0, $1)")
X(OP_MIN,     "min",     2, K_ARITH, "athene_min($0, $1)", "jnp.where($0 < $1, $0, jnp.where($0 != $0, $0, $1))")
X(OP_MAX,     "max",     2, K_ARITH, "athene_max($0, $1)", "jnp.where($0 > $1, $0, jnp.where($0 != $0, $0, $1))")
X(OP_CLAMP,   "clamp",   3, K_ARITH, "athene_clamp($0, $1, $2)", "jnp.clip($0, $1, $2)")
X(OP_WHERE,   "where",   3, K_WHERE, "$0 ? $1 : $2", "jnp.where($0, $1, $2)")
X(OP_WRAP,    "wrap",    2, K_WRAP, "athene_wrap($0, $1)", "jnp.where($0 < 0, $0 + $1, $0)")

#ifdef RX
/* The reduction table: RX(ENUM, name, jnp function, C identity) */
RX(R_SUM,    "sum",    "jnp.sum",    "0")
RX(R_PROD,   "prod",   "jnp.prod",   "1")
RX(R_MAX,    "max",    "jnp.max",    "-INFINITY")
RX(R_MIN,    "min",    "jnp.min",    "INFINITY")
RX(R_MEAN,   "mean",   "jnp.mean",   "0")
RX(R_ARGMAX, "argmax", "jnp.argmax", "0")
RX(R_ARGMIN, "argmin", "jnp.argmin", "0")
RX(R_ANY,    "any",    "jnp.any",    "0")
RX(R_ALL,    "all",    "jnp.all",    "1")
#endif
