"""Pallas kernels of examples/strided.ath, emitted by athene (target pallas). Do not edit.

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


def _pad(a, n):
    """The storage padded to n elements: the reshape's last row is partial."""
    return jnp.pad(a, (0, n - a.shape[0]))


# ---- kernel slice_step2

def _slice_step2_y(x_ref, y_ref):
    # y[i] = (x[(2 * i)] * 2)
    v0 = x_ref[...][:, 0]
    v3 = v0 * jnp.float32(2)
    out = v3
    y_ref[...] = out


_slice_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8,), lambda _: (np.int32(0),)))


def slice_step2_pure(x, *, interpret=False):
    """Traceable slice_step2(x f32[16]) -> y f32[8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_step2_y,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        grid_spec=_slice_step2_y_grid,
        interpret=interpret,
    )(x.reshape(8, 2))
    return y.reshape(8)


_slice_step2 = jax.jit(slice_step2_pure, static_argnames="interpret")


def slice_step2(x, *, interpret=None):
    """slice_step2(x f32[16]) -> y f32[8]."""
    return _run(_slice_step2, (x,), interpret)


# ---- kernel slice_1_step2

def _slice_1_step2_y(x_ref, y_ref):
    # y[i] = (x[((2 * i) + 1)] + 1)
    v0 = x_ref[...][:, 1]
    v3 = v0 + jnp.float32(1)
    out = v3
    y_ref[...] = out


_slice_1_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8,), lambda _: (np.int32(0),)))


def slice_1_step2_pure(x, *, interpret=False):
    """Traceable slice_1_step2(x f32[16]) -> y f32[8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_1_step2_y,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        grid_spec=_slice_1_step2_y_grid,
        interpret=interpret,
    )(x.reshape(8, 2))
    return y.reshape(8)


_slice_1_step2 = jax.jit(slice_1_step2_pure, static_argnames="interpret")


def slice_1_step2(x, *, interpret=None):
    """slice_1_step2(x f32[16]) -> y f32[8]."""
    return _run(_slice_1_step2, (x,), interpret)


# ---- kernel slice_5_step2

def _slice_5_step2_y(x_ref, y_ref):
    # y[i] = (x[((2 * i) + 5)] + 1)
    v0 = x_ref[...][2:5, 1]
    v3 = v0 + jnp.float32(1)
    out = v3
    y_ref[...] = out


_slice_5_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((5, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((3,), lambda _: (np.int32(0),)))


def slice_5_step2_pure(x, *, interpret=False):
    """Traceable slice_5_step2(x f32[10]) -> y f32[3]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_5_step2_y,
        out_shape=jax.ShapeDtypeStruct((3,), jnp.float32),
        grid_spec=_slice_5_step2_y_grid,
        interpret=interpret,
    )(x.reshape(5, 2))
    return y.reshape(3)


_slice_5_step2 = jax.jit(slice_5_step2_pure, static_argnames="interpret")


def slice_5_step2(x, *, interpret=None):
    """slice_5_step2(x f32[10]) -> y f32[3]."""
    return _run(_slice_5_step2, (x,), interpret)


# ---- kernel slice_cols_5_step2

def _slice_cols_5_step2_y(x_ref, y_ref):
    # y[i, j] = (x[i, ((2 * j) + 5)] * 2)
    v0 = x_ref[...][:, 2:4, 1]
    v3 = v0 * jnp.float32(2)
    out = v3
    y_ref[...] = out


_slice_cols_5_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 4, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2), lambda _: (np.int32(0), np.int32(0))))


def slice_cols_5_step2_pure(x, *, interpret=False):
    """Traceable slice_cols_5_step2(x f32[4, 8]) -> y f32[4, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_cols_5_step2_y,
        out_shape=jax.ShapeDtypeStruct((4, 2), jnp.float32),
        grid_spec=_slice_cols_5_step2_y_grid,
        interpret=interpret,
    )(x.reshape(4, 4, 2))
    y = y.reshape(-1)
    return y.reshape(4, 2)


_slice_cols_5_step2 = jax.jit(slice_cols_5_step2_pure, static_argnames="interpret")


def slice_cols_5_step2(x, *, interpret=None):
    """slice_cols_5_step2(x f32[4, 8]) -> y f32[4, 2]."""
    return _run(_slice_cols_5_step2, (x,), interpret)


# ---- kernel slice_2d_step2_step3

def _slice_2d_step2_step3_y(x_ref, y_ref):
    # y[i, j] = (x[(2 * i), (3 * j)] + 1)
    v0 = x_ref[...][:, 0:4, 0]
    v3 = v0 + jnp.float32(1)
    out = v3
    y_ref[...] = out


_slice_2d_step2_step3_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 8, 3), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 4), lambda _: (np.int32(0), np.int32(0))))


def slice_2d_step2_step3_pure(x, *, interpret=False):
    """Traceable slice_2d_step2_step3(x f32[8, 12]) -> y f32[4, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_2d_step2_step3_y,
        out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32),
        grid_spec=_slice_2d_step2_step3_y_grid,
        interpret=interpret,
    )(x.reshape(4, 8, 3))
    y = y.reshape(-1)
    return y.reshape(4, 4)


_slice_2d_step2_step3 = jax.jit(slice_2d_step2_step3_pure, static_argnames="interpret")


def slice_2d_step2_step3(x, *, interpret=None):
    """slice_2d_step2_step3(x f32[8, 12]) -> y f32[4, 4]."""
    return _run(_slice_2d_step2_step3, (x,), interpret)


# ---- kernel slice_chain

def _slice_chain_y(x_ref, y_ref):
    # y[i, j] = (x[i, (1 + (2 * (2 + (3 * (3 + (4 * j))))))] + 1)
    v0 = x_ref[...][:, :, 23]
    v3 = v0 + jnp.float32(1)
    out = v3
    y_ref[...] = out


_slice_chain_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 20, 24), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 20), lambda _: (np.int32(0), np.int32(0))))


def slice_chain_pure(x, *, interpret=False):
    """Traceable slice_chain(x f32[4, 480]) -> y f32[4, 20]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_chain_y,
        out_shape=jax.ShapeDtypeStruct((4, 20), jnp.float32),
        grid_spec=_slice_chain_y_grid,
        interpret=interpret,
    )(x.reshape(4, 20, 24))
    y = y.reshape(-1)
    return y.reshape(4, 20)


_slice_chain = jax.jit(slice_chain_pure, static_argnames="interpret")


def slice_chain(x, *, interpret=None):
    """slice_chain(x f32[4, 480]) -> y f32[4, 20]."""
    return _run(_slice_chain, (x,), interpret)


# ---- kernel rope_interleaved

def _rope_interleaved_y_x(x):
    """x[r, (2 * (c // 2))] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(32, 32, 2)
    a = a[:, :, 0]
    a = a.reshape(32, 32, 1)
    a = jnp.broadcast_to(a, (32, 32, 2))
    a = a.reshape(32, 64)
    return a


def _rope_interleaved_y_cos(cos):
    """cos[r, (c // 2)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = cos.reshape(32, 32)
    a = a.reshape(32, 32, 1)
    a = jnp.broadcast_to(a, (32, 32, 2))
    a = a.reshape(32, 64)
    return a


def _rope_interleaved_y_x2(x):
    """x[r, ((2 * (c // 2)) + 1)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(32, 32, 2)
    a = a[:, :, 1]
    a = a.reshape(32, 32, 1)
    a = jnp.broadcast_to(a, (32, 32, 2))
    a = a.reshape(32, 64)
    return a


def _rope_interleaved_y_sin(sin):
    """sin[r, (c // 2)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = sin.reshape(32, 32)
    a = a.reshape(32, 32, 1)
    a = jnp.broadcast_to(a, (32, 32, 2))
    a = a.reshape(32, 64)
    return a


def _rope_interleaved_y_x3(x):
    """x[r, ((2 * (c // 2)) + 1)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(32, 32, 2)
    a = a[:, :, 1]
    a = a.reshape(32, 32, 1)
    a = jnp.broadcast_to(a, (32, 32, 2))
    a = a.reshape(32, 64)
    return a


def _rope_interleaved_y_cos2(cos):
    """cos[r, (c // 2)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = cos.reshape(32, 32)
    a = a.reshape(32, 32, 1)
    a = jnp.broadcast_to(a, (32, 32, 2))
    a = a.reshape(32, 64)
    return a


def _rope_interleaved_y_x4(x):
    """x[r, (2 * (c // 2))] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(32, 32, 2)
    a = a[:, :, 0]
    a = a.reshape(32, 32, 1)
    a = jnp.broadcast_to(a, (32, 32, 2))
    a = a.reshape(32, 64)
    return a


def _rope_interleaved_y_sin2(sin):
    """sin[r, (c // 2)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = sin.reshape(32, 32)
    a = a.reshape(32, 32, 1)
    a = jnp.broadcast_to(a, (32, 32, 2))
    a = a.reshape(32, 64)
    return a


def _rope_interleaved_y(x_ref, cos_ref, x2_ref, sin_ref, x3_ref, cos2_ref, x4_ref, sin2_ref, y_ref):
    # y[r, c] = where(((c % 2) == 0), ((x[r, (2 * (c // 2))] * cos[r, (c // 2)]) - (x[r, ((2 * (c // 2)) + 1)] * sin[r, (c // 2)])), ((x[r, ((2 * (c // 2)) + 1)] * cos[r, (c // 2)]) + (x[r, (2 * (c // 2))] * sin[r, (c // 2)])))
    c = jax.lax.broadcasted_iota(jnp.int32, (1, 64), 1)
    v2 = c % jnp.int32(2)
    v4 = v2 == jnp.int32(0)
    v5 = x_ref[...]
    v6 = cos_ref[...]
    v7 = v5 * v6
    v8 = x2_ref[...]
    v9 = sin_ref[...]
    v10 = v8 * v9
    v11 = v7 - v10
    v13 = x3_ref[...]
    v14 = cos2_ref[...]
    v15 = v13 * v14
    v16 = x4_ref[...]
    v17 = sin2_ref[...]
    v18 = v16 * v17
    v19 = v15 + v18
    v20 = jnp.where(v4, v11, v19)
    out = v20
    y_ref[...] = out


_rope_interleaved_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))))


def rope_interleaved_pure(x, cos, sin, *, interpret=False):
    """Traceable rope_interleaved(x f32[32, 64], cos f32[32, 32], sin f32[32, 32]) -> y f32[32, 64]."""
    x = jnp.asarray(x).reshape(-1)
    cos = jnp.asarray(cos).reshape(-1)
    sin = jnp.asarray(sin).reshape(-1)
    # y
    y = pl.pallas_call(
        _rope_interleaved_y,
        out_shape=jax.ShapeDtypeStruct((32, 64), jnp.float32),
        grid_spec=_rope_interleaved_y_grid,
        interpret=interpret,
    )(_rope_interleaved_y_x(x), _rope_interleaved_y_cos(cos), _rope_interleaved_y_x2(x), _rope_interleaved_y_sin(sin), _rope_interleaved_y_x3(x), _rope_interleaved_y_cos2(cos), _rope_interleaved_y_x4(x), _rope_interleaved_y_sin2(sin))
    y = y.reshape(-1)
    return y.reshape(32, 64)


_rope_interleaved = jax.jit(rope_interleaved_pure, static_argnames="interpret")


def rope_interleaved(x, cos, sin, *, interpret=None):
    """rope_interleaved(x f32[32, 64], cos f32[32, 32], sin f32[32, 32]) -> y f32[32, 64]."""
    return _run(_rope_interleaved, (x, cos, sin), interpret)


# ---- kernel rope_halves

def _rope_halves_y_x(x):
    """x[r, (c % 32)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(32, 64)
    a = a[:, 0:32]
    a = a.reshape(32, 1, 32)
    a = jnp.broadcast_to(a, (32, 2, 32))
    a = a.reshape(32, 64)
    return a


def _rope_halves_y_cos(cos):
    """cos[r, (c % 32)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = cos.reshape(32, 32)
    a = a.reshape(32, 1, 32)
    a = jnp.broadcast_to(a, (32, 2, 32))
    a = a.reshape(32, 64)
    return a


def _rope_halves_y_x2(x):
    """x[r, ((c % 32) + 32)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(32, 64)
    a = a[:, 32:64]
    a = a.reshape(32, 1, 32)
    a = jnp.broadcast_to(a, (32, 2, 32))
    a = a.reshape(32, 64)
    return a


def _rope_halves_y_sin(sin):
    """sin[r, (c % 32)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = sin.reshape(32, 32)
    a = a.reshape(32, 1, 32)
    a = jnp.broadcast_to(a, (32, 2, 32))
    a = a.reshape(32, 64)
    return a


def _rope_halves_y_x3(x):
    """x[r, ((c % 32) + 32)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(32, 64)
    a = a[:, 32:64]
    a = a.reshape(32, 1, 32)
    a = jnp.broadcast_to(a, (32, 2, 32))
    a = a.reshape(32, 64)
    return a


def _rope_halves_y_cos2(cos):
    """cos[r, (c % 32)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = cos.reshape(32, 32)
    a = a.reshape(32, 1, 32)
    a = jnp.broadcast_to(a, (32, 2, 32))
    a = a.reshape(32, 64)
    return a


def _rope_halves_y_x4(x):
    """x[r, (c % 32)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(32, 64)
    a = a[:, 0:32]
    a = a.reshape(32, 1, 32)
    a = jnp.broadcast_to(a, (32, 2, 32))
    a = a.reshape(32, 64)
    return a


def _rope_halves_y_sin2(sin):
    """sin[r, (c % 32)] over (32, 64), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = sin.reshape(32, 32)
    a = a.reshape(32, 1, 32)
    a = jnp.broadcast_to(a, (32, 2, 32))
    a = a.reshape(32, 64)
    return a


def _rope_halves_y(x_ref, cos_ref, x2_ref, sin_ref, x3_ref, cos2_ref, x4_ref, sin2_ref, y_ref):
    # y[r, c] = where((c < 32), ((x[r, (c % 32)] * cos[r, (c % 32)]) - (x[r, ((c % 32) + 32)] * sin[r, (c % 32)])), ((x[r, ((c % 32) + 32)] * cos[r, (c % 32)]) + (x[r, (c % 32)] * sin[r, (c % 32)])))
    c = jax.lax.broadcasted_iota(jnp.int32, (1, 64), 1)
    v2 = c < jnp.int32(32)
    v3 = x_ref[...]
    v4 = cos_ref[...]
    v5 = v3 * v4
    v6 = x2_ref[...]
    v7 = sin_ref[...]
    v8 = v6 * v7
    v9 = v5 - v8
    v11 = x3_ref[...]
    v12 = cos2_ref[...]
    v13 = v11 * v12
    v14 = x4_ref[...]
    v15 = sin2_ref[...]
    v16 = v14 * v15
    v17 = v13 + v16
    v18 = jnp.where(v2, v9, v17)
    out = v18
    y_ref[...] = out


_rope_halves_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))))


def rope_halves_pure(x, cos, sin, *, interpret=False):
    """Traceable rope_halves(x f32[32, 64], cos f32[32, 32], sin f32[32, 32]) -> y f32[32, 64]."""
    x = jnp.asarray(x).reshape(-1)
    cos = jnp.asarray(cos).reshape(-1)
    sin = jnp.asarray(sin).reshape(-1)
    # y
    y = pl.pallas_call(
        _rope_halves_y,
        out_shape=jax.ShapeDtypeStruct((32, 64), jnp.float32),
        grid_spec=_rope_halves_y_grid,
        interpret=interpret,
    )(_rope_halves_y_x(x), _rope_halves_y_cos(cos), _rope_halves_y_x2(x), _rope_halves_y_sin(sin), _rope_halves_y_x3(x), _rope_halves_y_cos2(cos), _rope_halves_y_x4(x), _rope_halves_y_sin2(sin))
    y = y.reshape(-1)
    return y.reshape(32, 64)


_rope_halves = jax.jit(rope_halves_pure, static_argnames="interpret")


def rope_halves(x, cos, sin, *, interpret=None):
    """rope_halves(x f32[32, 64], cos f32[32, 32], sin f32[32, 32]) -> y f32[32, 64]."""
    return _run(_rope_halves, (x, cos, sin), interpret)


# ---- kernel slice_step3

def _slice_step3_y(x_ref, y_ref):
    # y[i] = (x[(3 * i)] * 2)
    v0 = x_ref[...][:, 0]
    v3 = v0 * jnp.float32(2)
    out = v3
    y_ref[...] = out


_slice_step3_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((6, 3), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((6,), lambda _: (np.int32(0),)))


def slice_step3_pure(x, *, interpret=False):
    """Traceable slice_step3(x f32[16]) -> y f32[6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_step3_y,
        out_shape=jax.ShapeDtypeStruct((6,), jnp.float32),
        grid_spec=_slice_step3_y_grid,
        interpret=interpret,
    )(_pad(x, 18).reshape(6, 3))
    return y.reshape(6)


_slice_step3 = jax.jit(slice_step3_pure, static_argnames="interpret")


def slice_step3(x, *, interpret=None):
    """slice_step3(x f32[16]) -> y f32[6]."""
    return _run(_slice_step3, (x,), interpret)


# ---- kernel slice_1_step3_of17

def _slice_1_step3_of17_y(x_ref, y_ref):
    # y[i] = x[((3 * i) + 1)]
    v0 = x_ref[...][:, 1]
    out = v0
    y_ref[...] = out


_slice_1_step3_of17_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((6, 3), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((6,), lambda _: (np.int32(0),)))


def slice_1_step3_of17_pure(x, *, interpret=False):
    """Traceable slice_1_step3_of17(x f32[17]) -> y f32[6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_1_step3_of17_y,
        out_shape=jax.ShapeDtypeStruct((6,), jnp.float32),
        grid_spec=_slice_1_step3_of17_y_grid,
        interpret=interpret,
    )(_pad(x, 18).reshape(6, 3))
    return y.reshape(6)


_slice_1_step3_of17 = jax.jit(slice_1_step3_of17_pure, static_argnames="interpret")


def slice_1_step3_of17(x, *, interpret=None):
    """slice_1_step3_of17(x f32[17]) -> y f32[6]."""
    return _run(_slice_1_step3_of17, (x,), interpret)


# ---- kernel slice_2_14_5

def _slice_2_14_5_y(x_ref, y_ref):
    # y[i] = x[((5 * i) + 2)]
    v0 = x_ref[...][0:3, 2]
    out = v0
    y_ref[...] = out


_slice_2_14_5_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 5), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((3,), lambda _: (np.int32(0),)))


def slice_2_14_5_pure(x, *, interpret=False):
    """Traceable slice_2_14_5(x f32[16]) -> y f32[3]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_2_14_5_y,
        out_shape=jax.ShapeDtypeStruct((3,), jnp.float32),
        grid_spec=_slice_2_14_5_y_grid,
        interpret=interpret,
    )(_pad(x, 20).reshape(4, 5))
    return y.reshape(3)


_slice_2_14_5 = jax.jit(slice_2_14_5_pure, static_argnames="interpret")


def slice_2_14_5(x, *, interpret=None):
    """slice_2_14_5(x f32[16]) -> y f32[3]."""
    return _run(_slice_2_14_5, (x,), interpret)


# ---- kernel flip_1d

def _flip_1d_y(x_ref, y_ref):
    # y[i] = x[(15 - i)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_flip_1d_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def flip_1d_pure(x, *, interpret=False):
    """Traceable flip_1d(x f32[16]) -> y f32[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _flip_1d_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
        grid_spec=_flip_1d_y_grid,
        interpret=interpret,
    )(jnp.flip(x, (0,)))
    return y.reshape(16)


_flip_1d = jax.jit(flip_1d_pure, static_argnames="interpret")


def flip_1d(x, *, interpret=None):
    """flip_1d(x f32[16]) -> y f32[16]."""
    return _run(_flip_1d, (x,), interpret)


# ---- kernel flip_cols_step2

def _flip_cols_step2_y(x_ref, y_ref):
    # y[i, j] = x[i, (7 - (2 * j))]
    v0 = x_ref[...][:, :, 1]
    out = v0
    y_ref[...] = out


_flip_cols_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 4, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 4), lambda _: (np.int32(0), np.int32(0))))


def flip_cols_step2_pure(x, *, interpret=False):
    """Traceable flip_cols_step2(x f32[4, 8]) -> y f32[4, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _flip_cols_step2_y,
        out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32),
        grid_spec=_flip_cols_step2_y_grid,
        interpret=interpret,
    )(jnp.flip(x.reshape(4, 4, 2), (1,)))
    y = y.reshape(-1)
    return y.reshape(4, 4)


_flip_cols_step2 = jax.jit(flip_cols_step2_pure, static_argnames="interpret")


def flip_cols_step2(x, *, interpret=None):
    """flip_cols_step2(x f32[4, 8]) -> y f32[4, 4]."""
    return _run(_flip_cols_step2, (x,), interpret)


# ---- kernel flip_of_transpose

def _flip_of_transpose_y(x_ref, y_ref):
    # y[i, j] = x[j, (7 - i)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_flip_of_transpose_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((6, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 6), lambda _: (np.int32(0), np.int32(0))))


def flip_of_transpose_pure(x, *, interpret=False):
    """Traceable flip_of_transpose(x f32[6, 8]) -> y f32[8, 6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _flip_of_transpose_y,
        out_shape=jax.ShapeDtypeStruct((8, 6), jnp.float32),
        grid_spec=_flip_of_transpose_y_grid,
        interpret=interpret,
    )(jnp.flip(x.reshape(6, 8), (1,)))
    y = y.reshape(-1)
    return y.reshape(8, 6)


_flip_of_transpose = jax.jit(flip_of_transpose_pure, static_argnames="interpret")


def flip_of_transpose(x, *, interpret=None):
    """flip_of_transpose(x f32[6, 8]) -> y f32[8, 6]."""
    return _run(_flip_of_transpose, (x,), interpret)


# ---- kernel slice_sym

def _slice_sym_y(x_ref, y_ref):
    # y[i, j] = (x[(2 * i), ((M - 1) - (3 * j))] * 0.5)
    v0 = x_ref[...][:, :, 2]
    v3 = v0 * jnp.float32(0.5)
    out = v3
    y_ref[...] = out


_slice_sym_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((24, 16, 3), lambda _: (np.int32(0), np.int32(1), np.int32(0)))],
    out_specs=pl.BlockSpec((24, 16), lambda _: (np.int32(0), np.int32(0))))


def slice_sym_pure(x, *, interpret=False):
    """Traceable slice_sym(x f32[64, 48]) -> y f32[24, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _slice_sym_y,
        out_shape=jax.ShapeDtypeStruct((24, 16), jnp.float32),
        grid_spec=_slice_sym_y_grid,
        interpret=interpret,
    )(jnp.flip(x.reshape(32, 32, 3), (1,)))
    y = y.reshape(-1)
    return y.reshape(24, 16)


_slice_sym = jax.jit(slice_sym_pure, static_argnames="interpret")


def slice_sym(x, *, interpret=None):
    """slice_sym(x f32[64, 48]) -> y f32[24, 16]."""
    return _run(_slice_sym, (x,), interpret)
