"""Per-call overhead of the Python package on a tiny kernel, beside NumPy's own `a + b`.

Run with the package installed (`make bench` installs it into .venv). Prints microseconds per
call, the best of several rounds, for the same 16-element float32 arrays: NumPy `a + b`, athene
allocating its output, athene into out=, and athene on a strided view (a[::2] + b[::2]); then
the library's own athene_run on the same compiled instance (called straight through ctypes),
so that what the package adds is the difference."""

import sys
import timeit

import numpy as np

import athene

mod = athene.compile("""
kernel add(a: f32[N], b: f32[N]) -> (c: f32[N]) {
    c[i] = a[i] + b[i]
}
""")


def best_of(fns, number, repeat=9):
    """Microseconds per call of each function: the best of `repeat` rounds, the functions
    interleaved within a round so that a busy machine slows them alike."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], timeit.timeit(fn, number=number) / number * 1e6)
    return best


def main():
    number = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    a = np.arange(16, dtype=np.float32)
    b = np.ones(16, np.float32)
    out = np.empty(16, np.float32)
    av, bv = np.arange(32, dtype=np.float32)[::2], np.ones(32, np.float32)[::2]
    add = mod.add
    assert np.array_equal(add(a, b), a + b) and np.array_equal(add(av, bv), av + bv)
    add(a, b, out=out)
    compiles = add.cache_info().compiles
    assert add.cache_info().compiles == compiles, "the timed calls compiled"
    # the library alone: athene_run on the cached instance of add(a, b), through ctypes
    from athene import _core, _lib
    key, _, _ = add._key([a, b], None, None)
    inst = add._cache[key].idle[0]
    for i, x in enumerate((a, b, out)):
        inst.storage[i] = _core._addr(x)
    run, ptr, storage, st = _lib.lib.athene_run, inst.ptr, inst.storage, inst.status
    names = ["numpy a + b", "numpy np.add(a, b, out=out)", "athene add(a, b)", "athene add(a, b, out=out)",
             "athene add(a[::2], b[::2])", "athene_run alone (ctypes)"]
    fns = [lambda: a + b, lambda: np.add(a, b, out=out), lambda: add(a, b), lambda: add(a, b, out=out),
           lambda: add(av, bv), lambda: run(ptr, storage, 0, st)]
    times = best_of(fns, number)
    assert add.cache_info().compiles == compiles, "the timed calls compiled"
    rows = list(zip(names, times))
    bare = times[-1]
    print(f"python per-call overhead, f32[16], best of 9 x {number} calls, {athene.threads()} threads")
    for name, us in rows:
        print(f"  {name:32s} {us:7.2f} us")
    print(f"  {'package overhead of add(a, b)':32s} {rows[2][1] - bare:7.2f} us  (add(a, b) less athene_run)")


if __name__ == "__main__":
    main()
