"""Pallas kernels of examples/masked.ath, emitted by athene (target pallas). Do not edit.

Each kernel K has an entry point K(*inputs, interpret=None) and a traceable
K_pure(*inputs, interpret=False). Inputs have the kernel's logical shapes; a
parameter that declares its layout takes (and an output that declares one
returns) its storage as a 1-D array. interpret=None runs compiled on a TPU and
in the interpreter on the CPU elsewhere.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def _run(pure, args, interpret):
    """interpret=None: compiled on a TPU, elsewhere the interpreter on the CPU device."""
    if interpret is None and jax.default_backend() != "tpu":
        with jax.default_device(jax.devices("cpu")[0]):
            return pure(*args, interpret=True)
    return pure(*args, interpret=False if interpret is None else interpret)


# ---- kernel pad_cols_flat

def _pad_cols_flat_y(x_ref, y_ref):
    # y[i, j] = where((((j - 1) >= 0) && ((j - 1) < 16)), x.flat[((-1 + j) + (16 * i))], 0)
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 19), 1)
    v2 = j - jnp.int32(1)
    v4 = v2 >= jnp.int32(0)
    v7 = j - jnp.int32(1)
    v9 = v7 < jnp.int32(16)
    v10 = v4 & v9
    v11 = x_ref[...][:, 0:19]
    v15 = jnp.where(v10, v11, jnp.float32(0))
    out = v15
    y_ref[...] = out


_pad_cols_flat_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 19), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 19), lambda _: (np.int32(0), np.int32(0))))


def pad_cols_flat_pure(x, *, interpret=False):
    """Traceable pad_cols_flat(x f32[4, 16]) -> y f32[4, 19]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _pad_cols_flat_y,
        out_shape=jax.ShapeDtypeStruct((4, 19), jnp.float32),
        grid_spec=_pad_cols_flat_y_grid,
        interpret=interpret,
    )(jnp.pad(x.reshape(4, 16), ((0, 0), (1, 2))))
    y = y.reshape(-1)
    return y.reshape(4, 19)


_pad_cols_flat = jax.jit(pad_cols_flat_pure, static_argnames="interpret")


def pad_cols_flat(x, *, interpret=None):
    """pad_cols_flat(x f32[4, 16]) -> y f32[4, 19]."""
    return _run(_pad_cols_flat, (x,), interpret)


# ---- kernel pad_cols

def _pad_cols_y(x_ref, y_ref):
    # y[i, j] = where(((j >= 1) && (j < 17)), x[i, (j - 1)], -1)
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 19), 1)
    v2 = j >= jnp.int32(1)
    v5 = j < jnp.int32(17)
    v6 = v2 & v5
    v7 = x_ref[...][:, 0:19]
    v11 = jnp.where(v6, v7, jnp.float32(-1))
    out = v11
    y_ref[...] = out


_pad_cols_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 19), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 19), lambda _: (np.int32(0), np.int32(0))))


def pad_cols_pure(x, *, interpret=False):
    """Traceable pad_cols(x f32[4, 16]) -> y f32[4, 19]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _pad_cols_y,
        out_shape=jax.ShapeDtypeStruct((4, 19), jnp.float32),
        grid_spec=_pad_cols_y_grid,
        interpret=interpret,
    )(jnp.pad(x.reshape(4, 16), ((0, 0), (1, 2))))
    y = y.reshape(-1)
    return y.reshape(4, 19)


_pad_cols = jax.jit(pad_cols_pure, static_argnames="interpret")


def pad_cols(x, *, interpret=None):
    """pad_cols(x f32[4, 16]) -> y f32[4, 19]."""
    return _run(_pad_cols, (x,), interpret)


# ---- kernel pad_2d

def _pad_2d_y(x_ref, y_ref):
    # y[i, j] = where(((((i >= 2) && (i < 6)) && (j >= 1)) && (j < 17)), x[(i - 2), (j - 1)], 0)
    i = jax.lax.broadcasted_iota(jnp.int32, (7, 1), 0)
    v2 = i >= jnp.int32(2)
    v5 = i < jnp.int32(6)
    v6 = v2 & v5
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 20), 1)
    v9 = j >= jnp.int32(1)
    v10 = v6 & v9
    v13 = j < jnp.int32(17)
    v14 = v10 & v13
    v15 = x_ref[...][0:7, 0:20]
    v19 = jnp.where(v14, v15, jnp.float32(0))
    out = v19
    y_ref[...] = out


_pad_2d_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((7, 20), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((7, 20), lambda _: (np.int32(0), np.int32(0))))


def pad_2d_pure(x, *, interpret=False):
    """Traceable pad_2d(x f32[4, 16]) -> y f32[7, 20]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _pad_2d_y,
        out_shape=jax.ShapeDtypeStruct((7, 20), jnp.float32),
        grid_spec=_pad_2d_y_grid,
        interpret=interpret,
    )(jnp.pad(x.reshape(4, 16), ((2, 1), (1, 3))))
    y = y.reshape(-1)
    return y.reshape(7, 20)


_pad_2d = jax.jit(pad_2d_pure, static_argnames="interpret")


def pad_2d(x, *, interpret=None):
    """pad_2d(x f32[4, 16]) -> y f32[7, 20]."""
    return _run(_pad_2d, (x,), interpret)


# ---- kernel cat_cols

def _cat_cols_y(a_ref, b_ref, y_ref):
    # y[i, j] = where((j < 16), a[i, j], b[i, (j - 16)])
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 24), 1)
    v2 = j < jnp.int32(16)
    v3 = a_ref[...][:, 0:24]
    v5 = b_ref[...][:, 0:24]
    v6 = jnp.where(v2, v3, v5)
    out = v6
    y_ref[...] = out


_cat_cols_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 24), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((4, 24), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 24), lambda _: (np.int32(0), np.int32(0))))


def cat_cols_pure(a, b, *, interpret=False):
    """Traceable cat_cols(a f32[4, 16], b f32[4, 8]) -> y f32[4, 24]."""
    a = jnp.asarray(a).reshape(-1)
    b = jnp.asarray(b).reshape(-1)
    # y
    y = pl.pallas_call(
        _cat_cols_y,
        out_shape=jax.ShapeDtypeStruct((4, 24), jnp.float32),
        grid_spec=_cat_cols_y_grid,
        interpret=interpret,
    )(jnp.pad(a.reshape(4, 16), ((0, 0), (0, 8))), jnp.pad(b.reshape(4, 8), ((0, 0), (16, 0))))
    y = y.reshape(-1)
    return y.reshape(4, 24)


_cat_cols = jax.jit(cat_cols_pure, static_argnames="interpret")


def cat_cols(a, b, *, interpret=None):
    """cat_cols(a f32[4, 16], b f32[4, 8]) -> y f32[4, 24]."""
    return _run(_cat_cols, (a, b), interpret)


# ---- kernel cat_rows_flat

def _cat_rows_flat_y(a_ref, b_ref, y_ref):
    # y[x1, x0] = where((x1 < 4), a.flat[(x0 + (16 * x1))], b.flat[((-64 + x0) + (16 * x1))])
    x1 = jax.lax.broadcasted_iota(jnp.int32, (7, 1), 0)
    v2 = x1 < jnp.int32(4)
    v3 = a_ref[...][0:7, :]
    v5 = b_ref[...][0:7, :]
    v6 = jnp.where(v2, v3, v5)
    out = v6
    y_ref[...] = out


_cat_rows_flat_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((7, 16), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((7, 16), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((7, 16), lambda _: (np.int32(0), np.int32(0))))


def cat_rows_flat_pure(a, b, *, interpret=False):
    """Traceable cat_rows_flat(a f32[4, 16], b f32[3, 16]) -> y f32[7, 16]."""
    a = jnp.asarray(a).reshape(-1)
    b = jnp.asarray(b).reshape(-1)
    # y
    y = pl.pallas_call(
        _cat_rows_flat_y,
        out_shape=jax.ShapeDtypeStruct((7, 16), jnp.float32),
        grid_spec=_cat_rows_flat_y_grid,
        interpret=interpret,
    )(jnp.pad(a.reshape(4, 16), ((0, 3), (0, 0))), jnp.pad(b.reshape(3, 16), ((4, 0), (0, 0))))
    y = y.reshape(-1)
    return y.reshape(7, 16)


_cat_rows_flat = jax.jit(cat_rows_flat_pure, static_argnames="interpret")


def cat_rows_flat(a, b, *, interpret=None):
    """cat_rows_flat(a f32[4, 16], b f32[3, 16]) -> y f32[7, 16]."""
    return _run(_cat_rows_flat, (a, b), interpret)


# ---- kernel cat_three

def _cat_three_y(a_ref, b_ref, c_ref, y_ref):
    # y[i] = where((i < 5), a[i], where((i < 8), b[(i - 5)], c[(i - 8)]))
    i = jax.lax.broadcasted_iota(jnp.int32, (12,), 0)
    v2 = i < jnp.int32(5)
    v3 = a_ref[...][0:12]
    v7 = i < jnp.int32(8)
    v9 = b_ref[...][0:12]
    v12 = c_ref[...][0:12]
    v13 = jnp.where(v7, v9, v12)
    v14 = jnp.where(v2, v3, v13)
    out = v14
    y_ref[...] = out


_cat_three_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12,), lambda _: (np.int32(0),)),
        pl.BlockSpec((12,), lambda _: (np.int32(0),)),
        pl.BlockSpec((12,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((12,), lambda _: (np.int32(0),)))


def cat_three_pure(a, b, c, *, interpret=False):
    """Traceable cat_three(a f32[5], b f32[3], c f32[4]) -> y f32[12]."""
    a = jnp.asarray(a).reshape(-1)
    b = jnp.asarray(b).reshape(-1)
    c = jnp.asarray(c).reshape(-1)
    # y
    y = pl.pallas_call(
        _cat_three_y,
        out_shape=jax.ShapeDtypeStruct((12,), jnp.float32),
        grid_spec=_cat_three_y_grid,
        interpret=interpret,
    )(jnp.pad(a, ((0, 7),)), jnp.pad(b, ((5, 4),)), jnp.pad(c, ((8, 0),)))
    return y.reshape(12)


_cat_three = jax.jit(cat_three_pure, static_argnames="interpret")


def cat_three(a, b, c, *, interpret=None):
    """cat_three(a f32[5], b f32[3], c f32[4]) -> y f32[12]."""
    return _run(_cat_three, (a, b, c), interpret)


# ---- kernel pad_all_masked

def _pad_all_masked_y(y_ref):
    # y[i, j] = where((j >= 100), x[i, (j - 100)], 1.5)
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 16), 1)
    v2 = j >= jnp.int32(100)
    v3 = jnp.zeros((1, 1), jnp.float32)  # no elements
    v7 = jnp.where(v2, v3, jnp.float32(1.5))
    out = jnp.broadcast_to(v7, (4, 16))
    y_ref[...] = out


_pad_all_masked_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[],
    out_specs=pl.BlockSpec((4, 16), lambda _: (np.int32(0), np.int32(0))))


def pad_all_masked_pure(x, *, interpret=False):
    """Traceable pad_all_masked(x f32[4, 16]) -> y f32[4, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _pad_all_masked_y,
        out_shape=jax.ShapeDtypeStruct((4, 16), jnp.float32),
        grid_spec=_pad_all_masked_y_grid,
        interpret=interpret,
    )()
    y = y.reshape(-1)
    return y.reshape(4, 16)


_pad_all_masked = jax.jit(pad_all_masked_pure, static_argnames="interpret")


def pad_all_masked(x, *, interpret=None):
    """pad_all_masked(x f32[4, 16]) -> y f32[4, 16]."""
    return _run(_pad_all_masked, (x,), interpret)


# ---- kernel diff_left

def _diff_left_y(x_ref, x2_ref, y_ref):
    # y[i, j] = (x[i, j] - where((j > 0), x[i, (j - 1)], 0))
    v0 = x_ref[...]
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 32), 1)
    v3 = j > jnp.int32(0)
    v4 = x2_ref[...][:, 0:32]
    v8 = jnp.where(v3, v4, jnp.float32(0))
    v9 = v0 - v8
    out = v9
    y_ref[...] = out


_diff_left_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 32), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((8, 33), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 32), lambda _: (np.int32(0), np.int32(0))))


def diff_left_pure(x, *, interpret=False):
    """Traceable diff_left(x f32[8, 32]) -> y f32[8, 32]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _diff_left_y,
        out_shape=jax.ShapeDtypeStruct((8, 32), jnp.float32),
        grid_spec=_diff_left_y_grid,
        interpret=interpret,
    )(x.reshape(8, 32), jnp.pad(x.reshape(8, 32), ((0, 0), (1, 0))))
    y = y.reshape(-1)
    return y.reshape(8, 32)


_diff_left = jax.jit(diff_left_pure, static_argnames="interpret")


def diff_left(x, *, interpret=None):
    """diff_left(x f32[8, 32]) -> y f32[8, 32]."""
    return _run(_diff_left, (x,), interpret)


# ---- kernel window_sum_padded

def _window_sum_padded_y_x(x):
    """x[((i + k) - 1)] over (64, 3), in XLA: coefficients 1 (i, 64 values) and 1 (k) overlap: overlapping windows, like unfold."""
    i = jax.lax.broadcasted_iota(jnp.int32, (64, 1), 0)
    k = jax.lax.broadcasted_iota(jnp.int32, (1, 3), 1)
    return jnp.take(x, jnp.broadcast_to((i + k - 1), (64, 3)), mode="clip")


def _window_sum_padded_y(x_ref, y_ref):
    # y[i] = sum(k < 3: where(((((i + k) - 1) >= 0) && (((i + k) - 1) < 64)), x[((i + k) - 1)], 0))
    i = jax.lax.broadcasted_iota(jnp.int32, (64, 1), 0)
    k = jax.lax.broadcasted_iota(jnp.int32, (1, 3), 1)
    v2 = i + k
    v4 = v2 - jnp.int32(1)
    v6 = v4 >= jnp.int32(0)
    v9 = i + k
    v11 = v9 - jnp.int32(1)
    v13 = v11 < jnp.int32(64)
    v14 = v6 & v13
    v15 = x_ref[...]
    v19 = jnp.where(v14, v15, jnp.float32(0))
    v20 = jnp.broadcast_to(v19, (64, 3))
    v20 = jnp.sum(v20, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v20, (64, 1))
    out = out.reshape((64,))
    y_ref[...] = out


_window_sum_padded_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64, 3), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((64,), lambda _: (np.int32(0),)))


def window_sum_padded_pure(x, *, interpret=False):
    """Traceable window_sum_padded(x f32[64]) -> y f32[64]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _window_sum_padded_y,
        out_shape=jax.ShapeDtypeStruct((64,), jnp.float32),
        grid_spec=_window_sum_padded_y_grid,
        interpret=interpret,
    )(_window_sum_padded_y_x(x))
    return y.reshape(64)


_window_sum_padded = jax.jit(window_sum_padded_pure, static_argnames="interpret")


def window_sum_padded(x, *, interpret=None):
    """window_sum_padded(x f32[64]) -> y f32[64]."""
    return _run(_window_sum_padded, (x,), interpret)
