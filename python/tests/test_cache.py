"""The cache of compiled instances: one compile per binding, flat memory, threads."""

import gc
import threading

import numpy as np

import athene

SRC = """
kernel add(a: f32[N], b: f32[N]) -> (c: f32[N]) {
    c[i] = a[i] + b[i]
}
kernel rowsum(x: f32[R, C]) -> (y: f32[R]) {
    y[r] = sum(c: x[r, c])
}
"""


def test_second_call_compiles_nothing():
    mod = athene.compile(SRC)
    a, b = np.ones(8, np.float32), np.arange(8, dtype=np.float32)
    mod.add(a, b)
    info, total = mod.add.cache_info(), athene.compile_count()
    assert info.compiles == 1 and info.hits == 0
    for _ in range(3):
        np.testing.assert_array_equal(mod.add(a, b), a + b)
        mod.add(a.copy(), b.copy())  # other arrays, same binding
    assert mod.add.cache_info().compiles == 1 and mod.add.cache_info().hits == 6
    assert athene.compile_count() == total
    mod.add(a[::2], b[::2])  # another binding: one more compile
    mod.add(a[::-1], b)
    assert mod.add.cache_info().compiles == 3 and mod.add.cache_info().entries == 3


def test_key_has_sizes_and_layouts():
    mod = athene.compile(SRC)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for v in (x, x.T, x[:, ::2], x[::-1], np.broadcast_to(x[:1], (3, 4)), x, x.T):
        np.testing.assert_allclose(mod.rowsum(v), v.sum(1))
    assert mod.rowsum.cache_info().compiles == 5
    assert mod.rowsum.cache_info().hits == 2


def test_ten_thousand_calls_alternating_shapes_keep_memory_flat():
    mod = athene.compile(SRC)
    arrays = [(np.ones(n, np.float32), np.full(n, 2, np.float32)) for n in (16, 17, 1000)]
    views = [(a[::2], b[::2]) for a, b in arrays]
    for a, b in arrays + views:  # warm: every binding compiled once
        mod.add(a, b)
    gc.collect()  # earlier tests' garbage (their instances' arenas) is not freed inside the loop
    before = athene.memory_in_use()
    for i in range(10000):
        a, b = (arrays + views)[i % 6]
        c = mod.add(a, b)
    assert c[0] == 3
    after = athene.memory_in_use()
    assert after == before, (before, after)
    assert mod.add.cache_info().compiles == 6


def test_evicted_instances_are_freed():
    mod = athene.compile(SRC)
    base = athene.memory_in_use()
    for n in range(1, 3 * athene.CACHE_LIMIT):
        mod.add(np.ones(n, np.float32), np.ones(n, np.float32))
    assert mod.add.cache_info().entries == athene.CACHE_LIMIT
    full = athene.memory_in_use()
    for n in range(3 * athene.CACHE_LIMIT, 6 * athene.CACHE_LIMIT):
        mod.add(np.ones(n, np.float32), np.ones(n, np.float32))
    assert athene.memory_in_use() <= full * 1.1, (base, full, athene.memory_in_use())
    mod.add.cache_clear()
    assert mod.add.cache_info().entries == 0
    assert athene.memory_in_use() < full


def test_modules_free_their_memory():
    import gc
    gc.collect()
    base = athene.memory_in_use()
    mod = athene.compile(SRC)
    mod.add(np.ones(4, np.float32), np.ones(4, np.float32))
    assert athene.memory_in_use() > base
    del mod
    gc.collect()
    assert athene.memory_in_use() == base


def test_two_threads_at_once():
    mod = athene.compile(SRC)
    errors = []
    rng = np.random.default_rng(3)
    data = [rng.standard_normal((n, 64)).astype(np.float32) for n in (50, 51)]

    def work(t):
        try:
            for i in range(300):
                x = data[(i + t) % 2]
                v = x if i % 3 else x[::-1]
                np.testing.assert_allclose(mod.rowsum(v), v.sum(1), rtol=1e-4, atol=1e-4)
                a = x[0]
                np.testing.assert_array_equal(mod.add(a, a), a + a)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[0]
    # at most one extra instance per binding for the second thread
    assert mod.rowsum.cache_info().entries == 4
    assert mod.rowsum.cache_info().compiles <= 8


def test_least_recently_used_binding_is_evicted():
    mod = athene.compile(SRC)
    first = (np.ones(1, np.float32), np.ones(1, np.float32))
    mod.add(*first)
    for n in range(2, athene.CACHE_LIMIT + 5):
        mod.add(*first)  # kept in use: never the least recently used
        mod.add(np.ones(n, np.float32), np.ones(n, np.float32))
    before = mod.add.cache_info().compiles
    mod.add(*first)
    assert mod.add.cache_info().compiles == before


def test_the_gil_is_released_while_a_kernel_runs():
    """While one thread is inside a kernel, the main thread runs Python code. The switch
    interval is set far beyond the kernel's run, so that were the GIL held for the call, the
    main thread (woken by the event) would get it only once the worker had finished, and count
    nothing. Released, it counts all through the run."""
    import sys

    mod = athene.compile("""
kernel heavy(x: f32[N]) -> (y: f32[M]) {
    y[i] = sum(k: exp(x[k] * 0.001) * f32(i))
}
""", sizes={"M": 2000})
    x = np.ones(2000, np.float32)
    mod.heavy(x[:10])  # the compile out of the way
    state = {"done": False}
    started = threading.Event()

    def work():
        started.set()
        state["y"] = mod.heavy(x)
        state["done"] = True

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        th = threading.Thread(target=work)
        th.start()
        started.wait()
        ticks = 0
        while not state["done"]:
            ticks += 1
        th.join()
    finally:
        sys.setswitchinterval(old)
    assert ticks > 0
    np.testing.assert_allclose(state["y"][:3], np.arange(3) * 2000 * np.exp(np.float32(0.001)), rtol=1e-4)
