"""The bitwise ops, shifts, bitcasts and the functions erfinv, lgamma, digamma, hypot and
nextafter in an emitted Pallas module, run by JAX's interpreter on the CPU (interpret=True), on
edge values, against athene's reference interpreter on the same inputs: integers and bitcasts bit
for bit (shift counts outside [0, bits) included: the language's 0 and sign, where a bare
jnp.left_shift leaves them to the lowering), the functions within float tolerances (JAX computes
them in the dtype, athene in double, rounded once). And the module through the real Mosaic
compiler for v5e and v6e (as test_tpu.py compiles the examples): narrow shifts go through int32,
lgamma, digamma and erfinv statements run in XLA, 64-bit bitcasts through uint64."""
import functools
import importlib.util

import jax
import ml_dtypes
import numpy as np
import pytest
from jax.experimental import topologies
from jax.sharding import use_abstract_mesh

import athene_lib as A
import test_tpu as TPU

N = 16
SRC = f"""
kernel bitops(a: i32[{N}], s: i32[{N}], c: u8[{N}], cs: u8[{N}], e: i8[{N}], es: i8[{N}], l: i64[{N}],
              ls: i64[{N}], p: bool[{N}], q: bool[{N}])
    -> (band: i32[{N}], bor: i32[{N}], bxor: i32[{N}], bnot: i32[{N}], shl: i32[{N}], shr: i32[{N}],
        ushl: u8[{N}], ushr: u8[{N}], unot: u8[{N}], eshl: i8[{N}], eshr: i8[{N}], lshl: i64[{N}],
        lshr: i64[{N}], pand: bool[{N}], por: bool[{N}], pxor: bool[{N}], pnot: bool[{N}], mix: i32[{N}]) {{
    band[i] = a[i] & s[i]
    bor[i] = a[i] | s[i]
    bxor[i] = a[i] ^ s[i]
    bnot[i] = ~a[i]
    shl[i] = a[i] << s[i]
    shr[i] = a[i] >> s[i]
    ushl[i] = c[i] << cs[i]
    ushr[i] = c[i] >> cs[i]
    unot[i] = ~c[i]
    eshl[i] = e[i] << es[i]
    eshr[i] = e[i] >> es[i]
    lshl[i] = l[i] << ls[i]
    lshr[i] = l[i] >> ls[i]
    pand[i] = p[i] & q[i]
    por[i] = p[i] | q[i]
    pxor[i] = p[i] ^ q[i]
    pnot[i] = ~p[i]
    mix[i] = (a[i] & 255) << 3 | (a[i] >> 28 ^ 5)
}}

kernel bitcasts(f: f32[{N}], h: f16[{N}], b: bf16[{N}], d: f64[{N}], k: i32[{N}], g: i8[{N}])
    -> (fi: i32[{N}], hi: i16[{N}], bi: i16[{N}], di: i64[{N}], kf: f32[{N}], hb: bf16[{N}], gu: u8[{N}],
        round: f32[{N}]) {{
    fi[i] = i32.bits(f[i])
    hi[i] = i16.bits(h[i])
    bi[i] = i16.bits(b[i])
    di[i] = i64.bits(d[i])
    kf[i] = f32.bits(k[i] & 2139095039)
    hb[i] = bf16.bits(i16.bits(h[i]))
    gu[i] = u8.bits(g[i])
    round[i] = f32.bits(i32.bits(f[i]) + 1)
}}

kernel functions(x: f32[{N}], y: f32[{N}], u: f32[{N}], z: f64[{N}], w: f64[{N}])
    -> (erfinv_: f32[{N}], lgamma_: f32[{N}], digamma_: f32[{N}], hypot_: f32[{N}], next_: f32[{N}],
        erfinv64: f64[{N}], lgamma64: f64[{N}], hypot64: f64[{N}], next64: f64[{N}]) {{
    erfinv_[i] = erfinv(u[i])
    lgamma_[i] = lgamma(x[i])
    digamma_[i] = digamma(x[i])
    hypot_[i] = hypot(x[i], y[i])
    next_[i] = nextafter(x[i], y[i])
    erfinv64[i] = erfinv(w[i])
    lgamma64[i] = lgamma(z[i])
    hypot64[i] = hypot(z[i], w[i])
    next64[i] = nextafter(z[i], w[i])
}}

kernel gamma(a: f32[{N}], x: f32[{N}], p: f32[{N}], n: f32[{N}], d: f64[{N}], e: f64[{N}], q: f64[{N}], m: f64[{N}])
    -> (mant: f32[{N}], expo: i32[{N}], igamma_: f32[{N}], igammac_: f32[{N}], polygamma_: f32[{N}], zeta_: f32[{N}],
        erfcx_: f32[{N}], ndtri_: f32[{N}], airy_: f32[{N}], mant64: f64[{N}], expo64: i32[{N}], igamma64: f64[{N}],
        igammac64: f64[{N}], polygamma64: f64[{N}], zeta64: f64[{N}], erfcx64: f64[{N}], ndtri64: f64[{N}],
        airy64: f64[{N}]) {{
    mant[i] = frexp_mantissa(x[i])
    expo[i] = frexp_exponent(x[i])
    igamma_[i] = igamma(a[i], x[i])
    igammac_[i] = igammac(a[i], x[i])
    polygamma_[i] = polygamma(n[i], x[i])
    zeta_[i] = zeta(a[i] + 1, x[i])
    erfcx_[i] = erfcx(x[i])
    ndtri_[i] = ndtri(p[i])
    airy_[i] = airy_ai(x[i] * 4)
    mant64[i] = frexp_mantissa(e[i])
    expo64[i] = frexp_exponent(e[i])
    igamma64[i] = igamma(d[i], e[i])
    igammac64[i] = igammac(d[i], e[i])
    polygamma64[i] = polygamma(m[i], e[i])
    zeta64[i] = zeta(d[i] + 1, e[i])
    erfcx64[i] = erfcx(e[i])
    ndtri64[i] = ndtri(q[i])
    airy64[i] = airy_ai(e[i] * 4)
}}
"""

I32 = [0, 1, -1, 5, -7, 100, 2**31 - 1, -2**31, 12345678, -99, 3, 255, 1 << 20, -(1 << 30), 7, 64]
COUNTS = [0, 1, 31, 32, 33, -1, 100, 7, 8, 16, 63, 64, -32, 2, 30, 5]
U8 = [0, 1, 255, 128, 127, 5, 200, 64, 3, 7, 8, 9, 100, 250, 16, 2]
U8_COUNTS = [0, 1, 7, 8, 9, 255, 200, 3, 4, 100, 6, 2, 5, 128, 0, 1]
I8 = [0, 1, -1, 127, -128, 5, -7, 64, 3, -100, 100, 2, -2, 8, -8, 9]
I8_COUNTS = [0, 1, 7, 8, 9, -1, -8, 3, 4, 100, -128, 127, 6, 2, 5, 1]
I64 = [0, 1, -1, 2**63 - 1, -2**63, 5, -7, 2**40, -2**40, 3, 100, -100, 2**32, 9, 8, 7]
I64_COUNTS = [0, 1, 63, 64, 65, -1, 100, 32, 31, 33, 62, -64, 2, 3, 40, 7]
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan, 1e-3, 7.25, -0.75, 100.0, 2.0, 1e-30]


GA = [0.5, 1.0, 2.0, 0.0, 3.5, 10.0, 0.25, 1e-3, 30.0, 5.0, np.inf, np.nan, 1.5, 2.5, 100.0, 0.75]
GX = [0.5, 2.0, 0.0, 1.0, -2.5, 10.0, 3.0, 1e-3, 25.0, -0.75, 1.0, 2.0, -1.0, 0.1, 95.0, 1.5]
GP = [0.5, 0.0, 1.0, 0.025, 0.975, 1e-10, 0.3, 0.7, 1e-30, 0.999, -0.5, 1.5, np.nan, 0.1, 0.9, 0.01]
GN = [0, 1, 2, 3, 4, 1, 2, 0, 1, 2, 3, 4, 1.5, 1, 2, 3]


def arrays():
    f = np.array(FLOATS)
    rng = np.random.default_rng(3)
    return {
        "bitops": [np.array(I32, np.int32), np.array(COUNTS, np.int32), np.array(U8, np.uint8),
                   np.array(U8_COUNTS, np.uint8), np.array(I8, np.int8), np.array(I8_COUNTS, np.int8),
                   np.array(I64, np.int64), np.array(I64_COUNTS, np.int64), rng.integers(0, 2, N).astype(bool),
                   rng.integers(0, 2, N).astype(bool)],
        "bitcasts": [f.astype(np.float32), f.astype(np.float16), f.astype(ml_dtypes.bfloat16), f,
                     np.array(I32, np.int32), np.array(I8, np.int8)],
        # x: lgamma's and digamma's poles, negative non-integers, large and small; u: erfinv's
        # domain and its edges
        "functions": [np.array([0.0, -0.0, 1.0, 2.0, -1.0, -2.5, 0.5, 3.5, 10.0, 1e-4, 30.0, -0.25, np.inf,
                                np.nan, 1.4616321, 5.0], np.float32),
                      np.array([1.0, 0.0, -1.0, 3.0, np.inf, 2.0, -0.5, 3.5, 10.0, 0.0, -30.0, 0.25, 1.0, 2.0,
                                2.0, 5.0], np.float32),
                      np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.9, -0.99, 0.999, 1.5, -2.0, 1e-6, 0.3,
                                np.nan, 0.75, -0.125], np.float32),
                      np.array([0.0, 1.0, 2.0, -2.5, 0.5, 3.5, 10.0, 1e-4, 100.0, -0.25, np.inf, np.nan, 7.0,
                                1.5, 0.1, 20.0]),
                      np.array([0.5, -0.5, 0.9, -0.99, 0.999999, 1.0, -1.0, 0.0, 1.5, 1e-6, 0.3, np.nan, 0.0,
                                0.125, -0.75, 7.0])],
        # a: the incomplete gamma's and zeta's parameter (0, inf and NaN among them); x: every
        # function's argument (zeta's and polygamma's poles, erfcx's both sides, airy_ai's three
        # regions at 4x); p: ndtri's domain and its edges; n: polygamma's order (0 to 4, and one
        # not an integer)
        "gamma": [np.array(GA, np.float32), np.array(GX, np.float32), np.array(GP, np.float32),
                  np.array(GN, np.float32), np.array(GA), np.array(GX), np.array(GP), np.array(GN)],
    }


def emit(d, target):
    src = d / "ops.ath"
    src.write_text(SRC)
    ctx = A.load(str(src))
    kernels = {}
    for i in range(A.LIB.athene_kernel_count(ctx)):
        k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, i))
        kernels[k.name] = k
    stem = "ops_" + target.replace("-", "_")
    path = d / f"{stem}.py"
    path.write_text(A.emit(list(kernels.values()), target))
    spec = importlib.util.spec_from_file_location(stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, kernels


@pytest.fixture(scope="module")
def emitted(tmp_path_factory):
    return emit(tmp_path_factory.mktemp("ops"), "pallas")


@pytest.fixture(scope="module")
def emitted_gpu(tmp_path_factory):
    return emit(tmp_path_factory.mktemp("ops_gpu"), "pallas-gpu")


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f" or got.dtype == ml_dtypes.bfloat16:
        with np.errstate(invalid="ignore"):  # bf16 NaNs
            g, w = got.astype(np.float64), want.astype(np.float64)
        nan = np.isnan(g) & np.isnan(w)
        return np.array_equal(np.where(nan, 0, g), np.where(nan, 0, w)) and \
            np.array_equal(np.signbit(g) | nan, np.signbit(w) | nan)
    return np.array_equal(got, want)


@pytest.mark.parametrize("target", ["pallas", "pallas-gpu"])
@pytest.mark.parametrize("kernel", ["bitops", "bitcasts", "functions", "gamma"])
def test_ops_in_jax_interpreter(emitted, emitted_gpu, kernel, target):
    mod, kernels = emitted if target == "pallas" else emitted_gpu
    k = kernels[kernel]
    ins = arrays()[kernel]
    out = getattr(mod, kernel)(*ins, interpret=True)
    ref = k.reference(ins)
    assert not isinstance(ref, str), ref
    names = [p.name.decode() for p in k.params[k.nin:]]
    bad = []
    for name, got, want in zip(names, out, ref):
        got = np.asarray(got)
        if kernel not in ("functions", "gamma") or got.dtype.kind == "i":
            if not same_bits(got, want):
                bad.append(f"{name}: Pallas {got.tolist()}\n    reference {want.tolist()}")
            continue
        tol = 1e-5 if got.dtype == np.float32 else 1e-12
        g, w = got.astype(np.float64), want.astype(np.float64)
        ok = np.isclose(g, w, rtol=tol, atol=tol, equal_nan=True) | ((g == w) & np.isinf(w))
        # digamma at a pole: the language's -inf / NaN (PyTorch's), JAX's NaN there
        if name == "digamma_":
            pole = (ins[0] <= 0) & (ins[0] == np.floor(ins[0]))
            assert np.array_equal(w[pole], [-np.inf, np.inf, np.nan, np.nan][:pole.sum()], equal_nan=True)
            ok |= pole
        # JAX's float32 polygamma and zeta lose digits: 5e-4 at polygamma(4, -2.5), 2e-5 at
        # zeta(1.001, 1e-3) (athene computes in double and rounds once)
        if name in ("polygamma_", "zeta_"):
            ok |= np.isclose(g, w, rtol=1e-3, atol=0)
        if name.startswith("next") or name.startswith("mant"):  # exact
            ok = np.isclose(g, w, rtol=0, atol=0, equal_nan=True)
        if not ok.all():
            bad.append(f"{name}: at {np.flatnonzero(~ok).tolist()}: Pallas {g[~ok].tolist()}, "
                       f"reference {w[~ok].tolist()}")
    assert not bad, "\n".join(bad)


def test_shift_counts_outside_the_width(emitted):
    """The language's results for counts outside [0, bits), written out (docs/language.md,
    Operators: PyTorch's on the CPU): << gives 0, >> the sign."""
    mod, kernels = emitted
    ins = arrays()["bitops"]
    out = dict(zip([p.name.decode() for p in kernels["bitops"].params[kernels["bitops"].nin:]],
                   mod.bitops(*ins, interpret=True)))
    a, s = ins[0].astype(np.int64), ins[1].astype(np.int64)
    outside = (s < 0) | (s >= 32)
    assert outside.sum() >= 5
    assert (np.asarray(out["shl"])[outside] == 0).all()
    assert (np.asarray(out["shr"])[outside] == np.where(a < 0, -1, 0)[outside]).all()
    c, cs = ins[2].astype(np.int64), ins[3].astype(np.int64)
    assert (np.asarray(out["ushr"])[cs >= 8] == 0).all() and (np.asarray(out["ushl"])[cs >= 8] == 0).all()
    inside = ~outside
    assert (np.asarray(out["shl"])[inside] == ((a << np.clip(s, 0, 31)) & 0xffffffff).astype(np.uint32)
            .view(np.int32)[inside]).all()


@pytest.mark.parametrize("chip", sorted(TPU.CHIPS))
@pytest.mark.parametrize("kernel", ["bitops", "bitcasts", "functions", "gamma"])
def test_mosaic_compile(emitted, kernel, chip):
    mod, _ = emitted
    dev = topologies.get_topology_desc(TPU.CHIPS[chip][0], "tpu").devices[0]
    sh = jax.sharding.SingleDeviceSharding(dev)
    avals = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sh) for a in arrays()[kernel]]
    fn = jax.jit(functools.partial(getattr(mod, kernel + "_pure"), interpret=False), out_shardings=sh)
    with use_abstract_mesh(TPU.mesh(chip)):
        fn.trace(*avals).lower(lowering_platforms=("tpu",)).compile()


@pytest.mark.parametrize("kernel", ["bitops", "bitcasts", "functions", "gamma"])
def test_lower_cuda(emitted_gpu, kernel):
    """The pallas-gpu module through Pallas's Triton lowering (as test_gpu.py lowers the examples)."""
    mod, _ = emitted_gpu
    avals = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays()[kernel]]
    fn = jax.jit(functools.partial(getattr(mod, kernel + "_pure"), interpret=False))
    text = fn.trace(*avals).lower(lowering_platforms=("cuda",)).as_text()
    assert "__gpu$xla.gpu.triton" in text
