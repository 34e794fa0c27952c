"""The modules of `athene emit --target pallas-gpu`: Pallas's Triton lowering, checked on this
CPU-only machine by lowering every emitted kernel's K_pure for "cuda"
(jax.jit(f).trace(...).lower(lowering_platforms=("cuda",))), and run in JAX's interpreter against
NumPy and the reference interpreter.

A kernel whose plan does not fit the GPU would be left out of the module with a comment giving the
reason (docs/pallas.md lists them): REFUSED has a fragment of each reason, and a kernel is left out
exactly when it is listed. Today none is."""
import functools
import inspect
import re

import jax
import numpy as np
import pytest

import test_examples as TE
from test_interpret import KERNELS as INTERPRETED, compare

KERNELS = sorted(TE.CASES)

# kernel -> fragment of the reason the module gives for leaving it out
REFUSED = {}


def refusal(mod, kernel):
    m = re.search(r"^# ---- kernel %s: not emitted for pallas-gpu: (.*)$" % re.escape(kernel), mod.TEXT, re.M)
    return m and m.group(1)


@pytest.mark.parametrize("kernel", KERNELS)
def test_lower_cuda(kernel, modules):
    mod, cases = modules.get(TE.CASES[kernel].file, "pallas-gpu")
    why = refusal(mod, kernel)
    if kernel in REFUSED:
        assert why and REFUSED[kernel] in why, (kernel, why)
        assert not hasattr(mod, kernel + "_pure")
        return
    assert why is None, (kernel, why)
    avals = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in cases[kernel].args()]
    f = jax.jit(functools.partial(getattr(mod, kernel + "_pure"), interpret=False))
    text = f.trace(*avals).lower(lowering_platforms=("cuda",)).as_text()
    # a Triton kernel, unless every statement runs in XLA (a product reduction) or has no elements
    calls = text.count("__gpu$xla.gpu.triton")
    source = inspect.getsource(getattr(mod, kernel + "_pure"))
    assert calls >= source.count("pl.pallas_call("), kernel
    assert calls or "# in XLA: " in source or not any(
        np.prod(s.shape) for s in jax.tree.leaves(jax.eval_shape(f, *avals))), kernel


@pytest.mark.parametrize("kernel", [k for k in INTERPRETED if k not in REFUSED])
def test_interpret_gpu_module(kernel, modules):
    mod, cases = modules.get(TE.CASES[kernel].file, "pallas-gpu")
    c = cases[kernel]
    out = getattr(mod, kernel)(*c.args(), interpret=True)
    got = c.logical_outputs(out if isinstance(out, tuple) else (out,))
    for name, exp in c.expected.items():
        compare(f"{kernel}.{name} vs NumPy", got[name], exp, c.case.tol)


def test_out_of_range_index_raises(modules):
    """The gpu's checks: per-element counts and values, the first element's in the message."""
    mod, _ = modules.get("gather.ath", "pallas-gpu")
    table = np.zeros((16, 8), np.float32)
    idx = np.zeros(12, np.int64)
    idx[5] = 16
    with pytest.raises(IndexError, match=r"kernel gather_wrap: index 16 out of range for dim 0 of 'table' "
                                         r"\(size 16; wrap\(\) accepts \[-16, 16\)\) at y\[5, 0\]"):
        mod.gather_wrap(table, idx, interpret=True)
    a, b = np.zeros(32, np.float32), np.zeros(20, np.float32)
    i0, i1 = np.arange(10, dtype=np.int64), np.arange(10, dtype=np.int32)
    i1[7] = 20
    with pytest.raises(IndexError, match=r"index 20 out of range for dim 0 of 'b' \(size 20\) at y\[7\]"):
        mod.gather_two(a, b, i0, i1, interpret=True)
    t = np.zeros(64, np.float32)
    idx = np.array([0, 1, 2, 15, 3, 4], np.int64)
    with pytest.raises(IndexError, match=r"flat offset 64 is out of range for the storage of 't' \(64 elements\) "
                                         r"at y\[3, 0\]"):
        mod.gather_flat_next_row(t, idx, interpret=True)


def test_reduction_over_a_gathered_bag_raises(modules):
    mod, _ = modules.get("reduce.ath", "pallas-gpu")
    table = np.zeros((20, 8), np.float32)
    idx = np.zeros((3, 5), np.int64)
    idx[1, 3] = 20
    with pytest.raises(IndexError, match=r"index 20 out of range for dim 0 of 'table' \(size 20\) at y\[1, 0\]"):
        mod.embedding_bag_sum(table, idx, interpret=True)
