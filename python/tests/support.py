"""Shared helpers of the package's tests: the example table of tests/test_examples.py (the
source of truth for every example kernel's NumPy expectation) and array layouts to call with."""

import re
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
sys.path.insert(0, str(REPO / "tests"))

import test_examples as te  # noqa: E402  (the CASES table)

import athene  # noqa: E402

BF16 = athene.BFLOAT16

_modules = {}


def example_module(file):
    """The compiled module of an example file (one per file per session)."""
    if file not in _modules:
        _modules[file] = athene.load(str(EXAMPLES / file))
    return _modules[file]


def logical(value):
    """A table value (ndarray, or te.BF16) as the array the package takes for that dtype."""
    if isinstance(value, te.BF16):
        return te.bf16_bits(value.values).view(BF16)
    return np.asarray(value)


def as_table_value(arr):
    """A result of the package in the form te.compare expects."""
    if arr.dtype == BF16:
        return te.BF16(np.asarray(arr).astype(np.float32))
    return np.asarray(arr)


# ---- layouts: each returns an array equal to `a` whose memory is laid out differently

def contiguous(a):
    return np.asarray(a, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)


def fortran(a):
    """Transposed storage (column-major)."""
    return np.asarray(a, order="F")


def reversed_axes(a):
    """Every axis of size > 1 with a negative stride."""
    if a.ndim == 0:
        return a
    flip = tuple(slice(None, None, -1) for _ in range(a.ndim))
    return np.asarray(a[flip], order="C")[flip]


def padded(a):
    """Every other element of a larger buffer, starting one element in (non-contiguous, offset)."""
    if a.ndim == 0:
        buf = np.zeros(3, a.dtype)
        buf[1] = a
        return buf[1:2].reshape(())
    buf = np.zeros(tuple(2 * n + 1 for n in a.shape), a.dtype)
    view = buf[tuple(slice(1, 1 + 2 * n, 2) for n in a.shape)]
    view[...] = a
    return view


def channels_last(a):
    """The storage order of a channels-last tensor: (0, 2, 3, 1) for rank 4, last axis first below."""
    if a.ndim < 2:
        return a.copy()
    order = (0, *range(2, a.ndim), 1) if a.ndim >= 3 else (1, 0)
    inverse = np.argsort(order)
    return np.ascontiguousarray(a.transpose(order)).transpose(inverse)


LAYOUTS = {"contiguous": contiguous, "fortran": fortran, "reversed": reversed_axes, "padded": padded,
           "channels_last": channels_last}


def storage_for(layout, value):
    """Storage holding `value` at the positions `layout` (athene.Layout) addresses."""
    buf = np.zeros(max(layout.storage_elems, 1), value.dtype)
    view = np.lib.stride_tricks.as_strided(buf[layout.offset:] if value.size else buf, shape=value.shape,
                                           strides=[s * value.itemsize for s in layout.strides])
    view[...] = value
    return buf


def flat_params(file, kernel_name):
    """The params a kernel reads through `.flat` (storage offsets, so the layout is its meaning)."""
    src = te.kernel_source(file, kernel_name)
    return set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\.flat\b", src))


def call_example(kernel_name, layout="contiguous", out_layout=None):
    """Runs one example kernel through the package on the table's inputs laid out by `layout`
    (for params that declare no layout); returns (results by output name, expected, tol)."""
    c = te.CASES[kernel_name]
    inputs, expected = c.build(te.rng_for(kernel_name))
    k = example_module(c.file)[kernel_name]
    values = {name: logical(v) for name, v in inputs.items()}
    sizes = dict(c.sizes)
    for p in k.params:  # size symbols of declared-layout params come from the logical shapes
        if p.declares_layout and p.name in values:
            for d, sym in enumerate(p.dims):
                if sym is not None:
                    sizes.setdefault(sym, values[p.name].shape[d])
    plain = {p.name: values[p.name] for p in k.inputs if not p.declares_layout}
    lays = k.layouts(sizes=sizes, **plain)
    flat = flat_params(c.file, kernel_name)
    args = []
    for p in k.inputs:
        v = values[p.name]
        if p.declares_layout:
            args.append(storage_for(lays[p.name], v))
        elif p.name in flat:  # x.flat[e] addresses the storage: its layout is part of the kernel
            args.append(contiguous(v))
        else:
            args.append(LAYOUTS[layout](v))
    out = None
    if out_layout is not None:
        out = []
        for p in k.outputs:
            lay = lays[p.name]
            blank = np.zeros(lay.shape, p.numpy_dtype)
            out.append(np.zeros(max(lay.storage_elems, 1), blank.dtype) if p.declares_layout
                       else LAYOUTS[out_layout](blank))
    got = k(*args, out=out, sizes=sizes or None)
    if len(k.outputs) == 1:
        got = (got,)
    results = dict(zip((p.name for p in k.outputs), got))
    if out is not None:
        for p, o, r in zip(k.outputs, out, got):
            if not p.declares_layout:
                assert r is o, f"{p.name}: the result is not the out= array"
    return results, expected, c.tol, args, inputs
