"""The kernel writer: Inductor's fused kernels as athene kernel sources.

AtheneScheduling is a SIMDScheduling; each fused node schedule becomes an AtheneKernel, whose
codegen_kernel() writes ONE athene kernel. Inductor hands the kernel range trees (xindex,
yindex, r0_index, ...) and loads, stores, reductions and index expressions over iteration
variables that are digits of those trees (x1 = xindex // 3, x0 = ModularIndexing(xindex, 1, 3)).
The writer splits every tree into its finest digits and makes those the athene statement's index
variables, so every access is Inductor's flat index expression over plain variables:

    kernel k(in0: f32[3, 5, 7] strides(35, 7, 1)) -> (out: f32[7, 5, 3] strides(15, 3, 1)) {
        out[y_0, x_1, x_0] = in0.flat[35*x_0 + 7*x_1 + y_0]
    }

Inputs are declared with the layout Inductor gives them and read with `.flat[...]` (offsets from
the tensor's data pointer, exactly Inductor's). An output is declared with the layout its store
index implies (strides = the index's coefficients of the statement's variables, offset = its
constant term), so athene's analysis sees views, permutations and gathers. A store whose index
reads loaded values, or that adds (mode atomic_add), is an athene scatter into the buffer's own
layout, which it updates in place (KernelWriter.scatter). Values are athene
expressions, inlined into the statements that use them; a reduction becomes a `let` over the
non-reduction variables (persistent reductions: the whole reduction in one pass).

Anything athene cannot express raises Unsupported during codegen; the backend then compiles the
whole graph with Inductor's C++ backend instead (see athene.torch)."""

from __future__ import annotations

import contextlib
import itertools
import math
import re
from typing import Any, Dict, List, Optional, Tuple

import sympy
import torch
from torch._inductor.codegen.common import BackendFeature, CSEVariable, DeferredLine, OpOverrides
from torch._inductor.codegen.simd import SIMDKernel, SIMDScheduling
from torch._inductor.dtype_propagation import DtypePropagationOpsHandler
from torch._inductor.ops_handler import OpsHandler
from torch._inductor.utils import get_kernel_metadata
from torch._inductor.virtualized import V, ops
from torch.utils._ordered_set import OrderedSet
from torch.utils._sympy.functions import (CleanDiv, FloorDiv, Identity, Max, Min, ModularIndexing, PythonMod,
                                          Where)
from torch.utils._sympy.symbol import SymT, symbol_is_type

BACKEND = "athene"  # the value of config.cpu_backend that selects this scheduling
# ... and those that select it for a Pallas target (options={"target": ...}; _pallas.py)
BACKENDS = (BACKEND, BACKEND + "-pallas", BACKEND + "-pallas-gpu")


class Unsupported(RuntimeError):
    """A kernel athene cannot express: the graph falls back to Inductor's C++ backend."""


DTYPES = {
    torch.bool: "bool", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
    torch.uint8: "u8", torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32", torch.float64: "f64",
}


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype values of `dtype` are computed in: f16 and bf16 in f32, as Inductor's own
    backends do (loads are widened, each store rounds once); every other dtype in itself."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def athene_dtype(dtype: torch.dtype) -> str:
    try:
        return DTYPES[dtype]
    except KeyError:
        raise Unsupported(f"dtype {dtype} is not an athene dtype") from None


# ---- index expressions (sympy) as athene text


class IndexPrinter:
    """Prints Inductor's sympy index expressions in athene's syntax. `names` maps symbols to the
    text that replaces them (iteration variables to digit expressions are substituted before;
    size symbols to athene size symbols; indirect tmpN stay tmpN for the value inliner)."""

    def __init__(self, names: Dict[sympy.Symbol, str], seen: Optional[set] = None, variables: Any = ()) -> None:
        self.names = names
        self.seen = seen  # collects the names of the size symbols printed
        self.variables = set(variables)  # the statement's index variables

    def __call__(self, e: sympy.Expr) -> str:
        return self.p(e)

    def p(self, e: Any) -> str:
        if isinstance(e, (int, sympy.Integer)):
            return int_literal(int(e))
        if e is sympy.true:
            return "true"
        if e is sympy.false:
            return "false"
        if isinstance(e, sympy.Symbol):
            if e in self.names:
                return self.names[e]
            if self.seen is not None and not symbol_is_type(e, SymT.TMP) and e not in self.variables:
                self.seen.add(e.name)
            return e.name
        if isinstance(e, sympy.Add):
            terms = sorted(e.args, key=lambda t: (t.is_number, str(t)))
            return "(" + " + ".join(self.p(t) for t in terms) + ")"
        if isinstance(e, sympy.Mul):
            factors = []
            for f in e.args:
                if isinstance(f, sympy.Pow) and f.exp.is_Integer and int(f.exp) > 0:
                    factors += [f.base] * int(f.exp)
                elif f.is_Rational and not f.is_Integer:
                    raise Unsupported(f"index expression {e} has a rational factor")
                else:
                    factors.append(f)
            return "(" + " * ".join(self.p(f) for f in factors) + ")"
        if isinstance(e, sympy.Pow):
            if e.exp.is_Integer and int(e.exp) > 0:
                return "(" + " * ".join([self.p(e.base)] * int(e.exp)) + ")"
            raise Unsupported(f"index expression {e}: a power")
        if isinstance(e, (FloorDiv, CleanDiv)):
            return f"({self.p(e.args[0])} // {self.p(e.args[1])})"
        if isinstance(e, ModularIndexing):
            x, d, m = e.args
            inner = self.p(x) if d == 1 else f"({self.p(x)} // {self.p(d)})"
            return f"({inner} % {self.p(m)})"
        if isinstance(e, (PythonMod, sympy.Mod)):
            return f"({self.p(e.args[0])} % {self.p(e.args[1])})"
        if isinstance(e, Where):
            return f"where({self.p(e.args[0])}, {self.p(e.args[1])}, {self.p(e.args[2])})"
        if isinstance(e, (Min, Max)):
            fn = "min" if isinstance(e, Min) else "max"
            args = sorted(e.args, key=str)
            out = self.p(args[0])
            for a in args[1:]:
                out = f"{fn}({out}, {self.p(a)})"
            return out
        if isinstance(e, Identity):
            return self.p(e.args[0])
        if isinstance(e, sympy.Abs):
            return f"abs({self.p(e.args[0])})"
        rel = {sympy.StrictLessThan: "<", sympy.LessThan: "<=", sympy.StrictGreaterThan: ">",
               sympy.GreaterThan: ">=", sympy.Equality: "==", sympy.Unequality: "!="}
        for cls, op in rel.items():
            if isinstance(e, cls):
                return f"({self.p(e.args[0])} {op} {self.p(e.args[1])})"
        if isinstance(e, sympy.And):
            return "(" + " && ".join(self.p(a) for a in e.args) + ")"
        if isinstance(e, sympy.Or):
            return "(" + " || ".join(self.p(a) for a in e.args) + ")"
        if isinstance(e, sympy.Not):
            return f"(!{self.p(e.args[0])})"
        raise Unsupported(f"index expression {e} ({type(e).__name__}) has no athene form")


def int_literal(v: int) -> str:
    if v == -(1 << 63):
        return "(-9223372036854775807 - 1)"
    return str(v) if v >= 0 else f"(-{-v})"


def float_literal(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "(-inf)"
    r = repr(float(v))
    return r if not r.startswith("-") else f"({r})"


# ---- values


class AtheneCSEVariable(CSEVariable):
    """A value of the kernel (tmpN); its dtype comes from Inductor's dtype propagation, which
    Inductor runs only for its own backends, so the variable works it out from the op's args."""

    def update_on_args(self, name: str, args: Any, kwargs: Any) -> None:
        if self.dtype is None:
            try:
                self.dtype = getattr(DtypePropagationOpsHandler(), name)(*args, **kwargs)
            except Exception:  # an op dtype propagation does not know: left unknown
                pass


def _dt(x: Any) -> Optional[torch.dtype]:
    if isinstance(x, CSEVariable):
        return x.dtype
    if isinstance(x, bool):
        return torch.bool
    if isinstance(x, int):
        return torch.int64
    if isinstance(x, float):
        return torch.float32
    return None


def _is_bool(x: Any) -> bool:
    return _dt(x) == torch.bool


def _un(fn: str):
    return staticmethod(lambda x: f"{fn}({x})")


def _bin(fn: str):
    return staticmethod(lambda x, y: f"{fn}({x}, {y})")


class AtheneOverrides(OpOverrides):
    """Inductor's pointwise ops as athene expressions (src/ops.h has athene's functions)."""

    @staticmethod
    def constant(value: Any, dtype: torch.dtype) -> str:
        if dtype == torch.bool:
            return "true" if value else "false"
        dt = athene_dtype(compute_dtype(dtype))
        if dtype.is_floating_point:
            return f"{dt}({float_literal(float(value))})"
        if isinstance(value, float) and not value.is_integer():
            raise Unsupported(f"constant {value} of dtype {dtype}")
        v = int(value)
        return int_literal(v) if dtype == torch.int64 else f"{dt}({int_literal(v)})"

    @staticmethod
    def to_dtype(x: Any, dtype: torch.dtype, src_dtype: Optional[torch.dtype] = None,
                 use_compute_types: bool = True) -> str:
        return f"{athene_dtype(compute_dtype(dtype) if use_compute_types else dtype)}({x})"

    @staticmethod
    def to_dtype_bitcast(x: Any, dtype: torch.dtype, src_dtype: torch.dtype) -> str:
        # x holds src_dtype's value in its compute dtype (f16 and bf16 in f32): back to
        # src_dtype, the bits as dtype (one size, as torch's view(dtype) of one element), and the
        # result in dtype's compute dtype
        if torch.bool in (dtype, src_dtype) or dtype.itemsize != src_dtype.itemsize:
            raise Unsupported(f"bitcast {src_dtype} -> {dtype}")
        v = f"{athene_dtype(dtype)}.bits({athene_dtype(src_dtype)}({x}))"
        cdt = compute_dtype(dtype)
        return v if cdt == dtype else f"{athene_dtype(cdt)}({v})"

    @staticmethod
    def index_expr(expr: sympy.Expr, dtype: torch.dtype) -> str:
        text = V.kernel.index_placeholder(expr)
        return text if dtype == torch.int64 else f"{athene_dtype(compute_dtype(dtype))}({text})"

    value_expr = index_expr

    @staticmethod
    def masked(mask: Any, body: Any, other: Any) -> Any:
        with V.kernel.mask_loads(mask, other) as m:
            V.kernel.masked_depth += 1
            try:
                result = body()
            finally:
                V.kernel.masked_depth -= 1
        if isinstance(other, float) and math.isnan(other):
            other_v = ops.constant(float("nan"), result.dtype or torch.float32)
        else:
            other_v = ops.constant(other, result.dtype or torch.float32)
        return ops.where(m, result, other_v)

    @staticmethod
    def where(c: Any, a: Any, b: Any) -> str:
        return f"where({c}, {a}, {b})"

    @staticmethod
    def add(a: Any, b: Any) -> str:
        return f"({a} + {b})"

    @staticmethod
    def sub(a: Any, b: Any) -> str:
        if _is_bool(a) and _is_bool(b):
            raise Unsupported("sub of bools")
        return f"({a} - {b})"

    @staticmethod
    def mul(a: Any, b: Any) -> str:
        return f"({a} * {b})"

    @staticmethod
    def truediv(a: Any, b: Any) -> str:
        return f"({a} / {b})"

    @staticmethod
    def floordiv(a: Any, b: Any) -> str:
        return f"({a} // {b})"

    @staticmethod
    def truncdiv(a: Any, b: Any) -> str:
        # C's division: floor division, one up where the signs differ and it is not exact
        return f"(({a} // {b}) + where((({a} % {b}) != 0) && ((({a}) < 0) != (({b}) < 0)), 1, 0))"

    @staticmethod
    def mod(a: Any, b: Any) -> str:
        # C's (and fmod's) remainder, sign of the dividend, from athene's floor modulo
        return f"where((({a} % {b}) != 0) && ((({a}) < 0) != (({b}) < 0)), ({a} % {b}) - ({b}), ({a} % {b}))"

    fmod = mod

    @staticmethod
    def remainder(a: Any, b: Any) -> str:
        return f"({a} % {b})"  # athene's % is Python's (and torch.remainder's)

    @staticmethod
    def neg(a: Any) -> str:
        if _is_bool(a):
            raise Unsupported("neg of a bool")
        return f"(-{a})"

    @staticmethod
    def eq(a: Any, b: Any) -> str:
        return f"({a} == {b})"

    @staticmethod
    def ne(a: Any, b: Any) -> str:
        return f"({a} != {b})"

    @staticmethod
    def lt(a: Any, b: Any) -> str:
        return f"({a} < {b})"

    @staticmethod
    def le(a: Any, b: Any) -> str:
        return f"({a} <= {b})"

    @staticmethod
    def gt(a: Any, b: Any) -> str:
        return f"({a} > {b})"

    @staticmethod
    def ge(a: Any, b: Any) -> str:
        return f"({a} >= {b})"

    @staticmethod
    def logical_and(a: Any, b: Any) -> str:
        return f"({a} && {b})"

    @staticmethod
    def logical_or(a: Any, b: Any) -> str:
        return f"({a} || {b})"

    @staticmethod
    def logical_not(a: Any) -> str:
        return f"(!{a})"

    @staticmethod
    def logical_xor(a: Any, b: Any) -> str:
        return f"(bool({a}) != bool({b}))"

    # bitwise ops on integers and bools (athene's & | ^ ~; on two bools && || != and !, which
    # guard their right side as a masked load's condition wants)
    @staticmethod
    def and_(a: Any, b: Any) -> str:
        return f"({a} && {b})" if _is_bool(a) and _is_bool(b) else f"({a} & {b})"

    @staticmethod
    def or_(a: Any, b: Any) -> str:
        return f"({a} || {b})" if _is_bool(a) and _is_bool(b) else f"({a} | {b})"

    @staticmethod
    def xor(a: Any, b: Any) -> str:
        return f"({a} != {b})" if _is_bool(a) and _is_bool(b) else f"({a} ^ {b})"

    bitwise_and = and_
    bitwise_or = or_
    bitwise_xor = xor

    @staticmethod
    def bitwise_not(a: Any) -> str:
        return f"(!{a})" if _is_bool(a) else f"(~{a})"

    # athene's counts outside [0, bits) are torch's on the CPU: << gives 0, >> the sign
    @staticmethod
    def lshift(a: Any, b: Any) -> str:
        return f"({a} << {b})"

    @staticmethod
    def rshift(a: Any, b: Any) -> str:
        return f"({a} >> {b})"

    bitwise_left_shift = lshift
    bitwise_right_shift = rshift

    @staticmethod
    def hypot(a: Any, b: Any) -> str:
        return f"hypot({a}, {b})"

    @staticmethod
    def nextafter(a: Any, b: Any) -> str:
        # a step of the dtype computed in: f16 and bf16 would step in f32 and round back
        # (Inductor leaves their nextafter to aten today)
        if _dt(a) in (torch.float16, torch.bfloat16):
            raise Unsupported(f"nextafter of {_dt(a)}")
        return f"nextafter({a}, {b})"

    # base/gamma.c's functions: torch's semantics, edges included (docs/language.md)
    @staticmethod
    def frexp(x: Any) -> Tuple[str, str]:
        return f"frexp_mantissa({x})", f"frexp_exponent({x})"

    @staticmethod
    def igamma(a: Any, x: Any) -> str:
        return f"igamma({a}, {x})"

    @staticmethod
    def igammac(a: Any, x: Any) -> str:
        return f"igammac({a}, {x})"

    gammainc = igamma
    gammaincc = igammac

    @staticmethod
    def polygamma(n: Any, x: Any) -> str:
        return f"polygamma({n}, {x})"

    @staticmethod
    def zeta(x: Any, q: Any) -> str:
        return f"zeta({x}, {q})"

    @staticmethod
    def minimum(a: Any, b: Any) -> str:
        return f"min({a}, {b})"

    @staticmethod
    def maximum(a: Any, b: Any) -> str:
        return f"max({a}, {b})"

    @staticmethod
    def pow(a: Any, b: Any) -> str:
        return f"pow({a}, {b})"

    @staticmethod
    def atan2(a: Any, b: Any) -> str:
        return f"atan2({a}, {b})"

    @staticmethod
    def sign(x: Any) -> str:
        # torch.sign: 0 for NaN (athene's sign keeps NaN)
        dt = athene_dtype(_dt(x) or torch.float32)
        return f"({dt}({x} > 0) - {dt}({x} < 0))"

    @staticmethod
    def signbit(x: Any) -> str:
        if _dt(x) is not None and _dt(x).is_floating_point:
            return f"(({x} < 0) || (({x} == 0) && ((1.0 / {x}) < 0)))"
        return f"({x} < 0)"

    @staticmethod
    def reciprocal(x: Any) -> str:
        return f"(1 / {x})" if _dt(x) is not None and _dt(x).is_floating_point else f"(f32(1.0) / {x})"

    @staticmethod
    def relu(x: Any) -> str:
        return f"relu({x})"

    @staticmethod
    def sigmoid(x: Any) -> str:
        return f"sigmoid({x})"

    @staticmethod
    def expm1(x: Any) -> str:
        return f"expm1({x})"

    @staticmethod
    def log1p(x: Any) -> str:
        return f"log1p({x})"

    @staticmethod
    def exp2(x: Any) -> str:
        return f"exp2({x})"

    @staticmethod
    def log2(x: Any) -> str:
        return f"log2({x})"

    # functions athene's op table lacks, from the ones it has, in forms that keep their accuracy
    @staticmethod
    def atan(x: Any) -> str:
        return f"atan2({x}, 1)"

    @staticmethod
    def asin(x: Any) -> str:
        return f"atan2({x}, sqrt((1 - {x}) * (1 + {x})))"

    @staticmethod
    def acos(x: Any) -> str:
        return f"atan2(sqrt((1 - {x}) * (1 + {x})), {x})"

    @staticmethod
    def sinh(x: Any) -> str:
        return f"((expm1({x}) - expm1(-({x}))) / 2)"

    @staticmethod
    def cosh(x: Any) -> str:
        return f"((exp({x}) + exp(-({x}))) / 2)"

    @staticmethod
    def asinh(x: Any) -> str:
        ax = f"abs({x})"  # log(2|x|) where |x|**2 would overflow
        return (f"(sign({x}) * where({ax} > 1e15, log({ax}) + 0.6931471805599453, "
                f"log1p({ax} + {ax} * {ax} / (1 + sqrt(1 + {ax} * {ax})))))")

    @staticmethod
    def acosh(x: Any) -> str:
        return f"log1p(({x} - 1) + sqrt(({x} - 1) * ({x} + 1)))"

    @staticmethod
    def atanh(x: Any) -> str:
        return f"((log1p({x}) - log1p(-({x}))) / 2)"

    @staticmethod
    def copysign(a: Any, b: Any) -> str:
        sb = AtheneOverrides.signbit(b)
        return f"where({sb}, -abs({a}), abs({a}))"

    @staticmethod
    def rand(seed: Any, offset: Any) -> str:
        raise Unsupported("random numbers in a kernel")

    randn = rand

    @staticmethod
    def randint64(seed: Any, offset: Any, low: Any, high: Any) -> str:
        raise Unsupported("random numbers in a kernel")

    @staticmethod
    def load_seed(name: str, offset: Any) -> str:
        raise Unsupported("random numbers in a kernel")


for _name in ("exp log sqrt rsqrt abs sin cos tan tanh erf erfinv lgamma digamma erfcx ndtri airy_ai floor ceil "
              "trunc isnan isinf").split():
    setattr(AtheneOverrides, _name, _un(_name))
AtheneOverrides.round = _un("round")  # half to even, as torch.round

# the Bessel functions and the orthogonal polynomials (x, then the degree n), by athene's names
for _op, _name in {"i0": "i0", "i0e": "i0e", "i1": "i1", "i1e": "i1e", "modified_bessel_i0": "i0",
                   "modified_bessel_i1": "i1", "modified_bessel_k0": "k0", "modified_bessel_k1": "k1",
                   "scaled_modified_bessel_k0": "k0e", "scaled_modified_bessel_k1": "k1e",
                   "bessel_j0": "bessel_j0", "bessel_j1": "bessel_j1", "bessel_y0": "bessel_y0",
                   "bessel_y1": "bessel_y1", "spherical_bessel_j0": "spherical_bessel_j0"}.items():
    setattr(AtheneOverrides, _op, _un(_name))
for _kind in "tuvw":
    setattr(AtheneOverrides, f"chebyshev_polynomial_{_kind}", _bin(f"chebyshev_{_kind}"))
    setattr(AtheneOverrides, f"shifted_chebyshev_polynomial_{_kind}", _bin(f"shifted_chebyshev_{_kind}"))
for _op, _name in {"hermite_polynomial_h": "hermite_h", "hermite_polynomial_he": "hermite_he",
                   "laguerre_polynomial_l": "laguerre_l", "legendre_polynomial_p": "legendre_p"}.items():
    setattr(AtheneOverrides, _op, _bin(_name))

# every other op of Inductor's handler is refused by name (rather than reaching athene's parser
# as some other backend's spelling)
_HANDLED = set(vars(AtheneOverrides)) | {"indirect_indexing", "identity", "square", "erfc", "log10", "fma",
                                         "mul_rn", "div_rn", "floor_to_int", "ceil_to_int", "trunc_to_int",
                                         "round_to_int", "int_truediv", "paren", "check_bounds", "load",
                                         "store", "store_reduction", "reduction", "scan", "sort", "bucketize",
                                         "device_assert_async", "partial_accumulate", "output", "placeholder",
                                         "halide_clamp", "inline_asm_elementwise", "libdevice_abs"}


def _refuse(name: str):
    def op(*args: Any, **kwargs: Any) -> str:
        raise Unsupported(f"op {name} is not in athene's op table")
    return staticmethod(op)


for _name in dir(OpsHandler):
    if not _name.startswith("_") and _name not in _HANDLED and callable(getattr(OpsHandler, _name, None)):
        setattr(AtheneOverrides, _name, _refuse(_name))


# ---- the kernel


_TMP = re.compile(r"\btmp\d+\b")
# a function call other than a cast or where, or a division: what a let read broadcast (rsqrt of a row's
# sum, read by each element of the row) saves recomputing at each point
_COSTLY = re.compile(r"(?<![\w.])(?!(?:where|bool|[iu](?:8|16|32|64)|b?f(?:16|32|64))\()[a-z_]\w*\(| / ")
_IDX = re.compile(r"@i(\d+)@")
_RED = {"sum": "sum", "prod": "prod", "max": "max", "min": "min", "any": "any", "argmax": "argmax",
        "argmin": "argmin"}


class Store:
    __slots__ = ("param", "buffer", "index", "value", "inside", "mode")

    def __init__(self, param: str, buffer: str, index: sympy.Expr, value: str, inside: bool,
                 mode: Optional[str] = None) -> None:
        self.param, self.buffer, self.index, self.value, self.inside = param, buffer, index, value, inside
        self.mode = mode  # None, or "atomic_add": the value is added to the element


class AtheneKernel(SIMDKernel):
    overrides = AtheneOverrides  # type: ignore[assignment]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.indices: List[sympy.Expr] = []  # index placeholders @iN@, printed at codegen_kernel
        self.stores: Dict[int, Store] = {}
        self.reductions: Dict[str, Tuple[str, str, torch.dtype, Optional[torch.dtype]]] = {}
        self.checks: Dict[sympy.Symbol, Tuple[sympy.Expr, bool, bool]] = {}
        self.meta: Dict[str, Any] = {}
        self.masked_depth = 0
        self.masked_vars: set = set()  # values computed under a load mask (pad, cat)

    def should_use_persistent_reduction(self) -> bool:
        return True

    def create_cse_var(self, name: str, bounds: Any = None, dtype: Any = None, shape: Any = None) -> CSEVariable:
        if self.masked_depth:
            self.masked_vars.add(name)
        return AtheneCSEVariable(name, bounds, dtype, shape=shape)

    def codegen_iteration_ranges_entry(self, entry: Any) -> None:
        pass  # iteration variables become digits of the trees at codegen_kernel

    def index_placeholder(self, index: sympy.Expr) -> str:
        index = self.prepare_indexing(index)
        self.indices.append(self.rename_indexing(index))
        return f"@i{len(self.indices) - 1}@"

    def check_bounds(self, expr: sympy.Expr, size: sympy.Expr, lower: bool, upper: bool) -> None:
        if not (lower or upper):
            return
        if isinstance(expr, sympy.Symbol) and symbol_is_type(expr, SymT.TMP):
            self.checks[expr] = (size, lower, upper)
            return
        if not any(symbol_is_type(s, SymT.TMP) for s in expr.free_symbols):
            return  # a direct index: athene proves it in range (or reports it) itself
        raise Unsupported(f"bounds check of the index expression {expr}")

    def load(self, name: str, index: sympy.Expr) -> CSEVariable:
        var = self.args.input(name)
        index = self.prepare_indexing(index)
        indirect = [s for s in index.free_symbols if symbol_is_type(s, SymT.TMP)]
        self.indices.append(self.rename_indexing(index))
        k = len(self.indices) - 1
        if indirect and any(s in self.checks for s in indirect):
            line = f"@load {name} {k}"  # a checked gather: subscripts of the buffer's dims
        else:
            line = f"@flat {name} {k}"
        return self.cse.generate(self.compute, line, dtype=V.graph.get_dtype(name))

    def store(self, name: str, index: sympy.Expr, value: Any, mode: Any = None) -> None:
        if mode not in (None, "atomic_add"):
            raise Unsupported(f"store mode {mode}")
        param = self.args.output(name)
        index = self.rename_indexing(self.prepare_indexing(index))
        sid = len(self.stores)
        self.stores[sid] = Store(param, name, index, str(value), self.inside_reduction, mode)
        self.compute.writeline(DeferredLine(name, f"@store {sid}"))

    def reduction(self, dtype: torch.dtype, src_dtype: torch.dtype, reduction_type: str, value: Any) -> Any:
        key = (src_dtype, reduction_type, value)
        if key in self.cse.reduction_cache:
            return self.cse.reduction_cache[key]
        if reduction_type == "welford_reduce":
            result = self.welford_reduce_fallback(dtype, value)
        elif reduction_type in _RED:
            if isinstance(value, tuple):
                raise Unsupported(f"a tuple reduction ({reduction_type})")
            result = self.cse.generate(self.compute, f"@reduce {reduction_type} {value}", dtype=dtype)
            self.reductions[str(result)] = (reduction_type, str(value), dtype, _dt(value) or src_dtype)
        else:
            raise Unsupported(f"reduction {reduction_type}")
        self.cse.reduction_cache[key] = result
        return result

    def scan(self, *args: Any, **kwargs: Any) -> Any:
        raise Unsupported("scan")

    def sort(self, *args: Any, **kwargs: Any) -> Any:
        raise Unsupported("sort")

    def bucketize(self, *args: Any, **kwargs: Any) -> Any:
        raise Unsupported("bucketize")

    # ---- writing the athene kernel

    def codegen_kernel(self, name: Optional[str] = None) -> str:
        return KernelWriter(self).write()

    def call_kernel(self, name: str, node: Any = None, deallocate_ws: bool = True) -> None:
        _, call_args, _, arg_types = self.args.python_argdefs()
        V.graph.wrapper_code.generate_kernel_call(name, [str(a) for a in call_args], triton=False,
                                                  arg_types=arg_types)


class KernelWriter:
    """Writes one athene kernel from what an AtheneKernel recorded."""

    def __init__(self, k: AtheneKernel) -> None:
        self.k = k
        self.sizes: Dict[str, str] = {}  # athene size symbol -> Python expression of the kernel's size args
        self.size_exprs: Dict[sympy.Expr, str] = {}
        self.used_syms: set = set()

    # sizes: an integer, a size argument (ks0), or a derived symbol bound at each call
    def size(self, e: Any) -> str:
        e = self.k.rename_indexing(sympy.sympify(e))
        if e.is_Integer:
            return str(int(e))
        if isinstance(e, sympy.Symbol):
            self.used_syms.add(e.name)
            return e.name
        if e not in self.size_exprs:
            name = f"d{len(self.size_exprs)}"
            self.size_exprs[e] = name
            for s in e.free_symbols:
                self.used_syms.add(s.name)
            self.sizes[name] = _pyexpr(e)
        return self.size_exprs[e]

    def layout_expr(self, e: Any) -> str:
        """A stride or offset: athene's layouts take + - * // % of integers and size symbols;
        anything else (Max(1, ps0) under dynamic shapes) becomes a size symbol of its own."""
        e = self.k.rename_indexing(sympy.sympify(e))
        if not all(isinstance(a, (sympy.Add, sympy.Mul, sympy.Integer, sympy.Symbol, FloorDiv, PythonMod))
                   for a in sympy.preorder_traversal(e)):
            return self.size(e)
        for s in e.free_symbols:
            self.used_syms.add(s.name)
        return IndexPrinter({})(e)

    def digits(self) -> None:
        """Splits every range tree into its finest digits: the statement's variables."""
        k = self.k
        self.sub: Dict[sympy.Symbol, sympy.Expr] = {}
        self.outer: List[Tuple[sympy.Symbol, Any]] = []  # (digit, length), outermost first
        self.inner: List[Tuple[sympy.Symbol, Any]] = []  # the reduction digits
        hint = V.graph.sizevars.optimization_hint
        for tree in k.range_trees:
            numel = tree.numel
            entries = [e for e in k.range_tree_nodes.values() if e.parent is tree or e.root is tree]
            if V.graph.sizevars.statically_known_equals(numel, 1):
                for e in entries:
                    self.sub[e.symbol()] = sympy.S.Zero
                continue
            prefix = tree.prefix.rstrip("_")
            if V.graph.sizevars.statically_known_equals(numel, 0):
                d = sympy.Symbol(f"{prefix}_0", integer=True, nonnegative=True)
                for e in entries:
                    self.sub[e.symbol()] = d
                (self.inner if tree.is_reduction else self.outer).append((d, sympy.S.Zero))
                continue
            points = {sympy.S.One, numel}
            for e in entries:
                points.add(e.divisor)
                points.add(sympy.simplify(e.divisor * e.length))
            pts = sorted(points, key=lambda p: hint(p, fallback=8192))
            if len({hint(p, fallback=8192) for p in pts}) != len(pts):
                raise Unsupported(f"the iteration variables of {tree.prefix} do not split it into digits")
            digs = []
            for i in range(len(pts) - 1):
                length = sympy.simplify(pts[i + 1] / pts[i])
                if not (length.is_Integer or not length.is_number):
                    raise Unsupported(f"the iteration variables of {tree.prefix} do not nest")
                digs.append((sympy.Symbol(f"{prefix}_{i}", integer=True, nonnegative=True), pts[i], length))
            for e in entries:
                lo, hi = e.divisor, sympy.simplify(e.divisor * e.length)
                expr = sympy.S.Zero
                inside = False
                for d, div, _ in digs:
                    if div == lo:
                        inside = True
                    if div == hi:
                        inside = False
                    if inside:
                        expr += d * sympy.simplify(div / lo)
                self.sub[e.symbol()] = expr
            dims = [(d, length) for d, _, length in reversed(digs)]
            (self.inner if tree.is_reduction else self.outer).extend(dims)

    def index(self, e: sympy.Expr) -> sympy.Expr:
        """An index over Inductor's iteration variables as one over the digits (whose
        coefficients, under dynamic shapes, hold size symbols: renamed to the size arguments)."""
        if not self.sub:
            return e
        e = sympy.expand(e.xreplace(self.sub))
        if any(symbol_is_type(s, (SymT.SIZE, SymT.PRECOMPUTED_SIZE, SymT.UNBACKED_INT)) for s in e.free_symbols):
            e = sympy.expand(self.k.rename_indexing(e))
        return e

    def write(self) -> str:
        """The athene source of the kernel (named kernel_body; define_kernel names it), and its
        meta in self.k.meta: what the runtime needs to call it with Inductor's arguments."""
        k = self.k
        self.digits()
        self.printer = IndexPrinter({}, self.used_syms, [d for d, _ in self.outer + self.inner])
        self.read_lines()
        self.param_info = self.params()
        self.resolved: Dict[str, str] = {}
        lets = self.lets()
        out_decls, statements = self.outputs()
        in_decls = [(p, info["decl"]) for p, info in self.param_info.items() if info["kind"] == "in" and info["used"]]
        # size symbols that no dim declares get one through a zero-stride dummy input
        declared = set()
        for _, decl in in_decls + out_decls:
            dims = decl.split("[", 1)[1].split("]", 1)[0]
            declared.update(x.strip() for x in dims.split(",") if x.strip())
        missing = sorted(s for s in self.used_syms | set(self.sizes) if s not in declared)
        if missing:
            in_decls.append(("@sizes", f"athene_sizes: u8[{', '.join(missing)}] "
                                       f"strides({', '.join('0' for _ in missing)})"))
        arg_defs, _, _, _ = k.args.python_argdefs()
        src = [f"kernel kernel_body({', '.join(d for _, d in in_decls)}) -> ({', '.join(d for _, d in out_decls)}) {{"]
        src += lets + statements + ["}", ""]
        k.meta = {
            "args": [a.name for a in arg_defs],
            "inputs": [p for p, _ in in_decls],
            "outputs": [p for p, _ in out_decls],
            "storage": {p: info["storage"] for p, info in self.param_info.items()},
            "sizes": self.sizes,
            "size_syms": sorted(s for s in self.used_syms if s not in self.sizes),
        }
        return "\n".join(src)

    def read_lines(self) -> None:
        """The lines Inductor's value numbering produced (tmpN = ...), in order, and the stores
        that remain once the kernel-local buffers are removed."""
        self.defs: Dict[str, str] = {}
        self.order: List[str] = []
        self.stores: List[Store] = []
        for line in self.k.compute.getvalue().splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("@store "):
                self.stores.append(self.k.stores[int(line.split()[1])])
                continue
            name, _, text = line.partition(" = ")
            if not _TMP.fullmatch(name):
                raise Unsupported(f"unexpected kernel line {line!r}")
            self.defs[name] = text
            self.order.append(name)
        if not self.stores:
            raise Unsupported("a kernel that stores nothing")

    def value(self, name: str) -> str:
        """The athene expression of value `name`: its text with loads, indices and the values it
        reads filled in (a let's name stands for it once it is a let)."""
        k = self.k
        if name in self.resolved:
            return self.resolved[name]
        if name in k.reductions:
            outer = [str(d) for d, _ in self.outer]
            ref = f"{name}[{', '.join(outer)}]" if outer else name
            self.resolved[name] = ref
            return ref
        text = self.defs.get(name)
        if text is None:
            raise Unsupported(f"value {name} is used before it is defined")
        if text.startswith("@flat ") or text.startswith("@load "):
            kind, buf, i = text.split()
            text = self.load_text(buf, k.indices[int(i)], kind == "@load", self.param_info, self.printer)
            dtype = V.graph.get_dtype(buf)
            if compute_dtype(dtype) != dtype:
                text = f"{athene_dtype(compute_dtype(dtype))}({text})"
        text = _IDX.sub(lambda m: self.printer(self.index(k.indices[int(m.group(1))])), text)
        text = _TMP.sub(lambda m: self.value(m.group(0)), text)
        if len(text) > 200_000:
            raise Unsupported("a value expression too large to inline")
        self.resolved[name] = text
        return text

    def lets(self) -> List[str]:
        """The lets, in Inductor's order: every reduction, the long values read more than once
        and the very long ones (inlined, an unrolled chain of max/argmax would double at each
        step), and the costly values that name fewer variables than the statements (athene
        materialises a let read broadcast instead of recomputing it at each point). Never a
        value computed under a mask: its loads are in range only where the mask holds."""
        k = self.k
        uses = self.live(self.defs, self.stores)
        variables = [(str(d), n) for d, n in self.outer + self.inner]
        # the variables of the statements: a value that names fewer is read broadcast
        every = {str(d) for d, _ in self.outer + (self.inner if any(st.inside for st in self.stores) else [])}
        # values that compute an index stay inline, so that athene sees the gather and its wrap
        indexing: set = set()
        todo = [s.name for i in k.indices for s in i.free_symbols if symbol_is_type(s, SymT.TMP)]
        while todo:
            name = todo.pop()
            if name not in indexing:
                indexing.add(name)
                todo += self.refs(self.defs.get(name, ""))
        lets = []
        for name in self.order:
            if name not in uses:
                continue
            if name not in k.reductions:
                text = self.value(name)
                named = {d for d, _ in variables if re.search(rf"\b{d}\b", text)}
                costly = _COSTLY.search(text) is not None and name not in indexing
                if (len(text) > 2000 or len(text) > 300 and uses[name] > 1 or costly and named < every) \
                        and name not in k.masked_vars:
                    dims = [(d, n) for d, n in variables if d in named]
                    lhs = ", ".join(f"{d} < {self.size(n)}" for d, n in dims)
                    lets.append(f"    let {name}{'[' + lhs + ']' if lhs else ''} = {text}")
                    self.resolved[name] = f"{name}[{', '.join(d for d, _ in dims)}]" if dims else name
                continue
            rtype, v, dtype, src_dtype = k.reductions[name]
            body = self.value(v)
            rvars = ", ".join(f"{d} < {self.size(n)}" for d, n in self.inner)
            if rvars:
                red = f"{_RED[rtype]}({rvars}: {body})"
            else:  # a reduction over one element
                red = {"argmax": "0", "argmin": "0", "any": f"bool({body})"}.get(rtype, body)
            natural = _natural(rtype, src_dtype)
            if natural is None or compute_dtype(natural) != compute_dtype(dtype):
                red = f"{athene_dtype(dtype)}({red})"
            lhs = ", ".join(f"{d} < {self.size(n)}" for d, n in self.outer)
            lets.append(f"    let {name}{'[' + lhs + ']' if lhs else ''} = {red}")
        return lets

    def outputs(self) -> Tuple[List[Tuple[str, str]], List[str]]:
        """Each store as an output statement over the kernel's variables (the reduction ones too
        when it is inside the reduction), the output declared with the layout its store index
        implies: strides the index's coefficients, offset its constant term."""
        decls: List[Tuple[str, str]] = []
        statements: List[str] = []
        seen: set = set()
        for st in self.stores:
            if st.param in seen:
                raise Unsupported(f"buffer {st.buffer} is stored twice in one kernel")
            seen.add(st.param)
            dims = self.outer + (self.inner if st.inside else [])
            idx = sympy.expand(self.index(st.index))
            if st.mode == "atomic_add" or any(symbol_is_type(s, SymT.TMP) for s in idx.free_symbols):
                decls.append((st.param, self.scatter_decl(st)))
                statements.append(self.scatter(st, dims))
                continue
            strides = []
            rest = idx
            for d, _ in dims:
                c = idx.coeff(d)
                if any(dd in c.free_symbols for dd, _ in dims):
                    raise Unsupported(f"store index {st.index} of {st.buffer} is not affine")
                strides.append(c)
                rest = sympy.expand(rest - c * d)
            if any(dd in rest.free_symbols for dd, _ in self.outer + self.inner) or \
                    any(symbol_is_type(s, SymT.TMP) for s in rest.free_symbols):
                raise Unsupported(f"store index {st.index} of {st.buffer} is not affine in the kernel's variables")
            name = self.param_info[st.param]["name"]
            dt = athene_dtype(V.graph.get_dtype(st.buffer))
            shape = ", ".join(self.size(n) for _, n in dims)
            lay = f" strides({', '.join(self.layout_expr(s) for s in strides)})" if dims else ""
            lay += f" offset {self.layout_expr(rest)}"
            decls.append((st.param, f"{name}: {dt}[{shape}]{lay}"))
            lhs = f"{name}[{', '.join(str(d) for d, _ in dims)}]" if dims else name
            statements.append(f"    {lhs} = {self.value(st.value)}")
        return decls, statements

    def scatter_decl(self, st: Store) -> str:
        """A scattered output is declared with its buffer's own layout, as an input is: the
        scatter updates it in place (an earlier kernel filled it)."""
        p = self.param_info[st.param]
        dt = athene_dtype(V.graph.get_dtype(st.buffer))
        if not p["sizes"]:
            return f"{p['name']}: {dt}[] offset 0"
        return (f"{p['name']}: {dt}[{', '.join(self.size(n) for n in p['sizes'])}] "
                f"strides({', '.join(self.layout_expr(s) for s in p['strides'])})")

    def scatter(self, st: Store, dims: List[Tuple[sympy.Symbol, Any]]) -> str:
        """A store whose index reads loaded values (index_put, scatter), or one that adds
        (mode atomic_add: index_put(accumulate=True), index_add): an athene scatter over the
        kernel's variables, `y[x_0 < 4: i] = v` where Inductor checks the index against a
        dim (so athene's error names it), else `y.flat[x_0 < 4: offset] = v`; `+=` adds.
        Duplicates: athene's last point wins, one of the written values, as torch allows."""
        if st.inside:
            raise Unsupported(f"a scatter into {st.buffer} inside a reduction")
        p = self.param_info[st.param]
        p["used"] = True
        checked = any(symbol_is_type(s, SymT.TMP) and s in self.k.checks for s in st.index.free_symbols)
        target = self.element_text(p, st.index, checked, self.printer, st.buffer)
        target = _TMP.sub(lambda m: self.value(m.group(0)), target)
        variables = ", ".join(f"{d} < {self.size(n)}" for d, n in dims)
        name, _, subs = target.partition("[")
        lhs = f"{name}[{variables}: {subs}" if variables else f"{name}[: {subs}"
        return f"    {lhs} {'+=' if st.mode == 'atomic_add' else '='} {self.value(st.value)}"

    def refs(self, text: str) -> List[str]:
        """The values a value's text reads: tmpN, and the tmpN of gathers in its indices."""
        out = [m.group(0) for m in _TMP.finditer(text)]
        at = [int(m.group(1)) for m in _IDX.finditer(text)]
        if text.startswith("@flat ") or text.startswith("@load "):
            at.append(int(text.split()[2]))
        for i in at:
            out += [s.name for s in self.k.indices[i].free_symbols if symbol_is_type(s, SymT.TMP)]
        return out

    def live(self, defs: Dict[str, str], stores: List[Store]) -> Dict[str, int]:
        """The values the stores read, directly or through others, with how often each is read."""
        reductions = self.k.reductions
        uses: Dict[str, int] = {}
        todo = [st.value for st in stores]  # and the values a scatter's index reads
        todo += [s.name for st in stores for s in st.index.free_symbols if symbol_is_type(s, SymT.TMP)]
        while todo:
            for name in self.refs(todo.pop()):
                uses[name] = uses.get(name, 0) + 1
                if uses[name] == 1:
                    todo.append(reductions[name][1] if name in reductions else defs.get(name, ""))
        return uses

    def params(self) -> Dict[str, Dict[str, Any]]:
        """Every tensor argument: its athene name, declaration and storage extent."""
        k = self.k
        out: Dict[str, Dict[str, Any]] = {}
        names: set = set()
        for outer, inner in itertools.chain(k.args.input_buffers.items(), k.args.output_buffers.items()):
            if not isinstance(inner, str) or outer in k.args.inplace_buffers:
                continue
            kind = "in" if inner.startswith("in_ptr") else "out"
            name = re.sub(r"\W", "_", outer)
            if name in names or name in ("inf", "nan", "true", "false", "let", "kernel"):
                name = f"{name}_{kind}"
            names.add(name)
            lay = V.graph.get_buffer(outer).get_layout() if outer in V.graph.name_to_buffer or \
                outer in V.graph.graph_inputs else None
            if lay is None:
                raise Unsupported(f"no layout for buffer {outer}")
            sizes, strides = list(lay.size), list(lay.stride)
            ext = sympy.S.One + sum(((n - 1) * s for n, s in zip(sizes, strides)), sympy.S.Zero)
            if any(V.graph.sizevars.statically_known_equals(n, 0) for n in sizes):
                ext = sympy.S.Zero
            ext = k.rename_indexing(sympy.sympify(ext))
            storage = str(int(ext)) if ext.is_Integer else _pyexpr(ext)
            dt = athene_dtype(V.graph.get_dtype(outer))
            decl = None
            if kind == "in":
                if sizes:
                    decl = (f"{name}: {dt}[{', '.join(self.size(n) for n in sizes)}] "
                            f"strides({', '.join(self.layout_expr(s) for s in strides)})")
                else:
                    decl = f"{name}: {dt}[] offset 0"
            out[inner] = {"name": name, "kind": kind, "decl": decl, "storage": storage, "used": False,
                          "sizes": sizes, "strides": strides, "buffer": outer,
                          "rsizes": [k.rename_indexing(sympy.sympify(n)) for n in sizes],
                          "rstrides": [k.rename_indexing(sympy.sympify(n)) for n in strides]}
        return out

    def flat_check_exact(self, p: Dict[str, Any], c: sympy.Expr, size: sympy.Expr, rest: sympy.Expr) -> bool:
        """Is athene's check of a `.flat` load c*i + rest against the buffer's storage exactly
        Inductor's check of i against size? Yes when the storage is c*size elements and rest
        stays in [0, c) (torch.take: a flat index into a contiguous tensor)."""
        ext = sympy.S.One + sum(((n - 1) * st for n, st in zip(p["rsizes"], p["rstrides"])), sympy.S.Zero)
        if not (c.is_Integer and int(c) > 0) or sympy.simplify(ext - c * size) != 0:
            return False
        if any(symbol_is_type(s, SymT.TMP) for s in rest.free_symbols):
            return False
        ranges = {d: n for d, n in self.outer + self.inner if d in rest.free_symbols}
        if any(not sympy.sympify(n).is_Integer for n in ranges.values()) or \
                (rest.free_symbols - set(ranges)):
            return False
        b = _bound(rest, ranges) if ranges else (int(rest), int(rest)) if rest.is_Integer else None
        return b is not None and b[0] >= 0 and b[1] < int(c)

    def load_text(self, buf: str, index: sympy.Expr, checked: bool, params: Dict[str, Dict[str, Any]],
                  printer: IndexPrinter) -> str:
        p = params[self.k.args.input_buffers[buf]]
        p["used"] = True
        return self.element_text(p, index, checked, printer, buf)

    def element_text(self, p: Dict[str, Any], index: sympy.Expr, checked: bool, printer: IndexPrinter,
                     buf: str) -> str:
        """The element of parameter p at Inductor's index: `x.flat[offset]`, or with Inductor's
        bounds checks on its indirect indices `x[i0, i1]`, subscripts of the buffer's dims."""
        k = self.k
        idx = self.index(index)
        if not checked:
            return f"{p['name']}.flat[{printer(idx)}]"
        # a gather with Inductor's bounds check: as subscripts of the buffer's dims, so that
        # athene checks each index against its dim (not only against the storage)
        sizes, strides = p["sizes"], p["strides"]  # for hints; the index uses the renamed ones
        rsizes, rstrides = p["rsizes"], p["rstrides"]
        subs: List[Optional[sympy.Expr]] = [None] * len(sizes)
        rest = sympy.expand(idx)
        for s in [s for s in idx.free_symbols if symbol_is_type(s, SymT.TMP)]:
            c = rest.coeff(s)
            size, _, _ = k.checks.get(s, (None, False, False))
            if size is None:
                continue
            size = k.rename_indexing(sympy.sympify(size))
            dims = [i for i in range(len(sizes)) if subs[i] is None and sympy.simplify(rstrides[i] - c) == 0
                    and sympy.simplify(rsizes[i] - size) == 0]
            if not dims and self.flat_check_exact(p, c, size, sympy.expand(rest - c * s)):
                return f"{p['name']}.flat[{printer(idx)}]"  # athene's storage check is the bounds check
            if not dims:
                raise Unsupported(f"gather index {s} of {buf} does not address one dim of it")
            subs[dims[0]] = s
            rest = sympy.expand(rest - c * s)
        if any(symbol_is_type(s, SymT.TMP) for s in rest.free_symbols):
            raise Unsupported(f"gather index {index} of {buf} is not affine in its indices")
        # the other dims: digits of the rest, outermost (largest stride) first
        order = sorted((i for i in range(len(sizes)) if subs[i] is None),
                       key=lambda i: -V.graph.sizevars.optimization_hint(strides[i], fallback=8192))
        for i in order:
            if V.graph.sizevars.statically_known_equals(sizes[i], 1):
                subs[i] = sympy.S.Zero
                continue
            subs[i] = FloorDiv(rest, rstrides[i]) if rstrides[i] != 1 else rest
            if i != order[0]:
                subs[i] = ModularIndexing(rest, rstrides[i], rsizes[i])
        if not _nested(sizes, strides, [i for i in order]):
            raise Unsupported(f"gather from {buf}: its layout's dims overlap")
        return f"{p['name']}[{', '.join(printer(s) for s in subs)}]"


def _bound(e: sympy.Expr, ranges: Dict[sympy.Symbol, Any]) -> Optional[Tuple[int, int]]:
    from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy
    try:
        vr = bound_sympy(e, {d: ValueRanges(0, int(n) - 1) for d, n in ranges.items()})
        return int(vr.lower), int(vr.upper)
    except (TypeError, ValueError, OverflowError):
        return None


def _nested(sizes: List[Any], strides: List[Any], order: List[int]) -> bool:
    """Do the dims in order (largest stride first) nest, each stride covering the dims inside it?"""
    hint = V.graph.sizevars.optimization_hint
    for a, b in zip(order, order[1:]):
        if hint(strides[a], fallback=8192) < hint(strides[b], fallback=8192) * hint(sizes[b], fallback=8192):
            return False
    return True


def _natural(rtype: str, src: Optional[torch.dtype]) -> Optional[torch.dtype]:
    """The dtype athene's reduction gives for a body of dtype src."""
    if rtype in ("argmax", "argmin"):
        return torch.int64
    if rtype == "any":
        return torch.bool
    if rtype in ("sum", "prod") and src is not None and not src.is_floating_point:
        return torch.int64
    return src


def _pyexpr(e: sympy.Expr) -> str:
    from torch._inductor.codegen.common import PythonPrinter
    return PythonPrinter().doprint(e)


@contextlib.contextmanager
def node_tilings() -> Any:
    """While athene compiles a graph: the scheduler's fusion decisions ask SIMDScheduling itself
    (not the backend's class) for tilings (BaseSchedulerNode.get_tiling), so its N-D search is
    replaced there too, for the compile's duration."""
    saved = SIMDScheduling.__dict__["get_nd_tilings"]
    SIMDScheduling.get_nd_tilings = AtheneScheduling.__dict__["get_nd_tilings"]  # type: ignore[method-assign]
    try:
        yield
    finally:
        SIMDScheduling.get_nd_tilings = saved  # type: ignore[method-assign]


class AtheneScheduling(SIMDScheduling):
    kernel_type = AtheneKernel  # type: ignore[assignment]

    @classmethod
    def get_backend_features(cls, device: torch.device) -> OrderedSet[BackendFeature]:
        return OrderedSet([BackendFeature.REDUCE_TO_SINGLE_ELEMENT])

    @classmethod
    def get_nd_tilings(cls, node_schedule: Any, pointwise_numel: Any, reduction_numel: Any) -> list:
        """The N-D tilings that triton.prefer_nd_tiling asks for, one range tree per dim: each
        node's own ranges (the leading ones merged past three). Inductor's own search adds tilings
        matched in every memory access's index and takes their product over the accesses (sympy
        matches in each: 30 s of a Llama layer's first call); athene splits each tree into its
        digits itself (AtheneKernel.digits), so its candidates add nothing here."""
        from torch._inductor import scheduler
        from torch._inductor.codegen.simd_kernel_features import EnableReduction
        from torch._inductor.utils import sympy_product

        def collapse(dims: Any, numel: Any) -> tuple:
            dims = [d for d in dims if not V.graph.sizevars.statically_known_equals(d, 1)] or [numel]
            lead = max(0, len(dims) - 3)
            return (sympy_product(dims[:lead + 1]),) + tuple(dims[lead + 1:])

        pointwise = reduction_numel == 1
        tilings: OrderedSet = OrderedSet()
        for node in EnableReduction.filter(node_schedule):
            if not isinstance(node, scheduler.SchedulerNode):
                continue
            ranges = node.get_ranges()
            if not pointwise and len(ranges[1]) == 0:
                continue
            red = (sympy.S.One,) if pointwise else collapse(ranges[1], reduction_numel)
            tilings.add(cls.create_tiling(collapse(ranges[0], pointwise_numel), red))
        return sorted(tilings, key=len, reverse=True)

    def define_kernel(self, src_code: str, node_schedule: Any, kernel: AtheneKernel) -> str:
        from . import _runtime

        wrapper = V.graph.wrapper_code
        key = (src_code, repr(kernel.meta))
        if key in wrapper.src_to_kernel:
            return wrapper.src_to_kernel[key]
        name = f"athene_kernel_{wrapper.next_kernel_suffix()}"
        wrapper.src_to_kernel[key] = name
        src = src_code.replace("kernel kernel_body(", f"kernel {name}(", 1)
        hints = {inner: int(V.graph.sizevars.optimization_hint(outer, fallback=8))
                 for outer, inner in kernel.args.sizevars.items()}
        meta = _runtime.targeted(kernel.meta)  # a Pallas target's kernels say so
        _runtime.written(name, src, meta)
        _runtime.check(name, src, meta, hints)  # a compile error here: the graph goes to C++
        wrapper.add_import_once("from athene.torch import _runtime as athene_runtime")
        origins, detailed = get_kernel_metadata(node_schedule, wrapper)
        wrapper.define_kernel(name, f"athene_runtime.load({src!r}, {meta!r})",
                              f"{origins}\n{detailed}", gpu=False)
        return name
