"""A small generator of random kernels and their inputs, shared by the fuzzers of the Python
package (tests/fuzz_python.py) and of the Pallas emitter (tests/pallas/fuzz_emit.py).

A kernel has one to three inputs over the size symbols N and M (rank 0 to 2, any dtype), maybe a
table read through a row gather `t[wrap(idx[i], V), j]`, maybe a `let`, and one or two outputs:
an elementwise statement over (i, j) or a reduction over j. Expressions mix arithmetic, floor
division and modulo, min/max, comparisons under `where`, casts and a few float functions, with
literals at the edges (0, -1, 2^31, 1e30, ...). Some kernels do not check (`-` on a bool, say):
that is an answer too. Inputs hold edge values (0, -0.0, NaN, inf, the dtype's limits) among
ordinary ones; gather indices are mostly in range.
"""

import numpy as np

DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "f16", "bf16", "f32", "f64"]
FLOATS = {"f16", "bf16", "f32", "f64"}
WEIGHTED = DTYPES + ["f32", "f32", "i32", "i64", "f64"]
SIZES = [0, 1, 2, 3, 5, 8, 17]
LITERALS = ["0", "1", "2", "-1", "3", "7", "-8", "127", "255", "2147483647", "0.5", "-2.5", "1e30", "0.0",
            "-0.0", "1e-3", "65504.0"]
UNARY = ["abs", "neg", "relu", "sign", "floor", "ceil", "round", "trunc", "exp", "log", "sqrt", "tanh", "sigmoid",
         "log1p", "expm1", "sin", "erf", "rsqrt"]
BINARY = ["+", "-", "*", "/", "//", "%", "min", "max", "pow", "atan2"]
COMPARE = ["<", "<=", ">", ">=", "==", "!="]
REDUCE = ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all"]
INTS = ["i8", "i16", "i32", "i64", "u8"]
BITWISE = ["&", "|", "^", "<<", ">>"]
# D.bits(x): x cast to a dtype of D's size first
BITS = {"i8": "u8", "u8": "i8", "i16": "f16", "f16": "i16", "bf16": "i16", "i32": "f32", "f32": "i32",
        "i64": "f64", "f64": "i64"}
EXACT_UNARY = ["abs", "neg", "relu", "sign", "floor", "ceil", "round", "trunc", "sqrt"]
# The lowest exponent bit of the float that D.bits makes of an integer dtype: or-ed in, the bits
# are a normal float, an infinity or a NaN. Exact kernels use it, since XLA on a CPU (and a TPU)
# reads a subnormal f32 or f64 operand as zero (x % f32.bits(1) is NaN there); f16 subnormals
# are normal in the f32 it computes f16 in
NORMAL_BIT = {"i32": 1 << 23, "i64": 1 << 52}


class Gen:
    """One random kernel: its source, its inputs (name, dtype, dims) and its sizes."""

    def __init__(self, rng, big=False, exact=False):
        """big: sometimes sizes at the 64-bit limits. exact: only operations two correct
        implementations agree on to the bit (no transcendental functions, pow or atan2, and no
        reductions whose rounding depends on their order: sum, prod, mean)."""
        self.rng = rng
        self.exact = exact
        self.unary = [u for u in UNARY if not exact or u in EXACT_UNARY]
        self.binary = [b for b in BINARY if not exact or b not in ("pow", "atan2")]
        self.reduce = [r for r in REDUCE if not exact or r not in ("sum", "prod", "mean")]
        self.inputs = []  # (name, dtype, dims): dims a tuple of "N", "M", "V"
        self.sizes = {"N": rng.choice(SIZES), "M": rng.choice(SIZES)}
        if big and rng.random() < 0.5:
            self.sizes[rng.choice(["N", "M"])] = rng.choice([2**31, 2**40, 2**62, 2**63 - 1])
        self.gather = None
        self.lets = []
        self.source = self._kernel()

    # ---- pieces

    def _input(self, dims):
        r = self.rng
        mine = [n for n, _, d in self.inputs if d == dims and n not in ("t", "idx")]
        if mine and (r.random() < 0.5 or len(self.inputs) >= 6):
            return r.choice(mine)
        if len(self.inputs) >= 6:
            return None
        name = "abcdefgh"[len(self.inputs)]
        self.inputs.append((name, r.choice(WEIGHTED), dims))
        return name

    def _leaf(self, dims, depth):
        r = self.rng
        x = r.random()
        if x < 0.15:
            return r.choice(LITERALS)
        if x < 0.22:
            return r.choice(["i", "j"][:len(dims) or 1]) if dims else "1"
        if x < 0.3 and self.gather and dims == ("N", "M"):
            return "t[wrap(idx[i], V), j]"
        if x < 0.36 and self.lets and dims == ("N", "M"):
            return f"{self.rng.choice(self.lets)}[i, j]"
        shape = r.choice([dims, dims[:1], dims[1:], ()]) if dims else ()
        if dims == ("N", "M") and r.random() < 0.15:
            shape = ("M",)
        sub = {("N", "M"): "[i, j]", ("N",): "[i]", ("M",): "[j]", (): "[]"}[shape]
        if shape == ("M",) and dims == ("N",):
            shape, sub = (), "[]"
        name = self._input(shape)
        return name + sub if name else r.choice(LITERALS)

    def expr(self, dims, depth=0):
        r = self.rng
        if depth >= 3 or r.random() < 0.3:
            return self._leaf(dims, depth)
        x = r.random()
        if x < 0.3:
            op = r.choice(self.binary)
            a, b = self.expr(dims, depth + 1), self.expr(dims, depth + 1)
            return f"{op}({a}, {b})" if op[0].isalpha() else f"({a} {op} {b})"
        if x < 0.5:
            return f"{r.choice(self.unary)}({self.expr(dims, depth + 1)})"
        if x < 0.65:
            c = f"({self.expr(dims, depth + 1)} {r.choice(COMPARE)} {self.expr(dims, depth + 1)})"
            return f"where({c}, {self.expr(dims, depth + 1)}, {self.expr(dims, depth + 1)})"
        if x < 0.75:
            return f"{r.choice(DTYPES)}({self.expr(dims, depth + 1)})"
        if x < 0.8:
            return f"clamp({self.expr(dims, depth + 1)}, {r.choice(LITERALS)}, {r.choice(LITERALS)})"
        if x < 0.85:
            return f"isnan({self.expr(dims, depth + 1)})"
        if x < 0.9:  # bitwise ops and shifts on integers (counts of any value)
            dt, op = r.choice(INTS), r.choice(BITWISE)
            a, b = self.expr(dims, depth + 1), self.expr(dims, depth + 1)
            return f"({dt}({a}) {op} {dt}({b}))" if r.random() < 0.8 else f"(~{dt}({a}))"
        if x < 0.93:
            src = r.choice(sorted(BITS))
            a = f"{src}({self.expr(dims, depth + 1)})"
            if self.exact and src in NORMAL_BIT:  # no subnormal from the bits of a small integer
                a = f"({a} | {src}({NORMAL_BIT[src]}))"
            elif self.exact and src in ("f16", "bf16", "f32", "f64"):  # a made NaN's sign is the target's
                a = f"where(isnan({a}), {src}(nan), {a})"
            return f"{BITS[src]}.bits({a})"
        return self._leaf(dims, depth)

    def _kernel(self):
        r = self.rng
        if r.random() < 0.25:
            self.gather = True
            self.sizes["V"] = r.choice([1, 3, 8])
            self.inputs += [("t", r.choice(WEIGHTED), ("V", "M")), ("idx", r.choice(["i64", "i32", "i16"]), ("N",))]
        body = []
        if r.random() < 0.3:
            body.append(f"    let u[i < N, j < M] = {self.expr(('N', 'M'))}")
            self.lets.append("u")
        outs = []
        for o in "yz"[:r.choice([1, 1, 2])]:
            dt = r.choice(WEIGHTED)
            if r.random() < 0.6:
                layout = " strides(1, N)" if r.random() < 0.15 else ""
                outs.append(f"{o}: {dt}[N, M]{layout}")
                body.append(f"    {o}[i, j] = {self.expr(('N', 'M'))}")
            else:
                red = r.choice(self.reduce)
                outs.append(f"{o}: {dt}[N]")
                body.append(f"    {o}[i] = {red}(j < M: {self.expr(('N', 'M'))})")
        params = ", ".join(f"{n}: {dt}[{', '.join(d)}]" for n, dt, d in self.inputs)
        return f"kernel k({params}) -> ({', '.join(outs)}) {{\n" + "\n".join(body) + "\n}\n"


def np_dtype(dt):
    if dt == "bf16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype({"bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
                     "u8": np.uint8, "f16": np.float16, "f32": np.float32, "f64": np.float64}[dt])


def values(rng, dt, shape, name="", sizes=None):
    """A logical array of dtype dt: ordinary values with edge values among them; the indices of a
    gather mostly within wrap's range [-V, V)."""
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    t = np_dtype(dt)
    if name == "idx":
        v = sizes["V"]
        a = np.array([rng.randrange(-v, v) if rng.random() < 0.97 else rng.choice([v, -v - 1, 2**31 - 1])
                      for _ in range(n)], np.int64)
        return a.astype(t).reshape(shape)
    if dt == "bool":
        return np.array([rng.random() < 0.5 for _ in range(n)], bool).reshape(shape)
    if dt in FLOATS:
        edges = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e30, -1e-30, 65504.0]
        a = [rng.choice(edges) if rng.random() < 0.1 else rng.uniform(-4, 4) for _ in range(n)]
        with np.errstate(all="ignore"):
            return np.array(a, np.float64).astype(t).reshape(shape)
    info = np.iinfo(t)
    edges = [0, -1, 1, int(info.min), int(info.max)]
    a = [rng.choice(edges) if rng.random() < 0.1 else rng.randint(-9, 9) for _ in range(n)]
    return np.array(a, np.int64).astype(t).reshape(shape)


def shape_of(dims, sizes):
    return tuple(sizes[d] for d in dims)
