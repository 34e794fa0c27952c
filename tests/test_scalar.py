"""The scalar semantics of the kernel language, one op at a time (issue 38).

For every op of the op table (src/ops.h: every X row and every RX reduction) at every dtype the
language accepts, and for every cast between two dtypes, a one-op statement runs on edge values
(0, -0.0, +-1, +-inf, NaN, the dtype's min and max, the smallest subnormal, values around 2^24 and
2^53, f16/bf16 halfway cases, division and modulo by 0 and of the minimum integer by -1, negative
operands of // and %); a binary op gets every pair of edge values. Each statement runs under the
native executor (`athene run`) and the reference interpreter (`athene run --reference`), and both
are compared with the rule of docs/language.md computed here in Python: exact integers, and
exact rationals (fractions.Fraction) rounded once, to nearest even, for floats.

- Everything exact in IEEE arithmetic and every conversion must match bit for bit (NaN matches
  any NaN). Transcendental functions (and float pow, which is C's) are checked against NumPy's
  double within ULP_BOUND units in the last place of the result dtype, and the executor and the
  interpreter must still agree with each other bit for bit.
- The statements of one dtype (its ops, reductions and ops with a literal) are the outputs of one
  kernel, run in parts of MAX_OUTS outputs; so are the casts and the ops on two different
  dtypes: a few dozen processes in all. The inputs of the first two repeat to BIG elements,
  which takes the executor through its blocks, threads and vector paths; each repetition must
  give the same bits.
- The result dtype of every statement is read back from `athene -d check` and compared with the
  promotion rules ("Types and promotion").
- NumPy computes what it computes as the language does: floor_divide, remainder, floor, ceil,
  rint, trunc, sqrt and the transcendental functions in double, then rounded here. Float
  + - * / and every conversion are exact rationals rounded once, which test_rounding_model
  checks against NumPy's and ml_dtypes' own single roundings. (ml_dtypes 0.6 rounds f64 -> bf16
  and i64 -> bf16 through f32, twice: 1 + 2^-8 + 2^-30 becomes 1.) Where the language defines
  what NumPy leaves undefined or computes otherwise (integer // and % by zero, pow with a
  negative exponent, saturating float -> int casts, sign(-0.0), ...), the rule is written out
  here and cites docs/language.md.

The binary is $ATHENE or <repo>/build/athene.
"""

import functools
import math
import os
import re
import subprocess
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import mpmath
import numpy as np
import pytest
import scipy.special as sps

REPO = Path(__file__).resolve().parent.parent
ATHENE = os.environ.get("ATHENE", str(REPO / "build" / "athene"))
TIMEOUT = 120
ULP_BOUND = 2

DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "f16", "bf16", "f32", "f64"]
INTS = ["i8", "i16", "i32", "i64", "u8"]
FLOATS = ["f16", "bf16", "f32", "f64"]
NP = {"bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
      "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
IRANGE = {"bool": (0, 1), "i8": (-2**7, 2**7 - 1), "i16": (-2**15, 2**15 - 1), "i32": (-2**31, 2**31 - 1),
          "i64": (-2**63, 2**63 - 1), "u8": (0, 255)}
# (mantissa bits, smallest normal exponent, largest exponent)
FMT = {"f16": (10, -14, 15), "bf16": (7, -126, 127), "f32": (23, -126, 127), "f64": (52, -1022, 1023)}

# ----------------------------------------------------------------------------- the value model
#
# A value of an integer dtype or bool is a Python int (bool: 0 or 1); a value of a float dtype is
# a Python float that the dtype represents exactly.


def rnd(dt, x):
    """x (an int, float or Fraction: an exact value) rounded once, to nearest even, to float dtype
    dt; beyond the largest finite value +-inf, a zero keeps its sign (docs/language.md, "Casts and
    stores": any -> float)."""
    if isinstance(x, float) and not math.isfinite(x):
        return x
    q = Fraction(x)
    if q == 0:
        return math.copysign(0.0, x) if isinstance(x, float) else 0.0
    mbits, emin, emax = FMT[dt]
    neg, q = q < 0, abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - mbits)
    r = round(q / quantum) * quantum  # round() of a Fraction: half to even
    v = math.inf if r > (2 - Fraction(2) ** -mbits) * Fraction(2) ** emax else float(r)
    return -v if neg else v


def wrap(dt, n):
    """Two's-complement wrap to int dtype dt; to bool, non-zero is true."""
    if dt == "bool":
        return int(n != 0)
    lo, hi = IRANGE[dt]
    return (n - lo) % (hi - lo + 1) + lo


def truth(x):
    """Non-zero is true, and so is NaN ("&& || !", "where")."""
    return x != 0 or (isinstance(x, float) and math.isnan(x))


def convert(x, src, dst):
    """A cast, or the conversion of an operand or a stored value ("Casts and stores")."""
    if dst == "bool":
        return int(truth(x))
    if dst in FLOATS:
        return rnd(dst, x)
    if src in FLOATS:  # truncate toward zero, NaN -> 0, saturate at the target's range
        if math.isnan(x):
            return 0
        lo, hi = IRANGE[dst]
        if math.isinf(x):
            return lo if x < 0 else hi
        return min(max(math.trunc(x), lo), hi)
    return wrap(dst, x)


def promote(a, b):
    """Two non-weak dtypes ("Types and promotion")."""
    if a == b:
        return a
    if a == "bool" or b == "bool":
        return b if a == "bool" else a
    if (a in FLOATS) != (b in FLOATS):
        return a if a in FLOATS else b
    if a in FLOATS:
        if {a, b} == {"f16", "bf16"}:
            return "f32"
        return a if FMT[a][0] >= FMT[b][0] and FMT[a][2] >= FMT[b][2] else b
    if "u8" in (a, b):
        other = b if a == "u8" else a
        return "i16" if other == "i8" else other
    return a if IRANGE[a][1] >= IRANGE[b][1] else b


def f64(x):
    return np.float64(x)


def ieee(op, a, b):
    """a op b in IEEE double: exact for the specials (NaN, infinities, signed zeros)."""
    with np.errstate(all="ignore"):
        return float(op(f64(a), f64(b)))


def exact2(dt, a, b, exact, fop):
    """+ - * / at float dtype dt: the exact result rounded once ("Rounding of f16, bf16 and f32").
    A double result of 0, +-inf or NaN is the answer: for f64 it is IEEE's one rounding, and
    f16/bf16/f32 operands neither overflow nor underflow in double, so there it comes from
    special operands or an exact zero."""
    d = ieee(fop, a, b)
    if d == 0 or not math.isfinite(d):
        return d
    return rnd(dt, exact(Fraction(a), Fraction(b)))


def fmin(a, b):
    # NaN if either is NaN; of two equal arguments the second, so min(0.0, -0.0) is -0.0
    # (docs/language.md, Functions; np.minimum does the same)
    return math.nan if math.isnan(a) or math.isnan(b) else a if a < b else b


def fmax(a, b):
    return math.nan if math.isnan(a) or math.isnan(b) else a if a > b else b


def ipow(dt, a, b):
    # "On integers it is exact and wraps; a negative exponent gives 0, except that bases 1 and -1
    # give +-1" (docs/language.md, Functions; NumPy raises)
    if b < 0:
        return 1 if a == 1 else (-1 if b % 2 else 1) if a == -1 else 0
    return wrap(dt, pow(a, b, 2**64))


def binop(op, t, a, b):
    """Binary op at its operation dtype t, operands already of t."""
    if op == "nextafter":
        return nextafter(t, a, b) if t in FLOATS else math.nan
    if op == "hypot":  # C's hypot in double, rounded (checked within ULP_BOUND)
        return rnd(t, math.hypot(a, b))
    if op in POLYNOMIALS:  # (checked within ULP_BOUND and polynomial_tol)
        return rnd(t, polynomial(op, t, a, b))
    if op in GAMMA2:  # in double, rounded (checked within ULP_BOUND, ULP_F64 at f64)
        return rnd(t, GAMMA2[op](a, b))
    if t in FLOATS:
        if op in EXACT_FLOAT2:
            return exact2(t, a, b, *EXACT_FLOAT2[op])
        if op == "//":  # NumPy's floor_divide ("Operators"), rounded to t
            return rnd(t, ieee(np.floor_divide, a, b))
        if op == "%":  # NumPy's remainder: x % 0.0 is NaN, 5.5 % inf is 5.5
            return rnd(t, ieee(np.remainder, a, b))
        if op == "min":
            return fmin(a, b)
        if op == "max":
            return fmax(a, b)
        if op in ("pow", "atan2"):  # C's pow and atan2 in double, rounded (checked within ULP_BOUND)
            return rnd(t, ieee(np.power if op == "pow" else np.arctan2, a, b))
        raise AssertionError(op)
    if op == "+":
        return wrap(t, a + b)  # bool: or
    if op == "-":
        return wrap(t, a - b)
    if op == "*":
        return wrap(t, a * b)  # bool: and
    if op == "//":  # "Integer // and % by zero give 0 in values"; INT_MIN // -1 wraps to INT_MIN
        return 0 if b == 0 else wrap(t, a // b)
    if op == "%":  # floor modulo, the sign of the divisor (Python's)
        return 0 if b == 0 else wrap(t, a % b)
    if op == "pow":
        return ipow(t, a, b)
    if op == "min":
        return min(a, b)
    if op == "max":
        return max(a, b)
    if op == "wrap":  # "wrap(i, n) is i + n when i < 0 and i otherwise", in the promoted dtype
        return wrap(t, a + b if a < 0 else a)
    if op in ("&", "|", "^"):  # two's complement bits (Python's ints are); bools 0 and 1
        return wrap(t, {"&": a & b, "|": a | b, "^": a ^ b}[op])
    if op in ("<<", ">>"):  # "Shifts": a count outside [0, bits) gives 0, or -1 for >> of a negative
        nbits = 8 * np.dtype(NP[t]).itemsize
        if not 0 <= b < nbits:
            return -1 if op == ">>" and a < 0 else 0
        return wrap(t, a << b if op == "<<" else a >> b)  # >> floors, as Python's
    raise AssertionError(op)


EXACT_FLOAT2 = {
    "+": (lambda a, b: a + b, np.add),
    "-": (lambda a, b: a - b, np.subtract),
    "*": (lambda a, b: a * b, np.multiply),
    "/": (lambda a, b: a / b, np.divide),
}


def nextafter(t, a, b):
    """The next value of float dtype t after a toward b ("Functions": on t's own values, so that
    nextafter(1, 2) in f16 is 1 + 2^-10)."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:
        return b
    u = int(bits(t, to_array(t, [a]))[0])
    sign = 1 << (8 * np.dtype(NP[t]).itemsize - 1)
    if a == 0:
        u = 1 | (sign if b < 0 else 0)
    else:
        u += 1 if (a < b) == (a > 0) else -1
    return from_array(t, np.array([u], UINT[np.dtype(NP[t]).itemsize]).view(NP[t]))[0]


def mp(f):
    """A function computed by mpmath at 80 digits, as a double (NaN where it is undefined)."""
    def g(x):
        with mpmath.workdps(80):
            try:
                return float(f(mpmath.mpf(x)))
            except (ValueError, ZeroDivisionError):
                return math.nan
    return g


def erfinv(x):
    # "erfinv(+-1) is +-inf, outside [-1, 1] NaN" (docs/language.md, Functions)
    if math.isnan(x) or abs(x) > 1:
        return math.nan
    if abs(x) == 1:
        return math.copysign(math.inf, x)
    if x == 0:
        return x
    return mp(mpmath.erfinv)(x)


def lgamma(x):
    # log|Gamma(x)|: +inf at 0 and the negative integers and at +-inf (C's lgamma)
    if math.isinf(x) or (x <= 0 and x == int(x)):
        return math.inf
    if math.isnan(x):
        return x
    return mp(lambda v: mpmath.log(abs(mpmath.gamma(v))))(x)


def digamma(x):
    # "digamma(0) is -inf (-0.0: +inf), the negative integers and -inf give NaN" (PyTorch's)
    if x == 0:
        return -math.copysign(math.inf, x)
    if math.isnan(x) or x == -math.inf or (x < 0 and x == int(x)):
        return math.nan
    if x == math.inf:
        return math.inf
    return mp(mpmath.digamma)(x)


LOG_MAX = math.log(np.finfo(np.float64).max)  # exp overflows above it


def mpf(f, *xs):
    """f of exact arguments by mpmath at 50 digits, as a double (inf beyond its range)."""
    with mpmath.workdps(50):
        return float(f(*[mpmath.mpf(x) for x in xs]))


def bessel(op, x):
    """The Bessel functions ("Functions"): PyTorch's values at the edges, mpmath's elsewhere."""
    if math.isnan(x):
        return x
    if op in ("i0", "i1", "i0e", "i1e"):
        order, scaled = int(op[1]), op.endswith("e")
        if math.isinf(x):  # exp(|x|) i0e(x) is inf * 0: NaN; i0e, i1e tend to 0
            return math.copysign(0.0, x) if op == "i1e" else 0.0 if scaled else math.nan
        if not scaled and abs(x) > LOG_MAX:  # exp(|x|) overflows first
            return math.copysign(math.inf, x) if order else math.inf
        return mpf(lambda v: mpmath.besseli(order, v) * (mpmath.exp(-abs(v)) if scaled else 1), x)
    if op in ("k0", "k1", "k0e", "k1e"):
        if x == 0:
            return math.inf
        if x < 0:
            return math.nan
        if math.isinf(x):
            return 0.0
        order, scaled = int(op[1]), op.endswith("e")
        return mpf(lambda v: mpmath.besselk(order, v) * (mpmath.exp(v) if scaled else 1), x)
    if op == "spherical_bessel_j0":
        return 0.0 if math.isinf(x) else 1.0 if x == 0 else mpf(lambda v: mpmath.sin(v) / v, x)
    order = int(op[-1])
    if op.startswith("bessel_y") and x <= 0:
        return -math.inf if x == 0 else math.nan
    if math.isinf(x):  # the asymptotic form: cos(inf) is NaN
        return math.nan
    return mpf(lambda v: (mpmath.bessely if op.startswith("bessel_y") else mpmath.besselj)(order, v), x)


def bessel_tol(op, x):
    """The absolute error allowed beyond ULP_BOUND: j0, j1, y0 and y1 beyond 5 take the phase
    x - pi/4 (3pi/4) in double ("Functions"), so their error is up to an ulp of x times their
    amplitude sqrt(2/(pi x)); around their zeros their error is absolute."""
    if not op.startswith("bessel_") or math.isnan(x) or math.isinf(x):
        return 0.0
    return 2.0**-51 + (math.ulp(x) * math.sqrt(2 / (math.pi * abs(x))) if abs(x) > 5 else 0.0)


MAX_STEPS = 2**20  # base/bessel.c: the most steps of a polynomial's recurrence
CHEBYSHEV = {f"{s}chebyshev_{k}": (i, s != "") for s in ("", "shifted_") for i, k in enumerate("tuvw")}
POLYNOMIALS = [*CHEBYSHEV, "hermite_h", "hermite_he", "laguerre_l", "legendre_p"]


def degree(n):
    """A degree: truncated toward zero; NaN and values outside int64 are below zero (PyTorch's)."""
    return int(n) if -2.0**63 < n < 2.0**63 else -1


def recurrence(op, y, n):
    """The polynomial by its three-term recurrence in double, as PyTorch's kernels (and athene's)
    step it: where the exact value overflows, this is the rule's ("Functions": +-inf, then NaN)."""
    if op in CHEBYSHEV:
        kind = CHEBYSHEV[op][0]
        p, q = 1.0, [y, 2 * y, 2 * y - 1, 2 * y + 1][kind]
        for _ in range(2, n + 1):
            if math.isnan(q):
                break
            p, q = q, 2 * y * q - p
        return q
    p, q = 1.0, {"hermite_h": 2 * y, "hermite_he": y, "laguerre_l": 1 - y, "legendre_p": y}[op]
    with np.errstate(all="ignore"):
        for k in range(1, n):
            if math.isnan(q) and op in ("laguerre_l", "legendre_p"):
                break
            r = {"hermite_h": lambda: 2 * y * q - 2 * k * p, "hermite_he": lambda: y * q - k * p,
                 "laguerre_l": lambda: ((2 * k + (1 - y)) * q - k * p) / (k + 1),
                 "legendre_p": lambda: ((2 * k + 1) * y * q - k * p) / (k + 1)}[op]
            p, q = q, float(np.float64(r()))
    return q


@functools.lru_cache(maxsize=None)
def exact_polynomial(op, y, n):
    """The polynomial of degree n >= 2 at finite y, by mpmath at 50 digits: the Chebyshev
    polynomials by their trigonometric and hyperbolic forms, the others by their recurrences."""
    with mpmath.workdps(50):
        v = mpmath.mpf(y)
        if op in CHEBYSHEV:
            kind = CHEBYSHEV[op][0]
            z = mpmath.acos(v) if abs(v) < 1 else mpmath.acosh(abs(v))
            c, s = (mpmath.cos, mpmath.sin) if abs(v) < 1 else (mpmath.cosh, mpmath.sinh)
            sgn = (-1) ** n if v < -1 else 1
            if v < -1 and kind >= 2:  # V and W trade places below -1
                kind = 5 - kind
            return float(sgn * [c(n * z), s((n + 1) * z) / s(z), c((n + 0.5) * z) / c(z / 2),
                                s((n + 0.5) * z) / s(z / 2)][kind])
        p, q = mpmath.mpf(1), {"hermite_h": 2 * v, "hermite_he": v, "laguerre_l": 1 - v, "legendre_p": v}[op]
        for k in range(1, n):
            p, q = q, {"hermite_h": lambda: 2 * v * q - 2 * k * p, "hermite_he": lambda: v * q - k * p,
                       "laguerre_l": lambda: ((2 * k + (1 - v)) * q - k * p) / (k + 1),
                       "legendre_p": lambda: ((2 * k + 1) * v * q - k * p) / (k + 1)}[op]()
        return float(q)


def polynomial(op, t, x, dn):
    """The polynomial op of x of degree dn at float dtype t ("Functions"), in double before the
    rounding to t."""
    n = degree(dn)
    if n < 0:
        return 0.0
    y = 2 * x - 1 if CHEBYSHEV.get(op, (0, False))[1] else x
    if n == 0 or (op == "laguerre_l" and y == 0):
        return 1.0
    if op in CHEBYSHEV and abs(y) == 1:  # the polynomials' values at +-1
        kind, sign = CHEBYSHEV[op][0], 1 if y > 0 or n % 2 == 0 else -1
        return float([1, n + 1, 1 if y > 0 else 2 * n + 1, 2 * n + 1 if y > 0 else 1][kind] * (1 if y > 0 else sign))
    if op == "legendre_p" and abs(y) == 1:
        return 1.0 if y > 0 or n % 2 == 0 else -1.0
    if n == 1 or math.isnan(y):
        return recurrence(op, y, 1)
    if op.startswith("hermite") and n > (512 if t == "f64" else 128):
        return math.nan
    if n > MAX_STEPS and op in ("laguerre_l", "legendre_p"):
        return math.nan
    if math.isinf(y):
        return recurrence(op, y, n) if n <= MAX_STEPS else math.nan
    v = exact_polynomial(op, y, n)
    if math.isinf(v):  # beyond double's range: what the recurrence reaches
        return recurrence(op, y, n) if n <= MAX_STEPS else math.nan
    return v


def polynomial_tol(op, x, dn, want):
    """The error allowed beyond ULP_BOUND: the recurrence and the trigonometric forms lose about
    an ulp of the value (of 1 for the smaller values) per step of degree; inside (-1, 1) the
    Chebyshev polynomials' angle acos(y) has the absolute error of an ulp of pi, which near +-1 is
    a relative error of 1/sin(angle)."""
    n = degree(dn)
    if n <= 0 or math.isnan(x) or math.isnan(want) or math.isinf(want):
        return 0.0
    tol = 16 * (n + 1) * 2.0**-52 * max(1.0, abs(want))
    y = 2 * x - 1 if CHEBYSHEV.get(op, (0, False))[1] else x
    if op in CHEBYSHEV and abs(y) < 1:
        tol /= max(math.sqrt((1 - y) * (1 + y)), 2.0**-26)
    return tol


# gamma.c's functions (docs/language.md, Functions): their values at the edges written out,
# PyTorch's on the CPU; elsewhere mpmath (one argument) or SciPy (two arguments: mpmath takes
# seconds on some pairs of edge values; SciPy's double is within ULP_F64 of the truth there)


def frexp_exponent(x):
    # "frexp_exponent(0), and of inf and NaN, is 0" (frexp_mantissa gives them back)
    return math.frexp(x)[1] if math.isfinite(x) else 0


def erfcx(x):
    if math.isnan(x):
        return x
    if math.isinf(x) or x < -27:  # 2 exp(x^2) overflows below -26.63
        return 0.0 if x > 0 else math.inf
    if x > 1e8:  # 1 / (x sqrt(pi)) (1 - 1 / (2 x^2) + ...), where mpmath's erfc fails
        return 1 / (x * math.sqrt(math.pi))
    return mp(lambda v: mpmath.exp(v * v) * mpmath.erfc(v))(x)


def ndtri(p):
    # "ndtri(0) is -inf, ndtri(1) inf, outside [0, 1] NaN"
    if math.isnan(p) or p < 0 or p > 1:
        return math.nan
    if p in (0, 1):
        return math.inf if p == 1 else -math.inf
    return float(sps.ndtri(p))


def airy_ai(x):
    # "airy_ai(+-inf) is NaN, above 103.892 0" (PyTorch's), "below -2^36 NaN" (its phase)
    if math.isinf(x) or math.isnan(x) or x < -2.0**36:
        return math.nan
    if x > 103.892:
        return 0.0
    return mp(mpmath.airyai)(x)


def igamma(a, x, upper=False):
    # "NaN for a < 0 or x < 0, and at a = x = 0; igamma(0, x > 0) is 1; at x = 0 0 (even for a
    # NaN); an infinite a gives 0 for a finite x, NaN for an infinite one; an infinite x 1"
    lo, hi = (1.0, 0.0) if upper else (0.0, 1.0)
    if x < 0 or a < 0:
        return math.nan
    if a == 0:
        return hi if x > 0 else math.nan
    if x == 0:
        return lo
    if math.isinf(a):
        return math.nan if math.isinf(x) else lo
    if math.isinf(x):
        return hi
    if math.isnan(a) or math.isnan(x):
        return math.nan
    if a < 1e-290:  # Q(a, x) = a E1(x) + O(a^2) (SciPy's P is 0 there)
        q = a * float(sps.exp1(x))
        return q if upper else 1 - q
    with np.errstate(all="ignore"):
        v = float((sps.gammaincc if upper else sps.gammainc)(a, x))
    if math.isnan(v):  # SciPy's NaN for a near the largest double: the uniform asymptotic
        # expansion's first term (DLMF 8.12.3), whose next is of order 1 / sqrt(a)
        s = (x - a) / a
        eta = math.copysign(math.sqrt(2 * (s - math.log1p(s))), s) if s > -1 else -math.inf
        v = math.erfc((1 if upper else -1) * eta * math.sqrt(a / 2)) / 2
    return v


def zeta(x, q):
    # "zeta(1, q) is inf, x < 1 NaN; q = 0, -1, -2, ... gives inf, another q <= 0 NaN unless x is
    # an integer; zeta(x, inf) is NaN; zeta(inf, q) 1 at q = 1, inf below, NaN above" (PyTorch's)
    if x == 1:
        return math.inf
    if x < 1:
        return math.nan
    if q <= 0:
        if q == np.floor(q):
            return math.inf
        if x != np.floor(x):
            return math.nan
    if math.isnan(x) or math.isnan(q):
        return math.nan
    if q == math.inf:
        return math.nan
    if x == math.inf:
        return 1.0 if q == 1 else math.inf if q < 1 else math.nan
    with np.errstate(all="ignore"):
        if q < 0:  # the sum's first terms, in order (an overflow of two signs is NaN), then SciPy's
            m, v = math.ceil(-q) + 8, np.float64(0)
            for k in range(m):
                v += np.float64(q + k) ** -x
            return float(v + np.float64(zeta(x, q + m)))
        v = float(sps.zeta(x, q))
        if math.isnan(v):  # SciPy's NaN for x near the largest doubles: the sum's first terms
            v = float(sum(np.float64(q + k) ** -x for k in range(64)))
    return v


def polygamma(n, x):
    # "n must be a non-negative integer (else NaN); n = 0 is digamma; n = 1 gives inf at the
    # poles 0, -1, -2, ..., 0 at inf and NaN at -inf; n >= 2 is (-1)^(n+1) n! zeta(n + 1, x)"
    if math.isnan(n) or math.isinf(n) or n < 0 or n != math.floor(n):
        return math.nan
    if n == 0:
        return digamma(x)
    if n == 1:
        if math.isinf(x):
            return 0.0 if x > 0 else math.nan
        if math.isnan(x):
            return x
        if x <= 0 and x == math.floor(x):
            return math.inf
        return mp(lambda v: mpmath.polygamma(1, v))(x)
    fact = float(math.factorial(int(n))) if n <= 170 else math.inf
    z = zeta(n + 1, x)
    with np.errstate(all="ignore"):
        return float(np.float64(1.0 if n % 2 else -1.0) * np.float64(fact) * np.float64(z))


GAMMA2 = {"igamma": igamma, "igammac": lambda a, x: igamma(a, x, True), "zeta": zeta, "polygamma": polygamma}


def cmp(op, a, b):
    # every comparison with NaN is false except != (Python's float comparisons)
    return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])


TRANSCENDENTAL = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "log1p": np.log1p, "expm1": np.expm1,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),  # "sigmoid(x) is 1/(1+exp(-x))"
    "erf": lambda x: np.float64(math.erf(x)),
    "erfinv": erfinv, "lgamma": lgamma, "digamma": digamma, "erfcx": erfcx, "ndtri": ndtri, "airy_ai": airy_ai,
    **{f: functools.partial(bessel, f) for f in ["i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e", "bessel_j0",
                                                "bessel_j1", "bessel_y0", "bessel_y1", "spherical_bessel_j0"]},
}
# IEEE-exact in double, so the rule "evaluated in double, then rounded" is computed exactly here
EXACT_FLOAT1 = {"sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x),
                "frexp_mantissa": lambda x: math.frexp(x)[0] if math.isfinite(x) else x}
ULP_OPS = set(TRANSCENDENTAL) | {"atan2", "hypot"} | set(POLYNOMIALS) | set(GAMMA2)
# The functions whose double athene computes itself (base/scalar.c: erfinv by Newton steps from
# Giles' approximation, digamma as Cephes' psi) are checked against mpmath within this many units
# of f64; at f32 and narrower they round to ULP_BOUND as the others do.
ULP_F64 = {"erfinv": 4, "digamma": 8, "lgamma": 8, "erfcx": 8, "ndtri": 8, "airy_ai": 64,
           # SciPy's own error, in the tails of the incomplete gamma and at large x of zeta; polygamma's
           # n! a product of n doubles
           "igamma": 2**20, "igammac": 2**20, "polygamma": 256,
           # zeta of a negative q sums terms of two signs: 2 of 16 digits cancel at zeta(3, -2.5)
           "zeta": 2**10,
           # (base/bessel.c: Cephes' expansions, as SciPy's and PyTorch's)
           **{f: 8 for f in ["i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e", "bessel_j0", "bessel_j1", "bessel_y0",
                             "bessel_y1", "spherical_bessel_j0"]}}
# digamma sums terms near 1 to a result near 0 around its root (1.4616...): there its error is
# absolute, as Cephes' and PyTorch's (whose f64 values athene's equal bit for bit)
ABS_F64 = {"digamma": 2.0**-50}
# and a function of the row for the Bessel functions of the first and second kind and the
# polynomials, at every float dtype (bessel_tol, polynomial_tol: of the row and the value)
ROW_TOL = {**{f"bessel_{k}": (lambda r, w, k=k: bessel_tol(f"bessel_{k}", r[0])) for k in ("j0", "j1", "y0", "y1")},
           **{op: (lambda r, w, op=op: polynomial_tol(op, r[0], r[1], w)) for op in POLYNOMIALS}}


def unop(op, t, x):
    """Unary op at dtype t (the operand already of t)."""
    if op in ("neg", "-x"):
        return -x if t in FLOATS else wrap(t, -x)
    if op == "abs":  # integer abs(INT_MIN) wraps to INT_MIN
        return abs(x) if t in FLOATS else wrap(t, abs(x))
    if op == "sign":  # sign(NaN) is NaN and sign(-0.0) is 0.0
        if t in FLOATS:
            return x if math.isnan(x) else 1.0 if x > 0 else -1.0 if x < 0 else 0.0
        return wrap(t, (x > 0) - (x < 0))
    if op == "relu":  # x where x > 0, else 0; NaN stays NaN
        if t in FLOATS:
            return x if math.isnan(x) or x > 0 else 0.0
        return max(x, 0)
    if op == "~":  # every bit flipped; on a bool, not
        return int(not x) if t == "bool" else wrap(t, ~x)
    if op in ("floor", "ceil", "round", "trunc"):  # the identity on integers; round: half to even
        if t not in FLOATS:
            return x
        f = {"floor": np.floor, "ceil": np.ceil, "round": np.rint, "trunc": np.trunc}[op]
        return float(f(f64(x)))
    if op == "frexp_exponent":  # an i32 of the float operand
        return frexp_exponent(x)
    with np.errstate(all="ignore"):
        if op in TRANSCENDENTAL:
            return rnd(t, float(TRANSCENDENTAL[op](f64(x))))
        if op in EXACT_FLOAT1:
            return rnd(t, float(EXACT_FLOAT1[op](f64(x))))
    raise AssertionError(op)


# ----------------------------------------------------------------------------- the ops and their typing

# kind as in src/ops.h: how the result dtype is formed (docs/language.md, Operators and Functions)
BINARY = {"+": "ARITH", "-": "ARITH", "*": "ARITH", "/": "TDIV", "//": "FLOOR", "%": "FLOOR",
          "==": "CMP", "!=": "CMP", "<": "CMP", "<=": "CMP", ">": "CMP", ">=": "CMP",
          "&&": "LOGIC", "||": "LOGIC", "pow": "ARITH", "min": "ARITH", "max": "ARITH", "atan2": "FLOAT",
          "hypot": "FLOAT", "nextafter": "FLOAT", **{p: "FLOAT" for p in POLYNOMIALS}, **{f: "FLOAT" for f in GAMMA2},
          "&": "BIT", "|": "BIT", "^": "BIT", "<<": "SHIFT", ">>": "SHIFT",
          "wrap": "WRAP"}
UNARY = {"!": "LOGIC", "~": "BIT", "-x": "SAME", "neg": "SAME", "abs": "SAME", "sign": "SAME", "relu": "SAME",
         "floor": "SAME", "ceil": "SAME", "round": "SAME", "trunc": "SAME", "isnan": "PRED", "isinf": "PRED",
         **{f: "FLOAT" for f in list(TRANSCENDENTAL) + list(EXACT_FLOAT1)}, "frexp_exponent": "FLOATI"}
TERNARY = {"clamp": "ARITH", "where": "WHERE"}
NAME = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod", "==": "eq", "!=": "ne",
        "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "&&": "and", "||": "or", "!": "not", "-x": "negp",
        "&": "band", "|": "bor", "^": "bxor", "~": "bnot", "<<": "shl", ">>": "shr"}


def name(op):
    return NAME.get(op, op)


def accepted(op, dts):
    """Does the language accept op on operands of these dtypes? (check.c's refusals: '-' and neg
    on bools, wrap() and the shifts on anything but integers, the bitwise ops on floats.)"""
    kind = {**BINARY, **UNARY, **TERNARY}.get(op)
    if kind == "BIT":
        return all(d not in FLOATS for d in dts)
    if kind == "SHIFT":
        return all(d in INTS for d in dts)
    if op in ("-", "-x", "neg"):
        return promote(*dts) != "bool" if op == "-" else dts[0] != "bool"
    if op == "wrap":
        return all(d in INTS for d in dts)
    return True


def typing(op, dts):
    """(operation dtype, result dtype) of op on non-weak operands of dtypes dts."""
    kind = {**BINARY, **UNARY, **TERNARY}[op]
    if kind in ("LOGIC", "PRED"):
        return None, "bool"
    if kind == "SAME":
        return dts[0], dts[0]
    p = dts[1] if kind == "WHERE" else dts[0]  # where's condition takes no part
    for d in dts[2 if kind == "WHERE" else 1:]:
        p = promote(p, d)
    if kind in ("TDIV", "FLOAT", "FLOATI") and p not in FLOATS:
        p = "f32"  # "integers and bools give f32"
    if kind == "FLOATI":
        return p, "i32"  # frexp_exponent
    if kind == "FLOOR" and p == "bool":
        p = "i64"  # "A bool result becomes i64"
    if kind == "CMP":
        return p, "bool"
    return p, p


def expected(op, dts, vals):
    """The language's value of op on vals (each of its dtype in dts)."""
    kind = {**BINARY, **UNARY, **TERNARY}[op]
    t, res = typing(op, dts)
    if kind == "LOGIC":
        if op == "!":
            return int(not truth(vals[0]))
        return int(truth(vals[0]) and truth(vals[1]) if op == "&&" else truth(vals[0]) or truth(vals[1]))
    if kind == "PRED":  # "always false for integers and bools"
        x = vals[0]
        return int(dts[0] in FLOATS and (math.isnan(x) if op == "isnan" else math.isinf(x)))
    if op == "where":  # c of any dtype, non-zero (and NaN) true; the pick converted to the result
        k = 1 if truth(vals[0]) else 2
        return convert(vals[k], dts[k], res)
    v = [convert(x, d, t) for x, d in zip(vals, dts)]
    if kind == "CMP":
        return cmp(op, *v)
    if op == "clamp":  # min(max(x, lo), hi): NaN anywhere gives NaN, lo > hi gives hi
        if t in FLOATS:
            return fmin(fmax(v[0], v[1]), v[2])
        return min(max(v[0], v[1]), v[2])
    if len(v) == 1:
        return unop(op, t, v[0])
    return binop(op, t, *v)


# A literal is weak: it adopts the other operand's dtype unless its category (bool < integers <
# floats) is higher, then f32 for a float and i64 for an integer; it is converted to that dtype
# before the op (1000 wraps to -24 in i8), except in a comparison, which is exact, in f64 if the
# promoted dtype is a float and in i64 otherwise ("Types and promotion").
WEAK = [("+", 1), ("+", 1000), ("*", 2.5), ("<", 300), ("==", 0.1), (">", -0.5), ("/", 3), ("max", 2.5),
        ("*", 2**60 + 2**36 + 1), ("<", 2**60 + 2**36 + 1),  # to f32 once: 2^60 + 2^37; compared exactly
        ("&", 6), ("^", -1), ("<<", 3), (">>", 1)]  # on bools and integers (bool & 6 is i64, as +)


def category(dt):
    return 0 if dt == "bool" else 2 if dt in FLOATS else 1


def weak_typing(op, dt, lit):
    """(operation dtype, result dtype) of x op lit, x of dtype dt."""
    lcat = 2 if isinstance(lit, float) else 1
    p = dt if lcat <= category(dt) else "f32" if lcat == 2 else "i64"
    kind = BINARY[op]
    if kind == "TDIV" and p not in FLOATS:
        p = "f32"
    if kind == "CMP":
        return ("f64" if p in FLOATS else "i64"), "bool"
    return p, p


def weak_expected(op, dt, lit, x):
    t = weak_typing(op, dt, lit)[0]
    if BINARY[op] == "CMP":
        return cmp(op, convert(x, dt, t), lit)  # exact: lit as written, x exact in i64 or f64
    return binop(op, t, convert(x, dt, t), convert(lit, "f64" if isinstance(lit, float) else "i64", t))


# ----------------------------------------------------------------------------- edge values


def fvals(dt, xs):
    """The values of xs that float dtype dt represents exactly, in order, without repeats."""
    out, seen = [], set()
    for x in xs:
        if math.isnan(x):
            key = "nan"
        elif rnd(dt, x) != x:
            continue
        else:
            key = (x, math.copysign(1, x))
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def float_consts(dt):
    mbits, emin, emax = FMT[dt]
    big = (2 - 2.0**-mbits) * 2.0**emax
    sub = 2.0 ** (emin - mbits)
    return big, sub, 2.0**emin


def edge(dt):
    """The edge values every op of dtype dt sees (every pair of them for a binary op)."""
    if dt == "bool":
        return [0, 1]
    if dt in INTS:
        lo, hi = IRANGE[dt]
        xs = [0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -100, lo, lo + 1, hi, hi - 1]
        if dt == "i64":
            xs += [2**32, -2**32, 2**53 + 1]
        return sorted({x for x in xs if lo <= x <= hi}, key=xs.index)
    big, sub, tiny = float_consts(dt)
    half = 2.0 ** -(FMT[dt][0] + 1)  # half an ulp of 1: 1 + half is a tie, to 1; (1 + 2 half) + half to 1 + 4 half
    return fvals(dt, [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 3.0, -7.0, rnd(dt, 1 / 3), 100.0,
                      math.inf, -math.inf, math.nan, big, -big, sub, -sub, tiny, 2.0**24 + 2, half, 1 + 2 * half])


def edge3(dt):
    """The fewer values of a ternary op (every triple)."""
    if dt == "bool":
        return [0, 1]
    if dt in INTS:
        lo, hi = IRANGE[dt]
        return sorted({x for x in [0, 1, -1, 3, lo, hi] if lo <= x <= hi}, key=[0, 1, -1, 3, lo, hi].index)
    big, sub, _ = float_consts(dt)
    return [0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf, math.nan, big, sub]


def unary_vals(dt):
    """Edge values, and ordinary ones for the functions (exp's overflow, log's domain, ...)."""
    xs = edge(dt)
    if dt in FLOATS:
        more = [0.1, 0.7, 2.0, 10.0, -10.0, 20.0, 88.5, 89.0, 710.0, -745.0, 1e-5, math.pi, -math.pi / 2, 3.75]
        xs = fvals(dt, xs + [rnd(dt, x) for x in more])
    return xs


def shift_counts(dt):
    """Counts of a shift at integer dtype dt: inside [0, bits), at its ends and outside."""
    lo, hi = IRANGE[dt]
    nbits = 8 * np.dtype(NP[dt]).itemsize
    xs = [0, 1, 3, nbits - 1, nbits, nbits + 1, 64, 100, -1, -nbits, lo, hi]
    return sorted({x for x in xs if lo <= x <= hi}, key=xs.index)


def wrap_moduli(dt):
    lo, hi = IRANGE[dt]
    return [m for m in [1, 2, 3, 7, 100, hi] if m <= hi]


def cast_vals(dt):
    """Edge values and the values that decide a conversion from dt: integers around 2^24, 2^53
    and the halfway cases of f16, bf16 and f32 above them (2^60 + 2^36 + 1 rounds once to
    2^60 + 2^37, twice through f64 to 2^60); floats at the halfway cases of every narrower
    float, a little above them (where rounding through f32 first goes wrong), their subnormal
    boundaries and overflow thresholds, and at the integer ranges."""
    if dt == "bool":
        return [0, 1]
    if dt in INTS:
        lo, hi = IRANGE[dt]
        xs = edge(dt) + [127, 128, 255, 256, -129, 257, 259, 2049, 2051, 4097, 65504, 65519, 65520, 2**15,
                         2**16 + 1, 2**24 + 1, 2**24 + 3, -(2**24 + 1), 2**25 + 2, 2**31, 2**53 + 3,
                         2**60 + 2**36, 2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**60 + 2**52 + 1,
                         2**62 + 2**38 + 2**10, 2**63 - 2**38, 2**63 - 2**39 - 1]
        return sorted({x for x in xs if lo <= x <= hi}, key=xs.index)
    big, sub, tiny = float_consts(dt)
    xs = edge(dt) + [1 + 2.0**-11, 1 + 2.0**-11 + 2.0**-40, 1 + 2.0**-11 + 2.0**-23, 1 + 3 * 2.0**-11,
                     1 + 2.0**-8, 1 + 2.0**-8 + 2.0**-30, 1 + 2.0**-8 + 2.0**-23, 1 + 3 * 2.0**-8,
                     1 + 2.0**-8 + 2.0**-10, 1 + 2.0**-24, 1 + 2.0**-24 + 2.0**-52, 1 + 3 * 2.0**-24,
                     2.0**-24, 2.0**-25, 2.0**-25 + 2.0**-40, 3 * 2.0**-26, 2.0**-149, 2.0**-150,
                     2.0**-150 + 2.0**-170, 3 * 2.0**-151, 2.0**-133, 2.0**-134, 2.0**-134 + 2.0**-160,
                     65504.0, 65519.0, 65520.0, -65520.0, 65519.99, 3.3895313892515355e38,
                     3.3961775292304544e38, 3.4028235677973366e38, 3.4028235677973366e38 * (1 + 2.0**-25),
                     1e39, -1e39, 1e300, 127.9, 128.0, -128.9, -129.0, 255.5, 256.0, -0.9, 0.9, 2.5, -2.5,
                     32767.5, 32768.0, -32769.0, 2147483647.0, 2147483648.0, -2147483649.0,
                     2.0**63, -2.0**63, 2.0**63 - 1024, 1e30, -1e30, 2.0**53 + 2, 2.0**24 + 1, 16777217.0]
    return fvals(dt, xs)


def red_vals(dt):
    """Rows of two values: NaN first and second, ties, signed zeros, overflowing sums."""
    if dt in FLOATS:
        big, sub, _ = float_consts(dt)
        return [0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf, math.nan, big, -big, sub]
    return edge3(dt) + ([2**60 + 2**36 + 1, 2**62] if dt == "i64" else [])


# ----------------------------------------------------------------------------- arrays and runs


def to_array(dt, xs):
    """Python values -> a NumPy array of dtype dt (exact: every value is dt's own)."""
    if dt in FLOATS:
        return np.array(xs, dtype=np.float64).astype(NP[dt])
    return np.array(xs, dtype=object).astype(NP[dt])


def from_array(dt, a):
    a = np.asarray(a)
    if dt == "bf16" and a.dtype.kind == "V":
        a = a.view(ml_dtypes.bfloat16)
    if dt in FLOATS:
        return [float(x) for x in a.astype(np.float64).ravel()]
    return [int(x) for x in a.ravel()]


def bits(dt, a):
    a = np.asarray(a)
    if dt == "bf16" and a.dtype.kind == "V":
        a = a.view(ml_dtypes.bfloat16)
    a = np.ascontiguousarray(a.astype(NP[dt]))
    return a.view(UINT[a.itemsize]).ravel()


def same(dt, x, y):
    """Bit-equal, NaN matching NaN."""
    if dt in FLOATS and math.isnan(x):
        return math.isnan(y)
    if dt in FLOATS:
        return not math.isnan(y) and x == y and math.copysign(1, x) == math.copysign(1, y)
    return x == y


def ordinal(dt, x):
    """x's place among dt's values: neighbours differ by 1, -0.0 and 0.0 are both 0."""
    b = int(bits(dt, to_array(dt, [x]))[0])
    sign = 1 << (8 * np.dtype(NP[dt]).itemsize - 1)
    return -(b & (sign - 1)) if b & sign else b


def close(dt, want, got, bound=ULP_BOUND):
    """Within bound units in the last place of dt; NaN, infinities exact."""
    if math.isnan(want) or math.isnan(got) or math.isinf(want) or math.isinf(got):
        return same(dt, want, got)
    return abs(ordinal(dt, want) - ordinal(dt, got)) <= bound


# ----------------------------------------------------------------------------- kernels


class Kernel:
    """One kernel whose statements are the cases: inputs (name -> dtype, values, shape, dims) and
    outputs (name -> dtype, dims, index variables, expression)."""

    def __init__(self, kname, big=True):
        self.name, self.ins, self.outs, self.big = kname, {}, {}, big  # big: its inputs repeat to BIG

    def inp(self, p, dt, xs, shape, dims):
        self.ins[p] = (dt, xs, shape, dims)

    def out(self, o, dt, dims, lhs, rhs):
        self.outs[o] = (dt, dims, lhs, rhs)

    def source(self):
        ins = ", ".join(f"{p}: {dt}[{', '.join(dims)}]" for p, (dt, _, _, dims) in self.ins.items())
        outs = ", ".join(f"{o}: {dt}[{', '.join(dims)}]" for o, (dt, dims, _, _) in self.outs.items())
        body = "\n".join(f"    {o}[{lhs}] = {rhs}" for o, (_, _, lhs, rhs) in self.outs.items())
        return f"kernel {self.name}({ins}) -> ({outs}) {{\n{body}\n}}\n"


class Case:
    """One statement: op on operands of dtypes dts, on rows (tuples of operand values), its
    result of dtype res in output out of a kernel; want(row) is the language's value."""

    def __init__(self, kname, out, op, dts, res, rows, want, ulp=False, abs_tol=0.0):
        self.kname, self.out, self.op, self.dts, self.res = kname, out, op, dts, res
        self.rows, self.want = rows, want
        self.ulp = ULP_BOUND if ulp is True else ulp  # units in the last place allowed; 0: bit-exact
        self.abs_tol = abs_tol  # or this far from the value (a function of the row, or a number)


def pairs(xs, ys):
    return [(x, y) for x in xs for y in ys]


def add_inputs(k, names, dts, rows, sym):
    for j, (p, dt) in enumerate(zip(names, dts)):
        k.inp(p, dt, [r[j] for r in rows], (len(rows),), [sym])


REDUCTIONS = ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all"]


def red_type(op, dt):
    """The result dtype of a reduction over a body of dtype dt ("Reductions")."""
    if op in ("sum", "prod"):
        return dt if dt in FLOATS else "i64"
    if op == "mean":
        return dt if dt in FLOATS else "f32"
    if op in ("max", "min"):
        return dt
    return "i64" if op.startswith("arg") else "bool"


def red_want(op, dt, xs):
    """A reduction of the values xs, in order ("Reductions": floats accumulate in double and are
    rounded once at the end; integers in wrapping i64; max/min/argmax/argmin: the first NaN
    wins, ties go to the first occurrence; empty: sum 0, prod 1, mean NaN, any false, all true)."""
    res = red_type(op, dt)
    if op in ("any", "all"):
        return int((any if op == "any" else all)(truth(x) for x in xs))
    if op in ("sum", "prod", "mean"):
        if dt in FLOATS:
            acc = 1.0 if op == "prod" else 0.0
            for x in xs:
                acc = acc * x if op == "prod" else acc + x
            if op == "mean":
                acc = acc / len(xs) if xs else math.nan  # the double sum divided by the count
            return rnd(res, acc)
        acc = math.prod(xs) if op == "prod" else sum(xs)
        if op == "mean":  # the wrapped i64 sum divided by the count, rounded once to f32
            return rnd("f32", Fraction(wrap("i64", acc), len(xs))) if xs else math.nan
        return wrap("i64", acc)
    best = None
    for j, x in enumerate(xs):
        if best is None:
            best = j
            continue
        b = xs[best]
        if dt in FLOATS and math.isnan(b):
            continue
        if (dt in FLOATS and math.isnan(x)) or (x > b if op in ("max", "argmax") else x < b):
            best = j
    return best if op.startswith("arg") else xs[best]


_KERNELS, _CASES = {}, {}


def ops_kernel(dt):
    """Every op of the op table on operands of dtype dt, and every reduction over them."""
    kname = f"ops_{dt}"
    if kname in _KERNELS:
        return _KERNELS[kname]
    k, cases = Kernel(kname), []
    xs, two, three = unary_vals(dt), pairs(edge(dt), edge(dt)), pairs(pairs(edge3(dt), edge3(dt)), edge3(dt))
    three = [(a, b, c) for (a, b), c in three]
    add_inputs(k, ["x"], [dt], [(x,) for x in xs], "N")
    add_inputs(k, ["a", "b"], [dt, dt], two, "M")
    add_inputs(k, ["c", "d", "e"], [dt] * 3, three, "P")
    ops = [(op, 1, [(x,) for x in xs]) for op in UNARY] + [(op, 2, two) for op in BINARY if op != "wrap"]
    ops += [(op, 3, three) for op in TERNARY]
    if dt in INTS:
        wrows = pairs(edge(dt), wrap_moduli(dt))
        add_inputs(k, ["wa", "wn"], [dt, dt], wrows, "W")
        ops.append(("wrap", 2, wrows))
        srows = pairs(edge(dt), shift_counts(dt))  # every count at the edges of [0, bits)
        add_inputs(k, ["sa", "sc"], [dt, dt], srows, "S")
        ops += [("<<", 2, srows), (">>", 2, srows)]
    ops = [(op, n, rows) for op, n, rows in ops if not (op in ("<<", ">>") and rows is two)]
    for op, n, rows in ops:
        dts = (dt,) * n
        if not accepted(op, dts):
            continue
        res = typing(op, dts)[1]
        o = "y_" + name(op)
        shifts = op in ("<<", ">>")
        args = {1: ["x"], 2: ["wa", "wn"] if op == "wrap" else ["sa", "sc"] if shifts else ["a", "b"],
                3: ["c", "d", "e"]}[n]
        loads = [f"{p}[i]" for p in args]
        if op in ("!", "-x", "~"):
            rhs = op[0] + loads[0]
        elif op in NAME:  # an operator
            rhs = f" {op} ".join(loads)
        else:
            rhs = f"{op}({', '.join(loads)})"
        k.out(o, res, [{1: "N", 2: "W" if op == "wrap" else "S" if shifts else "M", 3: "P"}[n]], "i", rhs)
        ulp = res in FLOATS and (op in ULP_OPS or (op == "pow" and dt in FLOATS))
        ulp = (ULP_F64.get(op, ULP_BOUND) if res == "f64" else ULP_BOUND) if ulp else 0
        cases.append(Case(kname, o, op, dts, res, rows, lambda r, op=op, dts=dts: expected(op, dts, r), ulp,
                          ROW_TOL.get(op, ABS_F64.get(op, 0.0) if res == "f64" else 0.0)))
    # a weak operand (a literal) on the right
    for op, lit in WEAK:
        if not accepted(op, (dt, "f64" if isinstance(lit, float) else "i64")):
            continue
        res = weak_typing(op, dt, lit)[1]
        o = f"w_{name(op)}_{str(lit).replace('-', 'm').replace('.', '_')}"
        k.out(o, res, ["N"], "i", f"{op}(x[i], {lit})" if op == "max" else f"x[i] {op} {lit}")
        cases.append(Case(kname, o, f"{op} {lit}", (dt,), res, [(x,) for x in xs],
                          lambda r, op=op, lit=lit: weak_expected(op, dt, lit, r[0])))
    # reductions: rows of two (every pair of red_vals); a row of every edge value; a long row of
    # finite values whose float sum depends on the order (row-major, one double accumulator);
    # empty rows
    rv = red_vals(dt)
    rows2, rowall = pairs(rv, rv), edge(dt)
    fin = [x for x in unary_vals(dt) if dt not in FLOATS or (math.isfinite(x) and abs(x) < float_consts(dt)[0])]
    rowfin = (fin + [rnd(dt, -3 * x) if dt in FLOATS else wrap(dt, -3 * x) for x in reversed(fin)]) * 2
    if dt in FLOATS and rnd(dt, 2.0**53) == 2.0**53:  # in this order 1, in any other 3 or 2
        rowfin = [2.0**53, 1.0, 1.0, -2.0**53, 1.0] + rowfin
    k.inp("r2", dt, [x for r in rows2 for x in r], (len(rows2), 2), ["R", "C"])
    k.inp("ra", dt, rowall, (1, len(rowall)), ["1", "K"])
    k.inp("rf", dt, rowfin, (1, len(rowfin)), ["1", "F"])
    k.inp("re", dt, [], (3, 0), ["E", "Z"])
    for op in REDUCTIONS:
        res = red_type(op, dt)
        for src, dims, rows in [("r2", ["R"], rows2), ("ra", ["1"], [tuple(rowall)]), ("rf", ["1"], [tuple(rowfin)]),
                                ("re", ["E"], [()] * 3)]:
            if src == "re" and op in ("max", "min", "argmax", "argmin"):
                continue  # a run-time error (test_empty_reduction_is_an_error)
            o = f"r_{op}_{src}"
            k.out(o, res, dims, "i", f"{op}(k: {src}[i, k])")
            cases.append(Case(kname, o, op, (dt,), res, rows, lambda r, op=op: red_want(op, dt, list(r))))
    _KERNELS[kname] = k
    _CASES[kname] = cases
    return k


def casts_kernel():
    """Every cast between two dtypes, and the same conversion made by a store."""
    kname = "casts"
    if kname in _KERNELS:
        return _KERNELS[kname]
    k, cases = Kernel(kname), []
    for src in DTYPES:
        xs = cast_vals(src)
        k.inp(f"s_{src}", src, xs, (len(xs),), [f"N_{src}"])
        for dst in DTYPES:
            rows = [(x,) for x in xs]
            for form, rhs in [("cast", f"{dst}(s_{src}[i])"), ("store", f"s_{src}[i]")]:
                o = f"{form}_{src}_{dst}"
                k.out(o, dst, [f"N_{src}"], "i", rhs)
                cases.append(Case(kname, o, form, (src,), dst, rows,
                                  lambda r, src=src, dst=dst: convert(r[0], src, dst)))
    _KERNELS[kname] = k
    _CASES[kname] = cases
    return k


def reinterpret(x, src, dst):
    """The value of dtype dst whose bits are x's in dtype src ("Bitcasts")."""
    with np.errstate(invalid="ignore"):  # a NaN's bits
        return from_array(dst, to_array(src, [x]).view(NP[dst]))[0]


# the pairs of dtypes of one size: every bitcast the language has
BITCASTS = [(s, d) for s in DTYPES for d in DTYPES
            if s != d and "bool" not in (s, d) and np.dtype(NP[s]).itemsize == np.dtype(NP[d]).itemsize]


def bitcasts_kernel():
    """Every bitcast D.bits(x), on the cast edge values of its source and on bit patterns that
    are NaNs, infinities and subnormals of the other dtype."""
    kname = "bitcasts"
    if kname in _KERNELS:
        return _KERNELS[kname]
    k, cases = Kernel(kname), []
    for src in sorted({s for s, _ in BITCASTS}, key=DTYPES.index):
        xs = cast_vals(src)
        if src in INTS:  # every bit pattern's class: the integers of the float's specials
            nb = 8 * np.dtype(NP[src]).itemsize
            pats = [0, 1, 2**(nb - 1), 2**nb - 1, 2**(nb - 1) - 1, 0x7f80 if nb == 16 else 0x7f800000 if nb == 32 else 0,
                    0x7c00 if nb == 16 else 0, 0xff80 if nb == 16 else 0, 0x3c00 if nb == 16 else 0x3f800000]
            xs = xs + [wrap(src, p) for p in pats if IRANGE[src][0] <= wrap(src, p) <= IRANGE[src][1]]
        k.inp(f"b_{src}", src, xs, (len(xs),), [f"B_{src}"])
        for s2, dst in BITCASTS:
            if s2 != src:
                continue
            o = f"bits_{src}_{dst}"
            k.out(o, dst, [f"B_{src}"], "i", f"{dst}.bits(b_{src}[i])")
            cases.append(Case(kname, o, "bits", (src,), dst, [(x,) for x in xs],
                              lambda r, src=src, dst=dst: reinterpret(r[0], src, dst)))
    _KERNELS[kname] = k
    _CASES[kname] = cases
    return k


def mix_vals(dt):
    """MIX values of each dtype (every pair of dtypes meets every pair of them)."""
    if dt == "bool":
        return [0, 1, 0, 1, 1, 0, 1]
    if dt in INTS:
        lo, hi = IRANGE[dt]
        return [0, 1, 2, 3, 7, 128, 255] if dt == "u8" else [0, 1, -1, 3, -7, lo, hi]
    return [0.0, -0.0, 1.5, -1.0, math.inf, math.nan, float_consts(dt)[0]]


# every binary op but wrap (whose modulus must be positive), and where and clamp: where(a, a, b)
# and clamp(a, b, b)
# (of the polynomials, whose promotion is atan2's, legendre_p)
MIXED = [op for op in BINARY if op != "wrap" and op not in POLYNOMIALS[:-1]] + ["where", "clamp"]


def mixed_kernel():
    """Ops on two different dtypes: promotion, then the op ("Types and promotion")."""
    kname = "mixed"
    if kname in _KERNELS:
        return _KERNELS[kname]
    k, cases = Kernel(kname, big=False), []
    n = len(mix_vals("bool"))
    for dt in DTYPES:
        xs = mix_vals(dt)
        k.inp(f"ma_{dt}", dt, [x for x in xs for _ in range(n)], (n * n,), ["Q"])
        k.inp(f"mb_{dt}", dt, [x for _ in range(n) for x in xs], (n * n,), ["Q"])
    for da in DTYPES:
        for db in DTYPES:
            if da == db:
                continue
            rows = [(x, y) for x in mix_vals(da) for y in mix_vals(db)]
            for op in MIXED:
                dts = {"where": (da, da, db), "clamp": (da, db, db)}.get(op, (da, db))
                if not accepted(op, dts):
                    continue
                res = typing(op, dts)[1]
                a, b = f"ma_{da}[i]", f"mb_{db}[i]"
                args = {"where": [a, a, b], "clamp": [a, b, b]}.get(op, [a, b])
                o = f"m_{name(op)}_{da}_{db}"
                k.out(o, res, ["Q"], "i", f" {op} ".join(args) if op in NAME else f"{op}({', '.join(args)})")
                pick = (lambda r: (r[0], r[0], r[1])) if op == "where" else (lambda r: (r[0], r[1], r[1])) \
                    if op == "clamp" else (lambda r: r)
                cases.append(Case(kname, o, op, (da, db), res, rows,
                                  lambda r, op=op, dts=dts, pick=pick: expected(op, dts, pick(r)),
                                  (ULP_F64.get(op, ULP_BOUND) if res == "f64" else True)
                                  if res in FLOATS and op in ("atan2", "pow", "hypot", "legendre_p", *GAMMA2) else False,
                                  ROW_TOL.get(op, 0.0)))
    _KERNELS[kname] = k
    _CASES[kname] = cases
    return k


BUILDERS = {**{f"ops_{dt}": (lambda dt=dt: ops_kernel(dt)) for dt in DTYPES}, "casts": casts_kernel,
            "mixed": mixed_kernel, "bitcasts": bitcasts_kernel}


def cases_of(kname):
    BUILDERS[kname]()
    return _CASES[kname]


# ----------------------------------------------------------------------------- runs


def athene(*args):
    return subprocess.run([ATHENE, *map(str, args)], capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL)


MAX_OUTS = 60  # `athene run` takes at most 64 --out: a kernel of more statements runs in parts
# Each input is repeated along its first dim to at least BIG elements, so that the executor
# runs its statements in several blocks, on every thread, through its vector paths (as
# diff_test's large pointwise cases); every repetition must give the first one's bits.
BIG = 12288


def repeats(shape, dims):
    return -(-BIG // shape[0]) if shape[0] and not dims[0].isdigit() else 1


class Runs:
    """Writes each kernel and its inputs once, and runs it once per backend, on first use."""

    def __init__(self, root):
        self.root, self.done = root, {}

    def parts(self, k):
        """k as kernels of at most MAX_OUTS outputs, each with the inputs it reads."""
        outs = list(k.outs)
        for j in range(0, len(outs), MAX_OUTS):
            part = Kernel(f"{k.name}_{j // MAX_OUTS}", k.big)
            for o in outs[j:j + MAX_OUTS]:
                part.out(o, *k.outs[o])
            used = set(re.findall(r"(\w+)\[", "\n".join(rhs for _, _, _, rhs in part.outs.values())))
            for p, v in k.ins.items():
                if p in used:
                    part.inp(p, *v)
            yield part

    def run_part(self, k, mode):
        d = self.root / k.name
        d.mkdir(exist_ok=True)
        src = d / "k.ath"
        src.write_text(k.source())
        for p, (dt, xs, shape, dims) in k.ins.items():
            a = to_array(dt, xs).reshape(shape)
            np.save(d / f"{p}.npy", np.concatenate([a] * repeats(shape, dims)) if a.size and k.big else a)
        if mode == "types":  # each statement's dtype, as `athene -d check` prints it
            r = athene("-d", "check", "check", src)
            assert r.returncode == 0, r.stderr
            return dict(re.findall(r"^\s+(\w+)\[.*#\s*(\w+);", r.stdout, re.M))
        od = d / mode
        od.mkdir(exist_ok=True)
        args = ["run", src] + [a for p in k.ins for a in ("--in", f"{p}={d / p}.npy")]
        args += [a for o in k.outs for a in ("--out", f"{o}={od / o}.npy")] + (["--reference"] if mode == "reference" else [])
        r = athene(*args)
        assert r.returncode == 0, f"athene {mode} of {src}: exit {r.returncode}\n{r.stderr}"
        return {o: np.load(od / f"{o}.npy") for o in k.outs}

    def run(self, k, mode):
        key = (k.name, mode)
        if key not in self.done:
            try:
                res = {}
                for part in self.parts(k):
                    res.update(self.run_part(part, mode))
                self.done[key] = res
            except AssertionError as e:
                self.done[key] = str(e)
        assert not isinstance(self.done[key], str), self.done[key]
        return self.done[key]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return Runs(tmp_path_factory.mktemp("scalar"))


def show(dt, x):
    if dt in FLOATS:
        return f"{x!r}" if math.isnan(x) or math.isinf(x) or x == int(x) and abs(x) < 2**53 else f"{x!r} ({x.hex()})"
    return str(x)


def check(runs, c):
    k = BUILDERS[c.kname]()
    nat, ref = runs.run(k, "native")[c.out], runs.run(k, "reference")[c.out]
    n = len(c.rows)
    assert nat.shape == ref.shape and nat.size % n == 0
    for got, mode in [(nat, "native"), (ref, "reference")]:
        b = bits(c.res, got).reshape(-1, n)
        differ = b != b[0]
        if c.res in FLOATS:  # every NaN matches
            v = got.view(ml_dtypes.bfloat16) if got.dtype.kind == "V" else got
            nan = np.isnan(v.astype(np.float64)).reshape(-1, n)
            differ &= ~(nan & nan[0])
        assert not differ.any(), f"{c.out} ({mode}): a repetition of the inputs differs from the first at " \
            f"{np.argwhere(differ)[:5].tolist()} (repetition, row)"
    nat, ref = from_array(c.res, nat.ravel()[:n]), from_array(c.res, ref.ravel()[:n])
    bad = []
    for row, nv, rv in zip(c.rows, nat, ref):
        w = c.want(row)
        if c.ulp:
            tol = c.abs_tol(row, w) if callable(c.abs_tol) else c.abs_tol
            ok = all(close(c.res, w, v, c.ulp) or abs(w - v) <= tol for v in (nv, rv)) and same(c.res, nv, rv)
        else:
            ok = same(c.res, w, nv) and same(c.res, w, rv)
        if not ok:
            args = ", ".join(show(d, x) for d, x in zip(c.dts * len(row), row))
            bad.append(f"  {c.op}({args}) -> {c.res}: want {show(c.res, w)}, native {show(c.res, nv)}, "
                       f"reference {show(c.res, rv)}")
    what = "within %d ulp%s, executor == interpreter" % (
        c.ulp, " or the row's tolerance" if callable(c.abs_tol) else f" or {c.abs_tol:g}" if c.abs_tol else "") \
        if c.ulp else "bit-exact"
    assert not bad, f"{c.op} on {'/'.join(c.dts)} ({c.out}; {what}): {len(bad)} of {len(c.rows)} wrong\n" + \
        "\n".join(bad[:12])


# ----------------------------------------------------------------------------- the tests


EVERY = [c for kname in BUILDERS for c in cases_of(kname)]
# The f16 and i16 rows of laguerre_l and legendre_p step the Python reference's recurrence to
# degrees up to 65,504 on every edge pair: 74 s of make test (their kernels still run there, with
# the other outputs); make test-rest (CI) and make test-all check them (ATHENE_TEST_ALL).
SLOW = {"ops_f16:y_laguerre_l", "ops_i16:y_laguerre_l", "ops_f16:y_legendre_p", "ops_i16:y_legendre_p"}
ALL = EVERY if os.environ.get("ATHENE_TEST_ALL") else [c for c in EVERY if f"{c.kname}:{c.out}" not in SLOW]


@pytest.mark.parametrize("c", ALL, ids=[f"{c.kname}:{c.out}" for c in ALL])
def test_scalar(runs, c):
    """One op at one dtype (or dtype pair), on every edge value (pair, triple)."""
    check(runs, c)


@pytest.mark.parametrize("kname", list(BUILDERS))
def test_result_dtypes(runs, kname):
    """Each statement's dtype (athene -d check) is the one the promotion rules give."""
    k = BUILDERS[kname]()
    got = runs.run(k, "types")
    want = {c.out: c.dts[0] if c.op == "store" else c.res for c in cases_of(kname)}  # a store's value keeps its dtype
    assert got == want


def test_rounding_model():
    """rnd (exact rationals) agrees with NumPy's own single roundings: f64 -> f32 and f64 -> f16
    (astype), f32 -> bf16 (ml_dtypes), on random doubles of every exponent near each range, and
    on the halfway cases above 2^53 that rounding twice gets wrong."""
    rng = np.random.default_rng(38)
    for dt, lo, hi in [("f32", -160, 130), ("f16", -30, 18)]:
        u = rng.integers(0, 2**52, 3000, dtype=np.uint64) | (rng.integers(1023 + lo, 1023 + hi, 3000).astype(np.uint64) << 52)
        u[::3] &= ~np.uint64(2**30 - 1)  # few low bits: near a halfway point
        xs = u.view(np.float64) * np.where(rng.random(3000) < 0.5, -1, 1)
        with np.errstate(over="ignore"):
            want = xs.astype(NP[dt]).astype(np.float64)
        got = [rnd(dt, float(x)) for x in xs]
        assert [(x, w) for x, w, g in zip(xs, want, got) if w != g] == []
    fs = rng.standard_normal(3000).astype(np.float32) * np.float32(2.0) ** rng.integers(-130, 120, 3000)
    want = fs.astype(ml_dtypes.bfloat16).astype(np.float64)
    assert [(f, w) for f, w in zip(fs, want) if rnd("bf16", float(f)) != w] == []
    # one rounding of i64 -> f32, as NumPy converts (x86's cvtsi2ss): 2^60 + 2^36 + 1 -> 2^60 + 2^37
    big = [2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**63 - 2**39 - 1, 2**53 + 3]
    assert [rnd("f32", x) for x in big] == [float(v) for v in np.array(big, dtype=np.int64).astype(np.float32)]
    assert rnd("f32", 2**60 + 2**36 + 1) == 2.0**60 + 2.0**37
    assert rnd("bf16", 1 + 2.0**-8 + 2.0**-30) == 1 + 2.0**-7  # ml_dtypes 0.6 says 1.0: through f32


REFUSED = [("-", "a[i] - b[i]", "subtracting booleans is not supported"),
           ("-x", "-a[i]", "negating a bool is not supported"),
           ("neg", "neg(a[i])", "negating a bool is not supported")]
# the ops only integers (and for the bitwise ones bools) take: their refusal on the others
TYPED = {"wrap": ("wrap(a[i], b[i])", "wrap() takes integers, not {dt}"),
         **{op: (f"a[i] {op} b[i]", f"'{op}' takes integers or bools, not {{dt}}") for op in ("&", "|", "^")},
         "~": ("~a[i]", "'~' takes integers or bools, not {dt}"),
         **{op: (f"a[i] {op} b[i]", f"'{op}' takes integers, not {{dt}}") for op in ("<<", ">>")}}


@pytest.mark.parametrize("op,dt", [(op, "bool") for op, _, _ in REFUSED] +
                         [(op, dt) for op in TYPED for dt in DTYPES if not accepted(op, (dt, dt))])
def test_refused(tmp_path, op, dt):
    """The op x dtype combinations the language refuses are compile errors naming the op."""
    rhs, msg = next(((r, m) for o, r, m in REFUSED if o == op), None) or \
        (TYPED[op][0], TYPED[op][1].format(dt=dt))
    assert not accepted(op, (dt, dt))
    src = tmp_path / "k.ath"
    src.write_text(f"kernel k(a: {dt}[4], b: {dt}[4]) -> (y: i64[4]) {{\n    y[i] = {rhs}\n}}\n")
    r = athene("check", src)
    assert r.returncode == 1 and f"error: {msg}" in r.stderr, r.stderr


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("mode", ["native", "reference"])
def test_empty_reduction_is_an_error(tmp_path, op, dt, mode):
    """max, min, argmax and argmin over an empty range are run-time errors ("Reductions")."""
    src = tmp_path / "k.ath"
    res = red_type(op, dt)
    src.write_text(f"kernel k(x: {dt}[R, C]) -> (y: {res}[R]) {{\n    y[i] = {op}(k: x[i, k])\n}}\n")
    np.save(tmp_path / "x.npy", np.zeros((2, 0), dtype=NP[dt]))
    r = athene("run", src, "--in", f"x={tmp_path / 'x.npy'}", "--out", f"y={tmp_path / 'y.npy'}",
               *(["--reference"] if mode == "reference" else []))
    assert r.returncode == 1 and f"kernel k: {op} over an empty range at y[0]" in r.stderr, r.stderr
    assert not (tmp_path / "y.npy").exists()


@pytest.mark.parametrize("dt", ["f32", "bf16", "f16", "f64"])
def test_npy_input_converts_once(tmp_path, dt):
    """An i64 .npy given for a float input is converted as a cast converts, rounded once
    ("The command line": as astype does): 2^60 + 2^36 + 1 is 2^60 + 2^37 in f32, 2^60 + 2^52 + 1
    is 2^60 + 2^53 in bf16 (both 2^60 when rounded through f64 first)."""
    xs = [2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**60 + 2**52 + 1, -(2**60 + 2**52 + 1), 2**63 - 2**39 - 1,
          2**53 + 3, 65519, 65520, -1]
    src = tmp_path / "k.ath"
    src.write_text(f"kernel k(x: {dt}[N]) -> (y: {dt}[N]) {{\n    y[i] = x[i]\n}}\n")
    np.save(tmp_path / "x.npy", np.array(xs, dtype=np.int64))
    r = athene("run", src, "--in", f"x={tmp_path / 'x.npy'}", "--out", f"y={tmp_path / 'y.npy'}")
    assert r.returncode == 0, r.stderr
    assert from_array(dt, np.load(tmp_path / "y.npy")) == [rnd(dt, x) for x in xs]


def test_covers_the_op_table_and_the_dtypes():
    """Every row of the op table (src/base/ops.h: X and RX) and every dtype of include/athene.h has its
    cases here: a new op or dtype fails this test until it is covered."""
    ops_h = next(REPO.glob("src/**/ops.h")).read_text()
    ops = set(re.findall(r'^X\(\w+,\s*"([^"]+)"', ops_h, re.M))
    reds = set(re.findall(r'^RX\(\w+,\s*"([^"]+)"', ops_h, re.M))
    assert ops and reds
    covered = {c.op for c in EVERY}
    assert ops - covered == set() and reds - covered == set()
    assert {"-x", "neg"} <= covered  # prefix minus and neg() are one row
    assert {(c.dts[0], c.res) for c in EVERY if c.op == "bits"} == set(BITCASTS)
    header = (REPO / "include" / "athene.h").read_text()
    dtypes = re.findall(r"ATHENE_(\w+),", re.search(r"ATHENE_BOOL,[^}]*", header).group(0))
    assert [d.lower() for d in dtypes if d != "NDTYPES"] == DTYPES
    for dt in DTYPES:
        assert {c.op for c in EVERY if c.dts == (dt,) * len(c.dts)} >= {op for op in ops if accepted(op, (dt, dt))}
