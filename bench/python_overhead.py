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


def best(fn, number, repeat=7):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


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
    rows = [
        ("numpy a + b", best(lambda: a + b, number)),
        ("numpy np.add(a, b, out=out)", best(lambda: np.add(a, b, out=out), number)),
        ("athene add(a, b)", best(lambda: add(a, b), number)),
        ("athene add(a, b, out=out)", best(lambda: add(a, b, out=out), number)),
        ("athene add(a[::2], b[::2])", best(lambda: add(av, bv), number)),
    ]
    assert add.cache_info().compiles == compiles, "the timed calls compiled"
    # the library alone: athene_run on the cached instance of add(a, b), through ctypes
    from athene import _core, _lib
    key, _, _ = add._key([a, b], None, None)
    inst = add._cache[key].idle[0]
    for i, x in enumerate((a, b, out)):
        inst.storage[i] = _core._addr(x)
    run, ptr, storage, st = _lib.lib.athene_run, inst.ptr, inst.storage, inst.status
    bare = best(lambda: run(ptr, storage, 0, st), number)
    rows.append(("athene_run alone (ctypes)", bare))
    print(f"python per-call overhead, f32[16], best of 7 x {number} calls, {athene.threads()} threads")
    for name, us in rows:
        print(f"  {name:32s} {us:7.2f} us")
    print(f"  {'package overhead of add(a, b)':32s} {rows[2][1] - bare:7.2f} us  (add(a, b) less athene_run)")


if __name__ == "__main__":
    main()
