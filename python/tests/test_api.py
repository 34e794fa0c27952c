"""The package's API: arguments, layouts, out=, dtypes, errors, explain/plan, the registry."""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import athene

SRC = """
kernel affine(x: f32[N, M], s: f32[M]) -> (y: f32[N, M]) {
    y[i, j] = x[i, j] * s[j] + 1.0
}
kernel tsum(x: f32[N, M]) -> (y: f32[M], m: f32[M]) {
    y[j] = sum(i: x[i, j])
    m[j] = max(i: x[i, j])
}
kernel embed(table: f32[V, D], idx: i64[S]) -> (out: f32[S, D]) {
    out[s, d] = table[wrap(idx[s], V), d]
}
kernel colmajor(x: f32[R, C]) -> (y: f32[R, C] strides(1, R)) {
    y[i, j] = x[i, j] * 2.0
}
kernel stored(x: f32[4, 3] strides(1, 4) offset 2) -> (y: f32[4, 3]) {
    y[i, j] = x[i, j] + 0.5
}
kernel flat(x: f32[2, 4]) -> (y: f32[8]) {
    y[k] = x.flat[k]
}
kernel cast16(x: f16[N], b: bf16[N]) -> (y: f32[N], h: bf16[N]) {
    y[i] = f32(x[i]) + f32(b[i])
    h[i] = bf16(f32(x[i]) * 2.0)
}
kernel mask(x: f32[N], t: f32[]) -> (y: bool[N]) {
    y[i] = x[i] > t[]
}
"""

mod = athene.compile(SRC)
rng = np.random.default_rng(7)


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_module_has_the_kernels_as_attributes():
    assert [k.name for k in mod] == ["affine", "tsum", "embed", "colmajor", "stored", "flat", "cast16", "mask"]
    assert mod.affine is mod["affine"]
    assert "affine" in dir(mod)
    with pytest.raises(AttributeError, match="no kernel 'nope'"):
        mod.nope
    assert [p.name for p in mod.tsum.outputs] == ["y", "m"]
    assert mod.affine.inputs[0].dims == ("N", "M")
    assert mod.stored.inputs[0].declares_layout and not mod.affine.inputs[0].declares_layout


@pytest.mark.parametrize("view", [
    lambda a: a,
    lambda a: a[::-1],
    lambda a: a[:, ::-1],
    lambda a: a[::-1, ::-2],
    lambda a: a[1:, 2::3],
    lambda a: np.asfortranarray(a),
    lambda a: a.T.copy().T,
    lambda a: np.broadcast_to(a[:1], a.shape),
    lambda a: np.broadcast_to(a[:, :1], a.shape),
    lambda a: np.broadcast_to(a[:1, :1], a.shape),
    lambda a: a[:0],
])
def test_any_view_is_read_in_place(view):
    x = view(randn(6, 9))
    s = randn(x.shape[1])[::-1]
    np.testing.assert_allclose(mod.affine(x, s), x * s + 1, rtol=1e-6)


def test_inputs_by_name():
    x, s = randn(3, 4), randn(4)
    np.testing.assert_allclose(mod.affine(s=s, x=x), x * s + 1, rtol=1e-6)
    np.testing.assert_allclose(mod.affine(x, s=s), x * s + 1, rtol=1e-6)
    with pytest.raises(TypeError, match="missing input"):
        mod.affine(x)
    with pytest.raises(TypeError, match="no input 'z'"):
        mod.affine(x, s, z=s)
    with pytest.raises(TypeError, match="takes 2 input"):
        mod.affine(x, s, s)


def test_several_outputs_are_a_tuple():
    x = randn(5, 3)
    y, m = mod.tsum(x)
    np.testing.assert_allclose(y, x.sum(0), rtol=1e-5)
    np.testing.assert_array_equal(m, x.max(0))


def test_size_symbols_from_shapes_and_their_conflicts():
    with pytest.raises(athene.CompileError, match="M"):
        mod.affine(randn(3, 4), randn(5))
    with pytest.raises(ValueError, match="'x' has 2 dim"):
        mod.affine(randn(3), randn(3))


def test_dtype_mismatch_is_a_type_error_naming_the_parameter():
    with pytest.raises(TypeError, match=r"parameter 's' is f32 .* float64"):
        mod.affine(randn(2, 2), np.ones(2))
    with pytest.raises(TypeError, match=r"parameter 'idx' is i64 .* int32"):
        mod.embed(randn(4, 2), np.zeros(3, np.int32))
    with pytest.raises(TypeError, match=r"output 'y' is f32 .* float64"):
        mod.affine(randn(2, 2), randn(2), out=np.empty((2, 2)))


def test_byte_strides_not_a_multiple_of_the_item_size():
    raw = np.zeros(64, np.uint8)
    x = np.lib.stride_tricks.as_strided(raw[:32].view(np.float32), shape=(2, 2), strides=(6, 4))
    with pytest.raises(ValueError, match="byte stride of 6"):
        mod.affine(x, randn(2))


def test_lists_and_scalars_take_the_parameter_dtype():
    y = mod.mask([1.0, -1.0, 3.0], 0.5)
    np.testing.assert_array_equal(y, [True, False, True])
    assert y.dtype == np.bool_


def test_out_arrays_of_any_layout():
    x, s = randn(4, 6), randn(6)
    for out in (np.empty((4, 6), np.float32), np.empty((6, 4), np.float32).T,
                np.zeros((8, 12), np.float32)[1::2, ::2], np.empty((4, 6), np.float32)[::-1]):
        r = mod.affine(x, s, out=out)
        assert r is out
        np.testing.assert_allclose(out, x * s + 1, rtol=1e-6)
    with pytest.raises(athene.CompileError, match="7 from dim 1 of y"):
        mod.affine(x, s, out=np.empty((4, 7), np.float32))
    ro = np.empty((4, 6), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        mod.affine(x, s, out=ro)
    y, m = randn(6), randn(6)
    r = mod.tsum(x, out=(None, m))
    assert r[1] is m
    np.testing.assert_array_equal(m, x.max(0))
    with pytest.raises(TypeError, match="2 output"):
        mod.tsum(x, out=y)


def test_out_written_in_place_when_the_run_cannot_fail():
    x, s = randn(4, 6), randn(6)
    out = np.empty((4, 6), np.float32)
    ptrs = mod.affine.storage_pointers(x, s, out=out)
    assert ptrs[2] == out.__array_interface__["data"][0]


def test_out_overlapping_an_input_goes_through_a_temporary():
    x = randn(4, 6)
    s = np.ones(6, np.float32)
    expect = x * s + 1
    mod.affine(x, s, out=x)
    np.testing.assert_allclose(x, expect, rtol=1e-6)


def test_declared_input_layout_takes_the_storage():
    lay = mod.stored.layouts()["x"]
    assert lay.strides == (1, 4) and lay.offset == 2 and lay.storage_elems == 2 + 3 * 4
    storage = np.arange(14, dtype=np.float32)
    logical = np.lib.stride_tricks.as_strided(storage[2:], (4, 3), (4, 16))
    np.testing.assert_array_equal(mod.stored(storage), logical + 0.5)
    np.testing.assert_array_equal(mod.stored(storage.reshape(2, 7)), logical + 0.5)
    with pytest.raises(ValueError, match="has 13 elements; its layout reaches 14"):
        mod.stored(storage[:13])
    with pytest.raises(ValueError, match="C-contiguous"):
        mod.stored(np.arange(28, dtype=np.float32)[::2])


def test_declared_output_layout():
    x = randn(3, 5)
    y = mod.colmajor(x)
    np.testing.assert_array_equal(y, x * 2)
    assert y.strides == (4, 12)  # column-major, as declared
    storage = np.full(15, -1, np.float32)
    r = mod.colmajor(x, out=storage)
    np.testing.assert_array_equal(r, x * 2)
    np.testing.assert_array_equal(storage, (x * 2).T.reshape(-1))


def test_flat_reads_the_storage():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_array_equal(mod.flat(x), np.arange(8))
    f = np.asfortranarray(x)  # storage 0 4 1 5 2 6 3 7
    np.testing.assert_array_equal(mod.flat(f), f.T.reshape(-1))


def test_f16_and_bf16():
    x = np.float16([1.5, -2.25, 3.0])
    b = np.float32([0.5, 1.0, 65280.0]).astype(athene.BFLOAT16)
    y, h = mod.cast16(x, b)
    np.testing.assert_array_equal(y, x.astype(np.float32) + b.astype(np.float32))
    assert h.dtype == athene.BFLOAT16
    np.testing.assert_array_equal(np.asarray(h).astype(np.float32), x.astype(np.float32) * 2)
    bits = np.asarray(b).view(np.uint16)  # bf16 bit patterns are taken too
    np.testing.assert_array_equal(mod.cast16(x, bits)[0], y)
    with pytest.raises(TypeError, match="'b' is bf16"):
        mod.cast16(x, np.float32([1, 2, 3]))


def test_run_error_leaves_out_untouched():
    table, out = randn(5, 3), np.full((4, 3), 7, np.float32)
    idx = np.array([0, 1, -5, 5])
    with pytest.raises(athene.RunError) as e:
        mod.embed(table, idx, out=out)
    assert "index 5 out of range for dim 0 of 'table'" in str(e.value)
    assert isinstance(e.value, athene.Error)
    np.testing.assert_array_equal(out, 7)
    np.testing.assert_array_equal(idx, [0, 1, -5, 5])
    ok = mod.embed(table, idx[:3], out=out[:3])
    np.testing.assert_array_equal(ok, table[[0, 1, 0]])


def test_run_error_leaves_out_untouched_both_ways():
    # embed reads all its indices before it writes a row (out= written in place); a gather
    # scaled by 2 runs element by element, so out= goes through a temporary
    scaled = athene.compile("""
kernel scaled(table: f32[V, D], idx: i64[S]) -> (out: f32[S, D]) {
    out[s, d] = table[idx[s], d] * 2.0
}
""").scaled
    table = randn(50, 16)
    for k, want in ((mod.embed, table), (scaled, table * 2)):
        for bad in (4100, 0, 19999):
            idx = np.arange(20000) % 50
            idx[bad] = 50
            out = np.full((20000, 16), 7, np.float32)
            with pytest.raises(athene.RunError, match="index 50 out of range"):
                k(table, idx, out=out)
            np.testing.assert_array_equal(out, 7)
        idx[19999] = 3
        np.testing.assert_array_equal(k(table, idx, out=out), want[idx])


def test_run_error_names_this_file_with_its_lines():
    with pytest.raises(athene.RunError) as e:
        mod.embed(randn(5, 3), np.array([9]))
    assert e.value.filename == __file__
    line = next(i for i, l in enumerate(open(__file__), 1) if "out[s, d] = table[wrap(idx[s], V), d]" in l)
    assert e.value.line == line
    assert e.value.col == 23


def test_compile_error_locations():
    src = "kernel bad(x: f32[4]) -> (y: f32[4]) {\n    y[i] = x[i + 1]\n}\n"
    with pytest.raises(athene.CompileError) as e:
        athene.compile(src, filename="mine.ath")
    assert re.match(r"mine\.ath:2:\d+: error: ", str(e.value)) and e.value.line == 2
    with pytest.raises(athene.CompileError) as e:
        athene.compile("kernel bad(x: f32[4]) -> (y: f32[4]) { y[i] = x[i + 1] }")
    assert e.value.filename == __file__  # the literal is in this file: its line and column
    line = next(i for i, l in enumerate(open(__file__), 1) if 'athene.compile("kernel bad(x: f32[4])' in l)
    assert e.value.line == line and e.value.col > 40
    with pytest.raises(athene.CompileError) as e:
        athene.compile(" ".join(["kernel bad(x: f32[4]) -> (y: f32[4])", "{ y[i] = x[i + 2] }"]))
    assert e.value.filename == "<string>"  # built at run time: not in the file
    with pytest.raises(athene.CompileError, match="error"):
        athene.compile("kernel (")


def test_sizes_at_compile_and_call():
    m = athene.compile("kernel iota(x: f32[]) -> (y: f32[N]) {\n    y[i] = f32(i) * x[]\n}\n", sizes={"N": 4})
    np.testing.assert_array_equal(m.iota(np.float32(2)), [0, 2, 4, 6])
    with pytest.raises(athene.CompileError, match="N"):
        m.iota(np.float32(2), sizes={"N": 5})  # bound to 4 by the module
    m2 = athene.compile("kernel iota(x: f32[]) -> (y: f32[N]) {\n    y[i] = f32(i) * x[]\n}\n")
    np.testing.assert_array_equal(m2.iota(np.float32(1), sizes={"N": 3}), [0, 1, 2])
    with pytest.raises(athene.CompileError, match="not bound"):
        m2.iota(np.float32(1))
    with pytest.raises(ValueError, match="no kernel has the size symbol"):
        athene.compile("kernel iota(x: f32[]) -> (y: f32[N]) {\n    y[i] = x[]\n}\n", sizes={"Q": 1})


def test_explain_and_plan():
    text = mod.embed.explain(sizes={"V": 100, "D": 64, "S": 8})
    assert "row gather" in text and "kernel embed  (target cpu)" in text
    plan = mod.embed.plan(randn(100, 64), np.zeros(8, np.int64), target="tpu")
    assert plan["kernel"] == "embed" and plan["target"] == "tpu"
    classes = [a["class"] for s in plan["statements"] for a in s["accesses"]]
    assert "row gather" in classes
    json.dumps(plan)
    t = mod.affine.explain(randn(4, 8).T, randn(4))
    assert "permuted" in t  # the transposed view's layout is in the binding
    assert "store y" in mod.affine.dump("simplify", sizes={"N": 2, "M": 3})
    with pytest.raises(athene.CompileError, match="unknown target"):
        mod.embed.explain(sizes={"V": 1, "D": 1, "S": 1}, target="gpu9")


def test_registry():
    k = athene.register("test.affine", SRC, kernel="affine")
    assert k.name == "affine"
    assert "test.affine" in athene.list()
    x, s = randn(2, 3), randn(3)
    np.testing.assert_allclose(athene.call("test.affine", x, s), x * s + 1, rtol=1e-6)
    out = np.empty((2, 3), np.float32)
    assert athene.call("test.affine", x, s, out=out) is out
    before = k.cache_info().compiles
    athene.call("test.affine", x, s)
    assert k.cache_info().compiles == before  # the same cache
    with pytest.raises(ValueError, match="already registered"):
        athene.register("test.affine", SRC, kernel="affine")
    athene.register("test.affine", mod.tsum, replace=True)
    assert athene.lookup("test.affine") is mod.tsum
    with pytest.raises(ValueError, match="pick one with kernel="):
        athene.register("test.many", SRC)
    with pytest.raises(ValueError, match="no kernel 'zzz'"):
        athene.register("test.many", SRC, kernel="zzz")
    athene.register("test.one", "kernel one(x: f32[N]) -> (y: f32[N]) {\n    y[i] = -x[i]\n}\n")
    np.testing.assert_array_equal(athene.call("test.one", np.float32([1, 2])), [-1, -2])
    athene.unregister("test.affine")
    athene.unregister("test.one")
    assert "test.affine" not in athene.list() and "test.one" not in athene.list()
    with pytest.raises(KeyError, match="no kernel registered"):
        athene.call("test.affine", x, s)
    with pytest.raises(KeyError):
        athene.unregister("test.affine")
    with pytest.raises(athene.CompileError):
        athene.register("test.bad", "kernel (")
    assert "test.bad" not in athene.list()


def test_public_api_has_docstrings_and_hints():
    import inspect
    for name in athene.__all__:
        obj = getattr(athene, name)
        if callable(obj) and not isinstance(obj, type):
            assert obj.__doc__, name
            assert inspect.signature(obj).return_annotation is not inspect.Signature.empty, name
    for meth in ("__call__", "explain", "plan", "dump", "layouts", "cache_info", "storage_pointers"):
        assert getattr(athene.Kernel, meth).__doc__, meth


def test_failing_reduction_leaves_out_untouched():
    m = athene.compile("kernel rmax(x: f32[N, K]) -> (y: f32[N]) {\n    y[i] = max(k: x[i, k])\n}\n")
    out = np.full(3, 5, np.float32)
    with pytest.raises(athene.RunError, match="empty range"):
        m.rmax(np.zeros((3, 0), np.float32), out=out)
    np.testing.assert_array_equal(out, 5)
    np.testing.assert_array_equal(m.rmax(np.ones((3, 2), np.float32), out=out), 1)


def test_big_outputs_are_aligned_and_freed():
    # outputs of 32 MiB and more come from athene_alloc (2 MiB-aligned) and go with their last
    # view; from 1 MiB on they start on a 64-byte line
    cp = athene.compile("kernel cp(x: f32[N]) -> (y: f32[N]) {\n    y[i] = x[i] + 1.0\n}\n").cp
    x = np.zeros(16 << 20, np.float32)

    def rss_mib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20

    y = cp(x)
    assert y.ctypes.data % (2 << 20) == 0 and y.flags.writeable and y[7] == 1
    tail = y[5:]
    del y
    assert tail[0] == 1  # a view keeps the storage alive
    del tail
    before = rss_mib()
    for _ in range(20):  # 1.25 GiB in all, if nothing were freed
        cp(x)[::2].sum()
    assert rss_mib() - before < 256
    mid = cp(np.zeros(1 << 20, np.float32))
    assert mid.ctypes.data % 64 == 0 and mid.flags.writeable and mid[5] == 1 and mid.shape == (1 << 20,)
    small = cp(np.zeros(16, np.float32))
    assert small.ctypes.data % 16 == 0 and small[3] == 1


@pytest.mark.parametrize("value,want", [("3", 3), ("37abc", None), ("foo", None), (" 4", None), ("", None),
                                        ("-2", None), ("100000", 256)])
def test_threads_env(value, want):
    """ATHENE_THREADS as a whole decimal number sets the default thread count (at most 256);
    anything else is no value: one thread per online CPU."""
    env = dict(os.environ, ATHENE_THREADS=value)
    r = subprocess.run([sys.executable, "-c", "import athene; print(athene.threads())"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) == (want if want is not None else os.cpu_count())
