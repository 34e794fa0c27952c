"""torch.compile(fn, backend="athene"): every program compiled against eager, every fused kernel
run by athene (no Inductor C++ kernel in the generated code, no fallback)."""

import logging
import math
import os
import re
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import athene
import athene.torch as at
from torch._inductor import config as inductor_config
from torch._inductor.utils import run_and_get_code


# a private Inductor cache for this module's compiles (conftest.py)
pytestmark = pytest.mark.usefixtures("private_inductor_cache")


def compiled_code(fn, *args, backend="athene", dynamic=False, options=None):
    """Compiles fn (no FX graph cache, so codegen runs) and returns (result, generated code)."""
    torch._dynamo.reset()
    with inductor_config.patch(fx_graph_cache=False):
        c = torch.compile(fn, backend=backend, dynamic=dynamic, options=options)
        out, codes = run_and_get_code(c, *args)
    return out, "\n".join(codes)


def check(fn, *args, dynamic=False, ref=None, **tol):
    """fn compiled with backend="athene" matches eager (or ref); athene ran every kernel, none
    fell back."""
    before = at.stats()
    out, code = compiled_code(fn, *args, dynamic=dynamic)
    torch.testing.assert_close(out, fn(*args) if ref is None else ref, **tol)
    after = at.stats()
    assert after["fallbacks"] == before["fallbacks"], "the graph fell back to Inductor's C++ backend"
    assert "cpp_fused" not in code and "async_compile.cpp" not in code, "an Inductor C++ kernel in the graph"
    assert "athene_runtime.load(" in code, "no athene kernel in the graph"
    assert after["calls"] > before["calls"]
    return code


def R(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=dtype)


# ---- pointwise ops and shapes

@pytest.mark.parametrize("shape", [(1024,), (2048,), (2048, 128)])
@pytest.mark.parametrize("op", ["add", "mul"])
def test_binary(shape, op):
    f = (lambda a, b: a + b) if op == "add" else (lambda a, b: a * b)
    check(f, R(*shape), R(*shape))


POINTWISE = {
    "sin": lambda x, y: torch.sin(x),
    "sin_plus": lambda x, y: x.sin() + y,
    "log_exp": lambda x, y: torch.log(torch.exp(x)),
    "sqrt_abs": lambda x, y: torch.sqrt(torch.abs(x)),
    "tanh": lambda x, y: torch.tanh(x),
    "abs_neg": lambda x, y: torch.abs(-x),
    "max_min": lambda x, y: torch.maximum(x, y) + torch.minimum(x, y),
    "where": lambda x, y: torch.where(x > 0, x, y),
    "clamp": lambda x, y: torch.clamp(x, -1, 1),
    "compare": lambda x, y: (x > y).float() + (x <= 0.5).float() + (x == x).float(),
    "logical_and": lambda x, y: torch.logical_and(x > 0, y > 0),
    "sign": lambda x, y: torch.sign(x),
    "reciprocal": lambda x, y: torch.reciprocal(x.abs() + 1),
    "square": lambda x, y: torch.square(x),
    "erf": lambda x, y: torch.erf(x),
    "atan2": lambda x, y: torch.atan2(x, y),
    "sigmoid_relu": lambda x, y: torch.sigmoid(x) * F.relu(y),
    "gelu": lambda x, y: F.gelu(x),
    "silu": lambda x, y: F.silu(x) * y,
    "pow_rsqrt": lambda x, y: torch.rsqrt(x * x + 1) + x.pow(3),
    "floor_ceil_round": lambda x, y: torch.floor(x * 3) + torch.ceil(y) + torch.round(x * 2.5),
    "remainder": lambda x, y: torch.remainder(x, 0.7) + torch.fmod(y, 0.3),
    "inf_nan": lambda x, y: torch.where(x > 0, torch.full_like(x, float("inf")), x.log()),
}


@pytest.mark.parametrize("name", sorted(POINTWISE))
def test_pointwise(name):
    check(POINTWISE[name], R(64, 33), R(64, 33), equal_nan=True)


SPECIAL = torch.cat([torch.randn(200), torch.tensor([0.0, -0.0, 1e-6, -1e-6, 1e-3, 0.999, -0.999, 1.0, -1.0, 30.0,
                                                     float("nan"), float("inf"), float("-inf")])])
COMPOSED = {  # functions athene's op table lacks, written with the ones it has
    "atan": (torch.atan, SPECIAL),
    "asin": (torch.asin, SPECIAL.clamp(-1, 1)),
    "acos": (torch.acos, SPECIAL.clamp(-1, 1)),
    "sinh": (torch.sinh, SPECIAL),
    "cosh": (torch.cosh, SPECIAL),
    "asinh": (torch.asinh, SPECIAL),
    "acosh": (torch.acosh, SPECIAL.abs() + 1),
    "atanh": (torch.atanh, SPECIAL.clamp(-1, 1) * 0.999),
    "copysign": (lambda a: torch.copysign(a * 0 + 2.5, a), SPECIAL),
}


@pytest.mark.parametrize("name", sorted(COMPOSED))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_composed_functions(name, dtype):
    fn, x = COMPOSED[name]
    check(fn, x.to(dtype), equal_nan=True)


def test_sign_of_nan():
    x = torch.tensor([1.5, -2.0, 0.0, float("nan"), -0.0])
    check(lambda a: torch.sign(a) * 2, x)


@pytest.mark.parametrize("shape", [(32, 32), (16, 2048), (10,), (17,), (100,), (200,), (10, 10), (15, 15),
                                   (5, 5, 5), (7, 19), (2, 3, 4, 5), (2, 2, 4, 16), (16, 8), (32, 8)])
def test_shapes(shape):
    check(lambda a, b: a * b + a.cos(), R(*shape), R(*shape))


def test_integer_ops():
    a = torch.randint(-50, 50, (64,))
    b = torch.randint(1, 9, (64,)) * torch.where(torch.rand(64) > 0.5, 1, -1)
    check(lambda x, y: (x // y, x % y, torch.div(x, y, rounding_mode="trunc"), torch.fmod(x, y)), a, b)


def test_bool_ops():
    a, b = torch.rand(40) > 0.5, torch.rand(40) > 0.3
    check(lambda x, y: (x & y, x | y, x ^ y, ~x, torch.logical_xor(x, y)), a, b)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_dtypes(dtype):
    """f16 and bf16 are computed in f32 and rounded once per store (as Inductor's C++ backend
    does), so fused chains are compared with the f32 computation rounded once; single ops match
    eager."""
    a, b = R(8, 16, dtype=dtype), R(8, 16, dtype=dtype)
    chain = lambda x, y: (x * y + 1).exp()  # noqa: E731
    check(chain, a, b, ref=chain(a.double(), b.double()).to(dtype))
    check(lambda x, y: torch.addcmul(x, x, y, value=0.5), R(64, dtype=dtype), R(64, dtype=dtype))
    check(lambda x: torch.softmax(x, -1), R(8, 100, dtype=dtype))


def test_half_computed_in_f32():
    """f16 values are computed in f32 and rounded once at the store, as Inductor does: the
    kernel reads f32(x) and writes f16."""
    x = R(16, dtype=torch.float16)
    text = at.explain(lambda a: a * 3 + 1, x)
    assert "f32(arg0_1.flat[" in text and "buf0: f16[16]" in text, text


def test_casts():
    check(lambda a: (a * 10).to(torch.int32) + (a > 0).to(torch.int64), R(50))


BITS = torch.tensor([0.0, -0.0, 1.0, -1.5, 3.25, 1e-3, 65504.0, 1e-7, float("inf"), float("-inf")] + list(range(22)))


@pytest.mark.parametrize("src,dst", [(torch.float32, torch.int32), (torch.float16, torch.int16),
                                     (torch.bfloat16, torch.int16), (torch.float64, torch.int64),
                                     (torch.int32, torch.float32), (torch.int16, torch.float16),
                                     (torch.int16, torch.bfloat16), (torch.int64, torch.float64)])
def test_bitcasts(src, dst):
    """x.view(dtype) of a computed value: Inductor's to_dtype_bitcast, athene's dst.bits(x), in
    the kernel with the arithmetic on both sides (f16 and bf16 are computed in f32, so the bits
    are those of the value rounded to its dtype)."""
    if src.is_floating_point:
        x = BITS.to(src)
        code = check(lambda a: (a * 2).view(dst) + 1, x)
    else:
        x = (BITS * 1000).to(src)  # bit patterns of small floats, subnormals and zeros
        code = check(lambda a: (a + 1).view(dst) * 2, x, equal_nan=True)
    assert ".bits(" in code


def test_bitcast_round_trip():
    """The seed's bitcasts f32 -> i32 and f16 -> i16, and back: the bits unchanged."""
    x, h = R(64), R(64, dtype=torch.float16)
    check(lambda a: ((a.view(torch.int32) ^ 1) + 0).view(torch.float32), x)
    check(lambda a, b: ((a * 2).view(torch.int32), (b + 1).view(torch.int16)), x, h)


INTS = {torch.int8: (-128, 127), torch.uint8: (0, 255), torch.int16: (-2**15, 2**15 - 1),
        torch.int32: (-2**31, 2**31 - 1), torch.int64: (-2**63, 2**63 - 1)}


@pytest.mark.parametrize("dtype", sorted(INTS, key=str))
def test_integer_bitwise_ops(dtype):
    """& | ^ ~ on integers, against eager, edge values included."""
    lo, hi = INTS[dtype]
    g = torch.Generator().manual_seed(5)
    a = torch.cat([torch.tensor([lo, hi, 0, 1, hi - 1, lo + 1 if lo else 2], dtype=dtype),
                   torch.randint(lo, hi, (58,), dtype=dtype, generator=g)])
    b = torch.randint(lo, hi, (64,), dtype=dtype, generator=g)
    check(lambda x, y: (x & y, x | y, x ^ y, ~x, (x & 7) | (y ^ 3)), a, b)


@pytest.mark.parametrize("dtype", sorted(INTS, key=str))
def test_shifts(dtype):
    """<< and >> against eager, counts inside and outside [0, bits): torch gives 0 (<<) and the
    sign (>>) outside, and athene's language defines the same."""
    lo, hi = INTS[dtype]
    bits = torch.iinfo(dtype).bits
    counts = [c for c in [0, 1, 3, bits - 1, bits, bits + 1, 100, -1, -bits] if lo <= c <= hi]
    vals = [v for v in [0, 1, -1, 5, -7, lo, hi, 100, -100] if lo <= v <= hi]
    a = torch.tensor([v for v in vals for _ in counts], dtype=dtype)
    c = torch.tensor([k for _ in vals for k in counts], dtype=dtype)
    check(lambda x, s: (x << s, x >> s, (x >> 1) << 2), a, c)


def test_shift_by_a_literal_and_bool_bitwise_mix():
    a = torch.randint(-1000, 1000, (64,), dtype=torch.int32)
    m = torch.rand(64) > 0.5
    check(lambda x, k: ((x << 2) + 1, (x >> 3) & 0xff, torch.where(k & (x > 0), x, -x)), a, m)


SPECIAL_FN = torch.cat([torch.randn(100) * 3, torch.tensor([0.0, -0.0, 1.0, 2.0, -1.0, -2.5, 0.5, 1e-4, 30.0,
                                                            1.4616321, float("nan"), float("inf")])])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", ["erfinv", "lgamma", "digamma", "hypot", "nextafter"])
def test_special_functions(name, dtype):
    x = SPECIAL_FN.to(dtype)
    y = torch.roll(x, 7)
    fn = {"erfinv": lambda a, b: torch.erfinv(torch.tanh(a)) + torch.erfinv(b.clamp(-1, 1)),
          "lgamma": lambda a, b: torch.lgamma(a),
          "digamma": lambda a, b: torch.digamma(a),
          "hypot": lambda a, b: torch.hypot(a, b),
          "nextafter": lambda a, b: torch.nextafter(a, b)}[name]
    tol = {} if name == "nextafter" else {"rtol": 1e-5 if dtype == torch.float32 else 1e-12,
                                          "atol": 1e-5 if dtype == torch.float32 else 1e-12}
    if name == "nextafter":
        tol = {"rtol": 0, "atol": 0}
    check(fn, x, y, equal_nan=True, **tol)


# base/gamma.c's functions. athene computes them in double, eager's float32 kernels in float
# (trigamma's sin(pi x), airy_ai's series): at float32 the reference is eager on the inputs in
# float64, rounded; at float64 eager itself (its trigamma's series is cut at 5e-9), except for
# airy_ai, whose rational approximation in [-3, -2.09] is off by up to 2e-5 (mpmath there)
# seeded: the values must not depend on what ran before (zeta(1 + |a|, b) of an unlucky |a| near 0
# is ill-conditioned: its f32 argument rounds where the f64 reference does not)
GAMMA_X = torch.cat([torch.randn(100, generator=torch.Generator().manual_seed(2)) * 4, torch.tensor([0.0, -0.0, 1.0, 2.0, -2.5, 0.5, 1e-4, 30.0, 1e-40, 7.0,
                                                         -0.75, float("nan"), float("inf"), float("-inf")])])
NDTRI_P = torch.cat([torch.rand(100, generator=torch.Generator().manual_seed(3)),
                     torch.tensor([0.0, 1.0, 0.5, 1e-30, 1 - 2**-24, 2**-24, 0.975, -0.5, 1.5, float("nan")])])
GAMMA_FN = {
    "frexp": lambda a, b: torch.frexp(a * 3),
    "igamma": lambda a, b: torch.igamma(a.abs(), b.abs()),
    "igammac": lambda a, b: torch.igammac(a.abs() * 2, b.abs()),
    "gammainc": lambda a, b: (torch.special.gammainc(a.abs(), b.abs() + 1), torch.special.gammaincc(a.abs(), b.abs())),
    **{f"polygamma{n}": (lambda a, b, n=n: torch.polygamma(n, a)) for n in range(5)},
    "zeta": lambda a, b: torch.special.zeta(1 + a.abs(), b),
    "erfcx": lambda a, b: torch.special.erfcx(a * 3),
    "log_ndtr": lambda a, b: torch.special.log_ndtr(a * 5),
    "ndtri": lambda a, b: torch.special.ndtri(a),  # on NDTRI_P
    "airy_ai": lambda a, b: torch.special.airy_ai(a * 2),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(GAMMA_FN))
def test_gamma_functions(name, dtype):
    x = (NDTRI_P if name == "ndtri" else GAMMA_X).to(dtype)
    y = torch.roll(x, 5)
    fn = GAMMA_FN[name]
    ref = fn(x.double(), y.double())
    if name == "airy_ai":
        import mpmath  # torch's sympy brings it
        ref = torch.tensor([float(mpmath.airyai(v)) if math.isfinite(v) else math.nan for v in (2 * x).tolist()],
                           dtype=torch.float64)
    ref = tuple(r.to(dtype) if r.is_floating_point() else r for r in ref) if isinstance(ref, tuple) else ref.to(dtype)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == torch.float32 else \
        {"rtol": 1e-8 if name == "polygamma1" else 1e-11, "atol": 1e-12}
    if name == "frexp":
        tol = {"rtol": 0, "atol": 0}
    code = check(fn, x, y, ref=ref, equal_nan=True, **tol)
    word = {"gammainc": "igamma", "log_ndtr": "erfcx"}.get(name, name.rstrip("01234"))
    assert f"{word}(" in code.replace("frexp_mantissa", "frexp")


def test_gamma_function_edges():
    """The edges where athene's value is not eager's: trigamma's poles at the negative integers
    (inf; eager's sin(pi x) leaves a large finite value there); and some where they agree."""
    x = torch.tensor([-1.0, -2.0, -3.0, 0.0, 2.5], dtype=torch.float64)
    want = torch.tensor([math.inf] * 4 + [torch.polygamma(1, x[4:]).item()], dtype=torch.float64)
    code = check(lambda a: torch.polygamma(1, a), x, ref=want)
    assert "polygamma(" in code
    assert torch.isfinite(torch.polygamma(1, x[:3])).all()  # eager's, for the record
    q = torch.tensor([math.inf, 1.0, 2.0, 0.5, -2.5, -3.0, 2.0], dtype=torch.float64)
    s = torch.tensor([2.0, math.inf, math.inf, math.inf, 3.0, 2.0, 0.5], dtype=torch.float64)
    check(torch.special.zeta, s, q, equal_nan=True, rtol=1e-13, atol=0)
    a = torch.tensor([0.0, 0.0, 1.0, math.inf, math.nan, 1.0, -1.0], dtype=torch.float64)
    b = torch.tensor([0.0, 1.0, 0.0, 1.0, 0.0, math.inf, 1.0], dtype=torch.float64)
    check(lambda u, v: (torch.igamma(u, v), torch.igammac(u, v)), a, b, equal_nan=True, rtol=0, atol=0)


INF, NAN = float("inf"), float("nan")
BESSEL_X = torch.cat([torch.randn(100, generator=torch.Generator().manual_seed(6)) * 4,
                      torch.tensor([0.0, -0.0, 1e-6, 0.5, 2.0, 4.99, 5.0, 5.01, 8.0, 8.5, 30.0, -3.0, 1e-30, INF, -INF,
                                    NAN])])
BESSEL = {"i0": torch.i0, "i0e": torch.special.i0e, "i1": torch.special.i1, "i1e": torch.special.i1e,
          **{n: getattr(torch.special, n) for n in [
              "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
              "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "bessel_j0", "bessel_j1", "bessel_y0",
              "bessel_y1", "spherical_bessel_j0"]}}


def mp_bessel(name, x):
    """bessel_j0, j1, y0, y1 of a float64 tensor by mpmath (torch's own dependency, through sympy),
    with the edges athene and torch give: NaN at +-inf, y0 and y1 -inf at 0 and NaN below."""
    import mpmath
    kind, order = name[-2], int(name[-1])

    def f(v):
        if math.isnan(v) or math.isinf(v) or (kind == "y" and v < 0):
            return NAN
        if kind == "y" and v == 0:
            return -INF
        with mpmath.workdps(30):
            return float((mpmath.besselj if kind == "j" else mpmath.bessely)(order, v))
    return torch.tensor([f(v) for v in x.tolist()], dtype=torch.float64)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_functions(name, dtype):
    """i0, i0e, i1, i1e and torch.special's Bessel functions through athene's functions of those
    names (k0, k0e, ...), against eager, poles, zeros and infinities included. In f64, bessel_j0,
    j1, y0 and y1 against mpmath: torch's CPU kernels leave the leading 1 out of Cephes'
    denominators there (an error up to 1e-6 around x = 5), athene does not."""
    x = BESSEL_X.to(dtype)
    fn = BESSEL[name]
    if dtype == torch.float64 and name.startswith("bessel_"):
        check(lambda a: fn(a) * 1, x, ref=mp_bessel(name, x), rtol=1e-13, atol=1e-15, equal_nan=True)
    else:
        tol = 1e-5 if dtype == torch.float32 else 1e-13
        check(lambda a: fn(a) * 1, x, rtol=tol, atol=tol, equal_nan=True)


POLY_X = torch.cat([torch.rand(50, generator=torch.Generator().manual_seed(7)) * 2.4 - 1.2,
                    torch.tensor([0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.0, 3.0, NAN, INF, -INF, 1e-3, 0.25, 0.75])])
# degrees 0 to 20 (past the trigonometric forms' 6 and 8), below 0, non-integer (truncated:
# -0.5 is 0), NaN, infinite and beyond int64 (0, as torch's cast gives), and 130 (past f32's
# Hermite limit of 128)
POLY_N = torch.tensor([float(v) for v in range(21)] * 2 + [-1.0, -3.0, 2.7, -0.5, NAN, INF, -INF, 1e20, 130.0, 9.9,
                                                           7.0, 12.0, 15.0, 4.0, 5.0, 6.0, 8.0, 3.0, 2.0, 1.0, 0.0, 19.0])
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
               "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials(name, dtype):
    """torch.special's polynomials of x and a tensor of degrees, against eager: torch's degree
    semantics, its values at +-1 and 0, its trigonometric forms and limits. In f32 torch steps its
    recurrences and takes its angles in float, athene in double (rounded once), hence the
    tolerance."""
    fn = getattr(torch.special, name)
    assert len(POLY_X) == len(POLY_N)
    x, n = POLY_X.to(dtype), POLY_N.to(dtype)
    tol = 1e-4 if dtype == torch.float32 else 1e-11
    check(lambda a, b: fn(a * 1, b), x, n, rtol=tol, atol=tol, equal_nan=True)


def test_polynomial_degrees_of_other_dtypes():
    """A degree as an int64 tensor, a Python int and a float64 tensor with f32 x (promoted as
    torch promotes); x of an integer dtype (f32)."""
    x = POLY_X[:40]
    k = torch.arange(40) % 12 - 1
    check(lambda a, m: (torch.special.chebyshev_polynomial_t(a, m), torch.special.legendre_polynomial_p(a, 7),
                        torch.special.hermite_polynomial_he(a * 2, m.to(torch.float64))), x, k, rtol=1e-4, atol=1e-4)
    check(lambda m: torch.special.laguerre_polynomial_l(m, 3), k, rtol=1e-5, atol=1e-5)


# ---- 0-d tensors

@pytest.mark.parametrize("shape", [(), (16,), (8, 8), (4, 4, 4)])
def test_zero_d(shape):
    check(lambda s, x: s * x + s, R(), R(*shape))


def test_zero_d_only():
    check(lambda s, t: s.sin() + t, R(), R())


# ---- strided and view inputs

STRIDED = {
    "step2": (lambda x: x[::2] * 2, lambda: R(64)),
    "step2_from1": (lambda x: x[1::2] + 1, lambda: R(64)),
    "step3": (lambda x: x[::3] * 1.5, lambda: R(64)),
    "step2_from5": (lambda x: x[5::2] - 1, lambda: R(64)),
    "cols": (lambda x: x[:, 5::2] * 2, lambda: R(4, 480)),
    "rows_cols": (lambda x: x[::2, ::3] * 2, lambda: R(4, 480)),
    "nested": (lambda x: x[:, 1::2][:, 2::3][:, 3::4] * 2, lambda: R(4, 480)),
}


@pytest.mark.parametrize("name", sorted(STRIDED))
def test_strided(name):
    fn, make = STRIDED[name]
    check(fn, make())


VIEWS = {
    "arange_2": lambda: torch.arange(256, dtype=torch.float32)[::2],
    "arange_4": lambda: torch.arange(256, dtype=torch.float32)[::4],
    "arange_2_2": lambda: torch.arange(256, dtype=torch.float32)[::2][::2],
    "rows": lambda: R(32, 32)[::2, :],
    "cols": lambda: R(32, 32)[:, ::2],
    "both": lambda: R(32, 32)[::2, ::2],
    "t_32": lambda: R(32, 32).t(),
    "t_2048": lambda: R(2048, 2048).t(),
    "t_64_32": lambda: R(64, 32).t(),
    "t_5_8": lambda: R(5, 8).t(),
    "t_3215_23": lambda: R(3215, 23).t(),
    "t_8_128": lambda: R(8, 128).t(),
    "t_128_8": lambda: R(128, 8).t(),
    "cube": lambda: R(8, 8, 8)[::2, ::2, ::2],
    "permute": lambda: R(8, 8, 8).permute(2, 0, 1),
    "channels_last": lambda: R(2, 3, 4, 5).to(memory_format=torch.channels_last),
    "diagonal": lambda: R(16, 16).diagonal(),
    "as_strided": lambda: torch.as_strided(R(256), (4, 8), (16, 2)),
    "row3": lambda: R(8, 16)[3, ::2],
    "unsqueeze": lambda: R(8, 16)[:, ::2].unsqueeze(0),
    "f64": lambda: R(16, 16, dtype=torch.float64)[::2, 1::3],
    "i32": lambda: torch.randint(-9, 9, (16, 16), dtype=torch.int32).t(),
    "expand_rows": lambda: R(1, 16).expand(8, 16),
    "expand_3d": lambda: R(1, 1, 16).expand(4, 8, 16),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_inputs(name):
    x = VIEWS[name]()
    check(lambda a: a * 2 + 1, x)


def test_expanded_plus():
    check(lambda a, b: a + b, R(1, 16).expand(8, 16), R(8, 16))


def test_broadcasting_strided_inputs_and_scalar():
    a, b, s = R(8, 32)[:, ::2], R(16, 8).t()[:, :1], R()
    check(lambda x, y, z: x * y + z, a, b, s)


def test_arange_two_outputs():
    def f(x):
        y = x * torch.arange(64, dtype=torch.float32).view(8, 8)
        return y, y + 1
    check(f, R(8, 8))


def test_outputs_are_views():
    check(lambda x: (x * 2).t(), R(6, 10))


def test_in_place():
    def f(x, y):
        x.mul_(2)
        return x + y
    x, y = R(16), R(16)
    x2 = x.clone()
    n = at.fallbacks()
    out, code = compiled_code(f, x, y)
    ref = f(x2, y)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(x, x2)  # the input was written in place
    assert at.fallbacks() == n and "athene_runtime.load(" in code and "cpp_fused" not in code


# ---- permutations and transposes

PERMS3 = [(0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]


@pytest.mark.parametrize("shape", [(2, 8, 16), (2, 32, 32), (2, 8, 2048), (2, 1152, 1024), (2, 1152, 2048)])
@pytest.mark.parametrize("perm", PERMS3)
def test_permute_contiguous(shape, perm):
    code = check(lambda x: x.permute(*perm).contiguous(), R(*shape))
    assert code.count("athene_runtime.load(") == 1


@pytest.mark.parametrize("shape", [(10000, 2), (2, 10000), (8, 128), (128, 8), (3, 256), (2, 32)])
def test_transpose(shape):
    check(lambda x: x.t().contiguous(), R(*shape))


def test_4d_perms():
    import itertools
    x = R(2, 4, 128, 2048)
    for perm in list(itertools.permutations(range(4)))[1:]:
        check(lambda a: a.permute(*perm).contiguous(), x)


# ---- gathers, pad, cat

def test_gather_negative_indices():
    x, idx = R(16), torch.tensor([0, 3, -1, -16, 15, 7])
    check(lambda a, i: a[i] * 2, x, idx)


def test_gather_rows():
    x, idx = R(16, 8), torch.tensor([1, -2, 5, 5, 0])
    check(lambda a, i: a[i, :] + 1, x, idx)


@pytest.mark.parametrize("shape,n", [((256, 64), 32), ((256, 100), 32), ((2048, 128), 64), ((256, 64), 1)])
def test_embedding(shape, n):
    table, idx = R(*shape), torch.randint(0, shape[0], (n,))
    check(lambda t, i: F.embedding(i, t), table, idx)


def test_embedding_duplicates_bias_scale():
    table, idx = R(256, 64), torch.tensor([3, 3, 7, 3] * 8)
    bias, scale = R(32, 64), R(64)
    check(lambda t, i, b, s: (F.embedding(i, t) + b) * s, table, idx, bias, scale)


def test_two_gathers():
    a, b = R(64, 32), R(20, 32)
    ia, ib = torch.randint(-64, 64, (10,)), torch.randint(0, 20, (10,), dtype=torch.int32)
    check(lambda x, y, i, j: x[i] + y[j], a, b, ia, ib)


def test_index_select_dim1():
    x, idx = R(16, 64), torch.tensor([0, 63, 5, 5, 30])
    check(lambda a, i: torch.index_select(a, 1, i) * 2, x, idx)


def test_torch_gather_last_dim():
    x, idx = R(4, 16), torch.randint(0, 16, (4, 5))
    check(lambda a, i: torch.gather(a, -1, i) + 1, x, idx)
    f = torch.compile(lambda a, i: torch.gather(a, -1, i) + 1, backend="athene")
    with pytest.raises(athene.RunError, match=r"index 16 out of range for dim 1"):
        f(x, torch.full((4, 5), 16))


def test_zero_size():
    x, y = R(0, 4), R(3, 4)
    n = at.fallbacks()
    out, code = compiled_code(lambda a, b: (a * 2, b + 1), x, y)
    torch.testing.assert_close(out, (x * 2, y + 1))
    assert at.fallbacks() == n and "athene_runtime.load(" in code and "cpp_fused" not in code


def test_complex_real_view():
    check(lambda a: a.real * 2 + a.imag, torch.randn(8, dtype=torch.complex64))


C64 = lambda *s: torch.randn(s, dtype=torch.complex64)  # noqa: E731
COMPLEX = {
    "mul": (lambda a, b: a * b, (C64(16), C64(16))),
    "conj": (lambda a: torch.conj(a).resolve_conj(), (C64(16),)),
    "real": (lambda a: a.real * 2, (C64(16),)),
    "imag": (lambda a: a.imag * 2, (C64(16),)),
    "abs": (lambda a: a.abs(), (C64(16),)),
    "conj_mul": (lambda a, b: torch.conj(a) * b, (C64(16), C64(16))),
    "scale": (lambda a: a * 2.5, (C64(16),)),
    "conj_c128": (lambda a: torch.conj(a).resolve_conj(), (torch.randn(16, dtype=torch.complex128),)),
    "mul_then_real": (lambda a, b: (a * b).real + 1, (C64(8, 8), C64(8, 8))),
}


@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex(name):
    """Inductor runs complex arithmetic in aten on every CPU backend (its C++ one too) and hands
    the backend the kernels on real views; those run through athene, nothing through C++."""
    fn, args = COMPLEX[name]
    n = at.fallbacks()
    out, code = compiled_code(fn, *args)
    torch.testing.assert_close(out, fn(*args))
    assert at.fallbacks() == n and "cpp_fused" not in code and "async_compile.cpp" not in code
    if name in ("real", "imag", "mul_then_real"):
        assert "athene_runtime.load(" in code


def test_gather_out_of_range_raises():
    x = R(16, 8)
    f = torch.compile(lambda a, i: a[i] * 2, backend="athene")
    f(x, torch.tensor([1, 2]))
    with pytest.raises(athene.RunError, match=r"index 16 out of range for dim 0 of 'arg\d+_1' \(size 16"):
        f(x, torch.tensor([1, 16]))
    with pytest.raises(athene.RunError, match=r"out of range for dim 0"):
        f(x, torch.tensor([-17, 0]))


def test_take_flat_index():
    x = R(3, 3)
    check(lambda a, i: torch.take(a, i), x, torch.tensor([6, 3, 3, -9]))
    f = torch.compile(lambda a, i: torch.take(a, i), backend="athene")
    with pytest.raises(athene.RunError, match=r"flat offset 9 .* out of range for the storage of 'arg\d+_1' \(9 elements\)"):
        f(x, torch.tensor([6, 9]))


def test_index_select_out_of_range_raises():
    x = R(4, 64)
    f = torch.compile(lambda a, i: torch.index_select(a, 1, i) + 1, backend="athene")
    with pytest.raises(athene.RunError, match=r"index 64 out of range for dim 1"):
        f(x, torch.tensor([0, 64]))


def test_pad_cat_flip_roll():
    x, y = R(3, 4), R(3, 5)
    check(lambda a: F.pad(a, (1, 2)), x)
    check(lambda a, b: torch.cat([a, b], 1) * 2, x, y)
    check(lambda a: torch.flip(a, [1]) + 1, x)
    check(lambda a: torch.roll(a, 3, 1) * 2, R(4, 16))


def test_reflect_pad_take_and_max_pool_with_indices():
    check(lambda a: F.pad(a, (3, 2), mode="reflect"), R(2, 3, 20))
    check(lambda a: torch.take(a, torch.tensor([0, 5, -1, 11])), R(3, 4))
    check(lambda a: F.max_pool2d(a, 3, 2, ceil_mode=True, return_indices=True), R(1, 2, 7, 9))


def test_rope_halves_and_interleaved():
    x, cos, sin = R(8, 64), R(8, 32), R(8, 32)

    def halves(x, c, s):
        x1, x2 = x[..., :32], x[..., 32:]
        return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)

    def interleaved(x, c, s):
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x1 * c - x2 * s, x1 * s + x2 * c], -1).flatten(-2)

    check(halves, x, cos, sin)
    check(interleaved, x, cos, sin)


# ---- reductions and norms

@pytest.mark.parametrize("n", [16, 1024, 2048])
def test_full_reductions(n):
    x = R(n)
    check(lambda a: (a.sum(), a.max(), a.min()), x)
    check(lambda a: (a * 0.1 + 1).prod(), x, rtol=1e-4, atol=1e-5)


def test_axis_sums():
    check(lambda a: (a.sum(0), a.sum(1)), R(8, 8))
    check(lambda a: a.sum((0, 2)), R(4, 5, 6))


def test_arg_and_bool_reductions():
    x = R(12, 40)
    check(lambda a: (a.argmax(-1), a.argmin(0), (a > 1).any(-1), (a > -3).all(1)), x)


def test_reductions_over_one_and_no_elements():
    check(lambda a: (a.argmax(1), (a > 0).any(1), a.sum(1) + a.amax(1)), R(4, 1))
    check(lambda a: a.argmin(), R(1))
    check(lambda a: a.sum(0), R(0, 3))
    check(lambda a: a.prod(1), R(3, 0))


@pytest.mark.parametrize("shape", [(32, 64), (2048, 64)])
def test_softmax(shape):
    check(lambda a: torch.softmax(a, -1), R(*shape))


@pytest.mark.parametrize("shape", [(32, 64), (2048, 64)])
def test_norms(shape):
    w, b = R(shape[-1]), R(shape[-1])

    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    check(rms, R(*shape), w)
    check(lambda x, w, b: F.layer_norm(x, (shape[-1],), w, b), R(*shape), w, b, rtol=1e-4, atol=1e-4)


def test_row_values_computed_once_per_row():
    """rsqrt of a row's mean is a let over the rows, which athene materialises (read broadcast
    along the row) instead of recomputing it at each element."""
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    text = at.explain(rms, R(64, 128), R(128))
    let = [line for line in text.splitlines() if line.lstrip().startswith("let ") and "rsqrt(" in line]
    assert let and "# materialised" in let[-1], text
    assert re.search(r"let tmp\d+\[x_0 < 64\] = rsqrt", text), text


@pytest.mark.parametrize("n", [64, 2048])
def test_var_mean(n):
    check(lambda a: torch.var_mean(a, -1, keepdim=True), R(4, n), rtol=1e-4, atol=1e-5)


def test_masked_softmax():
    x, m = R(8, 16), torch.rand(8, 16) > 0.3
    check(lambda a, mask: torch.softmax(a.masked_fill(~mask, float("-inf")), -1), x, m)


def test_mlp_and_training_step():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.GELU(),
                                torch.nn.Linear(32, 32), torch.nn.LayerNorm(32))
    x = R(16, 32)
    check(model, x, rtol=1e-4, atol=1e-4)
    before = at.stats()
    torch._dynamo.reset()
    xg = x.clone().requires_grad_(True)
    loss = torch.compile(lambda a: (torch.tanh(a) * a.sigmoid()).sum(), backend="athene")(xg)
    loss.backward()
    ref = torch.func.grad(lambda a: (torch.tanh(a) * a.sigmoid()).sum())(x)
    torch.testing.assert_close(xg.grad, ref)
    assert at.stats()["fallbacks"] == before["fallbacks"]
    assert at.stats()["kernels_written"] >= before["kernels_written"] + 2  # forward and backward


# ---- models

class GPTBlock(nn.Module):
    """nanoGPT's transformer block: pre-norm causal self-attention and a GELU MLP."""

    def __init__(self, d=64, heads=4, seq=32):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads = heads
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.attn(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.w, self.eps = nn.Parameter(torch.randn(d)), eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.w


def rope(x, cos, sin):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return x * cos + torch.cat([-x2, x1], -1) * sin


class LlamaLayer(nn.Module):
    """A Llama decoder layer: RMSNorm, attention with RoPE and a causal mask, SwiGLU FFN."""

    def __init__(self, d=64, heads=2, ffn=256, seq=32):
        super().__init__()
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.gate, self.up = nn.Linear(d, ffn, bias=False), nn.Linear(d, ffn, bias=False)
        self.down = nn.Linear(ffn, d, bias=False)
        self.heads, hd = heads, d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        f = torch.outer(torch.arange(seq).float(), inv)
        emb = torch.cat([f, f], -1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())

    def forward(self, x):
        B, T, C = x.shape
        h = self.n1(x)
        q, k, v = (p(h).view(B, T, self.heads, -1).transpose(1, 2) for p in (self.q, self.k, self.v))
        q, k = rope(q, self.cos[:T], self.sin[:T]), rope(k, self.cos[:T], self.sin[:T])
        att = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(B, T, C))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Llama(nn.Module):
    def __init__(self, layers=4, vocab=128, d=64, embed=False):
        super().__init__()
        self.emb = nn.Embedding(vocab, d) if embed else None
        self.layers = nn.ModuleList(LlamaLayer(d) for _ in range(layers))
        self.norm, self.head = RMSNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, x):
        if self.emb is not None:
            x = self.emb(x)
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


@pytest.mark.parametrize("name", ["gpt_block", "llama_layer", "llama_4_layers", "llama_embedding"])
def test_models(name):
    torch.manual_seed(0)
    model, x = {
        "gpt_block": lambda: (GPTBlock(), R(2, 32, 64)),
        "llama_layer": lambda: (LlamaLayer(), R(2, 32, 64)),
        "llama_4_layers": lambda: (Llama(), R(2, 32, 64)),
        "llama_embedding": lambda: (Llama(embed=True), torch.randint(0, 128, (2, 32))),
    }[name]()
    with torch.no_grad():
        check(model.eval(), x, rtol=1e-4, atol=1e-4)


class ConvBlock(nn.Module):
    """A residual block of two 3x3 convolutions with batch norm (convolutions run in aten; the
    layout copies around them, batch norm, the residual add and the pooling in athene)."""

    def __init__(self, c=8):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(x + self.b2(self.c2(y))).mean((2, 3))


@pytest.mark.parametrize("channels_last", [False, True])
def test_conv_block(channels_last):
    torch.manual_seed(0)
    model, x = ConvBlock().eval(), R(2, 8, 10, 10)
    if channels_last:
        x = x.to(memory_format=torch.channels_last)
    with torch.no_grad():
        check(model, x, rtol=1e-4, atol=1e-4)


def test_conv_block_training_step():
    """Batch norm in training mode: batch statistics, and the running statistics updated in
    place, forward and backward through athene."""
    torch.manual_seed(0)
    model, x = ConvBlock(), R(2, 8, 10, 10)
    ref = ConvBlock()
    ref.load_state_dict(model.state_dict())
    before = at.stats()
    torch._dynamo.reset()
    xa, xr = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    torch.compile(model, backend="athene")(xa).sum().backward()
    ref(xr).sum().backward()
    torch.testing.assert_close(xa.grad, xr.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(model.b1.running_mean, ref.b1.running_mean)
    torch.testing.assert_close(model.b2.running_var, ref.b2.running_var)
    assert at.fallbacks() == before["fallbacks"] and at.stats()["calls"] > before["calls"]


def test_gpt_block_training_step():
    torch.manual_seed(0)
    model, x = GPTBlock(), R(2, 32, 64)
    ref = GPTBlock()
    ref.load_state_dict(model.state_dict())
    before = at.stats()
    torch._dynamo.reset()
    with inductor_config.patch(fx_graph_cache=False):
        out, codes = run_and_get_code(lambda: torch.compile(model, backend="athene")(x).square().mean().backward())
    ref(x).square().mean().backward()
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5, msg=name)
    code = "\n".join(codes)
    assert at.fallbacks() == before["fallbacks"] and "cpp_fused" not in code
    assert code.count("athene_runtime.load(") >= 10  # forward and backward kernels


# ---- dynamic shapes

DYNAMIC = {
    "transpose": (lambda a: (a.t() * 2).contiguous() + 1, [(6, 10), (7, 3), (12, 5)]),
    "softmax": (lambda a: torch.softmax(a, -1), [(4, 10), (6, 7), (3, 33)]),
    "slice": (lambda a: a[:, 1:-1] * 2, [(4, 10), (6, 7), (3, 33)]),  # Max(1, ps0) in the store
    "sum0": (lambda a: a.sum(0) + 1, [(4, 10), (6, 7), (3, 33)]),
    "permute": (lambda a: a.permute(2, 0, 1).contiguous(), [(2, 3, 4), (3, 5, 2), (4, 4, 4)]),
    "pad": (lambda a: F.pad(a, (1, 2)), [(4, 10), (6, 7), (5, 5)]),
    "layer_norm": (lambda a: F.layer_norm(a, a.shape[-1:]), [(4, 10), (6, 7), (3, 33)]),
}


@pytest.mark.parametrize("name", sorted(DYNAMIC))
def test_dynamic_shapes(name):
    """dynamic=True: size symbols become athene size symbols; one kernel serves every size."""
    fn, shapes = DYNAMIC[name]
    before = at.stats()
    torch._dynamo.reset()
    with inductor_config.patch(fx_graph_cache=False):
        f = torch.compile(fn, backend="athene", dynamic=True)
        for shape in shapes:
            x = R(*shape)
            torch.testing.assert_close(f(x), fn(x))
    after = at.stats()
    assert after["fallbacks"] == before["fallbacks"]
    assert after["kernels_written"] == before["kernels_written"] + 1
    assert after["calls"] == before["calls"] + len(shapes)


def test_dynamic_gather():
    fn = lambda a, i: a[i] * 2  # noqa: E731
    before = at.stats()
    torch._dynamo.reset()
    with inductor_config.patch(fx_graph_cache=False):
        f = torch.compile(fn, backend="athene", dynamic=True)
        for n in (10, 20, 7):
            a, i = R(n, 8), torch.randint(-n, n, (5,))
            torch.testing.assert_close(f(a, i), fn(a, i))
        with pytest.raises(athene.RunError, match=r"index 7 out of range for dim 0"):
            f(R(7, 8), torch.tensor([0, 7]))
    assert at.stats()["fallbacks"] == before["fallbacks"]
    assert at.stats()["kernels_written"] == before["kernels_written"] + 1


def test_one_function_many_sizes():
    """One compiled function called on (64,) ... (1024,): Dynamo recompiles (the second size
    with dynamic shapes), every kernel through athene."""
    fn = lambda a: a * 2 + 1  # noqa: E731
    before = at.stats()
    torch._dynamo.reset()
    f = torch.compile(fn, backend="athene")
    sizes = (64, 128, 256, 512, 1024)
    for n in sizes:
        x = R(n)
        torch.testing.assert_close(f(x), fn(x))
    after = at.stats()
    assert after["fallbacks"] == before["fallbacks"]
    assert after["calls"] == before["calls"] + len(sizes)


# ---- the backend next to the default one, fallbacks, options

def test_default_backend_still_uses_cpp():
    _, code = compiled_code(lambda a: a.sin() * 2, R(64), backend="inductor")
    assert "cpp_fused" in code and "athene_runtime" not in code
    code = check(lambda a: a.sin() * 2, R(64))
    _, code = compiled_code(lambda a: a.sin() * 2, R(64), backend="inductor")
    assert "cpp_fused" in code and "athene_runtime" not in code


def test_cpu_backend_option_after_import():
    _, code = compiled_code(lambda a: a.cos() + 1, R(32), backend="inductor", options={"cpu_backend": "athene"})
    assert "athene_runtime.load(" in code and "cpp_fused" not in code


def test_inexpressible_kernel_falls_back(caplog):
    x = R(32)
    n = at.fallbacks()

    def f(a):  # (a value in uint32, a dtype athene does not have)
        return (a.abs() * 100).to(torch.uint32).to(torch.float32) * 2

    with caplog.at_level(logging.WARNING, logger="athene.torch"):
        out, code = compiled_code(f, x)
    torch.testing.assert_close(out, f(x))
    assert at.fallbacks() == n + 1
    assert "cpp_fused" in code and "athene_runtime" not in code
    lines = [r.getMessage() for r in caplog.records if r.name == "athene.torch"]
    assert len(lines) == 1 and "uint32" in lines[0], lines


class _U32Grad(torch.autograd.Function):
    """x * 2, whose backward computes in uint32, a dtype athene does not have."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() * 100).to(torch.uint32).to(torch.float32)


def test_backward_graph_falls_back_alone(caplog):
    """A backward graph athene cannot express goes to C++ alone when it is compiled, at the first
    backward; the forward stays with athene."""
    x = R(16).requires_grad_(True)
    torch._dynamo.reset()
    before = at.stats()
    with caplog.at_level(logging.WARNING, logger="athene.torch"), inductor_config.patch(fx_graph_cache=False):
        out = torch.compile(lambda t: _U32Grad.apply(t).sum(), backend="athene")(x)
        assert at.stats()["fallbacks"] == before["fallbacks"] and at.stats()["calls"] == before["calls"] + 1
        out.backward()
    assert at.fallbacks() == before["fallbacks"] + 1
    lines = [r.getMessage() for r in caplog.records if r.name == "athene.torch"]
    assert len(lines) == 1 and "uint32" in lines[0], lines
    torch.testing.assert_close(x.grad, (x.detach().abs() * 100).to(torch.uint32).to(torch.float32))


# ---- scatter stores: athene scatters that update their output in place

def test_index_put_and_accumulate_with_duplicates_and_negative_indices():
    x, v = R(8, 4), R(5, 4)
    i = torch.tensor([1, -1, 4, -6, 0])  # distinct elements: = has one value each
    check(lambda a, j, b: torch.index_put(a, (j,), b), x, i, v)
    d = torch.tensor([1, 3, 3, -5, 3])  # duplicates: += sums them
    check(lambda a, j, b: torch.index_put(a, (j,), b, accumulate=True), x, d, v)
    check(lambda a, j, b: a.index_put((j,), b, accumulate=True) * 2, x, d, v)
    assert "+=" in at.explain(lambda a, j, b: torch.index_put(a, (j,), b, accumulate=True), x, d, v)


def test_index_put_duplicates_keep_one_written_value():
    x = torch.zeros(6)
    out, code = compiled_code(lambda a, j, b: torch.index_put(a, (j,), b), x, torch.tensor([2, 2, 2]),
                              torch.tensor([1.0, 2.0, 3.0]))
    assert "athene_runtime.load(" in code and "cpp_fused" not in code
    assert out[2].item() in (1.0, 2.0, 3.0) and out[[0, 1, 3, 4, 5]].eq(0).all()


def test_index_put_two_index_tensors():
    x, v = R(5, 6), R(4)
    check(lambda a, i, j, b: torch.index_put(a, (i, j), b, accumulate=True), x, torch.tensor([0, 4, 4, -1]),
          torch.tensor([5, 0, 0, 2]), v)


def test_scatter_index_add_put_index_copy():
    x, src = R(6, 5), R(4, 5)
    idx = torch.tensor([[0, 1, 2, 3, 4], [5, 4, 3, 2, 1], [1, 1, 1, 1, 1], [3, 0, 5, 2, 4]])
    check(lambda a, i, s: torch.scatter(a, 0, i[:1], s), x, idx, src)
    check(lambda a, i, s: torch.scatter(a, 1, i[:, :2] % 5, s[:, :2]), x, idx, src)
    check(lambda a, i, s: torch.index_add(a, 0, i, s, alpha=2.0), x, torch.tensor([1, 5, 1, 0]), src)
    check(lambda a, i, s: torch.put(a, i, s, accumulate=True), x, torch.tensor([0, 29, -1, 7, 7]), R(5))
    check(lambda a, i, s: torch.index_copy(a, 0, i, s), x, torch.tensor([5, 0, 2, 3]), src)


def test_max_unpool2d_forward_and_backward():
    x = R(2, 3, 8, 8).requires_grad_(True)
    y, ind = F.max_pool2d(x.detach(), 2, return_indices=True)
    check(lambda a, i: F.max_unpool2d(a, i, 2), y, ind)
    yy = y.clone().requires_grad_(True)
    f = lambda a, i: (F.max_unpool2d(a, i, 2) * torch.arange(64.0).reshape(8, 8)).sum()  # noqa: E731
    torch._dynamo.reset()
    before = at.stats()
    with inductor_config.patch(fx_graph_cache=False):
        torch.compile(f, backend="athene")(yy, ind).backward()
    ref = y.clone().requires_grad_(True)
    f(ref, ind).backward()
    torch.testing.assert_close(yy.grad, ref.grad)
    assert at.stats()["fallbacks"] == before["fallbacks"]


def test_embedding_training_step_scatters_its_gradient():
    """The backward of an embedding is a scatter-add (an atomic_add store): through athene too."""
    w, idx = R(16, 8).requires_grad_(True), torch.tensor([[1, 3, 3, 5], [15, 0, 3, 1]])
    f = lambda t, i: (F.embedding(i, t) * 2).sum()  # noqa: E731
    torch._dynamo.reset()
    before = at.stats()
    with inductor_config.patch(fx_graph_cache=False):
        out, codes = run_and_get_code(lambda: torch.compile(f, backend="athene")(w, idx).backward())
    assert at.stats()["fallbacks"] == before["fallbacks"]
    code = "\n".join(codes)
    assert "+=" in code and "cpp_fused" not in code  # the backward's kernel: an athene += scatter
    ref = torch.zeros(16, 8)
    ref.index_add_(0, idx.reshape(-1), torch.full((8, 8), 2.0))
    torch.testing.assert_close(w.grad, ref)


def test_scatter_out_of_range_raises_and_leaves_the_input_untouched():
    x, v = R(8, 4), R(3, 4)
    f = torch.compile(lambda a, j, b: a.index_put_((j,), b, accumulate=True), backend="athene")
    a = x.clone()
    f(a, torch.tensor([0, 7, -8]), v)
    torch.testing.assert_close(a, x.index_put((torch.tensor([0, 7, -8]),), v, accumulate=True))
    a = x.clone()
    with pytest.raises(athene.RunError, match=r"index 8 out of range for dim 0 of '\w+' \(size 8\)"):
        f(a, torch.tensor([0, 8, 1]), v)
    torch.testing.assert_close(a, x, rtol=0, atol=0)
    with pytest.raises(athene.RunError, match=r"out of range for dim 0"):
        f(a, torch.tensor([-9, 0, 1]), v)
    torch.testing.assert_close(a, x, rtol=0, atol=0)


def test_options_threads_and_explain(caplog):
    t = athene.threads()
    try:
        with caplog.at_level(logging.WARNING, logger="athene.torch"):
            out, code = compiled_code(lambda a: a.t().contiguous(), R(8, 16), options={"threads": 1,
                                                                                       "explain": True})
        assert athene.threads() == 1
    finally:
        athene.set_threads(t)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "athene explain" in text and "plan" in text


def test_kernels_run_on_torchs_openmp_team():
    """athene's kernels run on torch's OpenMP team (athene_set_team), not on a second pool:
    torch's runtime is found among the mapped libraries, and a kernel on two threads runs there
    and gives eager's values. A torch whose parallel backend is not OpenMP has no team to find."""
    from athene import _lib

    if "parallel backend: OpenMP" not in torch.__config__.parallel_info():
        assert at._torch_team() is None  # no team to join: athene keeps its own pool
        return
    assert at._torch_team()
    t = athene.threads()
    try:
        x = R(64, 48, 96)
        f = torch.compile(lambda a: a.permute(2, 0, 1).contiguous() * 2, backend="athene",
                          options={"threads": 2})
        f(x)
        before = _lib.lib.athene_team_runs()
        torch.testing.assert_close(f(x), x.permute(2, 0, 1).contiguous() * 2, rtol=0, atol=0)
        assert _lib.lib.athene_team_runs() > before
    finally:
        athene.set_threads(t)


FORKED_CHILD = """
import os, sys, time
import torch, athene.torch
x = torch.randn(64, 48, 96)
want = (x.permute(2, 0, 1).contiguous() * 2).numpy()
f = torch.compile(lambda a: a.permute(2, 0, 1).contiguous() * 2, backend="athene", options={"threads": 2})
f(x)
pid = os.fork()
if pid == 0:  # no torch op of its own here: torch's own would wait for the team
    ok = False
    try:
        ok = bool((f(x).numpy() == want).all())
    finally:
        os._exit(0 if ok else 1)
for _ in range(600):
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        sys.exit(0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 3)
    time.sleep(0.1)
os.kill(pid, 9)
sys.exit(4)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the test forks a child process; this platform has no fork()")
def test_kernels_run_in_a_forked_child():
    """A child of fork() has none of the OpenMP team's threads (libgomp would wait for them
    forever): its athene kernels run on athene's own workers and give the right values. In a
    process of its own, with no other library's threads (JAX's, in this one) across the fork."""
    r = subprocess.run([sys.executable, "-c", FORKED_CHILD], env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.returncode, "3: wrong values, 4: the child hung", r.stderr[-2000:])


EXPLAINED = {  # what athene's analysis makes of the load of the input, in `athene explain`
    "permute": (lambda a: a.permute(2, 1, 0).contiguous(), (R(3, 5, 7),), ["permute (2, 1, 0)"]),
    "pad": (lambda a: F.pad(a, (1, 2)), (R(3, 4),), ["load  arg0_1   masked\n", "index [:, : pad (1, 2)]"]),
    "embedding": (lambda t, i: t[i] * 2, (R(64, 32), torch.tensor([1, -2, 3])), ["row gather"]),
    "index_select_dim1": (lambda t, i: torch.index_select(t, 1, i), (R(16, 64), torch.tensor([1, 2])),
                          ["load  arg0_1   row gather\n", "index [:, wrap(arg1_1.flat[x_0], 64)]"]),
    "slice": (lambda a: a[:, 5::2] * 2, (R(4, 480),), ["strided, sliced"]),
}


@pytest.mark.parametrize("name", sorted(EXPLAINED))
def test_explain_sees_views_and_row_gathers(name, caplog):
    fn, args, want = EXPLAINED[name]
    with caplog.at_level(logging.WARNING, logger="athene.torch"):
        out, code = compiled_code(fn, *args, options={"explain": True})
    torch.testing.assert_close(out, fn(*args))
    text = "\n".join(r.getMessage() for r in caplog.records if r.name == "athene.torch")
    for w in want:
        assert w in text, text
    assert "element gather" not in text, text


@pytest.mark.parametrize("name", ["pad", "index_select_dim1"])
def test_explain_function_pad_and_index_select(name):
    """athene.torch.explain: F.pad's load is a masked view, index_select(x, 1, i)'s a row gather
    on dim 1 (its index a scalar prefetch), neither an element gather."""
    fn, args, want = EXPLAINED[name]
    text = at.explain(fn, *args)
    for w in want:
        assert w in text, text
    assert "element gather" not in text, text
    if name == "index_select_dim1":
        assert "arg1_1   scalar prefetch" in text, text
    else:
        assert "note: arg0_1: masked: read only where x_0 in [1, 4]" in text, text


def test_explain_function():
    f = lambda a, t, i: (a.t().contiguous(), t[i] + 1)  # noqa: E731
    args = (R(8, 16), R(64, 32), torch.tensor([3, -1]))
    f_compiled = torch.compile(f, backend="athene")
    f_compiled(*args)  # compiled before: explain compiles anew all the same
    text = at.explain(f, *args)
    assert text.count("kernel athene_kernel_") == 4  # each kernel's source and its explain
    assert "permute (1, 0)" in text and "row gather" in text and "plan" in text


def test_fx_graph_cache_hit_reloads_kernels():
    torch._dynamo.reset()
    f = lambda a: a.exp() * 3  # noqa: E731
    x = R(40)
    torch.compile(f, backend="athene")(x)
    loaded = at.stats()["kernels_loaded"]
    written = at.stats()["kernels_written"]
    torch._dynamo.reset()
    torch.testing.assert_close(torch.compile(f, backend="athene")(x), f(x))
    assert at.stats()["kernels_written"] == written  # a cache hit: no codegen
    assert at.stats()["kernels_loaded"] > loaded  # the cached wrapper compiled its kernel itself


def test_fx_graph_cache_key_holds_athenes_code(monkeypatch):
    """A graph cached by another version of athene (kernel writer or library) is compiled anew,
    not reloaded with kernels that version wrote; the default backend's keys are torch's own."""
    from athene.torch import _CacheKey
    with inductor_config.patch(cpu_backend="cpp"):
        assert _CacheKey().uuid() is None
    torch._dynamo.reset()
    f = lambda a: a.sin() * 3  # noqa: E731
    x = R(40)
    torch.compile(f, backend="athene")(x)
    written = at.stats()["kernels_written"]
    monkeypatch.setattr(_CacheKey, "_digest", "another version of athene")
    torch._dynamo.reset()
    torch.testing.assert_close(torch.compile(f, backend="athene")(x), f(x))
    assert at.stats()["kernels_written"] > written  # a cache miss: codegen ran


def test_entry_point_without_import(tmp_path):
    """What `pip install ./python` declares: the name works with no import of athene.torch."""
    import tomllib
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "pyproject.toml"), "rb") as fp:
        eps = tomllib.load(fp)["project"]["entry-points"]["torch_dynamo_backends"]
    assert eps == {"athene": "athene.torch:backend"}
    dist = tmp_path / "athene_ep-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: athene-ep\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[torch_dynamo_backends]\nathene = athene.torch:backend\n")
    prog = textwrap.dedent("""
        import sys, torch
        x = torch.randn(16)
        y = torch.compile(lambda a: a * 2 + 1, backend="athene")(x)
        torch.testing.assert_close(y, x * 2 + 1)
        import athene.torch
        assert athene.torch.stats()["calls"] == 1, athene.torch.stats()
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path),
               TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", prog], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


def test_import_athene_without_torch_backend():
    r = subprocess.run([sys.executable, "-c", "import sys, athene; assert 'athene.torch' not in sys.modules; "
                        "assert 'torch' not in sys.modules; print('ok')"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)), timeout=120)
    assert r.stdout.strip() == "ok", r.stderr[-2000:]


def test_compile_takes_each_nodes_own_tiling(monkeypatch):
    """athene asks Inductor for one range tree per dim and takes each node's own ranges as its
    tiling: Inductor's search of every memory access for block shapes (sympy matches, a product
    over the accesses; 30 s of a Llama layer's first call) never runs in athene's compile, also
    where the scheduler asks SIMDScheduling itself while it fuses; after the compile,
    SIMDScheduling is as it was."""
    from torch._inductor.codegen import block_analysis
    from torch._inductor.codegen.simd import SIMDScheduling

    def searched(*args, **kwargs):
        raise AssertionError("Inductor's N-D tiling search ran")

    monkeypatch.setattr(block_analysis.BlockPatternMatcher, "match_mod_div_block_expr", staticmethod(searched))
    own = SIMDScheduling.__dict__["get_nd_tilings"]

    def fn(x, y):  # a permutation into a norm: accesses whose indices Inductor's search matches
        t = x.permute(0, 2, 1, 3) + y
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + 1e-6)

    x, y = R(2, 8, 4, 16), R(2, 4, 8, 16)
    before = at.stats()
    torch._dynamo.reset()
    with inductor_config.patch(fx_graph_cache=False):
        torch.testing.assert_close(torch.compile(fn, backend="athene")(x, y), fn(x, y))
    assert at.stats()["fallbacks"] == before["fallbacks"]
    assert at.stats()["kernels_written"] > before["kernels_written"]
    assert SIMDScheduling.__dict__["get_nd_tilings"] is own
