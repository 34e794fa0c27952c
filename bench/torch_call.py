"""Per-call cost of a one-kernel graph through athene's PyTorch backend, beside Inductor's C++
backend, in one run.

The graph is `x * 2 + 1` on 64 float32 elements: one fused kernel, so what a call costs is
Dynamo's guards, the generated wrapper (one `empty_strided` and the kernel call) and the kernel
call itself. Prints microseconds per call, the best of several rounds, the variants interleaved
within a round so that a busy machine slows them alike:

- the compiled function, `backend="athene"` and `backend="inductor"` (C++ kernels);
- the kernel object of each generated wrapper called alone on the same tensors: athene's C entry
  (athene._fast), athene's ctypes path (the package's `Kernel.__call__`, which the C entry falls
  back to), and Inductor's C++ kernel (a METH_FASTCALL binding of its own);
- the differences athene - Inductor, the per-kernel call overhead issue 39 bounds (1 us).

Run from the project root with the package importable (installed, or `PYTHONPATH=python` with
`ATHENE_LIBRARY` and the extension built by `make`):

    python bench/torch_call.py [calls per round] [rounds]
"""

import os
import sys
import tempfile
import timeit

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="athene-bench-"))

import torch  # noqa: E402
from torch._inductor.codecache import PyCodeCache  # noqa: E402

import athene.torch as at  # noqa: E402
from athene.torch import _runtime  # noqa: E402


def best_of(fns, number, repeat):
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], timeit.timeit(fn, number=number) / number * 1e6)
    return best


def f_athene(x):
    return x * 2 + 1


def f_inductor(x):
    return x * 2 + 1


def kernel_of(prefix):
    """The kernel object named prefix... in the newest generated wrapper module that has one."""
    for mod in reversed(PyCodeCache.modules):
        for name in sorted(vars(mod)):
            if name.startswith(prefix):
                return name, getattr(mod, name)
    raise SystemExit(f"no generated kernel named {prefix}*")


def main():
    number = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    torch.set_num_threads(1)
    x = torch.randn(64)
    ga = torch.compile(f_athene, backend="athene")
    ya = ga(x)
    _, ka = kernel_of("athene_kernel_")
    gi = torch.compile(f_inductor, backend="inductor")
    yi = gi(x)
    ni, ki = kernel_of("cpp_fused")
    assert torch.equal(ya, x * 2 + 1) and torch.equal(yi, ya)
    assert at.fallbacks() == 0
    out = torch.empty(64)
    fast = _runtime.fast_module() is not None and hasattr(ka, "slow")
    slow = ka.slow if fast else ka
    fns = [lambda: ga(x), lambda: gi(x), lambda: ki(x, out), lambda: slow(x, out)]
    names = ["graph, athene", "graph, Inductor C++", f"kernel alone, Inductor C++ ({ni})", "kernel alone, athene ctypes"]
    if fast:
        fns.append(lambda: ka(x, out))
        names.append("kernel alone, athene C entry")
    t = best_of(fns, number, repeat)
    print(f"torch {torch.__version__}, 64 float32 elements, best of {repeat} rounds of {number} calls, "
          f"torch threads {torch.get_num_threads()}, athene threads {at.athene.threads()}, "
          f"athene C entry {'on' if fast else 'off (ctypes)'}")
    for n, v in zip(names, t):
        print(f"  {n:40s} {v:8.2f} us")
    print(f"  {'graph, athene - Inductor C++':40s} {t[0] - t[1]:8.2f} us")
    print(f"  {'kernel, athene ctypes - Inductor C++':40s} {t[3] - t[2]:8.2f} us")
    if fast:
        print(f"  {'kernel, athene C entry - Inductor C++':40s} {t[4] - t[2]:8.2f} us")


if __name__ == "__main__":
    main()
