"""Scatters in the emitted module: a statement that updates its output in place runs in XLA
(`.at[...].set` / `.add` on the values the entry point is given for the output), for the TPU and
the GPU (Triton) targets alike. Each kernel runs in JAX's interpreter on the CPU and is compared
with athene's reference interpreter on the same inputs and starting values; an out-of-range
index raises IndexError with the interpreter's words."""
import importlib.util
import re

import numpy as np
import pytest

import athene_lib as A

SRC = """
kernel put(idx: i64[S], v: f32[S]) -> (y: f32[N]) {
    y[s < S: wrap(idx[s], N)] = v[s]
}
kernel add_rows(idx: i32[S], v: f32[S, D]) -> (y: f32[N, D]) {
    y[s < S, d < D: idx[s], d] += v[s, d] * 2.0
}
kernel add_flat(idx: i64[S], v: f64[S]) -> (y: f64[N]) {
    y.flat[s < S: idx[s]] += v[s]
}
kernel count(idx: i64[S]) -> (y: i32[N]) {
    y[s < S: idx[s]] += 1
}
"""
SIZES = {"S": 12, "N": 8, "D": 3}


@pytest.fixture(scope="module", params=["pallas", "pallas-gpu"])
def module(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    path = tmp / "scatter.ath"
    path.write_text(SRC)
    ctx = A.load(str(path))
    kernels = {}
    for i in range(A.LIB.athene_kernel_count(ctx)):
        k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, i), sizes=SIZES)
        kernels[k.name] = k
    py = tmp / "scatter_pallas.py"
    py.write_text(A.emit(list(kernels.values()), target=request.param))
    spec = importlib.util.spec_from_file_location(f"scatter_{request.param.replace('-', '_')}", py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, kernels


def inputs(name, rng, bad=False):
    n, s, d = SIZES["N"], SIZES["S"], SIZES["D"]
    lo = -n if name == "put" else 0
    idx = rng.integers(lo, n, s)
    if bad:
        idx[5] = n if name != "put" else -n - 1
    dt = {"put": np.int64, "add_rows": np.int32, "add_flat": np.int64, "count": np.int64}[name]
    args = [idx.astype(dt)]
    if name == "put":  # = keeps one of several values (XLA's choice): one value per element
        args.append(rng.standard_normal(n).astype(np.float32)[idx % n])
    elif name == "add_rows":
        args.append(rng.standard_normal((s, d)).astype(np.float32))
    elif name == "add_flat":
        args.append(rng.standard_normal(s))
    y = {"put": rng.standard_normal(n).astype(np.float32), "add_rows": rng.standard_normal((n, d)).astype(np.float32),
         "add_flat": rng.standard_normal(n), "count": rng.integers(0, 5, n).astype(np.int32)}[name]
    return args, y


@pytest.mark.parametrize("name", ["put", "add_rows", "add_flat", "count"])
def test_matches_the_reference_interpreter(module, name):
    mod, kernels = module
    k = kernels[name]
    args, y = inputs(name, np.random.default_rng(3))
    got = np.asarray(getattr(mod, name)(*args, y, interpret=True))
    ref = k.reference([a.reshape(-1) for a in args], outputs=[y])
    assert not isinstance(ref, str), ref
    want = ref[0].reshape(y.shape)
    if y.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)  # XLA adds in an order of its own
    else:
        np.testing.assert_array_equal(got, want)
    untouched = np.ones(SIZES["N"], bool)
    untouched[np.asarray(args[0]) % SIZES["N"]] = False
    assert untouched.any()
    np.testing.assert_array_equal(got[untouched], y[untouched])  # rows no point writes keep their values


@pytest.mark.parametrize("name", ["put", "add_rows", "add_flat"])
def test_out_of_range_raises_with_the_interpreters_message(module, name):
    mod, kernels = module
    args, y = inputs(name, np.random.default_rng(4), bad=True)
    ref = kernels[name].reference([a.reshape(-1) for a in args], outputs=[y])
    assert isinstance(ref, str), "the reference accepted a bad index"
    with pytest.raises(IndexError) as e:
        getattr(mod, name)(*args, y, interpret=True)
    # the module words a flat offset without the storage element it reaches
    assert str(e.value) in re.sub(r" \(storage element -?\d+\)", "", ref), (str(e.value), ref)
