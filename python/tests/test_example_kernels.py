"""Every example kernel called through the package on NumPy inputs, in several memory layouts,
matched with the NumPy expectations of tests/test_examples.py (its CASES table)."""

import numpy as np
import pytest

import athene
from support import (LAYOUTS, as_table_value, call_example, contiguous, example_module, flat_params, logical,
                     storage_for, te)

FULL = te.FULL_SIZE  # the multi-million-element kernels: contiguous only (their sample, as in CASES)


def check(results, expected, tol):
    assert set(results) >= set(expected)
    for name, exp in expected.items():
        te.compare(name, as_table_value(results[name]), exp, tol)


def test_every_example_kernel_is_in_the_table():
    found = te.example_kernels()
    assert sorted(found) == sorted(te.CASES)


@pytest.mark.parametrize("kernel", te.RUN_KERNELS)
def test_example_contiguous(kernel):
    check(*call_example(kernel)[:3])


SMALL = [k for k in te.RUN_KERNELS if not FULL.match(k)]


@pytest.mark.parametrize("layout", [l for l in LAYOUTS if l != "contiguous"])
def test_examples_in_layout(layout):
    """One test per layout over every (small) example kernel, so a failure lists the kernels."""
    failed = []
    for kernel in SMALL:
        try:
            check(*call_example(kernel, layout)[:3])
        except AssertionError as e:
            failed.append(f"{kernel}: {str(e).splitlines()[0]}")
    assert not failed, f"{len(failed)} kernel(s) wrong with {layout} inputs:\n" + "\n".join(failed)


@pytest.mark.parametrize("out_layout", ["contiguous", "fortran", "padded"])
def test_examples_into_out_arrays(out_layout):
    failed = []
    for kernel in SMALL:
        try:
            check(*call_example(kernel, "padded", out_layout)[:3])
        except AssertionError as e:
            failed.append(f"{kernel}: {str(e).splitlines()[0]}")
    assert not failed, f"{len(failed)} kernel(s) wrong into {out_layout} out= arrays:\n" + "\n".join(failed)


def test_layouts_are_what_they_say():
    """The layout helpers make the memory layouts they are named after."""
    a = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    assert LAYOUTS["fortran"](a).flags.f_contiguous and not LAYOUTS["fortran"](a).flags.c_contiguous
    assert all(s < 0 for s in LAYOUTS["reversed"](a).strides)
    p = LAYOUTS["padded"](a)
    assert not p.flags.c_contiguous and p.__array_interface__["data"][0] != p.base.__array_interface__["data"][0]
    cl = LAYOUTS["channels_last"](a)
    assert cl.strides[1] == cl.itemsize and cl.strides[3] == cl.itemsize * 3
    for f in LAYOUTS.values():
        np.testing.assert_array_equal(f(a), a)


def test_inputs_are_read_in_place_and_untouched():
    """The storage a kernel reads is its inputs' own memory (no copy), and it is not written."""
    results, expected, tol, args, inputs = call_example("transpose_i16", "reversed")
    check(results, expected, tol)
    np.testing.assert_array_equal(args[0], inputs["x"])
    k = example_module("dtypes.ath")["transpose_i16"]
    x = args[0]
    lowest = x.__array_interface__["data"][0] + sum((n - 1) * s for n, s in zip(x.shape, x.strides) if s < 0)
    assert k.storage_pointers(x)[0] == lowest


def broadcast_first_axis(v):
    """v made constant along its first axis of size > 1, as a stride-0 view (None if no such axis)."""
    for ax, n in enumerate(v.shape):
        if n > 1:
            return np.broadcast_to(v.take([0], axis=ax), v.shape)
    return None


def test_examples_on_broadcast_inputs():
    """Stride-0 inputs: no table input is constant along an axis, so each kernel's inputs are
    made so (every plain input broadcast along its first axis of size > 1); the results must
    equal those of the same values as contiguous arrays (which test_example_contiguous checks
    against NumPy)."""
    failed, count = [], 0
    for kernel in SMALL:
        c = te.CASES[kernel]
        inputs, expected = c.build(te.rng_for(kernel))
        k = example_module(c.file)[kernel]
        flat = flat_params(c.file, kernel)
        values = {n: logical(v) for n, v in inputs.items()}
        changed = False
        for p in k.inputs:
            if not p.declares_layout and p.name not in flat:
                b = broadcast_first_axis(values[p.name])
                if b is not None:
                    values[p.name], changed = b, True
        if not changed:
            continue
        count += 1
        sizes = dict(c.sizes)
        for p in k.params:
            if p.declares_layout and p.name in values:
                for d, sym in enumerate(p.dims):
                    if sym is not None:
                        sizes.setdefault(sym, values[p.name].shape[d])
        lays = k.layouts(sizes=sizes, **{p.name: values[p.name] for p in k.inputs if not p.declares_layout})
        def args(f):
            return [storage_for(lays[p.name], values[p.name]) if p.declares_layout else f(values[p.name])
                    for p in k.inputs]
        bargs = args(lambda v: v)
        assert any(0 in a.strides for a in bargs)
        try:
            got = k(*bargs, sizes=sizes or None)
            ref = k(*args(contiguous), sizes=sizes or None)
        except athene.RunError as e:  # an index made invalid would fail both ways: report it
            failed.append(f"{kernel}: {e}")
            continue
        got, ref = (got, ref) if len(k.outputs) > 1 else ((got,), (ref,))
        for p, g, r in zip(k.outputs, got, ref):
            try:
                te.compare(p.name, as_table_value(g), as_table_value(r), c.tol)
            except AssertionError as e:
                failed.append(f"{kernel}: {str(e).splitlines()[0]}")
    assert count > 150, count
    assert not failed, f"{len(failed)} kernel(s) wrong on broadcast inputs:\n" + "\n".join(failed)
