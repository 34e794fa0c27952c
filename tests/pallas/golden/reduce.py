"""Pallas kernels of examples/reduce.ath, emitted by athene (target pallas). Do not edit.

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

# 64-bit tensors: without x64 JAX would silently narrow them to 32 bits.
jax.config.update("jax_enable_x64", True)


def _run(pure, args, interpret):
    """interpret=None: compiled on a TPU, elsewhere the interpreter on the CPU device."""
    if interpret is None and jax.default_backend() != "tpu":
        with jax.default_device(jax.devices("cpu")[0]):
            return pure(*args, interpret=True)
    return pure(*args, interpret=False if interpret is None else interpret)


def _record_init(err_ref):
    """Zeroes the bad-index record: count, check, value, position."""
    for k in range(11):
        err_ref[k] = jnp.int32(0)


def _record(err_ref, bad, check, value, base):
    """Counts this block's out-of-range indices of one check; keeps the first (the least
    row-major position: Mosaic has no argmax of bools, no flattening reshape, no dynamic
    index into a vector)."""
    if jnp.ndim(bad) == 0:
        k, pos, count = 0, (0,) * len(base), bad.astype(jnp.int32)
    else:
        lin = jnp.zeros(bad.shape, jnp.int32)
        for d, n in enumerate(bad.shape):
            lin = lin * n + jax.lax.broadcasted_iota(jnp.int32, bad.shape, d)
        k = jnp.min(jnp.where(bad, lin, jnp.int32(bad.size)))
        pos = [k // jnp.int32(int(np.prod(bad.shape[d + 1:]))) % jnp.int32(n) for d, n in enumerate(bad.shape)]
        # no int32 sum to a scalar: under x64 Mosaic's lowering of it widens to int64
        count = jnp.sum(bad.astype(jnp.float32)).astype(jnp.int32)  # exact: a block < 2**24
        value = jnp.max(jnp.where(lin == k, value.astype(jnp.int32), jnp.int32(-2**31)))

    @pl.when((err_ref[0] == 0) & (count > 0))
    def _first():
        err_ref[1] = jnp.int32(check)
        err_ref[2] = jnp.asarray(value).astype(jnp.int32)
        for d, b in enumerate(base):
            err_ref[3 + d] = jnp.asarray(b + pos[d]).astype(jnp.int32)

    err_ref[0] += count


def _raise_bad(bad, messages):
    """Raises IndexError for the first out-of-range index a kernel counted."""
    for rec in np.asarray(bad).reshape(-1, 11):
        if rec[0]:
            raise IndexError(messages[rec[1]].format(*rec.tolist()))


def _i32(a):
    """Index values as int32, saturated: an index that does not fit stays out of range."""
    if a.dtype == jnp.int64:
        a = jnp.clip(a, -2**31, 2**31 - 1)
    return a.astype(jnp.int32)


def _pad(a, n):
    """The storage padded to n elements: the reshape's last row is partial."""
    return jnp.pad(a, (0, n - a.shape[0]))


# ---- kernel sum_permuted

def _sum_permuted_y(x_ref, y_ref):
    # y[j] = sum(i: x[i, j])
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v1 = jnp.broadcast_to(v0, (8, 16))
    v1 = jnp.sum(v1, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v1, (8, 1))
    out = out.reshape((8,))
    y_ref[...] = out


_sum_permuted_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8,), lambda _: (np.int32(0),)))


def sum_permuted_pure(x, *, interpret=False):
    """Traceable sum_permuted(x f32[16, 8]) -> y f32[8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _sum_permuted_y,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        grid_spec=_sum_permuted_y_grid,
        interpret=interpret,
    )(x.reshape(16, 8))
    return y.reshape(8)


_sum_permuted = jax.jit(sum_permuted_pure, static_argnames="interpret")


def sum_permuted(x, *, interpret=None):
    """sum_permuted(x f32[16, 8]) -> y f32[8]."""
    return _run(_sum_permuted, (x,), interpret)


# ---- kernel max_strided_cols

def _max_strided_cols_y(x_ref, y_ref):
    # y[j] = max(i: x[i, (2 * j)])
    v0 = x_ref[...][:, :, 0]
    v0 = jnp.transpose(v0, (1, 0))
    v1 = jnp.broadcast_to(v0, (8, 8))
    v1 = jnp.max(v1, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v1, (8, 1))
    out = out.reshape((8,))
    y_ref[...] = out


_max_strided_cols_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8,), lambda _: (np.int32(0),)))


def max_strided_cols_pure(x, *, interpret=False):
    """Traceable max_strided_cols(x f32[8, 16]) -> y f32[8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _max_strided_cols_y,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        grid_spec=_max_strided_cols_y_grid,
        interpret=interpret,
    )(x.reshape(8, 8, 2))
    return y.reshape(8)


_max_strided_cols = jax.jit(max_strided_cols_pure, static_argnames="interpret")


def max_strided_cols(x, *, interpret=None):
    """max_strided_cols(x f32[8, 16]) -> y f32[8]."""
    return _run(_max_strided_cols, (x,), interpret)


# ---- kernel sum_transposed_view

def _sum_transposed_view_y(x_ref, y_ref):
    # y[i] = sum(k: x[i, k])
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v1 = jnp.broadcast_to(v0, (8, 16))
    v1 = jnp.sum(v1, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v1, (8, 1))
    out = out.reshape((8,))
    y_ref[...] = out


_sum_transposed_view_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8,), lambda _: (np.int32(0),)))


def sum_transposed_view_pure(x, *, interpret=False):
    """Traceable sum_transposed_view(x f32[8, 16] (storage of 128)) -> y f32[8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _sum_transposed_view_y,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        grid_spec=_sum_transposed_view_y_grid,
        interpret=interpret,
    )(x.reshape(16, 8))
    return y.reshape(8)


_sum_transposed_view = jax.jit(sum_transposed_view_pure, static_argnames="interpret")


def sum_transposed_view(x, *, interpret=None):
    """sum_transposed_view(x f32[8, 16] (storage of 128)) -> y f32[8]."""
    return _run(_sum_transposed_view, (x,), interpret)


# ---- kernel min_flipped_view

def _min_flipped_view_y(x_ref, y_ref):
    # y[i] = min(k: x[i, k])
    v0 = x_ref[...]
    v1 = jnp.broadcast_to(v0, (4, 8))
    v1 = jnp.min(v1, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v1, (4, 1))
    out = out.reshape((4,))
    y_ref[...] = out


_min_flipped_view_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4,), lambda _: (np.int32(0),)))


def min_flipped_view_pure(x, *, interpret=False):
    """Traceable min_flipped_view(x f32[4, 8] (storage of 32)) -> y f32[4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _min_flipped_view_y,
        out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
        grid_spec=_min_flipped_view_y_grid,
        interpret=interpret,
    )(jnp.flip(x.reshape(4, 8), (1,)))
    return y.reshape(4)


_min_flipped_view = jax.jit(min_flipped_view_pure, static_argnames="interpret")


def min_flipped_view(x, *, interpret=None):
    """min_flipped_view(x f32[4, 8] (storage of 32)) -> y f32[4]."""
    return _run(_min_flipped_view, (x,), interpret)


# ---- kernel argmax_strided

def _argmax_strided_y_x(x):
    """x[i, ((2 * j) + 1)] over (8, 8), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = x.reshape(8, 8, 2)
    a = a[:, :, 1]
    a = jnp.transpose(a, (1, 0))
    return a


def _argmax_strided_y(x_ref):
    # y[j] = argmax(i: x[i, ((2 * j) + 1)])
    v0 = x_ref[...]
    v1 = jnp.broadcast_to(v0, (8, 8))
    v1 = jax.lax.argmax(v1.reshape((8, 8)), 1, jnp.int32).reshape((8, 1)).astype(jnp.int64)
    return jnp.broadcast_to(v1, (8, 1)).reshape(-1).astype(jnp.int64)


def argmax_strided_pure(x, *, interpret=False):
    """Traceable argmax_strided(x f32[8, 16]) -> y i64[8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _argmax_strided_y(_argmax_strided_y_x(x))
    return y.reshape(8)


_argmax_strided = jax.jit(argmax_strided_pure, static_argnames="interpret")


def argmax_strided(x, *, interpret=None):
    """argmax_strided(x f32[8, 16]) -> y i64[8]."""
    return _run(_argmax_strided, (x,), interpret)


# ---- kernel argmin_permuted

def _argmin_permuted_y_x(x):
    """x[i, j] over (10, 6), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = x.reshape(6, 10)
    a = jnp.transpose(a, (1, 0))
    return a


def _argmin_permuted_y(x_ref):
    # y[j] = argmin(i: x[i, j])
    v0 = x_ref[...]
    v1 = jnp.broadcast_to(v0, (10, 6))
    v1 = jax.lax.argmin(v1.reshape((10, 6)), 1, jnp.int32).reshape((10, 1)).astype(jnp.int64)
    return jnp.broadcast_to(v1, (10, 1)).reshape(-1).astype(jnp.int64)


def argmin_permuted_pure(x, *, interpret=False):
    """Traceable argmin_permuted(x f32[6, 10]) -> y i64[10]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _argmin_permuted_y(_argmin_permuted_y_x(x))
    return y.reshape(10)


_argmin_permuted = jax.jit(argmin_permuted_pure, static_argnames="interpret")


def argmin_permuted(x, *, interpret=None):
    """argmin_permuted(x f32[6, 10]) -> y i64[10]."""
    return _run(_argmin_permuted, (x,), interpret)


# ---- kernel mean_permuted_3d

def _mean_permuted_3d_y(x_ref, y_ref):
    # y[j] = mean(a, c: x[a, j, c])
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    v1 = jnp.broadcast_to(v0, (6, 4, 8))
    v1 = jnp.mean(v1, axis=(1, 2,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v1, (6, 1, 1))
    out = out.reshape((6,))
    y_ref[...] = out


_mean_permuted_3d_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 6, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((6,), lambda _: (np.int32(0),)))


def mean_permuted_3d_pure(x, *, interpret=False):
    """Traceable mean_permuted_3d(x f32[4, 6, 8]) -> y f32[6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _mean_permuted_3d_y,
        out_shape=jax.ShapeDtypeStruct((6,), jnp.float32),
        grid_spec=_mean_permuted_3d_y_grid,
        interpret=interpret,
    )(x.reshape(4, 6, 8))
    return y.reshape(6)


_mean_permuted_3d = jax.jit(mean_permuted_3d_pure, static_argnames="interpret")


def mean_permuted_3d(x, *, interpret=None):
    """mean_permuted_3d(x f32[4, 6, 8]) -> y f32[6]."""
    return _run(_mean_permuted_3d, (x,), interpret)


# ---- kernel sum_two_vars

def _sum_two_vars_y(x_ref, y_ref):
    # y[j] = sum(i, k: x[i, j, k])
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    v1 = jnp.broadcast_to(v0, (4, 3, 5))
    v1 = jnp.sum(v1, axis=(1, 2,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v1, (4, 1, 1))
    out = out.reshape((4,))
    y_ref[...] = out


_sum_two_vars_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((3, 4, 5), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4,), lambda _: (np.int32(0),)))


def sum_two_vars_pure(x, *, interpret=False):
    """Traceable sum_two_vars(x f32[3, 4, 5]) -> y f32[4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _sum_two_vars_y,
        out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
        grid_spec=_sum_two_vars_y_grid,
        interpret=interpret,
    )(x.reshape(3, 4, 5))
    return y.reshape(4)


_sum_two_vars = jax.jit(sum_two_vars_pure, static_argnames="interpret")


def sum_two_vars(x, *, interpret=None):
    """sum_two_vars(x f32[3, 4, 5]) -> y f32[4]."""
    return _run(_sum_two_vars, (x,), interpret)


# ---- kernel sum_bounded_strided

def _sum_bounded_strided_y(x_ref, y_ref):
    # y[i] = sum(k < 4: x[i, ((2 * k) + 1)])
    v0 = x_ref[...][:, 0:4, 1]
    v1 = jnp.broadcast_to(v0, (8, 4))
    v1 = jnp.sum(v1, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v1, (8, 1))
    out = out.reshape((8,))
    y_ref[...] = out


_sum_bounded_strided_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 5, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8,), lambda _: (np.int32(0),)))


def sum_bounded_strided_pure(x, *, interpret=False):
    """Traceable sum_bounded_strided(x f32[8, 10]) -> y f32[8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _sum_bounded_strided_y,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        grid_spec=_sum_bounded_strided_y_grid,
        interpret=interpret,
    )(x.reshape(8, 5, 2))
    return y.reshape(8)


_sum_bounded_strided = jax.jit(sum_bounded_strided_pure, static_argnames="interpret")


def sum_bounded_strided(x, *, interpret=None):
    """sum_bounded_strided(x f32[8, 10]) -> y f32[8]."""
    return _run(_sum_bounded_strided, (x,), interpret)


# ---- kernel sum_iota_weighted

def _sum_iota_weighted_y(x_ref, y_ref):
    # y[i] = sum(k: (f32(k) * x[i, k]))
    k = jax.lax.broadcasted_iota(jnp.int32, (1, 12), 1)
    v1 = k.astype(jnp.float32)
    v2 = x_ref[...]
    v3 = v1 * v2
    v4 = jnp.broadcast_to(v3, (5, 12))
    v4 = jnp.sum(v4, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v4, (5, 1))
    out = out.reshape((5,))
    y_ref[...] = out


_sum_iota_weighted_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((5, 12), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((5,), lambda _: (np.int32(0),)))


def sum_iota_weighted_pure(x, *, interpret=False):
    """Traceable sum_iota_weighted(x f32[5, 12]) -> y f32[5]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _sum_iota_weighted_y,
        out_shape=jax.ShapeDtypeStruct((5,), jnp.float32),
        grid_spec=_sum_iota_weighted_y_grid,
        interpret=interpret,
    )(x.reshape(5, 12))
    return y.reshape(5)


_sum_iota_weighted = jax.jit(sum_iota_weighted_pure, static_argnames="interpret")


def sum_iota_weighted(x, *, interpret=None):
    """sum_iota_weighted(x f32[5, 12]) -> y f32[5]."""
    return _run(_sum_iota_weighted, (x,), interpret)


# ---- kernel prod_strided_f64

def _prod_strided_f64_y_x(x):
    """x[i, (2 * k)] over (4, 3), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = x.reshape(4, 3, 2)
    a = a[:, :, 0]
    return a


def _prod_strided_f64_y(x_ref):
    # y[i] = prod(k < 3: x[i, (2 * k)])
    v0 = x_ref[...]
    v1 = jnp.broadcast_to(v0, (4, 3))
    v1 = jnp.prod(v1, axis=(1,), keepdims=True).astype(jnp.float64)
    return jnp.broadcast_to(v1, (4, 1)).reshape(-1).astype(jnp.float64)


def prod_strided_f64_pure(x, *, interpret=False):
    """Traceable prod_strided_f64(x f64[4, 6]) -> y f64[4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _prod_strided_f64_y(_prod_strided_f64_y_x(x))
    return y.reshape(4)


_prod_strided_f64 = jax.jit(prod_strided_f64_pure, static_argnames="interpret")


def prod_strided_f64(x, *, interpret=None):
    """prod_strided_f64(x f64[4, 6]) -> y f64[4]."""
    return _run(_prod_strided_f64, (x,), interpret)


# ---- kernel any_all_strided

def _any_all_strided_y(m_ref, y_ref):
    # y[i] = any(k: m[i, k])
    v0 = m_ref[...][:, :, 0]
    v1 = jnp.broadcast_to(v0, (6, 8))
    v1 = jnp.max(v1.astype(jnp.float32), axis=(1,), keepdims=True) > 0
    out = jnp.broadcast_to(v1, (6, 1))
    out = out.reshape((6,))
    y_ref[...] = out


_any_all_strided_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((6, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((6,), lambda _: (np.int32(0),)))

def _any_all_strided_z(m_ref, z_ref):
    # z[i] = all(k: m[i, k])
    v0 = m_ref[...][:, :, 0]
    v1 = jnp.broadcast_to(v0, (6, 8))
    v1 = jnp.min(v1.astype(jnp.float32), axis=(1,), keepdims=True) > 0
    out = jnp.broadcast_to(v1, (6, 1))
    out = out.reshape((6,))
    z_ref[...] = out


_any_all_strided_z_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((6, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((6,), lambda _: (np.int32(0),)))


def any_all_strided_pure(m, *, interpret=False):
    """Traceable any_all_strided(m bool[6, 8] (storage of 95)) -> y bool[6], z bool[6]."""
    m = jnp.asarray(m).reshape(-1)
    # y
    y = pl.pallas_call(
        _any_all_strided_y,
        out_shape=jax.ShapeDtypeStruct((6,), jnp.bool_),
        grid_spec=_any_all_strided_y_grid,
        interpret=interpret,
    )(_pad(m, 96).reshape(6, 8, 2))
    # z
    z = pl.pallas_call(
        _any_all_strided_z,
        out_shape=jax.ShapeDtypeStruct((6,), jnp.bool_),
        grid_spec=_any_all_strided_z_grid,
        interpret=interpret,
    )(_pad(m, 96).reshape(6, 8, 2))
    return y.reshape(6), z.reshape(6)


_any_all_strided = jax.jit(any_all_strided_pure, static_argnames="interpret")


def any_all_strided(m, *, interpret=None):
    """any_all_strided(m bool[6, 8] (storage of 95)) -> y bool[6], z bool[6]."""
    return _run(_any_all_strided, (m,), interpret)


# ---- kernel min_i16_permuted

def _min_i16_permuted_y(x_ref, y_ref):
    # y[j] = min(i: x[i, j])
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v1 = jnp.broadcast_to(v0, (7, 5))
    v1 = jnp.min(v1.astype(jnp.float32), axis=(1,), keepdims=True).astype(jnp.int16)  # exact in f32
    out = jnp.broadcast_to(v1, (7, 1))
    out = out.reshape((7,))
    y_ref[...] = out


_min_i16_permuted_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((5, 7), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((7,), lambda _: (np.int32(0),)))


def min_i16_permuted_pure(x, *, interpret=False):
    """Traceable min_i16_permuted(x i16[5, 7]) -> y i16[7]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _min_i16_permuted_y,
        out_shape=jax.ShapeDtypeStruct((7,), jnp.int16),
        grid_spec=_min_i16_permuted_y_grid,
        interpret=interpret,
    )(x.reshape(5, 7))
    return y.reshape(7)


_min_i16_permuted = jax.jit(min_i16_permuted_pure, static_argnames="interpret")


def min_i16_permuted(x, *, interpret=None):
    """min_i16_permuted(x i16[5, 7]) -> y i16[7]."""
    return _run(_min_i16_permuted, (x,), interpret)


# ---- kernel count_true

def _count_true_y_m(m):
    """m[i, k] over (4, 8), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = m.reshape(4, 8)
    return a


def _count_true_y(m_ref):
    # y[i] = sum(k: i64(m[i, k]))
    v0 = m_ref[...]
    v1 = v0.astype(jnp.int64)
    v2 = jnp.broadcast_to(v1, (4, 8))
    v2 = jnp.sum(v2, axis=(1,), keepdims=True).astype(jnp.int64)
    return jnp.broadcast_to(v2, (4, 1)).reshape(-1).astype(jnp.int64)


def count_true_pure(m, *, interpret=False):
    """Traceable count_true(m bool[4, 8]) -> y i64[4]."""
    m = jnp.asarray(m).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _count_true_y(_count_true_y_m(m))
    return y.reshape(4)


_count_true = jax.jit(count_true_pure, static_argnames="interpret")


def count_true(m, *, interpret=None):
    """count_true(m bool[4, 8]) -> y i64[4]."""
    return _run(_count_true, (m,), interpret)


# ---- kernel sum_empty

def _sum_empty_y(y_ref):
    # y[i] = sum(k: x[i, k])
    v1 = jnp.full((1, 1), 0, jnp.float32)  # a reduction over no elements
    out = jnp.broadcast_to(v1, (4, 1))
    out = out.reshape((4,))
    y_ref[...] = out


_sum_empty_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[],
    out_specs=pl.BlockSpec((4,), lambda _: (np.int32(0),)))


def sum_empty_pure(x, *, interpret=False):
    """Traceable sum_empty(x f32[4, 0]) -> y f32[4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _sum_empty_y,
        out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
        grid_spec=_sum_empty_y_grid,
        interpret=interpret,
    )()
    return y.reshape(4)


_sum_empty = jax.jit(sum_empty_pure, static_argnames="interpret")


def sum_empty(x, *, interpret=None):
    """sum_empty(x f32[4, 0]) -> y f32[4]."""
    return _run(_sum_empty, (x,), interpret)


# ---- kernel embedding_bag_sum

def _embedding_bag_sum_y(idx_ref, table_ref, y_ref, err_ref):
    # y[b, d] = sum(s: table[idx[b, s], d])
    @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0))
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[(5*pl.program_id(0) + pl.program_id(1))]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 8, 1))
    bad = (v0 < 0) | (v0 >= 20)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    v2 = jnp.broadcast_to(v1, (1, 8, 1))
    v2 = jnp.sum(v2, axis=(2,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v2, (1, 8, 1))
    out = out.reshape((1, 8))
    @pl.when((pl.program_id(1) == 0))
    def _start():
        y_ref[...] = jnp.full(y_ref.shape, 0, jnp.float32)
    y_ref[...] = y_ref[...] + out


_embedding_bag_sum_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(3, 5),
    in_specs=[
        pl.BlockSpec((None, 1, 8), lambda b, s, idx_ref: (jnp.clip(idx_ref[(5*b + s)], 0, 19), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 8), lambda b, s, idx_ref: (b, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embedding_bag_sum_MESSAGES = (
    "kernel embedding_bag_sum: index {2} out of range for dim 0 of 'table' (size 20) at y[{3}, {4}]",
)


def embedding_bag_sum_pure(table, idx, *, interpret=False):
    """Traceable embedding_bag_sum(table f32[20, 8], idx i64[3, 5]) -> y f32[3, 8]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embedding_bag_sum_y,
        out_shape=(jax.ShapeDtypeStruct((3, 1, 8), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embedding_bag_sum_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "arbitrary")),
        interpret=interpret,
    )(_i32(idx), table.reshape(20, 1, 8))
    y = y.reshape(-1)
    return y.reshape(3, 8), bad0


_embedding_bag_sum = jax.jit(embedding_bag_sum_pure, static_argnames="interpret")


def embedding_bag_sum(table, idx, *, interpret=None):
    """embedding_bag_sum(table f32[20, 8], idx i64[3, 5]) -> y f32[3, 8]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embedding_bag_sum, (table, idx), interpret)
    _raise_bad(bad, _embedding_bag_sum_MESSAGES)
    return outs[0]


# ---- kernel softmax_strided

def _softmax_strided_m(x_ref, m_ref):
    # m[n] = max(d < 8: x[n, (2 * d)])
    v0 = x_ref[...][:, :, 0]
    v1 = jnp.broadcast_to(v0, (4, 8))
    v1 = jnp.max(v1, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v1, (4, 1))
    out = out.reshape((4,))
    m_ref[...] = out


_softmax_strided_m_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4,), lambda _: (np.int32(0),)))

def _softmax_strided_z(x_ref, m_ref, z_ref):
    # z[n] = sum(d < 8: exp((x[n, (2 * d)] - m[n])))
    v0 = x_ref[...][:, :, 0]
    v1 = m_ref[...]
    v1 = v1.reshape((4, 1))
    v2 = v0 - v1
    v3 = jnp.exp(v2)
    v4 = jnp.broadcast_to(v3, (4, 8))
    v4 = jnp.sum(v4, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v4, (4, 1))
    out = out.reshape((4,))
    z_ref[...] = out


_softmax_strided_z_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))),
        pl.BlockSpec((4,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((4,), lambda _: (np.int32(0),)))

def _softmax_strided_y(x_ref, m_ref, z_ref, y_ref):
    # y[n, d] = (exp((x[n, (2 * d)] - m[n])) / z[n])
    v0 = x_ref[...][:, :, 0]
    v1 = m_ref[...]
    v1 = v1.reshape((4, 1))
    v2 = v0 - v1
    v3 = jnp.exp(v2)
    v4 = z_ref[...]
    v4 = v4.reshape((4, 1))
    v5 = v3 / v4
    out = v5
    y_ref[...] = out


_softmax_strided_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))),
        pl.BlockSpec((4,), lambda _: (np.int32(0),)),
        pl.BlockSpec((4,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((4, 8), lambda _: (np.int32(0), np.int32(0))))


def softmax_strided_pure(x, *, interpret=False):
    """Traceable softmax_strided(x f32[4, 16]) -> y f32[4, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # m
    m = pl.pallas_call(
        _softmax_strided_m,
        out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
        grid_spec=_softmax_strided_m_grid,
        interpret=interpret,
    )(x.reshape(4, 8, 2))
    # z
    z = pl.pallas_call(
        _softmax_strided_z,
        out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
        grid_spec=_softmax_strided_z_grid,
        interpret=interpret,
    )(x.reshape(4, 8, 2), m)
    # y
    y = pl.pallas_call(
        _softmax_strided_y,
        out_shape=jax.ShapeDtypeStruct((4, 8), jnp.float32),
        grid_spec=_softmax_strided_y_grid,
        interpret=interpret,
    )(x.reshape(4, 8, 2), m, z)
    y = y.reshape(-1)
    return y.reshape(4, 8)


_softmax_strided = jax.jit(softmax_strided_pure, static_argnames="interpret")


def softmax_strided(x, *, interpret=None):
    """softmax_strided(x f32[4, 16]) -> y f32[4, 8]."""
    return _run(_softmax_strided, (x,), interpret)


# ---- kernel max_sym

def _max_sym_y(x_ref, y_ref):
    # y[n] = max(d: x[n, d])
    v0 = x_ref[...]
    v1 = jnp.broadcast_to(v0, (64, 32))
    v1 = jnp.max(v1, axis=(1,), keepdims=True).astype(jnp.float32)
    out = jnp.broadcast_to(v1, (64, 1))
    out = out.reshape((64,))
    y_ref[...] = out


_max_sym_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64, 32), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((64,), lambda _: (np.int32(0),)))


def max_sym_pure(x, *, interpret=False):
    """Traceable max_sym(x f32[64, 32]) -> y f32[64]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _max_sym_y,
        out_shape=jax.ShapeDtypeStruct((64,), jnp.float32),
        grid_spec=_max_sym_y_grid,
        interpret=interpret,
    )(x.reshape(64, 32))
    return y.reshape(64)


_max_sym = jax.jit(max_sym_pure, static_argnames="interpret")


def max_sym(x, *, interpret=None):
    """max_sym(x f32[64, 32]) -> y f32[64]."""
    return _run(_max_sym, (x,), interpret)
