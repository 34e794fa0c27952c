"""How athene.torch runs its kernels: the per-call C entry (the extension athene._fast) —
results through it against eager, which calls take it (stats()["fast_calls"]) and which go the
ctypes way, its errors, the runtime without it — and the thread count athene runs them on."""

import ctypes
import os
import subprocess
import sys
import textwrap
import threading

import pytest
import torch

import athene
import athene.torch as at
from athene import _lib
from athene.torch import _runtime
from torch._inductor import config as inductor_config
from torch._inductor.codecache import PyCodeCache
from torch._inductor.utils import run_and_get_code

pytestmark = pytest.mark.usefixtures("private_inductor_cache")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def R(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=dtype)


def compiled(fn, dynamic=False):
    torch._dynamo.reset()
    return torch.compile(fn, backend="athene", dynamic=dynamic)


def run(fn, *args, dynamic=False):
    """fn compiled with athene and called on args (codegen run): (result, generated code)."""
    torch._dynamo.reset()
    with inductor_config.patch(fx_graph_cache=False):
        out, codes = run_and_get_code(torch.compile(fn, backend="athene", dynamic=dynamic), *args)
    return out, "\n".join(codes)


def fast_calls():
    return at.stats()["fast_calls"]


def kernels():
    """The athene kernels of the generated wrapper modules loaded so far, newest last."""
    return [getattr(m, n) for m in PyCodeCache.modules for n in sorted(vars(m)) if n.startswith("athene_kernel_")]


def test_extension_is_used():
    mod = _runtime.fast_module()
    assert mod is not None, "athene._fast is not built: `make build/_fast.so` (needs Python's headers)"
    out, code = run(lambda x: x * 2 + 1, R(64))
    k = kernels()[-1]
    assert type(k).__module__ == "athene._fast" and type(k).__name__ == "Kernel"
    assert isinstance(k.slow, _runtime.Kernel)


def test_static_shapes_every_call_fast():
    f = compiled(lambda x, y: torch.relu(x) * y + 1)
    for _ in range(3):
        x, y = R(8, 8), R(8, 8)
        before = fast_calls()
        torch.testing.assert_close(f(x, y), torch.relu(x) * y + 1)
        assert fast_calls() == before + 1
    assert kernels()[-1].stats() == {"calls": 3, "slow_calls": 0, "bindings": 1, "saving": 0}


def test_dynamic_shapes_one_binding_per_size():
    f = compiled(lambda x: torch.softmax(x * 2, -1), dynamic=True)
    sizes = [(3, 5), (4, 7), (9, 2), (3, 5)]
    for s in sizes:
        x = R(*s)
        before = fast_calls()
        torch.testing.assert_close(f(x), torch.softmax(x * 2, -1))
        assert fast_calls() == before + 1
    st = kernels()[-1].stats()
    assert st["bindings"] == 3 and st["slow_calls"] == 0


def test_dynamic_shapes_more_sizes_than_bindings_held():
    f = compiled(lambda x: x.cos() + x, dynamic=True)
    for n in list(range(2, 22)) + [2, 3]:
        x = R(n)
        torch.testing.assert_close(f(x), x.cos() + x)
    st = kernels()[-1].stats()
    assert st["bindings"] == 8 and st["calls"] == 22 and st["slow_calls"] == 0


def test_outputs_that_are_views():
    def f(x, y):
        return (x * 2).t(), torch.cat([x + 1, y * 3], 1)

    x, y = R(6, 10), R(6, 3)
    before = fast_calls()
    out, _ = run(f, x, y)
    torch.testing.assert_close(out, f(x, y))
    assert fast_calls() > before


def test_strided_and_offset_inputs():
    x = R(8, 33)[1:, 1::2]
    before = fast_calls()
    out, _ = run(lambda a: a * 2 + 1, x)
    torch.testing.assert_close(out, x * 2 + 1)
    assert fast_calls() == before + 1


def test_in_place_on_an_input():
    def f(x, y):
        x.mul_(2)
        return x + y

    x, y = R(16), R(16)
    x2 = x.clone()
    out, _ = run(f, x, y)
    torch.testing.assert_close(out, f(x2, y))
    torch.testing.assert_close(x, x2)  # written in place


def test_zero_size():
    x, y = R(0, 4), R(3, 4)
    out, _ = run(lambda a, b: (a * 2, b + 1), x, y)
    torch.testing.assert_close(out, (x * 2, y + 1))
    f = compiled(lambda a: a.exp() * 3, dynamic=True)
    for n in (0, 5, 0):
        x = R(n, 3)
        torch.testing.assert_close(f(x), x.exp() * 3)


def test_index_error_raises_and_leaves_the_output_as_it_was():
    def f(a, i, o):
        o.copy_(a[i] * 2)
        return o.sum()

    a, o = R(16, 8), R(3, 8)
    g = compiled(f)
    g(a, torch.tensor([1, 2, 3]), o)
    torch.testing.assert_close(o, a[[1, 2, 3]] * 2)
    kept = o.clone()
    before = at.stats()
    with pytest.raises(athene.RunError, match=r"index 16 out of range for dim 0 of 'arg\d+_1' \(size 16"):
        g(a, torch.tensor([1, 16, 3]), o)
    assert torch.equal(o, kept)
    after = at.stats()
    assert after["fast_calls"] > before["fast_calls"]


def test_failing_runs_that_may_write_save_small_outputs():
    """A kernel whose failing run may write part of an output (not a plain row gather: a gather
    with a reduction after it) takes the C entry too: it saves its outputs before each run and
    puts them back when the run fails."""
    def f(a, i, o):  # one kernel: the gather, its rows' sums and o
        o.copy_(a[i] * 2 + a[i].sum(1, keepdim=True))
        return o

    a, o = R(16, 8), R(3, 8)
    g = compiled(f)
    old = {id(k) for k in kernels()}
    g(a, torch.tensor([1, -2, 3]), o)
    torch.testing.assert_close(o, a[[1, -2, 3]] * 2 + a[[1, -2, 3]].sum(1, keepdim=True))
    saving = [k for k in kernels() if id(k) not in old and k.stats()["saving"]]
    assert saving, "no kernel saves its outputs: the test does not reach the path it checks"
    kept = o.clone()
    calls = sum(k.stats()["calls"] for k in saving)
    slow = sum(k.stats()["slow_calls"] for k in saving)
    for bad in ([1, 16, 3], [0, 1, -17]):
        with pytest.raises(athene.RunError, match=r"out of range for dim 0"):
            g(a, torch.tensor(bad), o)
        assert torch.equal(o, kept)
    assert sum(k.stats()["calls"] for k in saving) > calls
    assert sum(k.stats()["slow_calls"] for k in saving) == slow


def test_overlapping_output_goes_the_ctypes_way():
    """An output whose storage overlaps an input's is written through a temporary."""
    g = compiled(lambda x: x[:-1] + x[1:])
    x = R(9)
    torch.testing.assert_close(g(x), x[:-1] + x[1:])
    k = kernels()[-1]
    slow = k.stats()["slow_calls"]
    buf = R(9)
    ref = buf[:-1] + buf[1:]
    k(buf, buf)  # out over in's storage
    torch.testing.assert_close(buf[:8], ref)
    assert k.stats()["slow_calls"] == slow + 1


def test_bad_arguments():
    g = compiled(lambda x: x * 2)
    g(R(4))
    k = kernels()[-1]
    with pytest.raises(TypeError, match="takes 2 arguments, 1 given"):
        k(R(4))
    with pytest.raises(TypeError, match="not a tensor"):
        k(R(4), [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(TypeError, match="no keyword arguments"):
        k(R(4), out=R(4))


def test_first_call_of_a_binding_checks_the_tensors():
    g = compiled(lambda x: x * 2, dynamic=True)
    g(R(4))
    k = kernels()[-1]
    assert k.slow.meta["args"] == ["in_ptr0", "out_ptr0", "ks0"]
    with pytest.raises(ValueError, match=r"'arg\d+_1' has 3 elements; Inductor's layout reaches 5"):
        k(R(3), R(5), 5)
    with pytest.raises(TypeError, match="f32, but the tensor given for it is torch.float64"):
        k(R(6, dtype=torch.float64), R(6), 6)
    x, out = R(7), R(7)
    k(x, out, 7)
    torch.testing.assert_close(out, x * 2)
    assert k.stats()["slow_calls"] == 0


def test_threads_calling_one_graph():
    """Eight threads calling one graph get, every time, the bits one thread gets alone (athene's
    tanh is the correctly rounded one, which eager's float tanh misses by an ulp at about one
    element in 7,000: against eager, within tolerance)."""
    g = compiled(lambda x: torch.tanh(x) * 3)
    xs = [R(256) for _ in range(8)]
    want = [g(x) for x in xs]
    for x, w in zip(xs, want):
        torch.testing.assert_close(w, torch.tanh(x) * 3)
    errors = []

    def work(x, w):
        for _ in range(50):
            if not torch.equal(g(x), w):
                errors.append(x)

    ts = [threading.Thread(target=work, args=(x, w)) for x, w in zip(xs, want)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


def test_run_checked_refuses_short_storage():
    """athene_run_checked itself: a storage that does not hold the layout is refused before the
    run, nothing written."""
    k = athene.compile("kernel k(a: f32[8] strides(2)) -> (b: f32[8] strides(1) offset 0) {\n"
                       "    b[i] = a.flat[2 * i] + 1\n}\n").k
    inst = k._bound((), {}, None)
    a = (ctypes.c_float * 15)(*range(15))
    b = (ctypes.c_float * 8)(*([7.0] * 8))
    storage = (ctypes.c_void_p * 2)(ctypes.addressof(a), ctypes.addressof(b))
    st = _lib.Status()
    rc = _lib.lib.athene_run_checked(inst.ptr, storage, _lib.i64_array([14, 8]), 0, ctypes.byref(st))
    assert rc == -2 and st.failed
    assert _lib.text(st.message) == "kernel k: the storage given for 'a' has 14 elements; its layout reaches 15"
    assert list(b) == [7.0] * 8
    storage[1] = None
    assert _lib.lib.athene_run_checked(inst.ptr, storage, _lib.i64_array([15, 8]), 0, ctypes.byref(st)) == -2
    assert "'b' has 8 elements at NULL" in _lib.text(st.message)
    storage[1] = ctypes.addressof(b)
    assert _lib.lib.athene_run_checked(inst.ptr, storage, _lib.i64_array([15, 8]), 0, ctypes.byref(st)) == 0
    assert list(b) == [2.0 * i + 1 for i in range(8)] and not st.failed
    k._free(inst)


SCRIPT = textwrap.dedent("""
    import logging, torch
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    import athene.torch as at
    f = torch.compile(lambda x: x * 2 + 1, backend="athene")
    g = torch.compile(lambda x, y: torch.cat([x, y]).sin(), backend="athene")
    x, y = torch.randn(64), torch.randn(5)
    for _ in range(3):
        assert torch.equal(f(x), x * 2 + 1)
        torch.testing.assert_close(g(x, y), torch.cat([x, y]).sin())
    s = at.stats()
    print("calls", s["calls"], "fast", s["fast_calls"], "fallbacks", s["fallbacks"])
""")


@pytest.fixture(scope="module")
def extension_runs(tmp_path_factory):
    """SCRIPT in a fresh process per setting of ATHENE_FAST (read once, at import), the four
    processes at once, each with its own Inductor cache: setting -> (returncode, stdout, stderr)."""
    base = tmp_path_factory.mktemp("fast")
    (base / "bad.so").write_bytes(b"not a shared object")
    fast = {"0": "0", "missing": str(base / "none.so"), "not_a_module": str(base / "bad.so"), "used": None}
    procs = {}
    for setting, value in fast.items():
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(base / ("cache_" + setting)))
        env.pop("ATHENE_FAST", None)
        if value is not None:
            env["ATHENE_FAST"] = value
        procs[setting] = subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, text=True,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = {}
    for setting, proc in procs.items():
        try:
            stdout, stderr = proc.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            stderr += "\n(killed after 600 s)"
        out[setting] = (proc.returncode, stdout, stderr)
    return out


@pytest.mark.parametrize("setting", ["0", "missing", "not_a_module"])
def test_without_the_extension_ctypes_and_one_log_line(setting, extension_runs):
    rc, stdout, stderr = extension_runs[setting]
    assert rc == 0, stderr
    lines = [ln for ln in stderr.splitlines() if "athene._fast is not used" in ln]
    assert len(lines) == 1, stderr
    assert {"0": "ATHENE_FAST=0", "missing": "not found", "not_a_module": "does not load"}[setting] in lines[0]
    calls, fast, fallbacks = (int(v) for v in stdout.split()[1::2])
    assert calls >= 6 and fast == 0 and fallbacks == 0


def test_with_the_extension_no_log_line(extension_runs):
    rc, stdout, stderr = extension_runs["used"]
    assert rc == 0, stderr
    assert "athene._fast" not in stderr
    calls, fast, fallbacks = (int(v) for v in stdout.split()[1::2])
    assert calls >= 6 and fast == calls and fallbacks == 0


def test_threads_follow_torch_unless_given():
    t, tt = athene.threads(), torch.get_num_threads()
    try:
        athene.set_threads(3)
        for n in (1, 2):
            torch.set_num_threads(n)
            out, _ = run(lambda a: a + 1, R(4))
            assert athene.threads() == n
        torch.set_num_threads(1)
        torch._dynamo.reset()
        with inductor_config.patch(fx_graph_cache=False):
            torch.compile(lambda a: a * 3, backend="athene", options={"threads": 3})(R(4))
        assert athene.threads() == 3
    finally:
        torch.set_num_threads(tt)
        athene.set_threads(t)
