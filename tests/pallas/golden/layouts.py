"""Pallas kernels of examples/layouts.ath, emitted by athene (target pallas). Do not edit.

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


def _pad(a, n):
    """The storage padded to n elements: the reshape's last row is partial."""
    return jnp.pad(a, (0, n - a.shape[0]))


# ---- kernel view_step2

def _view_step2_y(x_ref, y_ref):
    # y[i] = ((x[i] * 2) + 1)
    v0 = x_ref[...][:, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((128, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((128,), lambda _: (np.int32(0),)))


def view_step2_pure(x, *, interpret=False):
    """Traceable view_step2(x f32[128] (storage of 255)) -> y f32[128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_step2_y,
        out_shape=jax.ShapeDtypeStruct((128,), jnp.float32),
        grid_spec=_view_step2_y_grid,
        interpret=interpret,
    )(_pad(x, 256).reshape(128, 2))
    return y.reshape(128)


_view_step2 = jax.jit(view_step2_pure, static_argnames="interpret")


def view_step2(x, *, interpret=None):
    """view_step2(x f32[128] (storage of 255)) -> y f32[128]."""
    return _run(_view_step2, (x,), interpret)


# ---- kernel view_step4

def _view_step4_y(x_ref, y_ref):
    # y[i] = ((x[i] * 2) + 1)
    v0 = x_ref[...][:, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_step4_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64, 4), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((64,), lambda _: (np.int32(0),)))


def view_step4_pure(x, *, interpret=False):
    """Traceable view_step4(x f32[64] (storage of 253)) -> y f32[64]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_step4_y,
        out_shape=jax.ShapeDtypeStruct((64,), jnp.float32),
        grid_spec=_view_step4_y_grid,
        interpret=interpret,
    )(_pad(x, 256).reshape(64, 4))
    return y.reshape(64)


_view_step4 = jax.jit(view_step4_pure, static_argnames="interpret")


def view_step4(x, *, interpret=None):
    """view_step4(x f32[64] (storage of 253)) -> y f32[64]."""
    return _run(_view_step4, (x,), interpret)


# ---- kernel view_step2_step2

def _view_step2_step2_y(x_ref, y_ref):
    # y[i] = ((x[i] * 2) + 1)
    v0 = x_ref[...][:, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_step2_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64, 4), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((64,), lambda _: (np.int32(0),)))


def view_step2_step2_pure(x, *, interpret=False):
    """Traceable view_step2_step2(x f32[64] (storage of 253)) -> y f32[64]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_step2_step2_y,
        out_shape=jax.ShapeDtypeStruct((64,), jnp.float32),
        grid_spec=_view_step2_step2_y_grid,
        interpret=interpret,
    )(_pad(x, 256).reshape(64, 4))
    return y.reshape(64)


_view_step2_step2 = jax.jit(view_step2_step2_pure, static_argnames="interpret")


def view_step2_step2(x, *, interpret=None):
    """view_step2_step2(x f32[64] (storage of 253)) -> y f32[64]."""
    return _run(_view_step2_step2, (x,), interpret)


# ---- kernel view_step2_then_slice

def _view_step2_then_slice_y(x_ref, y_ref):
    # y[i] = ((x[(2 * i)] * 2) + 1)
    v0 = x_ref[...][:, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_step2_then_slice_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64, 4), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((64,), lambda _: (np.int32(0),)))


def view_step2_then_slice_pure(x, *, interpret=False):
    """Traceable view_step2_then_slice(x f32[128] (storage of 255)) -> y f32[64]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_step2_then_slice_y,
        out_shape=jax.ShapeDtypeStruct((64,), jnp.float32),
        grid_spec=_view_step2_then_slice_y_grid,
        interpret=interpret,
    )(_pad(x, 256).reshape(64, 4))
    return y.reshape(64)


_view_step2_then_slice = jax.jit(view_step2_then_slice_pure, static_argnames="interpret")


def view_step2_then_slice(x, *, interpret=None):
    """view_step2_then_slice(x f32[128] (storage of 255)) -> y f32[64]."""
    return _run(_view_step2_then_slice, (x,), interpret)


# ---- kernel view_rows_step2

def _view_rows_step2_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...][:, 0:32]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_rows_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 64), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 32), lambda _: (np.int32(0), np.int32(0))))


def view_rows_step2_pure(x, *, interpret=False):
    """Traceable view_rows_step2(x f32[16, 32] (storage of 992)) -> y f32[16, 32]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_rows_step2_y,
        out_shape=jax.ShapeDtypeStruct((16, 32), jnp.float32),
        grid_spec=_view_rows_step2_y_grid,
        interpret=interpret,
    )(_pad(x, 1024).reshape(16, 64))
    y = y.reshape(-1)
    return y.reshape(16, 32)


_view_rows_step2 = jax.jit(view_rows_step2_pure, static_argnames="interpret")


def view_rows_step2(x, *, interpret=None):
    """view_rows_step2(x f32[16, 32] (storage of 992)) -> y f32[16, 32]."""
    return _run(_view_rows_step2, (x,), interpret)


# ---- kernel view_cols_step2

def _view_cols_step2_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...][:, :, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_cols_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((32, 16, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 16), lambda _: (np.int32(0), np.int32(0))))


def view_cols_step2_pure(x, *, interpret=False):
    """Traceable view_cols_step2(x f32[32, 16] (storage of 1023)) -> y f32[32, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_cols_step2_y,
        out_shape=jax.ShapeDtypeStruct((32, 16), jnp.float32),
        grid_spec=_view_cols_step2_y_grid,
        interpret=interpret,
    )(_pad(x, 1024).reshape(32, 16, 2))
    y = y.reshape(-1)
    return y.reshape(32, 16)


_view_cols_step2 = jax.jit(view_cols_step2_pure, static_argnames="interpret")


def view_cols_step2(x, *, interpret=None):
    """view_cols_step2(x f32[32, 16] (storage of 1023)) -> y f32[32, 16]."""
    return _run(_view_cols_step2, (x,), interpret)


# ---- kernel view_both_step2

def _view_both_step2_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...][:, :, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_both_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 16, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 16), lambda _: (np.int32(0), np.int32(0))))


def view_both_step2_pure(x, *, interpret=False):
    """Traceable view_both_step2(x f32[16, 16] (storage of 991)) -> y f32[16, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_both_step2_y,
        out_shape=jax.ShapeDtypeStruct((16, 16), jnp.float32),
        grid_spec=_view_both_step2_y_grid,
        interpret=interpret,
    )(_pad(x, 1024).reshape(16, 32, 2))
    y = y.reshape(-1)
    return y.reshape(16, 16)


_view_both_step2 = jax.jit(view_both_step2_pure, static_argnames="interpret")


def view_both_step2(x, *, interpret=None):
    """view_both_step2(x f32[16, 16] (storage of 991)) -> y f32[16, 16]."""
    return _run(_view_both_step2, (x,), interpret)


# ---- kernel view_T_32x32

def _view_T_32x32_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_T_32x32_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((32, 32), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 32), lambda _: (np.int32(0), np.int32(0))))


def view_T_32x32_pure(x, *, interpret=False):
    """Traceable view_T_32x32(x f32[32, 32] (storage of 1024)) -> y f32[32, 32]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_T_32x32_y,
        out_shape=jax.ShapeDtypeStruct((32, 32), jnp.float32),
        grid_spec=_view_T_32x32_y_grid,
        interpret=interpret,
    )(x.reshape(32, 32))
    y = y.reshape(-1)
    return y.reshape(32, 32)


_view_T_32x32 = jax.jit(view_T_32x32_pure, static_argnames="interpret")


def view_T_32x32(x, *, interpret=None):
    """view_T_32x32(x f32[32, 32] (storage of 1024)) -> y f32[32, 32]."""
    return _run(_view_T_32x32, (x,), interpret)


# ---- kernel view_T_2048x2048

def _view_T_2048x2048_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_T_2048x2048_y_grid = pl.GridSpec(
    grid=(4,),
    in_specs=[
        pl.BlockSpec((2048, 512), lambda i: (np.int32(0), i))],
    out_specs=pl.BlockSpec((512, 2048), lambda i: (i, np.int32(0))))


def view_T_2048x2048_pure(x, *, interpret=False):
    """Traceable view_T_2048x2048(x f32[2048, 2048] (storage of 4194304)) -> y f32[2048, 2048]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_T_2048x2048_y,
        out_shape=jax.ShapeDtypeStruct((2048, 2048), jnp.float32),
        grid_spec=_view_T_2048x2048_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2048, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 2048)


_view_T_2048x2048 = jax.jit(view_T_2048x2048_pure, static_argnames="interpret")


def view_T_2048x2048(x, *, interpret=None):
    """view_T_2048x2048(x f32[2048, 2048] (storage of 4194304)) -> y f32[2048, 2048]."""
    return _run(_view_T_2048x2048, (x,), interpret)


# ---- kernel view_T_64x32

def _view_T_64x32_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_T_64x32_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64, 32), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 64), lambda _: (np.int32(0), np.int32(0))))


def view_T_64x32_pure(x, *, interpret=False):
    """Traceable view_T_64x32(x f32[32, 64] (storage of 2048)) -> y f32[32, 64]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_T_64x32_y,
        out_shape=jax.ShapeDtypeStruct((32, 64), jnp.float32),
        grid_spec=_view_T_64x32_y_grid,
        interpret=interpret,
    )(x.reshape(64, 32))
    y = y.reshape(-1)
    return y.reshape(32, 64)


_view_T_64x32 = jax.jit(view_T_64x32_pure, static_argnames="interpret")


def view_T_64x32(x, *, interpret=None):
    """view_T_64x32(x f32[32, 64] (storage of 2048)) -> y f32[32, 64]."""
    return _run(_view_T_64x32, (x,), interpret)


# ---- kernel view_T_5x8

def _view_T_5x8_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_T_5x8_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((5, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 5), lambda _: (np.int32(0), np.int32(0))))


def view_T_5x8_pure(x, *, interpret=False):
    """Traceable view_T_5x8(x f32[8, 5] (storage of 40)) -> y f32[8, 5]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_T_5x8_y,
        out_shape=jax.ShapeDtypeStruct((8, 5), jnp.float32),
        grid_spec=_view_T_5x8_y_grid,
        interpret=interpret,
    )(x.reshape(5, 8))
    y = y.reshape(-1)
    return y.reshape(8, 5)


_view_T_5x8 = jax.jit(view_T_5x8_pure, static_argnames="interpret")


def view_T_5x8(x, *, interpret=None):
    """view_T_5x8(x f32[8, 5] (storage of 40)) -> y f32[8, 5]."""
    return _run(_view_T_5x8, (x,), interpret)


# ---- kernel view_T_3215x23

def _view_T_3215x23_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_T_3215x23_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((3215, 23), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((23, 3215), lambda _: (np.int32(0), np.int32(0))))


def view_T_3215x23_pure(x, *, interpret=False):
    """Traceable view_T_3215x23(x f32[23, 3215] (storage of 73945)) -> y f32[23, 3215]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_T_3215x23_y,
        out_shape=jax.ShapeDtypeStruct((23, 3215), jnp.float32),
        grid_spec=_view_T_3215x23_y_grid,
        interpret=interpret,
    )(x.reshape(3215, 23))
    y = y.reshape(-1)
    return y.reshape(23, 3215)


_view_T_3215x23 = jax.jit(view_T_3215x23_pure, static_argnames="interpret")


def view_T_3215x23(x, *, interpret=None):
    """view_T_3215x23(x f32[23, 3215] (storage of 73945)) -> y f32[23, 3215]."""
    return _run(_view_T_3215x23, (x,), interpret)


# ---- kernel view_T_8x128

def _view_T_8x128_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_T_8x128_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 128), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((128, 8), lambda _: (np.int32(0), np.int32(0))))


def view_T_8x128_pure(x, *, interpret=False):
    """Traceable view_T_8x128(x f32[128, 8] (storage of 1024)) -> y f32[128, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_T_8x128_y,
        out_shape=jax.ShapeDtypeStruct((128, 8), jnp.float32),
        grid_spec=_view_T_8x128_y_grid,
        interpret=interpret,
    )(x.reshape(8, 128))
    y = y.reshape(-1)
    return y.reshape(128, 8)


_view_T_8x128 = jax.jit(view_T_8x128_pure, static_argnames="interpret")


def view_T_8x128(x, *, interpret=None):
    """view_T_8x128(x f32[128, 8] (storage of 1024)) -> y f32[128, 8]."""
    return _run(_view_T_8x128, (x,), interpret)


# ---- kernel view_T_128x8

def _view_T_128x8_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_T_128x8_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((128, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 128), lambda _: (np.int32(0), np.int32(0))))


def view_T_128x8_pure(x, *, interpret=False):
    """Traceable view_T_128x8(x f32[8, 128] (storage of 1024)) -> y f32[8, 128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_T_128x8_y,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        grid_spec=_view_T_128x8_y_grid,
        interpret=interpret,
    )(x.reshape(128, 8))
    y = y.reshape(-1)
    return y.reshape(8, 128)


_view_T_128x8 = jax.jit(view_T_128x8_pure, static_argnames="interpret")


def view_T_128x8(x, *, interpret=None):
    """view_T_128x8(x f32[8, 128] (storage of 1024)) -> y f32[8, 128]."""
    return _run(_view_T_128x8, (x,), interpret)


# ---- kernel view_T_sym

def _view_T_sym_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_T_sym_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64, 48), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((48, 64), lambda _: (np.int32(0), np.int32(0))))


def view_T_sym_pure(x, *, interpret=False):
    """Traceable view_T_sym(x f32[48, 64] (storage of 3072)) -> y f32[48, 64]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_T_sym_y,
        out_shape=jax.ShapeDtypeStruct((48, 64), jnp.float32),
        grid_spec=_view_T_sym_y_grid,
        interpret=interpret,
    )(x.reshape(64, 48))
    y = y.reshape(-1)
    return y.reshape(48, 64)


_view_T_sym = jax.jit(view_T_sym_pure, static_argnames="interpret")


def view_T_sym(x, *, interpret=None):
    """view_T_sym(x f32[48, 64] (storage of 3072)) -> y f32[48, 64]."""
    return _run(_view_T_sym, (x,), interpret)


# ---- kernel view_3d_step2

def _view_3d_step2_y(x_ref, y_ref):
    # y[i, j, k] = ((x[i, j, k] * 2) + 1)
    v0 = x_ref[...][:, :, 0:4, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_3d_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 4, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 4, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def view_3d_step2_pure(x, *, interpret=False):
    """Traceable view_3d_step2(x f32[4, 4, 4] (storage of 439)) -> y f32[4, 4, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_3d_step2_y,
        out_shape=jax.ShapeDtypeStruct((4, 4, 4), jnp.float32),
        grid_spec=_view_3d_step2_y_grid,
        interpret=interpret,
    )(_pad(x, 512).reshape(4, 8, 8, 2))
    y = y.reshape(-1)
    return y.reshape(4, 4, 4)


_view_3d_step2 = jax.jit(view_3d_step2_pure, static_argnames="interpret")


def view_3d_step2(x, *, interpret=None):
    """view_3d_step2(x f32[4, 4, 4] (storage of 439)) -> y f32[4, 4, 4]."""
    return _run(_view_3d_step2, (x,), interpret)


# ---- kernel view_3d_permuted

def _view_3d_permuted_y(x_ref, y_ref):
    # y[i, j, k] = ((x[i, j, k] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_3d_permuted_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 8, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 8, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def view_3d_permuted_pure(x, *, interpret=False):
    """Traceable view_3d_permuted(x f32[8, 8, 8] (storage of 512)) -> y f32[8, 8, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_3d_permuted_y,
        out_shape=jax.ShapeDtypeStruct((8, 8, 8), jnp.float32),
        grid_spec=_view_3d_permuted_y_grid,
        interpret=interpret,
    )(x.reshape(8, 8, 8))
    y = y.reshape(-1)
    return y.reshape(8, 8, 8)


_view_3d_permuted = jax.jit(view_3d_permuted_pure, static_argnames="interpret")


def view_3d_permuted(x, *, interpret=None):
    """view_3d_permuted(x f32[8, 8, 8] (storage of 512)) -> y f32[8, 8, 8]."""
    return _run(_view_3d_permuted, (x,), interpret)


# ---- kernel view_channels_last

def _view_channels_last_y(x_ref, y_ref):
    # y[n, c, h, w] = ((x[n, c, h, w] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 3, 1, 2))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_channels_last_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 5, 3), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 3, 4, 5), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def view_channels_last_pure(x, *, interpret=False):
    """Traceable view_channels_last(x f32[2, 3, 4, 5] (storage of 120)) -> y f32[2, 3, 4, 5]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_channels_last_y,
        out_shape=jax.ShapeDtypeStruct((2, 3, 4, 5), jnp.float32),
        grid_spec=_view_channels_last_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 5, 3))
    y = y.reshape(-1)
    return y.reshape(2, 3, 4, 5)


_view_channels_last = jax.jit(view_channels_last_pure, static_argnames="interpret")


def view_channels_last(x, *, interpret=None):
    """view_channels_last(x f32[2, 3, 4, 5] (storage of 120)) -> y f32[2, 3, 4, 5]."""
    return _run(_view_channels_last, (x,), interpret)


# ---- kernel view_diagonal

def _view_diagonal_y(x_ref, y_ref):
    # y[i] = ((x[i] * 2) + 1)
    v0 = x_ref[...][:, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_diagonal_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((32, 33), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32,), lambda _: (np.int32(0),)))


def view_diagonal_pure(x, *, interpret=False):
    """Traceable view_diagonal(x f32[32] (storage of 1024)) -> y f32[32]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_diagonal_y,
        out_shape=jax.ShapeDtypeStruct((32,), jnp.float32),
        grid_spec=_view_diagonal_y_grid,
        interpret=interpret,
    )(_pad(x, 1056).reshape(32, 33))
    return y.reshape(32)


_view_diagonal = jax.jit(view_diagonal_pure, static_argnames="interpret")


def view_diagonal(x, *, interpret=None):
    """view_diagonal(x f32[32] (storage of 1024)) -> y f32[32]."""
    return _run(_view_diagonal, (x,), interpret)


# ---- kernel view_as_strided

def _view_as_strided_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...][:, :, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_as_strided_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 8), lambda _: (np.int32(0), np.int32(0))))


def view_as_strided_pure(x, *, interpret=False):
    """Traceable view_as_strided(x f32[4, 8] (storage of 63)) -> y f32[4, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_as_strided_y,
        out_shape=jax.ShapeDtypeStruct((4, 8), jnp.float32),
        grid_spec=_view_as_strided_y_grid,
        interpret=interpret,
    )(_pad(x, 64).reshape(4, 8, 2))
    y = y.reshape(-1)
    return y.reshape(4, 8)


_view_as_strided = jax.jit(view_as_strided_pure, static_argnames="interpret")


def view_as_strided(x, *, interpret=None):
    """view_as_strided(x f32[4, 8] (storage of 63)) -> y f32[4, 8]."""
    return _run(_view_as_strided, (x,), interpret)


# ---- kernel view_row3_step2

def _view_row3_step2_y(x_ref, y_ref):
    # y[i] = ((x[i] * 2) + 1)
    v0 = x_ref[...][:, 0]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_row3_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 2), lambda _: (np.int32(3), np.int32(0)))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def view_row3_step2_pure(x, *, interpret=False):
    """Traceable view_row3_step2(x f32[16] (storage of 127)) -> y f32[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_row3_step2_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
        grid_spec=_view_row3_step2_y_grid,
        interpret=interpret,
    )(_pad(x, 128).reshape(64, 2))
    return y.reshape(16)


_view_row3_step2 = jax.jit(view_row3_step2_pure, static_argnames="interpret")


def view_row3_step2(x, *, interpret=None):
    """view_row3_step2(x f32[16] (storage of 127)) -> y f32[16]."""
    return _run(_view_row3_step2, (x,), interpret)


# ---- kernel view_unsqueezed

def _view_unsqueezed_y(x_ref, y_ref):
    # y[a, i, j] = ((x[a, i, j] * 2) + 1)
    v0 = x_ref[...][:, :, 0]
    v0 = v0.reshape((1, 16, 16))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = jnp.broadcast_to(v6, (1, 16, 16))
    out = out.reshape((16, 16))
    y_ref[...] = out


_view_unsqueezed_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 16, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 16), lambda _: (np.int32(0), np.int32(0))))


def view_unsqueezed_pure(x, *, interpret=False):
    """Traceable view_unsqueezed(x f32[1, 16, 16] (storage of 991)) -> y f32[1, 16, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_unsqueezed_y,
        out_shape=jax.ShapeDtypeStruct((16, 16), jnp.float32),
        grid_spec=_view_unsqueezed_y_grid,
        interpret=interpret,
    )(_pad(x, 1024).reshape(16, 32, 2))
    y = y.reshape(-1)
    return y.reshape(1, 16, 16)


_view_unsqueezed = jax.jit(view_unsqueezed_pure, static_argnames="interpret")


def view_unsqueezed(x, *, interpret=None):
    """view_unsqueezed(x f32[1, 16, 16] (storage of 991)) -> y f32[1, 16, 16]."""
    return _run(_view_unsqueezed, (x,), interpret)


# ---- kernel view_step2_f64

def _view_step2_f64_y_x(x):
    """x[i] over (16,), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = _pad(x, 32).reshape(16, 2)
    a = a[:, 0]
    return a


def _view_step2_f64_y(x_ref):
    # y[i] = ((x[i] * 2) + 1)
    v0 = x_ref[...]
    v2 = v0 * jnp.float64(2)
    v4 = v2 + jnp.float64(1)
    return jnp.broadcast_to(v4, (16,)).reshape(-1).astype(jnp.float64)


def view_step2_f64_pure(x, *, interpret=False):
    """Traceable view_step2_f64(x f64[16] (storage of 31)) -> y f64[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _view_step2_f64_y(_view_step2_f64_y_x(x))
    return y.reshape(16)


_view_step2_f64 = jax.jit(view_step2_f64_pure, static_argnames="interpret")


def view_step2_f64(x, *, interpret=None):
    """view_step2_f64(x f64[16] (storage of 31)) -> y f64[16]."""
    return _run(_view_step2_f64, (x,), interpret)


# ---- kernel view_step2_i32

def _view_step2_i32_y(x_ref, y_ref):
    # y[i] = ((x[i] * 2) + 1)
    v0 = x_ref[...][:, 0]
    v1 = v0.astype(jnp.float32)
    v4 = v1 * jnp.float32(2)
    v7 = v4 + jnp.float32(1)
    out = v7
    y_ref[...] = out


_view_step2_i32_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def view_step2_i32_pure(x, *, interpret=False):
    """Traceable view_step2_i32(x i32[16] (storage of 31)) -> y f32[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_step2_i32_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
        grid_spec=_view_step2_i32_y_grid,
        interpret=interpret,
    )(_pad(x, 32).reshape(16, 2))
    return y.reshape(16)


_view_step2_i32 = jax.jit(view_step2_i32_pure, static_argnames="interpret")


def view_step2_i32(x, *, interpret=None):
    """view_step2_i32(x i32[16] (storage of 31)) -> y f32[16]."""
    return _run(_view_step2_i32, (x,), interpret)


# ---- kernel view_expand_2d

def _view_expand_2d_y(a_ref, b_ref, y_ref):
    # y[i, j] = (a[i, j] + b[i, j])
    v0 = a_ref[...]
    v0 = v0.reshape((1, 16))
    v1 = b_ref[...]
    v2 = v0 + v1
    out = v2
    y_ref[...] = out


_view_expand_2d_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16,), lambda _: (np.int32(0),)),
        pl.BlockSpec((8, 16), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 16), lambda _: (np.int32(0), np.int32(0))))


def view_expand_2d_pure(a, b, *, interpret=False):
    """Traceable view_expand_2d(a f32[8, 16] (storage of 16), b f32[8, 16]) -> y f32[8, 16]."""
    a = jnp.asarray(a).reshape(-1)
    b = jnp.asarray(b).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_expand_2d_y,
        out_shape=jax.ShapeDtypeStruct((8, 16), jnp.float32),
        grid_spec=_view_expand_2d_y_grid,
        interpret=interpret,
    )(a, b.reshape(8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 16)


_view_expand_2d = jax.jit(view_expand_2d_pure, static_argnames="interpret")


def view_expand_2d(a, b, *, interpret=None):
    """view_expand_2d(a f32[8, 16] (storage of 16), b f32[8, 16]) -> y f32[8, 16]."""
    return _run(_view_expand_2d, (a, b), interpret)


# ---- kernel view_expand_3d

def _view_expand_3d_y(x_ref, y_ref):
    # y[i, j, k] = ((x[i, j, k] * 2) + 1)
    v0 = x_ref[...]
    v0 = v0.reshape((1, 1, 16))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = jnp.broadcast_to(v6, (4, 8, 16))
    y_ref[...] = out


_view_expand_3d_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def view_expand_3d_pure(x, *, interpret=False):
    """Traceable view_expand_3d(x f32[4, 8, 16] (storage of 16)) -> y f32[4, 8, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_expand_3d_y,
        out_shape=jax.ShapeDtypeStruct((4, 8, 16), jnp.float32),
        grid_spec=_view_expand_3d_y_grid,
        interpret=interpret,
    )(x)
    y = y.reshape(-1)
    return y.reshape(4, 8, 16)


_view_expand_3d = jax.jit(view_expand_3d_pure, static_argnames="interpret")


def view_expand_3d(x, *, interpret=None):
    """view_expand_3d(x f32[4, 8, 16] (storage of 16)) -> y f32[4, 8, 16]."""
    return _run(_view_expand_3d, (x,), interpret)


# ---- kernel view_expand_3d_twice

def _view_expand_3d_twice_y(a_ref, b_ref, y_ref):
    # y[i, j, k] = (((a[i, j, k] * 2) + b[i, j, k]) + 1)
    v0 = a_ref[...]
    v0 = v0.reshape((1, 1, 16))
    v3 = v0 * jnp.float32(2)
    v4 = b_ref[...]
    v4 = v4.reshape((1, 1, 16))
    v5 = v3 + v4
    v8 = v5 + jnp.float32(1)
    out = jnp.broadcast_to(v8, (4, 8, 16))
    y_ref[...] = out


_view_expand_3d_twice_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16,), lambda _: (np.int32(0),)),
        pl.BlockSpec((16,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def view_expand_3d_twice_pure(a, b, *, interpret=False):
    """Traceable view_expand_3d_twice(a f32[4, 8, 16] (storage of 16), b f32[4, 8, 16] (storage of 16)) -> y f32[4, 8, 16]."""
    a = jnp.asarray(a).reshape(-1)
    b = jnp.asarray(b).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_expand_3d_twice_y,
        out_shape=jax.ShapeDtypeStruct((4, 8, 16), jnp.float32),
        grid_spec=_view_expand_3d_twice_y_grid,
        interpret=interpret,
    )(a, b)
    y = y.reshape(-1)
    return y.reshape(4, 8, 16)


_view_expand_3d_twice = jax.jit(view_expand_3d_twice_pure, static_argnames="interpret")


def view_expand_3d_twice(a, b, *, interpret=None):
    """view_expand_3d_twice(a f32[4, 8, 16] (storage of 16), b f32[4, 8, 16] (storage of 16)) -> y f32[4, 8, 16]."""
    return _run(_view_expand_3d_twice, (a, b), interpret)


# ---- kernel view_multi_strided

def _view_multi_strided_y(a_ref, b_ref, c_ref, y_ref):
    # y[i, j] = ((a[i, j] * b[i, j]) + c[i, j])
    v0 = a_ref[...][:, :, 0]
    v1 = b_ref[...][:, :, 0]
    v2 = v0 * v1
    v3 = c_ref[...]
    v4 = v2 + v3
    out = v4
    y_ref[...] = out


_view_multi_strided_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 16, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))),
        pl.BlockSpec((16, 16, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))),
        pl.BlockSpec((16, 16), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 16), lambda _: (np.int32(0), np.int32(0))))


def view_multi_strided_pure(a, b, c, *, interpret=False):
    """Traceable view_multi_strided(a f32[16, 16] (storage of 991), b f32[16, 16] (storage of 991), c f32[16, 16]) -> y f32[16, 16]."""
    a = jnp.asarray(a).reshape(-1)
    b = jnp.asarray(b).reshape(-1)
    c = jnp.asarray(c).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_multi_strided_y,
        out_shape=jax.ShapeDtypeStruct((16, 16), jnp.float32),
        grid_spec=_view_multi_strided_y_grid,
        interpret=interpret,
    )(_pad(a, 1024).reshape(16, 32, 2), _pad(b, 1024).reshape(16, 32, 2), c.reshape(16, 16))
    y = y.reshape(-1)
    return y.reshape(16, 16)


_view_multi_strided = jax.jit(view_multi_strided_pure, static_argnames="interpret")


def view_multi_strided(a, b, c, *, interpret=None):
    """view_multi_strided(a f32[16, 16] (storage of 991), b f32[16, 16] (storage of 991), c f32[16, 16]) -> y f32[16, 16]."""
    return _run(_view_multi_strided, (a, b, c), interpret)


# ---- kernel view_strided_bcast_scalar

def _view_strided_bcast_scalar_out(x_ref, y_ref, s_ref, out_ref):
    # out[i, j] = (x[i, j] + (y[j] * s))
    v0 = x_ref[...][:, :, 0]
    v1 = y_ref[...]
    v1 = v1.reshape((1, 16))
    v2 = s_ref[...][0]
    v2 = v2.reshape((1, 1))
    v3 = v1 * v2
    v4 = v0 + v3
    out = v4
    out_ref[...] = out


_view_strided_bcast_scalar_out_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 16, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))),
        pl.BlockSpec((16,), lambda _: (np.int32(0),)),
        pl.BlockSpec((1,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((16, 16), lambda _: (np.int32(0), np.int32(0))))


def view_strided_bcast_scalar_pure(x, y, s, *, interpret=False):
    """Traceable view_strided_bcast_scalar(x f32[16, 16] (storage of 991), y f32[16], s f32[]) -> out f32[16, 16]."""
    x = jnp.asarray(x).reshape(-1)
    y = jnp.asarray(y).reshape(-1)
    s = jnp.asarray(s).reshape(-1)
    # out
    out = pl.pallas_call(
        _view_strided_bcast_scalar_out,
        out_shape=jax.ShapeDtypeStruct((16, 16), jnp.float32),
        grid_spec=_view_strided_bcast_scalar_out_grid,
        interpret=interpret,
    )(_pad(x, 1024).reshape(16, 32, 2), y, s)
    out = out.reshape(-1)
    return out.reshape(16, 16)


_view_strided_bcast_scalar = jax.jit(view_strided_bcast_scalar_pure, static_argnames="interpret")


def view_strided_bcast_scalar(x, y, s, *, interpret=None):
    """view_strided_bcast_scalar(x f32[16, 16] (storage of 991), y f32[16], s f32[]) -> out f32[16, 16]."""
    return _run(_view_strided_bcast_scalar, (x, y, s), interpret)


# ---- kernel view_flip_1d

def _view_flip_1d_y(x_ref, y_ref):
    # y[i] = ((x[i] * 2) + 1)
    v0 = x_ref[...]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_flip_1d_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def view_flip_1d_pure(x, *, interpret=False):
    """Traceable view_flip_1d(x f32[16] (storage of 16)) -> y f32[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_flip_1d_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
        grid_spec=_view_flip_1d_y_grid,
        interpret=interpret,
    )(jnp.flip(x, (0,)))
    return y.reshape(16)


_view_flip_1d = jax.jit(view_flip_1d_pure, static_argnames="interpret")


def view_flip_1d(x, *, interpret=None):
    """view_flip_1d(x f32[16] (storage of 16)) -> y f32[16]."""
    return _run(_view_flip_1d, (x,), interpret)


# ---- kernel view_flip_cols_step2

def _view_flip_cols_step2_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...][:, :, 1]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_flip_cols_step2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 4, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 4), lambda _: (np.int32(0), np.int32(0))))


def view_flip_cols_step2_pure(x, *, interpret=False):
    """Traceable view_flip_cols_step2(x f32[4, 4] (storage of 32)) -> y f32[4, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_flip_cols_step2_y,
        out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32),
        grid_spec=_view_flip_cols_step2_y_grid,
        interpret=interpret,
    )(jnp.flip(x.reshape(4, 4, 2), (1,)))
    y = y.reshape(-1)
    return y.reshape(4, 4)


_view_flip_cols_step2 = jax.jit(view_flip_cols_step2_pure, static_argnames="interpret")


def view_flip_cols_step2(x, *, interpret=None):
    """view_flip_cols_step2(x f32[4, 4] (storage of 32)) -> y f32[4, 4]."""
    return _run(_view_flip_cols_step2, (x,), interpret)


# ---- kernel view_flip_of_transpose

def _view_flip_of_transpose_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_view_flip_of_transpose_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((6, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 6), lambda _: (np.int32(0), np.int32(0))))


def view_flip_of_transpose_pure(x, *, interpret=False):
    """Traceable view_flip_of_transpose(x f32[8, 6] (storage of 48)) -> y f32[8, 6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_flip_of_transpose_y,
        out_shape=jax.ShapeDtypeStruct((8, 6), jnp.float32),
        grid_spec=_view_flip_of_transpose_y_grid,
        interpret=interpret,
    )(jnp.flip(x.reshape(6, 8), (1,)))
    y = y.reshape(-1)
    return y.reshape(8, 6)


_view_flip_of_transpose = jax.jit(view_flip_of_transpose_pure, static_argnames="interpret")


def view_flip_of_transpose(x, *, interpret=None):
    """view_flip_of_transpose(x f32[8, 6] (storage of 48)) -> y f32[8, 6]."""
    return _run(_view_flip_of_transpose, (x,), interpret)


# ---- kernel view_flip_both_unflip

def _view_flip_both_unflip_y(x_ref, y_ref):
    # y[i, j] = x[(7 - i), (7 - j)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_view_flip_both_unflip_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 8), lambda _: (np.int32(0), np.int32(0))))


def view_flip_both_unflip_pure(x, *, interpret=False):
    """Traceable view_flip_both_unflip(x f32[8, 8] (storage of 64)) -> y f32[8, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_flip_both_unflip_y,
        out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32),
        grid_spec=_view_flip_both_unflip_y_grid,
        interpret=interpret,
    )(x.reshape(8, 8))
    y = y.reshape(-1)
    return y.reshape(8, 8)


_view_flip_both_unflip = jax.jit(view_flip_both_unflip_pure, static_argnames="interpret")


def view_flip_both_unflip(x, *, interpret=None):
    """view_flip_both_unflip(x f32[8, 8] (storage of 64)) -> y f32[8, 8]."""
    return _run(_view_flip_both_unflip, (x,), interpret)


# ---- kernel view_size1_odd_stride

def _view_size1_odd_stride_y(x_ref, y_ref):
    # y[a, j] = ((x[a, j] * 2) + 1)
    v0 = x_ref[...][:, 0]
    v0 = v0.reshape((1, 8))
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = jnp.broadcast_to(v6, (1, 8))
    out = out.reshape((8,))
    y_ref[...] = out


_view_size1_odd_stride_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8,), lambda _: (np.int32(0),)))


def view_size1_odd_stride_pure(x, *, interpret=False):
    """Traceable view_size1_odd_stride(x f32[1, 8] (storage of 15)) -> y f32[1, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_size1_odd_stride_y,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        grid_spec=_view_size1_odd_stride_y_grid,
        interpret=interpret,
    )(_pad(x, 16).reshape(8, 2))
    return y.reshape(1, 8)


_view_size1_odd_stride = jax.jit(view_size1_odd_stride_pure, static_argnames="interpret")


def view_size1_odd_stride(x, *, interpret=None):
    """view_size1_odd_stride(x f32[1, 8] (storage of 15)) -> y f32[1, 8]."""
    return _run(_view_size1_odd_stride, (x,), interpret)


# ---- kernel colmajor_out

def _colmajor_out_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    out = jnp.transpose(out, (1, 0))
    y_ref[...] = out


_colmajor_out_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 16), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 8), lambda _: (np.int32(0), np.int32(0))))


def colmajor_out_pure(x, *, interpret=False):
    """Traceable colmajor_out(x f32[8, 16]) -> y f32[8, 16] (storage of 128)."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _colmajor_out_y,
        out_shape=jax.ShapeDtypeStruct((16, 8), jnp.float32),
        grid_spec=_colmajor_out_y_grid,
        interpret=interpret,
    )(x.reshape(8, 16))
    y = y.reshape(-1)
    return y


_colmajor_out = jax.jit(colmajor_out_pure, static_argnames="interpret")


def colmajor_out(x, *, interpret=None):
    """colmajor_out(x f32[8, 16]) -> y f32[8, 16] (storage of 128)."""
    return _run(_colmajor_out, (x,), interpret)


# ---- kernel view_flat_with_offset

def _view_flat_with_offset_y(x_ref, y_ref):
    # y[i] = x.flat[(2 * (15 - i))]
    v0 = x_ref[...][:, 0]
    out = v0
    y_ref[...] = out


_view_flat_with_offset_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def view_flat_with_offset_pure(x, *, interpret=False):
    """Traceable view_flat_with_offset(x f32[16] (storage of 127)) -> y f32[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_flat_with_offset_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
        grid_spec=_view_flat_with_offset_y_grid,
        interpret=interpret,
    )(jnp.flip(_pad(x, 128).reshape(64, 2), (0,)))
    return y.reshape(16)


_view_flat_with_offset = jax.jit(view_flat_with_offset_pure, static_argnames="interpret")


def view_flat_with_offset(x, *, interpret=None):
    """view_flat_with_offset(x f32[16] (storage of 127)) -> y f32[16]."""
    return _run(_view_flat_with_offset, (x,), interpret)


# ---- kernel view_flat_rows

def _view_flat_rows_y(x_ref, y_ref):
    # y[j, i] = x.flat[((8 * i) + j)]
    v0 = x_ref[...][:, 0:4]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_view_flat_rows_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 4), lambda _: (np.int32(0), np.int32(0))))


def view_flat_rows_pure(x, *, interpret=False):
    """Traceable view_flat_rows(x f32[4, 4] (storage of 28)) -> y f32[4, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _view_flat_rows_y,
        out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32),
        grid_spec=_view_flat_rows_y_grid,
        interpret=interpret,
    )(_pad(x, 32).reshape(4, 8))
    y = y.reshape(-1)
    return y.reshape(4, 4)


_view_flat_rows = jax.jit(view_flat_rows_pure, static_argnames="interpret")


def view_flat_rows(x, *, interpret=None):
    """view_flat_rows(x f32[4, 4] (storage of 28)) -> y f32[4, 4]."""
    return _run(_view_flat_rows, (x,), interpret)


# ---- kernel scatter_out

def _scatter_out_y_x(x):
    """x[i, j] over (2, 2), in XLA: Mosaic has no scatter (the store is no view)."""
    a = x.reshape(2, 2)
    return a


def _scatter_out_y(x_ref):
    # y[i, j] = (x[i, j] * 2)
    v0 = x_ref[...]
    v3 = v0 * jnp.float32(2)
    i = jax.lax.broadcasted_iota(jnp.int32, (2, 1), 0)
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 2), 1)
    return jnp.zeros((8,), jnp.float32).at[jnp.broadcast_to((5*i + 2*j), (2, 2)).reshape(-1)].set(jnp.broadcast_to(v3, (2, 2)).reshape(-1).astype(jnp.float32))


def scatter_out_pure(x, *, interpret=False):
    """Traceable scatter_out(x f32[2, 2]) -> y f32[2, 2] (storage of 8)."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: Mosaic has no scatter (the store is no view)
    y = _scatter_out_y(_scatter_out_y_x(x))
    return y


_scatter_out = jax.jit(scatter_out_pure, static_argnames="interpret")


def scatter_out(x, *, interpret=None):
    """scatter_out(x f32[2, 2]) -> y f32[2, 2] (storage of 8)."""
    return _run(_scatter_out, (x,), interpret)
