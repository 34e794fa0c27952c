"""The emitted module follows the language at the edge values of its operators (issue 40, 8):
integer `//` and `%` by zero are 0, `INT_MIN // -1` wraps, float `//` and `%` are NumPy's
floor_divide and remainder (by 0.0, -0.0, inf, of NaN). Each kernel runs in JAX's interpreter on
the CPU and is compared, bit for bit (NaN with NaN), with athene's reference interpreter on the
same inputs; a few also with NumPy."""
import importlib.util

import ml_dtypes
import numpy as np
import pytest

import athene_lib as A

INTS = ["i8", "i16", "i32", "i64", "u8"]
FLOATS = ["f16", "f32", "f64"]
NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "f16": np.float16,
      "f32": np.float32, "f64": np.float64}


def edges(dt):
    """Every pair of the dtype's edge values, as two arrays."""
    t = NP[dt]
    if dt in INTS:
        info = np.iinfo(t)
        vals = sorted({0, 1, 2, 3, 7, info.max, info.min, info.max - 1} | ({-1, -2, -7, info.min + 1} if info.min else set()))
    else:
        vals = [0.0, -0.0, 1.0, -1.0, 2.5, -5.5, np.inf, -np.inf, np.nan, 1e-3, float(np.finfo(t).max)]
    a, b = np.meshgrid(np.array(vals, t), np.array(vals, t), indexing="ij")
    return a.reshape(-1), b.reshape(-1)


def run_both(tmp_path, src, inputs):
    path = tmp_path / "k.ath"
    path.write_text(src)
    ctx = A.load(str(path))
    k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, 0), sizes={"N": len(inputs[0])})
    py = tmp_path / "k_pallas.py"
    py.write_text(A.emit([k]))
    spec = importlib.util.spec_from_file_location(f"edges_{abs(hash(src))}", py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = mod.k(*inputs, interpret=True)
    ref = k.reference(inputs)
    assert not isinstance(ref, str), ref
    return np.asarray(got), ref[0]


def same(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, what
    bad = ~((got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else got == want)
    if got.dtype.kind == "f":  # -0.0 and 0.0: the sign counts
        bad |= (got == 0) & (want == 0) & (np.signbit(got) != np.signbit(want))
    assert not bad.any(), f"{what}: {np.flatnonzero(bad)[:8]} got {got[bad][:8]}, want {want[bad][:8]}"


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.parametrize("dt", INTS + FLOATS)
def test_floor_division_and_modulo_at_the_edges(tmp_path, dt, op):
    a, b = edges(dt)
    src = f"kernel k(a: {dt}[N], b: {dt}[N]) -> (y: {dt}[N]) {{\n    y[i] = a[i] {op} b[i]\n}}\n"
    got, ref = run_both(tmp_path, src, [a, b])
    same(got, ref, f"{dt} {op} vs the reference interpreter")
    if dt in INTS:  # the language: by zero is 0, else NumPy's (which wraps INT_MIN // -1)
        with np.errstate(all="ignore"):
            want = np.where(b == 0, 0, (a // np.where(b == 0, 1, b)) if op == "//" else a % np.where(b == 0, 1, b))
        same(got, want.astype(NP[dt]), f"{dt} {op} vs NumPy")


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_narrow_float_floor_division_rounds_once(tmp_path, dt, op):
    """f16 and bf16 // and % are computed in f32 and rounded once, as NumPy's: jnp's are several
    ops, each rounded to the narrow dtype (251 // -0.1018 in f16 gave -2468, not -2466; found by
    tests/pallas/fuzz_emit.py). Against the reference and, for f16, NumPy."""
    rng = np.random.default_rng(7)
    t = np.float16 if dt == "f16" else ml_dtypes.bfloat16
    a = np.concatenate([[251.0], rng.uniform(-300, 300, 4000)]).astype(t)
    b = np.concatenate([[-0.10180664], rng.uniform(-1, 1, 4000)]).astype(t)
    src = f"kernel k(a: {dt}[N], b: {dt}[N]) -> (y: {dt}[N]) {{\n    y[i] = a[i] {op} b[i]\n}}\n"
    got, ref = run_both(tmp_path, src, [a, b])
    if dt == "bf16":
        got, ref = got.astype(np.float32), np.asarray(ref).astype(np.float32)
    same(got, ref, f"{dt} {op} vs the reference interpreter")
    if dt == "f16":
        with np.errstate(all="ignore"):
            same(got, a // b if op == "//" else a % b, f"f16 {op} vs NumPy")


@pytest.mark.parametrize("dt", INTS + FLOATS)
@pytest.mark.parametrize("expr", ["a[i] + b[i]", "a[i] - b[i]", "a[i] * b[i]", "min(a[i], b[i])", "max(a[i], b[i])",
                                  "where(a[i] < b[i], a[i], b[i])", "abs(a[i])", "relu(a[i])", "sign(a[i])",
                                  "clamp(a[i], b[i], b[i])"])
def test_arithmetic_at_the_edges(tmp_path, dt, expr):
    a, b = edges(dt)
    src = f"kernel k(a: {dt}[N], b: {dt}[N]) -> (y: {dt}[N]) {{\n    y[i] = {expr}\n}}\n"
    got, ref = run_both(tmp_path, src, [a, b])
    same(got, ref, f"{dt} {expr} vs the reference interpreter")


@pytest.mark.parametrize("red", ["any", "all"])
@pytest.mark.parametrize("dt", ["i8", "i32", "i64", "u8", "f32", "f64", "bool"])
def test_any_and_all_count_every_non_zero_as_true(tmp_path, red, dt):
    """Non-zero is true, negative values and NaN too (the module reduced max/min of the values
    as floats > 0: all() of -2 was false; found by tests/pallas/fuzz_emit.py)."""
    rows = [[0, 0, 0], [-2, 4, 1], [0, -1, 0], [1, 1, 1]]
    if dt in ("f32", "f64"):
        rows += [[np.nan, 0, 0], [np.nan, np.nan, -0.0]]
    t = np.dtype(NP[dt]) if dt != "bool" else np.dtype(bool)
    a = np.array(rows, np.float64).astype(t)
    path = tmp_path / "k.ath"
    path.write_text(f"kernel k(a: {dt}[N, M]) -> (y: bool[N]) {{\n    y[i] = {red}(j < M: a[i, j])\n}}\n")
    ctx = A.load(str(path))
    k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, 0), sizes={"N": a.shape[0], "M": a.shape[1]})
    py = tmp_path / "k_pallas.py"
    py.write_text(A.emit([k]))
    spec = importlib.util.spec_from_file_location(f"anyall_{red}_{dt}", py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = np.asarray(mod.k(a, interpret=True))
    want = (a != 0) | (np.isnan(a) if dt in ("f32", "f64") else False)
    want = want.any(axis=1) if red == "any" else want.all(axis=1)
    np.testing.assert_array_equal(got, want)
    same(got, k.reference([a.reshape(-1)])[0], f"{red} over {dt} vs the reference interpreter")


@pytest.mark.parametrize("fn", ["abs", "sign", "relu", "floor", "ceil", "round", "trunc"])
def test_same_dtype_functions_of_a_bool(tmp_path, fn):
    """They keep the bool (jnp.sign and jnp.round refuse bools, jnp.maximum(b, 0) makes ints;
    found by tests/pallas/fuzz_emit.py)."""
    a = np.array([True, False, True])
    src = f"kernel k(a: bool[N], b: bool[N]) -> (y: bool[N], z: i32[N]) {{\n    y[i] = {fn}(a[i])\n" \
          f"    z[i] = i32({fn}(a[i])) + i32(!{fn}(b[i]))\n}}\n"
    path = tmp_path / "k.ath"
    path.write_text(src)
    ctx = A.load(str(path))
    k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, 0), sizes={"N": 3})
    py = tmp_path / "k_pallas.py"
    py.write_text(A.emit([k]))
    spec = importlib.util.spec_from_file_location(f"boolfn_{fn}", py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    y, z = mod.k(a, ~a, interpret=True)
    ref = k.reference([a, ~a])
    same(np.asarray(y), ref[0], f"{fn}(bool)")
    same(np.asarray(z), ref[1], f"i32({fn}(bool))")
    np.testing.assert_array_equal(np.asarray(y), a)


@pytest.mark.parametrize("const", ["bool(i32(2))", "(1 < 2)", "!(1 < 2)"])
def test_constant_bools_cast(tmp_path, const):
    """A constant bool is an array like every other constant (a Python True has no .astype;
    found by tests/pallas/fuzz_emit.py in ceil(bool(i32(2))) stored to u8)."""
    a = np.arange(3, dtype=np.int32)
    got, want = run_both(tmp_path, f"kernel k(a: i32[N]) -> (y: u8[N]) {{\n    y[i] = u8(a[i]) + ceil({const})\n}}\n",
                         [a])
    same(got, want, const)
    np.testing.assert_array_equal(got, a + (0 if const.startswith("!") else 1))


def test_index_arithmetic_past_int32(tmp_path):
    """i64 values built from index variables, bools and constants stay int32 in the kernel only
    where their range fits int32 (2147483647 + a bool, i * 10^8 do not; found by
    tests/pallas/fuzz_emit.py, which saw -2147483648 for 2147483648)."""
    a = np.array([True, False] * 15)
    got, want = run_both(tmp_path, "kernel k(a: bool[N]) -> (y: f64[N]) {\n"
                         "    y[i] = f64(2147483647 + a[i]) + f64(i * 100000000) + f64((i + 1) * (i + 1))\n}\n", [a])
    same(got, want, "index arithmetic past int32")
    i = np.arange(30)
    np.testing.assert_array_equal(got, (2147483647 + a) + i * 100000000.0 + (i + 1.0) ** 2)


def test_checked_gather_with_two_outputs(tmp_path):
    """The entry point of a kernel with a checked gather and several outputs returns them all
    (it called a name the module does not define; found by tests/pallas/fuzz_emit.py), and
    raises IndexError for a bad index."""
    src = ("kernel k(t: f32[V, M], idx: i32[N]) -> (y: f32[N, M], z: f32[N, M]) {\n"
           "    y[i, j] = t[wrap(idx[i], V), j]\n    z[i, j] = t[wrap(idx[i], V), j] * 2.0\n}\n")
    path = tmp_path / "k.ath"
    path.write_text(src)
    ctx = A.load(str(path))
    k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, 0), sizes={"N": 4, "M": 8, "V": 3})
    py = tmp_path / "k_pallas.py"
    py.write_text(A.emit([k]))
    spec = importlib.util.spec_from_file_location("gather_two", py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    t = np.arange(24, dtype=np.float32).reshape(3, 8)
    idx = np.array([0, -1, 2, 1], np.int32)
    y, z = mod.k(t, idx, interpret=True)
    np.testing.assert_array_equal(np.asarray(y), t[idx])
    np.testing.assert_array_equal(np.asarray(z), t[idx] * 2)
    with pytest.raises(IndexError):
        mod.k(t, np.array([0, 3, 0, 0], np.int32), interpret=True)


@pytest.mark.parametrize("to", INTS)
@pytest.mark.parametrize("dt", FLOATS)
def test_float_to_int_casts_saturate(tmp_path, dt, to):
    """The language's float -> int: toward zero, saturating at the target's range, NaN 0 (the
    module's astype gave INT_MIN for inf; found by tests/pallas/fuzz_emit.py)."""
    t = NP[dt]
    info = np.iinfo(NP[to])
    vals = [0.0, -0.0, 1.5, -1.5, -2.5, np.nan, np.inf, -np.inf, 1e30, -1e30, float(np.finfo(t).max),
            float(info.max), float(info.min), float(info.max) + 1, float(info.min) - 1, 127.9, -128.9, 255.5]
    with np.errstate(all="ignore"):
        a = np.array(vals, np.float64).astype(t)
    # a value computed in the kernel (a load converted directly happened to saturate)
    src = f"kernel k(a: {dt}[N], one: {dt}[N]) -> (y: {to}[N]) {{\n    y[i] = {to}(a[i] * one[i])\n}}\n"
    path = tmp_path / "k.ath"
    path.write_text(src)
    ctx = A.load(str(path))
    k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, 0), sizes={"N": len(a)})
    py = tmp_path / "k_pallas.py"
    py.write_text(A.emit([k]))
    spec = importlib.util.spec_from_file_location(f"f2i_{dt}_{to}", py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    one = np.ones_like(a)
    got = np.asarray(mod.k(a, one, interpret=True))
    same(got, k.reference([a, one])[0], f"{dt} -> {to} vs the reference interpreter")
    with np.errstate(all="ignore"):
        f = np.asarray(a, np.float64)
        want = np.where(np.isnan(f), 0, np.clip(np.trunc(np.nan_to_num(f, posinf=2.0**70, neginf=-2.0**70)),
                                                 info.min, info.max))
    np.testing.assert_array_equal(got, np.array([int(w) if abs(w) < 2**63 else (info.max if w > 0 else info.min)
                                                 for w in want], dtype=NP[to]))


def test_float_to_int_cast_of_an_infinite_quotient(tmp_path):
    """The emitter fuzzer's reproducer: clamp(x, -8, -0.0) of a positive x is -0.0, -2 // -0.0 is
    inf and i64(inf) is INT64_MAX. The module gave INT64_MIN: it spelled the literal -0.0 as
    jnp.float64(-0), which is +0.0, and jnp.clip gives +0.0 there too."""
    src = ("kernel k(a: f16[N], b: f64[], c: i8[M]) -> (y: i64[N, M]) {\n"
           "    let u[i < N, j < M] = clamp(relu((a[i] * b[])), -8, -0.0)\n"
           "    y[i, j] = (c[j] // where((-1 < clamp(b[], 2, -8)), f64(u[i, j]), u[i, j]))\n}\n")
    path = tmp_path / "k.ath"
    path.write_text(src)
    ctx = A.load(str(path))
    k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, 0), sizes={"N": 2, "M": 3})
    py = tmp_path / "k_pallas.py"
    py.write_text(A.emit([k]))
    spec = importlib.util.spec_from_file_location("f2i_quotient", py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    a, b, c = np.array([3.1484375, 0.55712890625], np.float16), np.float64(0.348), np.array([-2, -4, -9], np.int8)
    got = np.asarray(mod.k(a, b, c, interpret=True))
    assert (got == np.iinfo(np.int64).max).all(), got
    same(got.reshape(-1), k.reference([a, np.array([b]), c])[0], "vs the reference interpreter")
