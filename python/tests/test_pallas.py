"""kernel.pallas() and kernel.to_jax(): the emitted Pallas module, run by JAX (Pallas'
interpreter on this CPU), matches NumPy on a sample of the example kernels."""

import jax.numpy as jnp
import numpy as np
import pytest

import athene
from support import as_table_value, example_module, logical, storage_for, te

SMALL = [k for k in te.RUN_KERNELS if not te.FULL_SIZE.match(k)]
# a sample: one kernel in five (in table order), the first of every file, and symbolic sizes
SAMPLE = sorted((set(SMALL[::5]) | {next(k for k in SMALL if te.CASES[k].file == f) for f in {te.CASES[k].file for k in SMALL}}
                 | {"slice_sym", "gather_wrap_sym", "view_T_sym", "embed_bias_scale", "gather"}))


def run_to_jax(name):
    c = te.CASES[name]
    inputs, expected = c.build(te.rng_for(name))
    k = example_module(c.file)[name]
    values = {n: logical(v) for n, v in inputs.items()}
    sizes = dict(c.sizes)
    for p in k.inputs:
        for d, sym in enumerate(p.dims):
            if sym is not None:
                sizes.setdefault(sym, values[p.name].shape[d])
    lays = k.layouts(sizes=sizes)
    args = [storage_for(lays[p.name], values[p.name]) if p.declares_layout else jnp.asarray(values[p.name])
            for p in k.inputs]
    got = k.to_jax(sizes=sizes)(*args)
    if len(k.outputs) == 1:
        got = (got,)
    for p, g in zip(k.outputs, got):
        g = np.asarray(g)
        if p.declares_layout:  # the module returns the storage
            lay = lays[p.name]
            g = np.lib.stride_tricks.as_strided(g[lay.offset:], lay.shape, [s * g.itemsize for s in lay.strides])
        te.compare(p.name, as_table_value(g), expected[p.name], c.tol)


def test_sample_covers_every_example_file():
    assert {te.CASES[k].file for k in SAMPLE} == {te.CASES[k].file for k in SMALL}


def test_to_jax_matches_numpy():
    failed = []
    for name in SAMPLE:
        try:
            run_to_jax(name)
        except Exception as e:  # collected: one report for the sample
            failed.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    assert not failed, f"{len(failed)} of {len(SAMPLE)} kernels wrong through to_jax():\n" + "\n".join(failed)


MOD = athene.compile("""
kernel scale_t(x: f32[N, M], scale: f32[N]) -> (y: f32[M, N]) {
    y[j, i] = x[i, j] * scale[i]
}
kernel gather(table: f32[V, D], idx: i64[S]) -> (out: f32[S, D]) {
    out[s, d] = table[wrap(idx[s], V), d]
}
kernel gather32(table: f32[V, D], idx: i32[S]) -> (out: f32[S, D]) {
    out[s, d] = table[idx[s], d]
}
""")


def test_pallas_source_and_to_jax_from_arrays():
    x, s = np.arange(12, dtype=np.float32).reshape(3, 4), np.float32([1, 2, 3])
    src = MOD.scale_t.pallas(x, s)
    assert "pl.pallas_call" in src and "def scale_t(" in src
    compile(src, "<pallas>", "exec")
    f = MOD.scale_t.to_jax(x, s)
    np.testing.assert_array_equal(np.asarray(f(x, s)), (x * s[:, None]).T)
    assert MOD.scale_t.to_jax(x, s) is f  # one module per emitted text
    np.testing.assert_array_equal(np.asarray(MOD.scale_t.to_jax(x, s, interpret=True)(x, s)), (x * s[:, None]).T)


def test_to_jax_bad_index():
    table, idx = np.arange(8, dtype=np.float32).reshape(4, 2), np.int64([0, -1])
    g = MOD.gather.to_jax(table, idx)
    np.testing.assert_array_equal(np.asarray(g(table, idx)), table[[0, 3]])
    with pytest.raises(IndexError, match="index 4 out of range"):
        g(table, np.int64([4, 0]))
    g32 = MOD.gather32.to_jax(table, np.int32([0, 3]))
    np.testing.assert_array_equal(np.asarray(g32(table, np.int32([0, 3]))), table[[0, 3]])
    with pytest.raises(IndexError, match="index -1 out of range"):
        g32(table, np.int32([0, -1]))
