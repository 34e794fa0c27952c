"""Every example kernel emitted as a Pallas module, run by JAX's interpreter on the CPU
(interpret=True), and checked against NumPy (the CASES table of tests/test_examples.py) and
against athene's reference interpreter on the same storage.

The full-size permutations (FULL_SIZE in tests/test_examples.py, 2-10M elements) take a few
seconds each in JAX's interpreter (all 49 together about two minutes here): by default
INTERPRETED_FULL_SIZE run, one per family; every full-size kernel has a scaled twin with the
same index structure that always runs, and ATHENE_TEST_ALL=1 (`make test-all`, which CI runs)
runs every one."""
import os

import numpy as np
import pytest

import athene_lib as A
import test_examples as TE
from pallas_cases import value

INTERPRETED_FULL_SIZE = {"view_T_2048x2048", "perm3_2x1152x2048_201_collapsed",
                         "perm3_2x1152x2048_120_divmod", "perm4_2x4x128x2048_3120"}
ALL = os.environ.get("ATHENE_TEST_ALL", "") not in ("", "0")
KERNELS = sorted(k for k in TE.CASES if ALL or not TE.FULL_SIZE.match(k) or k in INTERPRETED_FULL_SIZE)
TOL = {np.dtype(np.float16): (2e-3, 2e-3), np.dtype(np.float32): (2e-5, 2e-5),
       np.dtype(np.float64): (1e-12, 1e-12)}


def compare(name, got, exp, tol):
    """got (a Pallas or reference output) against exp (NumPy's, or a BF16)."""
    if isinstance(exp, TE.BF16):
        got = TE.BF16(np.asarray(got, np.float32))
    else:
        exp = np.asarray(exp)
        tol = tol if tol is not None else TOL.get(exp.dtype)
    TE.compare(name, got, exp, tol)


@pytest.mark.parametrize("kernel", KERNELS)
def test_interpret(kernel, modules):
    mod, cases = modules.get(TE.CASES[kernel].file)
    c = cases[kernel]
    out = getattr(mod, kernel)(*c.args(), interpret=True)
    got = c.logical_outputs(out if isinstance(out, tuple) else (out,))
    ref = c.kernel.reference(c.storages())
    assert not isinstance(ref, str), ref
    refs = c.logical_outputs(ref)
    for name, exp in c.expected.items():
        compare(f"{kernel}.{name} vs NumPy", got[name], exp, c.case.tol)
        r = refs[name]
        compare(f"{kernel}.{name} vs the reference interpreter", got[name],
                TE.BF16(np.asarray(r, np.float32)) if isinstance(exp, TE.BF16) else r, c.case.tol)


def test_every_example_kernel_is_emitted(modules):
    """Each kernel of every example file (but bad_index.ath) has its entry point and _pure."""
    import os
    for f in sorted(os.listdir(A.EXAMPLES)):
        if not f.endswith(".ath") or f == "bad_index.ath":
            continue
        mod, cases = modules.get(f)
        for k in cases:
            assert callable(getattr(mod, k)) and callable(getattr(mod, k + "_pure")), k
